/*
 * HVX dequantization of GET_ROWS tasks (get-rows-ops.h): from the staging regions the DMA filled to
 *
 *   codes  one int8 per element, in row order (Q4_0: q - 8; IQ4_NL and MXFP4: their table's integer; Q3_K:
 *          low bits - 4 * sign; Q6_K: q - 32; ...)
 *   scale  one F32 per sub-block of `sub` elements, in row order
 *   bias   one F32 per sub-block, added after the scale (Q4_1's m, the K-quants' -dmin * min), or none
 *
 * so that every type ends the same way: element = (float) code * scale + bias (get-rows-ops.c). Each scale
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

/* The vlut32 tables of the nibble types (dequant-tiled.c): the integer of each 4-bit code at byte 2 * code. */
enum dq_lut_id {
    DQ_LUT_Q4_0 = 0,   /* q - 8 */
    DQ_LUT_U4 = 1,     /* q: Q4_1, Q4_K, Q5_K */
    DQ_LUT_IQ4_NL = 2, /* kvalues_iq4nl */
    DQ_LUT_MXFP4 = 3,  /* kvalues_mxfp4: the E2M1 values doubled (the E8M0 scale halves them) */
};
extern const uint8_t dq_luts[4][HEX_VLEN];

/* Dequantize a task of n elements (a multiple of the type's block, at most GR_CHUNK_MAX): regions
 * (get-rows-ops.h) -> codes (returned: o->codes, or a region that already holds them), o->scale[n / sub],
 * o->bias[n / sub]. */
typedef const uint8_t *(*dq_fn)(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o);

struct dq_type {
    dq_fn flat;  /* from GGML's blocks */
    dq_fn tiled; /* from the REPACK tiles */
    bool bias;
};

/* The dequantizers by type id (dequant-tiled.c); both NULL for a type get-rows-ops.h's table does not have. */
extern const struct dq_type dq_types[HTP_TYPE_Q2_0 + 1];

/* The flat (dequant-flat.c) and tiled (dequant-tiled.c) dequantizers. */
const uint8_t *dq_flat_q4_0(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o);
const uint8_t *dq_flat_q4_1(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o);
const uint8_t *dq_flat_q8_0(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o);
const uint8_t *dq_flat_iq4_nl(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o);
const uint8_t *dq_flat_mxfp4(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o);
const uint8_t *dq_flat_q1_0(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o);
const uint8_t *dq_flat_q2_0(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o);
const uint8_t *dq_flat_q2_K(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o);
const uint8_t *dq_flat_q3_K(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o);
const uint8_t *dq_flat_q4_K(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o);
const uint8_t *dq_flat_q5_K(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o);
const uint8_t *dq_flat_q6_K(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o);
const uint8_t *dq_tiled_q4_0(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o);
const uint8_t *dq_tiled_q4_1(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o);
const uint8_t *dq_tiled_q8_0(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o);
const uint8_t *dq_tiled_iq4_nl(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o);
const uint8_t *dq_tiled_mxfp4(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o);
const uint8_t *dq_tiled_q1_0(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o);
const uint8_t *dq_tiled_q2_0(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o);
const uint8_t *dq_tiled_q2_K(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o);
const uint8_t *dq_tiled_q3_K(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o);
const uint8_t *dq_tiled_q4_K(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o);
const uint8_t *dq_tiled_q5_K(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o);
const uint8_t *dq_tiled_q6_K(const uint8_t *const region[GR_N_REGIONS], uint32_t n, const struct dq_out *o);

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

/* Per halfword, in its low byte: mul times the 32-byte segment (0..3) it lies in, plus add; a shift count for
 * Q6_Vh_vlsr_VhVh that takes a different bit field from each segment. */
static inline HVX_Vector dq_segment_shift(uint32_t mul, uint32_t add) {
    const HVX_Vector seg = Q6_V_vand_VV(Q6_Vub_vlsr_VubR(dq_byte_index(), 5), Q6_Vb_vsplat_R(3));
    HVX_Vector s = Q6_Vb_vsplat_R((uint8_t) add);
    for (uint32_t k = 0; k < mul; k++) {
        s = Q6_Vb_vadd_VbVb(s, seg);
    }
    return Q6_V_vand_VV(s, Q6_V_vsplat_R(0x00FF00FF));
}

/* (v >> shift) & mask per byte, shift per halfword (dq_segment_shift): the bits a halfword's high byte shifts into
 * its low byte land above any field of up to 8 - shift bits. */
static inline HVX_Vector dq_field(HVX_Vector v, HVX_Vector shift, uint8_t mask) {
    return Q6_V_vand_VV(Q6_Vh_vlsr_VhVh(v, shift), Q6_Vb_vsplat_R(mask));
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

/* Interleave n sequences of g vectors each (n a power of two, in v[0..n g), sequence s at v[s g]), element size
 * esize bytes: the result (n g vectors, in place) takes element 0 of each sequence in turn, then element 1, ...
 * n <= 8. */
static inline void dq_interleave(HVX_Vector *v, uint32_t n, uint32_t g, uint32_t esize) {
    HVX_Vector t[16];
    for (; n > 1; n /= 2, g *= 2, esize *= 2) {
        for (uint32_t k = 0; k < n / 2; k++) {
            const HVX_Vector *x = v + 2 * k * g, *y = x + g;
            for (uint32_t i = 0; i < g; i++) {
                if (esize < HEX_VLEN) {
                    const HVX_VectorPair p = Q6_W_vshuff_VVR(y[i], x[i], -(int32_t) esize);
                    t[2 * i] = Q6_V_lo_W(p);
                    t[2 * i + 1] = Q6_V_hi_W(p);
                } else { /* elements of whole vectors: the sequences' vectors alternate in runs of esize / 128 */
                    const uint32_t q = esize / HEX_VLEN;
                    t[i / q * 2 * q + i % q] = x[i];
                    t[i / q * 2 * q + q + i % q] = y[i];
                }
            }
            for (uint32_t i = 0; i < 2 * g; i++) {
                v[2 * k * g + i] = t[i];
            }
        }
    }
}

/* 64 F16 values -> F32 in order: *a the first 32, *b the next. Exact. */
static inline void dq_hf_to_sf(HVX_Vector v, HVX_Vector *a, HVX_Vector *b) {
    const HVX_VectorPair w = Q6_Wsf_vcvt_Vhf(v);
    const HVX_VectorPair o = Q6_W_vshuff_VVR(Q6_V_hi_W(w), Q6_V_lo_W(w), -4);
    *a = Q6_V_lo_W(o);
    *b = Q6_V_hi_W(o);
}

/* 128 int8 (signed) or uint8 (unsigned) -> 4 vectors of F32, in order, exact: widened to halfwords, then the
 * v73 word conversion on the IEEE path, or before it the v68 conversions to F16 and on to F32 (both exact for
 * bytes; qf32 arithmetic, whose significand is odd by construction, could not give them exactly). */
static inline void dq_b_to_sf(HVX_Vector v, bool is_signed, HVX_Vector f[4]) {
    const HVX_VectorPair h = is_signed ? Q6_Wh_vunpack_Vb(v) : Q6_Wuh_vunpack_Vub(v);
    for (int k = 0; k < 2; k++) {
        const HVX_Vector hk = k ? Q6_V_hi_W(h) : Q6_V_lo_W(h);
#if HTP_ARCH_IEEE_SF
        const HVX_VectorPair w = Q6_Ww_vunpack_Vh(hk);
        f[2 * k] = Q6_Vsf_equals_Vw(Q6_V_lo_W(w));
        f[2 * k + 1] = Q6_Vsf_equals_Vw(Q6_V_hi_W(w));
#else
        dq_hf_to_sf(Q6_Vhf_vcvt_Vh(hk), &f[2 * k], &f[2 * k + 1]);
#endif
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

/* out[0..count * factor) = each of in[0..count) repeated factor times (factor 2^levels, F32), through self-
 * shuffles that double every element: vectors of out come in order. */
static inline void dq_expand_rec(HVX_Vector v, uint32_t levels, uint8_t *out, uint32_t *j, uint32_t n_out) {
    if (*j >= n_out) {
        return;
    }
    if (levels == 0) {
        hvx_vmem_st(DQ_VEC(out, (*j)++), v);
        return;
    }
    const HVX_VectorPair p = Q6_W_vshuff_VVR(v, v, -4);
    dq_expand_rec(Q6_V_lo_W(p), levels - 1, out, j, n_out);
    dq_expand_rec(Q6_V_hi_W(p), levels - 1, out, j, n_out);
}

static inline void dq_expand(const uint8_t *in, uint32_t count, uint32_t levels, uint8_t *out) {
    const uint32_t n_out = dq_nvec((count << levels) * 4);
    uint32_t j = 0;
    for (uint32_t i = 0; j < n_out; i++) {
        dq_expand_rec(hvx_vmem_ld(DQ_VEC(in, i)), levels, out, &j, n_out);
    }
}

/* scale[j] *= (float) sc[j] for the count sub-block integers sc (bytes, signed or not), both in row order. */
static inline void dq_scale_by_bytes(uint8_t *scale, const uint8_t *sc, uint32_t count, bool is_signed) {
    for (uint32_t i = 0; i < dq_nvec(count); i++) {
        HVX_Vector f[4];
        dq_b_to_sf(hvx_vmem_ld(DQ_VEC(sc, i)), is_signed, f);
        for (uint32_t k = 0; k < 4; k++) {
            hvx_vmem_st(DQ_VEC(scale, 4 * i + k), hvx_vec_mul_f32(hvx_vmem_ld(DQ_VEC(scale, 4 * i + k)), f[k]));
        }
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

/* The 8 bit planes of v as -1 (bit clear) or +1 (bit set): p[b] byte i from bit b of byte i. */
static inline void dq_sign_planes(HVX_Vector v, HVX_Vector p[8]) {
    const HVX_Vector one = Q6_Vb_vsplat_R(1);
    for (uint32_t b = 0; b < 8; b++) {
        const HVX_Vector bit = dq_bits(v, b, 1);
        p[b] = Q6_Vb_vsub_VbVb(Q6_Vb_vadd_VbVb(bit, bit), one);
    }
}

/* The 4 2-bit planes of v less `minus`: p[k] byte i = ((v[i] >> 2 k) & 3) - minus. */
static inline void dq_pair_planes(HVX_Vector v, uint8_t minus, HVX_Vector p[4]) {
    for (uint32_t k = 0; k < 4; k++) {
        p[k] = Q6_Vb_vsub_VbVb(dq_bits(v, 2 * k, 3), Q6_Vb_vsplat_R(minus));
    }
}

/* Vectors p[0..n) to out's vectors first, first + 1, ... */
static inline void dq_store(uint8_t *out, uint32_t first, const HVX_Vector *p, uint32_t n) {
    for (uint32_t k = 0; k < n; k++) {
        hvx_vmem_st(DQ_VEC(out, first + k), p[k]);
    }
}

/* Flip the sign of every F32 (exact, zeros included). */
static inline void dq_negate(uint8_t *f, uint32_t count) {
    for (uint32_t i = 0; i < dq_nvec(count * 4); i++) {
        hvx_vmem_st(DQ_VEC(f, i), Q6_V_vxor_VV(hvx_vmem_ld(DQ_VEC(f, i)), Q6_V_vsplat_R((int32_t) 0x80000000)));
    }
}

/* Multiply the F32 vectors out[*j ..] by the scales of s spread `levels` times (and add those of b), each
 * spread vector used for rep vectors. */
static inline void dq_apply(HVX_Vector s, HVX_Vector b, bool bias, uint32_t levels, uint32_t rep, uint8_t *out,
                            uint32_t *j, uint32_t n_out) {
    if (*j >= n_out) {
        return;
    }
    if (levels == 0) {
        for (uint32_t k = 0; k < rep && *j < n_out; k++, (*j)++) {
            const HVX_Vector x = hvx_vec_mul_f32(hvx_vmem_ld(DQ_VEC(out, *j)), s);
            hvx_vmem_st(DQ_VEC(out, *j), bias ? hvx_vec_add_f32(x, b) : x);
        }
        return;
    }
    const HVX_VectorPair ps = Q6_W_vshuff_VVR(s, s, -4), pb = bias ? Q6_W_vshuff_VVR(b, b, -4) : ps;
    dq_apply(Q6_V_lo_W(ps), Q6_V_lo_W(pb), bias, levels - 1, rep, out, j, n_out);
    dq_apply(Q6_V_hi_W(ps), Q6_V_hi_W(pb), bias, levels - 1, rep, out, j, n_out);
}

/* out[0..n) = (float) codes[i] * scale[i / sub] (+ bias[i / sub]; none when bias is NULL), in place over the
 * converted codes: every type's last step. Each vector of 32 sub-block scales is spread over its elements by
 * self-shuffles that double every lane (5 levels to one scale per vector of 32 elements, 4 to two scales of 16
 * each), so no lane is ever read back into a scalar register. out holds dq_nvec(n) * 512 bytes. */
static inline void dq_finish(const uint8_t *codes, const uint8_t *scale, const uint8_t *bias, uint32_t n, uint32_t sub,
                             uint8_t *out) {
    for (uint32_t i = 0; i < dq_nvec(n); i++) {
        HVX_Vector f[4];
        dq_b_to_sf(hvx_vmem_ld(DQ_VEC(codes, i)), true, f);
        dq_store(out, 4 * i, f, 4);
    }
    const uint32_t n_out = dq_nvec(n * 4), levels = sub == 16 ? 4 : 5, rep = sub >= 32 ? sub >> 5 : 1;
    uint32_t j = 0;
    for (uint32_t i = 0; j < n_out; i++) {
        const HVX_Vector b = bias ? hvx_vmem_ld(DQ_VEC(bias, i)) : Q6_V_vzero();
        dq_apply(hvx_vmem_ld(DQ_VEC(scale, i)), b, bias != NULL, levels, rep, out, &j, n_out);
    }
}

#endif /* VNPU_DEQUANT_H */
