/*
 * Bit-exactness with GGML, through the oracle (../shared/oracle: ggml_quant calls llama.cpp's own
 * ggml_quantize_chunk and to_float from libggml-base).
 *
 * First the type table against `ggml_quant types` (ids, names, block and type sizes). Then, for every type
 * vnpu converts that ggml_quant can quantize: ROWS rows of NE0 floats drawn from the distributions of
 * enum row_kind are written to a file, quantized by the oracle and by vnpu from that same input, and the
 * bytes compared (the first difference reported as type/row/block/byte); the oracle's bytes are
 * dequantized by both and the floats compared bit for bit; and so are RAND_ROWS rows of random bytes,
 * NaN and Inf scales included (ggml_quant dequantize --no-validate), where two NaNs count as equal
 * (same_float says why).
 */
#include "test-common.h"
#include "type-traits.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NE0       512 /* a multiple of every block size */
#define ROWS      1000
#define RAND_ROWS 64

/* What `ggml_quant types` says about each id. */
struct oracle_type {
    char name[32];
    int64_t blck;
    size_t size;
    int can_quantize, can_dequantize;
};
static struct oracle_type oracle_types[VNPU_TYPE_COUNT];
static int oracle_types_loaded;

static void oracle_types_load(const char *bin) {
    if (oracle_types_loaded) {
        return;
    }
    char *out = NULL;
    assert_int_equal(test_run(&out, NULL, "'%s/ggml_quant' types", bin), 0);
    int n = 0;
    for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
        int id;
        long long blck;
        size_t size;
        char name[32], q[8], d[8];
        if (line[0] == '#' || sscanf(line, "%d %31s %lld %zu %7s %7s", &id, name, &blck, &size, q, d) != 6) {
            continue;
        }
        assert_true(id >= 0 && id < VNPU_TYPE_COUNT);
        struct oracle_type *o = &oracle_types[id];
        snprintf(o->name, sizeof(o->name), "%s", name);
        o->blck = blck;
        o->size = size;
        o->can_quantize = strcmp(q, "yes") == 0;
        o->can_dequantize = strcmp(d, "yes") == 0;
        n++;
    }
    free(out);
    assert_int_equal(n, VNPU_TYPE_COUNT);
    oracle_types_loaded = 1;
}

/* Append " name" to a NUL-terminated list of capacity cap, dropping what does not fit. */
static void list_append(char *list, size_t cap, const char *name) {
    const size_t len = strlen(list), n = strlen(name);
    if (len + 1 + n < cap) {
        list[len] = ' ';
        memcpy(list + len + 1, name, n + 1);
    }
}

static void test_table_against_oracle(void **state) {
    (void) state;
    oracle_types_load(test_oracle_bin());
    char not_converted[512] = "", not_checkable[256] = "";
    for (int t = 0; t < VNPU_TYPE_COUNT; t++) {
        const struct oracle_type *o = &oracle_types[t];
        const struct vnpu_type_traits *tt = vnpu_type_traits_get((enum vnpu_type) t);
        if (o->blck == 0) {
            assert_false(vnpu_type_is_valid((uint32_t) t));
            continue;
        }
        if (!vnpu_type_is_valid((uint32_t) t) || strcmp(tt->name, o->name) != 0 || tt->blck != o->blck ||
            tt->size != o->size) {
            fail_msg("type %d: vnpu %s blck %lld size %zu, ggml %s blck %lld size %zu", t, tt->name ? tt->name : "-",
                     (long long) tt->blck, tt->size, o->name, (long long) o->blck, o->size);
        }
        const int vnpu_converts = tt->to_f32 && tt->from_f32_ref;
        if (o->can_quantize && !vnpu_converts) {
            list_append(not_converted, sizeof(not_converted), o->name);
        }
        if (vnpu_converts && !o->can_quantize) {
            list_append(not_checkable, sizeof(not_checkable), o->name);
        }
    }
    printf("  types GGML quantizes that vnpu does not convert:%s\n", not_converted);
    printf("  types vnpu converts that the oracle cannot check (test-quants checks them by hand):%s\n", not_checkable);
}

/* ---- Input rows ------------------------------------------------------------------------------------ */

enum row_kind {
    ROW_N1,         /* N(0, 1) */
    ROW_N002,       /* N(0, 0.02^2), weight-like */
    ROW_N1000,      /* N(0, 1000^2) */
    ROW_ZEROS,      /* all 0 */
    ROW_CONST,      /* one random constant in [-100, 100) */
    ROW_OUTLIER,    /* N(0, 1) with one element of +-25000 */
    ROW_UNIFORM,    /* U[-1, 1) */
    ROW_SPARSE,     /* one N(0, 1) element per 32, the rest 0 */
    ROW_GRID,       /* multiples of 1/4 in [-4, 4]: ties in every rounding */
    ROW_TINY,       /* N(0, (1e-20)^2): scales below every fp16 subnormal */
    ROW_SMALL,      /* N(0, (1e-6)^2): fp16 subnormal scales */
    ROW_MAGNITUDES, /* N(0, 1) scaled by 10^-4 .. 10^3, changing every 32 elements */
    ROW_SUBNORMAL,  /* N(0, (1e-39)^2): f32 subnormals, so 1 / scale is inf */
    ROW_TERNARY,    /* -1, 0, +1 */
    ROW_KIND_COUNT,
};

static float row_value(enum row_kind kind, struct test_rng *rng, int i, float c) {
    switch (kind) {
        case ROW_N1: return test_rng_normal(rng, 1.0f);
        case ROW_N002: return test_rng_normal(rng, 0.02f);
        case ROW_N1000: return test_rng_normal(rng, 1000.0f);
        case ROW_ZEROS: return 0.0f;
        case ROW_CONST: return c;
        case ROW_OUTLIER: return test_rng_normal(rng, 1.0f);
        case ROW_UNIFORM: return 2.0f * test_rng_uniform(rng) - 1.0f;
        case ROW_SPARSE: return i % 32 == 7 ? test_rng_normal(rng, 1.0f) : 0.0f;
        case ROW_GRID: return 0.25f * (float) ((int) (test_rng_uniform(rng) * 33.0f) - 16);
        case ROW_TINY: return test_rng_normal(rng, 1e-20f);
        case ROW_SMALL: return test_rng_normal(rng, 1e-6f);
        case ROW_MAGNITUDES: return test_rng_normal(rng, 1.0f) * powf(10.0f, (float) ((i / 32 * 5) % 8) - 4.0f);
        case ROW_SUBNORMAL: return test_rng_normal(rng, 1e-39f);
        case ROW_TERNARY: return (float) ((int) (test_rng_uniform(rng) * 3.0f) - 1);
        case ROW_KIND_COUNT: break;
    }
    fail_msg("row kind %d", kind);
    return 0.0f;
}

static void make_rows(const char *seed, float *x) {
    struct test_rng rng;
    test_rng_seed(&rng, seed);
    for (int r = 0; r < ROWS; r++) {
        const enum row_kind kind = (enum row_kind)(r % ROW_KIND_COUNT);
        const float c = 200.0f * test_rng_uniform(&rng) - 100.0f;
        float *xr = x + (size_t) r * NE0;
        for (int i = 0; i < NE0; i++) {
            xr[i] = row_value(kind, &rng, i, c);
        }
        if (kind == ROW_OUTLIER) {
            xr[(int) (test_rng_uniform(&rng) * NE0)] = test_rng_uniform(&rng) < 0.5f ? -25000.0f : 25000.0f;
        }
    }
}

/* ---- Per-type comparison --------------------------------------------------------------------------- */

static void *oracle_convert(const char *bin, const char *cmd, const char *type, int nrows, const char *in,
                            const char *out, size_t expect) {
    char *err = NULL;
    const int rc = test_run(NULL, &err, "'%s/ggml_quant' %s --type %s --ne0 %d --nrows %d '%s' '%s' >/dev/null", bin,
                            cmd, type, NE0, nrows, in, out);
    if (rc != 0) {
        fail_msg("ggml_quant %s --type %s failed (%d): %s", cmd, type, rc, err);
    }
    free(err);
    size_t size = 0;
    void *data = test_read_file(out, &size);
    assert_non_null(data);
    assert_int_equal(size, expect);
    return data;
}

/* Whether two floats count as the same: the same bits, or, with any_nan, both NaN. An operation on two NaNs
 * (q4_1's q * d + m with NaN d and m) returns one of their payloads, and which one follows the operand
 * order the compiler picks for a commutative operation, which C leaves open. */
static int same_float(float a, float b, int any_nan) {
    return memcmp(&a, &b, sizeof(float)) == 0 || (any_nan && isnan(a) && isnan(b));
}

/* Rows of floats that differ (same_float); the first difference is reported. */
static int count_float_mismatches(const char *what, const char *type, const float *want, const float *got, int nrows,
                                  int any_nan) {
    int bad = 0;
    for (int r = 0; r < nrows; r++) {
        const float *w = want + (size_t) r * NE0, *g = got + (size_t) r * NE0;
        int i = 0;
        while (i < NE0 && same_float(w[i], g[i], any_nan)) {
            i++;
        }
        if (i == NE0) {
            continue;
        }
        if (bad++ == 0) {
            uint32_t uw, ug;
            memcpy(&uw, &w[i], 4);
            memcpy(&ug, &g[i], 4);
            printf("  %s %s: first difference at row %d, element %d: ggml %08x (%g), vnpu %08x (%g)\n", type, what, r,
                   i, uw, (double) w[i], ug, (double) g[i]);
        }
    }
    return bad;
}

static void test_type_against_oracle(void **state) {
    const enum vnpu_type t = *(const enum vnpu_type *) *state;
    const struct vnpu_type_traits *tt = vnpu_type_traits_get(t);
    const char *bin = test_oracle_bin();
    oracle_types_load(bin);
    if (!oracle_types[t].can_quantize || !oracle_types[t].can_dequantize) {
        test_skip_not_applicable("ggml_quant cannot convert it; test-quants checks it from its definition");
    }
    const size_t row_size = vnpu_row_size(t, NE0);
    char in[4200], ref[4200], ref_f32[4200], rnd[4200], rnd_f32[4200];
    snprintf(in, sizeof(in), "%s/%s.f32", test_tmpdir(), tt->name);
    snprintf(ref, sizeof(ref), "%s/%s.ggml", test_tmpdir(), tt->name);
    snprintf(ref_f32, sizeof(ref_f32), "%s/%s.ggml.f32", test_tmpdir(), tt->name);
    snprintf(rnd, sizeof(rnd), "%s/%s.random", test_tmpdir(), tt->name);
    snprintf(rnd_f32, sizeof(rnd_f32), "%s/%s.random.f32", test_tmpdir(), tt->name);

    /* quantize: the same float input to both */
    float *x = malloc((size_t) ROWS * NE0 * sizeof(float));
    uint8_t *mine = malloc((size_t) ROWS * row_size);
    float *y = malloc((size_t) ROWS * NE0 * sizeof(float));
    assert_true(x && mine && y);
    make_rows(tt->name, x);
    test_write_file(in, x, (size_t) ROWS * NE0 * sizeof(float));
    uint8_t *want = oracle_convert(bin, "quantize", tt->name, ROWS, in, ref, (size_t) ROWS * row_size);
    int bad_quant = 0;
    for (int r = 0; r < ROWS; r++) {
        uint8_t *got = mine + (size_t) r * row_size;
        const uint8_t *w = want + (size_t) r * row_size;
        tt->from_f32_ref(x + (size_t) r * NE0, got, NE0);
        if (memcmp(got, w, row_size) == 0) {
            continue;
        }
        if (bad_quant++ == 0) {
            size_t i = 0;
            while (got[i] == w[i]) {
                i++;
            }
            printf("  %s quantize: first difference at row %d (kind %d), block %zu, byte %zu: ggml %02x, vnpu %02x\n",
                   tt->name, r, r % ROW_KIND_COUNT, i / tt->size, i % tt->size, w[i], got[i]);
        }
    }

    /* dequantize the oracle's bytes */
    float *want_y =
        oracle_convert(bin, "dequantize", tt->name, ROWS, ref, ref_f32, (size_t) ROWS * NE0 * sizeof(float));
    tt->to_f32(want, y, (int64_t) ROWS * NE0);
    const int bad_dequant = count_float_mismatches("dequantize", tt->name, want_y, y, ROWS, 0);

    /* dequantize random bytes: every bit pattern of scales and codes */
    char seed[64];
    snprintf(seed, sizeof(seed), "%s random bytes", tt->name);
    struct test_rng rng;
    test_rng_seed(&rng, seed);
    for (size_t i = 0; i < (size_t) RAND_ROWS * row_size; i++) {
        mine[i] = (uint8_t) (test_rng_next(&rng) >> 56);
    }
    test_write_file(rnd, mine, (size_t) RAND_ROWS * row_size);
    float *want_r = oracle_convert(bin, "dequantize --no-validate", tt->name, RAND_ROWS, rnd, rnd_f32,
                                   (size_t) RAND_ROWS * NE0 * 4);
    tt->to_f32(mine, y, (int64_t) RAND_ROWS * NE0);
    const int bad_random = count_float_mismatches("dequantize random bytes", tt->name, want_r, y, RAND_ROWS, 1);

    printf("  %-7s quantize %d/%d rows bit-exact, dequantize %d/%d rows, random bytes %d/%d rows\n", tt->name,
           ROWS - bad_quant, ROWS, ROWS - bad_dequant, ROWS, RAND_ROWS - bad_random, RAND_ROWS);
    free(want_r);
    free(want_y);
    free(want);
    free(y);
    free(mine);
    free(x);
    assert_int_equal(bad_quant, 0);
    assert_int_equal(bad_dequant, 0);
    assert_int_equal(bad_random, 0);
}

int main(void) {
    static enum vnpu_type types[VNPU_TYPE_COUNT];
    static char names[VNPU_TYPE_COUNT][48];
    static struct CMUnitTest tests[VNPU_TYPE_COUNT + 1];
    size_t n = 0;
    tests[n++] = (struct CMUnitTest) cmocka_unit_test(test_table_against_oracle);
    for (int t = 0; t < VNPU_TYPE_COUNT; t++) {
        const struct vnpu_type_traits *tt = vnpu_type_traits_get((enum vnpu_type) t);
        if (tt->to_f32 && tt->from_f32_ref) {
            types[t] = (enum vnpu_type) t;
            snprintf(names[t], sizeof(names[t]), "oracle(type=%s)", tt->name);
            tests[n++] = (struct CMUnitTest){names[t], test_type_against_oracle, NULL, NULL, &types[t]};
        }
    }
    return _cmocka_run_group_tests("test-quants-oracle", tests, n, NULL, NULL);
}
