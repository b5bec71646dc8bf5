/*
 * The HTP device as the model drives it (src/host over src/vdsp and libvnpu-htp-v79.so): device names,
 * supports_op's static answers, rows too wide for a thread's share of VTCM, faults injected into a request (a load from
 * an unmapped device address, a DMA row leaving VTCM) ending that request with an error naming the op while the next
 * request runs on a reopened session, buffers freed and reallocated (the same fd must not reach a stale mapping), runs
 * of nodes split over requests by the 16-buffer limit, a window too small for every buffer (the sliding
 * window), and tensors outside shared DDR staged through it (a SET_ROWS writing part of its staged dst too; weights
 * kept until their memory is forgotten).
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

static struct vnpu_device *open_htp0(void) {
    struct vnpu_device *dev = NULL;
    assert_int_equal(vnpu_htp_device_get(0, &dev), VNPU_STATUS_OK);
    return dev;
}

/* An F32 tensor of n elements placed at offset off of buf, filled with base + i. */
static struct vnpu_tensor *vec_in(struct vnpu_ctx *ctx, struct vnpu_buffer *buf, size_t off, int64_t n, float base) {
    struct vnpu_tensor *t = vnpu_new_tensor_1d(ctx, VNPU_TYPE_F32, n);
    vnpu_buffer_place_tensor(buf, t, off);
    for (int64_t i = 0; i < n; i++) {
        ((float *) t->data)[i] = base + (float) i;
    }
    return t;
}

/* Compute out (whose graph has every tensor placed) on dev alone. */
static enum vnpu_status compute_on(struct vnpu_device *dev, struct vnpu_ctx *ctx, struct vnpu_tensor *out) {
    struct vnpu_graph *g = vnpu_graph_new(ctx, 64);
    vnpu_graph_build_forward_expand(g, out);
    return vnpu_sched_graph_compute(&dev, 1, g);
}

/* dst = a + b for n elements in one HTP0 buffer; checks the sums. */
static enum vnpu_status add_once(struct vnpu_device *dev, struct vnpu_buffer *buf, int64_t n, float base) {
    struct vnpu_ctx *ctx = vnpu_ctx_new(1 << 16, true);
    const size_t bytes = (size_t) n * 4;
    struct vnpu_tensor *a = vec_in(ctx, buf, 0, n, base), *b = vec_in(ctx, buf, bytes, n, 1000.0f);
    struct vnpu_tensor *c = vnpu_add(ctx, a, b);
    vnpu_buffer_place_tensor(buf, c, 2 * bytes);
    const enum vnpu_status st = compute_on(dev, ctx, c);
    for (int64_t i = 0; st == VNPU_STATUS_OK && i < n; i++) {
        assert_float_equal(((float *) c->data)[i], base + 1000.0f + 2.0f * (float) i, 0.0f);
    }
    vnpu_ctx_free(ctx);
    return st;
}

static void test_device_names(void **state) {
    (void) state;
    uint32_t index = 99;
    assert_true(vnpu_htp_device_parse("HTP0", 4, &index) && index == 0);
    assert_true(vnpu_htp_device_parse("HTP15", 5, &index) && index == 15);
    assert_false(vnpu_htp_device_parse("HTP", 3, &index));
    assert_false(vnpu_htp_device_parse("HTP01", 5, &index));
    assert_false(vnpu_htp_device_parse("HTPx", 4, &index));
    assert_false(vnpu_htp_device_parse("CPU", 3, &index));
    struct vnpu_device *dev = NULL;
    assert_int_equal(vnpu_htp_device_get(1, &dev), VNPU_STATUS_BAD_ARG); /* VNPU_NDEV defaults to 1 */
    assert_null(dev);
    assert_string_equal(vnpu_buffer_type_name(vnpu_htp_weight_buffer_type(0)), "HTP0-REPACK");
    assert_null(vnpu_htp_weight_buffer_type(1));
    dev = open_htp0();
    assert_string_equal(vnpu_device_name(dev), "HTP0");
    assert_true(vnpu_htp_device_is(dev));
    assert_string_equal(vnpu_buffer_type_name(vnpu_device_buffer_type(dev)), "HTP0");
    vnpu_device_free(dev);
}

/* supports_op answers from types, shapes and strides, before any memory exists. */
static void test_supports_op(void **state) {
    (void) state;
    struct vnpu_device *dev = open_htp0();
    struct vnpu_ctx *ctx = vnpu_ctx_new(1 << 16, true);
    struct vnpu_tensor *a = vnpu_new_tensor_2d(ctx, VNPU_TYPE_F32, 64, 8);
    struct vnpu_tensor *w = vnpu_new_tensor_1d(ctx, VNPU_TYPE_F32, 64);
    struct vnpu_tensor *h = vnpu_new_tensor_2d(ctx, VNPU_TYPE_F16, 64, 8);
    struct vnpu_tensor *m = vnpu_new_tensor_2d(ctx, VNPU_TYPE_F32, 64, 16);
    assert_true(vnpu_device_supports_op(dev, vnpu_add(ctx, a, w)));
    assert_true(vnpu_device_supports_op(dev, vnpu_rms_norm(ctx, a, 1e-5f)));
    assert_true(vnpu_device_supports_op(dev, vnpu_silu(ctx, a)));
    assert_false(vnpu_device_supports_op(dev, vnpu_add(ctx, h, h)));                    /* F16 */
    assert_false(vnpu_device_supports_op(dev, vnpu_silu(ctx, vnpu_transpose(ctx, a)))); /* strided elements */
    assert_true(vnpu_device_supports_op(dev, vnpu_mul_mat(ctx, m, a)));
    struct vnpu_tensor *q5 = vnpu_new_tensor_2d(ctx, VNPU_TYPE_Q5_1, 64, 16);
    assert_false(vnpu_device_supports_op(dev, vnpu_mul_mat(ctx, q5, a))); /* no NPU kernel for Q5_1 weights */
    assert_null(a->data);                                                 /* nothing was allocated to answer */
    vnpu_ctx_free(ctx);
    vnpu_device_free(dev);
}

/* Rows of 1 MiB: three buffers twice (6 MiB) fit the 8 MiB of VTCM on one thread, not on each of two, so the plan
 * runs them on one; rows of 4 MiB fit on none and the op stays off the NPU. */
static void test_wide_rows(void **state) {
    (void) state;
    struct vnpu_device *dev = open_htp0();
    struct vnpu_ctx *ctx = vnpu_ctx_new(1 << 16, true);
    const int64_t ne0 = 256 * 1024, nrows = 4, n = ne0 * nrows;
    struct vnpu_tensor *huge = vnpu_new_tensor_1d(ctx, VNPU_TYPE_F32, 4 * ne0);
    assert_false(vnpu_device_supports_op(dev, vnpu_add(ctx, huge, huge)));
    struct vnpu_buffer *buf = NULL;
    assert_int_equal(vnpu_buffer_type_alloc(vnpu_device_buffer_type(dev), 3 * (size_t) n * 4, &buf), VNPU_STATUS_OK);
    struct vnpu_tensor *a = vnpu_reshape_2d(ctx, vec_in(ctx, buf, 0, n, 0.0f), ne0, nrows);
    struct vnpu_tensor *b = vnpu_reshape_2d(ctx, vec_in(ctx, buf, (size_t) n * 4, n, 3.0f), ne0, nrows);
    struct vnpu_tensor *c = vnpu_add(ctx, a, b);
    assert_true(vnpu_device_supports_op(dev, c));
    vnpu_buffer_place_tensor(buf, c, 2 * (size_t) n * 4);
    assert_int_equal(compute_on(dev, ctx, c), VNPU_STATUS_OK);
    for (int64_t i = 0; i < n; i += 4097) {
        assert_float_equal(((float *) c->data)[i], 3.0f + 2.0f * (float) i, 0.0f);
    }
    vnpu_buffer_free(buf);
    vnpu_ctx_free(ctx);
    vnpu_device_free(dev);
}

/* A fault injected into op 0 fails the request with a message naming the op and the fault; the session is
 * reopened and the next request computes. */
static void check_injected_fault(uint32_t flags, const char *what) {
    struct vnpu_device *dev = open_htp0();
    struct vnpu_buffer *buf = NULL;
    assert_int_equal(vnpu_buffer_type_alloc(vnpu_device_buffer_type(dev), 3 * 4096 * 4, &buf), VNPU_STATUS_OK);
    assert_int_equal(add_once(dev, buf, 4096, 1.0f), VNPU_STATUS_OK);

    struct test_log log = {0};
    vnpu_log_set(test_log_collect, &log, VNPU_LOG_WARN);
    vnpu_htp_device_inject(dev, flags);
    const enum vnpu_status st = add_once(dev, buf, 4096, 2.0f);
    vnpu_log_set(NULL, NULL, VNPU_LOG_WARN);
    assert_int_equal(st, VNPU_STATUS_DEVICE);
    if (!strstr(log.text, "op 0, ADD of node") || !strstr(log.text, what)) {
        fail_msg("the error should name op 0 (ADD) and '%s':\n%s", what, log.text);
    }

    assert_int_equal(add_once(dev, buf, 4096, 3.0f), VNPU_STATUS_OK); /* on a reopened session */
    vnpu_buffer_free(buf);
    vnpu_device_free(dev);
}

static void test_fault_unmapped_load(void **state) {
    (void) state;
    check_injected_fault(HTP_REQ_INJECT_LOAD, "load from device address 0x00000000");
}

static void test_fault_dma_outside_vtcm(void **state) {
    (void) state;
    check_injected_fault(HTP_REQ_INJECT_DMA, "past the end of VTCM");
}

/* A freed buffer's fd is the next buffer's (the lowest free descriptor): each round's sums check that the
 * session did not keep the old mapping for it and read the previous round's numbers. */
static void test_buffer_free_unmaps(void **state) {
    (void) state;
    struct vnpu_device *dev = open_htp0();
    for (int i = 0; i < 4; i++) {
        struct vnpu_buffer *buf = NULL;
        assert_int_equal(vnpu_buffer_type_alloc(vnpu_device_buffer_type(dev), 3 * 256 * 4, &buf), VNPU_STATUS_OK);
        assert_int_equal(add_once(dev, buf, 256, 100.0f * (float) i), VNPU_STATUS_OK);
        vnpu_buffer_free(buf);
    }
    vnpu_device_free(dev);
}

/* Twenty inputs in twenty buffers summed in one run: more buffers than one request carries. */
static void test_requests_split_by_buffers(void **state) {
    (void) state;
    struct vnpu_device *dev = open_htp0();
    struct vnpu_ctx *ctx = vnpu_ctx_new(1 << 18, true);
    struct vnpu_buffer *bufs[21];
    const int n = 20;
    struct vnpu_tensor *sum = NULL;
    for (int i = 0; i <= n; i++) {
        assert_int_equal(vnpu_buffer_type_alloc(vnpu_device_buffer_type(dev), 4096, &bufs[i]), VNPU_STATUS_OK);
    }
    for (int i = 0; i < n; i++) {
        struct vnpu_tensor *x = vec_in(ctx, bufs[i], 0, 100, (float) i);
        if (!sum) {
            sum = x;
            continue;
        }
        sum = vnpu_add(ctx, sum, x);
        vnpu_buffer_place_tensor(bufs[n], sum, (size_t) (i % 2) * 512); /* ping-pong in the last buffer */
    }
    assert_int_equal(compute_on(dev, ctx, sum), VNPU_STATUS_OK);
    for (int e = 0; e < 100; e++) {
        assert_float_equal(((float *) sum->data)[e], 190.0f + 20.0f * (float) e, 0.0f);
    }
    for (int i = 0; i <= n; i++) {
        vnpu_buffer_free(bufs[i]);
    }
    vnpu_ctx_free(ctx);
    vnpu_device_free(dev);
}

/* A 6 MiB window holds the 2 MiB activations and three of six 1 MiB weight buffers: later requests map
 * theirs by unmapping the ones they do not use, twice around. */
static void test_sliding_window(void **state) {
    (void) state;
    setenv("VNPU_WINDOW_MB", "6", 1);
    struct vnpu_device *dev = open_htp0();
    unsetenv("VNPU_WINDOW_MB");
    const int64_t n = 256 * 1024; /* 1 MiB of f32 */
    struct vnpu_buffer *act = NULL, *w[6];
    assert_int_equal(vnpu_buffer_type_alloc(vnpu_device_buffer_type(dev), 2 * (size_t) n * 4, &act), VNPU_STATUS_OK);
    struct vnpu_buffer_type *wbt = vnpu_device_weight_buffer_type(dev, NULL);
    assert_string_equal(vnpu_buffer_type_name(wbt), "HTP0-REPACK");
    for (int i = 0; i < 6; i++) {
        assert_int_equal(vnpu_buffer_type_alloc(wbt, (size_t) n * 4, &w[i]), VNPU_STATUS_OK);
    }
    for (int round = 0; round < 2; round++) {
        for (int i = 0; i < 6; i++) {
            struct vnpu_ctx *ctx = vnpu_ctx_new(1 << 16, true);
            struct vnpu_tensor *x = vec_in(ctx, act, 0, n, 0.0f), *y = vec_in(ctx, w[i], 0, n, (float) (i + round));
            struct vnpu_tensor *s = vnpu_add(ctx, x, y);
            vnpu_buffer_place_tensor(act, s, (size_t) n * 4);
            assert_int_equal(compute_on(dev, ctx, s), VNPU_STATUS_OK);
            assert_float_equal(((float *) s->data)[n - 1], (float) (i + round) + 2.0f * (float) (n - 1), 0.0f);
            vnpu_ctx_free(ctx);
        }
    }
    for (int i = 0; i < 6; i++) {
        vnpu_buffer_free(w[i]);
    }
    vnpu_buffer_free(act);
    vnpu_device_free(dev);
}

/* Operands in plain host memory (no session can map it) are copied through shared DDR. */
static void test_host_memory_staged(void **state) {
    (void) state;
    struct vnpu_device *dev = open_htp0();
    struct vnpu_buffer *host = NULL;
    assert_int_equal(vnpu_buffer_type_alloc(vnpu_host_buffer_type(), 3 * 320 * 4, &host), VNPU_STATUS_OK);
    assert_int_equal(add_once(dev, host, 320, 7.0f), VNPU_STATUS_OK);
    vnpu_buffer_free(host);
    vnpu_device_free(dev);
}

/* A weight in host memory is copied into shared DDR at its first request and kept: new bytes there are not seen
 * (the device computes with its copy) until the memory is forgotten (vnpu_device_forget_host, as a model freed
 * while the device lives on does), and the next request copies it again. Memory next to it forgets nothing. */
static void test_host_weight_forgotten(void **state) {
    (void) state;
    struct vnpu_device *dev = open_htp0();
    struct vnpu_buffer *host = NULL, *act = NULL;
    const int64_t n = 320;
    assert_int_equal(vnpu_buffer_type_alloc(vnpu_host_buffer_type(), (size_t) n * 4, &host), VNPU_STATUS_OK);
    assert_int_equal(vnpu_buffer_type_alloc(vnpu_device_buffer_type(dev), 2 * (size_t) n * 4, &act), VNPU_STATUS_OK);
    const float bases[4] = {100.0f, 200.0f, 300.0f, 400.0f}, seen[4] = {100.0f, 100.0f, 100.0f, 400.0f};
    for (int i = 0; i < 4; i++) {
        struct vnpu_ctx *ctx = vnpu_ctx_new(1 << 16, true);
        struct vnpu_tensor *w = vec_in(ctx, host, 0, n, bases[i]);
        w->flags |= VNPU_TENSOR_FLAG_WEIGHT;
        struct vnpu_tensor *s = vnpu_add(ctx, vec_in(ctx, act, 0, n, 0.0f), w);
        vnpu_buffer_place_tensor(act, s, (size_t) n * 4);
        assert_int_equal(compute_on(dev, ctx, s), VNPU_STATUS_OK);
        assert_float_equal(((float *) s->data)[n - 1], seen[i] + 2.0f * (float) (n - 1), 0.0f);
        if (i == 1) {
            vnpu_device_forget_host(dev, (const uint8_t *) w->data + vnpu_nbytes(w), 4096); /* after it: kept */
        } else if (i == 2) {
            vnpu_device_forget_host(dev, w->data, vnpu_nbytes(w));
        }
        vnpu_ctx_free(ctx);
    }
    vnpu_buffer_free(act);
    vnpu_buffer_free(host);
    vnpu_device_free(dev);
}

/* SET_ROWS into a KV cache in host memory writes two of its eight rows: the staged copy must carry the other
 * six in and back unchanged; then a SET_ROWS of no rows leaves the cache as it is. */
static void test_host_memory_partial_dst(void **state) {
    (void) state;
    struct vnpu_device *dev = open_htp0();
    struct vnpu_buffer *host = NULL;
    const int64_t ne0 = 64, n_cache = 8;
    assert_int_equal(vnpu_buffer_type_alloc(vnpu_host_buffer_type(), 16384, &host), VNPU_STATUS_OK);
    struct vnpu_ctx *ctx = vnpu_ctx_new(1 << 16, true);
    struct vnpu_tensor *cache = vec_in(ctx, host, 0, ne0 * n_cache, 1.0f);
    struct vnpu_tensor *cache2d = vnpu_reshape_2d(ctx, cache, ne0, n_cache);
    struct vnpu_tensor *rows = vnpu_reshape_2d(ctx, vec_in(ctx, host, 4096, 2 * ne0, -500.0f), ne0, 2);
    struct vnpu_tensor *idx = vnpu_new_tensor_1d(ctx, VNPU_TYPE_I32, 2);
    vnpu_buffer_place_tensor(host, idx, 8192);
    ((int32_t *) idx->data)[0] = 5;
    ((int32_t *) idx->data)[1] = 1;
    assert_int_equal(compute_on(dev, ctx, vnpu_set_rows(ctx, cache2d, rows, idx)), VNPU_STATUS_OK);
    struct vnpu_tensor *no_rows = vnpu_view_2d(ctx, rows, ne0, 0, rows->nb[1], 0); /* writes nothing */
    assert_int_equal(compute_on(dev, ctx, vnpu_set_rows(ctx, cache2d, no_rows, vnpu_view_1d(ctx, idx, 0, 0))),
                     VNPU_STATUS_OK);
    for (int64_t r = 0; r < n_cache; r++) {
        const float first = r == 5 ? -500.0f : r == 1 ? -500.0f + (float) ne0 : 1.0f + (float) (r * ne0);
        for (int64_t e = 0; e < ne0; e++) {
            assert_float_equal(((float *) cache->data)[r * ne0 + e], first + (float) e, 0.0f);
        }
    }
    vnpu_ctx_free(ctx);
    vnpu_buffer_free(host);
    vnpu_device_free(dev);
}

int main(void) {
    setenv("VNPU_NHVX", "2", 1); /* test_wide_rows: two threads the plan must lower to one */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_device_names),
        cmocka_unit_test(test_supports_op),
        cmocka_unit_test(test_fault_unmapped_load),
        cmocka_unit_test(test_fault_dma_outside_vtcm),
        cmocka_unit_test(test_buffer_free_unmaps),
        cmocka_unit_test(test_requests_split_by_buffers),
        cmocka_unit_test(test_sliding_window),
        cmocka_unit_test(test_host_memory_staged),
        cmocka_unit_test(test_host_weight_forgotten),
        cmocka_unit_test(test_host_memory_partial_dst),
        cmocka_unit_test(test_wide_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
