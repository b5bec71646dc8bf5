/*
 * ADD, SUB, MUL, DIV (src1 broadcast over src0, as ggml's binary ops) and SCALE.
 *
 * One float operation per element, rounded once (an IEEE add/sub/mul/div of two floats is exact before
 * its single rounding, so double would change nothing); F16 operands are widened exactly and the result
 * rounded to F16, as ggml does. Any strides; dst may be src0 itself (in place).
 */
#include "cpu-ops.h"

typedef float (*binary_fn)(float x, float y);

static float binary_add(float x, float y) {
    return x + y;
}

static float binary_sub(float x, float y) {
    return x - y;
}

static float binary_mul(float x, float y) {
    return x * y;
}

static float binary_div(float x, float y) {
    return x / y;
}

/* The elementwise function of each binary op; NULL for the other ops. */
static const binary_fn binary_fns[VNPU_OP_COUNT] = {
    [VNPU_OP_ADD] = binary_add,
    [VNPU_OP_SUB] = binary_sub,
    [VNPU_OP_MUL] = binary_mul,
    [VNPU_OP_DIV] = binary_div,
};

bool cpu_op_binary_supported(const struct vnpu_tensor *dst) {
    const struct vnpu_tensor *a = dst->src[0], *b = dst->src[1];
    const bool types =
        (a->type == VNPU_TYPE_F32 || a->type == VNPU_TYPE_F16) && b->type == a->type && dst->type == a->type;
    return binary_fns[dst->op] && types && vnpu_can_repeat(b, a) && vnpu_are_same_shape(dst, a);
}

void cpu_op_binary(const struct cpu_params *p, struct vnpu_tensor *dst) {
    const struct vnpu_tensor *a = dst->src[0], *b = dst->src[1];
    const binary_fn fn = binary_fns[dst->op];
    const int64_t ne0 = dst->ne[0], ne1 = dst->ne[1], ne2 = dst->ne[2];
    const int64_t ne10 = b->ne[0], ne11 = b->ne[1], ne12 = b->ne[2], ne13 = b->ne[3];
    const struct row_range r = row_range_of(vnpu_nrows(dst), p->nth, p->ith);
    for (int64_t ir = r.start; ir < r.end; ir++) {
        int64_t i1, i2, i3;
        row_unravel(ir, ne1, ne2, &i1, &i2, &i3);
        const char *x = tensor_at(a, 0, i1, i2, i3);
        const char *y = tensor_at(b, 0, i1 % ne11, i2 % ne12, i3 % ne13);
        char *d = tensor_at(dst, 0, i1, i2, i3);
        for (int64_t i0 = 0; i0 < ne0; i0++) {
            const float xv = cpu_load_f32(a->type, x + i0 * (int64_t) a->nb[0]);
            const float yv = cpu_load_f32(b->type, y + (i0 % ne10) * (int64_t) b->nb[0]);
            cpu_store_f32(dst->type, d + i0 * (int64_t) dst->nb[0], fn(xv, yv));
        }
    }
}

bool cpu_op_scale_supported(const struct vnpu_tensor *dst) {
    return dst->src[0]->type == VNPU_TYPE_F32 && dst->type == VNPU_TYPE_F32;
}

/* dst = src0 * s + b, each element rounded once (the product of two floats is exact in double). */
void cpu_op_scale(const struct cpu_params *p, struct vnpu_tensor *dst) {
    const struct vnpu_tensor *a = dst->src[0];
    const double s = vnpu_get_op_param_f32(dst, 0);
    const double b = vnpu_get_op_param_f32(dst, 1);
    const int64_t ne0 = dst->ne[0], ne1 = dst->ne[1], ne2 = dst->ne[2];
    const struct row_range r = row_range_of(vnpu_nrows(dst), p->nth, p->ith);
    for (int64_t ir = r.start; ir < r.end; ir++) {
        int64_t i1, i2, i3;
        row_unravel(ir, ne1, ne2, &i1, &i2, &i3);
        const char *x = tensor_at(a, 0, i1, i2, i3);
        char *d = tensor_at(dst, 0, i1, i2, i3);
        for (int64_t i0 = 0; i0 < ne0; i0++) {
            const double xv = *(const float *) (x + i0 * (int64_t) a->nb[0]);
            *(float *) (d + i0 * (int64_t) dst->nb[0]) = (float) (xv * s + b);
        }
    }
}
