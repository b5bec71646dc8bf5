/*
 * The HMX path's weight expansions (src/htp/hvx-dequant-fp16.h) on the float path of the arch this test is built for
 * (test-dequant-fp16-v69: qf32; test-dequant-fp16-v79: IEEE sf), each against a scalar reference:
 *   - every tiled type: weights quantized with GGML's reference, repacked by src/repack, a tile row (with padding
 *     rows) laid out as the weight DMA lays it in VTCM (tiles at the aligned stride), expanded tile by tile; element
 * (k, n) of each FP16 tile, at hmx.h's position, holds the tile's value from repack_dequant_tile rounded once to FP16
 * (nearest even): bit for bit on the IEEE path, on the qf32 path within an FP16 ulp (its f32 products and sums may land
 * an ulp off, across a tie) and a residue where a min cancels a product.
 *   - F16 and F32 weights: rows laid out in 32-element pieces as the DMA lays them; the FP16 tile holds every element
 *     (F16: its bits; F32: rounded to nearest even).
 *   - the FP16 range counts (src/htp/hvx-fp16-range.h): a tiled expansion's (nothing lost, its largest magnitude), and
 *     values at both ends of FP16's range against the scalar narrowing.
 */
#include "test-common.h"

#include "fp16.h"
#include "hmx.h"
#include "hvx-dequant-fp16.h"
#include "repack.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define K     512 /* a multiple of every type's K_cols and super-block */
#define ROWS  45  /* tile row 1 has 13 weight rows and 19 padding rows */
#define CT    1
#define VALID (ROWS - 32 * CT)

static uint8_t vt_raw[K / 32 * HTP_TENSOR_TILE_ALIGNED_SIZE_Q8_0]
    __attribute__((aligned(128)));                                                /* a tile row as DMA'd */
static uint16_t vt_tiles[K / 32 * HMX_TILE_HALVES] __attribute__((aligned(128))); /* its FP16 tiles */

/* Whether got is want (IEEE path) or, on the qf32 path, within an FP16 ulp of it plus 2^-20 of the row's largest
 * magnitude: its f32 products and sums may land an ulp off (so across an FP16 rounding tie), and a min cancelling a
 * product may leave a residue of the operands' last bits. */
static bool fp16_close(vnpu_fp16_t got, vnpu_fp16_t want, float rowmax) {
    if (HTP_ARCH_IEEE_SF || ((got | want) & 0x7FFF) == 0) {
        return got == want || ((got | want) & 0x7FFF) == 0;
    }
    const float w = vnpu_fp16_to_f32(want), ulp = fmaxf(0x1p-24f, 0x1p-10f * exp2f(floorf(log2f(fabsf(w)))));
    return fabsf(vnpu_fp16_to_f32(got) - w) <= ulp + 0x1p-20f * rowmax;
}

static void check_type(enum vnpu_type type, struct test_rng *rng) {
    struct htp_tile_geom g = {0, 0, 0, 0};
    hvx_fp16_wtile_fn fn = NULL;
    assert_true(htp_tile_geom_get((enum htp_type) type, &g));
    assert_true(hvx_fp16_wtile_get((uint32_t) type, &fn));
    const int64_t ne[4] = {K, ROWS, 1, 1};
    const size_t flat_size = vnpu_row_size(type, K) * ROWS, tiled_size = repack_nbytes(type, ne);
    float *x = malloc(sizeof(float) * K * ROWS), *ref = malloc(sizeof(float) * 32 * g.k_cols);
    uint8_t *flat = malloc(flat_size), *tiles = malloc(tiled_size);
    test_rng_fill_normal(rng, x, (size_t) K * ROWS, 1.0f);
    vnpu_type_traits_get(type)->from_f32_ref(x, flat, (int64_t) K * ROWS);
    assert_int_equal(repack_tensor(type, ne, flat, flat_size, tiles, tiled_size, 1), VNPU_STATUS_OK);

    const uint32_t n_tiles = K / g.k_cols, per_tile = g.k_cols / 32;
    const uint8_t *row = tiles + (size_t) CT * n_tiles * g.size;
    memset(vt_raw, 0xFF, sizeof(vt_raw)); /* the gaps of the aligned stride are junk */
    for (uint32_t t = 0; t < n_tiles; t++) {
        memcpy(vt_raw + (size_t) t * g.aligned_size, row + (size_t) t * g.size, g.size);
    }
    static struct hvx_fp16_range range[1][HTP_FP16_N];
    hvx_fp16_range_clear(&range[0][HTP_FP16_SRC0]);
    for (uint32_t t = 0; t < n_tiles; t++) {
        const uint8_t *sb = vt_raw + (size_t) (t - t % g.tiles_per_block) * g.aligned_size;
        fn(vt_raw + (size_t) t * g.aligned_size, sb, g.aligned_size,
           (uint8_t *) vt_tiles + (size_t) t * per_tile * HMX_TILE_BYTES, &range[0][HTP_FP16_SRC0]);
    }
    struct htp_fp16_range got_range;
    hvx_fp16_range_reduce(range, 1, HTP_FP16_SRC0, &got_range);

    float *want = malloc(sizeof(float) * K * 32);
    for (uint32_t t = 0; t < n_tiles; t++) {
        repack_dequant_tile(type, row, t, ref);
        for (uint32_t n = 0; n < 32; n++) {
            for (uint32_t k = 0; k < g.k_cols; k++) {
                want[n * K + t * g.k_cols + k] = ref[n * g.k_cols + k];
            }
        }
    }
    float max_abs = 0.0f;
    for (uint32_t n = 0; n < 32; n++) {
        float rowmax = 0.0f;
        for (uint32_t k = 0; k < K; k++) {
            rowmax = fmaxf(rowmax, fabsf(want[n * K + k]));
        }
        max_abs = fmaxf(max_abs, rowmax);
        for (uint32_t k = 0; k < K; k++) {
            const vnpu_fp16_t got = vt_tiles[(k / 32) * HMX_TILE_HALVES + hmx_tile_index(k % 32, n)];
            const vnpu_fp16_t fp16 = vnpu_f32_to_fp16(want[n * K + k]);
            if (!fp16_close(got, fp16, rowmax) || (n >= VALID && (got & 0x7FFF) != 0)) {
                fail_msg("%s row %u column %u: 0x%04x, the tile holds %a (FP16 0x%04x)", vnpu_type_name(type), n, k,
                         got, (double) want[n * K + k], fp16);
            }
        }
    }
    /* N(0, 1) weights stay inside FP16's range; the largest narrowed is the tile row's largest (its padding rows 0) */
    assert_int_equal(got_range.n_overflow, 0);
    assert_int_equal(got_range.n_flush, 0);
    if (fabsf(got_range.max_abs - max_abs) > 0x1p-20f * max_abs) {
        fail_msg("%s: largest magnitude %a, the tile row's %a", vnpu_type_name(type), (double) got_range.max_abs,
                 (double) max_abs);
    }
    free(want);
    free(x);
    free(ref);
    free(flat);
    free(tiles);
}

static void test_tiled_types(void **state) {
    (void) state;
    static const enum vnpu_type types[] = {
        VNPU_TYPE_Q4_0, VNPU_TYPE_Q4_1, VNPU_TYPE_Q8_0, VNPU_TYPE_IQ4_NL, VNPU_TYPE_MXFP4, VNPU_TYPE_Q1_0,
        VNPU_TYPE_Q2_0, VNPU_TYPE_Q2_K, VNPU_TYPE_Q3_K, VNPU_TYPE_Q4_K,   VNPU_TYPE_Q5_K,  VNPU_TYPE_Q6_K,
    };
    struct test_rng rng;
    test_rng_seed(&rng, "dequant_fp16_tiled");
    int n_tiled = 0;
    for (int type = 0; type < VNPU_TYPE_COUNT; type++) {
        hvx_fp16_wtile_fn fn;
        n_tiled += hvx_fp16_wtile_get((uint32_t) type, &fn);
    }
    assert_int_equal(n_tiled, (int) (sizeof(types) / sizeof(types[0]))); /* a new tiled type: add it above */
    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
        check_type(types[i], &rng);
    }
}

/* F16 and F32 weights: 32 rows of one tile, row n's 32 elements at n * 32 * size. */
static void test_float_weights(void **state) {
    (void) state;
    struct test_rng rng;
    test_rng_seed(&rng, "dequant_fp16_float");
    float w[32][32];
    test_rng_fill_normal(&rng, &w[0][0], 32 * 32, 1.0f);
    w[3][7] = 1e5f;  /* beyond FP16: infinity */
    w[4][8] = 3e-6f; /* an FP16 subnormal */
    for (int f32 = 0; f32 < 2; f32++) {
        for (int n = 0; n < 32; n++) {
            for (int k = 0; k < 32; k++) {
                if (f32) {
                    memcpy(vt_raw + (size_t) (n * 32 + k) * 4, &w[n][k], 4);
                } else {
                    const vnpu_fp16_t h = vnpu_f32_to_fp16(w[n][k]);
                    memcpy(vt_raw + (size_t) (n * 32 + k) * 2, &h, 2);
                }
            }
        }
        (f32 ? hvx_fp16_wtile_f32 : hvx_fp16_wtile_f16)(vt_raw, (uint8_t *) vt_tiles);
        for (uint32_t n = 0; n < 32; n++) {
            for (uint32_t k = 0; k < 32; k++) {
                assert_int_equal(vt_tiles[hmx_tile_index(k, n)], vnpu_f32_to_fp16(w[n][k]));
            }
        }
    }
}

/* The FP16 range counts (hvx-fp16-range.h) of values at both ends of FP16's range, each against what the scalar
 * narrowing to FP16 (nearest even) does to it: an overflow is a finite value that becomes an infinity, a flush a
 * nonzero value that becomes a zero; infinities and NaNs count as neither and are no magnitude; the results' counts
 * take only valid lanes' infinities. */
static void test_range(void **state) {
    (void) state;
    static const float edge[] = {65504.0f, 65519.996f, 65520.0f, -65520.0f,     1e5f,     3.4e38f,   -INFINITY,
                                 INFINITY, NAN,        0.0f,     -0.0f,         0x1p-25f, -0x1p-25f, 0x1.000002p-25f,
                                 0x1p-24f, 1e-45f,     -1e-40f,  5.9604645e-8f, 1.0f,     -2.5f,     3e-6f};
    const size_t n_edge = sizeof(edge) / sizeof(edge[0]);
    static float v[2][32] __attribute__((aligned(128)));
    static struct hvx_fp16_range range[2][HTP_FP16_N];
    uint32_t over = 0, flush = 0;
    float max_abs = 0.0f;
    for (int w = 0; w < 2; w++) {
        for (int i = 0; i < 32; i++) {
            v[w][i] = edge[(size_t) (w * 32 + i) % n_edge];
        }
        const struct hvx_fp16_range_k k = hvx_fp16_range_k();
        hvx_fp16_range_clear(&range[w][HTP_FP16_SRC1]);
        hvx_fp16_range_add(&range[w][HTP_FP16_SRC1], &k, hvx_vmem_ld(v[w]));
        for (int i = 0; i < 32; i++) {
            const float x = v[w][i], h = vnpu_fp16_to_f32(vnpu_f32_to_fp16(x));
            over += isfinite(x) && isinf(h);
            flush += x != 0.0f && h == 0.0f;
            max_abs = isfinite(x) ? fmaxf(max_abs, fabsf(x)) : max_abs;
        }
    }
    struct htp_fp16_range got;
    hvx_fp16_range_reduce(range, 2, HTP_FP16_SRC1, &got);
    assert_int_equal(got.n_overflow, over);
    assert_int_equal(got.n_flush, flush);
    assert_true(over >= 6 && flush >= 6); /* both ends reached, over both workers */
    assert_float_equal(got.max_abs, max_abs, 0.0f);

    /* results: lanes 0 .. 4 valid, an infinity in lanes 1 (valid) and 7 (not), 65504 in lane 9 (not) */
    static float res[32] __attribute__((aligned(128)));
    res[1] = -INFINITY;
    res[2] = 100.0f;
    res[3] = NAN;
    res[7] = INFINITY;
    res[9] = 65504.0f;
    const struct hvx_fp16_range_k k = hvx_fp16_range_k();
    hvx_fp16_range_clear(&range[0][HTP_FP16_DST]);
    hvx_fp16_range_add_results(&range[0][HTP_FP16_DST], &k, hvx_vmem_ld(res), Q6_Q_vsetq2_R(5 * sizeof(float)));
    hvx_fp16_range_reduce(range, 1, HTP_FP16_DST, &got);
    assert_int_equal(got.n_overflow, 1);
    assert_int_equal(got.n_flush, 0);
    assert_float_equal(got.max_abs, 100.0f, 0.0f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tiled_types),
        cmocka_unit_test(test_float_weights),
        cmocka_unit_test(test_range),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
