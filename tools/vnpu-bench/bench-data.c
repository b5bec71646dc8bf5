/* The oracle's seeded inputs for vnpu-bench: see bench-data.h. */
#include "bench-data.h"

#include "log.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* FNV-1a over name with the oracle's start value 1469598103934665603, which is not FNV's offset basis
 * 14695981039346656037 (src/base/hash.h): oracle_rng.h's constant lacks the basis's last digit, and the streams
 * are defined by it. */
static uint64_t bench_stream_hash(const char *name) {
    uint64_t h = 1469598103934665603ull;
    for (const unsigned char *p = (const unsigned char *) name; *p; p++) {
        h = (h ^ *p) * 0x100000001b3ull;
    }
    return h;
}

void bench_rng_seed(struct bench_rng *r, uint64_t seed, const char *name) {
    vnpu_rng_seed(&r->state, seed ^ bench_stream_hash(name));
    r->have_spare = false;
    r->spare = 0.0;
}

/* Uniform in the open interval (0, 1): the top 53 bits, centred in their step. */
static double bench_rng_uniform(struct bench_rng *r) {
    return ((double) (vnpu_rng_next(&r->state) >> 11) + 0.5) * 0x1.0p-53;
}

double bench_rng_normal(struct bench_rng *r) {
    if (r->have_spare) {
        r->have_spare = false;
        return r->spare;
    }
    const double u = bench_rng_uniform(r), v = bench_rng_uniform(r);
    const double radius = sqrt(-2.0 * log(u)), angle = 2.0 * M_PI * v;
    r->spare = radius * sin(angle);
    r->have_spare = true;
    return radius * cos(angle);
}

enum vnpu_status bench_weights_gen(enum vnpu_type type, int64_t k, int64_t m, uint64_t seed, void **data,
                                   size_t *size) {
    const struct vnpu_type_traits *tt = vnpu_type_traits_get(type);
    *data = NULL;
    if (!tt->from_f32_ref || k <= 0 || m <= 0 || k % tt->blck != 0) {
        vnpu_log_error("weights %s [%" PRId64 ", %" PRId64 "]: %s", vnpu_type_name(type), k, m,
                       tt->from_f32_ref ? "K is not a whole number of blocks" : "the type has no reference quantizer");
        return VNPU_STATUS_UNSUPPORTED;
    }
    const size_t row_size = vnpu_row_size(type, k);
    if ((uint64_t) m > SIZE_MAX / row_size) {
        vnpu_log_error("weights %s [%" PRId64 ", %" PRId64 "]: too large", vnpu_type_name(type), k, m);
        return VNPU_STATUS_NO_MEMORY;
    }
    uint8_t *out = malloc(row_size * (size_t) m);
    float *row = malloc((size_t) k * sizeof(float));
    if (!out || !row) {
        vnpu_log_error("weights %s [%" PRId64 ", %" PRId64 "]: out of memory", vnpu_type_name(type), k, m);
        free(out);
        free(row);
        return VNPU_STATUS_NO_MEMORY;
    }
    char name[96];
    snprintf(name, sizeof(name), "weights:%s:%" PRId64 "x%" PRId64, vnpu_type_name(type), k, m);
    struct bench_rng r;
    bench_rng_seed(&r, seed, name);
    for (int64_t i = 0; i < m; i++) {
        for (int64_t j = 0; j < k; j++) {
            row[j] = (float) bench_rng_normal(&r);
        }
        tt->from_f32_ref(row, out + (size_t) i * row_size, k);
    }
    free(row);
    *data = out;
    *size = row_size * (size_t) m;
    return VNPU_STATUS_OK;
}

enum vnpu_status bench_input_gen(const char *name, size_t n, uint64_t seed, float **data) {
    float *x = n <= SIZE_MAX / sizeof(float) ? malloc(n * sizeof(float)) : NULL;
    *data = x;
    if (!x) {
        vnpu_log_error("input '%s' of %zu floats: out of memory", name, n);
        return VNPU_STATUS_NO_MEMORY;
    }
    char stream[96];
    snprintf(stream, sizeof(stream), "input:%s", name);
    struct bench_rng r;
    bench_rng_seed(&r, seed, stream);
    for (size_t i = 0; i < n; i++) {
        x[i] = (float) bench_rng_normal(&r);
    }
    return VNPU_STATUS_OK;
}
