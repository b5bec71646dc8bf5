/*
 * HMX FP16 tile operations (see hmx.h for the layout and the rounding model).
 *
 * Freestanding C: it compiles for Hexagon too. The loops keep the documented order of additions per
 * accumulator (k ascending, tiles in order) and run over the 32 columns innermost, so a host compiler
 * vectorises them without changing a single rounding. The AVX2 build (VNPU_HVX_SIMD_AVX2) writes the tile
 * multiply-accumulate with the backend's chunk primitives instead, which the -O2 build does not otherwise
 * get: F16C widening and 8-lane multiplies and adds (the FP16 products are exact in FP32, so a multiply then
 * an add is the one rounding per addition the model has). 1.3 us per tile pair against 7 us for the scalar
 * loops on the 2-vCPU build machine (a 64-tile stream, thread CPU time), bit for bit the same results
 * (tests/hvx/test-hmx.c).
 */
#include "hmx.h"

#include "hvx-count.h"
#include "hvx-half.h"
#if VNPU_HVX_SIMD_AVX2
#include "hvx-simd-avx2.h"
#endif

void hmx_acc_clear(struct hmx_acc *acc) {
    HMX_COUNT(ACC_CLEAR);
    for (int m = 0; m < HMX_TILE_ROWS; m++) {
        for (int n = 0; n < HMX_TILE_COLS; n++) {
            acc->acc[m][n] = 0.0f;
        }
    }
}

/* A tile's elements as FP32 (exact; NaN canonical), row-major: out[r][c] = element (r, c). In a SIMD build each
 * 16-half chunk pair of vector i is split into its even halves (row 2i) and odd halves (row 2i + 1) and widened. */
static void hmx_tile_widen(const uint16_t *t, float out[HMX_TILE_ROWS][HMX_TILE_COLS]) {
#if VNPU_HVX_SIMD_AVX2
    const hvx_simd_t nan = hvx_s_set1_32((int32_t) HVX_SF_NAN);
    for (unsigned i = 0; i < HMX_TILE_ROWS / 2; i++) {
        for (unsigned j = 0; j < 2; j++) { /* columns 16j .. 16j + 15 of rows 2i and 2i + 1 */
            const hvx_simd_t c0 = hvx_s_loadu(t + i * 64 + j * 32), c1 = hvx_s_loadu(t + i * 64 + j * 32 + 16);
            for (unsigned odd = 0; odd < 2; odd++) {
                const hvx_simd_t h = hvx_s_unzip(c0, c1, 2, (int) odd);
                for (unsigned u = 0; u < 2; u++) {
                    const hvx_simd_t f = hvx_s_cvt_f16_f32(h, (int) u);
                    hvx_s_storeu(&out[2 * i + odd][16 * j + 8 * u], hvx_s_blend8(hvx_s_isnan_f32(f), nan, f));
                }
            }
        }
    }
#else
    for (unsigned r = 0; r < HMX_TILE_ROWS; r++) {
        for (unsigned c = 0; c < HMX_TILE_COLS; c++) {
            out[r][c] = hvx_sf(hvx_hf_to_sf(t[hmx_tile_index(r, c)]));
        }
    }
#endif
}

/* One tile pair: FP16 -> FP32 (exact) into row-major scratch, then the 32 x 32 x 32 products. */
static void hmx_tile_mac(struct hmx_acc *acc, const uint16_t *a, const uint16_t *w) {
    float af[HMX_TILE_ROWS][HMX_TILE_COLS]; /* A[m][k] */
    float wf[HMX_TILE_ROWS][HMX_TILE_COLS]; /* W[k][n] */
    hmx_tile_widen(a, af);
    hmx_tile_widen(w, wf);
#if VNPU_HVX_SIMD_AVX2
    /* Two accumulator rows of 4 chunks each in registers over k (the -O2 build does not vectorise the loop below). */
    for (int m = 0; m < HMX_TILE_ROWS; m += 2) {
        hvx_simd_t r0[HVX_SIMD_N], r1[HVX_SIMD_N];
        HVX_SIMD_EACH(r0[k] = hvx_s_loadu(&acc->acc[m][k * 8]); r1[k] = hvx_s_loadu(&acc->acc[m + 1][k * 8]));
        for (int kk = 0; kk < HMX_TILE_COLS; kk++) {
            const hvx_simd_t x0 = hvx_s_set1_32((int32_t) hvx_sf_bits(af[m][kk]));
            const hvx_simd_t x1 = hvx_s_set1_32((int32_t) hvx_sf_bits(af[m + 1][kk]));
            HVX_SIMD_EACH(const hvx_simd_t wv = hvx_s_loadu(&wf[kk][k * 8]);
                          r0[k] = hvx_s_addf(r0[k], hvx_s_mulf(x0, wv)); r1[k] = hvx_s_addf(r1[k], hvx_s_mulf(x1, wv)));
        }
        HVX_SIMD_EACH(hvx_s_storeu(&acc->acc[m][k * 8], r0[k]); hvx_s_storeu(&acc->acc[m + 1][k * 8], r1[k]));
    }
#else
    for (int m = 0; m < HMX_TILE_ROWS; m++) {
        float *row = acc->acc[m];
        for (int k = 0; k < HMX_TILE_COLS; k++) {
            const float x = af[m][k];
            for (int n = 0; n < HMX_TILE_COLS; n++) {
                row[n] += x * wf[k][n]; /* the product is exact: one rounding per add */
            }
        }
    }
#endif
}

void hmx_acc_mac(struct hmx_acc *acc, const uint16_t *act, const uint16_t *wt, unsigned n_tiles) {
    for (unsigned t = 0; t < n_tiles; t++) {
        HMX_COUNT(TILE_MAC);
        hmx_tile_mac(acc, act + (size_t) t * HMX_TILE_HALVES, wt + (size_t) t * HMX_TILE_HALVES);
    }
}

void hmx_acc_store_f16(const struct hmx_acc *acc, uint16_t *out, const void *col_scales) {
    HMX_COUNT(ACC_STORE);
    const uint16_t *sb = (const uint16_t *) col_scales; /* scale n at half 2n, bias n at half 2n + 1 */
    float scale[HMX_TILE_COLS], bias[HMX_TILE_COLS];
    for (int n = 0; n < HMX_TILE_COLS; n++) {
        scale[n] = hvx_sf(hvx_hf_to_sf(sb[2 * n]));
        bias[n] = hvx_sf(hvx_hf_to_sf(sb[2 * n + 1]));
    }
    for (unsigned m = 0; m < HMX_TILE_ROWS; m++) {
        for (unsigned n = 0; n < HMX_TILE_COLS; n++) {
            const float y = acc->acc[m][n] * scale[n] + bias[n];
            out[hmx_tile_index(m, n)] = hvx_sf_to_hf(hvx_sf_canon(y));
        }
    }
}
