/*
 * HVX dequantization of GET_ROWS tasks (get-rows-ops.h): from the staging regions the DMA filled to
 *
 *   codes  one int8 per element, in row order (Q4_0: q - 8; IQ4_NL and MXFP4: their table's integer; Q3_K:
 *          low bits - 4 * sign; Q6_K: q - 32; ...)
 *   scale  one F32 per sub-block of `sub` elements, in row order
 *   bias   one F32 per sub-block, added after the scale (Q4_1's m, the K-quants' -dmin * min), or none
 *
 * so that every type ends the same way: element = (float) code * scale + bias (dq_finish). Each scale
 * is formed as GGML forms it (Q6_K: d * scale, then times q), and every product of a code and a scale is
 * exact in F32, so on the IEEE float path the values are GGML's to the bit.
 *
 * A dequantizer (dequant-flat.c for GGML's blocks, dequant-tiled.c for the REPACK tiles) works on whole
 * vectors: it may write codes up to gr_scratch_codes(n) bytes and scales and biases up to gr_scratch_scales;
 * what lies past the n elements is junk nobody writes back. All buffers are VTCM, 128-byte aligned.
 */
#ifndef VNPU_DEQUANT_H
#define VNPU_DEQUANT_H

#include "get-rows-ops.h"
#include "htp-arch.h"
#include "hvx-f32-vec.h"

#include <stdbool.h>
#include <stdint.h>

/* Where a dequantizer writes (VTCM, 128-byte aligned): codes up to gr_scratch_codes(n) bytes, scale and bias up to
 * gr_scratch_scales(n, sub) bytes each, and tmp, GR_TMP_BYTES of its own (get-rows-ops.h). */
struct dq_out {
    uint8_t *codes;
    uint8_t *scale;
    uint8_t *bias; /* untouched by a type without a bias */
    uint8_t *tmp;
};

/* Offsets in tmp (n <= GR_CHUNK_MAX: at most 256 sub-blocks, 16 super-blocks). */
#define DQ_TMP_SC  0    /* sub-block scale integers, one byte each */
#define DQ_TMP_MIN 1024 /* sub-block min integers */
#define DQ_TMP_D   2048 /* super-block d as F32 */
#define DQ_TMP_DM  2176 /* super-block dmin (or -dmin) as F32 */
#define DQ_TMP_F   2304 /* sub-block integers as F32 (dq_scale_by_bytes) */

/* The vlut32 tables of the nibble types (dequant-tiled.c): the integer of each 4-bit code at byte 2 * code. */
enum dq_lut_id {
    DQ_LUT_Q4_0 = 0,   /* q - 8 */
    DQ_LUT_U4 = 1,     /* q: Q4_1, Q4_K, Q5_K */
    DQ_LUT_IQ4_NL = 2, /* kvalues_iq4nl */
    DQ_LUT_MXFP4 = 3,  /* kvalues_mxfp4: the E2M1 values doubled (the E8M0 scale halves them) */
};
extern const uint8_t dq_luts[4][HEX_VLEN];

/* Dequantize a task of n elements (a multiple of the type's block, at most GR_CHUNK_MAX): regions
 * (get-rows-ops.h) -> o->codes[n], o->scale[n / sub], o->bias[n / sub]. */
typedef void (*dq_fn)(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o);

struct dq_type {
    dq_fn flat;  /* from GGML's blocks */
    dq_fn tiled; /* from the REPACK tiles */
    bool bias;
};

/* The dequantizers by type id (dequant-tiled.c); both NULL for a type get-rows-ops.h's table does not have. */
extern const struct dq_type dq_types[HTP_TYPE_Q2_0 + 1];

/* The flat (dequant-flat.c) and tiled (dequant-tiled.c) dequantizers. */
void dq_flat_q4_0(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o);
void dq_flat_q4_1(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o);
void dq_flat_q8_0(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o);
void dq_flat_iq4_nl(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o);
void dq_flat_mxfp4(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o);
void dq_flat_q1_0(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o);
void dq_flat_q2_0(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o);
void dq_flat_q2_K(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o);
void dq_flat_q3_K(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o);
void dq_flat_q4_K(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o);
void dq_flat_q5_K(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o);
void dq_flat_q6_K(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o);
void dq_tiled_q4_0(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o);
void dq_tiled_q4_1(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o);
void dq_tiled_q8_0(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o);
void dq_tiled_iq4_nl(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o);
void dq_tiled_mxfp4(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o);
void dq_tiled_q1_0(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o);
void dq_tiled_q2_0(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o);
void dq_tiled_q2_K(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o);
void dq_tiled_q3_K(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o);
void dq_tiled_q4_K(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o);
void dq_tiled_q5_K(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o);
void dq_tiled_q6_K(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o);

/* ---- vector helpers shared by the dequantizers ---- */

#define DQ_VEC(p, i) ((HVX_Vector *) (p) + (i))

/* Vectors covering `bytes` bytes. */
static inline uint32_t dq_nvec(uint32_t bytes) {
    return (bytes + HEX_VLEN - 1) / HEX_VLEN;
}

/* Byte i is i (dequant-tiled.c): position masks and shift counts come from it. */
extern const uint8_t dq_index[HEX_VLEN];

static inline HVX_Vector dq_byte_index(void) {
    return hvx_vmem_ld(dq_index);
}

/* Per halfword, in its low byte: ((k >> div) & mask) * mul + add for the halfword's first byte k: a shift count
 * for Q6_Vh_vlsr_VhVh that takes the bit field a byte's position asks for. */
static inline HVX_Vector dq_shifts(uint32_t div, uint32_t mask, uint32_t mul, uint32_t add) {
    const HVX_Vector t = Q6_V_vand_VV(Q6_Vub_vlsr_VubR(dq_byte_index(), div), Q6_Vb_vsplat_R((uint8_t) mask));
    HVX_Vector s = Q6_Vb_vsplat_R((uint8_t) add);
    for (uint32_t k = 0; k < mul; k++) {
        s = Q6_Vb_vadd_VbVb(s, t);
    }
    return Q6_V_vand_VV(s, Q6_V_vsplat_R(0x00FF00FF));
}

/* (v >> shift) & mask per byte, shift per halfword (dq_shifts), odd bytes shifted `odd` bits further (their
 * field sits that much above their even neighbour's). The bits a halfword's high byte shifts into its low byte
 * land above the field. */
static inline HVX_Vector dq_field(HVX_Vector v, HVX_Vector shift, uint32_t odd, uint8_t mask) {
    HVX_Vector x = Q6_Vh_vlsr_VhVh(v, shift);
    if (odd) {
        x = Q6_V_vmux_QVV(Q6_Q_vand_VR(dq_byte_index(), 0x01010101), Q6_Vub_vlsr_VubR(x, odd), x);
    }
    return Q6_V_vand_VV(x, Q6_Vb_vsplat_R(mask));
}

/* The nibble each byte's position asks for: the high nibble where the position has bit `half` set (the second
 * of the DMA's two copies of a run), else the low one. */
static inline HVX_Vector dq_nibble_by_position(HVX_Vector v, uint32_t half) {
    const HVX_VectorPred high = Q6_Q_vand_VR(dq_byte_index(), half * 0x01010101u);
    return Q6_V_vmux_QVV(high, Q6_Vub_vlsr_VubR(v, 4), Q6_V_vand_VV(v, Q6_Vb_vsplat_R(0x0F)));
}

/* (v >> shift) & mask per byte. */
static inline HVX_Vector dq_bits(HVX_Vector v, uint32_t shift, uint8_t mask) {
    return Q6_V_vand_VV(Q6_Vub_vlsr_VubR(v, shift), Q6_Vb_vsplat_R(mask));
}

/* v's elements of esize bytes each repeated 2^levels times make 2^levels vectors; this is vector j of them: v
 * rotated to the part's first element, then the low halves of `levels` self-shuffles, each doubling every
 * element. Everything stays in registers (a code per field position follows with dq_field). */
static inline HVX_Vector dq_repeat(HVX_Vector v, int32_t esize, uint32_t levels, uint32_t j) {
    HVX_Vector x = Q6_V_vror_VR(v, (int32_t) ((j * HEX_VLEN) >> levels));
    for (uint32_t l = 0; l < levels; l++) {
        x = Q6_V_lo_W(Q6_W_vshuff_VVR(x, x, -esize));
    }
    return x;
}

/* 64 F16 values -> F32 in order: *a the first 32, *b the next. Exact. */
static inline void dq_hf_to_sf(HVX_Vector v, HVX_Vector *a, HVX_Vector *b) {
    const HVX_VectorPair w = Q6_Wsf_vcvt_Vhf(v);
    const HVX_VectorPair o = Q6_W_vshuff_VVR(Q6_V_hi_W(w), Q6_V_lo_W(w), -4);
    *a = Q6_V_lo_W(o);
    *b = Q6_V_hi_W(o);
}

/* The F32 of 128 int8 (signed) or uint8 (unsigned) values to out's vectors first .. first + 3, in order, exact:
 * widened to halfwords, then the v73 word conversion on the IEEE path, or before it the v68 conversions to F16 and
 * on to F32 (both exact for bytes; qf32 arithmetic, whose significand is odd by construction, could not give them
 * exactly). */
static inline void dq_st_b_to_sf(uint8_t *out, uint32_t first, HVX_Vector v, bool is_signed) {
    const HVX_VectorPair h = is_signed ? Q6_Wh_vunpack_Vb(v) : Q6_Wuh_vunpack_Vub(v);
#if HTP_ARCH_IEEE_SF
    const HVX_VectorPair w0 = is_signed ? Q6_Ww_vunpack_Vh(Q6_V_lo_W(h)) : Q6_Wuw_vunpack_Vuh(Q6_V_lo_W(h));
    const HVX_VectorPair w1 = is_signed ? Q6_Ww_vunpack_Vh(Q6_V_hi_W(h)) : Q6_Wuw_vunpack_Vuh(Q6_V_hi_W(h));
    hvx_vmem_st(DQ_VEC(out, first), Q6_Vsf_equals_Vw(Q6_V_lo_W(w0)));
    hvx_vmem_st(DQ_VEC(out, first + 1), Q6_Vsf_equals_Vw(Q6_V_hi_W(w0)));
    hvx_vmem_st(DQ_VEC(out, first + 2), Q6_Vsf_equals_Vw(Q6_V_lo_W(w1)));
    hvx_vmem_st(DQ_VEC(out, first + 3), Q6_Vsf_equals_Vw(Q6_V_hi_W(w1)));
#else
    dq_hf_to_sf(Q6_Vhf_vcvt_Vh(Q6_V_lo_W(h)), DQ_VEC(out, first), DQ_VEC(out, first + 1));
    dq_hf_to_sf(Q6_Vhf_vcvt_Vh(Q6_V_hi_W(h)), DQ_VEC(out, first + 2), DQ_VEC(out, first + 3));
#endif
}

/* codes[0..n) = the bytes at q (codes that came in order). */
static inline void dq_copy_codes(const uint8_t *q, uint32_t n, uint8_t *codes) {
    for (uint32_t i = 0; i < dq_nvec(n); i++) {
        hvx_vmem_st(DQ_VEC(codes, i), hvx_vmem_ld(DQ_VEC(q, i)));
    }
}

/* scale[0..count) = the F16 values at hf, as F32. */
static inline void dq_scales_hf(const uint8_t *hf, uint32_t count, uint8_t *scale) {
    for (uint32_t i = 0; i < dq_nvec(count * 2); i++) {
        dq_hf_to_sf(hvx_vmem_ld(DQ_VEC(hf, i)), DQ_VEC(scale, 2 * i), DQ_VEC(scale, 2 * i + 1));
    }
}

/* count F16 pairs (a, b) at hf -> a[0..count), b[0..count) as F32. */
static inline void dq_scales_hf_pairs(const uint8_t *hf, uint32_t count, uint8_t *a, uint8_t *b) {
    for (uint32_t i = 0; i < dq_nvec(count * 4); i++) {
        const HVX_VectorPair w = Q6_Wsf_vcvt_Vhf(hvx_vmem_ld(DQ_VEC(hf, i)));
        hvx_vmem_st(DQ_VEC(a, i), Q6_V_lo_W(w));
        hvx_vmem_st(DQ_VEC(b, i), Q6_V_hi_W(w));
    }
}

/* out[0..count << levels) = each F32 of in[0..count) repeated 2^levels times. */
static inline void dq_expand(const uint8_t *in, uint32_t count, uint32_t levels, uint8_t *out) {
    const uint32_t parts = 1u << levels;
    for (uint32_t j = 0; j < dq_nvec((count << levels) * 4); j++) {
        hvx_vmem_st(DQ_VEC(out, j), dq_repeat(hvx_vmem_ld(DQ_VEC(in, j >> levels)), 4, levels, j & (parts - 1)));
    }
}

/* scale[j] *= (float) sc[j] for the count (<= 256) sub-block integers sc (bytes, signed or not), both in row order;
 * tmp holds the F32 of sc. */
static inline void dq_scale_by_bytes(uint8_t *scale, const uint8_t *sc, uint32_t count, bool is_signed, uint8_t *tmp) {
    for (uint32_t i = 0; i < dq_nvec(count); i++) {
        dq_st_b_to_sf(tmp, 4 * i, hvx_vmem_ld(DQ_VEC(sc, i)), is_signed);
    }
    for (uint32_t i = 0; i < dq_nvec(count * 4); i++) {
        hvx_vmem_st(DQ_VEC(scale, i), hvx_vec_mul_f32(hvx_vmem_ld(DQ_VEC(scale, i)), hvx_vmem_ld(DQ_VEC(tmp, i))));
    }
}

/* E8M0 exponents (count bytes) -> half their value, 2^(e - 128), as F32 (GGML's e8m0_to_fp32_half): (e - 1) << 23
 * as float bits, or the subnormals 0x00200000 << e for e = 0, 1. */
static inline void dq_scales_e8m0(const uint8_t *e, uint32_t count, uint8_t *scale) {
    for (uint32_t i = 0; i < dq_nvec(count); i++) {
        const HVX_VectorPair h = Q6_Wuh_vunpack_Vub(hvx_vmem_ld(DQ_VEC(e, i)));
        for (uint32_t k = 0; k < 4; k++) {
            const HVX_VectorPair w = Q6_Wuw_vunpack_Vuh(k < 2 ? Q6_V_lo_W(h) : Q6_V_hi_W(h));
            const HVX_Vector x = k % 2 ? Q6_V_hi_W(w) : Q6_V_lo_W(w);
            const HVX_Vector normal = Q6_Vw_vasl_VwR(Q6_Vw_vsub_VwVw(x, Q6_V_vsplat_R(1)), 23);
            const HVX_Vector subnormal = Q6_Vw_vasl_VwVw(Q6_V_vsplat_R(0x00200000), x);
            const HVX_VectorPred small = Q6_Q_vcmp_gt_VwVw(Q6_V_vsplat_R(2), x);
            hvx_vmem_st(DQ_VEC(scale, 4 * i + k), Q6_V_vmux_QVV(small, subnormal, normal));
        }
    }
}

/* Flip the sign of every F32 (exact, zeros included). */
static inline void dq_negate(uint8_t *f, uint32_t count) {
    for (uint32_t i = 0; i < dq_nvec(count * 4); i++) {
        hvx_vmem_st(DQ_VEC(f, i), Q6_V_vxor_VV(hvx_vmem_ld(DQ_VEC(f, i)), Q6_V_vsplat_R((int32_t) 0x80000000)));
    }
}

/* out[0..n) = (float) codes[i] * scale[i / sub] (+ bias[i / sub]; none when bias is NULL), in place over the
 * converted codes: every type's last step. Each vector of 32 elements takes its one or two scales spread over
 * its lanes by dq_repeat (5 levels to one scale per 32 elements, 4 to two of 16 each), so no lane is ever read
 * back into a scalar register. out holds dq_nvec(n) * 512 bytes. */
static inline void dq_finish(const uint8_t *codes, const uint8_t *scale, const uint8_t *bias, uint32_t n, uint32_t sub,
                             uint8_t *out) {
    for (uint32_t i = 0; i < dq_nvec(n); i++) {
        dq_st_b_to_sf(out, 4 * i, hvx_vmem_ld(DQ_VEC(codes, i)), true);
    }
    /* vector j of out takes sub-block scales from index (j << 5) / sub: spread 2^levels times from there */
    const uint32_t levels = sub == 16 ? 4 : 5, rep_shift = sub == 16 ? 0 : (uint32_t) __builtin_ctz(sub >> 5);
    const uint32_t parts = 1u << levels;
    for (uint32_t j = 0; j < dq_nvec(n * 4); j++) {
        const uint32_t s = j >> rep_shift; /* this vector's place among the spread vectors */
        const HVX_Vector x =
            hvx_vec_mul_f32(hvx_vmem_ld(DQ_VEC(out, j)),
                            dq_repeat(hvx_vmem_ld(DQ_VEC(scale, s >> levels)), 4, levels, s & (parts - 1)));
        hvx_vmem_st(DQ_VEC(out, j), bias ? hvx_vec_add_f32(x, dq_repeat(hvx_vmem_ld(DQ_VEC(bias, s >> levels)), 4,
                                                                        levels, s & (parts - 1)))
                                         : x);
    }
}

#endif /* VNPU_DEQUANT_H */
