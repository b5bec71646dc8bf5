/*
 * MUL_MAT (matmul-ops.h): the entry of both paths (the checks, the chunk loop on the driver's workers of
 * matmul-driver.c) and the HVX path's hook, the unit's results:
 *
 *   compute   the job's weight tile row (32 rows of its group's matrix) against each of the chunk's columns of its
 *             group: the 32x2 kernels for two columns at a time (matmul-weights.h), a 32x1 for an odd one left, one
 *             vector of 32 results per column into the dst slot
 *
 * Per chunk of cols_chunk columns: a prep job (matmul_worker_prep: each column's f32 row DMA'd into staging, prepared
 * into the activation area) over the columns, then a compute job (matmul_worker_compute) over the chunk's (group, tile
 * row) jobs. Weight DMAs and kernels are matmul-weights.h's (MUL_MAT_ID shares them): F32/F16 rows, 32 rows of ne00
 * elements into rows of row_stride; a tiled tile row, n_tiles tiles at the aligned tile stride; a flat quantized tile
 * row, per row one descriptor per part of its blocks (codes, scales, ...) into that part's area of each block's unit
 * (matmul_qtype).
 */
#include "matmul-ops.h"

#include "hmx-mm.h"
#include "htp-ctx.h"
#include "htp-tensor.h"
#include "htp-tiles.h"
#include "matmul-driver.h"

/* Unit u's results: its weight tile row at w against the chunk's columns of its group, at their dst rows of out. */
static void matmul_compute(const struct matmul_run *r, struct matmul_unit u, const uint8_t *w, HVX_Vector *out) {
    HVX_SCOPE();
    uint32_t ca, cb;
    matmul_job_rows(r, u.g, &ca, &cb);
    const uint32_t n = cb - ca, valid = htp_tile_valid_rows(r->src0->ne[1], u.ct), size = r->plan->act_row_size;
    const uint8_t *a = r->act + (size_t) (ca - r->c0) * size;
    out += ca - r->c0;
    for (uint32_t i = 0; i < n; i += 2) { /* the 32x2 kernels, a 32x1 for an odd column left */
        const uint8_t *a0 = a + (size_t) i * size;
        matmul_weights_dot(&r->wt, w, valid, a0, i + 1 < n ? a0 + size : NULL, out + i, out + i + 1);
    }
}

static const struct matmul_hooks matmul_hooks = {.compute = matmul_compute};

/* ---- the entry ---- */

bool matmul_shapes_valid(const struct htp_tensor *w, const struct htp_tensor *x, const struct htp_tensor *d,
                         uint32_t n_cols, uint32_t group_cols) {
    for (int i = 0; i < HTP_MAX_DIMS; i++) {
        if (w->ne[i] == 0 || x->ne[i] == 0) {
            return false;
        }
    }
    const uint32_t ne00 = w->ne[0], ne01 = w->ne[1], ne02 = w->ne[2], ne03 = w->ne[3];
    return x->type == HTP_TYPE_F32 && x->nb[0] == 4 && d->type == HTP_TYPE_F32 && htp_tensor_is_contiguous(d, 4) &&
           x->ne[0] == ne00 && d->ne[0] == ne01 && d->ne[1] == x->ne[1] && d->ne[2] == x->ne[2] &&
           d->ne[3] == x->ne[3] && x->ne[2] % ne02 == 0 && x->ne[3] % ne03 == 0 && ne00 <= MATMUL_MAX_K &&
           n_cols == (uint64_t) x->ne[1] * x->ne[2] * x->ne[3] && group_cols == (uint64_t) x->ne[1] * (x->ne[2] / ne02);
}

/* The shapes and MUL_MAT's kparams agree (the chunk, and the fastdiv values of the groups: a wrong one named in the
 * op's message). */
static bool matmul_kparams_valid(const struct htp_op_ctx *octx, const struct matmul_kparams *kp,
                                 const struct htp_tensor *w, const struct htp_tensor *x, const struct htp_tensor *d) {
    const bool hmx = kp->plan.path == MATMUL_PATH_HMX;
    return matmul_shapes_valid(w, x, d, kp->n_cols, kp->group_cols) && kp->cols_chunk != 0 &&
           (!hmx || kp->cols_chunk % HMX_MM_TILE == 0) &&
           htp_op_fastdiv_ok(octx, &kp->div_group_cols, kp->group_cols, "div_group_cols", "group_cols") &&
           htp_op_fastdiv_ok(octx, &kp->div_ne02, w->ne[2], "div_ne02", "ne02") &&
           htp_op_fastdiv_ok(octx, &kp->div_r3, x->ne[3] / w->ne[3], "div_r3", "ne13 / ne03");
}

uint32_t op_matmul(struct htp_op_ctx *octx) {
    struct htp_ctx *ctx = octx->ctx;
    const struct matmul_kparams *kp = htp_op_kparams(octx);
    const bool hmx = kp->plan.path == MATMUL_PATH_HMX;
    if (!matmul_kparams_valid(octx, kp, octx->src[0], octx->src[1], octx->dst[0])) {
        return HTP_STATUS_INVAL_PARAMS;
    }
    struct matmul_run r;
    const uint32_t st =
        matmul_run_init(&r, octx, &kp->plan, hmx ? &hmx_mm_hooks : &matmul_hooks, matmul_plan_layout(kp));
    if (st != HTP_STATUS_OK || r.n_ct == 0) {
        return st;
    }
    r.group_rows = kp->group_cols;
    r.div_ne02 = &kp->div_ne02;
    r.div_r3 = &kp->div_r3;
    r.units_per_job = 1;
    for (r.c0 = 0; r.c0 < kp->n_cols; r.c0 = r.c1) {
        r.c1 = HEX_MIN(r.c0 + kp->cols_chunk, kp->n_cols);
        r.r0 = r.c0;
        r.r1 = r.c1;
        r.g0 = fastdiv(r.c0, &kp->div_group_cols);
        const uint32_t n_jobs = (fastdiv(r.c1 - 1, &kp->div_group_cols) - r.g0 + 1) * r.n_ct;
        const uint32_t n_prep =
            matmul_run_split(&r, n_jobs, hmx ? hex_align_up(r.c1 - r.c0, HMX_MM_TILE) / 2 : r.c1 - r.c0);
        if (work_queue_run(&ctx->wq, matmul_worker_prep, &r, n_prep) != VDSP_FAULT_NONE ||
            work_queue_run(&ctx->wq, matmul_worker_compute, &r, kp->plan.n_threads) != VDSP_FAULT_NONE) {
            return HTP_STATUS_FAULT;
        }
    }
    matmul_run_end(&r);
    return HTP_STATUS_OK;
}
