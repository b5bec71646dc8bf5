/*
 * GGUF writer: version 3, little-endian, in the layout of llama.cpp's gguf_write_to_file (ggml/src/
 * gguf.cpp): header; kvs in the order first set; tensor infos in the order added, offsets packed with
 * each tensor padded to the alignment; zero padding to the alignment; the tensor data, each padded too.
 *
 * Each kv is kept encoded as it goes in the file (value type, then for arrays the element type and
 * count, then the payload), so writing it is one copy and replacing it frees one buffer.
 */
#include "gguf.h"

#include "file-out.h"

#include "log.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "GGUF values are written in place as little-endian: a big-endian host needs byte swapping here"
#endif

struct gguf_writer_kv {
    char *key; /* key bytes (key_len of them, gguf_key_check's), NUL-terminated */
    uint64_t key_len;
    uint8_t *value; /* encoded value: u32 type, [u32 element type, u64 count,] payload */
    size_t size;
};

struct gguf_writer_tensor {
    char name[GGUF_MAX_NAME];
    enum vnpu_type type;
    uint32_t n_dims;
    int64_t ne[GGUF_MAX_DIMS];
    const void *data; /* size bytes, owned by the caller */
    size_t size;
};

struct gguf_writer {
    struct gguf_writer_kv *kv;
    int64_t n_kv, cap_kv;
    struct gguf_writer_tensor *tensors;
    int64_t n_tensors, cap_tensors;
    size_t alignment;
    enum vnpu_status status; /* first failed set/add call; gguf_writer_write returns it */
};

struct gguf_writer *gguf_writer_new(void) {
    struct gguf_writer *w = calloc(1, sizeof(*w));
    if (!w) {
        vnpu_log_error("gguf writer: no memory");
        return NULL;
    }
    w->alignment = GGUF_DEFAULT_ALIGNMENT;
    return w;
}

void gguf_writer_free(struct gguf_writer *w) {
    if (!w) {
        return;
    }
    for (int64_t i = 0; i < w->n_kv; i++) {
        free(w->kv[i].key);
        free(w->kv[i].value);
    }
    free(w->kv);
    free(w->tensors);
    free(w);
}

static void writer_fail(struct gguf_writer *w, enum vnpu_status status) {
    if (w->status == VNPU_STATUS_OK) {
        w->status = status;
    }
}

/* Grow an array of elem-byte entries to hold n + 1; false (logged, writer failed) when out of memory. */
static bool writer_grow(struct gguf_writer *w, void **arr, int64_t n, int64_t *cap, size_t elem) {
    if (n < *cap) {
        return true;
    }
    const int64_t new_cap = *cap ? 2 * *cap : 16;
    void *p = realloc(*arr, (size_t) new_cap * elem);
    if (!p) {
        vnpu_log_error("gguf writer: no memory for %" PRId64 " entries", new_cap);
        writer_fail(w, VNPU_STATUS_NO_MEMORY);
        return false;
    }
    *arr = p;
    *cap = new_cap;
    return true;
}

static uint8_t *put(uint8_t *q, const void *src, size_t n) {
    if (n) {
        memcpy(q, src, n);
    }
    return q + n;
}

/* A buffer for an encoded value of size bytes; NULL (logged, writer failed) when out of memory. */
static uint8_t *value_new(struct gguf_writer *w, struct gguf_str key, size_t size) {
    uint8_t *v = malloc(size);
    if (!v) {
        vnpu_log_error("gguf writer: key '%.*s': no memory for a %zu-byte value", (int) key.len, key.data, size);
        writer_fail(w, VNPU_STATUS_NO_MEMORY);
    }
    return v;
}

/* general.alignment sets the data alignment; it must be a u32 power of two, as llama.cpp requires. */
static bool alignment_check(struct gguf_writer *w, struct gguf_str key, const uint8_t *value) {
    static const char name[] = "general.alignment";
    uint32_t type, a;
    if (key.len != sizeof(name) - 1 || memcmp(key.data, name, key.len) != 0) {
        return true;
    }
    memcpy(&type, value, sizeof(type));
    if (type != GGUF_TYPE_UINT32) {
        vnpu_log_error("gguf writer: general.alignment must be u32, got %s", gguf_type_name((enum gguf_type) type));
        writer_fail(w, VNPU_STATUS_BAD_ARG);
        return false;
    }
    memcpy(&a, value + sizeof(type), sizeof(a));
    if (a == 0 || (a & (a - 1)) != 0) {
        vnpu_log_error("gguf writer: general.alignment %u is not a power of two", a);
        writer_fail(w, VNPU_STATUS_BAD_ARG);
        return false;
    }
    w->alignment = a;
    return true;
}

/* Store an encoded value under key (taking value), replacing an earlier one in its position. A key the reader would
 * refuse (gguf_key_check) fails the writer. */
static void writer_put_kv(struct gguf_writer *w, struct gguf_str key, uint8_t *value, size_t size) {
    char why[192];
    if (!gguf_key_check(key.data, key.len, why, sizeof(why))) {
        char shown[52];
        snprintf(shown, sizeof(shown), "%.*s", (int) (key.len < 48 ? key.len : 48), key.data);
        vnpu_log_error("gguf writer: key '%s': %s", shown, why);
        writer_fail(w, VNPU_STATUS_BAD_ARG);
        free(value);
        return;
    }
    if (!alignment_check(w, key, value)) {
        free(value);
        return;
    }
    for (int64_t i = 0; i < w->n_kv; i++) {
        struct gguf_writer_kv *kv = &w->kv[i];
        if (kv->key_len == key.len && memcmp(kv->key, key.data, key.len) == 0) {
            free(kv->value);
            kv->value = value;
            kv->size = size;
            return;
        }
    }
    char *copy = malloc(key.len + 1);
    if (!copy || !writer_grow(w, (void **) &w->kv, w->n_kv, &w->cap_kv, sizeof(*w->kv))) {
        if (!copy) {
            vnpu_log_error("gguf writer: no memory for a %" PRIu64 "-byte key", key.len);
            writer_fail(w, VNPU_STATUS_NO_MEMORY);
        }
        free(copy);
        free(value);
        return;
    }
    put((uint8_t *) copy, key.data, key.len);
    copy[key.len] = '\0';
    w->kv[w->n_kv++] = (struct gguf_writer_kv){.key = copy, .key_len = key.len, .value = value, .size = size};
}

static struct gguf_str str_of(const char *s) {
    return (struct gguf_str){.data = s, .len = strlen(s)};
}

static void set_scalar(struct gguf_writer *w, struct gguf_str key, enum gguf_type type, const void *v) {
    const uint32_t t = type;
    const size_t size = sizeof(t) + gguf_type_size(type);
    uint8_t *value = value_new(w, key, size);
    if (value) {
        put(put(value, &t, sizeof(t)), v, gguf_type_size(type));
        writer_put_kv(w, key, value, size);
    }
}

static void set_str(struct gguf_writer *w, struct gguf_str key, struct gguf_str s) {
    const uint32_t t = GGUF_TYPE_STRING;
    const size_t size = sizeof(t) + sizeof(s.len) + s.len;
    uint8_t *value = value_new(w, key, size);
    if (value) {
        put(put(put(value, &t, sizeof(t)), &s.len, sizeof(s.len)), s.data, s.len);
        writer_put_kv(w, key, value, size);
    }
}

static void set_arr_data(struct gguf_writer *w, struct gguf_str key, enum gguf_type type, const void *data,
                         uint64_t n) {
    VNPU_ASSERT(type < GGUF_TYPE_COUNT && gguf_type_size(type) > 0);
    const uint32_t t[2] = {GGUF_TYPE_ARRAY, type};
    const size_t payload = (size_t) n * gguf_type_size(type);
    const size_t size = sizeof(t) + sizeof(n) + payload;
    uint8_t *value = value_new(w, key, size);
    if (value) {
        put(put(put(value, t, sizeof(t)), &n, sizeof(n)), data, payload);
        writer_put_kv(w, key, value, size);
    }
}

static void set_arr_str(struct gguf_writer *w, struct gguf_str key, const struct gguf_str *v, uint64_t n) {
    const uint32_t t[2] = {GGUF_TYPE_ARRAY, GGUF_TYPE_STRING};
    size_t size = sizeof(t) + sizeof(n);
    for (uint64_t j = 0; j < n; j++) {
        size += sizeof(v[j].len) + v[j].len;
    }
    uint8_t *value = value_new(w, key, size);
    if (!value) {
        return;
    }
    uint8_t *q = put(put(value, t, sizeof(t)), &n, sizeof(n));
    for (uint64_t j = 0; j < n; j++) {
        q = put(put(q, &v[j].len, sizeof(v[j].len)), v[j].data, v[j].len);
    }
    writer_put_kv(w, key, value, size);
}

void gguf_writer_set_u8(struct gguf_writer *w, const char *key, uint8_t v) {
    set_scalar(w, str_of(key), GGUF_TYPE_UINT8, &v);
}

void gguf_writer_set_i8(struct gguf_writer *w, const char *key, int8_t v) {
    set_scalar(w, str_of(key), GGUF_TYPE_INT8, &v);
}

void gguf_writer_set_u16(struct gguf_writer *w, const char *key, uint16_t v) {
    set_scalar(w, str_of(key), GGUF_TYPE_UINT16, &v);
}

void gguf_writer_set_i16(struct gguf_writer *w, const char *key, int16_t v) {
    set_scalar(w, str_of(key), GGUF_TYPE_INT16, &v);
}

void gguf_writer_set_u32(struct gguf_writer *w, const char *key, uint32_t v) {
    set_scalar(w, str_of(key), GGUF_TYPE_UINT32, &v);
}

void gguf_writer_set_i32(struct gguf_writer *w, const char *key, int32_t v) {
    set_scalar(w, str_of(key), GGUF_TYPE_INT32, &v);
}

void gguf_writer_set_f32(struct gguf_writer *w, const char *key, float v) {
    set_scalar(w, str_of(key), GGUF_TYPE_FLOAT32, &v);
}

void gguf_writer_set_u64(struct gguf_writer *w, const char *key, uint64_t v) {
    set_scalar(w, str_of(key), GGUF_TYPE_UINT64, &v);
}

void gguf_writer_set_i64(struct gguf_writer *w, const char *key, int64_t v) {
    set_scalar(w, str_of(key), GGUF_TYPE_INT64, &v);
}

void gguf_writer_set_f64(struct gguf_writer *w, const char *key, double v) {
    set_scalar(w, str_of(key), GGUF_TYPE_FLOAT64, &v);
}

void gguf_writer_set_bool(struct gguf_writer *w, const char *key, bool v) {
    const uint8_t b = v ? 1 : 0; /* the file's bool is one byte, 0 or 1 */
    set_scalar(w, str_of(key), GGUF_TYPE_BOOL, &b);
}

void gguf_writer_set_str(struct gguf_writer *w, const char *key, const char *v) {
    set_str(w, str_of(key), str_of(v));
}

void gguf_writer_set_arr_data(struct gguf_writer *w, const char *key, enum gguf_type type, const void *data,
                              uint64_t n) {
    set_arr_data(w, str_of(key), type, data, n);
}

void gguf_writer_set_arr_str(struct gguf_writer *w, const char *key, const struct gguf_str *v, uint64_t n) {
    set_arr_str(w, str_of(key), v, n);
}

static void copy_arr(struct gguf_writer *w, struct gguf_str key, const struct gguf_file *f, int64_t i) {
    const enum gguf_type type = gguf_get_arr_type(f, i);
    const uint64_t n = gguf_get_arr_n(f, i);
    if (type != GGUF_TYPE_STRING) {
        set_arr_data(w, key, type, gguf_get_arr_data(f, i), n);
        return;
    }
    struct gguf_str *v = malloc((size_t) (n ? n : 1) * sizeof(*v));
    if (!v) {
        vnpu_log_error("gguf writer: key '%.*s': no memory for %" PRIu64 " strings", (int) key.len, key.data, n);
        writer_fail(w, VNPU_STATUS_NO_MEMORY);
        return;
    }
    for (uint64_t j = 0; j < n; j++) {
        v[j] = gguf_get_arr_str(f, i, j);
    }
    set_arr_str(w, key, v, n);
    free(v);
}

void gguf_writer_copy_kv(struct gguf_writer *w, const struct gguf_file *f, int64_t i) {
    const struct gguf_str key = gguf_kv_key(f, i);
    const enum gguf_type type = gguf_kv_type(f, i);
    union {
        uint8_t u8;
        int8_t i8;
        uint16_t u16;
        int16_t i16;
        uint32_t u32;
        int32_t i32;
        float f32;
        uint64_t u64;
        int64_t i64;
        double f64;
    } v; /* every member starts at byte 0, where set_scalar reads the value */
    switch (type) {
        case GGUF_TYPE_UINT8: v.u8 = gguf_get_u8(f, i); break;
        case GGUF_TYPE_INT8: v.i8 = gguf_get_i8(f, i); break;
        case GGUF_TYPE_UINT16: v.u16 = gguf_get_u16(f, i); break;
        case GGUF_TYPE_INT16: v.i16 = gguf_get_i16(f, i); break;
        case GGUF_TYPE_UINT32: v.u32 = gguf_get_u32(f, i); break;
        case GGUF_TYPE_INT32: v.i32 = gguf_get_i32(f, i); break;
        case GGUF_TYPE_FLOAT32: v.f32 = gguf_get_f32(f, i); break;
        case GGUF_TYPE_BOOL: v.u8 = gguf_get_bool(f, i) ? 1 : 0; break;
        case GGUF_TYPE_UINT64: v.u64 = gguf_get_u64(f, i); break;
        case GGUF_TYPE_INT64: v.i64 = gguf_get_i64(f, i); break;
        case GGUF_TYPE_FLOAT64: v.f64 = gguf_get_f64(f, i); break;
        case GGUF_TYPE_STRING: set_str(w, key, gguf_get_str(f, i)); return;
        case GGUF_TYPE_ARRAY: copy_arr(w, key, f, i); return;
        case GGUF_TYPE_COUNT: VNPU_ASSERT(!"a read kv has a valid type"); return;
    }
    set_scalar(w, key, type, &v);
}

/* The byte size of a tensor, or false (logged) when its name, dims or type cannot be written. */
static bool tensor_check(const struct gguf_writer *w, const char *name, enum vnpu_type type, uint32_t n_dims,
                         const int64_t *ne, size_t *size) {
    const size_t len = strlen(name);
    if (len == 0 || len >= GGUF_MAX_NAME) {
        vnpu_log_error("gguf writer: tensor '%s': name is %zu bytes, expected 1..%d", name, len, GGUF_MAX_NAME - 1);
        return false;
    }
    for (int64_t i = 0; i < w->n_tensors; i++) {
        if (strcmp(w->tensors[i].name, name) == 0) {
            vnpu_log_error("gguf writer: tensor '%s': duplicate name (first at tensor %" PRId64 ")", name, i);
            return false;
        }
    }
    if (n_dims == 0 || n_dims > GGUF_MAX_DIMS) {
        vnpu_log_error("gguf writer: tensor '%s': %u dims, expected 1..%d", name, n_dims, GGUF_MAX_DIMS);
        return false;
    }
    if (!vnpu_type_is_valid((uint32_t) type)) {
        vnpu_log_error("gguf writer: tensor '%s': invalid type id %d", name, (int) type);
        return false;
    }
    const struct vnpu_type_traits *tt = vnpu_type_traits_get(type);
    int64_t nelements = 1;
    for (uint32_t d = 0; d < n_dims; d++) {
        if (ne[d] <= 0 || __builtin_mul_overflow(nelements, ne[d], &nelements)) {
            vnpu_log_error("gguf writer: tensor '%s': ne[%u] = %" PRId64 " is not >= 1 or overflows the element count",
                           name, d, ne[d]);
            return false;
        }
    }
    if (ne[0] % tt->blck != 0 || __builtin_mul_overflow((size_t) (nelements / tt->blck), tt->size, size)) {
        vnpu_log_error("gguf writer: tensor '%s': ne[0] = %" PRId64 " is not whole %s blocks of %" PRId64
                       " or the size overflows",
                       name, ne[0], tt->name, tt->blck);
        return false;
    }
    return true;
}

void gguf_writer_add_tensor(struct gguf_writer *w, const char *name, enum vnpu_type type, uint32_t n_dims,
                            const int64_t *ne, const void *data) {
    size_t size;
    if (!tensor_check(w, name, type, n_dims, ne, &size)) {
        writer_fail(w, VNPU_STATUS_BAD_ARG);
        return;
    }
    if (!writer_grow(w, (void **) &w->tensors, w->n_tensors, &w->cap_tensors, sizeof(*w->tensors))) {
        return;
    }
    struct gguf_writer_tensor *t = &w->tensors[w->n_tensors++];
    *t = (struct gguf_writer_tensor){.type = type, .n_dims = n_dims, .data = data, .size = size};
    snprintf(t->name, sizeof(t->name), "%s", name);
    for (uint32_t d = 0; d < GGUF_MAX_DIMS; d++) {
        t->ne[d] = d < n_dims ? ne[d] : 1;
    }
}

/* ---- output: a FILE with a byte count and the first error ---- */

struct gguf_out {
    FILE *fp;
    size_t pos;
    int err; /* errno of the first failed write, 0 while all went well */
};

static void out_put(struct gguf_out *o, const void *data, size_t n) {
    if (o->err == 0 && n > 0 && fwrite(data, 1, n, o->fp) != n) {
        o->err = errno ? errno : EIO;
    }
    o->pos += n;
}

static void out_u32(struct gguf_out *o, uint32_t v) {
    out_put(o, &v, sizeof(v));
}

static void out_u64(struct gguf_out *o, uint64_t v) {
    out_put(o, &v, sizeof(v));
}

static void out_pad(struct gguf_out *o, size_t alignment) {
    static const uint8_t zeros[4096];
    size_t n = (alignment - o->pos % alignment) % alignment;
    while (n > 0) {
        const size_t k = n < sizeof(zeros) ? n : sizeof(zeros);
        out_put(o, zeros, k);
        n -= k;
    }
}

static size_t pad_to(size_t size, size_t alignment) {
    return size + (alignment - size % alignment) % alignment;
}

static void out_file(struct gguf_out *o, const struct gguf_writer *w) {
    out_put(o, GGUF_MAGIC, 4);
    out_u32(o, 3);
    out_u64(o, (uint64_t) w->n_tensors);
    out_u64(o, (uint64_t) w->n_kv);
    for (int64_t i = 0; i < w->n_kv; i++) {
        out_u64(o, w->kv[i].key_len);
        out_put(o, w->kv[i].key, w->kv[i].key_len);
        out_put(o, w->kv[i].value, w->kv[i].size);
    }
    uint64_t offset = 0;
    for (int64_t i = 0; i < w->n_tensors; i++) {
        const struct gguf_writer_tensor *t = &w->tensors[i];
        out_u64(o, strlen(t->name));
        out_put(o, t->name, strlen(t->name));
        out_u32(o, t->n_dims);
        for (uint32_t d = 0; d < t->n_dims; d++) {
            out_u64(o, (uint64_t) t->ne[d]);
        }
        out_u32(o, (uint32_t) t->type);
        out_u64(o, offset);
        offset += pad_to(t->size, w->alignment);
    }
    out_pad(o, w->alignment);
    for (int64_t i = 0; i < w->n_tensors; i++) {
        out_put(o, w->tensors[i].data, w->tensors[i].size);
        out_pad(o, w->alignment);
    }
}

enum vnpu_status gguf_writer_write(struct gguf_writer *w, const char *path) {
    if (w->status != VNPU_STATUS_OK) {
        return w->status;
    }
    struct vnpu_file_out f;
    const enum vnpu_status st = vnpu_file_out_open(path, &f);
    if (st != VNPU_STATUS_OK) {
        return st;
    }
    struct gguf_out o = {.fp = f.fp};
    out_file(&o, w);
    return vnpu_file_out_commit(&f, o.err);
}
