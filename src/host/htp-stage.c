/*
 * Shared-DDR copies of tensors that live where no session can map them (the model file's read-only
 * mapping, host buffers): the "copies where a tensor crosses devices" of a unified-memory system whose
 * NPU sees only shared buffers. Weights are copied once, at their first request, and kept (found again by
 * address) until the device closes or their memory goes away (forget_host: a model freed while the device
 * serves other holders drops them all); anything else gets a slot in the request scratch, copied in before and
 * out after the request. Models whose weights sit in HTP<n>-REPACK buffers never come here.
 */
#include "htp-device-impl.h"

#include "hash.h"
#include "log.h"

#include <stdlib.h>
#include <string.h>

/* Bytes of shared DDR per copy chunk (pages are touched on use): 16 MiB, or an eighth of a smaller window, so a
 * request's chunks map with its pinned buffers (VNPU_WINDOW_MB=8: 1 MiB chunks). */
#define HTP_STAGE_CHUNK_MAX    (16u << 20)
#define HTP_STAGE_WINDOW_SHARE 8
#define HTP_STAGE_ALIGN        128

size_t htp_stage_chunk_size(size_t window_size) {
    const size_t share = window_size / HTP_STAGE_WINDOW_SHARE & ~(size_t) (HTP_STAGE_ALIGN - 1);
    return share < HTP_STAGE_CHUNK_MAX ? share : HTP_STAGE_CHUNK_MAX;
}

/* Bump-allocate size bytes from a list of shared-DDR chunks: from chunk *cur at *used, moving on to the
 * next chunk that has room, appending a chunk (chunk_size bytes, or size) when none has. */
static enum vnpu_status arena_alloc(struct vdsp_buffer ***chunks, uint32_t *n_chunks, uint32_t *cur, size_t *used,
                                    size_t chunk_size, size_t size, const char *name, struct vdsp_buffer **buf,
                                    size_t *offset) {
    size = (size + HTP_STAGE_ALIGN - 1) & ~(size_t) (HTP_STAGE_ALIGN - 1);
    while (*cur<*n_chunks && * used + size>(*chunks)[*cur]->size) {
        (*cur)++;
        *used = 0;
    }
    if (*cur == *n_chunks) {
        struct vdsp_buffer **grown = realloc(*chunks, (*n_chunks + 1) * sizeof(*grown));
        if (!grown) {
            vnpu_log_error("%s: out of memory for a staging chunk list", name);
            return VNPU_STATUS_NO_MEMORY;
        }
        *chunks = grown;
        enum vnpu_status st = vdsp_buffer_alloc(size > chunk_size ? size : chunk_size, name, &(*chunks)[*n_chunks]);
        if (st != VNPU_STATUS_OK) {
            return st;
        }
        (*n_chunks)++;
        *used = 0;
    }
    *buf = (*chunks)[*cur];
    *offset = *used;
    *used += size;
    return VNPU_STATUS_OK;
}

/* The slot of (host, size) in the weight table: its entry or the empty slot where it goes. */
static struct htp_stage_entry *stage_slot(struct htp_stage *st, const void *host, size_t size) {
    for (uint32_t i = (uint32_t) vnpu_ptr_slot(host, st->cap_weights - 1);; i = (i + 1) & (st->cap_weights - 1)) {
        struct htp_stage_entry *e = &st->weights[i];
        if (!e->host || (e->host == host && e->size == size)) {
            return e;
        }
    }
}

/* Keep the weight table at most half full. */
static enum vnpu_status stage_reserve(struct htp_stage *st) {
    if (2 * (st->n_weights + 1) <= st->cap_weights) {
        return VNPU_STATUS_OK;
    }
    const uint32_t cap = st->cap_weights ? 2 * st->cap_weights : 64;
    struct htp_stage_entry *old = st->weights;
    const uint32_t old_cap = st->cap_weights;
    st->weights = calloc(cap, sizeof(*st->weights));
    if (!st->weights) {
        st->weights = old;
        vnpu_log_error("HTP: out of memory for %u weight copies", cap);
        return VNPU_STATUS_NO_MEMORY;
    }
    st->cap_weights = cap;
    for (uint32_t i = 0; i < old_cap; i++) {
        if (old[i].host) {
            *stage_slot(st, old[i].host, old[i].size) = old[i];
        }
    }
    free(old);
    return VNPU_STATUS_OK;
}

enum vnpu_status htp_stage_place(struct htp_stage *st, const struct vnpu_tensor *t, struct vdsp_buffer **buf,
                                 size_t *offset, bool *pinned, bool *copy) {
    *copy = false;
    if ((*buf = htp_buffer_of(t, offset, pinned))) {
        return VNPU_STATUS_OK;
    }
    const size_t size = vnpu_nbytes(t);
    *pinned = false;
    if (!(t->flags & VNPU_TENSOR_FLAG_WEIGHT)) {
        *copy = true;
        return arena_alloc(&st->scratch_chunks, &st->n_scratch, &st->scratch_cur, &st->scratch_used, st->chunk_size,
                           size, "HTP-stage", buf, offset);
    }
    enum vnpu_status s = stage_reserve(st);
    if (s != VNPU_STATUS_OK) {
        return s;
    }
    struct htp_stage_entry *e = stage_slot(st, t->data, size);
    if (!e->host) {
        uint32_t cur = st->n_chunks ? st->n_chunks - 1 : 0;
        s = arena_alloc(&st->chunks, &st->n_chunks, &cur, &st->chunk_used, st->chunk_size, size, "HTP-weights", &e->buf,
                        &e->offset);
        if (s != VNPU_STATUS_OK) {
            return s;
        }
        memcpy((uint8_t *) e->buf->host + e->offset, t->data, size);
        e->host = t->data;
        e->size = size;
        st->n_weights++;
    }
    *buf = e->buf;
    *offset = e->offset;
    return VNPU_STATUS_OK;
}

void htp_stage_reset(struct htp_stage *st) {
    st->scratch_cur = 0;
    st->scratch_used = 0;
}

bool htp_stage_holds(const struct htp_stage *st, const void *base, size_t size) {
    const uintptr_t lo = (uintptr_t) base;
    for (uint32_t i = 0; i < st->cap_weights; i++) {
        const uintptr_t host = (uintptr_t) st->weights[i].host;
        if (host && host >= lo && host - lo < size) {
            return true;
        }
    }
    return false;
}

void htp_stage_free_weights(struct htp_stage *st) {
    for (uint32_t i = 0; i < st->n_chunks; i++) {
        vdsp_buffer_free(st->chunks[i]);
    }
    free(st->chunks);
    free(st->weights);
    st->chunks = NULL;
    st->n_chunks = 0;
    st->chunk_used = 0;
    st->weights = NULL;
    st->n_weights = st->cap_weights = 0;
}

void htp_stage_free(struct htp_stage *st) {
    htp_stage_free_weights(st);
    for (uint32_t i = 0; i < st->n_scratch; i++) {
        vdsp_buffer_free(st->scratch_chunks[i]);
    }
    free(st->scratch_chunks);
    memset(st, 0, sizeof(*st));
}
