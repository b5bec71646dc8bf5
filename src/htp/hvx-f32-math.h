/*
 * The f32 vector math the attention kernels add to hvx-f32-vec.h: lanes of vectors in ordinary memory, order keys
 * (softmax's maxima, with hvx_vec_reduce_max_i32), sine and cosine (the ROPE angle cache) and tanh (FLASH_ATTN_EXT's
 * logit softcap). Errors against double precision are measured by tests/htp/test-hvx-f32-math.c on both float paths.
 *
 *   hvx_vec_sincos_f32  Cody-Waite reduction x = n pi/2 + r with pi/2 split in four floats, the first three
 *                       of 7 significant bits, so n * part is exact for |n| < 2^17 and every step but the
 *                       last is exact (Sterbenz): r is within a few ulp of its true value for |x| < 2^17
 *                       (131072 rad: a position of 131072 in ROPE's first pair), and degrades past it. Then
 *                       the Cephes sinf/cosf minimax polynomials on |r| <= pi/4 and the quadrant n mod 4.
 *                       v79 (IEEE sf): within 8e-8 absolute over |x| < 2^17; v68/v69 (qf32, every step
 *                       rounded): 1.4e-4 over |x| < 1024.
 *   hvx_vec_tanh_f32    the Cephes tanhf polynomial near 0 (a few ulp relative), 1 - 2 / (e^2x + 1) from
 *                       |x| = 0.625 on: within 1e-7 absolute on v79.
 */
#ifndef VNPU_HVX_F32_MATH_H
#define VNPU_HVX_F32_MATH_H

#include "hvx-f32-vec.h"

/* Lane i of vectors kept in ordinary memory (a worker's stack scratch that the scalar core reads or fills):
 * through a character copy, so that no compiler's type-based alias analysis separates the scalar access from the
 * vector loads and stores of the same bytes (GCC does, for the host emulation's HVX_Vector union against a float
 * array). */
static inline float hvx_lane_get_f32(const HVX_Vector *v, uint32_t i) {
    float f;
    __builtin_memcpy(&f, (const uint8_t *) v + 4 * i, 4);
    return f;
}

static inline void hvx_lane_set_f32(HVX_Vector *v, uint32_t i, float f) {
    __builtin_memcpy((uint8_t *) v + 4 * i, &f, 4);
}

/* x's lanes as int32 that order as the floats do (no NaN lanes): negative floats get their magnitude bits
 * flipped. The map is its own inverse. Maxima of keys use the integer vmax (and hvx_vec_reduce_max_i32), one ALU op,
 * where the float vmax costs the emulation about eight times as much (its NaN and signed-zero handling). */
static inline HVX_Vector hvx_vec_f32_order_key(HVX_Vector x) {
    return Q6_V_vxor_VV(x, Q6_V_vand_VV(Q6_Vw_vasr_VwR(x, 31), Q6_V_vsplat_R(0x7FFFFFFF)));
}

/* sin x and cos x for finite x, |x| < 2^17 for full accuracy. */
static inline void hvx_vec_sincos_f32(HVX_Vector x, HVX_Vector *sin_x, HVX_Vector *cos_x) {
    const HVX_Vector magic = hvx_vec_splat_f32(12582912.0f); /* 1.5 * 2^23: adding it rounds to an integer */
    const HVX_Vector t = hvx_vec_add_f32(hvx_vec_mul_f32(x, hvx_vec_splat_f32(0.636619772367581343f)), magic);
    const HVX_Vector n_i = Q6_Vw_vsub_VwVw(t, magic); /* n = round(x 2/pi) */
    const HVX_Vector n_f = hvx_vec_sub_f32(t, magic);
    HVX_Vector r = hvx_vec_sub_f32(x, hvx_vec_mul_f32(n_f, hvx_vec_splat_f32(0x1.9p+0f)));
    r = hvx_vec_sub_f32(r, hvx_vec_mul_f32(n_f, hvx_vec_splat_f32(0x1.0cp-7f)));
    r = hvx_vec_sub_f32(r, hvx_vec_mul_f32(n_f, hvx_vec_splat_f32(0x1.ecp-14f)));
    r = hvx_vec_sub_f32(r, hvx_vec_mul_f32(n_f, hvx_vec_splat_f32(0x1.5110b4p-22f)));

    const HVX_Vector z = hvx_vec_mul_f32(r, r);
    HVX_Vector s =
        hvx_vec_add_f32(hvx_vec_mul_f32(hvx_vec_splat_f32(-1.9515295891e-4f), z), hvx_vec_splat_f32(8.3321608736e-3f));
    s = hvx_vec_add_f32(hvx_vec_mul_f32(s, z), hvx_vec_splat_f32(-1.6666654611e-1f));
    s = hvx_vec_add_f32(hvx_vec_mul_f32(hvx_vec_mul_f32(s, z), r), r);
    HVX_Vector c = hvx_vec_add_f32(hvx_vec_mul_f32(hvx_vec_splat_f32(2.443315711809948e-5f), z),
                                   hvx_vec_splat_f32(-1.388731625493765e-3f));
    c = hvx_vec_add_f32(hvx_vec_mul_f32(c, z), hvx_vec_splat_f32(4.166664568298827e-2f));
    c = hvx_vec_mul_f32(hvx_vec_mul_f32(c, z), z);
    c = hvx_vec_add_f32(hvx_vec_sub_f32(c, hvx_vec_mul_f32(z, hvx_vec_splat_f32(0.5f))), hvx_vec_splat_f32(1.0f));

    /* Quadrant n mod 4: odd swaps sin and cos; sin is negated for 2, 3 and cos for 1, 2. */
    const HVX_Vector sign = Q6_V_vsplat_R((int32_t) 0x80000000);
    const HVX_VectorPred odd = Q6_Q_vcmp_gt_VwVw(Q6_V_vzero(), Q6_Vw_vasl_VwR(n_i, 31));
    const HVX_Vector sin_sign = Q6_V_vand_VV(Q6_Vw_vasl_VwR(n_i, 30), sign);
    const HVX_Vector cos_sign = Q6_V_vand_VV(Q6_Vw_vasl_VwR(Q6_Vw_vadd_VwVw(n_i, Q6_V_vsplat_R(1)), 30), sign);
    *sin_x = Q6_V_vxor_VV(Q6_V_vmux_QVV(odd, c, s), sin_sign);
    *cos_x = Q6_V_vxor_VV(Q6_V_vmux_QVV(odd, s, c), cos_sign);
}

/* tanh x for finite x: the Cephes tanhf odd polynomial for |x| < 0.625; above, sign(x) (1 - 2 / (e^2|x| + 1))
 * with |x| clamped to 9 (tanh is 1 in f32 past 9), where 2 / (e + 1) <= 0.5 keeps its ulp small. */
static inline HVX_Vector hvx_vec_tanh_f32(HVX_Vector x) {
    const HVX_Vector z = hvx_vec_mul_f32(x, x);
    HVX_Vector p = hvx_vec_add_f32(hvx_vec_mul_f32(hvx_vec_splat_f32(-5.70498872745e-3f), z),
                                   hvx_vec_splat_f32(2.06390887954e-2f));
    p = hvx_vec_add_f32(hvx_vec_mul_f32(p, z), hvx_vec_splat_f32(-5.37397155531e-2f));
    p = hvx_vec_add_f32(hvx_vec_mul_f32(p, z), hvx_vec_splat_f32(1.33314422036e-1f));
    p = hvx_vec_add_f32(hvx_vec_mul_f32(p, z), hvx_vec_splat_f32(-3.33332819422e-1f));
    p = hvx_vec_add_f32(hvx_vec_mul_f32(hvx_vec_mul_f32(p, z), x), x);

    const HVX_Vector sign = Q6_V_vsplat_R((int32_t) 0x80000000);
    const HVX_Vector abs_x = Q6_V_vand_VV(x, Q6_V_vnot_V(sign));
    const HVX_Vector a = hvx_vec_min_f32(abs_x, hvx_vec_splat_f32(9.0f));
    const HVX_Vector q =
        hvx_vec_recip_f32(hvx_vec_add_f32(hvx_vec_exp_f32(hvx_vec_add_f32(a, a)), hvx_vec_splat_f32(1.0f)));
    const HVX_Vector t =
        Q6_V_vor_VV(hvx_vec_sub_f32(hvx_vec_splat_f32(1.0f), hvx_vec_add_f32(q, q)), Q6_V_vand_VV(x, sign));

    /* |x| < 0.625 compared as integers: the bits of non-negative floats order as the values do */
    return Q6_V_vmux_QVV(Q6_Q_vcmp_gt_VwVw(hvx_vec_splat_f32(0.625f), abs_x), p, t);
}

#endif /* VNPU_HVX_F32_MATH_H */
