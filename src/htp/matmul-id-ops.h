/*
 * MUL_MAT_ID on the NPU (matmul-id-ops.c), the mixture-of-experts product: what the host precomputes, and the VTCM
 * layout both sides compute.
 *
 *     dst[:, e, t] = src0[:, :, ids[e, t]] x src1[:, e % ne11, t]                       (GGML's ggml_mul_mat_id)
 *
 * src0 [ne00 = K, ne01 = M, n_expert] is one weight matrix per expert, of any type MUL_MAT takes (matmul-ops.h: F32,
 * F16, the twelve block types, flat or tiled); src1 [K, ne11, n_tokens] F32 the activations, dense rows, ne11 being
 * n_used or 1 (one row per token broadcast over its slots, as llama.cpp's gate and up projections have it); ids
 * [n_used, n_tokens] I32 the experts each token uses; dst [M, n_used, n_tokens] F32 contiguous.
 *
 * Pairs and columns. A pair is (slot e, token t), pair p = e + n_used * t, which is also its dst row. A column is a
 * src1 row, c = i11 + ne11 * t. Tokens go in chunks of tokens_chunk: their columns are prepared into the shared
 * activation area as MUL_MAT's (act-quant.h), and their pairs routed.
 *
 * Routing (the notes' per-expert row lists). The op's thread reads the chunk's ids from DDR once, checks the copy, and
 * sorts its pairs by expert from it (a counting sort): the list of experts with rows and, per such expert, its (pair,
 * column) rows. An expert no token of the chunk uses costs nothing; one used by many pairs streams its weights once for
 * all of them.
 *
 * Work. A job is one tile row (32 weight rows) of every used expert: its units are (tile row, used expert k), each
 * streaming that expert's tile row DDR -> DMA -> VTCM (n_prefetch units in flight per worker) and multiplying it
 * against the expert's rows (32x2 kernels, a 32x1 for an odd one left) into the job's dst slot, one vector per pair
 * of the chunk. Every pair has exactly one expert, so after its last unit the job's slot holds the 32 results of all
 * the chunk's pairs, which are consecutive dst rows: one 2-D write-back.
 *
 * That is the HVX path; with kparams of the HMX path (first word HMX_MM_KPARAMS_TAG) the op runs hmx-mm-id.c's,
 * which shares the routing and the device split below.
 */
#ifndef VNPU_MATMUL_ID_OPS_H
#define VNPU_MATMUL_ID_OPS_H

#include "hex-common.h"
#include "hex-fastdiv.h"
#include "htp-msg.h"
#include "htp-tensor.h"
#include "htp-vtcm.h"

#include <stdbool.h>
#include <stdint.h>

#define MATMUL_ID_MAX_EXPERTS 512  /* n_expert at most (DeepSeek-V3 has 256, Qwen3-MoE 128, Mixtral 8) */
#define MATMUL_ID_MAX_PAIRS   1024 /* pairs per chunk at most: the chunk's row lists live on the op thread's stack */

struct matmul_id_kparams {
    uint32_t path;                  /* enum matmul_path (matmul-ops.h) */
    uint32_t n_threads;             /* compute workers (<= the session's) */
    uint32_t n_act_threads;         /* activation prep workers (<= n_threads) */
    uint32_t n_prefetch;            /* units in flight per worker, and as many dst slots: 1..MATMUL_MAX_PREFETCH */
    uint32_t wrow_size;             /* VTCM bytes of one weight tile row (a multiple of 128) */
    uint32_t act_row_size;          /* VTCM bytes of one prepared activation column (a multiple of 128) */
    uint32_t stage_size;            /* VTCM bytes of one f32 column as DMA'd before prep: ne10 * 4 rounded up to 128 */
    uint32_t tokens_chunk;          /* tokens per chunk */
    uint32_t cols_chunk;            /* tokens_chunk * ne11: the activation area holds this many columns */
    uint32_t pairs_chunk;           /* tokens_chunk * n_used (<= MATMUL_ID_MAX_PAIRS): vectors of a dst slot */
    uint32_t n_col_tiles;           /* tile rows of one expert's matrix: ceil(ne01 / 32) */
    struct fastdiv_values div_ne11; /* column -> (i11, token): ne11 ... */
    struct fastdiv_values div_ne11_ne12; /* ... and ne11 * n_tokens */
};
_Static_assert(sizeof(struct matmul_id_kparams) <= HTP_MAX_KPARAMS * sizeof(uint32_t), "kernel_params are 128 bytes");

/* Byte offsets in VTCM: the shared activation area, then one slice per worker. A slice holds the compute job's
 * n_prefetch weight tile rows and dst slots, or (the two jobs never run at once) the prep job's two f32 staging
 * rows. */
struct matmul_id_layout {
    uint32_t act;        /* cols_chunk prepared columns, act_row_size apart */
    uint32_t slices;     /* worker i's slice at slices + i * per_thread */
    uint32_t wrow;       /* in a slice: n_prefetch weight tile rows, wrow_size apart */
    uint32_t dst;        /* in a slice: n_prefetch dst slots of pairs_chunk vectors (32 f32 per pair) */
    uint32_t stage;      /* in a slice: two f32 staging rows, stage_size apart */
    uint32_t per_thread; /* bytes of a slice */
    uint32_t total;      /* bytes of the whole layout (UINT32_MAX when it does not fit 32 bits) */
};

/* Bytes of one dst slot: pairs_chunk vectors. */
static inline uint64_t matmul_id_dst_slot_size(const struct matmul_id_kparams *kp) {
    return (uint64_t) kp->pairs_chunk * HEX_VLEN;
}

static inline struct matmul_id_layout matmul_id_plan_layout(const struct matmul_id_kparams *kp) {
    struct matmul_id_layout l;
    uint32_t top = 0;
    l.act = htp_vtcm_take(&top, (uint64_t) kp->cols_chunk * kp->act_row_size);
    l.slices = top;
    uint32_t slice = 0;
    l.wrow = htp_vtcm_take(&slice, (uint64_t) kp->n_prefetch * kp->wrow_size);
    l.dst = htp_vtcm_take(&slice, (uint64_t) kp->n_prefetch * matmul_id_dst_slot_size(kp));
    uint32_t prep = 0;
    l.stage = htp_vtcm_take(&prep, 2 * (uint64_t) kp->stage_size);
    l.per_thread = HEX_MAX(slice, prep);
    const uint64_t total = (uint64_t) l.slices + (uint64_t) l.per_thread * kp->n_threads;
    l.total = l.per_thread == UINT32_MAX || total > UINT32_MAX ? UINT32_MAX : (uint32_t) total;
    return l;
}

/* One routed pair of a chunk: its dst vector (pair index in the chunk) and its activation column in the chunk. */
struct matmul_id_row {
    uint16_t pair;
    uint16_t col;
};

/* A chunk's per-expert row lists: used expert k is expert[k], its rows row[start[k] .. start[k + 1]). */
struct matmul_id_route {
    uint32_t n_used_experts;
    uint16_t expert[MATMUL_ID_MAX_EXPERTS];
    uint16_t start[MATMUL_ID_MAX_EXPERTS + 1];
    uint16_t next[MATMUL_ID_MAX_EXPERTS]; /* while sorting: per expert, its count, then its next free row */
    int32_t ids[MATMUL_ID_MAX_PAIRS];     /* the chunk's ids by pair, as read once from DDR: checked, then sorted */
    struct matmul_id_row row[MATMUL_ID_MAX_PAIRS];
};

struct htp_ctx;
struct htp_msg;
struct htp_op_ctx;
struct htp_tensor;

/* The operands of a MUL_MAT_ID agree (the shapes at the top): no dimension empty; src0 [ne00, ne01, n_expert <=
 * MATMUL_ID_MAX_EXPERTS, 1], K = ne00 <= MATMUL_MAX_K; src1 F32 [ne00, ne11, n_tokens, 1] with dense rows, ne11
 * dividing n_used; ids I32 [n_used, n_tokens] with dense rows; dst F32, contiguous, [ne01, n_used, n_tokens]; and the
 * kparams' chunk, tokens_chunk >= 1 tokens of pairs_chunk = tokens_chunk * n_used <= MATMUL_ID_MAX_PAIRS pairs.
 * Checked by both paths' entries before anything is read (hmx-mm-id.c adds its own conditions). */
bool matmul_id_shapes_valid(const struct htp_tensor *w, const struct htp_tensor *x, const struct htp_tensor *ids,
                            const struct htp_tensor *d, uint32_t tokens_chunk, uint32_t pairs_chunk);

/* The pairs of tokens [t0, t1) sorted by expert into rt (a counting sort): the chunk's ids are read once from DDR into
 * rt->ids (the host may change them while the op runs), each checked to lie in [0, n_expert), and sorted from that
 * copy; ne11 activation rows per token, (t1 - t0) * n_used <= MATMUL_ID_MAX_PAIRS, n_expert <= MATMUL_ID_MAX_EXPERTS.
 * HTP_STATUS_OK, or INVAL_PARAMS with m saying which id, where and the limit ("expert id 9 at [1, 3, 0] outside [0,
 * n_expert = 8)"). Used by both paths. */
uint32_t matmul_id_route_chunk(struct matmul_id_route *rt, const struct htp_tensor *ids, uint32_t n_expert,
                               uint32_t ne11, uint32_t t0, uint32_t t1, struct htp_msg *m);

/* The tile rows of each expert's matrix this device computes: all n_col_tiles, or its share when devices split the
 * op (whole 128-byte lines of dst rows per device where dst allows). Used by both paths. */
struct htp_tensor_mdev_range matmul_id_tile_rows(const struct htp_ctx *ctx, const struct htp_tensor *dst,
                                                 uint32_t n_col_tiles);

/* HTP_OP_MUL_MAT_ID: src[0] (experts' weights) x src[1] (activations) routed by src[2] (ids) -> dst[0]. An htp
 * status: INVAL_PARAMS when shapes, types or kparams disagree (nothing is written then) or an id is outside [0,
 * n_expert) (the chunks of tokens before the id's are written, the message names the id), NO_SUPPORT for a weight type
 * without kernels, VTCM_TOO_SMALL, FAULT. */
uint32_t op_matmul_id(struct htp_op_ctx *octx);

#endif /* VNPU_MATMUL_ID_OPS_H */
