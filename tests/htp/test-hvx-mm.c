/*
 * The MUL_MAT kernels' pieces on the float path of the arch this test is built for (test-hvx-mm-v69: qf32;
 * test-hvx-mm-v79: IEEE sf), each against a scalar reference:
 *   - act-quant.c: Q8 activation blocks (codes within half a step of x / d, every word of a group vector the same
 *     4 codes, d = max |x| / 127, the d * sum vector), f16 and f32 rows with zeroed padding;
 *   - hvx-mm-quant.h: the unpacks of Q4_0 and Q8_0 steps, tiled (src/repack's layout) and flat (the DMA's
 *     per-row layout): operand byte times row scale equals the tile's value from repack_dequant_tile, bit for bit;
 *     the 32x1 and 32x2 kernels against a double dot product of the same codes;
 *   - hvx-mm-float.h: the lane fold, and the F16/F32 32x1/32x2 kernels with a ragged K, junk (NaN bytes) past the
 *     row ends and past the valid rows.
 *
 * Bounds: on the IEEE path a code is x / d rounded to nearest (|q - x / d| <= 0.5 up to the reciprocal's ulps) and
 * the f32 sums of a dot product stay within 1e-5 of the sum of its terms' magnitudes. On the qf32 path x / d goes
 * through hf before it is rounded (1/32 more), and every float operation carries up to about an ulp of error
 * (tests/htp/test-hvx-f32.c): sums within 1e-4. Either is far inside MUL_MAT's NMSE of 5e-4.
 */
#include "test-common.h"

#include "act-quant.h"
#include "fp16.h"
#include "hvx-mm-float.h"
#include "hvx-mm-quant.h"
#include "repack.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#if HTP_ARCH_IEEE_SF
#define CODE_ERR 0.5001 /* |q - x / d| */
#define SUM_ERR  1e-5   /* |sum - exact| / sum of |terms| */
#define DSUM_ERR 0.0    /* d * sum(q): one multiply */
#else
#define CODE_ERR 0.5313
#define SUM_ERR  1e-4
#define DSUM_ERR 2.4e-7
#endif

#define MAX_K 1024

static uint8_t vt_x[MAX_K * 4] __attribute__((aligned(128)));                           /* an f32 row */
static uint8_t vt_act[2][MAX_K / 32 * ACT_Q8_BLOCK_SIZE] __attribute__((aligned(128))); /* two prepared columns */
static uint8_t vt_w[32 * MAX_K * 4] __attribute__((aligned(128)));                      /* a weight tile row */

static void fill_normal(struct test_rng *rng, float *x, int n, float std) {
    for (int i = 0; i < n; i++) {
        x[i] = test_rng_normal(rng, std);
    }
}

/* Code k of a Q8 block: byte k % 4 of a word of group vector k / 4. */
static int8_t act_code(const uint8_t *blk, int k) {
    return (int8_t) blk[(k / 4) * ACT_Q8_GROUP_STRIDE + k % 4];
}

static float act_f32(const uint8_t *blk, int offset) {
    float v;
    memcpy(&v, blk + offset, sizeof(v));
    return v;
}

/* ---- act-quant.c ---- */

static void test_act_quant_q8(void **state) {
    (void) state;
    struct test_rng rng;
    test_rng_seed(&rng, "act_quant_q8");
    const int n = 256;
    float *x = (float *) vt_x;
    fill_normal(&rng, x, n, 3.0f);
    for (int k = 32; k < 64; k++) {
        x[k] = 0.0f; /* a block of zeros: d = 0, codes 0 */
    }
    x[70] = 1e4f; /* a block dominated by one element */
    act_quant_q8_row(vt_x, n, vt_act[0]);
    for (int b = 0; b < n / 32; b++) {
        const uint8_t *blk = vt_act[0] + b * ACT_Q8_BLOCK_SIZE;
        float amax = 0.0f;
        for (int k = 0; k < 32; k++) {
            amax = fmaxf(amax, fabsf(x[32 * b + k]));
        }
        const float d = act_f32(blk, ACT_Q8_D_OFFSET);
        assert_true(fabsf(d - amax / 127.0f) <= 1e-6f * amax / 127.0f);
        int sum = 0;
        for (int k = 0; k < 32; k++) {
            const int q = act_code(blk, k);
            sum += q;
            assert_true(q >= -127 && q <= 127);
            if (d > 0.0f) {
                assert_true(fabs((double) q - (double) x[32 * b + k] / d) <= CODE_ERR);
            } else {
                assert_int_equal(q, 0);
            }
        }
        for (int g = 0; g < 8; g++) { /* every word of a group vector holds the group's 4 codes */
            for (int w = 1; w < 32; w++) {
                assert_memory_equal(blk + g * ACT_Q8_GROUP_STRIDE, blk + g * ACT_Q8_GROUP_STRIDE + 4 * w, 4);
            }
        }
        for (int l = 0; l < 32; l++) {
            assert_true(act_f32(blk, ACT_Q8_D_OFFSET + 4 * l) == d);
            const float dsum = d * (float) sum;
            assert_true(fabsf(act_f32(blk, ACT_Q8_DSUM_OFFSET + 4 * l) - dsum) <= DSUM_ERR * fabsf(dsum));
        }
    }
}

static void test_act_f16_f32(void **state) {
    (void) state;
    struct test_rng rng;
    test_rng_seed(&rng, "act_f16_f32");
    for (int n = 1; n <= 200; n += 13) {
        float *x = (float *) vt_x;
        memset(vt_x, 0xFF, sizeof(vt_x)); /* junk past n */
        fill_normal(&rng, x, n, 2.0f);
        act_cvt_f16_row(vt_x, (uint32_t) n, vt_act[0]);
        const vnpu_fp16_t *h = (const vnpu_fp16_t *) vt_act[0];
        for (uint32_t i = 0; i < act_f16_row_size((uint32_t) n) / 2; i++) {
            assert_int_equal(h[i], i < (uint32_t) n ? vnpu_f32_to_fp16(x[i]) : 0);
        }
        act_copy_f32_row(vt_x, (uint32_t) n, vt_act[1]);
        const float *f = (const float *) vt_act[1];
        for (uint32_t i = 0; i < act_f32_row_size((uint32_t) n) / 4; i++) {
            assert_true(i < (uint32_t) n ? f[i] == x[i] : f[i] == 0.0f);
        }
    }
}

/* ---- hvx-mm-quant.h ---- */

struct qfmt {
    enum vnpu_type type;
    bool tiled;
    HVX_Vector (*unpack)(const uint8_t *t, HVX_Vector q[8]);
    hvx_mm_qdot_32x1_fn dot_32x1;
    hvx_mm_qdot_32x2_fn dot_32x2;
    uint32_t blk_size, qs_off, qs_size, step;
};

static const struct qfmt qfmts[] = {
    {VNPU_TYPE_Q4_0, true, hvx_mm_unpack_q4_0_tiled, hvx_mm_qdot_q4_0_tiled_32x1, hvx_mm_qdot_q4_0_tiled_32x2, 18, 2,
     16, HTP_TENSOR_TILE_ALIGNED_SIZE_Q4_0},
    {VNPU_TYPE_Q4_0, false, hvx_mm_unpack_q4_0_flat, hvx_mm_qdot_q4_0_flat_32x1, hvx_mm_qdot_q4_0_flat_32x2, 18, 2, 16,
     HTP_TENSOR_TILE_ALIGNED_SIZE_Q4_0},
    {VNPU_TYPE_Q8_0, true, hvx_mm_unpack_q8_0_tiled, hvx_mm_qdot_q8_0_tiled_32x1, hvx_mm_qdot_q8_0_tiled_32x2, 34, 2,
     32, HTP_TENSOR_TILE_ALIGNED_SIZE_Q8_0},
    {VNPU_TYPE_Q8_0, false, hvx_mm_unpack_q8_0_flat, hvx_mm_qdot_q8_0_flat_32x1, hvx_mm_qdot_q8_0_flat_32x2, 34, 2, 32,
     HTP_TENSOR_TILE_ALIGNED_SIZE_Q8_0},
};

/* 32 rows of k random weights of f's type into vt_w as the kernel's VTCM holds a tile row (tiled: the repacked
 * tiles at the aligned stride; flat: each row's codes and scales in the step areas, as matmul-ops.c DMAs them),
 * and their values per (step, row, column) into deq (from the tiles, repack_dequant_tile). */
static void make_weights(const struct qfmt *f, int k, struct test_rng *rng, float *deq) {
    const size_t row = vnpu_row_size(f->type, k), n_steps = (size_t) k / 32;
    float *x = malloc(sizeof(float) * 32 * (size_t) k);
    uint8_t *flat = malloc(row * 32), *tiles = malloc(32 * row + 4096);
    const int64_t ne[4] = {k, 32, 1, 1};
    fill_normal(rng, x, 32 * k, 1.0f);
    vnpu_type_traits_get(f->type)->from_f32_ref(x, flat, 32 * (int64_t) k);
    assert_int_equal(repack_tensor(f->type, ne, flat, row * 32, tiles, repack_nbytes(f->type, ne), 1), VNPU_STATUS_OK);
    const size_t tile_size = repack_nbytes(f->type, ne) / n_steps;
    memset(vt_w, 0xFF, n_steps * f->step);
    for (size_t s = 0; s < n_steps; s++) {
        repack_dequant_tile(f->type, tiles, (uint32_t) s, deq + s * 32 * 32);
        uint8_t *area = vt_w + s * f->step;
        if (f->tiled) {
            memcpy(area, tiles + s * tile_size, tile_size);
            continue;
        }
        for (int r = 0; r < 32; r++) {
            const uint8_t *blk = flat + (size_t) r * row + s * f->blk_size;
            memcpy(area + (size_t) r * f->qs_size, blk + f->qs_off, f->qs_size);
            memcpy(area + 32 * f->qs_size + 2 * r, blk, 2); /* d */
        }
    }
    free(x);
    free(flat);
    free(tiles);
}

static void test_unpack(void **state) {
    (void) state;
    struct test_rng rng;
    test_rng_seed(&rng, "unpack");
    static float deq[MAX_K / 32 * 32 * 32];
    for (size_t i = 0; i < sizeof(qfmts) / sizeof(qfmts[0]); i++) {
        const struct qfmt *f = &qfmts[i];
        make_weights(f, 128, &rng, deq);
        for (int s = 0; s < 4; s++) {
            HVX_Vector q[8];
            float ws[32] __attribute__((aligned(128)));
            int8_t qb[8][128] __attribute__((aligned(128)));
            hvx_vmem_st(ws, f->unpack(vt_w + s * f->step, q));
            for (int g = 0; g < 8; g++) {
                hvx_vmem_st(qb[g], q[g]);
            }
            for (int r = 0; r < 32; r++) {
                for (int k = 0; k < 32; k++) {
                    const float v = (float) qb[k / 4][4 * r + k % 4] * ws[r];
                    if (v != deq[(s * 32 + r) * 32 + k]) {
                        fail_msg("%s %s step %d row %d column %d: %g, the tile holds %g", vnpu_type_name(f->type),
                                 f->tiled ? "tiled" : "flat", s, r, k, (double) v, (double) deq[(s * 32 + r) * 32 + k]);
                    }
                }
            }
        }
    }
}

static void test_qdot(void **state) {
    (void) state;
    struct test_rng rng;
    test_rng_seed(&rng, "qdot");
    static float deq[MAX_K / 32 * 32 * 32];
    const int k = 512, n_steps = k / 32;
    for (size_t i = 0; i < sizeof(qfmts) / sizeof(qfmts[0]); i++) {
        const struct qfmt *f = &qfmts[i];
        make_weights(f, k, &rng, deq);
        for (int c = 0; c < 2; c++) {
            fill_normal(&rng, (float *) vt_x, k, 1.0f + (float) c);
            act_quant_q8_row(vt_x, (uint32_t) k, vt_act[c]);
        }
        float out[3][32] __attribute__((aligned(128)));
        f->dot_32x2(vt_w, (uint32_t) n_steps, f->step, vt_act[0], vt_act[1], (HVX_Vector *) out[0],
                    (HVX_Vector *) out[1]);
        f->dot_32x1(vt_w, (uint32_t) n_steps, f->step, vt_act[1], (HVX_Vector *) out[2]);
        for (int c = 0; c < 2; c++) {
            for (int r = 0; r < 32; r++) {
                double want = 0.0, mag = 0.0;
                for (int kk = 0; kk < k; kk++) {
                    const uint8_t *blk = vt_act[c] + (kk / 32) * ACT_Q8_BLOCK_SIZE;
                    const double a = (double) act_code(blk, kk % 32) * act_f32(blk, ACT_Q8_D_OFFSET);
                    const double w = deq[((kk / 32) * 32 + r) * 32 + kk % 32];
                    want += w * a;
                    mag += fabs(w * a);
                }
                if (!(fabs(out[c][r] - want) <= SUM_ERR * mag)) {
                    fail_msg("%s %s column %d row %d: %.9g, want %.9g (error %.3g of %.3g)", vnpu_type_name(f->type),
                             f->tiled ? "tiled" : "flat", c, r, (double) out[c][r], want, fabs(out[c][r] - want), mag);
                }
            }
        }
        assert_memory_equal(out[1], out[2], sizeof(out[1])); /* 32x1 computes what 32x2 does for a column */
    }
}

/* ---- hvx-mm-float.h ---- */

static void test_fold(void **state) {
    (void) state;
    struct test_rng rng;
    test_rng_seed(&rng, "fold");
    float v[32][32] __attribute__((aligned(128)));
    float out[32] __attribute__((aligned(128)));
    fill_normal(&rng, &v[0][0], 32 * 32, 1.0f);
    HVX_Vector pend[5], sum = Q6_V_vzero();
    memset(pend, 0, sizeof(pend));
    for (uint32_t r = 0; r < 32; r++) {
        sum = hvx_mm_fold_push(pend, r, hvx_vmem_ld(v[r]));
    }
    hvx_vmem_st(out, sum);
    for (int r = 0; r < 32; r++) {
        double want = 0.0, mag = 0.0;
        for (int l = 0; l < 32; l++) {
            want += v[r][l];
            mag += fabs(v[r][l]);
        }
        assert_true(fabs(out[r] - want) <= SUM_ERR * mag);
    }
}

/* F16 and F32 weights: K = 1..300 (ragged last vector), valid rows 32 or fewer; VTCM junk everywhere else. */
static void test_float_dot(void **state) {
    (void) state;
    struct test_rng rng;
    test_rng_seed(&rng, "float_dot");
    for (int f16 = 0; f16 < 2; f16++) {
        for (int k = 1; k <= 300; k += 37) {
            const uint32_t esize = f16 ? 2 : 4, stride = hex_align_up((uint32_t) k * esize, 128);
            const uint32_t valid = k % 2 ? 32 : (uint32_t) (k % 31) + 1;
            float w[32][300], x[2][300];
            memset(vt_w, 0xFF, 32 * stride);
            fill_normal(&rng, &w[0][0], 32 * 300, 1.0f);
            fill_normal(&rng, &x[0][0], 2 * 300, 1.0f);
            for (uint32_t r = 0; r < valid; r++) {
                for (int i = 0; i < k; i++) {
                    if (f16) {
                        const vnpu_fp16_t h = vnpu_f32_to_fp16(w[r][i]);
                        memcpy(vt_w + r * stride + 2 * i, &h, 2);
                        w[r][i] = vnpu_fp16_to_f32(h);
                    } else {
                        memcpy(vt_w + r * stride + 4 * i, &w[r][i], 4);
                    }
                }
            }
            for (int c = 0; c < 2; c++) {
                memcpy(vt_x, x[c], sizeof(float) * (size_t) k);
                (f16 ? act_cvt_f16_row : act_copy_f32_row)(vt_x, (uint32_t) k, vt_act[c]);
                for (int i = 0; f16 && i < k; i++) {
                    x[c][i] = vnpu_fp16_to_f32(vnpu_f32_to_fp16(x[c][i]));
                }
            }
            float out[3][32] __attribute__((aligned(128)));
            HVX_Vector *o = (HVX_Vector *) out;
            if (f16) {
                hvx_mm_dot_f16_32x2(vt_w, stride, (uint32_t) k, valid, vt_act[0], vt_act[1], o, o + 1);
                hvx_mm_dot_f16_32x1(vt_w, stride, (uint32_t) k, valid, vt_act[1], o + 2);
            } else {
                hvx_mm_dot_f32_32x2(vt_w, stride, (uint32_t) k, valid, vt_act[0], vt_act[1], o, o + 1);
                hvx_mm_dot_f32_32x1(vt_w, stride, (uint32_t) k, valid, vt_act[1], o + 2);
            }
            for (int c = 0; c < 2; c++) {
                for (uint32_t r = 0; r < 32; r++) {
                    double want = 0.0, mag = 0.0;
                    for (int i = 0; r < valid && i < k; i++) {
                        want += (double) w[r][i] * x[c][i];
                        mag += fabs((double) w[r][i] * x[c][i]);
                    }
                    if (!(fabs(out[c][r] - want) <= SUM_ERR * mag + 1e-30)) {
                        fail_msg("%s K %d valid %u column %d row %u: %g, want %g", f16 ? "f16" : "f32", k, valid, c, r,
                                 (double) out[c][r], want);
                    }
                }
            }
            assert_memory_equal(out[1], out[2], sizeof(out[1]));
        }
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_act_quant_q8), cmocka_unit_test(test_act_f16_f32), cmocka_unit_test(test_unpack),
        cmocka_unit_test(test_qdot),         cmocka_unit_test(test_fold),        cmocka_unit_test(test_float_dot),
    };
    return test_result(cmocka_run_group_tests(tests, NULL, NULL));
}
