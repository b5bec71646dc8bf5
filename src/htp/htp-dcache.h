/*
 * The dirty-tensor flush before a fence signals (seed 000, "Tensor Cache Flush and Pipeline Completion";
 * htp_dcache_flush_dirty_tensors; design notes 9.5): an op's outputs, as the 128-byte lines their bytes span, are
 * cleaned from the NPU's L2 to DDR so the group's other devices and the host read what this device wrote.
 *
 * The cost decides the method, as on the DSP: a total up to 4 KiB is cleaned line by line on one thread, more by the
 * op's threads in parallel, and more than HTP_DCACHE_ALL_BYTES (4 MiB) by one whole-cache clean instead of its lines.
 * The host's caches are coherent, so here the clean is a release fence; the call site, its L2FLUSH trace event and the
 * count it returns are what the cost model prices.
 */
#ifndef VNPU_HTP_DCACHE_H
#define VNPU_HTP_DCACHE_H

#include "hex-common.h"
#include "htp-tensor.h"
#include "htp-trace.h"

#include <stdint.h>

#define HTP_DCACHE_ALL_BYTES (4u << 20) /* notes 9.5: above it one whole-cache clean */

/* Clean the lines of the n tensors t[] (NULL entries skipped; each resolved by the dispatcher, so its bytes lie in
 * its buffer), recording an L2FLUSH event tagged info on tr. Returns the 128-byte lines cleaned, HTP_FLUSH_ALL
 * when the total took a whole-cache clean. */
uint32_t htp_dcache_flush_dirty_tensors(struct htp_trace *tr, const struct htp_tensor *const *t, uint32_t n,
                                        uint32_t info);

#endif /* VNPU_HTP_DCACHE_H */
