/*
 * Host emulation of the HVX qfloat intrinsics (qf32, qf16; v68+): add, subtract, multiply, and the
 * conversions qf32 -> sf, qf32 pair -> hf, qf16 -> hf.
 *
 * Two models, chosen by the emulated architecture (VNPU_HVX_ARCH, see hvx-types.h):
 *
 * v68 .. v75 ("prior internal format"): the register holds a signed significand and a biased exponent:
 *   qf32 = m:24 (two's complement, bits 31..8) | e:8 (bits 7..0), value = (2m + 1) * 2^(e - 127 - 23);
 *   qf16 = m:11 (bits 15..5) | e:5 (bits 4..0),                 value = (2m + 1) * 2^(e - 15 - 10).
 *   The implied half LSB means no value is exactly an integer power of two; results are rounded by the
 *   rule of Qualcomm's published QEMU model (github.com/quic/qemu target/hexagon/mmvec/mmvec_qfloat.c:
 *   parse_qf32, rnd_sat_qf_sig, get_ieee_sig, add_qf32, add_sf, mpy_qf32_sf, conv_sf_qf32, ...), which
 *   this file follows operation by operation in binary64 (that model is itself written in binary64;
 *   every step here is the same IEEE operation, so the bits agree). Negation of a significand is its
 *   ones' complement (negate32). Overflow saturates to the largest significand at the top exponent.
 *
 * v79 and later: the HVX manual (80-N2040-61, "HVX floating point") says the new internal format gives
 *   results identical to IEEE-754 round-to-nearest-even, with extra range and precision. Here a qf32
 *   register holds the binary32 result and a qf16 register the binary16 result of each operation
 *   (canonical NaN as in hvx-float.h); the extra range and precision are not modelled: an overflow is
 *   an infinity, where the hardware keeps a finite value until the conversion to IEEE.
 *
 * Kernels must not interpret qf bits other than through these conversions (the manual's rule); tests
 * check both models against scalar references.
 */
#ifndef VNPU_HVX_QFLOAT_H
#define VNPU_HVX_QFLOAT_H

#include <math.h>

#include "hvx-float.h"

#if VNPU_HVX_ARCH < 79

/* --- the v68..v75 model: a value is (exp, sig) with sig a binary64 significand --- */

struct hvx_qfmt {
    int frac;  /* significand fraction bits: 23 (qf32, sf) or 10 (qf16, hf) */
    int bias;  /* exponent bias: 127 or 15 */
    int e_min; /* smallest qf exponent: -127 or -15 */
    int e_max; /* largest qf exponent: 128 or 16 */
};
static const struct hvx_qfmt hvx_qf32_fmt = {23, 127, -127, 128};
static const struct hvx_qfmt hvx_qf16_fmt = {10, 15, -15, 16};

/* qf32 / qf16 register element -> sig in (-2, 2) (odd multiple of 2^-frac) and unbiased exponent */
HVX_INLINE double hvx_lqf32_parse(uint32_t x, int *exp) {
    *exp = (int) (x & 0xFF) - 127;
    return (double) (((int32_t) x >> 7) | 1) * 0x1p-23;
}
HVX_INLINE double hvx_lqf16_parse(uint16_t x, int *exp) {
    *exp = (int) (x & 0x1F) - 15;
    return (double) (((int16_t) x >> 4) | 1) * 0x1p-10;
}
/* sf / hf -> |sig| in [0, 2) with the exponent clamped to the smallest normal one, and the sign */
HVX_INLINE double hvx_lqf_parse_sf(uint32_t x, int *exp, int *sign) {
    const int e = (int) ((x >> 23) & 0xFF);
    const uint32_t m = (x & 0x7FFFFF) | (e ? 0x800000u : 0);
    *sign = (int) (x >> 31);
    *exp = (e ? e : 1) - 127;
    return (double) m * 0x1p-23;
}
HVX_INLINE double hvx_lqf_parse_hf(uint16_t x, int *exp, int *sign) {
    const int e = (x >> 10) & 0x1F;
    const uint32_t m = (x & 0x3FFu) | (e ? 0x400u : 0);
    *sign = x >> 15;
    *exp = (e ? e : 1) - 15;
    return (double) m * 0x1p-10;
}

/* Round (exp, sig), with sig_low the sign of what a preceding addition dropped, into a qf register of
 * format f: returns the significand field (24 or 11 bits, two's complement as the model builds it) in
 * *field and the biased exponent field. The model rounds to an odd multiple of eps (its implied LSB),
 * renormalising by one when the remainder sits between the odd neighbours. */
HVX_INLINE int hvx_lqf_round(const struct hvx_qfmt *f, int exp, double sig, double sig_low, uint32_t *field) {
    const double eps = ldexp(1.0, -f->frac), units = ldexp(1.0, f->frac);
    const int sign = sig >= 0.0 ? 0 : 1;
    const int prod_ovf = fabs(sig) >= 2.0 && sig != -2.0;
    const double scale = (exp == f->e_min - 1 || (prod_ovf && exp < f->e_max)) ? 2.0 : 1.0;
    const double sig_s = sig / scale;
    const double r1 = sig_s * units;
    const double r3 = r1 - floor(r1 / 4.0) * 4.0;
    const uint32_t sig_mask = (1u << f->frac) - 1;
    int e, adj = 0;
    double sig_f = 0.0;
    if (exp >= f->e_max + 1 || (prod_ovf && exp == f->e_max)) { /* overflow: largest significand */
        *field = ((uint32_t) sign << f->frac) | ((uint32_t) (sign - 1) & sig_mask);
        e = f->e_max + f->bias;
    } else if (exp <= f->e_min - 2) { /* underflow: the smallest significand of the sign */
        *field = ((uint32_t) sign << f->frac) | ((uint32_t) -sign & sig_mask);
        e = f->e_min + f->bias;
    } else {
        if (exp == f->e_max || exp == f->e_min - 1 || prod_ovf) {
            adj = exp != f->e_max;
            if (r3 == 0.0 && sig_low < 0.0) {
                sig_f = sig_s + (3.0 - r3 - 4.0) * eps;
            } else if (r3 < 2.0 || (r3 == 2.0 && sig_low <= 0.0)) {
                sig_f = sig_s + (1.0 - r3) * eps;
            } else {
                sig_f = sig_s + (3.0 - r3) * eps;
            }
        } else if (r3 == 0.0 && sig_low < 0.0) {
            sig_f = sig_s + (3.0 - r3 - 4.0) * eps;
        } else if (r3 < 1.5 || (r3 == 1.5 && sig_low <= 0.0)) {
            sig_f = sig_s + (1.0 - r3) * eps;
        } else if (r3 < 2.5 || (r3 == 2.5 && sig_low <= 0.0)) {
            sig_f = (sig + (2.0 - r3) * eps) * 0.5;
            adj = 1;
        } else {
            sig_f = sig_s + (3.0 - r3) * eps;
        }
        /* the magnitude bits of sig_f from its 2^0 bit down, as the model takes them from the binary64:
         * the 2^0 bit lands on field bit frac - 1 */
        uint64_t bits;
        memcpy(&bits, &sig_f, 8);
        const int exp_df = (int) ((bits >> 52) & 0x7FF) - 1023;
        uint64_t s64 = ((bits & 0xFFFFFFFFFFFFFull) | 0x10000000000000ull) << 11;
        s64 = exp_df >= 0 ? s64 << exp_df : (-exp_df >= 64 ? 0 : s64 >> -exp_df);
        uint32_t m = (uint32_t) (s64 >> (64 - f->frac)) & sig_mask;
        if (sign) {
            m = ~m;
        }
        *field = ((uint32_t) sign << f->frac) | m;
        e = exp + f->bias + adj;
    }
    return (sig == 0.0 && sig_low == 0.0) ? 0 : e; /* an exact zero has a zero exponent field */
}
HVX_INLINE uint32_t hvx_lqf32_pack(int exp, double sig, double sig_low) {
    uint32_t field;
    const int e = hvx_lqf_round(&hvx_qf32_fmt, exp, sig, sig_low, &field);
    return (field << 8) | ((uint32_t) e & 0xFF);
}
HVX_INLINE uint16_t hvx_lqf16_pack(int exp, double sig, double sig_low) {
    uint32_t field;
    const int e = hvx_lqf_round(&hvx_qf16_fmt, exp, sig, sig_low, &field);
    return (uint16_t) ((field << 5) | ((uint32_t) e & 0x1F));
}
/* negate32 / negate16: ones' complement of the significand field, exponent kept */
HVX_INLINE uint32_t hvx_lqf32_neg(uint32_t x) {
    return (~x & 0xFFFFFF00u) | (x & 0xFF);
}
HVX_INLINE uint16_t hvx_lqf16_neg(uint16_t x) {
    return (uint16_t) ((~x & 0xFFE0u) | (x & 0x1F));
}

/* Common exponent of an addition: the larger operand's exponent plus its significand's ilogb, but not
 * below the other exponent (the model's exp_ab). */
HVX_INLINE int hvx_lqf_exp_ab(int ea, double sa, int eb, double sb, int frac) {
    int e;
    if (ea > eb) {
        e = ea + (sa == 0.0 ? -(frac + 1) : ilogb(sa));
        return e < eb ? eb : e;
    }
    e = eb + (sb == 0.0 ? -(frac + 1) : ilogb(sb));
    return e < ea ? ea : e;
}

/* Signed-significand sum a + s_b * b (s_b = +1 or -1): sig_ab and the sign of the dropped part. */
HVX_INLINE double hvx_lqf_sum(int ea, double sa, int eb, double sb, int subtract, int e_ab, double *sig_low) {
    const double a = ldexp(sa, ea - e_ab), b = ldexp(sb, eb - e_ab);
    if (!subtract) {
        const double s = a + b;
        *sig_low = ea > eb ? (a - s) + b : (b - s) + a;
        return s;
    }
    const double s = a - b;
    *sig_low = ea > eb ? (a - s) - b : a - (b + s);
    return s;
}

/* qf (signed significands) +/- qf or +/- IEEE made signed (the _mix forms). */
HVX_INLINE uint32_t hvx_lqf32_addsub(int ea, double sa, int eb, double sb, int subtract) {
    double low;
    const int e = hvx_lqf_exp_ab(ea, sa, eb, sb, 23);
    const double s = hvx_lqf_sum(ea, sa, eb, sb, subtract, e, &low);
    return hvx_lqf32_pack(e, s, low);
}
HVX_INLINE uint16_t hvx_lqf16_addsub(int ea, double sa, int eb, double sb, int subtract) {
    double low;
    const int e = hvx_lqf_exp_ab(ea, sa, eb, sb, 10);
    const double s = hvx_lqf_sum(ea, sa, eb, sb, subtract, e, &low);
    return hvx_lqf16_pack(e, s, low);
}

/* IEEE +/- IEEE into qf: magnitudes combined by the signs (add_sf, sub_sf), the result negated when
 * both are negative (add) or a is negative and b positive (sub). */
HVX_INLINE uint32_t hvx_lqf_ieee_addsub(int ea, double sa, int na, int eb, double sb, int nb, int subtract, int is32) {
    const int frac = is32 ? 23 : 10;
    const int e = hvx_lqf_exp_ab(ea, sa, eb, sb, frac);
    const double a = ldexp(sa, ea - e), b = ldexp(sb, eb - e);
    const int same = (na == nb) != subtract; /* the magnitudes add */
    double s, low;
    if (same) {
        s = a + b;
        low = ea > eb ? (a - s) + b : (b - s) + a;
    } else if (!na) { /* a positive, b subtracted: |a| - |b| */
        s = a - b;
        low = ea > eb ? (a - s) - b : a - (b + s);
    } else { /* |b| - |a| */
        s = b - a;
        low = eb > ea ? (b - s) - a : b - (a + s);
    }
    const int negate = subtract ? (na && !nb) : (na && nb);
    if (is32) {
        const uint32_t r = hvx_lqf32_pack(e, s, low);
        return negate ? hvx_lqf32_neg(r) : r;
    }
    const uint16_t r = hvx_lqf16_pack(e, s, low);
    return negate ? hvx_lqf16_neg(r) : r;
}

/* Round exp, sig (signed) to sf (is32) or hf bits: the model's get_ieee_sig + rnd_sat_sf / rnd_sat_hf. */
HVX_INLINE uint32_t hvx_lqf_to_ieee(int exp, double sig, int is32) {
    const int frac = is32 ? 23 : 10, bias = is32 ? 127 : 15, e_min = is32 ? -126 : -14;
    const double max = is32 ? 0x1p129 - 0x1p105 : 131008.0;
    const uint32_t mmask = (1u << frac) - 1;
    const double value = ldexp(sig, exp);
    uint64_t bits;
    memcpy(&bits, &value, 8);
    int exp_d = (int) ((bits >> 52) & 0x7FF) - 1023;
    uint64_t s53 = (bits & 0xFFFFFFFFFFFFFull) | 0x10000000000000ull;
    const int shift = e_min - exp_d;
    if (exp_d <= e_min - 1) {
        s53 = shift >= 53 ? 0 : s53 >> shift;
    }
    const int drop = 52 - frac;
    uint32_t m = (uint32_t) (s53 >> drop) & mmask;
    const double r1 = (double) s53 / ldexp(1.0, drop);
    const double r3 = r1 - floor(r1 / 2.0) * 2.0;
    if (fabs(value) >= max) {
        m = mmask;
    } else if ((r3 > 0.5 && r3 < 1.0) || r3 >= 1.5) {
        if (m == mmask) {
            m = 0;
            exp_d++;
        } else {
            m++;
        }
    }
    const uint32_t sign = sig >= 0.0 ? 0 : 1;
    if (!is32 && exp_d > 16) {
        return (sign << 15) | 0x7FFFu;
    }
    int e = exp_d + bias;
    const int e_top = is32 ? 255 : 31;
    e = e < 0 ? 0 : e > e_top ? e_top : e;
    return (sign << (is32 ? 31 : 15)) | ((uint32_t) e << frac) | m;
}

#define HVX_QF_LANES32(R, EXPR) \
    HVX_FOR(i, 32) {            \
        R.uw[i] = (EXPR);       \
    }
#define HVX_QF_LANES16(R, EXPR) \
    HVX_FOR(i, 64) {            \
        R.uh[i] = (EXPR);       \
    }

/* per-element operations of the model */
HVX_INLINE uint32_t hvx_lqf32_op_qq(uint32_t a, uint32_t b, int subtract) {
    int ea, eb;
    const double sa = hvx_lqf32_parse(a, &ea), sb = hvx_lqf32_parse(b, &eb);
    return hvx_lqf32_addsub(ea, sa, eb, sb, subtract);
}
HVX_INLINE uint32_t hvx_lqf32_op_qs(uint32_t a, uint32_t b, int subtract) {
    int ea, eb, nb;
    const double sa = hvx_lqf32_parse(a, &ea);
    const double sb = hvx_lqf_parse_sf(b, &eb, &nb);
    return hvx_lqf32_addsub(ea, sa, eb, nb ? -sb : sb, subtract);
}
HVX_INLINE uint32_t hvx_lqf32_op_ss(uint32_t a, uint32_t b, int subtract) {
    int ea, eb, na, nb;
    const double sa = hvx_lqf_parse_sf(a, &ea, &na), sb = hvx_lqf_parse_sf(b, &eb, &nb);
    return hvx_lqf_ieee_addsub(ea, sa, na, eb, sb, nb, subtract, 1);
}
HVX_INLINE uint16_t hvx_lqf16_op_qq(uint16_t a, uint16_t b, int subtract) {
    int ea, eb;
    const double sa = hvx_lqf16_parse(a, &ea), sb = hvx_lqf16_parse(b, &eb);
    return hvx_lqf16_addsub(ea, sa, eb, sb, subtract);
}
HVX_INLINE uint16_t hvx_lqf16_op_qh(uint16_t a, uint16_t b, int subtract) {
    int ea, eb, nb;
    const double sa = hvx_lqf16_parse(a, &ea);
    const double sb = hvx_lqf_parse_hf(b, &eb, &nb);
    return hvx_lqf16_addsub(ea, sa, eb, nb ? -sb : sb, subtract);
}
HVX_INLINE uint16_t hvx_lqf16_op_hh(uint16_t a, uint16_t b, int subtract) {
    int ea, eb, na, nb;
    const double sa = hvx_lqf_parse_hf(a, &ea, &na), sb = hvx_lqf_parse_hf(b, &eb, &nb);
    return (uint16_t) hvx_lqf_ieee_addsub(ea, sa, na, eb, sb, nb, subtract, 0);
}
/* products: exact in binary64, one rounding; IEEE operands contribute magnitudes and a final negation */
HVX_INLINE uint32_t hvx_lqf32_mpy_qq(uint32_t a, uint32_t b) {
    int ea, eb;
    const double sa = hvx_lqf32_parse(a, &ea), sb = hvx_lqf32_parse(b, &eb);
    return hvx_lqf32_pack(ea + eb, sa * sb, 0.0);
}
HVX_INLINE uint32_t hvx_lqf32_mpy_ss(uint32_t a, uint32_t b) {
    int ea, eb, na, nb;
    const double sa = hvx_lqf_parse_sf(a, &ea, &na), sb = hvx_lqf_parse_sf(b, &eb, &nb);
    const uint32_t r = hvx_lqf32_pack(ea + eb, sa * sb, 0.0);
    return (na ^ nb) ? hvx_lqf32_neg(r) : r;
}
HVX_INLINE uint16_t hvx_lqf16_mpy_qq(uint16_t a, uint16_t b) {
    int ea, eb;
    const double sa = hvx_lqf16_parse(a, &ea), sb = hvx_lqf16_parse(b, &eb);
    return hvx_lqf16_pack(ea + eb, sa * sb, 0.0);
}
HVX_INLINE uint16_t hvx_lqf16_mpy_qh(uint16_t a, uint16_t b) {
    int ea, eb, nb;
    const double sa = hvx_lqf16_parse(a, &ea), sb = hvx_lqf_parse_hf(b, &eb, &nb);
    const uint16_t r = hvx_lqf16_pack(ea + eb, sa * sb, 0.0);
    return nb ? hvx_lqf16_neg(r) : r;
}
HVX_INLINE uint16_t hvx_lqf16_mpy_hh(uint16_t a, uint16_t b) {
    int ea, eb, na, nb;
    const double sa = hvx_lqf_parse_hf(a, &ea, &na), sb = hvx_lqf_parse_hf(b, &eb, &nb);
    const uint16_t r = hvx_lqf16_pack(ea + eb, sa * sb, 0.0);
    return (na ^ nb) ? hvx_lqf16_neg(r) : r;
}
/* hf x hf, qf16 x hf, qf16 x qf16 into qf32 */
HVX_INLINE uint32_t hvx_lqf32_mpy_hh(uint16_t a, uint16_t b) {
    int ea, eb, na, nb;
    const double sa = hvx_lqf_parse_hf(a, &ea, &na), sb = hvx_lqf_parse_hf(b, &eb, &nb);
    const uint32_t r = hvx_lqf32_pack(ea + eb, sa * sb, 0.0);
    return (na ^ nb) ? hvx_lqf32_neg(r) : r;
}
HVX_INLINE uint32_t hvx_lqf32_mpy_qh(uint16_t a, uint16_t b) {
    int ea, eb, nb;
    const double sa = hvx_lqf16_parse(a, &ea), sb = hvx_lqf_parse_hf(b, &eb, &nb);
    const uint32_t r = hvx_lqf32_pack(ea + eb, sa * sb, 0.0);
    return nb ? hvx_lqf32_neg(r) : r;
}
HVX_INLINE uint32_t hvx_lqf32_mpy_q16q16(uint16_t a, uint16_t b) {
    int ea, eb;
    const double sa = hvx_lqf16_parse(a, &ea), sb = hvx_lqf16_parse(b, &eb);
    return hvx_lqf32_pack(ea + eb, sa * sb, 0.0);
}
HVX_INLINE uint32_t hvx_lqf32_to_sf(uint32_t a) {
    int e;
    const double s = hvx_lqf32_parse(a, &e);
    return hvx_lqf_to_ieee(e, s, 1);
}
HVX_INLINE uint16_t hvx_lqf32_to_hf(uint32_t a) {
    int e;
    const double s = hvx_lqf32_parse(a, &e);
    return (uint16_t) hvx_lqf_to_ieee(e, s, 0);
}
HVX_INLINE uint16_t hvx_lqf16_to_hf(uint16_t a) {
    int e;
    const double s = hvx_lqf16_parse(a, &e);
    return (uint16_t) hvx_lqf_to_ieee(e, s, 0);
}

#define HVX_QF32_ADD_QQ(a, b)  hvx_lqf32_op_qq(a, b, 0)
#define HVX_QF32_SUB_QQ(a, b)  hvx_lqf32_op_qq(a, b, 1)
#define HVX_QF32_ADD_QS(a, b)  hvx_lqf32_op_qs(a, b, 0)
#define HVX_QF32_SUB_QS(a, b)  hvx_lqf32_op_qs(a, b, 1)
#define HVX_QF32_ADD_SS(a, b)  hvx_lqf32_op_ss(a, b, 0)
#define HVX_QF32_SUB_SS(a, b)  hvx_lqf32_op_ss(a, b, 1)
#define HVX_QF32_MPY_QQ(a, b)  hvx_lqf32_mpy_qq(a, b)
#define HVX_QF32_MPY_SS(a, b)  hvx_lqf32_mpy_ss(a, b)
#define HVX_QF16_ADD_QQ(a, b)  hvx_lqf16_op_qq(a, b, 0)
#define HVX_QF16_SUB_QQ(a, b)  hvx_lqf16_op_qq(a, b, 1)
#define HVX_QF16_ADD_QH(a, b)  hvx_lqf16_op_qh(a, b, 0)
#define HVX_QF16_SUB_QH(a, b)  hvx_lqf16_op_qh(a, b, 1)
#define HVX_QF16_ADD_HH(a, b)  hvx_lqf16_op_hh(a, b, 0)
#define HVX_QF16_SUB_HH(a, b)  hvx_lqf16_op_hh(a, b, 1)
#define HVX_QF16_MPY_QQ(a, b)  hvx_lqf16_mpy_qq(a, b)
#define HVX_QF16_MPY_QH(a, b)  hvx_lqf16_mpy_qh(a, b)
#define HVX_QF16_MPY_HH(a, b)  hvx_lqf16_mpy_hh(a, b)
#define HVX_QF32_MPY_HH(a, b)  hvx_lqf32_mpy_hh(a, b)
#define HVX_QF32_MPY_QH(a, b)  hvx_lqf32_mpy_qh(a, b)
#define HVX_QF32_MPY_Q16(a, b) hvx_lqf32_mpy_q16q16(a, b)
#define HVX_QF32_TO_SF(a)      hvx_lqf32_to_sf(a)
#define HVX_QF32_TO_HF(a)      hvx_lqf32_to_hf(a)
#define HVX_QF16_TO_HF(a)      hvx_lqf16_to_hf(a)

#else /* VNPU_HVX_ARCH >= 79: qf values are the IEEE results */

HVX_INLINE uint32_t hvx_iqf32_op(uint32_t a, uint32_t b, int op) {
    const float x = hvx_sf(a), y = hvx_sf(b);
    return hvx_sf_canon(op == 0 ? x + y : op == 1 ? x - y : x * y);
}
HVX_INLINE uint16_t hvx_iqf16_op(uint16_t a, uint16_t b, int op) {
    return (uint16_t) hvx_sf_to_hf(hvx_iqf32_op(hvx_hf_to_sf(a), hvx_hf_to_sf(b), op));
}
HVX_INLINE uint32_t hvx_iqf32_mpy_hh(uint16_t a, uint16_t b) {
    return hvx_iqf32_op(hvx_hf_to_sf(a), hvx_hf_to_sf(b), 2);
}
#define HVX_QF32_ADD_QQ(a, b)  hvx_iqf32_op(a, b, 0)
#define HVX_QF32_SUB_QQ(a, b)  hvx_iqf32_op(a, b, 1)
#define HVX_QF32_ADD_QS(a, b)  hvx_iqf32_op(a, b, 0)
#define HVX_QF32_SUB_QS(a, b)  hvx_iqf32_op(a, b, 1)
#define HVX_QF32_ADD_SS(a, b)  hvx_iqf32_op(a, b, 0)
#define HVX_QF32_SUB_SS(a, b)  hvx_iqf32_op(a, b, 1)
#define HVX_QF32_MPY_QQ(a, b)  hvx_iqf32_op(a, b, 2)
#define HVX_QF32_MPY_SS(a, b)  hvx_iqf32_op(a, b, 2)
#define HVX_QF16_ADD_QQ(a, b)  hvx_iqf16_op(a, b, 0)
#define HVX_QF16_SUB_QQ(a, b)  hvx_iqf16_op(a, b, 1)
#define HVX_QF16_ADD_QH(a, b)  hvx_iqf16_op(a, b, 0)
#define HVX_QF16_SUB_QH(a, b)  hvx_iqf16_op(a, b, 1)
#define HVX_QF16_ADD_HH(a, b)  hvx_iqf16_op(a, b, 0)
#define HVX_QF16_SUB_HH(a, b)  hvx_iqf16_op(a, b, 1)
#define HVX_QF16_MPY_QQ(a, b)  hvx_iqf16_op(a, b, 2)
#define HVX_QF16_MPY_QH(a, b)  hvx_iqf16_op(a, b, 2)
#define HVX_QF16_MPY_HH(a, b)  hvx_iqf16_op(a, b, 2)
#define HVX_QF32_MPY_HH(a, b)  hvx_iqf32_mpy_hh(a, b)
#define HVX_QF32_MPY_QH(a, b)  hvx_iqf32_mpy_hh(a, b)
#define HVX_QF32_MPY_Q16(a, b) hvx_iqf32_mpy_hh(a, b)
#define HVX_QF32_TO_SF(a)      (a)
#define HVX_QF32_TO_HF(a)      hvx_sf_to_hf(a)
#define HVX_QF16_TO_HF(a)      (a)

#endif

/* --- the intrinsics: per element through the model above --- */
#define HVX_DEF_QF32(NAME, CLS, OP)                            \
    HVX_INLINE HVX_Vector NAME(HVX_Vector vu, HVX_Vector vv) { \
        HVX_COUNT(CLS);                                        \
        HVX_Vector r;                                          \
        HVX_FOR(i, 32) r.uw[i] = OP(vu.uw[i], vv.uw[i]);       \
        return r;                                              \
    }
#define HVX_DEF_QF16(NAME, CLS, OP)                                 \
    HVX_INLINE HVX_Vector NAME(HVX_Vector vu, HVX_Vector vv) {      \
        HVX_COUNT(CLS);                                             \
        HVX_Vector r;                                               \
        HVX_FOR(i, 64) r.uh[i] = (uint16_t) OP(vu.uh[i], vv.uh[i]); \
        return r;                                                   \
    }
/* Vd.qf32 = vadd/vsub(Vu.{sf,qf32}, Vv.{sf,qf32}): CVI_VS; vmpy: CVI_VX_DV. */
HVX_DEF_QF32(Q6_Vqf32_vadd_VsfVsf, VS, HVX_QF32_ADD_SS)
HVX_DEF_QF32(Q6_Vqf32_vadd_Vqf32Vqf32, VS, HVX_QF32_ADD_QQ)
HVX_DEF_QF32(Q6_Vqf32_vadd_Vqf32Vsf, VS, HVX_QF32_ADD_QS)
HVX_DEF_QF32(Q6_Vqf32_vsub_VsfVsf, VS, HVX_QF32_SUB_SS)
HVX_DEF_QF32(Q6_Vqf32_vsub_Vqf32Vqf32, VS, HVX_QF32_SUB_QQ)
HVX_DEF_QF32(Q6_Vqf32_vsub_Vqf32Vsf, VS, HVX_QF32_SUB_QS)
HVX_DEF_QF32(Q6_Vqf32_vmpy_VsfVsf, VX_DV, HVX_QF32_MPY_SS)
HVX_DEF_QF32(Q6_Vqf32_vmpy_Vqf32Vqf32, VX_DV, HVX_QF32_MPY_QQ)
/* Vd.qf16 = vadd/vsub(Vu.{hf,qf16}, Vv.{hf,qf16}): CVI_VS; vmpy: CVI_VX_DV. */
HVX_DEF_QF16(Q6_Vqf16_vadd_VhfVhf, VS, HVX_QF16_ADD_HH)
HVX_DEF_QF16(Q6_Vqf16_vadd_Vqf16Vqf16, VS, HVX_QF16_ADD_QQ)
HVX_DEF_QF16(Q6_Vqf16_vadd_Vqf16Vhf, VS, HVX_QF16_ADD_QH)
HVX_DEF_QF16(Q6_Vqf16_vsub_VhfVhf, VS, HVX_QF16_SUB_HH)
HVX_DEF_QF16(Q6_Vqf16_vsub_Vqf16Vqf16, VS, HVX_QF16_SUB_QQ)
HVX_DEF_QF16(Q6_Vqf16_vsub_Vqf16Vhf, VS, HVX_QF16_SUB_QH)
HVX_DEF_QF16(Q6_Vqf16_vmpy_VhfVhf, VX_DV, HVX_QF16_MPY_HH)
HVX_DEF_QF16(Q6_Vqf16_vmpy_Vqf16Vqf16, VX_DV, HVX_QF16_MPY_QQ)
HVX_DEF_QF16(Q6_Vqf16_vmpy_Vqf16Vhf, VX_DV, HVX_QF16_MPY_QH)

/* Vdd.qf32 = vmpy(Vu.{hf,qf16}, Vv.{hf,qf16}): lo from even halves, hi from odd ones. CVI_VX_DV. */
#define HVX_DEF_WQF32(NAME, OP)                                                             \
    HVX_INLINE HVX_VectorPair NAME(HVX_Vector vu, HVX_Vector vv) {                          \
        HVX_COUNT(VX_DV);                                                                   \
        HVX_VectorPair r;                                                                   \
        HVX_FOR(j, 2) HVX_FOR(i, 32) r.v[j].uw[i] = OP(vu.uh[2 * i + j], vv.uh[2 * i + j]); \
        return r;                                                                           \
    }
HVX_DEF_WQF32(Q6_Wqf32_vmpy_VhfVhf, HVX_QF32_MPY_HH)
HVX_DEF_WQF32(Q6_Wqf32_vmpy_Vqf16Vhf, HVX_QF32_MPY_QH)
HVX_DEF_WQF32(Q6_Wqf32_vmpy_Vqf16Vqf16, HVX_QF32_MPY_Q16)

/* Vd.sf = Vu.qf32. CVI_VS. */
HVX_INLINE HVX_Vector Q6_Vsf_equals_Vqf32(HVX_Vector vu) {
    HVX_COUNT(VS);
    HVX_Vector r;
    HVX_FOR(i, 32) r.uw[i] = HVX_QF32_TO_SF(vu.uw[i]);
    return r;
}
/* Vd.hf = Vu.qf16. CVI_VS. */
HVX_INLINE HVX_Vector Q6_Vhf_equals_Vqf16(HVX_Vector vu) {
    HVX_COUNT(VS);
    HVX_Vector r;
    HVX_FOR(i, 64) r.uh[i] = (uint16_t) HVX_QF16_TO_HF(vu.uh[i]);
    return r;
}
/* Vd.hf = Vuu.qf32: half 2i from lo.w[i], half 2i+1 from hi.w[i]. CVI_VS. */
HVX_INLINE HVX_Vector Q6_Vhf_equals_Wqf32(HVX_VectorPair vuu) {
    HVX_COUNT(VS);
    HVX_Vector r;
    HVX_FOR(i, 32) {
        r.uh[2 * i] = (uint16_t) HVX_QF32_TO_HF(vuu.v[0].uw[i]);
        r.uh[2 * i + 1] = (uint16_t) HVX_QF32_TO_HF(vuu.v[1].uw[i]);
    }
    return r;
}

#endif /* VNPU_HVX_QFLOAT_H */
