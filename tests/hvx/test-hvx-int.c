/*
 * Semantics of the integer HVX intrinsics: every row of HVX_CASES_INT, emulated (the build's backend:
 * AVX2 or portable C) against its scalar reference on generated operands that mix random values with
 * edge values (saturation limits, -1, 0, min + 1, shift amounts >= the element width and negative,
 * all-set and all-clear predicates). A few hand-checked vectors pin facts the generator cannot.
 */
#include "hvx-check.h"
#include "test-common.h"

#include <stdio.h>

#define ITERS 400

static void test_int_cases_match_reference(void **state) {
    (void) state;
    assert_int_equal(hvx_check_cases("integer", ref_cases_int, ref_cases_int_count, ITERS), 0);
}

/* vrmpy of -128 * -128 in every byte: the one input where a PMADDUBSW pair overflows int16. */
static void test_vrmpy_edge_values(void **state) {
    (void) state;
    const HVX_Vector m = Q6_Vb_vsplat_R(-128);
    HVX_Vector r = Q6_Vw_vrmpy_VbVb(m, m);
    for (int i = 0; i < 32; i++) {
        assert_int_equal(r.w[i], 4 * 16384);
    }
    r = Q6_Vw_vrmpyacc_VwVubVb(Q6_V_vsplat_R(-1), Q6_Vb_vsplat_R(-1), m); /* 255 * -128 * 4 - 1 */
    for (int i = 0; i < 32; i++) {
        assert_int_equal(r.w[i], -130561);
    }
    r = Q6_Vuw_vrmpy_VubVub(Q6_Vb_vsplat_R(-1), Q6_Vb_vsplat_R(-1)); /* 255 * 255 * 4 */
    for (int i = 0; i < 32; i++) {
        assert_int_equal(r.uw[i], 260100);
    }
}

/* vshuff/vdeal by -e interleave and de-interleave e-byte elements, and undo each other. */
static void test_shuff_deal_roundtrip(void **state) {
    (void) state;
    HVX_Vector u, v;
    for (int i = 0; i < 128; i++) {
        u.ub[i] = (uint8_t) (i + 128);
        v.ub[i] = (uint8_t) i;
    }
    for (int e = 1; e <= 64; e *= 2) {
        const HVX_VectorPair s = Q6_W_vshuff_VVR(u, v, -e);
        for (int i = 0; i < 256; i++) {
            const int elem = i / e, pos = i % e;
            const uint8_t want = (elem & 1) ? (uint8_t) (128 + (elem / 2) * e + pos) : (uint8_t) ((elem / 2) * e + pos);
            assert_int_equal(s.v[i / 128].ub[i % 128], want);
        }
        const HVX_VectorPair d = Q6_W_vdeal_VVR(Q6_V_hi_W(s), Q6_V_lo_W(s), -e);
        assert_memory_equal(&d.v[0], &v, 128);
        assert_memory_equal(&d.v[1], &u, 128);
    }
}

/* The one-vector shuffles are byte permutations that do not depend on the data, on both backends (the AVX2 one is
 * unpacks and lane moves), so a vector of 128 distinct bytes fixes the whole map: equal to the definition on it is
 * equal on every input. test_shuff_deal_roundtrip does the same for the pair shuffle by -e. */
static void test_shuff_one_vector_permutations(void **state) {
    (void) state;
    HVX_Vector v;
    for (int i = 0; i < 128; i++) {
        v.ub[i] = (uint8_t) i;
    }
    const HVX_Vector b = Q6_Vb_vshuff_Vb(v), h = Q6_Vh_vshuff_Vh(v);
    for (int i = 0; i < 64; i++) { /* byte 2i = v[i], 2i + 1 = v[i + 64] */
        assert_int_equal(b.ub[2 * i], i);
        assert_int_equal(b.ub[2 * i + 1], i + 64);
    }
    for (int i = 0; i < 32; i++) { /* half 2i = v.h[i], 2i + 1 = v.h[i + 32] */
        assert_int_equal(h.uh[2 * i], v.uh[i]);
        assert_int_equal(h.uh[2 * i + 1], v.uh[i + 32]);
    }
}

/* Aligned accesses ignore the low address bits; predicated stores leave unselected bytes alone. */
static void test_memory_access(void **state) {
    (void) state;
    static uint8_t buf[512] __attribute__((aligned(128)));
    for (int i = 0; i < 512; i++) {
        buf[i] = (uint8_t) i;
    }
    const HVX_Vector a = hvx_vmem_ld(buf + 128 + 37);
    assert_memory_equal(&a, buf + 128, 128);
    const HVX_Vector u = hvx_vmemu_ld(buf + 37);
    assert_memory_equal(&u, buf + 37, 128);
    hvx_vmemu_st(buf + 300, Q6_Vb_vsplat_R(0xAB));
    assert_int_equal(buf[299], (uint8_t) 299);
    assert_int_equal(buf[300], 0xAB);
    assert_int_equal(buf[427], 0xAB);
    assert_int_equal(buf[428], (uint8_t) 428);
    Q6_vmem_QRIV(Q6_Q_vsetq_R(5), (HVX_Vector *) (buf + 7), Q6_Vb_vsplat_R(0xCD));
    assert_int_equal(buf[4], 0xCD);
    assert_int_equal(buf[5], 5);
    assert_int_equal(buf[127], 127);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_int_cases_match_reference),
        cmocka_unit_test(test_vrmpy_edge_values),
        cmocka_unit_test(test_shuff_deal_roundtrip),
        cmocka_unit_test(test_shuff_one_vector_permutations),
        cmocka_unit_test(test_memory_access),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
