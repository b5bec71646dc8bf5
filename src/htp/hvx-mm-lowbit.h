/*
 * MUL_MAT int8 kernels (hvx-mm-quant.h) of the 1-bit and 2-bit block formats, tiled and flat, family D:
 *   Q1_0  a block of 128 columns (4 steps), one FP16 d per row; a code bit set is +d, clear -d
 *   Q2_0  a block of 64 columns (2 steps), one FP16 d per row; x = (code - 1) * d, codes 0..3
 * A unit is one block: its d is converted once for its 4 (2) steps.
 *
 * Tiled (the seed's vrmpy order, htp-tiles.h): Q1_0's step j is tile vector j, operand g bit g of each byte; Q2_0's
 * step h is tile vectors 2h and 2h + 1, operand g bits 2 (g % 4) of vector 2h + g / 4. Each operand is one compare
 * and select (Q1_0: +-1) or a field minus 1 (Q2_0).
 *
 * Flat (matmul_qtype_get: GGML's 16 code bytes of each row at 16 r, d at 512 + 2 r), words by row: y[i] word r =
 * row r's code bytes 4i .. 4i + 3.
 *   Q1_0  step j is y[j], column c of the step at bit c % 8 of byte c / 8: operand g takes byte g / 2 of each word
 *         into all four bytes (even/odd byte and halfword self-shuffles) and tests bit 4 (g % 2) + i in byte i.
 *   Q2_0  step h is y[2h] and y[2h + 1]; byte b of y[2h + k] holds the 4 codes of operand 4k + b at bits 2i. A
 *         transpose of the 4 x 4 2-bit fields of each word (two delta swaps) puts code i of operand 4k + b in byte i
 *         at bits 2b, the tiled form.
 */
#ifndef VNPU_HVX_MM_LOWBIT_H
#define VNPU_HVX_MM_LOWBIT_H

#include "hvx-mm-quant.h"

/* Bit g of every byte of x as +1 (set) or -1. */
HVX_MM_INLINE HVX_Vector hvx_mm_sign_bits(HVX_Vector x, uint32_t mask) {
    return Q6_V_vmux_QVV(Q6_Q_vand_VR(x, (int32_t) mask), Q6_Vb_vsplat_R(1), Q6_Vb_vsplat_R(-1));
}

/* The operands of step j of a tiled Q1_0 block (the HMX path's FP16 expansion reads them too). */
HVX_MM_INLINE void hvx_mm_q1_0_tiled_operands(const uint8_t *w, uint32_t j, HVX_Vector q[8]) {
    const HVX_Vector x = hvx_vmem_ld(w + HTP_TENSOR_TILE_QS_OFFSET_Q1_0 + j * HEX_VLEN);
    for (uint32_t g = 0; g < 8; g++) {
        q[g] = hvx_mm_sign_bits(x, 0x01010101u << g);
    }
}

HVX_MM_INLINE void hvx_mm_unit_q1_0_tiled(const uint8_t *w, uint32_t step_size, const uint8_t *a0, const uint8_t *a1,
                                          HVX_Vector *acc0, HVX_Vector *acc1) {
    struct hvx_mm_wstep ws;
    (void) step_size;
    ws.s0 = hvx_mm_scales_f16(w + HTP_TENSOR_TILE_SCALES_OFFSET_Q1_0);
    for (uint32_t j = 0; j < 4; j++) {
        hvx_mm_q1_0_tiled_operands(w, j, ws.q);
        hvx_mm_mac2(HVX_MM_D, &ws, a0 + j * ACT_Q8_BLOCK_SIZE, a1 ? a1 + j * ACT_Q8_BLOCK_SIZE : NULL, acc0, acc1);
    }
}

HVX_MM_INLINE void hvx_mm_unit_q1_0_flat(const uint8_t *w, uint32_t step_size, const uint8_t *a0, const uint8_t *a1,
                                         HVX_Vector *acc0, HVX_Vector *acc1) {
    struct hvx_mm_wstep ws;
    HVX_Vector y[4];
    (void) step_size;
    hvx_mm_rows_to_words(w, 4, y);
    ws.s0 = hvx_mm_scales_f16(w + 32 * 16);
    for (uint32_t j = 0; j < 4; j++) {
        const HVX_Vector e = Q6_Vb_vshuffe_VbVb(y[j], y[j]), o = Q6_Vb_vshuffo_VbVb(y[j], y[j]);
        const HVX_Vector rep[4] = {Q6_Vh_vshuffe_VhVh(e, e), Q6_Vh_vshuffe_VhVh(o, o), Q6_Vh_vshuffo_VhVh(e, e),
                                   Q6_Vh_vshuffo_VhVh(o, o)}; /* rep[b]: byte b of each word in all four */
        for (uint32_t b = 0; b < 4; b++) {
            ws.q[2 * b] = hvx_mm_sign_bits(rep[b], 0x08040201u);
            ws.q[2 * b + 1] = hvx_mm_sign_bits(rep[b], 0x80402010u);
        }
        hvx_mm_mac2(HVX_MM_D, &ws, a0 + j * ACT_Q8_BLOCK_SIZE, a1 ? a1 + j * ACT_Q8_BLOCK_SIZE : NULL, acc0, acc1);
    }
}

/* Every word's 4 x 4 matrix of 2-bit fields transposed: field f of byte b goes to field b of byte f. Two delta
 * swaps exchange the off-diagonal 2 x 2 blocks (distance 12 bits), then the off-diagonal fields inside each block
 * (distance 6). */
HVX_MM_INLINE HVX_Vector hvx_mm_transpose_2bit(HVX_Vector w) {
    HVX_Vector t = Q6_V_vand_VV(Q6_V_vxor_VV(Q6_Vuw_vlsr_VuwR(w, 12), w), Q6_V_vsplat_R(0x0000F0F0));
    w = Q6_V_vxor_VV(w, Q6_V_vxor_VV(t, Q6_Vw_vasl_VwR(t, 12)));
    t = Q6_V_vand_VV(Q6_V_vxor_VV(Q6_Vuw_vlsr_VuwR(w, 6), w), Q6_V_vsplat_R(0x00CC00CC));
    return Q6_V_vxor_VV(w, Q6_V_vxor_VV(t, Q6_Vw_vasl_VwR(t, 6)));
}

/* Operands [4k, 4k + 4) of a step whose fields are in the tiled form: operand 4k + b is field b of each byte,
 * minus 1. */
HVX_MM_INLINE void hvx_mm_q2_0_operands(HVX_Vector x, HVX_Vector *q) {
    for (uint32_t b = 0; b < 4; b++) {
        q[b] = Q6_Vb_vsub_VbVb(hvx_mm_field(x, 2 * b, 3), Q6_Vb_vsplat_R(1));
    }
}

/* The operands of step h of a tiled Q2_0 block (the HMX path's FP16 expansion reads them too). */
HVX_MM_INLINE void hvx_mm_q2_0_tiled_operands(const uint8_t *w, uint32_t h, HVX_Vector q[8]) {
    for (uint32_t k = 0; k < 2; k++) {
        hvx_mm_q2_0_operands(hvx_vmem_ld(w + HTP_TENSOR_TILE_QS_OFFSET_Q2_0 + (2 * h + k) * HEX_VLEN), q + 4 * k);
    }
}

HVX_MM_INLINE void hvx_mm_unit_q2_0_tiled(const uint8_t *w, uint32_t step_size, const uint8_t *a0, const uint8_t *a1,
                                          HVX_Vector *acc0, HVX_Vector *acc1) {
    struct hvx_mm_wstep ws;
    (void) step_size;
    ws.s0 = hvx_mm_scales_f16(w + HTP_TENSOR_TILE_SCALES_OFFSET_Q2_0);
    for (uint32_t h = 0; h < 2; h++) {
        hvx_mm_q2_0_tiled_operands(w, h, ws.q);
        hvx_mm_mac2(HVX_MM_D, &ws, a0 + h * ACT_Q8_BLOCK_SIZE, a1 ? a1 + h * ACT_Q8_BLOCK_SIZE : NULL, acc0, acc1);
    }
}

HVX_MM_INLINE void hvx_mm_unit_q2_0_flat(const uint8_t *w, uint32_t step_size, const uint8_t *a0, const uint8_t *a1,
                                         HVX_Vector *acc0, HVX_Vector *acc1) {
    struct hvx_mm_wstep ws;
    HVX_Vector y[4];
    (void) step_size;
    hvx_mm_rows_to_words(w, 4, y);
    ws.s0 = hvx_mm_scales_f16(w + 32 * 16);
    for (uint32_t h = 0; h < 2; h++) {
        for (uint32_t k = 0; k < 2; k++) {
            hvx_mm_q2_0_operands(hvx_mm_transpose_2bit(y[2 * h + k]), ws.q + 4 * k);
        }
        hvx_mm_mac2(HVX_MM_D, &ws, a0 + h * ACT_Q8_BLOCK_SIZE, a1 ? a1 + h * ACT_Q8_BLOCK_SIZE : NULL, acc0, acc1);
    }
}

HVX_MM_QDOT_UNITS(q1_0_tiled, 4, hvx_mm_unit_q1_0_tiled)
HVX_MM_QDOT_UNITS(q1_0_flat, 4, hvx_mm_unit_q1_0_flat)
HVX_MM_QDOT_UNITS(q2_0_tiled, 2, hvx_mm_unit_q2_0_tiled)
HVX_MM_QDOT_UNITS(q2_0_flat, 2, hvx_mm_unit_q2_0_flat)

#endif /* VNPU_HVX_MM_LOWBIT_H */
