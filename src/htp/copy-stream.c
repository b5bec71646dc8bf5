/*
 * The copy-streaming pipeline (copy-stream.h), per thread:
 *
 *   prologue  for halves 0 and 1: push a dummy "writes done", then the reads of blocks 0 and 1
 *   block b   pop the half's writes (those of block b - 2 have landed), pop the reads of block b, compute
 *             each task, push each task's write, push the reads of block b + 2 into the same half
 *   epilogue  pop what is left: each half's writes and the dummy read of an empty block
 *
 * A block past the thread's tasks is empty and its reads are one zero-row dummy, so the pops always mirror
 * the pushes whatever the number of blocks. A half (the parity of b) remembers how many writes it has
 * queued. Block b reads into in set b % copy_plan_in_sets and computes into out set b % 2.
 */
#include "copy-stream.h"

#include "dma-queue.h"
#include "htp-ctx.h"
#include "htp-tensor.h"

/* Tasks of one block: [first, first + n) of the flat task numbering (row * n_chunks + chunk). */
struct copy_block {
    uint32_t first;
    uint32_t n;
};

/* One thread's view of the stream. */
struct copy_thread {
    struct copy_stream *s;
    struct dma_queue *q;
    struct htp_trace *tr;
    uint8_t *in;  /* VTCM set 0 of the in slots; set i follows at + i * half_in */
    uint8_t *out; /* same for the out slots */
    uint32_t in_sets;
    uint8_t *scratch;
    uint32_t half_in, half_out;              /* bytes of one half */
    uint32_t next;                           /* first task not yet scheduled */
    uint32_t end;                            /* one past the thread's last task */
    uint32_t writes[2];                      /* writes queued by each half (1: the prologue's dummy) */
    bool has_src[2][COPY_STREAM_MAX_BLOCK];  /* per half and task: its reads were real (an index in range) */
    int64_t index[2][COPY_STREAM_MAX_BLOCK]; /* per half and task: its index as push_reads read it (copy_task) */
};

/* Task k (flat) as a row chunk. */
static struct copy_task copy_task_of(const struct copy_stream *s, uint32_t k) {
    const struct copy_plan *p = s->plan;
    const uint32_t row = fastdiv(k, &p->div_chunks), chunk = k - row * p->n_chunks;
    const struct htp_row_index ix = htp_row_unravel(row, s->ne1, s->ne2, &p->div_ne1, &p->div_ne12);
    struct copy_task t = {ix.i1, ix.i2, ix.i3, chunk * p->chunk, 0, 0};
    t.n = HEX_MIN(p->chunk, s->ne0 - t.i0);
    return t;
}

static struct copy_block copy_next_block(struct copy_thread *t) {
    struct copy_block b = {t->next, HEX_MIN(t->s->plan->block, t->end - t->next)};
    t->next += b.n;
    return b;
}

/* The in slots of block b: set b % in_sets, in_sets being 2 or 4 (a mask: no division per block). */
static uint8_t *copy_in_set(const struct copy_thread *t, uint32_t b) {
    return t->in + (b & (t->in_sets - 1)) * t->half_in;
}

/* Push the reads of block b (tasks blk) into its in set: n_reads per task (dummies for a task without a
 * source), or one dummy for an empty block. */
static void copy_push_reads(struct copy_thread *t, uint32_t b, struct copy_block blk) {
    const struct copy_stream *s = t->s;
    uint8_t *set = copy_in_set(t, b);
    if (blk.n == 0) {
        dma_queue_push(t->q, dma_make_pair(set, set), 0, 0, 0, 0);
        return;
    }
    for (uint32_t j = 0; j < blk.n; j++) {
        struct copy_task task = copy_task_of(s, blk.first + j);
        uint8_t *slot = set + j * s->plan->slot_in;
        t->has_src[b & 1][j] = s->ops->push_reads(s, t->q, &task, slot);
        t->index[b & 1][j] = task.index;
        for (uint32_t k = 0; !t->has_src[b & 1][j] && k < s->n_reads; k++) {
            dma_queue_push(t->q, dma_make_pair(slot, slot), 0, 0, 0, 0);
        }
    }
}

static void copy_stream_prologue(struct copy_thread *t, struct copy_block blk[2]) {
    for (uint32_t h = 0; h < 2; h++) {
        dma_queue_push(t->q, dma_make_pair(t->out, t->out + h * t->half_out), 0, 0, 0, 0);
        t->writes[h] = 1;
        blk[h] = copy_next_block(t);
        copy_push_reads(t, h, blk[h]);
    }
}

static void copy_stream_block(struct copy_thread *t, struct copy_block blk[2], uint32_t b) {
    struct copy_stream *s = t->s;
    const struct copy_plan *p = s->plan;
    const uint32_t h = b & 1;
    for (uint32_t k = 0; k < t->writes[h]; k++) {
        dma_queue_pop(t->q); /* the half's out slots are free again */
    }
    for (uint32_t k = 0; k < blk[h].n * s->n_reads; k++) {
        dma_queue_pop(t->q);
    }
    uint8_t *in = copy_in_set(t, b), *out = s->ops->compute ? t->out + h * t->half_out : in;
    const uint32_t slot_out = s->ops->compute ? p->slot_out : p->slot_in;
    if (s->ops->compute && !htp_op_skip_compute(s->octx)) {
        htp_trace_start(t->tr, HTP_TRACE_HVX_COMP, b);
        for (uint32_t j = 0; j < blk[h].n; j++) {
            const struct copy_task task = copy_task_of(s, blk[h].first + j);
            s->ops->compute(s, &task, in + j * p->slot_in, out + j * slot_out, t->scratch);
        }
        htp_trace_stop(t->tr, HTP_TRACE_HVX_COMP, b);
    }
    t->writes[h] = 0;
    for (uint32_t j = 0; j < blk[h].n; j++) {
        struct copy_task task = copy_task_of(s, blk[h].first + j);
        task.index = t->index[h][j];
        if (t->has_src[h][j]) {
            s->ops->push_write(s, t->q, &task, out + j * slot_out);
        } else {
            dma_queue_push(t->q, dma_make_pair(out, out), 0, 0, 0, 0);
            uint32_t none = COPY_STREAM_NO_TASK;
            if (__atomic_compare_exchange_n(&s->bad_task, &none, blk[h].first + j, false, __ATOMIC_RELAXED,
                                            __ATOMIC_RELAXED)) {
                s->bad_index = task.index; /* read after work_queue_run's barrier */
            }
        }
        t->writes[h]++;
    }
    blk[h] = copy_next_block(t);
    copy_push_reads(t, b + 2, blk[h]);
}

/* Both halves hold their writes, then an empty block's dummy read; the half of block b comes first. */
static void copy_stream_epilogue(struct copy_thread *t, uint32_t b) {
    for (uint32_t i = 0; i < 2; i++) {
        const uint32_t h = (b + i) & 1;
        for (uint32_t k = 0; k < t->writes[h]; k++) {
            dma_queue_pop(t->q);
        }
        dma_queue_pop(t->q);
    }
}

static void copy_stream_worker(unsigned nth, unsigned ith, void *arg) {
    struct copy_stream *s = arg;
    const struct copy_plan *p = s->plan;
    struct htp_ctx *ctx = s->octx->ctx;
    const uint64_t first = s->task_start + (uint64_t) s->tasks_per_thread * ith;
    const uint64_t end = s->task_start + s->n_tasks;
    (void) nth;
    if (first >= end) {
        return;
    }
    uint8_t *slice = ctx->vtcm + (size_t) ith * s->layout.per_thread;
    struct copy_thread t = {
        .s = s,
        .q = &ctx->dma[ith],
        .tr = &ctx->trace[ith],
        .in = slice + s->layout.in,
        .out = slice + s->layout.out,
        .scratch = slice + s->layout.scratch,
        .in_sets = copy_plan_in_sets(p),
        .half_in = p->block * p->slot_in,
        .half_out = p->block * p->slot_out,
        .next = (uint32_t) first,
        .end = (uint32_t) HEX_MIN(first + s->tasks_per_thread, end),
    };
    struct copy_block blk[2];
    copy_stream_prologue(&t, blk);
    uint32_t b = 0;
    for (; blk[b & 1].n > 0; b++) {
        copy_stream_block(&t, blk, b);
    }
    copy_stream_epilogue(&t, b);
}

uint32_t copy_stream_run(struct copy_stream *s) {
    struct htp_ctx *ctx = s->octx->ctx;
    const struct copy_plan *p = s->plan;
    if (p->n_threads == 0 || p->n_threads > ctx->n_threads || p->block == 0 || p->block > COPY_STREAM_MAX_BLOCK ||
        !copy_plan_dma_fits(p, s->n_reads) || p->chunk == 0 || p->n_chunks == 0 ||
        (uint64_t) p->chunk * p->n_chunks < s->ne0 || (uint64_t) p->chunk * (p->n_chunks - 1) >= s->ne0 ||
        (p->slot_out == 0) != (s->ops->compute == NULL) ||
        !htp_op_fastdiv_ok(s->octx, &p->div_chunks, p->n_chunks, "div_chunks", "n_chunks") ||
        !htp_op_fastdiv_ok(s->octx, &p->div_ne1, s->ne1, "div_ne1", "ne1") ||
        !htp_op_fastdiv_ok(s->octx, &p->div_ne12, s->ne1 * s->ne2, "div_ne12", "ne1 x ne2")) {
        return HTP_STATUS_INVAL_PARAMS;
    }
    s->task_start = 0;
    s->n_tasks = (uint64_t) s->nrows * p->n_chunks;
    s->tasks_per_thread = p->tasks_per_thread;
    if (ctx->mdev.count > 1) {
        /* DMA-only writes: any task boundary is safe (seed, "128-Byte Cache Line Alignment"). Rows in line-clean
         * chunks of rows_dst where it has them, or the tasks of a single row (a flat copy) one by one. */
        const bool one_row = s->nrows == 1;
        const struct htp_tensor_mdev_range range =
            htp_mdev_range(ctx, one_row ? p->n_chunks : s->nrows,
                           one_row || !s->rows_dst ? 1
                                                   : htp_tensor_mdev_dma_rows_per_chunk(s->rows_dst, s->rows_dst_elem,
                                                                                        s->ne0 * s->rows_dst_elem));
        const uint32_t tasks_per_unit = one_row ? 1 : p->n_chunks;
        s->task_start = (uint64_t) range.start * tasks_per_unit;
        s->n_tasks = (uint64_t) range.count * tasks_per_unit;
        s->tasks_per_thread = (uint32_t) HEX_MIN((s->n_tasks + p->n_threads - 1) / p->n_threads, UINT32_MAX);
    }
    if (s->n_tasks == 0) {
        return HTP_STATUS_OK;
    }
    if ((uint64_t) s->tasks_per_thread * p->n_threads < s->n_tasks) {
        return HTP_STATUS_INVAL_PARAMS;
    }
    s->layout = copy_plan_layout(p);
    if (!htp_vtcm_fits(s->layout.per_thread, p->n_threads, ctx->vtcm_size)) {
        return HTP_STATUS_VTCM_TOO_SMALL;
    }
    s->bad_task = COPY_STREAM_NO_TASK;
    if (work_queue_run(&ctx->wq, copy_stream_worker, s, p->n_threads) != VDSP_FAULT_NONE) {
        return HTP_STATUS_FAULT;
    }
    if (s->bad_task != COPY_STREAM_NO_TASK) {
        struct copy_task t = copy_task_of(s, s->bad_task);
        t.index = s->bad_index;
        HTP_ASSERT(s->ops->report_bad); /* required of an op whose push_reads can fail (copy-stream.h) */
        s->ops->report_bad(s, &t, s->octx->msg);
        return HTP_STATUS_INVAL_PARAMS;
    }
    return HTP_STATUS_OK;
}
