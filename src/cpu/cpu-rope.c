/*
 * ROPE: rotary position embedding (Su et al. 2021) with YaRN scaling (Peng et al. 2023), as
 * ggml_rope_ext defines it.
 *
 * For token i2 at position p, pair k (k < n_dims / 2) of every head rotates by
 *   theta_k = p * theta_scale^k / freq_factors[k],  theta_scale = freq_base^(-2 / n_dims),
 * mixed by YaRN between the interpolated angle freq_scale * theta_k and theta_k itself with the ramp
 *   1 - clamp((k - lo) / max(0.001, hi - lo), 0, 1) * ext_factor,
 * where [lo, hi] are the correction dims of beta_fast and beta_slow for n_ctx_orig; cos and sin are
 * scaled by mscale = attn_factor, times 1 + 0.1 ln(1 / freq_scale) when ext_factor != 0. The angle is
 * computed in float exactly as ggml does (theta_k by repeated multiplication, which positions in the
 * thousands magnify, so any other order would drift from ggml), then cos, sin and the rotation are
 * done in double and rounded once. Normal mode rotates adjacent pairs (x[2k], x[2k+1]); neox mode
 * rotates halves (x[k], x[k + n_dims/2]). Elements past n_dims are copied. Any strides; in place is fine.
 */
#include "cpu-ops.h"

#include <math.h>

/* The YaRN correction range [lo, hi] in pairs, clamped to [0, n_dims - 1] (ggml_rope_yarn_corr_dims):
 * the pair whose wavelength makes n_rot turns over n_ctx_orig positions is at
 * n_dims * ln(n_ctx_orig / (2 pi n_rot)) / (2 ln base). */
static void rope_yarn_corr_dims(int n_dims, int n_ctx_orig, float freq_base, float beta_fast, float beta_slow,
                                float dims[2]) {
    const float denom = 2 * logf(freq_base);
    const float lo = (float) n_dims * logf((float) n_ctx_orig / (beta_fast * 2 * (float) M_PI)) / denom;
    const float hi = (float) n_dims * logf((float) n_ctx_orig / (beta_slow * 2 * (float) M_PI)) / denom;
    dims[0] = fmaxf(0.0f, floorf(lo));
    dims[1] = fminf((float) (n_dims - 1), ceilf(hi));
}

/* The rotation of pair k: YaRN's blend of extrapolated and interpolated angles, and its magnitude. */
struct rope_rotation {
    double cos_theta; /* cos(theta) * mscale */
    double sin_theta;
};

static struct rope_rotation rope_yarn(float theta_extrap, float freq_scale, const float corr_dims[2], int64_t k,
                                      float ext_factor, float mscale) {
    const float theta_interp = freq_scale * theta_extrap;
    float theta = theta_interp;
    if (ext_factor != 0.0f) {
        const float y = ((float) k - corr_dims[0]) / fmaxf(0.001f, corr_dims[1] - corr_dims[0]);
        const float ramp = 1 - fminf(1, fmaxf(0, y));
        const float mix = ramp * ext_factor;
        theta = theta_interp * (1 - mix) + theta_extrap * mix;
        mscale *= 1.0f + 0.1f * logf(1.0f / freq_scale);
    }
    return (struct rope_rotation){.cos_theta = cos((double) theta) * mscale, .sin_theta = sin((double) theta) * mscale};
}

bool cpu_op_rope_supported(const struct vnpu_tensor *dst) {
    const struct vnpu_tensor *a = dst->src[0], *pos = dst->src[1], *ff = dst->src[2];
    const int mode = dst->op_params[2];
    return (mode == VNPU_ROPE_TYPE_NORMAL || mode == VNPU_ROPE_TYPE_NEOX) && a->type == VNPU_TYPE_F32 &&
           dst->type == VNPU_TYPE_F32 && pos->type == VNPU_TYPE_I32 && (!ff || ff->type == VNPU_TYPE_F32);
}

void cpu_op_rope(const struct cpu_params *p, struct vnpu_tensor *dst) {
    const struct vnpu_tensor *a = dst->src[0], *pos = dst->src[1], *ff = dst->src[2];
    const int n_dims = dst->op_params[1];
    const bool neox = dst->op_params[2] == VNPU_ROPE_TYPE_NEOX;
    const int n_ctx_orig = dst->op_params[4];
    const float freq_base = vnpu_get_op_param_f32(dst, 5);
    const float freq_scale = vnpu_get_op_param_f32(dst, 6);
    const float ext_factor = vnpu_get_op_param_f32(dst, 7);
    const float attn_factor = vnpu_get_op_param_f32(dst, 8);
    const float beta_fast = vnpu_get_op_param_f32(dst, 9);
    const float beta_slow = vnpu_get_op_param_f32(dst, 10);

    const float theta_scale = powf(freq_base, -2.0f / (float) n_dims);
    float corr_dims[2];
    rope_yarn_corr_dims(n_dims, n_ctx_orig, freq_base, beta_fast, beta_slow, corr_dims);

    const int64_t ne0 = a->ne[0], ne1 = a->ne[1], ne2 = a->ne[2];
    const int64_t nb00 = (int64_t) a->nb[0], nb0 = (int64_t) dst->nb[0];
    const int64_t half = n_dims / 2;
    const struct row_range r = row_range_of(vnpu_nrows(a), p->nth, p->ith);
    for (int64_t ir = r.start; ir < r.end; ir++) {
        int64_t i1, i2, i3;
        row_unravel(ir, ne1, ne2, &i1, &i2, &i3);
        const char *x = tensor_at(a, 0, i1, i2, i3);
        char *y = tensor_at(dst, 0, i1, i2, i3);
        float theta = (float) *(const int32_t *) tensor_at(pos, i2, 0, 0, 0);
        for (int64_t k = 0; k < half; k++) {
            const float f = ff ? *(const float *) tensor_at(ff, k, 0, 0, 0) : 1.0f;
            const struct rope_rotation rot = rope_yarn(theta / f, freq_scale, corr_dims, k, ext_factor, attn_factor);
            theta *= theta_scale;
            const int64_t j0 = neox ? k : 2 * k;
            const int64_t j1 = neox ? k + half : 2 * k + 1;
            const double x0 = *(const float *) (x + j0 * nb00);
            const double x1 = *(const float *) (x + j1 * nb00);
            *(float *) (y + j0 * nb0) = (float) (x0 * rot.cos_theta - x1 * rot.sin_theta);
            *(float *) (y + j1 * nb0) = (float) (x0 * rot.sin_theta + x1 * rot.cos_theta);
        }
        for (int64_t i0 = n_dims; i0 < ne0; i0++) {
            *(float *) (y + i0 * nb0) = *(const float *) (x + i0 * nb00);
        }
    }
}
