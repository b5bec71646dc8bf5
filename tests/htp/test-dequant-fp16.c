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
    for (uint32_t t = 0; t < n_tiles; t++) {
        const uint8_t *sb = vt_raw + (size_t) (t - t % g.tiles_per_block) * g.aligned_size;
        fn(vt_raw + (size_t) t * g.aligned_size, sb, g.aligned_size,
           (uint8_t *) vt_tiles + (size_t) t * per_tile * HMX_TILE_BYTES);
    }

    float *want = malloc(sizeof(float) * K * 32);
    for (uint32_t t = 0; t < n_tiles; t++) {
        repack_dequant_tile(type, row, t, ref);
        for (uint32_t n = 0; n < 32; n++) {
            for (uint32_t k = 0; k < g.k_cols; k++) {
                want[n * K + t * g.k_cols + k] = ref[n * g.k_cols + k];
            }
        }
    }
    for (uint32_t n = 0; n < 32; n++) {
        float rowmax = 0.0f;
        for (uint32_t k = 0; k < K; k++) {
            rowmax = fmaxf(rowmax, fabsf(want[n * K + k]));
        }
        for (uint32_t k = 0; k < K; k++) {
            const vnpu_fp16_t got = vt_tiles[(k / 32) * HMX_TILE_HALVES + hmx_tile_index(k % 32, n)];
            const vnpu_fp16_t fp16 = vnpu_f32_to_fp16(want[n * K + k]);
            if (!fp16_close(got, fp16, rowmax) || (n >= VALID && (got & 0x7FFF) != 0)) {
                fail_msg("%s row %u column %u: 0x%04x, the tile holds %a (FP16 0x%04x)", vnpu_type_name(type), n, k,
                         got, (double) want[n * K + k], fp16);
            }
        }
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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tiled_types),
        cmocka_unit_test(test_float_weights),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
