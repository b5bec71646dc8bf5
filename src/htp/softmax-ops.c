/*
 * SOFT_MAX (softmax-ops.h): rows streamed through VTCM with their mask rows, per thread
 *
 *     DDR x rows, mask rows --DMA--> VTCM halves --HVX--> VTCM dst halves --DMA--> DDR
 *
 *   prologue  for halves 0 and 1: a dummy "write-back done", then the reads of blocks 0 and 1 (x rows, and the
 *             mask rows of the same i01 run: one 2-D descriptor each)
 *   block b   pop the dst half, pop the reads of b, compute, push the write-back, push the reads of b + 2
 *   epilogue  pop the two write-backs and the two empty blocks' dummy reads
 * as row-stream.c does for the elementwise families. A block stays in one (i02, i03), so its mask rows are
 * consecutive; with one row per head (ne01 = 1, a decode step's scores) it runs over the heads instead, with one
 * mask row (or consecutive mask slices), so a step's heads move in one descriptor per buffer.
 *
 * A row is three vector passes: logits w = x * scale + slope * mask (padding lanes -inf) and their maximum;
 * e = exp(w - max) (hvx-f32-vec.h: a few ulp; -inf logits give exactly 0) and their sum; e / sum through a
 * Newton-Raphson reciprocal. Against the CPU's double-precision reference the NMSE stays below 1e-12.
 */
#include "softmax-ops.h"

#include "dma-queue.h"
#include "htp-ctx.h"
#include "htp-tensor.h"
#include "hvx-f16-vec.h"
#include "hvx-f32-math.h"

#include <stdbool.h>

#define SOFTMAX_NEG_INF     ((int32_t) 0xFF800000) /* -inf as f32 bits */
#define SOFTMAX_POS_INF     ((int32_t) 0x7F800000) /* +inf as f32 bits */
#define SOFTMAX_NEG_INF_KEY ((int32_t) 0x807FFFFF) /* the order key of -inf (hvx_vec_f32_order_key) */

struct softmax_ctx {
    struct htp_op_ctx *octx;
    const struct softmax_kparams *kp;
    const struct htp_tensor *src, *mask, *dst; /* mask NULL when absent */
    struct softmax_layout l;
    struct htp_tensor_mdev_rows rows; /* this device's rows, and each worker's */
};

struct softmax_block {
    uint32_t ir; /* first row (flat index) */
    uint32_t n;  /* rows; 0 for an empty block */
    struct htp_row_index ix;
};

/* One thread's view of the op. */
struct softmax_thread {
    const struct softmax_ctx *c;
    struct dma_queue *q;
    struct htp_trace *tr;
    uint8_t *src, *mask, *dst; /* half 0 of each buffer; half 1 follows at + block rows */
    uint32_t next;             /* first row not yet scheduled */
    uint32_t end;              /* one past the thread's last row */
};

/* The next block: at most kp->block rows, not past the thread's end; rows of one (i02, i03), or with
 * block_heads rows of one i03 and one mask slice, so that each buffer's rows are one stride apart. */
static struct softmax_block softmax_next_block(struct softmax_thread *t) {
    const struct softmax_ctx *c = t->c;
    const struct softmax_kparams *kp = c->kp;
    struct softmax_block b = {t->next, HEX_MIN(kp->block, t->end - t->next), {0, 0, 0}};
    if (b.n > 0) {
        b.ix = htp_row_unravel(b.ir, c->src->ne[1], c->src->ne[2], &kp->div_ne01, &kp->div_ne0102);
        if (!kp->block_heads) {
            b.n = HEX_MIN(b.n, c->src->ne[1] - b.ix.i1);
        } else {
            b.n = HEX_MIN(b.n, c->src->ne[2] - b.ix.i2);
            if (c->mask && c->mask->ne[2] > 1) {
                b.n = HEX_MIN(b.n, c->mask->ne[2] - fastmodulo(b.ix.i2, c->mask->ne[2], &kp->div_mask_ne2));
            }
        }
    }
    t->next += b.n;
    return b;
}

/* Push the reads of block b into half h (dummies for an empty block). */
static void softmax_push_src(struct softmax_thread *t, uint32_t h, const struct softmax_block *b) {
    const struct softmax_ctx *c = t->c;
    const struct softmax_kparams *kp = c->kp;
    uint8_t *vsrc = t->src + h * kp->block * c->l.row_stride, *vmask = t->mask + h * kp->block * c->l.mask_stride;
    if (b->n == 0) {
        dma_queue_push(t->q, dma_make_pair(vsrc, c->src->data), 0, 0, 0, 0);
        if (c->mask) {
            dma_queue_push(t->q, dma_make_pair(vmask, c->mask->data), 0, 0, 0, 0);
        }
        return;
    }
    const uint32_t ne00 = c->src->ne[0], dim = kp->block_heads ? 2 : 1; /* the dimension a block runs over */
    dma_queue_push(t->q, dma_make_pair(vsrc, htp_tensor_row(c->src, b->ix.i1, b->ix.i2, b->ix.i3)), c->l.row_stride,
                   c->src->nb[dim], ne00 * 4, b->n);
    if (c->mask) {
        const struct htp_tensor *m = c->mask;
        const uint32_t i2 = fastmodulo(b->ix.i2, m->ne[2], &kp->div_mask_ne2);
        const uint32_t i3 = fastmodulo(b->ix.i3, m->ne[3], &kp->div_mask_ne3);
        const uint32_t stride = m->ne[dim] > 1 ? m->nb[dim] : 0; /* a head block over one mask slice: stride 0 */
        dma_queue_push(t->q, dma_make_pair(vmask, htp_tensor_row(m, b->ix.i1, i2, i3)), c->l.mask_stride, stride,
                       ne00 * m->nb[0], b->n);
    }
}

/* w = x * scale + slope * mask for one vector, lanes from n on set to -inf (n >= 32: none). */
static inline HVX_Vector softmax_logits(HVX_Vector x, bool has_mask, HVX_Vector mask, HVX_Vector scale,
                                        HVX_Vector slope, uint32_t n) {
    HVX_Vector w = hvx_vec_mul_f32(x, scale);
    if (has_mask) {
        w = hvx_vec_add_f32(w, hvx_vec_mul_f32(mask, slope));
    }
    return n >= HVX_F32_PER_VEC ? w : Q6_V_vmux_QVV(Q6_Q_vsetq_R((int32_t) (n * 4)), w, Q6_V_vsplat_R(SOFTMAX_NEG_INF));
}

/* Fold logits w into the running maximum (order keys, hvx-f32-math.h) of the non-NaN lanes and the running maximum
 * of |w|'s bits, which is above +inf's when a lane held a NaN. */
static inline void softmax_max_step(HVX_Vector w, HVX_Vector *kmax, HVX_Vector *amax) {
    const HVX_Vector a = Q6_V_vand_VV(w, Q6_V_vsplat_R(0x7FFFFFFF));
    const HVX_VectorPred nan = Q6_Q_vcmp_gt_VwVw(a, Q6_V_vsplat_R(SOFTMAX_POS_INF));
    *amax = Q6_Vw_vmax_VwVw(*amax, a);
    *kmax = Q6_Vw_vmax_VwVw(*kmax, Q6_V_vmux_QVV(nan, Q6_V_vsplat_R(SOFTMAX_NEG_INF_KEY), hvx_vec_f32_order_key(w)));
}

/* Pass 1 of a row: the logits into y; returned, the maximum of those that are not NaN (in every lane, -inf when
 * none is), and in *has_nan whether one is. */
static HVX_Vector softmax_row_logits(const struct softmax_ctx *c, HVX_Vector *restrict y, const HVX_Vector *restrict x,
                                     const HVX_Vector *restrict m, float slope, bool *has_nan) {
    const uint32_t ne00 = c->src->ne[0], nvec = c->l.row_stride / HEX_VLEN;
    const HVX_Vector scale = hvx_vec_splat_f32(c->kp->scale), vslope = hvx_vec_splat_f32(slope);
    HVX_Vector kmax = Q6_V_vsplat_R(SOFTMAX_NEG_INF_KEY), amax = Q6_V_vzero();
    if (c->mask && c->mask->type == HTP_TYPE_F16) {
        for (uint32_t i = 0; i < nvec; i += 2) {
            const HVX_VectorPair mf = hvx_vec_f16_to_f32(hvx_vmem_ld(m + i / 2));
            const HVX_Vector m0 = Q6_V_lo_W(mf), m1 = Q6_V_hi_W(mf);
            const HVX_Vector w0 =
                softmax_logits(hvx_vmem_ld(x + i), true, m0, scale, vslope, ne00 - i * HVX_F32_PER_VEC);
            hvx_vmem_st(y + i, w0);
            softmax_max_step(w0, &kmax, &amax);
            if (i + 1 < nvec) {
                const HVX_Vector w1 =
                    softmax_logits(hvx_vmem_ld(x + i + 1), true, m1, scale, vslope, ne00 - (i + 1) * HVX_F32_PER_VEC);
                hvx_vmem_st(y + i + 1, w1);
                softmax_max_step(w1, &kmax, &amax);
            }
        }
    } else {
        for (uint32_t i = 0; i < nvec; i++) {
            const HVX_Vector mv = m ? hvx_vmem_ld(m + i) : Q6_V_vzero();
            const HVX_Vector w =
                softmax_logits(hvx_vmem_ld(x + i), m != NULL, mv, scale, vslope, ne00 - i * HVX_F32_PER_VEC);
            hvx_vmem_st(y + i, w);
            softmax_max_step(w, &kmax, &amax);
        }
    }
    *has_nan = Q6_R_vextract_VR(hvx_vec_reduce_max_i32(amax), 0) > SOFTMAX_POS_INF;
    return hvx_vec_f32_order_key(hvx_vec_reduce_max_i32(kmax));
}

/* Rows r of the block: x at src, mask rows at mask (NULL without), results to dst. */
static HEX_NOINLINE void softmax_compute(const struct softmax_ctx *c, uint8_t *dst, const uint8_t *src,
                                         const uint8_t *mask, const struct softmax_block *b) {
    HVX_SCOPE();
    const uint32_t nvec = c->l.row_stride / HEX_VLEN;
    const HVX_Vector neg_inf = Q6_V_vsplat_R(SOFTMAX_NEG_INF);
    for (uint32_t r = 0; r < b->n; r++) {
        const float slope = htp_alibi_slope(&c->kp->alibi, b->ix.i2 + (c->kp->block_heads ? r : 0));
        HVX_Vector *restrict y = (HVX_Vector *) (dst + r * c->l.row_stride);
        const HVX_Vector *x = (const HVX_Vector *) (src + r * c->l.row_stride);
        const HVX_Vector *m = mask ? (const HVX_Vector *) (mask + r * c->l.mask_stride) : NULL;
        bool has_nan;
        const HVX_Vector vmax = softmax_row_logits(c, y, x, m, slope, &has_nan);
        const int32_t max_bits = Q6_R_vextract_VR(vmax, 0);
        if (max_bits == SOFTMAX_NEG_INF || max_bits == SOFTMAX_POS_INF || has_nan) {
            /* as the CPU: every logit -inf (or NaN) gives zeros; else a NaN, or a +inf (e^(inf - inf)), makes the
             * sum and so the whole row NaN */
            const HVX_Vector fill = max_bits == SOFTMAX_NEG_INF ? Q6_V_vzero() : Q6_V_vsplat_R(0x7FFFFFFF);
            for (uint32_t i = 0; i < nvec; i++) {
                hvx_vmem_st(y + i, fill);
            }
            continue;
        }
        HVX_Vector sum = Q6_V_vzero();
        for (uint32_t i = 0; i < nvec; i++) {
            const HVX_Vector w = hvx_vmem_ld(y + i);
            const HVX_Vector e =
                Q6_V_vmux_QVV(Q6_Q_vcmp_eq_VwVw(w, neg_inf), Q6_V_vzero(), hvx_vec_exp_f32(hvx_vec_sub_f32(w, vmax)));
            hvx_vmem_st(y + i, e);
            sum = hvx_vec_add_f32(sum, e);
        }
        const HVX_Vector inv = hvx_vec_recip_f32(hvx_vec_reduce_sum_f32(sum));
        for (uint32_t i = 0; i < nvec; i++) {
            hvx_vmem_st(y + i, hvx_vec_mul_f32(hvx_vmem_ld(y + i), inv));
        }
    }
}

static void softmax_prologue(struct softmax_thread *t, struct softmax_block blk[2]) {
    for (uint32_t h = 0; h < 2; h++) {
        dma_queue_push(t->q, dma_make_pair(t->c->dst->data, t->dst + h * t->c->kp->block * t->c->l.row_stride), 0, 0, 0,
                       0);
        blk[h] = softmax_next_block(t);
        softmax_push_src(t, h, &blk[h]);
    }
}

static void softmax_block_run(struct softmax_thread *t, struct softmax_block blk[2], uint32_t b) {
    const struct softmax_ctx *c = t->c;
    const uint32_t h = b & 1;
    uint8_t *vdst = (uint8_t *) dma_queue_pop(t->q).src; /* the half's previous write-back has landed */
    const uint8_t *vsrc = dma_queue_pop(t->q).dst;
    const uint8_t *vmask = c->mask ? dma_queue_pop(t->q).dst : NULL;
    if (!htp_op_skip_compute(c->octx)) {
        htp_trace_start(t->tr, HTP_TRACE_HVX_COMP, b);
        softmax_compute(c, vdst, vsrc, vmask, &blk[h]);
        htp_trace_stop(t->tr, HTP_TRACE_HVX_COMP, b);
    }
    const struct htp_row_index ix = blk[h].ix;
    dma_queue_push(t->q, dma_make_pair(htp_tensor_row(c->dst, ix.i1, ix.i2, ix.i3), vdst),
                   c->dst->nb[c->kp->block_heads ? 2 : 1], c->l.row_stride, c->dst->ne[0] * 4, blk[h].n);
    blk[h] = softmax_next_block(t);
    softmax_push_src(t, h, &blk[h]);
}

/* Two halves remain queued: a write-back, then an empty block's dummy reads. */
static void softmax_epilogue(struct softmax_thread *t) {
    for (uint32_t h = 0; h < 2; h++) {
        dma_queue_pop(t->q);
        dma_queue_pop(t->q);
        if (t->c->mask) {
            dma_queue_pop(t->q);
        }
    }
}

static void softmax_worker(unsigned nth, unsigned ith, void *arg) {
    const struct softmax_ctx *c = arg;
    struct htp_ctx *ctx = c->octx->ctx;
    uint32_t first, end;
    (void) nth;
    if (!htp_tensor_mdev_rows_thread(&c->rows, ith, &first, &end)) {
        return;
    }
    uint8_t *slice = ctx->vtcm + (size_t) ith * c->l.per_thread;
    struct softmax_thread t = {
        .c = c,
        .q = &ctx->dma[ith],
        .tr = &ctx->trace[ith],
        .src = slice + c->l.src,
        .mask = slice + c->l.mask,
        .dst = slice + c->l.dst,
        .next = first,
        .end = end,
    };
    struct softmax_block blk[2];
    softmax_prologue(&t, blk);
    for (uint32_t b = 0; blk[b & 1].n > 0; b++) {
        softmax_block_run(&t, blk, b);
    }
    softmax_epilogue(&t);
}

/* x and dst F32 of one shape, rows dense; the mask F16 or F32 with rows dense, ne0 = ne00, ne1 >= ne01, and
 * dims 2, 3 dividing x's. */
static bool softmax_shapes_ok(const struct htp_tensor *x, const struct htp_tensor *mask, const struct htp_tensor *d) {
    if (x->type != HTP_TYPE_F32 || d->type != HTP_TYPE_F32 || x->nb[0] != 4 || d->nb[0] != 4) {
        return false;
    }
    for (int i = 0; i < HTP_MAX_DIMS; i++) {
        if (x->ne[i] != d->ne[i]) {
            return false;
        }
    }
    if (mask) {
        const uint32_t size = mask->type == HTP_TYPE_F16 ? 2 : mask->type == HTP_TYPE_F32 ? 4 : 0;
        if (size == 0 || mask->nb[0] != size || mask->ne[0] != x->ne[0] || mask->ne[1] < x->ne[1] || mask->ne[2] == 0 ||
            mask->ne[3] == 0 || x->ne[2] % mask->ne[2] != 0 || x->ne[3] % mask->ne[3] != 0) {
            return false;
        }
    }
    return true;
}

uint32_t op_softmax(struct htp_op_ctx *octx) {
    struct htp_ctx *ctx = octx->ctx;
    const struct softmax_kparams *kp = htp_op_kparams(octx);
    struct softmax_ctx c = {.octx = octx, .kp = kp, .src = octx->src[0], .mask = octx->src[1], .dst = octx->dst[0]};
    if (kp->n_threads == 0 || kp->n_threads > ctx->n_threads || kp->block == 0 ||
        !softmax_shapes_ok(c.src, c.mask, c.dst)) {
        return HTP_STATUS_INVAL_PARAMS;
    }
    /* flat rows unravel into (i01, i02, i03), and their mask rows broadcast, by these: the rows' addresses rest on
     * them */
    const uint32_t ne01 = c.src->ne[1], ne02 = c.src->ne[2];
    if (!htp_op_fastdiv_ok(octx, &kp->div_ne01, ne01, "div_ne01", "ne01") ||
        !htp_op_fastdiv_ok(octx, &kp->div_ne0102, ne01 * ne02, "div_ne0102", "ne01 x ne02") ||
        !htp_op_fastdiv_ok(octx, &kp->div_mask_ne2, c.mask ? c.mask->ne[2] : 1, "div_mask_ne2",
                           "the mask's ne2 (1 without one)") ||
        !htp_op_fastdiv_ok(octx, &kp->div_mask_ne3, c.mask ? c.mask->ne[3] : 1, "div_mask_ne3",
                           "the mask's ne3 (1 without one)")) {
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
    c.l = softmax_layout(kp, c.src->ne[0], c.mask ? c.mask->nb[0] : 0);
    if (!htp_vtcm_fits(c.l.per_thread, kp->n_threads, ctx->vtcm_size)) {
        return HTP_STATUS_VTCM_TOO_SMALL;
    }
    return work_queue_run(&ctx->wq, softmax_worker, &c, kp->n_threads) == VDSP_FAULT_NONE ? HTP_STATUS_OK
                                                                                          : HTP_STATUS_FAULT;
}
