/*
 * The group barrier of src/htp/htp-fence.h on its own: threads play the devices of a group over one slot array (as
 * the sessions map the fence buffer), on a bare platform device for the clock. Sequence numbers that wrap around
 * 2^32 (rule 4), an error at one device ending every device's barrier with it (rules 5, 6), a stale error of an
 * earlier request ignored (rule 6), a peer ahead counted as arrived (rule 4), and a device that never arrives ending
 * the barrier with a timeout naming it, in bounded time (rule 7), which the never-arriving device then sees.
 */
#include "test-common.h"

#include "htp-fence.h"
#include "vdsp-impl.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define N_DEV 3

static struct vdsp_device *clock_dev;
static _Alignas(HTP_FENCE_SLOT_SIZE) uint8_t slots[HTP_MAX_MDEV * HTP_FENCE_SLOT_SIZE];

static int setup(void **state) {
    (void) state;
    struct vdsp_target target;
    assert_true(vdsp_target_get(VDSP_ARCH_V79, &target));
    const struct vdsp_device_params p = {.target = &target, .id = 0, .n_threads = 1, .window_size = 1u << 20};
    assert_int_equal(vdsp_device_open(&p, &clock_dev), VNPU_STATUS_OK);
    return 0;
}

static int teardown(void **state) {
    (void) state;
    vdsp_device_close(clock_dev);
    return 0;
}

/* The slots as the host leaves them for a request of base: every device at base, OK, named HTP<10 + d>. */
static void slots_reset(uint32_t base) {
    memset(slots, 0, sizeof(slots));
    for (uint32_t d = 0; d < HTP_MAX_MDEV; d++) {
        uint32_t *w = (uint32_t *) (slots + d * HTP_FENCE_SLOT_SIZE);
        w[0] = base;
        w[1] = HTP_STATUS_OK;
        w[2] = 10 + d;
    }
}

static struct htp_fence fence_of(uint32_t idx, uint32_t count, uint32_t base, uint32_t timeout_us) {
    static struct htp_trace no_trace; /* cap 0: records nothing */
    no_trace.dev = clock_dev;
    return (struct htp_fence){.slots = slots,
                              .idx = idx,
                              .count = count,
                              .base = base,
                              .timeout_us = timeout_us,
                              .dev = clock_dev,
                              .tr = &no_trace};
}

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec * 1e3 + (double) ts.tv_nsec * 1e-6;
}

/* One device's run: n_barriers barriers from base; at barrier fail_at (if < n_barriers) device fail_dev arrives with
 * fail_status. Records the first non-OK status and the barrier it came at. */
struct device_run {
    uint32_t idx, base, n_barriers, fail_dev, fail_at, fail_status;
    uint32_t status, at;
    char msg[HTP_STATUS_MSG_LEN];
};

static void *device_main(void *arg) {
    struct device_run *r = arg;
    const struct htp_fence f = fence_of(r->idx, N_DEV, r->base, 5000000);
    struct htp_msg m = {r->msg, 0};
    r->status = HTP_STATUS_OK;
    for (uint32_t i = 0; i < r->n_barriers && r->status == HTP_STATUS_OK; i++) {
        const uint32_t mine = r->idx == r->fail_dev && i == r->fail_at ? r->fail_status : HTP_STATUS_OK;
        r->status = htp_fence_barrier(&f, r->base + 1 + i, mine, "test barrier", &m);
        r->at = i;
    }
    return NULL;
}

static void run_group(struct device_run *runs) {
    pthread_t th[N_DEV];
    for (uint32_t d = 0; d < N_DEV; d++) {
        assert_int_equal(pthread_create(&th[d], NULL, device_main, &runs[d]), 0);
    }
    for (uint32_t d = 0; d < N_DEV; d++) {
        pthread_join(th[d], NULL);
    }
}

/* 200 barriers from 2^32 - 100: the numbers wrap at barrier 100 and every device passes every barrier. */
static void test_barriers_wrap_around(void **state) {
    (void) state;
    const uint32_t base = UINT32_MAX - 99;
    slots_reset(base);
    struct device_run runs[N_DEV];
    for (uint32_t d = 0; d < N_DEV; d++) {
        runs[d] = (struct device_run){.idx = d, .base = base, .n_barriers = 200, .fail_dev = N_DEV, .fail_at = 200};
    }
    run_group(runs);
    for (uint32_t d = 0; d < N_DEV; d++) {
        assert_int_equal(runs[d].status, HTP_STATUS_OK);
        assert_int_equal(((uint32_t *) (slots + d * HTP_FENCE_SLOT_SIZE))[0], base + 200); /* 100, wrapped */
    }
}

/* Device 1 arrives at barrier 7 with HTP_STATUS_FAULT: every device's barrier 7 returns it, the others' messages
 * naming HTP11 (mdev 1), and no device passes barrier 7. */
static void test_error_ends_every_barrier(void **state) {
    (void) state;
    const uint32_t base = 1000;
    slots_reset(base);
    struct device_run runs[N_DEV];
    for (uint32_t d = 0; d < N_DEV; d++) {
        runs[d] = (struct device_run){
            .idx = d, .base = base, .n_barriers = 20, .fail_dev = 1, .fail_at = 7, .fail_status = HTP_STATUS_FAULT};
    }
    const double t0 = now_ms();
    run_group(runs);
    assert_true(now_ms() - t0 < 2000.0); /* far below the 5 s timeout: the error, not the timeout, ended them */
    for (uint32_t d = 0; d < N_DEV; d++) {
        assert_int_equal(runs[d].status, HTP_STATUS_FAULT);
        assert_int_equal(runs[d].at, 7);
        /* device 0 looks at device 1 first; device 2 may find device 0's copy of the error first (rule 6) */
        const char *want =
            d == 0 ? "HTP11 (mdev 1) failed at seq 1008 with status 6" : "failed at seq 1008 with status 6";
        if (d != 1 && !strstr(runs[d].msg, want)) {
            fail_msg("device %u: '%s'", d, runs[d].msg);
        }
    }
}

/* A peer's error at or before the base is an earlier request's: the barrier waits for the peer's arrival and passes;
 * a peer already past seq counts as arrived. */
static void test_stale_error_and_peer_ahead(void **state) {
    (void) state;
    const uint32_t base = 0x7FFFFFF0u; /* the signed difference crosses INT32_MAX below */
    slots_reset(base);
    uint32_t *peer1 = (uint32_t *) (slots + 1 * HTP_FENCE_SLOT_SIZE),
             *peer2 = (uint32_t *) (slots + 2 * HTP_FENCE_SLOT_SIZE);
    peer1[1] = HTP_STATUS_FENCE_TIMEOUT; /* (base, error): the previous request's */
    peer2[0] = base + 3;                 /* ahead: arrived */
    struct device_run peer = {.idx = 1, .base = base, .n_barriers = 1, .fail_dev = N_DEV, .fail_at = 1};
    pthread_t th;
    const struct htp_fence f = fence_of(0, N_DEV, base, 5000000);
    char text[HTP_STATUS_MSG_LEN];
    struct htp_msg m = {text, 0};
    assert_int_equal(pthread_create(&th, NULL, device_main, &peer), 0); /* peer 1 arrives at base + 1, OK */
    assert_int_equal(htp_fence_barrier(&f, base + 1, HTP_STATUS_OK, "test barrier", &m), HTP_STATUS_OK);
    pthread_join(th, NULL);
    assert_int_equal(peer.status, HTP_STATUS_OK);
}

/* Device 1 never arrives: device 0's barrier ends with HTP_STATUS_FENCE_TIMEOUT after the timeout, not long after,
 * naming HTP11 (mdev 1) and its slot's seq; its slot says so, and device 1's wait for a peer's error sees it. */
static void test_timeout_names_the_device(void **state) {
    (void) state;
    const uint32_t base = 40;
    slots_reset(base);
    const struct htp_fence f0 = fence_of(0, 2, base, 100000), f1 = fence_of(1, 2, base, 100000);
    char text[HTP_STATUS_MSG_LEN];
    struct htp_msg m = {text, 0};
    const double t0 = now_ms();
    assert_int_equal(htp_fence_barrier(&f0, base + 1, HTP_STATUS_OK, "pre-op barrier", &m), HTP_STATUS_FENCE_TIMEOUT);
    const double waited = now_ms() - t0;
    printf("timeout after %.1f ms: %s\n", waited, text);
    assert_true(waited >= 100.0 && waited < 1000.0);
    if (!strstr(text, "pre-op barrier (seq 41): HTP11 (mdev 1) did not arrive within 100000 us (its slot says seq 40; "
                      "VNPU_FENCE_TIMEOUT_MS sets the wait)")) {
        fail_msg("'%s'", text);
    }
    assert_int_equal(((uint32_t *) slots)[0], base + 1);
    assert_int_equal(((uint32_t *) slots)[1], HTP_STATUS_FENCE_TIMEOUT);
    assert_int_equal(htp_fence_wait_error(&f1, 1000000), HTP_STATUS_FENCE_TIMEOUT); /* at once: device 0's */
    /* and when nobody fails, the wait for an error ends by its own bound */
    slots_reset(base);
    const double t1 = now_ms();
    assert_int_equal(htp_fence_wait_error(&f1, 50000), HTP_STATUS_FENCE_TIMEOUT);
    assert_true(now_ms() - t1 >= 50.0 && now_ms() - t1 < 1000.0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_barriers_wrap_around),
        cmocka_unit_test(test_error_ends_every_barrier),
        cmocka_unit_test(test_stale_error_and_peer_ahead),
        cmocka_unit_test(test_timeout_names_the_device),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
