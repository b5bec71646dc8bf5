/*
 * RMS_NORM: each row divided by sqrt(mean(x^2) + eps) (ggml_rms_norm; Zhang & Sennrich 2019).
 *
 * The sum of squares accumulates in double and each output is rounded once. Any strides; in place is
 * fine (a row is read whole before it is written).
 */
#include "cpu-ops.h"

bool cpu_op_rms_norm_supported(const struct vnpu_tensor *dst) {
    return dst->src[0]->type == VNPU_TYPE_F32 && dst->type == VNPU_TYPE_F32;
}

void cpu_op_rms_norm(const struct cpu_params *p, struct vnpu_tensor *dst) {
    const struct vnpu_tensor *a = dst->src[0];
    const double eps = vnpu_get_op_param_f32(dst, 0);
    const int64_t ne00 = a->ne[0], ne01 = a->ne[1], ne02 = a->ne[2];
    const int64_t nb00 = (int64_t) a->nb[0], nb0 = (int64_t) dst->nb[0];
    const struct row_range r = row_range_of(vnpu_nrows(a), p->nth, p->ith);
    for (int64_t ir = r.start; ir < r.end; ir++) {
        int64_t i01, i02, i03;
        row_unravel(ir, ne01, ne02, &i01, &i02, &i03);
        const char *x = tensor_at(a, 0, i01, i02, i03);
        char *y = tensor_at(dst, 0, i01, i02, i03);
        double sum = 0.0;
        for (int64_t i00 = 0; i00 < ne00; i00++) {
            const double v = *(const float *) (x + i00 * nb00);
            sum += v * v;
        }
        const double scale = 1.0 / sqrt(sum / (double) ne00 + eps);
        for (int64_t i00 = 0; i00 < ne00; i00++) {
            const double v = *(const float *) (x + i00 * nb00);
            *(float *) (y + i00 * nb0) = (float) (v * scale);
        }
    }
}
