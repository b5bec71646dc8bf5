/*
 * Devices shared by a model and its contexts, as ggml's backend registry shares a device between the model that
 * places its weights in the device's buffer types and the contexts that compute on it: one NPU session per device
 * (vdsp_sessions_opened counts them) for a model load, contexts made and freed again and their decodes; the session
 * closed with the last holder; the CPU device each holder's own (its threads). And the default device list: every
 * NPU device (VNPU_NDEV=2 here: HTP0,HTP1), as llama.cpp offloads to all its GPUs.
 */
#include "test-common.h"

#include "backend.h"
#include "htp-host.h"
#include "llama.h"
#include "vdsp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_default_devices(void **state) {
    (void) state;
    char *list = NULL;
    assert_int_equal(llama_devices_default(&list), VNPU_STATUS_OK);
    assert_string_equal(list, "HTP0,HTP1");
    free(list);
    assert_null(vnpu_model_default_params().devices);
    assert_null(vnpu_context_default_params().devices); /* the model's */
}

/* The same HTP device for every holder, opened once and closed with the last; a CPU device per holder. */
static void test_device_shared(void **state) {
    (void) state;
    const uint64_t n0 = vdsp_sessions_opened();
    struct vnpu_device *a[LLAMA_MAX_DEVICES], *b[LLAMA_MAX_DEVICES], *c = NULL;
    int n_a = 0, n_b = 0;
    assert_int_equal(llama_devices_open("HTP0,HTP1", 1, a, &n_a), VNPU_STATUS_OK);
    assert_int_equal(llama_devices_open("HTP1,HTP0", 2, b, &n_b), VNPU_STATUS_OK);
    assert_int_equal(vnpu_htp_device_get(0, &c), VNPU_STATUS_OK);
    assert_int_equal(n_a, 3);
    assert_int_equal(n_b, 3);
    assert_ptr_equal(a[0], b[1]);
    assert_ptr_equal(a[0], c);
    assert_ptr_equal(a[1], b[0]);
    assert_ptr_not_equal(a[2], b[2]); /* the CPU: each holder's own threads */
    assert_int_equal(vdsp_sessions_opened() - n0, 2);
    for (int d = 0; d < n_a; d++) {
        vnpu_device_free(a[d]);
        vnpu_device_free(b[d]);
    }
    assert_int_equal(vdsp_sessions_opened() - n0, 2);
    struct vnpu_device *again = NULL;
    assert_int_equal(vnpu_htp_device_get(0, &again), VNPU_STATUS_OK); /* c still holds HTP0 */
    assert_ptr_equal(again, c);
    assert_int_equal(vdsp_sessions_opened() - n0, 2);
    vnpu_device_free(again);
    vnpu_device_free(c);
    assert_int_equal(vnpu_htp_device_get(0, &again), VNPU_STATUS_OK); /* HTP0 was closed: a new session */
    assert_int_equal(vdsp_sessions_opened() - n0, 3);
    vnpu_device_free(again);
}

/* A context on model, its prompt decoded; the last position's logits into logits (n_vocab floats). */
static void decode_prompt(struct vnpu_model *model, float *logits) {
    static const vnpu_token prompt[] = {1, 403, 407, 261, 378}; /* "Once upon a time" */
    struct vnpu_context_params cp = vnpu_context_default_params();
    cp.n_ctx = 64;
    cp.n_threads = 2;
    struct vnpu_context *ctx = NULL;
    assert_int_equal(vnpu_context_new(model, &cp, &ctx), VNPU_STATUS_OK);
    assert_int_equal(vnpu_decode(ctx, prompt, NULL, 5, false), VNPU_STATUS_OK);
    memcpy(logits, vnpu_get_logits(ctx, -1), (size_t) vnpu_model_n_vocab(model) * sizeof(float));
    vnpu_context_free(ctx);
}

/* Loading the Q4_0 model (its matrices placed in HTP<n>-REPACK) on devices, then two contexts one after the other,
 * each decoding the prompt, opens n_npu sessions; both contexts compute the same logits from the model's weights,
 * and the next load opens the devices again (the model closed them, holding them last). */
static void check_sessions(const char *devices, const char *reported, int n_npu) {
    const uint64_t n0 = vdsp_sessions_opened();
    struct vnpu_model_params mp = vnpu_model_default_params();
    mp.devices = devices;
    struct vnpu_model *model = NULL;
    assert_int_equal(vnpu_model_load(test_model_path("derived/stories260K-Q4_0.gguf"), &mp, &model), VNPU_STATUS_OK);
    assert_string_equal(vnpu_model_devices(model), reported);
    assert_int_equal(vdsp_sessions_opened() - n0, n_npu);
    const size_t n_vocab = (size_t) vnpu_model_n_vocab(model);
    float *first = malloc(n_vocab * sizeof(float)), *second = malloc(n_vocab * sizeof(float));
    assert_non_null(first);
    assert_non_null(second);
    decode_prompt(model, first);
    decode_prompt(model, second);
    const uint64_t opened = vdsp_sessions_opened() - n0;
    printf("%s: model load and two contexts decoding opened %llu sessions\n", devices ? devices : "default devices",
           (unsigned long long) opened);
    assert_int_equal(opened, n_npu);
    assert_memory_equal(first, second, n_vocab * sizeof(float));
    size_t top = 0;
    for (size_t i = 0; i < n_vocab; i++) {
        top = first[i] > first[top] ? i : top;
    }
    assert_int_equal(top, 432); /* llama.cpp's first greedy token of this prompt */
    vnpu_model_free(model);
    assert_int_equal(vnpu_model_load(test_model_path("derived/stories260K-Q4_0.gguf"), &mp, &model), VNPU_STATUS_OK);
    assert_int_equal(vdsp_sessions_opened() - n0, 2 * n_npu);
    vnpu_model_free(model);
    free(first);
    free(second);
}

static void test_sessions_htp0(void **state) {
    (void) state;
    check_sessions("HTP0", "HTP0", 1);
}

static void test_sessions_htp0_htp1(void **state) {
    (void) state;
    check_sessions("HTP0,HTP1", "HTP0,HTP1", 2);
}

static void test_sessions_default(void **state) {
    (void) state;
    check_sessions(NULL, "HTP0,HTP1", 2);
}

static void test_sessions_cpu(void **state) {
    (void) state;
    check_sessions("CPU", "CPU", 0);
}

int main(void) {
    setenv("VNPU_NDEV", "2", 1); /* read at the first device open */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_devices),  cmocka_unit_test(test_device_shared),
        cmocka_unit_test(test_sessions_htp0),    cmocka_unit_test(test_sessions_htp0_htp1),
        cmocka_unit_test(test_sessions_default), cmocka_unit_test(test_sessions_cpu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
