/*
 * What the CPU op families share: the per-thread compute parameters, the row split, element access by
 * ne/nb, and each family's entry points.
 *
 * Every op is split over threads by rows of its result (or, for MUL_MAT, rows of src0), each row
 * computed whole by one thread in a fixed order, so results are bitwise identical for any thread count.
 * Reductions (dot products, norms, softmax sums) accumulate in double and round once.
 *
 * Each family file exports, per op: cpu_op_<op>(params, dst) computes dst's share of thread ith;
 * cpu_op_<op>_supported(dst) says whether the family computes that node (types, layouts, op params);
 * where a thread needs scratch, cpu_op_<op>_wsize(dst) gives its bytes.
 */
#ifndef VNPU_CPU_OPS_H
#define VNPU_CPU_OPS_H

#include "fp16.h"
#include "log.h"
#include "tensor.h"

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What one thread gets for one node. */
struct cpu_params {
    int ith;      /* this thread, 0..nth-1 */
    int nth;      /* threads computing the node */
    void *wdata;  /* this thread's scratch, 64-byte aligned */
    size_t wsize; /* its bytes: at least the op's cpu_op_<op>_wsize */
};

/* Rows [start, end) of nrows for thread ith of nth: equal chunks, the last ones shorter or empty. */
struct row_range {
    int64_t start;
    int64_t end;
};

static inline struct row_range row_range_of(int64_t nrows, int nth, int ith) {
    const int64_t per = (nrows + nth - 1) / nth;
    const int64_t start = per * ith < nrows ? per * ith : nrows;
    const int64_t end = start + per < nrows ? start + per : nrows;
    return (struct row_range){.start = start, .end = end};
}

/* Row ir of a tensor with ne[1..3] = ne1, ne2, ne3 as indices (i1, i2, i3). */
static inline void row_unravel(int64_t ir, int64_t ne1, int64_t ne2, int64_t *i1, int64_t *i2, int64_t *i3) {
    *i1 = ir % ne1;
    *i2 = ir / ne1 % ne2;
    *i3 = ir / (ne1 * ne2);
}

/* Address of element (or block) (i0, i1, i2, i3) of t; i0 counts blocks for block types. */
static inline char *tensor_at(const struct vnpu_tensor *t, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
    return (char *) t->data + i0 * (int64_t) t->nb[0] + i1 * (int64_t) t->nb[1] + i2 * (int64_t) t->nb[2] +
           i3 * (int64_t) t->nb[3];
}

/* True for the element types loaded and stored one at a time below. */
static inline bool cpu_type_is_float(enum vnpu_type type) {
    return type == VNPU_TYPE_F32 || type == VNPU_TYPE_F16 || type == VNPU_TYPE_BF16;
}

/* One F32, F16 or BF16 element as a float (exact). */
static inline float cpu_load_f32(enum vnpu_type type, const void *p) {
    if (type == VNPU_TYPE_F16) {
        return vnpu_fp16_to_f32(*(const vnpu_fp16_t *) p);
    }
    if (type == VNPU_TYPE_BF16) {
        return vnpu_bf16_to_f32(*(const vnpu_bf16_t *) p);
    }
    return *(const float *) p;
}

/* Store v as an F32, F16 or BF16 element (rounded to nearest even). */
static inline void cpu_store_f32(enum vnpu_type type, void *p, float v) {
    if (type == VNPU_TYPE_F16) {
        *(vnpu_fp16_t *) p = vnpu_f32_to_fp16(v);
    } else if (type == VNPU_TYPE_BF16) {
        *(vnpu_bf16_t *) p = vnpu_f32_to_bf16(v);
    } else {
        *(float *) p = v;
    }
}

/* An F32 or F16 mask element. */
static inline double cpu_load_mask(const struct vnpu_tensor *mask, const char *row, int64_t i) {
    return cpu_load_f32(mask->type, row + i * (int64_t) mask->nb[0]);
}

/* ALiBi slope of head h of n_head with max_bias > 0 (ggml's soft_max and flash_attn_ext: m0, m1 from
 * the largest power of two <= n_head, in float as ggml computes them); 1 when max_bias <= 0. */
static inline float cpu_alibi_slope(float max_bias, uint32_t n_head, uint32_t h) {
    if (max_bias <= 0.0f) {
        return 1.0f;
    }
    const uint32_t n_head_log2 = 1u << (uint32_t) floor(log2((double) n_head));
    const float m0 = powf(2.0f, -max_bias / (float) n_head_log2);
    const float m1 = powf(2.0f, -(max_bias / 2.0f) / (float) n_head_log2);
    return h < n_head_log2 ? powf(m0, (float) (h + 1)) : powf(m1, (float) (2 * (h - n_head_log2) + 1));
}

/* cpu-binary.c: ADD, SUB, MUL, DIV (b broadcast), SCALE. */
void cpu_op_binary(const struct cpu_params *p, struct vnpu_tensor *dst);
bool cpu_op_binary_supported(const struct vnpu_tensor *dst);
void cpu_op_scale(const struct cpu_params *p, struct vnpu_tensor *dst);
bool cpu_op_scale_supported(const struct vnpu_tensor *dst);

/* cpu-norm.c: RMS_NORM. */
void cpu_op_rms_norm(const struct cpu_params *p, struct vnpu_tensor *dst);
bool cpu_op_rms_norm_supported(const struct vnpu_tensor *dst);

/* cpu-act.c: UNARY (SILU, GELU), GLU (SWIGLU, GEGLU). */
void cpu_op_unary(const struct cpu_params *p, struct vnpu_tensor *dst);
bool cpu_op_unary_supported(const struct vnpu_tensor *dst);
void cpu_op_glu(const struct cpu_params *p, struct vnpu_tensor *dst);
bool cpu_op_glu_supported(const struct vnpu_tensor *dst);

/* cpu-matmul.c: MUL_MAT, MUL_MAT_ID. */
void cpu_op_mul_mat(const struct cpu_params *p, struct vnpu_tensor *dst);
bool cpu_op_mul_mat_supported(const struct vnpu_tensor *dst);
size_t cpu_op_mul_mat_wsize(const struct vnpu_tensor *dst);
void cpu_op_mul_mat_id(const struct cpu_params *p, struct vnpu_tensor *dst);
bool cpu_op_mul_mat_id_supported(const struct vnpu_tensor *dst);
size_t cpu_op_mul_mat_id_wsize(const struct vnpu_tensor *dst);

/* cpu-rows.c: GET_ROWS, SET_ROWS, CPY and CONT. */
void cpu_op_get_rows(const struct cpu_params *p, struct vnpu_tensor *dst);
bool cpu_op_get_rows_supported(const struct vnpu_tensor *dst);
void cpu_op_set_rows(const struct cpu_params *p, struct vnpu_tensor *dst);
bool cpu_op_set_rows_supported(const struct vnpu_tensor *dst);
void cpu_op_cpy(const struct cpu_params *p, struct vnpu_tensor *dst); /* CPY and CONT */
bool cpu_op_cpy_supported(const struct vnpu_tensor *dst);

/* cpu-rope.c: ROPE (normal and neox, YaRN). */
void cpu_op_rope(const struct cpu_params *p, struct vnpu_tensor *dst);
bool cpu_op_rope_supported(const struct vnpu_tensor *dst);

/* cpu-softmax.c: SOFT_MAX. */
void cpu_op_soft_max(const struct cpu_params *p, struct vnpu_tensor *dst);
bool cpu_op_soft_max_supported(const struct vnpu_tensor *dst);
size_t cpu_op_soft_max_wsize(const struct vnpu_tensor *dst);

/* cpu-attn.c: FLASH_ATTN_EXT. */
void cpu_op_flash_attn_ext(const struct cpu_params *p, struct vnpu_tensor *dst);
bool cpu_op_flash_attn_ext_supported(const struct vnpu_tensor *dst);
size_t cpu_op_flash_attn_ext_wsize(const struct vnpu_tensor *dst);

#endif /* VNPU_CPU_OPS_H */
