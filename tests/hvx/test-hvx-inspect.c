/*
 * scripts/hvx-inspect.py on a fixture with known defects (tests/hvx/inspect/kernels.c): it must find
 * the in-loop vector spill of compute_spill, the float promotion of compute_promote and the integer
 * division helper calls of compute_divide* (their own, an inlined helper's, an out-of-line helper's), pass
 * compute_clean and compute_divide_const, honour --func, --spills, --promotions, --divisions and --allow,
 * print the annotated disassembly, inspect prebuilt objects (--objdir) as it does their sources, and exit 2 when it
 * cannot compile its input or an object is not for its --arch. Needs python3, clang and
 * llvm-objdump: skips without them, and fails under CI=true.
 */
#include "test-common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOOL    VNPU_SOURCE_DIR "/scripts/hvx-inspect.py"
#define FIXTURE VNPU_SOURCE_DIR "/tests/hvx/inspect/kernels.c"

static void require_tools(void **state) {
    (void) state;
    char *out = NULL;
    const int rc = test_run(&out, NULL, "command -v python3 && command -v clang && command -v llvm-objdump");
    free(out);
    test_require(rc == 0, "python3, clang and llvm-objdump", "install Debian's python3, clang and llvm");
}

/* Run the tool with ARGS; returns its exit status and its stdout in *out (caller frees). */
static int inspect(char **out, const char *args) {
    char *err = NULL;
    const int rc = test_run(out, &err, "python3 '%s' %s", TOOL, args);
    if (rc != 0 && rc != 1) {
        fprintf(stderr, "hvx-inspect %s: exit %d\n%s", args, rc, err);
    }
    free(err);
    return rc;
}

static void test_finds_in_loop_spill(void **state) {
    require_tools(state);
    for (int arch = 68; arch <= 69; arch++) {
        char *out = NULL, args[256];
        snprintf(args, sizeof(args), "--arch %d --spills --strict --func '^compute_' '%s'", arch, FIXTURE);
        assert_int_equal(inspect(&out, args), 1);
        assert_non_null(strstr(out, "FAIL tests/hvx/inspect/kernels.c: compute_spill:"));
        assert_non_null(strstr(out, "in loop: vector spill store: vmem("));
        assert_non_null(strstr(out, "in loop: vector spill load: v"));
        assert_non_null(strstr(out, "ok   tests/hvx/inspect/kernels.c: compute_clean:"));
        assert_non_null(strstr(out, "ok   tests/hvx/inspect/kernels.c: compute_promote:")); /* spills only */
        assert_null(strstr(out, "helper_spill"));                                           /* not selected */
        free(out);
    }
}

static void test_finds_promotion(void **state) {
    require_tools(state);
    char *out = NULL;
    assert_int_equal(inspect(&out, "--promotions --strict --func '^compute_(promote|clean)$' '" FIXTURE "'"), 1);
    assert_non_null(strstr(out, "FAIL tests/hvx/inspect/kernels.c: compute_promote:"));
    assert_non_null(strstr(out, "in loop: single-to-double conversion: "));
    assert_non_null(strstr(out, "convert_sf2df"));
    assert_non_null(strstr(out, "ok   tests/hvx/inspect/kernels.c: compute_clean:"));
    free(out);
}

/* --divisions: every integer division helper call of a selected function fails it, whether the call is its
 * own (compute_divide), an inlined helper's (compute_divide_inlined) or in a helper it calls out of line
 * (compute_divide_callee, helper_divide not being selected); divisions by constants (compute_divide_const) and
 * the other checks' defects (compute_spill, compute_promote) pass. */
static void test_finds_divisions(void **state) {
    require_tools(state);
    static const char *const want[] = {
        "FAIL tests/hvx/inspect/kernels.c: compute_divide:",
        "in loop: division helper call __hexagon_udivsi3: call ",
        "FAIL tests/hvx/inspect/kernels.c: compute_divide_inlined:",
        "in loop: division helper call __hexagon_umodsi3: call ",
        "FAIL tests/hvx/inspect/kernels.c: compute_divide_callee:",
        "division helper call __hexagon_divdi3 (in helper_divide): call ",
        "ok   tests/hvx/inspect/kernels.c: compute_divide_const:",
        "ok   tests/hvx/inspect/kernels.c: compute_clean:",
        "ok   tests/hvx/inspect/kernels.c: compute_spill:",
        "ok   tests/hvx/inspect/kernels.c: compute_promote:",
        "functions checked for division helper calls",
    };
    char *out = NULL, args[256];
    for (int arch = 68; arch <= 69; arch++) {
        snprintf(args, sizeof(args), "--arch %d --divisions --strict --func '^compute_' '%s'", arch, FIXTURE);
        assert_int_equal(inspect(&out, args), 1);
        for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
            if (!strstr(out, want[i])) {
                fail_msg("v%d: no '%s' in:\n%s", arch, want[i], out);
            }
        }
        assert_null(strstr(out, "kernels.c: helper_divide:")); /* not selected: counted for its caller */
        free(out);
    }
    assert_int_equal(
        inspect(&out, "--divisions --strict --func '^compute_(clean|divide_const|spill|promote)$' '" FIXTURE "'"), 0);
    assert_non_null(strstr(out, ": 0 violations"));
    free(out);
}

/* Without --strict the same findings are a report: exit 0. The clean function passes strictly; without a check
 * named, all three run. */
static void test_exit_status(void **state) {
    require_tools(state);
    char *out = NULL;
    assert_int_equal(inspect(&out, "'" FIXTURE "'"), 0);
    assert_non_null(strstr(out, "hvx-inspect: 9 functions checked"));
    free(out);
    assert_int_equal(inspect(&out, "--strict --func '^compute_clean$' '" FIXTURE "'"), 0);
    assert_non_null(strstr(out, "hvx-inspect: 1 functions checked for in-loop vector spills, float promotions and "
                                "division helper calls"));
    assert_non_null(strstr(out, ": 0 violations"));
    free(out);
}

static void test_disasm_annotates(void **state) {
    require_tools(state);
    char *out = NULL;
    assert_int_equal(inspect(&out, "--disasm compute_spill '" FIXTURE "'"), 0);
    assert_non_null(strstr(out, "compute_spill (tests/hvx/inspect/kernels.c, Hexagon): 1 loops"));
    assert_non_null(strstr(out, "<<< vector spill store (in loop)"));
    assert_non_null(strstr(out, "<<< vector spill load (in loop)"));
    assert_non_null(strstr(out, "vrmpy("));
    free(out);
    assert_int_equal(inspect(&out, "--disasm no_such_function '" FIXTURE "'"), 2);
    free(out);
}

/* --allow FUNC=N: exactly the spills found pass strictly, one fewer fails, one more is a stale allowance. */
static void test_allow(void **state) {
    require_tools(state);
    char *out = NULL, args[512];
    assert_int_equal(inspect(&out, "--spills --func '^compute_spill$' '" FIXTURE "'"), 0);
    int loops = 0, spills = 0;
    const char *line = strstr(out, "compute_spill: ");
    assert_non_null(line);
    assert_int_equal(sscanf(line, "compute_spill: %d loops, %d in-loop vector spills", &loops, &spills), 2);
    assert_true(spills > 0);
    free(out);
    const int want[3] = {0, 1, 1};
    for (int d = 0; d < 3; d++) {
        const int n = spills + (d == 0 ? 0 : d == 1 ? -1 : 1);
        snprintf(args, sizeof(args), "--spills --strict --func '^compute_spill$' --allow compute_spill=%d '%s'", n,
                 FIXTURE);
        assert_int_equal(inspect(&out, args), want[d]);
        assert_true((strstr(out, "STALE compute_spill:") != NULL) == (d == 2));
        free(out);
    }
}

static void test_bad_input(void **state) {
    require_tools(state);
    char path[4200], *out = NULL;
    snprintf(path, sizeof(path), "%s/broken.c", test_tmpdir());
    const char *text = "void compute_broken(void) { this is not C; }\n";
    test_write_file(path, text, strlen(text));
    char args[4300];
    snprintf(args, sizeof(args), "--strict '%s'", path);
    assert_int_equal(inspect(&out, args), 2);
    free(out);
    assert_int_equal(inspect(&out, "--strict /nonexistent/kernels.c"), 2);
    free(out);
}

/* --objdir: the fixture compiled outside the tool (as scripts/ci-hvx.sh's compile check does, with the tool's flags)
 * into DIR/vNN/tests/hvx/inspect/kernels.c.o gives the report the tool gives from the source, names included; the
 * objects of the other arch, and a directory without objects, exit 2. */
static void test_objdir(void **state) {
    require_tools(state);
    char dir[4200], cmd[8800], *out = NULL, *want = NULL;
    for (int arch = 68; arch <= 69; arch++) {
        snprintf(dir, sizeof(dir), "%s/v%d", test_tmpdir(), arch);
        snprintf(cmd, sizeof(cmd),
                 "mkdir -p '%s/tests/hvx/inspect' && clang --target=hexagon -mv%d -mhvx -mhvx-length=128b "
                 "-ffreestanding -O2 -ffp-contract=off -DVNPU_HTP_ARCH=%d -I'%s/src/htp' -I'%s/src/hvx' "
                 "-I'%s/src/vdsp' -c '%s' -o '%s/tests/hvx/inspect/kernels.c.o'",
                 dir, arch, arch, VNPU_SOURCE_DIR, VNPU_SOURCE_DIR, VNPU_SOURCE_DIR, FIXTURE, dir);
        assert_int_equal(test_run(&out, NULL, "%s", cmd), 0);
        free(out);
        char args[4400];
        snprintf(args, sizeof(args), "--arch %d --strict --func '^compute_' '%s'", arch, FIXTURE);
        assert_int_equal(inspect(&want, args), 1);
        snprintf(args, sizeof(args), "--arch %d --strict --func '^compute_' --objdir '%s'", arch, dir);
        assert_int_equal(inspect(&out, args), 1);
        assert_non_null(strstr(out, "FAIL tests/hvx/inspect/kernels.c: compute_spill:"));
        assert_non_null(strstr(out, "FAIL tests/hvx/inspect/kernels.c: compute_divide:"));
        assert_non_null(strstr(out, "ok   tests/hvx/inspect/kernels.c: compute_clean:"));
        assert_string_equal(out, want);
        free(out);
        free(want);
        snprintf(args, sizeof(args), "--arch %d --objdir '%s'", arch == 68 ? 69 : 68, dir);
        assert_int_equal(inspect(&out, args), 2);
        free(out);
    }
    snprintf(dir, sizeof(dir), "%s/no-objects", test_tmpdir());
    assert_int_equal(test_run(&out, NULL, "mkdir -p '%s'", dir), 0);
    free(out);
    snprintf(cmd, sizeof(cmd), "--objdir '%s'", dir);
    assert_int_equal(inspect(&out, cmd), 2);
    free(out);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_finds_in_loop_spill), cmocka_unit_test(test_finds_promotion),
        cmocka_unit_test(test_finds_divisions),     cmocka_unit_test(test_exit_status),
        cmocka_unit_test(test_disasm_annotates),    cmocka_unit_test(test_allow),
        cmocka_unit_test(test_bad_input),           cmocka_unit_test(test_objdir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
