/*
 * fp16 and bf16 conversions (src/base/fp16.h) against a slow reference written independently of them:
 * values are built and rounded in double arithmetic (frexp, ldexp, nearbyint in the default
 * round-to-nearest-even mode), then encoded field by field.
 *
 * Expected NaN handling is GGML's, which the oracle confirms: f32 -> fp16 gives sign | 0x7e00; fp16 ->
 * f32 keeps the payload and sets the quiet bit; f32 -> bf16 keeps the top payload bits and sets 0x40.
 */
#include "fp16.h"
#include "test-common.h"

#include <fenv.h>
#include <math.h>
#include <stdio.h>

/* An IEEE binary format with p significand bits (hidden bit included), minimum normal exponent emin,
 * maximum exponent emax and ebits exponent bits. */
struct fmt {
    int p, emin, emax, ebits;
};
static const struct fmt FMT_F16 = {11, -14, 15, 5};
static const struct fmt FMT_BF16 = {8, -126, 127, 8};

/* The value of a finite encoding. */
static double ref_decode(struct fmt f, uint32_t bits) {
    const uint32_t mbits = (uint32_t) f.p - 1;
    const uint32_t mant = bits & ((1u << mbits) - 1);
    const uint32_t exp = (bits >> mbits) & ((1u << f.ebits) - 1);
    const int sign = (bits >> (mbits + (uint32_t) f.ebits)) & 1;
    const double v = exp == 0 ? ldexp((double) mant, f.emin - (int) mbits)
                              : ldexp((double) (mant | 1u << mbits), (int) exp - 1 + f.emin - (int) mbits);
    return sign ? -v : v;
}

/* The encoding of a with round to nearest, ties to even; inf when it rounds beyond the largest finite. */
static uint32_t ref_encode(struct fmt f, double a) {
    const uint32_t mbits = (uint32_t) f.p - 1;
    const uint32_t sign = signbit(a) ? 1u << (mbits + (uint32_t) f.ebits) : 0;
    const uint32_t inf = ((1u << f.ebits) - 1) << mbits;
    a = fabs(a);
    if (a == 0.0) {
        return sign;
    }
    if (isinf(a)) {
        return sign | inf;
    }
    int e;
    frexp(a, &e); /* a = m * 2^e, m in [0.5, 1): floor(log2 a) = e - 1 */
    const int ue = e - 1 < f.emin ? f.emin : e - 1;
    const double quantum = ldexp(1.0, ue - (int) mbits);
    const double r = nearbyint(a / quantum) * quantum; /* a / quantum is exact: a has 24 bits */
    if (r >= ldexp(1.0, f.emax + 1)) {
        return sign | inf;
    }
    if (r < ldexp(1.0, f.emin)) {
        return sign | (uint32_t) (r / ldexp(1.0, f.emin - (int) mbits));
    }
    frexp(r, &e);
    const uint32_t exp = (uint32_t) (e - 1 - f.emin + 1);
    const uint32_t mant = (uint32_t) ((ldexp(r, -(e - 1)) - 1.0) * ldexp(1.0, (int) mbits));
    return sign | exp << mbits | mant;
}

static int f32_is_nan(uint32_t u) {
    return (u & 0x7fffffffu) > 0x7f800000u;
}

static void test_fp16_to_f32_all(void **state) {
    (void) state;
    for (uint32_t h = 0; h < 65536; h++) {
        const float f = vnpu_fp16_to_f32((vnpu_fp16_t) h);
        const uint32_t u = vnpu_f32_bits(f);
        const uint32_t sign = (h & 0x8000u) << 16;
        if ((h & 0x7c00u) == 0x7c00u && (h & 0x3ffu) != 0) { /* NaN: payload kept, made quiet */
            assert_int_equal(u, sign | 0x7fc00000u | (h & 0x3ffu) << 13);
        } else if ((h & 0x7fffu) == 0x7c00u) {
            assert_int_equal(u, sign | 0x7f800000u);
        } else {
            assert_true((double) f == ref_decode(FMT_F16, h));
            assert_int_equal(u & 0x80000000u, sign); /* -0 stays -0 */
        }
    }
}

/* Every fp16 survives fp16 -> f32 -> fp16; a NaN comes back as GGML's canonical NaN of the same sign. */
static void test_fp16_round_trip_all(void **state) {
    (void) state;
    for (uint32_t h = 0; h < 65536; h++) {
        const vnpu_fp16_t back = vnpu_f32_to_fp16(vnpu_fp16_to_f32((vnpu_fp16_t) h));
        if ((h & 0x7fffu) > 0x7c00u) {
            assert_int_equal(back, (h & 0x8000u) | 0x7e00u);
        } else {
            assert_int_equal(back, h);
        }
    }
}

/* Midpoints between neighbouring halves round to the even one; one f32 ulp either side to the nearer. */
static void test_f32_to_fp16_ties(void **state) {
    (void) state;
    for (uint32_t h = 0; h < 0x7c00u; h++) {
        const double lo = ref_decode(FMT_F16, h);
        /* above 65504 the next value would be 2^16: the midpoint 65520 ties to the even neighbour, inf */
        const double hi = h + 1 == 0x7c00u ? 65536.0 : ref_decode(FMT_F16, h + 1);
        const float mid = (float) ((lo + hi) / 2); /* exact: fp16 values have 11 significant bits */
        const vnpu_fp16_t even = (vnpu_fp16_t) ((h & 1) ? h + 1 : h);
        for (uint32_t sign = 0; sign <= 0x8000u; sign += 0x8000u) {
            const float m = sign ? -mid : mid;
            assert_int_equal(vnpu_f32_to_fp16(m), sign | even);
            assert_int_equal(vnpu_f32_to_fp16(nextafterf(m, 0.0f)), sign | h);
            assert_int_equal(vnpu_f32_to_fp16(nextafterf(m, sign ? -INFINITY : INFINITY)), sign | (h + 1));
        }
    }
}

static void test_f32_to_fp16_special(void **state) {
    (void) state;
    assert_int_equal(vnpu_f32_to_fp16(0.0f), 0x0000);
    assert_int_equal(vnpu_f32_to_fp16(-0.0f), 0x8000);
    /* subnormals: 2^-24 is the smallest; half of it ties to 0, a bit more rounds up to it */
    assert_int_equal(vnpu_f32_to_fp16(0x1p-24f), 0x0001);
    assert_int_equal(vnpu_f32_to_fp16(0x1p-25f), 0x0000);
    assert_int_equal(vnpu_f32_to_fp16(nextafterf(0x1p-25f, 1.0f)), 0x0001);
    assert_int_equal(vnpu_f32_to_fp16(-0x1.8p-24f), 0x8002);  /* 1.5 quanta: tie to even 2 */
    assert_int_equal(vnpu_f32_to_fp16(0x1.ff8p-15f), 0x03ff); /* the largest subnormal */
    assert_int_equal(vnpu_f32_to_fp16(0x1.ffcp-15f), 0x0400); /* tie with the smallest normal: even */
    assert_int_equal(vnpu_f32_to_fp16(1e-30f), 0x0000);
    /* overflow: 65504 is the largest; 65520 (the midpoint to 2^16) and beyond go to infinity */
    assert_int_equal(vnpu_f32_to_fp16(65504.0f), 0x7bff);
    assert_int_equal(vnpu_f32_to_fp16(nextafterf(65520.0f, 0.0f)), 0x7bff);
    assert_int_equal(vnpu_f32_to_fp16(65520.0f), 0x7c00);
    assert_int_equal(vnpu_f32_to_fp16(-65520.0f), 0xfc00);
    assert_int_equal(vnpu_f32_to_fp16(1e10f), 0x7c00);
    assert_int_equal(vnpu_f32_to_fp16(INFINITY), 0x7c00);
    assert_int_equal(vnpu_f32_to_fp16(-INFINITY), 0xfc00);
    /* NaN: quiet or signalling, any payload -> sign | 0x7e00 */
    assert_int_equal(vnpu_f32_to_fp16(vnpu_f32_from_bits(0x7fc00000u)), 0x7e00);
    assert_int_equal(vnpu_f32_to_fp16(vnpu_f32_from_bits(0x7f800001u)), 0x7e00);
    assert_int_equal(vnpu_f32_to_fp16(vnpu_f32_from_bits(0xffc12345u)), 0xfe00);
}

/* Random f32 bit patterns of every class against the reference. */
static void test_f32_to_fp16_random(void **state) {
    (void) state;
    assert_int_equal(fegetround(), FE_TONEAREST); /* the reference relies on nearbyint's default mode */
    struct test_rng rng;
    test_rng_seed(&rng, "f32_to_fp16_random");
    for (int i = 0; i < (1 << 20); i++) {
        const uint32_t u = (uint32_t) (test_rng_next(&rng) >> 32);
        const float f = vnpu_f32_from_bits(u);
        const vnpu_fp16_t want = f32_is_nan(u) ? (vnpu_fp16_t) ((u >> 16 & 0x8000u) | 0x7e00u)
                                               : (vnpu_fp16_t) ref_encode(FMT_F16, (double) f);
        if (vnpu_f32_to_fp16(f) != want) {
            fail_msg("f32 %08x: fp16 %04x, expected %04x", u, vnpu_f32_to_fp16(f), want);
        }
    }
}

static void test_bf16_all(void **state) {
    (void) state;
    for (uint32_t h = 0; h < 65536; h++) {
        const float f = vnpu_bf16_to_f32((vnpu_bf16_t) h);
        assert_int_equal(vnpu_f32_bits(f), h << 16); /* widening is exact, NaN payloads included */
        if ((h & 0x7fffu) <= 0x7f80u) {
            assert_int_equal(vnpu_f32_to_bf16(f), h);
            if ((h & 0x7fffu) < 0x7f80u) {
                assert_true((double) f == ref_decode(FMT_BF16, h));
            }
        } else {
            assert_int_equal(vnpu_f32_to_bf16(f), h | 0x40u); /* a NaN stays a NaN, made quiet */
        }
    }
}

static void test_f32_to_bf16_ties_and_special(void **state) {
    (void) state;
    for (uint32_t h = 0; h < 0x7f80u; h++) {
        const uint32_t mid = (h << 16) | 0x8000u; /* halfway to the next bf16 */
        const uint32_t even = (h & 1) ? h + 1 : h;
        assert_int_equal(vnpu_f32_to_bf16(vnpu_f32_from_bits(mid)), even);
        assert_int_equal(vnpu_f32_to_bf16(vnpu_f32_from_bits(mid | 0x80000000u)), 0x8000u | even);
        assert_int_equal(vnpu_f32_to_bf16(vnpu_f32_from_bits(mid - 1)), h);
        assert_int_equal(vnpu_f32_to_bf16(vnpu_f32_from_bits(mid + 1)), h + 1);
    }
    assert_int_equal(vnpu_f32_to_bf16(-0.0f), 0x8000);
    assert_int_equal(vnpu_f32_to_bf16(vnpu_f32_from_bits(0x00000001u)), 0x0000); /* smallest f32 subnormal */
    assert_int_equal(vnpu_f32_to_bf16(vnpu_f32_from_bits(0x00008001u)), 0x0001);
    assert_int_equal(vnpu_f32_to_bf16(vnpu_f32_from_bits(0x7f7fffffu)), 0x7f80); /* FLT_MAX rounds to inf */
    assert_int_equal(vnpu_f32_to_bf16(vnpu_f32_from_bits(0x7f800001u)), 0x7fc0);
    assert_int_equal(vnpu_f32_to_bf16(vnpu_f32_from_bits(0xffa00000u)), 0xffe0);

    struct test_rng rng;
    test_rng_seed(&rng, "f32_to_bf16_random");
    for (int i = 0; i < (1 << 20); i++) {
        const uint32_t u = (uint32_t) (test_rng_next(&rng) >> 32);
        const uint32_t want = f32_is_nan(u) ? (u >> 16) | 0x40u : ref_encode(FMT_BF16, (double) vnpu_f32_from_bits(u));
        if (vnpu_f32_to_bf16(vnpu_f32_from_bits(u)) != want) {
            fail_msg("f32 %08x: bf16 %04x, expected %04x", u, vnpu_f32_to_bf16(vnpu_f32_from_bits(u)), want);
        }
    }
}

/* The row functions convert exactly n elements and nothing past them. */
static void test_rows(void **state) {
    (void) state;
    enum { N = 37 };
    float x[N + 1], y[N + 1];
    vnpu_fp16_t h[N + 1];
    vnpu_bf16_t b[N + 1];
    for (int i = 0; i < N; i++) {
        x[i] = (float) (i - 18) * 0.37f;
    }
    h[N] = 0xa5a5;
    b[N] = 0xa5a5;
    y[N] = 12345.0f;
    vnpu_f32_to_fp16_row(x, h, N);
    vnpu_fp16_to_f32_row(h, y, N);
    assert_int_equal(h[N], 0xa5a5);
    assert_true(y[N] == 12345.0f);
    for (int i = 0; i < N; i++) {
        assert_int_equal(h[i], vnpu_f32_to_fp16(x[i]));
        assert_true(y[i] == vnpu_fp16_to_f32(h[i]));
    }
    vnpu_f32_to_bf16_row(x, b, N);
    vnpu_bf16_to_f32_row(b, y, N);
    assert_int_equal(b[N], 0xa5a5);
    assert_true(y[N] == 12345.0f);
    for (int i = 0; i < N; i++) {
        assert_int_equal(b[i], vnpu_f32_to_bf16(x[i]));
        assert_true(y[i] == vnpu_bf16_to_f32(b[i]));
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fp16_to_f32_all),
        cmocka_unit_test(test_fp16_round_trip_all),
        cmocka_unit_test(test_f32_to_fp16_ties),
        cmocka_unit_test(test_f32_to_fp16_special),
        cmocka_unit_test(test_f32_to_fp16_random),
        cmocka_unit_test(test_bf16_all),
        cmocka_unit_test(test_f32_to_bf16_ties_and_special),
        cmocka_unit_test(test_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
