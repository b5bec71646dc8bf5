/*
 * Compute resources and threads: the HVX pool never admits more holders than the target's contexts (for
 * every target) and everyone finishes; one HMX holder at a time; lock nesting; futexes; platform threads
 * (names, join, the table's limit); the cycle clock's rate.
 */
#include "test-vdsp.h"

#include <pthread.h>
#include <string.h>
#include <time.h>

#define HOLDS 25 /* per thread */

struct pool_run {
    struct vdsp_device *dev;
    bool hmx;
    _Atomic uint32_t holders;
    _Atomic uint32_t max_holders;
    _Atomic uint32_t done;
};

static void *pool_thread(void *arg) {
    struct pool_run *r = arg;
    for (int i = 0; i < HOLDS; i++) {
        if (r->hmx) {
            vdsp_hmx_lock(r->dev);
        } else {
            vdsp_hvx_lock(r->dev);
        }
        const uint32_t now = atomic_fetch_add(&r->holders, 1) + 1;
        uint32_t max = atomic_load(&r->max_holders);
        while (now > max && !atomic_compare_exchange_weak(&r->max_holders, &max, now)) {
        }
        const struct timespec hold = {0, 200 * 1000};
        nanosleep(&hold, NULL);
        atomic_fetch_sub(&r->holders, 1);
        if (r->hmx) {
            vdsp_hmx_unlock(r->dev);
        } else {
            vdsp_hvx_unlock(r->dev);
        }
        atomic_fetch_add(&r->done, 1);
    }
    return NULL;
}

/* n_threads threads take the pool HOLDS times each; returns the most holders seen at once. */
static uint32_t pool_contend(struct vdsp_device *dev, bool hmx, uint32_t n_threads) {
    struct pool_run r = {.dev = dev, .hmx = hmx};
    pthread_t th[32];
    assert_true(n_threads <= 32);
    for (uint32_t i = 0; i < n_threads; i++) {
        assert_int_equal(pthread_create(&th[i], NULL, pool_thread, &r), 0);
    }
    for (uint32_t i = 0; i < n_threads; i++) {
        pthread_join(th[i], NULL);
    }
    assert_int_equal(atomic_load(&r.done), n_threads * HOLDS);
    assert_int_equal(atomic_load(&r.holders), 0);
    return atomic_load(&r.max_holders);
}

static void test_hvx_pool(void **state) {
    (void) state;
    static const enum vdsp_arch archs[] = {VDSP_ARCH_V73, VDSP_ARCH_V75, VDSP_ARCH_V79, VDSP_ARCH_V81};
    for (size_t a = 0; a < sizeof(archs) / sizeof(archs[0]); a++) {
        struct vdsp_device *dev = test_device_open(archs[a], 1, 1, false);
        const uint32_t n = dev->target.n_hvx_contexts;
        /* Holders sleep while holding, so every context fills up: the maximum is exactly n. */
        assert_int_equal(pool_contend(dev, false, 2 * n + 3), n);
        assert_int_equal(atomic_load(&dev->hvx.count), n);
        assert_int_equal(atomic_load(&dev->hvx.waiters), 0);
        vdsp_device_close(dev);
    }
}

static void test_hmx_unit(void **state) {
    (void) state;
    struct vdsp_device *dev = test_device_open(VDSP_ARCH_V81, 1, 1, false);
    assert_int_equal(pool_contend(dev, true, 5), 1);
    assert_int_equal(atomic_load(&dev->hmx.count), 1);
    vdsp_device_close(dev);
}

static void test_hvx_nesting(void **state) {
    (void) state;
    struct vdsp_device *dev = test_device_open(VDSP_ARCH_V79, 1, 1, false);
    const uint32_t n = dev->target.n_hvx_contexts;
    vdsp_hvx_unlock(dev); /* holding none: nothing happens */
    assert_int_equal(atomic_load(&dev->hvx.count), n);
    vdsp_hvx_lock(dev);
    vdsp_hvx_lock(dev);
    assert_int_equal(vdsp_hvx_depth(), 2);
    assert_int_equal(atomic_load(&dev->hvx.count), n - 1); /* one context per thread */
    vdsp_hvx_unlock(dev);
    assert_int_equal(atomic_load(&dev->hvx.count), n - 1);
    vdsp_hvx_unlock(dev);
    assert_int_equal(atomic_load(&dev->hvx.count), n);
    assert_int_equal(vdsp_hvx_depth(), 0);
    vdsp_device_close(dev);
}

struct futex_probe {
    volatile uint32_t word;
    _Atomic bool woke;
};

static void *futex_waiter(void *arg) {
    struct futex_probe *p = arg;
    while (p->word == 0) {
        vdsp_futex_wait(&p->word, 0);
    }
    atomic_store(&p->woke, true);
    return NULL;
}

static void test_futex(void **state) {
    (void) state;
    struct futex_probe p = {.word = 0};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, futex_waiter, &p), 0);
    const struct timespec pause = {0, 20 * 1000 * 1000};
    nanosleep(&pause, NULL);
    assert_false(atomic_load(&p.woke));
    vdsp_futex_wait(&p.word, 1); /* the word is not 1: returns at once */
    __atomic_store_n(&p.word, 1, __ATOMIC_SEQ_CST);
    vdsp_futex_wake(&p.word, 1);
    pthread_join(th, NULL);
    assert_true(atomic_load(&p.woke));
}

struct named {
    char name[16];
    _Atomic uint32_t *gate; /* threads wait while 0 */
};

static void named_thread(void *arg) {
    struct named *n = arg;
    pthread_getname_np(pthread_self(), n->name, sizeof(n->name));
    if (n->gate) {
        while (atomic_load(n->gate) == 0) {
            vdsp_futex_wait((volatile uint32_t *) n->gate, 0);
        }
    }
}

static void test_threads(void **state) {
    (void) state;
    struct test_log log;
    memset(&log, 0, sizeof(log));
    vnpu_log_set(test_log_collect, &log, VNPU_LOG_WARN);
    struct vdsp_device *dev = test_device_open(VDSP_ARCH_V79, 1, 1, false); /* id 7: "htp7-..." */
    struct named one = {.gate = NULL};
    uint32_t id;
    assert_int_equal(vdsp_thread_create(dev, named_thread, &one, "probe", &id), 0);
    vdsp_thread_join(dev, id);
    assert_string_equal(one.name, "htp7-probe");
    assert_int_equal(vdsp_threads_alive(dev), 0);

    /* Fill the table: the next create fails with a message; joining frees the slots. */
    _Atomic uint32_t gate = 0;
    static struct named many[VDSP_MAX_THREADS];
    uint32_t ids[VDSP_MAX_THREADS];
    for (int i = 0; i < VDSP_MAX_THREADS; i++) {
        many[i].gate = &gate;
        assert_int_equal(vdsp_thread_create(dev, named_thread, &many[i], "a-long-worker-name", &ids[i]), 0);
    }
    assert_int_equal(vdsp_threads_alive(dev), VDSP_MAX_THREADS);
    assert_int_equal(vdsp_thread_create(dev, named_thread, &one, "extra", &id), -1);
    assert_non_null(strstr(log.text, "all 32 platform threads are in use"));
    atomic_store(&gate, 1);
    vdsp_futex_wake((volatile uint32_t *) &gate, VDSP_MAX_THREADS);
    for (int i = 0; i < VDSP_MAX_THREADS; i++) {
        vdsp_thread_join(dev, ids[i]);
    }
    assert_string_equal(many[0].name, "htp7-a-long-wor"); /* cut to the 15 characters a name holds */
    assert_int_equal(vdsp_threads_alive(dev), 0);
    vdsp_thread_join(dev, 3);
    assert_non_null(strstr(log.text, "vdsp_thread_join: no thread 3"));
    vdsp_device_close(dev);
    vnpu_log_set(NULL, NULL, VNPU_LOG_WARN);
}

static void test_clock(void **state) {
    (void) state;
    struct vdsp_device *dev = test_device_open(VDSP_ARCH_V79, 1, 1, false);
    /* Each cycle read is bracketed by microsecond reads, so preemption between reads cannot fail the test:
     * the cycles elapsed lie within the brackets' spans at clock_mhz cycles per microsecond. */
    const uint64_t u0a = vdsp_usecs(dev), c0 = vdsp_cycles(dev), u0b = vdsp_usecs(dev);
    const struct timespec pause = {0, 50 * 1000 * 1000};
    nanosleep(&pause, NULL);
    const uint64_t u1a = vdsp_usecs(dev), c1 = vdsp_cycles(dev), u1b = vdsp_usecs(dev);
    const uint64_t mhz = dev->target.clock_mhz;
    assert_true(u1a - u0b >= 50000 - 1);
    assert_in_range(c1 - c0, (u1a - u0b - 1) * mhz, (u1b - u0a + 1) * mhz);
    vdsp_device_close(dev);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hvx_pool), cmocka_unit_test(test_hmx_unit), cmocka_unit_test(test_hvx_nesting),
        cmocka_unit_test(test_futex),    cmocka_unit_test(test_threads),  cmocka_unit_test(test_clock),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
