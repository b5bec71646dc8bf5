/*
 * MUL_MAT on HTP0, end to end: vnpu-cli on stories260K in F32, F16, Q8_0 and Q4_0 gives llama.cpp's 40 greedy
 * tokens (../shared/models/reference/greedy.txt) with every MUL_MAT node of the graph accepted by HTP0 and executed
 * there (VNPU_VERBOSE=1), including ffn_down, whose K = 172 is not a multiple of 32 (F32 and F16 weights; the
 * derived Q8_0 and Q4_0 files keep it in F16). The quantized weights are placed at load in HTP0-REPACK, tiled (the
 * "load:" probes of model.c accept them); VNPU_HOSTBUF=1 keeps them flat and must give the same tokens. Then -fa off
 * (the attention's K x Q and V x KQ products of permuted KV-cache views on HTP0) and strict DMA on six workers.
 */
#include "test-common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* vnpu-cli on model with env and args: llama.cpp's 40 tokens, every MUL_MAT node accepted and some executed on HTP0,
 * and (placed) every quantized weight probe at load accepted. Returns the MUL_MATs executed. */
static int check_matmul_run(const char *model, const char *env, const char *args, bool placed) {
    int ref[64], got[64];
    const int n_ref = test_greedy_ids(model, "greedy_tokens", ref, 64);
    assert_int_equal(n_ref, 40);
    char *err = NULL;
    const int rc = test_run(NULL, &err,
                            "VNPU_VERBOSE=1 %s %s/vnpu-cli -m %s -p 'Once upon a time' -n 40 --temp 0 -t 2 "
                            "--device HTP0 --print-token-ids %s",
                            env, test_tools_dir(), test_model_path(model), args);
    if (rc != 0) {
        fail_msg("vnpu-cli -m %s %s (%s) exited %d:\n%.4000s", model, args, env, rc, err);
    }
    const int n_got = test_parse_ids(strstr(err, "generated ids:"), "generated ids", got, 64);
    for (int i = 0; i < n_ref; i++) {
        if (i >= n_got || got[i] != ref[i]) {
            fail_msg("%s %s (%s) on HTP0: token %d is %d, llama.cpp's is %d", model, args, env, i,
                     i < n_got ? got[i] : -1, ref[i]);
        }
    }
    const int refused = test_count_lines(err, "supports-op MUL_MAT : ", " : no (", NULL);
    const int executed = test_count_lines(err, "execute-op MUL_MAT : ", " -> ", NULL);
    if (refused != 0 || executed == 0) {
        fail_msg("%s %s (%s): %d MUL_MAT nodes refused by HTP0, %d executed", model, args, env, refused, executed);
    }
    const int probes = test_count_lines(err, "supports-op MUL_MAT : load:", " : yes", NULL);
    assert_true(placed ? probes > 0 : probes == 0);
    printf("%s %s (%s): llama.cpp's 40 tokens, %d MUL_MAT executed on HTP0, %d weights probed at load\n", model, args,
           env, executed, probes);
    free(err);
    return executed;
}

static void test_matmul_f32(void **state) {
    (void) state;
    check_matmul_run("stories260K.gguf", "", "", false);
}

static void test_matmul_f16(void **state) {
    (void) state;
    check_matmul_run("derived/stories260K-F16.gguf", "", "", false);
}

static void test_matmul_q8_0(void **state) {
    (void) state;
    check_matmul_run("derived/stories260K-Q8_0.gguf", "", "", true);
    check_matmul_run("derived/stories260K-Q8_0.gguf", "VNPU_HOSTBUF=1", "", true);
}

static void test_matmul_q4_0(void **state) {
    (void) state;
    check_matmul_run("derived/stories260K-Q4_0.gguf", "", "", true);
    check_matmul_run("derived/stories260K-Q4_0.gguf", "VNPU_HOSTBUF=1", "", true);
}

/* Without flash attention the graph multiplies a view of the K cache (rows one cache row apart, heads side by side)
 * by the permuted queries, and V's transpose by KQ: both on HTP0 too. */
static void test_matmul_attention(void **state) {
    (void) state;
    const int flash = check_matmul_run("derived/stories260K-F16.gguf", "", "", false);
    const int plain = check_matmul_run("derived/stories260K-F16.gguf", "", "-fa off", false);
    assert_true(plain > flash);
}

static void test_matmul_strict_dma(void **state) {
    (void) state;
    check_matmul_run("derived/stories260K-Q8_0.gguf", "VNPU_DMA_STRICT=1 VNPU_NHVX=6", "", true);
    check_matmul_run("derived/stories260K-Q4_0.gguf", "VNPU_DMA_STRICT=1 VNPU_NHVX=6 VNPU_HOSTBUF=1", "-fa off", true);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matmul_f32),       cmocka_unit_test(test_matmul_f16),
        cmocka_unit_test(test_matmul_q8_0),      cmocka_unit_test(test_matmul_q4_0),
        cmocka_unit_test(test_matmul_attention), cmocka_unit_test(test_matmul_strict_dma),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
