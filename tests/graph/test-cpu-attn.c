/*
 * CPU device: SOFT_MAX and FLASH_ATTN_EXT against double-precision references, and the two attention
 * forms of the model builder against each other.
 *
 * Masks are F16 and F32 with -inf entries, broadcast over dims 2 and 3, with spare rows, and rows masked
 * entirely (which give zeros); ALiBi (max_bias) and logit softcap; GQA (n_head % n_head_kv == 0); K and
 * V of every type the traits table can dequantize. Agreement: FLASH_ATTN_EXT equals
 * cont(permute(MUL_MAT(cont(transpose(V)), SOFT_MAX(MUL_MAT(K, Q), mask)), 0, 2, 1, 3)) on permuted views.
 */
#include "op-test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const char *const layout_names[] = {"0", "1", "2", "3"};

/* ALiBi slope of head h of n_head (Press et al. 2022, the power-of-two split ggml uses); 1 without. */
static double ref_alibi_slope(double max_bias, int64_t n_head, int64_t h) {
    if (max_bias <= 0.0) {
        return 1.0;
    }
    int64_t n_log2 = 1;
    while (n_log2 * 2 <= n_head) {
        n_log2 *= 2;
    }
    const double m0 = pow(2.0, -max_bias / (double) n_log2);
    const double m1 = pow(2.0, -max_bias / 2.0 / (double) n_log2);
    return h < n_log2 ? pow(m0, (double) (h + 1)) : pow(m1, (double) (2 * (h - n_log2) + 1));
}

/* Mask entries: -inf with probability 1/4, else N(0, 1/4); every row listed in masked_row entirely -inf. */
static void fill_mask(struct op_test *t, struct vnpu_tensor *m, int64_t masked_row) {
    for (int64_t i3 = 0; i3 < m->ne[3]; i3++) {
        for (int64_t i2 = 0; i2 < m->ne[2]; i2++) {
            for (int64_t i1 = 0; i1 < m->ne[1]; i1++) {
                for (int64_t i0 = 0; i0 < m->ne[0]; i0++) {
                    const bool off = i1 == masked_row || test_rng_uniform(&t->rng) < 0.25f;
                    op_test_set(m, i0, i1, i2, i3, off ? -INFINITY : test_rng_normal(&t->rng, 0.5f));
                }
            }
        }
    }
}

/* Softmax of n logits in place (double); all -inf gives zeros. */
static void ref_softmax(double *w, int64_t n) {
    double max = -INFINITY, sum = 0.0;
    for (int64_t i = 0; i < n; i++) {
        max = w[i] > max ? w[i] : max;
    }
    for (int64_t i = 0; i < n; i++) {
        w[i] = max == -INFINITY ? 0.0 : exp(w[i] - max);
        sum += w[i];
    }
    for (int64_t i = 0; i < n; i++) {
        w[i] = sum > 0.0 ? w[i] / sum : 0.0;
    }
}

/* ---- SOFT_MAX ---- */

struct soft_max_case {
    int64_t ne[4];
    enum vnpu_type mask_type; /* F16 or F32, or I32 for no mask */
    int64_t mask_pad;         /* mask rows beyond ne1 */
    int64_t m2, m3;           /* mask ne2, ne3 (broadcast) */
    float scale;
    float max_bias;
    int64_t masked_row; /* a row masked entirely, or -1 */
    enum op_layout view;
    bool inplace;
};

static const struct soft_max_case soft_max_cases[] = {
    {.ne = {5, 7, 11, 13}, .mask_type = VNPU_TYPE_I32, .scale = 1.0f, .masked_row = -1},
    {.ne = {37, 7, 4, 2},
     .mask_type = VNPU_TYPE_F32,
     .mask_pad = 3,
     .m2 = 1,
     .m3 = 1,
     .scale = 0.125f,
     .masked_row = 2,
     .view = OP_LAYOUT_VIEW},
    {.ne = {37, 7, 4, 2},
     .mask_type = VNPU_TYPE_F16,
     .m2 = 4,
     .m3 = 2,
     .scale = 0.5f,
     .masked_row = -1,
     .view = OP_LAYOUT_PERM},
    {.ne = {33, 5, 6, 1},
     .mask_type = VNPU_TYPE_F16,
     .m2 = 1,
     .m3 = 1,
     .scale = 1.0f,
     .max_bias = 8.0f,
     .masked_row = 0},
    {.ne = {4096, 1, 1, 1}, .mask_type = VNPU_TYPE_I32, .scale = 2.0f, .masked_row = -1, .inplace = true},
    {.ne = {9, 3, 5, 1},
     .mask_type = VNPU_TYPE_F32,
     .m2 = 5,
     .m3 = 1,
     .scale = 0.3f,
     .max_bias = 4.0f,
     .masked_row = -1,
     .view = OP_LAYOUT_TRANS},
};

static void test_soft_max(void **state) {
    (void) state;
    for (size_t c = 0; c < sizeof(soft_max_cases) / sizeof(soft_max_cases[0]); c++) {
        const struct soft_max_case *sc = &soft_max_cases[c];
        const bool has_mask = sc->mask_type != VNPU_TYPE_I32;
        struct op_test t;
        op_test_begin(&t,
                      "SOFT_MAX(type=f32,ne=[%lld,%lld,%lld,%lld],mask=%s,m=[%lld,%lld],pad=%lld,scale=%g,"
                      "max_bias=%g,masked_row=%lld,view=%s,inplace=%d)",
                      (long long) sc->ne[0], (long long) sc->ne[1], (long long) sc->ne[2], (long long) sc->ne[3],
                      has_mask ? vnpu_type_name(sc->mask_type) : "none", (long long) sc->m2, (long long) sc->m3,
                      (long long) sc->mask_pad, sc->scale, sc->max_bias, (long long) sc->masked_row,
                      layout_names[sc->view], sc->inplace);
        struct vnpu_tensor *a = op_test_input(&t, VNPU_TYPE_F32, sc->ne, sc->view);
        struct vnpu_tensor *mask = NULL;
        if (has_mask) {
            const int64_t ne_m[4] = {sc->ne[0], sc->ne[1] + sc->mask_pad, sc->m2, sc->m3};
            mask = op_test_leaf(&t, sc->mask_type, ne_m);
            fill_mask(&t, mask, sc->masked_row);
        }
        struct vnpu_tensor *out = vnpu_soft_max_ext(t.ctx, a, mask, sc->scale, sc->max_bias);
        double *ref = op_test_ref(&t, vnpu_nelements(out));
        int64_t k = 0;
        for (int64_t i3 = 0; i3 < sc->ne[3]; i3++) {
            for (int64_t i2 = 0; i2 < sc->ne[2]; i2++) {
                const double slope = ref_alibi_slope(sc->max_bias, sc->ne[2], i2);
                for (int64_t i1 = 0; i1 < sc->ne[1]; i1++, k += sc->ne[0]) {
                    for (int64_t i0 = 0; i0 < sc->ne[0]; i0++) {
                        const double mv = mask ? slope * op_test_get(mask, i0, i1, i2 % sc->m2, i3 % sc->m3) : 0.0;
                        ref[k + i0] = op_test_get(a, i0, i1, i2, i3) * (double) sc->scale + mv;
                    }
                    ref_softmax(ref + k, sc->ne[0]);
                }
            }
        }
        if (sc->inplace) {
            assert_true(sc->view == OP_LAYOUT_CONT);
            out->data = a->data;
        }
        op_test_compute(&t, out);
        op_test_check(&t, out, ref, 1e-10);
        op_test_end(&t);
    }
}

/* ---- FLASH_ATTN_EXT ---- */

struct flash_attn_case {
    int64_t d, dv;     /* head sizes in blocks of the K/V type */
    int64_t n_q, n_kv; /* queries, keys */
    int64_t n_head, n_head_kv, ne3;
    enum vnpu_type mask_type; /* F16 or F32, or I32 for no mask */
    int64_t m2, m3;           /* mask ne2, ne3 (broadcast) */
    int64_t masked_row;       /* a query masked entirely, or -1 */
    float scale;
    float max_bias;
    float softcap;
    enum op_layout view_q; /* CONT, or PERM as the model's permuted Q */
};

static const struct flash_attn_case flash_attn_cases[] = {
    {.d = 2,
     .dv = 2,
     .n_q = 1,
     .n_kv = 37,
     .n_head = 4,
     .n_head_kv = 4,
     .ne3 = 1,
     .mask_type = VNPU_TYPE_F16,
     .m2 = 1,
     .m3 = 1,
     .masked_row = -1,
     .scale = 0.125f},
    {.d = 1,
     .dv = 1,
     .n_q = 7,
     .n_kv = 19,
     .n_head = 6,
     .n_head_kv = 2,
     .ne3 = 1,
     .mask_type = VNPU_TYPE_F32,
     .m2 = 1,
     .m3 = 1,
     .masked_row = 3,
     .scale = 0.25f,
     .view_q = OP_LAYOUT_PERM},
    {.d = 1,
     .dv = 2,
     .n_q = 3,
     .n_kv = 8,
     .n_head = 4,
     .n_head_kv = 1,
     .ne3 = 2,
     .mask_type = VNPU_TYPE_F16,
     .m2 = 4,
     .m3 = 2,
     .masked_row = -1,
     .scale = 0.5f,
     .max_bias = 8.0f},
    {.d = 1,
     .dv = 1,
     .n_q = 5,
     .n_kv = 11,
     .n_head = 2,
     .n_head_kv = 2,
     .ne3 = 1,
     .mask_type = VNPU_TYPE_I32,
     .masked_row = -1,
     .scale = 1.0f,
     .softcap = 3.0f},
};

static void test_flash_attn_ext(void **state) {
    (void) state;
    enum vnpu_type types[VNPU_TYPE_COUNT];
    const int n_types = op_test_types_with_to_f32(types, VNPU_TYPE_COUNT);
    int n_cases = 0;
    for (int ty = 0; ty < n_types; ty++) {
        const int64_t blck = vnpu_type_traits_get(types[ty])->blck;
        /* Head sizes in blocks; for the plain types D = 32 * d and Dv = 40 * dv (D != Dv, Dv % 32 != 0). */
        const int64_t unit = blck > 1 ? blck : 32;
        const int64_t unit_v = blck > 1 ? blck : 40;
        for (size_t c = 0; c < sizeof(flash_attn_cases) / sizeof(flash_attn_cases[0]); c++) {
            const struct flash_attn_case *fc = &flash_attn_cases[c];
            const int64_t D = fc->d * unit, Dv = fc->dv * unit_v;
            const bool has_mask = fc->mask_type != VNPU_TYPE_I32;
            struct op_test t;
            op_test_begin(&t,
                          "FLASH_ATTN_EXT(hsk=%lld,hsv=%lld,nh=%lld,nh_kv=%lld,kv=%lld,nb=%lld,ne3=%lld,"
                          "mask=%s,m=[%lld,%lld],masked_row=%lld,scale=%g,max_bias=%g,softcap=%g,type_KV=%s,"
                          "view_q=%s)",
                          (long long) D, (long long) Dv, (long long) fc->n_head, (long long) fc->n_head_kv,
                          (long long) fc->n_kv, (long long) fc->n_q, (long long) fc->ne3,
                          has_mask ? vnpu_type_name(fc->mask_type) : "none", (long long) fc->m2, (long long) fc->m3,
                          (long long) fc->masked_row, fc->scale, fc->max_bias, fc->softcap, vnpu_type_name(types[ty]),
                          layout_names[fc->view_q]);
            const int64_t ne_q[4] = {D, fc->n_q, fc->n_head, fc->ne3};
            const int64_t ne_k[4] = {D, fc->n_kv, fc->n_head_kv, fc->ne3};
            const int64_t ne_v[4] = {Dv, fc->n_kv, fc->n_head_kv, fc->ne3};
            struct vnpu_tensor *q = op_test_input(&t, VNPU_TYPE_F32, ne_q, fc->view_q);
            struct vnpu_tensor *k = op_test_input(&t, types[ty], ne_k, OP_LAYOUT_CONT);
            struct vnpu_tensor *v = op_test_input(&t, types[ty], ne_v, OP_LAYOUT_VIEW);
            struct vnpu_tensor *mask = NULL;
            if (has_mask) {
                const int64_t ne_m[4] = {fc->n_kv, fc->n_q, fc->m2, fc->m3};
                mask = op_test_leaf(&t, fc->mask_type, ne_m);
                fill_mask(&t, mask, fc->masked_row);
            }
            struct vnpu_tensor *out = vnpu_flash_attn_ext(t.ctx, q, k, v, mask, fc->scale, fc->max_bias, fc->softcap);
            assert_true(out->ne[0] == Dv && out->ne[1] == fc->n_head && out->ne[2] == fc->n_q && out->ne[3] == fc->ne3);

            /* Reference: K and V rows dequantized with to_f32, everything else in double. */
            const vnpu_to_f32_fn to_f32 = vnpu_type_traits_get(types[ty])->to_f32;
            float *krow = malloc((size_t) (D > Dv ? D : Dv) * sizeof(float));
            double *w = malloc((size_t) fc->n_kv * sizeof(double));
            double *ref = op_test_ref(&t, vnpu_nelements(out));
            assert_true(krow && w);
            for (int64_t i3 = 0; i3 < fc->ne3; i3++) {
                for (int64_t iq1 = 0; iq1 < fc->n_q; iq1++) {
                    for (int64_t h = 0; h < fc->n_head; h++) {
                        const int64_t hk = h / (fc->n_head / fc->n_head_kv);
                        const double slope = ref_alibi_slope(fc->max_bias, fc->n_head, h);
                        for (int64_t j = 0; j < fc->n_kv; j++) {
                            to_f32((const char *) k->data + j * (int64_t) k->nb[1] + hk * (int64_t) k->nb[2] +
                                       i3 * (int64_t) k->nb[3],
                                   krow, D);
                            double dot = 0.0;
                            for (int64_t i = 0; i < D; i++) {
                                dot += op_test_get(q, i, iq1, h, i3) * krow[i];
                            }
                            double s = dot * fc->scale;
                            if (fc->softcap != 0.0f) {
                                s = fc->softcap * tanh(s / fc->softcap);
                            }
                            w[j] = s + (mask ? slope * op_test_get(mask, j, iq1, h % fc->m2, i3 % fc->m3) : 0.0);
                        }
                        ref_softmax(w, fc->n_kv);
                        double *o = ref + ((i3 * fc->n_q + iq1) * fc->n_head + h) * Dv;
                        for (int64_t i = 0; i < Dv; i++) {
                            o[i] = 0.0;
                        }
                        for (int64_t j = 0; j < fc->n_kv; j++) {
                            to_f32((const char *) v->data + j * (int64_t) v->nb[1] + hk * (int64_t) v->nb[2] +
                                       i3 * (int64_t) v->nb[3],
                                   krow, Dv);
                            for (int64_t i = 0; i < Dv; i++) {
                                o[i] += w[j] * krow[i];
                            }
                        }
                    }
                }
            }
            free(krow);
            free(w);
            op_test_compute(&t, out);
            op_test_check(&t, out, ref, 1e-10);
            op_test_end(&t);
            n_cases++;
        }
    }
    printf("FLASH_ATTN_EXT: %d cases over %d K/V types\n", n_cases, n_types);
}

/* ---- the two attention forms agree ---- */

struct attn_forms_case {
    int64_t d, n_q, n_kv, n_head, n_head_kv;
    enum vnpu_type kv_type; /* the KV cache type: F16 or F32 */
    float max_bias;
};

static const struct attn_forms_case attn_forms_cases[] = {
    {.d = 64, .n_q = 1, .n_kv = 33, .n_head = 4, .n_head_kv = 4, .kv_type = VNPU_TYPE_F16},
    {.d = 64, .n_q = 9, .n_kv = 17, .n_head = 8, .n_head_kv = 2, .kv_type = VNPU_TYPE_F16},
    {.d = 48, .n_q = 5, .n_kv = 5, .n_head = 6, .n_head_kv = 3, .kv_type = VNPU_TYPE_F32, .max_bias = 8.0f},
};

static void test_attn_forms_agree(void **state) {
    (void) state;
    for (size_t c = 0; c < sizeof(attn_forms_cases) / sizeof(attn_forms_cases[0]); c++) {
        const struct attn_forms_case *ac = &attn_forms_cases[c];
        struct op_test t;
        op_test_begin(&t, "ATTN_FORMS(hs=%lld,nh=%lld,nh_kv=%lld,kv=%lld,nb=%lld,type_KV=%s,max_bias=%g)",
                      (long long) ac->d, (long long) ac->n_head, (long long) ac->n_head_kv, (long long) ac->n_kv,
                      (long long) ac->n_q, vnpu_type_name(ac->kv_type), ac->max_bias);
        /* As the model holds them: Q [D, n_head, n_q] from a projection, K and V [D, n_kv, n_head_kv]. */
        const int64_t ne_q[4] = {ac->d, ac->n_head, ac->n_q, 1};
        const int64_t ne_kv[4] = {ac->d, ac->n_kv, ac->n_head_kv, 1};
        const int64_t ne_m[4] = {ac->n_kv, ac->n_q, 1, 1};
        struct vnpu_tensor *q_cur = op_test_input(&t, VNPU_TYPE_F32, ne_q, OP_LAYOUT_CONT);
        struct vnpu_tensor *k = op_test_input(&t, ac->kv_type, ne_kv, OP_LAYOUT_CONT);
        struct vnpu_tensor *v = op_test_input(&t, ac->kv_type, ne_kv, OP_LAYOUT_CONT);
        struct vnpu_tensor *mask16 = op_test_leaf(&t, VNPU_TYPE_F16, ne_m);
        struct vnpu_tensor *mask32 = op_test_leaf(&t, VNPU_TYPE_F32, ne_m);
        for (int64_t i1 = 0; i1 < ac->n_q; i1++) { /* causal: query i1 sees the first n_kv - n_q + i1 + 1 keys */
            for (int64_t i0 = 0; i0 < ac->n_kv; i0++) {
                const double m = i0 <= ac->n_kv - ac->n_q + i1 ? -0.25 * (double) (ac->n_kv - 1 - i0) : -INFINITY;
                op_test_set(mask16, i0, i1, 0, 0, m);
                op_test_set(mask32, i0, i1, 0, 0, op_test_get(mask16, i0, i1, 0, 0));
            }
        }
        const float scale = 1.0f / sqrtf((float) ac->d);
        struct vnpu_tensor *q = vnpu_permute(t.ctx, q_cur, 0, 2, 1, 3); /* [D, n_q, n_head] */

        struct vnpu_tensor *fa = vnpu_flash_attn_ext(t.ctx, q, k, v, mask16, scale, ac->max_bias, 0.0f);
        op_test_compute(&t, fa);
        double *fa_out = op_test_ref(&t, vnpu_nelements(fa));
        int64_t n = 0;
        for (int64_t i2 = 0; i2 < fa->ne[2]; i2++) {
            for (int64_t i1 = 0; i1 < fa->ne[1]; i1++) {
                for (int64_t i0 = 0; i0 < fa->ne[0]; i0++) {
                    fa_out[n++] = op_test_get(fa, i0, i1, i2, 0);
                }
            }
        }

        struct vnpu_tensor *kq = vnpu_mul_mat(t.ctx, k, q); /* [n_kv, n_q, n_head] */
        kq = vnpu_soft_max_ext(t.ctx, kq, mask32, scale, ac->max_bias);
        struct vnpu_tensor *vt = vnpu_cont(t.ctx, vnpu_transpose(t.ctx, v));             /* [n_kv, D, n_head_kv] */
        struct vnpu_tensor *kqv = vnpu_mul_mat(t.ctx, vt, kq);                           /* [D, n_q, n_head] */
        struct vnpu_tensor *mm = vnpu_cont(t.ctx, vnpu_permute(t.ctx, kqv, 0, 2, 1, 3)); /* [D, n_head, n_q] */
        assert_true(vnpu_are_same_shape(mm, fa));
        op_test_compute(&t, mm);
        op_test_check(&t, mm, fa_out, 1e-10);
        op_test_end(&t);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_soft_max),
        cmocka_unit_test(test_flash_attn_ext),
        cmocka_unit_test(test_attn_forms_agree),
    };
    return cmocka_run_group_tests(tests, NULL, op_test_teardown);
}
