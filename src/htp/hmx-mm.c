/*
 * MUL_MAT on HMX (hmx-mm.h): the chunk loop, the activation prep workers (f32 columns -> FP16 activation tiles) and
 * the compute workers (weight tile rows -> FP16 weight tiles -> HMX -> FP16 output tiles -> f32 -> DDR).
 *
 * Prep worker (a range of the chunk's column pairs: pair p is columns c0 + 2p and c0 + 2p + 1, vector p % 16 of the
 * tiles of activation tile row p / 16), with two staging slots of two rows each:
 *     prologue  push the f32 rows of its first two pairs (a column past the chunk: a zero-row dummy)
 *     pair p    pop its two rows, narrow them into the tile row's n_k_tiles tiles (one vcvt per tile: the first
 *               column's 32 values in the even halves, the second's in the odd ones), push the rows of pair p + 2
 *     epilogue  pop the four dummies left
 *
 * Compute worker (a range of the chunk's jobs, a job being one tile row of one group's weight matrix), with
 * p = n_prefetch slots, each a raw weight tile row buffer and a dst slot:
 *     prologue  for each slot s: push the weight DMA of job s (a dummy past the range), then a dummy ("dst slot s is
 *               free")
 *     job i     pop its weights; expand them into the FP16 weight tile row (HVX); push the weights of job i + p into
 *               the slot just freed; take HMX and multiply the activation tile rows the group's columns touch into
 *               output tiles; pop the write-back of job i - p (or the dummy): dst slot i % p is free; widen the
 *               output tiles into it; push its write-back (the group's columns x the valid rows, one 2-D descriptor)
 *     epilogue  pop the p dummy weight DMAs and the p write-backs left
 * The FIFO then holds W(i) D(i - p) W(i + 1) D(i + 1 - p) ... in push order, as the pops take them. While a worker
 * holds HMX (one unit per device), the others expand their next tile rows.
 */
#include "hmx-mm.h"

#include "dma-queue.h"
#include "hmx-mm-parts.h"
#include "htp-ctx.h"
#include "htp-tensor.h"
#include "htp-tiles.h"
#include "matmul-ops.h"

struct hmx_mm_ctx {
    struct htp_op_ctx *octx;
    const struct hmx_mm_kparams *kp;
    const struct htp_tensor *src0, *src1, *dst;
    struct hmx_mm_layout layout;
    struct hmx_weights wt;   /* src0: its layout, DMA and expansion */
    uint32_t ct_start, n_ct; /* this device's tile rows of each matrix */
    /* the chunk being computed */
    uint32_t c0, c1; /* its columns */
    uint32_t g0;     /* the group of column c0 */
    uint32_t n_jobs; /* (groups it touches) * n_ct */
    uint32_t jobs_per_thread;
    uint32_t n_pairs; /* column pairs of its activation tile rows: 16 per tile row */
    uint32_t pairs_per_act_thread;
};

/* A job's place: group g, tile row ct. Workers step it, so only their first job divides. */
struct hmx_mm_job {
    uint32_t g, ct;
};

static struct hmx_mm_job hmx_mm_job_at(const struct hmx_mm_ctx *c, uint32_t j) {
    const uint32_t dg = j / c->n_ct; /* once per worker */
    return (struct hmx_mm_job){c->g0 + dg, c->ct_start + j - dg * c->n_ct};
}

static void hmx_mm_job_next(const struct hmx_mm_ctx *c, struct hmx_mm_job *jb) {
    if (++jb->ct == c->ct_start + c->n_ct) {
        jb->ct = c->ct_start;
        jb->g++;
    }
}

static uint32_t hmx_mm_valid_rows(const struct hmx_mm_ctx *c, uint32_t ct) {
    return htp_tile_valid_rows(c->src0->ne[1], ct);
}

/* Columns [ca, cb) of the chunk that multiply group g's matrix. */
static void hmx_mm_job_cols(const struct hmx_mm_ctx *c, uint32_t g, uint32_t *ca, uint32_t *cb) {
    const uint32_t first = g * c->kp->group_cols;
    *ca = HEX_MAX(first, c->c0);
    *cb = HEX_MIN(first + c->kp->group_cols, c->c1);
}

/* The weight matrix of group g: (i02, i03) = (g % ne02, (g / ne02) / r3). */
static const uint8_t *hmx_mm_wmatrix(const struct hmx_mm_ctx *c, uint32_t g) {
    const uint32_t i13 = fastdiv(g, &c->kp->div_ne02), i02 = g - i13 * c->src0->ne[2];
    return hmx_weights_matrix(&c->wt, i02, fastdiv(i13, &c->kp->div_r3));
}

/* ---- the compute worker ---- */

/* Push the weight DMA of job jb into raw slot v (live false: a dummy). */
static void hmx_mm_push_weights(const struct hmx_mm_ctx *c, struct dma_queue *q, uint8_t *v, struct hmx_mm_job jb,
                                bool live) {
    hmx_weights_push(&c->wt, q, v, live ? hmx_mm_wmatrix(c, jb.g) : NULL, jb.ct, live);
}

static void hmx_mm_worker_compute(unsigned nth, unsigned ith, void *arg) {
    const struct hmx_mm_ctx *c = arg;
    const struct hmx_mm_kparams *kp = c->kp;
    struct htp_ctx *ctx = c->octx->ctx;
    const uint32_t j0 = ith * c->jobs_per_thread;
    const uint32_t j1 = HEX_MIN(j0 + c->jobs_per_thread, c->n_jobs);
    (void) nth;
    if (j0 >= j1) {
        return;
    }
    uint8_t *slice = ctx->vtcm + c->layout.slices + (size_t) ith * c->layout.per_thread;
    uint8_t *wraw = slice + c->layout.wraw, *wt = slice + c->layout.wtile, *otile = slice + c->layout.otile;
    uint8_t *scales = slice + c->layout.scales, *dst = slice + c->layout.dst;
    struct dma_queue *q = &ctx->dma[ith];
    struct htp_trace *tr = &ctx->trace[ith];
    const bool compute = !htp_op_skip_compute(c->octx);
    if (compute) {
        hmx_tiles_scales_init(scales);
    }
    const uint32_t p = kp->n_prefetch, n = j1 - j0;
    const size_t dst_slot = (size_t) kp->cols_chunk * HEX_VLEN;
    struct hmx_mm_job jb = hmx_mm_job_at(c, j0), ahead = jb; /* the job computed, the job prefetched */
    for (uint32_t s = 0; s < p; s++) {
        hmx_mm_push_weights(c, q, wraw + (size_t) s * kp->wraw_size, ahead, s < n);
        dma_queue_push(q, dma_make_pair(c->dst->data, dst + s * dst_slot), 0, 0, 0, 0);
        if (s < n) {
            hmx_mm_job_next(c, &ahead);
        }
    }
    for (uint32_t i = 0; i < n; i++, hmx_mm_job_next(c, &jb)) {
        const uint32_t s = i % p, valid = hmx_mm_valid_rows(c, jb.ct), info = j0 + i;
        uint8_t *v = wraw + (size_t) s * kp->wraw_size;
        for (uint32_t k = 0; k < hmx_mm_wrow_ndesc(c->src0->type, valid); k++) {
            dma_queue_pop(q);
        }
        if (compute) {
            htp_trace_start(tr, HTP_TRACE_HVX_W_DEQUANT, info);
            hmx_weights_expand(&c->wt, v, wt);
            htp_trace_stop(tr, HTP_TRACE_HVX_W_DEQUANT, info);
        }
        hmx_mm_push_weights(c, q, v, ahead, i + p < n);
        if (i + p < n) {
            hmx_mm_job_next(c, &ahead);
        }
        uint32_t ca, cb;
        hmx_mm_job_cols(c, jb.g, &ca, &cb);
        const uint32_t t0 = (ca - c->c0) / HMX_MM_TILE, t1 = (cb - 1 - c->c0) / HMX_MM_TILE;
        if (compute) {
            vdsp_hmx_lock(ctx->dev);
            htp_trace_start(tr, HTP_TRACE_HMX_COMP, info);
            const uint8_t *act = ctx->vtcm + c->layout.act + (size_t) t0 * kp->n_k_tiles * HMX_MM_TILE_BYTES;
            hmx_tiles_multiply(act, t1 - t0 + 1, wt, kp->n_k_tiles, otile, scales);
            htp_trace_stop(tr, HTP_TRACE_HMX_COMP, info);
            vdsp_hmx_unlock(ctx->dev);
        }
        HVX_Vector *out = (HVX_Vector *) dma_queue_pop(q).src; /* the slot's last write-back has landed */
        if (compute) {
            htp_trace_start(tr, HTP_TRACE_HVX_COMP, info);
            for (uint32_t t = t0; t <= t1; t++) {
                hmx_tiles_widen(otile + (size_t) (t - t0) * HMX_MM_TILE_BYTES, out + t * HMX_MM_TILE);
            }
            htp_trace_stop(tr, HTP_TRACE_HVX_COMP, info);
        }
        uint8_t *d =
            c->dst->data + (size_t) ca * c->dst->nb[1] + (size_t) jb.ct * HTP_TENSOR_TILE_N_ROWS * sizeof(float);
        dma_queue_push(q, dma_make_pair(d, out + (ca - c->c0)), c->dst->nb[1], HEX_VLEN, valid * sizeof(float),
                       cb - ca);
    }
    for (uint32_t s = 0; s < p; s++) {
        dma_queue_pop(q); /* a dummy weight DMA */
        dma_queue_pop(q); /* a write-back, or a slot's first dummy */
    }
}

/* ---- the prep worker ---- */

/* Push the f32 rows of the columns of pair pr into staging slot v (two rows, stage_size apart); a column past the
 * chunk, or the whole pair when live is false, is a dummy. Always two descriptors. */
static void hmx_mm_push_pair(const struct hmx_mm_ctx *c, struct dma_queue *q, uint8_t *v, uint32_t pr, bool live) {
    const struct htp_tensor *x = c->src1;
    const uint32_t bytes = x->ne[0] * (uint32_t) sizeof(float);
    for (uint32_t h = 0; h < 2; h++) {
        const uint32_t col = c->c0 + 2 * pr + h;
        uint8_t *row = v + h * c->kp->stage_size;
        if (!live || col >= c->c1) {
            dma_queue_push(q, dma_make_pair(row, x->data), 0, 0, 0, 0);
            continue;
        }
        const struct htp_row_index ix =
            htp_row_unravel(col, x->ne[1], x->ne[2], &c->kp->div_ne11, &c->kp->div_ne11_ne12);
        dma_queue_push(q, dma_make_pair(row, htp_tensor_row(x, ix.i1, ix.i2, ix.i3)), bytes, bytes, bytes, 1);
    }
}

/* Pair pr's two f32 rows at v -> vector pr % 16 of the n_k_tiles tiles of activation tile row pr / 16; a column
 * past the chunk is zeros (its staging row holds whatever was there). */
static void hmx_mm_act_pair(const struct hmx_mm_ctx *c, const uint8_t *v, uint32_t pr) {
    const struct hmx_mm_kparams *kp = c->kp;
    const bool live0 = c->c0 + 2 * pr < c->c1, live1 = c->c0 + 2 * pr + 1 < c->c1;
    uint8_t *dst = c->octx->ctx->vtcm + c->layout.act +
                   (size_t) (pr / HMX_MM_PAIRS_PER_TILE) * kp->n_k_tiles * HMX_MM_TILE_BYTES +
                   (pr % HMX_MM_PAIRS_PER_TILE) * HEX_VLEN;
    hmx_tiles_act_pair(live0 ? v : NULL, live1 ? v + kp->stage_size : NULL, kp->n_k_tiles, dst);
}

static void hmx_mm_worker_prep(unsigned nth, unsigned ith, void *arg) {
    const struct hmx_mm_ctx *c = arg;
    struct htp_ctx *ctx = c->octx->ctx;
    const uint32_t pa = ith * c->pairs_per_act_thread;
    const uint32_t pb = HEX_MIN(pa + c->pairs_per_act_thread, c->n_pairs);
    (void) nth;
    if (pa >= pb) {
        return;
    }
    struct dma_queue *q = &ctx->dma[ith];
    struct htp_trace *tr = &ctx->trace[ith];
    uint8_t *stage = ctx->vtcm + c->layout.slices + (size_t) ith * c->layout.per_thread + c->layout.stage;
    const size_t slot = 2 * (size_t) c->kp->stage_size;
    for (uint32_t h = 0; h < 2; h++) {
        hmx_mm_push_pair(c, q, stage + h * slot, pa + h, pa + h < pb);
    }
    for (uint32_t pr = pa; pr < pb; pr++) {
        uint8_t *v = dma_queue_pop(q).dst;
        dma_queue_pop(q);
        if (!htp_op_skip_compute(c->octx)) {
            htp_trace_start(tr, HTP_TRACE_HVX_A_QUANT, pr);
            hmx_mm_act_pair(c, v, pr);
            htp_trace_stop(tr, HTP_TRACE_HVX_A_QUANT, pr);
        }
        hmx_mm_push_pair(c, q, v, pr + 2, pr + 2 < pb);
    }
    for (uint32_t k = 0; k < 4; k++) {
        dma_queue_pop(q);
    }
}

/* ---- the entry ---- */

/* Shapes, types and kparams agree with each other and with the session (MUL_MAT's checks, and K a multiple of 32
 * here); fills the weight geometry of c. */
static uint32_t hmx_mm_check(struct hmx_mm_ctx *c, const struct htp_ctx *ctx) {
    const struct hmx_mm_kparams *kp = c->kp;
    const struct htp_tensor *w = c->src0;
    const uint32_t ne00 = w->ne[0];
    if (!matmul_shapes_valid(w, c->src1, c->dst, kp->n_cols, kp->group_cols) ||
        !matmul_kparams_valid(ctx, w, kp->n_threads, kp->n_act_threads, kp->n_prefetch, HMX_MM_MAX_PREFETCH,
                              kp->stage_size, kp->n_col_tiles) ||
        ne00 % HMX_MM_TILE != 0 || kp->cols_chunk == 0 || kp->cols_chunk % HMX_MM_TILE != 0 ||
        kp->n_k_tiles != ne00 / HMX_MM_TILE || kp->wraw_size % HEX_VLEN ||
        kp->wraw_size < hmx_mm_wraw_size(w->type, ne00)) {
        return HTP_STATUS_INVAL_PARAMS;
    }
    const uint32_t st = hmx_weights_init(&c->wt, w);
    if (st != HTP_STATUS_OK) {
        return st;
    }
    if (kp->n_prefetch * (1 + hmx_mm_wrow_ndesc(w->type, HTP_TENSOR_TILE_N_ROWS)) > VDSP_DMA_DEPTH) {
        return HTP_STATUS_INVAL_PARAMS;
    }
    c->layout = hmx_mm_plan_layout(kp);
    return c->layout.total <= ctx->vtcm_size ? HTP_STATUS_OK : HTP_STATUS_VTCM_TOO_SMALL;
}

uint32_t op_matmul_hmx(struct htp_op_ctx *octx) {
    struct htp_ctx *ctx = octx->ctx;
    struct hmx_mm_ctx c = {
        .octx = octx,
        .kp = htp_op_kparams(octx),
        .src0 = octx->src[0],
        .src1 = octx->src[1],
        .dst = octx->dst[0],
    };
    const struct hmx_mm_kparams *kp = c.kp;
    const uint32_t st = hmx_mm_check(&c, ctx);
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
        c.n_pairs = hex_align_up(c.c1 - c.c0, HMX_MM_TILE) / 2;
        const uint32_t n_act = HEX_MIN(kp->n_act_threads, c.n_pairs);
        c.pairs_per_act_thread = (c.n_pairs + n_act - 1) / n_act;
        if (work_queue_run(&ctx->wq, hmx_mm_worker_prep, &c, n_act) != VDSP_FAULT_NONE ||
            work_queue_run(&ctx->wq, hmx_mm_worker_compute, &c, kp->n_threads) != VDSP_FAULT_NONE) {
            return HTP_STATUS_FAULT;
        }
    }
    return HTP_STATUS_OK;
}
