/*
 * Host emulation of the HVX integer multiplies: vrmpy (4-way byte dot products into words), vdmpy
 * (2-way), widening vmpy, vmpyi (low half), vmpyie/vmpyio/vmpyieo (pieces of a 32x32 multiply),
 * vmpye/vmpyo (high half), and the Q15 fractional forms.
 *
 * Semantics: QEMU target/hexagon/imported/mmvec/ext.idef (vrmpyub*, vrmpybus*, vrmpybv*, vdmpy*,
 * vmpyb*, vmpyub*, vmpyh*, vmpyih*, vmpyiw*, vmpyie*, vmpyio*, vmpyieoh, vmpyewuh, vmpyowh*, vmpyhvsrs,
 * vmpyhss, vmpyhsrs, vmpyuhvs). Products are exact and sums wrap at the destination width unless the
 * name says :sat. For a scalar operand Rt, byte j of Rt pairs with source byte j of every word
 * (vrmpy) or with source element i at Rt byte (i % 4) / half (i % 2) (vmpy, vdmpy, vmpyi).
 */
#ifndef VNPU_HVX_MPY_H
#define VNPU_HVX_MPY_H

#include "hvx-types.h"

/* --- vrmpy: Vd.w[i] = sum over j < 4 of Vu byte 4i+j times the byte 4i+j of Vv (or byte j of Rt) --- */

/* Scalar reference body of every vrmpy form; TU/TV are the byte lanes (ub or b) of each operand. */
#define HVX_VRMPY_LANES(R, ACC, VU, TU, VV, TV)                               \
    HVX_FOR(i, 32) {                                                          \
        int32_t s = 0; /* at most 4 * 255 * 255 */                            \
        HVX_FOR(j, 4) s += (int32_t) (VU).TU[4 * i + j] * (VV).TV[4 * i + j]; \
        (R).uw[i] = (ACC).uw[i] + (uint32_t) s;                               \
    }

#if HVX_SIMD
/* Exact 4-way dot products of one chunk, widening bytes to halfwords (no saturation possible):
 * sign selects sign (1) or zero (0) extension of each operand. */
HVX_INLINE hvx_simd_t hvx_s_dot4_wide(hvx_simd_t a, int a_signed, hvx_simd_t b, int b_signed) {
    const hvx_simd_t a_even = a_signed ? hvx_s_sra16(hvx_s_sll16(a, 8), 8) : hvx_s_srl16(hvx_s_sll16(a, 8), 8);
    const hvx_simd_t a_odd = a_signed ? hvx_s_sra16(a, 8) : hvx_s_srl16(a, 8);
    const hvx_simd_t b_even = b_signed ? hvx_s_sra16(hvx_s_sll16(b, 8), 8) : hvx_s_srl16(hvx_s_sll16(b, 8), 8);
    const hvx_simd_t b_odd = b_signed ? hvx_s_sra16(b, 8) : hvx_s_srl16(b, 8);
    return hvx_s_add32(hvx_s_madd16(a_even, b_even), hvx_s_madd16(a_odd, b_odd));
}

/* acc + dot4(a.b, b.b). PSIGNB/PMADDUBSW are exact unless some byte of b is -128 (its negation
 * wraps, and (-128)(-128) pairs overflow int16); that rare case takes the widening path. */
HVX_INLINE HVX_Vector hvx_vrmpy_bb(HVX_Vector acc, HVX_Vector a, HVX_Vector b) {
    const hvx_simd_t m128 = hvx_s_set1_8(-128);
    const hvx_simd_t lo = hvx_s_min_i8(hvx_s_min_i8(b.s[0], b.s[1]), hvx_s_min_i8(b.s[2], b.s[3]));
    HVX_Vector r;
    if (__builtin_expect(hvx_s_testz(hvx_s_cmpeq8(lo, m128)), 1)) {
        const hvx_simd_t ones = hvx_s_set1_16(1);
        HVX_SIMD_EACH(
            r.s[k] = hvx_s_add32(acc.s[k],
                                 hvx_s_madd16(hvx_s_maddubs(hvx_s_abs8(a.s[k]), hvx_s_sign8(b.s[k], a.s[k])), ones)));
    } else {
        HVX_SIMD_EACH(r.s[k] = hvx_s_add32(acc.s[k], hvx_s_dot4_wide(a.s[k], 1, b.s[k], 1)));
    }
    return r;
}

/* acc + dot4(a.ub, b.b). PMADDUBSW is exact when every byte of a is < 128 (pair sums within
 * +-32512), the usual case (4-bit weights, 7-bit codes); else the widening path. */
HVX_INLINE HVX_Vector hvx_vrmpy_ubb(HVX_Vector acc, HVX_Vector a, HVX_Vector b) {
    const hvx_simd_t any = hvx_s_or(hvx_s_or(a.s[0], a.s[1]), hvx_s_or(a.s[2], a.s[3]));
    HVX_Vector r;
    if (__builtin_expect(hvx_s_testz(hvx_s_and(any, hvx_s_set1_8(-128))), 1)) {
        const hvx_simd_t ones = hvx_s_set1_16(1);
        HVX_SIMD_EACH(r.s[k] = hvx_s_add32(acc.s[k], hvx_s_madd16(hvx_s_maddubs(a.s[k], b.s[k]), ones)));
    } else {
        HVX_SIMD_EACH(r.s[k] = hvx_s_add32(acc.s[k], hvx_s_dot4_wide(a.s[k], 0, b.s[k], 1)));
    }
    return r;
}

/* acc + dot4(a.ub, b.ub). PMADDUBSW is exact when every byte of both is < 128. */
HVX_INLINE HVX_Vector hvx_vrmpy_ubub(HVX_Vector acc, HVX_Vector a, HVX_Vector b) {
    const hvx_simd_t any = hvx_s_or(hvx_s_or(hvx_s_or(a.s[0], a.s[1]), hvx_s_or(a.s[2], a.s[3])),
                                    hvx_s_or(hvx_s_or(b.s[0], b.s[1]), hvx_s_or(b.s[2], b.s[3])));
    HVX_Vector r;
    if (__builtin_expect(hvx_s_testz(hvx_s_and(any, hvx_s_set1_8(-128))), 1)) {
        const hvx_simd_t ones = hvx_s_set1_16(1);
        HVX_SIMD_EACH(r.s[k] = hvx_s_add32(acc.s[k], hvx_s_madd16(hvx_s_maddubs(a.s[k], b.s[k]), ones)));
    } else {
        HVX_SIMD_EACH(r.s[k] = hvx_s_add32(acc.s[k], hvx_s_dot4_wide(a.s[k], 0, b.s[k], 0)));
    }
    return r;
}
#define HVX_VRMPY(R, ACC, VU, TU, VV, TV, FAST) (R) = FAST(ACC, VU, VV)
#else
#define HVX_VRMPY(R, ACC, VU, TU, VV, TV, FAST) HVX_VRMPY_LANES(R, ACC, VU, TU, VV, TV)
#endif

/* The vrmpy forms. *_R forms use Rt's four bytes for every word. All CVI_VX. */
#define HVX_DEF_VRMPY(NAME, NAME_ACC, TU, TV, FAST)                               \
    HVX_INLINE HVX_Vector NAME(HVX_Vector vu, HVX_Vector vv) {                    \
        HVX_COUNT(VX);                                                            \
        HVX_Vector r, zero;                                                       \
        memset(&zero, 0, sizeof(zero));                                           \
        HVX_VRMPY(r, zero, vu, TU, vv, TV, FAST);                                 \
        return r;                                                                 \
    }                                                                             \
    HVX_INLINE HVX_Vector NAME_ACC(HVX_Vector vx, HVX_Vector vu, HVX_Vector vv) { \
        HVX_COUNT(VX);                                                            \
        HVX_Vector r;                                                             \
        HVX_VRMPY(r, vx, vu, TU, vv, TV, FAST);                                   \
        return r;                                                                 \
    }
#define HVX_DEF_VRMPY_R(NAME, NAME_ACC, TU, TV, FAST)                         \
    HVX_INLINE HVX_Vector NAME(HVX_Vector vu, Word32 rt) {                    \
        HVX_COUNT(VX);                                                        \
        HVX_Vector r, zero, vv;                                               \
        memset(&zero, 0, sizeof(zero));                                       \
        HVX_FOR(i, 32) vv.w[i] = rt;                                          \
        HVX_VRMPY(r, zero, vu, TU, vv, TV, FAST);                             \
        return r;                                                             \
    }                                                                         \
    HVX_INLINE HVX_Vector NAME_ACC(HVX_Vector vx, HVX_Vector vu, Word32 rt) { \
        HVX_COUNT(VX);                                                        \
        HVX_Vector r, vv;                                                     \
        HVX_FOR(i, 32) vv.w[i] = rt;                                          \
        HVX_VRMPY(r, vx, vu, TU, vv, TV, FAST);                               \
        return r;                                                             \
    }

/* Vd.w = vrmpy(Vu.b, Vv.b) and Vx.w += ... */
HVX_DEF_VRMPY(Q6_Vw_vrmpy_VbVb, Q6_Vw_vrmpyacc_VwVbVb, b, b, hvx_vrmpy_bb)
/* Vd.w = vrmpy(Vu.ub, Vv.b) and Vx.w += ... */
HVX_DEF_VRMPY(Q6_Vw_vrmpy_VubVb, Q6_Vw_vrmpyacc_VwVubVb, ub, b, hvx_vrmpy_ubb)
/* Vd.uw = vrmpy(Vu.ub, Vv.ub) and Vx.uw += ... */
HVX_DEF_VRMPY(Q6_Vuw_vrmpy_VubVub, Q6_Vuw_vrmpyacc_VuwVubVub, ub, ub, hvx_vrmpy_ubub)
/* Vd.w = vrmpy(Vu.ub, Rt.b) and Vx.w += ... */
HVX_DEF_VRMPY_R(Q6_Vw_vrmpy_VubRb, Q6_Vw_vrmpyacc_VwVubRb, ub, b, hvx_vrmpy_ubb)
/* Vd.uw = vrmpy(Vu.ub, Rt.ub) and Vx.uw += ... */
HVX_DEF_VRMPY_R(Q6_Vuw_vrmpy_VubRub, Q6_Vuw_vrmpyacc_VuwVubRub, ub, ub, hvx_vrmpy_ubub)

/* --- vdmpy: 2-way dot products --- */

/* Vd.h = vdmpy(Vu.ub, Rt.b): h[i] = ub[2i] * Rt.b[(2i) % 4] + ub[2i+1] * Rt.b[(2i+1) % 4]. CVI_VX. */
HVX_INLINE HVX_Vector Q6_Vh_vdmpy_VubRb(HVX_Vector vu, Word32 rt) {
    HVX_COUNT(VX);
    HVX_Vector r;
    HVX_FOR(i, 64)
    r.h[i] = (int16_t) (vu.ub[2 * i] * hvx_rbyte(rt, (2 * i) % 4) + vu.ub[2 * i + 1] * hvx_rbyte(rt, (2 * i + 1) % 4));
    return r;
}
/* Vx.h += vdmpy(Vu.ub, Rt.b). CVI_VX. */
HVX_INLINE HVX_Vector Q6_Vh_vdmpyacc_VhVubRb(HVX_Vector vx, HVX_Vector vu, Word32 rt) {
    HVX_COUNT(VX);
    HVX_FOR(i, 64) {
        vx.h[i] = (int16_t) (vx.h[i] + vu.ub[2 * i] * hvx_rbyte(rt, (2 * i) % 4) +
                             vu.ub[2 * i + 1] * hvx_rbyte(rt, (2 * i + 1) % 4));
    }
    return vx;
}
/* Vd.w = vdmpy(Vu.h, Rt.b): w[i] = h[2i] * Rt.b[(2i) % 4] + h[2i+1] * Rt.b[(2i+1) % 4]. CVI_VX. */
HVX_INLINE HVX_Vector Q6_Vw_vdmpy_VhRb(HVX_Vector vu, Word32 rt) {
    HVX_COUNT(VX);
    HVX_Vector r;
    HVX_FOR(i, 32) r.w[i] = vu.h[2 * i] * hvx_rbyte(rt, (2 * i) % 4) + vu.h[2 * i + 1] * hvx_rbyte(rt, (2 * i + 1) % 4);
    return r;
}
/* Vx.w += vdmpy(Vu.h, Rt.b). CVI_VX. */
HVX_INLINE HVX_Vector Q6_Vw_vdmpyacc_VwVhRb(HVX_Vector vx, HVX_Vector vu, Word32 rt) {
    HVX_COUNT(VX);
    HVX_FOR(i, 32) {
        vx.uw[i] +=
            (uint32_t) (vu.h[2 * i] * hvx_rbyte(rt, (2 * i) % 4) + vu.h[2 * i + 1] * hvx_rbyte(rt, (2 * i + 1) % 4));
    }
    return vx;
}
/* Vd.w = vdmpy(Vu.h, Vv.h):sat: sat(h0(u)h0(v) + h1(u)h1(v)) per word. CVI_VX. */
HVX_INLINE HVX_Vector Q6_Vw_vdmpy_VhVh_sat(HVX_Vector vu, HVX_Vector vv) {
    HVX_COUNT(VX);
    HVX_Vector r;
    HVX_FOR(i, 32)
    r.w[i] = hvx_sat_w((int64_t) vu.h[2 * i] * vv.h[2 * i] + (int64_t) vu.h[2 * i + 1] * vv.h[2 * i + 1]);
    return r;
}
/* Vx.w += vdmpy(Vu.h, Vv.h):sat: sat(x + h0(u)h0(v) + h1(u)h1(v)). CVI_VX_DV. */
HVX_INLINE HVX_Vector Q6_Vw_vdmpyacc_VwVhVh_sat(HVX_Vector vx, HVX_Vector vu, HVX_Vector vv) {
    HVX_COUNT(VX_DV);
    HVX_FOR(i, 32) {
        vx.w[i] = hvx_sat_w((int64_t) vx.w[i] + (int64_t) vu.h[2 * i] * vv.h[2 * i] +
                            (int64_t) vu.h[2 * i + 1] * vv.h[2 * i + 1]);
    }
    return vx;
}
/* Vd.w = vdmpy(Vu.h, Rt.h):sat: sat(h0(u) Rt.h0 + h1(u) Rt.h1). CVI_VX. */
HVX_INLINE HVX_Vector Q6_Vw_vdmpy_VhRh_sat(HVX_Vector vu, Word32 rt) {
    HVX_COUNT(VX);
    HVX_Vector r;
    HVX_FOR(i, 32) {
        r.w[i] = hvx_sat_w((int64_t) vu.h[2 * i] * hvx_rhalf(rt, 0) + (int64_t) vu.h[2 * i + 1] * hvx_rhalf(rt, 1));
    }
    return r;
}
/* Vx.w += vdmpy(Vu.h, Rt.h):sat. CVI_VX. */
HVX_INLINE HVX_Vector Q6_Vw_vdmpyacc_VwVhRh_sat(HVX_Vector vx, HVX_Vector vu, Word32 rt) {
    HVX_COUNT(VX);
    HVX_FOR(i, 32) {
        vx.w[i] = hvx_sat_w((int64_t) vx.w[i] + (int64_t) vu.h[2 * i] * hvx_rhalf(rt, 0) +
                            (int64_t) vu.h[2 * i + 1] * hvx_rhalf(rt, 1));
    }
    return vx;
}
/* Vd.w = vdmpy(Vu.h, Rt.uh):sat: signed halves times unsigned halves of Rt. CVI_VX. */
HVX_INLINE HVX_Vector Q6_Vw_vdmpy_VhRuh_sat(HVX_Vector vu, Word32 rt) {
    HVX_COUNT(VX);
    HVX_Vector r;
    HVX_FOR(i, 32) {
        r.w[i] = hvx_sat_w((int64_t) vu.h[2 * i] * hvx_ruhalf(rt, 0) + (int64_t) vu.h[2 * i + 1] * hvx_ruhalf(rt, 1));
    }
    return r;
}
/* Vx.w += vdmpy(Vu.h, Rt.uh):sat. CVI_VX. */
HVX_INLINE HVX_Vector Q6_Vw_vdmpyacc_VwVhRuh_sat(HVX_Vector vx, HVX_Vector vu, Word32 rt) {
    HVX_COUNT(VX);
    HVX_FOR(i, 32) {
        vx.w[i] = hvx_sat_w((int64_t) vx.w[i] + (int64_t) vu.h[2 * i] * hvx_ruhalf(rt, 0) +
                            (int64_t) vu.h[2 * i + 1] * hvx_ruhalf(rt, 1));
    }
    return vx;
}

/* --- widening multiplies: Vdd.D = vmpy(Vu.S, Vv.S): lo = even elements' products, hi = odd ones.
 * Scalar forms pair element e with Rt byte e % 4 (bytes) or half e % 2 (halves). All CVI_VX_DV. --- */
#define HVX_DEF_WMPY(NAME, NAME_ACC, D, TU, TV, N)                                         \
    HVX_INLINE HVX_VectorPair NAME(HVX_Vector vu, HVX_Vector vv) {                         \
        HVX_COUNT(VX_DV);                                                                  \
        HVX_VectorPair r;                                                                  \
        HVX_FOR(i, N) {                                                                    \
            r.v[0].D[i] = (int64_t) vu.TU[2 * i] * vv.TV[2 * i];                           \
            r.v[1].D[i] = (int64_t) vu.TU[2 * i + 1] * vv.TV[2 * i + 1];                   \
        }                                                                                  \
        return r;                                                                          \
    }                                                                                      \
    HVX_INLINE HVX_VectorPair NAME_ACC(HVX_VectorPair vxx, HVX_Vector vu, HVX_Vector vv) { \
        HVX_COUNT(VX_DV);                                                                  \
        HVX_FOR(i, N) {                                                                    \
            vxx.v[0].D[i] = vxx.v[0].D[i] + (int64_t) vu.TU[2 * i] * vv.TV[2 * i];         \
            vxx.v[1].D[i] = vxx.v[1].D[i] + (int64_t) vu.TU[2 * i + 1] * vv.TV[2 * i + 1]; \
        }                                                                                  \
        return vxx;                                                                        \
    }
HVX_DEF_WMPY(Q6_Wh_vmpy_VubVb, Q6_Wh_vmpyacc_WhVubVb, h, ub, b, 64)
HVX_DEF_WMPY(Q6_Wh_vmpy_VbVb, Q6_Wh_vmpyacc_WhVbVb, h, b, b, 64)
HVX_DEF_WMPY(Q6_Wuh_vmpy_VubVub, Q6_Wuh_vmpyacc_WuhVubVub, uh, ub, ub, 64)
HVX_DEF_WMPY(Q6_Ww_vmpy_VhVh, Q6_Ww_vmpyacc_WwVhVh, w, h, h, 32)
HVX_DEF_WMPY(Q6_Wuw_vmpy_VuhVuh, Q6_Wuw_vmpyacc_WuwVuhVuh, uw, uh, uh, 32)
HVX_DEF_WMPY(Q6_Ww_vmpy_VhVuh, Q6_Ww_vmpyacc_WwVhVuh, w, h, uh, 32)

#define HVX_DEF_WMPY_R(NAME, NAME_ACC, D, TU, RGET, RIDX, N)                                             \
    HVX_INLINE HVX_VectorPair NAME(HVX_Vector vu, Word32 rt) {                                           \
        HVX_COUNT(VX_DV);                                                                                \
        HVX_VectorPair r;                                                                                \
        HVX_FOR(i, N) {                                                                                  \
            r.v[0].D[i] = (int64_t) vu.TU[2 * i] * RGET(rt, (2 * i) % (RIDX));                           \
            r.v[1].D[i] = (int64_t) vu.TU[2 * i + 1] * RGET(rt, (2 * i + 1) % (RIDX));                   \
        }                                                                                                \
        return r;                                                                                        \
    }                                                                                                    \
    HVX_INLINE HVX_VectorPair NAME_ACC(HVX_VectorPair vxx, HVX_Vector vu, Word32 rt) {                   \
        HVX_COUNT(VX_DV);                                                                                \
        HVX_FOR(i, N) {                                                                                  \
            vxx.v[0].D[i] = vxx.v[0].D[i] + (int64_t) vu.TU[2 * i] * RGET(rt, (2 * i) % (RIDX));         \
            vxx.v[1].D[i] = vxx.v[1].D[i] + (int64_t) vu.TU[2 * i + 1] * RGET(rt, (2 * i + 1) % (RIDX)); \
        }                                                                                                \
        return vxx;                                                                                      \
    }
HVX_DEF_WMPY_R(Q6_Wh_vmpy_VubRb, Q6_Wh_vmpyacc_WhVubRb, h, ub, hvx_rbyte, 4, 64)
HVX_DEF_WMPY_R(Q6_Wuh_vmpy_VubRub, Q6_Wuh_vmpyacc_WuhVubRub, uh, ub, hvx_rubyte, 4, 64)
HVX_DEF_WMPY_R(Q6_Ww_vmpy_VhRh, Q6_Ww_vmpyacc_WwVhRh, w, h, hvx_rhalf, 2, 32)
HVX_DEF_WMPY_R(Q6_Wuw_vmpy_VuhRuh, Q6_Wuw_vmpyacc_WuwVuhRuh, uw, uh, hvx_ruhalf, 2, 32)

/* Vxx.w += vmpy(Vu.h, Rt.h):sat: each word saturated after the add. CVI_VX_DV. */
HVX_INLINE HVX_VectorPair Q6_Ww_vmpyacc_WwVhRh_sat(HVX_VectorPair vxx, HVX_Vector vu, Word32 rt) {
    HVX_COUNT(VX_DV);
    HVX_FOR(i, 32) {
        vxx.v[0].w[i] = hvx_sat_w((int64_t) vxx.v[0].w[i] + (int64_t) vu.h[2 * i] * hvx_rhalf(rt, 0));
        vxx.v[1].w[i] = hvx_sat_w((int64_t) vxx.v[1].w[i] + (int64_t) vu.h[2 * i + 1] * hvx_rhalf(rt, 1));
    }
    return vxx;
}

/* --- vmpyi: low half of the product, same width as the source --- */

/* Vd.h = vmpyi(Vu.h, Vv.h): low 16 bits of h * h. CVI_VX_DV. */
HVX_INLINE HVX_Vector Q6_Vh_vmpyi_VhVh(HVX_Vector vu, HVX_Vector vv) {
    HVX_COUNT(VX_DV);
    HVX_Vector r;
    HVX_SIMD_OR_LANES(r.s[k] = hvx_s_mullo16(vu.s[k], vv.s[k]), HVX_FOR(i, 64) r.h[i] = (int16_t) (vu.h[i] * vv.h[i]));
    return r;
}
/* Vx.h += vmpyi(Vu.h, Vv.h). CVI_VX_DV. */
HVX_INLINE HVX_Vector Q6_Vh_vmpyiacc_VhVhVh(HVX_Vector vx, HVX_Vector vu, HVX_Vector vv) {
    HVX_COUNT(VX_DV);
    HVX_SIMD_OR_LANES(vx.s[k] = hvx_s_add16(vx.s[k], hvx_s_mullo16(vu.s[k], vv.s[k])),
                      HVX_FOR(i, 64) vx.h[i] = (int16_t) (vx.h[i] + vu.h[i] * vv.h[i]));
    return vx;
}
/* Vd.h = vmpyi(Vu.h, Rt.b): h[i] * Rt.b[i % 4]. CVI_VX. */
HVX_INLINE HVX_Vector Q6_Vh_vmpyi_VhRb(HVX_Vector vu, Word32 rt) {
    HVX_COUNT(VX);
    HVX_Vector r;
    HVX_FOR(i, 64) r.h[i] = (int16_t) (vu.h[i] * hvx_rbyte(rt, i % 4));
    return r;
}
/* Vx.h += vmpyi(Vu.h, Rt.b). CVI_VX. */
HVX_INLINE HVX_Vector Q6_Vh_vmpyiacc_VhVhRb(HVX_Vector vx, HVX_Vector vu, Word32 rt) {
    HVX_COUNT(VX);
    HVX_FOR(i, 64) vx.h[i] = (int16_t) (vx.h[i] + vu.h[i] * hvx_rbyte(rt, i % 4));
    return vx;
}
/* Vd.w = vmpyi(Vu.w, Rt.b): low 32 bits of w[i] * Rt.b[i % 4]. CVI_VX. */
HVX_INLINE HVX_Vector Q6_Vw_vmpyi_VwRb(HVX_Vector vu, Word32 rt) {
    HVX_COUNT(VX);
    HVX_Vector r;
    HVX_FOR(i, 32) r.uw[i] = (uint32_t) ((int64_t) vu.w[i] * hvx_rbyte(rt, i % 4));
    return r;
}
/* Vx.w += vmpyi(Vu.w, Rt.b). CVI_VX. */
HVX_INLINE HVX_Vector Q6_Vw_vmpyiacc_VwVwRb(HVX_Vector vx, HVX_Vector vu, Word32 rt) {
    HVX_COUNT(VX);
    HVX_FOR(i, 32) vx.uw[i] += (uint32_t) ((int64_t) vu.w[i] * hvx_rbyte(rt, i % 4));
    return vx;
}
/* Vd.w = vmpyi(Vu.w, Rt.ub) (v62). CVI_VX. */
HVX_INLINE HVX_Vector Q6_Vw_vmpyi_VwRub(HVX_Vector vu, Word32 rt) {
    HVX_COUNT(VX);
    HVX_Vector r;
    HVX_FOR(i, 32) r.uw[i] = (uint32_t) ((int64_t) vu.w[i] * hvx_rubyte(rt, i % 4));
    return r;
}
/* Vx.w += vmpyi(Vu.w, Rt.ub) (v62). CVI_VX. */
HVX_INLINE HVX_Vector Q6_Vw_vmpyiacc_VwVwRub(HVX_Vector vx, HVX_Vector vu, Word32 rt) {
    HVX_COUNT(VX);
    HVX_FOR(i, 32) vx.uw[i] += (uint32_t) ((int64_t) vu.w[i] * hvx_rubyte(rt, i % 4));
    return vx;
}
/* Vd.w = vmpyi(Vu.w, Rt.h): low 32 bits of w[i] * Rt.h[i % 2]. CVI_VX_DV. */
HVX_INLINE HVX_Vector Q6_Vw_vmpyi_VwRh(HVX_Vector vu, Word32 rt) {
    HVX_COUNT(VX_DV);
    HVX_Vector r;
    HVX_FOR(i, 32) r.uw[i] = (uint32_t) ((int64_t) vu.w[i] * hvx_rhalf(rt, i % 2));
    return r;
}
/* Vx.w += vmpyi(Vu.w, Rt.h). CVI_VX_DV. */
HVX_INLINE HVX_Vector Q6_Vw_vmpyiacc_VwVwRh(HVX_Vector vx, HVX_Vector vu, Word32 rt) {
    HVX_COUNT(VX_DV);
    HVX_FOR(i, 32) vx.uw[i] += (uint32_t) ((int64_t) vu.w[i] * hvx_rhalf(rt, i % 2));
    return vx;
}

/* --- pieces of 32x32 multiplies --- */

/* Vd.w = vmpyie(Vu.w, Vv.uh): low 32 bits of Vu.w[i] * (even half of Vv.w[i], unsigned). CVI_VX_DV. */
HVX_INLINE HVX_Vector Q6_Vw_vmpyie_VwVuh(HVX_Vector vu, HVX_Vector vv) {
    HVX_COUNT(VX_DV);
    HVX_Vector r;
    HVX_FOR(i, 32) r.uw[i] = (uint32_t) ((int64_t) vu.w[i] * vv.uh[2 * i]);
    return r;
}
/* Vx.w += vmpyie(Vu.w, Vv.uh). CVI_VX_DV. */
HVX_INLINE HVX_Vector Q6_Vw_vmpyieacc_VwVwVuh(HVX_Vector vx, HVX_Vector vu, HVX_Vector vv) {
    HVX_COUNT(VX_DV);
    HVX_FOR(i, 32) vx.uw[i] += (uint32_t) ((int64_t) vu.w[i] * vv.uh[2 * i]);
    return vx;
}
/* Vx.w += vmpyie(Vu.w, Vv.h): even half signed. CVI_VX_DV. */
HVX_INLINE HVX_Vector Q6_Vw_vmpyieacc_VwVwVh(HVX_Vector vx, HVX_Vector vu, HVX_Vector vv) {
    HVX_COUNT(VX_DV);
    HVX_FOR(i, 32) vx.uw[i] += (uint32_t) ((int64_t) vu.w[i] * vv.h[2 * i]);
    return vx;
}
/* Vd.w = vmpyio(Vu.w, Vv.h): low 32 bits of Vu.w[i] * (odd half of Vv.w[i], signed). CVI_VX_DV. */
HVX_INLINE HVX_Vector Q6_Vw_vmpyio_VwVh(HVX_Vector vu, HVX_Vector vv) {
    HVX_COUNT(VX_DV);
    HVX_Vector r;
    HVX_FOR(i, 32) r.uw[i] = (uint32_t) ((int64_t) vu.w[i] * vv.h[2 * i + 1]);
    return r;
}
/* Vd.w = vmpyieo(Vu.h, Vv.h): (even half of Vu.w[i]) * (odd half of Vv.w[i]) << 16. CVI_VX. */
HVX_INLINE HVX_Vector Q6_Vw_vmpyieo_VhVh(HVX_Vector vu, HVX_Vector vv) {
    HVX_COUNT(VX);
    HVX_Vector r;
    HVX_FOR(i, 32) r.uw[i] = (uint32_t) (vu.h[2 * i] * vv.h[2 * i + 1]) << 16;
    return r;
}
/* Vd.w = vmpye(Vu.w, Vv.uh): (Vu.w[i] * even half of Vv.w[i], unsigned) >> 16. CVI_VX_DV. */
HVX_INLINE HVX_Vector Q6_Vw_vmpye_VwVuh(HVX_Vector vu, HVX_Vector vv) {
    HVX_COUNT(VX_DV);
    HVX_Vector r;
    HVX_FOR(i, 32) r.w[i] = (int32_t) (((int64_t) vu.w[i] * vv.uh[2 * i]) >> 16);
    return r;
}
/* Vd.w = vmpyo(Vu.w, Vv.h):<<1:sat: sat(((Vu.w * odd half of Vv.w) >> 14) >> 1); :rnd adds 1 between
 * the shifts. CVI_VX_DV. */
HVX_INLINE HVX_Vector Q6_Vw_vmpyo_VwVh_s1_sat(HVX_Vector vu, HVX_Vector vv) {
    HVX_COUNT(VX_DV);
    HVX_Vector r;
    HVX_FOR(i, 32) r.w[i] = hvx_sat_w((((int64_t) vu.w[i] * vv.h[2 * i + 1]) >> 14) >> 1);
    return r;
}
HVX_INLINE HVX_Vector Q6_Vw_vmpyo_VwVh_s1_rnd_sat(HVX_Vector vu, HVX_Vector vv) {
    HVX_COUNT(VX_DV);
    HVX_Vector r;
    HVX_FOR(i, 32) r.w[i] = hvx_sat_w(((((int64_t) vu.w[i] * vv.h[2 * i + 1]) >> 14) + 1) >> 1);
    return r;
}
/* Vx.w += vmpyo(Vu.w, Vv.h):<<1:sat:shift: sat(((Vx + product) >> 14) >> 1), :rnd adds 1. CVI_VX_DV. */
HVX_INLINE HVX_Vector Q6_Vw_vmpyoacc_VwVwVh_s1_sat_shift(HVX_Vector vx, HVX_Vector vu, HVX_Vector vv) {
    HVX_COUNT(VX_DV);
    HVX_FOR(i, 32) vx.w[i] = hvx_sat_w((((int64_t) vx.w[i] + (int64_t) vu.w[i] * vv.h[2 * i + 1]) >> 14) >> 1);
    return vx;
}
HVX_INLINE HVX_Vector Q6_Vw_vmpyoacc_VwVwVh_s1_rnd_sat_shift(HVX_Vector vx, HVX_Vector vu, HVX_Vector vv) {
    HVX_COUNT(VX_DV);
    HVX_FOR(i, 32) vx.w[i] = hvx_sat_w(((((int64_t) vx.w[i] + (int64_t) vu.w[i] * vv.h[2 * i + 1]) >> 14) + 1) >> 1);
    return vx;
}

/* --- Q15 fractional multiplies: sat16 of the upper half of sat32((a * b) << 1 [+ 0x8000]) --- */
HVX_INLINE int16_t hvx_q15_mpy(int32_t a, int32_t b, int rnd) {
    const int64_t p = hvx_sat_w((int64_t) a * b * 2 + (rnd ? 0x8000 : 0));
    return hvx_sat_h(p >> 16);
}
/* Vd.h = vmpy(Vu.h, Vv.h):<<1:rnd:sat. CVI_VX. */
HVX_INLINE HVX_Vector Q6_Vh_vmpy_VhVh_s1_rnd_sat(HVX_Vector vu, HVX_Vector vv) {
    HVX_COUNT(VX);
    HVX_Vector r;
    HVX_FOR(i, 64) r.h[i] = hvx_q15_mpy(vu.h[i], vv.h[i], 1);
    return r;
}
/* Vd.h = vmpy(Vu.h, Rt.h):<<1:sat: element i times Rt.h[i % 2]. CVI_VX. */
HVX_INLINE HVX_Vector Q6_Vh_vmpy_VhRh_s1_sat(HVX_Vector vu, Word32 rt) {
    HVX_COUNT(VX);
    HVX_Vector r;
    HVX_FOR(i, 64) r.h[i] = hvx_q15_mpy(vu.h[i], hvx_rhalf(rt, i % 2), 0);
    return r;
}
/* Vd.h = vmpy(Vu.h, Rt.h):<<1:rnd:sat. CVI_VX. */
HVX_INLINE HVX_Vector Q6_Vh_vmpy_VhRh_s1_rnd_sat(HVX_Vector vu, Word32 rt) {
    HVX_COUNT(VX);
    HVX_Vector r;
    HVX_FOR(i, 64) r.h[i] = hvx_q15_mpy(vu.h[i], hvx_rhalf(rt, i % 2), 1);
    return r;
}
/* Vd.uh = vmpy(Vu.uh, Vv.uh):>>16: upper half of the unsigned product (v69). CVI_VX. */
HVX_INLINE HVX_Vector Q6_Vuh_vmpy_VuhVuh_rs16(HVX_Vector vu, HVX_Vector vv) {
    HVX_COUNT(VX);
    HVX_Vector r;
    HVX_SIMD_OR_LANES(r.s[k] = hvx_s_mulhi_u16(vu.s[k], vv.s[k]),
                      HVX_FOR(i, 64) r.uh[i] = (uint16_t) (((uint32_t) vu.uh[i] * vv.uh[i]) >> 16));
    return r;
}

#endif /* VNPU_HVX_MPY_H */
