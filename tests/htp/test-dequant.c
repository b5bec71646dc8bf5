/*
 * The GET_ROWS dequantizers (src/htp/dequant-flat.c, dequant-tiled.c, dequant.h) run directly, built as NPU code of
 * v69 (the qf32 float path and the int -> float magic number) and of v79 (IEEE sf): for every tiled type, a row's
 * planes are laid out as the DMA descriptors of get-rows-ops.h lay them (the copies done here with memcpy), the
 * type's dequantizer and dq_finish turn them into F32, and the values are compared with GGML's dequantization
 * of the flat row and with the tiles' own values (repack_dequant_tensor): bit for bit on the IEEE path, within
 * NMSE 1e-12 on the qf32 path. Rows of a whole chunk (GR_CHUNK_MAX) and of one super-block; tile rows 0, 31, 32
 * and the last.
 */
#include "test-common.h"

#include "dequant.h"
#include "repack.h"
#include "type-traits.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NE1 40 /* two column tiles, the second partial */

/* A VTCM stand-in: 128-byte aligned, zeroed. */
static uint8_t *vtcm_alloc(size_t bytes) {
    uint8_t *p = aligned_alloc(HEX_VLEN, (bytes + HEX_VLEN - 1) / HEX_VLEN * HEX_VLEN);
    assert_non_null(p);
    memset(p, 0, bytes);
    return p;
}

/* The staging of n elements of a row, as the DMA lays it: flat from the row's blocks, or tiled from tile row
 * tile_row (kt = 0 .. ) for row r of its tile. */
static void stage(const struct gr_type *g, const struct gr_layout *l, const struct htp_tile_geom *geom,
                  const uint8_t *src, uint32_t r, uint32_t n, uint8_t *slot) {
    uint32_t offset[GR_N_REGIONS];
    gr_stage_layout(g, l, geom->k_cols, n, offset);
    const bool tiled = l == &g->tiled;
    for (uint32_t k = 0; k < l->n_dma; k++) {
        const struct gr_dma *d = &l->dma[k];
        const uint32_t units = tiled ? n / geom->k_cols / d->group : n / g->blck;
        const uint8_t *s =
            tiled ? src + d->off + (r % d->r_mod) * d->r_mul + (r / d->r_mod) * geom->size : src + d->off;
        const uint32_t step = tiled ? geom->size * d->group : g->bsize;
        for (uint32_t u = 0; u < units; u++) {
            memcpy(slot + offset[d->region] + u * d->stride + d->dst_off, s + (size_t) u * step, d->size);
        }
    }
}

/* Dequantize n elements staged in slot with layout l; the values in out. */
static void dequant(enum vnpu_type type, bool tiled, const uint8_t *slot, uint32_t n, float *out) {
    const struct gr_type *g = gr_type_get(type);
    const struct dq_type *dq = &dq_types[type];
    uint32_t offset[GR_N_REGIONS];
    struct htp_tile_geom geom = {0, 0, 0, 0};
    assert_true(htp_tile_geom_get((enum htp_type) type, &geom));
    gr_stage_layout(g, tiled ? &g->tiled : &g->flat, geom.k_cols, n, offset);
    const uint8_t *region[GR_N_REGIONS];
    for (int k = 0; k < GR_N_REGIONS; k++) {
        region[k] = slot + offset[k];
    }
    uint8_t *scratch = vtcm_alloc(gr_scratch(n, g->sub)), *f = vtcm_alloc(dq_nvec(n) * 512);
    const uint32_t scales = gr_scratch_scales(n, g->sub);
    const struct dq_out o = {scratch, scratch + gr_scratch_codes(n), scratch + gr_scratch_codes(n) + scales,
                             scratch + gr_scratch_codes(n) + 2 * scales};
    (tiled ? dq->tiled : dq->flat)(region, n, &o);
    dq_finish(o.codes, o.scale, dq->bias ? o.bias : NULL, n, g->sub, f);
    memcpy(out, f, n * sizeof(float));
    free(scratch);
    free(f);
}

/* got equals want: bit for bit on the IEEE path; on the qf32 path, whose every operation rounds (its significands
 * are odd by construction), within NMSE 1e-12 (a few ulp of the terms of q * d + m). */
static void check(const char *what, const float *got, const float *want, uint32_t n) {
#if HTP_ARCH_IEEE_SF
    for (uint32_t i = 0; i < n; i++) {
        if (memcmp(&got[i], &want[i], sizeof(float)) != 0 && !(isnan(got[i]) && isnan(want[i]))) {
            fail_msg("%s: element %u is %.9g, expected %.9g", what, i, (double) got[i], (double) want[i]);
        }
    }
#else
    double err = 0.0, ref = 0.0;
    for (uint32_t i = 0; i < n; i++) {
        err += ((double) got[i] - want[i]) * ((double) got[i] - want[i]);
        ref += (double) want[i] * want[i];
    }
    if (!(err <= 1e-12 * ref)) {
        fail_msg("%s: NMSE %.3g", what, err / ref);
    }
#endif
}

static const enum vnpu_type types[] = {
    VNPU_TYPE_Q4_0, VNPU_TYPE_Q4_1, VNPU_TYPE_Q8_0, VNPU_TYPE_IQ4_NL, VNPU_TYPE_MXFP4, VNPU_TYPE_Q1_0,
    VNPU_TYPE_Q2_0, VNPU_TYPE_Q2_K, VNPU_TYPE_Q3_K, VNPU_TYPE_Q4_K,   VNPU_TYPE_Q5_K,  VNPU_TYPE_Q6_K,
};

/* Rows of ne0 elements of every type, flat and tiled. */
static void check_width(uint32_t ne0) {
    const uint32_t rows[] = {0, 31, 32, NE1 - 1};
    for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
        const enum vnpu_type type = types[t];
        const struct vnpu_type_traits *tt = vnpu_type_traits_get(type);
        const struct gr_type *g = gr_type_get(type);
        struct htp_tile_geom geom = {0, 0, 0, 0};
        assert_true(htp_tile_geom_get((enum htp_type) type, &geom));
        const int64_t ne[4] = {ne0, NE1, 1, 1};
        const size_t row_size = vnpu_row_size(type, ne0);
        uint8_t *flat = malloc(row_size * NE1), *tiles = malloc(repack_nbytes(type, ne));
        float *x = malloc(sizeof(float) * ne0 * NE1), *want = malloc(sizeof(float) * ne0);
        float *got = malloc(sizeof(float) * ne0);
        struct test_rng rng;
        test_rng_seed(&rng, tt->name);
        for (size_t i = 0; i < (size_t) ne0 * NE1; i++) {
            x[i] = test_rng_normal(&rng, 1.0f);
        }
        for (int r = 0; r < NE1; r++) {
            tt->from_f32_ref(x + (size_t) r * ne0, flat + r * row_size, ne0);
        }
        assert_int_equal(repack_tensor(type, ne, flat, row_size * NE1, tiles, repack_nbytes(type, ne), 1),
                         VNPU_STATUS_OK);
        uint32_t offset[GR_N_REGIONS];
        const uint32_t slot_bytes = gr_stage_layout(g, &g->flat, geom.k_cols, ne0, offset) +
                                    gr_stage_layout(g, &g->tiled, geom.k_cols, ne0, offset);
        uint8_t *slot = vtcm_alloc(slot_bytes);
        float *tiled = malloc(sizeof(float) * ne0 * NE1);
        assert_int_equal(repack_dequant_tensor(type, ne, tiles, repack_nbytes(type, ne), tiled), VNPU_STATUS_OK);
        for (size_t k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
            const uint32_t r = rows[k];
            char what[96];
            tt->to_f32(flat + r * row_size, want, ne0);
            stage(g, &g->flat, &geom, flat + r * row_size, r, ne0, slot);
            dequant(type, false, slot, ne0, got);
            snprintf(what, sizeof(what), "%s flat, %u elements, row %u", tt->name, ne0, r);
            check(what, got, want, ne0);

            const uint8_t *tile_row = tiles + (r / 32) * htp_tile_row_size(&geom, ne0);
            stage(g, &g->tiled, &geom, tile_row, r % 32, ne0, slot);
            dequant(type, true, slot, ne0, got);
            snprintf(what, sizeof(what), "%s tiled, %u elements, row %u", tt->name, ne0, r);
            check(what, got, tiled + (size_t) r * ne0, ne0);
        }
        free(tiled);
        free(slot);
        free(flat);
        free(tiles);
        free(x);
        free(want);
        free(got);
    }
}

static void test_dequant_chunk(void **state) {
    (void) state;
    check_width(GR_CHUNK_MAX);
}

static void test_dequant_super_block(void **state) {
    (void) state;
    check_width(256);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dequant_chunk),
        cmocka_unit_test(test_dequant_super_block),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
