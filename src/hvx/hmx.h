/*
 * HMX (Hexagon matrix unit) FP16 operations on VTCM tiles, emulated: accumulator clear, tile
 * multiply-accumulate, accumulator store to an FP16 tile with per-column scale and bias.
 *
 * Tile layout (seed 000 "HMX Mapping", design/htp-reference-notes.md §8.4): an FP16 tile is 32 x 32
 * halves, 2048 bytes = 16 HVX vectors; vector i holds rows 2i and 2i+1 interleaved element-wise, so
 * element (row r, column c) is half (r / 2) * 64 + 2 * c + (r & 1) (hmx_tile_index). For an activation
 * tile the rows are M (tokens) and the columns K; for a weight tile the rows are K and the columns (the
 * 32 lanes) N; an output tile has rows M and columns N. A row pair is what Q6_W_vshuff_VVR(row1, row0,
 * -2) makes of two 64-half rows.
 *
 * Column scales (256 bytes, 128-byte aligned in VTCM): word n of the first 128 bytes is column n's FP16
 * scale (low half) and FP16 bias (high half); the kernels write Q6_V_vsplat_R(0x00003C00) for scale 1,
 * bias 0. The second 128 bytes are reserved and zero.
 *
 * Arithmetic (what the kernels observe): products of FP16 inputs are exact in FP32; each product is
 * added to its FP32 accumulator with one round-to-nearest-even, k ascending within a tile and tiles in
 * stream order; the store computes RN32(RN32(acc * scale) + bias) and rounds it to FP16 (nearest even,
 * overflow to infinity, NaN canonical 0x7FFF). HMX's internal accumulator precision is not published;
 * this is the model the emulator fixes, and tests/hvx/test-hmx.c checks it against a scalar reference.
 *
 * The same C builds for Hexagon (freestanding), so kernel sources compile there; a device build would
 * issue mxmem/mxclracc instead, which clang 14 does not assemble.
 */
#ifndef VNPU_HMX_H
#define VNPU_HMX_H

#include <stddef.h>
#include <stdint.h>

#define HMX_TILE_ROWS    32
#define HMX_TILE_COLS    32
#define HMX_TILE_HALVES  1024
#define HMX_TILE_BYTES   2048
#define HMX_SCALES_BYTES 256

/* Half index of element (row r, column c) in a tile (r, c < 32). */
static inline size_t hmx_tile_index(unsigned r, unsigned c) {
    return (size_t) (r / 2) * 64 + 2 * c + (r & 1);
}

/* The FP32 accumulators of one 32 x 32 output tile: acc[m][n]. A NaN accumulator's bits are unspecified (the host
 * emulations differ in payload and sign); the store makes it the canonical NaN. */
struct hmx_acc {
    float acc[HMX_TILE_ROWS][HMX_TILE_COLS];
};

/* Zero all 1024 accumulators. */
void hmx_acc_clear(struct hmx_acc *acc);

/* acc[m][n] += sum over the n_tiles tile pairs t and k < 32 of A_t[m][k] * W_t[k][n], where A_t is the
 * activation tile at act + t * HMX_TILE_HALVES and W_t the weight tile at wt + t * HMX_TILE_HALVES
 * (FP16 bit patterns, the tile layout above; a "deep" stream of K = 32 * n_tiles). */
void hmx_acc_mac(struct hmx_acc *acc, const uint16_t *act, const uint16_t *wt, unsigned n_tiles);

/* out (an FP16 tile) = FP16(acc[m][n] * scale[n] + bias[n]) with scale and bias from the 256-byte column
 * scale area (layout above). */
void hmx_acc_store_f16(const struct hmx_acc *acc, uint16_t *out, const void *col_scales);

#endif /* VNPU_HMX_H */
