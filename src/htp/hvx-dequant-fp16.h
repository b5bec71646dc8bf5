/*
 * HVX expansion of MUL_MAT weights into the FP16 weight tiles HMX multiplies (hmx.h), for the HMX path (hmx-mm.c). A
 * weight tile is 32 columns of K by 32 weight rows (N):
 *
 *     16 vectors; vector i, word n = (w[n][2i], w[n][2i + 1]) in FP16
 *
 * with w[n][k] the value of weight row n at the tile's column k: hmx.h's layout with the tile's rows being K and its
 * 32 lanes N (element (k, n) at half (k / 2) * 64 + 2n + k % 2).
 *
 * Tiled weights (the seed's twelve layouts, htp-tiles.h). A 32-column step is unpacked by the int8 path's own step
 * functions (hvx-mm-quant.h, -nibble.h, -lowbit.h, -kquants.h): the 8 vrmpy operands (operand g, word r = row r's
 * signed codes at columns 4g .. 4g + 3), the f32 row scales and the bias of the type's family (D: one scale; DM: a
 * scale and a bias m; D2: a scale per 16 columns; D2M: and m times an integer min per 16). Byte j of operand g is
 * column 4g + j of every row: widened to f32, times its scale, plus its bias, and two such vectors narrowed by one
 * vcvt make tile vector 2g (bytes 0, 1) or 2g + 1 (bytes 2, 3) -- the "plain shuffle" the seed's nibble and byte
 * orders were chosen for. A Q1_0 tile (128 columns) makes 4 weight tiles and a Q2_0 tile (64 columns) 2: the seed's
 * 1-to-4 and 1-to-2 expansions. Q2_K takes d and -dmin from the 8 tiles of its super-block, as the int8 path does.
 *
 * F16 and F32 weights. The DMA lays a tile row out as 32 rows of the tile's 32 columns one after the other (64 or
 * 128 bytes each). x[m], the 64 halves of rows 2m and 2m + 1, has in word j row 2m + j / 16's column pair j % 16
 * (F32: two rows of floats, word-dealt into even and odd columns and narrowed by one vcvt); a 32 x 16 word
 * transpose, four levels of word deals, gives the tile.
 *
 * Rounding: a code (an integer of at most 8 bits) times a scale from FP16 (or GGML's f32 product of FP16 d and a
 * small integer) is exact in f32, so every weight is GGML's f32 value (that product, plus the min in one f32
 * rounding, as GGML adds it) rounded once to FP16 (nearest even): on the IEEE path bit for bit, on the qf32 path
 * (v68, v69) the same but for the min's addition. Upstream multiplies in FP16, one rounding more. Values beyond
 * FP16's range become infinities, and every f32 weight narrowed is counted into the worker's range of src0
 * (hvx-fp16-range.h) as it is narrowed.
 */
#ifndef VNPU_HVX_DEQUANT_FP16_H
#define VNPU_HVX_DEQUANT_FP16_H

#include "hex-common.h"
#include "htp-msg.h"
#include "htp-tiles.h"
#include "hvx-fp16-range.h"
#include "hvx-mm-kquants.h"
#include "hvx-mm-lowbit.h"
#include "hvx-mm-quant.h"

#include <stdbool.h>
#include <stdint.h>

#define HVX_FP16_TILE_BYTES 2048 /* hmx.h's HMX_TILE_BYTES: 16 vectors */
#define HVX_FP16_TILE_VECS  16

/* A step of the int8 path (its operands, scales and family: hvx-mm-quant.h) as a weight tile at dst: operand g gives
 * vectors 2g (its bytes 0, 1: columns 4g, 4g + 1) and 2g + 1 (bytes 2, 3), each code times the scale of its columns
 * (plus the bias) in f32, two columns narrowed by one vcvt (the first into the even halves, the second into the odd
 * ones). The bias is m (DM) or m times the integer min of the columns' half (D2M). Every f32 weight goes into range. */
HVX_MM_INLINE void hvx_fp16_step_store(enum hvx_mm_family f, const struct hvx_mm_wstep *ws, uint8_t *dst,
                                       struct hvx_fp16_range *range) {
    const struct hvx_fp16_range_k k = hvx_fp16_range_k();
    struct hvx_fp16_range rg = *range;
    const bool two = f == HVX_MM_D2 || f == HVX_MM_D2M, bias = f == HVX_MM_DM || f == HVX_MM_D2M;
    HVX_Vector b[2] = {ws->m, ws->m};
    if (f == HVX_MM_D2M) {
        b[0] = hvx_vec_mul_f32(ws->m, hvx_mm_i32_to_f32(hvx_mm_byte_u(ws->m0, 0)));
        b[1] = hvx_vec_mul_f32(ws->m, hvx_mm_i32_to_f32(hvx_mm_byte_u(ws->m1, 0)));
    }
    for (uint32_t g = 0; g < 8; g++) {
        const HVX_Vector s = two && g >= 4 ? ws->s1 : ws->s0;
        HVX_Vector v[4];
        for (uint32_t j = 0; j < 4; j++) {
            v[j] = hvx_vec_mul_f32(hvx_mm_i32_to_f32(hvx_mm_byte_s(ws->q[g], j)), s);
            if (bias) {
                v[j] = hvx_vec_add_f32(v[j], b[g / 4]);
            }
            hvx_fp16_range_add(&rg, &k, v[j]);
        }
        hvx_vmem_st(dst + (2 * g) * HEX_VLEN, Q6_Vhf_vcvt_VsfVsf(v[0], v[1]));
        hvx_vmem_st(dst + (2 * g + 1) * HEX_VLEN, Q6_Vhf_vcvt_VsfVsf(v[2], v[3]));
    }
    *range = rg;
}

/* One tile of a tiled weight (at t, 128-byte aligned) -> its K_cols / 32 weight tiles at dst, HVX_FP16_TILE_BYTES
 * apart, its f32 weights counted into range. sb is the first tile of t's super-block and stride the tiles' VTCM stride
 * (Q2_K's d and -dmin are spread over the 8 tiles of a super-block); the other types read t only. */
typedef void (*hvx_fp16_wtile_fn)(const uint8_t *t, const uint8_t *sb, uint32_t stride, uint8_t *dst,
                                  struct hvx_fp16_range *range);

static inline void hvx_fp16_wtile_q4_0(const uint8_t *t, const uint8_t *sb, uint32_t stride, uint8_t *dst,
                                       struct hvx_fp16_range *range) {
    struct hvx_mm_wstep ws;
    (void) sb, (void) stride;
    ws.s0 = hvx_mm_unpack_q4_0_tiled(t, ws.q);
    hvx_fp16_step_store(HVX_MM_D, &ws, dst, range);
}

static inline void hvx_fp16_wtile_q8_0(const uint8_t *t, const uint8_t *sb, uint32_t stride, uint8_t *dst,
                                       struct hvx_fp16_range *range) {
    struct hvx_mm_wstep ws;
    (void) sb, (void) stride;
    ws.s0 = hvx_mm_unpack_q8_0_tiled(t, ws.q);
    hvx_fp16_step_store(HVX_MM_D, &ws, dst, range);
}

/* The types whose tile is one step with a step function of the int8 path. */
#define HVX_FP16_WTILE(NAME, WSTEP, FAMILY)                                                                      \
    static inline void hvx_fp16_wtile_##NAME(const uint8_t *t, const uint8_t *sb, uint32_t stride, uint8_t *dst, \
                                             struct hvx_fp16_range *range) {                                     \
        HVX_SCOPE();                                                                                             \
        struct hvx_mm_wstep ws;                                                                                  \
        (void) sb, (void) stride;                                                                                \
        WSTEP;                                                                                                   \
        hvx_fp16_step_store(FAMILY, &ws, dst, range);                                                            \
    }

HVX_FP16_WTILE(q4_1, hvx_mm_wstep_q4_1(t, true, &ws), HVX_MM_DM)
HVX_FP16_WTILE(iq4_nl, hvx_mm_wstep_iq4_nl(t, true, &ws), HVX_MM_D)
HVX_FP16_WTILE(mxfp4, hvx_mm_wstep_mxfp4(t, true, &ws), HVX_MM_D)
HVX_FP16_WTILE(q3_K, hvx_mm_wstep_q3_K_tiled(t, &ws), HVX_MM_D2)
HVX_FP16_WTILE(q4_K, hvx_mm_wstep_q4_K_tiled(t, &ws), HVX_MM_DM)
HVX_FP16_WTILE(q5_K, hvx_mm_wstep_q5_K_tiled(t, &ws), HVX_MM_DM)
HVX_FP16_WTILE(q6_K, hvx_mm_wstep_q6_K_tiled(t, &ws), HVX_MM_D2)

static inline void hvx_fp16_wtile_q2_K(const uint8_t *t, const uint8_t *sb, uint32_t stride, uint8_t *dst,
                                       struct hvx_fp16_range *range) {
    struct hvx_mm_wstep ws;
    HVX_Vector d;
    hvx_mm_q2_K_d_tiled(sb, stride, &d, &ws.m);
    hvx_mm_wstep_q2_K_tiled(t, d, &ws);
    hvx_fp16_step_store(HVX_MM_D2M, &ws, dst, range);
}

/* Q1_0: 128 columns, 4 weight tiles (the seed's 1-to-4 expansion). */
static inline void hvx_fp16_wtile_q1_0(const uint8_t *t, const uint8_t *sb, uint32_t stride, uint8_t *dst,
                                       struct hvx_fp16_range *range) {
    struct hvx_mm_wstep ws;
    (void) sb, (void) stride;
    ws.s0 = hvx_mm_scales_f16(t + HTP_TENSOR_TILE_SCALES_OFFSET_Q1_0);
    for (uint32_t j = 0; j < HTP_TENSOR_TILE_K_Q1_0 / HTP_TENSOR_TILE_N_COLS; j++) {
        hvx_mm_q1_0_tiled_operands(t, j, ws.q);
        hvx_fp16_step_store(HVX_MM_D, &ws, dst + j * HVX_FP16_TILE_BYTES, range);
    }
}

/* Q2_0: 64 columns, 2 weight tiles (the seed's 1-to-2 expansion). */
static inline void hvx_fp16_wtile_q2_0(const uint8_t *t, const uint8_t *sb, uint32_t stride, uint8_t *dst,
                                       struct hvx_fp16_range *range) {
    struct hvx_mm_wstep ws;
    (void) sb, (void) stride;
    ws.s0 = hvx_mm_scales_f16(t + HTP_TENSOR_TILE_SCALES_OFFSET_Q2_0);
    for (uint32_t h = 0; h < HTP_TENSOR_TILE_K_Q2_0 / HTP_TENSOR_TILE_N_COLS; h++) {
        hvx_mm_q2_0_tiled_operands(t, h, ws.q);
        hvx_fp16_step_store(HVX_MM_D, &ws, dst + h * HVX_FP16_TILE_BYTES, range);
    }
}

/* The tile expansion of a tiled type; false for the others. One row per type of htp_tile_geom_get. */
static inline bool hvx_fp16_wtile_get(uint32_t type, hvx_fp16_wtile_fn *fn) {
    switch ((enum htp_type) type) {
        case HTP_TYPE_Q4_0: *fn = hvx_fp16_wtile_q4_0; return true;
        case HTP_TYPE_Q4_1: *fn = hvx_fp16_wtile_q4_1; return true;
        case HTP_TYPE_Q8_0: *fn = hvx_fp16_wtile_q8_0; return true;
        case HTP_TYPE_IQ4_NL: *fn = hvx_fp16_wtile_iq4_nl; return true;
        case HTP_TYPE_MXFP4: *fn = hvx_fp16_wtile_mxfp4; return true;
        case HTP_TYPE_Q1_0: *fn = hvx_fp16_wtile_q1_0; return true;
        case HTP_TYPE_Q2_0: *fn = hvx_fp16_wtile_q2_0; return true;
        case HTP_TYPE_Q2_K: *fn = hvx_fp16_wtile_q2_K; return true;
        case HTP_TYPE_Q3_K: *fn = hvx_fp16_wtile_q3_K; return true;
        case HTP_TYPE_Q4_K: *fn = hvx_fp16_wtile_q4_K; return true;
        case HTP_TYPE_Q5_K: *fn = hvx_fp16_wtile_q5_K; return true;
        case HTP_TYPE_Q6_K: *fn = hvx_fp16_wtile_q6_K; return true;
        case HTP_TYPE_F32:
        case HTP_TYPE_F16:
        case HTP_TYPE_I32:
        case HTP_TYPE_I64:
        case HTP_TYPE_BF16: break;
    }
    return false;
}

/* Level b of the transpose below: the words of vectors v and v + 2^b dealt, for each v with bit b clear. */
HVX_MM_INLINE void hvx_fp16_wtile_deal(HVX_Vector x[HVX_FP16_TILE_VECS], uint32_t b) {
    const uint32_t l = 1u << b;
    for (uint32_t j = 0; j < HVX_FP16_TILE_VECS / 2; j++) {
        const uint32_t v = (j >> b << (b + 1)) | (j & (l - 1)); /* the j-th index with bit b clear */
        const HVX_VectorPair p = Q6_W_vdeal_VVR(x[v + l], x[v], -4);
        x[v] = Q6_V_lo_W(p);
        x[v + l] = Q6_V_hi_W(p);
    }
}

/* x[m] (word j = row 2m + j / 16, column pair j % 16) -> the weight tile at dst: a 32 x 16 word transpose. Level b
 * deals the words of vectors v and v + 2^b, which differ in bit b of m: the word index's low bit becomes that vector
 * bit and the m bit becomes the word index's top bit, so after four levels vector i holds column pair i and word n
 * row n. The four levels are written out so that every index is a constant once inlined: x stays in the 32 vector
 * registers (with a loop over the levels it lives on the stack, and every deal loads and stores it). */
HVX_MM_INLINE void hvx_fp16_wtile_transpose(HVX_Vector x[HVX_FP16_TILE_VECS], uint8_t *dst) {
    hvx_fp16_wtile_deal(x, 0);
    hvx_fp16_wtile_deal(x, 1);
    hvx_fp16_wtile_deal(x, 2);
    hvx_fp16_wtile_deal(x, 3);
    for (uint32_t i = 0; i < HVX_FP16_TILE_VECS; i++) {
        hvx_vmem_st(dst + i * HEX_VLEN, x[i]);
    }
}

/* F16 weights: t holds the tile's 32 rows of 32 halves, 64 bytes each. */
HVX_MM_INLINE void hvx_fp16_wtile_f16(const uint8_t *t, uint8_t *dst) {
    HVX_Vector x[HVX_FP16_TILE_VECS];
    for (uint32_t m = 0; m < HVX_FP16_TILE_VECS; m++) {
        x[m] = hvx_vmem_ld(t + m * HEX_VLEN);
    }
    hvx_fp16_wtile_transpose(x, dst);
}

/* F32 weights: t holds the tile's 32 rows of 32 floats, 128 bytes each; rounded to FP16 (nearest even). */
HVX_MM_INLINE void hvx_fp16_wtile_f32(const uint8_t *t, uint8_t *dst) {
    HVX_Vector x[HVX_FP16_TILE_VECS];
#pragma GCC unroll 16 /* all of it: with constant indices x stays in registers (not unrolled, on the stack) */
    for (uint32_t m = 0; m < HVX_FP16_TILE_VECS; m++) {
        const HVX_VectorPair eo =
            Q6_W_vdeal_VVR(hvx_vmem_ld(t + (2 * m + 1) * HEX_VLEN), hvx_vmem_ld(t + 2 * m * HEX_VLEN), -4);
        x[m] = Q6_Vhf_vcvt_VsfVsf(Q6_V_lo_W(eo), Q6_V_hi_W(eo)); /* word j < 16: row 2m's columns 2j, 2j + 1 */
    }
    hvx_fp16_wtile_transpose(x, dst);
}

#endif /* VNPU_HVX_DEQUANT_FP16_H */
