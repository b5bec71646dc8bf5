/*
 * What every NPU source shares: min/max, alignment arithmetic and the invariant check. Freestanding: no
 * libc on the NPU side, so an invariant that fails traps (the session dies, as a DSP process would).
 */
#ifndef VNPU_HEX_COMMON_H
#define VNPU_HEX_COMMON_H

#include <stddef.h>
#include <stdint.h>

#define HEX_MIN(a, b) ((a) < (b) ? (a) : (b))
#define HEX_MAX(a, b) ((a) > (b) ? (a) : (b))

/* A compute kernel a worker calls once per block (row, tile row, task): kept a call of its own so that its vector
 * constants and temporaries are allocated in its body. Inlined into the worker, the compiler hoists them out of
 * the block loop, runs out of the 32 vector registers and spills them in the loop (the seed's "Binary Inspection
 * and Spill Analysis"; scripts/ci-hvx.sh checks every *_worker* and *_compute* function). */
#define HEX_NOINLINE __attribute__((noinline))

/* The HVX vector: DMA rows in VTCM and kernel buffers are aligned to it. */
#define HEX_VLEN 128

/* The L2 (data cache) line, 128 bytes on every target (seed, "128-Byte Cache Line Alignment"): what a flush cleans,
 * and what two devices never both write by stores (mdev). Each use names it; a size that is one line by a rule
 * (HTP_FENCE_SLOT_SIZE) is defined from it. */
#define HEX_L2_LINE_SIZE 128u

/* Internal invariant (never input validation): trap when x is false. */
#define HTP_ASSERT(x)         \
    do {                      \
        if (!(x)) {           \
            __builtin_trap(); \
        }                     \
    } while (0)

/* n rounded up to a multiple of a (a power of two). */
/* One polling step's pause: the hardware thread yields its issue slots, as the real backend's spin does. */
static inline void hex_pause(void) {
#if defined(__hexagon__)
    __asm__ volatile("pause(#1)");
#elif defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

static inline uint32_t hex_align_up(uint32_t n, uint32_t a) {
    return (n + a - 1) & ~(a - 1);
}

static inline int hex_is_aligned(const void *p, uintptr_t a) {
    return ((uintptr_t) p & (a - 1)) == 0;
}

#endif /* VNPU_HEX_COMMON_H */
