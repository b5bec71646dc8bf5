/*
 * The AIE compute tile's matrix micro-kernel, aie::mmul<r, s, t> (seed 003, "MMUL shapes"), and the matmul
 * kernels built on it, emulated exactly as defined here.
 *
 * Shapes per (arch, input type), seed 003's table: int8 4x8x8 (AIE2) / 8x8x8 (AIE2P), int16 4x4x4 / 4x4x8, bf16
 * 4x8x4 / 4x8x8, and bf16 8x8x8 on AIE2P in the BFP16-emulation build (-DAIE_API_EMULATE_BFLOAT16_MMUL_WITH_BFP16).
 * Accumulators: acc32 for int8 and int16 (acc64 for int16 when asked), accfloat for bf16.
 *
 * Arithmetic (the emulation's definition; AMD publishes no bit-level description, docs/xdna.md):
 *  - int8, int16: products and sums exact in the accumulator's width (acc32 wraps modulo 2^32, as a 32-bit lane).
 *  - bf16 -> accfloat: an output lane adds the s products of its row and column in k order to the accumulator,
 *    each product an f32 multiplication (exact: 8 + 8 significand bits, unless it falls below f32's normal range,
 *    where it rounds) and each addition rounded to nearest even in f32: multiply, then add, never an FMA.
 *  - BFP16 emulation (AIE2P, 8x8x8): each operand is first converted to block floating point, blocks of 8
 *    consecutive values along k sharing one 8-bit exponent (the largest of the block's), each value an 8-bit
 *    signed mantissa (round to nearest even of x / 2^(e_max - 6), saturated to -127..127); block dot products
 *    are exact integers scaled by the two exponents, added to the f32 accumulator in k-block order.
 *    Precisely (a choice, the hardware's corner cases being unpublished): a value's exponent is its bf16 exponent
 *    field minus 127, a subnormal's -126 (the smallest normal's); e_max is the largest over the block's nonzero
 *    values (an all-zero block has mantissas 0); the mantissa of x is round-half-even(x / 2^(e_max - 6)) in
 *    -127..127 (|x| / 2^(e_max - 6) < 128, so only 127.5 and up saturate); a mantissa 0 is +0 (no -0). A block
 *    holding an inf or a NaN is a NaN block: every one of its values is NaN (xdna_bfp16_round writes 0x7FC0) and
 *    so is every contribution it takes part in. A contribution is the integer dot product of two blocks' mantissas
 *    (8 products of |m| <= 127: exact) times 2^(ea - 6 + eb - 6), rounded once to f32 (nearest even; overflow to
 *    inf, tiny results to subnormals or 0), then added to the accumulator rounded in f32.
 *
 * Layouts: a kernel's tiles are blocked, each block row-major: A (m x k) is (m/r) x (k/s) blocks of r x s and B
 * (k x n) (k/s) x (n/t) blocks of s x t, in row-major order of blocks (mlir-aie's matmul kernels); C (m x n) is
 * (m/r) x (n/t) blocks of r x t in column-major order of blocks (a column of blocks, m x t, after the other), so
 * that a compute tile's own 3-dimension BD streams it out row-major (xdna-matmul.h). The DMA makes the blocks
 * (xdna-array.h's taps), the kernel never reshapes.
 */
#ifndef VNPU_XDNA_MMUL_H
#define VNPU_XDNA_MMUL_H

#include "fp16.h"
#include "type-traits.h"
#include "vnpu.h"
#include "xdna-arch.h"
#include "xdna-array.h"

#include <stdbool.h>
#include <stdint.h>

enum xdna_dtype {
    XDNA_DTYPE_I8,
    XDNA_DTYPE_I16,
    XDNA_DTYPE_BF16,
    XDNA_DTYPE_F32,
    XDNA_DTYPE_I32,
    XDNA_DTYPE_I64,
};

/* The accumulator kind (seed 003, "Vector registers & widths"). */
enum xdna_acc {
    XDNA_ACC32,
    XDNA_ACC64,
    XDNA_ACCFLOAT,
};

/* r x s x t of the mmul for (arch, input dtype), the BFP16-emulation build for bf16 on AIE2P when bfp16; false
 * (out untouched) for a pair the seed's table has not (bfp16 on AIE2, f32 input, ...). */
bool xdna_mmul_dims(enum xdna_arch arch, enum xdna_dtype in, bool bfp16, uint32_t dims[3]);

/* A matmul kernel for tiles of m x k by k x n (the kernel's compile-time sizes, as mm.cc's DIM_M/K/N), its
 * mmul's shape read from the kernel. It multiplies with a 2 x 2 expansion of the mmul (two row blocks by two
 * column blocks a step, as mlir-aie's matmul_vectorized_2x2_mmul), so m % (2 r) == 0, k % s == 0, n % (2 t) == 0. */
struct xdna_mm_kernel {
    struct xdna_kernel base; /* name, fn, stack, mac_dims */
    enum xdna_arch arch;
    enum xdna_dtype in, out; /* in: A and B; out: C (F32 for bf16, I32 for int8, I32 or I64 for int16) */
    enum xdna_acc acc;
    bool bfp16;
    uint32_t m, k, n;
    bool dequant;          /* B arrives as GGML blocks of b_type (xdna_mm_kernel_init_blocks), not blocked s x t */
    enum vnpu_type b_type; /* VNPU_TYPE_Q4_0 or VNPU_TYPE_Q8_0 when dequant */
};

/* Arguments of one call of an xdna_mm_kernel (xdna_call.args); the call's bufs are A, B, C. */
struct xdna_mm_args {
    const struct xdna_mm_kernel *kernel; /* the kernel this call runs (xdna_mm_kernel_init's): its sizes and types
                                          * (the fn sees only the call); it outlives the design's runs */
    uint32_t rows_valid; /* rows of A (and C) that hold data, <= m: the emulation computes those rows; the other
                          * rows of their r-row blocks are computed or left as they are (the bf16 and BFP16 kernels
                          * leave them, the integer ones compute whole blocks), the rows of blocks past them are left
                          * as they are: padding whose C nobody reads. The MAC count is the whole tile's, as the
                          * hardware computes it */
};

/* Make the matmul kernel (arch, in -> out, bfp16) for m x k x n tiles into *k_out, with its C accumulate-into
 * function (C += A B) and its zero kernel (xdna_mm_zero). VNPU_STATUS_BAD_ARG, logged with the sizes and the rule,
 * for a (arch, in, out) the seed has no mmul for, or tiles that break the divisibility rules above:
 * "matmul kernel bf16 4x8x4 (AIE2): m = 12 is not a multiple of 2 x r = 8". */
enum vnpu_status xdna_mm_kernel_init(struct xdna_mm_kernel *k_out, enum xdna_arch arch, enum xdna_dtype in,
                                     enum xdna_dtype out, bool bfp16, uint32_t m, uint32_t k, uint32_t n);

#define XDNA_MM_BLOCK          32   /* weights in a GGML Q4_0 or Q8_0 block */
#define XDNA_MM_DEQUANT_MAX_KN 8192 /* the k x n tile a dequantizing kernel keeps on its stack, at most (16 KB) */

/* The matmul kernel of xdna_mm_kernel_init (bf16 -> f32; bfp16 as there) whose B arrives as a tiled Q4_0 or Q8_0
 * (b_type VNPU_TYPE_Q4_0, VNPU_TYPE_Q8_0: GGML's blocks of 32 weights along k, quants.h, repacked by the host), 4.5 or
 * 8.5 bits a weight instead of 16: the k x n quants in the order of the blocked bf16 B (s x t blocks, above; Q4_0 two
 * a byte, element 2i in the low nibble, 2i + 1 in the high; Q8_0 a byte each), then the fp16 scales of the k / 32
 * blocks, block row by block row, n columns each. The kernel dequantizes them as GGML does (d x (q - 8), d x q),
 * rounds to bf16 (nearest even) into a k x n tile on its stack (stack_bytes counts it against L1, rule 3) and
 * multiplies as the bf16 kernel does: the same bits as dequantizing on the host. It adds DEQUANT_CYCLES per block to
 * the mmuls' (xdna-mmul.c). k % 32 == 0 and k n <= XDNA_MM_DEQUANT_MAX_KN besides the divisibility rules;
 * VNPU_STATUS_BAD_ARG (logged) otherwise or for another type. */
enum vnpu_status xdna_mm_kernel_init_blocks(struct xdna_mm_kernel *k_out, enum xdna_arch arch, bool bfp16,
                                            enum vnpu_type b_type, uint32_t m, uint32_t k, uint32_t n);

/* Bytes of kernel k's B tile: k x n of its input type, or its blocks. */
size_t xdna_mm_b_bytes(const struct xdna_mm_kernel *k);

/* The kernel that zeroes its one buffer (C before a k loop); scalar (mac_dims 1 x 1 x 1). */
extern const struct xdna_kernel xdna_mm_zero;

/* One mmul: acc (r x t, the accumulator kind's element type: int32_t, int64_t or float) += a (r x s) b (s x t),
 * both row-major blocks of dtype in. The emulation's arithmetic above. */
void xdna_mmul(enum xdna_arch arch, enum xdna_dtype in, bool bfp16, enum xdna_acc acc, const void *a, const void *b,
               void *acc_out);

/* Round x[0..n) (n % 8 == 0) to BFP16 as the emulation defines it (above), in place, as bf16 values that the
 * block format represents exactly: what the BFP16 build's operands become. */
void xdna_bfp16_round(vnpu_bf16_t *x, uint32_t n);

#endif /* VNPU_XDNA_MMUL_H */
