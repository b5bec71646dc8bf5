/*
 * The tiled formats on real quantized data and at their edges (src/repack).
 *
 * - real data: rows of N(0, 1) values at magnitudes 1e-3..1e3, a zero row and a row with an outlier, quantized
 *   with each type's reference quantizer (from_f32_ref), are repacked: the tiles dequantize to what the seed's tile
 *   model (repack-seed.c) computes from the GGML blocks, bit for bit, and to GGML's to_f32 (bit for bit when
 *   lossless, within the FP16 bound otherwise); unpack returns the bytes (lossless) or the codes with scales that
 *   repack to the same tiles and dequantize within the bound.
 * - threads: any thread count gives the same bytes.
 * - edges of the derived scales: d = +-0, subnormal, negative, the largest finite (FP16 overflow), NaN: no crash,
 *   the codes survive, repack(unpack(t)) == t unless unpack warns (only for NaN or overflow); zero blocks unpack to
 *   themselves.
 * - bad input: unsupported types and shapes, wrong sizes, no threads: the documented status, one logged error,
 *   the output untouched.
 */
#include "repack-seed.h"
#include "repack.h"
#include "test-common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SENTINEL 0xa5

static const struct seed_type *seed_type_of(enum vnpu_type type) {
    for (int i = 0; i < SEED_N_TYPES; i++) {
        if (seed_types[i].type == type) {
            return &seed_types[i];
        }
    }
    fail_msg("type %s has no row in seed_types", vnpu_type_name(type));
    return NULL;
}

static size_t flat_size(enum vnpu_type type, const int64_t ne[4]) {
    return vnpu_row_size(type, ne[0]) * (size_t) (ne[1] * ne[2] * ne[3]);
}

static void *xmalloc(size_t size) {
    void *p = malloc(size);
    assert_non_null(p);
    return p;
}

/* Checks tiles (the repack of flat) against the seed model and GGML, and the unpack, as the top of the file says. */
static void check_round_trip(const struct seed_type *st, const int64_t ne[4], const uint8_t *flat, const char *what) {
    const struct vnpu_type_traits *tt = vnpu_type_traits_get(st->type);
    const size_t fsize = flat_size(st->type, ne), tsize = repack_nbytes(st->type, ne);
    const int64_t n_rows = ne[1] * ne[2] * ne[3], n_blocks = ne[0] / tt->blck;
    uint8_t *tiles = xmalloc(tsize), *back = xmalloc(fsize), *again = xmalloc(tsize);
    float *y = xmalloc((size_t) (n_rows * ne[0]) * sizeof(float));
    float *ggml = xmalloc((size_t) ne[0] * sizeof(float)), *ggml_back = xmalloc((size_t) ne[0] * sizeof(float));
    assert_int_equal(repack_tensor(st->type, ne, flat, fsize, tiles, tsize, 2), VNPU_STATUS_OK);
    assert_int_equal(repack_dequant_tensor(st->type, ne, tiles, tsize, y), VNPU_STATUS_OK);
    assert_int_equal(repack_unpack_tensor(st->type, ne, tiles, tsize, back, fsize, 2), VNPU_STATUS_OK);
    if (st->lossless) {
        assert_memory_equal(back, flat, fsize);
    } else {
        assert_int_equal(repack_tensor(st->type, ne, back, fsize, again, tsize, 1), VNPU_STATUS_OK);
        assert_memory_equal(again, tiles, tsize);
    }
    for (int64_t i = 0; i < n_rows; i++) {
        const uint8_t *row = flat + (size_t) (i * n_blocks) * tt->size;
        const uint8_t *row_back = back + (size_t) (i * n_blocks) * tt->size;
        tt->to_f32(row, ggml, ne[0]);
        tt->to_f32(row_back, ggml_back, ne[0]);
        for (int64_t kb = 0; kb < n_blocks; kb++) {
            struct seed_block b, b_back;
            st->decode(row + kb * tt->size, &b);
            st->decode(row_back + kb * tt->size, &b_back);
            assert_memory_equal(b.q, b_back.q, sizeof(b.q));
            for (int e = 0; e < tt->blck; e++) {
                const int64_t k = kb * tt->blck + e;
                double bound;
                const float want = st->value(&b, e, &bound), got = y[i * ne[0] + k];
                if (memcmp(&got, &want, sizeof(got)) != 0 || !(fabs((double) got - ggml[k]) <= bound) ||
                    !(fabs((double) got - ggml_back[k]) <= bound)) {
                    fail_msg("%s %s: row %lld element %lld: tile %a, seed model %a, GGML %a, GGML of unpack %a "
                             "(bound %g)",
                             what, vnpu_type_name(st->type), (long long) i, (long long) k, got, want, ggml[k],
                             ggml_back[k], bound);
                }
            }
        }
    }
    free(tiles);
    free(back);
    free(again);
    free(y);
    free(ggml);
    free(ggml_back);
}

/* Rows of N(0, 1) * 10^(i % 7 - 3), row 3 zeros, row 5 with an outlier, quantized by the reference quantizer. */
static uint8_t *quantized_rows(enum vnpu_type type, const int64_t ne[4], const char *seed) {
    const struct vnpu_type_traits *tt = vnpu_type_traits_get(type);
    const int64_t n_rows = ne[1] * ne[2] * ne[3];
    uint8_t *flat = xmalloc(flat_size(type, ne));
    float *x = xmalloc((size_t) ne[0] * sizeof(float));
    struct test_rng rng;
    test_rng_seed(&rng, seed);
    for (int64_t i = 0; i < n_rows; i++) {
        const float mag = powf(10.0f, (float) (i % 7 - 3));
        for (int64_t k = 0; k < ne[0]; k++) {
            x[k] = i == 3 ? 0.0f : test_rng_normal(&rng, mag);
        }
        if (i == 5) {
            x[ne[0] / 3] = 200.0f;
        }
        tt->from_f32_ref(x, flat + (size_t) i * vnpu_row_size(type, ne[0]), ne[0]);
    }
    free(x);
    return flat;
}

static void test_real_data(void **state) {
    const struct seed_type *st = *state;
    const int64_t ne[4] = {1024, 45, 2, 1};
    char seed[64];
    snprintf(seed, sizeof(seed), "real_data(type=%s)", vnpu_type_name(st->type));
    uint8_t *flat = quantized_rows(st->type, ne, seed);
    check_round_trip(st, ne, flat, "real data");
    free(flat);
}

/* Every thread count, capped or not by the tile rows, gives the same tiles and the same unpack. */
static void test_threads(void **state) {
    (void) state;
    static const enum vnpu_type types[3] = {VNPU_TYPE_Q4_0, VNPU_TYPE_Q4_K, VNPU_TYPE_Q6_K};
    static const int threads[5] = {2, 3, 7, 64, 1000};
    const int64_t ne[4] = {512, 200, 3, 1};
    for (int i = 0; i < 3; i++) {
        uint8_t *flat = quantized_rows(types[i], ne, "threads");
        const size_t fsize = flat_size(types[i], ne), tsize = repack_nbytes(types[i], ne);
        uint8_t *one = xmalloc(tsize), *many = xmalloc(tsize), *back_one = xmalloc(fsize), *back = xmalloc(fsize);
        assert_int_equal(repack_tensor(types[i], ne, flat, fsize, one, tsize, 1), VNPU_STATUS_OK);
        assert_int_equal(repack_unpack_tensor(types[i], ne, one, tsize, back_one, fsize, 1), VNPU_STATUS_OK);
        for (int t = 0; t < 5; t++) {
            memset(many, 0, tsize);
            memset(back, 0, fsize);
            assert_int_equal(repack_tensor(types[i], ne, flat, fsize, many, tsize, threads[t]), VNPU_STATUS_OK);
            assert_memory_equal(many, one, tsize);
            assert_int_equal(repack_unpack_tensor(types[i], ne, one, tsize, back, fsize, threads[t]), VNPU_STATUS_OK);
            assert_memory_equal(back, back_one, fsize);
        }
        free(flat);
        free(one);
        free(many);
        free(back_one);
        free(back);
    }
}

/* One row of one super-block with the given d (and dmin), random codes and scales (sub-block 0's scale and min
 * 1 when one_first); returns the number of warnings unpack logged, after checking that the codes survive and,
 * without a warning, that repack(unpack(t)) == t. */
static int check_special_block(const struct seed_type *st, uint16_t d, uint16_t dmin, bool one_first,
                               struct test_rng *rng) {
    const int64_t ne[4] = {256, 1, 1, 1};
    const size_t fsize = flat_size(st->type, ne), tsize = repack_nbytes(st->type, ne);
    uint8_t flat[256], back[256], tiles[8 * 896], again[8 * 896];
    struct seed_block b, b_back;
    st->random(rng, false, &b);
    b.d = d;
    b.dmin = dmin;
    if (one_first) {
        b.sc[0] = st->type == VNPU_TYPE_Q3_K ? 33 : 1; /* Q3_K stores scale + 32 */
        b.mn[0] = 1;
    }
    st->encode(&b, flat);
    struct test_log log;
    memset(&log, 0, sizeof(log));
    vnpu_log_set(test_log_collect, &log, VNPU_LOG_WARN);
    assert_int_equal(repack_tensor(st->type, ne, flat, fsize, tiles, tsize, 1), VNPU_STATUS_OK);
    assert_int_equal(repack_unpack_tensor(st->type, ne, tiles, tsize, back, fsize, 1), VNPU_STATUS_OK);
    vnpu_log_set(NULL, NULL, VNPU_LOG_WARN);
    st->decode(back, &b_back);
    assert_memory_equal(b.q, b_back.q, sizeof(b.q));
    if (log.n_warnings == 0) {
        assert_int_equal(repack_tensor(st->type, ne, back, fsize, again, tsize, 1), VNPU_STATUS_OK);
        assert_memory_equal(again, tiles, tsize);
    }
    assert_int_equal(log.n_errors, 0);
    return log.n_warnings;
}

static void test_special_scales(void **state) {
    (void) state;
    /* FP16 bits: +0, -0, smallest subnormal, largest subnormal, smallest normal, -0.5, 100, 1/3 */
    static const uint16_t finite[8] = {0x0000, 0x8000, 0x0001, 0x03ff, 0x0400, 0xb800, 0x5640, 0x3555};
    static const enum vnpu_type lossy[4] = {VNPU_TYPE_Q3_K, VNPU_TYPE_Q4_K, VNPU_TYPE_Q5_K, VNPU_TYPE_Q6_K};
    struct test_rng rng;
    test_rng_seed(&rng, "special_scales");
    for (int t = 0; t < 4; t++) {
        const struct seed_type *st = seed_type_of(lossy[t]);
        for (int i = 0; i < 8; i++) {
            for (int j = 0; j < 8; j++) {
                assert_int_equal(check_special_block(st, finite[i], finite[j], false, &rng), 0);
            }
        }
        /* 65504 * scale overflows FP16 for every scale but 0 and +-1: infinities in the tile, which unpack reproduces
         * when a scale of 1 fixes d, and otherwise may have to fit with a warning; a NaN d always warns */
        for (int i = 0; i < 4; i++) {
            assert_int_equal(check_special_block(st, 0x7bff, 0x7bff, true, &rng), 0);
            const int n_warnings = check_special_block(st, 0x7bff, 0x7bff, false, &rng);
            assert_true(n_warnings == 0 || n_warnings == 1);
        }
        assert_int_equal(check_special_block(st, 0x7e00, 0x7e00, false, &rng), 1);

        /* a block of zeros (what the quantizers write for a zero block) unpacks to itself */
        const int64_t ne[4] = {256, 1, 1, 1};
        const size_t fsize = flat_size(st->type, ne), tsize = repack_nbytes(st->type, ne);
        uint8_t zero[256] = {0}, tiles[8 * 896], back[256];
        struct seed_block b = {0};
        for (int s = 0; s < 16 && lossy[t] == VNPU_TYPE_Q3_K; s++) {
            b.sc[s] = 32; /* Q3_K's scale 0 */
        }
        st->encode(&b, zero);
        assert_int_equal(repack_tensor(st->type, ne, zero, fsize, tiles, tsize, 1), VNPU_STATUS_OK);
        assert_int_equal(repack_unpack_tensor(st->type, ne, tiles, tsize, back, fsize, 1), VNPU_STATUS_OK);
        assert_memory_equal(back, zero, fsize);
    }
}

/* A call that must fail: the status, exactly one logged error, and the output untouched. */
static void expect_failure(enum vnpu_status got, enum vnpu_status want, const struct test_log *log, const uint8_t *out,
                           size_t size) {
    assert_int_equal(got, want);
    assert_int_equal(log->n_errors, 1);
    for (size_t i = 0; i < size; i++) {
        assert_int_equal(out[i], SENTINEL);
    }
}

static void test_bad_input(void **state) {
    (void) state;
    static const struct {
        enum vnpu_type type;
        int64_t ne[4];
    } unsupported[] = {
        {VNPU_TYPE_F16, {64, 32, 1, 1}},
        {VNPU_TYPE_F32, {64, 32, 1, 1}},
        {VNPU_TYPE_Q5_0, {64, 32, 1, 1}},
        {VNPU_TYPE_Q8_K, {256, 32, 1, 1}},
        {VNPU_TYPE_IQ4_XS, {256, 32, 1, 1}},
        {VNPU_TYPE_Q4_0, {48, 32, 1, 1}},  /* ne0 not a multiple of K_cols */
        {VNPU_TYPE_Q4_K, {32, 32, 1, 1}},  /* K_cols, but not a whole super-block */
        {VNPU_TYPE_Q4_K, {288, 32, 1, 1}}, /* 256 + 32 */
        {VNPU_TYPE_Q1_0, {64, 32, 1, 1}},
        {VNPU_TYPE_Q2_0, {32, 32, 1, 1}},
        {VNPU_TYPE_Q8_0, {0, 32, 1, 1}},
        {VNPU_TYPE_Q8_0, {32, 0, 1, 1}},
        {VNPU_TYPE_Q8_0, {32, 32, -1, 1}},
        {VNPU_TYPE_Q8_0, {32, 4294967296LL, 1, 1}},             /* ne1 past 32 bits */
        {VNPU_TYPE_Q8_0, {1LL << 30, 1LL << 30, 1LL << 20, 1}}, /* size overflow */
        {(enum vnpu_type) 4, {32, 32, 1, 1}},                   /* a removed id */
    };
    uint8_t out[4096], in[4096];
    memset(in, 0, sizeof(in));
    struct test_log log;
    for (size_t i = 0; i < sizeof(unsupported) / sizeof(unsupported[0]); i++) {
        const enum vnpu_type type = unsupported[i].type;
        const int64_t *ne = unsupported[i].ne;
        assert_false(repack_supported(type, ne));
        assert_int_equal(repack_nbytes(type, ne), 0);
        memset(&log, 0, sizeof(log));
        memset(out, SENTINEL, sizeof(out));
        vnpu_log_set(test_log_collect, &log, VNPU_LOG_WARN);
        expect_failure(repack_tensor(type, ne, in, sizeof(in), out, sizeof(out), 1), VNPU_STATUS_UNSUPPORTED, &log, out,
                       sizeof(out));
        memset(&log, 0, sizeof(log));
        expect_failure(repack_unpack_tensor(type, ne, in, sizeof(in), out, sizeof(out), 1), VNPU_STATUS_UNSUPPORTED,
                       &log, out, sizeof(out));
        memset(&log, 0, sizeof(log));
        expect_failure(repack_dequant_tensor(type, ne, in, sizeof(in), (float *) out), VNPU_STATUS_UNSUPPORTED, &log,
                       out, sizeof(out));
        vnpu_log_set(NULL, NULL, VNPU_LOG_WARN);
    }

    /* Q4_0 [64, 33]: flat 33 * 36 = 1188 bytes, tiled 2 x 2 x 576 = 2304 */
    const int64_t ne[4] = {64, 33, 1, 1};
    const size_t fsize = 1188, tsize = 2304;
    assert_int_equal(flat_size(VNPU_TYPE_Q4_0, ne), fsize);
    assert_int_equal(repack_nbytes(VNPU_TYPE_Q4_0, ne), tsize);
    const struct {
        size_t flat, tiled;
        int threads;
    } bad[] = {{fsize - 1, tsize, 1}, {fsize + 1, tsize, 1}, {fsize, tsize - 1, 1}, {fsize, tsize, 0}};
    vnpu_log_set(test_log_collect, &log, VNPU_LOG_WARN);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        memset(&log, 0, sizeof(log));
        memset(out, SENTINEL, sizeof(out));
        expect_failure(repack_tensor(VNPU_TYPE_Q4_0, ne, in, bad[i].flat, out, bad[i].tiled, bad[i].threads),
                       VNPU_STATUS_BAD_ARG, &log, out, sizeof(out));
        memset(&log, 0, sizeof(log));
        expect_failure(repack_unpack_tensor(VNPU_TYPE_Q4_0, ne, in, bad[i].tiled, out, bad[i].flat, bad[i].threads),
                       VNPU_STATUS_BAD_ARG, &log, out, sizeof(out));
    }
    memset(&log, 0, sizeof(log));
    expect_failure(repack_dequant_tensor(VNPU_TYPE_Q4_0, ne, in, tsize - 1, (float *) out), VNPU_STATUS_BAD_ARG, &log,
                   out, sizeof(out));
    vnpu_log_set(NULL, NULL, VNPU_LOG_WARN);
    /* a larger tiled buffer than needed is fine, and its tail is not touched */
    memset(out, SENTINEL, sizeof(out));
    assert_int_equal(repack_tensor(VNPU_TYPE_Q4_0, ne, in, fsize, out, sizeof(out), 1), VNPU_STATUS_OK);
    for (size_t i = tsize; i < sizeof(out); i++) {
        assert_int_equal(out[i], SENTINEL);
    }
}

int main(void) {
    static char names[SEED_N_TYPES][48];
    static struct CMUnitTest tests[SEED_N_TYPES + 3];
    size_t n = 0;
    for (int i = 0; i < SEED_N_TYPES; i++) {
        snprintf(names[i], sizeof(names[i]), "real_data(type=%s)", vnpu_type_name(seed_types[i].type));
        tests[n++] = (struct CMUnitTest){names[i], test_real_data, NULL, NULL, (void *) &seed_types[i]};
    }
    tests[n++] = (struct CMUnitTest) cmocka_unit_test(test_threads);
    tests[n++] = (struct CMUnitTest) cmocka_unit_test(test_special_scales);
    tests[n++] = (struct CMUnitTest) cmocka_unit_test(test_bad_input);
    return _cmocka_run_group_tests("test-repack-data", tests, n, NULL, NULL);
}
