/*
 * Row split changes no row's arithmetic: vnpu-cli's logits at every position (a short prompt and 8 greedy tokens)
 * on the groups HTP0[0-1], HTP0[0-2] and HTP0[0-3], and on HTP0,HTP1 with -sm row, are bitwise those of HTP0, and
 * the text (the greedy tokens) is the same, on stories260K and on gen_gguf's tiny models of F32, F16, Q4_0, Q8_0 and
 * Q4_K (VNPU_NDEV=4). Each member computes its partition of every op's output rows where the kernels partition, and
 * all of them where they do not yet; either way the fences order every op after the one before on every member.
 * The tensor split (-sm tensor over 2, 3 and 4 devices) splits every matrix by rows and gathers the devices' rows:
 * each output element is computed by one device over the whole K, so its logits are bitwise HTP0's too. Every run
 * is under VNPU_MDEV_CHECK=1: an op in which two members write one 128-byte line of an output fails the run.
 */
#include "test-common.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROMPT "Once upon a time"

/* vnpu-cli on model with device and extra options: its text into *text, every position's logits into out. */
static void run_cli(const char *model, const char *device, const char *extra, const char *out, char **text) {
    char *err = NULL;
    const int rc = test_run(text, &err,
                            "%s/vnpu-cli -m %s -p '" PROMPT "' -n 8 --temp 0 -t 2 --device '%s' %s "
                            "--logits-out %s",
                            test_tools_dir(), model, device, extra, out);
    if (rc != 0) {
        fail_msg("vnpu-cli --device %s %s on %s exited %d:\n%.4000s", device, extra, model, rc, err);
    }
    free(err);
}

/* The row and tensor splits of model against HTP0: bitwise the same logits and text. */
static void check_model(const char *model, const char *tag) {
    static const struct {
        const char *device, *extra;
    } runs[] = {{"HTP0[0-1]", ""},
                {"HTP0[0-2]", ""},
                {"HTP0[0-3]", ""},
                {"HTP0,HTP1", "-sm row"},
                {"HTP0,HTP1", "-sm tensor"},
                {"HTP0,HTP1,HTP2", "-sm tensor"},
                {"HTP0,HTP1,HTP2,HTP3", "-sm tensor"}};
    char ref[4200], *ref_text = NULL;
    snprintf(ref, sizeof(ref), "%s/%s-HTP0.logits", test_tmpdir(), tag);
    run_cli(model, "HTP0", "", ref, &ref_text);
    size_t ref_size = 0;
    void *ref_logits = test_read_file(ref, &ref_size);
    assert_non_null(ref_logits);
    for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
        char mine[4300], *text = NULL;
        snprintf(mine, sizeof(mine), "%s/%s-%zu.logits", test_tmpdir(), tag, i);
        run_cli(model, runs[i].device, runs[i].extra, mine, &text);
        size_t size = 0;
        void *logits = test_read_file(mine, &size);
        assert_non_null(logits);
        const bool bitwise = size == ref_size && memcmp(logits, ref_logits, size) == 0;
        printf("%s --device %s %s: logits %s (%zu bytes), text %s\n", tag, runs[i].device, runs[i].extra,
               bitwise ? "bitwise equal" : "DIFFER", size, strcmp(text, ref_text) == 0 ? "equal" : "DIFFERS");
        if (!bitwise || strcmp(text, ref_text) != 0) {
            fail_msg("%s --device %s %s: logits or text differ from HTP0's:\n%s\nvs\n%s", tag, runs[i].device,
                     runs[i].extra, text, ref_text);
        }
        free(logits);
        free(text);
    }
    free(ref_logits);
    free(ref_text);
}

static void test_stories260k(void **state) {
    (void) state;
    check_model(test_model_path("stories260K.gguf"), "stories260K");
}

/* gen_gguf's tiny preset (n_embd 256, 4 layers, vocab 4096) of each type: test-oracle-models's models (the same
 * arguments, so the same cached files). */
static void test_synthetic_models(void **state) {
    (void) state;
    static const char *const types[] = {"f32", "f16", "q4_0", "q8_0", "q4_K"};
    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
        char key[64], args[256], path[4400];
        snprintf(key, sizeof(key), "tiny-%s", types[i]);
        snprintf(args, sizeof(args), "--preset tiny --std 0.06 --seed 42 --type %s", types[i]);
        check_model(test_gen_gguf(key, args, path, sizeof(path)), types[i]);
    }
}

int main(void) {
    setenv("VNPU_NDEV", "4", 1);
    setenv("VNPU_MDEV_CHECK", "1", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stories260k),
        cmocka_unit_test(test_synthetic_models),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
