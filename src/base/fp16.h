/*
 * IEEE half (fp16) and bfloat16 conversions, rounding exactly as GGML does.
 *
 * f32 -> fp16 rounds to nearest, ties to even, overflows to infinity, keeps NaN a NaN (GGML's
 * ggml_compute_fp32_to_fp16, the same result as F16C's VCVTPS2PH with rounding mode 0).
 * f32 -> bf16 rounds to nearest, ties to even, and turns a NaN into a quiet NaN (ggml_compute_fp32_to_bf16).
 * The widening conversions are exact, except that fp16 -> f32 turns a signalling NaN into a quiet one with
 * the same payload, as GGML's ggml_compute_fp16_to_fp32 does (checked on all 65536 values with the oracle).
 */
#ifndef VNPU_FP16_H
#define VNPU_FP16_H

#include <stdint.h>
#include <string.h>

typedef uint16_t vnpu_fp16_t;
typedef uint16_t vnpu_bf16_t;

static inline uint32_t vnpu_f32_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof(u));
    return u;
}

static inline float vnpu_f32_from_bits(uint32_t u) {
    float f;
    memcpy(&f, &u, sizeof(f));
    return f;
}

/* fp16 bits -> f32 (exact; NaN made quiet) and f32 -> fp16 bits (nearest even, >= 65520 -> inf). */
float vnpu_fp16_to_f32(vnpu_fp16_t h);
vnpu_fp16_t vnpu_f32_to_fp16(float f);

/* bf16 bits -> f32 (exact) and f32 -> bf16 bits (nearest even; NaN kept a NaN and made quiet). */
static inline float vnpu_bf16_to_f32(vnpu_bf16_t h) {
    return vnpu_f32_from_bits((uint32_t) h << 16);
}

static inline vnpu_bf16_t vnpu_f32_to_bf16(float f) {
    const uint32_t u = vnpu_f32_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) { /* NaN: keep the sign and top mantissa bits, force quiet */
        return (vnpu_bf16_t) ((u >> 16) | 64);
    }
    return (vnpu_bf16_t) ((u + (0x7fffu + ((u >> 16) & 1))) >> 16);
}

/* Row conversions of n elements. */
void vnpu_fp16_to_f32_row(const vnpu_fp16_t *x, float *y, int64_t n);
void vnpu_f32_to_fp16_row(const float *x, vnpu_fp16_t *y, int64_t n);
void vnpu_bf16_to_f32_row(const vnpu_bf16_t *x, float *y, int64_t n);
void vnpu_f32_to_bf16_row(const float *x, vnpu_bf16_t *y, int64_t n);

#endif /* VNPU_FP16_H */
