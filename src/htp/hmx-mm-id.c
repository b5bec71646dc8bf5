/*
 * MUL_MAT_ID on HMX (hmx-mm-id.h): the token chunk loop, the gather of each used expert's routed columns into its
 * FP16 activation tile rows, and the compute workers. Routing is MUL_MAT_ID's (matmul_id_route_chunk); weights,
 * tiles, HMX and widening are hmx-mm-parts.h's.
 *
 * The chunk's activation area: used expert k owns tile rows [tile_base[k], tile_base[k + 1]), column j of its tile
 * row t being its routed row start[k] + 32 t + j (a column past the expert's rows is zeros). Per tile row the op's
 * thread records its first routed row and its expert's end.
 *
 * Prep worker (a range of the chunk's position pairs: pair pr is columns 2 (pr % 16) and 2 (pr % 16) + 1 of tile
 * row pr / 16), with two staging slots of two rows each, as MUL_MAT's HMX prep:
 *     prologue  push the f32 rows of its first two pairs (a padding column: a zero-row dummy)
 *     pair pr   pop its two rows, narrow them into the tile row's n_k_tiles tiles, push the rows of pair pr + 2
 *     epilogue  pop the four dummies left
 *
 * Compute worker (a range of the device's tile rows, a job per tile row; a unit is (tile row, used expert k), the
 * job's E units in expert order), with p = n_prefetch slots, each a raw weight tile row buffer; the job's dst slot is
 * its index in the range modulo p:
 *     prologue  for each slot s: push the weight DMA of unit s (a dummy past the range), then a dummy
 *     unit i    pop its weights; expand them into the FP16 weight tile row (HVX); push the weights of unit i + p into
 *               the slot just freed; take HMX and multiply the expert's activation tile rows into output tiles; pop
 *               the entry of unit i - p (a write-back or a dummy); widen the output tiles into the job's dst slot,
 *               each routed row's 32 results at its pair; push the job's write-back after its last unit (all the
 *               chunk's pairs x the valid rows, one 2-D descriptor), else a dummy
 *     epilogue  pop the p dummy weight DMAs and the p entries left
 * The FIFO holds W(i) E(i - p) W(i + 1) E(i + 1 - p) ... in push order, as the pops take them. Job j's slot was last
 * written by job j - p, whose write-back is pushed at unit (j - p) E + E - 1 and popped p units later, no later
 * than job j's first unit pops its entry, before it widens into the slot.
 */
#include "hmx-mm-id.h"

#include "dma-queue.h"
#include "hmx-mm-parts.h"
#include "htp-ctx.h"
#include "htp-tensor.h"
#include "htp-tiles.h"
#include "matmul-id-ops.h"
#include "matmul-ops.h"

/* Activation tile rows of a chunk at most (hmx_mm_id_act_tile_rows of the limits). */
#define HMX_MM_ID_MAX_TILE_ROWS ((MATMUL_ID_MAX_PAIRS + 31 * MATMUL_ID_MAX_EXPERTS) / HMX_MM_TILE)

struct hmx_mm_id_ctx {
    struct htp_op_ctx *octx;
    const struct hmx_mm_id_kparams *kp;
    const struct htp_tensor *src0, *src1, *ids, *dst;
    struct hmx_mm_id_layout layout;
    struct hmx_weights wt;   /* src0: its layout, DMA and expansion */
    uint32_t ct_start, n_ct; /* this device's tile rows of each matrix */
    uint32_t jobs_per_thread;
    /* the chunk being computed */
    uint32_t t0, t1;  /* its tokens */
    uint32_t c0;      /* its first column */
    uint32_t n_pairs; /* its pairs: (t1 - t0) * n_used, from pair t0 * n_used */
    uint32_t n_pos;   /* position pairs of its activation tile rows: 16 per tile row */
    uint32_t pos_per_act_thread;
    struct matmul_id_route route;
    uint16_t tile_base[MATMUL_ID_MAX_EXPERTS + 1]; /* used expert k's first activation tile row */
    uint16_t tr_first[HMX_MM_ID_MAX_TILE_ROWS];    /* per tile row: the routed row of its column 0 ... */
    uint16_t tr_end[HMX_MM_ID_MAX_TILE_ROWS];      /* ... and the end of its expert's rows */
};

/* The chunk's tile rows: per used expert ceil(rows / 32), from the route. */
static void hmx_mm_id_tile_rows(struct hmx_mm_id_ctx *c) {
    const struct matmul_id_route *rt = &c->route;
    uint32_t tr = 0;
    for (uint32_t k = 0; k < rt->n_used_experts; k++) {
        c->tile_base[k] = (uint16_t) tr;
        for (uint32_t r = rt->start[k]; r < rt->start[k + 1]; r += HMX_MM_TILE, tr++) {
            c->tr_first[tr] = (uint16_t) r;
            c->tr_end[tr] = rt->start[k + 1];
        }
    }
    c->tile_base[rt->n_used_experts] = (uint16_t) tr;
    c->n_pos = tr * HMX_MM_PAIRS_PER_TILE;
}

/* ---- the prep worker ---- */

/* Push the f32 rows of position pair pr into staging slot v (two rows, stage_size apart); a padding column, or the
 * whole pair when live is false, is a dummy. Always two descriptors. */
static void hmx_mm_id_push_pair(const struct hmx_mm_id_ctx *c, struct dma_queue *q, uint8_t *v, uint32_t pr,
                                bool live) {
    const struct htp_tensor *x = c->src1;
    const uint32_t bytes = x->ne[0] * (uint32_t) sizeof(float), tr = pr / HMX_MM_PAIRS_PER_TILE;
    const uint32_t r0 = live ? c->tr_first[tr] + 2 * (pr % HMX_MM_PAIRS_PER_TILE) : 0;
    for (uint32_t h = 0; h < 2; h++) {
        uint8_t *row = v + h * c->kp->stage_size;
        if (!live || r0 + h >= c->tr_end[tr]) {
            dma_queue_push(q, dma_make_pair(row, x->data), 0, 0, 0, 0);
            continue;
        }
        const uint32_t col = c->c0 + c->route.row[r0 + h].col;
        const struct htp_row_index ix =
            htp_row_unravel(col, x->ne[1], x->ne[2], &c->kp->div_ne11, &c->kp->div_ne11_ne12);
        dma_queue_push(q, dma_make_pair(row, htp_tensor_row(x, ix.i1, ix.i2, ix.i3)), bytes, bytes, bytes, 1);
    }
}

/* Position pair pr's two f32 rows at v -> vector pr % 16 of the n_k_tiles tiles of activation tile row pr / 16. Out
 * of line: inlined, the zero vector of a padding column is hoisted and spilled across the DMA pushes. */
static HEX_NOINLINE void hmx_mm_id_act_compute(const struct hmx_mm_id_ctx *c, const uint8_t *v, uint32_t pr) {
    const struct hmx_mm_id_kparams *kp = c->kp;
    const uint32_t tr = pr / HMX_MM_PAIRS_PER_TILE, i = pr % HMX_MM_PAIRS_PER_TILE, r0 = c->tr_first[tr] + 2 * i;
    uint8_t *dst = c->octx->ctx->vtcm + c->layout.act + (size_t) tr * kp->n_k_tiles * HMX_MM_TILE_BYTES + i * HEX_VLEN;
    hmx_tiles_act_pair(r0 < c->tr_end[tr] ? v : NULL, r0 + 1 < c->tr_end[tr] ? v + kp->stage_size : NULL, kp->n_k_tiles,
                       dst);
}

static void hmx_mm_id_worker_prep(unsigned nth, unsigned ith, void *arg) {
    const struct hmx_mm_id_ctx *c = arg;
    struct htp_ctx *ctx = c->octx->ctx;
    const uint32_t pa = ith * c->pos_per_act_thread;
    const uint32_t pb = HEX_MIN(pa + c->pos_per_act_thread, c->n_pos);
    (void) nth;
    if (pa >= pb) {
        return;
    }
    struct dma_queue *q = &ctx->dma[ith];
    struct htp_trace *tr = &ctx->trace[ith];
    uint8_t *stage = ctx->vtcm + c->layout.slices + (size_t) ith * c->layout.per_thread + c->layout.stage;
    const size_t slot = 2 * (size_t) c->kp->stage_size;
    for (uint32_t h = 0; h < 2; h++) {
        hmx_mm_id_push_pair(c, q, stage + h * slot, pa + h, pa + h < pb);
    }
    for (uint32_t pr = pa; pr < pb; pr++) {
        uint8_t *v = dma_queue_pop(q).dst;
        dma_queue_pop(q);
        if (!htp_op_skip_compute(c->octx)) {
            htp_trace_start(tr, HTP_TRACE_HVX_A_QUANT, pr);
            hmx_mm_id_act_compute(c, v, pr);
            htp_trace_stop(tr, HTP_TRACE_HVX_A_QUANT, pr);
        }
        hmx_mm_id_push_pair(c, q, v, pr + 2, pr + 2 < pb);
    }
    for (uint32_t k = 0; k < 4; k++) {
        dma_queue_pop(q);
    }
}

/* ---- the compute worker ---- */

/* A unit's place: tile row ct, used expert k. Workers step it. */
struct hmx_mm_id_unit {
    uint32_t ct, k;
};

static void hmx_mm_id_unit_next(const struct hmx_mm_id_ctx *c, struct hmx_mm_id_unit *u) {
    if (++u->k == c->route.n_used_experts) {
        u->k = 0;
        u->ct++;
    }
}

/* Push the weight DMA of unit u into raw slot v (live false: a dummy). */
static void hmx_mm_id_push_weights(const struct hmx_mm_id_ctx *c, struct dma_queue *q, uint8_t *v,
                                   struct hmx_mm_id_unit u, bool live) {
    const uint8_t *m = live ? hmx_weights_matrix(&c->wt, c->route.expert[u.k], 0) : NULL;
    hmx_weights_push(&c->wt, q, v, m, u.ct, live);
}

/* Expert k's output tiles at otile -> the f32 results of its routed rows, each at its pair's vector of out. */
static void hmx_mm_id_widen(const struct hmx_mm_id_ctx *c, uint32_t k, const uint8_t *otile, HVX_Vector *out) {
    const struct matmul_id_row *row = c->route.row;
    const uint32_t r0 = c->route.start[k], r1 = c->route.start[k + 1];
    for (uint32_t r = r0; r < r1; r += 2) {
        const uint32_t j = r - r0; /* the row's column in the expert's tile rows */
        const HVX_VectorPair w =
            hmx_tiles_widen_pair(otile + (size_t) (j / HMX_MM_TILE) * HMX_MM_TILE_BYTES, (j % HMX_MM_TILE) / 2);
        hvx_vmem_st(out + row[r].pair, Q6_V_lo_W(w));
        if (r + 1 < r1) {
            hvx_vmem_st(out + row[r + 1].pair, Q6_V_hi_W(w));
        }
    }
}

static void hmx_mm_id_worker_compute(unsigned nth, unsigned ith, void *arg) {
    const struct hmx_mm_id_ctx *c = arg;
    const struct hmx_mm_id_kparams *kp = c->kp;
    struct htp_ctx *ctx = c->octx->ctx;
    const uint32_t j0 = ith * c->jobs_per_thread;
    const uint32_t j1 = HEX_MIN(j0 + c->jobs_per_thread, c->n_ct);
    (void) nth;
    if (j0 >= j1) {
        return;
    }
    uint8_t *slice = ctx->vtcm + c->layout.slices + (size_t) ith * c->layout.per_thread;
    uint8_t *wraw = slice + c->layout.wraw, *wt = slice + c->layout.wtile, *otile = slice + c->layout.otile;
    uint8_t *scales = slice + c->layout.scales, *dst = slice + c->layout.dst;
    const uint8_t *act = ctx->vtcm + c->layout.act;
    struct dma_queue *q = &ctx->dma[ith];
    struct htp_trace *tr = &ctx->trace[ith];
    const bool compute = !htp_op_skip_compute(c->octx);
    if (compute) {
        hmx_tiles_scales_init(scales);
    }
    const uint32_t p = kp->n_prefetch, n_e = c->route.n_used_experts, n = (j1 - j0) * n_e;
    const size_t dst_slot = (size_t) kp->pairs_chunk * HEX_VLEN, tile_row = (size_t) kp->n_k_tiles * HMX_MM_TILE_BYTES;
    const size_t nb1 = c->dst->nb[1];
    uint8_t *d0 = c->dst->data + (size_t) c->t0 * c->ids->ne[0] * nb1; /* the chunk's first pair's dst row */
    struct hmx_mm_id_unit u = {c->ct_start + j0, 0}, ahead = u;        /* the unit computed, the unit prefetched */
    for (uint32_t s = 0; s < p; s++) {
        hmx_mm_id_push_weights(c, q, wraw + (size_t) s * kp->wraw_size, ahead, s < n);
        dma_queue_push(q, dma_make_pair(c->dst->data, dst), 0, 0, 0, 0);
        if (s < n) {
            hmx_mm_id_unit_next(c, &ahead);
        }
    }
    uint32_t s = 0, js = 0; /* unit i's raw weight slot (i % p), its job's dst slot */
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t valid = htp_tile_valid_rows(c->src0->ne[1], u.ct);
        uint8_t *v = wraw + (size_t) s * kp->wraw_size;
        HVX_Vector *out = (HVX_Vector *) (dst + js * dst_slot);
        const uint32_t ndesc = hmx_mm_wrow_ndesc(c->src0->type, valid);
        for (uint32_t k = 0; k < ndesc; k++) {
            dma_queue_pop(q);
        }
        if (compute) {
            htp_trace_start(tr, HTP_TRACE_HVX_W_DEQUANT, i);
            hmx_weights_expand(&c->wt, v, wt);
            htp_trace_stop(tr, HTP_TRACE_HVX_W_DEQUANT, i);
        }
        hmx_mm_id_push_weights(c, q, v, ahead, i + p < n);
        if (i + p < n) {
            hmx_mm_id_unit_next(c, &ahead);
        }
        const uint32_t tb = c->tile_base[u.k];
        if (compute) {
            vdsp_hmx_lock(ctx->dev);
            htp_trace_start(tr, HTP_TRACE_HMX_COMP, i);
            hmx_tiles_multiply(act + tb * tile_row, c->tile_base[u.k + 1] - tb, wt, kp->n_k_tiles, otile, scales);
            htp_trace_stop(tr, HTP_TRACE_HMX_COMP, i);
            vdsp_hmx_unlock(ctx->dev);
        }
        dma_queue_pop(q); /* the entry of unit i - p: the write-back of the job before last in this slot, or none */
        if (compute) {
            htp_trace_start(tr, HTP_TRACE_HVX_COMP, i);
            hmx_mm_id_widen(c, u.k, otile, out);
            htp_trace_stop(tr, HTP_TRACE_HVX_COMP, i);
        }
        if (u.k + 1 == n_e) { /* the job's last unit: every pair of the chunk has its 32 results */
            uint8_t *d = d0 + (size_t) u.ct * MATMUL_TILE_ROWS * sizeof(float);
            dma_queue_push(q, dma_make_pair(d, out), nb1, HEX_VLEN, valid * sizeof(float), c->n_pairs);
            js = js + 1 == p ? 0 : js + 1;
        } else {
            dma_queue_push(q, dma_make_pair(c->dst->data, out), 0, 0, 0, 0);
        }
        hmx_mm_id_unit_next(c, &u);
        s = s + 1 == p ? 0 : s + 1;
    }
    for (uint32_t k = 0; k < p; k++) {
        dma_queue_pop(q); /* a dummy weight DMA */
        dma_queue_pop(q); /* a write-back, or a dummy */
    }
}

/* ---- the entry ---- */

/* Shapes, types and kparams agree with each other and with the session (MUL_MAT_ID's checks, and K a multiple of 32
 * here); fills the weight geometry of c. */
static uint32_t hmx_mm_id_check(struct hmx_mm_id_ctx *c, const struct htp_ctx *ctx) {
    const struct hmx_mm_id_kparams *kp = c->kp;
    const struct htp_tensor *w = c->src0;
    const uint32_t ne00 = w->ne[0];
    if (!matmul_id_shapes_valid(w, c->src1, c->ids, c->dst, kp->tokens_chunk, kp->pairs_chunk) ||
        !matmul_kparams_valid(ctx, w, kp->n_threads, kp->n_act_threads, kp->n_prefetch, HMX_MM_MAX_PREFETCH,
                              kp->stage_size, kp->n_col_tiles) ||
        ne00 % HMX_MM_TILE != 0 || kp->act_tile_rows < hmx_mm_id_act_tile_rows(kp->pairs_chunk, w->ne[2]) ||
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
    c->layout = hmx_mm_id_plan_layout(kp);
    return c->layout.total <= ctx->vtcm_size ? HTP_STATUS_OK : HTP_STATUS_VTCM_TOO_SMALL;
}

uint32_t op_matmul_id_hmx(struct htp_op_ctx *octx) {
    struct htp_ctx *ctx = octx->ctx;
    struct hmx_mm_id_ctx c = {
        .octx = octx,
        .kp = htp_op_kparams(octx),
        .src0 = octx->src[0],
        .src1 = octx->src[1],
        .ids = octx->src[2],
        .dst = octx->dst[0],
    };
    const struct hmx_mm_id_kparams *kp = c.kp;
    const uint32_t st = hmx_mm_id_check(&c, ctx);
    if (st != HTP_STATUS_OK) {
        return st;
    }
    const uint32_t n_expert = c.src0->ne[2];
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
        c.n_pairs = (c.t1 - c.t0) * n_used;
        const uint32_t routed = matmul_id_route_chunk(&c.route, c.ids, n_expert, ne11, c.t0, c.t1, octx->msg);
        if (routed != HTP_STATUS_OK) {
            return routed;
        }
        hmx_mm_id_tile_rows(&c);
        const uint32_t n_act = HEX_MIN(kp->n_act_threads, c.n_pos);
        c.pos_per_act_thread = (c.n_pos + n_act - 1) / n_act;
        if (work_queue_run(&ctx->wq, hmx_mm_id_worker_prep, &c, n_act) != VDSP_FAULT_NONE ||
            work_queue_run(&ctx->wq, hmx_mm_id_worker_compute, &c, kp->n_threads) != VDSP_FAULT_NONE) {
            return HTP_STATUS_FAULT;
        }
    }
    return HTP_STATUS_OK;
}
