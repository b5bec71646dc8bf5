/*
 * Division by an invariant 32-bit integer with one high multiply, a subtract and two shifts: Hexagon has
 * no divide instruction, so a divisor used again and again (a shape, a thread count) is turned into these
 * values once, on the host, and carried to the kernels in kernel_params.
 *
 * The method is figure 4.1 of Granlund and Montgomery, "Division by Invariant Integers using
 * Multiplication" (PLDI 1994), for N = 32: with l = ceil(log2 d) and m = floor(2^32 (2^l - d) / d) + 1,
 *     t = mulhi(m, n);  n / d = (t + ((n - t) >> min(l, 1))) >> max(l - 1, 0)
 * which is exact for every dividend 0 <= n < 2^32 and every divisor 1 <= d < 2^32 (the form upstream's
 * hex-fastdiv.h uses adds n + t in 32 bits and is exact only for n below about 2^31).
 * tests/htp/test-fastdiv.c checks it exhaustively on sampled ranges and at every power-of-two boundary.
 */
#ifndef VNPU_HEX_FASTDIV_H
#define VNPU_HEX_FASTDIV_H

#include <stdbool.h>
#include <stdint.h>

struct fastdiv_values {
    uint32_t m;  /* the magic multiplier */
    uint16_t s1; /* min(l, 1) */
    uint16_t s2; /* max(l - 1, 0) */
};

/* The values for divisor d, 1 <= d <= 0xFFFFFFFF (d = 0 is the caller's bug: it yields division by 1). */
static inline struct fastdiv_values fastdiv_init(uint32_t d) {
    uint32_t l = 0;
    while (l < 32 && ((uint64_t) 1 << l) < d) {
        l++;
    }
    struct fastdiv_values v;
    v.m = d > 1 ? (uint32_t) ((((uint64_t) 1 << 32) * (((uint64_t) 1 << l) - d)) / d + 1) : 1;
    v.s1 = (uint16_t) (l < 1 ? l : 1);
    v.s2 = (uint16_t) (l > 1 ? l - 1 : 0);
    return v;
}

/* Whether v holds the values of divisor d (d >= 1): how a kernel checks, once per op, the values the host put in its
 * kernel_params before it trusts them with addresses. */
static inline bool fastdiv_is(const struct fastdiv_values *v, uint32_t d) {
    const struct fastdiv_values e = fastdiv_init(d);
    return d != 0 && v->m == e.m && v->s1 == e.s1 && v->s2 == e.s2;
}

/* n / d for the d of v. */
static inline uint32_t fastdiv(uint32_t n, const struct fastdiv_values *v) {
    const uint32_t t = (uint32_t) (((uint64_t) n * v->m) >> 32);
    return (t + ((n - t) >> v->s1)) >> v->s2;
}

/* n % d for the d of v. */
static inline uint32_t fastmodulo(uint32_t n, uint32_t d, const struct fastdiv_values *v) {
    return n - fastdiv(n, v) * d;
}

#endif /* VNPU_HEX_FASTDIV_H */
