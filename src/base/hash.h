/*
 * FNV-1a, 64-bit (Fowler, Noll, Vo): the string hash of the name tables (GGUF tensor names, token texts).
 */
#ifndef VNPU_HASH_H
#define VNPU_HASH_H

#include <stddef.h>
#include <stdint.h>

static inline uint64_t vnpu_fnv1a64(const void *data, size_t len) {
    const uint8_t *p = data;
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < len; i++) {
        h = (h ^ p[i]) * 0x100000001b3ull;
    }
    return h;
}

#endif /* VNPU_HASH_H */
