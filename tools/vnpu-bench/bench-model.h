/*
 * A whole model's speed, as llama-bench (and the oracle's llama_bench, ../shared/oracle/README.md) measures it:
 *
 *   pp N  prompt processing: N tokens drawn pseudo-random in [0, n_vocab), the first then replaced by BOS when
 *         the vocabulary adds one (llama_bench's order, so the stream stays in step with it), decoded as one call
 *         into an empty KV cache, only the last token's logits kept;
 *         t/s = N / the call's wall time.
 *   tg N  text generation: N single-token decodes from an empty KV cache (positions 0..N-1), the first token BOS
 *         (drawn when the vocabulary adds none), each next one drawn after a decode (N draws, the last unused); t/s = N
 * / their wall time.
 *
 * One untimed warm-up per test (pp: the whole test; tg: min(N, 4) tokens), then reps timed repetitions,
 * reported as mean and sample standard deviation of the per-repetition t/s. Times are the host's monotonic
 * clock around vnpu_decode, which returns once the step's logits are read back: on HTP devices they measure
 * the emulation on this host.
 */
#ifndef VNPU_BENCH_MODEL_H
#define VNPU_BENCH_MODEL_H

#include "vnpu.h"

#include <stdbool.h>
#include <stdio.h>

#define BENCH_MAX_REPS 1000 /* -r's limit */

enum bench_model_test_kind {
    BENCH_MODEL_PP = 0,
    BENCH_MODEL_TG = 1,
};

struct bench_model_test {
    enum bench_model_test_kind kind;
    int n;    /* tokens, >= 1 */
    int reps; /* timed repetitions, >= 1 */
    bool warmup;
};

/* Run test t on ctx (a context of model with n_ctx >= t->n and n_batch >= t->n for pp); ts gets t->reps
 * tokens/s values. The token stream continues across calls, from a fixed seed. Errors: vnpu_decode's (logged by
 * it). */
enum vnpu_status bench_model_run(const struct vnpu_model *model, struct vnpu_context *ctx,
                                 const struct bench_model_test *t, double *ts);

/* The table's header and one row, as llama-bench prints them: fmt "md" or "csv". desc is vnpu_model_desc's
 * line, devices the device list, ts the test's reps values. */
void bench_model_print_header(FILE *out, const char *fmt);
void bench_model_print_row(FILE *out, const char *fmt, const char *desc, const char *devices, int threads,
                           const struct bench_model_test *t, const double *ts);

#endif /* VNPU_BENCH_MODEL_H */
