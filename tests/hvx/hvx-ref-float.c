/*
 * Scalar references of the floating-point HVX intrinsics (see hvx-ref.h), one per row of
 * HVX_CASES_FLOAT, for the HVX version the test is built for (VNPU_HVX_ARCH: the qf model differs).
 *
 * Independent of the emulation's arithmetic: IEEE results are computed in binary64 (exact for hf
 * operands; one correct rounding for sf, since 53 >= 2 * 24 + 2) and rounded to binary16 by
 * ref_d_to_hf below or by GGML's conversion (src/base fp16.c, vnpu-core); the qf32/qf16 v68..v75
 * model is evaluated in exact integer arithmetic from its definition (value (2m + 1) 2^(e - bias -
 * frac), rounding to the odd grid, see src/hvx/hvx-qfloat.h).
 */
#include "hvx-ref.h"

#include <math.h>
#include <string.h>

#include "fp16.h"

#define SF_NAN 0x7FFFFFFFu
#define HF_NAN 0x7FFFu

static float ref_f(uint32_t u) {
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static uint32_t ref_u(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
static int ref_isnan32(uint32_t u) {
    return (u & 0x7FFFFFFFu) > 0x7F800000u;
}
static int ref_isnan16(uint32_t h) {
    return (h & 0x7FFFu) > 0x7C00u;
}
static double ref_hf(uint32_t h) { /* exact */
    return (double) vnpu_fp16_to_f32((vnpu_fp16_t) h);
}
/* binary32 result of a binary64 value (one rounding), canonical NaN */
static uint32_t ref_d_to_sf(double x) {
    return isnan(x) ? SF_NAN : ref_u((float) x);
}
/* binary16 of a binary64 value by nearest even; tie < 0 / > 0 breaks an exact midpoint downwards /
 * upwards in magnitude (the sign of a dropped remainder); overflow to infinity, NaN canonical */
static uint32_t ref_d_to_hf_tie(double x, int tie) {
    if (isnan(x)) {
        return HF_NAN;
    }
    const uint32_t sign = signbit(x) ? 0x8000u : 0;
    double a = fabs(x);
    if (isinf(a)) {
        return sign | 0x7C00u;
    }
    if (a == 0.0) {
        return sign;
    }
    int e = ilogb(a);
    if (e < -14) {
        e = -14;
    }
    double q = ldexp(a, 10 - e); /* significand in units of the hf quantum, exact */
    const double fl = floor(q);
    if (q - fl == 0.5 && tie != 0) {
        q = tie > 0 ? fl + 1 : fl;
    } else {
        q = rint(q);
    }
    if (q >= 2048) {
        q /= 2;
        e++;
    }
    if (e > 15) {
        return sign | 0x7C00u;
    }
    if (q < 1024) { /* subnormal */
        return sign | (uint32_t) q;
    }
    return sign | (uint32_t) (e + 15) << 10 | ((uint32_t) q - 1024);
}
static uint32_t ref_d_to_hf(double x) {
    return ref_d_to_hf_tie(x, 0);
}
/* binary16 of a binary32 value: GGML's conversion, canonical NaN */
static uint32_t ref_sf_to_hf(uint32_t u) {
    return ref_isnan32(u) ? HF_NAN : vnpu_f32_to_fp16(ref_f(u));
}

/* element access: 32-bit and 16-bit lanes */
static uint32_t w32(struct hvx_case_io *io, int k, int i) {
    return (uint32_t) ref_ld(IN(k), 4, 0, i);
}
static uint32_t h16(struct hvx_case_io *io, int k, int i) {
    return (uint32_t) ref_ld(IN(k), 2, 0, i);
}

/* ================= IEEE arithmetic ================= */
static double ref_op(double a, double b, int op) {
    return op == 0 ? a + b : op == 1 ? a - b : a * b;
}
static void ref_sf_op(struct hvx_case_io *io, int op) {
    for (int i = 0; i < 32; i++) {
        ref_st(OUT(0), 4, i, ref_d_to_sf(ref_op(ref_f(w32(io, 0, i)), ref_f(w32(io, 1, i)), op)));
    }
}
static void ref_hf_op(struct hvx_case_io *io, int op) {
    for (int i = 0; i < 64; i++) {
        ref_st(OUT(0), 2, i, ref_d_to_hf(ref_op(ref_hf(h16(io, 0, i)), ref_hf(h16(io, 1, i)), op)));
    }
}
/* widened: lo from even halves, hi from odd; hf values are exact in binary64, one rounding to sf */
static void ref_wsf_op(struct hvx_case_io *io, int op) {
    for (int h = 0; h < 2; h++) {
        for (int i = 0; i < 32; i++) {
            ref_st(OUT(h), 4, i, ref_d_to_sf(ref_op(ref_hf(h16(io, 0, 2 * i + h)), ref_hf(h16(io, 1, 2 * i + h)), op)));
        }
    }
}
REF(Q6_Vsf_vadd_VsfVsf) {
    ref_sf_op(io, 0);
}
REF(Q6_Vsf_vsub_VsfVsf) {
    ref_sf_op(io, 1);
}
REF(Q6_Vsf_vmpy_VsfVsf) {
    ref_sf_op(io, 2);
}
REF(Q6_Vhf_vadd_VhfVhf) {
    ref_hf_op(io, 0);
}
REF(Q6_Vhf_vsub_VhfVhf) {
    ref_hf_op(io, 1);
}
REF(Q6_Vhf_vmpy_VhfVhf) {
    ref_hf_op(io, 2);
}
REF(Q6_Wsf_vadd_VhfVhf) {
    ref_wsf_op(io, 0);
}
REF(Q6_Wsf_vsub_VhfVhf) {
    ref_wsf_op(io, 1);
}
REF(Q6_Wsf_vmpy_VhfVhf) {
    ref_wsf_op(io, 2);
}
/* hf fma rounded once: s = p + c in binary64 with its exact error e (TwoSum); s rounds as the exact
 * value unless s is an hf midpoint, where e decides */
REF(Q6_Vhf_vmpyacc_VhfVhfVhf) {
    for (int i = 0; i < 64; i++) {
        const uint32_t a = h16(io, 1, i), b = h16(io, 2, i), c = h16(io, 0, i);
        const double p = ref_hf(a) * ref_hf(b), cd = ref_hf(c);
        const double s = p + cd;
        if (isnan(s) || isinf(s) || isinf(p) || isinf(cd)) {
            ref_st(OUT(0), 2, i, ref_d_to_hf(s));
            continue;
        }
        const double bb = s - p, err = (p - (s - bb)) + (cd - bb);
        const int tie = err == 0 ? 0 : ((err > 0) == (s > 0) ? 1 : -1);
        ref_st(OUT(0), 2, i, s == 0 ? (((a ^ b) & c) & 0x8000u) : ref_d_to_hf_tie(s, tie));
    }
}
REF(Q6_Wsf_vmpyacc_WsfVhfVhf) {
    for (int h = 0; h < 2; h++) {
        for (int i = 0; i < 32; i++) {
            const double p = ref_hf(h16(io, 2, 2 * i + h)) * ref_hf(h16(io, 3, 2 * i + h));
            ref_st(OUT(h), 4, i, ref_d_to_sf((double) ref_f(w32(io, h, i)) + p));
        }
    }
}
static double ref_dmpy(struct hvx_case_io *io, int u, int i) {
    return ref_hf(h16(io, u, 2 * i + 1)) * ref_hf(h16(io, u + 1, 2 * i + 1)) +
           ref_hf(h16(io, u, 2 * i)) * ref_hf(h16(io, u + 1, 2 * i));
}
REF(Q6_Vsf_vdmpy_VhfVhf) {
    for (int i = 0; i < 32; i++) {
        ref_st(OUT(0), 4, i, ref_d_to_sf(ref_dmpy(io, 0, i)));
    }
}
REF(Q6_Vsf_vdmpyacc_VsfVhfVhf) {
    for (int i = 0; i < 32; i++) {
        const uint32_t d = ref_d_to_sf(ref_dmpy(io, 1, i));
        ref_st(OUT(0), 4, i, ref_d_to_sf((double) ref_f(d) + ref_f(w32(io, 0, i))));
    }
}

/* ================= min, max, sign ================= */
/* IEEE max/min of non-NaN values with -0 < +0 */
static double ref_fmax(double a, double b, int max) {
    if (a == b) {
        return (max ? !signbit(a) : signbit(a)) ? a : b;
    }
    return (max ? a > b : a < b) ? a : b;
}
/* vmax/vmin: a NaN of the winning sign is returned unchanged (+NaN above +inf, -NaN below -inf) */
static uint32_t ref_qf_minmax(uint32_t a, uint32_t b, int an, int bn, uint32_t sbit, int max, double fa, double fb,
                              int is32) {
    const int apos = an && !(a & sbit), aneg = an && (a & sbit), bpos = bn && !(b & sbit), bneg = bn && (b & sbit);
    if (apos || bneg) {
        return max ? a : b;
    }
    if (bpos || aneg) {
        return max ? b : a;
    }
    const double r = ref_fmax(fa, fb, max);
    return is32 ? ref_u((float) r) : ref_d_to_hf(r);
}
static void ref_vmax32(struct hvx_case_io *io, int max, int ieee) {
    for (int i = 0; i < 32; i++) {
        const uint32_t a = w32(io, 0, i), b = w32(io, 1, i);
        const int an = ref_isnan32(a), bn = ref_isnan32(b);
        const uint32_t r =
            ieee && (an || bn) ? SF_NAN : ref_qf_minmax(a, b, an, bn, 0x80000000u, max, ref_f(a), ref_f(b), 1);
        ref_st(OUT(0), 4, i, r);
    }
}
static void ref_vmax16(struct hvx_case_io *io, int max, int ieee) {
    for (int i = 0; i < 64; i++) {
        const uint32_t a = h16(io, 0, i), b = h16(io, 1, i);
        const int an = ref_isnan16(a), bn = ref_isnan16(b);
        const uint32_t r =
            ieee && (an || bn) ? HF_NAN : ref_qf_minmax(a, b, an, bn, 0x8000u, max, ref_hf(a), ref_hf(b), 0);
        ref_st(OUT(0), 2, i, r);
    }
}
REF(Q6_Vsf_vmax_VsfVsf) {
    ref_vmax32(io, 1, 0);
}
REF(Q6_Vsf_vmin_VsfVsf) {
    ref_vmax32(io, 0, 0);
}
REF(Q6_Vhf_vmax_VhfVhf) {
    ref_vmax16(io, 1, 0);
}
REF(Q6_Vhf_vmin_VhfVhf) {
    ref_vmax16(io, 0, 0);
}
REF(Q6_Vsf_vfmax_VsfVsf) {
    ref_vmax32(io, 1, 1);
}
REF(Q6_Vsf_vfmin_VsfVsf) {
    ref_vmax32(io, 0, 1);
}
REF(Q6_Vhf_vfmax_VhfVhf) {
    ref_vmax16(io, 1, 1);
}
REF(Q6_Vhf_vfmin_VhfVhf) {
    ref_vmax16(io, 0, 1);
}
REF(Q6_Vsf_vabs_Vsf) {
    for (int i = 0; i < 32; i++) {
        ref_st(OUT(0), 4, i, w32(io, 0, i) & 0x7FFFFFFFu);
    }
}
REF(Q6_Vhf_vabs_Vhf) {
    for (int i = 0; i < 64; i++) {
        ref_st(OUT(0), 2, i, h16(io, 0, i) & 0x7FFFu);
    }
}
REF(Q6_Vsf_vfneg_Vsf) {
    for (int i = 0; i < 32; i++) {
        ref_st(OUT(0), 4, i, w32(io, 0, i) ^ 0x80000000u);
    }
}
REF(Q6_Vhf_vfneg_Vhf) {
    for (int i = 0; i < 64; i++) {
        ref_st(OUT(0), 2, i, h16(io, 0, i) ^ 0x8000u);
    }
}
REF(Q6_Vw_vfmv_Vw) {
    io->out[0] = io->in[0];
}

/* ================= compares ================= */
/* a > b; with a NaN operand: opposite signs compare by sign; same sign: (a NaN and b not, or a quiet
 * and b not) decides, inverted for negative values (QEMU's HVX NaN order) */
static int ref_gt(uint32_t a, uint32_t b, int an, int bn, uint32_t sbit, uint32_t qbit, double fa, double fb) {
    if (!an && !bn) {
        return fa > fb;
    }
    const int aneg = (a & sbit) != 0, bneg = (b & sbit) != 0;
    if (aneg != bneg) {
        return !aneg;
    }
    const int gt = (an && !bn) || ((an && (a & qbit)) && !(bn && (b & qbit)));
    return aneg ? !gt : gt;
}
static void ref_fcmp(struct hvx_case_io *io, int w, int acc) {
    const int u = acc ? 1 : 0;
    for (int i = 0; i < 128 / w; i++) {
        int c;
        if (w == 4) {
            const uint32_t a = w32(io, u, i), b = w32(io, u + 1, i);
            c = ref_gt(a, b, ref_isnan32(a), ref_isnan32(b), 0x80000000u, 0x400000u, ref_f(a), ref_f(b));
        } else {
            const uint32_t a = h16(io, u, i), b = h16(io, u + 1, i);
            c = ref_gt(a, b, ref_isnan16(a), ref_isnan16(b), 0x8000u, 0x200u, ref_hf(a), ref_hf(b));
        }
        for (int j = 0; j < w; j++) {
            const int old = ref_q(io, 0, w * i + j);
            ref_put_q(io, w * i + j, acc == 0 ? c : acc == 1 ? old && c : acc == 2 ? old || c : old != c);
        }
    }
}
REF(Q6_Q_vcmp_gt_VsfVsf) {
    ref_fcmp(io, 4, 0);
}
REF(Q6_Q_vcmp_gtand_QVsfVsf) {
    ref_fcmp(io, 4, 1);
}
REF(Q6_Q_vcmp_gtor_QVsfVsf) {
    ref_fcmp(io, 4, 2);
}
REF(Q6_Q_vcmp_gtxacc_QVsfVsf) {
    ref_fcmp(io, 4, 3);
}
REF(Q6_Q_vcmp_gt_VhfVhf) {
    ref_fcmp(io, 2, 0);
}
REF(Q6_Q_vcmp_gtand_QVhfVhf) {
    ref_fcmp(io, 2, 1);
}
REF(Q6_Q_vcmp_gtor_QVhfVhf) {
    ref_fcmp(io, 2, 2);
}
REF(Q6_Q_vcmp_gtxacc_QVhfVhf) {
    ref_fcmp(io, 2, 3);
}

/* ================= conversions ================= */
/* hf to an integer in [lo, hi]: nearest even or toward zero, saturated; NaN gives nan */
static int64_t ref_hf_to_int(uint32_t h, int64_t lo, int64_t hi, int toward_zero, int64_t nan) {
    if (ref_isnan16(h)) {
        return nan;
    }
    const double x = ref_hf(h);
    const double r = toward_zero ? trunc(x) : rint(x);
    return r < (double) lo ? lo : r > (double) hi ? hi : (int64_t) r;
}
REF(Q6_Wsf_vcvt_Vhf) {
    for (int h = 0; h < 2; h++) {
        for (int i = 0; i < 32; i++) {
            const uint32_t x = h16(io, 0, 2 * i + h);
            ref_st(OUT(h), 4, i, ref_isnan16(x) ? SF_NAN : ref_u((float) ref_hf(x)));
        }
    }
}
REF(Q6_Vhf_vcvt_VsfVsf) {
    for (int i = 0; i < 32; i++) {
        ref_st(OUT(0), 2, 2 * i, ref_sf_to_hf(w32(io, 0, i)));
        ref_st(OUT(0), 2, 2 * i + 1, ref_sf_to_hf(w32(io, 1, i)));
    }
}
REF(Q6_Vhf_vcvt_Vh) {
    for (int i = 0; i < 64; i++) {
        ref_st(OUT(0), 2, i, ref_d_to_hf((double) ref_ld(IN(0), 2, 1, i)));
    }
}
REF(Q6_Vhf_vcvt_Vuh) {
    for (int i = 0; i < 64; i++) {
        ref_st(OUT(0), 2, i, ref_d_to_hf((double) ref_ld(IN(0), 2, 0, i)));
    }
}
REF(Q6_Vh_vcvt_Vhf) {
    for (int i = 0; i < 64; i++) {
        ref_st(OUT(0), 2, i, ref_hf_to_int(h16(io, 0, i), INT16_MIN, INT16_MAX, 0, INT16_MAX));
    }
}
REF(Q6_Vuh_vcvt_Vhf) {
    for (int i = 0; i < 64; i++) {
        ref_st(OUT(0), 2, i, ref_hf_to_int(h16(io, 0, i), 0, UINT16_MAX, 0, UINT16_MAX));
    }
}
/* bytes 4i, 4i+1 -> lo halves 2i, 2i+1; bytes 4i+2, 4i+3 -> hi */
static void ref_cvt_from_b(struct hvx_case_io *io, int s) {
    for (int i = 0; i < 32; i++) {
        for (int h = 0; h < 2; h++) {
            for (int e = 0; e < 2; e++) {
                ref_st(OUT(h), 2, 2 * i + e, ref_d_to_hf((double) ref_ld(IN(0), 1, s, 4 * i + 2 * h + e)));
            }
        }
    }
}
REF(Q6_Whf_vcvt_Vb) {
    ref_cvt_from_b(io, 1);
}
REF(Q6_Whf_vcvt_Vub) {
    ref_cvt_from_b(io, 0);
}
static void ref_cvt_to_b(struct hvx_case_io *io, int s) {
    const int64_t lo = s ? INT8_MIN : 0, hi = s ? INT8_MAX : UINT8_MAX;
    for (int i = 0; i < 32; i++) {
        for (int e = 0; e < 2; e++) {
            ref_st(OUT(0), 1, 4 * i + e, ref_hf_to_int(h16(io, 0, 2 * i + e), lo, hi, 0, hi));
            ref_st(OUT(0), 1, 4 * i + 2 + e, ref_hf_to_int(h16(io, 1, 2 * i + e), lo, hi, 0, hi));
        }
    }
}
REF(Q6_Vb_vcvt_VhfVhf) {
    ref_cvt_to_b(io, 1);
}
REF(Q6_Vub_vcvt_VhfVhf) {
    ref_cvt_to_b(io, 0);
}
#if VNPU_HVX_ARCH >= 73
REF(Q6_Vsf_equals_Vw) {
    for (int i = 0; i < 32; i++) {
        ref_st(OUT(0), 4, i, ref_d_to_sf((double) ref_ld(IN(0), 4, 1, i)));
    }
}
REF(Q6_Vw_equals_Vsf) {
    for (int i = 0; i < 32; i++) {
        const uint32_t u = w32(io, 0, i);
        const double x = ref_f(u);
        int64_t r = ref_isnan32(u) ? ((u >> 31) ? INT32_MIN : INT32_MAX)
                                   : (int64_t) fmax(fmin(trunc(x), 2147483647.0), -2147483648.0);
        ref_st(OUT(0), 4, i, r);
    }
}
REF(Q6_Vhf_equals_Vh) {
    for (int i = 0; i < 64; i++) {
        ref_st(OUT(0), 2, i, ref_d_to_hf((double) ref_ld(IN(0), 2, 1, i)));
    }
}
REF(Q6_Vh_equals_Vhf) {
    for (int i = 0; i < 64; i++) {
        const uint32_t h = h16(io, 0, i);
        ref_st(OUT(0), 2, i, ref_hf_to_int(h, INT16_MIN, INT16_MAX, 1, (h & 0x8000u) ? INT16_MIN : INT16_MAX));
    }
}
#endif

/* ================= qf32 / qf16 ================= */
#if VNPU_HVX_ARCH >= 79
/* v79 model: qf registers hold the IEEE results */
REF(Q6_Vqf32_vadd_VsfVsf) {
    ref_sf_op(io, 0);
}
REF(Q6_Vqf32_vadd_Vqf32Vqf32) {
    ref_sf_op(io, 0);
}
REF(Q6_Vqf32_vadd_Vqf32Vsf) {
    ref_sf_op(io, 0);
}
REF(Q6_Vqf32_vsub_VsfVsf) {
    ref_sf_op(io, 1);
}
REF(Q6_Vqf32_vsub_Vqf32Vqf32) {
    ref_sf_op(io, 1);
}
REF(Q6_Vqf32_vsub_Vqf32Vsf) {
    ref_sf_op(io, 1);
}
REF(Q6_Vqf32_vmpy_VsfVsf) {
    ref_sf_op(io, 2);
}
REF(Q6_Vqf32_vmpy_Vqf32Vqf32) {
    ref_sf_op(io, 2);
}
REF(Q6_Vqf16_vadd_VhfVhf) {
    ref_hf_op(io, 0);
}
REF(Q6_Vqf16_vadd_Vqf16Vqf16) {
    ref_hf_op(io, 0);
}
REF(Q6_Vqf16_vadd_Vqf16Vhf) {
    ref_hf_op(io, 0);
}
REF(Q6_Vqf16_vsub_VhfVhf) {
    ref_hf_op(io, 1);
}
REF(Q6_Vqf16_vsub_Vqf16Vqf16) {
    ref_hf_op(io, 1);
}
REF(Q6_Vqf16_vsub_Vqf16Vhf) {
    ref_hf_op(io, 1);
}
REF(Q6_Vqf16_vmpy_VhfVhf) {
    ref_hf_op(io, 2);
}
REF(Q6_Vqf16_vmpy_Vqf16Vqf16) {
    ref_hf_op(io, 2);
}
REF(Q6_Vqf16_vmpy_Vqf16Vhf) {
    ref_hf_op(io, 2);
}
REF(Q6_Wqf32_vmpy_VhfVhf) {
    ref_wsf_op(io, 2);
}
REF(Q6_Wqf32_vmpy_Vqf16Vhf) {
    ref_wsf_op(io, 2);
}
REF(Q6_Wqf32_vmpy_Vqf16Vqf16) {
    ref_wsf_op(io, 2);
}
REF(Q6_Vsf_equals_Vqf32) {
    io->out[0] = io->in[0];
}
REF(Q6_Vhf_equals_Vqf16) {
    io->out[0] = io->in[0];
}
REF(Q6_Vhf_equals_Wqf32) {
    for (int i = 0; i < 32; i++) {
        ref_st(OUT(0), 2, 2 * i, ref_sf_to_hf(w32(io, 0, i)));
        ref_st(OUT(0), 2, 2 * i + 1, ref_sf_to_hf(w32(io, 1, i)));
    }
}
#else
/* v68..v75 model, in exact integer arithmetic. A format: fraction bits f, bias, exponent range. */
struct qf {
    int f, bias, e_min, e_max;
};
static const struct qf QF32 = {23, 127, -127, 128}, QF16 = {10, 15, -15, 16};

/* the value (2m + 1) 2^(e - bias - f) of a register, as sig = (2m + 1) 2^-f (exact double), exponent */
static double qf_value(uint32_t x, const struct qf *q, int *exp) {
    const int ebits = q->f == 23 ? 8 : 5;
    const int32_t m = q->f == 23 ? (int32_t) x >> 8 : (int16_t) x >> 5;
    *exp = (int) (x & ((1u << ebits) - 1)) - q->bias;
    return ldexp(2.0 * m + 1, -q->f);
}
/* an IEEE operand as (sig >= 0 magnitude, exponent clamped to the smallest normal one, sign) */
static double ieee_value(uint32_t x, int is32, int *exp, int *neg) {
    const int f = is32 ? 23 : 10, bias = is32 ? 127 : 15;
    const int e = (int) ((x >> f) & (is32 ? 0xFF : 0x1F));
    const uint32_t m = (x & ((1u << f) - 1)) | (e ? 1u << f : 0);
    *neg = (int) (x >> (is32 ? 31 : 15)) & 1;
    *exp = (e ? e : 1) - bias;
    return ldexp((double) m, -f);
}
/* Round (exp, sig) with `low` the sign of what the sum dropped: sig * 2^f = T = 4 q + R3 (R3 in [0, 4));
 * the result's significand counts odd units U of 2^-f: 4q - 1, 4q + 1 or 4q + 3 (or 2q + 1 one exponent
 * up) as R3 and low decide; the register's field holds |U| >> 1, complemented for negative values. */
static uint32_t qf_round(const struct qf *q, int exp, double sig, int low) {
    const int sign = sig < 0;
    const uint32_t mask = (1u << q->f) - 1;
    const int ebits = q->f == 23 ? 8 : 5;
    const int ovf2 = fabs(sig) >= 2.0 && sig != -2.0;
    uint32_t field;
    int e;
    if (exp > q->e_max || (ovf2 && exp == q->e_max)) {
        field = sign ? 1u << q->f : mask;
        e = q->e_max + q->bias;
    } else if (exp < q->e_min - 1) {
        field = sign ? (1u << q->f) | mask : 0;
        e = q->e_min + q->bias;
    } else {
        const int halve = exp == q->e_min - 1 || (ovf2 && exp < q->e_max);
        const double t = ldexp(sig, q->f - halve);
        const double q4 = floor(t / 4), r3 = t - 4 * q4;
        const int wide = exp == q->e_max || halve; /* the 1 / 3 rule without the renormalising middle */
        int64_t u;
        int adj = halve;
        if (r3 == 0 && low < 0) {
            u = (int64_t) (4 * q4) - 1;
        } else if (wide ? (r3 < 2 || (r3 == 2 && low <= 0)) : (r3 < 1.5 || (r3 == 1.5 && low <= 0))) {
            u = (int64_t) (4 * q4) + 1;
        } else if (!wide && (r3 < 2.5 || (r3 == 2.5 && low <= 0))) {
            u = (int64_t) (2 * q4) + 1;
            adj = 1;
        } else {
            u = (int64_t) (4 * q4) + 3;
        }
        const uint32_t mag = (uint32_t) ((u < 0 ? -u : u) >> 1) & mask;
        field = sign ? (1u << q->f) | (~mag & mask) : mag;
        e = exp + q->bias + adj;
    }
    if (sig == 0 && low == 0) {
        e = 0;
    }
    return (field << ebits | ((uint32_t) e & ((1u << ebits) - 1))) & (q->f == 23 ? 0xFFFFFFFFu : 0xFFFFu);
}
/* ones' complement of the significand field (negate32 / negate16) */
static uint32_t qf_neg(uint32_t x, const struct qf *q) {
    return q->f == 23 ? (~x & 0xFFFFFF00u) | (x & 0xFF) : ((~x & 0xFFE0u) | (x & 0x1F));
}
/* a + b (or a - b) of two (exp, sig) terms as the model forms it: the common exponent, the sum rounded
 * to binary64, and the sign of the remainder, exact by TwoSum (Knuth) */
static double qf_sum(int ea, double sa, int eb, double sb, int sub, int f, int *exp, int *low) {
    int e;
    if (ea > eb) {
        e = ea + (sa == 0 ? -(f + 1) : ilogb(sa));
        e = e < eb ? eb : e;
    } else {
        e = eb + (sb == 0 ? -(f + 1) : ilogb(sb));
        e = e < ea ? ea : e;
    }
    const double x = ldexp(sa, ea - e), y = (sub ? -1 : 1) * ldexp(sb, eb - e);
    const double s = x + y, yy = s - x, err = (x - (s - yy)) + (y - yy);
    *exp = e;
    *low = err > 0 ? 1 : err < 0 ? -1 : 0;
    return s;
}
static void ref_qf_binop(struct hvx_case_io *io, const struct qf *q, char ka, char kb, int op) {
    const int is32 = q->f == 23, n = is32 ? 32 : 64, w = is32 ? 4 : 2;
    for (int i = 0; i < n; i++) {
        const uint32_t a = (uint32_t) ref_ld(IN(0), w, 0, i), b = (uint32_t) ref_ld(IN(1), w, 0, i);
        int ea, eb, na = 0, nb = 0, e, low = 0;
        double sa = ka == 'q' ? qf_value(a, q, &ea) : ieee_value(a, is32, &ea, &na);
        double sb = kb == 'q' ? qf_value(b, q, &eb) : ieee_value(b, is32, &eb, &nb);
        uint32_t r;
        if (op == 2) { /* multiply: IEEE signs come back as a final negation */
            r = qf_round(q, ea + eb, sa * sb, 0);
            if (na ^ nb) {
                r = qf_neg(r, q);
            }
        } else if (ka == 'q') { /* qf +/- qf, qf +/- signed IEEE */
            const double s = qf_sum(ea, sa, eb, nb ? -sb : sb, op == 1, q->f, &e, &low);
            r = qf_round(q, e, s, low);
        } else { /* IEEE +/- IEEE: magnitudes by signs, the result negated when the sum is negative */
            const int sub = op == 1;
            const int eff_nb = nb ^ sub;
            double s;
            int negate = 0;
            if (na == eff_nb) {
                s = qf_sum(ea, sa, eb, sb, 0, q->f, &e, &low);
                negate = na;
            } else if (!na) {
                s = qf_sum(ea, sa, eb, sb, 1, q->f, &e, &low);
            } else {
                s = qf_sum(eb, sb, ea, sa, 1, q->f, &e, &low);
            }
            r = qf_round(q, e, s, low);
            if (negate) {
                r = qf_neg(r, q);
            }
        }
        ref_st(OUT(0), w, i, r);
    }
}
REF(Q6_Vqf32_vadd_VsfVsf) {
    ref_qf_binop(io, &QF32, 's', 's', 0);
}
REF(Q6_Vqf32_vadd_Vqf32Vqf32) {
    ref_qf_binop(io, &QF32, 'q', 'q', 0);
}
REF(Q6_Vqf32_vadd_Vqf32Vsf) {
    ref_qf_binop(io, &QF32, 'q', 's', 0);
}
REF(Q6_Vqf32_vsub_VsfVsf) {
    ref_qf_binop(io, &QF32, 's', 's', 1);
}
REF(Q6_Vqf32_vsub_Vqf32Vqf32) {
    ref_qf_binop(io, &QF32, 'q', 'q', 1);
}
REF(Q6_Vqf32_vsub_Vqf32Vsf) {
    ref_qf_binop(io, &QF32, 'q', 's', 1);
}
REF(Q6_Vqf32_vmpy_VsfVsf) {
    ref_qf_binop(io, &QF32, 's', 's', 2);
}
REF(Q6_Vqf32_vmpy_Vqf32Vqf32) {
    ref_qf_binop(io, &QF32, 'q', 'q', 2);
}
REF(Q6_Vqf16_vadd_VhfVhf) {
    ref_qf_binop(io, &QF16, 'h', 'h', 0);
}
REF(Q6_Vqf16_vadd_Vqf16Vqf16) {
    ref_qf_binop(io, &QF16, 'q', 'q', 0);
}
REF(Q6_Vqf16_vadd_Vqf16Vhf) {
    ref_qf_binop(io, &QF16, 'q', 'h', 0);
}
REF(Q6_Vqf16_vsub_VhfVhf) {
    ref_qf_binop(io, &QF16, 'h', 'h', 1);
}
REF(Q6_Vqf16_vsub_Vqf16Vqf16) {
    ref_qf_binop(io, &QF16, 'q', 'q', 1);
}
REF(Q6_Vqf16_vsub_Vqf16Vhf) {
    ref_qf_binop(io, &QF16, 'q', 'h', 1);
}
REF(Q6_Vqf16_vmpy_VhfVhf) {
    ref_qf_binop(io, &QF16, 'h', 'h', 2);
}
REF(Q6_Vqf16_vmpy_Vqf16Vqf16) {
    ref_qf_binop(io, &QF16, 'q', 'q', 2);
}
REF(Q6_Vqf16_vmpy_Vqf16Vhf) {
    ref_qf_binop(io, &QF16, 'q', 'h', 2);
}
/* 16-bit operands into qf32: lo from even halves, hi from odd ones */
static void ref_wqf32(struct hvx_case_io *io, char ka, char kb) {
    for (int h = 0; h < 2; h++) {
        for (int i = 0; i < 32; i++) {
            const uint32_t a = h16(io, 0, 2 * i + h), b = h16(io, 1, 2 * i + h);
            int ea, eb, na = 0, nb = 0;
            const double sa = ka == 'q' ? qf_value(a, &QF16, &ea) : ieee_value(a, 0, &ea, &na);
            const double sb = kb == 'q' ? qf_value(b, &QF16, &eb) : ieee_value(b, 0, &eb, &nb);
            uint32_t r = qf_round(&QF32, ea + eb, sa * sb, 0);
            if (na ^ nb) {
                r = qf_neg(r, &QF32);
            }
            ref_st(OUT(h), 4, i, r);
        }
    }
}
REF(Q6_Wqf32_vmpy_VhfVhf) {
    ref_wqf32(io, 'h', 'h');
}
REF(Q6_Wqf32_vmpy_Vqf16Vhf) {
    ref_wqf32(io, 'q', 'h');
}
REF(Q6_Wqf32_vmpy_Vqf16Vqf16) {
    ref_wqf32(io, 'q', 'q');
}
/* qf -> IEEE: the exact value rounded to nearest even; a magnitude at or above the model's limit
 * (2^129 - 2^105 for sf, 131008 for hf) gets the all-ones significand, and the exponent field is
 * clamped (hf above 2^16: the all-ones pattern) */
static uint32_t qf_to_ieee(uint32_t x, const struct qf *q, int is32) {
    int e;
    const double sig = qf_value(x, q, &e);
    const double v = ldexp(sig, e);
    const int f = is32 ? 23 : 10, bias = is32 ? 127 : 15, e_min = is32 ? -126 : -14, top = is32 ? 255 : 31;
    const uint32_t sign = v < 0 ? 1u << (is32 ? 31 : 15) : 0, mask = (1u << f) - 1;
    const double a = fabs(v);
    int ed = ilogb(a);
    uint32_t m;
    if (a >= (is32 ? 0x1p129 - 0x1p105 : 131008.0)) {
        m = mask;
    } else {
        const int eq = ed < e_min ? e_min : ed;
        const double sig = rint(ldexp(a, f - eq)); /* nearest even in units of the quantum */
        m = (uint32_t) sig & mask;
        if (sig >= ldexp(1.0, f + 1)) { /* rounded up to the next binade */
            m = 0;
            ed = eq + 1;
        } else if (ed < e_min) {
            ed = sig >= ldexp(1.0, f) ? e_min : e_min - 1; /* subnormal, or rounded up to the smallest normal */
        }
    }
    if (!is32 && ed > 16) {
        return sign | 0x7FFFu;
    }
    int be = ed + bias;
    be = be < 0 ? 0 : be > top ? top : be;
    return sign | (uint32_t) be << f | m;
}
REF(Q6_Vsf_equals_Vqf32) {
    for (int i = 0; i < 32; i++) {
        ref_st(OUT(0), 4, i, qf_to_ieee(w32(io, 0, i), &QF32, 1));
    }
}
REF(Q6_Vhf_equals_Vqf16) {
    for (int i = 0; i < 64; i++) {
        ref_st(OUT(0), 2, i, qf_to_ieee(h16(io, 0, i), &QF16, 0));
    }
}
REF(Q6_Vhf_equals_Wqf32) {
    for (int i = 0; i < 32; i++) {
        ref_st(OUT(0), 2, 2 * i, qf_to_ieee(w32(io, 0, i), &QF32, 0));
        ref_st(OUT(0), 2, 2 * i + 1, qf_to_ieee(w32(io, 1, i), &QF32, 0));
    }
}
#endif

/* ================= the table ================= */
#if VNPU_HVX_ARCH >= 73
#define REF_V73(X) HVX_CASES_FLOAT_V73(X)
#else
#define REF_V73(X)
#endif
HVX_CASES_FLOAT(HVX_CASE_DEF)
REF_V73(HVX_CASE_DEF)

#define REF_ROW(NAME, FORM) {#NAME, hvx_case_##NAME, ref_##NAME},
const struct ref_case ref_cases_float[] = {HVX_CASES_FLOAT(REF_ROW) REF_V73(REF_ROW)};
const int ref_cases_float_count = (int) (sizeof(ref_cases_float) / sizeof(ref_cases_float[0]));
