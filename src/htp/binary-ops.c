/*
 * ADD, SUB, MUL, DIV (binary-ops.h) on the row stream: src0 rows and src1 rows (streamed, expanded or
 * resident, row-stream.h) meet in VTCM as whole aligned vectors; one HVX operation per vector.
 * DIV multiplies by a Newton-Raphson reciprocal (hvx-f32-vec.h): within 2 ulp of the quotient.
 */
#include "binary-ops.h"

#include "htp-ctx.h"
#include "hvx-f32-vec.h"
#include "row-stream.h"

/* A compute of the row stream applying VEC_OP to each vector of each row. */
#define BINARY_COMPUTE(NAME, VEC_OP)                                                                          \
    static void binary_compute_##NAME(const struct row_stream *s, uint8_t *const dst[2], const uint8_t *src0, \
                                      const uint8_t *src1, uint32_t src1_stride, uint32_t nrows) {            \
        HVX_SCOPE();                                                                                          \
        const uint32_t stride = s->layout.row_stride, nvec = stride / HEX_VLEN;                               \
        for (uint32_t r = 0; r < nrows; r++) {                                                                \
            HVX_Vector *restrict d = (HVX_Vector *) (dst[0] + r * stride);                                    \
            const HVX_Vector *restrict a = (const HVX_Vector *) (src0 + r * stride);                          \
            const HVX_Vector *restrict b = (const HVX_Vector *) (src1 + r * src1_stride);                     \
            for (uint32_t i = 0; i < nvec; i++) {                                                             \
                hvx_vmem_st(d + i, VEC_OP(hvx_vmem_ld(a + i), hvx_vmem_ld(b + i)));                           \
            }                                                                                                 \
        }                                                                                                     \
    }

BINARY_COMPUTE(add, hvx_vec_add_f32)
BINARY_COMPUTE(sub, hvx_vec_sub_f32)
BINARY_COMPUTE(mul, hvx_vec_mul_f32)
BINARY_COMPUTE(div, hvx_vec_div_f32)

static const row_compute_fn binary_computes[HTP_OP_COUNT] = {
    [HTP_OP_ADD] = binary_compute_add,
    [HTP_OP_SUB] = binary_compute_sub,
    [HTP_OP_MUL] = binary_compute_mul,
    [HTP_OP_DIV] = binary_compute_div,
};

uint32_t op_binary(struct htp_op_ctx *octx) {
    const struct binary_kparams *kp = htp_op_kparams(octx);
    const struct htp_tensor *src0 = octx->src[0], *src1 = octx->src[1], *dst = octx->dst[0];
    if (src0->type != HTP_TYPE_F32 || src1->type != HTP_TYPE_F32 || dst->type != HTP_TYPE_F32) {
        return HTP_STATUS_NO_SUPPORT;
    }

    struct row_stream s = {
        .octx = octx,
        .plan = &kp->plan,
        .src0 = src0,
        .src1 = src1,
        .dst = {dst, NULL},
        .compute = binary_computes[octx->op.opcode],
        .params = kp,
    };
    return row_stream_run(&s);
}
