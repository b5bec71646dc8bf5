/*
 * MUL_MAT on the NPU (matmul-ops.c): what the host precomputes, and the VTCM layout both sides compute.
 *
 *     dst[i01, c] = sum over k < ne00 of src0[k, i01, i02, i03] * src1[k, c]      (GGML's ggml_mul_mat)
 *
 * src0 [ne00 = K, ne01 = N, ne02, ne03] is the weight (F32, F16, or a block-quantized type, flat or in the tiled
 * REPACK layout of htp-tiles.h, as its descriptor's HTP_TENSOR_TILED flag says); src1 [K, ne11, ne12, ne13] F32
 * holds the activations, any strides with dense rows; dst [N, ne11, ne12, ne13] F32 is contiguous. src0 is
 * broadcast over dims 2 and 3 (r2 = ne12 / ne02, r3 = ne13 / ne03).
 *
 * Columns. The kernel sees src1 as n_cols = ne11 * ne12 * ne13 columns c = i11 + ne11 * (i12 + ne12 * i13). A
 * group is the group_cols = ne11 * r2 consecutive columns that multiply the same weight matrix: group g has
 * i13 = g / ne02 and i02 = g % ne02 (so i12 runs over i02 * r2 .. i02 * r2 + r2 - 1), and i03 = i13 / r3. A 2-D
 * weight with ne13 = 1 is one group of every column.
 *
 * Work. Columns are prepared in chunks of cols_chunk into the shared activation area of VTCM (quantized to Q8
 * blocks, act-quant.h; rounded to f16; or copied as f32), a prep job over the columns, then a compute job over the
 * chunk's (group, tile row) pairs: a tile row is 32 weight rows of one matrix, streamed DDR -> DMA -> VTCM with
 * n_prefetch in flight per worker, multiplied against the group's columns of the chunk 2 at a time (the 32x2
 * kernels, 32x1 for an odd one left), the 32 results of each column written to a VTCM dst slot and DMA'd to dst.
 */
#ifndef VNPU_MATMUL_OPS_H
#define VNPU_MATMUL_OPS_H

#include "hex-common.h"
#include "hex-fastdiv.h"
#include "htp-msg.h"
#include "htp-tiles.h"
#include "htp-vtcm.h"

#include <stdbool.h>
#include <stdint.h>

enum matmul_path {
    MATMUL_PATH_F32 = 0,   /* F32 weights: f32 products, f32 sums */
    MATMUL_PATH_F16 = 1,   /* F16 weights: activations rounded to f16, hf x hf products summed in f32 */
    MATMUL_PATH_QUANT = 2, /* block-quantized weights: int8 dot products (vrmpy) against Q8 activation blocks */
};

#define MATMUL_TILE_ROWS    32         /* weight rows per tile row: one HVX vector of 32 f32 results per column */
#define MATMUL_MAX_PREFETCH 8          /* weight tile rows in flight per worker, at most */
#define MATMUL_MAX_K        (1u << 24) /* ne00 at most: row sizes and offsets stay within 32 bits */

struct matmul_kparams {
    uint32_t path;          /* enum matmul_path */
    uint32_t n_threads;     /* compute workers (<= the session's) */
    uint32_t n_act_threads; /* activation prep workers (<= n_threads) */
    uint32_t n_prefetch;    /* weight tile rows in flight per worker, and as many dst slots: 1..MATMUL_MAX_PREFETCH */
    uint32_t wrow_size;     /* VTCM bytes of one weight tile row (a multiple of 128) */
    uint32_t act_row_size;  /* VTCM bytes of one prepared activation column (a multiple of 128) */
    uint32_t stage_size;    /* VTCM bytes of one f32 column as DMA'd before prep: ne10 * 4 rounded up to 128 */
    uint32_t cols_chunk;    /* columns prepared at once: the activation area holds this many */
    uint32_t n_cols;        /* ne11 * ne12 * ne13 */
    uint32_t group_cols;    /* ne11 * (ne12 / ne02): consecutive columns that share a weight matrix */
    uint32_t n_col_tiles;   /* tile rows of one weight matrix: ceil(ne01 / 32) */
    struct fastdiv_values div_ne11;      /* column -> (i11, i12, i13): ne11 ... */
    struct fastdiv_values div_ne11_ne12; /* ... and ne11 * ne12 */
    struct fastdiv_values div_ne02;      /* group -> (i02, i13) */
    struct fastdiv_values div_r3;        /* i13 -> i03 = i13 / (ne13 / ne03) */
};
_Static_assert(sizeof(struct matmul_kparams) <= HTP_MAX_KPARAMS * sizeof(uint32_t), "kernel_params are 128 bytes");

/* Byte offsets in VTCM: the shared activation area, then one slice per worker. A slice holds the compute job's
 * n_prefetch weight tile rows and dst slots, or (the two jobs never run at once) the prep job's two f32
 * staging rows. */
struct matmul_layout {
    uint32_t act;        /* cols_chunk prepared columns, act_row_size apart */
    uint32_t slices;     /* worker i's slice at slices + i * per_thread */
    uint32_t wrow;       /* in a slice: n_prefetch weight tile rows, wrow_size apart */
    uint32_t dst;        /* in a slice: n_prefetch dst slots of cols_chunk vectors (32 f32 per column) */
    uint32_t stage;      /* in a slice: two f32 staging rows, stage_size apart */
    uint32_t per_thread; /* bytes of a slice */
    uint32_t total;      /* bytes of the whole layout (UINT32_MAX when it does not fit 32 bits) */
};

/* Bytes of one dst slot: cols_chunk vectors. */
static inline uint64_t matmul_dst_slot_size(const struct matmul_kparams *kp) {
    return (uint64_t) kp->cols_chunk * HEX_VLEN;
}

static inline struct matmul_layout matmul_plan_layout(const struct matmul_kparams *kp) {
    struct matmul_layout l;
    uint32_t top = 0;
    l.act = htp_vtcm_take(&top, (uint64_t) kp->cols_chunk * kp->act_row_size);
    l.slices = top;
    uint32_t slice = 0;
    l.wrow = htp_vtcm_take(&slice, (uint64_t) kp->n_prefetch * kp->wrow_size);
    l.dst = htp_vtcm_take(&slice, (uint64_t) kp->n_prefetch * matmul_dst_slot_size(kp));
    uint32_t prep = 0;
    l.stage = htp_vtcm_take(&prep, 2 * (uint64_t) kp->stage_size);
    l.per_thread = HEX_MAX(slice, prep);
    const uint64_t total = (uint64_t) l.slices + (uint64_t) l.per_thread * kp->n_threads;
    l.total = l.per_thread == UINT32_MAX || total > UINT32_MAX ? UINT32_MAX : (uint32_t) total;
    return l;
}

/* A block-quantized weight type the int8 kernels compute with (hvx-mm-quant.h), and where the parts of its GGML
 * block of 32 lie, for the flat path's DMA: the codes of row r land at r * qs_size of a step's VTCM area and its
 * scale at 32 * qs_size + r * sc_size, so a step is step_size bytes whether the weight is tiled or flat. */
struct matmul_qtype {
    uint32_t blk_size; /* bytes of a GGML block */
    uint32_t qs_off;   /* the codes in a block */
    uint32_t qs_size;
    uint32_t sc_off; /* the scale in a block */
    uint32_t sc_size;
    uint32_t step_size; /* VTCM bytes of a 32-column step: the tile's aligned size (htp-tiles.h) */
};

/* The geometry of a type with NPU kernels; false for the others (their MUL_MAT stays on the CPU). One row per
 * type, and a row in matmul-ops.c's kernel table: the host's supports rule and the NPU agree through this. */
static inline bool matmul_qtype_get(uint32_t type, struct matmul_qtype *q) {
    switch ((enum htp_type) type) {
        case HTP_TYPE_Q4_0: *q = (struct matmul_qtype){18, 2, 16, 0, 2, HTP_TENSOR_TILE_ALIGNED_SIZE_Q4_0}; return true;
        case HTP_TYPE_Q8_0: *q = (struct matmul_qtype){34, 2, 32, 0, 2, HTP_TENSOR_TILE_ALIGNED_SIZE_Q8_0}; return true;
        case HTP_TYPE_F32:
        case HTP_TYPE_F16:
        case HTP_TYPE_Q4_1:
        case HTP_TYPE_Q2_K:
        case HTP_TYPE_Q3_K:
        case HTP_TYPE_Q4_K:
        case HTP_TYPE_Q5_K:
        case HTP_TYPE_Q6_K:
        case HTP_TYPE_IQ4_NL:
        case HTP_TYPE_I32:
        case HTP_TYPE_I64:
        case HTP_TYPE_BF16:
        case HTP_TYPE_MXFP4:
        case HTP_TYPE_Q1_0:
        case HTP_TYPE_Q2_0: break;
    }
    return false;
}

_Static_assert(32 * (16 + 2) <= HTP_TENSOR_TILE_ALIGNED_SIZE_Q4_0 && 32 * (32 + 2) <= HTP_TENSOR_TILE_ALIGNED_SIZE_Q8_0,
               "a flat step (codes, then scales) fits the tiled step");

/* DMA descriptors one weight tile row of valid rows takes: 1, or 2 per row for flat quantized weights (their
 * codes and scales land in separate areas, matmul-ops.c). The pipeline keeps n_prefetch * (1 + this) in a
 * worker's queue. */
static inline uint32_t matmul_wrow_ndesc(uint32_t path, bool tiled, uint32_t valid_rows) {
    return path == MATMUL_PATH_QUANT && !tiled ? 2 * valid_rows : 1;
}

struct htp_op_ctx;

/* HTP_OP_MUL_MAT: src[0] x src[1] -> dst[0]. An htp status: INVAL_PARAMS when shapes, types or kparams disagree,
 * NO_SUPPORT for a weight type without kernels, VTCM_TOO_SMALL, FAULT. */
uint32_t op_matmul(struct htp_op_ctx *octx);

#endif /* VNPU_MATMUL_OPS_H */
