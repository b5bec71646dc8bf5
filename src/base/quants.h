/*
 * GGML's block formats: the block structs, their constant tables, and per type a dequantizer and the
 * reference quantizer, bit-exact with ggml 0.23.0 (ggml-common.h, ggml-quants.c, ggml-impl.h).
 *
 * A row of k elements (k a multiple of the type's block size QK*) is k / QK consecutive blocks, exactly
 * the bytes a GGUF tensor of that type holds. Every function here works on whole rows:
 *   <type>_dequant_row(x, y, k):   k / QK blocks at x  -> k floats at y   (GGML's to_float)
 *   <type>_quant_row_ref(x, y, k): k floats at x       -> k / QK blocks at y, the bytes that
 *                                  ggml_quantize_chunk writes with no importance matrix
 * These are the vnpu_to_f32_fn / vnpu_from_f32_fn of type-traits.h. k must be a multiple of the block
 * size (VNPU_ASSERT); x must hold finite floats (GGML's quantizers and the oracle refuse NaN/Inf).
 * Quantized values are stored little-endian; scales are IEEE fp16 (vnpu_fp16_t) unless said otherwise.
 *
 * This header is plain C11 with no library state, so NPU-side code may include it for the structs and
 * tables.
 */
#ifndef VNPU_QUANTS_H
#define VNPU_QUANTS_H

#include "fp16.h"

#include <assert.h>
#include <stdint.h>
#include <string.h>

/* ---- Legacy formats: one scale (and a min) per block of 32 ---------------------------------------- */

#define QK4_0 32
typedef struct {
    vnpu_fp16_t d;         /* scale: x = (q - 8) * d */
    uint8_t qs[QK4_0 / 2]; /* element j in the low nibble of byte j, element j + 16 in the high nibble */
} block_q4_0;
static_assert(sizeof(block_q4_0) == 2 + QK4_0 / 2, "wrong q4_0 block size/padding");

#define QK4_1 32
typedef struct {
    vnpu_fp16_t d;         /* scale: x = q * d + m */
    vnpu_fp16_t m;         /* min */
    uint8_t qs[QK4_1 / 2]; /* nibbles as in q4_0 */
} block_q4_1;
static_assert(sizeof(block_q4_1) == 2 * 2 + QK4_1 / 2, "wrong q4_1 block size/padding");

#define QK5_0 32
typedef struct {
    vnpu_fp16_t d;         /* scale: x = (q - 16) * d */
    uint8_t qh[4];         /* bit j of this little-endian u32 is bit 4 of element j */
    uint8_t qs[QK5_0 / 2]; /* low 4 bits, nibbles as in q4_0 */
} block_q5_0;
static_assert(sizeof(block_q5_0) == 2 + 4 + QK5_0 / 2, "wrong q5_0 block size/padding");

#define QK5_1 32
typedef struct {
    vnpu_fp16_t d; /* scale: x = q * d + m */
    vnpu_fp16_t m; /* min */
    uint8_t qh[4]; /* as in q5_0 */
    uint8_t qs[QK5_1 / 2];
} block_q5_1;
static_assert(sizeof(block_q5_1) == 2 * 2 + 4 + QK5_1 / 2, "wrong q5_1 block size/padding");

#define QK8_0 32
typedef struct {
    vnpu_fp16_t d; /* scale: x = q * d */
    int8_t qs[QK8_0];
} block_q8_0;
static_assert(sizeof(block_q8_0) == 2 + QK8_0, "wrong q8_0 block size/padding");

/* Q1_0 (type 41): 128 weights, one sign bit each: bit j % 8 of byte j / 8 set means +d, clear -d. */
#define QK1_0 128
typedef struct {
    vnpu_fp16_t d; /* mean |x| of the block */
    uint8_t qs[QK1_0 / 8];
} block_q1_0;
static_assert(sizeof(block_q1_0) == 2 + QK1_0 / 8, "wrong q1_0 block size/padding");

/* Q2_0 (type 42): 64 weights, a 2-bit code each at bits 2 * (j % 4) of byte j / 4: x = (code - 1) * d. */
#define QK2_0 64
typedef struct {
    vnpu_fp16_t d; /* max |x| of the block */
    uint8_t qs[QK2_0 / 4];
} block_q2_0;
static_assert(sizeof(block_q2_0) == 2 + QK2_0 / 4, "wrong q2_0 block size/padding");

/* ---- K-quants: super-blocks of 256 with quantized sub-block scales --------------------------------- */

#define QK_K         256
#define K_SCALE_SIZE 12 /* bytes of the packed 6-bit scales and mins of q4_K / q5_K */

/* 16 sub-blocks of 16: x = d * (scales[i] & 0xf) * q - dmin * (scales[i] >> 4), q in 0..3. */
typedef struct {
    uint8_t scales[QK_K / 16]; /* low nibble: scale, high nibble: min */
    uint8_t qs[QK_K / 4];      /* per 128 elements, 32 bytes: element 32 * s + l at bits 2 * s of byte l */
    vnpu_fp16_t d;             /* super-block scale of the scales */
    vnpu_fp16_t dmin;          /* super-block scale of the mins */
} block_q2_K;
static_assert(sizeof(block_q2_K) == 2 * 2 + QK_K / 16 + QK_K / 4, "wrong q2_K block size/padding");

/* 16 sub-blocks of 16: x = d * (scale - 32) * (q - 4), q = 2 low bits in qs + high bit in hmask. */
typedef struct {
    uint8_t hmask[QK_K / 8]; /* bit b of byte m: high bit of element 32 * b + m */
    uint8_t qs[QK_K / 4];    /* low 2 bits, packed as in q2_K */
    uint8_t scales[12];      /* 16 6-bit scales: low nibbles in bytes 0..7, high 2 bits in bytes 8..11 */
    vnpu_fp16_t d;           /* super-block scale */
} block_q3_K;
static_assert(sizeof(block_q3_K) == 2 + QK_K / 4 + QK_K / 8 + 12, "wrong q3_K block size/padding");

/* 8 sub-blocks of 32: x = d * scale * q - dmin * min, 6-bit scale and min, q in 0..15. */
typedef struct {
    vnpu_fp16_t d;                /* super-block scale of the scales */
    vnpu_fp16_t dmin;             /* super-block scale of the mins */
    uint8_t scales[K_SCALE_SIZE]; /* packed as get_scale_min_k4 reads them */
    uint8_t qs[QK_K / 2];         /* per 64 elements, 32 bytes: low nibbles first 32, high nibbles next 32 */
} block_q4_K;
static_assert(sizeof(block_q4_K) == 2 * 2 + K_SCALE_SIZE + QK_K / 2, "wrong q4_K block size/padding");

/* As q4_K with 5-bit q: the fifth bit of element 32 * s + l is bit s of qh[l]. */
typedef struct {
    vnpu_fp16_t d;
    vnpu_fp16_t dmin;
    uint8_t scales[K_SCALE_SIZE];
    uint8_t qh[QK_K / 8];
    uint8_t qs[QK_K / 2];
} block_q5_K;
static_assert(sizeof(block_q5_K) == 2 * 2 + K_SCALE_SIZE + QK_K / 2 + QK_K / 8, "wrong q5_K block size/padding");

/* 16 sub-blocks of 16: x = d * scales[i] * (q - 32), q 6 bits: 4 in ql, 2 in qh. */
typedef struct {
    uint8_t ql[QK_K / 2];     /* per 128 elements, 64 bytes: elements 0..31 / 32..63 low nibbles of
                                 bytes 0..31 / 32..63, elements 64..95 / 96..127 their high nibbles */
    uint8_t qh[QK_K / 4];     /* per 128 elements, 32 bytes: element 32 * s + l at bits 2 * s of byte l */
    int8_t scales[QK_K / 16]; /* signed 8-bit sub-block scales */
    vnpu_fp16_t d;            /* super-block scale */
} block_q6_K;
static_assert(sizeof(block_q6_K) == 2 + QK_K / 16 + 3 * QK_K / 4, "wrong q6_K block size/padding");

/* The activation format of the K-quant dot products: x = d * q. */
typedef struct {
    float d;                  /* f32 scale */
    int8_t qs[QK_K];          /* q in -127..127 */
    int16_t bsums[QK_K / 16]; /* sum of each group of 16 q */
} block_q8_K;
static_assert(sizeof(block_q8_K) == 4 + QK_K + QK_K / 16 * 2, "wrong q8_K block size/padding");

/* Q3_K's 16 sub-block scales in block_q3_K.scales: scale j (6 bits, biased by +32) has its low 4 bits in the
 * low (j < 8) or high (j >= 8) nibble of byte j % 8 and its high 2 bits at bits 2 * (j / 4) of byte
 * 8 + j % 4 (GGML's dequantize_row_q3_K / quantize_row_q3_K_ref). */
static inline void q3_K_scales_unpack(const uint8_t packed[12], uint8_t sc[QK_K / 16]) {
    for (int j = 0; j < QK_K / 16; j++) {
        sc[j] = (uint8_t) (((packed[j % 8] >> (4 * (j / 8))) & 0xf) | ((packed[8 + j % 4] >> (2 * (j / 4))) & 3) << 4);
    }
}

static inline void q3_K_scales_pack(const uint8_t sc[QK_K / 16], uint8_t packed[12]) {
    for (int i = 0; i < 12; i++) {
        packed[i] = 0;
    }
    for (int j = 0; j < QK_K / 16; j++) {
        packed[j % 8] |= (uint8_t) ((sc[j] & 0xf) << (4 * (j / 8)));
        packed[8 + j % 4] |= (uint8_t) ((sc[j] >> 4) << (2 * (j / 4)));
    }
}

/* Q4_K's and Q5_K's 8 sub-block scales and mins (6 bits each) in their K_SCALE_SIZE packed bytes (GGML's
 * get_scale_min_k4): j < 4 in the low 6 bits of bytes j (scale) and j + 4 (min); j >= 4 in the nibbles of
 * byte j + 4, with their top 2 bits in the top 2 bits of bytes j - 4 (scale) and j (min). */
static inline void q4_K_scales_unpack(const uint8_t packed[K_SCALE_SIZE], uint8_t sc[QK_K / 32],
                                      uint8_t mn[QK_K / 32]) {
    for (int j = 0; j < 4; j++) {
        sc[j] = packed[j] & 63;
        mn[j] = packed[j + 4] & 63;
        sc[j + 4] = (uint8_t) ((packed[j + 8] & 0xf) | (packed[j] >> 6) << 4);
        mn[j + 4] = (uint8_t) ((packed[j + 8] >> 4) | (packed[j + 4] >> 6) << 4);
    }
}

static inline void q4_K_scales_pack(const uint8_t sc[QK_K / 32], const uint8_t mn[QK_K / 32],
                                    uint8_t packed[K_SCALE_SIZE]) {
    for (int j = 0; j < 4; j++) {
        packed[j] = (uint8_t) (sc[j] | (sc[j + 4] >> 4) << 6);
        packed[j + 4] = (uint8_t) (mn[j] | (mn[j + 4] >> 4) << 6);
        packed[j + 8] = (uint8_t) ((sc[j + 4] & 0xf) | (mn[j + 4] & 0xf) << 4);
    }
}

/* ---- 4-bit codebook formats ---------------------------------------------------------------------- */

/* IQ4_NL: x = d * kvalues_iq4nl[q], nibbles as in q4_0. */
#define QK4_NL 32
typedef struct {
    vnpu_fp16_t d;
    uint8_t qs[QK4_NL / 2];
} block_iq4_nl;
static_assert(sizeof(block_iq4_nl) == 2 + QK4_NL / 2, "wrong iq4_nl block size/padding");

/* MXFP4 (OCP microscaling FP4): x = e8m0_to_f32_half(e) * kvalues_mxfp4[q], nibbles as in q4_0. */
#define QK_MXFP4 32
typedef struct {
    uint8_t e; /* E8M0 shared exponent: 2^(e - 127) */
    uint8_t qs[QK_MXFP4 / 2];
} block_mxfp4;
static_assert(sizeof(block_mxfp4) == 1 + QK_MXFP4 / 2, "wrong mxfp4 block size/padding");

/* IQ4_NL's 16 levels, in nibble order (ggml-common.h kvalues_iq4nl). */
static const int8_t kvalues_iq4nl[16] = {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113};

/* The E2M1 (FP4) values doubled, in nibble order: bit 3 is the sign (ggml-common.h kvalues_mxfp4; OCP MX
 * spec v1.0 E2M1 = {0, 0.5, 1, 1.5, 2, 3, 4, 6}). Doubling keeps them integers; e8m0_to_f32_half undoes it. */
static const int8_t kvalues_mxfp4[16] = {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12};

/* Half the value of an E8M0 exponent, 2^(e - 128), as f32 (GGML_E8M0_TO_FP32_HALF): e = 0 and 1 give the
 * subnormals 2^-128 and 2^-127. e = 255 (NaN in the OCP spec) gives 2^127, as GGML does. */
static inline float e8m0_to_f32_half(uint8_t e) {
    const uint32_t bits = e < 2 ? 0x00200000u << e : (uint32_t) (e - 1) << 23;
    float f;
    memcpy(&f, &bits, sizeof(f));
    return f;
}

/* ---- Row functions (shapes and contract in the comment at the top) ------------------------------- */

/* Legacy: scale from the block's absolute max (q4_0, q5_0: the signed value of largest magnitude maps to
 * -8 / -16; q8_0: amax / 127) or its range (q4_1, q5_1: (max - min) / 15 or 31, min stored). */
void q4_0_dequant_row(const void *x, float *y, int64_t k);
void q4_0_quant_row_ref(const float *x, void *y, int64_t k);
void q4_1_dequant_row(const void *x, float *y, int64_t k);
void q4_1_quant_row_ref(const float *x, void *y, int64_t k);
void q5_0_dequant_row(const void *x, float *y, int64_t k);
void q5_0_quant_row_ref(const float *x, void *y, int64_t k);
void q5_1_dequant_row(const void *x, float *y, int64_t k);
void q5_1_quant_row_ref(const float *x, void *y, int64_t k);
void q8_0_dequant_row(const void *x, float *y, int64_t k);
void q8_0_quant_row_ref(const float *x, void *y, int64_t k);

/* Q1_0: d = mean |x| of the block (sum in element order, / 128), bit set iff x >= 0 (-0 included). */
void q1_0_dequant_row(const void *x, float *y, int64_t k);
void q1_0_quant_row_ref(const float *x, void *y, int64_t k);
/* Q2_0: d = max |x| of the block, code = clamp(roundf(x / d) + 1, 0, 3) (x * (1 / d) as GGML computes). */
void q2_0_dequant_row(const void *x, float *y, int64_t k);
void q2_0_quant_row_ref(const float *x, void *y, int64_t k);

/* K-quants: GGML's quantize_row_<type>_ref, the search for sub-block scales (and mins) that minimises a
 * weighted error, then 6- or 8-bit quantized scales and a requantization with them. */
void q2_K_dequant_row(const void *x, float *y, int64_t k);
void q2_K_quant_row_ref(const float *x, void *y, int64_t k);
void q3_K_dequant_row(const void *x, float *y, int64_t k);
void q3_K_quant_row_ref(const float *x, void *y, int64_t k);
void q4_K_dequant_row(const void *x, float *y, int64_t k);
void q4_K_quant_row_ref(const float *x, void *y, int64_t k);
void q5_K_dequant_row(const void *x, float *y, int64_t k);
void q5_K_quant_row_ref(const float *x, void *y, int64_t k);
void q6_K_dequant_row(const void *x, float *y, int64_t k);
void q6_K_quant_row_ref(const float *x, void *y, int64_t k);
/* Q8_K: d = max / -127 for the signed value of largest magnitude, q = min(127, round(x / d)), bsums
 * the sums of 16 q. A block of zeros gets d = 0 and zero q and bsums (GGML leaves its bsums unwritten). */
void q8_K_dequant_row(const void *x, float *y, int64_t k);
void q8_K_quant_row_ref(const float *x, void *y, int64_t k);

/* IQ4_NL: what ggml_quantize_chunk does without an importance matrix (quantize_iq4_nl: weights x^2 and a
 * search over 15 trial scales), not GGML's quantize_row_iq4_nl_ref, which skips the search. */
void iq4_nl_dequant_row(const void *x, float *y, int64_t k);
void iq4_nl_quant_row_ref(const float *x, void *y, int64_t k);
/* MXFP4: e = floor(log2(amax)) - 2 + 127 (0 for a block of zeros), each x to the nearest doubled E2M1
 * value times e8m0_to_f32_half(e), the lowest index on ties (quantize_row_mxfp4_ref). */
void mxfp4_dequant_row(const void *x, float *y, int64_t k);
void mxfp4_quant_row_ref(const float *x, void *y, int64_t k);

#endif /* VNPU_QUANTS_H */
