/*
 * VTCM layouts as bump offsets (the seed's htp-vtcm.h): no allocator, every op owns all of VTCM while it
 * runs and places its buffers at byte offsets from the base. An op's layout function lives in its
 * <op>-ops.h (or row-stream.h for the row families) and is called by the host, to size kernel_params and
 * reject what does not fit, and by the kernel, to place its buffers: one function, so they cannot drift.
 *
 *     uint32_t top = 0;
 *     L.src0 = htp_vtcm_take(&top, 2 * block * row);   // two halves of src0 rows
 *     L.dst  = htp_vtcm_take(&top, 2 * block * row);
 *     L.per_thread = top;                              // thread i's slice at base + i * per_thread
 *
 * Regions are HEX_VLEN (128-byte) aligned, as HVX loads and DMA rows in VTCM want them. Offsets are
 * 32-bit: VTCM is at most a few MiB; a layout whose size wraps is caught by htp_vtcm_fits.
 */
#ifndef VNPU_HTP_VTCM_H
#define VNPU_HTP_VTCM_H

#include "hex-common.h"

#include <stdbool.h>
#include <stdint.h>

/* Reserve bytes (rounded up to HEX_VLEN) at *top; returns the region's offset. */
static inline uint32_t htp_vtcm_take(uint32_t *top, uint64_t bytes) {
    const uint32_t off = *top;
    const uint64_t end = (uint64_t) off + ((bytes + HEX_VLEN - 1) & ~(uint64_t) (HEX_VLEN - 1));
    *top = end > UINT32_MAX ? UINT32_MAX : (uint32_t) end; /* saturate: the fit check then fails */
    return off;
}

/* Whether n_threads slices of per_thread bytes fit in vtcm_size bytes. */
static inline bool htp_vtcm_fits(uint32_t per_thread, uint32_t n_threads, uint64_t vtcm_size) {
    return per_thread < UINT32_MAX && (uint64_t) per_thread * n_threads <= vtcm_size;
}

#endif /* VNPU_HTP_VTCM_H */
