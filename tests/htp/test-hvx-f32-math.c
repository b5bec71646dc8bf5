/*
 * The attention kernels' vector math (src/htp/hvx-f32-math.h, hvx-f16-vec.h) against double precision, on
 * the float path of the arch this test is built for (test-hvx-f32-math-v69: qf32; -v79: IEEE sf).
 *
 * sin and cos are bounded in absolute error (they feed rotations whose inputs are O(1)). v79: over |x| < 2^17,
 * where the Cody-Waite reduction is exact, the measured worst is 7.7e-8 (bound 2.5e-7); an absolute error e
 * in every rotation is an NMSE of about e^2, 6e-15, far inside ROPE's 1e-7. v69 (qf32, compiled for the
 * Hexagon check only: no v69 library is built): qf32 rounds every step, 1.4e-4 over |x| < 1024 (bound 3e-4)
 * and worse beyond, as each reduction step loses the format's half-LSB of n pi/2. tanh: under 1e-7 absolute
 * on v79 (bound 2e-7), 2.8e-7 on v69 (bound 6e-7).
 */
#include "test-common.h"

#include "hvx-f16-vec.h"
#include "hvx-f32-math.h"

#include <math.h>
#include <stdio.h>

#if HTP_ARCH_IEEE_SF
#define SINCOS_MAX 131072.0
#define ABS_SINCOS 2.5e-7
#define ABS_TANH   2e-7
#else
#define SINCOS_MAX 1024.0
#define ABS_SINCOS 3e-4
#define ABS_TANH   6e-7
#endif

/* Vectors are built and read lane by lane through hvx_lane_*_f32 (see hvx-f32-math.h: GCC's alias analysis does
 * not tie the emulation's vector stores to a float array). */

/* The worst absolute errors of sin and cos over n points spread over [lo, hi] (and their negatives). */
static void sweep_sincos(double lo, double hi, int n, double *worst_sin, double *worst_cos) {
    for (int i = 0; i < n; i += 32) {
        HVX_Vector x, s, c;
        for (uint32_t k = 0; k < 32; k++) {
            const float v = (float) (lo + (hi - lo) * (double) (i + (int) k) / n);
            hvx_lane_set_f32(&x, k, k % 2 ? -v : v);
        }
        hvx_vec_sincos_f32(x, &s, &c);
        for (uint32_t k = 0; k < 32; k++) {
            const double xk = hvx_lane_get_f32(&x, k);
            const double es = fabs(hvx_lane_get_f32(&s, k) - sin(xk)), ec = fabs(hvx_lane_get_f32(&c, k) - cos(xk));
            *worst_sin = es > *worst_sin ? es : *worst_sin;
            *worst_cos = ec > *worst_cos ? ec : *worst_cos;
        }
    }
}

static void test_sincos(void **state) {
    (void) state;
    double ws = 0.0, wc = 0.0;
    sweep_sincos(0.0, 8.0, 1 << 16, &ws, &wc);        /* the first turns, finely */
    sweep_sincos(8.0, SINCOS_MAX, 1 << 20, &ws, &wc); /* every quadrant up to SINCOS_MAX */
    printf("sin: %.3g, cos: %.3g absolute\n", ws, wc);
    assert_true(ws <= ABS_SINCOS && wc <= ABS_SINCOS);
}

static void test_tanh(void **state) {
    (void) state;
    double worst = 0.0;
    for (int i = 0; i < (1 << 16); i += 32) {
        HVX_Vector x;
        for (uint32_t k = 0; k < 32; k++) {
            hvx_lane_set_f32(&x, k, -20.0f + 40.0f * (float) (i + (int) k) / (1 << 16));
        }
        const HVX_Vector y = hvx_vec_tanh_f32(x);
        for (uint32_t k = 0; k < 32; k++) {
            const double e = fabs(hvx_lane_get_f32(&y, k) - tanh((double) hvx_lane_get_f32(&x, k)));
            worst = e > worst ? e : worst;
        }
    }
    printf("tanh: %.3g absolute\n", worst);
    assert_true(worst <= ABS_TANH);
}

/* The lane maximum on order keys (hvx_vec_reduce_max_i32 of hvx_vec_f32_order_key, as softmax and flash attention
 * take it) is the largest lane, in every lane, wherever it sits: among negative lanes, infinities and signed zeros
 * too. */
static void test_reduce_max(void **state) {
    (void) state;
    const float others[4] = {-1.0f, -INFINITY, -0.0f, -1e30f}, best[4] = {3.5f, -2.5f, 0.0f, -1e29f};
    for (uint32_t pattern = 0; pattern < 4; pattern++) {
        for (uint32_t at = 0; at < 32; at++) {
            HVX_Vector x;
            for (uint32_t k = 0; k < 32; k++) {
                hvx_lane_set_f32(&x, k,
                                 k == at ? best[pattern] : others[pattern] * (pattern == 0 ? (float) (k + 1) : 1.0f));
            }
            const HVX_Vector m = hvx_vec_f32_order_key(hvx_vec_reduce_max_i32(hvx_vec_f32_order_key(x)));
            for (uint32_t k = 0; k < 32; k++) {
                const float got = hvx_lane_get_f32(&m, k);
                assert_true(got == best[pattern] && signbit(got) == signbit(best[pattern]));
            }
        }
    }
}

/* f16 -> f32 keeps element order and every value, infinities included. */
static void test_f16_to_f32(void **state) {
    (void) state;
    HVX_Vector h;
    for (uint32_t i = 0; i < 64; i++) {
        const uint16_t bits = (uint16_t) (i == 5 ? 0xFC00u : i == 37 ? 0x7C00u : 0x3C00u + i * 7); /* -inf, +inf */
        __builtin_memcpy((uint8_t *) &h + 2 * i, &bits, 2);
    }
    const HVX_VectorPair w = hvx_vec_f16_to_f32(h);
    const HVX_Vector lo = Q6_V_lo_W(w), hi = Q6_V_hi_W(w);
    for (uint32_t i = 0; i < 64; i++) {
        const float want = i == 5 ? -INFINITY : i == 37 ? INFINITY : 1.0f + (float) (i * 7) / 1024.0f;
        assert_true(hvx_lane_get_f32(i < 32 ? &lo : &hi, i % 32) == want);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sincos),
        cmocka_unit_test(test_tanh),
        cmocka_unit_test(test_reduce_max),
        cmocka_unit_test(test_f16_to_f32),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
