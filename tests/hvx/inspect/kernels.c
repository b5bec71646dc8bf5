/*
 * Fixture of test-hvx-inspect (never built into the project): Hexagon code with a known in-loop vector
 * spill, a known float promotion, known integer division helper calls (in the function, in a helper
 * inlined into it, in a helper it calls out of line), and clean versions of them, for
 * scripts/hvx-inspect.py to find.
 */
#include "hvx.h"

/* 40 live accumulators: more than the 32 HVX registers, so the loop spills some of them. */
// clang-format off
#define ACCS(X)                                                                                        \
    X(0)  X(1)  X(2)  X(3)  X(4)  X(5)  X(6)  X(7)  X(8)  X(9)  X(10) X(11) X(12) X(13) X(14) X(15)   \
    X(16) X(17) X(18) X(19) X(20) X(21) X(22) X(23) X(24) X(25) X(26) X(27) X(28) X(29) X(30) X(31)   \
    X(32) X(33) X(34) X(35) X(36) X(37) X(38) X(39)
// clang-format on
#define ACC_DECL(j)  HVX_Vector a##j = Q6_V_vsplat_R(j);
#define ACC_STEP(j)  a##j = Q6_Vw_vrmpyacc_VwVbVb(a##j, x, in[i + (j) + 1]);
#define ACC_STORE(j) out[j] = a##j;

void compute_spill(HVX_Vector *restrict out, const HVX_Vector *restrict in, int n) {
    ACCS(ACC_DECL)
    for (int i = 0; i < n; i++) {
        const HVX_Vector x = in[i];
        ACCS(ACC_STEP)
    }
    ACCS(ACC_STORE)
}

/* The same loop outside the functions a --func filter selects. */
void helper_spill(HVX_Vector *restrict out, const HVX_Vector *restrict in, int n) {
    ACCS(ACC_DECL)
    for (int i = 0; i < n; i++) {
        const HVX_Vector x = in[i];
        ACCS(ACC_STEP)
    }
    ACCS(ACC_STORE)
}

/* 0.5 is a double constant: every element goes to double and back. */
float compute_promote(const float *x, int n) {
    float s = 0.0f;
    for (int i = 0; i < n; i++) {
        s += x[i] * 0.5;
    }
    return s;
}

/* One accumulator, single precision: nothing to report. */
HVX_Vector compute_clean(const HVX_Vector *in, int n, float *sum, const float *x) {
    HVX_Vector acc = Q6_V_vzero();
    float s = 0.0f;
    for (int i = 0; i < n; i++) {
        acc = Q6_Vw_vrmpyacc_VwVbVb(acc, in[i], in[i + 1]);
        s += x[i] * 0.5f;
    }
    *sum = s;
    return acc;
}

/* A division by a variable: a __hexagon_udivsi3 call per element. */
void compute_divide(uint32_t *out, const uint32_t *in, uint32_t d, int n) {
    for (int i = 0; i < n; i++) {
        out[i] = in[i] / d;
    }
}

/* The same inside a helper the compiler inlines: the __hexagon_umodsi3 call is the caller's own. */
static inline uint32_t helper_wrap(uint32_t i, uint32_t p) {
    return i % p;
}

void compute_divide_inlined(uint32_t *out, uint32_t n, uint32_t p) {
    for (uint32_t i = 0; i < n; i++) {
        out[i] = helper_wrap(i, p);
    }
}

/* A helper kept out of line: its __hexagon_divdi3 call counts for the function that calls it. */
__attribute__((noinline)) static int64_t helper_divide(int64_t a, int64_t b) {
    return a / b;
}

void compute_divide_callee(int64_t *out, const int64_t *in, int64_t d, int n) {
    for (int i = 0; i < n; i++) {
        out[i] = helper_divide(in[i], d);
    }
}

/* Divisions by constants: multiplies and shifts, no helper call. */
void compute_divide_const(uint32_t *out, const uint32_t *in, int n) {
    for (int i = 0; i < n; i++) {
        out[i] = in[i] / 7 + in[i] % 10;
    }
}
