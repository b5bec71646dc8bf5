/*
 * The NPU worker pool (the seed's work-queue.h): work_queue_run(q, fn, data, n) runs fn(n, i, data) for
 * i = 0..n-1 and returns when all are done. The pool has n_threads NPU threads, run by n_host host threads
 * (vdsp_host_threads: as many, unless a cost-model session runs a target's threads on fewer): host thread h runs
 * jobs h, h + n_host, ... one after another. Host thread 0 is the caller (the session's main thread); the others
 * are platform threads that poll for the next job for a while (unless the pool outnumbers the host's CPUs) and then
 * park on a futex.
 *
 * Each job runs holding an HVX context (vdsp_hvx_lock: with more workers than contexts they take turns,
 * as on the hardware) and under the platform's fault guard, so a bad address in any worker ends that
 * worker's job, not the process: work_queue_run then reports the fault. Workers must be re-entrant and
 * touch only their own rows, VTCM slice, DMA queue and trace.
 */
#ifndef VNPU_WORK_QUEUE_H
#define VNPU_WORK_QUEUE_H

#include "htp-msg.h"
#include "hvx-count.h"
#include "vdsp-device.h"

#include <stdint.h>

typedef void (*work_queue_fn)(unsigned nth, unsigned ith, void *data);

struct work_queue;

struct work_queue_worker {
    struct work_queue *q;
    uint32_t ith;
    uint32_t thread_id; /* vdsp thread handle */
};

struct work_queue {
    struct vdsp_device *dev;
    uint32_t n_threads; /* NPU threads: jobs a run may have */
    uint32_t n_host;    /* host threads, caller included, 1..n_threads */
    struct work_queue_worker workers[HTP_MAX_NTHREADS];
    /* Counting build: when set, each job's counts (hvx-count.h) are added to counts[ith] and jobs[ith] counted. */
    struct hvx_counts *counts;
    uint32_t *jobs;

    /* The job being run; written by the caller before seq is bumped. */
    work_queue_fn fn;
    void *data;
    uint32_t n;

    volatile uint32_t seq;      /* job number: workers wait for it to change (futex word) */
    volatile uint32_t pending;  /* workers that have not yet acknowledged the job (futex word) */
    volatile uint32_t fault;    /* the first enum vdsp_fault of the job, VDSP_FAULT_NONE if none */
    volatile uint32_t stop;     /* set with the last seq bump: workers exit */
    volatile uint32_t sleepers; /* threads asleep, or about to be, on seq or pending */
    uint32_t spin_us;           /* how long a wait polls before it sleeps: 0 when n_host > the host's CPUs */
};

/* A pool of n_threads NPU threads (1..HTP_MAX_NTHREADS) on n_host host threads (1..n_threads): starts n_host - 1
 * platform threads on dev. 0 on success, else the platform's error (threads already started are stopped). */
int work_queue_init(struct work_queue *q, struct vdsp_device *dev, uint32_t n_threads, uint32_t n_host);

/* Run fn(n, i, data) for i in 0..n-1 (n is capped at n_threads; n <= 1 runs inline). Returns
 * VDSP_FAULT_NONE, or the first fault a job hit (its text: vdsp_fault_text). */
enum vdsp_fault work_queue_run(struct work_queue *q, work_queue_fn fn, void *data, uint32_t n);

/* Stop and join the workers. */
void work_queue_free(struct work_queue *q);

#endif /* VNPU_WORK_QUEUE_H */
