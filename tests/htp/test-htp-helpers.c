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

/* A dense tensor of elements of el bytes at data. */
static struct htp_tensor dense_tensor(uint8_t *data, uint32_t el, uint32_t ne0, uint32_t ne1, uint32_t ne2,
                                      uint32_t ne3) {
    struct htp_tensor t = {.data = data, .type = el == 4 ? HTP_TYPE_F32 : HTP_TYPE_F16, .ne = {ne0, ne1, ne2, ne3}};
    t.nb[0] = el;
    t.nb[1] = el * ne0;
    t.nb[2] = t.nb[1] * ne1;
    t.nb[3] = t.nb[2] * ne2;
    return t;
}

static uint32_t ref_gcd(uint32_t a, uint32_t b) {
    return b == 0 ? a : ref_gcd(b, a % b);
}

/* The rule of the seed (notes 9.3), written out again: the rows per chunk the partition of dense t must use. */
static uint32_t ref_rows_per_chunk(const struct htp_tensor *t) {
    const uint32_t row = t->ne[0] * t->nb[0];
    if (t->ne[1] > 1 && t->nb[1] % HEX_L2_LINE_SIZE == 0 && (t->ne[2] <= 1 || t->nb[2] % HEX_L2_LINE_SIZE == 0) &&
        (t->ne[3] <= 1 || t->nb[3] % HEX_L2_LINE_SIZE == 0)) {
        return 1;
    }
    return row == 0 ? 1 : HEX_L2_LINE_SIZE / ref_gcd(row, HEX_L2_LINE_SIZE);
}

/* The rule's ranges (notes 9.3): ceil(chunks / n) chunks per device, the last device the rest; fallback to device 0
 * when per is 0 or the whole chunks are fewer than the devices. */
static struct htp_tensor_mdev_range ref_partition(uint32_t total, uint32_t per, uint32_t idx, uint32_t n) {
    if (per == 0 || total / per < n) {
        return idx == 0 ? (struct htp_tensor_mdev_range){0, total} : (struct htp_tensor_mdev_range){total, 0};
    }
    const uint64_t per_dev = (uint64_t) ((total / per + n - 1) / n) * per;
    const uint64_t start = idx * per_dev < total ? idx * per_dev : total;
    const uint64_t count = idx == n - 1 ? total - start : (per_dev < total - start ? per_dev : total - start);
    return (struct htp_tensor_mdev_range){(uint32_t) start, (uint32_t) count};
}

/* Partition t's flattened rows over n devices with the helpers and check: the ranges are the rule's, they tile
 * [0, rows) in device order, and no 128-byte line holds bytes of two devices' rows (addresses from the tensor's
 * strides, not from the rule). fallback: whether the helpers must give everything to device 0. */
static void check_rows_split(const struct htp_tensor *t, uint32_t el, uint32_t n, bool fallback) {
    const uint32_t row = t->ne[0] * el, rows = htp_tensor_nrows(t);
    uint32_t rpc = 7;
    const bool ok = htp_tensor_mdev_rows_per_chunk(t, el, row, &rpc);
    assert_int_equal(ok, rpc != 0);
    const struct fastdiv_values div = fastdiv_init(n), d1 = fastdiv_init(t->ne[1]),
                                d12 = fastdiv_init(t->ne[1] * t->ne[2]);
    int64_t prev_last_line = -1; /* the last line the devices before wrote */
    uint32_t next = 0;
    bool all_on_0 = true;
    for (uint32_t idx = 0; idx < n; idx++) {
        const struct htp_tensor_mdev_range r = htp_tensor_mdev_partition(rows, rpc, idx, n, &div);
        const struct htp_tensor_mdev_range want = ref_partition(rows, rpc, idx, n);
        assert_int_equal(r.start, want.start);
        assert_int_equal(r.count, want.count);
        all_on_0 = all_on_0 && (idx == 0 ? r.count == rows : r.count == 0);
        if (r.count == 0) {
            continue;
        }
        assert_int_equal(r.start, next);
        next = r.start + r.count;
        int64_t first_line = INT64_MAX, last_line = -1;
        for (uint32_t k = r.start; k < next; k++) {
            const struct htp_row_index ix = htp_row_unravel(k, t->ne[1], t->ne[2], &d1, &d12);
            const uintptr_t a = (uintptr_t) (htp_tensor_row(t, ix.i1, ix.i2, ix.i3) - t->data);
            first_line = HEX_MIN(first_line, (int64_t) (a / HEX_L2_LINE_SIZE));
            last_line = HEX_MAX(last_line, (int64_t) ((a + row - 1) / HEX_L2_LINE_SIZE));
        }
        if (!fallback) {
            assert_true(first_line > prev_last_line); /* no line shared with an earlier device */
        }
        prev_last_line = last_line;
    }
    assert_int_equal(next, rows);
    assert_int_equal(all_on_0, fallback || rows == 0);
}

/* Acceptance 1 of issue 9: rows of 4, 6, 96, 100, 128, 130 and 4096 bytes (f32 and f16 rows), dense 2-D, 3-D and 4-D
 * tensors whose rows and slices are smaller than a line, on 2, 3 and 4 devices. */
static void test_mdev_rows_per_chunk(void **state) {
    (void) state;
    static uint8_t mem[1 << 21] __attribute__((aligned(HEX_L2_LINE_SIZE)));
    static const uint32_t rows_bytes[] = {4, 6, 96, 100, 128, 130, 4096};
    for (size_t i = 0; i < sizeof(rows_bytes) / sizeof(rows_bytes[0]); i++) {
        const uint32_t row = rows_bytes[i], el = row % 4 == 0 ? 4 : 2, ne0 = row / el;
        const struct htp_tensor shapes[] = {
            dense_tensor(mem, el, ne0, 256, 1, 1), /* 2-D */
            dense_tensor(mem, el, ne0, 3, 40, 1),  /* 3-D: slices of 3 rows */
            dense_tensor(mem, el, ne0, 1, 5, 30),  /* 4-D: slices of one row */
        };
        for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
            uint32_t rpc = 0;
            assert_true(htp_tensor_mdev_rows_per_chunk(&shapes[s], el, row, &rpc));
            assert_int_equal(rpc, ref_rows_per_chunk(&shapes[s]));
            assert_int_equal((uint64_t) rpc * row % HEX_L2_LINE_SIZE, 0); /* a chunk is whole lines */
            assert_true(rpc == 1 ||
                        (uint64_t) (rpc / 2) * row % HEX_L2_LINE_SIZE != 0); /* and the fewest rows that are */
            for (uint32_t n = 2; n <= 4; n++) {
                check_rows_split(&shapes[s], el, n, htp_tensor_nrows(&shapes[s]) / rpc < n);
            }
        }
    }
    /* 4-byte rows in 4-D slices of 3 x 2 rows (24 bytes), 48 rows: 32 rows per chunk, one chunk, so device 0 */
    struct htp_tensor t = dense_tensor(mem, 4, 1, 3, 2, 8);
    check_rows_split(&t, 4, 2, true);
    /* 6-byte rows: 64 per chunk; 200 rows are 3 chunks: fewer than 4 devices (device 0), enough for 3 */
    t = dense_tensor(mem, 2, 3, 200, 1, 1);
    check_rows_split(&t, 2, 4, true);
    check_rows_split(&t, 2, 3, false);
}

/* Layouts the helpers refuse (rows_per_chunk false, 0), so that device 0 computes everything. */
static void test_mdev_unsafe_layouts(void **state) {
    (void) state;
    static uint8_t mem[1 << 16] __attribute__((aligned(HEX_L2_LINE_SIZE)));
    uint32_t rpc = 7;
    struct htp_tensor t = dense_tensor(mem + 4, 4, 32, 8, 2, 1); /* unaligned base */
    assert_false(htp_tensor_mdev_rows_per_chunk(&t, 4, 128, &rpc));
    assert_int_equal(rpc, 0);
    check_rows_split(&t, 4, 2, true);
    t = dense_tensor(mem, 4, 32, 8, 4, 1); /* permuted: dims 1 and 2 swapped */
    const uint32_t nb1 = t.nb[1];
    t.nb[1] = t.nb[2], t.nb[2] = nb1;
    t.ne[1] = 4, t.ne[2] = 8;
    assert_true(htp_tensor_is_permuted(&t));
    rpc = 7;
    assert_false(htp_tensor_mdev_rows_per_chunk(&t, 4, 128, &rpc));
    assert_int_equal(rpc, 0);
    check_rows_split(&t, 4, 3, true);
    t = dense_tensor(mem, 4, 5, 64, 2, 1); /* padded planes of 20-byte rows: neither lines nor dense */
    t.nb[2] += 4;
    assert_false(htp_tensor_mdev_rows_per_chunk(&t, 4, 20, &rpc));
    check_rows_split(&t, 4, 2, true);
    t = dense_tensor(mem, 4, 5, 64, 2, 1); /* elements not dense (every other float) */
    t.nb[0] = 8;
    assert_false(htp_tensor_mdev_rows_per_chunk(&t, 4, 20, &rpc));
    t = dense_tensor(mem, 4, 5, 8, 2, 1); /* padded rows on lines: one row per chunk */
    t.nb[1] = HEX_L2_LINE_SIZE, t.nb[2] = HEX_L2_LINE_SIZE * 8, t.nb[3] = HEX_L2_LINE_SIZE * 16;
    assert_true(htp_tensor_mdev_rows_per_chunk(&t, 4, 20, &rpc));
    assert_int_equal(rpc, 1);
    check_rows_split(&t, 4, 4, false);
    t = dense_tensor(mem, 4, 3, 3, 3, 1);
    assert_true(htp_tensor_is_contiguous(&t, 4));
    t.nb[1] += 4;
    assert_false(htp_tensor_is_contiguous(&t, 4));
}

/* The partition rule on its own: fewer units or chunks than devices, the remainder rule, element lines (32 f32 or
 * 64 f16 per line), one device, against the rule written out in the test. */
static void test_mdev_partition(void **state) {
    (void) state;
    static const uint32_t cases[][3] = {
        {1000, 32, 3}, {1000, 1, 7}, {64, 32, 2}, {65, 32, 2},
        {31, 32, 2},   {100, 0, 4},  {10, 1, 16}, {10, 1, 4}, /* 3 chunks each, the last one */
        {5, 1, 4},    /* ceil(5 / 4) = 2: devices 0..2 take 2, 2, 1 and device 3 none */
        {70, 32, 2},  /* two chunks and 6 units past them: the last device takes 38 */
        {3, 1, 4},    /* fewer rows than devices */
        {4096, 64, 3} /* f16 elements in lines */
    };
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        const uint32_t total = cases[c][0], per = cases[c][1], count = cases[c][2];
        const struct fastdiv_values div = fastdiv_init(count);
        uint32_t next = 0;
        for (uint32_t idx = 0; idx < count; idx++) {
            const struct htp_tensor_mdev_range r = htp_tensor_mdev_partition(total, per, idx, count, &div);
            const struct htp_tensor_mdev_range want = ref_partition(total, per, idx, count);
            assert_int_equal(r.start, want.start);
            assert_int_equal(r.count, want.count);
            if (r.count == 0) {
                continue;
            }
            assert_int_equal(r.start, next); /* ranges tile [0, total) in device order */
            next = r.start + r.count;
        }
        assert_int_equal(next, total);
    }
    const struct fastdiv_values d4 = fastdiv_init(4), d1 = fastdiv_init(1);
    const struct htp_tensor_mdev_range last = htp_tensor_mdev_partition(10, 1, 3, 4, &d4);
    assert_int_equal(last.start, 9); /* 3 + 3 + 3, then the remainder */
    assert_int_equal(last.count, 1);
    const struct htp_tensor_mdev_range one = htp_tensor_mdev_partition(10, 0, 0, 1, &d1);
    assert_int_equal(one.start, 0);
    assert_int_equal(one.count, 10);
    const struct htp_tensor_mdev_range other = htp_tensor_mdev_partition(3, 1, 2, 4, &d4);
    assert_int_equal(other.start, 3); /* fallback: devices past 0 get {total, 0} */
    assert_int_equal(other.count, 0);
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
        cmocka_unit_test(test_type_geometry),
        cmocka_unit_test(test_row_unravel),
        cmocka_unit_test(test_mdev_rows_per_chunk),
        cmocka_unit_test(test_mdev_partition),
        cmocka_unit_test(test_mdev_unsafe_layouts),
        cmocka_unit_test(test_vtcm_layouts),
        cmocka_unit_test(test_op_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
