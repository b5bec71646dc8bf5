/*
 * The NPU library's state: one struct htp_ctx per session (what start() sets up), and one struct
 * htp_op_ctx per op being run (what a kernel's entry receives from the dispatcher in main.c).
 */
#ifndef VNPU_HTP_CTX_H
#define VNPU_HTP_CTX_H

#include "dma-queue.h"
#include "htp-fence.h"
#include "hex-fastdiv.h"
#include "htp-msg.h"
#include "htp-status-msg.h"
#include "htp-tensor.h"
#include "htp-trace.h"
#include "hvx-fp16-range.h"
#include "vdsp-device.h"
#include "work-queue.h"

#include <stdbool.h>
#include <stdint.h>

/* Buffers a session keeps mapped at once (its window usually runs out first). */
#define HTP_MAX_MAPPINGS 256

/* One buffer mapped into the session window. */
struct htp_mapping {
    int32_t fd;
    uint32_t devaddr; /* its device address */
    uint64_t size;    /* bytes mapped */
    bool pinned;      /* HTP_BUF_PINNED: unmapped to make room only after every unpinned one (main.c) */
};

/* This device's place among the devices sharing an op (mdev); count 1 when it runs ops alone. */
struct htp_mdev {
    uint32_t idx;
    uint32_t count;
    struct fastdiv_values count_div;
    struct htp_fence fence; /* the group's barriers (count > 1), set per request from its header */
    uint32_t inject;        /* the request's HTP_REQ_INJECT_MDEV_* (tests) */
};

struct htp_ctx {
    struct vdsp_device *dev;
    uint32_t n_threads; /* workers, caller included */
    uint8_t *vtcm;
    uint32_t vtcm_size;
    bool dma_strict; /* VNPU_DMA_STRICT: every queue must be empty after each op */
    struct htp_mdev mdev;

    struct work_queue wq;
    struct dma_queue dma[HTP_MAX_NTHREADS];
    struct htp_trace trace[HTP_MAX_NTHREADS];
    struct hvx_fp16_range fp16[HTP_MAX_NTHREADS][HTP_FP16_N]; /* the HMX matmul's FP16 counts per worker, per op */

    struct { /* the counts of the op being run (HTP_REQ_PERF, htp-perf.h) */
        struct hvx_counts counts[HTP_MAX_NTHREADS];
        uint32_t jobs[HTP_MAX_NTHREADS];
        struct vdsp_dma_stats dma0[HTP_MAX_NTHREADS]; /* each queue's stats at the op's start */
    } perf;

    struct htp_mapping maps[HTP_MAX_MAPPINGS];
    uint32_t n_maps;
    uint32_t n_mapped, n_unmapped, n_defrags; /* this request's (htp_rsp) */
};

/* One op as its kernel sees it. */
struct htp_op_ctx {
    struct htp_ctx *ctx;
    struct htp_op_desc op;  /* a copy: opcode, flags, params, kernel_params (aligned for the kparams structs) */
    uint32_t index;         /* position in the request */
    struct htp_msg *msg;    /* the response's message, after "op N (NAME): ": a failing kernel may say why here */
    struct htp_op_rsp *rsp; /* the op's response, zeroed; a kernel fills what it reports (main.c writes it back) */
    /* Operands; src[i] is NULL where the op's optional operand is absent. */
    const struct htp_tensor *src[HTP_MAX_SRC];
    const struct htp_tensor *dst[HTP_MAX_DST];
    struct htp_tensor tensors[HTP_MAX_SRC + HTP_MAX_DST]; /* what src[] and dst[] point to */
};

/* This device's share of total_units in chunks of units_per_chunk: htp_tensor_mdev_partition with the session's
 * place in its group, skewed as the request's test flags ask (HTP_REQ_INJECT_MDEV_ROW: a device past 0 starts one
 * unit early; HTP_REQ_INJECT_MDEV_LINE: chunks of half the units). Only called under ctx->mdev.count > 1. */
static inline struct htp_tensor_mdev_range htp_mdev_range(const struct htp_ctx *ctx, uint32_t total_units,
                                                          uint32_t units_per_chunk) {
    const uint32_t per =
        (ctx->mdev.inject & HTP_REQ_INJECT_MDEV_LINE) && units_per_chunk > 1 ? units_per_chunk / 2 : units_per_chunk;
    struct htp_tensor_mdev_range r =
        htp_tensor_mdev_partition(total_units, per, ctx->mdev.idx, ctx->mdev.count, &ctx->mdev.count_div);
    if ((ctx->mdev.inject & HTP_REQ_INJECT_MDEV_ROW) && r.start > 0 && r.count > 0) {
        r.start--;
        r.count++;
    }
    return r;
}

/* Rows per worker when n rows are split over n_threads workers: ceil(n / n_threads). For a device's share of an op,
 * once per op (the host's plan counts the whole op's rows). */
static inline uint32_t htp_rows_per_thread(uint32_t n, uint32_t n_threads) {
    return (uint32_t) (((uint64_t) n + n_threads - 1) / n_threads);
}

/* This device's rows of an op of total_rows rows whose plan gives each of n_threads workers rows_per_thread (the
 * host's, for the whole op): all of them on a device alone; with mdev.count > 1 its htp_mdev_range share in chunks of
 * rows_per_chunk (0: device 0 alone, seed "Single-Device Fallback"), the rows per worker recomputed for the share.
 * False when the rows per worker do not cover a non-empty share (the kernel returns INVAL_PARAMS); a share of no
 * rows (count 0) is the kernel's to skip. */
static inline bool htp_mdev_rows(const struct htp_ctx *ctx, uint32_t total_rows, uint32_t rows_per_chunk,
                                 uint32_t rows_per_thread, uint32_t n_threads, struct htp_tensor_mdev_rows *r) {
    r->start = 0;
    r->count = total_rows;
    r->per_thread = rows_per_thread;
    if (ctx->mdev.count > 1) {
        const struct htp_tensor_mdev_range range = htp_mdev_range(ctx, total_rows, rows_per_chunk);
        r->start = range.start;
        r->count = range.count;
        r->per_thread = htp_rows_per_thread(r->count, n_threads);
    }
    return r->count == 0 || (uint64_t) r->per_thread * n_threads >= r->count;
}

/* The op's kernel_params as its struct (each <op>-ops.h static_asserts it fits). */
static inline const void *htp_op_kparams(const struct htp_op_ctx *octx) {
    return octx->op.kparams;
}

/* Whether the kernel_params' fastdiv values v, the field name, are those of divisor d (fastdiv_is), described by what
 * ("ne1 x ne2"): a kernel checks each such value once per op, before its quotients become row coordinates. If not,
 * the op's message says which: "kernel_params div_ne12 are not the fastdiv values of ne1 x ne2 = 12". */
static inline bool htp_op_fastdiv_ok(const struct htp_op_ctx *octx, const struct fastdiv_values *v, uint32_t d,
                                     const char *name, const char *what) {
    if (fastdiv_is(v, d)) {
        return true;
    }
    htp_msg_str(octx->msg, "kernel_params ");
    htp_msg_str(octx->msg, name);
    htp_msg_str(octx->msg, " are not the fastdiv values of ");
    htp_msg_str(octx->msg, what);
    htp_msg_str(octx->msg, " = ");
    htp_msg_u64(octx->msg, d, 10);
    return false;
}

static inline bool htp_op_skip_compute(const struct htp_op_ctx *octx) {
    return (octx->op.flags & HTP_OP_SKIP_COMPUTE) != 0;
}

#endif /* VNPU_HTP_CTX_H */
