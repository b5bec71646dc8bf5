/*
 * The repack tests' own model of both ends of a repack, written from the documents and not from src/repack:
 * GGML's block formats (quants.h, ggml-common.h) as encoders and decoders of known codes and scales, and the
 * seed's tile layouts (000, "Tiled Weight Formats", with the readings htp-tiles.h documents) as builders of the
 * expected tile bytes and values. One row per tiled type; the tests loop over the table.
 */
#ifndef VNPU_TEST_REPACK_SEED_H
#define VNPU_TEST_REPACK_SEED_H

#include "test-common.h"
#include "type-traits.h"

#include <stdbool.h>
#include <stdint.h>

/* One row's GGML block as known content. */
struct seed_block {
    uint8_t q[256];     /* codes in element order: Q4_0, Q4_1, IQ4_NL, MXFP4, Q4_K 0..15; Q8_0 the int8 as a byte;
                           Q1_0 0..1; Q2_0, Q2_K 0..3; Q3_K 0..7 (low 2 bits | hmask bit << 2); Q5_K 0..31;
                           Q6_K 0..63 */
    uint16_t d;         /* FP16 bits; MXFP4: the E8M0 byte */
    uint16_t dmin;      /* FP16 bits: Q4_1's m, the K-quants' dmin */
    int sc[16], mn[16]; /* K-quant sub-block scales (Q2_K 0..15, Q3_K 0..63 stored, Q4_K/Q5_K 0..63, Q6_K
                           -128..127) and mins (Q2_K 0..15, Q4_K/Q5_K 0..63) */
};

struct seed_type {
    enum vnpu_type type;
    uint32_t k_cols, tile_size, aligned_size, tiles_per_block; /* the seed's numbers */
    bool lossless;
    /* Known codes and scales; exact: scales whose derived FP16 products are exact (powers of two). */
    void (*random)(struct test_rng *rng, bool exact, struct seed_block *b);
    void (*encode)(const struct seed_block *b, uint8_t *block); /* GGML's block */
    void (*decode)(const uint8_t *block, struct seed_block *b); /* and back */
    /* Row r of a block column into its tiles_per_block zeroed tiles, at the seed's byte positions; b NULL is a
     * padding row (the code nearest zero, zero scales). */
    void (*tile)(const struct seed_block *b, uint32_t r, uint8_t *tiles);
    /* Element e of the block as its tile holds it, in f32 with GGML's order of operations; *bound receives the
     * most it may differ from GGML's dequantization of the block (0 for the lossless types). */
    float (*value)(const struct seed_block *b, int e, double *bound);
};

#define SEED_N_TYPES 12
extern const struct seed_type seed_types[SEED_N_TYPES];

#endif /* VNPU_TEST_REPACK_SEED_H */
