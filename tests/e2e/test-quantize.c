/*
 * vnpu-quantize on the shared models: which tensors it keeps wide and why, that the result runs, and that
 * bad input leaves no output behind.
 */
#include "test-common.h"

#include "gguf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* stories260K to q4_K: no row of 64 or 172 elements fills a 256-element block, so llama.cpp's fallbacks
 * apply: q4_K -> q5_0 for the 64-wide weights, q5_0 -> f16 for ffn_down (172 wide); norms stay f32. */
static void test_fallbacks_named(void **state) {
    (void) state;
    char out_path[4200];
    snprintf(out_path, sizeof(out_path), "%s/s-q4_K.gguf", test_tmpdir());
    char *err = NULL;
    const int rc = test_run(NULL, &err, "%s/vnpu-quantize %s %s q4_K", test_tools_dir(),
                            test_model_path("stories260K.gguf"), out_path);
    if (rc != 0) {
        fail_msg("vnpu-quantize exited %d:\n%s", rc, err);
    }
    assert_non_null(
        strstr(err, "blk.0.attn_q.weight: kept as q5_0 (ne0 = 64 is not a multiple of the q4_K block (256))"));
    assert_non_null(
        strstr(err, "blk.0.ffn_down.weight: kept as f16 (ne0 = 172 is not a multiple of the q5_0 block (32))"));
    assert_non_null(strstr(err, "output_norm.weight: kept as f32 (1-D)"));
    free(err);

    struct gguf_file *f = NULL;
    assert_int_equal(gguf_open(out_path, &f), VNPU_STATUS_OK);
    assert_int_equal(gguf_tensor(f, gguf_find_tensor(f, "blk.0.attn_q.weight"))->type, VNPU_TYPE_Q5_0);
    assert_int_equal(gguf_tensor(f, gguf_find_tensor(f, "blk.0.ffn_down.weight"))->type, VNPU_TYPE_F16);
    assert_int_equal(gguf_tensor(f, gguf_find_tensor(f, "output_norm.weight"))->type, VNPU_TYPE_F32);
    const int64_t ft = gguf_find_key(f, "general.file_type");
    assert_true(ft >= 0);
    assert_int_equal(gguf_get_u32(f, ft), 14); /* LLAMA_FTYPE_MOSTLY_Q4_K_S: every weight asked for q4_K */
    gguf_close(f);

    char *out = NULL;
    assert_int_equal(test_run(&out, NULL,
                              "%s/vnpu-cli -m %s -p 'Once upon a time' -n 8 --temp 0 -t 2 --device CPU 2>/dev/null",
                              test_tools_dir(), out_path),
                     0);
    assert_true(strlen(out) > strlen("Once upon a time"));
    free(out);
}

/* Each bad invocation exits non-zero with its reason and leaves no file at the output path. */
static void test_bad_input_leaves_nothing(void **state) {
    (void) state;
    const char *dir = test_tmpdir();
    char f32[4200], q8[4200]; /* test_model_path's buffer is reused by each call */
    snprintf(f32, sizeof(f32), "%s", test_model_path("stories260K.gguf"));
    snprintf(q8, sizeof(q8), "%s", test_model_path("derived/stories260K-Q8_0.gguf"));
    struct {
        const char *args;
        const char *message;
    } cases[] = {
        {"%s %s/out.gguf q9_9", "unknown or unsupported type 'q9_9'"},
        {"%s/missing.gguf %s/out.gguf q4_0", "missing.gguf"},
        {"%s %s/out.gguf q4_0", "the input must be an F32, F16 or BF16 model"},
        {"%s %s/out.gguf", "usage"},
    };
    const char *inputs[] = {f32, dir, q8, f32};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char args[9000];
        snprintf(args, sizeof(args), cases[i].args, inputs[i], dir);
        char *err = NULL;
        const int rc = test_run(NULL, &err, "%s/vnpu-quantize %s", test_tools_dir(), args);
        printf("vnpu-quantize %s -> %d: %s", args, rc, err);
        assert_true(rc > 0);
        assert_non_null(strstr(err, cases[i].message));
        char out_path[4200];
        snprintf(out_path, sizeof(out_path), "%s/out.gguf", dir);
        assert_int_not_equal(access(out_path, F_OK), 0);
        free(err);
    }
    /* The input named as the output is refused before anything is written. */
    char *err = NULL;
    char copy[4200];
    snprintf(copy, sizeof(copy), "%s/same.gguf", dir);
    assert_int_equal(test_run(NULL, NULL, "cp %s %s", f32, copy), 0);
    assert_true(test_run(NULL, &err, "%s/vnpu-quantize %s %s q8_0", test_tools_dir(), copy, copy) > 0);
    assert_non_null(strstr(err, "is the input file"));
    free(err);
    assert_int_equal(test_run(NULL, NULL, "cmp -s %s %s", f32, copy), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fallbacks_named),
        cmocka_unit_test(test_bad_input_leaves_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
