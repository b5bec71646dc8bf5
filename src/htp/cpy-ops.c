/*
 * CPY and CONT (cpy-ops.h) on the copy stream. A task's elements are one DMA row when they are dense on that
 * side (nb0 is the element size) and one DMA row per element otherwise (a transposed view): the DMA engine
 * gathers and scatters, VTCM always holds the task's elements packed. A same-type copy is DMA only; F32 <-> F16
 * is converted in VTCM by HVX (hvx-convert.h).
 */
#include "cpy-ops.h"

#include "dma-queue.h"
#include "htp-ctx.h"
#include "htp-tensor.h"
#include "hvx-convert.h"

/* What the callbacks need beyond the stream. */
struct cpy_ctx {
    const struct htp_tensor *src, *dst;
    const struct htp_tensor *walked; /* the tensor whose rows are the tasks (CPY_MODE_FLAT: one row of them all) */
    uint32_t mode;                   /* enum cpy_mode */
    uint32_t src_size, dst_size;     /* bytes per element */
};

/* Element i0 of the task's row as a flat row-major index of the walked tensor. */
static uint64_t cpy_flat(const struct cpy_ctx *c, const struct copy_task *t) {
    const struct htp_tensor *w = c->walked;
    if (c->mode == CPY_MODE_FLAT) {
        return t->i0;
    }
    return (((uint64_t) t->i3 * w->ne[2] + t->i2) * w->ne[1] + t->i1) * w->ne[0] + t->i0;
}

/* The task's n elements at p, el bytes each, stride bytes apart in DDR, to or from VTCM slot. */
static void cpy_push(struct dma_queue *q, uint8_t *ddr, uint8_t *slot, uint32_t stride, uint32_t el, uint32_t n,
                     bool to_ddr) {
    const dma_pair pair = to_ddr ? dma_make_pair(ddr, slot) : dma_make_pair(slot, ddr);
    if (stride == el) {
        dma_queue_push(q, pair, 0, 0, (size_t) n * el, 1);
    } else {
        dma_queue_push(q, pair, to_ddr ? stride : el, to_ddr ? el : stride, el, n);
    }
}

static bool cpy_push_reads(const struct copy_stream *s, struct dma_queue *q, struct copy_task *t, uint8_t *slot) {
    const struct cpy_ctx *c = s->params;
    const struct htp_tensor *src = c->src;
    uint8_t *p;
    uint32_t stride = src->nb[0];
    if (c->mode == CPY_MODE_SRC_FLAT || c->mode == CPY_MODE_FLAT) {
        p = src->data + cpy_flat(c, t) * c->src_size;
        stride = c->src_size;
    } else {
        p = htp_tensor_row(src, t->i1, t->i2, t->i3) + (uintptr_t) t->i0 * src->nb[0];
    }
    cpy_push(q, p, slot, stride, c->src_size, t->n, false);
    return true;
}

static void cpy_push_write(const struct copy_stream *s, struct dma_queue *q, const struct copy_task *t,
                           const uint8_t *slot) {
    const struct cpy_ctx *c = s->params;
    const struct htp_tensor *dst = c->dst;
    uint8_t *p;
    uint32_t stride = dst->nb[0];
    if (c->mode == CPY_MODE_DST_FLAT || c->mode == CPY_MODE_FLAT) {
        p = dst->data + cpy_flat(c, t) * c->dst_size;
        stride = c->dst_size;
    } else {
        p = htp_tensor_row(dst, t->i1, t->i2, t->i3) + (uintptr_t) t->i0 * dst->nb[0];
    }
    cpy_push(q, p, (uint8_t *) slot, stride, c->dst_size, t->n, true);
}

static void cpy_compute_f32_f16(const struct copy_stream *s, const struct copy_task *t, const uint8_t *in, uint8_t *out,
                                uint8_t *scratch) {
    HVX_SCOPE();
    (void) s, (void) scratch;
    hvx_f32_to_f16_aa(out, in, t->n);
}

static void cpy_compute_f16_f32(const struct copy_stream *s, const struct copy_task *t, const uint8_t *in, uint8_t *out,
                                uint8_t *scratch) {
    HVX_SCOPE();
    (void) s, (void) scratch;
    hvx_f16_to_f32_aa(out, in, t->n);
}

static const struct copy_ops cpy_ops_same = {cpy_push_reads, NULL, NULL, cpy_push_write};
static const struct copy_ops cpy_ops_f32_f16 = {cpy_push_reads, NULL, cpy_compute_f32_f16, cpy_push_write};
static const struct copy_ops cpy_ops_f16_f32 = {cpy_push_reads, NULL, cpy_compute_f16_f32, cpy_push_write};

/* Dense in row-major order, as the host's vnpu_is_contiguous (ggml_is_contiguous): the stride of a dimension of
 * size 1 never matters. */
static bool cpy_is_dense(const struct htp_tensor *t, uint32_t el) {
    uint64_t next = el;
    for (int i = 0; i < HTP_MAX_DIMS; i++) {
        if (t->ne[i] != 1 && t->nb[i] != next) {
            return false;
        }
        next *= t->ne[i];
    }
    return true;
}

static bool cpy_type_ok(uint32_t type) {
    return type == HTP_TYPE_F32 || type == HTP_TYPE_F16;
}

uint32_t op_cpy(struct htp_op_ctx *octx) {
    const struct cpy_kparams *kp = htp_op_kparams(octx);
    const struct htp_tensor *src = octx->src[0], *dst = octx->dst[0];
    if (!cpy_type_ok(src->type) || !cpy_type_ok(dst->type)) {
        return HTP_STATUS_NO_SUPPORT;
    }
    const uint32_t src_size = src->type == HTP_TYPE_F32 ? 4 : 2, dst_size = dst->type == HTP_TYPE_F32 ? 4 : 2;
    bool same_shape = true;
    for (int i = 0; i < HTP_MAX_DIMS; i++) {
        same_shape = same_shape && src->ne[i] == dst->ne[i];
    }
    const uint64_t n = (uint64_t) htp_tensor_nrows(src) * src->ne[0];
    const bool src_flat = cpy_is_dense(src, src_size), dst_flat = cpy_is_dense(dst, dst_size);
    const bool ok = kp->mode == CPY_MODE_SAME_SHAPE ? same_shape
                    : kp->mode == CPY_MODE_SRC_FLAT ? src_flat
                    : kp->mode == CPY_MODE_DST_FLAT ? dst_flat
                    : kp->mode == CPY_MODE_FLAT     ? src_flat && dst_flat && n <= UINT32_MAX
                                                    : false;
    if (!ok || n != (uint64_t) htp_tensor_nrows(dst) * dst->ne[0]) {
        return HTP_STATUS_INVAL_PARAMS;
    }
    struct cpy_ctx c = {
        .src = src,
        .dst = dst,
        .walked = kp->mode == CPY_MODE_DST_FLAT ? src : dst,
        .mode = kp->mode,
        .src_size = src_size,
        .dst_size = dst_size,
    };
    const struct copy_ops *ops = src->type == dst->type      ? &cpy_ops_same
                                 : src->type == HTP_TYPE_F32 ? &cpy_ops_f32_f16
                                                             : &cpy_ops_f16_f32;
    struct copy_stream s = {
        .octx = octx,
        .plan = &kp->plan,
        .ops = ops,
        .params = &c,
        .ne0 = kp->mode == CPY_MODE_FLAT ? (uint32_t) n : c.walked->ne[0],
        .ne1 = kp->mode == CPY_MODE_FLAT ? 1 : c.walked->ne[1],
        .ne2 = kp->mode == CPY_MODE_FLAT ? 1 : c.walked->ne[2],
        .nrows = kp->mode == CPY_MODE_FLAT ? 1 : htp_tensor_nrows(c.walked),
        .n_reads = 1,
        .rows_dst = c.walked == dst ? dst : NULL, /* CPY_MODE_DST_FLAT walks src's rows */
        .rows_dst_elem = dst_size,
    };
    return copy_stream_run(&s);
}
