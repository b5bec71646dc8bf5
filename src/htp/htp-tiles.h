/*
 * The tiled weight formats of the HTP matmul kernels: tile geometry, the byte offset of each area in a tile, and
 * the tile grid. Shared by the host repack (src/repack) and the NPU kernels; the byte layouts are the seed's
 * (000, "Tiled Weight Formats"), the Q4_0/Q4_1/Q8_0/IQ4_NL/MXFP4 ones confirmed against upstream's
 * htp-repack (htp-reference-notes.md §11). Freestanding: constants and static inline functions only.
 *
 * Grid. A weight of GGML shape [ne0 = K, ne1 = N, ne2, ne3] is ne2 * ne3 matrices, stored back to back. A matrix
 * is cut into tiles of HTP_TENSOR_TILE_N_ROWS = 32 rows (N) by K_cols columns (K):
 *     n_k_tiles   = ne0 / K_cols          ne0 % K_cols != 0: the weight is not tiled (it stays flat)
 *     n_col_tiles = ceil(ne1 / 32)        rows past ne1 in the last column tile are padding
 *     tile (ct, kt) at byte (ct * n_k_tiles + kt) * tile_size of its matrix
 * so the n_k_tiles tiles of one column tile (a "tile row": 32 output rows by all of K) are contiguous in DDR. A
 * kernel DMAs a tile row as n_k_tiles rows of tile_size bytes into VTCM at a stride of aligned_size (tile_size
 * rounded up to 128), so every tile starts an HVX vector there. A GGML block spans tiles_per_block tiles along K:
 * one, except for the K-quants, whose 256-element super-block is 8 tiles of 32.
 *
 * Element (r, k) of a tile is row 32 * ct + r (r = 0..31) and column K_cols * kt + k of the matrix; q is its GGML
 * code (Q4_0: the nibble before the -8; Q3_K: low 2 bits | high bit << 2; Q6_K: 6 bits, before the -32). Planes:
 *   nibble pairs   byte 32 * (k / 2) + r: code of k even in the low nibble, k odd in the high nibble
 *                  (Q4_0, Q4_1, IQ4_NL, MXFP4, Q4_K, Q5_K: 512 bytes)
 *   byte pairs     byte 64 * (k / 2) + 2 * r + k % 2 (Q8_0: 1024 bytes)
 *   vrmpy order    each 128-byte vector gives every row 4 bytes holding 4 consecutive k (byte 4 * r + k % 4), the
 *                  form a Q6_Vw_vrmpyacc_VwVbVb against 4 activations wants; a byte packs 8 / b such groups of
 *                  b-bit codes, group g = k / 4 at bit b * (g % (8 / b)):
 *                    b = 1: byte 128 * (k / 32) + 4 * r + k % 4, bit k / 4 % 8      (Q1_0 codes, Q3_K signs)
 *                    b = 2: byte 128 * (k / 16) + 4 * r + k % 4, bits 2 * (k / 4 % 4) (Q2_0, Q2_K, Q3_K low bits,
 *                           Q6_K high bits)
 *                    b = 4: byte 128 * (k / 8) + 4 * r + k % 4, nibble k / 4 % 2      (Q6_K low bits)
 *   Q5_K fifth bits   byte 32 * (k / 2 % 4) + r of the QH area, bit 2 * (k / 8) + k % 2: bit 2i / 2i + 1 of byte l
 *                     is the high bit of the low / high nibble in byte l of nibble-pair vector i
 * Scales (FP16 unless said, little-endian, one per row r at 2 * r of the area unless said):
 *   Q4_0, Q8_0, IQ4_NL, Q1_0, Q2_0  d
 *   Q4_1    (d, m) pairs: d at 4 * r, m at 4 * r + 2
 *   MXFP4   E8M0 exponent byte e at r (kernel scale 2^(e - 127))
 *   Q2_K    SCALES: GGML's scale bytes (min << 4 | scale), sub-block of k 0..15 at r, of k 16..31 at 32 + r;
 *           D: 8 FP16 of tile j (0..7) of a super-block: d (j < 4) or -dmin (j >= 4) of rows 8 * (j % 4) + i at 2 * i
 *   Q3_K    d * (scale - 32): k 0..15 at 2 * r, k 16..31 at 64 + 2 * r; SIGNS: bit set when the code is negative
 *           (hmask bit 0, value low2 - 4)
 *   Q4_K, Q5_K  (d * scale, -dmin * min) pairs at 4 * r, 4 * r + 2 (value = first * q + second)
 *   Q6_K    d * scale: k 0..15 at 2 * r, k 16..31 at 64 + 2 * r (value = scale * (q - 32))
 * Padding rows hold the code whose level is nearest zero (Q4_0 and IQ4_NL 8, Q2_0 1, Q6_K 32, Q3_K low bits 0 with
 * the sign clear; 0 elsewhere; Q1_0, whose levels are +-d, bit 0) and zero scales (FP16 +0; MXFP4 e = 0).
 */
#ifndef VNPU_HTP_TILES_H
#define VNPU_HTP_TILES_H

#include "htp-msg.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HTP_TENSOR_TILE_N_ROWS 32  /* weight rows (N, output features) per tile; an HMX tile's side */
#define HTP_TENSOR_TILE_N_COLS 32  /* K per tile of the block-32 types and the K-quants; an HMX tile's side */
#define HTP_TENSOR_TILE_K_Q1_0 128 /* K per Q1_0 tile: one GGML block, 4 HMX tiles along K */
#define HTP_TENSOR_TILE_K_Q2_0 64  /* K per Q2_0 tile: one GGML block, 2 HMX tiles along K */
#define HTP_TENSOR_TILE_ALIGN  128 /* VTCM tile stride granule: an HVX vector */

/* Bytes per tile in DDR (the REPACK buffer's tile stride). */
#define HTP_TENSOR_TILE_SIZE_Q4_0   576
#define HTP_TENSOR_TILE_SIZE_Q4_1   640
#define HTP_TENSOR_TILE_SIZE_Q8_0   1088
#define HTP_TENSOR_TILE_SIZE_IQ4_NL 576
#define HTP_TENSOR_TILE_SIZE_MXFP4  544
#define HTP_TENSOR_TILE_SIZE_Q1_0   576
#define HTP_TENSOR_TILE_SIZE_Q2_0   576
#define HTP_TENSOR_TILE_SIZE_Q2_K   336
#define HTP_TENSOR_TILE_SIZE_Q3_K   512
#define HTP_TENSOR_TILE_SIZE_Q4_K   640
#define HTP_TENSOR_TILE_SIZE_Q5_K   768
#define HTP_TENSOR_TILE_SIZE_Q6_K   896

/* Tile stride in VTCM: the size rounded up to HTP_TENSOR_TILE_ALIGN (upstream's 640 / 1152 for the first five). */
#define HTP_TENSOR_TILE_ALIGNED_SIZE_Q4_0   640
#define HTP_TENSOR_TILE_ALIGNED_SIZE_Q4_1   640
#define HTP_TENSOR_TILE_ALIGNED_SIZE_Q8_0   1152
#define HTP_TENSOR_TILE_ALIGNED_SIZE_IQ4_NL 640
#define HTP_TENSOR_TILE_ALIGNED_SIZE_MXFP4  640
#define HTP_TENSOR_TILE_ALIGNED_SIZE_Q1_0   640
#define HTP_TENSOR_TILE_ALIGNED_SIZE_Q2_0   640
#define HTP_TENSOR_TILE_ALIGNED_SIZE_Q2_K   384
#define HTP_TENSOR_TILE_ALIGNED_SIZE_Q3_K   512
#define HTP_TENSOR_TILE_ALIGNED_SIZE_Q4_K   640
#define HTP_TENSOR_TILE_ALIGNED_SIZE_Q5_K   768
#define HTP_TENSOR_TILE_ALIGNED_SIZE_Q6_K   896

/* Area offsets in a tile (layouts in the comment at the top). QS: the codes (for Q3_K their low 2 bits, for Q6_K
 * their low 4); QH: the high bits; SIGNS: Q3_K's sign plane; SCALES: the per-row scale area; D: Q2_K's d / -dmin. */
#define HTP_TENSOR_TILE_QS_OFFSET_Q4_0       0
#define HTP_TENSOR_TILE_SCALES_OFFSET_Q4_0   512
#define HTP_TENSOR_TILE_QS_OFFSET_Q4_1       0
#define HTP_TENSOR_TILE_SCALES_OFFSET_Q4_1   512
#define HTP_TENSOR_TILE_QS_OFFSET_Q8_0       0
#define HTP_TENSOR_TILE_SCALES_OFFSET_Q8_0   1024
#define HTP_TENSOR_TILE_QS_OFFSET_IQ4_NL     0
#define HTP_TENSOR_TILE_SCALES_OFFSET_IQ4_NL 512
#define HTP_TENSOR_TILE_QS_OFFSET_MXFP4      0
#define HTP_TENSOR_TILE_SCALES_OFFSET_MXFP4  512
#define HTP_TENSOR_TILE_QS_OFFSET_Q1_0       0
#define HTP_TENSOR_TILE_SCALES_OFFSET_Q1_0   512
#define HTP_TENSOR_TILE_QS_OFFSET_Q2_0       0
#define HTP_TENSOR_TILE_SCALES_OFFSET_Q2_0   512
#define HTP_TENSOR_TILE_QS_OFFSET_Q2_K       0
#define HTP_TENSOR_TILE_SCALES_OFFSET_Q2_K   256
#define HTP_TENSOR_TILE_D_OFFSET_Q2_K        320
#define HTP_TENSOR_TILE_QS_OFFSET_Q3_K       0
#define HTP_TENSOR_TILE_SIGNS_OFFSET_Q3_K    256
#define HTP_TENSOR_TILE_SCALES_OFFSET_Q3_K   384
#define HTP_TENSOR_TILE_QS_OFFSET_Q4_K       0
#define HTP_TENSOR_TILE_SCALES_OFFSET_Q4_K   512
#define HTP_TENSOR_TILE_QS_OFFSET_Q5_K       0
#define HTP_TENSOR_TILE_SCALES_OFFSET_Q5_K   512
#define HTP_TENSOR_TILE_QH_OFFSET_Q5_K       640
#define HTP_TENSOR_TILE_QS_OFFSET_Q6_K       0
#define HTP_TENSOR_TILE_QH_OFFSET_Q6_K       512
#define HTP_TENSOR_TILE_SCALES_OFFSET_Q6_K   768

/* Tripwires: the areas fill the tiles exactly, and the aligned strides are the sizes rounded up to a vector. */
_Static_assert(HTP_TENSOR_TILE_SCALES_OFFSET_Q4_0 + 32 * 2 == HTP_TENSOR_TILE_SIZE_Q4_0, "q4_0 tile areas");
_Static_assert(HTP_TENSOR_TILE_SCALES_OFFSET_Q4_1 + 32 * 4 == HTP_TENSOR_TILE_SIZE_Q4_1, "q4_1 tile areas");
_Static_assert(HTP_TENSOR_TILE_SCALES_OFFSET_Q8_0 + 32 * 2 == HTP_TENSOR_TILE_SIZE_Q8_0, "q8_0 tile areas");
_Static_assert(HTP_TENSOR_TILE_SCALES_OFFSET_IQ4_NL + 32 * 2 == HTP_TENSOR_TILE_SIZE_IQ4_NL, "iq4_nl tile areas");
_Static_assert(HTP_TENSOR_TILE_SCALES_OFFSET_MXFP4 + 32 * 1 == HTP_TENSOR_TILE_SIZE_MXFP4, "mxfp4 tile areas");
_Static_assert(HTP_TENSOR_TILE_SCALES_OFFSET_Q1_0 + 32 * 2 == HTP_TENSOR_TILE_SIZE_Q1_0, "q1_0 tile areas");
_Static_assert(HTP_TENSOR_TILE_SCALES_OFFSET_Q2_0 + 32 * 2 == HTP_TENSOR_TILE_SIZE_Q2_0, "q2_0 tile areas");
_Static_assert(HTP_TENSOR_TILE_D_OFFSET_Q2_K + 8 * 2 == HTP_TENSOR_TILE_SIZE_Q2_K, "q2_K tile areas");
_Static_assert(HTP_TENSOR_TILE_SCALES_OFFSET_Q3_K + 64 * 2 == HTP_TENSOR_TILE_SIZE_Q3_K, "q3_K tile areas");
_Static_assert(HTP_TENSOR_TILE_SCALES_OFFSET_Q4_K + 32 * 4 == HTP_TENSOR_TILE_SIZE_Q4_K, "q4_K tile areas");
_Static_assert(HTP_TENSOR_TILE_QH_OFFSET_Q5_K + 128 == HTP_TENSOR_TILE_SIZE_Q5_K, "q5_K tile areas");
_Static_assert(HTP_TENSOR_TILE_SCALES_OFFSET_Q6_K + 64 * 2 == HTP_TENSOR_TILE_SIZE_Q6_K, "q6_K tile areas");

struct htp_tile_geom {
    uint32_t k_cols;          /* K columns per tile */
    uint32_t size;            /* bytes per tile in DDR */
    uint32_t aligned_size;    /* bytes per tile in VTCM: size rounded up to HTP_TENSOR_TILE_ALIGN */
    uint32_t tiles_per_block; /* tiles one GGML block spans along K: 8 for the K-quants, else 1 */
};

/* The geometry of a tiled type (a GGML type id); false for a type with no tiled format. */
static inline bool htp_tile_geom_get(enum htp_type type, struct htp_tile_geom *g) {
    switch (type) {
        case HTP_TYPE_Q4_0:
            *g = (struct htp_tile_geom){32, HTP_TENSOR_TILE_SIZE_Q4_0, HTP_TENSOR_TILE_ALIGNED_SIZE_Q4_0, 1};
            return true;
        case HTP_TYPE_Q4_1:
            *g = (struct htp_tile_geom){32, HTP_TENSOR_TILE_SIZE_Q4_1, HTP_TENSOR_TILE_ALIGNED_SIZE_Q4_1, 1};
            return true;
        case HTP_TYPE_Q8_0:
            *g = (struct htp_tile_geom){32, HTP_TENSOR_TILE_SIZE_Q8_0, HTP_TENSOR_TILE_ALIGNED_SIZE_Q8_0, 1};
            return true;
        case HTP_TYPE_IQ4_NL:
            *g = (struct htp_tile_geom){32, HTP_TENSOR_TILE_SIZE_IQ4_NL, HTP_TENSOR_TILE_ALIGNED_SIZE_IQ4_NL, 1};
            return true;
        case HTP_TYPE_MXFP4:
            *g = (struct htp_tile_geom){32, HTP_TENSOR_TILE_SIZE_MXFP4, HTP_TENSOR_TILE_ALIGNED_SIZE_MXFP4, 1};
            return true;
        case HTP_TYPE_Q1_0:
            *g = (struct htp_tile_geom){HTP_TENSOR_TILE_K_Q1_0, HTP_TENSOR_TILE_SIZE_Q1_0,
                                        HTP_TENSOR_TILE_ALIGNED_SIZE_Q1_0, 1};
            return true;
        case HTP_TYPE_Q2_0:
            *g = (struct htp_tile_geom){HTP_TENSOR_TILE_K_Q2_0, HTP_TENSOR_TILE_SIZE_Q2_0,
                                        HTP_TENSOR_TILE_ALIGNED_SIZE_Q2_0, 1};
            return true;
        case HTP_TYPE_Q2_K:
            *g = (struct htp_tile_geom){32, HTP_TENSOR_TILE_SIZE_Q2_K, HTP_TENSOR_TILE_ALIGNED_SIZE_Q2_K, 8};
            return true;
        case HTP_TYPE_Q3_K:
            *g = (struct htp_tile_geom){32, HTP_TENSOR_TILE_SIZE_Q3_K, HTP_TENSOR_TILE_ALIGNED_SIZE_Q3_K, 8};
            return true;
        case HTP_TYPE_Q4_K:
            *g = (struct htp_tile_geom){32, HTP_TENSOR_TILE_SIZE_Q4_K, HTP_TENSOR_TILE_ALIGNED_SIZE_Q4_K, 8};
            return true;
        case HTP_TYPE_Q5_K:
            *g = (struct htp_tile_geom){32, HTP_TENSOR_TILE_SIZE_Q5_K, HTP_TENSOR_TILE_ALIGNED_SIZE_Q5_K, 8};
            return true;
        case HTP_TYPE_Q6_K:
            *g = (struct htp_tile_geom){32, HTP_TENSOR_TILE_SIZE_Q6_K, HTP_TENSOR_TILE_ALIGNED_SIZE_Q6_K, 8};
            return true;
        case HTP_TYPE_F32:
        case HTP_TYPE_F16:
        case HTP_TYPE_I32:
        case HTP_TYPE_I64:
        case HTP_TYPE_BF16: break;
    }
    return false;
}

/* Tiles along K: ne0 / K_cols (the caller has checked ne0 % K_cols == 0). */
static inline uint32_t htp_tile_n_k_tiles(const struct htp_tile_geom *g, uint32_t ne0) {
    return ne0 / g->k_cols;
}

/* Column tiles (tile rows) of a matrix of ne1 rows: ceil(ne1 / 32). */
static inline uint32_t htp_tile_n_col_tiles(uint32_t ne1) {
    return ne1 / HTP_TENSOR_TILE_N_ROWS + (ne1 % HTP_TENSOR_TILE_N_ROWS != 0);
}

/* Rows of column tile ct that hold weights, 1..32; the rest are padding. */
static inline uint32_t htp_tile_valid_rows(uint32_t ne1, uint32_t ct) {
    const uint32_t left = ne1 - ct * HTP_TENSOR_TILE_N_ROWS;
    return left < HTP_TENSOR_TILE_N_ROWS ? left : HTP_TENSOR_TILE_N_ROWS;
}

/* Byte offset of tile (ct, kt) in its matrix: (ct * n_k_tiles + kt) * size. */
static inline uint64_t htp_tile_offset(const struct htp_tile_geom *g, uint32_t n_k_tiles, uint32_t ct, uint32_t kt) {
    return ((uint64_t) ct * n_k_tiles + kt) * g->size;
}

/* Bytes of one tile row (32 output rows by all of K): n_k_tiles * size. */
static inline uint64_t htp_tile_row_size(const struct htp_tile_geom *g, uint32_t ne0) {
    return (uint64_t) htp_tile_n_k_tiles(g, ne0) * g->size;
}

/* Bytes of one matrix, ne1 padded to a multiple of 32 rows: n_col_tiles * n_k_tiles * size. */
static inline uint64_t htp_tile_matrix_size(const struct htp_tile_geom *g, uint32_t ne0, uint32_t ne1) {
    return htp_tile_n_col_tiles(ne1) * htp_tile_row_size(g, ne0);
}

#endif /* VNPU_HTP_TILES_H */
