/*
 * The XDNA cost model: what one run of a design (xdna-array.h) would take on the partition it ran for, from what the
 * run counted (struct xdna_run_stats) and one row of parameters per arch (AIE2, AIE2P). docs/xdna-cost-model.md has
 * the parameters, their sources and the validation against published figures (bench/xdna-perf-validate.sh).
 *
 * Per run of an mmul kernel k on partition dev (clock f = dev->clock_ghz):
 *   compute bound = the busiest compute tile's MACs / (MACs per cycle x kernel efficiency x f); MACs per cycle:
 *                   dev's int8 or bf16 rate, or the arch row's BFP16 rate for the BFP16-emulation kernel (each the
 *                   product r s t of the kernel's mmul: one mmul a cycle at peak); efficiency: the arch row's
 *                   kernel_eff (bfp16_kernel_eff for the BFP16 build);
 *   DDR bound     = the run's DDR bytes, read and written, / dev->ddr_gbytes_per_s;
 *   stream bound  = over every tile of the run, the larger of its DMA's bytes in (S2MM) over its S2MM channels and its
 *                   bytes out (MM2S) over its MM2S channels, each channel stream_bytes_per_cycle x f: the busiest;
 *   time          = the largest of the three (the DMAs double-buffer: transfers overlap the kernels) + run_us, the
 * host's dispatch of one runtime sequence and its wait. The bound is the largest one's, or "fixed" when run_us exceeds
 * it. An op the CPU runs instead (the graph's fallback) = the bytes it reads and writes (perf_cpu_op_bytes,
 * src/perf/perf-model.h) over the arch row's cpu_gbytes_per_s: the laptop's CPU running llama.cpp's CPU backend,
 * streaming; its arithmetic is not priced. Nothing in the model depends on the host that runs the emulation.
 */
#ifndef VNPU_XDNA_PERF_H
#define VNPU_XDNA_PERF_H

#include "xdna-arch.h"
#include "xdna-array.h"
#include "xdna-mmul.h"

#include <stdbool.h>
#include <stdint.h>

/* Which bound set a run's (or an op's) time. */
enum xdna_perf_bound {
    XDNA_PERF_BOUND_COMPUTE = 0, /* the busiest compute tile's MACs */
    XDNA_PERF_BOUND_DDR,         /* the partition's DDR bandwidth */
    XDNA_PERF_BOUND_STREAM,      /* the busiest tile's DMA channels */
    XDNA_PERF_BOUND_FIXED,       /* the per-run dispatch (run_us exceeds every bound) */
    XDNA_PERF_BOUND_CPU,         /* an op the laptop's CPU ran (the fallback): its bytes at cpu_gbytes_per_s */
    XDNA_PERF_BOUND_COUNT,
};

/* "compute", "ddr", "stream", "fixed", "cpu". */
const char *xdna_perf_bound_name(enum xdna_perf_bound b);

/* The cost model's parameters of one arch (xdna-perf.c has the source of each, or the assumption it is). */
struct xdna_perf_arch {
    enum xdna_arch arch;
    const char *name;                             /* "AIE2", "AIE2P": as xdna_device.arch_name */
    double stream_bytes_per_cycle;                /* one DMA channel's stream, bytes per array cycle */
    uint32_t s2mm_channels[XDNA_TILE_TYPE_COUNT]; /* DMA channels into a tile's memory (shim: into DDR) */
    uint32_t mm2s_channels[XDNA_TILE_TYPE_COUNT]; /* out of it (shim: out of DDR) */
    double kernel_eff;                            /* MAC occupancy of the bf16 and integer mmul kernels */
    double bfp16_kernel_eff;                      /* of the BFP16-emulation kernel; 0: the arch has none */
    uint32_t bfp16_macs_per_cycle;                /* per compute tile, peak; 0: the arch has none */
    double run_us;                                /* fixed cost of one design run, microseconds */
    double cpu_gbytes_per_s;                      /* the laptop CPU on fallback ops, GB/s (1e9 B/s) */
};

/* The row of arch (every enum xdna_arch has one). */
const struct xdna_perf_arch *xdna_perf_arch_of(enum xdna_arch arch);

/* One run, modelled. Times in microseconds on the partition. */
struct xdna_perf_time {
    double us; /* max(compute_us, ddr_us, stream_us) + fixed_us */
    double compute_us, ddr_us, stream_us, fixed_us;
    enum xdna_perf_bound bound;
    struct xdna_tile compute_tile; /* the busiest compute tile (compute bound) */
    struct xdna_tile stream_tile;  /* the tile whose DMA set the stream bound */
    uint64_t macs;                 /* all compute tiles' */
    uint64_t ddr_bytes;            /* read and written */
};

/* Model one run of a design whose compute tiles ran kernel k (its dtype and build choose the MAC rate) on partition
 * dev, from the run's statistics s, into *out. k's arch is dev's (asserted); a kernel of a dtype without a MAC rate
 * (int16) is priced at its mmul's r s t a cycle. */
void xdna_perf_run(const struct xdna_device *dev, const struct xdna_mm_kernel *k, const struct xdna_run_stats *s,
                   struct xdna_perf_time *out);

/* Microseconds the laptop CPU beside partition dev's NPU takes for an op that reads and writes bytes (all its
 * sources' bytes it touches and its result's): bytes / the arch row's cpu_gbytes_per_s. */
double xdna_perf_cpu_op(const struct xdna_device *dev, uint64_t bytes);

#endif /* VNPU_XDNA_PERF_H */
