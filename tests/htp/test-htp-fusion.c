/*
 * The RMS_NORM + MUL fusion of the HTP device (htp_can_fuse_rms_norm_mul): graphs built with the graph API run on
 * HTP0 (CPU as the fallback) and on the CPU alone, in the same memory; their results must agree, and the VNPU_VERBOSE
 * lines say whether the pair ran as one RMS_NORM_MUL. Fused: MUL(norm, w) with w broadcast, the norm read by a later
 * node too, the MUL in place on x. Not fused: the MUL in place on the norm, MUL(norm, norm), w a view of the norm,
 * MUL(w, norm).
 */
#include "test-common.h"

#include "backend.h"
#include "buffer.h"
#include "cpu-backend.h"
#include "htp-host.h"
#include "log.h"
#include "tensor.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NE0  256
#define NE1  4
#define SLOT (NE0 * NE1 * 4) /* bytes of one [NE0, NE1] f32 tensor in the buffer */

enum fusion_w {
    FUSION_W_ROW,       /* MUL(norm, w), w one row broadcast */
    FUSION_W_NORM,      /* MUL(norm, norm) */
    FUSION_W_NORM_VIEW, /* MUL(norm, first row of the norm) */
    FUSION_W_SWAPPED,   /* MUL(w, norm), w of the norm's shape */
};

enum fusion_mul_at {
    FUSION_MUL_APART, /* the MUL's own slot */
    FUSION_MUL_ON_NORM,
    FUSION_MUL_ON_X,
};

struct fusion_case {
    const char *name;
    enum fusion_w w;
    enum fusion_mul_at mul_at;
    bool norm_reused; /* ADD(norm, x) after the MUL */
    bool fused;       /* expected */
};

static const struct fusion_case fusion_cases[] = {
    {"mul(norm,w)", FUSION_W_ROW, FUSION_MUL_APART, false, true},
    {"mul(norm,w)+add(norm,x)", FUSION_W_ROW, FUSION_MUL_APART, true, true},
    {"mul(norm,w) in place on x", FUSION_W_ROW, FUSION_MUL_ON_X, false, true},
    {"mul(norm,w) in place on norm", FUSION_W_ROW, FUSION_MUL_ON_NORM, false, false},
    {"mul(norm,w) in place on norm+add(norm,x)", FUSION_W_ROW, FUSION_MUL_ON_NORM, true, false},
    {"mul(norm,norm)", FUSION_W_NORM, FUSION_MUL_APART, false, false},
    {"mul(norm,view(norm))", FUSION_W_NORM_VIEW, FUSION_MUL_APART, false, false},
    {"mul(w,norm)", FUSION_W_SWAPPED, FUSION_MUL_APART, false, false},
};

struct fusion_graph {
    struct vnpu_ctx *ctx;
    struct vnpu_graph *g;
    struct vnpu_tensor *x, *w; /* inputs, w NULL when the norm is its own weight */
    struct vnpu_tensor *out[2];
    int n_out;
};

/* The case's graph, its tensors placed in buf: x, w, norm, MUL, ADD in slots 0..4. */
static void fusion_build(const struct fusion_case *c, struct vnpu_buffer *buf, struct fusion_graph *f) {
    memset(f, 0, sizeof(*f));
    f->ctx = vnpu_ctx_new(1 << 16, true);
    f->x = vnpu_new_tensor_2d(f->ctx, VNPU_TYPE_F32, NE0, NE1);
    vnpu_buffer_place_tensor(buf, f->x, 0);
    struct vnpu_tensor *norm = vnpu_rms_norm(f->ctx, f->x, 1e-5f);
    vnpu_buffer_place_tensor(buf, norm, 2 * SLOT);
    struct vnpu_tensor *mul = NULL;
    switch (c->w) {
        case FUSION_W_ROW:
        case FUSION_W_SWAPPED:
            f->w = c->w == FUSION_W_ROW ? vnpu_new_tensor_1d(f->ctx, VNPU_TYPE_F32, NE0)
                                        : vnpu_new_tensor_2d(f->ctx, VNPU_TYPE_F32, NE0, NE1);
            vnpu_buffer_place_tensor(buf, f->w, SLOT);
            mul = c->w == FUSION_W_ROW ? vnpu_mul(f->ctx, norm, f->w) : vnpu_mul(f->ctx, f->w, norm);
            break;
        case FUSION_W_NORM: mul = vnpu_mul(f->ctx, norm, norm); break;
        case FUSION_W_NORM_VIEW: mul = vnpu_mul(f->ctx, norm, vnpu_view_1d(f->ctx, norm, NE0, 0)); break;
    }
    const size_t mul_offset[] = {[FUSION_MUL_APART] = 3 * SLOT, [FUSION_MUL_ON_NORM] = 2 * SLOT, [FUSION_MUL_ON_X] = 0};
    vnpu_buffer_place_tensor(buf, mul, mul_offset[c->mul_at]);
    f->g = vnpu_graph_new(f->ctx, 16);
    vnpu_graph_build_forward_expand(f->g, mul);
    f->out[f->n_out++] = mul;
    if (c->norm_reused) {
        struct vnpu_tensor *add = vnpu_add(f->ctx, norm, f->x);
        vnpu_buffer_place_tensor(buf, add, 4 * SLOT);
        vnpu_graph_build_forward_expand(f->g, add);
        f->out[f->n_out++] = add;
    }
}

/* x and w from the case's name; every other byte of buf NaN, so a result read before it is written shows. */
static void fusion_inputs(const struct fusion_case *c, struct vnpu_buffer *buf, const struct fusion_graph *f) {
    memset(buf->base, 0xff, buf->size);
    struct test_rng rng;
    test_rng_seed(&rng, c->name);
    for (int64_t i = 0; i < NE0 * NE1; i++) {
        ((float *) f->x->data)[i] = test_rng_normal(&rng, 1.0f);
    }
    for (int64_t i = 0; f->w && i < vnpu_nelements(f->w); i++) {
        ((float *) f->w->data)[i] = 0.5f + test_rng_uniform(&rng);
    }
}

static void test_fusion_cases(void **state) {
    (void) state;
    struct vnpu_device *devs[2] = {NULL, NULL};
    assert_int_equal(vnpu_htp_device_get(0, &devs[0]), VNPU_STATUS_OK);
    assert_int_equal(vnpu_cpu_device_new(1, &devs[1]), VNPU_STATUS_OK);
    struct vnpu_buffer *buf = NULL;
    assert_int_equal(vnpu_buffer_type_alloc(vnpu_device_buffer_type(devs[0]), 5 * SLOT, &buf), VNPU_STATUS_OK);
    for (size_t k = 0; k < sizeof(fusion_cases) / sizeof(fusion_cases[0]); k++) {
        const struct fusion_case *c = &fusion_cases[k];
        struct fusion_graph f;
        fusion_build(c, buf, &f);
        fusion_inputs(c, buf, &f);
        assert_int_equal(vnpu_sched_graph_compute(&devs[1], 1, f.g), VNPU_STATUS_OK);
        float ref[2][NE0 * NE1];
        for (int o = 0; o < f.n_out; o++) {
            memcpy(ref[o], f.out[o]->data, sizeof(ref[o]));
        }

        fusion_inputs(c, buf, &f);
        struct test_log log = {0};
        vnpu_log_set(test_log_collect, &log, VNPU_LOG_INFO);
        const enum vnpu_status st = vnpu_sched_graph_compute(devs, 2, f.g);
        vnpu_log_set(NULL, NULL, VNPU_LOG_WARN);
        assert_int_equal(st, VNPU_STATUS_OK);
        const bool fused = strstr(log.text, "execute-op RMS_NORM_MUL") != NULL;
        if (fused != c->fused) {
            fail_msg("%s: %s, expected %s:\n%s", c->name, fused ? "fused" : "not fused", c->fused ? "fused" : "not",
                     log.text);
        }
        for (int o = 0; o < f.n_out; o++) {
            const float *y = f.out[o]->data;
            for (int i = 0; i < NE0 * NE1; i++) {
                if (!(fabsf(y[i] - ref[o][i]) <= 1e-5f * (1.0f + fabsf(ref[o][i])))) {
                    fail_msg("%s: output %d element %d is %g on HTP0, %g on the CPU", c->name, o, i, (double) y[i],
                             (double) ref[o][i]);
                }
            }
        }
        vnpu_ctx_free(f.ctx);
    }
    vnpu_buffer_free(buf);
    vnpu_device_free(devs[0]);
    vnpu_device_free(devs[1]);
}

int main(void) {
    setenv("VNPU_VERBOSE", "1", 1); /* read at the first device open */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fusion_cases),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
