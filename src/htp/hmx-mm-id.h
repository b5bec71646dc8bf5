/*
 * MUL_MAT_ID on HMX (hmx-mm-id.c), the mixture-of-experts path for batches: what the host precomputes, and the VTCM
 * layout both sides compute. The op, its operands, pairs, columns and routing are MUL_MAT_ID's (matmul-id-ops.h); the
 * host picks this path by the rule of src/host/htp-prep-matmul-id.c and says so in the first word of the
 * kernel_params (HMX_MM_KPARAMS_TAG, as MUL_MAT's HMX path).
 *
 * Data flow, per token chunk (tokens_chunk tokens, their pairs routed by expert):
 *   gather    each used expert's routed columns become its own activation tile rows (32 columns each, the last one
 *             padded with zero columns): a prep job DMAs the f32 src1 rows of two routed rows at a time into
 *             staging and narrows them into one vector of each FP16 tile of their tile row (hmx-mm-parts.h);
 *   units     a compute job is one weight tile row (32 weight rows) of every used expert, a unit (tile row, used
 *             expert k): the expert's raw tile row DMA'd DDR -> VTCM n_prefetch units ahead, expanded with HVX into
 *             FP16 weight tiles, multiplied on HMX against the expert's activation tile rows into FP16 output tiles,
 *             widened to f32 into the job's dst slot at each routed row's pair (one vector of 32 results per pair);
 *   write     after the job's last unit the slot holds all the chunk's pairs, consecutive dst rows: one 2-D
 *             write-back.
 *
 * Arithmetic: MUL_MAT's HMX path's (hmx-mm.h): FP16 operands, f32 accumulation, FP16 results widened to f32.
 */
#ifndef VNPU_HMX_MM_ID_H
#define VNPU_HMX_MM_ID_H

#include "hex-common.h"
#include "hex-fastdiv.h"
#include "hmx-mm.h"
#include "htp-msg.h"
#include "htp-vtcm.h"

#include <stdint.h>

struct hmx_mm_id_kparams {
    uint32_t tag;                   /* HMX_MM_KPARAMS_TAG */
    uint32_t n_threads;             /* compute workers (<= the session's) */
    uint32_t n_act_threads;         /* activation prep workers (<= n_threads) */
    uint32_t n_prefetch;            /* units in flight per worker, and as many dst slots: 1..HMX_MM_MAX_PREFETCH */
    uint32_t wraw_size;             /* VTCM bytes of one weight tile row as DMA'd: hmx_mm_wraw_size rounded up to 128 */
    uint32_t n_k_tiles;             /* FP16 tiles along K: ne00 / 32 */
    uint32_t stage_size;            /* VTCM bytes of one f32 column as DMA'd: ne00 * 4 */
    uint32_t tokens_chunk;          /* tokens per chunk */
    uint32_t pairs_chunk;           /* tokens_chunk * n_used (<= MATMUL_ID_MAX_PAIRS): vectors of a dst slot */
    uint32_t act_tile_rows;         /* activation tile rows of a chunk at most: hmx_mm_id_act_tile_rows */
    uint32_t n_col_tiles;           /* tile rows of one expert's matrix: ceil(ne01 / 32) */
    struct fastdiv_values div_ne11; /* column -> (i11, token): ne11 ... */
    struct fastdiv_values div_ne11_ne12; /* ... and ne11 * n_tokens */
};
_Static_assert(sizeof(struct hmx_mm_id_kparams) <= HTP_MAX_KPARAMS * sizeof(uint32_t), "kernel_params are 128 bytes");

/* Activation tile rows a chunk of pairs routed pairs over n_expert experts needs at most: each used expert pads its
 * rows to a multiple of 32, so sum(ceil(n_k / 32)) <= (pairs + 31 * min(n_expert, pairs)) / 32. */
static inline uint32_t hmx_mm_id_act_tile_rows(uint32_t pairs, uint32_t n_expert) {
    return (uint32_t) (((uint64_t) pairs + 31 * (uint64_t) HEX_MIN(n_expert, pairs)) / HMX_MM_TILE);
}

/* Byte offsets in VTCM: the shared activation area, then one slice per worker. A compute slice holds the n_prefetch
 * raw weight tile rows, the FP16 weight tile row, the FP16 output tiles of one expert (ceil(pairs_chunk / 32)), the
 * HMX column scales and the n_prefetch dst slots; a prep slice (the two jobs never run at once) the f32 staging of
 * two row pairs. */
struct hmx_mm_id_layout {
    uint32_t act;        /* act_tile_rows activation tile rows of n_k_tiles tiles */
    uint32_t slices;     /* worker i's slice at slices + i * per_thread */
    uint32_t wraw;       /* in a slice: n_prefetch raw weight tile rows, wraw_size apart */
    uint32_t wtile;      /* in a slice: the FP16 weight tile row, n_k_tiles tiles */
    uint32_t otile;      /* in a slice: ceil(pairs_chunk / 32) FP16 output tiles */
    uint32_t scales;     /* in a slice: the HMX column scales */
    uint32_t dst;        /* in a slice: n_prefetch dst slots of pairs_chunk vectors (32 f32 per pair) */
    uint32_t stage;      /* in a slice: four f32 staging rows, stage_size apart */
    uint32_t per_thread; /* bytes of a slice */
    uint32_t total;      /* bytes of the whole layout (UINT32_MAX when it does not fit 32 bits) */
};

static inline struct hmx_mm_id_layout hmx_mm_id_plan_layout(const struct hmx_mm_id_kparams *kp) {
    struct hmx_mm_id_layout l;
    const uint64_t tile_row = (uint64_t) kp->n_k_tiles * HMX_MM_TILE_BYTES;
    const uint64_t m_tiles = ((uint64_t) kp->pairs_chunk + HMX_MM_TILE - 1) / HMX_MM_TILE;
    uint32_t top = 0;
    l.act = htp_vtcm_take(&top, (uint64_t) kp->act_tile_rows * tile_row);
    l.slices = top;
    uint32_t slice = 0;
    l.wraw = htp_vtcm_take(&slice, (uint64_t) kp->n_prefetch * kp->wraw_size);
    l.wtile = htp_vtcm_take(&slice, tile_row);
    l.otile = htp_vtcm_take(&slice, m_tiles * HMX_MM_TILE_BYTES);
    l.scales = htp_vtcm_take(&slice, HMX_MM_SCALES_BYTES);
    l.dst = htp_vtcm_take(&slice, (uint64_t) kp->n_prefetch * kp->pairs_chunk * HEX_VLEN);
    uint32_t prep = 0;
    l.stage = htp_vtcm_take(&prep, 4 * (uint64_t) kp->stage_size);
    l.per_thread = HEX_MAX(slice, prep);
    const uint64_t total = (uint64_t) l.slices + (uint64_t) l.per_thread * kp->n_threads;
    l.total = l.per_thread == UINT32_MAX || total > UINT32_MAX ? UINT32_MAX : (uint32_t) total;
    return l;
}

struct htp_op_ctx;

/* HTP_OP_MUL_MAT_ID with kparams of the HMX path: src[0] (experts' weights: tiled quantized, F16 or F32; K a
 * multiple of 32) x src[1] routed by src[2] -> dst[0]. An htp status: INVAL_PARAMS when shapes, types or kparams
 * disagree or an id is outside [0, n_expert) (nothing is written then), VTCM_TOO_SMALL, FAULT. */
uint32_t op_matmul_id_hmx(struct htp_op_ctx *octx);

#endif /* VNPU_HMX_MM_ID_H */
