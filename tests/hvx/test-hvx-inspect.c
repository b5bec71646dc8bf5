/*
 * scripts/hvx-inspect.py on a fixture with known defects (tests/hvx/inspect/kernels.c): it must find
 * the in-loop vector spill of compute_spill, the float promotion of compute_promote and the integer
 * division helper calls of compute_divide* (their own, an inlined helper's, an out-of-line helper's), pass
 * compute_clean and compute_divide_const, honour --func, --spills, --promotions, --divisions and --allow,
 * print the annotated disassembly, inspect prebuilt objects (--objdir) as it does their sources, and exit 2 when it
 * cannot compile its input or an object is not for its --arch. --calibrate (the cost model's calibration): a known
 * loop (tests/hvx/calib-kernel.c) gives its packets per iteration, one packet more when the kernel gets one more,
 * a function name in two objects exits 2, and the build's lib/vnpu-calib-v69.tsv holds the MUL_MAT kernels. Needs
 * python3, a clang that targets Hexagon and llvm-objdump: skips without them, and fails under CI=true.
 */
#include "test-common.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOOL    VNPU_SOURCE_DIR "/scripts/hvx-inspect.py"
#define FIXTURE VNPU_SOURCE_DIR "/tests/hvx/inspect/kernels.c"
#define KERNEL  VNPU_SOURCE_DIR "/tests/hvx/calib-kernel.c"

static void require_tools(void **state) {
    (void) state;
    char *out = NULL;
    const int rc = test_run(&out, NULL,
                            "command -v python3 && command -v llvm-objdump && echo 'int x;' | clang --target=hexagon "
                            "-mv69 -mhvx -mhvx-length=128b -x c -c - -o /dev/null");
    free(out);
    test_require(rc == 0, "python3, a clang that targets Hexagon (--target=hexagon -mv69 -mhvx) and llvm-objdump",
                 "install Debian's python3, clang and llvm");
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

/* One line of a calibration file (hvx-inspect.py --calibrate). */
struct calib {
    int packets, hvx, depth;
    char loop[32];
};

/* fn's line in the calibration text; false when it has none. */
static bool calib_line(const char *text, const char *fn, struct calib *c) {
    char key[256];
    snprintf(key, sizeof(key), "\n%s\t", fn);
    const char *line = strstr(text, key);
    return line && sscanf(line + strlen(key), "%d\t%d\t%d\t%31s", &c->packets, &c->hvx, &c->depth, c->loop) == 4;
}

/* The calibration of the fixture kernel compiled with args (more hvx-inspect options) into *c; the file's text
 * (caller frees). */
static char *calibrate_kernel(const char *args, struct calib *c) {
    char path[4200], cmd[8600], *out = NULL;
    snprintf(path, sizeof(path), "%s/calib.tsv", test_tmpdir());
    snprintf(cmd, sizeof(cmd), "--arch 69 %s --calibrate '%s' '%s'", args, path, KERNEL);
    assert_int_equal(inspect(&out, cmd), 0);
    assert_non_null(strstr(out, "hvx-inspect: 1 functions with HVX instructions calibrated (v69)"));
    free(out);
    char *text = test_read_file(path, NULL);
    assert_non_null(text);
    if (!calib_line(text, "calib_vadd", c)) {
        fail_msg("no line for calib_vadd in:\n%s", text);
    }
    return text;
}

/* The kernel's one loop: at depth 1, its packets and HVX instructions counted; the file names the arch and the
 * compiler, and has the header. With -DCALIB_EXTRA_PACKET the loop body has one packet more (a lone nop in the
 * loop, as the annotated disassembly shows) and the same HVX instructions: the calibration is one more packet. */
static void test_calibrate_kernel(void **state) {
    require_tools(state);
    struct calib base, extra;
    char *text = calibrate_kernel("", &base);
    assert_true(strncmp(text, "# Hexagon v69, ", 15) == 0);
    assert_non_null(strstr(text, "clang version "));
    assert_non_null(strstr(text, "\nfunction\tpackets\thvx\tdepth\tloop\n"));
    free(text);
    assert_true(base.packets >= 1);
    assert_int_equal(base.hvx, 4);        /* two loads, the add and the store (unrolling disabled) */
    assert_true(base.packets < base.hvx); /* the add shares its packet with a .cur load and the .new store */
    assert_true(base.depth >= 1);
    assert_true(strncmp(base.loop, "0x", 2) == 0);
    free(calibrate_kernel("-D CALIB_EXTRA_PACKET", &extra));
    assert_int_equal(extra.packets, base.packets + 1);
    assert_int_equal(extra.hvx, base.hvx);
    assert_int_equal(extra.depth, base.depth);
    char *out = NULL;
    assert_int_equal(inspect(&out, "--arch 69 -D CALIB_EXTRA_PACKET --disasm calib_vadd '" KERNEL "'"), 0);
    const char *nop = strstr(out, "{   nop }");
    assert_non_null(nop);
    const char *line = nop;
    while (line > out && line[-1] != '\n') {
        line--;
    }
    assert_non_null(memchr(line, '|', (size_t) (nop - line))); /* the nop packet lies in the loop */
    free(out);
}

/* A function name defined in two objects cannot be a key of the calibration: exit 2, naming both. */
static void test_calibrate_duplicate(void **state) {
    require_tools(state);
    char copy[4200], *out = NULL, *err = NULL;
    snprintf(copy, sizeof(copy), "%s/calib-copy.c", test_tmpdir());
    size_t size = 0;
    char *src = test_read_file(KERNEL, &size);
    assert_non_null(src);
    test_write_file(copy, src, size);
    free(src);
    const int rc = test_run(&out, &err, "python3 '%s' --arch 69 --calibrate '%s/dup.tsv' '%s' '%s'", TOOL,
                            test_tmpdir(), KERNEL, copy);
    assert_int_equal(rc, 2);
    assert_non_null(strstr(err, "calib_vadd is defined in tests/hvx/calib-kernel.c and in "));
    assert_non_null(strstr(err, "calib-copy.c"));
    free(out);
    free(err);
}

/* The build's calibration (src/htp/CMakeLists.txt, built before this test): every line well formed, one per name, and
 * MUL_MAT's HVX code there: matmul_compute (the float kernels inlined) and the quantized dot kernels it calls through
 * a pointer (hvx_mm_qdot_*, out of line in matmul-driver.c), each with its loop. */
static void test_calibrate_build(void **state) {
    require_tools(state);
    test_require(VNPU_CALIB_FILE[0] != '\0', "the build's calibration (lib/vnpu-calib-v69.tsv)",
                 "configure with clang, llvm-objdump and python3 (cmake's vnpu-calib line says what is missing)");
    char *text = test_read_file(VNPU_CALIB_FILE, NULL);
    if (!text) {
        fail_msg("%s: missing (the target vnpu-calib writes it)", VNPU_CALIB_FILE);
    }
    int lines = 0, qdots = 0;
    for (const char *p = strstr(text, "\nfunction\tpackets\thvx\tdepth\tloop\n"); p && p[1]; p = strchr(p + 1, '\n')) {
        char name[200];
        struct calib c;
        if (strncmp(p + 1, "function\t", 9) == 0) {
            continue;
        }
        if (sscanf(p + 1, "%199s", name) != 1 || !calib_line(p, name, &c)) {
            fail_msg("%s: malformed line after %d: %.80s", VNPU_CALIB_FILE, lines, p + 1);
        }
        assert_true(c.packets >= 1 && c.hvx >= 1 && c.depth >= 0);
        assert_true((c.depth == 0) == (strcmp(c.loop, "-") == 0));
        char key[210];
        snprintf(key, sizeof(key), "\n%s\t", name);
        assert_ptr_equal(strstr(text, key), p); /* the first line of its name */
        if (strncmp(name, "hvx_mm_qdot_", 12) == 0) {
            assert_true(c.depth >= 1);
            qdots++;
        }
        lines++;
    }
    static const char *const want[] = {
        "matmul_compute",
        "matmul_worker_compute",
        "hvx_mm_qdot_q4_0_tiled_32x1",
        "hvx_mm_qdot_q4_0_tiled_32x2",
        "hvx_mm_qdot_q8_0_tiled_32x2",
        "hvx_mm_qdot_q4_K_tiled_32x2",
        "hvx_mm_qdot_q6_K_flat_32x2",
    };
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        struct calib c;
        if (!calib_line(text, want[i], &c) || c.depth < 1) {
            fail_msg("%s: no line with a loop for %s", VNPU_CALIB_FILE, want[i]);
        }
    }
    /* Every type's kernels (matmul-weights.h: 12 types, tiled and flat, one and two columns). */
    assert_int_equal(qdots, 12 * 2 * 2);
    print_message("%s: %d functions, %d quantized dot kernels\n", VNPU_CALIB_FILE, lines, qdots);
    free(text);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_finds_in_loop_spill), cmocka_unit_test(test_finds_promotion),
        cmocka_unit_test(test_finds_divisions),     cmocka_unit_test(test_exit_status),
        cmocka_unit_test(test_disasm_annotates),    cmocka_unit_test(test_allow),
        cmocka_unit_test(test_bad_input),           cmocka_unit_test(test_objdir),
        cmocka_unit_test(test_calibrate_kernel),    cmocka_unit_test(test_calibrate_duplicate),
        cmocka_unit_test(test_calibrate_build),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
