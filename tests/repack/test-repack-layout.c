/*
 * Layout conformance of the twelve tiled weight formats (src/repack, src/htp/htp-tiles.h) against the seed.
 *
 * Per type (one cmocka test per row of seed_types): weights built from known codes and scales, in GGML's block
 * format, are repacked and every byte of every tile is compared with the byte the seed's formulas put there
 * (repack-seed.c, written from the documents), padding rows included. Then: the tiles dequantize to the values the
 * seed's tile holds, bit for bit, and those are GGML's dequantization of the original rows (bit for bit for the
 * lossless layouts, within the documented FP16 rounding for the derived scales, and bit for bit again when the
 * derived scales are exact); unpack gives the original bytes back (lossless) or the same codes with scales that
 * repack to the same tiles. Shapes: ne0 = K_cols, 2 K_cols, 256, 1024 (those that are whole GGML blocks), ne1 = 1,
 * 31, 32, 33, 100, and 3-D / 4-D weights; every output is fenced with sentinel bytes.
 */
#include "htp-tiles.h"
#include "repack-seed.h"
#include "repack.h"
#include "test-common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GUARD    64
#define SENTINEL 0xa5

/* A weight of known blocks: their content, the flat GGML tensor, and the tiles the seed says it repacks to. */
struct known_weight {
    const struct seed_type *st;
    int64_t ne[4];
    int64_t n_rows, n_blocks; /* ne1 * ne2 * ne3 rows of n_blocks blocks */
    size_t block_size;
    struct seed_block *blocks; /* row-major: block kb of row i at i * n_blocks + kb */
    uint8_t *flat;
    size_t flat_size;
    uint8_t *tiles;
    size_t tiled_size;
};

static void *alloc_fenced(size_t size) {
    uint8_t *p = malloc(size + GUARD);
    assert_non_null(p);
    memset(p, SENTINEL, size + GUARD);
    return p;
}

static void check_fence(const void *p, size_t size, const char *what) {
    const uint8_t *g = (const uint8_t *) p + size;
    for (size_t i = 0; i < GUARD; i++) {
        if (g[i] != SENTINEL) {
            fail_msg("%s: byte %zu past the end was written", what, i);
        }
    }
}

static const char *type_name(const struct seed_type *st) {
    return vnpu_type_name(st->type);
}

static void known_weight_make(struct known_weight *w, const struct seed_type *st, const int64_t ne[4], bool exact,
                              const char *seed) {
    struct test_rng rng;
    test_rng_seed(&rng, seed);
    const struct vnpu_type_traits *tt = vnpu_type_traits_get(st->type);
    memset(w, 0, sizeof(*w));
    w->st = st;
    memcpy(w->ne, ne, sizeof(w->ne));
    w->n_rows = ne[1] * ne[2] * ne[3];
    w->n_blocks = ne[0] / tt->blck;
    w->block_size = tt->size;
    w->blocks = calloc((size_t) (w->n_rows * w->n_blocks), sizeof(*w->blocks));
    w->flat_size = (size_t) (w->n_rows * w->n_blocks) * w->block_size;
    w->flat = alloc_fenced(w->flat_size);
    assert_non_null(w->blocks);
    for (int64_t i = 0; i < w->n_rows * w->n_blocks; i++) {
        st->random(&rng, exact, &w->blocks[i]);
        st->encode(&w->blocks[i], w->flat + i * w->block_size);
    }
    /* The seed's grid: n_k_tiles = ne0 / K_cols, n_col_tiles = ceil(ne1 / 32), tile (ct, kt) at
     * (ct * n_k_tiles + kt) * tile_size of its matrix, matrices back to back. */
    const int64_t n_k_tiles = ne[0] / st->k_cols, n_col_tiles = (ne[1] + 31) / 32;
    const size_t matrix_size = (size_t) (n_col_tiles * n_k_tiles) * st->tile_size;
    w->tiled_size = matrix_size * (size_t) (ne[2] * ne[3]);
    w->tiles = calloc(w->tiled_size, 1);
    assert_non_null(w->tiles);
    for (int64_t m = 0; m < ne[2] * ne[3]; m++) {
        for (int64_t ct = 0; ct < n_col_tiles; ct++) {
            for (int64_t kb = 0; kb < w->n_blocks; kb++) {
                const int64_t kt = kb * st->tiles_per_block;
                uint8_t *t = w->tiles + m * matrix_size + (size_t) (ct * n_k_tiles + kt) * st->tile_size;
                for (uint32_t r = 0; r < 32; r++) {
                    const int64_t row = 32 * ct + r;
                    st->tile(row < ne[1] ? &w->blocks[(m * ne[1] + row) * w->n_blocks + kb] : NULL, r, t);
                }
            }
        }
    }
}

static void known_weight_free(struct known_weight *w) {
    free(w->blocks);
    free(w->flat);
    free(w->tiles);
}

/* got == the seed's tiles; the first difference is reported as (matrix, column tile, k tile, byte). */
static void check_tiles(const struct known_weight *w, const uint8_t *got, const char *what) {
    for (size_t i = 0; i < w->tiled_size; i++) {
        if (got[i] != w->tiles[i]) {
            const int64_t n_k_tiles = w->ne[0] / w->st->k_cols;
            const size_t tile = i / w->st->tile_size;
            fail_msg("%s %s [%lld, %lld, %lld, %lld]: tile %zu (matrix %lld, ct %lld, kt %lld) byte %zu: got 0x%02x, "
                     "seed says 0x%02x",
                     what, type_name(w->st), (long long) w->ne[0], (long long) w->ne[1], (long long) w->ne[2],
                     (long long) w->ne[3], tile, (long long) (tile / n_k_tiles / ((w->ne[1] + 31) / 32)),
                     (long long) (tile / n_k_tiles % ((w->ne[1] + 31) / 32)), (long long) (tile % n_k_tiles),
                     i % w->st->tile_size, got[i], w->tiles[i]);
        }
    }
}

static bool same_float(float a, float b) {
    return memcmp(&a, &b, sizeof(a)) == 0;
}

/* y (the tiles dequantized) == the seed tile's values bit for bit; against GGML's to_f32 of the original rows
 * bit for bit when lossless or exact, else within the bound. */
static void check_values(const struct known_weight *w, const float *y, bool exact) {
    const struct vnpu_type_traits *tt = vnpu_type_traits_get(w->st->type);
    const int64_t ne0 = w->ne[0];
    float *ggml = malloc((size_t) ne0 * sizeof(float));
    assert_non_null(ggml);
    for (int64_t i = 0; i < w->n_rows; i++) {
        tt->to_f32(w->flat + (size_t) (i * w->n_blocks) * w->block_size, ggml, ne0);
        for (int64_t k = 0; k < ne0; k++) {
            double bound;
            const float want = w->st->value(&w->blocks[i * w->n_blocks + k / tt->blck], (int) (k % tt->blck), &bound);
            const float got = y[i * ne0 + k];
            if (!same_float(got, want)) {
                fail_msg("dequant %s: row %lld element %lld: got %a, the seed's tile holds %a", type_name(w->st),
                         (long long) i, (long long) k, got, want);
            }
            if ((w->st->lossless || exact) ? !same_float(got, ggml[k]) : !(fabs((double) got - ggml[k]) <= bound)) {
                fail_msg("dequant %s: row %lld element %lld: got %a, GGML %a (bound %g)", type_name(w->st),
                         (long long) i, (long long) k, got, ggml[k], bound);
            }
        }
    }
    free(ggml);
}

/* The padding rows of the last column tile of matrix 0 dequantize to zeros (the per-tile entry point). */
static void check_padding(const struct known_weight *w, const uint8_t *tiles) {
    const uint32_t valid = (uint32_t) ((w->ne[1] - 1) % 32 + 1);
    const int64_t n_k_tiles = w->ne[0] / w->st->k_cols, ct = (w->ne[1] - 1) / 32;
    float y[32 * HTP_TENSOR_TILE_K_Q1_0];
    for (int64_t kt = 0; kt < n_k_tiles; kt++) {
        repack_dequant_tile(w->st->type, tiles + (size_t) (ct * n_k_tiles) * w->st->tile_size, (uint32_t) kt, y);
        for (uint32_t i = valid * w->st->k_cols; i < 32 * w->st->k_cols; i++) {
            if (y[i] != 0.0f) {
                fail_msg("%s: padding row %u of tile (%lld, %lld) dequantizes to %a", type_name(w->st),
                         i / w->st->k_cols, (long long) ct, (long long) kt, y[i]);
            }
        }
    }
}

/* unpack(tiles): the original bytes when lossless; else the same codes, scales that repack to the same tiles, and
 * GGML's dequantization of the result equal to the tiles' values (bit for bit when exact, else within bound). */
static void check_unpack(const struct known_weight *w, const uint8_t *tiles, const float *y, bool exact) {
    const struct vnpu_type_traits *tt = vnpu_type_traits_get(w->st->type);
    uint8_t *flat = alloc_fenced(w->flat_size);
    assert_int_equal(repack_unpack_tensor(w->st->type, w->ne, tiles, w->tiled_size, flat, w->flat_size, 2),
                     VNPU_STATUS_OK);
    check_fence(flat, w->flat_size, "unpack");
    if (w->st->lossless) {
        assert_memory_equal(flat, w->flat, w->flat_size);
        free(flat);
        return;
    }
    uint8_t *again = alloc_fenced(w->tiled_size);
    assert_int_equal(repack_tensor(w->st->type, w->ne, flat, w->flat_size, again, w->tiled_size, 1), VNPU_STATUS_OK);
    check_tiles(w, again, "repack(unpack)");
    free(again);
    float *back = malloc((size_t) w->ne[0] * sizeof(float));
    assert_non_null(back);
    for (int64_t i = 0; i < w->n_rows; i++) {
        const uint8_t *row = flat + (size_t) (i * w->n_blocks) * w->block_size;
        for (int64_t kb = 0; kb < w->n_blocks; kb++) {
            struct seed_block b;
            w->st->decode(row + kb * w->block_size, &b);
            assert_memory_equal(b.q, w->blocks[i * w->n_blocks + kb].q, sizeof(b.q));
        }
        tt->to_f32(row, back, w->ne[0]);
        for (int64_t k = 0; k < w->ne[0]; k++) {
            double bound;
            const float want = y[i * w->ne[0] + k];
            w->st->value(&w->blocks[i * w->n_blocks + k / tt->blck], (int) (k % tt->blck), &bound);
            if (exact ? !same_float(back[k], want) : !(fabs((double) back[k] - want) <= bound)) {
                fail_msg("unpack %s: row %lld element %lld: GGML dequantizes %a, the tile holds %a (bound %g)",
                         type_name(w->st), (long long) i, (long long) k, back[k], want, bound);
            }
        }
    }
    free(back);
    free(flat);
}

static void check_weight(const struct seed_type *st, const int64_t ne[4], bool exact) {
    char seed[96];
    snprintf(seed, sizeof(seed), "layout(type=%s,ne=[%lld,%lld,%lld,%lld],exact=%d)", vnpu_type_name(st->type),
             (long long) ne[0], (long long) ne[1], (long long) ne[2], (long long) ne[3], exact);
    struct known_weight w;
    known_weight_make(&w, st, ne, exact, seed);
    assert_true(repack_supported(st->type, ne));
    assert_int_equal(repack_nbytes(st->type, ne), w.tiled_size);

    uint8_t *tiles = alloc_fenced(w.tiled_size);
    assert_int_equal(repack_tensor(st->type, ne, w.flat, w.flat_size, tiles, w.tiled_size, 2), VNPU_STATUS_OK);
    check_fence(tiles, w.tiled_size, "repack");
    check_tiles(&w, tiles, "repack");

    const size_t n_values = (size_t) (w.n_rows * ne[0]);
    float *y = alloc_fenced(n_values * sizeof(float));
    assert_int_equal(repack_dequant_tensor(st->type, ne, tiles, w.tiled_size, y), VNPU_STATUS_OK);
    check_fence(y, n_values * sizeof(float), "dequant");
    check_values(&w, y, exact);
    check_padding(&w, tiles);
    check_unpack(&w, tiles, y, exact);

    free(y);
    free(tiles);
    known_weight_free(&w);
}

static void test_layout(void **state) {
    const struct seed_type *st = *state;
    const int64_t blck = st->k_cols * st->tiles_per_block;
    /* K_cols, 2 K_cols, 256, 1024; whole GGML blocks only, so the K-quants take 256, 512, 1024 */
    const int64_t wanted[4] = {st->k_cols, 2 * st->k_cols, 256, 1024};
    int64_t ne0s[6];
    int n_ne0 = 0;
    for (int i = 0; i < 4; i++) {
        const int64_t ne0 = wanted[i] % blck == 0 ? wanted[i] : (i + 1) * blck;
        bool seen = false;
        for (int j = 0; j < n_ne0; j++) {
            seen = seen || ne0s[j] == ne0;
        }
        if (!seen) {
            ne0s[n_ne0++] = ne0;
        }
    }
    const int64_t ne1s[5] = {1, 31, 32, 33, 100};
    for (int exact = 0; exact < 2; exact++) {
        for (int i = 0; i < n_ne0; i++) {
            for (int j = 0; j < 5; j++) {
                check_weight(st, (const int64_t[4]){ne0s[i], ne1s[j], 1, 1}, exact);
            }
        }
        check_weight(st, (const int64_t[4]){2 * blck, 33, 3, 1}, exact);
        check_weight(st, (const int64_t[4]){blck, 31, 2, 2}, exact);
    }
}

/* htp-tiles.h against the seed's numbers, and its grid functions against the seed's formulas. */
static void test_geometry(void **state) {
    (void) state;
    for (int i = 0; i < SEED_N_TYPES; i++) {
        const struct seed_type *st = &seed_types[i];
        struct htp_tile_geom g = {0};
        assert_true(htp_tile_geom_get((enum htp_type) st->type, &g));
        assert_int_equal(g.k_cols, st->k_cols);
        assert_int_equal(g.size, st->tile_size);
        assert_int_equal(g.aligned_size, st->aligned_size);
        assert_int_equal(g.aligned_size % 128, 0);
        assert_true(g.aligned_size >= g.size && g.aligned_size < g.size + 128);
        assert_int_equal(g.tiles_per_block, st->tiles_per_block);
        assert_int_equal(g.k_cols * g.tiles_per_block, vnpu_type_traits_get(st->type)->blck);
        assert_int_equal(repack_lossless(st->type), st->lossless);
        const uint32_t ne0 = 4 * g.k_cols * g.tiles_per_block, ne1 = 70; /* 3 column tiles, 6 valid rows in the last */
        assert_int_equal(htp_tile_n_k_tiles(&g, ne0), ne0 / st->k_cols);
        assert_int_equal(htp_tile_n_col_tiles(ne1), 3);
        assert_int_equal(htp_tile_valid_rows(ne1, 0), 32);
        assert_int_equal(htp_tile_valid_rows(ne1, 2), 6);
        assert_int_equal(htp_tile_offset(&g, ne0 / st->k_cols, 2, 1), (2 * (ne0 / st->k_cols) + 1) * st->tile_size);
        assert_int_equal(htp_tile_row_size(&g, ne0), ne0 / st->k_cols * st->tile_size);
        assert_int_equal(htp_tile_matrix_size(&g, ne0, ne1), 3 * (ne0 / st->k_cols) * st->tile_size);
        /* with whole column tiles, the lossless layouts take exactly the flat bytes, the others more */
        const int64_t ne[4] = {ne0, 64, 3, 1};
        const size_t flat = vnpu_row_size(st->type, ne0) * 64 * 3;
        assert_int_equal(repack_nbytes(st->type, ne) == flat, st->lossless);
        assert_true(repack_nbytes(st->type, ne) >= flat);
    }
    struct htp_tile_geom g;
    assert_false(htp_tile_geom_get(HTP_TYPE_F32, &g));
    assert_false(htp_tile_geom_get(HTP_TYPE_F16, &g));
    assert_false(htp_tile_geom_get(HTP_TYPE_BF16, &g));
    int n_tiled = 0;
    for (int t = 0; t < VNPU_TYPE_COUNT; t++) {
        n_tiled += repack_supported((enum vnpu_type) t, (const int64_t[4]){1024, 32, 1, 1});
    }
    assert_int_equal(n_tiled, SEED_N_TYPES);
}

int main(void) {
    static char names[SEED_N_TYPES][48];
    static const struct seed_type *rows[SEED_N_TYPES];
    static struct CMUnitTest tests[SEED_N_TYPES + 1];
    size_t n = 0;
    tests[n++] = (struct CMUnitTest) cmocka_unit_test(test_geometry);
    for (int i = 0; i < SEED_N_TYPES; i++) {
        rows[i] = &seed_types[i];
        snprintf(names[i], sizeof(names[i]), "layout(type=%s)", vnpu_type_name(seed_types[i].type));
        tests[n++] = (struct CMUnitTest){names[i], test_layout, NULL, NULL, (void *) rows[i]};
    }
    return _cmocka_run_group_tests("test-repack-layout", tests, n, NULL, NULL);
}
