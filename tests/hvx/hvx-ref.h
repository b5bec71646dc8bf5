/*
 * Scalar references of the HVX intrinsics, written element by element from the ISA definitions
 * (QEMU target/hexagon/imported/mmvec/ext.idef and mmvec/macros.h for the integer ones; QEMU's HVX
 * IEEE model and Qualcomm's qfloat model for the floating ones, see src/hvx/hvx-float.h and
 * hvx-qfloat.h). They read and write the case slots as little-endian byte arrays and never call the
 * emulation, so each emulated intrinsic is checked against an independent statement of its semantics.
 *
 * Each reference has the signature of a case wrapper (hvx-cases.h): ref_<intrinsic>(io) reads io->in,
 * io->r, io->imm and writes io->out exactly as the wrapper does.
 */
#ifndef VNPU_TEST_HVX_REF_H
#define VNPU_TEST_HVX_REF_H

#include <stdint.h>

#include "hvx-cases.h"

/* Element i (of width w bytes, signed s) of the 128-byte vector at v, and its store (truncating). */
static inline int64_t ref_ld(const HVX_Vector *v, int w, int s, int i) {
    const uint8_t *b = (const uint8_t *) v + i * w;
    uint64_t x = 0;
    for (int j = 0; j < w; j++) {
        x |= (uint64_t) b[j] << (8 * j);
    }
    if (s && (x >> (8 * w - 1)) & 1) {
        x |= ~(uint64_t) 0 << (8 * w - 1) << 1;
    }
    return (int64_t) x;
}
static inline void ref_st(HVX_Vector *v, int w, int i, int64_t x) {
    uint8_t *b = (uint8_t *) v + i * w;
    for (int j = 0; j < w; j++) {
        b[j] = (uint8_t) ((uint64_t) x >> (8 * j));
    }
}
/* x saturated to w bytes, signed or unsigned */
static inline int64_t ref_sat(int w, int s, int64_t x) {
    const int64_t hi = s ? ((int64_t) 1 << (8 * w - 1)) - 1 : ((int64_t) 1 << (8 * w)) - 1;
    const int64_t lo = s ? -((int64_t) 1 << (8 * w - 1)) : 0;
    return x > hi ? hi : x < lo ? lo : x;
}
/* predicate bit i of slot k (the wrapper builds it with Q6_Q_vand_VR(v, 0x01010101)) */
static inline int ref_q(const struct hvx_case_io *io, int k, int i) {
    return ((const uint8_t *) &io->in[k])[i] & 1;
}
/* a predicate result as the wrapper stores it (Q6_V_vand_QR(q, 0x01010101)) */
static inline void ref_put_q(struct hvx_case_io *io, int i, int bit) {
    ((uint8_t *) &io->out[0])[i] = bit ? 1 : 0;
}
/* byte, half of the scalar operand */
static inline int64_t ref_rb(int32_t r, int k, int s) {
    const uint8_t x = (uint8_t) ((uint32_t) r >> (8 * k));
    return s ? (int8_t) x : x;
}
static inline int64_t ref_rh(int32_t r, int k, int s) {
    const uint16_t x = (uint16_t) ((uint32_t) r >> (16 * k));
    return s ? (int16_t) x : x;
}

typedef void (*ref_fn)(struct hvx_case_io *io);

/* ref_<NAME> for every row of the case lists */
#define REF(NAME)            void ref_##NAME(struct hvx_case_io *io)
#define REF_DECL(NAME, FORM) REF(NAME);
HVX_CASES_INT(REF_DECL)
HVX_CASES_FLOAT(REF_DECL)
HVX_CASES_FLOAT_V73(REF_DECL)

/* a reference's input and output slots */
#define IN(k)  (&io->in[k])
#define OUT(k) (&io->out[k])

/* element-wise, one width: out.i = EXPR(a, b[, c]) of elements of width W, signednesses SA, SB */
#define REF_V(NAME, W, SA, EXPR)                       \
    REF(NAME) {                                        \
        for (int i = 0; i < 128 / (W); i++) {          \
            const int64_t a = ref_ld(IN(0), W, SA, i); \
            ref_st(OUT(0), W, i, (EXPR));              \
        }                                              \
    }
#define REF_VV(NAME, W, SA, SB, EXPR)                                               \
    REF(NAME) {                                                                     \
        for (int i = 0; i < 128 / (W); i++) {                                       \
            const int64_t a = ref_ld(IN(0), W, SA, i), b = ref_ld(IN(1), W, SB, i); \
            ref_st(OUT(0), W, i, (EXPR));                                           \
        }                                                                           \
    }
/* pair forms: the same over both halves (slots 0,1 and 2,3) */
#define REF_WW(NAME, W, S, EXPR)                                                          \
    REF(NAME) {                                                                           \
        for (int h = 0; h < 2; h++) {                                                     \
            for (int i = 0; i < 128 / (W); i++) {                                         \
                const int64_t a = ref_ld(IN(h), W, S, i), b = ref_ld(IN(2 + h), W, S, i); \
                ref_st(OUT(h), W, i, (EXPR));                                             \
            }                                                                             \
        }                                                                                 \
    }
#define SAT(W, S, X) ref_sat(W, S, X)

struct ref_case {
    const char *name;
    hvx_case_fn emu; /* the wrapper over the emulated intrinsic */
    ref_fn ref;      /* its scalar reference */
};

/* The integer and floating-point reference tables (hvx-ref-int.c, hvx-ref-float.c), in the order of
 * HVX_CASES_INT / HVX_CASES_FLOAT. */
extern const struct ref_case ref_cases_int[];
extern const int ref_cases_int_count;
extern const struct ref_case ref_cases_float[];
extern const int ref_cases_float_count;

#endif /* VNPU_TEST_HVX_REF_H */
