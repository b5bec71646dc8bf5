/*
 * RMS_NORM, the fused RMS_NORM + MUL, and SCALE on F32 rows: what the host precomputes for op_unary
 * (unary-ops.c).
 *
 * RMS_NORM      dst = x / sqrt(mean(x^2) + eps) per row (ggml_rms_norm; Zhang & Sennrich 2019)
 * RMS_NORM_MUL  dst[0] = rms_norm(x) * w, w broadcast as a binary op's src1; dst[1] = rms_norm(x), so the
 *               norm stays available to any later reader (the host cannot see the whole graph)
 * SCALE         dst = x * scale + bias (ggml_scale, ggml_scale_bias)
 */
#ifndef VNPU_UNARY_OPS_H
#define VNPU_UNARY_OPS_H

#include "htp-msg.h"
#include "row-stream.h"

struct unary_kparams {
    struct row_plan plan;
    float eps;     /* RMS_NORM: op_params[0] */
    float inv_ne0; /* RMS_NORM: 1 / ne0, the mean's divisor */
    float scale;   /* SCALE: op_params[0] */
    float bias;    /* SCALE: op_params[1] */
};
_Static_assert(sizeof(struct unary_kparams) <= HTP_MAX_KPARAMS * sizeof(uint32_t), "kernel_params are 128 bytes");

struct htp_op_ctx;

/* HTP_OP_RMS_NORM, _SCALE: src[0] -> dst[0]; HTP_OP_RMS_NORM_MUL: src[0], src[1] (the weight) -> dst[0],
 * dst[1]. An htp status. */
uint32_t op_unary(struct htp_op_ctx *octx);

#endif /* VNPU_UNARY_OPS_H */
