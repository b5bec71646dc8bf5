/*
 * libggml-vnpu.so's REPACK buffer type through ggml's own buffer functions, as llama.cpp's model loader uses them:
 * the oracle's libggml-base is loaded (global) and then the plugin, as a GGML program loads a backend from
 * GGML_BACKEND_PATH, and ggml's functions are called through dlsym. HTP0 offers HTP0-REPACK as its one extra buffer
 * type (get_proc_address "ggml_backend_dev_get_extra_bufts"), not host-readable; a Q4_0 weight of 40 rows takes its
 * tiled size there (64 rows of tiles); written whole, it is tiled in memory and reads back flat byte for byte; so does
 * it after a row is rewritten (vnpu unpacks and tiles again), after a memset of two rows, and after clear(0); an F32
 * tensor in REPACK is stored flat; GET_ROWS of the tiled weight on HTP0 gives ggml's dequantization of its flat rows.
 * Only built with the plugin (it needs ggml's headers).
 */
#include "test-common.h"

#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ggml's functions the test calls, from libggml-base. */
/* clang-format off */
#define GGML_FUNCS(X) \
    X(ggml_init) X(ggml_free) X(ggml_tensor_overhead) X(ggml_new_tensor_1d) X(ggml_new_tensor_2d) X(ggml_nbytes) \
    X(ggml_row_size) X(ggml_backend_reg_dev_get) X(ggml_backend_reg_get_proc_address) X(ggml_backend_buft_name) \
    X(ggml_backend_buft_is_host) X(ggml_backend_buft_get_alloc_size) X(ggml_backend_alloc_ctx_tensors_from_buft) \
    X(ggml_backend_buffer_set_usage) X(ggml_backend_buffer_clear) X(ggml_backend_buffer_free) \
    X(ggml_backend_tensor_set) X(ggml_backend_tensor_get) X(ggml_backend_tensor_memset) \
    X(ggml_backend_dev_init) X(ggml_backend_free) X(ggml_backend_alloc_ctx_tensors) X(ggml_backend_graph_compute) \
    X(ggml_get_rows) X(ggml_new_graph) X(ggml_build_forward_expand) X(ggml_graph_overhead) X(ggml_get_type_traits)
/* clang-format on */

#define FIELD(name) __typeof__(&name) name;
static struct { GGML_FUNCS(FIELD) } g;
#undef FIELD

#define ROWS 40 /* not a multiple of 32: the tiles pad the last column tile */
#define K    256

static ggml_backend_dev_t htp0;

/* ggml's functions, the plugin's registry and HTP0's extra buffer type (skips or fails when the plugin or the oracle
 * is missing). */
static ggml_backend_buffer_type_t repack_buft(void) {
    const char *plugin_path = test_ggml_plugin();
    char path[4200];
    snprintf(path, sizeof(path), "%s/libggml-base.so", test_oracle_libdir());
    void *base = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
    if (!base) {
        fail_msg("dlopen %s: %s", path, dlerror());
    }
#define LOAD(name)                                            \
    if (!(g.name = (__typeof__(&name)) dlsym(base, #name))) { \
        fail_msg("%s has no %s: %s", path, #name, dlerror()); \
    }
    GGML_FUNCS(LOAD)
#undef LOAD
    void *plugin = dlopen(plugin_path, RTLD_NOW | RTLD_LOCAL);
    if (!plugin) {
        fail_msg("dlopen %s: %s", plugin_path, dlerror());
    }
    ggml_backend_reg_t (*init)(void) = (ggml_backend_reg_t(*)(void)) dlsym(plugin, "ggml_backend_init");
    assert_non_null(init);
    ggml_backend_reg_t reg = init();
    assert_non_null(reg);
    ggml_backend_dev_t dev = htp0 = g.ggml_backend_reg_dev_get(reg, 0);
    ggml_backend_dev_get_extra_bufts_t extra = (ggml_backend_dev_get_extra_bufts_t) g.ggml_backend_reg_get_proc_address(
        reg, "ggml_backend_dev_get_extra_bufts");
    assert_non_null(extra);
    ggml_backend_buffer_type_t *bufts = extra(dev);
    assert_non_null(bufts[0]);
    assert_null(bufts[1]);
    assert_string_equal(g.ggml_backend_buft_name(bufts[0]), "HTP0-REPACK");
    assert_false(g.ggml_backend_buft_is_host(bufts[0]));
    return bufts[0];
}

/* The tensor's flat bytes as get_tensor gives them equal want. */
static void assert_reads_back(struct ggml_tensor *t, const uint8_t *want, const char *after) {
    const size_t n = g.ggml_nbytes(t);
    uint8_t *got = malloc(n);
    assert_non_null(got);
    g.ggml_backend_tensor_get(t, got, 0, n);
    size_t i = 0;
    while (i < n && got[i] == want[i]) {
        i++;
    }
    if (i < n) {
        fail_msg("after %s: '%s' reads back 0x%02x at byte %zu of %zu, written 0x%02x", after, t->name, got[i], i, n,
                 want[i]);
    }
    free(got);
}

static void test_repack_reads_back_flat(void **state) {
    (void) state;
    ggml_backend_buffer_type_t buft = repack_buft();
    struct ggml_init_params params = {.mem_size = 4 * g.ggml_tensor_overhead(), .no_alloc = true};
    struct ggml_context *ctx = g.ggml_init(params);
    struct ggml_tensor *w = g.ggml_new_tensor_2d(ctx, GGML_TYPE_Q4_0, K, ROWS);
    struct ggml_tensor *f = g.ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 64);
    snprintf(w->name, sizeof(w->name), "w");
    snprintf(f->name, sizeof(f->name), "f");
    const size_t row = g.ggml_row_size(GGML_TYPE_Q4_0, K), n = g.ggml_nbytes(w);
    assert_int_equal(g.ggml_backend_buft_get_alloc_size(buft, w), 64 * row); /* ROWS padded to two column tiles */
    assert_int_equal(g.ggml_backend_buft_get_alloc_size(buft, f), g.ggml_nbytes(f));
    ggml_backend_buffer_t buf = g.ggml_backend_alloc_ctx_tensors_from_buft(ctx, buft);
    assert_non_null(buf);
    g.ggml_backend_buffer_set_usage(buf, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);

    /* random Q4_0 blocks (18 bytes: an FP16 scale, 16 bytes of codes) with finite scales */
    struct test_rng rng;
    test_rng_seed(&rng, "test_repack_reads_back_flat");
    uint8_t *flat = malloc(n);
    assert_non_null(flat);
    for (size_t i = 0; i < n; i++) {
        flat[i] = (uint8_t) test_rng_next(&rng);
        if (i % 18 == 1) {
            flat[i] &= 0x3f;
        }
    }
    g.ggml_backend_tensor_set(w, flat, 0, n);
    assert_memory_not_equal(w->data, flat, n); /* tiled in memory */
    assert_reads_back(w, flat, "set_tensor of the whole weight");

    for (size_t i = 0; i < row; i++) {
        flat[7 * row + i] = (uint8_t) (test_rng_next(&rng) & (i % 18 == 1 ? 0x3f : 0xff));
    }
    g.ggml_backend_tensor_set(w, flat + 7 * row, 7 * row, row);
    assert_reads_back(w, flat, "set_tensor of row 7");

    memset(flat + 3 * row, 0x11, 2 * row);
    g.ggml_backend_tensor_memset(w, 0x11, 3 * row, 2 * row);
    assert_reads_back(w, flat, "memset_tensor of rows 3 and 4");

    const float x[64] = {1.0f, -2.5f, 3.25f};
    g.ggml_backend_tensor_set(f, x, 0, sizeof(x));
    assert_memory_equal(f->data, x, sizeof(x)); /* flat */
    assert_reads_back(f, (const uint8_t *) x, "set_tensor of an F32 tensor");

    g.ggml_backend_buffer_clear(buf, 0);
    memset(flat, 0, n);
    assert_reads_back(w, flat, "clear(0)");

    free(flat);
    g.ggml_backend_buffer_free(buf);
    g.ggml_free(ctx);
}

/* GET_ROWS of a tiled weight on HTP0 (the row kernel reads the tiled layout) gives ggml's dequantization of the
 * flat rows, bit for bit (Q4_0: d * (q - 8), exact in f32). */
static void test_repack_get_rows(void **state) {
    (void) state;
    ggml_backend_buffer_type_t buft = repack_buft();
    struct ggml_init_params wparams = {.mem_size = g.ggml_tensor_overhead(), .no_alloc = true};
    struct ggml_context *wctx = g.ggml_init(wparams);
    struct ggml_tensor *w = g.ggml_new_tensor_2d(wctx, GGML_TYPE_Q4_0, K, ROWS);
    ggml_backend_buffer_t wbuf = g.ggml_backend_alloc_ctx_tensors_from_buft(wctx, buft);
    assert_non_null(wbuf);
    g.ggml_backend_buffer_set_usage(wbuf, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
    const size_t n = g.ggml_nbytes(w), row = g.ggml_row_size(GGML_TYPE_Q4_0, K);
    struct test_rng rng;
    test_rng_seed(&rng, "test_repack_get_rows");
    uint8_t *flat = malloc(n);
    assert_non_null(flat);
    for (size_t i = 0; i < n; i++) {
        flat[i] = (uint8_t) (test_rng_next(&rng) & (i % 18 == 1 ? 0x3f : 0xff));
    }
    g.ggml_backend_tensor_set(w, flat, 0, n);

    enum { N_IDS = 5 };
    const int32_t ids[N_IDS] = {0, 39, 7, 32, 31}; /* both column tiles, the padded one's last row */
    struct ggml_init_params params = {.mem_size = 4 * g.ggml_tensor_overhead() + g.ggml_graph_overhead(),
                                      .no_alloc = true};
    struct ggml_context *ctx = g.ggml_init(params);
    struct ggml_tensor *idx = g.ggml_new_tensor_1d(ctx, GGML_TYPE_I32, N_IDS);
    struct ggml_tensor *rows = g.ggml_get_rows(ctx, w, idx);
    struct ggml_cgraph *graph = g.ggml_new_graph(ctx);
    g.ggml_build_forward_expand(graph, rows);
    ggml_backend_t backend = g.ggml_backend_dev_init(htp0, NULL);
    assert_non_null(backend);
    ggml_backend_buffer_t buf = g.ggml_backend_alloc_ctx_tensors(ctx, backend);
    assert_non_null(buf);
    g.ggml_backend_tensor_set(idx, ids, 0, sizeof(ids));
    assert_int_equal(g.ggml_backend_graph_compute(backend, graph), GGML_STATUS_SUCCESS);

    float got[K], want[K];
    for (int r = 0; r < N_IDS; r++) {
        g.ggml_backend_tensor_get(rows, got, (size_t) r * sizeof(got), sizeof(got));
        g.ggml_get_type_traits(GGML_TYPE_Q4_0)->to_float(flat + (size_t) ids[r] * row, want, K);
        assert_memory_equal(got, want, sizeof(got));
    }
    free(flat);
    g.ggml_backend_buffer_free(buf);
    g.ggml_backend_free(backend);
    g.ggml_free(ctx);
    g.ggml_backend_buffer_free(wbuf);
    g.ggml_free(wctx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_repack_reads_back_flat),
        cmocka_unit_test(test_repack_get_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
