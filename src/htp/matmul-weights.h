/*
 * The weight side of the HVX matmul kernels, shared by MUL_MAT (matmul-ops.c) and MUL_MAT_ID (matmul-id-ops.c): how
 * one tile row of a weight matrix (32 weight rows by all of K) comes into VTCM and multiplies prepared activation
 * columns (act-quant.h), for each layout of the weight:
 *
 *   F32, F16     32 rows of ne00 elements, DMA'd as one 2-D descriptor into rows of wrow_stride bytes; the dot
 *                products of hvx-mm-float.h against f32 / f16 columns
 *   tiled        a quantized weight in the REPACK layout (htp-tiles.h): the tile row's n_tiles tiles, contiguous in
 *                DDR, DMA'd as one descriptor at the aligned tile stride
 *   flat         a quantized weight as GGML's blocks: per row one descriptor per part of its blocks (codes, scales,
 *                ...) into that part's area of each block's unit (matmul_qtype)
 *
 * and the int8 kernels of each quantized type (hvx-mm-quant.h and the format headers) against Q8 columns. A weight
 * matrix (i02, i03) of a tiled weight starts at (i03 * ne02 + i02) * matrix_bytes; of the others at its strides.
 */
#ifndef VNPU_MATMUL_WEIGHTS_H
#define VNPU_MATMUL_WEIGHTS_H

#include "act-quant.h"
#include "dma-queue.h"
#include "hex-fastdiv.h"
#include "htp-tensor.h"
#include "htp-tiles.h"
#include "htp-trace.h"
#include "hvx-mm-float.h"
#include "hvx-mm-kquants.h"
#include "hvx-mm-lowbit.h"
#include "hvx-mm-nibble.h"
#include "hvx-mm-quant.h"
#include "matmul-ops.h"

#include <stdbool.h>
#include <stdint.h>

/* The int8 kernels of each quantized type with NPU kernels (matmul_qtype_get lists the same types), for weights in
 * the tiled REPACK layout and for flat GGML blocks. */
struct matmul_qkernels {
    hvx_mm_qdot_32x1_fn dot_32x1;
    hvx_mm_qdot_32x2_fn dot_32x2;
};

#define MM_QKERNELS(NAME)                                                                               \
    (tiled ? (struct matmul_qkernels){hvx_mm_qdot_##NAME##_tiled_32x1, hvx_mm_qdot_##NAME##_tiled_32x2} \
           : (struct matmul_qkernels){hvx_mm_qdot_##NAME##_flat_32x1, hvx_mm_qdot_##NAME##_flat_32x2})

static inline bool matmul_qkernels_get(uint32_t type, bool tiled, struct matmul_qkernels *k) {
    switch ((enum htp_type) type) {
        case HTP_TYPE_Q4_0: *k = MM_QKERNELS(q4_0); return true;
        case HTP_TYPE_Q8_0: *k = MM_QKERNELS(q8_0); return true;
        case HTP_TYPE_Q4_1: *k = MM_QKERNELS(q4_1); return true;
        case HTP_TYPE_IQ4_NL: *k = MM_QKERNELS(iq4_nl); return true;
        case HTP_TYPE_MXFP4: *k = MM_QKERNELS(mxfp4); return true;
        case HTP_TYPE_Q1_0: *k = MM_QKERNELS(q1_0); return true;
        case HTP_TYPE_Q2_0: *k = MM_QKERNELS(q2_0); return true;
        case HTP_TYPE_Q2_K: *k = MM_QKERNELS(q2_K); return true;
        case HTP_TYPE_Q3_K: *k = MM_QKERNELS(q3_K); return true;
        case HTP_TYPE_Q4_K: *k = MM_QKERNELS(q4_K); return true;
        case HTP_TYPE_Q5_K: *k = MM_QKERNELS(q5_K); return true;
        case HTP_TYPE_Q6_K: *k = MM_QKERNELS(q6_K); return true;
        case HTP_TYPE_F32:
        case HTP_TYPE_F16:
        case HTP_TYPE_I32:
        case HTP_TYPE_I64:
        case HTP_TYPE_BF16: break;
    }
    return false;
}

struct matmul_weights {
    const struct htp_tensor *w;
    uint32_t path;             /* enum matmul_path */
    bool tiled;                /* w in the tiled layout */
    struct matmul_qtype qt;    /* QUANT: the type's geometry ... */
    struct matmul_qkernels qk; /* ... and kernels */
    uint32_t n_steps;          /* QUANT: 32-column steps of K */
    uint32_t n_blocks;         /* QUANT: GGML blocks of a row (flat: the DMA's rows per part) */
    uint32_t elem_size;        /* F32/F16: bytes of an element */
    uint32_t wrow_stride;      /* F32/F16: VTCM bytes between the rows of a tile row */
    uint32_t n_tiles;          /* tiled: tiles along K, ... */
    uint32_t tile_size;        /* ... DDR bytes of a tile, ... */
    uint64_t tile_row_bytes;   /* ... of a tile row ... */
    uint64_t matrix_bytes;     /* ... and of a matrix */
    uint32_t wrow_size;        /* VTCM bytes of a tile row: what a kparams' wrow_size must hold */
    uint32_t act_row_size;     /* VTCM bytes of a prepared column: what a kparams' act_row_size must hold */
};

/* Take weight w (a checked tensor with ne00 <= MATMUL_MAX_K) for path: HTP_STATUS_OK, NO_SUPPORT for a quantized
 * type without kernels, INVAL_PARAMS when its type, layout or K does not fit the path. */
static inline uint32_t matmul_weights_init(struct matmul_weights *mw, const struct htp_tensor *w, uint32_t path) {
    const uint32_t ne00 = w->ne[0];
    mw->w = w;
    mw->path = path;
    mw->tiled = (w->flags & HTP_TENSOR_TILED) != 0;
    switch ((enum matmul_path) path) {
        case MATMUL_PATH_F32:
        case MATMUL_PATH_F16:
            mw->elem_size = path == MATMUL_PATH_F32 ? 4 : 2;
            if (w->type != (path == MATMUL_PATH_F32 ? HTP_TYPE_F32 : HTP_TYPE_F16) || w->nb[0] != mw->elem_size ||
                mw->tiled) {
                return HTP_STATUS_INVAL_PARAMS;
            }
            mw->wrow_stride = hex_align_up(ne00 * mw->elem_size, HEX_VLEN);
            mw->act_row_size = path == MATMUL_PATH_F32 ? act_f32_row_size(ne00) : act_f16_row_size(ne00);
            mw->wrow_size = MATMUL_TILE_ROWS * mw->wrow_stride;
            mw->qt.n_parts = 0;
            return HTP_STATUS_OK;
        case MATMUL_PATH_QUANT: {
            struct htp_tile_geom g = {0, 0, 0, 0};
            if (!matmul_qtype_get(w->type, &mw->qt) || !matmul_qkernels_get(w->type, mw->tiled, &mw->qk) ||
                (mw->tiled && !htp_tile_geom_get((enum htp_type) w->type, &g))) {
                return HTP_STATUS_NO_SUPPORT;
            }
            if (w->nb[0] != mw->qt.blk_size || ne00 % (ACT_Q8_BLOCK * mw->qt.blk_steps) != 0) {
                return HTP_STATUS_INVAL_PARAMS;
            }
            mw->n_steps = ne00 / ACT_Q8_BLOCK;
            mw->n_blocks = mw->n_steps / mw->qt.blk_steps;
            if (mw->tiled) {
                mw->n_tiles = htp_tile_n_k_tiles(&g, ne00);
                mw->tile_size = g.size;
                mw->tile_row_bytes = htp_tile_row_size(&g, ne00);
                mw->matrix_bytes = htp_tile_matrix_size(&g, ne00, w->ne[1]);
            }
            mw->act_row_size = act_q8_row_size(ne00);
            mw->wrow_size = mw->n_steps * mw->qt.step_size;
            return HTP_STATUS_OK;
        }
    }
    return HTP_STATUS_INVAL_PARAMS;
}

/* Weight matrix (i02, i03). */
static inline const uint8_t *matmul_weights_matrix(const struct matmul_weights *mw, uint32_t i02, uint32_t i03) {
    const struct htp_tensor *w = mw->w;
    if (mw->tiled) {
        return w->data + ((uint64_t) i03 * w->ne[2] + i02) * mw->matrix_bytes;
    }
    return w->data + (size_t) i02 * w->nb[2] + (size_t) i03 * w->nb[3];
}

/* DMA descriptors of a live tile row of valid rows (matmul_wrow_ndesc). */
static inline uint32_t matmul_weights_ndesc(const struct matmul_weights *mw, uint32_t valid) {
    return matmul_wrow_ndesc(mw->path, mw->tiled, mw->qt.n_parts, valid);
}

/* Push the DMA of tile row ct of matrix m into VTCM at v (live false: a zero-row dummy); returns the descriptors
 * pushed (1 for a dummy). */
static inline uint32_t matmul_weights_push(const struct matmul_weights *mw, struct dma_queue *q, uint8_t *v,
                                           const uint8_t *m, uint32_t ct, bool live) {
    const struct htp_tensor *w = mw->w;
    if (!live) {
        dma_queue_push(q, dma_make_pair(v, w->data), 0, 0, 0, 0);
        return 1;
    }
    const uint32_t valid = htp_tile_valid_rows(w->ne[1], ct);
    if (mw->path != MATMUL_PATH_QUANT) {
        const uint8_t *rows = m + (size_t) ct * MATMUL_TILE_ROWS * w->nb[1];
        dma_queue_push(q, dma_make_pair(v, rows), mw->wrow_stride, w->nb[1], (size_t) w->ne[0] * mw->elem_size, valid);
        return 1;
    }
    const uint32_t step = mw->qt.step_size;
    if (mw->tiled) {
        const uint32_t stride = mw->n_steps / mw->n_tiles * step; /* the aligned tile size */
        dma_queue_push(q, dma_make_pair(v, m + ct * mw->tile_row_bytes), stride, mw->tile_size, mw->tile_size,
                       mw->n_tiles);
        return 1;
    }
    const uint32_t unit = mw->qt.blk_steps * step;
    for (uint32_t r = 0; r < valid; r++) {
        const uint8_t *row = m + ((size_t) ct * MATMUL_TILE_ROWS + r) * w->nb[1];
        for (uint32_t i = 0; i < mw->qt.n_parts; i++) {
            const struct matmul_qpart *pt = &mw->qt.parts[i];
            dma_queue_push(q, dma_make_pair(v + pt->dst_off + r * pt->stride, row + pt->src_off), unit, mw->qt.blk_size,
                           pt->size, mw->n_blocks);
        }
    }
    return mw->qt.n_parts * valid;
}

/* The 32 results (out0: lane r = weight row r) of the tile row at wt (valid rows real) against the prepared column
 * a0, and with a1 not NULL those against a1 too (out1): the 32x2 kernels, which share each weight load. */
static inline void matmul_weights_dot(const struct matmul_weights *mw, const uint8_t *wt, uint32_t valid,
                                      const uint8_t *a0, const uint8_t *a1, HVX_Vector *out0, HVX_Vector *out1) {
    const uint32_t ne00 = mw->w->ne[0];
    switch ((enum matmul_path) mw->path) {
        case MATMUL_PATH_F32:
            if (a1) {
                hvx_mm_dot_f32_32x2(wt, mw->wrow_stride, ne00, valid, a0, a1, out0, out1);
            } else {
                hvx_mm_dot_f32_32x1(wt, mw->wrow_stride, ne00, valid, a0, out0);
            }
            break;
        case MATMUL_PATH_F16:
            if (a1) {
                hvx_mm_dot_f16_32x2(wt, mw->wrow_stride, ne00, valid, a0, a1, out0, out1);
            } else {
                hvx_mm_dot_f16_32x1(wt, mw->wrow_stride, ne00, valid, a0, out0);
            }
            break;
        case MATMUL_PATH_QUANT:
            if (a1) {
                mw->qk.dot_32x2(wt, mw->n_steps, mw->qt.step_size, a0, a1, out0, out1);
            } else {
                mw->qk.dot_32x1(wt, mw->n_steps, mw->qt.step_size, a0, out0);
            }
            break;
    }
}

/* An f32 column x of n elements (in VTCM) prepared into out as the path's kernels read it (act-quant.h). */
static inline void matmul_weights_prep_col(const struct matmul_weights *mw, const uint8_t *x, uint32_t n,
                                           uint8_t *out) {
    switch ((enum matmul_path) mw->path) {
        case MATMUL_PATH_F32: act_copy_f32_row(x, n, out); break;
        case MATMUL_PATH_F16: act_cvt_f16_row(x, n, out); break;
        case MATMUL_PATH_QUANT: act_quant_q8_row(x, n, out); break;
    }
}

/* A chunk of activation columns of x being prepared: column c is row (i11, i12, i13) of x with c = i11 + ne11 * (i12 +
 * ne12 * i13) (div_ne11, div_ne11_ne12: the fastdiv values of ne11 and ne11 * ne12), prepared at act + (c - c0) *
 * act_row_size. MUL_MAT's columns; MUL_MAT_ID's are src1's rows (i11, token) the same way. */
struct matmul_cols {
    const struct htp_tensor *x;
    const struct fastdiv_values *div_ne11, *div_ne11_ne12;
    uint8_t *act;
    uint32_t act_row_size;
    uint32_t c0;
};

/* Push the f32 row of column col (live false: a dummy) into staging row v. */
static inline void matmul_cols_push(const struct matmul_cols *mc, struct dma_queue *q, uint8_t *v, uint32_t col,
                                    bool live) {
    const struct htp_tensor *x = mc->x;
    if (!live) {
        dma_queue_push(q, dma_make_pair(v, x->data), 0, 0, 0, 0);
        return;
    }
    const struct htp_row_index ix = htp_row_unravel(col, x->ne[1], x->ne[2], mc->div_ne11, mc->div_ne11_ne12);
    const uint32_t bytes = x->ne[0] * (uint32_t) sizeof(float);
    dma_queue_push(q, dma_make_pair(v, htp_tensor_row(x, ix.i1, ix.i2, ix.i3)), bytes, bytes, bytes, 1);
}

/* One prep worker's columns [ca, cb) of mc (ca < cb) through two staging rows at stage, stage_size apart:
 *     prologue  push the f32 rows of its first two columns into staging rows 0 and 1
 *     column    pop its row, prepare it (matmul_weights_prep_col; not when compute is false), push column c + 2's
 *     epilogue  pop the two dummies left */
static inline void matmul_weights_prep_cols(const struct matmul_weights *mw, const struct matmul_cols *mc,
                                            struct dma_queue *q, struct htp_trace *tr, uint8_t *stage,
                                            uint32_t stage_size, uint32_t ca, uint32_t cb, bool compute) {
    const uint32_t ne10 = mc->x->ne[0];
    for (uint32_t h = 0; h < 2; h++) {
        matmul_cols_push(mc, q, stage + h * stage_size, ca + h, ca + h < cb);
    }
    for (uint32_t col = ca; col < cb; col++) {
        uint8_t *v = dma_queue_pop(q).dst;
        if (compute) {
            htp_trace_start(tr, HTP_TRACE_HVX_A_QUANT, col);
            matmul_weights_prep_col(mw, v, ne10, mc->act + (size_t) (col - mc->c0) * mc->act_row_size);
            htp_trace_stop(tr, HTP_TRACE_HVX_A_QUANT, col);
        }
        matmul_cols_push(mc, q, v, col + 2, col + 2 < cb);
    }
    dma_queue_pop(q);
    dma_queue_pop(q);
}

#endif /* VNPU_MATMUL_WEIGHTS_H */
