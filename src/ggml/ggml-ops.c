/*
 * GGML's types and ops as vnpu's, mapped by name at compile time against the headers the plugin is built with
 * (VNPU_GGML_SRC): a header set lacking a name fails the build on that name, and one whose numbers moved fails a
 * static_assert naming the enum. Then the translation of GGML tensors (ggml-ops.h).
 */
#include "ggml-ops.h"

#include "buffer.h"
#include "ggml-backend.h"
#include "hash.h"
#include "log.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the enum maps ---- */

/* Review the tables below when GGML's enums change; these are the oracle's release (ggml 0.23.0). */
_Static_assert(GGML_OP_COUNT == 101, "enum ggml_op changed: review op_map in src/ggml/ggml-ops.c");
_Static_assert(GGML_UNARY_OP_COUNT == 22, "enum ggml_unary_op changed: review unary_map in src/ggml/ggml-ops.c");
_Static_assert(GGML_GLU_OP_COUNT == 7, "enum ggml_glu_op changed: review glu_map in src/ggml/ggml-ops.c");
_Static_assert((int) GGML_TYPE_COUNT == (int) VNPU_TYPE_COUNT,
               "enum ggml_type: GGML_TYPE_COUNT is not VNPU_TYPE_COUNT");

/* vnpu's tensor limits and the constants vnpu copies from GGML are GGML's. */
_Static_assert(GGML_MAX_DIMS == VNPU_MAX_DIMS, "GGML_MAX_DIMS is not VNPU_MAX_DIMS");
_Static_assert(GGML_MAX_OP_PARAMS == VNPU_MAX_OP_PARAMS * (int) sizeof(int32_t),
               "GGML_MAX_OP_PARAMS is not VNPU_MAX_OP_PARAMS int32 words");
_Static_assert(GGML_MAX_NAME == VNPU_MAX_NAME, "GGML_MAX_NAME is not VNPU_MAX_NAME");
_Static_assert(GGML_MAX_SRC >= VNPU_MAX_SRC, "GGML_MAX_SRC is below VNPU_MAX_SRC");
_Static_assert(GGML_ROPE_TYPE_NORMAL == VNPU_ROPE_TYPE_NORMAL, "GGML_ROPE_TYPE_NORMAL is not VNPU_ROPE_TYPE_NORMAL");
_Static_assert(GGML_ROPE_TYPE_NEOX == VNPU_ROPE_TYPE_NEOX, "GGML_ROPE_TYPE_NEOX is not VNPU_ROPE_TYPE_NEOX");
_Static_assert(GGML_MROPE_SECTIONS == 4, "GGML_MROPE_SECTIONS changed: review translate_op_params (rope)");

/* vnpu_type is GGML's numbering (src/base/type-traits.h): every type vnpu knows, asserted equal by name. */
/* clang-format off */
#define VNPU_GGML_TYPES(X) \
    X(F32) X(F16) X(Q4_0) X(Q4_1) X(Q5_0) X(Q5_1) X(Q8_0) X(Q8_1) \
    X(Q2_K) X(Q3_K) X(Q4_K) X(Q5_K) X(Q6_K) X(Q8_K) \
    X(IQ2_XXS) X(IQ2_XS) X(IQ3_XXS) X(IQ1_S) X(IQ4_NL) X(IQ3_S) X(IQ2_S) X(IQ4_XS) X(IQ1_M) \
    X(I8) X(I16) X(I32) X(I64) X(F64) X(BF16) \
    X(TQ1_0) X(TQ2_0) X(MXFP4) X(NVFP4) X(Q1_0) X(Q2_0)

#define TYPE_ASSERT(n) \
    _Static_assert((int) GGML_TYPE_##n == (int) VNPU_TYPE_##n, "enum ggml_type: GGML_TYPE_" #n " is not VNPU_TYPE_" #n);
/* clang-format on */
VNPU_GGML_TYPES(TYPE_ASSERT)
#undef TYPE_ASSERT

#define TYPE_ROW(n) [GGML_TYPE_##n] = true,
static const bool type_known[GGML_TYPE_COUNT] = {VNPU_GGML_TYPES(TYPE_ROW)};
#undef TYPE_ROW

/* A GGML op vnpu has: its vnpu op and the most srcs vnpu's op takes (a GGML node using more is refused). */
struct op_row {
    bool known;
    enum vnpu_op op;
    int n_src;
};

static const struct op_row op_map[GGML_OP_COUNT] = {
    [GGML_OP_NONE] = {true, VNPU_OP_NONE, 0},
    [GGML_OP_ADD] = {true, VNPU_OP_ADD, 2},
    [GGML_OP_SUB] = {true, VNPU_OP_SUB, 2},
    [GGML_OP_MUL] = {true, VNPU_OP_MUL, 2},
    [GGML_OP_DIV] = {true, VNPU_OP_DIV, 2},
    [GGML_OP_SCALE] = {true, VNPU_OP_SCALE, 1},
    [GGML_OP_RMS_NORM] = {true, VNPU_OP_RMS_NORM, 1},
    [GGML_OP_MUL_MAT] = {true, VNPU_OP_MUL_MAT, 2},
    [GGML_OP_MUL_MAT_ID] = {true, VNPU_OP_MUL_MAT_ID, 3},
    [GGML_OP_GET_ROWS] = {true, VNPU_OP_GET_ROWS, 2},
    [GGML_OP_SET_ROWS] = {true, VNPU_OP_SET_ROWS, 3},
    [GGML_OP_CPY] = {true, VNPU_OP_CPY, 2},
    [GGML_OP_CONT] = {true, VNPU_OP_CONT, 1},
    [GGML_OP_RESHAPE] = {true, VNPU_OP_RESHAPE, 1},
    [GGML_OP_VIEW] = {true, VNPU_OP_VIEW, 1},
    [GGML_OP_PERMUTE] = {true, VNPU_OP_PERMUTE, 1},
    [GGML_OP_TRANSPOSE] = {true, VNPU_OP_TRANSPOSE, 1},
    [GGML_OP_SOFT_MAX] = {true, VNPU_OP_SOFT_MAX, 2},             /* src[2], the sinks: not in vnpu's op */
    [GGML_OP_ROPE] = {true, VNPU_OP_ROPE, 3},                     /* positions, freq_factors */
    [GGML_OP_FLASH_ATTN_EXT] = {true, VNPU_OP_FLASH_ATTN_EXT, 4}, /* src[4], the sinks: not in vnpu's op */
    [GGML_OP_UNARY] = {true, VNPU_OP_UNARY, 1},
    [GGML_OP_GLU] = {true, VNPU_OP_GLU, 2},
};

/* op_params[0] of UNARY and GLU: GGML's sub-op numbers are not vnpu's. */
struct sub_row {
    bool known;
    int32_t op;
};

static const struct sub_row unary_map[GGML_UNARY_OP_COUNT] = {
    [GGML_UNARY_OP_SILU] = {true, VNPU_UNARY_OP_SILU},
    [GGML_UNARY_OP_GELU] = {true, VNPU_UNARY_OP_GELU},
};

static const struct sub_row glu_map[GGML_GLU_OP_COUNT] = {
    [GGML_GLU_OP_SWIGLU] = {true, VNPU_GLU_OP_SWIGLU},
    [GGML_GLU_OP_GEGLU] = {true, VNPU_GLU_OP_GEGLU},
};

/* ---- the translation ---- */

enum vnpu_status ggml_vnpu_translation_init(struct ggml_vnpu_translation *tr, size_t max_tensors,
                                            ggml_vnpu_buffer_of_fn buffer_of) {
    memset(tr, 0, sizeof(*tr));
    tr->buffer_of = buffer_of;
    tr->cap = 16;
    while (tr->cap < 2 * max_tensors) {
        tr->cap *= 2;
    }
    tr->ctx = vnpu_ctx_new(max_tensors * vnpu_tensor_overhead(), true);
    tr->keys = calloc(tr->cap, sizeof(*tr->keys));
    tr->vals = calloc(tr->cap, sizeof(*tr->vals));
    if (!tr->ctx || !tr->keys || !tr->vals) {
        vnpu_log_error("ggml-vnpu: cannot allocate the translation of %zu tensors", max_tensors);
        ggml_vnpu_translation_free(tr);
        return VNPU_STATUS_NO_MEMORY;
    }
    return VNPU_STATUS_OK;
}

void ggml_vnpu_translation_free(struct ggml_vnpu_translation *tr) {
    vnpu_ctx_free(tr->ctx);
    free(tr->keys);
    free(tr->vals);
    memset(tr, 0, sizeof(*tr));
}

/* The slot of t in the map: its own, or the empty one where it goes. */
static size_t slot_of(const struct ggml_vnpu_translation *tr, const struct ggml_tensor *t) {
    const size_t mask = tr->cap - 1;
    size_t i = vnpu_ptr_slot(t, mask);
    while (tr->keys[i] && tr->keys[i] != t) {
        i = (i + 1) & mask;
    }
    return i;
}

/* The translation of t as data (type, layout, data pointer, buffer, view source; no op), made on first sight. */
static struct vnpu_tensor *translate_data(struct ggml_vnpu_translation *tr, const struct ggml_tensor *t) {
    const size_t i = slot_of(tr, t);
    if (tr->keys[i]) {
        return tr->vals[i];
    }
    if ((unsigned) t->type >= GGML_TYPE_COUNT || !type_known[t->type]) {
        snprintf(tr->why, sizeof(tr->why), "'%.64s': type %s is not one of vnpu's", t->name, ggml_type_name(t->type));
        return NULL;
    }
    if (t->ne[0] % ggml_blck_size(t->type) != 0) { /* a view into part of a block: a quantized cache's head */
        snprintf(tr->why, sizeof(tr->why), "'%.64s': ne0 %lld is not a multiple of the %s block (%lld)", t->name,
                 (long long) t->ne[0], ggml_type_name(t->type), (long long) ggml_blck_size(t->type));
        return NULL;
    }
    if (2 * (tr->n + 1) > tr->cap) {
        snprintf(tr->why, sizeof(tr->why), "more than %zu tensors", tr->cap / 2);
        return NULL;
    }
    struct vnpu_tensor *view_src = NULL;
    if (t->view_src && !(view_src = translate_data(tr, t->view_src))) {
        return NULL;
    }
    struct vnpu_tensor *v = vnpu_new_tensor(tr->ctx, (enum vnpu_type) t->type, VNPU_MAX_DIMS, t->ne);
    memcpy(v->nb, t->nb, sizeof(v->nb));
    v->view_src = view_src;
    v->view_offs = t->view_offs;
    v->data = t->data;
    v->buffer = t->buffer ? tr->buffer_of(t->buffer) : NULL;
    v->flags = (t->flags & GGML_TENSOR_FLAG_INPUT ? VNPU_TENSOR_FLAG_INPUT : 0) |
               (t->flags & GGML_TENSOR_FLAG_OUTPUT ? VNPU_TENSOR_FLAG_OUTPUT : 0);
    if (t->buffer && ggml_backend_buffer_get_usage(t->buffer) == GGML_BACKEND_BUFFER_USAGE_WEIGHTS) {
        v->flags |= VNPU_TENSOR_FLAG_WEIGHT;
    }
    snprintf(v->name, sizeof(v->name), "%s", t->name);
    tr->keys[i] = t;
    tr->vals[i] = v;
    tr->n++;
    return v;
}

/* node's op_params as vnpu's op reads them into v; false, with why, for parameters vnpu's op does not take. The
 * layouts agree (src/base/graph.c mirrors ggml.c) but for the sub-op numbers of UNARY and GLU and the parts of
 * GGML's ROPE that vnpu's has not (M-RoPE sections, the position offset). */
static bool translate_op_params(struct ggml_vnpu_translation *tr, const struct ggml_tensor *node,
                                struct vnpu_tensor *v) {
    memcpy(v->op_params, node->op_params, sizeof(v->op_params));
    const int32_t sub = node->op_params[0];
    if (node->op == GGML_OP_UNARY) {
        if ((unsigned) sub >= GGML_UNARY_OP_COUNT || !unary_map[sub].known) {
            snprintf(tr->why, sizeof(tr->why), "unary op %s is not one of vnpu's",
                     ggml_unary_op_name((enum ggml_unary_op) sub));
            return false;
        }
        v->op_params[0] = unary_map[sub].op;
    } else if (node->op == GGML_OP_GLU) {
        if ((unsigned) sub >= GGML_GLU_OP_COUNT || !glu_map[sub].known) {
            snprintf(tr->why, sizeof(tr->why), "glu op %s is not one of vnpu's",
                     ggml_glu_op_name((enum ggml_glu_op) sub));
            return false;
        }
        if (!node->src[1]) {
            snprintf(tr->why, sizeof(tr->why), "a glu of one tensor's halves (vnpu's takes two tensors)");
            return false;
        }
        v->op_params[0] = glu_map[sub].op; /* [1], swapped, is the same */
    } else if (node->op == GGML_OP_ROPE) {
        for (int i = 11; i < VNPU_MAX_OP_PARAMS; i++) { /* [11..14] the sections, [15] the offset */
            if (node->op_params[i] != 0) {
                snprintf(tr->why, sizeof(tr->why), "rope op_params[%d] = %d (sections, offset: not in vnpu's)", i,
                         node->op_params[i]);
                return false;
            }
        }
    }
    return true; /* every other op: no op_params, or graph.c's copy of ggml.c's layout */
}

struct vnpu_tensor *ggml_vnpu_translate_tensor(struct ggml_vnpu_translation *tr, const struct ggml_tensor *t) {
    return translate_data(tr, t);
}

struct vnpu_tensor *ggml_vnpu_translate_node(struct ggml_vnpu_translation *tr, const struct ggml_tensor *node) {
    const struct op_row *row = (unsigned) node->op < GGML_OP_COUNT ? &op_map[node->op] : NULL;
    if (!row || !row->known) {
        snprintf(tr->why, sizeof(tr->why), "op %s is not one of vnpu's", ggml_op_desc(node));
        return NULL;
    }
    for (int s = row->n_src; s < GGML_MAX_SRC; s++) {
        if (node->src[s]) {
            snprintf(tr->why, sizeof(tr->why), "%s with src[%d] '%.64s' (vnpu's takes %d)", ggml_op_desc(node), s,
                     node->src[s]->name, row->n_src);
            return NULL;
        }
    }
    struct vnpu_tensor *v = translate_data(tr, node);
    if (!v) {
        return NULL;
    }
    for (int s = 0; s < row->n_src; s++) {
        if (node->src[s] && !(v->src[s] = translate_data(tr, node->src[s]))) {
            return NULL;
        }
    }
    v->op = row->op;
    return translate_op_params(tr, node, v) ? v : NULL;
}
