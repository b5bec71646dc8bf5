/*
 * A harness for op tests on the CPU device: one case at a time, named as STYLE.md's case strings
 * ("RMS_NORM(type=f32,ne=[5,7,11,13],view=1)"), with its random data seeded from that name.
 *
 * Every tensor memory the harness gives out is fenced by sentinel bytes, checked after each compute
 * and at the end of the case. op_test_compute runs the graph of the case's output on CPU devices with
 * 1, 2 and 3 threads (the inputs restored before each run, the computed tensors poisoned with NaN
 * bytes) and requires bitwise-identical outputs; the tests then compare the output with their own
 * double-precision references by NMSE.
 */
#ifndef VNPU_OP_TEST_H
#define VNPU_OP_TEST_H

#include "test-common.h"

#include "tensor.h"

#include <stdbool.h>
#include <stdint.h>

/* How an input of shape ne is laid out in memory. */
enum op_layout {
    OP_LAYOUT_CONT = 0,  /* contiguous */
    OP_LAYOUT_VIEW = 1,  /* a view inside a larger tensor: rows padded, offset by one row and one block */
    OP_LAYOUT_PERM = 2,  /* dims 1 and 2 swapped in memory (rows dense): vnpu_permute(.., 0, 2, 1, 3) */
    OP_LAYOUT_TRANS = 3, /* dims 0 and 1 swapped in memory (elements strided): vnpu_transpose */
};

struct op_mem;

struct op_test {
    char name[256];
    struct test_rng rng;
    struct vnpu_ctx *ctx; /* no_alloc arena for the case's tensors */
    struct op_mem *mem;   /* guarded blocks */
    int n_mem;
    int cap_mem;
};

/* Start a case: its name (printed, and seeding the RNG) and an empty arena. */
void op_test_begin(struct op_test *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Check every sentinel and free the case. */
void op_test_end(struct op_test *t);
/* Free the devices op_test_compute made (a cmocka group teardown). */
int op_test_teardown(void **state);

/* A leaf of type and shape ne in guarded memory, laid out as layout says, its whole memory filled with
 * N(0, 1) values (block types: quantized with the type's reference quantizer, or random blocks whose
 * values are finite when there is none). */
struct vnpu_tensor *op_test_input(struct op_test *t, enum vnpu_type type, const int64_t ne[4], enum op_layout layout);
/* A contiguous leaf in zeroed guarded memory, for inputs the test fills itself (indices, masks). */
struct vnpu_tensor *op_test_leaf(struct op_test *t, enum vnpu_type type, const int64_t ne[4]);

/* Element (i0, i1, i2, i3) of an F32, F16, BF16, I32 or I64 tensor as a double; and stores. */
double op_test_get(const struct vnpu_tensor *x, int64_t i0, int64_t i1, int64_t i2, int64_t i3);
void op_test_set(struct vnpu_tensor *x, int64_t i0, int64_t i1, int64_t i2, int64_t i3, double v);

/* Compute the graph of out (its nodes placed in guarded, NaN-poisoned memory unless they already have
 * data) on 1, 2 and 3 threads; asserts every node is supported, the outputs bitwise identical, the
 * sentinels intact. out keeps the last run's result. */
void op_test_compute(struct op_test *t, struct vnpu_tensor *out);

/* Normalised mean squared error of out against ref (doubles in row-major order of out's ne):
 * sum (out - ref)^2 / sum ref^2 (the plain sum when ref is all zeros). NaN when out has a NaN. */
double op_test_nmse(const struct vnpu_tensor *out, const double *ref);
/* Fail the case unless op_test_nmse(out, ref) <= nmse_max. */
void op_test_check(const struct op_test *t, const struct vnpu_tensor *out, const double *ref, double nmse_max);

/* A double buffer for a reference of n elements (freed with the case). */
double *op_test_ref(struct op_test *t, int64_t n);

/* The types the traits table can dequantize (to_f32 != NULL), in id order; returns the count. */
int op_test_types_with_to_f32(enum vnpu_type types[], int cap);

#endif /* VNPU_OP_TEST_H */
