/*
 * ADD, SUB, MUL, DIV of F32 tensors with src1 broadcast onto src0 (GGML's binary ops): what the host
 * precomputes for op_binary (binary-ops.c).
 *
 * dst[i0, i1, i2, i3] = src0[i0, i1, i2, i3] op src1[i0 % ne10, i1 % ne11, i2 % ne12, i3 % ne13]
 * src0 and dst: same shape, elements dense (nb0 = 4); any row strides (views, permutes of dims 1..3).
 */
#ifndef VNPU_BINARY_OPS_H
#define VNPU_BINARY_OPS_H

#include "htp-msg.h"
#include "row-stream.h"

struct binary_kparams {
    struct row_plan plan; /* threads, rows per block, src1 broadcast mode and modulos */
};
_Static_assert(sizeof(struct binary_kparams) <= HTP_MAX_KPARAMS * sizeof(uint32_t), "kernel_params are 128 bytes");

struct htp_op_ctx;

/* HTP_OP_ADD, _SUB, _MUL, _DIV: src[0], src[1] -> dst[0]. An htp status. */
uint32_t op_binary(struct htp_op_ctx *octx);

#endif /* VNPU_BINARY_OPS_H */
