/*
 * The XDNA devices on the host side: NPU1, NPU2 and their column partitions (NPU1Col1, NPU1Col2, NPU1Col4, NPU2Col1,
 * NPU2Col4, NPU2Col8: seed 003's IRON device classes) as vnpu devices beside HTP0..N. A device takes MUL_MAT of F32,
 * F16, BF16, Q4_0, Q8_0 and Q4_K weights by F32 activations and runs it as the matmul design of src/xdna/xdna-matmul.h
 * on the emulated array; every other op falls back to the next device of the list (the CPU).
 *
 * Weights are dequantized to bf16 and packed in the design's blocked order once per weight tensor (found again by
 * address, dropped by forget_host); other src0 are packed per call. The environment: VNPU_XDNA_STRICT=1 runs every
 * design in strict mode (xdna-array.h rule 7's poison), VNPU_XDNA_BFP16=1 uses AIE2P's BFP16-emulation kernel
 * (8x8x8; NPU2 partitions only).
 */
#ifndef VNPU_XDNA_HOST_H
#define VNPU_XDNA_HOST_H

#include "backend.h"
#include "xdna-array.h"

#include <stdbool.h>
#include <stddef.h>

/* Whether name[0..len) is an XDNA partition (xdna-arch.h's table). */
bool vnpu_xdna_device_name(const char *name, size_t len);

/* A new XDNA device for partition name[0..len): VNPU_STATUS_BAD_ARG (logged, naming the partitions) for another
 * name or a bad VNPU_XDNA_* setting, VNPU_STATUS_NO_MEMORY. vnpu_device_free frees it. */
enum vnpu_status vnpu_xdna_device_open(const char *name, size_t len, struct vnpu_device **out);

/* Whether dev is an XDNA device. */
bool vnpu_xdna_device_is(struct vnpu_device *dev);

/* Whether XDNA device dev multiplies with the BFP16-emulation kernel (VNPU_XDNA_BFP16=1). */
bool vnpu_xdna_device_bfp16(struct vnpu_device *dev);

/* What dev's designs did since it opened (summed over runs; the array's tile statistics), for the cost model and
 * reports; also the number of MUL_MAT nodes and design runs. */
struct vnpu_xdna_totals {
    struct xdna_run_stats stats;
    uint64_t nodes, runs;
};
void vnpu_xdna_device_totals(struct vnpu_device *dev, struct vnpu_xdna_totals *out);

#endif /* VNPU_XDNA_HOST_H */
