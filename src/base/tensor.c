/*
 * Tensors: the arena they live in, their properties, and the views that share their data.
 *
 * Semantics follow ggml.c (ggml 0.23.0): ggml_new_tensor_impl (contiguous strides, views resolved to
 * the tensor that owns the memory), ggml_nbytes, ggml_is_contiguous, ggml_view_*, ggml_reshape_*,
 * ggml_permute and ggml_transpose, with the same derived names ("x (view)", "x (permuted)", ...).
 */
#include "tensor.h"

#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every arena object and data block starts on this boundary (an HVX vector, a DDR cache line). */
#define VNPU_CTX_ALIGN 128

struct vnpu_ctx {
    char *mem;
    size_t size;
    size_t used;
    bool no_alloc;
};

static size_t align_up(size_t n, size_t a) {
    return (n + a - 1) / a * a;
}

struct vnpu_ctx *vnpu_ctx_new(size_t mem_size, bool no_alloc) {
    struct vnpu_ctx *ctx = calloc(1, sizeof(*ctx));
    const size_t size = align_up(mem_size, VNPU_CTX_ALIGN);
    char *mem = size >= mem_size ? aligned_alloc(VNPU_CTX_ALIGN, size ? size : VNPU_CTX_ALIGN) : NULL;
    if (!ctx || !mem) {
        vnpu_log_error("tensor arena: cannot allocate %zu bytes", mem_size);
        free(ctx);
        free(mem);
        return NULL;
    }
    ctx->mem = mem;
    ctx->size = size;
    ctx->no_alloc = no_alloc;
    return ctx;
}

void vnpu_ctx_free(struct vnpu_ctx *ctx) {
    if (ctx) {
        free(ctx->mem);
        free(ctx);
    }
}

size_t vnpu_tensor_overhead(void) {
    return align_up(sizeof(struct vnpu_tensor), VNPU_CTX_ALIGN);
}

void *vnpu_ctx_alloc(struct vnpu_ctx *ctx, size_t size) {
    const size_t need = align_up(size, VNPU_CTX_ALIGN);
    if (need < size || need > ctx->size - ctx->used) {
        vnpu_log_error("tensor arena: %zu bytes requested, %zu of %zu left", size, ctx->size - ctx->used, ctx->size);
    }
    VNPU_ASSERT(need >= size && need <= ctx->size - ctx->used);
    void *p = ctx->mem + ctx->used;
    ctx->used += need;
    return p;
}

/* ---- tensors ---- */

/* A tensor of n_dims dimensions with contiguous strides. With view_src it shares view_src's memory at
 * view_offs, resolved to the tensor that owns the memory (so view_src is never itself a view). */
static struct vnpu_tensor *tensor_new_impl(struct vnpu_ctx *ctx, enum vnpu_type type, int n_dims, const int64_t *ne,
                                           struct vnpu_tensor *view_src, size_t view_offs) {
    const struct vnpu_type_traits *tt = vnpu_type_traits_get(type);
    VNPU_ASSERT(tt->blck > 0);
    VNPU_ASSERT(n_dims >= 1 && n_dims <= VNPU_MAX_DIMS);
    if (view_src && view_src->view_src) {
        view_offs += view_src->view_offs;
        view_src = view_src->view_src;
    }

    struct vnpu_tensor *t = vnpu_ctx_alloc(ctx, sizeof(struct vnpu_tensor));
    memset(t, 0, sizeof(*t));
    t->type = type;
    for (int i = 0; i < VNPU_MAX_DIMS; i++) {
        t->ne[i] = i < n_dims ? ne[i] : 1;
        VNPU_ASSERT(t->ne[i] >= 0);
    }
    VNPU_ASSERT(t->ne[0] % tt->blck == 0);
    t->nb[0] = tt->size;
    t->nb[1] = tt->size * (size_t) (t->ne[0] / tt->blck);
    for (int i = 2; i < VNPU_MAX_DIMS; i++) {
        t->nb[i] = t->nb[i - 1] * (size_t) t->ne[i - 1];
    }

    t->view_src = view_src;
    t->view_offs = view_offs;
    if (view_src) {
        t->data = view_src->data ? (char *) view_src->data + view_offs : NULL;
        t->buffer = view_src->buffer;
    } else if (!ctx->no_alloc) {
        t->data = vnpu_ctx_alloc(ctx, vnpu_nbytes(t));
    }
    return t;
}

/* A view must stay inside the memory of the tensor it views (checked once its strides are final). */
static void view_check_bounds(const struct vnpu_tensor *t) {
    VNPU_ASSERT(vnpu_nbytes(t) == 0 || t->view_offs + vnpu_nbytes(t) <= vnpu_nbytes(t->view_src));
}

struct vnpu_tensor *vnpu_new_tensor(struct vnpu_ctx *ctx, enum vnpu_type type, int n_dims, const int64_t *ne) {
    return tensor_new_impl(ctx, type, n_dims, ne, NULL, 0);
}

struct vnpu_tensor *vnpu_new_tensor_1d(struct vnpu_ctx *ctx, enum vnpu_type type, int64_t ne0) {
    return vnpu_new_tensor(ctx, type, 1, &ne0);
}

struct vnpu_tensor *vnpu_new_tensor_2d(struct vnpu_ctx *ctx, enum vnpu_type type, int64_t ne0, int64_t ne1) {
    const int64_t ne[2] = {ne0, ne1};
    return vnpu_new_tensor(ctx, type, 2, ne);
}

struct vnpu_tensor *vnpu_new_tensor_3d(struct vnpu_ctx *ctx, enum vnpu_type type, int64_t ne0, int64_t ne1,
                                       int64_t ne2) {
    const int64_t ne[3] = {ne0, ne1, ne2};
    return vnpu_new_tensor(ctx, type, 3, ne);
}

struct vnpu_tensor *vnpu_new_tensor_4d(struct vnpu_ctx *ctx, enum vnpu_type type, int64_t ne0, int64_t ne1, int64_t ne2,
                                       int64_t ne3) {
    const int64_t ne[4] = {ne0, ne1, ne2, ne3};
    return vnpu_new_tensor(ctx, type, 4, ne);
}

void vnpu_set_name(struct vnpu_tensor *t, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->name, sizeof(t->name), fmt, ap);
    va_end(ap);
}

void vnpu_set_name_suffix(struct vnpu_tensor *t, const char *name, const char *suffix) {
    const size_t cap = sizeof(t->name) - 1;
    const size_t n = strnlen(name, cap), m = strnlen(suffix, cap - n);
    memmove(t->name, name, n);
    memcpy(t->name + n, suffix, m);
    t->name[n + m] = '\0';
}

/* ---- properties ---- */

int64_t vnpu_nelements(const struct vnpu_tensor *t) {
    return t->ne[0] * t->ne[1] * t->ne[2] * t->ne[3];
}

int64_t vnpu_nrows(const struct vnpu_tensor *t) {
    return t->ne[1] * t->ne[2] * t->ne[3];
}

size_t vnpu_nbytes(const struct vnpu_tensor *t) {
    for (int i = 0; i < VNPU_MAX_DIMS; i++) {
        if (t->ne[i] <= 0) {
            return 0;
        }
    }
    const struct vnpu_type_traits *tt = vnpu_type_traits_get(t->type);
    size_t n = (size_t) (t->ne[0] / tt->blck) * t->nb[0]; /* blocks of row 0 */
    if (tt->blck == 1) {
        n = tt->size + (size_t) (t->ne[0] - 1) * t->nb[0]; /* a strided row ends at its last element */
    }
    for (int i = 1; i < VNPU_MAX_DIMS; i++) {
        n += (size_t) (t->ne[i] - 1) * t->nb[i];
    }
    return n;
}

size_t vnpu_type_size_of(const struct vnpu_tensor *t) {
    return vnpu_type_traits_get(t->type)->size;
}

int vnpu_n_dims(const struct vnpu_tensor *t) {
    for (int i = VNPU_MAX_DIMS - 1; i >= 1; i--) {
        if (t->ne[i] > 1) {
            return i + 1;
        }
    }
    return 1;
}

bool vnpu_is_contiguous(const struct vnpu_tensor *t) {
    const struct vnpu_type_traits *tt = vnpu_type_traits_get(t->type);
    size_t next_nb = tt->size;
    if (t->ne[0] != tt->blck && t->nb[0] != next_nb) {
        return false;
    }
    next_nb *= (size_t) (t->ne[0] / tt->blck);
    for (int i = 1; i < VNPU_MAX_DIMS; i++) {
        if (t->ne[i] != 1) { /* the stride of a dimension of size 1 never matters (ggml_is_contiguous) */
            if (t->nb[i] != next_nb) {
                return false;
            }
            next_nb *= (size_t) t->ne[i];
        }
    }
    return true;
}

bool vnpu_is_contiguous_rows(const struct vnpu_tensor *t) {
    const struct vnpu_type_traits *tt = vnpu_type_traits_get(t->type);
    return t->ne[0] == tt->blck || t->nb[0] == tt->size;
}

bool vnpu_is_permuted(const struct vnpu_tensor *t) {
    return t->nb[0] > t->nb[1] || t->nb[1] > t->nb[2] || t->nb[2] > t->nb[3];
}

bool vnpu_is_transposed(const struct vnpu_tensor *t) {
    return t->nb[0] > t->nb[1];
}

bool vnpu_are_same_shape(const struct vnpu_tensor *a, const struct vnpu_tensor *b) {
    return a->ne[0] == b->ne[0] && a->ne[1] == b->ne[1] && a->ne[2] == b->ne[2] && a->ne[3] == b->ne[3];
}

bool vnpu_can_repeat(const struct vnpu_tensor *b, const struct vnpu_tensor *a) {
    if (vnpu_nelements(b) == 0) {
        return vnpu_nelements(a) == 0;
    }
    for (int i = 0; i < VNPU_MAX_DIMS; i++) {
        if (a->ne[i] % b->ne[i] != 0) {
            return false;
        }
    }
    return true;
}

static const char *const op_names[VNPU_OP_COUNT] = {
    [VNPU_OP_NONE] = "NONE",
    [VNPU_OP_ADD] = "ADD",
    [VNPU_OP_SUB] = "SUB",
    [VNPU_OP_MUL] = "MUL",
    [VNPU_OP_DIV] = "DIV",
    [VNPU_OP_SCALE] = "SCALE",
    [VNPU_OP_RMS_NORM] = "RMS_NORM",
    [VNPU_OP_MUL_MAT] = "MUL_MAT",
    [VNPU_OP_MUL_MAT_ID] = "MUL_MAT_ID",
    [VNPU_OP_GET_ROWS] = "GET_ROWS",
    [VNPU_OP_SET_ROWS] = "SET_ROWS",
    [VNPU_OP_CPY] = "CPY",
    [VNPU_OP_CONT] = "CONT",
    [VNPU_OP_RESHAPE] = "RESHAPE",
    [VNPU_OP_VIEW] = "VIEW",
    [VNPU_OP_PERMUTE] = "PERMUTE",
    [VNPU_OP_TRANSPOSE] = "TRANSPOSE",
    [VNPU_OP_SOFT_MAX] = "SOFT_MAX",
    [VNPU_OP_ROPE] = "ROPE",
    [VNPU_OP_FLASH_ATTN_EXT] = "FLASH_ATTN_EXT",
    [VNPU_OP_UNARY] = "UNARY",
    [VNPU_OP_GLU] = "GLU",
};
_Static_assert(VNPU_OP_COUNT == 22, "new op: add its name here");

static const char *const unary_op_names[VNPU_UNARY_OP_COUNT] = {
    [VNPU_UNARY_OP_SILU] = "SILU",
    [VNPU_UNARY_OP_GELU] = "GELU",
};
_Static_assert(VNPU_UNARY_OP_COUNT == 2, "new unary op: add its name here");

static const char *const glu_op_names[VNPU_GLU_OP_COUNT] = {
    [VNPU_GLU_OP_SWIGLU] = "SWIGLU",
    [VNPU_GLU_OP_GEGLU] = "GEGLU",
};
_Static_assert(VNPU_GLU_OP_COUNT == 2, "new glu op: add its name here");

const char *vnpu_op_name(enum vnpu_op op) {
    return (unsigned) op < VNPU_OP_COUNT ? op_names[op] : "?";
}

const char *vnpu_unary_op_name(enum vnpu_unary_op op) {
    return (unsigned) op < VNPU_UNARY_OP_COUNT ? unary_op_names[op] : "?";
}

const char *vnpu_glu_op_name(enum vnpu_glu_op op) {
    return (unsigned) op < VNPU_GLU_OP_COUNT ? glu_op_names[op] : "?";
}

const char *vnpu_op_desc(const struct vnpu_tensor *t) {
    if (t->op == VNPU_OP_UNARY) {
        return vnpu_unary_op_name((enum vnpu_unary_op) t->op_params[0]);
    }
    if (t->op == VNPU_OP_GLU) {
        return vnpu_glu_op_name((enum vnpu_glu_op) t->op_params[0]);
    }
    return vnpu_op_name(t->op);
}

bool vnpu_op_is_empty(enum vnpu_op op) {
    return op == VNPU_OP_NONE || op == VNPU_OP_RESHAPE || op == VNPU_OP_VIEW || op == VNPU_OP_PERMUTE ||
           op == VNPU_OP_TRANSPOSE;
}

/* ---- views ---- */

/* A view of a with a's type and the same ne/nb (ggml_view_tensor); callers set op and sources. */
static struct vnpu_tensor *view_tensor(struct vnpu_ctx *ctx, struct vnpu_tensor *a) {
    struct vnpu_tensor *t = tensor_new_impl(ctx, a->type, VNPU_MAX_DIMS, a->ne, a, 0);
    for (int i = 0; i < VNPU_MAX_DIMS; i++) {
        t->nb[i] = a->nb[i];
    }
    return t;
}

/* ggml_view_impl: a VIEW node of a at byte offset; op_params hold the offset (a size_t, as ggml). */
static struct vnpu_tensor *view_impl(struct vnpu_ctx *ctx, struct vnpu_tensor *a, int n_dims, const int64_t *ne,
                                     size_t offset) {
    struct vnpu_tensor *t = tensor_new_impl(ctx, a->type, n_dims, ne, a, offset);
    vnpu_set_name_suffix(t, a->name, " (view)");
    memcpy(t->op_params, &offset, sizeof(offset));
    t->op = VNPU_OP_VIEW;
    t->src[0] = a;
    return t;
}

struct vnpu_tensor *vnpu_view_1d(struct vnpu_ctx *ctx, struct vnpu_tensor *a, int64_t ne0, size_t offset) {
    struct vnpu_tensor *t = view_impl(ctx, a, 1, &ne0, offset);
    view_check_bounds(t);
    return t;
}

struct vnpu_tensor *vnpu_view_2d(struct vnpu_ctx *ctx, struct vnpu_tensor *a, int64_t ne0, int64_t ne1, size_t nb1,
                                 size_t offset) {
    const int64_t ne[2] = {ne0, ne1};
    struct vnpu_tensor *t = view_impl(ctx, a, 2, ne, offset);
    t->nb[1] = nb1;
    t->nb[2] = t->nb[1] * (size_t) ne1;
    t->nb[3] = t->nb[2];
    view_check_bounds(t);
    return t;
}

struct vnpu_tensor *vnpu_view_3d(struct vnpu_ctx *ctx, struct vnpu_tensor *a, int64_t ne0, int64_t ne1, int64_t ne2,
                                 size_t nb1, size_t nb2, size_t offset) {
    const int64_t ne[3] = {ne0, ne1, ne2};
    struct vnpu_tensor *t = view_impl(ctx, a, 3, ne, offset);
    t->nb[1] = nb1;
    t->nb[2] = nb2;
    t->nb[3] = t->nb[2] * (size_t) ne2;
    view_check_bounds(t);
    return t;
}

struct vnpu_tensor *vnpu_view_4d(struct vnpu_ctx *ctx, struct vnpu_tensor *a, int64_t ne0, int64_t ne1, int64_t ne2,
                                 int64_t ne3, size_t nb1, size_t nb2, size_t nb3, size_t offset) {
    const int64_t ne[4] = {ne0, ne1, ne2, ne3};
    struct vnpu_tensor *t = view_impl(ctx, a, 4, ne, offset);
    t->nb[1] = nb1;
    t->nb[2] = nb2;
    t->nb[3] = nb3;
    view_check_bounds(t);
    return t;
}

/* ggml_reshape_*: a RESHAPE node sharing contiguous a's data. */
static struct vnpu_tensor *reshape_impl(struct vnpu_ctx *ctx, struct vnpu_tensor *a, int n_dims, const int64_t *ne) {
    VNPU_ASSERT(vnpu_is_contiguous(a));
    int64_t n = 1;
    for (int i = 0; i < n_dims; i++) {
        n *= ne[i];
    }
    VNPU_ASSERT(n == vnpu_nelements(a));
    struct vnpu_tensor *t = tensor_new_impl(ctx, a->type, n_dims, ne, a, 0);
    vnpu_set_name_suffix(t, a->name, " (reshaped)");
    t->op = VNPU_OP_RESHAPE;
    t->src[0] = a;
    return t;
}

struct vnpu_tensor *vnpu_reshape_2d(struct vnpu_ctx *ctx, struct vnpu_tensor *a, int64_t ne0, int64_t ne1) {
    const int64_t ne[2] = {ne0, ne1};
    return reshape_impl(ctx, a, 2, ne);
}

struct vnpu_tensor *vnpu_reshape_3d(struct vnpu_ctx *ctx, struct vnpu_tensor *a, int64_t ne0, int64_t ne1,
                                    int64_t ne2) {
    const int64_t ne[3] = {ne0, ne1, ne2};
    return reshape_impl(ctx, a, 3, ne);
}

struct vnpu_tensor *vnpu_reshape_4d(struct vnpu_ctx *ctx, struct vnpu_tensor *a, int64_t ne0, int64_t ne1, int64_t ne2,
                                    int64_t ne3) {
    const int64_t ne[4] = {ne0, ne1, ne2, ne3};
    return reshape_impl(ctx, a, 4, ne);
}

struct vnpu_tensor *vnpu_permute(struct vnpu_ctx *ctx, struct vnpu_tensor *a, int axis0, int axis1, int axis2,
                                 int axis3) {
    const int axis[VNPU_MAX_DIMS] = {axis0, axis1, axis2, axis3};
    for (int i = 0; i < VNPU_MAX_DIMS; i++) {
        VNPU_ASSERT(axis[i] >= 0 && axis[i] < VNPU_MAX_DIMS);
        for (int j = 0; j < i; j++) {
            VNPU_ASSERT(axis[i] != axis[j]);
        }
    }
    struct vnpu_tensor *t = view_tensor(ctx, a);
    vnpu_set_name_suffix(t, a->name, " (permuted)");
    for (int i = 0; i < VNPU_MAX_DIMS; i++) {
        t->ne[axis[i]] = a->ne[i];
        t->nb[axis[i]] = a->nb[i];
        t->op_params[i] = axis[i];
    }
    t->op = VNPU_OP_PERMUTE;
    t->src[0] = a;
    return t;
}

struct vnpu_tensor *vnpu_transpose(struct vnpu_ctx *ctx, struct vnpu_tensor *a) {
    struct vnpu_tensor *t = view_tensor(ctx, a);
    vnpu_set_name_suffix(t, a->name, " (transposed)");
    t->ne[0] = a->ne[1];
    t->ne[1] = a->ne[0];
    t->nb[0] = a->nb[1];
    t->nb[1] = a->nb[0];
    t->op = VNPU_OP_TRANSPOSE;
    t->src[0] = a;
    return t;
}

struct vnpu_tensor *vnpu_view_tensor(struct vnpu_ctx *ctx, struct vnpu_tensor *a) {
    struct vnpu_tensor *t = view_tensor(ctx, a);
    vnpu_set_name_suffix(t, a->name, " (view)");
    return t;
}
