/*
 * Factoring the derived FP16 scales of the Q3_K, Q4_K, Q5_K and Q6_K tiles back into GGML's super-block form
 * (an FP16 d and small integer sub-block scales), for unpack.
 *
 * A tile stores s[i] = fp16(d * m[i]). If (d, m) is the original, then with m_ref the integer of the largest |s|,
 * d lies within one of its own ulps of s_ref / m_ref (the rounding of s_ref is half an ulp of s_ref, and
 * ulp(s_ref) / |m_ref| <= 2 ulp(d)), so the FP16 numbers within 3 steps of fp16(s_ref / m_ref) contain it; and for
 * the true d every m[i] is s[i] / d rounded, or a neighbour (|d * m[i] - s[i]| <= ulp(s[i]) / 2 <= |d| / 2 for
 * |m| < 2^8). Trying every m_ref in range, largest magnitude first, therefore finds a factorization whenever one
 * exists with a finite nonzero s_ref; the first pass only accepts exact ones (d * m[i] == s[i] in f32), the second
 * any that reproduces s.
 */
#include "repack-codec.h"

#include <math.h>

static bool fp16_is_finite(vnpu_fp16_t h) {
    return (h & 0x7c00u) != 0x7c00u;
}

/* h moved by step FP16 numbers away from zero (toward it when negative), sign kept; false past the finite range. */
static bool fp16_step(vnpu_fp16_t h, int step, vnpu_fp16_t *out) {
    const int mag = (h & 0x7fff) + step;
    if (mag < 0 || mag > 0x7bff) {
        return false;
    }
    *out = (vnpu_fp16_t) ((h & 0x8000u) | (uint32_t) mag);
    return true;
}

/* The integer in [lo, hi] nearest v, halves away from zero; NaN gives 0 (inside [lo, hi] by contract). */
static int nearest_in(float v, int lo, int hi) {
    if (isnan(v)) {
        return 0;
    }
    if (v <= (float) lo) {
        return lo;
    }
    if (v >= (float) hi) {
        return hi;
    }
    return (int) roundf(v);
}

/* An m in [lo, hi] with scale_derive(d, m) == s, d = df as f32 (and, when exact, d * m == s in f32, sign of zero
 * included): s / d rounded, then its neighbours. */
static bool scale_fit(float df, vnpu_fp16_t s, int lo, int hi, bool exact, int *m) {
    static const int tries[3] = {0, -1, 1};
    const float sf = vnpu_fp16_to_f32(s);
    const int c = df != 0.0f ? nearest_in(sf / df, lo, hi) : 0;
    for (int i = 0; i < 3; i++) {
        const int t = c + tries[i];
        if (t < lo || t > hi) {
            continue;
        }
        const float p = df * (float) t;
        if (vnpu_f32_to_fp16(p) == s && (!exact || vnpu_f32_bits(p) == vnpu_f32_bits(sf))) {
            *m = t;
            return true;
        }
    }
    return false;
}

static bool scale_fit_all(vnpu_fp16_t d, const vnpu_fp16_t *s, int n, int lo, int hi, bool exact, int *m) {
    const float df = vnpu_fp16_to_f32(d);
    for (int i = 0; i < n; i++) {
        if (!scale_fit(df, s[i], lo, hi, exact, &m[i])) {
            return false;
        }
    }
    return true;
}

bool scale_factor(const vnpu_fp16_t *s, int n, int lo, int hi, vnpu_fp16_t *d, int *m) {
    static const int steps[7] = {0, -1, 1, -2, 2, -3, 3};
    int ref = 0;
    float amax = 0.0f; /* the largest finite |s|: s_ref */
    bool finite = true;
    for (int i = 0; i < n; i++) {
        const float a = fabsf(vnpu_fp16_to_f32(s[i]));
        finite = finite && fp16_is_finite(s[i]);
        if (fp16_is_finite(s[i]) && a > amax) {
            amax = a;
            ref = i;
        }
    }
    if (finite && amax == 0.0f) { /* zeros only: d = +0 with m = 0 (-1 for a -0), else d = -0 */
        static const vnpu_fp16_t zeros[2] = {0x0000, 0x8000};
        for (int i = 0; i < 2; i++) {
            if (scale_fit_all(zeros[i], s, n, lo, hi, false, m)) {
                *d = zeros[i];
                return true;
            }
        }
    }
    const float s_ref = amax > 0.0f ? vnpu_fp16_to_f32(s[ref]) : 0.0f;
    const int mag_max = hi > -lo ? hi : -lo;
    /* An infinity is an overflowed product: it fits any m that overflows again, so only NaN rules a search out. */
    bool has_nan = false;
    for (int i = 0; i < n; i++) {
        has_nan = has_nan || (s[i] & 0x7fffu) > 0x7c00u;
    }
    for (int exact = 1; !has_nan && amax > 0.0f && exact >= 0; exact--) {
        for (int mag = mag_max; mag >= 1; mag--) {
            for (int sign = 1; sign >= -1; sign -= 2) {
                const int m_ref = sign * mag;
                if (m_ref < lo || m_ref > hi) {
                    continue;
                }
                const float quotient = s_ref / (float) m_ref;
                if (exact && quotient * (float) m_ref != s_ref) {
                    continue; /* s_ref / m_ref is not even an f32: no exact d for this m_ref */
                }
                const vnpu_fp16_t d0 = vnpu_f32_to_fp16(quotient);
                for (int i = 0; i < (exact ? 1 : 7); i++) {
                    vnpu_fp16_t dc;
                    if (fp16_step(d0, steps[i], &dc) && scale_fit_all(dc, s, n, lo, hi, exact, m)) {
                        *d = dc;
                        return true;
                    }
                }
            }
        }
    }
    /* Nothing reproduces s: the nearest fit of the finite values with d from the largest of them. */
    *d = vnpu_f32_to_fp16(s_ref / (float) hi);
    const float df = vnpu_fp16_to_f32(*d);
    for (int i = 0; i < n; i++) {
        m[i] = df != 0.0f ? nearest_in(vnpu_fp16_to_f32(s[i]) / df, lo, hi) : 0;
    }
    return false;
}
