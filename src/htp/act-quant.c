/*
 * The activation preparations of act-quant.h, in HVX on VTCM rows.
 *
 * Q8: per block of 32 (one f32 vector), max |x| by a rotate tree (every lane ends with it), d = max / 127 and
 * 1 / d = 127 * recip(max) (hvx-f32-vec.h, Newton-Raphson: within a few ulp, so a code can differ from
 * round(x / d) by one only at a rounding tie), q = x / d rounded to nearest (hvx_vec_round_i32_small), the codes
 * packed to bytes by two saturating packs, and each group of 4 codes repeated over a vector by vextract + vsplat; d is
 * stored rounded to FP16 (the codes are of the f32 d), d * sum(q) of that.
 */
#include "act-quant.h"

#include "hex-common.h"
#include "hvx-f32-vec.h"
#include "hvx-mm-float.h"

#include <stddef.h>

/* The sum of the 32 int32 lanes, in every lane. */
static inline HVX_Vector hvx_vec_reduce_sum_i32(HVX_Vector v) {
    for (int bytes = 64; bytes >= 4; bytes >>= 1) {
        v = Q6_Vw_vadd_VwVw(v, Q6_V_vror_VR(v, bytes));
    }
    return v;
}

/* x rounded to the nearest integer, as int32 lanes, for |x| <= 127. With IEEE sf arithmetic adding 1.5 * 2^23
 * rounds exactly (nearest even) and the integer is the low mantissa bits; the qf32 forms before v73 may land that sum
 * an ulp off, so there x goes through hf (whose rounding of |x| <= 127 moves it by at most 1/32) and the v68
 * hf-to-int16 conversion (nearest even); both halves of a word hold the code, the arithmetic shift extends it. */
static inline HVX_Vector hvx_vec_round_i32_small(HVX_Vector x) {
#if HTP_ARCH_IEEE_SF
    const HVX_Vector magic = hvx_vec_splat_f32(12582912.0f);
    return Q6_Vw_vsub_VwVw(hvx_vec_add_f32(x, magic), magic);
#else
    return Q6_Vw_vasr_VwR(Q6_Vh_vcvt_Vhf(Q6_Vhf_vcvt_VsfVsf(x, x)), 16);
#endif
}

/* Every lane of v (all the same) rounded to FP16 (nearest even) and widened back: the scale as GGML's Q8_0 stores it
 * (quantize_row_q8_0: the codes from the f32 d, d kept as FP16; the real backend's scale vector is FP16 too). */
static inline HVX_Vector act_round_f16(HVX_Vector v) {
    return Q6_V_lo_W(Q6_Wsf_vcvt_Vhf(Q6_Vhf_vcvt_VsfVsf(v, v)));
}

void act_quant_q8_row(const uint8_t *x, uint32_t n, bool f16_scale, uint8_t *dst) {
    HVX_SCOPE();
    const HVX_Vector abs_mask = Q6_V_vsplat_R(0x7FFFFFFF);
    const HVX_Vector inv_127 = hvx_vec_splat_f32(1.0f / 127.0f), f127 = hvx_vec_splat_f32(127.0f);
    const HVX_Vector subnormal = Q6_V_vsplat_R(0x007FFFFF); /* the largest subnormal's bits */
    for (uint32_t b = 0; b < n / ACT_Q8_BLOCK; b++, dst += ACT_Q8_BLOCK_SIZE) {
        HVX_SCOPE_TRIP();
        const HVX_Vector v = hvx_vmem_ld(x + (size_t) b * HEX_VLEN);
        const HVX_Vector amax = hvx_vec_reduce_max_i32(Q6_V_vand_VV(v, abs_mask)); /* |x| bits order as int32 */
        const HVX_Vector d_f32 = hvx_vec_mul_f32(amax, inv_127);
        const HVX_Vector d = f16_scale ? act_round_f16(d_f32) : d_f32;
        const HVX_VectorPred live = Q6_Q_vcmp_gt_VwVw(amax, subnormal); /* amax >= FLT_MIN */
        const HVX_Vector id = Q6_V_vmux_QVV(live, hvx_vec_mul_f32(hvx_vec_recip_f32(amax), f127), Q6_V_vzero());
        const HVX_Vector q = hvx_vec_round_i32_small(hvx_vec_mul_f32(v, id));
        const HVX_Vector sum = hvx_mm_i32_to_f32(hvx_vec_reduce_sum_i32(q));
        const HVX_Vector h = Q6_Vh_vpack_VwVw_sat(q, q);
        const HVX_Vector bytes = Q6_Vb_vpack_VhVh_sat(h, h); /* bytes 0..31: the codes in order */
        for (uint32_t g = 0; g < ACT_Q8_BLOCK / 4; g++) {
            hvx_vmem_st(dst + g * ACT_Q8_GROUP_STRIDE, Q6_V_vsplat_R(Q6_R_vextract_VR(bytes, (int32_t) (4 * g))));
        }
        hvx_vmem_st(dst + ACT_Q8_D_OFFSET, d);
        hvx_vmem_st(dst + ACT_Q8_DSUM_OFFSET, hvx_vec_mul_f32(d, sum));
    }
}

/* The f32 vector i of a row of n, lanes past n zeroed; a vector wholly past n is zero. */
static inline HVX_Vector act_ld_f32(const uint8_t *x, uint32_t i, uint32_t n) {
    const uint32_t first = i * HVX_F32_PER_VEC;
    if (first >= n) {
        return Q6_V_vzero();
    }
    return hvx_vec_keep_f32(hvx_vmem_ld(x + (size_t) i * HEX_VLEN), n - first);
}

void act_cvt_f16_row(const uint8_t *x, uint32_t n, uint8_t *dst) {
    HVX_SCOPE();
    const uint32_t nvec = act_f16_row_size(n) / HEX_VLEN;
    for (uint32_t i = 0; i < nvec; i++) {
        /* vcvt puts its first operand in the even halves and its second in the odd ones: deal the 64 floats
         * into even and odd elements first, so that half j is element j. */
        const HVX_VectorPair eo = Q6_W_vdeal_VVR(act_ld_f32(x, 2 * i + 1, n), act_ld_f32(x, 2 * i, n), -4);
        hvx_vmem_st(dst + (size_t) i * HEX_VLEN, Q6_Vhf_vcvt_VsfVsf(Q6_V_lo_W(eo), Q6_V_hi_W(eo)));
    }
}

void act_copy_f32_row(const uint8_t *x, uint32_t n, uint8_t *dst) {
    HVX_SCOPE();
    const uint32_t nvec = act_f32_row_size(n) / HEX_VLEN;
    for (uint32_t i = 0; i < nvec; i++) {
        hvx_vmem_st(dst + (size_t) i * HEX_VLEN, act_ld_f32(x, i, n));
    }
}
