/*
 * The test NPU library: an htp_iface with the ops of test-npu.h, a worker pool on platform threads and
 * futexes, and per-request buffer mapping. Just enough of a dispatcher to drive sessions in tests.
 */
#include "test-npu.h"
#include "vdsp-device.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef TEST_NPU_ARCH
#error "TEST_NPU_ARCH (the arch htp_iface claims) must be defined by the build"
#endif
#ifndef TEST_NPU_ABI
#error "TEST_NPU_ABI (the platform ABI htp_iface claims) must be defined by the build"
#endif

struct test_npu;
typedef void (*test_job_fn)(struct test_npu *t, uint32_t ith);

struct worker_arg {
    struct test_npu *t;
    uint32_t ith;
};

struct test_npu {
    struct vdsp_device *dev;
    uint32_t n_threads;
    uint32_t ids[HTP_MAX_NTHREADS]; /* platform threads of workers 1..n-1 */
    struct worker_arg workers[HTP_MAX_NTHREADS];
    _Atomic uint32_t seq;     /* job generation; workers futex-wait on it */
    _Atomic uint32_t pending; /* workers still in the current job */
    _Atomic bool exit;
    _Atomic bool job_faulted;
    test_job_fn job;
    /* the op being run */
    const struct htp_op_desc *op;
    uint8_t *src, *dst;
    const struct htp_tensor_desc *src_t, *dst_t;
};

struct job_call {
    struct test_npu *t;
    uint32_t ith;
};

static void job_trampoline(void *arg) {
    struct job_call *c = arg;
    c->t->job(c->t, c->ith);
}

/* Run the job of thread ith holding an HVX context, under the guard. */
static void job_run(struct test_npu *t, uint32_t ith) {
    struct job_call c = {t, ith};
    vdsp_hvx_lock(t->dev);
    if (vdsp_call_guarded(t->dev, job_trampoline, &c) != VDSP_FAULT_NONE) {
        atomic_store(&t->job_faulted, true);
    }
    vdsp_hvx_unlock(t->dev);
}

static void worker_main(void *arg) {
    struct worker_arg *w = arg;
    struct test_npu *t = w->t;
    uint32_t seen = 0;
    for (;;) {
        uint32_t s;
        while ((s = atomic_load(&t->seq)) == seen && !atomic_load(&t->exit)) {
            vdsp_futex_wait((volatile uint32_t *) &t->seq, seen);
        }
        if (atomic_load(&t->exit)) {
            return;
        }
        seen = s;
        job_run(t, w->ith);
        if (atomic_fetch_sub(&t->pending, 1) == 1) {
            vdsp_futex_wake((volatile uint32_t *) &t->pending, 1);
        }
    }
}

static void work_run(struct test_npu *t, test_job_fn job) {
    t->job = job;
    atomic_store(&t->pending, t->n_threads - 1);
    atomic_fetch_add(&t->seq, 1);
    vdsp_futex_wake((volatile uint32_t *) &t->seq, HTP_MAX_NTHREADS);
    job_run(t, 0);
    uint32_t p;
    while ((p = atomic_load(&t->pending)) != 0) {
        vdsp_futex_wait((volatile uint32_t *) &t->pending, p);
    }
}

/* Rows [r0, r1) of thread ith. */
static void rows_of(const struct test_npu *t, uint32_t ith, uint32_t *r0, uint32_t *r1) {
    const uint32_t rows = t->src_t->ne[1];
    *r0 = (uint32_t) ((uint64_t) rows * ith / t->n_threads);
    *r1 = (uint32_t) ((uint64_t) rows * (ith + 1) / t->n_threads);
}

static void copy_job(struct test_npu *t, uint32_t ith, bool early_read) {
    struct vdsp_dma_queue *q = vdsp_dma_queue_get(t->dev, ith);
    const size_t row = t->src_t->ne[0];
    const uint32_t block = t->op->kparams[0];
    uint8_t *slice = vdsp_vtcm_base(t->dev) + ith * (vdsp_vtcm_size(t->dev) / t->n_threads);
    uint32_t r0, r1;
    rows_of(t, ith, &r0, &r1);
    for (uint32_t r = r0; r < r1; r += block) {
        const uint32_t n = r1 - r < block ? r1 - r : block;
        uint8_t *src = t->src + (size_t) r * t->src_t->nb[1];
        uint8_t *dst = t->dst + (size_t) r * t->dst_t->nb[1];
        vdsp_dma_push(q, slice, src, row, t->src_t->nb[1], row, n);
        if (early_read) {
            for (uint32_t i = 0; i < n; i++) {
                memcpy(dst + i * t->dst_t->nb[1], slice + i * row, row);
            }
            vdsp_dma_pop(q);
            continue;
        }
        vdsp_dma_pop(q);
        vdsp_dma_push(q, dst, slice, t->dst_t->nb[1], row, row, n);
        vdsp_dma_pop(q);
    }
}

static void copy_worker(struct test_npu *t, uint32_t ith) {
    copy_job(t, ith, false);
}

static void copy_early_worker(struct test_npu *t, uint32_t ith) {
    copy_job(t, ith, true);
}

static void load(struct test_npu *t) {
    const volatile uint32_t *p = (const volatile uint32_t *) (vdsp_window_base(t->dev) + t->op->kparams[0]);
    const uint32_t v = *p;
    memcpy(t->dst, &v, sizeof(v));
}

static void load_worker(struct test_npu *t, uint32_t ith) {
    if (ith == t->op->kparams[1]) {
        load(t);
    }
}

static void abort_worker(struct test_npu *t, uint32_t ith) {
    if (ith == t->op->kparams[1]) {
        vdsp_call_abort(t->dev);
    }
}

/* Run t->op; on failure *msg says why. */
static enum htp_status op_run(struct test_npu *t, const char **msg) {
    struct vdsp_dma_queue *q0 = vdsp_dma_queue_get(t->dev, 0);
    switch ((enum test_npu_op) t->op->opcode) {
        case TEST_NPU_OP_COPY: work_run(t, copy_worker); break;
        case TEST_NPU_OP_COPY_EARLY_READ: work_run(t, copy_early_worker); break;
        case TEST_NPU_OP_LOAD:
            if (t->op->kparams[1] == TEST_NPU_MAIN) {
                load(t);
            } else {
                work_run(t, load_worker);
            }
            break;
        case TEST_NPU_OP_DMA_TO_VTCM_END:
            vdsp_dma_push(q0, vdsp_vtcm_base(t->dev) + vdsp_vtcm_size(t->dev) - t->op->kparams[0], t->src,
                          t->src_t->ne[0], t->src_t->nb[1], t->src_t->ne[0], 1);
            vdsp_dma_pop(q0);
            break;
        case TEST_NPU_OP_ABORT:
            if (t->op->kparams[1] == TEST_NPU_MAIN) {
                vdsp_call_abort(t->dev);
            }
            work_run(t, abort_worker);
            break;
        case TEST_NPU_OP_DMA_LEAK:
            for (uint32_t i = 0; i < t->op->kparams[0]; i++) {
                if (!vdsp_dma_push(q0, vdsp_vtcm_base(t->dev), vdsp_vtcm_base(t->dev), 0, 0, 0, 0)) {
                    *msg = "DMA queue full";
                    return HTP_STATUS_INTERNAL_ERR;
                }
            }
            break;
    }
    *msg = vdsp_fault_text(t->dev);
    return atomic_load(&t->job_faulted) ? HTP_STATUS_FAULT : HTP_STATUS_OK;
}

static void rsp_fail(struct htp_rsp *rsp, enum htp_status status, const char *msg) {
    rsp->status = status;
    snprintf(rsp->message, sizeof(rsp->message), "%s", msg);
}

static void test_npu_process(void *npu_ctx, void *block, uint32_t size) {
    struct test_npu *t = npu_ctx;
    struct htp_req *req = block;
    struct htp_rsp *rsp = &req->rsp;
    rsp->status = HTP_STATUS_OK;
    rsp->n_ops_done = 0;
    if (req->version != HTP_MSG_VERSION || req->n_bufs > HTP_MAX_BUFS ||
        size < test_npu_req_size(req->n_bufs, req->n_tensors, req->n_ops) || req->off_ops > size) {
        rsp_fail(rsp, HTP_STATUS_INVAL_PARAMS, "malformed request");
        return;
    }
    const uint8_t *base = block;
    const struct htp_buf_desc *bufs = (const void *) (base + req->off_bufs);
    const struct htp_tensor_desc *tensors = (const void *) (base + req->off_tensors);
    const struct htp_op_desc *ops = (const void *) (base + req->off_ops);
    uint32_t addr[HTP_MAX_BUFS];
    uint32_t mapped = 0;
    for (; mapped < req->n_bufs; mapped++) {
        if (vdsp_mmap(t->dev, bufs[mapped].fd, bufs[mapped].size, &addr[mapped]) != 0) {
            rsp_fail(rsp, HTP_STATUS_INVAL_PARAMS, "buffer does not fit the window");
            break;
        }
    }
    atomic_store(&t->job_faulted, false);
    for (uint32_t i = 0; mapped == req->n_bufs && i < req->n_ops; i++) {
        t->op = &ops[i];
        t->src_t = &tensors[ops[i].src[0]];
        t->dst_t = &tensors[ops[i].dst[0]];
        t->src = vdsp_window_base(t->dev) + addr[t->src_t->bi] + t->src_t->offset;
        t->dst = vdsp_window_base(t->dev) + addr[t->dst_t->bi] + t->dst_t->offset;
        const char *msg = "";
        const enum htp_status st = op_run(t, &msg);
        if (st != HTP_STATUS_OK) {
            rsp->failed_op = i;
            rsp_fail(rsp, st, msg);
            break;
        }
        rsp->n_ops_done = i + 1;
    }
    while (mapped > 0) {
        vdsp_munmap(t->dev, addr[--mapped]);
    }
}

/* Stop and join workers 1..n_threads-1. */
static void test_npu_stop(void *npu_ctx) {
    struct test_npu *t = npu_ctx;
    atomic_store(&t->exit, true);
    vdsp_futex_wake((volatile uint32_t *) &t->seq, HTP_MAX_NTHREADS);
    for (uint32_t i = 1; i < t->n_threads; i++) {
        vdsp_thread_join(t->dev, t->ids[i]);
    }
    free(t);
}

static int test_npu_start(struct vdsp_device *dev, uint32_t n_threads, void **npu_ctx) {
    if (getenv("VNPU_TEST_NPU_REFUSE")) {
        return HTP_STATUS_INTERNAL_ERR;
    }
    struct test_npu *t = calloc(1, sizeof(*t));
    if (!t) {
        return HTP_STATUS_INTERNAL_ERR;
    }
    t->dev = dev;
    for (uint32_t i = 1; i < n_threads; i++) {
        t->workers[i] = (struct worker_arg){t, i};
        char name[24];
        snprintf(name, sizeof(name), "worker%u", i);
        if (vdsp_thread_create(dev, worker_main, &t->workers[i], name, &t->ids[i]) != 0) {
            test_npu_stop(t);
            return HTP_STATUS_INTERNAL_ERR;
        }
        t->n_threads = i + 1;
    }
    t->n_threads = n_threads;
    *npu_ctx = t;
    return 0;
}

const struct htp_iface htp_iface = {
    .abi = TEST_NPU_ABI,
    .arch = TEST_NPU_ARCH,
    .start = test_npu_start,
    .process = test_npu_process,
    .stop = test_npu_stop,
};
