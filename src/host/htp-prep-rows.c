/*
 * The row families on the host (binary-ops, unary-ops, act-ops of src/htp): what each supports, and the
 * kernel_params each op node carries: the row plan (threads, rows per DMA block, src1 broadcast mode,
 * fastdiv values; src/htp/row-stream.h) and the op's own fields.
 *
 * The plan is a pure function of shapes, strides and the device's resources, so supports_op (which only
 * asks whether a plan exists) and the request (which sends it) always agree, and the kernel recomputes the
 * same VTCM layout from it (row_plan_layout).
 */
#include "act-ops.h"
#include "binary-ops.h"
#include "htp-device-impl.h"
#include "row-stream.h"
#include "unary-ops.h"

#include "log.h"

#include <stdio.h>
#include <string.h>

/* Thresholds of the plan. HTP_ROWS_MIN_BYTES_PER_THREAD: one worker streams f32 rows through the emulation
 * at about 20 GB/s (vnpu-test-ops perf, ADD of 1.5 MB on one worker: ~200 us on the 2-core build machine),
 * while handing a job to a parked worker (a futex wake, then a reschedule) costs tens of microseconds there
 * under load; 256 KiB (~13 us of streaming) per extra worker keeps small ops, and every op of a decode step,
 * on the calling thread. HTP_ROWS_BLOCK_BYTES: DMA blocks of about 16 KiB per buffer keep each half well
 * inside L2 while amortising the per-descriptor cost. */
#define HTP_ROWS_MIN_BYTES_PER_THREAD (256u << 10)
#define HTP_ROWS_BLOCK_BYTES          (16u << 10)
/* Descriptors an expanded src1 (one per row) may keep in flight per thread: two blocks' worth must stay
 * well below VDSP_DMA_DEPTH. */
#define HTP_ROWS_EXPAND_MAX_BLOCK     64

/* Rows of t are dense F32 (nb0 = 4): DMA moves whole rows. */
static bool rows_f32(const struct vnpu_tensor *t, char *why, size_t size) {
    if (t->type != VNPU_TYPE_F32 || t->nb[0] != 4) {
        snprintf(why, size, "'%s' is %s with %zu-byte elements (f32 rows, 4-byte elements)", t->name,
                 vnpu_type_name(t->type), t->nb[0]);
        return false;
    }
    return true;
}

/* nb2 = ne1 nb1 and nb3 = ne2 nb2: rows are nb1 apart across dims 2 and 3. */
static bool rows_flat(const struct vnpu_tensor *t) {
    return t->nb[2] == (size_t) t->ne[1] * t->nb[1] && t->nb[3] == (size_t) t->ne[2] * t->nb[2];
}

/* The row plan of dst = f(src0, src1) (src1 and dst2 may be NULL) on d: threads by bytes (at most the device's),
 * fewer when a block of one row does not fit a thread's share of VTCM, rows per block to fit that share. False,
 * with why naming the op, the row and VTCM's size, when one row does not fit VTCM on one thread. */
static bool htp_row_plan(const struct htp_device *d, struct row_plan *p, const struct vnpu_tensor *dst,
                         const struct vnpu_tensor *src0, const struct vnpu_tensor *src1, const struct vnpu_tensor *dst2,
                         char *why, size_t size) {
    memset(p, 0, sizeof(*p));
    const uint32_t ne0 = (uint32_t) dst->ne[0], ne1 = (uint32_t) dst->ne[1], ne2 = (uint32_t) dst->ne[2];
    const uint64_t nrows = (uint64_t) dst->ne[1] * dst->ne[2] * dst->ne[3];
    if (nrows > UINT32_MAX || (uint64_t) ne0 * 4 > UINT32_MAX / 4) {
        snprintf(why, size, "%llu rows of %u elements exceed the kernel's 32-bit counters", (unsigned long long) nrows,
                 ne0);
        return false;
    }
    const uint32_t row_stride = hex_align_up(ne0 * 4, HEX_VLEN);
    p->n_dst = dst2 ? 2 : 1;
    p->src1_mode = !src1                                                      ? ROW_SRC1_NONE
                   : src1->ne[1] == 1 && src1->ne[2] == 1 && src1->ne[3] == 1 ? ROW_SRC1_RESIDENT
                   : src1->ne[0] == dst->ne[0]                                ? ROW_SRC1_STREAM
                                                                              : ROW_SRC1_EXPAND;
    p->flat = rows_flat(src0) && rows_flat(dst) && (!dst2 || rows_flat(dst2)) &&
              (p->src1_mode != ROW_SRC1_STREAM || (rows_flat(src1) && vnpu_are_same_shape(src1, dst)));

    /* VTCM a thread needs for blocks of one row: each streamed buffer twice, plus a resident src1 row. */
    const uint32_t streamed = 1 + (p->src1_mode == ROW_SRC1_STREAM || p->src1_mode == ROW_SRC1_EXPAND) + p->n_dst;
    const uint64_t fixed = p->src1_mode == ROW_SRC1_RESIDENT ? row_stride : 0;
    const uint64_t per_row = 2ull * streamed * row_stride;
    if (fixed + per_row > d->target.vtcm_size) {
        snprintf(why, size,
                 "%s '%s': a row of %u f32 takes %llu bytes of VTCM (%u streamed buffers twice%s), more than its %zu",
                 vnpu_op_desc(dst), dst->name, ne0, (unsigned long long) (fixed + per_row), streamed,
                 fixed ? ", src1 resident" : "", d->target.vtcm_size);
        return false;
    }
    const uint64_t bytes = nrows * ne0 * 4;
    uint64_t n = bytes / HTP_ROWS_MIN_BYTES_PER_THREAD;
    n = n < 1 ? 1 : n > d->n_threads ? d->n_threads : n;
    n = n > nrows && nrows > 0 ? nrows : n;
    while (d->target.vtcm_size / n < fixed + per_row) {
        n--; /* fewer threads, larger VTCM slices: n = 1 fits, checked above */
    }
    p->n_threads = (uint32_t) n;
    p->rows_per_thread = (uint32_t) ((nrows + n - 1) / n);
    const uint64_t fit = (d->target.vtcm_size / n - fixed) / per_row;
    uint64_t block = HTP_ROWS_BLOCK_BYTES / row_stride;
    block = block < 1 ? 1 : block;
    block = block > fit ? fit : block;
    block = block > (p->rows_per_thread + 1) / 2 ? (p->rows_per_thread + 1) / 2 : block;
    block = p->src1_mode == ROW_SRC1_EXPAND && block > HTP_ROWS_EXPAND_MAX_BLOCK ? HTP_ROWS_EXPAND_MAX_BLOCK : block;
    p->block = block < 1 ? 1 : (uint32_t) block;

    p->div_ne1 = fastdiv_init(ne1);
    p->div_ne12 = fastdiv_init(ne1 * ne2);
    for (int i = 0; i < 3; i++) {
        p->div_src1[i] = fastdiv_init(src1 ? (uint32_t) src1->ne[i + 1] : 1);
    }
    const struct row_layout l = row_plan_layout(p, ne0);
    VNPU_ASSERT(htp_vtcm_fits(l.per_thread, p->n_threads, d->target.vtcm_size));
    return true;
}

/* ---- binary: ADD, SUB, MUL, DIV ---- */

static bool binary_supports(const struct htp_device *d, const struct vnpu_tensor *node, uint32_t opcode, char *why,
                            size_t size) {
    const struct vnpu_tensor *a = node->src[0], *b = node->src[1];
    (void) opcode;
    if (!rows_f32(a, why, size) || !rows_f32(b, why, size) || !rows_f32(node, why, size)) {
        return false;
    }
    if (!vnpu_are_same_shape(a, node) || !vnpu_can_repeat(b, a)) {
        snprintf(why, size, "'%s' is not broadcast onto '%s' of the result's shape", b->name, a->name);
        return false;
    }
    struct row_plan p;
    return htp_row_plan(d, &p, node, a, b, NULL, why, size);
}

static void binary_prep(const struct htp_device *d, const struct vnpu_tensor *node, const struct vnpu_tensor *fused,
                        uint32_t opcode, struct htp_op_desc *op, const struct vnpu_tensor **src,
                        const struct vnpu_tensor **dst) {
    struct binary_kparams *kp = (struct binary_kparams *) op->kparams;
    char why[192];
    (void) fused, (void) opcode;
    src[0] = node->src[0];
    src[1] = node->src[1];
    dst[0] = node;
    VNPU_ASSERT(htp_row_plan(d, &kp->plan, node, src[0], src[1], NULL, why, sizeof(why)));
}

const struct htp_op_family htp_family_binary = {.supports = binary_supports, .prep = binary_prep};

/* ---- unary: RMS_NORM, RMS_NORM_MUL, SCALE ---- */

/* For RMS_NORM_MUL node is the MUL whose src0 is the RMS_NORM. */
static bool unary_supports(const struct htp_device *d, const struct vnpu_tensor *node, uint32_t opcode, char *why,
                           size_t size) {
    const bool fused = opcode == HTP_OP_RMS_NORM_MUL;
    const struct vnpu_tensor *norm = fused ? node->src[0] : node;
    const struct vnpu_tensor *x = norm->src[0], *w = fused ? node->src[1] : NULL;
    if (!rows_f32(x, why, size) || !rows_f32(node, why, size) || (fused && !rows_f32(norm, why, size)) ||
        (w && !rows_f32(w, why, size))) {
        return false;
    }
    if (!vnpu_are_same_shape(x, node) || (w && !vnpu_can_repeat(w, norm))) {
        snprintf(why, size, "'%s' and its result differ in shape", x->name);
        return false;
    }
    struct row_plan p;
    return htp_row_plan(d, &p, node, x, w, fused ? norm : NULL, why, size);
}

static void unary_prep(const struct htp_device *d, const struct vnpu_tensor *node, const struct vnpu_tensor *fused,
                       uint32_t opcode, struct htp_op_desc *op, const struct vnpu_tensor **src,
                       const struct vnpu_tensor **dst) {
    struct unary_kparams *kp = (struct unary_kparams *) op->kparams;
    char why[192];
    src[0] = node->src[0];
    dst[0] = fused ? fused : node;
    if (fused) {
        src[1] = fused->src[1];
        dst[1] = node;
    }
    VNPU_ASSERT(htp_row_plan(d, &kp->plan, dst[0], src[0], src[1], dst[1], why, sizeof(why)));
    if (opcode == HTP_OP_SCALE) {
        kp->scale = vnpu_get_op_param_f32(node, 0);
        kp->bias = vnpu_get_op_param_f32(node, 1);
    } else {
        kp->eps = vnpu_get_op_param_f32(node, 0);
        kp->inv_ne0 = 1.0f / (float) node->ne[0];
    }
}

const struct htp_op_family htp_family_unary = {.supports = unary_supports, .prep = unary_prep};

/* ---- act: SILU, GELU, SWIGLU ---- */

static bool act_supports(const struct htp_device *d, const struct vnpu_tensor *node, uint32_t opcode, char *why,
                         size_t size) {
    const struct vnpu_tensor *a = node->src[0], *b = opcode == HTP_OP_GLU_SWIGLU ? node->src[1] : NULL;
    if (opcode == HTP_OP_GLU_SWIGLU && !b) {
        snprintf(why, size, "single-tensor GLU (the split form only)");
        return false;
    }
    if (!rows_f32(a, why, size) || !rows_f32(node, why, size) || (b && !rows_f32(b, why, size))) {
        return false;
    }
    if (!vnpu_are_same_shape(a, node) || (b && !vnpu_are_same_shape(b, node))) {
        snprintf(why, size, "operands and result differ in shape");
        return false;
    }
    struct row_plan p;
    return htp_row_plan(d, &p, node, a, b, NULL, why, size);
}

static void act_prep(const struct htp_device *d, const struct vnpu_tensor *node, const struct vnpu_tensor *fused,
                     uint32_t opcode, struct htp_op_desc *op, const struct vnpu_tensor **src,
                     const struct vnpu_tensor **dst) {
    struct act_kparams *kp = (struct act_kparams *) op->kparams;
    char why[192];
    (void) fused;
    const bool swapped = opcode == HTP_OP_GLU_SWIGLU && node->op_params[1] != 0;
    src[0] = node->src[swapped ? 1 : 0]; /* the activated operand */
    src[1] = opcode == HTP_OP_GLU_SWIGLU ? node->src[swapped ? 0 : 1] : NULL;
    dst[0] = node;
    VNPU_ASSERT(htp_row_plan(d, &kp->plan, node, src[0], src[1], NULL, why, sizeof(why)));
}

const struct htp_op_family htp_family_act = {.supports = act_supports, .prep = act_prep};
