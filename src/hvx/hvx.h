/*
 * HVX for vnpu kernels: the one header NPU-side code includes to use HVX.
 *
 * Kernels write HVX exactly as on Hexagon, with the HVX types and the Q6_* intrinsics of the Hexagon
 * SDK (names, argument order and semantics of the HVX ISA):
 *
 *     #include "hvx.h"
 *     HVX_Vector acc = Q6_V_vzero();
 *     acc = Q6_Vw_vrmpyacc_VwVbVb(acc, hvx_vmem_ld(w), hvx_vmem_ld(x));
 *
 *  - On __hexagon__ (clang --target=hexagon -mv68 -mhvx -mhvx-length=128b) the types and intrinsics are
 *    the compiler's own (hexagon_types.h, hexagon_protos.h, which includes hvx_hexagon_protos.h).
 *  - On a host every Q6_* intrinsic listed in the hvx-*.h headers is emulated bit-exactly: a static
 *    inline function over 128-byte registers kept in host SIMD registers (AVX2 backend, or portable C),
 *    checked against scalar references of the ISA and, for the integer ones, against qemu-hexagon.
 *
 * Loads and stores: use hvx_vmem_ld/hvx_vmem_st (aligned, address rounded down to 128 bytes as the
 * hardware does) and hvx_vmemu_ld/hvx_vmemu_st (any address) rather than dereferencing, so the counting
 * build sees them; a plain *(HVX_Vector *) p works on both sides but is not counted.
 *
 * __HVX_ARCH__ and __HVX_LENGTH__ are the compiler's on Hexagon; on a host this header defines them as
 * VNPU_HVX_ARCH and 128, so `#if __HVX_ARCH__ >= 79` selects the same kernel path on both sides.
 * Intrinsics newer than v68 exist on a host only when VNPU_HVX_ARCH reaches their version (v73: Vsf =
 * Vw and friends); clang 14 knows HVX up to v69.
 */
#ifndef VNPU_HVX_H
#define VNPU_HVX_H

#include "hvx-count.h"

#if defined(__hexagon__)

#include <hexagon_types.h>
#include <hexagon_protos.h>

/* Kernels use the same helpers as on the host; on Hexagon they are plain vector accesses. */
static inline HVX_Vector hvx_vmem_ld(const void *p) {
    return *(const HVX_Vector *) p;
}
static inline HVX_Vector hvx_vmemu_ld(const void *p) {
    return *(const HVX_UVector *) p;
}
static inline void hvx_vmem_st(void *p, HVX_Vector v) {
    *(HVX_Vector *) p = v;
}
static inline void hvx_vmemu_st(void *p, HVX_Vector v) {
    *(HVX_UVector *) p = v;
}

#else /* host emulation */

#include "hvx-types.h"

#ifndef __HVX_ARCH__
#define __HVX_ARCH__ VNPU_HVX_ARCH
#endif
#ifndef __HVX_LENGTH__
#define __HVX_LENGTH__ 128
#endif

#include "hvx-mem.h"
#include "hvx-arith.h"
#include "hvx-mpy.h"
#include "hvx-shift.h"
#include "hvx-logic.h"
#include "hvx-permute.h"
#include "hvx-float.h"
#include "hvx-qfloat.h"

#endif

#endif /* VNPU_HVX_H */
