/*
 * The cases of vnpu-test-ops (the project's test-backend-ops): one table row per case, one table per op
 * family (test-ops-cases.c), each run on the device under test and on the CPU reference.
 *
 * A case prints as OP(type=f32,ne=[5,7,11,13],src1=[5,1,11,1],layout=view,inplace=1) and `vnpu-test-ops
 * -o` with that string runs it again; its input data is seeded from that string. A family that gains an
 * NPU kernel adds its kind (how to build the op's graph) and its rows; no other code changes.
 */
#ifndef VNPU_TEST_OPS_CASES_H
#define VNPU_TEST_OPS_CASES_H

#include "tensor.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How an operand of shape ne lies in memory. */
enum ops_layout {
    OPS_LAYOUT_CONT = 0, /* contiguous */
    OPS_LAYOUT_VIEW = 1, /* a view inside a larger tensor: rows padded by 3 elements, starting one row and one
                            element in (so not 128-byte aligned) */
    OPS_LAYOUT_PERM = 2, /* dims 1 and 2 swapped in memory, rows dense (vnpu_permute(x, 0, 2, 1, 3)) */
};

struct ops_case {
    const char *op;         /* a kind of ops_kinds[] */
    int64_t ne[4];          /* src0's and the result's shape */
    int64_t ne1[4];         /* the second operand's shape (broadcast src1, RMS_NORM_MUL weight, GLU gate) */
    enum ops_layout layout; /* src0's layout (and the result's when inplace) */
    bool inplace;           /* the result overwrites src0 */
    float p[2];             /* op params: eps (RMS_NORM), scale and bias (SCALE) */
    double nmse_max;        /* test-backend-ops' threshold for the op */
    bool quick;             /* in the quick subset (ctest) */
};

/* How to build a kind's graph from its inputs. */
struct ops_kind {
    const char *name;
    int n_src; /* 1 or 2 */
    /* The result of the op on a (and b); the graph's nodes are its ancestors. */
    struct vnpu_tensor *(*build)(struct vnpu_ctx *ctx, const struct ops_case *c, struct vnpu_tensor *a,
                                 struct vnpu_tensor *b);
    /* Inputs drawn from N(0, 1); a kind may reshape operand i's values here (DIV keeps divisors away from 0). */
    float (*input)(int operand, float normal);
};

extern const struct ops_case ops_cases[];
extern const size_t ops_n_cases;

/* The kind named name, NULL if none. */
const struct ops_kind *ops_kind_find(const char *name);

/* The case as its printed string. */
void ops_case_name(const struct ops_case *c, char *buf, size_t size);

#endif /* VNPU_TEST_OPS_CASES_H */
