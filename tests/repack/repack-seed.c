/*
 * The twelve rows of seed_types: GGML's block formats and the seed's tile layouts, each written as its document
 * states it (loops in the documents' order, byte offsets spelled out), independently of src/repack.
 */
#include "repack-seed.h"

#include "fp16.h"
#include "quants.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- Small helpers ------------------------------------------------------------------------------------------- */

static uint32_t rand_below(struct test_rng *rng, uint32_t n) {
    return (uint32_t) (test_rng_next(rng) % n);
}

/* An FP16 scale of magnitude in [2^-12, 1), either sign. */
static uint16_t rand_fp16(struct test_rng *rng) {
    const float v = ldexpf(1.0f + test_rng_uniform(rng), -1 - (int) rand_below(rng, 12));
    return vnpu_f32_to_fp16(rand_below(rng, 2) ? -v : v);
}

/* A power of two in [2^-9, 2^-4]: its products with 8-bit integers are FP16 numbers. */
static uint16_t rand_pow2(struct test_rng *rng) {
    return vnpu_f32_to_fp16(ldexpf(1.0f, -4 - (int) rand_below(rng, 6)));
}

static void rand_codes(struct test_rng *rng, struct seed_block *b, int n, int bits) {
    for (int e = 0; e < n; e++) {
        b->q[e] = (uint8_t) rand_below(rng, 1u << bits);
    }
}

static void put16(uint8_t *p, uint16_t v) {
    p[0] = (uint8_t) v;
    p[1] = (uint8_t) (v >> 8);
}

static uint16_t get16(const uint8_t *p) {
    return (uint16_t) (p[0] | p[1] << 8);
}

static float f16(uint16_t h) {
    return vnpu_fp16_to_f32(h);
}

/* The code of element e, or the padding code of a padding row. */
static uint8_t code(const struct seed_block *b, int e, uint8_t pad) {
    return b ? b->q[e] : pad;
}

/* The derived FP16 scale x * m of the K-quant tiles. */
static uint16_t derived(uint16_t x, int m) {
    return vnpu_f32_to_fp16(f16(x) * (float) m);
}

/* Half an FP16 ulp at |x|, x exact: at most 2^-11 |x| in the normal range, 2^-25 below 2^-14. */
static double fp16_half_ulp(double x) {
    return fabs(x) >= 0x1p-14 ? fabs(x) * 0x1p-11 : 0x1p-25;
}

/* ---- Block-32 nibble types: Q4_0, IQ4_NL, MXFP4, Q4_1 ------------------------------------------------------- */

/* GGML: element j in the low nibble of qs[j], element j + 16 in the high nibble. */
static void nibbles_encode(const struct seed_block *b, uint8_t *qs) {
    for (int j = 0; j < 16; j++) {
        qs[j] = (uint8_t) (b->q[j] | b->q[j + 16] << 4);
    }
}

static void nibbles_decode(const uint8_t *qs, struct seed_block *b) {
    for (int j = 0; j < 16; j++) {
        b->q[j] = qs[j] & 0xf;
        b->q[j + 16] = qs[j] >> 4;
    }
}

/* Seed: 16 column pairs cp; tile[cp * 32 + row] = (quant[row][2 * cp + 1] << 4) | quant[row][2 * cp]. */
static void nibble_pairs_tile(const struct seed_block *b, uint32_t r, uint8_t *t, uint8_t pad) {
    for (int cp = 0; cp < 16; cp++) {
        t[cp * 32 + r] = (uint8_t) (code(b, 2 * cp + 1, pad) << 4 | code(b, 2 * cp, pad));
    }
}

static void random_q4_0(struct test_rng *rng, bool exact, struct seed_block *b) {
    memset(b, 0, sizeof(*b));
    (void) exact;
    rand_codes(rng, b, 32, 4);
    b->d = rand_fp16(rng);
}

static void encode_q4_0(const struct seed_block *b, uint8_t *block) {
    put16(block, b->d);
    nibbles_encode(b, block + 2);
}

static void decode_q4_0(const uint8_t *block, struct seed_block *b) {
    memset(b, 0, sizeof(*b));
    b->d = get16(block);
    nibbles_decode(block + 2, b);
}

/* Q4_0 and IQ4_NL: scales (bytes 512..575): 32 FP16 d, row r at 512 + 2 * r; padding nibble 8. */
static void tile_q4_0(const struct seed_block *b, uint32_t r, uint8_t *t) {
    nibble_pairs_tile(b, r, t, 8);
    put16(t + 512 + 2 * r, b ? b->d : 0);
}

static float value_q4_0(const struct seed_block *b, int e, double *bound) {
    *bound = 0;
    return (float) (b->q[e] - 8) * f16(b->d);
}

static float value_iq4_nl(const struct seed_block *b, int e, double *bound) {
    *bound = 0;
    return f16(b->d) * (float) kvalues_iq4nl[b->q[e]];
}

static void random_mxfp4(struct test_rng *rng, bool exact, struct seed_block *b) {
    memset(b, 0, sizeof(*b));
    (void) exact;
    rand_codes(rng, b, 32, 4);
    b->d = (uint16_t) rand_below(rng, 256); /* every E8M0 byte */
}

static void encode_mxfp4(const struct seed_block *b, uint8_t *block) {
    block[0] = (uint8_t) b->d;
    nibbles_encode(b, block + 1);
}

static void decode_mxfp4(const uint8_t *block, struct seed_block *b) {
    memset(b, 0, sizeof(*b));
    b->d = block[0];
    nibbles_decode(block + 1, b);
}

/* Scales (bytes 512..543): 32 E8M0 bytes, row r at 512 + r; padding code 0 (+0.0). */
static void tile_mxfp4(const struct seed_block *b, uint32_t r, uint8_t *t) {
    nibble_pairs_tile(b, r, t, 0);
    t[512 + r] = b ? (uint8_t) b->d : 0;
}

/* OCP MX: scale 2^(e - 127); GGML's table holds the E2M1 values doubled, so the scale is halved. */
static float value_mxfp4(const struct seed_block *b, int e, double *bound) {
    *bound = 0;
    return (float) kvalues_mxfp4[b->q[e]] * ldexpf(1.0f, (int) b->d - 128);
}

static void random_q4_1(struct test_rng *rng, bool exact, struct seed_block *b) {
    memset(b, 0, sizeof(*b));
    (void) exact;
    rand_codes(rng, b, 32, 4);
    b->d = rand_fp16(rng);
    b->dmin = rand_fp16(rng);
}

static void encode_q4_1(const struct seed_block *b, uint8_t *block) {
    put16(block, b->d);
    put16(block + 2, b->dmin);
    nibbles_encode(b, block + 4);
}

static void decode_q4_1(const uint8_t *block, struct seed_block *b) {
    memset(b, 0, sizeof(*b));
    b->d = get16(block);
    b->dmin = get16(block + 2);
    nibbles_decode(block + 4, b);
}

/* Scales (bytes 512..639): scale[2 * row + 0] = d, scale[2 * row + 1] = m; padding code 0. */
static void tile_q4_1(const struct seed_block *b, uint32_t r, uint8_t *t) {
    nibble_pairs_tile(b, r, t, 0);
    put16(t + 512 + 2 * (2 * r + 0), b ? b->d : 0);
    put16(t + 512 + 2 * (2 * r + 1), b ? b->dmin : 0);
}

static float value_q4_1(const struct seed_block *b, int e, double *bound) {
    *bound = 0;
    return (float) b->q[e] * f16(b->d) + f16(b->dmin);
}

/* ---- Q8_0 ---------------------------------------------------------------------------------------------------- */

static void random_q8_0(struct test_rng *rng, bool exact, struct seed_block *b) {
    memset(b, 0, sizeof(*b));
    (void) exact;
    rand_codes(rng, b, 32, 8);
    b->d = rand_fp16(rng);
}

static void encode_q8_0(const struct seed_block *b, uint8_t *block) {
    put16(block, b->d);
    memcpy(block + 2, b->q, 32);
}

static void decode_q8_0(const uint8_t *block, struct seed_block *b) {
    memset(b, 0, sizeof(*b));
    b->d = get16(block);
    memcpy(b->q, block + 2, 32);
}

/* Quants: tile[cp * 64 + 2 * row + 0] = quant[row][2 * cp], [+ 1] = quant[row][2 * cp + 1]; scales at 1024 + 2r. */
static void tile_q8_0(const struct seed_block *b, uint32_t r, uint8_t *t) {
    for (int cp = 0; cp < 16; cp++) {
        t[cp * 64 + 2 * r + 0] = code(b, 2 * cp, 0);
        t[cp * 64 + 2 * r + 1] = code(b, 2 * cp + 1, 0);
    }
    put16(t + 1024 + 2 * r, b ? b->d : 0);
}

static float value_q8_0(const struct seed_block *b, int e, double *bound) {
    *bound = 0;
    return (float) (int8_t) b->q[e] * f16(b->d);
}

/* ---- Q1_0 and Q2_0 ------------------------------------------------------------------------------------------- */

static void random_q1_0(struct test_rng *rng, bool exact, struct seed_block *b) {
    memset(b, 0, sizeof(*b));
    (void) exact;
    rand_codes(rng, b, 128, 1);
    b->d = rand_fp16(rng);
}

/* GGML: element j at bit j % 8 of qs[j / 8]. */
static void encode_q1_0(const struct seed_block *b, uint8_t *block) {
    put16(block, b->d);
    memset(block + 2, 0, 16);
    for (int j = 0; j < 128; j++) {
        block[2 + j / 8] |= (uint8_t) (b->q[j] << (j % 8));
    }
}

static void decode_q1_0(const uint8_t *block, struct seed_block *b) {
    memset(b, 0, sizeof(*b));
    b->d = get16(block);
    for (int j = 0; j < 128; j++) {
        b->q[j] = (block[2 + j / 8] >> (j % 8)) & 1;
    }
}

/* 4 quarters of 32 columns in vrmpy order: byte_offset = quarter * 128 + 4 * row + (kq % 4), bit = kq / 4;
 * scales at 512 + 2 * row; padding bit 0. */
static void tile_q1_0(const struct seed_block *b, uint32_t r, uint8_t *t) {
    for (int quarter = 0; quarter < 4; quarter++) {
        for (int kq = 0; kq < 32; kq++) {
            t[quarter * 128 + 4 * r + kq % 4] |= (uint8_t) (code(b, 32 * quarter + kq, 0) << (kq / 4));
        }
    }
    put16(t + 512 + 2 * r, b ? b->d : 0);
}

static float value_q1_0(const struct seed_block *b, int e, double *bound) {
    *bound = 0;
    return b->q[e] ? f16(b->d) : -f16(b->d);
}

static void random_q2_0(struct test_rng *rng, bool exact, struct seed_block *b) {
    memset(b, 0, sizeof(*b));
    (void) exact;
    rand_codes(rng, b, 64, 2);
    b->d = rand_fp16(rng);
}

/* GGML: element j at bits 2 * (j % 4) of qs[j / 4]. */
static void encode_q2_0(const struct seed_block *b, uint8_t *block) {
    put16(block, b->d);
    memset(block + 2, 0, 16);
    for (int j = 0; j < 64; j++) {
        block[2 + j / 4] |= (uint8_t) (b->q[j] << (2 * (j % 4)));
    }
}

static void decode_q2_0(const uint8_t *block, struct seed_block *b) {
    memset(b, 0, sizeof(*b));
    b->d = get16(block);
    for (int j = 0; j < 64; j++) {
        b->q[j] = (block[2 + j / 4] >> (2 * (j % 4))) & 3;
    }
}

/* 16 groups of 4 columns; vector group >> 2 holds group & 3 at bit offset 2 * (group & 3), byte 4 * row + (column
 * % 4) of the vector; scales at 512 + 2 * row; padding code 1 (value 0). */
static void tile_q2_0(const struct seed_block *b, uint32_t r, uint8_t *t) {
    for (int group = 0; group < 16; group++) {
        for (int c = 0; c < 4; c++) {
            t[128 * (group >> 2) + 4 * r + c] |= (uint8_t) (code(b, 4 * group + c, 1) << (2 * (group & 3)));
        }
    }
    put16(t + 512 + 2 * r, b ? b->d : 0);
}

static float value_q2_0(const struct seed_block *b, int e, double *bound) {
    *bound = 0;
    return (float) (b->q[e] - 1) * f16(b->d);
}

/* ---- K-quants: the shared pieces ----------------------------------------------------------------------------- */

/* GGML's 2-bit array of Q2_K and Q3_K: for each half n of 128, shift s = 0..3, l = 0..31: element 128 n + 32 s + l
 * at bits 2 s of qs[32 n + l]. */
static void qs2_encode(const struct seed_block *b, uint8_t *qs) {
    memset(qs, 0, 64);
    for (int n = 0; n < 2; n++) {
        for (int s = 0; s < 4; s++) {
            for (int l = 0; l < 32; l++) {
                qs[32 * n + l] |= (uint8_t) ((b->q[128 * n + 32 * s + l] & 3) << (2 * s));
            }
        }
    }
}

static void qs2_decode(const uint8_t *qs, struct seed_block *b) {
    for (int n = 0; n < 2; n++) {
        for (int s = 0; s < 4; s++) {
            for (int l = 0; l < 32; l++) {
                b->q[128 * n + 32 * s + l] = (qs[32 * n + l] >> (2 * s)) & 3;
            }
        }
    }
}

/* The seed's 2-bit vrmpy plane of a 32-column tile: k = 0..31 in groups g = k / 4; vector m holds groups
 * 4m..4m+3 at bit offsets 0, 2, 4, 6; byte 4 * r + (k % 4) of the vector holds row r. */
static void crumb_plane(uint8_t *plane, uint32_t r, const uint8_t *codes2) {
    for (int m = 0; m < 2; m++) {
        for (int g = 4 * m; g < 4 * m + 4; g++) {
            for (int c = 0; c < 4; c++) {
                plane[128 * m + 4 * r + c] |= (uint8_t) ((codes2[4 * g + c] & 3) << (2 * (g - 4 * m)));
            }
        }
    }
}

static void random_k_scale(struct test_rng *rng, bool exact, uint16_t *x) {
    *x = exact ? rand_pow2(rng) : rand_fp16(rng);
}

/* ---- Q2_K ---------------------------------------------------------------------------------------------------- */

static void random_q2_K(struct test_rng *rng, bool exact, struct seed_block *b) {
    memset(b, 0, sizeof(*b));
    rand_codes(rng, b, 256, 2);
    for (int i = 0; i < 16; i++) {
        b->sc[i] = (int) rand_below(rng, 16);
        b->mn[i] = (int) rand_below(rng, 16);
    }
    random_k_scale(rng, exact, &b->d);
    random_k_scale(rng, exact, &b->dmin);
}

/* block_q2_K: scales[16] (scale | min << 4), qs[64], d, dmin. */
static void encode_q2_K(const struct seed_block *b, uint8_t *block) {
    for (int i = 0; i < 16; i++) {
        block[i] = (uint8_t) (b->sc[i] | b->mn[i] << 4);
    }
    qs2_encode(b, block + 16);
    put16(block + 80, b->d);
    put16(block + 82, b->dmin);
}

static void decode_q2_K(const uint8_t *block, struct seed_block *b) {
    memset(b, 0, sizeof(*b));
    for (int i = 0; i < 16; i++) {
        b->sc[i] = block[i] & 0xf;
        b->mn[i] = block[i] >> 4;
    }
    qs2_decode(block + 16, b);
    b->d = get16(block + 80);
    b->dmin = get16(block + 82);
}

/* 336 bytes: 0..255 the 2-bit plane; 256..319 raw scales[] bytes, [0..31] for k 0..15 and [32..63] for k 16..31;
 * 320..335: 8 FP16, in tile j d (j < 4) or -dmin (j >= 4) of rows 8 * (j % 4) .. 8 * (j % 4) + 7. */
static void tile_q2_K(const struct seed_block *b, uint32_t r, uint8_t *tiles) {
    for (int j = 0; j < 8; j++) {
        uint8_t *t = tiles + 336 * j;
        uint8_t codes2[32];
        for (int k = 0; k < 32; k++) {
            codes2[k] = code(b, 32 * j + k, 0);
        }
        crumb_plane(t, r, codes2);
        t[256 + r] = b ? (uint8_t) (b->sc[2 * j] | b->mn[2 * j] << 4) : 0;
        t[256 + 32 + r] = b ? (uint8_t) (b->sc[2 * j + 1] | b->mn[2 * j + 1] << 4) : 0;
        if (j % 4 == (int) r / 8) {
            const uint16_t v = !b ? 0 : j < 4 ? b->d : vnpu_f32_to_fp16(-f16(b->dmin));
            put16(t + 320 + 2 * (r - 8 * (j % 4)), v);
        }
    }
}

static float value_q2_K(const struct seed_block *b, int e, double *bound) {
    *bound = 0;
    const float dl = f16(b->d) * (float) b->sc[e / 16];
    const float ml = f16(b->dmin) * (float) b->mn[e / 16];
    return dl * (float) b->q[e] - ml;
}

/* ---- Q3_K ---------------------------------------------------------------------------------------------------- */

static void random_q3_K(struct test_rng *rng, bool exact, struct seed_block *b) {
    memset(b, 0, sizeof(*b));
    rand_codes(rng, b, 256, 3);
    for (int i = 0; i < 16; i++) {
        b->sc[i] = (int) rand_below(rng, 64);
    }
    random_k_scale(rng, exact, &b->d);
}

/* block_q3_K: hmask[32] (bit b of byte m: high bit of element 32 b + m), qs[64], scales[12], d. The 6-bit scales
 * as quantize_row_q3_K_ref packs them: low nibble of j < 8 in byte j, of j >= 8 in the high nibble of byte j - 8,
 * the top 2 bits at bits 2 * (j / 4) of byte 8 + j % 4. */
static void encode_q3_K(const struct seed_block *b, uint8_t *block) {
    memset(block, 0, 110);
    for (int m = 0; m < 32; m++) {
        for (int bit = 0; bit < 8; bit++) {
            block[m] |= (uint8_t) ((b->q[32 * bit + m] >> 2) << bit);
        }
    }
    qs2_encode(b, block + 32);
    for (int j = 0; j < 16; j++) {
        if (j < 8) {
            block[96 + j] = (uint8_t) (b->sc[j] & 0xf);
        } else {
            block[96 + j - 8] |= (uint8_t) ((b->sc[j] & 0xf) << 4);
        }
        block[96 + 8 + j % 4] |= (uint8_t) ((b->sc[j] >> 4) << (2 * (j / 4)));
    }
    put16(block + 108, b->d);
}

static void decode_q3_K(const uint8_t *block, struct seed_block *b) {
    memset(b, 0, sizeof(*b));
    qs2_decode(block + 32, b);
    for (int m = 0; m < 32; m++) {
        for (int bit = 0; bit < 8; bit++) {
            b->q[32 * bit + m] |= (uint8_t) (((block[m] >> bit) & 1) << 2);
        }
    }
    for (int j = 0; j < 16; j++) {
        const int lo = j < 8 ? block[96 + j] & 0xf : block[96 + j - 8] >> 4;
        b->sc[j] = lo | ((block[96 + 8 + j % 4] >> (2 * (j / 4))) & 3) << 4;
    }
    b->d = get16(block + 108);
}

/* 512 bytes: 0..255 low 2 bits; 256..383 sign mask, bit g set when hmask is 0; 384..511 FP16 d * (scales[] - 32):
 * fp16[0..31] for k 0..15, fp16[32..63] for k 16..31. Padding: low bits 0, sign clear. */
static void tile_q3_K(const struct seed_block *b, uint32_t r, uint8_t *tiles) {
    for (int j = 0; j < 8; j++) {
        uint8_t *t = tiles + 512 * j;
        uint8_t codes2[32];
        for (int k = 0; k < 32; k++) {
            const uint8_t q = code(b, 32 * j + k, 4);
            codes2[k] = q & 3;
            t[256 + 4 * r + k % 4] |= (uint8_t) ((q >> 2 ? 0 : 1) << (k / 4));
        }
        crumb_plane(t, r, codes2);
        put16(t + 384 + 2 * r, b ? derived(b->d, b->sc[2 * j] - 32) : 0);
        put16(t + 384 + 2 * (32 + r), b ? derived(b->d, b->sc[2 * j + 1] - 32) : 0);
    }
}

static float value_q3_K(const struct seed_block *b, int e, double *bound) {
    const int q = (b->q[e] & 3) - (b->q[e] >> 2 ? 0 : 4);
    const int m = b->sc[e / 16] - 32;
    const float s = f16(derived(b->d, m));
    *bound = abs(q) * fp16_half_ulp((double) f16(b->d) * m) + 0x1p-22 * fabs((double) s * q);
    return s * (float) q;
}

/* ---- Q4_K and Q5_K ------------------------------------------------------------------------------------------- */

static void random_q45_K(struct test_rng *rng, bool exact, struct seed_block *b, int bits) {
    memset(b, 0, sizeof(*b));
    rand_codes(rng, b, 256, bits);
    for (int i = 0; i < 8; i++) {
        b->sc[i] = (int) rand_below(rng, 64);
        b->mn[i] = (int) rand_below(rng, 64);
    }
    random_k_scale(rng, exact, &b->d);
    random_k_scale(rng, exact, &b->dmin);
}

static void random_q4_K(struct test_rng *rng, bool exact, struct seed_block *b) {
    random_q45_K(rng, exact, b, 4);
}

static void random_q5_K(struct test_rng *rng, bool exact, struct seed_block *b) {
    random_q45_K(rng, exact, b, 5);
}

/* d, dmin, then the 12 scale bytes as quantize_row_q4_K_ref packs them. */
static void q45_K_head_encode(const struct seed_block *b, uint8_t *block) {
    put16(block, b->d);
    put16(block + 2, b->dmin);
    uint8_t *s = block + 4;
    memset(s, 0, 12);
    for (int j = 0; j < 8; j++) {
        if (j < 4) {
            s[j] = (uint8_t) b->sc[j];
            s[j + 4] = (uint8_t) b->mn[j];
        } else {
            s[j + 4] = (uint8_t) ((b->sc[j] & 0xf) | (b->mn[j] & 0xf) << 4);
            s[j - 4] |= (uint8_t) ((b->sc[j] >> 4) << 6);
            s[j] |= (uint8_t) ((b->mn[j] >> 4) << 6);
        }
    }
}

/* GGML's get_scale_min_k4. */
static void q45_K_head_decode(const uint8_t *block, struct seed_block *b) {
    const uint8_t *s = block + 4;
    b->d = get16(block);
    b->dmin = get16(block + 2);
    for (int j = 0; j < 8; j++) {
        if (j < 4) {
            b->sc[j] = s[j] & 63;
            b->mn[j] = s[j + 4] & 63;
        } else {
            b->sc[j] = (s[j + 4] & 0xf) | (s[j - 4] >> 6) << 4;
            b->mn[j] = (s[j + 4] >> 4) | (s[j] >> 6) << 4;
        }
    }
}

/* qs[128]: per 64 elements, 32 bytes; element 64 c + l in the low nibble of byte 32 c + l, 64 c + 32 + l in the
 * high one. */
static void qs4_encode(const struct seed_block *b, uint8_t *qs) {
    for (int c = 0; c < 4; c++) {
        for (int l = 0; l < 32; l++) {
            qs[32 * c + l] = (uint8_t) ((b->q[64 * c + l] & 0xf) | (b->q[64 * c + 32 + l] & 0xf) << 4);
        }
    }
}

static void qs4_decode(const uint8_t *qs, struct seed_block *b) {
    for (int c = 0; c < 4; c++) {
        for (int l = 0; l < 32; l++) {
            b->q[64 * c + l] |= qs[32 * c + l] & 0xf;
            b->q[64 * c + 32 + l] |= qs[32 * c + l] >> 4;
        }
    }
}

static void encode_q4_K(const struct seed_block *b, uint8_t *block) {
    q45_K_head_encode(b, block);
    qs4_encode(b, block + 16);
}

static void decode_q4_K(const uint8_t *block, struct seed_block *b) {
    memset(b, 0, sizeof(*b));
    q45_K_head_decode(block, b);
    qs4_decode(block + 16, b);
}

/* block_q5_K: head, qh[32] (the fifth bit of element 32 s + l at bit s of qh[l]), qs[128]. */
static void encode_q5_K(const struct seed_block *b, uint8_t *block) {
    q45_K_head_encode(b, block);
    memset(block + 16, 0, 32);
    for (int e = 0; e < 256; e++) {
        block[16 + e % 32] |= (uint8_t) ((b->q[e] >> 4) << (e / 32));
    }
    qs4_encode(b, block + 48);
}

static void decode_q5_K(const uint8_t *block, struct seed_block *b) {
    memset(b, 0, sizeof(*b));
    q45_K_head_decode(block, b);
    for (int e = 0; e < 256; e++) {
        b->q[e] = (uint8_t) (((block[16 + e % 32] >> (e / 32)) & 1) << 4);
    }
    qs4_decode(block + 48, b);
}

/* Q4_K, 640 bytes: 0..511 byte 32 * cp + r holds k = 2 * cp (low nibble) and 2 * cp + 1 (high nibble); 512..639
 * 32 x 2 FP16 per row, (d * sc, -dmin * m). Q5_K adds 640..767: byte l holds the 8 high bits of lane l across
 * nibble vectors i = 0..3, bit 2i for the low nibble and 2i + 1 for the high one. Padding: code 0. */
static void tile_q45_K(const struct seed_block *b, uint32_t r, uint8_t *tiles, uint32_t size) {
    for (int j = 0; j < 8; j++) {
        uint8_t *t = tiles + size * j;
        for (int cp = 0; cp < 16; cp++) {
            const uint8_t lo = code(b, 32 * j + 2 * cp, 0), hi = code(b, 32 * j + 2 * cp + 1, 0);
            t[32 * cp + r] = (uint8_t) ((lo & 0xf) | (hi & 0xf) << 4);
            if (size == 768) {
                const int i = (32 * cp + r) / 128, lane = (32 * cp + r) % 128;
                t[640 + lane] |= (uint8_t) ((lo >> 4) << (2 * i) | (hi >> 4) << (2 * i + 1));
            }
        }
        put16(t + 512 + 4 * r, b ? derived(b->d, b->sc[j]) : 0);
        put16(t + 512 + 4 * r + 2, b ? derived(vnpu_f32_to_fp16(-f16(b->dmin)), b->mn[j]) : 0);
    }
}

static void tile_q4_K(const struct seed_block *b, uint32_t r, uint8_t *tiles) {
    tile_q45_K(b, r, tiles, 640);
}

static void tile_q5_K(const struct seed_block *b, uint32_t r, uint8_t *tiles) {
    tile_q45_K(b, r, tiles, 768);
}

static float value_q45_K(const struct seed_block *b, int e, double *bound) {
    const int q = b->q[e];
    const float d = f16(derived(b->d, b->sc[e / 32]));
    const float m = f16(derived(vnpu_f32_to_fp16(-f16(b->dmin)), b->mn[e / 32]));
    *bound = q * fp16_half_ulp((double) f16(b->d) * b->sc[e / 32]) +
             fp16_half_ulp((double) f16(b->dmin) * b->mn[e / 32]) + 0x1p-22 * (fabs((double) d * q) + fabs(m));
    return d * (float) q + m;
}

/* ---- Q6_K ---------------------------------------------------------------------------------------------------- */

static void random_q6_K(struct test_rng *rng, bool exact, struct seed_block *b) {
    memset(b, 0, sizeof(*b));
    rand_codes(rng, b, 256, 6);
    for (int i = 0; i < 16; i++) {
        b->sc[i] = (int) rand_below(rng, 256) - 128;
    }
    random_k_scale(rng, exact, &b->d);
}

/* block_q6_K: ql[128], qh[64], scales[16], d; for each half n of 128 and l = 0..31 (quantize_row_q6_K_ref):
 * ql[64n + l] = q1 | q3 << 4, ql[64n + l + 32] = q2 | q4 << 4 (low 4 bits), qh[32n + l] = high 2 bits of q1 | q2 << 2
 * | q3 << 4 | q4 << 6, with q1..q4 the codes of elements 128n + l, + 32, + 64, + 96. */
static void encode_q6_K(const struct seed_block *b, uint8_t *block) {
    for (int n = 0; n < 2; n++) {
        for (int l = 0; l < 32; l++) {
            const uint8_t *q = b->q + 128 * n + l;
            block[64 * n + l] = (uint8_t) ((q[0] & 0xf) | (q[64] & 0xf) << 4);
            block[64 * n + l + 32] = (uint8_t) ((q[32] & 0xf) | (q[96] & 0xf) << 4);
            block[128 + 32 * n + l] = (uint8_t) (q[0] >> 4 | (q[32] >> 4) << 2 | (q[64] >> 4) << 4 | (q[96] >> 4) << 6);
        }
    }
    for (int i = 0; i < 16; i++) {
        block[192 + i] = (uint8_t) (int8_t) b->sc[i];
    }
    put16(block + 208, b->d);
}

static void decode_q6_K(const uint8_t *block, struct seed_block *b) {
    memset(b, 0, sizeof(*b));
    for (int n = 0; n < 2; n++) {
        for (int l = 0; l < 32; l++) {
            uint8_t *q = b->q + 128 * n + l;
            const uint8_t h = block[128 + 32 * n + l];
            q[0] = (uint8_t) ((block[64 * n + l] & 0xf) | (h & 3) << 4);
            q[32] = (uint8_t) ((block[64 * n + l + 32] & 0xf) | ((h >> 2) & 3) << 4);
            q[64] = (uint8_t) ((block[64 * n + l] >> 4) | ((h >> 4) & 3) << 4);
            q[96] = (uint8_t) ((block[64 * n + l + 32] >> 4) | (h >> 6) << 4);
        }
    }
    for (int i = 0; i < 16; i++) {
        b->sc[i] = (int8_t) block[192 + i];
    }
    b->d = get16(block + 208);
}

/* 896 bytes: 0..511 low 4 bits, vector i holds group 2i (low nibble) and 2i + 1 (high nibble); 512..767 high 2
 * bits, vector 4 + m holds groups 4m..4m+3 at bit offsets 0, 2, 4, 6; 768..895 FP16 d * scales[]: fp16[0..31] for
 * k 0..15, fp16[32..63] for k 16..31. vrmpy order: byte 4 * r + (k % 4) of a vector. Padding: code 32. */
static void tile_q6_K(const struct seed_block *b, uint32_t r, uint8_t *tiles) {
    for (int j = 0; j < 8; j++) {
        uint8_t *t = tiles + 896 * j;
        uint8_t q[32], codes2[32];
        for (int k = 0; k < 32; k++) {
            q[k] = code(b, 32 * j + k, 32);
            codes2[k] = q[k] >> 4;
        }
        for (int i = 0; i < 4; i++) {
            for (int c = 0; c < 4; c++) {
                t[128 * i + 4 * r + c] = (uint8_t) ((q[4 * (2 * i) + c] & 0xf) | (q[4 * (2 * i + 1) + c] & 0xf) << 4);
            }
        }
        crumb_plane(t + 512, r, codes2);
        put16(t + 768 + 2 * r, b ? derived(b->d, b->sc[2 * j]) : 0);
        put16(t + 768 + 2 * (32 + r), b ? derived(b->d, b->sc[2 * j + 1]) : 0);
    }
}

static float value_q6_K(const struct seed_block *b, int e, double *bound) {
    const int q = b->q[e] - 32;
    const float s = f16(derived(b->d, b->sc[e / 16]));
    *bound = abs(q) * fp16_half_ulp((double) f16(b->d) * b->sc[e / 16]) + 0x1p-22 * fabs((double) s * q);
    return s * (float) q;
}

/* ---- The table ----------------------------------------------------------------------------------------------- */

const struct seed_type seed_types[SEED_N_TYPES] = {
    {VNPU_TYPE_Q4_0, 32, 576, 640, 1, true, random_q4_0, encode_q4_0, decode_q4_0, tile_q4_0, value_q4_0},
    {VNPU_TYPE_Q4_1, 32, 640, 640, 1, true, random_q4_1, encode_q4_1, decode_q4_1, tile_q4_1, value_q4_1},
    {VNPU_TYPE_Q8_0, 32, 1088, 1152, 1, true, random_q8_0, encode_q8_0, decode_q8_0, tile_q8_0, value_q8_0},
    {VNPU_TYPE_IQ4_NL, 32, 576, 640, 1, true, random_q4_0, encode_q4_0, decode_q4_0, tile_q4_0, value_iq4_nl},
    {VNPU_TYPE_MXFP4, 32, 544, 640, 1, true, random_mxfp4, encode_mxfp4, decode_mxfp4, tile_mxfp4, value_mxfp4},
    {VNPU_TYPE_Q1_0, 128, 576, 640, 1, true, random_q1_0, encode_q1_0, decode_q1_0, tile_q1_0, value_q1_0},
    {VNPU_TYPE_Q2_0, 64, 576, 640, 1, true, random_q2_0, encode_q2_0, decode_q2_0, tile_q2_0, value_q2_0},
    {VNPU_TYPE_Q2_K, 32, 336, 384, 8, true, random_q2_K, encode_q2_K, decode_q2_K, tile_q2_K, value_q2_K},
    {VNPU_TYPE_Q3_K, 32, 512, 512, 8, false, random_q3_K, encode_q3_K, decode_q3_K, tile_q3_K, value_q3_K},
    {VNPU_TYPE_Q4_K, 32, 640, 640, 8, false, random_q4_K, encode_q4_K, decode_q4_K, tile_q4_K, value_q45_K},
    {VNPU_TYPE_Q5_K, 32, 768, 768, 8, false, random_q5_K, encode_q5_K, decode_q5_K, tile_q5_K, value_q45_K},
    {VNPU_TYPE_Q6_K, 32, 896, 896, 8, false, random_q6_K, encode_q6_K, decode_q6_K, tile_q6_K, value_q6_K},
};
