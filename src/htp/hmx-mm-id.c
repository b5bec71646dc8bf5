/*
 * MUL_MAT_ID on HMX (hmx-mm-id.h): the chunk's activation tile rows and the hooks of the HMX path, which
 * op_matmul_id (matmul-id-ops.c) runs on the driver's workers (matmul-driver.c) with MUL_MAT_ID's routing
 * (matmul_id_route_chunk):
 *
 *   pair_col   prep pair pr is columns 2 (pr % 16) and 2 (pr % 16) + 1 of tile row pr / 16, that is the routed rows
 *              first[tr] + 2 (pr % 16) and the next, each a src1 row; one past its expert's rows is padding
 *   act_tiles  a unit's activation tile rows: its expert's, [base[k], base[k + 1])
 *   compute    its output tiles widened, each routed row's 32 results at its pair's vector of the dst slot
 */
#include "hmx-mm-id.h"

#include "hmx-mm-parts.h"
#include "matmul-driver.h"

void hmx_mm_id_tiles_of(struct hmx_mm_id_tiles *tl, const struct matmul_id_route *rt) {
    uint32_t tr = 0;
    for (uint32_t k = 0; k < rt->n_used_experts; k++) {
        tl->base[k] = (uint16_t) tr;
        for (uint32_t r = rt->start[k]; r < rt->start[k + 1]; r += HMX_MM_TILE, tr++) {
            tl->first[tr] = (uint16_t) r;
            tl->end[tr] = rt->start[k + 1];
        }
    }
    tl->base[rt->n_used_experts] = (uint16_t) tr;
    tl->n_pos = tr * HMX_MM_PAIRS_PER_TILE;
}

static uint32_t hmx_mm_id_pair_col(const struct matmul_run *r, uint32_t pr, uint32_t h) {
    const uint32_t tr = pr / HMX_MM_PAIRS_PER_TILE;
    const uint32_t row = r->tiles->first[tr] + 2 * (pr % HMX_MM_PAIRS_PER_TILE) + h;
    return row < r->tiles->end[tr] ? r->c0 + r->route->row[row].col : MATMUL_NO_COL;
}

static void hmx_mm_id_act_tiles(const struct matmul_run *r, struct matmul_unit u, uint32_t *first, uint32_t *n) {
    *first = r->tiles->base[u.k];
    *n = r->tiles->base[u.k + 1] - *first;
}

/* Expert k's output tiles at otile -> the f32 results of its routed rows, each at its pair's vector of out. */
static void hmx_mm_id_compute(const struct matmul_run *r, struct matmul_unit u, const uint8_t *otile, HVX_Vector *out) {
    HVX_SCOPE();
    const struct matmul_id_row *row = r->route->row;
    const uint32_t r0 = r->route->start[u.k], r1 = r->route->start[u.k + 1];
    for (uint32_t i = r0; i < r1; i += 2) {
        const uint32_t j = i - r0; /* the row's column in the expert's tile rows */
        const HVX_VectorPair w =
            hmx_tiles_widen_pair(otile + (size_t) (j / HMX_MM_TILE) * HMX_MM_TILE_BYTES, (j % HMX_MM_TILE) / 2);
        hvx_vmem_st(out + row[i].pair, Q6_V_lo_W(w));
        if (i + 1 < r1) {
            hvx_vmem_st(out + row[i + 1].pair, Q6_V_hi_W(w));
        }
    }
}

const struct matmul_hooks hmx_mm_id_hooks = {
    .compute = hmx_mm_id_compute, .act_tiles = hmx_mm_id_act_tiles, .pair_col = hmx_mm_id_pair_col};
