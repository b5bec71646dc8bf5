/*
 * The table of Hexagon targets. docs/targets.md gives each value's source, the arithmetic of what is derived
 * and the reasoning of what is assumed; the comments here only name them. Abbreviations: "anchors" is
 * ../shared/design/targets-and-anchors.md, "notes" ../shared/design/htp-reference-notes.md, "seed 002" the
 * V79 programming page. ASSUMPTION marks a value no public source gives.
 */
#include "perf-target.h"

#include <assert.h>

#define MIB ((size_t) 1 << 20)

/* What no source gives per arch, the same everywhere (docs/targets.md, "Costs"). */
#define REQUEST_US        35.0 /* ASSUMPTION: llama.cpp#18139's "call 34/35 us", the host's side of a request on v79 */
#define OP_US             2.0  /* derived from #18139: op total minus its timed parts, 1..4 us */
#define FENCE_US          1.0  /* ASSUMPTION: a few uncached 128-byte line round trips */
#define DMA_DESC_CYCLES   32   /* ASSUMPTION: ~8 descriptor words, dmlink, ring bookkeeping */
/* llama.cpp#18139's v79 op profile of a Q8_0 MUL_MAT on the HVX path: "cycles 10672609 pkts 5144869 (2.07)", four
 * runs 2.04..2.07 counter cycles per packet committed by the profiled thread while all six contexts compute: a thread
 * issues a packet every ~2 cycles (the V6x cores interleave their threads). ASSUMPTION on the other arches. */
#define CYCLES_PER_PACKET 2.05

/* The SoC CPU's rate on the graph's fallback ops (llama.cpp's CPU backend streaming a Q6_K output layer): derived from
 * llama.cpp#22334's Llama-3.1-8B Q4_0 tg on v81, 75.08 ms a token, less the model's NPU time for its 32 layers
 * (61.9 ms), for the 431.5 MB the CPU reads and writes a token (docs/targets.md, "CPU"; bench/perf-model-validate.sh
 * reruns it). ASSUMPTION on the other arches: v81's. */
#define CPU_GBYTES_PER_S 32.9

/* DDR bandwidth: tvm#13381 measured 40 GB/s DDR -> VTCM on a v68/v69-era part, whose LPDDR5-6400 peak is
 * 51.2 GB/s; newer parts are assumed to reach the same fraction of their own LPDDR peak. */
#define DMA_DDR_FRACTION (40.0 / 51.2)

const struct perf_target perf_targets[] = {
    {.name = "v68",
     .arch = 68,
     .soc = "Makena (SC8280XP family: Snapdragon 8cx Gen 3, SA8295P)",
     .clock_mhz = 1440, /* derived: cdsp_peak v68 HMX int8 11.5 TOPS / 8.0k ops/cycle (part not named) */
     .cycles_per_packet = CYCLES_PER_PACKET,
     .n_hw_threads = 6,              /* ASSUMPTION: v73's */
     .n_hvx_contexts = 4,            /* ASSUMPTION: v73's */
     .n_hmx = 0,                     /* HMX present, FP16 on it not established (#17394) */
     .hmx_fp16_macs_per_cycle = 0.0, /* no FP16 HMX */
     .vtcm_size = 8 * MIB,           /* executorch qc_schema: SA8295 8 MB (anchors 2.1) */
     .window_size = 3000 * MIB,      /* upstream's max_vmem below v75 */
     .max_mapping = 2048 * MIB,      /* HAP_mmap's 2 GiB limit (anchors 2.1) */
     .ddr_gbytes_per_s = 40.0,       /* tvm#13381, the part not named */
     .dma_desc_cycles = DMA_DESC_CYCLES,
     .request_us = REQUEST_US,
     .op_us = OP_US,
     .fence_us = FENCE_US,
     .cpu_gbytes_per_s = CPU_GBYTES_PER_S,
     .npu_library = false},
    {.name = "v69",
     .arch = 69,
     .soc = "Snapdragon 8 Gen 1 (SM8450)",
     .clock_mhz = 1440, /* ASSUMPTION: v68's */
     .cycles_per_packet = CYCLES_PER_PACKET,
     .n_hw_threads = 6,   /* ASSUMPTION: v73's */
     .n_hvx_contexts = 4, /* ASSUMPTION: v73's */
     .n_hmx = 0,          /* HMX present (int8 probes), FP16 on it not established */
     .hmx_fp16_macs_per_cycle = 0.0,
     .vtcm_size = 8 * MIB, /* qc_schema: SM8450 8 MB */
     .window_size = 3000 * MIB,
     .max_mapping = 2048 * MIB,
     .ddr_gbytes_per_s = 40.0, /* tvm#13381: a v68/v69-era part, against the 51.2 GB/s peak SM8450 has */
     .dma_desc_cycles = DMA_DESC_CYCLES,
     .request_us = REQUEST_US,
     .op_us = OP_US,
     .fence_us = FENCE_US,
     .cpu_gbytes_per_s = CPU_GBYTES_PER_S,
     .npu_library = false},
    {.name = "v73",
     .arch = 73,
     .soc = "Snapdragon 8 Gen 2 (SM8550)",
     .clock_mhz = 1400, /* derived: cdsp_peak v73 HMX FP16 9.9 TFLOPS / 7.1k ops per cycle */
     .cycles_per_packet = CYCLES_PER_PACKET,
     .n_hw_threads = 6,                 /* anchors 2.1: the 8 Gen 2 core is 6-way SMT */
     .n_hvx_contexts = 4,               /* ASSUMPTION, matching virtio-accel#128's "HTP V73, 4 HVX" on Snapdragon X */
     .n_hmx = 1,                        /* anchors 2.1 */
     .hmx_fp16_macs_per_cycle = 3550.0, /* cdsp_peak v73: 7.1k FP16 ops per cycle = 3550 MACs */
     .vtcm_size = 8 * MIB,              /* qc_schema */
     .window_size = 3000 * MIB,         /* upstream's max_vmem on v73 (notes 10) */
     .max_mapping = 2048 * MIB,         /* notes 10: HAP_mmap on v73 stops at 2 GiB */
     .ddr_gbytes_per_s = 67.2 * DMA_DDR_FRACTION, /* LPDDR5X 4200 MHz x 64 bit = 67.2 GB/s peak: 52.5 */
     .dma_desc_cycles = DMA_DESC_CYCLES,
     .request_us = REQUEST_US,
     .op_us = OP_US,
     .fence_us = FENCE_US,
     .cpu_gbytes_per_s = CPU_GBYTES_PER_S,
     .npu_library = true},
    {.name = "v75",
     .arch = 75,
     .soc = "Snapdragon 8 Gen 3 (SM8650)",
     .clock_mhz = 1400, /* ASSUMPTION: v73's */
     .cycles_per_packet = CYCLES_PER_PACKET,
     .n_hw_threads = 6,                 /* ASSUMPTION: v73's */
     .n_hvx_contexts = 4,               /* ASSUMPTION: v73's */
     .n_hmx = 1,                        /* upstream votes the HMX_v2 clock from v75 on */
     .hmx_fp16_macs_per_cycle = 3550.0, /* ASSUMPTION: v73's per cycle */
     .vtcm_size = 8 * MIB,
     .window_size = 3200 * MIB,                   /* upstream's max_vmem from v75 on */
     .max_mapping = 4096 * MIB,                   /* HAP_mmap2: any size the 32-bit space holds */
     .ddr_gbytes_per_s = 76.8 * DMA_DDR_FRACTION, /* LPDDR5X 4800 MHz: 76.8 GB/s peak: 60.0 */
     .dma_desc_cycles = DMA_DESC_CYCLES,
     .request_us = REQUEST_US,
     .op_us = OP_US,
     .fence_us = FENCE_US,
     .cpu_gbytes_per_s = CPU_GBYTES_PER_S,
     .npu_library = true},
    {.name = "v79",
     .arch = 79,
     .soc = "Snapdragon 8 Elite (SM8750)",
     .clock_mhz = 2112, /* #18139: 10,672,609 cycles in 5053 us (four runs 2111..2112) */
     .cycles_per_packet = CYCLES_PER_PACKET,
     .n_hw_threads = 8,                 /* seed 002: "Max HW Threads : 8" */
     .n_hvx_contexts = 6,               /* seed 002 and #26373: hvx_support_128b 6 */
     .n_hmx = 1,                        /* #26373: has_hmx=1 */
     .hmx_fp16_macs_per_cycle = 3550.0, /* ASSUMPTION: v73's per cycle */
     .vtcm_size = 8 * MIB,
     .window_size = 3200 * MIB,
     .max_mapping = 4096 * MIB,
     .ddr_gbytes_per_s = 84.8 * DMA_DDR_FRACTION, /* LPDDR5X 5300 MHz: 84.8 GB/s peak: 66.25 */
     .dma_desc_cycles = DMA_DESC_CYCLES,
     .request_us = REQUEST_US,
     .op_us = OP_US,
     .fence_us = FENCE_US,
     .cpu_gbytes_per_s = CPU_GBYTES_PER_S,
     .npu_library = true},
    {.name = "v81",
     .arch = 81,
     .soc = "Snapdragon 8 Elite Gen 5 (SM8850)",
     .clock_mhz = 2112, /* ASSUMPTION: v79's, the nearest arch with a figure */
     .cycles_per_packet = CYCLES_PER_PACKET,
     .n_hw_threads = 8,                 /* #25876 hwinfo: 8 threads, 8 HVX, 1 HMX, 8 MB VTCM */
     .n_hvx_contexts = 8,               /* #25876 */
     .n_hmx = 1,                        /* #25876 */
     .hmx_fp16_macs_per_cycle = 3550.0, /* ASSUMPTION: v73's per cycle */
     .vtcm_size = 8 * MIB,              /* #25876 */
     .window_size = 3200 * MIB,
     .max_mapping = 4096 * MIB,
     .ddr_gbytes_per_s = 84.8 * DMA_DDR_FRACTION, /* LPDDR5X 5300 MHz: 84.8 GB/s peak: 66.25 */
     .dma_desc_cycles = DMA_DESC_CYCLES,
     .request_us = REQUEST_US,
     .op_us = OP_US,
     .fence_us = FENCE_US,
     .cpu_gbytes_per_s = CPU_GBYTES_PER_S,
     .npu_library = true},
};
const size_t perf_n_targets = sizeof(perf_targets) / sizeof(perf_targets[0]);
static_assert(sizeof(perf_targets) / sizeof(perf_targets[0]) == 6,
              "new target: add its sources to docs/targets.md and, if vnpu builds its NPU library, its value to "
              "enum vdsp_arch");

const struct perf_target *perf_target_arch(uint32_t arch) {
    for (size_t i = 0; i < perf_n_targets; i++) {
        if (perf_targets[i].arch == arch) {
            return &perf_targets[i];
        }
    }
    return NULL;
}

const struct perf_target *perf_target_find(const char *name) {
    const char *s = name[0] == 'v' || name[0] == 'V' ? name + 1 : name;
    uint32_t arch = 0;
    size_t n = 0;
    for (; s[n] >= '0' && s[n] <= '9'; n++) {
        if (n == 4) {
            return NULL;
        }
        arch = arch * 10 + (uint32_t) (s[n] - '0');
    }
    return n > 0 && s[n] == '\0' ? perf_target_arch(arch) : NULL;
}
