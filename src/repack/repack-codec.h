/*
 * Inside vnpu-repack: one codec per tiled type, the bit planes the tiles are made of, and the factoring of derived
 * FP16 scales. The codecs work on a block column: the 32 rows of one GGML block each (one per tile row, rows[r]) and
 * the tiles_per_block consecutive tiles that hold them; repack.c walks the grid and hands them the rows.
 */
#ifndef VNPU_REPACK_CODEC_H
#define VNPU_REPACK_CODEC_H

#include "htp-tiles.h"
#include "fp16.h"
#include "type-traits.h"

#include <stdbool.h>
#include <stdint.h>

#define TILE_ROWS HTP_TENSOR_TILE_N_ROWS

struct repack_codec {
    enum vnpu_type type;
    bool lossless;
    /* GGML blocks -> tiles: rows[r] is row r's block, NULL for a padding row. Writes every byte of the
     * tiles_per_block tiles. */
    void (*pack)(const struct repack_codec *c, const uint8_t *const rows[TILE_ROWS], uint8_t *tiles);
    /* tiles -> the GGML blocks of the rows whose pointer is not NULL. Returns how many rows' derived scales could
     * not be factored exactly (always 0 for the lossless types). */
    int (*unpack)(const struct repack_codec *c, const uint8_t *tiles, uint8_t *const rows[TILE_ROWS]);
    /* tile j (0..tiles_per_block - 1) of the block column at tiles -> y[TILE_ROWS][K_cols], in f32 with GGML's
     * order of operations. */
    void (*dequant)(const struct repack_codec *c, const uint8_t *tiles, uint32_t j, float *y);
    const void *layout; /* the shared legacy codec's description of its type; NULL for the K-quants */
};

extern const struct repack_codec repack_codec_q4_0, repack_codec_q4_1, repack_codec_q8_0, repack_codec_iq4_nl,
    repack_codec_mxfp4, repack_codec_q1_0, repack_codec_q2_0; /* repack-legacy.c */
extern const struct repack_codec repack_codec_q2_K, repack_codec_q3_K, repack_codec_q4_K, repack_codec_q5_K,
    repack_codec_q6_K; /* repack-kquants.c */

/* ---- Little-endian FP16 fields ------------------------------------------------------------------------------ */

static inline vnpu_fp16_t tile_get_fp16(const uint8_t *p) {
    return (vnpu_fp16_t) (p[0] | p[1] << 8);
}

static inline void tile_put_fp16(uint8_t *p, vnpu_fp16_t h) {
    p[0] = (uint8_t) h;
    p[1] = (uint8_t) (h >> 8);
}

/* ---- Planes (htp-tiles.h gives the formulas); put ORs into a zeroed plane, get extracts ---------------------- */

/* Nibble pairs: byte 32 * (k / 2) + r holds k even (low nibble) and k odd (high); 32 codes of row r. */
static inline void plane_nibbles_put(uint8_t *plane, uint32_t r, const uint8_t q[32]) {
    for (uint32_t cp = 0; cp < 16; cp++) {
        plane[32 * cp + r] = (uint8_t) (q[2 * cp] | q[2 * cp + 1] << 4);
    }
}

static inline void plane_nibbles_get(const uint8_t *plane, uint32_t r, uint8_t q[32]) {
    for (uint32_t cp = 0; cp < 16; cp++) {
        q[2 * cp] = plane[32 * cp + r] & 0xf;
        q[2 * cp + 1] = plane[32 * cp + r] >> 4;
    }
}

/* vrmpy order with b-bit codes (b = 1, 2, 4): byte 128 * (k / (32 / b)) + 4 * r + k % 4, at bit b * (k / 4 % (8 / b));
 * n_k codes of row r (a multiple of 32 / b). */
static inline void plane_vrmpy_put(uint8_t *plane, uint32_t r, const uint8_t *q, uint32_t n_k, uint32_t b) {
    const uint32_t per_vec = 32 / b;
    for (uint32_t k = 0; k < n_k; k++) {
        plane[128 * (k / per_vec) + 4 * r + k % 4] |= (uint8_t) (q[k] << (b * (k / 4 % (8 / b))));
    }
}

static inline void plane_vrmpy_get(const uint8_t *plane, uint32_t r, uint8_t *q, uint32_t n_k, uint32_t b) {
    const uint32_t per_vec = 32 / b;
    for (uint32_t k = 0; k < n_k; k++) {
        q[k] = (plane[128 * (k / per_vec) + 4 * r + k % 4] >> (b * (k / 4 % (8 / b)))) & ((1u << b) - 1);
    }
}

/* ---- Derived scales (repack-scales.c) ----------------------------------------------------------------------- */

/* The derived FP16 scale of the K-quant tiles: d * m computed in f32 (exact: d has 11 significant bits, |m| < 2^8)
 * and rounded once to FP16, nearest even. */
static inline vnpu_fp16_t scale_derive(vnpu_fp16_t d, int m) {
    return vnpu_f32_to_fp16(vnpu_fp16_to_f32(d) * (float) m);
}

/* Factor n derived scales s[i] == scale_derive(d, m[i]) back: find an FP16 d and integers m[i] in [lo, hi]
 * (lo <= 0 < hi) that reproduce every s[i] bit for bit. Prefers a factorization where every product is exact
 * (d * m[i] == s[i] in f32, so that GGML's dequantization with d and m equals the tile's), then the one with the
 * largest |m| of the largest |s|. Never fails on scales a repack derived from a finite d unless every nonzero one
 * overflowed; returns false when nothing reproduces s (NaN, infinities only, bytes no repack wrote), with d and m
 * then the nearest in-range fit of the finite values (inf clamped, NaN -> 0). */
bool scale_factor(const vnpu_fp16_t *s, int n, int lo, int hi, vnpu_fp16_t *d, int *m);

#endif /* VNPU_REPACK_CODEC_H */
