#include "gguf-builder.h"

#include "gguf.h"
#include "log.h"

#include <stdlib.h>
#include <string.h>

/* Tensor data is written only below this offset: cases with huge offsets get none. */
#define GB_DATA_LIMIT (1u << 20)

void gb_bytes_put(struct gb_bytes *b, const void *data, size_t n) {
    if (b->size + n > b->cap) {
        b->cap = b->cap ? b->cap : 256;
        while (b->size + n > b->cap) {
            b->cap *= 2;
        }
        b->data = realloc(b->data, b->cap);
        VNPU_ASSERT(b->data);
    }
    if (n) {
        memcpy(b->data + b->size, data, n);
    }
    b->size += n;
}

void gb_bytes_free(struct gb_bytes *b) {
    free(b->data);
    *b = (struct gb_bytes){0};
}

static void patch(struct gb_bytes *b, size_t at, const void *v, size_t n) {
    VNPU_ASSERT(at + n <= b->size);
    memcpy(b->data + at, v, n);
}

void gb_patch_u8(struct gb_bytes *b, size_t at, uint8_t v) {
    patch(b, at, &v, sizeof(v));
}

void gb_patch_u32(struct gb_bytes *b, size_t at, uint32_t v) {
    patch(b, at, &v, sizeof(v));
}

void gb_patch_u64(struct gb_bytes *b, size_t at, uint64_t v) {
    patch(b, at, &v, sizeof(v));
}

static void put_u32(struct gb_bytes *b, uint32_t v) {
    gb_bytes_put(b, &v, sizeof(v));
}

static void put_u64(struct gb_bytes *b, uint64_t v) {
    gb_bytes_put(b, &v, sizeof(v));
}

static void put_str(struct gb_bytes *b, const char *s, uint64_t len) {
    put_u64(b, len);
    gb_bytes_put(b, s, len);
}

static void put_pad(struct gb_bytes *b, size_t alignment) {
    static const uint8_t zero;
    while (b->size % alignment != 0) {
        gb_bytes_put(b, &zero, 1);
    }
}

struct gb_kv *gb_add_kv(struct gb_file *f, const char *key, uint32_t type) {
    VNPU_ASSERT(f->n_kv < GB_MAX_KV);
    struct gb_kv *kv = &f->kv[f->n_kv++];
    *kv = (struct gb_kv){.key = key, .type = type};
    return kv;
}

void gb_default(struct gb_file *f) {
    static uint8_t blob[500]; /* sized so that the tensor infos end 13 bytes before the data section */
    static const char *const names[] = {"alpha", "bc"};
    static const float values[] = {1.0f, 2.0f, 3.0f};
    static const uint8_t flags[] = {0, 1};
    for (size_t k = 0; k < sizeof(blob); k++) {
        blob[k] = (uint8_t) (k * 7 + 3);
    }
    *f = (struct gb_file){.magic = {'G', 'G', 'U', 'F'}, .version = 3, .alignment = GGUF_DEFAULT_ALIGNMENT};
    struct gb_kv *kv = gb_add_kv(f, "test.blob", GGUF_TYPE_ARRAY);
    kv->arr_type = GGUF_TYPE_UINT8;
    kv->n = sizeof(blob);
    kv->elems = blob;
    gb_add_kv(f, "general.architecture", GGUF_TYPE_STRING)->str = "vnpu-test";
    gb_add_kv(f, "test.count", GGUF_TYPE_UINT32)->bits = 7;
    gb_add_kv(f, "test.flag", GGUF_TYPE_BOOL)->bits = 1;
    kv = gb_add_kv(f, "test.names", GGUF_TYPE_ARRAY);
    *kv = (struct gb_kv){.key = kv->key, .type = GGUF_TYPE_ARRAY, .arr_type = GGUF_TYPE_STRING, .n = 2, .strs = names};
    kv = gb_add_kv(f, "test.values", GGUF_TYPE_ARRAY);
    *kv =
        (struct gb_kv){.key = kv->key, .type = GGUF_TYPE_ARRAY, .arr_type = GGUF_TYPE_FLOAT32, .n = 3, .elems = values};
    kv = gb_add_kv(f, "test.flags", GGUF_TYPE_ARRAY);
    *kv = (struct gb_kv){.key = kv->key, .type = GGUF_TYPE_ARRAY, .arr_type = GGUF_TYPE_BOOL, .n = 2, .elems = flags};
    f->n_tensors = 3;
    f->t[0] = (struct gb_tensor){.name = "t.a", .n_dims = 2, .ne = {8, 2}, .type = VNPU_TYPE_F32};
    f->t[1] = (struct gb_tensor){.name = "t.b", .n_dims = 2, .ne = {32, 2}, .type = VNPU_TYPE_Q8_0};
    f->t[2] = (struct gb_tensor){.name = "t.c", .n_dims = 1, .ne = {4}, .type = VNPU_TYPE_F16};
}

uint8_t gb_data_byte(int i, size_t k) {
    return (uint8_t) (i * 37 + k * 11 + 1);
}

/* Data bytes of a described tensor, or 0 when its dims or type make it unwritable or huge. */
static size_t tensor_size(const struct gb_tensor *t) {
    if (t->n_dims == 0 || t->n_dims > GGUF_MAX_DIMS || !vnpu_type_is_valid(t->type)) {
        return 0;
    }
    const struct vnpu_type_traits *tt = vnpu_type_traits_get((enum vnpu_type) t->type);
    int64_t blocks = 1;
    for (uint32_t d = 0; d < t->n_dims; d++) {
        if (t->ne[d] <= 0 || t->ne[d] > GB_DATA_LIMIT || (d == 0 && t->ne[0] % tt->blck != 0)) {
            return 0;
        }
        blocks *= d == 0 ? t->ne[0] / tt->blck : t->ne[d];
        if (blocks > GB_DATA_LIMIT) {
            return 0;
        }
    }
    return (size_t) blocks * tt->size;
}

static void put_value(struct gb_bytes *b, const struct gb_kv *kv) {
    if (kv->type == GGUF_TYPE_STRING) {
        put_str(b, kv->str, strlen(kv->str));
    } else if (kv->type == GGUF_TYPE_ARRAY) {
        put_u32(b, kv->arr_type);
        put_u64(b, kv->n);
        if (kv->arr_type == GGUF_TYPE_STRING) {
            for (uint64_t j = 0; j < kv->n; j++) {
                put_str(b, kv->strs[j], strlen(kv->strs[j]));
            }
        } else if (kv->arr_type < GGUF_TYPE_COUNT && gguf_type_size(kv->arr_type) > 0) {
            gb_bytes_put(b, kv->elems, (size_t) kv->n * gguf_type_size(kv->arr_type));
        }
    } else if (kv->type < GGUF_TYPE_COUNT) {
        gb_bytes_put(b, &kv->bits, gguf_type_size(kv->type));
    }
}

void gb_serialize(const struct gb_file *f, struct gb_bytes *out, struct gb_layout *lay) {
    out->size = 0;
    *lay = (struct gb_layout){0};
    gb_bytes_put(out, f->magic, 4);
    put_u32(out, f->version);
    lay->n_tensors = out->size;
    put_u64(out, (uint64_t) f->n_tensors);
    lay->n_kv = out->size;
    put_u64(out, (uint64_t) f->n_kv);
    for (int i = 0; i < f->n_kv; i++) {
        const struct gb_kv *kv = &f->kv[i];
        lay->kv[i] = out->size;
        put_str(out, kv->key, strlen(kv->key));
        lay->kv_type[i] = out->size;
        put_u32(out, kv->type);
        lay->kv_value[i] = out->size;
        put_value(out, kv);
    }
    uint64_t next = 0;
    for (int i = 0; i < f->n_tensors; i++) {
        const struct gb_tensor *t = &f->t[i];
        lay->size[i] = tensor_size(t);
        lay->offset[i] = t->offset_set ? t->offset : next;
        next = lay->offset[i] + lay->size[i] + (f->alignment - lay->size[i] % f->alignment) % f->alignment;
        lay->ti[i] = out->size;
        put_str(out, t->name, t->name_len ? t->name_len : strlen(t->name));
        lay->ti_n_dims[i] = out->size;
        put_u32(out, t->n_dims);
        lay->ti_ne[i] = out->size;
        for (uint32_t d = 0; d < t->n_dims && d < GB_MAX_NE; d++) {
            put_u64(out, (uint64_t) t->ne[d]);
        }
        lay->ti_type[i] = out->size;
        put_u32(out, t->type);
        lay->ti_offset[i] = out->size;
        put_u64(out, lay->offset[i]);
    }
    lay->infos_end = out->size;
    put_pad(out, f->alignment);
    lay->data = out->size;
    for (int i = 0; i < f->n_tensors; i++) {
        if (lay->size[i] == 0 || lay->offset[i] >= GB_DATA_LIMIT) {
            continue;
        }
        const size_t at = lay->data + (size_t) lay->offset[i];
        const size_t end = at + lay->size[i];
        while (out->size < end) {
            static const uint8_t zero;
            gb_bytes_put(out, &zero, 1);
        }
        for (size_t k = 0; k < lay->size[i]; k++) {
            out->data[at + k] = gb_data_byte(i, k);
        }
    }
    put_pad(out, f->alignment);
}
