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
 * That is the HVX path; with plan.path MATMUL_PATH_HMX the same chunks and jobs run on HMX (hmx-mm.h). Both paths
 * and MUL_MAT_ID's run on the one driver of matmul-driver.h.
 */
#ifndef VNPU_MATMUL_OPS_H
#define VNPU_MATMUL_OPS_H

#include "act-quant.h"
#include "hex-common.h"
#include "hex-fastdiv.h"
#include "hmx-mm.h"
#include "htp-msg.h"
#include "htp-tiles.h"
#include "htp-vtcm.h"
#include "vdsp-device.h"

#include <stdbool.h>
#include <stdint.h>

enum matmul_path {
    MATMUL_PATH_F32 = 0,   /* HVX, F32 weights: f32 products, f32 sums */
    MATMUL_PATH_F16 = 1,   /* HVX, F16 weights: activations rounded to f16, hf x hf products summed in f32 */
    MATMUL_PATH_QUANT = 2, /* HVX, block-quantized weights: int8 dot products (vrmpy) against Q8 activation blocks */
    MATMUL_PATH_HMX = 3,   /* HMX, any weight with an FP16 tile expansion (hmx-mm.h) */
};

#define MATMUL_TILE_ROWS    32         /* weight rows per tile row: one HVX vector of 32 f32 results per column */
#define MATMUL_MAX_PREFETCH 8          /* weight tile rows in flight per worker, at most (HVX) */
#define MATMUL_MAX_K        (1u << 24) /* ne00 at most: row sizes and offsets stay within 32 bits */

/* What every MUL_MAT and MUL_MAT_ID plan has, on either path: the head of both ops' kernel_params. The fastdiv values
 * are the host's; the kernel checks each against its divisor once per op (htp_op_fastdiv_ok). */
struct matmul_plan {
    uint32_t path;          /* enum matmul_path */
    uint32_t n_threads;     /* compute workers (<= the session's) */
    uint32_t n_act_threads; /* activation prep workers (<= n_threads) */
    uint32_t n_prefetch;    /* weight tile rows in flight per worker, and as many dst slots: 1..MATMUL_MAX_PREFETCH
                               (HMX: 1..HMX_MM_MAX_PREFETCH) */
    uint32_t wrow_size;     /* VTCM bytes of one weight tile row as DMA'd (a multiple of 128) */
    uint32_t act_row_size;  /* VTCM bytes of one prepared activation column: HVX its Q8/F16/F32 row (a multiple of
                               128), HMX its part of an FP16 activation tile row (ne00 * 2) */
    uint32_t stage_size;    /* VTCM bytes of one f32 column as DMA'd before prep: ne10 * 4 rounded up to 128 */
    uint32_t n_col_tiles;   /* tile rows of one weight matrix: ceil(ne01 / 32) */
    struct fastdiv_values div_ne11;          /* column -> src1 row (i11, i12, i13): ne11 ... */
    struct fastdiv_values div_ne11_ne12;     /* ... and ne11 * ne12 */
    struct fastdiv_values div_n_threads;     /* a chunk's jobs over the compute workers: n_threads */
    struct fastdiv_values div_n_act_threads; /* its prep items over the prep workers: n_act_threads */
};

struct matmul_kparams {
    struct matmul_plan plan;
    uint32_t cols_chunk;                  /* columns prepared at once: the activation area holds this many (HMX: a
                                             multiple of 32) */
    uint32_t n_cols;                      /* ne11 * ne12 * ne13 */
    uint32_t group_cols;                  /* ne11 * (ne12 / ne02): consecutive columns that share a weight matrix */
    struct fastdiv_values div_group_cols; /* column -> group */
    struct fastdiv_values div_ne02;       /* group -> (i02, i13) */
    struct fastdiv_values div_r3;         /* i13 -> i03 = i13 / (ne13 / ne03) */
};
_Static_assert(sizeof(struct matmul_kparams) <= HTP_MAX_KPARAMS * sizeof(uint32_t), "kernel_params are 128 bytes");

/* The host's HMX plan for weights of type (tiled or not) [ne00 = K, ne01], MUL_MAT's or MUL_MAT_ID's: the path and
 * the sizes, and the deepest prefetch the DMA queue holds; false for a weight HMX does not take (no FP16 tile
 * expansion: a flat quantized or a tiled F16/F32 one; K not a multiple of 32 or above MATMUL_MAX_K). */
static inline bool matmul_plan_hmx(struct matmul_plan *p, uint32_t type, bool tiled, uint64_t ne00, uint32_t ne01,
                                   uint32_t *max_prefetch) {
    const bool flt = type == HTP_TYPE_F32 || type == HTP_TYPE_F16;
    if (flt == tiled || ne00 % HMX_MM_TILE != 0 || ne00 > MATMUL_MAX_K) {
        return false;
    }
    const uint32_t k = (uint32_t) ne00;
    const uint64_t wraw = hmx_mm_wraw_size(type, k);
    if (wraw == 0 || wraw > UINT32_MAX - HEX_VLEN) {
        return false;
    }
    p->path = MATMUL_PATH_HMX;
    p->wrow_size = hex_align_up((uint32_t) wraw, HEX_VLEN);
    p->act_row_size = k * (uint32_t) sizeof(uint16_t);
    p->stage_size = k * (uint32_t) sizeof(float);
    p->n_col_tiles = htp_tile_n_col_tiles(ne01);
    *max_prefetch =
        HEX_MIN(HMX_MM_MAX_PREFETCH, VDSP_DMA_DEPTH / (1 + hmx_mm_wrow_ndesc(type, HTP_TENSOR_TILE_N_ROWS)));
    return true;
}

/* The host's last step of a plan whose threads are chosen: its fastdiv values, for src1 rows (ne11, ne12). */
static inline void matmul_plan_set_divs(struct matmul_plan *p, uint32_t ne11, uint32_t ne12) {
    p->div_ne11 = fastdiv_init(ne11);
    p->div_ne11_ne12 = fastdiv_init(ne11 * ne12);
    p->div_n_threads = fastdiv_init(p->n_threads);
    p->div_n_act_threads = fastdiv_init(p->n_act_threads);
}

/* ... and of MUL_MAT's, with its groups': src1 [.., ne11, ne12, ne13], weights [.., ne02, ne03]. */
static inline void matmul_kparams_set_divs(struct matmul_kparams *kp, uint32_t ne11, uint32_t ne12, uint32_t ne13,
                                           uint32_t ne02, uint32_t ne03) {
    matmul_plan_set_divs(&kp->plan, ne11, ne12);
    kp->div_group_cols = fastdiv_init(kp->group_cols);
    kp->div_ne02 = fastdiv_init(ne02);
    kp->div_r3 = fastdiv_init(ne13 / ne03);
}

/* Byte offsets in VTCM of a MUL_MAT or MUL_MAT_ID plan, either path: the shared activation area, then one slice per
 * worker. A compute slice holds the n_prefetch weight tile rows as DMA'd and the n_prefetch dst slots, and on HMX the
 * FP16 weight tile row, the FP16 output tiles of a unit and the HMX column scales between them; a prep slice (the two
 * jobs never run at once) two staging slots of one f32 column (HVX) or of a column pair (HMX). */
struct matmul_layout {
    uint32_t act;        /* the chunk's prepared columns, act_row_size apart (HMX: FP16 tile rows of 32 columns) */
    uint32_t slices;     /* worker i's slice at slices + i * per_thread */
    uint32_t wrow;       /* in a slice: n_prefetch weight tile rows, wrow_size apart */
    uint32_t wtile;      /* in a slice, HMX: the FP16 weight tile row (32 act_row_size) */
    uint32_t otile;      /* in a slice, HMX: the FP16 output tiles */
    uint32_t scales;     /* in a slice, HMX: the column scales */
    uint32_t dst;        /* in a slice: n_prefetch dst slots, dst_slot apart */
    uint32_t dst_slot;   /* bytes of a dst slot: one vector (32 f32 results) per dst row of a chunk */
    uint32_t stage;      /* in a slice: two staging slots of one (HVX) or two (HMX) rows, stage_size apart */
    uint32_t per_thread; /* bytes of a slice */
    uint32_t total;      /* bytes of the whole layout (UINT32_MAX when it does not fit 32 bits) */
};

/* The layout of plan p for an activation area of act bytes, n_otiles output tiles per unit (HMX) and dst slots of
 * dst_rows vectors. */
static inline struct matmul_layout matmul_layout_of(const struct matmul_plan *p, uint64_t act, uint64_t n_otiles,
                                                    uint32_t dst_rows) {
    const bool hmx = p->path == MATMUL_PATH_HMX;
    struct matmul_layout l;
    uint32_t top = 0;
    l.act = htp_vtcm_take(&top, act);
    l.slices = top;
    uint32_t slice = 0;
    l.wrow = htp_vtcm_take(&slice, (uint64_t) p->n_prefetch * p->wrow_size);
    l.wtile = htp_vtcm_take(&slice, hmx ? (uint64_t) HMX_MM_TILE * p->act_row_size : 0);
    l.otile = htp_vtcm_take(&slice, hmx ? n_otiles * HMX_MM_TILE_BYTES : 0);
    l.scales = htp_vtcm_take(&slice, hmx ? HMX_MM_SCALES_BYTES : 0);
    l.dst_slot = (uint32_t) HEX_MIN((uint64_t) dst_rows * HEX_VLEN, UINT32_MAX);
    l.dst = htp_vtcm_take(&slice, (uint64_t) p->n_prefetch * dst_rows * HEX_VLEN);
    uint32_t prep = 0;
    l.stage = htp_vtcm_take(&prep, (hmx ? 4 : 2) * (uint64_t) p->stage_size);
    l.per_thread = HEX_MAX(slice, prep);
    const uint64_t total = (uint64_t) l.slices + (uint64_t) l.per_thread * p->n_threads;
    l.total = l.per_thread == UINT32_MAX || total > UINT32_MAX ? UINT32_MAX : (uint32_t) total;
    return l;
}

/* MUL_MAT's layout: cols_chunk prepared columns (HMX: cols_chunk / 32 tile rows and as many output tiles), dst slots
 * of cols_chunk vectors. */
static inline struct matmul_layout matmul_plan_layout(const struct matmul_kparams *kp) {
    return matmul_layout_of(&kp->plan, (uint64_t) kp->cols_chunk * kp->plan.act_row_size, kp->cols_chunk / HMX_MM_TILE,
                            kp->cols_chunk);
}

/* One contiguous part of a GGML block that the flat path's DMA lands in VTCM: size bytes at src_off of each block of
 * row r go to dst_off + r * stride of the block's unit (stride >= size; the bytes past size in a slot are junk). */
struct matmul_qpart {
    uint16_t src_off;
    uint16_t size;
    uint16_t dst_off;
    uint16_t stride;
};

#define MATMUL_MAX_QPARTS 7 /* 7 descriptors per row: 32 * 7 + 1 entries, one tile row in flight (VDSP_DMA_DEPTH) */

/* A block-quantized weight type the int8 kernels compute with (hvx-mm-quant.h and the format headers it lists), and
 * how its weights sit in VTCM. K is cut in steps of 32 columns (one Q8 activation block each), step_size bytes of
 * VTCM apiece; a GGML block spans blk_steps steps, its unit of blk_steps * step_size bytes. Tiled, a unit holds the
 * block's tiles at their aligned stride (htp-tiles.h: aligned_size * k_cols / 32 == step_size). Flat, a unit holds
 * the n_parts parts of the 32 rows' blocks, each part of every row in one area (matmul_qpart), placed so that the
 * format's kernel reads them with whole-vector loads. */
struct matmul_qtype {
    uint32_t blk_size;  /* bytes of a GGML block */
    uint32_t blk_steps; /* 32-column steps of a block: 1; Q2_0 2, Q1_0 4, the K-quants 8 */
    uint32_t step_size; /* VTCM bytes of a step */
    uint32_t n_parts;   /* flat: 1..MATMUL_MAX_QPARTS */
    struct matmul_qpart parts[MATMUL_MAX_QPARTS];
};

/* The geometry of a type with NPU kernels; false for the others (their MUL_MAT stays on the CPU). One row per
 * type, and a row in matmul-ops.c's kernel table: the host's supports rule and the NPU agree through this. The flat
 * parts, per type (the kernel headers read these areas):
 *   Q4_0, IQ4_NL, Q4_1, MXFP4, Q1_0, Q2_0  the 16 code bytes of each row at 16 r, its scale (d; Q4_1 (d, m); MXFP4
 *                                          the E8M0 byte) at 512 + r * size
 *   Q8_0     the 32 codes at 32 r, d at 1024 + 2 r
 *   Q2_K     qs bytes 0..31 at 32 r, 32..63 at 1024 + 32 r, the 16 scale bytes at 2048 + 16 r, (d, dmin) at 2560 + 4 r
 *   Q3_K     hmask at 32 r, qs bytes 0..31 and 32..63 at 1024 + 32 r and 2048 + 32 r, the 12 scale bytes and d at
 *            3072 + 16 r
 *   Q4_K     qs bytes 32 c .. 32 c + 31 at 1024 c + 32 r (c = 0..3), (d, dmin, 12 scale bytes) at 4096 + 16 r
 *   Q5_K     as Q4_K, qh at 4096 + 32 r, (d, dmin, scale bytes) at 5120 + 16 r
 *   Q6_K     ql bytes 32 c .. at 1024 c + 32 r (c = 0..3), qh bytes 32 n .. at 4096 + 1024 n + 32 r (n = 0, 1),
 *            the 16 scales and d at 6144 + 32 r */
static inline bool matmul_qtype_get(uint32_t type, struct matmul_qtype *q) {
    /* clang-format off */
    switch ((enum htp_type) type) {
        case HTP_TYPE_Q4_0: *q = (struct matmul_qtype){18, 1, HTP_TENSOR_TILE_ALIGNED_SIZE_Q4_0, 2,
                                {{2, 16, 0, 16}, {0, 2, 512, 2}}}; return true;
        case HTP_TYPE_Q8_0: *q = (struct matmul_qtype){34, 1, HTP_TENSOR_TILE_ALIGNED_SIZE_Q8_0, 2,
                                {{2, 32, 0, 32}, {0, 2, 1024, 2}}}; return true;
        case HTP_TYPE_Q4_1: *q = (struct matmul_qtype){20, 1, HTP_TENSOR_TILE_ALIGNED_SIZE_Q4_1, 2,
                                {{4, 16, 0, 16}, {0, 4, 512, 4}}}; return true;
        case HTP_TYPE_IQ4_NL: *q = (struct matmul_qtype){18, 1, HTP_TENSOR_TILE_ALIGNED_SIZE_IQ4_NL, 2,
                                {{2, 16, 0, 16}, {0, 2, 512, 2}}}; return true;
        case HTP_TYPE_MXFP4: *q = (struct matmul_qtype){17, 1, HTP_TENSOR_TILE_ALIGNED_SIZE_MXFP4, 2,
                                {{1, 16, 0, 16}, {0, 1, 512, 1}}}; return true;
        case HTP_TYPE_Q1_0: *q = (struct matmul_qtype){18, 4, HTP_TENSOR_TILE_ALIGNED_SIZE_Q1_0 / 4, 2,
                                {{2, 16, 0, 16}, {0, 2, 512, 2}}}; return true;
        case HTP_TYPE_Q2_0: *q = (struct matmul_qtype){18, 2, HTP_TENSOR_TILE_ALIGNED_SIZE_Q2_0 / 2, 2,
                                {{2, 16, 0, 16}, {0, 2, 512, 2}}}; return true;
        case HTP_TYPE_Q2_K: *q = (struct matmul_qtype){84, 8, HTP_TENSOR_TILE_ALIGNED_SIZE_Q2_K, 4,
                                {{16, 32, 0, 32}, {48, 32, 1024, 32}, {0, 16, 2048, 16}, {80, 4, 2560, 4}}}; return true;
        case HTP_TYPE_Q3_K: *q = (struct matmul_qtype){110, 8, HTP_TENSOR_TILE_ALIGNED_SIZE_Q3_K, 4,
                                {{0, 32, 0, 32}, {32, 32, 1024, 32}, {64, 32, 2048, 32}, {96, 14, 3072, 16}}}; return true;
        case HTP_TYPE_Q4_K: *q = (struct matmul_qtype){144, 8, HTP_TENSOR_TILE_ALIGNED_SIZE_Q4_K, 5,
                                {{16, 32, 0, 32}, {48, 32, 1024, 32}, {80, 32, 2048, 32}, {112, 32, 3072, 32},
                                 {0, 16, 4096, 16}}}; return true;
        case HTP_TYPE_Q5_K: *q = (struct matmul_qtype){176, 8, HTP_TENSOR_TILE_ALIGNED_SIZE_Q5_K, 6,
                                {{48, 32, 0, 32}, {80, 32, 1024, 32}, {112, 32, 2048, 32}, {144, 32, 3072, 32},
                                 {16, 32, 4096, 32}, {0, 16, 5120, 16}}}; return true;
        case HTP_TYPE_Q6_K: *q = (struct matmul_qtype){210, 8, HTP_TENSOR_TILE_ALIGNED_SIZE_Q6_K, 7,
                                {{0, 32, 0, 32}, {32, 32, 1024, 32}, {64, 32, 2048, 32}, {96, 32, 3072, 32},
                                 {128, 32, 4096, 32}, {160, 32, 5120, 32}, {192, 18, 6144, 32}}}; return true;
        case HTP_TYPE_F32:
        case HTP_TYPE_F16:
        case HTP_TYPE_I32:
        case HTP_TYPE_I64:
        case HTP_TYPE_BF16: break;
    }
    /* clang-format on */
    return false;
}

/* Whether GGML's CPU quantizes the activations of a product with type to an FP16 scale (its vec_dot_type is Q8_0 or
 * Q8_1: the types of blocks of 32 and their Q1_0, Q2_0 kin) rather than to Q8_K's f32 one (the K-quants): the scale
 * act_quant_q8_row keeps (act-quant.h). */
static inline bool matmul_act_f16_scale(uint32_t type) {
    switch ((enum htp_type) type) {
        case HTP_TYPE_Q2_K:
        case HTP_TYPE_Q3_K:
        case HTP_TYPE_Q4_K:
        case HTP_TYPE_Q5_K:
        case HTP_TYPE_Q6_K: return false;
        default: return true;
    }
}

/* DMA descriptors one weight tile row of valid rows takes: 1, or n_parts per row for flat quantized weights (their
 * parts land in separate areas, matmul-ops.c). The pipeline keeps n_prefetch * (1 + this) in a worker's queue. */
static inline uint32_t matmul_wrow_ndesc(uint32_t path, bool tiled, uint32_t n_parts, uint32_t valid_rows) {
    return path == MATMUL_PATH_QUANT && !tiled ? n_parts * valid_rows : 1;
}

/* The deepest prefetch a worker's DMA queue holds when a tile row takes ndesc descriptors: each slot keeps its
 * weight descriptors and one write-back (or dummy) in flight. */
static inline uint32_t matmul_max_prefetch(uint32_t ndesc) {
    return VDSP_DMA_DEPTH / (1 + ndesc);
}

/* The deepest weight prefetch of an HVX plan (host thresholds, MUL_MAT's and MUL_MAT_ID's): MATMUL_HVX_PREFETCH
 * tile rows for float and tiled weights; flat quantized tile rows take a DMA descriptor per part and row (2 for the
 * block-32 types: MATMUL_HVX_FLAT_PREFETCH in flight keep a worker's queue under VDSP_DMA_DEPTH; the K-quants' 4 to
 * 7 leave room for one, matmul_max_prefetch). */
#define MATMUL_HVX_PREFETCH      4
#define MATMUL_HVX_FLAT_PREFETCH 3

/* The host's HVX plan for weights of type (tiled or not) [ne00 = K, ne01], MUL_MAT's or MUL_MAT_ID's: the path and
 * the sizes, and the deepest prefetch the plan tries; false for a type without HVX kernels (F32, F16 and the
 * matmul_qtype_get types have them). The sizes hold for ne00 <= MATMUL_MAX_K, which the callers check (a node with a
 * larger K is refused, its sizes unused). */
static inline bool matmul_plan_hvx(struct matmul_plan *p, uint32_t type, bool tiled, uint64_t ne00, uint32_t ne01,
                                   uint32_t *max_prefetch) {
    const uint32_t k = (uint32_t) ne00;
    struct matmul_qtype qt;
    *max_prefetch = MATMUL_HVX_PREFETCH;
    if (type == HTP_TYPE_F32 || type == HTP_TYPE_F16) {
        const uint32_t esize = type == HTP_TYPE_F32 ? 4 : 2;
        p->path = type == HTP_TYPE_F32 ? MATMUL_PATH_F32 : MATMUL_PATH_F16;
        p->wrow_size = MATMUL_TILE_ROWS * hex_align_up(k * esize, HEX_VLEN);
        p->act_row_size = type == HTP_TYPE_F32 ? act_f32_row_size(k) : act_f16_row_size(k);
    } else if (matmul_qtype_get(type, &qt)) {
        p->path = MATMUL_PATH_QUANT;
        p->wrow_size = k / ACT_Q8_BLOCK * qt.step_size;
        p->act_row_size = act_q8_row_size(k);
        if (!tiled) {
            *max_prefetch =
                HEX_MIN(MATMUL_HVX_FLAT_PREFETCH,
                        matmul_max_prefetch(matmul_wrow_ndesc(p->path, false, qt.n_parts, MATMUL_TILE_ROWS)));
        }
    } else {
        return false;
    }
    p->stage_size = act_f32_row_size(k);
    p->n_col_tiles = htp_tile_n_col_tiles(ne01);
    return true;
}

struct htp_ctx;
struct htp_op_ctx;
struct htp_tensor;

/* The operands of a MUL_MAT agree (the shapes at the top): no dimension empty; src1 F32 with dense rows, K = ne00 <=
 * MATMUL_MAX_K; dst F32, contiguous, [ne01, ne11, ne12, ne13]; src0 broadcast over dims 2 and 3; and n_cols and
 * group_cols, the kparams' column counts, those of the shapes. */
bool matmul_shapes_valid(const struct htp_tensor *w, const struct htp_tensor *x, const struct htp_tensor *d,
                         uint32_t n_cols, uint32_t group_cols);

/* HTP_OP_MUL_MAT: src[0] x src[1] -> dst[0], on the plan's path. An htp status: INVAL_PARAMS when shapes, types or
 * kparams disagree, NO_SUPPORT for a weight type without kernels, VTCM_TOO_SMALL, FAULT. */
uint32_t op_matmul(struct htp_op_ctx *octx);

#endif /* VNPU_MATMUL_OPS_H */
