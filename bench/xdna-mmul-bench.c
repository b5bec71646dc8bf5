/*
 * xdna-mmul-bench: the host cost of the emulated XDNA matmul kernels (src/xdna/xdna-mmul.h), a model's matmul hot
 * loop on the XDNA path: one kernel call (C += A B on blocked m x k x n tiles) repeated, thread CPU time, the best
 * of the repeats, as MACs per second. C's digest is printed so that two builds can be compared.
 *
 *   xdna-mmul-bench [m k n [calls [repeats]]]   defaults 32 64 64 1000 10; every variant of the kernel table
 */
#include "hash.h"
#include "rng.h"
#include "xdna-mmul.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double thread_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static const struct bench_variant {
    enum xdna_arch arch;
    enum xdna_dtype in, out;
    bool bfp16;
} variants[] = {
    {XDNA_ARCH_AIE2, XDNA_DTYPE_BF16, XDNA_DTYPE_F32, false}, {XDNA_ARCH_AIE2P, XDNA_DTYPE_BF16, XDNA_DTYPE_F32, false},
    {XDNA_ARCH_AIE2P, XDNA_DTYPE_BF16, XDNA_DTYPE_F32, true}, {XDNA_ARCH_AIE2, XDNA_DTYPE_I8, XDNA_DTYPE_I32, false},
    {XDNA_ARCH_AIE2P, XDNA_DTYPE_I8, XDNA_DTYPE_I32, false},  {XDNA_ARCH_AIE2, XDNA_DTYPE_I16, XDNA_DTYPE_I32, false},
    {XDNA_ARCH_AIE2P, XDNA_DTYPE_I16, XDNA_DTYPE_I64, false},
};

int main(int argc, char **argv) {
    const int m = argc > 3 ? atoi(argv[1]) : 32, k = argc > 3 ? atoi(argv[2]) : 64, n = argc > 3 ? atoi(argv[3]) : 64;
    const int calls = argc > 4 ? atoi(argv[4]) : 1000, repeats = argc > 5 ? atoi(argv[5]) : 10;
    if (m < 16 || k < 8 || n < 16 || m > 4096 || k > 4096 || n > 4096 || calls < 1 || repeats < 1) {
        fprintf(stderr, "usage: xdna-mmul-bench [m k n (multiples of 16, 8, 16; <= 4096) [calls [repeats]]]\n");
        return 2;
    }
    uint8_t *a = malloc((size_t) m * k * 2), *b = malloc((size_t) k * n * 2), *c = malloc((size_t) m * n * 8);
    if (!a || !b || !c) {
        fprintf(stderr, "xdna-mmul-bench: out of memory\n");
        return 1;
    }
    struct vnpu_rng rng;
    vnpu_rng_seed(&rng, 1);
    for (size_t i = 0; i < (size_t) m * k; i++) { /* bf16 of magnitude 2^-4 .. 2^0, or small integers */
        const uint64_t r = vnpu_rng_next(&rng);
        ((uint16_t *) a)[i] = (uint16_t) ((r & 0x8000u) | (0x3D80u + (r >> 16) % 0x200u));
    }
    for (size_t i = 0; i < (size_t) k * n; i++) {
        const uint64_t r = vnpu_rng_next(&rng);
        ((uint16_t *) b)[i] = (uint16_t) ((r & 0x8000u) | (0x3D80u + (r >> 16) % 0x200u));
    }
    for (size_t v = 0; v < sizeof(variants) / sizeof(variants[0]); v++) {
        const struct bench_variant *bv = &variants[v];
        struct xdna_mm_kernel kern;
        if (xdna_mm_kernel_init(&kern, bv->arch, bv->in, bv->out, bv->bfp16, (uint32_t) m, (uint32_t) k,
                                (uint32_t) n) != VNPU_STATUS_OK) {
            return 1;
        }
        const struct xdna_mm_args args = {.kernel = &kern, .rows_valid = (uint32_t) m};
        uint64_t macs = 0;
        struct xdna_call call = {.bufs = {a, b, c}, .n_bufs = 3, .args = &args, .macs = &macs};
        call.buf_bytes[0] = (size_t) m * k * 2;
        call.buf_bytes[1] = (size_t) k * n * 2;
        call.buf_bytes[2] = (size_t) m * n * 8;
        double best = 1e30;
        for (int r = 0; r < repeats; r++) {
            memset(c, 0, (size_t) m * n * 8);
            const double t0 = thread_s();
            for (int i = 0; i < calls; i++) {
                kern.base.fn(&call);
            }
            const double t = thread_s() - t0;
            best = t < best ? t : best;
        }
        printf("%-20s %dx%dx%d: %8.3f GMAC/s (%.2f us per call), C digest %016llx\n", kern.base.name, m, k, n,
               (double) m * k * n * calls / best / 1e9, best / calls * 1e6,
               (unsigned long long) vnpu_fnv1a64(c, (size_t) m * n * 8));
    }
    free(a);
    free(b);
    free(c);
    return 0;
}
