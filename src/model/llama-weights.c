#include "llama.h"

#include "log.h"

#include <assert.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* Whether an architecture uses a tensor (a column of the tables below). NEED_NONE is 0, so a table row names only the
 * architectures that use it: a tensor of no architecture's column is one the file must not have. */
enum weight_need {
    NEED_NONE,     /* not part of the architecture: refused as a tensor it does not use */
    NEED_OPTIONAL, /* loaded when present (TENSOR_NOT_REQUIRED in llama.cpp's lists) */
    NEED_REQUIRED,
};

/* A dimension of a tensor, in hparams. */
enum weight_dim {
    DIM_ONE,   /* 1: ne1 of a vector (a norm, a bias, rope_freqs), F32 */
    DIM_EMBD,  /* n_embd */
    DIM_Q,     /* n_embd_head * n_head: the query heads */
    DIM_KV,    /* n_embd_head * n_head_kv: the key (and value) heads */
    DIM_FF,    /* n_ff */
    DIM_HEAD,  /* n_embd_head: one head */
    DIM_VOCAB, /* n_vocab */
    DIM_ROPE,  /* n_rot / 2: one factor per rotated pair */
};

/* A tensor of the tables: its name ("attn_q.weight" after "blk.<il>." for a layer's), where its pointer is
 * (offset into struct llama_layer or struct llama_weights), its shape [ne0] (ne1 DIM_ONE: a vector, F32) or
 * [ne0, ne1] (a matrix of any type vnpu can dequantize), and whether each architecture requires or allows it. */
struct weight_row {
    const char *name;
    size_t offset;
    enum weight_dim ne0, ne1;
    enum weight_need need[LLAMA_ARCH_COUNT];
};

#define LLAMA LLAMA_ARCH_LLAMA
#define QWEN2 LLAMA_ARCH_QWEN2
#define QWEN3 LLAMA_ARCH_QWEN3
#define REQ   NEED_REQUIRED
#define OPT   NEED_OPTIONAL
#define ALL_REQ \
    { [LLAMA] = REQ, [QWEN2] = REQ, [QWEN3] = REQ }
#define ALL_OPT \
    { [LLAMA] = OPT, [QWEN2] = OPT, [QWEN3] = OPT }

/* The model's own tensors, in the order they are checked, as llama.cpp's load_arch_tensors of each architecture
 * creates them (src/models/llama.cpp, qwen2.cpp, qwen3.cpp): token_embd (llama_hparams_load has checked it is 2-D), the
 * output's norm, matrix (absent: tied to token_embd) and bias, Llama 3's rope frequency factors (the converter
 * computes llama3 rope scaling into them). Qwen 3's rerank head (cls_out) is not loaded: vnpu generates text. */
static const struct weight_row model_rows[] = {
    {"token_embd.weight", offsetof(struct llama_weights, token_embd), DIM_EMBD, DIM_VOCAB, ALL_REQ},
    {"output_norm.weight", offsetof(struct llama_weights, output_norm), DIM_EMBD, DIM_ONE, ALL_REQ},
    {"output.weight", offsetof(struct llama_weights, output), DIM_EMBD, DIM_VOCAB, ALL_OPT},
    {"output.bias", offsetof(struct llama_weights, output_b), DIM_VOCAB, DIM_ONE, {[QWEN2] = OPT}},
    {"rope_freqs.weight", offsetof(struct llama_weights, rope_freqs), DIM_ROPE, DIM_ONE, {[LLAMA] = OPT}},
};

/* Each layer's tensors, in the order they are checked. llama.cpp's create_tensor_qkv makes the Q, K, V biases optional
 * for all three; llama alone has optional biases on attn_output and the feed-forward; qwen2's attn_q and attn_output
 * are [n_embd, n_embd] there, which is DIM_Q because llama_hparams_load requires it (llama_arch_traits.q_is_n_embd). A
 * fused attn_qkv, which create_tensor_qkv also accepts, is refused by name (weights_walk). */
static const struct weight_row layer_rows[] = {
    {"attn_norm.weight", offsetof(struct llama_layer, attn_norm), DIM_EMBD, DIM_ONE, ALL_REQ},
    {"attn_q.weight", offsetof(struct llama_layer, wq), DIM_EMBD, DIM_Q, ALL_REQ},
    {"attn_k.weight", offsetof(struct llama_layer, wk), DIM_EMBD, DIM_KV, ALL_REQ},
    {"attn_v.weight", offsetof(struct llama_layer, wv), DIM_EMBD, DIM_KV, ALL_REQ},
    {"attn_output.weight", offsetof(struct llama_layer, wo), DIM_Q, DIM_EMBD, ALL_REQ},
    {"attn_q.bias", offsetof(struct llama_layer, bq), DIM_Q, DIM_ONE, ALL_OPT},
    {"attn_k.bias", offsetof(struct llama_layer, bk), DIM_KV, DIM_ONE, ALL_OPT},
    {"attn_v.bias", offsetof(struct llama_layer, bv), DIM_KV, DIM_ONE, ALL_OPT},
    {"attn_output.bias", offsetof(struct llama_layer, bo), DIM_EMBD, DIM_ONE, {[LLAMA] = OPT}},
    {"attn_q_norm.weight", offsetof(struct llama_layer, attn_q_norm), DIM_HEAD, DIM_ONE, {[QWEN3] = REQ}},
    {"attn_k_norm.weight", offsetof(struct llama_layer, attn_k_norm), DIM_HEAD, DIM_ONE, {[QWEN3] = REQ}},
    {"ffn_norm.weight", offsetof(struct llama_layer, ffn_norm), DIM_EMBD, DIM_ONE, ALL_REQ},
    {"ffn_gate.weight", offsetof(struct llama_layer, ffn_gate), DIM_EMBD, DIM_FF, ALL_REQ},
    {"ffn_up.weight", offsetof(struct llama_layer, ffn_up), DIM_EMBD, DIM_FF, ALL_REQ},
    {"ffn_down.weight", offsetof(struct llama_layer, ffn_down), DIM_FF, DIM_EMBD, ALL_REQ},
    {"ffn_gate.bias", offsetof(struct llama_layer, ffn_gate_b), DIM_FF, DIM_ONE, {[LLAMA] = OPT}},
    {"ffn_up.bias", offsetof(struct llama_layer, ffn_up_b), DIM_FF, DIM_ONE, {[LLAMA] = OPT}},
    {"ffn_down.bias", offsetof(struct llama_layer, ffn_down_b), DIM_EMBD, DIM_ONE, {[LLAMA] = OPT}},
};
static_assert(LLAMA_ARCH_COUNT == 3, "new architecture: add its column to model_rows and layer_rows");

#undef LLAMA
#undef QWEN2
#undef QWEN3
#undef REQ
#undef OPT
#undef ALL_REQ
#undef ALL_OPT

#define N_MODEL_ROWS (sizeof(model_rows) / sizeof(model_rows[0]))
#define N_LAYER_ROWS (sizeof(layer_rows) / sizeof(layer_rows[0]))

/* Elements of dimension d in hp. */
static int64_t weight_dim_ne(enum weight_dim d, const struct llama_hparams *hp) {
    switch (d) {
        case DIM_ONE: return 1;
        case DIM_EMBD: return hp->n_embd;
        case DIM_Q: return (int64_t) hp->n_embd_head * hp->n_head;
        case DIM_KV: return (int64_t) hp->n_embd_head * hp->n_head_kv;
        case DIM_FF: return hp->n_ff;
        case DIM_HEAD: return hp->n_embd_head;
        case DIM_VOCAB: return hp->n_vocab;
        case DIM_ROPE: return hp->n_rot / 2;
    }
    return 0;
}

struct weight_loader {
    const struct gguf_file *f;
    const struct llama_hparams *hp;
    struct vnpu_ctx *ctx;
    bool *claimed; /* per file tensor: used by the architecture */
};

/* Find tensor name of row r in the file, check its shape and type and make its tensor struct with data in the
 * mapping, into *out. Absent: an error when hp's architecture requires it (layer il >= 0: with the block count that
 * asks for it), else *out = NULL. */
static enum vnpu_status weight_get(struct weight_loader *l, const struct weight_row *r, const char *name, int il,
                                   struct vnpu_tensor **out) {
    const struct llama_hparams *hp = l->hp;
    const char *arch = llama_arch_traits_get(hp->arch)->name;
    *out = NULL;
    const int64_t i = gguf_find_tensor(l->f, name);
    if (i < 0) {
        if (r->need[hp->arch] != NEED_REQUIRED) {
            return VNPU_STATUS_OK;
        }
        if (il >= 0) {
            vnpu_log_error("%s: missing tensor %s (%s.block_count is %u: layers 0..%u each need one)", gguf_path(l->f),
                           name, arch, hp->n_layer, hp->n_layer - 1);
        } else {
            vnpu_log_error("%s: missing tensor %s", gguf_path(l->f), name);
        }
        return VNPU_STATUS_BAD_FILE;
    }
    l->claimed[i] = true;
    const struct gguf_tensor_info *ti = gguf_tensor(l->f, i);
    const bool vector = r->ne1 == DIM_ONE;
    const int64_t ne[2] = {weight_dim_ne(r->ne0, hp), weight_dim_ne(r->ne1, hp)};
    if (ti->ne[0] != ne[0] || ti->ne[1] != ne[1] || ti->ne[2] != 1 || ti->ne[3] != 1) {
        vnpu_log_error("%s: tensor %s has shape [%lld, %lld, %lld, %lld], expected [%lld, %lld]", gguf_path(l->f), name,
                       (long long) ti->ne[0], (long long) ti->ne[1], (long long) ti->ne[2], (long long) ti->ne[3],
                       (long long) ne[0], (long long) ne[1]);
        return VNPU_STATUS_BAD_FILE;
    }
    if (vector ? ti->type != VNPU_TYPE_F32 : vnpu_type_traits_get(ti->type)->to_f32 == NULL) {
        vnpu_log_error("%s: tensor %s has type %s, %s", gguf_path(l->f), name, vnpu_type_name(ti->type),
                       vector ? "expected f32" : "which vnpu cannot compute with");
        return vector ? VNPU_STATUS_BAD_FILE : VNPU_STATUS_UNSUPPORTED;
    }
    struct vnpu_tensor *t = vnpu_new_tensor(l->ctx, ti->type, vector ? 1 : 2, ne);
    t->data = (void *) ti->data;
    t->flags |= VNPU_TENSOR_FLAG_WEIGHT;
    vnpu_set_name(t, "%s", name);
    *out = t;
    return VNPU_STATUS_OK;
}

/* Claim, check and make every tensor of w. */
static enum vnpu_status weights_walk(struct weight_loader *l, struct llama_weights *w) {
    const struct llama_hparams *hp = l->hp;
    enum vnpu_status st;
    for (size_t r = 0; r < N_MODEL_ROWS; r++) {
        struct vnpu_tensor **out = (struct vnpu_tensor **) ((char *) w + model_rows[r].offset);
        if (model_rows[r].need[hp->arch] != NEED_NONE &&
            (st = weight_get(l, &model_rows[r], model_rows[r].name, -1, out)) != VNPU_STATUS_OK) {
            return st;
        }
    }
    if (!w->output) {
        /* Tied embeddings: the output matrix is the token embedding's data in a tensor of its own, as llama.cpp
         * duplicates it for the output layer, so that it is placed for its MUL_MAT while token_embd stays flat in
         * the mapping for the input's GET_ROWS. */
        w->output = vnpu_new_tensor_2d(l->ctx, w->token_embd->type, hp->n_embd, hp->n_vocab);
        w->output->data = w->token_embd->data;
        w->output->flags |= VNPU_TENSOR_FLAG_WEIGHT;
        vnpu_set_name(w->output, "output.weight");
    }
    for (uint32_t il = 0; il < hp->n_layer; il++) {
        for (size_t r = 0; r < N_LAYER_ROWS; r++) {
            if (layer_rows[r].need[hp->arch] == NEED_NONE) {
                continue;
            }
            char name[GGUF_MAX_NAME];
            snprintf(name, sizeof(name), "blk.%u.%s", il, layer_rows[r].name);
            struct vnpu_tensor **out = (struct vnpu_tensor **) ((char *) &w->layers[il] + layer_rows[r].offset);
            if ((st = weight_get(l, &layer_rows[r], name, (int) il, out)) != VNPU_STATUS_OK) {
                return st;
            }
        }
    }
    const char *arch = llama_arch_traits_get(hp->arch)->name;
    for (int64_t i = 0; i < gguf_n_tensors(l->f); i++) {
        const char *name = gguf_tensor(l->f, i)->name;
        if (l->claimed[i]) {
            continue;
        }
        if (strstr(name, ".attn_qkv.")) { /* llama.cpp's create_tensor_qkv takes it instead of attn_q, _k, _v */
            vnpu_log_error("%s: tensor %s: fused Q/K/V projections are not supported (separate attn_q, attn_k and "
                           "attn_v are)",
                           gguf_path(l->f), name);
            return VNPU_STATUS_UNSUPPORTED;
        }
        /* llama.cpp refuses files with tensors it does not use, too */
        vnpu_log_error("%s: tensor %s is not part of a %u-layer %s model", gguf_path(l->f), name, hp->n_layer, arch);
        return VNPU_STATUS_BAD_FILE;
    }
    return VNPU_STATUS_OK;
}

enum vnpu_status llama_weights_load(const struct gguf_file *f, const struct llama_hparams *hp,
                                    struct llama_weights *w) {
    memset(w, 0, sizeof(*w));
    const size_t n_tensors = N_MODEL_ROWS + 1 + N_LAYER_ROWS * (size_t) hp->n_layer; /* + 1: a tied output */
    w->ctx = vnpu_ctx_new(n_tensors * vnpu_tensor_overhead(), true);
    w->layers = calloc(hp->n_layer, sizeof(*w->layers));
    struct weight_loader l = {.f = f, .hp = hp, .ctx = w->ctx, .claimed = calloc((size_t) gguf_n_tensors(f) + 1, 1)};
    if (!w->ctx || !w->layers || !l.claimed) {
        free(l.claimed);
        vnpu_log_error("%s: cannot allocate the weight tables of %u layers", gguf_path(f), hp->n_layer);
        llama_weights_free(w);
        return VNPU_STATUS_NO_MEMORY;
    }
    const enum vnpu_status st = weights_walk(&l, w);
    free(l.claimed);
    if (st != VNPU_STATUS_OK) {
        llama_weights_free(w);
    }
    return st;
}

void llama_weights_free(struct llama_weights *w) {
    vnpu_ctx_free(w->ctx);
    vnpu_ctx_free(w->split_ctx);
    free(w->layers);
    memset(w, 0, sizeof(*w));
}
