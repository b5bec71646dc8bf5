/*
 * hex-fastdiv.h: n / d by multiply and shifts, exact for every 32-bit dividend and divisor. Checked
 * exhaustively over every dividend for two divisors, and for every divisor up to 2^16, every power of two
 * and its neighbours, and random divisors, on sampled dividends: each
 * power of two and its neighbours, the largest multiples of d and their neighbours, the top and bottom of
 * the range, and seeded random values.
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

/* Every 32-bit dividend for a small odd divisor (where upstream's 32-bit add overflows past 2^31) and for one
 * just past 2^31 (l = 32, the largest shift); the quotient is counted along rather than divided out. */
static void test_fastdiv_exhaustive(void **state) {
    (void) state;
    static const uint32_t divisors[] = {7, 0x80000001u};
    for (size_t i = 0; i < sizeof(divisors) / sizeof(divisors[0]); i++) {
        const uint32_t d = divisors[i];
        const struct fastdiv_values v = fastdiv_init(d);
        uint64_t bad = 0;
        uint32_t n = 0, q = 0, r = 0;
        do {
            bad += fastdiv(n, &v) != q;
            if (++r == d) {
                r = 0;
                q++;
            }
        } while (++n != 0);
        if (bad) {
            fail_msg("d = %u: %llu dividends wrong", d, (unsigned long long) bad);
        }
    }
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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fastdiv_one),
        cmocka_unit_test(test_fastdiv_divisors),
        cmocka_unit_test(test_fastdiv_exhaustive),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
