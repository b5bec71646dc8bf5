/*
 * The public side of vnpu-repack: which types and shapes are tiled, the tiled size, and the walk over the tile
 * grid that hands each block column to its type's codec, split over threads by tile rows.
 */
#include "repack.h"

#include "repack-codec.h"

#include "log.h"

#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define REPACK_MAX_THREADS 64

/* The twelve tiled types; NULL for the rest. */
static const struct repack_codec *const repack_codecs[VNPU_TYPE_COUNT] = {
    [VNPU_TYPE_Q4_0] = &repack_codec_q4_0,   [VNPU_TYPE_Q4_1] = &repack_codec_q4_1,
    [VNPU_TYPE_Q8_0] = &repack_codec_q8_0,   [VNPU_TYPE_IQ4_NL] = &repack_codec_iq4_nl,
    [VNPU_TYPE_MXFP4] = &repack_codec_mxfp4, [VNPU_TYPE_Q1_0] = &repack_codec_q1_0,
    [VNPU_TYPE_Q2_0] = &repack_codec_q2_0,   [VNPU_TYPE_Q2_K] = &repack_codec_q2_K,
    [VNPU_TYPE_Q3_K] = &repack_codec_q3_K,   [VNPU_TYPE_Q4_K] = &repack_codec_q4_K,
    [VNPU_TYPE_Q5_K] = &repack_codec_q5_K,   [VNPU_TYPE_Q6_K] = &repack_codec_q6_K,
};
static_assert(VNPU_TYPE_COUNT == 43, "new type: give it a tiled format here and in htp-tiles.h, or none");
static_assert((int) VNPU_TYPE_Q4_0 == HTP_TYPE_Q4_0 && (int) VNPU_TYPE_Q4_1 == HTP_TYPE_Q4_1 &&
                  (int) VNPU_TYPE_Q8_0 == HTP_TYPE_Q8_0 && (int) VNPU_TYPE_IQ4_NL == HTP_TYPE_IQ4_NL &&
                  (int) VNPU_TYPE_MXFP4 == HTP_TYPE_MXFP4 && (int) VNPU_TYPE_Q1_0 == HTP_TYPE_Q1_0 &&
                  (int) VNPU_TYPE_Q2_0 == HTP_TYPE_Q2_0 && (int) VNPU_TYPE_Q2_K == HTP_TYPE_Q2_K &&
                  (int) VNPU_TYPE_Q3_K == HTP_TYPE_Q3_K && (int) VNPU_TYPE_Q4_K == HTP_TYPE_Q4_K &&
                  (int) VNPU_TYPE_Q5_K == HTP_TYPE_Q5_K && (int) VNPU_TYPE_Q6_K == HTP_TYPE_Q6_K,
              "htp_type ids are GGML's");

static const struct repack_codec *repack_codec_of(enum vnpu_type type) {
    return (unsigned) type < VNPU_TYPE_COUNT ? repack_codecs[type] : NULL;
}

/* A tiled weight's geometry, from its type and ne. */
struct repack_shape {
    const struct repack_codec *c;
    struct htp_tile_geom g;
    uint32_t ne0, ne1;
    int64_t n_mat;        /* ne2 * ne3 matrices */
    uint32_t n_col_tiles; /* tile rows per matrix */
    uint32_t n_blocks;    /* GGML blocks per row = block columns */
    size_t block_size;    /* bytes per GGML block */
    size_t row_size;      /* flat bytes per row */
    size_t tile_row_size; /* tiled bytes per tile row */
    size_t matrix_size;   /* tiled bytes per matrix */
    size_t flat_size;     /* flat bytes of the weight */
    size_t tiled_size;    /* tiled bytes of the weight */
};

/* Fills s for a supported type and shape; otherwise false with the reason in why. */
static bool repack_shape_get(enum vnpu_type type, const int64_t ne[VNPU_MAX_DIMS], struct repack_shape *s, char *why,
                             size_t why_size) {
    memset(s, 0, sizeof(*s));
    s->c = repack_codec_of(type);
    if (!s->c || !htp_tile_geom_get((enum htp_type) type, &s->g)) {
        snprintf(why, why_size, "type %s has no tiled format", vnpu_type_name(type));
        return false;
    }
    for (int i = 0; i < VNPU_MAX_DIMS; i++) {
        if (ne[i] < 1) {
            snprintf(why, why_size, "ne[%d] = %lld, expected >= 1", i, (long long) ne[i]);
            return false;
        }
    }
    const struct vnpu_type_traits *tt = vnpu_type_traits_get(type);
    if (ne[0] % tt->blck != 0) {
        snprintf(why, why_size, "ne0 = %lld is not a multiple of the block size %lld", (long long) ne[0],
                 (long long) tt->blck);
        return false;
    }
    if (ne[0] > UINT32_MAX || ne[1] > UINT32_MAX) {
        snprintf(why, why_size, "ne0 = %lld or ne1 = %lld exceeds 32 bits", (long long) ne[0], (long long) ne[1]);
        return false;
    }
    s->ne0 = (uint32_t) ne[0];
    s->ne1 = (uint32_t) ne[1];
    s->n_col_tiles = htp_tile_n_col_tiles(s->ne1);
    s->n_blocks = (uint32_t) (ne[0] / tt->blck);
    s->block_size = tt->size;
    s->row_size = (size_t) s->n_blocks * tt->size;
    /* htp_tile_row_size / htp_tile_matrix_size, with every product checked */
    size_t flat_matrix;
    if (__builtin_mul_overflow((size_t) htp_tile_n_k_tiles(&s->g, s->ne0), (size_t) s->g.size, &s->tile_row_size) ||
        __builtin_mul_overflow(s->tile_row_size, (size_t) s->n_col_tiles, &s->matrix_size) ||
        __builtin_mul_overflow(ne[2], ne[3], &s->n_mat) ||
        __builtin_mul_overflow(s->row_size, (size_t) s->ne1, &flat_matrix) ||
        __builtin_mul_overflow(flat_matrix, (size_t) s->n_mat, &s->flat_size) ||
        __builtin_mul_overflow(s->matrix_size, (size_t) s->n_mat, &s->tiled_size)) {
        snprintf(why, why_size, "%lld x %lld x %lld x %lld elements overflow a size", (long long) ne[0],
                 (long long) ne[1], (long long) ne[2], (long long) ne[3]);
        return false;
    }
    return true;
}

bool repack_supported(enum vnpu_type type, const int64_t ne[VNPU_MAX_DIMS]) {
    struct repack_shape s;
    char why[128];
    return repack_shape_get(type, ne, &s, why, sizeof(why));
}

bool repack_lossless(enum vnpu_type type) {
    const struct repack_codec *c = repack_codec_of(type);
    return c && c->lossless;
}

size_t repack_nbytes(enum vnpu_type type, const int64_t ne[VNPU_MAX_DIMS]) {
    struct repack_shape s;
    char why[128];
    return repack_shape_get(type, ne, &s, why, sizeof(why)) ? s.tiled_size : 0;
}

/* ---- The grid walk ------------------------------------------------------------------------------------------- */

/* Tile row t of the weight (matrix t / n_col_tiles, column tile t % n_col_tiles): where its first flat row and
 * its first tile are, and how many of its 32 rows hold weights. */
struct repack_tile_row {
    size_t flat;  /* byte offset of its first row in the flat tensor */
    size_t tiled; /* byte offset of its tile (ct, 0) in the tiled tensor */
    uint32_t valid_rows;
};

static struct repack_tile_row repack_tile_row_at(const struct repack_shape *s, int64_t t) {
    const int64_t mat = t / s->n_col_tiles;
    const uint32_t ct = (uint32_t) (t % s->n_col_tiles);
    return (struct repack_tile_row){
        .flat = ((size_t) mat * s->ne1 + (size_t) ct * TILE_ROWS) * s->row_size,
        .tiled = (size_t) mat * s->matrix_size + ct * s->tile_row_size,
        .valid_rows = htp_tile_valid_rows(s->ne1, ct),
    };
}

static void repack_pack_tile_row(const struct repack_shape *s, const uint8_t *flat, uint8_t *tiled, int64_t t) {
    const struct repack_tile_row tr = repack_tile_row_at(s, t);
    const uint8_t *rows[TILE_ROWS];
    for (uint32_t kb = 0; kb < s->n_blocks; kb++) {
        for (uint32_t r = 0; r < TILE_ROWS; r++) {
            rows[r] = r < tr.valid_rows ? flat + tr.flat + r * s->row_size + kb * s->block_size : NULL;
        }
        s->c->pack(s->c, rows, tiled + tr.tiled + (size_t) kb * s->g.tiles_per_block * s->g.size);
    }
}

static int repack_unpack_tile_row(const struct repack_shape *s, const uint8_t *tiled, uint8_t *flat, int64_t t) {
    const struct repack_tile_row tr = repack_tile_row_at(s, t);
    uint8_t *rows[TILE_ROWS];
    int n_inexact = 0;
    for (uint32_t kb = 0; kb < s->n_blocks; kb++) {
        for (uint32_t r = 0; r < TILE_ROWS; r++) {
            rows[r] = r < tr.valid_rows ? flat + tr.flat + r * s->row_size + kb * s->block_size : NULL;
        }
        n_inexact += s->c->unpack(s->c, tiled + tr.tiled + (size_t) kb * s->g.tiles_per_block * s->g.size, rows);
    }
    return n_inexact;
}

/* One thread's share: tile rows [t_begin, t_end) in one direction. */
struct repack_job {
    const struct repack_shape *s;
    bool to_tiles;
    const uint8_t *src;
    uint8_t *dst;
    int64_t t_begin, t_end;
    int n_inexact; /* unpack: rows whose derived scales did not factor */
};

static void *repack_job_run(void *arg) {
    struct repack_job *job = arg;
    for (int64_t t = job->t_begin; t < job->t_end; t++) {
        if (job->to_tiles) {
            repack_pack_tile_row(job->s, job->src, job->dst, t);
        } else {
            job->n_inexact += repack_unpack_tile_row(job->s, job->src, job->dst, t);
        }
    }
    return NULL;
}

/* Runs every tile row over n_threads threads (the caller's included; a thread that cannot start runs in the
 * caller). Returns the total of n_inexact. */
static int repack_run(const struct repack_shape *s, bool to_tiles, const void *src, void *dst, int n_threads) {
    const int64_t n_tile_rows = s->n_mat * s->n_col_tiles;
    int n = n_threads < REPACK_MAX_THREADS ? n_threads : REPACK_MAX_THREADS;
    n = n_tile_rows < n ? (int) n_tile_rows : n;
    struct repack_job jobs[REPACK_MAX_THREADS];
    pthread_t threads[REPACK_MAX_THREADS];
    bool started[REPACK_MAX_THREADS] = {false};
    for (int i = 0; i < n; i++) {
        jobs[i] = (struct repack_job){.s = s,
                                      .to_tiles = to_tiles,
                                      .src = src,
                                      .dst = dst,
                                      .t_begin = n_tile_rows * i / n,
                                      .t_end = n_tile_rows * (i + 1) / n};
        started[i] = i > 0 && pthread_create(&threads[i], NULL, repack_job_run, &jobs[i]) == 0;
    }
    int n_inexact = 0;
    for (int i = 0; i < n; i++) {
        if (started[i]) {
            pthread_join(threads[i], NULL);
        } else {
            repack_job_run(&jobs[i]);
        }
        n_inexact += jobs[i].n_inexact;
    }
    return n_inexact;
}

/* ---- Entry points -------------------------------------------------------------------------------------------- */

/* "q4_K [256, 100, 3, 1]", for messages. */
static void repack_desc(enum vnpu_type type, const int64_t ne[VNPU_MAX_DIMS], char *buf, size_t size) {
    snprintf(buf, size, "%s [%lld, %lld, %lld, %lld]", vnpu_type_name(type), (long long) ne[0], (long long) ne[1],
             (long long) ne[2], (long long) ne[3]);
}

/* Validates a call's type and shape. */
static enum vnpu_status repack_check(const char *fn, enum vnpu_type type, const int64_t ne[VNPU_MAX_DIMS],
                                     struct repack_shape *s) {
    char desc[96], why[128];
    if (!repack_shape_get(type, ne, s, why, sizeof(why))) {
        repack_desc(type, ne, desc, sizeof(desc));
        vnpu_log_error("%s: %s: %s", fn, desc, why);
        return VNPU_STATUS_UNSUPPORTED;
    }
    return VNPU_STATUS_OK;
}

/* Validates the buffers of a repack or unpack (the flat size exactly, the tiled one as a lower bound) and the
 * thread count. */
static enum vnpu_status repack_check_sizes(const char *fn, enum vnpu_type type, const int64_t ne[VNPU_MAX_DIMS],
                                           const struct repack_shape *s, size_t flat_size, size_t tiled_size,
                                           int n_threads) {
    char desc[96];
    repack_desc(type, ne, desc, sizeof(desc));
    if (flat_size != s->flat_size || tiled_size < s->tiled_size) {
        vnpu_log_error("%s: %s: flat buffer %zu bytes (expected %zu), tiled %zu (expected >= %zu)", fn, desc, flat_size,
                       s->flat_size, tiled_size, s->tiled_size);
        return VNPU_STATUS_BAD_ARG;
    }
    if (n_threads < 1) {
        vnpu_log_error("%s: %s: %d threads, expected >= 1", fn, desc, n_threads);
        return VNPU_STATUS_BAD_ARG;
    }
    return VNPU_STATUS_OK;
}

enum vnpu_status repack_tensor(enum vnpu_type type, const int64_t ne[VNPU_MAX_DIMS], const void *src, size_t src_size,
                               void *dst, size_t dst_size, int n_threads) {
    struct repack_shape s;
    enum vnpu_status st = repack_check("repack_tensor", type, ne, &s);
    if (st == VNPU_STATUS_OK) {
        st = repack_check_sizes("repack_tensor", type, ne, &s, src_size, dst_size, n_threads);
    }
    if (st != VNPU_STATUS_OK) {
        return st;
    }
    repack_run(&s, true, src, dst, n_threads);
    return VNPU_STATUS_OK;
}

enum vnpu_status repack_unpack_tensor(enum vnpu_type type, const int64_t ne[VNPU_MAX_DIMS], const void *src,
                                      size_t src_size, void *dst, size_t dst_size, int n_threads) {
    struct repack_shape s;
    enum vnpu_status st = repack_check("repack_unpack_tensor", type, ne, &s);
    if (st == VNPU_STATUS_OK) {
        st = repack_check_sizes("repack_unpack_tensor", type, ne, &s, dst_size, src_size, n_threads);
    }
    if (st != VNPU_STATUS_OK) {
        return st;
    }
    const int n_inexact = repack_run(&s, false, src, dst, n_threads);
    if (n_inexact > 0) {
        char desc[96];
        repack_desc(type, ne, desc, sizeof(desc));
        vnpu_log_warn("repack_unpack_tensor: %s: %d super-block rows hold derived scales that no FP16 d reproduces "
                      "(NaN, or every product overflowed FP16); their scales were fitted approximately",
                      desc, n_inexact);
    }
    return VNPU_STATUS_OK;
}

enum vnpu_status repack_dequant_tensor(enum vnpu_type type, const int64_t ne[VNPU_MAX_DIMS], const void *src,
                                       size_t src_size, float *dst) {
    struct repack_shape s;
    const enum vnpu_status st = repack_check("repack_dequant_tensor", type, ne, &s);
    if (st != VNPU_STATUS_OK) {
        return st;
    }
    if (src_size < s.tiled_size) {
        char desc[96];
        repack_desc(type, ne, desc, sizeof(desc));
        vnpu_log_error("repack_dequant_tensor: %s: tiled buffer %zu bytes, expected >= %zu", desc, src_size,
                       s.tiled_size);
        return VNPU_STATUS_BAD_ARG;
    }
    const uint32_t k_cols = s.g.k_cols;
    const uint32_t n_k_tiles = htp_tile_n_k_tiles(&s.g, s.ne0);
    float y[TILE_ROWS * HTP_TENSOR_TILE_K_Q1_0]; /* the widest tile */
    for (int64_t t = 0; t < s.n_mat * s.n_col_tiles; t++) {
        const struct repack_tile_row tr = repack_tile_row_at(&s, t);
        float *out = dst + tr.flat / s.row_size * s.ne0; /* its first row's first element */
        for (uint32_t kt = 0; kt < n_k_tiles; kt++) {
            repack_dequant_tile(type, (const uint8_t *) src + tr.tiled, kt, y);
            for (uint32_t r = 0; r < tr.valid_rows; r++) {
                memcpy(out + (size_t) r * s.ne0 + (size_t) kt * k_cols, y + r * k_cols, k_cols * sizeof(float));
            }
        }
    }
    return VNPU_STATUS_OK;
}

void repack_dequant_tile(enum vnpu_type type, const void *tile_row, uint32_t kt, float *dst) {
    const struct repack_codec *c = repack_codec_of(type);
    struct htp_tile_geom g;
    VNPU_ASSERT(c && htp_tile_geom_get((enum htp_type) type, &g));
    const uint32_t j = kt % g.tiles_per_block;
    c->dequant(c, (const uint8_t *) tile_row + (size_t) (kt - j) * g.size, j, dst);
}
