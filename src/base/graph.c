/*
 * The op graph: op constructors (nodes with GGML's shapes, sources and op_params) and the ordering of a
 * graph's nodes.
 *
 * Each constructor mirrors its ggml.c function (ggml 0.23.0): the same result shape and type, src[]
 * order and op_params layout, and the same shape asserts (VNPU_ASSERT: a wrong shape is a programming
 * error). Layout preconditions ggml asserts for its own kernels' sake (contiguous inputs of SOFT_MAX,
 * UNARY, GLU, SCALE) are left to each device's supports_op: the CPU backend takes any strides.
 */
#include "tensor.h"

#include "hash.h"
#include "log.h"

#include <stdint.h>
#include <string.h>

/* A new tensor with a's type and shape (ggml_dup_tensor). */
static struct vnpu_tensor *dup_tensor(struct vnpu_ctx *ctx, const struct vnpu_tensor *a) {
    return vnpu_new_tensor(ctx, a->type, VNPU_MAX_DIMS, a->ne);
}

static void set_op_param_f32(struct vnpu_tensor *t, int i, float v) {
    memcpy(&t->op_params[i], &v, sizeof(v));
}

/* ---- elementwise ---- */

static struct vnpu_tensor *binary_impl(struct vnpu_ctx *ctx, struct vnpu_tensor *a, struct vnpu_tensor *b,
                                       enum vnpu_op op) {
    VNPU_ASSERT(vnpu_can_repeat(b, a));
    struct vnpu_tensor *t = dup_tensor(ctx, a);
    t->op = op;
    t->src[0] = a;
    t->src[1] = b;
    return t;
}

struct vnpu_tensor *vnpu_add(struct vnpu_ctx *ctx, struct vnpu_tensor *a, struct vnpu_tensor *b) {
    return binary_impl(ctx, a, b, VNPU_OP_ADD);
}

struct vnpu_tensor *vnpu_sub(struct vnpu_ctx *ctx, struct vnpu_tensor *a, struct vnpu_tensor *b) {
    return binary_impl(ctx, a, b, VNPU_OP_SUB);
}

struct vnpu_tensor *vnpu_mul(struct vnpu_ctx *ctx, struct vnpu_tensor *a, struct vnpu_tensor *b) {
    return binary_impl(ctx, a, b, VNPU_OP_MUL);
}

struct vnpu_tensor *vnpu_div(struct vnpu_ctx *ctx, struct vnpu_tensor *a, struct vnpu_tensor *b) {
    return binary_impl(ctx, a, b, VNPU_OP_DIV);
}

struct vnpu_tensor *vnpu_scale_bias(struct vnpu_ctx *ctx, struct vnpu_tensor *a, float s, float b) {
    struct vnpu_tensor *t = dup_tensor(ctx, a);
    set_op_param_f32(t, 0, s);
    set_op_param_f32(t, 1, b);
    t->op = VNPU_OP_SCALE;
    t->src[0] = a;
    return t;
}

struct vnpu_tensor *vnpu_scale(struct vnpu_ctx *ctx, struct vnpu_tensor *a, float s) {
    return vnpu_scale_bias(ctx, a, s, 0.0f);
}

struct vnpu_tensor *vnpu_rms_norm(struct vnpu_ctx *ctx, struct vnpu_tensor *a, float eps) {
    struct vnpu_tensor *t = dup_tensor(ctx, a);
    set_op_param_f32(t, 0, eps);
    t->op = VNPU_OP_RMS_NORM;
    t->src[0] = a;
    return t;
}

struct vnpu_tensor *vnpu_unary(struct vnpu_ctx *ctx, struct vnpu_tensor *a, enum vnpu_unary_op op) {
    VNPU_ASSERT((unsigned) op < VNPU_UNARY_OP_COUNT);
    struct vnpu_tensor *t = dup_tensor(ctx, a);
    t->op_params[0] = (int32_t) op;
    t->op = VNPU_OP_UNARY;
    t->src[0] = a;
    return t;
}

struct vnpu_tensor *vnpu_silu(struct vnpu_ctx *ctx, struct vnpu_tensor *a) {
    return vnpu_unary(ctx, a, VNPU_UNARY_OP_SILU);
}

struct vnpu_tensor *vnpu_gelu(struct vnpu_ctx *ctx, struct vnpu_tensor *a) {
    return vnpu_unary(ctx, a, VNPU_UNARY_OP_GELU);
}

struct vnpu_tensor *vnpu_glu_split(struct vnpu_ctx *ctx, struct vnpu_tensor *a, struct vnpu_tensor *b,
                                   enum vnpu_glu_op op) {
    VNPU_ASSERT((unsigned) op < VNPU_GLU_OP_COUNT);
    VNPU_ASSERT(vnpu_are_same_shape(a, b) && a->type == b->type);
    struct vnpu_tensor *t = dup_tensor(ctx, a);
    t->op_params[0] = (int32_t) op;
    t->op_params[1] = 0; /* swapped: ggml_glu_split never swaps */
    t->op = VNPU_OP_GLU;
    t->src[0] = a;
    t->src[1] = b;
    return t;
}

struct vnpu_tensor *vnpu_swiglu_split(struct vnpu_ctx *ctx, struct vnpu_tensor *a, struct vnpu_tensor *b) {
    return vnpu_glu_split(ctx, a, b, VNPU_GLU_OP_SWIGLU);
}

/* ---- matrix products ---- */

struct vnpu_tensor *vnpu_mul_mat(struct vnpu_ctx *ctx, struct vnpu_tensor *a, struct vnpu_tensor *b) {
    VNPU_ASSERT(a->ne[0] == b->ne[0] && b->ne[2] % a->ne[2] == 0 && b->ne[3] % a->ne[3] == 0); /* ggml_can_mul_mat */
    VNPU_ASSERT(!vnpu_is_transposed(a));
    struct vnpu_tensor *t = vnpu_new_tensor_4d(ctx, VNPU_TYPE_F32, a->ne[1], b->ne[1], b->ne[2], b->ne[3]);
    t->op = VNPU_OP_MUL_MAT;
    t->src[0] = a;
    t->src[1] = b;
    return t;
}

struct vnpu_tensor *vnpu_mul_mat_id(struct vnpu_ctx *ctx, struct vnpu_tensor *as, struct vnpu_tensor *b,
                                    struct vnpu_tensor *ids) {
    VNPU_ASSERT(!vnpu_is_transposed(as));
    VNPU_ASSERT(ids->type == VNPU_TYPE_I32);
    VNPU_ASSERT(as->ne[3] == 1 && b->ne[3] == 1);            /* one matrix per expert; b is 3d */
    VNPU_ASSERT(ids->ne[2] == 1 && ids->ne[3] == 1);         /* ids is 2d */
    VNPU_ASSERT(ids->ne[1] == b->ne[2]);                     /* one column of ids per token */
    VNPU_ASSERT(as->ne[0] == b->ne[0]);                      /* the product's inner dimension */
    VNPU_ASSERT(b->ne[1] > 0 && ids->ne[0] % b->ne[1] == 0); /* b's rows broadcast over the used experts */
    struct vnpu_tensor *t = vnpu_new_tensor_4d(ctx, VNPU_TYPE_F32, as->ne[1], ids->ne[0], b->ne[2], 1);
    t->op = VNPU_OP_MUL_MAT_ID;
    t->src[0] = as;
    t->src[1] = b;
    t->src[2] = ids;
    return t;
}

/* ---- rows and copies ---- */

struct vnpu_tensor *vnpu_get_rows(struct vnpu_ctx *ctx, struct vnpu_tensor *a, struct vnpu_tensor *b) {
    VNPU_ASSERT(a->ne[2] == b->ne[1] && a->ne[3] == b->ne[2] && b->ne[3] == 1);
    VNPU_ASSERT(b->type == VNPU_TYPE_I32);
    const enum vnpu_type type = a->type == VNPU_TYPE_I32 ? VNPU_TYPE_I32 : VNPU_TYPE_F32;
    struct vnpu_tensor *t = vnpu_new_tensor_4d(ctx, type, a->ne[0], b->ne[0], b->ne[1], b->ne[2]);
    t->op = VNPU_OP_GET_ROWS;
    t->src[0] = a;
    t->src[1] = b;
    return t;
}

struct vnpu_tensor *vnpu_set_rows(struct vnpu_ctx *ctx, struct vnpu_tensor *a, struct vnpu_tensor *b,
                                  struct vnpu_tensor *c) {
    VNPU_ASSERT(a->ne[0] == b->ne[0] && a->ne[2] == b->ne[2] && a->ne[3] == b->ne[3]);
    VNPU_ASSERT(b->ne[1] == c->ne[0] && b->ne[2] % c->ne[1] == 0 && b->ne[3] % c->ne[2] == 0 && c->ne[3] == 1);
    VNPU_ASSERT(b->type == VNPU_TYPE_F32);
    VNPU_ASSERT(c->type == VNPU_TYPE_I64 || c->type == VNPU_TYPE_I32);
    VNPU_ASSERT(vnpu_is_contiguous_rows(a) && vnpu_is_contiguous_rows(b));
    struct vnpu_tensor *t = vnpu_view_tensor(ctx, a);
    t->op = VNPU_OP_SET_ROWS;
    t->src[0] = b;
    t->src[1] = c;
    t->src[2] = a; /* ggml's order: the destination last, so the graph holds it */
    return t;
}

struct vnpu_tensor *vnpu_cpy(struct vnpu_ctx *ctx, struct vnpu_tensor *a, struct vnpu_tensor *b) {
    VNPU_ASSERT(vnpu_nelements(a) == vnpu_nelements(b));
    struct vnpu_tensor *t = vnpu_view_tensor(ctx, b);
    if (b->name[0]) {
        vnpu_set_name(t, "%s (copy of %s)", b->name, a->name);
    } else {
        vnpu_set_name_suffix(t, a->name, " (copy)");
    }
    t->op = VNPU_OP_CPY;
    t->src[0] = a;
    t->src[1] = b;
    return t;
}

struct vnpu_tensor *vnpu_cont(struct vnpu_ctx *ctx, struct vnpu_tensor *a) {
    struct vnpu_tensor *t = dup_tensor(ctx, a);
    vnpu_set_name_suffix(t, a->name, " (cont)");
    t->op = VNPU_OP_CONT;
    t->src[0] = a;
    return t;
}

/* ---- attention ---- */

struct vnpu_tensor *vnpu_soft_max_ext(struct vnpu_ctx *ctx, struct vnpu_tensor *a, struct vnpu_tensor *mask,
                                      float scale, float max_bias) {
    if (mask) {
        VNPU_ASSERT(mask->type == VNPU_TYPE_F16 || mask->type == VNPU_TYPE_F32);
        VNPU_ASSERT(mask->ne[0] == a->ne[0] && mask->ne[1] >= a->ne[1]);
        VNPU_ASSERT(a->ne[2] % mask->ne[2] == 0 && a->ne[3] % mask->ne[3] == 0);
    }
    VNPU_ASSERT(max_bias <= 0.0f || mask); /* ALiBi rides on the mask */
    struct vnpu_tensor *t = dup_tensor(ctx, a);
    set_op_param_f32(t, 0, scale);
    set_op_param_f32(t, 1, max_bias);
    t->op = VNPU_OP_SOFT_MAX;
    t->src[0] = a;
    t->src[1] = mask;
    return t;
}

struct vnpu_tensor *vnpu_rope_ext(struct vnpu_ctx *ctx, struct vnpu_tensor *a, struct vnpu_tensor *b,
                                  struct vnpu_tensor *freq_factors, int n_dims, int mode, int n_ctx_orig,
                                  float freq_base, float freq_scale, float ext_factor, float attn_factor,
                                  float beta_fast, float beta_slow) {
    VNPU_ASSERT((mode & 1) == 0); /* ggml dropped mode bit 0 */
    VNPU_ASSERT(b->type == VNPU_TYPE_I32 && b->ne[1] == 1 && b->ne[2] == 1 && b->ne[3] == 1);
    VNPU_ASSERT(a->ne[2] == b->ne[0]); /* one position per token */
    VNPU_ASSERT(n_dims > 0 && n_dims % 2 == 0 && n_dims <= a->ne[0]);
    if (freq_factors) {
        VNPU_ASSERT(freq_factors->type == VNPU_TYPE_F32 && freq_factors->ne[0] >= n_dims / 2);
    }
    struct vnpu_tensor *t = dup_tensor(ctx, a);
    t->op_params[0] = 0; /* n_past, unused */
    t->op_params[1] = n_dims;
    t->op_params[2] = mode;
    t->op_params[3] = 0; /* n_ctx, unused */
    t->op_params[4] = n_ctx_orig;
    set_op_param_f32(t, 5, freq_base);
    set_op_param_f32(t, 6, freq_scale);
    set_op_param_f32(t, 7, ext_factor);
    set_op_param_f32(t, 8, attn_factor);
    set_op_param_f32(t, 9, beta_fast);
    set_op_param_f32(t, 10, beta_slow);
    t->op = VNPU_OP_ROPE;
    t->src[0] = a;
    t->src[1] = b;
    t->src[2] = freq_factors;
    return t;
}

struct vnpu_tensor *vnpu_flash_attn_ext(struct vnpu_ctx *ctx, struct vnpu_tensor *q, struct vnpu_tensor *k,
                                        struct vnpu_tensor *v, struct vnpu_tensor *mask, float scale, float max_bias,
                                        float logit_softcap) {
    VNPU_ASSERT(k->ne[0] == q->ne[0] && q->ne[2] % k->ne[2] == 0); /* ggml_can_mul_mat(k, q) */
    VNPU_ASSERT(v->ne[1] == k->ne[1] && q->ne[2] % v->ne[2] == 0);
    VNPU_ASSERT(q->ne[3] == k->ne[3] && q->ne[3] == v->ne[3]);
    if (mask) {
        VNPU_ASSERT(mask->type == VNPU_TYPE_F16 || mask->type == VNPU_TYPE_F32);
        VNPU_ASSERT(mask->ne[0] == k->ne[1] && mask->ne[1] >= q->ne[1]);
        VNPU_ASSERT(q->ne[2] % mask->ne[2] == 0 && q->ne[3] % mask->ne[3] == 0);
    }
    VNPU_ASSERT(max_bias <= 0.0f || mask);
    /* The result is permuted as ggml's: [Dv, n_head, n_q, ne3]. */
    struct vnpu_tensor *t = vnpu_new_tensor_4d(ctx, VNPU_TYPE_F32, v->ne[0], q->ne[2], q->ne[1], q->ne[3]);
    set_op_param_f32(t, 0, scale);
    set_op_param_f32(t, 1, max_bias);
    set_op_param_f32(t, 2, logit_softcap);
    t->op = VNPU_OP_FLASH_ATTN_EXT;
    t->src[0] = q;
    t->src[1] = k;
    t->src[2] = v;
    t->src[3] = mask;
    return t;
}

/* ---- graphs ---- */

/* One step of the depth-first walk: a tensor and the next of its sources to visit. */
struct graph_frame {
    struct vnpu_tensor *t;
    int next_src;
};

/* The public graph and what building it needs: a set of visited tensors (open addressing, power-of-two
 * size, at most half full) and an explicit stack, so deep graphs cannot overflow the C stack. */
struct graph_impl {
    struct vnpu_graph g;
    size_t hash_size;
    const struct vnpu_tensor **visited;
    struct graph_frame *stack;
};

/* Slots of the visited set for a graph of size nodes and size leafs. */
static size_t graph_hash_size(int size) {
    size_t n = 16;
    while (n < 4 * (size_t) size) {
        n *= 2;
    }
    return n;
}

size_t vnpu_graph_overhead(int size) {
    VNPU_ASSERT(size > 0);
    const size_t n = (size_t) size;
    /* Every piece is rounded up by the arena, so each gets one alignment unit of slack. */
    return sizeof(struct graph_impl) + 2 * n * sizeof(struct vnpu_tensor *) +
           graph_hash_size(size) * sizeof(struct vnpu_tensor *) + 2 * n * sizeof(struct graph_frame) + 4 * 128;
}

struct vnpu_graph *vnpu_graph_new(struct vnpu_ctx *ctx, int size) {
    VNPU_ASSERT(size > 0);
    struct graph_impl *gi = vnpu_ctx_alloc(ctx, sizeof(*gi));
    gi->g.size = size;
    gi->g.n_nodes = 0;
    gi->g.n_leafs = 0;
    gi->g.nodes = vnpu_ctx_alloc(ctx, 2 * (size_t) size * sizeof(struct vnpu_tensor *));
    gi->g.leafs = gi->g.nodes + size;
    gi->hash_size = graph_hash_size(size);
    gi->visited = vnpu_ctx_alloc(ctx, gi->hash_size * sizeof(*gi->visited));
    memset(gi->visited, 0, gi->hash_size * sizeof(*gi->visited));
    gi->stack = vnpu_ctx_alloc(ctx, 2 * (size_t) size * sizeof(struct graph_frame));
    return &gi->g;
}

/* Mark t visited; false if it already was. */
static bool graph_visit(struct graph_impl *gi, const struct vnpu_tensor *t) {
    const size_t mask = gi->hash_size - 1;
    size_t i = vnpu_ptr_slot(t, mask);
    while (gi->visited[i]) {
        if (gi->visited[i] == t) {
            return false;
        }
        i = (i + 1) & mask;
    }
    gi->visited[i] = t;
    return true;
}

/* Append a finished tensor: a leaf when it has no op (as ggml_visit_parents), else a node. Views and the
 * other empty ops are nodes, as in ggml; unnamed tensors get ggml's names "leaf_%d" and "node_%d". */
static void graph_append(struct vnpu_graph *g, struct vnpu_tensor *t) {
    if (t->op == VNPU_OP_NONE) {
        VNPU_ASSERT(g->n_leafs < g->size);
        if (!t->name[0]) {
            vnpu_set_name(t, "leaf_%d", g->n_leafs);
        }
        g->leafs[g->n_leafs++] = t;
    } else {
        VNPU_ASSERT(g->n_nodes < g->size);
        if (!t->name[0]) {
            vnpu_set_name(t, "node_%d", g->n_nodes);
        }
        g->nodes[g->n_nodes++] = t;
    }
}

void vnpu_graph_build_forward_expand(struct vnpu_graph *g, struct vnpu_tensor *t) {
    struct graph_impl *gi = (struct graph_impl *) g;
    if (!graph_visit(gi, t)) {
        return;
    }
    /* Each frame holds a distinct tensor, and a graph holds at most 2 * size of them. */
    int depth = 0;
    gi->stack[depth++] = (struct graph_frame){.t = t, .next_src = 0};
    while (depth > 0) {
        struct graph_frame *f = &gi->stack[depth - 1];
        if (f->next_src < VNPU_MAX_SRC) {
            struct vnpu_tensor *s = f->t->src[f->next_src++];
            if (s && graph_visit(gi, s)) {
                VNPU_ASSERT(depth < 2 * g->size);
                gi->stack[depth++] = (struct graph_frame){.t = s, .next_src = 0};
            }
            continue;
        }
        graph_append(g, f->t);
        depth--;
    }
}
