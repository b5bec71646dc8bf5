/*
 * CPU device: MUL_MAT and MUL_MAT_ID for every type the traits table can dequantize, against a reference
 * that dequantizes src0 rows with the type's to_f32 and takes double dot products.
 *
 * The types come from the table (to_f32 != NULL), so a type that gains its dequantizer is covered with
 * no new code. K is a multiple of each type's block; M is odd and not a multiple of 32; N = 1 (decode)
 * and more; src0 broadcast over src1's dims 2 and 3; src1 contiguous, a padded view, permuted and
 * transposed; src0 a padded view and permuted.
 */
#include "op-test.h"

#include <stdio.h>
#include <stdlib.h>

static const char *const layout_names[] = {"0", "1", "2", "3"};

/* Row (i1, i2, i3) of x dequantized into row (x->ne[0] floats). */
static void ref_dequant_row(const struct vnpu_tensor *x, int64_t i1, int64_t i2, int64_t i3, float *row) {
    const char *p =
        (const char *) x->data + i1 * (int64_t) x->nb[1] + i2 * (int64_t) x->nb[2] + i3 * (int64_t) x->nb[3];
    vnpu_type_traits_get(x->type)->to_f32(p, row, x->ne[0]);
}

struct mul_mat_case {
    int64_t k;             /* K = k * the type's block size */
    int64_t m;             /* rows of src0 */
    int64_t n;             /* rows of src1 */
    int64_t bs[2];         /* src0 ne2, ne3 */
    int64_t nr[2];         /* src1 ne2, ne3 = bs * nr: src0 broadcast */
    enum op_layout view_a; /* CONT, VIEW or PERM (src0 rows stay dense) */
    enum op_layout view_b;
};

static const struct mul_mat_case mul_mat_cases[] = {
    {.k = 7, .m = 5, .n = 3, .bs = {1, 1}, .nr = {1, 1}},
    {.k = 2, .m = 33, .n = 1, .bs = {1, 1}, .nr = {1, 1}},
    {.k = 1, .m = 1, .n = 1, .bs = {1, 1}, .nr = {1, 1}},
    {.k = 4, .m = 16, .n = 9, .bs = {2, 3}, .nr = {2, 1}, .view_b = OP_LAYOUT_PERM},
    {.k = 3, .m = 7, .n = 5, .bs = {3, 1}, .nr = {1, 2}, .view_a = OP_LAYOUT_VIEW, .view_b = OP_LAYOUT_VIEW},
    {.k = 5, .m = 6, .n = 4, .bs = {1, 2}, .nr = {3, 1}, .view_a = OP_LAYOUT_PERM, .view_b = OP_LAYOUT_TRANS},
};

static void test_mul_mat(void **state) {
    (void) state;
    enum vnpu_type types[VNPU_TYPE_COUNT];
    const int n_types = op_test_types_with_to_f32(types, VNPU_TYPE_COUNT);
    int n_cases = 0;
    for (int ty = 0; ty < n_types; ty++) {
        const int64_t blck = vnpu_type_traits_get(types[ty])->blck;
        for (size_t c = 0; c < sizeof(mul_mat_cases) / sizeof(mul_mat_cases[0]); c++) {
            const struct mul_mat_case *mc = &mul_mat_cases[c];
            const int64_t K = mc->k * blck, M = mc->m, N = mc->n;
            const int64_t ne2 = mc->bs[0] * mc->nr[0], ne3 = mc->bs[1] * mc->nr[1];
            struct op_test t;
            op_test_begin(&t,
                          "MUL_MAT(type_a=%s,type_b=f32,m=%lld,n=%lld,k=%lld,bs=[%lld,%lld],nr=[%lld,%lld],"
                          "view_a=%s,view_b=%s)",
                          vnpu_type_name(types[ty]), (long long) M, (long long) N, (long long) K, (long long) mc->bs[0],
                          (long long) mc->bs[1], (long long) mc->nr[0], (long long) mc->nr[1], layout_names[mc->view_a],
                          layout_names[mc->view_b]);
            const int64_t ne_a[4] = {K, M, mc->bs[0], mc->bs[1]};
            const int64_t ne_b[4] = {K, N, ne2, ne3};
            struct vnpu_tensor *a = op_test_input(&t, types[ty], ne_a, mc->view_a);
            struct vnpu_tensor *b = op_test_input(&t, VNPU_TYPE_F32, ne_b, mc->view_b);
            struct vnpu_tensor *out = vnpu_mul_mat(t.ctx, a, b);
            assert_true(out->ne[0] == M && out->ne[1] == N && out->ne[2] == ne2 && out->ne[3] == ne3);

            double *ref = op_test_ref(&t, vnpu_nelements(out));
            float *row = malloc((size_t) K * sizeof(float));
            assert_non_null(row);
            for (int64_t i3 = 0; i3 < ne3; i3++) {
                for (int64_t i2 = 0; i2 < ne2; i2++) {
                    for (int64_t i01 = 0; i01 < M; i01++) {
                        ref_dequant_row(a, i01, i2 / mc->nr[0], i3 / mc->nr[1], row);
                        for (int64_t i11 = 0; i11 < N; i11++) {
                            double dot = 0.0;
                            for (int64_t i = 0; i < K; i++) {
                                dot += (double) row[i] * op_test_get(b, i, i11, i2, i3);
                            }
                            ref[((i3 * ne2 + i2) * N + i11) * M + i01] = dot;
                        }
                    }
                }
            }
            free(row);
            op_test_compute(&t, out);
            op_test_check(&t, out, ref, 1e-10);
            op_test_end(&t);
            n_cases++;
        }
    }
    printf("MUL_MAT: %d cases over %d types\n", n_cases, n_types);
}

struct mul_mat_id_case {
    int64_t k; /* K = k * the type's block size */
    int64_t m;
    int64_t n_as;   /* experts */
    int64_t n_used; /* experts per token */
    int64_t n_b;    /* rows of b per token: 1 (shared) or n_used */
    int64_t n_tokens;
    enum op_layout view_b;
};

static const struct mul_mat_id_case mul_mat_id_cases[] = {
    {.k = 3, .m = 5, .n_as = 4, .n_used = 2, .n_b = 1, .n_tokens = 3},
    {.k = 2, .m = 33, .n_as = 8, .n_used = 4, .n_b = 4, .n_tokens = 5, .view_b = OP_LAYOUT_VIEW},
    {.k = 1, .m = 7, .n_as = 3, .n_used = 3, .n_b = 1, .n_tokens = 1, .view_b = OP_LAYOUT_TRANS},
    {.k = 2, .m = 9, .n_as = 6, .n_used = 2, .n_b = 2, .n_tokens = 4, .view_b = OP_LAYOUT_PERM},
};

static void test_mul_mat_id(void **state) {
    (void) state;
    enum vnpu_type types[VNPU_TYPE_COUNT];
    const int n_types = op_test_types_with_to_f32(types, VNPU_TYPE_COUNT);
    int n_cases = 0;
    for (int ty = 0; ty < n_types; ty++) {
        const int64_t blck = vnpu_type_traits_get(types[ty])->blck;
        for (size_t c = 0; c < sizeof(mul_mat_id_cases) / sizeof(mul_mat_id_cases[0]); c++) {
            const struct mul_mat_id_case *mc = &mul_mat_id_cases[c];
            const int64_t K = mc->k * blck, M = mc->m;
            struct op_test t;
            op_test_begin(&t,
                          "MUL_MAT_ID(type_a=%s,type_b=f32,n_mats=%lld,n_used=%lld,b=%lld,m=%lld,n=%lld,k=%lld,"
                          "view_b=%s)",
                          vnpu_type_name(types[ty]), (long long) mc->n_as, (long long) mc->n_used, (long long) mc->n_b,
                          (long long) M, (long long) mc->n_tokens, (long long) K, layout_names[mc->view_b]);
            const int64_t ne_as[4] = {K, M, mc->n_as, 1};
            const int64_t ne_b[4] = {K, mc->n_b, mc->n_tokens, 1};
            const int64_t ne_ids[4] = {mc->n_used, mc->n_tokens, 1, 1};
            struct vnpu_tensor *as = op_test_input(&t, types[ty], ne_as, OP_LAYOUT_CONT);
            struct vnpu_tensor *b = op_test_input(&t, VNPU_TYPE_F32, ne_b, mc->view_b);
            struct vnpu_tensor *ids = op_test_leaf(&t, VNPU_TYPE_I32, ne_ids);
            for (int64_t tok = 0; tok < mc->n_tokens; tok++) { /* distinct experts per token, as a top-k */
                int64_t start = (int64_t) (test_rng_next(&t.rng) % (uint64_t) mc->n_as);
                for (int64_t e = 0; e < mc->n_used; e++) {
                    op_test_set(ids, e, tok, 0, 0, (double) ((start + e) % mc->n_as));
                }
            }
            struct vnpu_tensor *out = vnpu_mul_mat_id(t.ctx, as, b, ids);
            assert_true(out->ne[0] == M && out->ne[1] == mc->n_used && out->ne[2] == mc->n_tokens);

            double *ref = op_test_ref(&t, vnpu_nelements(out));
            float *row = malloc((size_t) K * sizeof(float));
            assert_non_null(row);
            for (int64_t tok = 0; tok < mc->n_tokens; tok++) {
                for (int64_t e = 0; e < mc->n_used; e++) {
                    const int64_t expert = (int64_t) op_test_get(ids, e, tok, 0, 0);
                    for (int64_t i01 = 0; i01 < M; i01++) {
                        ref_dequant_row(as, i01, expert, 0, row);
                        double dot = 0.0;
                        for (int64_t i = 0; i < K; i++) {
                            dot += (double) row[i] * op_test_get(b, i, e % mc->n_b, tok, 0);
                        }
                        ref[(tok * mc->n_used + e) * M + i01] = dot;
                    }
                }
            }
            free(row);
            op_test_compute(&t, out);
            op_test_check(&t, out, ref, 1e-10);
            op_test_end(&t);
            n_cases++;
        }
    }
    printf("MUL_MAT_ID: %d cases over %d types\n", n_cases, n_types);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mul_mat),
        cmocka_unit_test(test_mul_mat_id),
    };
    return cmocka_run_group_tests(tests, NULL, op_test_teardown);
}
