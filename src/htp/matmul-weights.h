/*
 * The weight side of the matmul drivers (matmul-driver.h), for MUL_MAT and MUL_MAT_ID on either path: how one tile row
 * of a weight matrix (32 weight rows by all of K) comes into VTCM, for each layout of the weight,
 *
 *   F32, F16 (HVX)   32 rows of ne00 elements, DMA'd as one 2-D descriptor into rows of row_stride bytes
 *   F32, F16 (HMX)   row by row, each row's K cut into the 64- or 128-byte pieces of its 32-element tiles (one 2-D
 *                    descriptor per row), laid out as 32 rows x 32 elements per tile
 *   tiled            a quantized weight in the REPACK layout (htp-tiles.h): the tile row's n_tiles tiles, contiguous
 *                    in DDR, DMA'd as one descriptor at the aligned tile stride
 *   flat (HVX)       a quantized weight as GGML's blocks: per row one descriptor per part of its blocks (codes,
 *                    scales, ...) into that part's area of each block's unit (matmul_qtype)
 *
 * and what the path computes with it: on HVX the dot products of hvx-mm-float.h against f32 / f16 columns and the int8
 * kernels of each quantized type (hvx-mm-quant.h and the format headers) against Q8 columns; on HMX the FP16 weight
 * tiles it expands into (hvx-dequant-fp16.h, hmx_weights_expand in hmx-mm-parts.h). A weight matrix (i02, i03) of a
 * tiled weight starts at (i03 * ne02 + i02) * matrix_bytes; of the others at its strides.
 */
#ifndef VNPU_MATMUL_WEIGHTS_H
#define VNPU_MATMUL_WEIGHTS_H

#include "act-quant.h"
#include "dma-queue.h"
#include "htp-tensor.h"
#include "htp-tiles.h"
#include "hmx-mm.h"
#include "hvx-dequant-fp16.h"
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

/* A type's row of the table below: its kernels in the tiled layout, then in the flat one. */
#define MM_QK(NAME, LAYOUT) \
    { hvx_mm_qdot_##NAME##_##LAYOUT##_32x1, hvx_mm_qdot_##NAME##_##LAYOUT##_32x2 }
#define MM_QKERNELS(NAME) \
    { MM_QK(NAME, tiled), MM_QK(NAME, flat) }

/* The kernels of type in the tiled or the flat layout; false for a type without them. */
static inline bool matmul_qkernels_get(uint32_t type, bool tiled, struct matmul_qkernels *k) {
    static const struct matmul_qkernels kernels[HTP_TYPE_Q2_0 + 1][2] = {
        [HTP_TYPE_Q4_0] = MM_QKERNELS(q4_0),   [HTP_TYPE_Q8_0] = MM_QKERNELS(q8_0),
        [HTP_TYPE_Q4_1] = MM_QKERNELS(q4_1),   [HTP_TYPE_IQ4_NL] = MM_QKERNELS(iq4_nl),
        [HTP_TYPE_MXFP4] = MM_QKERNELS(mxfp4), [HTP_TYPE_Q1_0] = MM_QKERNELS(q1_0),
        [HTP_TYPE_Q2_0] = MM_QKERNELS(q2_0),   [HTP_TYPE_Q2_K] = MM_QKERNELS(q2_K),
        [HTP_TYPE_Q3_K] = MM_QKERNELS(q3_K),   [HTP_TYPE_Q4_K] = MM_QKERNELS(q4_K),
        [HTP_TYPE_Q5_K] = MM_QKERNELS(q5_K),   [HTP_TYPE_Q6_K] = MM_QKERNELS(q6_K),
    };
    if (type >= sizeof(kernels) / sizeof(kernels[0]) || !kernels[type][0].dot_32x1) {
        return false;
    }
    *k = kernels[type][tiled ? 0 : 1];
    return true;
}

struct matmul_weights {
    const struct htp_tensor *w;
    uint32_t path;             /* enum matmul_path */
    bool tiled;                /* w in the tiled layout */
    uint32_t ndesc_per_row;    /* DMA descriptors of a tile row per valid row; 0: one for the whole tile row */
    uint32_t elem_size;        /* F32/F16: bytes of an element */
    uint32_t row_stride;       /* F32/F16: VTCM bytes between the rows of a tile row (HMX: of a tile's rows) */
    uint32_t n_tiles;          /* tiled: tiles along K, ... */
    uint32_t tile_size;        /* ... DDR bytes of a tile, ... */
    uint32_t tile_stride;      /* ... VTCM bytes between two (the aligned size), ... */
    uint64_t tile_row_bytes;   /* ... DDR bytes of a tile row ... */
    uint64_t matrix_bytes;     /* ... and of a matrix */
    struct matmul_qtype qt;    /* QUANT: the type's geometry ... */
    struct matmul_qkernels qk; /* ... and kernels */
    bool act_f16_scale;        /* QUANT: the activations' d rounded to FP16 (matmul_act_f16_scale) */
    uint32_t n_steps;          /* QUANT: 32-column steps of K */
    uint32_t n_blocks;         /* QUANT: GGML blocks of a row (flat: the DMA's rows per part) */
    uint32_t n_k_tiles;        /* HMX: FP16 tiles along K, ne00 / 32 */
    hvx_fp16_wtile_fn wtile;   /* HMX, tiled: the type's expansion of a stored tile, ... */
    uint32_t wtiles_per_tile;  /* ... into this many FP16 tiles (K per stored tile / 32), ... */
    uint32_t tiles_per_block;  /* ... reading the scales of its super-block of this many stored tiles */
    uint32_t wrow_size;        /* VTCM bytes of a tile row as DMA'd: what the plan's wrow_size must hold */
    uint32_t act_row_size;     /* VTCM bytes of a prepared column: what the plan's act_row_size must hold */
};

/* The tiled layout of w (ne00 a multiple of g's K per tile), tiles tile_stride apart in VTCM. */
static inline void matmul_weights_tiles(struct matmul_weights *mw, const struct htp_tile_geom *g,
                                        uint32_t tile_stride) {
    const uint32_t ne00 = mw->w->ne[0];
    mw->n_tiles = htp_tile_n_k_tiles(g, ne00);
    mw->tile_size = g->size;
    mw->tile_stride = tile_stride;
    mw->tile_row_bytes = htp_tile_row_size(g, ne00);
    mw->matrix_bytes = htp_tile_matrix_size(g, ne00, mw->w->ne[1]);
}

/* Weight w (ne00 <= MATMUL_MAX_K) on the HMX path: a tiled type with an FP16 expansion, or F16 / F32 rows; K a
 * multiple of 32 (and of the tile's K). */
static inline uint32_t matmul_weights_init_hmx(struct matmul_weights *mw) {
    const struct htp_tensor *w = mw->w;
    const uint32_t ne00 = w->ne[0];
    const uint64_t wraw = hmx_mm_wraw_size(w->type, ne00);
    if (ne00 % HMX_MM_TILE != 0 || wraw == 0 || wraw > UINT32_MAX) {
        return HTP_STATUS_INVAL_PARAMS;
    }
    mw->n_k_tiles = ne00 / HMX_MM_TILE;
    mw->wrow_size = (uint32_t) wraw;
    mw->act_row_size = ne00 * (uint32_t) sizeof(uint16_t);
    if (w->type == HTP_TYPE_F32 || w->type == HTP_TYPE_F16) {
        mw->elem_size = w->type == HTP_TYPE_F32 ? 4 : 2;
        mw->ndesc_per_row = 1;
        mw->row_stride = HMX_MM_TILE * mw->elem_size;
        return mw->tiled || w->nb[0] != mw->elem_size ? HTP_STATUS_INVAL_PARAMS : HTP_STATUS_OK;
    }
    struct htp_tile_geom g;
    if (!mw->tiled || !hvx_fp16_wtile_get(w->type, &mw->wtile) || !htp_tile_geom_get((enum htp_type) w->type, &g) ||
        ne00 % g.k_cols != 0) {
        return HTP_STATUS_INVAL_PARAMS;
    }
    matmul_weights_tiles(mw, &g, g.aligned_size);
    mw->wtiles_per_tile = g.k_cols / HMX_MM_TILE;
    mw->tiles_per_block = g.tiles_per_block;
    return HTP_STATUS_OK;
}

/* Take weight w (a checked tensor with ne00 <= MATMUL_MAX_K) for path: HTP_STATUS_OK, NO_SUPPORT for a quantized
 * type without HVX kernels, INVAL_PARAMS when its type, layout or K does not fit the path. */
static inline uint32_t matmul_weights_init(struct matmul_weights *mw, const struct htp_tensor *w, uint32_t path) {
    const uint32_t ne00 = w->ne[0];
    *mw = (struct matmul_weights){.w = w, .path = path, .tiled = (w->flags & HTP_TENSOR_TILED) != 0};
    switch ((enum matmul_path) path) {
        case MATMUL_PATH_F32:
        case MATMUL_PATH_F16:
            mw->elem_size = path == MATMUL_PATH_F32 ? 4 : 2;
            if (w->type != (path == MATMUL_PATH_F32 ? HTP_TYPE_F32 : HTP_TYPE_F16) || w->nb[0] != mw->elem_size ||
                mw->tiled) {
                return HTP_STATUS_INVAL_PARAMS;
            }
            mw->row_stride = hex_align_up(ne00 * mw->elem_size, HEX_VLEN);
            mw->act_row_size = path == MATMUL_PATH_F32 ? act_f32_row_size(ne00) : act_f16_row_size(ne00);
            mw->wrow_size = MATMUL_TILE_ROWS * mw->row_stride;
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
            mw->act_f16_scale = matmul_act_f16_scale(w->type);
            mw->n_steps = ne00 / ACT_Q8_BLOCK;
            mw->n_blocks = mw->n_steps / mw->qt.blk_steps;
            if (mw->tiled) {
                matmul_weights_tiles(mw, &g, g.k_cols / ACT_Q8_BLOCK * mw->qt.step_size); /* the aligned size */
            } else {
                mw->ndesc_per_row = mw->qt.n_parts;
            }
            mw->act_row_size = act_q8_row_size(ne00);
            mw->wrow_size = mw->n_steps * mw->qt.step_size;
            return HTP_STATUS_OK;
        }
        case MATMUL_PATH_HMX: return matmul_weights_init_hmx(mw);
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

/* DMA descriptors of a live tile row of valid rows (matmul_wrow_ndesc, hmx_mm_wrow_ndesc). */
static inline uint32_t matmul_weights_ndesc(const struct matmul_weights *mw, uint32_t valid) {
    return mw->ndesc_per_row ? mw->ndesc_per_row * valid : 1;
}

/* Push the DMA of tile row ct of matrix m into VTCM at v (live false: one zero-row dummy); matmul_weights_ndesc
 * descriptors. */
static inline void matmul_weights_push(const struct matmul_weights *mw, struct dma_queue *q, uint8_t *v,
                                       const uint8_t *m, uint32_t ct, bool live) {
    const struct htp_tensor *w = mw->w;
    if (!live) {
        dma_queue_push(q, dma_make_pair(v, w->data), 0, 0, 0, 0);
        return;
    }
    if (mw->tiled) {
        dma_queue_push(q, dma_make_pair(v, m + ct * mw->tile_row_bytes), mw->tile_stride, mw->tile_size, mw->tile_size,
                       mw->n_tiles);
        return;
    }
    const uint32_t valid = htp_tile_valid_rows(w->ne[1], ct);
    const uint8_t *rows = m + (size_t) ct * MATMUL_TILE_ROWS * w->nb[1];
    if (mw->ndesc_per_row == 0) { /* F32/F16 on HVX: the valid rows at once */
        dma_queue_push(q, dma_make_pair(v, rows), mw->row_stride, w->nb[1], (size_t) w->ne[0] * mw->elem_size, valid);
        return;
    }
    const uint32_t unit = mw->qt.blk_steps * mw->qt.step_size;
    for (uint32_t r = 0; r < valid; r++) {
        const uint8_t *row = rows + (size_t) r * w->nb[1];
        if (mw->path == MATMUL_PATH_HMX) { /* row r's 32-element pieces at r * piece of every raw tile */
            dma_queue_push(q, dma_make_pair(v + (size_t) r * mw->row_stride, row),
                           (size_t) HTP_TENSOR_TILE_N_ROWS * mw->row_stride, mw->row_stride, mw->row_stride,
                           mw->n_k_tiles);
            continue;
        }
        for (uint32_t i = 0; i < mw->qt.n_parts; i++) {
            const struct matmul_qpart *pt = &mw->qt.parts[i];
            dma_queue_push(q, dma_make_pair(v + pt->dst_off + r * pt->stride, row + pt->src_off), unit, mw->qt.blk_size,
                           pt->size, mw->n_blocks);
        }
    }
}

/* The 32 results (out0: lane r = weight row r) of the tile row at wt (valid rows real) against the prepared column
 * a0, and with a1 not NULL those against a1 too (out1): the 32x2 kernels, which share each weight load. */
static inline void matmul_weights_dot(const struct matmul_weights *mw, const uint8_t *wt, uint32_t valid,
                                      const uint8_t *a0, const uint8_t *a1, HVX_Vector *out0, HVX_Vector *out1) {
    HVX_SCOPE();
    const uint32_t ne00 = mw->w->ne[0];
    switch ((enum matmul_path) mw->path) {
        case MATMUL_PATH_F32:
            if (a1) {
                hvx_mm_dot_f32_32x2(wt, mw->row_stride, ne00, valid, a0, a1, out0, out1);
            } else {
                hvx_mm_dot_f32_32x1(wt, mw->row_stride, ne00, valid, a0, out0);
            }
            break;
        case MATMUL_PATH_F16:
            if (a1) {
                hvx_mm_dot_f16_32x2(wt, mw->row_stride, ne00, valid, a0, a1, out0, out1);
            } else {
                hvx_mm_dot_f16_32x1(wt, mw->row_stride, ne00, valid, a0, out0);
            }
            break;
        case MATMUL_PATH_QUANT:
            if (a1) {
                mw->qk.dot_32x2(wt, mw->n_steps, mw->qt.step_size, a0, a1, out0, out1);
            } else {
                mw->qk.dot_32x1(wt, mw->n_steps, mw->qt.step_size, a0, out0);
            }
            break;
        case MATMUL_PATH_HMX: break; /* expanded and multiplied on HMX instead (hmx-mm-parts.h) */
    }
}

/* An f32 column x of n elements (in VTCM) prepared into out as the path's kernels read it (act-quant.h). */
static inline void matmul_weights_prep_col(const struct matmul_weights *mw, const uint8_t *x, uint32_t n,
                                           uint8_t *out) {
    switch ((enum matmul_path) mw->path) {
        case MATMUL_PATH_F32: act_copy_f32_row(x, n, out); break;
        case MATMUL_PATH_F16: act_cvt_f16_row(x, n, out); break;
        case MATMUL_PATH_QUANT: act_quant_q8_row(x, n, mw->act_f16_scale, out); break;
        case MATMUL_PATH_HMX: break; /* narrowed in column pairs into FP16 tiles instead (hmx-mm-parts.h) */
    }
}

#endif /* VNPU_MATMUL_WEIGHTS_H */
