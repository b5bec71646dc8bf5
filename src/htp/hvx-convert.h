/*
 * F16 <-> F32 conversion of whole VTCM rows with the v68 vcvt instructions (IEEE binary16 and binary32 on every
 * arch: the conversions do not depend on the qf32 / IEEE sf arithmetic path of htp-arch.h).
 *
 *   F16 -> F32  Q6_Wsf_vcvt_Vhf widens 64 halves exactly into even and odd lanes; a word shuffle puts them
 *               back in order.
 *   F32 -> F16  a word deal splits 64 floats into even and odd elements, Q6_Vhf_vcvt_VsfVsf narrows and
 *               interleaves them, rounding to nearest even (overflow to infinity), as GGML's fp32_to_fp16.
 *
 * Rows start on 128-byte boundaries and are whole vectors long: the lanes past n are converted junk the
 * caller does not write back.
 */
#ifndef VNPU_HVX_CONVERT_H
#define VNPU_HVX_CONVERT_H

#include "hex-common.h"
#include "hvx.h"

#include <stdint.h>

/* dst[0..n) = (float) src[0..n): 64 elements per step, one input vector to two output vectors. */
static inline void hvx_f16_to_f32_aa(uint8_t *restrict dst, const uint8_t *restrict src, uint32_t n) {
    const HVX_Vector *s = (const HVX_Vector *) src;
    HVX_Vector *d = (HVX_Vector *) dst;
    for (uint32_t i = 0; i < (n + 63) / 64; i++) {
        const HVX_VectorPair w = Q6_Wsf_vcvt_Vhf(hvx_vmem_ld(s + i));
        const HVX_VectorPair o = Q6_W_vshuff_VVR(Q6_V_hi_W(w), Q6_V_lo_W(w), -4);
        hvx_vmem_st(d + 2 * i, Q6_V_lo_W(o));
        hvx_vmem_st(d + 2 * i + 1, Q6_V_hi_W(o));
    }
}

/* dst[0..n) = (f16) src[0..n): two input vectors to one output vector. */
static inline void hvx_f32_to_f16_aa(uint8_t *restrict dst, const uint8_t *restrict src, uint32_t n) {
    const HVX_Vector *s = (const HVX_Vector *) src;
    HVX_Vector *d = (HVX_Vector *) dst;
    for (uint32_t i = 0; i < (n + 63) / 64; i++) {
        const HVX_VectorPair eo = Q6_W_vdeal_VVR(hvx_vmem_ld(s + 2 * i + 1), hvx_vmem_ld(s + 2 * i), -4);
        hvx_vmem_st(d + i, Q6_Vhf_vcvt_VsfVsf(Q6_V_lo_W(eo), Q6_V_hi_W(eo)));
    }
}

#endif /* VNPU_HVX_CONVERT_H */
