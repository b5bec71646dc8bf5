/*
 * Row-split groups (vnpu_htp_group_get, src/host/htp-group.c) driven as the model drives a device, over four
 * sessions (VNPU_NDEV=4): the grammar's errors, a group's sums, and the failures the fences exist for: one member
 * faulting in op 0 (HTP_REQ_INJECT_LOAD on that member only) and one never arriving at op 0's pre-op barrier
 * (HTP_REQ_INJECT_STALL). Each ends the request on every member within a bounded time (VNPU_FENCE_TIMEOUT_MS=300),
 * the host names the member and the op, and the next request computes (the faulted member on a reopened session).
 */
#include "test-common.h"

#include "backend.h"
#include "buffer.h"
#include "htp-host.h"
#include "htp-msg.h"
#include "log.h"
#include "tensor.h"
#include "vdsp.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define N 4096

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec * 1e3 + (double) ts.tv_nsec * 1e-6;
}

static struct vnpu_device *group_get(const char *name) {
    struct vnpu_device *dev = NULL;
    assert_int_equal(vnpu_htp_group_get(name, strlen(name), &dev), VNPU_STATUS_OK);
    assert_string_equal(vnpu_device_name(dev), name);
    return dev;
}

/* c = a + b (N elements each, in buf) then d = c * c on dev: two ops, so a failure in op 0 has an op after it. */
static enum vnpu_status add_mul(struct vnpu_device *dev, struct vnpu_buffer *buf, float base) {
    struct vnpu_ctx *ctx = vnpu_ctx_new(1 << 16, true);
    struct vnpu_tensor *t[4];
    for (int i = 0; i < 2; i++) {
        t[i] = vnpu_new_tensor_1d(ctx, VNPU_TYPE_F32, N);
        vnpu_buffer_place_tensor(buf, t[i], (size_t) i * N * 4);
        for (int e = 0; e < N; e++) {
            ((float *) t[i]->data)[e] = i == 0 ? base + (float) e : 1.0f;
        }
    }
    t[2] = vnpu_add(ctx, t[0], t[1]);
    vnpu_buffer_place_tensor(buf, t[2], 2 * N * 4);
    t[3] = vnpu_mul(ctx, t[2], t[2]);
    vnpu_buffer_place_tensor(buf, t[3], 3 * N * 4);
    struct vnpu_graph *g = vnpu_graph_new(ctx, 64);
    vnpu_graph_build_forward_expand(g, t[3]);
    const enum vnpu_status st = vnpu_sched_graph_compute(&dev, 1, g);
    for (int e = 0; st == VNPU_STATUS_OK && e < N; e++) {
        const float c = base + (float) e + 1.0f;
        assert_float_equal(((float *) t[3]->data)[e], c * c, 0.0f);
    }
    vnpu_ctx_free(ctx);
    return st;
}

/* Each malformed group is refused with a message saying what is wrong. */
static void test_grammar_errors(void **state) {
    (void) state;
    static const struct {
        const char *name, *why;
    } cases[] = {
        {"HTP0[0-4]", "member HTP4 does not exist (VNPU_NDEV=4 makes HTP0..HTP3)"},
        {"HTP0[0,0]", "member HTP0 is named twice"},
        {"HTP0[0-1,1]", "member HTP1 is named twice"},
        {"HTP1[0-1]", "the group is named for its first member, HTP0"},
        {"HTP0[]", "no members between the brackets"},
        {"HTP0[2-1]", "range 2-1 runs backwards"},
        {"HTP0[0-x]", "member '0-x' is not a device number (0..15) or a range a-b of them"},
        {"HTP0[0-1][2-3]", "member '0-1][2-3' is not a device number"},
        {"HTP0[0-99999999999]", "member '0-99999999999' is not a device number (0..15)"},
        {"HTP0[0,1,]", "ends with a comma"},
        {"HTP0[0-1", "expected a group HTP<n>[<members>]"},
        {"HTP0[0,1,0000000000000000000000000000000000000000000000000000000002]", "name longer than 63 bytes"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct test_log log = {0};
        struct vnpu_device *dev = NULL;
        vnpu_log_set(test_log_collect, &log, VNPU_LOG_WARN);
        const enum vnpu_status st = vnpu_htp_group_get(cases[i].name, strlen(cases[i].name), &dev);
        vnpu_log_set(NULL, NULL, VNPU_LOG_WARN);
        assert_int_equal(st, VNPU_STATUS_BAD_ARG);
        assert_null(dev);
        if (!strstr(log.text, cases[i].why)) {
            fail_msg("%s: expected '%s', got:\n%s", cases[i].name, cases[i].why, log.text);
        }
    }
}

/* Groups of two, three and four sessions, and a sparse one, compute the sums; each member's slot names it. */
static void test_group_computes(void **state) {
    (void) state;
    static const char *const names[] = {"HTP0[0-1]", "HTP0[0-2]", "HTP0[0-3]", "HTP0[0,2]", "HTP2[2,0,3]"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        struct vnpu_device *dev = group_get(names[i]);
        struct vnpu_buffer *buf = NULL;
        assert_int_equal(vnpu_buffer_type_alloc(vnpu_device_buffer_type(dev), 4 * N * 4, &buf), VNPU_STATUS_OK);
        for (int r = 0; r < 3; r++) { /* successive requests: the fence numbering carries on */
            assert_int_equal(add_mul(dev, buf, (float) r), VNPU_STATUS_OK);
        }
        vnpu_buffer_free(buf);
        vnpu_device_free(dev);
    }
}

/* flags injected into member HTP<member> of HTP0[0-2] fail the request on every member within bound_ms, the log
 * naming the member and op 0 with what (the failing member's line) and peer (the others'); the next request
 * computes, on reopened sessions when reopen. */
static void check_member_failure(uint32_t member, uint32_t flags, const char *what, const char *peer, bool reopen) {
    struct vnpu_device *dev = group_get("HTP0[0-2]"), *m = NULL;
    assert_int_equal(vnpu_htp_device_get(member, &m), VNPU_STATUS_OK);
    struct vnpu_buffer *buf = NULL;
    assert_int_equal(vnpu_buffer_type_alloc(vnpu_device_buffer_type(dev), 4 * N * 4, &buf), VNPU_STATUS_OK);
    assert_int_equal(add_mul(dev, buf, 1.0f), VNPU_STATUS_OK);

    struct test_log log = {0};
    vnpu_log_set(test_log_collect, &log, VNPU_LOG_WARN);
    vnpu_htp_device_inject(m, flags);
    const double t0 = now_ms();
    const enum vnpu_status st = add_mul(dev, buf, 2.0f);
    const double took = now_ms() - t0;
    vnpu_log_set(NULL, NULL, VNPU_LOG_WARN);
    printf("failed in %.1f ms:\n%s", took, log.text);
    assert_int_equal(st, VNPU_STATUS_DEVICE);
    assert_true(took < 3000.0); /* the 300 ms fence timeout and a margin for a loaded host, never a hang */
    if (!strstr(log.text, "failed at op 0, ADD of node") || !strstr(log.text, what) || !strstr(log.text, peer)) {
        fail_msg("the log should name HTP%u, op 0, '%s' and '%s':\n%s", member, what, peer, log.text);
    }
    for (uint32_t k = 0; k < 3; k++) { /* every member answered with the error */
        char line[64];
        snprintf(line, sizeof(line), "on HTP%u (mdev %u of 3)", k, k);
        if (!strstr(log.text, line)) {
            fail_msg("no error line from HTP%u:\n%s", k, log.text);
        }
    }
    const uint64_t opened = vdsp_sessions_opened();
    assert_int_equal(add_mul(dev, buf, 3.0f), VNPU_STATUS_OK);
    assert_int_equal(vdsp_sessions_opened() - opened, reopen ? 1 : 0);
    vnpu_buffer_free(buf);
    vnpu_device_free(m);
    vnpu_device_free(dev);
}

static void test_member_faults_mid_op(void **state) {
    (void) state;
    check_member_failure(1, HTP_REQ_INJECT_LOAD, "load from device address 0x00000000", "HTP1 (mdev 1) failed at seq",
                         true);
}

static void test_member_never_arrives(void **state) {
    (void) state;
    check_member_failure(2, HTP_REQ_INJECT_STALL, "HTP2 (mdev 2) did not arrive within 300000 us",
                         "pre-op barrier (seq", false);
}

int main(void) {
    setenv("VNPU_NDEV", "4", 1);
    setenv("VNPU_NHVX", "2", 1);
    setenv("VNPU_FENCE_TIMEOUT_MS", "300", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grammar_errors),
        cmocka_unit_test(test_group_computes),
        cmocka_unit_test(test_member_faults_mid_op),
        cmocka_unit_test(test_member_never_arrives),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
