/*
 * vnpu-bench's pieces: the oracle's data streams (values and weight bytes recorded from ggml_op_bench), and the
 * MUL_MAT timing on the CPU and HTP0 devices, whose checks must pass there and fail on a device that computes
 * something else.
 */
#include "test-common.h"

#include "bench-data.h"
#include "bench-op.h"
#include "buffer.h"
#include "cpu-backend.h"
#include "hash.h"
#include "htp-host.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The first draws of ggml_op_bench's "input:B" stream with seed 1 (oracle_rng.h, printed with %.7f). */
static void test_stream_values(void **state) {
    (void) state;
    static const float expected[] = {1.0727612f, 0.8814961f, 0.1804434f, -1.8092830f};
    struct bench_rng r;
    bench_rng_seed(&r, 1, "input:B");
    for (size_t i = 0; i < sizeof(expected) / sizeof(expected[0]); i++) {
        const float v = (float) bench_rng_normal(&r);
        assert_true(fabsf(v - expected[i]) <= 5e-8f);
    }
    float *x = NULL;
    assert_int_equal(bench_input_gen("B", 4, 1, &x), VNPU_STATUS_OK);
    assert_true(fabsf(x[3] - expected[3]) <= 5e-8f);
    free(x);
}

/* The weights ggml_op_bench --dump writes for mul_mat --k 512 --m 64 --seed 1: their size and FNV-1a 64. */
static void test_weights_bytes(void **state) {
    (void) state;
    static const struct {
        enum vnpu_type type;
        size_t size;
        uint64_t hash;
    } cases[] = {
        {VNPU_TYPE_Q4_0, 18432, 0xe9a62c34f9dd814eull},
        {VNPU_TYPE_Q8_0, 34816, 0x95fd28874c9ebafbull},
        {VNPU_TYPE_Q4_K, 18432, 0x6e75f3e95500abb8ull},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        void *w = NULL;
        size_t size = 0;
        assert_int_equal(bench_weights_gen(cases[i].type, 512, 64, 1, &w, &size), VNPU_STATUS_OK);
        assert_int_equal(size, cases[i].size);
        assert_true(vnpu_fnv1a64(w, size) == cases[i].hash);
        free(w);
    }
}

/* Types without a reference quantizer and rows of partial blocks are refused, with nothing allocated. */
static void test_weights_refused(void **state) {
    (void) state;
    void *w = (void *) &w;
    size_t size;
    assert_int_equal(bench_weights_gen(VNPU_TYPE_IQ2_XXS, 256, 4, 1, &w, &size), VNPU_STATUS_UNSUPPORTED);
    assert_null(w);
    assert_int_equal(bench_weights_gen(VNPU_TYPE_Q4_K, 100, 4, 1, &w, &size), VNPU_STATUS_UNSUPPORTED);
    assert_null(w);
}

/* One small case of each type on dev: supported, within its check, deterministic, timings consistent. */
static void check_device(struct vnpu_device *dev, const char *weights_buft) {
    static const enum vnpu_type types[] = {VNPU_TYPE_Q4_0, VNPU_TYPE_Q8_0, VNPU_TYPE_F16};
    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
        void *w = NULL;
        float *x = NULL;
        size_t size;
        assert_int_equal(bench_weights_gen(types[i], 256, 64, 7, &w, &size), VNPU_STATUS_OK);
        assert_int_equal(bench_input_gen("B", 256 * 3, 7, &x), VNPU_STATUS_OK);
        const struct bench_mm_case c = {"mul_mat", types[i], 256, 64, 3, w, x};
        const struct bench_op_opts opts[] = {
            {.reps = 3, .warmup = 1, .per_rep = 2, .check = true}, /* fixed repetitions */
            {.reps = 1, .min_time = 0.005, .check = true},         /* calibrated: its runs count as the first */
            {.reps = 1, .per_rep = 1, .check = true},              /* a single run: nothing to compare */
        };
        const int det[] = {1, 1, -1};
        for (int k = 0; k < 3; k++) {
            struct bench_op_result r;
            assert_int_equal(bench_mul_mat(dev, &c, &opts[k], &r), VNPU_STATUS_OK);
            printf("%s %s: %d ops/rep, %.1f us, check %.2e, det %d\n", vnpu_device_name(dev), vnpu_type_name(types[i]),
                   r.per_rep, r.us_med, r.check_rel, r.det);
            assert_true(r.supported);
            assert_string_equal(r.buft, weights_buft);
            assert_true(bench_op_result_ok(&r));
            assert_true(r.check_rel <= r.check_tol);
            assert_int_equal(r.det, det[k]);
            assert_true(opts[k].per_rep ? r.per_rep == opts[k].per_rep : r.per_rep >= 1);
            assert_true(r.us_min > 0.0 && r.us_min <= r.us_med);
            assert_true(fabs(r.gflops - 2.0 * 256 * 64 * 3 / (r.us_med * 1e3)) <= 1e-9 * r.gflops);
        }
        free(w);
        free(x);
    }
}

static void test_mul_mat_cpu(void **state) {
    (void) state;
    struct vnpu_device *dev = NULL;
    assert_int_equal(vnpu_cpu_device_new(2, &dev), VNPU_STATUS_OK);
    check_device(dev, "CPU");
    vnpu_device_free(dev);
}

static void test_mul_mat_htp(void **state) {
    (void) state;
    struct vnpu_device *dev = NULL;
    assert_int_equal(vnpu_htp_device_get(0, &dev), VNPU_STATUS_OK);
    check_device(dev, "HTP0-REPACK");
    vnpu_device_free(dev);
}

/* A device that accepts what it is told to and writes its call count into every result: wrong, and different on
 * every run. */
struct fake_device {
    bool supports;
    int calls;
};

static const char *fake_name(struct vnpu_device *dev) {
    (void) dev;
    return "FAKE";
}

static bool fake_supports_op(struct vnpu_device *dev, const struct vnpu_tensor *op) {
    (void) op;
    return ((struct fake_device *) dev->ctx)->supports;
}

static enum vnpu_status fake_graph_compute(struct vnpu_device *dev, struct vnpu_tensor **nodes, int n_nodes) {
    struct fake_device *f = dev->ctx;
    f->calls++;
    for (int i = 0; i < n_nodes; i++) {
        float *y = nodes[i]->data;
        for (int64_t e = 0; e < vnpu_nelements(nodes[i]); e++) {
            y[e] = (float) f->calls;
        }
    }
    return VNPU_STATUS_OK;
}

static struct vnpu_buffer_type *fake_buffer_type(struct vnpu_device *dev) {
    (void) dev;
    return vnpu_host_buffer_type();
}

static void fake_free(struct vnpu_device *dev) {
    (void) dev;
}

static const struct vnpu_device_iface fake_iface = {
    .get_name = fake_name,
    .supports_op = fake_supports_op,
    .graph_compute = fake_graph_compute,
    .get_buffer_type = fake_buffer_type,
    .free = fake_free,
};

/* The check and the determinism test catch such a device; a refused node is reported unsupported, not an error. */
static void test_checks_fail(void **state) {
    (void) state;
    struct fake_device f = {.supports = true};
    struct vnpu_device dev = {.iface = &fake_iface, .ctx = &f};
    void *w = NULL;
    float *x = NULL;
    size_t size;
    assert_int_equal(bench_weights_gen(VNPU_TYPE_Q8_0, 64, 32, 1, &w, &size), VNPU_STATUS_OK);
    assert_int_equal(bench_input_gen("B", 64 * 2, 1, &x), VNPU_STATUS_OK);
    const struct bench_mm_case c = {"mul_mat", VNPU_TYPE_Q8_0, 64, 32, 2, w, x};
    const struct bench_op_opts o = {.reps = 3, .warmup = 1, .per_rep = 1, .check = true};
    struct bench_op_result r;
    assert_int_equal(bench_mul_mat(&dev, &c, &o, &r), VNPU_STATUS_OK);
    assert_true(r.supported);
    assert_int_equal(f.calls, 4);
    assert_true(r.check_rel > r.check_tol);
    assert_int_equal(r.det, 0);
    assert_false(bench_op_result_ok(&r));

    f.supports = false;
    assert_int_equal(bench_mul_mat(&dev, &c, &o, &r), VNPU_STATUS_OK);
    assert_false(r.supported);
    assert_false(bench_op_result_ok(&r));
    assert_int_equal(f.calls, 4);
    free(w);
    free(x);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stream_values),   cmocka_unit_test(test_weights_bytes),
        cmocka_unit_test(test_weights_refused), cmocka_unit_test(test_mul_mat_cpu),
        cmocka_unit_test(test_mul_mat_htp),     cmocka_unit_test(test_checks_fail),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
