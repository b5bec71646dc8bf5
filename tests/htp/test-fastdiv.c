/*
 * hex-fastdiv.h: n / d by multiply and shifts, exact for every 32-bit dividend and divisor. Checked
 * exhaustively on sampled ranges: every dividend of the bottom, middle and top 2^18 of the range and of
 * 2^k +- 256 for every k, for the divisors where errors would show first; and for every divisor up to 2^16,
 * every power of two and its neighbours, and random divisors, on sampled dividends: each power of two and
 * its neighbours, the largest multiples of d and their neighbours, the top and bottom of the range, and
 * seeded random values.
 */
#include "test-common.h"

#include "hex-fastdiv.h"

#include <stdio.h>

/* n / d and n % d through fastdiv, compared with the hardware divide; counts mismatches. */
static uint64_t check_one(uint32_t n, uint32_t d, const struct fastdiv_values *v) {
    const uint32_t q = fastdiv(n, v), r = fastmodulo(n, d, v);
    if (q != n / d || r != n % d) {
        print_error("fastdiv(%u, %u) = %u rem %u, expected %u rem %u\n", n, d, q, r, n / d, n % d);
        return 1;
    }
    return 0;
}

/* The dividends at and around each power of two, the top of the range, and around the multiples of d
 * nearest 2^32 and 2^31. */
static uint64_t check_sampled(uint32_t d, struct test_rng *rng) {
    const struct fastdiv_values v = fastdiv_init(d);
    uint64_t bad = 0;
    for (int k = 0; k < 32; k++) {
        for (int64_t delta = -2; delta <= 2; delta++) {
            const int64_t n = ((int64_t) 1 << k) + delta;
            if (n >= 0 && n <= UINT32_MAX) {
                bad += check_one((uint32_t) n, d, &v);
            }
        }
    }
    for (uint32_t i = 0; i < 64; i++) {
        bad += check_one(i, d, &v) + check_one(UINT32_MAX - i, d, &v);
    }
    const uint64_t tops[2] = {(uint64_t) UINT32_MAX / d * d, (uint64_t) 0x80000000u / d * d};
    for (int t = 0; t < 2; t++) {
        for (int64_t delta = -2; delta <= 2; delta++) {
            const int64_t n = (int64_t) tops[t] + delta;
            if (n >= 0 && n <= UINT32_MAX) {
                bad += check_one((uint32_t) n, d, &v);
            }
        }
    }
    for (int i = 0; i < 64; i++) {
        bad += check_one((uint32_t) test_rng_next(rng), d, &v);
    }
    return bad;
}

/* Every dividend of n0 .. n0 + count - 1 (wrapping at 2^32 is not used) for divisor d. */
static uint64_t check_range(uint32_t d, uint64_t n0, uint64_t count) {
    const struct fastdiv_values v = fastdiv_init(d);
    uint64_t bad = 0;
    for (uint64_t n = n0; n < n0 + count && n <= UINT32_MAX; n++) {
        bad += check_one((uint32_t) n, d, &v);
    }
    return bad;
}

/* Exhaustive on sampled ranges: for divisors where rounding would show first (small odd ones, powers of two
 * and their neighbours, the largest ones), every dividend of the bottom, middle and top 2^18 of the range and
 * of 2^k +- 256 for every k. */
static void test_fastdiv_ranges(void **state) {
    (void) state;
    static const uint32_t divisors[] = {
        1,     2,     3,     5,        7,        10,          641,         1000,        4095,        4096,       4097,
        65535, 65536, 65537, 16777215, 16777217, 0x7FFFFFFFu, 0x80000000u, 0x80000001u, 0xFFFFFFFEu, 0xFFFFFFFFu};
    const uint64_t span = 1u << 18;
    uint64_t bad = 0;
    for (size_t i = 0; i < sizeof(divisors) / sizeof(divisors[0]); i++) {
        const uint32_t d = divisors[i];
        bad += check_range(d, 0, span) + check_range(d, 0x80000000ull - span, 2 * span) +
               check_range(d, 0x100000000ull - span, span);
        for (int k = 1; k < 32; k++) {
            bad += check_range(d, (1ull << k) > 256 ? (1ull << k) - 256 : 0, 513);
        }
    }
    assert_int_equal(bad, 0);
}

/* Every divisor up to 2^16 and every power of two and its neighbours up to 2^32 - 1, on sampled dividends. */
static void test_fastdiv_divisors(void **state) {
    (void) state;
    struct test_rng rng;
    test_rng_seed(&rng, "fastdiv");
    uint64_t bad = 0;
    for (uint32_t d = 1; d <= 65536; d++) {
        bad += check_sampled(d, &rng);
    }
    for (int k = 16; k < 32; k++) {
        for (int64_t delta = -3; delta <= 3; delta++) {
            bad += check_sampled((uint32_t) (((int64_t) 1 << k) + delta), &rng);
        }
    }
    bad += check_sampled(UINT32_MAX, &rng) + check_sampled(UINT32_MAX - 1, &rng);
    for (int i = 0; i < 4000; i++) {
        const uint32_t d = (uint32_t) test_rng_next(&rng);
        bad += check_sampled(d ? d : 1, &rng);
    }
    assert_int_equal(bad, 0);
}

/* The shape of the values: the ones kernels are handed for shapes of 1 (a broadcast dimension). */
static void test_fastdiv_one(void **state) {
    (void) state;
    const struct fastdiv_values v = fastdiv_init(1);
    assert_int_equal(v.m, 1);
    assert_int_equal(v.s1, 0);
    assert_int_equal(v.s2, 0);
    assert_int_equal(fastdiv(UINT32_MAX, &v), UINT32_MAX);
    assert_int_equal(fastmodulo(12345, 1, &v), 0);
}

/* fastdiv_is: true for the values of the divisor, false for those of another divisor, for a changed field, and for a
 * divisor of 0 (whose "values" would divide by 1). */
static void test_fastdiv_is(void **state) {
    (void) state;
    static const uint32_t divisors[] = {1, 2, 3, 7, 32, 33, 1000, 65537, 0x80000000u, UINT32_MAX};
    for (size_t i = 0; i < sizeof(divisors) / sizeof(divisors[0]); i++) {
        const uint32_t d = divisors[i];
        const struct fastdiv_values v = fastdiv_init(d);
        assert_true(fastdiv_is(&v, d));
        assert_false(fastdiv_is(&v, d == 1 ? 2 : d - 1));
        struct fastdiv_values w = v;
        w.m ^= 1;
        assert_false(fastdiv_is(&w, d));
        w = v;
        w.s2 ^= 1;
        assert_false(fastdiv_is(&w, d));
    }
    const struct fastdiv_values one = fastdiv_init(1);
    assert_false(fastdiv_is(&one, 0));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fastdiv_one),
        cmocka_unit_test(test_fastdiv_divisors),
        cmocka_unit_test(test_fastdiv_ranges),
        cmocka_unit_test(test_fastdiv_is),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
