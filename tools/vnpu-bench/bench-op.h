/*
 * Single ops timed on one device, the way the oracle's ggml_op_bench times them on llama.cpp's CPU backend
 * (../shared/oracle/README.md, "ggml_op_bench"), so the two tables read side by side.
 *
 * A MUL_MAT case: weights W of a type, K x M (ne0 = K), in GGML's layout, placed in the device's weight buffer
 * type (HTP<n>-REPACK repacks them into the tiles of the seed, as a model's weights are placed at load); F32
 * activations X [K, N] and the F32 result [M, N] in the device's buffer type. One repetition is one graph that
 * holds the same MUL_MAT node per_rep times (an HTP device sends such a run as requests of up to 1024 ops,
 * a model's consecutive NPU ops travel the same way); per_rep is calibrated until a repetition lasts at least
 * min_time, then warmup untimed repetitions run and reps timed ones. Time per op = repetition wall time /
 * per_rep, on the host's monotonic clock: for an HTP device that is the emulation's time on this host, not a
 * phone's. GFLOP/s = 2 K M N / median time, GB/s = weight bytes (GGML's layout) / median time.
 *
 * Checks on every case: a sample of the outputs (up to 96 rows x 6 columns, ggml_op_bench's: row a of 96 is
 * a (M - 1) / 95, column b of 6 is b (N - 1) / 5, the first and the last included, so both tools compare the same
 * elements) against a double-precision product of the dequantized weights (the type's to_f32) and X, as a relative
 * RMS error with ggml_op_bench's limits (3e-2 for block types, whose activations are quantized to Q8 on the way;
 * 2e-3 F16; 1e-2 BF16; 1e-5 F32; a NaN output fails); and determinism: the output bytes after the first and the last
 * run are identical.
 *
 * The tables are ggml_op_bench's (../shared/oracle/ggml_op_bench.c, print_header/print_row) with a device column in
 * front. Markdown: its columns in its order, shape "k=K m=M n=N", times, GFLOP/s and GB/s with 2 decimals, the check
 * "ok 1.2e-03" (or FAIL; "-" unchecked), det yes / NO / n/a, the output's FNV-1a 64 in 16 hex digits. CSV: its
 * column names in its order after device, except cpu_lib (the device column says what ran); copies is always 1
 * (vnpu-bench has no --cold), d3 and d4 are 0 (a matmul has three dims). Differences: the threads column of an HTP
 * device is its worker count as text ("nhvx 2"); a node the device refuses gets a row ("not supported" /
 * "unsupported") where ggml_op_bench stops; no json output.
 */
#ifndef VNPU_BENCH_OP_H
#define VNPU_BENCH_OP_H

#include "backend.h"
#include "vnpu.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define BENCH_MAX_PER_REP 20000 /* op executions per repetition at most (ggml_op_bench's MAX_NODES) */

struct bench_op_opts {
    int reps;         /* timed repetitions (>= 1); the median is reported */
    int warmup;       /* untimed repetitions before them (>= 0) */
    int per_rep;      /* op executions per repetition, 1..BENCH_MAX_PER_REP; 0 = calibrated to min_time */
    double min_time;  /* seconds a calibrated repetition lasts at least */
    bool check;       /* compare a sample of the outputs with the double-precision reference */
    const char *dump; /* write W, X and the output as raw files PREFIX.A.<type>, PREFIX.B.f32, PREFIX.out.f32 */
};

/* A MUL_MAT case. */
struct bench_mm_case {
    const char *label; /* the test column: "mul_mat", or the model matrix ("attn_q/o") */
    enum vnpu_type type;
    int64_t k, m, n;
    const void *weights; /* W: m rows of vnpu_row_size(type, k) bytes, GGML's layout */
    const float *x;      /* X: n columns of k floats */
};

struct bench_op_result {
    bool supported;     /* false: the device's supports_op refused the node; nothing below is set */
    const char *buft;   /* the buffer type the weights went to */
    int per_rep;        /* op executions per repetition */
    int reps;           /* timed repetitions */
    double us_med;      /* microseconds per op: median over the repetitions */
    double us_min;      /* fastest repetition */
    double us_mean;     /* mean over the repetitions */
    double us_sd;       /* their sample standard deviation (0 for one repetition) */
    double gflops, gbs; /* from us_med */
    double check_rel;   /* relative RMS error of the sample (infinite when an output is NaN); NaN when not checked */
    double check_max;   /* largest absolute difference in the sample; NaN when not checked */
    double check_tol;   /* the limit on check_rel */
    int det;            /* 1: output bytes identical after the first and the last run, 0: not, -1: one run only */
    uint64_t hash;      /* FNV-1a 64 of the output bytes */
    double modelled_us; /* the cost model's time per op on the device's target (VNPU_PERF=1), else NaN */
};

/* Time case c on dev with options o into *r. Errors (logged): VNPU_STATUS_NO_MEMORY, the device's errors from
 * placing the weights or computing (VNPU_STATUS_DEVICE, ...), VNPU_STATUS_IO when the dump cannot be written. An
 * unsupported node is not an error: r->supported is false. A failed check is not an error either: the caller reads
 * check_rel against check_tol and det. */
enum vnpu_status bench_mul_mat(struct vnpu_device *dev, const struct bench_mm_case *c, const struct bench_op_opts *o,
                               struct bench_op_result *r);

/* Whether r passed its checks: the sample within its limit (or unchecked) and the output deterministic. */
bool bench_op_result_ok(const struct bench_op_result *r);

/* The table's header and one row in ggml_op_bench's format with a device column first (what matches and what
 * differs: the comment at the top): fmt "md" (a Markdown table) or "csv". dev names the device, threads its worker
 * count as text ("2", "nhvx 2"); modelled: the modelled columns the table has (empty in a row the model did not price:
 * a CPU device's): 0 none, 1 modelled us/op (the HTP cost model), 2 also modelled GFLOP/s (2 K M N / modelled time: an
 * XDNA device's table). */
void bench_op_print_header(FILE *out, const char *fmt, int modelled);
void bench_op_print_row(FILE *out, const char *fmt, const char *dev, const char *threads, const struct bench_mm_case *c,
                        const struct bench_op_result *r, int modelled);

#endif /* VNPU_BENCH_OP_H */
