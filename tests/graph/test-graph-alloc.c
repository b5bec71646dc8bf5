/*
 * The graph allocator: memory is reused (the buffer is smaller than the sum of the tensors), results
 * equal those of a graph whose every tensor has its own memory, views keep their owner alive, INPUT and
 * OUTPUT memory is never reused, offsets respect the buffer type's alignment and alloc size, the buffer
 * grows only when a graph needs more, and a failed allocation changes nothing.
 *
 * Every placement is also checked against lifetimes computed here independently: two tensors alive at
 * the same node never share a byte.
 */
#include "test-common.h"

#include "buffer.h"
#include "cpu-backend.h"
#include "graph-alloc.h"

#include <stdlib.h>
#include <string.h>

/* ---- a host buffer type with a chosen alignment and padding, counting its allocations ---- */

struct test_bt {
    struct vnpu_buffer_type bt;
    size_t pad;   /* added to every tensor's alloc size */
    bool fail;    /* allocations fail */
    int n_allocs; /* buffers made */
};

static const char *test_bt_name(struct vnpu_buffer_type *bt) {
    (void) bt;
    return "TEST";
}

static enum vnpu_status test_bt_alloc(struct vnpu_buffer_type *bt, size_t size, struct vnpu_buffer **out) {
    struct test_bt *tb = (struct test_bt *) bt;
    if (tb->fail) {
        *out = NULL;
        return VNPU_STATUS_NO_MEMORY;
    }
    struct vnpu_buffer_type *host = vnpu_host_buffer_type();
    const enum vnpu_status st = host->iface->alloc_buffer(host, size, out);
    if (st == VNPU_STATUS_OK) {
        (*out)->type = bt;
        tb->n_allocs++;
    }
    return st;
}

static size_t test_bt_alloc_size(struct vnpu_buffer_type *bt, const struct vnpu_tensor *t) {
    return vnpu_nbytes(t) + ((struct test_bt *) bt)->pad;
}

static const struct vnpu_buffer_type_iface test_bt_iface = {
    .get_name = test_bt_name,
    .alloc_buffer = test_bt_alloc,
    .get_alloc_size = test_bt_alloc_size,
};

static struct test_bt test_bt_make(size_t alignment, size_t pad) {
    return (struct test_bt){.bt = {.iface = &test_bt_iface, .alignment = alignment}, .pad = pad};
}

/* ---- an independent check of a placement ---- */

/* The tensors of g that had no memory before allocation (owners only), recorded by the caller. */
struct owned {
    struct vnpu_tensor *t[256];
    int n;
};

static void owned_record(struct owned *o, const struct vnpu_graph *g) {
    o->n = 0;
    for (int i = 0; i < g->n_leafs + g->n_nodes; i++) {
        struct vnpu_tensor *t = i < g->n_leafs ? g->leafs[i] : g->nodes[i - g->n_leafs];
        if (!t->data && !t->view_src) {
            assert_true(o->n < 256);
            o->t[o->n++] = t;
        }
    }
}

/* The node index where t's memory is first live (-1 for leafs) and last read (n_nodes if to the end). */
static void lifetime(const struct vnpu_graph *g, const struct vnpu_tensor *t, int *first, int *last) {
    *first = -1;
    *last = -1;
    bool read = false;
    for (int i = 0; i < g->n_nodes; i++) {
        const struct vnpu_tensor *n = g->nodes[i];
        if (n == t) {
            *first = i;
        }
        for (int s = 0; s < VNPU_MAX_SRC; s++) {
            const struct vnpu_tensor *src = n->src[s];
            if (src && (src == t || src->view_src == t)) {
                *last = i;
            }
        }
    }
    /* Pinned: flagged, or some tensor sharing this memory is read by no node (a result). */
    for (int i = 0; i < g->n_leafs + g->n_nodes; i++) {
        const struct vnpu_tensor *x = i < g->n_leafs ? g->leafs[i] : g->nodes[i - g->n_leafs];
        if (x != t && x->view_src != t) {
            continue;
        }
        read = false;
        for (int j = 0; j < g->n_nodes && !read; j++) {
            for (int s = 0; s < VNPU_MAX_SRC; s++) {
                read = read || g->nodes[j]->src[s] == x;
            }
        }
        if (!read || (x->flags & (VNPU_TENSOR_FLAG_INPUT | VNPU_TENSOR_FLAG_OUTPUT))) {
            *last = g->n_nodes;
        }
    }
}

/* Offsets aligned and inside the buffer; tensors alive at the same node in disjoint bytes; views at
 * their owner's memory. Returns the sum of the owned tensors' alloc sizes. */
static size_t check_placement(const struct vnpu_graph *g, const struct owned *o, struct vnpu_buffer_type *bt,
                              const struct vnpu_gallocr *ga) {
    size_t sum = 0;
    for (int i = 0; i < o->n; i++) {
        const struct vnpu_tensor *a = o->t[i];
        assert_non_null(a->data);
        assert_non_null(a->buffer);
        const size_t off = (size_t) ((const char *) a->data - (const char *) a->buffer->base);
        const size_t size = vnpu_buffer_type_alloc_size(bt, a);
        assert_int_equal(off % bt->alignment, 0);
        assert_true(off + size <= vnpu_gallocr_buffer_size(ga));
        sum += size;
        int fa, la;
        lifetime(g, a, &fa, &la);
        for (int j = 0; j < i; j++) {
            const struct vnpu_tensor *b = o->t[j];
            int fb, lb;
            lifetime(g, b, &fb, &lb);
            const bool live_together = fa <= (lb > fb ? lb : fb) && fb <= (la > fa ? la : fa);
            const char *a0 = a->data, *b0 = b->data;
            const bool disjoint = a0 + size <= b0 || b0 + vnpu_buffer_type_alloc_size(bt, b) <= a0;
            if (live_together && !disjoint) {
                fail_msg("'%s' [%d, %d] and '%s' [%d, %d] share memory", a->name, fa, la, b->name, fb, lb);
            }
        }
    }
    for (int i = 0; i < g->n_nodes; i++) {
        const struct vnpu_tensor *n = g->nodes[i];
        if (n->view_src) {
            assert_ptr_equal(n->data, (const char *) n->view_src->data + n->view_offs);
        }
    }
    return sum;
}

/* ---- graphs ---- */

#define NE0 256
#define NE1 8

/* A chain of same-sized activations with skips, a view read late, and an OUTPUT read early. */
static struct vnpu_tensor *build_chain(struct vnpu_ctx *ctx, struct vnpu_tensor *x, int n_layers,
                                       struct vnpu_tensor **early_out) {
    struct vnpu_tensor *first = vnpu_silu(ctx, x);
    struct vnpu_tensor *half = vnpu_view_2d(ctx, first, NE0, NE1 / 2, first->nb[1], 0); /* read at the end */
    struct vnpu_tensor *cur = vnpu_scale(ctx, x, 0.5f);
    *early_out = vnpu_gelu(ctx, cur);
    (*early_out)->flags |= VNPU_TENSOR_FLAG_OUTPUT;
    cur = vnpu_add(ctx, *early_out, cur);
    for (int l = 0; l < n_layers; l++) {
        struct vnpu_tensor *h = vnpu_rms_norm(ctx, cur, 1e-5f);
        h = vnpu_mul(ctx, vnpu_silu(ctx, h), vnpu_scale(ctx, h, 0.25f));
        cur = vnpu_add(ctx, cur, h);
    }
    struct vnpu_tensor *top = vnpu_view_2d(ctx, cur, NE0, NE1 / 2, cur->nb[1], 0);
    struct vnpu_tensor *out = vnpu_add(ctx, vnpu_cont(ctx, top), half);
    out->flags |= VNPU_TENSOR_FLAG_OUTPUT;
    return out;
}

static void fill_input(struct vnpu_tensor *x) {
    struct test_rng rng;
    test_rng_seed(&rng, "graph-alloc input");
    for (int64_t i = 0; i < vnpu_nelements(x); i++) {
        ((float *) x->data)[i] = test_rng_normal(&rng, 1.0f);
    }
}

static void compute(struct vnpu_graph *g) {
    struct vnpu_device *dev;
    assert_int_equal(vnpu_cpu_device_new(2, &dev), VNPU_STATUS_OK);
    assert_int_equal(dev->iface->graph_compute(dev, g->nodes, g->n_nodes), VNPU_STATUS_OK);
    vnpu_device_free(dev);
}

static void test_reuse_matches_own_memory(void **state) {
    (void) state;
    const int n_layers = 6;
    /* The reference: every tensor with its own arena memory. */
    struct vnpu_ctx *ref_ctx = vnpu_ctx_new(1 << 22, false);
    struct vnpu_tensor *ref_x = vnpu_new_tensor_2d(ref_ctx, VNPU_TYPE_F32, NE0, NE1);
    fill_input(ref_x);
    struct vnpu_tensor *ref_early;
    struct vnpu_tensor *ref_out = build_chain(ref_ctx, ref_x, n_layers, &ref_early);
    struct vnpu_graph *ref_g = vnpu_graph_new(ref_ctx, 256);
    vnpu_graph_build_forward_expand(ref_g, ref_out);
    compute(ref_g);

    struct vnpu_ctx *ctx = vnpu_ctx_new(1 << 20, true);
    struct vnpu_tensor *x = vnpu_new_tensor_2d(ctx, VNPU_TYPE_F32, NE0, NE1);
    x->flags |= VNPU_TENSOR_FLAG_INPUT;
    struct vnpu_tensor *early;
    struct vnpu_tensor *out = build_chain(ctx, x, n_layers, &early);
    struct vnpu_graph *g = vnpu_graph_new(ctx, 256);
    vnpu_graph_build_forward_expand(g, out);
    assert_int_equal(g->n_nodes, ref_g->n_nodes);

    struct test_bt tb = test_bt_make(128, 0);
    struct vnpu_gallocr *ga = vnpu_gallocr_new(&tb.bt);
    assert_non_null(ga);
    assert_int_equal(vnpu_gallocr_buffer_size(ga), 0);
    struct owned o;
    owned_record(&o, g);
    assert_int_equal(vnpu_gallocr_alloc_graph(ga, g), VNPU_STATUS_OK);
    const size_t sum = check_placement(g, &o, &tb.bt, ga);
    assert_true(vnpu_gallocr_buffer_size(ga) < sum / 3); /* reuse: about six live activations of ~30 */
    fill_input(x);
    compute(g);

    const size_t bytes = vnpu_nbytes(out);
    assert_memory_equal(out->data, ref_out->data, bytes);
    assert_memory_equal(early->data, ref_early->data, vnpu_nbytes(early)); /* OUTPUT survives */
    assert_memory_equal(x->data, ref_x->data, vnpu_nbytes(x));             /* INPUT untouched */
    vnpu_gallocr_free(ga);
    vnpu_ctx_free(ctx);
    vnpu_ctx_free(ref_ctx);
}

static void test_alignment_and_alloc_size(void **state) {
    (void) state;
    struct vnpu_ctx *ctx = vnpu_ctx_new(1 << 20, true);
    struct vnpu_tensor *x = vnpu_new_tensor_2d(ctx, VNPU_TYPE_F32, NE0, NE1);
    x->flags |= VNPU_TENSOR_FLAG_INPUT;
    struct vnpu_tensor *early;
    struct vnpu_graph *g = vnpu_graph_new(ctx, 256);
    vnpu_graph_build_forward_expand(g, build_chain(ctx, x, 3, &early));
    struct test_bt tb = test_bt_make(4096, 100);
    struct vnpu_gallocr *ga = vnpu_gallocr_new(&tb.bt);
    struct owned o;
    owned_record(&o, g);
    assert_int_equal(vnpu_gallocr_alloc_graph(ga, g), VNPU_STATUS_OK);
    check_placement(g, &o, &tb.bt, ga);
    vnpu_gallocr_free(ga);
    vnpu_ctx_free(ctx);
}

/* A graph of n_layers over rows of ne0 floats, in its own arena. */
static struct vnpu_graph *build_sized(struct vnpu_ctx *ctx, int64_t ne0, int n_layers) {
    struct vnpu_tensor *x = vnpu_new_tensor_2d(ctx, VNPU_TYPE_F32, ne0, NE1);
    x->flags |= VNPU_TENSOR_FLAG_INPUT;
    struct vnpu_tensor *cur = x;
    for (int l = 0; l < n_layers; l++) {
        cur = vnpu_add(ctx, vnpu_silu(ctx, cur), cur);
    }
    struct vnpu_graph *g = vnpu_graph_new(ctx, 256);
    vnpu_graph_build_forward_expand(g, cur);
    return g;
}

static void test_grow_and_reuse_across_graphs(void **state) {
    (void) state;
    struct test_bt tb = test_bt_make(128, 0);
    struct vnpu_gallocr *ga = vnpu_gallocr_new(&tb.bt);

    struct vnpu_ctx *c1 = vnpu_ctx_new(1 << 20, true);
    struct vnpu_graph *small = build_sized(c1, 64, 4);
    struct owned o;
    owned_record(&o, small);
    assert_int_equal(vnpu_gallocr_alloc_graph(ga, small), VNPU_STATUS_OK);
    check_placement(small, &o, &tb.bt, ga);
    const size_t s1 = vnpu_gallocr_buffer_size(ga);
    assert_int_equal(tb.n_allocs, 1);
    vnpu_ctx_free(c1);

    struct vnpu_ctx *c2 = vnpu_ctx_new(1 << 20, true);
    struct vnpu_graph *big = build_sized(c2, 1024, 4);
    owned_record(&o, big);
    assert_int_equal(vnpu_gallocr_alloc_graph(ga, big), VNPU_STATUS_OK);
    check_placement(big, &o, &tb.bt, ga);
    const size_t s2 = vnpu_gallocr_buffer_size(ga);
    assert_true(s2 > s1);
    assert_int_equal(tb.n_allocs, 2);
    vnpu_ctx_free(c2);

    /* A smaller graph again: the buffer is reused as is. */
    struct vnpu_ctx *c3 = vnpu_ctx_new(1 << 20, true);
    struct vnpu_graph *again = build_sized(c3, 512, 9);
    owned_record(&o, again);
    assert_int_equal(vnpu_gallocr_alloc_graph(ga, again), VNPU_STATUS_OK);
    check_placement(again, &o, &tb.bt, ga);
    assert_int_equal(vnpu_gallocr_buffer_size(ga), s2);
    assert_int_equal(tb.n_allocs, 2);
    vnpu_ctx_free(c3);
    vnpu_gallocr_free(ga);

    /* Reserving for the largest graph first: later graphs never reallocate. */
    struct test_bt tr = test_bt_make(128, 0);
    ga = vnpu_gallocr_new(&tr.bt);
    struct vnpu_ctx *c4 = vnpu_ctx_new(1 << 20, true);
    assert_int_equal(vnpu_gallocr_reserve(ga, build_sized(c4, 1024, 4)), VNPU_STATUS_OK);
    assert_int_equal(vnpu_gallocr_buffer_size(ga), s2);
    assert_int_equal(vnpu_gallocr_alloc_graph(ga, build_sized(c4, 64, 4)), VNPU_STATUS_OK);
    assert_int_equal(vnpu_gallocr_alloc_graph(ga, build_sized(c4, 1024, 4)), VNPU_STATUS_OK);
    assert_int_equal(tr.n_allocs, 1);
    vnpu_ctx_free(c4);
    vnpu_gallocr_free(ga);
}

static void test_existing_data_and_outside_owner(void **state) {
    (void) state;
    struct vnpu_ctx *ctx = vnpu_ctx_new(1 << 20, true);
    float weight_data[NE0] = {0};
    struct vnpu_tensor *w = vnpu_new_tensor_1d(ctx, VNPU_TYPE_F32, NE0);
    w->data = weight_data;
    struct vnpu_tensor *wv = vnpu_view_1d(ctx, w, NE0 / 2, 0); /* made after w has data: has it too */
    struct vnpu_tensor *owner = vnpu_new_tensor_2d(ctx, VNPU_TYPE_F32, NE0 / 2, NE1);
    struct vnpu_tensor *outside = vnpu_view_tensor(ctx, owner); /* a leaf; its owner is in no graph */
    struct vnpu_tensor *out = vnpu_mul(ctx, vnpu_silu(ctx, outside), wv);
    struct vnpu_graph *g = vnpu_graph_new(ctx, 16);
    vnpu_graph_build_forward_expand(g, out);

    struct test_bt tb = test_bt_make(128, 0);
    struct vnpu_gallocr *ga = vnpu_gallocr_new(&tb.bt);
    assert_int_equal(vnpu_gallocr_alloc_graph(ga, g), VNPU_STATUS_OK);
    assert_ptr_equal(w->data, weight_data);
    assert_ptr_equal(wv->data, weight_data);
    assert_null(w->buffer);
    assert_non_null(owner->data);
    assert_ptr_equal(outside->data, owner->data);
    assert_ptr_equal(outside->buffer, owner->buffer);
    assert_non_null(out->data);
    /* owner, silu and out are live together: three disjoint blocks. */
    const char *p[3] = {owner->data, out->src[0]->data, out->data};
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < i; j++) {
            assert_true(p[i] + NE0 / 2 * NE1 * 4 <= p[j] || p[j] + NE0 / 2 * NE1 * 4 <= p[i]);
        }
    }
    vnpu_gallocr_free(ga);
    vnpu_ctx_free(ctx);
}

static void test_failed_allocation_changes_nothing(void **state) {
    (void) state;
    struct vnpu_ctx *ctx = vnpu_ctx_new(1 << 20, true);
    struct vnpu_graph *g = build_sized(ctx, 64, 3);
    struct test_bt tb = test_bt_make(128, 0);
    tb.fail = true;
    struct vnpu_gallocr *ga = vnpu_gallocr_new(&tb.bt);
    assert_int_equal(vnpu_gallocr_alloc_graph(ga, g), VNPU_STATUS_NO_MEMORY);
    assert_int_equal(vnpu_gallocr_reserve(ga, g), VNPU_STATUS_NO_MEMORY);
    assert_int_equal(vnpu_gallocr_buffer_size(ga), 0);
    for (int i = 0; i < g->n_nodes; i++) {
        assert_null(g->nodes[i]->data);
        assert_null(g->nodes[i]->buffer);
    }
    /* The allocator is still usable once memory is there. */
    tb.fail = false;
    assert_int_equal(vnpu_gallocr_alloc_graph(ga, g), VNPU_STATUS_OK);
    assert_non_null(g->nodes[g->n_nodes - 1]->data);
    vnpu_gallocr_free(ga);
    vnpu_gallocr_free(NULL);
    vnpu_ctx_free(ctx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reuse_matches_own_memory),
        cmocka_unit_test(test_alignment_and_alloc_size),
        cmocka_unit_test(test_grow_and_reuse_across_graphs),
        cmocka_unit_test(test_existing_data_and_outside_owner),
        cmocka_unit_test(test_failed_allocation_changes_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
