/* The NPU worker pool: see work-queue.h. */
#include "work-queue.h"

#include "hex-common.h"

#include <stdbool.h>

/* How long a waiting thread polls before it sleeps, when the pool's host threads do not outnumber the host's CPUs: a
 * request's ops come back to back (a stories260K token is ~80 of them, most a few microseconds apart), and a sleeping
 * thread is woken by a syscall and, on a VM, a wake-up of its idle CPU, which costs more than the op. */
#define WORK_QUEUE_SPIN_US    50
/* Polls between two reads of the clock. */
#define WORK_QUEUE_SPIN_CHECK 64

static const char *const work_queue_names[HTP_MAX_NTHREADS] = {
    "htp-main", "htp-w1", "htp-w2", "htp-w3", "htp-w4", "htp-w5", "htp-w6", "htp-w7", "htp-w8", "htp-w9",
};

struct work_queue_call {
    struct work_queue *q;
    uint32_t ith;
};

static void work_queue_call_job(void *arg) {
    const struct work_queue_call *c = arg;
    c->q->fn(c->q->n, c->ith, c->q->data);
}

/* Job ith of the current job, holding an HVX context, guarded; a fault is recorded (first one wins). */
static void work_queue_job(struct work_queue *q, uint32_t ith) {
    struct work_queue_call c = {q, ith};
#ifdef VNPU_HVX_COUNT
    struct hvx_counts outer, job;
    if (q->counts) { /* the job's own counts, whatever this host thread ran before */
        hvx_counts_read(&outer);
        hvx_counts_reset();
    }
#endif
    vdsp_hvx_lock(q->dev);
    const enum vdsp_fault f = vdsp_call_guarded(q->dev, work_queue_call_job, &c);
    vdsp_hvx_unlock(q->dev);
#ifdef VNPU_HVX_COUNT
    if (q->counts) {
        hvx_counts_read(&job);
        hvx_counts_add(&q->counts[ith], &job);
        q->jobs[ith]++;
        hvx_counts_tls = outer;
    }
#endif
    if (f != VDSP_FAULT_NONE) {
        uint32_t none = VDSP_FAULT_NONE;
        __atomic_compare_exchange_n(&q->fault, &none, (uint32_t) f, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
    }
}

/* Wait until *word differs from value: poll for up to spin_us, then sleep on the futex, counted in sleepers so that a
 * waker without sleepers makes no syscall (sleepers and the word are sequentially consistent on both sides: a waker
 * that reads no sleeper changed the word before the sleeper's re-check). */
static uint32_t work_queue_wait_change(struct work_queue *q, volatile uint32_t *word, uint32_t value) {
    uint32_t now;
    const uint64_t t0 = q->spin_us ? vdsp_usecs(q->dev) : 0;
    for (uint32_t i = 1;; i++) {
        if ((now = __atomic_load_n(word, __ATOMIC_ACQUIRE)) != value) {
            return now;
        }
        if (i % WORK_QUEUE_SPIN_CHECK == 0 && (!q->spin_us || vdsp_usecs(q->dev) - t0 >= q->spin_us)) {
            break;
        }
        hex_pause();
    }
    for (;;) {
        __atomic_add_fetch(&q->sleepers, 1, __ATOMIC_SEQ_CST);
        if (__atomic_load_n(word, __ATOMIC_SEQ_CST) == value) {
            vdsp_futex_wait(word, value);
        }
        __atomic_sub_fetch(&q->sleepers, 1, __ATOMIC_RELAXED);
        if ((now = __atomic_load_n(word, __ATOMIC_ACQUIRE)) != value) {
            return now;
        }
    }
}

/* Wake up to n threads sleeping on word, changed (sequentially consistent) by the caller; no syscall without sleepers.
 */
static void work_queue_wake(struct work_queue *q, volatile uint32_t *word, uint32_t n) {
    if (__atomic_load_n(&q->sleepers, __ATOMIC_SEQ_CST) != 0) {
        vdsp_futex_wake(word, n);
    }
}

/* Host thread h's jobs of the current run: h, h + n_host, ... below n. */
static void work_queue_jobs(struct work_queue *q, uint32_t h) {
    for (uint32_t ith = h; ith < q->n; ith += q->n_host) {
        work_queue_job(q, ith);
    }
}

/* A worker thread: every run is acknowledged by every worker (so none can miss one), its jobs run by those with
 * jobs in it. */
static void work_queue_thread(void *arg) {
    struct work_queue_worker *w = arg;
    struct work_queue *q = w->q;
    uint32_t seen = 0;
    for (;;) {
        seen = work_queue_wait_change(q, &q->seq, seen);
        if (__atomic_load_n(&q->stop, __ATOMIC_ACQUIRE)) {
            return;
        }
        work_queue_jobs(q, w->ith);
        if (__atomic_sub_fetch(&q->pending, 1, __ATOMIC_SEQ_CST) == 0) {
            work_queue_wake(q, &q->pending, 1);
        }
    }
}

/* Publish a job (or the stop request) to every worker. */
static void work_queue_publish(struct work_queue *q) {
    __atomic_store_n(&q->pending, q->n_host - 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&q->seq, 1, __ATOMIC_SEQ_CST);
    work_queue_wake(q, &q->seq, q->n_host - 1);
}

static void work_queue_wait_all(struct work_queue *q) {
    uint32_t p;
    while ((p = __atomic_load_n(&q->pending, __ATOMIC_ACQUIRE)) != 0) {
        work_queue_wait_change(q, &q->pending, p);
    }
}

int work_queue_init(struct work_queue *q, struct vdsp_device *dev, uint32_t n_threads, uint32_t n_host) {
    q->dev = dev;
    q->n_threads = n_threads;
    q->n_host = 1;
    q->seq = 0;
    q->stop = 0;
    q->sleepers = 0;
    q->spin_us = n_host <= vdsp_host_cpus() ? WORK_QUEUE_SPIN_US : 0;
    q->fault = VDSP_FAULT_NONE;
    q->n = 0;
    q->counts = NULL;
    q->jobs = NULL;
    for (uint32_t i = 1; i < n_host; i++) {
        struct work_queue_worker *w = &q->workers[i];
        w->q = q;
        w->ith = i;
        const int rc = vdsp_thread_create(dev, work_queue_thread, w, work_queue_names[i], &w->thread_id);
        if (rc != 0) {
            work_queue_free(q);
            return rc;
        }
        q->n_host = i + 1;
    }
    return 0;
}

enum vdsp_fault work_queue_run(struct work_queue *q, work_queue_fn fn, void *data, uint32_t n) {
    n = HEX_MIN(n, q->n_threads);
    q->fn = fn;
    q->data = data;
    q->n = n;
    __atomic_store_n(&q->fault, VDSP_FAULT_NONE, __ATOMIC_RELAXED);
    if (n <= 1 || q->n_host == 1) {
        work_queue_jobs(q, 0);
    } else {
        work_queue_publish(q);
        work_queue_jobs(q, 0);
        work_queue_wait_all(q);
    }
    return (enum vdsp_fault) __atomic_load_n(&q->fault, __ATOMIC_ACQUIRE);
}

void work_queue_free(struct work_queue *q) {
    if (q->n_host > 1) {
        q->n = 0;
        __atomic_store_n(&q->stop, 1, __ATOMIC_RELEASE);
        work_queue_publish(q);
        for (uint32_t i = 1; i < q->n_host; i++) {
            vdsp_thread_join(q->dev, q->workers[i].thread_id);
        }
    }
    q->n_host = 1;
}
