/*
 * ALiBi slopes (Press et al. 2022, "Train Short, Test Long") as ggml's soft_max and flash_attn_ext use them
 * when max_bias > 0: head h of n_head adds slope(h) * mask to its logits, with n_head_log2 the largest power
 * of two <= n_head, m0 = 2^(-max_bias / n_head_log2), m1 = 2^(-max_bias / 2 / n_head_log2) and
 *     slope(h) = m0^(h + 1)                       for h <  n_head_log2
 *              = m1^(2 (h - n_head_log2) + 1)     otherwise.
 * The host computes m0, m1 with powf as ggml does (src/host/htp-prep-attn.c); the kernel raises them to the
 * integer power by squaring (a few roundings from powf: relative 1e-7, well inside the ops' NMSE).
 */
#ifndef VNPU_HTP_ALIBI_H
#define VNPU_HTP_ALIBI_H

#include <stdint.h>

/* Part of the SOFT_MAX and FLASH_ATTN_EXT kernel_params: 16 bytes. */
struct htp_alibi {
    float max_bias;       /* op param; <= 0: every slope is 1 */
    float m0, m1;         /* the two bases */
    uint32_t n_head_log2; /* largest power of two <= n_head */
};

/* The slope of head h. */
static inline float htp_alibi_slope(const struct htp_alibi *a, uint32_t h) {
    if (!(a->max_bias > 0.0f)) {
        return 1.0f;
    }
    float base = h < a->n_head_log2 ? a->m0 : a->m1;
    uint32_t e = h < a->n_head_log2 ? h + 1 : 2 * (h - a->n_head_log2) + 1;
    float r = 1.0f;
    for (; e != 0; e >>= 1, base *= base) {
        if (e & 1) {
            r *= base;
        }
    }
    return r;
}

#endif /* VNPU_HTP_ALIBI_H */
