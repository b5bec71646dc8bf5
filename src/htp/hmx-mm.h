/*
 * MUL_MAT on HMX (hmx-mm.c), the path for batches: its constants and the sizes of its weight tile rows. The op, its
 * operands, columns, groups, kernel_params and VTCM layout are MUL_MAT's (matmul-ops.h); the host picks this path by
 * the rule of src/host/htp-prep-matmul-hmx.c and says so in the plan's path (MATMUL_PATH_HMX).
 *
 * Data flow. Columns are prepared in chunks of cols_chunk (a multiple of 32): a prep job DMAs each pair of f32
 * columns into staging and converts them into FP16 activation tiles (32 columns x 32 of K, hmx.h) in the shared
 * activation area: cols_chunk / 32 tile rows of n_k_tiles tiles. A compute job then runs the chunk's (group, tile
 * row) jobs over the workers; per job, a worker with n_prefetch slots
 *     pops the job's weight tile row (its tiles as stored, DMA'd DDR -> VTCM while earlier jobs computed),
 *     expands it with HVX into n_k_tiles FP16 weight tiles (hvx-dequant-fp16.h) and pushes the weights of job + p,
 *     takes the HMX unit and, for every 32-column tile row of the group's columns, clears the accumulators, streams
 *         the n_k_tiles (activation, weight) tile pairs and stores the FP16 output tile,
 *     pops the dst slot (the write-back of job - p), widens the output tiles to f32 into it (one vector of 32
 *         results per column) and pushes one 2-D write-back of the group's columns.
 * HMX is one unit per device: while one worker multiplies, the others expand their next tile rows.
 *
 * Weights. A tiled weight (any of the twelve types) is DMA'd as stored (n_tiles tiles of a tile row at the aligned
 * tile stride); an F16 or F32 weight row by row, each row's K split into its tiles' 64- or 128-byte pieces (one 2-D
 * descriptor per row). K is a multiple of 32. Flat quantized weights stay on the HVX path.
 *
 * Arithmetic: activations and weights rounded to FP16, products exact, f32 accumulation in K order (hmx.h), the
 * results rounded to FP16 (scale 1, bias 0) and widened to f32 exactly: a result beyond FP16's range (65504) is an
 * infinity, as on upstream's HMX path.
 */
#ifndef VNPU_HMX_MM_H
#define VNPU_HMX_MM_H

#include "hex-common.h"
#include "htp-tiles.h"

#include <stdbool.h>
#include <stdint.h>

#define HMX_MM_TILE         32   /* an HMX tile's side: columns per activation tile row, K per tile */
#define HMX_MM_TILE_BYTES   2048 /* one FP16 tile (hmx.h's HMX_TILE_BYTES) */
#define HMX_MM_SCALES_BYTES 256  /* the column scales HMX stores its output with (hmx.h) */
#define HMX_MM_MAX_PREFETCH 4    /* weight tile rows in flight per worker, at most */

/* VTCM bytes one weight tile row of ne00 columns takes as DMA'd, 0 for a weight type HMX does not take: a tiled
 * type's tiles at their aligned stride, F16 and F32 rows cut into n_k_tiles tiles of 32 rows x 32 elements. */
static inline uint64_t hmx_mm_wraw_size(uint32_t type, uint32_t ne00) {
    if (type == HTP_TYPE_F16 || type == HTP_TYPE_F32) {
        return (uint64_t) ne00 / HMX_MM_TILE * HTP_TENSOR_TILE_N_ROWS * HMX_MM_TILE * (type == HTP_TYPE_F32 ? 4 : 2);
    }
    struct htp_tile_geom g;
    if (!htp_tile_geom_get((enum htp_type) type, &g)) {
        return 0;
    }
    return (uint64_t) (ne00 / g.k_cols) * g.aligned_size;
}

/* DMA descriptors of one live weight tile row of valid rows: 1 for a tiled weight, one per row for F16 and F32. The
 * pipeline keeps n_prefetch * (1 + this) in a worker's queue. */
static inline uint32_t hmx_mm_wrow_ndesc(uint32_t type, uint32_t valid_rows) {
    return type == HTP_TYPE_F16 || type == HTP_TYPE_F32 ? valid_rows : 1;
}

/* The HMX path's hooks of MUL_MAT's driver (matmul-driver.h; hmx-mm.c): op_matmul runs them. */
struct matmul_hooks;
extern const struct matmul_hooks hmx_mm_hooks;

#endif /* VNPU_HMX_MM_H */
