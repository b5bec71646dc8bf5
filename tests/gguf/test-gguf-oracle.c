/*
 * The writer's output loads in llama.cpp: stories260K copied kv by kv and tensor by tensor with
 * gguf_writer generates the same greedy tokens in the oracle's llama_ref as the original file. And the reader loads
 * every GGUF file llama.cpp ships.
 */
#include "test-common.h"

#include "gguf.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The "gen_ids: ..." line of llama_ref's output (malloc'd). */
static char *gen_ids(const char *bin, const char *model) {
    char *out = NULL;
    const int rc = test_run(&out, NULL, "'%s/llama_ref' -m '%s' -p 'Once upon a time' -n 8 2>/dev/null", bin, model);
    assert_int_equal(rc, 0);
    const char *line = strstr(out, "gen_ids:");
    assert_non_null(line);
    char *ids = strndup(line, strcspn(line, "\n"));
    free(out);
    return ids;
}

static void test_copy_generates_same_tokens(void **state) {
    (void) state;
    const char *bin = test_oracle_bin();
    char model[4200], copy[4200];
    snprintf(model, sizeof(model), "%s", test_model_path("stories260K.gguf"));
    snprintf(copy, sizeof(copy), "%s/stories260K-copy.gguf", test_tmpdir());

    struct gguf_file *src = NULL;
    assert_int_equal(gguf_open(model, &src), VNPU_STATUS_OK);
    struct gguf_writer *w = gguf_writer_new();
    assert_non_null(w);
    for (int64_t i = 0; i < gguf_n_kv(src); i++) {
        gguf_writer_copy_kv(w, src, i);
    }
    for (int64_t i = 0; i < gguf_n_tensors(src); i++) {
        const struct gguf_tensor_info *t = gguf_tensor(src, i);
        gguf_writer_add_tensor(w, t->name, t->type, t->n_dims, t->ne, t->data);
    }
    assert_int_equal(gguf_writer_write(w, copy), VNPU_STATUS_OK);
    gguf_writer_free(w);
    gguf_close(src);

    char *want = gen_ids(bin, model);
    char *got = gen_ids(bin, copy);
    printf("original: %s\ncopy:     %s\n", want, got);
    assert_true(strlen(want) > strlen("gen_ids: "));
    assert_string_equal(got, want);
    free(want);
    free(got);
}

/* Every GGUF file llama.cpp ships (models/ggml-vocab-*.gguf of the oracle's release: vocabularies of 19 tokenizers,
 * their keys as its converter writes them) loads, keys with '-' among them (command-r.*, nomic-bert-moe.*). */
static void test_llama_cpp_vocab_files_load(void **state) {
    (void) state;
    char models[4200];
    snprintf(models, sizeof(models), "%s/models", test_upstream_srcdir());
    DIR *d = opendir(models);
    assert_non_null(d);
    int n_files = 0, n_hyphen = 0;
    for (struct dirent *e; (e = readdir(d));) {
        const size_t len = strlen(e->d_name);
        if (strncmp(e->d_name, "ggml-vocab-", 11) != 0 || len < 5 || strcmp(e->d_name + len - 5, ".gguf") != 0) {
            continue;
        }
        char path[4500];
        snprintf(path, sizeof(path), "%s/%s", models, e->d_name);
        struct gguf_file *f = NULL;
        if (gguf_open(path, &f) != VNPU_STATUS_OK) {
            fail_msg("%s does not load (its message is above)", path);
        }
        for (int64_t i = 0; i < gguf_n_kv(f); i++) {
            const struct gguf_str k = gguf_kv_key(f, i);
            n_hyphen += memchr(k.data, '-', k.len) != NULL;
        }
        gguf_close(f);
        n_files++;
    }
    closedir(d);
    printf("  %d llama.cpp vocabulary files loaded, %d keys with '-'\n", n_files, n_hyphen);
    assert_true(n_files >= 19);
    assert_true(n_hyphen > 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_copy_generates_same_tokens),
        cmocka_unit_test(test_llama_cpp_vocab_files_load),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
