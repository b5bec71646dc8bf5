/*
 * FNV-1a, 64-bit (Fowler, Noll, Vo): the string hash of the name tables (GGUF tensor names, token texts); and the
 * pointer hash of the open-addressing tables keyed by address (the graph's visited set, the NPU staging table, the
 * GGML adapter's translations).
 */
#ifndef VNPU_HASH_H
#define VNPU_HASH_H

#include <stddef.h>
#include <stdint.h>

#define VNPU_FNV1A64_INIT 0xcbf29ce484222325ull /* the hash of no bytes */

/* The hash h (of some bytes) continued over len more: vnpu_fnv1a64 of their concatenation, without concatenating
 * them (the BPE merge table hashes a pair of texts this way). */
static inline uint64_t vnpu_fnv1a64_more(uint64_t h, const void *data, size_t len) {
    const uint8_t *p = data;
    for (size_t i = 0; i < len; i++) {
        h = (h ^ p[i]) * 0x100000001b3ull;
    }
    return h;
}

static inline uint64_t vnpu_fnv1a64(const void *data, size_t len) {
    return vnpu_fnv1a64_more(VNPU_FNV1A64_INIT, data, len);
}

/* The first slot for pointer p in a table of mask + 1 slots (a power of two): Fibonacci hashing of the address
 * without its low 4 bits (allocations are at least 16-byte aligned). */
static inline size_t vnpu_ptr_slot(const void *p, size_t mask) {
    return (size_t) (((uintptr_t) p >> 4) * UINT64_C(0x9E3779B97F4A7C15) >> 16) & mask;
}

#endif /* VNPU_HASH_H */
