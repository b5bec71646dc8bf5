/* The dirty-tensor flush (htp-dcache.h). */
#include "htp-dcache.h"

/* Lines [first, end) that tensor t's bytes touch: from element [0,0,0,0] to the end of its last block. */
static uint64_t dcache_tensor_lines(const struct htp_tensor *t) {
    uint32_t blck = 1, size = 0;
    (void) htp_type_geometry(t->type, &blck, &size); /* resolved: the type is known */
    uint64_t end = size;
    for (int i = 0; i < HTP_MAX_DIMS; i++) {
        if (t->ne[i] == 0) {
            return 0;
        }
        end += (uint64_t) ((i == 0 ? t->ne[0] / blck : t->ne[i]) - 1) * t->nb[i];
    }
    const uintptr_t start = (uintptr_t) t->data;
    const uint64_t first = start / HEX_L2_LINE_SIZE, last = (start + end + HEX_L2_LINE_SIZE - 1) / HEX_L2_LINE_SIZE;
    return last - first;
}

uint32_t htp_dcache_flush_dirty_tensors(struct htp_trace *tr, const struct htp_tensor *const *t, uint32_t n,
                                        uint32_t info) {
    htp_trace_start(tr, HTP_TRACE_L2FLUSH, info);
    uint64_t lines = 0;
    for (uint32_t i = 0; i < n; i++) {
        lines += t[i] ? dcache_tensor_lines(t[i]) : 0;
    }
    /* The DSP cleans each range (Q6_dccleaninva_A per line, 4 per iteration) or, above HTP_DCACHE_ALL_BYTES, the
     * whole cache (qurt_mem_cache_clean); here both are the release fence that orders the op's stores before the
     * fence's. */
    __atomic_thread_fence(__ATOMIC_RELEASE);
    htp_trace_stop(tr, HTP_TRACE_L2FLUSH, info);
    return lines * HEX_L2_LINE_SIZE > HTP_DCACHE_ALL_BYTES ? HTP_FLUSH_ALL : (uint32_t) lines;
}
