/*
 * The DMA queue of one NPU thread (the seed's dma-queue.h API) over the platform's engine
 * (vdsp-device.h): 2-D descriptors, completions popped in strict FIFO order.
 *
 * Every push has its pop, in the order pushed; a pipelined kernel never needs dma_queue_flush. A push
 * of zero rows is a completed dummy that still takes its place in the FIFO: kernels use one to prime a
 * pipeline stage whose pop must return a buffer ("the previous write-back of this VTCM half is done").
 * pop returns the {dst, src} pair of the descriptor, so a DDR -> VTCM pop hands back the VTCM buffer in
 * .dst and a VTCM -> DDR pop in .src. The wait inside a pop is traced as a DMA span (info = the pop's
 * ordinal since the op began, modulo 2^15). A push to a full queue ends the op (dma_queue_full).
 */
#ifndef VNPU_DMA_QUEUE_H
#define VNPU_DMA_QUEUE_H

#include "htp-trace.h"
#include "vdsp-device.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dma_queue {
    struct vdsp_dma_queue *hw; /* the thread's descriptor queue */
    struct vdsp_device *dev;   /* the session's device: vdsp_call_abort's */
    struct htp_trace *tr;      /* the thread's trace */
    uint32_t n_pop;            /* pops since the op began: the trace info of the next one */
    bool full;                 /* a push found the queue full: the dispatcher fails the op (HTP_STATUS_DMA_FULL) */
};

typedef struct vdsp_dma_pair dma_pair;

static inline dma_pair dma_make_pair(void *dst, const void *src) {
    dma_pair p;
    p.dst = dst;
    p.src = src;
    return p;
}

/* A push found q full (VDSP_DMA_DEPTH descriptors in flight): mark it and end the worker's job. The push cannot just
 * fail: a descriptor left out pairs every later pop of the queue with the wrong push, and kernels take their VTCM
 * buffers from what pops return (row-stream's src0 rows, the HMX prep's staging slots), so a worker that went on would
 * compute from and into another transfer's memory, and end on a pop of an empty queue blamed on no one. Nor is it a
 * fault: the queue is the library's own state and nothing outside the op is damaged, so the job ends by
 * vdsp_call_abort (the session is not marked crashed), work_queue_run reports it, the dispatcher (main.c) fails the op
 * with HTP_STATUS_DMA_FULL naming the queue and its depth, and empties the queues before the next op. One check per
 * push, in this function, instead of one at each of the kernels' pushes. */
static inline __attribute__((cold)) _Noreturn void dma_queue_full(struct dma_queue *q) {
    q->full = true;
    vdsp_call_abort(q->dev);
}

/* Queue nrows rows of row_size bytes from p.src (rows src_stride apart) to p.dst (dst_stride apart). Does not return
 * when the queue is full (dma_queue_full): kernels size their pipelines to a few descriptors in flight and need not
 * check. */
static inline void dma_queue_push(struct dma_queue *q, dma_pair p, size_t dst_stride, size_t src_stride,
                                  size_t row_size, uint32_t nrows) {
    if (__builtin_expect(!vdsp_dma_push(q->hw, p.dst, p.src, dst_stride, src_stride, row_size, nrows), 0)) {
        dma_queue_full(q);
    }
}

/* nrows rows of src_row_size bytes from DDR (packed src_row_size apart) into VTCM rows dst_row_size apart. */
static inline void dma_queue_push_ddr_to_vtcm(struct dma_queue *q, dma_pair p, size_t dst_row_size, size_t src_row_size,
                                              uint32_t nrows) {
    dma_queue_push(q, p, dst_row_size, src_row_size, src_row_size, nrows);
}

/* nrows rows of dst_row_size bytes from VTCM (src_row_size apart) into DDR (packed dst_row_size apart). */
static inline void dma_queue_push_vtcm_to_ddr(struct dma_queue *q, dma_pair p, size_t dst_row_size, size_t src_row_size,
                                              uint32_t nrows) {
    dma_queue_push(q, p, dst_row_size, src_row_size, dst_row_size, nrows);
}

/* Wait for the oldest descriptor and return its pair. The queue must not be empty. */
static inline dma_pair dma_queue_pop(struct dma_queue *q) {
    const uint32_t info = q->n_pop++;
    htp_trace_start(q->tr, HTP_TRACE_DMA, info);
    const dma_pair p = vdsp_dma_pop(q->hw);
    htp_trace_stop(q->tr, HTP_TRACE_DMA, info);
    return p;
}

static inline uint32_t dma_queue_depth(const struct dma_queue *q) {
    return vdsp_dma_depth(q->hw);
}

/* Pop everything still queued (the rare batch of pushes without individual pops; also the dispatcher's
 * cleanup after a leaking op in strict mode and after a full queue). */
static inline void dma_queue_flush(struct dma_queue *q) {
    while (dma_queue_depth(q) > 0) {
        dma_queue_pop(q);
    }
}

#endif /* VNPU_DMA_QUEUE_H */
