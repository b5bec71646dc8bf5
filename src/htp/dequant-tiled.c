/*
 * Dequantizers of the REPACK tiles (dequant.h), and the tables of all of them. A tile holds 32 rows; the DMA has
 * already picked row r's bytes out of each tile of the task and laid them per tile in order (get-rows-ops.h):
 *
 *   nibble pairs  16 bytes: pair cp = codes 2 cp (low nibble) and 2 cp + 1       Q4_0 Q4_1 IQ4_NL MXFP4 Q4_K Q5_K
 *   byte pairs    32 bytes: the codes in order                                  Q8_0
 *   vrmpy words   one 4-byte word per 128-byte vector of the tile: byte j of word m holds the b-bit codes of
 *                 k = 4 g + j (g the group within the word) at bits b (g % (8 / b))    Q1_0 Q2_0 Q2_K Q3_K Q6_K
 *   scales        F16 per tile (or per 16 of its k), (scale, bias) pairs, E8M0 bytes, Q2_K's scale bytes and its
 *                 (d, -dmin) per super-block
 *
 * so what is left is bit work: a nibble pair splits into two codes with one byte shuffle, and a vrmpy word
 * repeated by self-shuffles until element k sits at byte k gives each byte the field its position asks for.
 * Tile layouts: htp-tiles.h (seed 000, "Tiled Weight Formats"); the values equal repack_dequant_tile's.
 */
#include "dequant.h"

/* clang-format off */
#define DQ_LUT(a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p) \
    {(uint8_t) (a), 0, (uint8_t) (b), 0, (uint8_t) (c), 0, (uint8_t) (d), 0, (uint8_t) (e), 0, (uint8_t) (f), 0, \
     (uint8_t) (g), 0, (uint8_t) (h), 0, (uint8_t) (i), 0, (uint8_t) (j), 0, (uint8_t) (k), 0, (uint8_t) (l), 0, \
     (uint8_t) (m), 0, (uint8_t) (n), 0, (uint8_t) (o), 0, (uint8_t) (p), 0}
const uint8_t dq_luts[4][HEX_VLEN] __attribute__((aligned(HEX_VLEN))) = {
    [DQ_LUT_Q4_0] = DQ_LUT(-8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7),
    [DQ_LUT_U4] = DQ_LUT(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
    [DQ_LUT_IQ4_NL] = DQ_LUT(-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113),
    [DQ_LUT_MXFP4] = DQ_LUT(0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12),
};
const uint8_t dq_index[HEX_VLEN] __attribute__((aligned(HEX_VLEN))) = {
    0,   1,   2,   3,   4,   5,   6,   7,   8,   9,   10,  11,  12,  13,  14,  15,  16,  17,  18,  19,  20,  21,
    22,  23,  24,  25,  26,  27,  28,  29,  30,  31,  32,  33,  34,  35,  36,  37,  38,  39,  40,  41,  42,  43,
    44,  45,  46,  47,  48,  49,  50,  51,  52,  53,  54,  55,  56,  57,  58,  59,  60,  61,  62,  63,  64,  65,
    66,  67,  68,  69,  70,  71,  72,  73,  74,  75,  76,  77,  78,  79,  80,  81,  82,  83,  84,  85,  86,  87,
    88,  89,  90,  91,  92,  93,  94,  95,  96,  97,  98,  99,  100, 101, 102, 103, 104, 105, 106, 107, 108, 109,
    110, 111, 112, 113, 114, 115, 116, 117, 118, 119, 120, 121, 122, 123, 124, 125, 126, 127,
};
/* clang-format on */

/* Nibble pairs (16 bytes per tile) -> the table's level of each nibble, in k order: 8 tiles per vector. */
static void dq_tiled_nibbles(const uint8_t *qs, uint32_t n, uint8_t *codes, enum dq_lut_id id) {
    const HVX_Vector lut = hvx_vmem_ld(dq_luts[id]);
    for (uint32_t i = 0; i < dq_nvec(n / 2); i++) {
        const HVX_Vector v = hvx_vmem_ld(DQ_VEC(qs, i));
        const HVX_VectorPair e = Q6_W_vshuff_VVR(Q6_Vub_vlsr_VubR(v, 4), dq_bits(v, 0, 0x0F), -1);
        hvx_vmem_st(DQ_VEC(codes, 2 * i), Q6_Vb_vlut32_VbVbR(Q6_V_lo_W(e), lut, 0));
        hvx_vmem_st(DQ_VEC(codes, 2 * i + 1), Q6_Vb_vlut32_VbVbR(Q6_V_hi_W(e), lut, 0));
    }
}

/* vrmpy words of b-bit codes (byte j of word m holds k = 8 m / b + 4 g + j at bits b g): each word repeated 8 / b
 * times puts element k at byte k, its bits at b ((k / 4) % (8 / b)). Output vector i * parts + j of the words in
 * vector i of qs, with `minus` taken off (Q1_0: codes -1 or +1, b = 1). */
static void dq_tiled_words(const uint8_t *qs, uint32_t n, uint8_t *codes, uint32_t b, uint8_t minus) {
    const uint32_t levels = b == 1 ? 3 : b == 2 ? 2 : 1, parts = 1u << levels;
    const HVX_Vector shift = dq_shifts(2, parts - 1, b, 0), m = Q6_Vb_vsplat_R(minus);
    for (uint32_t i = 0; i < dq_nvec(n * b / 8); i++) {
        const HVX_Vector v = hvx_vmem_ld(DQ_VEC(qs, i));
        for (uint32_t j = 0; j < parts; j++) {
            HVX_Vector q = dq_field(dq_repeat(v, 4, levels, j), shift, 0, (uint8_t) ((1u << b) - 1));
            q = b == 1 ? Q6_Vb_vadd_VbVb(q, q) : q; /* Q1_0: 2 bit - 1 */
            hvx_vmem_st(DQ_VEC(codes, parts * i + j), Q6_Vb_vsub_VbVb(q, m));
        }
    }
}

/* Q4_0: x = (q - 8) * d. */
void dq_tiled_q4_0(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o) {
    HVX_SCOPE();
    dq_tiled_nibbles(region[GR_QS], n, o->codes, DQ_LUT_Q4_0);
    dq_scales_hf(region[GR_D], n / 32, o->scale);
}

/* IQ4_NL: x = kvalues_iq4nl[q] * d. */
void dq_tiled_iq4_nl(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o) {
    HVX_SCOPE();
    dq_tiled_nibbles(region[GR_QS], n, o->codes, DQ_LUT_IQ4_NL);
    dq_scales_hf(region[GR_D], n / 32, o->scale);
}

/* MXFP4: x = kvalues_mxfp4[q] * 2^(e - 128). */
void dq_tiled_mxfp4(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o) {
    HVX_SCOPE();
    dq_tiled_nibbles(region[GR_QS], n, o->codes, DQ_LUT_MXFP4);
    dq_scales_e8m0(region[GR_D], n / 32, o->scale);
}

/* Q4_1: x = q * d + m; Q4_K: x = (d * sc) * q + (-dmin * m), the tile's (scale, bias) pair per 32. */
void dq_tiled_q4_1(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o) {
    HVX_SCOPE();
    dq_tiled_nibbles(region[GR_QS], n, o->codes, DQ_LUT_U4);
    dq_scales_hf_pairs(region[GR_D], n / 32, o->scale, o->bias);
}

void dq_tiled_q4_K(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o) {
    HVX_SCOPE();
    dq_tiled_q4_1(region, n, o);
}

/* Q5_K: Q4_K's nibbles with a fifth bit each. Row r's 4 QH bytes per tile: bits 2 (cp / 4) and 2 (cp / 4) + 1 of
 * byte cp % 4 are the fifth bits of the pair cp (codes 2 cp and 2 cp + 1). Each tile's word repeated 4 times
 * lines those bytes up with the 16 pairs. */
void dq_tiled_q5_K(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o) {
    HVX_SCOPE();
    const HVX_Vector shift = dq_shifts(2, 3, 2, 0), low = Q6_Vb_vsplat_R(0x0F);
    for (uint32_t i = 0; i < dq_nvec(n / 2); i++) {
        const HVX_Vector v = hvx_vmem_ld(DQ_VEC(region[GR_QS], i));
        const HVX_Vector f = dq_field(dq_repeat(hvx_vmem_ld(DQ_VEC(region[GR_QH], i / 4)), 4, 2, i % 4), shift, 0, 3);
        const HVX_Vector lo = Q6_V_vor_VV(Q6_V_vand_VV(v, low), Q6_Vh_vasl_VhR(dq_bits(f, 0, 1), 4));
        const HVX_Vector hi = Q6_V_vor_VV(Q6_Vub_vlsr_VubR(v, 4), Q6_Vh_vasl_VhR(dq_bits(f, 1, 1), 4));
        const HVX_VectorPair e = Q6_W_vshuff_VVR(hi, lo, -1);
        hvx_vmem_st(DQ_VEC(o->codes, 2 * i), Q6_V_lo_W(e));
        hvx_vmem_st(DQ_VEC(o->codes, 2 * i + 1), Q6_V_hi_W(e));
    }
    dq_scales_hf_pairs(region[GR_D], n / 32, o->scale, o->bias);
}

/* Q8_0: x = q * d; the codes came in order. */
void dq_tiled_q8_0(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o) {
    HVX_SCOPE();
    dq_copy_codes(region[GR_QS], n, o->codes);
    dq_scales_hf(region[GR_D], n / 32, o->scale);
}

/* Q1_0: 4 words per tile (k = 32 q + 4 g + j: bit g of byte j of word q), -d when clear, +d when set. */
void dq_tiled_q1_0(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o) {
    HVX_SCOPE();
    dq_tiled_words(region[GR_QS], n, o->codes, 1, 1);
    dq_scales_hf(region[GR_D], n / 128, o->scale);
}

/* Q2_0: 4 words per tile (k = 16 v + 4 p + j: bits 2 p of byte j of word v); x = (code - 1) * d. */
void dq_tiled_q2_0(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o) {
    HVX_SCOPE();
    dq_tiled_words(region[GR_QS], n, o->codes, 2, 1);
    dq_scales_hf(region[GR_D], n / 64, o->scale);
}

/* Q2_K: 2 words per tile of 2-bit codes; GGML's scale bytes of the tile's two sub-blocks of 16; (d, -dmin) per
 * super-block. x = d * (sc & 15) * q + (-dmin) * (sc >> 4). */
void dq_tiled_q2_K(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o) {
    HVX_SCOPE();
    dq_tiled_words(region[GR_QS], n, o->codes, 2, 0);
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
}

/* Q3_K: low 2 bits as Q2_K's, a sign word per tile (bit g of byte j set: k = 4 g + j is negative, code - 4), the
 * tile's F16 scales d * (sc - 32) of k 0..15 and 16..31. */
void dq_tiled_q3_K(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o) {
    HVX_SCOPE();
    dq_tiled_words(region[GR_QS], n, o->codes, 2, 0);
    const HVX_Vector shift = dq_shifts(2, 7, 1, 0); /* one sign word per tile, repeated 8 times */
    for (uint32_t i = 0; i < dq_nvec(n / 8); i++) {
        const HVX_Vector v = hvx_vmem_ld(DQ_VEC(region[GR_QH], i));
        for (uint32_t j = 0; j < 8; j++) {
            const HVX_Vector four = Q6_Vh_vasl_VhR(dq_field(dq_repeat(v, 4, 3, j), shift, 0, 1), 2);
            hvx_vmem_st(DQ_VEC(o->codes, 8 * i + j), Q6_Vb_vsub_VbVb(hvx_vmem_ld(DQ_VEC(o->codes, 8 * i + j)), four));
        }
    }
    dq_scales_hf(region[GR_SC], n / 16, o->scale);
}

/* Q6_K: 4 words of low nibbles per tile (k = 8 v + 4 n + j: nibble n of byte j of word v), 2 words of high 2 bits
 * (as Q2_K's), the tile's F16 scales d * sc of k 0..15 and 16..31; x = scale * (q - 32). */
void dq_tiled_q6_K(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o) {
    HVX_SCOPE();
    dq_tiled_words(region[GR_QS], n, o->codes, 4, 0);
    const HVX_Vector shift = dq_shifts(2, 3, 2, 0); /* the 2 high-bit words of a tile, repeated 4 times */
    for (uint32_t i = 0; i < dq_nvec(n / 4); i++) {
        const HVX_Vector v = hvx_vmem_ld(DQ_VEC(region[GR_QH], i));
        for (uint32_t j = 0; j < 4; j++) {
            const HVX_Vector high = Q6_Vh_vasl_VhR(dq_field(dq_repeat(v, 4, 2, j), shift, 0, 3), 4);
            const HVX_Vector q = Q6_V_vor_VV(hvx_vmem_ld(DQ_VEC(o->codes, 4 * i + j)), high);
            hvx_vmem_st(DQ_VEC(o->codes, 4 * i + j), Q6_Vb_vsub_VbVb(q, Q6_Vb_vsplat_R(32)));
        }
    }
    dq_scales_hf(region[GR_SC], n / 16, o->scale);
}

const struct dq_type dq_types[HTP_TYPE_Q2_0 + 1] = {
    [HTP_TYPE_Q4_0] = {dq_flat_q4_0, dq_tiled_q4_0, false},
    [HTP_TYPE_Q4_1] = {dq_flat_q4_1, dq_tiled_q4_1, true},
    [HTP_TYPE_Q8_0] = {dq_flat_q8_0, dq_tiled_q8_0, false},
    [HTP_TYPE_IQ4_NL] = {dq_flat_iq4_nl, dq_tiled_iq4_nl, false},
    [HTP_TYPE_MXFP4] = {dq_flat_mxfp4, dq_tiled_mxfp4, false},
    [HTP_TYPE_Q1_0] = {dq_flat_q1_0, dq_tiled_q1_0, false},
    [HTP_TYPE_Q2_0] = {dq_flat_q2_0, dq_tiled_q2_0, false},
    [HTP_TYPE_Q2_K] = {dq_flat_q2_K, dq_tiled_q2_K, true},
    [HTP_TYPE_Q3_K] = {dq_flat_q3_K, dq_tiled_q3_K, false},
    [HTP_TYPE_Q4_K] = {dq_flat_q4_K, dq_tiled_q4_K, true},
    [HTP_TYPE_Q5_K] = {dq_flat_q5_K, dq_tiled_q5_K, true},
    [HTP_TYPE_Q6_K] = {dq_flat_q6_K, dq_tiled_q6_K, false},
};
