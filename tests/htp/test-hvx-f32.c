/*
 * The f32 vector math of the kernels (src/htp/hvx-f32-vec.h) against double precision, on the float path
 * of the arch this test is built for (test-hvx-f32-v69: qf32; test-hvx-f32-v79: IEEE sf). Each function is
 * swept over its documented domain; the worst error is printed and bounded.
 *
 * Bounds (in ulp: 2^-23 relative) are the sweeps' measured worst errors with about 2x margin:
 *            exp     recip   rsqrt   sigmoid
 *   v79      0.67    1.24    1.50    1.74     (IEEE sf: the Cody-Waite reduction is exact)
 *   v69      130     2.92    3.00    74.4     (qf32: every operation carries the format's half-LSB
 *                                               error, so n ln2 loses about |n| ulp in exp)
 * Either is far inside the op tests' NMSE of 1e-7 (100 ulp is an NMSE of about 1e-10). Division is exact on both
 * paths: every quotient is compared bit for bit with the host's IEEE division, over edge values (zeros,
 * subnormals, FLT_MIN, FLT_MAX, infinities, NaN) crossed with each other and random bit patterns (all exponents).
 * 1/sqrt is also checked on the IEEE special values and over the subnormals.
 */
#include "test-common.h"

#include "fp16.h"
#include "hvx-f32-vec.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#if HTP_ARCH_IEEE_SF
#define ULP_EXP     2.0
#define ULP_RECIP   2.5
#define ULP_RSQRT   3.0
#define ULP_SIGMOID 3.5
#else
#define ULP_EXP     256.0
#define ULP_RECIP   6.0
#define ULP_RSQRT   6.0
#define ULP_SIGMOID 150.0
#endif

typedef HVX_Vector (*vec_fn1)(HVX_Vector);
typedef HVX_Vector (*vec_fn2)(HVX_Vector, HVX_Vector);

/* Relative error of got against want, in units of 2^-23. */
static double ulps(float got, double want) {
    return fabs((double) got - want) / (fabs(want) * 0x1p-23);
}

/* The worst ulp error of f over n points x[i] = lo * (hi / lo)^(i / n) (geometric) or lo + (hi - lo) i / n. */
static double sweep1(vec_fn1 f, double (*ref)(double), double lo, double hi, int n, bool geometric) {
    double worst = 0.0;
    for (int i = 0; i < n; i += 32) {
        float x[32] __attribute__((aligned(128))), y[32] __attribute__((aligned(128)));
        for (int k = 0; k < 32; k++) {
            const double t = (double) (i + k) / n;
            x[k] = (float) (geometric ? lo * pow(hi / lo, t) : lo + (hi - lo) * t);
        }
        hvx_vmem_st(y, f(hvx_vmem_ld(x)));
        for (int k = 0; k < 32; k++) {
            const double e = ulps(y[k], ref(x[k]));
            worst = e > worst ? e : worst;
        }
    }
    return worst;
}

static double ref_exp(double x) {
    return exp(x);
}
static double ref_recip(double x) {
    return 1.0 / x;
}
static double ref_rsqrt(double x) {
    return 1.0 / sqrt(x);
}
static double ref_sigmoid(double x) {
    return 1.0 / (1.0 + exp(-x));
}

static void test_exp(void **state) {
    (void) state;
    const double worst = sweep1(hvx_vec_exp_f32, ref_exp, -87.0, 88.0, 1 << 18, false);
    printf("exp: %.2f ulp\n", worst);
    assert_true(worst <= ULP_EXP);
}

static void test_recip(void **state) {
    (void) state;
    const double worst = sweep1(hvx_vec_recip_f32, ref_recip, 1.2e-38, 8.5e37, 1 << 18, true);
    printf("recip: %.2f ulp\n", worst);
    assert_true(worst <= ULP_RECIP);
}

static void test_rsqrt(void **state) {
    (void) state;
    const double worst = sweep1(hvx_vec_rsqrt_f32, ref_rsqrt, 1.2e-38, 3e38, 1 << 18, true);
    printf("rsqrt: %.2f ulp\n", worst);
    assert_true(worst <= ULP_RSQRT);
}

static void test_sigmoid(void **state) {
    (void) state;
    const double worst = sweep1(hvx_vec_sigmoid_f32, ref_sigmoid, -87.0, 87.0, 1 << 18, false);
    printf("sigmoid: %.2f ulp\n", worst);
    assert_true(worst <= ULP_SIGMOID);
    /* saturation: exactly 0 below -87 (where the CPU's e^-x overflows), 1 within the sweep's bound above 87 */
    float x[32] __attribute__((aligned(128))), y[32] __attribute__((aligned(128)));
    const float sat[8] = {-87.01f, -88.0f, -1e30f, -INFINITY, 88.0f, 1e30f, FLT_MAX, INFINITY};
    for (int k = 0; k < 32; k++) {
        x[k] = sat[k % 8];
    }
    hvx_vmem_st(y, hvx_vec_sigmoid_f32(hvx_vmem_ld(x)));
    for (int k = 0; k < 32; k++) {
        if (x[k] < 0.0f ? y[k] != 0.0f : ulps(y[k], 1.0) > ULP_SIGMOID) {
            fail_msg("sigmoid(%g) = %a", (double) x[k], (double) y[k]);
        }
    }
}

/* hvx_vec_div_f32 on 32 pairs against the host's a / b: the same bits, or NaN for NaN. */
static void check_div32(const float *a, const float *b) {
    float va[32] __attribute__((aligned(128))), vb[32] __attribute__((aligned(128)));
    float q[32] __attribute__((aligned(128)));
    memcpy(va, a, sizeof(va));
    memcpy(vb, b, sizeof(vb));
    hvx_vmem_st(q, hvx_vec_div_f32(hvx_vmem_ld(va), hvx_vmem_ld(vb)));
    for (int k = 0; k < 32; k++) {
        const float want = a[k] / b[k];
        if (isnan(want) ? !isnan(q[k]) : vnpu_f32_bits(q[k]) != vnpu_f32_bits(want)) {
            fail_msg("%a / %a = %a, expected %a", (double) a[k], (double) b[k], (double) q[k], (double) want);
        }
    }
}

/* Every pair of edge values, then random bit patterns (every exponent, subnormals, infinities and NaNs among them)
 * and random pairs whose quotients fall around the subnormal and overflow thresholds. */
static void test_div(void **state) {
    (void) state;
    static const uint32_t edges[] = {
        0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x00000002, 0x00000003, 0x007FFFFF, 0x00400000,
        0x00800000, 0x80800000, 0x00800001, 0x3F800000, 0xBF800000, 0x3F800001, 0x3FFFFFFF, 0x40000000,
        0x40400000, 0x3EAAAAAB, 0x7F7FFFFF, 0xFF7FFFFF, 0x7F000000, 0x01000000, 0x33800000, 0x4B800000,
        0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x7F800001, 0x7FFFFFFF, 0x3F7FFFFF, 0x34000000,
    };
    const int n_edges = (int) (sizeof(edges) / sizeof(edges[0]));
    float a[32], b[32];
    for (int i = 0; i < n_edges; i++) {
        for (int k = 0; k < 32; k++) {
            a[k] = vnpu_f32_from_bits(edges[i]);
            b[k] = vnpu_f32_from_bits(edges[k % n_edges]);
        }
        check_div32(a, b);
    }
    struct test_rng rng;
    test_rng_seed(&rng, "hvx-f32 div");
    for (int i = 0; i < (1 << 15); i++) {
        for (int k = 0; k < 32; k++) {
            a[k] = vnpu_f32_from_bits((uint32_t) test_rng_next(&rng));
            b[k] = vnpu_f32_from_bits((uint32_t) test_rng_next(&rng));
            if (i & 1) { /* exponents 120..131 apart either way, or a subnormal divisor: quotients around FLT_MIN,
                            FLT_MAX */
                const uint32_t ea = 1 + (uint32_t) (test_rng_next(&rng) % 254),
                               shift = 120 + (uint32_t) (test_rng_next(&rng) % 12);
                const uint32_t eb = ea > shift ? ea - shift : ea + shift < 255 ? ea + shift : ea;
                a[k] = vnpu_f32_from_bits((vnpu_f32_bits(a[k]) & 0x807FFFFFu) | ea << 23);
                b[k] = vnpu_f32_from_bits((vnpu_f32_bits(b[k]) & 0x807FFFFFu) | (k & 1 ? eb : 0) << 23);
            }
        }
        check_div32(a, b);
    }
}

/* 1/sqrt over the subnormals and at the IEEE special values. */
static void test_rsqrt_edges(void **state) {
    (void) state;
    const double worst = sweep1(hvx_vec_rsqrt_f32, ref_rsqrt, 1.4e-45, 1.17e-38, 1 << 16, true);
    printf("rsqrt (subnormal): %.2f ulp\n", worst);
    assert_true(worst <= ULP_RSQRT);
    float x[32] __attribute__((aligned(128))), y[32] __attribute__((aligned(128)));
    static const uint32_t specials[] = {0x7F800000, 0x00000000, 0x80000000, 0xBF800000,
                                        0xFF800000, 0x7FC00000, 0x80000001, 0x7F7FFFFF};
    for (int k = 0; k < 32; k++) {
        x[k] = vnpu_f32_from_bits(specials[k % 8]);
    }
    hvx_vmem_st(y, hvx_vec_rsqrt_f32(hvx_vmem_ld(x)));
    for (int k = 0; k < 32; k++) {
        const float want = 1.0f / sqrtf(x[k]);
        if (isnan(want)                   ? !isnan(y[k])
            : isinf(want) || want == 0.0f ? vnpu_f32_bits(y[k]) != vnpu_f32_bits(want)
                                          : ulps(y[k], want) > ULP_RSQRT) {
            fail_msg("rsqrt(%a) = %a, expected %a", (double) x[k], (double) y[k], (double) want);
        }
    }
}

/* The lane sum: all lanes equal, within the error of a 5-level tree. */
static void test_reduce_sum(void **state) {
    (void) state;
    float x[32] __attribute__((aligned(128))), s[32] __attribute__((aligned(128)));
    double want = 0.0;
    for (int k = 0; k < 32; k++) {
        x[k] = 1.0f / (float) (k + 1);
        want += x[k];
    }
    hvx_vmem_st(s, hvx_vec_reduce_sum_f32(hvx_vmem_ld(x)));
    for (int k = 0; k < 32; k++) {
        assert_true(s[k] == s[0]);
    }
    assert_true(ulps(s[0], want) <= 8.0);
    hvx_vmem_st(s, hvx_vec_keep_f32(hvx_vmem_ld(x), 5));
    for (int k = 0; k < 32; k++) {
        assert_true(s[k] == (k < 5 ? x[k] : 0.0f));
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exp),        cmocka_unit_test(test_recip), cmocka_unit_test(test_rsqrt),
        cmocka_unit_test(test_sigmoid),    cmocka_unit_test(test_div),   cmocka_unit_test(test_rsqrt_edges),
        cmocka_unit_test(test_reduce_sum),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
