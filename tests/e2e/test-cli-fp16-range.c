/*
 * FP16's range on the HMX path, told to the user (docs/HTP.md, "FP16 range on HMX"): a synthetic F32 model whose
 * weights have std 3 (the oracle's gen_gguf: 128 embd, 2 layers, ff 384, vocab 512) makes layer 0's ffn_out
 * results pass 65504 on a 260-token prompt, decoded in two batches of 130 (HMX: a batch of 128 or more columns). On
 * HTP0 vnpu-cli must generate (exit 0) and warn exactly once per affected node and operand, naming the node, the
 * operand, the count and VNPU_MM_PATH=hvx, although both batches overflow; with VNPU_MM_PATH=hvx it warns nothing.
 */
#include "test-common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_PROMPT 260

/* The model, from the cache (test_gen_gguf). */
static const char *model(void) {
    static char path[4400];
    return test_gen_gguf("fp16-range",
                         "--preset tiny --n-embd 128 --n-layer 2 --n-head 4 --n-head-kv 4 --n-ff 384 --n-vocab 512 "
                         "--n-ctx 512 --std 3 --type f32",
                         path, sizeof(path));
}

/* vnpu-cli on the model on device (VNPU_NDEV=2) with mm_path as VNPU_MM_PATH; its stderr. */
static char *run_cli(const char *mm_path, const char *device) {
    char tokens[8 * N_PROMPT];
    size_t n = 0;
    for (int i = 0; i < N_PROMPT; i++) {
        n += (size_t) snprintf(tokens + n, sizeof(tokens) - n, "%s%d", i ? "," : "", 1 + i % 500);
    }
    char *err = NULL;
    const int rc = test_run(NULL, &err,
                            "VNPU_NDEV=2 VNPU_MM_PATH=%s %s/vnpu-cli -m %s --tokens %s -n 2 --temp 0 -t 2 -c 512 "
                            "-b 130 --device '%s'",
                            mm_path, test_tools_dir(), model(), tokens, device);
    if (rc != 0) {
        fail_msg("vnpu-cli (VNPU_MM_PATH=%s) exited %d:\n%s", mm_path, rc, err);
    }
    return err;
}

static void test_hmx_warns_once(void **state) {
    (void) state;
    char *err = run_cli("auto", "HTP0");
    const int n_warn = test_count_lines(err, "warning: HTP0: MUL_MAT '", "' on HMX: its ", "narrowed to FP16",
                                        "set VNPU_MM_PATH=hvx to keep F32 on the NPU", NULL);
    const int n_output =
        test_count_lines(err, "warning: HTP0: MUL_MAT 'ffn_out-0' on HMX: its output narrowed to FP16: ",
                         "beyond its range (now infinities)", "the largest finite magnitude 65504;", NULL);
    if (n_output != 1 || n_warn == 0) {
        fail_msg("expected one warning of ffn_out-0's output overflow:\n%s", err);
    }
    /* once per (node, operand): no line twice, though the second batch overflows as the first */
    for (const char *line = err; line && *line;) {
        const char *end = strchr(line, '\n');
        char buf[512];
        snprintf(buf, sizeof(buf), "%.*s", (int) (end ? (size_t) (end - line) : strlen(line)), line);
        char *colon = strstr(buf, "narrowed to FP16");
        if (colon) {
            *colon = 0; /* the node and the operand */
            if (test_count_lines(err, buf, NULL) != 1) {
                fail_msg("'%s' warned more than once:\n%s", buf, err);
            }
        }
        line = end ? end + 1 : NULL;
    }
    printf("%d warnings on HMX\n", n_warn);
    free(err);
}

static void test_hvx_warns_nothing(void **state) {
    (void) state;
    char *err = run_cli("hvx", "HTP0");
    if (test_count_lines(err, "on HMX", NULL) != 0) {
        fail_msg("a warning with VNPU_MM_PATH=hvx:\n%s", err);
    }
    free(err);
}

/* The overflow count in the warning of ffn_out-0's output for device (named in the warning); -1 when none. */
static long ffn_out_overflows(const char *err, const char *device) {
    char want[128];
    snprintf(want, sizeof(want), "warning: %s: MUL_MAT 'ffn_out-0' on HMX: its output narrowed to FP16: ", device);
    const char *at = strstr(err, want);
    return at ? strtol(at + strlen(want), NULL, 10) : -1;
}

/* A row-split group's members each narrow their partition of the rows: the group warns with the sum of their counts,
 * under its own name (one member's share went untold when the overflowing rows were not member 0's). */
static void test_group_warns_all_members(void **state) {
    (void) state;
    char *one = run_cli("auto", "HTP0"), *group = run_cli("auto", "HTP0[0-1]");
    const long n_one = ffn_out_overflows(one, "HTP0"), n_group = ffn_out_overflows(group, "HTP0[0-1]");
    if (n_one <= 0 || n_group != n_one) {
        fail_msg("HTP0 counted %ld overflows of ffn_out-0's output, HTP0[0-1] %ld:\n%s", n_one, n_group, group);
    }
    free(one);
    free(group);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hmx_warns_once),
        cmocka_unit_test(test_hvx_warns_nothing),
        cmocka_unit_test(test_group_warns_all_members),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
