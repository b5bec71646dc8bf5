/*
 * The MUL_MAT kernels' pieces on the float path of the arch this test is built for (test-hvx-mm-v69: qf32;
 * test-hvx-mm-v79: IEEE sf), each against a scalar reference:
 *   - act-quant.c: Q8 activation blocks (codes within half a step of x / d, every word of a group vector the same
 *     4 codes, d = max |x| / 127 rounded to FP16 as Q8_0 stores it, the d * sum vector), f16 and f32 rows with zeroed
 * padding;
 *   - matmul_qtype_get's table (matmul-ops.h): every type's flat parts inside a block's unit and apart, its tiles
 *     filling the unit, its descriptors fitting a DMA queue, both layouts of every type in this test's table;
 *   - hvx-mm-quant.h and the format headers, for the twelve tiled types, tiled (src/repack's layout) and flat (the
 *     DMA's parts): the unpacks of Q4_0 and Q8_0 steps (operand byte times row scale equals the weight's value);
 *     every 32x1 and 32x2 kernel against one-hot activation columns (each weight comes out: the tile's value from
 *     repack_dequant_tile, GGML's dequantization for flat, bit for bit on the IEEE path) and against random columns
 *     (a double dot product of the same codes);
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
#include "hvx-mm-kquants.h"
#include "hvx-mm-lowbit.h"
#include "hvx-mm-nibble.h"
#include "hvx-mm-quant.h"
#include "matmul-ops.h"
#include "repack.h"
#include "type-traits.h"

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
    test_rng_fill_normal(&rng, x, (size_t) n, 3.0f);
    for (int k = 32; k < 64; k++) {
        x[k] = 0.0f; /* a block of zeros: d = 0, codes 0 */
    }
    x[70] = 1e4f; /* a block dominated by one element */
    for (int f16_scale = 0; f16_scale < 2; f16_scale++) {
        act_quant_q8_row(vt_x, n, f16_scale, vt_act[0]);
        for (int b = 0; b < n / 32; b++) {
            const uint8_t *blk = vt_act[0] + b * ACT_Q8_BLOCK_SIZE;
            float amax = 0.0f;
            for (int k = 0; k < 32; k++) {
                amax = fmaxf(amax, fabsf(x[32 * b + k]));
            }
            /* d = amax / 127 (up to the f32 ulps of the quotient), rounded to FP16 as Q8_0 stores it with f16_scale
             * (the K-quants' Q8_K keeps it f32); the codes use the unrounded one */
            const float d = act_f32(blk, ACT_Q8_D_OFFSET), d_f32 = amax / 127.0f;
            if (f16_scale) {
                assert_true(vnpu_fp16_to_f32(vnpu_f32_to_fp16(d)) == d);
            }
            assert_true(fabsf(d - d_f32) <= (f16_scale ? 0x1p-11f + 1e-6f : 1e-6f) * d_f32);
            int sum = 0;
            for (int k = 0; k < 32; k++) {
                const int q = act_code(blk, k);
                sum += q;
                assert_true(q >= -127 && q <= 127);
                if (d > 0.0f) {
                    assert_true(fabs((double) q - (double) x[32 * b + k] / d_f32) <= CODE_ERR);
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
}

static void test_act_f16_f32(void **state) {
    (void) state;
    struct test_rng rng;
    test_rng_seed(&rng, "act_f16_f32");
    for (int n = 1; n <= 200; n += 13) {
        float *x = (float *) vt_x;
        memset(vt_x, 0xFF, sizeof(vt_x)); /* junk past n */
        test_rng_fill_normal(&rng, x, (size_t) n, 2.0f);
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

/* ---- hvx-mm-quant.h and the format headers ---- */

/* Every format with int8 kernels, tiled and flat: matmul-ops.c's kernel table, and the per-step unpack of those that
 * have one (NULL for the unit formats, whose steps end inside their kernels). */
struct qfmt {
    enum vnpu_type type;
    bool tiled;
    HVX_Vector (*unpack)(const uint8_t *t, HVX_Vector q[8]);
    hvx_mm_qdot_32x1_fn dot_32x1;
    hvx_mm_qdot_32x2_fn dot_32x2;
};

#define QFMT_UNITS(T, NAME)                                                              \
    {T, true, NULL, hvx_mm_qdot_##NAME##_tiled_32x1, hvx_mm_qdot_##NAME##_tiled_32x2}, { \
        T, false, NULL, hvx_mm_qdot_##NAME##_flat_32x1, hvx_mm_qdot_##NAME##_flat_32x2   \
    }

static const struct qfmt qfmts[] = {
    {VNPU_TYPE_Q4_0, true, hvx_mm_unpack_q4_0_tiled, hvx_mm_qdot_q4_0_tiled_32x1, hvx_mm_qdot_q4_0_tiled_32x2},
    {VNPU_TYPE_Q4_0, false, hvx_mm_unpack_q4_0_flat, hvx_mm_qdot_q4_0_flat_32x1, hvx_mm_qdot_q4_0_flat_32x2},
    {VNPU_TYPE_Q8_0, true, hvx_mm_unpack_q8_0_tiled, hvx_mm_qdot_q8_0_tiled_32x1, hvx_mm_qdot_q8_0_tiled_32x2},
    {VNPU_TYPE_Q8_0, false, hvx_mm_unpack_q8_0_flat, hvx_mm_qdot_q8_0_flat_32x1, hvx_mm_qdot_q8_0_flat_32x2},
    QFMT_UNITS(VNPU_TYPE_Q4_1, q4_1),
    QFMT_UNITS(VNPU_TYPE_IQ4_NL, iq4_nl),
    QFMT_UNITS(VNPU_TYPE_MXFP4, mxfp4),
    QFMT_UNITS(VNPU_TYPE_Q1_0, q1_0),
    QFMT_UNITS(VNPU_TYPE_Q2_0, q2_0),
    QFMT_UNITS(VNPU_TYPE_Q2_K, q2_K),
    QFMT_UNITS(VNPU_TYPE_Q3_K, q3_K),
    QFMT_UNITS(VNPU_TYPE_Q4_K, q4_K),
    QFMT_UNITS(VNPU_TYPE_Q5_K, q5_K),
    QFMT_UNITS(VNPU_TYPE_Q6_K, q6_K),
};
#define N_QFMTS (sizeof(qfmts) / sizeof(qfmts[0]))

/* The table of each type: its parts stay inside a block's unit and apart from each other, the tiles of a block fill
 * its unit at their aligned stride, a tile row's descriptors fit a DMA queue; and qfmts has both layouts of every
 * type the table has. */
static void test_qtype_table(void **state) {
    (void) state;
    int n_types = 0;
    for (int t = 0; t < VNPU_TYPE_COUNT; t++) {
        struct matmul_qtype q;
        struct htp_tile_geom g = {0, 0, 0, 0};
        if (!matmul_qtype_get((uint32_t) t, &q)) {
            continue;
        }
        n_types++;
        const uint32_t unit = q.blk_steps * q.step_size;
        assert_true(htp_tile_geom_get((enum htp_type) t, &g));
        assert_int_equal(g.k_cols * g.tiles_per_block, 32 * q.blk_steps);
        assert_int_equal(g.aligned_size * g.tiles_per_block, unit);
        assert_int_equal(q.blk_size, vnpu_type_traits_get((enum vnpu_type) t)->size);
        assert_true(q.n_parts >= 1 && q.n_parts <= MATMUL_MAX_QPARTS);
        assert_true(matmul_max_prefetch(matmul_wrow_ndesc(MATMUL_PATH_QUANT, false, q.n_parts, 32)) >= 1);
        for (uint32_t i = 0; i < q.n_parts; i++) {
            const struct matmul_qpart *a = &q.parts[i];
            assert_true(a->size <= a->stride && a->src_off + a->size <= q.blk_size);
            assert_true(a->dst_off % HEX_VLEN == 0 && a->dst_off + 32u * a->stride <= unit);
            for (uint32_t j = 0; j < i; j++) {
                const struct matmul_qpart *b = &q.parts[j];
                assert_true(a->dst_off >= b->dst_off + 32u * b->stride || b->dst_off >= a->dst_off + 32u * a->stride);
            }
        }
        int layouts = 0;
        for (size_t f = 0; f < N_QFMTS; f++) {
            layouts += qfmts[f].type == (enum vnpu_type) t ? 1 + qfmts[f].tiled : 0;
        }
        assert_int_equal(layouts, 3); /* flat (1) and tiled (2) */
    }
    assert_int_equal(n_types, 12);
}

/* 32 rows of k random weights of f's type into vt_w as the kernel's VTCM holds a tile row (tiled: the repacked tiles
 * at their aligned stride; flat: each row's parts in their areas of each block's unit, as matmul-ops.c DMAs them,
 * junk around them), and their values into deq[r * k + c]: the tiles' (repack_dequant_tile), or GGML's for flat. */
static void make_weights(const struct qfmt *f, int k, struct test_rng *rng, float *deq) {
    struct matmul_qtype qt;
    struct htp_tile_geom g = {0, 0, 0, 0};
    assert_true(matmul_qtype_get((uint32_t) f->type, &qt) && htp_tile_geom_get((enum htp_type) f->type, &g));
    const size_t row = vnpu_row_size(f->type, k), unit = (size_t) qt.blk_steps * qt.step_size;
    const size_t n_blocks = (size_t) k / (32 * qt.blk_steps), n_tiles = (size_t) k / g.k_cols;
    const struct vnpu_type_traits *tt = vnpu_type_traits_get(f->type);
    float *x = malloc(sizeof(float) * 32 * (size_t) k), *tile = malloc(sizeof(float) * 32 * g.k_cols);
    uint8_t *flat = malloc(row * 32), *tiles = malloc(32 * row + 65536);
    const int64_t ne[4] = {k, 32, 1, 1};
    test_rng_fill_normal(rng, x, (size_t) (32 * k), 1.0f);
    tt->from_f32_ref(x, flat, 32 * (int64_t) k);
    assert_int_equal(repack_tensor(f->type, ne, flat, row * 32, tiles, repack_nbytes(f->type, ne), 1), VNPU_STATUS_OK);
    memset(vt_w, 0xFF, n_blocks * unit);
    for (size_t b = 0; b < n_blocks && !f->tiled; b++) {
        for (uint32_t r = 0; r < 32; r++) {
            for (uint32_t i = 0; i < qt.n_parts; i++) {
                const struct matmul_qpart *pt = &qt.parts[i];
                memcpy(vt_w + b * unit + pt->dst_off + r * pt->stride, flat + r * row + b * qt.blk_size + pt->src_off,
                       pt->size);
            }
        }
    }
    for (uint32_t r = 0; r < 32 && !f->tiled; r++) {
        tt->to_f32(flat + r * row, deq + (size_t) r * k, k);
    }
    for (size_t t = 0; t < n_tiles && f->tiled; t++) {
        memcpy(vt_w + t * g.aligned_size, tiles + t * g.size, g.size);
        repack_dequant_tile(f->type, tiles, (uint32_t) t, tile);
        for (uint32_t r = 0; r < 32; r++) {
            memcpy(deq + (size_t) r * k + t * g.k_cols, tile + r * g.k_cols, sizeof(float) * g.k_cols);
        }
    }
    free(x);
    free(tile);
    free(flat);
    free(tiles);
}

/* The step size of f's type. */
static uint32_t qfmt_step(const struct qfmt *f) {
    struct matmul_qtype qt;
    assert_true(matmul_qtype_get((uint32_t) f->type, &qt));
    return qt.step_size;
}

/* The per-step unpacks: operand byte times row scale equals the weight's value, bit for bit. */
static void test_unpack(void **state) {
    (void) state;
    struct test_rng rng;
    test_rng_seed(&rng, "unpack");
    static float deq[32 * MAX_K];
    const int k = 128;
    for (size_t i = 0; i < N_QFMTS; i++) {
        const struct qfmt *f = &qfmts[i];
        if (!f->unpack) {
            continue;
        }
        make_weights(f, k, &rng, deq);
        for (int s = 0; s < k / 32; s++) {
            HVX_Vector q[8];
            float ws[32] __attribute__((aligned(128)));
            int8_t qb[8][128] __attribute__((aligned(128)));
            hvx_vmem_st(ws, f->unpack(vt_w + s * qfmt_step(f), q));
            for (int g = 0; g < 8; g++) {
                hvx_vmem_st(qb[g], q[g]);
            }
            for (int r = 0; r < 32; r++) {
                for (int c = 0; c < 32; c++) {
                    const float v = (float) qb[c / 4][4 * r + c % 4] * ws[r], want = deq[r * k + 32 * s + c];
                    if (v != want) {
                        fail_msg("%s %s step %d row %d column %d: %g, the weight is %g", vnpu_type_name(f->type),
                                 f->tiled ? "tiled" : "flat", s, r, c, (double) v, (double) want);
                    }
                }
            }
        }
    }
}

/* Activation column c of k as Q8 blocks holding one code 1 at element hot (d = 1, d * sum = 1) and zeros elsewhere
 * (d = 0): a kernel's result in lane r is then row r's weight at column hot. */
static void make_one_hot(uint8_t *act, int k, int hot) {
    memset(act, 0, (size_t) k / 32 * ACT_Q8_BLOCK_SIZE);
    uint8_t *blk = act + (size_t) (hot / 32) * ACT_Q8_BLOCK_SIZE;
    for (int w = 0; w < 32; w++) {
        blk[(hot % 32 / 4) * ACT_Q8_GROUP_STRIDE + 4 * w + hot % 4] = 1;
        const float one = 1.0f;
        memcpy(blk + ACT_Q8_D_OFFSET + 4 * w, &one, 4);
        memcpy(blk + ACT_Q8_DSUM_OFFSET + 4 * w, &one, 4);
    }
}

/* Every format through its 32x2 and 32x1 kernels against one-hot columns: every weight of the tile row comes out,
 * bit for bit the tile's (tiled) or GGML's (flat) value on the IEEE path. On qf32 each float operation may be an ulp
 * off, and a value that is a scaled code plus a bias (Q4_1, Q4_K, Q5_K, Q2_K) may cancel terms as large as the row's
 * largest value: within ONE_HOT_ERR of that plus the value. K = 512: two K-quant super-blocks, four Q1_0 blocks. */
#if HTP_ARCH_IEEE_SF
#define ONE_HOT_ERR 0.0
#else
#define ONE_HOT_ERR 2e-6
#endif
static void test_one_hot(void **state) {
    (void) state;
    struct test_rng rng;
    test_rng_seed(&rng, "one_hot");
    static float deq[32 * MAX_K];
    const int k = 512;
    for (size_t i = 0; i < N_QFMTS; i++) {
        const struct qfmt *f = &qfmts[i];
        make_weights(f, k, &rng, deq);
        float row_max[32] = {0};
        for (int r = 0; r < 32; r++) {
            for (int c = 0; c < k; c++) {
                row_max[r] = fmaxf(row_max[r], fabsf(deq[r * k + c]));
            }
        }
        for (int c = 0; c < k; c += 2) {
            float out[3][32] __attribute__((aligned(128)));
            make_one_hot(vt_act[0], k, c);
            make_one_hot(vt_act[1], k, c + 1);
            f->dot_32x2(vt_w, (uint32_t) k / 32, qfmt_step(f), vt_act[0], vt_act[1], (HVX_Vector *) out[0],
                        (HVX_Vector *) out[1]);
            f->dot_32x1(vt_w, (uint32_t) k / 32, qfmt_step(f), vt_act[1], (HVX_Vector *) out[2]);
            for (int h = 0; h < 2; h++) {
                for (int r = 0; r < 32; r++) {
                    const float want = deq[r * k + c + h];
                    if (!(fabsf(out[h][r] - want) <= ONE_HOT_ERR * (fabsf(want) + row_max[r]))) {
                        fail_msg("%s %s row %d column %d: %.9g, the weight is %.9g", vnpu_type_name(f->type),
                                 f->tiled ? "tiled" : "flat", r, c + h, (double) out[h][r], (double) want);
                    }
                }
            }
            assert_memory_equal(out[1], out[2], sizeof(out[1]));
        }
    }
}

/* The kernels against random activations: a double dot product of the weights' values and the Q8 codes. */
static void test_qdot(void **state) {
    (void) state;
    struct test_rng rng;
    test_rng_seed(&rng, "qdot");
    static float deq[32 * MAX_K];
    const int k = 1024, n_steps = k / 32;
    for (size_t i = 0; i < N_QFMTS; i++) {
        const struct qfmt *f = &qfmts[i];
        make_weights(f, k, &rng, deq);
        for (int c = 0; c < 2; c++) {
            test_rng_fill_normal(&rng, (float *) vt_x, (size_t) k, 1.0f + (float) c);
            act_quant_q8_row(vt_x, (uint32_t) k, matmul_act_f16_scale(f->type), vt_act[c]);
        }
        float out[3][32] __attribute__((aligned(128)));
        f->dot_32x2(vt_w, (uint32_t) n_steps, qfmt_step(f), vt_act[0], vt_act[1], (HVX_Vector *) out[0],
                    (HVX_Vector *) out[1]);
        f->dot_32x1(vt_w, (uint32_t) n_steps, qfmt_step(f), vt_act[1], (HVX_Vector *) out[2]);
        for (int c = 0; c < 2; c++) {
            for (int r = 0; r < 32; r++) {
                double want = 0.0, mag = 0.0;
                for (int kk = 0; kk < k; kk++) {
                    const uint8_t *blk = vt_act[c] + (kk / 32) * ACT_Q8_BLOCK_SIZE;
                    const double a = (double) act_code(blk, kk % 32) * act_f32(blk, ACT_Q8_D_OFFSET);
                    want += deq[r * k + kk] * a;
                    mag += fabs(deq[r * k + kk] * a);
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
    test_rng_fill_normal(&rng, &v[0][0], 32 * 32, 1.0f);
    struct hvx_mm_fold fold;
    memset(&fold, 0, sizeof(fold));
    HVX_Vector sum = Q6_V_vzero();
    for (uint32_t r = 0; r < 32; r++) {
        sum = hvx_mm_fold_push(&fold, r, hvx_vmem_ld(v[r]));
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
            test_rng_fill_normal(&rng, &w[0][0], 32 * 300, 1.0f);
            test_rng_fill_normal(&rng, &x[0][0], 2 * 300, 1.0f);
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
        cmocka_unit_test(test_act_quant_q8), cmocka_unit_test(test_act_f16_f32), cmocka_unit_test(test_qtype_table),
        cmocka_unit_test(test_unpack),       cmocka_unit_test(test_one_hot),     cmocka_unit_test(test_qdot),
        cmocka_unit_test(test_fold),         cmocka_unit_test(test_float_dot),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
