/*
 * MUL_MAT_ID (matmul-id-ops.h): the entry of both paths (the checks, the token chunk loop on the driver's workers of
 * matmul-driver.c), the routing of a chunk's pairs to per-expert row lists, and the HVX path's hook. A job is one tile
 * row of every used expert, its units (tile row, used expert k) in expert order; the hook is the unit's results:
 *
 *   compute   the expert's weight tile row against each of its routed rows (32x2 kernels, a 32x1 for an odd one
 *             left), the 32 results of each at its pair's vector of the job's dst slot
 *
 * The activation prep is MUL_MAT's: the chunk's columns (src1 rows (i11, token)) prepared into the activation area.
 */
#include "matmul-id-ops.h"

#include "hmx-mm-id.h"
#include "htp-checked.h"
#include "htp-ctx.h"
#include "htp-status-msg.h"
#include "htp-tensor.h"
#include "htp-tiles.h"
#include "matmul-driver.h"
#include "matmul-ops.h"

uint32_t matmul_id_route_chunk(struct matmul_id_route *rt, const struct htp_tensor *ids, uint32_t n_expert,
                               uint32_t ne11, uint32_t t0, uint32_t t1, struct htp_msg *m) {
    const uint32_t n_used = ids->ne[0], n_pairs = (t1 - t0) * n_used;
    for (uint32_t t = t0; t < t1; t++) { /* the chunk's ids, read once: routed from this copy only */
        htp_shared_read(rt->ids + (t - t0) * n_used, ids->data + (size_t) t * ids->nb[1], n_used * sizeof(int32_t));
    }
    for (uint32_t x = 0; x < n_expert; x++) {
        rt->next[x] = 0;
    }
    for (uint32_t pair = 0; pair < n_pairs; pair++) {
        const int32_t x = rt->ids[pair];
        if (x < 0 || (uint32_t) x >= n_expert) {
            htp_msg_index(m, "expert id", x, pair % n_used, t0 + pair / n_used, 0, "n_expert", n_expert);
            return HTP_STATUS_INVAL_PARAMS;
        }
        rt->next[x]++;
    }
    uint32_t k = 0, n = 0;
    for (uint32_t x = 0; x < n_expert; x++) {
        const uint32_t count = rt->next[x];
        if (count > 0) {
            rt->expert[k] = (uint16_t) x;
            rt->start[k++] = (uint16_t) n;
        }
        rt->next[x] = (uint16_t) n;
        n += count;
    }
    rt->start[k] = (uint16_t) n;
    rt->n_used_experts = k;
    for (uint32_t pair = 0, col = 0; pair < n_pairs; col += ne11) {
        for (uint32_t e = 0, i11 = 0; e < n_used; e++, pair++) {
            rt->row[rt->next[rt->ids[pair]]++] = (struct matmul_id_row){(uint16_t) pair, (uint16_t) (col + i11)};
            i11 = i11 + 1 == ne11 ? 0 : i11 + 1; /* e % ne11 */
        }
    }
    return HTP_STATUS_OK;
}

/* ---- the HVX path ---- */

/* Unit u's results: its expert's weight tile row at w against the expert's routed rows, each at its pair in out. */
static void matmul_id_compute(const struct matmul_run *r, struct matmul_unit u, const uint8_t *w, HVX_Vector *out) {
    const struct matmul_id_route *rt = r->route;
    const uint32_t valid = htp_tile_valid_rows(r->src0->ne[1], u.ct), size = r->plan->act_row_size;
    const uint32_t i1 = rt->start[u.k + 1];
    for (uint32_t i = rt->start[u.k]; i < i1; i += 2) { /* the 32x2 kernels, a 32x1 for an odd row left */
        const struct matmul_id_row a = rt->row[i];
        if (i + 1 < i1) {
            const struct matmul_id_row b = rt->row[i + 1];
            matmul_weights_dot(&r->wt, w, valid, r->act + (size_t) a.col * size, r->act + (size_t) b.col * size,
                               out + a.pair, out + b.pair);
        } else {
            matmul_weights_dot(&r->wt, w, valid, r->act + (size_t) a.col * size, NULL, out + a.pair, NULL);
        }
    }
}

static const struct matmul_hooks matmul_id_hooks = {.compute = matmul_id_compute};

/* ---- the entry ---- */

bool matmul_id_shapes_valid(const struct htp_tensor *w, const struct htp_tensor *x, const struct htp_tensor *ids,
                            const struct htp_tensor *d, uint32_t tokens_chunk, uint32_t pairs_chunk) {
    for (int i = 0; i < HTP_MAX_DIMS; i++) {
        if (w->ne[i] == 0 || x->ne[i] == 0 || ids->ne[i] == 0) {
            return false;
        }
    }
    const uint32_t ne00 = w->ne[0], ne01 = w->ne[1], n_expert = w->ne[2];
    const uint32_t ne11 = x->ne[1], n_used = ids->ne[0], n_tokens = ids->ne[1];
    return x->type == HTP_TYPE_F32 && x->nb[0] == 4 && ids->type == HTP_TYPE_I32 && ids->nb[0] == 4 &&
           d->type == HTP_TYPE_F32 && htp_tensor_is_contiguous(d, 4) && w->ne[3] == 1 && x->ne[3] == 1 &&
           ids->ne[2] == 1 && ids->ne[3] == 1 && x->ne[0] == ne00 && x->ne[2] == n_tokens && n_used % ne11 == 0 &&
           d->ne[0] == ne01 && d->ne[1] == n_used && d->ne[2] == n_tokens && d->ne[3] == 1 && ne00 <= MATMUL_MAX_K &&
           n_expert <= MATMUL_ID_MAX_EXPERTS && tokens_chunk != 0 && pairs_chunk == (uint64_t) tokens_chunk * n_used &&
           pairs_chunk <= MATMUL_ID_MAX_PAIRS;
}

/* The shapes and MUL_MAT_ID's kparams agree (the chunk's columns; on HMX its activation tile rows). */
static bool matmul_id_kparams_valid(const struct matmul_id_kparams *kp, const struct htp_tensor *w,
                                    const struct htp_tensor *x, const struct htp_tensor *ids,
                                    const struct htp_tensor *d) {
    return matmul_id_shapes_valid(w, x, ids, d, kp->tokens_chunk, kp->pairs_chunk) &&
           kp->cols_chunk == (uint64_t) kp->tokens_chunk * x->ne[1] &&
           (kp->plan.path != MATMUL_PATH_HMX ||
            kp->act_tile_rows >= hmx_mm_id_act_tile_rows(kp->pairs_chunk, w->ne[2]));
}

/* The run of a MUL_MAT_ID op and what its chunk is routed by. */
struct matmul_id_ctx {
    struct matmul_run run;
    struct matmul_id_route route;
    struct hmx_mm_id_tiles tiles; /* HMX */
};

uint32_t op_matmul_id(struct htp_op_ctx *octx) {
    struct htp_ctx *ctx = octx->ctx;
    const struct matmul_id_kparams *kp = htp_op_kparams(octx);
    const bool hmx = kp->plan.path == MATMUL_PATH_HMX;
    const struct htp_tensor *w = octx->src[0], *x = octx->src[1], *ids = octx->src[2];
    if (!matmul_id_kparams_valid(kp, w, x, ids, octx->dst[0])) {
        return HTP_STATUS_INVAL_PARAMS;
    }
    struct matmul_id_ctx c;
    struct matmul_run *r = &c.run;
    const uint32_t st =
        matmul_run_init(r, octx, &kp->plan, hmx ? &hmx_mm_id_hooks : &matmul_id_hooks, matmul_id_plan_layout(kp));
    if (st != HTP_STATUS_OK) {
        return st;
    }
    const uint32_t n_expert = w->ne[2];
    if (r->n_ct == 0) {
        return HTP_STATUS_OK;
    }
    r->group_rows = UINT32_MAX;
    r->route = &c.route;
    r->tiles = &c.tiles;
    const uint32_t ne11 = x->ne[1], n_used = ids->ne[0], n_tokens = ids->ne[1];
    for (uint32_t t0 = 0, t1; t0 < n_tokens; t0 = t1) {
        t1 = HEX_MIN(t0 + kp->tokens_chunk, n_tokens);
        r->c0 = t0 * ne11;
        r->c1 = t1 * ne11;
        r->r0 = t0 * n_used;
        r->r1 = t1 * n_used;
        const uint32_t routed = matmul_id_route_chunk(&c.route, ids, n_expert, ne11, t0, t1, octx->msg);
        if (routed != HTP_STATUS_OK) {
            return routed;
        }
        r->units_per_job = c.route.n_used_experts;
        if (hmx) {
            hmx_mm_id_tiles_of(&c.tiles, &c.route);
        }
        const uint32_t n_prep = matmul_run_split(r, r->n_ct, hmx ? c.tiles.n_pos : r->c1 - r->c0);
        if (work_queue_run(&ctx->wq, matmul_worker_prep, r, n_prep) != VDSP_FAULT_NONE ||
            work_queue_run(&ctx->wq, matmul_worker_compute, r, kp->plan.n_threads) != VDSP_FAULT_NONE) {
            return HTP_STATUS_FAULT;
        }
    }
    matmul_run_end(r);
    return HTP_STATUS_OK;
}
