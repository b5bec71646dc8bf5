/*
 * RMS_NORM, RMS_NORM_MUL and SCALE (unary-ops.h) on the row stream.
 *
 * RMS_NORM sums squares in four vector accumulators (the row's padding lanes masked off), folds them
 * with the rotate tree, and scales by a Newton-Raphson 1/sqrt (hvx-f32-vec.h): relative error a few
 * ulp for rows up to 10^5 elements against the CPU's double accumulation. A row whose f32 sum leaves
 * [2^-64, 2^64] (squares overflowing to inf from |x| ~ 1.8e19 on, or underflowing) is summed again scaled by
 * a power of two s that brings its largest |x| to [1, 4): exact, so 1 / sqrt(mean(x^2) + eps) =
 * s / sqrt(mean((s x)^2) + eps s^2) keeps the CPU's (double) result for every finite input; a row holding an
 * inf or a NaN gives the CPU's 0 * inf = NaN and NaN.
 */
#include "unary-ops.h"

#include "htp-ctx.h"
#include "hvx-f32-vec.h"
#include "row-stream.h"

/* sum((s x)^2) over the n floats at x (128-byte aligned; the vector holding the tail may carry junk lanes,
 * which are masked), in every lane. */
static inline __attribute__((always_inline)) HVX_Vector hvx_sum_sq_f32_a(const HVX_Vector *restrict x, uint32_t n,
                                                                         HVX_Vector s, bool scaled) {
    const uint32_t nvec = n / HVX_F32_PER_VEC, tail = n % HVX_F32_PER_VEC;
    HVX_Vector acc[4] = {Q6_V_vzero(), Q6_V_vzero(), Q6_V_vzero(), Q6_V_vzero()};
    uint32_t i = 0;
    for (; i + 4 <= nvec; i += 4) {
        for (uint32_t k = 0; k < 4; k++) {
            const HVX_Vector v = scaled ? hvx_vec_mul_f32(hvx_vmem_ld(x + i + k), s) : hvx_vmem_ld(x + i + k);
            acc[k] = hvx_vec_add_f32(acc[k], hvx_vec_mul_f32(v, v));
        }
    }
    for (; i < nvec; i++) {
        const HVX_Vector v = scaled ? hvx_vec_mul_f32(hvx_vmem_ld(x + i), s) : hvx_vmem_ld(x + i);
        acc[0] = hvx_vec_add_f32(acc[0], hvx_vec_mul_f32(v, v));
    }
    if (tail) {
        HVX_Vector t = hvx_vec_keep_f32(hvx_vmem_ld(x + nvec), tail);
        t = scaled ? hvx_vec_mul_f32(t, s) : t;
        acc[1] = hvx_vec_add_f32(acc[1], hvx_vec_mul_f32(t, t));
    }
    return hvx_vec_reduce_sum_f32(hvx_vec_add_f32(hvx_vec_add_f32(acc[0], acc[1]), hvx_vec_add_f32(acc[2], acc[3])));
}

/* The bits of max |x| over the n floats at x (a NaN counts above inf), in every lane. */
static HVX_Vector hvx_abs_max_bits_f32_a(const HVX_Vector *restrict x, uint32_t n) {
    const uint32_t nvec = n / HVX_F32_PER_VEC, tail = n % HVX_F32_PER_VEC;
    const HVX_Vector abs_mask = Q6_V_vsplat_R(0x7FFFFFFF);
    HVX_Vector m = Q6_V_vzero();
    for (uint32_t i = 0; i < nvec; i++) {
        m = Q6_Vw_vmax_VwVw(m, Q6_V_vand_VV(hvx_vmem_ld(x + i), abs_mask));
    }
    if (tail) {
        m = Q6_Vw_vmax_VwVw(m, Q6_V_vand_VV(hvx_vec_keep_f32(hvx_vmem_ld(x + nvec), tail), abs_mask));
    }
    return hvx_vec_reduce_max_i32(m);
}

/* 1 / sqrt(sum(x^2) * inv_n + eps) in every lane for the n floats at x (128-byte aligned, junk tail lanes). */
static HVX_Vector hvx_rms_scale_f32_a(const HVX_Vector *restrict x, uint32_t n, float inv_n, float eps) {
    HVX_SCOPE();
    const HVX_Vector one = hvx_vec_splat_f32(1.0f), v_inv_n = hvx_vec_splat_f32(inv_n), v_eps = hvx_vec_splat_f32(eps);
    const HVX_Vector sum = hvx_sum_sq_f32_a(x, n, one, false);
    const float sum0 = hvx_lane0_f32(sum);
    const HVX_Vector plain = hvx_vec_rsqrt_f32(hvx_vec_add_f32(hvx_vec_mul_f32(sum, v_inv_n), v_eps));
    if (sum0 >= 0x1p-64f && sum0 <= 0x1p64f) {
        return plain;
    }
    const int32_t max_field = Q6_R_vextract_VR(hvx_abs_max_bits_f32_a(x, n), 0) >> 23;
    if (max_field == 255) { /* an inf or a NaN in the row: the sum's inf or NaN gives 0 or NaN, as the CPU */
        return plain;
    }
    /* s = 2^k (normal, so k >= -126): s max|x| in [1, 4); for a max above 2^126 the scale s / sqrt(..) is
     * subnormal and carries a bit or two less */
    const int32_t k = HEX_MAX(HEX_MIN(127 - HEX_MAX(max_field, 1), 126), -126);
    /* eps s^2 = eps 2^(2k) overflows when eps's exponent field plus 2k passes 254 (a zero or subnormal eps stays
     * below 2^126): decided on the integers, the same on both float paths (qf32's overflow is not inf's bits);
     * then mean(x^2) is below eps 2^-100 */
    if (((Q6_R_vextract_VR(v_eps, 0) >> 23) & 0xFF) + 2 * k > 254) {
        return hvx_vec_rsqrt_f32(v_eps);
    }
    const HVX_Vector s = Q6_V_vsplat_R((k + 127) << 23);
    const HVX_Vector eps_s2 = hvx_vec_mul_f32(hvx_vec_mul_f32(v_eps, s), s);
    const HVX_Vector mean_s2 = hvx_vec_mul_f32(hvx_sum_sq_f32_a(x, n, s, true), v_inv_n);
    return hvx_vec_mul_f32(s, hvx_vec_rsqrt_f32(hvx_vec_add_f32(mean_s2, eps_s2)));
}

static void unary_compute_rms_norm(const struct row_stream *s, uint8_t *const dst[2], const uint8_t *src0,
                                   const uint8_t *src1, uint32_t src1_stride, uint32_t nrows) {
    HVX_SCOPE();
    const struct unary_kparams *kp = s->params;
    const uint32_t ne0 = s->dst[0]->ne[0], stride = s->layout.row_stride, nvec = stride / HEX_VLEN;
    (void) src1, (void) src1_stride;
    for (uint32_t r = 0; r < nrows; r++) {
        const HVX_Vector *restrict x = (const HVX_Vector *) (src0 + r * stride);
        HVX_Vector *restrict y = (HVX_Vector *) (dst[0] + r * stride);
        const HVX_Vector scale = hvx_rms_scale_f32_a(x, ne0, kp->inv_ne0, kp->eps);
        for (uint32_t i = 0; i < nvec; i++) {
            hvx_vmem_st(y + i, hvx_vec_mul_f32(hvx_vmem_ld(x + i), scale));
        }
    }
}

static void unary_compute_rms_norm_mul(const struct row_stream *s, uint8_t *const dst[2], const uint8_t *src0,
                                       const uint8_t *src1, uint32_t src1_stride, uint32_t nrows) {
    HVX_SCOPE();
    const struct unary_kparams *kp = s->params;
    const uint32_t ne0 = s->dst[0]->ne[0], stride = s->layout.row_stride, nvec = stride / HEX_VLEN;
    for (uint32_t r = 0; r < nrows; r++) {
        const HVX_Vector *restrict x = (const HVX_Vector *) (src0 + r * stride);
        const HVX_Vector *restrict w = (const HVX_Vector *) (src1 + r * src1_stride);
        HVX_Vector *restrict y = (HVX_Vector *) (dst[0] + r * stride);
        HVX_Vector *restrict norm = (HVX_Vector *) (dst[1] + r * stride);
        const HVX_Vector scale = hvx_rms_scale_f32_a(x, ne0, kp->inv_ne0, kp->eps);
        for (uint32_t i = 0; i < nvec; i++) {
            const HVX_Vector n = hvx_vec_mul_f32(hvx_vmem_ld(x + i), scale);
            hvx_vmem_st(norm + i, n);
            hvx_vmem_st(y + i, hvx_vec_mul_f32(n, hvx_vmem_ld(w + i)));
        }
    }
}

static void unary_compute_scale(const struct row_stream *s, uint8_t *const dst[2], const uint8_t *src0,
                                const uint8_t *src1, uint32_t src1_stride, uint32_t nrows) {
    HVX_SCOPE();
    const struct unary_kparams *kp = s->params;
    const uint32_t stride = s->layout.row_stride, nvec = stride / HEX_VLEN;
    const HVX_Vector scale = hvx_vec_splat_f32(kp->scale), bias = hvx_vec_splat_f32(kp->bias);
    (void) src1, (void) src1_stride;
    for (uint32_t r = 0; r < nrows; r++) {
        const HVX_Vector *restrict x = (const HVX_Vector *) (src0 + r * stride);
        HVX_Vector *restrict y = (HVX_Vector *) (dst[0] + r * stride);
        for (uint32_t i = 0; i < nvec; i++) {
            hvx_vmem_st(y + i, hvx_vec_add_f32(hvx_vec_mul_f32(hvx_vmem_ld(x + i), scale), bias));
        }
    }
}

static const row_compute_fn unary_computes[HTP_OP_COUNT] = {
    [HTP_OP_RMS_NORM] = unary_compute_rms_norm,
    [HTP_OP_RMS_NORM_MUL] = unary_compute_rms_norm_mul,
    [HTP_OP_SCALE] = unary_compute_scale,
};

uint32_t op_unary(struct htp_op_ctx *octx) {
    const struct unary_kparams *kp = htp_op_kparams(octx);
    const bool fused = octx->op.opcode == HTP_OP_RMS_NORM_MUL;
    struct row_stream s = {
        .octx = octx,
        .plan = &kp->plan,
        .src0 = octx->src[0],
        .src1 = fused ? octx->src[1] : NULL,
        .dst = {octx->dst[0], fused ? octx->dst[1] : NULL},
        .compute = unary_computes[octx->op.opcode],
        .params = kp,
    };
    return row_stream_run(&s);
}
