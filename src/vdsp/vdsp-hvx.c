/*
 * Compute contexts: the HVX context pool (qurt_hvx_lock) and the HMX unit (HAP_compute_res_hmx_lock) of a
 * device, each a counting semaphore of the target's count (v79: 6 HVX, 1 HMX; vdsp-target.c). A worker
 * holds an HVX context while it runs HVX code, so more workers than contexts take turns, as on the
 * hardware (seed 002, hardware threads versus HVX contexts).
 *
 * Both are on every kernel's path: taking a free context is one compare-and-swap and releasing one with no
 * waiter one atomic add and a load; only a thread that finds none free sleeps (futex on the count).
 * Locks nest per thread: the first lock takes a context, inner ones only count, the matching last unlock
 * gives it back; an unlock by a thread holding none does nothing.
 */
#include "vdsp-impl.h"

static _Thread_local uint32_t tls_hvx_depth __attribute__((tls_model("initial-exec")));
static _Thread_local uint32_t tls_hmx_depth __attribute__((tls_model("initial-exec")));

void vdsp_sem_init(struct vdsp_sem *s, uint32_t count) {
    atomic_init(&s->count, count);
    atomic_init(&s->waiters, 0);
}

static void sem_acquire(struct vdsp_sem *s) {
    uint32_t c = atomic_load_explicit(&s->count, memory_order_relaxed);
    for (;;) {
        while (c > 0) {
            if (atomic_compare_exchange_weak_explicit(&s->count, &c, c - 1, memory_order_acquire,
                                                      memory_order_relaxed)) {
                return;
            }
        }
        /* Announce the wait before the kernel rechecks count == 0 (both sequentially consistent, paired
         * with sem_release's add then load), so a release either sees us or we see its context. */
        atomic_fetch_add_explicit(&s->waiters, 1, memory_order_seq_cst);
        vdsp_futex_wait((volatile uint32_t *) &s->count, 0);
        atomic_fetch_sub_explicit(&s->waiters, 1, memory_order_relaxed);
        c = atomic_load_explicit(&s->count, memory_order_relaxed);
    }
}

static void sem_release(struct vdsp_sem *s) {
    atomic_fetch_add_explicit(&s->count, 1, memory_order_seq_cst);
    if (atomic_load_explicit(&s->waiters, memory_order_seq_cst) > 0) {
        vdsp_futex_wake((volatile uint32_t *) &s->count, 1);
    }
}

void vdsp_hvx_lock(struct vdsp_device *dev) {
    if (tls_hvx_depth++ == 0) {
        sem_acquire(&dev->hvx);
    }
}

void vdsp_hvx_unlock(struct vdsp_device *dev) {
    if (tls_hvx_depth > 0 && --tls_hvx_depth == 0) {
        sem_release(&dev->hvx);
    }
}

void vdsp_hmx_lock(struct vdsp_device *dev) {
    if (tls_hmx_depth++ == 0) {
        sem_acquire(&dev->hmx);
    }
}

void vdsp_hmx_unlock(struct vdsp_device *dev) {
    if (tls_hmx_depth > 0 && --tls_hmx_depth == 0) {
        sem_release(&dev->hmx);
    }
}

uint32_t vdsp_hvx_depth(void) {
    return tls_hvx_depth;
}

uint32_t vdsp_hmx_depth(void) {
    return tls_hmx_depth;
}

void vdsp_hvx_unwind(struct vdsp_device *dev, uint32_t hvx_depth, uint32_t hmx_depth) {
    if (tls_hvx_depth > hvx_depth) {
        if (hvx_depth == 0) {
            sem_release(&dev->hvx);
        }
        tls_hvx_depth = hvx_depth;
    }
    if (tls_hmx_depth > hmx_depth) {
        if (hmx_depth == 0) {
            sem_release(&dev->hmx);
        }
        tls_hmx_depth = hmx_depth;
    }
}
