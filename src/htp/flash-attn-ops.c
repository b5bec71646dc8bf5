/*
 * FLASH_ATTN_EXT on HVX (flash-attn-ops.h). Each thread's query rows form query blocks (up to br rows reading
 * one K/V head: tokens of one head, or with n_q == 1 the heads of one GQA group), and each query block meets
 * the KV blocks (bc keys) in turn. A task is one (query block, KV block) pair; the tasks stream through two
 * VTCM halves:
 *
 *     DDR K, V, mask (and Q at a query block's first task) --DMA--> VTCM halves --HVX--> out rows --DMA--> DDR
 *
 *   prologue  per half: a dummy write-back, then the reads of tasks 0 and 1
 *   task t    pop the write-back of task t - 2 (real at a query block's last task, else a dummy), pop the
 *             reads of t (K, V, mask, Q or its dummy); compute; push this task's write-back (or a dummy);
 *             push the reads of task t + 2 into the same half
 *   epilogue  pop the two write-backs and the two empty tasks' dummy reads
 * Q and out rows use the halves of their query block's parity: the reads of query block qb's first task are
 * pushed after the task before the previous one, which belongs to qb - 1 or qb - 2, both done with that half.
 *
 * Compute, per query row of a task, in f32 throughout (F16 K and V are widened exactly):
 *  - scores of 32 keys per vector: each key's q . k as a vector of lane partial sums, folded pairwise by
 *    vdeal + add (a key's sums into the low lanes, its neighbour's into the high) as the keys arrive, five
 *    levels for 32 keys, so lane j of the result is key j's score;
 *  - scale, softcap (tanh), slope * mask; keys past n_kv and masked keys are -inf;
 *  - online softmax (Milakov and Gimelshein 2018): m' = max(m, max s), the row's sum and accumulator rescaled
 *    by e^(m - m'), p = e^(s - m') (exactly 0 for -inf), l' = l e^(m - m') + sum p;
 *  - O += p_j v_j over four output vectors at a time kept in registers, each p_j spread over a vector (a
 *    scalar read from the stack, then a splat).
 * A task whose keys the mask hides (-inf) from all its rows changes nothing and is not computed.
 * At a query block's last task out = O / l (zeros when l = 0). Against the CPU's double-precision reference
 * the NMSE stays below 1e-12 (at most 3.2e-13 over vnpu-test-ops' cases), far inside test-backend-ops' 5e-4.
 */
#include "flash-attn-ops.h"

#include "dma-queue.h"
#include "htp-ctx.h"
#include "htp-tensor.h"
#include "hvx-convert.h"
#include "hvx-f16-vec.h"
#include "hvx-f32-math.h"

#include <stdbool.h>

#define FA_NEG_INF ((int32_t) 0xFF800000) /* -inf as f32 bits */
#define FA_M_INIT  (-1e30f)               /* a row's maximum before any key: finite, so m - m' never is NaN */
#define FA_PV_VECS 4                      /* output vectors accumulated together (in registers) over the keys */

struct fa_ctx {
    struct htp_op_ctx *octx;
    const struct flash_attn_kparams *kp;
    const struct htp_tensor *q, *k, *v, *mask, *dst; /* mask NULL when absent */
    struct flash_attn_layout l;
    uint32_t d, dv, n_kv;             /* head sizes, keys */
    uint32_t gqa;                     /* query heads per K/V head */
    struct htp_tensor_mdev_rows rows; /* this device's query rows, and each worker's */
};

/* One (query block, KV block) pair. */
struct fa_task {
    uint32_t ir;             /* the query block's first row (flat); n = 0 for no task */
    uint32_t n;              /* its rows */
    struct htp_row_index ix; /* (iq1, iq2, iq3) of its first row */
    uint32_t qb;             /* the thread's query block count: Q and out use half qb & 1 */
    uint32_t kb;             /* the KV block */
    uint32_t nk;             /* its keys */
};

/* One thread's view of the op. */
struct fa_thread {
    const struct fa_ctx *c;
    struct dma_queue *q;
    struct htp_trace *tr;
    uint8_t *slice;
    struct fa_task cur; /* the task iterator: the last task scheduled */
    uint32_t end;       /* one past the thread's last query row */
    HVX_Vector *p;      /* a row's scores, then probabilities: HTP_FA_MAX_BC lanes on the stack, read by the scalar
                           core through hvx_lane_get_f32 */
};

static uint8_t *fa_at(const struct fa_thread *t, uint32_t off) {
    return t->slice + off;
}

/* The task after t->cur; with first, the thread's first task (t->cur.ir is its first row). */
static struct fa_task fa_next_task(struct fa_thread *t, bool first) {
    const struct fa_ctx *c = t->c;
    const struct flash_attn_kparams *kp = c->kp;
    struct fa_task n = t->cur;
    if (!first && n.n > 0 && n.kb + 1 < kp->n_kv_blocks) {
        n.kb++;
    } else {
        const uint32_t ir = first ? n.ir : n.ir + n.n;
        n.qb = first ? 0 : n.qb + (n.n > 0);
        n.kb = 0;
        n.ir = ir;
        n.n = ir < t->end ? HEX_MIN(kp->br, t->end - ir) : 0;
        if (n.n > 0) {
            n.ix = htp_row_unravel(ir, c->q->ne[1], c->q->ne[2], &kp->div_nq, &kp->div_nq_nh);
            if (kp->block_heads) { /* the heads of one GQA group, and of one mask slice when it has several */
                n.n = HEX_MIN(n.n, c->gqa - fastmodulo(n.ix.i2, c->gqa, &kp->div_gqa));
                if (c->mask && c->mask->ne[2] > 1) {
                    n.n = HEX_MIN(n.n, c->mask->ne[2] - fastmodulo(n.ix.i2, c->mask->ne[2], &kp->div_mask_ne2));
                }
            } else {
                n.n = HEX_MIN(n.n, c->q->ne[1] - n.ix.i1);
            }
        }
    }
    n.nk = HEX_MIN(kp->bc, c->n_kv - n.kb * kp->bc);
    t->cur = n;
    return n;
}

/* Push the reads of task k into half h: K, V, mask rows, then Q (at a query block's first task) or a dummy. */
static void fa_push_reads(struct fa_thread *t, uint32_t h, const struct fa_task *k) {
    const struct fa_ctx *c = t->c;
    const struct flash_attn_kparams *kp = c->kp;
    const struct flash_attn_layout *l = &c->l;
    uint8_t *vk = fa_at(t, l->k) + h * kp->bc * l->k_stride, *vv = fa_at(t, l->v) + h * kp->bc * l->v_stride;
    uint8_t *vm = fa_at(t, l->mask) + h * kp->br * l->mask_stride;
    uint8_t *vq = fa_at(t, l->q) + (k->qb & 1) * kp->br * l->q_stride;
    if (k->n == 0) {
        dma_queue_push(t->q, dma_make_pair(vk, c->k->data), 0, 0, 0, 0);
        dma_queue_push(t->q, dma_make_pair(vv, c->v->data), 0, 0, 0, 0);
        if (c->mask) {
            dma_queue_push(t->q, dma_make_pair(vm, c->mask->data), 0, 0, 0, 0);
        }
        dma_queue_push(t->q, dma_make_pair(vq, c->q->data), 0, 0, 0, 0);
        return;
    }
    const uint32_t ikv = fastdiv(k->ix.i2, &kp->div_gqa), key0 = k->kb * kp->bc;
    dma_queue_push(t->q, dma_make_pair(vk, htp_tensor_row(c->k, key0, ikv, k->ix.i3)), l->k_stride, c->k->nb[1],
                   c->d * c->k->nb[0], k->nk);
    dma_queue_push(t->q, dma_make_pair(vv, htp_tensor_row(c->v, key0, ikv, k->ix.i3)), l->v_stride, c->v->nb[1],
                   c->dv * c->v->nb[0], k->nk);
    if (c->mask) {
        const struct htp_tensor *m = c->mask;
        const uint32_t i2 = fastmodulo(k->ix.i2, m->ne[2], &kp->div_mask_ne2);
        const uint32_t i3 = fastmodulo(k->ix.i3, m->ne[3], &kp->div_mask_ne3);
        const uint32_t stride = !kp->block_heads ? m->nb[1] : m->ne[2] > 1 ? m->nb[2] : 0;
        dma_queue_push(t->q, dma_make_pair(vm, htp_tensor_row(m, k->ix.i1, i2, i3) + (uintptr_t) key0 * m->nb[0]),
                       l->mask_stride, stride, k->nk * m->nb[0], k->n);
    }
    if (k->kb == 0) {
        const uint32_t stride = kp->block_heads ? c->q->nb[2] : c->q->nb[1];
        dma_queue_push(t->q, dma_make_pair(vq, htp_tensor_row(c->q, k->ix.i1, k->ix.i2, k->ix.i3)), l->q_stride, stride,
                       c->d * 4, k->n);
    } else {
        dma_queue_push(t->q, dma_make_pair(vq, c->q->data), 0, 0, 0, 0);
    }
}

/* a and b: partial sums of two keys (32 lanes each) -> one vector, a's pairs of lanes summed into the low 16
 * lanes, b's into the high 16, each half in lane order. Applied five times this folds 32 keys' partial sums
 * into one vector holding key j's total in lane j. */
static inline HVX_Vector fa_fold(HVX_Vector a, HVX_Vector b) {
    const HVX_VectorPair d = Q6_W_vdeal_VVR(b, a, -4);
    return hvx_vec_add_f32(Q6_V_lo_W(d), Q6_V_hi_W(d));
}

/* The keys' dot products folded by a fixed tree: fa_keys<L>(j) holds keys j..j + 2^L - 1 (their partial sums, folded
 * L times), built depth first from two fa_keys<L-1>, so at most one vector per level is live and none is kept in
 * memory (a binary counter over the keys needs its open levels in an indexed array, on the stack). Keys from n on
 * are zeros, and a subtree that starts past n is one. */
struct fa_keys {
    const HVX_Vector *q;
    const uint8_t *k;
    uint32_t k_stride, dvec, n;
};

static inline __attribute__((always_inline)) HVX_Vector fa_keys0(const struct fa_keys *a, uint32_t j) {
    if (j >= a->n) {
        return Q6_V_vzero();
    }
    const HVX_Vector *restrict kr = (const HVX_Vector *) (a->k + j * a->k_stride);
    HVX_Vector v = hvx_vec_mul_f32(hvx_vmem_ld(a->q), hvx_vmem_ld(kr));
    for (uint32_t i = 1; i < a->dvec; i++) {
        v = hvx_vec_add_f32(v, hvx_vec_mul_f32(hvx_vmem_ld(a->q + i), hvx_vmem_ld(kr + i)));
    }
    return v;
}

#define FA_KEYS_LEVEL(L, LOWER)                                                                               \
    static inline __attribute__((always_inline)) HVX_Vector fa_keys##L(const struct fa_keys *a, uint32_t j) { \
        if (j >= a->n) {                                                                                      \
            return Q6_V_vzero();                                                                              \
        }                                                                                                     \
        const HVX_Vector lo = fa_keys##LOWER(a, j);                                                           \
        return fa_fold(lo, fa_keys##LOWER(a, j + (1u << ((L) -1))));                                          \
    }
FA_KEYS_LEVEL(1, 0)
FA_KEYS_LEVEL(2, 1)
FA_KEYS_LEVEL(3, 2)
FA_KEYS_LEVEL(4, 3)
FA_KEYS_LEVEL(5, 4)

/* q . k_j for keys j = 0..n-1 of k (rows k_stride apart; 1 <= n <= 32) in lane j, 0 in the lanes from n on. */
static HVX_Vector fa_scores32(const HVX_Vector *restrict q, const uint8_t *k, uint32_t k_stride, uint32_t dvec,
                              uint32_t n) {
    const struct fa_keys a = {q, k, k_stride, dvec, n};
    return fa_keys5(&a, 0);
}

/* Rows of n elements, row_stride apart: lanes from n on set to 0 in each row's last vector (junk otherwise, NaN
 * under strict DMA, which would leak through 0 * NaN into the dot products). */
static void fa_zero_tails(uint8_t *rows, uint32_t n_rows, uint32_t row_stride, uint32_t n) {
    const uint32_t tail = n % HVX_F32_PER_VEC, last = n / HVX_F32_PER_VEC;
    for (uint32_t r = 0; tail != 0 && r < n_rows; r++) {
        HVX_Vector *v = (HVX_Vector *) (rows + r * row_stride) + last;
        hvx_vmem_st(v, hvx_vec_keep_f32(hvx_vmem_ld(v), tail));
    }
}

/* K and V of task k as f32 rows (kf_stride, vf_stride apart): F16 widened into k_f32 / v_f32, F32 used where
 * DMA put them; K's padding lanes zeroed. */
static void fa_widen_kv(const struct fa_thread *t, const struct fa_task *k, const uint8_t *vk, const uint8_t *vv,
                        const uint8_t **kf, const uint8_t **vf) {
    const struct fa_ctx *c = t->c;
    const struct flash_attn_layout *l = &c->l;
    *kf = vk;
    *vf = vv;
    if (c->k->type == HTP_TYPE_F16) {
        uint8_t *dst = fa_at(t, l->k_f32);
        for (uint32_t j = 0; j < k->nk; j++) {
            hvx_f16_to_f32_aa(dst + j * l->kf_stride, vk + j * l->k_stride, c->d);
        }
        *kf = dst;
    }
    fa_zero_tails((uint8_t *) *kf, k->nk, l->kf_stride, c->d);
    if (c->v->type == HTP_TYPE_F16) {
        uint8_t *dst = fa_at(t, l->v_f32);
        for (uint32_t j = 0; j < k->nk; j++) {
            hvx_f16_to_f32_aa(dst + j * l->vf_stride, vv + j * l->v_stride, c->dv);
        }
        *vf = dst;
    }
}

/* Mask vector c (keys 32c..32c+31) of a mask row in VTCM, as f32. */
static inline HVX_Vector fa_mask32(const struct fa_ctx *c, const uint8_t *row, uint32_t chunk) {
    if (c->mask->type == HTP_TYPE_F16) {
        const HVX_VectorPair f = hvx_vec_f16_to_f32(hvx_vmem_ld(row + chunk / 2 * HEX_VLEN));
        return chunk % 2 ? Q6_V_hi_W(f) : Q6_V_lo_W(f);
    }
    return hvx_vmem_ld(row + chunk * HEX_VLEN);
}

/* O[i0 .. i0 + nv) = O corr + sum_j p_j v_j[i0 .. i0 + nv) (nv a constant where it is inlined: 1 or FA_PV_VECS). */
static inline __attribute__((always_inline)) void fa_pv_group(const struct fa_thread *t, const struct fa_task *k,
                                                              const uint8_t *vf, HVX_Vector corr, HVX_Vector *o,
                                                              uint32_t i0, uint32_t nv) {
    const uint32_t vf_stride = t->c->l.vf_stride;
    HVX_Vector acc[FA_PV_VECS];
    for (uint32_t u = 0; u < nv; u++) {
        acc[u] = hvx_vec_mul_f32(hvx_vmem_ld(o + u), corr);
    }
    for (uint32_t j = 0; j < k->nk; j++) {
        const HVX_Vector pj = hvx_vec_splat_f32(hvx_lane_get_f32(t->p, j));
        const HVX_Vector *vr = (const HVX_Vector *) (vf + j * vf_stride) + i0;
        for (uint32_t u = 0; u < nv; u++) {
            acc[u] = hvx_vec_add_f32(acc[u], hvx_vec_mul_f32(pj, hvx_vmem_ld(vr + u)));
        }
    }
    for (uint32_t u = 0; u < nv; u++) {
        hvx_vmem_st(o + u, acc[u]);
    }
}

/* One query row against the task's keys: scores, online softmax update of m, l, o. */
static HEX_NOINLINE void fa_compute_row(struct fa_thread *t, const struct fa_task *k, const HVX_Vector *q,
                                        const uint8_t *kf, const uint8_t *vf, const uint8_t *mrow, float slope,
                                        HVX_Vector *m, HVX_Vector *l, HVX_Vector *o) {
    HVX_SCOPE();
    const struct fa_ctx *c = t->c;
    const struct flash_attn_kparams *kp = c->kp;
    const struct flash_attn_layout *lay = &c->l;
    const uint32_t nchunk = (k->nk + HVX_F32_PER_VEC - 1) / HVX_F32_PER_VEC;
    const HVX_Vector neg_inf = Q6_V_vsplat_R(FA_NEG_INF), scale = hvx_vec_splat_f32(kp->scale);
    HVX_Vector kmax = hvx_vec_f32_order_key(neg_inf); /* order keys: hvx-f32-math.h */
    for (uint32_t ch = 0; ch < nchunk; ch++) {
        const uint32_t j0 = ch * HVX_F32_PER_VEC, n = HEX_MIN(HVX_F32_PER_VEC, k->nk - j0);
        HVX_Vector s = hvx_vec_mul_f32(
            fa_scores32(q, kf + j0 * lay->kf_stride, lay->kf_stride, lay->q_stride / HEX_VLEN, n), scale);
        if (kp->softcap != 0.0f) {
            s = hvx_vec_mul_f32(hvx_vec_tanh_f32(s), hvx_vec_splat_f32(kp->softcap));
        }
        if (mrow) {
            s = hvx_vec_add_f32(s, hvx_vec_mul_f32(fa_mask32(c, mrow, ch), hvx_vec_splat_f32(slope)));
        }
        if (n < HVX_F32_PER_VEC) {
            s = Q6_V_vmux_QVV(Q6_Q_vsetq_R((int32_t) (n * 4)), s, neg_inf);
        }
        hvx_vmem_st(t->p + ch, s);
        kmax = Q6_Vw_vmax_VwVw(kmax, hvx_vec_f32_order_key(s));
    }
    const HVX_Vector m_old = hvx_vmem_ld(m);
    const HVX_Vector m_new = hvx_vec_max_f32(m_old, hvx_vec_f32_order_key(hvx_vec_reduce_max_i32(kmax)));
    const HVX_Vector corr = hvx_vec_exp_f32(hvx_vec_sub_f32(m_old, m_new));
    HVX_Vector sum = Q6_V_vzero();
    for (uint32_t ch = 0; ch < nchunk; ch++) {
        const HVX_Vector s = hvx_vmem_ld(t->p + ch);
        const HVX_Vector e =
            Q6_V_vmux_QVV(Q6_Q_vcmp_eq_VwVw(s, neg_inf), Q6_V_vzero(), hvx_vec_exp_f32(hvx_vec_sub_f32(s, m_new)));
        hvx_vmem_st(t->p + ch, e);
        sum = hvx_vec_add_f32(sum, e);
    }
    hvx_vmem_st(m, m_new);
    hvx_vmem_st(l, hvx_vec_add_f32(hvx_vec_mul_f32(hvx_vmem_ld(l), corr), hvx_vec_reduce_sum_f32(sum)));

    /* O = O corr + sum_j p_j v_j, FA_PV_VECS output vectors at a time held in registers over the keys (a group of
     * constant size, so the accumulators stay registers), then the vectors left one at a time */
    const uint32_t ovec = lay->o_stride / HEX_VLEN;
    uint32_t i0 = 0;
    for (; i0 + FA_PV_VECS <= ovec; i0 += FA_PV_VECS) {
        fa_pv_group(t, k, vf, corr, o + i0, i0, FA_PV_VECS);
    }
    for (; i0 < ovec; i0++) {
        fa_pv_group(t, k, vf, corr, o + i0, i0, 1);
    }
}

/* Whether every key of task k is masked (-inf) in every row's mask (vm: the rows in VTCM, NULL without a mask): the
 * task then leaves each row's m, l and O as they are (every score is -inf, so m' = m, the rescale is 1 and every p is
 * 0) and its compute is skipped, as ggml's CPU flash attention skips masked keys. llama.cpp's KV cache comes in
 * multiples of 256 cells, and the mask hides those past the used ones: at decode most KV blocks are all -inf. */
static bool fa_task_masked(const struct fa_ctx *c, const struct fa_task *k, const uint8_t *vm) {
    if (!vm) {
        return false;
    }
    const bool f16 = c->mask->type == HTP_TYPE_F16;
    for (uint32_t r = 0; r < k->n; r++) {
        const uint8_t *row = vm + r * c->l.mask_stride;
        for (uint32_t j = 0; j < k->nk; j++) {
            if (f16 ? ((const uint16_t *) row)[j] != 0xFC00 : ((const uint32_t *) row)[j] != (uint32_t) FA_NEG_INF) {
                return false;
            }
        }
    }
    return true;
}

/* Task k's compute: the first task of a query block resets its state, the last writes out = O / l; a task whose
 * keys are all masked computes nothing else (fa_task_masked). */
static HEX_NOINLINE void fa_compute(struct fa_thread *t, const struct fa_task *k, uint8_t *out, uint8_t *vq,
                                    const uint8_t *vk, const uint8_t *vv, const uint8_t *vm) {
    HVX_SCOPE();
    const struct fa_ctx *c = t->c;
    const struct flash_attn_kparams *kp = c->kp;
    const struct flash_attn_layout *l = &c->l;
    HVX_Vector *m = (HVX_Vector *) fa_at(t, l->m), *sum = (HVX_Vector *) fa_at(t, l->l);
    uint8_t *o = fa_at(t, l->o);
    const uint32_t ovec = l->o_stride / HEX_VLEN;
    if (k->kb == 0) {
        fa_zero_tails(vq, k->n, l->q_stride, c->d);
        for (uint32_t r = 0; r < k->n; r++) {
            hvx_vmem_st(m + r, hvx_vec_splat_f32(FA_M_INIT));
            hvx_vmem_st(sum + r, Q6_V_vzero());
            for (uint32_t i = 0; i < ovec; i++) {
                hvx_vmem_st((HVX_Vector *) (o + r * l->o_stride) + i, Q6_V_vzero());
            }
        }
    }
    if (!fa_task_masked(c, k, vm)) {
        const uint8_t *kf, *vf;
        fa_widen_kv(t, k, vk, vv, &kf, &vf);
        for (uint32_t r = 0; r < k->n; r++) {
            const uint32_t head = kp->block_heads ? k->ix.i2 + r : k->ix.i2;
            fa_compute_row(t, k, (const HVX_Vector *) (vq + r * l->q_stride), kf, vf,
                           vm ? vm + r * l->mask_stride : NULL, htp_alibi_slope(&kp->alibi, head), m + r, sum + r,
                           (HVX_Vector *) (o + r * l->o_stride));
        }
    }
    if (k->kb + 1 == kp->n_kv_blocks) {
        for (uint32_t r = 0; r < k->n; r++) {
            const HVX_Vector lr = hvx_vmem_ld(sum + r);
            const HVX_Vector inv = Q6_R_vextract_VR(lr, 0) == 0 ? Q6_V_vzero() : hvx_vec_recip_f32(lr);
            for (uint32_t i = 0; i < ovec; i++) {
                const HVX_Vector *src = (const HVX_Vector *) (o + r * l->o_stride) + i;
                hvx_vmem_st((HVX_Vector *) (out + r * l->o_stride) + i, hvx_vec_mul_f32(hvx_vmem_ld(src), inv));
            }
        }
    }
}

static void fa_prologue(struct fa_thread *t, struct fa_task task[2]) {
    const struct fa_ctx *c = t->c;
    for (uint32_t h = 0; h < 2; h++) {
        dma_queue_push(t->q, dma_make_pair(c->dst->data, fa_at(t, c->l.out)), 0, 0, 0, 0);
        task[h] = fa_next_task(t, h == 0);
        fa_push_reads(t, h, &task[h]);
    }
}

static void fa_task_run(struct fa_thread *t, struct fa_task task[2], uint32_t i) {
    const struct fa_ctx *c = t->c;
    const struct flash_attn_kparams *kp = c->kp;
    const struct fa_task *k = &task[i & 1];
    dma_queue_pop(t->q); /* the write-back of task i - 2 */
    const uint8_t *vk = dma_queue_pop(t->q).dst, *vv = dma_queue_pop(t->q).dst;
    const uint8_t *vm = c->mask ? dma_queue_pop(t->q).dst : NULL;
    dma_queue_pop(t->q); /* Q, or its dummy: Q is in half qb & 1 either way */
    uint8_t *vq = fa_at(t, c->l.q) + (k->qb & 1) * kp->br * c->l.q_stride;
    uint8_t *out = fa_at(t, c->l.out) + (k->qb & 1) * kp->br * c->l.o_stride;
    if (!htp_op_skip_compute(c->octx)) {
        htp_trace_start(t->tr, HTP_TRACE_HVX_COMP, i);
        fa_compute(t, k, out, vq, vk, vv, vm);
        htp_trace_stop(t->tr, HTP_TRACE_HVX_COMP, i);
    }
    if (k->kb + 1 == kp->n_kv_blocks) {
        const uint32_t stride = kp->block_heads ? c->dst->nb[1] : c->dst->nb[2];
        dma_queue_push(t->q, dma_make_pair(htp_tensor_row(c->dst, k->ix.i2, k->ix.i1, k->ix.i3), out), stride,
                       c->l.o_stride, c->dv * 4, k->n);
    } else {
        dma_queue_push(t->q, dma_make_pair(c->dst->data, out), 0, 0, 0, 0);
    }
    task[i & 1] = fa_next_task(t, false);
    fa_push_reads(t, i & 1, &task[i & 1]);
}

/* Two halves remain queued: a write-back, then an empty task's dummy reads. */
static void fa_epilogue(struct fa_thread *t) {
    for (uint32_t h = 0; h < 2; h++) {
        for (uint32_t j = 0; j < (t->c->mask ? 5u : 4u); j++) {
            dma_queue_pop(t->q);
        }
    }
}

static void fa_worker(unsigned nth, unsigned ith, void *arg) {
    const struct fa_ctx *c = arg;
    struct htp_ctx *ctx = c->octx->ctx;
    uint32_t first, end;
    (void) nth;
    if (!htp_tensor_mdev_rows_thread(&c->rows, ith, &first, &end)) {
        return;
    }
    HVX_Vector p[HTP_FA_MAX_BC / HVX_F32_PER_VEC];
    struct fa_thread t = {
        .c = c,
        .q = &ctx->dma[ith],
        .tr = &ctx->trace[ith],
        .slice = ctx->vtcm + (size_t) ith * c->l.per_thread,
        .cur = {.ir = first},
        .end = end,
        .p = p,
    };
    struct fa_task task[2];
    fa_prologue(&t, task);
    for (uint32_t i = 0; task[i & 1].n > 0; i++) {
        fa_task_run(&t, task, i);
    }
    fa_epilogue(&t);
}

static uint32_t fa_type_size(uint32_t type) {
    return type == HTP_TYPE_F16 ? 2 : type == HTP_TYPE_F32 ? 4 : 0;
}

/* Q and dst F32, K and V F16 or F32, the mask F16 or F32, all with dense rows; shapes as the header says. */
static bool fa_shapes_ok(const struct fa_ctx *c) {
    const struct htp_tensor *q = c->q, *k = c->k, *v = c->v, *m = c->mask, *d = c->dst;
    const uint32_t ks = fa_type_size(k->type), vs = fa_type_size(v->type);
    if (q->type != HTP_TYPE_F32 || q->nb[0] != 4 || d->type != HTP_TYPE_F32 || d->nb[0] != 4 || ks == 0 ||
        k->nb[0] != ks || vs == 0 || v->nb[0] != vs || k->ne[0] != q->ne[0] || v->ne[1] != k->ne[1] || k->ne[1] == 0 ||
        k->ne[2] == 0 || v->ne[2] != k->ne[2] || q->ne[2] % k->ne[2] != 0 || k->ne[3] != q->ne[3] ||
        v->ne[3] != q->ne[3] || d->ne[0] != v->ne[0] || d->ne[1] != q->ne[2] || d->ne[2] != q->ne[1] ||
        d->ne[3] != q->ne[3]) {
        return false;
    }
    if (m) {
        const uint32_t ms = fa_type_size(m->type);
        if (ms == 0 || m->nb[0] != ms || m->ne[0] != k->ne[1] || m->ne[1] < q->ne[1] || m->ne[2] == 0 ||
            m->ne[3] == 0 || q->ne[2] % m->ne[2] != 0 || q->ne[3] % m->ne[3] != 0) {
            return false;
        }
    }
    return true;
}

/* The kernel_params' fastdiv values are those of the shapes they divide by (htp_op_fastdiv_ok, whose message names
 * the first that is not): n_q, n_q * n_head, the GQA ratio, the mask's ne2 and ne3 (1 and 1 without a mask). After
 * fa_shapes_ok (the GQA ratio is whole). */
static bool fa_fastdiv_ok(const struct fa_ctx *c) {
    const struct flash_attn_kparams *kp = c->kp;
    const struct htp_tensor *q = c->q, *m = c->mask;
    return htp_op_fastdiv_ok(c->octx, &kp->div_nq, q->ne[1], "div_nq", "ne1") &&
           htp_op_fastdiv_ok(c->octx, &kp->div_nq_nh, q->ne[1] * q->ne[2], "div_nq_nh", "ne1 x ne2") &&
           htp_op_fastdiv_ok(c->octx, &kp->div_gqa, q->ne[2] / c->k->ne[2], "div_gqa", "the GQA ratio q ne2 / k ne2") &&
           htp_op_fastdiv_ok(c->octx, &kp->div_mask_ne2, m ? m->ne[2] : 1, "div_mask_ne2",
                             "the mask's ne2 (1 without one)") &&
           htp_op_fastdiv_ok(c->octx, &kp->div_mask_ne3, m ? m->ne[3] : 1, "div_mask_ne3",
                             "the mask's ne3 (1 without one)");
}

uint32_t op_flash_attn(struct htp_op_ctx *octx) {
    struct htp_ctx *ctx = octx->ctx;
    const struct flash_attn_kparams *kp = htp_op_kparams(octx);
    struct fa_ctx c = {.octx = octx,
                       .kp = kp,
                       .q = octx->src[0],
                       .k = octx->src[1],
                       .v = octx->src[2],
                       .mask = octx->src[3],
                       .dst = octx->dst[0]};
    if (kp->n_threads == 0 || kp->n_threads > ctx->n_threads || kp->br == 0 || kp->bc == 0 ||
        kp->bc % HVX_F32_PER_VEC != 0 || kp->bc > HTP_FA_MAX_BC || !fa_shapes_ok(&c) || !fa_fastdiv_ok(&c) ||
        (uint64_t) kp->n_kv_blocks * kp->bc < c.k->ne[1] || (uint64_t) (kp->n_kv_blocks - 1) * kp->bc >= c.k->ne[1]) {
        return HTP_STATUS_INVAL_PARAMS;
    }
    c.d = c.q->ne[0];
    c.dv = c.v->ne[0];
    c.n_kv = c.k->ne[1];
    c.gqa = c.q->ne[2] / c.k->ne[2];
    /* Results reach DDR only by DMA, which the 128-byte line rule does not constrain: any split of the query rows
     * is safe. Query row (i1, i2) is dst row (i2, i1) (dst is [dv, n_head, n_q]), so runs of query rows are not runs
     * of dst rows and no row count makes the chunks line-clean. */
    if (!htp_mdev_rows(ctx, htp_tensor_nrows(c.q), 1, kp->rows_per_thread, kp->n_threads, &c.rows)) {
        return HTP_STATUS_INVAL_PARAMS;
    }
    if (c.rows.count == 0) {
        return HTP_STATUS_OK;
    }
    c.l = flash_attn_layout(kp, c.d, c.dv, c.k->nb[0], c.v->nb[0], c.mask ? c.mask->nb[0] : 0);
    if (!htp_vtcm_fits(c.l.per_thread, kp->n_threads, ctx->vtcm_size)) {
        return HTP_STATUS_VTCM_TOO_SMALL;
    }
    return work_queue_run(&ctx->wq, fa_worker, &c, kp->n_threads) == VDSP_FAULT_NONE ? HTP_STATUS_OK : HTP_STATUS_FAULT;
}
