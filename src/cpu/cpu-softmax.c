/*
 * SOFT_MAX: softmax(x * scale + slope * mask) along each row (ggml_soft_max_ext).
 *
 * The mask row is i01 of the mask, broadcast over dims 2 and 3 (i02 % ne12, i03 % ne13); slope is 1, or
 * the ALiBi slope of head i02 when max_bias > 0. Logits, maximum, exponentials and their sum are doubles;
 * each output is rounded once. A row masked entirely (every logit -inf) gives zeros, as FLASH_ATTN_EXT
 * does. Any strides; in place is fine (a row is read whole into scratch first).
 */
#include "cpu-ops.h"

#include <math.h>

bool cpu_op_soft_max_supported(const struct vnpu_tensor *dst) {
    const struct vnpu_tensor *a = dst->src[0], *mask = dst->src[1];
    return a->type == VNPU_TYPE_F32 && dst->type == VNPU_TYPE_F32 &&
           (!mask || mask->type == VNPU_TYPE_F32 || mask->type == VNPU_TYPE_F16);
}

size_t cpu_op_soft_max_wsize(const struct vnpu_tensor *dst) {
    return (size_t) dst->src[0]->ne[0] * sizeof(double);
}

void cpu_op_soft_max(const struct cpu_params *p, struct vnpu_tensor *dst) {
    const struct vnpu_tensor *a = dst->src[0], *mask = dst->src[1];
    const double scale = vnpu_get_op_param_f32(dst, 0);
    const float max_bias = vnpu_get_op_param_f32(dst, 1);
    const int64_t ne00 = a->ne[0], ne01 = a->ne[1], ne02 = a->ne[2];
    const int64_t nb00 = (int64_t) a->nb[0], nb0 = (int64_t) dst->nb[0];
    double *w = p->wdata;

    const struct row_range r = row_range_of(vnpu_nrows(a), p->nth, p->ith);
    for (int64_t ir = r.start; ir < r.end; ir++) {
        int64_t i01, i02, i03;
        row_unravel(ir, ne01, ne02, &i01, &i02, &i03);
        const char *x = tensor_at(a, 0, i01, i02, i03);
        const char *m = mask ? tensor_at(mask, 0, i01, i02 % mask->ne[2], i03 % mask->ne[3]) : NULL;
        const double slope = cpu_alibi_slope(max_bias, (uint32_t) ne02, (uint32_t) i02);
        double max = -INFINITY;
        for (int64_t i = 0; i < ne00; i++) {
            w[i] = *(const float *) (x + i * nb00) * scale + (m ? slope * cpu_load_mask(mask, m, i) : 0.0);
            max = w[i] > max ? w[i] : max;
        }
        char *y = tensor_at(dst, 0, i01, i02, i03);
        if (max == -INFINITY) {
            for (int64_t i = 0; i < ne00; i++) {
                *(float *) (y + i * nb0) = 0.0f;
            }
            continue;
        }
        double sum = 0.0;
        for (int64_t i = 0; i < ne00; i++) {
            w[i] = exp(w[i] - max);
            sum += w[i];
        }
        for (int64_t i = 0; i < ne00; i++) {
            *(float *) (y + i * nb0) = (float) (w[i] / sum);
        }
    }
}
