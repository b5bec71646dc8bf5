/* The tensor split: which heads, features and model rows each device computes, and the weight slices it computes
 * them with. */
#include "llama.h"

#include "log.h"

#include <string.h>

/* Range d of n_dev over ne elements in units of unit elements: units / n_dev units each, the last device also the
 * remaining units and the tail of ne; fewer units than devices: device 0 all of it, the others nothing (the seed's
 * device-0 fallback). */
static struct llama_tensor_range unit_range(int64_t ne, int64_t unit, int d, int n_dev) {
    const int64_t n_units = ne / unit;
    if (n_units < n_dev) {
        return (struct llama_tensor_range){0, d == 0 ? ne : 0};
    }
    const int64_t per = n_units / n_dev;
    const int64_t start = (int64_t) d * per * unit;
    return (struct llama_tensor_range){start, d == n_dev - 1 ? ne - start : per * unit};
}

enum vnpu_status llama_tensor_split_plan(const struct llama_hparams *hp, int n_dev, struct llama_tensor_split *s) {
    if (n_dev < 2 || n_dev > LLAMA_MAX_DEVICES - 1) {
        vnpu_log_error("tensor split over %d devices: expected 2..%d", n_dev, LLAMA_MAX_DEVICES - 1);
        return VNPU_STATUS_BAD_ARG;
    }
    memset(s, 0, sizeof(*s));
    s->n_dev = n_dev;
    for (int d = 0; d < n_dev; d++) {
        s->head_kv[d] = unit_range(hp->n_head_kv, 1, d, n_dev);
        s->ff[d] = unit_range(hp->n_ff, LLAMA_TENSOR_SPLIT_ROWS, d, n_dev);
        s->embd[d] = unit_range(hp->n_embd, LLAMA_TENSOR_SPLIT_ROWS, d, n_dev);
        s->vocab[d] = unit_range(hp->n_vocab, LLAMA_TENSOR_SPLIT_ROWS, d, n_dev);
    }
    return VNPU_STATUS_OK;
}

/* The slice of weight t of range r of its dimension dim (1: a matrix's rows; 0: a bias's elements, those of its
 * matrix's rows), device d's: a view of its data named "<weight>.part<d>"; t itself when that is all of it (or t is
 * NULL: an optional weight the file lacks), NULL when empty. */
static struct vnpu_tensor *row_slice(struct vnpu_ctx *ctx, struct vnpu_tensor *t, int dim, struct llama_tensor_range r,
                                     int d) {
    if (!t || r.n == 0 || r.n == t->ne[dim]) {
        return t && r.n ? t : NULL;
    }
    struct vnpu_tensor *s =
        dim == 1 ? vnpu_new_tensor_2d(ctx, t->type, t->ne[0], r.n) : vnpu_new_tensor_1d(ctx, t->type, r.n);
    s->data = (char *) t->data + (size_t) r.start * t->nb[dim];
    s->flags |= VNPU_TENSOR_FLAG_WEIGHT;
    vnpu_set_name(s, "%s.part%d", t->name, d);
    return s;
}

enum vnpu_status llama_weights_split(struct llama_weights *w, const struct llama_hparams *hp, int n_part) {
    enum vnpu_status st = llama_tensor_split_plan(hp, n_part, &w->split);
    if (st != VNPU_STATUS_OK) {
        return st;
    }
    /* per device: 2 of the output (matrix, bias), 14 of each layer (7 matrices, 7 biases) */
    w->split_ctx = vnpu_ctx_new((14 * (size_t) hp->n_layer + 2) * (size_t) n_part * vnpu_tensor_overhead(), true);
    if (!w->split_ctx) {
        vnpu_log_error("cannot allocate the tensor split's %d x (14 x %u + 2) slices", n_part, hp->n_layer);
        return VNPU_STATUS_NO_MEMORY;
    }
    const int64_t head_dim = hp->n_embd_head, n_gqa = hp->n_head / hp->n_head_kv;
    for (int d = 0; d < n_part; d++) {
        w->output_part[d] = row_slice(w->split_ctx, w->output, 1, w->split.vocab[d], d);
        w->output_b_part[d] = row_slice(w->split_ctx, w->output_b, 0, w->split.vocab[d], d);
    }
    for (uint32_t il = 0; il < hp->n_layer; il++) {
        struct llama_layer *y = &w->layers[il];
        for (int d = 0; d < n_part; d++) {
            const struct llama_tensor_range h = w->split.head_kv[d];
            const struct llama_tensor_range q = {h.start * n_gqa * head_dim, h.n * n_gqa * head_dim};
            const struct llama_tensor_range kv = {h.start * head_dim, h.n * head_dim};
            const struct llama_tensor_range ff = w->split.ff[d], embd = w->split.embd[d];
            y->part[d] = (struct llama_layer_part){
                .wq = row_slice(w->split_ctx, y->wq, 1, q, d),
                .wk = row_slice(w->split_ctx, y->wk, 1, kv, d),
                .wv = row_slice(w->split_ctx, y->wv, 1, kv, d),
                .wo = row_slice(w->split_ctx, y->wo, 1, embd, d),
                .ffn_gate = row_slice(w->split_ctx, y->ffn_gate, 1, ff, d),
                .ffn_up = row_slice(w->split_ctx, y->ffn_up, 1, ff, d),
                .ffn_down = row_slice(w->split_ctx, y->ffn_down, 1, embd, d),
                .bq = row_slice(w->split_ctx, y->bq, 0, q, d),
                .bk = row_slice(w->split_ctx, y->bk, 0, kv, d),
                .bv = row_slice(w->split_ctx, y->bv, 0, kv, d),
                .bo = row_slice(w->split_ctx, y->bo, 0, embd, d),
                .ffn_gate_b = row_slice(w->split_ctx, y->ffn_gate_b, 0, ff, d),
                .ffn_up_b = row_slice(w->split_ctx, y->ffn_up_b, 0, ff, d),
                .ffn_down_b = row_slice(w->split_ctx, y->ffn_down_b, 0, embd, d),
                .attn_q_norm = y->attn_q_norm,
                .attn_k_norm = y->attn_k_norm,
            };
        }
    }
    w->n_part = n_part;
    return VNPU_STATUS_OK;
}

struct llama_layer_part llama_layer_part_get(const struct llama_weights *w, const struct llama_layer *y, int d) {
    if (w->n_part > 0) {
        return y->part[d];
    }
    return (struct llama_layer_part){
        .wq = y->wq,
        .wk = y->wk,
        .wv = y->wv,
        .wo = y->wo,
        .ffn_gate = y->ffn_gate,
        .ffn_up = y->ffn_up,
        .ffn_down = y->ffn_down,
        .bq = y->bq,
        .bk = y->bk,
        .bv = y->bv,
        .bo = y->bo,
        .ffn_gate_b = y->ffn_gate_b,
        .ffn_up_b = y->ffn_up_b,
        .ffn_down_b = y->ffn_down_b,
        .attn_q_norm = y->attn_q_norm,
        .attn_k_norm = y->attn_k_norm,
    };
}
