/*
 * CPU device: ADD, SUB, MUL, DIV, SCALE, RMS_NORM, UNARY and GLU against double-precision references.
 *
 * Shapes are odd, single rows and llama-sized rows; inputs contiguous, views with padded rows, permuted
 * (rows dense) and transposed (elements strided); b broadcast over every dimension; in place where GGML
 * allows it (dst sharing a's memory). Every case also runs on 1, 2 and 3 threads with bitwise-identical
 * results and fenced memory (op-test.h).
 */
#include "op-test.h"

#include <math.h>
#include <stdio.h>

static const char *const layout_names[] = {"0", "1", "2", "3"};

/* ---- ADD, SUB, MUL, DIV ---- */

struct binary_case {
    int64_t ne[4];       /* a and dst */
    int64_t nr[4];       /* b->ne[i] = ne[i] / nr[i]: repeats of b along each dimension */
    enum op_layout view; /* layout of a */
    bool inplace;        /* dst in a's memory (a contiguous) */
};

static const struct binary_case binary_cases[] = {
    {.ne = {5, 7, 11, 13}, .nr = {1, 1, 1, 1}, .view = OP_LAYOUT_CONT},
    {.ne = {5, 7, 11, 13}, .nr = {1, 7, 1, 13}, .view = OP_LAYOUT_VIEW},
    {.ne = {5, 7, 11, 13}, .nr = {5, 1, 11, 1}, .view = OP_LAYOUT_TRANS},
    {.ne = {33, 3, 2, 1}, .nr = {1, 3, 2, 1}, .view = OP_LAYOUT_PERM},
    {.ne = {64, 1, 1, 1}, .nr = {1, 1, 1, 1}, .view = OP_LAYOUT_CONT, .inplace = true},
    {.ne = {4096, 2, 1, 1}, .nr = {1, 2, 1, 1}, .view = OP_LAYOUT_CONT, .inplace = true},
    {.ne = {7, 31, 1, 1}, .nr = {7, 1, 1, 1}, .view = OP_LAYOUT_TRANS},
};

static double binary_ref(enum vnpu_op op, double x, double y) {
    return op == VNPU_OP_ADD ? x + y : op == VNPU_OP_SUB ? x - y : op == VNPU_OP_MUL ? x * y : x / y;
}

static void test_binary(void **state) {
    (void) state;
    static const enum vnpu_op ops[] = {VNPU_OP_ADD, VNPU_OP_SUB, VNPU_OP_MUL, VNPU_OP_DIV};
    static const enum vnpu_type types[] = {VNPU_TYPE_F32, VNPU_TYPE_F16};
    int n_cases = 0;
    for (size_t c = 0; c < sizeof(binary_cases) / sizeof(binary_cases[0]); c++) {
        const struct binary_case *bc = &binary_cases[c];
        for (size_t o = 0; o < 4; o++) {
            for (size_t ty = 0; ty < 2; ty++) {
                struct op_test t;
                op_test_begin(&t, "%s(type=%s,ne=[%lld,%lld,%lld,%lld],nr=[%lld,%lld,%lld,%lld],view=%s,inplace=%d)",
                              vnpu_op_name(ops[o]), vnpu_type_name(types[ty]), (long long) bc->ne[0],
                              (long long) bc->ne[1], (long long) bc->ne[2], (long long) bc->ne[3],
                              (long long) bc->nr[0], (long long) bc->nr[1], (long long) bc->nr[2],
                              (long long) bc->nr[3], layout_names[bc->view], bc->inplace);
                const int64_t bne[4] = {bc->ne[0] / bc->nr[0], bc->ne[1] / bc->nr[1], bc->ne[2] / bc->nr[2],
                                        bc->ne[3] / bc->nr[3]};
                struct vnpu_tensor *a = op_test_input(&t, types[ty], bc->ne, bc->view);
                struct vnpu_tensor *b = op_test_input(&t, types[ty], bne, OP_LAYOUT_CONT);
                if (ops[o] == VNPU_OP_DIV) { /* divisors away from zero: |b| >= 0.5 */
                    for (int64_t i = 0; i < vnpu_nelements(b); i++) {
                        const double v = op_test_get(b, i, 0, 0, 0);
                        op_test_set(b, i, 0, 0, 0, v < 0 ? v - 0.5 : v + 0.5);
                    }
                }
                struct vnpu_tensor *out = ops[o] == VNPU_OP_ADD   ? vnpu_add(t.ctx, a, b)
                                          : ops[o] == VNPU_OP_SUB ? vnpu_sub(t.ctx, a, b)
                                          : ops[o] == VNPU_OP_MUL ? vnpu_mul(t.ctx, a, b)
                                                                  : vnpu_div(t.ctx, a, b);
                double *ref = op_test_ref(&t, vnpu_nelements(out));
                int64_t k = 0;
                for (int64_t i3 = 0; i3 < bc->ne[3]; i3++) {
                    for (int64_t i2 = 0; i2 < bc->ne[2]; i2++) {
                        for (int64_t i1 = 0; i1 < bc->ne[1]; i1++) {
                            for (int64_t i0 = 0; i0 < bc->ne[0]; i0++) {
                                const double x = op_test_get(a, i0, i1, i2, i3);
                                const double y = op_test_get(b, i0 % bne[0], i1 % bne[1], i2 % bne[2], i3 % bne[3]);
                                ref[k++] = binary_ref(ops[o], x, y);
                            }
                        }
                    }
                }
                if (bc->inplace) {
                    assert_true(bc->view == OP_LAYOUT_CONT);
                    out->data = a->data;
                }
                op_test_compute(&t, out);
                op_test_check(&t, out, ref, types[ty] == VNPU_TYPE_F32 ? 1e-12 : 1e-6);
                op_test_end(&t);
                n_cases++;
            }
        }
    }
    printf("binary: %d cases\n", n_cases);
}

/* ---- SCALE ---- */

struct scale_case {
    int64_t ne[4];
    enum op_layout view;
    bool inplace;
    float s;
    float b;
};

static const struct scale_case scale_cases[] = {
    {.ne = {5, 7, 11, 13}, .view = OP_LAYOUT_CONT, .s = 0.125f},
    {.ne = {5, 7, 11, 13}, .view = OP_LAYOUT_VIEW, .s = -3.0f, .b = 0.5f},
    {.ne = {9, 4, 3, 1}, .view = OP_LAYOUT_TRANS, .s = 1.7f, .b = -2.25f},
    {.ne = {128, 1, 1, 1}, .view = OP_LAYOUT_CONT, .inplace = true, .s = 0.0883883f},
};

static void test_scale(void **state) {
    (void) state;
    for (size_t c = 0; c < sizeof(scale_cases) / sizeof(scale_cases[0]); c++) {
        const struct scale_case *sc = &scale_cases[c];
        struct op_test t;
        op_test_begin(&t, "SCALE(type=f32,ne=[%lld,%lld,%lld,%lld],view=%s,inplace=%d,s=%g,b=%g)",
                      (long long) sc->ne[0], (long long) sc->ne[1], (long long) sc->ne[2], (long long) sc->ne[3],
                      layout_names[sc->view], sc->inplace, sc->s, sc->b);
        struct vnpu_tensor *a = op_test_input(&t, VNPU_TYPE_F32, sc->ne, sc->view);
        struct vnpu_tensor *out = vnpu_scale_bias(t.ctx, a, sc->s, sc->b);
        double *ref = op_test_ref(&t, vnpu_nelements(out));
        int64_t k = 0;
        for (int64_t i3 = 0; i3 < sc->ne[3]; i3++) {
            for (int64_t i2 = 0; i2 < sc->ne[2]; i2++) {
                for (int64_t i1 = 0; i1 < sc->ne[1]; i1++) {
                    for (int64_t i0 = 0; i0 < sc->ne[0]; i0++) {
                        ref[k++] = op_test_get(a, i0, i1, i2, i3) * (double) sc->s + (double) sc->b;
                    }
                }
            }
        }
        if (sc->inplace) {
            out->data = a->data;
        }
        op_test_compute(&t, out);
        op_test_check(&t, out, ref, 1e-12);
        op_test_end(&t);
    }
}

/* ---- RMS_NORM ---- */

struct rms_norm_case {
    int64_t ne[4];
    enum op_layout view;
    bool inplace;
    float eps;
};

static const struct rms_norm_case rms_norm_cases[] = {
    {.ne = {5, 7, 11, 13}, .view = OP_LAYOUT_CONT, .eps = 1e-5f},
    {.ne = {5, 7, 11, 13}, .view = OP_LAYOUT_VIEW, .eps = 1e-6f},
    {.ne = {64, 5, 3, 1}, .view = OP_LAYOUT_PERM, .eps = 1e-5f},
    {.ne = {17, 3, 1, 1}, .view = OP_LAYOUT_TRANS, .eps = 1e-5f},
    {.ne = {4096, 1, 1, 1}, .view = OP_LAYOUT_CONT, .inplace = true, .eps = 1e-5f},
    {.ne = {1, 33, 1, 1}, .view = OP_LAYOUT_CONT, .eps = 1e-2f},
};

static void test_rms_norm(void **state) {
    (void) state;
    for (size_t c = 0; c < sizeof(rms_norm_cases) / sizeof(rms_norm_cases[0]); c++) {
        const struct rms_norm_case *rc = &rms_norm_cases[c];
        struct op_test t;
        op_test_begin(&t, "RMS_NORM(type=f32,ne=[%lld,%lld,%lld,%lld],view=%s,inplace=%d,eps=%g)",
                      (long long) rc->ne[0], (long long) rc->ne[1], (long long) rc->ne[2], (long long) rc->ne[3],
                      layout_names[rc->view], rc->inplace, rc->eps);
        struct vnpu_tensor *a = op_test_input(&t, VNPU_TYPE_F32, rc->ne, rc->view);
        struct vnpu_tensor *out = vnpu_rms_norm(t.ctx, a, rc->eps);
        double *ref = op_test_ref(&t, vnpu_nelements(out));
        int64_t k = 0;
        for (int64_t i3 = 0; i3 < rc->ne[3]; i3++) {
            for (int64_t i2 = 0; i2 < rc->ne[2]; i2++) {
                for (int64_t i1 = 0; i1 < rc->ne[1]; i1++) {
                    double ss = 0.0;
                    for (int64_t i0 = 0; i0 < rc->ne[0]; i0++) {
                        ss += op_test_get(a, i0, i1, i2, i3) * op_test_get(a, i0, i1, i2, i3);
                    }
                    const double rms = sqrt(ss / (double) rc->ne[0] + (double) rc->eps);
                    for (int64_t i0 = 0; i0 < rc->ne[0]; i0++) {
                        ref[k++] = op_test_get(a, i0, i1, i2, i3) / rms;
                    }
                }
            }
        }
        if (rc->inplace) {
            out->data = a->data;
        }
        op_test_compute(&t, out);
        op_test_check(&t, out, ref, 1e-12);
        op_test_end(&t);
    }
}

/* ---- UNARY and GLU ---- */

static double ref_silu(double x) {
    return x * (1.0 / (1.0 + exp(-x)));
}

static double ref_gelu(double x) {
    const double c = 0.7978845608028654; /* sqrt(2 / pi) */
    return 0.5 * x * (1.0 + tanh(c * (x + 0.044715 * x * x * x)));
}

struct act_case {
    int64_t ne[4];
    enum op_layout view;
    bool inplace;
};

static const struct act_case act_cases[] = {
    {.ne = {5, 7, 11, 13}, .view = OP_LAYOUT_CONT},
    {.ne = {5, 7, 11, 13}, .view = OP_LAYOUT_VIEW},
    {.ne = {7, 9, 2, 1}, .view = OP_LAYOUT_TRANS},
    {.ne = {32, 2, 3, 1}, .view = OP_LAYOUT_PERM},
    {.ne = {11008, 1, 1, 1}, .view = OP_LAYOUT_CONT, .inplace = true},
};

static void test_unary(void **state) {
    (void) state;
    for (int op = 0; op < VNPU_UNARY_OP_COUNT; op++) {
        for (size_t c = 0; c < sizeof(act_cases) / sizeof(act_cases[0]); c++) {
            const struct act_case *ac = &act_cases[c];
            struct op_test t;
            op_test_begin(&t, "%s(type=f32,ne=[%lld,%lld,%lld,%lld],view=%s,inplace=%d)",
                          vnpu_unary_op_name((enum vnpu_unary_op) op), (long long) ac->ne[0], (long long) ac->ne[1],
                          (long long) ac->ne[2], (long long) ac->ne[3], layout_names[ac->view], ac->inplace);
            struct vnpu_tensor *a = op_test_input(&t, VNPU_TYPE_F32, ac->ne, ac->view);
            struct vnpu_tensor *out = vnpu_unary(t.ctx, a, (enum vnpu_unary_op) op);
            assert_string_equal(vnpu_op_desc(out), vnpu_unary_op_name((enum vnpu_unary_op) op));
            double *ref = op_test_ref(&t, vnpu_nelements(out));
            int64_t k = 0;
            for (int64_t i3 = 0; i3 < ac->ne[3]; i3++) {
                for (int64_t i2 = 0; i2 < ac->ne[2]; i2++) {
                    for (int64_t i1 = 0; i1 < ac->ne[1]; i1++) {
                        for (int64_t i0 = 0; i0 < ac->ne[0]; i0++) {
                            const double x = 4.0 * op_test_get(a, i0, i1, i2, i3);
                            op_test_set(a, i0, i1, i2, i3, x); /* a wider range than N(0, 1) */
                            ref[k++] = op == VNPU_UNARY_OP_SILU ? ref_silu(x) : ref_gelu(x);
                        }
                    }
                }
            }
            if (ac->inplace) {
                out->data = a->data;
            }
            op_test_compute(&t, out);
            op_test_check(&t, out, ref, 1e-12);
            op_test_end(&t);
        }
    }
}

static void test_glu(void **state) {
    (void) state;
    for (int op = 0; op < VNPU_GLU_OP_COUNT; op++) {
        for (size_t c = 0; c < sizeof(act_cases) / sizeof(act_cases[0]); c++) {
            const struct act_case *ac = &act_cases[c];
            struct op_test t;
            op_test_begin(&t, "%s(type=f32,ne=[%lld,%lld,%lld,%lld],view=%s)", vnpu_glu_op_name((enum vnpu_glu_op) op),
                          (long long) ac->ne[0], (long long) ac->ne[1], (long long) ac->ne[2], (long long) ac->ne[3],
                          layout_names[ac->view]);
            struct vnpu_tensor *a = op_test_input(&t, VNPU_TYPE_F32, ac->ne, ac->view);
            struct vnpu_tensor *b = op_test_input(&t, VNPU_TYPE_F32, ac->ne, OP_LAYOUT_CONT);
            struct vnpu_tensor *out = vnpu_glu_split(t.ctx, a, b, (enum vnpu_glu_op) op);
            assert_string_equal(vnpu_op_desc(out), vnpu_glu_op_name((enum vnpu_glu_op) op));
            double *ref = op_test_ref(&t, vnpu_nelements(out));
            int64_t k = 0;
            for (int64_t i3 = 0; i3 < ac->ne[3]; i3++) {
                for (int64_t i2 = 0; i2 < ac->ne[2]; i2++) {
                    for (int64_t i1 = 0; i1 < ac->ne[1]; i1++) {
                        for (int64_t i0 = 0; i0 < ac->ne[0]; i0++) {
                            const double x = op_test_get(a, i0, i1, i2, i3);
                            const double g = op_test_get(b, i0, i1, i2, i3);
                            ref[k++] = (op == VNPU_GLU_OP_SWIGLU ? ref_silu(x) : ref_gelu(x)) * g;
                        }
                    }
                }
            }
            op_test_compute(&t, out);
            op_test_check(&t, out, ref, 1e-12);
            op_test_end(&t);
        }
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_binary), cmocka_unit_test(test_scale), cmocka_unit_test(test_rms_norm),
        cmocka_unit_test(test_unary),  cmocka_unit_test(test_glu),
    };
    return cmocka_run_group_tests(tests, NULL, op_test_teardown);
}
