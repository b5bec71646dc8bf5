/*
 * RMS_NORM, RMS_NORM_MUL and SCALE (unary-ops.h) on the row stream.
 *
 * RMS_NORM sums squares in four vector accumulators (the row's padding lanes masked off), folds them
 * with the rotate tree, and scales by a Newton-Raphson 1/sqrt (hvx-f32-vec.h): relative error a few
 * ulp for rows up to 10^5 elements against the CPU's double accumulation.
 */
#include "unary-ops.h"

#include "htp-ctx.h"
#include "hvx-f32-vec.h"
#include "row-stream.h"

/* 1 / sqrt(sum(x^2) * inv_n + eps) in every lane, for the n floats at x (128-byte aligned; the vector
 * holding the tail may carry junk lanes, which are masked). */
static HVX_Vector hvx_rms_scale_f32_a(const HVX_Vector *restrict x, uint32_t n, float inv_n, float eps) {
    const uint32_t nvec = n / HVX_F32_PER_VEC, tail = n % HVX_F32_PER_VEC;
    HVX_Vector acc[4] = {Q6_V_vzero(), Q6_V_vzero(), Q6_V_vzero(), Q6_V_vzero()};
    uint32_t i = 0;
    for (; i + 4 <= nvec; i += 4) {
        for (uint32_t k = 0; k < 4; k++) {
            const HVX_Vector v = hvx_vmem_ld(x + i + k);
            acc[k] = hvx_vec_add_f32(acc[k], hvx_vec_mul_f32(v, v));
        }
    }
    for (; i < nvec; i++) {
        const HVX_Vector v = hvx_vmem_ld(x + i);
        acc[0] = hvx_vec_add_f32(acc[0], hvx_vec_mul_f32(v, v));
    }
    if (tail) {
        const HVX_Vector t = hvx_vec_keep_f32(hvx_vmem_ld(x + nvec), tail);
        acc[1] = hvx_vec_add_f32(acc[1], hvx_vec_mul_f32(t, t));
    }
    const HVX_Vector sum =
        hvx_vec_reduce_sum_f32(hvx_vec_add_f32(hvx_vec_add_f32(acc[0], acc[1]), hvx_vec_add_f32(acc[2], acc[3])));
    const HVX_Vector mean = hvx_vec_mul_f32(sum, hvx_vec_splat_f32(inv_n));
    return hvx_vec_rsqrt_f32(hvx_vec_add_f32(mean, hvx_vec_splat_f32(eps)));
}

static void unary_compute_rms_norm(const struct row_stream *s, uint8_t *const dst[2], const uint8_t *src0,
                                   const uint8_t *src1, uint32_t src1_stride, uint32_t nrows) {
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
