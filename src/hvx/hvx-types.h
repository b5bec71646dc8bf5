/*
 * HVX register types for the host emulation (128-byte mode), and the helpers every emulated
 * intrinsic shares: lane views, saturation, the SIMD backend selection and the counting hook.
 *
 * Kernels never include this file; they include "hvx.h", which on __hexagon__ uses the compiler's own
 * types (hexagon_types.h) and on a host includes this file and the emulated Q6_* intrinsics.
 *
 * Representation (bit-exact with the hardware registers as seen through memory):
 *  - HVX_Vector: 128 bytes, little-endian lanes .ub/.b (128), .uh/.h (64), .uw/.w (32), .sf (32 floats);
 *    in a SIMD build also .s[] (HVX_SIMD_N native chunks), so the compiler keeps it in registers.
 *  - HVX_VectorPair: v[0] = lo (Vdd.v[0] in the ISA), v[1] = hi, laid out lo then hi as in memory.
 *  - HVX_VectorPred: one byte per Q bit, 0x00 or 0xFF. The ISA's Q register holds 128 bits, one per
 *    vector byte; a byte mask keeps compares, vmux and predicated stores one instruction each on a host.
 *  - All three are may_alias, as vector loads and stores through them reach memory of any type (VTCM
 *    buffers of floats, halves, bytes): without it GCC -O2 may keep a float array's old value across an
 *    HVX store into it (strict aliasing), which no Hexagon compiler does to HVX code.
 *
 * Build-time options (CMake sets them on the vnpu-hvx target, see src/hvx/CMakeLists.txt):
 *  - VNPU_HVX_SIMD_AVX2: use the AVX2 chunk backend (hvx-simd-avx2.h); else portable C lanes only.
 *    Both produce the same bits; the test suite checks every intrinsic against a scalar reference.
 *  - VNPU_HVX_ARCH: the HVX version emulated (68, 69, 73, 75, 79, 81; default 79). It selects the
 *    qf16/qf32 model (see hvx-qfloat.h) and which v73+/v79+ intrinsics exist, as __HVX_ARCH__ does on a
 *    Hexagon compiler. hvx.h defines __HVX_ARCH__ and __HVX_LENGTH__ from it so kernel sources can test
 *    the same macros on both sides. A translation unit may define VNPU_HVX_ARCH before including hvx.h.
 *  - VNPU_HVX_COUNT: each intrinsic counts itself by instruction class (hvx-count.h); zero cost when off.
 */
#ifndef VNPU_HVX_TYPES_H
#define VNPU_HVX_TYPES_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "hvx-count.h"

#ifndef VNPU_HVX_ARCH
#define VNPU_HVX_ARCH 79
#endif

#if VNPU_HVX_SIMD_AVX2
#include "hvx-simd-avx2.h"
#define HVX_SIMD 1
#else
#define HVX_SIMD 0
#endif

#define HVX_INLINE static inline __attribute__((always_inline))

typedef union {
    uint8_t ub[128];
    int8_t b[128];
    uint16_t uh[64];
    int16_t h[64];
    uint32_t uw[32];
    int32_t w[32];
    float sf[32];
#if HVX_SIMD
    hvx_simd_t s[HVX_SIMD_N];
#endif
} __attribute__((aligned(128), may_alias)) HVX_Vector;

/* An HVX_Vector at any address: the type of vmemu loads and stores (as the Hexagon headers define it). */
typedef HVX_Vector HVX_UVector __attribute__((aligned(1)));

typedef struct __attribute__((may_alias)) {
    HVX_Vector v[2]; /* v[0] = lo, v[1] = hi */
} HVX_VectorPair;

typedef HVX_VectorPair HVX_UVectorPair __attribute__((aligned(1)));

typedef union {
    uint8_t q[128]; /* 0x00 or 0xFF per vector byte */
#if HVX_SIMD
    hvx_simd_t s[HVX_SIMD_N];
#endif
} __attribute__((aligned(128), may_alias)) HVX_VectorPred;

_Static_assert(sizeof(HVX_Vector) == 128, "HVX_Vector is one 128-byte register");
_Static_assert(sizeof(HVX_VectorPair) == 256, "HVX_VectorPair is two registers, lo then hi");
_Static_assert(sizeof(HVX_VectorPred) == 128, "one mask byte per vector byte");

/* Scalar operands: the Hexagon headers call them Word32 (Rt32) and Word64 (Rtt32). */
typedef int32_t Word32;
typedef int64_t Word64;

/* --- helpers shared by the emulation headers (not part of the Q6 API) --- */

#define HVX_FOR(i, n) for (int i = 0; i < (n); i++)

/* The body of an intrinsic with a fast path: simd_stmt per chunk k in a SIMD build, else lane_stmt. */
#if HVX_SIMD
#define HVX_SIMD_OR_LANES(simd_stmt, ...) HVX_SIMD_EACH(simd_stmt)
#else
#define HVX_SIMD_OR_LANES(simd_stmt, ...) __VA_ARGS__
#endif

HVX_INLINE int8_t hvx_sat_b(int64_t x) {
    return (int8_t) (x > 127 ? 127 : x < -128 ? -128 : x);
}
HVX_INLINE uint8_t hvx_sat_ub(int64_t x) {
    return (uint8_t) (x > 255 ? 255 : x < 0 ? 0 : x);
}
HVX_INLINE int16_t hvx_sat_h(int64_t x) {
    return (int16_t) (x > 32767 ? 32767 : x < -32768 ? -32768 : x);
}
HVX_INLINE uint16_t hvx_sat_uh(int64_t x) {
    return (uint16_t) (x > 65535 ? 65535 : x < 0 ? 0 : x);
}
HVX_INLINE int32_t hvx_sat_w(int64_t x) {
    return (int32_t) (x > INT32_MAX ? INT32_MAX : x < INT32_MIN ? INT32_MIN : x);
}
HVX_INLINE uint32_t hvx_sat_uw(int64_t x) {
    return (uint32_t) (x > (int64_t) UINT32_MAX ? UINT32_MAX : x < 0 ? 0 : x);
}

/* Byte k (0 = least significant) of a scalar register, signed and unsigned. */
HVX_INLINE int8_t hvx_rbyte(Word32 r, int k) {
    return (int8_t) ((uint32_t) r >> (8 * k));
}
HVX_INLINE uint8_t hvx_rubyte(Word32 r, int k) {
    return (uint8_t) ((uint32_t) r >> (8 * k));
}
HVX_INLINE int16_t hvx_rhalf(Word32 r, int k) {
    return (int16_t) ((uint32_t) r >> (16 * k));
}
HVX_INLINE uint16_t hvx_ruhalf(Word32 r, int k) {
    return (uint16_t) ((uint32_t) r >> (16 * k));
}

HVX_INLINE HVX_VectorPair hvx_pair(HVX_Vector hi, HVX_Vector lo) {
    HVX_VectorPair p;
    p.v[0] = lo;
    p.v[1] = hi;
    return p;
}

/* Predicate byte i as 0/1, and the mask byte for a condition. */
HVX_INLINE int hvx_qbit(HVX_VectorPred q, int i) {
    return q.q[i] != 0;
}
HVX_INLINE uint8_t hvx_qmask(int cond) {
    return cond ? 0xFF : 0x00;
}

#endif /* VNPU_HVX_TYPES_H */
