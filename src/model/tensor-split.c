/* The tensor split: which heads and features each device computes, and the weight slices they compute with. */
#include "llama.h"

#include "log.h"
#include "type-traits.h"

#include <stdlib.h>
#include <string.h>

/* Range d of n_dev over units of unit elements covering ne elements: units / n_dev units each, the last device
 * also the remaining units and the tail of ne; fewer units than devices: device 0 all of it, the others nothing
 * (the seed's device-0 fallback). */
static struct llama_tensor_range unit_range(int64_t ne, int64_t unit, int64_t n_units, int d, int n_dev) {
    if (n_units < n_dev) {
        return (struct llama_tensor_range){0, d == 0 ? ne : 0};
    }
    const int64_t per = n_units / n_dev;
    const int64_t start = (int64_t) d * per * unit;
    return (struct llama_tensor_range){start, d == n_dev - 1 ? ne - start : per * unit};
}

enum vnpu_status llama_tensor_split_plan(const struct llama_hparams *hp, enum vnpu_type type_wo,
                                         enum vnpu_type type_down, int n_dev, struct llama_tensor_split *s) {
    if (n_dev < 2 || n_dev > LLAMA_MAX_DEVICES - 1) {
        vnpu_log_error("tensor split over %d devices: expected 2..%d", n_dev, LLAMA_MAX_DEVICES - 1);
        return VNPU_STATUS_BAD_ARG;
    }
    const int64_t blck_wo = vnpu_type_traits_get(type_wo)->blck, blck_down = vnpu_type_traits_get(type_down)->blck;
    /* Query columns per KV head; the fewest KV heads whose columns are whole attn_output blocks. */
    const int64_t q_per_kv = (int64_t) hp->n_embd_head * (hp->n_head / hp->n_head_kv);
    int64_t unit_kv = 1;
    while (unit_kv < hp->n_head_kv && (unit_kv * q_per_kv) % blck_wo != 0) {
        unit_kv++;
    }
    const int64_t n_units_kv = (unit_kv * q_per_kv) % blck_wo == 0 ? hp->n_head_kv / unit_kv : 0;
    const int64_t n_units_ff = hp->n_ff / blck_down;
    s->n_dev = n_dev;
    for (int d = 0; d < n_dev; d++) {
        s->head_kv[d] = unit_range(hp->n_head_kv, unit_kv, n_units_kv, d, n_dev);
        s->ff[d] = unit_range(hp->n_ff, blck_down, n_units_ff, d, n_dev);
    }
    return VNPU_STATUS_OK;
}

/* The slice of weight t of n rows from row start: a view of its data; t itself when that is all of it, NULL when
 * empty. */
static struct vnpu_tensor *row_slice(struct vnpu_ctx *ctx, struct vnpu_tensor *t, int64_t start, int64_t n, int d) {
    if (n == 0 || n == t->ne[1]) {
        return n ? t : NULL;
    }
    struct vnpu_tensor *s = vnpu_new_tensor_2d(ctx, t->type, t->ne[0], n);
    s->data = (char *) t->data + (size_t) start * t->nb[1];
    s->flags |= VNPU_TENSOR_FLAG_WEIGHT;
    vnpu_set_name(s, "%s.part%d", t->name, d);
    return s;
}

/* The slice of weight t of columns r (whole blocks), copied to *data, which it advances; a NULL *data only counts
 * its bytes into *size. t itself when that is all of it, NULL when empty. */
static struct vnpu_tensor *col_slice(struct vnpu_ctx *ctx, struct vnpu_tensor *t, struct llama_tensor_range r, int d,
                                     char **data, size_t *size) {
    if (r.n == 0 || r.n == t->ne[0]) {
        return r.n ? t : NULL;
    }
    const size_t row = vnpu_row_size(t->type, r.n), skip = vnpu_row_size(t->type, r.start);
    *size += row * (size_t) t->ne[1];
    if (!*data) {
        return NULL;
    }
    struct vnpu_tensor *s = vnpu_new_tensor_2d(ctx, t->type, r.n, t->ne[1]);
    s->data = *data;
    for (int64_t i = 0; i < t->ne[1]; i++) {
        memcpy(*data + (size_t) i * row, (const char *) t->data + (size_t) i * t->nb[1] + skip, row);
    }
    *data += row * (size_t) t->ne[1];
    s->flags |= VNPU_TENSOR_FLAG_WEIGHT;
    vnpu_set_name(s, "%s.part%d", t->name, d);
    return s;
}

/* Make the slices of every layer (data NULL: only count the column slices' bytes into *size). */
static void weights_slice(struct llama_weights *w, const struct llama_hparams *hp, char *data, size_t *size) {
    const int64_t head_dim = hp->n_embd_head, n_gqa = hp->n_head / hp->n_head_kv;
    for (uint32_t il = 0; il < hp->n_layer; il++) {
        struct llama_layer *y = &w->layers[il];
        for (int d = 0; d < y->split.n_dev; d++) {
            const struct llama_tensor_range h = y->split.head_kv[d], f = y->split.ff[d];
            const struct llama_tensor_range q = {h.start * n_gqa * head_dim, h.n * n_gqa * head_dim};
            struct llama_layer_part *pt = &y->part[d];
            pt->wo = col_slice(w->split_ctx, y->wo, q, d, &data, size);
            pt->ffn_down = col_slice(w->split_ctx, y->ffn_down, f, d, &data, size);
            if (data) {
                pt->wq = row_slice(w->split_ctx, y->wq, q.start, q.n, d);
                pt->wk = row_slice(w->split_ctx, y->wk, h.start * head_dim, h.n * head_dim, d);
                pt->wv = row_slice(w->split_ctx, y->wv, h.start * head_dim, h.n * head_dim, d);
                pt->ffn_gate = row_slice(w->split_ctx, y->ffn_gate, f.start, f.n, d);
                pt->ffn_up = row_slice(w->split_ctx, y->ffn_up, f.start, f.n, d);
            }
        }
    }
}

enum vnpu_status llama_weights_split(struct llama_weights *w, const struct llama_hparams *hp, int n_part) {
    for (uint32_t il = 0; il < hp->n_layer; il++) {
        struct llama_layer *y = &w->layers[il];
        const enum vnpu_status st = llama_tensor_split_plan(hp, y->wo->type, y->ffn_down->type, n_part, &y->split);
        if (st != VNPU_STATUS_OK) {
            vnpu_log_error("layer %u cannot be split by tensors over %d devices", il, n_part);
            return st;
        }
    }
    size_t size = 0;
    weights_slice(w, hp, NULL, &size);
    w->split_ctx = vnpu_ctx_new(7 * (size_t) n_part * hp->n_layer * vnpu_tensor_overhead(), true);
    w->split_data = malloc(size);
    if (!w->split_ctx || !w->split_data) {
        vnpu_log_error("cannot allocate the tensor split's slices (%zu bytes of columns)", size);
        return VNPU_STATUS_NO_MEMORY;
    }
    size = 0;
    weights_slice(w, hp, w->split_data, &size);
    w->n_part = n_part;
    return VNPU_STATUS_OK;
}

struct llama_layer_part llama_layer_part_get(const struct llama_weights *w, const struct llama_layer *y, int d) {
    if (w->n_part > 0) {
        return y->part[d];
    }
    return (struct llama_layer_part){y->wq, y->wk, y->wv, y->wo, y->ffn_gate, y->ffn_up, y->ffn_down};
}
