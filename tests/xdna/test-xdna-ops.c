/*
 * vnpu-test-ops on the XDNA devices (make test): the quick MUL_MAT cases on NPU1 (AIE2, 4 columns) and NPU2 (AIE2P, 8),
 * on NPU2 also in strict mode (VNPU_XDNA_STRICT=1: poisoned buffers) and with the BFP16-emulation kernel; every case
 * OK against the CPU within the bf16 bound (test-ops-cases.c, nmse_xdna_mul_mat), the weight types the issue names
 * among them, and the other ops of the table skipped as not supported, never failed.
 */
#include "test-common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check_ops(const char *env, const char *dev) {
    char *out = NULL;
    const int rc = test_run(&out, NULL, "%s %s/vnpu-test-ops -q -o 'MUL_MAT(' -b %s", env, test_tools_dir(), dev);
    if (rc != 0 || strstr(out, ": FAIL")) {
        fail_msg("%s vnpu-test-ops -q -o 'MUL_MAT(' -b %s exited %d:\n%s", env, dev, rc, out);
    }
    static const char *const types[] = {"type=f32,", "type=f16,", "type=q4_0,", "type=q8_0,", "type=q4_K,"};
    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
        char ok[64];
        snprintf(ok, sizeof(ok), "MUL_MAT(%s", types[i]);
        const char *hit = strstr(out, ok);
        if (!hit || !strstr(hit, ": OK")) {
            fail_msg("%s -b %s ran no MUL_MAT of %s:\n%s", env, dev, types[i], out);
        }
    }
    char backend[64];
    snprintf(backend, sizeof(backend), "Backend %s: OK", dev);
    assert_non_null(strstr(out, backend));
    printf("%s %s: %d cases OK\n", env, dev, test_count_lines(out, ": OK", NULL));
    free(out);
}

static void test_ops_npu1(void **state) {
    (void) state;
    check_ops("", "NPU1");
}

static void test_ops_npu2(void **state) {
    (void) state;
    check_ops("", "NPU2");
}

static void test_ops_npu2_strict(void **state) {
    (void) state;
    check_ops("VNPU_XDNA_STRICT=1", "NPU2Col4");
}

static void test_ops_npu2_bfp16(void **state) {
    (void) state;
    check_ops("VNPU_XDNA_BFP16=1", "NPU2");
}

/* A case the XDNA devices do not take is reported skipped, and the run still passes. */
static void test_ops_skipped(void **state) {
    (void) state;
    char *out = NULL;
    assert_int_equal(test_run(&out, NULL, "%s/vnpu-test-ops -q -o ADD -b NPU1", test_tools_dir()), 1);
    assert_non_null(strstr(out, ": skipped  not supported by NPU1"));
    assert_non_null(strstr(out, "  0/0 tests passed"));
    free(out);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ops_npu1),        cmocka_unit_test(test_ops_npu2),
        cmocka_unit_test(test_ops_npu2_strict), cmocka_unit_test(test_ops_npu2_bfp16),
        cmocka_unit_test(test_ops_skipped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
