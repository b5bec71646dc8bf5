/*
 * Row streaming: the pipeline of the row-wise op families (binary-ops, unary-ops, act-ops), for any
 * row-wise op to reuse. Each dst row is computed from the src0 row at the same (i1, i2, i3) and,
 * optionally, a src1 row broadcast onto it:
 *
 *     DDR --DMA--> VTCM src0/src1 halves --HVX--> VTCM dst halves --DMA--> DDR
 *
 * Every thread takes a range of the flattened rows and moves them in blocks of `block` rows through two
 * VTCM halves per buffer (double buffering): while block b is computed, block b + 1 is in flight and the
 * write-back of block b - 1 drains. Every push is popped in FIFO order (row-stream.c).
 *
 * The host fills a struct row_plan inside the op's kernel_params; host and NPU compute the VTCM layout with
 * row_plan_layout below. All rows are F32 of ne0 elements (dst's ne[0]); in VTCM each row starts on a
 * 128-byte boundary, so the HVX kernels work on whole aligned vectors (the padding lanes hold junk that
 * never reaches DDR).
 */
#ifndef VNPU_ROW_STREAM_H
#define VNPU_ROW_STREAM_H

#include "hex-common.h"
#include "hex-fastdiv.h"
#include "htp-tensor.h"
#include "htp-vtcm.h"

#include <stdint.h>

/* How src1 reaches each dst row (i1, i2, i3): its row (i1 % ne11, i2 % ne12, i3 % ne13), element i0 from
 * i0 % ne10. */
enum row_src1_mode {
    ROW_SRC1_NONE = 0,     /* no src1 */
    ROW_SRC1_STREAM = 1,   /* ne10 == ne0: rows streamed with src0 (stride 0 when ne11 == 1) */
    ROW_SRC1_EXPAND = 2,   /* ne10 < ne0: each row repeated ne0 / ne10 times into VTCM, one DMA per row */
    ROW_SRC1_RESIDENT = 3, /* ne11 = ne12 = ne13 = 1: one row (expanded if ne10 < ne0) loaded once per thread */
};

/* Part of an op's kernel_params: 64 bytes. */
struct row_plan {
    uint32_t n_threads;                /* workers, at most the session's; chosen from the op's size */
    uint32_t rows_per_thread;          /* ceil(nrows / n_threads): thread i starts at row_start + i * this */
    uint32_t block;                    /* rows per DMA block */
    uint32_t src1_mode;                /* enum row_src1_mode */
    uint32_t n_dst;                    /* dst tensors written: 1, or 2 (RMS_NORM_MUL also writes the norm) */
    uint32_t flat;                     /* 1: src0, dst and a streamed src1 have nb2 = ne1 nb1 and nb3 = ne2 nb2,
                                          so a block may span rows of several (i2, i3); 0: blocks stop where i1
                                          wraps (and where a broadcast src1 row wraps) */
    struct fastdiv_values div_ne1;     /* dst ne1: flat row -> (i1, i2, i3) */
    struct fastdiv_values div_ne12;    /* dst ne1 * ne2 */
    struct fastdiv_values div_src1[3]; /* src1 ne1, ne2, ne3: the broadcast modulos (1 when there is no src1) */
};
_Static_assert(sizeof(struct row_plan) == 64, "row_plan is part of 128-byte kernel_params");

/* Byte offsets of the buffers inside one thread's VTCM slice. */
struct row_layout {
    uint32_t row_stride; /* bytes between rows in VTCM: ne0 * 4 rounded up to 128 */
    uint32_t src0;       /* 2 halves of block rows */
    uint32_t src1;       /* 2 halves of block rows, or one row when resident; 0 without src1 */
    uint32_t dst[2];     /* 2 halves of block rows per dst */
    uint32_t per_thread; /* bytes of a thread's slice; thread i's starts at i * per_thread */
};

/* The layout of plan p for rows of ne0 F32 elements. */
static inline struct row_layout row_plan_layout(const struct row_plan *p, uint32_t ne0) {
    struct row_layout l = {0, 0, 0, {0, 0}, 0};
    l.row_stride = hex_align_up(ne0 * 4, HEX_VLEN);
    const uint64_t halves = 2 * (uint64_t) p->block * l.row_stride;
    uint32_t top = 0;
    l.src0 = htp_vtcm_take(&top, halves);
    if (p->src1_mode != ROW_SRC1_NONE) {
        l.src1 = htp_vtcm_take(&top, p->src1_mode == ROW_SRC1_RESIDENT ? l.row_stride : halves);
    }
    for (uint32_t k = 0; k < p->n_dst && k < 2; k++) {
        l.dst[k] = htp_vtcm_take(&top, halves);
    }
    l.per_thread = top;
    return l;
}

/* ---- the NPU side (row-stream.c) ---- */

struct htp_op_ctx;
struct htp_tensor;
struct row_stream;

/* Compute nrows rows (row_stride bytes apart in VTCM, all 128-byte aligned): dst[k] from src0 and src1
 * (src1_stride apart: 0 for a resident row; NULL without src1). */
typedef void (*row_compute_fn)(const struct row_stream *s, uint8_t *const dst[2], const uint8_t *src0,
                               const uint8_t *src1, uint32_t src1_stride, uint32_t nrows);

struct row_stream {
    struct htp_op_ctx *octx;
    const struct row_plan *plan; /* inside the op's kernel_params */
    const struct htp_tensor *src0;
    const struct htp_tensor *src1; /* NULL for ROW_SRC1_NONE */
    const struct htp_tensor *dst[2];
    row_compute_fn compute;
    const void *params; /* the op's kernel_params, for compute */
    /* Set by row_stream_run: */
    struct htp_tensor_mdev_rows rows; /* this device's rows of dst, and each worker's */
    uint32_t src1_rep;                /* copies of a src1 row in a dst row: ne0 / ne10 (0 without src1) */
    struct row_layout layout;
};

/* Run s over the op's threads: an htp status (HTP_STATUS_FAULT when a worker faulted; the dispatcher
 * reports the platform's text). First checks the shapes (src0 and dst[1] shaped as dst[0], src1
 * broadcastable, elements dense), the plan's fastdiv values against them and the plan against the session
 * (threads, VTCM); then takes this
 * device's share of the rows, which is all of them unless several devices split the op. */
uint32_t row_stream_run(struct row_stream *s);

#endif /* VNPU_ROW_STREAM_H */
