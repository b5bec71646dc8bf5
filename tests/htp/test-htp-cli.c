/*
 * vnpu-cli on HTP0 against llama.cpp's recorded greedy tokens (../shared/models/reference/greedy.txt):
 * stories260K in F32 and F16 must give the same 40 tokens as on llama.cpp's CPU backend, with every node
 * of the graph either executed on HTP0 or refused by its supports_op with a stated reason (VNPU_VERBOSE), and
 * one session opened per device for the model and its context (one VNPU_VERBOSE banner each). Then the same
 * without --device (the default: every NPU device), under strict DMA with six workers, in an 8 MiB window (and an F32
 * weight too large for a 4 MiB one refused at load), on HTP0,HTP1 splitting the layers and on a group with -sm;
 * VNPU_OPFILTER, VNPU_OPSTAGE and VNPU_PROFILE at work.
 */
#include "test-common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every "supports-op" line of device dev is a yes, or a no with a reason; every node it said yes to ran in one
 * of its execute-op lines (a fused pair is named "first+second"). Returns the number of nodes executed. */
static int check_coverage(const char *err, const char *dev) {
    int executed = 0;
    char supports[64], execute[64];
    snprintf(supports, sizeof(supports), "vnpu-htp: %s supports-op ", dev);
    snprintf(execute, sizeof(execute), "vnpu-htp: %s execute-op ", dev);
    for (const char *line = strstr(err, supports); line; line = strstr(line + 1, supports)) {
        const char *eol = strchr(line, '\n');
        const size_t len = eol ? (size_t) (eol - line) : strlen(line);
        char buf[512];
        snprintf(buf, sizeof(buf), "%.*s", (int) len, line);
        if (strstr(buf, " : no (") && buf[len - 1] == ')' && !strstr(buf, " : no ()")) {
            continue;
        }
        if (len < 6 || strcmp(buf + len - 6, " : yes") != 0) {
            fail_msg("a supports-op line neither yes nor no with a reason: %s", buf);
        }
        char name[128]; /* "vnpu-htp: HTPn supports-op OP : name : ..." */
        const char *n0 = strstr(buf, " : ") + 3;
        snprintf(name, sizeof(name), "%.*s", (int) (strstr(n0, " : ") - n0), n0);
        char pattern[160], fused_first[160], fused_second[160];
        snprintf(pattern, sizeof(pattern), " : %s : ", name);
        snprintf(fused_first, sizeof(fused_first), " : %s+", name);
        snprintf(fused_second, sizeof(fused_second), "+%s : ", name);
        bool ran = false;
        for (const char *x = strstr(err, execute); x && !ran; x = strstr(x + 1, execute)) {
            const char *xe = strchr(x, '\n');
            const size_t xl = xe ? (size_t) (xe - x) : strlen(x);
            char xb[512];
            snprintf(xb, sizeof(xb), "%.*s", (int) xl, x);
            ran = strstr(xb, pattern) || strstr(xb, fused_first) || strstr(xb, fused_second);
        }
        if (!ran) {
            fail_msg("node '%s' was accepted by %s but never executed there", name, dev);
        }
        executed++;
    }
    return executed;
}

/* vnpu-cli with --device option (NULL: none, the default) under env runs on devices (the HTP devices it reports,
 * comma-separated), gives llama.cpp's 40 greedy tokens of model, each device executing what it accepts and opened
 * once (its session shared by the model, which places the weights, and the context); returns its stderr. */
static char *check_greedy_htp_on(const char *model, const char *env, const char *option, const char *devices) {
    int want[64], want_prompt[16], got[64], got_prompt[16];
    const int n_want = test_greedy_ids(model, "greedy_tokens", want, 64);
    const int n_want_prompt = test_greedy_ids(model, "prompt_tokens", want_prompt, 16);
    assert_int_equal(n_want, 40);
    char *err = NULL;
    const int rc =
        test_run(NULL, &err,
                 "VNPU_VERBOSE=1 %s %s/vnpu-cli -m %s -p 'Once upon a time' -n 40 --temp 0 -t 2 "
                 "%s%s --print-token-ids",
                 env, test_tools_dir(), test_model_path(model), option ? "--device " : "", option ? option : "");
    if (rc != 0) {
        fail_msg("vnpu-cli exited %d:\n%.4000s", rc, err);
    }
    char line[64];
    snprintf(line, sizeof(line), "\ndevices: %s\n", devices);
    if (!strstr(err, line)) {
        fail_msg("vnpu-cli %s did not report devices %s:\n%.4000s", option ? option : "(no --device)", devices, err);
    }
    assert_int_equal(test_parse_ids(err, "prompt ids", got_prompt, 16), n_want_prompt);
    assert_memory_equal(got_prompt, want_prompt, sizeof(int) * (size_t) n_want_prompt);
    const int n_got = test_parse_ids(err, "generated ids", got, 64);
    for (int i = 0; i < n_want; i++) {
        if (i >= n_got || got[i] != want[i]) {
            fail_msg("%s on %s (%s): token %d is %d, llama.cpp's is %d", model, devices, env, i,
                     i < n_got ? got[i] : -1, want[i]);
        }
    }
    for (const char *dev = devices; *dev; dev += strcspn(dev, ",") + (dev[strcspn(dev, ",")] == ',')) {
        char name[16];
        snprintf(name, sizeof(name), "%.*s", (int) strcspn(dev, ","), dev);
        const int executed = check_coverage(err, name);
        char banner[32];
        snprintf(banner, sizeof(banner), "vnpu-htp: %s: v", name);
        const int sessions = test_count_lines(err, banner, " NPU threads ", NULL);
        printf("%s on %s (%s): 40 tokens as llama.cpp, %d nodes accepted by %s all executed there, %d session\n", model,
               devices, env, executed, name, sessions);
        assert_true(executed > 0);
        if (sessions != 1) {
            fail_msg("%s was opened %d times (one session per device for the model and its context)", name, sessions);
        }
    }
    return err;
}

static void check_greedy_htp(const char *model, const char *env) {
    free(check_greedy_htp_on(model, env, "HTP0", "HTP0"));
}

static void test_htp_f32(void **state) {
    (void) state;
    check_greedy_htp("stories260K.gguf", "");
}

static void test_htp_f16(void **state) {
    (void) state;
    check_greedy_htp("derived/stories260K-F16.gguf", "");
}

/* Without --device vnpu-cli runs on every NPU device: HTP0, or HTP0,HTP1 under VNPU_NDEV=2 (the layer split, as
 * llama.cpp splits a model over all its GPUs). */
static void test_htp_default_devices(void **state) {
    (void) state;
    free(check_greedy_htp_on("stories260K.gguf", "", NULL, "HTP0"));
    free(check_greedy_htp_on("stories260K.gguf", "VNPU_NDEV=2", NULL, "HTP0,HTP1"));
}

static void test_htp_strict_six_workers(void **state) {
    (void) state;
    check_greedy_htp("stories260K.gguf", "VNPU_DMA_STRICT=1 VNPU_NHVX=6");
}

/* An 8 MiB window: the model file's weights are staged in chunks small enough to map next to the pinned buffers. */
static void test_htp_small_window(void **state) {
    (void) state;
    check_greedy_htp("stories260K.gguf", "VNPU_WINDOW_MB=8");
}

/* An F32 weight is staged from the file's mapping into one buffer, held to the HTP buffers' max (a third of the
 * window here): gen_gguf's model with a 2 MiB F32 output matrix fails to load in a 4 MiB window (max 1398016 bytes),
 * naming the weight, its size and the limit, before any request; in an 8 MiB window (max 2796160) it generates. */
static void test_htp_staged_weight_window(void **state) {
    (void) state;
    char path[4096];
    snprintf(path, sizeof(path), "%s/f32-output.gguf", test_tmpdir());
    assert_int_equal(test_run(NULL, NULL,
                              "%s/gen_gguf --preset tiny --n-layer 1 --n-vocab 2048 --type q8_0 --embd-type q8_0 "
                              "--output-type f32 -o %s > /dev/null",
                              test_oracle_bin(), path),
                     0);
    char *err = NULL;
    int rc =
        test_run(NULL, &err, "VNPU_WINDOW_MB=4 %s/vnpu-cli -m %s --tokens 1,2,3 -n 2 --temp 0 -t 2 -c 64 --device HTP0",
                 test_tools_dir(), path);
    if (rc == 0 ||
        !strstr(err, "weight output.weight (f32, kept in the file's mapping and staged by HTP0) takes "
                     "2097152 bytes, more than the largest HTP0-REPACK buffer (1398016 bytes; ") ||
        !strstr(err, "VNPU_WINDOW_MB") || !strstr(err, "vnpu-cli: cannot load model") || strstr(err, "request")) {
        fail_msg("VNPU_WINDOW_MB=4: exit %d, expected a load error naming output.weight:\n%.4000s", rc, err);
    }
    free(err);
    rc = test_run(NULL, &err,
                  "VNPU_WINDOW_MB=8 %s/vnpu-cli -m %s --tokens 1,2,3 -n 2 --temp 0 -t 2 -c 64 --device HTP0 "
                  "--print-token-ids",
                  test_tools_dir(), path);
    if (rc != 0 || !strstr(err, "generated ids: ")) {
        fail_msg("VNPU_WINDOW_MB=8: exit %d:\n%.4000s", rc, err);
    }
    free(err);
}

/* Whether some execute-op line of dev names a node of layer il ("<what>-<il> : "). */
static bool executed_layer(const char *err, const char *dev, int il) {
    char execute[64], suffix[16];
    snprintf(execute, sizeof(execute), "vnpu-htp: %s execute-op ", dev);
    snprintf(suffix, sizeof(suffix), "-%d : ", il);
    return test_count_lines(err, execute, suffix, NULL) > 0;
}

/* Two devices split the five layers as llama.cpp's --split-mode layer does with equal shares: layers 0..2 on
 * HTP0, 3..4 on HTP1 (which also runs the output), the tokens still llama.cpp's. */
static void test_htp_layer_split(void **state) {
    (void) state;
    char *err = check_greedy_htp_on("stories260K.gguf", "VNPU_NDEV=2", "HTP0,HTP1", "HTP0,HTP1");
    for (int il = 0; il < 5; il++) {
        const char *dev = il < 3 ? "HTP0" : "HTP1", *other = il < 3 ? "HTP1" : "HTP0";
        if (!executed_layer(err, dev, il) || executed_layer(err, other, il)) {
            fail_msg("layer %d should run on %s only:\n%.4000s", il, dev, err);
        }
    }
    free(err);
}

/* -sm row over a group keeps it (it is split by rows already) and gives llama.cpp's tokens; -sm row over a group
 * next to another NPU device, and -sm tensor over a group, are refused at load naming the list and what to do. */
static void test_htp_split_mode_group(void **state) {
    (void) state;
    int want[64], got[64];
    assert_int_equal(test_greedy_ids("stories260K.gguf", "greedy_tokens", want, 64), 40);
    char *err = NULL;
    int rc = test_run(NULL, &err,
                      "VNPU_NDEV=2 %s/vnpu-cli -m %s -p 'Once upon a time' -n 40 --temp 0 -t 2 --device 'HTP0[0-1]' "
                      "-sm row --print-token-ids",
                      test_tools_dir(), test_model_path("stories260K.gguf"));
    if (rc != 0 || !strstr(err, "\ndevices: HTP0[0-1]\n")) {
        fail_msg("--device 'HTP0[0-1]' -sm row: exit %d, or not on HTP0[0-1]:\n%.4000s", rc, err);
    }
    assert_int_equal(test_parse_ids(err, "generated ids", got, 64), 40);
    assert_memory_equal(got, want, 40 * sizeof(int));
    free(err);
    static const struct {
        const char *option, *message;
    } bad[] = {
        {"'HTP0[0-1],HTP2' -sm row", "error: device list 'HTP0[0-1],HTP2': split mode row makes one group"},
        {"'HTP0[0-1]' -sm tensor", "error: device list 'HTP0[0-1]': split mode tensor splits the matrices over "
                                   "single HTP<n> devices, and 'HTP0[0-1]' is a row-split group"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        rc = test_run(NULL, &err, "VNPU_NDEV=3 %s/vnpu-cli -m %s -p 'Once upon a time' -n 1 --device %s",
                      test_tools_dir(), test_model_path("stories260K.gguf"), bad[i].option);
        if (rc == 0 || !strstr(err, bad[i].message)) {
            fail_msg("--device %s: exit %d, expected a failure with '%s':\n%.4000s", bad[i].option, rc, bad[i].message,
                     err);
        }
        free(err);
    }
}

/* VNPU_OPFILTER keeps the matching ops on the CPU, with the filter as the reason. */
static void test_htp_opfilter(void **state) {
    (void) state;
    char *err = NULL;
    const int rc = test_run(NULL, &err,
                            "VNPU_VERBOSE=1 VNPU_OPFILTER='^(ADD|SWIGLU)$' %s/vnpu-cli -m %s -p 'Once upon a time' "
                            "-n 4 --temp 0 -t 2 --device HTP0",
                            test_tools_dir(), test_model_path("stories260K.gguf"));
    assert_int_equal(rc, 0);
    assert_non_null(strstr(err, "supports-op ADD"));
    assert_non_null(strstr(err, "kept off the NPU by VNPU_OPFILTER"));
    assert_null(strstr(err, "execute-op ADD"));
    assert_null(strstr(err, "execute-op SWIGLU"));
    assert_non_null(strstr(err, "execute-op RMS_NORM_MUL"));
    free(err);
}

/* Runs vnpu-cli on stories260K (-n 8) on HTP0 with env; its stderr. */
static char *run_env(const char *env) {
    char *err = NULL;
    const int rc = test_run(NULL, &err,
                            "%s %s/vnpu-cli -m %s -p 'Once upon a time' -n 8 --temp 0 -t 2 --device HTP0 "
                            "--print-token-ids",
                            env, test_tools_dir(), test_model_path("stories260K.gguf"));
    if (rc != 0) {
        fail_msg("vnpu-cli with %s exited %d:\n%.4000s", env, rc, err);
    }
    return err;
}

/* VNPU_OPSTAGE=1 sends ops with SKIP_COMPUTE (dispatched and DMA'd, not computed: the tokens are no longer the
 * model's); 0 sends none; VNPU_PROFILE=1 sums the NPU time per op kind. */
static void test_htp_opstage_profile(void **state) {
    (void) state;
    int want[64], got[64];
    assert_int_equal(test_greedy_ids("stories260K.gguf", "greedy_tokens", want, 64), 40);
    char *err = run_env("VNPU_VERBOSE=1 VNPU_OPSTAGE=1");
    assert_non_null(strstr(err, " execute-op "));
    assert_int_equal(test_parse_ids(err, "generated ids", got, 64), 8);
    assert_memory_not_equal(got, want, 8 * sizeof(int));
    free(err);
    err = run_env("VNPU_VERBOSE=1 VNPU_OPSTAGE=0");
    assert_null(strstr(err, " execute-op "));
    free(err);
    err = run_env("VNPU_PROFILE=1");
    assert_non_null(strstr(err, "vnpu-htp: HTP0 profile: "));
    assert_non_null(strstr(err, "vnpu-htp: HTP0 profile RMS_NORM_MUL "));
    assert_non_null(strstr(err, "vnpu-htp: HTP0 profile SWIGLU "));
    free(err);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_htp_f32),
        cmocka_unit_test(test_htp_f16),
        cmocka_unit_test(test_htp_default_devices),
        cmocka_unit_test(test_htp_strict_six_workers),
        cmocka_unit_test(test_htp_small_window),
        cmocka_unit_test(test_htp_staged_weight_window),
        cmocka_unit_test(test_htp_layer_split),
        cmocka_unit_test(test_htp_split_mode_group),
        cmocka_unit_test(test_htp_opfilter),
        cmocka_unit_test(test_htp_opstage_profile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
