/*
 * The skip accounting of test-common (test-common.h): this program runs itself as a child test program whose
 * one group does what the case names (a bare cmocka skip(), a missing tool, a case that does not apply, 77
 * failures, nothing special) and checks the child's exit status with CI unset and with CI=true. The child's
 * main returns cmocka_run_group_tests' value directly, as a test that forgot the accounting would.
 */
#include "test-common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N_FAILING 77 /* as many failures as the skip status: the program must still exit 1 */

static void child_bare_skip(void **state) {
    (void) state;
    skip();
}

static void child_missing_tool(void **state) {
    (void) state;
    test_require(0, "a tool", "nothing to install: the test of the accounting");
}

static void child_not_applicable(void **state) {
    (void) state;
    test_skip_not_applicable("the test of the accounting");
}

static void child_fail(void **state) {
    (void) state;
    fail_msg("the test of the accounting");
}

static void child_pass(void **state) { /* a case that passes next to the one under test */
    (void) state;
}

static int child_main(const char *what) {
    struct CMUnitTest tests[N_FAILING + 1];
    size_t n = 0;
    tests[n++] = (struct CMUnitTest) cmocka_unit_test(child_pass);
    if (strcmp(what, "bare-skip") == 0) {
        tests[n++] = (struct CMUnitTest) cmocka_unit_test(child_bare_skip);
    } else if (strcmp(what, "missing-tool") == 0) {
        tests[n++] = (struct CMUnitTest) cmocka_unit_test(child_missing_tool);
    } else if (strcmp(what, "not-applicable") == 0) {
        tests[n++] = (struct CMUnitTest) cmocka_unit_test(child_not_applicable);
    } else if (strcmp(what, "fail-77") == 0) {
        for (int i = 0; i < N_FAILING; i++) {
            tests[n++] = (struct CMUnitTest) cmocka_unit_test(child_fail);
        }
    } else if (strcmp(what, "skip-and-fail") == 0) {
        tests[n++] = (struct CMUnitTest) cmocka_unit_test(child_bare_skip);
        tests[n++] = (struct CMUnitTest) cmocka_unit_test(child_fail);
    } else if (strcmp(what, "pass") != 0) {
        fprintf(stderr, "test-skip-accounting: unknown child '%s'\n", what);
        return 2;
    }
    return _cmocka_run_group_tests(what, tests, n, NULL, NULL);
}

static char self[4096];

/* The child's exit status, CI set to ci ("" unsets it); its output is kept out of the log unless it surprises. */
static int child_status(const char *what, const char *ci) {
    char *out = NULL, *err = NULL;
    const int rc = *ci ? test_run(&out, &err, "env CI=%s '%s' --child %s", ci, self, what)
                       : test_run(&out, &err, "env -u CI '%s' --child %s", self, what);
    printf("  child %s, CI=%s: exit %d\n", what, *ci ? ci : "(unset)", rc);
    free(out);
    free(err);
    return rc;
}

static void test_statuses(void **state) {
    (void) state;
    static const struct {
        const char *what;
        int local, ci; /* exit status with CI unset, with CI=true */
    } cases[] = {
        {"pass", 0, 0},           {"bare-skip", 77, 1}, {"missing-tool", 77, 1},
        {"not-applicable", 0, 0}, {"fail-77", 1, 1},    {"skip-and-fail", 1, 1},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        assert_int_equal(child_status(cases[i].what, ""), cases[i].local);
        assert_int_equal(child_status(cases[i].what, "true"), cases[i].ci);
    }
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "--child") == 0) {
        return child_main(argv[2]);
    }
    const ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (len <= 0) {
        fprintf(stderr, "test-skip-accounting: cannot read /proc/self/exe\n");
        return 1;
    }
    self[len] = '\0';
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_statuses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
