/*
 * The attention family on the host (rope-ops, softmax-ops, flash-attn-ops of src/htp): what each supports,
 * and the kernel_params each op node carries: threads, rows per thread, DMA block sizes, the op's constants
 * (ROPE's angle scale and YaRN ramp, the ALiBi bases, FLASH_ATTN_EXT's scale) and fastdiv values.
 *
 * Each plan is a pure function of shapes, types and the device's resources, so supports_op (which only asks
 * whether a plan exists) and the request (which sends it) agree, and the kernel recomputes the same VTCM
 * layout from it (the <op>_layout functions of the kernel headers).
 *
 * What supports_op rejects, each with its reason in the VNPU_VERBOSE line:
 *   all      operands whose rows are not dense (nb0 != element size): the kernels DMA whole rows;
 *            a row (or, for FLASH_ATTN_EXT, a query block with its KV block) that does not fit VTCM
 *   ROPE     modes other than NORMAL and NEOX (the CPU reference has no others either); n_dims / 2 above
 *            HTP_ROPE_MAX_PAIRS; src0 and result of different shapes
 *   SOFT_MAX types other than F32 (x, result) and F16/F32 (mask); x and result of different shapes
 *   FLASH_ATTN_EXT  K and V with different numbers of heads (the kernel reads one K/V head per query
 *            block), Q other than F32, K/V other than F16/F32
 */
#include "flash-attn-ops.h"
#include "htp-device-impl.h"
#include "rope-ops.h"
#include "softmax-ops.h"

#include "log.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Threads and blocks. HTP_ATTN_MIN_BYTES_PER_THREAD: the row ops stream f32 through the emulation at about
 * 20 GB/s per worker, and waking a parked worker costs tens of microseconds on a loaded 2-core host, so a
 * worker is worth it from about 256 KiB of rows on (the figure src/host/htp-prep-rows.c measured for the
 * elementwise ops; SOFT_MAX, with its exponentials, streams about 2 GB/s, so 256 KiB is still 0.1 ms of work).
 * HTP_ATTN_BLOCK_BYTES: DMA blocks of about 16 KiB per buffer. HTP_FA_MIN_MACS_PER_THREAD: FLASH_ATTN_EXT does
 * D + Dv multiply-adds per query row and key, about 1.8 G/s per host core (vnpu-test-ops perf, the decode case
 * [128, 1, 32] x 1024 keys: 8.4 M in 2.3 ms on 2 cores), so 2^20 of them (0.6 ms) per extra worker. */
#define HTP_ATTN_MIN_BYTES_PER_THREAD (256u << 10)
#define HTP_ATTN_BLOCK_BYTES          (16u << 10)
#define HTP_FA_MIN_MACS_PER_THREAD    (1u << 20)
/* Query rows per query block (K/V converted and DMA'd once for all of them) and keys per KV block (the
 * reference notes' HVX path uses 64). */
#define HTP_FA_BR                     32
#define HTP_FA_BC                     64

/* Dense rows of one of the types ok (a bit set per vnpu_type), with why. */
static bool attn_rows(const struct vnpu_tensor *t, uint64_t types, char *why, size_t size) {
    if (!(types & (1ull << t->type)) || t->nb[0] != vnpu_type_size_of(t)) {
        snprintf(why, size, "'%s' is %s with %zu-byte elements (dense rows of %s)", t->name, vnpu_type_name(t->type),
                 t->nb[0], types & (1ull << VNPU_TYPE_F16) ? "f16 or f32" : "f32");
        return false;
    }
    return true;
}

#define ATTN_F32     (1ull << VNPU_TYPE_F32)
#define ATTN_F16_F32 ((1ull << VNPU_TYPE_F16) | (1ull << VNPU_TYPE_F32))

/* Workers for an op worth work units, at least min_per_thread each, at most one per row. */
static uint32_t attn_threads(const struct htp_device *d, uint64_t work, uint64_t min_per_thread, uint64_t nrows) {
    uint64_t n = work / min_per_thread;
    n = n < 1 ? 1 : n > d->n_threads ? d->n_threads : n;
    return (uint32_t) (n > nrows ? nrows : n);
}

/* Rows per DMA block: about HTP_ATTN_BLOCK_BYTES of rows of row_bytes, at most per_block_max and half a
 * thread's rows (so both halves work), at least 1. */
static uint32_t attn_block(uint32_t row_bytes, uint32_t rows_per_thread, uint32_t per_block_max) {
    uint32_t block = HTP_ATTN_BLOCK_BYTES / (row_bytes ? row_bytes : 1);
    block = block < 1 ? 1 : block;
    block = block > (rows_per_thread + 1) / 2 ? (rows_per_thread + 1) / 2 : block;
    block = block > per_block_max ? per_block_max : block;
    return block < 1 ? 1 : block;
}

static struct htp_alibi attn_alibi(float max_bias, uint32_t n_head) {
    struct htp_alibi a = {.max_bias = max_bias, .m0 = 1.0f, .m1 = 1.0f, .n_head_log2 = 1};
    if (max_bias > 0.0f) { /* as ggml's soft_max and flash_attn_ext (and the CPU reference) */
        a.n_head_log2 = 1u << (uint32_t) floor(log2((double) n_head));
        a.m0 = powf(2.0f, -max_bias / (float) a.n_head_log2);
        a.m1 = powf(2.0f, -(max_bias / 2.0f) / (float) a.n_head_log2);
    }
    return a;
}

/* x has the shape of the result node; else false, with why. */
static bool attn_same_shape(const struct vnpu_tensor *x, const struct vnpu_tensor *node, char *why, size_t size) {
    if (!vnpu_are_same_shape(x, node)) {
        snprintf(why, size, "'%s' and the result differ in shape", x->name);
        return false;
    }
    return true;
}

/* ---- ROPE ---- */

/* The plan of node on d; false, with why, when no block fits VTCM. */
static bool rope_plan(const struct htp_device *d, const struct vnpu_tensor *node, void *kparams, char *why,
                      size_t size) {
    struct rope_kparams *kp = kparams;
    memset(kp, 0, sizeof(*kp));
    const uint32_t ne0 = (uint32_t) node->ne[0], ne1 = (uint32_t) node->ne[1], ne2 = (uint32_t) node->ne[2];
    const uint64_t nrows = (uint64_t) vnpu_nrows(node);
    const int n_dims = node->op_params[1];
    const float freq_base = vnpu_get_op_param_f32(node, 5), freq_scale = vnpu_get_op_param_f32(node, 6);
    const float ext_factor = vnpu_get_op_param_f32(node, 7), attn_factor = vnpu_get_op_param_f32(node, 8);
    const float beta_fast = vnpu_get_op_param_f32(node, 9), beta_slow = vnpu_get_op_param_f32(node, 10);
    const int n_ctx_orig = node->op_params[4];

    kp->n_dims = (uint32_t) n_dims;
    kp->neox = node->op_params[2] == VNPU_ROPE_TYPE_NEOX;
    kp->theta_scale = powf(freq_base, -2.0f / (float) n_dims);
    kp->freq_scale = freq_scale;
    kp->ext_factor = ext_factor;
    kp->mscale = ext_factor != 0.0f ? attn_factor * (1.0f + 0.1f * logf(1.0f / freq_scale)) : attn_factor;
    /* YaRN's correction range in pairs (ggml_rope_yarn_corr_dims, as src/cpu/cpu-rope.c computes it) */
    const float denom = 2 * logf(freq_base);
    const float lo = (float) n_dims * logf((float) n_ctx_orig / (beta_fast * 2 * (float) M_PI)) / denom;
    const float hi = (float) n_dims * logf((float) n_ctx_orig / (beta_slow * 2 * (float) M_PI)) / denom;
    kp->corr_lo = fmaxf(0.0f, floorf(lo));
    kp->corr_span = fmaxf(0.001f, fminf((float) (n_dims - 1), ceilf(hi)) - kp->corr_lo);
    kp->div_ne1 = fastdiv_init(ne1);
    kp->div_ne12 = fastdiv_init(ne1 * ne2);

    kp->n_threads = attn_threads(d, nrows * ne0 * 4, HTP_ATTN_MIN_BYTES_PER_THREAD, nrows);
    kp->rows_per_thread = (uint32_t) ((nrows + kp->n_threads - 1) / kp->n_threads);
    kp->block = attn_block(hex_align_up(ne0 * 4, HEX_VLEN), kp->rows_per_thread, ne1);
    for (;;) {
        const struct rope_layout l = rope_layout(kp, ne0);
        if (htp_vtcm_fits(l.per_thread, kp->n_threads, d->target.vtcm_size)) {
            return true;
        }
        if (kp->block > 1) {
            kp->block /= 2;
        } else if (kp->n_threads > 1) {
            kp->n_threads--;
            kp->rows_per_thread = (uint32_t) ((nrows + kp->n_threads - 1) / kp->n_threads);
        } else {
            snprintf(why, size, "a row of %u f32 does not fit twice in %zu bytes of VTCM", ne0, d->target.vtcm_size);
            return false;
        }
    }
}

static bool rope_supports(const struct htp_device *d, const struct vnpu_tensor *node, uint32_t opcode, char *why,
                          size_t size) {
    const struct vnpu_tensor *x = node->src[0], *pos = node->src[1], *ff = node->src[2];
    const int mode = node->op_params[2], n_dims = node->op_params[1];
    (void) opcode;
    if (mode != VNPU_ROPE_TYPE_NORMAL && mode != VNPU_ROPE_TYPE_NEOX) {
        snprintf(why, size, "rope mode %d (NORMAL and NEOX only)", mode);
        return false;
    }
    if (!attn_rows(x, ATTN_F32, why, size) || !attn_rows(node, ATTN_F32, why, size) ||
        (ff && !attn_rows(ff, ATTN_F32, why, size))) {
        return false;
    }
    if (pos->type != VNPU_TYPE_I32 || pos->nb[0] != 4) {
        snprintf(why, size, "positions '%s' are not dense i32", pos->name);
        return false;
    }
    if (!attn_same_shape(x, node, why, size)) {
        return false;
    }
    if (n_dims / 2 > HTP_ROPE_MAX_PAIRS) {
        snprintf(why, size, "n_dims %d: the kernel rotates at most %d pairs", n_dims, HTP_ROPE_MAX_PAIRS);
        return false;
    }
    struct rope_kparams kp;
    return rope_plan(d, node, &kp, why, size);
}

const struct htp_op_family htp_family_rope = {.supports = rope_supports, .plan = rope_plan, .n_src = 3};

/* ---- SOFT_MAX ---- */

static bool softmax_plan(const struct htp_device *d, const struct vnpu_tensor *node, void *kparams, char *why,
                         size_t size) {
    struct softmax_kparams *kp = kparams;
    memset(kp, 0, sizeof(*kp));
    const struct vnpu_tensor *mask = node->src[1];
    const uint32_t ne00 = (uint32_t) node->ne[0], ne01 = (uint32_t) node->ne[1], ne02 = (uint32_t) node->ne[2];
    const uint32_t mask_size = mask ? (uint32_t) vnpu_type_size_of(mask) : 0;
    const uint64_t nrows = (uint64_t) vnpu_nrows(node);
    kp->scale = vnpu_get_op_param_f32(node, 0);
    kp->alibi = attn_alibi(vnpu_get_op_param_f32(node, 1), ne02);
    kp->div_ne01 = fastdiv_init(ne01);
    kp->div_ne0102 = fastdiv_init(ne01 * ne02);
    kp->div_mask_ne2 = fastdiv_init(mask ? (uint32_t) mask->ne[2] : 1);
    kp->div_mask_ne3 = fastdiv_init(mask ? (uint32_t) mask->ne[3] : 1);

    kp->n_threads = attn_threads(d, nrows * ne00 * (8 + mask_size), HTP_ATTN_MIN_BYTES_PER_THREAD, nrows);
    kp->rows_per_thread = (uint32_t) ((nrows + kp->n_threads - 1) / kp->n_threads);
    kp->block_heads = ne01 == 1;
    kp->block = attn_block(hex_align_up(ne00 * 4, HEX_VLEN), kp->rows_per_thread, kp->block_heads ? ne02 : ne01);
    for (;;) {
        const struct softmax_layout l = softmax_layout(kp, ne00, mask_size);
        if (htp_vtcm_fits(l.per_thread, kp->n_threads, d->target.vtcm_size)) {
            return true;
        }
        if (kp->block > 1) {
            kp->block /= 2;
        } else if (kp->n_threads > 1) {
            kp->n_threads--;
            kp->rows_per_thread = (uint32_t) ((nrows + kp->n_threads - 1) / kp->n_threads);
        } else {
            snprintf(why, size, "a row of %u f32 with its mask does not fit twice in %zu bytes of VTCM", ne00,
                     d->target.vtcm_size);
            return false;
        }
    }
}

static bool softmax_supports(const struct htp_device *d, const struct vnpu_tensor *node, uint32_t opcode, char *why,
                             size_t size) {
    const struct vnpu_tensor *x = node->src[0], *mask = node->src[1];
    (void) opcode;
    if (!attn_rows(x, ATTN_F32, why, size) || !attn_rows(node, ATTN_F32, why, size) ||
        (mask && !attn_rows(mask, ATTN_F16_F32, why, size))) {
        return false;
    }
    if (!attn_same_shape(x, node, why, size)) {
        return false;
    }
    struct softmax_kparams kp;
    return softmax_plan(d, node, &kp, why, size);
}

const struct htp_op_family htp_family_softmax = {.supports = softmax_supports, .plan = softmax_plan, .n_src = 2};

/* ---- FLASH_ATTN_EXT ---- */

static bool flash_attn_plan(const struct htp_device *d, const struct vnpu_tensor *node, void *kparams, char *why,
                            size_t size) {
    struct flash_attn_kparams *kp = kparams;
    memset(kp, 0, sizeof(*kp));
    const struct vnpu_tensor *q = node->src[0], *k = node->src[1], *v = node->src[2], *mask = node->src[3];
    const uint32_t dk = (uint32_t) q->ne[0], dv = (uint32_t) v->ne[0], n_kv = (uint32_t) k->ne[1];
    const uint32_t n_q = (uint32_t) q->ne[1], n_head = (uint32_t) q->ne[2], gqa = n_head / (uint32_t) k->ne[2];
    const uint32_t mask_size = mask ? (uint32_t) vnpu_type_size_of(mask) : 0;
    const uint64_t nrows = (uint64_t) vnpu_nrows(q);
    const float softcap = vnpu_get_op_param_f32(node, 2);
    kp->scale = vnpu_get_op_param_f32(node, 0) / (softcap != 0.0f ? softcap : 1.0f);
    kp->softcap = softcap;
    kp->alibi = attn_alibi(vnpu_get_op_param_f32(node, 1), n_head);
    kp->block_heads = n_q == 1;
    kp->div_nq = fastdiv_init(n_q);
    kp->div_nq_nh = fastdiv_init(n_q * n_head);
    kp->div_gqa = fastdiv_init(gqa);
    kp->div_mask_ne2 = fastdiv_init(mask ? (uint32_t) mask->ne[2] : 1);
    kp->div_mask_ne3 = fastdiv_init(mask ? (uint32_t) mask->ne[3] : 1);

    kp->n_threads = attn_threads(d, nrows * n_kv * (dk + dv), HTP_FA_MIN_MACS_PER_THREAD, nrows);
    kp->rows_per_thread = (uint32_t) ((nrows + kp->n_threads - 1) / kp->n_threads);
    const uint32_t run = kp->block_heads ? gqa : n_q; /* rows a query block can take */
    kp->br = run < HTP_FA_BR ? run : HTP_FA_BR;
    kp->br = kp->br < kp->rows_per_thread ? kp->br : kp->rows_per_thread;
    kp->bc = HTP_FA_BC;
    for (;;) {
        kp->n_kv_blocks = (n_kv + kp->bc - 1) / kp->bc;
        const struct flash_attn_layout l =
            flash_attn_layout(kp, dk, dv, (uint32_t) vnpu_type_size_of(k), (uint32_t) vnpu_type_size_of(v), mask_size);
        if (htp_vtcm_fits(l.per_thread, kp->n_threads, d->target.vtcm_size)) {
            return true;
        }
        if (kp->br > 1) {
            kp->br /= 2;
        } else if (kp->bc > 32) {
            kp->bc /= 2;
        } else if (kp->n_threads > 1) {
            kp->n_threads--;
            kp->rows_per_thread = (uint32_t) ((nrows + kp->n_threads - 1) / kp->n_threads);
        } else {
            snprintf(why, size, "heads of %u (K) and %u (V) do not fit a query row and 32 keys in %zu bytes of VTCM",
                     dk, dv, d->target.vtcm_size);
            return false;
        }
    }
}

static bool flash_attn_supports(const struct htp_device *d, const struct vnpu_tensor *node, uint32_t opcode, char *why,
                                size_t size) {
    const struct vnpu_tensor *q = node->src[0], *k = node->src[1], *v = node->src[2], *mask = node->src[3];
    (void) opcode;
    if (!attn_rows(q, ATTN_F32, why, size) || !attn_rows(k, ATTN_F16_F32, why, size) ||
        !attn_rows(v, ATTN_F16_F32, why, size) || !attn_rows(node, ATTN_F32, why, size) ||
        (mask && !attn_rows(mask, ATTN_F16_F32, why, size))) {
        return false;
    }
    if (k->ne[2] != v->ne[2]) {
        snprintf(why, size, "K has %lld heads and V %lld (one K/V head count)", (long long) k->ne[2],
                 (long long) v->ne[2]);
        return false;
    }
    struct flash_attn_kparams kp;
    return flash_attn_plan(d, node, &kp, why, size);
}

const struct htp_op_family htp_family_flash_attn = {
    .supports = flash_attn_supports, .plan = flash_attn_plan, .n_src = 4};
