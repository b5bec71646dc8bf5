/*
 * Host emulation of the HVX logic and predicate intrinsics: vand/vor/vxor/vnot, moves between vectors
 * and predicates (vand with Q or Rt), predicate logic, vsetq, compares into predicates (and their
 * and/or/xor-accumulating forms), vmux, vswap, conditional add/subtract, prefixsum.
 *
 * Semantics: QEMU target/hexagon/imported/mmvec/ext.idef (vand.., vandqrt, vandvrt, vandvqv, VCMP,
 * MMVEC_CMP, pred_*, pred_scalar2, pred_scalar2v2, vmux, vswap, CONDADDSUB). A compare of element
 * width W sets or clears all W/8 predicate bits of the element; a predicate bit i belongs to byte i.
 */
#ifndef VNPU_HVX_LOGIC_H
#define VNPU_HVX_LOGIC_H

#include "hvx-types.h"

/* --- vector logic. CVI_VA --- */
HVX_INLINE HVX_Vector Q6_V_vand_VV(HVX_Vector vu, HVX_Vector vv) {
    HVX_COUNT(VA);
    HVX_Vector r;
    HVX_SIMD_OR_LANES(r.s[k] = hvx_s_and(vu.s[k], vv.s[k]), HVX_FOR(i, 32) r.uw[i] = vu.uw[i] & vv.uw[i]);
    return r;
}
HVX_INLINE HVX_Vector Q6_V_vor_VV(HVX_Vector vu, HVX_Vector vv) {
    HVX_COUNT(VA);
    HVX_Vector r;
    HVX_SIMD_OR_LANES(r.s[k] = hvx_s_or(vu.s[k], vv.s[k]), HVX_FOR(i, 32) r.uw[i] = vu.uw[i] | vv.uw[i]);
    return r;
}
HVX_INLINE HVX_Vector Q6_V_vxor_VV(HVX_Vector vu, HVX_Vector vv) {
    HVX_COUNT(VA);
    HVX_Vector r;
    HVX_SIMD_OR_LANES(r.s[k] = hvx_s_xor(vu.s[k], vv.s[k]), HVX_FOR(i, 32) r.uw[i] = vu.uw[i] ^ vv.uw[i]);
    return r;
}
HVX_INLINE HVX_Vector Q6_V_vnot_V(HVX_Vector vu) {
    HVX_COUNT(VA);
    HVX_Vector r;
    HVX_SIMD_OR_LANES(r.s[k] = hvx_s_xor(vu.s[k], hvx_s_set1_8(-1)), HVX_FOR(i, 32) r.uw[i] = ~vu.uw[i]);
    return r;
}

/* --- vectors and predicates --- */

/* Vd = vand(Qu, Rt): byte i = Q[i] ? Rt.ub[i % 4] : 0. CVI_VX_LATE. */
HVX_INLINE HVX_Vector Q6_V_vand_QR(HVX_VectorPred qu, Word32 rt) {
    HVX_COUNT(VX);
    HVX_Vector r;
    HVX_SIMD_OR_LANES(r.s[k] = hvx_s_and(qu.s[k], hvx_s_set1_32(rt)),
                      HVX_FOR(i, 128) r.ub[i] = qu.q[i] ? hvx_rubyte(rt, i % 4) : 0);
    return r;
}
/* Vd = vand(!Qu, Rt) (v62). CVI_VX_LATE. */
HVX_INLINE HVX_Vector Q6_V_vand_QnR(HVX_VectorPred qu, Word32 rt) {
    HVX_COUNT(VX);
    HVX_Vector r;
    HVX_SIMD_OR_LANES(r.s[k] = hvx_s_andnot(qu.s[k], hvx_s_set1_32(rt)),
                      HVX_FOR(i, 128) r.ub[i] = qu.q[i] ? 0 : hvx_rubyte(rt, i % 4));
    return r;
}
/* Vx |= vand(Qu, Rt). CVI_VX_LATE. */
HVX_INLINE HVX_Vector Q6_V_vandor_VQR(HVX_Vector vx, HVX_VectorPred qu, Word32 rt) {
    HVX_COUNT(VX);
    HVX_FOR(i, 128) vx.ub[i] |= qu.q[i] ? hvx_rubyte(rt, i % 4) : 0;
    return vx;
}
/* Vx |= vand(!Qu, Rt) (v62). CVI_VX_LATE. */
HVX_INLINE HVX_Vector Q6_V_vandor_VQnR(HVX_Vector vx, HVX_VectorPred qu, Word32 rt) {
    HVX_COUNT(VX);
    HVX_FOR(i, 128) vx.ub[i] |= qu.q[i] ? 0 : hvx_rubyte(rt, i % 4);
    return vx;
}
/* Qd = vand(Vu, Rt): Q[i] = (Vu.ub[i] & Rt.ub[i % 4]) != 0. CVI_VX_LATE. */
HVX_INLINE HVX_VectorPred Q6_Q_vand_VR(HVX_Vector vu, Word32 rt) {
    HVX_COUNT(VX);
    HVX_VectorPred q;
    HVX_SIMD_OR_LANES(
        q.s[k] = hvx_s_xor(hvx_s_cmpeq8(hvx_s_and(vu.s[k], hvx_s_set1_32(rt)), hvx_s_zero()), hvx_s_set1_8(-1)),
        HVX_FOR(i, 128) q.q[i] = hvx_qmask((vu.ub[i] & hvx_rubyte(rt, i % 4)) != 0));
    return q;
}
/* Qx |= vand(Vu, Rt). CVI_VX_LATE. */
HVX_INLINE HVX_VectorPred Q6_Q_vandor_QVR(HVX_VectorPred qx, HVX_Vector vu, Word32 rt) {
    HVX_COUNT(VX);
    HVX_FOR(i, 128) qx.q[i] |= hvx_qmask((vu.ub[i] & hvx_rubyte(rt, i % 4)) != 0);
    return qx;
}
/* Vd = vand(Qv, Vu): bytes of Vu where Q is set, else 0 (v62). CVI_VA. */
HVX_INLINE HVX_Vector Q6_V_vand_QV(HVX_VectorPred qv, HVX_Vector vu) {
    HVX_COUNT(VA);
    HVX_Vector r;
    HVX_SIMD_OR_LANES(r.s[k] = hvx_s_and(qv.s[k], vu.s[k]), HVX_FOR(i, 128) r.ub[i] = qv.q[i] & vu.ub[i]);
    return r;
}
/* Vd = vand(!Qv, Vu) (v62). CVI_VA. */
HVX_INLINE HVX_Vector Q6_V_vand_QnV(HVX_VectorPred qv, HVX_Vector vu) {
    HVX_COUNT(VA);
    HVX_Vector r;
    HVX_SIMD_OR_LANES(r.s[k] = hvx_s_andnot(qv.s[k], vu.s[k]),
                      HVX_FOR(i, 128) r.ub[i] = (uint8_t) (~qv.q[i] & vu.ub[i]));
    return r;
}

/* --- predicate logic --- */
#define HVX_DEF_QQ(NAME, CLS, EXPR, SIMD)                                  \
    HVX_INLINE HVX_VectorPred NAME(HVX_VectorPred qs, HVX_VectorPred qt) { \
        HVX_COUNT(CLS);                                                    \
        HVX_VectorPred q;                                                  \
        HVX_SIMD_OR_LANES(                                                 \
            q.s[k] = SIMD, HVX_FOR(i, 128) {                               \
                const uint8_t s = qs.q[i], t = qt.q[i];                    \
                q.q[i] = (uint8_t) (EXPR);                                 \
            });                                                            \
        return q;                                                          \
    }
/* Qd = and(Qs, Qt), or, xor, and(Qs, !Qt), or(Qs, !Qt). CVI_VA_DV. */
HVX_DEF_QQ(Q6_Q_and_QQ, VA_DV, s &t, hvx_s_and(qs.s[k], qt.s[k]))
HVX_DEF_QQ(Q6_Q_or_QQ, VA_DV, s | t, hvx_s_or(qs.s[k], qt.s[k]))
HVX_DEF_QQ(Q6_Q_xor_QQ, VA_DV, s ^ t, hvx_s_xor(qs.s[k], qt.s[k]))
HVX_DEF_QQ(Q6_Q_and_QQn, VA_DV, s & ~t, hvx_s_andnot(qt.s[k], qs.s[k]))
HVX_DEF_QQ(Q6_Q_or_QQn, VA_DV, s | (uint8_t) ~t, hvx_s_or(qs.s[k], hvx_s_xor(qt.s[k], hvx_s_set1_8(-1))))

/* Qd = not(Qs). CVI_VA. */
HVX_INLINE HVX_VectorPred Q6_Q_not_Q(HVX_VectorPred qs) {
    HVX_COUNT(VA);
    HVX_VectorPred q;
    HVX_SIMD_OR_LANES(q.s[k] = hvx_s_xor(qs.s[k], hvx_s_set1_8(-1)), HVX_FOR(i, 128) q.q[i] = (uint8_t) ~qs.q[i]);
    return q;
}

/* Qd = vsetq(Rt): bits 0 .. (Rt & 127) - 1 set (none for a multiple of 128). CVI_VP. */
HVX_INLINE HVX_VectorPred Q6_Q_vsetq_R(Word32 rt) {
    HVX_COUNT(VP);
    HVX_VectorPred q;
    HVX_FOR(i, 128) q.q[i] = hvx_qmask(i < (rt & 127));
    return q;
}
/* Qd = vsetq2(Rt): bits 0 .. ((Rt - 1) & 127) set (all for a multiple of 128) (v62). CVI_VP. */
HVX_INLINE HVX_VectorPred Q6_Q_vsetq2_R(Word32 rt) {
    HVX_COUNT(VP);
    HVX_VectorPred q;
    HVX_FOR(i, 128) q.q[i] = hvx_qmask(i <= (int) (((uint32_t) rt - 1) & 127));
    return q;
}

/* --- compares: Qd = vcmp.eq/gt(Vu.T, Vv.T); Qx &=, |=, ^= forms. CVI_VA --- */
#if HVX_SIMD
HVX_INLINE hvx_simd_t hvx_s_cmpgt_u(hvx_simd_t a, hvx_simd_t b, int esize) {
    const hvx_simd_t sign = esize == 1   ? hvx_s_set1_8(-128)
                            : esize == 2 ? hvx_s_set1_16(-32768)
                                         : hvx_s_set1_32(INT32_MIN);
    a = hvx_s_xor(a, sign);
    b = hvx_s_xor(b, sign);
    return esize == 1 ? hvx_s_cmpgt_i8(a, b) : esize == 2 ? hvx_s_cmpgt_i16(a, b) : hvx_s_cmpgt_i32(a, b);
}
#endif
#define HVX_CMP_LANES(Q, LANE, N, OP, VU, VV) \
    HVX_FOR(i, N) HVX_FOR(j, 128 / (N)) Q.q[(128 / (N)) * i + j] = hvx_qmask((VU).LANE[i] OP(VV).LANE[i])
/* Qd = vcmp.OP(Vu.T, Vv.T), and Qx &=, |=, ^= vcmp.OP(Vu.T, Vv.T) (the and, or and xacc forms). */
#define HVX_DEF_CMP(OPNAME, T, LANE, N, OP, SIMD)                                                                     \
    HVX_INLINE HVX_VectorPred hvx_cmp_##OPNAME##_##T(HVX_Vector vu, HVX_Vector vv) {                                  \
        HVX_VectorPred q;                                                                                             \
        HVX_SIMD_OR_LANES(q.s[k] = SIMD, HVX_CMP_LANES(q, LANE, N, OP, vu, vv));                                      \
        return q;                                                                                                     \
    }                                                                                                                 \
    HVX_INLINE HVX_VectorPred Q6_Q_vcmp_##OPNAME##_V##T##V##T(HVX_Vector vu, HVX_Vector vv) {                         \
        HVX_COUNT(VA);                                                                                                \
        return hvx_cmp_##OPNAME##_##T(vu, vv);                                                                        \
    }                                                                                                                 \
    HVX_INLINE HVX_VectorPred Q6_Q_vcmp_##OPNAME##and_QV##T##V##T(HVX_VectorPred qx, HVX_Vector vu, HVX_Vector vv) {  \
        HVX_COUNT(VA);                                                                                                \
        HVX_VectorPred q = hvx_cmp_##OPNAME##_##T(vu, vv);                                                            \
        HVX_FOR(i, 128) q.q[i] &= qx.q[i];                                                                            \
        return q;                                                                                                     \
    }                                                                                                                 \
    HVX_INLINE HVX_VectorPred Q6_Q_vcmp_##OPNAME##or_QV##T##V##T(HVX_VectorPred qx, HVX_Vector vu, HVX_Vector vv) {   \
        HVX_COUNT(VA);                                                                                                \
        HVX_VectorPred q = hvx_cmp_##OPNAME##_##T(vu, vv);                                                            \
        HVX_FOR(i, 128) q.q[i] |= qx.q[i];                                                                            \
        return q;                                                                                                     \
    }                                                                                                                 \
    HVX_INLINE HVX_VectorPred Q6_Q_vcmp_##OPNAME##xacc_QV##T##V##T(HVX_VectorPred qx, HVX_Vector vu, HVX_Vector vv) { \
        HVX_COUNT(VA);                                                                                                \
        HVX_VectorPred q = hvx_cmp_##OPNAME##_##T(vu, vv);                                                            \
        HVX_FOR(i, 128) q.q[i] ^= qx.q[i];                                                                            \
        return q;                                                                                                     \
    }
HVX_DEF_CMP(eq, b, b, 128, ==, hvx_s_cmpeq8(vu.s[k], vv.s[k]))
HVX_DEF_CMP(eq, h, h, 64, ==, hvx_s_cmpeq16(vu.s[k], vv.s[k]))
HVX_DEF_CMP(eq, w, w, 32, ==, hvx_s_cmpeq32(vu.s[k], vv.s[k]))
HVX_DEF_CMP(gt, b, b, 128, >, hvx_s_cmpgt_i8(vu.s[k], vv.s[k]))
HVX_DEF_CMP(gt, h, h, 64, >, hvx_s_cmpgt_i16(vu.s[k], vv.s[k]))
HVX_DEF_CMP(gt, w, w, 32, >, hvx_s_cmpgt_i32(vu.s[k], vv.s[k]))
HVX_DEF_CMP(gt, ub, ub, 128, >, hvx_s_cmpgt_u(vu.s[k], vv.s[k], 1))
HVX_DEF_CMP(gt, uh, uh, 64, >, hvx_s_cmpgt_u(vu.s[k], vv.s[k], 2))
HVX_DEF_CMP(gt, uw, uw, 32, >, hvx_s_cmpgt_u(vu.s[k], vv.s[k], 4))

/* --- select --- */

/* Vd = vmux(Qt, Vu, Vv): byte i = Q[i] ? Vu : Vv. CVI_VA. */
HVX_INLINE HVX_Vector Q6_V_vmux_QVV(HVX_VectorPred qt, HVX_Vector vu, HVX_Vector vv) {
    HVX_COUNT(VA);
    HVX_Vector r;
    HVX_SIMD_OR_LANES(r.s[k] = hvx_s_blend8(qt.s[k], vu.s[k], vv.s[k]),
                      HVX_FOR(i, 128) r.ub[i] = qt.q[i] ? vu.ub[i] : vv.ub[i]);
    return r;
}
/* Vdd = vswap(Qt, Vu, Vv): lo = vmux(Qt, Vu, Vv), hi = vmux(Qt, Vv, Vu). CVI_VA_DV. */
HVX_INLINE HVX_VectorPair Q6_W_vswap_QVV(HVX_VectorPred qt, HVX_Vector vu, HVX_Vector vv) {
    HVX_COUNT(VA_DV);
    HVX_VectorPair r;
    HVX_SIMD_OR_LANES(
        (r.v[0].s[k] = hvx_s_blend8(qt.s[k], vu.s[k], vv.s[k]), r.v[1].s[k] = hvx_s_blend8(qt.s[k], vv.s[k], vu.s[k])),
        HVX_FOR(i, 128) {
            r.v[0].ub[i] = qt.q[i] ? vu.ub[i] : vv.ub[i];
            r.v[1].ub[i] = qt.q[i] ? vv.ub[i] : vu.ub[i];
        });
    return r;
}

/* --- conditional accumulate: if (Qv) Vx.T += Vu.T (condacc), -= (condnac); Qn: where Q is clear.
 * An element is updated where its predicate bits are set: each byte of the element takes its own
 * bit (fCONDMASK), so a predicate that splits an element updates only those bytes. CVI_VA --- */
#define HVX_DEF_COND(NAME, LANE, N, OP, WANT)                                     \
    HVX_INLINE HVX_Vector NAME(HVX_VectorPred qv, HVX_Vector vx, HVX_Vector vu) { \
        HVX_COUNT(VA);                                                            \
        HVX_Vector t;                                                             \
        HVX_FOR(i, N) t.LANE[i] = vx.LANE[i] OP vu.LANE[i];                       \
        HVX_FOR(i, 128) vx.ub[i] = (qv.q[i] == (WANT)) ? t.ub[i] : vx.ub[i];      \
        return vx;                                                                \
    }
HVX_DEF_COND(Q6_Vb_condacc_QVbVb, ub, 128, +, 0xFF)
HVX_DEF_COND(Q6_Vb_condacc_QnVbVb, ub, 128, +, 0x00)
HVX_DEF_COND(Q6_Vb_condnac_QVbVb, ub, 128, -, 0xFF)
HVX_DEF_COND(Q6_Vb_condnac_QnVbVb, ub, 128, -, 0x00)
HVX_DEF_COND(Q6_Vh_condacc_QVhVh, uh, 64, +, 0xFF)
HVX_DEF_COND(Q6_Vh_condacc_QnVhVh, uh, 64, +, 0x00)
HVX_DEF_COND(Q6_Vh_condnac_QVhVh, uh, 64, -, 0xFF)
HVX_DEF_COND(Q6_Vh_condnac_QnVhVh, uh, 64, -, 0x00)
HVX_DEF_COND(Q6_Vw_condacc_QVwVw, uw, 32, +, 0xFF)
HVX_DEF_COND(Q6_Vw_condacc_QnVwVw, uw, 32, +, 0x00)
HVX_DEF_COND(Q6_Vw_condnac_QVwVw, uw, 32, -, 0xFF)
HVX_DEF_COND(Q6_Vw_condnac_QnVwVw, uw, 32, -, 0x00)

/* Vd.T = prefixsum(Qv) (v65): element i = number of set Q bits at byte positions <= the element's
 * last byte (bytes: positions 0..i; halfwords: 0..2i+1; words: 0..4i+3). CVI_VS. */
HVX_INLINE HVX_Vector Q6_Vb_prefixsum_Q(HVX_VectorPred qv) {
    HVX_COUNT(VS);
    HVX_Vector r;
    unsigned n = 0;
    HVX_FOR(i, 128) {
        n += qv.q[i] != 0;
        r.ub[i] = (uint8_t) n;
    }
    return r;
}
HVX_INLINE HVX_Vector Q6_Vh_prefixsum_Q(HVX_VectorPred qv) {
    HVX_COUNT(VS);
    HVX_Vector r;
    unsigned n = 0;
    HVX_FOR(i, 64) {
        n += (qv.q[2 * i] != 0) + (qv.q[2 * i + 1] != 0);
        r.uh[i] = (uint16_t) n;
    }
    return r;
}
HVX_INLINE HVX_Vector Q6_Vw_prefixsum_Q(HVX_VectorPred qv) {
    HVX_COUNT(VS);
    HVX_Vector r;
    unsigned n = 0;
    HVX_FOR(i, 32) {
        HVX_FOR(j, 4) n += qv.q[4 * i + j] != 0;
        r.uw[i] = n;
    }
    return r;
}

#endif /* VNPU_HVX_LOGIC_H */
