/*
 * Activation columns prepared in VTCM for the MUL_MAT kernels (act-quant.c): an f32 row of n elements, 128-byte
 * aligned in VTCM, becomes the form the dot products of its weight path read.
 *
 * Q8 blocks (block-quantized weights). Each 32 elements are one block of ACT_Q8_BLOCK_SIZE bytes, as GGML's
 * quantize_row_q8_0 quantizes them (d = max |x| / 127, q = round(x / d), one scale per 32 elements). For the weights
 * whose CPU kernels take Q8_0 or Q8_1 activations (GGML's vec_dot_type: Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, IQ4_NL, MXFP4,
 * Q1_0, Q2_0) d is rounded to FP16 as those store it, so that a dot product with Q4_0, Q8_0, IQ4_NL or MXFP4 is the
 * one GGML's CPU computes, up to the order of the f32 sums (Q8_1 keeps d * sum(q) in FP16 too: Q4_1's differ
 * slightly). The K-quants' CPU kernels take Q8_K, whose d is f32 (one per 256): for them d stays f32.
 *
 *     bytes    0 .. 1023   8 vectors: vector g holds q[4g .. 4g + 3] in every one of its 32 words, the operand a
 *                          Q6_Vw_vrmpyacc_VwVbVb needs against 32 weight rows whose word r holds row r's
 *                          codes of columns 4g .. 4g + 3
 *     bytes 1024 .. 1151   d (rounded to FP16 with f16_scale), as f32, in every lane
 *     bytes 1152 .. 1279   d * (q[0] + ... + q[31]), f32, in every lane: the block's term for weights with a min
 *                          or an offset (Q4_1, the K-quants' mins)
 *
 * Why this layout: the weight side of a vrmpy has one weight row per word, so the activation side must repeat its
 * 4 bytes in every word; storing them repeated costs 32x the bytes of Q8_0 but no work per weight tile, and a
 * column is reused by every tile row of the matrix. Why one scale per 32 (upstream uses one per 128): the weight
 * tiles carry one scale per row per 32 columns, so the product of the two scales is formed per tile anyway, and a
 * scale per 32 halves the activation's rounding error where magnitudes vary along the row.
 *
 * F16 rows (F16 weights): n halves in element order, zero-padded to a whole vector. F32 rows (F32 weights): n
 * floats, zero-padded to a whole vector. The padding is zero so that a padding lane times a masked weight is 0.
 */
#ifndef VNPU_ACT_QUANT_H
#define VNPU_ACT_QUANT_H

#include <stdbool.h>
#include <stdint.h>

#define ACT_Q8_BLOCK        32   /* activations per Q8 block */
#define ACT_Q8_BLOCK_SIZE   1280 /* VTCM bytes per Q8 block */
#define ACT_Q8_D_OFFSET     1024 /* the f32 scale vector */
#define ACT_Q8_DSUM_OFFSET  1152 /* the f32 d * sum(q) vector */
#define ACT_Q8_GROUP_STRIDE 128  /* bytes between the replicated operand vectors of one block */

/* Bytes of a prepared column of n elements: Q8 n / 32 blocks (n a multiple of 32), f16 and f32 rounded up to 128. */
static inline uint32_t act_q8_row_size(uint32_t n) {
    return n / ACT_Q8_BLOCK * ACT_Q8_BLOCK_SIZE;
}
static inline uint32_t act_f16_row_size(uint32_t n) {
    return (n * 2 + 127) & ~127u;
}
static inline uint32_t act_f32_row_size(uint32_t n) {
    return (n * 4 + 127) & ~127u;
}

/* x: n f32 (n a multiple of 32) at a 128-byte aligned VTCM address; dst: n / 32 Q8 blocks, d rounded to FP16 when
 * f16_scale (the weight type's GGML activations are Q8_0 or Q8_1: matmul_act_f16_scale). Finite inputs; a block of
 * zeros (or whose max |x| is below FLT_MIN) gets d = 0 and zero codes. */
void act_quant_q8_row(const uint8_t *x, uint32_t n, bool f16_scale, uint8_t *dst);

/* x: n f32; dst: act_f16_row_size(n) bytes, each element rounded to f16 (nearest even), padding zeroed. */
void act_cvt_f16_row(const uint8_t *x, uint32_t n, uint8_t *dst);

/* x: n f32; dst: act_f32_row_size(n) bytes, a copy with the padding zeroed. */
void act_copy_f32_row(const uint8_t *x, uint32_t n, uint8_t *dst);

#endif /* VNPU_ACT_QUANT_H */
