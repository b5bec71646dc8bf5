/*
 * CPU device: ROPE in normal and neox modes, partial rotation, freq_factors and YaRN scaling.
 *
 * Two references. The exact one states ggml_rope_ext's definition: the angle of pair k is built in
 * float as ggml builds it (position times theta_scale multiplied k times, then the YaRN blend), cos,
 * sin and the rotation in double; at positions in the thousands only this one is tight, since float
 * angles there are off by milliradians from the real ones and ggml's are what models were run with.
 * The textbook one, for plain RoPE at small positions, takes theta = p * base^(-2k/n_dims) in double
 * and checks the pairing (adjacent or halves) and sign conventions independently of that arithmetic.
 */
#include "op-test.h"

#include <math.h>
#include <stdio.h>

static const char *const layout_names[] = {"0", "1", "2", "3"};

struct rope_case {
    int64_t ne[4]; /* head_dim, n_head, n_tokens, 1 */
    int n_dims;
    int mode;
    int pos_max; /* positions drawn from [0, pos_max) */
    bool freq_factors;
    float freq_base;
    float freq_scale;
    float ext_factor;
    float attn_factor;
    float beta_fast;
    float beta_slow;
    int n_ctx_orig;
    enum op_layout view;
    bool inplace;
};

static const struct rope_case rope_cases[] = {
    {.ne = {64, 4, 5, 1},
     .n_dims = 64,
     .mode = VNPU_ROPE_TYPE_NORMAL,
     .pos_max = 100,
     .freq_base = 10000.0f,
     .freq_scale = 1.0f,
     .attn_factor = 1.0f,
     .beta_fast = 32.0f,
     .beta_slow = 1.0f,
     .n_ctx_orig = 4096},
    {.ne = {64, 4, 5, 1},
     .n_dims = 64,
     .mode = VNPU_ROPE_TYPE_NEOX,
     .pos_max = 100,
     .freq_base = 10000.0f,
     .freq_scale = 1.0f,
     .attn_factor = 1.0f,
     .beta_fast = 32.0f,
     .beta_slow = 1.0f,
     .n_ctx_orig = 4096,
     .inplace = true},
    {.ne = {128, 3, 7, 1},
     .n_dims = 128,
     .mode = VNPU_ROPE_TYPE_NEOX,
     .pos_max = 5000,
     .freq_factors = true,
     .freq_base = 500000.0f,
     .freq_scale = 1.0f,
     .attn_factor = 1.0f,
     .beta_fast = 32.0f,
     .beta_slow = 1.0f,
     .n_ctx_orig = 8192},
    {.ne = {64, 5, 3, 1},
     .n_dims = 32,
     .mode = VNPU_ROPE_TYPE_NORMAL,
     .pos_max = 3000,
     .freq_base = 10000.0f,
     .freq_scale = 1.0f,
     .attn_factor = 1.0f,
     .beta_fast = 32.0f,
     .beta_slow = 1.0f,
     .n_ctx_orig = 4096,
     .view = OP_LAYOUT_VIEW},
    {.ne = {80, 2, 4, 1},
     .n_dims = 64,
     .mode = VNPU_ROPE_TYPE_NEOX,
     .pos_max = 8000,
     .freq_base = 10000.0f,
     .freq_scale = 0.25f,
     .ext_factor = 1.0f,
     .attn_factor = 1.0f,
     .beta_fast = 32.0f,
     .beta_slow = 1.0f,
     .n_ctx_orig = 2048,
     .view = OP_LAYOUT_PERM},
    {.ne = {96, 3, 6, 1},
     .n_dims = 96,
     .mode = VNPU_ROPE_TYPE_NORMAL,
     .pos_max = 16000,
     .freq_factors = true,
     .freq_base = 1000000.0f,
     .freq_scale = 0.125f,
     .ext_factor = 0.5f,
     .attn_factor = 0.8f,
     .beta_fast = 16.0f,
     .beta_slow = 2.0f,
     .n_ctx_orig = 4096},
    {.ne = {6, 7, 1, 1},
     .n_dims = 6,
     .mode = VNPU_ROPE_TYPE_NORMAL,
     .pos_max = 50,
     .freq_base = 10000.0f,
     .freq_scale = 1.0f,
     .attn_factor = 1.0f,
     .beta_fast = 32.0f,
     .beta_slow = 1.0f,
     .n_ctx_orig = 512,
     .view = OP_LAYOUT_TRANS},
};

/* The rotation (cos, sin with magnitude) of pair k at position p: ggml's float angle, YaRN blend. */
static void ref_rope_rotation(const struct rope_case *rc, const float *ff, int p, int k, double *c, double *s) {
    const float theta_scale = powf(rc->freq_base, -2.0f / (float) rc->n_dims);
    float theta_extrap = (float) p;
    for (int j = 0; j < k; j++) {
        theta_extrap *= theta_scale;
    }
    if (ff) {
        theta_extrap /= ff[k];
    }
    /* YaRN (Peng et al. 2023): correction range from the wavelengths of beta_fast / beta_slow turns. */
    const float two_pi = 2 * (float) M_PI;
    const float lo_f =
        (float) rc->n_dims * logf((float) rc->n_ctx_orig / (rc->beta_fast * two_pi)) / (2 * logf(rc->freq_base));
    const float hi_f =
        (float) rc->n_dims * logf((float) rc->n_ctx_orig / (rc->beta_slow * two_pi)) / (2 * logf(rc->freq_base));
    const float lo = floorf(lo_f) > 0 ? floorf(lo_f) : 0;
    const float hi = ceilf(hi_f) < (float) (rc->n_dims - 1) ? ceilf(hi_f) : (float) (rc->n_dims - 1);
    float theta = rc->freq_scale * theta_extrap;
    float mscale = rc->attn_factor;
    if (rc->ext_factor != 0.0f) {
        float y = ((float) k - lo) / (hi - lo > 0.001f ? hi - lo : 0.001f);
        y = y < 0 ? 0 : y > 1 ? 1 : y;
        const float mix = (1 - y) * rc->ext_factor;
        theta = theta * (1 - mix) + theta_extrap * mix;
        mscale *= 1.0f + 0.1f * logf(1.0f / rc->freq_scale);
    }
    *c = cos((double) theta) * mscale;
    *s = sin((double) theta) * mscale;
}

/* Rotate every head of a at the given positions into ref; textbook: exact double angles, no YaRN. */
static void ref_rope(const struct rope_case *rc, const struct vnpu_tensor *a, const struct vnpu_tensor *pos,
                     const float *ff, bool textbook, double *ref) {
    const int64_t half = rc->n_dims / 2;
    int64_t k = 0;
    for (int64_t i2 = 0; i2 < rc->ne[2]; i2++) {
        const int p = (int) op_test_get(pos, i2, 0, 0, 0);
        for (int64_t i1 = 0; i1 < rc->ne[1]; i1++, k += rc->ne[0]) {
            for (int64_t i0 = 0; i0 < rc->ne[0]; i0++) {
                ref[k + i0] = op_test_get(a, i0, i1, i2, 0);
            }
            for (int64_t j = 0; j < half; j++) {
                double c, s;
                if (textbook) {
                    const double theta = p * pow((double) rc->freq_base, -2.0 * (double) j / rc->n_dims);
                    c = cos(theta);
                    s = sin(theta);
                } else {
                    ref_rope_rotation(rc, ff, p, (int) j, &c, &s);
                }
                const int64_t j0 = rc->mode == VNPU_ROPE_TYPE_NEOX ? j : 2 * j;
                const int64_t j1 = rc->mode == VNPU_ROPE_TYPE_NEOX ? j + half : 2 * j + 1;
                const double x0 = op_test_get(a, j0, i1, i2, 0), x1 = op_test_get(a, j1, i1, i2, 0);
                ref[k + j0] = x0 * c - x1 * s;
                ref[k + j1] = x0 * s + x1 * c;
            }
        }
    }
}

static void test_rope(void **state) {
    (void) state;
    for (size_t c = 0; c < sizeof(rope_cases) / sizeof(rope_cases[0]); c++) {
        const struct rope_case *rc = &rope_cases[c];
        struct op_test t;
        op_test_begin(&t,
                      "ROPE(type=f32,ne=[%lld,%lld,%lld,%lld],n_dims=%d,mode=%d,pos<%d,ff=%d,base=%g,"
                      "scale=%g,ext=%g,attn=%g,beta=[%g,%g],n_ctx_orig=%d,view=%s,inplace=%d)",
                      (long long) rc->ne[0], (long long) rc->ne[1], (long long) rc->ne[2], (long long) rc->ne[3],
                      rc->n_dims, rc->mode, rc->pos_max, rc->freq_factors, rc->freq_base, rc->freq_scale,
                      rc->ext_factor, rc->attn_factor, rc->beta_fast, rc->beta_slow, rc->n_ctx_orig,
                      layout_names[rc->view], rc->inplace);
        struct vnpu_tensor *a = op_test_input(&t, VNPU_TYPE_F32, rc->ne, rc->view);
        const int64_t ne_pos[4] = {rc->ne[2], 1, 1, 1};
        struct vnpu_tensor *pos = op_test_leaf(&t, VNPU_TYPE_I32, ne_pos);
        for (int64_t i = 0; i < rc->ne[2]; i++) {
            op_test_set(pos, i, 0, 0, 0, (double) (test_rng_next(&t.rng) % (uint64_t) rc->pos_max));
        }
        struct vnpu_tensor *ff = NULL;
        if (rc->freq_factors) { /* llama3-style factors: 1 for high frequencies up to 8 for low ones */
            const int64_t ne_ff[4] = {rc->n_dims / 2, 1, 1, 1};
            ff = op_test_leaf(&t, VNPU_TYPE_F32, ne_ff);
            for (int64_t i = 0; i < rc->n_dims / 2; i++) {
                op_test_set(ff, i, 0, 0, 0, 1.0 + 7.0 * (double) i / (double) (rc->n_dims / 2));
            }
        }
        struct vnpu_tensor *out =
            vnpu_rope_ext(t.ctx, a, pos, ff, rc->n_dims, rc->mode, rc->n_ctx_orig, rc->freq_base, rc->freq_scale,
                          rc->ext_factor, rc->attn_factor, rc->beta_fast, rc->beta_slow);
        double *ref = op_test_ref(&t, vnpu_nelements(out));
        ref_rope(rc, a, pos, ff ? (const float *) ff->data : NULL, false, ref);
        const bool plain = !ff && rc->ext_factor == 0.0f && rc->freq_scale == 1.0f && rc->attn_factor == 1.0f;
        double *textbook = plain && rc->pos_max <= 100 ? op_test_ref(&t, vnpu_nelements(out)) : NULL;
        if (textbook) {
            ref_rope(rc, a, pos, NULL, true, textbook);
        }
        if (rc->inplace) {
            assert_true(rc->view == OP_LAYOUT_CONT);
            out->data = a->data;
        }
        op_test_compute(&t, out);
        op_test_check(&t, out, ref, 1e-12);
        if (textbook) {
            op_test_check(&t, out, textbook, 1e-8);
        }
        op_test_end(&t);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rope),
    };
    return cmocka_run_group_tests(tests, NULL, op_test_teardown);
}
