/*
 * MUL_MAT_ID (matmul-id-ops.h): the token chunk loop, the routing of a chunk's pairs to per-expert row lists, and
 * the compute workers. The activation prep workers are MUL_MAT's (matmul_weights_prep_cols).
 *
 * Compute worker (a range of the device's tile rows, a job per tile row; a unit is (tile row, used expert k), the
 * job's E units in expert order), with p = n_prefetch slots, each a weight tile row buffer; the job's dst slot is
 * its index in the range modulo p:
 *     prologue  for each slot s: push a dummy, then the weight DMA of unit s
 *     unit i    pop the entry pushed p units before (a write-back or a dummy); pop the weights of unit i; compute
 *               the expert's rows against them into the job's dst slot; push the job's write-back after its last
 *               unit (all the chunk's pairs x the valid rows, one 2-D descriptor), else a dummy; push the weights
 *               of unit i + p into the same slot
 *     epilogue  pop the p entries and p dummy weight DMAs left
 * Job j's slot was last written by job j - p, whose write-back was pushed at unit (j - p) E + E - 1 and is popped at
 * that unit + p <= j E, the job's first unit: the slot is free before it is written again (and, in strict DMA mode,
 * where the copy happens at the pop, not overwritten before it is copied).
 */
#include "matmul-id-ops.h"

#include "dma-queue.h"
#include "hmx-mm-id.h"
#include "htp-checked.h"
#include "htp-ctx.h"
#include "htp-tensor.h"
#include "htp-tiles.h"
#include "matmul-ops.h"
#include "matmul-weights.h"

struct matmul_id_ctx {
    struct htp_op_ctx *octx;
    const struct matmul_id_kparams *kp;
    const struct htp_tensor *src0, *src1, *ids, *dst;
    struct matmul_id_layout layout;
    struct matmul_weights wt; /* src0: its layout, DMA and kernels */
    uint32_t ct_start, n_ct;  /* this device's tile rows of each matrix */
    uint32_t jobs_per_thread;
    /* the chunk being computed */
    uint32_t t0, t1;  /* its tokens */
    uint32_t c0, c1;  /* its columns */
    uint32_t n_pairs; /* its pairs: (t1 - t0) * n_used, from pair t0 * n_used */
    uint32_t cols_per_act_thread;
    struct matmul_id_route route;
};

uint32_t matmul_id_route_chunk(struct matmul_id_route *rt, const struct htp_tensor *ids, uint32_t n_expert,
                               uint32_t ne11, uint32_t t0, uint32_t t1, struct htp_msg *m) {
    const uint32_t n_used = ids->ne[0], n_pairs = (t1 - t0) * n_used;
    for (uint32_t t = t0; t < t1; t++) { /* the chunk's ids, read once: routed from this copy only */
        htp_shared_read(rt->ids + (t - t0) * n_used, ids->data + (size_t) t * ids->nb[1], n_used * sizeof(int32_t));
    }
    for (uint32_t x = 0; x < n_expert; x++) {
        rt->next[x] = 0;
    }
    for (uint32_t pair = 0; pair < n_pairs; pair++) {
        const int32_t x = rt->ids[pair];
        if (x < 0 || (uint32_t) x >= n_expert) {
            htp_msg_index(m, "expert id", x, pair % n_used, t0 + pair / n_used, 0, "n_expert", n_expert);
            return HTP_STATUS_INVAL_PARAMS;
        }
        rt->next[x]++;
    }
    uint32_t k = 0, n = 0;
    for (uint32_t x = 0; x < n_expert; x++) {
        const uint32_t count = rt->next[x];
        if (count > 0) {
            rt->expert[k] = (uint16_t) x;
            rt->start[k++] = (uint16_t) n;
        }
        rt->next[x] = (uint16_t) n;
        n += count;
    }
    rt->start[k] = (uint16_t) n;
    rt->n_used_experts = k;
    for (uint32_t pair = 0, col = 0; pair < n_pairs; col += ne11) {
        for (uint32_t e = 0, i11 = 0; e < n_used; e++, pair++) {
            rt->row[rt->next[rt->ids[pair]]++] = (struct matmul_id_row){(uint16_t) pair, (uint16_t) (col + i11)};
            i11 = i11 + 1 == ne11 ? 0 : i11 + 1; /* e % ne11 */
        }
    }
    return HTP_STATUS_OK;
}

/* ---- the compute worker ---- */

/* A unit's place: tile row ct, used expert k. Workers step it. */
struct matmul_id_unit {
    uint32_t ct, k;
};

static void matmul_id_unit_next(const struct matmul_id_ctx *c, struct matmul_id_unit *u) {
    if (++u->k == c->route.n_used_experts) {
        u->k = 0;
        u->ct++;
    }
}

/* Push the weight DMA of unit u into VTCM at v (live false: a dummy). */
static void matmul_id_push_weights(const struct matmul_id_ctx *c, struct dma_queue *q, uint8_t *v,
                                   struct matmul_id_unit u, bool live) {
    const uint8_t *m = live ? matmul_weights_matrix(&c->wt, c->route.expert[u.k], 0) : NULL;
    matmul_weights_push(&c->wt, q, v, m, u.ct, live);
}

/* Unit u's results: w is its weight tile row in VTCM, out the job's dst slot (one vector per pair of the chunk). */
static void matmul_id_unit_compute(const struct matmul_id_ctx *c, struct matmul_id_unit u, const uint8_t *w,
                                   HVX_Vector *out) {
    const struct matmul_id_route *rt = &c->route;
    const uint32_t valid = htp_tile_valid_rows(c->src0->ne[1], u.ct), size = c->kp->act_row_size;
    const uint8_t *act = c->octx->ctx->vtcm + c->layout.act;
    const uint32_t r1 = rt->start[u.k + 1];
    for (uint32_t r = rt->start[u.k]; r < r1; r += 2) { /* the 32x2 kernels, a 32x1 for an odd row left */
        const struct matmul_id_row a = rt->row[r];
        if (r + 1 < r1) {
            const struct matmul_id_row b = rt->row[r + 1];
            matmul_weights_dot(&c->wt, w, valid, act + (size_t) a.col * size, act + (size_t) b.col * size, out + a.pair,
                               out + b.pair);
        } else {
            matmul_weights_dot(&c->wt, w, valid, act + (size_t) a.col * size, NULL, out + a.pair, NULL);
        }
    }
}

static void matmul_id_worker_compute(unsigned nth, unsigned ith, void *arg) {
    const struct matmul_id_ctx *c = arg;
    const struct matmul_id_kparams *kp = c->kp;
    struct htp_ctx *ctx = c->octx->ctx;
    const uint32_t j0 = ith * c->jobs_per_thread;
    const uint32_t j1 = HEX_MIN(j0 + c->jobs_per_thread, c->n_ct);
    (void) nth;
    if (j0 >= j1) {
        return;
    }
    uint8_t *slice = ctx->vtcm + c->layout.slices + (size_t) ith * c->layout.per_thread;
    uint8_t *wrow = slice + c->layout.wrow, *dst = slice + c->layout.dst;
    struct dma_queue *q = &ctx->dma[ith];
    struct htp_trace *tr = &ctx->trace[ith];
    const uint32_t p = kp->n_prefetch, n_e = c->route.n_used_experts, n = (j1 - j0) * n_e;
    const size_t dst_slot = (size_t) matmul_id_dst_slot_size(kp);
    const size_t nb1 = c->dst->nb[1];
    uint8_t *d0 = c->dst->data + (size_t) c->t0 * c->ids->ne[0] * nb1; /* the chunk's first pair's dst row */
    struct matmul_id_unit u = {c->ct_start + j0, 0}, ahead = u;        /* the unit computed, the unit prefetched */
    for (uint32_t s = 0; s < p; s++) {
        dma_queue_push(q, dma_make_pair(c->dst->data, dst), 0, 0, 0, 0);
        matmul_id_push_weights(c, q, wrow + (size_t) s * kp->wrow_size, ahead, s < n);
        if (s < n) {
            matmul_id_unit_next(c, &ahead);
        }
    }
    uint32_t s = 0, js = 0; /* unit i's weight slot (i % p), its job's dst slot */
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t valid = htp_tile_valid_rows(c->src0->ne[1], u.ct);
        HVX_Vector *out = (HVX_Vector *) (dst + js * dst_slot);
        dma_queue_pop(q); /* the write-back or dummy of unit i - p */
        const uint32_t ndesc = matmul_weights_ndesc(&c->wt, valid);
        for (uint32_t k = 0; k < ndesc; k++) {
            dma_queue_pop(q);
        }
        if (!htp_op_skip_compute(c->octx)) {
            htp_trace_start(tr, HTP_TRACE_HVX_COMP, i);
            matmul_id_unit_compute(c, u, wrow + (size_t) s * kp->wrow_size, out);
            htp_trace_stop(tr, HTP_TRACE_HVX_COMP, i);
        }
        if (u.k + 1 == n_e) { /* the job's last unit: every pair of the chunk has its 32 results */
            uint8_t *d = d0 + (size_t) u.ct * MATMUL_TILE_ROWS * sizeof(float);
            dma_queue_push(q, dma_make_pair(d, out), nb1, HEX_VLEN, valid * sizeof(float), c->n_pairs);
            js = js + 1 == p ? 0 : js + 1;
        } else {
            dma_queue_push(q, dma_make_pair(c->dst->data, out), 0, 0, 0, 0);
        }
        matmul_id_push_weights(c, q, wrow + (size_t) s * kp->wrow_size, ahead, i + p < n);
        if (i + p < n) {
            matmul_id_unit_next(c, &ahead);
        }
        matmul_id_unit_next(c, &u);
        s = s + 1 == p ? 0 : s + 1;
    }
    for (uint32_t k = 0; k < p; k++) {
        dma_queue_pop(q); /* a write-back, or a dummy */
        dma_queue_pop(q); /* a dummy weight DMA */
    }
}

/* ---- the prep worker ---- */

static void matmul_id_worker_prep(unsigned nth, unsigned ith, void *arg) {
    const struct matmul_id_ctx *c = arg;
    const struct matmul_id_kparams *kp = c->kp;
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

bool matmul_id_shapes_valid(const struct htp_tensor *w, const struct htp_tensor *x, const struct htp_tensor *ids,
                            const struct htp_tensor *d, uint32_t tokens_chunk, uint32_t pairs_chunk) {
    for (int i = 0; i < HTP_MAX_DIMS; i++) {
        if (w->ne[i] == 0 || x->ne[i] == 0 || ids->ne[i] == 0) {
            return false;
        }
    }
    const uint32_t ne00 = w->ne[0], ne01 = w->ne[1], n_expert = w->ne[2];
    const uint32_t ne11 = x->ne[1], n_used = ids->ne[0], n_tokens = ids->ne[1];
    return x->type == HTP_TYPE_F32 && x->nb[0] == 4 && ids->type == HTP_TYPE_I32 && ids->nb[0] == 4 &&
           d->type == HTP_TYPE_F32 && htp_tensor_is_contiguous(d, 4) && w->ne[3] == 1 && x->ne[3] == 1 &&
           ids->ne[2] == 1 && ids->ne[3] == 1 && x->ne[0] == ne00 && x->ne[2] == n_tokens && n_used % ne11 == 0 &&
           d->ne[0] == ne01 && d->ne[1] == n_used && d->ne[2] == n_tokens && d->ne[3] == 1 && ne00 <= MATMUL_MAX_K &&
           n_expert <= MATMUL_ID_MAX_EXPERTS && tokens_chunk != 0 && pairs_chunk == (uint64_t) tokens_chunk * n_used &&
           pairs_chunk <= MATMUL_ID_MAX_PAIRS;
}

/* Shapes, types and kparams agree with each other and with the session; fills the weight geometry of c. */
static uint32_t matmul_id_check(struct matmul_id_ctx *c, const struct htp_ctx *ctx) {
    const struct matmul_id_kparams *kp = c->kp;
    const struct htp_tensor *w = c->src0;
    if (!matmul_id_shapes_valid(w, c->src1, c->ids, c->dst, kp->tokens_chunk, kp->pairs_chunk) ||
        !matmul_kparams_valid(ctx, w, kp->n_threads, kp->n_act_threads, kp->n_prefetch, MATMUL_MAX_PREFETCH,
                              kp->stage_size, kp->n_col_tiles) ||
        kp->cols_chunk != (uint64_t) kp->tokens_chunk * c->src1->ne[1] || kp->act_row_size % HEX_VLEN ||
        kp->wrow_size % HEX_VLEN) {
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
    c->layout = matmul_id_plan_layout(kp);
    return c->layout.total <= ctx->vtcm_size ? HTP_STATUS_OK : HTP_STATUS_VTCM_TOO_SMALL;
}

struct htp_tensor_mdev_range matmul_id_tile_rows(const struct htp_ctx *ctx, const struct htp_tensor *dst,
                                                 uint32_t n_col_tiles) {
    if (ctx->mdev.count <= 1) {
        return (struct htp_tensor_mdev_range){0, n_col_tiles};
    }
    /* devices split the tile rows: each writes whole 128-byte lines of dst rows */
    const bool lines = htp_tensor_mdev_data_aligned(dst) && dst->nb[1] % HTP_TENSOR_MDEV_LINE_SIZE == 0;
    return htp_tensor_mdev_partition(n_col_tiles, lines ? 1 : 0, ctx->mdev.idx, ctx->mdev.count, &ctx->mdev.count_div);
}

uint32_t op_matmul_id(struct htp_op_ctx *octx) {
    if (octx->op.kparams[0] == HMX_MM_KPARAMS_TAG) { /* the batch path on HMX (hmx-mm-id.h) */
        return op_matmul_id_hmx(octx);
    }
    struct htp_ctx *ctx = octx->ctx;
    struct matmul_id_ctx c = {
        .octx = octx,
        .kp = htp_op_kparams(octx),
        .src0 = octx->src[0],
        .src1 = octx->src[1],
        .ids = octx->src[2],
        .dst = octx->dst[0],
    };
    const struct matmul_id_kparams *kp = c.kp;
    const uint32_t st = matmul_id_check(&c, ctx);
    if (st != HTP_STATUS_OK) {
        return st;
    }
    const struct htp_tensor_mdev_range range = matmul_id_tile_rows(ctx, c.dst, kp->n_col_tiles);
    c.ct_start = range.start;
    c.n_ct = range.count;
    if (c.n_ct == 0) {
        return HTP_STATUS_OK;
    }
    c.jobs_per_thread = (c.n_ct + kp->n_threads - 1) / kp->n_threads;
    const uint32_t ne11 = c.src1->ne[1], n_used = c.ids->ne[0], n_tokens = c.ids->ne[1];
    for (c.t0 = 0; c.t0 < n_tokens; c.t0 = c.t1) {
        c.t1 = HEX_MIN(c.t0 + kp->tokens_chunk, n_tokens);
        c.c0 = c.t0 * ne11;
        c.c1 = c.t1 * ne11;
        c.n_pairs = (c.t1 - c.t0) * n_used;
        const uint32_t routed = matmul_id_route_chunk(&c.route, c.ids, c.src0->ne[2], ne11, c.t0, c.t1, octx->msg);
        if (routed != HTP_STATUS_OK) {
            return routed;
        }
        const uint32_t n_act = HEX_MIN(kp->n_act_threads, c.c1 - c.c0);
        c.cols_per_act_thread = (c.c1 - c.c0 + n_act - 1) / n_act;
        if (work_queue_run(&ctx->wq, matmul_id_worker_prep, &c, n_act) != VDSP_FAULT_NONE ||
            work_queue_run(&ctx->wq, matmul_id_worker_compute, &c, kp->n_threads) != VDSP_FAULT_NONE) {
            return HTP_STATUS_FAULT;
        }
    }
    return HTP_STATUS_OK;
}
