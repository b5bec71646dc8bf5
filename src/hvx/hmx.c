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
 * (tests/hvx/test-hmx.c). The store too: 0.19 us per tile against 3.2 us for its scalar loop.
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

/* A tile's elements as FP32 (exact; a NaN stays a NaN, its payload whatever the path gives: hmx.h leaves a NaN
 * accumulator's bits unspecified and the store canonicalises), row-major: out[r][c] = element (r, c). In a SIMD build
 * the halves of each 8-column group of rows 2i and 2i + 1 (interleaved) are widened, then split into the two rows'
 * words. */
static void hmx_tile_widen(const uint16_t *t, float out[HMX_TILE_ROWS][HMX_TILE_COLS]) {
#if VNPU_HVX_SIMD_AVX2
    for (unsigned i = 0; i < HMX_TILE_ROWS / 2; i++) {
        for (unsigned j = 0; j < HMX_TILE_COLS / 8; j++) { /* columns 8j .. 8j + 7 of rows 2i and 2i + 1 */
            const hvx_simd_t c = hvx_s_loadu(t + i * 64 + j * 16);
            const hvx_simd_t f0 = hvx_s_cvt_f16_f32(c, 0), f1 = hvx_s_cvt_f16_f32(c, 1);
            hvx_s_storeu(&out[2 * i][8 * j], hvx_s_unzip(f0, f1, 4, 0));
            hvx_s_storeu(&out[2 * i + 1][8 * j], hvx_s_unzip(f0, f1, 4, 1));
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

/* One tile pair: FP16 -> FP32 (exact) into scratch, then the 32 x 32 x 32 products. */
static void hmx_tile_mac(struct hmx_acc *acc, const uint16_t *a, const uint16_t *w) {
    float wf[HMX_TILE_ROWS][HMX_TILE_COLS]; /* W[k][n] */
    hmx_tile_widen(w, wf);
#if VNPU_HVX_SIMD_AVX2
    /* The activations in the tile's own order (element (m, k) at hmx_tile_index(m, k)): they are only broadcast. */
    float af[HMX_TILE_HALVES];
    for (unsigned i = 0; i < HMX_TILE_HALVES; i += 16) {
        const hvx_simd_t c = hvx_s_loadu(a + i);
        hvx_s_storeu(af + i, hvx_s_cvt_f16_f32(c, 0));
        hvx_s_storeu(af + i + 8, hvx_s_cvt_f16_f32(c, 1));
    }
    /* Two accumulator rows of 4 chunks each in registers over k (the -O2 build does not vectorise the loop below). A
     * fused multiply-add would give the same bits (the products are exact) but no speed on this host's Zen 3, whose
     * two FADD pipes take the adds beside the two multiply pipes; with FMA chains a 64-tile stream took 1.28 us per
     * tile pair against 1.16-1.32 us (thread CPU time, a loaded host). */
    for (unsigned m = 0; m < HMX_TILE_ROWS; m += 2) {
        const float *ap = af + (size_t) (m / 2) * 64; /* (m, k) at ap[2k], (m + 1, k) at ap[2k + 1] */
        hvx_simd_t r0[HVX_SIMD_N], r1[HVX_SIMD_N];
        HVX_SIMD_EACH(r0[k] = hvx_s_loadu(&acc->acc[m][k * 8]); r1[k] = hvx_s_loadu(&acc->acc[m + 1][k * 8]));
        for (unsigned kk = 0; kk < HMX_TILE_COLS; kk++) {
            const hvx_simd_t x0 = hvx_s_set1_32((int32_t) hvx_sf_bits(ap[2 * kk]));
            const hvx_simd_t x1 = hvx_s_set1_32((int32_t) hvx_sf_bits(ap[2 * kk + 1]));
            HVX_SIMD_EACH(const hvx_simd_t wv = hvx_s_loadu(&wf[kk][k * 8]);
                          r0[k] = hvx_s_addf(r0[k], hvx_s_mulf(x0, wv)); r1[k] = hvx_s_addf(r1[k], hvx_s_mulf(x1, wv)));
        }
        HVX_SIMD_EACH(hvx_s_storeu(&acc->acc[m][k * 8], r0[k]); hvx_s_storeu(&acc->acc[m + 1][k * 8], r1[k]));
    }
#else
    float af[HMX_TILE_ROWS][HMX_TILE_COLS]; /* A[m][k] */
    hmx_tile_widen(a, af);
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
#if VNPU_HVX_SIMD_AVX2
    /* Rows m and m + 1, 8 columns at a time: the multiply, then the add (two roundings), a NaN made the canonical
     * binary32 NaN, which F16C narrows to the canonical 0x7FFF; the two rows' halves interleaved as the tile holds
     * them. */
    const hvx_simd_t nan = hvx_s_set1_32((int32_t) HVX_SF_NAN);
    for (unsigned m = 0; m < HMX_TILE_ROWS; m += 2) {
        for (unsigned c = 0; c < HMX_TILE_COLS; c += 8) {
            const hvx_simd_t sc = hvx_s_loadu(&scale[c]), bi = hvx_s_loadu(&bias[c]);
            hvx_simd_t y0 = hvx_s_addf(hvx_s_mulf(hvx_s_loadu(&acc->acc[m][c]), sc), bi);
            hvx_simd_t y1 = hvx_s_addf(hvx_s_mulf(hvx_s_loadu(&acc->acc[m + 1][c]), sc), bi);
            y0 = hvx_s_blend8(hvx_s_isnan_f32(y0), nan, y0);
            y1 = hvx_s_blend8(hvx_s_isnan_f32(y1), nan, y1);
            hvx_s_storeu(out + hmx_tile_index(m, c), hvx_s_cvt_f32_f16_zip(y0, y1));
        }
    }
#else
    for (unsigned m = 0; m < HMX_TILE_ROWS; m++) {
        for (unsigned n = 0; n < HMX_TILE_COLS; n++) {
            const float y = acc->acc[m][n] * scale[n] + bias[n];
            out[hmx_tile_index(m, n)] = hvx_sf_to_hf(hvx_sf_canon(y));
        }
    }
#endif
}
