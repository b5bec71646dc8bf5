/*
 * The XDNA cost model: what one run of a design (xdna-array.h) would take on the partition it ran for, from what the
 * run counted and its timeline (struct xdna_run_stats), and one row of parameters per arch (AIE2, AIE2P).
 * docs/xdna-cost-model.md has the parameters, their sources and the validation against published figures
 * (bench/xdna-perf-validate.sh).
 *
 * A run takes its timeline's length (xdna-array.h, "Time": the DMA channels' streams, the kernels' cycles as they
 * report them, every wait between them, each column's DDR bytes at its share of the bandwidth) at the partition's
 * clock, plus run_us, the host's dispatch of one runtime sequence and its wait. The bound it reports is what kept the
 * array busiest: the busiest compute tile's kernel cycles (compute), the busiest DMA channel (stream), the busiest
 * column's DDR bytes at its share (ddr), or "fixed" when run_us is longer than the timeline. An op the CPU runs
 * instead (the graph's fallback) = the bytes it reads and writes (perf_cpu_op_bytes, src/perf/perf-model.h) over the
 * arch row's cpu_gbytes_per_s: the laptop's CPU running llama.cpp's CPU backend, streaming; its arithmetic is not
 * priced. Nothing in the model depends on the host that runs the emulation.
 */
#ifndef VNPU_XDNA_PERF_H
#define VNPU_XDNA_PERF_H

#include "xdna-arch.h"
#include "xdna-array.h"

#include <stdbool.h>
#include <stdint.h>

/* Which bound set a run's (or an op's) time. */
enum xdna_perf_bound {
    XDNA_PERF_BOUND_COMPUTE = 0, /* the busiest compute tile's kernels */
    XDNA_PERF_BOUND_DDR,         /* the busiest column's share of the DDR bandwidth */
    XDNA_PERF_BOUND_STREAM,      /* the busiest DMA channel */
    XDNA_PERF_BOUND_FIXED,       /* the per-run dispatch (run_us is longer than the timeline) */
    XDNA_PERF_BOUND_CPU,         /* an op the laptop's CPU ran (the fallback): its bytes at cpu_gbytes_per_s */
    XDNA_PERF_BOUND_COUNT,
};

/* "compute", "ddr", "stream", "fixed", "cpu". */
const char *xdna_perf_bound_name(enum xdna_perf_bound b);

/* The cost model's parameters of one arch beyond the partition table (xdna-arch.h) and the kernels' cycles
 * (xdna-mmul.c); xdna-perf.c has the source of each, or the assumption it is. */
struct xdna_perf_arch {
    enum xdna_arch arch;
    const char *name;        /* "AIE2", "AIE2P": as xdna_device.arch_name */
    double run_us;           /* fixed cost of one design run, microseconds */
    double cpu_gbytes_per_s; /* the laptop CPU on fallback ops, GB/s (1e9 B/s) */
};

/* The row of arch (every enum xdna_arch has one). */
const struct xdna_perf_arch *xdna_perf_arch_of(enum xdna_arch arch);

/* One run, modelled. Times in microseconds on the partition. */
struct xdna_perf_time {
    double us;                                      /* timeline_us + fixed_us */
    double timeline_us;                             /* the run's timeline */
    double compute_us, ddr_us, stream_us, fixed_us; /* the busiest tile's kernels, column's DDR, channel; run_us */
    enum xdna_perf_bound bound;
    struct xdna_tile compute_tile; /* the busiest compute tile */
    struct xdna_tile stream_tile;  /* the tile of the busiest DMA channel */
    uint64_t macs;                 /* all compute tiles' */
    uint64_t ddr_bytes;            /* read and written */
};

/* Model one run on partition dev from its statistics s (xdna_design_run's) into *out. */
void xdna_perf_run(const struct xdna_device *dev, const struct xdna_run_stats *s, struct xdna_perf_time *out);

/* Microseconds the laptop CPU beside partition dev's NPU takes for an op that reads and writes bytes (all its
 * sources' bytes it touches and its result's): bytes / the arch row's cpu_gbytes_per_s. */
double xdna_perf_cpu_op(const struct xdna_device *dev, uint64_t bytes);

#endif /* VNPU_XDNA_PERF_H */
