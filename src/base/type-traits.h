/*
 * GGML tensor element types: ids, block geometry and the per-type functions.
 *
 * Ids, names, block sizes and type sizes are GGML's (ggml.h `enum ggml_type`, ggml 0.23.0), so a GGUF
 * file's type field is a vnpu_type. Removed ids (4, 5, 31..33, 36..38) have block size 0 and are
 * rejected wherever a file names them.
 */
#ifndef VNPU_TYPE_TRAITS_H
#define VNPU_TYPE_TRAITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum vnpu_type {
    VNPU_TYPE_F32 = 0,
    VNPU_TYPE_F16 = 1,
    VNPU_TYPE_Q4_0 = 2,
    VNPU_TYPE_Q4_1 = 3,
    VNPU_TYPE_Q5_0 = 6,
    VNPU_TYPE_Q5_1 = 7,
    VNPU_TYPE_Q8_0 = 8,
    VNPU_TYPE_Q8_1 = 9,
    VNPU_TYPE_Q2_K = 10,
    VNPU_TYPE_Q3_K = 11,
    VNPU_TYPE_Q4_K = 12,
    VNPU_TYPE_Q5_K = 13,
    VNPU_TYPE_Q6_K = 14,
    VNPU_TYPE_Q8_K = 15,
    VNPU_TYPE_IQ2_XXS = 16,
    VNPU_TYPE_IQ2_XS = 17,
    VNPU_TYPE_IQ3_XXS = 18,
    VNPU_TYPE_IQ1_S = 19,
    VNPU_TYPE_IQ4_NL = 20,
    VNPU_TYPE_IQ3_S = 21,
    VNPU_TYPE_IQ2_S = 22,
    VNPU_TYPE_IQ4_XS = 23,
    VNPU_TYPE_I8 = 24,
    VNPU_TYPE_I16 = 25,
    VNPU_TYPE_I32 = 26,
    VNPU_TYPE_I64 = 27,
    VNPU_TYPE_F64 = 28,
    VNPU_TYPE_IQ1_M = 29,
    VNPU_TYPE_BF16 = 30,
    VNPU_TYPE_TQ1_0 = 34,
    VNPU_TYPE_TQ2_0 = 35,
    VNPU_TYPE_MXFP4 = 39,
    VNPU_TYPE_NVFP4 = 40,
    VNPU_TYPE_Q1_0 = 41,
    VNPU_TYPE_Q2_0 = 42,
    VNPU_TYPE_COUNT = 43,
};

/* Dequantize k elements (a multiple of the block size) from blocks x into floats y. */
typedef void (*vnpu_to_f32_fn)(const void *x, float *y, int64_t k);
/* Quantize k floats (a multiple of the block size) into blocks y with GGML's reference quantizer, the
 * one ggml_quantize_chunk uses without an importance matrix; bit-exact with it. */
typedef void (*vnpu_from_f32_fn)(const float *x, void *y, int64_t k);

struct vnpu_type_traits {
    const char *name;              /* GGML's name: "f32", "q4_0", "q4_K", ...; NULL for removed ids */
    int64_t blck;                  /* elements per block; 0 for removed ids */
    size_t size;                   /* bytes per block */
    bool is_quantized;             /* a block format (not F32/F16/BF16/integers) */
    vnpu_to_f32_fn to_f32;         /* NULL when vnpu cannot dequantize the type */
    vnpu_from_f32_fn from_f32_ref; /* NULL when vnpu cannot quantize to the type */
    float rmse_max;                /* tests: bound on rel. RMSE of dequant(quant(x)) for x ~ N(0, 1) */
};

/* Traits of a type id; the row of a removed id has blck 0 and NULL name. */
const struct vnpu_type_traits *vnpu_type_traits_get(enum vnpu_type type);

/* True for ids 0..42 that GGML defines (blck > 0). */
bool vnpu_type_is_valid(uint32_t type);

/* GGML's name of a type, "?" for an invalid id. */
const char *vnpu_type_name(enum vnpu_type type);

/* The type named name (case-insensitive, e.g. "Q4_0", "q4_k", "f16"); false if none. */
bool vnpu_type_from_name(const char *name, enum vnpu_type *type);

/* Bytes of a row of ne elements; ne must be a multiple of the block size (VNPU_ASSERT). */
size_t vnpu_row_size(enum vnpu_type type, int64_t ne);

#endif /* VNPU_TYPE_TRAITS_H */
