/*
 * The f32 vector math of the kernels (src/htp/hvx-f32-vec.h) against double precision, on the float path
 * of the arch this test is built for (test-hvx-f32-v69: qf32; test-hvx-f32-v79: IEEE sf). Each function is
 * swept over its documented domain; the worst error is printed and bounded.
 *
 * Bounds (in ulp: 2^-23 relative) are the sweeps' measured worst errors with about 2x margin:
 *            exp     recip   rsqrt   sigmoid  div
 *   v79      0.67    1.24    1.50    1.74     1.65   (IEEE sf: the Cody-Waite reduction is exact)
 *   v69      130     2.92    3.00    74.4     3.74   (qf32: every operation carries the format's half-LSB
 *                                                      error, so n ln2 loses about |n| ulp in exp)
 * Either is far inside the op tests' NMSE of 1e-7 (100 ulp is an NMSE of about 1e-10).
 */
#include "test-common.h"

#include "hvx-f32-vec.h"

#include <math.h>
#include <stdio.h>

#if HTP_ARCH_IEEE_SF
#define ULP_EXP     2.0
#define ULP_RECIP   2.5
#define ULP_RSQRT   3.0
#define ULP_SIGMOID 3.5
#define ULP_DIV     3.5
#else
#define ULP_EXP     256.0
#define ULP_RECIP   6.0
#define ULP_RSQRT   6.0
#define ULP_SIGMOID 150.0
#define ULP_DIV     8.0
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
}

/* Quotients of random operands spanning 2^-40..2^40 both ways (no quotient overflows), and the guarded
 * ends. */
static void test_div(void **state) {
    (void) state;
    struct test_rng rng;
    test_rng_seed(&rng, "hvx-f32 div");
    double worst = 0.0;
    for (int i = 0; i < (1 << 16); i++) {
        float a[32] __attribute__((aligned(128))), b[32] __attribute__((aligned(128)));
        float q[32] __attribute__((aligned(128)));
        for (int k = 0; k < 32; k++) {
            a[k] = test_rng_normal(&rng, 1.0f) * ldexpf(1.0f, (int) (test_rng_next(&rng) % 81) - 40);
            b[k] = test_rng_normal(&rng, 1.0f) * ldexpf(1.0f, (int) (test_rng_next(&rng) % 81) - 40);
        }
        hvx_vmem_st(q, hvx_vec_div_f32(hvx_vmem_ld(a), hvx_vmem_ld(b)));
        for (int k = 0; k < 32; k++) {
            const double e = ulps(q[k], (double) a[k] / b[k]);
            worst = e > worst ? e : worst;
        }
    }
    printf("div: %.2f ulp\n", worst);
    assert_true(worst <= ULP_DIV);

    float a[32] __attribute__((aligned(128))), b[32] __attribute__((aligned(128))), q[32] __attribute__((aligned(128)));
    for (int k = 0; k < 32; k++) {
        a[k] = k % 2 ? -3.0f : 3.0f;
        b[k] = k < 8 ? 0.0f : k < 16 ? -1e-39f : k < 24 ? 1e38f : -2.0f;
    }
    hvx_vmem_st(q, hvx_vec_div_f32(hvx_vmem_ld(a), hvx_vmem_ld(b)));
    for (int k = 0; k < 32; k++) {
        if (k < 16) {
            assert_true(isinf(q[k]) && (q[k] < 0) == ((a[k] < 0) != (signbit(b[k]) != 0)));
        } else if (k < 24) {
            assert_true(q[k] == 0.0f);
        } else {
            assert_true(ulps(q[k], (double) a[k] / b[k]) <= ULP_DIV);
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
        cmocka_unit_test(test_exp),     cmocka_unit_test(test_recip), cmocka_unit_test(test_rsqrt),
        cmocka_unit_test(test_sigmoid), cmocka_unit_test(test_div),   cmocka_unit_test(test_reduce_sum),
    };
    return test_result(cmocka_run_group_tests(tests, NULL, NULL));
}
