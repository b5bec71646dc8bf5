/*
 * AVX2 backend of the HVX emulation: a 128-byte HVX register is HVX_SIMD_N = 4 chunks of __m256i.
 *
 * The emulated intrinsics (hvx-*.h) that have a fast path are written once against the chunk
 * primitives below (hvx_s_*) and HVX_SIMD_EACH; a backend for another ISA is one more file with the
 * same primitives selected in hvx-types.h by the VNPU_HVX_SIMD option (an AVX-512 one would hold a
 * register in 2 chunks of __m512i and could do the vrmpy dot products with VPDPBUSD; it is not written,
 * as no machine here runs AVX-512). Every primitive is exact: where an x86 instruction saturates
 * or wraps differently from HVX, the caller handles it (e.g. hvx-mpy.h's vrmpy edge case).
 *
 * Chunk-crossing primitives (zip, unzip, alignr) work on whole chunks in element order, so the
 * permute intrinsics never depend on AVX2's 128-bit lanes.
 */
#ifndef VNPU_HVX_SIMD_AVX2_H
#define VNPU_HVX_SIMD_AVX2_H

#include <immintrin.h>

#if !defined(__AVX2__) || !defined(__F16C__)
#error "VNPU_HVX_SIMD_AVX2 needs -mavx2 -mf16c (the vnpu-hvx target adds them)"
#endif

typedef __m256i hvx_simd_t;

#define HVX_SIMD_N     4
#define HVX_SIMD_BYTES 32

/* Run the statement for chunk k = 0..3, with k a constant so the chunks stay in registers (GCC's scalar
 * replacement of aggregates only splits arrays indexed by constants). */
#define HVX_SIMD_EACH(...)  \
    do {                    \
        {                   \
            enum { k = 0 }; \
            __VA_ARGS__;    \
        }                   \
        {                   \
            enum { k = 1 }; \
            __VA_ARGS__;    \
        }                   \
        {                   \
            enum { k = 2 }; \
            __VA_ARGS__;    \
        }                   \
        {                   \
            enum { k = 3 }; \
            __VA_ARGS__;    \
        }                   \
    } while (0)

#define HVX_S_INLINE static inline __attribute__((always_inline))

/* --- construction, memory --- */
HVX_S_INLINE hvx_simd_t hvx_s_zero(void) {
    return _mm256_setzero_si256();
}
HVX_S_INLINE hvx_simd_t hvx_s_set1_8(int x) {
    return _mm256_set1_epi8((char) x);
}
HVX_S_INLINE hvx_simd_t hvx_s_set1_16(int x) {
    return _mm256_set1_epi16((short) x);
}
HVX_S_INLINE hvx_simd_t hvx_s_set1_32(int32_t x) {
    return _mm256_set1_epi32(x);
}
HVX_S_INLINE hvx_simd_t hvx_s_loadu(const void *p) {
    return _mm256_loadu_si256((const __m256i *) p);
}
HVX_S_INLINE void hvx_s_storeu(void *p, hvx_simd_t a) {
    _mm256_storeu_si256((__m256i *) p, a);
}
/* 1 when every bit of a is zero. */
HVX_S_INLINE int hvx_s_testz(hvx_simd_t a) {
    return _mm256_testz_si256(a, a);
}

/* --- logic --- */
HVX_S_INLINE hvx_simd_t hvx_s_and(hvx_simd_t a, hvx_simd_t b) {
    return _mm256_and_si256(a, b);
}
HVX_S_INLINE hvx_simd_t hvx_s_or(hvx_simd_t a, hvx_simd_t b) {
    return _mm256_or_si256(a, b);
}
HVX_S_INLINE hvx_simd_t hvx_s_xor(hvx_simd_t a, hvx_simd_t b) {
    return _mm256_xor_si256(a, b);
}
/* ~a & b */
HVX_S_INLINE hvx_simd_t hvx_s_andnot(hvx_simd_t a, hvx_simd_t b) {
    return _mm256_andnot_si256(a, b);
}
/* byte select: mask byte 0xFF takes a, 0x00 takes b */
HVX_S_INLINE hvx_simd_t hvx_s_blend8(hvx_simd_t mask, hvx_simd_t a, hvx_simd_t b) {
    return _mm256_blendv_epi8(b, a, mask);
}

/* --- add, sub (wrapping and saturating), average, abs --- */
HVX_S_INLINE hvx_simd_t hvx_s_add8(hvx_simd_t a, hvx_simd_t b) {
    return _mm256_add_epi8(a, b);
}
HVX_S_INLINE hvx_simd_t hvx_s_add16(hvx_simd_t a, hvx_simd_t b) {
    return _mm256_add_epi16(a, b);
}
HVX_S_INLINE hvx_simd_t hvx_s_add32(hvx_simd_t a, hvx_simd_t b) {
    return _mm256_add_epi32(a, b);
}
HVX_S_INLINE hvx_simd_t hvx_s_sub8(hvx_simd_t a, hvx_simd_t b) {
    return _mm256_sub_epi8(a, b);
}
HVX_S_INLINE hvx_simd_t hvx_s_sub16(hvx_simd_t a, hvx_simd_t b) {
    return _mm256_sub_epi16(a, b);
}
HVX_S_INLINE hvx_simd_t hvx_s_sub32(hvx_simd_t a, hvx_simd_t b) {
    return _mm256_sub_epi32(a, b);
}
HVX_S_INLINE hvx_simd_t hvx_s_adds_i8(hvx_simd_t a, hvx_simd_t b) {
    return _mm256_adds_epi8(a, b);
}
HVX_S_INLINE hvx_simd_t hvx_s_adds_u8(hvx_simd_t a, hvx_simd_t b) {
    return _mm256_adds_epu8(a, b);
}
HVX_S_INLINE hvx_simd_t hvx_s_adds_i16(hvx_simd_t a, hvx_simd_t b) {
    return _mm256_adds_epi16(a, b);
}
HVX_S_INLINE hvx_simd_t hvx_s_adds_u16(hvx_simd_t a, hvx_simd_t b) {
    return _mm256_adds_epu16(a, b);
}
HVX_S_INLINE hvx_simd_t hvx_s_subs_i8(hvx_simd_t a, hvx_simd_t b) {
    return _mm256_subs_epi8(a, b);
}
HVX_S_INLINE hvx_simd_t hvx_s_subs_u8(hvx_simd_t a, hvx_simd_t b) {
    return _mm256_subs_epu8(a, b);
}
HVX_S_INLINE hvx_simd_t hvx_s_subs_i16(hvx_simd_t a, hvx_simd_t b) {
    return _mm256_subs_epi16(a, b);
}
HVX_S_INLINE hvx_simd_t hvx_s_subs_u16(hvx_simd_t a, hvx_simd_t b) {
    return _mm256_subs_epu16(a, b);
}
/* rounding averages (a + b + 1) >> 1, unsigned */
HVX_S_INLINE hvx_simd_t hvx_s_avgr_u8(hvx_simd_t a, hvx_simd_t b) {
    return _mm256_avg_epu8(a, b);
}
HVX_S_INLINE hvx_simd_t hvx_s_avgr_u16(hvx_simd_t a, hvx_simd_t b) {
    return _mm256_avg_epu16(a, b);
}
HVX_S_INLINE hvx_simd_t hvx_s_abs8(hvx_simd_t a) {
    return _mm256_abs_epi8(a);
}
HVX_S_INLINE hvx_simd_t hvx_s_abs16(hvx_simd_t a) {
    return _mm256_abs_epi16(a);
}
HVX_S_INLINE hvx_simd_t hvx_s_abs32(hvx_simd_t a) {
    return _mm256_abs_epi32(a);
}

/* --- min, max, compares (compares give all-ones lanes) --- */
HVX_S_INLINE hvx_simd_t hvx_s_min_i8(hvx_simd_t a, hvx_simd_t b) {
    return _mm256_min_epi8(a, b);
}
HVX_S_INLINE hvx_simd_t hvx_s_max_i8(hvx_simd_t a, hvx_simd_t b) {
    return _mm256_max_epi8(a, b);
}
HVX_S_INLINE hvx_simd_t hvx_s_min_u8(hvx_simd_t a, hvx_simd_t b) {
    return _mm256_min_epu8(a, b);
}
HVX_S_INLINE hvx_simd_t hvx_s_max_u8(hvx_simd_t a, hvx_simd_t b) {
    return _mm256_max_epu8(a, b);
}
HVX_S_INLINE hvx_simd_t hvx_s_min_i16(hvx_simd_t a, hvx_simd_t b) {
    return _mm256_min_epi16(a, b);
}
HVX_S_INLINE hvx_simd_t hvx_s_max_i16(hvx_simd_t a, hvx_simd_t b) {
    return _mm256_max_epi16(a, b);
}
HVX_S_INLINE hvx_simd_t hvx_s_min_u16(hvx_simd_t a, hvx_simd_t b) {
    return _mm256_min_epu16(a, b);
}
HVX_S_INLINE hvx_simd_t hvx_s_max_u16(hvx_simd_t a, hvx_simd_t b) {
    return _mm256_max_epu16(a, b);
}
HVX_S_INLINE hvx_simd_t hvx_s_min_i32(hvx_simd_t a, hvx_simd_t b) {
    return _mm256_min_epi32(a, b);
}
HVX_S_INLINE hvx_simd_t hvx_s_max_i32(hvx_simd_t a, hvx_simd_t b) {
    return _mm256_max_epi32(a, b);
}
HVX_S_INLINE hvx_simd_t hvx_s_cmpeq8(hvx_simd_t a, hvx_simd_t b) {
    return _mm256_cmpeq_epi8(a, b);
}
HVX_S_INLINE hvx_simd_t hvx_s_cmpeq16(hvx_simd_t a, hvx_simd_t b) {
    return _mm256_cmpeq_epi16(a, b);
}
HVX_S_INLINE hvx_simd_t hvx_s_cmpeq32(hvx_simd_t a, hvx_simd_t b) {
    return _mm256_cmpeq_epi32(a, b);
}
HVX_S_INLINE hvx_simd_t hvx_s_cmpgt_i8(hvx_simd_t a, hvx_simd_t b) {
    return _mm256_cmpgt_epi8(a, b);
}
HVX_S_INLINE hvx_simd_t hvx_s_cmpgt_i16(hvx_simd_t a, hvx_simd_t b) {
    return _mm256_cmpgt_epi16(a, b);
}
HVX_S_INLINE hvx_simd_t hvx_s_cmpgt_i32(hvx_simd_t a, hvx_simd_t b) {
    return _mm256_cmpgt_epi32(a, b);
}

/* --- shifts by a scalar count (0 <= n < element width) and by per-lane counts (words) --- */
HVX_S_INLINE hvx_simd_t hvx_s_sll16(hvx_simd_t a, int n) {
    return _mm256_sll_epi16(a, _mm_cvtsi32_si128(n));
}
HVX_S_INLINE hvx_simd_t hvx_s_srl16(hvx_simd_t a, int n) {
    return _mm256_srl_epi16(a, _mm_cvtsi32_si128(n));
}
HVX_S_INLINE hvx_simd_t hvx_s_sra16(hvx_simd_t a, int n) {
    return _mm256_sra_epi16(a, _mm_cvtsi32_si128(n));
}
HVX_S_INLINE hvx_simd_t hvx_s_sll32(hvx_simd_t a, int n) {
    return _mm256_sll_epi32(a, _mm_cvtsi32_si128(n));
}
HVX_S_INLINE hvx_simd_t hvx_s_srl32(hvx_simd_t a, int n) {
    return _mm256_srl_epi32(a, _mm_cvtsi32_si128(n));
}
HVX_S_INLINE hvx_simd_t hvx_s_sra32(hvx_simd_t a, int n) {
    return _mm256_sra_epi32(a, _mm_cvtsi32_si128(n));
}
/* per-word counts; counts >= 32 give 0 (srl, sll) or the sign (sra), as x86 defines */
HVX_S_INLINE hvx_simd_t hvx_s_sllv32(hvx_simd_t a, hvx_simd_t n) {
    return _mm256_sllv_epi32(a, n);
}
HVX_S_INLINE hvx_simd_t hvx_s_srlv32(hvx_simd_t a, hvx_simd_t n) {
    return _mm256_srlv_epi32(a, n);
}
HVX_S_INLINE hvx_simd_t hvx_s_srav32(hvx_simd_t a, hvx_simd_t n) {
    return _mm256_srav_epi32(a, n);
}

/* --- multiplies --- */
/* pairs of u8 x i8 products summed to i16 with saturation (PMADDUBSW): exact only when no pair sum
 * leaves [-32768, 32767]; callers guarantee that or check for it */
HVX_S_INLINE hvx_simd_t hvx_s_maddubs(hvx_simd_t u8, hvx_simd_t i8) {
    return _mm256_maddubs_epi16(u8, i8);
}
/* pairs of i16 x i16 products summed to i32 (PMADDWD): exact except (-32768)^2 * 2 */
HVX_S_INLINE hvx_simd_t hvx_s_madd16(hvx_simd_t a, hvx_simd_t b) {
    return _mm256_madd_epi16(a, b);
}
/* b negated where a < 0, zeroed where a == 0 (PSIGNB) */
HVX_S_INLINE hvx_simd_t hvx_s_sign8(hvx_simd_t b, hvx_simd_t a) {
    return _mm256_sign_epi8(b, a);
}
HVX_S_INLINE hvx_simd_t hvx_s_mullo16(hvx_simd_t a, hvx_simd_t b) {
    return _mm256_mullo_epi16(a, b);
}
HVX_S_INLINE hvx_simd_t hvx_s_mulhi_i16(hvx_simd_t a, hvx_simd_t b) {
    return _mm256_mulhi_epi16(a, b);
}
HVX_S_INLINE hvx_simd_t hvx_s_mulhi_u16(hvx_simd_t a, hvx_simd_t b) {
    return _mm256_mulhi_epu16(a, b);
}
HVX_S_INLINE hvx_simd_t hvx_s_mullo32(hvx_simd_t a, hvx_simd_t b) {
    return _mm256_mullo_epi32(a, b);
}

/* --- element order changes within a chunk pair, in element order (not AVX2 128-bit lanes) --- */
/* AVX2's in-lane interleave of a and b: in each 128-bit lane, the first (hi = 0) or second (hi = 1) half of a's
 * elements with b's, for element size 1, 2, 4 or 8 bytes */
HVX_S_INLINE hvx_simd_t hvx_s_unpack(hvx_simd_t a, hvx_simd_t b, int esize, int hi) {
    switch (esize) {
        case 1: return hi ? _mm256_unpackhi_epi8(a, b) : _mm256_unpacklo_epi8(a, b);
        case 2: return hi ? _mm256_unpackhi_epi16(a, b) : _mm256_unpacklo_epi16(a, b);
        case 4: return hi ? _mm256_unpackhi_epi32(a, b) : _mm256_unpacklo_epi32(a, b);
        default: return hi ? _mm256_unpackhi_epi64(a, b) : _mm256_unpacklo_epi64(a, b);
    }
}
/* interleave the first halves of a and b: a0 b0 a1 b1 ... for element size 1, 2, 4 or 8 bytes. The in-lane
 * interleaves hold it in their low lanes; a 128-bit insert joins them (cheaper than the VPERMQ of each operand
 * before the unpack it replaces, and zip_hi's unpacks of the same operands are shared) */
HVX_S_INLINE hvx_simd_t hvx_s_zip_lo(hvx_simd_t a, hvx_simd_t b, int esize) {
    const __m256i l = hvx_s_unpack(a, b, esize, 0), h = hvx_s_unpack(a, b, esize, 1);
    return _mm256_inserti128_si256(l, _mm256_castsi256_si128(h), 1);
}
/* interleave the second halves of a and b: the in-lane interleaves' high lanes */
HVX_S_INLINE hvx_simd_t hvx_s_zip_hi(hvx_simd_t a, hvx_simd_t b, int esize) {
    const __m256i l = hvx_s_unpack(a, b, esize, 0), h = hvx_s_unpack(a, b, esize, 1);
    return _mm256_permute2x128_si256(l, h, 0x31);
}
/* even-indexed (odd = 0) or odd-indexed (odd = 1) elements of a, then those of b. Words and doublewords: one shuffle
 * of the two operands picks a lane's elements of a and b, one VPERMQ puts the lanes in order; bytes and halves are
 * first sorted within each lane (evens in its low 64 bits, odds in its high 64), then joined the same way */
HVX_S_INLINE hvx_simd_t hvx_s_unzip(hvx_simd_t a, hvx_simd_t b, int esize, int odd) {
    __m256i t;
    switch (esize) {
        case 1:
        case 2: {
            const __m256i sel = esize == 1 ? _mm256_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15, 0,
                                                              2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15)
                                           : _mm256_setr_epi8(0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15, 0,
                                                              1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15);
            const __m256i ta = _mm256_shuffle_epi8(a, sel), tb = _mm256_shuffle_epi8(b, sel);
            t = odd ? _mm256_unpackhi_epi64(ta, tb) : _mm256_unpacklo_epi64(ta, tb);
            break;
        }
        case 4: { /* per lane: a's two words, then b's */
            const __m256 fa = _mm256_castsi256_ps(a), fb = _mm256_castsi256_ps(b);
            t = _mm256_castps_si256(odd ? _mm256_shuffle_ps(fa, fb, 0xDD) : _mm256_shuffle_ps(fa, fb, 0x88));
            break;
        }
        default: t = odd ? _mm256_unpackhi_epi64(a, b) : _mm256_unpacklo_epi64(a, b); break;
    }
    /* each lane holds its part of a in its low 64 bits and of b in its high 64: quarters 0 2 1 3 */
    return _mm256_permute4x64_epi64(t, 0xD8);
}
/* saturating narrow of a then b (element order): i16 -> i8 (us = 0) or u8 (us = 1); i32 -> i16 or u16 */
HVX_S_INLINE hvx_simd_t hvx_s_pack16(hvx_simd_t a, hvx_simd_t b, int us) {
    const __m256i p = us ? _mm256_packus_epi16(a, b) : _mm256_packs_epi16(a, b);
    return _mm256_permute4x64_epi64(p, 0xD8);
}
HVX_S_INLINE hvx_simd_t hvx_s_pack32(hvx_simd_t a, hvx_simd_t b, int us) {
    const __m256i p = us ? _mm256_packus_epi32(a, b) : _mm256_packs_epi32(a, b);
    return _mm256_permute4x64_epi64(p, 0xD8);
}
/* widen the lower (upper = 0) or upper 16 bytes / 8 halves of a, sign- or zero-extended */
HVX_S_INLINE hvx_simd_t hvx_s_widen8(hvx_simd_t a, int upper, int is_signed) {
    const __m128i h = upper ? _mm256_extracti128_si256(a, 1) : _mm256_castsi256_si128(a);
    return is_signed ? _mm256_cvtepi8_epi16(h) : _mm256_cvtepu8_epi16(h);
}
HVX_S_INLINE hvx_simd_t hvx_s_widen16(hvx_simd_t a, int upper, int is_signed) {
    const __m128i h = upper ? _mm256_extracti128_si256(a, 1) : _mm256_castsi256_si128(a);
    return is_signed ? _mm256_cvtepi16_epi32(h) : _mm256_cvtepu16_epi32(h);
}
/* bytes n .. n+31 of the 64-byte concatenation lo:hi (lo first), 0 <= n <= 32 */
HVX_S_INLINE hvx_simd_t hvx_s_alignr(hvx_simd_t hi, hvx_simd_t lo, int n) {
    const __m256i mid = _mm256_permute2x128_si256(lo, hi, 0x21); /* lo upper lane, hi lower lane */
#define HVX_S_ALIGNR_CASE(c) \
    case c: return (c) < 16 ? _mm256_alignr_epi8(mid, lo, (c) &15) : _mm256_alignr_epi8(hi, mid, (c) &15);
    /* the byte count of alignr is an immediate: one case per count (four per line) */
    // clang-format off
    switch (n) {
        HVX_S_ALIGNR_CASE(0)  HVX_S_ALIGNR_CASE(1)  HVX_S_ALIGNR_CASE(2)  HVX_S_ALIGNR_CASE(3)
        HVX_S_ALIGNR_CASE(4)  HVX_S_ALIGNR_CASE(5)  HVX_S_ALIGNR_CASE(6)  HVX_S_ALIGNR_CASE(7)
        HVX_S_ALIGNR_CASE(8)  HVX_S_ALIGNR_CASE(9)  HVX_S_ALIGNR_CASE(10) HVX_S_ALIGNR_CASE(11)
        HVX_S_ALIGNR_CASE(12) HVX_S_ALIGNR_CASE(13) HVX_S_ALIGNR_CASE(14) HVX_S_ALIGNR_CASE(15)
        HVX_S_ALIGNR_CASE(16) HVX_S_ALIGNR_CASE(17) HVX_S_ALIGNR_CASE(18) HVX_S_ALIGNR_CASE(19)
        HVX_S_ALIGNR_CASE(20) HVX_S_ALIGNR_CASE(21) HVX_S_ALIGNR_CASE(22) HVX_S_ALIGNR_CASE(23)
        HVX_S_ALIGNR_CASE(24) HVX_S_ALIGNR_CASE(25) HVX_S_ALIGNR_CASE(26) HVX_S_ALIGNR_CASE(27)
        HVX_S_ALIGNR_CASE(28) HVX_S_ALIGNR_CASE(29) HVX_S_ALIGNR_CASE(30) HVX_S_ALIGNR_CASE(31)
        default: return hi;
    }
    // clang-format on
#undef HVX_S_ALIGNR_CASE
}
/* byte k of the result = a byte (t[k] & 31) of the 32-byte table a; t bytes must be < 32 */
HVX_S_INLINE hvx_simd_t hvx_s_lookup32(hvx_simd_t a, hvx_simd_t t) {
    const __m256i lo = _mm256_permute2x128_si256(a, a, 0x00);
    const __m256i hi = _mm256_permute2x128_si256(a, a, 0x11);
    const __m256i from_hi = _mm256_slli_epi16(t, 3); /* bit 4 of each index into the byte sign bit */
    return _mm256_blendv_epi8(_mm256_shuffle_epi8(lo, t), _mm256_shuffle_epi8(hi, t), from_hi);
}

/* --- IEEE binary32 and binary16 (F16C) --- */
HVX_S_INLINE __m256 hvx_s_as_ps(hvx_simd_t a) {
    return _mm256_castsi256_ps(a);
}
HVX_S_INLINE hvx_simd_t hvx_s_from_ps(__m256 a) {
    return _mm256_castps_si256(a);
}
HVX_S_INLINE hvx_simd_t hvx_s_addf(hvx_simd_t a, hvx_simd_t b) {
    return _mm256_castps_si256(_mm256_add_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b)));
}
HVX_S_INLINE hvx_simd_t hvx_s_subf(hvx_simd_t a, hvx_simd_t b) {
    return _mm256_castps_si256(_mm256_sub_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b)));
}
HVX_S_INLINE hvx_simd_t hvx_s_mulf(hvx_simd_t a, hvx_simd_t b) {
    return _mm256_castps_si256(_mm256_mul_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b)));
}
/* MAXPS/MINPS: b when either is a NaN or both are zeros; callers handle those cases */
HVX_S_INLINE hvx_simd_t hvx_s_maxf(hvx_simd_t a, hvx_simd_t b) {
    return _mm256_castps_si256(_mm256_max_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b)));
}
HVX_S_INLINE hvx_simd_t hvx_s_minf(hvx_simd_t a, hvx_simd_t b) {
    return _mm256_castps_si256(_mm256_min_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b)));
}
/* all-ones words where a == b as floats (so +0 == -0, NaN != NaN) */
HVX_S_INLINE hvx_simd_t hvx_s_cmpeqf(hvx_simd_t a, hvx_simd_t b) {
    return _mm256_castps_si256(_mm256_cmp_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b), _CMP_EQ_OQ));
}
/* all-ones words where a is a NaN */
HVX_S_INLINE hvx_simd_t hvx_s_isnan_f32(hvx_simd_t a) {
    return _mm256_castps_si256(_mm256_cmp_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(a), _CMP_UNORD_Q));
}
/* the 16 halves of chunk a at index half*16.. widened to binary32 (exact) */
HVX_S_INLINE hvx_simd_t hvx_s_cvt_f16_f32(hvx_simd_t a, int upper) {
    __m128i h = upper ? _mm256_extracti128_si256(a, 1) : _mm256_castsi256_si128(a);
    return _mm256_castps_si256(_mm256_cvtph_ps(h));
}
/* two chunks of binary32 rounded to nearest even into halves, interleaved: u0 v0 u1 v1 ... */
HVX_S_INLINE hvx_simd_t hvx_s_cvt_f32_f16_zip(hvx_simd_t u, hvx_simd_t v) {
    const __m128i a = _mm256_cvtps_ph(_mm256_castsi256_ps(u), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    const __m128i b = _mm256_cvtps_ph(_mm256_castsi256_ps(v), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    return _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_unpacklo_epi16(a, b)), _mm_unpackhi_epi16(a, b), 1);
}
/* two chunks of binary32 rounded to nearest even into 16 halves each: lo's then hi's */
HVX_S_INLINE hvx_simd_t hvx_s_cvt_f32_f16(hvx_simd_t lo, hvx_simd_t hi) {
    __m128i a = _mm256_cvtps_ph(_mm256_castsi256_ps(lo), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m128i b = _mm256_cvtps_ph(_mm256_castsi256_ps(hi), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    return _mm256_inserti128_si256(_mm256_castsi128_si256(a), b, 1);
}

#endif /* VNPU_HVX_SIMD_AVX2_H */
