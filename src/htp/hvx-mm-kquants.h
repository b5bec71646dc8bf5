/*
 * MUL_MAT int8 kernels (hvx-mm-quant.h) of the K-quants Q2_K, Q3_K, Q4_K, Q5_K and Q6_K, tiled and flat. A GGML
 * super-block is 256 columns: 8 steps of 32, 16 sub-blocks of 16 (Q2_K, Q3_K, Q6_K: two per step, family D2 / D2M)
 * or 8 of 32 (Q4_K, Q5_K: one per step, family DM).
 *
 * Tiled (the seed's tiles, htp-tiles.h): every tile but Q2_K's is a unit of its own, its scales already products
 * (FP16 d * scale, -dmin * min); Q2_K's unit is the 8 tiles of a super-block, whose d and -dmin it gathers once.
 *   Q2_K  codes: 2-bit vrmpy plane (operand g: bits 2 (g % 4) of vector g / 4), 0..3; GGML's scale bytes
 *         (min << 4 | scale) per row and sub-block; x = d * scale * q - dmin * min      (D2M: the mins by vrmpy)
 *   Q3_K  low 2 bits as Q2_K's, minus 4 where the sign plane's bit g is set; s = d * (scale - 32)        (D2)
 *   Q4_K  nibble pairs as Q4_0's, unsigned; (d * scale, -dmin * min) pairs                              (DM)
 *   Q5_K  Q4_K and the fifth-bit plane: bits 2v / 2v + 1 of byte 32 j + r top the low / high nibble of byte
 *         32 j + r of nibble vector v                                                                   (DM)
 *   Q6_K  low nibbles in vrmpy order (operand g: nibble g % 2 of vector g / 2), high 2 bits as Q2_K's codes,
 *         minus 32; s = d * scale                                                                       (D2)
 *
 * Flat: a unit is one super-block of the 32 rows, its parts in the areas of matmul_qtype_get: 32-byte chunks of
 * codes and bit planes, and the block header (d, dmin, packed scales), each turned into words by row
 * (hvx_mm_rows_to_words): word r of vector g then holds row r's bytes 4g .. 4g + 3 of the chunk, so that GGML's
 * byte l (column l of every step the chunk serves) lands in byte l % 4 of operand l / 4 and a step's operands are
 * bit fields of the chunk's vectors:
 *   Q2_K  qs chunk n serves steps 4n + s at bits 2s; scale bytes 2j, 2j + 1 of step j
 *   Q3_K  qs as Q2_K's; hmask bit j of byte l is the high bit of column l of step j (x = (low | high << 2) - 4);
 *         the 16 6-bit scales unpacked from their 12 bytes as GGML's q3_K scales, s = d * (scale - 32)
 *   Q4_K  qs chunk c serves steps 2c (low nibbles) and 2c + 1 (high); scales and mins as GGML's get_scale_min_k4
 *   Q5_K  Q4_K and qh, whose bit j of byte l tops column l of step j
 *   Q6_K  ql chunk 2n + c serves steps 4n + c (low nibbles) and 4n + c + 2 (high), qh chunk n steps 4n + s at bits
 *         2s; int8 scales
 * The flat scales are formed as GGML forms them (d * scale in f32, exact), so a flat kernel computes with GGML's
 * values; the tiled ones are the tiles' FP16 products (repack.h says how close those are).
 */
#ifndef VNPU_HVX_MM_KQUANTS_H
#define VNPU_HVX_MM_KQUANTS_H

#include "hvx-mm-nibble.h"
#include "hvx-mm-quant.h"

#define HVX_MM_KQ_STEPS 8 /* steps of a super-block */

/* The activation block of step j of a unit (NULL stays NULL: the 32x1 kernel's missing column). */
HVX_MM_INLINE const uint8_t *hvx_mm_act_step(const uint8_t *a, uint32_t j) {
    return a ? a + j * ACT_Q8_BLOCK_SIZE : NULL;
}

/* -x for f32 lanes (the sign bit flipped: exact). */
HVX_MM_INLINE HVX_Vector hvx_mm_neg_f32(HVX_Vector x) {
    return Q6_V_vxor_VV(x, Q6_V_vsplat_R((int32_t) 0x80000000u));
}

/* x * f32(i) for int32 lanes i below 2^22. */
HVX_MM_INLINE HVX_Vector hvx_mm_mul_i32(HVX_Vector x, HVX_Vector i) {
    return hvx_vec_mul_f32(x, hvx_mm_i32_to_f32(i));
}

/* Byte b of every word of x in all four bytes of the word: even/odd byte, then even/odd halfword self-shuffles. */
HVX_MM_INLINE HVX_Vector hvx_mm_byte_rep(HVX_Vector x, uint32_t b) {
    const HVX_Vector h = b % 2 ? Q6_Vb_vshuffo_VbVb(x, x) : Q6_Vb_vshuffe_VbVb(x, x);
    return b / 2 ? Q6_Vh_vshuffo_VhVh(h, h) : Q6_Vh_vshuffe_VhVh(h, h);
}

/* ---- Q2_K ---- */

/* The 2-bit codes of a step, operand g at bits 2 (g % 4) of x[g / 4]. */
HVX_MM_INLINE void hvx_mm_2bit_operands(const HVX_Vector x[2], HVX_Vector q[8]) {
    for (uint32_t g = 0; g < 8; g++) {
        q[g] = hvx_mm_field(x[g / 4], 2 * (g % 4), 3);
    }
}

/* d and -dmin of a tiled super-block's 32 rows: tile t (< 4) holds d of rows 8t .. 8t + 7 in its D area, tile 4 + t
 * their -dmin; each area's 16 bytes are the top of an unaligned load, shifted in from tile 7 down to tile 0. */
HVX_MM_INLINE void hvx_mm_q2_K_d_tiled(const uint8_t *w, uint32_t step_size, HVX_Vector *d, HVX_Vector *neg_dmin) {
    HVX_Vector x = Q6_V_vzero();
    for (uint32_t t = HVX_MM_KQ_STEPS; t-- > 0;) {
        const uint8_t *area = w + t * step_size + HTP_TENSOR_TILE_D_OFFSET_Q2_K;
        x = Q6_V_vlalign_VVR(x, hvx_vmemu_ld(area + 16 - HEX_VLEN), 16);
    }
    hvx_mm_f16_halves(x, d, neg_dmin);
}

/* A tiled Q2_K step's weights but ws->m (its super-block's -dmin), given the super-block's d (the HMX path's FP16
 * expansion reads them too). */
HVX_MM_INLINE void hvx_mm_wstep_q2_K_tiled(const uint8_t *t, HVX_Vector d, struct hvx_mm_wstep *ws) {
    const HVX_Vector x[2] = {hvx_vmem_ld(t), hvx_vmem_ld(t + HEX_VLEN)};
    hvx_mm_2bit_operands(x, ws->q);
    const HVX_Vector sc = hvx_vmem_ld(t + HTP_TENSOR_TILE_SCALES_OFFSET_Q2_K); /* byte r: k 0..15, 32 + r: 16..31 */
    const HVX_VectorPair s = Q6_Wuw_vunpack_Vuh(Q6_V_lo_W(Q6_Wuh_vunpack_Vub(hvx_mm_field(sc, 0, 0x0F))));
    ws->s0 = hvx_mm_mul_i32(d, Q6_V_lo_W(s));
    ws->s1 = hvx_mm_mul_i32(d, Q6_V_hi_W(s));
    const HVX_Vector mn = hvx_mm_field(sc, 4, 0x0F);
    const HVX_Vector twice = Q6_V_lo_W(Q6_W_vshuff_VVR(mn, mn, -1)); /* bytes 2r, 2r + 1: byte r of mn */
    const HVX_VectorPair m = Q6_W_vshuff_VVR(twice, twice, -2);
    ws->m0 = Q6_V_lo_W(m); /* word r: row r's min of k 0..15 in all four bytes */
    ws->m1 = Q6_V_hi_W(m); /* ... of k 16..31 */
}

HVX_MM_INLINE void hvx_mm_unit_q2_K_tiled(const uint8_t *w, uint32_t step_size, const uint8_t *a0, const uint8_t *a1,
                                          HVX_Vector *acc0, HVX_Vector *acc1) {
    struct hvx_mm_wstep ws;
    HVX_Vector d;
    hvx_mm_q2_K_d_tiled(w, step_size, &d, &ws.m);
    for (uint32_t j = 0; j < HVX_MM_KQ_STEPS; j++) {
        hvx_mm_wstep_q2_K_tiled(w + j * step_size, d, &ws);
        hvx_mm_mac2(HVX_MM_D2M, &ws, hvx_mm_act_step(a0, j), hvx_mm_act_step(a1, j), acc0, acc1);
    }
}

HVX_MM_INLINE void hvx_mm_unit_q2_K_flat(const uint8_t *w, uint32_t step_size, const uint8_t *a0, const uint8_t *a1,
                                         HVX_Vector *acc0, HVX_Vector *acc1) {
    struct hvx_mm_wstep ws;
    HVX_Vector d, dmin, sc[4], qs[8];
    (void) step_size;
    hvx_mm_f16_pairs(hvx_vmem_ld(w + 2560), &d, &dmin);
    ws.m = hvx_mm_neg_f32(dmin);
    hvx_mm_rows_to_words(w + 2048, 4, sc); /* sc[i]: scale bytes 4i .. 4i + 3 (sub-blocks) */
    for (uint32_t n = 0; n < 2; n++) {
        hvx_mm_rows_to_words(w + 1024 * n, 8, qs);
        for (uint32_t s = 0; s < 4; s++) {
            const uint32_t j = 4 * n + s;
            for (uint32_t g = 0; g < 8; g++) {
                ws.q[g] = hvx_mm_field(qs[g], 2 * s, 3);
            }
            const HVX_Vector x = sc[j / 2], mn = hvx_mm_field(x, 4, 0x0F); /* bytes 2 (j % 2), +1: this step */
            ws.s0 = hvx_mm_mul_i32(d, Q6_V_vand_VV(hvx_mm_byte_u(x, 2 * (j % 2)), Q6_V_vsplat_R(0x0F)));
            ws.s1 = hvx_mm_mul_i32(d, Q6_V_vand_VV(hvx_mm_byte_u(x, 2 * (j % 2) + 1), Q6_V_vsplat_R(0x0F)));
            ws.m0 = hvx_mm_byte_rep(mn, 2 * (j % 2));
            ws.m1 = hvx_mm_byte_rep(mn, 2 * (j % 2) + 1);
            hvx_mm_mac2(HVX_MM_D2M, &ws, hvx_mm_act_step(a0, j), hvx_mm_act_step(a1, j), acc0, acc1);
        }
    }
}

/* ---- Q3_K ---- */

/* A tiled Q3_K step's weights (the HMX path's FP16 expansion reads them too). */
HVX_MM_INLINE void hvx_mm_wstep_q3_K_tiled(const uint8_t *w, struct hvx_mm_wstep *ws) {
    const HVX_Vector x[2] = {hvx_vmem_ld(w), hvx_vmem_ld(w + HEX_VLEN)};
    const HVX_Vector neg = hvx_vmem_ld(w + HTP_TENSOR_TILE_SIGNS_OFFSET_Q3_K);
    hvx_mm_2bit_operands(x, ws->q);
    for (uint32_t g = 0; g < 8; g++) {
        ws->q[g] = Q6_Vb_vsub_VbVb(ws->q[g], hvx_mm_field_to(neg, g, 1, 2));
    }
    hvx_mm_f16_halves(hvx_vmem_ld(w + HTP_TENSOR_TILE_SCALES_OFFSET_Q3_K), &ws->s0, &ws->s1);
}

HVX_MM_INLINE void hvx_mm_unit_q3_K_tiled(const uint8_t *w, uint32_t step_size, const uint8_t *a0, const uint8_t *a1,
                                          HVX_Vector *acc0, HVX_Vector *acc1) {
    struct hvx_mm_wstep ws;
    (void) step_size;
    hvx_mm_wstep_q3_K_tiled(w, &ws);
    hvx_mm_mac2(HVX_MM_D2, &ws, a0, a1, acc0, acc1);
}

HVX_MM_INLINE void hvx_mm_unit_q3_K_flat(const uint8_t *w, uint32_t step_size, const uint8_t *a0, const uint8_t *a1,
                                         HVX_Vector *acc0, HVX_Vector *acc1) {
    struct hvx_mm_wstep ws;
    HVX_Vector t[4], hm[8], qs[8], d, unused;
    (void) step_size;
    hvx_mm_rows_to_words(w + 3072, 4, t); /* t[0..2]: the 12 packed scale bytes, t[3]: d in its low half */
    hvx_mm_f16_pairs(t[3], &d, &unused);
    const HVX_Vector sc[4] = {/* bytes of sub-blocks 4i .. 4i + 3, 0..63 */
                              Q6_V_vor_VV(hvx_mm_field(t[0], 0, 0x0F), hvx_mm_field_to(t[2], 0, 2, 4)),
                              Q6_V_vor_VV(hvx_mm_field(t[1], 0, 0x0F), hvx_mm_field_to(t[2], 2, 2, 4)),
                              Q6_V_vor_VV(hvx_mm_field(t[0], 4, 0x0F), hvx_mm_field_to(t[2], 4, 2, 4)),
                              Q6_V_vor_VV(hvx_mm_field(t[1], 4, 0x0F), hvx_mm_field_to(t[2], 6, 2, 4))};
    hvx_mm_rows_to_words(w, 8, hm);
    for (uint32_t n = 0; n < 2; n++) {
        hvx_mm_rows_to_words(w + 1024 * (1 + n), 8, qs);
        for (uint32_t s = 0; s < 4; s++) {
            const uint32_t j = 4 * n + s;
            for (uint32_t g = 0; g < 8; g++) {
                const HVX_Vector code = Q6_V_vor_VV(hvx_mm_field(qs[g], 2 * s, 3), hvx_mm_field_to(hm[g], j, 1, 2));
                ws.q[g] = Q6_Vb_vsub_VbVb(code, Q6_Vb_vsplat_R(4));
            }
            const HVX_Vector thirty_two = Q6_V_vsplat_R(32);
            ws.s0 = hvx_mm_mul_i32(d, Q6_Vw_vsub_VwVw(hvx_mm_byte_u(sc[j / 2], 2 * (j % 2)), thirty_two));
            ws.s1 = hvx_mm_mul_i32(d, Q6_Vw_vsub_VwVw(hvx_mm_byte_u(sc[j / 2], 2 * (j % 2) + 1), thirty_two));
            hvx_mm_mac2(HVX_MM_D2, &ws, hvx_mm_act_step(a0, j), hvx_mm_act_step(a1, j), acc0, acc1);
        }
    }
}

/* ---- Q4_K, Q5_K ---- */

/* Tiled Q4_K and Q5_K steps' weights (the HMX path's FP16 expansion reads them too). */
HVX_MM_INLINE void hvx_mm_wstep_q4_K_tiled(const uint8_t *w, struct hvx_mm_wstep *ws) {
    hvx_mm_nibble_operands(w, true, NULL, ws->q);
    hvx_mm_f16_pairs(hvx_vmem_ld(w + HTP_TENSOR_TILE_SCALES_OFFSET_Q4_K), &ws->s0, &ws->m);
}

HVX_MM_INLINE void hvx_mm_wstep_q5_K_tiled(const uint8_t *w, struct hvx_mm_wstep *ws) {
    const HVX_Vector qh = hvx_vmem_ld(w + HTP_TENSOR_TILE_QH_OFFSET_Q5_K);
    for (uint32_t v = 0; v < 4; v++) {
        const HVX_Vector x = hvx_vmem_ld(w + HTP_TENSOR_TILE_QS_OFFSET_Q5_K + v * HEX_VLEN);
        const HVX_Vector lo = Q6_V_vor_VV(hvx_mm_field(x, 0, 0x0F), hvx_mm_field_to(qh, 2 * v, 1, 4));
        const HVX_Vector hi = Q6_V_vor_VV(hvx_mm_field(x, 4, 0x0F), hvx_mm_field_to(qh, 2 * v + 1, 1, 4));
        hvx_mm_pairs_operands(lo, hi, &ws->q[2 * v], &ws->q[2 * v + 1]);
    }
    hvx_mm_f16_pairs(hvx_vmem_ld(w + HTP_TENSOR_TILE_SCALES_OFFSET_Q5_K), &ws->s0, &ws->m);
}

HVX_MM_INLINE void hvx_mm_unit_q4_K_tiled(const uint8_t *w, uint32_t step_size, const uint8_t *a0, const uint8_t *a1,
                                          HVX_Vector *acc0, HVX_Vector *acc1) {
    struct hvx_mm_wstep ws;
    (void) step_size;
    hvx_mm_wstep_q4_K_tiled(w, &ws);
    hvx_mm_mac2(HVX_MM_DM, &ws, a0, a1, acc0, acc1);
}

HVX_MM_INLINE void hvx_mm_unit_q5_K_tiled(const uint8_t *w, uint32_t step_size, const uint8_t *a0, const uint8_t *a1,
                                          HVX_Vector *acc0, HVX_Vector *acc1) {
    struct hvx_mm_wstep ws;
    (void) step_size;
    hvx_mm_wstep_q5_K_tiled(w, &ws);
    hvx_mm_mac2(HVX_MM_DM, &ws, a0, a1, acc0, acc1);
}

/* A flat Q4_K (qh NULL) or Q5_K super-block: codes at 0, qh at qh, the header (d, dmin, 12 scale bytes) at hdr. */
HVX_MM_INLINE void hvx_mm_unit_q45_K_flat(const uint8_t *w, const uint8_t *qh, const uint8_t *hdr, const uint8_t *a0,
                                          const uint8_t *a1, HVX_Vector *acc0, HVX_Vector *acc1) {
    struct hvx_mm_wstep ws;
    HVX_Vector t[4], h[8], qs[8], d, dmin;
    hvx_mm_rows_to_words(hdr, 4, t); /* t[0]: (d, dmin), t[1..3]: the packed scale bytes 0..11 */
    hvx_mm_f16_pairs(t[0], &d, &dmin);
    const HVX_Vector neg_dmin = hvx_mm_neg_f32(dmin);
    const HVX_Vector sc[2] = {hvx_mm_field(t[1], 0, 63), /* sub-blocks 0..3, 4..7 */
                              Q6_V_vor_VV(hvx_mm_field(t[3], 0, 0x0F), hvx_mm_field_to(t[1], 6, 2, 4))};
    const HVX_Vector mn[2] = {hvx_mm_field(t[2], 0, 63),
                              Q6_V_vor_VV(hvx_mm_field(t[3], 4, 0x0F), hvx_mm_field_to(t[2], 6, 2, 4))};
    if (qh) {
        hvx_mm_rows_to_words(qh, 8, h);
    }
    for (uint32_t c = 0; c < 4; c++) {
        hvx_mm_rows_to_words(w + 1024 * c, 8, qs);
        for (uint32_t k = 0; k < 2; k++) {
            const uint32_t j = 2 * c + k;
            for (uint32_t g = 0; g < 8; g++) {
                ws.q[g] = hvx_mm_field(qs[g], 4 * k, 0x0F);
                if (qh) {
                    ws.q[g] = Q6_V_vor_VV(ws.q[g], hvx_mm_field_to(h[g], j, 1, 4));
                }
            }
            ws.s0 = hvx_mm_mul_i32(d, hvx_mm_byte_u(sc[j / 4], j % 4));
            ws.m = hvx_mm_mul_i32(neg_dmin, hvx_mm_byte_u(mn[j / 4], j % 4));
            hvx_mm_mac2(HVX_MM_DM, &ws, hvx_mm_act_step(a0, j), hvx_mm_act_step(a1, j), acc0, acc1);
        }
    }
}

HVX_MM_INLINE void hvx_mm_unit_q4_K_flat(const uint8_t *w, uint32_t step_size, const uint8_t *a0, const uint8_t *a1,
                                         HVX_Vector *acc0, HVX_Vector *acc1) {
    (void) step_size;
    hvx_mm_unit_q45_K_flat(w, NULL, w + 4096, a0, a1, acc0, acc1);
}

HVX_MM_INLINE void hvx_mm_unit_q5_K_flat(const uint8_t *w, uint32_t step_size, const uint8_t *a0, const uint8_t *a1,
                                         HVX_Vector *acc0, HVX_Vector *acc1) {
    (void) step_size;
    hvx_mm_unit_q45_K_flat(w, w + 4096, w + 5120, a0, a1, acc0, acc1);
}

/* ---- Q6_K ---- */

/* A tiled Q6_K step's weights (the HMX path's FP16 expansion reads them too). */
HVX_MM_INLINE void hvx_mm_wstep_q6_K_tiled(const uint8_t *w, struct hvx_mm_wstep *ws) {
    const HVX_Vector qh[2] = {hvx_vmem_ld(w + HTP_TENSOR_TILE_QH_OFFSET_Q6_K),
                              hvx_vmem_ld(w + HTP_TENSOR_TILE_QH_OFFSET_Q6_K + HEX_VLEN)};
    for (uint32_t g = 0; g < 8; g++) {
        const HVX_Vector lo =
            hvx_mm_field(hvx_vmem_ld(w + HTP_TENSOR_TILE_QS_OFFSET_Q6_K + g / 2 * HEX_VLEN), 4 * (g % 2), 0x0F);
        const HVX_Vector code = Q6_V_vor_VV(lo, hvx_mm_field_to(qh[g / 4], 2 * (g % 4), 2, 4));
        ws->q[g] = Q6_Vb_vsub_VbVb(code, Q6_Vb_vsplat_R(32));
    }
    hvx_mm_f16_halves(hvx_vmem_ld(w + HTP_TENSOR_TILE_SCALES_OFFSET_Q6_K), &ws->s0, &ws->s1);
}

HVX_MM_INLINE void hvx_mm_unit_q6_K_tiled(const uint8_t *w, uint32_t step_size, const uint8_t *a0, const uint8_t *a1,
                                          HVX_Vector *acc0, HVX_Vector *acc1) {
    struct hvx_mm_wstep ws;
    (void) step_size;
    hvx_mm_wstep_q6_K_tiled(w, &ws);
    hvx_mm_mac2(HVX_MM_D2, &ws, a0, a1, acc0, acc1);
}

HVX_MM_INLINE void hvx_mm_unit_q6_K_flat(const uint8_t *w, uint32_t step_size, const uint8_t *a0, const uint8_t *a1,
                                         HVX_Vector *acc0, HVX_Vector *acc1) {
    struct hvx_mm_wstep ws;
    HVX_Vector t[8], qh[8], ql[8], d, unused;
    (void) step_size;
    hvx_mm_rows_to_words(w + 6144, 8, t); /* t[0..3]: the 16 int8 scales, t[4]: d in its low half */
    hvx_mm_f16_pairs(t[4], &d, &unused);
    for (uint32_t n = 0; n < 2; n++) {
        hvx_mm_rows_to_words(w + 4096 + 1024 * n, 8, qh);
        for (uint32_t c = 0; c < 2; c++) {
            hvx_mm_rows_to_words(w + 1024 * (2 * n + c), 8, ql);
            for (uint32_t k = 0; k < 2; k++) {
                const uint32_t s = c + 2 * k, j = 4 * n + s;
                for (uint32_t g = 0; g < 8; g++) {
                    const HVX_Vector code =
                        Q6_V_vor_VV(hvx_mm_field(ql[g], 4 * k, 0x0F), hvx_mm_field_to(qh[g], 2 * s, 2, 4));
                    ws.q[g] = Q6_Vb_vsub_VbVb(code, Q6_Vb_vsplat_R(32));
                }
                ws.s0 = hvx_mm_mul_i32(d, hvx_mm_byte_s(t[j / 2], 2 * (j % 2)));
                ws.s1 = hvx_mm_mul_i32(d, hvx_mm_byte_s(t[j / 2], 2 * (j % 2) + 1));
                hvx_mm_mac2(HVX_MM_D2, &ws, hvx_mm_act_step(a0, j), hvx_mm_act_step(a1, j), acc0, acc1);
            }
        }
    }
}

HVX_MM_QDOT_UNITS(q2_K_tiled, HVX_MM_KQ_STEPS, hvx_mm_unit_q2_K_tiled)
HVX_MM_QDOT_UNITS(q2_K_flat, HVX_MM_KQ_STEPS, hvx_mm_unit_q2_K_flat)
HVX_MM_QDOT_UNITS(q3_K_tiled, 1, hvx_mm_unit_q3_K_tiled)
HVX_MM_QDOT_UNITS(q3_K_flat, HVX_MM_KQ_STEPS, hvx_mm_unit_q3_K_flat)
HVX_MM_QDOT_UNITS(q4_K_tiled, 1, hvx_mm_unit_q4_K_tiled)
HVX_MM_QDOT_UNITS(q4_K_flat, HVX_MM_KQ_STEPS, hvx_mm_unit_q4_K_flat)
HVX_MM_QDOT_UNITS(q5_K_tiled, 1, hvx_mm_unit_q5_K_tiled)
HVX_MM_QDOT_UNITS(q5_K_flat, HVX_MM_KQ_STEPS, hvx_mm_unit_q5_K_flat)
HVX_MM_QDOT_UNITS(q6_K_tiled, 1, hvx_mm_unit_q6_K_tiled)
HVX_MM_QDOT_UNITS(q6_K_flat, HVX_MM_KQ_STEPS, hvx_mm_unit_q6_K_flat)

#endif /* VNPU_HVX_MM_KQUANTS_H */
