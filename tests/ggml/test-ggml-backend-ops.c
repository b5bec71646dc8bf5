/*
 * libggml-vnpu.so under llama.cpp's own op tests: test-backend-ops of the oracle's release (upstream.sh) loads the
 * plugin (GGML_BACKEND_PATH) and compares every case HTP0 supports against ggml's CPU backend, one op at a time.
 * Each op must run on HTP0 (the backend appears and is tested, not skipped), run at least one case, and pass every
 * case it runs. Then llama-completion generates on HTP0 the text its CPU backend generates, of stories260K in F32
 * and in Q4_0, whose weights llama.cpp places in HTP0-REPACK.
 */
#include "test-common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What test-backend-ops printed about HTP0. */
struct backend_ops_result {
    int tested;      /* HTP0 appeared and was tested, not skipped */
    int passed, run; /* its "N/M tests passed" line */
    int unsupported; /* cases HTP0 said it does not support */
    int failed;      /* lines saying FAIL */
};

static struct backend_ops_result parse_output(const char *out) {
    struct backend_ops_result r = {.passed = -1, .run = -1};
    for (const char *line = out; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        const size_t len = strcspn(line, "\n");
        int a, b, end = 0;
        if (strncmp(line, "Backend ", 8) == 0 && len >= 6 && memcmp(line + len - 6, ": HTP0", 6) == 0) {
            const char *next = line + len + (line[len] == '\n');
            r.tested = strncmp(next, "  Device description:", 21) == 0;
        } else if (sscanf(line, " %d/%d tests passed%n", &a, &b, &end) == 2 && end > 0) { /* not "backends passed" */
            r.passed = a;
            r.run = b;
        }
        const char *fail = strstr(line, "FAIL");
        r.failed += fail && fail < line + len;
        const char *unsup = strstr(line, "not supported");
        r.unsupported += unsup && unsup < line + len;
    }
    return r;
}

static void check_op(const char *op) {
    const char *plugin = test_ggml_plugin();
    const char *bin = test_upstream_bindir();
    char *out = NULL, *err = NULL;
    const int rc = test_run(&out, &err, "GGML_BACKEND_PATH='%s' '%s/test-backend-ops' -b HTP0 -o %s", plugin, bin, op);
    assert_non_null(out);
    const struct backend_ops_result r = parse_output(out);
    fprintf(stderr, "%s: %d/%d cases passed on HTP0, %d not supported\n", op, r.passed, r.run, r.unsupported);
    if (rc != 0 || !r.tested || r.run < 1 || r.passed != r.run || r.failed != 0) {
        fail_msg(
            "test-backend-ops -b HTP0 -o %s: exit %d, HTP0 %s, %d/%d passed, %d FAIL lines\nstdout:\n%s\nstderr:\n%s",
            op, rc, r.tested ? "tested" : "not tested", r.passed, r.run, r.failed, out, err ? err : "");
    }
    free(out);
    free(err);
}

#define OP_CASE(name)                       \
    static void test_##name(void **state) { \
        (void) state;                       \
        check_op(#name);                    \
    }
OP_CASE(ADD)
OP_CASE(MUL)
OP_CASE(RMS_NORM)
OP_CASE(SCALE)
OP_CASE(MUL_MAT)
OP_CASE(GET_ROWS)
OP_CASE(CPY)
OP_CASE(SOFT_MAX)
OP_CASE(ROPE)
OP_CASE(SUB)
OP_CASE(DIV)
OP_CASE(MUL_MAT_ID)
OP_CASE(SET_ROWS)
OP_CASE(CONT)
OP_CASE(SILU)
OP_CASE(GELU)
OP_CASE(SWIGLU)
OP_CASE(FLASH_ATTN_EXT)

/* llama-completion's text (its stdout) for the prompt, greedy, 64 tokens: env (assignments, or "") before the command,
 * dev its device options; llama.cpp's log (stderr) into *log when log is not NULL. Fails the test when it fails. */
static char *completion(const char *env, const char *model, const char *dev, char **log) {
    const char *plugin = test_ggml_plugin();
    const char *bin = test_upstream_bindir();
    char *out = NULL, *err = NULL;
    const int rc = test_run(&out, &err,
                            "%s GGML_BACKEND_PATH='%s' '%s/llama-completion' -m '%s' %s --temp 0 -no-cnv -p 'Once upon "
                            "a time' -n 64",
                            env, plugin, bin, model, dev);
    if (rc != 0 || !out) {
        fail_msg("%s llama-completion %s exited %d:\n%s", env, dev, rc, err ? err : "");
    }
    assert_true(strlen(out) > strlen("Once upon a time") + 16); /* it generated */
    if (log) {
        *log = err;
    } else {
        free(err);
    }
    return out;
}

/* Greedy generation of stories260K with every layer on HTP0 (-ngl 99), on the row-split group of HTP0 and HTP1 that
 * VNPU_DEVICES makes one GGML device (llama.cpp refuses a -dev its registry lacks), and on llama.cpp's CPU backend
 * alone (-dev none): the same text. */
static void test_completion_stories260K(void **state) {
    (void) state;
    const char *model = test_model_path("stories260K.gguf");
    char *htp = completion("", model, "-dev HTP0 -ngl 99", NULL);
    char *cpu = completion("", model, "-dev none", NULL);
    assert_string_equal(htp, cpu);
    free(htp);
    htp = completion("VNPU_NDEV=2 VNPU_DEVICES='HTP0[0-1]'", model, "-dev 'HTP0[0-1]' -ngl 99", NULL);
    assert_string_equal(htp, cpu);
    free(htp);
    free(cpu);
}

/* MiB of the buffer type's model buffer in llama.cpp's log (its last "<name> model buffer size = X MiB" line: the
 * first load may be llama.cpp's fit pass, of 0 bytes); -1 when the log has none. */
static double model_buffer_mib(const char *log, const char *name) {
    char key[64];
    snprintf(key, sizeof(key), " %s model buffer size = ", name);
    double mib = -1.0;
    for (const char *p = strstr(log, key); p; p = strstr(p + 1, key)) {
        mib = strtod(p + strlen(key), NULL);
    }
    return mib;
}

/* The Q4_0 stories260K (Q4_0 and Q8_0 weights, which vnpu tiles; ffn_down F16) on HTP0: llama.cpp places the tiled
 * weights in HTP0-REPACK (its log says so) and generates the CPU backend's text; under VNPU_HOSTBUF=1 there is no
 * REPACK and every weight is in HTP0, flat, with the same text. */
static void test_completion_repack(void **state) {
    (void) state;
    const char *model = test_model_path("derived/stories260K-Q4_0.gguf");
    char *cpu = completion("", model, "-dev none", NULL);
    char *log = NULL;
    char *htp = completion("", model, "-dev HTP0 -ngl 99 -lv 4", &log);
    const double repack = model_buffer_mib(log, "HTP0-REPACK");
    if (repack <= 0.0) {
        fail_msg("llama.cpp placed no weights in HTP0-REPACK (%.2f MiB):\n%s", repack, log);
    }
    assert_string_equal(htp, cpu);
    free(htp);
    free(log);
    char *flat = completion("VNPU_HOSTBUF=1", model, "-dev HTP0 -ngl 99 -lv 4", &log);
    assert_true(model_buffer_mib(log, "HTP0-REPACK") < 0.0);
    assert_true(model_buffer_mib(log, "HTP0") > repack);
    assert_string_equal(flat, cpu);
    free(flat);
    free(log);
    free(cpu);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ADD),
        cmocka_unit_test(test_MUL),
        cmocka_unit_test(test_RMS_NORM),
        cmocka_unit_test(test_SCALE),
        cmocka_unit_test(test_MUL_MAT),
        cmocka_unit_test(test_GET_ROWS),
        cmocka_unit_test(test_CPY),
        cmocka_unit_test(test_SOFT_MAX),
        cmocka_unit_test(test_ROPE),
        cmocka_unit_test(test_SUB),
        cmocka_unit_test(test_DIV),
        cmocka_unit_test(test_MUL_MAT_ID),
        cmocka_unit_test(test_SET_ROWS),
        cmocka_unit_test(test_CONT),
        cmocka_unit_test(test_SILU),
        cmocka_unit_test(test_GELU),
        cmocka_unit_test(test_SWIGLU),
        cmocka_unit_test(test_FLASH_ATTN_EXT),
        cmocka_unit_test(test_completion_stories260K),
        cmocka_unit_test(test_completion_repack),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
