/*
 * HMX FP16 tiles (hmx.h) against a scalar reference. The reference packs row-major matrices into tiles
 * the way kernels do, with HVX shuffles (Q6_W_vshuff_VVR for two activation rows, Q6_Vh_vshuff_Vh for a
 * weight row pair) and not with hmx_tile_index, widens and narrows halves with GGML's conversions
 * (src/base/fp16.c), and accumulates in FP32 in the documented order. Hand-derived values pin the
 * order of the FP32 additions and the FP16 rounding of the store (ties, overflow, subnormals, NaN).
 */
#include "fp16.h"
#include "hmx.h"
#include "hvx.h"
#include "test-common.h"

#include <math.h>
#include <string.h>

#define N_TILES 4 /* K = 128 */
#define K_TOTAL (N_TILES * HMX_TILE_COLS)

static uint16_t act_rows[HMX_TILE_ROWS][K_TOTAL]; /* A[m][k] */
static uint16_t wt_rows[K_TOTAL][HMX_TILE_COLS];  /* W[k][n] */
static uint16_t act_tiles[N_TILES * HMX_TILE_HALVES] __attribute__((aligned(128)));
static uint16_t wt_tiles[N_TILES * HMX_TILE_HALVES] __attribute__((aligned(128)));
static uint32_t col_scales[HMX_SCALES_BYTES / 4] __attribute__((aligned(128)));

/* Activation rows 2i and 2i+1, 64 halves at a time, shuffled into vector i of tiles t and t + 1. */
static void pack_act_tiles(void) {
    for (int t = 0; t < N_TILES; t += 2) {
        for (int i = 0; i < HMX_TILE_ROWS / 2; i++) {
            const HVX_Vector r0 = hvx_vmemu_ld(&act_rows[2 * i][t * HMX_TILE_COLS]);
            const HVX_Vector r1 = hvx_vmemu_ld(&act_rows[2 * i + 1][t * HMX_TILE_COLS]);
            const HVX_VectorPair p = Q6_W_vshuff_VVR(r1, r0, -2);
            hvx_vmem_st(&act_tiles[t * HMX_TILE_HALVES + i * 64], Q6_V_lo_W(p));
            hvx_vmem_st(&act_tiles[(t + 1) * HMX_TILE_HALVES + i * 64], Q6_V_hi_W(p));
        }
    }
}

/* Weight rows 2i and 2i+1 of a tile are 64 consecutive halves; vshuff interleaves its two halves. */
static void pack_wt_tiles(void) {
    for (int t = 0; t < N_TILES; t++) {
        for (int i = 0; i < HMX_TILE_ROWS / 2; i++) {
            const HVX_Vector rows = hvx_vmemu_ld(&wt_rows[t * HMX_TILE_ROWS + 2 * i][0]);
            hvx_vmem_st(&wt_tiles[t * HMX_TILE_HALVES + i * 64], Q6_Vh_vshuff_Vh(rows));
        }
    }
}

/* An output tile back to row-major: vdeal splits vector i into rows 2i and 2i+1. */
static void unpack_out_tile(const uint16_t *tile, uint16_t out[HMX_TILE_ROWS][HMX_TILE_COLS]) {
    for (int i = 0; i < HMX_TILE_ROWS / 2; i++) {
        hvx_vmemu_st(&out[2 * i][0], Q6_Vh_vdeal_Vh(hvx_vmem_ld(&tile[i * 64])));
    }
}

static float h2f(uint16_t h) {
    return vnpu_fp16_to_f32((vnpu_fp16_t) h);
}

/* FP32 to FP16 as HMX stores it: round to nearest even, overflow to infinity, NaN canonical 0x7FFF. */
static uint16_t f2h(float f) {
    return isnan(f) ? 0x7FFF : (uint16_t) vnpu_f32_to_fp16(f);
}

/* The model of hmx.h, row-major: products exact, one FP32 rounding per addition, k ascending. */
static void reference(float acc[HMX_TILE_ROWS][HMX_TILE_COLS], uint16_t out[HMX_TILE_ROWS][HMX_TILE_COLS]) {
    for (int m = 0; m < HMX_TILE_ROWS; m++) {
        for (int n = 0; n < HMX_TILE_COLS; n++) {
            float a = 0.0f;
            for (int k = 0; k < K_TOTAL; k++) {
                a += h2f(act_rows[m][k]) * h2f(wt_rows[k][n]);
            }
            acc[m][n] = a;
            const float scale = h2f((uint16_t) col_scales[n]), bias = h2f((uint16_t) (col_scales[n] >> 16));
            const float scaled = acc[m][n] * scale;
            out[m][n] = f2h(scaled + bias);
        }
    }
}

/* Random halves of magnitude about 2^-8 .. 2^4 with, one in 16, an edge value; with specials, one in 1024 an infinity
 * or a NaN (quiet, signalling, with payloads) too. */
static uint16_t random_half(struct test_rng *rng, int specials) {
    static const uint16_t edges[] = {0x0000, 0x8000, 0x0001, 0x83FF, 0x0400, 0x7BFF, 0xFBFF, 0x3C00, 0xBC00, 0x3555};
    static const uint16_t special[] = {0x7C00, 0xFC00, 0x7E00, 0xFE00, 0x7C01, 0xFD55};
    const uint64_t r = test_rng_next(rng);
    if (specials && (r & 1023) == 1) {
        return special[(r >> 10) % (sizeof(special) / sizeof(special[0]))];
    }
    if ((r & 15) == 0) {
        return edges[(r >> 4) % (sizeof(edges) / sizeof(edges[0]))];
    }
    return (uint16_t) ((r >> 8) & 0x8000) | (uint16_t) (0x1C00 + ((r >> 16) % 0x3000));
}

static void fill(const char *seed, int with_scales, int specials) {
    struct test_rng rng;
    test_rng_seed(&rng, seed);
    for (int m = 0; m < HMX_TILE_ROWS; m++) {
        for (int k = 0; k < K_TOTAL; k++) {
            act_rows[m][k] = random_half(&rng, specials);
        }
    }
    for (int k = 0; k < K_TOTAL; k++) {
        for (int n = 0; n < HMX_TILE_COLS; n++) {
            wt_rows[k][n] = random_half(&rng, specials);
        }
    }
    memset(col_scales, 0, sizeof(col_scales));
    for (int n = 0; n < HMX_TILE_COLS; n++) {
        col_scales[n] = 0x00003C00; /* scale 1, bias 0 */
        if (with_scales && n % 4 != 0) {
            const uint32_t scale = 0x2000 + (uint32_t) (test_rng_next(&rng) % 0x2800); /* 2^-7 .. 2^3 */
            const uint32_t bias = (uint32_t) (test_rng_next(&rng) & 0xBFFF);
            col_scales[n] = scale | bias << 16;
        }
    }
    pack_act_tiles();
    pack_wt_tiles();
}

/* hmx_tile_index is where the kernels' shuffles put each element. */
static void test_tile_layout(void **state) {
    (void) state;
    for (int m = 0; m < HMX_TILE_ROWS; m++) {
        for (int k = 0; k < K_TOTAL; k++) {
            act_rows[m][k] = (uint16_t) (m * K_TOTAL + k);
        }
    }
    for (int k = 0; k < K_TOTAL; k++) {
        for (int n = 0; n < HMX_TILE_COLS; n++) {
            wt_rows[k][n] = (uint16_t) (k * HMX_TILE_COLS + n);
        }
    }
    pack_act_tiles();
    pack_wt_tiles();
    for (unsigned t = 0; t < N_TILES; t++) {
        for (unsigned r = 0; r < HMX_TILE_ROWS; r++) {
            for (unsigned c = 0; c < HMX_TILE_COLS; c++) {
                assert_int_equal(act_tiles[t * HMX_TILE_HALVES + hmx_tile_index(r, c)], act_rows[r][t * 32 + c]);
                assert_int_equal(wt_tiles[t * HMX_TILE_HALVES + hmx_tile_index(r, c)], wt_rows[t * 32 + r][c]);
            }
        }
    }
}

/* The accumulators and the stored tile against the reference, bit for bit; a NaN accumulator's bits are unspecified
 * (hmx.h), so there only its being a NaN. The kinds of accumulator into kinds (NaN, infinite, finite) when not NULL. */
static void check_against_reference(const char *seed, int with_scales, int specials, int kinds[3]) {
    static struct hmx_acc acc;
    static float want_acc[HMX_TILE_ROWS][HMX_TILE_COLS];
    static uint16_t out_tile[HMX_TILE_HALVES] __attribute__((aligned(128)));
    static uint16_t got[HMX_TILE_ROWS][HMX_TILE_COLS], want[HMX_TILE_ROWS][HMX_TILE_COLS];
    fill(seed, with_scales, specials);
    reference(want_acc, want);
    hmx_acc_clear(&acc);
    hmx_acc_mac(&acc, act_tiles, wt_tiles, 1); /* one tile, then the other three: the same stream */
    hmx_acc_mac(&acc, act_tiles + HMX_TILE_HALVES, wt_tiles + HMX_TILE_HALVES, N_TILES - 1);
    hmx_acc_store_f16(&acc, out_tile, col_scales);
    unpack_out_tile(out_tile, got);
    for (int m = 0; m < HMX_TILE_ROWS; m++) {
        for (int n = 0; n < HMX_TILE_COLS; n++) {
            const int same_acc = vnpu_f32_bits(acc.acc[m][n]) == vnpu_f32_bits(want_acc[m][n]) ||
                                 (isnan(acc.acc[m][n]) && isnan(want_acc[m][n]));
            if (kinds) {
                kinds[isnan(want_acc[m][n]) ? 0 : isinf(want_acc[m][n]) ? 1 : 2]++;
            }
            if (!same_acc || got[m][n] != want[m][n]) {
                fail_msg("%s: [%d][%d]: acc %a (reference %a), out 0x%04x (reference 0x%04x)", seed, m, n,
                         (double) acc.acc[m][n], (double) want_acc[m][n], got[m][n], want[m][n]);
            }
        }
    }
}

static void test_matches_reference(void **state) {
    (void) state;
    check_against_reference("hmx plain", 0, 0, NULL);
    check_against_reference("hmx scaled 1", 1, 0, NULL);
    check_against_reference("hmx scaled 2", 1, 0, NULL);
}

/* Infinities and NaNs among the inputs: NaN and infinite sums, inf * 0, inf - inf, NaNs with payloads. */
static void test_specials_match_reference(void **state) {
    (void) state;
    int kinds[3] = {0};
    check_against_reference("hmx specials 1", 0, 1, kinds);
    check_against_reference("hmx specials 2", 1, 1, kinds);
    check_against_reference("hmx specials 3", 1, 1, kinds);
    /* each kind of accumulator was met, so the case tests what it names */
    assert_true(kinds[0] > 0 && kinds[1] > 0 && kinds[2] > 0);
}

/* FP32 accumulation, one rounding per addition in k order: 1 + 31 products of 2^-24 stays 1 when the
 * 1 comes first (each 1 + 2^-24 is a tie to even), and is 1 + 2^-19 when it comes last. */
static void test_accumulation_order(void **state) {
    (void) state;
    static struct hmx_acc acc;
    for (int first = 1; first >= 0; first--) {
        memset(act_rows, 0, sizeof(act_rows));
        memset(wt_rows, 0, sizeof(wt_rows));
        for (int k = 0; k < 32; k++) {
            const int big = first ? k == 0 : k == 31;
            act_rows[0][k] = big ? 0x3C00 : 0x0C00; /* 1 or 2^-12 */
            wt_rows[k][0] = big ? 0x3C00 : 0x0C00;
        }
        pack_act_tiles();
        pack_wt_tiles();
        hmx_acc_clear(&acc);
        hmx_acc_mac(&acc, act_tiles, wt_tiles, 1);
        assert_int_equal(vnpu_f32_bits(acc.acc[0][0]), first ? 0x3F800000u : 0x3F800010u);
        assert_int_equal(vnpu_f32_bits(acc.acc[0][1]), 0u);
    }
}

/* The store's FP16 rounding on hand-picked accumulators (scale 1, bias 0 unless said). */
static void test_store_rounding(void **state) {
    (void) state;
    static const struct {
        float acc;
        uint16_t scale, bias, want;
    } rows[] = {
        {1.0f + 0x1p-11f, 0x3C00, 0, 0x3C00},      /* tie: to even */
        {1.0f + 3 * 0x1p-11f, 0x3C00, 0, 0x3C02},  /* tie: to even, upwards */
        {65519.0f, 0x3C00, 0, 0x7BFF},             /* just below the halfway point to 65536 */
        {65520.0f, 0x3C00, 0, 0x7C00},             /* halfway: overflows to infinity */
        {-1e6f, 0x3C00, 0, 0xFC00},                /* overflow, negative */
        {0x1p-25f, 0x3C00, 0, 0x0000},             /* half the smallest subnormal: tie to 0 */
        {3 * 0x1p-25f, 0x3C00, 0, 0x0002},         /* 1.5 subnormal units: tie to even 2 */
        {-0.0f, 0x3C00, 0, 0x0000},                /* -0 + (bias +0) is +0 */
        {INFINITY, 0x0000, 0, 0x7FFF},             /* inf * 0: NaN, canonical */
        {3.0f, 0x4000, 0xC000, 0x4400},            /* 3 * 2 - 2 = 4 */
        {1000.0f, 0x1C00, 0x3C00, 0x44E8},         /* 1000 * 2^-8 + 1 = 4.90625 = 1.2265625 * 4 */
        {1.0f + 0x1p-21f, 0x3C01, 0xBC00, 0x1400}, /* RN32(acc * scale) - 1: an FP16 tie (exact: 0x1401) */
        {-2.5f, 0xBC00, 0x0000, 0x4100},           /* negative scale */
        {0x1p-14f, 0x3800, 0x0000, 0x0200},        /* result subnormal: 2^-15 */
        {0.0f, 0x3C00, 0x7C00, 0x7C00},            /* infinite bias */
        {1.0f, 0x3C00, 0xFE00, 0x7FFF},            /* NaN bias: canonical */
    };
    static struct hmx_acc acc;
    static uint16_t out_tile[HMX_TILE_HALVES] __attribute__((aligned(128)));
    const int n_rows = (int) (sizeof(rows) / sizeof(rows[0]));
    memset(col_scales, 0, sizeof(col_scales));
    hmx_acc_clear(&acc);
    for (int i = 0; i < n_rows; i++) {
        acc.acc[i][i] = rows[i].acc; /* on the diagonal: each in its own column, with its own scale */
        col_scales[i] = rows[i].scale | (uint32_t) rows[i].bias << 16;
    }
    hmx_acc_store_f16(&acc, out_tile, col_scales);
    for (int i = 0; i < n_rows; i++) {
        const uint16_t got = out_tile[hmx_tile_index((unsigned) i, (unsigned) i)];
        if (got != rows[i].want) {
            fail_msg("row %d: acc %a scale 0x%04x bias 0x%04x: 0x%04x, expected 0x%04x", i, (double) rows[i].acc,
                     rows[i].scale, rows[i].bias, got, rows[i].want);
        }
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tile_layout),
        cmocka_unit_test(test_matches_reference),
        cmocka_unit_test(test_specials_match_reference),
        cmocka_unit_test(test_accumulation_order),
        cmocka_unit_test(test_store_rounding),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
