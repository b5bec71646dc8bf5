/*
 * The driver of MUL_MAT and MUL_MAT_ID (matmul-driver.h): the run's checks and split, and the two workers. The
 * plan's path decides what a worker does around the driver's hooks: on HVX a unit computes from its weight tile row
 * (hooks->compute) and a prep item is one column (matmul_weights_prep_col); on HMX a unit expands its weights into
 * FP16 tiles, multiplies them on HMX (hooks->act_tiles) and widens the output tiles (hooks->compute), and a prep item
 * is a column pair (hooks->pair_col) narrowed into FP16 activation tiles.
 */
#include "matmul-driver.h"

#include "dma-queue.h"
#include "hmx-mm-parts.h"
#include "htp-tensor.h"
#include "htp-tiles.h"
#include "htp-trace.h"

/* One worker's share: items [first, end) of its job, its DMA queue, trace, VTCM slice and FP16 counts (HMX). */
struct matmul_worker {
    uint32_t first, end;
    struct dma_queue *q;
    struct htp_trace *tr;
    uint8_t *slice;
    struct hvx_fp16_range *fp16; /* [HTP_FP16_N] */
};

/* ---- the entry's side ---- */

/* Plan p agrees with the session and with weight w and activations x: 1 <= n_act_threads <= n_threads <= the
 * session's workers, 1 <= n_prefetch <= the path's limit, wrow_size a multiple of 128, stage_size a multiple of 128
 * that holds a row of ne00 f32, n_col_tiles = ceil(ne01 / 32), and the fastdiv values those of ne11, ne11 * ne12,
 * n_threads and n_act_threads (a wrong one named in the op's message). */
static bool matmul_plan_valid(const struct htp_op_ctx *octx, const struct htp_tensor *w, const struct htp_tensor *x,
                              const struct matmul_plan *p) {
    const uint32_t max_prefetch = p->path == MATMUL_PATH_HMX ? HMX_MM_MAX_PREFETCH : MATMUL_MAX_PREFETCH;
    return p->n_threads != 0 && p->n_threads <= octx->ctx->n_threads && p->n_act_threads != 0 &&
           p->n_act_threads <= p->n_threads && p->n_prefetch != 0 && p->n_prefetch <= max_prefetch &&
           p->wrow_size % HEX_VLEN == 0 && p->stage_size >= w->ne[0] * 4 && p->stage_size % HEX_VLEN == 0 &&
           p->n_col_tiles == htp_tile_n_col_tiles(w->ne[1]) &&
           htp_op_fastdiv_ok(octx, &p->div_ne11, x->ne[1], "div_ne11", "ne11") &&
           htp_op_fastdiv_ok(octx, &p->div_ne11_ne12, x->ne[1] * x->ne[2], "div_ne11_ne12", "ne11 x ne12") &&
           htp_op_fastdiv_ok(octx, &p->div_n_threads, p->n_threads, "div_n_threads", "n_threads") &&
           htp_op_fastdiv_ok(octx, &p->div_n_act_threads, p->n_act_threads, "div_n_act_threads", "n_act_threads");
}

uint32_t matmul_run_init(struct matmul_run *r, struct htp_op_ctx *octx, const struct matmul_plan *p,
                         const struct matmul_hooks *hooks, struct matmul_layout layout) {
    HVX_SCOPE();
    struct htp_ctx *ctx = octx->ctx;
    *r = (struct matmul_run){.octx = octx,
                             .plan = p,
                             .hooks = hooks,
                             .src0 = octx->src[0],
                             .src1 = octx->src[1],
                             .dst = octx->dst[0],
                             .layout = layout,
                             .compute = !htp_op_skip_compute(octx)};
    if (!matmul_plan_valid(octx, r->src0, r->src1, p)) {
        return HTP_STATUS_INVAL_PARAMS;
    }
    const uint32_t st = matmul_weights_init(&r->wt, r->src0, p->path);
    if (st != HTP_STATUS_OK) {
        return st;
    }
    if (p->act_row_size < r->wt.act_row_size || (p->path != MATMUL_PATH_HMX && p->act_row_size % HEX_VLEN != 0) ||
        p->wrow_size < r->wt.wrow_size ||
        p->n_prefetch * (1 + matmul_weights_ndesc(&r->wt, MATMUL_TILE_ROWS)) > VDSP_DMA_DEPTH) {
        return HTP_STATUS_INVAL_PARAMS;
    }
    if (layout.total > ctx->vtcm_size) {
        return HTP_STATUS_VTCM_TOO_SMALL;
    }
    r->act = ctx->vtcm + layout.act;
    r->n_ct = p->n_col_tiles;
    if (ctx->mdev.count > 1) {
        /* Devices split the weight rows (dst's ne0) in column tiles of 32 (128 bytes of f32 dst per column), not the
         * columns: a decode step has one column (one token) and still splits, every device reads only its share of
         * the weights (the bytes a matmul streams), and every device needs all of src1, which is small. dst reaches
         * DDR only by DMA, so a tile boundary is safe whatever dst's alignment (where dst's rows start on lines,
         * each tile is whole lines of every column); the last device takes a partial last tile. */
        const struct htp_tensor_mdev_range range = htp_mdev_range(ctx, p->n_col_tiles, 1);
        r->ct_start = range.start;
        r->n_ct = range.count;
    }
    r->div_n_ct = fastdiv_init(HEX_MAX(r->n_ct, 1)); /* this device's share is known only here: once per op */
    octx->rsp->mm_path = p->path == MATMUL_PATH_HMX ? HTP_RSP_PATH_HMX : HTP_RSP_PATH_HVX;
    for (uint32_t t = 0; p->path == MATMUL_PATH_HMX && t < p->n_threads; t++) {
        for (uint32_t k = 0; k < HTP_FP16_N; k++) {
            hvx_fp16_range_clear(&ctx->fp16[t][k]);
        }
    }
    return HTP_STATUS_OK;
}

void matmul_run_end(const struct matmul_run *r) {
    const struct htp_ctx *ctx = r->octx->ctx;
    if (r->plan->path != MATMUL_PATH_HMX) {
        return;
    }
    for (uint32_t k = 0; k < HTP_FP16_N; k++) {
        hvx_fp16_range_reduce(ctx->fp16, r->plan->n_threads, k, &r->octx->rsp->fp16[k]);
    }
}

/* ceil(n / n_workers), div being n_workers' fastdiv values. */
static uint32_t matmul_split(uint32_t n, uint32_t n_workers, const struct fastdiv_values *div) {
    return fastdiv(n + n_workers - 1, div);
}

uint32_t matmul_run_split(struct matmul_run *r, uint32_t n_jobs, uint32_t n_prep) {
    const struct matmul_plan *p = r->plan;
    r->n_jobs = n_jobs;
    r->jobs_per_thread = matmul_split(n_jobs, p->n_threads, &p->div_n_threads);
    r->n_prep = n_prep;
    r->prep_per_thread = matmul_split(n_prep, p->n_act_threads, &p->div_n_act_threads);
    return HEX_MIN(p->n_act_threads, n_prep);
}

/* ---- units ---- */

/* The first unit of job j (of the chunk). */
static struct matmul_unit matmul_unit_first(const struct matmul_run *r, uint32_t j) {
    const uint32_t dg = fastdiv(j, &r->div_n_ct);
    return (struct matmul_unit){r->g0 + dg, r->ct_start + j - dg * r->n_ct, 0};
}

/* The unit after u: the job's next, or the next job's first (tile rows within a group, then the next group). */
static void matmul_unit_next(const struct matmul_run *r, struct matmul_unit *u) {
    if (++u->k < r->units_per_job) {
        return;
    }
    u->k = 0;
    if (++u->ct == r->ct_start + r->n_ct) {
        u->ct = r->ct_start;
        u->g++;
    }
}

/* Unit u's weight matrix: used expert k's (MUL_MAT_ID), else group g's: (i02, i03) = (g % ne02, (g / ne02) / r3). */
static const uint8_t *matmul_unit_matrix(const struct matmul_run *r, struct matmul_unit u) {
    if (r->route) {
        return matmul_weights_matrix(&r->wt, r->route->expert[u.k], 0);
    }
    const uint32_t i13 = fastdiv(u.g, r->div_ne02), i02 = u.g - i13 * r->src0->ne[2];
    return matmul_weights_matrix(&r->wt, i02, fastdiv(i13, r->div_r3));
}

/* ---- the workers ---- */

/* Worker ith's items of n, per_thread each (nth: the workers, which per_thread already accounts for); false when it
 * has none. */
static bool matmul_worker_begin(struct matmul_worker *wk, const struct matmul_run *r, unsigned nth, unsigned ith,
                                uint32_t per_thread, uint32_t n) {
    struct htp_ctx *ctx = r->octx->ctx;
    (void) nth;
    wk->first = ith * per_thread;
    wk->end = HEX_MIN(wk->first + per_thread, n);
    wk->q = &ctx->dma[ith];
    wk->tr = &ctx->trace[ith];
    wk->slice = ctx->vtcm + r->layout.slices + (size_t) ith * r->layout.per_thread;
    wk->fp16 = ctx->fp16[ith];
    return wk->first < wk->end;
}

/* Push the weights of unit *ahead into weight slot v and step it (live false: a dummy, and no step). */
static void matmul_worker_prefetch(const struct matmul_run *r, struct dma_queue *q, uint8_t *v,
                                   struct matmul_unit *ahead, bool live) {
    matmul_weights_push(&r->wt, q, v, live ? matmul_unit_matrix(r, *ahead) : NULL, ahead->ct, live);
    if (live) {
        matmul_unit_next(r, ahead);
    }
}

/* HMX: expand unit u's weight tile row at w (valid weight rows) into the worker's FP16 weight tile row, prefetch into
 * w, multiply the unit's activation tile rows into the output tiles (holding the HMX unit: while one worker
 * multiplies, the others expand). */
static void matmul_worker_hmx(const struct matmul_run *r, const struct matmul_worker *wk, struct matmul_unit u,
                              uint8_t *w, uint32_t valid, struct matmul_unit *ahead, bool live, uint32_t info) {
    const struct matmul_layout *l = &r->layout;
    uint8_t *wtile = wk->slice + l->wtile, *otile = wk->slice + l->otile;
    if (r->compute) {
        htp_trace_start(wk->tr, HTP_TRACE_HVX_W_DEQUANT, info);
        hmx_weights_expand(&r->wt, w, valid, wtile, &wk->fp16[HTP_FP16_SRC0]);
        htp_trace_stop(wk->tr, HTP_TRACE_HVX_W_DEQUANT, info);
    }
    matmul_worker_prefetch(r, wk->q, w, ahead, live);
    if (r->compute) {
        struct htp_ctx *ctx = r->octx->ctx;
        uint32_t t0, nt;
        r->hooks->act_tiles(r, u, &t0, &nt);
        vdsp_hmx_lock(ctx->dev);
        htp_trace_start(wk->tr, HTP_TRACE_HMX_COMP, info);
        hmx_tiles_multiply(r->act + (size_t) t0 * r->wt.n_k_tiles * HMX_MM_TILE_BYTES, nt, wtile, r->wt.n_k_tiles,
                           otile, wk->slice + l->scales);
        htp_trace_stop(wk->tr, HTP_TRACE_HMX_COMP, info);
        vdsp_hmx_unlock(ctx->dev);
    }
}

/* HMX: a job's n result vectors at out (valid weight rows each) into the worker's DST counts. Out of line: inlined, its
 * loop's constants and counts would stay live across the worker's DMA calls. */
static HEX_NOINLINE void matmul_results_range(const HVX_Vector *out, uint32_t n, uint32_t valid,
                                              struct hvx_fp16_range *range) {
    HVX_SCOPE();
    hmx_results_range(out, n, valid, range);
}

void matmul_worker_compute(unsigned nth, unsigned ith, void *arg) {
    HVX_SCOPE();
    const struct matmul_run *r = arg;
    struct matmul_worker wk;
    if (!matmul_worker_begin(&wk, r, nth, ith, r->jobs_per_thread, r->n_jobs)) {
        return;
    }
    const struct matmul_layout *l = &r->layout;
    const bool hmx = r->plan->path == MATMUL_PATH_HMX;
    const uint32_t p = r->plan->n_prefetch, wrow_size = r->plan->wrow_size, nb1 = r->dst->nb[1];
    const uint32_t n = (wk.end - wk.first) * r->units_per_job, info0 = wk.first * r->units_per_job;
    uint8_t *wrow = wk.slice + l->wrow, *dst = wk.slice + l->dst;
    if (hmx && r->compute) {
        hmx_tiles_scales_init(wk.slice + l->scales);
    }
    struct matmul_unit u = matmul_unit_first(r, wk.first), ahead = u; /* the unit computed, the unit prefetched */
    for (uint32_t s = 0; s < p; s++) {
        matmul_worker_prefetch(r, wk.q, wrow + (size_t) s * wrow_size, &ahead, s < n);
        dma_queue_push(wk.q, dma_make_pair(r->dst->data, dst + (size_t) s * l->dst_slot), 0, 0, 0, 0);
    }
    for (uint32_t i = 0, s = 0, js = 0; i < n; i++) { /* s: unit i's weight slot, js: its job's dst slot */
        const uint32_t valid = htp_tile_valid_rows(r->src0->ne[1], u.ct), info = info0 + i;
        uint8_t *w = wrow + (size_t) s * wrow_size;
        HVX_Vector *out = (HVX_Vector *) (dst + (size_t) js * l->dst_slot);
        for (uint32_t k = matmul_weights_ndesc(&r->wt, valid); k > 0; k--) {
            dma_queue_pop(wk.q);
        }
        if (hmx) {
            matmul_worker_hmx(r, &wk, u, w, valid, &ahead, i + p < n, info);
        }
        dma_queue_pop(wk.q); /* E(i - p): the slot's last write-back has landed, or a dummy */
        if (r->compute) {
            htp_trace_start(wk.tr, HTP_TRACE_HVX_COMP, info);
            r->hooks->compute(r, u, hmx ? wk.slice + l->otile : w, out);
            htp_trace_stop(wk.tr, HTP_TRACE_HVX_COMP, info);
        }
        if (!hmx) {
            matmul_worker_prefetch(r, wk.q, w, &ahead, i + p < n);
        }
        if (u.k + 1 == r->units_per_job) { /* the job's last unit: its dst rows have their 32 results */
            uint32_t ra, rb;
            matmul_job_rows(r, u.g, &ra, &rb);
            if (hmx && r->compute) {
                matmul_results_range(out + (ra - r->r0), rb - ra, valid, &wk.fp16[HTP_FP16_DST]);
            }
            uint8_t *d = r->dst->data + (size_t) ra * nb1 + (size_t) u.ct * MATMUL_TILE_ROWS * sizeof(float);
            dma_queue_push(wk.q, dma_make_pair(d, out + (ra - r->r0)), nb1, HEX_VLEN, valid * sizeof(float), rb - ra);
            js = js + 1 == p ? 0 : js + 1;
        } else {
            dma_queue_push(wk.q, dma_make_pair(r->dst->data, out), 0, 0, 0, 0);
        }
        matmul_unit_next(r, &u);
        s = s + 1 == p ? 0 : s + 1;
    }
    for (uint32_t s = 0; s < p; s++) {
        dma_queue_pop(wk.q); /* a dummy weight DMA */
        dma_queue_pop(wk.q); /* a write-back, or a dummy */
    }
}

/* The src1 column of row h of prep item it: HVX column c0 + it (h = 0), HMX row h of pair it (the hook). */
static uint32_t matmul_prep_col(const struct matmul_run *r, uint32_t it, uint32_t h) {
    return r->plan->path == MATMUL_PATH_HMX ? r->hooks->pair_col(r, it, h) : r->c0 + it;
}

/* Push the f32 src1 rows of prep item it (one per row of the item, stage_size apart) into staging slot v; a padding
 * column, or every row when live is false, is a dummy. */
static void matmul_prep_push(const struct matmul_run *r, struct dma_queue *q, uint8_t *v, uint32_t rows, uint32_t it,
                             bool live) {
    const struct htp_tensor *x = r->src1;
    const uint32_t bytes = x->ne[0] * (uint32_t) sizeof(float);
    for (uint32_t h = 0; h < rows; h++) {
        const uint32_t col = live ? matmul_prep_col(r, it, h) : MATMUL_NO_COL;
        uint8_t *slot = v + h * r->plan->stage_size;
        if (col == MATMUL_NO_COL) {
            dma_queue_push(q, dma_make_pair(slot, x->data), 0, 0, 0, 0);
            continue;
        }
        const struct htp_row_index ix =
            htp_row_unravel(col, x->ne[1], x->ne[2], &r->plan->div_ne11, &r->plan->div_ne11_ne12);
        dma_queue_push(q, dma_make_pair(slot, htp_tensor_row(x, ix.i1, ix.i2, ix.i3)), bytes, bytes, bytes, 1);
    }
}

/* HMX prep pair it from its two rows at v: vector it % 16 of the tiles of activation tile row it / 16 (a padding
 * column: zeros), the values narrowed counted into range. Out of line: inlined into the worker, the zero vector of a
 * padding column is hoisted and spilled across the DMA pushes. */
static HEX_NOINLINE void matmul_prep_pair_compute(const struct matmul_run *r, const uint8_t *v, uint32_t it,
                                                  struct hvx_fp16_range *range) {
    HVX_SCOPE();
    uint8_t *dst = r->act + (size_t) (it / HMX_MM_PAIRS_PER_TILE) * r->wt.n_k_tiles * HMX_MM_TILE_BYTES +
                   (it % HMX_MM_PAIRS_PER_TILE) * HEX_VLEN;
    hmx_tiles_act_pair(r->hooks->pair_col(r, it, 0) != MATMUL_NO_COL ? v : NULL,
                       r->hooks->pair_col(r, it, 1) != MATMUL_NO_COL ? v + r->plan->stage_size : NULL, r->wt.n_k_tiles,
                       dst, range);
}

void matmul_worker_prep(unsigned nth, unsigned ith, void *arg) {
    const struct matmul_run *r = arg;
    struct matmul_worker wk;
    if (!matmul_worker_begin(&wk, r, nth, ith, r->prep_per_thread, r->n_prep)) {
        return;
    }
    const bool hmx = r->plan->path == MATMUL_PATH_HMX;
    const uint32_t rows = hmx ? 2 : 1; /* an item's src1 rows */
    const size_t slot = (size_t) rows * r->plan->stage_size;
    uint8_t *stage = wk.slice + r->layout.stage;
    for (uint32_t k = 0; k < 2; k++) {
        matmul_prep_push(r, wk.q, stage + k * slot, rows, wk.first + k, wk.first + k < wk.end);
    }
    for (uint32_t it = wk.first; it < wk.end; it++) {
        uint8_t *v = dma_queue_pop(wk.q).dst;
        for (uint32_t k = 1; k < rows; k++) {
            dma_queue_pop(wk.q);
        }
        if (r->compute) {
            htp_trace_start(wk.tr, HTP_TRACE_HVX_A_QUANT, it);
            if (hmx) {
                matmul_prep_pair_compute(r, v, it, &wk.fp16[HTP_FP16_SRC1]);
            } else {
                matmul_weights_prep_col(&r->wt, v, r->src1->ne[0], r->act + (size_t) it * r->plan->act_row_size);
            }
            htp_trace_stop(wk.tr, HTP_TRACE_HVX_A_QUANT, it);
        }
        matmul_prep_push(r, wk.q, v, rows, it + 2, it + 2 < wk.end);
    }
    for (uint32_t k = 0; k < 2 * rows; k++) {
        dma_queue_pop(wk.q);
    }
}
