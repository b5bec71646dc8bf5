/*
 * The token sampler of include/vnpu.h: greedy at temperature <= 0, else llama.cpp's default chain with its
 * optional stages off (common/sampling.cpp: top-k, top-p, min-p, temperature, dist), drawing from a seeded
 * xoshiro256** generator (src/base/rng.h, its state from splitmix64 of the seed): a seed and the logits fix the
 * tokens, on every machine whose C library computes the same expf (a differing last bit can only change a draw
 * that lands within rounding of a boundary).
 *
 * Weights are float exponentials summed in double. llama.cpp sums float probabilities, which can move the
 * top-p cut only when the cumulative mass lands within float rounding of top_p; its draws use std::mt19937
 * and are not reproduced. Candidates are ordered by logit, then by lower id (llama.cpp leaves equal logits
 * unordered).
 */
#include "log.h"
#include "rng.h"
#include "vnpu.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct sampler_candidate {
    float logit; /* NaN is read as -inf */
    vnpu_token id;
};

struct vnpu_sampler {
    struct vnpu_sampler_params params;
    struct vnpu_rng rng;            /* xoshiro256** from splitmix64 of params.seed */
    struct sampler_candidate *all;  /* every candidate (a heap, best on top, while top-p pops them) */
    struct sampler_candidate *best; /* the candidates kept, best first */
    double *weight;                 /* weight of each candidate drawn from */
    size_t cap;
};

/* Uniform in [0, 1) with 53 random bits. */
static double sampler_uniform(struct vnpu_sampler *s) {
    return (double) (vnpu_rng_next(&s->rng) >> 11) * 0x1.0p-53;
}

static float sampler_logit(float x) {
    return isnan(x) ? -INFINITY : x;
}

/* Greedy choice: the largest logit, the lowest id among equals. */
static vnpu_token sampler_argmax(const float *logits, int32_t n_vocab) {
    vnpu_token best = 0;
    float best_logit = sampler_logit(logits[0]);
    for (int32_t i = 1; i < n_vocab; i++) {
        const float l = sampler_logit(logits[i]);
        if (l > best_logit) {
            best = i;
            best_logit = l;
        }
    }
    return best;
}

typedef bool (*candidate_order)(const struct sampler_candidate *a, const struct sampler_candidate *b);

/* a ranks before b: larger logit, then lower id. */
static bool candidate_better(const struct sampler_candidate *a, const struct sampler_candidate *b) {
    return a->logit > b->logit || (a->logit == b->logit && a->id < b->id);
}

static bool candidate_worse(const struct sampler_candidate *a, const struct sampler_candidate *b) {
    return candidate_better(b, a);
}

/* Binary heap of n candidates whose root comes first in `first`: restore it below i. */
static void heap_sift_down(struct sampler_candidate *h, size_t n, size_t i, candidate_order first) {
    const struct sampler_candidate x = h[i];
    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= n) {
            break;
        }
        if (child + 1 < n && first(&h[child + 1], &h[child])) {
            child++;
        }
        if (!first(&h[child], &x)) {
            break;
        }
        h[i] = h[child];
        i = child;
    }
    h[i] = x;
}

static void heap_make(struct sampler_candidate *h, size_t n, candidate_order first) {
    for (size_t i = n / 2; i-- > 0;) {
        heap_sift_down(h, n, i, first);
    }
}

/* Remove the root; it lands at h[*n] (the slot the heap gives up), so repeated pops sort in place. */
static struct sampler_candidate heap_pop(struct sampler_candidate *h, size_t *n, candidate_order first) {
    const struct sampler_candidate top = h[0];
    h[0] = h[--*n];
    heap_sift_down(h, *n, 0, first);
    h[*n] = top;
    return top;
}

struct vnpu_sampler_params vnpu_sampler_default_params(void) {
    /* llama.cpp's common_params_sampling defaults; the seed is fixed (callers wanting variety pass one) */
    return (struct vnpu_sampler_params){.temp = 0.8f, .top_k = 40, .top_p = 0.95f, .min_p = 0.05f, .seed = 0};
}

struct vnpu_sampler *vnpu_sampler_new(const struct vnpu_sampler_params *params) {
    if (isnan(params->temp) || isnan(params->top_p) || isnan(params->min_p)) {
        vnpu_log_error("sampler: temp %g, top_p %g, min_p %g: NaN is not a valid setting", (double) params->temp,
                       (double) params->top_p, (double) params->min_p);
        return NULL;
    }
    struct vnpu_sampler *s = calloc(1, sizeof(*s));
    if (!s) {
        vnpu_log_error("sampler: cannot allocate %zu bytes", sizeof(*s));
        return NULL;
    }
    s->params = *params;
    vnpu_rng_seed(&s->rng, params->seed);
    return s;
}

void vnpu_sampler_free(struct vnpu_sampler *sampler) {
    if (!sampler) {
        return;
    }
    free(sampler->all);
    free(sampler->best);
    free(sampler->weight);
    free(sampler);
}

static bool sampler_reserve(struct vnpu_sampler *s, size_t n) {
    if (n <= s->cap) {
        return true;
    }
    free(s->all);
    free(s->best);
    free(s->weight);
    s->all = malloc(n * sizeof(*s->all));
    s->best = malloc(n * sizeof(*s->best));
    s->weight = malloc(n * sizeof(*s->weight));
    s->cap = s->all && s->best && s->weight ? n : 0;
    if (!s->cap) {
        vnpu_log_error("sampler: cannot allocate candidates for %zu logits", n);
    }
    return s->cap != 0;
}

/* The k best of c[0, n) into best[0, k), best first (llama.cpp's top-k: a partial sort). A heap of the k
 * best so far keeps the worst on top, so a candidate that does not make the cut costs one compare. */
static void sampler_top_k(const struct sampler_candidate *c, size_t n, size_t k, struct sampler_candidate *best) {
    memcpy(best, c, k * sizeof(*best));
    heap_make(best, k, candidate_worse);
    for (size_t i = k; i < n; i++) {
        if (candidate_better(&c[i], &best[0])) {
            best[0] = c[i];
            heap_sift_down(best, k, 0, candidate_worse);
        }
    }
    for (size_t m = k; m > 1;) {
        heap_pop(best, &m, candidate_worse); /* the worst goes to the back */
    }
}

/* Nucleus of the untempered softmax over c[0, n) (llama_sampler_top_p with min_keep 1): the shortest
 * best-first prefix whose probability reaches top_p, moved to best[] unless c already is best-first
 * (sorted). Returns the prefix length. */
static size_t sampler_top_p(struct sampler_candidate *c, size_t n, bool sorted, float top_p, float max_logit,
                            struct sampler_candidate *best) {
    double total = 0.0;
    for (size_t i = 0; i < n; i++) {
        total += expf(c[i].logit - max_logit);
    }
    if (!sorted) {
        heap_make(c, n, candidate_better);
    }
    const double target = (double) top_p * total;
    double cum = 0.0;
    size_t n_keep = 0, n_heap = n;
    while (n_keep < n) {
        const struct sampler_candidate next = sorted ? c[n_keep] : heap_pop(c, &n_heap, candidate_better);
        best[n_keep++] = next;
        cum += expf(next.logit - max_logit);
        if (cum >= target) {
            break;
        }
    }
    return n_keep;
}

/* The candidates of c[0, n) whose probability is at least min_p times the largest's, in order, into
 * best[] (which may be c): llama_sampler_min_p's test on logits, logit >= max_logit + ln(min_p). */
static size_t sampler_min_p(const struct sampler_candidate *c, size_t n, float min_p, float max_logit,
                            struct sampler_candidate *best) {
    const float min_logit = max_logit + logf(min_p);
    size_t n_keep = 0;
    for (size_t i = 0; i < n; i++) {
        if (c[i].logit >= min_logit) {
            best[n_keep++] = c[i];
        }
    }
    return n_keep;
}

/* Draw one of c[0, n) with probability softmax(logit / temp); max_logit is the largest logit among them.
 * (logit - max) / temp, not times 1 / temp: a tiny temp makes the reciprocal infinite and 0 * inf NaN. */
static vnpu_token sampler_draw(struct vnpu_sampler *s, const struct sampler_candidate *c, size_t n, float max_logit) {
    double total = 0.0;
    for (size_t i = 0; i < n; i++) {
        s->weight[i] = expf((c[i].logit - max_logit) / s->params.temp);
        total += s->weight[i];
    }
    const double u = sampler_uniform(s) * total;
    double cum = 0.0;
    size_t last = 0;
    for (size_t i = 0; i < n; i++) {
        cum += s->weight[i];
        if (u < cum) {
            return c[i].id;
        }
        last = s->weight[i] > 0.0 ? i : last;
    }
    return c[last].id; /* u landed past the rounded total: the last token with weight */
}

vnpu_token vnpu_sampler_sample(struct vnpu_sampler *sampler, const float *logits, int32_t n_vocab) {
    if (!logits || n_vocab <= 0) {
        vnpu_log_error("sampler: %d logits, expected at least 1", logits ? n_vocab : 0);
        return -1;
    }
    const struct vnpu_sampler_params *p = &sampler->params;
    const vnpu_token argmax = sampler_argmax(logits, n_vocab);
    const float max_logit = sampler_logit(logits[argmax]);
    if (p->temp <= 0.0f || !isfinite(max_logit)) {
        return argmax; /* greedy, or no distribution to draw from (every logit -inf/NaN, or one +inf) */
    }
    if (!sampler_reserve(sampler, (size_t) n_vocab)) {
        return -1;
    }

    struct sampler_candidate *all = sampler->all, *best = sampler->best;
    for (int32_t i = 0; i < n_vocab; i++) {
        all[i] = (struct sampler_candidate){.logit = sampler_logit(logits[i]), .id = i};
    }
    struct sampler_candidate *set = all; /* what the next stage works on */
    size_t n_set = (size_t) n_vocab;
    if (p->top_k > 0 && p->top_k < n_vocab) {
        sampler_top_k(all, n_set, (size_t) p->top_k, best);
        set = best;
        n_set = (size_t) p->top_k;
    }
    if (p->top_p < 1.0f) {
        n_set = sampler_top_p(set, n_set, set == best, p->top_p, max_logit, best);
        set = best;
    }
    if (p->min_p > 0.0f) {
        n_set = sampler_min_p(set, n_set, p->min_p, max_logit, best);
        set = best;
    }
    return sampler_draw(sampler, set, n_set, max_logit);
}
