/*
 * FLASH_ATTN_EXT: softmax(softcap(q . k * scale) + slope * mask) . v for each query row, without
 * materialising the scores tensor (ggml_flash_attn_ext's semantics; Dao et al. 2022).
 *
 * Query row (iq1 token, iq2 head, iq3) reads K/V head iq2 / (n_head / n_head_kv) (GQA) and mask row iq1
 * broadcast over dims 2 and 3; slope is 1, or the ALiBi slope of head iq2 when max_bias > 0; softcap is
 * s -> c * tanh(s / c) when logit_softcap c != 0. Keys whose mask is -inf are skipped. Two passes in
 * double: the scores and their maximum, then the exponentials, their sum and the weighted sum of V rows,
 * divided once at the end; a query that sees no key gives zeros. K and V rows of any type with a to_f32
 * are dequantized one at a time. The result is permuted as ggml's: row (iq2, iq1, iq3) of
 * [Dv, n_head, n_q, ne3].
 */
#include "cpu-ops.h"

#include <math.h>

/* K or V: a type with to_f32 and dense rows. */
static bool kv_supported(const struct vnpu_tensor *t) {
    const struct vnpu_type_traits *tt = vnpu_type_traits_get(t->type);
    return tt->to_f32 && t->nb[0] == tt->size;
}

bool cpu_op_flash_attn_ext_supported(const struct vnpu_tensor *dst) {
    const struct vnpu_tensor *q = dst->src[0], *k = dst->src[1], *v = dst->src[2], *mask = dst->src[3];
    return q->type == VNPU_TYPE_F32 && kv_supported(k) && kv_supported(v) && dst->type == VNPU_TYPE_F32 &&
           (!mask || mask->type == VNPU_TYPE_F32 || mask->type == VNPU_TYPE_F16);
}

/* Scratch of one thread, carved in this order. */
struct attn_scratch {
    double *scores; /* [n_kv] */
    double *qd;     /* [D] the query row */
    double *acc;    /* [Dv] the weighted sum of V rows */
    float *row;     /* [max(D, Dv)] one dequantized K or V row */
};

static size_t attn_row_len(const struct vnpu_tensor *dst) {
    const int64_t d = dst->src[0]->ne[0], dv = dst->src[2]->ne[0];
    return (size_t) (d > dv ? d : dv);
}

size_t cpu_op_flash_attn_ext_wsize(const struct vnpu_tensor *dst) {
    const size_t n_kv = (size_t) dst->src[1]->ne[1];
    const size_t d = (size_t) dst->src[0]->ne[0], dv = (size_t) dst->src[2]->ne[0];
    return (n_kv + d + dv) * sizeof(double) + attn_row_len(dst) * sizeof(float);
}

static struct attn_scratch attn_scratch_of(const struct cpu_params *p, const struct vnpu_tensor *dst) {
    const int64_t n_kv = dst->src[1]->ne[1], d = dst->src[0]->ne[0], dv = dst->src[2]->ne[0];
    double *base = p->wdata;
    return (struct attn_scratch){
        .scores = base, .qd = base + n_kv, .acc = base + n_kv + d, .row = (float *) (base + n_kv + d + dv)};
}

void cpu_op_flash_attn_ext(const struct cpu_params *p, struct vnpu_tensor *dst) {
    const struct vnpu_tensor *q = dst->src[0], *k = dst->src[1], *v = dst->src[2], *mask = dst->src[3];
    const double scale = vnpu_get_op_param_f32(dst, 0);
    const float max_bias = vnpu_get_op_param_f32(dst, 1);
    const double softcap = vnpu_get_op_param_f32(dst, 2);
    const vnpu_to_f32_fn k_to_f32 = vnpu_type_traits_get(k->type)->to_f32;
    const vnpu_to_f32_fn v_to_f32 = vnpu_type_traits_get(v->type)->to_f32;
    const int64_t d = q->ne[0], n_q = q->ne[1], n_head = q->ne[2];
    const int64_t n_kv = k->ne[1], dv = v->ne[0];
    const int64_t rk2 = n_head / k->ne[2], rv2 = n_head / v->ne[2]; /* query heads per K and V head */
    const struct attn_scratch s = attn_scratch_of(p, dst);

    const struct row_range r = row_range_of(vnpu_nrows(q), p->nth, p->ith);
    for (int64_t ir = r.start; ir < r.end; ir++) {
        int64_t iq1, iq2, iq3;
        row_unravel(ir, n_q, n_head, &iq1, &iq2, &iq3);
        const char *m = mask ? tensor_at(mask, 0, iq1, iq2 % mask->ne[2], iq3 % mask->ne[3]) : NULL;
        const double slope = cpu_alibi_slope(max_bias, (uint32_t) n_head, (uint32_t) iq2);
        const char *qrow = tensor_at(q, 0, iq1, iq2, iq3);
        for (int64_t i = 0; i < d; i++) {
            s.qd[i] = *(const float *) (qrow + i * (int64_t) q->nb[0]);
        }

        double max = -INFINITY;
        for (int64_t ic = 0; ic < n_kv; ic++) {
            const double mv = m ? slope * cpu_load_mask(mask, m, ic) : 0.0;
            if (mv == -INFINITY) {
                s.scores[ic] = -INFINITY;
                continue;
            }
            k_to_f32(tensor_at(k, 0, ic, iq2 / rk2, iq3), s.row, d);
            double dot = 0.0;
            for (int64_t i = 0; i < d; i++) {
                dot += s.qd[i] * s.row[i];
            }
            double sc = dot * scale;
            if (softcap != 0.0) {
                sc = softcap * tanh(sc / softcap);
            }
            s.scores[ic] = sc + mv;
            max = s.scores[ic] > max ? s.scores[ic] : max;
        }

        for (int64_t i = 0; i < dv; i++) {
            s.acc[i] = 0.0;
        }
        double sum = 0.0;
        if (max != -INFINITY) {
            for (int64_t ic = 0; ic < n_kv; ic++) {
                if (s.scores[ic] == -INFINITY) {
                    continue;
                }
                const double e = exp(s.scores[ic] - max);
                sum += e;
                v_to_f32(tensor_at(v, 0, ic, iq2 / rv2, iq3), s.row, dv);
                for (int64_t i = 0; i < dv; i++) {
                    s.acc[i] += e * s.row[i];
                }
            }
        }
        char *y = tensor_at(dst, 0, iq2, iq1, iq3);
        for (int64_t i = 0; i < dv; i++) {
            *(float *) (y + i * (int64_t) dst->nb[0]) = (float) (sum > 0.0 ? s.acc[i] / sum : 0.0);
        }
    }
}
