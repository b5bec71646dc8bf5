/*
 * Host emulation of the HVX shifts: by a scalar, by per-element amounts (both directions), with
 * accumulation, narrowing shifts with rounding and saturation (vasr into narrower types), vround, and
 * the bit counts (vcl0, vnormamt, vpopcount, vclb).
 *
 * Semantics: QEMU target/hexagon/imported/mmvec/ext.idef (V_SHIFT, vlsrb, vaslw_acc, vasrw_acc,
 * NARROWING_SHIFT, NARROWING_VECTOR_SHIFT, vroundwh.., vcl0w, vnormamtw, vpopcounth, vaddclbw) with
 * target/hexagon/macros.h fBIDIR_* and mmvec/macros.h fVROUND:
 *  - by a scalar: the amount is Rt & (width - 1);
 *  - by a vector: the amount is the element's low log2(width)+1 bits, sign-extended; a negative amount
 *    shifts the other way, and a shift by the full width gives 0 (or the sign for arithmetic right);
 *  - narrowing: element i of Vv gives the even narrow element, of Vu the odd one; :rnd adds
 *    1 << (amount - 1) first (64-bit, no overflow); :sat saturates to the narrow type.
 */
#ifndef VNPU_HVX_SHIFT_H
#define VNPU_HVX_SHIFT_H

#include "hvx-types.h"

/* --- by a scalar: Vd.T = vasl/vasr/vlsr(Vu.T, Rt). CVI_VS --- */
HVX_INLINE HVX_Vector Q6_Vh_vasl_VhR(HVX_Vector vu, Word32 rt) {
    HVX_COUNT(VS);
    HVX_Vector r;
    const int n = rt & 15;
    HVX_SIMD_OR_LANES(r.s[k] = hvx_s_sll16(vu.s[k], n), HVX_FOR(i, 64) r.uh[i] = (uint16_t) (vu.uh[i] << n));
    return r;
}
HVX_INLINE HVX_Vector Q6_Vw_vasl_VwR(HVX_Vector vu, Word32 rt) {
    HVX_COUNT(VS);
    HVX_Vector r;
    const int n = rt & 31;
    HVX_SIMD_OR_LANES(r.s[k] = hvx_s_sll32(vu.s[k], n), HVX_FOR(i, 32) r.uw[i] = vu.uw[i] << n);
    return r;
}
HVX_INLINE HVX_Vector Q6_Vh_vasr_VhR(HVX_Vector vu, Word32 rt) {
    HVX_COUNT(VS);
    HVX_Vector r;
    const int n = rt & 15;
    HVX_SIMD_OR_LANES(r.s[k] = hvx_s_sra16(vu.s[k], n), HVX_FOR(i, 64) r.h[i] = (int16_t) (vu.h[i] >> n));
    return r;
}
HVX_INLINE HVX_Vector Q6_Vw_vasr_VwR(HVX_Vector vu, Word32 rt) {
    HVX_COUNT(VS);
    HVX_Vector r;
    const int n = rt & 31;
    HVX_SIMD_OR_LANES(r.s[k] = hvx_s_sra32(vu.s[k], n), HVX_FOR(i, 32) r.w[i] = vu.w[i] >> n);
    return r;
}
HVX_INLINE HVX_Vector Q6_Vuh_vlsr_VuhR(HVX_Vector vu, Word32 rt) {
    HVX_COUNT(VS);
    HVX_Vector r;
    const int n = rt & 15;
    HVX_SIMD_OR_LANES(r.s[k] = hvx_s_srl16(vu.s[k], n), HVX_FOR(i, 64) r.uh[i] = (uint16_t) (vu.uh[i] >> n));
    return r;
}
HVX_INLINE HVX_Vector Q6_Vuw_vlsr_VuwR(HVX_Vector vu, Word32 rt) {
    HVX_COUNT(VS);
    HVX_Vector r;
    const int n = rt & 31;
    HVX_SIMD_OR_LANES(r.s[k] = hvx_s_srl32(vu.s[k], n), HVX_FOR(i, 32) r.uw[i] = vu.uw[i] >> n);
    return r;
}
/* Vd.ub = vlsr(Vu.ub, Rt) (v62): bytes, amount Rt & 7. */
HVX_INLINE HVX_Vector Q6_Vub_vlsr_VubR(HVX_Vector vu, Word32 rt) {
    HVX_COUNT(VS);
    HVX_Vector r;
    const int n = rt & 7;
    HVX_SIMD_OR_LANES(r.s[k] = hvx_s_and(hvx_s_srl16(vu.s[k], n), hvx_s_set1_8(0xFF >> n)),
                      HVX_FOR(i, 128) r.ub[i] = (uint8_t) (vu.ub[i] >> n));
    return r;
}

/* Vx.w += vasl(Vu.w, Rt); Vx.w += vasr(Vu.w, Rt); and the halfword forms (v65). CVI_VS. */
HVX_INLINE HVX_Vector Q6_Vw_vaslacc_VwVwR(HVX_Vector vx, HVX_Vector vu, Word32 rt) {
    HVX_COUNT(VS);
    HVX_FOR(i, 32) vx.uw[i] += vu.uw[i] << (rt & 31);
    return vx;
}
HVX_INLINE HVX_Vector Q6_Vw_vasracc_VwVwR(HVX_Vector vx, HVX_Vector vu, Word32 rt) {
    HVX_COUNT(VS);
    HVX_FOR(i, 32) vx.uw[i] += (uint32_t) (vu.w[i] >> (rt & 31));
    return vx;
}
HVX_INLINE HVX_Vector Q6_Vh_vaslacc_VhVhR(HVX_Vector vx, HVX_Vector vu, Word32 rt) {
    HVX_COUNT(VS);
    HVX_FOR(i, 64) vx.uh[i] = (uint16_t) (vx.uh[i] + (vu.uh[i] << (rt & 15)));
    return vx;
}
HVX_INLINE HVX_Vector Q6_Vh_vasracc_VhVhR(HVX_Vector vx, HVX_Vector vu, Word32 rt) {
    HVX_COUNT(VS);
    HVX_FOR(i, 64) vx.uh[i] = (uint16_t) (vx.uh[i] + (vu.h[i] >> (rt & 15)));
    return vx;
}

/* --- by per-element amounts: the low 6 (words) or 5 (halves) bits, sign-extended. CVI_VS --- */
HVX_INLINE int hvx_shamt(int32_t v, int bits) {
    const int m = v & ((1 << bits) - 1);
    return m >= (1 << (bits - 1)) ? m - (1 << bits) : m;
}
/* x shifted left by n (0..width), in 64 bits: a shift by the full width gives 0 after truncation */
HVX_INLINE int64_t hvx_shl(int64_t x, int n) {
    return (int64_t) ((uint64_t) x << n);
}
HVX_INLINE HVX_Vector Q6_Vw_vasr_VwVw(HVX_Vector vu, HVX_Vector vv) {
    HVX_COUNT(VS);
    HVX_Vector r;
    HVX_FOR(i, 32) {
        const int n = hvx_shamt(vv.w[i], 6);
        r.w[i] = (int32_t) (n < 0 ? hvx_shl(vu.w[i], -n) : vu.w[i] >> n);
    }
    return r;
}
HVX_INLINE HVX_Vector Q6_Vw_vasl_VwVw(HVX_Vector vu, HVX_Vector vv) {
    HVX_COUNT(VS);
    HVX_Vector r;
    HVX_FOR(i, 32) {
        const int n = hvx_shamt(vv.w[i], 6);
        r.w[i] = (int32_t) (n < 0 ? (int64_t) vu.w[i] >> -n : hvx_shl(vu.w[i], n));
    }
    return r;
}
HVX_INLINE HVX_Vector Q6_Vw_vlsr_VwVw(HVX_Vector vu, HVX_Vector vv) {
    HVX_COUNT(VS);
    HVX_Vector r;
    HVX_FOR(i, 32) {
        const int n = hvx_shamt(vv.w[i], 6);
        r.uw[i] = (uint32_t) (n < 0 ? hvx_shl(vu.uw[i], -n) : (int64_t) vu.uw[i] >> n);
    }
    return r;
}
HVX_INLINE HVX_Vector Q6_Vh_vasr_VhVh(HVX_Vector vu, HVX_Vector vv) {
    HVX_COUNT(VS);
    HVX_Vector r;
    HVX_FOR(i, 64) {
        const int n = hvx_shamt(vv.h[i], 5);
        r.h[i] = (int16_t) (n < 0 ? hvx_shl(vu.h[i], -n) : vu.h[i] >> n);
    }
    return r;
}
HVX_INLINE HVX_Vector Q6_Vh_vasl_VhVh(HVX_Vector vu, HVX_Vector vv) {
    HVX_COUNT(VS);
    HVX_Vector r;
    HVX_FOR(i, 64) {
        const int n = hvx_shamt(vv.h[i], 5);
        r.h[i] = (int16_t) (n < 0 ? vu.h[i] >> -n : hvx_shl(vu.h[i], n));
    }
    return r;
}
HVX_INLINE HVX_Vector Q6_Vh_vlsr_VhVh(HVX_Vector vu, HVX_Vector vv) {
    HVX_COUNT(VS);
    HVX_Vector r;
    HVX_FOR(i, 64) {
        const int n = hvx_shamt(vv.h[i], 5);
        r.uh[i] = (uint16_t) (n < 0 ? hvx_shl(vu.uh[i], -n) : vu.uh[i] >> n);
    }
    return r;
}
/* Vd.uw = vrotr(Vu.uw, Vv.uw) (v66): rotate right by Vv & 31. */
HVX_INLINE HVX_Vector Q6_Vuw_vrotr_VuwVuw(HVX_Vector vu, HVX_Vector vv) {
    HVX_COUNT(VS);
    HVX_Vector r;
    HVX_FOR(i, 32) {
        const int n = vv.uw[i] & 31;
        r.uw[i] = n ? (vu.uw[i] >> n) | (vu.uw[i] << (32 - n)) : vu.uw[i];
    }
    return r;
}

/* --- narrowing: Vd.N = vasr(Vu.W, Vv.W, Rt)[:rnd][:sat] --- */
HVX_INLINE int64_t hvx_rnd(int64_t x, int n) {
    return n > 0 ? x + ((int64_t) 1 << (n - 1)) : x;
}
#define HVX_DEF_NARROW(NAME, D, S, N, MASK, RND, SAT)                                   \
    HVX_INLINE HVX_Vector NAME(HVX_Vector vu, HVX_Vector vv, Word32 rt) {               \
        HVX_COUNT(VS);                                                                  \
        HVX_Vector r;                                                                   \
        const int n = rt & (MASK);                                                      \
        HVX_FOR(i, N) {                                                                 \
            r.D[2 * i] = SAT((RND ? hvx_rnd(vv.S[i], n) : (int64_t) vv.S[i]) >> n);     \
            r.D[2 * i + 1] = SAT((RND ? hvx_rnd(vu.S[i], n) : (int64_t) vu.S[i]) >> n); \
        }                                                                               \
        return r;                                                                       \
    }
#define HVX_NOSAT(x) (x)
HVX_DEF_NARROW(Q6_Vh_vasr_VwVwR, h, w, 32, 15, 0, HVX_NOSAT)
HVX_DEF_NARROW(Q6_Vh_vasr_VwVwR_sat, h, w, 32, 15, 0, hvx_sat_h)
HVX_DEF_NARROW(Q6_Vh_vasr_VwVwR_rnd_sat, h, w, 32, 15, 1, hvx_sat_h)
HVX_DEF_NARROW(Q6_Vuh_vasr_VwVwR_sat, uh, w, 32, 15, 0, hvx_sat_uh)
HVX_DEF_NARROW(Q6_Vuh_vasr_VwVwR_rnd_sat, uh, w, 32, 15, 1, hvx_sat_uh)
HVX_DEF_NARROW(Q6_Vuh_vasr_VuwVuwR_sat, uh, uw, 32, 15, 0, hvx_sat_uh)
HVX_DEF_NARROW(Q6_Vuh_vasr_VuwVuwR_rnd_sat, uh, uw, 32, 15, 1, hvx_sat_uh)
HVX_DEF_NARROW(Q6_Vb_vasr_VhVhR_sat, b, h, 64, 7, 0, hvx_sat_b)
HVX_DEF_NARROW(Q6_Vb_vasr_VhVhR_rnd_sat, b, h, 64, 7, 1, hvx_sat_b)
HVX_DEF_NARROW(Q6_Vub_vasr_VhVhR_sat, ub, h, 64, 7, 0, hvx_sat_ub)
HVX_DEF_NARROW(Q6_Vub_vasr_VhVhR_rnd_sat, ub, h, 64, 7, 1, hvx_sat_ub)
HVX_DEF_NARROW(Q6_Vub_vasr_VuhVuhR_sat, ub, uh, 64, 7, 0, hvx_sat_ub)
HVX_DEF_NARROW(Q6_Vub_vasr_VuhVuhR_rnd_sat, ub, uh, 64, 7, 1, hvx_sat_ub)

/* Vd.N = vasr(Vuu.W, Vv.N)[:rnd]:sat (v69): per-element amounts from the narrow elements of Vv:
 * element 2i (from Vuu lo) uses Vv's element 2i, element 2i+1 (from Vuu hi) uses element 2i+1. */
#define HVX_DEF_NARROW_V(NAME, D, S, N, MASK, RND, SAT)                                               \
    HVX_INLINE HVX_Vector NAME(HVX_VectorPair vuu, HVX_Vector vv) {                                   \
        HVX_COUNT(VS);                                                                                \
        HVX_Vector r;                                                                                 \
        HVX_FOR(i, N) {                                                                               \
            const int n0 = vv.D[2 * i] & (MASK), n1 = vv.D[2 * i + 1] & (MASK);                       \
            r.D[2 * i] = SAT((RND ? hvx_rnd(vuu.v[0].S[i], n0) : (int64_t) vuu.v[0].S[i]) >> n0);     \
            r.D[2 * i + 1] = SAT((RND ? hvx_rnd(vuu.v[1].S[i], n1) : (int64_t) vuu.v[1].S[i]) >> n1); \
        }                                                                                             \
        return r;                                                                                     \
    }
HVX_DEF_NARROW_V(Q6_Vub_vasr_WuhVub_sat, ub, uh, 64, 7, 0, hvx_sat_ub)
HVX_DEF_NARROW_V(Q6_Vub_vasr_WuhVub_rnd_sat, ub, uh, 64, 7, 1, hvx_sat_ub)
HVX_DEF_NARROW_V(Q6_Vuh_vasr_WwVuh_sat, uh, w, 32, 15, 0, hvx_sat_uh)
HVX_DEF_NARROW_V(Q6_Vuh_vasr_WwVuh_rnd_sat, uh, w, 32, 15, 1, hvx_sat_uh)

/* --- vround: Vd.N = vround(Vu.W, Vv.W):sat = sat((x + half of the dropped range) >> width/2). CVI_VS --- */
#define HVX_DEF_ROUND(NAME, D, S, N, HALF, SHIFT, SAT)                     \
    HVX_INLINE HVX_Vector NAME(HVX_Vector vu, HVX_Vector vv) {             \
        HVX_COUNT(VS);                                                     \
        HVX_Vector r;                                                      \
        HVX_FOR(i, N) {                                                    \
            r.D[2 * i] = SAT(((int64_t) vv.S[i] + (HALF)) >> (SHIFT));     \
            r.D[2 * i + 1] = SAT(((int64_t) vu.S[i] + (HALF)) >> (SHIFT)); \
        }                                                                  \
        return r;                                                          \
    }
HVX_DEF_ROUND(Q6_Vh_vround_VwVw_sat, h, w, 32, 0x8000, 16, hvx_sat_h)
HVX_DEF_ROUND(Q6_Vuh_vround_VwVw_sat, uh, w, 32, 0x8000, 16, hvx_sat_uh)
HVX_DEF_ROUND(Q6_Vuh_vround_VuwVuw_sat, uh, uw, 32, 0x8000, 16, hvx_sat_uh)
HVX_DEF_ROUND(Q6_Vb_vround_VhVh_sat, b, h, 64, 0x80, 8, hvx_sat_b)
HVX_DEF_ROUND(Q6_Vub_vround_VhVh_sat, ub, h, 64, 0x80, 8, hvx_sat_ub)
HVX_DEF_ROUND(Q6_Vub_vround_VuhVuh_sat, ub, uh, 64, 0x80, 8, hvx_sat_ub)

/* --- bit counts. CVI_VS --- */
HVX_INLINE int hvx_clz32(uint32_t x) {
    return x ? __builtin_clz(x) : 32;
}
/* Vd.uw = vcl0(Vu.uw): leading zeros (32 for 0). */
HVX_INLINE HVX_Vector Q6_Vuw_vcl0_Vuw(HVX_Vector vu) {
    HVX_COUNT(VS);
    HVX_Vector r;
    HVX_FOR(i, 32) r.uw[i] = (uint32_t) hvx_clz32(vu.uw[i]);
    return r;
}
/* Vd.uh = vcl0(Vu.uh): leading zeros of each halfword (16 for 0). */
HVX_INLINE HVX_Vector Q6_Vuh_vcl0_Vuh(HVX_Vector vu) {
    HVX_COUNT(VS);
    HVX_Vector r;
    HVX_FOR(i, 64) r.uh[i] = (uint16_t) (hvx_clz32(vu.uh[i]) - 16);
    return r;
}
/* leading bits equal to the sign bit, sign included: max(leading ones, leading zeros) */
HVX_INLINE int hvx_clb32(int32_t x) {
    return x < 0 ? hvx_clz32(~(uint32_t) x) : hvx_clz32((uint32_t) x);
}
/* Vd.w = vnormamt(Vu.w): shift that normalises: leading sign bits - 1 (31 for 0 and -1). */
HVX_INLINE HVX_Vector Q6_Vw_vnormamt_Vw(HVX_Vector vu) {
    HVX_COUNT(VS);
    HVX_Vector r;
    HVX_FOR(i, 32) r.w[i] = hvx_clb32(vu.w[i]) - 1;
    return r;
}
/* Vd.h = vnormamt(Vu.h): 15 for 0 and -1. */
HVX_INLINE HVX_Vector Q6_Vh_vnormamt_Vh(HVX_Vector vu) {
    HVX_COUNT(VS);
    HVX_Vector r;
    HVX_FOR(i, 64) r.h[i] = (int16_t) (hvx_clb32(vu.h[i]) - 16 - 1);
    return r;
}
/* Vd.w = vadd(vclb(Vu.w), Vv.w) and the halfword form (v62): leading sign bits plus Vv. */
HVX_INLINE HVX_Vector Q6_Vw_vadd_vclb_VwVw(HVX_Vector vu, HVX_Vector vv) {
    HVX_COUNT(VS);
    HVX_Vector r;
    HVX_FOR(i, 32) r.uw[i] = (uint32_t) hvx_clb32(vu.w[i]) + vv.uw[i];
    return r;
}
HVX_INLINE HVX_Vector Q6_Vh_vadd_vclb_VhVh(HVX_Vector vu, HVX_Vector vv) {
    HVX_COUNT(VS);
    HVX_Vector r;
    HVX_FOR(i, 64) r.uh[i] = (uint16_t) (hvx_clb32(vu.h[i]) - 16 + vv.uh[i]);
    return r;
}
/* Vd.h = vpopcount(Vu.h): set bits per halfword. */
HVX_INLINE HVX_Vector Q6_Vh_vpopcount_Vh(HVX_Vector vu) {
    HVX_COUNT(VS);
    HVX_Vector r;
    HVX_FOR(i, 64) r.uh[i] = (uint16_t) __builtin_popcount(vu.uh[i]);
    return r;
}

#endif /* VNPU_HVX_SHIFT_H */
