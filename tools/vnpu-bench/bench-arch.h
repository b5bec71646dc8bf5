/*
 * vnpu-bench --arch: a model's pp and tg tests modelled on Hexagon targets (the cost model, src/perf/,
 * docs/targets.md) beside the host-measured ones.
 *
 * For each target, two child processes run the same tests: one with the target's NPU library as any run (its rows
 * give the host's t/s), one under VNPU_PERF=1 (the counting library, the target's HVX contexts as NPU threads; each
 * test run once, no warm-up: the counts do not change between runs), whose rows give the modelled t/s = tokens /
 * the modelled time of everything the test sent to the NPU (its ops and requests; the CPU's nodes cost nothing).
 * The environment (VNPU_ARCH) is read once per process, hence a process per target and kind.
 */
#ifndef VNPU_BENCH_ARCH_H
#define VNPU_BENCH_ARCH_H

#include "bench-model.h"
#include "htp-host.h"
#include "xdna-host.h"

#include <stdbool.h>
#include <stdio.h>

#define BENCH_MAX_ARCHS 8
#define BENCH_MAX_ROWS  64

/* One test on one device list, as a child measured it. */
struct bench_row {
    char desc[256];
    char devices[256];
    int threads;
    struct bench_model_test t;
    double ts[BENCH_MAX_REPS];    /* the host's, t.reps of them */
    double modelled_ts;           /* VNPU_PERF runs: t.n / perf.us; XDNA: t.n / (xdna.us / t.reps) */
    struct vnpu_htp_perf perf;    /* VNPU_PERF runs: the test's totals */
    char arch[16];                /* XDNA: the partition ("NPU2"), the arch column; "" without an XDNA device */
    struct vnpu_xdna_totals xdna; /* XDNA: the totals of the test's t.reps timed repetitions (the warm-up apart) */
};

/* Where a run sends its rows: printed (no --arch), or written to a parent's pipe. */
struct bench_sink {
    FILE *out;
    const char *fmt;
    int fd;        /* >= 0: a child's pipe to its parent */
    bool modelled; /* a VNPU_PERF child: rows carry perf */
    bool xdna;     /* printed as the --arch table (bench_arch_print_row, arch the XDNA partition), the rows kept: */
    struct bench_row *kept; /* NULL, or room for BENCH_MAX_ROWS rows printed, for the XDNA breakdown */
    int *n_kept;
};

/* Emit row r to sink s: print it or send it. Returns 0, or 1 when the pipe broke. */
int bench_sink_row(const struct bench_sink *s, const struct bench_row *r);

/* What the children run: the model tests of the arguments into sink (main.c's run_model_tests). */
typedef int (*bench_run_fn)(void *args, const struct bench_sink *sink);

/* Run run(args) for each of n targets archs[] ("v79") in children, the host kind then the modelled kind (reps 1, no
 * warm-up: the caller's args are re-read by run through *modelled), and print the merged table to out in fmt ("md" or
 * "csv"), then, when breakdown, each modelled test's time per op type, its share and the bound that set most of it.
 * Returns 0, 1 when a child failed (its messages are on stderr). */
/* The --arch table's header and one row (test h as the host measured it, m as modelled: the same row for an XDNA
 * device, whose modelled time comes with every run) in fmt ("md" or "csv"); arch is the column's text. */
void bench_arch_print_header(FILE *out, const char *fmt);
void bench_arch_print_row(FILE *out, const char *fmt, const char *arch, const struct bench_row *h,
                          const struct bench_row *m);

/* The XDNA rows[0..n) modelled (a row without an XDNA device is skipped): the header (csv), then per test its time per
 * op type (one repetition: the totals over r->t.reps), share and the bound that set most of it, in fmt. */
void bench_arch_print_xdna_breakdown(FILE *out, const char *fmt, const struct bench_row *rows, int n);

int bench_arch_run(const char *const *archs, int n, bench_run_fn run, void *args, bool *modelled, bool breakdown,
                   FILE *out, const char *fmt);

#endif /* VNPU_BENCH_ARCH_H */
