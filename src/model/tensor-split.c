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

/* The slice of weight t of rows r, device d's: a view of its data named "<weight>.part<d>"; t itself when that is all
 * of it, NULL when empty. */
static struct vnpu_tensor *row_slice(struct vnpu_ctx *ctx, struct vnpu_tensor *t, struct llama_tensor_range r, int d) {
    if (r.n == 0 || r.n == t->ne[1]) {
        return r.n ? t : NULL;
    }
    struct vnpu_tensor *s = vnpu_new_tensor_2d(ctx, t->type, t->ne[0], r.n);
    s->data = (char *) t->data + (size_t) r.start * t->nb[1];
    s->flags |= VNPU_TENSOR_FLAG_WEIGHT;
    vnpu_set_name(s, "%s.part%d", t->name, d);
    return s;
}

enum vnpu_status llama_weights_split(struct llama_weights *w, const struct llama_hparams *hp, int n_part) {
    enum vnpu_status st = llama_tensor_split_plan(hp, n_part, &w->split);
    if (st != VNPU_STATUS_OK) {
        return st;
    }
    w->split_ctx = vnpu_ctx_new((7 * (size_t) hp->n_layer + 1) * (size_t) n_part * vnpu_tensor_overhead(), true);
    if (!w->split_ctx) {
        vnpu_log_error("cannot allocate the tensor split's %d x (7 x %u + 1) slices", n_part, hp->n_layer);
        return VNPU_STATUS_NO_MEMORY;
    }
    const int64_t head_dim = hp->n_embd_head, n_gqa = hp->n_head / hp->n_head_kv;
    for (int d = 0; d < n_part; d++) {
        w->output_part[d] = row_slice(w->split_ctx, w->output, w->split.vocab[d], d);
    }
    for (uint32_t il = 0; il < hp->n_layer; il++) {
        struct llama_layer *y = &w->layers[il];
        for (int d = 0; d < n_part; d++) {
            const struct llama_tensor_range h = w->split.head_kv[d];
            const struct llama_tensor_range q = {h.start * n_gqa * head_dim, h.n * n_gqa * head_dim};
            const struct llama_tensor_range kv = {h.start * head_dim, h.n * head_dim};
            y->part[d] = (struct llama_layer_part){
                row_slice(w->split_ctx, y->wq, q, d),
                row_slice(w->split_ctx, y->wk, kv, d),
                row_slice(w->split_ctx, y->wv, kv, d),
                row_slice(w->split_ctx, y->wo, w->split.embd[d], d),
                row_slice(w->split_ctx, y->ffn_gate, w->split.ff[d], d),
                row_slice(w->split_ctx, y->ffn_up, w->split.ff[d], d),
                row_slice(w->split_ctx, y->ffn_down, w->split.embd[d], d),
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
    return (struct llama_layer_part){y->wq, y->wk, y->wv, y->wo, y->ffn_gate, y->ffn_up, y->ffn_down};
}
