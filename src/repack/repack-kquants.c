/*
 * The tiles of the K-quants Q2_K, Q3_K, Q4_K, Q5_K and Q6_K (seed, "K-Quants Formats"). A 256-element super-block
 * is 8 tiles of 32 columns: tile j of a block column holds elements 32 * j .. 32 * j + 31 of its 32 rows, and the
 * scales of the sub-blocks those elements belong to (Q2_K, Q3_K, Q6_K: two sub-blocks of 16, "k 0..15" and
 * "k 16..31"; Q4_K, Q5_K: one of 32).
 *
 * Q2_K keeps GGML's scale bytes and spreads each row's d and -dmin over the 8 tiles (lossless). The others store
 * FP16 products of d (dmin) and the sub-block scales (mins), which the kernels use directly; unpack factors them
 * back (repack-scales.c). What survives is said in repack.h.
 */
#include "repack-codec.h"

#include "log.h"
#include "quants.h"

#include <assert.h>
#include <string.h>

#define KQ_TILES (QK_K / HTP_TENSOR_TILE_N_COLS) /* tiles per super-block */
#define KQ_K     HTP_TENSOR_TILE_N_COLS          /* columns per tile */

static vnpu_fp16_t fp16_neg(vnpu_fp16_t h) {
    return (vnpu_fp16_t) (h ^ 0x8000u);
}

/* ---- GGML's K-quant fields (quants.h has the block structs) ------------------------------------------------- */

/* The 2-bit codes of Q2_K and Q3_K (qs[64]): per 128 elements 32 bytes, element 32 * s + l at bits 2 * s of
 * byte l. */
static void qs2_get(const uint8_t *qs, uint8_t *q) {
    for (int e = 0; e < QK_K; e++) {
        q[e] = (qs[32 * (e / 128) + e % 32] >> (2 * (e % 128 / 32))) & 3;
    }
}

static void qs2_put(const uint8_t *q, uint8_t *qs) {
    memset(qs, 0, QK_K / 4);
    for (int e = 0; e < QK_K; e++) {
        qs[32 * (e / 128) + e % 32] |= (uint8_t) ((q[e] & 3) << (2 * (e % 128 / 32)));
    }
}

/* The 4-bit codes of Q4_K and Q5_K (qs[128]): per 64 elements 32 bytes, element 64 * i + l in the low nibble of
 * byte 32 * i + l, element 64 * i + 32 + l in its high nibble. */
static void qs4_get(const uint8_t *qs, uint8_t *q) {
    for (int e = 0; e < QK_K; e++) {
        q[e] = (qs[32 * (e / 64) + e % 32] >> (4 * (e % 64 / 32))) & 0xf;
    }
}

static void qs4_put(const uint8_t *q, uint8_t *qs) {
    memset(qs, 0, QK_K / 2);
    for (int e = 0; e < QK_K; e++) {
        qs[32 * (e / 64) + e % 32] |= (uint8_t) ((q[e] & 0xf) << (4 * (e % 64 / 32)));
    }
}

/* One bit per element in 32 bytes (Q3_K's hmask, Q5_K's qh): element e at bit e / 32 of byte e % 32; adds it to
 * q[e] at bit `at`. */
static void bits32_get(const uint8_t *h, uint8_t *q, int at) {
    for (int e = 0; e < QK_K; e++) {
        q[e] |= (uint8_t) (((h[e % 32] >> (e / 32)) & 1) << at);
    }
}

static void bits32_put(const uint8_t *q, int at, uint8_t *h) {
    memset(h, 0, QK_K / 8);
    for (int e = 0; e < QK_K; e++) {
        h[e % 32] |= (uint8_t) (((q[e] >> at) & 1) << (e / 32));
    }
}

/* Q6_K's 6-bit codes: per 128 elements 64 bytes of ql and 32 of qh; element 128 * n + 32 * s + l has its low 4
 * bits in nibble s / 2 of ql byte 64 * n + 32 * (s % 2) + l and its high 2 bits at bits 2 * s of qh byte
 * 32 * n + l. */
static void q6_K_codes_get(const block_q6_K *b, uint8_t *q) {
    for (int e = 0; e < QK_K; e++) {
        const int n = e / 128, s = e % 128 / 32, l = e % 32;
        const int lo = (b->ql[64 * n + 32 * (s % 2) + l] >> (4 * (s / 2))) & 0xf;
        const int hi = (b->qh[32 * n + l] >> (2 * s)) & 3;
        q[e] = (uint8_t) (lo | hi << 4);
    }
}

static void q6_K_codes_put(const uint8_t *q, block_q6_K *b) {
    memset(b->ql, 0, sizeof(b->ql));
    memset(b->qh, 0, sizeof(b->qh));
    for (int e = 0; e < QK_K; e++) {
        const int n = e / 128, s = e % 128 / 32, l = e % 32;
        b->ql[64 * n + 32 * (s % 2) + l] |= (uint8_t) ((q[e] & 0xf) << (4 * (s / 2)));
        b->qh[32 * n + l] |= (uint8_t) ((q[e] >> 4) << (2 * s));
    }
}

/* ---- Q2_K: 2-bit plane, raw scale bytes, d / -dmin spread over the tiles (336 bytes) -------------------------- */

#define Q2K_SIZE   HTP_TENSOR_TILE_SIZE_Q2_K
#define Q2K_SCALES HTP_TENSOR_TILE_SCALES_OFFSET_Q2_K

/* Where row r keeps d (neg = false) or -dmin (neg = true): tile r / 8 (+ 4), FP16 r % 8 of its D area. */
static size_t q2_K_d_at(uint32_t r, bool neg) {
    return (r / 8 + (neg ? 4 : 0)) * Q2K_SIZE + HTP_TENSOR_TILE_D_OFFSET_Q2_K + 2 * (r % 8);
}

static void q2_K_pack(const struct repack_codec *c, const uint8_t *const rows[TILE_ROWS], uint8_t *tiles) {
    VNPU_UNUSED(c);
    memset(tiles, 0, KQ_TILES * Q2K_SIZE); /* padding rows: code 0, zero scales */
    for (uint32_t r = 0; r < TILE_ROWS; r++) {
        if (!rows[r]) {
            continue;
        }
        block_q2_K b;
        uint8_t q[QK_K];
        memcpy(&b, rows[r], sizeof(b));
        qs2_get(b.qs, q);
        for (uint32_t j = 0; j < KQ_TILES; j++) {
            uint8_t *t = tiles + j * Q2K_SIZE;
            plane_vrmpy_put(t + HTP_TENSOR_TILE_QS_OFFSET_Q2_K, r, q + KQ_K * j, KQ_K, 2);
            t[Q2K_SCALES + r] = b.scales[2 * j];
            t[Q2K_SCALES + 32 + r] = b.scales[2 * j + 1];
        }
        tile_put_fp16(tiles + q2_K_d_at(r, false), b.d);
        tile_put_fp16(tiles + q2_K_d_at(r, true), fp16_neg(b.dmin));
    }
}

static int q2_K_unpack(const struct repack_codec *c, const uint8_t *tiles, uint8_t *const rows[TILE_ROWS]) {
    VNPU_UNUSED(c);
    for (uint32_t r = 0; r < TILE_ROWS; r++) {
        if (!rows[r]) {
            continue;
        }
        block_q2_K b;
        uint8_t q[QK_K];
        for (uint32_t j = 0; j < KQ_TILES; j++) {
            const uint8_t *t = tiles + j * Q2K_SIZE;
            plane_vrmpy_get(t + HTP_TENSOR_TILE_QS_OFFSET_Q2_K, r, q + KQ_K * j, KQ_K, 2);
            b.scales[2 * j] = t[Q2K_SCALES + r];
            b.scales[2 * j + 1] = t[Q2K_SCALES + 32 + r];
        }
        qs2_put(q, b.qs);
        b.d = tile_get_fp16(tiles + q2_K_d_at(r, false));
        b.dmin = fp16_neg(tile_get_fp16(tiles + q2_K_d_at(r, true)));
        memcpy(rows[r], &b, sizeof(b));
    }
    return 0;
}

/* (d * scale) * q - dmin * min as GGML computes it, with - dmin * min added as (-dmin) * min: the same float. */
static void q2_K_dequant(const struct repack_codec *c, const uint8_t *tiles, uint32_t j, float *y) {
    VNPU_UNUSED(c);
    const uint8_t *t = tiles + j * Q2K_SIZE;
    for (uint32_t r = 0; r < TILE_ROWS; r++) {
        const float d = vnpu_fp16_to_f32(tile_get_fp16(tiles + q2_K_d_at(r, false)));
        const float neg_dmin = vnpu_fp16_to_f32(tile_get_fp16(tiles + q2_K_d_at(r, true)));
        uint8_t q[KQ_K];
        plane_vrmpy_get(t + HTP_TENSOR_TILE_QS_OFFSET_Q2_K, r, q, KQ_K, 2);
        for (uint32_t k = 0; k < KQ_K; k++) {
            const uint8_t sc = t[Q2K_SCALES + 32 * (k / 16) + r];
            const float dl = d * (float) (sc & 0xf);
            const float ml = neg_dmin * (float) (sc >> 4);
            y[KQ_K * r + k] = dl * (float) q[k] + ml;
        }
    }
}

/* ---- Q3_K: low 2 bits, sign plane, FP16 d * (scale - 32) (512 bytes) ------------------------------------------ */

#define Q3K_SIZE   HTP_TENSOR_TILE_SIZE_Q3_K
#define Q3K_SCALES HTP_TENSOR_TILE_SCALES_OFFSET_Q3_K

/* Codes as low 2 bits | hmask bit << 2, value code - 4; padding code 4 (low 0, sign clear). */
static void q3_K_pack(const struct repack_codec *c, const uint8_t *const rows[TILE_ROWS], uint8_t *tiles) {
    VNPU_UNUSED(c);
    memset(tiles, 0, KQ_TILES * Q3K_SIZE);
    for (uint32_t r = 0; r < TILE_ROWS; r++) {
        uint8_t q[QK_K];
        vnpu_fp16_t s[QK_K / 16] = {0};
        if (rows[r]) {
            block_q3_K b;
            uint8_t sc[QK_K / 16];
            memcpy(&b, rows[r], sizeof(b));
            memset(q, 0, sizeof(q));
            qs2_get(b.qs, q);
            bits32_get(b.hmask, q, 2);
            q3_K_scales_unpack(b.scales, sc);
            for (int i = 0; i < QK_K / 16; i++) {
                s[i] = scale_derive(b.d, sc[i] - 32);
            }
        } else {
            memset(q, 4, sizeof(q));
        }
        for (uint32_t j = 0; j < KQ_TILES; j++) {
            uint8_t *t = tiles + j * Q3K_SIZE;
            uint8_t low[KQ_K], neg[KQ_K];
            for (uint32_t k = 0; k < KQ_K; k++) {
                low[k] = q[KQ_K * j + k] & 3;
                neg[k] = q[KQ_K * j + k] >> 2 ? 0 : 1;
            }
            plane_vrmpy_put(t + HTP_TENSOR_TILE_QS_OFFSET_Q3_K, r, low, KQ_K, 2);
            plane_vrmpy_put(t + HTP_TENSOR_TILE_SIGNS_OFFSET_Q3_K, r, neg, KQ_K, 1);
            tile_put_fp16(t + Q3K_SCALES + 2 * r, s[2 * j]);
            tile_put_fp16(t + Q3K_SCALES + 64 + 2 * r, s[2 * j + 1]);
        }
    }
}

static int q3_K_unpack(const struct repack_codec *c, const uint8_t *tiles, uint8_t *const rows[TILE_ROWS]) {
    VNPU_UNUSED(c);
    int n_inexact = 0;
    for (uint32_t r = 0; r < TILE_ROWS; r++) {
        if (!rows[r]) {
            continue;
        }
        block_q3_K b;
        uint8_t q[QK_K];
        vnpu_fp16_t s[QK_K / 16];
        int m[QK_K / 16];
        for (uint32_t j = 0; j < KQ_TILES; j++) {
            const uint8_t *t = tiles + j * Q3K_SIZE;
            uint8_t neg[KQ_K];
            plane_vrmpy_get(t + HTP_TENSOR_TILE_QS_OFFSET_Q3_K, r, q + KQ_K * j, KQ_K, 2);
            plane_vrmpy_get(t + HTP_TENSOR_TILE_SIGNS_OFFSET_Q3_K, r, neg, KQ_K, 1);
            for (uint32_t k = 0; k < KQ_K; k++) {
                q[KQ_K * j + k] |= (uint8_t) (!neg[k] << 2);
            }
            s[2 * j] = tile_get_fp16(t + Q3K_SCALES + 2 * r);
            s[2 * j + 1] = tile_get_fp16(t + Q3K_SCALES + 64 + 2 * r);
        }
        n_inexact += !scale_factor(s, QK_K / 16, -32, 31, &b.d, m);
        uint8_t sc[QK_K / 16];
        for (int i = 0; i < QK_K / 16; i++) {
            sc[i] = (uint8_t) (m[i] + 32);
        }
        q3_K_scales_pack(sc, b.scales);
        qs2_put(q, b.qs);
        bits32_put(q, 2, b.hmask);
        memcpy(rows[r], &b, sizeof(b));
    }
    return n_inexact;
}

/* (d * (scale - 32)) * (low - (hmask ? 0 : 4)), GGML's expression with the tile's FP16 product for d * (scale - 32). */
static void q3_K_dequant(const struct repack_codec *c, const uint8_t *tiles, uint32_t j, float *y) {
    VNPU_UNUSED(c);
    const uint8_t *t = tiles + j * Q3K_SIZE;
    for (uint32_t r = 0; r < TILE_ROWS; r++) {
        const float dl[2] = {vnpu_fp16_to_f32(tile_get_fp16(t + Q3K_SCALES + 2 * r)),
                             vnpu_fp16_to_f32(tile_get_fp16(t + Q3K_SCALES + 64 + 2 * r))};
        uint8_t low[KQ_K], neg[KQ_K];
        plane_vrmpy_get(t + HTP_TENSOR_TILE_QS_OFFSET_Q3_K, r, low, KQ_K, 2);
        plane_vrmpy_get(t + HTP_TENSOR_TILE_SIGNS_OFFSET_Q3_K, r, neg, KQ_K, 1);
        for (uint32_t k = 0; k < KQ_K; k++) {
            y[KQ_K * r + k] = dl[k / 16] * (float) (low[k] - 4 * neg[k]);
        }
    }
}

/* ---- Q4_K and Q5_K: nibble pairs, (d * scale, -dmin * min) pairs, Q5_K's fifth-bit plane (640 / 768 bytes) ----- */

#define Q45K_SCALES HTP_TENSOR_TILE_SCALES_OFFSET_Q4_K
#define Q5K_QH      HTP_TENSOR_TILE_QH_OFFSET_Q5_K

static_assert(HTP_TENSOR_TILE_QS_OFFSET_Q5_K == HTP_TENSOR_TILE_QS_OFFSET_Q4_K &&
                  HTP_TENSOR_TILE_SCALES_OFFSET_Q5_K == HTP_TENSOR_TILE_SCALES_OFFSET_Q4_K,
              "a Q5_K tile starts with a Q4_K tile");

/* Row r of a Q4_K / Q5_K super-block: codes (5 bits for Q5_K), d, dmin, sub-block scales and mins. */
struct q45_K_row {
    uint8_t q[QK_K];
    vnpu_fp16_t d, dmin;
    uint8_t sc[QK_K / 32], mn[QK_K / 32];
};

static void q45_K_row_get(const uint8_t *block, bool q5, struct q45_K_row *w) {
    memset(w->q, 0, sizeof(w->q));
    if (q5) {
        block_q5_K b;
        memcpy(&b, block, sizeof(b));
        qs4_get(b.qs, w->q);
        bits32_get(b.qh, w->q, 4);
        q4_K_scales_unpack(b.scales, w->sc, w->mn);
        w->d = b.d;
        w->dmin = b.dmin;
    } else {
        block_q4_K b;
        memcpy(&b, block, sizeof(b));
        qs4_get(b.qs, w->q);
        q4_K_scales_unpack(b.scales, w->sc, w->mn);
        w->d = b.d;
        w->dmin = b.dmin;
    }
}

static void q45_K_row_put(const struct q45_K_row *w, bool q5, uint8_t *block) {
    if (q5) {
        block_q5_K b;
        qs4_put(w->q, b.qs);
        bits32_put(w->q, 4, b.qh);
        q4_K_scales_pack(w->sc, w->mn, b.scales);
        b.d = w->d;
        b.dmin = w->dmin;
        memcpy(block, &b, sizeof(b));
    } else {
        block_q4_K b;
        qs4_put(w->q, b.qs);
        q4_K_scales_pack(w->sc, w->mn, b.scales);
        b.d = w->d;
        b.dmin = w->dmin;
        memcpy(block, &b, sizeof(b));
    }
}

/* Q5_K's fifth bit of (r, k): byte 32 * (k / 2 % 4) + r of the QH area, bit 2 * (k / 8) + k % 2. */
static uint32_t q5_K_qh_byte(uint32_t r, uint32_t k) {
    return Q5K_QH + 32 * (k / 2 % 4) + r;
}

static uint32_t q5_K_qh_bit(uint32_t k) {
    return 2 * (k / 8) + k % 2;
}

static void q45_K_pack(const uint8_t *const rows[TILE_ROWS], uint8_t *tiles, bool q5) {
    const uint32_t size = q5 ? HTP_TENSOR_TILE_SIZE_Q5_K : HTP_TENSOR_TILE_SIZE_Q4_K;
    memset(tiles, 0, KQ_TILES * size); /* padding rows: code 0, zero scales */
    for (uint32_t r = 0; r < TILE_ROWS; r++) {
        if (!rows[r]) {
            continue;
        }
        struct q45_K_row w;
        q45_K_row_get(rows[r], q5, &w);
        for (uint32_t j = 0; j < KQ_TILES; j++) {
            uint8_t *t = tiles + j * size;
            const uint8_t *q = w.q + KQ_K * j;
            uint8_t low[KQ_K];
            for (uint32_t k = 0; k < KQ_K; k++) {
                low[k] = q[k] & 0xf;
                if (q5) {
                    t[q5_K_qh_byte(r, k)] |= (uint8_t) ((q[k] >> 4) << q5_K_qh_bit(k));
                }
            }
            plane_nibbles_put(t + HTP_TENSOR_TILE_QS_OFFSET_Q4_K, r, low);
            tile_put_fp16(t + Q45K_SCALES + 4 * r, scale_derive(w.d, w.sc[j]));
            tile_put_fp16(t + Q45K_SCALES + 4 * r + 2, scale_derive(fp16_neg(w.dmin), w.mn[j]));
        }
    }
}

static int q45_K_unpack(const uint8_t *tiles, uint8_t *const rows[TILE_ROWS], bool q5) {
    const uint32_t size = q5 ? HTP_TENSOR_TILE_SIZE_Q5_K : HTP_TENSOR_TILE_SIZE_Q4_K;
    int n_inexact = 0;
    for (uint32_t r = 0; r < TILE_ROWS; r++) {
        if (!rows[r]) {
            continue;
        }
        struct q45_K_row w;
        vnpu_fp16_t ds[QK_K / 32], ms[QK_K / 32], neg_dmin;
        for (uint32_t j = 0; j < KQ_TILES; j++) {
            const uint8_t *t = tiles + j * size;
            uint8_t *q = w.q + KQ_K * j;
            plane_nibbles_get(t + HTP_TENSOR_TILE_QS_OFFSET_Q4_K, r, q);
            if (q5) {
                for (uint32_t k = 0; k < KQ_K; k++) {
                    q[k] |= (uint8_t) (((t[q5_K_qh_byte(r, k)] >> q5_K_qh_bit(k)) & 1) << 4);
                }
            }
            ds[j] = tile_get_fp16(t + Q45K_SCALES + 4 * r);
            ms[j] = tile_get_fp16(t + Q45K_SCALES + 4 * r + 2);
        }
        int sc[QK_K / 32], mn[QK_K / 32];
        const bool d_exact = scale_factor(ds, QK_K / 32, 0, 63, &w.d, sc);
        const bool m_exact = scale_factor(ms, QK_K / 32, 0, 63, &neg_dmin, mn);
        n_inexact += !(d_exact && m_exact);
        for (int i = 0; i < QK_K / 32; i++) {
            w.sc[i] = (uint8_t) sc[i];
            w.mn[i] = (uint8_t) mn[i];
        }
        w.dmin = fp16_neg(neg_dmin);
        q45_K_row_put(&w, q5, rows[r]);
    }
    return n_inexact;
}

/* (d * scale) * q - dmin * min, GGML's expression with the tile's FP16 products, the second added as -dmin * min. */
static void q45_K_dequant(const uint8_t *tiles, uint32_t j, float *y, bool q5) {
    const uint8_t *t = tiles + j * (q5 ? HTP_TENSOR_TILE_SIZE_Q5_K : HTP_TENSOR_TILE_SIZE_Q4_K);
    for (uint32_t r = 0; r < TILE_ROWS; r++) {
        const float d = vnpu_fp16_to_f32(tile_get_fp16(t + Q45K_SCALES + 4 * r));
        const float m = vnpu_fp16_to_f32(tile_get_fp16(t + Q45K_SCALES + 4 * r + 2));
        uint8_t q[KQ_K];
        plane_nibbles_get(t + HTP_TENSOR_TILE_QS_OFFSET_Q4_K, r, q);
        for (uint32_t k = 0; k < KQ_K; k++) {
            const uint32_t hi = q5 ? (t[q5_K_qh_byte(r, k)] >> q5_K_qh_bit(k)) & 1 : 0;
            y[KQ_K * r + k] = d * (float) (q[k] | hi << 4) + m;
        }
    }
}

static void q4_K_pack(const struct repack_codec *c, const uint8_t *const rows[TILE_ROWS], uint8_t *tiles) {
    VNPU_UNUSED(c);
    q45_K_pack(rows, tiles, false);
}

static int q4_K_unpack(const struct repack_codec *c, const uint8_t *tiles, uint8_t *const rows[TILE_ROWS]) {
    VNPU_UNUSED(c);
    return q45_K_unpack(tiles, rows, false);
}

static void q4_K_dequant(const struct repack_codec *c, const uint8_t *tiles, uint32_t j, float *y) {
    VNPU_UNUSED(c);
    q45_K_dequant(tiles, j, y, false);
}

static void q5_K_pack(const struct repack_codec *c, const uint8_t *const rows[TILE_ROWS], uint8_t *tiles) {
    VNPU_UNUSED(c);
    q45_K_pack(rows, tiles, true);
}

static int q5_K_unpack(const struct repack_codec *c, const uint8_t *tiles, uint8_t *const rows[TILE_ROWS]) {
    VNPU_UNUSED(c);
    return q45_K_unpack(tiles, rows, true);
}

static void q5_K_dequant(const struct repack_codec *c, const uint8_t *tiles, uint32_t j, float *y) {
    VNPU_UNUSED(c);
    q45_K_dequant(tiles, j, y, true);
}

/* ---- Q6_K: 4-bit vrmpy plane, 2-bit vrmpy plane, FP16 d * scale (896 bytes) ----------------------------------- */

#define Q6K_SIZE   HTP_TENSOR_TILE_SIZE_Q6_K
#define Q6K_SCALES HTP_TENSOR_TILE_SCALES_OFFSET_Q6_K

/* Codes 0..63, value code - 32; padding code 32. */
static void q6_K_pack(const struct repack_codec *c, const uint8_t *const rows[TILE_ROWS], uint8_t *tiles) {
    VNPU_UNUSED(c);
    memset(tiles, 0, KQ_TILES * Q6K_SIZE);
    for (uint32_t r = 0; r < TILE_ROWS; r++) {
        uint8_t q[QK_K];
        vnpu_fp16_t s[QK_K / 16] = {0};
        if (rows[r]) {
            block_q6_K b;
            memcpy(&b, rows[r], sizeof(b));
            q6_K_codes_get(&b, q);
            for (int i = 0; i < QK_K / 16; i++) {
                s[i] = scale_derive(b.d, b.scales[i]);
            }
        } else {
            memset(q, 32, sizeof(q));
        }
        for (uint32_t j = 0; j < KQ_TILES; j++) {
            uint8_t *t = tiles + j * Q6K_SIZE;
            uint8_t low[KQ_K], high[KQ_K];
            for (uint32_t k = 0; k < KQ_K; k++) {
                low[k] = q[KQ_K * j + k] & 0xf;
                high[k] = q[KQ_K * j + k] >> 4;
            }
            plane_vrmpy_put(t + HTP_TENSOR_TILE_QS_OFFSET_Q6_K, r, low, KQ_K, 4);
            plane_vrmpy_put(t + HTP_TENSOR_TILE_QH_OFFSET_Q6_K, r, high, KQ_K, 2);
            tile_put_fp16(t + Q6K_SCALES + 2 * r, s[2 * j]);
            tile_put_fp16(t + Q6K_SCALES + 64 + 2 * r, s[2 * j + 1]);
        }
    }
}

static int q6_K_unpack(const struct repack_codec *c, const uint8_t *tiles, uint8_t *const rows[TILE_ROWS]) {
    VNPU_UNUSED(c);
    int n_inexact = 0;
    for (uint32_t r = 0; r < TILE_ROWS; r++) {
        if (!rows[r]) {
            continue;
        }
        block_q6_K b;
        uint8_t q[QK_K];
        vnpu_fp16_t s[QK_K / 16];
        int m[QK_K / 16];
        for (uint32_t j = 0; j < KQ_TILES; j++) {
            const uint8_t *t = tiles + j * Q6K_SIZE;
            uint8_t high[KQ_K];
            plane_vrmpy_get(t + HTP_TENSOR_TILE_QS_OFFSET_Q6_K, r, q + KQ_K * j, KQ_K, 4);
            plane_vrmpy_get(t + HTP_TENSOR_TILE_QH_OFFSET_Q6_K, r, high, KQ_K, 2);
            for (uint32_t k = 0; k < KQ_K; k++) {
                q[KQ_K * j + k] |= (uint8_t) (high[k] << 4);
            }
            s[2 * j] = tile_get_fp16(t + Q6K_SCALES + 2 * r);
            s[2 * j + 1] = tile_get_fp16(t + Q6K_SCALES + 64 + 2 * r);
        }
        n_inexact += !scale_factor(s, QK_K / 16, -128, 127, &b.d, m);
        for (int i = 0; i < QK_K / 16; i++) {
            b.scales[i] = (int8_t) m[i];
        }
        q6_K_codes_put(q, &b);
        memcpy(rows[r], &b, sizeof(b));
    }
    return n_inexact;
}

/* (d * scale) * (q - 32), GGML's expression with the tile's FP16 product for d * scale. */
static void q6_K_dequant(const struct repack_codec *c, const uint8_t *tiles, uint32_t j, float *y) {
    VNPU_UNUSED(c);
    const uint8_t *t = tiles + j * Q6K_SIZE;
    for (uint32_t r = 0; r < TILE_ROWS; r++) {
        const float dl[2] = {vnpu_fp16_to_f32(tile_get_fp16(t + Q6K_SCALES + 2 * r)),
                             vnpu_fp16_to_f32(tile_get_fp16(t + Q6K_SCALES + 64 + 2 * r))};
        uint8_t low[KQ_K], high[KQ_K];
        plane_vrmpy_get(t + HTP_TENSOR_TILE_QS_OFFSET_Q6_K, r, low, KQ_K, 4);
        plane_vrmpy_get(t + HTP_TENSOR_TILE_QH_OFFSET_Q6_K, r, high, KQ_K, 2);
        for (uint32_t k = 0; k < KQ_K; k++) {
            y[KQ_K * r + k] = dl[k / 16] * (float) ((low[k] | high[k] << 4) - 32);
        }
    }
}

const struct repack_codec repack_codec_q2_K = {VNPU_TYPE_Q2_K, true, q2_K_pack, q2_K_unpack, q2_K_dequant, NULL};
const struct repack_codec repack_codec_q3_K = {VNPU_TYPE_Q3_K, false, q3_K_pack, q3_K_unpack, q3_K_dequant, NULL};
const struct repack_codec repack_codec_q4_K = {VNPU_TYPE_Q4_K, false, q4_K_pack, q4_K_unpack, q4_K_dequant, NULL};
const struct repack_codec repack_codec_q5_K = {VNPU_TYPE_Q5_K, false, q5_K_pack, q5_K_unpack, q5_K_dequant, NULL};
const struct repack_codec repack_codec_q6_K = {VNPU_TYPE_Q6_K, false, q6_K_pack, q6_K_unpack, q6_K_dequant, NULL};
