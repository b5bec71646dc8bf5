/*
 * The attention ops of the llama graph on HTP0, end to end: vnpu-cli on stories260K must give llama.cpp's 40
 * greedy tokens (../shared/models/reference/greedy.txt) with ROPE and FLASH_ATTN_EXT executing on HTP0 (F16 and
 * F32 KV cache), and with -fa off ROPE and SOFT_MAX; then the same under strict DMA on one and six workers.
 * VNPU_VERBOSE=1 names every op a request executed ("vnpu-htp: HTP0 execute-op ROPE : Qcur-0 : ...").
 */
#include "test-common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Runs vnpu-cli on stories260K with env and extra arguments; checks its tokens against llama.cpp's and that
 * every op of want (NULL-terminated) executed on HTP0 and no op of absent did. */
static void check_attn_run(const char *env, const char *args, const char *const *want, const char *const *absent) {
    int ref[64], got[64];
    const int n_ref = test_greedy_ids("stories260K.gguf", "greedy_tokens", ref, 64);
    assert_int_equal(n_ref, 40);
    char *err = NULL;
    const int rc = test_run(NULL, &err,
                            "VNPU_VERBOSE=1 %s %s/vnpu-cli -m %s -p 'Once upon a time' -n 40 --temp 0 -t 2 "
                            "--device HTP0 --print-token-ids %s",
                            env, test_tools_dir(), test_model_path("stories260K.gguf"), args);
    if (rc != 0) {
        fail_msg("vnpu-cli %s (%s) exited %d:\n%.4000s", args, env, rc, err);
    }
    const int n_got = test_parse_ids(strstr(err, "generated ids:"), "generated ids", got, 64);
    for (int i = 0; i < n_ref; i++) {
        if (i >= n_got || got[i] != ref[i]) {
            fail_msg("vnpu-cli %s (%s): token %d is %d, llama.cpp's is %d", args, env, i, i < n_got ? got[i] : -1,
                     ref[i]);
        }
    }
    for (; *want; want++) {
        char line[64];
        snprintf(line, sizeof(line), "vnpu-htp: HTP0 execute-op %s : ", *want);
        if (!strstr(err, line)) {
            fail_msg("vnpu-cli %s (%s): no %s executed on HTP0", args, env, *want);
        }
    }
    for (; *absent; absent++) {
        char line[64];
        snprintf(line, sizeof(line), "vnpu-htp: HTP0 execute-op %s : ", *absent);
        assert_null(strstr(err, line));
    }
    printf("vnpu-cli %s (%s): llama.cpp's 40 tokens, attention on HTP0\n", args, env);
    free(err);
}

static const char *const flash_ops[] = {"ROPE", "FLASH_ATTN_EXT", NULL};
static const char *const no_flash_ops[] = {"SOFT_MAX", NULL};
static const char *const softmax_ops[] = {"ROPE", "SOFT_MAX", NULL};
static const char *const no_softmax_ops[] = {"FLASH_ATTN_EXT", NULL};

static void test_attn_flash_f16_cache(void **state) {
    (void) state;
    check_attn_run("", "", flash_ops, no_flash_ops);
}

static void test_attn_flash_f32_cache(void **state) {
    (void) state;
    check_attn_run("", "-ctk f32 -ctv f32", flash_ops, no_flash_ops);
}

static void test_attn_soft_max(void **state) {
    (void) state;
    check_attn_run("", "-fa off", softmax_ops, no_softmax_ops);
}

static void test_attn_strict_dma(void **state) {
    (void) state;
    check_attn_run("VNPU_DMA_STRICT=1 VNPU_NHVX=1", "", flash_ops, no_flash_ops);
    check_attn_run("VNPU_DMA_STRICT=1 VNPU_NHVX=6", "", flash_ops, no_flash_ops);
    check_attn_run("VNPU_DMA_STRICT=1 VNPU_NHVX=6", "-fa off -ctk f32 -ctv f32", softmax_ops, no_softmax_ops);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_attn_flash_f16_cache),
        cmocka_unit_test(test_attn_flash_f32_cache),
        cmocka_unit_test(test_attn_soft_max),
        cmocka_unit_test(test_attn_strict_dma),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
