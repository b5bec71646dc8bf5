/*
 * The matmul design on the XDNA array (an IRON program in C, xdna-array.h): C (M x N, f32) = A (M x K) B (K x N),
 * A f32 in DDR made bf16 at the shim, B in DDR in the design's tile order, bf16 blocked for the mmul
 * (xdna_matmul_pack_b_row) or GGML's Q4_0 / Q8_0 blocks that the compute tiles dequantize
 * (xdna_matmul_pack_b_blocks), on every compute tile of the columns it uses, as mlir-aie's whole-array GEMM spreads
 * a matmul.
 *
 * For GGML's MUL_MAT dst = src0 . src1: M = src1's rows (tokens), K = ne00, N = src0's rows (ne01, output
 * features); B's column o is src0's row o.
 *
 * Tiling: the kernel multiplies m x k by k x n tiles (k = n = 64; m = 32, or fewer rows for a short batch: the
 * least multiple of 2 r that holds M); the four compute tiles of a column take the four n-wide parts of a group of
 * 4 n output columns, the used columns take groups in turn (group g on column g % n_cols_used). M, K and N are
 * padded (zero rows, zero columns, zero k) to m, k and n_cols_used x 4 n x groups a column.
 *
 * Per used column c, the dataflow (L3 -> L2 -> L1 and back, seed 003):
 *   shim (c,0) --A_l2 [m x k bf16, from f32]--> mem (c,1) --A_l1 (broadcast, blocked r x s by the mem tile's 4-dim
 *       BD)--> compute (c,2..5)
 *   shim (c,0) --B_l2 [4 k x n, bf16 or blocks]--> mem (c,1) --split--> B_l1[w] [k x n] --> compute (c,2+w)
 *   compute (c,2+w) --C_l1[w] [m x n f32, blocked r x t, streamed row-major by the compute tile's 3-dim BD]-->
 *       mem (c,1) --join--> C_l2 [4 m x n] --> shim (c,0) --> DDR rows of C
 * Each tile's DMA channels (rule 9): the shim fills A and B and drains C (2 + 1 of 2 + 2), the mem tile receives A,
 * B and the four C (6 of 6 S2MM) and sends A, the four B and C (6 of 6 MM2S), a compute tile receives A and B and
 * sends C.
 * Each worker: for each of its groups, for each m-tile: acquire C, zero it, for each k-tile: acquire A and B,
 * C += A B (the mmul kernel), release A, B; release C.
 */
#ifndef VNPU_XDNA_MATMUL_H
#define VNPU_XDNA_MATMUL_H

#include "fp16.h"
#include "xdna-array.h"
#include "xdna-mmul.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define XDNA_MM_TILE_K  64
#define XDNA_MM_TILE_N  64
#define XDNA_MM_TILE_M  32
#define XDNA_MM_MAX_DIM (1u << 19) /* M, K, N: padded, a DDR row stride stays below a BD's 2^20 words */

/* The shapes of one matmul on one partition: what the design, the packed B and the DDR buffers agree on. */
struct xdna_matmul_plan {
    const struct xdna_device *dev;
    struct xdna_mm_kernel kernel; /* bf16 -> f32, m x k x n; with b_type's blocks, the dequantizing kernel */
    enum vnpu_type b_type;        /* B in DDR and on its way: VNPU_TYPE_BF16, or VNPU_TYPE_Q4_0 / Q8_0 blocks */
    size_t b_tile_bytes;          /* one k x n tile of B */
    uint32_t M, K, N;             /* the matmul's */
    uint32_t m_pad, k_pad, n_pad; /* padded: M to m, K to k, N to the groups */
    uint32_t n_cols;              /* columns used */
    uint32_t groups_per_col;
    uint32_t mt, kt; /* m-tiles, k-tiles */
};

/* The plan of an M x K x N matmul on partition dev (bfp16: AIE2P's BFP16-emulation kernel) whose B streams as b_type:
 * VNPU_TYPE_BF16 (the host dequantizes any weight type to bf16 and packs it, xdna_matmul_pack_b_row), or
 * VNPU_TYPE_Q4_0 / VNPU_TYPE_Q8_0, GGML's blocks repacked into tiles (xdna_matmul_pack_b_blocks; 4.5 or 8.5 bits a
 * weight through DDR and the array, dequantized by the compute tiles' kernel, xdna-mmul.h; K a whole number of
 * blocks). VNPU_STATUS_BAD_ARG (logged) for a zero or too large dimension (XDNA_MM_MAX_DIM), another b_type, a
 * kernel the arch has not, or a runtime sequence of more than XDNA_MAX_RUNTIME_TRANSFERS transfers (a batch too long
 * for the shapes). */
enum vnpu_status xdna_matmul_plan_init(struct xdna_matmul_plan *p, const struct xdna_device *dev, bool bfp16,
                                       enum vnpu_type b_type, uint32_t M, uint32_t K, uint32_t N);

/* Whether xdna_matmul_plan_init would make a plan of M x K x N on dev (bfp16, b_type as there), logging nothing: a
 * device's supports_op. */
bool xdna_matmul_fits(const struct xdna_device *dev, bool bfp16, enum vnpu_type b_type, uint32_t M, uint32_t K,
                      uint32_t N);

/* Bytes of the packed B: k_pad x n_pad weights in b_type. It depends on dev, bfp16, b_type, K and N only, not on M: a
 * weight packed once serves every batch size. */
size_t xdna_matmul_b_bytes(const struct xdna_matmul_plan *p);

/* Fill the packed bf16 b with padding (+0), before its rows are packed into it (xdna_matmul_pack_b_row). */
void xdna_matmul_b_clear(const struct xdna_matmul_plan *p, void *b);

/* Write B's column o (< N: src0's row o, K floats w) into the packed bf16 b, rounded to bf16 (nearest even). */
void xdna_matmul_pack_b_row(const struct xdna_matmul_plan *p, uint32_t o, const float *w, void *b);

/* Write the whole packed b of a Q4_0 / Q8_0 plan from src0's matrix w (N rows of K / 32 GGML blocks, nb1 bytes
 * apart), repacked into the tiled Q4_0 / Q8_0 the kernel reads (xdna_mm_kernel_init_blocks: each 64 x 64 tile's
 * quants in the mmul's blocked order, then its scales; the same bits a weight), padding included (quants of scale 0
 * that dequantize to +0). */
void xdna_matmul_pack_b_blocks(const struct xdna_matmul_plan *p, const void *w, size_t nb1, void *b);

struct xdna_matmul;

/* The design of plan p, built (every rule of xdna-array.h checked); strict: rule 7's poison. */
enum vnpu_status xdna_matmul_new(const struct xdna_matmul_plan *p, bool strict, struct xdna_matmul **out);
void xdna_matmul_free(struct xdna_matmul *mm);
const struct xdna_matmul_plan *xdna_matmul_plan_of(const struct xdna_matmul *mm);

/* Its later runs append their timeline's events to t (xdna_design_trace; NULL: none). */
void xdna_matmul_trace(struct xdna_matmul *mm, struct xdna_trace *t);

/* Run it: a (m_pad x k_pad f32, row-major, zero where padded), b (packed, xdna_matmul_b_bytes), c (m_pad x n_pad
 * f32, row-major: every element written). stats may be NULL. */
enum vnpu_status xdna_matmul_run(struct xdna_matmul *mm, const float *a, const void *b, float *c,
                                 struct xdna_run_stats *stats);

#endif /* VNPU_XDNA_MATMUL_H */
