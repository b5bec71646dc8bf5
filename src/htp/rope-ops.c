/*
 * ROPE (rope-ops.h): rows streamed through VTCM, one token's angle cache per thread.
 *
 *     DDR rows, position --DMA--> VTCM halves --HVX (cache: cos, sin)--> VTCM dst halves --DMA--> DDR
 *
 *   prologue  load the freq factors; for halves 0 and 1: a dummy "write-back done", then the reads of blocks
 *             0 and 1 (the rows and the token's position: a block stays in one token)
 *   block b   pop the dst half, pop the reads of b; when the position differs from the cached one, rebuild
 *             the cache; rotate; push the write-back, push the reads of b + 2
 *   epilogue  pop the two write-backs and the two empty blocks' dummy reads
 *
 * The cache of a position: the angles theta_k in f32 step by step exactly as ggml (and the CPU reference) form
 * them, since a position of thousands turns any other rounding order into visible angle errors (the product chain
 * on the scalar core, the divisions and the YaRN blend on HVX); then cos and sin of all of them on HVX (hvx-f32-math.h:
 * 8e-8 absolute for |theta| < 2^17), laid out per element of a row so that one rotation serves both modes: x'[j] = x[j]
 * cos[j] + partner(x)[j] sin[j] NORMAL: cos = (c0, c0, c1, c1, ...), sin = (-s0, s0, -s1, s1, ...), partner swaps
 * adjacent lanes; NEOX: cos = (c0 .. c_h-1, c0 .. c_h-1), sin = (-s0 .. -s_h-1, s0 .. s_h-1), partner reads x at j + h
 * for j < h and j - h above, by unaligned vector loads (the source halves have 128 bytes of slack around them).
 */
#include "rope-ops.h"

#include "dma-queue.h"
#include "htp-ctx.h"
#include "htp-tensor.h"
#include "hvx-f32-math.h"

#include <stdbool.h>

struct rope_ctx {
    struct htp_op_ctx *octx;
    const struct rope_kparams *kp;
    const struct htp_tensor *src, *pos, *freq, *dst; /* freq NULL when absent */
    struct rope_layout l;
    struct htp_tensor_mdev_rows rows; /* this device's rows, and each worker's */
};

struct rope_block {
    uint32_t ir; /* first row (flat index) */
    uint32_t n;  /* rows; 0 for an empty block */
    struct htp_row_index ix;
};

/* One thread's view of the op. */
struct rope_thread {
    const struct rope_ctx *c;
    struct dma_queue *q;
    struct htp_trace *tr;
    uint8_t *src, *dst, *pos; /* half 0 of each buffer; half 1 follows */
    HVX_Vector *cos, *sin;    /* the cache */
    HVX_VectorPred even;      /* the even lanes (NORMAL's partner swap) */
    int32_t cached;           /* the position in the cache */
    bool have_cache;
    uint32_t next;    /* first row not yet scheduled */
    uint32_t end;     /* one past the thread's last row */
    HVX_Vector *freq; /* the freq factors in VTCM (with src[2]) */
    HVX_Vector *mix;  /* YaRN ramp(k) * ext_factor per pair k, on the worker's stack */
};

/* The next block: at most kp->block rows, not past the thread's end nor a token. */
static struct rope_block rope_next_block(struct rope_thread *t) {
    const struct rope_ctx *c = t->c;
    struct rope_block b = {t->next, HEX_MIN(c->kp->block, t->end - t->next), {0, 0, 0}};
    if (b.n > 0) {
        b.ix = htp_row_unravel(b.ir, c->src->ne[1], c->src->ne[2], &c->kp->div_ne1, &c->kp->div_ne12);
        b.n = HEX_MIN(b.n, c->src->ne[1] - b.ix.i1);
    }
    t->next += b.n;
    return b;
}

static uint8_t *rope_half(const struct rope_thread *t, uint8_t *base, uint32_t h) {
    return base + h * t->c->kp->block * t->c->l.row_stride;
}

/* Push the reads of block b into half h (dummies for an empty block). */
static void rope_push_src(struct rope_thread *t, uint32_t h, const struct rope_block *b) {
    const struct rope_ctx *c = t->c;
    uint8_t *vsrc = rope_half(t, t->src, h), *vpos = t->pos + h * HEX_VLEN;
    if (b->n == 0) {
        dma_queue_push(t->q, dma_make_pair(vsrc, c->src->data), 0, 0, 0, 0);
        dma_queue_push(t->q, dma_make_pair(vpos, c->pos->data), 0, 0, 0, 0);
        return;
    }
    dma_queue_push(t->q, dma_make_pair(vsrc, htp_tensor_row(c->src, b->ix.i1, b->ix.i2, b->ix.i3)), c->l.row_stride,
                   c->src->nb[1], c->src->ne[0] * 4, b->n);
    dma_queue_push(t->q, dma_make_pair(vpos, c->pos->data + (uintptr_t) b->ix.i2 * c->pos->nb[0]), 4, 4, 4, 1);
}

/* The cache of position p: cos and sin of every rotated element, scaled by mscale. The angles' chain
 * th_k = th_{k-1} * theta_scale runs on the scalar core (a multiply per pair); the divisions by the freq factors and
 * the YaRN blend are HVX operations in ggml's order, each rounded once as the CPU's scalar f32 (the division is
 * correctly rounded, hvx-f32-vec.h), so no division runs on the scalar core. */
static HEX_NOINLINE void rope_build_cache(struct rope_thread *t, int32_t p) {
    HVX_SCOPE();
    const struct rope_kparams *kp = t->c->kp;
    const uint32_t half = kp->n_dims / 2, nvec = (half + HVX_F32_PER_VEC - 1) / HVX_F32_PER_VEC;
    const bool has_freq = t->c->freq != NULL, yarn = kp->ext_factor != 0.0f;
    HVX_Vector theta[HTP_ROPE_MAX_PAIRS / HVX_F32_PER_VEC];
    float th = (float) p;
    for (uint32_t k = 0; k < half; k++) { /* ggml's order of f32 operations, rounding for rounding */
        hvx_lane_set_f32(theta, k, th);
        th *= kp->theta_scale;
    }
    const HVX_Vector freq_scale = hvx_vec_splat_f32(kp->freq_scale), one = hvx_vec_splat_f32(1.0f);
    for (uint32_t i = 0; i < nvec; i++) {
        const HVX_Vector extrap = has_freq ? hvx_vec_div_f32(theta[i], hvx_vmem_ld(t->freq + i)) : theta[i];
        const HVX_Vector interp = hvx_vec_mul_f32(freq_scale, extrap);
        if (yarn) {
            const HVX_Vector mix = hvx_vmem_ld(t->mix + i);
            theta[i] =
                hvx_vec_add_f32(hvx_vec_mul_f32(interp, hvx_vec_sub_f32(one, mix)), hvx_vec_mul_f32(extrap, mix));
        } else {
            theta[i] = interp;
        }
    }
    const HVX_Vector mscale = hvx_vec_splat_f32(kp->mscale);
    const HVX_Vector sign = Q6_V_vsplat_R((int32_t) 0x80000000);
    HVX_Vector sin_k[HTP_ROPE_MAX_PAIRS / HVX_F32_PER_VEC]; /* NEOX: sin, cos kept for the 2nd half */
    for (uint32_t i = 0; i < nvec; i++) {
        HVX_Vector s, c;
        hvx_vec_sincos_f32(hvx_vmem_ld(theta + i), &s, &c);
        c = hvx_vec_mul_f32(c, mscale);
        s = hvx_vec_mul_f32(s, mscale);
        const HVX_Vector neg_s = Q6_V_vxor_VV(s, sign);
        if (kp->neox) {
            hvx_vmem_st(t->cos + i, c);
            hvx_vmem_st(t->sin + i, neg_s);
            hvx_vmem_st(theta + i, c);
            hvx_vmem_st(sin_k + i, s);
        } else {
            const HVX_VectorPair cc = Q6_W_vshuff_VVR(c, c, -4), ss = Q6_W_vshuff_VVR(s, neg_s, -4);
            hvx_vmem_st(t->cos + 2 * i, Q6_V_lo_W(cc));
            hvx_vmem_st(t->cos + 2 * i + 1, Q6_V_hi_W(cc));
            hvx_vmem_st(t->sin + 2 * i, Q6_V_lo_W(ss));
            hvx_vmem_st(t->sin + 2 * i + 1, Q6_V_hi_W(ss));
        }
    }
    /* NEOX's second half starts at element h: unaligned stores, after the whole first half, over its junk tail
     * (each store reaches at most 31 elements past n_dims: the cache rows have 128 bytes of room for it) */
    for (uint32_t i = 0; kp->neox && i < nvec; i++) {
        hvx_vmemu_st((float *) t->cos + half + i * HVX_F32_PER_VEC, hvx_vmem_ld(theta + i));
        hvx_vmemu_st((float *) t->sin + half + i * HVX_F32_PER_VEC, hvx_vmem_ld(sin_k + i));
    }
}

/* The partner of vector i of row x (elements j0 = 32 i ..): NEOX x[j + h] below h, x[j - h] from h on;
 * NORMAL x[j ^ 1]. */
static inline HVX_Vector rope_partner(const struct rope_thread *t, const float *x, HVX_Vector xv, uint32_t i) {
    if (!t->c->kp->neox) {
        return Q6_V_vmux_QVV(t->even, Q6_V_vror_VR(xv, 4), Q6_V_vror_VR(xv, HEX_VLEN - 4));
    }
    const uint32_t h = t->c->kp->n_dims / 2, j0 = i * HVX_F32_PER_VEC;
    if (j0 + HVX_F32_PER_VEC <= h) {
        return hvx_vmemu_ld(x + j0 + h);
    }
    if (j0 >= h) {
        return hvx_vmemu_ld(x + j0 - h);
    }
    /* straddling h: the j - h load starts up to 31 elements before the row, in the slack */
    return Q6_V_vmux_QVV(Q6_Q_vsetq_R((int32_t) ((h - j0) * 4)), hvx_vmemu_ld(x + j0 + h), hvx_vmemu_ld(x - (h - j0)));
}

/* Rotate the n rows at src into dst (row_stride apart). */
static HEX_NOINLINE void rope_compute(const struct rope_thread *t, uint8_t *dst, const uint8_t *src, uint32_t n) {
    HVX_SCOPE();
    const struct rope_ctx *c = t->c;
    const uint32_t n_dims = c->kp->n_dims, nvec = c->l.row_stride / HEX_VLEN;
    const uint32_t nvec_rot = (n_dims + HVX_F32_PER_VEC - 1) / HVX_F32_PER_VEC;
    for (uint32_t r = 0; r < n; r++) {
        const float *x = (const float *) (src + r * c->l.row_stride);
        HVX_Vector *restrict y = (HVX_Vector *) (dst + r * c->l.row_stride);
        for (uint32_t i = 0; i < nvec_rot; i++) {
            const HVX_Vector xv = hvx_vmem_ld(x + i * HVX_F32_PER_VEC);
            const HVX_Vector p = rope_partner(t, x, xv, i);
            HVX_Vector v = hvx_vec_add_f32(hvx_vec_mul_f32(xv, hvx_vmem_ld(t->cos + i)),
                                           hvx_vec_mul_f32(p, hvx_vmem_ld(t->sin + i)));
            if ((i + 1) * HVX_F32_PER_VEC > n_dims) { /* the rest of this vector is copied */
                v = Q6_V_vmux_QVV(Q6_Q_vsetq_R((int32_t) ((n_dims - i * HVX_F32_PER_VEC) * 4)), v, xv);
            }
            hvx_vmem_st(y + i, v);
        }
        for (uint32_t i = nvec_rot; i < nvec; i++) {
            hvx_vmem_st(y + i, hvx_vmem_ld(x + i * HVX_F32_PER_VEC));
        }
    }
}

/* Per-thread constants: the freq factors (DMA into VTCM), the YaRN blends, the even-lane predicate. */
static void rope_thread_setup(struct rope_thread *t) {
    const struct rope_kparams *kp = t->c->kp;
    const uint32_t half = kp->n_dims / 2;
    if (t->c->freq) {
        dma_queue_push(t->q, dma_make_pair(t->freq, t->c->freq->data), half * 4, half * 4, half * 4, 1);
        dma_queue_pop(t->q);
    }
    if (kp->ext_factor != 0.0f) { /* as ggml's rope_yarn_ramp: 1 - clamp((k - lo) / span, 0, 1), times ext_factor */
        for (uint32_t k = 0; k < half; k++) {
            hvx_lane_set_f32(t->mix, k, (float) k);
        }
        const HVX_Vector lo = hvx_vec_splat_f32(kp->corr_lo), span = hvx_vec_splat_f32(kp->corr_span);
        const HVX_Vector zero = Q6_V_vzero(), one = hvx_vec_splat_f32(1.0f), ext = hvx_vec_splat_f32(kp->ext_factor);
        for (uint32_t i = 0; i < (half + HVX_F32_PER_VEC - 1) / HVX_F32_PER_VEC; i++) {
            const HVX_Vector y = hvx_vec_div_f32(hvx_vec_sub_f32(t->mix[i], lo), span);
            const HVX_Vector ramp = hvx_vec_sub_f32(one, hvx_vec_min_f32(one, hvx_vec_max_f32(zero, y)));
            t->mix[i] = hvx_vec_mul_f32(ramp, ext);
        }
    }
    const HVX_VectorPair alt = Q6_W_vshuff_VVR(Q6_V_vzero(), Q6_V_vsplat_R(-1), -4);
    t->even = Q6_Q_vand_VR(Q6_V_lo_W(alt), 0x01010101);
}

static void rope_prologue(struct rope_thread *t, struct rope_block blk[2]) {
    for (uint32_t h = 0; h < 2; h++) {
        dma_queue_push(t->q, dma_make_pair(t->c->dst->data, rope_half(t, t->dst, h)), 0, 0, 0, 0);
        blk[h] = rope_next_block(t);
        rope_push_src(t, h, &blk[h]);
    }
}

static void rope_block_run(struct rope_thread *t, struct rope_block blk[2], uint32_t b) {
    const struct rope_ctx *c = t->c;
    const uint32_t h = b & 1;
    uint8_t *vdst = (uint8_t *) dma_queue_pop(t->q).src; /* the half's previous write-back has landed */
    const uint8_t *vsrc = dma_queue_pop(t->q).dst;
    const uint8_t *vpos = dma_queue_pop(t->q).dst;
    if (!htp_op_skip_compute(c->octx)) {
        htp_trace_start(t->tr, HTP_TRACE_HVX_COMP, b);
        const int32_t p = Q6_R_vextract_VR(hvx_vmem_ld(vpos), 0);
        if (!t->have_cache || p != t->cached) {
            rope_build_cache(t, p);
            t->cached = p;
            t->have_cache = true;
        }
        rope_compute(t, vdst, vsrc, blk[h].n);
        htp_trace_stop(t->tr, HTP_TRACE_HVX_COMP, b);
    }
    const struct htp_row_index ix = blk[h].ix;
    dma_queue_push(t->q, dma_make_pair(htp_tensor_row(c->dst, ix.i1, ix.i2, ix.i3), vdst), c->dst->nb[1],
                   c->l.row_stride, c->dst->ne[0] * 4, blk[h].n);
    blk[h] = rope_next_block(t);
    rope_push_src(t, h, &blk[h]);
}

/* Two halves remain queued: a write-back, then an empty block's dummy reads. */
static void rope_epilogue(struct rope_thread *t) {
    for (uint32_t h = 0; h < 2; h++) {
        dma_queue_pop(t->q);
        dma_queue_pop(t->q);
        dma_queue_pop(t->q);
    }
}

static void rope_worker(unsigned nth, unsigned ith, void *arg) {
    HVX_SCOPE();
    const struct rope_ctx *c = arg;
    struct htp_ctx *ctx = c->octx->ctx;
    uint32_t first, end;
    (void) nth;
    if (!htp_tensor_mdev_rows_thread(&c->rows, ith, &first, &end)) {
        return;
    }
    uint8_t *slice = ctx->vtcm + (size_t) ith * c->l.per_thread;
    HVX_Vector mix[HTP_ROPE_MAX_PAIRS / HVX_F32_PER_VEC];
    struct rope_thread t = {
        .c = c,
        .q = &ctx->dma[ith],
        .tr = &ctx->trace[ith],
        .src = slice + c->l.src,
        .dst = slice + c->l.dst,
        .pos = slice + c->l.pos,
        .cos = (HVX_Vector *) (slice + c->l.cos),
        .sin = (HVX_Vector *) (slice + c->l.sin),
        .freq = (HVX_Vector *) (slice + c->l.freq),
        .mix = mix,
        .next = first,
        .end = end,
    };
    rope_thread_setup(&t);
    struct rope_block blk[2];
    rope_prologue(&t, blk);
    for (uint32_t b = 0; blk[b & 1].n > 0; b++) {
        rope_block_run(&t, blk, b);
    }
    rope_epilogue(&t);
}

/* src and dst F32 of one shape with dense rows; positions I32, one per token; freq factors F32 covering the
 * pairs; n_dims even, within the row and the kernel's limit. */
static bool rope_shapes_ok(const struct rope_ctx *c) {
    const struct htp_tensor *x = c->src, *d = c->dst, *pos = c->pos, *f = c->freq;
    const uint32_t n_dims = c->kp->n_dims;
    if (x->type != HTP_TYPE_F32 || d->type != HTP_TYPE_F32 || x->nb[0] != 4 || d->nb[0] != 4 ||
        pos->type != HTP_TYPE_I32 || pos->nb[0] != 4 || pos->ne[0] < x->ne[2] || n_dims == 0 || n_dims % 2 != 0 ||
        n_dims > x->ne[0] || n_dims / 2 > HTP_ROPE_MAX_PAIRS ||
        (f && (f->type != HTP_TYPE_F32 || f->nb[0] != 4 || f->ne[0] < n_dims / 2))) {
        return false;
    }
    for (int i = 0; i < HTP_MAX_DIMS; i++) {
        if (x->ne[i] != d->ne[i]) {
            return false;
        }
    }
    return true;
}

uint32_t op_rope(struct htp_op_ctx *octx) {
    struct htp_ctx *ctx = octx->ctx;
    const struct rope_kparams *kp = htp_op_kparams(octx);
    struct rope_ctx c = {
        .octx = octx, .kp = kp, .src = octx->src[0], .pos = octx->src[1], .freq = octx->src[2], .dst = octx->dst[0]};
    if (kp->n_threads == 0 || kp->n_threads > ctx->n_threads || kp->block == 0 || !rope_shapes_ok(&c)) {
        return HTP_STATUS_INVAL_PARAMS;
    }
    /* flat rows unravel into (i1, i2, i3) by these: the rows' addresses rest on them */
    const uint32_t ne1 = c.src->ne[1], ne2 = c.src->ne[2];
    if (!htp_op_fastdiv_ok(octx, &kp->div_ne1, ne1, "div_ne1", "ne1") ||
        !htp_op_fastdiv_ok(octx, &kp->div_ne12, ne1 * ne2, "div_ne12", "ne1 x ne2")) {
        return HTP_STATUS_INVAL_PARAMS;
    }
    /* Rows reach DDR only by DMA, which the 128-byte line rule does not constrain: line-clean chunks of dst rows
     * where its layout has them, any row split otherwise. */
    if (!htp_mdev_rows(ctx, htp_tensor_nrows(c.dst), htp_tensor_mdev_dma_rows_per_chunk(c.dst, 4, c.dst->ne[0] * 4),
                       kp->rows_per_thread, kp->n_threads, &c.rows)) {
        return HTP_STATUS_INVAL_PARAMS;
    }
    if (c.rows.count == 0) {
        return HTP_STATUS_OK;
    }
    c.l = rope_layout(kp, c.src->ne[0]);
    if (!htp_vtcm_fits(c.l.per_thread, kp->n_threads, ctx->vtcm_size)) {
        return HTP_STATUS_VTCM_TOO_SMALL;
    }
    return work_queue_run(&ctx->wq, rope_worker, &c, kp->n_threads) == VDSP_FAULT_NONE ? HTP_STATUS_OK
                                                                                       : HTP_STATUS_FAULT;
}
