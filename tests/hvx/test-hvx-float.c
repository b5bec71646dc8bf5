/*
 * Semantics of the floating-point HVX intrinsics (IEEE hf/sf, conversions, qf16/qf32) against their
 * scalar references, for the HVX version this executable is built for (test-hvx-float: the library's
 * VNPU_HVX_ARCH; test-hvx-float-v75: the v68..v75 qfloat model). Also: the scalar binary16 helpers
 * against GGML's conversions on every half, hand-derived qfloat vectors, and that every Q6_* name in
 * src/hvx has a case (the intrinsic count of the report).
 */
#include "fp16.h"
#include "hvx-check.h"
#include "test-common.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>

#define ITERS 400

static void test_float_cases_match_reference(void **state) {
    (void) state;
    assert_int_equal(hvx_check_cases("floating point", ref_cases_float, ref_cases_float_count, ITERS), 0);
}

/* hvx-half.h against GGML's binary16 conversions (src/base/fp16.c): every half widened, and sf -> hf
 * on every half's neighbourhood (ties, subnormals, overflow). NaNs are canonical in HVX. */
static void test_half_conversions(void **state) {
    (void) state;
    for (uint32_t h = 0; h < 65536; h++) {
        const uint32_t want = vnpu_f32_bits(vnpu_fp16_to_f32((vnpu_fp16_t) h));
        assert_int_equal(hvx_hf_to_sf((uint16_t) h), hvx_hf_isnan((uint16_t) h) ? HVX_SF_NAN : want);
    }
    for (uint32_t h = 0; h < 65536; h++) {
        const uint32_t base = hvx_hf_to_sf((uint16_t) h);
        if (hvx_sf_isnan(base)) {
            continue;
        }
        for (int d = -2; d <= 0x1FFF + 2; d += 0x3FF) { /* points between this half and the next */
            const uint32_t u = base + (uint32_t) d;
            if (hvx_sf_isnan(u) || ((u ^ base) & 0x80000000u)) {
                continue;
            }
            assert_int_equal(hvx_sf_to_hf(u), vnpu_f32_to_fp16(vnpu_f32_from_bits(u)));
        }
    }
}

#if VNPU_HVX_ARCH < 79
/* Vectors derived by hand from the v68..v75 model (mmvec_qfloat.c): sf 1.0 enters qf32 as the odd
 * significand 2^22 (value 1 + 2^-23, the implied half LSB) and comes back as 1 + 2^-23. */
static void test_qfloat_legacy_vectors(void **state) {
    (void) state;
    const HVX_Vector one = Q6_V_vsplat_R(0x3F800000), zero = Q6_V_vzero();
    const HVX_Vector q = Q6_Vqf32_vadd_VsfVsf(one, zero);
    assert_int_equal(q.uw[0], 0x4000007Fu);
    assert_int_equal(Q6_Vsf_equals_Vqf32(q).uw[5], 0x3F800001u);
    const HVX_Vector m = Q6_Vqf32_vmpy_VsfVsf(Q6_V_vsplat_R(0xBF800000), one); /* -1 * 1 */
    assert_int_equal(m.uw[0], 0xBFFFFF7Fu);                                    /* negate32 of 0x4000007F */
    const HVX_Vector z = Q6_Vqf32_vadd_VsfVsf(zero, zero);                     /* exact zero: all bits 0 */
    assert_int_equal(z.uw[31], 0u);
    const HVX_Vector h = Q6_Vhf_equals_Wqf32(Q6_W_vcombine_VV(q, q)); /* 1 + 2^-23 to hf: 1.0 */
    assert_int_equal(h.uh[0], 0x3C00);
}
#else
/* The v79 model: qf results are the IEEE results, so sf -> qf32 -> sf and hf products are exact. */
static void test_qfloat_ieee_vectors(void **state) {
    (void) state;
    const HVX_Vector one = Q6_V_vsplat_R(0x3F800000), zero = Q6_V_vzero();
    assert_int_equal(Q6_Vsf_equals_Vqf32(Q6_Vqf32_vadd_VsfVsf(one, zero)).uw[0], 0x3F800000u);
    const HVX_Vector h = Q6_Vh_vsplat_R(0x3E00); /* 1.5 */
    const HVX_VectorPair p = Q6_Wqf32_vmpy_VhfVhf(h, h);
    assert_int_equal(p.v[1].uw[7], 0x40100000u); /* 2.25 */
}
#endif

/* Every Q6_* identifier written in the src/hvx emulation headers must be a case of the tables (literal names; the
 * macro-built vcmp forms are rows as well). Prints the count. */
static void test_every_intrinsic_has_a_case(void **state) {
    (void) state;
    static const char *const files[] = {"hvx-mem.h",   "hvx-arith.h",   "hvx-mpy.h",   "hvx-shift.h",
                                        "hvx-logic.h", "hvx-permute.h", "hvx-float.h", "hvx-qfloat.h"};
    int missing = 0, seen = 0;
    for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
        char path[4096];
        snprintf(path, sizeof(path), "%s/src/hvx/%s", VNPU_SOURCE_DIR, files[f]);
        size_t size = 0;
        char *text = test_read_file(path, &size);
        assert_non_null(text);
        for (size_t i = 0; i + 3 < size; i++) {
            if (strncmp(text + i, "Q6_", 3) != 0 ||
                (i > 0 && (isalnum((unsigned char) text[i - 1]) || text[i - 1] == '_'))) {
                continue;
            }
            size_t n = 3;
            while (i + n < size && (isalnum((unsigned char) text[i + n]) || text[i + n] == '_')) {
                n++;
            }
            if (text[i + n - 1] == '_' || (i + n + 1 < size && text[i + n] == '#')) {
                continue; /* a name pasted together by a macro */
            }
            int found = 0;
            for (int c = 0; c < ref_cases_int_count && !found; c++) {
                found = strlen(ref_cases_int[c].name) == n && strncmp(ref_cases_int[c].name, text + i, n) == 0;
            }
            for (int c = 0; c < ref_cases_float_count && !found; c++) {
                found = strlen(ref_cases_float[c].name) == n && strncmp(ref_cases_float[c].name, text + i, n) == 0;
            }
            if (!found) {
                fprintf(stderr, "%s: %.*s has no case in tests/hvx/hvx-case-list.h\n", files[f], (int) n, text + i);
                missing++;
            }
            seen++;
            i += n;
        }
        free(text);
    }
    fprintf(stderr, "intrinsics with cases: %d integer + %d floating point = %d (%d names read in src/hvx)\n",
            ref_cases_int_count, ref_cases_float_count, ref_cases_int_count + ref_cases_float_count, seen);
    assert_int_equal(missing, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_float_cases_match_reference),
        cmocka_unit_test(test_half_conversions),
#if VNPU_HVX_ARCH < 79
        cmocka_unit_test(test_qfloat_legacy_vectors),
#else
        cmocka_unit_test(test_qfloat_ieee_vectors),
#endif
        cmocka_unit_test(test_every_intrinsic_has_a_case),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
