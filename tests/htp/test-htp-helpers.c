/*
 * The NPU-side helpers every kernel leans on (src/htp): type geometry against GGML's type traits, the
 * flat-row unravel, the mdev partition helpers of the seed, VTCM bump layouts, the row plan's layout, and
 * the opcode table.
 */
#include "test-common.h"

#include "htp-ops.h"
#include "htp-tensor.h"
#include "htp-vtcm.h"
#include "row-stream.h"
#include "type-traits.h"

#include <string.h>

/* Every NPU type has GGML's block geometry; the NPU knows exactly the ids of enum htp_type. */
static void test_type_geometry(void **state) {
    (void) state;
    int known = 0;
    for (uint32_t id = 0; id < 64; id++) {
        uint32_t blck = 0, size = 0;
        if (!htp_type_geometry(id, &blck, &size)) {
            continue;
        }
        known++;
        assert_true(vnpu_type_is_valid(id));
        const struct vnpu_type_traits *tt = vnpu_type_traits_get((enum vnpu_type) id);
        assert_int_equal(blck, tt->blck);
        assert_int_equal(size, tt->size);
    }
    assert_int_equal(known, 17); /* the rows of enum htp_type */
}

static void test_row_unravel(void **state) {
    (void) state;
    static const uint32_t shapes[][2] = {{1, 1}, {7, 11}, {32, 1}, {1, 33}, {1000, 3}, {65537, 2}};
    for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
        const uint32_t ne1 = shapes[s][0], ne2 = shapes[s][1];
        const struct fastdiv_values d1 = fastdiv_init(ne1), d12 = fastdiv_init(ne1 * ne2);
        for (uint32_t r = 0; r < ne1 * ne2 * 3; r += 1 + r / 97) {
            const struct htp_row_index ix = htp_row_unravel(r, ne1, ne2, &d1, &d12);
            assert_int_equal(ix.i1, r % ne1);
            assert_int_equal(ix.i2, r / ne1 % ne2);
            assert_int_equal(ix.i3, r / (ne1 * ne2));
        }
    }
}

/* A contiguous f32 tensor view at data. */
static struct htp_tensor f32_tensor(uint8_t *data, uint32_t ne0, uint32_t ne1, uint32_t ne2) {
    struct htp_tensor t = {.data = data, .type = HTP_TYPE_F32, .ne = {ne0, ne1, ne2, 1}};
    t.nb[0] = 4;
    t.nb[1] = 4 * ne0;
    t.nb[2] = t.nb[1] * ne1;
    t.nb[3] = t.nb[2] * ne2;
    return t;
}

static void test_mdev_rows_per_chunk(void **state) {
    (void) state;
    static uint8_t mem[1 << 16] __attribute__((aligned(128)));
    uint32_t rpc = 0;
    struct htp_tensor t = f32_tensor(mem, 32, 8, 2); /* 128-byte rows: one row per chunk */
    assert_true(htp_tensor_mdev_rows_per_chunk(&t, 4, 128, &rpc));
    assert_int_equal(rpc, 1);
    t = f32_tensor(mem, 5, 64, 1); /* 20-byte dense rows: 128 / gcd(20, 128) = 32 rows per chunk */
    assert_true(htp_tensor_mdev_rows_per_chunk(&t, 4, 20, &rpc));
    assert_int_equal(rpc, 32);
    assert_int_equal((20 * rpc) % HTP_TENSOR_MDEV_LINE_SIZE, 0);
    t = f32_tensor(mem + 4, 32, 8, 2); /* unaligned base */
    assert_false(htp_tensor_mdev_rows_per_chunk(&t, 4, 128, &rpc));
    assert_int_equal(rpc, 0);
    t = f32_tensor(mem, 5, 64, 2);
    t.nb[2] += 4; /* padded planes, rows not on lines */
    assert_false(htp_tensor_mdev_rows_per_chunk(&t, 4, 20, &rpc));
    t = f32_tensor(mem, 3, 3, 3);
    assert_true(htp_tensor_is_contiguous(&t, 4));
    t.nb[1] += 4;
    assert_false(htp_tensor_is_contiguous(&t, 4));
}

static void test_mdev_partition(void **state) {
    (void) state;
    static const uint32_t cases[][3] = {{1000, 32, 3}, {1000, 1, 7}, {64, 32, 2}, {65, 32, 2},
                                        {31, 32, 2},   {100, 0, 4},  {10, 1, 16}};
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        const uint32_t total = cases[c][0], per = cases[c][1], count = cases[c][2];
        const struct fastdiv_values div = fastdiv_init(count);
        uint32_t next = 0;
        const bool fallback = per == 0 || total / per < count;
        for (uint32_t idx = 0; idx < count; idx++) {
            const struct htp_tensor_mdev_range r = htp_tensor_mdev_partition(total, per, idx, count, &div);
            if (r.count == 0) {
                assert_true(fallback && idx > 0);
                continue;
            }
            assert_int_equal(r.start, next); /* ranges tile [0, total) in device order */
            if (!fallback) {
                assert_int_equal(r.start % per, 0); /* every device starts on a chunk */
            }
            next = r.start + r.count;
        }
        assert_int_equal(next, total);
    }
}

static void test_vtcm_layouts(void **state) {
    (void) state;
    uint32_t top = 0;
    assert_int_equal(htp_vtcm_take(&top, 1), 0);
    assert_int_equal(htp_vtcm_take(&top, 129), 128);
    assert_int_equal(top, 384);
    top = UINT32_MAX - 64;
    htp_vtcm_take(&top, 1u << 20);
    assert_int_equal(top, UINT32_MAX); /* saturated: never fits */
    assert_false(htp_vtcm_fits(top, 1, 8u << 20));
    assert_true(htp_vtcm_fits(1u << 20, 8, 8u << 20));
    assert_false(htp_vtcm_fits((1u << 20) + 128, 8, 8u << 20));

    for (uint32_t mode = ROW_SRC1_NONE; mode <= ROW_SRC1_RESIDENT; mode++) {
        for (uint32_t n_dst = 1; n_dst <= 2; n_dst++) {
            const struct row_plan p = {.n_threads = 2, .block = 7, .src1_mode = mode, .n_dst = n_dst};
            const struct row_layout l = row_plan_layout(&p, 33);
            const uint32_t half = 7 * l.row_stride;
            assert_int_equal(l.row_stride, 256); /* 132 bytes rounded to 128 */
            uint32_t end = l.src0 + 2 * half;
            if (mode != ROW_SRC1_NONE) {
                assert_int_equal(l.src1, end);
                end += mode == ROW_SRC1_RESIDENT ? l.row_stride : 2 * half;
            }
            for (uint32_t k = 0; k < n_dst; k++) {
                assert_int_equal(l.dst[k], end);
                end += 2 * half;
            }
            assert_int_equal(l.per_thread, end);
        }
    }
}

static void test_op_table(void **state) {
    (void) state;
    for (uint32_t op = 0; op < HTP_OP_COUNT; op++) {
        uint32_t n_src = 0, n_dst = 0;
        assert_string_not_equal(htp_op_name(op), "?");
        assert_true(htp_op_operands(op, &n_src, &n_dst));
        assert_in_range(n_src, 1, HTP_MAX_SRC);
        assert_in_range(n_dst, 1, HTP_MAX_DST);
    }
    uint32_t n_src, n_dst;
    assert_false(htp_op_operands(HTP_OP_COUNT, &n_src, &n_dst));
    assert_string_equal(htp_op_name(HTP_OP_COUNT), "?");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_type_geometry),       cmocka_unit_test(test_row_unravel),
        cmocka_unit_test(test_mdev_rows_per_chunk), cmocka_unit_test(test_mdev_partition),
        cmocka_unit_test(test_vtcm_layouts),        cmocka_unit_test(test_op_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
