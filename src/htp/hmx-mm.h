/*
 * MUL_MAT on HMX (hmx-mm.c), the path for batches: what the host precomputes, and the VTCM layout both sides compute.
 * The op, its operands and its columns and groups are MUL_MAT's (matmul-ops.h); the host picks this path by the rule
 * of src/host/htp-prep-matmul-hmx.c and says so in the first word of the kernel_params (HMX_MM_KPARAMS_TAG).
 *
 * Data flow. Columns are prepared in chunks of cols_chunk (a multiple of 32): a prep job DMAs each pair of f32
 * columns into staging and converts them into FP16 activation tiles (32 columns x 32 of K, hmx.h) in the shared
 * activation area: cols_chunk / 32 tile rows of n_k_tiles tiles. A compute job then runs the chunk's (group, tile
 * row) jobs over the workers; per job, a worker with n_prefetch slots
 *     pops the job's weight tile row (its tiles as stored, DMA'd DDR -> VTCM while earlier jobs computed),
 *     expands it with HVX into n_k_tiles FP16 weight tiles (hvx-dequant-fp16.h) and pushes the weights of job + p,
 *     takes the HMX unit and, for every 32-column tile row of the group's columns, clears the accumulators, streams
 *         the n_k_tiles (activation, weight) tile pairs and stores the FP16 output tile,
 *     pops the dst slot (the write-back of job - p), widens the output tiles to f32 into it (one vector of 32
 *         results per column) and pushes one 2-D write-back of the group's columns.
 * HMX is one unit per device: while one worker multiplies, the others expand their next tile rows.
 *
 * Weights. A tiled weight (any of the twelve types) is DMA'd as stored (n_tiles tiles of a tile row at the aligned
 * tile stride); an F16 or F32 weight row
 * by row, each row's K split into its tiles' 64- or 128-byte pieces (one 2-D descriptor per row). K is a multiple
 * of 32. Flat quantized weights stay on the HVX path.
 *
 * Arithmetic: activations and weights rounded to FP16, products exact, f32 accumulation in K order (hmx.h), the
 * results rounded to FP16 (scale 1, bias 0) and widened to f32 exactly: a result beyond FP16's range (65504) is an
 * infinity, as on upstream's HMX path.
 */
#ifndef VNPU_HMX_MM_H
#define VNPU_HMX_MM_H

#include "hex-common.h"
#include "hex-fastdiv.h"
#include "htp-msg.h"
#include "htp-tiles.h"
#include "htp-vtcm.h"

#include <stdbool.h>
#include <stdint.h>

/* The first word of the HMX path's kernel_params, where struct matmul_kparams has its path (enum matmul_path, whose
 * values are small): "HMX" in ASCII. */
#define HMX_MM_KPARAMS_TAG 0x00584D48u

#define HMX_MM_TILE         32   /* an HMX tile's side: columns per activation tile row, K per tile */
#define HMX_MM_TILE_BYTES   2048 /* one FP16 tile (hmx.h's HMX_TILE_BYTES) */
#define HMX_MM_SCALES_BYTES 256  /* the column scales HMX stores its output with (hmx.h) */
#define HMX_MM_MAX_PREFETCH 4    /* weight tile rows in flight per worker, at most */

struct hmx_mm_kparams {
    uint32_t tag;           /* HMX_MM_KPARAMS_TAG */
    uint32_t n_threads;     /* compute workers (<= the session's) */
    uint32_t n_act_threads; /* activation prep workers (<= n_threads) */
    uint32_t n_prefetch;    /* weight tile rows in flight per worker, and as many dst slots: 1..HMX_MM_MAX_PREFETCH */
    uint32_t wraw_size;     /* VTCM bytes of one weight tile row as DMA'd: hmx_mm_wraw_size */
    uint32_t n_k_tiles;     /* FP16 tiles along K: ne00 / 32 */
    uint32_t cols_chunk;    /* columns prepared at once, a multiple of 32 */
    uint32_t stage_size;    /* VTCM bytes of one f32 column as DMA'd: ne00 * 4 */
    uint32_t n_cols;        /* ne11 * ne12 * ne13 */
    uint32_t group_cols;    /* ne11 * (ne12 / ne02): consecutive columns that share a weight matrix */
    uint32_t n_col_tiles;   /* tile rows of one weight matrix: ceil(ne01 / 32) */
    struct fastdiv_values div_ne11;      /* column -> (i11, i12, i13): ne11 ... */
    struct fastdiv_values div_ne11_ne12; /* ... and ne11 * ne12 */
    struct fastdiv_values div_ne02;      /* group -> (i02, i13) */
    struct fastdiv_values div_r3;        /* i13 -> i03 = i13 / (ne13 / ne03) */
};
_Static_assert(sizeof(struct hmx_mm_kparams) <= HTP_MAX_KPARAMS * sizeof(uint32_t), "kernel_params are 128 bytes");

/* VTCM bytes one weight tile row of ne00 columns takes as DMA'd, 0 for a weight type HMX does not take: a tiled
 * type's tiles at their aligned stride, F16 and F32 rows cut into n_k_tiles tiles of 32 rows x 32 elements. */
static inline uint64_t hmx_mm_wraw_size(uint32_t type, uint32_t ne00) {
    if (type == HTP_TYPE_F16 || type == HTP_TYPE_F32) {
        return (uint64_t) ne00 / HMX_MM_TILE * HTP_TENSOR_TILE_N_ROWS * HMX_MM_TILE * (type == HTP_TYPE_F32 ? 4 : 2);
    }
    struct htp_tile_geom g;
    if (!htp_tile_geom_get((enum htp_type) type, &g)) {
        return 0;
    }
    return (uint64_t) (ne00 / g.k_cols) * g.aligned_size;
}

/* Byte offsets in VTCM: the shared activation area, then one slice per worker. A compute slice holds the n_prefetch
 * raw weight tile rows, the FP16 weight tile row, the FP16 output tiles, the HMX column scales and the n_prefetch dst
 * slots; a prep slice (the two jobs never run at once) the f32 staging of two column pairs. */
struct hmx_mm_layout {
    uint32_t act;        /* cols_chunk / 32 activation tile rows of n_k_tiles tiles */
    uint32_t slices;     /* worker i's slice at slices + i * per_thread */
    uint32_t wraw;       /* in a slice: n_prefetch raw weight tile rows, wraw_size apart */
    uint32_t wtile;      /* in a slice: the FP16 weight tile row, n_k_tiles tiles */
    uint32_t otile;      /* in a slice: cols_chunk / 32 FP16 output tiles */
    uint32_t scales;     /* in a slice: the HMX column scales */
    uint32_t dst;        /* in a slice: n_prefetch dst slots of cols_chunk vectors (32 f32 per column) */
    uint32_t stage;      /* in a slice: four f32 staging rows, stage_size apart */
    uint32_t per_thread; /* bytes of a slice */
    uint32_t total;      /* bytes of the whole layout (UINT32_MAX when it does not fit 32 bits) */
};

static inline struct hmx_mm_layout hmx_mm_plan_layout(const struct hmx_mm_kparams *kp) {
    struct hmx_mm_layout l;
    const uint64_t tile_row = (uint64_t) kp->n_k_tiles * HMX_MM_TILE_BYTES, m_tiles = kp->cols_chunk / HMX_MM_TILE;
    uint32_t top = 0;
    l.act = htp_vtcm_take(&top, m_tiles * tile_row);
    l.slices = top;
    uint32_t slice = 0;
    l.wraw = htp_vtcm_take(&slice, (uint64_t) kp->n_prefetch * kp->wraw_size);
    l.wtile = htp_vtcm_take(&slice, tile_row);
    l.otile = htp_vtcm_take(&slice, m_tiles * HMX_MM_TILE_BYTES);
    l.scales = htp_vtcm_take(&slice, HMX_MM_SCALES_BYTES);
    l.dst = htp_vtcm_take(&slice, (uint64_t) kp->n_prefetch * kp->cols_chunk * HEX_VLEN);
    uint32_t prep = 0;
    l.stage = htp_vtcm_take(&prep, 4 * (uint64_t) kp->stage_size);
    l.per_thread = HEX_MAX(slice, prep);
    const uint64_t total = (uint64_t) l.slices + (uint64_t) l.per_thread * kp->n_threads;
    l.total = l.per_thread == UINT32_MAX || total > UINT32_MAX ? UINT32_MAX : (uint32_t) total;
    return l;
}

/* DMA descriptors of one live weight tile row of valid rows: 1 for a tiled weight, one per row for F16 and F32. The
 * pipeline keeps n_prefetch * (1 + this) in a worker's queue. */
static inline uint32_t hmx_mm_wrow_ndesc(uint32_t type, uint32_t valid_rows) {
    return type == HTP_TYPE_F16 || type == HTP_TYPE_F32 ? valid_rows : 1;
}

struct htp_op_ctx;

/* HTP_OP_MUL_MAT with kparams of the HMX path: src[0] x src[1] -> dst[0]. An htp status: INVAL_PARAMS when shapes,
 * types or kparams disagree (a quantized weight that is not tiled among them), VTCM_TOO_SMALL, FAULT. */
uint32_t op_matmul_hmx(struct htp_op_ctx *octx);

#endif /* VNPU_HMX_MM_H */
