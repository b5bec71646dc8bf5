/*
 * hvx-vrmpy-bench: how close the HVX emulation comes to native host SIMD on the int8 dot product, the
 * inner loop of every quantized matmul kernel.
 *
 * The same work two ways: rows x K int8 weights times one K-long int8 activation vector, values in
 * [-127, 127] (Q8_0's range), one int32 per row.
 *   emulated  the kernel as written for Hexagon: acc = Q6_Vw_vrmpyacc_VwVbVb(acc, a, w) per 128 bytes,
 *             through src/hvx (the build's backend: AVX2 or portable C)
 *   direct    the best loop this host runs, written with AVX2 intrinsics: |a| * sign(w, a) with
 *             vpmaddubsw, widened with vpmaddwd, added in int32 (the int8 dot product of GGML's AVX2
 *             kernels; exact here since no value is -128)
 * Both results are compared; the ratio reported is direct time / emulated time (1.0: the emulation is
 * as fast as native code). The target is >= 0.8 of a direct AVX-512 VNNI loop; this host has no
 * AVX-512, so the reference is the AVX2 loop (bench/RESULTS.md).
 *
 *   hvx-vrmpy-bench [rows [K [repeats]]]   defaults 64 4096 500 (passes per timed block); K a multiple of 128
 */
#include "hvx.h"

#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec * 1e9 + (double) ts.tv_nsec;
}

/* The kernel loop with HVX intrinsics: 32 int32 lanes per row, summed at the end. */
static void dot_emulated(const int8_t *w, const int8_t *a, int rows, int k, int32_t *out) {
    for (int r = 0; r < rows; r++) {
        const int8_t *wr = w + (size_t) r * (size_t) k;
        HVX_Vector acc = Q6_V_vzero();
        for (int i = 0; i < k; i += 128) {
            acc = Q6_Vw_vrmpyacc_VwVbVb(acc, hvx_vmem_ld(a + i), hvx_vmem_ld(wr + i));
        }
        int32_t s = 0;
        for (int j = 0; j < 32; j++) {
            s += acc.w[j];
        }
        out[r] = s;
    }
}

/* The same with AVX2 directly: four accumulators, one per 32 bytes of each 128-byte step (the fastest
 * form of this loop here; one accumulator is about 10% slower). */
__attribute__((target("avx2"))) static inline __m256i dot32(__m256i acc, const int8_t *a, const int8_t *w) {
    const __m256i x = _mm256_load_si256((const __m256i *) a);
    const __m256i y = _mm256_load_si256((const __m256i *) w);
    const __m256i p = _mm256_maddubs_epi16(_mm256_sign_epi8(x, x), _mm256_sign_epi8(y, x));
    return _mm256_add_epi32(acc, _mm256_madd_epi16(p, _mm256_set1_epi16(1)));
}

__attribute__((target("avx2"))) static void dot_direct(const int8_t *w, const int8_t *a, int rows, int k,
                                                       int32_t *out) {
    for (int r = 0; r < rows; r++) {
        const int8_t *wr = w + (size_t) r * (size_t) k;
        __m256i acc0 = _mm256_setzero_si256(), acc1 = acc0, acc2 = acc0, acc3 = acc0;
        for (int i = 0; i < k; i += 128) {
            acc0 = dot32(acc0, a + i, wr + i);
            acc1 = dot32(acc1, a + i + 32, wr + i + 32);
            acc2 = dot32(acc2, a + i + 64, wr + i + 64);
            acc3 = dot32(acc3, a + i + 96, wr + i + 96);
        }
        const __m256i acc = _mm256_add_epi32(_mm256_add_epi32(acc0, acc1), _mm256_add_epi32(acc2, acc3));
        const __m128i h = _mm_add_epi32(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
        const __m128i q = _mm_add_epi32(h, _mm_shuffle_epi32(h, 0x4E));
        out[r] = _mm_cvtsi128_si32(_mm_add_epi32(q, _mm_shuffle_epi32(q, 0xB1)));
    }
}

typedef void (*dot_fn)(const int8_t *, const int8_t *, int, int, int32_t *);

/* ns per row of one block of `repeats` passes. */
static double time_block(dot_fn fn, const int8_t *w, const int8_t *a, int rows, int k, int repeats, int32_t *out) {
    const double t0 = now_ns();
    for (int i = 0; i < repeats; i++) {
        fn(w, a, rows, k, out);
        __asm__ volatile("" : : "r"(out) : "memory"); /* keep every pass */
    }
    return (now_ns() - t0) / ((double) repeats * rows);
}

#define RUNS 21

int main(int argc, char **argv) {
    const int rows = argc > 1 ? atoi(argv[1]) : 64;
    const int k = argc > 2 ? atoi(argv[2]) : 4096;
    const int repeats = argc > 3 ? atoi(argv[3]) : 500;
    if (rows < 1 || k < 128 || k % 128 != 0 || repeats < 1 || (size_t) rows * (size_t) k > (1u << 30)) {
        fprintf(stderr, "usage: %s [rows [K [repeats]]]: rows >= 1, K a multiple of 128, rows * K <= 2^30\n", argv[0]);
        return 2;
    }
    if (!__builtin_cpu_supports("avx2")) {
        fprintf(stderr, "%s: the direct loop needs AVX2, which this machine lacks\n", argv[0]);
        return 2;
    }
    int8_t *w = aligned_alloc(128, (size_t) rows * (size_t) k);
    int8_t *a = aligned_alloc(128, (size_t) k);
    int32_t *out_emu = malloc(sizeof(int32_t) * (size_t) rows);
    int32_t *out_direct = malloc(sizeof(int32_t) * (size_t) rows);
    if (!w || !a || !out_emu || !out_direct) {
        fprintf(stderr, "%s: out of memory for %d x %d\n", argv[0], rows, k);
        return 1;
    }
    uint64_t s = 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i < (size_t) rows * (size_t) k; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        w[i] = (int8_t) ((int) ((s >> 33) % 255) - 127);
    }
    for (int i = 0; i < k; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        a[i] = (int8_t) ((int) ((s >> 33) % 255) - 127);
    }

    dot_emulated(w, a, rows, k, out_emu);
    dot_direct(w, a, rows, k, out_direct);
    if (memcmp(out_emu, out_direct, sizeof(int32_t) * (size_t) rows) != 0) {
        fprintf(stderr, "%s: the emulated and direct dot products differ\n", argv[0]);
        return 1;
    }
    /* The two loops alternate and each keeps its best block: on a shared machine the minimum is
     * the time without interference, and both see the same conditions. */
    double emu = 1e300, direct = 1e300;
    for (int run = 0; run < RUNS; run++) {
        const double te = time_block(dot_emulated, w, a, rows, k, repeats, out_emu);
        const double td = time_block(dot_direct, w, a, rows, k, repeats, out_direct);
        emu = te < emu ? te : emu;
        direct = td < direct ? td : direct;
    }
    const double bytes = (double) k;
    printf("int8 dot product, %d rows x K = %d, best of %d blocks of %d passes (HVX emulation: %s)\n", rows, k, RUNS,
           repeats,
#if HVX_SIMD
           "AVX2"
#else
           "portable C"
#endif
    );
    printf("  emulated Q6_Vw_vrmpyacc_VwVbVb  %8.1f ns/row  %6.2f GB/s of weights\n", emu, bytes / emu);
    printf("  direct AVX2 maddubs/madd        %8.1f ns/row  %6.2f GB/s of weights\n", direct, bytes / direct);
    printf("  ratio direct/emulated           %8.2f\n", direct / emu);
    free(w);
    free(a);
    free(out_emu);
    free(out_direct);
    return 0;
}
