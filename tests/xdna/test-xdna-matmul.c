/*
 * The matmul design on the emulated array (src/xdna/xdna-matmul.h): on every partition shape, for shapes inside
 * one tile and across many, padded in M, K and N, with B in bf16 and as Q4_0 and Q8_0 blocks the compute tiles
 * dequantize, C equals the design's arithmetic done by plain loops bit for bit (bf16 operands, a block's weights
 * dequantized as GGML does then rounded to bf16, exact products summed in f32 in k order), padding is zero, strict
 * mode changes nothing, and the statistics count what the design moves and multiplies.
 */
#include "test-common.h"
#include "type-traits.h"
#include "xdna-matmul.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct mm_shape {
    uint32_t M, K, N;
};

/* M: one row, a short batch, more than one m-tile with a partial last; K: one k-tile, padded, several; N: less
 * than a column's group, across columns and groups. */
static const struct mm_shape shapes[] = {
    {1, 64, 32}, {5, 100, 300}, {33, 200, 65}, {64, 128, 1100}, {40, 70, 2100},
};
static const char *const partitions[] = {"NPU1", "NPU1Col1", "NPU2", "NPU2Col4"};

/* The inputs of one run and the design's arithmetic on them. */
struct mm_case {
    struct xdna_matmul_plan plan;
    float *a, *w, *c, *want;
    void *b;
};

/* A case of shape s on partition part (bfp16: its BFP16 kernel, whose arithmetic want, the bf16 kernel's, is not)
 * with B as b_type: K rounded up to whole blocks for Q4_0 and Q8_0, whose rows are quantized by GGML's reference and
 * whose reference weights are their dequantized values. */
static void case_make(struct mm_case *t, const char *part, const struct mm_shape *s0, enum vnpu_type b_type,
                      bool bfp16) {
    const struct xdna_device *dev = xdna_device_find(part, strlen(part));
    assert_non_null(dev);
    struct mm_shape sb = *s0;
    const struct vnpu_type_traits *tt = vnpu_type_traits_get(b_type);
    if (b_type != VNPU_TYPE_BF16) {
        sb.K = (sb.K + (uint32_t) tt->blck - 1) / (uint32_t) tt->blck * (uint32_t) tt->blck;
    }
    const struct mm_shape *s = &sb;
    assert_int_equal(xdna_matmul_plan_init(&t->plan, dev, bfp16, b_type, s->M, s->K, s->N), VNPU_STATUS_OK);
    const struct xdna_matmul_plan *p = &t->plan;
    char seed[64];
    snprintf(seed, sizeof(seed), "%s %u %u %u %s", part, s->M, s->K, s->N, tt->name);
    struct test_rng rng;
    test_rng_seed(&rng, seed);
    t->a = calloc((size_t) p->m_pad * p->k_pad, sizeof(float));
    t->w = malloc((size_t) s->N * s->K * sizeof(float));
    t->c = malloc((size_t) p->m_pad * p->n_pad * sizeof(float));
    t->want = malloc((size_t) s->M * s->N * sizeof(float));
    t->b = malloc(xdna_matmul_b_bytes(p));
    assert_true(t->a && t->w && t->c && t->want && t->b);
    for (uint32_t i = 0; i < s->M; i++) {
        test_rng_fill_normal(&rng, t->a + (size_t) i * p->k_pad, s->K, 1.0f);
    }
    test_rng_fill_normal(&rng, t->w, (size_t) s->N * s->K, 1.0f);
    const size_t row_bytes = (size_t) s->K / (size_t) tt->blck * tt->size;
    uint8_t *wq = malloc(row_bytes * s->N);
    assert_non_null(wq);
    if (b_type == VNPU_TYPE_BF16) {
        xdna_matmul_b_clear(p, t->b);
    }
    for (uint32_t o = 0; o < s->N; o++) {
        float *w = t->w + (size_t) o * s->K;
        if (b_type == VNPU_TYPE_BF16) {
            xdna_matmul_pack_b_row(p, o, w, t->b);
        } else {
            tt->from_f32_ref(w, wq + o * row_bytes, s->K);
            tt->to_f32(wq + o * row_bytes, w, s->K);
        }
    }
    if (b_type != VNPU_TYPE_BF16) {
        memset(t->b, 0x5A, xdna_matmul_b_bytes(p)); /* every byte of it the packer's: padding included */
        xdna_matmul_pack_b_blocks(p, wq, row_bytes, t->b);
    }
    free(wq);
    for (uint32_t i = 0; i < s->M; i++) {
        for (uint32_t o = 0; o < s->N; o++) {
            float acc = 0.0f;
            for (uint32_t k = 0; k < s->K; k++) {
                const float x = vnpu_bf16_to_f32(vnpu_f32_to_bf16(t->a[(size_t) i * p->k_pad + k]));
                const float y = vnpu_bf16_to_f32(vnpu_f32_to_bf16(t->w[(size_t) o * s->K + k]));
                acc += x * y;
            }
            t->want[(size_t) i * s->N + o] = acc;
        }
    }
}

static void case_free(struct mm_case *t) {
    free(t->a);
    free(t->w);
    free(t->c);
    free(t->want);
    free(t->b);
}

/* Run the design of t (strict or not) and check C: the reference's bits where it holds data, zero elsewhere. */
static void case_run_check(struct mm_case *t, bool strict, struct xdna_run_stats *stats) {
    const struct xdna_matmul_plan *p = &t->plan;
    struct xdna_matmul *mm = NULL;
    assert_int_equal(xdna_matmul_new(p, strict, &mm), VNPU_STATUS_OK);
    memset(t->c, 0xA5, (size_t) p->m_pad * p->n_pad * sizeof(float));
    assert_int_equal(xdna_matmul_run(mm, t->a, t->b, t->c, stats), VNPU_STATUS_OK);
    for (uint32_t i = 0; i < p->m_pad; i++) {
        for (uint32_t o = 0; o < p->n_pad; o++) {
            const float got = t->c[(size_t) i * p->n_pad + o];
            const float want = i < p->M && o < p->N ? t->want[(size_t) i * p->N + o] : 0.0f;
            if (memcmp(&got, &want, sizeof(got)) != 0) {
                fail_msg("%s %ux%ux%u%s: C[%u][%u] = %a, want %a", p->dev->name, p->M, p->K, p->N,
                         strict ? " strict" : "", i, o, (double) got, (double) want);
            }
        }
    }
    xdna_matmul_free(mm);
}

static const enum vnpu_type b_types[] = {VNPU_TYPE_BF16, VNPU_TYPE_Q4_0, VNPU_TYPE_Q8_0};

static void test_matmul_exact(void **state) {
    (void) state;
    for (size_t bt = 0; bt < sizeof(b_types) / sizeof(b_types[0]); bt++) {
        for (size_t d = 0; d < sizeof(partitions) / sizeof(partitions[0]); d++) {
            for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
                struct mm_case t;
                case_make(&t, partitions[d], &shapes[s], b_types[bt], false);
                case_run_check(&t, false, NULL);
                case_free(&t);
            }
        }
    }
}

/* The BFP16 kernel (its arithmetic is test-xdna-mmul's): B as blocks gives the bits of B dequantized by the host. */
static void test_matmul_blocks_bfp16(void **state) {
    (void) state;
    for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
        for (size_t bt = 1; bt < sizeof(b_types) / sizeof(b_types[0]); bt++) {
            struct mm_case q, h;
            case_make(&q, "NPU2", &shapes[s], b_types[bt], true);
            case_make(&h, "NPU2", &shapes[s], b_types[bt], true); /* the same weights, packed as bf16 */
            const struct xdna_matmul_plan *p = &q.plan;
            struct xdna_matmul_plan hp;
            assert_int_equal(xdna_matmul_plan_init(&hp, p->dev, true, VNPU_TYPE_BF16, p->M, p->K, p->N),
                             VNPU_STATUS_OK);
            free(h.b);
            h.b = malloc(xdna_matmul_b_bytes(&hp));
            assert_non_null(h.b);
            xdna_matmul_b_clear(&hp, h.b);
            for (uint32_t o = 0; o < p->N; o++) {
                xdna_matmul_pack_b_row(&hp, o, h.w + (size_t) o * p->K, h.b);
            }
            struct xdna_matmul *mq, *mh;
            assert_int_equal(xdna_matmul_new(p, false, &mq), VNPU_STATUS_OK);
            assert_int_equal(xdna_matmul_new(&hp, false, &mh), VNPU_STATUS_OK);
            assert_int_equal(xdna_matmul_run(mq, q.a, q.b, q.c, NULL), VNPU_STATUS_OK);
            assert_int_equal(xdna_matmul_run(mh, h.a, h.b, h.c, NULL), VNPU_STATUS_OK);
            assert_memory_equal(q.c, h.c, (size_t) p->m_pad * p->n_pad * sizeof(float));
            xdna_matmul_free(mq);
            xdna_matmul_free(mh);
            case_free(&q);
            case_free(&h);
        }
    }
}

/* Strict mode (poisoned buffers at acquire and release) computes the same C: the design reads only what it holds. */
static void test_matmul_strict(void **state) {
    (void) state;
    for (size_t bt = 0; bt < sizeof(b_types) / sizeof(b_types[0]); bt++) {
        for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
            struct mm_case t;
            case_make(&t, "NPU2Col4", &shapes[s], b_types[bt], false);
            case_run_check(&t, true, NULL);
            case_free(&t);
        }
    }
}

/* What a run counts: every tile's MACs (the whole padded tiles, as the hardware multiplies them), the DDR bytes the
 * shims read (A as f32 once per group, B once per m-tile: 16 bits a weight, 4.5 as Q4_0 blocks, 8.5 as Q8_0) and
 * write (C padded), the kernel calls. */
static void test_matmul_stats(void **state) {
    (void) state;
    for (size_t bt = 0; bt < sizeof(b_types) / sizeof(b_types[0]); bt++) {
        static const double bits[] = {16.0, 4.5, 8.5};
        struct mm_case t;
        case_make(&t, "NPU2", &(struct mm_shape){40, 70, 2100}, b_types[bt], false);
        struct xdna_run_stats st;
        case_run_check(&t, false, &st);
        const struct xdna_matmul_plan *p = &t.plan;
        uint64_t macs = 0, calls = 0;
        for (uint32_t c = 0; c < XDNA_MAX_COLS; c++) {
            for (uint32_t r = XDNA_ROW_COMPUTE0; r < XDNA_ROWS; r++) {
                macs += st.tiles[c][r].macs;
                calls += st.tiles[c][r].kernel_calls;
            }
        }
        const uint64_t groups = (uint64_t) p->groups_per_col * p->n_cols;
        assert_int_equal(macs, (uint64_t) p->m_pad * p->k_pad * p->n_pad);
        /* each worker: per group and m-tile one zero call and kt matmul calls */
        assert_int_equal(calls, groups * XDNA_COMPUTE_ROWS * p->mt * (1 + p->kt));
        const uint64_t a_bytes = groups * p->m_pad * p->k_pad * sizeof(float);
        const uint64_t b_bytes = (uint64_t) llround(p->mt * (double) p->k_pad * p->n_pad * bits[bt] / 8);
        assert_int_equal(st.ddr_read_bytes, a_bytes + b_bytes);
        assert_int_equal(st.ddr_write_bytes, (uint64_t) p->m_pad * p->n_pad * sizeof(float));
        case_free(&t);
    }
}

/* The plan's shapes: m for a short batch is the least multiple of 2 r holding it; padding to tiles and groups; the
 * columns used no more than the groups. */
static void test_matmul_plan(void **state) {
    (void) state;
    const struct xdna_device *npu1 = xdna_device_find("NPU1", 4), *npu2 = xdna_device_find("NPU2", 4);
    struct xdna_matmul_plan p;
    assert_int_equal(xdna_matmul_plan_init(&p, npu1, false, VNPU_TYPE_BF16, 1, 100, 300), VNPU_STATUS_OK);
    assert_int_equal(p.kernel.m, 8); /* 2 x r, r = 4 (bf16 4x8x4) */
    assert_int_equal(p.m_pad, 8);
    assert_int_equal(p.k_pad, 128);
    assert_int_equal(p.n_cols, 2); /* 300 columns: 2 groups of 4 x 64 */
    assert_int_equal(p.n_pad, 512);
    assert_int_equal(xdna_matmul_plan_init(&p, npu2, true, VNPU_TYPE_BF16, 9, 64, 64), VNPU_STATUS_OK);
    assert_int_equal(p.kernel.base.mac_dims[0], 8); /* BFP16 8x8x8 */
    assert_int_equal(p.kernel.m, 16);
    assert_int_equal(xdna_matmul_plan_init(&p, npu2, false, VNPU_TYPE_BF16, 100, 64, 64), VNPU_STATUS_OK);
    assert_int_equal(p.kernel.m, XDNA_MM_TILE_M);
    assert_int_equal(p.m_pad, 128);
    assert_int_equal(p.mt, 4);
    assert_int_equal(xdna_matmul_plan_init(&p, npu2, false, VNPU_TYPE_BF16, 0, 64, 64), VNPU_STATUS_BAD_ARG);
    assert_int_equal(xdna_matmul_plan_init(&p, npu2, false, VNPU_TYPE_BF16, 1, XDNA_MM_MAX_DIM + 1, 64),
                     VNPU_STATUS_BAD_ARG);
    assert_int_equal(xdna_matmul_plan_init(&p, npu1, true, VNPU_TYPE_BF16, 1, 64, 64),
                     VNPU_STATUS_BAD_ARG); /* BFP16 is AIE2P's */
    /* B as blocks: a K of whole blocks, of Q4_0 or Q8_0; the kernel that dequantizes them, its tile's bytes */
    assert_int_equal(xdna_matmul_plan_init(&p, npu2, false, VNPU_TYPE_Q4_0, 3, 96, 64), VNPU_STATUS_OK);
    assert_true(p.kernel.dequant && p.kernel.b_type == VNPU_TYPE_Q4_0);
    assert_string_equal(p.kernel.base.name, "mm_q4_0_bf16_f32_4x8x8");
    assert_int_equal(p.b_tile_bytes, 2 * 64 * 18);                  /* 2 blocks of k for each of 64 columns */
    assert_int_equal(xdna_matmul_b_bytes(&p), 2 * 4 * 2 * 64 * 18); /* k_pad 128: 2 k-tiles of a group's 4 tiles */
    assert_int_equal(xdna_matmul_plan_init(&p, npu1, false, VNPU_TYPE_Q8_0, 3, 64, 64), VNPU_STATUS_OK);
    assert_string_equal(p.kernel.base.name, "mm_q8_0_bf16_f32_4x8x4");
    assert_int_equal(p.b_tile_bytes, 2 * 64 * 34);
    assert_int_equal(xdna_matmul_plan_init(&p, npu2, false, VNPU_TYPE_Q4_0, 3, 100, 64), VNPU_STATUS_BAD_ARG);
    assert_false(xdna_matmul_fits(npu2, false, VNPU_TYPE_Q4_0, 3, 100, 64));
    assert_int_equal(xdna_matmul_plan_init(&p, npu2, false, VNPU_TYPE_Q4_K, 3, 256, 64), VNPU_STATUS_BAD_ARG);
    assert_int_equal(xdna_matmul_plan_init(&p, npu2, false, VNPU_TYPE_F32, 3, 64, 64), VNPU_STATUS_BAD_ARG);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matmul_plan),   cmocka_unit_test(test_matmul_exact),
        cmocka_unit_test(test_matmul_strict), cmocka_unit_test(test_matmul_blocks_bfp16),
        cmocka_unit_test(test_matmul_stats),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
