/*
 * vnpu-test-ops' quick subset on HTP0 (make test): every case OK, the summary line, the MUL_MAT and MUL_MAT_ID
 * cases again with VNPU_MM_PATH=hmx, and a case printed by the run re-run alone with -o.
 */
#include "test-common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_ops_quick(void **state) {
    (void) state;
    char *out = NULL;
    const int rc = test_run(&out, NULL, "%s/vnpu-test-ops -q -b HTP0", test_tools_dir());
    if (rc != 0 || strstr(out, ": FAIL")) {
        fail_msg("vnpu-test-ops -q exited %d:\n%s", rc, out);
    }
    assert_non_null(strstr(out, "Backend HTP0: OK"));
    free(out);
}

/* The quick MUL_MAT and MUL_MAT_ID cases with the HMX path forced wherever it can run (tiled, F16 and F32 weights). */
static void test_ops_quick_hmx(void **state) {
    (void) state;
    char *out = NULL;
    const int rc = test_run(&out, NULL, "VNPU_MM_PATH=hmx %s/vnpu-test-ops -q -o MUL_MAT -b HTP0", test_tools_dir());
    if (rc != 0 || strstr(out, ": FAIL")) {
        fail_msg("VNPU_MM_PATH=hmx vnpu-test-ops -q -o MUL_MAT exited %d:\n%s", rc, out);
    }
    assert_non_null(strstr(out, "MUL_MAT_ID("));
    assert_non_null(strstr(out, "Backend HTP0: OK"));
    free(out);
}

/* The first case the quick run prints is found again by its string, alone. */
static void test_ops_rerun_case(void **state) {
    (void) state;
    char *list = NULL, *out = NULL;
    assert_int_equal(test_run(&list, NULL, "%s/vnpu-test-ops -q -l", test_tools_dir()), 0);
    char first[256];
    snprintf(first, sizeof(first), "%.*s", (int) strcspn(list, "\n"), list);
    assert_true(strlen(first) > 0);
    assert_int_equal(test_run(&out, NULL, "%s/vnpu-test-ops -o '%s'", test_tools_dir(), first), 0);
    assert_non_null(strstr(out, "  1/1 tests passed"));
    free(list);
    free(out);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ops_quick),
        cmocka_unit_test(test_ops_quick_hmx),
        cmocka_unit_test(test_ops_rerun_case),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
