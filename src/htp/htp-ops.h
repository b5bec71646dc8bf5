/*
 * The NPU opcodes' names and operand counts, shared by the host (verbose lines, trace spans, request
 * checks) and the dispatcher (main.c). One switch per question, no default: a new opcode in htp-msg.h
 * does not compile until it has its row here.
 */
#ifndef VNPU_HTP_OPS_H
#define VNPU_HTP_OPS_H

#include "htp-msg.h"

#include <stdbool.h>
#include <stdint.h>

/* The op's name as GGML prints it (fusions as "RMS_NORM_MUL"); "?" for an unknown opcode. */
static inline const char *htp_op_name(uint32_t op) {
    switch ((enum htp_op) op) {
        case HTP_OP_ADD: return "ADD";
        case HTP_OP_SUB: return "SUB";
        case HTP_OP_MUL: return "MUL";
        case HTP_OP_DIV: return "DIV";
        case HTP_OP_SCALE: return "SCALE";
        case HTP_OP_RMS_NORM: return "RMS_NORM";
        case HTP_OP_RMS_NORM_MUL: return "RMS_NORM_MUL";
        case HTP_OP_UNARY_SILU: return "SILU";
        case HTP_OP_UNARY_GELU: return "GELU";
        case HTP_OP_GLU_SWIGLU: return "SWIGLU";
        case HTP_OP_ROPE: return "ROPE";
        case HTP_OP_SOFT_MAX: return "SOFT_MAX";
        case HTP_OP_GET_ROWS: return "GET_ROWS";
        case HTP_OP_SET_ROWS: return "SET_ROWS";
        case HTP_OP_CPY: return "CPY";
        case HTP_OP_FLASH_ATTN_EXT: return "FLASH_ATTN_EXT";
        case HTP_OP_MUL_MAT: return "MUL_MAT";
        case HTP_OP_MUL_MAT_ID: return "MUL_MAT_ID";
        case HTP_OP_COUNT: break;
    }
    return "?";
}

/* Operands an op must have: src[0..n_src) and dst[0..n_dst) present (later srcs are optional, e.g. a
 * mask). False for an unknown opcode. */
static inline bool htp_op_operands(uint32_t op, uint32_t *n_src, uint32_t *n_dst) {
    *n_dst = 1;
    switch ((enum htp_op) op) {
        case HTP_OP_ADD:
        case HTP_OP_SUB:
        case HTP_OP_MUL:
        case HTP_OP_DIV:
        case HTP_OP_GLU_SWIGLU:
        case HTP_OP_ROPE:     /* src0, positions; freq factors optional */
        case HTP_OP_GET_ROWS: /* rows, indices */
        case HTP_OP_SET_ROWS: /* rows, indices */
        case HTP_OP_MUL_MAT: *n_src = 2; return true;
        case HTP_OP_SCALE:
        case HTP_OP_RMS_NORM:
        case HTP_OP_UNARY_SILU:
        case HTP_OP_UNARY_GELU:
        case HTP_OP_SOFT_MAX: /* mask optional */
        case HTP_OP_CPY: *n_src = 1; return true;
        case HTP_OP_RMS_NORM_MUL: *n_src = 2, *n_dst = 2; return true;
        case HTP_OP_FLASH_ATTN_EXT: /* q, k, v; mask optional */
        case HTP_OP_MUL_MAT_ID: *n_src = 3; return true;
        case HTP_OP_COUNT: break;
    }
    *n_src = 0;
    return false;
}

#endif /* VNPU_HTP_OPS_H */
