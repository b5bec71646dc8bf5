#include "llama.h"

#include "log.h"

#include <stdlib.h>
#include <string.h>

enum vnpu_status llama_kv_cache_init(struct llama_kv_cache *kv, const struct llama_hparams *hp, uint32_t n_ctx,
                                     enum vnpu_type type_k, enum vnpu_type type_v, struct vnpu_buffer_type *bt) {
    memset(kv, 0, sizeof(*kv));
    kv->n_ctx = n_ctx;
    const int64_t n_embd_gqa = (int64_t) hp->n_embd_head * hp->n_head_kv;
    kv->ctx = vnpu_ctx_new(2 * (size_t) hp->n_layer * vnpu_tensor_overhead(), true);
    kv->k = calloc(hp->n_layer, sizeof(*kv->k));
    kv->v = calloc(hp->n_layer, sizeof(*kv->v));
    if (!kv->ctx || !kv->k || !kv->v) {
        vnpu_log_error("kv cache: cannot allocate the tables of %u layers", hp->n_layer);
        llama_kv_cache_free(kv);
        return VNPU_STATUS_NO_MEMORY;
    }
    size_t size = 0;
    for (uint32_t il = 0; il < hp->n_layer; il++) {
        kv->k[il] = vnpu_new_tensor_2d(kv->ctx, type_k, n_embd_gqa, n_ctx);
        kv->v[il] = vnpu_new_tensor_2d(kv->ctx, type_v, n_embd_gqa, n_ctx);
        vnpu_set_name(kv->k[il], "cache_k_l%u", il);
        vnpu_set_name(kv->v[il], "cache_v_l%u", il);
        size +=
            vnpu_buffer_type_alloc_size(bt, kv->k[il]) + vnpu_buffer_type_alloc_size(bt, kv->v[il]) + 2 * bt->alignment;
    }
    enum vnpu_status st = vnpu_buffer_type_alloc(bt, size, &kv->buf);
    if (st != VNPU_STATUS_OK) {
        llama_kv_cache_free(kv);
        return st;
    }
    /* Cleared, as llama.cpp does: attention multiplies masked cells by zero, which must not meet a NaN. */
    memset(kv->buf->base, 0, size);
    size_t offset = 0;
    for (uint32_t il = 0; il < hp->n_layer; il++) {
        struct vnpu_tensor *t[2] = {kv->k[il], kv->v[il]};
        for (int j = 0; j < 2; j++) {
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
