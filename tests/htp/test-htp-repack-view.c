/*
 * Views of a weight the HTP0-REPACK buffer stores tiled (Q4_0, 64 rows of 256): get_tensor and set_tensor of a view
 * read and write GGML's flat bytes from the view's offset, as on the flat original (a tile-aligned row range, a row
 * range inside one tile row, a range starting mid-row), and supports_op refuses ops reading such a view while it
 * takes the whole weight; the CPU backend, which reads operands in place, refuses both.
 */
#include "test-common.h"

#include "backend.h"
#include "buffer.h"
#include "cpu-backend.h"
#include "htp-host.h"
#include "tensor.h"

#include <stdlib.h>
#include <string.h>

#define K    256
#define ROWS 64

struct view_case {
    const char *name;
    int64_t first_row, n_rows; /* a 2-D view of whole rows, or, with n_rows 0: */
    size_t offset, bytes;      /* a 1-D view of bytes (whole Q4_0 blocks) from offset */
};

static const struct view_case view_cases[] = {
    {"rows 32..63", 32, 32, 0, 0},
    {"rows 5..8", 5, 4, 0, 0},
    {"7 blocks from row 3 block 1", 0, 0, 0, 7 * 18},
};

static struct vnpu_tensor *view_of(struct vnpu_ctx *ctx, struct vnpu_tensor *w, const struct view_case *c) {
    const size_t row = w->nb[1];
    if (c->n_rows) {
        return vnpu_view_2d(ctx, w, K, c->n_rows, row, (size_t) c->first_row * row);
    }
    return vnpu_view_1d(ctx, w, (int64_t) (c->bytes / 18 * 32), 3 * row + 18);
}

static size_t view_start(const struct vnpu_tensor *w, const struct view_case *c) {
    return c->n_rows ? (size_t) c->first_row * w->nb[1] : 3 * w->nb[1] + 18;
}

static void test_repack_views(void **state) {
    (void) state;
    struct vnpu_device *dev = NULL;
    assert_int_equal(vnpu_htp_device_get(0, &dev), VNPU_STATUS_OK);
    struct vnpu_device *cpu = NULL;
    assert_int_equal(vnpu_cpu_device_new(1, &cpu), VNPU_STATUS_OK);
    struct vnpu_buffer_type *bt = vnpu_device_weight_buffer_type(dev, NULL);
    assert_string_equal(vnpu_buffer_type_name(bt), "HTP0-REPACK");
    struct vnpu_ctx *ctx = vnpu_ctx_new(1 << 16, true);
    struct vnpu_tensor *w = vnpu_new_tensor_2d(ctx, VNPU_TYPE_Q4_0, K, ROWS);
    w->flags |= VNPU_TENSOR_FLAG_WEIGHT;
    const size_t flat = vnpu_nbytes(w);
    struct vnpu_buffer *buf = NULL;
    assert_int_equal(vnpu_buffer_type_alloc(bt, vnpu_buffer_type_alloc_size(bt, w), &buf), VNPU_STATUS_OK);
    vnpu_buffer_place_tensor(buf, w, 0);

    uint8_t *orig = malloc(flat), *back = malloc(flat), *patch = malloc(flat);
    struct test_rng rng;
    test_rng_seed(&rng, "repack views");
    for (size_t i = 0; i < flat; i++) {
        orig[i] = (uint8_t) test_rng_next(&rng); /* Q4_0 tiles keep any scale and code bytes */
    }
    assert_int_equal(vnpu_tensor_set(w, orig, 0, flat), VNPU_STATUS_OK);
    assert_memory_not_equal(w->data, orig, flat); /* tiled in place */

    struct vnpu_tensor *act = vnpu_new_tensor_2d(ctx, VNPU_TYPE_F32, K, 2);
    assert_true(vnpu_device_supports_op(dev, vnpu_mul_mat(ctx, w, act)));
    assert_false(vnpu_device_supports_op(cpu, vnpu_mul_mat(ctx, w, act))); /* the tiled weight itself */
    for (size_t k = 0; k < sizeof(view_cases) / sizeof(view_cases[0]); k++) {
        const struct view_case *c = &view_cases[k];
        struct vnpu_tensor *v = view_of(ctx, w, c);
        const size_t start = view_start(w, c), n = vnpu_nbytes(v);
        struct vnpu_tensor *x = vnpu_new_tensor_2d(ctx, VNPU_TYPE_F32, v->ne[0], 2);
        if (vnpu_device_supports_op(dev, vnpu_mul_mat(ctx, v, x))) {
            fail_msg("%s: HTP0 takes MUL_MAT of a view of a tiled weight", c->name);
        }
        if (vnpu_device_supports_op(cpu, vnpu_mul_mat(ctx, v, x))) {
            fail_msg("%s: the CPU backend takes MUL_MAT of a view of a tiled weight, whose bytes are tiles", c->name);
        }
        memset(back, 0xa5, flat);
        assert_int_equal(vnpu_tensor_get(v, back, 0, n), VNPU_STATUS_OK);
        if (memcmp(back, orig + start, n) != 0) {
            fail_msg("%s: get_tensor of the view is not the flat weight's bytes %zu..%zu", c->name, start, start + n);
        }
        assert_int_equal(vnpu_tensor_get(v, back, 18, n - 18), VNPU_STATUS_OK); /* a range of the view */
        assert_memory_equal(back, orig + start + 18, n - 18);

        for (size_t i = 0; i < n; i++) {
            patch[i] = (uint8_t) test_rng_next(&rng);
        }
        assert_int_equal(vnpu_tensor_set(v, patch, 0, n), VNPU_STATUS_OK);
        memcpy(orig + start, patch, n);
        assert_int_equal(vnpu_tensor_get(w, back, 0, flat), VNPU_STATUS_OK);
        if (memcmp(back, orig, flat) != 0) {
            fail_msg("%s: after set_tensor of the view the weight is not the patched flat bytes", c->name);
        }
    }
    free(orig);
    free(back);
    free(patch);
    vnpu_buffer_free(buf);
    vnpu_ctx_free(ctx);
    vnpu_device_free(dev);
    vnpu_device_free(cpu);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_repack_views),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
