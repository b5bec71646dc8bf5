/*
 * The NPU library (src/htp) against requests a wrong or hostile host can send a session (src/htp/htp-checked.h has
 * the rules): each must fail its op with a status and a message, touch nothing outside its buffers, and leave the
 * session serving.
 *   - Tensor descriptors whose extents wrap 64 bits (a flat view, and a tiled matrix count), more rows than the
 *     kernels' 32-bit counts, more ops than a request may carry, kernel_params whose fastdiv values are not their
 *     shapes' (GET_ROWS, SET_ROWS, ADD; each of ROPE's and SOFT_MAX's, named in the message).
 *   - Values changed by a second host thread while the op runs: a MUL_MAT_ID id (HVX and HMX paths), SET_ROWS and
 *     GET_ROWS indices, a tensor descriptor's stride. Each round the answer must be consistent with one read of the
 *     value: the op computes what the good value asks for, or fails naming the bad one; many rounds, and the test
 *     requires rounds of both kinds, so that the flips really land inside ops.
 *   - A plan that keeps more DMA descriptors in flight than a queue holds (ADD with src1 expanded row by row, 300
 *     rows per block): HTP_STATUS_DMA_FULL naming the queue and its depth.
 * Requests are raw blocks (as tests/htp/test-htp-request.c), their kernel_params planned by the host's op families
 * (src/host) where a real plan exists, then broken as a host could.
 */
#include "test-common.h"

#include "binary-ops.h"
#include "flash-attn-ops.h"
#include "get-rows-ops.h"
#include "hmx-mm-id.h"
#include "htp-device-impl.h"
#include "htp-msg.h"
#include "matmul-id-ops.h"
#include "matmul-ops.h"
#include "rope-ops.h"
#include "set-rows-ops.h"
#include "softmax-ops.h"
#include "vdsp-device.h"
#include "vdsp.h"

#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BLOCK     (1u << 19) /* the request block: room for HTP_MAX_OPS + 1 op descriptors */
#define DATA      (8u << 20)
#define N_THREADS 2
#define POISON    0xFF /* dst bytes before a run: NaN in F32 */

#define FLIP_MAX 16

/* A host thread flipping n values of width bytes (4 or 8), stride values apart from p, between good[] and bad until
 * stopped. */
struct flipper {
    pthread_t thread;
    uint8_t *p;
    uint32_t n, width, stride;
    int64_t good[FLIP_MAX], bad;
    atomic_bool stop;
    bool running; /* between flip_start and flip_stop (teardown stops it after a failed assertion) */
};

struct fixture {
    struct vdsp_session *s;
    struct vdsp_buffer *block, *data;
    struct flipper fl;
};

static void flip_stop(struct flipper *fl);

static int setup(void **state) {
    static struct fixture f;
    memset(&f, 0, sizeof(f));
    const struct vdsp_session_params p = {.arch = VDSP_ARCH_V79, .n_threads = N_THREADS};
    assert_int_equal(vdsp_session_open(&p, &f.s), VNPU_STATUS_OK);
    assert_int_equal(vdsp_buffer_alloc(BLOCK, "test-request", &f.block), VNPU_STATUS_OK);
    assert_int_equal(vdsp_buffer_alloc(DATA, "test-data", &f.data), VNPU_STATUS_OK);
    *state = &f;
    return 0;
}

static int teardown(void **state) {
    struct fixture *f = *state;
    if (f->fl.running) {
        flip_stop(&f->fl);
    }
    vdsp_session_close(f->s);
    vdsp_buffer_free(f->block);
    vdsp_buffer_free(f->data);
    return 0;
}

/* ---- requests ---- */

struct req {
    struct htp_req *hdr;
    struct htp_tensor_desc *tensors; /* 0 .. n_src - 1 the sources, n_src the dst */
    struct htp_op_desc *op;
};

/* A request of one op over buffer 0 (f->data) with n_src sources; descriptors and kernel_params zero. */
static struct req req_begin(struct fixture *f, enum htp_op opcode, uint32_t n_src) {
    uint8_t *base = f->block->host;
    memset(base, 0, 8192);
    struct req r = {(struct htp_req *) base, (struct htp_tensor_desc *) (base + 1536),
                    (struct htp_op_desc *) (base + 4096)};
    *r.hdr = (struct htp_req){.version = HTP_MSG_VERSION,
                              .mdev_count = 1,
                              .id = 1,
                              .n_bufs = 1,
                              .n_tensors = n_src + 1,
                              .n_ops = 1,
                              .off_bufs = 1024,
                              .off_tensors = 1536,
                              .off_ops = 4096,
                              .off_op_rsp = BLOCK / 2};
    struct htp_buf_desc *bufs = (struct htp_buf_desc *) (base + r.hdr->off_bufs);
    bufs[0] = (struct htp_buf_desc){.fd = f->data->fd, .flags = HTP_BUF_PINNED, .size = f->data->size};
    r.op->opcode = opcode;
    for (uint32_t j = 0; j < HTP_MAX_SRC; j++) {
        r.op->src[j] = j < n_src ? (uint16_t) j : HTP_NO_TENSOR;
    }
    r.op->dst[0] = (uint16_t) n_src;
    r.op->dst[1] = HTP_NO_TENSOR;
    return r;
}

/* A request of node's op: its sources node->src[0..n_src) and node itself at data offsets off[], kernel_params planned
 * by the host's family for a v79 device of N_THREADS threads whose VNPU_MM_PATH is mm_path. */
static struct req req_plan(struct fixture *f, const struct htp_op_family *family, enum htp_op opcode,
                           const struct vnpu_tensor *node, uint32_t n_src, const uint32_t off[],
                           enum htp_mm_path mm_path) {
    struct req r = req_begin(f, opcode, n_src);
    for (uint32_t i = 0; i <= n_src; i++) {
        const struct vnpu_tensor *t = i < n_src ? node->src[i] : node;
        struct htp_tensor_desc *d = &r.tensors[i];
        d->offset = off[i];
        d->type = (uint32_t) t->type;
        for (int k = 0; k < HTP_MAX_DIMS; k++) {
            d->ne[k] = (uint32_t) t->ne[k];
            d->nb[k] = (uint32_t) t->nb[k];
        }
    }
    const struct htp_config cfg = {.mm_path = mm_path};
    struct htp_device d;
    memset(&d, 0, sizeof(d));
    d.n_threads = N_THREADS;
    d.cfg = &cfg;
    assert_true(vdsp_target_get(VDSP_ARCH_V79, &d.target));
    const struct vnpu_tensor *src[HTP_MAX_SRC] = {NULL}, *dst[HTP_MAX_DST] = {NULL};
    htp_family_prep(family, &d, node, NULL, opcode, r.op, src, dst);
    return r;
}

/* Send the request; the session must answer and stay healthy. The request's status. */
static uint32_t call(struct fixture *f) {
    assert_int_equal(vdsp_session_call(f->s, f->block, 0, BLOCK), VNPU_STATUS_OK);
    assert_false(vdsp_session_faulted(f->s));
    return ((const struct htp_req *) f->block->host)->rsp.status;
}

static const char *message(const struct fixture *f) {
    return ((const struct htp_req *) f->block->host)->rsp.message;
}

static void expect(struct fixture *f, uint32_t status, const char *text) {
    assert_int_equal(call(f), status);
    if (!strstr(message(f), text)) {
        fail_msg("message '%s' lacks '%s'", message(f), text);
    }
}

static float *data_f32(const struct fixture *f, uint32_t off) {
    return (float *) ((uint8_t *) f->data->host + off);
}

/* bytes at off all POISON: nothing was written there. */
static bool untouched(const struct fixture *f, uint32_t off, size_t bytes) {
    const uint8_t *p = (const uint8_t *) f->data->host + off;
    for (size_t i = 0; i < bytes; i++) {
        if (p[i] != POISON) {
            return false;
        }
    }
    return true;
}

/* ---- extents and counts ---- */

/* An ADD whose three tensors are [1, 2^32 - 1, 7, 1] with nb [4, 2^32 - 1, 2^31, 2^31]: (2^32 - 2)(2^32 - 1) + 6 x
 * 2^31 = 2^64 + 2, so the extent wraps to 6 bytes. A check in 64 bits without overflow took it, and the kernel,
 * planned for the rows the 32-bit count gives, streamed row 1 from 4 GiB past the tensor. */
static void test_extent_wraps(void **state) {
    struct fixture *f = *state;
    struct req r = req_begin(f, HTP_OP_ADD, 2);
    for (uint32_t i = 0; i < 3; i++) {
        r.tensors[i] = (struct htp_tensor_desc){.offset = 4096 * i,
                                                .type = HTP_TYPE_F32,
                                                .ne = {1, UINT32_MAX, 7, 1},
                                                .nb = {4, UINT32_MAX, 1u << 31, 1u << 31}};
    }
    const uint32_t rows = UINT32_MAX * 7u; /* ne1 ne2 ne3 in 32 bits */
    struct binary_kparams *kp = (struct binary_kparams *) r.op->kparams;
    kp->plan = (struct row_plan){
        .n_threads = 1, .rows_per_thread = rows, .block = 1, .src1_mode = ROW_SRC1_STREAM, .n_dst = 1};
    kp->plan.div_ne1 = fastdiv_init(UINT32_MAX);
    kp->plan.div_ne12 = fastdiv_init(rows);
    kp->plan.div_src1[0] = fastdiv_init(UINT32_MAX);
    kp->plan.div_src1[1] = fastdiv_init(7);
    kp->plan.div_src1[2] = fastdiv_init(1);
    expect(f, HTP_STATUS_INVAL_PARAMS,
           "op 0 (ADD): tensor 0: its extent (the sum of (ne[i] - 1) x nb[i]) overflows 64 bits");
}

/* A tiled Q4_0 table [2^31, 2^31, 64, 1]: a matrix is 2^26 x 2^26 tiles of 576 bytes, 2^58 x 9, and 64 of them are
 * 2^64 x 9 bytes, which wraps to 0: the table seemed to end where it starts. */
static void test_tiled_size_wraps(void **state) {
    struct fixture *f = *state;
    struct req r = req_begin(f, HTP_OP_GET_ROWS, 2);
    r.tensors[0] = (struct htp_tensor_desc){.type = HTP_TYPE_Q4_0,
                                            .flags = HTP_TENSOR_TILED,
                                            .ne = {1u << 31, 1u << 31, 64, 1},
                                            .nb = {18, (1u << 26) * 18, 0, 0}};
    r.tensors[1] =
        (struct htp_tensor_desc){.offset = 4096, .type = HTP_TYPE_I32, .ne = {1, 1, 1, 1}, .nb = {4, 4, 4, 4}};
    r.tensors[2] =
        (struct htp_tensor_desc){.offset = 8192, .type = HTP_TYPE_F32, .ne = {1u << 31, 1, 1, 1}, .nb = {4, 0, 0, 0}};
    expect(f, HTP_STATUS_INVAL_PARAMS,
           "op 0 (GET_ROWS): tensor 0: its tiled size (matrix bytes x ne2 x ne3) overflows 64 bits");
}

/* [1, 2^16, 2^16, 2] with zero strides: 4 bytes, but 2^33 rows, which the kernels' 32-bit counts took for 0 (the ADD
 * answered OK having computed nothing). */
static void test_rows_past_32_bits(void **state) {
    struct fixture *f = *state;
    struct req r = req_begin(f, HTP_OP_ADD, 2);
    for (uint32_t i = 0; i < 3; i++) {
        r.tensors[i] = (struct htp_tensor_desc){
            .offset = 4096 * i, .type = HTP_TYPE_F32, .ne = {1, 1u << 16, 1u << 16, 2}, .nb = {4, 0, 0, 0}};
    }
    struct binary_kparams *kp = (struct binary_kparams *) r.op->kparams;
    kp->plan =
        (struct row_plan){.n_threads = 1, .rows_per_thread = 1, .block = 1, .src1_mode = ROW_SRC1_STREAM, .n_dst = 1};
    kp->plan.div_ne1 = fastdiv_init(1u << 16);
    kp->plan.div_ne12 = fastdiv_init(0);
    kp->plan.div_src1[0] = fastdiv_init(1u << 16);
    kp->plan.div_src1[1] = fastdiv_init(1u << 16);
    kp->plan.div_src1[2] = fastdiv_init(2);
    expect(f, HTP_STATUS_INVAL_PARAMS,
           "op 0 (ADD): tensor 0: ne1 x ne2 x ne3 is more than 4294967295 rows (kernels count rows in 32 bits)");
}

/* One op more than a request carries, in a block that has room for all of them. */
static void test_too_many_ops(void **state) {
    struct fixture *f = *state;
    struct req r = req_begin(f, HTP_OP_ADD, 2);
    r.hdr->n_ops = HTP_MAX_OPS + 1;
    assert_true(r.hdr->off_ops + (HTP_MAX_OPS + 1) * sizeof(struct htp_op_desc) <= BLOCK);
    assert_int_equal(call(f), HTP_STATUS_INVAL_PARAMS);
    assert_string_equal(message(f), "request layout: n_ops = 1025, at most 1024");
}

/* kernel_params whose fastdiv values are not their shape's: the kernels unravel flat rows and index positions with
 * them, so a wrong one (here: dividing by 1 instead of by ne1 = 4) put a row's i1 at 2^32 - 3 r and its address far
 * outside the tensor. GET_ROWS and SET_ROWS (the copy stream, SET_ROWS' index modulos), ADD (the row stream) and
 * FLASH_ATTN_EXT (its query rows and K/V heads). */
static void test_fastdiv_not_the_shapes(void **state) {
    struct fixture *f = *state;
    struct vnpu_ctx *ctx = vnpu_ctx_new(1 << 16, true);
    struct vnpu_tensor *table = vnpu_new_tensor_3d(ctx, VNPU_TYPE_F32, 64, 16, 3);
    struct vnpu_tensor *ids = vnpu_new_tensor_2d(ctx, VNPU_TYPE_I32, 4, 3);
    struct vnpu_tensor *got = vnpu_get_rows(ctx, table, ids);
    const uint32_t off[3] = {0, 1u << 16, 1u << 17};
    struct req r = req_plan(f, &htp_family_get_rows, HTP_OP_GET_ROWS, got, 2, off, HTP_MM_PATH_AUTO);
    memset(data_f32(f, off[1]), 0, 4 * 3 * 4); /* every index row 0 */
    assert_int_equal(call(f), HTP_STATUS_OK);
    ((struct get_rows_kparams *) r.op->kparams)->plan.div_ne1 = fastdiv_init(1);
    expect(f, HTP_STATUS_INVAL_PARAMS, "op 0 (GET_ROWS): kernel_params div_ne1 are not the fastdiv values of ne1 = 4");

    struct vnpu_tensor *to = vnpu_new_tensor_3d(ctx, VNPU_TYPE_F32, 64, 16, 3);
    struct vnpu_tensor *rows = vnpu_new_tensor_3d(ctx, VNPU_TYPE_F32, 64, 4, 3);
    struct vnpu_tensor *set = vnpu_set_rows(ctx, to, rows, ids);
    r = req_plan(f, &htp_family_set_rows, HTP_OP_SET_ROWS, set, 2, off, HTP_MM_PATH_AUTO);
    assert_int_equal(call(f), HTP_STATUS_OK);
    ((struct set_rows_kparams *) r.op->kparams)->div_ne11 = fastdiv_init(1);
    expect(f, HTP_STATUS_INVAL_PARAMS,
           "op 0 (SET_ROWS): kernel_params div_ne11 are not the fastdiv values of the indices' ne1 = 3");

    struct vnpu_tensor *sum = vnpu_add(ctx, table, table);
    r = req_plan(f, &htp_family_binary, HTP_OP_ADD, sum, 2, (const uint32_t[3]){0, 0, 1u << 17}, HTP_MM_PATH_AUTO);
    assert_int_equal(call(f), HTP_STATUS_OK);
    ((struct binary_kparams *) r.op->kparams)->plan.div_ne1 = fastdiv_init(1);
    expect(f, HTP_STATUS_INVAL_PARAMS, "op 0 (ADD): kernel_params div_ne1 are not the fastdiv values of ne1 = 16");

    /* FLASH_ATTN_EXT: 8 query heads over 2 K/V heads; a GQA ratio of 1 put query head 7 on K/V head 7 of 2. */
    struct vnpu_tensor *q = vnpu_new_tensor_3d(ctx, VNPU_TYPE_F32, 64, 4, 8);
    struct vnpu_tensor *k = vnpu_new_tensor_3d(ctx, VNPU_TYPE_F16, 64, 32, 2);
    struct vnpu_tensor *v = vnpu_new_tensor_3d(ctx, VNPU_TYPE_F16, 64, 32, 2);
    struct vnpu_tensor *mask = vnpu_new_tensor_2d(ctx, VNPU_TYPE_F16, 32, 4);
    struct vnpu_tensor *fa = vnpu_flash_attn_ext(ctx, q, k, v, mask, 0.125f, 0.0f, 0.0f);
    const uint32_t fa_off[5] = {0, 1u << 16, 1u << 17, 3u << 16, 1u << 18};
    memset(f->data->host, 0, 5u << 16);
    r = req_plan(f, &htp_family_flash_attn, HTP_OP_FLASH_ATTN_EXT, fa, 4, fa_off, HTP_MM_PATH_AUTO);
    assert_int_equal(call(f), HTP_STATUS_OK);
    ((struct flash_attn_kparams *) r.op->kparams)->div_gqa = fastdiv_init(1);
    expect(
        f, HTP_STATUS_INVAL_PARAMS,
        "op 0 (FLASH_ATTN_EXT): kernel_params div_gqa are not the fastdiv values of the GQA ratio q ne2 / k ne2 = 4");
    vnpu_ctx_free(ctx);
}

/* One fastdiv value of a real request's kernel_params (at byte off) replaced by a wrong divisor's. */
struct fastdiv_break {
    size_t off;
    uint32_t wrong;   /* the divisor whose values replace the right ones */
    const char *text; /* the message */
};

/* Plan node's op (sources at off[0], off[1], dst at off[2]), run it as planned (OK), then with each value of brk[]
 * broken in turn: the op fails naming the value, and dst is untouched. */
static void fastdiv_breaks(struct fixture *f, const struct htp_op_family *family, enum htp_op opcode,
                           const struct vnpu_tensor *node, const uint32_t off[3], const struct fastdiv_break *brk,
                           size_t n) {
    struct req r = req_plan(f, family, opcode, node, 2, off, HTP_MM_PATH_AUTO);
    assert_int_equal(call(f), HTP_STATUS_OK);
    uint8_t planned[HTP_MAX_KPARAMS * sizeof(uint32_t)];
    memcpy(planned, r.op->kparams, sizeof(planned));
    const size_t dst_bytes = (size_t) vnpu_nbytes(node);
    for (size_t i = 0; i < n; i++) {
        memcpy(r.op->kparams, planned, sizeof(planned));
        const struct fastdiv_values bad = fastdiv_init(brk[i].wrong);
        memcpy((uint8_t *) r.op->kparams + brk[i].off, &bad, sizeof(bad));
        memset((uint8_t *) f->data->host + off[2], POISON, dst_bytes);
        expect(f, HTP_STATUS_INVAL_PARAMS, brk[i].text);
        assert_true(untouched(f, off[2], dst_bytes));
    }
}

/* ROPE's and SOFT_MAX's fastdiv values, each replaced by another divisor's: the flat rows unravel with them (a row's
 * i1 at 2^32 - 3 r when ne1 = 4 is divided by 1), and SOFT_MAX's mask rows broadcast with them (its i2 % 3 taken as
 * i2 % 1 reached mask rows past its ne2); unchecked, the rows' DMA read and wrote outside the tensors. */
static void test_fastdiv_rope_softmax(void **state) {
    struct fixture *f = *state;
    struct vnpu_ctx *ctx = vnpu_ctx_new(1 << 16, true);
    const uint32_t off[3] = {0, 1u << 16, 1u << 17};
    memset(f->data->host, 0, 1u << 17); /* positions 0, mask 0 */

    struct vnpu_tensor *x = vnpu_new_tensor_3d(ctx, VNPU_TYPE_F32, 64, 4, 3);
    struct vnpu_tensor *pos = vnpu_new_tensor_1d(ctx, VNPU_TYPE_I32, 3);
    struct vnpu_tensor *rope =
        vnpu_rope_ext(ctx, x, pos, NULL, 64, VNPU_ROPE_TYPE_NEOX, 4096, 10000.0f, 1.0f, 0.0f, 1.0f, 32.0f, 1.0f);
    const struct fastdiv_break rope_brk[] = {
        {offsetof(struct rope_kparams, div_ne1), 1,
         "op 0 (ROPE): kernel_params div_ne1 are not the fastdiv values of ne1 = 4"},
        {offsetof(struct rope_kparams, div_ne12), 4,
         "op 0 (ROPE): kernel_params div_ne12 are not the fastdiv values of ne1 x ne2 = 12"},
    };
    fastdiv_breaks(f, &htp_family_rope, HTP_OP_ROPE, rope, off, rope_brk, sizeof(rope_brk) / sizeof(rope_brk[0]));

    struct vnpu_tensor *s = vnpu_new_tensor_4d(ctx, VNPU_TYPE_F32, 64, 4, 6, 2);
    struct vnpu_tensor *mask = vnpu_new_tensor_3d(ctx, VNPU_TYPE_F32, 64, 4, 3);
    struct vnpu_tensor *soft = vnpu_soft_max_ext(ctx, s, mask, 0.125f, 0.0f);
    const struct fastdiv_break soft_brk[] = {
        {offsetof(struct softmax_kparams, div_ne01), 1,
         "op 0 (SOFT_MAX): kernel_params div_ne01 are not the fastdiv values of ne01 = 4"},
        {offsetof(struct softmax_kparams, div_ne0102), 4,
         "op 0 (SOFT_MAX): kernel_params div_ne0102 are not the fastdiv values of ne01 x ne02 = 24"},
        {offsetof(struct softmax_kparams, div_mask_ne2), 1,
         "op 0 (SOFT_MAX): kernel_params div_mask_ne2 are not the fastdiv values of the mask's ne2 (1 without one) = "
         "3"},
        {offsetof(struct softmax_kparams, div_mask_ne3), 2,
         "op 0 (SOFT_MAX): kernel_params div_mask_ne3 are not the fastdiv values of the mask's ne3 (1 without one) = "
         "1"},
    };
    fastdiv_breaks(f, &htp_family_softmax, HTP_OP_SOFT_MAX, soft, off, soft_brk,
                   sizeof(soft_brk) / sizeof(soft_brk[0]));
    vnpu_ctx_free(ctx);
}

/* MUL_MAT's fastdiv values (HVX path: 6 columns per group, too few for HMX), each replaced by another divisor's:
 * the columns unravel into src1 rows and weight matrices with them, and the jobs split over the workers. Weights
 * [64, 32, 2, 1], activations [64, 3, 4, 2]: ne11 = 3, group_cols = 3 x 4 / 2 = 6, r3 = 2; one worker. */
static void test_fastdiv_matmul(void **state) {
    struct fixture *f = *state;
    struct vnpu_ctx *ctx = vnpu_ctx_new(1 << 16, true);
    const uint32_t off[3] = {0, 1u << 16, 1u << 17};
    memset(f->data->host, 0, 1u << 17);
    struct vnpu_tensor *w = vnpu_new_tensor_3d(ctx, VNPU_TYPE_F32, 64, 32, 2);
    struct vnpu_tensor *x = vnpu_new_tensor_4d(ctx, VNPU_TYPE_F32, 64, 3, 4, 2);
    struct vnpu_tensor *mm = vnpu_mul_mat(ctx, w, x);
    const size_t plan = offsetof(struct matmul_kparams, plan);
    const struct fastdiv_break brk[] = {
        {plan + offsetof(struct matmul_plan, div_ne11), 1,
         "op 0 (MUL_MAT): kernel_params div_ne11 are not the fastdiv values of ne11 = 3"},
        {plan + offsetof(struct matmul_plan, div_ne11_ne12), 4,
         "op 0 (MUL_MAT): kernel_params div_ne11_ne12 are not the fastdiv values of ne11 x ne12 = 12"},
        {plan + offsetof(struct matmul_plan, div_n_threads), 2,
         "op 0 (MUL_MAT): kernel_params div_n_threads are not the fastdiv values of n_threads = 1"},
        {plan + offsetof(struct matmul_plan, div_n_act_threads), 2,
         "op 0 (MUL_MAT): kernel_params div_n_act_threads are not the fastdiv values of n_act_threads = 1"},
        {offsetof(struct matmul_kparams, div_group_cols), 1,
         "op 0 (MUL_MAT): kernel_params div_group_cols are not the fastdiv values of group_cols = 6"},
        {offsetof(struct matmul_kparams, div_ne02), 1,
         "op 0 (MUL_MAT): kernel_params div_ne02 are not the fastdiv values of ne02 = 2"},
        {offsetof(struct matmul_kparams, div_r3), 1,
         "op 0 (MUL_MAT): kernel_params div_r3 are not the fastdiv values of ne13 / ne03 = 2"},
    };
    fastdiv_breaks(f, &htp_family_matmul, HTP_OP_MUL_MAT, mm, off, brk, sizeof(brk) / sizeof(brk[0]));
    vnpu_ctx_free(ctx);
}

/* ---- values flipped while the op runs ---- */

static void flip_store(const struct flipper *fl, uint32_t i, int64_t v) {
    uint8_t *p = fl->p + (size_t) i * fl->stride * fl->width;
    if (fl->width == 8) {
        __atomic_store_n((int64_t *) p, v, __ATOMIC_RELAXED);
    } else {
        __atomic_store_n((int32_t *) p, (int32_t) v, __ATOMIC_RELAXED);
    }
}

static void flip_hold(void) {
    for (volatile int i = 0; i < 200; i++) {
    }
}

static void *flip_main(void *arg) {
    struct flipper *fl = arg;
    while (!atomic_load_explicit(&fl->stop, memory_order_relaxed)) {
        for (uint32_t i = 0; i < fl->n; i++) {
            flip_store(fl, i, fl->bad);
        }
        flip_hold();
        for (uint32_t i = 0; i < fl->n; i++) {
            flip_store(fl, i, fl->good[i]);
        }
        flip_hold();
    }
    for (uint32_t i = 0; i < fl->n; i++) {
        flip_store(fl, i, fl->good[i]);
    }
    return NULL;
}

/* Start flipping the n values stride apart from p (their current contents are the good ones) to bad and back. */
static void flip_start(struct flipper *fl, void *p, uint32_t n, uint32_t stride, uint32_t width, int64_t bad) {
    assert_true(n <= FLIP_MAX);
    fl->p = p;
    fl->n = n;
    fl->stride = stride;
    fl->width = width;
    fl->bad = bad;
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *v = fl->p + (size_t) i * stride * width;
        int32_t v32;
        memcpy(&v32, v, 4);
        fl->good[i] = v32;
        if (width == 8) {
            memcpy(&fl->good[i], v, 8);
        }
    }
    atomic_store(&fl->stop, false);
    assert_int_equal(pthread_create(&fl->thread, NULL, flip_main, fl), 0);
    fl->running = true;
}

static void flip_stop(struct flipper *fl) {
    atomic_store(&fl->stop, true);
    assert_int_equal(pthread_join(fl->thread, NULL), 0);
    fl->running = false;
}

/* Rounds of a race: at least RACE_MIN_ROUNDS, then until RACE_MIN_EACH answers of each kind, at most RACE_MAX_ROUNDS;
 * a race without both kinds never flipped inside an op and proves nothing. */
#define RACE_MIN_ROUNDS 200
#define RACE_MIN_EACH   5
#define RACE_MAX_ROUNDS 2000

static bool race_more(uint32_t round, uint32_t ok, uint32_t failed) {
    const bool more = ok < RACE_MIN_EACH || failed < RACE_MIN_EACH;
    if (more && round >= RACE_MIN_ROUNDS) {
        /* one kind is missing: on a loaded machine the flipper may not have run between the rounds at all (an ADD
         * descriptor race saw 2000 rounds and no flip while make test kept both cores busy); give it the CPU */
        nanosleep(&(struct timespec){0, 50 * 1000}, NULL);
    }
    return round < RACE_MIN_ROUNDS || (more && round < RACE_MAX_ROUNDS);
}

static void race_exercised(const char *what, uint32_t ok, uint32_t failed) {
    print_message("%s: %u rounds computed, %u failed on the flipped value\n", what, ok, failed);
    if (ok == 0 || failed == 0) {
        fail_msg("%s: the flips never landed inside an op (%u ok, %u failed)", what, ok, failed);
    }
}

#define MMID_K    64
#define MMID_M    64
#define MMID_E    4 /* experts */
#define MMID_USED 2 /* per token */
#define MMID_T    48
#define MMID_BAD  (1 << 28)

/* MUL_MAT_ID on path, one token per chunk so that the op routes 48 times, while a host thread flips the last token's
 * second id between its expert and 2^28 (far past rt->next[], which the old routing indexed with the id it re-read
 * after checking it). */
static void mmid_race(struct fixture *f, enum htp_mm_path path) {
    struct vnpu_ctx *ctx = vnpu_ctx_new(1 << 16, true);
    struct vnpu_tensor *w = vnpu_new_tensor_3d(ctx, VNPU_TYPE_F32, MMID_K, MMID_M, MMID_E);
    struct vnpu_tensor *x = vnpu_new_tensor_3d(ctx, VNPU_TYPE_F32, MMID_K, 1, MMID_T);
    struct vnpu_tensor *ids = vnpu_new_tensor_2d(ctx, VNPU_TYPE_I32, MMID_USED, MMID_T);
    struct vnpu_tensor *node = vnpu_mul_mat_id(ctx, w, x, ids);
    const uint32_t off[4] = {0, 1u << 16, 1u << 17, 1u << 18}, dst_bytes = MMID_M * MMID_USED * MMID_T * 4;
    struct req r = req_plan(f, &htp_family_matmul_id, HTP_OP_MUL_MAT_ID, node, 3, off, path);
    struct matmul_id_kparams *kp = (struct matmul_id_kparams *) r.op->kparams;
    assert_true((kp->plan.path == MATMUL_PATH_HMX) == (path == HTP_MM_PATH_HMX));
    kp->tokens_chunk = 1;
    kp->cols_chunk = 1;
    kp->pairs_chunk = MMID_USED;
    struct test_rng rng;
    test_rng_seed(&rng, "mmid_race");
    test_rng_fill_normal(&rng, data_f32(f, off[0]), MMID_K * MMID_M * MMID_E, 1.0f);
    test_rng_fill_normal(&rng, data_f32(f, off[1]), MMID_K * MMID_T, 1.0f);
    int32_t *id = (int32_t *) data_f32(f, off[2]);
    for (int t = 0; t < MMID_T; t++) {
        id[t * MMID_USED] = t % MMID_E;
        id[t * MMID_USED + 1] = (t + 1 + t / MMID_E) % MMID_E;
    }
    memset(data_f32(f, off[3]), POISON, dst_bytes + 4096);
    assert_int_equal(call(f), HTP_STATUS_OK);
    float *want = malloc(dst_bytes);
    memcpy(want, data_f32(f, off[3]), dst_bytes);
    assert_true(untouched(f, off[3] + dst_bytes, 4096));

    char bad_text[128];
    snprintf(bad_text, sizeof(bad_text), "op 0 (MUL_MAT_ID): expert id %d at [1, %d, 0] outside [0, n_expert = %d)",
             MMID_BAD, MMID_T - 1, MMID_E);
    struct flipper *fl = &f->fl;
    flip_start(fl, &id[MMID_T * MMID_USED - 1], 1, 1, 4, MMID_BAD);
    uint32_t ok = 0, failed = 0;
    for (uint32_t round = 0; race_more(round, ok, failed); round++) {
        memset(data_f32(f, off[3]), POISON, dst_bytes);
        const uint32_t st = call(f);
        if (st == HTP_STATUS_OK) {
            ok++;
            assert_memory_equal(data_f32(f, off[3]), want, dst_bytes);
        } else {
            failed++;
            assert_int_equal(st, HTP_STATUS_INVAL_PARAMS);
            assert_string_equal(message(f), bad_text);
        }
        assert_true(untouched(f, off[3] + dst_bytes, 4096));
    }
    flip_stop(fl);
    race_exercised(path == HTP_MM_PATH_HMX ? "MUL_MAT_ID (HMX)" : "MUL_MAT_ID (HVX)", ok, failed);
    free(want);
    vnpu_ctx_free(ctx);
}

static void test_mul_mat_id_ids_flipped(void **state) {
    mmid_race(*state, HTP_MM_PATH_HVX);
    mmid_race(*state, HTP_MM_PATH_HMX);
}

#define ROWS_NE0        64
#define ROWS_N          4096 /* indices: an op long enough for the flipper to run during it on a loaded host */
#define ROWS_NE1        8192 /* rows of the table (GET_ROWS) or of the destination (SET_ROWS) */
#define ROWS_FLIP_EVERY (ROWS_N / FLIP_MAX) /* indices ROWS_FLIP_EVERY / 2 + k ROWS_FLIP_EVERY flip */

/* Whether index i is one the flipper changes. */
static bool flipped(int i) {
    return i % ROWS_FLIP_EVERY == ROWS_FLIP_EVERY / 2;
}

/* A GET_ROWS or SET_ROWS race: the op already in the block, its dst of n_dst rows at dst_off, and per dst row r the
 * source row that belongs there (-1: none) and whether that depends on a flipped index. */
struct rows_race {
    const char *what; /* the op's name */
    uint32_t dst_off, n_dst;
    const float *src;  /* the source rows */
    int64_t bad;       /* the flipped value */
    const char *limit; /* the end of the message, "] outside [0, ne01 = 8192)" */
    int (*src_row)(int r);
    bool (*flips)(int r);
};

/* Run the race: each answer either computed (every dst row holds its source row) or failed naming the flipped value,
 * its rows whose index flipped holding their source row or nothing; rows without a source, and the 4 KiB after dst,
 * never written. */
static void rows_race_run(struct fixture *f, const struct rows_race *rr) {
    char bad_text[64];
    snprintf(bad_text, sizeof(bad_text), "op 0 (%s): row index %lld at [", rr->what, (long long) rr->bad);
    const uint32_t dst_bytes = rr->n_dst * ROWS_NE0 * 4;
    uint32_t ok = 0, failed = 0;
    for (uint32_t round = 0; race_more(round, ok, failed); round++) {
        memset(data_f32(f, rr->dst_off), POISON, dst_bytes + 4096);
        const uint32_t st = call(f);
        if (st == HTP_STATUS_OK) {
            ok++;
        } else {
            failed++;
            assert_int_equal(st, HTP_STATUS_INVAL_PARAMS);
            if (strncmp(message(f), bad_text, strlen(bad_text)) != 0 || !strstr(message(f), rr->limit)) {
                fail_msg("'%s' should name the flipped index, '%s...%s'", message(f), bad_text, rr->limit);
            }
        }
        for (uint32_t r = 0; r < rr->n_dst; r++) {
            const int from = rr->src_row((int) r);
            const float *row = data_f32(f, rr->dst_off + r * ROWS_NE0 * 4);
            const bool copied = from >= 0 && memcmp(row, rr->src + from * ROWS_NE0, ROWS_NE0 * 4) == 0;
            const bool may_skip = from < 0 || (st != HTP_STATUS_OK && rr->flips((int) r));
            if (!copied && !(may_skip && untouched(f, rr->dst_off + r * ROWS_NE0 * 4, ROWS_NE0 * 4))) {
                fail_msg("%s round %u (status %u): dst row %u is neither source row %d nor untouched", rr->what, round,
                         st, r, from);
            }
        }
        assert_true(untouched(f, rr->dst_off + dst_bytes, 4096));
    }
    race_exercised(rr->what, ok, failed);
}

static int set_rows_src_row(int r) {
    return r % 2 == 0 ? r / 2 : -1;
}

static bool set_rows_flips(int r) {
    return r % 2 == 0 && flipped(r / 2);
}

/* SET_ROWS of ROWS_N rows into rows 2 i of a destination of ROWS_NE1, by I64 indices of which 16 (spread over the op) a
 * host thread flips to 2^40 and back. The old kernel checked an index when it read the source row and read it again for
 * the write: a flip in between wrote row 2^32 - 1, far outside the destination. */
static void test_set_rows_indices_flipped(void **state) {
    struct fixture *f = *state;
    struct vnpu_ctx *ctx = vnpu_ctx_new(1 << 16, true);
    struct vnpu_tensor *rows = vnpu_new_tensor_2d(ctx, VNPU_TYPE_F32, ROWS_NE0, ROWS_N);
    struct vnpu_tensor *ids = vnpu_new_tensor_1d(ctx, VNPU_TYPE_I64, ROWS_N);
    struct vnpu_tensor *to = vnpu_new_tensor_2d(ctx, VNPU_TYPE_F32, ROWS_NE0, ROWS_NE1);
    struct vnpu_tensor *node = vnpu_set_rows(ctx, to, rows, ids);
    const uint32_t off[3] = {0, 1u << 20, 2u << 20};
    req_plan(f, &htp_family_set_rows, HTP_OP_SET_ROWS, node, 2, off, HTP_MM_PATH_AUTO);
    for (int i = 0; i < ROWS_NE0 * ROWS_N; i++) {
        data_f32(f, off[0])[i] = (float) i;
    }
    int64_t *idx = (int64_t *) data_f32(f, off[1]);
    for (int i = 0; i < ROWS_N; i++) {
        idx[i] = 2 * i;
    }
    const struct rows_race rr = {
        "SET_ROWS",       off[2],        ROWS_NE1, data_f32(f, off[0]), (int64_t) 1 << 40, "] outside [0, ne1 = 8192)",
        set_rows_src_row, set_rows_flips};
    struct flipper *fl = &f->fl;
    flip_start(fl, &idx[ROWS_FLIP_EVERY / 2], FLIP_MAX, ROWS_FLIP_EVERY, 8, rr.bad);
    rows_race_run(f, &rr);
    flip_stop(fl);
    vnpu_ctx_free(ctx);
}

static int get_rows_src_row(int r) {
    return (7 * r) % ROWS_NE1;
}

/* GET_ROWS by I32 indices of which 16 (spread over the op) a host thread flips to 2^28 and back; a failure must name
 * the value the kernel saw (it used to read the index again for the message). */
static void test_get_rows_indices_flipped(void **state) {
    struct fixture *f = *state;
    struct vnpu_ctx *ctx = vnpu_ctx_new(1 << 16, true);
    struct vnpu_tensor *table = vnpu_new_tensor_2d(ctx, VNPU_TYPE_F32, ROWS_NE0, ROWS_NE1);
    struct vnpu_tensor *ids = vnpu_new_tensor_1d(ctx, VNPU_TYPE_I32, ROWS_N);
    struct vnpu_tensor *node = vnpu_get_rows(ctx, table, ids);
    const uint32_t off[3] = {0, 2u << 20, (2u << 20) + (64u << 10)};
    req_plan(f, &htp_family_get_rows, HTP_OP_GET_ROWS, node, 2, off, HTP_MM_PATH_AUTO);
    for (int i = 0; i < ROWS_NE0 * ROWS_NE1; i++) {
        data_f32(f, off[0])[i] = (float) i;
    }
    int32_t *idx = (int32_t *) data_f32(f, off[1]);
    for (int i = 0; i < ROWS_N; i++) {
        idx[i] = get_rows_src_row(i);
    }
    const struct rows_race rr = {"GET_ROWS",          off[2],  ROWS_N,
                                 data_f32(f, off[0]), 1 << 28, "] outside [0, ne01 = 8192)",
                                 get_rows_src_row,    flipped};
    struct flipper *fl = &f->fl;
    flip_start(fl, &idx[ROWS_FLIP_EVERY / 2], FLIP_MAX, ROWS_FLIP_EVERY, 4, rr.bad);
    rows_race_run(f, &rr);
    flip_stop(fl);
    vnpu_ctx_free(ctx);
}

#define ADD_NE0 64
#define ADD_NE1 2

/* An ADD whose src0 row stride a host thread flips in the request block between 256 and 2^31 - 256 (past the data
 * buffer): the dispatcher checked the descriptor's extent and then copied the descriptor again, so a flip in between
 * handed the kernel the unchecked stride. Each answer either adds the rows or fails saying where src0 ends. */
static void test_descriptor_flipped(void **state) {
    struct fixture *f = *state;
    struct vnpu_ctx *ctx = vnpu_ctx_new(1 << 16, true);
    struct vnpu_tensor *a = vnpu_new_tensor_2d(ctx, VNPU_TYPE_F32, ADD_NE0, ADD_NE1);
    struct vnpu_tensor *b = vnpu_new_tensor_2d(ctx, VNPU_TYPE_F32, ADD_NE0, ADD_NE1);
    struct vnpu_tensor *node = vnpu_add(ctx, a, b);
    const uint32_t off[3] = {0, 4096, 8192}, bytes = ADD_NE0 * ADD_NE1 * 4;
    struct req r = req_plan(f, &htp_family_binary, HTP_OP_ADD, node, 2, off, HTP_MM_PATH_AUTO);
    for (int i = 0; i < ADD_NE0 * ADD_NE1; i++) {
        data_f32(f, off[0])[i] = (float) i;
        data_f32(f, off[1])[i] = 0.5f;
    }
    struct flipper *fl = &f->fl;
    flip_start(fl, &r.tensors[0].nb[1], 1, 1, 4, (int64_t) (1u << 31) - 256);
    uint32_t ok = 0, failed = 0;
    for (uint32_t round = 0; race_more(round, ok, failed) || round < 10 * RACE_MIN_ROUNDS; round++) {
        memset(data_f32(f, off[2]), POISON, bytes + 4096);
        const uint32_t st = call(f);
        if (st == HTP_STATUS_OK) {
            ok++;
            for (int i = 0; i < ADD_NE0 * ADD_NE1; i++) {
                assert_float_equal(data_f32(f, off[2])[i], (float) i + 0.5f, 0.0f);
            }
        } else {
            failed++;
            assert_int_equal(st, HTP_STATUS_INVAL_PARAMS);
            assert_string_equal(message(f), "op 0 (ADD): tensor 0 ends at byte 2147483648 of a 8388608-byte buffer");
        }
        assert_true(untouched(f, off[2] + bytes, 4096));
    }
    flip_stop(fl);
    race_exercised("ADD descriptor", ok, failed);
    vnpu_ctx_free(ctx);
}

/* ---- DMA queues ---- */

#define FULL_NE0  32
#define FULL_NE10 16
#define FULL_ROWS 600

/* ADD of a [32, 600] and b [16, 600]: b's rows are expanded into VTCM one descriptor per row. The host plans blocks of
 * at most 64 rows; a plan of 300-row blocks on each of two threads keeps 302 descriptors in flight, more than a
 * queue's 256. Such a push used to fail silently and the kernel's pops went on pairing the wrong transfers (to a fault
 * on an empty queue, at best); now the op fails naming the queue, nothing is written past dst, and the session serves
 * on. */
static void test_dma_queue_overflow(void **state) {
    struct fixture *f = *state;
    struct vnpu_ctx *ctx = vnpu_ctx_new(1 << 16, true);
    struct vnpu_tensor *a = vnpu_new_tensor_2d(ctx, VNPU_TYPE_F32, FULL_NE0, FULL_ROWS);
    struct vnpu_tensor *b = vnpu_new_tensor_2d(ctx, VNPU_TYPE_F32, FULL_NE10, FULL_ROWS);
    struct vnpu_tensor *node = vnpu_add(ctx, a, b);
    const uint32_t off[3] = {0, 1u << 17, 1u << 18}, dst_bytes = FULL_NE0 * FULL_ROWS * 4;
    for (int i = 0; i < FULL_NE0 * FULL_ROWS; i++) {
        data_f32(f, off[0])[i] = (float) i;
    }
    for (int i = 0; i < FULL_NE10 * FULL_ROWS; i++) {
        data_f32(f, off[1])[i] = 0.25f * (float) i;
    }
    struct req r = req_plan(f, &htp_family_binary, HTP_OP_ADD, node, 2, off, HTP_MM_PATH_AUTO);
    struct binary_kparams *kp = (struct binary_kparams *) r.op->kparams;
    assert_int_equal(kp->plan.src1_mode, ROW_SRC1_EXPAND);
    kp->plan.n_threads = 2;
    kp->plan.rows_per_thread = FULL_ROWS / 2;
    kp->plan.block = FULL_ROWS / 2;
    memset(data_f32(f, off[2]), POISON, dst_bytes + 4096);
    char want[160];
    snprintf(want, sizeof(want),
             "op 0 (ADD): DMA queue of thread 0 full: %d descriptors in flight, as many as it holds (the kernel's plan "
             "pushes more before it pops)",
             VDSP_DMA_DEPTH);
    expect(f, HTP_STATUS_DMA_FULL, want);
    assert_true(untouched(f, off[2] + dst_bytes, 4096));

    req_plan(f, &htp_family_binary, HTP_OP_ADD, node, 2, off, HTP_MM_PATH_AUTO); /* the host's own plan */
    assert_int_equal(call(f), HTP_STATUS_OK);
    for (int r1 = 0; r1 < FULL_ROWS; r1++) {
        for (int i = 0; i < FULL_NE0; i++) {
            const float want_v = (float) (r1 * FULL_NE0 + i) + 0.25f * (float) (r1 * FULL_NE10 + i % FULL_NE10);
            assert_float_equal(data_f32(f, off[2])[r1 * FULL_NE0 + i], want_v, 0.0f);
        }
    }
    vnpu_ctx_free(ctx);
}

int main(void) {
    /* A session per test: a test the library fails (a faulted session) does not take the next ones with it. */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_extent_wraps, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tiled_size_wraps, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rows_past_32_bits, setup, teardown),
        cmocka_unit_test_setup_teardown(test_too_many_ops, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fastdiv_not_the_shapes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fastdiv_rope_softmax, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fastdiv_matmul, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mul_mat_id_ids_flipped, setup, teardown),
        cmocka_unit_test_setup_teardown(test_set_rows_indices_flipped, setup, teardown),
        cmocka_unit_test_setup_teardown(test_get_rows_indices_flipped, setup, teardown),
        cmocka_unit_test_setup_teardown(test_descriptor_flipped, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dma_queue_overflow, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
