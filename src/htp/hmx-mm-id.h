/*
 * MUL_MAT_ID on HMX (hmx-mm-id.c), the mixture-of-experts path for batches: the activation tile rows of a chunk. The
 * op, its operands, pairs, columns, routing, kernel_params and VTCM layout are MUL_MAT_ID's (matmul-id-ops.h); the
 * host picks this path by the rule of src/host/htp-prep-matmul-id.c and says so in the plan's path (MATMUL_PATH_HMX,
 * as MUL_MAT's HMX path).
 *
 * Data flow, per token chunk (tokens_chunk tokens, their pairs routed by expert):
 *   gather    each used expert's routed columns become its own activation tile rows (32 columns each, the last one
 *             padded with zero columns): a prep job DMAs the f32 src1 rows of two routed rows at a time into
 *             staging and narrows them into one vector of each FP16 tile of their tile row (hmx-mm-parts.h);
 *   units     a compute job is one weight tile row (32 weight rows) of every used expert, a unit (tile row, used
 *             expert k): the expert's raw tile row DMA'd DDR -> VTCM n_prefetch units ahead, expanded with HVX into
 *             FP16 weight tiles, multiplied on HMX against the expert's activation tile rows into FP16 output tiles,
 *             widened to f32 into the job's dst slot at each routed row's pair (one vector of 32 results per pair);
 *   write     after the job's last unit the slot holds all the chunk's pairs, consecutive dst rows: one 2-D
 *             write-back.
 *
 * Arithmetic: MUL_MAT's HMX path's (hmx-mm.h): FP16 operands, f32 accumulation, FP16 results widened to f32.
 */
#ifndef VNPU_HMX_MM_ID_H
#define VNPU_HMX_MM_ID_H

#include "hex-common.h"
#include "hmx-mm.h"
#include "matmul-id-ops.h"

#include <stdint.h>

/* Activation tile rows a chunk of pairs routed pairs over n_expert experts needs at most: each used expert pads its
 * rows to a multiple of 32, so sum(ceil(n_k / 32)) <= (pairs + 31 * min(n_expert, pairs)) / 32. */
static inline uint32_t hmx_mm_id_act_tile_rows(uint32_t pairs, uint32_t n_expert) {
    return (uint32_t) (((uint64_t) pairs + 31 * (uint64_t) HEX_MIN(n_expert, pairs)) / HMX_MM_TILE);
}

/* Activation tile rows of a chunk at most (hmx_mm_id_act_tile_rows of the limits). */
#define HMX_MM_ID_MAX_TILE_ROWS ((MATMUL_ID_MAX_PAIRS + 31 * MATMUL_ID_MAX_EXPERTS) / HMX_MM_TILE)

/* A chunk's activation tile rows: used expert k owns tile rows [base[k], base[k + 1]), column j of its tile row t
 * being its routed row start[k] + 32 t + j (a column past the expert's rows is zeros). */
struct hmx_mm_id_tiles {
    uint32_t n_pos;                           /* column pairs of the tile rows: 16 per tile row */
    uint16_t base[MATMUL_ID_MAX_EXPERTS + 1]; /* used expert k's first tile row */
    uint16_t first[HMX_MM_ID_MAX_TILE_ROWS];  /* per tile row: the routed row of its column 0 ... */
    uint16_t end[HMX_MM_ID_MAX_TILE_ROWS];    /* ... and the end of its expert's rows */
};

/* The tile rows of a chunk routed as rt: per used expert ceil(rows / 32). */
void hmx_mm_id_tiles_of(struct hmx_mm_id_tiles *tl, const struct matmul_id_route *rt);

/* The HMX path's hooks of MUL_MAT_ID's driver (matmul-driver.h; hmx-mm-id.c): op_matmul_id runs them. */
struct matmul_hooks;
extern const struct matmul_hooks hmx_mm_id_hooks;

#endif /* VNPU_HMX_MM_ID_H */
