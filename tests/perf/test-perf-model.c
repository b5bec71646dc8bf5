/*
 * The cost model's arithmetic (src/perf/perf-model.h) on thread records made up here, against a target made up here
 * (round numbers, so every expected time is exact): the resource bound of each HVX resource, packets from a
 * calibration line (by the ratio and by counted loop trips), one packet more per loop iteration costing one cycle per
 * trip, the slowest thread, more busy threads than contexts, the DMA, HMX and fixed bounds, and the calibration file's
 * errors.
 */
#include "perf-model.h"
#include "test-common.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* 1000 MHz (a cycle is a nanosecond), 1 cycle per packet, 2 contexts, 10 GB/s (10 bytes a nanosecond), an HMX of
 * 1024 MACs a cycle (a 32x32x32 tile in 32 cycles), 5 us per op, 20 us per barrier. */
static const struct perf_target target = {
    .name = "t",
    .arch = 79,
    .clock_mhz = 1000,
    .cycles_per_packet = 1.0,
    .n_hw_threads = 4,
    .n_hvx_contexts = 2,
    .n_hmx = 1,
    .hmx_fp16_macs_per_cycle = 1024.0,
    .ddr_gbytes_per_s = 10.0,
    .dma_desc_cycles = 100,
    .request_us = 50.0,
    .op_us = 5.0,
    .fence_us = 20.0,
    .npu_library = true,
};

static struct htp_perf_names names;

static int setup(void **state) {
    (void) state;
    memset(&names, 0, sizeof(names));
    names.n = 3;
    snprintf(names.name[0], HTP_PERF_NAME_LEN, "other");
    snprintf(names.name[1], HTP_PERF_NAME_LEN, "kernel_a");
    snprintf(names.name[2], HTP_PERF_NAME_LEN, "kernel_b");
    return 0;
}

enum { LD, ST, VA, VA_DV, VX, VX_DV, VS, VP, VP_VS, GATHER, SCATTER };

/* A thread whose n instructions of class cls all ran in scope id (trips iterations of its hot loop). */
static struct htp_thread_perf thread_of(int cls, uint32_t n, uint8_t id, uint32_t trips) {
    struct htp_thread_perf t = {0};
    t.hvx[cls] = n;
    t.scope_id[0] = 0;
    t.scope_id[1] = id;
    t.scope_n[id ? 1 : 0] = n;
    t.scope_trips[1] = id ? trips : 0;
    t.jobs = 1;
    return t;
}

static struct perf_op_time model(const struct perf_calib *c, const struct htp_thread_perf *th, uint32_t n,
                                 bool fenced) {
    struct perf_op_time m;
    perf_model_op(&target, c, th, n, &names, fenced, NULL, NULL, &m);
    return m;
}

static struct perf_calib *calib_of(const char *text) {
    char path[4096];
    snprintf(path, sizeof(path), "%s/test-perf-model.tsv", test_tmpdir());
    test_write_file(path, text, strlen(text));
    struct perf_calib *c = NULL;
    assert_int_equal(perf_calib_load(path, &c), VNPU_STATUS_OK);
    return c;
}

static void test_resource_bounds(void **state) {
    (void) state;
    /* one class at a time, 1200 instructions, no calibration: packets = the resource's bound */
    static const struct {
        int cls;
        double packets;
    } want[] = {
        {LD, 1200},      /* one load resource */
        {ST, 1200},      /* one store */
        {VS, 1200},      /* one shift */
        {VP, 1200},      /* one permute */
        {VP_VS, 1200},   /* permute and shift, one each */
        {VX, 600},       /* two multiply resources */
        {VX_DV, 1200},   /* both of them */
        {VA, 300},       /* any resource: instructions over 4 slots bind before units over 6 */
        {VA_DV, 400},    /* two units each: 2400 units over 6 resources */
        {GATHER, 1200},  /* load and store */
        {SCATTER, 1200}, /* store */
    };
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        const struct htp_thread_perf t = thread_of(want[i].cls, 1200, 0, 0);
        const struct perf_op_time m = model(NULL, &t, 1, false);
        assert_int_equal(m.packets, (uint64_t) want[i].packets);
        assert_true(fabs(m.hvx_us - want[i].packets * 1e-3) < 1e-9);
        assert_true(fabs(m.us - (m.hvx_us + 5.0)) < 1e-9);
        assert_int_equal(m.uncalibrated, 1200);
        assert_int_equal(m.bound, m.hvx_us > 5.0 ? PERF_BOUND_RESOURCES : PERF_BOUND_FIXED);
    }
}

static void test_calibrated_packets(void **state) {
    (void) state;
    struct perf_calib *c = calib_of("# made up\nfunction\tpackets\thvx\tdepth\tloop\nkernel_a\t30\t20\t1\t0x40\n");
    assert_int_equal(perf_calib_count(c), 1);
    /* by the ratio: 20000 instructions at 30 packets per 20 */
    struct htp_thread_perf t = thread_of(VA, 20000, 1, 0);
    struct perf_op_time m = model(c, &t, 1, false);
    assert_int_equal(m.packets, 30000);
    assert_int_equal(m.uncalibrated, 0);
    assert_int_equal(m.bound, PERF_BOUND_PACKETS);
    /* by the trips: 900 iterations of 30 packets, the 2000 instructions beyond 900 x 20 at the resource bound (VA: 4
     * a packet) */
    t = thread_of(VA, 20000, 1, 900);
    m = model(c, &t, 1, false);
    assert_int_equal(m.packets, 900 * 30 + 2000 / 4);
    const double before = m.hvx_us;
    /* the same kernel compiled with one packet more in its loop: one cycle (a nanosecond) more per trip */
    perf_calib_free(c);
    c = calib_of("function\tpackets\thvx\tdepth\tloop\nkernel_a\t31\t20\t1\t0x40\n");
    m = model(c, &t, 1, false);
    assert_true(fabs((m.hvx_us - before) - 900 * 1e-3) < 1e-9);
    /* a scope without a line: resource bound */
    t = thread_of(VA, 20000, 2, 0);
    m = model(c, &t, 1, false);
    assert_int_equal(m.packets, 5000);
    assert_int_equal(m.uncalibrated, 20000);
    perf_calib_free(c);
}

static void test_threads_and_contexts(void **state) {
    (void) state;
    struct htp_thread_perf th[3] = {thread_of(LD, 1000, 0, 0), thread_of(LD, 2500, 0, 0), thread_of(LD, 2500, 0, 0)};
    /* 3 busy threads on 2 contexts: all 6000 packets over 2 contexts, above the slowest thread's 2500 */
    struct perf_op_time m = model(NULL, th, 3, false);
    assert_true(fabs(m.hvx_us - 3.0) < 1e-9);
    /* 2 busy threads: the slowest */
    m = model(NULL, th, 2, false);
    assert_true(fabs(m.hvx_us - 2.5) < 1e-9);
    th[1].hvx[LD] = th[1].scope_n[0] = 10000;
    m = model(NULL, th, 2, false);
    assert_true(fabs(m.hvx_us - 10.0) < 1e-9);
    /* DMA descriptors cost their set-up on the thread that pushes them */
    th[1].dma_desc = 50;
    m = model(NULL, th, 2, false);
    assert_true(fabs(m.hvx_us - 15.0) < 1e-9);
}

static void test_dma_hmx_fixed(void **state) {
    (void) state;
    struct htp_thread_perf th[2] = {thread_of(LD, 1000, 0, 0), thread_of(LD, 1000, 0, 0)};
    th[0].dma_to_vtcm = 100000; /* 200 KB both ways over both threads at 10 GB/s: 20 us */
    th[1].dma_to_ddr = 100000;
    th[1].dma_vtcm_to_vtcm = 1u << 30; /* within VTCM: not DDR traffic */
    struct perf_op_time m = model(NULL, th, 2, false);
    assert_true(fabs(m.dma_us - 20.0) < 1e-9);
    assert_int_equal(m.bound, PERF_BOUND_DMA);
    assert_true(fabs(m.us - 25.0) < 1e-9);
    /* 1000 tile MACs on the one HMX (both threads' count): 32 cycles each, and an accumulator store 32 */
    th[0].hmx[1] = th[1].hmx[1] = 500;
    th[0].hmx[2] = 1;
    m = model(NULL, th, 2, false);
    assert_true(fabs(m.hmx_us - (1000 * 32 + 32) * 1e-3) < 1e-9);
    assert_int_equal(m.bound, PERF_BOUND_HMX);
    /* a group's op: two barriers */
    memset(th, 0, sizeof(th));
    m = model(NULL, th, 2, true);
    assert_int_equal(m.bound, PERF_BOUND_FIXED);
    assert_true(fabs(m.us - 45.0) < 1e-9);
}

static void test_calib_errors(void **state) {
    (void) state;
    static const struct {
        const char *text, *why;
    } bad[] = {
        {"kernel_a\t3\t2\t1\t0x40\n", ":1: expected the header"},
        {"function\tpackets\thvx\tdepth\tloop\nkernel_a\t3\t2\t1\n", ":2: expected 5 tab-separated fields"},
        {"function\tpackets\thvx\tdepth\tloop\nkernel_a\t0\t2\t1\t-\n", ":2: packets and hvx must be integers"},
        {"function\tpackets\thvx\tdepth\tloop\n\nkernel_a\tx\t2\t1\t-\n", ":3: packets and hvx must be integers"},
        {"", ": no header line"},
        {"function\tpackets\thvx\tdepth\tloop\n", ": no function lines after the header"},
        {"function\tpackets\thvx\tdepth\tloop\nkernel_a\t3\t2\t1\t0x40\textra\n",
         ":2: expected 5 tab-separated fields"},
        {"function\tpackets\thvx\tdepth\tloop\nkernel_a\t3\t2\t1\t-\nkernel_a\t4\t2\t1\t-\n",
         ":3: a second line for kernel_a"},
    };
    char path[4096];
    snprintf(path, sizeof(path), "%s/test-perf-model-bad.tsv", test_tmpdir());
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        test_write_file(path, bad[i].text, strlen(bad[i].text));
        struct test_log log = {0};
        vnpu_log_set(test_log_collect, &log, VNPU_LOG_WARN);
        struct perf_calib *c = (struct perf_calib *) 1;
        assert_int_equal(perf_calib_load(path, &c), VNPU_STATUS_BAD_FILE);
        vnpu_log_set(NULL, NULL, VNPU_LOG_WARN);
        assert_null(c);
        assert_non_null(strstr(log.text, path));
        assert_non_null(strstr(log.text, bad[i].why));
    }
    struct test_log log = {0};
    vnpu_log_set(test_log_collect, &log, VNPU_LOG_WARN);
    struct perf_calib *c;
    assert_int_equal(perf_calib_load("/nonexistent/calib.tsv", &c), VNPU_STATUS_IO);
    vnpu_log_set(NULL, NULL, VNPU_LOG_WARN);
    assert_non_null(strstr(log.text, "/nonexistent/calib.tsv"));
    assert_int_equal(perf_calib_load(test_tmpdir(), &c), VNPU_STATUS_IO); /* a directory */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_resource_bounds, setup),
        cmocka_unit_test_setup(test_calibrated_packets, setup),
        cmocka_unit_test_setup(test_threads_and_contexts, setup),
        cmocka_unit_test_setup(test_dma_hmx_fixed, setup),
        cmocka_unit_test(test_calib_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
