/*
 * Activations on F32 rows: what the host precomputes for op_act (act-ops.c).
 *
 * UNARY_SILU   dst = x * sigmoid(x)                                         (ggml_silu)
 * UNARY_GELU   dst = 0.5 x (1 + tanh(sqrt(2/pi) x (1 + 0.044715 x^2)))      (ggml_gelu, tanh form)
 *              computed as x * sigmoid(2 sqrt(2/pi) x (1 + 0.044715 x^2)), the same function
 * GLU_SWIGLU   dst = silu(a) * b, a = src[0], b = src[1] of the same shape  (ggml_swiglu_split; the host
 *              swaps the operands of a "swapped" GLU)
 */
#ifndef VNPU_ACT_OPS_H
#define VNPU_ACT_OPS_H

#include "htp-msg.h"
#include "row-stream.h"

struct act_kparams {
    struct row_plan plan;
};
_Static_assert(sizeof(struct act_kparams) <= HTP_MAX_KPARAMS * sizeof(uint32_t), "kernel_params are 128 bytes");

struct htp_op_ctx;

/* HTP_OP_UNARY_SILU, _UNARY_GELU: src[0] -> dst[0]; HTP_OP_GLU_SWIGLU: src[0], src[1] -> dst[0]. An htp
 * status. */
uint32_t op_act(struct htp_op_ctx *octx);

#endif /* VNPU_ACT_OPS_H */
