/*
 * 4-bit codebook formats: IQ4_NL (16 non-linear levels, fp16 scale) and MXFP4 (E2M1 values, E8M0 shared
 * exponent). Algorithms and float operation order are those of ggml-quants.c (quantize_iq4_nl with no
 * importance matrix, quantize_row_mxfp4_ref, dequantize_row_iq4_nl, dequantize_row_mxfp4).
 */
#include "quants.h"

#include "log.h"

#include <math.h>

#define GROUP_MAX_EPS 1e-15f /* a block whose max |x| is below this is all zeros (GGML's value) */

/*
 * Index of the level of the sorted table val[n] (n a power of 2) nearest to x, the upper one on a tie
 * (GGML's best_index_int8). The midpoint test 2x >= val[j - 1] + val[j] is exact in float; it gives the
 * same index as GGML's "x - val[mu - 1] < val[mu] - x" because those differences are exact near every
 * midpoint of kvalues_iq4nl.
 */
static inline int best_index_int8(int n, const int8_t *val, float x) {
    const float x2 = x + x;
    int idx = 0;
    for (int step = n / 2; step > 0; step /= 2) {
        const int j = idx + step;
        idx = x2 >= (float) (val[j - 1] + val[j]) ? j : idx;
    }
    return idx;
}

/* ---- IQ4_NL -------------------------------------------------------------------------------------- */

void iq4_nl_dequant_row(const void *x, float *y, int64_t k) {
    VNPU_ASSERT(k % QK4_NL == 0);
    const block_iq4_nl *b = x;
    for (int64_t i = 0; i < k / QK4_NL; i++, y += QK4_NL) {
        const float d = vnpu_fp16_to_f32(b[i].d);
        for (int j = 0; j < QK4_NL / 2; j++) {
            y[j] = d * (float) kvalues_iq4nl[b[i].qs[j] & 0xf];
            y[j + QK4_NL / 2] = d * (float) kvalues_iq4nl[b[i].qs[j] >> 4];
        }
    }
}

/* Weighted least-squares fit of the scale for the levels x * id picks: sums of w q x and w q^2. */
static void iq4_nl_fit(const float *x, const float *w, float id, float *sumqx, float *sumq2) {
    *sumqx = 0.0f;
    *sumq2 = 0.0f;
    for (int j = 0; j < QK4_NL; j++) {
        const float q = kvalues_iq4nl[best_index_int8(16, kvalues_iq4nl, id * x[j])];
        *sumqx += w[j] * q * x[j];
        *sumq2 += w[j] * q * q;
    }
}

/*
 * One block the way quantize_row_iq4_nl_impl does it with super-block = block = 32, ntry = 7 and no
 * importance matrix: weights x^2; start from d = -max / -127 (max: the signed value of largest magnitude),
 * then 1 / d = (itry - 127) / max for itry = -7..7, keeping the fit with the largest sumqx^2 / sumq2.
 * A block of zeros gets d = 0 and every index at the level nearest 0 (1, index 8).
 */
static void iq4_nl_quant_block(const float *x, block_iq4_nl *b) {
    float weight[QK4_NL];
    float amax = 0.0f;
    float max = 0.0f;
    for (int j = 0; j < QK4_NL; j++) {
        weight[j] = x[j] * x[j];
        if (fabsf(x[j]) > amax) {
            amax = fabsf(x[j]);
            max = x[j];
        }
    }
    float d = 0.0f;
    if (amax >= GROUP_MAX_EPS) {
        float sumqx, sumq2;
        iq4_nl_fit(x, weight, 1.0f / (-max / (float) kvalues_iq4nl[0]), &sumqx, &sumq2);
        d = sumq2 > 0.0f ? sumqx / sumq2 : 0.0f;
        float best = d * sumqx;
        for (int itry = -7; itry <= 7; itry++) {
            iq4_nl_fit(x, weight, (float) (itry + kvalues_iq4nl[0]) / max, &sumqx, &sumq2);
            if (sumq2 > 0.0f && sumqx * sumqx > best * sumq2) {
                d = sumqx / sumq2;
                best = d * sumqx;
            }
        }
    }
    b->d = vnpu_f32_to_fp16(d);
    /* the final indices use the unrounded d, as GGML does */
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    for (int j = 0; j < QK4_NL / 2; j++) {
        const int l0 = best_index_int8(16, kvalues_iq4nl, id * x[j]);
        const int l1 = best_index_int8(16, kvalues_iq4nl, id * x[j + QK4_NL / 2]);
        b->qs[j] = (uint8_t) (l0 | l1 << 4);
    }
}

void iq4_nl_quant_row_ref(const float *x, void *y, int64_t k) {
    VNPU_ASSERT(k % QK4_NL == 0);
    block_iq4_nl *b = y;
    for (int64_t i = 0; i < k / QK4_NL; i++) {
        iq4_nl_quant_block(x + QK4_NL * i, &b[i]);
    }
}

/* ---- MXFP4 --------------------------------------------------------------------------------------- */

void mxfp4_dequant_row(const void *x, float *y, int64_t k) {
    VNPU_ASSERT(k % QK_MXFP4 == 0);
    const block_mxfp4 *b = x;
    for (int64_t i = 0; i < k / QK_MXFP4; i++, y += QK_MXFP4) {
        const float d = e8m0_to_f32_half(b[i].e);
        for (int j = 0; j < QK_MXFP4 / 2; j++) {
            y[j] = (float) kvalues_mxfp4[b[i].qs[j] & 0xf] * d;
            y[j + QK_MXFP4 / 2] = (float) kvalues_mxfp4[b[i].qs[j] >> 4] * d;
        }
    }
}

/* Index of the doubled E2M1 value v with |v * d - x| least, the lowest index on ties (best_index_mxfp4). */
static inline int best_index_mxfp4(float x, float d) {
    int best = 0;
    float best_err = fabsf((float) kvalues_mxfp4[0] * d - x);
    for (int i = 1; i < 16; i++) {
        const float err = fabsf((float) kvalues_mxfp4[i] * d - x);
        if (err < best_err) {
            best = i;
            best_err = err;
        }
    }
    return best;
}

void mxfp4_quant_row_ref(const float *x, void *y, int64_t k) {
    VNPU_ASSERT(k % QK_MXFP4 == 0);
    block_mxfp4 *b = y;
    for (int64_t i = 0; i < k / QK_MXFP4; i++, x += QK_MXFP4) {
        float amax = 0.0f;
        for (int j = 0; j < QK_MXFP4; j++) {
            amax = fabsf(x[j]) > amax ? fabsf(x[j]) : amax;
        }
        /* The largest value, 6 = 2^2 * 1.5, gets the exponent of amax: e = floor(log2 amax) - 2, biased.
         * GGML converts the float to uint8_t directly; through int32_t the result is the same for every
         * finite amax and defined below 2^-125 too, where e wraps modulo 256 as in GGML's x86-64 build.
         * An inf input (outside the contract) gives 0, as that build does. */
        uint8_t e = 0;
        if (amax > 0.0f && !isinf(amax)) {
            e = (uint8_t) (int32_t) (floorf(log2f(amax)) - 2 + 127);
        }
        const float d = e8m0_to_f32_half(e);
        b[i].e = e;
        for (int j = 0; j < QK_MXFP4 / 2; j++) {
            const int q0 = best_index_mxfp4(x[j], d);
            const int q1 = best_index_mxfp4(x[j + QK_MXFP4 / 2], d);
            b[i].qs[j] = (uint8_t) (q0 | q1 << 4);
        }
    }
}
