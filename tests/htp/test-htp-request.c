/*
 * The NPU library's dispatcher (src/htp/main.c) on hand-written request blocks sent straight to a session:
 * a well-formed ADD computes; malformed requests (wrong version, areas outside the block, too many buffers,
 * a tensor past its buffer, a missing operand, an unknown opcode, kernel_params the session cannot run, a
 * MUL_MAT whose host fastdiv values are not those of their divisors) answer an error status with a message,
 * never crash, and leave the session serving.
 */
#include "test-common.h"

#include "act-quant.h"
#include "binary-ops.h"
#include "htp-msg.h"
#include "matmul-ops.h"
#include "vdsp.h"

#include <string.h>

#define N_ELEM 100

/* A request for dst = a + b over N_ELEM floats in one data buffer; the fields the cases break. */
struct fixture {
    struct vdsp_session *s;
    struct vdsp_buffer *block;
    struct vdsp_buffer *data; /* a at 0, b at 512, dst at 1024 */
    struct htp_req *req;
    struct htp_buf_desc *bufs;
    struct htp_tensor_desc *tensors;
    struct htp_op_desc *op;
};

static void tensor_f32(struct htp_tensor_desc *t, uint32_t offset) {
    memset(t, 0, sizeof(*t));
    t->offset = offset;
    t->type = HTP_TYPE_F32;
    t->ne[0] = N_ELEM;
    t->ne[1] = t->ne[2] = t->ne[3] = 1;
    t->nb[0] = 4;
    t->nb[1] = t->nb[2] = t->nb[3] = 4 * N_ELEM;
}

/* The well-formed request, rewritten before each case. */
static void fixture_request(struct fixture *f) {
    uint8_t *base = f->block->host;
    memset(base, 0, 4096);
    f->req = (struct htp_req *) base;
    f->req->version = HTP_MSG_VERSION;
    f->req->mdev_count = 1;
    f->req->n_bufs = 1;
    f->req->n_tensors = 3;
    f->req->n_ops = 1;
    f->req->off_bufs = 1024;
    f->req->off_tensors = 1536;
    f->req->off_ops = 2048;
    f->req->off_op_rsp = 3072;
    f->bufs = (struct htp_buf_desc *) (base + f->req->off_bufs);
    f->tensors = (struct htp_tensor_desc *) (base + f->req->off_tensors);
    f->op = (struct htp_op_desc *) (base + f->req->off_ops);
    f->bufs[0] = (struct htp_buf_desc){.fd = f->data->fd, .flags = HTP_BUF_PINNED, .size = f->data->size};
    for (int i = 0; i < 3; i++) {
        tensor_f32(&f->tensors[i], 512u * (uint32_t) i);
    }
    f->op->opcode = HTP_OP_ADD;
    for (int j = 0; j < HTP_MAX_SRC; j++) {
        f->op->src[j] = j < 2 ? (uint16_t) j : HTP_NO_TENSOR;
    }
    f->op->dst[0] = 2;
    f->op->dst[1] = HTP_NO_TENSOR;
    struct binary_kparams *kp = (struct binary_kparams *) f->op->kparams;
    kp->plan = (struct row_plan){
        .n_threads = 1, .rows_per_thread = 1, .block = 1, .src1_mode = ROW_SRC1_STREAM, .n_dst = 1, .flat = 1};
    kp->plan.div_ne1 = kp->plan.div_ne12 = fastdiv_init(1);
    for (int i = 0; i < 3; i++) {
        kp->plan.div_src1[i] = fastdiv_init(1);
    }
    float *x = f->data->host;
    for (int i = 0; i < N_ELEM; i++) {
        x[i] = (float) i;
        x[128 + i] = 0.5f;
    }
}

static int setup(void **state) {
    static struct fixture f;
    const struct vdsp_session_params p = {.arch = VDSP_ARCH_V79, .n_threads = 2};
    assert_int_equal(vdsp_session_open(&p, &f.s), VNPU_STATUS_OK);
    assert_int_equal(vdsp_buffer_alloc(4096, "test-request", &f.block), VNPU_STATUS_OK);
    assert_int_equal(vdsp_buffer_alloc(4096, "test-data", &f.data), VNPU_STATUS_OK);
    *state = &f;
    return 0;
}

static int teardown(void **state) {
    struct fixture *f = *state;
    vdsp_session_close(f->s);
    vdsp_buffer_free(f->block);
    vdsp_buffer_free(f->data);
    return 0;
}

/* Send the fixture's request; the session must answer and stay healthy. */
static uint32_t send(struct fixture *f) {
    assert_int_equal(vdsp_session_call(f->s, f->block, 0, 4096), VNPU_STATUS_OK);
    assert_false(vdsp_session_faulted(f->s));
    return f->req->rsp.status;
}

static void expect(struct fixture *f, uint32_t status, const char *message) {
    assert_int_equal(send(f), status);
    if (!strstr(f->req->rsp.message, message)) {
        fail_msg("message '%s' lacks '%s'", f->req->rsp.message, message);
    }
    assert_int_equal(f->req->rsp.n_ops_done, 0);
}

static void test_add(void **state) {
    struct fixture *f = *state;
    fixture_request(f);
    assert_int_equal(send(f), HTP_STATUS_OK);
    assert_int_equal(f->req->rsp.n_ops_done, 1);
    const float *y = (const float *) f->data->host + 256;
    for (int i = 0; i < N_ELEM; i++) {
        assert_float_equal(y[i], (float) i + 0.5f, 0.0f);
    }
}

static void test_bad_header(void **state) {
    struct fixture *f = *state;
    fixture_request(f);
    f->req->version = 1;
    expect(f, HTP_STATUS_INVAL_PARAMS, "request version 1");
    fixture_request(f);
    f->req->n_bufs = HTP_MAX_BUFS + 1;
    expect(f, HTP_STATUS_INVAL_PARAMS, "request layout");
    fixture_request(f);
    f->req->off_ops = 4000; /* the op descriptor would end past the block */
    expect(f, HTP_STATUS_INVAL_PARAMS, "request layout");
    fixture_request(f);
    f->req->off_tensors = 1540; /* not 8-byte aligned */
    expect(f, HTP_STATUS_INVAL_PARAMS, "request layout");
    fixture_request(f);
    f->req->mdev_count = 0; /* a group of no session */
    expect(f, HTP_STATUS_INVAL_PARAMS, "mdev_idx 0 of mdev_count 0");
    fixture_request(f);
    f->req->mdev_count = 2;
    f->req->mdev_idx = 2; /* past the group */
    expect(f, HTP_STATUS_INVAL_PARAMS, "mdev_idx 2 of mdev_count 2");
    fixture_request(f);
    f->req->mdev_count = HTP_MAX_MDEV + 1;
    expect(f, HTP_STATUS_INVAL_PARAMS, "expected 0 <= mdev_idx < mdev_count <= 16");
    fixture_request(f);
    f->req->off_op_rsp = 4064; /* the op's response would end past the block */
    expect(f, HTP_STATUS_INVAL_PARAMS, "the op response area");
    fixture_request(f);
    f->req->off_op_rsp = 0; /* written over the header, its response included */
    expect(f, HTP_STATUS_INVAL_PARAMS, "overlaps the");
}

static void test_bad_tensors(void **state) {
    struct fixture *f = *state;
    fixture_request(f);
    f->tensors[1].offset = 4096 - 8; /* b runs past the data buffer */
    expect(f, HTP_STATUS_INVAL_PARAMS, "ends at byte");
    fixture_request(f);
    f->tensors[0].type = 4; /* a removed GGML type */
    expect(f, HTP_STATUS_INVAL_PARAMS, "bad index, buffer or type");
    fixture_request(f);
    f->op->src[1] = 7; /* no tensor 7 */
    expect(f, HTP_STATUS_INVAL_PARAMS, "bad index");
    fixture_request(f);
    f->op->src[1] = HTP_NO_TENSOR;
    expect(f, HTP_STATUS_INVAL_PARAMS, "missing src 1");
    fixture_request(f);
    f->bufs[0].flags = HTP_BUF_UNMAP; /* a buffer being freed holds no tensor */
    expect(f, HTP_STATUS_INVAL_PARAMS, "bad index, buffer or type");
    fixture_request(f);
    f->bufs[0].size = f->data->size * 2; /* not a buffer of that size */
    expect(f, HTP_STATUS_INVAL_PARAMS, "cannot map buffer 0");
}

static void test_bad_ops(void **state) {
    struct fixture *f = *state;
    fixture_request(f);
    f->op->opcode = HTP_OP_COUNT + 7;
    expect(f, HTP_STATUS_NO_SUPPORT, "op 0 (?): unknown opcode");
    fixture_request(f);
    ((struct binary_kparams *) f->op->kparams)->plan.n_threads = 3; /* the session has 2 */
    expect(f, HTP_STATUS_INVAL_PARAMS, "op 0 (ADD): kernel_params");
    fixture_request(f);
    ((struct binary_kparams *) f->op->kparams)->plan.block = 1u << 20; /* 2 x 2^20 rows x 3 buffers of VTCM */
    expect(f, HTP_STATUS_VTCM_TOO_SMALL, "VTCM layout");
    fixture_request(f);
    f->tensors[1].ne[0] = 3; /* b no longer broadcasts onto a */
    f->tensors[1].nb[1] = f->tensors[1].nb[2] = f->tensors[1].nb[3] = 12;
    expect(f, HTP_STATUS_INVAL_PARAMS, "shapes");
}

/* The fixture's request as dst[0] = dot(a, b): MUL_MAT of the F32 weight a [N_ELEM, 1] by the column b, its
 * kernel_params as the host fills them (htp-prep-matmul.c). */
static void fixture_matmul(struct fixture *f) {
    fixture_request(f);
    f->op->opcode = HTP_OP_MUL_MAT;
    f->tensors[2].ne[0] = 1;
    f->tensors[2].nb[1] = f->tensors[2].nb[2] = f->tensors[2].nb[3] = 4;
    struct matmul_kparams *kp = (struct matmul_kparams *) f->op->kparams;
    memset(kp, 0, sizeof(*kp));
    kp->plan = (struct matmul_plan){.path = MATMUL_PATH_F32,
                                    .n_threads = 1,
                                    .n_act_threads = 1,
                                    .n_prefetch = 1,
                                    .wrow_size = MATMUL_TILE_ROWS * act_f32_row_size(N_ELEM),
                                    .act_row_size = act_f32_row_size(N_ELEM),
                                    .stage_size = act_f32_row_size(N_ELEM),
                                    .n_col_tiles = 1};
    kp->cols_chunk = kp->n_cols = kp->group_cols = 1;
    matmul_kparams_set_divs(kp, 1, 1, 1, 1, 1);
}

/* The fastdiv values the kernel addresses memory with are checked against their divisors once per op. */
static void test_matmul_fastdiv(void **state) {
    struct fixture *f = *state;
    fixture_matmul(f);
    assert_int_equal(send(f), HTP_STATUS_OK);
    assert_float_equal(((const float *) f->data->host)[256], 0.5f * N_ELEM * (N_ELEM - 1) / 2, 0.0f);
    fixture_matmul(f);
    ((struct matmul_kparams *) f->op->kparams)->div_group_cols.m = 7; /* group -> weight matrix, dst rows */
    expect(f, HTP_STATUS_INVAL_PARAMS, "op 0 (MUL_MAT): kernel_params");
    fixture_matmul(f);
    ((struct matmul_kparams *) f->op->kparams)->plan.div_ne11.s2 = 3; /* column -> src1 row */
    expect(f, HTP_STATUS_INVAL_PARAMS, "op 0 (MUL_MAT): kernel_params");
    fixture_matmul(f);
    ((struct matmul_kparams *) f->op->kparams)->plan.div_n_threads = fastdiv_init(2); /* the jobs' split */
    expect(f, HTP_STATUS_INVAL_PARAMS, "op 0 (MUL_MAT): kernel_params");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_add),
        cmocka_unit_test(test_bad_header),
        cmocka_unit_test(test_bad_tensors),
        cmocka_unit_test(test_bad_ops),
        cmocka_unit_test(test_matmul_fastdiv),
        cmocka_unit_test(test_add), /* the session still serves */
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
