#include "op-test.h"

#include "backend.h"
#include "cpu-backend.h"
#include "fp16.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OP_GUARD       64   /* sentinel bytes on each side of every block */
#define OP_GUARD_BYTE  0xA5 /* their value */
#define OP_POISON_BYTE 0xFF /* computed memory before each run: NaN in F32, F16 and BF16 */
#define OP_ARENA_BYTES (1u << 20)
#define OP_GRAPH_SIZE  64
#define OP_THREADS     3 /* runs on 1..OP_THREADS threads */

enum op_mem_kind {
    OP_MEM_LEAF, /* input data: restored before each run */
    OP_MEM_NODE, /* computed: poisoned before each run */
    OP_MEM_REF,  /* a reference buffer of the test */
};

struct op_mem {
    unsigned char *block; /* guard, size bytes, guard */
    size_t size;
    enum op_mem_kind kind;
    unsigned char *snapshot; /* leafs: the data every run starts from */
};

static struct vnpu_device *op_devices[OP_THREADS];

int op_test_teardown(void **state) {
    (void) state;
    for (int i = 0; i < OP_THREADS; i++) {
        vnpu_device_free(op_devices[i]);
        op_devices[i] = NULL;
    }
    return 0;
}

static struct vnpu_device *op_device(int n_threads) {
    struct vnpu_device **dev = &op_devices[n_threads - 1];
    if (!*dev) {
        assert_int_equal(vnpu_cpu_device_new(n_threads, dev), VNPU_STATUS_OK);
    }
    return *dev;
}

void op_test_begin(struct op_test *t, const char *fmt, ...) {
    memset(t, 0, sizeof(*t));
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->name, sizeof(t->name), fmt, ap);
    va_end(ap);
    printf("%s\n", t->name);
    test_rng_seed(&t->rng, t->name);
    t->ctx = vnpu_ctx_new(OP_ARENA_BYTES, true);
    assert_non_null(t->ctx);
}

static void *op_mem_new(struct op_test *t, size_t size, enum op_mem_kind kind) {
    if (t->n_mem == t->cap_mem) {
        t->cap_mem = t->cap_mem ? 2 * t->cap_mem : 16;
        t->mem = realloc(t->mem, (size_t) t->cap_mem * sizeof(*t->mem));
        assert_non_null(t->mem);
    }
    struct op_mem *m = &t->mem[t->n_mem++];
    m->block = malloc(size + 2 * OP_GUARD);
    assert_non_null(m->block);
    m->size = size;
    m->kind = kind;
    m->snapshot = NULL;
    memset(m->block, OP_GUARD_BYTE, OP_GUARD);
    memset(m->block + OP_GUARD, 0, size);
    memset(m->block + OP_GUARD + size, OP_GUARD_BYTE, OP_GUARD);
    return m->block + OP_GUARD;
}

static void op_check_guards(const struct op_test *t) {
    for (int i = 0; i < t->n_mem; i++) {
        const struct op_mem *m = &t->mem[i];
        for (size_t j = 0; j < OP_GUARD; j++) {
            if (m->block[j] != OP_GUARD_BYTE || m->block[OP_GUARD + m->size + j] != OP_GUARD_BYTE) {
                fail_msg("%s: a sentinel byte around block %d (%zu bytes) was overwritten", t->name, i, m->size);
            }
        }
    }
}

void op_test_end(struct op_test *t) {
    op_check_guards(t);
    for (int i = 0; i < t->n_mem; i++) {
        free(t->mem[i].block);
        free(t->mem[i].snapshot);
    }
    free(t->mem);
    vnpu_ctx_free(t->ctx);
    memset(t, 0, sizeof(*t));
}

double *op_test_ref(struct op_test *t, int64_t n) {
    return op_mem_new(t, (size_t) (n > 0 ? n : 1) * sizeof(double), OP_MEM_REF);
}

int op_test_types_with_to_f32(enum vnpu_type types[], int cap) {
    int n = 0;
    for (uint32_t i = 0; i < VNPU_TYPE_COUNT; i++) {
        if (vnpu_type_is_valid(i) && vnpu_type_traits_get((enum vnpu_type) i)->to_f32) {
            assert_true(n < cap);
            types[n++] = (enum vnpu_type) i;
        }
    }
    return n;
}

/* ---- element access ---- */

static char *op_at(const struct vnpu_tensor *x, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
    return (char *) x->data + i0 * (int64_t) x->nb[0] + i1 * (int64_t) x->nb[1] + i2 * (int64_t) x->nb[2] +
           i3 * (int64_t) x->nb[3];
}

double op_test_get(const struct vnpu_tensor *x, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
    const char *p = op_at(x, i0, i1, i2, i3);
    if (x->type == VNPU_TYPE_F32) {
        return *(const float *) p;
    }
    if (x->type == VNPU_TYPE_F16) {
        return vnpu_fp16_to_f32(*(const vnpu_fp16_t *) p);
    }
    if (x->type == VNPU_TYPE_BF16) {
        return vnpu_bf16_to_f32(*(const vnpu_bf16_t *) p);
    }
    if (x->type == VNPU_TYPE_I32) {
        return *(const int32_t *) p;
    }
    assert_int_equal(x->type, VNPU_TYPE_I64);
    return (double) *(const int64_t *) p;
}

void op_test_set(struct vnpu_tensor *x, int64_t i0, int64_t i1, int64_t i2, int64_t i3, double v) {
    char *p = op_at(x, i0, i1, i2, i3);
    if (x->type == VNPU_TYPE_F32) {
        *(float *) p = (float) v;
    } else if (x->type == VNPU_TYPE_F16) {
        *(vnpu_fp16_t *) p = vnpu_f32_to_fp16((float) v);
    } else if (x->type == VNPU_TYPE_BF16) {
        *(vnpu_bf16_t *) p = vnpu_f32_to_bf16((float) v);
    } else if (x->type == VNPU_TYPE_I32) {
        *(int32_t *) p = (int32_t) v;
    } else {
        assert_int_equal(x->type, VNPU_TYPE_I64);
        *(int64_t *) p = (int64_t) v;
    }
}

/* ---- inputs ---- */

/* A block of random bytes whose values are finite and moderate, for block types without a quantizer. */
static void op_fill_random_block(struct op_test *t, const struct vnpu_type_traits *tt, unsigned char *blk) {
    float v[512];
    assert_true(tt->blck <= 512);
    for (int attempt = 0; attempt < 256; attempt++) {
        for (size_t j = 0; j < tt->size; j++) {
            blk[j] = (unsigned char) test_rng_next(&t->rng);
        }
        tt->to_f32(blk, v, tt->blck);
        bool ok = true;
        for (int64_t j = 0; j < tt->blck && ok; j++) {
            ok = isfinite(v[j]) && fabsf(v[j]) <= 1e3f;
        }
        if (ok) {
            return;
        }
    }
    memset(blk, 0, tt->size); /* every block format reads all-zero bytes as zeros */
}

/* Fill all of a contiguous tensor with N(0, 1) data in its type. */
static void op_fill_random(struct op_test *t, struct vnpu_tensor *x) {
    const struct vnpu_type_traits *tt = vnpu_type_traits_get(x->type);
    const int64_t ne0 = x->ne[0], nrows = vnpu_nrows(x);
    if (x->type == VNPU_TYPE_F32 || x->type == VNPU_TYPE_F16 || x->type == VNPU_TYPE_BF16) {
        for (int64_t r = 0; r < nrows; r++) {
            for (int64_t i = 0; i < ne0; i++) {
                op_test_set(x, i, r, 0, 0, test_rng_normal(&t->rng, 1.0f));
            }
        }
    } else if (tt->is_quantized && tt->from_f32_ref) {
        float *row = malloc((size_t) ne0 * sizeof(float));
        assert_non_null(row);
        for (int64_t r = 0; r < nrows; r++) {
            for (int64_t i = 0; i < ne0; i++) {
                row[i] = test_rng_normal(&t->rng, 1.0f);
            }
            tt->from_f32_ref(row, op_at(x, 0, r, 0, 0), ne0);
        }
        free(row);
    } else if (tt->is_quantized && tt->to_f32) {
        for (int64_t r = 0; r < nrows; r++) {
            for (int64_t b = 0; b < ne0 / tt->blck; b++) {
                op_fill_random_block(t, tt, (unsigned char *) op_at(x, b, r, 0, 0));
            }
        }
    }
}

static struct vnpu_tensor *op_leaf_new(struct op_test *t, enum vnpu_type type, const int64_t ne[4]) {
    struct vnpu_tensor *x = vnpu_new_tensor(t->ctx, type, 4, ne);
    x->data = op_mem_new(t, vnpu_nbytes(x), OP_MEM_LEAF);
    return x;
}

struct vnpu_tensor *op_test_leaf(struct op_test *t, enum vnpu_type type, const int64_t ne[4]) {
    return op_leaf_new(t, type, ne);
}

struct vnpu_tensor *op_test_input(struct op_test *t, enum vnpu_type type, const int64_t ne[4], enum op_layout layout) {
    const struct vnpu_type_traits *tt = vnpu_type_traits_get(type);
    int64_t base_ne[4] = {ne[0], ne[1], ne[2], ne[3]};
    switch (layout) {
        case OP_LAYOUT_CONT: break;
        case OP_LAYOUT_VIEW:
            base_ne[0] = ne[0] + 2 * tt->blck;
            base_ne[1] = ne[1] + 1;
            break;
        case OP_LAYOUT_PERM:
            base_ne[1] = ne[2];
            base_ne[2] = ne[1];
            break;
        case OP_LAYOUT_TRANS:
            assert_int_equal(tt->blck, 1);
            base_ne[0] = ne[1];
            base_ne[1] = ne[0];
            break;
    }
    struct vnpu_tensor *base = op_leaf_new(t, type, base_ne);
    op_fill_random(t, base);
    vnpu_set_name(base, "input");
    switch (layout) {
        case OP_LAYOUT_CONT: return base;
        case OP_LAYOUT_VIEW:
            return vnpu_view_4d(t->ctx, base, ne[0], ne[1], ne[2], ne[3], base->nb[1], base->nb[2], base->nb[3],
                                base->nb[1] + tt->size);
        case OP_LAYOUT_PERM: return vnpu_permute(t->ctx, base, 0, 2, 1, 3);
        case OP_LAYOUT_TRANS: return vnpu_transpose(t->ctx, base);
    }
    return NULL;
}

/* ---- compute and compare ---- */

void op_test_compute(struct op_test *t, struct vnpu_tensor *out) {
    struct vnpu_graph *g = vnpu_graph_new(t->ctx, OP_GRAPH_SIZE);
    vnpu_graph_build_forward_expand(g, out);
    for (int i = 0; i < g->n_nodes; i++) {
        struct vnpu_tensor *n = g->nodes[i];
        if (!vnpu_device_supports_op(op_device(1), n)) {
            fail_msg("%s: the CPU device does not support node %d (%s)", t->name, i, vnpu_op_desc(n));
        }
        if (!n->data && !n->view_src) {
            n->data = op_mem_new(t, vnpu_nbytes(n), OP_MEM_NODE);
        }
    }
    for (int i = 0; i < g->n_nodes; i++) {
        struct vnpu_tensor *n = g->nodes[i];
        if (!n->data) {
            n->data = (char *) n->view_src->data + n->view_offs;
        }
    }
    for (int i = 0; i < t->n_mem; i++) {
        struct op_mem *m = &t->mem[i];
        if (m->kind == OP_MEM_LEAF && !m->snapshot) {
            m->snapshot = malloc(m->size ? m->size : 1);
            assert_non_null(m->snapshot);
            memcpy(m->snapshot, m->block + OP_GUARD, m->size);
        }
    }

    const size_t out_bytes = vnpu_nbytes(out);
    unsigned char *first = malloc(out_bytes ? out_bytes : 1);
    assert_non_null(first);
    for (int n_threads = 1; n_threads <= OP_THREADS; n_threads++) {
        for (int i = 0; i < t->n_mem; i++) {
            struct op_mem *m = &t->mem[i];
            if (m->kind == OP_MEM_LEAF) {
                memcpy(m->block + OP_GUARD, m->snapshot, m->size);
            } else if (m->kind == OP_MEM_NODE) {
                memset(m->block + OP_GUARD, OP_POISON_BYTE, m->size);
            }
        }
        struct vnpu_device *dev = op_device(n_threads);
        assert_int_equal(dev->iface->graph_compute(dev, g->nodes, g->n_nodes), VNPU_STATUS_OK);
        op_check_guards(t);
        if (n_threads == 1) {
            memcpy(first, out->data, out_bytes);
        } else if (memcmp(first, out->data, out_bytes) != 0) {
            free(first);
            fail_msg("%s: the output on %d threads differs from the output on 1 thread", t->name, n_threads);
        }
    }
    free(first);
}

double op_test_nmse(const struct vnpu_tensor *out, const double *ref) {
    double err = 0.0, norm = 0.0;
    int64_t k = 0;
    for (int64_t i3 = 0; i3 < out->ne[3]; i3++) {
        for (int64_t i2 = 0; i2 < out->ne[2]; i2++) {
            for (int64_t i1 = 0; i1 < out->ne[1]; i1++) {
                for (int64_t i0 = 0; i0 < out->ne[0]; i0++, k++) {
                    const double d = op_test_get(out, i0, i1, i2, i3) - ref[k];
                    err += d * d;
                    norm += ref[k] * ref[k];
                }
            }
        }
    }
    return norm > 0.0 ? err / norm : err;
}

void op_test_check(const struct op_test *t, const struct vnpu_tensor *out, const double *ref, double nmse_max) {
    const double nmse = op_test_nmse(out, ref);
    if (!(nmse <= nmse_max)) {
        fail_msg("%s: NMSE %.3g > %.3g", t->name, nmse, nmse_max);
    }
}
