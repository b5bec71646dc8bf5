#include "model-cases.h"

#include "fp16.h"
#include "log.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define STORIES   "stories260K.gguf"         /* 5 layers, n_embd 64, 8/4 heads, n_ff 172, 512 tokens, F32 */
#define TINY      "llama-2-tiny-random.gguf" /* 1 layer, n_embd 8, 2/2 heads, n_ff 32, 32000 tokens, F16 */
/* arch-models.h's with the 32000-token SPM vocabulary (2 layers, n_embd 64, 4/2 heads, Q8_0 matrices): */
#define LLAMA3    "arch-spm/llama3-q8_0.gguf" /* head 16, n_ff 128, rope_freqs [8] */
#define QWEN2     "arch-spm/qwen2-q8_0.gguf"  /* head 16, n_ff 192, Q/K/V biases, output.bias */
#define QWEN3     "arch-spm/qwen3-q8_0.gguf"  /* head 32 (attn_q [64, 128]), n_ff 128, Q/K norms [32], tied output */
#define QWEN2_F32 "arch-spm/qwen2-f32.gguf"   /* the same in F32: for the oracle's comparison of a valid case */

/* ---- the edit helpers ---- */

static void *owned_alloc(struct model_edit *e, size_t size) {
    VNPU_ASSERT(e->n_owned < MODEL_CASE_MAX_OWNED);
    void *p = calloc(1, size ? size : 1);
    VNPU_ASSERT(p);
    e->owned[e->n_owned++] = p;
    return p;
}

static struct model_tensor *tensor_find(struct model_edit *e, const char *name) {
    for (int i = 0; i < e->n_tensors; i++) {
        if (strcmp(e->tensors[i].name, name) == 0) {
            return &e->tensors[i];
        }
    }
    return NULL;
}

struct model_tensor *model_edit_tensor(struct model_edit *e, const char *name) {
    struct model_tensor *t = tensor_find(e, name);
    VNPU_ASSERT(t);
    return t;
}

void *model_edit_reshape(struct model_edit *e, const char *name, enum vnpu_type type, uint32_t n_dims,
                         const int64_t *ne) {
    struct model_tensor *t = tensor_find(e, name);
    if (!t) {
        VNPU_ASSERT(e->n_tensors < MODEL_CASE_MAX_TENSORS && strlen(name) < GGUF_MAX_NAME);
        t = &e->tensors[e->n_tensors++];
        snprintf(t->name, sizeof(t->name), "%s", name);
    }
    VNPU_ASSERT(n_dims >= 1 && n_dims <= GGUF_MAX_DIMS);
    t->type = type;
    t->n_dims = n_dims;
    size_t rows = 1;
    for (uint32_t d = 0; d < GGUF_MAX_DIMS; d++) {
        t->ne[d] = d < n_dims ? ne[d] : 1;
        rows *= d > 0 ? (size_t) t->ne[d] : 1;
    }
    void *data = owned_alloc(e, vnpu_row_size(type, t->ne[0]) * rows);
    t->data = data;
    return data;
}

/* The base's array key (numeric elements) resized to n elements: its first ones, zeros after. Returned
 * for the edit to change and set. */
static void *array_copy(struct model_edit *e, const char *key, uint64_t n) {
    const int64_t i = gguf_find_key(e->base, key);
    VNPU_ASSERT(i >= 0 && gguf_kv_type(e->base, i) == GGUF_TYPE_ARRAY);
    const size_t elem = gguf_type_size(gguf_get_arr_type(e->base, i));
    const uint64_t n_base = gguf_get_arr_n(e->base, i);
    void *data = owned_alloc(e, (size_t) n * elem);
    memcpy(data, gguf_get_arr_data(e->base, i), (size_t) (n < n_base ? n : n_base) * elem);
    return data;
}

/* tokenizer.ggml.tokens as the base's first n texts, with token id's text replaced (id < 0: none). */
static void tokens_set(struct model_edit *e, uint64_t n, int64_t id, const char *text) {
    const int64_t i = gguf_find_key(e->base, "tokenizer.ggml.tokens");
    VNPU_ASSERT(i >= 0 && n <= gguf_get_arr_n(e->base, i));
    struct gguf_str *v = owned_alloc(e, (size_t) n * sizeof(*v));
    for (uint64_t j = 0; j < n; j++) {
        v[j] =
            (int64_t) j == id ? (struct gguf_str){.data = text, .len = strlen(text)} : gguf_get_arr_str(e->base, i, j);
    }
    gguf_writer_set_arr_str(e->w, "tokenizer.ggml.tokens", v, n);
}

static void kv_set(struct gguf_writer *w, const struct model_kv *kv) {
    switch (kv->type) {
        case GGUF_TYPE_UINT8: gguf_writer_set_u8(w, kv->key, (uint8_t) kv->i); break;
        case GGUF_TYPE_INT8: gguf_writer_set_i8(w, kv->key, (int8_t) kv->i); break;
        case GGUF_TYPE_UINT16: gguf_writer_set_u16(w, kv->key, (uint16_t) kv->i); break;
        case GGUF_TYPE_INT16: gguf_writer_set_i16(w, kv->key, (int16_t) kv->i); break;
        case GGUF_TYPE_UINT32: gguf_writer_set_u32(w, kv->key, (uint32_t) kv->i); break;
        case GGUF_TYPE_INT32: gguf_writer_set_i32(w, kv->key, (int32_t) kv->i); break;
        case GGUF_TYPE_FLOAT32: gguf_writer_set_f32(w, kv->key, (float) kv->f); break;
        case GGUF_TYPE_BOOL: gguf_writer_set_bool(w, kv->key, kv->i != 0); break;
        case GGUF_TYPE_STRING: gguf_writer_set_str(w, kv->key, kv->s); break;
        case GGUF_TYPE_UINT64: gguf_writer_set_u64(w, kv->key, (uint64_t) kv->i); break;
        case GGUF_TYPE_INT64: gguf_writer_set_i64(w, kv->key, kv->i); break;
        case GGUF_TYPE_FLOAT64: gguf_writer_set_f64(w, kv->key, kv->f); break;
        case GGUF_TYPE_ARRAY:
        case GGUF_TYPE_COUNT: VNPU_ASSERT(!"a case sets scalars only"); break;
    }
}

/* ---- tokenizer edits ---- */

static void tokens_i32(struct model_edit *e) {
    gguf_writer_set_arr_data(e->w, "tokenizer.ggml.tokens", GGUF_TYPE_INT32,
                             array_copy(e, "tokenizer.ggml.token_type", 512), 512);
}
static void tokens_empty(struct model_edit *e) {
    tokens_set(e, 0, -1, NULL);
}
static void scores_i32(struct model_edit *e) {
    gguf_writer_set_arr_data(e->w, "tokenizer.ggml.scores", GGUF_TYPE_INT32,
                             array_copy(e, "tokenizer.ggml.token_type", 512), 512);
}
static void token_type_u32(struct model_edit *e) {
    gguf_writer_set_arr_data(e->w, "tokenizer.ggml.token_type", GGUF_TYPE_UINT32,
                             array_copy(e, "tokenizer.ggml.token_type", 512), 512);
}
static void scores_511(struct model_edit *e) {
    gguf_writer_set_arr_data(e->w, "tokenizer.ggml.scores", GGUF_TYPE_FLOAT32,
                             array_copy(e, "tokenizer.ggml.scores", 511), 511);
}
static void token_type_513(struct model_edit *e) {
    int32_t *types = array_copy(e, "tokenizer.ggml.token_type", 513);
    types[512] = 1; /* NORMAL */
    gguf_writer_set_arr_data(e->w, "tokenizer.ggml.token_type", GGUF_TYPE_INT32, types, 513);
}
/* Every tokenizer array one shorter than token_embd has rows. */
static void vocab_511(struct model_edit *e) {
    tokens_set(e, 511, -1, NULL);
    scores_511(e);
    gguf_writer_set_arr_data(e->w, "tokenizer.ggml.token_type", GGUF_TYPE_INT32,
                             array_copy(e, "tokenizer.ggml.token_type", 511), 511);
}
static void byte_token_zz(struct model_edit *e) {
    tokens_set(e, 512, 3, "<0xZZ>"); /* token 3 is <0x00>, type BYTE */
}
static void byte_token_100(struct model_edit *e) {
    tokens_set(e, 512, 3, "<0x100>");
}
static void token_duplicate(struct model_edit *e) {
    tokens_set(e, 512, 301, "<s>");
}
static void score_nan(struct model_edit *e) {
    float *scores = array_copy(e, "tokenizer.ggml.scores", 512);
    scores[5] = NAN;
    gguf_writer_set_arr_data(e->w, "tokenizer.ggml.scores", GGUF_TYPE_FLOAT32, scores, 512);
}
static void token_type_7(struct model_edit *e) {
    int32_t *types = array_copy(e, "tokenizer.ggml.token_type", 512);
    types[5] = 7;
    gguf_writer_set_arr_data(e->w, "tokenizer.ggml.token_type", GGUF_TYPE_INT32, types, 512);
}
static void tiny_byte_token_1g(struct model_edit *e) {
    tokens_set(e, 32000, 20, "<0x1G>"); /* token 20 is <0x11> */
}

/* The base's vocabulary as a BPE one (tokenizer.ggml.model gpt2, GPT-2's pre-tokenizer): for each token whose text is
 * a character followed by another token's text, the merge "character rest", ranked by the token's id. */
static void bpe_vocab(struct model_edit *e) {
    gguf_writer_set_str(e->w, "tokenizer.ggml.model", "gpt2");
    gguf_writer_set_str(e->w, "tokenizer.ggml.pre", "gpt-2");
    const int64_t ti = gguf_find_key(e->base, "tokenizer.ggml.tokens");
    const uint64_t n = gguf_get_arr_n(e->base, ti);
    size_t total = 0;
    for (uint64_t j = 0; j < n; j++) {
        total += gguf_get_arr_str(e->base, ti, j).len + 1;
    }
    struct gguf_str *merges = owned_alloc(e, (size_t) n * sizeof(*merges));
    char *texts = owned_alloc(e, total), *p = texts;
    uint64_t m = 0;
    for (uint64_t j = 0; j < n; j++) {
        const struct gguf_str t = gguf_get_arr_str(e->base, ti, j);
        const uint8_t lead = t.len ? (uint8_t) t.data[0] : 0;
        const size_t k = lead < 0xC0 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
        bool rest_is_token = false;
        for (uint64_t r = 0; t.len > k && r < n && !rest_is_token; r++) {
            const struct gguf_str o = gguf_get_arr_str(e->base, ti, r);
            rest_is_token = o.len == t.len - k && memcmp(o.data, t.data + k, o.len) == 0;
        }
        if (rest_is_token) {
            memcpy(p, t.data, k);
            p[k] = ' ';
            memcpy(p + k + 1, t.data + k, t.len - k);
            merges[m++] = (struct gguf_str){.data = p, .len = t.len + 1};
            p += t.len + 1;
        }
    }
    gguf_writer_set_arr_str(e->w, "tokenizer.ggml.merges", merges, m);
}
static void bpe_merges_i32(struct model_edit *e) {
    bpe_vocab(e);
    gguf_writer_set_arr_data(e->w, "tokenizer.ggml.merges", GGUF_TYPE_INT32,
                             array_copy(e, "tokenizer.ggml.token_type", 512), 512);
}
static void bpe_merges_str(struct model_edit *e) {
    bpe_vocab(e);
    gguf_writer_set_str(e->w, "tokenizer.ggml.merges", "h e");
}
static void bpe_merges_empty(struct model_edit *e) {
    bpe_vocab(e);
    static const struct gguf_str none[1] = {{"", 0}};
    gguf_writer_set_arr_str(e->w, "tokenizer.ggml.merges", none, 0);
}
static void bpe_merge_no_space(struct model_edit *e) {
    bpe_vocab(e);
    static const struct gguf_str merges[] = {{"h e", 3}, {"he", 2}};
    gguf_writer_set_arr_str(e->w, "tokenizer.ggml.merges", merges, 2);
}
static void bpe_no_merges(struct model_edit *e) {
    gguf_writer_set_str(e->w, "tokenizer.ggml.model", "gpt2");
}
static void bpe_pre_unknown(struct model_edit *e) {
    bpe_vocab(e);
    gguf_writer_set_str(e->w, "tokenizer.ggml.pre", "klingon");
}
static void bpe_pre_u32(struct model_edit *e) {
    bpe_vocab(e);
    gguf_writer_set_u32(e->w, "tokenizer.ggml.pre", 2);
}

/* ---- tensor edits ---- */

static void attn_k_square(struct model_edit *e) {
    model_edit_reshape(e, "blk.0.attn_k.weight", VNPU_TYPE_F32, 2, (int64_t[]){64, 64});
}
static void output_511_rows(struct model_edit *e) {
    model_edit_reshape(e, "output.weight", VNPU_TYPE_F32, 2, (int64_t[]){64, 511});
}
static void token_embd_3d(struct model_edit *e) {
    model_edit_reshape(e, "token_embd.weight", VNPU_TYPE_F32, 3, (int64_t[]){64, 256, 2});
}
static void output_norm_32(struct model_edit *e) {
    model_edit_reshape(e, "output_norm.weight", VNPU_TYPE_F32, 1, (int64_t[]){32});
}
static void rope_freqs_3(struct model_edit *e) {
    float *freqs = model_edit_reshape(e, "rope_freqs.weight", VNPU_TYPE_F32, 1, (int64_t[]){3});
    freqs[0] = freqs[1] = freqs[2] = 1.0f;
}
/* A norm in F16, its values those of the F32 original. */
static void norm_f16(struct model_edit *e, const char *name, int64_t n) {
    const float *src = model_edit_tensor(e, name)->data;
    vnpu_f32_to_fp16_row(src, model_edit_reshape(e, name, VNPU_TYPE_F16, 1, &n), n);
}
static void attn_norm_f16(struct model_edit *e) {
    norm_f16(e, "blk.0.attn_norm.weight", 64);
}
static void tiny_output_norm_f16(struct model_edit *e) {
    norm_f16(e, "output_norm.weight", 8);
}
static void extra_tensor(struct model_edit *e) {
    model_edit_reshape(e, "blk.0.attn_bogus.weight", VNPU_TYPE_F32, 1, (int64_t[]){64});
}
static void extra_layer(struct model_edit *e) {
    model_edit_reshape(e, "blk.5.attn_norm.weight", VNPU_TYPE_F32, 1, (int64_t[]){64});
}
static void attn_q_i32(struct model_edit *e) {
    model_edit_reshape(e, "blk.0.attn_q.weight", VNPU_TYPE_I32, 2, (int64_t[]){64, 64});
}
/* With llama.feed_forward_length 256 every FFN tensor is resized (zeros), and blk.0.ffn_down, [256, 64], is
 * IQ2_XXS: one 66-byte block per row (GGML's block_iq2_xxs: fp16 d, then 32 u16 of grid indices, signs and
 * scale; every bit pattern decodes), d = 1/64. */
static void ffn_down_iq2_xxs(struct model_edit *e) {
    for (int il = 0; il < 5; il++) {
        char name[GGUF_MAX_NAME];
        snprintf(name, sizeof(name), "blk.%d.ffn_gate.weight", il);
        model_edit_reshape(e, name, VNPU_TYPE_F32, 2, (int64_t[]){64, 256});
        snprintf(name, sizeof(name), "blk.%d.ffn_up.weight", il);
        model_edit_reshape(e, name, VNPU_TYPE_F32, 2, (int64_t[]){64, 256});
        snprintf(name, sizeof(name), "blk.%d.ffn_down.weight", il);
        if (il > 0) {
            model_edit_reshape(e, name, VNPU_TYPE_F32, 2, (int64_t[]){256, 64});
            continue;
        }
        uint8_t *blocks = model_edit_reshape(e, name, VNPU_TYPE_IQ2_XXS, 2, (int64_t[]){256, 64});
        const vnpu_fp16_t d = vnpu_f32_to_fp16(1.0f / 64);
        for (size_t row = 0; row < 64; row++) {
            uint8_t *b = blocks + 66 * row;
            memcpy(b, &d, sizeof(d));
            for (size_t k = 2; k < 66; k++) {
                b[k] = (uint8_t) (row * 31 + k * 7);
            }
        }
    }
}
static void tiny_token_embd_31999(struct model_edit *e) {
    model_edit_reshape(e, "token_embd.weight", VNPU_TYPE_F16, 2, (int64_t[]){8, 31999});
}

/* ---- architecture edits ---- */

/* A vector name of n F32 elements, valued 0.01 k for element k (added when absent). */
static void vector_set(struct model_edit *e, const char *name, int64_t n) {
    float *v = model_edit_reshape(e, name, VNPU_TYPE_F32, 1, &n);
    for (int64_t k = 0; k < n; k++) {
        v[k] = 0.01f * (float) k;
    }
}
static void qwen2_attn_k_bias_64(struct model_edit *e) {
    vector_set(e, "blk.0.attn_k.bias", 64); /* n_embd_head * n_head_kv = 32 */
}
static void qwen2_attn_q_bias_f16(struct model_edit *e) {
    norm_f16(e, "blk.1.attn_q.bias", 64);
}
static void qwen2_output_bias_31999(struct model_edit *e) {
    vector_set(e, "output.bias", 31999);
}
static void qwen2_attn_q_norm(struct model_edit *e) {
    vector_set(e, "blk.0.attn_q_norm.weight", 16);
}
static void qwen2_rope_freqs(struct model_edit *e) {
    vector_set(e, "rope_freqs.weight", 8);
}
static void qwen2_attn_qkv(struct model_edit *e) {
    model_edit_reshape(e, "blk.0.attn_qkv.weight", VNPU_TYPE_F32, 2, (int64_t[]){64, 128});
}
static void qwen3_attn_q_norm_16(struct model_edit *e) {
    vector_set(e, "blk.0.attn_q_norm.weight", 16); /* n_embd_head 32 */
}
static void qwen3_attn_output_bias(struct model_edit *e) {
    vector_set(e, "blk.0.attn_output.bias", 64);
}
static void qwen3_attn_q_square(struct model_edit *e) {
    model_edit_reshape(e, "blk.0.attn_q.weight", VNPU_TYPE_F32, 2, (int64_t[]){64, 64});
}
static void llama3_rope_freqs_16(struct model_edit *e) {
    vector_set(e, "rope_freqs.weight", 16); /* n_rot / 2 = 8 */
}
static void llama3_rope_freqs_f16(struct model_edit *e) {
    norm_f16(e, "rope_freqs.weight", 8);
}
static void llama3_ffn_up_bias_64(struct model_edit *e) {
    vector_set(e, "blk.0.ffn_up.bias", 64); /* n_ff = 128 */
}

/* ---- valid edits ---- */

/* Unknown keys of every value type: scalars, arrays of each element type, an empty array. */
static void extra_keys(struct model_edit *e) {
    static const uint8_t bytes[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    static const uint8_t bools[3] = {1, 0, 1};
    gguf_writer_set_u8(e->w, "vnpu.extra.u8", 200);
    gguf_writer_set_i8(e->w, "vnpu.extra.i8", -100);
    gguf_writer_set_u16(e->w, "vnpu.extra.u16", 60000);
    gguf_writer_set_i16(e->w, "vnpu.extra.i16", -30000);
    gguf_writer_set_u32(e->w, "vnpu.extra.u32", 4000000000u);
    gguf_writer_set_i32(e->w, "vnpu.extra.i32", -2000000000);
    gguf_writer_set_f32(e->w, "vnpu.extra.f32", 1.5f);
    gguf_writer_set_u64(e->w, "vnpu.extra.u64", UINT64_MAX);
    gguf_writer_set_i64(e->w, "vnpu.extra.i64", INT64_MIN);
    gguf_writer_set_f64(e->w, "vnpu.extra.f64", -0.25);
    gguf_writer_set_bool(e->w, "vnpu.extra.bool", true);
    gguf_writer_set_str(e->w, "vnpu.extra.str", "text");
    for (int type = 0; type < GGUF_TYPE_COUNT; type++) {
        const size_t size = gguf_type_size((enum gguf_type) type);
        if (size > 0) {
            char key[64];
            snprintf(key, sizeof(key), "vnpu.extra.arr.%s", gguf_type_name((enum gguf_type) type));
            gguf_writer_set_arr_data(e->w, key, (enum gguf_type) type, type == GGUF_TYPE_BOOL ? bools : bytes,
                                     type == GGUF_TYPE_BOOL ? 3 : sizeof(bytes) / size);
        }
    }
    const struct gguf_str strs[2] = {{.data = "one", .len = 3}, {.data = "two", .len = 3}};
    gguf_writer_set_arr_str(e->w, "vnpu.extra.arr.str", strs, 2);
    gguf_writer_set_arr_data(e->w, "vnpu.extra.arr.empty", GGUF_TYPE_INT32, bytes, 0);
}
/* Every optional bias llama.cpp's llama accepts (Q, K, V, attn_output, the feed-forward's three), valued so that they
 * change the generated tokens: each layer's element k of a bias of n is 0.05 sin(k + il). */
static void llama_biases(struct model_edit *e) {
    static const struct {
        const char *name;
        int64_t n;
    } biases[] = {{"attn_q.bias", 64},    {"attn_k.bias", 32},  {"attn_v.bias", 32},  {"attn_output.bias", 64},
                  {"ffn_gate.bias", 172}, {"ffn_up.bias", 172}, {"ffn_down.bias", 64}};
    for (int il = 0; il < 5; il++) {
        for (size_t b = 0; b < sizeof(biases) / sizeof(biases[0]); b++) {
            char name[GGUF_MAX_NAME];
            snprintf(name, sizeof(name), "blk.%d.%s", il, biases[b].name);
            float *v = model_edit_reshape(e, name, VNPU_TYPE_F32, 1, &biases[b].n);
            for (int64_t k = 0; k < biases[b].n; k++) {
                v[k] = 0.05f * sinf((float) (k + il));
            }
        }
    }
}
/* Qwen 2 without its Q, K and V biases (llama.cpp's create_tensor_qkv does not require them). */
static void qwen2_no_qkv_bias(struct model_edit *e) {
    int n = 0;
    for (int i = 0; i < e->n_tensors; i++) {
        const char *name = e->tensors[i].name;
        const size_t len = strlen(name);
        const bool qkv_bias = len > 12 && strcmp(name + len - 5, ".bias") == 0 && strstr(name, ".attn_");
        if (!qkv_bias) {
            e->tensors[n++] = e->tensors[i];
        }
    }
    VNPU_ASSERT(n == e->n_tensors - 6); /* 2 layers x 3 */
    e->n_tensors = n;
}
static void empty_strings(struct model_edit *e) {
    const struct gguf_str strs[3] = {{.data = "", .len = 0}, {.data = "x", .len = 1}, {.data = "", .len = 0}};
    gguf_writer_set_str(e->w, "general.name", "");
    gguf_writer_set_str(e->w, "vnpu.extra.empty", "");
    gguf_writer_set_arr_str(e->w, "vnpu.extra.empty_elements", strs, 3);
}

/* clang-format off */
#define KV(key_, type_, ...) {.key = key_, .type = GGUF_TYPE_##type_, __VA_ARGS__}
static const struct model_case malformed[] = {
    /* hparams: present */
    {.name = "model-no-context-length", .what = "llama.context_length missing", .base = STORIES,
     .omit = {"llama.context_length"}, .message = "missing key llama.context_length"},
    {.name = "model-no-embedding-length", .what = "llama.embedding_length missing", .base = STORIES,
     .omit = {"llama.embedding_length"}, .message = "missing key llama.embedding_length"},
    {.name = "model-no-block-count", .what = "llama.block_count missing", .base = STORIES,
     .omit = {"llama.block_count"}, .message = "missing key llama.block_count"},
    {.name = "model-no-feed-forward-length", .what = "llama.feed_forward_length missing", .base = STORIES,
     .omit = {"llama.feed_forward_length"}, .message = "missing key llama.feed_forward_length"},
    {.name = "model-no-head-count", .what = "llama.attention.head_count missing", .base = STORIES,
     .omit = {"llama.attention.head_count"}, .message = "missing key llama.attention.head_count"},
    {.name = "model-no-rms-eps", .what = "llama.attention.layer_norm_rms_epsilon missing", .base = STORIES,
     .omit = {"llama.attention.layer_norm_rms_epsilon"},
     .message = "missing key llama.attention.layer_norm_rms_epsilon"},
    /* hparams: typed */
    {.name = "model-block-count-str", .what = "llama.block_count a string", .base = STORIES,
     .set = KV("llama.block_count", STRING, .s = "5"),
     .message = "key llama.block_count has type str, expected an integer"},
    {.name = "model-embedding-length-f32", .what = "llama.embedding_length an f32", .base = STORIES,
     .set = KV("llama.embedding_length", FLOAT32, .f = 64),
     .message = "key llama.embedding_length has type f32, expected an integer"},
    {.name = "model-head-count-bool", .what = "llama.attention.head_count a bool", .base = STORIES,
     .set = KV("llama.attention.head_count", BOOL, .i = 1),
     .message = "key llama.attention.head_count has type bool, expected an integer"},
    {.name = "model-rms-eps-u32", .what = "the f32 epsilon an integer", .base = STORIES,
     .set = KV("llama.attention.layer_norm_rms_epsilon", UINT32, .i = 0),
     .message = "key llama.attention.layer_norm_rms_epsilon has type u32, expected f32"},
    {.name = "model-freq-base-str", .what = "llama.rope.freq_base a string", .base = STORIES,
     .set = KV("llama.rope.freq_base", STRING, .s = "10000"),
     .message = "key llama.rope.freq_base has type str, expected f32"},
    {.name = "model-rope-scaling-type-u32", .what = "llama.rope.scaling.type an integer", .base = STORIES,
     .set = KV("llama.rope.scaling.type", UINT32, .i = 1),
     .message = "key llama.rope.scaling.type has type u32, expected str"},
    /* hparams: in range */
    {.name = "model-block-count-0", .what = "no layers", .base = STORIES,
     .set = KV("llama.block_count", UINT32, .i = 0),
     .message = "key llama.block_count = 0 is out of range [1, 512]"},
    {.name = "model-block-count-u32-max", .what = "2^32 - 1 layers", .base = STORIES,
     .set = KV("llama.block_count", UINT32, .i = UINT32_MAX),
     .message = "key llama.block_count = 4294967295 is out of range [1, 512]"},
    {.name = "model-block-count-u64-max", .what = "2^64 - 1 layers, past int64", .base = STORIES,
     .set = KV("llama.block_count", UINT64, .i = -1),
     .message = "key llama.block_count = 18446744073709551615 is out of range [1, 512]"},
    {.name = "model-block-count-negative", .what = "-1 layers", .base = STORIES,
     .set = KV("llama.block_count", INT32, .i = -1), .message = "key llama.block_count = -1 is out of range [1, 512]"},
    {.name = "model-block-count-6", .what = "one layer more than the tensors hold", .base = STORIES,
     .set = KV("llama.block_count", UINT32, .i = 6),
     .message = "missing tensor blk.5.attn_norm.weight (llama.block_count is 6: layers 0..5"},
    {.name = "model-context-length-0", .what = "llama.context_length 0", .base = STORIES,
     .set = KV("llama.context_length", UINT32, .i = 0),
     .message = "key llama.context_length = 0 is out of range [1, 16777216]"},
    {.name = "model-embedding-length-0", .what = "llama.embedding_length 0", .base = STORIES,
     .set = KV("llama.embedding_length", UINT32, .i = 0),
     .message = "key llama.embedding_length = 0 is out of range [1, 1048576]"},
    {.name = "model-feed-forward-length-0", .what = "llama.feed_forward_length 0", .base = STORIES,
     .set = KV("llama.feed_forward_length", UINT32, .i = 0),
     .message = "key llama.feed_forward_length = 0 is out of range [1, 4194304]"},
    {.name = "model-head-count-0", .what = "no attention heads", .base = STORIES,
     .set = KV("llama.attention.head_count", UINT32, .i = 0),
     .message = "key llama.attention.head_count = 0 is out of range [1, 65536]"},
    {.name = "model-head-count-kv-0", .what = "no KV heads", .base = STORIES,
     .set = KV("llama.attention.head_count_kv", UINT32, .i = 0),
     .message = "key llama.attention.head_count_kv = 0 is out of range [1, 8]"},
    {.name = "model-head-count-kv-16", .what = "more KV heads than heads", .base = STORIES,
     .set = KV("llama.attention.head_count_kv", UINT32, .i = 16),
     .message = "key llama.attention.head_count_kv = 16 is out of range [1, 8]"},
    {.name = "model-head-count-kv-3", .what = "KV heads not dividing the heads", .base = STORIES,
     .set = KV("llama.attention.head_count_kv", UINT32, .i = 3),
     .message = "llama.attention.head_count 8 is not a multiple of llama.attention.head_count_kv 3"},
    {.name = "model-head-count-6", .what = "embedding_length not a multiple of head_count", .base = STORIES,
     .set = KV("llama.attention.head_count", UINT32, .i = 6),
     .message = "llama.embedding_length 64 is not a multiple of llama.attention.head_count 6"},
    {.name = "model-rope-dims-odd", .what = "an odd rope dimension count", .base = STORIES,
     .set = KV("llama.rope.dimension_count", UINT32, .i = 7),
     .message = "llama.rope.dimension_count 7 is odd"},
    {.name = "model-rope-dims-16", .what = "rope dimensions past the head dimension", .base = STORIES,
     .set = KV("llama.rope.dimension_count", UINT32, .i = 16),
     .message = "key llama.rope.dimension_count = 16 is out of range [2, 8]"},
    {.name = "model-value-length-16", .what = "value heads longer than key heads", .base = STORIES,
     .set = KV("llama.attention.value_length", UINT32, .i = 16),
     .message = "llama.attention.value_length 16 differs from key_length 8"},
    {.name = "model-rms-eps-negative", .what = "a negative epsilon", .base = STORIES,
     .set = KV("llama.attention.layer_norm_rms_epsilon", FLOAT32, .f = -1e-5),
     .message = "key llama.attention.layer_norm_rms_epsilon = -1e-05 is out of range [0, 1]"},
    {.name = "model-rms-eps-nan", .what = "a NaN epsilon", .base = STORIES,
     .set = KV("llama.attention.layer_norm_rms_epsilon", FLOAT32, .f = NAN),
     .message = "key llama.attention.layer_norm_rms_epsilon = nan is out of range [0, 1]"},
    {.name = "model-freq-base-0", .what = "rope base 0", .base = STORIES,
     .set = KV("llama.rope.freq_base", FLOAT32, .f = 0),
     .message = "key llama.rope.freq_base = 0 is out of range [1, 1e+12]"},
    {.name = "model-rope-scaling-yarn", .what = "a rope scaling vnpu does not implement", .base = STORIES,
     .set = KV("llama.rope.scaling.type", STRING, .s = "yarn"),
     .message = "llama.rope.scaling.type 'yarn' is not supported (none, linear)"},
    {.name = "model-expert-count-8", .what = "a mixture of experts", .base = STORIES,
     .set = KV("llama.expert_count", UINT32, .i = 8),
     .message = "llama.expert_count 8: mixture-of-experts llama models are not supported"},
    /* tokenizer */
    {.name = "model-no-tokenizer-model", .what = "tokenizer.ggml.model missing", .base = STORIES,
     .omit = {"tokenizer.ggml.model"}, .message = "missing key tokenizer.ggml.model"},
    {.name = "model-tokenizer-unknown", .what = "a tokenizer nobody knows", .base = STORIES,
     .set = KV("tokenizer.ggml.model", STRING, .s = "no-such-tokenizer"),
     .message = "tokenizer.ggml.model is 'no-such-tokenizer'; vnpu supports 'llama' (SPM) and 'gpt2' (BPE)"},
    {.name = "model-bpe-no-merges", .what = "a BPE tokenizer without merges", .base = STORIES, .edit = bpe_no_merges,
     .message = "missing key tokenizer.ggml.merges (a BPE vocabulary needs its merges)"},
    {.name = "model-bpe-merges-i32", .what = "BPE merges an array of i32", .base = STORIES, .edit = bpe_merges_i32,
     .message = "tokenizer.ggml.merges is an array of i32, expected an array of str"},
    {.name = "model-bpe-merges-str", .what = "BPE merges a string", .base = STORIES, .edit = bpe_merges_str,
     .message = "tokenizer.ggml.merges has type str, expected arr"},
    {.name = "model-bpe-merges-empty", .what = "no BPE merge (a count out of 1..INT32_MAX)", .base = STORIES,
     .edit = bpe_merges_empty, .message = "tokenizer.ggml.merges has 0 elements, expected 1..2147483647"},
    {.name = "model-bpe-merge-no-space", .what = "a BPE merge that is not two parts", .base = STORIES,
     .edit = bpe_merge_no_space,
     .message = "tokenizer.ggml.merges[1] 'he' is not two parts split by a space (\"left right\")"},
    {.name = "model-bpe-pre-unknown", .what = "a BPE pre-tokenizer vnpu does not know", .base = STORIES,
     .edit = bpe_pre_unknown,
     .message = "tokenizer.ggml.pre is 'klingon', a pre-tokenizer vnpu does not know (it knows default, llama3, "},
    {.name = "model-bpe-pre-u32", .what = "tokenizer.ggml.pre an integer", .base = STORIES, .edit = bpe_pre_u32,
     .message = "tokenizer.ggml.pre has type u32, expected str"},
    {.name = "model-tokenizer-u32", .what = "tokenizer.ggml.model an integer", .base = STORIES,
     .set = KV("tokenizer.ggml.model", UINT32, .i = 1), .message = "tokenizer.ggml.model has type u32, expected str"},
    {.name = "model-no-tokens", .what = "tokenizer.ggml.tokens missing", .base = STORIES,
     .omit = {"tokenizer.ggml.tokens"}, .message = "missing key tokenizer.ggml.tokens"},
    {.name = "model-tokens-str", .what = "tokenizer.ggml.tokens a string", .base = STORIES,
     .set = KV("tokenizer.ggml.tokens", STRING, .s = "<unk>"),
     .message = "tokenizer.ggml.tokens has type str, expected arr"},
    {.name = "model-tokens-i32", .what = "tokenizer.ggml.tokens an array of i32", .base = STORIES, .edit = tokens_i32,
     .message = "tokenizer.ggml.tokens is an array of i32, expected an array of str"},
    {.name = "model-tokens-empty", .what = "no tokens", .base = STORIES, .edit = tokens_empty,
     .message = "tokenizer.ggml.tokens has 0 elements, expected 1..2147483647"},
    {.name = "model-scores-i32", .what = "tokenizer.ggml.scores an array of i32", .base = STORIES, .edit = scores_i32,
     .message = "tokenizer.ggml.scores is an array of i32, expected an array of f32"},
    {.name = "model-token-type-u32", .what = "tokenizer.ggml.token_type an array of u32", .base = STORIES,
     .edit = token_type_u32, .message = "tokenizer.ggml.token_type is an array of u32, expected an array of i32"},
    {.name = "model-scores-511", .what = "one score fewer than tokens", .base = STORIES, .edit = scores_511,
     .message = "tokenizer.ggml.scores has 511 elements, expected 512"},
    {.name = "model-token-type-513", .what = "one token type more than tokens", .base = STORIES,
     .edit = token_type_513, .message = "tokenizer.ggml.token_type has 513 elements, expected 512"},
    {.name = "model-vocab-511", .what = "a vocabulary one token short of token_embd's rows", .base = STORIES,
     .edit = vocab_511, .message = "tokenizer.ggml.tokens has 511 entries but token_embd.weight has 512 rows"},
    {.name = "model-bos-512", .what = "BOS id past the vocabulary", .base = STORIES,
     .set = KV("tokenizer.ggml.bos_token_id", UINT32, .i = 512),
     .message = "tokenizer.ggml.bos_token_id = 512, expected 0..511 or 0xFFFFFFFF (none)"},
    {.name = "model-eos-100000", .what = "EOS id far past the vocabulary", .base = STORIES,
     .set = KV("tokenizer.ggml.eos_token_id", UINT32, .i = 100000),
     .message = "tokenizer.ggml.eos_token_id = 100000, expected 0..511 or 0xFFFFFFFF (none)"},
    {.name = "model-unk-negative", .what = "a negative unknown-token id", .base = STORIES,
     .set = KV("tokenizer.ggml.unknown_token_id", INT32, .i = -2),
     .message = "tokenizer.ggml.unknown_token_id = -2, expected 0..511 or 0xFFFFFFFF (none)"},
    {.name = "model-eos-u64-max", .what = "EOS id 2^64 - 1, past int64", .base = STORIES,
     .set = KV("tokenizer.ggml.eos_token_id", UINT64, .i = -1),
     .message = "tokenizer.ggml.eos_token_id = 18446744073709551615, expected 0..511 or 0xFFFFFFFF (none)"},
    {.name = "model-bos-str", .what = "BOS id a string", .base = STORIES,
     .set = KV("tokenizer.ggml.bos_token_id", STRING, .s = "1"),
     .message = "tokenizer.ggml.bos_token_id has type str, expected an integer"},
    {.name = "model-add-bos-without-bos", .what = "add_bos_token with no BOS token", .base = STORIES,
     .set = KV("tokenizer.ggml.bos_token_id", UINT32, .i = UINT32_MAX),
     .message = "tokenizer.ggml.add_bos_token is true but tokenizer.ggml.bos_token_id names no token"},
    {.name = "model-add-bos-u8", .what = "add_bos_token a u8", .base = STORIES,
     .set = KV("tokenizer.ggml.add_bos_token", UINT8, .i = 1),
     .message = "tokenizer.ggml.add_bos_token has type u8, expected bool"},
    {.name = "model-byte-token-zz", .what = "a BYTE token <0xZZ>", .base = STORIES, .edit = byte_token_zz,
     .message = "tokenizer.ggml.tokens[3] '<0xZZ>' has token_type BYTE but is not spelled <0xXX>"},
    {.name = "model-byte-token-100", .what = "a BYTE token <0x100>", .base = STORIES, .edit = byte_token_100,
     .message = "tokenizer.ggml.tokens[3] '<0x100>' has token_type BYTE but is not spelled <0xXX>"},
    {.name = "model-token-duplicate", .what = "a token text twice", .base = STORIES, .edit = token_duplicate,
     .message = "tokenizer.ggml.tokens: token 301 '<s>' repeats token 1"},
    {.name = "model-score-nan", .what = "a NaN score", .base = STORIES, .edit = score_nan,
     .message = "tokenizer.ggml.scores[5] is NaN"},
    {.name = "model-token-type-7", .what = "a token type past BYTE", .base = STORIES, .edit = token_type_7,
     .message = "tokenizer.ggml.token_type[5] = 7, expected 0..6"},
    {.name = "model-32k-eos-32000", .what = "EOS id one past a 32000-token vocabulary", .base = TINY,
     .set = KV("tokenizer.ggml.eos_token_id", UINT32, .i = 32000),
     .message = "tokenizer.ggml.eos_token_id = 32000, expected 0..31999 or 0xFFFFFFFF (none)"},
    {.name = "model-32k-byte-token-1g", .what = "a BYTE token <0x1G> in a 32000-token vocabulary", .base = TINY,
     .edit = tiny_byte_token_1g, .message = "tokenizer.ggml.tokens[20] '<0x1G>' has token_type BYTE"},
    {.name = "model-32k-token-embd-31999", .what = "token_embd one row short of 32000 tokens", .base = TINY,
     .edit = tiny_token_embd_31999,
     .message = "tokenizer.ggml.tokens has 32000 entries but token_embd.weight has 31999 rows"},
    /* tensors */
    {.name = "model-no-token-embd", .what = "token_embd missing", .base = STORIES, .omit = {"token_embd.weight"},
     .message = "missing tensor token_embd.weight"},
    {.name = "model-no-output-norm", .what = "output_norm missing", .base = STORIES, .omit = {"output_norm.weight"},
     .message = "missing tensor output_norm.weight"},
    {.name = "model-no-attn-q", .what = "a layer's attn_q missing", .base = STORIES, .omit = {"blk.0.attn_q.weight"},
     .message = "missing tensor blk.0.attn_q.weight (llama.block_count is 5"},
    {.name = "model-no-ffn-down", .what = "a layer's ffn_down missing", .base = STORIES,
     .omit = {"blk.2.ffn_down.weight"}, .message = "missing tensor blk.2.ffn_down.weight (llama.block_count is 5"},
    {.name = "model-no-layer-4", .what = "the last layer's tensors missing", .base = STORIES, .omit = {"blk.4."},
     .message = "missing tensor blk.4.attn_norm.weight (llama.block_count is 5: layers 0..4"},
    {.name = "model-attn-k-shape", .what = "attn_k with n_head rows instead of n_head_kv", .base = STORIES,
     .edit = attn_k_square, .message = "tensor blk.0.attn_k.weight has shape [64, 64, 1, 1], expected [64, 32]"},
    {.name = "model-output-shape", .what = "output one row short", .base = STORIES, .edit = output_511_rows,
     .message = "tensor output.weight has shape [64, 511, 1, 1], expected [64, 512]"},
    {.name = "model-token-embd-3d", .what = "token_embd with 3 dimensions", .base = STORIES, .edit = token_embd_3d,
     .message = "tensor token_embd.weight has 3 dims [64, 256, 2, 1], expected 2: [n_embd, n_vocab]"},
    {.name = "model-output-norm-shape", .what = "output_norm half as long as n_embd", .base = STORIES,
     .edit = output_norm_32, .message = "tensor output_norm.weight has shape [32, 1, 1, 1], expected [64, 1]"},
    {.name = "model-rope-freqs-shape", .what = "rope_freqs not n_rot / 2 long", .base = STORIES, .edit = rope_freqs_3,
     .message = "tensor rope_freqs.weight has shape [3, 1, 1, 1], expected [4, 1]"},
    {.name = "model-attn-norm-f16", .what = "a norm in F16", .base = STORIES, .edit = attn_norm_f16,
     .message = "tensor blk.0.attn_norm.weight has type f16, expected f32"},
    {.name = "model-32k-output-norm-f16", .what = "output_norm in F16", .base = TINY, .edit = tiny_output_norm_f16,
     .message = "tensor output_norm.weight has type f16, expected f32"},
    {.name = "model-extra-tensor", .what = "a tensor llama does not use", .base = STORIES, .edit = extra_tensor,
     .message = "tensor blk.0.attn_bogus.weight is not part of a 5-layer llama model"},
    {.name = "model-extra-layer", .what = "a tensor of a sixth layer", .base = STORIES, .edit = extra_layer,
     .message = "tensor blk.5.attn_norm.weight is not part of a 5-layer llama model"},
    {.name = "model-attn-q-i32", .what = "a weight matrix in I32", .base = STORIES, .edit = attn_q_i32,
     .message = "tensor blk.0.attn_q.weight has type i32, which vnpu cannot compute with"},
    {.name = "model-ffn-down-iq2-xxs", .what = "a weight in IQ2_XXS, which vnpu cannot dequantize", .base = STORIES,
     .set = KV("llama.feed_forward_length", UINT32, .i = 256), .edit = ffn_down_iq2_xxs,
     .message = "tensor blk.0.ffn_down.weight has type iq2_xxs, which vnpu cannot compute with"},
    /* other architectures: qwen2 */
    {.name = "qwen2-no-context-length", .what = "qwen2.context_length missing", .base = QWEN2,
     .omit = {"qwen2.context_length"}, .message = "missing key qwen2.context_length"},
    {.name = "qwen2-block-count-0", .what = "a qwen2 model of no layers", .base = QWEN2,
     .set = KV("qwen2.block_count", UINT32, .i = 0), .message = "key qwen2.block_count = 0 is out of range [1, 512]"},
    {.name = "qwen2-head-count-kv-3", .what = "qwen2 KV heads not dividing the heads", .base = QWEN2,
     .set = KV("qwen2.attention.head_count_kv", UINT32, .i = 3),
     .message = "qwen2.attention.head_count 4 is not a multiple of qwen2.attention.head_count_kv 3"},
    {.name = "qwen2-key-length-32", .what = "qwen2 heads not spanning n_embd (its attn_q is square)", .base = QWEN2,
     .set = KV("qwen2.attention.key_length", UINT32, .i = 32),
     .message = "qwen2.attention.key_length 32 x head_count 4 is not embedding_length 64"},
    {.name = "qwen2-rope-scaling-yarn", .what = "a qwen2 rope scaling vnpu does not implement", .base = QWEN2,
     .set = KV("qwen2.rope.scaling.type", STRING, .s = "yarn"),
     .message = "qwen2.rope.scaling.type 'yarn' is not supported (none, linear)"},
    {.name = "qwen2-attn-k-bias-shape", .what = "attn_k's bias as long as attn_q's", .base = QWEN2,
     .edit = qwen2_attn_k_bias_64, .message = "tensor blk.0.attn_k.bias has shape [64, 1, 1, 1], expected [32, 1]"},
    {.name = "qwen2-attn-q-bias-f16", .what = "a bias in F16", .base = QWEN2, .edit = qwen2_attn_q_bias_f16,
     .message = "tensor blk.1.attn_q.bias has type f16, expected f32"},
    {.name = "qwen2-output-bias-shape", .what = "output.bias one short of the vocabulary", .base = QWEN2,
     .edit = qwen2_output_bias_31999, .message = "tensor output.bias has shape [31999, 1, 1, 1], expected [32000, 1]"},
    {.name = "qwen2-attn-q-norm", .what = "a qwen3 tensor in a qwen2 model", .base = QWEN2, .edit = qwen2_attn_q_norm,
     .message = "tensor blk.0.attn_q_norm.weight is not part of a 2-layer qwen2 model"},
    {.name = "qwen2-rope-freqs", .what = "Llama 3's rope_freqs in a qwen2 model", .base = QWEN2,
     .edit = qwen2_rope_freqs, .message = "tensor rope_freqs.weight is not part of a 2-layer qwen2 model"},
    {.name = "qwen2-attn-qkv", .what = "a fused Q/K/V projection", .base = QWEN2, .edit = qwen2_attn_qkv,
     .message = "tensor blk.0.attn_qkv.weight: fused Q/K/V projections are not supported"},
    /* qwen3 */
    {.name = "qwen3-no-rms-eps", .what = "qwen3.attention.layer_norm_rms_epsilon missing", .base = QWEN3,
     .omit = {"qwen3.attention.layer_norm_rms_epsilon"},
     .message = "missing key qwen3.attention.layer_norm_rms_epsilon"},
    {.name = "qwen3-key-length-0", .what = "qwen3 heads of no elements", .base = QWEN3,
     .set = KV("qwen3.attention.key_length", UINT32, .i = 0),
     .message = "key qwen3.attention.key_length = 0 is out of range [1, 65536]"},
    {.name = "qwen3-value-length-16", .what = "qwen3 value heads shorter than key heads", .base = QWEN3,
     .set = KV("qwen3.attention.value_length", UINT32, .i = 16),
     .message = "qwen3.attention.value_length 16 differs from key_length 32"},
    {.name = "qwen3-rope-dims-64", .what = "qwen3 rope dimensions past the head", .base = QWEN3,
     .set = KV("qwen3.rope.dimension_count", UINT32, .i = 64),
     .message = "key qwen3.rope.dimension_count = 64 is out of range [2, 32]"},
    {.name = "qwen3-attn-q-norm-shape", .what = "attn_q_norm half a head long", .base = QWEN3,
     .edit = qwen3_attn_q_norm_16,
     .message = "tensor blk.0.attn_q_norm.weight has shape [16, 1, 1, 1], expected [32, 1]"},
    {.name = "qwen3-no-attn-k-norm", .what = "a layer's attn_k_norm missing", .base = QWEN3,
     .omit = {"blk.1.attn_k_norm.weight"},
     .message = "missing tensor blk.1.attn_k_norm.weight (qwen3.block_count is 2: layers 0..1 each need one)"},
    {.name = "qwen3-attn-q-shape", .what = "attn_q of n_embd rows, not n_head x key_length", .base = QWEN3,
     .edit = qwen3_attn_q_square, .message = "tensor blk.0.attn_q.weight has shape [64, 64, 1, 1], expected [64, 128]"},
    {.name = "qwen3-attn-output-bias", .what = "llama's attn_output bias in a qwen3 model", .base = QWEN3,
     .edit = qwen3_attn_output_bias, .message = "tensor blk.0.attn_output.bias is not part of a 2-layer qwen3 model"},
    /* Llama 3 */
    {.name = "llama3-rope-freqs-shape", .what = "rope_freqs a factor per dimension, not per pair", .base = LLAMA3,
     .edit = llama3_rope_freqs_16, .message = "tensor rope_freqs.weight has shape [16, 1, 1, 1], expected [8, 1]"},
    {.name = "llama3-rope-freqs-f16", .what = "rope_freqs in F16", .base = LLAMA3, .edit = llama3_rope_freqs_f16,
     .message = "tensor rope_freqs.weight has type f16, expected f32"},
    {.name = "llama3-rope-scaling-llama3", .what = "llama3 scaling as a key (converters write rope_freqs)",
     .base = LLAMA3, .set = KV("llama.rope.scaling.type", STRING, .s = "llama3"),
     .message = "llama.rope.scaling.type 'llama3' is not supported (none, linear)"},
    {.name = "llama3-ffn-up-bias-shape", .what = "ffn_up's bias n_embd long, not n_ff", .base = LLAMA3,
     .edit = llama3_ffn_up_bias_64, .message = "tensor blk.0.ffn_up.bias has shape [64, 1, 1, 1], expected [128, 1]"},
    /* the file itself */
    {.name = "model-cut-last-byte", .what = "the model one byte short", .base = STORIES, .cut = 1,
     .message = "tensor 47 'blk.4.ffn_norm.weight': data at offset 1170944, 256 bytes, past the end of the data"},
    {.name = "model-cut-data", .what = "the model cut inside token_embd", .base = STORIES, .cut = 1100000,
     .message = "tensor 0 'token_embd.weight': data at offset 0, 131072 bytes, past the end of the data"},
};

static const struct model_case valid[] = {
    {.name = "ok-model-copy", .what = "the base copied by the writer", .base = STORIES, .same_tokens = true},
    {.name = "ok-model-v2", .what = "GGUF v2", .base = STORIES, .version = 2, .same_tokens = true},
    {.name = "ok-model-alignment-64", .what = "general.alignment 64", .base = STORIES,
     .set = KV("general.alignment", UINT32, .i = 64), .same_tokens = true},
    {.name = "ok-model-reversed", .what = "kvs and tensors in reverse order", .base = STORIES, .reverse = true,
     .same_tokens = true},
    {.name = "ok-model-extra-keys", .what = "unknown keys of every value type", .base = STORIES, .edit = extra_keys,
     .same_tokens = true},
    {.name = "ok-model-empty-strings", .what = "empty string values and elements, general.name empty", .base = STORIES,
     .edit = empty_strings, .same_tokens = true},
    {.name = "ok-model-no-special-ids", .what = "unk/bos/eos/separator ids absent: the SPM defaults are the same",
     .base = STORIES, .omit = {"tokenizer.ggml.unknown_token_id", "tokenizer.ggml.bos_token_id",
                               "tokenizer.ggml.eos_token_id", "tokenizer.ggml.seperator_token_id"},
     .same_tokens = true},
    {.name = "ok-model-no-rope-dims", .what = "llama.rope.dimension_count absent: the head dimension", .base = STORIES,
     .omit = {"llama.rope.dimension_count"}, .same_tokens = true},
    {.name = "ok-model-32k-unusual", .what = "32000 tokens, GGUF v2, alignment 64, reversed, default head_count_kv",
     .base = TINY, .omit = {"llama.attention.head_count_kv", "llama.rope.dimension_count"}, .reverse = true,
     .set = KV("general.alignment", UINT32, .i = 64), .version = 2, .same_tokens = true},
    /* stories260K comes from llama2.c, which ties the embeddings: its output.weight is a copy of token_embd */
    {.name = "ok-model-tied-output", .what = "no output.weight: token_embd is the output", .base = STORIES,
     .omit = {"output.weight"}, .same_tokens = true},
    {.name = "ok-model-no-scores", .what = "no tokenizer.ggml.scores: llama.cpp's default 0", .base = STORIES,
     .omit = {"tokenizer.ggml.scores"}},
    {.name = "ok-model-no-token-type", .what = "no tokenizer.ggml.token_type: llama.cpp's default NORMAL",
     .base = STORIES, .omit = {"tokenizer.ggml.token_type"}},
    {.name = "ok-model-llama-biases", .what = "every optional bias of llama.cpp's llama", .base = STORIES,
     .edit = llama_biases},
    /* F32, as the oracle's comparison needs: vnpu's CPU path does not quantize activations, llama.cpp's does */
    {.name = "ok-qwen2-no-qkv-bias", .what = "qwen2 without its Q, K, V biases (optional in llama.cpp)",
     .base = QWEN2_F32, .edit = qwen2_no_qkv_bias},
    {.name = "ok-model-bpe", .what = "the vocabulary as a BPE one (gpt2, GPT-2's pre-tokenizer, merges)",
     .base = STORIES, .edit = bpe_vocab},
};
#undef KV
/* clang-format on */

const struct model_case *model_cases_malformed(size_t *n) {
    *n = sizeof(malformed) / sizeof(malformed[0]);
    return malformed;
}

const struct model_case *model_cases_valid(size_t *n) {
    *n = sizeof(valid) / sizeof(valid[0]);
    return valid;
}

/* ---- writing ---- */

static bool omitted(const struct model_case *c, const char *name, size_t len) {
    for (int k = 0; k < MODEL_CASE_MAX_OMIT && c->omit[k]; k++) {
        const size_t n = strlen(c->omit[k]);
        const bool prefix = c->omit[k][n - 1] == '.';
        if ((prefix ? len >= n : len == n) && memcmp(name, c->omit[k], n) == 0) {
            return true;
        }
    }
    return false;
}

/* The written file's header version patched, its end cut. */
static enum vnpu_status finish_file(const struct model_case *c, const char *path) {
    FILE *fp = fopen(path, "r+b");
    long size = -1;
    bool ok = fp && fseek(fp, 0, SEEK_END) == 0 && (size = ftell(fp)) >= 24;
    if (ok && c->version) {
        const uint8_t v[4] = {(uint8_t) c->version, (uint8_t) (c->version >> 8), (uint8_t) (c->version >> 16),
                              (uint8_t) (c->version >> 24)};
        ok = fseek(fp, 4, SEEK_SET) == 0 && fwrite(v, 1, 4, fp) == 4;
    }
    ok = fp && fclose(fp) == 0 && ok;
    if (ok && c->cut) {
        ok = (size_t) size > c->cut && truncate(path, size - (long) c->cut) == 0;
    }
    if (!ok) {
        vnpu_log_error("%s: cannot patch the version or cut %zu bytes", path, c->cut);
        return VNPU_STATUS_IO;
    }
    return VNPU_STATUS_OK;
}

enum vnpu_status model_case_write(const struct model_case *c, const char *base_path, const char *path) {
    struct gguf_file *base = NULL;
    enum vnpu_status st = gguf_open(base_path, &base);
    if (st != VNPU_STATUS_OK) {
        return st;
    }
    struct model_edit *e = calloc(1, sizeof(*e));
    VNPU_ASSERT(e);
    e->base = base;
    e->w = gguf_writer_new();
    VNPU_ASSERT(e->w);
    const int64_t n_kv = gguf_n_kv(base), n_tensors = gguf_n_tensors(base);
    for (int64_t k = 0; k < n_kv; k++) {
        const int64_t i = c->reverse ? n_kv - 1 - k : k;
        const struct gguf_str key = gguf_kv_key(base, i);
        if (!omitted(c, key.data, (size_t) key.len)) {
            gguf_writer_copy_kv(e->w, base, i);
        }
    }
    for (int64_t k = 0; k < n_tensors; k++) {
        const struct gguf_tensor_info *t = gguf_tensor(base, c->reverse ? n_tensors - 1 - k : k);
        if (!omitted(c, t->name, strlen(t->name))) {
            VNPU_ASSERT(e->n_tensors < MODEL_CASE_MAX_TENSORS);
            struct model_tensor *m = &e->tensors[e->n_tensors++];
            memcpy(m->name, t->name, sizeof(m->name));
            m->type = t->type;
            m->n_dims = t->n_dims;
            memcpy(m->ne, t->ne, sizeof(m->ne));
            m->data = t->data;
        }
    }
    if (c->set.key) {
        kv_set(e->w, &c->set);
    }
    if (c->edit) {
        c->edit(e);
    }
    for (int i = 0; i < e->n_tensors; i++) {
        const struct model_tensor *m = &e->tensors[i];
        gguf_writer_add_tensor(e->w, m->name, m->type, m->n_dims, m->ne, m->data);
    }
    st = gguf_writer_write(e->w, path);
    gguf_writer_free(e->w);
    for (int i = 0; i < e->n_owned; i++) {
        free(e->owned[i]);
    }
    free(e);
    gguf_close(base);
    return st == VNPU_STATUS_OK && (c->version || c->cut) ? finish_file(c, path) : st;
}

static void write_all(const char *dir, const char *(*model_path)(const char *rel), const struct model_case *cases,
                      size_t n) {
    for (size_t i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof(path), "%s/%s.gguf", dir, cases[i].name);
        VNPU_ASSERT(model_case_write(&cases[i], model_path(cases[i].base), path) == VNPU_STATUS_OK);
    }
}

const struct model_case *model_cases_write_malformed(const char *dir, const char *(*model_path)(const char *rel),
                                                     size_t *n) {
    const struct model_case *cases = model_cases_malformed(n);
    write_all(dir, model_path, cases, *n);
    return cases;
}

const struct model_case *model_cases_write_valid(const char *dir, const char *(*model_path)(const char *rel),
                                                 size_t *n) {
    const struct model_case *cases = model_cases_valid(n);
    write_all(dir, model_path, cases, *n);
    return cases;
}
