/*
 * Dequantizers of GGML's flat blocks (dequant.h). The DMA has split each block into its fields (get-rows-ops.h),
 * so every region is a dense array: one scale (pair) per block, the K-quants' packed scale bytes spread to one
 * byte per sub-block, and the codes laid out so that element e sits at byte e: a run of bytes holding two
 * nibbles (or four 2-bit fields, or eight bits) of different elements comes twice (four, eight times), and each
 * copy gives the field its position asks for. What is left is bit work on whole vectors: fields by position,
 * table lookups (vlut32: IQ4_NL's and MXFP4's levels), the K-quants' 6-bit scale unpacking, and their
 * super-block scales expanded over the sub-blocks. Block formats: src/base/quants.h (GGML's ggml-common.h),
 * restated where used.
 */
#include "dequant.h"

/* Blocks of 32 with nibbles: byte j of a block's 16 holds element j (low nibble) and j + 16 (high nibble), and
 * the DMA gave each block's 16 bytes twice; the codes are the table's level of each nibble. */
static void dq_flat_nibbles(const uint8_t *qs, uint32_t n, uint8_t *codes, enum dq_lut_id lut) {
    const HVX_Vector table = hvx_vmem_ld(dq_luts[lut]);
    for (uint32_t i = 0; i < dq_nvec(n); i++) {
        const HVX_Vector q = dq_nibble_by_position(hvx_vmem_ld(DQ_VEC(qs, i)), 16);
        hvx_vmem_st(DQ_VEC(codes, i), Q6_Vb_vlut32_VbVbR(q, table, 0));
    }
}

/* Q4_0: x = (q - 8) * d. */
void dq_flat_q4_0(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o) {
    HVX_SCOPE();
    dq_flat_nibbles(region[GR_QS], n, o->codes, DQ_LUT_Q4_0);
    dq_scales_hf(region[GR_D], n / 32, o->scale);
}

/* IQ4_NL: x = kvalues_iq4nl[q] * d. */
void dq_flat_iq4_nl(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o) {
    HVX_SCOPE();
    dq_flat_nibbles(region[GR_QS], n, o->codes, DQ_LUT_IQ4_NL);
    dq_scales_hf(region[GR_D], n / 32, o->scale);
}

/* Q4_1: x = q * d + m, (d, m) per block. */
void dq_flat_q4_1(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o) {
    HVX_SCOPE();
    dq_flat_nibbles(region[GR_QS], n, o->codes, DQ_LUT_U4);
    dq_scales_hf_pairs(region[GR_D], n / 32, o->scale, o->bias);
}

/* MXFP4: x = kvalues_mxfp4[q] * 2^(e - 128). */
void dq_flat_mxfp4(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o) {
    HVX_SCOPE();
    dq_flat_nibbles(region[GR_QS], n, o->codes, DQ_LUT_MXFP4);
    dq_scales_e8m0(region[GR_D], n / 32, o->scale);
}

/* Q8_0: x = q * d; the codes are the blocks' int8 quants, already back to back in their region. */
void dq_flat_q8_0(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o) {
    HVX_SCOPE();
    dq_copy_codes(region[GR_QS], n, o->codes);
    dq_scales_hf(region[GR_D], n / 32, o->scale);
}

/* Q1_0: element 8 k + b is bit b of byte k of the codes (blocks of 128 back to back): -d when clear, +d when set.
 * Each byte repeated 8 times puts element e at byte e, its bit at e % 8. */
void dq_flat_q1_0(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o) {
    HVX_SCOPE();
    const HVX_Vector shift = dq_shifts(0, 6, 1, 0), one = Q6_Vb_vsplat_R(1);
    for (uint32_t i = 0; i < dq_nvec(n / 8); i++) {
        const HVX_Vector v = hvx_vmem_ld(DQ_VEC(region[GR_QS], i));
        for (uint32_t j = 0; j < 8; j++) {
            const HVX_Vector bit = dq_field(dq_repeat(v, 1, 3, j), shift, 1, 1);
            hvx_vmem_st(DQ_VEC(o->codes, 8 * i + j), Q6_Vb_vsub_VbVb(Q6_Vb_vadd_VbVb(bit, bit), one));
        }
    }
    dq_scales_hf(region[GR_D], n / 128, o->scale);
}

/* Q2_0: element 4 k + p is bits 2 p of byte k (blocks of 64 back to back); x = (code - 1) * d. Each byte repeated
 * 4 times puts element e at byte e, its bits at 2 (e % 4). */
void dq_flat_q2_0(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o) {
    HVX_SCOPE();
    const HVX_Vector shift = dq_shifts(1, 1, 4, 0), one = Q6_Vb_vsplat_R(1);
    for (uint32_t i = 0; i < dq_nvec(n / 4); i++) {
        const HVX_Vector v = hvx_vmem_ld(DQ_VEC(region[GR_QS], i));
        for (uint32_t j = 0; j < 4; j++) {
            const HVX_Vector code = dq_field(dq_repeat(v, 1, 2, j), shift, 2, 3);
            hvx_vmem_st(DQ_VEC(o->codes, 4 * i + j), Q6_Vb_vsub_VbVb(code, one));
        }
    }
    dq_scales_hf(region[GR_D], n / 64, o->scale);
}

/* codes[e] = the 2-bit field of element e (Q2_K's codes, Q3_K's low bits): the plane with each run of 32 bytes
 * four times, element e at byte e, its bits at 2 (e / 32 % 4). */
static void dq_flat_codes2(const uint8_t *q, uint32_t n, uint8_t *codes) {
    const HVX_Vector shift = dq_shifts(5, 3, 2, 0);
    for (uint32_t i = 0; i < dq_nvec(n); i++) {
        hvx_vmem_st(DQ_VEC(codes, i), dq_field(hvx_vmem_ld(DQ_VEC(q, i)), shift, 0, 3));
    }
}

/* codes[e] += bit of element e ? on : off (Q3_K's hmask, Q5_K's qh): the 32 bytes of a super-block eight times,
 * element e at byte e, its bit at e / 32: segments 0..3 of even vectors, 4..7 of odd ones. */
static void dq_flat_add_bits(const uint8_t *h, uint32_t n, uint8_t *codes, int8_t on, int8_t off) {
    const HVX_Vector low = dq_shifts(5, 3, 1, 0), high = dq_shifts(5, 3, 1, 4);
    for (uint32_t i = 0; i < dq_nvec(n); i++) {
        const HVX_Vector bit = dq_field(hvx_vmem_ld(DQ_VEC(h, i)), i % 2 ? high : low, 0, 1);
        const HVX_Vector add =
            Q6_V_vmux_QVV(Q6_Q_vand_VR(bit, 0x01010101), Q6_Vb_vsplat_R((uint8_t) on), Q6_Vb_vsplat_R((uint8_t) off));
        hvx_vmem_st(DQ_VEC(codes, i), Q6_Vb_vadd_VbVb(hvx_vmem_ld(DQ_VEC(codes, i)), add));
    }
}

/* Super-block d (F16, one per 256 elements at d) spread over its sub-blocks of sub elements, as F32, into out. */
static void dq_flat_spread(const uint8_t *d, uint32_t n, uint32_t sub, uint8_t *tmp, uint8_t *out) {
    dq_scales_hf(d, n / 256, tmp);
    dq_expand(tmp, n / 256, sub == 16 ? 4 : 3, out);
}

/* Q2_K: x = d * (sc & 15) * q - dmin * (sc >> 4), 16 scale bytes per super-block in sub-block order. */
void dq_flat_q2_K(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o) {
    HVX_SCOPE();
    dq_flat_codes2(region[GR_QS], n, o->codes);
    for (uint32_t i = 0; i < dq_nvec(n / 16); i++) {
        const HVX_Vector sc = hvx_vmem_ld(DQ_VEC(region[GR_SC], i));
        hvx_vmem_st(DQ_VEC(o->tmp + DQ_TMP_SC, i), dq_bits(sc, 0, 0x0F));
        hvx_vmem_st(DQ_VEC(o->tmp + DQ_TMP_MIN, i), Q6_Vub_vlsr_VubR(sc, 4));
    }
    dq_scales_hf_pairs(region[GR_D], n / 256, o->tmp + DQ_TMP_D, o->tmp + DQ_TMP_DM);
    dq_expand(o->tmp + DQ_TMP_D, n / 256, 4, o->scale);
    dq_expand(o->tmp + DQ_TMP_DM, n / 256, 4, o->bias);
    dq_scale_by_bytes(o->scale, o->tmp + DQ_TMP_SC, n / 16, false, o->tmp + DQ_TMP_F);
    dq_scale_by_bytes(o->bias, o->tmp + DQ_TMP_MIN, n / 16, false, o->tmp + DQ_TMP_F);
    dq_negate(o->bias, n / 16);
}

/* Q3_K: x = d * (scale - 32) * (q - 4 when the hmask bit is clear), q the low 2 bits. The DMA left 16 bytes per
 * super-block in SC (bytes 0..7 of the packed scales, twice) and SC1 (bytes 8..11, four times): scale j takes the
 * low nibble of byte j (j < 8) or the high nibble of byte j - 8, and bits 2 (j / 4) of byte 8 + j % 4 on top. */
void dq_flat_q3_K(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o) {
    HVX_SCOPE();
    dq_flat_codes2(region[GR_QS], n, o->codes);
    dq_flat_add_bits(region[GR_QH], n, o->codes, 0, -4);
    const HVX_VectorPred high_nibble = Q6_Q_vand_VR(dq_byte_index(), 0x08080808); /* j >= 8 in the 16 */
    const HVX_Vector shift = dq_shifts(2, 3, 2, 0);                               /* 2 (j / 4) */
    for (uint32_t i = 0; i < dq_nvec(n / 16); i++) {
        const HVX_Vector l = hvx_vmem_ld(DQ_VEC(region[GR_SC], i)), h = hvx_vmem_ld(DQ_VEC(region[GR_SC1], i));
        const HVX_Vector lo = Q6_V_vmux_QVV(high_nibble, Q6_Vub_vlsr_VubR(l, 4), dq_bits(l, 0, 0x0F));
        const HVX_Vector hi = dq_field(h, shift, 0, 3);
        const HVX_Vector sc = Q6_Vb_vsub_VbVb(Q6_V_vor_VV(lo, Q6_Vh_vasl_VhR(hi, 4)), Q6_Vb_vsplat_R(32));
        hvx_vmem_st(DQ_VEC(o->tmp + DQ_TMP_SC, i), sc);
    }
    dq_flat_spread(region[GR_D], n, 16, o->tmp + DQ_TMP_D, o->scale);
    dq_scale_by_bytes(o->scale, o->tmp + DQ_TMP_SC, n / 16, true, o->tmp + DQ_TMP_F);
}

/* Q4_K and Q5_K: x = d * sc * q - dmin * m per sub-block of 32, 6-bit sc and m (get_scale_min_k4). The DMA left
 * 8-byte records per super-block: SC = bytes 0..3, 8..11, SC1 = 4..7, 8..11, SC2 = -, 0..3, SC3 = -, 4..7, so
 * sc_j = j < 4 ? SC & 63 : (SC & 15) | (SC2 >> 6) << 4, and m_j = j < 4 ? SC1 & 63 : (SC1 >> 4) | (SC3 >> 6) << 4.
 * Codes: per 64 elements 32 bytes, low nibbles then high nibbles, each run twice. */
static void dq_flat_q45_K(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o) {
    HVX_SCOPE();
    for (uint32_t i = 0; i < dq_nvec(n); i++) {
        hvx_vmem_st(DQ_VEC(o->codes, i), dq_nibble_by_position(hvx_vmem_ld(DQ_VEC(region[GR_QS], i)), 32));
    }
    const HVX_VectorPred upper = Q6_Q_vand_VR(dq_byte_index(), 0x04040404); /* j >= 4 in the 8 */
    for (uint32_t i = 0; i < dq_nvec(n / 32); i++) {
        const HVX_Vector a = hvx_vmem_ld(DQ_VEC(region[GR_SC], i)), b = hvx_vmem_ld(DQ_VEC(region[GR_SC1], i));
        const HVX_Vector c = hvx_vmem_ld(DQ_VEC(region[GR_SC2], i)), d = hvx_vmem_ld(DQ_VEC(region[GR_SC3], i));
        const HVX_Vector sc =
            Q6_V_vmux_QVV(upper, Q6_V_vor_VV(dq_bits(a, 0, 0x0F), dq_bits(c, 2, 0x30)), dq_bits(a, 0, 0x3F));
        const HVX_Vector m =
            Q6_V_vmux_QVV(upper, Q6_V_vor_VV(Q6_Vub_vlsr_VubR(b, 4), dq_bits(d, 2, 0x30)), dq_bits(b, 0, 0x3F));
        hvx_vmem_st(DQ_VEC(o->tmp + DQ_TMP_SC, i), sc);
        hvx_vmem_st(DQ_VEC(o->tmp + DQ_TMP_MIN, i), m);
    }
    dq_scales_hf_pairs(region[GR_D], n / 256, o->tmp + DQ_TMP_D, o->tmp + DQ_TMP_DM);
    dq_expand(o->tmp + DQ_TMP_D, n / 256, 3, o->scale);
    dq_expand(o->tmp + DQ_TMP_DM, n / 256, 3, o->bias);
    dq_scale_by_bytes(o->scale, o->tmp + DQ_TMP_SC, n / 32, false, o->tmp + DQ_TMP_F);
    dq_scale_by_bytes(o->bias, o->tmp + DQ_TMP_MIN, n / 32, false, o->tmp + DQ_TMP_F);
    dq_negate(o->bias, n / 32);
}

void dq_flat_q4_K(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o) {
    dq_flat_q45_K(region, n, o);
}

/* Q5_K: Q4_K's codes + 16 times the fifth bit (qh: element 32 b + l at bit b of byte l). */
void dq_flat_q5_K(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o) {
    HVX_SCOPE();
    dq_flat_q45_K(region, n, o);
    dq_flat_add_bits(region[GR_QH], n, o->codes, 16, 0);
}

/* Q6_K: x = d * sc * (q - 32) per sub-block of 16, sc signed; q's low 4 bits from ql (per 128 elements 64 bytes,
 * each half twice: elements 0..63 the low nibbles, 64..127 the high ones), its high 2 bits from qh (the 2-bit
 * plane, each run four times). */
void dq_flat_q6_K(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o) {
    HVX_SCOPE();
    const HVX_Vector shift = dq_shifts(5, 3, 2, 0);
    for (uint32_t i = 0; i < dq_nvec(n); i++) {
        const HVX_Vector low = dq_nibble_by_position(hvx_vmem_ld(DQ_VEC(region[GR_QS], i)), 64);
        const HVX_Vector high = dq_field(hvx_vmem_ld(DQ_VEC(region[GR_QH], i)), shift, 0, 3);
        const HVX_Vector q = Q6_V_vor_VV(low, Q6_Vh_vasl_VhR(high, 4));
        hvx_vmem_st(DQ_VEC(o->codes, i), Q6_Vb_vsub_VbVb(q, Q6_Vb_vsplat_R(32)));
    }
    dq_flat_spread(region[GR_D], n, 16, o->tmp + DQ_TMP_D, o->scale);
    dq_scale_by_bytes(o->scale, region[GR_SC], n / 16, true, o->tmp + DQ_TMP_F);
}
