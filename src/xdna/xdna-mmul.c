/*
 * The mmul micro-kernels and the matmul kernels on them (xdna-mmul.h): the shape table, the exact arithmetic of
 * one mmul per (input, accumulator) and, for the kernels, the 2 x 2 expansion over blocked tiles.
 *
 * The bf16 -> accfloat kernel is the hot loop of a model's matmuls on the emulated NPU: it widens bf16 to f32 by a
 * shift (exact), keeps the 2 x 2 blocks' accumulators in a local array and lets the compiler vectorize over the
 * output columns (each output's additions stay one after another in k order, as xdna-mmul.h defines). On x86-64
 * it is also built for AVX2 (target_clones), chosen at load time when the host has it.
 */
#include "xdna-mmul.h"

#include "log.h"
#include "type-traits.h"

#include <assert.h>
#include <math.h>
#include <string.h>

static_assert(XDNA_DTYPE_I64 == 5, "new xdna_dtype: review dtype_names, mmul_shapes and mm_variants");
static_assert(XDNA_ARCH_AIE2P == 1, "new xdna_arch: review arch_names, mmul_shapes and mm_variants");

static const char *const dtype_names[] = {
    [XDNA_DTYPE_I8] = "i8",   [XDNA_DTYPE_I16] = "i16", [XDNA_DTYPE_BF16] = "bf16",
    [XDNA_DTYPE_F32] = "f32", [XDNA_DTYPE_I32] = "i32", [XDNA_DTYPE_I64] = "i64",
};
static const char *const arch_names[] = {[XDNA_ARCH_AIE2] = "AIE2", [XDNA_ARCH_AIE2P] = "AIE2P"};

static const char *dtype_name(enum xdna_dtype d) {
    return (unsigned) d < sizeof(dtype_names) / sizeof(dtype_names[0]) ? dtype_names[d] : "?";
}

/* One mmul shape per (arch, input type, BFP16 build): seed 003, "MMUL shapes" (and its BFP16 paragraph). */
static const struct mmul_shape {
    enum xdna_arch arch;
    enum xdna_dtype in;
    bool bfp16;
    uint32_t r, s, t;
} mmul_shapes[] = {
    {XDNA_ARCH_AIE2, XDNA_DTYPE_I8, false, 4, 8, 8},   {XDNA_ARCH_AIE2, XDNA_DTYPE_I16, false, 4, 4, 4},
    {XDNA_ARCH_AIE2, XDNA_DTYPE_BF16, false, 4, 8, 4}, {XDNA_ARCH_AIE2P, XDNA_DTYPE_I8, false, 8, 8, 8},
    {XDNA_ARCH_AIE2P, XDNA_DTYPE_I16, false, 4, 4, 8}, {XDNA_ARCH_AIE2P, XDNA_DTYPE_BF16, false, 4, 8, 8},
    {XDNA_ARCH_AIE2P, XDNA_DTYPE_BF16, true, 8, 8, 8}, /* -DAIE_API_EMULATE_BFLOAT16_MMUL_WITH_BFP16 */
};

bool xdna_mmul_dims(enum xdna_arch arch, enum xdna_dtype in, bool bfp16, uint32_t dims[3]) {
    for (size_t i = 0; i < sizeof(mmul_shapes) / sizeof(mmul_shapes[0]); i++) {
        const struct mmul_shape *sh = &mmul_shapes[i];
        if (sh->arch == arch && sh->in == in && sh->bfp16 == bfp16) {
            dims[0] = sh->r;
            dims[1] = sh->s;
            dims[2] = sh->t;
            return true;
        }
    }
    return false;
}

/* ---- BFP16 (xdna-mmul.h's definition) ---- */

#define BFP16_BLOCK 8

/* A block of 8 values along k: value i is m[i] x 2^scale (scale = e_max - 6), or NaN for all when nan. */
struct bfp16_block {
    int8_t m[BFP16_BLOCK];
    int32_t scale;
    bool nan;
};

/* 2^e as a double, e in the normal range (the BFP16 scales stay within -264..242). */
static inline double pow2d(int32_t e) {
    VNPU_ASSERT(e >= -1022 && e <= 1023);
    const uint64_t u = (uint64_t) (e + 1023) << 52;
    double d;
    memcpy(&d, &u, sizeof(d));
    return d;
}

/* round-half-even(v / 2^sh), sh >= 1. */
static inline uint32_t shift_rne(uint32_t v, uint32_t sh) {
    if (sh > 16) {
        return 0; /* v < 2^8 < half */
    }
    const uint32_t q = v >> sh, rem = v & ((1u << sh) - 1), half = 1u << (sh - 1);
    return q + (rem > half || (rem == half && (q & 1)));
}

/* The BFP16 block of x[0], x[stride], ..., x[7 stride]. */
static void bfp16_block_of(const vnpu_bf16_t *x, size_t stride, struct bfp16_block *blk) {
    int32_t e_max = -126;
    bool nan = false;
    for (uint32_t i = 0; i < BFP16_BLOCK; i++) {
        const uint32_t u = x[i * stride], field = (u >> 7) & 0xFF;
        if (field == 0xFF) {
            nan = true; /* inf or NaN */
        } else if (u & 0x7FFF) {
            const int32_t e = (int32_t) (field ? field : 1) - 127; /* a subnormal's: -126 */
            e_max = e > e_max ? e : e_max;
        }
    }
    blk->nan = nan;
    blk->scale = e_max - 6;
    for (uint32_t i = 0; i < BFP16_BLOCK; i++) {
        const uint32_t u = x[i * stride], field = (u >> 7) & 0xFF;
        if (nan) {
            blk->m[i] = 0;
            continue;
        }
        const uint32_t sig = field ? (0x80 | (u & 0x7F)) : (u & 0x7F); /* x = sig 2^(e - 7) */
        const int32_t e = (int32_t) (field ? field : 1) - 127;
        uint32_t q = shift_rne(sig, (uint32_t) (e_max - e + 1)); /* x / 2^(e_max - 6) = sig / 2^(e_max - e + 1) */
        q = q > 127 ? 127 : q;
        blk->m[i] = (int8_t) ((u & 0x8000) ? -(int32_t) q : (int32_t) q);
    }
}

/* One block pair's contribution: the exact integer dot product scaled, rounded once to f32. */
static inline float bfp16_dot(const struct bfp16_block *a, const struct bfp16_block *b) {
    if (a->nan || b->nan) {
        return vnpu_f32_from_bits(0x7FC00000u);
    }
    int32_t dot = 0;
    for (uint32_t i = 0; i < BFP16_BLOCK; i++) {
        dot += (int32_t) a->m[i] * b->m[i]; /* |dot| <= 8 x 127^2 < 2^17: exact, and exact in a double below */
    }
    return (float) ((double) dot * pow2d(a->scale + b->scale));
}

void xdna_bfp16_round(vnpu_bf16_t *x, uint32_t n) {
    VNPU_ASSERT(n % BFP16_BLOCK == 0);
    for (uint32_t b = 0; b < n; b += BFP16_BLOCK) {
        struct bfp16_block blk;
        bfp16_block_of(x + b, 1, &blk);
        for (uint32_t i = 0; i < BFP16_BLOCK; i++) {
            /* m 2^scale has <= 7 significant bits and scale >= -132: a bf16 exactly, so the conversion is exact */
            x[b + i] = blk.nan ? 0x7FC0 : vnpu_f32_to_bf16((float) ((double) blk.m[i] * pow2d(blk.scale)));
        }
    }
}

/* ---- one mmul per (input, accumulator): acc (r x t) += a (r x s) b (s x t), row-major blocks ---- */

/* int8 -> acc32: products exact, sums modulo 2^32 (uint32_t arithmetic: no signed overflow). */
static void mmul_i8_acc32(uint32_t r, uint32_t s, uint32_t t, const int8_t *a, const int8_t *b, int32_t *acc) {
    uint32_t *u = (uint32_t *) acc; /* int32_t's unsigned counterpart may alias it */
    for (uint32_t i = 0; i < r; i++) {
        for (uint32_t kk = 0; kk < s; kk++) {
            const int32_t av = a[i * s + kk];
            for (uint32_t j = 0; j < t; j++) {
                u[i * t + j] += (uint32_t) (av * b[kk * t + j]);
            }
        }
    }
}

static void mmul_i16_acc32(uint32_t r, uint32_t s, uint32_t t, const int16_t *a, const int16_t *b, int32_t *acc) {
    uint32_t *u = (uint32_t *) acc;
    for (uint32_t i = 0; i < r; i++) {
        for (uint32_t kk = 0; kk < s; kk++) {
            const int32_t av = a[i * s + kk];
            for (uint32_t j = 0; j < t; j++) {
                u[i * t + j] += (uint32_t) (av * b[kk * t + j]); /* |p| <= 2^30: an int32_t */
            }
        }
    }
}

static void mmul_i16_acc64(uint32_t r, uint32_t s, uint32_t t, const int16_t *a, const int16_t *b, int64_t *acc) {
    uint64_t *u = (uint64_t *) acc;
    for (uint32_t i = 0; i < r; i++) {
        for (uint32_t kk = 0; kk < s; kk++) {
            const int32_t av = a[i * s + kk];
            for (uint32_t j = 0; j < t; j++) {
                u[i * t + j] += (uint64_t) (int64_t) (av * b[kk * t + j]);
            }
        }
    }
}

/* bf16 -> accfloat: each output adds its s exact products in k order, each addition rounded in f32. */
static void mmul_bf16_accfloat(uint32_t r, uint32_t s, uint32_t t, const vnpu_bf16_t *a, const vnpu_bf16_t *b,
                               float *acc) {
    for (uint32_t i = 0; i < r; i++) {
        for (uint32_t kk = 0; kk < s; kk++) {
            const float av = vnpu_bf16_to_f32(a[i * s + kk]);
            for (uint32_t j = 0; j < t; j++) {
                acc[i * t + j] += av * vnpu_bf16_to_f32(b[kk * t + j]);
            }
        }
    }
}

/* BFP16 emulation: A's rows and B's columns in blocks of 8 along k, contributions in k-block order. */
static void mmul_bfp16_accfloat(uint32_t r, uint32_t s, uint32_t t, const vnpu_bf16_t *a, const vnpu_bf16_t *b,
                                float *acc) {
    VNPU_ASSERT(s % BFP16_BLOCK == 0);
    for (uint32_t kb = 0; kb < s; kb += BFP16_BLOCK) {
        struct bfp16_block ab[8], bb[8];
        VNPU_ASSERT(r <= 8 && t <= 8);
        for (uint32_t i = 0; i < r; i++) {
            bfp16_block_of(a + i * s + kb, 1, &ab[i]);
        }
        for (uint32_t j = 0; j < t; j++) {
            bfp16_block_of(b + (size_t) kb * t + j, t, &bb[j]);
        }
        for (uint32_t i = 0; i < r; i++) {
            for (uint32_t j = 0; j < t; j++) {
                acc[i * t + j] += bfp16_dot(&ab[i], &bb[j]);
            }
        }
    }
}

/* The mmul of (in, acc, bfp16) on shape r x s x t; the pair must be one xdna_mm_kernel_init accepts or
 * xdna_mmul's. */
static void mmul_run(enum xdna_dtype in, bool bfp16, enum xdna_acc acc, uint32_t r, uint32_t s, uint32_t t,
                     const void *a, const void *b, void *acc_out) {
    if (in == XDNA_DTYPE_I8 && acc == XDNA_ACC32 && !bfp16) {
        mmul_i8_acc32(r, s, t, a, b, acc_out);
    } else if (in == XDNA_DTYPE_I16 && acc == XDNA_ACC32 && !bfp16) {
        mmul_i16_acc32(r, s, t, a, b, acc_out);
    } else if (in == XDNA_DTYPE_I16 && acc == XDNA_ACC64 && !bfp16) {
        mmul_i16_acc64(r, s, t, a, b, acc_out);
    } else if (in == XDNA_DTYPE_BF16 && acc == XDNA_ACCFLOAT) {
        (bfp16 ? mmul_bfp16_accfloat : mmul_bf16_accfloat)(r, s, t, a, b, acc_out);
    } else {
        VNPU_ASSERT(!"no mmul for this (input, accumulator)");
    }
}

void xdna_mmul(enum xdna_arch arch, enum xdna_dtype in, bool bfp16, enum xdna_acc acc, const void *a, const void *b,
               void *acc_out) {
    uint32_t dims[3];
    VNPU_ASSERT(xdna_mmul_dims(arch, in, bfp16, dims));
    mmul_run(in, bfp16, acc, dims[0], dims[1], dims[2], a, b, acc_out);
}

/* ---- the matmul kernels: C += A B over blocked tiles, 2 x 2 expansion ---- */

/* What a call of a matmul kernel works on, checked once at its entry. */
struct mm_call {
    const struct xdna_mm_kernel *kp;
    const void *a, *b;
    void *c;
    uint32_t r, s, t;
    uint32_t mb, kb, nb; /* blocks of A's rows, of k, of B's columns */
    uint32_t rows_valid; /* rows that hold data (xdna_mm_args) */
    uint32_t rb_valid;   /* row blocks that hold a valid row: ceil(rows_valid / r) */
};

static size_t dtype_bytes(enum xdna_dtype d) {
    switch (d) {
        case XDNA_DTYPE_I8: return 1;
        case XDNA_DTYPE_I16: return 2;
        case XDNA_DTYPE_BF16: return 2;
        case XDNA_DTYPE_F32: return 4;
        case XDNA_DTYPE_I32: return 4;
        case XDNA_DTYPE_I64: return 8;
    }
    return 0;
}

/* A call's cycles on the hardware, as modelled (xdna_call.cycles, xdna-array.h's timeline): the kernel issues
 * (m/r) (k/s) (n/t) mmuls, at best one a cycle (r s t MACs: the partition tables' peak rates, tests/xdna check they
 * agree), at its build's occupancy:
 *  - bf16 and integer kernels, ASSUMPTION 0.8: mlir-aie#2735 measured the whole_array example's kernels alone
 *    (m = n = k = 64, the same 2 x 2 mmul expansion) at up to ~80 % of r s t a cycle between their trace events on
 *    XDNA1, i16 and bf16 alike (anchors 3.2); AIE2P's taken as AIE2's (no AIE2P kernel-only figure is published);
 *  - the BFP16-emulation kernel (AIE2P), ASSUMPTION 0.5: at least arXiv 2511.16041's whole-array BFP16 x BF16 GEMM,
 *    24.6 TFLOPS = 43 % of 32 tiles x 512 MACs x 2 x 1.76 GHz with its transfers (anchors 3.2), below 0.8 because the
 *    build converts both bf16 operands to BFP16 blocks on the vector unit before each mmul. */
#define MM_OCCUPANCY       0.8
#define MM_BFP16_OCCUPANCY 0.5
/* A kernel that dequantizes its B first (xdna_mm_kernel_init_blocks) adds cycles per block of 32 weights, ASSUMPTION 4:
 * the block's 64 bytes of bf16 are two 256-bit stores (one a cycle: AM020's "load/store per cycle 512/256 bits"), the
 * scale's 32 multiplies two 16-lane bf16 multiplies on AIE2 (seed 003: AIE_BF16_LANES), the nibbles' unpack and the
 * int8 -> bf16 conversion in the other slots: 2 cycles at best, at the BFP16 conversion's 0.5 occupancy. AIE2P's
 * wider multiplies are taken as AIE2's. */
#define DEQUANT_CYCLES     4

static uint64_t mm_cycles(const struct xdna_mm_kernel *kp) {
    const uint64_t issues =
        (uint64_t) (kp->m / kp->base.mac_dims[0]) * (kp->k / kp->base.mac_dims[1]) * (kp->n / kp->base.mac_dims[2]);
    return (uint64_t) ceil((double) issues / (kp->bfp16 ? MM_BFP16_OCCUPANCY : MM_OCCUPANCY));
}

static struct mm_call mm_call_of(const struct xdna_call *c) {
    const struct xdna_mm_args *args = c->args;
    VNPU_ASSERT(args && args->kernel && c->n_bufs == 3);
    const struct xdna_mm_kernel *kp = args->kernel;
    const size_t in_b = dtype_bytes(kp->in), out_b = dtype_bytes(kp->out);
    VNPU_ASSERT(args->rows_valid <= kp->m);
    VNPU_ASSERT(c->buf_bytes[0] >= (size_t) kp->m * kp->k * in_b && c->buf_bytes[1] >= xdna_mm_b_bytes(kp));
    VNPU_ASSERT(c->buf_bytes[2] >= (size_t) kp->m * kp->n * out_b);
    const uint32_t r = kp->base.mac_dims[0], s = kp->base.mac_dims[1], t = kp->base.mac_dims[2];
    if (c->macs) {
        *c->macs += (uint64_t) kp->m * kp->k * kp->n; /* the whole tile's, padding rows too */
    }
    if (c->cycles) {
        *c->cycles += mm_cycles(kp) + (kp->dequant ? (uint64_t) kp->k / XDNA_MM_BLOCK * kp->n * DEQUANT_CYCLES : 0);
    }
    return (struct mm_call){.kp = kp,
                            .a = c->bufs[0],
                            .b = c->bufs[1],
                            .c = c->bufs[2],
                            .r = r,
                            .s = s,
                            .t = t,
                            .mb = kp->m / r,
                            .kb = kp->k / s,
                            .nb = kp->n / t,
                            .rows_valid = args->rows_valid,
                            .rb_valid = (args->rows_valid + r - 1) / r};
}

/* Any variant, one mmul call per block pair (the ints' and BFP16's kernel). */
static void mm_blocks(const struct mm_call *mc) {
    const struct xdna_mm_kernel *kp = mc->kp;
    const size_t in_b = dtype_bytes(kp->in), out_b = dtype_bytes(kp->out);
    const size_t a_blk = (size_t) mc->r * mc->s * in_b, b_blk = (size_t) mc->s * mc->t * in_b;
    const size_t c_blk = (size_t) mc->r * mc->t * out_b;
    for (uint32_t ib = 0; ib < mc->rb_valid; ib += 2) {
        for (uint32_t jb = 0; jb < mc->nb; jb += 2) {
            for (uint32_t kb = 0; kb < mc->kb; kb++) {
                for (uint32_t i = ib; i < ib + 2 && i < mc->rb_valid; i++) { /* a padding block: skipped */
                    for (uint32_t j = jb; j < jb + 2; j++) {
                        const char *a = (const char *) mc->a + ((size_t) i * mc->kb + kb) * a_blk;
                        const char *b = (const char *) mc->b + ((size_t) kb * mc->nb + j) * b_blk;
                        char *acc = (char *) mc->c + ((size_t) j * mc->mb + i) * c_blk;
                        mmul_run(kp->in, kp->bfp16, kp->acc, mc->r, mc->s, mc->t, a, b, acc);
                    }
                }
            }
        }
    }
}

#define MM_R_MAX 4 /* the bf16 shapes' (4x8x4, 4x8x8) */
#define MM_S_MAX 8
#define MM_T_MAX 8

/* acc[i][j] += a[i][kk] b[kk][j], kk in order, for rows x 2T outputs. */
static inline __attribute__((always_inline)) void mm_bf16_f32_step(float acc[][2 * MM_T_MAX], const float a[][MM_S_MAX],
                                                                   const float b[][2 * MM_T_MAX], const uint32_t rows,
                                                                   const uint32_t S, const uint32_t T) {
#pragma GCC unroll 8
    for (uint32_t i = 0; i < rows; i++) {
#pragma GCC unroll 8
        for (uint32_t kk = 0; kk < S; kk++) {
            const float av = a[i][kk];
            for (uint32_t j = 0; j < 2 * T; j++) {
                acc[i][j] += av * b[kk][j]; /* exact product, one rounding: no FMA (-ffp-contract=off) */
            }
        }
    }
}

/* bf16 -> f32 for shape R x S x T (constants once inlined): per row-block pair and column-block pair, the four
 * blocks' accumulators in acc (2R x 2T), the k blocks' A and B widened to f32 into a and b, then acc[i][j] +=
 * a[i][kk] b[kk][j] for kk in order: the compiler vectorizes over j. */
static inline __attribute__((always_inline)) void mm_bf16_f32_rst(const struct mm_call *mc, const uint32_t R,
                                                                  const uint32_t S, const uint32_t T) {
    const vnpu_bf16_t *A = mc->a, *B = mc->b;
    float *C = mc->c;
    const uint32_t kb_n = mc->kb, nb_n = mc->nb, mb_n = mc->mb;
    for (uint32_t ib = 0; ib < mc->rb_valid; ib += 2) {
        const uint32_t left = mc->rows_valid - ib * R, rows = left < 2 * R ? left : 2 * R; /* padding rows: skipped */
        for (uint32_t jb = 0; jb < nb_n; jb += 2) {
            float acc[2 * MM_R_MAX][2 * MM_T_MAX], a[2 * MM_R_MAX][MM_S_MAX], b[MM_S_MAX][2 * MM_T_MAX];
            for (uint32_t ri = 0; ri < rows; ri++) {
                for (uint32_t dj = 0; dj < 2; dj++) {
                    const float *cb = C + ((size_t) (jb + dj) * mb_n + ib + ri / R) * R * T + (ri % R) * T;
                    for (uint32_t j = 0; j < T; j++) {
                        acc[ri][dj * T + j] = cb[j];
                    }
                }
            }
            for (uint32_t kb = 0; kb < kb_n; kb++) {
                for (uint32_t ri = 0; ri < rows; ri++) {
                    const vnpu_bf16_t *ab = A + ((size_t) (ib + ri / R) * kb_n + kb) * R * S + (ri % R) * S;
                    for (uint32_t kk = 0; kk < S; kk++) {
                        a[ri][kk] = vnpu_bf16_to_f32(ab[kk]);
                    }
                }
                for (uint32_t dj = 0; dj < 2; dj++) {
                    const vnpu_bf16_t *bb = B + ((size_t) kb * nb_n + jb + dj) * S * T;
                    for (uint32_t kk = 0; kk < S; kk++) {
                        for (uint32_t j = 0; j < T; j++) {
                            b[kk][dj * T + j] = vnpu_bf16_to_f32(bb[kk * T + j]);
                        }
                    }
                }
                if (rows == 2 * R) {
                    mm_bf16_f32_step(acc, a, b, 2 * R, S, T); /* a constant row count: unrolled */
                } else if (rows == 1) {
                    mm_bf16_f32_step(acc, a, b, 1, S, T); /* a decode step's one token */
                } else {
                    mm_bf16_f32_step(acc, a, b, rows, S, T);
                }
            }
            for (uint32_t ri = 0; ri < rows; ri++) {
                for (uint32_t dj = 0; dj < 2; dj++) {
                    float *cb = C + ((size_t) (jb + dj) * mb_n + ib + ri / R) * R * T + (ri % R) * T;
                    for (uint32_t j = 0; j < T; j++) {
                        cb[j] = acc[ri][dj * T + j];
                    }
                }
            }
        }
    }
}

/* The hot variants also built for AVX2, picked at load time (ifunc) when the host has it. */
#if defined(__x86_64__) && defined(__GNUC__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define MM_HOT_CLONES __attribute__((target_clones("avx2", "default")))
#endif
#endif
#ifndef MM_HOT_CLONES
#define MM_HOT_CLONES
#endif

MM_HOT_CLONES static void mm_bf16_f32_4x8x4(const struct mm_call *mc) {
    mm_bf16_f32_rst(mc, 4, 8, 4);
}

MM_HOT_CLONES static void mm_bf16_f32_4x8x8(const struct mm_call *mc) {
    mm_bf16_f32_rst(mc, 4, 8, 8);
}

static void mm_bf16_f32(const struct mm_call *mc) {
    if (mc->r == 4 && mc->s == 8 && mc->t == 4) {
        mm_bf16_f32_4x8x4(mc);
    } else if (mc->r == 4 && mc->s == 8 && mc->t == 8) {
        mm_bf16_f32_4x8x8(mc);
    } else {
        mm_blocks(mc); /* a shape with no fast path: the same arithmetic, block by block */
    }
}

static void mm_fn_bf16_f32(const struct xdna_call *c) {
    const struct mm_call mc = mm_call_of(c);
    mm_bf16_f32(&mc);
}

#define MM_BFP16_KC 16 /* k blocks converted at a time: 2 x 8 x 16 blocks of 16 bytes on the stack */

/* BFP16 (8x8x8): each A row's and B column's blocks are converted once per chunk of k blocks (not once per mmul:
 * the conversion costs more than the block dot), then each output adds its contributions in k-block order. The
 * outputs are independent, so visiting them row block by row block rather than in 2 x 2 steps changes no bit. */
static void mm_bfp16(const struct mm_call *mcp) {
    const struct mm_call mc = *mcp;
    const uint32_t R = mc.r, S = mc.s, T = mc.t;
    VNPU_ASSERT(R <= 8 && S == BFP16_BLOCK && T <= 8);
    const vnpu_bf16_t *A = mc.a, *B = mc.b;
    float *C = mc.c;
    for (uint32_t kc0 = 0; kc0 < mc.kb; kc0 += MM_BFP16_KC) {
        const uint32_t kc = mc.kb - kc0 < MM_BFP16_KC ? mc.kb - kc0 : MM_BFP16_KC;
        for (uint32_t jb = 0; jb < mc.nb; jb++) {
            struct bfp16_block bb[8][MM_BFP16_KC], ab[8][MM_BFP16_KC];
            for (uint32_t q = 0; q < kc; q++) {
                const vnpu_bf16_t *blk = B + ((size_t) (kc0 + q) * mc.nb + jb) * S * T;
                for (uint32_t j = 0; j < T; j++) {
                    bfp16_block_of(blk + j, T, &bb[j][q]);
                }
            }
            for (uint32_t ib = 0; ib < mc.rb_valid; ib++) {
                const uint32_t left = mc.rows_valid - ib * R, rows = left < R ? left : R; /* padding rows: skipped */
                for (uint32_t q = 0; q < kc; q++) {
                    const vnpu_bf16_t *blk = A + ((size_t) ib * mc.kb + kc0 + q) * R * S;
                    for (uint32_t i = 0; i < rows; i++) {
                        bfp16_block_of(blk + i * S, 1, &ab[i][q]);
                    }
                }
                float *cb = C + ((size_t) jb * mc.mb + ib) * R * T;
                for (uint32_t i = 0; i < rows; i++) {
                    for (uint32_t j = 0; j < T; j++) {
                        float acc = cb[i * T + j];
                        for (uint32_t q = 0; q < kc; q++) {
                            acc += bfp16_dot(&ab[i][q], &bb[j][q]);
                        }
                        cb[i * T + j] = acc;
                    }
                }
            }
        }
    }
}

static void mm_fn_bfp16(const struct xdna_call *c) {
    const struct mm_call mc = mm_call_of(c);
    mm_bfp16(&mc);
}

/* Eight lanes, in GCC's vector extensions (clang has them too): SSE on the portable build, AVX in the AVX2 clones. */
typedef float f32x8 __attribute__((vector_size(32)));
typedef int32_t i32x8 __attribute__((vector_size(32)));
typedef uint32_t u32x8 __attribute__((vector_size(32)));
typedef uint16_t u16x8 __attribute__((vector_size(16)));

/* out[0..8) = bf16 of q x d, rounded as vnpu_f32_to_bf16 rounds (nearest even; a NaN kept, made quiet). The vectors
 * by pointer: a 32-byte vector passed by value changes the ABI where AVX is off (clang's -Wpsabi). */
static inline __attribute__((always_inline)) void bf16_of_8(const i32x8 *q, const f32x8 *d, vnpu_bf16_t *out) {
    const f32x8 x = __builtin_convertvector(*q, f32x8) * *d;
    u32x8 u;
    memcpy(&u, &x, sizeof(u));
    const u32x8 rne = (u + (0x7fffu + ((u >> 16) & 1u))) >> 16, quiet = (u >> 16) | 64u;
    const u32x8 nan = (u32x8) ((i32x8) (u & 0x7fffffffu) > 0x7f800000); /* all ones where NaN */
    const u16x8 h = __builtin_convertvector((rne & ~nan) | (quiet & nan), u16x8);
    memcpy(out, &h, sizeof(h));
}

/* Dequantize a tiled Q4_0 (q4) or Q8_0 B (xdna_mm_kernel_init_blocks) of kb_n block rows of s = 8 rows by nb column
 * blocks of T into the blocked bf16 tile: quant i is B's element i there, its scale d[(row / 32) n + column] (d: the
 * fp16 scales widened); the value GGML's dequantization ((q - 8) d, q d) rounded to nearest even. Eight consecutive
 * elements at a time: 8 / T rows of a block, whose scales are its T columns'. T and q4 constant once inlined. */
static inline __attribute__((always_inline)) void dequant_tile(const uint8_t *q, const float *d, vnpu_bf16_t *tile,
                                                               uint32_t kb_n, uint32_t nb, const uint32_t T,
                                                               const bool q4) {
    const uint32_t n = nb * T;
    for (uint32_t kb = 0; kb < kb_n; kb++) {
        const float *dk = d + (size_t) (kb * 8 / XDNA_MM_BLOCK) * n; /* the scales of these rows' block, by column */
        for (uint32_t jb = 0; jb < nb; jb++) {
            float da[8];
            for (uint32_t t = 0; t < 8; t++) {
                da[t] = dk[jb * T + t % T];
            }
            f32x8 dv;
            memcpy(&dv, da, sizeof(dv));
            const size_t e0 = (size_t) (kb * nb + jb) * 8 * T; /* the block's first element */
            for (uint32_t c = 0; c < T; c++) {                 /* 8 rows of T: T chunks of 8 */
                const size_t e = e0 + (size_t) c * 8;
                i32x8 qv;
                if (q4) { /* the chunk's 4 bytes, lane l the nibble at bit 4 l */
                    uint32_t w;
                    memcpy(&w, q + e / 2, sizeof(w));
                    const u32x8 shift = {0, 4, 8, 12, 16, 20, 24, 28};
                    qv = (i32x8) (((u32x8){w, w, w, w, w, w, w, w} >> shift) & 15u) - 8;
                } else {
                    int8_t b[8] __attribute__((aligned(8)));
                    memcpy(b, q + e, sizeof(b));
                    typedef int8_t i8x8 __attribute__((vector_size(8)));
                    i8x8 bv;
                    memcpy(&bv, b, sizeof(bv));
                    qv = __builtin_convertvector(bv, i32x8);
                }
                bf16_of_8(&qv, &dv, tile + e);
            }
        }
    }
}

MM_HOT_CLONES static void dequant_q4_0_t4(const uint8_t *q, const float *d, vnpu_bf16_t *tile, uint32_t kb,
                                          uint32_t nb) {
    dequant_tile(q, d, tile, kb, nb, 4, true);
}

MM_HOT_CLONES static void dequant_q4_0_t8(const uint8_t *q, const float *d, vnpu_bf16_t *tile, uint32_t kb,
                                          uint32_t nb) {
    dequant_tile(q, d, tile, kb, nb, 8, true);
}

MM_HOT_CLONES static void dequant_q8_0_t4(const uint8_t *q, const float *d, vnpu_bf16_t *tile, uint32_t kb,
                                          uint32_t nb) {
    dequant_tile(q, d, tile, kb, nb, 4, false);
}

MM_HOT_CLONES static void dequant_q8_0_t8(const uint8_t *q, const float *d, vnpu_bf16_t *tile, uint32_t kb,
                                          uint32_t nb) {
    dequant_tile(q, d, tile, kb, nb, 8, false);
}

/* B as a tiled Q4_0 / Q8_0: dequantized into the blocked bf16 tile on the kernel's stack, which the bf16 (or BFP16)
 * kernel then multiplies. */
static void mm_fn_dequant(const struct xdna_call *c) {
    struct mm_call mc = mm_call_of(c);
    const struct xdna_mm_kernel *kp = mc.kp;
    static_assert(XDNA_MM_DEQUANT_MAX_KN * sizeof(vnpu_bf16_t) <= 16384, "the scratch tile stays a small stack frame");
    VNPU_ASSERT(mc.s == 8 && (mc.t == 4 || mc.t == 8)); /* every bf16 and BFP16 mmul's (xdna_mm_kernel_init_blocks) */
    vnpu_bf16_t tile[XDNA_MM_DEQUANT_MAX_KN];
    float d[XDNA_MM_DEQUANT_MAX_KN / XDNA_MM_BLOCK];
    const uint32_t kn = kp->k * kp->n;
    const bool q4 = kp->b_type == VNPU_TYPE_Q4_0;
    const uint8_t *q = mc.b, *scales = q + (q4 ? kn / 2 : kn);
    for (uint32_t i = 0; i < kn / XDNA_MM_BLOCK; i++) {
        vnpu_fp16_t h;
        memcpy(&h, scales + 2 * i, 2);
        d[i] = vnpu_fp16_to_f32(h);
    }
    if (q4) {
        (mc.t == 4 ? dequant_q4_0_t4 : dequant_q4_0_t8)(q, d, tile, mc.kb, mc.nb);
    } else {
        (mc.t == 4 ? dequant_q8_0_t4 : dequant_q8_0_t8)(q, d, tile, mc.kb, mc.nb);
    }
    mc.b = tile;
    if (kp->bfp16) {
        mm_bfp16(&mc);
    } else {
        mm_bf16_f32(&mc);
    }
}

static void mm_fn_blocks(const struct xdna_call *c) {
    const struct mm_call mc = mm_call_of(c);
    mm_blocks(&mc);
}

/* The kernels: one row per (arch, in, out, BFP16 build), its accumulator and its name (which states its mmul's
 * shape, checked against mmul_shapes by the tests). */
static const struct mm_variant {
    enum xdna_arch arch;
    enum xdna_dtype in, out;
    bool bfp16;
    enum xdna_acc acc;
    const char *name;
    void (*fn)(const struct xdna_call *call);
} mm_variants[] = {
    {XDNA_ARCH_AIE2, XDNA_DTYPE_I8, XDNA_DTYPE_I32, false, XDNA_ACC32, "mm_i8_i32_4x8x8", mm_fn_blocks},
    {XDNA_ARCH_AIE2, XDNA_DTYPE_I16, XDNA_DTYPE_I32, false, XDNA_ACC32, "mm_i16_i32_4x4x4", mm_fn_blocks},
    {XDNA_ARCH_AIE2, XDNA_DTYPE_I16, XDNA_DTYPE_I64, false, XDNA_ACC64, "mm_i16_i64_4x4x4", mm_fn_blocks},
    {XDNA_ARCH_AIE2, XDNA_DTYPE_BF16, XDNA_DTYPE_F32, false, XDNA_ACCFLOAT, "mm_bf16_f32_4x8x4", mm_fn_bf16_f32},
    {XDNA_ARCH_AIE2P, XDNA_DTYPE_I8, XDNA_DTYPE_I32, false, XDNA_ACC32, "mm_i8_i32_8x8x8", mm_fn_blocks},
    {XDNA_ARCH_AIE2P, XDNA_DTYPE_I16, XDNA_DTYPE_I32, false, XDNA_ACC32, "mm_i16_i32_4x4x8", mm_fn_blocks},
    {XDNA_ARCH_AIE2P, XDNA_DTYPE_I16, XDNA_DTYPE_I64, false, XDNA_ACC64, "mm_i16_i64_4x4x8", mm_fn_blocks},
    {XDNA_ARCH_AIE2P, XDNA_DTYPE_BF16, XDNA_DTYPE_F32, false, XDNA_ACCFLOAT, "mm_bf16_f32_4x8x8", mm_fn_bf16_f32},
    {XDNA_ARCH_AIE2P, XDNA_DTYPE_BF16, XDNA_DTYPE_F32, true, XDNA_ACCFLOAT, "mm_bfp16_f32_8x8x8", mm_fn_bfp16},
};

enum vnpu_status xdna_mm_kernel_init(struct xdna_mm_kernel *k_out, enum xdna_arch arch, enum xdna_dtype in,
                                     enum xdna_dtype out, bool bfp16, uint32_t m, uint32_t k, uint32_t n) {
    if ((unsigned) arch >= sizeof(arch_names) / sizeof(arch_names[0])) {
        vnpu_log_error("matmul kernel %s: unknown arch %d", dtype_name(in), (int) arch);
        return VNPU_STATUS_BAD_ARG;
    }
    const char *an = arch_names[arch];
    if (bfp16 && in != XDNA_DTYPE_BF16) {
        vnpu_log_error("matmul kernel %s (%s): the BFP16 emulation is of bf16 input only", dtype_name(in), an);
        return VNPU_STATUS_BAD_ARG;
    }
    if (bfp16 && arch != XDNA_ARCH_AIE2P) {
        vnpu_log_error("matmul kernel bf16 (%s): the BFP16 emulation (AIE_API_EMULATE_BFLOAT16_MMUL_WITH_BFP16) "
                       "exists on AIE2P only",
                       an);
        return VNPU_STATUS_BAD_ARG;
    }
    const struct mm_variant *v = NULL;
    for (size_t i = 0; i < sizeof(mm_variants) / sizeof(mm_variants[0]); i++) {
        const struct mm_variant *w = &mm_variants[i];
        if (w->arch == arch && w->in == in && w->out == out && w->bfp16 == bfp16) {
            v = w;
        }
    }
    if (!v) {
        vnpu_log_error("matmul kernel %s -> %s (%s): no mmul kernel for this pair (there are i8 -> i32, i16 -> i32, "
                       "i16 -> i64, bf16 -> f32)",
                       dtype_name(in), dtype_name(out), an);
        return VNPU_STATUS_BAD_ARG;
    }
    uint32_t d[3];
    VNPU_ASSERT(xdna_mmul_dims(arch, in, bfp16, d)); /* every variant's shape is a row of mmul_shapes */
    char what[64];
    snprintf(what, sizeof(what), "matmul kernel %s %ux%ux%u (%s%s)", dtype_name(in), d[0], d[1], d[2], an,
             bfp16 ? ", BFP16" : "");
    if (m == 0 || k == 0 || n == 0) {
        vnpu_log_error("%s: m = %u, k = %u, n = %u: every size must be > 0", what, m, k, n);
        return VNPU_STATUS_BAD_ARG;
    }
    if ((uint64_t) m * k > UINT64_MAX / n) {
        vnpu_log_error("%s: m x k x n = %u x %u x %u overflows 64 bits", what, m, k, n);
        return VNPU_STATUS_BAD_ARG;
    }
    if (m % (2 * d[0]) != 0) {
        vnpu_log_error("%s: m = %u is not a multiple of 2 x r = %u", what, m, 2 * d[0]);
        return VNPU_STATUS_BAD_ARG;
    }
    if (k % d[1] != 0) {
        vnpu_log_error("%s: k = %u is not a multiple of s = %u", what, k, d[1]);
        return VNPU_STATUS_BAD_ARG;
    }
    if (n % (2 * d[2]) != 0) {
        vnpu_log_error("%s: n = %u is not a multiple of 2 x t = %u", what, n, 2 * d[2]);
        return VNPU_STATUS_BAD_ARG;
    }
    *k_out = (struct xdna_mm_kernel){
        .base = {.name = v->name, .fn = v->fn, .stack_bytes = 0, .mac_dims = {d[0], d[1], d[2]}},
        .arch = arch,
        .in = in,
        .out = out,
        .acc = v->acc,
        .bfp16 = bfp16,
        .m = m,
        .k = k,
        .n = n,
    };
    return VNPU_STATUS_OK;
}

/* Bytes a kernel stores a cycle: one 256-bit store (AM020's AIE-ML summary, "Memory load/store per cycle: 512/256
 * bits"; AIE2P taken as AIE2, an ASSUMPTION). */
#define STORE_BYTES_PER_CYCLE 32

size_t xdna_mm_b_bytes(const struct xdna_mm_kernel *k) {
    const size_t kn = (size_t) k->k * k->n;
    if (k->dequant) {
        return (k->b_type == VNPU_TYPE_Q4_0 ? kn / 2 : kn) + kn / XDNA_MM_BLOCK * sizeof(vnpu_fp16_t);
    }
    return kn * dtype_bytes(k->in);
}

/* The kernels with B in blocks: (arch, BFP16 build, block type) -> name. */
static const struct {
    enum xdna_arch arch;
    bool bfp16;
    enum vnpu_type b_type;
    const char *name;
} dequant_names[] = {
    {XDNA_ARCH_AIE2, false, VNPU_TYPE_Q4_0, "mm_q4_0_bf16_f32_4x8x4"},
    {XDNA_ARCH_AIE2, false, VNPU_TYPE_Q8_0, "mm_q8_0_bf16_f32_4x8x4"},
    {XDNA_ARCH_AIE2P, false, VNPU_TYPE_Q4_0, "mm_q4_0_bf16_f32_4x8x8"},
    {XDNA_ARCH_AIE2P, false, VNPU_TYPE_Q8_0, "mm_q8_0_bf16_f32_4x8x8"},
    {XDNA_ARCH_AIE2P, true, VNPU_TYPE_Q4_0, "mm_q4_0_bfp16_f32_8x8x8"},
    {XDNA_ARCH_AIE2P, true, VNPU_TYPE_Q8_0, "mm_q8_0_bfp16_f32_8x8x8"},
};

enum vnpu_status xdna_mm_kernel_init_blocks(struct xdna_mm_kernel *k_out, enum xdna_arch arch, bool bfp16,
                                            enum vnpu_type b_type, uint32_t m, uint32_t k, uint32_t n) {
    const char *name = NULL;
    for (size_t i = 0; i < sizeof(dequant_names) / sizeof(dequant_names[0]); i++) {
        if (dequant_names[i].arch == arch && dequant_names[i].bfp16 == bfp16 && dequant_names[i].b_type == b_type) {
            name = dequant_names[i].name;
        }
    }
    if (!name) {
        vnpu_log_error("matmul kernel with B in %s blocks: none (q4_0 and q8_0 blocks, bf16 or BFP16 on AIE2P)",
                       vnpu_type_traits_get(b_type)->name);
        return VNPU_STATUS_BAD_ARG;
    }
    enum vnpu_status st = xdna_mm_kernel_init(k_out, arch, XDNA_DTYPE_BF16, XDNA_DTYPE_F32, bfp16, m, k, n);
    if (st != VNPU_STATUS_OK) {
        return st;
    }
    if (k % XDNA_MM_BLOCK != 0 || (size_t) k * n > XDNA_MM_DEQUANT_MAX_KN) {
        vnpu_log_error("%s: k = %u, n = %u: k must be a multiple of %d and k x n at most %d (its tile on the stack)",
                       name, k, n, XDNA_MM_BLOCK, XDNA_MM_DEQUANT_MAX_KN);
        return VNPU_STATUS_BAD_ARG;
    }
    k_out->base.name = name;
    k_out->base.fn = mm_fn_dequant;
    k_out->base.stack_bytes = XDNA_STACK_BYTES + (size_t) k * n * sizeof(vnpu_bf16_t);
    k_out->dequant = true;
    k_out->b_type = b_type;
    return VNPU_STATUS_OK;
}

static void mm_zero_fn(const struct xdna_call *c) {
    VNPU_ASSERT(c->n_bufs >= 1);
    memset(c->bufs[0], 0, c->buf_bytes[0]);
    if (c->cycles) {
        *c->cycles += (c->buf_bytes[0] + STORE_BYTES_PER_CYCLE - 1) / STORE_BYTES_PER_CYCLE;
    }
}

const struct xdna_kernel xdna_mm_zero = {.name = "mm_zero", .fn = mm_zero_fn, .stack_bytes = 0, .mac_dims = {1, 1, 1}};
