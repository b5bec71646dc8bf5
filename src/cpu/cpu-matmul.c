/*
 * MUL_MAT and MUL_MAT_ID: dst[i, j] = dot(row i of src0, row j of src1), ggml's layout (both operands
 * row-major along ne0, the result [ne01, ne11, ...]).
 *
 * A src0 row of any type with a to_f32 is dequantized into scratch (weights stay exact, no Q8
 * activation blocks as ggml's CPU uses), src1 stays F32 and may have any strides (the attention path
 * multiplies permuted views), and every dot product accumulates in double and rounds once. Threads split
 * the src0 rows: a row's products are computed by one thread, in one order.
 */
#include "cpu-ops.h"

/* sum over k < n of w[k] * x[k * stride], in double. */
static double dot_f32_strided(const float *w, const char *x, int64_t stride, int64_t n) {
    double sum = 0.0;
    for (int64_t k = 0; k < n; k++) {
        sum += (double) w[k] * (double) *(const float *) (x + k * stride);
    }
    return sum;
}

/* src0 is a weight matrix the CPU can read: a type with to_f32, rows dense (blocks back to back). */
static bool weight_supported(const struct vnpu_tensor *w) {
    const struct vnpu_type_traits *tt = vnpu_type_traits_get(w->type);
    return tt->to_f32 && w->nb[0] == tt->size;
}

bool cpu_op_mul_mat_supported(const struct vnpu_tensor *dst) {
    const struct vnpu_tensor *a = dst->src[0], *b = dst->src[1];
    return weight_supported(a) && b->type == VNPU_TYPE_F32 && dst->type == VNPU_TYPE_F32;
}

size_t cpu_op_mul_mat_wsize(const struct vnpu_tensor *dst) {
    return (size_t) dst->src[0]->ne[0] * sizeof(float);
}

void cpu_op_mul_mat(const struct cpu_params *p, struct vnpu_tensor *dst) {
    const struct vnpu_tensor *a = dst->src[0], *b = dst->src[1];
    const vnpu_to_f32_fn to_f32 = vnpu_type_traits_get(a->type)->to_f32;
    const int64_t ne00 = a->ne[0], ne01 = a->ne[1], ne02 = a->ne[2], ne03 = a->ne[3];
    const int64_t ne11 = b->ne[1], ne12 = b->ne[2], ne13 = b->ne[3];
    const int64_t r2 = ne12 / ne02, r3 = ne13 / ne03; /* src0 broadcast over src1's dims 2 and 3 */
    float *w = p->wdata;

    /* Work item u = (i01, i12, i13), i01 fastest: one src0 row against every src1 row of that batch. */
    const struct row_range r = row_range_of(ne01 * ne12 * ne13, p->nth, p->ith);
    for (int64_t u = r.start; u < r.end; u++) {
        int64_t i01, i12, i13;
        row_unravel(u, ne01, ne12, &i01, &i12, &i13);
        to_f32(tensor_at(a, 0, i01, i12 / r2, i13 / r3), w, ne00);
        for (int64_t i11 = 0; i11 < ne11; i11++) {
            const double sum = dot_f32_strided(w, tensor_at(b, 0, i11, i12, i13), (int64_t) b->nb[0], ne00);
            *(float *) tensor_at(dst, i01, i11, i12, i13) = (float) sum;
        }
    }
}

bool cpu_op_mul_mat_id_supported(const struct vnpu_tensor *dst) {
    const struct vnpu_tensor *as = dst->src[0], *b = dst->src[1], *ids = dst->src[2];
    return weight_supported(as) && b->type == VNPU_TYPE_F32 && ids->type == VNPU_TYPE_I32 && dst->type == VNPU_TYPE_F32;
}

size_t cpu_op_mul_mat_id_wsize(const struct vnpu_tensor *dst) {
    return (size_t) dst->src[0]->ne[0] * sizeof(float);
}

/* dst[:, e, t] = as[:, :, ids[e, t]] x b[:, e % n_b, t] (ggml_mul_mat_id); an expert id out of range is
 * an error in the graph's inputs that ggml asserts on, and so does this. */
void cpu_op_mul_mat_id(const struct cpu_params *p, struct vnpu_tensor *dst) {
    const struct vnpu_tensor *as = dst->src[0], *b = dst->src[1], *ids = dst->src[2];
    const vnpu_to_f32_fn to_f32 = vnpu_type_traits_get(as->type)->to_f32;
    const int64_t ne00 = as->ne[0], ne01 = as->ne[1], n_as = as->ne[2];
    const int64_t ne11 = b->ne[1];
    const int64_t n_used = ids->ne[0], n_tokens = ids->ne[1];
    float *w = p->wdata;

    /* Work item u = (i01, e, t), i01 fastest: one output element. */
    const struct row_range r = row_range_of(ne01 * n_used * n_tokens, p->nth, p->ith);
    for (int64_t u = r.start; u < r.end; u++) {
        int64_t i01, e, t;
        row_unravel(u, ne01, n_used, &i01, &e, &t);
        const int32_t expert = *(const int32_t *) tensor_at(ids, e, t, 0, 0);
        VNPU_ASSERT(expert >= 0 && expert < n_as);
        to_f32(tensor_at(as, 0, i01, expert, 0), w, ne00);
        const double sum = dot_f32_strided(w, tensor_at(b, 0, e % ne11, t, 0), (int64_t) b->nb[0], ne00);
        *(float *) tensor_at(dst, i01, e, t, 0) = (float) sum;
    }
}
