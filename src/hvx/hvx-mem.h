/*
 * Host emulation of the HVX register moves and memory intrinsics: zero, splat, combine, hi/lo,
 * extract/insert, loads and stores (plain, predicated, unaligned), VTCM scatter and gather.
 *
 * Semantics follow the HVX ISA as stated in QEMU's target/hexagon/imported/mmvec/ext.idef (V6_vd0,
 * V6_lvsplat*, V6_vcombine, V6_extractw, V6_vinsertwr, V6_vS32b_qpred_ai, V6_vscatter*, V6_vgather*).
 * Aligned vector memory accesses ignore the low 7 address bits, as the hardware does.
 */
#ifndef VNPU_HVX_MEM_H
#define VNPU_HVX_MEM_H

#include "hvx-types.h"

/* Vd = #0. CVI_VA. */
HVX_INLINE HVX_Vector Q6_V_vzero(void) {
    HVX_COUNT(VA);
    HVX_Vector r;
#if HVX_SIMD
    HVX_SIMD_EACH(r.s[k] = hvx_s_zero());
#else
    memset(&r, 0, sizeof(r));
#endif
    return r;
}

/* Vdd = #0 (v65). CVI_VA_DV. */
HVX_INLINE HVX_VectorPair Q6_W_vzero(void) {
    HVX_COUNT(VA_DV);
    HVX_VectorPair r;
#if HVX_SIMD
    HVX_SIMD_EACH(r.v[0].s[k] = hvx_s_zero(); r.v[1].s[k] = hvx_s_zero());
#else
    memset(&r, 0, sizeof(r));
#endif
    return r;
}

/* Vd = vsplat(Rt): every word = Rt. CVI_VX_LATE. */
HVX_INLINE HVX_Vector Q6_V_vsplat_R(Word32 rt) {
    HVX_COUNT(VX);
    HVX_Vector r;
#if HVX_SIMD
    HVX_SIMD_EACH(r.s[k] = hvx_s_set1_32(rt));
#else
    HVX_FOR(i, 32) r.w[i] = rt;
#endif
    return r;
}

/* Vd.h = vsplat(Rt): every halfword = low half of Rt (v62). CVI_VX_LATE. */
HVX_INLINE HVX_Vector Q6_Vh_vsplat_R(Word32 rt) {
    HVX_COUNT(VX);
    HVX_Vector r;
#if HVX_SIMD
    HVX_SIMD_EACH(r.s[k] = hvx_s_set1_16(rt));
#else
    HVX_FOR(i, 64) r.uh[i] = (uint16_t) rt;
#endif
    return r;
}

/* Vd.b = vsplat(Rt): every byte = low byte of Rt (v62). CVI_VX_LATE. */
HVX_INLINE HVX_Vector Q6_Vb_vsplat_R(Word32 rt) {
    HVX_COUNT(VX);
    HVX_Vector r;
#if HVX_SIMD
    HVX_SIMD_EACH(r.s[k] = hvx_s_set1_8(rt));
#else
    HVX_FOR(i, 128) r.ub[i] = (uint8_t) rt;
#endif
    return r;
}

/* Vdd = vcombine(Vu, Vv): hi = Vu, lo = Vv. CVI_VA_DV. */
HVX_INLINE HVX_VectorPair Q6_W_vcombine_VV(HVX_Vector vu, HVX_Vector vv) {
    HVX_COUNT(VA_DV);
    return hvx_pair(vu, vv);
}

/* Vd = hi(Vss). CVI_VA (a register rename; no code on Hexagon). */
HVX_INLINE HVX_Vector Q6_V_hi_W(HVX_VectorPair vss) {
    return vss.v[1];
}

/* Vd = lo(Vss). CVI_VA (a register rename; no code on Hexagon). */
HVX_INLINE HVX_Vector Q6_V_lo_W(HVX_VectorPair vss) {
    return vss.v[0];
}

/* Rd = vextract(Vu, Rs): the word holding byte (Rs & 127), i.e. word (Rs & 127) >> 2. LD. */
HVX_INLINE Word32 Q6_R_vextract_VR(HVX_Vector vu, Word32 rs) {
    HVX_COUNT(LD);
    return vu.w[(rs & 127) >> 2];
}

/* Vx.w = vinsert(Rt): word 0 of Vx = Rt, the rest unchanged. CVI_VX_LATE. */
HVX_INLINE HVX_Vector Q6_Vw_vinsert_VwR(HVX_Vector vx, Word32 rt) {
    HVX_COUNT(VX);
    vx.w[0] = rt;
    return vx;
}

/* --- loads and stores (kernels use these instead of dereferencing, so the counting build sees them) --- */

HVX_INLINE const void *hvx_align_down(const void *p) {
    return (const void *) ((uintptr_t) p & ~(uintptr_t) 127);
}

/* Vd = vmem(p): aligned load; the low 7 address bits are ignored. LD. */
HVX_INLINE HVX_Vector hvx_vmem_ld(const void *p) {
    HVX_COUNT(LD);
    return *(const HVX_Vector *) hvx_align_down(p);
}

/* Vd = vmemu(p): load from any address. LD. */
HVX_INLINE HVX_Vector hvx_vmemu_ld(const void *p) {
    HVX_COUNT(LD);
    return *(const HVX_UVector *) p;
}

/* vmem(p) = v: aligned store; the low 7 address bits are ignored. ST. */
HVX_INLINE void hvx_vmem_st(void *p, HVX_Vector v) {
    HVX_COUNT(ST);
    *(HVX_Vector *) hvx_align_down(p) = v;
}

/* vmemu(p) = v: store to any address. ST. */
HVX_INLINE void hvx_vmemu_st(void *p, HVX_Vector v) {
    HVX_COUNT(ST);
    *(HVX_UVector *) p = v;
}

/* Write the bytes of v whose mask byte equals want (0xFF or 0x00) at the aligned address, and no other
 * byte: other threads may own the rest of the line. */
HVX_INLINE void hvx_store_masked(HVX_Vector *rt, HVX_VectorPred q, HVX_Vector v, uint8_t want) {
    uint8_t *dst = (uint8_t *) hvx_align_down(rt);
#if HVX_SIMD
    HVX_SIMD_EACH({
        const hvx_simd_t ones = hvx_s_set1_8(-1);
        const hvx_simd_t sel = want ? q.s[k] : hvx_s_xor(q.s[k], ones);
        if (hvx_s_testz(hvx_s_xor(sel, ones))) { /* every byte selected */
            hvx_s_storeu(dst + k * HVX_SIMD_BYTES, v.s[k]);
        } else if (!hvx_s_testz(sel)) {
            HVX_FOR(i, HVX_SIMD_BYTES) {
                if (q.q[k * HVX_SIMD_BYTES + i] == want) {
                    dst[k * HVX_SIMD_BYTES + i] = v.ub[k * HVX_SIMD_BYTES + i];
                }
            }
        }
    });
#else
    HVX_FOR(i, 128) {
        if (q.q[i] == want) {
            dst[i] = v.ub[i];
        }
    }
#endif
}

/* if (Qv) vmem(Rt) = Vs: store the bytes whose Q bit is set. CVI_VM_ST. */
HVX_INLINE void Q6_vmem_QRIV(HVX_VectorPred qv, HVX_Vector *rt, HVX_Vector vs) {
    HVX_COUNT(ST);
    hvx_store_masked(rt, qv, vs, 0xFF);
}

/* if (!Qv) vmem(Rt) = Vs: store the bytes whose Q bit is clear. CVI_VM_ST. */
HVX_INLINE void Q6_vmem_QnRIV(HVX_VectorPred qv, HVX_Vector *rt, HVX_Vector vs) {
    HVX_COUNT(ST);
    hvx_store_masked(rt, qv, vs, 0x00);
}

/* if (Qv) vmem(Rt):nt = Vs: as Q6_vmem_QRIV with a non-temporal hint. CVI_VM_ST. */
HVX_INLINE void Q6_vmem_QRIV_nt(HVX_VectorPred qv, HVX_Vector *rt, HVX_Vector vs) {
    HVX_COUNT(ST);
    hvx_store_masked(rt, qv, vs, 0xFF);
}

/* if (!Qv) vmem(Rt):nt = Vs. CVI_VM_ST. */
HVX_INLINE void Q6_vmem_QnRIV_nt(HVX_VectorPred qv, HVX_Vector *rt, HVX_Vector vs) {
    HVX_COUNT(ST);
    hvx_store_masked(rt, qv, vs, 0x00);
}

/* --- VTCM scatter and gather (v65) ---
 * Region: base Rt aligned down to the element size, last valid offset Mu. An element whose offset
 * (from Vv) does not fit entirely in [0, Mu] is neither written nor read: the HVX manual's region rule
 * (QEMU 7.2 does not check the region, so this is the manual's reading, see the report). On a host the
 * base is a pointer-sized integer; on Hexagon it is the Word32 of the compiler's prototype. */

HVX_INLINE int hvx_region_has(uint32_t off, Word32 mu, uint32_t esize) {
    return (uint64_t) off + esize - 1 <= ((uint32_t) mu | (esize - 1));
}

/* vscatter(Rt, Mu, Vv.w).w = Vw: word i of Vw to Rt + Vv.uw[i]. CVI_SCATTER. */
HVX_INLINE void Q6_vscatter_RMVwV(uintptr_t rt, Word32 mu, HVX_Vector vv, HVX_Vector vw) {
    HVX_COUNT(SCATTER);
    uint8_t *base = (uint8_t *) (rt & ~(uintptr_t) 3);
    HVX_FOR(i, 32) {
        if (hvx_region_has(vv.uw[i], mu, 4)) {
            memcpy(base + vv.uw[i], &vw.uw[i], 4);
        }
    }
}

/* if (Qs) vscatter(Rt, Mu, Vv.w).w = Vw: only the bytes of word i whose Q bits are set. CVI_SCATTER. */
HVX_INLINE void Q6_vscatter_QRMVwV(HVX_VectorPred qs, uintptr_t rt, Word32 mu, HVX_Vector vv, HVX_Vector vw) {
    HVX_COUNT(SCATTER);
    uint8_t *base = (uint8_t *) (rt & ~(uintptr_t) 3);
    HVX_FOR(i, 32) {
        if (hvx_region_has(vv.uw[i], mu, 4)) {
            HVX_FOR(j, 4) {
                if (qs.q[4 * i + j]) {
                    base[vv.uw[i] + j] = vw.ub[4 * i + j];
                }
            }
        }
    }
}

/* vscatter(Rt, Mu, Vv.h).h = Vw: halfword i of Vw to Rt + Vv.uh[i]. CVI_SCATTER. */
HVX_INLINE void Q6_vscatter_RMVhV(uintptr_t rt, Word32 mu, HVX_Vector vv, HVX_Vector vw) {
    HVX_COUNT(SCATTER);
    uint8_t *base = (uint8_t *) (rt & ~(uintptr_t) 1);
    HVX_FOR(i, 64) {
        if (hvx_region_has(vv.uh[i], mu, 2)) {
            memcpy(base + vv.uh[i], &vw.uh[i], 2);
        }
    }
}

/* vscatter(Rt, Mu, Vv.w).w += Vw: word i of Vw added to the word at Rt + (Vv.uw[i] & ~3). CVI_SCATTER.
 * Lanes hitting the same word add up, in lane order. */
HVX_INLINE void Q6_vscatteracc_RMVwV(uintptr_t rt, Word32 mu, HVX_Vector vv, HVX_Vector vw) {
    HVX_COUNT(SCATTER);
    uint8_t *base = (uint8_t *) (rt & ~(uintptr_t) 3);
    HVX_FOR(i, 32) {
        const uint32_t off = vv.uw[i] & ~3u;
        if (hvx_region_has(off, mu, 4)) {
            uint32_t x;
            memcpy(&x, base + off, 4);
            x += vw.uw[i];
            memcpy(base + off, &x, 4);
        }
    }
}

/* vtmp.w = vgather(Rt, Mu, Vv.w).w; vmem(Rs) = vtmp: word i from Rt + Vv.uw[i]; words outside the region
 * keep the destination's previous value. CVI_GATHER. */
HVX_INLINE void Q6_vgather_ARMVw(HVX_Vector *rs, uintptr_t rt, Word32 mu, HVX_Vector vv) {
    HVX_COUNT(GATHER);
    const uint8_t *base = (const uint8_t *) (rt & ~(uintptr_t) 3);
    HVX_Vector *dst = (HVX_Vector *) hvx_align_down(rs);
    HVX_FOR(i, 32) {
        if (hvx_region_has(vv.uw[i], mu, 4)) {
            memcpy(&dst->uw[i], base + vv.uw[i], 4);
        }
    }
}

/* vtmp.h = vgather(Rt, Mu, Vv.h).h; vmem(Rs) = vtmp: halfword i from Rt + Vv.uh[i]. CVI_GATHER. */
HVX_INLINE void Q6_vgather_ARMVh(HVX_Vector *rs, uintptr_t rt, Word32 mu, HVX_Vector vv) {
    HVX_COUNT(GATHER);
    const uint8_t *base = (const uint8_t *) (rt & ~(uintptr_t) 1);
    HVX_Vector *dst = (HVX_Vector *) hvx_align_down(rs);
    HVX_FOR(i, 64) {
        if (hvx_region_has(vv.uh[i], mu, 2)) {
            memcpy(&dst->uh[i], base + vv.uh[i], 2);
        }
    }
}

#endif /* VNPU_HVX_MEM_H */
