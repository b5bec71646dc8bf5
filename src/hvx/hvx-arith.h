/*
 * Host emulation of the HVX element-wise integer arithmetic: add and subtract (wrapping, saturating,
 * widening, mixed), average, absolute value and difference, min, max, saturate-and-pack.
 *
 * Semantics: QEMU target/hexagon/imported/mmvec/ext.idef (MMVEC_ADDWRAP, MMVEC_ADDU_SAT/ADDS_SAT,
 * MMVEC_AVGU/AVGS, vabs*, MMVEC_ABSDIFF, MMVEC_SORT, vaddubh, vaddhw, vsathub, vsatdw) and the fV*
 * macros of target/hexagon/mmvec/macros.h: saturation and averages are computed at twice the width.
 * Widening forms write even source elements to the lo vector and odd ones to the hi vector.
 */
#ifndef VNPU_HVX_ARITH_H
#define VNPU_HVX_ARITH_H

#include "hvx-types.h"

/* NAME(Vu, Vv) element-wise over N lanes of LANE: r.LANE[i] = EXPR (u, v: the source lanes). */
#define HVX_DEF_VV_LANES(NAME, CLS, LANE, N, EXPR)             \
    HVX_INLINE HVX_Vector NAME(HVX_Vector vu, HVX_Vector vv) { \
        HVX_COUNT(CLS);                                        \
        HVX_Vector r;                                          \
        HVX_FOR(i, N) {                                        \
            const int64_t u = vu.LANE[i], v = vv.LANE[i];      \
            r.LANE[i] = (EXPR);                                \
        }                                                      \
        return r;                                              \
    }

/* As HVX_DEF_VV_LANES, with a chunk primitive SIMD(u, v) giving the same bits in a SIMD build. */
#define HVX_DEF_VV(NAME, CLS, LANE, N, EXPR, SIMD)             \
    HVX_INLINE HVX_Vector NAME(HVX_Vector vu, HVX_Vector vv) { \
        HVX_COUNT(CLS);                                        \
        HVX_Vector r;                                          \
        HVX_SIMD_OR_LANES(                                     \
            r.s[k] = SIMD(vu.s[k], vv.s[k]), HVX_FOR(i, N) {   \
                const int64_t u = vu.LANE[i], v = vv.LANE[i];  \
                r.LANE[i] = (EXPR);                            \
            });                                                \
        return r;                                              \
    }

/* The pair form of an element-wise op: both halves, one CVI_VA_DV instruction. */
#define HVX_DEF_WW(NAME, LANE, N, EXPR)                                      \
    HVX_INLINE HVX_VectorPair NAME(HVX_VectorPair vuu, HVX_VectorPair vvv) { \
        HVX_COUNT(VA_DV);                                                    \
        HVX_VectorPair r;                                                    \
        HVX_FOR(j, 2) HVX_FOR(i, N) {                                        \
            const int64_t u = vuu.v[j].LANE[i], v = vvv.v[j].LANE[i];        \
            r.v[j].LANE[i] = (EXPR);                                         \
        }                                                                    \
        return r;                                                            \
    }

/* --- wrapping add and subtract: Vd.T = vadd(Vu.T, Vv.T), CVI_VA; pairs CVI_VA_DV --- */
HVX_DEF_VV(Q6_Vb_vadd_VbVb, VA, b, 128, u + v, hvx_s_add8)
HVX_DEF_VV(Q6_Vh_vadd_VhVh, VA, h, 64, u + v, hvx_s_add16)
HVX_DEF_VV(Q6_Vw_vadd_VwVw, VA, w, 32, u + v, hvx_s_add32)
HVX_DEF_VV(Q6_Vb_vsub_VbVb, VA, b, 128, u - v, hvx_s_sub8)
HVX_DEF_VV(Q6_Vh_vsub_VhVh, VA, h, 64, u - v, hvx_s_sub16)
HVX_DEF_VV(Q6_Vw_vsub_VwVw, VA, w, 32, u - v, hvx_s_sub32)
HVX_DEF_WW(Q6_Wb_vadd_WbWb, b, 128, u + v)
HVX_DEF_WW(Q6_Wh_vadd_WhWh, h, 64, u + v)
HVX_DEF_WW(Q6_Ww_vadd_WwWw, w, 32, u + v)
HVX_DEF_WW(Q6_Wb_vsub_WbWb, b, 128, u - v)
HVX_DEF_WW(Q6_Wh_vsub_WhWh, h, 64, u - v)
HVX_DEF_WW(Q6_Ww_vsub_WwWw, w, 32, u - v)

/* --- saturating add and subtract: Vd.T = vadd(Vu.T, Vv.T):sat, CVI_VA --- */
HVX_DEF_VV(Q6_Vb_vadd_VbVb_sat, VA, b, 128, hvx_sat_b(u + v), hvx_s_adds_i8)
HVX_DEF_VV(Q6_Vub_vadd_VubVub_sat, VA, ub, 128, hvx_sat_ub(u + v), hvx_s_adds_u8)
HVX_DEF_VV(Q6_Vh_vadd_VhVh_sat, VA, h, 64, hvx_sat_h(u + v), hvx_s_adds_i16)
HVX_DEF_VV(Q6_Vuh_vadd_VuhVuh_sat, VA, uh, 64, hvx_sat_uh(u + v), hvx_s_adds_u16)
HVX_DEF_VV_LANES(Q6_Vw_vadd_VwVw_sat, VA, w, 32, hvx_sat_w(u + v))
HVX_DEF_VV_LANES(Q6_Vuw_vadd_VuwVuw_sat, VA, uw, 32, hvx_sat_uw(u + v))
HVX_DEF_VV(Q6_Vb_vsub_VbVb_sat, VA, b, 128, hvx_sat_b(u - v), hvx_s_subs_i8)
HVX_DEF_VV(Q6_Vub_vsub_VubVub_sat, VA, ub, 128, hvx_sat_ub(u - v), hvx_s_subs_u8)
HVX_DEF_VV(Q6_Vh_vsub_VhVh_sat, VA, h, 64, hvx_sat_h(u - v), hvx_s_subs_i16)
HVX_DEF_VV(Q6_Vuh_vsub_VuhVuh_sat, VA, uh, 64, hvx_sat_uh(u - v), hvx_s_subs_u16)
HVX_DEF_VV_LANES(Q6_Vw_vsub_VwVw_sat, VA, w, 32, hvx_sat_w(u - v))
HVX_DEF_VV_LANES(Q6_Vuw_vsub_VuwVuw_sat, VA, uw, 32, hvx_sat_uw(u - v))
HVX_DEF_WW(Q6_Wh_vadd_WhWh_sat, h, 64, hvx_sat_h(u + v))
HVX_DEF_WW(Q6_Ww_vadd_WwWw_sat, w, 32, hvx_sat_w(u + v))
HVX_DEF_WW(Q6_Wh_vsub_WhWh_sat, h, 64, hvx_sat_h(u - v))
HVX_DEF_WW(Q6_Ww_vsub_WwWw_sat, w, 32, hvx_sat_w(u - v))

/* Vd.ub = vadd(Vu.ub, Vv.b):sat and vsub: unsigned byte plus signed byte, saturated to ub (v62). */
HVX_INLINE HVX_Vector Q6_Vub_vadd_VubVb_sat(HVX_Vector vu, HVX_Vector vv) {
    HVX_COUNT(VA);
    HVX_Vector r;
    HVX_FOR(i, 128) r.ub[i] = hvx_sat_ub((int) vu.ub[i] + vv.b[i]);
    return r;
}
HVX_INLINE HVX_Vector Q6_Vub_vsub_VubVb_sat(HVX_Vector vu, HVX_Vector vv) {
    HVX_COUNT(VA);
    HVX_Vector r;
    HVX_FOR(i, 128) r.ub[i] = hvx_sat_ub((int) vu.ub[i] - vv.b[i]);
    return r;
}

/* --- widening add and subtract: Vdd.h = vadd(Vu.ub, Vv.ub) etc., CVI_VX_DV ---
 * lo = even source elements, hi = odd ones. */
#define HVX_DEF_WIDEN(NAME, DST, SRC, N, OP)                        \
    HVX_INLINE HVX_VectorPair NAME(HVX_Vector vu, HVX_Vector vv) {  \
        HVX_COUNT(VX_DV);                                           \
        HVX_VectorPair r;                                           \
        HVX_FOR(i, N) {                                             \
            r.v[0].DST[i] = vu.SRC[2 * i] OP vv.SRC[2 * i];         \
            r.v[1].DST[i] = vu.SRC[2 * i + 1] OP vv.SRC[2 * i + 1]; \
        }                                                           \
        return r;                                                   \
    }
HVX_DEF_WIDEN(Q6_Wh_vadd_VubVub, h, ub, 64, +)
HVX_DEF_WIDEN(Q6_Wh_vsub_VubVub, h, ub, 64, -)
HVX_DEF_WIDEN(Q6_Ww_vadd_VhVh, w, h, 32, +)
HVX_DEF_WIDEN(Q6_Ww_vsub_VhVh, w, h, 32, -)
HVX_DEF_WIDEN(Q6_Ww_vadd_VuhVuh, w, uh, 32, +)
HVX_DEF_WIDEN(Q6_Ww_vsub_VuhVuh, w, uh, 32, -)

/* Vxx.w += vadd(Vu.h, Vv.h), Vxx.h += vadd(Vu.ub, Vv.ub), Vxx.w += vadd(Vu.uh, Vv.uh) (v62). CVI_VX_DV.
 * The accumulation wraps: it is done on the unsigned lanes UDST. */
#define HVX_DEF_WIDEN_ACC(NAME, UDST, SRC, N)                                          \
    HVX_INLINE HVX_VectorPair NAME(HVX_VectorPair vxx, HVX_Vector vu, HVX_Vector vv) { \
        HVX_COUNT(VX_DV);                                                              \
        HVX_FOR(i, N) {                                                                \
            vxx.v[0].UDST[i] += (uint32_t) (vu.SRC[2 * i] + vv.SRC[2 * i]);            \
            vxx.v[1].UDST[i] += (uint32_t) (vu.SRC[2 * i + 1] + vv.SRC[2 * i + 1]);    \
        }                                                                              \
        return vxx;                                                                    \
    }
HVX_DEF_WIDEN_ACC(Q6_Ww_vaddacc_WwVhVh, uw, h, 32)
HVX_DEF_WIDEN_ACC(Q6_Wh_vaddacc_WhVubVub, uh, ub, 64)
HVX_DEF_WIDEN_ACC(Q6_Ww_vaddacc_WwVuhVuh, uw, uh, 32)

/* --- averages: Vd = vavg(Vu, Vv) = (u + v) >> 1, :rnd adds 1 first; vnavg = (u - v) >> 1. CVI_VA --- */
HVX_DEF_VV_LANES(Q6_Vb_vavg_VbVb, VA, b, 128, (u + v) >> 1)
HVX_DEF_VV_LANES(Q6_Vb_vavg_VbVb_rnd, VA, b, 128, (u + v + 1) >> 1)
HVX_DEF_VV_LANES(Q6_Vub_vavg_VubVub, VA, ub, 128, (u + v) >> 1)
HVX_DEF_VV(Q6_Vub_vavg_VubVub_rnd, VA, ub, 128, (u + v + 1) >> 1, hvx_s_avgr_u8)
HVX_DEF_VV_LANES(Q6_Vh_vavg_VhVh, VA, h, 64, (u + v) >> 1)
HVX_DEF_VV_LANES(Q6_Vh_vavg_VhVh_rnd, VA, h, 64, (u + v + 1) >> 1)
HVX_DEF_VV_LANES(Q6_Vuh_vavg_VuhVuh, VA, uh, 64, (u + v) >> 1)
HVX_DEF_VV(Q6_Vuh_vavg_VuhVuh_rnd, VA, uh, 64, (u + v + 1) >> 1, hvx_s_avgr_u16)
HVX_DEF_VV_LANES(Q6_Vw_vavg_VwVw, VA, w, 32, (u + v) >> 1)
HVX_DEF_VV_LANES(Q6_Vw_vavg_VwVw_rnd, VA, w, 32, (u + v + 1) >> 1)
HVX_DEF_VV_LANES(Q6_Vuw_vavg_VuwVuw, VA, uw, 32, (u + v) >> 1)
HVX_DEF_VV_LANES(Q6_Vuw_vavg_VuwVuw_rnd, VA, uw, 32, (u + v + 1) >> 1)
HVX_DEF_VV_LANES(Q6_Vb_vnavg_VbVb, VA, b, 128, (u - v) >> 1)
HVX_DEF_VV_LANES(Q6_Vh_vnavg_VhVh, VA, h, 64, (u - v) >> 1)
HVX_DEF_VV_LANES(Q6_Vw_vnavg_VwVw, VA, w, 32, (u - v) >> 1)

/* Vd.b = vnavg(Vu.ub, Vv.ub): (u - v) >> 1 of unsigned bytes, as a signed byte. CVI_VA. */
HVX_INLINE HVX_Vector Q6_Vb_vnavg_VubVub(HVX_Vector vu, HVX_Vector vv) {
    HVX_COUNT(VA);
    HVX_Vector r;
    HVX_FOR(i, 128) r.b[i] = (int8_t) (((int) vu.ub[i] - vv.ub[i]) >> 1);
    return r;
}

/* --- absolute values: Vd.T = vabs(Vu.T) wraps (vabs(min) = min), :sat saturates. CVI_VA --- */
#define HVX_DEF_V(NAME, CLS, LANE, N, EXPR, SIMD) \
    HVX_INLINE HVX_Vector NAME(HVX_Vector vu) {   \
        HVX_COUNT(CLS);                           \
        HVX_Vector r;                             \
        HVX_SIMD_OR_LANES(                        \
            r.s[k] = SIMD, HVX_FOR(i, N) {        \
                const int64_t u = vu.LANE[i];     \
                r.LANE[i] = (EXPR);               \
            });                                   \
        return r;                                 \
    }
HVX_DEF_V(Q6_Vb_vabs_Vb, VA, b, 128, u < 0 ? -u : u, hvx_s_abs8(vu.s[k]))
HVX_DEF_V(Q6_Vb_vabs_Vb_sat, VA, b, 128, hvx_sat_b(u < 0 ? -u : u),
          hvx_s_min_u8(hvx_s_abs8(vu.s[k]), hvx_s_set1_8(127)))
HVX_DEF_V(Q6_Vh_vabs_Vh, VA, h, 64, u < 0 ? -u : u, hvx_s_abs16(vu.s[k]))
HVX_DEF_V(Q6_Vh_vabs_Vh_sat, VA, h, 64, hvx_sat_h(u < 0 ? -u : u),
          hvx_s_min_u16(hvx_s_abs16(vu.s[k]), hvx_s_set1_16(0x7fff)))
HVX_DEF_V(Q6_Vw_vabs_Vw, VA, w, 32, u < 0 ? -u : u, hvx_s_abs32(vu.s[k]))
HVX_DEF_V(Q6_Vw_vabs_Vw_sat, VA, w, 32, hvx_sat_w(u < 0 ? -u : u),
          hvx_s_xor(hvx_s_abs32(vu.s[k]), hvx_s_sra32(hvx_s_abs32(vu.s[k]), 31)))

/* --- absolute difference: Vd.U = vabsdiff(Vu.T, Vv.T), result unsigned. CVI_VX --- */
HVX_DEF_VV_LANES(Q6_Vub_vabsdiff_VubVub, VX, ub, 128, u > v ? u - v : v - u)
HVX_DEF_VV_LANES(Q6_Vuh_vabsdiff_VuhVuh, VX, uh, 64, u > v ? u - v : v - u)

/* Vd.uh = vabsdiff(Vu.h, Vv.h); Vd.uw = vabsdiff(Vu.w, Vv.w). CVI_VX. */
HVX_INLINE HVX_Vector Q6_Vuh_vabsdiff_VhVh(HVX_Vector vu, HVX_Vector vv) {
    HVX_COUNT(VX);
    HVX_Vector r;
    HVX_SIMD_OR_LANES(r.s[k] = hvx_s_sub16(hvx_s_max_i16(vu.s[k], vv.s[k]), hvx_s_min_i16(vu.s[k], vv.s[k])),
                      HVX_FOR(i, 64) r.uh[i] = (uint16_t) (vu.h[i] > vv.h[i] ? vu.h[i] - vv.h[i] : vv.h[i] - vu.h[i]));
    return r;
}
HVX_INLINE HVX_Vector Q6_Vuw_vabsdiff_VwVw(HVX_Vector vu, HVX_Vector vv) {
    HVX_COUNT(VX);
    HVX_Vector r;
    HVX_SIMD_OR_LANES(r.s[k] = hvx_s_sub32(hvx_s_max_i32(vu.s[k], vv.s[k]), hvx_s_min_i32(vu.s[k], vv.s[k])),
                      HVX_FOR(i, 32) r.uw[i] =
                          (uint32_t) (vu.w[i] > vv.w[i] ? (int64_t) vu.w[i] - vv.w[i] : (int64_t) vv.w[i] - vu.w[i]));
    return r;
}

/* --- min and max: Vd.T = vmax(Vu.T, Vv.T). CVI_VA --- */
HVX_DEF_VV(Q6_Vb_vmax_VbVb, VA, b, 128, u > v ? u : v, hvx_s_max_i8)
HVX_DEF_VV(Q6_Vub_vmax_VubVub, VA, ub, 128, u > v ? u : v, hvx_s_max_u8)
HVX_DEF_VV(Q6_Vh_vmax_VhVh, VA, h, 64, u > v ? u : v, hvx_s_max_i16)
HVX_DEF_VV(Q6_Vuh_vmax_VuhVuh, VA, uh, 64, u > v ? u : v, hvx_s_max_u16)
HVX_DEF_VV(Q6_Vw_vmax_VwVw, VA, w, 32, u > v ? u : v, hvx_s_max_i32)
HVX_DEF_VV(Q6_Vb_vmin_VbVb, VA, b, 128, u < v ? u : v, hvx_s_min_i8)
HVX_DEF_VV(Q6_Vub_vmin_VubVub, VA, ub, 128, u < v ? u : v, hvx_s_min_u8)
HVX_DEF_VV(Q6_Vh_vmin_VhVh, VA, h, 64, u < v ? u : v, hvx_s_min_i16)
HVX_DEF_VV(Q6_Vuh_vmin_VuhVuh, VA, uh, 64, u < v ? u : v, hvx_s_min_u16)
HVX_DEF_VV(Q6_Vw_vmin_VwVw, VA, w, 32, u < v ? u : v, hvx_s_min_i32)

/* --- saturate and interleave: Vd.ub = vsat(Vu.h, Vv.h): byte 2i = sat(Vv.h[i]), byte 2i+1 = sat(Vu.h[i]).
 * CVI_VA --- */
HVX_INLINE HVX_Vector Q6_Vub_vsat_VhVh(HVX_Vector vu, HVX_Vector vv) {
    HVX_COUNT(VA);
    HVX_Vector r;
    HVX_FOR(i, 64) {
        r.ub[2 * i] = hvx_sat_ub(vv.h[i]);
        r.ub[2 * i + 1] = hvx_sat_ub(vu.h[i]);
    }
    return r;
}
/* Vd.h = vsat(Vu.w, Vv.w): half 2i = sat(Vv.w[i]), half 2i+1 = sat(Vu.w[i]). CVI_VA. */
HVX_INLINE HVX_Vector Q6_Vh_vsat_VwVw(HVX_Vector vu, HVX_Vector vv) {
    HVX_COUNT(VA);
    HVX_Vector r;
    HVX_FOR(i, 32) {
        r.h[2 * i] = hvx_sat_h(vv.w[i]);
        r.h[2 * i + 1] = hvx_sat_h(vu.w[i]);
    }
    return r;
}
/* Vd.uh = vsat(Vu.uw, Vv.uw) (v62). CVI_VA. */
HVX_INLINE HVX_Vector Q6_Vuh_vsat_VuwVuw(HVX_Vector vu, HVX_Vector vv) {
    HVX_COUNT(VA);
    HVX_Vector r;
    HVX_FOR(i, 32) {
        r.uh[2 * i] = hvx_sat_uh(vv.uw[i]);
        r.uh[2 * i + 1] = hvx_sat_uh(vu.uw[i]);
    }
    return r;
}
/* Vd.w = vsatdw(Vu.w, Vv.w): the 64-bit value Vu.w[i]:Vv.uw[i] saturated to a word (v66). CVI_VA. */
HVX_INLINE HVX_Vector Q6_Vw_vsatdw_VwVw(HVX_Vector vu, HVX_Vector vv) {
    HVX_COUNT(VA);
    HVX_Vector r;
    HVX_FOR(i, 32) r.w[i] = hvx_sat_w((int64_t) (((uint64_t) (int64_t) vu.w[i] << 32) | vv.uw[i]));
    return r;
}

#endif /* VNPU_HVX_ARITH_H */
