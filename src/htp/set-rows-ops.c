/*
 * SET_ROWS (set-rows-ops.h) on the copy stream: each task reads a chunk of a source row by DMA, converts it to
 * F16 in VTCM when the destination is F16 (hvx-convert.h), and writes it by DMA to the row its index names. The
 * index is one scalar read from the index tensor in DDR per task (the DMA descriptor needs it as an address), checked
 * and kept in the task (copy_task.index) for the write: the host may change the tensor while the op runs.
 */
#include "set-rows-ops.h"

#include "dma-queue.h"
#include "htp-checked.h"
#include "htp-ctx.h"
#include "htp-tensor.h"
#include "hvx-convert.h"

struct set_rows_ctx {
    const struct set_rows_kparams *kp;
    const struct htp_tensor *src, *idx, *dst;
    uint32_t dst_size; /* bytes per dst element */
};

/* Where the task's index lies in the index tensor (broadcast over dims 2 and 3 of the source). */
static struct htp_row_index set_rows_index_pos(const struct set_rows_ctx *c, const struct copy_task *t) {
    const struct htp_tensor *idx = c->idx;
    return (struct htp_row_index){t->i1, fastmodulo(t->i2, idx->ne[1], &c->kp->div_ne11),
                                  fastmodulo(t->i3, idx->ne[2], &c->kp->div_ne12)};
}

/* Task t's index, read once from the index tensor in DDR into t->index; whether it names a row of dst. */
static bool set_rows_index(const struct set_rows_ctx *c, struct copy_task *t) {
    const struct htp_tensor *idx = c->idx;
    const struct htp_row_index at = set_rows_index_pos(c, t);
    const uint8_t *p = htp_tensor_row(idx, at.i2, at.i3, 0) + (uintptr_t) at.i1 * idx->nb[0];
    if (idx->type == HTP_TYPE_I64) {
        htp_shared_read(&t->index, p, sizeof(int64_t));
    } else {
        int32_t i;
        htp_shared_read(&i, p, sizeof(i));
        t->index = i;
    }
    return t->index >= 0 && t->index < c->dst->ne[1];
}

static void set_rows_report_bad(const struct copy_stream *s, const struct copy_task *t, struct htp_msg *m) {
    const struct set_rows_ctx *c = s->params;
    const struct htp_row_index at = set_rows_index_pos(c, t);
    htp_msg_index(m, "row index", t->index, at.i1, at.i2, at.i3, "ne1", c->dst->ne[1]);
}

static bool set_rows_push_reads(const struct copy_stream *s, struct dma_queue *q, struct copy_task *t, uint8_t *slot) {
    const struct set_rows_ctx *c = s->params;
    if (!set_rows_index(c, t)) {
        return false;
    }
    const uint8_t *p = htp_tensor_row(c->src, t->i1, t->i2, t->i3) + (uintptr_t) t->i0 * 4;
    dma_queue_push(q, dma_make_pair(slot, p), 0, 0, (size_t) t->n * 4, 1);
    return true;
}

/* The write to the row t->index names, as set_rows_push_reads read and checked it. */
static void set_rows_push_write(const struct copy_stream *s, struct dma_queue *q, const struct copy_task *t,
                                const uint8_t *slot) {
    const struct set_rows_ctx *c = s->params;
    uint8_t *p = htp_tensor_row(c->dst, (uint32_t) t->index, t->i2, t->i3) + (uintptr_t) t->i0 * c->dst_size;
    dma_queue_push(q, dma_make_pair(p, slot), 0, 0, (size_t) t->n * c->dst_size, 1);
}

static void set_rows_compute_f16(const struct copy_stream *s, const struct copy_task *t, const uint8_t *in,
                                 uint8_t *out, uint8_t *scratch) {
    HVX_SCOPE();
    (void) s, (void) scratch;
    hvx_f32_to_f16_aa(out, in, t->n);
}

static const struct copy_ops set_rows_ops_f32 = {set_rows_push_reads, set_rows_report_bad, NULL, set_rows_push_write};
static const struct copy_ops set_rows_ops_f16 = {set_rows_push_reads, set_rows_report_bad, set_rows_compute_f16,
                                                 set_rows_push_write};

uint32_t op_set_rows(struct htp_op_ctx *octx) {
    const struct set_rows_kparams *kp = htp_op_kparams(octx);
    const struct htp_tensor *src = octx->src[0], *idx = octx->src[1], *dst = octx->dst[0];
    if (src->type != HTP_TYPE_F32 || (idx->type != HTP_TYPE_I32 && idx->type != HTP_TYPE_I64) ||
        (dst->type != HTP_TYPE_F32 && dst->type != HTP_TYPE_F16)) {
        return HTP_STATUS_NO_SUPPORT;
    }
    const uint32_t dst_size = dst->type == HTP_TYPE_F32 ? 4 : 2;
    if (src->nb[0] != 4 || dst->nb[0] != dst_size || dst->ne[0] != src->ne[0] || dst->ne[2] != src->ne[2] ||
        dst->ne[3] != src->ne[3] || idx->ne[0] != src->ne[1] || idx->ne[1] == 0 || idx->ne[2] == 0 ||
        src->ne[2] % idx->ne[1] != 0 || src->ne[3] % idx->ne[2] != 0 ||
        !htp_op_fastdiv_ok(octx, &kp->div_ne11, idx->ne[1], "div_ne11", "the indices' ne1") ||
        !htp_op_fastdiv_ok(octx, &kp->div_ne12, idx->ne[2], "div_ne12", "the indices' ne2")) {
        return HTP_STATUS_INVAL_PARAMS;
    }
    const struct set_rows_ctx c = {kp, src, idx, dst, dst_size};
    struct copy_stream s = {
        .octx = octx,
        .plan = &kp->plan,
        .ops = dst->type == HTP_TYPE_F16 ? &set_rows_ops_f16 : &set_rows_ops_f32,
        .params = &c,
        .ne0 = src->ne[0],
        .ne1 = src->ne[1],
        .ne2 = src->ne[2],
        .nrows = htp_tensor_nrows(src),
        .n_reads = 1,
    };
    return copy_stream_run(&s);
}
