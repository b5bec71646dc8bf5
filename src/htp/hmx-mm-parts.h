/*
 * The pieces of the HMX matmul path shared by MUL_MAT (hmx-mm.c) and MUL_MAT_ID (hmx-mm-id.c), on FP16 tiles of
 * hmx.h (an activation tile row: n_k_tiles tiles of 32 columns x 32 of K, back to back; a weight tile row: n_k_tiles
 * weight tiles of hvx-dequant-fp16.h):
 *
 *   weights   how one tile row of a weight matrix (32 weight rows by all of K) comes into VTCM and becomes FP16
 *             weight tiles: a tiled weight (any of the twelve types) DMA'd as stored, its tiles at the aligned
 *             stride, and expanded by its type's step functions; F16 and F32 weights row by row, each row's K cut
 *             into the 64- or 128-byte pieces of its tiles (one 2-D descriptor per row), and transposed
 *   columns   two f32 activation columns narrowed into one vector of each tile of their tile row
 *   HMX       a weight tile row against activation tile rows into FP16 output tiles (scale 1, bias 0)
 *   results   an output tile widened to f32, one vector of 32 results per activation column
 */
#ifndef VNPU_HMX_MM_PARTS_H
#define VNPU_HMX_MM_PARTS_H

#include "dma-queue.h"
#include "hex-common.h"
#include "hmx-mm.h"
#include "hmx.h"
#include "htp-tensor.h"
#include "htp-tiles.h"
#include "hvx-dequant-fp16.h"

#include <stdbool.h>
#include <stdint.h>

#define HMX_MM_PAIRS_PER_TILE (HMX_MM_TILE / 2) /* column pairs of an activation tile: its 16 vectors */

/* ---- weights ---- */

struct hmx_weights {
    const struct htp_tensor *w;
    bool tiled;                /* a tiled quantized weight; else F16 or F32 rows */
    uint32_t n_k_tiles;        /* FP16 tiles along K: ne00 / 32 */
    hvx_fp16_wtile_fn wtile;   /* tiled: the type's expansion ... */
    struct htp_tile_geom geom; /* ... and geometry */
    uint32_t n_tiles;          /* tiled: stored tiles along K */
    uint64_t tile_row_bytes;   /* tiled: DDR bytes of a tile row ... */
    uint64_t matrix_bytes;     /* ... and of a matrix */
    uint32_t elem_size;        /* F16/F32: bytes of an element */
};

/* Take weight w (ne00 a multiple of 32): HTP_STATUS_OK, or INVAL_PARAMS for a type or layout HMX does not take (a
 * quantized weight that is not tiled among them). */
static inline uint32_t hmx_weights_init(struct hmx_weights *hw, const struct htp_tensor *w) {
    const uint32_t ne00 = w->ne[0];
    hw->w = w;
    hw->tiled = (w->flags & HTP_TENSOR_TILED) != 0;
    hw->n_k_tiles = ne00 / HMX_MM_TILE;
    if (w->type == HTP_TYPE_F32 || w->type == HTP_TYPE_F16) {
        hw->elem_size = w->type == HTP_TYPE_F32 ? 4 : 2;
        return hw->tiled || w->nb[0] != hw->elem_size ? HTP_STATUS_INVAL_PARAMS : HTP_STATUS_OK;
    }
    if (!hw->tiled || !hvx_fp16_wtile_get(w->type, &hw->wtile) ||
        !htp_tile_geom_get((enum htp_type) w->type, &hw->geom) || ne00 % hw->geom.k_cols != 0) {
        return HTP_STATUS_INVAL_PARAMS;
    }
    hw->n_tiles = htp_tile_n_k_tiles(&hw->geom, ne00);
    hw->tile_row_bytes = htp_tile_row_size(&hw->geom, ne00);
    hw->matrix_bytes = htp_tile_matrix_size(&hw->geom, ne00, w->ne[1]);
    return HTP_STATUS_OK;
}

/* Weight matrix (i02, i03). */
static inline const uint8_t *hmx_weights_matrix(const struct hmx_weights *hw, uint32_t i02, uint32_t i03) {
    const struct htp_tensor *w = hw->w;
    if (hw->tiled) {
        return w->data + ((uint64_t) i03 * w->ne[2] + i02) * hw->matrix_bytes;
    }
    return w->data + (size_t) i02 * w->nb[2] + (size_t) i03 * w->nb[3];
}

/* Push the DMA of tile row ct of matrix m into the raw slot v (live false: a zero-row dummy); returns the
 * descriptors pushed: 1, or one per valid row of an F16/F32 weight (hmx_mm_wrow_ndesc). */
static inline uint32_t hmx_weights_push(const struct hmx_weights *hw, struct dma_queue *q, uint8_t *v, const uint8_t *m,
                                        uint32_t ct, bool live) {
    const struct htp_tensor *w = hw->w;
    if (!live) {
        dma_queue_push(q, dma_make_pair(v, w->data), 0, 0, 0, 0);
        return 1;
    }
    if (hw->tiled) {
        const uint32_t size = hw->geom.size;
        dma_queue_push(q, dma_make_pair(v, m + ct * hw->tile_row_bytes), hw->geom.aligned_size, size, size,
                       hw->n_tiles);
        return 1;
    }
    const uint32_t valid = htp_tile_valid_rows(w->ne[1], ct), piece = HMX_MM_TILE * hw->elem_size;
    for (uint32_t r = 0; r < valid; r++) { /* row r's 32-element pieces at r * piece of every tile */
        const uint8_t *row = m + ((size_t) ct * HTP_TENSOR_TILE_N_ROWS + r) * w->nb[1];
        dma_queue_push(q, dma_make_pair(v + (size_t) r * piece, row), (size_t) HTP_TENSOR_TILE_N_ROWS * piece, piece,
                       piece, hw->n_k_tiles);
    }
    return valid;
}

/* The raw tile row at v -> n_k_tiles FP16 weight tiles at wt. Rows past the valid ones of an F16/F32 tile row hold
 * whatever VTCM held: they only reach the results of their own weight rows, which nobody writes back. */
static inline void hmx_weights_expand(const struct hmx_weights *hw, const uint8_t *v, uint8_t *wt) {
    if (hw->tiled) {
        const uint32_t aligned = hw->geom.aligned_size, per_tile = hw->geom.k_cols / HMX_MM_TILE;
        for (uint32_t t = 0; t < hw->n_tiles; t++) {
            const uint8_t *sb = v + (size_t) (t - t % hw->geom.tiles_per_block) * aligned; /* its super-block */
            hw->wtile(v + (size_t) t * aligned, sb, aligned, wt + (size_t) t * per_tile * HMX_MM_TILE_BYTES);
        }
        return;
    }
    const size_t raw_tile = (size_t) HTP_TENSOR_TILE_N_ROWS * HMX_MM_TILE * hw->elem_size;
    for (uint32_t kt = 0; kt < hw->n_k_tiles; kt++) {
        if (hw->elem_size == 4) {
            hvx_fp16_wtile_f32(v + kt * raw_tile, wt + (size_t) kt * HMX_MM_TILE_BYTES);
        } else {
            hvx_fp16_wtile_f16(v + kt * raw_tile, wt + (size_t) kt * HMX_MM_TILE_BYTES);
        }
    }
}

/* ---- activation columns ---- */

/* Two f32 columns of n_k_tiles * 32 elements (r1 NULL: zeros) -> vector i of each tile of a tile row, dst being that
 * vector in its first tile: one vcvt per tile puts r0's 32 values in the even halves and r1's in the odd ones. */
static inline void hmx_tiles_act_pair(const uint8_t *r0, const uint8_t *r1, uint32_t n_k_tiles, uint8_t *dst) {
    for (uint32_t kt = 0; kt < n_k_tiles; kt++) {
        const HVX_Vector a = r0 ? hvx_vmem_ld(r0 + kt * HEX_VLEN) : Q6_V_vzero();
        const HVX_Vector b = r1 ? hvx_vmem_ld(r1 + kt * HEX_VLEN) : Q6_V_vzero();
        hvx_vmem_st(dst + (size_t) kt * HMX_MM_TILE_BYTES, Q6_Vhf_vcvt_VsfVsf(a, b));
    }
}

/* ---- HMX ---- */

/* The column scales an output tile is stored with: 1.0 with bias 0 for every column (hmx.h). */
static inline void hmx_tiles_scales_init(uint8_t *scales) {
    hvx_vmem_st(scales, Q6_V_vsplat_R(0x00003C00));
    hvx_vmem_st(scales + HEX_VLEN, Q6_V_vzero());
}

/* The n activation tile rows from act (n_k_tiles tiles each, back to back) times the weight tile row wt -> the n
 * FP16 output tiles at otile. The caller holds the HMX unit. */
static inline void hmx_tiles_multiply(const uint8_t *act, uint32_t n, const uint8_t *wt, uint32_t n_k_tiles,
                                      uint8_t *otile, const uint8_t *scales) {
    const size_t tile_row = (size_t) n_k_tiles * HMX_MM_TILE_BYTES;
    struct hmx_acc acc;
    for (uint32_t t = 0; t < n; t++) {
        hmx_acc_clear(&acc);
        hmx_acc_mac(&acc, (const uint16_t *) (act + t * tile_row), (const uint16_t *) wt, n_k_tiles);
        hmx_acc_store_f16(&acc, (uint16_t *) (otile + (size_t) t * HMX_MM_TILE_BYTES), scales);
    }
}

/* ---- results ---- */

/* Vector i of an output tile (i < 16) widened to f32: it holds columns 2i and 2i + 1 in its even and odd halves,
 * which the widening puts in the pair's lo (column 2i's 32 results) and hi (column 2i + 1's). */
static inline HVX_VectorPair hmx_tiles_widen_pair(const uint8_t *tile, uint32_t i) {
    return Q6_Wsf_vcvt_Vhf(hvx_vmem_ld(tile + i * HEX_VLEN));
}

/* Output tile -> f32 columns: cols[j] gets column j's 32 results. */
static inline void hmx_tiles_widen(const uint8_t *tile, HVX_Vector *cols) {
    for (uint32_t i = 0; i < HMX_MM_PAIRS_PER_TILE; i++) {
        const HVX_VectorPair w = hmx_tiles_widen_pair(tile, i);
        hvx_vmem_st(cols + 2 * i, Q6_V_lo_W(w));
        hvx_vmem_st(cols + 2 * i + 1, Q6_V_hi_W(w));
    }
}

#endif /* VNPU_HMX_MM_PARTS_H */
