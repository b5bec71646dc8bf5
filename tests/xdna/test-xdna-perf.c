/*
 * The XDNA cost model (src/xdna/xdna-perf.h): its parameter table's invariants (every arch, every partition, against
 * the mmul shapes of xdna-mmul.h), its arithmetic on hand-made statistics (each bound dominating in turn, the fixed
 * cost, the exact formula values, the BFP16 rate, the CPU's rate), and that a real design run twice models the same.
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

/* A bf16 (or BFP16) kernel of the design's tiles for dev's arch. */
static struct xdna_mm_kernel kernel_of(const struct xdna_device *dev, bool bfp16) {
    struct xdna_mm_kernel k;
    assert_int_equal(xdna_mm_kernel_init(&k, dev->arch, XDNA_DTYPE_BF16, XDNA_DTYPE_F32, bfp16, XDNA_MM_TILE_M,
                                         XDNA_MM_TILE_K, XDNA_MM_TILE_N),
                     VNPU_STATUS_OK);
    return k;
}

/* Every arch row: named as the partitions name it, the anchors' channels and stream widths, sane rates; every
 * partition's MAC rates are its mmul's r s t (one mmul a cycle at peak), BFP16's too. */
static void test_perf_table(void **state) {
    (void) state;
    for (size_t i = 0; i < xdna_n_devices; i++) {
        const struct xdna_device *d = &xdna_devices[i];
        const struct xdna_perf_arch *a = xdna_perf_arch_of(d->arch);
        assert_int_equal(a->arch, d->arch);
        assert_string_equal(a->name, d->arch_name);
        assert_int_equal(a->s2mm_channels[XDNA_TILE_MEM], 6);
        assert_int_equal(a->mm2s_channels[XDNA_TILE_MEM], 6);
        for (int t = 0; t < XDNA_TILE_TYPE_COUNT; t++) {
            assert_true(a->s2mm_channels[t] >= 1 && a->mm2s_channels[t] >= 1);
        }
        assert_true(a->kernel_eff > 0.0 && a->kernel_eff <= 1.0);
        assert_true(a->run_us > 0.0 && a->cpu_gbytes_per_s > 0.0);
        uint32_t dims[3];
        assert_true(xdna_mmul_dims(d->arch, XDNA_DTYPE_BF16, false, dims));
        assert_int_equal(dims[0] * dims[1] * dims[2], d->bf16_macs_per_cycle);
        assert_true(xdna_mmul_dims(d->arch, XDNA_DTYPE_I8, false, dims));
        assert_int_equal(dims[0] * dims[1] * dims[2], d->int8_macs_per_cycle);
        const bool has_bfp16 = xdna_mmul_dims(d->arch, XDNA_DTYPE_BF16, true, dims);
        assert_int_equal(has_bfp16, a->bfp16_macs_per_cycle > 0);
        if (has_bfp16) {
            assert_int_equal(dims[0] * dims[1] * dims[2], a->bfp16_macs_per_cycle);
            assert_true(a->bfp16_kernel_eff > 0.0 && a->bfp16_kernel_eff <= 1.0);
        }
    }
    assert_true(xdna_perf_arch_of(XDNA_ARCH_AIE2)->stream_bytes_per_cycle == 4.0);  /* 32-bit */
    assert_true(xdna_perf_arch_of(XDNA_ARCH_AIE2P)->stream_bytes_per_cycle == 8.0); /* 64-bit */
    assert_int_equal(xdna_perf_arch_of(XDNA_ARCH_AIE2P)->bfp16_macs_per_cycle, 512);
    static const char *const names[XDNA_PERF_BOUND_COUNT] = {"compute", "ddr", "stream", "fixed", "cpu"};
    for (int b = 0; b < XDNA_PERF_BOUND_COUNT; b++) {
        assert_string_equal(xdna_perf_bound_name((enum xdna_perf_bound) b), names[b]);
    }
}

/* Hand-made statistics on NPU2 (1.76 GHz, 60 GB/s, 256 bf16 MACs a cycle), each bound set to 1000 us in turn with
 * the others below it: the time is exactly 1000 us + run_us, the bound and its tile named. */
static void test_perf_bounds(void **state) {
    (void) state;
    const struct xdna_device *d = dev_of("NPU2");
    const struct xdna_perf_arch *a = xdna_perf_arch_of(d->arch);
    const struct xdna_mm_kernel k = kernel_of(d, false);
    const double cycles_per_us = d->clock_ghz * 1e3;
    struct xdna_perf_time m;
    struct xdna_run_stats *s = calloc(1, sizeof(*s));
    assert_non_null(s);

    /* compute: the busiest compute tile (3, 4) 1000 us of MACs, another tile half */
    s->tiles[3][4].macs = (uint64_t) llround(1000.0 * d->bf16_macs_per_cycle * a->kernel_eff * cycles_per_us);
    s->tiles[1][2].macs = s->tiles[3][4].macs / 2;
    xdna_perf_run(d, &k, s, &m);
    assert_int_equal(m.bound, XDNA_PERF_BOUND_COMPUTE);
    assert_close(m.compute_us, 1000.0);
    assert_close(m.us, 1000.0 + a->run_us);
    assert_int_equal(m.compute_tile.col, 3);
    assert_int_equal(m.compute_tile.row, 4);
    assert_true(m.macs == s->tiles[3][4].macs + s->tiles[1][2].macs);
    /* the BFP16 kernel: 512 MACs a cycle at bfp16_kernel_eff */
    const struct xdna_mm_kernel kb = kernel_of(d, true);
    xdna_perf_run(d, &kb, s, &m);
    assert_close(m.compute_us,
                 1000.0 * d->bf16_macs_per_cycle * a->kernel_eff / (a->bfp16_macs_per_cycle * a->bfp16_kernel_eff));

    /* DDR: 60 MB both ways at 60 GB/s = 1000 us, above the compute bound now at 500 */
    s->tiles[3][4].macs /= 2;
    s->ddr_read_bytes = 50000000;
    s->ddr_write_bytes = 10000000;
    xdna_perf_run(d, &k, s, &m);
    assert_int_equal(m.bound, XDNA_PERF_BOUND_DDR);
    assert_close(m.ddr_us, 1000.0);
    assert_close(m.compute_us, 500.0);
    assert_close(m.us, 1000.0 + a->run_us);
    assert_true(m.ddr_bytes == 60000000);

    /* stream: mem tile (2, 1) takes 1000 us over its 6 S2MM channels of 8 bytes a cycle; its MM2S side and a shim
     * less */
    s->ddr_read_bytes /= 2;
    s->ddr_write_bytes /= 2;
    const double mem_bytes_per_us = a->s2mm_channels[XDNA_TILE_MEM] * a->stream_bytes_per_cycle * cycles_per_us;
    s->tiles[2][XDNA_ROW_MEM].dma_in_bytes = (uint64_t) llround(1000.0 * mem_bytes_per_us);
    s->tiles[2][XDNA_ROW_MEM].dma_out_bytes = s->tiles[2][XDNA_ROW_MEM].dma_in_bytes / 3;
    s->tiles[5][XDNA_ROW_SHIM].dma_out_bytes = (uint64_t) llround(
        900.0 * a->mm2s_channels[XDNA_TILE_SHIM] * a->stream_bytes_per_cycle * cycles_per_us); /* 900 us */
    xdna_perf_run(d, &k, s, &m);
    assert_int_equal(m.bound, XDNA_PERF_BOUND_STREAM);
    assert_close(m.stream_us, 1000.0);
    assert_close(m.us, 1000.0 + a->run_us);
    assert_int_equal(m.stream_tile.col, 2);
    assert_int_equal(m.stream_tile.row, XDNA_ROW_MEM);
    /* the shim's MM2S side alone, raised to 1100 us: it sets the bound */
    s->tiles[5][XDNA_ROW_SHIM].dma_out_bytes = s->tiles[5][XDNA_ROW_SHIM].dma_out_bytes / 9 * 11;
    xdna_perf_run(d, &k, s, &m);
    assert_close(m.stream_us, 1100.0);
    assert_int_equal(m.stream_tile.col, 5);
    assert_int_equal(m.stream_tile.row, XDNA_ROW_SHIM);

    /* fixed: a run that does almost nothing costs run_us and says so */
    memset(s, 0, sizeof(*s));
    s->tiles[0][2].macs = 1000;
    s->ddr_read_bytes = 4096;
    xdna_perf_run(d, &k, s, &m);
    assert_int_equal(m.bound, XDNA_PERF_BOUND_FIXED);
    assert_close(m.fixed_us, a->run_us);
    assert_close(m.us, a->run_us + fmax(m.compute_us, fmax(m.ddr_us, m.stream_us)));
    memset(s, 0, sizeof(*s));
    xdna_perf_run(d, &k, s, &m);
    assert_close(m.us, a->run_us);

    /* AIE2's narrower stream: a compute tile's 2 S2MM channels of 4 bytes at 1.0 GHz */
    const struct xdna_device *d1 = dev_of("NPU1");
    const struct xdna_perf_arch *a1 = xdna_perf_arch_of(d1->arch);
    const struct xdna_mm_kernel k1 = kernel_of(d1, false);
    s->tiles[0][3].dma_in_bytes = 8000000; /* 8 MB at 8 GB/s */
    xdna_perf_run(d1, &k1, s, &m);
    assert_close(m.stream_us,
                 8e6 / (a1->s2mm_channels[XDNA_TILE_COMPUTE] * a1->stream_bytes_per_cycle * 1e3 * d1->clock_ghz));
    assert_close(m.stream_us, 1000.0);
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

/* A real run of the design (NPU2Col1 and NPU1, a shape of several tiles), twice: the same statistics, the same
 * modelled time, the compute bound the plan's padded MACs on one tile of four. */
static void test_perf_design_deterministic(void **state) {
    (void) state;
    static const char *const parts[] = {"NPU2Col1", "NPU1"};
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
        const struct xdna_device *d = dev_of(parts[i]);
        struct xdna_matmul_plan p;
        assert_int_equal(xdna_matmul_plan_init(&p, d, false, 40, 200, 300), VNPU_STATUS_OK);
        struct xdna_matmul *mm;
        assert_int_equal(xdna_matmul_new(&p, false, &mm), VNPU_STATUS_OK);
        float *a = calloc((size_t) p.m_pad * p.k_pad, sizeof(float));
        float *c = calloc((size_t) p.m_pad * p.n_pad, sizeof(float));
        vnpu_bf16_t *b = calloc(xdna_matmul_b_elems(&p), sizeof(vnpu_bf16_t));
        struct xdna_run_stats *s = calloc(2, sizeof(*s));
        assert_true(a && b && c && s);
        struct xdna_perf_time m[2];
        for (int r = 0; r < 2; r++) {
            assert_int_equal(xdna_matmul_run(mm, a, b, c, &s[r]), VNPU_STATUS_OK);
            xdna_perf_run(d, &p.kernel, &s[r], &m[r]);
        }
        assert_memory_equal(&s[0], &s[1], sizeof(s[0]));
        assert_true(m[0].us == m[1].us && m[0].bound == m[1].bound);
        assert_true(m[0].macs == (uint64_t) p.m_pad * p.k_pad * p.n_pad);
        const double per_tile = (double) p.m_pad * p.k_pad * p.n_pad / (p.n_cols * XDNA_COMPUTE_ROWS);
        assert_close(m[0].compute_us,
                     per_tile / (d->bf16_macs_per_cycle * xdna_perf_arch_of(d->arch)->kernel_eff * d->clock_ghz * 1e3));
        assert_true(m[0].ddr_bytes == s[0].ddr_read_bytes + s[0].ddr_write_bytes && m[0].ddr_bytes > 0);
        assert_true(m[0].stream_us > 0.0);
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
