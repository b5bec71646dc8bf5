/* The matmul design (xdna-matmul.h). */
#include "xdna-matmul.h"

#include "log.h"
#include "quants.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WORKERS_PER_COL XDNA_COMPUTE_ROWS
#define DEPTH           2 /* every fifo double-buffered: a transfer overlaps the kernel */

/* DDR buffers of a run, the runtime sequence's ddr_index. */
enum { DDR_A, DDR_B, DDR_C, DDR_COUNT };

struct xdna_matmul {
    struct xdna_matmul_plan plan;
    struct xdna_design *design;
};

static uint32_t round_up(uint32_t x, uint32_t to) {
    return (x + to - 1) / to * to;
}

/* The plan of an M x K x N matmul (xdna_matmul_plan_init), its refusals logged when log. */
static enum vnpu_status plan_make(struct xdna_matmul_plan *p, const struct xdna_device *dev, bool bfp16,
                                  enum vnpu_type b_type, uint32_t M, uint32_t K, uint32_t N, bool log) {
    if (M == 0 || K == 0 || N == 0 || M > XDNA_MM_MAX_DIM || K > XDNA_MM_MAX_DIM || N > XDNA_MM_MAX_DIM) {
        if (log) {
            vnpu_log_error("%s: matmul %u x %u x %u: each dimension must be 1..%u", dev->name, M, K, N,
                           XDNA_MM_MAX_DIM);
        }
        return VNPU_STATUS_BAD_ARG;
    }
    const bool blocks = b_type == VNPU_TYPE_Q4_0 || b_type == VNPU_TYPE_Q8_0;
    if ((!blocks && b_type != VNPU_TYPE_BF16) || (blocks && K % XDNA_MM_BLOCK != 0)) {
        if (log) {
            vnpu_log_error("%s: matmul %u x %u x %u with B in %s: B is bf16, or q4_0 / q8_0 blocks along a K of whole "
                           "blocks",
                           dev->name, M, K, N, vnpu_type_traits_get(b_type)->name);
        }
        return VNPU_STATUS_BAD_ARG;
    }
    uint32_t dims[3];
    if (!xdna_mmul_dims(dev->arch, XDNA_DTYPE_BF16, bfp16, dims)) {
        if (log) {
            vnpu_log_error("%s: no bf16%s mmul on %s", dev->name, bfp16 ? " (BFP16 emulation)" : "", dev->arch_name);
        }
        return VNPU_STATUS_BAD_ARG;
    }
    const uint32_t m = M >= XDNA_MM_TILE_M ? XDNA_MM_TILE_M : round_up(M, 2 * dims[0]);
    *p = (struct xdna_matmul_plan){.dev = dev, .b_type = b_type, .M = M, .K = K, .N = N};
    p->b_tile_bytes =
        blocks ? (size_t) XDNA_MM_TILE_K / XDNA_MM_BLOCK * XDNA_MM_TILE_N * vnpu_type_traits_get(b_type)->size
               : (size_t) XDNA_MM_TILE_K * XDNA_MM_TILE_N * sizeof(vnpu_bf16_t);
    const uint32_t group = WORKERS_PER_COL * XDNA_MM_TILE_N;
    const uint32_t groups = (N + group - 1) / group;
    p->n_cols = groups < dev->n_cols ? groups : dev->n_cols;
    p->groups_per_col = (groups + p->n_cols - 1) / p->n_cols;
    p->m_pad = round_up(M, m);
    p->k_pad = round_up(K, XDNA_MM_TILE_K);
    p->n_pad = p->groups_per_col * p->n_cols * group;
    p->mt = p->m_pad / m;
    p->kt = p->k_pad / XDNA_MM_TILE_K;
    /* per column, group and m-tile: a fill of A and of B per run of k-tiles one BD dimension spans, a drain */
    const uint64_t k_runs = (p->kt + XDNA_BD_MAX_WRAP - 1) / XDNA_BD_MAX_WRAP;
    const uint64_t transfers = (uint64_t) p->n_cols * p->groups_per_col * p->mt * (2 * k_runs + 1);
    if (transfers > XDNA_MAX_RUNTIME_TRANSFERS) {
        if (log) {
            vnpu_log_error("%s: matmul %u x %u x %u takes %llu runtime transfers, a sequence has at most %u (split the "
                           "batch)",
                           dev->name, M, K, N, (unsigned long long) transfers, XDNA_MAX_RUNTIME_TRANSFERS);
        }
        return VNPU_STATUS_BAD_ARG;
    }
    if (!log) {
        return VNPU_STATUS_OK;
    }
    if (blocks) {
        return xdna_mm_kernel_init_blocks(&p->kernel, dev->arch, bfp16, b_type, m, XDNA_MM_TILE_K, XDNA_MM_TILE_N);
    }
    return xdna_mm_kernel_init(&p->kernel, dev->arch, XDNA_DTYPE_BF16, XDNA_DTYPE_F32, bfp16, m, XDNA_MM_TILE_K,
                               XDNA_MM_TILE_N);
}

enum vnpu_status xdna_matmul_plan_init(struct xdna_matmul_plan *p, const struct xdna_device *dev, bool bfp16,
                                       enum vnpu_type b_type, uint32_t M, uint32_t K, uint32_t N) {
    return plan_make(p, dev, bfp16, b_type, M, K, N, true);
}

bool xdna_matmul_fits(const struct xdna_device *dev, bool bfp16, enum vnpu_type b_type, uint32_t M, uint32_t K,
                      uint32_t N) {
    struct xdna_matmul_plan p;
    return plan_make(&p, dev, bfp16, b_type, M, K, N, false) == VNPU_STATUS_OK;
}

size_t xdna_matmul_b_bytes(const struct xdna_matmul_plan *p) {
    return (size_t) p->kt * (p->n_pad / XDNA_MM_TILE_N) * p->b_tile_bytes;
}

void xdna_matmul_b_clear(const struct xdna_matmul_plan *p, void *b) {
    VNPU_ASSERT(p->b_type == VNPU_TYPE_BF16);
    memset(b, 0, xdna_matmul_b_bytes(p)); /* bf16 +0 */
}

/* The tile of packed B that holds output column o at k-tile kt: group g, then k-tile, then the worker's part. */
static size_t b_tile_of(const struct xdna_matmul_plan *p, uint32_t o, uint32_t kt) {
    const uint32_t n = XDNA_MM_TILE_N, g = o / (WORKERS_PER_COL * n), wk = o / n % WORKERS_PER_COL;
    return (((size_t) g * p->kt + kt) * WORKERS_PER_COL + wk) * p->b_tile_bytes;
}

void xdna_matmul_pack_b_blocks(const struct xdna_matmul_plan *p, const void *wv, size_t nb1, void *b) {
    const uint8_t *w = wv;
    const bool q4 = p->b_type == VNPU_TYPE_Q4_0;
    const size_t bs = vnpu_type_traits_get(p->b_type)->size;
    const uint32_t s = p->kernel.base.mac_dims[1], t = p->kernel.base.mac_dims[2], n = XDNA_MM_TILE_N;
    const uint32_t k_tile = XDNA_MM_TILE_K, blocks = k_tile / XDNA_MM_BLOCK;
    const size_t block_row = (size_t) n * s; /* a row of s x t blocks: s rows of k */
    const uint8_t pad = q4 ? 8 : 0;          /* with scale 0: (8 - 8) x 0 = +0, where a Q4_0 quant 0 would give -0 */
    uint8_t quants[XDNA_MM_TILE_K * XDNA_MM_TILE_N]; /* a tile's quants, one a byte, in the mmul's blocked order */
    uint32_t row_at[XDNA_MM_TILE_K];                 /* row k of column 0 there: row k / s of blocks, k % s in it */
    for (uint32_t k = 0; k < k_tile; k++) {
        row_at[k] = (uint32_t) ((k / s) * block_row + (k % s) * t);
    }
    uint8_t *out = b;
    /* the tiles in memory order (b_tile_of): group, k-tile, worker; in each the quants in the mmul's blocked order
     * (rows of s x t blocks, xdna-mmul.h), then the scales of its k / 32 blocks, n columns each */
    for (uint32_t g = 0; g < p->n_pad / (WORKERS_PER_COL * n); g++) {
        for (uint32_t kt = 0; kt < p->kt; kt++) {
            for (uint32_t wk = 0; wk < WORKERS_PER_COL; wk++, out += p->b_tile_bytes) {
                const uint32_t o0 = (g * WORKERS_PER_COL + wk) * n;
                uint8_t *scales = out + (q4 ? sizeof(quants) / 2 : sizeof(quants));
                memset(quants, pad, sizeof(quants));
                memset(scales, 0, (size_t) blocks * n * 2);
                for (uint32_t j = 0; j < n && o0 + j < p->N; j++) {
                    const size_t col = (size_t) (j / t) * s * t + j % t; /* column j in the first row of blocks */
                    for (uint32_t q = 0; q < blocks && (kt * blocks + q) * XDNA_MM_BLOCK < p->K; q++) {
                        const uint8_t *blk = w + (size_t) (o0 + j) * nb1 + (size_t) (kt * blocks + q) * bs;
                        memcpy(scales + ((size_t) q * n + j) * 2, blk, 2); /* d, then the quants */
                        const uint32_t *rows = row_at + q * XDNA_MM_BLOCK;
                        for (uint32_t e = 0; e < XDNA_MM_BLOCK; e++) {
                            /* GGML's Q4_0: weight e in the low nibble of byte e, weight e + 16 in its high nibble */
                            const uint8_t v = !q4 ? blk[2 + e] : e < 16 ? blk[2 + e] & 15 : blk[2 + e - 16] >> 4;
                            quants[rows[e] + col] = v;
                        }
                    }
                }
                for (size_t i = 0; i < sizeof(quants); i += 1 + q4) {
                    out[i >> q4] = q4 ? (uint8_t) (quants[i] | quants[i + 1] << 4) : quants[i];
                }
            }
        }
    }
}

/* Packed bf16 B: for each group g, for each k-tile, the four workers' k x n tiles in turn, each blocked s x t (the
 * kernel's layout, xdna-mmul.h): the order in which the shim reads it, so that its fill is one plain run a k-tile. */
void xdna_matmul_pack_b_row(const struct xdna_matmul_plan *p, uint32_t o, const float *w, void *b) {
    const uint32_t k = XDNA_MM_TILE_K, n = XDNA_MM_TILE_N, s = p->kernel.base.mac_dims[1],
                   t = p->kernel.base.mac_dims[2];
    const uint32_t j = o % n;
    const size_t in_block = (size_t) (j / t) * s * t + j % t; /* column j's place in a row of s x t blocks */
    for (uint32_t kt = 0, kk = 0; kt < p->kt && kk < p->K; kt++) {
        vnpu_bf16_t *tile = (vnpu_bf16_t *) ((uint8_t *) b + b_tile_of(p, o, kt)) + in_block;
        for (uint32_t kb = 0; kb < k / s && kk < p->K; kb++) {
            vnpu_bf16_t *blk = tile + (size_t) kb * (n / t) * s * t;
            for (uint32_t q = 0; q < s && kk < p->K; q++, kk++) {
                blk[(size_t) q * t] = vnpu_f32_to_bf16(w[kk]);
            }
        }
    }
}

static struct xdna_tap tap4(const uint32_t sizes[4], const int64_t strides[4]) {
    struct xdna_tap t = {.n_dims = 4};
    memcpy(t.sizes, sizes, 4 * sizeof(sizes[0]));
    memcpy(t.strides, strides, 4 * sizeof(strides[0]));
    return t;
}

/* Column c's fifos and links; ids into a[], b[w], c_l1[w], c_l2. */
struct col_fifos {
    int a_l2, a_l1, b_l2, b_l1[WORKERS_PER_COL], c_l1[WORKERS_PER_COL], c_l2;
};

static void build_col_fifos(struct xdna_design *d, const struct xdna_matmul_plan *p, uint32_t c, struct col_fifos *f) {
    const uint32_t m = p->kernel.m, k = p->kernel.k, n = p->kernel.n;
    const uint32_t r = p->kernel.base.mac_dims[0], s = p->kernel.base.mac_dims[1], t = p->kernel.base.mac_dims[2];
    const struct xdna_tile shim = {(uint8_t) c, XDNA_ROW_SHIM}, mem = {(uint8_t) c, XDNA_ROW_MEM};
    struct xdna_tile cores[WORKERS_PER_COL];
    for (uint32_t w = 0; w < WORKERS_PER_COL; w++) {
        cores[w] = (struct xdna_tile){(uint8_t) c, (uint8_t) (XDNA_ROW_COMPUTE0 + w)};
    }
    char name[32];
    snprintf(name, sizeof(name), "A_l2_%u", c);
    f->a_l2 = xdna_fifo_new(d, name, shim, &mem, 1, DEPTH, m * k, 2);
    snprintf(name, sizeof(name), "A_l1_%u", c);
    f->a_l1 = xdna_fifo_new(d, name, mem, cores, WORKERS_PER_COL, DEPTH, m * k, 2);
    /* A row-major m x k in L2 to (m/r) x (k/s) blocks of r x s: a 4-dim BD, which only the mem tile has */
    const struct xdna_tap a_block =
        tap4((const uint32_t[4]){m / r, k / s, r, s}, (const int64_t[4]){(int64_t) r * k, s, k, 1});
    xdna_fifo_dims_to_stream(d, f->a_l1, &a_block);
    xdna_link_new(d, mem, &f->a_l2, 1, &f->a_l1, 1, (const uint32_t[1]){0});
    /* B: bf16 elements, or its blocks as 32-bit words */
    const uint32_t b_eb = p->b_type == VNPU_TYPE_BF16 ? 2 : 4, b_elems = (uint32_t) (p->b_tile_bytes / b_eb);
    snprintf(name, sizeof(name), "B_l2_%u", c);
    f->b_l2 = xdna_fifo_new(d, name, shim, &mem, 1, DEPTH, WORKERS_PER_COL * b_elems, b_eb);
    uint32_t offsets[WORKERS_PER_COL];
    for (uint32_t w = 0; w < WORKERS_PER_COL; w++) {
        snprintf(name, sizeof(name), "B_l1_%u_%u", c, w);
        f->b_l1[w] = xdna_fifo_new(d, name, mem, &cores[w], 1, DEPTH, b_elems, b_eb);
        offsets[w] = w * b_elems;
    }
    xdna_link_new(d, mem, &f->b_l2, 1, f->b_l1, WORKERS_PER_COL, offsets);
    /* C, (n/t) columns of (m/r) blocks of r x t (xdna-mmul.h), streamed out row-major by the compute tile's DMA: row
     * i's t-wide pieces are m t elements apart, and a piece's rows t apart */
    const struct xdna_tap c_rows = {.n_dims = 3, .sizes = {m, n / t, t}, .strides = {t, (int64_t) m * t, 1}};
    for (uint32_t w = 0; w < WORKERS_PER_COL; w++) {
        snprintf(name, sizeof(name), "C_l1_%u_%u", c, w);
        f->c_l1[w] = xdna_fifo_new(d, name, cores[w], &mem, 1, DEPTH, m * n, 4);
        xdna_fifo_dims_to_stream(d, f->c_l1[w], &c_rows);
        offsets[w] = w * m * n;
    }
    /* the four m x n tiles joined on the mem tile, one drain (the shim has two S2MM channels, rule 9) */
    snprintf(name, sizeof(name), "C_l2_%u", c);
    f->c_l2 = xdna_fifo_new(d, name, mem, &shim, 1, DEPTH, WORKERS_PER_COL * m * n, 4);
    xdna_link_new(d, mem, f->c_l1, WORKERS_PER_COL, &f->c_l2, 1, offsets);
}

/* One m-tile of worker w: acquire C, zero it, accumulate k_tiles of A B into it, release it. */
static void build_worker_tile(struct xdna_design *d, const struct xdna_matmul_plan *p, int worker, int a, int b, int c,
                              uint32_t rows_valid) {
    const struct xdna_mm_args args = {.kernel = &p->kernel, .rows_valid = rows_valid};
    xdna_worker_acquire(d, worker, c, 1);
    xdna_worker_call(d, worker, &xdna_mm_zero, (const struct xdna_call_buf[1]){{c, 0}}, 1, NULL, 0);
    xdna_worker_loop_begin(d, worker, p->kt);
    xdna_worker_acquire(d, worker, a, 1);
    xdna_worker_acquire(d, worker, b, 1);
    xdna_worker_call(d, worker, &p->kernel.base, (const struct xdna_call_buf[3]){{a, 0}, {b, 0}, {c, 0}}, 3, &args,
                     sizeof(args));
    xdna_worker_release(d, worker, a, 1);
    xdna_worker_release(d, worker, b, 1);
    xdna_worker_loop_end(d, worker);
    xdna_worker_release(d, worker, c, 1);
}

static void build_workers(struct xdna_design *d, const struct xdna_matmul_plan *p, uint32_t c,
                          const struct col_fifos *f) {
    const uint32_t m = p->kernel.m, last_rows = p->M - (p->mt - 1) * m;
    for (uint32_t w = 0; w < WORKERS_PER_COL; w++) {
        const int worker = xdna_worker_new(d, (struct xdna_tile){(uint8_t) c, (uint8_t) (XDNA_ROW_COMPUTE0 + w)});
        xdna_worker_loop_begin(d, worker, p->groups_per_col);
        if (p->mt > 1) {
            xdna_worker_loop_begin(d, worker, p->mt - 1);
            build_worker_tile(d, p, worker, f->a_l1, f->b_l1[w], f->c_l1[w], m);
            xdna_worker_loop_end(d, worker);
        }
        build_worker_tile(d, p, worker, f->a_l1, f->b_l1[w], f->c_l1[w], last_rows);
        xdna_worker_loop_end(d, worker);
    }
}

/* Column c's runtime sequence: per group and m-tile, A's and B's k-tiles (a run of up to XDNA_BD_MAX_WRAP of them a
 * transfer, one BD dimension), then the four joined C tiles. Transfers of different fifos run at once (xdna-array.h),
 * so the two fills feed the workers together. */
static void build_runtime(struct xdna_design *d, const struct xdna_matmul_plan *p, uint32_t c,
                          const struct col_fifos *f) {
    const uint32_t m = p->kernel.m, k = p->kernel.k, n = p->kernel.n;
    /* B's k-tile, four tiles of b_elems: as b_rows rows a tile, each at most a BD dimension's size */
    const uint32_t b_eb = p->b_type == VNPU_TYPE_BF16 ? 2 : 4, b_elems = (uint32_t) (p->b_tile_bytes / b_eb);
    uint32_t b_rows = 1;
    while (b_elems % b_rows != 0 || b_elems / b_rows > XDNA_BD_MAX_WRAP) {
        b_rows++;
    }
    for (uint32_t gi = 0; gi < p->groups_per_col; gi++) {
        const uint64_t g = (uint64_t) gi * p->n_cols + c;
        for (uint32_t mt = 0; mt < p->mt; mt++) {
            for (uint32_t kt = 0; kt < p->kt; kt += XDNA_BD_MAX_WRAP) {
                const uint32_t run = p->kt - kt < XDNA_BD_MAX_WRAP ? p->kt - kt : XDNA_BD_MAX_WRAP;
                const struct xdna_tap a = {.n_dims = 3,
                                           .sizes = {run, m, k},
                                           .strides = {k, p->k_pad, 1},
                                           .offset = (uint64_t) mt * m * p->k_pad + (uint64_t) kt * k};
                xdna_runtime_fill(d, f->a_l2, DDR_A, &a, true);
                const struct xdna_tap b = {.n_dims = 3,
                                           .sizes = {run, WORKERS_PER_COL * b_rows, b_elems / b_rows},
                                           .strides = {(int64_t) WORKERS_PER_COL * b_elems, b_elems / b_rows, 1},
                                           .offset = (g * p->kt + kt) * WORKERS_PER_COL * b_elems};
                xdna_runtime_fill(d, f->b_l2, DDR_B, &b, false);
            }
            /* the joined tiles, worker after worker, each m rows of n into C's rows */
            const struct xdna_tap out = {.n_dims = 3,
                                         .sizes = {WORKERS_PER_COL, m, n},
                                         .strides = {n, p->n_pad, 1},
                                         .offset = (uint64_t) mt * m * p->n_pad + g * WORKERS_PER_COL * n};
            xdna_runtime_drain(d, f->c_l2, DDR_C, &out);
        }
    }
}

enum vnpu_status xdna_matmul_new(const struct xdna_matmul_plan *p, bool strict, struct xdna_matmul **out) {
    *out = NULL;
    struct xdna_matmul *mm = calloc(1, sizeof(*mm));
    if (!mm) {
        vnpu_log_error("%s: cannot allocate a matmul design", p->dev->name);
        return VNPU_STATUS_NO_MEMORY;
    }
    mm->plan = *p;
    enum vnpu_status st = xdna_design_new(p->dev, strict, &mm->design);
    if (st != VNPU_STATUS_OK) {
        free(mm);
        return st;
    }
    for (uint32_t c = 0; c < p->n_cols; c++) {
        struct col_fifos f;
        build_col_fifos(mm->design, &mm->plan, c, &f);
        build_workers(mm->design, &mm->plan, c, &f);
        build_runtime(mm->design, &mm->plan, c, &f);
    }
    st = xdna_design_build(mm->design);
    if (st != VNPU_STATUS_OK) {
        xdna_matmul_free(mm);
        return st;
    }
    *out = mm;
    return VNPU_STATUS_OK;
}

void xdna_matmul_free(struct xdna_matmul *mm) {
    if (mm) {
        xdna_design_free(mm->design);
        free(mm);
    }
}

const struct xdna_matmul_plan *xdna_matmul_plan_of(const struct xdna_matmul *mm) {
    return &mm->plan;
}

void xdna_matmul_trace(struct xdna_matmul *mm, struct xdna_trace *t) {
    xdna_design_trace(mm->design, t);
}

enum vnpu_status xdna_matmul_run(struct xdna_matmul *mm, const float *a, const void *b, float *c,
                                 struct xdna_run_stats *stats) {
    const struct xdna_matmul_plan *p = &mm->plan;
    void *const ddr[DDR_COUNT] = {(void *) a, (void *) b, c};
    const size_t bytes[DDR_COUNT] = {(size_t) p->m_pad * p->k_pad * sizeof(float), xdna_matmul_b_bytes(p),
                                     (size_t) p->m_pad * p->n_pad * sizeof(float)};
    return xdna_design_run(mm->design, ddr, bytes, DDR_COUNT, stats);
}
