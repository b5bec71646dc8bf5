/*
 * The NPU worker pool (src/htp/work-queue.c): every job of every run runs exactly once, whether the workers find the
 * next run while they poll (runs back to back), after they slept (runs further apart than the poll), or never poll
 * (a pool with more host threads than the host has CPUs).
 */
#include "test-common.h"

#include "work-queue.h"
#include "vdsp-impl.h"

#include <string.h>
#include <time.h>

static struct vdsp_device *dev;
static uint32_t counts[HTP_MAX_NTHREADS];

static int setup(void **state) {
    (void) state;
    struct vdsp_target target;
    assert_true(vdsp_target_get(VDSP_ARCH_V79, &target));
    const struct vdsp_device_params p = {
        .target = &target, .id = 0, .n_threads = HTP_MAX_NTHREADS, .window_size = 1u << 20};
    assert_int_equal(vdsp_device_open(&p, &dev), VNPU_STATUS_OK);
    return 0;
}

static int teardown(void **state) {
    (void) state;
    vdsp_device_close(dev);
    return 0;
}

static void count_job(unsigned nth, unsigned ith, void *data) {
    (void) data;
    assert_true(ith < nth);
    __atomic_add_fetch(&counts[ith], 1, __ATOMIC_RELAXED);
}

/* runs runs of n_host jobs on a pool of n_host host threads, gap_us apart; every job counted once per run. */
static void run_pool(uint32_t n_host, uint32_t runs, uint32_t gap_us, uint32_t expect_spin_us) {
    struct work_queue q;
    memset(counts, 0, sizeof(counts));
    assert_int_equal(work_queue_init(&q, dev, n_host, n_host), 0);
    assert_int_equal(q.spin_us, expect_spin_us);
    for (uint32_t r = 0; r < runs; r++) {
        assert_int_equal(work_queue_run(&q, count_job, NULL, n_host), VDSP_FAULT_NONE);
        if (gap_us) {
            const struct timespec ts = {0, (long) gap_us * 1000};
            nanosleep(&ts, NULL);
        }
    }
    work_queue_free(&q);
    for (uint32_t i = 0; i < n_host; i++) {
        assert_int_equal(counts[i], runs);
    }
}

static void test_back_to_back(void **state) {
    (void) state;
    const uint32_t n = vdsp_host_cpus() >= 2 ? 2 : 1;
    run_pool(n, 20000, 0, n <= vdsp_host_cpus() ? 50 : 0);
}

static void test_after_sleeping(void **state) {
    (void) state;
    const uint32_t n = vdsp_host_cpus() >= 2 ? 2 : 1;
    run_pool(n, 200, 500, n <= vdsp_host_cpus() ? 50 : 0); /* 500 us: past the 50 us poll, the workers sleep */
}

static void test_oversubscribed_never_polls(void **state) {
    (void) state;
    const uint32_t n = vdsp_host_cpus() + 1;
    if (n > HTP_MAX_NTHREADS) {
        skip(); /* a host with more than 9 CPUs: a pool cannot outnumber them */
    }
    run_pool(n, 2000, 0, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_back_to_back),
        cmocka_unit_test(test_after_sleeping),
        cmocka_unit_test(test_oversubscribed_never_polls),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
