/*
 * Host emulation of the HVX permutes: shuffle and deal (one vector, a pair by Rt, even/odd), the Benes
 * networks vdelta/vrdelta, byte alignment (valign, vlalign, vror), pack and unpack, sign and zero
 * extension, predicate shuffles, and the table lookups vlut32/vlut16.
 *
 * Semantics: QEMU target/hexagon/imported/mmvec/ext.idef (vshuffb/h, vdealb/h, vdealb4w, V6_vshuffvdd,
 * V6_vdealvdd, vshuffeb.., vshufoe*, V6_vdelta, V6_vrdelta, VALIGNB, V6_vror, vpack*, vunpack*, vzb,
 * vsb, vzh, vsh, shuffeq*, vlutvvb*, vlutvwh*). The vlut forms take the matched table segment from
 * Rt & 7 (vlut32) or Rt & 15 (vlut16) and the byte/half of each table entry from bit 1 of Rt.
 */
#ifndef VNPU_HVX_PERMUTE_H
#define VNPU_HVX_PERMUTE_H

#include "hvx-types.h"

/* Bytes n .. n+127 (0 <= n <= 128) of the 256-byte concatenation lo:hi. */
HVX_INLINE HVX_Vector hvx_align_bytes(HVX_Vector lo, HVX_Vector hi, int n) {
    HVX_Vector r;
#if HVX_SIMD
    if (n == 128) {
        return hi;
    }
    const hvx_simd_t c[2 * HVX_SIMD_N] = {lo.s[0], lo.s[1], lo.s[2], lo.s[3], hi.s[0], hi.s[1], hi.s[2], hi.s[3]};
    const int q = n / HVX_SIMD_BYTES, rem = n % HVX_SIMD_BYTES;
    HVX_SIMD_EACH(r.s[k] = hvx_s_alignr(c[q + k + 1 < 2 * HVX_SIMD_N ? q + k + 1 : q + k], c[q + k], rem));
#else
    HVX_FOR(i, 128) r.ub[i] = i + n < 128 ? lo.ub[i + n] : hi.ub[i + n - 128];
#endif
    return r;
}

/* Vd = valign(Vu, Vv, Rt): byte i = Vv[i + n] when i + n < 128, else Vu[i + n - 128], n = Rt & 127. CVI_VP. */
HVX_INLINE HVX_Vector Q6_V_valign_VVR(HVX_Vector vu, HVX_Vector vv, Word32 rt) {
    HVX_COUNT(VP);
    return hvx_align_bytes(vv, vu, rt & 127);
}
/* Vd = vlalign(Vu, Vv, Rt): valign by 128 - (Rt & 127) (so Rt & 127 == 0 gives Vu). CVI_VP. */
HVX_INLINE HVX_Vector Q6_V_vlalign_VVR(HVX_Vector vu, HVX_Vector vv, Word32 rt) {
    HVX_COUNT(VP);
    return hvx_align_bytes(vv, vu, 128 - (rt & 127));
}
/* Vd = valign(Vu, Vv, #u3) and vlalign(Vu, Vv, #u3): the same with an immediate 0..7. CVI_VP. */
HVX_INLINE HVX_Vector Q6_V_valign_VVI(HVX_Vector vu, HVX_Vector vv, Word32 iu3) {
    HVX_COUNT(VP);
    return hvx_align_bytes(vv, vu, iu3 & 7);
}
HVX_INLINE HVX_Vector Q6_V_vlalign_VVI(HVX_Vector vu, HVX_Vector vv, Word32 iu3) {
    HVX_COUNT(VP);
    return hvx_align_bytes(vv, vu, 128 - (iu3 & 7));
}
/* Vd = vror(Vu, Rt): byte k = Vu[(k + Rt) & 127]. CVI_VP. */
HVX_INLINE HVX_Vector Q6_V_vror_VR(HVX_Vector vu, Word32 rt) {
    HVX_COUNT(VP);
    return hvx_align_bytes(vu, vu, rt & 127);
}

/* --- one-vector shuffle and deal. CVI_VP --- */

/* Vd.b = vshuff(Vu.b): byte 2i = Vu[i], byte 2i+1 = Vu[i + 64]. */
HVX_INLINE HVX_Vector Q6_Vb_vshuff_Vb(HVX_Vector vu) {
    HVX_COUNT(VP);
    HVX_Vector r;
#if HVX_SIMD
    HVX_SIMD_EACH(r.s[k] = (k & 1) ? hvx_s_zip_hi(vu.s[k / 2], vu.s[k / 2 + 2], 1)
                                   : hvx_s_zip_lo(vu.s[k / 2], vu.s[k / 2 + 2], 1));
#else
    HVX_FOR(i, 64) {
        r.ub[2 * i] = vu.ub[i];
        r.ub[2 * i + 1] = vu.ub[i + 64];
    }
#endif
    return r;
}
/* Vd.h = vshuff(Vu.h): half 2i = Vu.h[i], half 2i+1 = Vu.h[i + 32]. */
HVX_INLINE HVX_Vector Q6_Vh_vshuff_Vh(HVX_Vector vu) {
    HVX_COUNT(VP);
    HVX_Vector r;
#if HVX_SIMD
    HVX_SIMD_EACH(r.s[k] = (k & 1) ? hvx_s_zip_hi(vu.s[k / 2], vu.s[k / 2 + 2], 2)
                                   : hvx_s_zip_lo(vu.s[k / 2], vu.s[k / 2 + 2], 2));
#else
    HVX_FOR(i, 32) {
        r.uh[2 * i] = vu.uh[i];
        r.uh[2 * i + 1] = vu.uh[i + 32];
    }
#endif
    return r;
}
/* Vd.b = vdeal(Vu.b): byte i = Vu[2i], byte i + 64 = Vu[2i + 1]. */
HVX_INLINE HVX_Vector Q6_Vb_vdeal_Vb(HVX_Vector vu) {
    HVX_COUNT(VP);
    HVX_Vector r;
#if HVX_SIMD
    HVX_SIMD_EACH(r.s[k] = hvx_s_unzip(vu.s[2 * (k & 1)], vu.s[2 * (k & 1) + 1], 1, k >> 1));
#else
    HVX_FOR(i, 64) {
        r.ub[i] = vu.ub[2 * i];
        r.ub[i + 64] = vu.ub[2 * i + 1];
    }
#endif
    return r;
}
/* Vd.h = vdeal(Vu.h): half i = Vu.h[2i], half i + 32 = Vu.h[2i + 1]. */
HVX_INLINE HVX_Vector Q6_Vh_vdeal_Vh(HVX_Vector vu) {
    HVX_COUNT(VP);
    HVX_Vector r;
#if HVX_SIMD
    HVX_SIMD_EACH(r.s[k] = hvx_s_unzip(vu.s[2 * (k & 1)], vu.s[2 * (k & 1) + 1], 2, k >> 1));
#else
    HVX_FOR(i, 32) {
        r.uh[i] = vu.uh[2 * i];
        r.uh[i + 32] = vu.uh[2 * i + 1];
    }
#endif
    return r;
}
/* Vd.b = vdeale(Vu.b, Vv.b): bytes 0 and 2 of each word, Vv's then Vu's: d[i] = Vv.w[i] byte 0,
 * d[32+i] = Vv byte 2, d[64+i] = Vu byte 0, d[96+i] = Vu byte 2. */
HVX_INLINE HVX_Vector Q6_Vb_vdeale_VbVb(HVX_Vector vu, HVX_Vector vv) {
    HVX_COUNT(VP);
    HVX_Vector r;
    HVX_FOR(i, 32) {
        r.ub[i] = vv.ub[4 * i];
        r.ub[32 + i] = vv.ub[4 * i + 2];
        r.ub[64 + i] = vu.ub[4 * i];
        r.ub[96 + i] = vu.ub[4 * i + 2];
    }
    return r;
}

/* --- pair shuffle and deal by Rt: the 2x2 transposes of V6_vshuffvdd / V6_vdealvdd. CVI_VP_VS ---
 * Start with lo = Vv, hi = Vu; for each power of two s in Rt (s = 1..64, ascending for shuff,
 * descending for deal) swap hi[k] with lo[k + s] for every k without bit s. Rt = -e (e a power of two)
 * interleaves (shuff) or de-interleaves (deal) e-byte elements of Vv and Vu. */
HVX_INLINE HVX_VectorPair hvx_shuffdeal(HVX_Vector vu, HVX_Vector vv, Word32 rt, int deal) {
    HVX_VectorPair d = hvx_pair(vu, vv);
    for (int step = 0; step < 7; step++) {
        const int s = deal ? 64 >> step : 1 << step;
        if (rt & s) {
            HVX_FOR(k, 128) {
                if (!(k & s)) {
                    const uint8_t t = d.v[1].ub[k];
                    d.v[1].ub[k] = d.v[0].ub[k + s];
                    d.v[0].ub[k + s] = t;
                }
            }
        }
    }
    return d;
}
/* The element size e when Rt & 127 selects all steps from e up (Rt = -e, e in 1..8), else 0. */
HVX_INLINE int hvx_shuff_esize(Word32 rt) {
    const int m = rt & 127;
    return m == 127 ? 1 : m == 126 ? 2 : m == 124 ? 4 : m == 120 ? 8 : 0;
}
/* Vdd = vshuff(Vu, Vv, Rt). */
HVX_INLINE HVX_VectorPair Q6_W_vshuff_VVR(HVX_Vector vu, HVX_Vector vv, Word32 rt) {
    HVX_COUNT(VP_VS);
#if HVX_SIMD
    const int e = hvx_shuff_esize(rt);
    if (e) {
        HVX_VectorPair r;
        HVX_SIMD_EACH(r.v[0].s[k] = (k & 1) ? hvx_s_zip_hi(vv.s[k / 2], vu.s[k / 2], e)
                                            : hvx_s_zip_lo(vv.s[k / 2], vu.s[k / 2], e);
                      r.v[1].s[k] = (k & 1) ? hvx_s_zip_hi(vv.s[k / 2 + 2], vu.s[k / 2 + 2], e)
                                            : hvx_s_zip_lo(vv.s[k / 2 + 2], vu.s[k / 2 + 2], e));
        return r;
    }
#endif
    return hvx_shuffdeal(vu, vv, rt, 0);
}
/* Vdd = vdeal(Vu, Vv, Rt). */
HVX_INLINE HVX_VectorPair Q6_W_vdeal_VVR(HVX_Vector vu, HVX_Vector vv, Word32 rt) {
    HVX_COUNT(VP_VS);
#if HVX_SIMD
    const int e = hvx_shuff_esize(rt);
    if (e) {
        const hvx_simd_t c[2 * HVX_SIMD_N] = {vv.s[0], vv.s[1], vv.s[2], vv.s[3], vu.s[0], vu.s[1], vu.s[2], vu.s[3]};
        HVX_VectorPair r;
        HVX_SIMD_EACH(r.v[0].s[k] = hvx_s_unzip(c[2 * k], c[2 * k + 1], e, 0);
                      r.v[1].s[k] = hvx_s_unzip(c[2 * k], c[2 * k + 1], e, 1));
        return r;
    }
#endif
    return hvx_shuffdeal(vu, vv, rt, 1);
}

/* --- even/odd shuffles within halfwords and words --- */

/* Vd.b = vshuffe(Vu.b, Vv.b): byte 2i = Vv[2i], byte 2i+1 = Vu[2i]. CVI_VA. */
HVX_INLINE HVX_Vector Q6_Vb_vshuffe_VbVb(HVX_Vector vu, HVX_Vector vv) {
    HVX_COUNT(VA);
    HVX_Vector r;
    HVX_SIMD_OR_LANES(
        r.s[k] = hvx_s_or(hvx_s_and(vv.s[k], hvx_s_set1_16(0x00FF)), hvx_s_sll16(vu.s[k], 8)), HVX_FOR(i, 64) {
            r.ub[2 * i] = vv.ub[2 * i];
            r.ub[2 * i + 1] = vu.ub[2 * i];
        });
    return r;
}
/* Vd.b = vshuffo(Vu.b, Vv.b): byte 2i = Vv[2i+1], byte 2i+1 = Vu[2i+1]. CVI_VA. */
HVX_INLINE HVX_Vector Q6_Vb_vshuffo_VbVb(HVX_Vector vu, HVX_Vector vv) {
    HVX_COUNT(VA);
    HVX_Vector r;
    HVX_SIMD_OR_LANES(
        r.s[k] = hvx_s_or(hvx_s_srl16(vv.s[k], 8), hvx_s_and(vu.s[k], hvx_s_set1_16((int16_t) 0xFF00))),
        HVX_FOR(i, 64) {
            r.ub[2 * i] = vv.ub[2 * i + 1];
            r.ub[2 * i + 1] = vu.ub[2 * i + 1];
        });
    return r;
}
/* Vd.h = vshuffe(Vu.h, Vv.h): half 2i = Vv.h[2i], half 2i+1 = Vu.h[2i]. CVI_VA. */
HVX_INLINE HVX_Vector Q6_Vh_vshuffe_VhVh(HVX_Vector vu, HVX_Vector vv) {
    HVX_COUNT(VA);
    HVX_Vector r;
    HVX_SIMD_OR_LANES(
        r.s[k] = hvx_s_or(hvx_s_and(vv.s[k], hvx_s_set1_32(0xFFFF)), hvx_s_sll32(vu.s[k], 16)), HVX_FOR(i, 32) {
            r.uh[2 * i] = vv.uh[2 * i];
            r.uh[2 * i + 1] = vu.uh[2 * i];
        });
    return r;
}
/* Vd.h = vshuffo(Vu.h, Vv.h): half 2i = Vv.h[2i+1], half 2i+1 = Vu.h[2i+1]. CVI_VA. */
HVX_INLINE HVX_Vector Q6_Vh_vshuffo_VhVh(HVX_Vector vu, HVX_Vector vv) {
    HVX_COUNT(VA);
    HVX_Vector r;
    HVX_SIMD_OR_LANES(
        r.s[k] = hvx_s_or(hvx_s_srl32(vv.s[k], 16), hvx_s_and(vu.s[k], hvx_s_set1_32((int32_t) 0xFFFF0000))),
        HVX_FOR(i, 32) {
            r.uh[2 * i] = vv.uh[2 * i + 1];
            r.uh[2 * i + 1] = vu.uh[2 * i + 1];
        });
    return r;
}
/* Vdd.b = vshuffoe(Vu.b, Vv.b): lo = vshuffe, hi = vshuffo. CVI_VA_DV. */
HVX_INLINE HVX_VectorPair Q6_Wb_vshuffoe_VbVb(HVX_Vector vu, HVX_Vector vv) {
    HVX_COUNT(VA_DV);
    HVX_VectorPair r;
    HVX_FOR(i, 64) {
        r.v[0].ub[2 * i] = vv.ub[2 * i];
        r.v[0].ub[2 * i + 1] = vu.ub[2 * i];
        r.v[1].ub[2 * i] = vv.ub[2 * i + 1];
        r.v[1].ub[2 * i + 1] = vu.ub[2 * i + 1];
    }
    return r;
}
/* Vdd.h = vshuffoe(Vu.h, Vv.h): lo = vshuffe, hi = vshuffo. CVI_VA_DV. */
HVX_INLINE HVX_VectorPair Q6_Wh_vshuffoe_VhVh(HVX_Vector vu, HVX_Vector vv) {
    HVX_COUNT(VA_DV);
    HVX_VectorPair r;
    HVX_FOR(i, 32) {
        r.v[0].uh[2 * i] = vv.uh[2 * i];
        r.v[0].uh[2 * i + 1] = vu.uh[2 * i];
        r.v[1].uh[2 * i] = vv.uh[2 * i + 1];
        r.v[1].uh[2 * i + 1] = vu.uh[2 * i + 1];
    }
    return r;
}
/* Qd.b = vshuffe(Qs.h, Qt.h) (v62): bit i = Qs[i - 1] for odd i, Qt[i] for even i. CVI_VA_DV. */
HVX_INLINE HVX_VectorPred Q6_Qb_vshuffe_QhQh(HVX_VectorPred qs, HVX_VectorPred qt) {
    HVX_COUNT(VA_DV);
    HVX_VectorPred q;
    HVX_FOR(i, 128) q.q[i] = (i & 1) ? qs.q[i - 1] : qt.q[i];
    return q;
}
/* Qd.h = vshuffe(Qs.w, Qt.w) (v62): bit i = Qs[i - 2] when bit 1 of i is set, else Qt[i]. CVI_VA_DV. */
HVX_INLINE HVX_VectorPred Q6_Qh_vshuffe_QwQw(HVX_VectorPred qs, HVX_VectorPred qt) {
    HVX_COUNT(VA_DV);
    HVX_VectorPred q;
    HVX_FOR(i, 128) q.q[i] = (i & 2) ? qs.q[i - 2] : qt.q[i];
    return q;
}

/* --- Benes networks. CVI_VP --- */

/* Vd = vdelta(Vu, Vv): for s = 64, 32, ..., 1: byte k = (Vv[k] & s) ? t[k ^ s] : t[k], t the previous
 * stage (reverse butterfly). */
HVX_INLINE HVX_Vector Q6_V_vdelta_VV(HVX_Vector vu, HVX_Vector vv) {
    HVX_COUNT(VP);
    HVX_Vector t = vu, r;
    for (int s = 64; s > 0; s >>= 1) {
        HVX_FOR(i, 128) r.ub[i] = (vv.ub[i] & s) ? t.ub[i ^ s] : t.ub[i];
        t = r;
    }
    return t;
}
/* Vd = vrdelta(Vu, Vv): the same for s = 1, 2, ..., 64 (forward butterfly). */
HVX_INLINE HVX_Vector Q6_V_vrdelta_VV(HVX_Vector vu, HVX_Vector vv) {
    HVX_COUNT(VP);
    HVX_Vector t = vu, r;
    for (int s = 1; s < 128; s <<= 1) {
        HVX_FOR(i, 128) r.ub[i] = (vv.ub[i] & s) ? t.ub[i ^ s] : t.ub[i];
        t = r;
    }
    return t;
}

#if HVX_SIMD
/* chunk c (0 .. 2N-1) of the concatenation lo:hi */
HVX_INLINE hvx_simd_t hvx_chunk2(HVX_Vector lo, HVX_Vector hi, int c) {
    return c < HVX_SIMD_N ? lo.s[c & (HVX_SIMD_N - 1)] : hi.s[c & (HVX_SIMD_N - 1)];
}
#endif

/* --- pack: Vd = vpack(Vu, Vv): Vv's elements narrowed into the low half, Vu's into the high. CVI_VP --- */
#define HVX_DEF_PACK(NAME, D, S, N, CONV, SIMD)                                                      \
    HVX_INLINE HVX_Vector NAME(HVX_Vector vu, HVX_Vector vv) {                                       \
        HVX_COUNT(VP);                                                                               \
        HVX_Vector r;                                                                                \
        HVX_SIMD_OR_LANES(                                                                           \
            r.s[k] = SIMD(hvx_chunk2(vv, vu, 2 * k), hvx_chunk2(vv, vu, 2 * k + 1)), HVX_FOR(i, N) { \
                r.D[i] = CONV(vv.S[i]);                                                              \
                r.D[i + (N)] = CONV(vu.S[i]);                                                        \
            });                                                                                      \
        return r;                                                                                    \
    }
#define HVX_LOW8(x)           ((uint8_t) (x))
#define HVX_HIGH8(x)          ((uint8_t) ((uint16_t) (x) >> 8))
#define HVX_LOW16(x)          ((uint16_t) (x))
#define HVX_HIGH16(x)         ((uint16_t) ((uint32_t) (x) >> 16))
#define HVX_S_PACK16_S(a, b)  hvx_s_pack16(a, b, 0)
#define HVX_S_PACK16_US(a, b) hvx_s_pack16(a, b, 1)
#define HVX_S_PACK32_S(a, b)  hvx_s_pack32(a, b, 0)
#define HVX_S_PACK32_US(a, b) hvx_s_pack32(a, b, 1)
#define HVX_S_UNZIP8_E(a, b)  hvx_s_unzip(a, b, 1, 0)
#define HVX_S_UNZIP8_O(a, b)  hvx_s_unzip(a, b, 1, 1)
#define HVX_S_UNZIP16_E(a, b) hvx_s_unzip(a, b, 2, 0)
#define HVX_S_UNZIP16_O(a, b) hvx_s_unzip(a, b, 2, 1)
HVX_DEF_PACK(Q6_Vb_vpack_VhVh_sat, b, h, 64, hvx_sat_b, HVX_S_PACK16_S)
HVX_DEF_PACK(Q6_Vub_vpack_VhVh_sat, ub, h, 64, hvx_sat_ub, HVX_S_PACK16_US)
HVX_DEF_PACK(Q6_Vh_vpack_VwVw_sat, h, w, 32, hvx_sat_h, HVX_S_PACK32_S)
HVX_DEF_PACK(Q6_Vuh_vpack_VwVw_sat, uh, w, 32, hvx_sat_uh, HVX_S_PACK32_US)
HVX_DEF_PACK(Q6_Vb_vpacke_VhVh, ub, uh, 64, HVX_LOW8, HVX_S_UNZIP8_E)
HVX_DEF_PACK(Q6_Vb_vpacko_VhVh, ub, uh, 64, HVX_HIGH8, HVX_S_UNZIP8_O)
HVX_DEF_PACK(Q6_Vh_vpacke_VwVw, uh, uw, 32, HVX_LOW16, HVX_S_UNZIP16_E)
HVX_DEF_PACK(Q6_Vh_vpacko_VwVw, uh, uw, 32, HVX_HIGH16, HVX_S_UNZIP16_O)

/* --- unpack: Vdd.W = vunpack(Vu.N): element i of the pair (lo: 0 .. N/2-1) = Vu element i, extended.
 * CVI_VP_VS --- */
#define HVX_DEF_UNPACK(NAME, D, S, N, SIMD)                                                                     \
    HVX_INLINE HVX_VectorPair NAME(HVX_Vector vu) {                                                             \
        HVX_COUNT(VP_VS);                                                                                       \
        HVX_VectorPair r;                                                                                       \
        HVX_SIMD_OR_LANES((r.v[0].s[k] = SIMD(vu.s[k / 2], k & 1), r.v[1].s[k] = SIMD(vu.s[k / 2 + 2], k & 1)), \
                          HVX_FOR(i, N) {                                                                       \
                              r.v[0].D[i] = vu.S[i];                                                            \
                              r.v[1].D[i] = vu.S[i + (N)];                                                      \
                          });                                                                                   \
        return r;                                                                                               \
    }
#define HVX_S_WIDEN8_S(a, u)  hvx_s_widen8(a, u, 1)
#define HVX_S_WIDEN8_U(a, u)  hvx_s_widen8(a, u, 0)
#define HVX_S_WIDEN16_S(a, u) hvx_s_widen16(a, u, 1)
#define HVX_S_WIDEN16_U(a, u) hvx_s_widen16(a, u, 0)
HVX_DEF_UNPACK(Q6_Wh_vunpack_Vb, h, b, 64, HVX_S_WIDEN8_S)
HVX_DEF_UNPACK(Q6_Wuh_vunpack_Vub, uh, ub, 64, HVX_S_WIDEN8_U)
HVX_DEF_UNPACK(Q6_Ww_vunpack_Vh, w, h, 32, HVX_S_WIDEN16_S)
HVX_DEF_UNPACK(Q6_Wuw_vunpack_Vuh, uw, uh, 32, HVX_S_WIDEN16_U)

/* Vxx.h |= vunpacko(Vu.b): pair halfword i |= Vu.ub[i] << 8. CVI_VP_VS. */
HVX_INLINE HVX_VectorPair Q6_Wh_vunpackoor_WhVb(HVX_VectorPair vxx, HVX_Vector vu) {
    HVX_COUNT(VP_VS);
    HVX_FOR(i, 64) {
        vxx.v[0].uh[i] |= (uint16_t) (vu.ub[i] << 8);
        vxx.v[1].uh[i] |= (uint16_t) (vu.ub[i + 64] << 8);
    }
    return vxx;
}
/* Vxx.w |= vunpacko(Vu.h): pair word i |= Vu.uh[i] << 16. CVI_VP_VS. */
HVX_INLINE HVX_VectorPair Q6_Ww_vunpackoor_WwVh(HVX_VectorPair vxx, HVX_Vector vu) {
    HVX_COUNT(VP_VS);
    HVX_FOR(i, 32) {
        vxx.v[0].uw[i] |= (uint32_t) vu.uh[i] << 16;
        vxx.v[1].uw[i] |= (uint32_t) vu.uh[i + 32] << 16;
    }
    return vxx;
}

/* --- in-lane extension: Vdd.W = vsxt/vzxt(Vu.N): lo = even elements, hi = odd ones. CVI_VA_DV --- */
HVX_INLINE HVX_VectorPair Q6_Wh_vsxt_Vb(HVX_Vector vu) {
    HVX_COUNT(VA_DV);
    HVX_VectorPair r;
    HVX_SIMD_OR_LANES((r.v[0].s[k] = hvx_s_sra16(hvx_s_sll16(vu.s[k], 8), 8), r.v[1].s[k] = hvx_s_sra16(vu.s[k], 8)),
                      HVX_FOR(i, 64) {
                          r.v[0].h[i] = vu.b[2 * i];
                          r.v[1].h[i] = vu.b[2 * i + 1];
                      });
    return r;
}
HVX_INLINE HVX_VectorPair Q6_Wuh_vzxt_Vub(HVX_Vector vu) {
    HVX_COUNT(VA_DV);
    HVX_VectorPair r;
    HVX_SIMD_OR_LANES((r.v[0].s[k] = hvx_s_and(vu.s[k], hvx_s_set1_16(0xFF)), r.v[1].s[k] = hvx_s_srl16(vu.s[k], 8)),
                      HVX_FOR(i, 64) {
                          r.v[0].uh[i] = vu.ub[2 * i];
                          r.v[1].uh[i] = vu.ub[2 * i + 1];
                      });
    return r;
}
HVX_INLINE HVX_VectorPair Q6_Ww_vsxt_Vh(HVX_Vector vu) {
    HVX_COUNT(VA_DV);
    HVX_VectorPair r;
    HVX_SIMD_OR_LANES((r.v[0].s[k] = hvx_s_sra32(hvx_s_sll32(vu.s[k], 16), 16), r.v[1].s[k] = hvx_s_sra32(vu.s[k], 16)),
                      HVX_FOR(i, 32) {
                          r.v[0].w[i] = vu.h[2 * i];
                          r.v[1].w[i] = vu.h[2 * i + 1];
                      });
    return r;
}
HVX_INLINE HVX_VectorPair Q6_Wuw_vzxt_Vuh(HVX_Vector vu) {
    HVX_COUNT(VA_DV);
    HVX_VectorPair r;
    HVX_SIMD_OR_LANES((r.v[0].s[k] = hvx_s_and(vu.s[k], hvx_s_set1_32(0xFFFF)), r.v[1].s[k] = hvx_s_srl32(vu.s[k], 16)),
                      HVX_FOR(i, 32) {
                          r.v[0].uw[i] = vu.uh[2 * i];
                          r.v[1].uw[i] = vu.uh[2 * i + 1];
                      });
    return r;
}

/* --- table lookups --- */

/* vlut32 body: out[i] = (idx & 0xE0) == (match << 5) ? byte odd of Vv.h[idx & 63] : 0 (nomatch: the
 * segment bits of idx are replaced by match, so every byte looks up). */
HVX_INLINE HVX_Vector hvx_vlut32(HVX_Vector vu, HVX_Vector vv, Word32 rt, int nomatch) {
    const int match = rt & 7, odd = (rt >> 1) & 1;
    HVX_Vector r;
#if HVX_SIMD
    const hvx_simd_t t0 = hvx_s_unzip(vv.s[0], vv.s[1], 1, odd), t1 = hvx_s_unzip(vv.s[2], vv.s[3], 1, odd);
    const hvx_simd_t seg = hvx_s_set1_8(match << 5);
    HVX_SIMD_EACH({
        const hvx_simd_t idx = nomatch ? hvx_s_or(hvx_s_and(vu.s[k], hvx_s_set1_8(0x1F)), seg) : vu.s[k];
        const hvx_simd_t lo5 = hvx_s_and(idx, hvx_s_set1_8(0x1F));
        const hvx_simd_t bit5 = hvx_s_cmpeq8(hvx_s_and(idx, hvx_s_set1_8(0x20)), hvx_s_set1_8(0x20));
        const hvx_simd_t v = hvx_s_blend8(bit5, hvx_s_lookup32(t1, lo5), hvx_s_lookup32(t0, lo5));
        r.s[k] = hvx_s_and(v, hvx_s_cmpeq8(hvx_s_and(idx, hvx_s_set1_8((int8_t) 0xE0)), seg));
    });
#else
    HVX_FOR(i, 128) {
        unsigned idx = vu.ub[i];
        if (nomatch) {
            idx = (idx & 0x1F) | (unsigned) (match << 5);
        }
        r.ub[i] = (idx & 0xE0) == (unsigned) (match << 5) ? vv.ub[2 * (idx & 63) + odd] : 0;
    }
#endif
    return r;
}
/* Vd.b = vlut32(Vu.b, Vv.b, Rt). CVI_VP. */
HVX_INLINE HVX_Vector Q6_Vb_vlut32_VbVbR(HVX_Vector vu, HVX_Vector vv, Word32 rt) {
    HVX_COUNT(VP);
    return hvx_vlut32(vu, vv, rt, 0);
}
/* Vd.b = vlut32(Vu.b, Vv.b, #u3) (v62). CVI_VP. */
HVX_INLINE HVX_Vector Q6_Vb_vlut32_VbVbI(HVX_Vector vu, HVX_Vector vv, Word32 iu3) {
    HVX_COUNT(VP);
    return hvx_vlut32(vu, vv, iu3 & 7, 0);
}
/* Vd.b = vlut32(Vu.b, Vv.b, Rt):nomatch (v62). CVI_VP. */
HVX_INLINE HVX_Vector Q6_Vb_vlut32_VbVbR_nomatch(HVX_Vector vu, HVX_Vector vv, Word32 rt) {
    HVX_COUNT(VP);
    return hvx_vlut32(vu, vv, rt, 1);
}
/* Vx.b |= vlut32(Vu.b, Vv.b, Rt). CVI_VP_VS. */
HVX_INLINE HVX_Vector Q6_Vb_vlut32or_VbVbVbR(HVX_Vector vx, HVX_Vector vu, HVX_Vector vv, Word32 rt) {
    HVX_COUNT(VP_VS);
    const HVX_Vector t = hvx_vlut32(vu, vv, rt, 0);
    HVX_FOR(i, 32) vx.uw[i] |= t.uw[i];
    return vx;
}
/* Vx.b |= vlut32(Vu.b, Vv.b, #u3) (v62). CVI_VP_VS. */
HVX_INLINE HVX_Vector Q6_Vb_vlut32or_VbVbVbI(HVX_Vector vx, HVX_Vector vu, HVX_Vector vv, Word32 iu3) {
    HVX_COUNT(VP_VS);
    const HVX_Vector t = hvx_vlut32(vu, vv, iu3 & 7, 0);
    HVX_FOR(i, 32) vx.uw[i] |= t.uw[i];
    return vx;
}

/* vlut16 body: lo.h[i] from index Vu.ub[2i], hi.h[i] from Vu.ub[2i+1]: (idx & 0xF0) == (match << 4) ?
 * half odd of Vv.w[idx & 31] : 0; match = Rt & 15 (nomatch: the segment bits of idx become match). */
HVX_INLINE HVX_VectorPair hvx_vlut16(HVX_Vector vu, HVX_Vector vv, Word32 rt, int nomatch) {
    const unsigned match = (unsigned) rt & 15;
    const int odd = (rt >> 1) & 1;
    HVX_VectorPair r;
    HVX_FOR(i, 128) {
        unsigned idx = vu.ub[i];
        if (nomatch) {
            idx = (idx & 0x0F) | (match << 4);
        }
        r.v[i & 1].uh[i >> 1] = (idx & 0xF0) == (match << 4) ? vv.uh[2 * (idx & 31) + odd] : 0;
    }
    return r;
}
/* Vdd.h = vlut16(Vu.b, Vv.h, Rt). CVI_VP_VS. */
HVX_INLINE HVX_VectorPair Q6_Wh_vlut16_VbVhR(HVX_Vector vu, HVX_Vector vv, Word32 rt) {
    HVX_COUNT(VP_VS);
    return hvx_vlut16(vu, vv, rt, 0);
}
/* Vdd.h = vlut16(Vu.b, Vv.h, #u3) (v62). CVI_VP_VS. */
HVX_INLINE HVX_VectorPair Q6_Wh_vlut16_VbVhI(HVX_Vector vu, HVX_Vector vv, Word32 iu3) {
    HVX_COUNT(VP_VS);
    return hvx_vlut16(vu, vv, iu3 & 7, 0);
}
/* Vdd.h = vlut16(Vu.b, Vv.h, Rt):nomatch (v62). CVI_VP_VS. */
HVX_INLINE HVX_VectorPair Q6_Wh_vlut16_VbVhR_nomatch(HVX_Vector vu, HVX_Vector vv, Word32 rt) {
    HVX_COUNT(VP_VS);
    return hvx_vlut16(vu, vv, rt, 1);
}
/* Vxx.h |= vlut16(Vu.b, Vv.h, Rt): match from the low byte of Rt. CVI_VP_VS. */
HVX_INLINE HVX_VectorPair Q6_Wh_vlut16or_WhVbVhR(HVX_VectorPair vxx, HVX_Vector vu, HVX_Vector vv, Word32 rt) {
    HVX_COUNT(VP_VS);
    const HVX_VectorPair t = hvx_vlut16(vu, vv, rt, 0);
    HVX_FOR(j, 2) HVX_FOR(i, 32) vxx.v[j].uw[i] |= t.v[j].uw[i];
    return vxx;
}
/* Vxx.h |= vlut16(Vu.b, Vv.h, #u3) (v62). CVI_VP_VS. */
HVX_INLINE HVX_VectorPair Q6_Wh_vlut16or_WhVbVhI(HVX_VectorPair vxx, HVX_Vector vu, HVX_Vector vv, Word32 iu3) {
    HVX_COUNT(VP_VS);
    const HVX_VectorPair t = hvx_vlut16(vu, vv, iu3 & 7, 0);
    HVX_FOR(j, 2) HVX_FOR(i, 32) vxx.v[j].uw[i] |= t.v[j].uw[i];
    return vxx;
}

#endif /* VNPU_HVX_PERMUTE_H */
