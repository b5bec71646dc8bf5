/*
 * The CPU device's thread pool: workers park on a condition variable between jobs, a job is announced by
 * bumping a sequence number, and the caller waits for a count of finished workers. Threads inside a job
 * (one graph) meet at a barrier between nodes: a counter and a phase, waited on by spinning briefly and
 * then yielding the core, since a node of a small model lasts microseconds and a sleeping barrier cost
 * more than the node (stories260K, -t 2: 3.2 ms per token with pthread_barrier_wait).
 */
#include "cpu-threads.h"

#include "log.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

struct cpu_worker {
    struct cpu_pool *pool;
    int ith;
    pthread_t thread;
};

struct cpu_pool {
    int n_threads;
    int n_started; /* workers running */
    struct cpu_worker *workers;

    pthread_mutex_t mutex;
    pthread_cond_t wake; /* workers: a job or stop */
    pthread_cond_t done; /* caller: a worker finished */
    uint64_t job_seq;    /* bumped once per job */
    int n_done;          /* workers that finished the current job */
    bool stop;
    cpu_pool_fn fn;
    void *arg;

    atomic_int barrier_count;  /* threads arrived at the current barrier */
    atomic_uint barrier_phase; /* bumped by the last arrival: releases the others */
};

/* Spins before a barrier waiter starts yielding its core. */
#define BARRIER_SPINS 2000

static void *cpu_worker_main(void *arg) {
    struct cpu_worker *w = arg;
    struct cpu_pool *pool = w->pool;
    uint64_t seen = 0;
    pthread_mutex_lock(&pool->mutex);
    for (;;) {
        while (!pool->stop && pool->job_seq == seen) {
            pthread_cond_wait(&pool->wake, &pool->mutex);
        }
        if (pool->stop) {
            break;
        }
        seen = pool->job_seq;
        const cpu_pool_fn fn = pool->fn;
        void *job_arg = pool->arg;
        pthread_mutex_unlock(&pool->mutex);

        fn(job_arg, w->ith, pool->n_threads);

        pthread_mutex_lock(&pool->mutex);
        if (++pool->n_done == pool->n_threads - 1) {
            pthread_cond_signal(&pool->done);
        }
    }
    pthread_mutex_unlock(&pool->mutex);
    return NULL;
}

enum vnpu_status cpu_pool_new(int n_threads, struct cpu_pool **out) {
    *out = NULL;
    VNPU_ASSERT(n_threads >= 1);
    struct cpu_pool *pool = calloc(1, sizeof(*pool));
    struct cpu_worker *workers = calloc((size_t) n_threads, sizeof(*workers));
    if (!pool || !workers) {
        vnpu_log_error("cpu: cannot allocate a pool of %d threads", n_threads);
        free(pool);
        free(workers);
        return VNPU_STATUS_NO_MEMORY;
    }
    pool->n_threads = n_threads;
    pool->workers = workers;
    pthread_mutex_init(&pool->mutex, NULL);
    pthread_cond_init(&pool->wake, NULL);
    pthread_cond_init(&pool->done, NULL);
    for (int i = 1; i < n_threads; i++) {
        struct cpu_worker *w = &workers[i - 1];
        w->pool = pool;
        w->ith = i;
        const int rc = pthread_create(&w->thread, NULL, cpu_worker_main, w);
        if (rc != 0) {
            vnpu_log_error("cpu: cannot start worker thread %d of %d (error %d)", i, n_threads, rc);
            cpu_pool_free(pool);
            return VNPU_STATUS_NO_MEMORY;
        }
        pool->n_started++;
    }
    *out = pool;
    return VNPU_STATUS_OK;
}

void cpu_pool_free(struct cpu_pool *pool) {
    if (!pool) {
        return;
    }
    pthread_mutex_lock(&pool->mutex);
    pool->stop = true;
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->mutex);
    for (int i = 0; i < pool->n_started; i++) {
        pthread_join(pool->workers[i].thread, NULL);
    }
    pthread_cond_destroy(&pool->done);
    pthread_cond_destroy(&pool->wake);
    pthread_mutex_destroy(&pool->mutex);
    free(pool->workers);
    free(pool);
}

int cpu_pool_n_threads(const struct cpu_pool *pool) {
    return pool->n_threads;
}

void cpu_pool_run(struct cpu_pool *pool, cpu_pool_fn fn, void *arg) {
    if (pool->n_threads == 1) {
        fn(arg, 0, 1);
        return;
    }
    pthread_mutex_lock(&pool->mutex);
    pool->fn = fn;
    pool->arg = arg;
    pool->n_done = 0;
    pool->job_seq++;
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->mutex);

    fn(arg, 0, pool->n_threads);

    pthread_mutex_lock(&pool->mutex);
    while (pool->n_done < pool->n_threads - 1) {
        pthread_cond_wait(&pool->done, &pool->mutex);
    }
    pthread_mutex_unlock(&pool->mutex);
}

void cpu_pool_barrier(struct cpu_pool *pool) {
    if (pool->n_threads == 1) {
        return;
    }
    /* The phase is read before arriving, and only the last arrival (after every read) changes it. */
    const unsigned phase = atomic_load_explicit(&pool->barrier_phase, memory_order_acquire);
    if (atomic_fetch_add_explicit(&pool->barrier_count, 1, memory_order_acq_rel) == pool->n_threads - 1) {
        atomic_store_explicit(&pool->barrier_count, 0, memory_order_relaxed);
        atomic_fetch_add_explicit(&pool->barrier_phase, 1, memory_order_release);
        return;
    }
    for (int spins = 0; atomic_load_explicit(&pool->barrier_phase, memory_order_acquire) == phase; spins++) {
        if (spins >= BARRIER_SPINS) {
            sched_yield();
        }
    }
}
