/*
 * K-quants: Q2_K, Q3_K, Q4_K, Q5_K, Q6_K and the activation format Q8_K, in super-blocks of QK_K = 256.
 *
 * The quantizers are GGML's reference ones (ggml-quants.c quantize_row_<type>_ref, what
 * ggml_quantize_chunk runs with no importance matrix): per sub-block, a search for the scale (and min)
 * that minimises a weighted error (make_qx_quants, make_q3_quants, make_qkx2_quants), then the sub-block
 * scales quantized against a super-block scale, then every element requantized with the scales as
 * stored. Float operations are done in GGML's order, one rounding each (the library is built with
 * -ffp-contract=off), so the bytes are GGML's.
 */
#include "quants.h"

#include "log.h"

#include <math.h>
#include <stdbool.h>

#define GROUP_MAX_EPS 1e-15f /* a sub-block whose max |x| is below this is all zeros (GGML's value) */

/* Round to nearest, ties to even, for |f| <= 2^22 - 1: adding 1.5 * 2^23 leaves the integer in the low
 * mantissa bits (GGML's nearest_int). */
static inline int nearest_int(float f) {
    const float v = f + 12582912.0f;
    return (int) (vnpu_f32_bits(v) & 0x007fffff) - 0x00400000;
}

static inline int clamp_int(int v, int lo, int hi) {
    return v < lo ? lo : v > hi ? hi : v;
}

/*
 * Symmetric scale search (make_qx_quants with rmse_type 1, weights x^2 when qw is NULL): q = round(x / s)
 * in [-nmax, nmax - 1], trying 1 / s = -(nmax + 0.1 * is) / max for is = -9..9 around the plain one and
 * keeping the least-squares scale of the best. L gets q + nmax. Returns the scale.
 */
static float make_qx_quants(int n, int nmax, const float *x, int8_t *L, const float *qw) {
    float max = 0.0f;
    float amax = 0.0f;
    for (int i = 0; i < n; i++) {
        const float ax = fabsf(x[i]);
        if (ax > amax) {
            amax = ax;
            max = x[i];
        }
    }
    if (amax < GROUP_MAX_EPS) {
        memset(L, 0, (size_t) n);
        return 0.0f;
    }
    float iscale = (float) -nmax / max;
    float sumlx = 0.0f;
    float suml2 = 0.0f;
    for (int i = 0; i < n; i++) {
        const int l = clamp_int(nearest_int(iscale * x[i]), -nmax, nmax - 1);
        L[i] = (int8_t) (l + nmax);
        const float w = qw ? qw[i] : x[i] * x[i];
        sumlx += w * x[i] * (float) l;
        suml2 += w * (float) l * (float) l;
    }
    float scale = suml2 != 0.0f ? sumlx / suml2 : 0.0f;
    float best = scale * sumlx;
    for (int is = -9; is <= 9; is++) {
        if (is == 0) {
            continue;
        }
        iscale = -((float) nmax + 0.1f * (float) is) / max;
        sumlx = 0.0f;
        suml2 = 0.0f;
        for (int i = 0; i < n; i++) {
            const int l = clamp_int(nearest_int(iscale * x[i]), -nmax, nmax - 1);
            const float w = qw ? qw[i] : x[i] * x[i];
            sumlx += w * x[i] * (float) l;
            suml2 += w * (float) l * (float) l;
        }
        if (suml2 > 0.0f && sumlx * sumlx > best * suml2) {
            for (int i = 0; i < n; i++) {
                L[i] = (int8_t) (nmax + clamp_int(nearest_int(iscale * x[i]), -nmax, nmax - 1));
            }
            scale = sumlx / suml2;
            best = scale * sumlx;
        }
    }
    return scale;
}

/*
 * Q3_K's sub-block search (make_q3_quants with do_rmse): start from q = round(-nmax * x / max), then up
 * to 5 passes that move single elements to the level that improves the x^2-weighted least-squares fit.
 * L gets q + nmax (0 for an all-zero sub-block). Returns the scale.
 */
static float make_q3_quants(int n, int nmax, const float *x, int8_t *L) {
    float max = 0.0f;
    float amax = 0.0f;
    for (int i = 0; i < n; i++) {
        const float ax = fabsf(x[i]);
        if (ax > amax) {
            amax = ax;
            max = x[i];
        }
    }
    if (amax < GROUP_MAX_EPS) {
        memset(L, 0, (size_t) n);
        return 0.0f;
    }
    const float iscale = (float) -nmax / max;
    float sumlx = 0.0f;
    float suml2 = 0.0f;
    for (int i = 0; i < n; i++) {
        const int l = clamp_int(nearest_int(iscale * x[i]), -nmax, nmax - 1);
        L[i] = (int8_t) l;
        const float w = x[i] * x[i];
        sumlx += w * x[i] * (float) l;
        suml2 += w * (float) l * (float) l;
    }
    for (int itry = 0; itry < 5; itry++) {
        int n_changed = 0;
        for (int i = 0; i < n; i++) {
            const float w = x[i] * x[i];
            float slx = sumlx - w * x[i] * (float) L[i];
            if (slx > 0.0f) {
                float sl2 = suml2 - w * (float) L[i] * (float) L[i];
                const int new_l = clamp_int(nearest_int(x[i] * sl2 / slx), -nmax, nmax - 1);
                if (new_l != L[i]) {
                    slx += w * x[i] * (float) new_l;
                    sl2 += w * (float) new_l * (float) new_l;
                    if (sl2 > 0.0f && slx * slx * suml2 > sumlx * sumlx * sl2) {
                        L[i] = (int8_t) new_l;
                        sumlx = slx;
                        suml2 = sl2;
                        n_changed++;
                    }
                }
            }
        }
        if (n_changed == 0) {
            break;
        }
    }
    for (int i = 0; i < n; i++) {
        L[i] = (int8_t) (L[i] + nmax);
    }
    return suml2 > 0.0f ? sumlx / suml2 : 0.0f;
}

/*
 * Asymmetric scale-and-min search (make_qkx2_quants): q = round((x - min) / s) in [0, nmax], trying
 * 1 / s = (rmin + rdelta * is + nmax) / (max - min) for is = 0..nstep, each refitted by weighted least
 * squares for (s, min) with min <= 0, keeping the one of least weighted squared (or absolute, use_mad)
 * error. Returns s; *the_min gets -min (>= 0).
 */
static float make_qkx2_quants(int n, int nmax, const float *x, const float *weights, uint8_t *L, float *the_min,
                              uint8_t *Laux, float rmin, float rdelta, int nstep, bool use_mad) {
    float min = x[0];
    float max = x[0];
    float sum_w = weights[0];
    float sum_x = sum_w * x[0];
    for (int i = 1; i < n; i++) {
        min = x[i] < min ? x[i] : min;
        max = x[i] > max ? x[i] : max;
        sum_w += weights[i];
        sum_x += weights[i] * x[i];
    }
    if (min > 0.0f) {
        min = 0.0f;
    }
    if (max == min) {
        memset(L, 0, (size_t) n);
        *the_min = -min;
        return 0.0f;
    }
    float iscale = (float) nmax / (max - min);
    float scale = 1.0f / iscale;
    float best_error = 0.0f;
    for (int i = 0; i < n; i++) {
        L[i] = (uint8_t) clamp_int(nearest_int(iscale * (x[i] - min)), 0, nmax);
        float diff = scale * (float) L[i] + min - x[i];
        diff = use_mad ? fabsf(diff) : diff * diff;
        best_error += weights[i] * diff;
    }
    for (int is = 0; is <= nstep; is++) {
        iscale = (rmin + rdelta * (float) is + (float) nmax) / (max - min);
        float sum_l = 0.0f;
        float sum_l2 = 0.0f;
        float sum_xl = 0.0f;
        for (int i = 0; i < n; i++) {
            const int l = clamp_int(nearest_int(iscale * (x[i] - min)), 0, nmax);
            Laux[i] = (uint8_t) l;
            const float w = weights[i];
            sum_l += w * (float) l;
            sum_l2 += w * (float) l * (float) l;
            sum_xl += w * (float) l * x[i];
        }
        const float D = sum_w * sum_l2 - sum_l * sum_l;
        if (D > 0.0f) {
            float this_scale = (sum_w * sum_xl - sum_x * sum_l) / D;
            float this_min = (sum_l2 * sum_x - sum_l * sum_xl) / D;
            if (this_min > 0.0f) {
                this_min = 0.0f;
                this_scale = sum_xl / sum_l2;
            }
            float cur_error = 0.0f;
            for (int i = 0; i < n; i++) {
                float diff = this_scale * (float) Laux[i] + this_min - x[i];
                diff = use_mad ? fabsf(diff) : diff * diff;
                cur_error += weights[i] * diff;
            }
            if (cur_error < best_error) {
                memcpy(L, Laux, (size_t) n);
                best_error = cur_error;
                scale = this_scale;
                min = this_min;
            }
        }
    }
    *the_min = -min;
    return scale;
}

/* Four 2-bit values per byte over 128 elements: element 32 * s + l at bits 2 * s of byte l. */
static void pack_2bit_128(const uint8_t *L, uint8_t *qs) {
    for (int l = 0; l < 32; l++) {
        qs[l] = (uint8_t) (L[l] | L[l + 32] << 2 | L[l + 64] << 4 | L[l + 96] << 6);
    }
}

/* ---- Q2_K ---------------------------------------------------------------------------------------- */

void q2_K_dequant_row(const void *x, float *y, int64_t k) {
    VNPU_ASSERT(k % QK_K == 0);
    const block_q2_K *b = x;
    for (int64_t i = 0; i < k / QK_K; i++) {
        const float d = vnpu_fp16_to_f32(b[i].d);
        const float dmin = vnpu_fp16_to_f32(b[i].dmin);
        const uint8_t *q = b[i].qs;
        const uint8_t *sc = b[i].scales;
        for (int n = 0; n < QK_K; n += 128, q += 32) {
            for (int shift = 0; shift < 8; shift += 2) {
                for (int h = 0; h < 2; h++, sc++) { /* two sub-blocks of 16 per shift */
                    const float dl = d * (float) (*sc & 0xf);
                    const float ml = dmin * (float) (*sc >> 4);
                    for (int l = 0; l < 16; l++) {
                        *y++ = dl * (float) ((q[16 * h + l] >> shift) & 3) - ml;
                    }
                }
            }
        }
    }
}

void q2_K_quant_row_ref(const float *x, void *y, int64_t k) {
    VNPU_ASSERT(k % QK_K == 0);
    block_q2_K *b = y;
    uint8_t L[QK_K];
    uint8_t Laux[16];
    float weights[16];
    float mins[QK_K / 16];
    float scales[QK_K / 16];
    const float q4scale = 15.0f;
    for (int64_t i = 0; i < k / QK_K; i++, x += QK_K) {
        float max_scale = 0.0f; /* scales are >= 0 once the min is taken out */
        float max_min = 0.0f;
        for (int j = 0; j < QK_K / 16; j++) {
            for (int l = 0; l < 16; l++) {
                weights[l] = fabsf(x[16 * j + l]);
            }
            scales[j] = make_qkx2_quants(16, 3, x + 16 * j, weights, L + 16 * j, &mins[j], Laux, -0.5f, 0.1f, 15, true);
            max_scale = scales[j] > max_scale ? scales[j] : max_scale;
            max_min = mins[j] > max_min ? mins[j] : max_min;
        }
        if (max_scale > 0.0f) {
            const float iscale = q4scale / max_scale;
            for (int j = 0; j < QK_K / 16; j++) {
                b[i].scales[j] = (uint8_t) nearest_int(iscale * scales[j]);
            }
            b[i].d = vnpu_f32_to_fp16(max_scale / q4scale);
        } else {
            memset(b[i].scales, 0, sizeof(b[i].scales));
            b[i].d = vnpu_f32_to_fp16(0.0f);
        }
        if (max_min > 0.0f) {
            const float iscale = q4scale / max_min;
            for (int j = 0; j < QK_K / 16; j++) {
                /* unsigned: a subnormal max_min makes iscale inf and nearest_int negative, where GGML's
                 * signed shift is undefined; the low byte is the same */
                b[i].scales[j] |= (uint8_t) ((uint32_t) nearest_int(iscale * mins[j]) << 4);
            }
            b[i].dmin = vnpu_f32_to_fp16(max_min / q4scale);
        } else {
            b[i].dmin = vnpu_f32_to_fp16(0.0f);
        }
        for (int j = 0; j < QK_K / 16; j++) {
            const float d = vnpu_fp16_to_f32(b[i].d) * (float) (b[i].scales[j] & 0xf);
            if (d == 0.0f) {
                continue; /* keeps the search's L */
            }
            const float dm = vnpu_fp16_to_f32(b[i].dmin) * (float) (b[i].scales[j] >> 4);
            for (int l = 0; l < 16; l++) {
                L[16 * j + l] = (uint8_t) clamp_int(nearest_int((x[16 * j + l] + dm) / d), 0, 3);
            }
        }
        pack_2bit_128(L, b[i].qs);
        pack_2bit_128(L + 128, b[i].qs + 32);
    }
}

/* ---- Q3_K ---------------------------------------------------------------------------------------- */

void q3_K_dequant_row(const void *x, float *y, int64_t k) {
    VNPU_ASSERT(k % QK_K == 0);
    const block_q3_K *b = x;
    for (int64_t i = 0; i < k / QK_K; i++) {
        const float d_all = vnpu_fp16_to_f32(b[i].d);
        const uint8_t *q = b[i].qs;
        const uint8_t *hm = b[i].hmask;
        uint8_t sc[QK_K / 16];
        q3_K_scales_unpack(b[i].scales, sc);
        uint8_t m = 1;
        int is = 0;
        for (int n = 0; n < QK_K; n += 128, q += 32) {
            for (int shift = 0; shift < 8; shift += 2, m <<= 1) {
                for (int h = 0; h < 2; h++, is++) { /* two sub-blocks of 16 per shift */
                    const float dl = d_all * (float) (sc[is] - 32);
                    for (int l = 16 * h; l < 16 * h + 16; l++) {
                        *y++ = dl * (float) (((q[l] >> shift) & 3) - ((hm[l] & m) ? 0 : 4));
                    }
                }
            }
        }
    }
}

void q3_K_quant_row_ref(const float *x, void *y, int64_t k) {
    VNPU_ASSERT(k % QK_K == 0);
    block_q3_K *b = y;
    int8_t L[QK_K];
    float scales[QK_K / 16];
    for (int64_t i = 0; i < k / QK_K; i++, x += QK_K) {
        float max_scale = 0.0f;
        float amax = 0.0f;
        for (int j = 0; j < QK_K / 16; j++) {
            scales[j] = make_q3_quants(16, 4, x + 16 * j, L + 16 * j);
            if (fabsf(scales[j]) > amax) {
                amax = fabsf(scales[j]);
                max_scale = scales[j];
            }
        }
        uint8_t ls[QK_K / 16] = {0}; /* all zero bytes when every scale is 0, as GGML leaves them */
        if (max_scale != 0.0f) {
            const float iscale = -32.0f / max_scale;
            for (int j = 0; j < QK_K / 16; j++) {
                /* GGML stores nearest_int's result in an int8_t first; it is within -32..32 */
                ls[j] = (uint8_t) (clamp_int((int8_t) nearest_int(iscale * scales[j]), -32, 31) + 32);
            }
            b[i].d = vnpu_f32_to_fp16(1.0f / iscale);
        } else {
            b[i].d = vnpu_f32_to_fp16(0.0f);
        }
        q3_K_scales_pack(ls, b[i].scales);
        for (int j = 0; j < QK_K / 16; j++) {
            const float d = vnpu_fp16_to_f32(b[i].d) * (float) (ls[j] - 32);
            if (d == 0.0f) {
                continue; /* keeps the search's L */
            }
            for (int l = 0; l < 16; l++) {
                L[16 * j + l] = (int8_t) (clamp_int(nearest_int(x[16 * j + l] / d), -4, 3) + 4);
            }
        }
        memset(b[i].hmask, 0, sizeof(b[i].hmask));
        uint8_t low[QK_K];
        for (int j = 0; j < QK_K; j++) {
            const int high = L[j] > 3;
            b[i].hmask[j % 32] |= (uint8_t) (high << (j / 32));
            low[j] = (uint8_t) (L[j] - 4 * high);
        }
        pack_2bit_128(low, b[i].qs);
        pack_2bit_128(low + 128, b[i].qs + 32);
    }
}

/* ---- Q4_K and Q5_K: 8 sub-blocks of 32 with 6-bit scales and mins ------------------------------- */

/*
 * The part of quantize_row_q4_K_ref / q5_K_ref they share: per sub-block of 32 a make_qkx2_quants search
 * with weights sqrt(mean x^2) + |x|, 6-bit scales and mins against d = max scale / 63 and dmin = max
 * min / 63, then L (0..nmax) requantized with the stored scales.
 */
static void qk_K_scales_mins(const float *x, int nmax, float rmin, float rdelta, int nstep, vnpu_fp16_t *d_out,
                             vnpu_fp16_t *dmin_out, uint8_t *scales_out, uint8_t L[QK_K]) {
    uint8_t Laux[32];
    float weights[32];
    float mins[QK_K / 32];
    float scales[QK_K / 32];
    float max_scale = 0.0f;
    float max_min = 0.0f;
    for (int j = 0; j < QK_K / 32; j++) {
        const float *xb = x + 32 * j;
        float sum_x2 = 0.0f;
        for (int l = 0; l < 32; l++) {
            sum_x2 += xb[l] * xb[l];
        }
        const float av_x = sqrtf(sum_x2 / 32);
        for (int l = 0; l < 32; l++) {
            weights[l] = av_x + fabsf(xb[l]);
        }
        scales[j] = make_qkx2_quants(32, nmax, xb, weights, L + 32 * j, &mins[j], Laux, rmin, rdelta, nstep, false);
        max_scale = scales[j] > max_scale ? scales[j] : max_scale;
        max_min = mins[j] > max_min ? mins[j] : max_min;
    }
    const float inv_scale = max_scale > 0.0f ? 63.0f / max_scale : 0.0f;
    const float inv_min = max_min > 0.0f ? 63.0f / max_min : 0.0f;
    uint8_t ls[QK_K / 32], lm[QK_K / 32];
    for (int j = 0; j < QK_K / 32; j++) {
        /* GGML narrows nearest_int's result to uint8_t before capping it at 63 */
        const uint8_t s = (uint8_t) nearest_int(inv_scale * scales[j]);
        const uint8_t m = (uint8_t) nearest_int(inv_min * mins[j]);
        ls[j] = s < 63 ? s : 63;
        lm[j] = m < 63 ? m : 63;
    }
    q4_K_scales_pack(ls, lm, scales_out);
    *d_out = vnpu_f32_to_fp16(max_scale / 63.0f);
    *dmin_out = vnpu_f32_to_fp16(max_min / 63.0f);
    for (int j = 0; j < QK_K / 32; j++) {
        const float d = vnpu_fp16_to_f32(*d_out) * (float) ls[j];
        if (d == 0.0f) {
            continue; /* keeps the search's L */
        }
        const float dm = vnpu_fp16_to_f32(*dmin_out) * (float) lm[j];
        for (int l = 0; l < 32; l++) {
            L[32 * j + l] = (uint8_t) clamp_int(nearest_int((x[32 * j + l] + dm) / d), 0, nmax);
        }
    }
}

void q4_K_dequant_row(const void *x, float *y, int64_t k) {
    VNPU_ASSERT(k % QK_K == 0);
    const block_q4_K *b = x;
    for (int64_t i = 0; i < k / QK_K; i++) {
        const float d = vnpu_fp16_to_f32(b[i].d);
        const float dmin = vnpu_fp16_to_f32(b[i].dmin);
        const uint8_t *q = b[i].qs;
        uint8_t sc[QK_K / 32], mn[QK_K / 32];
        q4_K_scales_unpack(b[i].scales, sc, mn);
        for (int is = 0; is < QK_K / 32; is += 2, q += 32) {
            const float d1 = d * (float) sc[is];
            const float m1 = dmin * (float) mn[is];
            const float d2 = d * (float) sc[is + 1];
            const float m2 = dmin * (float) mn[is + 1];
            for (int l = 0; l < 32; l++) {
                *y++ = d1 * (float) (q[l] & 0xf) - m1;
            }
            for (int l = 0; l < 32; l++) {
                *y++ = d2 * (float) (q[l] >> 4) - m2;
            }
        }
    }
}

void q4_K_quant_row_ref(const float *x, void *y, int64_t k) {
    VNPU_ASSERT(k % QK_K == 0);
    block_q4_K *b = y;
    uint8_t L[QK_K];
    for (int64_t i = 0; i < k / QK_K; i++, x += QK_K) {
        qk_K_scales_mins(x, 15, -1.0f, 0.1f, 20, &b[i].d, &b[i].dmin, b[i].scales, L);
        for (int j = 0; j < QK_K / 64; j++) {
            for (int l = 0; l < 32; l++) {
                b[i].qs[32 * j + l] = (uint8_t) (L[64 * j + l] | L[64 * j + l + 32] << 4);
            }
        }
    }
}

void q5_K_dequant_row(const void *x, float *y, int64_t k) {
    VNPU_ASSERT(k % QK_K == 0);
    const block_q5_K *b = x;
    for (int64_t i = 0; i < k / QK_K; i++) {
        const float d = vnpu_fp16_to_f32(b[i].d);
        const float dmin = vnpu_fp16_to_f32(b[i].dmin);
        const uint8_t *ql = b[i].qs;
        const uint8_t *qh = b[i].qh;
        uint8_t u1 = 1, u2 = 2;
        uint8_t sc[QK_K / 32], mn[QK_K / 32];
        q4_K_scales_unpack(b[i].scales, sc, mn);
        for (int is = 0; is < QK_K / 32; is += 2, ql += 32, u1 <<= 2, u2 <<= 2) {
            const float d1 = d * (float) sc[is];
            const float m1 = dmin * (float) mn[is];
            const float d2 = d * (float) sc[is + 1];
            const float m2 = dmin * (float) mn[is + 1];
            for (int l = 0; l < 32; l++) {
                *y++ = d1 * (float) ((ql[l] & 0xf) + (qh[l] & u1 ? 16 : 0)) - m1;
            }
            for (int l = 0; l < 32; l++) {
                *y++ = d2 * (float) ((ql[l] >> 4) + (qh[l] & u2 ? 16 : 0)) - m2;
            }
        }
    }
}

void q5_K_quant_row_ref(const float *x, void *y, int64_t k) {
    VNPU_ASSERT(k % QK_K == 0);
    block_q5_K *b = y;
    uint8_t L[QK_K];
    for (int64_t i = 0; i < k / QK_K; i++, x += QK_K) {
        qk_K_scales_mins(x, 31, -0.5f, 0.1f, 15, &b[i].d, &b[i].dmin, b[i].scales, L);
        memset(b[i].qh, 0, sizeof(b[i].qh));
        for (int j = 0; j < QK_K / 64; j++) {
            for (int l = 0; l < 32; l++) {
                const int l1 = L[64 * j + l];
                const int l2 = L[64 * j + l + 32];
                b[i].qh[l] |= (uint8_t) ((l1 >> 4) << (2 * j) | (l2 >> 4) << (2 * j + 1));
                b[i].qs[32 * j + l] = (uint8_t) ((l1 & 0xf) | (l2 & 0xf) << 4);
            }
        }
    }
}

/* ---- Q6_K ---------------------------------------------------------------------------------------- */

void q6_K_dequant_row(const void *x, float *y, int64_t k) {
    VNPU_ASSERT(k % QK_K == 0);
    const block_q6_K *b = x;
    for (int64_t i = 0; i < k / QK_K; i++) {
        const float d = vnpu_fp16_to_f32(b[i].d);
        const uint8_t *ql = b[i].ql;
        const uint8_t *qh = b[i].qh;
        const int8_t *sc = b[i].scales;
        for (int n = 0; n < QK_K; n += 128, y += 128, ql += 64, qh += 32, sc += 8) {
            for (int l = 0; l < 32; l++) {
                const int is = l / 16;
                const int q1 = ((ql[l] & 0xf) | ((qh[l] >> 0) & 3) << 4) - 32;
                const int q2 = ((ql[l + 32] & 0xf) | ((qh[l] >> 2) & 3) << 4) - 32;
                const int q3 = ((ql[l] >> 4) | ((qh[l] >> 4) & 3) << 4) - 32;
                const int q4 = ((ql[l + 32] >> 4) | ((qh[l] >> 6) & 3) << 4) - 32;
                /* (d * scale) * q, in GGML's order */
                y[l] = d * (float) sc[is] * (float) q1;
                y[l + 32] = d * (float) sc[is + 2] * (float) q2;
                y[l + 64] = d * (float) sc[is + 4] * (float) q3;
                y[l + 96] = d * (float) sc[is + 6] * (float) q4;
            }
        }
    }
}

void q6_K_quant_row_ref(const float *x, void *y, int64_t k) {
    VNPU_ASSERT(k % QK_K == 0);
    block_q6_K *b = y;
    int8_t L[QK_K];
    float scales[QK_K / 16];
    for (int64_t i = 0; i < k / QK_K; i++, x += QK_K) {
        float max_scale = 0.0f;
        float max_abs_scale = 0.0f;
        for (int ib = 0; ib < QK_K / 16; ib++) {
            scales[ib] = make_qx_quants(16, 32, x + 16 * ib, L + 16 * ib, NULL);
            if (fabsf(scales[ib]) > max_abs_scale) {
                max_abs_scale = fabsf(scales[ib]);
                max_scale = scales[ib];
            }
        }
        if (max_abs_scale < GROUP_MAX_EPS) {
            memset(&b[i], 0, sizeof(b[i]));
            continue;
        }
        const float iscale = -128.0f / max_scale;
        b[i].d = vnpu_f32_to_fp16(1.0f / iscale);
        for (int ib = 0; ib < QK_K / 16; ib++) {
            const int s = nearest_int(iscale * scales[ib]);
            b[i].scales[ib] = (int8_t) (s < 127 ? s : 127);
        }
        for (int j = 0; j < QK_K / 16; j++) {
            const float d = vnpu_fp16_to_f32(b[i].d) * (float) b[i].scales[j];
            if (d == 0.0f) {
                continue; /* keeps the search's L */
            }
            for (int l = 0; l < 16; l++) {
                L[16 * j + l] = (int8_t) (clamp_int(nearest_int(x[16 * j + l] / d), -32, 31) + 32);
            }
        }
        for (int n = 0; n < QK_K / 128; n++) {
            const int8_t *Ln = L + 128 * n;
            uint8_t *ql = b[i].ql + 64 * n;
            uint8_t *qh = b[i].qh + 32 * n;
            for (int l = 0; l < 32; l++) {
                ql[l] = (uint8_t) ((Ln[l] & 0xf) | (Ln[l + 64] & 0xf) << 4);
                ql[l + 32] = (uint8_t) ((Ln[l + 32] & 0xf) | (Ln[l + 96] & 0xf) << 4);
                qh[l] =
                    (uint8_t) (Ln[l] >> 4 | (Ln[l + 32] >> 4) << 2 | (Ln[l + 64] >> 4) << 4 | (Ln[l + 96] >> 4) << 6);
            }
        }
    }
}

/* ---- Q8_K ---------------------------------------------------------------------------------------- */

void q8_K_dequant_row(const void *x, float *y, int64_t k) {
    VNPU_ASSERT(k % QK_K == 0);
    const block_q8_K *b = x;
    for (int64_t i = 0; i < k / QK_K; i++, y += QK_K) {
        for (int j = 0; j < QK_K; j++) {
            y[j] = b[i].d * (float) b[i].qs[j];
        }
    }
}

void q8_K_quant_row_ref(const float *x, void *y, int64_t k) {
    VNPU_ASSERT(k % QK_K == 0);
    block_q8_K *b = y;
    for (int64_t i = 0; i < k / QK_K; i++, x += QK_K) {
        float max = 0.0f;
        float amax = 0.0f;
        for (int j = 0; j < QK_K; j++) {
            if (fabsf(x[j]) > amax) {
                amax = fabsf(x[j]);
                max = x[j];
            }
        }
        if (amax == 0.0f) {
            memset(&b[i], 0, sizeof(b[i]));
            continue;
        }
        /* -127 rather than -128 keeps q symmetric (GGML's choice, for its IQ2_XXS AVX dot product) */
        const float iscale = -127.0f / max;
        for (int j = 0; j < QK_K; j++) {
            const int v = nearest_int(iscale * x[j]);
            b[i].qs[j] = (int8_t) (v < 127 ? v : 127);
        }
        for (int j = 0; j < QK_K / 16; j++) {
            int sum = 0;
            for (int l = 0; l < 16; l++) {
                sum += b[i].qs[16 * j + l];
            }
            b[i].bsums[j] = (int16_t) sum;
        }
        b[i].d = 1.0f / iscale;
    }
}
