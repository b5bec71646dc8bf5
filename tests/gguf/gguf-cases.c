#include "gguf-cases.h"

#include "gguf.h"
#include "log.h"

#include <stdio.h>
#include <string.h>

#define BIG 0x10000000000ull /* 2^40: a count or length no test file can hold */

/* The kvs and tensors of gb_default the cases break, by index. */
enum { KV_BLOB, KV_ARCH, KV_COUNT, KV_FLAG, KV_NAMES, KV_VALUES, KV_FLAGS };
enum { T_A, T_B, T_C };

static void cut(struct gb_bytes *b, size_t at) {
    VNPU_ASSERT(at <= b->size);
    b->size = at;
}

/* ---- header ---- */

static void cut_empty(struct gb_bytes *b, const struct gb_layout *l) {
    VNPU_UNUSED(l);
    cut(b, 0);
}
static void cut_magic(struct gb_bytes *b, const struct gb_layout *l) {
    VNPU_UNUSED(l);
    cut(b, 2);
}
static void cut_version(struct gb_bytes *b, const struct gb_layout *l) {
    cut(b, l->n_tensors - 2);
}
static void cut_n_tensors(struct gb_bytes *b, const struct gb_layout *l) {
    cut(b, l->n_tensors + 4);
}
static void cut_n_kv(struct gb_bytes *b, const struct gb_layout *l) {
    cut(b, l->n_kv + 7);
}
static void cut_counts_unfit(struct gb_bytes *b, const struct gb_layout *l) {
    cut(b, l->kv[KV_BLOB] + 30);
}
static void bad_magic(struct gb_file *f) {
    memcpy(f->magic, "GGUX", 4);
}
static void version_1(struct gb_file *f) {
    f->version = 1;
}
static void version_4(struct gb_file *f) {
    f->version = 4;
}
static void version_big_endian(struct gb_file *f) {
    f->version = 0x03000000u;
}
static void n_kv_big(struct gb_bytes *b, const struct gb_layout *l) {
    gb_patch_u64(b, l->n_kv, BIG);
}
static void n_tensors_big(struct gb_bytes *b, const struct gb_layout *l) {
    gb_patch_u64(b, l->n_tensors, BIG);
}

/* ---- kvs ---- */

static void key_len_big(struct gb_bytes *b, const struct gb_layout *l) {
    gb_patch_u64(b, l->kv[KV_ARCH], BIG);
}
static void str_len_big(struct gb_bytes *b, const struct gb_layout *l) {
    gb_patch_u64(b, l->kv_value[KV_ARCH], BIG);
}
static void arr_n_big(struct gb_bytes *b, const struct gb_layout *l) {
    gb_patch_u64(b, l->kv_value[KV_VALUES] + 4, BIG);
}
static void str_arr_n_big(struct gb_bytes *b, const struct gb_layout *l) {
    gb_patch_u64(b, l->kv_value[KV_NAMES] + 4, BIG);
}
static void str_arr_elem_big(struct gb_bytes *b, const struct gb_layout *l) {
    gb_patch_u64(b, l->kv_value[KV_NAMES] + 12 + 8 + 5, BIG); /* element 1, after "alpha" */
}
static void value_type_unknown(struct gb_bytes *b, const struct gb_layout *l) {
    gb_patch_u32(b, l->kv_type[KV_COUNT], GGUF_TYPE_COUNT);
}
static void arr_type_unknown(struct gb_bytes *b, const struct gb_layout *l) {
    gb_patch_u32(b, l->kv_value[KV_VALUES], 0xffff);
}
static void arr_nested(struct gb_bytes *b, const struct gb_layout *l) {
    gb_patch_u32(b, l->kv_value[KV_VALUES], GGUF_TYPE_ARRAY);
}
static void key_duplicate(struct gb_file *f) {
    f->kv[KV_FLAG].key = "test.count";
}
static void key_empty(struct gb_file *f) {
    f->kv[KV_FLAG].key = "";
}
static void key_upper(struct gb_file *f) {
    f->kv[KV_FLAG].key = "test.Flag";
}
static void key_non_ascii(struct gb_file *f) {
    f->kv[KV_FLAG].key = "test.fl\xc3\xa4g";
}
static void key_space(struct gb_file *f) {
    f->kv[KV_FLAG].key = "test.the flag";
}
static void key_dot_first(struct gb_file *f) {
    f->kv[KV_FLAG].key = ".test.flag";
}
static void key_dot_last(struct gb_file *f) {
    f->kv[KV_FLAG].key = "test.flag.";
}
static void key_dot_twice(struct gb_file *f) {
    f->kv[KV_FLAG].key = "test..flag";
}
static void bool_2(struct gb_bytes *b, const struct gb_layout *l) {
    gb_patch_u8(b, l->kv_value[KV_FLAG], 2);
}
static void bool_arr_7(struct gb_bytes *b, const struct gb_layout *l) {
    gb_patch_u8(b, l->kv_value[KV_FLAGS] + 12 + 1, 7);
}
static void alignment_48(struct gb_file *f) {
    gb_add_kv(f, "general.alignment", GGUF_TYPE_UINT32)->bits = 48;
}
static void alignment_0(struct gb_file *f) {
    gb_add_kv(f, "general.alignment", GGUF_TYPE_UINT32)->bits = 0;
}
static void alignment_u64(struct gb_file *f) {
    gb_add_kv(f, "general.alignment", GGUF_TYPE_UINT64)->bits = 32;
}
static void cut_kv_boundary(struct gb_bytes *b, const struct gb_layout *l) {
    cut(b, l->kv[KV_ARCH]);
}
static void cut_key_len(struct gb_bytes *b, const struct gb_layout *l) {
    cut(b, l->kv[KV_ARCH] + 4);
}
static void cut_key(struct gb_bytes *b, const struct gb_layout *l) {
    cut(b, l->kv[KV_ARCH] + 8 + 3);
}
static void cut_type(struct gb_bytes *b, const struct gb_layout *l) {
    cut(b, l->kv_type[KV_ARCH] + 2);
}
static void cut_scalar(struct gb_bytes *b, const struct gb_layout *l) {
    cut(b, l->kv_value[KV_COUNT] + 2);
}
static void cut_bool(struct gb_bytes *b, const struct gb_layout *l) {
    cut(b, l->kv_value[KV_FLAG]);
}
static void cut_string(struct gb_bytes *b, const struct gb_layout *l) {
    cut(b, l->kv_value[KV_ARCH] + 8 + 2);
}
static void cut_arr_type(struct gb_bytes *b, const struct gb_layout *l) {
    cut(b, l->kv_value[KV_VALUES] + 2);
}
static void cut_arr_n(struct gb_bytes *b, const struct gb_layout *l) {
    cut(b, l->kv_value[KV_VALUES] + 4 + 3);
}
static void cut_arr_data(struct gb_bytes *b, const struct gb_layout *l) {
    cut(b, l->kv_value[KV_VALUES] + 12 + 5);
}
static void cut_str_arr_elem(struct gb_bytes *b, const struct gb_layout *l) {
    cut(b, l->kv_value[KV_NAMES] + 12 + 8 + 5 + 3); /* 3 bytes into element 1's length, after "alpha" */
}

/* ---- tensor infos ---- */

static void name_len_big(struct gb_bytes *b, const struct gb_layout *l) {
    gb_patch_u64(b, l->ti[T_B], BIG);
}
static void name_empty(struct gb_file *f) {
    f->t[T_B].name = "";
}
static void name_too_long(struct gb_file *f) {
    f->t[T_B].name = "tensor.name.of.sixty.four.bytes.is.one.more.than.ggml.allows.xyz";
    VNPU_ASSERT(strlen(f->t[T_B].name) == GGUF_MAX_NAME);
}
static void name_nul(struct gb_file *f) {
    f->t[T_B].name = "t\0b";
    f->t[T_B].name_len = 3;
}
static void name_duplicate(struct gb_file *f) {
    f->t[T_B].name = "t.a";
}
static void n_dims_0(struct gb_file *f) {
    f->t[T_B].n_dims = 0;
}
static void n_dims_5(struct gb_file *f) {
    f->t[T_B].n_dims = 5;
    f->t[T_B].ne[2] = f->t[T_B].ne[3] = f->t[T_B].ne[4] = 1;
}
static void ne_0(struct gb_file *f) {
    f->t[T_B].ne[1] = 0;
}
static void ne_negative(struct gb_file *f) {
    f->t[T_B].ne[1] = -2;
}
static void ne_overflow(struct gb_file *f) {
    f->t[T_B].n_dims = 3;
    f->t[T_B].ne[1] = f->t[T_B].ne[2] = (int64_t) BIG;
}
static void size_overflow(struct gb_file *f) {
    f->t[T_A].n_dims = 1;
    f->t[T_A].ne[0] = INT64_C(1) << 62; /* 2^62 f32: 2^64 bytes */
}
static void type_unknown(struct gb_file *f) {
    f->t[T_B].type = 99;
}
static void type_removed(struct gb_file *f) {
    f->t[T_B].type = 4; /* Q4_2, removed from GGML */
}
static void row_not_blocks(struct gb_file *f) {
    f->t[T_B].ne[0] = 48;
}
static void offset_unaligned(struct gb_file *f) {
    f->t[T_B].offset_set = true;
    f->t[T_B].offset = 72;
}
static void offset_overlap(struct gb_file *f) {
    f->t[T_B].offset_set = true;
    f->t[T_B].offset = 32;
}
static void offset_past_end(struct gb_file *f) {
    f->t[T_C].offset_set = true;
    f->t[T_C].offset = 1u << 20;
}
static void offset_wraps(struct gb_file *f) {
    f->t[T_C].offset_set = true;
    f->t[T_C].offset = UINT64_MAX - 31; /* aligned; offset + size wraps around */
}
static void cut_infos_start(struct gb_bytes *b, const struct gb_layout *l) {
    cut(b, l->ti[T_A]);
}
static void cut_info_boundary(struct gb_bytes *b, const struct gb_layout *l) {
    cut(b, l->ti[T_B]);
}
static void cut_name_len(struct gb_bytes *b, const struct gb_layout *l) {
    cut(b, l->ti[T_B] + 4);
}
static void cut_name(struct gb_bytes *b, const struct gb_layout *l) {
    cut(b, l->ti[T_B] + 8 + 1);
}
static void cut_n_dims(struct gb_bytes *b, const struct gb_layout *l) {
    cut(b, l->ti_n_dims[T_B] + 2);
}
static void cut_ne(struct gb_bytes *b, const struct gb_layout *l) {
    cut(b, l->ti_ne[T_B] + 8 + 4);
}
static void cut_tensor_type(struct gb_bytes *b, const struct gb_layout *l) {
    cut(b, l->ti_type[T_B] + 1);
}
static void cut_offset(struct gb_bytes *b, const struct gb_layout *l) {
    cut(b, l->ti_offset[T_B] + 7);
}

/* ---- padding and data ---- */

static void cut_padding(struct gb_bytes *b, const struct gb_layout *l) {
    VNPU_ASSERT(l->infos_end + 1 < l->data); /* the base file has padding to cut into */
    cut(b, l->infos_end + 1);
}
static void cut_data_first(struct gb_bytes *b, const struct gb_layout *l) {
    cut(b, l->data + 10);
}
static void cut_data_last(struct gb_bytes *b, const struct gb_layout *l) {
    cut(b, l->data + l->offset[T_C] + l->size[T_C] - 1);
}

static const struct gguf_case malformed[] = {
    {"empty", "a 0-byte file", NULL, cut_empty, "header magic: truncated"},
    {"cut-magic", "file ends inside the magic", NULL, cut_magic, "header magic: truncated"},
    {"bad-magic", "magic is not GGUF", bad_magic, NULL, "bad magic 47 47 55 58"},
    {"version-1", "GGUF v1 (u32 counts)", version_1, NULL, "version 1 is not supported"},
    {"version-4", "a version after 3", version_4, NULL, "version 4 is not supported"},
    {"version-big-endian", "a big-endian v3 file", version_big_endian, NULL, "a big-endian GGUF file?"},
    {"cut-version", "file ends inside the version", NULL, cut_version, "header version: truncated"},
    {"cut-n-tensors", "file ends inside n_tensors", NULL, cut_n_tensors, "header n_tensors: truncated"},
    {"cut-n-kv", "file ends inside n_kv", NULL, cut_n_kv, "header n_kv: truncated"},
    {"n-kv-unfit", "n_kv larger than the file can hold", NULL, n_kv_big, "n_kv = 1099511627776 cannot fit"},
    {"n-tensors-unfit", "n_tensors larger than the file can hold", NULL, n_tensors_big,
     "n_tensors = 1099511627776 cannot fit"},
    {"cut-counts-unfit", "file cut inside kv 0: the counts no longer fit", NULL, cut_counts_unfit,
     "n_kv = 7 cannot fit"},
    {"key-length-past-end", "a key length past the end", NULL, key_len_big,
     "kv 1 key: string length 1099511627776 past the end"},
    {"string-length-past-end", "a string value length past the end", NULL, str_len_big,
     "kv 1 'general.architecture' value: string length 1099511627776 past the end"},
    {"array-count-past-end", "an f32 array count past the end", NULL, arr_n_big,
     "kv 5 'test.values': array of 1099511627776 f32 past the end"},
    {"string-array-count-past-end", "a string array count past the end", NULL, str_arr_n_big,
     "kv 4 'test.names': array of 1099511627776 strings past the end"},
    {"string-array-element-past-end", "a string array element length past the end", NULL, str_arr_elem_big,
     "kv 4 'test.names' value[1]: string length 1099511627776 past the end"},
    {"value-type-unknown", "value type 13", NULL, value_type_unknown, "kv 2 'test.count': unknown value type 13"},
    {"array-type-unknown", "array element type 65535", NULL, arr_type_unknown,
     "kv 5 'test.values': unknown array element type 65535"},
    {"array-nested", "an array of arrays", NULL, arr_nested, "kv 5 'test.values': nested arrays are not supported"},
    {"key-duplicate", "a key twice", key_duplicate, NULL, "kv 3 'test.count': duplicate key (first at kv 2)"},
    {"key-empty", "an empty key", key_empty, NULL, "kv 3 '': empty key"},
    {"key-upper-case", "an upper-case letter in a key", key_upper, NULL,
     "kv 3 'test.Flag': key byte 5 is 'F': a key's segments are lower_snake_case ASCII"},
    {"key-non-ascii", "a UTF-8 letter in a key", key_non_ascii, NULL,
     "kv 3 'test.fl??g': key byte 7 is 0xc3: a key's segments are lower_snake_case ASCII"},
    {"key-space", "a space in a key", key_space, NULL, "kv 3 'test.the flag': key byte 8 is ' '"},
    {"key-dot-first", "a key starting with '.'", key_dot_first, NULL,
     "kv 3 '.test.flag': key byte 0: a '.' first leaves a segment empty"},
    {"key-dot-last", "a key ending with '.'", key_dot_last, NULL,
     "kv 3 'test.flag.': key byte 9: a '.' last leaves a segment empty"},
    {"key-dot-twice", "'..' in a key", key_dot_twice, NULL,
     "kv 3 'test..flag': key byte 4: a '.' twice in a row leaves a segment empty"},
    {"bool-2", "a bool value 2", NULL, bool_2, "kv 3 'test.flag': bool value[0] is 2, expected 0 or 1"},
    {"bool-array-7", "a bool array element 7", NULL, bool_arr_7, "kv 6 'test.flags': bool value[1] is 7"},
    {"alignment-48", "general.alignment not a power of two", alignment_48, NULL,
     "kv 7 'general.alignment': 48 is not a power of two"},
    {"alignment-0", "general.alignment 0", alignment_0, NULL, "kv 7 'general.alignment': 0 is not a power of two"},
    {"alignment-u64", "general.alignment not a u32", alignment_u64, NULL,
     "kv 7 'general.alignment': type u64, expected u32"},
    {"cut-kv-boundary", "file ends between kv 0 and kv 1", NULL, cut_kv_boundary, "kv 1 key: truncated"},
    {"cut-key-length", "file ends inside a key length", NULL, cut_key_len, "kv 1 key: truncated"},
    {"cut-key", "file ends inside a key", NULL, cut_key, "kv 1 key: string length 20 past the end"},
    {"cut-value-type", "file ends inside a value type", NULL, cut_type, "kv 1 'general.architecture' type: truncated"},
    {"cut-scalar", "file ends inside a u32 value", NULL, cut_scalar, "kv 2 'test.count' value: truncated"},
    {"cut-bool", "file ends before a bool value", NULL, cut_bool, "kv 3 'test.flag' value: truncated"},
    {"cut-string", "file ends inside a string value", NULL, cut_string,
     "kv 1 'general.architecture' value: string length 9 past the end"},
    {"cut-array-type", "file ends inside an array element type", NULL, cut_arr_type,
     "kv 5 'test.values' array type: truncated"},
    {"cut-array-count", "file ends inside an array count", NULL, cut_arr_n,
     "kv 5 'test.values' array count: truncated"},
    {"cut-array-data", "file ends inside array elements", NULL, cut_arr_data,
     "kv 5 'test.values': array of 3 f32 past the end"},
    {"cut-string-array-element", "file ends inside a string array element", NULL, cut_str_arr_elem,
     "kv 4 'test.names' value[1]: truncated"},
    {"tensor-name-length-past-end", "a tensor name length past the end", NULL, name_len_big,
     "tensor 1 name: string length 1099511627776 past the end"},
    {"tensor-name-empty", "an empty tensor name", name_empty, NULL, "tensor 1: empty name"},
    {"tensor-name-too-long", "a 64-byte tensor name", name_too_long, NULL, "name is 64 bytes, the limit is 63"},
    {"tensor-name-nul", "a NUL byte in a tensor name", name_nul, NULL, "tensor 1 't?b': name contains a NUL byte"},
    {"tensor-name-duplicate", "a tensor name twice", name_duplicate, NULL,
     "tensor 1 't.a': duplicate tensor name (first at tensor 0)"},
    {"n-dims-0", "n_dims 0", n_dims_0, NULL, "tensor 1 't.b': 0 dims, expected 1..4"},
    {"n-dims-5", "n_dims 5", n_dims_5, NULL, "tensor 1 't.b': 5 dims, expected 1..4"},
    {"ne-0", "a dimension 0", ne_0, NULL, "tensor 1 't.b': ne[1] = 0, expected >= 1"},
    {"ne-negative", "a negative dimension", ne_negative, NULL, "tensor 1 't.b': ne[1] = -2, expected >= 1"},
    {"element-count-overflow", "an element count past int64", ne_overflow, NULL,
     "tensor 1 't.b': element count of ne[0..2] overflows int64"},
    {"byte-size-overflow", "a byte size past 2^64", size_overflow, NULL,
     "tensor 0 't.a': byte size of 4611686018427387904 f32 elements overflows"},
    {"type-unknown", "tensor type id 99", type_unknown, NULL, "tensor 1 't.b': unknown type id 99"},
    {"type-removed", "tensor type id 4 (Q4_2, removed)", type_removed, NULL, "tensor 1 't.b': removed type id 4"},
    {"row-not-whole-blocks", "q8_0 row of 48 elements", row_not_blocks, NULL,
     "tensor 1 't.b': ne[0] = 48 is not a multiple of the q8_0 block size 32"},
    {"offset-unaligned", "a data offset not a multiple of 32", offset_unaligned, NULL,
     "tensor 1 't.b': offset 72 is not a multiple of the alignment 32"},
    {"offset-overlap", "two tensors' data overlap", offset_overlap, NULL,
     "tensor 1 't.b': data [32, 100) overlaps tensor 0 't.a' data [0, 64)"},
    {"offset-past-end", "tensor data past the end of the file", offset_past_end, NULL,
     "tensor 2 't.c': data at offset 1048576, 8 bytes, past the end"},
    {"offset-wraps", "offset + size wraps past 2^64", offset_wraps, NULL,
     "tensor 2 't.c': data at offset 18446744073709551584, 8 bytes, past the end"},
    {"cut-infos-start", "file ends after the kvs", NULL, cut_infos_start, "tensor 0 name: truncated"},
    {"cut-info-boundary", "file ends between tensor infos 0 and 1", NULL, cut_info_boundary,
     "tensor 1 name: truncated"},
    {"cut-name-length", "file ends inside a tensor name length", NULL, cut_name_len, "tensor 1 name: truncated"},
    {"cut-name", "file ends inside a tensor name", NULL, cut_name, "tensor 1 name: string length 3 past the end"},
    {"cut-n-dims", "file ends inside n_dims", NULL, cut_n_dims, "tensor 1 't.b' n_dims: truncated"},
    {"cut-ne", "file ends inside ne[1]", NULL, cut_ne, "tensor 1 't.b' ne[1]: truncated"},
    {"cut-tensor-type", "file ends inside a tensor type", NULL, cut_tensor_type, "tensor 1 't.b' type: truncated"},
    {"cut-offset", "file ends inside a tensor offset", NULL, cut_offset, "tensor 1 't.b' offset: truncated"},
    {"cut-padding", "file ends inside the padding before the data", NULL, cut_padding, "data section starts at"},
    {"cut-data-first", "file ends inside the first tensor's data", NULL, cut_data_first,
     "tensor 0 't.a': data at offset 0, 64 bytes, past the end"},
    {"cut-data-last", "file ends one byte short of the last tensor's data", NULL, cut_data_last,
     "tensor 2 't.c': data at offset 160, 8 bytes, past the end"},
};

/* ---- valid but unusual files ---- */

static void v2(struct gb_file *f) {
    f->version = 2;
}
static void alignment_64(struct gb_file *f) {
    gb_add_kv(f, "general.alignment", GGUF_TYPE_UINT32)->bits = 64;
    f->alignment = 64;
}
static void alignment_1(struct gb_file *f) {
    gb_add_kv(f, "general.alignment", GGUF_TYPE_UINT32)->bits = 1;
    f->alignment = 1;
}
static void keys_reversed(struct gb_file *f) {
    for (int i = 0, j = f->n_kv - 1; i < j; i++, j--) {
        const struct gb_kv k = f->kv[i];
        f->kv[i] = f->kv[j];
        f->kv[j] = k;
    }
}
static void tensors_any_order(struct gb_file *f) {
    const struct gb_tensor a = f->t[T_A], b = f->t[T_B], c = f->t[T_C];
    f->t[0] = c; /* infos c, a, b; data c at 0, b at 64 (a gap after it), a at 256 */
    f->t[1] = a;
    f->t[2] = b;
    f->t[0].offset_set = f->t[1].offset_set = f->t[2].offset_set = true;
    f->t[0].offset = 0;
    f->t[1].offset = 256;
    f->t[2].offset = 64;
}
static void extra_keys(struct gb_file *f) {
    static const uint8_t elems[3 * 8] = {1, 0, 1, 0, 0, 0, 0, 0, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20};
    static const char *const strs[] = {"x", "", "yz"};
    static char keys[GGUF_TYPE_COUNT][3][24];
    for (uint32_t t = 0; t < GGUF_TYPE_COUNT; t++) {
        const char *name = gguf_type_name((enum gguf_type) t);
        if (t != GGUF_TYPE_ARRAY) {
            snprintf(keys[t][0], sizeof(keys[t][0]), "x.%s", name);
            snprintf(keys[t][1], sizeof(keys[t][1]), "x.arr.%s", name);
            snprintf(keys[t][2], sizeof(keys[t][2]), "x.empty.%s", name);
            struct gb_kv *kv = gb_add_kv(f, keys[t][0], t);
            kv->bits = t == GGUF_TYPE_BOOL ? 1 : 0x8070605040302010ull;
            kv->str = "scalar";
            for (int k = 1; k <= 2; k++) {
                kv = gb_add_kv(f, keys[t][k], GGUF_TYPE_ARRAY);
                kv->arr_type = t;
                kv->n = k == 1 ? 3 : 0;
                kv->strs = strs;
                kv->elems = elems; /* starts 1, 0, 1: valid bools too */
            }
        }
    }
}
static void empty_strings(struct gb_file *f) {
    static const char *const strs[] = {"", "", ""};
    gb_add_kv(f, "test.empty", GGUF_TYPE_STRING)->str = "";
    struct gb_kv *kv = gb_add_kv(f, "test.empties", GGUF_TYPE_ARRAY);
    kv->arr_type = GGUF_TYPE_STRING;
    kv->n = 3;
    kv->strs = strs;
}
/* The forms real files' keys take (gguf-py's general.base_model.0.name, llama.cpp's command-r.* and gpt-oss.*), at
 * the edges of gguf_key_check, and values, which are free UTF-8. */
static void key_forms(struct gb_file *f) {
    static const char *const keys[] = {
        "a",         "0",    "_", "-", "general.base_model.0.name", "command-r.block_count", "gpt-oss.expert_count",
        "x_.-y._z9", "9.8.7"};
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        gb_add_kv(f, keys[i], GGUF_TYPE_STRING)->str = "Gr\xc3\xbc\xc3\x9f"
                                                       "e, \xe4\xb8\x96\xe7\x95\x8c . Key..Value";
    }
}
static void no_tensors(struct gb_file *f) {
    f->n_tensors = 0;
}
static void cut_after_kvs(struct gb_bytes *b, const struct gb_layout *l) {
    cut(b, l->infos_end);
}
static void no_kvs(struct gb_file *f) {
    f->n_kv = 0;
}
static void dims_4(struct gb_file *f) {
    f->t[T_A].n_dims = 4;
    f->t[T_A].ne[2] = f->t[T_A].ne[3] = 1;
    f->t[T_C] = (struct gb_tensor){.name = "t.c", .n_dims = 4, .ne = {4, 3, 2, 5}, .type = VNPU_TYPE_F16};
}
static void long_name(struct gb_file *f) {
    f->t[T_B].name = "tensor.name.of.sixty.three.bytes.is.the.most.ggml.allows.abcdef";
    VNPU_ASSERT(strlen(f->t[T_B].name) == GGUF_MAX_NAME - 1);
}

static const struct gguf_case valid[] = {
    {"ok-default", "the base file of every case", NULL, NULL, NULL},
    {"ok-v2", "GGUF v2", v2, NULL, NULL},
    {"ok-alignment-64", "general.alignment 64", alignment_64, NULL, NULL},
    {"ok-alignment-1", "general.alignment 1: no padding at all", alignment_1, NULL, NULL},
    {"ok-keys-reversed", "kvs in reverse order", keys_reversed, NULL, NULL},
    {"ok-tensors-any-order", "tensor data in another order than the infos, with a gap", tensors_any_order, NULL, NULL},
    {"ok-extra-keys", "unknown keys of every value type, arrays of each and empty arrays", extra_keys, NULL, NULL},
    {"ok-empty-strings", "empty string values and elements", empty_strings, NULL, NULL},
    {"ok-key-forms", "keys of one byte, of digits, with '_' and '-' anywhere, and UTF-8 values", key_forms, NULL, NULL},
    {"ok-no-tensors", "no tensors, the file ends right after the kvs", no_tensors, cut_after_kvs, NULL},
    {"ok-no-kvs", "no kvs", no_kvs, NULL, NULL},
    {"ok-dims-4", "4-dim tensors, with trailing 1s", dims_4, NULL, NULL},
    {"ok-name-63", "a 63-byte tensor name", long_name, NULL, NULL},
};

const struct gguf_case *gguf_cases_malformed(size_t *n) {
    *n = sizeof(malformed) / sizeof(malformed[0]);
    return malformed;
}

const struct gguf_case *gguf_cases_valid(size_t *n) {
    *n = sizeof(valid) / sizeof(valid[0]);
    return valid;
}

void gguf_case_build(const struct gguf_case *c, struct gb_file *f, struct gb_bytes *out) {
    struct gb_file local;
    struct gb_layout lay;
    f = f ? f : &local;
    gb_default(f);
    if (c->describe) {
        c->describe(f);
    }
    gb_serialize(f, out, &lay);
    if (c->damage) {
        c->damage(out, &lay);
    }
}

static void write_all(const char *dir, const struct gguf_case *cases, size_t n) {
    struct gb_bytes b = {0};
    for (size_t i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof(path), "%s/%s.gguf", dir, cases[i].name);
        gguf_case_build(&cases[i], NULL, &b);
        FILE *fp = fopen(path, "wb");
        VNPU_ASSERT(fp);
        VNPU_ASSERT(fwrite(b.data, 1, b.size, fp) == b.size);
        VNPU_ASSERT(fclose(fp) == 0);
    }
    gb_bytes_free(&b);
}

const struct gguf_case *gguf_cases_write_malformed(const char *dir, size_t *n) {
    const struct gguf_case *cases = gguf_cases_malformed(n);
    write_all(dir, cases, *n);
    return cases;
}

const struct gguf_case *gguf_cases_write_valid(const char *dir, size_t *n) {
    const struct gguf_case *cases = gguf_cases_valid(n);
    write_all(dir, cases, *n);
    return cases;
}
