/*
 * Copy streaming: the pipeline of the gather/scatter family (get-rows-ops, set-rows-ops, cpy-ops), written
 * once. Each op walks the rows of an iteration tensor; a task is a chunk of one row (a row wider than the
 * plan's chunk is cut in several tasks), and for each task the op names where its elements come from and
 * where they go:
 *
 *     DDR --DMA (reads: gathers, strided elements, field planes)--> VTCM in slot
 *         --HVX (convert, dequantize; nothing for a same-type copy)--> VTCM out slot --DMA (write)--> DDR
 *
 * DDR to DDR is not a DMA the platform allows, so even a plain copy lands in VTCM and leaves it again: a
 * same-type copy is two DMAs and no HVX. A thread moves its tasks in blocks of `block` through two sets of in
 * and out slots: while block b is computed, block b + 1 is in flight and the writes of block b - 1 drain. A
 * copy without compute writes from its in slots, which are then in flight for two blocks longer: it has four
 * sets of in slots and no out slots. Every push is popped in FIFO order (copy-stream.c).
 *
 * The host fills a struct copy_plan inside the op's kernel_params; host and NPU compute the VTCM layout with
 * copy_plan_layout.
 */
#ifndef VNPU_COPY_STREAM_H
#define VNPU_COPY_STREAM_H

#include "hex-common.h"
#include "hex-fastdiv.h"
#include "htp-vtcm.h"
#include "vdsp-device.h"

#include <stdbool.h>
#include <stdint.h>

#define COPY_STREAM_MAX_BLOCK 64 /* tasks per block */

/* Part of an op's kernel_params: 56 bytes. */
struct copy_plan {
    uint32_t n_threads;               /* workers, at most the session's; chosen from the op's size */
    uint32_t tasks_per_thread;        /* ceil(tasks / n_threads): thread i starts at task row_start * n_chunks +
                                         i * this */
    uint32_t block;                   /* tasks per DMA block */
    uint32_t chunk;                   /* elements per task; a row's last task takes what is left */
    uint32_t n_chunks;                /* tasks per row: ceil(ne0 / chunk) */
    uint32_t slot_in;                 /* bytes of a task's VTCM in slot (a multiple of 128) */
    uint32_t slot_out;                /* bytes of its out slot; 0: the write leaves from the in slot (DMA only) */
    uint32_t scratch;                 /* bytes of the thread's scratch for the op's compute (dequantization) */
    struct fastdiv_values div_chunks; /* n_chunks: task -> (row, chunk) */
    struct fastdiv_values div_ne1;    /* the iteration tensor's ne1: row -> (i1, i2, i3) */
    struct fastdiv_values div_ne12;   /* its ne1 * ne2 */
};
_Static_assert(sizeof(struct copy_plan) == 56, "copy_plan is part of 128-byte kernel_params");

/* Byte offsets of the buffers inside one thread's VTCM slice. */
struct copy_layout {
    uint32_t in;         /* copy_plan_in_sets sets of block in slots */
    uint32_t out;        /* 2 sets of block out slots (= in when slot_out is 0) */
    uint32_t scratch;    /* the compute's scratch */
    uint32_t per_thread; /* bytes of a thread's slice; thread i's starts at i * per_thread */
};

/* Whether a thread's queue holds what the pipeline keeps in flight: per half, a block's reads (n_reads per
 * task) and its writes (one per task). */
static inline bool copy_plan_dma_fits(const struct copy_plan *p, uint32_t n_reads) {
    return 2 * ((uint64_t) p->block * (n_reads + 1) + 1) <= VDSP_DMA_DEPTH;
}

/* Sets of in slots: block b reads into set b % this. Two when a compute fills out slots; four for a copy
 * that writes from its in slots, so that the reads of block b + 2 never land in a slot the writes of block
 * b - 1 or b still read. A power of two either way (copy-stream.c takes b % this as a mask). */
static inline uint32_t copy_plan_in_sets(const struct copy_plan *p) {
    return p->slot_out ? 2 : 4;
}

/* The layout of plan p. */
static inline struct copy_layout copy_plan_layout(const struct copy_plan *p) {
    struct copy_layout l = {0, 0, 0, 0};
    uint32_t top = 0;
    l.in = htp_vtcm_take(&top, copy_plan_in_sets(p) * (uint64_t) p->block * p->slot_in);
    l.out = p->slot_out ? htp_vtcm_take(&top, 2 * (uint64_t) p->block * p->slot_out) : l.in;
    l.scratch = htp_vtcm_take(&top, p->scratch);
    l.per_thread = top;
    return l;
}

/* ---- the NPU side (copy-stream.c) ---- */

struct copy_stream;
struct dma_queue;
struct htp_msg;
struct htp_op_ctx;
struct htp_tensor;

#define COPY_STREAM_NO_TASK UINT32_MAX

/* One task: a chunk of row (i1, i2, i3) of the iteration tensor, elements [i0, i0 + n). */
struct copy_task {
    uint32_t i1, i2, i3;
    uint32_t i0;
    uint32_t n;
    int64_t index; /* the task's index operand (GET_ROWS, SET_ROWS) as push_reads read it, once, from DDR: checked
                      there, then the value push_write and report_bad see (htp-checked.h, rule 2); 0 for others */
};

/* The op's side of the stream; every callback may run on any worker at once (they touch only their task). */
struct copy_ops {
    /* Push the reads of task t into slot (n_reads descriptors, in a fixed order), setting t->index when the op has
     * an index operand; false when the task has no source (an index out of range): nothing was pushed, the stream
     * pushes n_reads dummies, writes nothing for the task and fails the op with HTP_STATUS_INVAL_PARAMS and
     * report_bad's text. */
    bool (*push_reads)(const struct copy_stream *s, struct dma_queue *q, struct copy_task *t, uint8_t *slot);
    /* Say why task t (the first found without a source, with the t->index push_reads read) had none: the index,
     * where it lies in the index tensor, the limit it broke. Required when push_reads can return false, else NULL. */
    void (*report_bad)(const struct copy_stream *s, const struct copy_task *t, struct htp_msg *m);
    /* Compute the task's out slot from its in slot (NULL: a copy, the write leaves from the in slot). scratch
     * is the thread's. */
    void (*compute)(const struct copy_stream *s, const struct copy_task *t, const uint8_t *in, uint8_t *out,
                    uint8_t *scratch);
    /* Push the task's one write from slot to its place in DDR (t->index: what push_reads read and accepted). */
    void (*push_write)(const struct copy_stream *s, struct dma_queue *q, const struct copy_task *t,
                       const uint8_t *slot);
};

struct copy_stream {
    struct htp_op_ctx *octx;
    const struct copy_plan *plan; /* inside the op's kernel_params */
    const struct copy_ops *ops;
    const void *params;                /* the op's kernel_params and state, for the callbacks */
    uint32_t ne0;                      /* elements per row of the iteration tensor */
    uint32_t ne1, ne2, nrows;          /* its ne1, ne2 and rows ne1 * ne2 * ne3 */
    uint32_t n_reads;                  /* descriptors push_reads pushes per task */
    const struct htp_tensor *rows_dst; /* the tensor written row for row (row r of the iteration is its flat row r),
                                          whose line-clean chunks a device's share of the rows comes in; NULL when
                                          rows land elsewhere (SET_ROWS, a flattening copy): any row */
    uint32_t rows_dst_elem;            /* its element bytes */
    /* Set by copy_stream_run: */
    uint64_t task_start; /* this device's tasks (a task: a chunk of a row, row-major): [task_start, + n_tasks) */
    uint64_t n_tasks;
    uint32_t tasks_per_thread; /* thread i starts at task_start + i * this */
    struct copy_layout layout;
    uint32_t bad_task; /* the first task a worker found without a source; COPY_STREAM_NO_TASK: none */
    int64_t bad_index; /* its index, as its push_reads read it */
};

/* Run s over the plan's threads: an htp status (HTP_STATUS_FAULT when a worker faulted, INVAL_PARAMS when the
 * plan does not fit the session or the stream's shape (its fastdiv values included), or a task had no source, which the
 * op's report_bad describes in the response). A device
 * that shares the op with others (mdev) takes its share of the rows, in chunks of rows_per_chunk (a single row: its
 * share of the row's tasks); its writes are DMA only, so any split keeps devices off each other's bytes. */
uint32_t copy_stream_run(struct copy_stream *s);

#endif /* VNPU_COPY_STREAM_H */
