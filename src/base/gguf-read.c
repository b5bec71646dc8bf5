/*
 * GGUF reader: map a file read-only, validate all of it, then answer lookups (rules in gguf.h).
 *
 * Format facts (ggml/docs/gguf.md, ggml/src/gguf.cpp of ggml 0.23.0):
 * - v2 and v3 share one layout: u64 tensor and kv counts, u64 string lengths. v1 used u32 ones and is
 *   rejected. v3 only marks that big-endian files may exist; such a file reads here as a version whose
 *   low 16 bits are zero, and is rejected (vnpu reads little-endian files only).
 * - A bool is one byte, 0 or 1; gguf.md calls anything else invalid, so it is rejected (and a consumer
 *   may memcpy a bool array into C bools).
 * - gguf.md allows arrays of arrays; llama.cpp's reader rejects them ("invalid GGUF type") and no
 *   writer emits them, so they are rejected here too.
 * - llama.cpp also wants tensor data packed in tensor-info order; vnpu accepts any order and gaps as
 *   long as every tensor is aligned, inside the file and overlaps no other.
 */
#include "gguf.h"

#include "hash.h"
#include "log.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "GGUF values are read in place as little-endian: a big-endian host needs byte swapping here"
#endif
static_assert(sizeof(size_t) == sizeof(uint64_t), "GGUF sizes and offsets are u64: the reader needs a 64-bit host");

#define GGUF_KV_MIN_SIZE     13 /* key length, type, a 1-byte value */
#define GGUF_TENSOR_MIN_SIZE 33 /* name length and 1 byte, n_dims, one ne, type, offset */
#define GGUF_MSG_NAME_MAX    48 /* key and tensor names are cut to this in messages */

struct gguf_value_traits {
    const char *name;
    size_t size; /* bytes of one value; 0 for string and array */
};

static const struct gguf_value_traits value_traits[GGUF_TYPE_COUNT] = {
    [GGUF_TYPE_UINT8] = {"u8", 1},    [GGUF_TYPE_INT8] = {"i8", 1},    [GGUF_TYPE_UINT16] = {"u16", 2},
    [GGUF_TYPE_INT16] = {"i16", 2},   [GGUF_TYPE_UINT32] = {"u32", 4}, [GGUF_TYPE_INT32] = {"i32", 4},
    [GGUF_TYPE_FLOAT32] = {"f32", 4}, [GGUF_TYPE_BOOL] = {"bool", 1},  [GGUF_TYPE_STRING] = {"str", 0},
    [GGUF_TYPE_ARRAY] = {"arr", 0},   [GGUF_TYPE_UINT64] = {"u64", 8}, [GGUF_TYPE_INT64] = {"i64", 8},
    [GGUF_TYPE_FLOAT64] = {"f64", 8},
};
static_assert(GGUF_TYPE_COUNT == 13, "new GGUF value type: add its row here");

const char *gguf_type_name(enum gguf_type type) {
    return (unsigned) type < GGUF_TYPE_COUNT ? value_traits[type].name : "?";
}

size_t gguf_type_size(enum gguf_type type) {
    VNPU_ASSERT((unsigned) type < GGUF_TYPE_COUNT);
    return value_traits[type].size;
}

/* ---- name index: open addressing over (bytes, length) -> position, for keys and tensor names ---- */

struct name_slot {
    const char *name;
    uint64_t len;
    int64_t idx; /* -1: empty */
};

struct name_index {
    struct name_slot *slots;
    size_t mask; /* capacity - 1; capacity is a power of two >= 2 * entries */
};

static bool name_index_init(struct name_index *ix, int64_t n) {
    size_t cap = 8;
    while (cap < 2 * (size_t) n) {
        cap *= 2;
    }
    ix->slots = malloc(cap * sizeof(*ix->slots));
    if (!ix->slots) {
        return false;
    }
    for (size_t i = 0; i < cap; i++) {
        ix->slots[i].idx = -1;
    }
    ix->mask = cap - 1;
    return true;
}

/* The slot holding name, or the empty slot where it would go. */
static struct name_slot *name_index_slot(const struct name_index *ix, const char *name, uint64_t len) {
    for (size_t i = vnpu_fnv1a64(name, len) & ix->mask;; i = (i + 1) & ix->mask) {
        struct name_slot *s = &ix->slots[i];
        if (s->idx < 0 || (s->len == len && memcmp(s->name, name, len) == 0)) {
            return s;
        }
    }
}

/* Insert name at position idx; returns -1, or the position already holding that name. */
static int64_t name_index_insert(struct name_index *ix, const char *name, uint64_t len, int64_t idx) {
    struct name_slot *s = name_index_slot(ix, name, len);
    if (s->idx >= 0) {
        return s->idx;
    }
    *s = (struct name_slot){.name = name, .len = len, .idx = idx};
    return -1;
}

/* ---- the file object ---- */

struct gguf_kv {
    struct gguf_str key;
    enum gguf_type type;     /* GGUF_TYPE_ARRAY for arrays */
    enum gguf_type arr_type; /* element type of an array */
    uint64_t n;              /* array elements; 1 for a scalar */
    const uint8_t *data;     /* scalar value or packed array elements, inside the mapping */
    struct gguf_str str;     /* a string value */
    struct gguf_str *strs;   /* elements of a string array (n entries, owned) */
};

struct gguf_file {
    char *path;
    const uint8_t *base;
    size_t size;
    void *map; /* the mapping for gguf_open (map_size bytes); NULL for memory and empty files */
    size_t map_size;
    uint32_t version;
    size_t alignment;
    size_t data_offset;
    int64_t n_kv;
    struct gguf_kv *kv;
    int64_t n_tensors;
    struct gguf_tensor_info *tensors;
    struct name_index kv_index;
    struct name_index tensor_index;
};

void gguf_close(struct gguf_file *f) {
    if (!f) {
        return;
    }
    for (int64_t i = 0; i < f->n_kv; i++) {
        free(f->kv[i].strs);
    }
    free(f->kv);
    free(f->tensors);
    free(f->kv_index.slots);
    free(f->tensor_index.slots);
    if (f->map) {
        munmap(f->map, f->map_size);
    }
    free(f->path);
    free(f);
}

/* ---- the parser: a cursor that never reads past the end, and messages that name the field ---- */

struct gguf_parser {
    struct gguf_file *f;
    size_t pos;     /* next byte to read */
    char where[96]; /* the item being read: "header", "kv 3 'general.name'", "tensor 0 'output.weight'" */
};

static size_t parser_left(const struct gguf_parser *p) {
    return p->f->size - p->pos;
}

/* Printable copy of a name from the file for messages: at most GGUF_MSG_NAME_MAX bytes, others as '?'. */
static void msg_name(char *dst, size_t cap, const char *s, uint64_t len) {
    size_t n = 0;
    for (; n < len && n + 4 < cap && n < GGUF_MSG_NAME_MAX; n++) {
        const unsigned char c = (unsigned char) s[n];
        dst[n] = c >= 0x20 && c < 0x7f ? (char) c : '?';
    }
    if (n < len) {
        memcpy(dst + n, "...", 3);
        n += 3;
    }
    dst[n] = '\0';
}

static void parser_where(struct gguf_parser *p, const char *item, int64_t i, const char *name, uint64_t len) {
    char shown[GGUF_MSG_NAME_MAX + 4];
    msg_name(shown, sizeof(shown), name, len);
    snprintf(p->where, sizeof(p->where), "%s %" PRId64 " '%s'", item, i, shown);
}

/* Take n bytes at the cursor, or log that the file ends first. field[idx] names them (idx < 0: no index). */
static bool parser_take(struct gguf_parser *p, size_t n, const char *field, int64_t idx, const uint8_t **out) {
    if (n > parser_left(p)) {
        char at[24] = "";
        if (idx >= 0) {
            snprintf(at, sizeof(at), "[%" PRId64 "]", idx);
        }
        vnpu_log_error("%s: %s %s%s: truncated: needs %zu bytes at offset %zu, the file ends at %zu", p->f->path,
                       p->where, field, at, n, p->pos, p->f->size);
        return false;
    }
    *out = p->f->base + p->pos;
    p->pos += n;
    return true;
}

static bool parser_u32(struct gguf_parser *p, const char *field, uint32_t *v) {
    const uint8_t *b;
    if (!parser_take(p, sizeof(*v), field, -1, &b)) {
        return false;
    }
    memcpy(v, b, sizeof(*v));
    return true;
}

static bool parser_u64(struct gguf_parser *p, const char *field, int64_t idx, uint64_t *v) {
    const uint8_t *b;
    if (!parser_take(p, sizeof(*v), field, idx, &b)) {
        return false;
    }
    memcpy(v, b, sizeof(*v));
    return true;
}

/* A u64 length, then that many bytes; a length past the end of the file is its own message. */
static bool parser_str(struct gguf_parser *p, const char *field, int64_t idx, struct gguf_str *s) {
    uint64_t len;
    if (!parser_u64(p, field, idx, &len)) {
        return false;
    }
    if (len > parser_left(p)) {
        char at[24] = "";
        if (idx >= 0) {
            snprintf(at, sizeof(at), "[%" PRId64 "]", idx);
        }
        vnpu_log_error("%s: %s %s%s: string length %" PRIu64 " past the end of the file (%zu bytes left at offset %zu)",
                       p->f->path, p->where, field, at, len, parser_left(p), p->pos);
        return false;
    }
    s->data = (const char *) p->f->base + p->pos;
    s->len = len;
    p->pos += len;
    return true;
}

static bool parser_bools(struct gguf_parser *p, const uint8_t *b, uint64_t n) {
    for (uint64_t j = 0; j < n; j++) {
        if (b[j] > 1) {
            vnpu_log_error("%s: %s: bool value[%" PRIu64 "] is %u, expected 0 or 1", p->f->path, p->where, j, b[j]);
            return false;
        }
    }
    return true;
}

static enum vnpu_status parse_header(struct gguf_parser *p) {
    struct gguf_file *f = p->f;
    snprintf(p->where, sizeof(p->where), "header");
    const uint8_t *magic;
    uint64_t n_tensors, n_kv;
    if (!parser_take(p, 4, "magic", -1, &magic)) {
        return VNPU_STATUS_BAD_FILE;
    }
    if (memcmp(magic, GGUF_MAGIC, 4) != 0) {
        vnpu_log_error("%s: bad magic %02x %02x %02x %02x, expected \"GGUF\"", f->path, magic[0], magic[1], magic[2],
                       magic[3]);
        return VNPU_STATUS_BAD_FILE;
    }
    if (!parser_u32(p, "version", &f->version)) {
        return VNPU_STATUS_BAD_FILE;
    }
    if (f->version != 2 && f->version != 3) {
        if ((f->version & 0xffff) == 0 && f->version != 0) {
            vnpu_log_error("%s: version 0x%08x: a big-endian GGUF file? vnpu reads little-endian GGUF v2 and v3",
                           f->path, f->version);
        } else if (f->version == 1) {
            vnpu_log_error("%s: version 1 is not supported (u32 counts): vnpu reads GGUF v2 and v3", f->path);
        } else {
            vnpu_log_error("%s: version %u is not supported: vnpu reads GGUF v2 and v3", f->path, f->version);
        }
        return VNPU_STATUS_BAD_FILE;
    }
    if (!parser_u64(p, "n_tensors", -1, &n_tensors) || !parser_u64(p, "n_kv", -1, &n_kv)) {
        return VNPU_STATUS_BAD_FILE;
    }
    const size_t left = parser_left(p);
    if (n_kv > left / GGUF_KV_MIN_SIZE) {
        vnpu_log_error("%s: header: n_kv = %" PRIu64 " cannot fit: %zu bytes left hold at most %zu kvs of >= %d bytes",
                       f->path, n_kv, left, left / GGUF_KV_MIN_SIZE, GGUF_KV_MIN_SIZE);
        return VNPU_STATUS_BAD_FILE;
    }
    const size_t left_infos = left - (size_t) n_kv * GGUF_KV_MIN_SIZE;
    if (n_tensors > left_infos / GGUF_TENSOR_MIN_SIZE) {
        vnpu_log_error("%s: header: n_tensors = %" PRIu64 " cannot fit: %zu bytes left after %" PRIu64
                       " kvs hold at most %zu tensor infos of >= %d bytes",
                       f->path, n_tensors, left_infos, n_kv, left_infos / GGUF_TENSOR_MIN_SIZE, GGUF_TENSOR_MIN_SIZE);
        return VNPU_STATUS_BAD_FILE;
    }
    f->n_kv = (int64_t) n_kv;
    f->n_tensors = (int64_t) n_tensors;
    return VNPU_STATUS_OK;
}

static enum vnpu_status parse_array(struct gguf_parser *p, struct gguf_kv *kv) {
    const char *path = p->f->path;
    uint32_t arr_type;
    if (!parser_u32(p, "array type", &arr_type) || !parser_u64(p, "array count", -1, &kv->n)) {
        return VNPU_STATUS_BAD_FILE;
    }
    if (arr_type == GGUF_TYPE_ARRAY) {
        vnpu_log_error("%s: %s: nested arrays are not supported (as in llama.cpp's GGUF reader)", path, p->where);
        return VNPU_STATUS_BAD_FILE;
    }
    if (arr_type >= GGUF_TYPE_COUNT) {
        vnpu_log_error("%s: %s: unknown array element type %u, expected 0..%d", path, p->where, arr_type,
                       GGUF_TYPE_COUNT - 1);
        return VNPU_STATUS_BAD_FILE;
    }
    kv->arr_type = (enum gguf_type) arr_type;
    if (kv->arr_type != GGUF_TYPE_STRING) {
        const size_t size = value_traits[arr_type].size;
        if (kv->n > parser_left(p) / size) {
            vnpu_log_error("%s: %s: array of %" PRIu64 " %s past the end of the file (%zu bytes left at offset %zu)",
                           path, p->where, kv->n, value_traits[arr_type].name, parser_left(p), p->pos);
            return VNPU_STATUS_BAD_FILE;
        }
        if (!parser_take(p, (size_t) kv->n * size, "array", -1, &kv->data)) {
            return VNPU_STATUS_BAD_FILE;
        }
        return kv->arr_type == GGUF_TYPE_BOOL && !parser_bools(p, kv->data, kv->n) ? VNPU_STATUS_BAD_FILE
                                                                                   : VNPU_STATUS_OK;
    }
    if (kv->n > parser_left(p) / sizeof(uint64_t)) {
        vnpu_log_error("%s: %s: array of %" PRIu64 " strings past the end of the file (%zu bytes left at offset %zu "
                       "hold at most %zu string lengths)",
                       path, p->where, kv->n, parser_left(p), p->pos, parser_left(p) / sizeof(uint64_t));
        return VNPU_STATUS_BAD_FILE;
    }
    kv->strs = malloc((size_t) (kv->n ? kv->n : 1) * sizeof(*kv->strs));
    if (!kv->strs) {
        vnpu_log_error("%s: %s: no memory for %" PRIu64 " strings", path, p->where, kv->n);
        return VNPU_STATUS_NO_MEMORY;
    }
    for (uint64_t j = 0; j < kv->n; j++) {
        if (!parser_str(p, "value", (int64_t) j, &kv->strs[j])) {
            return VNPU_STATUS_BAD_FILE;
        }
    }
    return VNPU_STATUS_OK;
}

bool gguf_key_check(const char *key, uint64_t len, char *why, size_t size) {
    if (len == 0) {
        snprintf(why, size, "empty key: a key is segments of a-z, 0-9 and '_' separated by '.' (gguf.md)");
        return false;
    }
    if (len > GGUF_MAX_KEY) {
        snprintf(why, size, "key of %" PRIu64 " bytes, the limit is %d (gguf.md)", len, GGUF_MAX_KEY);
        return false;
    }
    for (uint64_t j = 0; j < len; j++) {
        const unsigned char c = (unsigned char) key[j];
        if (c == '.') {
            if (j == 0 || j + 1 == len || key[j + 1] == '.') {
                snprintf(why, size, "key byte %" PRIu64 ": a '.' %s leaves a segment empty (gguf.md)", j,
                         j == 0         ? "first"
                         : j + 1 == len ? "last"
                                        : "twice in a row");
                return false;
            }
        } else if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-')) {
            char shown[8];
            if (c >= 0x20 && c < 0x7f) {
                snprintf(shown, sizeof(shown), "'%c'", c);
            } else {
                snprintf(shown, sizeof(shown), "0x%02x", c);
            }
            snprintf(why, size,
                     "key byte %" PRIu64 " is %s: a key's segments are lower_snake_case ASCII, a-z, 0-9 and '_' "
                     "(gguf.md; and '-', as in llama.cpp's architecture names)",
                     j, shown);
            return false;
        }
    }
    return true;
}

static enum vnpu_status parse_kv(struct gguf_parser *p, int64_t i) {
    struct gguf_file *f = p->f;
    struct gguf_kv *kv = &f->kv[i];
    snprintf(p->where, sizeof(p->where), "kv %" PRId64, i);
    uint32_t type;
    if (!parser_str(p, "key", -1, &kv->key)) {
        return VNPU_STATUS_BAD_FILE;
    }
    parser_where(p, "kv", i, kv->key.data, kv->key.len);
    char why[192];
    if (!gguf_key_check(kv->key.data, kv->key.len, why, sizeof(why))) {
        vnpu_log_error("%s: %s: %s", f->path, p->where, why);
        return VNPU_STATUS_BAD_FILE;
    }
    const int64_t first = name_index_insert(&f->kv_index, kv->key.data, kv->key.len, i);
    if (first >= 0) {
        vnpu_log_error("%s: %s: duplicate key (first at kv %" PRId64 ")", f->path, p->where, first);
        return VNPU_STATUS_BAD_FILE;
    }
    if (!parser_u32(p, "type", &type)) {
        return VNPU_STATUS_BAD_FILE;
    }
    if (type >= GGUF_TYPE_COUNT) {
        vnpu_log_error("%s: %s: unknown value type %u, expected 0..%d", f->path, p->where, type, GGUF_TYPE_COUNT - 1);
        return VNPU_STATUS_BAD_FILE;
    }
    kv->type = (enum gguf_type) type;
    kv->n = 1;
    if (kv->type == GGUF_TYPE_ARRAY) {
        return parse_array(p, kv);
    }
    if (kv->type == GGUF_TYPE_STRING) {
        return parser_str(p, "value", -1, &kv->str) ? VNPU_STATUS_OK : VNPU_STATUS_BAD_FILE;
    }
    if (!parser_take(p, value_traits[type].size, "value", -1, &kv->data)) {
        return VNPU_STATUS_BAD_FILE;
    }
    return kv->type == GGUF_TYPE_BOOL && !parser_bools(p, kv->data, 1) ? VNPU_STATUS_BAD_FILE : VNPU_STATUS_OK;
}

static enum vnpu_status parse_alignment(struct gguf_file *f) {
    const int64_t i = gguf_find_key(f, "general.alignment");
    f->alignment = GGUF_DEFAULT_ALIGNMENT;
    if (i < 0) {
        return VNPU_STATUS_OK;
    }
    if (f->kv[i].type != GGUF_TYPE_UINT32) {
        vnpu_log_error("%s: kv %" PRId64 " 'general.alignment': type %s, expected u32", f->path, i,
                       gguf_type_name(f->kv[i].type));
        return VNPU_STATUS_BAD_FILE;
    }
    const uint32_t a = gguf_get_u32(f, i);
    if (a == 0 || (a & (a - 1)) != 0) {
        vnpu_log_error("%s: kv %" PRId64 " 'general.alignment': %u is not a power of two", f->path, i, a);
        return VNPU_STATUS_BAD_FILE;
    }
    f->alignment = a;
    return VNPU_STATUS_OK;
}

static enum vnpu_status parse_tensor_name(struct gguf_parser *p, int64_t i, struct gguf_tensor_info *t) {
    struct gguf_file *f = p->f;
    struct gguf_str name;
    snprintf(p->where, sizeof(p->where), "tensor %" PRId64, i);
    if (!parser_str(p, "name", -1, &name)) {
        return VNPU_STATUS_BAD_FILE;
    }
    if (name.len == 0) {
        vnpu_log_error("%s: tensor %" PRId64 ": empty name", f->path, i);
        return VNPU_STATUS_BAD_FILE;
    }
    parser_where(p, "tensor", i, name.data, name.len);
    if (name.len >= GGUF_MAX_NAME) {
        vnpu_log_error("%s: %s: name is %" PRIu64 " bytes, the limit is %d (GGML_MAX_NAME - 1)", f->path, p->where,
                       name.len, GGUF_MAX_NAME - 1);
        return VNPU_STATUS_BAD_FILE;
    }
    if (memchr(name.data, '\0', name.len)) {
        vnpu_log_error("%s: %s: name contains a NUL byte", f->path, p->where);
        return VNPU_STATUS_BAD_FILE;
    }
    memcpy(t->name, name.data, name.len);
    t->name[name.len] = '\0';
    const int64_t first = name_index_insert(&f->tensor_index, t->name, name.len, i);
    if (first >= 0) {
        vnpu_log_error("%s: %s: duplicate tensor name (first at tensor %" PRId64 ")", f->path, p->where, first);
        return VNPU_STATUS_BAD_FILE;
    }
    return VNPU_STATUS_OK;
}

/* Name, shape and type of tensor info i, with its element count and byte size checked for overflow. */
static enum vnpu_status parse_tensor_info(struct gguf_parser *p, int64_t i) {
    struct gguf_file *f = p->f;
    struct gguf_tensor_info *t = &f->tensors[i];
    enum vnpu_status st = parse_tensor_name(p, i, t);
    uint32_t type;
    if (st != VNPU_STATUS_OK) {
        return st;
    }
    if (!parser_u32(p, "n_dims", &t->n_dims)) {
        return VNPU_STATUS_BAD_FILE;
    }
    if (t->n_dims == 0 || t->n_dims > GGUF_MAX_DIMS) {
        vnpu_log_error("%s: %s: %u dims, expected 1..%d", f->path, p->where, t->n_dims, GGUF_MAX_DIMS);
        return VNPU_STATUS_BAD_FILE;
    }
    int64_t nelements = 1;
    for (uint32_t d = 0; d < GGUF_MAX_DIMS; d++) {
        uint64_t ne = 1;
        if (d < t->n_dims && !parser_u64(p, "ne", d, &ne)) {
            return VNPU_STATUS_BAD_FILE;
        }
        t->ne[d] = (int64_t) ne;
        if (t->ne[d] <= 0) {
            vnpu_log_error("%s: %s: ne[%u] = %" PRId64 ", expected >= 1", f->path, p->where, d, t->ne[d]);
            return VNPU_STATUS_BAD_FILE;
        }
        if (__builtin_mul_overflow(nelements, t->ne[d], &nelements)) {
            vnpu_log_error("%s: %s: element count of ne[0..%u] overflows int64", f->path, p->where, d);
            return VNPU_STATUS_BAD_FILE;
        }
    }
    if (!parser_u32(p, "type", &type)) {
        return VNPU_STATUS_BAD_FILE;
    }
    if (!vnpu_type_is_valid(type)) {
        vnpu_log_error("%s: %s: %s type id %u (GGML types are 0..%d)", f->path, p->where,
                       type < VNPU_TYPE_COUNT ? "removed" : "unknown", type, VNPU_TYPE_COUNT - 1);
        return VNPU_STATUS_BAD_FILE;
    }
    t->type = (enum vnpu_type) type;
    const struct vnpu_type_traits *tt = vnpu_type_traits_get(t->type);
    if (t->ne[0] % tt->blck != 0) {
        vnpu_log_error("%s: %s: ne[0] = %" PRId64 " is not a multiple of the %s block size %" PRId64, f->path, p->where,
                       t->ne[0], tt->name, tt->blck);
        return VNPU_STATUS_BAD_FILE;
    }
    /* ne[0] is whole blocks and the element count fits int64, so only the block bytes can overflow */
    uint64_t size;
    if (__builtin_mul_overflow((uint64_t) (nelements / tt->blck), (uint64_t) tt->size, &size)) {
        vnpu_log_error("%s: %s: byte size of %" PRId64 " %s elements overflows", f->path, p->where, nelements,
                       tt->name);
        return VNPU_STATUS_BAD_FILE;
    }
    t->size = (size_t) size;
    return parser_u64(p, "offset", -1, &t->offset) ? VNPU_STATUS_OK : VNPU_STATUS_BAD_FILE;
}

struct tensor_span {
    uint64_t begin, end;
    int64_t idx;
};

static int tensor_span_cmp(const void *a, const void *b) {
    const struct tensor_span *x = a, *y = b;
    return x->begin < y->begin ? -1 : x->begin > y->begin ? 1 : 0;
}

/* Data section start, then each tensor's offset: aligned, inside the file, overlapping no other. */
static enum vnpu_status place_tensors(struct gguf_parser *p) {
    struct gguf_file *f = p->f;
    const size_t infos_end = p->pos;
    f->data_offset = infos_end + (f->alignment - infos_end % f->alignment) % f->alignment;
    if (f->n_tensors == 0) {
        return VNPU_STATUS_OK;
    }
    if (f->data_offset > f->size) {
        vnpu_log_error("%s: data section starts at %zu (tensor infos end at %zu, alignment %zu), past the end of the "
                       "file at %zu",
                       f->path, f->data_offset, infos_end, f->alignment, f->size);
        return VNPU_STATUS_BAD_FILE;
    }
    const uint64_t avail = f->size - f->data_offset;
    struct tensor_span *spans = malloc((size_t) f->n_tensors * sizeof(*spans));
    if (!spans) {
        vnpu_log_error("%s: no memory to check %" PRId64 " tensor offsets", f->path, f->n_tensors);
        return VNPU_STATUS_NO_MEMORY;
    }
    enum vnpu_status st = VNPU_STATUS_OK;
    for (int64_t i = 0; i < f->n_tensors && st == VNPU_STATUS_OK; i++) {
        struct gguf_tensor_info *t = &f->tensors[i];
        if (t->offset % f->alignment != 0) {
            vnpu_log_error("%s: tensor %" PRId64 " '%s': offset %" PRIu64 " is not a multiple of the alignment %zu",
                           f->path, i, t->name, t->offset, f->alignment);
            st = VNPU_STATUS_BAD_FILE;
        } else if (t->offset > avail || t->size > avail - t->offset) {
            vnpu_log_error("%s: tensor %" PRId64 " '%s': data at offset %" PRIu64 ", %zu bytes, past the end of the "
                           "data section (%" PRIu64 " bytes from file offset %zu)",
                           f->path, i, t->name, t->offset, t->size, avail, f->data_offset);
            st = VNPU_STATUS_BAD_FILE;
        } else {
            t->data = f->base + f->data_offset + t->offset;
            spans[i] = (struct tensor_span){.begin = t->offset, .end = t->offset + t->size, .idx = i};
        }
    }
    if (st == VNPU_STATUS_OK) {
        qsort(spans, (size_t) f->n_tensors, sizeof(*spans), tensor_span_cmp);
        for (int64_t k = 1; k < f->n_tensors; k++) {
            const struct tensor_span *a = &spans[k - 1], *b = &spans[k];
            if (b->begin < a->end) {
                vnpu_log_error("%s: tensor %" PRId64 " '%s': data [%" PRIu64 ", %" PRIu64 ") overlaps tensor %" PRId64
                               " '%s' data [%" PRIu64 ", %" PRIu64 ")",
                               f->path, b->idx, f->tensors[b->idx].name, b->begin, b->end, a->idx,
                               f->tensors[a->idx].name, a->begin, a->end);
                st = VNPU_STATUS_BAD_FILE;
                break;
            }
        }
    }
    free(spans);
    return st;
}

static enum vnpu_status parse_file(struct gguf_file *f) {
    struct gguf_parser p = {.f = f};
    enum vnpu_status st = parse_header(&p);
    if (st != VNPU_STATUS_OK) {
        return st;
    }
    f->kv = calloc((size_t) (f->n_kv ? f->n_kv : 1), sizeof(*f->kv));
    f->tensors = calloc((size_t) (f->n_tensors ? f->n_tensors : 1), sizeof(*f->tensors));
    if (!f->kv || !f->tensors || !name_index_init(&f->kv_index, f->n_kv) ||
        !name_index_init(&f->tensor_index, f->n_tensors)) {
        vnpu_log_error("%s: no memory for %" PRId64 " kvs and %" PRId64 " tensors", f->path, f->n_kv, f->n_tensors);
        return VNPU_STATUS_NO_MEMORY;
    }
    for (int64_t i = 0; i < f->n_kv && st == VNPU_STATUS_OK; i++) {
        st = parse_kv(&p, i);
    }
    if (st == VNPU_STATUS_OK) {
        st = parse_alignment(f);
    }
    for (int64_t i = 0; i < f->n_tensors && st == VNPU_STATUS_OK; i++) {
        st = parse_tensor_info(&p, i);
    }
    return st == VNPU_STATUS_OK ? place_tensors(&p) : st;
}

/* Take ownership of f (its base/size set): validate it, or log why not, free it and return NULL. */
static enum vnpu_status gguf_finish(struct gguf_file *f, struct gguf_file **out) {
    const enum vnpu_status st = parse_file(f);
    if (st != VNPU_STATUS_OK) {
        gguf_close(f);
        return st;
    }
    *out = f;
    return VNPU_STATUS_OK;
}

static struct gguf_file *gguf_file_new(const char *name) {
    struct gguf_file *f = calloc(1, sizeof(*f));
    if (f) {
        f->path = strdup(name);
    }
    if (!f || !f->path) {
        vnpu_log_error("%s: no memory to open it", name);
        free(f);
        return NULL;
    }
    return f;
}

enum vnpu_status gguf_open_memory(const void *data, size_t size, const char *label, struct gguf_file **out) {
    *out = NULL;
    struct gguf_file *f = gguf_file_new(label);
    if (!f) {
        return VNPU_STATUS_NO_MEMORY;
    }
    f->base = size ? data : (const uint8_t *) "";
    f->size = size;
    return gguf_finish(f, out);
}

enum vnpu_status gguf_open(const char *path, struct gguf_file **out) {
    *out = NULL;
    struct stat st;
    const int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        vnpu_log_error("%s: cannot open: %s", path, strerror(errno));
        return VNPU_STATUS_IO;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        vnpu_log_error("%s: cannot open: not a regular file", path);
        close(fd);
        return VNPU_STATUS_IO;
    }
    struct gguf_file *f = gguf_file_new(path);
    if (!f) {
        close(fd);
        return VNPU_STATUS_NO_MEMORY;
    }
    f->base = (const uint8_t *) "";
    f->size = (size_t) st.st_size;
    if (f->size > 0) {
        f->map = mmap(NULL, f->size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (f->map == MAP_FAILED) {
            vnpu_log_error("%s: cannot map %zu bytes: %s", path, f->size, strerror(errno));
            f->map = NULL;
            close(fd);
            gguf_close(f);
            return VNPU_STATUS_IO;
        }
        f->map_size = f->size;
        f->base = f->map;
    }
    close(fd);
    return gguf_finish(f, out);
}

/* ---- lookups ---- */

const char *gguf_path(const struct gguf_file *f) {
    return f->path;
}

uint32_t gguf_version(const struct gguf_file *f) {
    return f->version;
}

size_t gguf_alignment(const struct gguf_file *f) {
    return f->alignment;
}

size_t gguf_data_offset(const struct gguf_file *f) {
    return f->data_offset;
}

size_t gguf_file_size(const struct gguf_file *f) {
    return f->size;
}

int64_t gguf_n_kv(const struct gguf_file *f) {
    return f->n_kv;
}

int64_t gguf_find_key(const struct gguf_file *f, const char *key) {
    return name_index_slot(&f->kv_index, key, strlen(key))->idx;
}

static const struct gguf_kv *kv_at(const struct gguf_file *f, int64_t i) {
    VNPU_ASSERT(i >= 0 && i < f->n_kv);
    return &f->kv[i];
}

struct gguf_str gguf_kv_key(const struct gguf_file *f, int64_t i) {
    return kv_at(f, i)->key;
}

enum gguf_type gguf_kv_type(const struct gguf_file *f, int64_t i) {
    return kv_at(f, i)->type;
}

/* Copy the scalar value of kv i, which must have type type, into v (size bytes). */
static void kv_scalar(const struct gguf_file *f, int64_t i, enum gguf_type type, void *v, size_t size) {
    const struct gguf_kv *kv = kv_at(f, i);
    VNPU_ASSERT(kv->type == type && value_traits[type].size == size);
    memcpy(v, kv->data, size);
}

uint8_t gguf_get_u8(const struct gguf_file *f, int64_t i) {
    uint8_t v;
    kv_scalar(f, i, GGUF_TYPE_UINT8, &v, sizeof(v));
    return v;
}

int8_t gguf_get_i8(const struct gguf_file *f, int64_t i) {
    int8_t v;
    kv_scalar(f, i, GGUF_TYPE_INT8, &v, sizeof(v));
    return v;
}

uint16_t gguf_get_u16(const struct gguf_file *f, int64_t i) {
    uint16_t v;
    kv_scalar(f, i, GGUF_TYPE_UINT16, &v, sizeof(v));
    return v;
}

int16_t gguf_get_i16(const struct gguf_file *f, int64_t i) {
    int16_t v;
    kv_scalar(f, i, GGUF_TYPE_INT16, &v, sizeof(v));
    return v;
}

uint32_t gguf_get_u32(const struct gguf_file *f, int64_t i) {
    uint32_t v;
    kv_scalar(f, i, GGUF_TYPE_UINT32, &v, sizeof(v));
    return v;
}

int32_t gguf_get_i32(const struct gguf_file *f, int64_t i) {
    int32_t v;
    kv_scalar(f, i, GGUF_TYPE_INT32, &v, sizeof(v));
    return v;
}

float gguf_get_f32(const struct gguf_file *f, int64_t i) {
    float v;
    kv_scalar(f, i, GGUF_TYPE_FLOAT32, &v, sizeof(v));
    return v;
}

uint64_t gguf_get_u64(const struct gguf_file *f, int64_t i) {
    uint64_t v;
    kv_scalar(f, i, GGUF_TYPE_UINT64, &v, sizeof(v));
    return v;
}

int64_t gguf_get_i64(const struct gguf_file *f, int64_t i) {
    int64_t v;
    kv_scalar(f, i, GGUF_TYPE_INT64, &v, sizeof(v));
    return v;
}

double gguf_get_f64(const struct gguf_file *f, int64_t i) {
    double v;
    kv_scalar(f, i, GGUF_TYPE_FLOAT64, &v, sizeof(v));
    return v;
}

bool gguf_get_bool(const struct gguf_file *f, int64_t i) {
    uint8_t v;
    kv_scalar(f, i, GGUF_TYPE_BOOL, &v, sizeof(v));
    return v != 0;
}

struct gguf_str gguf_get_str(const struct gguf_file *f, int64_t i) {
    const struct gguf_kv *kv = kv_at(f, i);
    VNPU_ASSERT(kv->type == GGUF_TYPE_STRING);
    return kv->str;
}

static const struct gguf_kv *kv_array(const struct gguf_file *f, int64_t i) {
    const struct gguf_kv *kv = kv_at(f, i);
    VNPU_ASSERT(kv->type == GGUF_TYPE_ARRAY);
    return kv;
}

enum gguf_type gguf_get_arr_type(const struct gguf_file *f, int64_t i) {
    return kv_array(f, i)->arr_type;
}

uint64_t gguf_get_arr_n(const struct gguf_file *f, int64_t i) {
    return kv_array(f, i)->n;
}

const void *gguf_get_arr_data(const struct gguf_file *f, int64_t i) {
    const struct gguf_kv *kv = kv_array(f, i);
    VNPU_ASSERT(kv->arr_type != GGUF_TYPE_STRING);
    return kv->data;
}

struct gguf_str gguf_get_arr_str(const struct gguf_file *f, int64_t i, uint64_t j) {
    const struct gguf_kv *kv = kv_array(f, i);
    VNPU_ASSERT(kv->arr_type == GGUF_TYPE_STRING && j < kv->n);
    return kv->strs[j];
}

bool gguf_get_int(const struct gguf_file *f, int64_t i, int64_t *value) {
    switch (gguf_kv_type(f, i)) {
        case GGUF_TYPE_UINT8: *value = gguf_get_u8(f, i); return true;
        case GGUF_TYPE_INT8: *value = gguf_get_i8(f, i); return true;
        case GGUF_TYPE_UINT16: *value = gguf_get_u16(f, i); return true;
        case GGUF_TYPE_INT16: *value = gguf_get_i16(f, i); return true;
        case GGUF_TYPE_UINT32: *value = gguf_get_u32(f, i); return true;
        case GGUF_TYPE_INT32: *value = gguf_get_i32(f, i); return true;
        case GGUF_TYPE_INT64: *value = gguf_get_i64(f, i); return true;
        case GGUF_TYPE_UINT64: {
            const uint64_t v = gguf_get_u64(f, i);
            if (v > INT64_MAX) {
                return false;
            }
            *value = (int64_t) v;
            return true;
        }
        case GGUF_TYPE_FLOAT32:
        case GGUF_TYPE_BOOL:
        case GGUF_TYPE_STRING:
        case GGUF_TYPE_ARRAY:
        case GGUF_TYPE_FLOAT64:
        case GGUF_TYPE_COUNT: return false;
    }
    return false;
}

int64_t gguf_n_tensors(const struct gguf_file *f) {
    return f->n_tensors;
}

const struct gguf_tensor_info *gguf_tensor(const struct gguf_file *f, int64_t i) {
    VNPU_ASSERT(i >= 0 && i < f->n_tensors);
    return &f->tensors[i];
}

int64_t gguf_find_tensor(const struct gguf_file *f, const char *name) {
    return name_index_slot(&f->tensor_index, name, strlen(name))->idx;
}
