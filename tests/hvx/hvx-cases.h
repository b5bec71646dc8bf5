/*
 * The HVX intrinsic cases: one row per emulated Q6_* intrinsic, a wrapper that feeds it from generated
 * operands and stores its result, and the operand generator. Shared by the host tests (emulation vs
 * scalar reference, emulation vs qemu-hexagon) and by the Hexagon probe (tests/hvx/hvx-qemu-probe.c),
 * which compiles the same wrappers with the real intrinsics: freestanding C, no libc.
 *
 * A row is X(NAME, FORM). FORM lists the result and operand kinds, V vector, W pair, Q predicate,
 * R scalar, I immediate (0..7); ST, SC, GA are the store, scatter and gather forms. Operands fill the
 * slots io->in[] in order (a pair takes two, lo then hi; a predicate is made from its slot with
 * Q6_Q_vand_VR(v, 0x01010101)). Results go to io->out[] (a predicate as Q6_V_vand_QR(q, 0x01010101)).
 * The element types of each operand come from the intrinsic's name (hvx_case_operands), which the
 * generator uses to pick edge values (saturation limits, shift amounts >= width, NaNs, subnormals).
 */
#ifndef VNPU_TEST_HVX_CASES_H
#define VNPU_TEST_HVX_CASES_H

#include <stdint.h>

#ifdef HVX_TEST_ARCH /* a test built for another HVX version than the library's default */
#undef VNPU_HVX_ARCH
#define VNPU_HVX_ARCH HVX_TEST_ARCH
#endif

#include "hvx.h"

#define HVX_CASE_SLOTS 6

struct hvx_case_io {
    HVX_Vector in[HVX_CASE_SLOTS]; /* operand slots */
    HVX_Vector out[2];             /* result: a vector in out[0], a pair lo/hi in out[0..1] */
    int32_t r;                     /* the scalar operand */
    int32_t imm;                   /* the immediate operand, 0..7 */
};

typedef void (*hvx_case_fn)(struct hvx_case_io *io);

struct hvx_case {
    const char *name; /* the intrinsic */
    hvx_case_fn fn;   /* its wrapper */
};

#include "hvx-case-list.h"

/* --- operand access --- */
#define HVX_V(i)     (io->in[i])
#define HVX_W(i)     Q6_W_vcombine_VV(io->in[(i) + 1], io->in[i])
#define HVX_Q(i)     Q6_Q_vand_VR(io->in[i], 0x01010101)
#define HVX_OUT_V(x) (io->out[0] = (x))
#define HVX_OUT_Q(x) (io->out[0] = Q6_V_vand_QR((x), 0x01010101))
#define HVX_OUT_W(x)                   \
    do {                               \
        const HVX_VectorPair w_ = (x); \
        io->out[0] = Q6_V_lo_W(w_);    \
        io->out[1] = Q6_V_hi_W(w_);    \
    } while (0)
#define HVX_OUT_R(x) (io->out[0] = Q6_V_vsplat_R(x))

/* An immediate must be a literal on Hexagon: one call per value. */
#define HVX_IMM_SWITCH(CALL, NAME)     \
    switch (io->imm & 7) {             \
        case 0: CALL(NAME, 0); break;  \
        case 1: CALL(NAME, 1); break;  \
        case 2: CALL(NAME, 2); break;  \
        case 3: CALL(NAME, 3); break;  \
        case 4: CALL(NAME, 4); break;  \
        case 5: CALL(NAME, 5); break;  \
        case 6: CALL(NAME, 6); break;  \
        default: CALL(NAME, 7); break; \
    }
#define HVX_CALL_V_VVI(NAME, I)  HVX_OUT_V(NAME(HVX_V(0), HVX_V(1), I))
#define HVX_CALL_V_VVVI(NAME, I) HVX_OUT_V(NAME(HVX_V(0), HVX_V(1), HVX_V(2), I))
#define HVX_CALL_W_VVI(NAME, I)  HVX_OUT_W(NAME(HVX_V(0), HVX_V(1), I))
#define HVX_CALL_W_WVVI(NAME, I) HVX_OUT_W(NAME(HVX_W(0), HVX_V(2), HVX_V(3), I))

/* Scatter and gather work on a 256-byte region (slots 2, 3) with word or halfword offsets 0..252 from
 * slot 0 (MASK keeps them there: 0xFC per word, 0x00FC00FC for halfwords) and Mu = 255, so every
 * element is inside the region on both sides. */
#define HVX_REGION_OFFSETS(MASK) Q6_V_vand_VV(io->in[0], Q6_V_vsplat_R(MASK))

/* --- the wrappers, one macro per form --- */
#define HVX_CASE_FN(NAME) static void hvx_case_##NAME(struct hvx_case_io *io)
#define HVX_FORM_V_(NAME)  \
    HVX_CASE_FN(NAME) {    \
        HVX_OUT_V(NAME()); \
    }
#define HVX_FORM_W_(NAME)  \
    HVX_CASE_FN(NAME) {    \
        HVX_OUT_W(NAME()); \
    }
#define HVX_FORM_V_R(NAME)      \
    HVX_CASE_FN(NAME) {         \
        HVX_OUT_V(NAME(io->r)); \
    }
#define HVX_FORM_V_V(NAME)         \
    HVX_CASE_FN(NAME) {            \
        HVX_OUT_V(NAME(HVX_V(0))); \
    }
#define HVX_FORM_V_VV(NAME)                  \
    HVX_CASE_FN(NAME) {                      \
        HVX_OUT_V(NAME(HVX_V(0), HVX_V(1))); \
    }
#define HVX_FORM_V_VVV(NAME)                           \
    HVX_CASE_FN(NAME) {                                \
        HVX_OUT_V(NAME(HVX_V(0), HVX_V(1), HVX_V(2))); \
    }
#define HVX_FORM_V_VR(NAME)               \
    HVX_CASE_FN(NAME) {                   \
        HVX_OUT_V(NAME(HVX_V(0), io->r)); \
    }
#define HVX_FORM_V_VVR(NAME)                        \
    HVX_CASE_FN(NAME) {                             \
        HVX_OUT_V(NAME(HVX_V(0), HVX_V(1), io->r)); \
    }
#define HVX_FORM_V_VVVR(NAME)                                 \
    HVX_CASE_FN(NAME) {                                       \
        HVX_OUT_V(NAME(HVX_V(0), HVX_V(1), HVX_V(2), io->r)); \
    }
#define HVX_FORM_V_W(NAME)         \
    HVX_CASE_FN(NAME) {            \
        HVX_OUT_V(NAME(HVX_W(0))); \
    }
#define HVX_FORM_V_WV(NAME)                  \
    HVX_CASE_FN(NAME) {                      \
        HVX_OUT_V(NAME(HVX_W(0), HVX_V(2))); \
    }
#define HVX_FORM_V_Q(NAME)         \
    HVX_CASE_FN(NAME) {            \
        HVX_OUT_V(NAME(HVX_Q(0))); \
    }
#define HVX_FORM_V_QR(NAME)               \
    HVX_CASE_FN(NAME) {                   \
        HVX_OUT_V(NAME(HVX_Q(0), io->r)); \
    }
#define HVX_FORM_V_QV(NAME)                  \
    HVX_CASE_FN(NAME) {                      \
        HVX_OUT_V(NAME(HVX_Q(0), HVX_V(1))); \
    }
#define HVX_FORM_V_QVV(NAME)                           \
    HVX_CASE_FN(NAME) {                                \
        HVX_OUT_V(NAME(HVX_Q(0), HVX_V(1), HVX_V(2))); \
    }
#define HVX_FORM_V_VQR(NAME)                        \
    HVX_CASE_FN(NAME) {                             \
        HVX_OUT_V(NAME(HVX_V(0), HVX_Q(1), io->r)); \
    }
#define HVX_FORM_R_VR(NAME)               \
    HVX_CASE_FN(NAME) {                   \
        HVX_OUT_R(NAME(HVX_V(0), io->r)); \
    }
#define HVX_FORM_W_V(NAME)         \
    HVX_CASE_FN(NAME) {            \
        HVX_OUT_W(NAME(HVX_V(0))); \
    }
#define HVX_FORM_W_VV(NAME)                  \
    HVX_CASE_FN(NAME) {                      \
        HVX_OUT_W(NAME(HVX_V(0), HVX_V(1))); \
    }
#define HVX_FORM_W_VR(NAME)               \
    HVX_CASE_FN(NAME) {                   \
        HVX_OUT_W(NAME(HVX_V(0), io->r)); \
    }
#define HVX_FORM_W_VVR(NAME)                        \
    HVX_CASE_FN(NAME) {                             \
        HVX_OUT_W(NAME(HVX_V(0), HVX_V(1), io->r)); \
    }
#define HVX_FORM_W_WV(NAME)                  \
    HVX_CASE_FN(NAME) {                      \
        HVX_OUT_W(NAME(HVX_W(0), HVX_V(2))); \
    }
#define HVX_FORM_W_WW(NAME)                  \
    HVX_CASE_FN(NAME) {                      \
        HVX_OUT_W(NAME(HVX_W(0), HVX_W(2))); \
    }
#define HVX_FORM_W_WVV(NAME)                           \
    HVX_CASE_FN(NAME) {                                \
        HVX_OUT_W(NAME(HVX_W(0), HVX_V(2), HVX_V(3))); \
    }
#define HVX_FORM_W_WVR(NAME)                        \
    HVX_CASE_FN(NAME) {                             \
        HVX_OUT_W(NAME(HVX_W(0), HVX_V(2), io->r)); \
    }
#define HVX_FORM_W_WVVR(NAME)                                 \
    HVX_CASE_FN(NAME) {                                       \
        HVX_OUT_W(NAME(HVX_W(0), HVX_V(2), HVX_V(3), io->r)); \
    }
#define HVX_FORM_W_QVV(NAME)                           \
    HVX_CASE_FN(NAME) {                                \
        HVX_OUT_W(NAME(HVX_Q(0), HVX_V(1), HVX_V(2))); \
    }
#define HVX_FORM_Q_Q(NAME)         \
    HVX_CASE_FN(NAME) {            \
        HVX_OUT_Q(NAME(HVX_Q(0))); \
    }
#define HVX_FORM_Q_QQ(NAME)                  \
    HVX_CASE_FN(NAME) {                      \
        HVX_OUT_Q(NAME(HVX_Q(0), HVX_Q(1))); \
    }
#define HVX_FORM_Q_R(NAME)      \
    HVX_CASE_FN(NAME) {         \
        HVX_OUT_Q(NAME(io->r)); \
    }
#define HVX_FORM_Q_VR(NAME)               \
    HVX_CASE_FN(NAME) {                   \
        HVX_OUT_Q(NAME(HVX_V(0), io->r)); \
    }
#define HVX_FORM_Q_VV(NAME)                  \
    HVX_CASE_FN(NAME) {                      \
        HVX_OUT_Q(NAME(HVX_V(0), HVX_V(1))); \
    }
#define HVX_FORM_Q_QVR(NAME)                        \
    HVX_CASE_FN(NAME) {                             \
        HVX_OUT_Q(NAME(HVX_Q(0), HVX_V(1), io->r)); \
    }
#define HVX_FORM_Q_QVV(NAME)                           \
    HVX_CASE_FN(NAME) {                                \
        HVX_OUT_Q(NAME(HVX_Q(0), HVX_V(1), HVX_V(2))); \
    }
#define HVX_FORM_V_VVI(NAME)                 \
    HVX_CASE_FN(NAME) {                      \
        HVX_IMM_SWITCH(HVX_CALL_V_VVI, NAME) \
    }
#define HVX_FORM_V_VVVI(NAME)                 \
    HVX_CASE_FN(NAME) {                       \
        HVX_IMM_SWITCH(HVX_CALL_V_VVVI, NAME) \
    }
#define HVX_FORM_W_VVI(NAME)                 \
    HVX_CASE_FN(NAME) {                      \
        HVX_IMM_SWITCH(HVX_CALL_W_VVI, NAME) \
    }
#define HVX_FORM_W_WVVI(NAME)                 \
    HVX_CASE_FN(NAME) {                       \
        HVX_IMM_SWITCH(HVX_CALL_W_WVVI, NAME) \
    }
/* predicated store of slot 0 under the predicate of slot 1 over a vector initialised from slot 2 */
#define HVX_FORM_ST_QAV(NAME)            \
    HVX_CASE_FN(NAME) {                  \
        HVX_Vector buf = io->in[2];      \
        NAME(HVX_Q(1), &buf, io->in[0]); \
        io->out[0] = buf;                \
    }
/* The scatter/gather intrinsics take the region as an integer, so the compiler does not see the
 * memory they touch: a barrier keeps the region's stores before and its loads after them. */
#define HVX_MEMORY_BARRIER() __asm__ volatile("" ::: "memory")

/* scatter of slot 1 to the offsets of slot 0 into the region (slots 2, 3); the result is the region */
#define HVX_SCATTER(NAME, MASK, ...)                                                   \
    HVX_CASE_FN(NAME) {                                                                \
        HVX_Vector region[2] = {io->in[2], io->in[3]};                                 \
        HVX_MEMORY_BARRIER();                                                          \
        NAME(__VA_ARGS__(uintptr_t) region, 255, HVX_REGION_OFFSETS(MASK), io->in[1]); \
        HVX_MEMORY_BARRIER();                                                          \
        io->out[0] = region[0];                                                        \
        io->out[1] = region[1];                                                        \
    }
#define HVX_FORM_SC_RMVVW(NAME)  HVX_SCATTER(NAME, 0x000000FC, )
#define HVX_FORM_SC_RMVVH(NAME)  HVX_SCATTER(NAME, 0x00FC00FC, )
#define HVX_FORM_SC_QRMVVW(NAME) HVX_SCATTER(NAME, 0x000000FC, HVX_Q(4), )
/* gather from the region (slots 2, 3) at the offsets of slot 0 into a vector initialised from slot 1 */
#define HVX_GATHER(NAME, MASK)                                         \
    HVX_CASE_FN(NAME) {                                                \
        HVX_Vector region[2] = {io->in[2], io->in[3]};                 \
        HVX_Vector dst = io->in[1];                                    \
        HVX_MEMORY_BARRIER();                                          \
        NAME(&dst, (uintptr_t) region, 255, HVX_REGION_OFFSETS(MASK)); \
        HVX_MEMORY_BARRIER();                                          \
        io->out[0] = dst;                                              \
    }
#define HVX_FORM_GA_ARMVW(NAME) HVX_GATHER(NAME, 0x000000FC)
#define HVX_FORM_GA_ARMVH(NAME) HVX_GATHER(NAME, 0x00FC00FC)

#define HVX_CASE_DEF(NAME, FORM) HVX_FORM_##FORM(NAME)
#define HVX_CASE_ROW(NAME, FORM) {#NAME, hvx_case_##NAME},

/* --- operand generation: the same bytes on a host and on Hexagon for a given (name, seed) --- */

static inline uint64_t hvx_case_rng(uint64_t *s) { /* splitmix64 */
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* element kinds of operands, from the intrinsic's name */
enum hvx_kind {
    HVX_KIND_BYTES,
    HVX_KIND_INT8,
    HVX_KIND_INT16,
    HVX_KIND_INT32,
    HVX_KIND_SF,
    HVX_KIND_HF,
    HVX_KIND_QF32,
    HVX_KIND_QF16,
    HVX_KIND_PRED,
    HVX_KIND_SCALAR,
    HVX_KIND_IMM
};

static inline int hvx_case_prefix(const char *s, const char *p) {
    while (*p) {
        if (*s++ != *p++) {
            return 0;
        }
    }
    return 1;
}

/* Operand kinds of NAME in order; a pair operand appears twice (two slots). Returns the count. */
static inline int hvx_case_operands(const char *name, enum hvx_kind kinds[8]) {
    int n = 0, seg = 0;
    const char *p = name;
    if (hvx_case_prefix(name, "Q6_vmem")) { /* data, predicate and memory: plain random bytes */
        return 0;
    }
    /* the operand segment: the first '_'-separated segment after the second that starts with V, W, Q, R */
    for (;;) {
        while (*p && *p != '_') {
            p++;
        }
        if (!*p) {
            return 0;
        }
        p++;
        if (++seg >= 3 && (*p == 'V' || *p == 'W' || *p == 'Q' || *p == 'R')) {
            break;
        }
        if (seg == 1 && *p == 'v') { /* Q6_vmem_QRIV and friends: no result type */
            seg++;
        }
    }
    while (*p && *p != '_' && n < 8) {
        const char c = *p++;
        if (c == 'Q') {
            kinds[n++] = HVX_KIND_PRED;
            continue;
        }
        if (c == 'R' || c == 'I' || c == 'M' || c == 'P' || c == 'A') {
            while (*p >= 'a' && *p <= 'z') {
                p++;
            }
            kinds[n++] = c == 'I' ? HVX_KIND_IMM : HVX_KIND_SCALAR;
            continue;
        }
        enum hvx_kind k = HVX_KIND_BYTES;
        if (hvx_case_prefix(p, "qf32")) {
            k = HVX_KIND_QF32;
        } else if (hvx_case_prefix(p, "qf16")) {
            k = HVX_KIND_QF16;
        } else if (hvx_case_prefix(p, "sf")) {
            k = HVX_KIND_SF;
        } else if (hvx_case_prefix(p, "hf")) {
            k = HVX_KIND_HF;
        } else if (hvx_case_prefix(p, "ub") || hvx_case_prefix(p, "b")) {
            k = HVX_KIND_INT8;
        } else if (hvx_case_prefix(p, "uh") || hvx_case_prefix(p, "h")) {
            k = HVX_KIND_INT16;
        } else if (hvx_case_prefix(p, "uw") || hvx_case_prefix(p, "w")) {
            k = HVX_KIND_INT32;
        }
        while (*p && *p != '_' && !(*p >= 'A' && *p <= 'Z')) {
            p++;
        }
        kinds[n++] = k;
        if (c == 'W' && n < 8) {
            kinds[n++] = k;
        }
    }
    return n;
}

static const uint32_t hvx_case_sf_edges[] = {
    0x00000000, 0x80000000, 0x3F800000, 0xBF800000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000,
    0x7F800001, 0xFFA00000, 0x00000001, 0x80000001, 0x007FFFFF, 0x00800000, 0x7F7FFFFF, 0xFF7FFFFF,
    0x477FE000, 0x477FF000, 0x477FEFFF, 0x38800000, 0x33800000, 0x33000000, 0x3F801000, 0x3F803000,
    0x4B000000, 0x4AFFFFFF, 0x4F000000, 0xCF000000, 0x3F000000, 0x40400000, 0x7F000000, 0x00400000,
};
static const uint16_t hvx_case_hf_edges[] = {
    0x0000, 0x8000, 0x3C00, 0xBC00, 0x7C00, 0xFC00, 0x7E00, 0xFE00, 0x7C01, 0xFD00, 0x0001, 0x8001,
    0x03FF, 0x0400, 0x7BFF, 0xFBFF, 0x3800, 0x3E00, 0x4100, 0x5BF8, 0x57F8, 0x5800, 0xD800, 0x3555,
};
static const int32_t hvx_case_r_edges[] = {
    0,
    1,
    2,
    3,
    4,
    6,
    7,
    8,
    9,
    15,
    16,
    17,
    31,
    32,
    33,
    63,
    64,
    65,
    100,
    127,
    128,
    129,
    255,
    256,
    -1,
    -2,
    -4,
    -8,
    -64,
    -127,
    -128,
    0x7FFFFFFF,
    (int32_t) 0x80000000,
    0x01010101,
    (int32_t) 0x80808080,
    0x7F7F7F7F,
    0x00FF00FF,
    (int32_t) 0xFF00FF00,
    0x3C003C00,
    0x00003C00,
    0x00010001,
    0x12345678,
};
#define HVX_CASE_COUNTOF(a) (sizeof(a) / sizeof((a)[0]))

static inline uint32_t hvx_case_edge_int(uint64_t r, int bytes) {
    static const int32_t e[] = {0, 1, 2, -1, -2, 3, -3, 127, -128, 126, -127, 255};
    const uint32_t top = 1u << (8 * bytes - 1);
    switch (r % 8) {
        case 0: return top;            /* min */
        case 1: return top - 1;        /* max */
        case 2: return top + 1;        /* min + 1 */
        case 3: return top - 2;        /* max - 1 */
        case 4: return (top << 1) - 1; /* all ones (unsigned max) */
        default: return (uint32_t) e[(r >> 3) % HVX_CASE_COUNTOF(e)];
    }
}

static inline uint32_t hvx_case_sf(uint64_t r) {
    if ((r & 3) == 0) {
        return hvx_case_sf_edges[(r >> 2) % HVX_CASE_COUNTOF(hvx_case_sf_edges)];
    }
    const uint32_t sign = (uint32_t) (r >> 8) & 0x80000000u;
    uint32_t exp = (uint32_t) (r >> 9) & 0xFF;
    if ((r & 12) != 0) {
        exp = 127 - 24 + (uint32_t) ((r >> 17) % 48); /* mostly values near 1 */
    }
    uint32_t mant = (uint32_t) (r >> 25) & 0x7FFFFF;
    if ((r >> 48) % 4 == 0) {
        mant &= 0x7FE000; /* exactly representable as hf, or on a tie of the hf grid */
        mant |= (uint32_t) ((r >> 50) & 1) << 12;
    }
    return sign | exp << 23 | mant;
}

static inline uint16_t hvx_case_hf(uint64_t r) {
    if ((r & 3) == 0) {
        return hvx_case_hf_edges[(r >> 2) % HVX_CASE_COUNTOF(hvx_case_hf_edges)];
    }
    uint16_t h = (uint16_t) (r >> 16);
    if ((r & 12) != 0) { /* exponent near 15 */
        h = (uint16_t) ((h & 0x83FF) | (((10 + (r >> 40) % 12) & 31) << 10));
    }
    return h;
}

/* qf32 / qf16 registers: any bits in the v68..v75 model (exponent fields near the bias mostly); in the
 * v79 model they hold IEEE values */
static inline uint32_t hvx_case_qf32(uint64_t r) {
#if VNPU_HVX_ARCH < 79
    uint32_t x = (uint32_t) (r >> 16);
    if ((r & 3) != 0) {
        x = (x & 0xFFFFFF00u) | (uint32_t) (127 - 20 + (r >> 4) % 40);
    }
    return x;
#else
    return hvx_case_sf(r);
#endif
}
static inline uint16_t hvx_case_qf16(uint64_t r) {
#if VNPU_HVX_ARCH < 79
    uint16_t x = (uint16_t) (r >> 16);
    if ((r & 3) != 0) {
        x = (uint16_t) ((x & 0xFFE0u) | (uint16_t) (15 - 6 + (r >> 4) % 12));
    }
    return x;
#else
    return hvx_case_hf(r);
#endif
}

static inline void hvx_case_fill(uint8_t *v, enum hvx_kind kind, uint64_t *s) {
    switch (kind) {
        case HVX_KIND_INT8:
        case HVX_KIND_INT16:
        case HVX_KIND_INT32: {
            const int bytes = kind == HVX_KIND_INT8 ? 1 : kind == HVX_KIND_INT16 ? 2 : 4;
            for (int i = 0; i < 128; i += bytes) {
                const uint64_t r = hvx_case_rng(s);
                const uint32_t x = (r & 3) == 0 ? hvx_case_edge_int(r >> 2, bytes) : (uint32_t) (r >> 32);
                for (int j = 0; j < bytes; j++) {
                    v[i + j] = (uint8_t) (x >> (8 * j));
                }
            }
            break;
        }
        case HVX_KIND_SF:
        case HVX_KIND_QF32:
            for (int i = 0; i < 128; i += 4) {
                const uint64_t r = hvx_case_rng(s);
                const uint32_t x = kind == HVX_KIND_SF ? hvx_case_sf(r) : hvx_case_qf32(r);
                for (int j = 0; j < 4; j++) {
                    v[i + j] = (uint8_t) (x >> (8 * j));
                }
            }
            break;
        case HVX_KIND_HF:
        case HVX_KIND_QF16:
            for (int i = 0; i < 128; i += 2) {
                const uint64_t r = hvx_case_rng(s);
                const uint16_t x = kind == HVX_KIND_HF ? hvx_case_hf(r) : hvx_case_qf16(r);
                v[i] = (uint8_t) x;
                v[i + 1] = (uint8_t) (x >> 8);
            }
            break;
        case HVX_KIND_PRED: { /* runs of set and clear bits, sometimes all or none */
            const uint64_t mode = hvx_case_rng(s) % 4;
            for (int i = 0; i < 128; i++) {
                const uint64_t r = hvx_case_rng(s);
                v[i] = mode == 0 ? 1 : mode == 1 ? 0 : (uint8_t) ((r >> 7) & 1);
            }
            break;
        }
        default:
            for (int i = 0; i < 128; i++) {
                v[i] = (uint8_t) (hvx_case_rng(s) >> 24);
            }
            break;
    }
}

/* Fill io's slots, scalar and immediate for case NAME from seed: typed operands first, the remaining
 * slots with random bytes. */
static inline void hvx_case_gen(const char *name, uint64_t seed, struct hvx_case_io *io) {
    enum hvx_kind kinds[8];
    uint64_t s = seed;
    const int n = hvx_case_operands(name, kinds);
    int slot = 0;
    for (int i = 0; i < n; i++) {
        if (kinds[i] != HVX_KIND_SCALAR && kinds[i] != HVX_KIND_IMM && slot < HVX_CASE_SLOTS) {
            hvx_case_fill((uint8_t *) &io->in[slot++], kinds[i], &s);
        }
    }
    while (slot < HVX_CASE_SLOTS) {
        hvx_case_fill((uint8_t *) &io->in[slot++], HVX_KIND_BYTES, &s);
    }
    const uint64_t r = hvx_case_rng(&s);
    io->r = (r & 1) ? hvx_case_r_edges[(r >> 1) % HVX_CASE_COUNTOF(hvx_case_r_edges)] : (int32_t) (r >> 32);
    io->imm = (int32_t) ((r >> 40) & 7);
    for (int i = 0; i < 256; i++) {
        ((uint8_t *) io->out)[i] = 0;
    }
}

/* FNV-1a of the intrinsic's name: the per-case seed base, identical on Hexagon (hvx-qemu-probe.c). */
static inline uint64_t hvx_case_seed(const char *name, int iter) {
    uint64_t h = 0xCBF29CE484222325ull;
    while (*name) {
        h = (h ^ (uint8_t) *name++) * 0x100000001B3ull;
    }
    return h + (uint64_t) iter * 0x9E3779B97F4A7C15ull;
}

#endif /* VNPU_TEST_HVX_CASES_H */
