/*
 * FLASH_ATTN_EXT: what the host precomputes for op_flash_attn (flash-attn-ops.c).
 *
 * For each query row (iq1 token, iq2 head, iq3) of Q src[0] F32 [D, n_q, n_head, ne3]:
 *     out = softmax(softcap(q . K^T * scale) + slope * mask) . V       (ggml_flash_attn_ext; Dao et al. 2022)
 * with K src[1] and V src[2] (F16 or F32) [D | Dv, n_kv, n_head_kv, ne3] read at head iq2 / (n_head /
 * n_head_kv) (GQA), the optional mask src[3] (F16 or F32) [n_kv, >= n_q, ne2, ne3] at row iq1 of slice
 * (iq2 % ne2, iq3 % ne3), softcap s -> c tanh(s / c) when logit_softcap c != 0 and the ALiBi slope of head
 * iq2 when max_bias > 0 (else 1). The result dst[0] F32 is permuted as ggml's: row (iq2, iq1, iq3) of
 * [Dv, n_head, n_q, ne3]. A query that sees no key (every mask entry -inf) gives zeros.
 *
 * The HVX path of the reference notes (section 8.6): query rows split over the threads; each thread takes
 * its rows in query blocks of up to br rows that read the same K/V head, and streams K, V and mask in
 * blocks of bc keys through VTCM (double buffered), with an online softmax in f32.
 */
#ifndef VNPU_FLASH_ATTN_OPS_H
#define VNPU_FLASH_ATTN_OPS_H

#include "hex-common.h"
#include "hex-fastdiv.h"
#include "htp-alibi.h"
#include "htp-msg.h"
#include "htp-vtcm.h"

#include <stdint.h>

/* Keys per KV block at most: a query row's scores of one block live on the worker's stack (1 KiB). */
#define HTP_FA_MAX_BC 256

struct flash_attn_kparams {
    uint32_t n_threads;                 /* workers, at most the session's; chosen from the op's work */
    uint32_t rows_per_thread;           /* query rows: ceil(nrows / n_threads) */
    uint32_t br;                        /* query rows per query block at most */
    uint32_t bc;                        /* keys per KV block: a multiple of 32, <= HTP_FA_MAX_BC */
    uint32_t n_kv_blocks;               /* ceil(n_kv / bc) */
    uint32_t block_heads;               /* 1 (n_q == 1): a query block runs over the heads that share a K/V
                                           head; 0: over the tokens of one head */
    float scale;                        /* op_params[0], divided by softcap when softcap != 0 (as ggml) */
    float softcap;                      /* op_params[2]; 0: none */
    struct htp_alibi alibi;             /* op_params[1] = max_bias and the slopes' bases */
    struct fastdiv_values div_nq;       /* flat query row -> (iq1, iq2, iq3): n_q */
    struct fastdiv_values div_nq_nh;    /* n_q * n_head */
    struct fastdiv_values div_gqa;      /* iq2 -> K/V head: n_head / n_head_kv */
    struct fastdiv_values div_mask_ne2; /* the mask's ne2 and ne3: its broadcast (1 without a mask) */
    struct fastdiv_values div_mask_ne3;
};
_Static_assert(sizeof(struct flash_attn_kparams) <= HTP_MAX_KPARAMS * sizeof(uint32_t), "kernel_params are 128 bytes");

/* Byte offsets inside one thread's VTCM slice. */
struct flash_attn_layout {
    uint32_t q_stride;    /* bytes between Q rows: D * 4 rounded up to 128 */
    uint32_t k_stride;    /* bytes between K rows as loaded: D * K's element size, rounded up */
    uint32_t v_stride;    /* bytes between V rows as loaded */
    uint32_t kf_stride;   /* bytes between f32 K rows: k_stride for F32 K, D * 4 rounded up to 256 once widened
                             (hvx-convert.h widens 64 halves at a time) */
    uint32_t vf_stride;   /* bytes between f32 V rows: v_stride for F32 V, Dv * 4 rounded up to 256 once widened */
    uint32_t o_stride;    /* bytes between output rows: Dv * 4 rounded up to 128 */
    uint32_t mask_stride; /* bytes between mask rows: bc * the mask's element size, rounded up; 0 without */
    uint32_t q;           /* two halves of br rows (by query block) */
    uint32_t k;           /* two halves of bc rows (by KV block) */
    uint32_t v;
    uint32_t mask;       /* two halves of br rows of bc keys */
    uint32_t k_f32;      /* bc rows: an F16 K block widened (0 bytes for F32 K) */
    uint32_t v_f32;      /* bc rows: an F16 V block widened (0 bytes for F32 V) */
    uint32_t o;          /* br accumulator rows */
    uint32_t m;          /* br vectors: each row's running maximum, in every lane */
    uint32_t l;          /* br vectors: each row's running sum */
    uint32_t out;        /* two halves of br rows: the normalised results on their way out */
    uint32_t per_thread; /* bytes of a thread's slice; thread i's starts at i * per_thread */
};

/* The layout of kp for head sizes d (Q, K) and dv (V), K and V elements of k_size and v_size bytes (2: F16,
 * 4: F32), and a mask of mask_size bytes per element (0: none). */
static inline struct flash_attn_layout flash_attn_layout(const struct flash_attn_kparams *kp, uint32_t d, uint32_t dv,
                                                         uint32_t k_size, uint32_t v_size, uint32_t mask_size) {
    struct flash_attn_layout l;
    l.q_stride = hex_align_up(d * 4, HEX_VLEN);
    l.k_stride = hex_align_up(d * k_size, HEX_VLEN);
    l.v_stride = hex_align_up(dv * v_size, HEX_VLEN);
    l.kf_stride = k_size == 4 ? l.k_stride : hex_align_up(d * 4, 2 * HEX_VLEN);
    l.vf_stride = v_size == 4 ? l.v_stride : hex_align_up(dv * 4, 2 * HEX_VLEN);
    l.o_stride = hex_align_up(dv * 4, HEX_VLEN);
    l.mask_stride = mask_size ? hex_align_up(kp->bc * mask_size, HEX_VLEN) : 0;
    uint32_t top = 0;
    l.q = htp_vtcm_take(&top, 2ull * kp->br * l.q_stride);
    l.k = htp_vtcm_take(&top, 2ull * kp->bc * l.k_stride);
    l.v = htp_vtcm_take(&top, 2ull * kp->bc * l.v_stride);
    l.mask = htp_vtcm_take(&top, 2ull * kp->br * l.mask_stride);
    l.k_f32 = htp_vtcm_take(&top, k_size == 4 ? 0 : (uint64_t) kp->bc * l.kf_stride);
    l.v_f32 = htp_vtcm_take(&top, v_size == 4 ? 0 : (uint64_t) kp->bc * l.vf_stride);
    l.o = htp_vtcm_take(&top, (uint64_t) kp->br * l.o_stride);
    l.m = htp_vtcm_take(&top, (uint64_t) kp->br * HEX_VLEN);
    l.l = htp_vtcm_take(&top, (uint64_t) kp->br * HEX_VLEN);
    l.out = htp_vtcm_take(&top, 2ull * kp->br * l.o_stride);
    l.per_thread = top;
    return l;
}

struct htp_op_ctx;

/* HTP_OP_FLASH_ATTN_EXT: src[0] Q, src[1] K, src[2] V, src[3] mask (optional) -> dst[0]. An htp status. */
uint32_t op_flash_attn(struct htp_op_ctx *octx);

#endif /* VNPU_FLASH_ATTN_OPS_H */
