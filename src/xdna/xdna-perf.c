/*
 * The XDNA cost model (xdna-perf.h). Sources in short: "anchors 3.x" is ../shared/design/targets-and-anchors.md
 * section 3.x, "seed 003" ../shared/seeds/003_*.txt; an assumption is marked ASSUMPTION with its reasoning.
 * docs/xdna-cost-model.md has the long form.
 */
#include "xdna-perf.h"

#include "log.h"

#include <assert.h>

/* One design run's fixed cost: ASSUMPTION 52 us, `xrt-smi validate`'s latency test on Strix Halo (anchors 3.1,
 * amd/IRON#55: "Average latency: 52.0 us"), a run that does nothing, submitted by the host and waited for. The device
 * waits for every run (its result feeds the graph's next node), so the latency, not the pipelined throughput test's
 * 12.7 us a run (78,771 op/s), is the cost. AIE2: the same (no Phoenix figure). */
#define RUN_US           52.0
/* The laptop CPU on the graph's fallback ops: ASSUMPTION 44 GB/s, derived from anchors 3.3's earlier FastFlowLM page,
 * Llama-3.2-1B decode on the CPU at 54.6 t/s (Krackan): taken as llama.cpp streaming a Q4_K_M file of 0.807 GB
 * (LM Studio's default quantisation, ASSUMPTION) a token: 54.6 x 0.807 = 44 GB/s. AIE2 (Phoenix): the same. */
#define CPU_GBYTES_PER_S 44.0

static const struct xdna_perf_arch perf_archs[] = {
    [XDNA_ARCH_AIE2] = {.arch = XDNA_ARCH_AIE2, .name = "AIE2", .run_us = RUN_US, .cpu_gbytes_per_s = CPU_GBYTES_PER_S},
    [XDNA_ARCH_AIE2P] = {.arch = XDNA_ARCH_AIE2P,
                         .name = "AIE2P",
                         .run_us = RUN_US,
                         .cpu_gbytes_per_s = CPU_GBYTES_PER_S},
};
static_assert(sizeof(perf_archs) / sizeof(perf_archs[0]) == XDNA_ARCH_AIE2P + 1, "new arch: add its row here");

const char *xdna_perf_bound_name(enum xdna_perf_bound b) {
    switch (b) {
        case XDNA_PERF_BOUND_COMPUTE: return "compute";
        case XDNA_PERF_BOUND_DDR: return "ddr";
        case XDNA_PERF_BOUND_STREAM: return "stream";
        case XDNA_PERF_BOUND_FIXED: return "fixed";
        case XDNA_PERF_BOUND_CPU: return "cpu";
        case XDNA_PERF_BOUND_COUNT: break;
    }
    return "?";
}

const struct xdna_perf_arch *xdna_perf_arch_of(enum xdna_arch arch) {
    VNPU_ASSERT((unsigned) arch < sizeof(perf_archs) / sizeof(perf_archs[0]));
    return &perf_archs[arch];
}

void xdna_perf_run(const struct xdna_device *dev, const struct xdna_run_stats *s, struct xdna_perf_time *out) {
    const struct xdna_perf_arch *a = xdna_perf_arch_of(dev->arch);
    const double cycles_per_us = dev->clock_ghz * 1e3;
    *out = (struct xdna_perf_time){.timeline_us = s->cycles / cycles_per_us,
                                   .ddr_us = s->ddr_cycles / cycles_per_us,
                                   .fixed_us = a->run_us,
                                   .ddr_bytes = s->ddr_read_bytes + s->ddr_write_bytes};
    double compute = 0.0, stream = 0.0;
    for (uint32_t c = 0; c < XDNA_MAX_COLS; c++) {
        for (uint32_t r = 0; r < XDNA_ROWS; r++) {
            const struct xdna_tile_stats *t = &s->tiles[c][r];
            const struct xdna_tile tile = {(uint8_t) c, (uint8_t) r};
            out->macs += t->macs;
            if (t->kernel_cycles > compute) {
                compute = t->kernel_cycles;
                out->compute_tile = tile;
            }
            for (int dir = 0; dir < 2; dir++) {
                for (int ch = 0; ch < XDNA_MAX_CHANNELS; ch++) {
                    if (t->chan_cycles[dir][ch] > stream) {
                        stream = t->chan_cycles[dir][ch];
                        out->stream_tile = tile;
                    }
                }
            }
        }
    }
    out->compute_us = compute / cycles_per_us;
    out->stream_us = stream / cycles_per_us;
    double top = out->compute_us;
    out->bound = XDNA_PERF_BOUND_COMPUTE;
    if (out->ddr_us > top) {
        top = out->ddr_us;
        out->bound = XDNA_PERF_BOUND_DDR;
    }
    if (out->stream_us > top) {
        out->bound = XDNA_PERF_BOUND_STREAM;
    }
    if (out->fixed_us > out->timeline_us) {
        out->bound = XDNA_PERF_BOUND_FIXED;
    }
    out->us = out->timeline_us + out->fixed_us;
}

double xdna_perf_cpu_op(const struct xdna_device *dev, uint64_t bytes) {
    return (double) bytes / (xdna_perf_arch_of(dev->arch)->cpu_gbytes_per_s * 1e3);
}
