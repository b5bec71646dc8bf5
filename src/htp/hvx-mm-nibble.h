/*
 * MUL_MAT int8 kernels (hvx-mm-quant.h) of the block-32 formats with 4-bit codes besides Q4_0: Q4_1, IQ4_NL and
 * MXFP4, tiled and flat. A step is one GGML block of each of the 32 rows, a unit of one step.
 *
 *   codes   tiled: the seed's nibble pairs, as Q4_0's (hvx_mm_pairs_operands); flat: GGML's 16 bytes per row
 *           (element i in the low nibble of byte i, i + 16 in the high one) turned into words by row, whose low
 *           nibbles are operands 0..3 and high nibbles operands 4..7
 *   levels  Q4_1: the code (0..15); IQ4_NL: kvalues_iq4nl[code] (-127..113); MXFP4: kvalues_mxfp4[code], the E2M1
 *           values doubled (-12..12): each nibble through vlut32 and the dq_luts table GET_ROWS uses
 *   scales  Q4_1: (d, m) FP16 pairs, family DM (x = d * q + m); IQ4_NL: FP16 d, family D; MXFP4: the E8M0 byte e,
 *           scale 2^(e - 128) (GGML's E8M0 half: the doubled levels' factor 1/2 folded in), family D
 *
 * Tiled areas are the seed's (htp-tiles.h); flat ones matmul_qtype_get's: the codes at 0, the scales at 512.
 */
#ifndef VNPU_HVX_MM_NIBBLE_H
#define VNPU_HVX_MM_NIBBLE_H

#include "dequant.h"
#include "hvx-mm-quant.h"

/* The 8 operands of a step of 4-bit codes at t, tiled or flat, each nibble through the vlut32 table lut (NULL: the
 * code itself). */
HVX_MM_INLINE void hvx_mm_nibble_operands(const uint8_t *t, bool tiled, const uint8_t *lut, HVX_Vector q[8]) {
    HVX_Vector y[4];
    if (!tiled) {
        hvx_mm_rows_to_words(t, 4, y);
    }
    for (uint32_t v = 0; v < 4; v++) {
        const HVX_Vector x = tiled ? hvx_vmem_ld(t + v * HEX_VLEN) : y[v];
        HVX_Vector lo = hvx_mm_field(x, 0, 0x0F), hi = hvx_mm_field(x, 4, 0x0F);
        if (lut) {
            lo = Q6_Vb_vlut32_VbVbR(lo, hvx_vmem_ld(lut), 0);
            hi = Q6_Vb_vlut32_VbVbR(hi, hvx_vmem_ld(lut), 0);
        }
        if (tiled) {
            hvx_mm_pairs_operands(lo, hi, &q[2 * v], &q[2 * v + 1]);
        } else {
            q[v] = lo;
            q[4 + v] = hi;
        }
    }
}

/* 32 E8M0 bytes at p (row r at r) as the f32 scales 2^(e - 128). e <= 1 (scales below 2^-127, subnormal in f32)
 * give 0. */
HVX_MM_INLINE HVX_Vector hvx_mm_scales_e8m0(const uint8_t *p) {
    const HVX_Vector e = Q6_V_lo_W(Q6_Wuw_vunpack_Vuh(Q6_V_lo_W(Q6_Wuh_vunpack_Vub(hvx_vmem_ld(p)))));
    const HVX_Vector biased = Q6_Vw_vmax_VwVw(Q6_Vw_vsub_VwVw(e, Q6_V_vsplat_R(1)), Q6_V_vzero());
    return Q6_Vw_vasl_VwR(biased, 23);
}

/* A step's weights (the HMX path's FP16 expansion reads them too, hvx-dequant-fp16.h): Q4_1 family DM, IQ4_NL and
 * MXFP4 family D. */
HVX_MM_INLINE void hvx_mm_wstep_q4_1(const uint8_t *w, bool tiled, struct hvx_mm_wstep *ws) {
    hvx_mm_nibble_operands(w, tiled, NULL, ws->q);
    hvx_mm_f16_pairs(hvx_vmem_ld(w + HTP_TENSOR_TILE_SCALES_OFFSET_Q4_1), &ws->s0, &ws->m); /* flat: (d, m) at 512 */
}

HVX_MM_INLINE void hvx_mm_wstep_iq4_nl(const uint8_t *w, bool tiled, struct hvx_mm_wstep *ws) {
    hvx_mm_nibble_operands(w, tiled, dq_luts[DQ_LUT_IQ4_NL], ws->q);
    ws->s0 = hvx_mm_scales_f16(w + HTP_TENSOR_TILE_SCALES_OFFSET_IQ4_NL); /* flat: the d part at 512 */
}

HVX_MM_INLINE void hvx_mm_wstep_mxfp4(const uint8_t *w, bool tiled, struct hvx_mm_wstep *ws) {
    hvx_mm_nibble_operands(w, tiled, dq_luts[DQ_LUT_MXFP4], ws->q);
    ws->s0 = hvx_mm_scales_e8m0(w + HTP_TENSOR_TILE_SCALES_OFFSET_MXFP4); /* flat: the e part at 512 */
}

HVX_MM_INLINE void hvx_mm_unit_q4_1(const uint8_t *w, bool tiled, const uint8_t *a0, const uint8_t *a1,
                                    HVX_Vector *acc0, HVX_Vector *acc1) {
    struct hvx_mm_wstep ws;
    hvx_mm_wstep_q4_1(w, tiled, &ws);
    hvx_mm_mac2(HVX_MM_DM, &ws, a0, a1, acc0, acc1);
}

HVX_MM_INLINE void hvx_mm_unit_iq4_nl(const uint8_t *w, bool tiled, const uint8_t *a0, const uint8_t *a1,
                                      HVX_Vector *acc0, HVX_Vector *acc1) {
    struct hvx_mm_wstep ws;
    hvx_mm_wstep_iq4_nl(w, tiled, &ws);
    hvx_mm_mac2(HVX_MM_D, &ws, a0, a1, acc0, acc1);
}

HVX_MM_INLINE void hvx_mm_unit_mxfp4(const uint8_t *w, bool tiled, const uint8_t *a0, const uint8_t *a1,
                                     HVX_Vector *acc0, HVX_Vector *acc1) {
    struct hvx_mm_wstep ws;
    hvx_mm_wstep_mxfp4(w, tiled, &ws);
    hvx_mm_mac2(HVX_MM_D, &ws, a0, a1, acc0, acc1);
}

#define HVX_MM_NIBBLE_UNIT(NAME, TILED)                                                                      \
    HVX_MM_INLINE void hvx_mm_unit_##NAME##_##TILED(const uint8_t *w, uint32_t step_size, const uint8_t *a0, \
                                                    const uint8_t *a1, HVX_Vector *acc0, HVX_Vector *acc1) { \
        (void) step_size;                                                                                    \
        hvx_mm_unit_##NAME(w, HVX_MM_LAYOUT_##TILED, a0, a1, acc0, acc1);                                    \
    }                                                                                                        \
    HVX_MM_QDOT_UNITS(NAME##_##TILED, 1, hvx_mm_unit_##NAME##_##TILED)

#define HVX_MM_LAYOUT_tiled true
#define HVX_MM_LAYOUT_flat  false

HVX_MM_NIBBLE_UNIT(q4_1, tiled)
HVX_MM_NIBBLE_UNIT(q4_1, flat)
HVX_MM_NIBBLE_UNIT(iq4_nl, tiled)
HVX_MM_NIBBLE_UNIT(iq4_nl, flat)
HVX_MM_NIBBLE_UNIT(mxfp4, tiled)
HVX_MM_NIBBLE_UNIT(mxfp4, flat)

#endif /* VNPU_HVX_MM_NIBBLE_H */
