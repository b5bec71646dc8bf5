/*
 * A persistent pool of worker threads for the CPU device.
 *
 * Created once per device: n_threads - 1 workers plus the calling thread. Between jobs the workers park
 * on a condition variable (no spinning: the machine is shared); cpu_pool_run wakes them for one job and
 * returns when every thread has finished it. Inside a job, cpu_pool_barrier waits for all n_threads.
 * One job at a time: a pool is not shared between threads that submit work.
 */
#ifndef VNPU_CPU_THREADS_H
#define VNPU_CPU_THREADS_H

#include "vnpu.h"

/* A job: fn runs once on every thread with its index ith in 0..nth-1. */
typedef void (*cpu_pool_fn)(void *arg, int ith, int nth);

struct cpu_pool;

/* A pool of n_threads (>= 1) threads; errors: VNPU_STATUS_NO_MEMORY (allocation or thread creation). */
enum vnpu_status cpu_pool_new(int n_threads, struct cpu_pool **out);
/* Stops and joins the workers; NULL is a no-op. */
void cpu_pool_free(struct cpu_pool *pool);
int cpu_pool_n_threads(const struct cpu_pool *pool);
/* Run fn(arg, ith, nth) on all threads (the caller is thread 0); returns when all have returned. */
void cpu_pool_run(struct cpu_pool *pool, cpu_pool_fn fn, void *arg);
/* Inside a job: wait until all nth threads reach the barrier. */
void cpu_pool_barrier(struct cpu_pool *pool);

#endif /* VNPU_CPU_THREADS_H */
