/*
 * UNARY (SILU, GELU) and GLU (SWIGLU, GEGLU): activations computed in double, rounded once.
 *
 * SILU(x) = x / (1 + e^-x). GELU is the tanh approximation ggml_gelu uses,
 * 0.5 x (1 + tanh(sqrt(2/pi) x (1 + 0.044715 x^2))) (Hendrycks & Gimpel 2016), computed exactly here
 * rather than through ggml's fp16 table. GLU (ggml_glu_split): act(a) * b, or act(b) * a when swapped
 * (op_params[1]). Any strides; in place is fine (one element read before it is written).
 */
#include "cpu-ops.h"

#include <math.h>

#define GELU_COEF_A 0.044715

static double act_silu(double x) {
    return x / (1.0 + exp(-x));
}

static double act_gelu(double x) {
    const double sqrt_2_over_pi = sqrt(2.0 / M_PI);
    return 0.5 * x * (1.0 + tanh(sqrt_2_over_pi * x * (1.0 + GELU_COEF_A * x * x)));
}

typedef double (*act_fn)(double x);

static const act_fn unary_fns[VNPU_UNARY_OP_COUNT] = {
    [VNPU_UNARY_OP_SILU] = act_silu,
    [VNPU_UNARY_OP_GELU] = act_gelu,
};
_Static_assert(VNPU_UNARY_OP_COUNT == 2, "new unary op: add its function here");

static const act_fn glu_fns[VNPU_GLU_OP_COUNT] = {
    [VNPU_GLU_OP_SWIGLU] = act_silu,
    [VNPU_GLU_OP_GEGLU] = act_gelu,
};
_Static_assert(VNPU_GLU_OP_COUNT == 2, "new glu op: add its function here");

bool cpu_op_unary_supported(const struct vnpu_tensor *dst) {
    return (uint32_t) dst->op_params[0] < VNPU_UNARY_OP_COUNT && dst->src[0]->type == VNPU_TYPE_F32 &&
           dst->type == VNPU_TYPE_F32;
}

void cpu_op_unary(const struct cpu_params *p, struct vnpu_tensor *dst) {
    const struct vnpu_tensor *a = dst->src[0];
    const act_fn fn = unary_fns[dst->op_params[0]];
    const int64_t ne0 = dst->ne[0], ne1 = dst->ne[1], ne2 = dst->ne[2];
    const struct row_range r = row_range_of(vnpu_nrows(dst), p->nth, p->ith);
    for (int64_t ir = r.start; ir < r.end; ir++) {
        int64_t i1, i2, i3;
        row_unravel(ir, ne1, ne2, &i1, &i2, &i3);
        const char *x = tensor_at(a, 0, i1, i2, i3);
        char *y = tensor_at(dst, 0, i1, i2, i3);
        for (int64_t i0 = 0; i0 < ne0; i0++) {
            const double v = *(const float *) (x + i0 * (int64_t) a->nb[0]);
            *(float *) (y + i0 * (int64_t) dst->nb[0]) = (float) fn(v);
        }
    }
}

bool cpu_op_glu_supported(const struct vnpu_tensor *dst) {
    const struct vnpu_tensor *a = dst->src[0], *b = dst->src[1];
    return (uint32_t) dst->op_params[0] < VNPU_GLU_OP_COUNT && b && a->type == VNPU_TYPE_F32 &&
           b->type == VNPU_TYPE_F32 && dst->type == VNPU_TYPE_F32 && vnpu_are_same_shape(a, b);
}

void cpu_op_glu(const struct cpu_params *p, struct vnpu_tensor *dst) {
    const bool swapped = dst->op_params[1] != 0;
    const struct vnpu_tensor *a = dst->src[swapped ? 1 : 0]; /* the activated half */
    const struct vnpu_tensor *g = dst->src[swapped ? 0 : 1]; /* the gate */
    const act_fn fn = glu_fns[dst->op_params[0]];
    const int64_t ne0 = dst->ne[0], ne1 = dst->ne[1], ne2 = dst->ne[2];
    const struct row_range r = row_range_of(vnpu_nrows(dst), p->nth, p->ith);
    for (int64_t ir = r.start; ir < r.end; ir++) {
        int64_t i1, i2, i3;
        row_unravel(ir, ne1, ne2, &i1, &i2, &i3);
        const char *x = tensor_at(a, 0, i1, i2, i3);
        const char *z = tensor_at(g, 0, i1, i2, i3);
        char *y = tensor_at(dst, 0, i1, i2, i3);
        for (int64_t i0 = 0; i0 < ne0; i0++) {
            const double xv = *(const float *) (x + i0 * (int64_t) a->nb[0]);
            const double zv = *(const float *) (z + i0 * (int64_t) g->nb[0]);
            *(float *) (y + i0 * (int64_t) dst->nb[0]) = (float) (fn(xv) * zv);
        }
    }
}
