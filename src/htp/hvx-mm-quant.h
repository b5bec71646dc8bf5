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
 * matmul_qkernels_get (matmul-weights.h) and the type's row in matmul_qtype_get (matmul-ops.h), which the host's
 * supports rule reads too. docs/HTP.md has the whole list.
 *
 * A format whose rows carry more than one scale per step makes its kernels from a unit function instead
 * (HVX_MM_QDOT_UNITS): a unit is the steps of one GGML block (a tile, or the 8 tiles of a K-quant super-block),
 * whose shared fields it decodes once, and each step ends in one of the step products below (hvx_mm_mac):
 *     D    one scale per row:                 acc += f32(isum) * s * d                                 (Q4_0 ...)
 *     DM   a scale and a bias per row:        acc += f32(isum) * s * d + m * (d * sum(a))              (Q4_1, Q4_K)
 *     D2   a scale per row and 16 columns:    acc += (f32(isum0) * s0 + f32(isum1) * s1) * d           (Q3_K, Q6_K)
 *     D2M  D2 and an integer min per 16:      acc += (... + f32(sum_g vrmpy(min_g, a_g)) * m) * d      (Q2_K)
 * with isum0 / isum1 the vrmpy sums of operands 0..3 / 4..7, d and d * sum(a) the activation block's. Those formats
 * live in hvx-mm-nibble.h (Q4_1, IQ4_NL, MXFP4), hvx-mm-lowbit.h (Q1_0, Q2_0) and hvx-mm-kquants.h.
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

/* 64 FP16 in x: half r and half 32 + r as f32 lane r of lo and hi (row r's two scales, or its d and -dmin). */
HVX_MM_INLINE void hvx_mm_f16_halves(HVX_Vector x, HVX_Vector *lo, HVX_Vector *hi) {
    const HVX_VectorPair f = Q6_Wsf_vcvt_Vhf(Q6_Vh_vshuff_Vh(x)); /* half 2r: half r of x, 2r + 1: half 32 + r */
    *lo = Q6_V_lo_W(f);
    *hi = Q6_V_hi_W(f);
}

/* 32 pairs of FP16 in x, word r holding (a, b) of row r, as f32 lanes a and b. */
HVX_MM_INLINE void hvx_mm_f16_pairs(HVX_Vector x, HVX_Vector *a, HVX_Vector *b) {
    const HVX_VectorPair f = Q6_Wsf_vcvt_Vhf(x);
    *a = Q6_V_lo_W(f);
    *b = Q6_V_hi_W(f);
}

/* Byte b of every word as an int32: zero-extended (u) or sign-extended (s). */
HVX_MM_INLINE HVX_Vector hvx_mm_byte_u(HVX_Vector x, uint32_t b) {
    return Q6_V_vand_VV(Q6_Vuw_vlsr_VuwR(x, (int32_t) (8 * b)), Q6_V_vsplat_R(0xFF));
}
HVX_MM_INLINE HVX_Vector hvx_mm_byte_s(HVX_Vector x, uint32_t b) {
    return Q6_Vw_vasr_VwR(Q6_Vw_vasl_VwR(x, (int32_t) (24 - 8 * b)), 24);
}

/* (x >> shift) & mask in every byte. */
HVX_MM_INLINE HVX_Vector hvx_mm_field(HVX_Vector x, uint32_t shift, uint8_t mask) {
    return Q6_V_vand_VV(shift ? Q6_Vub_vlsr_VubR(x, (int32_t) shift) : x, Q6_Vb_vsplat_R(mask));
}

/* The width-bit field at bit `from` of every byte moved to bit `to`, the rest of the byte cleared. A halfword
 * shift left moves a low byte's bit b to bit b + to - from of the high byte only if b >= 8 + from: never. */
HVX_MM_INLINE HVX_Vector hvx_mm_field_to(HVX_Vector x, uint32_t from, uint32_t width, uint32_t to) {
    const uint8_t mask = (uint8_t) (((1u << width) - 1) << to);
    if (from >= to) {
        return hvx_mm_field(x, from - to, mask);
    }
    return Q6_V_vand_VV(Q6_Vh_vasl_VhR(x, (int32_t) (to - from)), Q6_Vb_vsplat_R(mask));
}

/* Low and high nibbles of every byte, each minus 8: Q4_0's signed codes. */
HVX_MM_INLINE void hvx_mm_nibbles_q4_0(HVX_Vector x, HVX_Vector *lo, HVX_Vector *hi) {
    const HVX_Vector mask = Q6_Vb_vsplat_R(0x0F), eight = Q6_Vb_vsplat_R(8);
    *lo = Q6_Vb_vsub_VbVb(Q6_V_vand_VV(x, mask), eight);
    *hi = Q6_Vb_vsub_VbVb(Q6_V_vand_VV(Q6_Vuh_vlsr_VuhR(x, 4), mask), eight);
}

/* Nibble-pair vector v of a tile (byte 32 j + r: row r, columns 8v + 2j (lo) and 8v + 2j + 1 (hi)), its codes
 * split into lo and hi, as operands 2v and 2v + 1: a byte shuffle pairs each row's columns 2j, 2j + 1, a halfword
 * shuffle those of j and j + 1. */
HVX_MM_INLINE void hvx_mm_pairs_operands(HVX_Vector lo, HVX_Vector hi, HVX_Vector *qa, HVX_Vector *qb) {
    const HVX_VectorPair p = Q6_W_vshuff_VVR(hi, lo, -1); /* halfword 32 j + r: row r, columns 8v + 2j, +1 */
    *qa = Q6_Vh_vshuff_Vh(Q6_V_lo_W(p));                  /* j = 0, 1: columns 8v .. 8v + 3 */
    *qb = Q6_Vh_vshuff_Vh(Q6_V_hi_W(p));                  /* j = 2, 3: columns 8v + 4 .. 8v + 7 */
}

/* Word deal of a pair: *e gets the even words of (a, b), *o the odd ones. */
HVX_MM_INLINE void hvx_mm_deal_w(HVX_Vector a, HVX_Vector b, HVX_Vector *e, HVX_Vector *o) {
    const HVX_VectorPair p = Q6_W_vdeal_VVR(b, a, -4);
    *e = Q6_V_lo_W(p);
    *o = Q6_V_hi_W(p);
}

/* A flat part of 4n bytes per row (n = 2, 4 or 8), rows 4n bytes apart from t (128-byte aligned), as n word
 * vectors: y[j] word r = row r's bytes 4j .. 4j + 3. Each of the log2(n) levels deals neighbouring vectors and
 * puts the even halves first, which rotates the bits of (vector, word) right by one: (row high bits, row low bits,
 * j) becomes (j, row). */
HVX_MM_INLINE void hvx_mm_rows_to_words(const uint8_t *t, uint32_t n, HVX_Vector *y) {
    HVX_Vector x[8];
    for (uint32_t m = 0; m < n; m++) {
        x[m] = hvx_vmem_ld(t + m * HEX_VLEN);
    }
    for (uint32_t level = 1; level < n; level *= 2) {
        HVX_Vector e[8];
        for (uint32_t k = 0; k < n / 2; k++) {
            hvx_mm_deal_w(x[2 * k], x[2 * k + 1], &e[k], &e[n / 2 + k]);
        }
        for (uint32_t m = 0; m < n; m++) {
            x[m] = e[m];
        }
    }
    for (uint32_t m = 0; m < n; m++) {
        y[m] = x[m];
    }
}

/* ---- unpacks: one 32-column step -> 8 operands (q[g]: word r = row r's codes 4g .. 4g + 3) and row scales ---- */

HVX_MM_INLINE HVX_Vector hvx_mm_unpack_q4_0_tiled(const uint8_t *t, HVX_Vector q[8]) {
    for (uint32_t v = 0; v < 4; v++) {
        HVX_Vector lo, hi;
        hvx_mm_nibbles_q4_0(hvx_vmem_ld(t + v * HEX_VLEN), &lo, &hi);
        hvx_mm_pairs_operands(lo, hi, &q[2 * v], &q[2 * v + 1]);
    }
    return hvx_mm_scales_f16(t + HTP_TENSOR_TILE_SCALES_OFFSET_Q4_0);
}

HVX_MM_INLINE HVX_Vector hvx_mm_unpack_q8_0_tiled(const uint8_t *t, HVX_Vector q[8]) {
    for (uint32_t v = 0; v < 8; v++) {
        q[v] = Q6_Vh_vshuff_Vh(hvx_vmem_ld(t + v * HEX_VLEN)); /* word r: halfwords r and r + 32 */
    }
    return hvx_mm_scales_f16(t + HTP_TENSOR_TILE_SCALES_OFFSET_Q8_0);
}

/* Flat Q4_0 step: 16 bytes per row (elements 4j.. low, 16 + 4j.. high in bytes 4j .. 4j + 3), words by row. */
HVX_MM_INLINE HVX_Vector hvx_mm_unpack_q4_0_flat(const uint8_t *t, HVX_Vector q[8]) {
    HVX_Vector y[4];
    hvx_mm_rows_to_words(t, 4, y);
    for (uint32_t j = 0; j < 4; j++) {
        hvx_mm_nibbles_q4_0(y[j], &q[j], &q[4 + j]);
    }
    return hvx_mm_scales_f16(t + 32 * 16);
}

/* Flat Q8_0 step: 32 codes per row, words by row. */
HVX_MM_INLINE HVX_Vector hvx_mm_unpack_q8_0_flat(const uint8_t *t, HVX_Vector q[8]) {
    hvx_mm_rows_to_words(t, 8, q);
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

#define HVX_MM_QDOT(NAME, UNPACK)                                                                                 \
    static inline void hvx_mm_qdot_##NAME##_32x1(const uint8_t *restrict w, uint32_t n_steps, uint32_t step_size, \
                                                 const uint8_t *restrict a, HVX_Vector *restrict out) {           \
        HVX_SCOPE();                                                                                              \
        HVX_Vector acc = Q6_V_vzero();                                                                            \
        for (uint32_t s = 0; s < n_steps; s++) {                                                                  \
            HVX_SCOPE_TRIP();                                                                                     \
            HVX_Vector q[8];                                                                                      \
            const HVX_Vector ws = UNPACK(w + (size_t) s * step_size, q);                                          \
            acc = hvx_mm_qstep(acc, q, ws, a + (size_t) s * ACT_Q8_BLOCK_SIZE);                                   \
        }                                                                                                         \
        hvx_vmem_st(out, acc);                                                                                    \
    }                                                                                                             \
    static inline void hvx_mm_qdot_##NAME##_32x2(const uint8_t *restrict w, uint32_t n_steps, uint32_t step_size, \
                                                 const uint8_t *restrict a0, const uint8_t *restrict a1,          \
                                                 HVX_Vector *restrict out0, HVX_Vector *restrict out1) {          \
        HVX_SCOPE();                                                                                              \
        HVX_Vector acc0 = Q6_V_vzero(), acc1 = Q6_V_vzero();                                                      \
        for (uint32_t s = 0; s < n_steps; s++) {                                                                  \
            HVX_SCOPE_TRIP();                                                                                     \
            HVX_Vector q[8];                                                                                      \
            const HVX_Vector ws = UNPACK(w + (size_t) s * step_size, q);                                          \
            acc0 = hvx_mm_qstep(acc0, q, ws, a0 + (size_t) s * ACT_Q8_BLOCK_SIZE);                                \
            acc1 = hvx_mm_qstep(acc1, q, ws, a1 + (size_t) s * ACT_Q8_BLOCK_SIZE);                                \
        }                                                                                                         \
        hvx_vmem_st(out0, acc0);                                                                                  \
        hvx_vmem_st(out1, acc1);                                                                                  \
    }

HVX_MM_QDOT(q4_0_tiled, hvx_mm_unpack_q4_0_tiled)
HVX_MM_QDOT(q8_0_tiled, hvx_mm_unpack_q8_0_tiled)
HVX_MM_QDOT(q4_0_flat, hvx_mm_unpack_q4_0_flat)
HVX_MM_QDOT(q8_0_flat, hvx_mm_unpack_q8_0_flat)

/* ---- the step products of the unit formats ---- */

enum hvx_mm_family {
    HVX_MM_D,   /* s0 per row */
    HVX_MM_DM,  /* s0 and a bias m per row */
    HVX_MM_D2,  /* s0 of operands 0..3 (columns 0..15), s1 of operands 4..7 */
    HVX_MM_D2M, /* D2 and, per row, m times the vrmpy of its mins m0 (columns 0..15) and m1 with the activations */
};

/* One step's weights: the 8 operands and what the family reads of the rest (f32 lanes unless said). */
struct hvx_mm_wstep {
    HVX_Vector q[8];
    HVX_Vector s0, s1;
    HVX_Vector m;
    HVX_Vector m0, m1; /* D2M: row r's integer min in every byte of word r */
};

/* The vrmpy sums of operands [g0, g1) with the activation block a. */
HVX_MM_INLINE HVX_Vector hvx_mm_isum(const HVX_Vector *q, uint32_t g0, uint32_t g1, const uint8_t *a) {
    HVX_Vector isum = Q6_Vw_vrmpy_VbVb(q[g0], hvx_vmem_ld(a + g0 * ACT_Q8_GROUP_STRIDE));
    for (uint32_t g = g0 + 1; g < g1; g++) {
        isum = Q6_Vw_vrmpyacc_VwVbVb(isum, q[g], hvx_vmem_ld(a + g * ACT_Q8_GROUP_STRIDE));
    }
    return isum;
}

/* acc plus one step of w against the Q8 block a, as family f computes it. */
HVX_MM_INLINE HVX_Vector hvx_mm_mac(enum hvx_mm_family f, HVX_Vector acc, const struct hvx_mm_wstep *w,
                                    const uint8_t *a) {
    if (f == HVX_MM_D || f == HVX_MM_DM) {
        acc = hvx_mm_qstep(acc, w->q, w->s0, a);
        return f == HVX_MM_D ? acc : hvx_vec_add_f32(acc, hvx_vec_mul_f32(w->m, hvx_vmem_ld(a + ACT_Q8_DSUM_OFFSET)));
    }
    HVX_Vector v = hvx_vec_add_f32(hvx_vec_mul_f32(hvx_mm_i32_to_f32(hvx_mm_isum(w->q, 0, 4, a)), w->s0),
                                   hvx_vec_mul_f32(hvx_mm_i32_to_f32(hvx_mm_isum(w->q, 4, 8, a)), w->s1));
    if (f == HVX_MM_D2M) {
        HVX_Vector mins = Q6_Vw_vrmpy_VbVb(w->m0, hvx_vmem_ld(a));
        for (uint32_t g = 1; g < 8; g++) {
            mins = Q6_Vw_vrmpyacc_VwVbVb(mins, g < 4 ? w->m0 : w->m1, hvx_vmem_ld(a + g * ACT_Q8_GROUP_STRIDE));
        }
        v = hvx_vec_add_f32(v, hvx_vec_mul_f32(hvx_mm_i32_to_f32(mins), w->m));
    }
    return hvx_vec_add_f32(acc, hvx_vec_mul_f32(v, hvx_vmem_ld(a + ACT_Q8_D_OFFSET)));
}

/* The step against one column (a1 NULL) or two. */
HVX_MM_INLINE void hvx_mm_mac2(enum hvx_mm_family f, const struct hvx_mm_wstep *w, const uint8_t *a0, const uint8_t *a1,
                               HVX_Vector *acc0, HVX_Vector *acc1) {
    *acc0 = hvx_mm_mac(f, *acc0, w, a0);
    if (a1) {
        *acc1 = hvx_mm_mac(f, *acc1, w, a1);
    }
}

/* The 32x1 and 32x2 kernels of a unit format: UNIT(w, step_size, a0, a1, acc0, acc1) adds the UNIT_STEPS steps at
 * w (a GGML block's unit, matmul-ops.h) against the Q8 blocks from a0 to *acc0 and, a1 not NULL, from a1 to *acc1. */
#define HVX_MM_QDOT_UNITS(NAME, UNIT_STEPS, UNIT)                                                                 \
    static inline void hvx_mm_qdot_##NAME##_32x1(const uint8_t *restrict w, uint32_t n_steps, uint32_t step_size, \
                                                 const uint8_t *restrict a, HVX_Vector *restrict out) {           \
        HVX_SCOPE();                                                                                              \
        HVX_Vector acc = Q6_V_vzero();                                                                            \
        for (uint32_t s = 0; s < n_steps; s += (UNIT_STEPS)) {                                                    \
            HVX_SCOPE_TRIP();                                                                                     \
            UNIT(w + (size_t) s * step_size, step_size, a + (size_t) s * ACT_Q8_BLOCK_SIZE, NULL, &acc, NULL);    \
        }                                                                                                         \
        hvx_vmem_st(out, acc);                                                                                    \
    }                                                                                                             \
    static inline void hvx_mm_qdot_##NAME##_32x2(const uint8_t *restrict w, uint32_t n_steps, uint32_t step_size, \
                                                 const uint8_t *restrict a0, const uint8_t *restrict a1,          \
                                                 HVX_Vector *restrict out0, HVX_Vector *restrict out1) {          \
        HVX_SCOPE();                                                                                              \
        HVX_Vector acc0 = Q6_V_vzero(), acc1 = Q6_V_vzero();                                                      \
        for (uint32_t s = 0; s < n_steps; s += (UNIT_STEPS)) {                                                    \
            HVX_SCOPE_TRIP();                                                                                     \
            const size_t as = (size_t) s * ACT_Q8_BLOCK_SIZE;                                                     \
            UNIT(w + (size_t) s * step_size, step_size, a0 + as, a1 + as, &acc0, &acc1);                          \
        }                                                                                                         \
        hvx_vmem_st(out0, acc0);                                                                                  \
        hvx_vmem_st(out1, acc1);                                                                                  \
    }

#endif /* VNPU_HVX_MM_QUANT_H */
