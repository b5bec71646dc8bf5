/*
 * Scalar references of the integer HVX intrinsics (see hvx-ref.h): shifts, logic, predicates,
 * compares, select, permutes and table lookups. Element by element from QEMU's
 * target/hexagon/imported/mmvec/ext.idef.
 */
#include "hvx-ref.h"

/* ================= shifts ================= */
REF_V(Q6_Vh_vasl_VhR, 2, 1, (int64_t) ((uint64_t) a << (io->r & 15)))
REF_V(Q6_Vw_vasl_VwR, 4, 1, (int64_t) ((uint64_t) a << (io->r & 31)))
REF_V(Q6_Vh_vasr_VhR, 2, 1, a >> (io->r & 15))
REF_V(Q6_Vw_vasr_VwR, 4, 1, a >> (io->r & 31))
REF_V(Q6_Vuh_vlsr_VuhR, 2, 0, a >> (io->r & 15))
REF_V(Q6_Vuw_vlsr_VuwR, 4, 0, a >> (io->r & 31))
REF_V(Q6_Vub_vlsr_VubR, 1, 0, a >> (io->r & 7))
#define REF_SHIFT_ACC(NAME, W, EXPR)                               \
    REF(NAME) {                                                    \
        for (int i = 0; i < 128 / (W); i++) {                      \
            const int64_t a = ref_ld(IN(1), W, 1, i);              \
            ref_st(OUT(0), W, i, ref_ld(IN(0), W, 1, i) + (EXPR)); \
        }                                                          \
    }
REF_SHIFT_ACC(Q6_Vw_vaslacc_VwVwR, 4, (int64_t) ((uint64_t) a << (io->r & 31)))
REF_SHIFT_ACC(Q6_Vw_vasracc_VwVwR, 4, a >> (io->r & 31))
REF_SHIFT_ACC(Q6_Vh_vaslacc_VhVhR, 2, (int64_t) ((uint64_t) a << (io->r & 15)))
REF_SHIFT_ACC(Q6_Vh_vasracc_VhVhR, 2, a >> (io->r & 15))
/* by a vector: amount = sign-extended low log2(8W)+1 bits; negative shifts the other way; shifting
 * by the full width leaves nothing (left) or the sign (arithmetic right) */
static int64_t ref_amount(int64_t v, int w) {
    const int bits = w == 4 ? 6 : 5;
    int64_t n = v & ((1 << bits) - 1);
    return n >= (1 << (bits - 1)) ? n - (1 << bits) : n;
}
static int64_t ref_shl(int64_t a, int64_t n, int w) {
    return n >= 8 * w ? 0 : (int64_t) ((uint64_t) a << n);
}
REF_VV(Q6_Vw_vasr_VwVw, 4, 1, 1, ref_amount(b, 4) < 0 ? ref_shl(a, -ref_amount(b, 4), 4) : a >> ref_amount(b, 4))
REF_VV(Q6_Vw_vasl_VwVw, 4, 1, 1, ref_amount(b, 4) < 0 ? a >> -ref_amount(b, 4) : ref_shl(a, ref_amount(b, 4), 4))
REF_VV(Q6_Vw_vlsr_VwVw, 4, 0, 1, ref_amount(b, 4) < 0 ? ref_shl(a, -ref_amount(b, 4), 4) : a >> ref_amount(b, 4))
REF_VV(Q6_Vh_vasr_VhVh, 2, 1, 1, ref_amount(b, 2) < 0 ? ref_shl(a, -ref_amount(b, 2), 2) : a >> ref_amount(b, 2))
REF_VV(Q6_Vh_vasl_VhVh, 2, 1, 1, ref_amount(b, 2) < 0 ? a >> -ref_amount(b, 2) : ref_shl(a, ref_amount(b, 2), 2))
REF_VV(Q6_Vh_vlsr_VhVh, 2, 0, 1, ref_amount(b, 2) < 0 ? ref_shl(a, -ref_amount(b, 2), 2) : a >> ref_amount(b, 2))
REF_VV(Q6_Vuw_vrotr_VuwVuw, 4, 0, 0, (b & 31) ? (a >> (b & 31)) | (a << (32 - (b & 31))) : a)

/* narrowing: even narrow element from Vv (slot 1), odd from Vu (slot 0); :rnd adds 2^(n-1) first */
static void ref_narrow(struct hvx_case_io *io, int w, int s, int ds, int sat, int rnd) {
    const int n = io->r & (w == 4 ? 15 : 7);
    for (int i = 0; i < 128 / w; i++) {
        for (int h = 0; h < 2; h++) {
            int64_t x = ref_ld(IN(h ? 0 : 1), w, s, i);
            if (rnd && n > 0) {
                x += (int64_t) 1 << (n - 1);
            }
            x >>= n;
            ref_st(OUT(0), w / 2, 2 * i + h, sat ? SAT(w / 2, ds, x) : x);
        }
    }
}
REF(Q6_Vh_vasr_VwVwR) {
    ref_narrow(io, 4, 1, 1, 0, 0);
}
REF(Q6_Vh_vasr_VwVwR_sat) {
    ref_narrow(io, 4, 1, 1, 1, 0);
}
REF(Q6_Vh_vasr_VwVwR_rnd_sat) {
    ref_narrow(io, 4, 1, 1, 1, 1);
}
REF(Q6_Vuh_vasr_VwVwR_sat) {
    ref_narrow(io, 4, 1, 0, 1, 0);
}
REF(Q6_Vuh_vasr_VwVwR_rnd_sat) {
    ref_narrow(io, 4, 1, 0, 1, 1);
}
REF(Q6_Vuh_vasr_VuwVuwR_sat) {
    ref_narrow(io, 4, 0, 0, 1, 0);
}
REF(Q6_Vuh_vasr_VuwVuwR_rnd_sat) {
    ref_narrow(io, 4, 0, 0, 1, 1);
}
REF(Q6_Vb_vasr_VhVhR_sat) {
    ref_narrow(io, 2, 1, 1, 1, 0);
}
REF(Q6_Vb_vasr_VhVhR_rnd_sat) {
    ref_narrow(io, 2, 1, 1, 1, 1);
}
REF(Q6_Vub_vasr_VhVhR_sat) {
    ref_narrow(io, 2, 1, 0, 1, 0);
}
REF(Q6_Vub_vasr_VhVhR_rnd_sat) {
    ref_narrow(io, 2, 1, 0, 1, 1);
}
REF(Q6_Vub_vasr_VuhVuhR_sat) {
    ref_narrow(io, 2, 0, 0, 1, 0);
}
REF(Q6_Vub_vasr_VuhVuhR_rnd_sat) {
    ref_narrow(io, 2, 0, 0, 1, 1);
}
/* by vector (v69): Vuu (slots 0, 1), amounts from the narrow elements of Vv (slot 2) */
static void ref_narrow_v(struct hvx_case_io *io, int w, int s, int rnd) {
    for (int i = 0; i < 128 / w; i++) {
        for (int h = 0; h < 2; h++) {
            const int n = (int) (ref_ld(IN(2), w / 2, 0, 2 * i + h) & (w == 4 ? 15 : 7));
            int64_t x = ref_ld(IN(h), w, s, i);
            if (rnd && n > 0) {
                x += (int64_t) 1 << (n - 1);
            }
            ref_st(OUT(0), w / 2, 2 * i + h, SAT(w / 2, 0, x >> n));
        }
    }
}
REF(Q6_Vub_vasr_WuhVub_sat) {
    ref_narrow_v(io, 2, 0, 0);
}
REF(Q6_Vub_vasr_WuhVub_rnd_sat) {
    ref_narrow_v(io, 2, 0, 1);
}
REF(Q6_Vuh_vasr_WwVuh_sat) {
    ref_narrow_v(io, 4, 1, 0);
}
REF(Q6_Vuh_vasr_WwVuh_rnd_sat) {
    ref_narrow_v(io, 4, 1, 1);
}
/* vround: sat((x + half the dropped range) >> width/2), even from Vv, odd from Vu */
static void ref_vround(struct hvx_case_io *io, int w, int s, int ds) {
    for (int i = 0; i < 128 / w; i++) {
        for (int h = 0; h < 2; h++) {
            const int64_t x = ref_ld(IN(h ? 0 : 1), w, s, i);
            ref_st(OUT(0), w / 2, 2 * i + h, SAT(w / 2, ds, (x + ((int64_t) 1 << (4 * w - 1))) >> (4 * w)));
        }
    }
}
REF(Q6_Vh_vround_VwVw_sat) {
    ref_vround(io, 4, 1, 1);
}
REF(Q6_Vuh_vround_VwVw_sat) {
    ref_vround(io, 4, 1, 0);
}
REF(Q6_Vuh_vround_VuwVuw_sat) {
    ref_vround(io, 4, 0, 0);
}
REF(Q6_Vb_vround_VhVh_sat) {
    ref_vround(io, 2, 1, 1);
}
REF(Q6_Vub_vround_VhVh_sat) {
    ref_vround(io, 2, 1, 0);
}
REF(Q6_Vub_vround_VuhVuh_sat) {
    ref_vround(io, 2, 0, 0);
}
/* leading bits: count from the top of a w-byte element while the bit equals `bit` */
static int64_t ref_lead(int64_t a, int w, int bit) {
    int n = 0;
    for (int k = 8 * w - 1; k >= 0 && (int) ((a >> k) & 1) == bit; k--) {
        n++;
    }
    return n;
}
REF_V(Q6_Vuw_vcl0_Vuw, 4, 0, ref_lead(a, 4, 0))
REF_V(Q6_Vuh_vcl0_Vuh, 2, 0, ref_lead(a, 2, 0))
REF_V(Q6_Vw_vnormamt_Vw, 4, 1, (ref_lead(a, 4, 0) > ref_lead(a, 4, 1) ? ref_lead(a, 4, 0) : ref_lead(a, 4, 1)) - 1)
REF_V(Q6_Vh_vnormamt_Vh, 2, 1, (ref_lead(a, 2, 0) > ref_lead(a, 2, 1) ? ref_lead(a, 2, 0) : ref_lead(a, 2, 1)) - 1)
REF_VV(Q6_Vw_vadd_vclb_VwVw, 4, 1, 1,
       (ref_lead(a, 4, 0) > ref_lead(a, 4, 1) ? ref_lead(a, 4, 0) : ref_lead(a, 4, 1)) + b)
REF_VV(Q6_Vh_vadd_vclb_VhVh, 2, 1, 1,
       (ref_lead(a, 2, 0) > ref_lead(a, 2, 1) ? ref_lead(a, 2, 0) : ref_lead(a, 2, 1)) + b)
REF_V(Q6_Vh_vpopcount_Vh, 2, 0, __builtin_popcountll((uint64_t) a))

/* ================= logic, predicates, compares, select ================= */
REF_VV(Q6_V_vand_VV, 1, 0, 0, a &b)
REF_VV(Q6_V_vor_VV, 1, 0, 0, a | b)
REF_VV(Q6_V_vxor_VV, 1, 0, 0, a ^ b)
REF_V(Q6_V_vnot_V, 1, 0, ~a)
REF(Q6_V_vand_QR) {
    for (int i = 0; i < 128; i++) {
        ref_st(OUT(0), 1, i, ref_q(io, 0, i) ? ref_rb(io->r, i % 4, 0) : 0);
    }
}
REF(Q6_V_vand_QnR) {
    for (int i = 0; i < 128; i++) {
        ref_st(OUT(0), 1, i, ref_q(io, 0, i) ? 0 : ref_rb(io->r, i % 4, 0));
    }
}
REF(Q6_V_vandor_VQR) {
    for (int i = 0; i < 128; i++) {
        ref_st(OUT(0), 1, i, ref_ld(IN(0), 1, 0, i) | (ref_q(io, 1, i) ? ref_rb(io->r, i % 4, 0) : 0));
    }
}
REF(Q6_V_vandor_VQnR) {
    for (int i = 0; i < 128; i++) {
        ref_st(OUT(0), 1, i, ref_ld(IN(0), 1, 0, i) | (ref_q(io, 1, i) ? 0 : ref_rb(io->r, i % 4, 0)));
    }
}
REF(Q6_Q_vand_VR) {
    for (int i = 0; i < 128; i++) {
        ref_put_q(io, i, (ref_ld(IN(0), 1, 0, i) & ref_rb(io->r, i % 4, 0)) != 0);
    }
}
REF(Q6_Q_vandor_QVR) {
    for (int i = 0; i < 128; i++) {
        ref_put_q(io, i, ref_q(io, 0, i) || (ref_ld(IN(1), 1, 0, i) & ref_rb(io->r, i % 4, 0)) != 0);
    }
}
REF(Q6_V_vand_QV) {
    for (int i = 0; i < 128; i++) {
        ref_st(OUT(0), 1, i, ref_q(io, 0, i) ? ref_ld(IN(1), 1, 0, i) : 0);
    }
}
REF(Q6_V_vand_QnV) {
    for (int i = 0; i < 128; i++) {
        ref_st(OUT(0), 1, i, ref_q(io, 0, i) ? 0 : ref_ld(IN(1), 1, 0, i));
    }
}
#define REF_QQ(NAME, EXPR)                                      \
    REF(NAME) {                                                 \
        for (int i = 0; i < 128; i++) {                         \
            const int s = ref_q(io, 0, i), t = ref_q(io, 1, i); \
            ref_put_q(io, i, (EXPR));                           \
        }                                                       \
    }
REF_QQ(Q6_Q_and_QQ, s &&t)
REF_QQ(Q6_Q_or_QQ, s || t)
REF_QQ(Q6_Q_xor_QQ, s != t)
REF_QQ(Q6_Q_and_QQn, s && !t)
REF_QQ(Q6_Q_or_QQn, s || !t)
/* Qd = vshuffe(Qs, Qt): bit i from Qs[i - 1] (bytes) or Qs[i - 2] (halves) where bit 0 (1) of i is set */
REF(Q6_Qb_vshuffe_QhQh) {
    for (int i = 0; i < 128; i++) {
        ref_put_q(io, i, (i & 1) ? ref_q(io, 0, i - 1) : ref_q(io, 1, i));
    }
}
REF(Q6_Qh_vshuffe_QwQw) {
    for (int i = 0; i < 128; i++) {
        ref_put_q(io, i, (i & 2) ? ref_q(io, 0, i - 2) : ref_q(io, 1, i));
    }
}
REF(Q6_Q_not_Q) {
    for (int i = 0; i < 128; i++) {
        ref_put_q(io, i, !ref_q(io, 0, i));
    }
}
REF(Q6_Q_vsetq_R) {
    for (int i = 0; i < 128; i++) {
        ref_put_q(io, i, i < (io->r & 127));
    }
}
REF(Q6_Q_vsetq2_R) {
    for (int i = 0; i < 128; i++) {
        ref_put_q(io, i, i <= (int) (((uint32_t) io->r - 1) & 127));
    }
}
/* compares: all bytes of element i take the compare of element i; acc: combined with the old bit */
static void ref_cmp(struct hvx_case_io *io, int w, int s, int gt, int acc) {
    const int u = acc ? 1 : 0;
    for (int i = 0; i < 128 / w; i++) {
        const int64_t a = ref_ld(IN(u), w, s, i), b = ref_ld(IN(u + 1), w, s, i);
        const int c = gt ? a > b : a == b;
        for (int j = 0; j < w; j++) {
            const int old = ref_q(io, 0, w * i + j);
            ref_put_q(io, w * i + j, acc == 0 ? c : acc == 1 ? old && c : acc == 2 ? old || c : old != c);
        }
    }
}
#define REF_CMP(OP, T, W, S, GT)            \
    REF(Q6_Q_vcmp_##OP##_V##T##V##T) {      \
        ref_cmp(io, W, S, GT, 0);           \
    }                                       \
    REF(Q6_Q_vcmp_##OP##and_QV##T##V##T) {  \
        ref_cmp(io, W, S, GT, 1);           \
    }                                       \
    REF(Q6_Q_vcmp_##OP##or_QV##T##V##T) {   \
        ref_cmp(io, W, S, GT, 2);           \
    }                                       \
    REF(Q6_Q_vcmp_##OP##xacc_QV##T##V##T) { \
        ref_cmp(io, W, S, GT, 3);           \
    }
REF_CMP(eq, b, 1, 1, 0)
REF_CMP(eq, h, 2, 1, 0)
REF_CMP(eq, w, 4, 1, 0)
REF_CMP(gt, b, 1, 1, 1)
REF_CMP(gt, h, 2, 1, 1)
REF_CMP(gt, w, 4, 1, 1)
REF_CMP(gt, ub, 1, 0, 1)
REF_CMP(gt, uh, 2, 0, 1)
REF_CMP(gt, uw, 4, 0, 1)
REF(Q6_V_vmux_QVV) {
    for (int i = 0; i < 128; i++) {
        ref_st(OUT(0), 1, i, ref_ld(IN(ref_q(io, 0, i) ? 1 : 2), 1, 0, i));
    }
}
REF(Q6_W_vswap_QVV) {
    for (int i = 0; i < 128; i++) {
        ref_st(OUT(0), 1, i, ref_ld(IN(ref_q(io, 0, i) ? 1 : 2), 1, 0, i));
        ref_st(OUT(1), 1, i, ref_ld(IN(ref_q(io, 0, i) ? 2 : 1), 1, 0, i));
    }
}
/* conditional add/sub: each byte of an element takes the new value where its own Q bit says so */
static void ref_cond(struct hvx_case_io *io, int w, int sub, int when) {
    for (int i = 0; i < 128 / w; i++) {
        const int64_t x = ref_ld(IN(1), w, 0, i), u = ref_ld(IN(2), w, 0, i);
        const int64_t t = sub ? x - u : x + u;
        for (int j = 0; j < w; j++) {
            const int64_t src = ref_q(io, 0, w * i + j) == when ? t : x;
            ref_st(OUT(0), 1, w * i + j, src >> (8 * j));
        }
    }
}
#define REF_COND(T, W)                    \
    REF(Q6_V##T##_condacc_QV##T##V##T) {  \
        ref_cond(io, W, 0, 1);            \
    }                                     \
    REF(Q6_V##T##_condacc_QnV##T##V##T) { \
        ref_cond(io, W, 0, 0);            \
    }                                     \
    REF(Q6_V##T##_condnac_QV##T##V##T) {  \
        ref_cond(io, W, 1, 1);            \
    }                                     \
    REF(Q6_V##T##_condnac_QnV##T##V##T) { \
        ref_cond(io, W, 1, 0);            \
    }
REF_COND(b, 1)
REF_COND(h, 2)
REF_COND(w, 4)
static void ref_prefixsum(struct hvx_case_io *io, int w) {
    int64_t n = 0;
    for (int i = 0; i < 128 / w; i++) {
        for (int j = 0; j < w; j++) {
            n += ref_q(io, 0, w * i + j);
        }
        ref_st(OUT(0), w, i, n);
    }
}
REF(Q6_Vb_prefixsum_Q) {
    ref_prefixsum(io, 1);
}
REF(Q6_Vh_prefixsum_Q) {
    ref_prefixsum(io, 2);
}
REF(Q6_Vw_prefixsum_Q) {
    ref_prefixsum(io, 4);
}

/* ================= permutes ================= */
/* byte i = i + n < 128 ? Vv[i + n] : Vu[i + n - 128] (Vu slot 0, Vv slot 1) */
static void ref_align(struct hvx_case_io *io, int n) {
    for (int i = 0; i < 128; i++) {
        ref_st(OUT(0), 1, i, i + n < 128 ? ref_ld(IN(1), 1, 0, i + n) : ref_ld(IN(0), 1, 0, i + n - 128));
    }
}
REF(Q6_V_valign_VVR) {
    ref_align(io, io->r & 127);
}
REF(Q6_V_vlalign_VVR) {
    ref_align(io, 128 - (io->r & 127));
}
REF(Q6_V_valign_VVI) {
    ref_align(io, io->imm & 7);
}
REF(Q6_V_vlalign_VVI) {
    ref_align(io, 128 - (io->imm & 7));
}
REF(Q6_V_vror_VR) {
    for (int i = 0; i < 128; i++) {
        ref_st(OUT(0), 1, i, ref_ld(IN(0), 1, 0, (int) (((uint32_t) i + (uint32_t) io->r) & 127)));
    }
}
static void ref_shuff1(struct hvx_case_io *io, int w) {
    const int n = 64 / w;
    for (int i = 0; i < n; i++) {
        ref_st(OUT(0), w, 2 * i, ref_ld(IN(0), w, 0, i));
        ref_st(OUT(0), w, 2 * i + 1, ref_ld(IN(0), w, 0, i + n));
    }
}
static void ref_deal1(struct hvx_case_io *io, int w) {
    const int n = 64 / w;
    for (int i = 0; i < n; i++) {
        ref_st(OUT(0), w, i, ref_ld(IN(0), w, 0, 2 * i));
        ref_st(OUT(0), w, i + n, ref_ld(IN(0), w, 0, 2 * i + 1));
    }
}
REF(Q6_Vb_vshuff_Vb) {
    ref_shuff1(io, 1);
}
REF(Q6_Vh_vshuff_Vh) {
    ref_shuff1(io, 2);
}
REF(Q6_Vb_vdeal_Vb) {
    ref_deal1(io, 1);
}
REF(Q6_Vh_vdeal_Vh) {
    ref_deal1(io, 2);
}
REF(Q6_Vb_vdeale_VbVb) {
    for (int i = 0; i < 32; i++) {
        ref_st(OUT(0), 1, i, ref_ld(IN(1), 1, 0, 4 * i));
        ref_st(OUT(0), 1, 32 + i, ref_ld(IN(1), 1, 0, 4 * i + 2));
        ref_st(OUT(0), 1, 64 + i, ref_ld(IN(0), 1, 0, 4 * i));
        ref_st(OUT(0), 1, 96 + i, ref_ld(IN(0), 1, 0, 4 * i + 2));
    }
}
/* the 2x2 transpose network: dd = Vv (lo), Vu (hi); for each step s in Rt swap hi[k] and lo[k + s] */
static void ref_shuffdeal(struct hvx_case_io *io, int deal) {
    uint8_t *lo = (uint8_t *) OUT(0), *hi = (uint8_t *) OUT(1);
    io->out[0] = io->in[1];
    io->out[1] = io->in[0];
    for (int t = 0; t < 7; t++) {
        const int s = deal ? 64 >> t : 1 << t;
        if (!(io->r & s)) {
            continue;
        }
        for (int k = 0; k < 128; k++) {
            if (!(k & s)) {
                const uint8_t x = hi[k];
                hi[k] = lo[k + s];
                lo[k + s] = x;
            }
        }
    }
}
REF(Q6_W_vshuff_VVR) {
    ref_shuffdeal(io, 0);
}
REF(Q6_W_vdeal_VVR) {
    ref_shuffdeal(io, 1);
}
/* shuffe/shuffo: even (odd) elements of each pair of Vv then Vu */
static void ref_shuffeo(struct hvx_case_io *io, int w, int odd, int out) {
    for (int i = 0; i < 64 / w; i++) {
        ref_st(OUT(out), w, 2 * i, ref_ld(IN(1), w, 0, 2 * i + odd));
        ref_st(OUT(out), w, 2 * i + 1, ref_ld(IN(0), w, 0, 2 * i + odd));
    }
}
REF(Q6_Vb_vshuffe_VbVb) {
    ref_shuffeo(io, 1, 0, 0);
}
REF(Q6_Vb_vshuffo_VbVb) {
    ref_shuffeo(io, 1, 1, 0);
}
REF(Q6_Vh_vshuffe_VhVh) {
    ref_shuffeo(io, 2, 0, 0);
}
REF(Q6_Vh_vshuffo_VhVh) {
    ref_shuffeo(io, 2, 1, 0);
}
REF(Q6_Wb_vshuffoe_VbVb) {
    ref_shuffeo(io, 1, 0, 0);
    ref_shuffeo(io, 1, 1, 1);
}
REF(Q6_Wh_vshuffoe_VhVh) {
    ref_shuffeo(io, 2, 0, 0);
    ref_shuffeo(io, 2, 1, 1);
}
/* vdelta (s = 64 .. 1) and vrdelta (s = 1 .. 64): byte k = (Vv[k] & s) ? t[k ^ s] : t[k] per stage */
static void ref_delta(struct hvx_case_io *io, int reverse) {
    uint8_t t[128], n[128];
    const uint8_t *c = (const uint8_t *) IN(1);
    for (int k = 0; k < 128; k++) {
        t[k] = (uint8_t) ref_ld(IN(0), 1, 0, k);
    }
    for (int step = 0; step < 7; step++) {
        const int s = reverse ? 64 >> step : 1 << step;
        for (int k = 0; k < 128; k++) {
            n[k] = (c[k] & s) ? t[k ^ s] : t[k];
        }
        for (int k = 0; k < 128; k++) {
            t[k] = n[k];
        }
    }
    for (int k = 0; k < 128; k++) {
        ref_st(OUT(0), 1, k, t[k]);
    }
}
REF(Q6_V_vdelta_VV) {
    ref_delta(io, 1);
}
REF(Q6_V_vrdelta_VV) {
    ref_delta(io, 0);
}
/* pack: Vv's elements (slot 1) narrowed into the low half, Vu's (slot 0) into the high half */
static void ref_pack(struct hvx_case_io *io, int w, int mode, int ds) {
    const int n = 128 / w;
    for (int h = 0; h < 2; h++) {
        for (int i = 0; i < n; i++) {
            const int64_t x = ref_ld(IN(h ? 0 : 1), w, 1, i);
            const int64_t y = mode == 0 ? SAT(w / 2, ds, x) : mode == 1 ? x : x >> (4 * w);
            ref_st(OUT(0), w / 2, h * n + i, y);
        }
    }
}
REF(Q6_Vb_vpack_VhVh_sat) {
    ref_pack(io, 2, 0, 1);
}
REF(Q6_Vub_vpack_VhVh_sat) {
    ref_pack(io, 2, 0, 0);
}
REF(Q6_Vh_vpack_VwVw_sat) {
    ref_pack(io, 4, 0, 1);
}
REF(Q6_Vuh_vpack_VwVw_sat) {
    ref_pack(io, 4, 0, 0);
}
REF(Q6_Vb_vpacke_VhVh) {
    ref_pack(io, 2, 1, 0);
}
REF(Q6_Vb_vpacko_VhVh) {
    ref_pack(io, 2, 2, 0);
}
REF(Q6_Vh_vpacke_VwVw) {
    ref_pack(io, 4, 1, 0);
}
REF(Q6_Vh_vpacko_VwVw) {
    ref_pack(io, 4, 2, 0);
}
/* unpack: element i of the pair = element i of Vu extended (lo: the first half of Vu) */
static void ref_unpack(struct hvx_case_io *io, int w, int s) {
    const int n = 64 / w;
    for (int i = 0; i < 2 * n; i++) {
        ref_st(OUT(i / n), 2 * w, i % n, ref_ld(IN(0), w, s, i));
    }
}
REF(Q6_Wh_vunpack_Vb) {
    ref_unpack(io, 1, 1);
}
REF(Q6_Wuh_vunpack_Vub) {
    ref_unpack(io, 1, 0);
}
REF(Q6_Ww_vunpack_Vh) {
    ref_unpack(io, 2, 1);
}
REF(Q6_Wuw_vunpack_Vuh) {
    ref_unpack(io, 2, 0);
}
static void ref_unpackoor(struct hvx_case_io *io, int w) {
    const int n = 64 / w;
    for (int i = 0; i < 2 * n; i++) {
        const int64_t x = ref_ld(IN(i / n), 2 * w, 0, i % n) | ref_ld(IN(2), w, 0, i) << (8 * w);
        ref_st(OUT(i / n), 2 * w, i % n, x);
    }
}
REF(Q6_Wh_vunpackoor_WhVb) {
    ref_unpackoor(io, 1);
}
REF(Q6_Ww_vunpackoor_WwVh) {
    ref_unpackoor(io, 2);
}
/* in-lane extension: lo = even elements, hi = odd */
static void ref_xt(struct hvx_case_io *io, int w, int s) {
    for (int i = 0; i < 64 / w; i++) {
        ref_st(OUT(0), 2 * w, i, ref_ld(IN(0), w, s, 2 * i));
        ref_st(OUT(1), 2 * w, i, ref_ld(IN(0), w, s, 2 * i + 1));
    }
}
REF(Q6_Wh_vsxt_Vb) {
    ref_xt(io, 1, 1);
}
REF(Q6_Wuh_vzxt_Vub) {
    ref_xt(io, 1, 0);
}
REF(Q6_Ww_vsxt_Vh) {
    ref_xt(io, 2, 1);
}
REF(Q6_Wuw_vzxt_Vuh) {
    ref_xt(io, 2, 0);
}
/* vlut32: byte i = (idx & 0xE0) == m << 5 ? byte (c >> 1 & 1) of Vv.h[idx % 64] : 0, m = c & 7 */
static void ref_vlut32(struct hvx_case_io *io, int c, int nomatch, int or_slot) {
    const int m = c & 7, odd = (c >> 1) & 1;
    const int u = or_slot >= 0 ? 1 : 0;
    for (int i = 0; i < 128; i++) {
        int64_t idx = ref_ld(IN(u), 1, 0, i);
        if (nomatch) {
            idx = (idx & 0x1F) | (m << 5);
        }
        int64_t x = (idx & 0xE0) == (m << 5) ? ref_ld(IN(u + 1), 1, 0, 2 * (idx % 64) + odd) : 0;
        if (or_slot >= 0) {
            x |= ref_ld(IN(or_slot), 1, 0, i);
        }
        ref_st(OUT(0), 1, i, x);
    }
}
REF(Q6_Vb_vlut32_VbVbR) {
    ref_vlut32(io, io->r, 0, -1);
}
REF(Q6_Vb_vlut32_VbVbI) {
    ref_vlut32(io, io->imm & 7, 0, -1);
}
REF(Q6_Vb_vlut32_VbVbR_nomatch) {
    ref_vlut32(io, io->r, 1, -1);
}
REF(Q6_Vb_vlut32or_VbVbVbR) {
    ref_vlut32(io, io->r, 0, 0);
}
REF(Q6_Vb_vlut32or_VbVbVbI) {
    ref_vlut32(io, io->imm & 7, 0, 0);
}
/* vlut16: lo.h[i] from idx byte 2i, hi.h[i] from byte 2i+1: (idx & 0xF0) == m << 4 ? half (c >> 1 & 1)
 * of Vv.w[idx % 32] : 0, m = c & 15 */
static void ref_vlut16(struct hvx_case_io *io, int c, int nomatch, int acc) {
    const int m = c & 15, odd = (c >> 1) & 1;
    const int u = acc ? 2 : 0;
    for (int i = 0; i < 64; i++) {
        for (int h = 0; h < 2; h++) {
            int64_t idx = ref_ld(IN(u), 1, 0, 2 * i + h);
            if (nomatch) {
                idx = (idx & 0x0F) | (m << 4);
            }
            int64_t x = (idx & 0xF0) == (m << 4) ? ref_ld(IN(u + 1), 2, 0, 2 * (idx % 32) + odd) : 0;
            if (acc) {
                x |= ref_ld(IN(h), 2, 0, i);
            }
            ref_st(OUT(h), 2, i, x);
        }
    }
}
REF(Q6_Wh_vlut16_VbVhR) {
    ref_vlut16(io, io->r, 0, 0);
}
REF(Q6_Wh_vlut16_VbVhI) {
    ref_vlut16(io, io->imm & 7, 0, 0);
}
REF(Q6_Wh_vlut16_VbVhR_nomatch) {
    ref_vlut16(io, io->r, 1, 0);
}
REF(Q6_Wh_vlut16or_WhVbVhR) {
    ref_vlut16(io, io->r & 0xFF, 0, 1);
}
REF(Q6_Wh_vlut16or_WhVbVhI) {
    ref_vlut16(io, io->imm & 7, 0, 1);
}
