#include "arch-models.h"

#include "gguf.h"
#include "log.h"
#include "test-common.h"
#include "type-traits.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Weights: matrices N(0, ARCH_STD), token_embd and output N(0, ARCH_STD_VOCAB), so that logits spread over a few
 * units (sqrt(n_embd) * 0.3 = 2.4 for n_embd 64: margins between the top tokens well above float noise, as
 * test-oracle-models's --std 0.06 gives its n_embd 256); biases N(0, ARCH_STD_BIAS); norms 1 + N(0, ARCH_STD_NORM). */
#define ARCH_STD       0.1f
#define ARCH_STD_VOCAB 0.3f
#define ARCH_STD_BIAS  0.2f
#define ARCH_STD_NORM  0.1f

/* Small enough to run fast on the 2-core CI, shaped as the families are: grouped-query attention (4 heads over 2 KV
 * heads), every row a whole number of Q4_0/Q8_0 blocks and of HTP's 32-row tiles; Qwen 3's head dimension twice
 * n_embd / n_head, as the 0.6B's 128 is against 1024 / 16 = 64. Rope bases and epsilons are the families' own. */
static const struct arch_model models[] = {
    {.name = "llama3",
     .arch = "llama",
     .vocab = "llama-bpe",
     .n_embd = 64,
     .n_layer = 2,
     .n_head = 4,
     .n_head_kv = 2,
     .n_ff = 128,
     .n_embd_head = 16,
     .rope_freq_base = 500000.0f,
     .rms_eps = 1e-5f,
     .rope_freqs = true},
    {.name = "qwen2",
     .arch = "qwen2",
     .vocab = "qwen2",
     .n_embd = 64,
     .n_layer = 2,
     .n_head = 4,
     .n_head_kv = 2,
     .n_ff = 192,
     .n_embd_head = 16,
     .rope_freq_base = 1000000.0f,
     .rms_eps = 1e-6f,
     .qkv_bias = true,
     .out_bias = true},
    {.name = "qwen3",
     .arch = "qwen3",
     .vocab = "qwen2",
     .n_embd = 64,
     .n_layer = 2,
     .n_head = 4,
     .n_head_kv = 2,
     .n_ff = 128,
     .n_embd_head = 32,
     .rope_freq_base = 1000000.0f,
     .rms_eps = 1e-6f,
     .qk_norm = true,
     .tied = true},
};

const struct arch_model *arch_models(size_t *n) {
    *n = sizeof(models) / sizeof(models[0]);
    return models;
}

const struct arch_model *arch_model_find(const char *name) {
    for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++) {
        if (strcmp(models[i].name, name) == 0) {
            return &models[i];
        }
    }
    return NULL;
}

/* The model being written: the writer, and the tensor data it references until the write. */
struct arch_writer {
    const struct arch_model *m;
    enum vnpu_type type;
    struct gguf_writer *w;
    int n_data;
    void *data[64];
};

/* Tensor name of shape [ne0] (ne1 0: a vector, F32) or [ne0, ne1] (a matrix of the writer's type) from floats x (ne0
 * x max(ne1, 1) of them, taken over). */
static void add_tensor(struct arch_writer *aw, const char *name, int64_t ne0, int64_t ne1, float *x) {
    const int64_t ne[2] = {ne0, ne1};
    const enum vnpu_type type = ne1 > 0 ? aw->type : VNPU_TYPE_F32;
    const int64_t rows = ne1 > 0 ? ne1 : 1;
    void *data = x;
    if (type != VNPU_TYPE_F32) {
        const size_t row_size = vnpu_row_size(type, ne0);
        data = malloc(row_size * (size_t) rows);
        VNPU_ASSERT(data);
        for (int64_t r = 0; r < rows; r++) {
            vnpu_type_traits_get(type)->from_f32_ref(x + r * ne0, (char *) data + (size_t) r * row_size, ne0);
        }
        free(x);
    }
    VNPU_ASSERT(aw->n_data < (int) (sizeof(aw->data) / sizeof(aw->data[0])));
    aw->data[aw->n_data++] = data;
    gguf_writer_add_tensor(aw->w, name, type, ne1 > 0 ? 2 : 1, ne, data);
}

/* n floats of the stream of "<model>/<name>": N(mean, std). */
static float *random_floats(const struct arch_writer *aw, const char *name, size_t n, float mean, float std) {
    char seed[128];
    snprintf(seed, sizeof(seed), "%s/%s", aw->m->name, name);
    struct test_rng rng;
    test_rng_seed(&rng, seed);
    float *x = malloc(n * sizeof(float));
    VNPU_ASSERT(x);
    test_rng_fill_normal(&rng, x, n, std);
    for (size_t i = 0; i < n; i++) {
        x[i] += mean;
    }
    return x;
}

static void add_random(struct arch_writer *aw, const char *name, int64_t ne0, int64_t ne1, float mean, float std) {
    add_tensor(aw, name, ne0, ne1, random_floats(aw, name, (size_t) ne0 * (size_t) (ne1 > 0 ? ne1 : 1), mean, std));
}

/* Llama 3's rope frequency factors as llama.cpp's converter computes them from a Llama 3.1 config (rope_type
 * "llama3", factor 8, low_freq_factor 1, high_freq_factor 4, original_max_position_embeddings 8192): pair i of a
 * head of head_dim rotates at base^(-2i / head_dim); wavelengths under 8192 / 4 keep it (1), over 8192 / 1 divide it
 * by 8, and those between blend the two. */
static float *llama3_rope_factors(float base, uint32_t head_dim) {
    const double factor = 8.0, low = 1.0, high = 4.0, old_ctx = 8192.0;
    float *f = malloc(head_dim / 2 * sizeof(float));
    VNPU_ASSERT(f);
    for (uint32_t i = 0; i < head_dim / 2; i++) {
        const double freq = 1.0 / pow(base, (double) (2 * i) / head_dim);
        const double wavelen = 2 * M_PI / freq;
        if (wavelen < old_ctx / high) {
            f[i] = 1.0f;
        } else if (wavelen > old_ctx / low) {
            f[i] = (float) factor;
        } else {
            const double smooth = (old_ctx / wavelen - low) / (high - low);
            f[i] = (float) (1.0 / ((1.0 - smooth) / factor + smooth));
        }
    }
    return f;
}

/* The hparams, as the families' converters write them. */
static void write_keys(struct gguf_writer *w, const struct arch_model *m) {
    char key[128];
#define ARCH_KEY(suffix) (snprintf(key, sizeof(key), "%s.%s", m->arch, suffix), key)
    gguf_writer_set_str(w, "general.architecture", m->arch);
    gguf_writer_set_str(w, "general.name", m->name);
    gguf_writer_set_u32(w, ARCH_KEY("context_length"), 2048);
    gguf_writer_set_u32(w, ARCH_KEY("embedding_length"), m->n_embd);
    gguf_writer_set_u32(w, ARCH_KEY("block_count"), m->n_layer);
    gguf_writer_set_u32(w, ARCH_KEY("feed_forward_length"), m->n_ff);
    gguf_writer_set_u32(w, ARCH_KEY("attention.head_count"), m->n_head);
    gguf_writer_set_u32(w, ARCH_KEY("attention.head_count_kv"), m->n_head_kv);
    gguf_writer_set_f32(w, ARCH_KEY("attention.layer_norm_rms_epsilon"), m->rms_eps);
    gguf_writer_set_f32(w, ARCH_KEY("rope.freq_base"), m->rope_freq_base);
    if (m->n_embd_head != m->n_embd / m->n_head) {
        gguf_writer_set_u32(w, ARCH_KEY("attention.key_length"), m->n_embd_head);
        gguf_writer_set_u32(w, ARCH_KEY("attention.value_length"), m->n_embd_head);
    }
    if (m->rope_freqs) { /* Llama 3's converter writes the rotated dimensions (the head) */
        gguf_writer_set_u32(w, ARCH_KEY("rope.dimension_count"), m->n_embd_head);
    }
#undef ARCH_KEY
}

enum vnpu_status arch_model_write(const struct arch_model *m, enum vnpu_type type, const char *vocab_path,
                                  const char *path) {
    struct gguf_file *vocab = NULL;
    enum vnpu_status st = gguf_open(vocab_path, &vocab);
    if (st != VNPU_STATUS_OK) {
        return st;
    }
    struct arch_writer aw = {.m = m, .type = type, .w = gguf_writer_new()};
    VNPU_ASSERT(aw.w);
    write_keys(aw.w, m);
    for (int64_t i = 0; i < gguf_n_kv(vocab); i++) {
        const struct gguf_str key = gguf_kv_key(vocab, i);
        if (key.len > 10 && memcmp(key.data, "tokenizer.", 10) == 0) {
            gguf_writer_copy_kv(aw.w, vocab, i);
        }
    }
    const int64_t i_tokens = gguf_find_key(vocab, "tokenizer.ggml.tokens");
    VNPU_ASSERT(i_tokens >= 0);
    const int64_t n_vocab = (int64_t) gguf_get_arr_n(vocab, i_tokens);
    const int64_t n_embd = m->n_embd, n_q = (int64_t) m->n_embd_head * m->n_head;
    const int64_t n_kv = (int64_t) m->n_embd_head * m->n_head_kv, n_ff = m->n_ff;

    add_random(&aw, "token_embd.weight", n_embd, n_vocab, 0.0f, ARCH_STD_VOCAB);
    add_random(&aw, "output_norm.weight", n_embd, 0, 1.0f, ARCH_STD_NORM);
    if (!m->tied) {
        add_random(&aw, "output.weight", n_embd, n_vocab, 0.0f, ARCH_STD_VOCAB);
    }
    if (m->out_bias) {
        add_random(&aw, "output.bias", n_vocab, 0, 0.0f, ARCH_STD_BIAS);
    }
    if (m->rope_freqs) {
        add_tensor(&aw, "rope_freqs.weight", m->n_embd_head / 2, 0,
                   llama3_rope_factors(m->rope_freq_base, m->n_embd_head));
    }
    for (uint32_t il = 0; il < m->n_layer; il++) {
        const struct {
            const char *name;
            int64_t ne0, ne1; /* ne1 0: a vector */
            bool present;
            float mean, std;
        } rows[] = {
            {"attn_norm.weight", n_embd, 0, true, 1.0f, ARCH_STD_NORM},
            {"attn_q.weight", n_embd, n_q, true, 0.0f, ARCH_STD},
            {"attn_k.weight", n_embd, n_kv, true, 0.0f, ARCH_STD},
            {"attn_v.weight", n_embd, n_kv, true, 0.0f, ARCH_STD},
            {"attn_output.weight", n_q, n_embd, true, 0.0f, ARCH_STD},
            {"attn_q.bias", n_q, 0, m->qkv_bias, 0.0f, ARCH_STD_BIAS},
            {"attn_k.bias", n_kv, 0, m->qkv_bias, 0.0f, ARCH_STD_BIAS},
            {"attn_v.bias", n_kv, 0, m->qkv_bias, 0.0f, ARCH_STD_BIAS},
            {"attn_q_norm.weight", m->n_embd_head, 0, m->qk_norm, 1.0f, ARCH_STD_NORM},
            {"attn_k_norm.weight", m->n_embd_head, 0, m->qk_norm, 1.0f, ARCH_STD_NORM},
            {"ffn_norm.weight", n_embd, 0, true, 1.0f, ARCH_STD_NORM},
            {"ffn_gate.weight", n_embd, n_ff, true, 0.0f, ARCH_STD},
            {"ffn_up.weight", n_embd, n_ff, true, 0.0f, ARCH_STD},
            {"ffn_down.weight", n_ff, n_embd, true, 0.0f, ARCH_STD},
        };
        for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
            if (rows[r].present) {
                char name[GGUF_MAX_NAME];
                snprintf(name, sizeof(name), "blk.%u.%s", il, rows[r].name);
                add_random(&aw, name, rows[r].ne0, rows[r].ne1, rows[r].mean, rows[r].std);
            }
        }
    }
    st = gguf_writer_write(aw.w, path);
    gguf_writer_free(aw.w);
    for (int i = 0; i < aw.n_data; i++) {
        free(aw.data[i]);
    }
    gguf_close(vocab);
    return st;
}

const char *arch_model_path(const char *rel) {
    static char path[4400];
    char name[64], type_name[16];
    enum vnpu_type type;
    /* "arch/": the row's own vocabulary; "arch-spm/": the 32000-token SPM one (small files, for the malformed corpus)
     */
    const bool spm = strncmp(rel, "arch-spm/", 9) == 0;
    const size_t skip = spm ? 9 : 5;
    const char *dash = strrchr(rel, '-');
    const char *dot = strrchr(rel, '.');
    if ((!spm && strncmp(rel, "arch/", 5) != 0) || !dash || !dot || dot < dash || dash < rel + skip ||
        (size_t) (dash - rel) - skip >= sizeof(name) || dot - dash - 1 >= (long) sizeof(type_name)) {
        return test_model_path(rel);
    }
    snprintf(name, sizeof(name), "%.*s", (int) ((size_t) (dash - rel) - skip), rel + skip);
    snprintf(type_name, sizeof(type_name), "%.*s", (int) (dot - dash - 1), dash + 1);
    const struct arch_model *m = arch_model_find(name);
    if (!m || !vnpu_type_from_name(type_name, &type)) {
        fail_msg("%s: no such architecture model (arch/<name>-<type>.gguf or arch-spm/..., a row of arch-models.c)",
                 rel);
    }
    char dir[4200];
    snprintf(dir, sizeof(dir), "%s/%.*s", test_tmpdir(), (int) skip - 1, rel);
    snprintf(path, sizeof(path), "%s/%s-%s.gguf", dir, name, type_name);
    struct stat sb;
    if (stat(path, &sb) != 0) {
        char vocab[4200];
        snprintf(vocab, sizeof(vocab), "%s/models/ggml-vocab-%s.gguf", test_upstream_srcdir(),
                 spm ? "llama-spm" : m->vocab);
        if (mkdir(dir, 0777) != 0 && stat(dir, &sb) != 0) {
            fail_msg("cannot make %s", dir);
        }
        assert_int_equal(arch_model_write(m, type, vocab, path), VNPU_STATUS_OK);
    }
    return path;
}
