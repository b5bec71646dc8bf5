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
 * That is the HVX path; with plan.path MATMUL_PATH_HMX the units run on HMX (hmx-mm-id.h), with the same routing,
 * jobs and device split. Both paths run on the driver of matmul-driver.h.
 */
#ifndef VNPU_MATMUL_ID_OPS_H
#define VNPU_MATMUL_ID_OPS_H

#include "hex-common.h"
#include "htp-msg.h"
#include "matmul-ops.h"

#include <stdbool.h>
#include <stdint.h>

#define MATMUL_ID_MAX_EXPERTS 512  /* n_expert at most (DeepSeek-V3 has 256, Qwen3-MoE 128, Mixtral 8) */
#define MATMUL_ID_MAX_PAIRS   1024 /* pairs per chunk at most: the chunk's row lists live on the op thread's stack */

struct matmul_id_kparams {
    struct matmul_plan plan; /* div_ne11 and div_ne11_ne12: of ne11 and ne11 * n_tokens */
    uint32_t tokens_chunk;   /* tokens per chunk */
    uint32_t cols_chunk;     /* tokens_chunk * ne11: the columns of a chunk (HVX: the activation area holds them) */
    uint32_t pairs_chunk;    /* tokens_chunk * n_used (<= MATMUL_ID_MAX_PAIRS): vectors of a dst slot */
    uint32_t act_tile_rows;  /* HMX: activation tile rows of a chunk at most (hmx_mm_id_act_tile_rows) */
};
_Static_assert(sizeof(struct matmul_id_kparams) <= HTP_MAX_KPARAMS * sizeof(uint32_t), "kernel_params are 128 bytes");

/* MUL_MAT_ID's layout (matmul_layout_of): the chunk's cols_chunk prepared columns (HMX: act_tile_rows tile rows, and
 * the output tiles of one expert's pairs_chunk rows at most), dst slots of pairs_chunk vectors. */
static inline struct matmul_layout matmul_id_plan_layout(const struct matmul_id_kparams *kp) {
    const uint64_t cols =
        kp->plan.path == MATMUL_PATH_HMX ? (uint64_t) kp->act_tile_rows * HMX_MM_TILE : kp->cols_chunk;
    return matmul_layout_of(&kp->plan, cols * kp->plan.act_row_size,
                            ((uint64_t) kp->pairs_chunk + HMX_MM_TILE - 1) / HMX_MM_TILE, kp->pairs_chunk);
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
 * kparams' chunk, tokens_chunk >= 1 tokens of pairs_chunk = tokens_chunk * n_used <= MATMUL_ID_MAX_PAIRS pairs. */
bool matmul_id_shapes_valid(const struct htp_tensor *w, const struct htp_tensor *x, const struct htp_tensor *ids,
                            const struct htp_tensor *d, uint32_t tokens_chunk, uint32_t pairs_chunk);

/* The pairs of tokens [t0, t1) sorted by expert into rt (a counting sort): the chunk's ids are read once from DDR into
 * rt->ids (the host may change them while the op runs), each checked to lie in [0, n_expert), and sorted from that
 * copy; ne11 activation rows per token, (t1 - t0) * n_used <= MATMUL_ID_MAX_PAIRS, n_expert <= MATMUL_ID_MAX_EXPERTS.
 * HTP_STATUS_OK, or INVAL_PARAMS with m saying which id, where and the limit ("expert id 9 at [1, 3, 0] outside [0,
 * n_expert = 8)"). Used by both paths. */
uint32_t matmul_id_route_chunk(struct matmul_id_route *rt, const struct htp_tensor *ids, uint32_t n_expert,
                               uint32_t ne11, uint32_t t0, uint32_t t1, struct htp_msg *m);

/* HTP_OP_MUL_MAT_ID: src[0] (experts' weights) x src[1] (activations) routed by src[2] (ids) -> dst[0]. An htp
 * status: INVAL_PARAMS when shapes, types or kparams disagree (nothing is written then) or an id is outside [0,
 * n_expert) (the chunks of tokens before the id's are written, the message names the id), NO_SUPPORT for a weight type
 * without kernels, VTCM_TOO_SMALL, FAULT. */
uint32_t op_matmul_id(struct htp_op_ctx *octx);

#endif /* VNPU_MATMUL_ID_OPS_H */
