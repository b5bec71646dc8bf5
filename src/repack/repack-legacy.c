/*
 * The tiles of the one-scale-per-block types: Q4_0, Q4_1, Q8_0, IQ4_NL, MXFP4 (32 codes per block), Q1_0 (128) and
 * Q2_0 (64). Their GGML block is its scale bytes (d; d and m; or the E8M0 exponent e) followed by its codes, and one
 * block is one tile: row r's codes go to the type's plane, its scale bytes verbatim to scales_offset +
 * r * scale_bytes (seed, "Block-32 Quantized Formats", "Q1_0 Format", "Q2_0 Format"). Everything is kept, so these
 * layouts are lossless, and one codec driven by a struct legacy_layout serves all seven.
 */
#include "repack-codec.h"

#include "log.h"
#include "quants.h"

#include <assert.h>
#include <stddef.h>
#include <string.h>

struct legacy_layout {
    uint32_t k_cols;        /* codes per block = K per tile */
    uint32_t scale_bytes;   /* leading bytes of a block, copied to the tile's scale area */
    uint32_t scales_offset; /* tile byte of row 0's scale bytes */
    uint32_t tile_size;
    uint8_t pad_code;                                               /* the code whose level is nearest 0 */
    void (*codes_get)(const uint8_t *qs, uint8_t *q);               /* a block's code bytes -> k_cols codes, in order */
    void (*codes_put)(const uint8_t *q, uint8_t *qs);               /* the inverse, writing every code byte */
    void (*plane_put)(uint8_t *tile, uint32_t r, const uint8_t *q); /* row r's codes into a zeroed tile */
    void (*plane_get)(const uint8_t *tile, uint32_t r, uint8_t *q);
    void (*values)(const uint8_t *scale, const uint8_t *q, float *y); /* k_cols values, in GGML's expression */
};

#define LEGACY_MAX_K QK1_0

/* ---- GGML's code bytes --------------------------------------------------------------------------------------- */

/* 4-bit (Q4_0, Q4_1, IQ4_NL, MXFP4): element j in the low nibble of byte j, element j + 16 in the high nibble. */
static void codes_get_nibbles(const uint8_t *qs, uint8_t *q) {
    for (int j = 0; j < 16; j++) {
        q[j] = qs[j] & 0xf;
        q[j + 16] = qs[j] >> 4;
    }
}

static void codes_put_nibbles(const uint8_t *q, uint8_t *qs) {
    for (int j = 0; j < 16; j++) {
        qs[j] = (uint8_t) (q[j] | q[j + 16] << 4);
    }
}

/* 8-bit (Q8_0): one int8 per element, kept as its byte. */
static void codes_get_bytes(const uint8_t *qs, uint8_t *q) {
    memcpy(q, qs, QK8_0);
}

static void codes_put_bytes(const uint8_t *q, uint8_t *qs) {
    memcpy(qs, q, QK8_0);
}

/* 1-bit (Q1_0): element j at bit j % 8 of byte j / 8. */
static void codes_get_bits(const uint8_t *qs, uint8_t *q) {
    for (int j = 0; j < QK1_0; j++) {
        q[j] = (qs[j / 8] >> (j % 8)) & 1;
    }
}

static void codes_put_bits(const uint8_t *q, uint8_t *qs) {
    memset(qs, 0, QK1_0 / 8);
    for (int j = 0; j < QK1_0; j++) {
        qs[j / 8] |= (uint8_t) (q[j] << (j % 8));
    }
}

/* 2-bit (Q2_0): element j at bits 2 * (j % 4) of byte j / 4. */
static void codes_get_crumbs(const uint8_t *qs, uint8_t *q) {
    for (int j = 0; j < QK2_0; j++) {
        q[j] = (qs[j / 4] >> (2 * (j % 4))) & 3;
    }
}

static void codes_put_crumbs(const uint8_t *q, uint8_t *qs) {
    memset(qs, 0, QK2_0 / 4);
    for (int j = 0; j < QK2_0; j++) {
        qs[j / 4] |= (uint8_t) (q[j] << (2 * (j % 4)));
    }
}

/* ---- Tile planes --------------------------------------------------------------------------------------------- */

static void plane_put_nibbles(uint8_t *tile, uint32_t r, const uint8_t *q) {
    plane_nibbles_put(tile, r, q);
}

static void plane_get_nibbles(const uint8_t *tile, uint32_t r, uint8_t *q) {
    plane_nibbles_get(tile, r, q);
}

/* Q8_0: byte 64 * (k / 2) + 2 * r + k % 2. */
static void plane_put_q8_0(uint8_t *tile, uint32_t r, const uint8_t *q) {
    for (uint32_t k = 0; k < QK8_0; k++) {
        tile[64 * (k / 2) + 2 * r + k % 2] = q[k];
    }
}

static void plane_get_q8_0(const uint8_t *tile, uint32_t r, uint8_t *q) {
    for (uint32_t k = 0; k < QK8_0; k++) {
        q[k] = tile[64 * (k / 2) + 2 * r + k % 2];
    }
}

/* Q1_0: 4 quarters of 32 columns, one vector each, 1-bit vrmpy order. */
static void plane_put_q1_0(uint8_t *tile, uint32_t r, const uint8_t *q) {
    plane_vrmpy_put(tile, r, q, QK1_0, 1);
}

static void plane_get_q1_0(const uint8_t *tile, uint32_t r, uint8_t *q) {
    plane_vrmpy_get(tile, r, q, QK1_0, 1);
}

/* Q2_0: 16 groups of 4 columns over 4 vectors, 2-bit vrmpy order. */
static void plane_put_q2_0(uint8_t *tile, uint32_t r, const uint8_t *q) {
    plane_vrmpy_put(tile, r, q, QK2_0, 2);
}

static void plane_get_q2_0(const uint8_t *tile, uint32_t r, uint8_t *q) {
    plane_vrmpy_get(tile, r, q, QK2_0, 2);
}

/* ---- Values: each type's to_f32 expression (quants-legacy.c, quants-nl.c), operand for operand --------------- */

static void values_q4_0(const uint8_t *scale, const uint8_t *q, float *y) {
    const float d = vnpu_fp16_to_f32(tile_get_fp16(scale));
    for (int k = 0; k < QK4_0; k++) {
        y[k] = (float) (q[k] - 8) * d;
    }
}

static void values_q4_1(const uint8_t *scale, const uint8_t *q, float *y) {
    const float d = vnpu_fp16_to_f32(tile_get_fp16(scale));
    const float m = vnpu_fp16_to_f32(tile_get_fp16(scale + 2));
    for (int k = 0; k < QK4_1; k++) {
        y[k] = (float) q[k] * d + m;
    }
}

static void values_q8_0(const uint8_t *scale, const uint8_t *q, float *y) {
    const float d = vnpu_fp16_to_f32(tile_get_fp16(scale));
    for (int k = 0; k < QK8_0; k++) {
        y[k] = (float) (int8_t) q[k] * d;
    }
}

static void values_iq4_nl(const uint8_t *scale, const uint8_t *q, float *y) {
    const float d = vnpu_fp16_to_f32(tile_get_fp16(scale));
    for (int k = 0; k < QK4_NL; k++) {
        y[k] = d * (float) kvalues_iq4nl[q[k]];
    }
}

static void values_mxfp4(const uint8_t *scale, const uint8_t *q, float *y) {
    const float d = e8m0_to_f32_half(scale[0]);
    for (int k = 0; k < QK_MXFP4; k++) {
        y[k] = (float) kvalues_mxfp4[q[k]] * d;
    }
}

static void values_q1_0(const uint8_t *scale, const uint8_t *q, float *y) {
    const float d = vnpu_fp16_to_f32(tile_get_fp16(scale));
    for (int k = 0; k < QK1_0; k++) {
        y[k] = q[k] ? d : -d;
    }
}

static void values_q2_0(const uint8_t *scale, const uint8_t *q, float *y) {
    const float d = vnpu_fp16_to_f32(tile_get_fp16(scale));
    for (int k = 0; k < QK2_0; k++) {
        y[k] = (float) (q[k] - 1) * d;
    }
}

/* ---- The codec ----------------------------------------------------------------------------------------------- */

static void legacy_pack(const struct repack_codec *c, const uint8_t *const rows[TILE_ROWS], uint8_t *tile) {
    const struct legacy_layout *L = c->layout;
    uint8_t q[LEGACY_MAX_K];
    memset(tile, 0, L->tile_size); /* padding rows: zero scale bytes */
    for (uint32_t r = 0; r < TILE_ROWS; r++) {
        if (rows[r]) {
            L->codes_get(rows[r] + L->scale_bytes, q);
            memcpy(tile + L->scales_offset + r * L->scale_bytes, rows[r], L->scale_bytes);
        } else {
            memset(q, L->pad_code, L->k_cols);
        }
        L->plane_put(tile, r, q);
    }
}

static int legacy_unpack(const struct repack_codec *c, const uint8_t *tile, uint8_t *const rows[TILE_ROWS]) {
    const struct legacy_layout *L = c->layout;
    uint8_t q[LEGACY_MAX_K];
    for (uint32_t r = 0; r < TILE_ROWS; r++) {
        if (rows[r]) {
            L->plane_get(tile, r, q);
            L->codes_put(q, rows[r] + L->scale_bytes);
            memcpy(rows[r], tile + L->scales_offset + r * L->scale_bytes, L->scale_bytes);
        }
    }
    return 0;
}

static void legacy_dequant(const struct repack_codec *c, const uint8_t *tile, uint32_t j, float *y) {
    const struct legacy_layout *L = c->layout;
    uint8_t q[LEGACY_MAX_K];
    VNPU_ASSERT(j == 0); /* one tile per block */
    for (uint32_t r = 0; r < TILE_ROWS; r++) {
        L->plane_get(tile, r, q);
        L->values(tile + L->scales_offset + r * L->scale_bytes, q, y + r * L->k_cols);
    }
}

/* ---- The seven types ----------------------------------------------------------------------------------------- */

static const struct legacy_layout layout_q4_0 = {.k_cols = QK4_0,
                                                 .scale_bytes = 2,
                                                 .scales_offset = HTP_TENSOR_TILE_SCALES_OFFSET_Q4_0,
                                                 .tile_size = HTP_TENSOR_TILE_SIZE_Q4_0,
                                                 .pad_code = 8, /* (8 - 8) * d */
                                                 .codes_get = codes_get_nibbles,
                                                 .codes_put = codes_put_nibbles,
                                                 .plane_put = plane_put_nibbles,
                                                 .plane_get = plane_get_nibbles,
                                                 .values = values_q4_0};

static const struct legacy_layout layout_q4_1 = {.k_cols = QK4_1,
                                                 .scale_bytes = 4,
                                                 .scales_offset = HTP_TENSOR_TILE_SCALES_OFFSET_Q4_1,
                                                 .tile_size = HTP_TENSOR_TILE_SIZE_Q4_1,
                                                 .pad_code = 0, /* 0 * d + m */
                                                 .codes_get = codes_get_nibbles,
                                                 .codes_put = codes_put_nibbles,
                                                 .plane_put = plane_put_nibbles,
                                                 .plane_get = plane_get_nibbles,
                                                 .values = values_q4_1};

static const struct legacy_layout layout_q8_0 = {.k_cols = QK8_0,
                                                 .scale_bytes = 2,
                                                 .scales_offset = HTP_TENSOR_TILE_SCALES_OFFSET_Q8_0,
                                                 .tile_size = HTP_TENSOR_TILE_SIZE_Q8_0,
                                                 .pad_code = 0,
                                                 .codes_get = codes_get_bytes,
                                                 .codes_put = codes_put_bytes,
                                                 .plane_put = plane_put_q8_0,
                                                 .plane_get = plane_get_q8_0,
                                                 .values = values_q8_0};

static const struct legacy_layout layout_iq4_nl = {.k_cols = QK4_NL,
                                                   .scale_bytes = 2,
                                                   .scales_offset = HTP_TENSOR_TILE_SCALES_OFFSET_IQ4_NL,
                                                   .tile_size = HTP_TENSOR_TILE_SIZE_IQ4_NL,
                                                   .pad_code = 8, /* level +1, the smallest; upstream's choice */
                                                   .codes_get = codes_get_nibbles,
                                                   .codes_put = codes_put_nibbles,
                                                   .plane_put = plane_put_nibbles,
                                                   .plane_get = plane_get_nibbles,
                                                   .values = values_iq4_nl};

static const struct legacy_layout layout_mxfp4 = {.k_cols = QK_MXFP4,
                                                  .scale_bytes = 1,
                                                  .scales_offset = HTP_TENSOR_TILE_SCALES_OFFSET_MXFP4,
                                                  .tile_size = HTP_TENSOR_TILE_SIZE_MXFP4,
                                                  .pad_code = 0, /* +0.0 */
                                                  .codes_get = codes_get_nibbles,
                                                  .codes_put = codes_put_nibbles,
                                                  .plane_put = plane_put_nibbles,
                                                  .plane_get = plane_get_nibbles,
                                                  .values = values_mxfp4};

static const struct legacy_layout layout_q1_0 = {.k_cols = QK1_0,
                                                 .scale_bytes = 2,
                                                 .scales_offset = HTP_TENSOR_TILE_SCALES_OFFSET_Q1_0,
                                                 .tile_size = HTP_TENSOR_TILE_SIZE_Q1_0,
                                                 .pad_code = 0, /* -d: the levels +-d tie */
                                                 .codes_get = codes_get_bits,
                                                 .codes_put = codes_put_bits,
                                                 .plane_put = plane_put_q1_0,
                                                 .plane_get = plane_get_q1_0,
                                                 .values = values_q1_0};

static const struct legacy_layout layout_q2_0 = {.k_cols = QK2_0,
                                                 .scale_bytes = 2,
                                                 .scales_offset = HTP_TENSOR_TILE_SCALES_OFFSET_Q2_0,
                                                 .tile_size = HTP_TENSOR_TILE_SIZE_Q2_0,
                                                 .pad_code = 1, /* (1 - 1) * d */
                                                 .codes_get = codes_get_crumbs,
                                                 .codes_put = codes_put_crumbs,
                                                 .plane_put = plane_put_q2_0,
                                                 .plane_get = plane_get_q2_0,
                                                 .values = values_q2_0};

/* The scale bytes lead every block, and a block's codes fill the rest of it. */
static_assert(offsetof(block_q4_0, qs) == 2 && offsetof(block_q4_1, qs) == 4 && offsetof(block_q8_0, qs) == 2 &&
                  offsetof(block_iq4_nl, qs) == 2 && offsetof(block_mxfp4, qs) == 1 && offsetof(block_q1_0, qs) == 2 &&
                  offsetof(block_q2_0, qs) == 2,
              "legacy blocks: scale bytes, then codes");

const struct repack_codec repack_codec_q4_0 = {VNPU_TYPE_Q4_0, true,           legacy_pack,
                                               legacy_unpack,  legacy_dequant, &layout_q4_0};
const struct repack_codec repack_codec_q4_1 = {VNPU_TYPE_Q4_1, true,           legacy_pack,
                                               legacy_unpack,  legacy_dequant, &layout_q4_1};
const struct repack_codec repack_codec_q8_0 = {VNPU_TYPE_Q8_0, true,           legacy_pack,
                                               legacy_unpack,  legacy_dequant, &layout_q8_0};
const struct repack_codec repack_codec_iq4_nl = {VNPU_TYPE_IQ4_NL, true,           legacy_pack,
                                                 legacy_unpack,    legacy_dequant, &layout_iq4_nl};
const struct repack_codec repack_codec_mxfp4 = {VNPU_TYPE_MXFP4, true,           legacy_pack,
                                                legacy_unpack,   legacy_dequant, &layout_mxfp4};
const struct repack_codec repack_codec_q1_0 = {VNPU_TYPE_Q1_0, true,           legacy_pack,
                                               legacy_unpack,  legacy_dequant, &layout_q1_0};
const struct repack_codec repack_codec_q2_0 = {VNPU_TYPE_Q2_0, true,           legacy_pack,
                                               legacy_unpack,  legacy_dequant, &layout_q2_0};
