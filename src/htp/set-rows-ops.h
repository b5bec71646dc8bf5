/*
 * SET_ROWS into F32 and F16 rows: what the host precomputes for op_set_rows (set-rows-ops.c).
 *
 * SET_ROWS  dst row (idx[i01, i02 % ne11, i03 % ne12], i02, i03) = src row (i01, i02, i03), converted to dst's
 *           type (ggml_set_rows): src[0] F32 rows [ne00, ne01, ne02, ne03], src[1] I32 or I64 indices [ne01, ne11,
 *           ne12], dst[0] the destination (F32 or F16 [ne00, ne1, ne02, ne03], rows dense); the KV cache write of
 *           the llama graph. Indices name distinct rows (as in GGML, a repeated one leaves either source there);
 *           an index outside [0, ne1) writes nothing and fails the op with HTP_STATUS_INVAL_PARAMS.
 */
#ifndef VNPU_SET_ROWS_OPS_H
#define VNPU_SET_ROWS_OPS_H

#include "copy-stream.h"
#include "htp-msg.h"

struct set_rows_kparams {
    struct copy_plan plan;          /* over src's rows */
    struct fastdiv_values div_ne11; /* the indices' ne1: i02 % ne11 */
    struct fastdiv_values div_ne12; /* their ne2: i03 % ne12 */
};
_Static_assert(sizeof(struct set_rows_kparams) <= HTP_MAX_KPARAMS * sizeof(uint32_t), "kernel_params are 128 bytes");

struct htp_op_ctx;

/* HTP_OP_SET_ROWS: src[0] (rows), src[1] (indices) -> dst[0]. An htp status. */
uint32_t op_set_rows(struct htp_op_ctx *octx);

#endif /* VNPU_SET_ROWS_OPS_H */
