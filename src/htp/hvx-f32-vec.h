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
 *   hvx_vec_rsqrt_f32    1/sqrt(s) over the whole f32 range with IEEE special cases: the guess 0x5F3759DF -
 *                        (s >> 1), three Newton-Raphson steps y = y (1.5 - s/2 y^2); subnormals scaled first.
 *   hvx_vec_div_f32      a / b correctly rounded, with IEEE special cases: integer long division of the
 *                        significands (bit-exact with an IEEE host's division on both float paths).
 *   hvx_vec_sigmoid_f32  1 / (1 + exp(-x)), 0 below -87.
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

/* The largest of the 32 int32 lanes, in every lane: a rotate-and-max tree of integer maxima, also the maximum of
 * floats whose bit patterns order as int32 (non-negative floats, |x| bits, order keys of hvx-f32-math.h). */
static inline HVX_Vector hvx_vec_reduce_max_i32(HVX_Vector v) {
    for (int bytes = 64; bytes >= 4; bytes >>= 1) {
        v = Q6_Vw_vmax_VwVw(v, Q6_V_vror_VR(v, bytes));
    }
    return v;
}

/* Lane 0 of v as a float (on the scalar core: a register extract, no memory access). */
static inline float hvx_lane0_f32(HVX_Vector v) {
    union {
        int32_t i;
        float f;
    } u = {.i = Q6_R_vextract_VR(v, 0)};
    return u.f;
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

/* |x|'s significand as a 24-bit integer with its leading one at bit 23 and the exponent that goes with it
 * (x = sig * 2^(expo - 150)), for finite nonzero x; subnormals are normalised by their leading zeros. */
static inline void hvx_vec_unpack_f32(HVX_Vector x_abs, HVX_Vector *sig, HVX_Vector *expo) {
    const HVX_Vector field = Q6_Vuw_vlsr_VuwR(x_abs, 23);
    const HVX_VectorPred normal = Q6_Q_vcmp_gt_VwVw(field, Q6_V_vzero());
    const HVX_Vector m = Q6_V_vmux_QVV(
        normal, Q6_V_vor_VV(Q6_V_vand_VV(x_abs, Q6_V_vsplat_R(0x7FFFFF)), Q6_V_vsplat_R(0x800000)), x_abs);
    const HVX_Vector shift = Q6_Vw_vsub_VwVw(Q6_Vuw_vcl0_Vuw(m), Q6_V_vsplat_R(8)); /* 0 for a normal x */
    *sig = Q6_Vw_vasl_VwVw(m, shift);
    *expo = Q6_Vw_vsub_VwVw(Q6_Vw_vmax_VwVw(field, Q6_V_vsplat_R(1)), shift);
}

/* a / b in every lane, correctly rounded (IEEE round to nearest even, subnormal results included) on either
 * float path: the quotient of the significands by restoring long division on integer lanes, 25 bits and a sticky
 * bit, then rounded at the position the result's exponent puts it (the soft-float algorithm, Knuth TAOCP 4.2.1).
 * IEEE special cases: NaN operands, 0/0 and inf/inf give NaN (Hexagon's 0x7FFFFFFF); x/0 and inf/y give inf,
 * 0/y and x/inf give 0, each with the sign of a times b; overflow gives inf. */
static inline HVX_Vector hvx_vec_div_f32(HVX_Vector a, HVX_Vector b) {
    const HVX_Vector abs_mask = Q6_V_vsplat_R(0x7FFFFFFF), inf = Q6_V_vsplat_R(0x7F800000);
    const HVX_Vector a_abs = Q6_V_vand_VV(a, abs_mask), b_abs = Q6_V_vand_VV(b, abs_mask);
    const HVX_Vector sign = Q6_V_vand_VV(Q6_V_vxor_VV(a, b), Q6_V_vsplat_R((int32_t) 0x80000000));
    HVX_Vector ma, ea, mb, eb;
    hvx_vec_unpack_f32(a_abs, &ma, &ea);
    hvx_vec_unpack_f32(b_abs, &mb, &eb);
    /* ma / mb in [1/2, 2): align so that the first quotient bit is 1, r in [mb, 2 mb) */
    const HVX_VectorPred lt = Q6_Q_vcmp_gt_VwVw(mb, ma);
    HVX_Vector r = Q6_V_vmux_QVV(lt, Q6_Vw_vadd_VwVw(ma, ma), ma);
    HVX_Vector be = Q6_Vw_vadd_VwVw(Q6_Vw_vsub_VwVw(ea, eb), Q6_V_vsplat_R(127)); /* the biased exponent ... */
    be = Q6_Vw_vadd_VwVw(be, Q6_V_vmux_QVV(lt, Q6_V_vsplat_R(-1), Q6_V_vzero())); /* ... of q in [1, 2) */
    /* q = 25 quotient bits, q in [2^24, 2^25): each step subtracts mb where it fits; the borrow's sign word
     * (0 or -1) is minus the complement of the bit, so q gathers the negated borrows and adds 2^25 - 1 */
    HVX_Vector q = Q6_V_vzero();
    for (int i = 0; i < 25; i++) {
        const HVX_Vector d = Q6_Vw_vsub_VwVw(r, mb);
        const HVX_Vector borrow = Q6_Vw_vasr_VwR(d, 31);
        r = Q6_Vw_vadd_VwVw(d, Q6_V_vand_VV(mb, borrow));
        r = Q6_Vw_vadd_VwVw(r, r);
        q = Q6_Vw_vadd_VwVw(Q6_Vw_vadd_VwVw(q, q), borrow);
    }
    q = Q6_Vw_vadd_VwVw(q, Q6_V_vsplat_R((1 << 25) - 1));
    /* drop s = 1 bits (2 - be for a subnormal result, at most 26) with round to nearest even */
    const HVX_Vector s =
        Q6_Vw_vmin_VwVw(Q6_Vw_vmax_VwVw(Q6_Vw_vsub_VwVw(Q6_V_vsplat_R(2), be), Q6_V_vsplat_R(1)), Q6_V_vsplat_R(26));
    const HVX_Vector one = Q6_V_vsplat_R(1);
    const HVX_Vector s1 = Q6_Vw_vsub_VwVw(s, one);
    const HVX_Vector mant = Q6_Vw_vlsr_VwVw(q, s);
    const HVX_Vector half = Q6_V_vand_VV(Q6_Vw_vlsr_VwVw(q, s1), one);
    const HVX_Vector below = Q6_V_vor_VV(Q6_V_vand_VV(q, Q6_Vw_vsub_VwVw(Q6_Vw_vasl_VwVw(one, s1), one)), r);
    const HVX_VectorPred sticky = Q6_Q_vcmp_gt_VwVw(below, Q6_V_vzero());
    const HVX_Vector odd_or_sticky = Q6_V_vor_VV(Q6_V_vand_VV(mant, one), Q6_V_vand_QR(sticky, 1));
    const HVX_Vector up = Q6_V_vand_VV(half, odd_or_sticky);
    /* exponent field be - 1 plus the significand with its leading one: a carry of the rounding moves on into the
     * exponent (and to inf at the top); a subnormal result has field 0 and no leading one */
    const HVX_Vector field = Q6_Vw_vasl_VwR(Q6_Vw_vsub_VwVw(Q6_Vw_vmax_VwVw(be, one), one), 23);
    HVX_Vector res = Q6_Vw_vadd_VwVw(Q6_Vw_vadd_VwVw(field, mant), up);
    res = Q6_V_vmux_QVV(Q6_Q_vcmp_gt_VwVw(be, Q6_V_vsplat_R(254)), inf, res);
    /* special operands */
    const HVX_Vector zero = Q6_V_vzero();
    const HVX_VectorPred a_zero = Q6_Q_vcmp_eq_VwVw(a_abs, zero), b_zero = Q6_Q_vcmp_eq_VwVw(b_abs, zero);
    const HVX_VectorPred a_inf = Q6_Q_vcmp_eq_VwVw(a_abs, inf), b_inf = Q6_Q_vcmp_eq_VwVw(b_abs, inf);
    res = Q6_V_vmux_QVV(Q6_Q_or_QQ(a_inf, b_zero), inf, res);
    res = Q6_V_vmux_QVV(Q6_Q_or_QQ(a_zero, b_inf), zero, res);
    res = Q6_V_vor_VV(res, sign);
    const HVX_VectorPred nan = Q6_Q_or_QQ(Q6_Q_or_QQ(Q6_Q_vcmp_gt_VwVw(a_abs, inf), Q6_Q_vcmp_gt_VwVw(b_abs, inf)),
                                          Q6_Q_or_QQ(Q6_Q_and_QQ(a_zero, b_zero), Q6_Q_and_QQ(a_inf, b_inf)));
    return Q6_V_vmux_QVV(nan, abs_mask, res);
}

/* 1/sqrt(s): the guess 0x5F3759DF - (bits >> 1) and three Newton-Raphson steps y = y (1.5 - (s/2 y) y) (the product
 * in this order stays normal for s up to FLT_MAX). A subnormal s is scaled by 2^24 in its exponent field first and
 * the result by 2^12 after, so the whole positive range is covered. IEEE special cases: +inf gives +0, +-0 gives
 * +-inf, a negative s or a NaN gives NaN (0x7FFFFFFF). */
static inline HVX_Vector hvx_vec_rsqrt_f32(HVX_Vector s) {
    const HVX_Vector zero = Q6_V_vzero(), inf = Q6_V_vsplat_R(0x7F800000), abs_mask = Q6_V_vsplat_R(0x7FFFFFFF);
    const HVX_VectorPred small = Q6_Q_vcmp_gt_VwVw(Q6_V_vsplat_R(0x800000), s); /* subnormal (or zero, negative) */
    HVX_Vector sig, expo;
    hvx_vec_unpack_f32(Q6_V_vand_VV(s, abs_mask), &sig, &expo);
    const HVX_Vector scaled = Q6_V_vor_VV(Q6_V_vand_VV(sig, Q6_V_vsplat_R(0x7FFFFF)),
                                          Q6_Vw_vasl_VwR(Q6_Vw_vadd_VwVw(expo, Q6_V_vsplat_R(24)), 23));
    const HVX_Vector x = Q6_V_vmux_QVV(small, scaled, s);
    const HVX_Vector half_x = hvx_vec_mul_f32(x, hvx_vec_splat_f32(0.5f));
    const HVX_Vector three_halves = hvx_vec_splat_f32(1.5f);
    HVX_Vector y = Q6_Vw_vsub_VwVw(Q6_V_vsplat_R(0x5F3759DF), Q6_Vuw_vlsr_VuwR(x, 1));
    for (int i = 0; i < 3; i++) {
        y = hvx_vec_mul_f32(y, hvx_vec_sub_f32(three_halves, hvx_vec_mul_f32(hvx_vec_mul_f32(half_x, y), y)));
    }
    y = Q6_V_vmux_QVV(small, Q6_Vw_vadd_VwVw(y, Q6_V_vsplat_R(12 << 23)), y);
    y = Q6_V_vmux_QVV(Q6_Q_vcmp_eq_VwVw(s, inf), zero, y);
    y = Q6_V_vmux_QVV(Q6_Q_vcmp_gt_VwVw(zero, s), abs_mask, y); /* negative (and -0, set next) */
    y = Q6_V_vmux_QVV(Q6_Q_vcmp_eq_VwVw(Q6_V_vand_VV(s, abs_mask), zero), Q6_V_vor_VV(inf, s), y);
    return Q6_V_vmux_QVV(Q6_Q_vcmp_gt_VwVw(Q6_V_vand_VV(s, abs_mask), inf), abs_mask, y);
}

/* 1 / (1 + e^-x); x above 87 gives 1 to the reciprocal's error (1 - 2^-24 on IEEE), x below -87 gives 0 as the CPU's,
 * whose e^-x overflows there (e^-x is clamped at e^87 so that 1 + e^-x stays in the reciprocal's range): x sigmoid(x)
 * is then -0 for a finite x and NaN for -inf, as the CPU's x / (1 + e^-x) = -inf / inf. */
static inline HVX_Vector hvx_vec_sigmoid_f32(HVX_Vector x) {
    const HVX_Vector neg_x = Q6_V_vxor_VV(x, Q6_V_vsplat_R((int32_t) 0x80000000));
    const HVX_Vector e = hvx_vec_exp_f32(hvx_vec_min_f32(neg_x, hvx_vec_splat_f32(87.0f)));
    const HVX_Vector y = hvx_vec_recip_f32(hvx_vec_add_f32(e, hvx_vec_splat_f32(1.0f)));
    return Q6_V_vmux_QVV(Q6_Q_vcmp_gt_VsfVsf(hvx_vec_splat_f32(-87.0f), x), Q6_V_vzero(), y);
}

#endif /* VNPU_HVX_F32_VEC_H */
