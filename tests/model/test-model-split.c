/*
 * The layer split: llama_layer_device against llama.cpp's rule (get_layer_buft_list: the output counts as a layer,
 * each layer goes to the first device whose cumulative share exceeds il / (n_layer + 1)), the device list with the
 * CPU last wherever it is named, and the scheduler sending each node to its preferred device when that device takes
 * it, else to the first one that does.
 */
#include "test-common.h"

#include "backend.h"
#include "llama.h"
#include "type-traits.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* llama.cpp's computation in floats: cumulative equal fractions normalised, then upper_bound of
 * il / act_gpu_layers over them (act_gpu_layers = n_layer + 1: every layer and the output offloaded). */
static int layer_device_llama_cpp(int il, int n_layer, int n_split) {
    float splits[LLAMA_MAX_DEVICES];
    float sum = 0.0f;
    for (int d = 0; d < n_split; d++) {
        sum += 1.0f;
        splits[d] = sum;
    }
    for (int d = 0; d < n_split; d++) {
        splits[d] /= sum;
    }
    const float x = (float) il / (float) (n_layer + 1);
    int d = 0;
    while (d < n_split && !(splits[d] > x)) {
        d++;
    }
    return d;
}

static void test_layer_device_16_on_2(void **state) {
    (void) state;
    for (int il = 0; il <= 16; il++) { /* 16 is the output */
        assert_int_equal(llama_layer_device(il, 16, 2), il <= 8 ? 0 : 1);
    }
    for (int il = 0; il <= 5; il++) { /* stories260K's five layers: 0..2, then 3..4 and the output */
        assert_int_equal(llama_layer_device(il, 5, 2), il <= 2 ? 0 : 1);
    }
}

static void test_layer_device_as_llama_cpp(void **state) {
    (void) state;
    for (int n_split = 1; n_split <= LLAMA_MAX_DEVICES - 1; n_split++) {
        for (int n_layer = 1; n_layer <= 128; n_layer++) {
            int prev = 0;
            for (int il = 0; il <= n_layer; il++) {
                const int d = llama_layer_device(il, n_layer, n_split);
                if (d != layer_device_llama_cpp(il, n_layer, n_split) || d < prev || d >= n_split) {
                    fail_msg("layer %d of %d on %d devices: %d, llama.cpp's %d (previous layer's %d)", il, n_layer,
                             n_split, d, layer_device_llama_cpp(il, n_layer, n_split), prev);
                }
                prev = d;
            }
            if (n_split <= n_layer + 1) {            /* enough layers and the output for every device */
                assert_int_equal(prev, n_split - 1); /* the output on the last device */
            }
        }
    }
}

/* The names of the devices list opens, comma-separated, into names; the status. */
static enum vnpu_status open_names(const char *list, char *names, size_t size) {
    struct vnpu_device *devs[LLAMA_MAX_DEVICES];
    int n_devs = -1;
    const enum vnpu_status st = llama_devices_open(list, 1, devs, &n_devs);
    names[0] = '\0';
    for (int d = 0; d < n_devs; d++) {
        const size_t len = strlen(names);
        snprintf(names + len, size - len, "%s%s", d ? "," : "", vnpu_device_name(devs[d]));
        vnpu_device_free(devs[d]);
    }
    assert_true(st == VNPU_STATUS_OK || n_devs == 0);
    return st;
}

static void test_devices_cpu_last(void **state) {
    (void) state;
    static const struct {
        const char *list, *opened;
    } cases[] = {
        {"CPU", "CPU"},
        {"HTP0", "HTP0,CPU"},
        {"CPU,HTP0", "HTP0,CPU"},
        {"HTP0,CPU,HTP1", "HTP0,HTP1,CPU"},
        {"HTP1,HTP0", "HTP1,HTP0,CPU"},
    };
    char names[256];
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        assert_int_equal(open_names(cases[i].list, names, sizeof(names)), VNPU_STATUS_OK);
        assert_string_equal(names, cases[i].opened);
    }
    static const char *const bad[] = {"CPU,CPU", "HTP0,CPU,HTP0", "HTP0,,CPU", "NPU0", "HTP2"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(open_names(bad[i], names, sizeof(names)), VNPU_STATUS_BAD_ARG);
    }
}

static void test_layer_devices_table(void **state) {
    (void) state;
    struct vnpu_device *devs[LLAMA_MAX_DEVICES], *layer_dev[17];
    int n_devs = 0;
    assert_int_equal(llama_devices_open("HTP0,CPU,HTP1", 1, devs, &n_devs), VNPU_STATUS_OK);
    llama_layer_devices(devs, n_devs, 16, 0, layer_dev);
    for (int il = 0; il <= 16; il++) {
        assert_string_equal(vnpu_device_name(layer_dev[il]), il <= 8 ? "HTP0" : "HTP1");
    }
    for (int d = 0; d < n_devs; d++) {
        vnpu_device_free(devs[d]);
    }
    assert_int_equal(llama_devices_open("CPU", 1, devs, &n_devs), VNPU_STATUS_OK);
    llama_layer_devices(devs, n_devs, 16, 0, layer_dev);
    for (int il = 0; il <= 16; il++) {
        assert_null(layer_dev[il]); /* the CPU alone: no split, no preference */
    }
    vnpu_device_free(devs[0]);
}

/* A device that takes the ops of one kind (ADD or MUL) and records the nodes it computes. */
struct probe_dev {
    const char *name;
    enum vnpu_op takes;
    char ran[512]; /* "name name ..." in call order, each call's nodes ended by '|' */
};

static const char *probe_name(struct vnpu_device *dev) {
    return ((struct probe_dev *) dev->ctx)->name;
}

static bool probe_supports(struct vnpu_device *dev, const struct vnpu_tensor *op) {
    return op->op == ((struct probe_dev *) dev->ctx)->takes;
}

static enum vnpu_status probe_compute(struct vnpu_device *dev, struct vnpu_tensor **nodes, int n_nodes) {
    struct probe_dev *p = dev->ctx;
    for (int i = 0; i < n_nodes; i++) {
        const size_t len = strlen(p->ran);
        snprintf(p->ran + len, sizeof(p->ran) - len, "%s ", nodes[i]->name);
    }
    const size_t len = strlen(p->ran);
    snprintf(p->ran + len, sizeof(p->ran) - len, "|");
    return VNPU_STATUS_OK;
}

static const struct vnpu_device_iface probe_iface = {
    .get_name = probe_name, .supports_op = probe_supports, .graph_compute = probe_compute};

/* Nodes a0 (ADD), a1 (ADD), m2 (MUL), a3 (ADD) in a chain; a1 and m2 prefer device 1, a3 a device not in the
 * list. Devices 0 and 1 take ADD, 2 takes MUL: a0 on 0 (no preference), a1 on 1, m2 on 2 (1 refuses it), a3 on 0. */
static void test_sched_preferred_device(void **state) {
    (void) state;
    struct probe_dev p[4] = {
        {"A0", VNPU_OP_ADD, ""}, {"A1", VNPU_OP_ADD, ""}, {"M", VNPU_OP_MUL, ""}, {"X", VNPU_OP_NONE, ""}};
    struct vnpu_device dev[4];
    struct vnpu_device *devs[3] = {&dev[0], &dev[1], &dev[2]};
    for (int d = 0; d < 4; d++) {
        dev[d] = (struct vnpu_device){.iface = &probe_iface, .ctx = &p[d]};
    }
    struct vnpu_ctx *ctx = vnpu_ctx_new(16 * vnpu_tensor_overhead() + vnpu_graph_overhead(16), true);
    assert_non_null(ctx);
    struct vnpu_tensor *x = vnpu_new_tensor_1d(ctx, VNPU_TYPE_F32, 4);
    struct vnpu_tensor *a0 = vnpu_add(ctx, x, x), *a1 = vnpu_add(ctx, a0, x), *m2 = vnpu_mul(ctx, a1, x);
    struct vnpu_tensor *a3 = vnpu_add(ctx, m2, x);
    vnpu_set_name(a0, "a0");
    vnpu_set_name(a1, "a1");
    vnpu_set_name(m2, "m2");
    vnpu_set_name(a3, "a3");
    a1->device = m2->device = &dev[1];
    a3->device = &dev[3];
    struct vnpu_graph *g = vnpu_graph_new(ctx, 16);
    vnpu_graph_build_forward_expand(g, a3);
    assert_int_equal(vnpu_sched_graph_compute(devs, 3, g), VNPU_STATUS_OK);
    assert_string_equal(p[0].ran, "a0 |a3 |");
    assert_string_equal(p[1].ran, "a1 |");
    assert_string_equal(p[2].ran, "m2 |");
    vnpu_ctx_free(ctx);
}

/* Device d's ranges of a plan: KV heads, features and model rows. */
static void assert_plan(const struct llama_tensor_split *s, int d, const int64_t want[6]) {
    const struct llama_tensor_range got[3] = {s->head_kv[d], s->ff[d], s->embd[d]};
    for (int i = 0; i < 3; i++) {
        if (got[i].start != want[2 * i] || got[i].n != want[2 * i + 1]) {
            fail_msg("device %d of %d, %s: [%lld, +%lld), expected [%lld, +%lld)", d, s->n_dev,
                     (const char *[]){"KV heads", "features", "model rows"}[i], (long long) got[i].start,
                     (long long) got[i].n, (long long) want[2 * i], (long long) want[2 * i + 1]);
        }
    }
}

/* The tensor split's plan: one KV head, 32 features, 32 model rows a unit, units / n_dev each with the remainder
 * to the last device, and a dimension with fewer units than devices left whole on device 0. */
static void test_tensor_split_plan(void **state) {
    (void) state;
    struct llama_tensor_split s;
    /* stories260K: 8 heads, 4 KV heads of 8, 172 features (5 units and 12), 64 model rows (2 units). */
    const struct llama_hparams stories = {.n_embd = 64, .n_head = 8, .n_head_kv = 4, .n_embd_head = 8, .n_ff = 172};
    assert_int_equal(llama_tensor_split_plan(&stories, 2, &s), VNPU_STATUS_OK);
    assert_plan(&s, 0, (const int64_t[6]){0, 2, 0, 64, 0, 32});
    assert_plan(&s, 1, (const int64_t[6]){2, 2, 64, 108, 32, 32});
    assert_int_equal(llama_tensor_split_plan(&stories, 3, &s), VNPU_STATUS_OK);
    assert_plan(&s, 0, (const int64_t[6]){0, 1, 0, 32, 0, 64}); /* 2 model-row units: not split over 3 */
    assert_plan(&s, 1, (const int64_t[6]){1, 1, 32, 32, 0, 0});
    assert_plan(&s, 2, (const int64_t[6]){2, 2, 64, 108, 0, 0}); /* the remainders: a head, a unit and 12 */
    /* gen_gguf's tiny: 4 KV heads, 768 features (24 units), 256 model rows (8 units). */
    const struct llama_hparams tiny = {.n_embd = 256, .n_head = 8, .n_head_kv = 4, .n_embd_head = 32, .n_ff = 768};
    assert_int_equal(llama_tensor_split_plan(&tiny, 3, &s), VNPU_STATUS_OK);
    assert_plan(&s, 0, (const int64_t[6]){0, 1, 0, 256, 0, 64});
    assert_plan(&s, 1, (const int64_t[6]){1, 1, 256, 256, 64, 64});
    assert_plan(&s, 2, (const int64_t[6]){2, 2, 512, 256, 128, 128});
    /* Fewer KV heads than devices: attention whole on device 0. */
    const struct llama_hparams one_kv = {.n_embd = 256, .n_head = 8, .n_head_kv = 1, .n_embd_head = 32, .n_ff = 768};
    assert_int_equal(llama_tensor_split_plan(&one_kv, 4, &s), VNPU_STATUS_OK);
    assert_plan(&s, 0, (const int64_t[6]){0, 1, 0, 192, 0, 64});
    assert_plan(&s, 3, (const int64_t[6]){0, 0, 576, 192, 192, 64});
    /* One device is no split; more than the NPU devices there can be is refused. */
    assert_int_equal(llama_tensor_split_plan(&tiny, 1, &s), VNPU_STATUS_BAD_ARG);
    assert_int_equal(llama_tensor_split_plan(&tiny, LLAMA_MAX_DEVICES, &s), VNPU_STATUS_BAD_ARG);
}

/* Range r of each device covers [0, ne) once, in order, every start but the first on a unit. */
static void assert_cover(const struct llama_tensor_split *s, int which, int64_t ne, int64_t unit) {
    int64_t end = 0;
    for (int d = 0; d < s->n_dev; d++) {
        const struct llama_tensor_range r = which == 0   ? s->head_kv[d]
                                            : which == 1 ? s->ff[d]
                                            : which == 2 ? s->embd[d]
                                                         : s->vocab[d];
        if (r.n > 0) {
            assert_int_equal(r.start, end);
            assert_int_equal(r.start % unit, 0);
            end += r.n;
        }
    }
    assert_int_equal(end, ne);
}

/* Every plan covers each dimension once, in order, on units. */
static void test_tensor_split_cover(void **state) {
    (void) state;
    for (uint32_t n_head_kv = 1; n_head_kv <= 8; n_head_kv++) {
        for (int64_t n_ff = 1; n_ff <= 300; n_ff += 37) {
            for (int n_dev = 2; n_dev <= LLAMA_MAX_DEVICES - 1; n_dev++) {
                const struct llama_hparams hp = {.n_embd = 2 * n_ff,
                                                 .n_head = 2 * n_head_kv,
                                                 .n_head_kv = n_head_kv,
                                                 .n_embd_head = 64,
                                                 .n_ff = (uint32_t) n_ff,
                                                 .n_vocab = (uint32_t) (7 * n_ff + 5)};
                struct llama_tensor_split s;
                assert_int_equal(llama_tensor_split_plan(&hp, n_dev, &s), VNPU_STATUS_OK);
                assert_cover(&s, 0, n_head_kv, 1);
                assert_cover(&s, 1, hp.n_ff, LLAMA_TENSOR_SPLIT_ROWS);
                assert_cover(&s, 2, hp.n_embd, LLAMA_TENSOR_SPLIT_ROWS);
                assert_cover(&s, 3, hp.n_vocab, LLAMA_TENSOR_SPLIT_ROWS);
            }
        }
    }
}

int main(void) {
    setenv("VNPU_NDEV", "2", 1); /* read at the first device open */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layer_device_16_on_2),   cmocka_unit_test(test_layer_device_as_llama_cpp),
        cmocka_unit_test(test_devices_cpu_last),       cmocka_unit_test(test_layer_devices_table),
        cmocka_unit_test(test_sched_preferred_device), cmocka_unit_test(test_tensor_split_plan),
        cmocka_unit_test(test_tensor_split_cover),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
