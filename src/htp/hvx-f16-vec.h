/*
 * One vector of F16 operand widened in registers, for f32 kernels that consume an F16 operand (a mask) as they
 * widen it; hvx-convert.h converts whole rows in VTCM the same way. Q6_Wsf_vcvt_Vhf widens exactly but splits
 * even and odd halves into the pair's lo and hi; one Q6_W_vshuff_VVR (word interleave) restores the order:
 *
 *     h0 h1 h2 ... h63  --vcvt-->  lo = h0 h2 ... h62, hi = h1 h3 ... h63  --vshuff-->  h0 .. h31 | h32 .. h63
 */
#ifndef VNPU_HVX_F16_VEC_H
#define VNPU_HVX_F16_VEC_H

#include "hvx.h"

#define HVX_F16_PER_VEC 64

/* The 64 halves of v as f32: elements 0..31 in the pair's lo, 32..63 in its hi (exact). */
static inline HVX_VectorPair hvx_vec_f16_to_f32(HVX_Vector v) {
    const HVX_VectorPair eo = Q6_Wsf_vcvt_Vhf(v);
    return Q6_W_vshuff_VVR(Q6_V_hi_W(eo), Q6_V_lo_W(eo), -4);
}

#endif /* VNPU_HVX_F16_VEC_H */
