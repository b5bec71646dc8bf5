/*
 * supports_op of HTP0 for the attention family (src/host/htp-prep-attn.c): the llama graph's ROPE, SOFT_MAX and
 * FLASH_ATTN_EXT are taken, and what the kernels cannot do is refused with its reason (the VNPU_VERBOSE line
 * "supports-op OP : name : ... : no (reason)"), from types, shapes and op params alone, before any memory
 * exists.
 */
#include "test-common.h"

#include "backend.h"
#include "htp-host.h"
#include "log.h"
#include "tensor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct attn_fixture {
    struct vnpu_device *dev;
    struct vnpu_ctx *ctx;
    struct test_log log;
};

static int setup(void **state) {
    static struct attn_fixture f;
    memset(&f, 0, sizeof(f));
    setenv("VNPU_VERBOSE", "1", 1); /* read at the first device open: this process opens HTP0 only here */
    assert_int_equal(vnpu_htp_device_get(0, &f.dev), VNPU_STATUS_OK);
    f.ctx = vnpu_ctx_new(1 << 20, true);
    *state = &f;
    return 0;
}

static int teardown(void **state) {
    struct attn_fixture *f = *state;
    vnpu_ctx_free(f->ctx);
    vnpu_device_free(f->dev);
    return 0;
}

/* Whether f's device takes node; its verbose line must say so, with a reason containing why when not. */
static bool supports(struct attn_fixture *f, struct vnpu_tensor *node, const char *why) {
    memset(&f->log, 0, sizeof(f->log));
    vnpu_log_set(test_log_collect, &f->log, VNPU_LOG_INFO);
    const bool ok = vnpu_device_supports_op(f->dev, node);
    vnpu_log_set(NULL, NULL, VNPU_LOG_WARN);
    assert_non_null(strstr(f->log.text, ok ? " : yes" : " : no ("));
    if (!ok && !strstr(f->log.text, why)) {
        fail_msg("the refusal should say '%s':\n%s", why, f->log.text);
    }
    return ok;
}

static struct vnpu_tensor *t3(struct attn_fixture *f, enum vnpu_type type, int64_t ne0, int64_t ne1, int64_t ne2) {
    return vnpu_new_tensor_3d(f->ctx, type, ne0, ne1, ne2);
}

static struct vnpu_tensor *rope(struct attn_fixture *f, struct vnpu_tensor *x, int n_dims, int mode) {
    struct vnpu_tensor *pos = vnpu_new_tensor_1d(f->ctx, VNPU_TYPE_I32, x->ne[2]);
    return vnpu_rope_ext(f->ctx, x, pos, NULL, n_dims, mode, 4096, 10000.0f, 1.0f, 0.0f, 1.0f, 32.0f, 1.0f);
}

static void test_rope(void **state) {
    struct attn_fixture *f = *state;
    assert_true(supports(f, rope(f, t3(f, VNPU_TYPE_F32, 64, 8, 5), 64, VNPU_ROPE_TYPE_NORMAL), NULL));
    assert_true(supports(f, rope(f, t3(f, VNPU_TYPE_F32, 128, 8, 5), 64, VNPU_ROPE_TYPE_NEOX), NULL));
    assert_false(supports(f, rope(f, t3(f, VNPU_TYPE_F32, 64, 8, 5), 64, 8), "rope mode 8"));
    assert_false(
        supports(f, rope(f, t3(f, VNPU_TYPE_F32, 1024, 2, 3), 1024, VNPU_ROPE_TYPE_NORMAL), "at most 256 pairs"));
    assert_false(supports(f, rope(f, t3(f, VNPU_TYPE_F16, 64, 8, 5), 64, VNPU_ROPE_TYPE_NORMAL), "f16"));
    struct vnpu_tensor *strided = vnpu_permute(f->ctx, t3(f, VNPU_TYPE_F32, 8, 64, 5), 1, 0, 2, 3);
    assert_false(supports(f, rope(f, strided, 64, VNPU_ROPE_TYPE_NORMAL), "dense rows"));
}

static void test_soft_max(void **state) {
    struct attn_fixture *f = *state;
    struct vnpu_tensor *kq = t3(f, VNPU_TYPE_F32, 37, 5, 8);
    assert_true(supports(f, vnpu_soft_max_ext(f->ctx, kq, t3(f, VNPU_TYPE_F32, 37, 5, 1), 0.125f, 0.0f), NULL));
    assert_true(supports(f, vnpu_soft_max_ext(f->ctx, kq, t3(f, VNPU_TYPE_F16, 37, 8, 1), 0.125f, 8.0f), NULL));
    assert_true(supports(f, vnpu_soft_max_ext(f->ctx, kq, NULL, 1.0f, 0.0f), NULL));
    struct vnpu_tensor *strided = vnpu_transpose(f->ctx, t3(f, VNPU_TYPE_F32, 5, 37, 8));
    assert_false(supports(f, vnpu_soft_max_ext(f->ctx, strided, NULL, 1.0f, 0.0f), "dense rows"));
    /* a row that cannot be double buffered in VTCM even on one worker */
    struct vnpu_tensor *wide = vnpu_new_tensor_1d(f->ctx, VNPU_TYPE_F32, 1 << 20);
    assert_false(supports(f, vnpu_soft_max_ext(f->ctx, wide, NULL, 1.0f, 0.0f), "does not fit"));
}

static struct vnpu_tensor *attn(struct attn_fixture *f, enum vnpu_type kv, int64_t d, int64_t n_kv, int64_t h_k,
                                int64_t h_v, bool mask) {
    struct vnpu_tensor *q = vnpu_permute(f->ctx, t3(f, VNPU_TYPE_F32, d, 8, 3), 0, 2, 1, 3); /* [d, 3, 8] */
    struct vnpu_tensor *m = mask ? t3(f, VNPU_TYPE_F16, n_kv, 3, 1) : NULL;
    return vnpu_flash_attn_ext(f->ctx, q, t3(f, kv, d, n_kv, h_k), t3(f, kv, d, n_kv, h_v), m, 0.125f, 0.0f, 0.0f);
}

static void test_flash_attn(void **state) {
    struct attn_fixture *f = *state;
    assert_true(supports(f, attn(f, VNPU_TYPE_F16, 64, 100, 2, 2, true), NULL));
    assert_true(supports(f, attn(f, VNPU_TYPE_F32, 64, 100, 8, 8, false), NULL));
    assert_false(supports(f, attn(f, VNPU_TYPE_F16, 64, 100, 2, 4, true), "one K/V head count"));
    assert_false(supports(f, attn(f, VNPU_TYPE_Q8_0, 64, 100, 2, 2, true), "q8_0"));
    assert_false(supports(f, attn(f, VNPU_TYPE_F32, 1 << 17, 4, 1, 1, false), "do not fit"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rope),
        cmocka_unit_test(test_soft_max),
        cmocka_unit_test(test_flash_attn),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
