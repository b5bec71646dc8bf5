/*
 * Tensors and the op graph, with GGML's semantics.
 *
 * A tensor has up to 4 dimensions: ne[i] elements along dimension i and nb[i] bytes between
 * neighbours along it (nb[0] = type size, nb[1] = row size for a contiguous tensor; for block types
 * nb[0] is the block size in bytes and ne[0] counts elements). Views share their source's data with
 * their own ne/nb/offset; permutes and transposes only swap ne/nb. Op constructors build nodes
 * (op, src[], op_params) without computing anything; a device computes a graph later.
 *
 * Every constructor asserts the shape rules of the GGML op it mirrors (ggml.c, ggml 0.23.0); the
 * comment of each gives the shapes. Tensors live in a struct vnpu_ctx arena and die with it.
 */
#ifndef VNPU_TENSOR_H
#define VNPU_TENSOR_H

#include "type-traits.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VNPU_MAX_DIMS      4
#define VNPU_MAX_SRC       6
#define VNPU_MAX_OP_PARAMS 16 /* int32 words, as GGML_MAX_OP_PARAMS / 4 */
#define VNPU_MAX_NAME      64

/* GGML's op names (ggml_op_name prints the enum name without the prefix). */
enum vnpu_op {
    VNPU_OP_NONE = 0,
    VNPU_OP_ADD,
    VNPU_OP_SUB,
    VNPU_OP_MUL,
    VNPU_OP_DIV,
    VNPU_OP_SCALE,
    VNPU_OP_RMS_NORM,
    VNPU_OP_MUL_MAT,
    VNPU_OP_MUL_MAT_ID,
    VNPU_OP_GET_ROWS,
    VNPU_OP_SET_ROWS,
    VNPU_OP_CPY,
    VNPU_OP_CONT,
    VNPU_OP_RESHAPE,
    VNPU_OP_VIEW,
    VNPU_OP_PERMUTE,
    VNPU_OP_TRANSPOSE,
    VNPU_OP_SOFT_MAX,
    VNPU_OP_ROPE,
    VNPU_OP_FLASH_ATTN_EXT,
    VNPU_OP_UNARY,
    VNPU_OP_GLU,
    VNPU_OP_COUNT,
};

enum vnpu_unary_op {
    VNPU_UNARY_OP_SILU = 0,
    VNPU_UNARY_OP_GELU, /* tanh approximation, as ggml_gelu */
    VNPU_UNARY_OP_COUNT,
};

enum vnpu_glu_op {
    VNPU_GLU_OP_SWIGLU = 0, /* silu(a) * b */
    VNPU_GLU_OP_GEGLU,      /* gelu(a) * b */
    VNPU_GLU_OP_COUNT,
};

/* ROPE modes (op_params[2]); GGML_ROPE_TYPE_NEOX = 2. */
#define VNPU_ROPE_TYPE_NORMAL 0
#define VNPU_ROPE_TYPE_NEOX   2

/* Tensor flags, as GGML_TENSOR_FLAG_*. */
#define VNPU_TENSOR_FLAG_INPUT  1u /* set by the caller before compute (tokens, positions, mask) */
#define VNPU_TENSOR_FLAG_OUTPUT 2u /* read after compute: its memory is never reused within the graph */
#define VNPU_TENSOR_FLAG_WEIGHT 4u /* model weight, lives in a weight buffer */

struct vnpu_buffer;
struct vnpu_device;

struct vnpu_tensor {
    enum vnpu_type type;
    int64_t ne[VNPU_MAX_DIMS]; /* elements per dimension; unused dimensions are 1 */
    size_t nb[VNPU_MAX_DIMS];  /* byte strides */

    enum vnpu_op op;
    int32_t op_params[VNPU_MAX_OP_PARAMS]; /* GGML's op_params layout for the op (see each constructor) */
    uint32_t flags;                        /* VNPU_TENSOR_FLAG_* */

    struct vnpu_tensor *src[VNPU_MAX_SRC]; /* operands; NULL where optional and absent */

    struct vnpu_tensor *view_src; /* the tensor whose memory this one views, NULL if it owns its data */
    size_t view_offs;             /* byte offset into view_src's data */

    void *data;                 /* host address of element [0,0,0,0]; NULL until allocated */
    struct vnpu_buffer *buffer; /* the buffer holding data, NULL for arena or mapped-file data */
    void *extra;                /* owned by the device that placed the tensor (e.g. tiled-layout info) */
    struct vnpu_device *device; /* graph nodes: the device the scheduler tries first (its layer's, set by the
                                 * graph builder); NULL: none (vnpu_sched_graph_compute) */

    char name[VNPU_MAX_NAME];
};

/* An arena of tensors (and, unless no_alloc, their data). */
struct vnpu_ctx;

/* A new arena of mem_size bytes for tensor structs and, when no_alloc is false, their data. NULL on
 * allocation failure. Running out of arena space later is an internal error (VNPU_ASSERT). */
struct vnpu_ctx *vnpu_ctx_new(size_t mem_size, bool no_alloc);
void vnpu_ctx_free(struct vnpu_ctx *ctx);
/* Bytes a tensor struct (not its data) takes in an arena; size arenas with it. */
size_t vnpu_tensor_overhead(void);
/* size bytes of arena memory, aligned for any object, living as long as ctx (graphs use it). Running out
 * is an internal error (VNPU_ASSERT). */
void *vnpu_ctx_alloc(struct vnpu_ctx *ctx, size_t size);

/* ---- tensors and their properties ---- */

/* A new tensor of n_dims (1..4) dimensions ne[0..n_dims-1], contiguous strides, data from the arena
 * unless no_alloc (then NULL). ne[0] must be a multiple of the type's block size. */
struct vnpu_tensor *vnpu_new_tensor(struct vnpu_ctx *ctx, enum vnpu_type type, int n_dims, const int64_t *ne);
struct vnpu_tensor *vnpu_new_tensor_1d(struct vnpu_ctx *ctx, enum vnpu_type type, int64_t ne0);
struct vnpu_tensor *vnpu_new_tensor_2d(struct vnpu_ctx *ctx, enum vnpu_type type, int64_t ne0, int64_t ne1);
struct vnpu_tensor *vnpu_new_tensor_3d(struct vnpu_ctx *ctx, enum vnpu_type type, int64_t ne0, int64_t ne1,
                                       int64_t ne2);
struct vnpu_tensor *vnpu_new_tensor_4d(struct vnpu_ctx *ctx, enum vnpu_type type, int64_t ne0, int64_t ne1, int64_t ne2,
                                       int64_t ne3);

void vnpu_set_name(struct vnpu_tensor *t, const char *fmt, ...);
/* t's name: name then suffix, cut to VNPU_MAX_NAME - 1 bytes as vnpu_set_name(t, "%s%s", name, suffix) would, without
 * printf's cost (views and reshapes name a tensor every time a graph is built). name may be t's own name. */
void vnpu_set_name_suffix(struct vnpu_tensor *t, const char *name, const char *suffix);

int64_t vnpu_nelements(const struct vnpu_tensor *t);
int64_t vnpu_nrows(const struct vnpu_tensor *t); /* ne[1] * ne[2] * ne[3] */
/* Bytes spanned by the tensor's data: the distance from the first to one past the last byte. */
size_t vnpu_nbytes(const struct vnpu_tensor *t);
size_t vnpu_type_size_of(const struct vnpu_tensor *t);     /* bytes per block of t->type */
int vnpu_n_dims(const struct vnpu_tensor *t);              /* highest dimension with ne > 1, plus one (>= 1) */
bool vnpu_is_contiguous(const struct vnpu_tensor *t);      /* dense, dimensions in order */
bool vnpu_is_contiguous_rows(const struct vnpu_tensor *t); /* nb[0] == type size: each row dense */
bool vnpu_is_permuted(const struct vnpu_tensor *t);
bool vnpu_is_transposed(const struct vnpu_tensor *t);
bool vnpu_are_same_shape(const struct vnpu_tensor *a, const struct vnpu_tensor *b);
/* b can be broadcast into a: every a->ne[i] is a multiple of b->ne[i]. */
bool vnpu_can_repeat(const struct vnpu_tensor *b, const struct vnpu_tensor *a);
const char *vnpu_op_name(enum vnpu_op op);
const char *vnpu_unary_op_name(enum vnpu_unary_op op);
const char *vnpu_glu_op_name(enum vnpu_glu_op op);
/* The op's name, with the sub-op for UNARY and GLU ("SILU", "SWIGLU"), as ggml_op_desc. */
const char *vnpu_op_desc(const struct vnpu_tensor *t);

static inline float vnpu_get_op_param_f32(const struct vnpu_tensor *t, int i) {
    union {
        int32_t i;
        float f;
    } u = {.i = t->op_params[i]};
    return u.f;
}

/* ---- views (no data movement) ---- */

/* Views of a at byte offset offset with the given shape; nb1..nb3 are the view's byte strides. */
struct vnpu_tensor *vnpu_view_1d(struct vnpu_ctx *ctx, struct vnpu_tensor *a, int64_t ne0, size_t offset);
struct vnpu_tensor *vnpu_view_2d(struct vnpu_ctx *ctx, struct vnpu_tensor *a, int64_t ne0, int64_t ne1, size_t nb1,
                                 size_t offset);
struct vnpu_tensor *vnpu_view_3d(struct vnpu_ctx *ctx, struct vnpu_tensor *a, int64_t ne0, int64_t ne1, int64_t ne2,
                                 size_t nb1, size_t nb2, size_t offset);
struct vnpu_tensor *vnpu_view_4d(struct vnpu_ctx *ctx, struct vnpu_tensor *a, int64_t ne0, int64_t ne1, int64_t ne2,
                                 int64_t ne3, size_t nb1, size_t nb2, size_t nb3, size_t offset);
/* A view of all of a with a's shape and strides and no op (ggml_view_tensor); CPY and SET_ROWS return
 * one made into their node. */
struct vnpu_tensor *vnpu_view_tensor(struct vnpu_ctx *ctx, struct vnpu_tensor *a);
/* Same data, new shape with the same element count; a must be contiguous. */
struct vnpu_tensor *vnpu_reshape_2d(struct vnpu_ctx *ctx, struct vnpu_tensor *a, int64_t ne0, int64_t ne1);
struct vnpu_tensor *vnpu_reshape_3d(struct vnpu_ctx *ctx, struct vnpu_tensor *a, int64_t ne0, int64_t ne1, int64_t ne2);
struct vnpu_tensor *vnpu_reshape_4d(struct vnpu_ctx *ctx, struct vnpu_tensor *a, int64_t ne0, int64_t ne1, int64_t ne2,
                                    int64_t ne3);
/* Dimension i of a becomes dimension axis_i of the result (ggml_permute). */
struct vnpu_tensor *vnpu_permute(struct vnpu_ctx *ctx, struct vnpu_tensor *a, int axis0, int axis1, int axis2,
                                 int axis3);
/* Swap dimensions 0 and 1. */
struct vnpu_tensor *vnpu_transpose(struct vnpu_ctx *ctx, struct vnpu_tensor *a);

/* ---- compute ops ---- */

/* a op b elementwise, b broadcast (vnpu_can_repeat(b, a)); result has a's shape and type. F32 (and
 * F16 with F16). */
struct vnpu_tensor *vnpu_add(struct vnpu_ctx *ctx, struct vnpu_tensor *a, struct vnpu_tensor *b);
struct vnpu_tensor *vnpu_sub(struct vnpu_ctx *ctx, struct vnpu_tensor *a, struct vnpu_tensor *b);
struct vnpu_tensor *vnpu_mul(struct vnpu_ctx *ctx, struct vnpu_tensor *a, struct vnpu_tensor *b);
struct vnpu_tensor *vnpu_div(struct vnpu_ctx *ctx, struct vnpu_tensor *a, struct vnpu_tensor *b);

/* a * s + b, F32; op_params: f32 s, f32 b. */
struct vnpu_tensor *vnpu_scale(struct vnpu_ctx *ctx, struct vnpu_tensor *a, float s);
struct vnpu_tensor *vnpu_scale_bias(struct vnpu_ctx *ctx, struct vnpu_tensor *a, float s, float b);

/* Each row divided by sqrt(mean(x^2) + eps); F32; op_params: f32 eps. */
struct vnpu_tensor *vnpu_rms_norm(struct vnpu_ctx *ctx, struct vnpu_tensor *a, float eps);

/* a [K, M, ne02, ne03] (any type with a to_f32) x b [K, N, ne12, ne13] (F32) -> F32 [M, N, ne12, ne13],
 * dst[i, j] = dot(row i of a, row j of b); ne12 % ne02 == 0 and ne13 % ne03 == 0 (a broadcast). */
struct vnpu_tensor *vnpu_mul_mat(struct vnpu_ctx *ctx, struct vnpu_tensor *a, struct vnpu_tensor *b);

/* Mixture of experts: as [K, M, n_expert] x b [K, n_b, n_tokens] F32 with ids I32 [n_used, n_tokens]
 * -> F32 [M, n_used, n_tokens]: dst[:, e, t] = as[:, :, ids[e, t]] x b[:, e % n_b, t]. */
struct vnpu_tensor *vnpu_mul_mat_id(struct vnpu_ctx *ctx, struct vnpu_tensor *as, struct vnpu_tensor *b,
                                    struct vnpu_tensor *ids);

/* Rows of a [ne0, n_rows, ne2, ne3] (any type with a to_f32) picked by b I32 [n, ne2, ne3 (or 1)]
 * -> F32 [ne0, n, ne2, ne3] (F32 for every a type, as ggml_get_rows). */
struct vnpu_tensor *vnpu_get_rows(struct vnpu_ctx *ctx, struct vnpu_tensor *a, struct vnpu_tensor *b);

/* Write rows of b F32 [ne0, n, ne2, ne3] into rows c (I32 or I64 [n, ...]) of a (F32 or F16); returns
 * a view of a (the node's src[0] = b, src[1] = c, src[2] = a as in ggml, view_src = a). */
struct vnpu_tensor *vnpu_set_rows(struct vnpu_ctx *ctx, struct vnpu_tensor *a, struct vnpu_tensor *b,
                                  struct vnpu_tensor *c);

/* Copy a into b (same element count, F32/F16 either side, any strides); returns a view of b. */
struct vnpu_tensor *vnpu_cpy(struct vnpu_ctx *ctx, struct vnpu_tensor *a, struct vnpu_tensor *b);
/* A contiguous copy of a (same type and shape). */
struct vnpu_tensor *vnpu_cont(struct vnpu_ctx *ctx, struct vnpu_tensor *a);

/* softmax(a * scale + mask (+ ALiBi slope when max_bias > 0)) along rows. a F32 [ne0, ne1, ne2, ne3];
 * mask F32 or F16 [ne0, >= ne1, ne2 % m2 == 0, ne3 % m3 == 0] or NULL; op_params: f32 scale, f32
 * max_bias. A row masked entirely (-INFINITY) gives zeros, as FLASH_ATTN_EXT does (ggml's CPU asserts
 * it never happens and yields NaN). */
struct vnpu_tensor *vnpu_soft_max_ext(struct vnpu_ctx *ctx, struct vnpu_tensor *a, struct vnpu_tensor *mask,
                                      float scale, float max_bias);

/* Rotary embedding of a F32 [head_dim, n_head, n_tokens, 1] at positions b I32 [n_tokens]; the first
 * n_dims of each head rotate, mode VNPU_ROPE_TYPE_NORMAL (adjacent pairs) or _NEOX (halves);
 * theta_i = pos * freq_scale * freq_base^(-2i/n_dims) (YaRN with ext_factor 0: attn_factor scales
 * cos/sin). freq_factors (F32 [n_dims/2]) or NULL divides theta per pair. op_params as ggml_rope_ext:
 * [1] n_dims, [2] mode, [4] n_ctx_orig, f32 [5] freq_base, [6] freq_scale, [7] ext_factor,
 * [8] attn_factor, [9] beta_fast, [10] beta_slow. */
struct vnpu_tensor *vnpu_rope_ext(struct vnpu_ctx *ctx, struct vnpu_tensor *a, struct vnpu_tensor *b,
                                  struct vnpu_tensor *freq_factors, int n_dims, int mode, int n_ctx_orig,
                                  float freq_base, float freq_scale, float ext_factor, float attn_factor,
                                  float beta_fast, float beta_slow);

/* Attention without materialising K^T Q: q F32 [D, n_q, H, 1], k and v F16 or F32 [D, n_kv, H_kv, 1]
 * (H % H_kv == 0, GQA), mask F16 or F32 [n_kv, >= n_q] or NULL -> F32 [Dv, H, n_q, 1] (GGML's permuted
 * result). op_params: f32 scale, f32 max_bias, f32 logit_softcap. */
struct vnpu_tensor *vnpu_flash_attn_ext(struct vnpu_ctx *ctx, struct vnpu_tensor *q, struct vnpu_tensor *k,
                                        struct vnpu_tensor *v, struct vnpu_tensor *mask, float scale, float max_bias,
                                        float logit_softcap);

/* Elementwise F32 op; op_params[0] = the unary op. */
struct vnpu_tensor *vnpu_unary(struct vnpu_ctx *ctx, struct vnpu_tensor *a, enum vnpu_unary_op op);
struct vnpu_tensor *vnpu_silu(struct vnpu_ctx *ctx, struct vnpu_tensor *a);
struct vnpu_tensor *vnpu_gelu(struct vnpu_ctx *ctx, struct vnpu_tensor *a);

/* Gated linear unit of two same-shape F32 tensors: op(a) * b (ggml_glu_split); op_params[0] = the glu op,
 * [1] = swapped (0). */
struct vnpu_tensor *vnpu_glu_split(struct vnpu_ctx *ctx, struct vnpu_tensor *a, struct vnpu_tensor *b,
                                   enum vnpu_glu_op op);
struct vnpu_tensor *vnpu_swiglu_split(struct vnpu_ctx *ctx, struct vnpu_tensor *a, struct vnpu_tensor *b);

/* ---- graphs ---- */

/* The nodes needed to compute some outputs, in an order where every node follows its sources; leafs are
 * the tensors without an op (weights, inputs). */
struct vnpu_graph {
    int size;
    int n_nodes;
    int n_leafs;
    struct vnpu_tensor **nodes;
    struct vnpu_tensor **leafs;
};

/* A graph with room for size nodes and size leafs, allocated in ctx. */
struct vnpu_graph *vnpu_graph_new(struct vnpu_ctx *ctx, int size);
/* Arena bytes vnpu_graph_new(ctx, size) takes (node and leaf lists, visited set, depth-first stack). */
size_t vnpu_graph_overhead(int size);
/* Append t and every not-yet-visited ancestor (depth first, sources in order) to g. As ggml_visit_parents:
 * tensors without an op are leafs, all others nodes (views, reshapes and permutes too, which devices
 * skip); unnamed ones are named "leaf_%d" / "node_%d". Overflowing g's size is a VNPU_ASSERT. */
void vnpu_graph_build_forward_expand(struct vnpu_graph *g, struct vnpu_tensor *t);

/* True for ops that move no data (NONE, RESHAPE, VIEW, PERMUTE, TRANSPOSE): devices skip them. */
bool vnpu_op_is_empty(enum vnpu_op op);

#endif /* VNPU_TENSOR_H */
