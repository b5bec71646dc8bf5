/*
 * libggml-vnpu.so's REPACK buffer type through ggml's own buffer functions, as llama.cpp's model loader uses them:
 * the oracle's libggml-base is loaded (global) and then the plugin, as a GGML program loads a backend from
 * GGML_BACKEND_PATH, and ggml's functions are called through dlsym. HTP0 offers HTP0-REPACK as its one extra buffer
 * type (get_proc_address "ggml_backend_dev_get_extra_bufts"), not host-readable; a Q4_0 weight of 40 rows takes its
 * tiled size there (64 rows of tiles); written whole, it is tiled in memory and reads back flat byte for byte; so does
 * it after a row is rewritten (vnpu unpacks and tiles again), after a memset of two rows, and after clear(0); an F32
 * tensor in REPACK is stored flat. Only built with the plugin (it needs ggml's headers).
 */
#include "test-common.h"

#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef VNPU_GGML_PLUGIN
#error "VNPU_GGML_PLUGIN must be defined by the build"
#endif

/* ggml's functions the test calls, from libggml-base. */
/* clang-format off */
#define GGML_FUNCS(X) \
    X(ggml_init) X(ggml_free) X(ggml_tensor_overhead) X(ggml_new_tensor_1d) X(ggml_new_tensor_2d) X(ggml_nbytes) \
    X(ggml_row_size) X(ggml_backend_reg_dev_get) X(ggml_backend_reg_get_proc_address) X(ggml_backend_buft_name) \
    X(ggml_backend_buft_is_host) X(ggml_backend_buft_get_alloc_size) X(ggml_backend_alloc_ctx_tensors_from_buft) \
    X(ggml_backend_buffer_set_usage) X(ggml_backend_buffer_clear) X(ggml_backend_buffer_free) \
    X(ggml_backend_tensor_set) X(ggml_backend_tensor_get) X(ggml_backend_tensor_memset)
/* clang-format on */

#define FIELD(name) __typeof__(&name) name;
static struct { GGML_FUNCS(FIELD) } g;
#undef FIELD

#define ROWS 40 /* not a multiple of 32: the tiles pad the last column tile */
#define K    256

/* ggml's functions, the plugin's registry and HTP0's extra buffer type (skips or fails when the plugin or the oracle
 * is missing). */
static ggml_backend_buffer_type_t repack_buft(void) {
    if (!*VNPU_GGML_PLUGIN) {
        test_missing("libggml-vnpu.so", "configure with -DVNPU_GGML_SRC=<llama.cpp source>");
    }
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
    void *plugin = dlopen(VNPU_GGML_PLUGIN, RTLD_NOW | RTLD_LOCAL);
    if (!plugin) {
        fail_msg("dlopen %s: %s", VNPU_GGML_PLUGIN, dlerror());
    }
    ggml_backend_reg_t (*init)(void) = (ggml_backend_reg_t(*)(void)) dlsym(plugin, "ggml_backend_init");
    assert_non_null(init);
    ggml_backend_reg_t reg = init();
    assert_non_null(reg);
    ggml_backend_dev_t dev = g.ggml_backend_reg_dev_get(reg, 0);
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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_repack_reads_back_flat),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
