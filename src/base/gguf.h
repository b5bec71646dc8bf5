/*
 * GGUF files, versions 2 and 3: a strict reader (mapped read-only) and a writer.
 *
 * Format (ggml/docs/gguf.md): magic "GGUF", u32 version, u64 n_tensors, u64 n_kv; n_kv key/value pairs
 * (string key, u32 value type, value); n_tensors tensor infos (string name, u32 n_dims, u64 ne[n_dims],
 * u32 type, u64 offset); padding to general.alignment (default 32); the data section, where each
 * tensor's offset is relative to the section start and a multiple of the alignment. Strings are a u64
 * length and that many bytes (not NUL-terminated). Everything is little-endian.
 *
 * The reader validates the whole file before returning it: every count and length is bounded by the
 * bytes left in the file before it sizes anything, and every rule the format implies is checked (see
 * gguf_open). Each rejection logs one message naming the file, the field (key or tensor name, index)
 * and the limit broken, and returns VNPU_STATUS_BAD_FILE.
 */
#ifndef VNPU_GGUF_H
#define VNPU_GGUF_H

#include "type-traits.h"
#include "vnpu.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GGUF_MAGIC             "GGUF"
#define GGUF_DEFAULT_ALIGNMENT 32
#define GGUF_MAX_DIMS          4
#define GGUF_MAX_NAME          64 /* tensor names are shorter than this (GGML_MAX_NAME) */

enum gguf_type {
    GGUF_TYPE_UINT8 = 0,
    GGUF_TYPE_INT8 = 1,
    GGUF_TYPE_UINT16 = 2,
    GGUF_TYPE_INT16 = 3,
    GGUF_TYPE_UINT32 = 4,
    GGUF_TYPE_INT32 = 5,
    GGUF_TYPE_FLOAT32 = 6,
    GGUF_TYPE_BOOL = 7,
    GGUF_TYPE_STRING = 8,
    GGUF_TYPE_ARRAY = 9,
    GGUF_TYPE_UINT64 = 10,
    GGUF_TYPE_INT64 = 11,
    GGUF_TYPE_FLOAT64 = 12,
    GGUF_TYPE_COUNT = 13,
};

/* "u8", "i32", "f32", "bool", "str", "arr", ...; "?" for an id >= GGUF_TYPE_COUNT. */
const char *gguf_type_name(enum gguf_type type);

/* Bytes of one value of a numeric or bool type (u8: 1 ... f64: 8); 0 for string and array. */
size_t gguf_type_size(enum gguf_type type);

/* A string inside the mapped file: len bytes at data, not NUL-terminated. */
struct gguf_str {
    const char *data;
    uint64_t len;
};

struct gguf_tensor_info {
    char name[GGUF_MAX_NAME]; /* NUL-terminated copy */
    enum vnpu_type type;
    uint32_t n_dims;
    int64_t ne[GGUF_MAX_DIMS]; /* unused dimensions are 1 */
    uint64_t offset;           /* from the start of the data section */
    size_t size;               /* bytes: vnpu_row_size(type, ne[0]) * ne[1] * ne[2] * ne[3] */
    const void *data;          /* inside the read-only mapping */
};

struct gguf_file;

/* Open, map read-only and validate path. Rejected (VNPU_STATUS_BAD_FILE, one message): bad magic, version
 * not 2 or 3, n_kv or n_tensors that cannot fit in the remaining bytes, a string or array length past the
 * end, an unknown value type, nested arrays (an array whose elements are arrays: llama.cpp's reader
 * rejects them too), a bool byte other than 0 or 1 (gguf.md), a key gguf_key_check refuses, duplicate keys,
 * general.alignment not a
 * u32 power of two, n_dims 0 or > 4, a dimension <= 0, element counts that overflow int64, byte sizes
 * that overflow, unknown or removed tensor types, ne[0] not a multiple of the type's block size, tensor
 * names empty, too long (>= GGUF_MAX_NAME), holding a NUL byte or duplicated, a data section (when there
 * are tensors) starting past the end of the file, data offsets not a multiple of the alignment,
 * overlapping another tensor, or past the end of the file. Tensor data may come in any order, with gaps.
 * VNPU_STATUS_IO when the file cannot be opened or mapped, VNPU_STATUS_NO_MEMORY when the index cannot
 * be allocated. On error *out is NULL. */
enum vnpu_status gguf_open(const char *path, struct gguf_file **out);

/* The same validation on bytes in memory (not copied: they must outlive the file object); label names the
 * source in messages. Used by the fuzzer and tests. */
enum vnpu_status gguf_open_memory(const void *data, size_t size, const char *label, struct gguf_file **out);

void gguf_close(struct gguf_file *f); /* NULL is a no-op */

const char *gguf_path(const struct gguf_file *f); /* path or label given at open */
uint32_t gguf_version(const struct gguf_file *f);
size_t gguf_alignment(const struct gguf_file *f);
size_t gguf_data_offset(const struct gguf_file *f); /* file offset of the data section */
size_t gguf_file_size(const struct gguf_file *f);

/* ---- key/value pairs, in file order ---- */

#define GGUF_MAX_KEY 65535 /* bytes of a key at most (gguf.md: 2^16-1) */

/* Whether the len bytes at key are a GGUF key. gguf.md (gguf_metadata_kv_t) says a key "must be a valid ASCII
 * string", "a hierarchical key, where each segment is `lower_snake_case` and separated by a `.`", and "at most
 * 2^16-1/65535 bytes long": so 1..GGUF_MAX_KEY bytes of a-z, 0-9, '_' and '.', no segment empty (a '.' first, last
 * or twice in a row). Also '-', which llama.cpp's own files break the rule with: its architecture names
 * (command-r, gpt-oss, nomic-bert-moe, ...) head their keys ("command-r.block_count" in its
 * models/ggml-vocab-command-r.gguf); its reader checks no more than that a key is non-empty and unique. Digits may
 * start a segment (gguf-py's general.base_model.0.name). False: why (size bytes) says which rule, and where. */
bool gguf_key_check(const char *key, uint64_t len, char *why, size_t size);

int64_t gguf_n_kv(const struct gguf_file *f);
int64_t gguf_find_key(const struct gguf_file *f, const char *key); /* index, or -1 */
struct gguf_str gguf_kv_key(const struct gguf_file *f, int64_t i);
enum gguf_type gguf_kv_type(const struct gguf_file *f, int64_t i);

/* Scalar getters; the kv must have exactly that type (VNPU_ASSERT). */
uint8_t gguf_get_u8(const struct gguf_file *f, int64_t i);
int8_t gguf_get_i8(const struct gguf_file *f, int64_t i);
uint16_t gguf_get_u16(const struct gguf_file *f, int64_t i);
int16_t gguf_get_i16(const struct gguf_file *f, int64_t i);
uint32_t gguf_get_u32(const struct gguf_file *f, int64_t i);
int32_t gguf_get_i32(const struct gguf_file *f, int64_t i);
float gguf_get_f32(const struct gguf_file *f, int64_t i);
uint64_t gguf_get_u64(const struct gguf_file *f, int64_t i);
int64_t gguf_get_i64(const struct gguf_file *f, int64_t i);
double gguf_get_f64(const struct gguf_file *f, int64_t i);
bool gguf_get_bool(const struct gguf_file *f, int64_t i);
struct gguf_str gguf_get_str(const struct gguf_file *f, int64_t i);

/* Arrays: element type, count, and element access. For numeric and bool arrays gguf_get_arr_data points at
 * the packed little-endian elements inside the mapping (possibly unaligned: memcpy them). */
enum gguf_type gguf_get_arr_type(const struct gguf_file *f, int64_t i);
uint64_t gguf_get_arr_n(const struct gguf_file *f, int64_t i);
const void *gguf_get_arr_data(const struct gguf_file *f, int64_t i);
struct gguf_str gguf_get_arr_str(const struct gguf_file *f, int64_t i, uint64_t j);

/* Any integer kv (u8..i64, bool excluded) as int64; false when the kv is not an integer or a u64 above
 * INT64_MAX. */
bool gguf_get_int(const struct gguf_file *f, int64_t i, int64_t *value);

/* ---- tensors, in file order ---- */

int64_t gguf_n_tensors(const struct gguf_file *f);
const struct gguf_tensor_info *gguf_tensor(const struct gguf_file *f, int64_t i);
int64_t gguf_find_tensor(const struct gguf_file *f, const char *name); /* index, or -1 */

/* ---- writer ---- */

struct gguf_writer;

/* A writer for GGUF version 3 with the default alignment (general.alignment, when set, changes it).
 * NULL when out of memory (logged). */
struct gguf_writer *gguf_writer_new(void);
void gguf_writer_free(struct gguf_writer *w);

/* Set a key (replacing an earlier value of the same key, keeping its position). Strings and array
 * contents are copied. A key gguf_key_check refuses is logged and fails the writer (gguf_writer_write returns
 * VNPU_STATUS_BAD_ARG). */
void gguf_writer_set_u8(struct gguf_writer *w, const char *key, uint8_t v);
void gguf_writer_set_i8(struct gguf_writer *w, const char *key, int8_t v);
void gguf_writer_set_u16(struct gguf_writer *w, const char *key, uint16_t v);
void gguf_writer_set_i16(struct gguf_writer *w, const char *key, int16_t v);
void gguf_writer_set_u32(struct gguf_writer *w, const char *key, uint32_t v);
void gguf_writer_set_i32(struct gguf_writer *w, const char *key, int32_t v);
void gguf_writer_set_f32(struct gguf_writer *w, const char *key, float v);
void gguf_writer_set_u64(struct gguf_writer *w, const char *key, uint64_t v);
void gguf_writer_set_i64(struct gguf_writer *w, const char *key, int64_t v);
void gguf_writer_set_f64(struct gguf_writer *w, const char *key, double v);
void gguf_writer_set_bool(struct gguf_writer *w, const char *key, bool v);
void gguf_writer_set_str(struct gguf_writer *w, const char *key, const char *v);
/* n elements of a numeric or bool type, packed little-endian at data. */
void gguf_writer_set_arr_data(struct gguf_writer *w, const char *key, enum gguf_type type, const void *data,
                              uint64_t n);
void gguf_writer_set_arr_str(struct gguf_writer *w, const char *key, const struct gguf_str *v, uint64_t n);
/* Copy kv i of f (any type, arrays included) under the same key. */
void gguf_writer_copy_kv(struct gguf_writer *w, const struct gguf_file *f, int64_t i);

/* Add a tensor; data (vnpu_row_size(type, ne[0]) * rows bytes) is referenced, not copied, and must stay
 * valid until gguf_writer_write returns. */
void gguf_writer_add_tensor(struct gguf_writer *w, const char *name, enum vnpu_type type, uint32_t n_dims,
                            const int64_t *ne, const void *data);

/* Write the file through src/base/file-out.h: a temporary beside path renamed over it when complete, so a
 * failure never leaves a half-written file (VNPU_STATUS_IO with a message; VNPU_STATUS_BAD_ARG when path
 * exists and is not a regular file). Tensor data is laid
 * out in the order of the add calls, each padded to the alignment, as llama.cpp's gguf_write does.
 * A set/add call that failed earlier (logged then: VNPU_STATUS_BAD_ARG for a key gguf_key_check refuses, an
 * empty, too long or duplicate tensor name, bad dims, a type or ne[0] the type cannot hold, general.alignment not a u32
 * power of two; VNPU_STATUS_NO_MEMORY) makes this return that status without writing anything. */
enum vnpu_status gguf_writer_write(struct gguf_writer *w, const char *path);

#endif /* VNPU_GGUF_H */
