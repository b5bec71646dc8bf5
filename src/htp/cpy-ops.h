/*
 * CPY and CONT between F32 and F16: what the host precomputes for op_cpy (cpy-ops.c).
 *
 * CPY   dst = src, element k of src in row-major order to element k of dst in row-major order (ggml_cpy, ggml's
 *       dup): any strides on either side (views, permuted and transposed operands), F32 <-> F16 converted,
 *       the same type copied bit for bit
 * CONT  the same with a contiguous dst of src's shape (ggml_cont); the host sends it as CPY
 *
 * Four ways to pair the elements, chosen by the host (cpy_mode): both sides contiguous, one run of all the
 * elements; shapes equal, row (i1, i2, i3) of dst is row (i1, i2, i3) of src; shapes differ, one side is
 * contiguous and the other side's rows are walked, each meeting a contiguous range of the flat side.
 */
#ifndef VNPU_CPY_OPS_H
#define VNPU_CPY_OPS_H

#include "copy-stream.h"
#include "htp-msg.h"

enum cpy_mode {
    CPY_MODE_SAME_SHAPE = 0, /* walk dst's rows; src's row of the same index */
    CPY_MODE_SRC_FLAT = 1,   /* walk dst's rows; src contiguous, read at the row's flat element index */
    CPY_MODE_DST_FLAT = 2,   /* walk src's rows; dst contiguous, written at the row's flat element index */
    CPY_MODE_FLAT = 3,       /* both contiguous: walk all the elements as one row */
};

struct cpy_kparams {
    struct copy_plan plan; /* over the walked tensor's rows */
    uint32_t mode;         /* enum cpy_mode */
};
_Static_assert(sizeof(struct cpy_kparams) <= HTP_MAX_KPARAMS * sizeof(uint32_t), "kernel_params are 128 bytes");

struct htp_op_ctx;

/* HTP_OP_CPY: src[0] -> dst[0], types F32 or F16 on each side. An htp status. */
uint32_t op_cpy(struct htp_op_ctx *octx);

#endif /* VNPU_CPY_OPS_H */
