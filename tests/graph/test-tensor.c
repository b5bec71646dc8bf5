/*
 * Tensors and the op graph: strides and sizes for every type, views (offsets, strides, resolution to
 * the owning tensor), reshapes, permutes and transposes, the op constructors' shapes, sources and
 * op_params (GGML's layouts), and graph ordering (depth first, sources in order, leafs = tensors
 * without an op, views as nodes, each tensor once).
 */
#include "test-common.h"

#include "tensor.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static float param_f32(const struct vnpu_tensor *t, int i) {
    return vnpu_get_op_param_f32(t, i);
}

static void test_new_tensor_every_type(void **state) {
    (void) state;
    struct vnpu_ctx *ctx = vnpu_ctx_new(1 << 20, false);
    assert_non_null(ctx);
    for (uint32_t ty = 0; ty < VNPU_TYPE_COUNT; ty++) {
        if (!vnpu_type_is_valid(ty)) {
            continue;
        }
        const struct vnpu_type_traits *tt = vnpu_type_traits_get((enum vnpu_type) ty);
        struct vnpu_tensor *t = vnpu_new_tensor_4d(ctx, (enum vnpu_type) ty, 2 * tt->blck, 3, 4, 5);
        assert_int_equal(t->nb[0], tt->size);
        assert_int_equal(t->nb[1], 2 * tt->size);
        assert_int_equal(t->nb[2], 6 * tt->size);
        assert_int_equal(t->nb[3], 24 * tt->size);
        assert_int_equal(vnpu_nbytes(t), 120 * tt->size);
        assert_int_equal(vnpu_nelements(t), 120 * tt->blck);
        assert_int_equal(vnpu_nrows(t), 60);
        assert_int_equal(vnpu_n_dims(t), 4);
        assert_int_equal(vnpu_type_size_of(t), tt->size);
        assert_true(vnpu_is_contiguous(t) && vnpu_is_contiguous_rows(t));
        assert_false(vnpu_is_permuted(t) || vnpu_is_transposed(t));
        assert_non_null(t->data);
        assert_int_equal((uintptr_t) t->data % 128, 0);
        assert_int_equal(t->op, VNPU_OP_NONE);
        assert_null(t->view_src);
    }
    vnpu_ctx_free(ctx);

    ctx = vnpu_ctx_new(4 * vnpu_tensor_overhead(), true);
    const int64_t ne[2] = {5, 3};
    struct vnpu_tensor *t = vnpu_new_tensor(ctx, VNPU_TYPE_F16, 2, ne);
    assert_null(t->data);
    assert_int_equal(vnpu_n_dims(t), 2);
    assert_int_equal(t->ne[2], 1);
    assert_int_equal(vnpu_n_dims(vnpu_new_tensor_3d(ctx, VNPU_TYPE_F32, 5, 1, 3)), 3);
    assert_int_equal(vnpu_n_dims(vnpu_new_tensor_1d(ctx, VNPU_TYPE_F32, 1)), 1);
    assert_int_equal(vnpu_nbytes(vnpu_new_tensor_2d(ctx, VNPU_TYPE_F32, 0, 3)), 0);
    vnpu_ctx_free(ctx);
}

static void test_views(void **state) {
    (void) state;
    struct vnpu_ctx *ctx = vnpu_ctx_new(1 << 16, false);
    struct vnpu_tensor *base = vnpu_new_tensor_4d(ctx, VNPU_TYPE_F32, 10, 6, 4, 2);
    vnpu_set_name(base, "base");
    const size_t nb1 = base->nb[1];

    struct vnpu_tensor *v = vnpu_view_2d(ctx, base, 4, 3, nb1, nb1 + 8);
    assert_true(v->ne[0] == 4 && v->ne[1] == 3 && v->ne[2] == 1 && v->ne[3] == 1);
    assert_true(v->nb[0] == 4 && v->nb[1] == nb1 && v->nb[2] == 3 * nb1);
    assert_ptr_equal(v->data, (char *) base->data + nb1 + 8);
    assert_ptr_equal(v->view_src, base);
    assert_int_equal(v->view_offs, nb1 + 8);
    assert_int_equal(v->op, VNPU_OP_VIEW);
    assert_ptr_equal(v->src[0], base);
    size_t offs;
    memcpy(&offs, v->op_params, sizeof(offs));
    assert_int_equal(offs, nb1 + 8);
    assert_string_equal(v->name, "base (view)");
    assert_int_equal(vnpu_nbytes(v), 4 + 3 * 4 + 2 * nb1);
    assert_false(vnpu_is_contiguous(v));
    assert_true(vnpu_is_contiguous_rows(v));

    /* A view of a view views the owner, at the summed offset. */
    struct vnpu_tensor *vv = vnpu_view_1d(ctx, v, 2, 4);
    assert_ptr_equal(vv->view_src, base);
    assert_int_equal(vv->view_offs, nb1 + 12);
    assert_ptr_equal(vv->src[0], v);
    assert_true(vnpu_is_contiguous(vv));

    struct vnpu_tensor *v3 = vnpu_view_3d(ctx, base, 10, 2, 4, 2 * nb1, base->nb[2], 0);
    assert_true(v3->nb[1] == 2 * nb1 && v3->nb[2] == base->nb[2] && v3->nb[3] == 4 * base->nb[2]);
    struct vnpu_tensor *v4 = vnpu_view_4d(ctx, base, 5, 6, 4, 2, nb1, base->nb[2], base->nb[3], 20);
    assert_true(v4->nb[3] == base->nb[3] && v4->view_offs == 20);

    struct vnpu_tensor *r = vnpu_reshape_3d(ctx, base, 20, 3, 8);
    assert_true(r->ne[0] == 20 && r->ne[1] == 3 && r->ne[2] == 8 && r->ne[3] == 1);
    assert_true(vnpu_is_contiguous(r) && r->data == base->data && r->op == VNPU_OP_RESHAPE);
    assert_string_equal(r->name, "base (reshaped)");
    assert_int_equal(vnpu_reshape_2d(ctx, base, 60, 8)->ne[1], 8);
    assert_int_equal(vnpu_reshape_4d(ctx, base, 2, 5, 6, 8)->ne[3], 8);

    /* Dimension i of base becomes dimension axis_i. */
    struct vnpu_tensor *p = vnpu_permute(ctx, base, 2, 0, 1, 3);
    assert_true(p->ne[0] == 6 && p->ne[1] == 4 && p->ne[2] == 10 && p->ne[3] == 2);
    assert_true(p->nb[0] == base->nb[1] && p->nb[1] == base->nb[2] && p->nb[2] == base->nb[0]);
    assert_true(p->op_params[0] == 2 && p->op_params[1] == 0 && p->op_params[2] == 1 && p->op_params[3] == 3);
    assert_true(vnpu_is_permuted(p) && p->op == VNPU_OP_PERMUTE && p->view_src == base);
    assert_string_equal(p->name, "base (permuted)");
    assert_int_equal(vnpu_nbytes(p), vnpu_nbytes(base));

    struct vnpu_tensor *tr = vnpu_transpose(ctx, base);
    assert_true(tr->ne[0] == 6 && tr->ne[1] == 10 && tr->nb[0] == nb1 && tr->nb[1] == 4);
    assert_true(vnpu_is_transposed(tr) && !vnpu_is_contiguous(tr) && !vnpu_is_contiguous_rows(tr));
    assert_int_equal(tr->op, VNPU_OP_TRANSPOSE);

    struct vnpu_tensor *vt = vnpu_view_tensor(ctx, tr);
    assert_true(vt->op == VNPU_OP_NONE && vt->view_src == base && vt->nb[0] == nb1 && vt->ne[1] == 10);
    vnpu_ctx_free(ctx);

    /* Views of tensors without data have none until their owner is placed (the graph allocator's job). */
    ctx = vnpu_ctx_new(8 * vnpu_tensor_overhead(), true);
    struct vnpu_tensor *b = vnpu_new_tensor_2d(ctx, VNPU_TYPE_F32, 8, 8);
    assert_null(vnpu_view_1d(ctx, b, 8, 32)->data);
    vnpu_ctx_free(ctx);
}

static void test_properties(void **state) {
    (void) state;
    struct vnpu_ctx *ctx = vnpu_ctx_new(16 * vnpu_tensor_overhead(), true);
    struct vnpu_tensor *a = vnpu_new_tensor_4d(ctx, VNPU_TYPE_F32, 6, 4, 3, 2);
    struct vnpu_tensor *b = vnpu_new_tensor_4d(ctx, VNPU_TYPE_F32, 3, 1, 3, 2);
    struct vnpu_tensor *c = vnpu_new_tensor_4d(ctx, VNPU_TYPE_F32, 4, 1, 1, 1);
    assert_true(vnpu_can_repeat(b, a));
    assert_false(vnpu_can_repeat(c, a));
    assert_false(vnpu_can_repeat(a, b));
    assert_true(vnpu_are_same_shape(a, a) && !vnpu_are_same_shape(a, b));

    /* A dimension of size 1 may have any stride (ggml_is_contiguous). */
    struct vnpu_tensor *d = vnpu_new_tensor_4d(ctx, VNPU_TYPE_F32, 6, 1, 3, 1);
    d->nb[1] = 1000;
    assert_true(vnpu_is_contiguous(d));

    assert_string_equal(vnpu_op_name(VNPU_OP_FLASH_ATTN_EXT), "FLASH_ATTN_EXT");
    assert_string_equal(vnpu_op_name(VNPU_OP_MUL_MAT_ID), "MUL_MAT_ID");
    for (int op = 0; op < VNPU_OP_COUNT; op++) {
        assert_string_not_equal(vnpu_op_name((enum vnpu_op) op), "?");
    }
    assert_string_equal(vnpu_op_desc(vnpu_silu(ctx, a)), "SILU");
    assert_string_equal(vnpu_op_desc(vnpu_gelu(ctx, a)), "GELU");
    assert_string_equal(vnpu_op_desc(vnpu_swiglu_split(ctx, a, a)), "SWIGLU");
    assert_string_equal(vnpu_op_desc(vnpu_add(ctx, a, b)), "ADD");
    assert_true(vnpu_op_is_empty(VNPU_OP_VIEW) && vnpu_op_is_empty(VNPU_OP_NONE) && vnpu_op_is_empty(VNPU_OP_PERMUTE));
    assert_false(vnpu_op_is_empty(VNPU_OP_CPY) || vnpu_op_is_empty(VNPU_OP_SET_ROWS) || vnpu_op_is_empty(VNPU_OP_CONT));
    vnpu_ctx_free(ctx);
}

static void test_op_constructors(void **state) {
    (void) state;
    struct vnpu_ctx *ctx = vnpu_ctx_new(64 * vnpu_tensor_overhead(), true);

    struct vnpu_tensor *w = vnpu_new_tensor_4d(ctx, VNPU_TYPE_Q4_0, 64, 5, 2, 1);
    struct vnpu_tensor *x = vnpu_new_tensor_4d(ctx, VNPU_TYPE_F32, 64, 3, 6, 3);
    struct vnpu_tensor *mm = vnpu_mul_mat(ctx, w, x);
    assert_true(mm->type == VNPU_TYPE_F32 && mm->ne[0] == 5 && mm->ne[1] == 3 && mm->ne[2] == 6 && mm->ne[3] == 3);
    assert_true(mm->op == VNPU_OP_MUL_MAT && mm->src[0] == w && mm->src[1] == x);

    struct vnpu_tensor *as = vnpu_new_tensor_3d(ctx, VNPU_TYPE_F16, 64, 7, 8);
    struct vnpu_tensor *xb = vnpu_new_tensor_3d(ctx, VNPU_TYPE_F32, 64, 1, 5);
    struct vnpu_tensor *ids = vnpu_new_tensor_2d(ctx, VNPU_TYPE_I32, 2, 5);
    struct vnpu_tensor *mid = vnpu_mul_mat_id(ctx, as, xb, ids);
    assert_true(mid->ne[0] == 7 && mid->ne[1] == 2 && mid->ne[2] == 5 && mid->ne[3] == 1);
    assert_true(mid->src[0] == as && mid->src[1] == xb && mid->src[2] == ids);

    struct vnpu_tensor *emb = vnpu_new_tensor_4d(ctx, VNPU_TYPE_Q8_0, 32, 10, 3, 2);
    struct vnpu_tensor *rows = vnpu_new_tensor_3d(ctx, VNPU_TYPE_I32, 4, 3, 2);
    struct vnpu_tensor *gr = vnpu_get_rows(ctx, emb, rows);
    assert_true(gr->type == VNPU_TYPE_F32 && gr->ne[0] == 32 && gr->ne[1] == 4 && gr->ne[2] == 3 && gr->ne[3] == 2);

    struct vnpu_tensor *cache = vnpu_new_tensor_2d(ctx, VNPU_TYPE_F16, 16, 10);
    struct vnpu_tensor *cur = vnpu_new_tensor_2d(ctx, VNPU_TYPE_F32, 16, 3);
    struct vnpu_tensor *pos = vnpu_new_tensor_1d(ctx, VNPU_TYPE_I64, 3);
    struct vnpu_tensor *sr = vnpu_set_rows(ctx, cache, cur, pos);
    assert_true(sr->type == VNPU_TYPE_F16 && vnpu_are_same_shape(sr, cache) && sr->view_src == cache);
    assert_true(sr->op == VNPU_OP_SET_ROWS && sr->src[0] == cur && sr->src[1] == pos && sr->src[2] == cache);

    struct vnpu_tensor *ca = vnpu_new_tensor_2d(ctx, VNPU_TYPE_F32, 6, 4);
    struct vnpu_tensor *cb = vnpu_new_tensor_1d(ctx, VNPU_TYPE_F16, 24);
    vnpu_set_name(ca, "a");
    vnpu_set_name(cb, "b");
    struct vnpu_tensor *cp = vnpu_cpy(ctx, ca, cb);
    assert_true(cp->op == VNPU_OP_CPY && cp->view_src == cb && cp->type == VNPU_TYPE_F16 && cp->ne[0] == 24);
    assert_true(cp->src[0] == ca && cp->src[1] == cb);
    assert_string_equal(cp->name, "b (copy of a)");
    struct vnpu_tensor *ct = vnpu_cont(ctx, vnpu_transpose(ctx, ca));
    assert_true(ct->op == VNPU_OP_CONT && vnpu_is_contiguous(ct) && ct->ne[0] == 4 && ct->ne[1] == 6);

    struct vnpu_tensor *kq = vnpu_new_tensor_3d(ctx, VNPU_TYPE_F32, 32, 7, 4);
    struct vnpu_tensor *mask = vnpu_new_tensor_2d(ctx, VNPU_TYPE_F16, 32, 8);
    struct vnpu_tensor *sm = vnpu_soft_max_ext(ctx, kq, mask, 0.125f, 8.0f);
    assert_true(sm->src[0] == kq && sm->src[1] == mask && param_f32(sm, 0) == 0.125f && param_f32(sm, 1) == 8.0f);

    struct vnpu_tensor *qc = vnpu_new_tensor_3d(ctx, VNPU_TYPE_F32, 64, 4, 7);
    struct vnpu_tensor *qpos = vnpu_new_tensor_1d(ctx, VNPU_TYPE_I32, 7);
    struct vnpu_tensor *ff = vnpu_new_tensor_1d(ctx, VNPU_TYPE_F32, 32);
    struct vnpu_tensor *rp =
        vnpu_rope_ext(ctx, qc, qpos, ff, 64, VNPU_ROPE_TYPE_NEOX, 4096, 10000.0f, 0.5f, 1.0f, 0.9f, 32.0f, 1.0f);
    assert_true(rp->op_params[0] == 0 && rp->op_params[1] == 64 && rp->op_params[2] == VNPU_ROPE_TYPE_NEOX &&
                rp->op_params[3] == 0 && rp->op_params[4] == 4096);
    assert_true(param_f32(rp, 5) == 10000.0f && param_f32(rp, 6) == 0.5f && param_f32(rp, 7) == 1.0f &&
                param_f32(rp, 8) == 0.9f && param_f32(rp, 9) == 32.0f && param_f32(rp, 10) == 1.0f);
    assert_true(rp->src[0] == qc && rp->src[1] == qpos && rp->src[2] == ff && vnpu_are_same_shape(rp, qc));

    struct vnpu_tensor *q = vnpu_new_tensor_4d(ctx, VNPU_TYPE_F32, 64, 7, 8, 1);
    struct vnpu_tensor *k = vnpu_new_tensor_4d(ctx, VNPU_TYPE_F16, 64, 32, 2, 1);
    struct vnpu_tensor *v = vnpu_new_tensor_4d(ctx, VNPU_TYPE_F16, 48, 32, 2, 1);
    struct vnpu_tensor *fa = vnpu_flash_attn_ext(ctx, q, k, v, mask, 0.125f, 0.0f, 30.0f);
    assert_true(fa->ne[0] == 48 && fa->ne[1] == 8 && fa->ne[2] == 7 && fa->ne[3] == 1 && fa->type == VNPU_TYPE_F32);
    assert_true(param_f32(fa, 0) == 0.125f && param_f32(fa, 1) == 0.0f && param_f32(fa, 2) == 30.0f);
    assert_true(fa->src[0] == q && fa->src[1] == k && fa->src[2] == v && fa->src[3] == mask);

    struct vnpu_tensor *sc = vnpu_scale_bias(ctx, kq, 3.0f, -1.0f);
    assert_true(param_f32(sc, 0) == 3.0f && param_f32(sc, 1) == -1.0f);
    assert_true(param_f32(vnpu_scale(ctx, kq, 2.0f), 1) == 0.0f);
    assert_true(param_f32(vnpu_rms_norm(ctx, kq, 1e-6f), 0) == 1e-6f);
    struct vnpu_tensor *gl = vnpu_glu_split(ctx, kq, kq, VNPU_GLU_OP_GEGLU);
    assert_true(gl->op_params[0] == VNPU_GLU_OP_GEGLU && gl->op_params[1] == 0 && vnpu_are_same_shape(gl, kq));
    struct vnpu_tensor *sub = vnpu_sub(ctx, kq, vnpu_new_tensor_1d(ctx, VNPU_TYPE_F32, 32));
    assert_true(sub->op == VNPU_OP_SUB && sub->type == VNPU_TYPE_F32 && vnpu_are_same_shape(sub, kq));
    vnpu_ctx_free(ctx);
}

/* Every node comes after the tensors it reads, and every tensor is listed once. */
static void check_order(const struct vnpu_graph *g) {
    for (int i = 0; i < g->n_nodes; i++) {
        for (int s = 0; s < VNPU_MAX_SRC; s++) {
            const struct vnpu_tensor *src = g->nodes[i]->src[s];
            if (!src) {
                continue;
            }
            bool before = false;
            for (int j = 0; j < g->n_leafs && !before; j++) {
                before = g->leafs[j] == src;
            }
            for (int j = 0; j < i && !before; j++) {
                before = g->nodes[j] == src;
            }
            assert_true(before);
        }
        for (int j = 0; j < i; j++) {
            assert_ptr_not_equal(g->nodes[i], g->nodes[j]);
        }
    }
}

static void test_graph_order(void **state) {
    (void) state;
    struct vnpu_ctx *ctx = vnpu_ctx_new(32 * vnpu_tensor_overhead() + vnpu_graph_overhead(16), true);
    struct vnpu_tensor *x = vnpu_new_tensor_2d(ctx, VNPU_TYPE_F32, 8, 4);
    struct vnpu_tensor *w = vnpu_new_tensor_2d(ctx, VNPU_TYPE_F32, 8, 4);
    vnpu_set_name(w, "weight");
    struct vnpu_tensor *a = vnpu_mul(ctx, x, w);
    struct vnpu_tensor *b = vnpu_add(ctx, a, x);
    struct vnpu_tensor *p = vnpu_permute(ctx, b, 1, 0, 2, 3);
    struct vnpu_tensor *c = vnpu_cont(ctx, p);
    struct vnpu_tensor *out = vnpu_mul(ctx, vnpu_transpose(ctx, c), a);

    struct vnpu_graph *g = vnpu_graph_new(ctx, 16);
    vnpu_graph_build_forward_expand(g, out);
    /* Depth first, sources in order: x, w, a, b, permute, cont, transpose, out. */
    assert_int_equal(g->n_leafs, 2);
    assert_ptr_equal(g->leafs[0], x);
    assert_ptr_equal(g->leafs[1], w);
    assert_int_equal(g->n_nodes, 6);
    assert_ptr_equal(g->nodes[0], a);
    assert_ptr_equal(g->nodes[1], b);
    assert_ptr_equal(g->nodes[2], p);
    assert_ptr_equal(g->nodes[3], c);
    assert_int_equal(g->nodes[4]->op, VNPU_OP_TRANSPOSE);
    assert_ptr_equal(g->nodes[5], out);
    assert_string_equal(x->name, "leaf_0");
    assert_string_equal(w->name, "weight");
    assert_string_equal(a->name, "node_0");
    check_order(g);

    /* Expanding again adds only what is new; the last node is the new output. */
    vnpu_graph_build_forward_expand(g, out);
    assert_int_equal(g->n_nodes, 6);
    struct vnpu_tensor *out2 = vnpu_scale(ctx, b, 2.0f);
    vnpu_graph_build_forward_expand(g, out2);
    assert_int_equal(g->n_nodes, 7);
    assert_ptr_equal(g->nodes[6], out2);
    check_order(g);
    vnpu_ctx_free(ctx);
}

/* A chain far deeper than a C stack would take recursively, in an arena sized by the overhead functions. */
static void test_graph_deep_chain(void **state) {
    (void) state;
    const int n = 20000;
    struct vnpu_ctx *ctx = vnpu_ctx_new((size_t) (n + 1) * vnpu_tensor_overhead() + vnpu_graph_overhead(n), true);
    struct vnpu_tensor *x = vnpu_new_tensor_1d(ctx, VNPU_TYPE_F32, 4);
    struct vnpu_tensor *cur = x;
    for (int i = 0; i < n; i++) {
        cur = vnpu_scale(ctx, cur, 1.0f);
    }
    struct vnpu_graph *g = vnpu_graph_new(ctx, n);
    vnpu_graph_build_forward_expand(g, cur);
    assert_int_equal(g->n_nodes, n);
    assert_int_equal(g->n_leafs, 1);
    assert_ptr_equal(g->nodes[n - 1], cur);
    assert_ptr_equal(g->nodes[0]->src[0], x);
    vnpu_ctx_free(ctx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_new_tensor_every_type),
        cmocka_unit_test(test_views),
        cmocka_unit_test(test_properties),
        cmocka_unit_test(test_op_constructors),
        cmocka_unit_test(test_graph_order),
        cmocka_unit_test(test_graph_deep_chain),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
