/*
 * SILU, GELU and SWIGLU (act-ops.h) on the row stream, through the vector sigmoid of hvx-f32-vec.h
 * (exp by range reduction and a minimax polynomial, reciprocal by Newton-Raphson): a few ulp from the
 * CPU's double-precision functions over the range where they are not 0 or x.
 */
#include "act-ops.h"

#include "htp-ctx.h"
#include "hvx-f32-vec.h"
#include "row-stream.h"

static inline HVX_Vector hvx_vec_silu_f32(HVX_Vector x) {
    return hvx_vec_mul_f32(x, hvx_vec_sigmoid_f32(x));
}

static inline HVX_Vector hvx_vec_gelu_f32(HVX_Vector x) {
    const HVX_Vector c = hvx_vec_splat_f32(0.044715f);
    const HVX_Vector two_sqrt_2_over_pi = hvx_vec_splat_f32(1.59576912160573071f);
    const HVX_Vector t = hvx_vec_add_f32(hvx_vec_mul_f32(hvx_vec_mul_f32(x, x), c), hvx_vec_splat_f32(1.0f));
    const HVX_Vector z2 = hvx_vec_mul_f32(hvx_vec_mul_f32(x, t), two_sqrt_2_over_pi);
    return hvx_vec_mul_f32(x, hvx_vec_sigmoid_f32(z2));
}

/* A compute of the row stream: dst = EXPR per vector, with x the src0 vector and g the src1 vector. */
#define ACT_COMPUTE(NAME, EXPR)                                                                            \
    static void act_compute_##NAME(const struct row_stream *s, uint8_t *const dst[2], const uint8_t *src0, \
                                   const uint8_t *src1, uint32_t src1_stride, uint32_t nrows) {            \
        HVX_SCOPE();                                                                                       \
        const uint32_t stride = s->layout.row_stride, nvec = stride / HEX_VLEN;                            \
        for (uint32_t r = 0; r < nrows; r++) {                                                             \
            HVX_Vector *restrict d = (HVX_Vector *) (dst[0] + r * stride);                                 \
            const HVX_Vector *restrict a = (const HVX_Vector *) (src0 + r * stride);                       \
            const HVX_Vector *restrict b = src1 ? (const HVX_Vector *) (src1 + r * src1_stride) : a;       \
            for (uint32_t i = 0; i < nvec; i++) {                                                          \
                const HVX_Vector x = hvx_vmem_ld(a + i), g = hvx_vmem_ld(b + i);                           \
                (void) g;                                                                                  \
                hvx_vmem_st(d + i, EXPR);                                                                  \
            }                                                                                              \
        }                                                                                                  \
    }

ACT_COMPUTE(silu, hvx_vec_silu_f32(x))
ACT_COMPUTE(gelu, hvx_vec_gelu_f32(x))
ACT_COMPUTE(swiglu, hvx_vec_mul_f32(hvx_vec_silu_f32(x), g))

static const row_compute_fn act_computes[HTP_OP_COUNT] = {
    [HTP_OP_UNARY_SILU] = act_compute_silu,
    [HTP_OP_UNARY_GELU] = act_compute_gelu,
    [HTP_OP_GLU_SWIGLU] = act_compute_swiglu,
};

uint32_t op_act(struct htp_op_ctx *octx) {
    const struct act_kparams *kp = htp_op_kparams(octx);
    const bool glu = octx->op.opcode == HTP_OP_GLU_SWIGLU;
    struct row_stream s = {
        .octx = octx,
        .plan = &kp->plan,
        .src0 = octx->src[0],
        .src1 = glu ? octx->src[1] : NULL,
        .dst = {octx->dst[0], NULL},
        .compute = act_computes[octx->op.opcode],
        .params = kp,
    };
    return row_stream_run(&s);
}
