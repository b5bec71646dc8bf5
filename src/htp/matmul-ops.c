/*
 * MUL_MAT (matmul-ops.h): the chunk loop, the activation prep workers and the tile-row compute workers.
 *
 * Prep worker (a range of the chunk's columns; matmul_weights_prep_cols, shared with MUL_MAT_ID), per column c:
 *     prologue  push the f32 rows of its first two columns into staging halves 0 and 1
 *     column    pop its row, prepare it into the activation area (act-quant.h), push the row of column c + 2
 *     epilogue  pop the two dummies left
 *
 * Compute worker (a range of the chunk's jobs; a job is one tile row of one group's weight matrix), with
 * p = n_prefetch slots, each a weight tile row buffer and a dst slot:
 *     prologue  for each slot s: push a dummy ("dst slot s is free"), then the weight DMA of job s
 *     job i     pop the write-back of job i - p (or the dummy): dst slot i % p is free; pop the weights of job i;
 *               compute every column of the job's group in the chunk into the dst slot (32x2 kernels, a 32x1
 *               for an odd column); push its write-back (valid rows x columns, one 2-D descriptor); push the
 *               weights of job i + p into the same slot
 *     epilogue  pop the p write-backs and p dummy weight DMAs left
 * Jobs past the worker's range push zero-row dummies, so every job pops what the job p before it pushed.
 * Weight DMAs and kernels are matmul-weights.h's (MUL_MAT_ID shares them): F32/F16 rows, 32 rows of ne00 elements
 * into rows of wrow_stride; a tiled tile row, n_k_tiles tiles at the aligned tile stride; a flat quantized tile row,
 * per row one descriptor per part of its blocks (codes, scales, ...) into that part's area of each block's unit
 * (matmul_qtype).
 */
#include "matmul-ops.h"

#include "act-quant.h"
#include "dma-queue.h"
#include "hmx-mm.h"
#include "htp-ctx.h"
#include "htp-tensor.h"
#include "htp-tiles.h"
#include "matmul-weights.h"

struct matmul_ctx {
    struct htp_op_ctx *octx;
    const struct matmul_kparams *kp;
    const struct htp_tensor *src0, *src1, *dst;
    struct matmul_layout layout;
    struct matmul_weights wt; /* src0: its layout, DMA and kernels */
    uint32_t ct_start, n_ct;  /* this device's tile rows of each matrix */
    /* the chunk being computed */
    uint32_t c0, c1; /* its columns */
    uint32_t g0;     /* the group of column c0 */
    uint32_t n_jobs; /* (groups it touches) * n_ct */
    uint32_t jobs_per_thread;
    uint32_t cols_per_act_thread;
};

/* A job's place: group g, tile row ct of the matrix. Workers step it, so only their first job divides. */
struct matmul_job {
    uint32_t g, ct;
};

static struct matmul_job matmul_job_at(const struct matmul_ctx *c, uint32_t j) {
    const uint32_t dg = j / c->n_ct; /* once per worker */
    return (struct matmul_job){c->g0 + dg, c->ct_start + j - dg * c->n_ct};
}

static void matmul_job_next(const struct matmul_ctx *c, struct matmul_job *jb) {
    if (++jb->ct == c->ct_start + c->n_ct) {
        jb->ct = c->ct_start;
        jb->g++;
    }
}

static uint32_t matmul_valid_rows(const struct matmul_ctx *c, uint32_t ct) {
    return htp_tile_valid_rows(c->src0->ne[1], ct);
}

/* The weight matrix of group g: (i02, i03) = (g % ne02, (g / ne02) / r3). */
static const uint8_t *matmul_wmatrix(const struct matmul_ctx *c, uint32_t g) {
    const uint32_t i13 = fastdiv(g, &c->kp->div_ne02), i02 = g - i13 * c->src0->ne[2];
    return matmul_weights_matrix(&c->wt, i02, fastdiv(i13, &c->kp->div_r3));
}

/* ---- the compute worker ---- */

struct matmul_thread {
    const struct matmul_ctx *c;
    struct dma_queue *q;
    struct htp_trace *tr;
    uint8_t *wrow; /* slot s's weight tile row at wrow + s * wrow_size */
    uint8_t *dst;  /* slot s's dst vectors at dst + s * dst slot size */
};

/* Push the weight DMA of job jb into slot s (live false: a dummy). */
static void matmul_push_weights(struct matmul_thread *t, uint32_t s, struct matmul_job jb, bool live) {
    const struct matmul_ctx *c = t->c;
    matmul_weights_push(&c->wt, t->q, t->wrow + (size_t) s * c->kp->wrow_size, live ? matmul_wmatrix(c, jb.g) : NULL,
                        jb.ct, live);
}

/* Columns [ca, cb) of the chunk that multiply group g's matrix. */
static void matmul_job_cols(const struct matmul_ctx *c, uint32_t g, uint32_t *ca, uint32_t *cb) {
    const uint32_t first = g * c->kp->group_cols;
    *ca = HEX_MAX(first, c->c0);
    *cb = HEX_MIN(first + c->kp->group_cols, c->c1);
}

/* Job jb's results: w is its weight tile row in VTCM, out its dst slot (one vector per column from ca). */
static void matmul_job_compute(const struct matmul_ctx *c, struct matmul_job jb, const uint8_t *w, HVX_Vector *out) {
    const struct matmul_kparams *kp = c->kp;
    uint32_t ca, cb;
    matmul_job_cols(c, jb.g, &ca, &cb);
    const uint32_t n = cb - ca, valid = matmul_valid_rows(c, jb.ct);
    const uint8_t *a = c->octx->ctx->vtcm + c->layout.act + (size_t) (ca - c->c0) * kp->act_row_size;
    for (uint32_t i = 0; i < n; i += 2) { /* the 32x2 kernels, a 32x1 for an odd column left */
        const uint8_t *a0 = a + (size_t) i * kp->act_row_size;
        matmul_weights_dot(&c->wt, w, valid, a0, i + 1 < n ? a0 + kp->act_row_size : NULL, out + i, out + i + 1);
    }
}

static void matmul_worker_compute(unsigned nth, unsigned ith, void *arg) {
    const struct matmul_ctx *c = arg;
    const struct matmul_kparams *kp = c->kp;
    struct htp_ctx *ctx = c->octx->ctx;
    const uint32_t j0 = ith * c->jobs_per_thread;
    const uint32_t j1 = HEX_MIN(j0 + c->jobs_per_thread, c->n_jobs);
    (void) nth;
    if (j0 >= j1) {
        return;
    }
    uint8_t *slice = ctx->vtcm + c->layout.slices + (size_t) ith * c->layout.per_thread;
    struct matmul_thread t = {
        .c = c,
        .q = &ctx->dma[ith],
        .tr = &ctx->trace[ith],
        .wrow = slice + c->layout.wrow,
        .dst = slice + c->layout.dst,
    };
    const uint32_t p = kp->n_prefetch, n = j1 - j0;
    const size_t dst_slot = (size_t) matmul_dst_slot_size(kp);
    struct matmul_job jb = matmul_job_at(c, j0), ahead = jb; /* the job computed, the job prefetched */
    for (uint32_t s = 0; s < p; s++) {
        dma_queue_push(t.q, dma_make_pair(c->dst->data, t.dst + s * dst_slot), 0, 0, 0, 0);
        matmul_push_weights(&t, s, ahead, s < n);
        if (s < n) {
            matmul_job_next(c, &ahead);
        }
    }
    for (uint32_t i = 0, s = 0; i < n; i++, s = s + 1 == p ? 0 : s + 1, matmul_job_next(c, &jb)) { /* s = i mod p */
        const uint32_t valid = matmul_valid_rows(c, jb.ct);
        HVX_Vector *out = (HVX_Vector *) dma_queue_pop(t.q).src; /* the slot's last write-back has landed */
        const uint32_t ndesc = matmul_weights_ndesc(&c->wt, valid);
        for (uint32_t k = 0; k < ndesc; k++) {
            dma_queue_pop(t.q);
        }
        uint32_t ca, cb;
        matmul_job_cols(c, jb.g, &ca, &cb);
        if (!htp_op_skip_compute(c->octx)) {
            htp_trace_start(t.tr, HTP_TRACE_HVX_COMP, j0 + i);
            matmul_job_compute(c, jb, t.wrow + (size_t) s * kp->wrow_size, out);
            htp_trace_stop(t.tr, HTP_TRACE_HVX_COMP, j0 + i);
        }
        uint8_t *d = c->dst->data + (size_t) ca * c->dst->nb[1] + (size_t) jb.ct * MATMUL_TILE_ROWS * sizeof(float);
        dma_queue_push(t.q, dma_make_pair(d, out), c->dst->nb[1], HEX_VLEN, valid * sizeof(float), cb - ca);
        matmul_push_weights(&t, s, ahead, i + p < n);
        if (i + p < n) {
            matmul_job_next(c, &ahead);
        }
    }
    for (uint32_t s = 0; s < p; s++) {
        dma_queue_pop(t.q); /* a write-back, or a slot's first dummy */
        dma_queue_pop(t.q); /* a dummy weight DMA */
    }
}

/* ---- the prep worker ---- */

static void matmul_worker_prep(unsigned nth, unsigned ith, void *arg) {
    const struct matmul_ctx *c = arg;
    const struct matmul_kparams *kp = c->kp;
    struct htp_ctx *ctx = c->octx->ctx;
    const uint32_t ca = c->c0 + ith * c->cols_per_act_thread;
    const uint32_t cb = HEX_MIN(ca + c->cols_per_act_thread, c->c1);
    (void) nth;
    if (ca >= cb) {
        return;
    }
    const struct matmul_cols mc = {
        .x = c->src1,
        .div_ne11 = &kp->div_ne11,
        .div_ne11_ne12 = &kp->div_ne11_ne12,
        .act = ctx->vtcm + c->layout.act,
        .act_row_size = kp->act_row_size,
        .c0 = c->c0,
    };
    uint8_t *stage = ctx->vtcm + c->layout.slices + (size_t) ith * c->layout.per_thread + c->layout.stage;
    matmul_weights_prep_cols(&c->wt, &mc, &ctx->dma[ith], &ctx->trace[ith], stage, kp->stage_size, ca, cb,
                             !htp_op_skip_compute(c->octx));
}

/* ---- the entry ---- */

bool matmul_shapes_valid(const struct htp_tensor *w, const struct htp_tensor *x, const struct htp_tensor *d,
                         uint32_t n_cols, uint32_t group_cols) {
    for (int i = 0; i < HTP_MAX_DIMS; i++) {
        if (w->ne[i] == 0 || x->ne[i] == 0) {
            return false;
        }
    }
    const uint32_t ne00 = w->ne[0], ne01 = w->ne[1], ne02 = w->ne[2], ne03 = w->ne[3];
    return x->type == HTP_TYPE_F32 && x->nb[0] == 4 && d->type == HTP_TYPE_F32 && htp_tensor_is_contiguous(d, 4) &&
           x->ne[0] == ne00 && d->ne[0] == ne01 && d->ne[1] == x->ne[1] && d->ne[2] == x->ne[2] &&
           d->ne[3] == x->ne[3] && x->ne[2] % ne02 == 0 && x->ne[3] % ne03 == 0 && ne00 <= MATMUL_MAX_K &&
           n_cols == (uint64_t) x->ne[1] * x->ne[2] * x->ne[3] && group_cols == (uint64_t) x->ne[1] * (x->ne[2] / ne02);
}

bool matmul_kparams_valid(const struct htp_ctx *ctx, const struct htp_tensor *w, uint32_t n_threads,
                          uint32_t n_act_threads, uint32_t n_prefetch, uint32_t max_prefetch, uint32_t stage_size,
                          uint32_t n_col_tiles) {
    return n_threads != 0 && n_threads <= ctx->n_threads && n_act_threads != 0 && n_act_threads <= n_threads &&
           n_prefetch != 0 && n_prefetch <= max_prefetch && stage_size >= w->ne[0] * 4 && stage_size % HEX_VLEN == 0 &&
           n_col_tiles == htp_tile_n_col_tiles(w->ne[1]);
}

/* Shapes, types and kparams agree with each other and with the session; fills the weight geometry of c. */
static uint32_t matmul_check(struct matmul_ctx *c, const struct htp_ctx *ctx) {
    const struct matmul_kparams *kp = c->kp;
    const struct htp_tensor *w = c->src0;
    if (!matmul_shapes_valid(w, c->src1, c->dst, kp->n_cols, kp->group_cols) ||
        !matmul_kparams_valid(ctx, w, kp->n_threads, kp->n_act_threads, kp->n_prefetch, MATMUL_MAX_PREFETCH,
                              kp->stage_size, kp->n_col_tiles) ||
        kp->cols_chunk == 0 || kp->act_row_size % HEX_VLEN || kp->wrow_size % HEX_VLEN) {
        return HTP_STATUS_INVAL_PARAMS;
    }
    const uint32_t st = matmul_weights_init(&c->wt, w, kp->path);
    if (st != HTP_STATUS_OK) {
        return st;
    }
    const uint32_t ndesc = matmul_weights_ndesc(&c->wt, MATMUL_TILE_ROWS);
    if (kp->act_row_size < c->wt.act_row_size || kp->wrow_size < c->wt.wrow_size ||
        kp->n_prefetch * (1 + ndesc) > VDSP_DMA_DEPTH) {
        return HTP_STATUS_INVAL_PARAMS;
    }
    c->layout = matmul_plan_layout(kp);
    return c->layout.total <= ctx->vtcm_size ? HTP_STATUS_OK : HTP_STATUS_VTCM_TOO_SMALL;
}

uint32_t op_matmul(struct htp_op_ctx *octx) {
    if (octx->op.kparams[0] == HMX_MM_KPARAMS_TAG) { /* the batch path on HMX (hmx-mm.h) */
        return op_matmul_hmx(octx);
    }
    struct htp_ctx *ctx = octx->ctx;
    struct matmul_ctx c = {
        .octx = octx,
        .kp = htp_op_kparams(octx),
        .src0 = octx->src[0],
        .src1 = octx->src[1],
        .dst = octx->dst[0],
    };
    const struct matmul_kparams *kp = c.kp;
    const uint32_t st = matmul_check(&c, ctx);
    if (st != HTP_STATUS_OK) {
        return st;
    }
    c.ct_start = 0;
    c.n_ct = kp->n_col_tiles;
    if (ctx->mdev.count > 1) { /* devices split the tile rows: each writes whole 128-byte lines of dst rows */
        const bool lines = htp_tensor_mdev_data_aligned(c.dst) && c.dst->nb[1] % HTP_TENSOR_MDEV_LINE_SIZE == 0;
        const struct htp_tensor_mdev_range range = htp_tensor_mdev_partition(
            kp->n_col_tiles, lines ? 1 : 0, ctx->mdev.idx, ctx->mdev.count, &ctx->mdev.count_div);
        c.ct_start = range.start;
        c.n_ct = range.count;
    }
    if (c.n_ct == 0) {
        return HTP_STATUS_OK;
    }
    for (c.c0 = 0; c.c0 < kp->n_cols; c.c0 = c.c1) {
        c.c1 = HEX_MIN(c.c0 + kp->cols_chunk, kp->n_cols);
        c.g0 = c.c0 / kp->group_cols;
        c.n_jobs = ((c.c1 - 1) / kp->group_cols - c.g0 + 1) * c.n_ct;
        c.jobs_per_thread = (c.n_jobs + kp->n_threads - 1) / kp->n_threads;
        const uint32_t n_act = HEX_MIN(kp->n_act_threads, c.c1 - c.c0);
        c.cols_per_act_thread = (c.c1 - c.c0 + n_act - 1) / n_act;
        if (work_queue_run(&ctx->wq, matmul_worker_prep, &c, n_act) != VDSP_FAULT_NONE ||
            work_queue_run(&ctx->wq, matmul_worker_compute, &c, kp->n_threads) != VDSP_FAULT_NONE) {
            return HTP_STATUS_FAULT;
        }
    }
    return HTP_STATUS_OK;
}
