/*
 * Which nodes the HTP devices take, and as which NPU op: the op table (vnpu op -> NPU opcode and op
 * family), supports_op, and the RMS_NORM + MUL fusion.
 *
 * supports_op decides from static properties only (types, shapes, strides, op params) and never looks at
 * buffers or data: the scheduler asks before anything is allocated (seed, "supports_op Independence").
 * Under VNPU_VERBOSE each answer is one line, with the reason when it is no:
 *     vnpu-htp: HTP0 supports-op SILU : ffn_silu-0 : 172:1:1:1 -> 172:1:1:1 : f32 -> f32 : yes
 */
#include "htp-device-impl.h"
#include "htp-ops.h"

#include "log.h"

#include <stdio.h>
#include <string.h>

uint32_t htp_op_of(const struct vnpu_tensor *node, const struct htp_op_family **family) {
    *family = NULL;
    switch (node->op) {
        case VNPU_OP_ADD: *family = &htp_family_binary; return HTP_OP_ADD;
        case VNPU_OP_SUB: *family = &htp_family_binary; return HTP_OP_SUB;
        case VNPU_OP_MUL: *family = &htp_family_binary; return HTP_OP_MUL;
        case VNPU_OP_DIV: *family = &htp_family_binary; return HTP_OP_DIV;
        case VNPU_OP_SCALE: *family = &htp_family_unary; return HTP_OP_SCALE;
        case VNPU_OP_RMS_NORM: *family = &htp_family_unary; return HTP_OP_RMS_NORM;
        case VNPU_OP_UNARY:
            switch ((enum vnpu_unary_op) node->op_params[0]) {
                case VNPU_UNARY_OP_SILU: *family = &htp_family_act; return HTP_OP_UNARY_SILU;
                case VNPU_UNARY_OP_GELU: *family = &htp_family_act; return HTP_OP_UNARY_GELU;
                case VNPU_UNARY_OP_COUNT: break;
            }
            break;
        case VNPU_OP_GLU:
            switch ((enum vnpu_glu_op) node->op_params[0]) {
                case VNPU_GLU_OP_SWIGLU: *family = &htp_family_act; return HTP_OP_GLU_SWIGLU;
                case VNPU_GLU_OP_GEGLU: /* no NPU opcode */
                case VNPU_GLU_OP_COUNT: break;
            }
            break;
        case VNPU_OP_CPY:
        case VNPU_OP_CONT: *family = &htp_family_cpy; return HTP_OP_CPY;
        case VNPU_OP_GET_ROWS: *family = &htp_family_get_rows; return HTP_OP_GET_ROWS;
        case VNPU_OP_SET_ROWS: *family = &htp_family_set_rows; return HTP_OP_SET_ROWS;
        case VNPU_OP_ROPE: *family = &htp_family_rope; return HTP_OP_ROPE;
        case VNPU_OP_SOFT_MAX: *family = &htp_family_softmax; return HTP_OP_SOFT_MAX;
        case VNPU_OP_FLASH_ATTN_EXT: *family = &htp_family_flash_attn; return HTP_OP_FLASH_ATTN_EXT;
        case VNPU_OP_MUL_MAT: *family = &htp_family_matmul; return HTP_OP_MUL_MAT;
        case VNPU_OP_MUL_MAT_ID: *family = &htp_family_matmul_id; return HTP_OP_MUL_MAT_ID;
        /* Not compute ops. */
        case VNPU_OP_NONE:
        case VNPU_OP_RESHAPE:
        case VNPU_OP_VIEW:
        case VNPU_OP_PERMUTE:
        case VNPU_OP_TRANSPOSE:
        case VNPU_OP_COUNT: break;
    }
    return HTP_OP_COUNT;
}

bool htp_family_supports(const struct htp_op_family *f, const struct htp_device *d, const struct vnpu_tensor *node,
                         uint32_t opcode, char *why, size_t size) {
    if (f->supports) {
        return f->supports(d, node, opcode, why, size);
    }
    struct htp_op_desc op;
    return f->plan(d, node, op.kparams, why, size);
}

void htp_family_prep(const struct htp_op_family *f, const struct htp_device *d, const struct vnpu_tensor *node,
                     const struct vnpu_tensor *fused, uint32_t opcode, struct htp_op_desc *op,
                     const struct vnpu_tensor **src, const struct vnpu_tensor **dst) {
    if (f->prep) {
        f->prep(d, node, fused, opcode, op, src, dst);
        return;
    }
    char why[192];
    for (uint32_t j = 0; j < f->n_src; j++) {
        src[j] = node->src[j];
    }
    dst[0] = node;
    VNPU_ASSERT(f->plan(d, node, op->kparams, why, sizeof(why)));
}

/* ne and nb of every operand fit the message's 32-bit fields. */
static bool htp_node_fits_message(const struct vnpu_tensor *node, char *why, size_t size) {
    for (int s = -1; s < VNPU_MAX_SRC; s++) {
        const struct vnpu_tensor *t = s < 0 ? node : node->src[s];
        for (int i = 0; t && i < VNPU_MAX_DIMS; i++) {
            if (t->ne[i] > (int64_t) UINT32_MAX || t->nb[i] > UINT32_MAX) {
                snprintf(why, size, "'%s' dim %d (%lld elements, %zu-byte stride) exceeds 32 bits", t->name, i,
                         (long long) t->ne[i], t->nb[i]);
                return false;
            }
        }
    }
    return true;
}

void htp_node_dims(const struct vnpu_tensor *node, char *dims, size_t dims_size, char *types, size_t types_size) {
    size_t nd = 0, nt = 0;
    dims[0] = types[0] = 0;
    for (int s = 0; s <= VNPU_MAX_SRC; s++) {
        const struct vnpu_tensor *t = s < VNPU_MAX_SRC ? node->src[s] : node;
        if (!t) {
            continue;
        }
        const char *sep = s == VNPU_MAX_SRC ? " -> " : s > 0 ? " x " : "";
        if (nd < dims_size) {
            nd += (size_t) snprintf(dims + nd, dims_size - nd, "%s%lld:%lld:%lld:%lld", sep, (long long) t->ne[0],
                                    (long long) t->ne[1], (long long) t->ne[2], (long long) t->ne[3]);
        }
        if (nt < types_size) {
            nt += (size_t) snprintf(types + nt, types_size - nt, "%s%s", sep, vnpu_type_name(t->type));
        }
    }
}

/* Whether an operand of node views a weight its REPACK buffer may store tiled (a weight of a tiled type and shape,
 * unless VNPU_HOSTBUF keeps weights flat): the kernels read tiles of whole weights only, and a view's bytes are the
 * flat weight's. Static: the view's and the weight's types, shapes and flags. */
static bool htp_node_views_tiled_weight(const struct htp_device *d, const struct vnpu_tensor *node, char *why,
                                        size_t size) {
    for (int s = 0; s < VNPU_MAX_SRC && !d->cfg->hostbuf; s++) {
        const struct vnpu_tensor *w = node->src[s] ? node->src[s]->view_src : NULL;
        if (w && (w->flags & VNPU_TENSOR_FLAG_WEIGHT) && htp_matmul_tiled_weight(w->type, w->ne)) {
            snprintf(why, size, "'%.48s' views weight '%.48s', tiled in %s-REPACK (whole weights only)",
                     node->src[s]->name, w->name, d->name);
            return true;
        }
    }
    return false;
}

/* Whether VNPU_OPFILTER keeps node off the NPU: its regex finds the op's name ("MUL_MAT") or the name with the first
 * source's type ("MUL_MAT(q6_K)"), so a filter can name an op of one weight type alone. */
static bool htp_opfilter_match(const struct htp_device *d, const struct vnpu_tensor *node) {
    if (!d->cfg->has_opfilter) {
        return false;
    }
    if (regexec(&d->cfg->opfilter, vnpu_op_desc(node), 0, NULL, 0) == 0) {
        return true;
    }
    if (!node->src[0]) {
        return false;
    }
    char typed[64];
    snprintf(typed, sizeof(typed), "%s(%s)", vnpu_op_desc(node), vnpu_type_name(node->src[0]->type));
    return regexec(&d->cfg->opfilter, typed, 0, NULL, 0) == 0;
}

bool htp_supports_op(const struct htp_device *d, const struct vnpu_tensor *node) {
    if (vnpu_op_is_empty(node->op)) {
        return true;
    }
    char why[192] = "";
    const struct htp_op_family *family;
    const uint32_t opcode = htp_op_of(node, &family);
    bool ok = false;
    if (opcode == HTP_OP_COUNT) {
        snprintf(why, sizeof(why), "no NPU kernel for %s", vnpu_op_desc(node));
    } else if (htp_opfilter_match(d, node)) {
        snprintf(why, sizeof(why), "kept off the NPU by VNPU_OPFILTER '%s'", d->cfg->opfilter_s);
    } else {
        ok = !htp_node_views_tiled_weight(d, node, why, sizeof(why)) && htp_node_fits_message(node, why, sizeof(why)) &&
             htp_family_supports(family, d, node, opcode, why, sizeof(why));
    }
    if (d->cfg->verbose) {
        char dims[256], types[128];
        htp_node_dims(node, dims, sizeof(dims), types, sizeof(types));
        if (ok) {
            htp_config_print("vnpu-htp: %s supports-op %s : %s : %s : %s : yes", d->name, vnpu_op_desc(node),
                             node->name, dims, types);
        } else {
            htp_config_print("vnpu-htp: %s supports-op %s : %s : %s : %s : no (%s)", d->name, vnpu_op_desc(node),
                             node->name, dims, types, why);
        }
    }
    return ok;
}

/* Whether the bytes of a and b (from data, vnpu_nbytes long) share an address. */
static bool htp_tensors_overlap(const struct vnpu_tensor *a, const struct vnpu_tensor *b) {
    const uint8_t *pa = a->data, *pb = b->data;
    return pa < pb + vnpu_nbytes(b) && pb < pa + vnpu_nbytes(a);
}

/* Whether a and b are the same elements at the same addresses (an op in place, row for row). */
static bool htp_tensors_alias(const struct vnpu_tensor *a, const struct vnpu_tensor *b) {
    return a->data == b->data && vnpu_are_same_shape(a, b) && memcmp(a->nb, b->nb, sizeof(a->nb)) == 0;
}

/* The fused op reads x and w row by row and writes both the MUL (dst 0) and the norm (dst 1) from VTCM, in no
 * order between the two, while the pair it replaces computes the whole norm before the MUL reads it. So it
 * computes the same only when: the MUL's and the norm's bytes are apart (else the later write wins); w is not
 * the norm nor any byte of it (the pair reads the norm there, the fused op the memory before the norm);
 * x and the MUL are apart or the same rows in place (the fused op writes a row of the MUL after reading that
 * row of x only). Other consumers of the norm read it in memory, as the fused op writes it. */
bool htp_can_fuse_rms_norm_mul(const struct htp_device *d, struct vnpu_tensor *const *nodes, int n, int i) {
    if (i + 1 >= n || nodes[i]->op != VNPU_OP_RMS_NORM) {
        return false;
    }
    const struct vnpu_tensor *norm = nodes[i], *mul = nodes[i + 1];
    if (mul->op != VNPU_OP_MUL || mul->src[0] != norm || !vnpu_are_same_shape(mul, norm)) {
        return false;
    }
    const struct vnpu_tensor *x = norm->src[0], *w = mul->src[1];
    if (htp_tensors_overlap(mul, norm) || htp_tensors_overlap(w, norm) ||
        (htp_tensors_overlap(x, mul) && !htp_tensors_alias(x, mul))) {
        return false;
    }
    char why[192];
    return htp_family_unary.supports(d, mul, HTP_OP_RMS_NORM_MUL, why, sizeof(why));
}
