/*
 * Host emulation of the HVX IEEE floating-point intrinsics (v68+): sf/hf add, subtract, multiply and
 * multiply-accumulate, dot products, min/max, abs/neg, compares, and the conversions between hf, sf and
 * integers (v68 vcvt; v73 Vw = Vsf and friends).
 *
 * Semantics: QEMU's HVX IEEE model (target/hexagon/imported/mmvec/ext.idef "KVX - IEEE FP", mmvec
 * hvx_ieee_fp.c, on softfloat): IEEE-754 round to nearest even with subnormals, no flush to zero;
 *  - every NaN a float operation produces is the Hexagon canonical NaN 0x7FFFFFFF / 0x7FFF;
 *  - hf x hf products widened to sf are exact, so the "fused" vmpyacc into sf rounds once;
 *  - hf += hf x hf (Vhf_vmpyacc) is a fused multiply-add rounded once to hf;
 *  - conversions to integers round to nearest even and saturate; a NaN gives the largest value, a
 *    negative value gives 0 for unsigned results; the v73 Vw = Vsf and Vh = Vhf truncate toward zero
 *    and give the saturated value of the NaN's sign;
 *  - vmax/vmin (CVI_VA) order +NaN above +inf and -NaN below -inf and return the NaN operand; vfmax/
 *    vfmin return the canonical NaN for a NaN operand; both order -0 below +0;
 *  - vcmp.gt orders QNaN > SNaN > +inf > numbers > -inf > -SNaN > -QNaN (QEMU's v73 NaN order).
 * Element order of the widening and narrowing forms: Wsf from Vhf puts even halves in lo and odd in hi;
 * Vhf = vcvt(Vu.sf, Vv.sf) puts Vu in the even halves and Vv in the odd ones (QEMU's vcvt_hf_sf).
 */
#ifndef VNPU_HVX_FLOAT_H
#define VNPU_HVX_FLOAT_H

#include "hvx-half.h"
#include "hvx-types.h"

/* vcmp.gt when at least one operand is a NaN, as QEMU's float32_nan_compare: opposite signs compare by
 * sign; same signs: a is greater when it is a NaN and b is not, or a is a quiet NaN and b is not, and
 * the answer is inverted for negative operands. */
HVX_INLINE int hvx_nan_gt(uint32_t a, uint32_t b, int a_nan, int b_nan, uint32_t qbit, uint32_t sbit) {
    const int a_neg = (a & sbit) != 0, b_neg = (b & sbit) != 0;
    if (a_neg != b_neg) {
        return !a_neg;
    }
    const int a_quiet = a_nan && (a & qbit), b_quiet = b_nan && (b & qbit);
    const int gt = (a_nan && !b_nan) || (a_quiet && !b_quiet);
    return a_neg ? !gt : gt;
}
HVX_INLINE int hvx_sf_gt(uint32_t a, uint32_t b) {
    const int an = hvx_sf_isnan(a), bn = hvx_sf_isnan(b);
    if (an || bn) {
        return hvx_nan_gt(a, b, an, bn, 0x400000u, 0x80000000u);
    }
    return hvx_sf(a) > hvx_sf(b);
}
HVX_INLINE int hvx_hf_gt(uint16_t a, uint16_t b) {
    const int an = hvx_hf_isnan(a), bn = hvx_hf_isnan(b);
    if (an || bn) {
        return hvx_nan_gt(a, b, an, bn, 0x200u, 0x8000u);
    }
    return hvx_sf(hvx_hf_to_sf(a)) > hvx_sf(hvx_hf_to_sf(b));
}

/* IEEE min/max with -0 < +0; NaN operands handled by the callers. */
HVX_INLINE float hvx_fminmax(float a, float b, int max) {
    if (a == b) { /* equal, or +0 and -0: the sign decides */
        const int a_neg = (hvx_sf_bits(a) >> 31) != 0;
        return (max ? !a_neg : a_neg) ? a : b;
    }
    return (max ? a > b : a < b) ? a : b;
}

/* hf value as M * 2^q with M < 2048 (11 bits) and q in [-24, 5]; h must be finite. */
HVX_INLINE void hvx_hf_split(uint16_t h, int64_t *m, int *q) {
    const int e = (h >> 10) & 31;
    *m = e ? (h & 1023) | 1024 : h & 1023;
    *q = (e ? e : 1) - 25;
    if (h & 0x8000u) {
        *m = -*m;
    }
}

/* Fused hf multiply-add rounded once to hf: a * b + c. The exact sum is formed in 128-bit integers
 * scaled by 2^48, then rounded with hvx_hf_round. */
HVX_INLINE uint16_t hvx_hf_fma(uint16_t a, uint16_t b, uint16_t c) {
    if (hvx_hf_isnan(a) || hvx_hf_isnan(b) || hvx_hf_isnan(c)) {
        return HVX_HF_NAN;
    }
    if ((a & 0x7C00u) == 0x7C00u || (b & 0x7C00u) == 0x7C00u || (c & 0x7C00u) == 0x7C00u) {
        /* an infinity: the float result is exact or NaN, no rounding involved */
        const float p = hvx_sf(hvx_hf_to_sf(a)) * hvx_sf(hvx_hf_to_sf(b));
        return hvx_sf_to_hf(hvx_sf_canon(p + hvx_sf(hvx_hf_to_sf(c))));
    }
    int64_t ma, mb, mc;
    int qa, qb, qc;
    hvx_hf_split(a, &ma, &qa);
    hvx_hf_split(b, &mb, &qb);
    hvx_hf_split(c, &mc, &qc);
    const __int128 s =
        (__int128) (ma * mb) * ((__int128) 1 << (qa + qb + 48)) + (__int128) mc * ((__int128) 1 << (qc + 48));
    if (s == 0) { /* exact zero: -0 only when both terms are zeros of negative sign */
        return (uint16_t) (((a ^ b) & c) & 0x8000u);
    }
    const unsigned __int128 mag = s < 0 ? (unsigned __int128) -s : (unsigned __int128) s;
    const uint32_t sign = s < 0 ? 0x8000u : 0;
    const uint64_t hi = (uint64_t) (mag >> 64), lo = (uint64_t) mag;
    if (hi == 0) {
        return hvx_hf_round(sign, lo, -48, 0);
    }
    const int sh = 64 - __builtin_clzll(hi);
    return hvx_hf_round(sign, (uint64_t) (mag >> sh), sh - 48, (lo & (((uint64_t) 1 << sh) - 1)) != 0);
}

/* ===================== the intrinsics ===================== */

#if HVX_SIMD
HVX_INLINE hvx_simd_t hvx_s_canon_sf(hvx_simd_t r) {
    return hvx_s_blend8(hvx_s_isnan_f32(r), hvx_s_set1_32((int32_t) HVX_SF_NAN), r);
}
HVX_INLINE hvx_simd_t hvx_s_canon_hf(hvx_simd_t r) {
    const hvx_simd_t nan = hvx_s_cmpgt_i16(hvx_s_and(r, hvx_s_set1_16(0x7FFF)), hvx_s_set1_16(0x7C00));
    return hvx_s_blend8(nan, hvx_s_set1_16(0x7FFF), r);
}
/* the 8 even (odd = 0) or odd halves of chunk a, widened to binary32 */
HVX_INLINE hvx_simd_t hvx_s_cvt_f16_f32_eo(hvx_simd_t a, int odd) {
    return hvx_s_cvt_f16_f32(hvx_s_unzip(a, a, 2, odd), 0);
}
/* hf chunk op: both 16-half parts through binary32 (exact inputs; one binary32 rounding, then hf:
 * innocuous double rounding since 24 >= 2 * 11 + 2) */
#define HVX_S_HF_OP(OP, a, b)                                                              \
    hvx_s_canon_hf(hvx_s_cvt_f32_f16(OP(hvx_s_cvt_f16_f32(a, 0), hvx_s_cvt_f16_f32(b, 0)), \
                                     OP(hvx_s_cvt_f16_f32(a, 1), hvx_s_cvt_f16_f32(b, 1))))
#endif

/* --- sf and hf arithmetic --- */
#define HVX_DEF_SF_OP(NAME, CLS, OP, SIMD)                                              \
    HVX_INLINE HVX_Vector NAME(HVX_Vector vu, HVX_Vector vv) {                          \
        HVX_COUNT(CLS);                                                                 \
        HVX_Vector r;                                                                   \
        HVX_SIMD_OR_LANES(r.s[k] = hvx_s_canon_sf(SIMD(vu.s[k], vv.s[k])),              \
                          HVX_FOR(i, 32) r.uw[i] = hvx_sf_canon(vu.sf[i] OP vv.sf[i])); \
        return r;                                                                       \
    }
/* Vd.sf = vadd(Vu.sf, Vv.sf), vsub: CVI_VX; vmpy: CVI_VX_DV. */
HVX_DEF_SF_OP(Q6_Vsf_vadd_VsfVsf, VX, +, hvx_s_addf)
HVX_DEF_SF_OP(Q6_Vsf_vsub_VsfVsf, VX, -, hvx_s_subf)
HVX_DEF_SF_OP(Q6_Vsf_vmpy_VsfVsf, VX_DV, *, hvx_s_mulf)

#define HVX_DEF_HF_OP(NAME, OP, SIMD)                                                             \
    HVX_INLINE HVX_Vector NAME(HVX_Vector vu, HVX_Vector vv) {                                    \
        HVX_COUNT(VX);                                                                            \
        HVX_Vector r;                                                                             \
        HVX_SIMD_OR_LANES(                                                                        \
            r.s[k] = HVX_S_HF_OP(SIMD, vu.s[k], vv.s[k]), HVX_FOR(i, 64) {                        \
                const float x = hvx_sf(hvx_hf_to_sf(vu.uh[i])) OP hvx_sf(hvx_hf_to_sf(vv.uh[i])); \
                r.uh[i] = hvx_sf_to_hf(hvx_sf_canon(x));                                          \
            });                                                                                   \
        return r;                                                                                 \
    }
/* Vd.hf = vadd(Vu.hf, Vv.hf), vsub, vmpy. CVI_VX. */
HVX_DEF_HF_OP(Q6_Vhf_vadd_VhfVhf, +, hvx_s_addf)
HVX_DEF_HF_OP(Q6_Vhf_vsub_VhfVhf, -, hvx_s_subf)
HVX_DEF_HF_OP(Q6_Vhf_vmpy_VhfVhf, *, hvx_s_mulf)

/* Vx.hf += vmpy(Vu.hf, Vv.hf): fused, one rounding to hf. CVI_VX. */
HVX_INLINE HVX_Vector Q6_Vhf_vmpyacc_VhfVhfVhf(HVX_Vector vx, HVX_Vector vu, HVX_Vector vv) {
    HVX_COUNT(VX);
    HVX_FOR(i, 64) vx.uh[i] = hvx_hf_fma(vu.uh[i], vv.uh[i], vx.uh[i]);
    return vx;
}

/* Vdd.sf = vadd/vsub/vmpy(Vu.hf, Vv.hf): lo from even halves, hi from odd ones. CVI_VX_DV. */
#define HVX_DEF_WSF_OP(NAME, OP, SIMD)                                                                                \
    HVX_INLINE HVX_VectorPair NAME(HVX_Vector vu, HVX_Vector vv) {                                                    \
        HVX_COUNT(VX_DV);                                                                                             \
        HVX_VectorPair r;                                                                                             \
        HVX_SIMD_OR_LANES(                                                                                            \
            (r.v[0].s[k] = hvx_s_canon_sf(SIMD(hvx_s_cvt_f16_f32_eo(vu.s[k], 0), hvx_s_cvt_f16_f32_eo(vv.s[k], 0))),  \
             r.v[1].s[k] = hvx_s_canon_sf(SIMD(hvx_s_cvt_f16_f32_eo(vu.s[k], 1), hvx_s_cvt_f16_f32_eo(vv.s[k], 1)))), \
            HVX_FOR(j, 2) HVX_FOR(i, 32) {                                                                            \
                r.v[j].uw[i] =                                                                                        \
                    hvx_sf_canon(hvx_sf(hvx_hf_to_sf(vu.uh[2 * i + j])) OP hvx_sf(hvx_hf_to_sf(vv.uh[2 * i + j])));   \
            });                                                                                                       \
        return r;                                                                                                     \
    }
HVX_DEF_WSF_OP(Q6_Wsf_vadd_VhfVhf, +, hvx_s_addf)
HVX_DEF_WSF_OP(Q6_Wsf_vsub_VhfVhf, -, hvx_s_subf)
HVX_DEF_WSF_OP(Q6_Wsf_vmpy_VhfVhf, *, hvx_s_mulf)

/* Vxx.sf += vmpy(Vu.hf, Vv.hf): lo += even products, hi += odd ones; the exact product rounds once. CVI_VX_DV. */
HVX_INLINE HVX_VectorPair Q6_Wsf_vmpyacc_WsfVhfVhf(HVX_VectorPair vxx, HVX_Vector vu, HVX_Vector vv) {
    HVX_COUNT(VX_DV);
    HVX_SIMD_OR_LANES(
        (vxx.v[0].s[k] = hvx_s_canon_sf(
             hvx_s_addf(vxx.v[0].s[k], hvx_s_mulf(hvx_s_cvt_f16_f32_eo(vu.s[k], 0), hvx_s_cvt_f16_f32_eo(vv.s[k], 0)))),
         vxx.v[1].s[k] = hvx_s_canon_sf(hvx_s_addf(
             vxx.v[1].s[k], hvx_s_mulf(hvx_s_cvt_f16_f32_eo(vu.s[k], 1), hvx_s_cvt_f16_f32_eo(vv.s[k], 1))))),
        HVX_FOR(j, 2) HVX_FOR(i, 32) {
            const float p = hvx_sf(hvx_hf_to_sf(vu.uh[2 * i + j])) * hvx_sf(hvx_hf_to_sf(vv.uh[2 * i + j]));
            vxx.v[j].uw[i] = hvx_sf_canon(vxx.v[j].sf[i] + p);
        });
    return vxx;
}

/* Vd.sf = vdmpy(Vu.hf, Vv.hf): odd product + even product of each word, rounded once. CVI_VX. */
HVX_INLINE HVX_Vector Q6_Vsf_vdmpy_VhfVhf(HVX_Vector vu, HVX_Vector vv) {
    HVX_COUNT(VX);
    HVX_Vector r;
    HVX_FOR(i, 32) {
        const float odd = hvx_sf(hvx_hf_to_sf(vu.uh[2 * i + 1])) * hvx_sf(hvx_hf_to_sf(vv.uh[2 * i + 1]));
        const float even = hvx_sf(hvx_hf_to_sf(vu.uh[2 * i])) * hvx_sf(hvx_hf_to_sf(vv.uh[2 * i]));
        r.uw[i] = hvx_sf_canon(odd + even);
    }
    return r;
}
/* Vx.sf += vdmpy(Vu.hf, Vv.hf): the vdmpy sum, rounded, then added to Vx and rounded again. CVI_VX. */
HVX_INLINE HVX_Vector Q6_Vsf_vdmpyacc_VsfVhfVhf(HVX_Vector vx, HVX_Vector vu, HVX_Vector vv) {
    HVX_COUNT(VX);
    HVX_FOR(i, 32) {
        const float odd = hvx_sf(hvx_hf_to_sf(vu.uh[2 * i + 1])) * hvx_sf(hvx_hf_to_sf(vv.uh[2 * i + 1]));
        const float even = hvx_sf(hvx_hf_to_sf(vu.uh[2 * i])) * hvx_sf(hvx_hf_to_sf(vv.uh[2 * i]));
        vx.uw[i] = hvx_sf_canon(hvx_sf(hvx_sf_canon(odd + even)) + vx.sf[i]);
    }
    return vx;
}

/* --- min and max --- */

/* vmax/vmin with the qfloat NaN order: a +NaN operand wins a max (a -NaN a min) and is returned as is. */
HVX_INLINE uint32_t hvx_qf_minmax(uint32_t a, uint32_t b, int a_nan, int b_nan, uint32_t sbit, int max) {
    const int a_pos_nan = a_nan && !(a & sbit), a_neg_nan = a_nan && (a & sbit);
    const int b_pos_nan = b_nan && !(b & sbit), b_neg_nan = b_nan && (b & sbit);
    if (a_pos_nan || b_neg_nan) {
        return max ? a : b;
    }
    if (b_pos_nan || a_neg_nan) {
        return max ? b : a;
    }
    return 0xFFFFFFFFu; /* no NaN: the caller compares */
}
HVX_INLINE uint32_t hvx_sf_vmax(uint32_t a, uint32_t b, int max) {
    const uint32_t n = hvx_qf_minmax(a, b, hvx_sf_isnan(a), hvx_sf_isnan(b), 0x80000000u, max);
    return n != 0xFFFFFFFFu ? n : hvx_sf_bits(hvx_fminmax(hvx_sf(a), hvx_sf(b), max));
}
HVX_INLINE uint16_t hvx_hf_vmax(uint16_t a, uint16_t b, int max) {
    const uint32_t n = hvx_qf_minmax(a, b, hvx_hf_isnan(a), hvx_hf_isnan(b), 0x8000u, max);
    if (n != 0xFFFFFFFFu) {
        return (uint16_t) n;
    }
    return hvx_sf_to_hf(hvx_sf_bits(hvx_fminmax(hvx_sf(hvx_hf_to_sf(a)), hvx_sf(hvx_hf_to_sf(b)), max)));
}
#if HVX_SIMD
/* sf max/min of a chunk without NaNs: MAXPS/MINPS, and for equal values (+0 vs -0) AND/OR of the bits */
HVX_INLINE hvx_simd_t hvx_s_sf_minmax(hvx_simd_t a, hvx_simd_t b, int max) {
    const hvx_simd_t eq = hvx_s_cmpeqf(a, b);
    return hvx_s_blend8(eq, max ? hvx_s_and(a, b) : hvx_s_or(a, b), max ? hvx_s_maxf(a, b) : hvx_s_minf(a, b));
}
#endif
/* Vd.sf = vmax(Vu.sf, Vv.sf) and vmin. CVI_VA. */
HVX_INLINE HVX_Vector hvx_vsf_minmax(HVX_Vector vu, HVX_Vector vv, int max) {
    HVX_Vector r;
#if HVX_SIMD
    const hvx_simd_t nan = hvx_s_or(hvx_s_or(hvx_s_isnan_f32(vu.s[0]), hvx_s_isnan_f32(vu.s[1])),
                                    hvx_s_or(hvx_s_isnan_f32(vu.s[2]), hvx_s_isnan_f32(vu.s[3])));
    const hvx_simd_t nan_v = hvx_s_or(hvx_s_or(hvx_s_isnan_f32(vv.s[0]), hvx_s_isnan_f32(vv.s[1])),
                                      hvx_s_or(hvx_s_isnan_f32(vv.s[2]), hvx_s_isnan_f32(vv.s[3])));
    if (hvx_s_testz(hvx_s_or(nan, nan_v))) {
        HVX_SIMD_EACH(r.s[k] = hvx_s_sf_minmax(vu.s[k], vv.s[k], max));
        return r;
    }
#endif
    HVX_FOR(i, 32) r.uw[i] = hvx_sf_vmax(vu.uw[i], vv.uw[i], max);
    return r;
}
HVX_INLINE HVX_Vector Q6_Vsf_vmax_VsfVsf(HVX_Vector vu, HVX_Vector vv) {
    HVX_COUNT(VA);
    return hvx_vsf_minmax(vu, vv, 1);
}
HVX_INLINE HVX_Vector Q6_Vsf_vmin_VsfVsf(HVX_Vector vu, HVX_Vector vv) {
    HVX_COUNT(VA);
    return hvx_vsf_minmax(vu, vv, 0);
}
/* Vd.hf = vmax(Vu.hf, Vv.hf) and vmin. CVI_VA. */
HVX_INLINE HVX_Vector Q6_Vhf_vmax_VhfVhf(HVX_Vector vu, HVX_Vector vv) {
    HVX_COUNT(VA);
    HVX_Vector r;
    HVX_FOR(i, 64) r.uh[i] = hvx_hf_vmax(vu.uh[i], vv.uh[i], 1);
    return r;
}
HVX_INLINE HVX_Vector Q6_Vhf_vmin_VhfVhf(HVX_Vector vu, HVX_Vector vv) {
    HVX_COUNT(VA);
    HVX_Vector r;
    HVX_FOR(i, 64) r.uh[i] = hvx_hf_vmax(vu.uh[i], vv.uh[i], 0);
    return r;
}
/* Vd.sf = vfmax/vfmin(Vu.sf, Vv.sf): IEEE, a NaN operand gives the canonical NaN. CVI_VX_LATE. */
HVX_INLINE HVX_Vector Q6_Vsf_vfmax_VsfVsf(HVX_Vector vu, HVX_Vector vv) {
    HVX_COUNT(VX);
    HVX_Vector r;
    HVX_FOR(i, 32) {
        r.uw[i] = hvx_sf_isnan(vu.uw[i]) || hvx_sf_isnan(vv.uw[i]) ? HVX_SF_NAN
                                                                   : hvx_sf_bits(hvx_fminmax(vu.sf[i], vv.sf[i], 1));
    }
    return r;
}
HVX_INLINE HVX_Vector Q6_Vsf_vfmin_VsfVsf(HVX_Vector vu, HVX_Vector vv) {
    HVX_COUNT(VX);
    HVX_Vector r;
    HVX_FOR(i, 32) {
        r.uw[i] = hvx_sf_isnan(vu.uw[i]) || hvx_sf_isnan(vv.uw[i]) ? HVX_SF_NAN
                                                                   : hvx_sf_bits(hvx_fminmax(vu.sf[i], vv.sf[i], 0));
    }
    return r;
}
HVX_INLINE HVX_Vector Q6_Vhf_vfmax_VhfVhf(HVX_Vector vu, HVX_Vector vv) {
    HVX_COUNT(VX);
    HVX_Vector r;
    HVX_FOR(i, 64) {
        r.uh[i] = hvx_hf_isnan(vu.uh[i]) || hvx_hf_isnan(vv.uh[i]) ? HVX_HF_NAN : hvx_hf_vmax(vu.uh[i], vv.uh[i], 1);
    }
    return r;
}
HVX_INLINE HVX_Vector Q6_Vhf_vfmin_VhfVhf(HVX_Vector vu, HVX_Vector vv) {
    HVX_COUNT(VX);
    HVX_Vector r;
    HVX_FOR(i, 64) {
        r.uh[i] = hvx_hf_isnan(vu.uh[i]) || hvx_hf_isnan(vv.uh[i]) ? HVX_HF_NAN : hvx_hf_vmax(vu.uh[i], vv.uh[i], 0);
    }
    return r;
}

/* --- sign and moves: bit operations, NaN payloads kept. CVI_VX_LATE --- */
HVX_INLINE HVX_Vector Q6_Vsf_vabs_Vsf(HVX_Vector vu) {
    HVX_COUNT(VX);
    HVX_Vector r;
    HVX_SIMD_OR_LANES(r.s[k] = hvx_s_and(vu.s[k], hvx_s_set1_32(0x7FFFFFFF)),
                      HVX_FOR(i, 32) r.uw[i] = vu.uw[i] & 0x7FFFFFFFu);
    return r;
}
HVX_INLINE HVX_Vector Q6_Vhf_vabs_Vhf(HVX_Vector vu) {
    HVX_COUNT(VX);
    HVX_Vector r;
    HVX_SIMD_OR_LANES(r.s[k] = hvx_s_and(vu.s[k], hvx_s_set1_16(0x7FFF)), HVX_FOR(i, 64) r.uh[i] = vu.uh[i] & 0x7FFFu);
    return r;
}
HVX_INLINE HVX_Vector Q6_Vsf_vfneg_Vsf(HVX_Vector vu) {
    HVX_COUNT(VX);
    HVX_Vector r;
    HVX_SIMD_OR_LANES(r.s[k] = hvx_s_xor(vu.s[k], hvx_s_set1_32(INT32_MIN)),
                      HVX_FOR(i, 32) r.uw[i] = vu.uw[i] ^ 0x80000000u);
    return r;
}
HVX_INLINE HVX_Vector Q6_Vhf_vfneg_Vhf(HVX_Vector vu) {
    HVX_COUNT(VX);
    HVX_Vector r;
    HVX_SIMD_OR_LANES(r.s[k] = hvx_s_xor(vu.s[k], hvx_s_set1_16(-32768)), HVX_FOR(i, 64) r.uh[i] = vu.uh[i] ^ 0x8000u);
    return r;
}
/* Vd.w = vfmv(Vu.w): a copy through the float pipe. */
HVX_INLINE HVX_Vector Q6_Vw_vfmv_Vw(HVX_Vector vu) {
    HVX_COUNT(VX);
    return vu;
}

/* --- compares: Qd = vcmp.gt(Vu.sf, Vv.sf) (all 4 bits of a word), hf (2 bits), and the &=, |=, ^= forms.
 * CVI_VA --- */
HVX_INLINE HVX_VectorPred hvx_cmp_gt_sf(HVX_Vector vu, HVX_Vector vv) {
    HVX_VectorPred q;
    HVX_FOR(i, 32) HVX_FOR(j, 4) q.q[4 * i + j] = hvx_qmask(hvx_sf_gt(vu.uw[i], vv.uw[i]));
    return q;
}
HVX_INLINE HVX_VectorPred hvx_cmp_gt_hf(HVX_Vector vu, HVX_Vector vv) {
    HVX_VectorPred q;
    HVX_FOR(i, 64) HVX_FOR(j, 2) q.q[2 * i + j] = hvx_qmask(hvx_hf_gt(vu.uh[i], vv.uh[i]));
    return q;
}
#define HVX_DEF_FCMP(T)                                                                                       \
    HVX_INLINE HVX_VectorPred Q6_Q_vcmp_gt_V##T##V##T(HVX_Vector vu, HVX_Vector vv) {                         \
        HVX_COUNT(VA);                                                                                        \
        return hvx_cmp_gt_##T(vu, vv);                                                                        \
    }                                                                                                         \
    HVX_INLINE HVX_VectorPred Q6_Q_vcmp_gtand_QV##T##V##T(HVX_VectorPred qx, HVX_Vector vu, HVX_Vector vv) {  \
        HVX_COUNT(VA);                                                                                        \
        HVX_VectorPred q = hvx_cmp_gt_##T(vu, vv);                                                            \
        HVX_FOR(i, 128) q.q[i] &= qx.q[i];                                                                    \
        return q;                                                                                             \
    }                                                                                                         \
    HVX_INLINE HVX_VectorPred Q6_Q_vcmp_gtor_QV##T##V##T(HVX_VectorPred qx, HVX_Vector vu, HVX_Vector vv) {   \
        HVX_COUNT(VA);                                                                                        \
        HVX_VectorPred q = hvx_cmp_gt_##T(vu, vv);                                                            \
        HVX_FOR(i, 128) q.q[i] |= qx.q[i];                                                                    \
        return q;                                                                                             \
    }                                                                                                         \
    HVX_INLINE HVX_VectorPred Q6_Q_vcmp_gtxacc_QV##T##V##T(HVX_VectorPred qx, HVX_Vector vu, HVX_Vector vv) { \
        HVX_COUNT(VA);                                                                                        \
        HVX_VectorPred q = hvx_cmp_gt_##T(vu, vv);                                                            \
        HVX_FOR(i, 128) q.q[i] ^= qx.q[i];                                                                    \
        return q;                                                                                             \
    }
HVX_DEF_FCMP(sf)
HVX_DEF_FCMP(hf)

/* --- conversions (v68 vcvt) --- */

/* Vdd.sf = vcvt(Vu.hf): lo = even halves, hi = odd halves, exact. CVI_VX_DV. */
HVX_INLINE HVX_VectorPair Q6_Wsf_vcvt_Vhf(HVX_Vector vu) {
    HVX_COUNT(VX_DV);
    HVX_VectorPair r;
    HVX_SIMD_OR_LANES((r.v[0].s[k] = hvx_s_canon_sf(hvx_s_cvt_f16_f32_eo(vu.s[k], 0)),
                       r.v[1].s[k] = hvx_s_canon_sf(hvx_s_cvt_f16_f32_eo(vu.s[k], 1))),
                      HVX_FOR(j, 2) HVX_FOR(i, 32) r.v[j].uw[i] = hvx_hf_to_sf(vu.uh[2 * i + j]));
    return r;
}
/* Vd.hf = vcvt(Vu.sf, Vv.sf): half 2i = Vu.sf[i], half 2i+1 = Vv.sf[i], nearest even. CVI_VX. */
HVX_INLINE HVX_Vector Q6_Vhf_vcvt_VsfVsf(HVX_Vector vu, HVX_Vector vv) {
    HVX_COUNT(VX);
    HVX_Vector r;
    HVX_SIMD_OR_LANES(
        r.s[k] = hvx_s_canon_hf(hvx_s_cvt_f32_f16_zip(vu.s[k], vv.s[k])), HVX_FOR(i, 32) {
            r.uh[2 * i] = hvx_sf_to_hf(vu.uw[i]);
            r.uh[2 * i + 1] = hvx_sf_to_hf(vv.uw[i]);
        });
    return r;
}
/* Vd.hf = vcvt(Vu.h) and vcvt(Vu.uh): nearest even. CVI_VX. */
HVX_INLINE HVX_Vector Q6_Vhf_vcvt_Vh(HVX_Vector vu) {
    HVX_COUNT(VX);
    HVX_Vector r;
    HVX_FOR(i, 64) r.uh[i] = hvx_int_to_hf(vu.h[i]);
    return r;
}
HVX_INLINE HVX_Vector Q6_Vhf_vcvt_Vuh(HVX_Vector vu) {
    HVX_COUNT(VX);
    HVX_Vector r;
    HVX_FOR(i, 64) r.uh[i] = hvx_int_to_hf(vu.uh[i]);
    return r;
}
/* Vd.h = vcvt(Vu.hf), Vd.uh = vcvt(Vu.hf): nearest even, saturated, NaN -> maximum. CVI_VX. */
HVX_INLINE HVX_Vector Q6_Vh_vcvt_Vhf(HVX_Vector vu) {
    HVX_COUNT(VX);
    HVX_Vector r;
    HVX_FOR(i, 64) r.h[i] = (int16_t) hvx_hf_to_int(vu.uh[i], INT16_MIN, INT16_MAX, 0, INT16_MAX);
    return r;
}
HVX_INLINE HVX_Vector Q6_Vuh_vcvt_Vhf(HVX_Vector vu) {
    HVX_COUNT(VX);
    HVX_Vector r;
    HVX_FOR(i, 64) r.uh[i] = (uint16_t) hvx_hf_to_int(vu.uh[i], 0, UINT16_MAX, 0, UINT16_MAX);
    return r;
}
/* Vdd.hf = vcvt(Vu.b), vcvt(Vu.ub): bytes 4i, 4i+1 to lo halves 2i, 2i+1; 4i+2, 4i+3 to hi. CVI_VX_DV. */
HVX_INLINE HVX_VectorPair Q6_Whf_vcvt_Vb(HVX_Vector vu) {
    HVX_COUNT(VX_DV);
    HVX_VectorPair r;
    HVX_FOR(i, 32) HVX_FOR(j, 2) HVX_FOR(e, 2) r.v[j].uh[2 * i + e] = hvx_int_to_hf(vu.b[4 * i + 2 * j + e]);
    return r;
}
HVX_INLINE HVX_VectorPair Q6_Whf_vcvt_Vub(HVX_Vector vu) {
    HVX_COUNT(VX_DV);
    HVX_VectorPair r;
    HVX_FOR(i, 32) HVX_FOR(j, 2) HVX_FOR(e, 2) r.v[j].uh[2 * i + e] = hvx_int_to_hf(vu.ub[4 * i + 2 * j + e]);
    return r;
}
/* Vd.b = vcvt(Vu.hf, Vv.hf), Vd.ub: byte 4i+e = Vu.hf[2i+e], byte 4i+2+e = Vv.hf[2i+e]; nearest even,
 * saturated, NaN -> maximum. CVI_VX. */
HVX_INLINE HVX_Vector Q6_Vb_vcvt_VhfVhf(HVX_Vector vu, HVX_Vector vv) {
    HVX_COUNT(VX);
    HVX_Vector r;
    HVX_FOR(i, 32) HVX_FOR(e, 2) {
        r.b[4 * i + e] = (int8_t) hvx_hf_to_int(vu.uh[2 * i + e], INT8_MIN, INT8_MAX, 0, INT8_MAX);
        r.b[4 * i + 2 + e] = (int8_t) hvx_hf_to_int(vv.uh[2 * i + e], INT8_MIN, INT8_MAX, 0, INT8_MAX);
    }
    return r;
}
HVX_INLINE HVX_Vector Q6_Vub_vcvt_VhfVhf(HVX_Vector vu, HVX_Vector vv) {
    HVX_COUNT(VX);
    HVX_Vector r;
    HVX_FOR(i, 32) HVX_FOR(e, 2) {
        r.ub[4 * i + e] = (uint8_t) hvx_hf_to_int(vu.uh[2 * i + e], 0, UINT8_MAX, 0, UINT8_MAX);
        r.ub[4 * i + 2 + e] = (uint8_t) hvx_hf_to_int(vv.uh[2 * i + e], 0, UINT8_MAX, 0, UINT8_MAX);
    }
    return r;
}

#if VNPU_HVX_ARCH >= 73
/* --- v73 conversions (CVI_VS) --- */

/* Vd.sf = Vu.w: nearest even. */
HVX_INLINE HVX_Vector Q6_Vsf_equals_Vw(HVX_Vector vu) {
    HVX_COUNT(VS);
    HVX_Vector r;
    HVX_FOR(i, 32) r.sf[i] = (float) vu.w[i];
    return r;
}
/* Vd.w = Vu.sf: toward zero, saturated; a NaN gives the limit of its sign. */
HVX_INLINE HVX_Vector Q6_Vw_equals_Vsf(HVX_Vector vu) {
    HVX_COUNT(VS);
    HVX_Vector r;
    HVX_FOR(i, 32) r.w[i] = hvx_sf_to_w_trunc(vu.uw[i]);
    return r;
}
/* Vd.hf = Vu.h: nearest even. */
HVX_INLINE HVX_Vector Q6_Vhf_equals_Vh(HVX_Vector vu) {
    HVX_COUNT(VS);
    HVX_Vector r;
    HVX_FOR(i, 64) r.uh[i] = hvx_int_to_hf(vu.h[i]);
    return r;
}
/* Vd.h = Vu.hf: toward zero, saturated; a NaN gives the limit of its sign. */
HVX_INLINE HVX_Vector Q6_Vh_equals_Vhf(HVX_Vector vu) {
    HVX_COUNT(VS);
    HVX_Vector r;
    HVX_FOR(i, 64) {
        const uint16_t h = vu.uh[i];
        r.h[i] = (int16_t) hvx_hf_to_int(h, INT16_MIN, INT16_MAX, 1, (h & 0x8000u) ? INT16_MIN : INT16_MAX);
    }
    return r;
}
#endif

#endif /* VNPU_HVX_FLOAT_H */
