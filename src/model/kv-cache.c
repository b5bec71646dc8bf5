#include "llama.h"

#include "log.h"

#include <stdlib.h>
#include <string.h>

enum vnpu_status llama_kv_cache_init(struct llama_kv_cache *kv, const struct llama_hparams *hp,
                                     const struct llama_weights *w, uint32_t n_ctx, enum vnpu_type type_k,
                                     enum vnpu_type type_v, struct vnpu_buffer_type *bt) {
    memset(kv, 0, sizeof(*kv));
    kv->n_ctx = n_ctx;
    kv->n_part = w->n_part > 0 ? w->n_part : 1;
    const size_t n = (size_t) hp->n_layer * (size_t) kv->n_part;
    kv->ctx = vnpu_ctx_new(2 * n * vnpu_tensor_overhead(), true);
    kv->k = calloc(n, sizeof(*kv->k));
    kv->v = calloc(n, sizeof(*kv->v));
    if (!kv->ctx || !kv->k || !kv->v) {
        vnpu_log_error("kv cache: cannot allocate the tables of %u layers", hp->n_layer);
        llama_kv_cache_free(kv);
        return VNPU_STATUS_NO_MEMORY;
    }
    size_t size = 0;
    for (size_t i = 0; i < n; i++) {
        const uint32_t il = (uint32_t) (i / (size_t) kv->n_part);
        const int d = (int) (i % (size_t) kv->n_part);
        const int64_t n_head_kv = w->n_part > 0 ? w->split.head_kv[d].n : hp->n_head_kv;
        if (n_head_kv == 0) {
            continue; /* a tensor split's device without heads in this layer */
        }
        kv->k[i] = vnpu_new_tensor_2d(kv->ctx, type_k, hp->n_embd_head * n_head_kv, n_ctx);
        kv->v[i] = vnpu_new_tensor_2d(kv->ctx, type_v, hp->n_embd_head * n_head_kv, n_ctx);
        if (w->n_part > 0) {
            vnpu_set_name(kv->k[i], "cache_k_l%u.part%d", il, d);
            vnpu_set_name(kv->v[i], "cache_v_l%u.part%d", il, d);
        } else {
            vnpu_set_name(kv->k[i], "cache_k_l%u", il);
            vnpu_set_name(kv->v[i], "cache_v_l%u", il);
        }
        size +=
            vnpu_buffer_type_alloc_size(bt, kv->k[i]) + vnpu_buffer_type_alloc_size(bt, kv->v[i]) + 2 * bt->alignment;
    }
    enum vnpu_status st = vnpu_buffer_type_alloc(bt, size, &kv->buf);
    if (st != VNPU_STATUS_OK) {
        vnpu_log_error(
            "kv cache: %zu bytes for a context of %u tokens in %s: a smaller context (-c) needs less; an HTP "
            "buffer's limit follows the window (VNPU_WINDOW_MB) and VNPU_MBUF_MB",
            size, n_ctx, vnpu_buffer_type_name(bt));
        llama_kv_cache_free(kv);
        return st;
    }
    /* Cleared, as llama.cpp does: attention multiplies masked cells by zero, which must not meet a NaN. */
    memset(kv->buf->base, 0, size);
    size_t offset = 0;
    for (size_t i = 0; i < n; i++) {
        struct vnpu_tensor *t[2] = {kv->k[i], kv->v[i]};
        for (int j = 0; j < 2 && t[j]; j++) {
            vnpu_buffer_place_tensor(kv->buf, t[j], offset);
            offset += (vnpu_buffer_type_alloc_size(bt, t[j]) + bt->alignment - 1) / bt->alignment * bt->alignment;
        }
    }
    return VNPU_STATUS_OK;
}

void llama_kv_cache_free(struct llama_kv_cache *kv) {
    vnpu_buffer_free(kv->buf);
    vnpu_ctx_free(kv->ctx);
    free(kv->k);
    free(kv->v);
    memset(kv, 0, sizeof(*kv));
}
