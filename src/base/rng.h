/*
 * xoshiro256** 1.0, the 64-bit generator of Blackman and Vigna ("Scrambled linear pseudorandom number generators",
 * ACM TOMS 47(4), 2021; reference code xoshiro256starstar.c at prng.di.unimi.it), its 256-bit state filled by
 * splitmix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014; the seeding the
 * xoshiro authors recommend). One generator for the sampler, vnpu-bench's data streams and the tests: each caller
 * turns its own seed (a number, a hashed name) into the 64-bit value given to vnpu_rng_seed, and the streams are
 * pinned by tests, so the arithmetic here must not change.
 */
#ifndef VNPU_RNG_H
#define VNPU_RNG_H

#include <stdint.h>

/* The state: never all zero (splitmix64 outputs from any seed are not). */
struct vnpu_rng {
    uint64_t s[4];
};

/* splitmix64: advance *x by the golden-ratio increment and return its mix. */
static inline uint64_t vnpu_splitmix64(uint64_t *x) {
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* The state from seed: four successive splitmix64 outputs, s[0] first. */
static inline void vnpu_rng_seed(struct vnpu_rng *r, uint64_t seed) {
    for (int i = 0; i < 4; i++) {
        r->s[i] = vnpu_splitmix64(&seed);
    }
}

static inline uint64_t vnpu_rng_rotl(uint64_t x, int k) {
    return (x << k) | (x >> (64 - k));
}

/* The next 64 random bits (the ** scrambler of s[1]), then the state steps on. */
static inline uint64_t vnpu_rng_next(struct vnpu_rng *r) {
    uint64_t *s = r->s;
    const uint64_t result = vnpu_rng_rotl(s[1] * 5, 7) * 9;
    const uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = vnpu_rng_rotl(s[3], 45);
    return result;
}

#endif /* VNPU_RNG_H */
