/*
 * Scalar IEEE binary32 and binary16 helpers of the HVX/HMX emulation, on bit patterns: conversions with
 * round to nearest even (exact, integer arithmetic), the Hexagon canonical NaNs, hf to integer.
 *
 * Freestanding (stdint.h only), so hmx.c can use them when it is compiled for Hexagon. The NPU side
 * cannot include src/base/fp16.h (host library code, see docs/ARCHITECTURE.md "Rules of the line");
 * tests/hvx check these against it on all 65536 halves.
 */
#ifndef VNPU_HVX_HALF_H
#define VNPU_HVX_HALF_H

#include <stdint.h>

#define HVX_HALF_INLINE static inline __attribute__((always_inline))

#define HVX_SF_NAN 0x7FFFFFFFu
#define HVX_HF_NAN 0x7FFFu

/* --- scalar binary32 / binary16 helpers (bit patterns in, bit patterns out) --- */

HVX_HALF_INLINE float hvx_sf(uint32_t u) {
    float f;
    __builtin_memcpy(&f, &u, 4);
    return f;
}
HVX_HALF_INLINE uint32_t hvx_sf_bits(float f) {
    uint32_t u;
    __builtin_memcpy(&u, &f, 4);
    return u;
}
HVX_HALF_INLINE int hvx_sf_isnan(uint32_t u) {
    return (u & 0x7FFFFFFFu) > 0x7F800000u;
}
HVX_HALF_INLINE int hvx_hf_isnan(uint16_t h) {
    return (h & 0x7FFFu) > 0x7C00u;
}
/* binary32 result with the canonical NaN */
HVX_HALF_INLINE uint32_t hvx_sf_canon(float f) {
    const uint32_t u = hvx_sf_bits(f);
    return hvx_sf_isnan(u) ? HVX_SF_NAN : u;
}

/* hf -> sf, exact; NaN -> canonical. */
HVX_HALF_INLINE uint32_t hvx_hf_to_sf(uint16_t h) {
    const uint32_t sign = (uint32_t) (h & 0x8000u) << 16;
    const uint32_t e = (h >> 10) & 31, m = h & 1023;
    if (e == 31) {
        return m ? HVX_SF_NAN : sign | 0x7F800000u;
    }
    if (e == 0) {
        if (m == 0) {
            return sign;
        }
        const int lz = __builtin_clz(m) - 21; /* shifts that bring the leading one to bit 10 */
        return sign | (uint32_t) (113 - lz) << 23 | ((m << lz) & 1023) << 13;
    }
    return sign | (e + 112) << 23 | m << 13;
}

/* Round sign * mant * 2^exp2 (mant > 0, sticky: nonzero bits below mant were dropped) to hf, nearest
 * even, overflow to infinity. */
HVX_HALF_INLINE uint16_t hvx_hf_round(uint32_t sign, uint64_t mant, int exp2, int sticky) {
    const int top = 63 - __builtin_clzll(mant); /* value = 2^(top + exp2) * 1.xxx */
    int e = top + exp2;                         /* unbiased exponent */
    int shift = top - 10;                       /* keep 11 significant bits */
    if (e < -14) {
        shift += -14 - e; /* subnormal: fixed quantum 2^-24 */
        e = -15;
    }
    uint64_t q;
    int half = 0, rest = sticky;
    if (shift > 0) {
        if (shift > 64) {
            q = 0;
            rest |= mant != 0;
        } else if (shift == 64) {
            q = 0;
            half = (int) (mant >> 63);
            rest |= (mant << 1) != 0;
        } else {
            q = mant >> shift;
            half = (int) ((mant >> (shift - 1)) & 1);
            rest |= (mant & (((uint64_t) 1 << (shift - 1)) - 1)) != 0;
        }
    } else {
        q = mant << -shift;
    }
    if (half && (rest || (q & 1))) {
        q++;
    }
    /* q is the significand in units of the final quantum; renormalise after rounding up */
    uint32_t bits;
    if (e == -15) {
        bits = (uint32_t) q; /* subnormal, or the smallest normal when q reached 1024 */
    } else {
        if (q == 2048) {
            q = 1024;
            e++;
        }
        if (e > 15) {
            return (uint16_t) (sign | 0x7C00u);
        }
        bits = (uint32_t) (e + 15) << 10 | (uint32_t) (q & 1023);
    }
    return (uint16_t) (sign | bits);
}

/* sf -> hf, nearest even; NaN -> canonical. */
HVX_HALF_INLINE uint16_t hvx_sf_to_hf(uint32_t u) {
    const uint32_t sign = (u >> 16) & 0x8000u;
    const uint32_t e = (u >> 23) & 255, m = u & 0x7FFFFFu;
    if (e == 255) {
        return m ? HVX_HF_NAN : (uint16_t) (sign | 0x7C00u);
    }
    if (e == 0 && m == 0) {
        return (uint16_t) sign;
    }
    return e ? hvx_hf_round(sign, m | 0x800000u, (int) e - 150, 0) : hvx_hf_round(sign, m, -149, 0);
}

/* integer -> hf, nearest even. */
HVX_HALF_INLINE uint16_t hvx_int_to_hf(int64_t x) {
    if (x == 0) {
        return 0;
    }
    return hvx_hf_round(x < 0 ? 0x8000u : 0, (uint64_t) (x < 0 ? -x : x), 0, 0);
}

/* hf -> integer in [lo, hi]: nearest even (trunc = 0) or toward zero (trunc = 1), saturated. A NaN gives
 * nan_val. Exact: an hf value times 2^24 is an integer. */
HVX_HALF_INLINE int64_t hvx_hf_to_int(uint16_t h, int64_t lo, int64_t hi, int trunc, int64_t nan_val) {
    if (hvx_hf_isnan(h)) {
        return nan_val;
    }
    const uint32_t e = (h >> 10) & 31, m = h & 1023;
    if (e == 31) {
        return (h & 0x8000u) ? lo : hi;
    }
    const int64_t scaled = (int64_t) (e ? m | 1024 : m) << (e ? e - 1 : 0); /* value * 2^24 */
    int64_t q = scaled >> 24;
    const int64_t r = scaled & 0xFFFFFF;
    if (!trunc && (r > 0x800000 || (r == 0x800000 && (q & 1)))) {
        q++;
    }
    if (h & 0x8000u) {
        q = -q;
    }
    return q < lo ? lo : q > hi ? hi : q;
}

/* sf -> int32 toward zero, saturated, NaN by its sign (the v73 Vw = Vsf). */
HVX_HALF_INLINE int32_t hvx_sf_to_w_trunc(uint32_t u) {
    if (hvx_sf_isnan(u)) {
        return (u >> 31) ? INT32_MIN : INT32_MAX;
    }
    const float f = hvx_sf(u);
    if (f >= 2147483648.0f) {
        return INT32_MAX;
    }
    if (f < -2147483648.0f) {
        return INT32_MIN;
    }
    return (int32_t) f;
}

#endif /* VNPU_HVX_HALF_H */
