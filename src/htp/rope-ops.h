/*
 * ROPE on F32 rows: what the host precomputes for op_rope (rope-ops.c).
 *
 * Rotary position embedding (Su et al. 2021) with YaRN scaling (Peng et al. 2023), as ggml_rope_ext: row
 * (i1, i2, i3) of src[0] [ne0, n_head, n_tokens, ne3] is token i2 at position p = src[1][i2] (I32); its pair
 * k < n_dims / 2 rotates by
 *     theta_k = p * theta_scale^k / freq_factors[k]          (the product in f32, step by step, as ggml)
 * blended by YaRN between freq_scale * theta_k and theta_k with ramp(k) * ext_factor, and cos and sin scale
 * by mscale. NORMAL mode rotates (x[2k], x[2k+1]), NEOX (x[k], x[k + n_dims/2]); elements from n_dims on
 * are copied. freq_factors src[2] (F32, >= n_dims / 2 elements) is optional.
 */
#ifndef VNPU_ROPE_OPS_H
#define VNPU_ROPE_OPS_H

#include "hex-common.h"
#include "hex-fastdiv.h"
#include "htp-msg.h"
#include "htp-vtcm.h"

#include <stdint.h>

/* Pairs (n_dims / 2) the kernel rotates at most: their freq factors, YaRN blends, angles and sines live on the
 * worker's stack (4 KiB; upstream's NPU workers have 16 KiB stacks). */
#define HTP_ROPE_MAX_PAIRS 256

struct rope_kparams {
    uint32_t n_threads;             /* workers, at most the session's; chosen from the op's size */
    uint32_t rows_per_thread;       /* ceil(nrows / n_threads): thread i starts at row_start + i * this */
    uint32_t block;                 /* rows per DMA block; a block stays in one token (i2, i3) */
    uint32_t n_dims;                /* rotated elements of a row, even, <= 2 HTP_ROPE_MAX_PAIRS */
    uint32_t neox;                  /* 1: NEOX pairs (k, k + n_dims / 2); 0: NORMAL pairs (2k, 2k + 1) */
    float theta_scale;              /* freq_base^(-2 / n_dims), powf as ggml */
    float freq_scale;               /* op_params[6] */
    float ext_factor;               /* op_params[7]; 0: no YaRN blend */
    float mscale;                   /* attn_factor, times 1 + 0.1 ln(1 / freq_scale) when ext_factor != 0 */
    float corr_lo;                  /* YaRN ramp(k) = 1 - clamp((k - corr_lo) / corr_span, 0, 1) */
    float corr_span;                /* max(0.001, corr_hi - corr_lo) */
    struct fastdiv_values div_ne1;  /* flat row -> (i1, i2, i3) */
    struct fastdiv_values div_ne12; /* ne1 * ne2 */
};
_Static_assert(sizeof(struct rope_kparams) <= HTP_MAX_KPARAMS * sizeof(uint32_t), "kernel_params are 128 bytes");

/* Byte offsets inside one thread's VTCM slice. */
struct rope_layout {
    uint32_t row_stride;   /* bytes between rows in VTCM: ne0 * 4 rounded up to 128 */
    uint32_t cache_stride; /* bytes of each angle-cache vector row: n_dims * 4 rounded up, plus 128 */
    uint32_t src;          /* two halves of block rows, 128 bytes of slack on each side (NEOX's shifted loads) */
    uint32_t dst;          /* two halves of block rows */
    uint32_t pos;          /* two 128-byte slots: each block's position */
    uint32_t freq;         /* the freq factors, n_dims / 2 f32 */
    uint32_t cos;          /* the token's cos, laid out per element of a row (both of a pair) */
    uint32_t sin;          /* the token's sin, signed per element: x' = x cos + partner(x) sin */
    uint32_t per_thread;   /* bytes of a thread's slice; thread i's starts at i * per_thread */
};

/* The layout of kp for rows of ne0 elements. */
static inline struct rope_layout rope_layout(const struct rope_kparams *kp, uint32_t ne0) {
    struct rope_layout l;
    l.row_stride = hex_align_up(ne0 * 4, HEX_VLEN);
    l.cache_stride = hex_align_up(kp->n_dims * 4, HEX_VLEN) + HEX_VLEN;
    uint32_t top = 0;
    l.src = htp_vtcm_take(&top, 2ull * kp->block * l.row_stride + 2 * HEX_VLEN) + HEX_VLEN;
    l.dst = htp_vtcm_take(&top, 2ull * kp->block * l.row_stride);
    l.pos = htp_vtcm_take(&top, 2 * HEX_VLEN);
    l.freq = htp_vtcm_take(&top, kp->n_dims / 2 * 4);
    l.cos = htp_vtcm_take(&top, l.cache_stride);
    l.sin = htp_vtcm_take(&top, l.cache_stride);
    l.per_thread = top;
    return l;
}

struct htp_op_ctx;

/* HTP_OP_ROPE: src[0] rows, src[1] positions (I32), src[2] freq factors (optional) -> dst[0]. An htp
 * status. */
uint32_t op_rope(struct htp_op_ctx *octx);

#endif /* VNPU_ROPE_OPS_H */
