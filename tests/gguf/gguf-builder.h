/*
 * Hand-built GGUF images for tests: a file described as plain values (header fields, kvs, tensor infos)
 * and serialized byte by byte with no validation, so a test can write any well-formed, unusual or
 * malformed file without going through the writer under test. The serializer records where each field
 * landed (struct gb_layout), so a case can then cut the file at a boundary or patch a field in place.
 *
 * Layout written (ggml/docs/gguf.md): magic, u32 version, u64 n_tensors, u64 n_kv; each kv (u64 key
 * length, key, u32 type, value; arrays: u32 element type, u64 count, elements); each tensor info (u64
 * name length, name, u32 n_dims, n_dims x u64 ne, u32 type, u64 offset); zero padding to the alignment;
 * the data section, each tensor at its offset and the section padded at its end, as llama.cpp writes.
 */
#ifndef VNPU_TEST_GGUF_BUILDER_H
#define VNPU_TEST_GGUF_BUILDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GB_MAX_KV      64
#define GB_MAX_TENSORS 8
#define GB_MAX_NE      8 /* ne values a description can hold, so that n_dims > 4 can be written */

/* A growable byte buffer (aborts when out of memory: test code). */
struct gb_bytes {
    uint8_t *data;
    size_t size, cap;
};

void gb_bytes_put(struct gb_bytes *b, const void *data, size_t n);
void gb_bytes_free(struct gb_bytes *b);
/* Overwrite bytes at a file offset (little-endian), which must lie inside b. */
void gb_patch_u8(struct gb_bytes *b, size_t at, uint8_t v);
void gb_patch_u32(struct gb_bytes *b, size_t at, uint32_t v);
void gb_patch_u64(struct gb_bytes *b, size_t at, uint64_t v);

struct gb_kv {
    const char *key;
    uint32_t type;           /* value type as written, valid or not (enum gguf_type ids) */
    uint32_t arr_type;       /* element type, for GGUF_TYPE_ARRAY */
    uint64_t n;              /* element count, for arrays */
    uint64_t bits;           /* numeric or bool scalar: its little-endian bytes (gguf_type_size of them) */
    const char *str;         /* GGUF_TYPE_STRING value */
    const char *const *strs; /* array of strings: n of them */
    const void *elems;       /* array of numbers or bools: n packed elements */
};

struct gb_tensor {
    const char *name;
    uint64_t name_len; /* bytes of name written; 0: strlen(name) */
    uint32_t n_dims;
    int64_t ne[GB_MAX_NE]; /* the first n_dims are written */
    uint32_t type;         /* GGML type id as written */
    bool offset_set;       /* false: packed after the previous tensor, padded to the alignment */
    uint64_t offset;
};

struct gb_file {
    char magic[4];
    uint32_t version;
    uint32_t alignment; /* padding used for the data section (set general.alignment to match) */
    int n_kv;
    struct gb_kv kv[GB_MAX_KV];
    int n_tensors;
    struct gb_tensor t[GB_MAX_TENSORS];
};

/* File offsets where each field starts, filled by gb_serialize. */
struct gb_layout {
    size_t n_tensors, n_kv;     /* header counts */
    size_t kv[GB_MAX_KV];       /* key length */
    size_t kv_type[GB_MAX_KV];  /* value type */
    size_t kv_value[GB_MAX_KV]; /* value (for an array, its element type) */
    size_t ti[GB_MAX_TENSORS];  /* name length */
    size_t ti_n_dims[GB_MAX_TENSORS], ti_ne[GB_MAX_TENSORS], ti_type[GB_MAX_TENSORS], ti_offset[GB_MAX_TENSORS];
    size_t infos_end;                /* end of the tensor infos, where the padding starts */
    size_t data;                     /* the data section */
    uint64_t offset[GB_MAX_TENSORS]; /* each tensor's offset as written */
    size_t size[GB_MAX_TENSORS];     /* each tensor's data bytes (0 when its shape or type is invalid) */
};

/* The base file every case starts from: GGUF v3, alignment 32, kvs
 *   0 test.blob    [u8 x 500]  (first and large, so that a file cut in a later kv or a tensor info still
 *                               passes the header's "counts fit in the file" check and reaches the field)
 *   1 general.architecture = "vnpu-test"   2 test.count u32 = 7   3 test.flag bool = true
 *   4 test.names [str x 2] "alpha", "bc"   5 test.values [f32 x 3] 1, 2, 3   6 test.flags [bool x 2] 0, 1
 * and tensors 0 "t.a" f32 [8, 2], 1 "t.b" q8_0 [32, 2], 2 "t.c" f16 [4], packed in that order. */
void gb_default(struct gb_file *f);

/* Append a kv to f and return it (zeroed but for key and type). */
struct gb_kv *gb_add_kv(struct gb_file *f, const char *key, uint32_t type);

/* Serialize f into out (cleared first) and fill lay. Tensor data bytes follow gb_data_byte. */
void gb_serialize(const struct gb_file *f, struct gb_bytes *out, struct gb_layout *lay);

/* Byte k of the data of tensor i, as gb_serialize writes it. */
uint8_t gb_data_byte(int i, size_t k);

#endif /* VNPU_TEST_GGUF_BUILDER_H */
