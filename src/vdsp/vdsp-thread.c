/*
 * Platform threads (QuRT threads on a phone) and futexes. A device keeps a table of its threads so a
 * session can check, after the NPU library's stop(), that none is left running before it unloads the
 * library. Each thread is named "htp<session>-<name>" (visible in top, gdb, perf) and gets an alternate
 * signal stack so the fault handler runs even when a kernel has exhausted its stack.
 */
#include "log.h"
#include "vdsp-impl.h"

#include <limits.h>
#include <linux/futex.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static void *thread_main(void *arg) {
    struct vdsp_thread *t = arg;
    pthread_setname_np(pthread_self(), t->name); /* before fn runs; the creator sets it too, see there */
    void *altstack = vdsp_guard_altstack_alloc();
    t->fn(t->arg);
    vdsp_guard_altstack_free(altstack);
    return NULL;
}

int vdsp_thread_create(struct vdsp_device *dev, vdsp_thread_fn fn, void *arg, const char *name, uint32_t *id) {
    pthread_mutex_lock(&dev->threads_lock);
    uint32_t slot = 0;
    while (slot < VDSP_MAX_THREADS && dev->threads[slot].used) {
        slot++;
    }
    if (slot == VDSP_MAX_THREADS) {
        pthread_mutex_unlock(&dev->threads_lock);
        vnpu_log_error("%s: thread '%s': all %d platform threads are in use", dev->name, name, VDSP_MAX_THREADS);
        return -1;
    }
    struct vdsp_thread *t = &dev->threads[slot];
    t->used = true;
    t->dev = dev;
    t->fn = fn;
    t->arg = arg;
    snprintf(t->name, sizeof(t->name), "htp%u-%s", dev->id, name);
    const int rc = pthread_create(&t->handle, NULL, thread_main, t);
    if (rc != 0) {
        t->used = false;
        pthread_mutex_unlock(&dev->threads_lock);
        vnpu_log_error("%s: starting thread '%s': %s", dev->name, name, strerror(rc));
        return -1;
    }
    pthread_setname_np(t->handle, t->name); /* and by the creator, so it is there when create returns */
    pthread_mutex_unlock(&dev->threads_lock);
    *id = slot;
    return 0;
}

void vdsp_thread_join(struct vdsp_device *dev, uint32_t id) {
    pthread_mutex_lock(&dev->threads_lock);
    const bool used = id < VDSP_MAX_THREADS && dev->threads[id].used;
    const pthread_t handle = used ? dev->threads[id].handle : pthread_self();
    pthread_mutex_unlock(&dev->threads_lock);
    if (!used) {
        vnpu_log_error("%s: vdsp_thread_join: no thread %u", dev->name, id);
        return;
    }
    pthread_join(handle, NULL);
    pthread_mutex_lock(&dev->threads_lock);
    dev->threads[id].used = false;
    pthread_mutex_unlock(&dev->threads_lock);
}

uint32_t vdsp_threads_alive(struct vdsp_device *dev) {
    uint32_t n = 0;
    pthread_mutex_lock(&dev->threads_lock);
    for (uint32_t i = 0; i < VDSP_MAX_THREADS; i++) {
        n += dev->threads[i].used;
    }
    pthread_mutex_unlock(&dev->threads_lock);
    return n;
}

void vdsp_futex_wait(volatile uint32_t *addr, uint32_t value) {
    syscall(SYS_futex, addr, FUTEX_WAIT_PRIVATE, value, NULL, NULL, 0);
}

void vdsp_futex_wake(volatile uint32_t *addr, uint32_t n) {
    syscall(SYS_futex, addr, FUTEX_WAKE_PRIVATE, n > INT_MAX ? INT_MAX : (int) n, NULL, NULL, 0);
}

uint32_t vdsp_host_cpus(void) {
    const long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > UINT32_MAX ? UINT32_MAX : (uint32_t) n;
}

void vdsp_futex_wait_shared(volatile uint32_t *addr, uint32_t value, uint32_t timeout_us) {
    const struct timespec ts = {.tv_sec = timeout_us / 1000000u, .tv_nsec = (long) (timeout_us % 1000000u) * 1000};
    syscall(SYS_futex, addr, FUTEX_WAIT, value, &ts, NULL, 0); /* not _PRIVATE: keyed on the page, not the address */
}

void vdsp_futex_wake_shared(volatile uint32_t *addr) {
    syscall(SYS_futex, addr, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}
