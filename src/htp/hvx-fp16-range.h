/*
 * What narrowing f32 to FP16 does to the HMX path's operands (htp-msg.h's struct htp_fp16_range), measured with HVX
 * as the kernels narrow: per worker and operand, a vector of 32 lanes of
 *
 *     max      the largest finite magnitude's bits plus 2^23 (HVX_FP16_RANGE_BIAS)
 *     n_over   finite values of magnitude >= 65520, which FP16's nearest even makes infinities
 *     n_flush  nonzero values of magnitude <= 2^-25 (half FP16's least subnormal), which it makes zeros
 *
 * reduced once per op (hvx_fp16_range_reduce). A value's magnitude bits a (the sign cleared) plus 2^23 is, as a
 * signed word, negative exactly for an infinity or a NaN (a >= 0x7f800000) and ordered as the magnitude for the
 * finite ones: one add makes a single signed compare and a signed max skip the non-finite values. A flush is
 * 0 < a <= 2^-25's bits, a - 1 < those bits unsigned. Eight HVX operations per vector of 32 values, no branch; the
 * helpers are always inlined (in the host emulation a vector passed to a call costs a copy each way).
 */
#ifndef VNPU_HVX_FP16_RANGE_H
#define VNPU_HVX_FP16_RANGE_H

#include "hex-common.h"
#include "htp-msg.h"
#include "hvx.h"

#include <stdint.h>

#define HVX_FP16_RANGE_BIAS  0x00800000 /* 2^23: added to the magnitude bits (above) */
#define HVX_FP16_OVER_BITS   0x477FF000 /* 65520.0f: FP16's largest finite 65504 plus half its ulp, rounds to inf */
#define HVX_FP16_FLUSH_BITS  0x33000000 /* 2^-25: a tie between 0 and 2^-24 that nearest even rounds to 0 */
#define HVX_FP16_RANGE_LANES (HEX_VLEN / 4)

/* One worker's counts of one operand (above). */
struct hvx_fp16_range {
    HVX_Vector max, n_over, n_flush;
};

/* The constants the accumulation compares with, splat once per loop. */
struct hvx_fp16_range_k {
    HVX_Vector abs_mask, bias, over, flush, one;
};

static inline __attribute__((always_inline)) struct hvx_fp16_range_k hvx_fp16_range_k(void) {
    return (struct hvx_fp16_range_k){.abs_mask = Q6_V_vsplat_R(0x7FFFFFFF),
                                     .bias = Q6_V_vsplat_R(HVX_FP16_RANGE_BIAS),
                                     .over = Q6_V_vsplat_R(HVX_FP16_OVER_BITS + HVX_FP16_RANGE_BIAS - 1),
                                     .flush = Q6_V_vsplat_R(HVX_FP16_FLUSH_BITS),
                                     .one = Q6_V_vsplat_R(1)};
}

static inline void hvx_fp16_range_clear(struct hvx_fp16_range *r) {
    r->max = Q6_V_vzero();
    r->n_over = Q6_V_vzero();
    r->n_flush = Q6_V_vzero();
}

/* The 32 f32 values of x, about to be narrowed to FP16, into r. */
static inline __attribute__((always_inline)) void hvx_fp16_range_add(struct hvx_fp16_range *r,
                                                                     const struct hvx_fp16_range_k *k, HVX_Vector x) {
    const HVX_Vector a = Q6_V_vand_VV(x, k->abs_mask);
    const HVX_Vector b = Q6_Vw_vadd_VwVw(a, k->bias); /* negative: inf or NaN */
    r->max = Q6_Vw_vmax_VwVw(r->max, b);
    r->n_over = Q6_Vw_condacc_QVwVw(Q6_Q_vcmp_gt_VwVw(b, k->over), r->n_over, k->one);
    r->n_flush = Q6_Vw_condacc_QVwVw(Q6_Q_vcmp_gt_VuwVuw(k->flush, Q6_Vw_vsub_VwVw(a, k->one)), r->n_flush, k->one);
}

/* The first `valid` lanes (< 32) of x, f32 results read back from FP16, into r's overflow count (the infinities) and
 * max (DST's counts: the narrowing's input is not seen). */
static inline __attribute__((always_inline)) void hvx_fp16_range_add_results(struct hvx_fp16_range *r,
                                                                             const struct hvx_fp16_range_k *k,
                                                                             HVX_Vector x, HVX_VectorPred valid) {
    const HVX_Vector b = Q6_Vw_vadd_VwVw(Q6_V_vand_VV(x, k->abs_mask), k->bias);
    r->max = Q6_Vw_vmax_VwVw(r->max, Q6_V_vmux_QVV(valid, b, Q6_V_vzero()));
    r->n_over =
        Q6_Vw_condacc_QVwVw(Q6_Q_vcmp_eqand_QVwVw(valid, b, Q6_V_vsplat_R((int32_t) 0x80000000u)), r->n_over, k->one);
}

/* Operand k's counts of n workers (w[t][k]) summed into out: counts saturating at UINT32_MAX, the largest magnitude as
 * a float. Scalar reads of the vectors: once per op, after its workers. */
static inline void hvx_fp16_range_reduce(const struct hvx_fp16_range (*w)[HTP_FP16_N], uint32_t n, uint32_t k,
                                         struct htp_fp16_range *out) {
    uint64_t over = 0, flush = 0;
    int32_t max = 0;
    for (uint32_t t = 0; t < n; t++) {
        const struct hvx_fp16_range *r = &w[t][k];
        int32_t m[HVX_FP16_RANGE_LANES];
        uint32_t o[HVX_FP16_RANGE_LANES], f[HVX_FP16_RANGE_LANES];
        __builtin_memcpy(m, &r->max, sizeof(m));
        __builtin_memcpy(o, &r->n_over, sizeof(o));
        __builtin_memcpy(f, &r->n_flush, sizeof(f));
        for (uint32_t i = 0; i < HVX_FP16_RANGE_LANES; i++) {
            max = m[i] > max ? m[i] : max;
            over += o[i];
            flush += f[i];
        }
    }
    const uint32_t bits = max > HVX_FP16_RANGE_BIAS ? (uint32_t) max - HVX_FP16_RANGE_BIAS : 0;
    out->n_overflow = over > UINT32_MAX ? UINT32_MAX : (uint32_t) over;
    out->n_flush = flush > UINT32_MAX ? UINT32_MAX : (uint32_t) flush;
    __builtin_memcpy(&out->max_abs, &bits, sizeof(bits));
    out->pad = 0;
}

#endif /* VNPU_HVX_FP16_RANGE_H */
