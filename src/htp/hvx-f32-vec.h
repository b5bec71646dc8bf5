/*
 * F32 vector arithmetic for the kernels: 32 floats per 128-byte HVX vector, with the target's float path
 * chosen here and nowhere else, and the transcendental functions built from it.
 *
 * Float path (htp-arch.h): from v73 on the IEEE single-precision forms (Q6_Vsf_vadd_VsfVsf, ...), each result rounded
 * once; on v68/v69 the qf32 forms (Q6_Vqf32_vadd_VsfVsf, ...) converted back to sf after each operation,
 * as the upstream kernels do. Integer tricks (exponent arithmetic, initial guesses) use the Q6_Vw forms.
 *
 * Approximations (errors measured against double precision by tests/htp/test-hvx-f32.c):
 *   hvx_vec_exp_f32      round-to-nearest range reduction x = n ln2 + r (Cody-Waite split of ln2),
 *                        Cephes expf minimax polynomial on |r| <= ln2/2, 2^n added to the exponent;
 *                        x clamped to [-87, 88] so every result is a normal float.
 *   hvx_vec_recip_f32    1/d for d >= FLT_MIN: the bit-pattern guess 0x7EF311C3 - d (12 % error), three
 *                        Newton-Raphson steps r = r (2 - d r).
 *   hvx_vec_rsqrt_f32    1/sqrt(s) for s > 0: the guess 0x5F3759DF - (s >> 1), three Newton-Raphson steps
 *                        y = y (1.5 - s/2 y^2).
 *   hvx_vec_sigmoid_f32  1 / (1 + exp(-x)).
 */
#ifndef VNPU_HVX_F32_VEC_H
#define VNPU_HVX_F32_VEC_H

#include "htp-arch.h"
#include "hvx.h"

#include <stdint.h>

/* The IEEE path needs the v73 sf intrinsics: the library's arch and the HVX version it is compiled for agree. */
#if HTP_ARCH_IEEE_SF && __HVX_ARCH__ < 73
#error "HTP_ARCH_IEEE_SF needs __HVX_ARCH__ >= 73 (build with VNPU_HTP_ARCH equal to the HVX arch)"
#endif

#define HVX_F32_PER_VEC 32

/* The bits of f in every lane. */
static inline HVX_Vector hvx_vec_splat_f32(float f) {
    union {
        float f;
        int32_t i;
    } u = {.f = f};
    return Q6_V_vsplat_R(u.i);
}

#if HTP_ARCH_IEEE_SF
static inline HVX_Vector hvx_vec_add_f32(HVX_Vector a, HVX_Vector b) {
    return Q6_Vsf_vadd_VsfVsf(a, b);
}
static inline HVX_Vector hvx_vec_sub_f32(HVX_Vector a, HVX_Vector b) {
    return Q6_Vsf_vsub_VsfVsf(a, b);
}
static inline HVX_Vector hvx_vec_mul_f32(HVX_Vector a, HVX_Vector b) {
    return Q6_Vsf_vmpy_VsfVsf(a, b);
}
#else
static inline HVX_Vector hvx_vec_add_f32(HVX_Vector a, HVX_Vector b) {
    return Q6_Vsf_equals_Vqf32(Q6_Vqf32_vadd_VsfVsf(a, b));
}
static inline HVX_Vector hvx_vec_sub_f32(HVX_Vector a, HVX_Vector b) {
    return Q6_Vsf_equals_Vqf32(Q6_Vqf32_vsub_VsfVsf(a, b));
}
static inline HVX_Vector hvx_vec_mul_f32(HVX_Vector a, HVX_Vector b) {
    return Q6_Vsf_equals_Vqf32(Q6_Vqf32_vmpy_VsfVsf(a, b));
}
#endif

static inline HVX_Vector hvx_vec_max_f32(HVX_Vector a, HVX_Vector b) {
    return Q6_Vsf_vmax_VsfVsf(a, b);
}
static inline HVX_Vector hvx_vec_min_f32(HVX_Vector a, HVX_Vector b) {
    return Q6_Vsf_vmin_VsfVsf(a, b);
}

/* The sum of the 32 lanes, in every lane. A rotate-and-add tree: lane i and lane i + k add the same two
 * partial sums at each step, so all lanes end bitwise equal. */
static inline HVX_Vector hvx_vec_reduce_sum_f32(HVX_Vector v) {
    for (int bytes = 64; bytes >= 4; bytes >>= 1) {
        v = hvx_vec_add_f32(v, Q6_V_vror_VR(v, bytes));
    }
    return v;
}

/* v with lanes n..31 set to 0 (n = 0..32): the tail of a row in its 128-byte padded VTCM slot. */
static inline HVX_Vector hvx_vec_keep_f32(HVX_Vector v, uint32_t n) {
    return n >= HVX_F32_PER_VEC ? v : Q6_V_vmux_QVV(Q6_Q_vsetq_R((int32_t) (n * 4)), v, Q6_V_vzero());
}

/* e^x for x in [-87, 88] (clamped outside), every result a normal float. */
static inline HVX_Vector hvx_vec_exp_f32(HVX_Vector x) {
    const HVX_Vector magic = hvx_vec_splat_f32(12582912.0f); /* 1.5 * 2^23: adding it rounds to an integer */
    x = hvx_vec_min_f32(hvx_vec_max_f32(x, hvx_vec_splat_f32(-87.0f)), hvx_vec_splat_f32(88.0f));
    const HVX_Vector t = hvx_vec_add_f32(hvx_vec_mul_f32(x, hvx_vec_splat_f32(1.44269504088896341f)), magic);
    const HVX_Vector n_i = Q6_Vw_vsub_VwVw(t, magic); /* n = round(x / ln2) as an integer */
    const HVX_Vector n_f = hvx_vec_sub_f32(t, magic); /* ... and as a float, exactly */
    HVX_Vector r = hvx_vec_sub_f32(x, hvx_vec_mul_f32(n_f, hvx_vec_splat_f32(0.693359375f)));
    r = hvx_vec_sub_f32(r, hvx_vec_mul_f32(n_f, hvx_vec_splat_f32(-2.12194440e-4f)));
    HVX_Vector p = hvx_vec_splat_f32(1.9875691500e-4f);
    p = hvx_vec_add_f32(hvx_vec_mul_f32(p, r), hvx_vec_splat_f32(1.3981999507e-3f));
    p = hvx_vec_add_f32(hvx_vec_mul_f32(p, r), hvx_vec_splat_f32(8.3334519073e-3f));
    p = hvx_vec_add_f32(hvx_vec_mul_f32(p, r), hvx_vec_splat_f32(4.1665795894e-2f));
    p = hvx_vec_add_f32(hvx_vec_mul_f32(p, r), hvx_vec_splat_f32(1.6666665459e-1f));
    p = hvx_vec_add_f32(hvx_vec_mul_f32(p, r), hvx_vec_splat_f32(5.0000001201e-1f));
    p = hvx_vec_add_f32(hvx_vec_mul_f32(p, hvx_vec_mul_f32(r, r)), r);
    p = hvx_vec_add_f32(p, hvx_vec_splat_f32(1.0f));    /* e^r, in [0.7, 1.42] */
    return Q6_Vw_vadd_VwVw(p, Q6_Vw_vasl_VwR(n_i, 23)); /* times 2^n: n into the exponent field */
}

/* 1/d for d in [FLT_MIN, 2^126] (positive, normal, reciprocal normal). */
static inline HVX_Vector hvx_vec_recip_f32(HVX_Vector d) {
    const HVX_Vector two = hvx_vec_splat_f32(2.0f);
    HVX_Vector r = Q6_Vw_vsub_VwVw(Q6_V_vsplat_R(0x7EF311C3), d);
    for (int i = 0; i < 3; i++) {
        r = hvx_vec_mul_f32(r, hvx_vec_sub_f32(two, hvx_vec_mul_f32(d, r)));
    }
    return r;
}

/* a / b for finite a and b: |b| below FLT_MIN gives +-inf, above 2^126 gives +-0 (the exact quotient would
 * be subnormal); the sign is that of a times b. */
static inline HVX_Vector hvx_vec_div_f32(HVX_Vector a, HVX_Vector b) {
    const HVX_Vector sign_mask = Q6_V_vsplat_R((int32_t) 0x80000000);
    const HVX_Vector b_abs = Q6_V_vand_VV(b, Q6_V_vnot_V(sign_mask));
    const HVX_Vector sign = Q6_V_vand_VV(Q6_V_vxor_VV(a, b), sign_mask);
    HVX_Vector q = hvx_vec_mul_f32(a, Q6_V_vxor_VV(hvx_vec_recip_f32(b_abs), Q6_V_vand_VV(b, sign_mask)));
    q = Q6_V_vmux_QVV(Q6_Q_vcmp_gt_VsfVsf(hvx_vec_splat_f32(1.17549435e-38f), b_abs),
                      Q6_V_vor_VV(Q6_V_vsplat_R(0x7F800000), sign), q);
    return Q6_V_vmux_QVV(Q6_Q_vcmp_gt_VsfVsf(b_abs, hvx_vec_splat_f32(8.50705917e37f)), sign, q);
}

/* 1/sqrt(s) for normal s > 0. */
static inline HVX_Vector hvx_vec_rsqrt_f32(HVX_Vector s) {
    const HVX_Vector half_s = hvx_vec_mul_f32(s, hvx_vec_splat_f32(0.5f));
    const HVX_Vector three_halves = hvx_vec_splat_f32(1.5f);
    HVX_Vector y = Q6_Vw_vsub_VwVw(Q6_V_vsplat_R(0x5F3759DF), Q6_Vuw_vlsr_VuwR(s, 1));
    for (int i = 0; i < 3; i++) {
        y = hvx_vec_mul_f32(y, hvx_vec_sub_f32(three_halves, hvx_vec_mul_f32(half_s, hvx_vec_mul_f32(y, y))));
    }
    return y;
}

/* 1 / (1 + e^-x); x below -87 gives sigmoid(-87) = 1.6e-38 (so that 1 + e^-x stays in the reciprocal's
 * range), x above 87 gives 1. */
static inline HVX_Vector hvx_vec_sigmoid_f32(HVX_Vector x) {
    const HVX_Vector neg_x = Q6_V_vxor_VV(x, Q6_V_vsplat_R((int32_t) 0x80000000));
    const HVX_Vector e = hvx_vec_exp_f32(hvx_vec_min_f32(neg_x, hvx_vec_splat_f32(87.0f)));
    return hvx_vec_recip_f32(hvx_vec_add_f32(e, hvx_vec_splat_f32(1.0f)));
}

#endif /* VNPU_HVX_F32_VEC_H */
