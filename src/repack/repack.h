/*
 * vnpu-repack: GGML weights <-> the HTP tiled formats, on the host (seed 000, "Tiled Weight Formats"; byte layouts
 * and the tile grid in src/htp/htp-tiles.h).
 *
 * Twelve types are tiled: Q4_0, Q4_1, Q8_0, IQ4_NL, MXFP4 (K_cols 32), Q1_0 (K_cols 128), Q2_0 (K_cols 64) and the
 * K-quants Q2_K, Q3_K, Q4_K, Q5_K, Q6_K (K_cols 32: a 256-element super-block is 8 tiles). A weight is a contiguous
 * GGML tensor [ne0 = K, ne1 = N, ne2, ne3]: ne1 * ne2 * ne3 rows of ne0 elements, each row ne0 / blck blocks. Each
 * (i2, i3) slice is one matrix of n_col_tiles * n_k_tiles tiles; matrix (i2, i3) is the (i3 * ne2 + i2)-th, as
 * its flat rows are. Rows past ne1 in the last column tile are padding (htp-tiles.h says with what).
 *
 * Who calls what: the HTP device's REPACK buffer sizes a weight with repack_nbytes (get_alloc_size), tiles it in
 * set_tensor with repack_tensor and reads it back in get_tensor with repack_unpack_tensor; supports_op asks
 * repack_supported, which depends on type and shape only. Kernel tests take their reference values from
 * repack_dequant_tensor / repack_dequant_tile, which compute exactly what a tile holds.
 *
 * What survives the trip (repack_lossless):
 *   Q4_0, Q4_1, Q8_0, IQ4_NL, MXFP4, Q1_0, Q2_0, Q2_K: lossless. The tiles hold the GGML codes and scale bytes
 *     (Q2_K: -dmin as dmin with its sign bit flipped), unpack(repack(x)) == x byte for byte, and a tile's values
 *     are bit for bit GGML's dequantization of the original rows.
 *   Q3_K, Q4_K, Q5_K, Q6_K: the tiles keep every code exactly but store derived FP16 scales (Q3_K d * (scale - 32),
 *     Q4_K/Q5_K d * scale and -dmin * min, Q6_K d * scale) in place of d, dmin and the sub-block scales. The
 *     product is exact in f32 and rounded once to FP16 (nearest even): each derived scale is within half an FP16
 *     ulp of GGML's, a relative 2^-11 in the normal range, 2^-25 absolute below 2^-14, and a product of magnitude
 *     >= 65520 becomes +-inf. A value therefore differs from GGML's dequantization by at most |q| times its scale's
 *     rounding plus the min's rounding (plus the final f32 rounding), and equals it bit for bit when every product
 *     is an FP16 number (for instance when d is a power of two). Unpack factors the derived scales back into an
 *     FP16 d (dmin) and integer scales: the codes come back exactly, repack(unpack(t)) == t, and GGML's
 *     dequantization of the result equals the tile's values bit for bit whenever some factorization is exact
 *     (always when the original's products were), else it is within the same half ulp. Only a row whose derived
 *     scales are NaN (d was) or all infinite or zero (every product overflowed) cannot be factored: it unpacks
 *     with fitted scales and the call warns.
 */
#ifndef VNPU_REPACK_H
#define VNPU_REPACK_H

#include "tensor.h"
#include "type-traits.h"
#include "vnpu.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* True when a weight of this type and shape can be tiled: type among the twelve, every ne >= 1, ne0 a multiple
 * of the type's block size (so of K_cols), ne0 and ne1 within 32 bits (the NPU's tensor descriptors) and the tiled
 * size within SIZE_MAX. Depends on nothing else; no log. */
bool repack_supported(enum vnpu_type type, const int64_t ne[VNPU_MAX_DIMS]);

/* True for the types whose tiles hold their GGML blocks losslessly (see the top of this file). */
bool repack_lossless(enum vnpu_type type);

/* Bytes the tiled weight takes: htp_tile_matrix_size * ne2 * ne3 (ne1 padded to a multiple of 32). 0 when
 * !repack_supported. Equal to vnpu_row_size(type, ne0) * ne1 * ne2 * ne3 when ne1 % 32 == 0 for every type but
 * Q3_K (512 bytes per 32 x 32 tile against 440 flat), Q4_K, Q5_K and Q6_K. */
size_t repack_nbytes(enum vnpu_type type, const int64_t ne[VNPU_MAX_DIMS]);

/* Tile a weight: src holds the flat GGML tensor (src_size == vnpu_row_size(type, ne0) * ne1 * ne2 * ne3 bytes),
 * dst receives repack_nbytes bytes (dst_size >= that; bytes past it are not touched). n_threads >= 1 threads
 * (at most 64 and one per tile row) share the tile rows, the caller's thread among them; the result does not
 * depend on their number. src and dst must
 * not overlap. Errors (logged, dst untouched): VNPU_STATUS_UNSUPPORTED when !repack_supported, VNPU_STATUS_BAD_ARG
 * for a size mismatch or n_threads < 1. */
enum vnpu_status repack_tensor(enum vnpu_type type, const int64_t ne[VNPU_MAX_DIMS], const void *src, size_t src_size,
                               void *dst, size_t dst_size, int n_threads);

/* The inverse: tiles (src_size >= repack_nbytes) back to the flat GGML tensor (dst_size == its flat size), padding
 * rows dropped. Exact for the lossless types; for the others as the top of this file says, with one warning per
 * call when some super-block row had non-finite derived scales. Same threads and errors as repack_tensor. */
enum vnpu_status repack_unpack_tensor(enum vnpu_type type, const int64_t ne[VNPU_MAX_DIMS], const void *src,
                                      size_t src_size, void *dst, size_t dst_size, int n_threads);

/* The values the tiles hold, as f32: dst gets ne0 * ne1 * ne2 * ne3 floats in GGML order (row i1 of matrix
 * (i2, i3) at ((i3 * ne2 + i2) * ne1 + i1) * ne0), computed in f32 in GGML's order of operations from the tile's
 * codes and scales (for the lossless types bit for bit the type's to_f32 of the original rows). Errors as
 * repack_tensor. */
enum vnpu_status repack_dequant_tensor(enum vnpu_type type, const int64_t ne[VNPU_MAX_DIMS], const void *src,
                                       size_t src_size, float *dst);

/* The values of one tile, the reference of the NPU kernels' tests: tile_row points at the first tile (kt = 0) of a
 * tile row of a tiled weight of this type and kt < n_k_tiles is the tile's column (a Q2_K tile takes its d / -dmin
 * from the other tiles of its super-block). dst gets 32 rows of K_cols floats, row r at r * K_cols; padding rows
 * are zeros (Q1_0's are -0.0: its levels are +-d). The type must be tiled (VNPU_ASSERT). */
void repack_dequant_tile(enum vnpu_type type, const void *tile_row, uint32_t kt, float *dst);

#endif /* VNPU_REPACK_H */
