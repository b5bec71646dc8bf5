/*
 * vnpu-gguf end to end: --validate rejects every malformed file of gguf-cases.c with exit status 1 and
 * its message on stderr, accepts every valid one with exit status 0 and the one-line summary; the
 * inspect mode prints a shared model's header, kvs, tensors and totals; usage errors exit 2.
 */
#include "test-common.h"

#include "gguf-cases.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *tool(void) {
    static char path[4200];
    snprintf(path, sizeof(path), "%s/vnpu-gguf", test_tools_dir());
    return path;
}

static void test_validate_malformed(void **state) {
    (void) state;
    size_t n;
    const struct gguf_case *cases = gguf_cases_write_malformed(test_tmpdir(), &n);
    for (size_t i = 0; i < n; i++) {
        char *out = NULL, *err = NULL;
        const int rc = test_run(&out, &err, "'%s' --validate '%s/%s.gguf'", tool(), test_tmpdir(), cases[i].name);
        if (rc != 1 || out[0] != '\0' || !strstr(err, cases[i].message) || !strstr(err, "error: ")) {
            fail_msg("%s: exit %d, stdout:\n%s\nstderr:\n%s\nwanted exit 1 and: %s", cases[i].name, rc, out, err,
                     cases[i].message);
        }
        free(out);
        free(err);
    }
}

static void test_validate_valid(void **state) {
    (void) state;
    size_t n;
    struct gb_bytes b = {0};
    const struct gguf_case *cases = gguf_cases_write_valid(test_tmpdir(), &n);
    for (size_t i = 0; i < n; i++) {
        char *out = NULL, *err = NULL, want[4400];
        struct gb_file d;
        gguf_case_build(&cases[i], &d, &b);
        snprintf(want, sizeof(want), "%s/%s.gguf: valid GGUF v%u, %d tensors, %d kvs\n", test_tmpdir(), cases[i].name,
                 d.version, d.n_tensors, d.n_kv);
        const int rc = test_run(&out, &err, "'%s' --validate '%s/%s.gguf'", tool(), test_tmpdir(), cases[i].name);
        if (rc != 0 || strcmp(out, want) != 0 || err[0] != '\0') {
            fail_msg("%s: exit %d, stdout:\n%s\nstderr:\n%s\nwanted: %s", cases[i].name, rc, out, err, want);
        }
        free(out);
        free(err);
    }
    gb_bytes_free(&b);
}

/* Several files at once: exit 1 when any is malformed, each valid one still reported. */
static void test_validate_several(void **state) {
    (void) state;
    size_t n;
    gguf_cases_write_malformed(test_tmpdir(), &n);
    gguf_cases_write_valid(test_tmpdir(), &n);
    char *out = NULL, *err = NULL;
    const int rc = test_run(&out, &err, "cd '%s' && '%s' --validate ok-v2.gguf bad-magic.gguf ok-default.gguf",
                            test_tmpdir(), tool());
    assert_int_equal(rc, 1);
    assert_string_equal(out, "ok-v2.gguf: valid GGUF v2, 3 tensors, 7 kvs\n"
                             "ok-default.gguf: valid GGUF v3, 3 tensors, 7 kvs\n");
    assert_non_null(strstr(err, "bad-magic.gguf: bad magic"));
    free(out);
    free(err);
}

static void test_inspect_model(void **state) {
    (void) state;
    const char *model = test_model_path("stories260K.gguf");
    char *out = NULL;
    assert_int_equal(test_run(&out, NULL, "'%s' '%s'", tool(), model), 0);
    static const char *const want[] = {
        "GGUF v3, 1185376 bytes, alignment 32, 19 kvs, 48 tensors",
        "general.architecture                     str  \"llama\"",
        "tokenizer.ggml.tokens                    arr  [str x 512] \"<unk>\", \"<s>\", \"</s>\", \"<0x00>\", ...",
        "token_embd.weight                        f32     [64, 512]",
        "131072 bytes  @ 0",
        "blk.0.ffn_down.weight                    f32     [172, 64]",
        "totals: 292800 params, 1171200 bytes",
        "  f32        48 tensors       292800 params      1171200 bytes",
    };
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        if (!strstr(out, want[i])) {
            fail_msg("missing from the output: %s\noutput:\n%s", want[i], out);
        }
    }
    free(out);
}

static void test_usage(void **state) {
    (void) state;
    char *out = NULL, *err = NULL;
    assert_int_equal(test_run(&out, &err, "'%s' --help", tool()), 0);
    assert_non_null(strstr(out, "usage: vnpu-gguf"));
    free(out);
    free(err);
    assert_int_equal(test_run(&out, &err, "'%s'", tool()), 2);
    assert_non_null(strstr(err, "usage: vnpu-gguf"));
    free(out);
    free(err);
    assert_int_equal(test_run(&out, &err, "'%s' --bogus x.gguf", tool()), 2);
    assert_non_null(strstr(err, "unknown option --bogus"));
    free(out);
    free(err);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_validate_malformed),
        cmocka_unit_test(test_validate_valid),
        cmocka_unit_test(test_validate_several),
        cmocka_unit_test(test_inspect_model),
        cmocka_unit_test(test_usage),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
