#include "fp16.h"

/* The f32 bits of an fp16; inlined into the row loop below. */
static inline uint32_t fp16_to_f32_bits(vnpu_fp16_t h) {
    const uint32_t sign = (uint32_t) (h & 0x8000u) << 16;
    const uint32_t em = h & 0x7fffu;     /* exponent and mantissa */
    if (em >= 0x0400u && em < 0x7c00u) { /* normal: rebias the exponent 15 -> 127 */
        return sign | ((em << 13) + ((127u - 15u) << 23));
    }
    if (em >= 0x7c00u) { /* inf, or NaN made quiet as GGML's conversion does (the oracle shows it) */
        return sign | 0x7f800000u | (em & 0x3ffu) << 13 | (em > 0x7c00u ? 0x400000u : 0);
    }
    return sign | vnpu_f32_bits((float) em * 0x1p-24f); /* zero or subnormal: em * 2^-24, exact */
}

float vnpu_fp16_to_f32(vnpu_fp16_t h) {
    return vnpu_f32_from_bits(fp16_to_f32_bits(h));
}

vnpu_fp16_t vnpu_f32_to_fp16(float f) {
    const uint32_t u = vnpu_f32_bits(f);
    const uint32_t sign = (u >> 16) & 0x8000u;
    const uint32_t abs = u & 0x7fffffffu;
    if (abs > 0x7f800000u) { /* NaN: GGML returns the canonical quiet NaN, payload dropped */
        return (vnpu_fp16_t) (sign | 0x7e00u);
    }
    if (abs >= 0x477ff000u) { /* rounds to >= 65520: infinity */
        return (vnpu_fp16_t) (sign | 0x7c00u);
    }
    if (abs < 0x38800000u) {     /* below the smallest normal fp16 (2^-14): subnormal or zero */
        if (abs < 0x33000000u) { /* below half the smallest subnormal (2^-25): zero */
            return (vnpu_fp16_t) sign;
        }
        const uint32_t e = abs >> 23;
        const uint32_t mant = (abs & 0x7fffffu) | 0x800000u;
        const uint32_t shift = 126 - e; /* 14..24: bits dropped below the subnormal lsb */
        uint32_t q = mant >> shift;
        const uint32_t rem = mant & ((1u << shift) - 1);
        const uint32_t half = 1u << (shift - 1);
        if (rem > half || (rem == half && (q & 1))) {
            q++;
        }
        return (vnpu_fp16_t) (sign | q);
    }
    /* normal: rebias the exponent, round the 13 dropped mantissa bits to nearest even */
    uint32_t r = abs - 0x38000000u; /* exponent 127 -> 15 bias */
    r += 0xfffu + ((r >> 13) & 1);
    return (vnpu_fp16_t) (sign | (r >> 13));
}

void vnpu_fp16_to_f32_row(const vnpu_fp16_t *x, float *y, int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        y[i] = vnpu_f32_from_bits(fp16_to_f32_bits(x[i]));
    }
}

void vnpu_f32_to_fp16_row(const float *x, vnpu_fp16_t *y, int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        y[i] = vnpu_f32_to_fp16(x[i]);
    }
}

void vnpu_bf16_to_f32_row(const vnpu_bf16_t *x, float *y, int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        y[i] = vnpu_bf16_to_f32(x[i]);
    }
}

void vnpu_f32_to_bf16_row(const float *x, vnpu_bf16_t *y, int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        y[i] = vnpu_f32_to_bf16(x[i]);
    }
}
