/*
 * The targets the virtual device models: the rows of the one target table (src/perf/perf-target.c, sources in
 * docs/targets.md) that vnpu builds an NPU library for (npu_library: v73..v81), with the fields the device
 * plans with.
 */
#include "perf-target.h"
#include "vdsp.h"

bool vdsp_target_get(enum vdsp_arch arch, struct vdsp_target *t) {
    const struct perf_target *p = perf_target_arch((uint32_t) arch);
    if (!p || !p->npu_library) {
        return false;
    }
    *t = (struct vdsp_target){.arch = arch,
                              .n_hw_threads = p->n_hw_threads,
                              .n_hvx_contexts = p->n_hvx_contexts,
                              .n_hmx = p->n_hmx,
                              .vtcm_size = p->vtcm_size,
                              .window_size = p->window_size,
                              .max_mapping = p->max_mapping,
                              .clock_mhz = p->clock_mhz};
    return true;
}

bool vdsp_arch_parse(const char *s, enum vdsp_arch *arch) {
    const struct perf_target *p = perf_target_find(s);
    if (!p || !p->npu_library) {
        return false;
    }
    *arch = (enum vdsp_arch) p->arch;
    return true;
}
