/*
 * The type-traits table and the block formats, without the oracle.
 *
 * Table-driven: every type whose row has to_f32 and from_f32_ref gets the round-trip checks (rel. RMSE on
 * N(0, 1) rows against its rmse_max, rows of zeros, constant rows, rows with one huge outlier, rows with
 * NaN and inf that must not crash), with sentinel bytes after every output. Bit-exactness with GGML is
 * test-quants-oracle's job. Formats the oracle cannot check, or that the issue defines by hand (Q1_0, Q2_0, Q8_K), are
 * checked with vectors built from their definitions, in both directions; the MXFP4 and IQ4_NL tables against the OCP MX
 * and GGML definitions of their layouts.
 */
#include "quants.h"
#include "test-common.h"
#include "type-traits.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROW_NE    4096 /* a multiple of every block size */
#define N_ROWS    8
#define GUARD     64 /* sentinel bytes after each output */
#define SENTINEL  0xa5
#define OUTLIER   25000.0f /* fits an fp16 scale in every format */
#define OUTLIER_I 1000

/* ---- GGML's ids, names, block sizes and type sizes, as ggml_type_name / ggml_blck_size /
 * ggml_type_size report them (ggml 0.23.0, `ggml_quant types`) ---------------------------------------- */

static const struct {
    int id;
    const char *name;
    int64_t blck;
    size_t size;
} ggml_types[] = {
    {0, "f32", 1, 4},         {1, "f16", 1, 2},         {2, "q4_0", 32, 18},      {3, "q4_1", 32, 20},
    {6, "q5_0", 32, 22},      {7, "q5_1", 32, 24},      {8, "q8_0", 32, 34},      {9, "q8_1", 32, 36},
    {10, "q2_K", 256, 84},    {11, "q3_K", 256, 110},   {12, "q4_K", 256, 144},   {13, "q5_K", 256, 176},
    {14, "q6_K", 256, 210},   {15, "q8_K", 256, 292},   {16, "iq2_xxs", 256, 66}, {17, "iq2_xs", 256, 74},
    {18, "iq3_xxs", 256, 98}, {19, "iq1_s", 256, 50},   {20, "iq4_nl", 32, 18},   {21, "iq3_s", 256, 110},
    {22, "iq2_s", 256, 82},   {23, "iq4_xs", 256, 136}, {24, "i8", 1, 1},         {25, "i16", 1, 2},
    {26, "i32", 1, 4},        {27, "i64", 1, 8},        {28, "f64", 1, 8},        {29, "iq1_m", 256, 56},
    {30, "bf16", 1, 2},       {34, "tq1_0", 256, 54},   {35, "tq2_0", 256, 66},   {39, "mxfp4", 32, 17},
    {40, "nvfp4", 64, 36},    {41, "q1_0", 128, 18},    {42, "q2_0", 64, 18},
};

static void test_table_matches_ggml(void **state) {
    (void) state;
    int n_valid = 0;
    for (size_t i = 0; i < sizeof(ggml_types) / sizeof(ggml_types[0]); i++) {
        const enum vnpu_type t = (enum vnpu_type) ggml_types[i].id;
        const struct vnpu_type_traits *tt = vnpu_type_traits_get(t);
        assert_true(vnpu_type_is_valid((uint32_t) t));
        assert_string_equal(tt->name, ggml_types[i].name);
        assert_int_equal(tt->blck, ggml_types[i].blck);
        assert_int_equal(tt->size, ggml_types[i].size);
        assert_int_equal(vnpu_row_size(t, 8 * tt->blck), 8 * tt->size);
    }
    for (int t = 0; t < VNPU_TYPE_COUNT; t++) {
        n_valid += vnpu_type_is_valid((uint32_t) t);
    }
    assert_int_equal(n_valid, (int) (sizeof(ggml_types) / sizeof(ggml_types[0]))); /* the rest are removed ids */
    assert_false(vnpu_type_is_valid(VNPU_TYPE_COUNT));
    assert_string_equal(vnpu_type_name((enum vnpu_type) 4), "?");
}

/* Names round-trip through vnpu_type_from_name, in any case; removed ids have none. */
static void test_names_round_trip(void **state) {
    (void) state;
    for (int t = 0; t < VNPU_TYPE_COUNT; t++) {
        const struct vnpu_type_traits *tt = vnpu_type_traits_get((enum vnpu_type) t);
        if (!vnpu_type_is_valid((uint32_t) t)) {
            assert_null(tt->name);
            assert_int_equal(tt->blck, 0);
            continue;
        }
        enum vnpu_type back = VNPU_TYPE_COUNT;
        assert_true(vnpu_type_from_name(tt->name, &back));
        assert_int_equal(back, t);
        assert_string_equal(vnpu_type_name((enum vnpu_type) t), tt->name);
        char upper[32];
        snprintf(upper, sizeof(upper), "%s", tt->name);
        for (char *c = upper; *c; c++) {
            *c = (char) (*c >= 'a' && *c <= 'z' ? *c - 'a' + 'A' : *c);
        }
        back = VNPU_TYPE_COUNT;
        assert_true(vnpu_type_from_name(upper, &back));
        assert_int_equal(back, t);
    }
    enum vnpu_type t;
    assert_false(vnpu_type_from_name("q4_2", &t));
    assert_false(vnpu_type_from_name("", &t));
}

/* ---- Per-type round trips, one cmocka test per convertible row of the table ---------------------- */

struct rt_buf {
    uint8_t *q; /* ROW_NE elements quantized, then GUARD sentinel bytes */
    float *y;   /* ROW_NE floats, then GUARD sentinel bytes */
    size_t qsize;
};

static struct rt_buf rt_alloc(enum vnpu_type t) {
    struct rt_buf b;
    b.qsize = vnpu_row_size(t, ROW_NE);
    b.q = malloc(b.qsize + GUARD);
    b.y = malloc(ROW_NE * sizeof(float) + GUARD);
    assert_non_null(b.q);
    assert_non_null(b.y);
    return b;
}

static void rt_free(struct rt_buf *b) {
    free(b->q);
    free(b->y);
}

/* quant then dequant x into b->y; asserts the sentinels after both outputs survived. */
static void rt_run(enum vnpu_type t, const float *x, struct rt_buf *b) {
    const struct vnpu_type_traits *tt = vnpu_type_traits_get(t);
    memset(b->q, SENTINEL, b->qsize + GUARD);
    memset(b->y, SENTINEL, ROW_NE * sizeof(float) + GUARD);
    tt->from_f32_ref(x, b->q, ROW_NE);
    tt->to_f32(b->q, b->y, ROW_NE);
    for (int i = 0; i < GUARD; i++) {
        if (b->q[b->qsize + i] != SENTINEL || ((uint8_t *) (b->y + ROW_NE))[i] != SENTINEL) {
            fail_msg("%s: a row function wrote %d bytes past its output", tt->name, i + 1);
        }
    }
}

/* ||y - x|| / ||x|| over [i0, i1) */
static double rel_rmse(const float *x, const float *y, int i0, int i1) {
    double e = 0.0, s = 0.0;
    for (int i = i0; i < i1; i++) {
        e += ((double) y[i] - x[i]) * ((double) y[i] - x[i]);
        s += (double) x[i] * x[i];
    }
    return sqrt(e / s);
}

static void test_rmse(void **state) {
    const enum vnpu_type t = *(const enum vnpu_type *) *state;
    const struct vnpu_type_traits *tt = vnpu_type_traits_get(t);
    struct test_rng rng;
    test_rng_seed(&rng, tt->name);
    float *x = malloc(ROW_NE * sizeof(float));
    assert_non_null(x);
    struct rt_buf b = rt_alloc(t);
    double worst = 0.0;
    for (int r = 0; r < N_ROWS; r++) {
        for (int i = 0; i < ROW_NE; i++) {
            x[i] = test_rng_normal(&rng, 1.0f);
        }
        rt_run(t, x, &b);
        const double e = rel_rmse(x, b.y, 0, ROW_NE);
        worst = e > worst ? e : worst;
        if (!(e <= tt->rmse_max)) {
            fail_msg("%s: row %d rel. RMSE %.6g > rmse_max %.6g", tt->name, r, e, (double) tt->rmse_max);
        }
    }
    printf("  %-7s rel. RMSE on N(0,1): worst of %d rows %.6g (rmse_max %.6g)\n", tt->name, N_ROWS, worst,
           (double) tt->rmse_max);
    rt_free(&b);
    free(x);
}

static void test_special_rows(void **state) {
    const enum vnpu_type t = *(const enum vnpu_type *) *state;
    const struct vnpu_type_traits *tt = vnpu_type_traits_get(t);
    float *x = malloc(ROW_NE * sizeof(float));
    assert_non_null(x);
    struct rt_buf b = rt_alloc(t);

    /* zeros come back as zeros */
    memset(x, 0, ROW_NE * sizeof(float));
    rt_run(t, x, &b);
    for (int i = 0; i < ROW_NE; i++) {
        if (b.y[i] != 0.0f) {
            fail_msg("%s: zero row, element %d dequantizes to %g", tt->name, i, (double) b.y[i]);
        }
    }

    /* a constant row comes back as one value of the same sign, within the coarsest step of these formats:
     * 25%, MXFP4's gap between 6 * 2^e and 8 * 2^e (one value can sit anywhere in a step, so rmse_max,
     * an average over N(0, 1), does not bound it) */
    const float constants[] = {0.37f, -2.5f, 1000.0f, 127.99f};
    for (size_t c = 0; c < sizeof(constants) / sizeof(constants[0]); c++) {
        for (int i = 0; i < ROW_NE; i++) {
            x[i] = constants[c];
        }
        rt_run(t, x, &b);
        for (int i = 0; i < ROW_NE; i++) {
            if (b.y[i] != b.y[0]) {
                fail_msg("%s: constant row %g: element %d is %g, element 0 %g", tt->name, (double) constants[c], i,
                         (double) b.y[i], (double) b.y[0]);
            }
        }
        const double rel = fabs((double) b.y[0] - constants[c]) / fabs((double) constants[c]);
        if (!(rel <= 0.25) || (b.y[0] > 0.0f) != (constants[c] > 0.0f)) {
            fail_msg("%s: constant row %g comes back as %g", tt->name, (double) constants[c], (double) b.y[0]);
        }
    }

    /* one huge outlier: its block takes the damage, finite and of the right sign; the others do not */
    struct test_rng rng;
    test_rng_seed(&rng, tt->name);
    for (int sign = -1; sign <= 1; sign += 2) {
        for (int i = 0; i < ROW_NE; i++) {
            x[i] = test_rng_normal(&rng, 1.0f);
        }
        x[OUTLIER_I] = (float) sign * OUTLIER;
        rt_run(t, x, &b);
        const int b0 = (int) (OUTLIER_I / tt->blck * tt->blck), b1 = b0 + (int) tt->blck;
        for (int i = b0; i < b1; i++) {
            assert_true(isfinite(b.y[i]));
        }
        assert_true((b.y[OUTLIER_I] > 0.0f) == (sign > 0));
        const double e_before = rel_rmse(x, b.y, 0, b0), e_after = rel_rmse(x, b.y, b1, ROW_NE);
        if (!(e_before <= tt->rmse_max && e_after <= tt->rmse_max)) {
            fail_msg("%s: outlier %g at %d changes other blocks: rel. RMSE %.6g before, %.6g after its block", tt->name,
                     (double) x[OUTLIER_I], OUTLIER_I, e_before, e_after);
        }
    }

    /* NaN and inf are outside the contract (GGML refuses them too): the bytes are unspecified, but the row
     * functions must not crash or write past their output (the sentinels; UBSan in the sanitizer build) */
    for (int i = 0; i < ROW_NE; i++) {
        x[i] = i % 3 == 0 ? NAN : i % 3 == 1 ? INFINITY : -INFINITY;
    }
    rt_run(t, x, &b);
    for (int i = 0; i < ROW_NE; i++) {
        x[i] = i % 97 == 0 ? (i % 2 ? NAN : -INFINITY) : test_rng_normal(&rng, 1.0f);
    }
    rt_run(t, x, &b);
    rt_free(&b);
    free(x);
}

/* ---- Formats checked against their definitions ---------------------------------------------------- */

/* Q1_0 (id 41): 128 weights, fp16 d + 16 bytes of sign bits; bit j % 8 of byte j / 8 set means +d. */
static void test_q1_0_definition(void **state) {
    (void) state;
    /* dequantize: two blocks, d = 0.5 (0x3800) and -3 (0xc200), known bits */
    block_q1_0 blk[2];
    blk[0].d = 0x3800;
    blk[1].d = 0xc200;
    for (int i = 0; i < QK1_0 / 8; i++) {
        blk[0].qs[i] = (uint8_t) (0xa5 ^ i);
        blk[1].qs[i] = (uint8_t) (i * 17);
    }
    float y[2 * QK1_0];
    q1_0_dequant_row(blk, y, 2 * QK1_0);
    assert_true(y[0] == 0.5f && y[1] == -0.5f && y[2] == 0.5f && y[5] == 0.5f && y[6] == -0.5f); /* 0xa5 */
    for (int j = 0; j < 2 * QK1_0; j++) {
        const int bl = j / QK1_0, e = j % QK1_0;
        const int bit = (blk[bl].qs[e / 8] >> (e % 8)) & 1;
        const float d = bl == 0 ? 0.5f : -3.0f;
        assert_true(y[j] == (bit ? d : -d));
    }

    /* quantize: |x| in {1, 1.25, 1.5, 1.75} (mean 1.375 = fp16 0x3d80), signs from a known pattern;
     * x = 0 and x = -0 both count as non-negative (GGML's x >= 0) */
    static const uint8_t signs[QK1_0 / 8] = {0x00, 0xff, 0x0f, 0xf0, 0x55, 0xaa, 0x01, 0x80,
                                             0x3c, 0xc3, 0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc};
    float x[QK1_0];
    for (int j = 0; j < QK1_0; j++) {
        const float mag = 1.0f + 0.25f * (float) (j % 4);
        x[j] = (signs[j / 8] >> (j % 8)) & 1 ? mag : -mag;
    }
    block_q1_0 q[2];
    memset(q, SENTINEL, sizeof(q));
    q1_0_quant_row_ref(x, q, QK1_0);
    assert_int_equal(q[0].d, 0x3d80);
    assert_memory_equal(q[0].qs, signs, sizeof(signs));
    assert_int_equal(((const uint8_t *) &q[1])[0], SENTINEL);

    float z[QK1_0] = {0};
    z[3] = -0.0f;
    z[9] = -1.0f;
    q1_0_quant_row_ref(z, q, QK1_0);
    assert_int_equal(q[0].d, 0x2000); /* 1 / 128 = 2^-7 */
    assert_int_equal(q[0].qs[0], 0xff);
    assert_int_equal(q[0].qs[1], 0xfd);
}

/* Q2_0 (id 42): 64 weights, fp16 d + 16 bytes of 2-bit codes (element j at bits 2 * (j % 4) of byte
 * j / 4), value (code - 1) * d; the quantizer's d is max |x|. */
static void test_q2_0_definition(void **state) {
    (void) state;
    /* dequantize: d = 0.25 (0x3400); byte 0 = 0xe4 holds codes 0, 1, 2, 3 */
    block_q2_0 blk;
    blk.d = 0x3400;
    for (int i = 0; i < QK2_0 / 4; i++) {
        blk.qs[i] = (uint8_t) (0xe4 + 29 * i);
    }
    float y[QK2_0];
    q2_0_dequant_row(&blk, y, QK2_0);
    assert_true(y[0] == -0.25f && y[1] == 0.0f && y[2] == 0.25f && y[3] == 0.5f);
    for (int j = 0; j < QK2_0; j++) {
        const int code = (blk.qs[j / 4] >> (2 * (j % 4))) & 3;
        assert_true(y[j] == (float) (code - 1) * 0.25f);
    }

    /* quantize: max |x| = 2.5 (fp16 0x4100); x / d = -1, 0, +1 give codes 0, 1, 2; halfway values round
     * away from zero (roundf): +0.5 d -> 2, -0.5 d -> 0; +2 d cannot occur since |x| <= d */
    static const float r[8] = {-1.0f, 0.0f, 1.0f, 0.5f, -0.5f, 0.49f, -0.49f, 1.0f};
    static const uint8_t codes[8] = {0, 1, 2, 2, 0, 1, 1, 2};
    float x[QK2_0];
    uint8_t want[QK2_0 / 4] = {0};
    for (int j = 0; j < QK2_0; j++) {
        x[j] = 2.5f * r[(j + j / 8) % 8];
        want[j / 4] |= (uint8_t) (codes[(j + j / 8) % 8] << (2 * (j % 4)));
    }
    assert_int_equal(want[0], 0xa4); /* codes 0, 1, 2, 2 */
    block_q2_0 q[2];
    memset(q, SENTINEL, sizeof(q));
    q2_0_quant_row_ref(x, q, QK2_0);
    assert_int_equal(q[0].d, 0x4100);
    assert_memory_equal(q[0].qs, want, sizeof(want));
    assert_int_equal(((const uint8_t *) &q[1])[0], SENTINEL);

    float z[QK2_0] = {0};
    q2_0_quant_row_ref(z, q, QK2_0);
    assert_int_equal(q[0].d, 0);
    for (int i = 0; i < QK2_0 / 4; i++) {
        assert_int_equal(q[0].qs[i], 0x55); /* code 1 (value 0) everywhere */
    }
}

/* Q8_K: d = max / -127 for the signed element of largest magnitude (f32), q = round(x / d) capped at
 * 127, bsums = sums of 16 q. */
static void test_q8_K_definition(void **state) {
    (void) state;
    /* x = q / 50 with known integer q, the largest magnitude -127 / 50: d = 1 / 50, q comes back */
    int want_q[2][QK_K];
    float x[2 * QK_K];
    for (int s = 0; s < 2; s++) { /* block 0 has a negative max, block 1 a positive one: q flips sign */
        for (int j = 0; j < QK_K; j++) {
            const int q = (j * 37 + 11) % 253 - 126; /* -126..126 */
            x[s * QK_K + j] = (float) q / 50.0f;
            want_q[s][j] = s == 0 ? q : -q;
        }
        x[s * QK_K + 77] = s == 0 ? -127.0f / 50.0f : 127.0f / 50.0f;
        want_q[s][77] = -127;
    }
    block_q8_K q[3];
    memset(q, SENTINEL, sizeof(q));
    q8_K_quant_row_ref(x, q, 2 * QK_K);
    assert_int_equal(((const uint8_t *) &q[2])[0], SENTINEL);
    for (int s = 0; s < 2; s++) {
        const float max = x[s * QK_K + 77];
        assert_true(q[s].d == 1.0f / (-127.0f / max));
        assert_true(fabsf(fabsf(q[s].d) - 0.02f) < 1e-6f);
        for (int j = 0; j < QK_K; j++) {
            assert_int_equal(q[s].qs[j], want_q[s][j]);
        }
        for (int g = 0; g < QK_K / 16; g++) {
            int sum = 0;
            for (int l = 0; l < 16; l++) {
                sum += want_q[s][16 * g + l];
            }
            assert_int_equal(q[s].bsums[g], sum);
        }
    }
    float y[2 * QK_K];
    q8_K_dequant_row(q, y, 2 * QK_K);
    for (int s = 0; s < 2; s++) {
        for (int j = 0; j < QK_K; j++) {
            assert_true(y[s * QK_K + j] == q[s].d * (float) want_q[s][j]);
        }
    }

    /* a block of zeros: d = 0, q = 0, bsums = 0 */
    memset(x, 0, sizeof(x));
    memset(q, SENTINEL, sizeof(q));
    q8_K_quant_row_ref(x, q, QK_K);
    block_q8_K zero;
    memset(&zero, 0, sizeof(zero));
    assert_memory_equal(&q[0], &zero, sizeof(zero));
}

/* MXFP4: x = 2^(e - 127) * E2M1(q) (OCP MX v1.0): E2M1 has a sign bit, 2 exponent bits (bias 1) and one
 * mantissa bit; kvalues_mxfp4 holds twice those values and e8m0_to_f32_half halves the scale. */
static void test_mxfp4_definition(void **state) {
    (void) state;
    for (int i = 0; i < 16; i++) {
        const int e = (i >> 1) & 3, m = i & 1;
        const double e2m1 = (e == 0 ? 0.5 * m : (1.0 + 0.5 * m) * ldexp(1.0, e - 1)) * (i & 8 ? -1 : 1);
        assert_true((double) kvalues_mxfp4[i] == 2.0 * e2m1);
    }
    for (int e = 0; e < 256; e++) {
        assert_true((double) e8m0_to_f32_half((uint8_t) e) == ldexp(1.0, e - 128));
    }
    block_mxfp4 blk = {.e = 127};
    for (int j = 0; j < QK_MXFP4 / 2; j++) {
        blk.qs[j] = (uint8_t) (j | (15 - j) << 4);
    }
    float y[QK_MXFP4];
    mxfp4_dequant_row(&blk, y, QK_MXFP4);
    assert_true(y[0] == 0.0f && y[1] == 0.5f && y[7] == 6.0f && y[QK_MXFP4 / 2] == -6.0f && y[15] == -6.0f);
    for (int j = 0; j < QK_MXFP4 / 2; j++) {
        assert_true(y[j] == (float) kvalues_mxfp4[j] * 0.5f);
        assert_true(y[j + QK_MXFP4 / 2] == (float) kvalues_mxfp4[15 - j] * 0.5f);
    }
}

/* IQ4_NL: x = d * kvalues_iq4nl[q], element j in the low nibble of byte j, j + 16 in the high nibble; the
 * levels are sorted (the quantizer's nearest-level search needs it). */
static void test_iq4_nl_definition(void **state) {
    (void) state;
    for (int i = 1; i < 16; i++) {
        assert_true(kvalues_iq4nl[i - 1] < kvalues_iq4nl[i]);
    }
    block_iq4_nl blk = {.d = 0xb800}; /* -0.5 */
    for (int j = 0; j < QK4_NL / 2; j++) {
        blk.qs[j] = (uint8_t) ((j * 7) % 16 | ((j * 5 + 3) % 16) << 4);
    }
    float y[QK4_NL];
    iq4_nl_dequant_row(&blk, y, QK4_NL);
    for (int j = 0; j < QK4_NL / 2; j++) {
        assert_true(y[j] == -0.5f * (float) kvalues_iq4nl[(j * 7) % 16]);
        assert_true(y[j + QK4_NL / 2] == -0.5f * (float) kvalues_iq4nl[(j * 5 + 3) % 16]);
    }
}

int main(void) {
    static enum vnpu_type types[VNPU_TYPE_COUNT];
    static char names[2][VNPU_TYPE_COUNT][48];
    static struct CMUnitTest tests[2 * VNPU_TYPE_COUNT + 8];
    size_t n = 0;
    tests[n++] = (struct CMUnitTest) cmocka_unit_test(test_table_matches_ggml);
    tests[n++] = (struct CMUnitTest) cmocka_unit_test(test_names_round_trip);
    for (int t = 0; t < VNPU_TYPE_COUNT; t++) {
        const struct vnpu_type_traits *tt = vnpu_type_traits_get((enum vnpu_type) t);
        if (!tt->to_f32 || !tt->from_f32_ref) {
            continue;
        }
        types[t] = (enum vnpu_type) t;
        snprintf(names[0][t], sizeof(names[0][t]), "rmse(type=%s)", tt->name);
        snprintf(names[1][t], sizeof(names[1][t]), "special_rows(type=%s)", tt->name);
        tests[n++] = (struct CMUnitTest){names[0][t], test_rmse, NULL, NULL, &types[t]};
        tests[n++] = (struct CMUnitTest){names[1][t], test_special_rows, NULL, NULL, &types[t]};
    }
    tests[n++] = (struct CMUnitTest) cmocka_unit_test(test_q1_0_definition);
    tests[n++] = (struct CMUnitTest) cmocka_unit_test(test_q2_0_definition);
    tests[n++] = (struct CMUnitTest) cmocka_unit_test(test_q8_K_definition);
    tests[n++] = (struct CMUnitTest) cmocka_unit_test(test_mxfp4_definition);
    tests[n++] = (struct CMUnitTest) cmocka_unit_test(test_iq4_nl_definition);
    return _cmocka_run_group_tests("test-quants", tests, n, NULL, NULL);
}
