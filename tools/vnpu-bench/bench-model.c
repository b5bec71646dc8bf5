/* A model's pp / tg speed for vnpu-bench: see bench-model.h. */
#include "bench-model.h"

#include "tool-common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The token stream: the 64-bit LCG of Knuth's MMIX (the oracle's llama_bench draws its tokens the same way),
 * the top 31 bits modulo n_vocab. */
static uint64_t bench_token_state = 0x853c49e6748fea9bull;

static vnpu_token bench_token_next(int32_t n_vocab) {
    bench_token_state = bench_token_state * 6364136223846793005ull + 1442695040888963407ull;
    return (vnpu_token) ((bench_token_state >> 33) % (uint64_t) n_vocab);
}

/* Whether a sequence starts with BOS: the vocabulary adds one and has one. */
static bool bench_token_bos(const struct vnpu_model *model) {
    return vnpu_model_add_bos(model) && vnpu_model_bos(model) >= 0;
}

/* n prompt tokens as one decode into an empty cache; *secs its wall time. All n are drawn and BOS then replaces
 * the first, as llama_bench does, so both programs decode the same prompts. */
static enum vnpu_status bench_pp(const struct vnpu_model *model, struct vnpu_context *ctx, vnpu_token *tokens, int n,
                                 double *secs) {
    for (int i = 0; i < n; i++) {
        tokens[i] = bench_token_next(vnpu_model_n_vocab(model));
    }
    if (bench_token_bos(model)) {
        tokens[0] = vnpu_model_bos(model);
    }
    vnpu_kv_cache_truncate(ctx, 0);
    const double t0 = tool_now_s();
    const enum vnpu_status st = vnpu_decode(ctx, tokens, NULL, n, false);
    *secs = tool_now_s() - t0;
    return st;
}

/* n single-token decodes from an empty cache; *secs their wall time. */
static enum vnpu_status bench_tg(const struct vnpu_model *model, struct vnpu_context *ctx, int n, double *secs) {
    vnpu_token token = bench_token_bos(model) ? vnpu_model_bos(model) : bench_token_next(vnpu_model_n_vocab(model));
    vnpu_kv_cache_truncate(ctx, 0);
    enum vnpu_status st = VNPU_STATUS_OK;
    const double t0 = tool_now_s();
    for (int i = 0; i < n && st == VNPU_STATUS_OK; i++) {
        st = vnpu_decode(ctx, &token, NULL, 1, false);
        token = bench_token_next(vnpu_model_n_vocab(model));
    }
    *secs = tool_now_s() - t0;
    return st;
}

enum vnpu_status bench_model_run(const struct vnpu_model *model, struct vnpu_context *ctx,
                                 const struct bench_model_test *t, double *ts) {
    vnpu_token *tokens = t->kind == BENCH_MODEL_PP ? malloc((size_t) t->n * sizeof(vnpu_token)) : NULL;
    if (t->kind == BENCH_MODEL_PP && !tokens) {
        return VNPU_STATUS_NO_MEMORY;
    }
    double secs;
    enum vnpu_status st = VNPU_STATUS_OK;
    if (t->warmup) {
        st = t->kind == BENCH_MODEL_PP ? bench_pp(model, ctx, tokens, t->n, &secs)
                                       : bench_tg(model, ctx, t->n < 4 ? t->n : 4, &secs);
    }
    for (int r = 0; r < t->reps && st == VNPU_STATUS_OK; r++) {
        st = t->kind == BENCH_MODEL_PP ? bench_pp(model, ctx, tokens, t->n, &secs) : bench_tg(model, ctx, t->n, &secs);
        ts[r] = t->n / secs;
    }
    free(tokens);
    return st;
}

void bench_model_print_header(FILE *out, const char *fmt) {
    if (strcmp(fmt, "csv") == 0) {
        fprintf(out, "model,devices,threads,test,n_tokens,reps,ts_mean,ts_stdev,samples_ts\n");
        return;
    }
    fprintf(out, "| model | devices | threads | test | t/s |\n");
    fprintf(out, "| ----- | ------- | ------: | ---: | --: |\n");
}

void bench_model_print_row(FILE *out, const char *fmt, const char *desc, const char *devices, int threads,
                           const struct bench_model_test *t, const double *ts) {
    double mean = 0.0, var = 0.0;
    for (int r = 0; r < t->reps; r++) {
        mean += ts[r] / t->reps;
    }
    for (int r = 0; r < t->reps; r++) {
        var += (ts[r] - mean) * (ts[r] - mean);
    }
    const double sd = t->reps > 1 ? sqrt(var / (t->reps - 1)) : 0.0;
    const char *kind = t->kind == BENCH_MODEL_PP ? "pp" : "tg";
    if (strcmp(fmt, "csv") == 0) {
        fprintf(out, "\"%s\",\"%s\",%d,%s%d,%d,%d,%.4f,%.4f,\"", desc, devices, threads, kind, t->n, t->n, t->reps,
                mean, sd);
        for (int r = 0; r < t->reps; r++) {
            fprintf(out, "%s%.4f", r ? ";" : "", ts[r]);
        }
        fprintf(out, "\"\n");
        return;
    }
    fprintf(out, "| %s | %s | %d | %s%d | %.2f ± %.2f |\n", desc, devices, threads, kind, t->n, mean, sd);
}
