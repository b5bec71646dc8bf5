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
    OPS_LAYOUT_CONT = 0,  /* contiguous */
    OPS_LAYOUT_VIEW = 1,  /* a view inside a larger tensor: rows padded by 3 elements (a block type: one block),
                             starting one row and one element (block) in (so not 128-byte aligned) */
    OPS_LAYOUT_PERM = 2,  /* dims 1 and 2 swapped in memory, rows dense (vnpu_permute(x, 0, 2, 1, 3)) */
    OPS_LAYOUT_TRANS = 3, /* dims 0 and 1 swapped in memory: elements of a row nb[0] = a row of the owner apart
                             (vnpu_transpose) */
};

/* ROPE's fields of a case (ops_case.rope). */
struct ops_rope {
    int n_dims;        /* rotated elements of each head; 0: all ne[0] */
    int mode;          /* VNPU_ROPE_TYPE_NORMAL or _NEOX */
    bool freq_factors; /* a third operand, F32 [n_dims / 2], divides each pair's angle */
    bool yarn;         /* YaRN scaling: freq_scale 0.25, ext_factor 1, attn_factor 0.8 (else 1, 0, 1) */
    int32_t max_pos;   /* positions drawn from [0, max_pos) */
};

/* SOFT_MAX's and FLASH_ATTN_EXT's fields of a case (ops_case.attn). SOFT_MAX: the mask is ne1 of type1.
 * FLASH_ATTN_EXT: Q is ne, K is ne1 of type1, V is K's shape and type with ne[0] = dv. */
struct ops_attn {
    int64_t dv;               /* V's head size; 0: K's */
    bool mask;                /* a mask [n_kv, n_q + mask_pad, mask_ne[0], mask_ne[1]] of mask_type */
    enum vnpu_type mask_type; /* F16 or F32 */
    int64_t mask_pad;         /* mask rows past n_q */
    int64_t mask_ne[2];       /* the mask's dims 2 and 3, broadcast over Q's; 0 is 1 */
    bool kv_cache;            /* K and V are views of a cache twice as long as n_kv, its heads side by side in a
                                 row, as the llama graph reads its KV cache */
    float softcap;            /* logit_softcap */
    bool all_masked;          /* SOFT_MAX and FLASH_ATTN_EXT: every mask entry -inf (rows that see no key give
                                 zeros) */
};

/* GET_ROWS', SET_ROWS' and CPY's fields of a case (ops_case.rows). */
struct ops_rows {
    enum ops_layout layout1; /* CPY: the destination's layout */
    int64_t ne2[4];          /* SET_ROWS: the destination's shape */
    enum vnpu_type type2;    /* SET_ROWS: the destination's type */
};

/* What narrowing an operand to FP16 on the HMX path must report (ops_mm.fp16). */
enum ops_fp16 {
    OPS_FP16_NONE = 0,     /* nothing: every count 0 (also what every other case must report) */
    OPS_FP16_OVERFLOW = 1, /* n_overflow > 0 for ops_mm.fp16_operand */
    OPS_FP16_FLUSH = 2,    /* n_flush > 0 for ops_mm.fp16_operand */
};

/* MUL_MAT's and MUL_MAT_ID's fields of a case (ops_case.mm). */
struct ops_mm {
    enum ops_layout layout1; /* the activations' layout */
    int64_t n_used;          /* MUL_MAT_ID: experts per token (ids [n_used, n_tokens]) */
    float scale1;            /* the activations' values times this (0: 1), as in_scale for src0 */
    enum ops_fp16 fp16;      /* on HMX: what its FP16 narrowing must report (then its NMSE is not asked for) */
    uint32_t fp16_operand;   /* the operand that reports it (htp-msg.h's enum htp_fp16_operand) */
};

struct ops_case {
    const char *op;         /* a kind of ops_kinds[] */
    int64_t ne[4];          /* src0's and the result's shape */
    int64_t ne1[4];         /* the second operand's shape (broadcast src1, RMS_NORM_MUL weight, GLU gate, SOFT_MAX
                               mask, FLASH_ATTN_EXT K) */
    enum ops_layout layout; /* src0's layout (and the result's when inplace) */
    bool inplace;           /* the result overwrites src0 */
    float p[2];             /* op params: eps (RMS_NORM), scale and bias (SCALE), scale and max_bias (SOFT_MAX,
                               FLASH_ATTN_EXT) */
    double nmse_max;        /* test-backend-ops' threshold for the op */
    bool quick;             /* in the quick subset (ctest) */
    enum vnpu_type type1;   /* the second operand's type (f32 when not set) */
    enum vnpu_type type;    /* src0's type (f32 when not set) */
    bool weight;            /* src0 is a model weight: it lives in the device's weight buffer type (HTP0-REPACK,
                               tiled when its type and shape are) and the reference reads it back from there */
    float in_scale;         /* src0's float values times this (0: 1): magnitudes near the ends of the f32 range */
    float in_special;       /* one src0 element of each row set to this (0: none), at a position that moves from
                               row to row: a NaN or an inf among ordinary values */
    union {                 /* a kind's own fields, printed by its print */
        struct ops_rope rope;
        struct ops_attn attn;
        struct ops_rows rows;
        struct ops_mm mm;
    };
};

#define OPS_MAX_INPUTS 4

/* How to build a kind's graph from its inputs. */
struct ops_kind {
    const char *name;
    int n_src; /* inputs made by default (1: src0 of ne and layout; 2: and src1 of ne1 and type1) */
    /* The result of the op on the inputs in[0..n); the graph's nodes are its ancestors. */
    struct vnpu_tensor *(*build)(struct vnpu_ctx *ctx, const struct ops_case *c, struct vnpu_tensor *const *in);
    /* Input element values from a draw of N(0, 1), converted to each input's type (I32: rounded); NULL keeps
     * the draw. A kind reshapes operand i's values here (DIV keeps divisors away from 0, ROPE draws positions). */
    float (*input)(const struct ops_case *c, int operand, float normal);
    /* Optional: make the inputs in[0..n) itself (any type, views of larger owners), returning n; NULL makes
     * n_src inputs by default. */
    int (*inputs)(struct vnpu_ctx *ctx, const struct ops_case *c, struct vnpu_tensor **in);
    /* Optional: append the kind's own fields to the case string (",n_dims=64,mode=2"); returns the length
     * written, as snprintf. */
    int (*print)(const struct ops_case *c, char *buf, size_t size);
    /* Optional: the value of element e of an integer (I32, I64) operand, from a draw of N(0, 1) (row indices:
     * GET_ROWS any, SET_ROWS distinct within each row of indices); NULL rounds the input value. */
    int64_t (*index)(const struct ops_case *c, int operand, size_t e, float normal);
    /* Optional: the NMSE bound of a case on the matmul path its node took (htp-msg.h's enum htp_rsp_path, as the
     * HTP device reports it: vnpu_htp_node_rsp); NULL, or a device that does not say, keeps nmse_max. */
    double (*nmse_path)(const struct ops_case *c, uint32_t path);
    /* Optional: the NMSE bound of a case on an XDNA device (xdna-host.h: the operands rounded to bf16, or to BFP16
     * when bfp16); NULL keeps nmse_max. */
    double (*nmse_xdna)(const struct ops_case *c, bool bfp16);
};

extern const struct ops_case ops_cases[];
extern const size_t ops_n_cases;

/* The kind named name, NULL if none. */
const struct ops_kind *ops_kind_find(const char *name);

/* Make case c's inputs of kind k in ctx: in[0..n), returns n (<= OPS_MAX_INPUTS). Each is an owner or a view
 * of one (views: view_src set). */
int ops_case_inputs(struct vnpu_ctx *ctx, const struct ops_case *c, const struct ops_kind *k, struct vnpu_tensor **in);

/* The case as its printed string. */
void ops_case_name(const struct ops_case *c, char *buf, size_t size);

#endif /* VNPU_TEST_OPS_CASES_H */
