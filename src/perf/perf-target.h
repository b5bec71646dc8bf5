/*
 * The Hexagon targets vnpu knows: one table, one row per arch (v68 v69 v73 v75 v79 v81), read by the virtual
 * device (src/vdsp/vdsp-target.c copies its part) and by the cost model. Every value's source, or the
 * assumption it is and why, is in docs/targets.md; the table's comments name the source in short.
 */
#ifndef VNPU_PERF_TARGET_H
#define VNPU_PERF_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One Hexagon target as the cost model and the virtual device see it. Sources: docs/targets.md. */
struct perf_target {
    const char *name;               /* "v79" */
    uint32_t arch;                  /* 79 */
    const char *soc;                /* "Snapdragon 8 Elite (SM8750)": the part the figures are for */
    uint32_t clock_mhz;             /* NPU core/HVX clock at the corner llama.cpp votes for (max): the rate of
                                     * the DSP cycle counter, cycles per microsecond */
    double cycles_per_packet;       /* cycles a hardware thread takes per packet it issues with HVX work on every
                                     * context: the cost model's issue rate */
    uint32_t n_hw_threads;          /* scalar hardware threads */
    uint32_t n_hvx_contexts;        /* 128-byte HVX contexts, 1..n_hw_threads */
    uint32_t n_hmx;                 /* HMX units (0: none usable for FP16) */
    double hmx_fp16_macs_per_cycle; /* one HMX, FP16 x FP16 -> FP32 accumulate, per clock_mhz cycle; 0 without HMX */
    size_t vtcm_size;               /* bytes */
    size_t window_size;             /* default session window, bytes */
    size_t max_mapping;             /* largest single mapping, bytes */
    double ddr_gbytes_per_s;        /* DDR <-> VTCM bandwidth the NPU's DMA reaches, GB/s (1e9 B/s), all queues */
    uint32_t dma_desc_cycles;       /* NPU cycles to set up and issue one DMA descriptor */
    double request_us;              /* host -> NPU -> host round trip of one request (dspqueue), microseconds */
    double op_us;                   /* NPU-side fixed cost per op (decode, dispatch to workers, return) */
    double fence_us;                /* one barrier between the sessions of a group */
    double cpu_gbytes_per_s;        /* the SoC's CPU running llama.cpp's CPU backend (4 threads) on an op the NPU
                                     * does not take: bytes it streams per second, GB/s (1e9 B/s) */
    bool npu_library;               /* vnpu builds libvnpu-htp-vNN for it (v73..v81 today) */
};

/* The table, in arch order, and its length. */
extern const struct perf_target perf_targets[];
extern const size_t perf_n_targets;

/* The target named "v79" or "79" (case-insensitive 'v'); NULL if the table has none, or name is not one
 * optional 'v'/'V' followed by 1..4 decimal digits and nothing else. */
const struct perf_target *perf_target_find(const char *name);
/* The target of arch (79); NULL if none. */
const struct perf_target *perf_target_arch(uint32_t arch);

#endif
