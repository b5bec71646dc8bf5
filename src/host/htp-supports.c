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
    } else if (d->cfg->has_opfilter && regexec(&d->cfg->opfilter, vnpu_op_desc(node), 0, NULL, 0) == 0) {
        snprintf(why, sizeof(why), "kept off the NPU by VNPU_OPFILTER '%s'", d->cfg->opfilter_s);
    } else {
        ok = htp_node_fits_message(node, why, sizeof(why)) && family->supports(d, node, opcode, why, sizeof(why));
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

bool htp_can_fuse_rms_norm_mul(const struct htp_device *d, struct vnpu_tensor *const *nodes, int n, int i) {
    if (i + 1 >= n || nodes[i]->op != VNPU_OP_RMS_NORM) {
        return false;
    }
    const struct vnpu_tensor *norm = nodes[i], *mul = nodes[i + 1];
    char why[192];
    return mul->op == VNPU_OP_MUL && mul->src[0] == norm && vnpu_are_same_shape(mul, norm) &&
           htp_family_unary.supports(d, mul, HTP_OP_RMS_NORM_MUL, why, sizeof(why));
}
