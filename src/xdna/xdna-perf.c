/*
 * The XDNA cost model (xdna-perf.h). Sources in short: "anchors 3.x" is ../shared/design/targets-and-anchors.md
 * section 3.x, "seed 003" ../shared/seeds/003_*.txt; an assumption is marked ASSUMPTION with its reasoning.
 * docs/xdna-cost-model.md has the long form.
 */
#include "xdna-perf.h"

#include "log.h"

#include <assert.h>

/* The DMA channels of each tile type (the same on AIE2 and AIE2P): the mem tile's 6 MM2S + 6 S2MM are anchors 3.1
 * (UG1603's memory-tile table); the shim's and the compute tile's 2 + 2 are AM020's tile DMA and interface-tile DMA
 * (ASSUMPTION: not in the anchors; AM020 gives 2 S2MM + 2 MM2S for both). */
#define S2MM_CHANNELS \
    { [XDNA_TILE_SHIM] = 2, [XDNA_TILE_MEM] = 6, [XDNA_TILE_COMPUTE] = 2 }
#define MM2S_CHANNELS \
    { [XDNA_TILE_SHIM] = 2, [XDNA_TILE_MEM] = 6, [XDNA_TILE_COMPUTE] = 2 }

/* Kernel MAC occupancy, bf16 (and integer) mmul kernels: ASSUMPTION 0.8, mlir-aie#2735's measurement on XDNA1 (anchors
 * 3.2): the whole_array example's external kernels (m = n = k = 64) reach at most ~80% of r s t a cycle between their
 * trace events, i16 and bf16 alike; our kernel's tiles (32 x 64 x 64, the same 2 x 2 mmul expansion) are taken to do
 * as well, and AIE2P's kernel as AIE2's (no AIE2P kernel-only figure is published). */
#define KERNEL_EFF       0.8
/* The BFP16-emulation kernel (AIE2P): ASSUMPTION 0.5. Lower bound: arXiv 2511.16041's BFP16 x BF16 GEMM, 24.6 TFLOPS
 * whole-array (anchors 3.2) = 43% of 32 tiles x 512 MACs x 2 x 1.76 GHz, transfers included; the build converts both
 * bf16 operands to BFP16 blocks on the vector unit before each mmul, which the bf16 kernel does not: below its 0.8. */
#define BFP16_KERNEL_EFF 0.5
/* One design run's fixed cost: ASSUMPTION 52 us, `xrt-smi validate`'s latency test on Strix Halo (anchors 3.1,
 * amd/IRON#55: "Average latency: 52.0 us"), a run that does nothing, submitted by the host and waited for. The device
 * waits for every run (its result feeds the graph's next node), so the latency, not the pipelined throughput test's
 * 12.7 us a run (78,771 op/s), is the cost. AIE2: the same (no Phoenix figure). */
#define RUN_US           52.0
/* The laptop CPU on the graph's fallback ops: ASSUMPTION 44 GB/s, derived from anchors 3.3's earlier FastFlowLM page,
 * Llama-3.2-1B decode on the CPU at 54.6 t/s (Krackan): taken as llama.cpp streaming a Q4_K_M file of 0.807 GB
 * (LM Studio's default quantisation, ASSUMPTION) a token: 54.6 x 0.807 = 44 GB/s. AIE2 (Phoenix): the same. */
#define CPU_GBYTES_PER_S 44.0

/* clang-format off */
static const struct xdna_perf_arch perf_archs[] = {
    [XDNA_ARCH_AIE2] = {.arch = XDNA_ARCH_AIE2, .name = "AIE2",
                        .stream_bytes_per_cycle = 4.0, /* anchors 3.1: 32-bit stream switch (UG1603) */
                        .s2mm_channels = S2MM_CHANNELS, .mm2s_channels = MM2S_CHANNELS,
                        .kernel_eff = KERNEL_EFF,
                        .bfp16_kernel_eff = 0.0, .bfp16_macs_per_cycle = 0, /* seed 003: BFP16 is AIE2P's */
                        .run_us = RUN_US, .cpu_gbytes_per_s = CPU_GBYTES_PER_S},
    [XDNA_ARCH_AIE2P] = {.arch = XDNA_ARCH_AIE2P, .name = "AIE2P",
                         .stream_bytes_per_cycle = 8.0, /* anchors 3.1: 64-bit stream switch (the AIE-ML v2 figure) */
                         .s2mm_channels = S2MM_CHANNELS, .mm2s_channels = MM2S_CHANNELS,
                         .kernel_eff = KERNEL_EFF,
                         .bfp16_kernel_eff = BFP16_KERNEL_EFF,
                         .bfp16_macs_per_cycle = 512, /* anchors 3.1: bfp16 8x8x8, 512 MAC/cycle (llvm-aie#710) */
                         .run_us = RUN_US, .cpu_gbytes_per_s = CPU_GBYTES_PER_S},
};
/* clang-format on */
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

/* Peak MACs a cycle of one compute tile running k: the partition's rate for its dtype, the arch's for BFP16. */
static double kernel_macs_per_cycle(const struct xdna_device *dev, const struct xdna_perf_arch *a,
                                    const struct xdna_mm_kernel *k) {
    switch (k->in) {
        case XDNA_DTYPE_BF16: return k->bfp16 ? a->bfp16_macs_per_cycle : dev->bf16_macs_per_cycle;
        case XDNA_DTYPE_I8: return dev->int8_macs_per_cycle;
        case XDNA_DTYPE_I16: /* no table rate: one mmul a cycle */
        case XDNA_DTYPE_F32:
        case XDNA_DTYPE_I32:
        case XDNA_DTYPE_I64: break;
    }
    return (double) k->base.mac_dims[0] * k->base.mac_dims[1] * k->base.mac_dims[2];
}

void xdna_perf_run(const struct xdna_device *dev, const struct xdna_mm_kernel *k, const struct xdna_run_stats *s,
                   struct xdna_perf_time *out) {
    VNPU_ASSERT(k->arch == dev->arch);
    const struct xdna_perf_arch *a = xdna_perf_arch_of(dev->arch);
    const double cycles_per_us = dev->clock_ghz * 1e3;
    const double eff = k->bfp16 ? a->bfp16_kernel_eff : a->kernel_eff;
    const double macs_per_us = kernel_macs_per_cycle(dev, a, k) * eff * cycles_per_us;
    *out = (struct xdna_perf_time){.fixed_us = a->run_us, .ddr_bytes = s->ddr_read_bytes + s->ddr_write_bytes};
    for (uint32_t c = 0; c < XDNA_MAX_COLS; c++) {
        for (uint32_t r = 0; r < XDNA_ROWS; r++) {
            const struct xdna_tile_stats *t = &s->tiles[c][r];
            const enum xdna_tile_type type = xdna_tile_type_of_row(r);
            const double in_us = (double) t->dma_in_bytes / (a->s2mm_channels[type] * a->stream_bytes_per_cycle);
            const double out_us = (double) t->dma_out_bytes / (a->mm2s_channels[type] * a->stream_bytes_per_cycle);
            const double stream_us = (in_us > out_us ? in_us : out_us) / cycles_per_us;
            if (stream_us > out->stream_us) {
                out->stream_us = stream_us;
                out->stream_tile = (struct xdna_tile){(uint8_t) c, (uint8_t) r};
            }
            out->macs += t->macs;
            const double compute_us = macs_per_us > 0.0 ? (double) t->macs / macs_per_us : 0.0;
            if (compute_us > out->compute_us) {
                out->compute_us = compute_us;
                out->compute_tile = (struct xdna_tile){(uint8_t) c, (uint8_t) r};
            }
        }
    }
    out->ddr_us = (double) out->ddr_bytes / (dev->ddr_gbytes_per_s * 1e3);
    double top = out->compute_us;
    out->bound = XDNA_PERF_BOUND_COMPUTE;
    if (out->ddr_us > top) {
        top = out->ddr_us;
        out->bound = XDNA_PERF_BOUND_DDR;
    }
    if (out->stream_us > top) {
        top = out->stream_us;
        out->bound = XDNA_PERF_BOUND_STREAM;
    }
    if (out->fixed_us > top) {
        out->bound = XDNA_PERF_BOUND_FIXED;
    }
    out->us = top + out->fixed_us;
}

double xdna_perf_cpu_op(const struct xdna_device *dev, uint64_t bytes) {
    return (double) bytes / (xdna_perf_arch_of(dev->arch)->cpu_gbytes_per_s * 1e3);
}
