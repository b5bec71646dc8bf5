/*
 * SOFT_MAX on F32 rows: what the host precomputes for op_softmax (softmax-ops.c).
 *
 *     dst = softmax(x * scale + slope * mask) along each row           (ggml_soft_max_ext)
 *
 * x is src[0] [ne00, ne01, ne02, ne03]; the optional mask src[1] (F16 or F32) gives row i01 of its slice
 * (i02 % ne12, i03 % ne13) to row (i01, i02, i03) of x; slope is 1, or the ALiBi slope of head i02 when
 * max_bias > 0 (htp-alibi.h). A row whose logits are all -inf gives zeros, as the CPU reference does.
 */
#ifndef VNPU_SOFTMAX_OPS_H
#define VNPU_SOFTMAX_OPS_H

#include "hex-common.h"
#include "hex-fastdiv.h"
#include "htp-alibi.h"
#include "htp-msg.h"
#include "htp-vtcm.h"

#include <stdint.h>

struct softmax_kparams {
    uint32_t n_threads;                 /* workers, at most the session's; chosen from the op's size */
    uint32_t rows_per_thread;           /* ceil(nrows / n_threads): thread i starts at row_start + i * this */
    uint32_t block;                     /* rows per DMA block; a block never crosses an i01 wrap */
    uint32_t block_heads;               /* 1 (ne01 = 1): blocks run over i02 instead, never crossing an i03 wrap
                                           nor a wrap of the mask's dim 2 */
    float scale;                        /* op_params[0] */
    struct htp_alibi alibi;             /* op_params[1] = max_bias and the slopes' bases */
    struct fastdiv_values div_ne01;     /* flat row -> (i01, i02, i03) */
    struct fastdiv_values div_ne0102;   /* ne01 * ne02 */
    struct fastdiv_values div_mask_ne2; /* the mask's ne2 and ne3: its broadcast (1 without a mask) */
    struct fastdiv_values div_mask_ne3;
};
_Static_assert(sizeof(struct softmax_kparams) <= HTP_MAX_KPARAMS * sizeof(uint32_t), "kernel_params are 128 bytes");

/* Byte offsets inside one thread's VTCM slice: two halves of block rows per buffer. */
struct softmax_layout {
    uint32_t row_stride;  /* bytes between x and dst rows in VTCM: ne00 * 4 rounded up to 128 */
    uint32_t mask_stride; /* bytes between mask rows: ne00 * mask element size rounded up to 128; 0 without */
    uint32_t src;
    uint32_t mask;
    uint32_t dst;
    uint32_t per_thread; /* bytes of a thread's slice; thread i's starts at i * per_thread */
};

/* The layout of kp for rows of ne00 elements and a mask of mask_elem_size bytes per element (0: none). */
static inline struct softmax_layout softmax_layout(const struct softmax_kparams *kp, uint32_t ne00,
                                                   uint32_t mask_elem_size) {
    struct softmax_layout l;
    l.row_stride = hex_align_up(ne00 * 4, HEX_VLEN);
    l.mask_stride = mask_elem_size ? hex_align_up(ne00 * mask_elem_size, HEX_VLEN) : 0;
    uint32_t top = 0;
    l.src = htp_vtcm_take(&top, 2ull * kp->block * l.row_stride);
    l.mask = htp_vtcm_take(&top, 2ull * kp->block * l.mask_stride);
    l.dst = htp_vtcm_take(&top, 2ull * kp->block * l.row_stride);
    l.per_thread = top;
    return l;
}

struct htp_op_ctx;

/* HTP_OP_SOFT_MAX: src[0] (and the mask src[1], optional) -> dst[0]. An htp status. */
uint32_t op_softmax(struct htp_op_ctx *octx);

#endif /* VNPU_SOFTMAX_OPS_H */
