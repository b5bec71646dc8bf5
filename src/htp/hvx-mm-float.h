/*
 * The MUL_MAT dot products of F32 and F16 weights (matmul-ops.c): one tile row of 32 weight rows in VTCM against
 * prepared activation columns (act-quant.h), 32 f32 results per column in one vector, lane r for weight row r.
 *
 * A weight row is ne00 elements at row_stride bytes; its last vector holds junk past ne00 (whatever VTCM held, the
 * DMA poison in strict mode), so that vector is masked to zero before it multiplies; the activation's padding is
 * zero. Row r's products accumulate lane-wise in f32 (the hf x hf product exact, one rounding per addition), and
 * the 32 rows' lane vectors are folded into one vector of row sums by hvx_mm_fold_push: a deal of two vectors'
 * words into even and odd halves and an add halve the lanes each vector's sum is spread over, and five levels of
 * it turn 32 vectors into one whose lane r is row r's sum (31 deals and adds per tile row and column). Rows past
 * valid (the last tile row of a matrix) skip their products and fold zeros.
 *
 * Float path (htp-arch.h): from v73 the IEEE forms (Q6_Wsf_vmpyacc_WsfVhfVhf; sf add and multiply); before, the
 * v68 qf forms (Q6_Wqf32_vmpy_VhfVhf summed in qf32; hvx-f32-vec.h's qf32 arithmetic for f32).
 */
#ifndef VNPU_HVX_MM_FLOAT_H
#define VNPU_HVX_MM_FLOAT_H

#include "hex-common.h"
#include "hvx-f32-vec.h"

#include <stdbool.h>
#include <stdint.h>

#define HVX_MM_ROWS 32 /* weight rows of a tile row: the lanes of one f32 vector */

/* The kernels' helpers are always inlined: in the host emulation an HVX_VectorPair passed to a call that is not
 * costs a 256-byte copy each way. */
#define HVX_MM_INLINE static inline __attribute__((always_inline))

/* int32 lanes as f32, exactly for magnitudes below 2^22 (a 32-column step's int8 dot product is at most
 * 32 * 128 * 128 = 2^19). From v73 the conversion instruction; before, integer operations only (a qf32 subtraction
 * of 1.5 * 2^23 may land an ulp of 2^23 off): the leading one of |v| becomes the implicit bit, its position the
 * exponent. The guard is htp-arch.h's float path, as everywhere in src/htp. */
HVX_MM_INLINE HVX_Vector hvx_mm_i32_to_f32(HVX_Vector v) {
#if HTP_ARCH_IEEE_SF
    return Q6_Vsf_equals_Vw(v);
#else
    const HVX_Vector m = Q6_Vw_vabs_Vw(v);
    const HVX_Vector n = Q6_Vuw_vcl0_Vuw(m); /* 10..31 for 0 < |v| < 2^22 */
    const HVX_Vector mant = Q6_V_vand_VV(Q6_Vuw_vlsr_VuwR(Q6_Vw_vasl_VwVw(m, n), 8), Q6_V_vsplat_R(0x7FFFFF));
    const HVX_Vector expo = Q6_Vw_vasl_VwR(Q6_Vw_vsub_VwVw(Q6_V_vsplat_R(158), n), 23); /* 127 + 31 - n */
    const HVX_Vector bits = Q6_V_vor_VV(Q6_V_vor_VV(mant, expo), Q6_V_vand_VV(v, Q6_V_vsplat_R(INT32_MIN)));
    return Q6_V_vmux_QVV(Q6_Q_vcmp_eq_VwVw(m, Q6_V_vzero()), Q6_V_vzero(), bits);
#endif
}

/* Tail predicate of a row of row_bytes bytes: the bytes of its last vector that hold elements. */
HVX_MM_INLINE HVX_VectorPred hvx_mm_tail_pred(uint32_t row_bytes) {
    return Q6_Q_vsetq2_R((int32_t) (row_bytes - (row_bytes - 1) / HEX_VLEN * HEX_VLEN));
}

/* (a, b) -> one vector: lanes 0..15 the pairwise sums of a's lanes, 16..31 those of b's. */
HVX_MM_INLINE HVX_Vector hvx_mm_fold_f32(HVX_Vector a, HVX_Vector b) {
    const HVX_VectorPair eo = Q6_W_vdeal_VVR(b, a, -4);
    return hvx_vec_add_f32(Q6_V_lo_W(eo), Q6_V_hi_W(eo));
}

/* The pending levels of a fold: level l holds the fold of the last 2^l rows until its partner comes. Named fields,
 * not an array: an array indexed by the row number lives on the stack, and every row would store and load it. */
struct hvx_mm_fold {
    HVX_Vector p0, p1, p2, p3, p4;
};

/* Level bit of a fold (bit = 2^l): row r's vector so far, *v, waits in *p when bit is clear in r (true: the fold is
 * done for this row), else is folded with the one waiting there. */
HVX_MM_INLINE bool hvx_mm_fold_level(HVX_Vector *p, uint32_t r, uint32_t bit, HVX_Vector *v) {
    if (!(r & bit)) {
        *p = *v;
        return true;
    }
    *v = hvx_mm_fold_f32(*p, *v);
    return false;
}

/* Feed row r's lane vector v (rows in order 0..31) into fold f; after row 31 the return value has row r's lane sum in
 * lane r. */
HVX_MM_INLINE HVX_Vector hvx_mm_fold_push(struct hvx_mm_fold *f, uint32_t r, HVX_Vector v) {
    (void) (hvx_mm_fold_level(&f->p0, r, 1, &v) || hvx_mm_fold_level(&f->p1, r, 2, &v) || /* up to where it waits */
            hvx_mm_fold_level(&f->p2, r, 4, &v) || hvx_mm_fold_level(&f->p3, r, 8, &v) ||
            hvx_mm_fold_level(&f->p4, r, 16, &v));
    return v;
}

/* ---- F16 weights x f16 activations ---- */

#if HTP_ARCH_IEEE_SF
typedef HVX_VectorPair hvx_mm_acc_f16; /* sf sums of the even and the odd halves */
HVX_MM_INLINE hvx_mm_acc_f16 hvx_mm_acc_f16_zero(void) {
    return Q6_W_vzero();
}
HVX_MM_INLINE hvx_mm_acc_f16 hvx_mm_acc_f16_mac(hvx_mm_acc_f16 acc, HVX_Vector w, HVX_Vector x) {
    return Q6_Wsf_vmpyacc_WsfVhfVhf(acc, w, x);
}
HVX_MM_INLINE HVX_Vector hvx_mm_acc_f16_lanes(hvx_mm_acc_f16 acc) {
    return Q6_Vsf_vadd_VsfVsf(Q6_V_lo_W(acc), Q6_V_hi_W(acc));
}
#else
typedef HVX_VectorPair hvx_mm_acc_f16; /* qf32 sums of the even and the odd halves */
HVX_MM_INLINE hvx_mm_acc_f16 hvx_mm_acc_f16_zero(void) {
    return Q6_W_vzero();
}
HVX_MM_INLINE hvx_mm_acc_f16 hvx_mm_acc_f16_mac(hvx_mm_acc_f16 acc, HVX_Vector w, HVX_Vector x) {
    const HVX_VectorPair p = Q6_Wqf32_vmpy_VhfVhf(w, x);
    return Q6_W_vcombine_VV(Q6_Vqf32_vadd_Vqf32Vqf32(Q6_V_hi_W(acc), Q6_V_hi_W(p)),
                            Q6_Vqf32_vadd_Vqf32Vqf32(Q6_V_lo_W(acc), Q6_V_lo_W(p)));
}
HVX_MM_INLINE HVX_Vector hvx_mm_acc_f16_lanes(hvx_mm_acc_f16 acc) {
    return Q6_Vsf_equals_Vqf32(Q6_Vqf32_vadd_Vqf32Vqf32(Q6_V_lo_W(acc), Q6_V_hi_W(acc)));
}
#endif

/* 32 F16 weight rows (valid of them real, row_stride apart, ne00 halves each) times the f16 columns x0 and x1 (the
 * 32x2 kernel; x1 NULL: one column, the 32x1 kernel) into out0 and out1 (32 f32, lane r = row r). */
HVX_MM_INLINE void hvx_mm_dot_f16(const uint8_t *restrict w, uint32_t row_stride, uint32_t ne00, uint32_t valid,
                                  const uint8_t *restrict x0, const uint8_t *restrict x1, HVX_Vector *restrict out0,
                                  HVX_Vector *restrict out1) {
    const uint32_t nvec = (ne00 * 2 + HEX_VLEN - 1) / HEX_VLEN;
    const HVX_VectorPred tail = hvx_mm_tail_pred(ne00 * 2);
    struct hvx_mm_fold f0 = {0}, f1 = {0};
    HVX_Vector sum0 = Q6_V_vzero(), sum1 = Q6_V_vzero();
    for (uint32_t r = 0; r < HVX_MM_ROWS; r++) {
        HVX_Vector v0 = Q6_V_vzero(), v1 = Q6_V_vzero();
        if (r < valid) {
            const uint8_t *row = w + (size_t) r * row_stride;
            hvx_mm_acc_f16 a0 = hvx_mm_acc_f16_zero(), a1 = hvx_mm_acc_f16_zero();
            for (uint32_t i = 0; i + 1 < nvec; i++) {
                const HVX_Vector wv = hvx_vmem_ld(row + (size_t) i * HEX_VLEN);
                a0 = hvx_mm_acc_f16_mac(a0, wv, hvx_vmem_ld(x0 + (size_t) i * HEX_VLEN));
                if (x1) {
                    a1 = hvx_mm_acc_f16_mac(a1, wv, hvx_vmem_ld(x1 + (size_t) i * HEX_VLEN));
                }
            }
            const size_t last = (size_t) (nvec - 1) * HEX_VLEN;
            const HVX_Vector wv = Q6_V_vmux_QVV(tail, hvx_vmem_ld(row + last), Q6_V_vzero());
            v0 = hvx_mm_acc_f16_lanes(hvx_mm_acc_f16_mac(a0, wv, hvx_vmem_ld(x0 + last)));
            if (x1) {
                v1 = hvx_mm_acc_f16_lanes(hvx_mm_acc_f16_mac(a1, wv, hvx_vmem_ld(x1 + last)));
            }
        }
        sum0 = hvx_mm_fold_push(&f0, r, v0);
        if (x1) {
            sum1 = hvx_mm_fold_push(&f1, r, v1);
        }
    }
    hvx_vmem_st(out0, sum0);
    if (x1) {
        hvx_vmem_st(out1, sum1);
    }
}

/* ---- F32 weights x f32 activations ---- */

/* As hvx_mm_dot_f16 for F32 weight rows of ne00 floats and f32 columns. */
HVX_MM_INLINE void hvx_mm_dot_f32(const uint8_t *restrict w, uint32_t row_stride, uint32_t ne00, uint32_t valid,
                                  const uint8_t *restrict x0, const uint8_t *restrict x1, HVX_Vector *restrict out0,
                                  HVX_Vector *restrict out1) {
    const uint32_t nvec = (ne00 * 4 + HEX_VLEN - 1) / HEX_VLEN;
    const HVX_VectorPred tail = hvx_mm_tail_pred(ne00 * 4);
    struct hvx_mm_fold f0 = {0}, f1 = {0};
    HVX_Vector sum0 = Q6_V_vzero(), sum1 = Q6_V_vzero();
    for (uint32_t r = 0; r < HVX_MM_ROWS; r++) {
        HVX_Vector a0 = Q6_V_vzero(), a1 = Q6_V_vzero();
        if (r < valid) {
            const uint8_t *row = w + (size_t) r * row_stride;
            for (uint32_t i = 0; i + 1 < nvec; i++) {
                const HVX_Vector wv = hvx_vmem_ld(row + (size_t) i * HEX_VLEN);
                a0 = hvx_vec_add_f32(a0, hvx_vec_mul_f32(wv, hvx_vmem_ld(x0 + (size_t) i * HEX_VLEN)));
                if (x1) {
                    a1 = hvx_vec_add_f32(a1, hvx_vec_mul_f32(wv, hvx_vmem_ld(x1 + (size_t) i * HEX_VLEN)));
                }
            }
            const size_t last = (size_t) (nvec - 1) * HEX_VLEN;
            const HVX_Vector wv = Q6_V_vmux_QVV(tail, hvx_vmem_ld(row + last), Q6_V_vzero());
            a0 = hvx_vec_add_f32(a0, hvx_vec_mul_f32(wv, hvx_vmem_ld(x0 + last)));
            if (x1) {
                a1 = hvx_vec_add_f32(a1, hvx_vec_mul_f32(wv, hvx_vmem_ld(x1 + last)));
            }
        }
        sum0 = hvx_mm_fold_push(&f0, r, a0);
        if (x1) {
            sum1 = hvx_mm_fold_push(&f1, r, a1);
        }
    }
    hvx_vmem_st(out0, sum0);
    if (x1) {
        hvx_vmem_st(out1, sum1);
    }
}

/* The 32x1 and 32x2 kernels: one column, or two sharing each weight vector load. */
HVX_MM_INLINE void hvx_mm_dot_f16_32x1(const uint8_t *w, uint32_t row_stride, uint32_t ne00, uint32_t valid,
                                       const uint8_t *x0, HVX_Vector *out0) {
    hvx_mm_dot_f16(w, row_stride, ne00, valid, x0, NULL, out0, NULL);
}
HVX_MM_INLINE void hvx_mm_dot_f16_32x2(const uint8_t *w, uint32_t row_stride, uint32_t ne00, uint32_t valid,
                                       const uint8_t *x0, const uint8_t *x1, HVX_Vector *out0, HVX_Vector *out1) {
    hvx_mm_dot_f16(w, row_stride, ne00, valid, x0, x1, out0, out1);
}
HVX_MM_INLINE void hvx_mm_dot_f32_32x1(const uint8_t *w, uint32_t row_stride, uint32_t ne00, uint32_t valid,
                                       const uint8_t *x0, HVX_Vector *out0) {
    hvx_mm_dot_f32(w, row_stride, ne00, valid, x0, NULL, out0, NULL);
}
HVX_MM_INLINE void hvx_mm_dot_f32_32x2(const uint8_t *w, uint32_t row_stride, uint32_t ne00, uint32_t valid,
                                       const uint8_t *x0, const uint8_t *x1, HVX_Vector *out0, HVX_Vector *out1) {
    hvx_mm_dot_f32(w, row_stride, ne00, valid, x0, x1, out0, out1);
}

#endif /* VNPU_HVX_MM_FLOAT_H */
