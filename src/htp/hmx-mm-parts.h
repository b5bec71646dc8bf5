/*
 * The pieces of the HMX matmul path shared by MUL_MAT (hmx-mm.c) and MUL_MAT_ID (hmx-mm-id.c), on FP16 tiles of
 * hmx.h (an activation tile row: n_k_tiles tiles of 32 columns x 32 of K, back to back; a weight tile row: n_k_tiles
 * weight tiles of hvx-dequant-fp16.h):
 *
 *   weights   a weight tile row as DMA'd (matmul-weights.h) expanded into FP16 weight tiles: a tiled weight by its
 *             type's step functions, F16 and F32 pieces transposed
 *   columns   two f32 activation columns narrowed into one vector of each tile of their tile row
 *   HMX       a weight tile row against activation tile rows into FP16 output tiles (scale 1, bias 0)
 *   results   an output tile widened to f32, one vector of 32 results per activation column
 *
 * What the narrowing to FP16 does is counted as it is done (hvx-fp16-range.h): weights as they are expanded,
 * activations as their columns are narrowed, results once per job from its dst slot.
 */
#ifndef VNPU_HMX_MM_PARTS_H
#define VNPU_HMX_MM_PARTS_H

#include "hex-common.h"
#include "hmx-mm.h"
#include "hmx.h"
#include "htp-tiles.h"
#include "hvx-dequant-fp16.h"
#include "hvx-fp16-range.h"
#include "matmul-weights.h"

#include <stdbool.h>
#include <stdint.h>

#define HMX_MM_PAIRS_PER_TILE (HMX_MM_TILE / 2) /* column pairs of an activation tile: its 16 vectors */

/* ---- weights ---- */

/* The valid weight rows of the raw F32 tile row at v into range. Out of line: inlined into the compute worker, its
 * loop's constants and counts are hoisted out of the worker's unit loop and spilled (unused: the files of this
 * header that do not expand weights). */
static HEX_NOINLINE __attribute__((unused)) void
hmx_weights_range_f32(const struct matmul_weights *mw, const uint8_t *v, uint32_t valid, struct hvx_fp16_range *range) {
    HVX_SCOPE();
    const size_t raw_tile = (size_t) HTP_TENSOR_TILE_N_ROWS * mw->row_stride;
    const struct hvx_fp16_range_k k = hvx_fp16_range_k();
    struct hvx_fp16_range rg = *range;
    for (uint32_t kt = 0; kt < mw->n_k_tiles; kt++) {
        for (uint32_t n = 0; n < valid; n++) { /* row n's 32 floats: one vector */
            hvx_fp16_range_add(&rg, &k, hvx_vmem_ld(v + kt * raw_tile + n * mw->row_stride));
        }
    }
    *range = rg;
}

/* The raw tile row at v, valid weight rows of it, -> n_k_tiles FP16 weight tiles at wt, the f32 weights narrowed
 * counted into range (an F16 weight narrows nothing). Rows past the valid ones of an F16/F32 tile row hold whatever
 * VTCM held: they only reach the results of their own weight rows, which nobody writes back, and are not counted. */
static inline void hmx_weights_expand(const struct matmul_weights *mw, const uint8_t *v, uint32_t valid, uint8_t *wt,
                                      struct hvx_fp16_range *range) {
    if (mw->tiled) {
        const uint32_t stride = mw->tile_stride;
        const uint8_t *sb = v; /* the super-block of tile t: tiles_per_block tiles */
        for (uint32_t t = 0, tb = 0; t < mw->n_tiles; t++) {
            mw->wtile(v + (size_t) t * stride, sb, stride, wt + (size_t) t * mw->wtiles_per_tile * HMX_MM_TILE_BYTES,
                      range);
            if (++tb == mw->tiles_per_block) {
                tb = 0;
                sb += (size_t) mw->tiles_per_block * stride;
            }
        }
        return;
    }
    const size_t raw_tile = (size_t) HTP_TENSOR_TILE_N_ROWS * mw->row_stride;
    if (mw->elem_size == 4) {
        hmx_weights_range_f32(mw, v, valid, range);
    }
    for (uint32_t kt = 0; kt < mw->n_k_tiles; kt++) {
        if (mw->elem_size == 4) {
            hvx_fp16_wtile_f32(v + kt * raw_tile, wt + (size_t) kt * HMX_MM_TILE_BYTES);
        } else {
            hvx_fp16_wtile_f16(v + kt * raw_tile, wt + (size_t) kt * HMX_MM_TILE_BYTES);
        }
    }
}

/* ---- activation columns ---- */

/* Two f32 columns of n_k_tiles * 32 elements (r0 or r1 NULL: zeros) -> vector i of each tile of a tile row, dst being
 * that vector in its first tile: one vcvt per tile puts r0's 32 values in the even halves and r1's in the odd ones.
 * The values narrowed go into range (zeros count nothing). */
static inline void hmx_tiles_act_pair(const uint8_t *r0, const uint8_t *r1, uint32_t n_k_tiles, uint8_t *dst,
                                      struct hvx_fp16_range *range) {
    const struct hvx_fp16_range_k k = hvx_fp16_range_k();
    struct hvx_fp16_range rg = *range;
    for (uint32_t kt = 0; kt < n_k_tiles; kt++) {
        const HVX_Vector a = r0 ? hvx_vmem_ld(r0 + kt * HEX_VLEN) : Q6_V_vzero();
        const HVX_Vector b = r1 ? hvx_vmem_ld(r1 + kt * HEX_VLEN) : Q6_V_vzero();
        hvx_fp16_range_add(&rg, &k, a);
        hvx_fp16_range_add(&rg, &k, b);
        hvx_vmem_st(dst + (size_t) kt * HMX_MM_TILE_BYTES, Q6_Vhf_vcvt_VsfVsf(a, b));
    }
    *range = rg;
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

/* The n f32 result vectors at out (results read back from FP16 output tiles, each of 32 weight rows, the first valid
 * of them real) into range: the infinities and the largest magnitude. */
static inline void hmx_results_range(const HVX_Vector *out, uint32_t n, uint32_t valid, struct hvx_fp16_range *range) {
    const struct hvx_fp16_range_k k = hvx_fp16_range_k();
    const HVX_VectorPred lanes = Q6_Q_vsetq2_R(valid * sizeof(float)); /* valid 1..32 */
    struct hvx_fp16_range rg = *range;
    for (uint32_t i = 0; i < n; i++) {
        hvx_fp16_range_add_results(&rg, &k, hvx_vmem_ld(out + i), lanes);
    }
    *range = rg;
}

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
