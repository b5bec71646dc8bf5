/*
 * The XDNA cost model (src/xdna/xdna-perf.h): its parameter table's invariants (every arch, every partition, against
 * the mmul shapes of xdna-mmul.h), its arithmetic on hand-made statistics (each bound dominating in turn, the fixed
 * cost, the clock, the CPU's rate), and that a real design run twice models the same, its kernels at their cycles.
 */
#include "test-common.h"
#include "xdna-matmul.h"
#include "xdna-perf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const struct xdna_device *dev_of(const char *name) {
    const struct xdna_device *d = xdna_device_find(name, strlen(name));
    assert_non_null(d);
    return d;
}

static void assert_close(double got, double want) {
    if (fabs(got - want) > 1e-9 * fabs(want) + 1e-12) {
        fail_msg("got %.12g, want %.12g", got, want);
    }
}

/* Every arch row named as the partitions name it, with sane costs; every partition's MAC rates are its mmul's r s t
 * (one mmul a cycle at peak: the kernels' cycles, xdna-mmul.c, count on it). */
static void test_perf_table(void **state) {
    (void) state;
    for (size_t i = 0; i < xdna_n_devices; i++) {
        const struct xdna_device *d = &xdna_devices[i];
        const struct xdna_perf_arch *a = xdna_perf_arch_of(d->arch);
        assert_int_equal(a->arch, d->arch);
        assert_string_equal(a->name, d->arch_name);
        assert_true(a->run_us > 0.0 && a->cpu_gbytes_per_s > 0.0);
        uint32_t dims[3];
        assert_true(xdna_mmul_dims(d->arch, XDNA_DTYPE_BF16, false, dims));
        assert_int_equal(dims[0] * dims[1] * dims[2], d->bf16_macs_per_cycle);
        assert_true(xdna_mmul_dims(d->arch, XDNA_DTYPE_I8, false, dims));
        assert_int_equal(dims[0] * dims[1] * dims[2], d->int8_macs_per_cycle);
        if (xdna_mmul_dims(d->arch, XDNA_DTYPE_BF16, true, dims)) {
            assert_int_equal(dims[0] * dims[1] * dims[2], 512); /* anchors 3.1: BFP16 8x8x8, 512 MACs a cycle */
        }
    }
    static const char *const names[XDNA_PERF_BOUND_COUNT] = {"compute", "ddr", "stream", "fixed", "cpu"};
    for (int b = 0; b < XDNA_PERF_BOUND_COUNT; b++) {
        assert_string_equal(xdna_perf_bound_name((enum xdna_perf_bound) b), names[b]);
    }
}

/* Hand-made statistics on NPU2 (1.76 GHz): the time is the timeline's cycles at the clock plus run_us, and the bound
 * is the busiest of the compute tiles' kernels, the column's DDR and the DMA channels, each in turn, named with its
 * tile. */
static void test_perf_bounds(void **state) {
    (void) state;
    const struct xdna_device *d = dev_of("NPU2");
    const struct xdna_perf_arch *a = xdna_perf_arch_of(d->arch);
    const double f = d->clock_ghz * 1e3; /* cycles a microsecond */
    struct xdna_perf_time m;
    struct xdna_run_stats *s = calloc(1, sizeof(*s));
    assert_non_null(s);

    s->cycles = 1200.0 * f; /* 1200 us of timeline */
    s->tiles[3][4].kernel_cycles = 1000.0 * f;
    s->tiles[1][2].kernel_cycles = 500.0 * f;
    s->tiles[3][4].macs = 7;
    s->tiles[1][2].macs = 5;
    s->ddr_cycles = 900.0 * f;
    s->tiles[2][XDNA_ROW_MEM].chan_cycles[0][5] = 800.0 * f;
    s->ddr_read_bytes = 30;
    s->ddr_write_bytes = 12;
    xdna_perf_run(d, s, &m);
    assert_int_equal(m.bound, XDNA_PERF_BOUND_COMPUTE);
    assert_close(m.timeline_us, 1200.0);
    assert_close(m.us, 1200.0 + a->run_us);
    assert_close(m.compute_us, 1000.0);
    assert_close(m.ddr_us, 900.0);
    assert_close(m.stream_us, 800.0);
    assert_close(m.fixed_us, a->run_us);
    assert_int_equal(m.compute_tile.col, 3);
    assert_int_equal(m.compute_tile.row, 4);
    assert_true(m.macs == 12 && m.ddr_bytes == 42);

    s->ddr_cycles = 1100.0 * f;
    xdna_perf_run(d, s, &m);
    assert_int_equal(m.bound, XDNA_PERF_BOUND_DDR);
    assert_close(m.us, 1200.0 + a->run_us);

    s->tiles[5][XDNA_ROW_SHIM].chan_cycles[1][1] = 1150.0 * f; /* the shim's second MM2S channel */
    xdna_perf_run(d, s, &m);
    assert_int_equal(m.bound, XDNA_PERF_BOUND_STREAM);
    assert_close(m.stream_us, 1150.0);
    assert_int_equal(m.stream_tile.col, 5);
    assert_int_equal(m.stream_tile.row, XDNA_ROW_SHIM);

    /* fixed: a run shorter than its dispatch says so */
    memset(s, 0, sizeof(*s));
    s->cycles = 10.0 * f;
    s->tiles[0][2].kernel_cycles = 10.0 * f;
    xdna_perf_run(d, s, &m);
    assert_int_equal(m.bound, XDNA_PERF_BOUND_FIXED);
    assert_close(m.us, 10.0 + a->run_us);
    memset(s, 0, sizeof(*s));
    xdna_perf_run(d, s, &m);
    assert_close(m.us, a->run_us);

    /* AIE2's clock, 1.0 GHz */
    s->cycles = 1e6;
    xdna_perf_run(dev_of("NPU1"), s, &m);
    assert_close(m.timeline_us, 1000.0);
    free(s);
}

static void test_perf_cpu_op(void **state) {
    (void) state;
    for (size_t i = 0; i < xdna_n_devices; i++) {
        const struct xdna_device *d = &xdna_devices[i];
        const double rate = xdna_perf_arch_of(d->arch)->cpu_gbytes_per_s;
        assert_close(xdna_perf_cpu_op(d, (uint64_t) (rate * 1e3)), 1.0); /* rate x 1e3 bytes: 1 us */
        assert_close(xdna_perf_cpu_op(d, 0), 0.0);
    }
}

/* A real run of the design (NPU2Col1 and NPU1, a shape of several tiles), twice: the same statistics and modelled
 * time; the compute bound is one tile's kernel calls (the plan's m-tiles of k-tiles, a zeroing each) at their cycles,
 * and the timeline is at least every bound. */
static void test_perf_design_deterministic(void **state) {
    (void) state;
    static const char *const parts[] = {"NPU2Col1", "NPU1"};
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
        const struct xdna_device *d = dev_of(parts[i]);
        struct xdna_matmul_plan p;
        assert_int_equal(xdna_matmul_plan_init(&p, d, false, VNPU_TYPE_BF16, 40, 200, 300), VNPU_STATUS_OK);
        struct xdna_matmul *mm;
        assert_int_equal(xdna_matmul_new(&p, false, &mm), VNPU_STATUS_OK);
        float *a = calloc((size_t) p.m_pad * p.k_pad, sizeof(float));
        float *c = calloc((size_t) p.m_pad * p.n_pad, sizeof(float));
        void *b = calloc(1, xdna_matmul_b_bytes(&p));
        struct xdna_run_stats *s = calloc(2, sizeof(*s));
        assert_true(a && b && c && s);
        struct xdna_perf_time m[2];
        for (int r = 0; r < 2; r++) {
            assert_int_equal(xdna_matmul_run(mm, a, b, c, &s[r]), VNPU_STATUS_OK);
            xdna_perf_run(d, &s[r], &m[r]);
        }
        assert_memory_equal(&s[0], &s[1], sizeof(s[0]));
        assert_true(m[0].us == m[1].us && m[0].bound == m[1].bound);
        assert_true(m[0].macs == (uint64_t) p.m_pad * p.k_pad * p.n_pad);
        const uint32_t r = p.kernel.base.mac_dims[0], sd = p.kernel.base.mac_dims[1], t = p.kernel.base.mac_dims[2];
        const double mm_cycles = ceil((p.kernel.m / r) * (p.kernel.k / sd) * (p.kernel.n / t) / 0.8);
        const double zero_cycles = (double) p.kernel.m * p.kernel.n * 4 / 32;
        const double tiles = (double) p.mt * p.groups_per_col;
        assert_close(m[0].compute_us, tiles * (p.kt * mm_cycles + zero_cycles) / (d->clock_ghz * 1e3));
        assert_true(m[0].ddr_bytes == s[0].ddr_read_bytes + s[0].ddr_write_bytes && m[0].ddr_bytes > 0);
        assert_true(m[0].timeline_us >= m[0].compute_us && m[0].timeline_us >= m[0].stream_us &&
                    m[0].timeline_us >= m[0].ddr_us && m[0].stream_us > 0.0);
        free(a);
        free(b);
        free(c);
        free(s);
        xdna_matmul_free(mm);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_perf_table),
        cmocka_unit_test(test_perf_bounds),
        cmocka_unit_test(test_perf_cpu_op),
        cmocka_unit_test(test_perf_design_deterministic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
