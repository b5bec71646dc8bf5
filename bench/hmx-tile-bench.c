/*
 * hmx-tile-bench: the host cost of the emulated HMX tile operations (src/hvx/hmx.h), the prefill's hot loop on the
 * HMX path: hmx_acc_mac over a stream of tile pairs (32 x 32 x 32 FP16 products each, widened to FP32) and
 * hmx_acc_store_f16 of one output tile. Thread CPU time, the best of the repeats (so a loaded host inflates it
 * less), per tile pair and per tile. The stored tile's digest is printed so that two builds can be compared.
 *
 *   hmx-tile-bench [tiles [repeats]]   defaults 64 (K = 2048) 30
 */
#include "hash.h"
#include "hmx.h"
#include "rng.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double thread_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double) ts.tv_sec * 1e6 + (double) ts.tv_nsec / 1e3;
}

/* An FP16 value of magnitude about 2^-4 .. 2^0, either sign. */
static uint16_t next_half(struct vnpu_rng *rng) {
    const uint64_t r = vnpu_rng_next(rng);
    return (uint16_t) ((r & 0x8000u) | (0x2C00u + (r >> 16) % 0x1000u));
}

int main(int argc, char **argv) {
    const int tiles = argc > 1 ? atoi(argv[1]) : 64, repeats = argc > 2 ? atoi(argv[2]) : 30;
    if (tiles < 1 || tiles > 4096 || repeats < 1) {
        fprintf(stderr, "usage: hmx-tile-bench [tiles (1..4096) [repeats (>= 1)]]\n");
        return 2;
    }
    const size_t halves = (size_t) tiles * HMX_TILE_HALVES;
    uint16_t *act = aligned_alloc(128, halves * 2), *wt = aligned_alloc(128, halves * 2);
    uint16_t *out = aligned_alloc(128, HMX_TILE_BYTES);
    uint32_t *scales = aligned_alloc(128, HMX_SCALES_BYTES);
    struct hmx_acc *acc = aligned_alloc(128, sizeof(*acc));
    if (!act || !wt || !out || !scales || !acc) {
        fprintf(stderr, "hmx-tile-bench: out of memory for %d tiles\n", tiles);
        return 1;
    }
    struct vnpu_rng rng;
    vnpu_rng_seed(&rng, 1);
    for (size_t i = 0; i < halves; i++) {
        act[i] = next_half(&rng);
        wt[i] = next_half(&rng);
    }
    for (int n = 0; n < HMX_SCALES_BYTES / 4; n++) {
        scales[n] = n < HMX_TILE_COLS ? 0x00003C00u : 0; /* scale 1, bias 0 */
    }
    enum { STORES = 100 };
    double mac = 1e30, store = 1e30;
    for (int r = 0; r < repeats; r++) {
        hmx_acc_clear(acc);
        const double t0 = thread_us();
        hmx_acc_mac(acc, act, wt, (unsigned) tiles);
        const double t1 = thread_us();
        for (int i = 0; i < STORES; i++) {
            hmx_acc_store_f16(acc, out, scales);
        }
        const double t2 = thread_us();
        mac = t1 - t0 < mac ? t1 - t0 : mac;
        store = t2 - t1 < store ? t2 - t1 : store;
    }
    const uint64_t digest = vnpu_fnv1a64(out, HMX_TILE_BYTES); /* of the stored tile */
    printf("hmx_acc_mac: %.3f us per tile pair (%d tiles, K = %d); hmx_acc_store_f16: %.3f us per tile; "
           "out digest %016llx\n",
           mac / tiles, tiles, tiles * HMX_TILE_COLS, store / STORES, (unsigned long long) digest);
    free(act);
    free(wt);
    free(out);
    free(scales);
    free(acc);
    return 0;
}
