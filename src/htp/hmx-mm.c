/*
 * MUL_MAT on HMX (hmx-mm.h): the hooks of the HMX path, which op_matmul (matmul-ops.c) runs on the driver's workers
 * (matmul-driver.c):
 *
 *   act_tiles  a job's activation tile rows: those of the chunk's columns of its group (32 columns each, from the
 *              chunk's first column)
 *   compute    its output tiles widened into the dst slot: tile t's column j is the chunk's column 32 t + j
 *   pair_col   prep pair p is the chunk's columns 2p and 2p + 1 (vector p % 16 of the tiles of tile row p / 16); a
 *              column past the chunk is a padding column
 */
#include "hmx-mm.h"

#include "hmx-mm-parts.h"
#include "matmul-driver.h"

/* The activation tile rows of unit u: those its group's columns in the chunk touch. */
static void hmx_mm_act_tiles(const struct matmul_run *r, struct matmul_unit u, uint32_t *first, uint32_t *n) {
    uint32_t ca, cb;
    matmul_job_rows(r, u.g, &ca, &cb);
    *first = (ca - r->c0) / HMX_MM_TILE;
    *n = (cb - 1 - r->c0) / HMX_MM_TILE - *first + 1;
}

/* Unit u's output tiles at otile -> one vector per column into out (column c at vector c - c0). */
static void hmx_mm_compute(const struct matmul_run *r, struct matmul_unit u, const uint8_t *otile, HVX_Vector *out) {
    HVX_SCOPE();
    uint32_t t0, n;
    hmx_mm_act_tiles(r, u, &t0, &n);
    for (uint32_t t = 0; t < n; t++) {
        hmx_tiles_widen(otile + (size_t) t * HMX_MM_TILE_BYTES, out + (t0 + t) * HMX_MM_TILE);
    }
}

static uint32_t hmx_mm_pair_col(const struct matmul_run *r, uint32_t pr, uint32_t h) {
    const uint32_t col = r->c0 + 2 * pr + h;
    return col < r->c1 ? col : MATMUL_NO_COL;
}

const struct matmul_hooks hmx_mm_hooks = {
    .compute = hmx_mm_compute, .act_tiles = hmx_mm_act_tiles, .pair_col = hmx_mm_pair_col};
