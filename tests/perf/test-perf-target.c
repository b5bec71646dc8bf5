/*
 * The target table (src/perf/perf-target.c): every arch once and in order, names that find their rows and
 * names that find none, values within the limits the device and the model rely on, an NPU library exactly
 * for v73..v81, and the virtual device's targets equal to the table's rows.
 */
#include "test-common.h"

#include "perf-target.h"
#include "vdsp.h"

#include <stdio.h>
#include <string.h>

#define TEST_MIB ((size_t) 1 << 20)

/* The archs the table holds, in order, and those vnpu builds an NPU library (and a vdsp target) for. */
static const uint32_t table_archs[] = {68, 69, 73, 75, 79, 81};
static const uint32_t npu_archs[] = {73, 75, 79, 81};

static bool is_npu_arch(uint32_t arch) {
    for (size_t i = 0; i < sizeof(npu_archs) / sizeof(npu_archs[0]); i++) {
        if (npu_archs[i] == arch) {
            return true;
        }
    }
    return false;
}

static void test_table_order(void **state) {
    (void) state;
    assert_int_equal(perf_n_targets, sizeof(table_archs) / sizeof(table_archs[0]));
    for (size_t i = 0; i < perf_n_targets; i++) {
        const struct perf_target *t = &perf_targets[i];
        assert_int_equal(t->arch, table_archs[i]);
        char name[8];
        snprintf(name, sizeof(name), "v%u", (unsigned) t->arch);
        assert_string_equal(t->name, name);
        assert_ptr_equal(perf_target_arch(t->arch), t);
        assert_int_equal(t->npu_library, is_npu_arch(t->arch));
    }
}

static void test_table_values(void **state) {
    (void) state;
    for (size_t i = 0; i < perf_n_targets; i++) {
        const struct perf_target *t = &perf_targets[i];
        print_message("%s: %s, %u MHz, %u threads, %u HVX, %u HMX x %.0f MAC/cycle, %.2f GB/s\n", t->name, t->soc,
                      (unsigned) t->clock_mhz, (unsigned) t->n_hw_threads, (unsigned) t->n_hvx_contexts,
                      (unsigned) t->n_hmx, t->hmx_fp16_macs_per_cycle, t->ddr_gbytes_per_s);
        assert_true(strlen(t->soc) > 0);
        assert_true(t->clock_mhz > 0);
        assert_in_range(t->n_hvx_contexts, 1, t->n_hw_threads);
        assert_in_range(t->n_hmx, 0, 1); /* the model runs one HMX per session */
        assert_int_equal(t->n_hmx == 0, t->hmx_fp16_macs_per_cycle == 0.0);
        assert_true(t->hmx_fp16_macs_per_cycle >= 0.0);
        /* the device maps VTCM in whole pages between guard pages, and the window is a 32-bit space */
        assert_true(t->vtcm_size > 0 && t->vtcm_size % (64 * 1024) == 0);
        assert_in_range(t->window_size, 1 * TEST_MIB, 4096 * TEST_MIB);
        assert_in_range(t->max_mapping, 1 * TEST_MIB, 4096 * TEST_MIB);
        assert_true(t->ddr_gbytes_per_s > 0.0);
        assert_true(t->cpu_gbytes_per_s > 0.0); /* the model divides a CPU op's bytes by it */
        assert_true(t->dma_desc_cycles > 0);
        assert_true(t->request_us > 0.0 && t->op_us > 0.0 && t->fence_us > 0.0);
    }
}

static void test_find(void **state) {
    (void) state;
    const struct perf_target *v79 = perf_target_arch(79);
    assert_non_null(v79);
    assert_ptr_equal(perf_target_find("v79"), v79);
    assert_ptr_equal(perf_target_find("79"), v79);
    assert_ptr_equal(perf_target_find("V79"), v79);
    assert_ptr_equal(perf_target_find("0079"), v79);
    assert_ptr_equal(perf_target_find("v68"), perf_target_arch(68));
    static const char *const none[] = {"v80",  "x",    "",    "v",     "79x",         "-79", " 79",
                                       "v 79", "vv79", "x79", "00079", "v4294967375", "v79 "};
    for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++) {
        assert_null(perf_target_find(none[i]));
    }
    assert_null(perf_target_arch(0));
    assert_null(perf_target_arch(80));
}

/* The virtual device's targets are the table's rows with an NPU library, field for field; the others it refuses. */
static void test_vdsp_agrees(void **state) {
    (void) state;
    for (size_t i = 0; i < perf_n_targets; i++) {
        const struct perf_target *p = &perf_targets[i];
        struct vdsp_target t;
        memset(&t, 0, sizeof(t));
        assert_int_equal(vdsp_target_get((enum vdsp_arch) p->arch, &t), p->npu_library);
        enum vdsp_arch parsed = VDSP_ARCH_V73;
        assert_int_equal(vdsp_arch_parse(p->name, &parsed), p->npu_library);
        if (!p->npu_library) {
            continue;
        }
        assert_int_equal(parsed, p->arch);
        assert_int_equal(t.arch, p->arch);
        assert_int_equal(t.n_hw_threads, p->n_hw_threads);
        assert_int_equal(t.n_hvx_contexts, p->n_hvx_contexts);
        assert_int_equal(t.n_hmx, p->n_hmx);
        assert_int_equal(t.vtcm_size, p->vtcm_size);
        assert_int_equal(t.window_size, p->window_size);
        assert_int_equal(t.max_mapping, p->max_mapping);
        assert_int_equal(t.clock_mhz, p->clock_mhz);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_order),
        cmocka_unit_test(test_table_values),
        cmocka_unit_test(test_find),
        cmocka_unit_test(test_vdsp_agrees),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
