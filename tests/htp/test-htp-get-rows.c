/*
 * GET_ROWS from tiled weights (the REPACK layout) on a session, for all twelve tiled types: the host plans the op
 * as for any node (htp_family_get_rows), the request carries the weight tiled (src/repack) with HTP_TENSOR_TILED,
 * and every value must equal the tiles' own (repack_dequant_tensor) to the bit. The rows asked for cross the
 * tile grid: first and last row of a column tile, the last row of a partial column tile (ne1 = 33), rows of the
 * second matrix; ne0 spans three tasks (4096, 4096, 256). The same weight flat must give GGML's dequantization
 * to the bit, and an index out of range fails the op and leaves the session serving (GET_ROWS and SET_ROWS).
 */
#include "test-common.h"

#include "get-rows-ops.h"
#include "htp-device-impl.h"
#include "htp-msg.h"
#include "repack.h"
#include "vdsp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NE0   8448 /* 4096 + 4096 + 256: three tasks per row */
#define NE1   33   /* a partial second column tile */
#define NE2   2    /* two matrices */
#define N_IDX 5
#define BLOCK (1u << 16)

static const int32_t rows[NE2][N_IDX] = {{0, 31, 32, 17, 0}, {32, 5, 31, 1, 30}};

struct fixture {
    struct vdsp_session *s;
    struct vdsp_buffer *block, *weight, *data; /* request; the weight; indices then dst */
};

static int setup(void **state) {
    static struct fixture f;
    const struct vdsp_session_params p = {.arch = VDSP_ARCH_V79, .n_threads = 2};
    assert_int_equal(vdsp_session_open(&p, &f.s), VNPU_STATUS_OK);
    assert_int_equal(vdsp_buffer_alloc(BLOCK, "test-request", &f.block), VNPU_STATUS_OK);
    assert_int_equal(vdsp_buffer_alloc(4u << 20, "test-weight", &f.weight), VNPU_STATUS_OK);
    assert_int_equal(vdsp_buffer_alloc(1u << 20, "test-data", &f.data), VNPU_STATUS_OK);
    *state = &f;
    return 0;
}

static int teardown(void **state) {
    struct fixture *f = *state;
    vdsp_session_close(f->s);
    vdsp_buffer_free(f->block);
    vdsp_buffer_free(f->weight);
    vdsp_buffer_free(f->data);
    return 0;
}

static void desc_of(struct htp_tensor_desc *d, const struct vnpu_tensor *t, uint32_t offset, uint16_t bi) {
    memset(d, 0, sizeof(*d));
    d->offset = offset;
    d->bi = bi;
    d->type = (uint32_t) t->type;
    for (int i = 0; i < HTP_MAX_DIMS; i++) {
        d->ne[i] = (uint32_t) t->ne[i];
        d->nb[i] = (uint32_t) t->nb[i];
    }
}

/* A request of one op on f's buffers (0: the weight, 1: the data) with tensors 0 and 1 (flags0) its sources and 2
 * its result (offset[] into buffers bi[]), planned by the host for family: node's src[0], src[1] and node. */
static void request(struct fixture *f, const struct htp_op_family *family, enum htp_op opcode,
                    const struct vnpu_tensor *node, uint32_t flags0, const uint32_t offset[3], const uint16_t bi[3]) {
    struct htp_device d;
    memset(&d, 0, sizeof(d));
    d.n_threads = 2;
    assert_true(vdsp_target_get(VDSP_ARCH_V79, &d.target));
    uint8_t *base = f->block->host;
    memset(base, 0, 4096);
    struct htp_req *req = (struct htp_req *) base;
    req->version = HTP_MSG_VERSION;
    req->mdev_count = 1;
    req->n_bufs = 2;
    req->n_tensors = 3;
    req->n_ops = 1;
    req->off_bufs = 1024;
    req->off_tensors = 1536;
    req->off_ops = 2048;
    req->off_op_rsp = 3072;
    struct htp_buf_desc *bufs = (struct htp_buf_desc *) (base + req->off_bufs);
    struct htp_tensor_desc *tensors = (struct htp_tensor_desc *) (base + req->off_tensors);
    struct htp_op_desc *op = (struct htp_op_desc *) (base + req->off_ops);
    bufs[0] = (struct htp_buf_desc){.fd = f->weight->fd, .size = f->weight->size};
    bufs[1] = (struct htp_buf_desc){.fd = f->data->fd, .flags = HTP_BUF_PINNED, .size = f->data->size};
    const struct vnpu_tensor *t[3] = {node->src[0], node->src[1], node};
    for (int i = 0; i < 3; i++) {
        desc_of(&tensors[i], t[i], offset[i], bi[i]);
    }
    tensors[0].flags = flags0;
    const struct vnpu_tensor *src[HTP_MAX_SRC] = {NULL}, *dsts[HTP_MAX_DST] = {NULL};
    htp_family_prep(family, &d, node, NULL, opcode, op, src, dsts);
    op->opcode = opcode;
    for (int j = 0; j < HTP_MAX_SRC; j++) {
        op->src[j] = j < 2 ? (uint16_t) j : HTP_NO_TENSOR;
    }
    op->dst[0] = 2;
    op->dst[1] = HTP_NO_TENSOR;
}

/* The request's status after a call (the session must not have faulted). */
static uint32_t call(struct fixture *f) {
    assert_int_equal(vdsp_session_call(f->s, f->block, 0, BLOCK), VNPU_STATUS_OK);
    assert_false(vdsp_session_faulted(f->s));
    return ((const struct htp_req *) f->block->host)->rsp.status;
}

/* GET_ROWS of rows[][] from the weight in f->weight (tiled or not) into dst, planned by the host. The status. */
static uint32_t run(struct fixture *f, enum vnpu_type type, bool tiled, const int32_t idx[NE2][N_IDX], float *dst) {
    struct vnpu_ctx *ctx = vnpu_ctx_new(1 << 16, true);
    struct vnpu_tensor *w = vnpu_new_tensor_4d(ctx, type, NE0, NE1, NE2, 1);
    struct vnpu_tensor *ids = vnpu_new_tensor_4d(ctx, VNPU_TYPE_I32, N_IDX, NE2, 1, 1);
    struct vnpu_tensor *node = vnpu_get_rows(ctx, w, ids);
    request(f, &htp_family_get_rows, HTP_OP_GET_ROWS, node, tiled ? HTP_TENSOR_TILED : 0,
            (const uint32_t[3]){0, 0, 4096}, (const uint16_t[3]){0, 1, 1});
    memcpy(f->data->host, idx, sizeof(rows));
    memset((uint8_t *) f->data->host + 4096, 0xFF, sizeof(float) * NE0 * N_IDX * NE2);
    const uint32_t status = call(f);
    memcpy(dst, (uint8_t *) f->data->host + 4096, sizeof(float) * NE0 * N_IDX * NE2);
    vnpu_ctx_free(ctx);
    return status;
}

/* The weight of type as GGML's flat rows (reference quantizer over N(0, 1) draws seeded by the type's name). */
static uint8_t *weight_flat(enum vnpu_type type, size_t *size) {
    const size_t row = vnpu_row_size(type, NE0);
    uint8_t *q = malloc(row * NE1 * NE2);
    float *x = malloc(sizeof(float) * NE0);
    struct test_rng rng;
    test_rng_seed(&rng, vnpu_type_name(type));
    for (size_t r = 0; r < (size_t) NE1 * NE2; r++) {
        for (size_t i = 0; i < NE0; i++) {
            x[i] = test_rng_normal(&rng, 1.0f);
        }
        vnpu_type_traits_get(type)->from_f32_ref(x, q + r * row, NE0);
    }
    free(x);
    *size = row * NE1 * NE2;
    return q;
}

/* Rows rows[][] of the values in all (NE0 x NE1 per matrix) equal dst's, bit for bit (NaN = NaN). */
static void check_rows(enum vnpu_type type, bool tiled, const float *all, const float *dst) {
    for (int i2 = 0; i2 < NE2; i2++) {
        for (int k = 0; k < N_IDX; k++) {
            const float *want = all + ((size_t) i2 * NE1 + (size_t) rows[i2][k]) * NE0;
            const float *got = dst + ((size_t) i2 * N_IDX + (size_t) k) * NE0;
            for (int i = 0; i < NE0; i++) {
                if (memcmp(&want[i], &got[i], sizeof(float)) != 0 && !(isnan(want[i]) && isnan(got[i]))) {
                    fail_msg("%s %s: row %d of matrix %d, element %d: %.9g, expected %.9g", vnpu_type_name(type),
                             tiled ? "tiled" : "flat", rows[i2][k], i2, i, (double) got[i], (double) want[i]);
                }
            }
        }
    }
}

static const enum vnpu_type tiled_types[] = {
    VNPU_TYPE_Q4_0, VNPU_TYPE_Q4_1, VNPU_TYPE_Q8_0, VNPU_TYPE_IQ4_NL, VNPU_TYPE_MXFP4, VNPU_TYPE_Q1_0,
    VNPU_TYPE_Q2_0, VNPU_TYPE_Q2_K, VNPU_TYPE_Q3_K, VNPU_TYPE_Q4_K,   VNPU_TYPE_Q5_K,  VNPU_TYPE_Q6_K,
};

static void test_tiled_and_flat(void **state) {
    struct fixture *f = *state;
    const int64_t ne[VNPU_MAX_DIMS] = {NE0, NE1, NE2, 1};
    float *all = malloc(sizeof(float) * NE0 * NE1 * NE2), *dst = malloc(sizeof(float) * NE0 * N_IDX * NE2);
    for (size_t t = 0; t < sizeof(tiled_types) / sizeof(tiled_types[0]); t++) {
        const enum vnpu_type type = tiled_types[t];
        size_t flat_size;
        uint8_t *flat = weight_flat(type, &flat_size);
        const size_t tiled_size = repack_nbytes(type, ne);
        assert_true(tiled_size > 0 && tiled_size <= f->weight->size);

        assert_int_equal(repack_tensor(type, ne, flat, flat_size, f->weight->host, f->weight->size, 1), VNPU_STATUS_OK);
        assert_int_equal(repack_dequant_tensor(type, ne, f->weight->host, f->weight->size, all), VNPU_STATUS_OK);
        assert_int_equal(run(f, type, true, rows, dst), HTP_STATUS_OK);
        check_rows(type, true, all, dst);

        memcpy(f->weight->host, flat, flat_size);
        vnpu_type_traits_get(type)->to_f32(flat, all, (int64_t) NE0 * NE1 * NE2);
        assert_int_equal(run(f, type, false, rows, dst), HTP_STATUS_OK);
        check_rows(type, false, all, dst);
        free(flat);
    }
    free(all);
    free(dst);
}

/* An index past the table's rows: the op fails saying which index, where and the limit, writes nothing of that
 * row, and the session still serves. */
static void test_bad_index(void **state) {
    struct fixture *f = *state;
    int32_t bad[NE2][N_IDX];
    memcpy(bad, rows, sizeof(bad));
    bad[1][3] = NE1;
    float *dst = malloc(sizeof(float) * NE0 * N_IDX * NE2);
    size_t size;
    uint8_t *flat = weight_flat(VNPU_TYPE_Q4_0, &size);
    const int64_t ne[VNPU_MAX_DIMS] = {NE0, NE1, NE2, 1};
    assert_int_equal(repack_tensor(VNPU_TYPE_Q4_0, ne, flat, size, f->weight->host, f->weight->size, 1),
                     VNPU_STATUS_OK);
    assert_int_equal(run(f, VNPU_TYPE_Q4_0, true, bad, dst), HTP_STATUS_INVAL_PARAMS);
    const struct htp_req *req = f->block->host;
    char want[96];
    snprintf(want, sizeof(want), "op 0 (GET_ROWS): row index %d at [3, 1, 0] outside [0, ne01 = %d)", NE1, NE1);
    if (!strstr(req->rsp.message, want)) {
        fail_msg("the message should say which index, where and the limit ('%s'): '%s'", want, req->rsp.message);
    }
    const float *skipped = dst + (size_t) (N_IDX + 3) * NE0;
    for (int i = 0; i < NE0; i++) {
        assert_true(isnan(skipped[i])); /* still the 0xFF poison */
    }
    assert_int_equal(run(f, VNPU_TYPE_Q4_0, true, rows, dst), HTP_STATUS_OK);
    free(flat);
    free(dst);
}

/* SET_ROWS of SR_N F32 rows into an F32 destination of SR_NE1 rows by I64 indices (idx), in f->data: rows at 0,
 * indices at 2048, the destination (poisoned first) at 4096. The status; *dst the destination after. */
#define SR_NE0 64
#define SR_N   4
#define SR_NE1 8
static uint32_t run_set_rows(struct fixture *f, const int64_t idx[SR_N], float dst[SR_NE1][SR_NE0]) {
    struct vnpu_ctx *ctx = vnpu_ctx_new(1 << 16, true);
    struct vnpu_tensor *rows_in = vnpu_new_tensor_4d(ctx, VNPU_TYPE_F32, SR_NE0, SR_N, 1, 1);
    struct vnpu_tensor *ids = vnpu_new_tensor_4d(ctx, VNPU_TYPE_I64, SR_N, 1, 1, 1);
    struct vnpu_tensor *to = vnpu_new_tensor_4d(ctx, VNPU_TYPE_F32, SR_NE0, SR_NE1, 1, 1);
    struct vnpu_tensor *node = vnpu_set_rows(ctx, to, rows_in, ids);
    request(f, &htp_family_set_rows, HTP_OP_SET_ROWS, node, 0, (const uint32_t[3]){0, 2048, 4096},
            (const uint16_t[3]){1, 1, 1});
    float *x = f->data->host;
    for (int i = 0; i < SR_N * SR_NE0; i++) {
        x[i] = (float) i;
    }
    memcpy((uint8_t *) f->data->host + 2048, idx, sizeof(int64_t) * SR_N);
    memset((uint8_t *) f->data->host + 4096, 0xFF, sizeof(float) * SR_NE0 * SR_NE1);
    const uint32_t status = call(f);
    memcpy(dst, (uint8_t *) f->data->host + 4096, sizeof(float) * SR_NE0 * SR_NE1);
    vnpu_ctx_free(ctx);
    return status;
}

/* SET_ROWS with an index past the destination's rows: the op fails saying which index, where and the limit; the
 * session still serves, writing each source row to the row its index names. */
static void test_set_rows_bad_index(void **state) {
    struct fixture *f = *state;
    static float dst[SR_NE1][SR_NE0];
    const int64_t bad[SR_N] = {3, 0, SR_NE1, 5}, good[SR_N] = {3, 0, 7, 5};
    assert_int_equal(run_set_rows(f, bad, dst), HTP_STATUS_INVAL_PARAMS);
    const struct htp_req *req = f->block->host;
    char want[96];
    snprintf(want, sizeof(want), "op 0 (SET_ROWS): row index %d at [2, 0, 0] outside [0, ne1 = %d)", SR_NE1, SR_NE1);
    if (!strstr(req->rsp.message, want)) {
        fail_msg("the message should say which index, where and the limit ('%s'): '%s'", want, req->rsp.message);
    }
    assert_int_equal(run_set_rows(f, good, dst), HTP_STATUS_OK);
    for (int r = 0; r < SR_NE1; r++) {
        const int from = r == 3 ? 0 : r == 0 ? 1 : r == 7 ? 2 : r == 5 ? 3 : -1; /* the source row good[] names */
        for (int i = 0; i < SR_NE0; i++) {
            assert_true(from < 0 ? isnan(dst[r][i]) : dst[r][i] == (float) (from * SR_NE0 + i));
        }
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tiled_and_flat),
        cmocka_unit_test(test_bad_index),
        cmocka_unit_test(test_set_rows_bad_index),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
