/*
 * What the NPU side's memory safety rests on when it takes a request (docs/ARCHITECTURE.md, "Rules of the line"): a
 * request is a message across a process boundary from a host that may be wrong or hostile, and the shared DDR it
 * names (the request block, index and id operands) stays writable by host threads while the NPU works on it. Two
 * rules, and the helpers that keep them:
 *
 *   1. Size arithmetic on request fields (counts, offsets, shapes, strides) is overflow-checked: htp_add_u64 and
 *      htp_mul_u64 say when a sum or a product does not fit 64 bits, and the check using it then fails.
 *   2. A host-writable value the NPU checks is read once, into the NPU's own memory (stack, VTCM), and only that copy
 *      is checked and used (no double fetch: a host thread may change the value between two reads). htp_shared_read
 *      makes the copy.
 *
 * Freestanding (no libc): compiler builtins only.
 */
#ifndef VNPU_HTP_CHECKED_H
#define VNPU_HTP_CHECKED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* *sum = a + b; false when it does not fit 64 bits (*sum is then the wrapped value, never to be used). */
static inline bool htp_add_u64(uint64_t a, uint64_t b, uint64_t *sum) {
    return !__builtin_add_overflow(a, b, sum);
}

/* *product = a * b; false when it does not fit 64 bits. */
static inline bool htp_mul_u64(uint64_t a, uint64_t b, uint64_t *product) {
    return !__builtin_mul_overflow(a, b, product);
}

/* Copy n bytes of host-writable memory at src (any alignment) into NPU memory at dst, reading each byte once. The
 * compiler barrier after the copy keeps the compiler from reading src again where the code reads dst (it may forward
 * a copy's source to later reads of its destination when it sees no store in between). */
static inline void htp_shared_read(void *dst, const void *src, size_t n) {
    __builtin_memcpy(dst, src, n);
    __asm__ __volatile__("" ::: "memory");
}

#endif /* VNPU_HTP_CHECKED_H */
