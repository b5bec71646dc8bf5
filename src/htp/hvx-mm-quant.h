/*
 * The MUL_MAT dot products of block-quantized weights (matmul-ops.c): the HVX int8 path. A tile row (32 weight
 * rows by all of K) sits in VTCM as n_steps steps of step_size bytes, each step 32 columns of K; the activation
 * columns are Q8 blocks (act-quant.h), one per step. For each step the weight's format unpacks its 32 x 32 codes
 * into the 8 vrmpy operands, vector g holding in word r the signed codes of row r at columns 4g .. 4g + 3, and its
 * 32 row scales into an f32 vector (lane r = row r); then per column
 *
 *     isum = sum over g of vrmpy(operand g, activation vector g)          (int32, exact)
 *     acc += f32(isum) * (row scales * activation d)                      (f32)
 *
 * and after the last step acc holds the 32 results. The 32x2 kernel unpacks once for two columns.
 *
 * Adding a weight format: an unpack function per layout (the seed's tile, and the flat step area the DMA builds:
 * operands + scales), an HVX_MM_QDOT line for each (it makes the 32x1 and 32x2 kernels), their row in
 * matmul_qkernels_get (matmul-ops.c) and the type's row in matmul_qtype_get (matmul-ops.h), which the host's
 * supports rule reads too. A format whose steps are not 32 columns (Q1_0, Q2_0), or whose rows need a second scale
 * per step or a min (Q4_1, the K-quants), writes its own 32x1/32x2 pair against the same activation blocks (d * sum
 * is there for the mins) and points its row at them. docs/HTP.md has the whole list.
 *
 * Formats here:
 *   Q4_0 tiled  seed layout: 4 vectors of nibble pairs (byte 32 * (k / 2 % 4) + r of vector k / 8), 32 FP16 scales
 *               at 512. Nibbles split and -8, a byte shuffle of low with high pairs each row's columns 2j, 2j + 1,
 *               a halfword shuffle pairs those of j and j + 1: two operands per vector.
 *   Q8_0 tiled  seed layout: 8 vectors of byte pairs (halfword r + 32 * (k / 2 % 2) of vector k / 4), scales at
 *               1024. One halfword shuffle per vector makes its operand.
 *   Q4_0, Q8_0 flat: GGML blocks DMA'd per row into the same step areas (matmul-ops.c): the codes of row r at
 *               r * qs_size (Q4_0: 16 bytes, element i low nibble and i + 16 high; Q8_0: 32 bytes), the FP16 scale
 *               of row r at qs_area + 2 r. Vector m of the codes holds rows (128 / qs_size) * m ..; a word transpose
 *               (two or three levels of word deals) gives vector g = codes 4g .. 4g + 3 of every row.
 */
#ifndef VNPU_HVX_MM_QUANT_H
#define VNPU_HVX_MM_QUANT_H

#include "act-quant.h"
#include "hex-common.h"
#include "htp-msg.h"
#include "htp-tiles.h"
#include "hvx-f32-vec.h"
#include "hvx-mm-float.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The 32 FP16 row scales at p (128-byte aligned; the vector's other 64 bytes are ignored) as f32, lane r = row r. */
HVX_MM_INLINE HVX_Vector hvx_mm_scales_f16(const uint8_t *p) {
    const HVX_Vector h = Q6_Vh_vshuff_Vh(hvx_vmem_ld(p)); /* half 2r = row r's scale */
    return Q6_V_lo_W(Q6_Wsf_vcvt_Vhf(h));                 /* lo = the even halves */
}

/* Low and high nibbles of every byte, each minus 8: Q4_0's signed codes. */
HVX_MM_INLINE void hvx_mm_nibbles_q4_0(HVX_Vector x, HVX_Vector *lo, HVX_Vector *hi) {
    const HVX_Vector mask = Q6_Vb_vsplat_R(0x0F), eight = Q6_Vb_vsplat_R(8);
    *lo = Q6_Vb_vsub_VbVb(Q6_V_vand_VV(x, mask), eight);
    *hi = Q6_Vb_vsub_VbVb(Q6_V_vand_VV(Q6_Vuh_vlsr_VuhR(x, 4), mask), eight);
}

/* ---- unpacks: one 32-column step -> 8 operands (q[g]: word r = row r's codes 4g .. 4g + 3) and row scales ---- */

HVX_MM_INLINE HVX_Vector hvx_mm_unpack_q4_0_tiled(const uint8_t *t, HVX_Vector q[8]) {
    for (uint32_t v = 0; v < 4; v++) {
        HVX_Vector lo, hi;
        hvx_mm_nibbles_q4_0(hvx_vmem_ld(t + v * HEX_VLEN), &lo, &hi);
        const HVX_VectorPair p = Q6_W_vshuff_VVR(hi, lo, -1); /* halfword 32 j + r: row r, columns 8v + 2j, +1 */
        q[2 * v] = Q6_Vh_vshuff_Vh(Q6_V_lo_W(p));             /* j = 0, 1: columns 8v .. 8v + 3 */
        q[2 * v + 1] = Q6_Vh_vshuff_Vh(Q6_V_hi_W(p));         /* j = 2, 3: columns 8v + 4 .. 8v + 7 */
    }
    return hvx_mm_scales_f16(t + HTP_TENSOR_TILE_SCALES_OFFSET_Q4_0);
}

HVX_MM_INLINE HVX_Vector hvx_mm_unpack_q8_0_tiled(const uint8_t *t, HVX_Vector q[8]) {
    for (uint32_t v = 0; v < 8; v++) {
        q[v] = Q6_Vh_vshuff_Vh(hvx_vmem_ld(t + v * HEX_VLEN)); /* word r: halfwords r and r + 32 */
    }
    return hvx_mm_scales_f16(t + HTP_TENSOR_TILE_SCALES_OFFSET_Q8_0);
}

/* Word deal of a pair: *e gets the even words of (a, b), *o the odd ones. */
HVX_MM_INLINE void hvx_mm_deal_w(HVX_Vector a, HVX_Vector b, HVX_Vector *e, HVX_Vector *o) {
    const HVX_VectorPair p = Q6_W_vdeal_VVR(b, a, -4);
    *e = Q6_V_lo_W(p);
    *o = Q6_V_hi_W(p);
}

/* Flat Q4_0 step: x[m] (m = 0..3) word 4i + j is row 8m + i, bytes 4j .. 4j + 3 (elements 4j.. low, 16 + 4j.. high).
 * Two deal levels give y[j] with word r = row r's bytes 4j .. 4j + 3. */
HVX_MM_INLINE HVX_Vector hvx_mm_unpack_q4_0_flat(const uint8_t *t, HVX_Vector q[8]) {
    HVX_Vector x[4], e[2], o[2], y[4];
    for (uint32_t m = 0; m < 4; m++) {
        x[m] = hvx_vmem_ld(t + m * HEX_VLEN);
    }
    hvx_mm_deal_w(x[0], x[1], &e[0], &o[0]); /* even: bytes 0..3 and 8..11 of rows 0..15 */
    hvx_mm_deal_w(x[2], x[3], &e[1], &o[1]);
    hvx_mm_deal_w(e[0], e[1], &y[0], &y[2]);
    hvx_mm_deal_w(o[0], o[1], &y[1], &y[3]);
    for (uint32_t j = 0; j < 4; j++) {
        hvx_mm_nibbles_q4_0(y[j], &q[j], &q[4 + j]);
    }
    return hvx_mm_scales_f16(t + 32 * 16);
}

/* Flat Q8_0 step: x[m] (m = 0..7) word 8i + g is row 4m + i, codes 4g .. 4g + 3; three deal levels. */
HVX_MM_INLINE HVX_Vector hvx_mm_unpack_q8_0_flat(const uint8_t *t, HVX_Vector q[8]) {
    HVX_Vector x[8], a[8], b[8];
    for (uint32_t m = 0; m < 8; m++) {
        x[m] = hvx_vmem_ld(t + m * HEX_VLEN);
    }
    for (uint32_t j = 0; j < 4; j++) { /* a[j]: g bit 0 clear, a[4 + j]: set */
        hvx_mm_deal_w(x[2 * j], x[2 * j + 1], &a[j], &a[4 + j]);
    }
    for (uint32_t e = 0; e < 2; e++) { /* b[4e + k] (k = 0, 1): g bit 1 clear, b[4e + 2 + k]: set */
        for (uint32_t k = 0; k < 2; k++) {
            hvx_mm_deal_w(a[4 * e + 2 * k], a[4 * e + 2 * k + 1], &b[4 * e + k], &b[4 * e + 2 + k]);
        }
    }
    for (uint32_t e = 0; e < 2; e++) { /* g = e + 2 f + 4 h */
        for (uint32_t f = 0; f < 2; f++) {
            hvx_mm_deal_w(b[4 * e + 2 * f], b[4 * e + 2 * f + 1], &q[e + 2 * f], &q[e + 2 * f + 4]);
        }
    }
    return hvx_mm_scales_f16(t + 32 * 32);
}

/* ---- the 32x1 and 32x2 kernels of a format ---- */

/* One step of one column: acc + f32(sum_g vrmpy(q[g], a[g])) * ws * d(a). */
HVX_MM_INLINE HVX_Vector hvx_mm_qstep(HVX_Vector acc, const HVX_Vector q[8], HVX_Vector ws, const uint8_t *a) {
    HVX_Vector isum = Q6_Vw_vrmpy_VbVb(q[0], hvx_vmem_ld(a));
    for (uint32_t g = 1; g < 8; g++) {
        isum = Q6_Vw_vrmpyacc_VwVbVb(isum, q[g], hvx_vmem_ld(a + g * ACT_Q8_GROUP_STRIDE));
    }
    const HVX_Vector scale = hvx_vec_mul_f32(ws, hvx_vmem_ld(a + ACT_Q8_D_OFFSET));
    return hvx_vec_add_f32(acc, hvx_vec_mul_f32(hvx_mm_i32_to_f32(isum), scale));
}

/* A tile row of n_steps steps (step_size bytes apart) against one Q8 column a -> out. */
typedef void (*hvx_mm_qdot_32x1_fn)(const uint8_t *w, uint32_t n_steps, uint32_t step_size, const uint8_t *a,
                                    HVX_Vector *out);
/* ... against two columns a0, a1 -> out0, out1, unpacking each step once. */
typedef void (*hvx_mm_qdot_32x2_fn)(const uint8_t *w, uint32_t n_steps, uint32_t step_size, const uint8_t *a0,
                                    const uint8_t *a1, HVX_Vector *out0, HVX_Vector *out1);

#define HVX_MM_QDOT(NAME, UNPACK)                                                                          \
    static void hvx_mm_qdot_##NAME##_32x1(const uint8_t *restrict w, uint32_t n_steps, uint32_t step_size, \
                                          const uint8_t *restrict a, HVX_Vector *restrict out) {           \
        HVX_Vector acc = Q6_V_vzero();                                                                     \
        for (uint32_t s = 0; s < n_steps; s++) {                                                           \
            HVX_Vector q[8];                                                                               \
            const HVX_Vector ws = UNPACK(w + (size_t) s * step_size, q);                                   \
            acc = hvx_mm_qstep(acc, q, ws, a + (size_t) s * ACT_Q8_BLOCK_SIZE);                            \
        }                                                                                                  \
        hvx_vmem_st(out, acc);                                                                             \
    }                                                                                                      \
    static void hvx_mm_qdot_##NAME##_32x2(const uint8_t *restrict w, uint32_t n_steps, uint32_t step_size, \
                                          const uint8_t *restrict a0, const uint8_t *restrict a1,          \
                                          HVX_Vector *restrict out0, HVX_Vector *restrict out1) {          \
        HVX_Vector acc0 = Q6_V_vzero(), acc1 = Q6_V_vzero();                                               \
        for (uint32_t s = 0; s < n_steps; s++) {                                                           \
            HVX_Vector q[8];                                                                               \
            const HVX_Vector ws = UNPACK(w + (size_t) s * step_size, q);                                   \
            acc0 = hvx_mm_qstep(acc0, q, ws, a0 + (size_t) s * ACT_Q8_BLOCK_SIZE);                         \
            acc1 = hvx_mm_qstep(acc1, q, ws, a1 + (size_t) s * ACT_Q8_BLOCK_SIZE);                         \
        }                                                                                                  \
        hvx_vmem_st(out0, acc0);                                                                           \
        hvx_vmem_st(out1, acc1);                                                                           \
    }

HVX_MM_QDOT(q4_0_tiled, hvx_mm_unpack_q4_0_tiled)
HVX_MM_QDOT(q8_0_tiled, hvx_mm_unpack_q8_0_tiled)
HVX_MM_QDOT(q4_0_flat, hvx_mm_unpack_q4_0_flat)
HVX_MM_QDOT(q8_0_flat, hvx_mm_unpack_q8_0_flat)

#endif /* VNPU_HVX_MM_QUANT_H */
