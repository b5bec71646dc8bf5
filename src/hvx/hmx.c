/*
 * HMX FP16 tile operations (see hmx.h for the layout and the rounding model).
 *
 * Freestanding C: it compiles for Hexagon too. The loops keep the documented order of additions per
 * accumulator (k ascending, tiles in order) and run over the 32 columns innermost, so a host compiler
 * vectorises them without changing a single rounding.
 */
#include "hmx.h"

#include "hvx-count.h"
#include "hvx-half.h"

void hmx_acc_clear(struct hmx_acc *acc) {
    HMX_COUNT(ACC_CLEAR);
    for (int m = 0; m < HMX_TILE_ROWS; m++) {
        for (int n = 0; n < HMX_TILE_COLS; n++) {
            acc->acc[m][n] = 0.0f;
        }
    }
}

/* One tile pair: FP16 -> FP32 (exact) into row-major scratch, then the 32 x 32 x 32 products. */
static void hmx_tile_mac(struct hmx_acc *acc, const uint16_t *a, const uint16_t *w) {
    float af[HMX_TILE_ROWS][HMX_TILE_COLS]; /* A[m][k] */
    float wf[HMX_TILE_ROWS][HMX_TILE_COLS]; /* W[k][n] */
    for (unsigned r = 0; r < HMX_TILE_ROWS; r++) {
        for (unsigned c = 0; c < HMX_TILE_COLS; c++) {
            af[r][c] = hvx_sf(hvx_hf_to_sf(a[hmx_tile_index(r, c)]));
            wf[r][c] = hvx_sf(hvx_hf_to_sf(w[hmx_tile_index(r, c)]));
        }
    }
    for (int m = 0; m < HMX_TILE_ROWS; m++) {
        float *row = acc->acc[m];
        for (int k = 0; k < HMX_TILE_COLS; k++) {
            const float x = af[m][k];
            for (int n = 0; n < HMX_TILE_COLS; n++) {
                row[n] += x * wf[k][n]; /* the product is exact: one rounding per add */
            }
        }
    }
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
