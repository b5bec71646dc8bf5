/*
 * A model larger than the session window (issue 9, "Large models"): gen_gguf's 1B-parameter Q4_0 llama (584 MB of
 * weights) on HTP0 with VNPU_WINDOW_MB=128 generates, its logits bitwise those of the default window (the window
 * changes where buffers are mapped, never a row's arithmetic), and VNPU_PROFILE shows the maps and unmaps the small
 * window took; a window too small for what one request needs is a clear error and a non-zero exit, not a crash.
 *
 * The model is generated once per machine into the oracle's cache (test_gen_gguf, about a minute), never per run.
 * A run is a 4-token prompt, 3 generated tokens, a 256-cell context: about 10 s each on 2 cores.
 */
#include "test-common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GEN_ARGS "--preset llama-3.2-1b --type q4_0"
#define CLI_ARGS "-p 'Once upon a time' -n 3 --temp 0 -c 256 -t 2 --device HTP0"

/* gen_gguf's 1B model, from the cache (test_gen_gguf: generated into it on the first call on this machine). */
static const char *large_model(void) {
    static char path[4400];
    return test_gen_gguf("llama-3.2-1b-q4_0", GEN_ARGS, path, sizeof(path));
}

/* vnpu-cli on the model with env (VAR=value ...) and CLI_ARGS, logits into out; its exit status, stderr into *err. */
static int run_cli(const char *env, const char *out, char **err) {
    char *text = NULL;
    const int rc = test_run(&text, err, "env %s VNPU_PROFILE=1 %s/vnpu-cli -m '%s' " CLI_ARGS " --logits-out '%s'", env,
                            test_tools_dir(), large_model(), out);
    free(text);
    return rc;
}

/* The "profile window: N maps, M unmaps, D defragmentations" line of a VNPU_PROFILE run. */
static void window_counts(const char *err, unsigned long *maps, unsigned long *unmaps) {
    const char *line = strstr(err, "HTP0 profile window: ");
    if (!line || sscanf(line, "HTP0 profile window: %lu maps, %lu unmaps", maps, unmaps) != 2) {
        fail_msg("no profile window line in:\n%.4000s", err);
    }
}

static void test_small_window_same_logits(void **state) {
    (void) state;
    char ref[4200], small[4200];
    snprintf(ref, sizeof(ref), "%s/default.logits", test_tmpdir());
    snprintf(small, sizeof(small), "%s/window-128.logits", test_tmpdir());
    char *err = NULL;
    int rc = run_cli("", ref, &err);
    if (rc != 0) {
        fail_msg("vnpu-cli, default window, exited %d:\n%.4000s", rc, err);
    }
    unsigned long maps = 0, unmaps = 0;
    window_counts(err, &maps, &unmaps);
    assert_int_equal(unmaps, 0); /* 584 MB of weights in one 1 GiB buffer: everything stays mapped */
    free(err);

    rc = run_cli("VNPU_WINDOW_MB=128", small, &err);
    if (rc != 0) {
        fail_msg("vnpu-cli, VNPU_WINDOW_MB=128, exited %d:\n%.4000s", rc, err);
    }
    window_counts(err, &maps, &unmaps);
    print_message("VNPU_WINDOW_MB=128: %lu maps, %lu unmaps\n", maps, unmaps);
    assert_true(maps > 0);
    assert_true(unmaps > 0); /* the weights slide through the window */
    free(err);

    size_t n_ref = 0, n_small = 0;
    uint8_t *a = test_read_file(ref, &n_ref), *b = test_read_file(small, &n_small);
    assert_non_null(a);
    assert_non_null(b);
    assert_int_equal(n_ref, n_small);
    assert_true(n_ref > 0);
    assert_memory_equal(a, b, n_ref); /* bitwise */
    free(a);
    free(b);
}

/* 64 MiB: buffers are at most a third of the window, which the (tied) output matrix's 36.9 MB passes. */
static void test_too_small_window(void **state) {
    (void) state;
    char out[4200];
    snprintf(out, sizeof(out), "%s/window-64.logits", test_tmpdir());
    char *err = NULL;
    const int rc = run_cli("VNPU_WINDOW_MB=64", out, &err);
    assert_int_equal(rc, 1); /* an error exit, not a signal (the shell's 128 + n) */
    if (!strstr(err, "weight output.weight takes 36864000 bytes, more than the largest HTP0-REPACK buffer") ||
        !strstr(err, "cannot load model")) {
        fail_msg("no clear error in:\n%.4000s", err);
    }
    free(err);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small_window_same_logits),
        cmocka_unit_test(test_too_small_window),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
