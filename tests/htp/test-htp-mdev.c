/*
 * Partitions run one after another on HTP0 (vnpu_htp_device_partitions) and the line-ownership checker
 * (vnpu_htp_device_mdev_check, VNPU_MDEV_CHECK): issue 9's acceptance 3. A partition skewed by one row into the
 * device before (HTP_REQ_INJECT_MDEV_ROW) makes two devices' DMA write the same bytes, an error under the seed's rule;
 * chunks of half the line rule's rows (HTP_REQ_INJECT_MDEV_LINE) make two devices write one 128-byte line, which
 * DMA writes may do (the seed's rule passes it) and the strict mode, where DMA writes own their lines, catches. Each
 * error names the op, the tensor, the line with its bytes and both devices; the device computes on after it. A
 * row-split group (HTP0[0-n]) under the checker runs its members' partitions in turn the same way. A MUL_MAT on HMX
 * answers the per-op response (FP16 range counts, path) of one device however its partitions ran.
 */
#include "test-common.h"

#include "backend.h"
#include "hex-common.h"
#include "buffer.h"
#include "htp-host.h"
#include "htp-msg.h"
#include "log.h"
#include "tensor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* sum = a + b for rows of ne0 f32, nrows of them, in a fresh HTP0 buffer (sum at a line-aligned offset), on dev in
 * its current partitions; checks the sums when the compute succeeds. */
static enum vnpu_status add_rows(struct vnpu_device *dev, int64_t ne0, int64_t nrows) {
    struct vnpu_buffer *buf = NULL;
    const size_t bytes = (size_t) (ne0 * nrows * 4 + HEX_L2_LINE_SIZE - 1) / HEX_L2_LINE_SIZE * HEX_L2_LINE_SIZE;
    assert_int_equal(vnpu_buffer_type_alloc(vnpu_device_buffer_type(dev), 3 * bytes, &buf), VNPU_STATUS_OK);
    struct vnpu_ctx *ctx = vnpu_ctx_new(1 << 16, true);
    struct vnpu_tensor *a = vnpu_new_tensor_2d(ctx, VNPU_TYPE_F32, ne0, nrows);
    struct vnpu_tensor *b = vnpu_new_tensor_2d(ctx, VNPU_TYPE_F32, ne0, nrows);
    vnpu_buffer_place_tensor(buf, a, 0);
    vnpu_buffer_place_tensor(buf, b, bytes);
    for (int64_t i = 0; i < ne0 * nrows; i++) {
        ((float *) a->data)[i] = (float) i;
        ((float *) b->data)[i] = 0.5f;
    }
    struct vnpu_tensor *sum = vnpu_add(ctx, a, b);
    vnpu_set_name(sum, "sum");
    vnpu_buffer_place_tensor(buf, sum, 2 * bytes);
    struct vnpu_graph *g = vnpu_graph_new(ctx, 8);
    vnpu_graph_build_forward_expand(g, sum);
    const enum vnpu_status st = vnpu_sched_graph_compute(&dev, 1, g);
    for (int64_t i = 0; st == VNPU_STATUS_OK && i < ne0 * nrows; i++) {
        assert_float_equal(((float *) sum->data)[i], (float) i + 0.5f, 0.0f);
    }
    vnpu_ctx_free(ctx);
    vnpu_buffer_free(buf);
    return st;
}

/* ADD of nrows rows of ne0 f32 as n partitions (HTP0 alone, or the group HTP0[0-(n-1)] when group) under check mode
 * with inject; *log gets the errors. */
static enum vnpu_status add_checked_on(bool group, uint32_t n, uint32_t mode, uint32_t inject, int64_t ne0,
                                       int64_t nrows, struct test_log *log) {
    struct vnpu_device *dev = NULL;
    if (group) {
        char name[16];
        snprintf(name, sizeof(name), "HTP0[0-%u]", n - 1);
        assert_int_equal(vnpu_htp_group_get(name, strlen(name), &dev), VNPU_STATUS_OK);
    } else {
        assert_int_equal(vnpu_htp_device_get(0, &dev), VNPU_STATUS_OK);
        assert_int_equal(vnpu_htp_device_partitions(dev, n), VNPU_STATUS_OK);
    }
    assert_int_equal(vnpu_htp_device_mdev_check(dev, mode), VNPU_STATUS_OK);
    memset(log, 0, sizeof(*log));
    vnpu_log_set(test_log_collect, log, VNPU_LOG_WARN);
    vnpu_htp_device_inject(dev, inject);
    const enum vnpu_status st = add_rows(dev, ne0, nrows);
    vnpu_log_set(NULL, NULL, VNPU_LOG_WARN);
    assert_int_equal(add_rows(dev, ne0, nrows), VNPU_STATUS_OK); /* the next request computes */
    if (!group) {
        vnpu_htp_device_partitions(dev, 1);
    }
    vnpu_htp_device_mdev_check(dev, 0);
    vnpu_device_free(dev);
    return st;
}

static enum vnpu_status add_checked(uint32_t n, uint32_t mode, uint32_t inject, int64_t ne0, int64_t nrows,
                                    struct test_log *log) {
    return add_checked_on(false, n, mode, inject, ne0, nrows, log);
}

/* The error must name the op, the tensor, line (with its bytes) and both devices. */
static void expect_conflict(const struct test_log *log, uint32_t dev_a, uint32_t dev_b, size_t line) {
    char devices[64], where[96];
    snprintf(devices, sizeof(devices), "devices %u and %u both write line %zu", dev_a, dev_b, line);
    snprintf(where, sizeof(where), "(bytes %zu..%zu) of tensor 'sum'", line * HEX_L2_LINE_SIZE,
             line * HEX_L2_LINE_SIZE + HEX_L2_LINE_SIZE - 1);
    if (!strstr(log->text, "VNPU_MDEV_CHECK: op 0 (ADD)") || !strstr(log->text, devices) || !strstr(log->text, where)) {
        fail_msg("expected an error with '%s' and '%s':\n%s", devices, where, log->text);
    }
}

static uint32_t ceil_div(uint32_t a, uint32_t b) {
    return (a + b - 1) / b;
}

/* Unskewed partitions pass both modes on rows smaller than a line (32-byte rows: 4 per chunk) and on line rows. */
static void test_clean_partitions(void **state) {
    (void) state;
    struct test_log log;
    for (uint32_t mode = 1; mode <= 2; mode++) {
        for (uint32_t n = 2; n <= 4; n++) {
            assert_int_equal(add_checked(n, mode, 0, 8, 64, &log), VNPU_STATUS_OK);
            assert_int_equal(add_checked(n, mode, 0, 32, 13, &log), VNPU_STATUS_OK);
            assert_int_equal(log.n_errors, 0);
        }
    }
}

/* Rows of one line (32 f32), 12 rows on 2 devices: device 1's rows start at ceil(12 / 2) = 6; skewed, at 5, so both
 * devices' DMA writes row 5, line 5. */
static void test_off_by_one_row(void **state) {
    (void) state;
    struct test_log log;
    const uint32_t rows = 12, n = 2, start1 = ceil_div(rows, n) - 1;
    assert_int_equal(add_checked(n, 1, HTP_REQ_INJECT_MDEV_ROW, 32, rows, &log), VNPU_STATUS_DEVICE);
    expect_conflict(&log, 0, 1, start1 * 32 * 4 / HEX_L2_LINE_SIZE);
    if (!strstr(log.text, "DMA writes overlap")) {
        fail_msg("expected overlapping DMA bytes:\n%s", log.text);
    }
}

/* Rows of 32 bytes, 64 rows on 3 devices: the rule's chunk is 128 / gcd(32, 128) = 4 rows; skewed to 2, 32 chunks,
 * ceil(32 / 3) = 11 per device, so device 1 starts at row 22, byte 704, inside line 5 with device 0's rows 20, 21. */
static void test_split_line(void **state) {
    (void) state;
    struct test_log log;
    const uint32_t row = 32, rows = 64, n = 3, half = HEX_L2_LINE_SIZE / row / 2,
                   start1 = ceil_div(rows / half, n) * half;
    assert_true(start1 * row % HEX_L2_LINE_SIZE != 0); /* the skew does split a line */
    assert_int_equal(add_checked(n, 2, HTP_REQ_INJECT_MDEV_LINE, row / 4, rows, &log), VNPU_STATUS_DEVICE);
    expect_conflict(&log, 0, 1, start1 * row / HEX_L2_LINE_SIZE);
    /* the seed's rule: DMA writes may share a line when their bytes do not overlap */
    assert_int_equal(add_checked(n, 1, HTP_REQ_INJECT_MDEV_LINE, row / 4, rows, &log), VNPU_STATUS_OK);
    assert_int_equal(log.n_errors, 0);
}

/* A row-split group under the checker sends each member's partition in turn on its own session: clean partitions
 * pass (the sums checked), the skewed one fails as on one session. */
static void test_group_checked(void **state) {
    (void) state;
    struct test_log log;
    for (uint32_t n = 2; n <= 4; n++) {
        assert_int_equal(add_checked_on(true, n, 1, 0, 32, 13, &log), VNPU_STATUS_OK);
        assert_int_equal(log.n_errors, 0);
    }
    assert_int_equal(add_checked_on(true, 2, 1, HTP_REQ_INJECT_MDEV_ROW, 32, 12, &log), VNPU_STATUS_DEVICE);
    expect_conflict(&log, 0, 1, (12 / 2 - 1) * 32 * 4 / HEX_L2_LINE_SIZE);
}

/* MUL_MAT's result and response on dev (HTP0 alone in n partitions, or a group): F32 weights [64, 96] (3 column
 * tiles, one per partition of 3) times x + x, x [64, 8], the MUL_MAT op 1 of the request (after the ADD). The weights
 * overflow FP16 in rows 5, 40 and 70 (one per tile) and flush in row 90; the activations flush at one value and
 * overflow at another; so the results overflow in those rows and in column 7. */
static void mm_fp16_on(struct vnpu_device *dev, float *out, struct htp_op_rsp *rsp) {
    const int64_t k = 64, m = 96, n = 8;
    struct vnpu_buffer *buf = NULL;
    assert_int_equal(vnpu_buffer_type_alloc(vnpu_device_buffer_type(dev), 1 << 16, &buf), VNPU_STATUS_OK);
    struct vnpu_ctx *ctx = vnpu_ctx_new(1 << 16, true);
    struct vnpu_tensor *w = vnpu_new_tensor_2d(ctx, VNPU_TYPE_F32, k, m);
    struct vnpu_tensor *x = vnpu_new_tensor_2d(ctx, VNPU_TYPE_F32, k, n);
    vnpu_buffer_place_tensor(buf, w, 0);
    vnpu_buffer_place_tensor(buf, x, 1 << 15);
    float *wf = w->data, *xf = x->data;
    for (int64_t i = 0; i < k * m; i++) {
        wf[i] = 0.01f;
    }
    for (int64_t i = 0; i < k * n; i++) {
        xf[i] = 1.0f;
    }
    wf[5 * k + 0] = 1e5f, wf[40 * k + 1] = 1e5f, wf[70 * k + 2] = 2e5f, wf[90 * k + 3] = 1e-30f;
    xf[2 * k + 10] = 1e-30f, xf[7 * k + 20] = 1e5f;
    struct vnpu_tensor *x2 = vnpu_add(ctx, x, x);
    vnpu_buffer_place_tensor(buf, x2, (1 << 15) + 4096);
    struct vnpu_tensor *mm = vnpu_mul_mat(ctx, w, x2);
    vnpu_buffer_place_tensor(buf, mm, (1 << 15) + 8192);
    struct vnpu_graph *g = vnpu_graph_new(ctx, 8);
    vnpu_graph_build_forward_expand(g, mm);
    struct test_log log;
    memset(&log, 0, sizeof(log));
    vnpu_log_set(test_log_collect, &log, VNPU_LOG_WARN); /* the FP16 warnings */
    assert_int_equal(vnpu_sched_graph_compute(&dev, 1, g), VNPU_STATUS_OK);
    vnpu_log_set(NULL, NULL, VNPU_LOG_WARN);
    assert_int_equal(log.n_errors, 0);
    assert_true(vnpu_htp_node_rsp(dev, mm, rsp));
    memcpy(out, mm->data, (size_t) (m * n) * sizeof(float));
    vnpu_ctx_free(ctx);
    vnpu_buffer_free(buf);
}

/* HTP0 in 2 and 3 partitions one after another, and the group HTP0[0-1] at once, answer the MUL_MAT's result and
 * response of HTP0 alone: the weights' and results' counts of every partition added up (the last partition alone
 * has one overflowing weight row of the three), the activations' counted once. The partitioned runs come first, so
 * that no response of HTP0 alone is left in the request block for them to be read from. */
static void test_fp16_range_partitions(void **state) {
    (void) state;
    static float got[3][96 * 8], ref[96 * 8];
    struct htp_op_rsp rsp[3], ref_rsp;
    struct vnpu_device *dev = NULL;
    assert_int_equal(vnpu_htp_group_get("HTP0[0-1]", 9, &dev), VNPU_STATUS_OK);
    mm_fp16_on(dev, got[0], &rsp[0]);
    vnpu_device_free(dev);
    assert_int_equal(vnpu_htp_device_get(0, &dev), VNPU_STATUS_OK);
    for (uint32_t n = 2; n <= 3; n++) {
        assert_int_equal(vnpu_htp_device_partitions(dev, n), VNPU_STATUS_OK);
        mm_fp16_on(dev, got[n - 1], &rsp[n - 1]);
    }
    assert_int_equal(vnpu_htp_device_partitions(dev, 1), VNPU_STATUS_OK);
    mm_fp16_on(dev, ref, &ref_rsp);
    vnpu_device_free(dev);
    assert_int_equal(ref_rsp.mm_path, HTP_RSP_PATH_HMX);
    assert_true(ref_rsp.fp16[HTP_FP16_SRC0].n_overflow >= 3 && ref_rsp.fp16[HTP_FP16_SRC0].n_flush >= 1);
    assert_true(ref_rsp.fp16[HTP_FP16_SRC1].n_overflow >= 1 && ref_rsp.fp16[HTP_FP16_SRC1].n_flush >= 1);
    assert_true(ref_rsp.fp16[HTP_FP16_DST].n_overflow >= 3 * 8);
    for (uint32_t k = 0; k < 3; k++) {
        assert_memory_equal(got[k], ref, sizeof(ref));
        assert_memory_equal(&rsp[k], &ref_rsp, sizeof(ref_rsp));
    }
}

int main(void) {
    setenv("VNPU_NDEV", "4", 1);      /* the groups' members HTP0..HTP3, before the first device opens */
    setenv("VNPU_MM_PATH", "hmx", 1); /* test_fp16_range_partitions: every MUL_MAT on HMX */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clean_partitions),
        cmocka_unit_test(test_off_by_one_row),
        cmocka_unit_test(test_split_line),
        cmocka_unit_test(test_group_checked),
        cmocka_unit_test(test_fp16_range_partitions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
