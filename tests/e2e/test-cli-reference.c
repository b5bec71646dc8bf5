/*
 * vnpu-cli's CPU reference path (--device CPU) against llama.cpp's recorded outputs (../shared/models/reference,
 * made with llama.cpp's CPU backend; see ../shared/models/README.md section 4): greedy tokens of stories260K and
 * its F16/Q8_0 files, last-prompt-position logits of the Q4_0 file and of llama-2-tiny-random. Then what vnpu-cli
 * tells the user about its prompt and context, on that path.
 */
#include "test-common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check_greedy(const char *model, const char *extra) {
    int want[64], want_prompt[16];
    const int n_want = test_greedy_ids(model, "greedy_tokens", want, 64);
    const int n_want_prompt = test_greedy_ids(model, "prompt_tokens", want_prompt, 16);
    assert_int_equal(n_want, 40);

    char *out = NULL, *err = NULL;
    const int rc = test_run(
        &out, &err, "%s/vnpu-cli -m %s -p 'Once upon a time' -n 40 --temp 0 -t 2 --device CPU --print-token-ids %s",
        test_tools_dir(), test_model_path(model), extra);
    if (rc != 0) {
        fail_msg("vnpu-cli exited %d:\n%s", rc, err);
    }
    int got[64], got_prompt[16];
    assert_int_equal(test_parse_ids(err, "prompt ids", got_prompt, 16), n_want_prompt);
    assert_memory_equal(got_prompt, want_prompt, sizeof(int) * (size_t) n_want_prompt);
    const int n_got = test_parse_ids(err, "generated ids", got, 64);
    for (int i = 0; i < n_want; i++) {
        if (i >= n_got || got[i] != want[i]) {
            fail_msg("%s %s: token %d is %d, llama.cpp's is %d\nstdout: %s", model, extra, i, i < n_got ? got[i] : -1,
                     want[i], out);
        }
    }
    assert_int_equal(n_got, n_want);
    free(out);
    free(err);
}

static void test_greedy_f32(void **state) {
    (void) state;
    check_greedy("stories260K.gguf", "");
}

static void test_greedy_f32_no_flash_attn(void **state) {
    (void) state;
    check_greedy("stories260K.gguf", "-fa off -ctk f32 -ctv f32");
}

static void test_greedy_f16(void **state) {
    (void) state;
    check_greedy("derived/stories260K-F16.gguf", "");
}

static void test_greedy_q8_0(void **state) {
    (void) state;
    check_greedy("derived/stories260K-Q8_0.gguf", "");
}

/* Row n_prompt-1 of the logits vnpu-cli writes vs llama.cpp's logits-step0: top-1 equal and
 * max|dlogit| < 2e-2 * max|logit| (llama.cpp quantizes activations; vnpu's CPU path keeps them F32). */
static void check_step0(const char *model, const char *ref) {
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s.logits", test_tmpdir(), ref);
    char *err = NULL;
    const int rc =
        test_run(NULL, &err, "%s/vnpu-cli -m %s -p 'Once upon a time' -n 0 -t 2 --device CPU --logits-out %s",
                 test_tools_dir(), test_model_path(model), path);
    if (rc != 0) {
        fail_msg("vnpu-cli exited %d:\n%s", rc, err);
    }
    free(err);
    size_t size = 0, ref_size = 0;
    uint8_t *mine = test_read_file(path, &size);
    char ref_path[256];
    snprintf(ref_path, sizeof(ref_path), "reference/logits-step0.%s.f32", ref);
    float *want = test_read_file(test_model_path(ref_path), &ref_size);
    assert_non_null(mine);
    assert_non_null(want);
    assert_memory_equal(mine, "LLREFLG1", 8);
    uint32_t hdr[6];
    memcpy(hdr, mine + 8, sizeof(hdr));
    const uint32_t n_vocab = hdr[1], n_prompt = hdr[2], n_rows = hdr[4];
    assert_int_equal(ref_size, n_vocab * sizeof(float));
    assert_int_equal(n_rows, n_prompt);
    const float *got = (const float *) (mine + 32) + (size_t) (n_prompt - 1) * n_vocab;
    uint32_t top_got = 0, top_want = 0;
    float max_abs = 0.0f, max_diff = 0.0f;
    for (uint32_t i = 0; i < n_vocab; i++) {
        top_got = got[i] > got[top_got] ? i : top_got;
        top_want = want[i] > want[top_want] ? i : top_want;
        max_abs = fmaxf(max_abs, fabsf(want[i]));
        max_diff = fmaxf(max_diff, fabsf(got[i] - want[i]));
    }
    printf("%s: top-1 %u (llama.cpp %u), max|dlogit| %.5f, max|logit| %.5f\n", model, top_got, top_want, max_diff,
           max_abs);
    assert_int_equal(top_got, top_want);
    assert_true(max_diff < 2e-2f * max_abs);
    free(mine);
    free(want);
}

static void test_step0_q4_0(void **state) {
    (void) state;
    check_step0("derived/stories260K-Q4_0.gguf", "stories260K-Q4_0");
}

static void test_step0_tiny_random(void **state) {
    (void) state;
    check_step0("llama-2-tiny-random.gguf", "llama-2-tiny-random");
}

/* vnpu-cli on stories260K with --device CPU and args: its exit status, stdout and stderr (*out, *err: freed by the
 * caller). */
static int run_cli(const char *args, char **out, char **err) {
    return test_run(out, err, "%s/vnpu-cli -m %s --device CPU -t 2 --temp 0 --seed 1 %s", test_tools_dir(),
                    test_model_path("stories260K.gguf"), args);
}

/* An id of --tokens outside the vocabulary fails before any decode, naming the id, its position and n_vocab. */
static void test_tokens_out_of_vocab(void **state) {
    (void) state;
    char *out = NULL, *err = NULL;
    const int rc = run_cli("--tokens 1,99999 -n 2", &out, &err);
    if (rc == 0 || !strstr(err, "vnpu-cli: --tokens: id 99999 at position 1 is outside the vocabulary (n_vocab 512") ||
        strstr(err, "decode")) {
        fail_msg("exit %d:\n%s", rc, err);
    }
    free(out);
    free(err);
}

/* A prompt as long as the context runs (nothing generated with -n 0); one token longer is refused, naming both. */
static void test_prompt_fills_context(void **state) {
    (void) state;
    char *out = NULL, *err = NULL;
    int rc = run_cli("-p 'Once upon a time' -c 5 -n 0 --print-token-ids", &out, &err); /* 5 tokens, BOS first */
    if (rc != 0 || !strstr(err, "prompt ids: 1 403 407 261 378\n") || !strstr(err, "generated ids:\n")) {
        fail_msg("-c 5 -n 0: exit %d:\n%s", rc, err);
    }
    free(out);
    free(err);
    rc = run_cli("-p 'Once upon a time' -c 4 -n 0", &out, &err);
    if (rc == 0 || !strstr(err, "vnpu-cli: the prompt has 5 tokens, the context only 4")) {
        fail_msg("-c 4: exit %d:\n%s", rc, err);
    }
    free(out);
    free(err);
}

/* Generation that fills the context stops with a note on stderr saying so and how many tokens it made, exit 0;
 * one that ends as asked, just before, says nothing. The prompt is 5 tokens. */
static void test_context_full_note(void **state) {
    (void) state;
    static const struct {
        const char *args, *note; /* NULL: none */
    } cases[] = {
        {"-c 8 -n 20", "vnpu-cli: context full (8 tokens, -c): stopped after 3 generated tokens of the 20 asked\n"},
        {"-c 8 -n -2", "vnpu-cli: context full (8 tokens, -c): stopped after 3 generated tokens\n"},
        {"-c 5 -n 1", "vnpu-cli: context full (5 tokens, -c): stopped after 0 generated tokens of the 1 asked\n"},
        {"-c 8 -n 3", NULL},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char args[128], *out = NULL, *err = NULL;
        snprintf(args, sizeof(args), "-p 'Once upon a time' %s", cases[i].args);
        const int rc = run_cli(args, &out, &err);
        if (rc != 0 || (cases[i].note ? !strstr(err, cases[i].note) : strstr(err, "context full") != NULL)) {
            fail_msg("%s: exit %d, expected %s:\n%s", cases[i].args, rc, cases[i].note ? cases[i].note : "no note",
                     err);
        }
        free(out);
        free(err);
    }
}

/* -f echoes its file's text as -p echoes its argument, no space added before it (SPM's, in the tokens only), and
 * drops one final newline as llama.cpp's -f does: the same stdout and tokens as -p with the text. */
static void test_prompt_file_echo(void **state) {
    (void) state;
    char path[4096], args[4200], *out_p = NULL, *out_f = NULL, *err = NULL;
    snprintf(path, sizeof(path), "%s/prompt.txt", test_tmpdir());
    test_write_file(path, "Once upon a time\n", strlen("Once upon a time\n"));
    assert_int_equal(run_cli("-p 'Once upon a time' -n 4", &out_p, &err), 0);
    free(err);
    snprintf(args, sizeof(args), "-f %s -n 4 --print-token-ids", path);
    assert_int_equal(run_cli(args, &out_f, &err), 0);
    if (strncmp(out_f, "Once upon a time, there", strlen("Once upon a time, there")) != 0 || strcmp(out_f, out_p) ||
        !strstr(err, "prompt ids: 1 403 407 261 378\n")) {
        fail_msg("-f stdout '%s', -p stdout '%s':\n%s", out_f, out_p, err);
    }
    free(out_p);
    free(out_f);
    free(err);
}

/* Of -p, -f and --tokens the last given is the prompt (llama.cpp's -p and -f set one prompt, the last wins). */
static void test_last_prompt_wins(void **state) {
    (void) state;
    char path[4096];
    snprintf(path, sizeof(path), "%s/prompt-last.txt", test_tmpdir());
    test_write_file(path, "Once upon a time", strlen("Once upon a time"));
    static const char *const before[] = {"-f", "-p 'Hi' --tokens 7 -f", "-f"};
    static const char *const after[] = {"-p 'Hi' -p 'Once upon a time'", "", "-p 'Hi' --tokens 1,403,407,261,378"};
    for (int i = 0; i < 3; i++) {
        char args[4400], *out = NULL, *err = NULL;
        snprintf(args, sizeof(args), "-n 1 --print-token-ids %s %s %s", before[i], path, after[i]);
        const int rc = run_cli(args, &out, &err);
        if (rc != 0 || !strstr(err, "prompt ids: 1 403 407 261 378\n")) {
            fail_msg("%s: exit %d, the prompt not 'Once upon a time':\n%s", args, rc, err);
        }
        free(out);
        free(err);
    }
}

/* The prompt's escapes are processed as llama.cpp's programs process them (\n a newline, token 13 of stories260K),
 * from -p and -f alike, unless --no-escape; a prompt that ends in an end-of-text token generates nothing, as
 * llama-completion stops on it. Expected ids: llama.cpp's llama-completion -m stories260K.gguf -p 'Once\nupon'
 * --verbose-prompt (1 403 13 425 427 289). */
static void test_prompt_escapes_and_eog(void **state) {
    (void) state;
    char path[4096], args[8600], *out = NULL, *err = NULL;
    snprintf(path, sizeof(path), "%s/prompt-escapes.txt", test_tmpdir());
    test_write_file(path, "Once\\nupon", strlen("Once\\nupon"));
    static const struct {
        const char *args, *ids;
    } cases[] = {
        {"-p 'Once\\nupon'", "prompt ids: 1 403 13 425 427 289\n"},
        {"-f %s", "prompt ids: 1 403 13 425 427 289\n"},
        {"-p 'Once\\nupon' --no-escape", "prompt ids: 1 403 500 416 425 427 289\n"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char prompt[4200];
        snprintf(prompt, sizeof(prompt), cases[i].args, path);
        snprintf(args, sizeof(args), "%s -n 1 --print-token-ids", prompt);
        if (run_cli(args, &out, &err) != 0 || !strstr(err, cases[i].ids)) {
            fail_msg("%s: wanted %s\n%s", args, cases[i].ids, err);
        }
        free(out);
        free(err);
    }
    assert_int_equal(run_cli("-p 'Once upon a time</s>' -n 8 --print-token-ids", &out, &err), 0);
    if (!strstr(err, "prompt ids: 1 403 407 261 378 2\n") || !strstr(err, "generated ids:\n")) {
        fail_msg("a prompt ending in </s> generated:\n%s", err);
    }
    free(out);
    free(err);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_greedy_f32),          cmocka_unit_test(test_greedy_f32_no_flash_attn),
        cmocka_unit_test(test_greedy_f16),          cmocka_unit_test(test_greedy_q8_0),
        cmocka_unit_test(test_step0_q4_0),          cmocka_unit_test(test_step0_tiny_random),
        cmocka_unit_test(test_tokens_out_of_vocab), cmocka_unit_test(test_prompt_fills_context),
        cmocka_unit_test(test_context_full_note),   cmocka_unit_test(test_prompt_file_echo),
        cmocka_unit_test(test_last_prompt_wins),    cmocka_unit_test(test_prompt_escapes_and_eog),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
