#include "llama.h"

#include "log.h"

#include <stdlib.h>
#include <string.h>

enum weight_kind {
    WEIGHT_MATRIX, /* 2-D: any type vnpu can dequantize */
    WEIGHT_NORM,   /* 1-D: F32 */
};

struct weight_loader {
    const struct gguf_file *f;
    struct vnpu_ctx *ctx;
    bool *claimed; /* per file tensor: used by the architecture */
    uint32_t n_layer;
};

/* Find name in the file, check it is a kind tensor of shape [ne0] or [ne0, ne1] and make its tensor struct
 * with data in the mapping. Absent and optional: *out = NULL. */
static enum vnpu_status weight_get(struct weight_loader *l, const char *name, enum weight_kind kind, int64_t ne0,
                                   int64_t ne1, bool required, struct vnpu_tensor **out) {
    *out = NULL;
    const int64_t i = gguf_find_tensor(l->f, name);
    if (i < 0) {
        if (required) {
            vnpu_log_error("%s: missing tensor %s", gguf_path(l->f), name);
            return VNPU_STATUS_BAD_FILE;
        }
        return VNPU_STATUS_OK;
    }
    l->claimed[i] = true;
    const struct gguf_tensor_info *ti = gguf_tensor(l->f, i);
    const uint32_t n_dims = kind == WEIGHT_NORM ? 1 : 2;
    const int64_t ne[2] = {ne0, kind == WEIGHT_NORM ? 1 : ne1};
    if (ti->ne[0] != ne[0] || ti->ne[1] != ne[1] || ti->ne[2] != 1 || ti->ne[3] != 1) {
        vnpu_log_error("%s: tensor %s has shape [%lld, %lld, %lld, %lld], expected [%lld, %lld]", gguf_path(l->f), name,
                       (long long) ti->ne[0], (long long) ti->ne[1], (long long) ti->ne[2], (long long) ti->ne[3],
                       (long long) ne[0], (long long) ne[1]);
        return VNPU_STATUS_BAD_FILE;
    }
    if (kind == WEIGHT_NORM ? ti->type != VNPU_TYPE_F32 : vnpu_type_traits_get(ti->type)->to_f32 == NULL) {
        vnpu_log_error("%s: tensor %s has type %s, %s", gguf_path(l->f), name, vnpu_type_name(ti->type),
                       kind == WEIGHT_NORM ? "expected f32" : "which vnpu cannot compute with");
        return kind == WEIGHT_NORM ? VNPU_STATUS_BAD_FILE : VNPU_STATUS_UNSUPPORTED;
    }
    struct vnpu_tensor *t = vnpu_new_tensor(l->ctx, ti->type, (int) n_dims, ne);
    t->data = (void *) ti->data;
    t->flags |= VNPU_TENSOR_FLAG_WEIGHT;
    vnpu_set_name(t, "%s", name);
    *out = t;
    return VNPU_STATUS_OK;
}

/* Tensor suffix of layer il; a missing one is reported with the block count that asks for it. */
static enum vnpu_status layer_get(struct weight_loader *l, uint32_t il, const char *suffix, enum weight_kind kind,
                                  int64_t ne0, int64_t ne1, struct vnpu_tensor **out) {
    char name[GGUF_MAX_NAME];
    snprintf(name, sizeof(name), "blk.%u.%s.weight", il, suffix);
    if (gguf_find_tensor(l->f, name) < 0) {
        vnpu_log_error("%s: missing tensor %s (llama.block_count is %u: layers 0..%u each need one)", gguf_path(l->f),
                       name, l->n_layer, l->n_layer - 1);
        return VNPU_STATUS_BAD_FILE;
    }
    return weight_get(l, name, kind, ne0, ne1, true, out);
}

/* Claim, check and make every tensor of w. */
static enum vnpu_status weights_walk(struct weight_loader *l, const struct llama_hparams *hp, struct llama_weights *w) {
    const int64_t n_embd = hp->n_embd, n_vocab = hp->n_vocab, n_ff = hp->n_ff;
    const int64_t n_q = (int64_t) hp->n_embd_head * hp->n_head, n_kv = (int64_t) hp->n_embd_head * hp->n_head_kv;
    enum vnpu_status st;
    if ((st = weight_get(l, "token_embd.weight", WEIGHT_MATRIX, n_embd, n_vocab, true, &w->token_embd)) ||
        (st = weight_get(l, "output_norm.weight", WEIGHT_NORM, n_embd, 1, true, &w->output_norm)) ||
        (st = weight_get(l, "output.weight", WEIGHT_MATRIX, n_embd, n_vocab, false, &w->output)) ||
        (st = weight_get(l, "rope_freqs.weight", WEIGHT_NORM, hp->n_rot / 2, 1, false, &w->rope_freqs))) {
        return st;
    }
    if (!w->output) {
        /* Tied embeddings: the output matrix is the token embedding's data in a tensor of its own, as llama.cpp
         * duplicates it for the output layer, so that it is placed for its MUL_MAT while token_embd stays flat in
         * the mapping for the input's GET_ROWS. */
        w->output = vnpu_new_tensor_2d(l->ctx, w->token_embd->type, n_embd, n_vocab);
        w->output->data = w->token_embd->data;
        w->output->flags |= VNPU_TENSOR_FLAG_WEIGHT;
        vnpu_set_name(w->output, "output.weight");
    }
    for (uint32_t il = 0; il < hp->n_layer; il++) {
        struct llama_layer *y = &w->layers[il];
        if ((st = layer_get(l, il, "attn_norm", WEIGHT_NORM, n_embd, 1, &y->attn_norm)) ||
            (st = layer_get(l, il, "attn_q", WEIGHT_MATRIX, n_embd, n_q, &y->wq)) ||
            (st = layer_get(l, il, "attn_k", WEIGHT_MATRIX, n_embd, n_kv, &y->wk)) ||
            (st = layer_get(l, il, "attn_v", WEIGHT_MATRIX, n_embd, n_kv, &y->wv)) ||
            (st = layer_get(l, il, "attn_output", WEIGHT_MATRIX, n_q, n_embd, &y->wo)) ||
            (st = layer_get(l, il, "ffn_norm", WEIGHT_NORM, n_embd, 1, &y->ffn_norm)) ||
            (st = layer_get(l, il, "ffn_gate", WEIGHT_MATRIX, n_embd, n_ff, &y->ffn_gate)) ||
            (st = layer_get(l, il, "ffn_up", WEIGHT_MATRIX, n_embd, n_ff, &y->ffn_up)) ||
            (st = layer_get(l, il, "ffn_down", WEIGHT_MATRIX, n_ff, n_embd, &y->ffn_down))) {
            return st;
        }
    }
    for (int64_t i = 0; i < gguf_n_tensors(l->f); i++) {
        if (!l->claimed[i]) { /* llama.cpp refuses files with tensors it does not use, too */
            vnpu_log_error("%s: tensor %s is not part of a %u-layer llama model", gguf_path(l->f),
                           gguf_tensor(l->f, i)->name, hp->n_layer);
            return VNPU_STATUS_BAD_FILE;
        }
    }
    return VNPU_STATUS_OK;
}

enum vnpu_status llama_weights_load(const struct gguf_file *f, const struct llama_hparams *hp,
                                    struct llama_weights *w) {
    memset(w, 0, sizeof(*w));
    const size_t n_tensors = 4 + 9 * (size_t) hp->n_layer;
    w->ctx = vnpu_ctx_new(n_tensors * vnpu_tensor_overhead(), true);
    w->layers = calloc(hp->n_layer, sizeof(*w->layers));
    struct weight_loader l = {
        .f = f, .ctx = w->ctx, .claimed = calloc((size_t) gguf_n_tensors(f) + 1, 1), .n_layer = hp->n_layer};
    if (!w->ctx || !w->layers || !l.claimed) {
        free(l.claimed);
        vnpu_log_error("%s: cannot allocate the weight tables of %u layers", gguf_path(f), hp->n_layer);
        llama_weights_free(w);
        return VNPU_STATUS_NO_MEMORY;
    }
    const enum vnpu_status st = weights_walk(&l, hp, w);
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
