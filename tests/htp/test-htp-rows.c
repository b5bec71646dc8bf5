/*
 * The row and copy ops of the llama graph on HTP0, end to end: vnpu-cli on stories260K in F32, F16, Q8_0 and Q4_0
 * (token_embd of each type, so GET_ROWS dequantizes on the NPU) must give each file's llama.cpp greedy tokens
 * (../shared/models/reference/greedy.txt) with GET_ROWS and SET_ROWS (the KV cache writes) executing on HTP0;
 * with -fa off also the CONT copies of the attention (CPY: V transposed out of the F16 or F32 cache). Then the
 * same under strict DMA on one and six workers. VNPU_VERBOSE=1 names every op a request executed.
 */
#include "test-common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* vnpu-cli on model with env and extra arguments: its 40 tokens are llama.cpp's for that file, and every op of
 * want (NULL-terminated) executed on HTP0. */
static void check_rows_run(const char *model, const char *env, const char *args, const char *const *want) {
    int ref[64], got[64];
    assert_int_equal(test_greedy_ids(model, "greedy_tokens", ref, 64), 40);
    char *err = NULL;
    const int rc = test_run(NULL, &err,
                            "VNPU_VERBOSE=1 %s %s/vnpu-cli -m %s -p 'Once upon a time' -n 40 --temp 0 -t 2 "
                            "--device HTP0 --print-token-ids %s",
                            env, test_tools_dir(), test_model_path(model), args);
    if (rc != 0) {
        fail_msg("vnpu-cli -m %s %s (%s) exited %d:\n%.4000s", model, args, env, rc, err);
    }
    const int n_got = test_parse_ids(strstr(err, "generated ids:"), "generated ids", got, 64);
    for (int i = 0; i < 40; i++) {
        if (i >= n_got || got[i] != ref[i]) {
            fail_msg("vnpu-cli -m %s %s (%s): token %d is %d, llama.cpp's is %d", model, args, env, i,
                     i < n_got ? got[i] : -1, ref[i]);
        }
    }
    for (; *want; want++) {
        char line[64];
        snprintf(line, sizeof(line), "vnpu-htp: HTP0 execute-op %s : ", *want);
        if (!strstr(err, line)) {
            fail_msg("vnpu-cli -m %s %s (%s): no %s executed on HTP0", model, args, env, *want);
        }
    }
    printf("vnpu-cli -m %s %s (%s): llama.cpp's 40 tokens, rows on HTP0\n", model, args, env);
    free(err);
}

static const char *const rows_ops[] = {"GET_ROWS", "SET_ROWS", NULL};
static const char *const copy_ops[] = {"GET_ROWS", "SET_ROWS", "CPY", NULL};
static const char *const models[] = {"stories260K.gguf", "derived/stories260K-F16.gguf",
                                     "derived/stories260K-Q8_0.gguf", "derived/stories260K-Q4_0.gguf"};

static void test_rows_every_embedding_type(void **state) {
    (void) state;
    for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++) {
        check_rows_run(models[i], "", "", rows_ops);
    }
}

static void test_rows_copies(void **state) {
    (void) state;
    check_rows_run("stories260K.gguf", "", "-fa off", copy_ops);
    check_rows_run("derived/stories260K-Q4_0.gguf", "", "-fa off -ctk f32 -ctv f32", copy_ops);
}

static void test_rows_strict_dma(void **state) {
    (void) state;
    check_rows_run("derived/stories260K-Q8_0.gguf", "VNPU_DMA_STRICT=1 VNPU_NHVX=1", "-fa off", copy_ops);
    check_rows_run("derived/stories260K-Q4_0.gguf", "VNPU_DMA_STRICT=1 VNPU_NHVX=6", "-fa off", copy_ops);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows_every_embedding_type),
        cmocka_unit_test(test_rows_copies),
        cmocka_unit_test(test_rows_strict_dma),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
