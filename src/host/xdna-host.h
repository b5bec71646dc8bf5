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
#include "xdna-perf.h"

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

/* One row of the cost model's totals (src/xdna/xdna-perf.h): the nodes of one kind, modelled on the partition. */
struct vnpu_xdna_perf_row {
    char op[32];    /* "MUL_MAT", "MUL_MAT output" (node result_output): on the array; an op the CPU ran (the graph's
                     * fallback) is "CPU <op>" ("CPU RMS_NORM"), priced at the arch's cpu_gbytes_per_s (bound cpu) */
    uint64_t count; /* nodes */
    uint64_t runs;  /* design runs (a MUL_MAT node runs once per 2-D matrix of its result; 0 on a CPU row) */
    double us;      /* modelled microseconds */
    double bound_us[XDNA_PERF_BOUND_COUNT]; /* of us, the runs (CPU ops) each bound set */
    uint64_t macs;                          /* the runs' MACs (padding included, as the array computes it) */
    uint64_t ddr_bytes;                     /* the runs' DDR bytes, both ways; a CPU row: the bytes it streams */
};
#define VNPU_XDNA_PERF_ROWS 48

/* What dev's designs did since it opened or its last reset (summed over runs; the array's tile statistics), for the
 * cost model and reports: the number of MUL_MAT nodes and design runs, and the modelled time of each run
 * (xdna_perf_run) and of each op the CPU ran meanwhile in a graph whose device list holds this device (the device
 * observes the scheduler while it is open), per row. */
struct vnpu_xdna_totals {
    struct xdna_run_stats stats;
    uint64_t nodes, runs;
    double us; /* modelled microseconds: every row's */
    uint32_t n_rows;
    struct vnpu_xdna_perf_row rows[VNPU_XDNA_PERF_ROWS]; /* in the order first seen; a kind beyond the last row
                                                          * counts in us only */
};
/* dev's totals into *out, and (reset) zeroed after; read them between graph computes. */
void vnpu_xdna_device_totals(struct vnpu_device *dev, struct vnpu_xdna_totals *out, bool reset);

/* The modelled rows of every open XDNA device summed into *out (rows merged by name; nodes, runs and us summed; stats
 * zero), each device's totals zeroed after when reset: what a model's run costs on its context's device. Returns the
 * partition of the first device with a row, NULL when none has one. */
const struct xdna_device *vnpu_xdna_totals_read(struct vnpu_xdna_totals *out, bool reset);

/* Trace XDNA device dev into the process's trace file at path (src/host/xdna-trace-export.h: its runs and the CPU's
 * ops on the modelled timeline, the array's tiles and DMA channels inside each run); again: nothing. The errors of
 * trace_file_open, VNPU_STATUS_NO_MEMORY. */
enum vnpu_status vnpu_xdna_device_trace(struct vnpu_device *dev, const char *path);

/* The partition XDNA device dev runs on (xdna-arch.h's row). */
const struct xdna_device *vnpu_xdna_device_partition(struct vnpu_device *dev);

#endif /* VNPU_XDNA_HOST_H */
