/*
 * The row-streaming pipeline (row-stream.h), per thread:
 *
 *   prologue  load a resident src1 row; for halves 0 and 1: push a dummy "write-back done" per dst, then
 *             the src reads of blocks 0 and 1
 *   block b   pop the dst half (its write-back from block b - 2 has landed), pop the src reads of block b,
 *             compute, push the write-back of block b, push the src reads of block b + 2 into the same half
 *   epilogue  pop what is left: two write-backs and two empty blocks' dummy reads
 *
 * Blocks past the thread's rows are empty: their reads are zero-row dummies, so every iteration pushes
 * and pops the same entries and the FIFO order never depends on how many blocks there are.
 */
#include "row-stream.h"

#include "dma-queue.h"
#include "htp-ctx.h"
#include "htp-tensor.h"

#include <stdbool.h>

struct row_block {
    uint32_t ir; /* first row (flat index) */
    uint32_t n;  /* rows; 0 for an empty block */
};

/* One thread's view of the stream. */
struct row_thread {
    const struct row_stream *s;
    struct dma_queue *q;
    struct htp_trace *tr;
    uint8_t *src0; /* VTCM half 0 of each buffer; half 1 follows at + half */
    uint8_t *src1; /* (the resident row for ROW_SRC1_RESIDENT) */
    uint8_t *dst[2];
    uint32_t half;      /* bytes of one half: block * row_stride */
    uint32_t row_bytes; /* bytes of a row in DDR: ne0 * 4 */
    uint32_t next;      /* first row not yet scheduled */
    uint32_t end;       /* one past the thread's last row */
};

static struct htp_row_index row_index(const struct row_stream *s, uint32_t r) {
    const struct htp_tensor *d = s->dst[0];
    return htp_row_unravel(r, d->ne[1], d->ne[2], &s->plan->div_ne1, &s->plan->div_ne12);
}

static void row_index_next(struct htp_row_index *ix, const struct htp_tensor *d) {
    if (++ix->i1 == d->ne[1]) {
        ix->i1 = 0;
        if (++ix->i2 == d->ne[2]) {
            ix->i2 = 0;
            ix->i3++;
        }
    }
}

/* The src1 row broadcast onto dst row ix. */
static const uint8_t *row_src1(const struct row_stream *s, struct htp_row_index ix) {
    const struct htp_tensor *t = s->src1;
    const struct fastdiv_values *div = s->plan->div_src1;
    return htp_tensor_row(t, fastmodulo(ix.i1, t->ne[1], &div[0]), fastmodulo(ix.i2, t->ne[2], &div[1]),
                          fastmodulo(ix.i3, t->ne[3], &div[2]));
}

/* The next block of the thread's rows: at most plan->block rows; unless the plan is flat, not past the
 * end of the current i1 run nor past a wrap of a broadcast src1 row. */
static struct row_block row_next_block(struct row_thread *t) {
    const struct row_stream *s = t->s;
    const struct row_plan *p = s->plan;
    struct row_block b = {t->next, HEX_MIN(p->block, t->end - t->next)};
    if (b.n > 0 && !p->flat) {
        const struct htp_row_index ix = row_index(s, b.ir);
        b.n = HEX_MIN(b.n, s->dst[0]->ne[1] - ix.i1);
        const uint32_t ne11 = p->src1_mode == ROW_SRC1_STREAM ? s->src1->ne[1] : 1;
        if (ne11 > 1) {
            b.n = HEX_MIN(b.n, ne11 - fastmodulo(ix.i1, ne11, &p->div_src1[0]));
        }
    }
    t->next += b.n;
    return b;
}

/* Push the reads of block b into half h: src0 rows, and src1 rows when streamed or expanded. An empty block
 * pushes a dummy per streamed buffer (an expanded src1 pushes one descriptor per row, so none). */
static void row_push_src(struct row_thread *t, uint32_t h, struct row_block b) {
    const struct row_stream *s = t->s;
    const uint32_t mode = s->plan->src1_mode;
    const uint32_t stride = s->layout.row_stride;
    uint8_t *v0 = t->src0 + h * t->half, *v1 = t->src1 + h * t->half;
    if (b.n == 0) {
        dma_queue_push(t->q, dma_make_pair(v0, s->src0->data), 0, 0, 0, 0);
        if (mode == ROW_SRC1_STREAM) {
            dma_queue_push(t->q, dma_make_pair(v1, s->src1->data), 0, 0, 0, 0);
        }
        return;
    }
    struct htp_row_index ix = row_index(s, b.ir);
    dma_queue_push(t->q, dma_make_pair(v0, htp_tensor_row(s->src0, ix.i1, ix.i2, ix.i3)), stride, s->src0->nb[1],
                   t->row_bytes, b.n);
    if (mode == ROW_SRC1_STREAM) {
        const uint32_t src_stride = s->src1->ne[1] == 1 && !s->plan->flat ? 0 : s->src1->nb[1];
        dma_queue_push(t->q, dma_make_pair(v1, row_src1(s, ix)), stride, src_stride, t->row_bytes, b.n);
    } else if (mode == ROW_SRC1_EXPAND) {
        const uint32_t piece = s->src1->ne[0] * 4;
        for (uint32_t j = 0; j < b.n; j++, row_index_next(&ix, s->dst[0])) {
            dma_queue_push(t->q, dma_make_pair(v1 + j * stride, row_src1(s, ix)), piece, 0, piece, s->src1_rep);
        }
    }
}

/* Pop the reads of a non-empty block b (pushed by row_push_src); returns src0's VTCM rows, *src1 gets
 * src1's. */
static const uint8_t *row_pop_src(struct row_thread *t, struct row_block b, const uint8_t **src1) {
    const uint8_t *v0 = dma_queue_pop(t->q).dst;
    switch ((enum row_src1_mode) t->s->plan->src1_mode) {
        case ROW_SRC1_NONE: *src1 = NULL; break;
        case ROW_SRC1_STREAM: *src1 = dma_queue_pop(t->q).dst; break;
        case ROW_SRC1_EXPAND: /* one pop per row; the first gives the block's base */
            *src1 = dma_queue_pop(t->q).dst;
            for (uint32_t j = 1; j < b.n; j++) {
                dma_queue_pop(t->q);
            }
            break;
        case ROW_SRC1_RESIDENT: *src1 = t->src1; break;
    }
    return v0;
}

static void row_stream_prologue(struct row_thread *t, struct row_block blk[2]) {
    const struct row_stream *s = t->s;
    if (s->plan->src1_mode == ROW_SRC1_RESIDENT) {
        const uint32_t piece = s->src1->ne[0] * 4;
        dma_queue_push(t->q, dma_make_pair(t->src1, s->src1->data), piece, 0, piece, s->src1_rep);
        dma_queue_pop(t->q);
    }
    for (uint32_t h = 0; h < 2; h++) {
        for (uint32_t k = 0; k < s->plan->n_dst; k++) {
            dma_queue_push(t->q, dma_make_pair(s->dst[k]->data, t->dst[k] + h * t->half), 0, 0, 0, 0);
        }
        blk[h] = row_next_block(t);
        row_push_src(t, h, blk[h]);
    }
}

static void row_stream_block(struct row_thread *t, struct row_block blk[2], uint32_t b) {
    const struct row_stream *s = t->s;
    const uint32_t h = b & 1;
    const uint32_t n_dst = s->plan->n_dst;
    uint8_t *vdst[2] = {NULL, NULL};
    for (uint32_t k = 0; k < n_dst; k++) {
        vdst[k] = (uint8_t *) dma_queue_pop(t->q).src; /* the half's previous write-back has landed */
    }
    const uint8_t *vsrc1 = NULL;
    const uint8_t *vsrc0 = row_pop_src(t, blk[h], &vsrc1);
    if (!htp_op_skip_compute(s->octx)) {
        const uint32_t src1_stride = s->plan->src1_mode == ROW_SRC1_RESIDENT ? 0 : s->layout.row_stride;
        htp_trace_start(t->tr, HTP_TRACE_HVX_COMP, b);
        s->compute(s, vdst, vsrc0, vsrc1, src1_stride, blk[h].n);
        htp_trace_stop(t->tr, HTP_TRACE_HVX_COMP, b);
    }
    const struct htp_row_index ix = row_index(s, blk[h].ir);
    for (uint32_t k = 0; k < n_dst; k++) {
        dma_queue_push(t->q, dma_make_pair(htp_tensor_row(s->dst[k], ix.i1, ix.i2, ix.i3), vdst[k]), s->dst[k]->nb[1],
                       s->layout.row_stride, t->row_bytes, blk[h].n);
    }
    blk[h] = row_next_block(t);
    row_push_src(t, h, blk[h]);
}

/* Two halves remain queued: each a write-back per dst, then an empty block's dummy reads. */
static void row_stream_epilogue(struct row_thread *t) {
    const struct row_stream *s = t->s;
    for (uint32_t h = 0; h < 2; h++) {
        for (uint32_t k = 0; k < s->plan->n_dst; k++) {
            dma_queue_pop(t->q);
        }
        dma_queue_pop(t->q);
        if (s->plan->src1_mode == ROW_SRC1_STREAM) {
            dma_queue_pop(t->q);
        }
    }
}

static void row_stream_worker(unsigned nth, unsigned ith, void *arg) {
    const struct row_stream *s = arg;
    const struct row_plan *p = s->plan;
    struct htp_ctx *ctx = s->octx->ctx;
    uint32_t first, end;
    (void) nth;
    if (!htp_tensor_mdev_rows_thread(&s->rows, ith, &first, &end)) {
        return;
    }
    uint8_t *slice = ctx->vtcm + (size_t) ith * s->layout.per_thread;
    struct row_thread t = {
        .s = s,
        .q = &ctx->dma[ith],
        .tr = &ctx->trace[ith],
        .src0 = slice + s->layout.src0,
        .src1 = slice + s->layout.src1,
        .dst = {slice + s->layout.dst[0], slice + s->layout.dst[1]},
        .half = p->block * s->layout.row_stride,
        .row_bytes = s->dst[0]->ne[0] * 4,
        .next = first,
        .end = end,
    };
    struct row_block blk[2];
    row_stream_prologue(&t, blk);
    for (uint32_t b = 0; blk[b & 1].n > 0; b++) {
        row_stream_block(&t, blk, b);
    }
    row_stream_epilogue(&t);
}

/* src0 and a second dst shaped as dst, src1 broadcastable onto it (ne10 dividing ne0 when expanded), every
 * element dense: what the DMA rows assume. */
static bool row_stream_shapes_ok(const struct row_stream *s) {
    const struct htp_tensor *d = s->dst[0];
    const struct htp_tensor *same[3] = {s->src0, d, s->plan->n_dst == 2 ? s->dst[1] : d};
    for (int t = 0; t < 3; t++) {
        if (!same[t] || same[t]->type != HTP_TYPE_F32 || same[t]->nb[0] != 4) {
            return false;
        }
        for (int i = 0; i < HTP_MAX_DIMS; i++) {
            if (same[t]->ne[i] != d->ne[i]) {
                return false;
            }
        }
    }
    if (s->src1) {
        for (int i = 0; i < HTP_MAX_DIMS; i++) {
            if (s->src1->ne[i] == 0 || d->ne[i] % s->src1->ne[i] != 0) {
                return false;
            }
        }
        const bool expanded = s->plan->src1_mode == ROW_SRC1_EXPAND ||
                              (s->plan->src1_mode == ROW_SRC1_RESIDENT && s->src1->ne[0] != d->ne[0]);
        if (s->src1->type != HTP_TYPE_F32 || s->src1->nb[0] != 4 || (!expanded && s->src1->ne[0] != d->ne[0])) {
            return false;
        }
    }
    return true;
}

/* The plan's fastdiv values are those of dst's ne1 and ne1 * ne2 and of src1's ne1..ne3 (1 without src1): the rows'
 * coordinates, and so their addresses, come from their quotients. A wrong one is named in the op's message. */
static bool row_stream_divs_ok(const struct row_stream *s) {
    static const char *const src1_name[3] = {"div_src1[0]", "div_src1[1]", "div_src1[2]"};
    static const char *const src1_what[3] = {"src1's ne1 (1 without src1)", "src1's ne2 (1 without src1)",
                                             "src1's ne3 (1 without src1)"};
    const struct row_plan *p = s->plan;
    const struct htp_tensor *d = s->dst[0];
    bool ok = htp_op_fastdiv_ok(s->octx, &p->div_ne1, d->ne[1], "div_ne1", "ne1") &&
              htp_op_fastdiv_ok(s->octx, &p->div_ne12, d->ne[1] * d->ne[2], "div_ne12", "ne1 x ne2");
    for (int i = 0; i < 3 && ok; i++) {
        ok = htp_op_fastdiv_ok(s->octx, &p->div_src1[i], s->src1 ? s->src1->ne[i + 1] : 1, src1_name[i], src1_what[i]);
    }
    return ok;
}

/* The seed's row-wise operators: chunks of whole lines of every dst (both of a two-dst op; the chunks are powers of
 * two, so the larger is a multiple of the other), 0 (device 0 alone) when a dst's layout has none. */
static uint32_t row_stream_rows_per_chunk(const struct row_stream *s) {
    const struct htp_tensor *dst = s->dst[0];
    uint32_t rows_per_chunk = 0, rows_per_chunk1 = 0;
    const bool lines =
        htp_tensor_mdev_rows_per_chunk(dst, 4, dst->ne[0] * 4, &rows_per_chunk) &&
        (s->plan->n_dst < 2 || htp_tensor_mdev_rows_per_chunk(s->dst[1], 4, dst->ne[0] * 4, &rows_per_chunk1));
    return lines ? HEX_MAX(rows_per_chunk, rows_per_chunk1) : 0;
}

uint32_t row_stream_run(struct row_stream *s) {
    struct htp_ctx *ctx = s->octx->ctx;
    const struct row_plan *p = s->plan;
    if (p->n_threads == 0 || p->n_threads > ctx->n_threads || p->block == 0 || p->n_dst == 0 || p->n_dst > 2 ||
        p->src1_mode > ROW_SRC1_RESIDENT || (p->src1_mode != ROW_SRC1_NONE) != (s->src1 != NULL) ||
        !row_stream_shapes_ok(s) || !row_stream_divs_ok(s)) {
        return HTP_STATUS_INVAL_PARAMS;
    }
    const struct htp_tensor *dst = s->dst[0];
    if (!htp_mdev_rows(ctx, htp_tensor_nrows(dst), row_stream_rows_per_chunk(s), p->rows_per_thread, p->n_threads,
                       &s->rows)) {
        return HTP_STATUS_INVAL_PARAMS;
    }
    if (s->rows.count == 0) {
        return HTP_STATUS_OK;
    }
    s->src1_rep = s->src1 ? dst->ne[0] / s->src1->ne[0] : 0; /* once per op, not per worker */
    s->layout = row_plan_layout(p, dst->ne[0]);
    if (!htp_vtcm_fits(s->layout.per_thread, p->n_threads, ctx->vtcm_size)) {
        return HTP_STATUS_VTCM_TOO_SMALL;
    }
    return work_queue_run(&ctx->wq, row_stream_worker, s, p->n_threads) == VDSP_FAULT_NONE ? HTP_STATUS_OK
                                                                                           : HTP_STATUS_FAULT;
}
