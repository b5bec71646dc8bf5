/*
 * CPU device: GET_ROWS (every type the traits table dequantizes), SET_ROWS (every type it quantizes,
 * I32 and I64 indices), CPY and CONT (F32, F16, BF16, any strides either side).
 *
 * GET_ROWS must give exactly the type's to_f32 of the picked rows; SET_ROWS exactly the type's
 * from_f32_ref bytes in the named rows and the old bytes everywhere else; CPY and CONT exactly the
 * source values rounded to the destination type, in row-major order.
 */
#include "op-test.h"

#include "fp16.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const layout_names[] = {"0", "1", "2", "3"};

/* ---- GET_ROWS ---- */

struct get_rows_case {
    int64_t k;      /* row length = k * the type's block size */
    int64_t n_rows; /* rows of a */
    int64_t n_idx;  /* indices per (i2, i3) */
    int64_t ne2;
    int64_t ne3;
    enum op_layout view; /* layout of a: CONT, VIEW or PERM */
};

static const struct get_rows_case get_rows_cases[] = {
    {.k = 3, .n_rows = 7, .n_idx = 5, .ne2 = 1, .ne3 = 1},
    {.k = 1, .n_rows = 1, .n_idx = 1, .ne2 = 1, .ne3 = 1},
    {.k = 2, .n_rows = 33, .n_idx = 9, .ne2 = 3, .ne3 = 2, .view = OP_LAYOUT_VIEW},
    {.k = 2, .n_rows = 5, .n_idx = 8, .ne2 = 4, .ne3 = 1, .view = OP_LAYOUT_PERM},
};

static void test_get_rows(void **state) {
    (void) state;
    enum vnpu_type types[VNPU_TYPE_COUNT];
    const int n_types = op_test_types_with_to_f32(types, VNPU_TYPE_COUNT);
    int n_cases = 0;
    for (int ty = 0; ty < n_types; ty++) {
        const struct vnpu_type_traits *tt = vnpu_type_traits_get(types[ty]);
        for (size_t c = 0; c < sizeof(get_rows_cases) / sizeof(get_rows_cases[0]); c++) {
            const struct get_rows_case *gc = &get_rows_cases[c];
            const int64_t K = gc->k * tt->blck;
            struct op_test t;
            op_test_begin(&t, "GET_ROWS(type=%s,n=%lld,m=%lld,r=%lld,b=[%lld,%lld],view=%s)", tt->name, (long long) K,
                          (long long) gc->n_rows, (long long) gc->n_idx, (long long) gc->ne2, (long long) gc->ne3,
                          layout_names[gc->view]);
            const int64_t ne_a[4] = {K, gc->n_rows, gc->ne2, gc->ne3};
            const int64_t ne_b[4] = {gc->n_idx, gc->ne2, gc->ne3, 1};
            struct vnpu_tensor *a = op_test_input(&t, types[ty], ne_a, gc->view);
            struct vnpu_tensor *b = op_test_leaf(&t, VNPU_TYPE_I32, ne_b);
            for (int64_t i = 0; i < vnpu_nelements(b); i++) {
                op_test_set(b, i, 0, 0, 0, (double) (test_rng_next(&t.rng) % (uint64_t) gc->n_rows));
            }
            struct vnpu_tensor *out = vnpu_get_rows(t.ctx, a, b);
            double *ref = op_test_ref(&t, vnpu_nelements(out));
            float *row = malloc((size_t) K * sizeof(float));
            assert_non_null(row);
            int64_t k = 0;
            for (int64_t i3 = 0; i3 < gc->ne3; i3++) {
                for (int64_t i2 = 0; i2 < gc->ne2; i2++) {
                    for (int64_t i1 = 0; i1 < gc->n_idx; i1++) {
                        const int64_t r = (int64_t) op_test_get(b, i1, i2, i3, 0);
                        tt->to_f32((const char *) a->data + r * (int64_t) a->nb[1] + i2 * (int64_t) a->nb[2] +
                                       i3 * (int64_t) a->nb[3],
                                   row, K);
                        for (int64_t i0 = 0; i0 < K; i0++) {
                            ref[k++] = row[i0];
                        }
                    }
                }
            }
            free(row);
            op_test_compute(&t, out);
            op_test_check(&t, out, ref, 0.0);
            op_test_end(&t);
            n_cases++;
        }
    }
    printf("GET_ROWS: %d cases over %d types\n", n_cases, n_types);
}

/* ---- SET_ROWS ---- */

struct set_rows_case {
    int64_t k;      /* row length = k * the destination type's block size */
    int64_t n_rows; /* rows of the destination */
    int64_t n_set;  /* rows written per (i2, i3) */
    int64_t ne2;
    int64_t ne3;
    int64_t c_ne1;           /* index rows: ne2 or 1 (broadcast) */
    enum vnpu_type idx_type; /* I32 or I64 */
    enum op_layout view;     /* layout of the destination: CONT or VIEW */
};

static const struct set_rows_case set_rows_cases[] = {
    {.k = 2, .n_rows = 9, .n_set = 3, .ne2 = 1, .ne3 = 1, .c_ne1 = 1, .idx_type = VNPU_TYPE_I64},
    {.k = 1, .n_rows = 1, .n_set = 1, .ne2 = 1, .ne3 = 1, .c_ne1 = 1, .idx_type = VNPU_TYPE_I32},
    {.k = 3, .n_rows = 33, .n_set = 7, .ne2 = 4, .ne3 = 2, .c_ne1 = 4, .idx_type = VNPU_TYPE_I32},
    {.k = 2,
     .n_rows = 16,
     .n_set = 5,
     .ne2 = 3,
     .ne3 = 1,
     .c_ne1 = 1,
     .idx_type = VNPU_TYPE_I64,
     .view = OP_LAYOUT_VIEW},
};

static void test_set_rows(void **state) {
    (void) state;
    int n_cases = 0;
    for (uint32_t ty = 0; ty < VNPU_TYPE_COUNT; ty++) {
        const struct vnpu_type_traits *tt = vnpu_type_traits_get((enum vnpu_type) ty);
        if (!vnpu_type_is_valid(ty) || !tt->from_f32_ref || !tt->to_f32) {
            continue;
        }
        for (size_t c = 0; c < sizeof(set_rows_cases) / sizeof(set_rows_cases[0]); c++) {
            const struct set_rows_case *sc = &set_rows_cases[c];
            const int64_t K = sc->k * tt->blck;
            struct op_test t;
            op_test_begin(&t, "SET_ROWS(type=%s,type_idx=%s,ne=[%lld,%lld,%lld,%lld],nr23=[%lld,1],r=%lld,view=%s)",
                          tt->name, vnpu_type_name(sc->idx_type), (long long) K, (long long) sc->n_rows,
                          (long long) sc->ne2, (long long) sc->ne3, (long long) (sc->ne2 / sc->c_ne1),
                          (long long) sc->n_set, layout_names[sc->view]);
            const int64_t ne_a[4] = {K, sc->n_rows, sc->ne2, sc->ne3};
            const int64_t ne_b[4] = {K, sc->n_set, sc->ne2, sc->ne3};
            const int64_t ne_c[4] = {sc->n_set, sc->c_ne1, sc->ne3, 1};
            struct vnpu_tensor *a = op_test_input(&t, (enum vnpu_type) ty, ne_a, sc->view);
            struct vnpu_tensor *b = op_test_input(&t, VNPU_TYPE_F32, ne_b, OP_LAYOUT_CONT);
            struct vnpu_tensor *idx = op_test_leaf(&t, sc->idx_type, ne_c);
            for (int64_t i3 = 0; i3 < sc->ne3; i3++) { /* distinct rows: a shuffled prefix of 0..n_rows-1 */
                for (int64_t i2 = 0; i2 < sc->c_ne1; i2++) {
                    const int64_t start = (int64_t) (test_rng_next(&t.rng) % (uint64_t) sc->n_rows);
                    for (int64_t i = 0; i < sc->n_set; i++) {
                        op_test_set(idx, i, i2, i3, 0, (double) ((start + 5 * i) % sc->n_rows));
                    }
                }
            }
            assert_true(sc->n_rows == 1 || sc->n_rows % 5 != 0); /* 5 * i mod n_rows stays distinct */
            struct vnpu_tensor *out = vnpu_set_rows(t.ctx, a, b, idx);
            assert_ptr_equal(out->view_src, a->view_src ? a->view_src : a);

            /* Expected bytes of a's whole memory: old everywhere, the quantized b rows where named. */
            const struct vnpu_tensor *root = a->view_src ? a->view_src : a;
            const size_t size = vnpu_nbytes(root);
            char *expect = malloc(size);
            assert_non_null(expect);
            memcpy(expect, root->data, size);
            const size_t offs = (size_t) ((const char *) a->data - (const char *) root->data);
            for (int64_t i3 = 0; i3 < sc->ne3; i3++) {
                for (int64_t i2 = 0; i2 < sc->ne2; i2++) {
                    for (int64_t i = 0; i < sc->n_set; i++) {
                        const int64_t r = (int64_t) op_test_get(idx, i, i2 % sc->c_ne1, i3, 0);
                        const float *src = (const float *) ((const char *) b->data + i * (int64_t) b->nb[1] +
                                                            i2 * (int64_t) b->nb[2] + i3 * (int64_t) b->nb[3]);
                        tt->from_f32_ref(src,
                                         expect + offs + r * (int64_t) a->nb[1] + i2 * (int64_t) a->nb[2] +
                                             i3 * (int64_t) a->nb[3],
                                         K);
                    }
                }
            }
            op_test_compute(&t, out);
            if (memcmp(expect, root->data, size) != 0) {
                free(expect);
                fail_msg("%s: destination bytes differ from the expected rows", t.name);
            }
            free(expect);
            op_test_end(&t);
            n_cases++;
        }
    }
    printf("SET_ROWS: %d cases\n", n_cases);
}

/* ---- CPY and CONT ---- */

/* v rounded to type (F32, F16 or BF16). */
static double round_to(enum vnpu_type type, double v) {
    if (type == VNPU_TYPE_F16) {
        return vnpu_fp16_to_f32(vnpu_f32_to_fp16((float) v));
    }
    if (type == VNPU_TYPE_BF16) {
        return vnpu_bf16_to_f32(vnpu_f32_to_bf16((float) v));
    }
    return (float) v;
}

/* Every element of x in row-major order, as doubles. */
static void read_row_major(const struct vnpu_tensor *x, double *v) {
    int64_t k = 0;
    for (int64_t i3 = 0; i3 < x->ne[3]; i3++) {
        for (int64_t i2 = 0; i2 < x->ne[2]; i2++) {
            for (int64_t i1 = 0; i1 < x->ne[1]; i1++) {
                for (int64_t i0 = 0; i0 < x->ne[0]; i0++) {
                    v[k++] = op_test_get(x, i0, i1, i2, i3);
                }
            }
        }
    }
}

struct cpy_case {
    int64_t ne_src[4];
    enum op_layout view_src;
    int64_t ne_dst[4]; /* the same element count, any shape */
    enum op_layout view_dst;
};

static const struct cpy_case cpy_cases[] = {
    {.ne_src = {5, 7, 11, 13}, .ne_dst = {5, 7, 11, 13}},
    {.ne_src = {5, 7, 11, 13}, .view_src = OP_LAYOUT_TRANS, .ne_dst = {35, 11, 13, 1}, .view_dst = OP_LAYOUT_VIEW},
    {.ne_src = {6, 4, 3, 2}, .view_src = OP_LAYOUT_PERM, .ne_dst = {6, 4, 3, 2}, .view_dst = OP_LAYOUT_TRANS},
    {.ne_src = {64, 3, 5, 1}, .view_src = OP_LAYOUT_VIEW, .ne_dst = {32, 30, 1, 1}, .view_dst = OP_LAYOUT_PERM},
    {.ne_src = {1, 1, 1, 1}, .ne_dst = {1, 1, 1, 1}},
};

static const enum vnpu_type float_types[] = {VNPU_TYPE_F32, VNPU_TYPE_F16, VNPU_TYPE_BF16};

static void test_cpy(void **state) {
    (void) state;
    int n_cases = 0;
    for (size_t c = 0; c < sizeof(cpy_cases) / sizeof(cpy_cases[0]); c++) {
        const struct cpy_case *cc = &cpy_cases[c];
        for (int ts = 0; ts < 3; ts++) {
            for (int td = 0; td < 3; td++) {
                struct op_test t;
                op_test_begin(&t,
                              "CPY(type_src=%s,type_dst=%s,ne=[%lld,%lld,%lld,%lld],view_src=%s,"
                              "ne_dst=[%lld,%lld,%lld,%lld],view_dst=%s)",
                              vnpu_type_name(float_types[ts]), vnpu_type_name(float_types[td]),
                              (long long) cc->ne_src[0], (long long) cc->ne_src[1], (long long) cc->ne_src[2],
                              (long long) cc->ne_src[3], layout_names[cc->view_src], (long long) cc->ne_dst[0],
                              (long long) cc->ne_dst[1], (long long) cc->ne_dst[2], (long long) cc->ne_dst[3],
                              layout_names[cc->view_dst]);
                struct vnpu_tensor *a = op_test_input(&t, float_types[ts], cc->ne_src, cc->view_src);
                struct vnpu_tensor *b = op_test_input(&t, float_types[td], cc->ne_dst, cc->view_dst);
                struct vnpu_tensor *out = vnpu_cpy(t.ctx, a, b);
                const int64_t n = vnpu_nelements(a);
                double *ref = op_test_ref(&t, n);
                read_row_major(a, ref);
                for (int64_t i = 0; i < n; i++) {
                    ref[i] = round_to(float_types[td], ref[i]);
                }
                op_test_compute(&t, out);
                op_test_check(&t, out, ref, 0.0);
                op_test_end(&t);
                n_cases++;
            }
        }
    }
    printf("CPY: %d cases\n", n_cases);
}

struct cont_case {
    int64_t ne[4];
    enum op_layout view;
};

static const struct cont_case cont_cases[] = {
    {.ne = {5, 7, 11, 13}, .view = OP_LAYOUT_VIEW},
    {.ne = {5, 7, 11, 13}, .view = OP_LAYOUT_TRANS},
    {.ne = {64, 9, 4, 1}, .view = OP_LAYOUT_PERM},
    {.ne = {3, 1, 1, 1}, .view = OP_LAYOUT_CONT},
};

static void test_cont(void **state) {
    (void) state;
    for (size_t c = 0; c < sizeof(cont_cases) / sizeof(cont_cases[0]); c++) {
        const struct cont_case *cc = &cont_cases[c];
        for (int ty = 0; ty < 3; ty++) {
            struct op_test t;
            op_test_begin(&t, "CONT(type=%s,ne=[%lld,%lld,%lld,%lld],view=%s)", vnpu_type_name(float_types[ty]),
                          (long long) cc->ne[0], (long long) cc->ne[1], (long long) cc->ne[2], (long long) cc->ne[3],
                          layout_names[cc->view]);
            struct vnpu_tensor *a = op_test_input(&t, float_types[ty], cc->ne, cc->view);
            struct vnpu_tensor *out = vnpu_cont(t.ctx, a);
            assert_true(vnpu_is_contiguous(out) && out->type == a->type && vnpu_are_same_shape(out, a));
            double *ref = op_test_ref(&t, vnpu_nelements(a));
            read_row_major(a, ref);
            op_test_compute(&t, out);
            op_test_check(&t, out, ref, 0.0);
            op_test_end(&t);
        }
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_get_rows),
        cmocka_unit_test(test_set_rows),
        cmocka_unit_test(test_cpy),
        cmocka_unit_test(test_cont),
    };
    return cmocka_run_group_tests(tests, NULL, op_test_teardown);
}
