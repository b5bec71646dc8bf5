/*
 * The XDNA mmul micro-kernels and matmul kernels (src/xdna/xdna-mmul.h): the shape table against the seed's, one
 * mmul against plain loops of the same defined arithmetic (bit for bit), constructed cases of the arithmetic's
 * corners (int32 wraparound, acc64, bf16's k order, BFP16 blocks worked by hand), the kernels on blocked tiles
 * against a naive row-major reference, rows_valid, the MAC count, and xdna_mm_kernel_init's refusals word for word.
 *
 * The references here round each float operation on its own: a product and a sum are separate statements (GCC in
 * ISO C mode and clang's default contract only within one expression).
 */
#include "test-common.h"

#include "fp16.h"
#include "xdna-mmul.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The seed's table (seed 003, "MMUL shapes"), written again: the oracle of xdna_mmul_dims. */
static const struct seed_shape {
    enum xdna_arch arch;
    enum xdna_dtype in;
    bool bfp16;
    uint32_t r, s, t;
} seed_shapes[] = {
    {XDNA_ARCH_AIE2, XDNA_DTYPE_I8, false, 4, 8, 8},   {XDNA_ARCH_AIE2, XDNA_DTYPE_I16, false, 4, 4, 4},
    {XDNA_ARCH_AIE2, XDNA_DTYPE_BF16, false, 4, 8, 4}, {XDNA_ARCH_AIE2P, XDNA_DTYPE_I8, false, 8, 8, 8},
    {XDNA_ARCH_AIE2P, XDNA_DTYPE_I16, false, 4, 4, 8}, {XDNA_ARCH_AIE2P, XDNA_DTYPE_BF16, false, 4, 8, 8},
    {XDNA_ARCH_AIE2P, XDNA_DTYPE_BF16, true, 8, 8, 8},
};

/* The kernels xdna_mm_kernel_init makes (every other (arch, in, out, bfp16) is refused), with their accumulator. */
static const struct variant {
    enum xdna_arch arch;
    enum xdna_dtype in, out;
    bool bfp16;
    enum xdna_acc acc;
} variants[] = {
    {XDNA_ARCH_AIE2, XDNA_DTYPE_I8, XDNA_DTYPE_I32, false, XDNA_ACC32},
    {XDNA_ARCH_AIE2, XDNA_DTYPE_I16, XDNA_DTYPE_I32, false, XDNA_ACC32},
    {XDNA_ARCH_AIE2, XDNA_DTYPE_I16, XDNA_DTYPE_I64, false, XDNA_ACC64},
    {XDNA_ARCH_AIE2, XDNA_DTYPE_BF16, XDNA_DTYPE_F32, false, XDNA_ACCFLOAT},
    {XDNA_ARCH_AIE2P, XDNA_DTYPE_I8, XDNA_DTYPE_I32, false, XDNA_ACC32},
    {XDNA_ARCH_AIE2P, XDNA_DTYPE_I16, XDNA_DTYPE_I32, false, XDNA_ACC32},
    {XDNA_ARCH_AIE2P, XDNA_DTYPE_I16, XDNA_DTYPE_I64, false, XDNA_ACC64},
    {XDNA_ARCH_AIE2P, XDNA_DTYPE_BF16, XDNA_DTYPE_F32, false, XDNA_ACCFLOAT},
    {XDNA_ARCH_AIE2P, XDNA_DTYPE_BF16, XDNA_DTYPE_F32, true, XDNA_ACCFLOAT},
};
#define N_VARIANTS (sizeof(variants) / sizeof(variants[0]))

static const char *const dtype_names[] = {"i8", "i16", "bf16", "f32", "i32", "i64"};
static const char *const arch_names[] = {"AIE2", "AIE2P"};

static size_t dtype_bytes(enum xdna_dtype d) {
    static const size_t bytes[] = {1, 2, 2, 4, 4, 8};
    return bytes[d];
}

static void variant_str(const struct variant *v, char *buf, size_t size) {
    snprintf(buf, size, "%s,%s->%s%s", arch_names[v->arch], dtype_names[v->in], dtype_names[v->out],
             v->bfp16 ? ",bfp16" : "");
}

static void dims_of(const struct variant *v, uint32_t d[3]) {
    assert_true(xdna_mmul_dims(v->arch, v->in, v->bfp16, d));
}

/* ---- random data ---- */

/* A bf16 of either sign, exponent 2^-20 .. 2^20, any mantissa; 1 in 16 a zero or a subnormal. */
static vnpu_bf16_t random_bf16(struct test_rng *rng) {
    const uint64_t r = test_rng_next(rng);
    const uint32_t sign = (uint32_t) (r & 1) << 15, mant = (uint32_t) (r >> 1) & 0x7F;
    if ((r >> 8) % 16 == 0) {
        return (vnpu_bf16_t) (sign | ((r >> 12) & 1 ? mant : 0)); /* a subnormal or a zero */
    }
    const uint32_t field = 127 - 20 + (uint32_t) ((r >> 16) % 41);
    return (vnpu_bf16_t) (sign | field << 7 | mant);
}

static void fill_random(struct test_rng *rng, enum xdna_dtype d, void *x, size_t n) {
    for (size_t i = 0; i < n; i++) {
        const uint64_t r = test_rng_next(rng);
        switch (d) {
            case XDNA_DTYPE_I8: ((int8_t *) x)[i] = (int8_t) (uint8_t) r; break;
            case XDNA_DTYPE_I16: ((int16_t *) x)[i] = (int16_t) (uint16_t) r; break;
            case XDNA_DTYPE_BF16: ((vnpu_bf16_t *) x)[i] = random_bf16(rng); break;
            case XDNA_DTYPE_F32: /* an f32 of full precision, 2^-20 .. 2^20 */
                ((float *) x)[i] =
                    vnpu_f32_from_bits((uint32_t) (r & 0x807FFFFFu) | (uint32_t) (127 - 20 + (r >> 32) % 41) << 23);
                break;
            case XDNA_DTYPE_I32: ((int32_t *) x)[i] = (int32_t) (uint32_t) r; break;
            case XDNA_DTYPE_I64: ((int64_t *) x)[i] = (int64_t) r; break;
        }
    }
}

/* ---- the reference: plain loops over row-major m x k, k x n, m x n, the arithmetic of xdna-mmul.h ---- */

/* BFP16 contribution of A's row i and B's column j over k block kb: both blocks rounded with xdna_bfp16_round
 * (checked by hand below), their products summed exactly in double (8 multiples of one power of two, < 2^17 of
 * it), rounded once to f32. */
static float ref_bfp16_block(const vnpu_bf16_t *A, const vnpu_bf16_t *B, uint32_t k, uint32_t n, uint32_t i, uint32_t j,
                             uint32_t kb) {
    vnpu_bf16_t a[8], b[8];
    for (uint32_t q = 0; q < 8; q++) {
        a[q] = A[(size_t) i * k + kb * 8 + q];
        b[q] = B[(size_t) (kb * 8 + q) * n + j];
    }
    xdna_bfp16_round(a, 8);
    xdna_bfp16_round(b, 8);
    double d = 0;
    for (uint32_t q = 0; q < 8; q++) {
        d += (double) vnpu_bf16_to_f32(a[q]) * (double) vnpu_bf16_to_f32(b[q]);
    }
    return (float) d;
}

static void ref_matmul(const struct variant *v, uint32_t m, uint32_t k, uint32_t n, const void *A, const void *B,
                       void *C) {
    for (uint32_t i = 0; i < m; i++) {
        for (uint32_t j = 0; j < n; j++) {
            const size_t o = (size_t) i * n + j;
            if (v->in == XDNA_DTYPE_BF16 && v->bfp16) {
                float acc = ((float *) C)[o];
                for (uint32_t kb = 0; kb < k / 8; kb++) {
                    const float p = ref_bfp16_block(A, B, k, n, i, j, kb);
                    acc = acc + p;
                }
                ((float *) C)[o] = acc;
            } else if (v->in == XDNA_DTYPE_BF16) {
                float acc = ((float *) C)[o];
                for (uint32_t kk = 0; kk < k; kk++) {
                    const float p = vnpu_bf16_to_f32(((const vnpu_bf16_t *) A)[(size_t) i * k + kk]) *
                                    vnpu_bf16_to_f32(((const vnpu_bf16_t *) B)[(size_t) kk * n + j]);
                    acc = acc + p;
                }
                ((float *) C)[o] = acc;
            } else {
                int64_t sum = 0; /* exact: |sum| <= k 2^30 */
                for (uint32_t kk = 0; kk < k; kk++) {
                    const size_t ia = (size_t) i * k + kk, ib = (size_t) kk * n + j;
                    sum += v->in == XDNA_DTYPE_I8 ? (int64_t) ((const int8_t *) A)[ia] * ((const int8_t *) B)[ib]
                                                  : (int64_t) ((const int16_t *) A)[ia] * ((const int16_t *) B)[ib];
                }
                if (v->acc == XDNA_ACC32) { /* modulo 2^32 */
                    ((int32_t *) C)[o] = (int32_t) ((uint32_t) ((int32_t *) C)[o] + (uint32_t) sum);
                } else {
                    ((int64_t *) C)[o] = (int64_t) ((uint64_t) ((int64_t *) C)[o] + (uint64_t) sum);
                }
            }
        }
    }
}

/* rows x cols row-major <-> blocked in br x bc blocks (xdna-mmul.h's layout), elements of eb bytes: A and B in
 * row-major order of blocks, C (cblocks) in column-major order. */
static size_t blocked_index(uint32_t i, uint32_t j, uint32_t rows, uint32_t cols, uint32_t br, uint32_t bc,
                            bool cblocks) {
    const size_t block = cblocks ? (size_t) (j / bc) * (rows / br) + i / br : (size_t) (i / br) * (cols / bc) + j / bc;
    return block * br * bc + (size_t) (i % br) * bc + j % bc;
}

static void to_blocked(const void *src, void *dst, uint32_t rows, uint32_t cols, uint32_t br, uint32_t bc, size_t eb,
                       bool cblocks) {
    for (uint32_t i = 0; i < rows; i++) {
        for (uint32_t j = 0; j < cols; j++) {
            memcpy((char *) dst + blocked_index(i, j, rows, cols, br, bc, cblocks) * eb,
                   (const char *) src + ((size_t) i * cols + j) * eb, eb);
        }
    }
}

static void from_blocked(const void *src, void *dst, uint32_t rows, uint32_t cols, uint32_t br, uint32_t bc, size_t eb,
                         bool cblocks) {
    for (uint32_t i = 0; i < rows; i++) {
        for (uint32_t j = 0; j < cols; j++) {
            memcpy((char *) dst + ((size_t) i * cols + j) * eb,
                   (const char *) src + blocked_index(i, j, rows, cols, br, bc, cblocks) * eb, eb);
        }
    }
}

/* The first element where a and b differ, or -1. */
static long first_diff(const void *a, const void *b, size_t n, size_t eb) {
    for (size_t i = 0; i < n; i++) {
        if (memcmp((const char *) a + i * eb, (const char *) b + i * eb, eb) != 0) {
            return (long) i;
        }
    }
    return -1;
}

static void assert_same(const char *what, const void *got, const void *want, size_t n, enum xdna_dtype d) {
    const long i = first_diff(got, want, n, dtype_bytes(d));
    if (i < 0) {
        return;
    }
    switch (d) {
        case XDNA_DTYPE_F32:
            fail_msg("%s: element %ld: %a, expected %a", what, i, (double) ((const float *) got)[i],
                     (double) ((const float *) want)[i]);
            break;
        case XDNA_DTYPE_I32:
            fail_msg("%s: element %ld: %d, expected %d", what, i, ((const int32_t *) got)[i],
                     ((const int32_t *) want)[i]);
            break;
        default:
            fail_msg("%s: element %ld: %lld, expected %lld", what, i, (long long) ((const int64_t *) got)[i],
                     (long long) ((const int64_t *) want)[i]);
    }
}

/* ---- the shape table ---- */

static void test_dims_table(void **state) {
    (void) state;
    for (int arch = XDNA_ARCH_AIE2; arch <= XDNA_ARCH_AIE2P; arch++) {
        for (int in = XDNA_DTYPE_I8; in <= XDNA_DTYPE_I64; in++) {
            for (int bfp16 = 0; bfp16 <= 1; bfp16++) {
                const struct seed_shape *want = NULL;
                for (size_t i = 0; i < sizeof(seed_shapes) / sizeof(seed_shapes[0]); i++) {
                    const struct seed_shape *s = &seed_shapes[i];
                    want = s->arch == (enum xdna_arch) arch && s->in == (enum xdna_dtype) in && s->bfp16 == bfp16
                               ? s
                               : want;
                }
                uint32_t d[3] = {77, 77, 77};
                const bool found = xdna_mmul_dims((enum xdna_arch) arch, (enum xdna_dtype) in, bfp16, d);
                if (found != (want != NULL)) {
                    fail_msg("%s %s bfp16=%d: found %d, the seed says %d", arch_names[arch], dtype_names[in], bfp16,
                             found, want != NULL);
                }
                const uint32_t r = want ? want->r : 77, s = want ? want->s : 77, t = want ? want->t : 77;
                if (d[0] != r || d[1] != s || d[2] != t) {
                    fail_msg("%s %s bfp16=%d: %ux%ux%u, expected %ux%ux%u (77: untouched)", arch_names[arch],
                             dtype_names[in], bfp16, d[0], d[1], d[2], r, s, t);
                }
            }
        }
    }
}

/* ---- one mmul ---- */

/* xdna_mmul on random blocks against ref_matmul on the same r x s, s x t, r x t row-major blocks. */
static void test_mmul_random(void **state) {
    (void) state;
    for (size_t vi = 0; vi < N_VARIANTS; vi++) {
        const struct variant *v = &variants[vi];
        char name[64];
        variant_str(v, name, sizeof(name));
        struct test_rng rng;
        test_rng_seed(&rng, name);
        uint32_t d[3];
        dims_of(v, d);
        for (int trial = 0; trial < 300; trial++) {
            uint64_t a[64], b[64], acc[64], want[64]; /* 8 x 8 of up to 8 bytes */
            fill_random(&rng, v->in, a, d[0] * d[1]);
            fill_random(&rng, v->in, b, d[1] * d[2]);
            fill_random(&rng, v->out, acc, d[0] * d[2]);
            memcpy(want, acc, sizeof(acc));
            xdna_mmul(v->arch, v->in, v->bfp16, v->acc, a, b, acc);
            ref_matmul(v, d[0], d[1], d[2], a, b, want);
            assert_same(name, acc, want, d[0] * d[2], v->out);
        }
    }
}

/* int8 x int8 -> acc32 wraps modulo 2^32: (-128)^2 = 16384, 8 of them = 131072 added to INT32_MAX - 10 gives
 * 2147614709 - 2^32 = -2147352587. int16 -> acc64 keeps what acc32 would lose: 4 products (-32768)^2 = 2^30 on
 * -5 give 2^32 - 5 = 4294967291. */
static void test_mmul_wrap(void **state) {
    (void) state;
    int8_t a8[4 * 8], b8[8 * 8];
    int32_t acc32[4 * 8];
    memset(a8, 0x80, sizeof(a8));
    memset(b8, 0x80, sizeof(b8));
    for (int i = 0; i < 32; i++) {
        acc32[i] = INT32_MAX - 10;
    }
    xdna_mmul(XDNA_ARCH_AIE2, XDNA_DTYPE_I8, false, XDNA_ACC32, a8, b8, acc32);
    for (int i = 0; i < 32; i++) {
        assert_int_equal(acc32[i], -2147352587);
    }
    int16_t a16[4 * 4], b16[4 * 4];
    int64_t acc64[4 * 4];
    for (int i = 0; i < 16; i++) {
        a16[i] = INT16_MIN;
        b16[i] = INT16_MIN;
        acc64[i] = -5;
    }
    xdna_mmul(XDNA_ARCH_AIE2, XDNA_DTYPE_I16, false, XDNA_ACC64, a16, b16, acc64);
    for (int i = 0; i < 16; i++) {
        assert_true(acc64[i] == 4294967291LL);
    }
}

#define BF16_ONE  0x3F80 /* 1.0 */
#define BF16_P27  0x4D00 /* 2^27 */
#define BF16_M27  0xCD00 /* -2^27 */
#define BF16_INF  0x7F80
#define BF16_QNAN 0x7FC0

/* bf16 sums in k order, each addition rounded: row 0 of A is 2^27, 1, -2^27, 1 (then 0s), B all 1. In k order:
 * 2^27 + 1 = 2^27 (f32's ulp at 2^27 is 16), - 2^27 = 0, + 1 = 1. Any other order gives another value: pairwise
 * (2^27 + 1) + (-2^27 + 1) = 0, last to first 1 - 2^27 + 1 + 2^27 = 0, and the exact sum is 2. */
static void test_mmul_bf16_k_order(void **state) {
    (void) state;
    vnpu_bf16_t a[4 * 8] = {BF16_P27, BF16_ONE, BF16_M27, BF16_ONE}, b[8 * 4];
    for (int i = 0; i < 32; i++) {
        b[i] = BF16_ONE;
    }
    float acc[4 * 4] = {0};
    xdna_mmul(XDNA_ARCH_AIE2, XDNA_DTYPE_BF16, false, XDNA_ACCFLOAT, a, b, acc);
    for (int j = 0; j < 4; j++) {
        assert_true(acc[j] == 1.0f);
        assert_true(acc[4 + j] == 0.0f);
    }
}

/* ---- BFP16, worked by hand ---- */

static const struct bfp16_example {
    const char *what;
    float in[8], out[8];
} bfp16_examples[] = {
    /* e_max = 1 (3.0 = 1.5 x 2^1), unit 2^(1 - 6) = 1/32: 1.0 -> 32, 0.5 -> 16, 3.0 -> 96, -2.0 -> -64 (exact);
     * 3/64 x 32 = 1.5 -> 2 (tie to even), 5/64 x 32 = 2.5 -> 2 (tie to even), 1/64 x 32 = 0.5 -> 0 (tie to even),
     * -3/64 -> -1.5 -> -2; back: 2/32 = 0.0625. */
    {"shared exponent, ties to even",
     {1.0f, 0.5f, 3.0f, -2.0f, 0.046875f, 0.078125f, 0.015625f, -0.046875f},
     {1.0f, 0.5f, 3.0f, -2.0f, 0.0625f, 0.0625f, 0.0f, -0.0625f}},
    /* e_max = 6 (127.5 = 1.9921875 x 2^6), unit 2^0: 127.5 -> 128 (tie to even) -> 127 (saturated), -127.5 -> -127;
     * 100.5 -> 100, 101.5 -> 102 (ties to even), 64 and 1.0078125 -> 64 and 1, 0.5 -> 0, -0.5 -> 0 (+0). */
    {"saturation, ties, -0 to +0",
     {127.5f, -127.5f, 100.5f, 101.5f, 64.0f, 1.0078125f, 0.5f, -0.5f},
     {127.0f, -127.0f, 100.0f, 102.0f, 64.0f, 1.0f, 0.0f, 0.0f}},
    /* the largest bf16, 0x7F7F = 1.9921875 x 2^127: e_max = 127, unit 2^121: 255/128 x 2^6 = 127.5 -> 127 ->
     * 127 x 2^121 = 1.984375 x 2^127; 1.5 x 2^127 -> 96 (exact); 2^100 -> 2^-21 -> 0. */
    {"top exponent", {0x1.fep127f, 0x1.8p127f, 0x1p100f, 0, 0, 0, 0, 0}, {0x1.fcp127f, 0x1.8p127f, 0, 0, 0, 0, 0, 0}},
    /* subnormals count as exponent -126: e_max = -126, unit 2^-132: 2^-133 -> 0.5 -> 0 (tie to even), 2^-127 ->
     * 32 (exact), 3 x 2^-133 -> 1.5 -> 2 -> 2^-131, -0 -> +0. */
    {"subnormals", {0x1p-133f, 0x1p-127f, 0x3p-133f, -0.0f, 0, 0, 0, 0}, {0, 0x1p-127f, 0x1p-131f, 0, 0, 0, 0, 0}},
    /* a normal next to subnormals: e_max = 0, unit 2^-6: 2^-130 and 2^-133 -> 0, 0.75 -> 48, 0.0234375 (3/128) ->
     * 1.5 -> 2 -> 2/64 = 0.03125. */
    {"normal and subnormal",
     {1.0f, 0x1p-130f, 0x1p-133f, 0.75f, 0.0234375f, 0, 0, 0},
     {1.0f, 0, 0, 0.75f, 0.03125f, 0, 0, 0}},
    {"all zero", {0, -0.0f, 0, -0.0f, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0, 0, 0}},
};

static void test_bfp16_round_examples(void **state) {
    (void) state;
    for (size_t e = 0; e < sizeof(bfp16_examples) / sizeof(bfp16_examples[0]); e++) {
        const struct bfp16_example *ex = &bfp16_examples[e];
        vnpu_bf16_t x[8];
        for (int i = 0; i < 8; i++) {
            x[i] = vnpu_f32_to_bf16(ex->in[i]);
            assert_true(vnpu_f32_bits(vnpu_bf16_to_f32(x[i])) == vnpu_f32_bits(ex->in[i])); /* a bf16 exactly */
        }
        xdna_bfp16_round(x, 8);
        for (int i = 0; i < 8; i++) {
            if (x[i] != vnpu_f32_to_bf16(ex->out[i])) {
                fail_msg("%s: value %d (%a): 0x%04x (%a), expected %a", ex->what, i, (double) ex->in[i], x[i],
                         (double) vnpu_bf16_to_f32(x[i]), (double) ex->out[i]);
            }
        }
    }
    /* an inf or a NaN makes its whole block NaN, and only its block */
    const vnpu_bf16_t specials[] = {BF16_INF, 0xFF80 /* -inf */, BF16_QNAN, 0x7F81 /* signalling */};
    for (size_t s = 0; s < sizeof(specials) / sizeof(specials[0]); s++) {
        vnpu_bf16_t x[24];
        for (int i = 0; i < 24; i++) {
            x[i] = BF16_ONE;
        }
        x[8 + 5] = specials[s];
        xdna_bfp16_round(x, 24);
        for (int i = 0; i < 24; i++) {
            assert_int_equal(x[i], i >= 8 && i < 16 ? BF16_QNAN : BF16_ONE);
        }
    }
}

/* One BFP16 mmul (AIE2P, 8x8x8) by hand. B is all 1.0 (mantissas 64, unit 2^-6) but B[0][5] = NaN. Row 0 of A is
 * 3.0, 3/64, 0...: mantissas 96 and 2 (1.5 tied to even), unit 2^-5, so the block dot is 96 x 64 + 2 x 64 = 6272,
 * times 2^-11 = 3.0625 (the exact bf16 sum is 3.046875). Row 1 holds an inf: NaN in every column. Row 2 is 0s: its
 * accumulator 0.5 stays. Column 5 meets the NaN block of B: NaN in every row. */
static void test_bfp16_mmul_example(void **state) {
    (void) state;
    vnpu_bf16_t a[64] = {0}, b[64];
    for (int i = 0; i < 64; i++) {
        b[i] = BF16_ONE;
    }
    b[5] = BF16_QNAN;
    a[0] = vnpu_f32_to_bf16(3.0f);
    a[1] = vnpu_f32_to_bf16(0.046875f);
    a[8 + 0] = BF16_ONE;
    a[8 + 1] = BF16_INF;
    float acc[64] = {0};
    for (int j = 0; j < 8; j++) {
        acc[16 + j] = 0.5f;
    }
    xdna_mmul(XDNA_ARCH_AIE2P, XDNA_DTYPE_BF16, true, XDNA_ACCFLOAT, a, b, acc);
    for (int j = 0; j < 8; j++) {
        if (j == 5) {
            for (int i = 0; i < 8; i++) {
                assert_true(isnan(acc[i * 8 + j]));
            }
            continue;
        }
        assert_true(acc[j] == 3.0625f);
        assert_true(isnan(acc[8 + j]));
        assert_true(acc[16 + j] == 0.5f);
        assert_true(acc[24 + j] == 0.0f);
    }
}

/* ---- the matmul kernels ---- */

#define SENTINEL      0xA5
#define SENTINEL_SIZE 64

/* A kernel call on blocked a, b, c (c followed by SENTINEL_SIZE sentinel bytes, checked); returns the MACs it
 * added, and checks the cycles it added: its mmuls, (m/r) (k/s) (n/t) at one a cycle, at its occupancy (0.8, the
 * BFP16 build's 0.5: xdna-mmul.c). */
static uint64_t run_kernel(const struct xdna_mm_kernel *kern, const void *a, const void *b, void *c,
                           uint32_t rows_valid) {
    const size_t ib = dtype_bytes(kern->in), ob = dtype_bytes(kern->out);
    const struct xdna_mm_args args = {.kernel = kern, .rows_valid = rows_valid};
    uint64_t macs = 7, cycles = 5;
    struct xdna_call call = {.bufs = {(void *) a, (void *) b, c},
                             .buf_bytes = {(size_t) kern->m * kern->k * ib, (size_t) kern->k * kern->n * ib,
                                           (size_t) kern->m * kern->n * ob},
                             .n_bufs = 3,
                             .args = &args,
                             .macs = &macs,
                             .cycles = &cycles};
    kern->base.fn(&call);
    const uint64_t issues = (uint64_t) (kern->m / kern->base.mac_dims[0]) * (kern->k / kern->base.mac_dims[1]) *
                            (kern->n / kern->base.mac_dims[2]);
    assert_true(cycles - 5 == (uint64_t) ceil((double) issues / (kern->bfp16 ? 0.5 : 0.8)));
    const uint8_t *end = (const uint8_t *) c + call.buf_bytes[2];
    for (int i = 0; i < SENTINEL_SIZE; i++) {
        assert_int_equal(end[i], SENTINEL);
    }
    return macs - 7;
}

/* One kernel case: random row-major A, B, C; the kernel on their blocked forms (rows_valid rows) against
 * ref_matmul on all rows, compared on the valid rows; the rows of blocks past them are C as it was. */
static void kernel_case(const struct variant *v, uint32_t m, uint32_t k, uint32_t n, uint32_t rows_valid) {
    char vs[64], name[128];
    variant_str(v, vs, sizeof(vs));
    snprintf(name, sizeof(name), "MM(%s,m=%u,k=%u,n=%u,rows_valid=%u)", vs, m, k, n, rows_valid);
    struct test_rng rng;
    test_rng_seed(&rng, name);
    struct xdna_mm_kernel kern;
    assert_int_equal(xdna_mm_kernel_init(&kern, v->arch, v->in, v->out, v->bfp16, m, k, n), VNPU_STATUS_OK);
    const uint32_t r = kern.base.mac_dims[0], s = kern.base.mac_dims[1], t = kern.base.mac_dims[2];
    const size_t ib = dtype_bytes(v->in), ob = dtype_bytes(v->out);
    void *A = malloc((size_t) m * k * ib), *B = malloc((size_t) k * n * ib), *C = malloc((size_t) m * n * ob);
    void *Ab = malloc((size_t) m * k * ib), *Bb = malloc((size_t) k * n * ib);
    uint8_t *Cb = malloc((size_t) m * n * ob + SENTINEL_SIZE);
    void *want = malloc((size_t) m * n * ob), *got = malloc((size_t) m * n * ob);
    assert_true(A && B && C && Ab && Bb && Cb && want && got);
    fill_random(&rng, v->in, A, (size_t) m * k);
    fill_random(&rng, v->in, B, (size_t) k * n);
    fill_random(&rng, v->out, C, (size_t) m * n);
    to_blocked(A, Ab, m, k, r, s, ib, false);
    to_blocked(B, Bb, k, n, s, t, ib, false);
    to_blocked(C, Cb, m, n, r, t, ob, true);
    memset(Cb + (size_t) m * n * ob, SENTINEL, SENTINEL_SIZE);

    assert_true(run_kernel(&kern, Ab, Bb, Cb, rows_valid) == (uint64_t) m * k * n);
    from_blocked(Cb, got, m, n, r, t, ob, true);
    memcpy(want, C, (size_t) m * n * ob);
    ref_matmul(v, m, k, n, A, B, want);
    const uint32_t rows_block = (rows_valid + r - 1) / r * r; /* the blocks holding data */
    memcpy((char *) want + (size_t) rows_valid * n * ob, (char *) got + (size_t) rows_valid * n * ob,
           (size_t) (rows_block - rows_valid) * n * ob); /* their padding rows: computed or left, either */
    memcpy((char *) want + (size_t) rows_block * n * ob, (char *) C + (size_t) rows_block * n * ob,
           (size_t) (m - rows_block) * n * ob);
    assert_same(name, got, want, (size_t) m * n, v->out);
    free(A);
    free(B);
    free(C);
    free(Ab);
    free(Bb);
    free(Cb);
    free(want);
    free(got);
}

/* Sizes in units of the divisibility rules (2r, s, 2t): one of each, odd counts of k blocks, more than one pair. */
static const uint32_t kernel_sizes[][3] = {{1, 1, 1}, {2, 3, 1}, {1, 5, 3}, {3, 2, 2}, {2, 8, 2}};

static void test_kernel_random(void **state) {
    (void) state;
    for (size_t vi = 0; vi < N_VARIANTS; vi++) {
        uint32_t d[3];
        dims_of(&variants[vi], d);
        for (size_t si = 0; si < sizeof(kernel_sizes) / sizeof(kernel_sizes[0]); si++) {
            const uint32_t m = kernel_sizes[si][0] * 2 * d[0], k = kernel_sizes[si][1] * d[1],
                           n = kernel_sizes[si][2] * 2 * d[2];
            kernel_case(&variants[vi], m, k, n, m);
        }
    }
}

/* rows_valid: the valid rows are computed, the rows of blocks past them keep C as it was (the second block of a
 * pair too, or not); the MACs are the whole tile's. */
static void test_kernel_rows_valid(void **state) {
    (void) state;
    for (size_t vi = 0; vi < N_VARIANTS; vi++) {
        uint32_t d[3];
        dims_of(&variants[vi], d);
        const uint32_t r = d[0], m = 4 * r;
        const uint32_t rows[] = {0, 1, r - 1, r, r + 1, 2 * r + 1, 3 * r, 4 * r - 1};
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
            kernel_case(&variants[vi], m, 2 * d[1], 2 * d[2], rows[i]);
        }
    }
}

/* bf16 through the kernel, across k blocks (AIE2, s = 8): row 0 of A is 2^27, then seven 1s, then -2^27 and seven
 * 1s; B all 1. In k order each 1 after 2^27 rounds away (2^27 + 1 = 2^27), -2^27 gives 0, the last seven 1s give 7
 * (the exact sum is 14). */
static void test_kernel_bf16_k_order(void **state) {
    (void) state;
    struct xdna_mm_kernel kern;
    assert_int_equal(xdna_mm_kernel_init(&kern, XDNA_ARCH_AIE2, XDNA_DTYPE_BF16, XDNA_DTYPE_F32, false, 8, 16, 8),
                     VNPU_STATUS_OK);
    vnpu_bf16_t A[8 * 16] = {0}, B[16 * 8], Ab[8 * 16], Bb[16 * 8];
    for (int q = 0; q < 16; q++) {
        A[q] = q == 0 ? BF16_P27 : q == 8 ? BF16_M27 : BF16_ONE;
    }
    for (int i = 0; i < 16 * 8; i++) {
        B[i] = BF16_ONE;
    }
    to_blocked(A, Ab, 8, 16, 4, 8, 2, false);
    to_blocked(B, Bb, 16, 8, 8, 4, 2, false);
    float C[8 * 8 + SENTINEL_SIZE / 4], got[8 * 8];
    memset(C, 0, sizeof(float) * 64);
    memset(C + 64, SENTINEL, SENTINEL_SIZE);
    assert_true(run_kernel(&kern, Ab, Bb, C, 8) == 8 * 16 * 8);
    from_blocked(C, got, 8, 8, 4, 4, 4, true);
    for (int j = 0; j < 8; j++) {
        assert_true(got[j] == 7.0f);
        assert_true(got[8 + j] == 0.0f);
    }
}

/* int8 acc32 wraps over a long k: (-128)^2 x 140000 = 2293760000 > 2^31 - 1, so each output is 2293760000 - 2^32 =
 * -2001207296; int16 acc64 over k = 64: 64 x 2^30 - 5 = 68719476731, which acc32 would not hold. */
static void test_kernel_wrap(void **state) {
    (void) state;
    struct xdna_mm_kernel kern;
    const uint32_t k8 = 140000;
    assert_int_equal(xdna_mm_kernel_init(&kern, XDNA_ARCH_AIE2, XDNA_DTYPE_I8, XDNA_DTYPE_I32, false, 8, k8, 16),
                     VNPU_STATUS_OK);
    int8_t *a8 = malloc((size_t) 8 * k8), *b8 = malloc((size_t) k8 * 16);
    int32_t c32[8 * 16 + SENTINEL_SIZE / 4];
    assert_true(a8 && b8);
    memset(a8, 0x80, (size_t) 8 * k8); /* blocked or not, all -128 */
    memset(b8, 0x80, (size_t) k8 * 16);
    memset(c32, 0, sizeof(int32_t) * 128);
    memset(c32 + 128, SENTINEL, SENTINEL_SIZE);
    assert_true(run_kernel(&kern, a8, b8, c32, 8) == (uint64_t) 8 * k8 * 16);
    for (int i = 0; i < 128; i++) {
        assert_int_equal(c32[i], -2001207296);
    }
    free(a8);
    free(b8);

    assert_int_equal(xdna_mm_kernel_init(&kern, XDNA_ARCH_AIE2, XDNA_DTYPE_I16, XDNA_DTYPE_I64, false, 8, 64, 8),
                     VNPU_STATUS_OK);
    int16_t a16[8 * 64], b16[64 * 8];
    int64_t c64[64 + SENTINEL_SIZE / 8];
    for (int i = 0; i < 8 * 64; i++) {
        a16[i] = INT16_MIN;
        b16[i] = INT16_MIN;
    }
    for (int i = 0; i < 64; i++) {
        c64[i] = -5;
    }
    memset(c64 + 64, SENTINEL, SENTINEL_SIZE);
    run_kernel(&kern, a16, b16, c64, 8);
    for (int i = 0; i < 64; i++) {
        assert_true(c64[i] == 68719476731LL);
    }
}

/* Every (arch, in, out, bfp16): made exactly for the variants, its fields filled, its name stating its shape. */
static void test_kernel_table(void **state) {
    (void) state;
    for (int arch = XDNA_ARCH_AIE2; arch <= XDNA_ARCH_AIE2P; arch++) {
        for (int in = XDNA_DTYPE_I8; in <= XDNA_DTYPE_I64; in++) {
            for (int out = XDNA_DTYPE_I8; out <= XDNA_DTYPE_I64; out++) {
                for (int bfp16 = 0; bfp16 <= 1; bfp16++) {
                    const struct variant *v = NULL;
                    for (size_t i = 0; i < N_VARIANTS; i++) {
                        const struct variant *w = &variants[i];
                        v = w->arch == (enum xdna_arch) arch && w->in == (enum xdna_dtype) in &&
                                    w->out == (enum xdna_dtype) out && w->bfp16 == bfp16
                                ? w
                                : v;
                    }
                    uint32_t d[3] = {0};
                    if (v) {
                        dims_of(v, d);
                    }
                    const uint32_t m = 2 * (d[0] ? d[0] : 8), k = d[1] ? d[1] : 8, n = 2 * (d[2] ? d[2] : 8);
                    struct test_log log = {0};
                    struct xdna_mm_kernel kern;
                    vnpu_log_set(test_log_collect, &log, VNPU_LOG_WARN);
                    const enum vnpu_status st = xdna_mm_kernel_init(&kern, (enum xdna_arch) arch, (enum xdna_dtype) in,
                                                                    (enum xdna_dtype) out, bfp16, m, k, n);
                    vnpu_log_set(NULL, NULL, VNPU_LOG_WARN);
                    if (!v) {
                        assert_int_equal(st, VNPU_STATUS_BAD_ARG);
                        assert_int_equal(log.n_errors, 1);
                        continue;
                    }
                    assert_int_equal(st, VNPU_STATUS_OK);
                    assert_int_equal(log.n_errors, 0);
                    char want_name[64];
                    snprintf(want_name, sizeof(want_name), "mm_%s_%s_%ux%ux%u", bfp16 ? "bfp16" : dtype_names[in],
                             dtype_names[out], d[0], d[1], d[2]);
                    assert_string_equal(kern.base.name, want_name);
                    assert_non_null(kern.base.fn);
                    assert_int_equal(kern.base.stack_bytes, 0);
                    assert_memory_equal(kern.base.mac_dims, d, sizeof(d));
                    assert_int_equal(kern.arch, arch);
                    assert_int_equal(kern.in, in);
                    assert_int_equal(kern.out, out);
                    assert_int_equal(kern.acc, v->acc);
                    assert_int_equal(kern.bfp16, bfp16);
                    assert_true(kern.m == m && kern.k == k && kern.n == n);
                }
            }
        }
    }
}

/* The refusals, word for word; *k_out untouched. */
static const struct refusal {
    enum xdna_arch arch;
    enum xdna_dtype in, out;
    bool bfp16;
    uint32_t m, k, n;
    const char *message;
} refusals[] = {
    {XDNA_ARCH_AIE2, XDNA_DTYPE_BF16, XDNA_DTYPE_F32, false, 12, 8, 8,
     "matmul kernel bf16 4x8x4 (AIE2): m = 12 is not a multiple of 2 x r = 8"},
    {XDNA_ARCH_AIE2, XDNA_DTYPE_BF16, XDNA_DTYPE_F32, false, 8, 12, 8,
     "matmul kernel bf16 4x8x4 (AIE2): k = 12 is not a multiple of s = 8"},
    {XDNA_ARCH_AIE2, XDNA_DTYPE_BF16, XDNA_DTYPE_F32, false, 8, 8, 20,
     "matmul kernel bf16 4x8x4 (AIE2): n = 20 is not a multiple of 2 x t = 8"},
    {XDNA_ARCH_AIE2P, XDNA_DTYPE_BF16, XDNA_DTYPE_F32, true, 8, 8, 16,
     "matmul kernel bf16 8x8x8 (AIE2P, BFP16): m = 8 is not a multiple of 2 x r = 16"},
    {XDNA_ARCH_AIE2P, XDNA_DTYPE_I16, XDNA_DTYPE_I64, false, 8, 6, 16,
     "matmul kernel i16 4x4x8 (AIE2P): k = 6 is not a multiple of s = 4"},
    {XDNA_ARCH_AIE2, XDNA_DTYPE_I8, XDNA_DTYPE_I32, false, 0, 8, 16,
     "matmul kernel i8 4x8x8 (AIE2): m = 0, k = 8, n = 16: every size must be > 0"},
    {XDNA_ARCH_AIE2, XDNA_DTYPE_I8, XDNA_DTYPE_I32, false, 8, 0, 16,
     "matmul kernel i8 4x8x8 (AIE2): m = 8, k = 0, n = 16: every size must be > 0"},
    {XDNA_ARCH_AIE2, XDNA_DTYPE_I8, XDNA_DTYPE_I32, false, 8, 8, 0,
     "matmul kernel i8 4x8x8 (AIE2): m = 8, k = 8, n = 0: every size must be > 0"},
    {XDNA_ARCH_AIE2, XDNA_DTYPE_BF16, XDNA_DTYPE_I32, false, 8, 8, 8,
     "matmul kernel bf16 -> i32 (AIE2): no mmul kernel for this pair (there are i8 -> i32, i16 -> i32, i16 -> i64, "
     "bf16 -> f32)"},
    {XDNA_ARCH_AIE2P, XDNA_DTYPE_I8, XDNA_DTYPE_I16, false, 16, 8, 16,
     "matmul kernel i8 -> i16 (AIE2P): no mmul kernel for this pair (there are i8 -> i32, i16 -> i32, i16 -> i64, "
     "bf16 -> f32)"},
    {XDNA_ARCH_AIE2P, XDNA_DTYPE_F32, XDNA_DTYPE_F32, false, 16, 8, 16,
     "matmul kernel f32 -> f32 (AIE2P): no mmul kernel for this pair (there are i8 -> i32, i16 -> i32, i16 -> i64, "
     "bf16 -> f32)"},
    {XDNA_ARCH_AIE2, XDNA_DTYPE_BF16, XDNA_DTYPE_F32, true, 16, 8, 16,
     "matmul kernel bf16 (AIE2): the BFP16 emulation (AIE_API_EMULATE_BFLOAT16_MMUL_WITH_BFP16) exists on AIE2P "
     "only"},
    {XDNA_ARCH_AIE2P, XDNA_DTYPE_I8, XDNA_DTYPE_I32, true, 16, 8, 16,
     "matmul kernel i8 (AIE2P): the BFP16 emulation is of bf16 input only"},
    {(enum xdna_arch) 7, XDNA_DTYPE_BF16, XDNA_DTYPE_F32, false, 16, 8, 16, "matmul kernel bf16: unknown arch 7"},
};

static void test_kernel_refusals(void **state) {
    (void) state;
    for (size_t i = 0; i < sizeof(refusals) / sizeof(refusals[0]); i++) {
        const struct refusal *rf = &refusals[i];
        struct xdna_mm_kernel kern, before;
        memset(&kern, 0xCD, sizeof(kern));
        before = kern;
        struct test_log log = {0};
        vnpu_log_set(test_log_collect, &log, VNPU_LOG_WARN);
        const enum vnpu_status st =
            xdna_mm_kernel_init(&kern, rf->arch, rf->in, rf->out, rf->bfp16, rf->m, rf->k, rf->n);
        vnpu_log_set(NULL, NULL, VNPU_LOG_WARN);
        assert_int_equal(st, VNPU_STATUS_BAD_ARG);
        assert_int_equal(log.n_errors, 1);
        char want[512];
        snprintf(want, sizeof(want), "%s\n", rf->message);
        assert_string_equal(log.text, want);
        assert_memory_equal(&kern, &before, sizeof(kern));
    }
}

static void test_mm_zero(void **state) {
    (void) state;
    uint8_t buf[100 + SENTINEL_SIZE];
    memset(buf, 0x5A, 100);
    memset(buf + 100, SENTINEL, SENTINEL_SIZE);
    uint64_t cycles = 3;
    struct xdna_call call = {.bufs = {buf}, .buf_bytes = {100}, .n_bufs = 1, .cycles = &cycles};
    xdna_mm_zero.fn(&call);
    for (int i = 0; i < 100 + SENTINEL_SIZE; i++) {
        assert_int_equal(buf[i], i < 100 ? 0 : SENTINEL);
    }
    assert_true(cycles == 3 + 4); /* 100 bytes at one 32-byte store a cycle */
    assert_string_equal(xdna_mm_zero.name, "mm_zero");
    assert_true(xdna_mm_zero.mac_dims[0] == 1 && xdna_mm_zero.mac_dims[1] == 1 && xdna_mm_zero.mac_dims[2] == 1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dims_table),
        cmocka_unit_test(test_mmul_random),
        cmocka_unit_test(test_mmul_wrap),
        cmocka_unit_test(test_mmul_bf16_k_order),
        cmocka_unit_test(test_bfp16_round_examples),
        cmocka_unit_test(test_bfp16_mmul_example),
        cmocka_unit_test(test_kernel_random),
        cmocka_unit_test(test_kernel_rows_valid),
        cmocka_unit_test(test_kernel_bf16_k_order),
        cmocka_unit_test(test_kernel_wrap),
        cmocka_unit_test(test_kernel_table),
        cmocka_unit_test(test_kernel_refusals),
        cmocka_unit_test(test_mm_zero),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
