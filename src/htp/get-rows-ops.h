/*
 * GET_ROWS from F32, F16 and the twelve tiled types, flat or tiled: what the host precomputes for op_get_rows
 * (get-rows-ops.c), and how a task's bytes reach VTCM.
 *
 * GET_ROWS  dst row (i10, i11, i12) = src0 row (idx[i10, i11, i12], i11, i12) as F32 (ggml_get_rows): src[0] the
 *           table [ne00, ne01, ne02, ne03] of any type below, src[1] I32 indices [ne10, ne02, ne03], dst[0] F32
 *           [ne00, ne10, ne02, ne03]. An index outside [0, ne01) writes nothing and fails the op with
 *           HTP_STATUS_INVAL_PARAMS.
 *
 * A table of a tiled type may be flat (GGML's blocks, rows nb[1] apart) or tiled (the REPACK layout of
 * htp-tiles.h: matrices of tile rows; the descriptor's HTP_TENSOR_TILED says which at run time), and the plan
 * fits both. A task is a chunk of a row; its bytes come by DMA as planes: each descriptor of the type's list
 * below takes `size` bytes from every unit of the chunk (a block of a flat row, or `group` tiles of a tiled
 * row) and lays them `stride` bytes apart in one staging region, from byte dst_off. So the DMA engine splits a
 * flat block into its fields and picks a tiled row's bytes out of its tiles (a tile holds 32 rows: row r's
 * bytes are at off + (r % r_mod) * r_mul, (r / r_mod) tiles in), already in the order HVX wants them. The
 * HVX side (dequant-flat.c, dequant-tiled.c) turns the regions into codes (int8 per element), scales and
 * biases (F32 per sub-block) and dequant-finish.c into F32 elements.
 */
#ifndef VNPU_GET_ROWS_OPS_H
#define VNPU_GET_ROWS_OPS_H

#include "copy-stream.h"
#include "htp-msg.h"
#include "htp-tiles.h"

#include <stdbool.h>
#include <stdint.h>

/* Elements per task of a quantized table at most (the plan's chunk): a task's scales fit a few vectors. */
#define GR_CHUNK_MAX 4096

struct get_rows_kparams {
    struct copy_plan plan; /* over dst's rows */
};
_Static_assert(sizeof(struct get_rows_kparams) <= HTP_MAX_KPARAMS * sizeof(uint32_t), "kernel_params are 128 bytes");

/* Staging regions of a task, by role (the dequantizers name them). */
enum gr_region {
    GR_QS = 0,  /* codes, or their low bits */
    GR_QH = 1,  /* high bits: Q3_K's hmask or signs, Q5_K's fifth bits, Q6_K's high 2 bits */
    GR_D = 2,   /* per-block F16 scale d, (d, m) or (d, dmin) pairs, (scale, bias) pairs, E8M0 bytes */
    GR_SC = 3,  /* scale bytes: Q2_K's, Q6_K's; Q3_K's and Q4_K/Q5_K's rearranged by the DMA; tiled F16 scales */
    GR_SC1 = 4, /* more of them (Q3_K's high bits, Q4_K/Q5_K's mins) */
    GR_SC2 = 5,
    GR_SC3 = 6,
    GR_N_REGIONS = 7,
};

/* One DMA descriptor of a task's reads. */
struct gr_dma {
    uint16_t off;    /* byte of the block or tile the unit's bytes start at (for the row's place see r_mul) */
    uint8_t size;    /* bytes per unit */
    uint8_t region;  /* enum gr_region */
    uint16_t stride; /* bytes per unit in the region */
    uint8_t dst_off; /* byte of the unit's slot where they land */
    uint8_t r_mul;   /* tiled: + (r % r_mod) * r_mul for row r of its tile */
    uint8_t r_mod;   /* tiled: rows per step of `group` (32: all in one tile; Q2_K's d: 8 rows per tile) */
    uint8_t group;   /* tiled: tiles per unit (8 for Q2_K's d and -dmin: one per super-block) */
};

#define GR_MAX_DMA 23

/* How one type's rows are read in one layout. */
struct gr_layout {
    uint8_t n_dma;
    struct gr_dma dma[GR_MAX_DMA];
};

/* A quantized type: geometry, its sub-block (elements per scale), and its two layouts. */
struct gr_type {
    uint16_t blck;  /* elements per GGML block */
    uint16_t bsize; /* bytes per block */
    uint16_t sub;   /* elements per scale: 16, 32, 64 or 128 */
    struct gr_layout flat, tiled;
};

/* clang-format off */
/* A flat descriptor: size bytes at off of each block to byte dst_off of the block's stride bytes of region. */
#define GR_F(off, size, region, stride, dst_off) {(off), (size), (region), (stride), (dst_off), 0, 32, 1}
/* Twice the block's n bytes at off, side by side (stride 2 n): the codes' low and high nibbles (or bits) are then
 * picked by position instead of shuffled into place. */
#define GR_F2(off, n, region) GR_F(off, n, region, 2 * (n), 0), GR_F(off, n, region, 2 * (n), n)
/* The 2-bit plane of the K-quants (per 128 elements 32 bytes, element 32 s + l at bits 2 s of byte l): each run of
 * 32 bytes four times, so element e of the super-block sits at byte e (its bits at 2 (e / 32 % 4)). */
#define GR_F4(off, g, region)                                                                                  \
    GR_F((off) + 32 * (g), 32, region, 256, 128 * (g)), GR_F((off) + 32 * (g), 32, region, 256, 128 * (g) + 32), \
    GR_F((off) + 32 * (g), 32, region, 256, 128 * (g) + 64), GR_F((off) + 32 * (g), 32, region, 256, 128 * (g) + 96)
#define GR_F2BIT(off, region) GR_F4(off, 0, region), GR_F4(off, 1, region)
/* The 1-bit plane (element 32 b + l at bit b of byte l): the 32 bytes eight times, element e at byte e. */
#define GR_F1BIT(off, region)                                                                                      \
    GR_F(off, 32, region, 256, 0), GR_F(off, 32, region, 256, 32), GR_F(off, 32, region, 256, 64),                  \
    GR_F(off, 32, region, 256, 96), GR_F(off, 32, region, 256, 128), GR_F(off, 32, region, 256, 160),               \
    GR_F(off, 32, region, 256, 192), GR_F(off, 32, region, 256, 224)
/* Q4_K's and Q5_K's nibbles (per 64 elements 32 bytes, low nibbles then high): each run of 32 bytes twice. */
#define GR_FNIB32(off, g) GR_F((off) + 32 * (g), 32, GR_QS, 256, 64 * (g)), GR_F((off) + 32 * (g), 32, GR_QS, 256, 64 * (g) + 32)
#define GR_FNIB_K(off) GR_FNIB32(off, 0), GR_FNIB32(off, 1), GR_FNIB32(off, 2), GR_FNIB32(off, 3)

/* A tiled descriptor: size bytes at off + r * r_mul of each tile to byte dst_off of the tile's stride bytes. */
#define GR_T(off, size, region, stride, dst_off, r_mul) {(off), (size), (region), (stride), (dst_off), (r_mul), 32, 1}
/* The nibble-pair plane: byte 32 cp + r (codes 2 cp, 2 cp + 1 of row r) to byte cp of the tile's 16. */
#define GR_NIBBLE(cp) GR_T(32 * (cp), 1, GR_QS, 16, (cp), 1)
#define GR_NIBBLES                                                                                              \
    GR_NIBBLE(0), GR_NIBBLE(1), GR_NIBBLE(2), GR_NIBBLE(3), GR_NIBBLE(4), GR_NIBBLE(5), GR_NIBBLE(6), GR_NIBBLE(7), \
    GR_NIBBLE(8), GR_NIBBLE(9), GR_NIBBLE(10), GR_NIBBLE(11), GR_NIBBLE(12), GR_NIBBLE(13), GR_NIBBLE(14), GR_NIBBLE(15)
/* Q8_0's byte-pair plane: the pair at 64 cp + 2 r to bytes 2 cp, 2 cp + 1 of the tile's 32: the codes in order. */
#define GR_PAIR(cp) GR_T(64 * (cp), 2, GR_QS, 32, 2 * (cp), 2)
#define GR_PAIRS                                                                                                \
    GR_PAIR(0), GR_PAIR(1), GR_PAIR(2), GR_PAIR(3), GR_PAIR(4), GR_PAIR(5), GR_PAIR(6), GR_PAIR(7), GR_PAIR(8),    \
    GR_PAIR(9), GR_PAIR(10), GR_PAIR(11), GR_PAIR(12), GR_PAIR(13), GR_PAIR(14), GR_PAIR(15)
/* Word m of a vrmpy-order area at off (row r's 4 bytes at 128 m + 4 r) to word m of the tile's n words. */
#define GR_WORD(off, m, region, n) GR_T((off) + 128 * (m), 4, region, 4 * (n), 4 * (m), 4)
#define GR_WORDS4(off, region) GR_WORD(off, 0, region, 4), GR_WORD(off, 1, region, 4), GR_WORD(off, 2, region, 4), \
    GR_WORD(off, 3, region, 4)

/* The types GET_ROWS dequantizes, by GGML type id; blck 0 for the others (F32, F16 and I32 are copied or
 * converted without a table). Flat offsets are the fields of GGML's block structs (src/base/quants.h), tiled ones
 * the areas of htp-tiles.h. */
static const struct gr_type gr_types[HTP_TYPE_Q2_0 + 1] = {
    [HTP_TYPE_Q4_0] = {32, 18, 32, {3, {GR_F2(2, 16, GR_QS), GR_F(0, 2, GR_D, 2, 0)}},
                       {17, {GR_NIBBLES, GR_T(512, 2, GR_D, 2, 0, 2)}}},
    [HTP_TYPE_Q4_1] = {32, 20, 32, {3, {GR_F2(4, 16, GR_QS), GR_F(0, 4, GR_D, 4, 0)}},
                       {17, {GR_NIBBLES, GR_T(512, 4, GR_D, 4, 0, 4)}}},
    [HTP_TYPE_Q8_0] = {32, 34, 32, {2, {GR_F(2, 32, GR_QS, 32, 0), GR_F(0, 2, GR_D, 2, 0)}},
                       {17, {GR_PAIRS, GR_T(1024, 2, GR_D, 2, 0, 2)}}},
    [HTP_TYPE_IQ4_NL] = {32, 18, 32, {3, {GR_F2(2, 16, GR_QS), GR_F(0, 2, GR_D, 2, 0)}},
                         {17, {GR_NIBBLES, GR_T(512, 2, GR_D, 2, 0, 2)}}},
    [HTP_TYPE_MXFP4] = {32, 17, 32, {3, {GR_F2(1, 16, GR_QS), GR_F(0, 1, GR_D, 1, 0)}},
                        {17, {GR_NIBBLES, GR_T(512, 1, GR_D, 1, 0, 1)}}},
    [HTP_TYPE_Q1_0] = {128, 18, 128, {2, {GR_F(2, 16, GR_QS, 16, 0), GR_F(0, 2, GR_D, 2, 0)}},
                       {5, {GR_WORDS4(0, GR_QS), GR_T(512, 2, GR_D, 2, 0, 2)}}},
    [HTP_TYPE_Q2_0] = {64, 18, 64, {2, {GR_F(2, 16, GR_QS, 16, 0), GR_F(0, 2, GR_D, 2, 0)}},
                       {5, {GR_WORDS4(0, GR_QS), GR_T(512, 2, GR_D, 2, 0, 2)}}},
    /* Q2_K: the 16 scale bytes in sub-block order and (d, dmin); tiled: the two scale bytes of each tile and the
     * (d, -dmin) of each super-block, kept by tiles r / 8 and 4 + r / 8 of its 8 (8 rows to a tile). */
    [HTP_TYPE_Q2_K] = {256, 84, 16, {10, {GR_F2BIT(16, GR_QS), GR_F(0, 16, GR_SC, 16, 0), GR_F(80, 4, GR_D, 4, 0)}},
                       {6, {GR_WORD(0, 0, GR_QS, 2), GR_WORD(0, 1, GR_QS, 2), GR_T(256, 1, GR_SC, 2, 0, 1),
                            GR_T(288, 1, GR_SC, 2, 1, 1), {320, 2, GR_D, 4, 0, 2, 8, 8},
                            {320 + 4 * HTP_TENSOR_TILE_SIZE_Q2_K, 2, GR_D, 4, 2, 2, 8, 8}}}},
    /* Q3_K: the 12 packed scale bytes spread to 16 per super-block: SC = bytes 0..7 twice (the low nibbles of
     * scales 0..7, then the high ones of 8..15), SC1 = bytes 8..11 four times (the high 2 bits of scale j at bits
     * 2 (j / 4)). Tiled: the F16 scales of k 0..15 and 16..31 of each tile in order. */
    [HTP_TYPE_Q3_K] = {256, 110, 16,
                       {23, {GR_F2BIT(32, GR_QS), GR_F1BIT(0, GR_QH), GR_F(108, 2, GR_D, 2, 0),
                             GR_F(96, 8, GR_SC, 16, 0), GR_F(96, 8, GR_SC, 16, 8), GR_F(104, 4, GR_SC1, 16, 0),
                             GR_F(104, 4, GR_SC1, 16, 4), GR_F(104, 4, GR_SC1, 16, 8), GR_F(104, 4, GR_SC1, 16, 12)}},
                       {5, {GR_WORD(0, 0, GR_QS, 2), GR_WORD(0, 1, GR_QS, 2), GR_WORD(256, 0, GR_QH, 1),
                            GR_T(384, 2, GR_SC, 4, 0, 2), GR_T(448, 2, GR_SC, 4, 2, 2)}}},
    /* Q4_K (and Q5_K): the 12 packed scale bytes spread to 8-byte records, one byte per sub-block: SC = bytes 0..3,
     * 8..11 (scales 0..3, low bits of 4..7), SC1 = 4..7, 8..11 (mins 0..3, low bits of 4..7), SC2 = -, 0..3 and
     * SC3 = -, 4..7 (the high 2 bits of scales and mins 4..7); (d, dmin). Tiled: (d * scale, -dmin * min) of each
     * tile. */
    [HTP_TYPE_Q4_K] = {256, 144, 32,
                       {15, {GR_FNIB_K(16), GR_F(0, 4, GR_D, 4, 0), GR_F(4, 4, GR_SC, 8, 0), GR_F(12, 4, GR_SC, 8, 4),
                             GR_F(8, 4, GR_SC1, 8, 0), GR_F(12, 4, GR_SC1, 8, 4), GR_F(4, 4, GR_SC2, 8, 4),
                             GR_F(8, 4, GR_SC3, 8, 4)}},
                       {17, {GR_NIBBLES, GR_T(512, 4, GR_D, 4, 0, 4)}}},
    /* Q5_K: as Q4_K, and the fifth bits (flat: qh; tiled: row r's 4 bytes of the QH area, in order). */
    [HTP_TYPE_Q5_K] = {256, 176, 32,
                       {23, {GR_FNIB_K(48), GR_F1BIT(16, GR_QH), GR_F(0, 4, GR_D, 4, 0), GR_F(4, 4, GR_SC, 8, 0),
                             GR_F(12, 4, GR_SC, 8, 4), GR_F(8, 4, GR_SC1, 8, 0), GR_F(12, 4, GR_SC1, 8, 4),
                             GR_F(4, 4, GR_SC2, 8, 4), GR_F(8, 4, GR_SC3, 8, 4)}},
                       {21, {GR_NIBBLES, GR_T(640, 1, GR_QH, 4, 0, 1), GR_T(672, 1, GR_QH, 4, 1, 1),
                             GR_T(704, 1, GR_QH, 4, 2, 1), GR_T(736, 1, GR_QH, 4, 3, 1), GR_T(512, 4, GR_D, 4, 0, 4)}}},
    /* Q6_K: ql (per 128 elements 64 bytes, each half twice: element e of the 128 at byte e, its nibble by
     * position), qh (the 2-bit plane), the 16 signed scale bytes in sub-block order, d. Tiled: the 4 low-bit words,
     * the 2 high-bit words and the F16 scales of k 0..15 and 16..31 of each tile. */
    [HTP_TYPE_Q6_K] = {256, 210, 16,
                       {14, {GR_F(0, 64, GR_QS, 256, 0), GR_F(0, 64, GR_QS, 256, 64), GR_F(64, 64, GR_QS, 256, 128),
                             GR_F(64, 64, GR_QS, 256, 192), GR_F2BIT(128, GR_QH), GR_F(192, 16, GR_SC, 16, 0),
                             GR_F(208, 2, GR_D, 2, 0)}},
                       {8, {GR_WORDS4(0, GR_QS), GR_WORD(512, 0, GR_QH, 2), GR_WORD(512, 1, GR_QH, 2),
                            GR_T(768, 2, GR_SC, 4, 0, 2), GR_T(832, 2, GR_SC, 4, 2, 2)}}},
};
/* clang-format on */

/* The table's row of a quantized type, NULL for any other (F32, F16 and unknown ids). */
static inline const struct gr_type *gr_type_get(uint32_t type) {
    return type < sizeof(gr_types) / sizeof(gr_types[0]) && gr_types[type].blck ? &gr_types[type] : NULL;
}

/* Where each region of a task of n elements starts in its in slot, and the slot's bytes (a multiple of 128):
 * regions in enum order, each units * stride bytes rounded up to 128 (units: n / blck blocks, or n / K_cols
 * tiles / group). */
static inline uint32_t gr_stage_layout(const struct gr_type *t, const struct gr_layout *l, uint32_t k_cols, uint32_t n,
                                       uint32_t offset[GR_N_REGIONS]) {
    uint32_t stride[GR_N_REGIONS] = {0}, units[GR_N_REGIONS] = {0};
    for (uint32_t i = 0; i < l->n_dma; i++) {
        const struct gr_dma *d = &l->dma[i];
        stride[d->region] = d->stride;
        units[d->region] = l == &t->flat ? n / t->blck : n / k_cols / d->group;
    }
    uint32_t top = 0;
    for (uint32_t r = 0; r < GR_N_REGIONS; r++) {
        offset[r] = htp_vtcm_take(&top, (uint64_t) units[r] * stride[r]);
    }
    return top;
}

/* Scratch of a task of up to n elements with sub elements per scale: codes (one byte per element, rounded up to
 * 4096: the widest step of a dequantizer writes 4096), then scales and biases (F32 per sub-block, rounded up to
 * 128 of them). */
static inline uint32_t gr_scratch_codes(uint32_t n) {
    return hex_align_up(n, 4096);
}
static inline uint32_t gr_scratch_scales(uint32_t n, uint32_t sub) {
    return hex_align_up(n / sub, 128) * 4;
}

/* Scratch of a dequantizer's own (dequant.h). */
#define GR_TMP_BYTES 4096

/* The whole scratch of a thread: codes, scales, biases and the dequantizer's. */
static inline uint32_t gr_scratch(uint32_t n, uint32_t sub) {
    return gr_scratch_codes(n) + 2 * gr_scratch_scales(n, sub) + GR_TMP_BYTES;
}

struct htp_op_ctx;

/* HTP_OP_GET_ROWS: src[0] (the table), src[1] (indices) -> dst[0]. An htp status. */
uint32_t op_get_rows(struct htp_op_ctx *octx);

#endif /* VNPU_GET_ROWS_OPS_H */
