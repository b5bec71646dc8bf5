/*
 * The case tables of vnpu-test-ops. Shapes cover what a kernel must get right: odd sizes and single
 * elements, rows not a multiple of the HVX vector, ne1 not a multiple of 32, single rows, every kind of
 * src1 broadcast (same shape, per dimension, one row, one element, ne10 dividing ne0), views with padded
 * unaligned rows, permuted operands and results, in-place results, and sizes that spread over every
 * worker and many DMA blocks.
 *
 * Thresholds are test-backend-ops' (max_nmse_err): 1e-7 for these F32 ops.
 */
#include "test-ops-cases.h"

#include "htp-msg.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- operands ---- */

static const char *const ops_layout_names[] = {
    [OPS_LAYOUT_CONT] = "cont",
    [OPS_LAYOUT_VIEW] = "view",
    [OPS_LAYOUT_PERM] = "perm",
    [OPS_LAYOUT_TRANS] = "trans",
};

/* An operand of type and shape ne laid out as layout: a new owner tensor, or a view of one. */
static struct vnpu_tensor *ops_operand(struct vnpu_ctx *ctx, enum vnpu_type type, const int64_t ne[4],
                                       enum ops_layout layout) {
    switch (layout) {
        case OPS_LAYOUT_CONT: return vnpu_new_tensor_4d(ctx, type, ne[0], ne[1], ne[2], ne[3]);
        case OPS_LAYOUT_VIEW: {
            const int64_t blck = vnpu_type_traits_get(type)->blck;
            struct vnpu_tensor *o =
                vnpu_new_tensor_4d(ctx, type, ne[0] + (blck > 1 ? blck : 3), ne[1] + 1, ne[2], ne[3]);
            return vnpu_view_4d(ctx, o, ne[0], ne[1], ne[2], ne[3], o->nb[1], o->nb[2], o->nb[3], o->nb[1] + o->nb[0]);
        }
        case OPS_LAYOUT_PERM: {
            struct vnpu_tensor *o = vnpu_new_tensor_4d(ctx, type, ne[0], ne[2], ne[1], ne[3]);
            return vnpu_permute(ctx, o, 0, 2, 1, 3);
        }
        case OPS_LAYOUT_TRANS: {
            struct vnpu_tensor *o = vnpu_new_tensor_4d(ctx, type, ne[1], ne[0], ne[2], ne[3]);
            return vnpu_transpose(ctx, o);
        }
    }
    return NULL;
}

int ops_case_inputs(struct vnpu_ctx *ctx, const struct ops_case *c, const struct ops_kind *k, struct vnpu_tensor **in) {
    if (k->inputs) {
        return k->inputs(ctx, c, in);
    }
    in[0] = ops_operand(ctx, c->type, c->ne, c->layout);
    if (k->n_src > 1) {
        in[1] = ops_operand(ctx, c->type1, c->ne1, OPS_LAYOUT_CONT);
    }
    return k->n_src;
}

/* ---- kinds ---- */

static struct vnpu_tensor *build_add(struct vnpu_ctx *ctx, const struct ops_case *c, struct vnpu_tensor *const *in) {
    (void) c;
    return vnpu_add(ctx, in[0], in[1]);
}

static struct vnpu_tensor *build_sub(struct vnpu_ctx *ctx, const struct ops_case *c, struct vnpu_tensor *const *in) {
    (void) c;
    return vnpu_sub(ctx, in[0], in[1]);
}

static struct vnpu_tensor *build_mul(struct vnpu_ctx *ctx, const struct ops_case *c, struct vnpu_tensor *const *in) {
    (void) c;
    return vnpu_mul(ctx, in[0], in[1]);
}

static struct vnpu_tensor *build_div(struct vnpu_ctx *ctx, const struct ops_case *c, struct vnpu_tensor *const *in) {
    (void) c;
    return vnpu_div(ctx, in[0], in[1]);
}

static struct vnpu_tensor *build_scale(struct vnpu_ctx *ctx, const struct ops_case *c, struct vnpu_tensor *const *in) {
    return vnpu_scale_bias(ctx, in[0], c->p[0], c->p[1]);
}

static struct vnpu_tensor *build_rms_norm(struct vnpu_ctx *ctx, const struct ops_case *c,
                                          struct vnpu_tensor *const *in) {
    return vnpu_rms_norm(ctx, in[0], c->p[0]);
}

/* RMS_NORM then MUL by a weight: the pair an NPU fuses. */
static struct vnpu_tensor *build_rms_norm_mul(struct vnpu_ctx *ctx, const struct ops_case *c,
                                              struct vnpu_tensor *const *in) {
    return vnpu_mul(ctx, vnpu_rms_norm(ctx, in[0], c->p[0]), in[1]);
}

static struct vnpu_tensor *build_silu(struct vnpu_ctx *ctx, const struct ops_case *c, struct vnpu_tensor *const *in) {
    (void) c;
    return vnpu_silu(ctx, in[0]);
}

static struct vnpu_tensor *build_gelu(struct vnpu_ctx *ctx, const struct ops_case *c, struct vnpu_tensor *const *in) {
    (void) c;
    return vnpu_gelu(ctx, in[0]);
}

static struct vnpu_tensor *build_swiglu(struct vnpu_ctx *ctx, const struct ops_case *c, struct vnpu_tensor *const *in) {
    (void) c;
    return vnpu_swiglu_split(ctx, in[0], in[1]);
}

/* DIV: divisors of magnitude 0.5..2.5, so the quotients measure the division and not the data. */
static float input_div(const struct ops_case *c, int operand, float normal) {
    (void) c;
    return operand == 1 ? (normal < 0 ? -0.5f : 0.5f) + normal * 0.5f : normal;
}

/* Activations: N(0, 3^2), reaching where sigmoid saturates. */
static float input_act(const struct ops_case *c, int operand, float normal) {
    (void) c, (void) operand;
    return 3.0f * normal;
}

/* ---- rows and copies: GET_ROWS, SET_ROWS, CPY, CONT ---- */

/* GET_ROWS: table src0 (type, layout, maybe a weight) [ne0, rows, ne2, ne3], I32 indices ne1 = [n, ne2, ne3, 1]. */
static int inputs_get_rows(struct vnpu_ctx *ctx, const struct ops_case *c, struct vnpu_tensor **in) {
    in[0] = ops_operand(ctx, c->type, c->ne, c->layout);
    in[1] = ops_operand(ctx, VNPU_TYPE_I32, c->ne1, OPS_LAYOUT_CONT);
    return 2;
}

static struct vnpu_tensor *build_get_rows(struct vnpu_ctx *ctx, const struct ops_case *c,
                                          struct vnpu_tensor *const *in) {
    (void) c;
    return vnpu_get_rows(ctx, in[0], in[1]);
}

/* Any row of the table, repeats allowed: the normal draw through its CDF. */
static int64_t index_get_rows(const struct ops_case *c, int operand, size_t e, float normal) {
    (void) operand, (void) e;
    const double u = 0.5 * (1.0 + erf(normal / sqrt(2.0)));
    const int64_t i = (int64_t) (u * (double) c->ne[1]);
    return i < c->ne[1] ? i : c->ne[1] - 1;
}

/* SET_ROWS: F32 rows src0 [ne0, n, ne2, ne3], indices ne1 = [n, ne2 / k, ne3 / l, 1] of type1 (I32, I64), the
 * destination ne2 of type2 (F16, F32) [ne0, rows, ne2, ne3]. */
static int inputs_set_rows(struct vnpu_ctx *ctx, const struct ops_case *c, struct vnpu_tensor **in) {
    in[0] = ops_operand(ctx, VNPU_TYPE_F32, c->ne, c->layout);
    in[1] = ops_operand(ctx, c->type1, c->ne1, OPS_LAYOUT_CONT);
    in[2] = ops_operand(ctx, c->rows.type2, c->rows.ne2, OPS_LAYOUT_CONT);
    return 3;
}

static struct vnpu_tensor *build_set_rows(struct vnpu_ctx *ctx, const struct ops_case *c,
                                          struct vnpu_tensor *const *in) {
    (void) c;
    return vnpu_set_rows(ctx, in[2], in[0], in[1]);
}

/* Destination rows distinct within each row of indices: i -> (i * step + row) mod rows, step coprime to rows. */
static int64_t index_set_rows(const struct ops_case *c, int operand, size_t e, float normal) {
    (void) operand, (void) normal;
    const int64_t rows = c->rows.ne2[1], n = c->ne1[0];
    int64_t step = rows / 2 + 1, a = step, b = rows;
    while (b != 0) { /* gcd(step, rows) */
        const int64_t t = a % b;
        a = b;
        b = t;
    }
    step = a == 1 ? step : 1;
    return ((int64_t) (e % (size_t) n) * step + (int64_t) (e / (size_t) n)) % rows;
}

static int print_set_rows(const struct ops_case *c, char *buf, size_t size) {
    const int64_t *ne = c->rows.ne2;
    return snprintf(buf, size, ",dst=[%lld,%lld,%lld,%lld],type2=%s", (long long) ne[0], (long long) ne[1],
                    (long long) ne[2], (long long) ne[3], vnpu_type_name(c->rows.type2));
}

/* CPY: src0 (type, layout) into a destination of type1, shape ne1 (src0's when not set) and layout1. */
static int inputs_cpy(struct vnpu_ctx *ctx, const struct ops_case *c, struct vnpu_tensor **in) {
    in[0] = ops_operand(ctx, c->type, c->ne, c->layout);
    in[1] = ops_operand(ctx, c->type1, c->ne1[0] ? c->ne1 : c->ne, c->rows.layout1);
    return 2;
}

static struct vnpu_tensor *build_cpy(struct vnpu_ctx *ctx, const struct ops_case *c, struct vnpu_tensor *const *in) {
    (void) c;
    return vnpu_cpy(ctx, in[0], in[1]);
}

static int print_cpy(const struct ops_case *c, char *buf, size_t size) {
    return c->rows.layout1 != OPS_LAYOUT_CONT ? snprintf(buf, size, ",layout1=%s", ops_layout_names[c->rows.layout1])
                                              : 0;
}

static int inputs_cont(struct vnpu_ctx *ctx, const struct ops_case *c, struct vnpu_tensor **in) {
    in[0] = ops_operand(ctx, c->type, c->ne, c->layout);
    return 1;
}

static struct vnpu_tensor *build_cont(struct vnpu_ctx *ctx, const struct ops_case *c, struct vnpu_tensor *const *in) {
    (void) c;
    return vnpu_cont(ctx, in[0]);
}

/* ---- MUL_MAT ---- */

/* MUL_MAT: weight src0 (type, layout, maybe a weight) [K, N, ne02, ne03] x F32 activations ne1 = [K, M, ne12, ne13]
 * laid out as mm.layout1. */
static int inputs_mul_mat(struct vnpu_ctx *ctx, const struct ops_case *c, struct vnpu_tensor **in) {
    in[0] = ops_operand(ctx, c->type, c->ne, c->layout);
    in[1] = ops_operand(ctx, VNPU_TYPE_F32, c->ne1, c->mm.layout1);
    return 2;
}

static struct vnpu_tensor *build_mul_mat(struct vnpu_ctx *ctx, const struct ops_case *c,
                                         struct vnpu_tensor *const *in) {
    (void) c;
    return vnpu_mul_mat(ctx, in[0], in[1]);
}

static int print_mul_mat(const struct ops_case *c, char *buf, size_t size) {
    int n = c->mm.layout1 != OPS_LAYOUT_CONT ? snprintf(buf, size, ",layout1=%s", ops_layout_names[c->mm.layout1]) : 0;
    if (c->mm.scale1 != 0.0f) {
        n += snprintf(buf + n, size - (size_t) n, ",scale1=%g", (double) c->mm.scale1);
    }
    return n;
}

/* The activations (operand 1) times mm.scale1. */
static float input_mul_mat(const struct ops_case *c, int operand, float normal) {
    return operand == 1 && c->mm.scale1 != 0.0f ? normal * c->mm.scale1 : normal;
}

static double nmse_path_mul_mat(const struct ops_case *c, uint32_t path);
static double nmse_xdna_mul_mat(const struct ops_case *c, bool bfp16);

/* MUL_MAT_ID: experts' weights src0 (type, maybe a weight) [K, M, n_expert, 1], F32 activations ne1 = [K, ne11,
 * n_tokens, 1] (ne11 = n_used, or 1: one row per token broadcast over its slots), ids I32 [mm.n_used, n_tokens]. */
static int inputs_mul_mat_id(struct vnpu_ctx *ctx, const struct ops_case *c, struct vnpu_tensor **in) {
    const int64_t ne_ids[4] = {c->mm.n_used, c->ne1[2], 1, 1};
    in[0] = ops_operand(ctx, c->type, c->ne, c->layout);
    in[1] = ops_operand(ctx, VNPU_TYPE_F32, c->ne1, OPS_LAYOUT_CONT);
    in[2] = ops_operand(ctx, VNPU_TYPE_I32, ne_ids, OPS_LAYOUT_CONT);
    return 3;
}

static struct vnpu_tensor *build_mul_mat_id(struct vnpu_ctx *ctx, const struct ops_case *c,
                                            struct vnpu_tensor *const *in) {
    (void) c;
    return vnpu_mul_mat_id(ctx, in[0], in[1], in[2]);
}

/* Random experts, repeats allowed (within a token too), expert 1 never: the NPU must skip an unused expert. */
static int64_t index_mul_mat_id(const struct ops_case *c, int operand, size_t e, float normal) {
    (void) operand, (void) e;
    const int64_t n_expert = c->ne[2];
    const double u = 0.5 * (1.0 + erf(normal / sqrt(2.0)));
    int64_t x = (int64_t) (u * (double) (n_expert - 1));
    x = x < n_expert - 1 ? x : n_expert - 2;
    return x >= 1 ? x + 1 : x;
}

static int print_mul_mat_id(const struct ops_case *c, char *buf, size_t size) {
    const int n = snprintf(buf, size, ",n_used=%lld", (long long) c->mm.n_used);
    return n + print_mul_mat(c, buf + n, size - (size_t) n);
}

/* ---- attention: ROPE, SOFT_MAX, FLASH_ATTN_EXT ---- */

/* ROPE: rows src0 (layout) [head_dim, n_head, n_tokens, ne3], I32 positions [n_tokens], freq factors F32
 * [n_dims / 2] when the case has them. */
static int rope_n_dims(const struct ops_case *c) {
    return c->rope.n_dims ? c->rope.n_dims : (int) c->ne[0];
}

static int inputs_rope(struct vnpu_ctx *ctx, const struct ops_case *c, struct vnpu_tensor **in) {
    const int64_t pos[4] = {c->ne[2], 1, 1, 1}, freq[4] = {rope_n_dims(c) / 2, 1, 1, 1};
    in[0] = ops_operand(ctx, VNPU_TYPE_F32, c->ne, c->layout);
    in[1] = ops_operand(ctx, VNPU_TYPE_I32, pos, OPS_LAYOUT_CONT);
    if (!c->rope.freq_factors) {
        return 2;
    }
    in[2] = ops_operand(ctx, VNPU_TYPE_F32, freq, OPS_LAYOUT_CONT);
    return 3;
}

/* freq_base 10000; YaRN as llama.cpp scales a 4096-token model by 4 (beta_fast 32, beta_slow 1). */
static struct vnpu_tensor *build_rope(struct vnpu_ctx *ctx, const struct ops_case *c, struct vnpu_tensor *const *in) {
    const bool yarn = c->rope.yarn;
    return vnpu_rope_ext(ctx, in[0], in[1], c->rope.freq_factors ? in[2] : NULL, rope_n_dims(c), c->rope.mode, 4096,
                         10000.0f, yarn ? 0.25f : 1.0f, yarn ? 1.0f : 0.0f, yarn ? 0.8f : 1.0f, 32.0f, 1.0f);
}

/* Positions uniform in [0, max_pos); freq factors 1..4, as llama 3's long-context factors. */
static float input_rope(const struct ops_case *c, int operand, float normal) {
    if (operand == 1) {
        const double u = 0.5 * (1.0 + erf(normal / sqrt(2.0)));
        return (float) fmin(floor(u * c->rope.max_pos), c->rope.max_pos - 1);
    }
    return operand == 2 ? 1.0f + fabsf(normal) : normal;
}

static int print_rope(const struct ops_case *c, char *buf, size_t size) {
    return snprintf(buf, size, ",n_dims=%d,mode=%d%s%s,pos=%d", rope_n_dims(c), c->rope.mode,
                    c->rope.freq_factors ? ",ff=1" : "", c->rope.yarn ? ",yarn=1" : "", (int) c->rope.max_pos);
}

/* Masks: 0.5 N(0, 1) with about one entry in six -inf (every one with all_masked). */
static float input_mask(const struct ops_case *c, float normal) {
    return c->attn.all_masked || normal > 1.0f ? -INFINITY : 0.5f * normal;
}

/* SOFT_MAX: src0 (layout), the mask ne1 of type1 when ne1 is set; p = scale, max_bias. */
static int inputs_soft_max(struct vnpu_ctx *ctx, const struct ops_case *c, struct vnpu_tensor **in) {
    in[0] = ops_operand(ctx, VNPU_TYPE_F32, c->ne, c->layout);
    if (!c->ne1[0]) {
        return 1;
    }
    in[1] = ops_operand(ctx, c->type1, c->ne1, OPS_LAYOUT_CONT);
    return 2;
}

static struct vnpu_tensor *build_soft_max(struct vnpu_ctx *ctx, const struct ops_case *c,
                                          struct vnpu_tensor *const *in) {
    return vnpu_soft_max_ext(ctx, in[0], c->ne1[0] ? in[1] : NULL, c->p[0], c->p[1]);
}

/* Logits N(0, 3^2): softmax rows from flat to peaked. */
static float input_soft_max(const struct ops_case *c, int operand, float normal) {
    return operand == 1 ? input_mask(c, normal) : 3.0f * normal;
}

static int print_attn_masked(const struct ops_case *c, char *buf, size_t size) {
    return c->attn.all_masked ? snprintf(buf, size, ",masked=all") : 0;
}

/* FLASH_ATTN_EXT: Q (layout) [D, n_q, n_head, ne3]; K ne1 and V (head size dv) of type1, contiguous or views of
 * a KV cache; the mask when the case has one. */
static struct vnpu_tensor *inputs_attn_kv(struct vnpu_ctx *ctx, const struct ops_case *c, int64_t d) {
    const int64_t *ne = c->ne1;
    if (!c->attn.kv_cache) {
        const int64_t shape[4] = {d, ne[1], ne[2], ne[3]};
        return ops_operand(ctx, c->type1, shape, OPS_LAYOUT_CONT);
    }
    struct vnpu_tensor *cache = vnpu_new_tensor_2d(ctx, c->type1, d * ne[2], 2 * ne[1]);
    return vnpu_view_3d(ctx, cache, d, ne[1], ne[2], cache->nb[1], vnpu_row_size(c->type1, d), 0);
}

static int inputs_attn(struct vnpu_ctx *ctx, const struct ops_case *c, struct vnpu_tensor **in) {
    in[0] = ops_operand(ctx, VNPU_TYPE_F32, c->ne, c->layout);
    in[1] = inputs_attn_kv(ctx, c, c->ne1[0]);
    in[2] = inputs_attn_kv(ctx, c, c->attn.dv ? c->attn.dv : c->ne1[0]);
    if (!c->attn.mask) {
        return 3;
    }
    const int64_t *m = c->attn.mask_ne;
    const int64_t mask[4] = {c->ne1[1], c->ne[1] + c->attn.mask_pad, m[0] ? m[0] : 1, m[1] ? m[1] : 1};
    in[3] = ops_operand(ctx, c->attn.mask_type, mask, OPS_LAYOUT_CONT);
    return 4;
}

static struct vnpu_tensor *build_attn(struct vnpu_ctx *ctx, const struct ops_case *c, struct vnpu_tensor *const *in) {
    return vnpu_flash_attn_ext(ctx, in[0], in[1], in[2], c->attn.mask ? in[3] : NULL, c->p[0], c->p[1],
                               c->attn.softcap);
}

static float input_attn(const struct ops_case *c, int operand, float normal) {
    return operand == 3 ? input_mask(c, normal) : normal;
}

static int print_attn(const struct ops_case *c, char *buf, size_t size) {
    const struct ops_attn *a = &c->attn;
    int n = snprintf(buf, size, ",dv=%lld", (long long) (a->dv ? a->dv : c->ne1[0]));
    if (a->mask) {
        n += snprintf(buf + n, size - (size_t) n, ",mask=%s[%lld,%lld],mask_pad=%lld", vnpu_type_name(a->mask_type),
                      (long long) (a->mask_ne[0] ? a->mask_ne[0] : 1), (long long) (a->mask_ne[1] ? a->mask_ne[1] : 1),
                      (long long) a->mask_pad);
    }
    if (a->kv_cache) {
        n += snprintf(buf + n, size - (size_t) n, ",kv=cache");
    }
    if (a->softcap != 0.0f) {
        n += snprintf(buf + n, size - (size_t) n, ",softcap=%g", (double) a->softcap);
    }
    return n + print_attn_masked(c, buf + n, size - (size_t) n);
}

static const struct ops_kind ops_kinds[] = {
    {.name = "ADD", .n_src = 2, .build = build_add},
    {.name = "SUB", .n_src = 2, .build = build_sub},
    {.name = "MUL", .n_src = 2, .build = build_mul},
    {.name = "DIV", .n_src = 2, .build = build_div, .input = input_div},
    {.name = "SCALE", .n_src = 1, .build = build_scale},
    {.name = "RMS_NORM", .n_src = 1, .build = build_rms_norm},
    {.name = "RMS_NORM_MUL", .n_src = 2, .build = build_rms_norm_mul},
    {.name = "SILU", .n_src = 1, .build = build_silu, .input = input_act},
    {.name = "GELU", .n_src = 1, .build = build_gelu, .input = input_act},
    {.name = "SWIGLU", .n_src = 2, .build = build_swiglu, .input = input_act},
    {.name = "ROPE", .build = build_rope, .input = input_rope, .inputs = inputs_rope, .print = print_rope},
    {.name = "SOFT_MAX",
     .build = build_soft_max,
     .input = input_soft_max,
     .inputs = inputs_soft_max,
     .print = print_attn_masked},
    {.name = "FLASH_ATTN_EXT", .build = build_attn, .input = input_attn, .inputs = inputs_attn, .print = print_attn},
    {.name = "GET_ROWS", .build = build_get_rows, .inputs = inputs_get_rows, .index = index_get_rows},
    {.name = "SET_ROWS",
     .build = build_set_rows,
     .inputs = inputs_set_rows,
     .print = print_set_rows,
     .index = index_set_rows},
    {.name = "CPY", .build = build_cpy, .inputs = inputs_cpy, .print = print_cpy},
    {.name = "CONT", .build = build_cont, .inputs = inputs_cont},
    {.name = "MUL_MAT",
     .build = build_mul_mat,
     .input = input_mul_mat,
     .inputs = inputs_mul_mat,
     .print = print_mul_mat,
     .nmse_path = nmse_path_mul_mat,
     .nmse_xdna = nmse_xdna_mul_mat},
    {.name = "MUL_MAT_ID",
     .build = build_mul_mat_id,
     .input = input_mul_mat,
     .inputs = inputs_mul_mat_id,
     .print = print_mul_mat_id,
     .index = index_mul_mat_id,
     .nmse_path = nmse_path_mul_mat},
};

const struct ops_kind *ops_kind_find(const char *name) {
    for (size_t i = 0; i < sizeof(ops_kinds) / sizeof(ops_kinds[0]); i++) {
        if (strcmp(ops_kinds[i].name, name) == 0) {
            return &ops_kinds[i];
        }
    }
    return NULL;
}

/* ---- the tables ---- */

#define NMSE_F32 1e-7

/* ADD, SUB, MUL, DIV: src1 = the same shape, broadcast per dimension, one row, one element, ne10 | ne0. */
/* clang-format off */
#define BINARY_ROWS(OP)                                                                                        \
    {OP, {5, 7, 11, 13},    {5, 7, 11, 13},    .nmse_max = NMSE_F32, .quick = true},                            \
    {OP, {5, 7, 11, 13},    {5, 1, 11, 1},     .nmse_max = NMSE_F32, .quick = true},                            \
    {OP, {5, 7, 11, 13},    {5, 7, 1, 1},      .nmse_max = NMSE_F32},                                           \
    {OP, {64, 33, 3, 2},    {64, 1, 1, 1},     .nmse_max = NMSE_F32, .quick = true},                            \
    {OP, {64, 33, 3, 2},    {1, 1, 1, 1},      .nmse_max = NMSE_F32},                                           \
    {OP, {10, 6, 4, 1},     {5, 3, 2, 1},      .nmse_max = NMSE_F32, .quick = true},                            \
    {OP, {4099, 1, 1, 1},   {4099, 1, 1, 1},   .nmse_max = NMSE_F32},                                           \
    {OP, {1, 1, 1, 1},      {1, 1, 1, 1},      .nmse_max = NMSE_F32},                                           \
    {OP, {33, 31, 1, 1},    {33, 31, 1, 1},    OPS_LAYOUT_VIEW, .nmse_max = NMSE_F32, .quick = true},           \
    {OP, {33, 31, 5, 1},    {33, 1, 5, 1},     OPS_LAYOUT_PERM, .nmse_max = NMSE_F32, .quick = true},           \
    {OP, {64, 20, 3, 1},    {64, 20, 3, 1},    .inplace = true, .nmse_max = NMSE_F32},                          \
    {OP, {70, 20, 3, 1},    {70, 1, 1, 1},     OPS_LAYOUT_PERM, .inplace = true, .nmse_max = NMSE_F32},         \
    {OP, {4096, 67, 1, 1},  {4096, 1, 1, 1},   .nmse_max = NMSE_F32},                                           \
    {OP, {128, 1000, 3, 1}, {128, 1000, 3, 1}, .nmse_max = NMSE_F32},                                           \
    {OP, {96, 50, 7, 1},    {96, 50, 1, 1},    OPS_LAYOUT_VIEW, .nmse_max = NMSE_F32},                          \
    {OP, {256, 300, 5, 1},  {256, 1, 5, 1},    OPS_LAYOUT_PERM, .nmse_max = NMSE_F32},                          \
    {OP, {1000, 300, 2, 1}, {500, 300, 1, 1},  .nmse_max = NMSE_F32}

/* CPY and CONT: every pair of F32/F16, odd and single sizes, views, permuted and transposed operands on either
 * side, reshaping copies (one side contiguous), rows wider than a task (chunked) and many rows. F16 <-> F32
 * converts exactly as the CPU (round to nearest even), a same-type copy moves bits: NMSE 0 asks for equal
 * values. */
#define COPY_ROWS                                                                                                     \
    {"CPY", {5, 7, 11, 13}, .nmse_max = 0, .quick = true},                                                          \
    {"CPY", {5, 7, 11, 13}, .type1 = VNPU_TYPE_F16, .nmse_max = 0, .quick = true},                                  \
    {"CPY", {33, 31, 5, 1}, .type = VNPU_TYPE_F16, .nmse_max = 0, .quick = true},                                   \
    {"CPY", {33, 31, 5, 1}, .type = VNPU_TYPE_F16, .type1 = VNPU_TYPE_F16, .nmse_max = 0},                          \
    {"CPY", {1, 1, 1, 1}, .type1 = VNPU_TYPE_F16, .nmse_max = 0},                                                   \
    {"CPY", {33, 31, 1, 1}, .layout = OPS_LAYOUT_VIEW, .type1 = VNPU_TYPE_F16, .nmse_max = 0, .quick = true},       \
    {"CPY", {33, 31, 5, 1}, .layout = OPS_LAYOUT_PERM, .nmse_max = 0},                                              \
    {"CPY", {64, 33, 3, 1}, .layout = OPS_LAYOUT_TRANS, .type1 = VNPU_TYPE_F16, .nmse_max = 0, .quick = true},      \
    {"CPY", {64, 33, 3, 1}, .type = VNPU_TYPE_F16, .nmse_max = 0, .rows.layout1 = OPS_LAYOUT_TRANS},                \
    {"CPY", {70, 20, 3, 1}, .layout = OPS_LAYOUT_VIEW, .nmse_max = 0, .rows.layout1 = OPS_LAYOUT_PERM},             \
    {"CPY", {64, 33, 3, 1}, {33, 64, 3, 1}, .type1 = VNPU_TYPE_F16, .nmse_max = 0, .quick = true},                  \
    {"CPY", {64, 33, 3, 1}, {6336, 1, 1, 1}, .layout = OPS_LAYOUT_PERM, .type1 = VNPU_TYPE_F16, .nmse_max = 0},     \
    {"CPY", {100, 30, 1, 1}, {3000, 1, 1, 1}, .type = VNPU_TYPE_F16, .nmse_max = 0, .rows.layout1 = OPS_LAYOUT_VIEW}, \
    {"CPY", {4099, 3, 1, 1}, .type1 = VNPU_TYPE_F16, .nmse_max = 0},                                                \
    {"CPY", {70000, 2, 1, 1}, .type = VNPU_TYPE_F16, .nmse_max = 0},                                                \
    {"CPY", {128, 1000, 3, 1}, .nmse_max = 0},                                                                      \
    {"CPY", {128, 1000, 3, 1}, .type1 = VNPU_TYPE_F16, .nmse_max = 0},                                              \
    {"CONT", {33, 31, 5, 1}, .layout = OPS_LAYOUT_PERM, .nmse_max = 0, .quick = true},                              \
    {"CONT", {40, 64, 4, 1}, .layout = OPS_LAYOUT_TRANS, .type = VNPU_TYPE_F16, .nmse_max = 0, .quick = true},      \
    {"CONT", {33, 31, 1, 1}, .layout = OPS_LAYOUT_VIEW, .type = VNPU_TYPE_F16, .nmse_max = 0},                      \
    {"CONT", {256, 300, 5, 1}, .layout = OPS_LAYOUT_PERM, .nmse_max = 0}

/* GET_ROWS from F32 and F16 tables: odd and single sizes, ne1 not a multiple of 32, indices over dims 2 and 3,
 * views and permuted tables, rows wider than a task, many rows with repeats. Exact. */
#define GET_ROWS_FLOAT(T)                                                                                            \
    {"GET_ROWS", {5, 7, 3, 2}, {4, 3, 2, 1}, .type = T, .nmse_max = 0, .quick = true},                              \
    {"GET_ROWS", {1, 1, 1, 1}, {1, 1, 1, 1}, .type = T, .nmse_max = 0},                                             \
    {"GET_ROWS", {33, 31, 1, 1}, {9, 1, 1, 1}, OPS_LAYOUT_VIEW, .type = T, .nmse_max = 0, .quick = true},           \
    {"GET_ROWS", {40, 20, 3, 1}, {6, 3, 1, 1}, OPS_LAYOUT_PERM, .type = T, .nmse_max = 0},                          \
    {"GET_ROWS", {4096, 100, 1, 1}, {7, 1, 1, 1}, .type = T, .nmse_max = 0},                                        \
    {"GET_ROWS", {70000, 3, 1, 1}, {2, 1, 1, 1}, .type = T, .nmse_max = 0},                                         \
    {"GET_ROWS", {64, 50, 1, 1}, {1000, 1, 1, 1}, .type = T, .nmse_max = 0}

/* GET_ROWS from a quantized table (ne0 a multiple of every block size), flat and as a weight (tiled when the
 * device's weight buffers repack it): ne1 not a multiple of 32, indices over dims 2 and 3, views, rows wider than
 * a task (chunks of GR_CHUNK_MAX), many rows. Each value is GGML's dequantization to the bit (the reference reads
 * a weight back from the device, so a tiled weight's derived scales are what both sides use): NMSE 0, but for
 * the K-quants that store derived F16 scales (src/repack/repack.h), whose unpacked scales GGML may round once
 * more: NMSE_KQ_TILED. Each derived scale (d * sc, and dmin * m of Q4_K/Q5_K) is off by at most two F16 roundings,
 * 2 * 2^-11 relative, so |error| <= 2^-10 (|d sc q| + |dmin m|) per value and NMSE <= 2^-20 (about 9.5e-7) times
 * the mean of (|d sc q| + |dmin m|)^2 / y^2, which the mins of Q4_K/Q5_K make larger than 1 where they cancel the
 * scaled codes; measured: at most 5.5e-7 (Q4_K), 4.9e-7 (Q5_K). */
#define NMSE_KQ_TILED 2e-6
#define GET_ROWS_QUANT(T, NMSE_TILED)                                                                                \
    {"GET_ROWS", {256, 33, 1, 1}, {5, 1, 1, 1}, .type = T, .nmse_max = 0, .quick = true},                           \
    {"GET_ROWS", {768, 40, 2, 3}, {7, 2, 3, 1}, .type = T, .nmse_max = 0},                                          \
    {"GET_ROWS", {256, 33, 1, 1}, {5, 1, 1, 1}, OPS_LAYOUT_VIEW, .type = T, .nmse_max = 0},                         \
    {"GET_ROWS", {8192, 40, 1, 1}, {3, 1, 1, 1}, .type = T, .nmse_max = 0},                                         \
    {"GET_ROWS", {256, 33, 1, 1}, {300, 1, 1, 1}, .type = T, .nmse_max = 0},                                        \
    {"GET_ROWS", {256, 33, 1, 1}, {5, 1, 1, 1}, .type = T, .weight = true, .nmse_max = NMSE_TILED, .quick = true},  \
    {"GET_ROWS", {768, 40, 2, 1}, {7, 2, 1, 1}, .type = T, .weight = true, .nmse_max = NMSE_TILED},                 \
    {"GET_ROWS", {8192, 70, 1, 1}, {9, 1, 1, 1}, .type = T, .weight = true, .nmse_max = NMSE_TILED}

/* SET_ROWS: F32 rows into F16 (the KV cache) and F32 destinations by I64 and I32 indices, indices broadcast over
 * dims 2 and 3, odd and single sizes, views and permuted rows, rows wider than a task, many rows. Exact. */
#define SET_ROWS_ROWS(T2, T1)                                                                                         \
    {"SET_ROWS", {64, 5, 1, 1}, {5, 1, 1, 1}, .type1 = T1, .nmse_max = 0, .quick = true,                            \
     .rows = {.ne2 = {64, 20, 1, 1}, .type2 = T2}},                                                                 \
    {"SET_ROWS", {33, 31, 3, 1}, {31, 3, 1, 1}, .type1 = T1, .nmse_max = 0, .rows = {.ne2 = {33, 64, 3, 1}, .type2 = T2}}, \
    {"SET_ROWS", {32, 3, 4, 2}, {3, 2, 1, 1}, .type1 = T1, .nmse_max = 0, .quick = true,                            \
     .rows = {.ne2 = {32, 10, 4, 2}, .type2 = T2}},                                                                 \
    {"SET_ROWS", {1, 1, 1, 1}, {1, 1, 1, 1}, .type1 = T1, .nmse_max = 0, .rows = {.ne2 = {1, 1, 1, 1}, .type2 = T2}},  \
    {"SET_ROWS", {33, 7, 1, 1}, {7, 1, 1, 1}, OPS_LAYOUT_VIEW, .type1 = T1, .nmse_max = 0,                          \
     .rows = {.ne2 = {33, 9, 1, 1}, .type2 = T2}},                                                                  \
    {"SET_ROWS", {40, 6, 3, 1}, {6, 3, 1, 1}, OPS_LAYOUT_PERM, .type1 = T1, .nmse_max = 0,                          \
     .rows = {.ne2 = {40, 11, 3, 1}, .type2 = T2}},                                                                 \
    {"SET_ROWS", {4099, 2, 1, 1}, {2, 1, 1, 1}, .type1 = T1, .nmse_max = 0, .rows = {.ne2 = {4099, 7, 1, 1}, .type2 = T2}}, \
    {"SET_ROWS", {128, 300, 1, 1}, {300, 1, 1, 1}, .type1 = T1, .nmse_max = 0,                                      \
     .rows = {.ne2 = {128, 1000, 1, 1}, .type2 = T2}}

/* MUL_MAT and MUL_MAT_ID bounds. Block types: test-backend-ops' threshold, NMSE_MM (their activations are quantized
 * to 8 bits on the NPU, not on the CPU reference). F32 and F16 weights: what the arithmetic of the paths a case can
 * take allows against the CPU reference (src/cpu/cpu-matmul.c: the weight in f32, an F16 one exactly, f32
 * activations, each dot product in double rounded once to f32). The inputs are N(0, 1), weights and activations,
 * so a dot product y of length K has E[y^2] = K.
 *
 * A rounding to nearest with p significant bits has a relative error d with E[d^2] = 2^(2 - 2p) / 12 * E[1/m^2] for
 * the significand m in [1, 2) of the value rounded; E[1/m^2] = 3 / (8 ln 2) = 0.541 for significands spread as a
 * normal sample's and its products' are (logarithmically), so E[d^2] is E32 = 6.4e-16 for f32 (p = 24) and
 * E16 = 4.3e-8 for FP16 (p = 11). Each term's independent relative error adds its E[d^2] to the NMSE, and so does
 * the rounding of a partial sum s of j terms (E[s^2] = j) times j / K.
 *   HVX float path (hvx-mm-float.h, IEEE sf: from v73, every NPU library vnpu-test-ops loads). F32 weights: lane l
 *   of a row's accumulator adds the products of elements l, l + 32, ... in order, n = ceil(K / 32) of them, each
 *   product rounded and each addition after the first, then five levels of pairwise folds add the 32 lanes: the
 *   products E32, the lanes' additions E32 ((n + 1) / 2 - 1 / n), the folds 5 E32, the reference's rounding E32:
 *   NMSE = E32 (7.5 + n / 2 - 1 / n), 4.5e-15 at K = 32, 4.6e-14 at K = 4096 (measured 4.7e-15, 4.5e-14). F16
 *   weights: the activations rounded to FP16 (act_cvt_f16_row), the hf x hf products exact in sf, sums in f32
 *   (the E32 terms above, a millionth of it): E16 (measured 2.0e-8..5.8e-8).
 *   HMX path (hmx-mm.c, hmx-mm-id.c): the activations, F32 weights and the output tiles rounded to FP16, exact
 *   products summed in an f32 accumulator in k order (hmx.h's model: at most E32 K / 2 = 1.3e-12 at K = 4096):
 *   2 E16 with F16 weights (measured 6.9e-8..1.2e-7), 3 E16 with F32 ones (1.1e-7..1.7e-7).
 * An HTP device says which path each node took (vnpu_htp_node_rsp), and each F32 and F16 case is held to its path's
 * bound (nmse_path_mul_mat); the table's bound is for a device that does not say: HMX's where HMX can take the case
 * (K a multiple of 32: rule 2 of htp-prep-matmul-hmx.c and of htp-prep-matmul-id.c), else HVX's. Each
 * bound is 3 times its expectation (a small case's NMSE, over few outputs, reached 1.4 times it), and below what a
 * scale off by 1e-3 (NMSE 1e-6) or one product term wrong in every dot product (about 1 / K: 2.4e-4 at K = 4096)
 * gives: with either put into both paths' kernels, every F32 and F16 case failed (the smallest NMSE 8.1e-7). */
#define NMSE_MM          5e-4
#define MM_E32           6.4e-16
#define MM_E16           4.3e-8
#define MM_HMX_TAKES(K)  ((K) % 32 == 0)
#define NMSE_MM_QUANT(K) NMSE_MM
#define MM_N(K)          (((K) + 31) / 32) /* n above */
#define NMSE_MM_F32_HVX(K) (3 * MM_E32 * (7.5 + MM_N(K) / 2.0 - 1.0 / MM_N(K)))
#define NMSE_MM_F32_HMX    (3 * 3 * MM_E16)
#define NMSE_MM_F16_HVX    (3 * MM_E16)
#define NMSE_MM_F16_HMX    (3 * 2 * MM_E16)
#define NMSE_MM_F32(K)     (MM_HMX_TAKES(K) ? NMSE_MM_F32_HMX : NMSE_MM_F32_HVX(K))
#define NMSE_MM_F16(K)     (MM_HMX_TAKES(K) ? NMSE_MM_F16_HMX : NMSE_MM_F16_HVX)

/* F32 and F16 weights: the bound of the path taken; block types: the table's (both paths quantize or narrow). */
static double nmse_path_mul_mat(const struct ops_case *c, uint32_t path) {
    const bool hmx = path == HTP_RSP_PATH_HMX;
    if (c->type == VNPU_TYPE_F32) {
        return hmx ? NMSE_MM_F32_HMX : NMSE_MM_F32_HVX(c->ne[0]);
    }
    if (c->type == VNPU_TYPE_F16) {
        return hmx ? NMSE_MM_F16_HMX : NMSE_MM_F16_HVX;
    }
    return c->nmse_max;
}

/* An XDNA device (xdna-matmul.h) rounds the activations and F32, F16 weights to bf16 (p = 8: E_BF16 = 2^-14 / 12 x
 * 0.541 = 2.75e-6, as E32 and E16 above; BF16 weights are exact) and sums the exact products in f32 in k order (E32
 * terms): NMSE = 2 E_BF16 (1 for BF16 weights), bound 3 times it, 1.65e-5 (measured 2.9e-6..6.8e-6 on NPU1 and
 * NPU2), under one product term wrong in every dot product (1 / K) up to K = 60000. Block types, dequantized exactly
 * and rounded to bf16, keep the table's bound (test-backend-ops'). With BFP16 (an 8-bit mantissa per value under
 * its block's largest exponent: the small values of a block lose bits; measured 4.9e-5..2.1e-4 on F32 weights)
 * every type is held to test-backend-ops' NMSE_MM. */
#define MM_E_BF16 2.75e-6
static double nmse_xdna_mul_mat(const struct ops_case *c, bool bfp16) {
    const bool flt = c->type == VNPU_TYPE_F32 || c->type == VNPU_TYPE_F16 || c->type == VNPU_TYPE_BF16;
    if (bfp16) {
        return NMSE_MM;
    }
    if (!flt) {
        return c->nmse_max;
    }
    return 3 * (c->type == VNPU_TYPE_BF16 ? 1 : 2) * MM_E_BF16;
}

/* Both ends of FP16's range on the HMX path, F32 weights [256, 64] x 128 columns: weights (src0, in_scale) or
 * activations (src1, mm.scale1) of 5000 make dot products of about 5000 x 16 (results past 65504), of 1e5 values past
 * it, of 1e-9 values below FP16's least subnormal (6e-8). On HVX every one matches the CPU within HVX's bound; on HMX
 * the op must report the overflow or flush of the operand named (its NMSE cannot hold). A MUL_MAT_ID case too. */
#define MM_FP16(SCALE0, SCALE1, WHAT, OPERAND)                                                                       \
    {"MUL_MAT", {256, 64, 1, 1}, {256, 128, 1, 1}, .type = VNPU_TYPE_F32, .weight = true, .in_scale = SCALE0,        \
     .nmse_max = NMSE_MM_F32(256), .mm = {.scale1 = SCALE1, .fp16 = WHAT, .fp16_operand = OPERAND}}
#define MM_FP16_ROWS                                                                                                  \
    MM_FP16(5000.0f, 0.0f, OPS_FP16_OVERFLOW, HTP_FP16_DST), MM_FP16(0.0f, 5000.0f, OPS_FP16_OVERFLOW, HTP_FP16_DST), \
    MM_FP16(1e5f, 0.0f, OPS_FP16_OVERFLOW, HTP_FP16_SRC0), MM_FP16(0.0f, 1e5f, OPS_FP16_OVERFLOW, HTP_FP16_SRC1),     \
    MM_FP16(1e-9f, 0.0f, OPS_FP16_FLUSH, HTP_FP16_SRC0), MM_FP16(0.0f, 1e-9f, OPS_FP16_FLUSH, HTP_FP16_SRC1),         \
    {"MUL_MAT_ID", {128, 64, 8, 1}, {128, 1, 128, 1}, .type = VNPU_TYPE_F32, .weight = true,                          \
     .nmse_max = NMSE_MM_F32(128),                                                                                    \
     .mm = {.n_used = 2, .scale1 = 1e5f, .fp16 = OPS_FP16_OVERFLOW, .fp16_operand = HTP_FP16_SRC1}}

/* MUL_MAT: a weight type T with bound NMSE(K) (above), src0 a model weight (W: in the device's weight buffer, tiled
 * where the device tiles it) or plain memory: K = B, 2B, 4B, 8B x k for the type's block B (32; Q2_0 64, Q1_0 128,
 * the K-quants 256); N (the weight's rows) a multiple of 32 or not; M = 1, 2, 3, 31, 32, 33, 128, 512 activation
 * columns; activations broadcast over a 2-D weight in dims 2 and 3, permuted activations, a 3-D weight broadcast over
 * grouped columns, and K deep enough that a tile row holds many steps. */
#define MM_ROWS_K(T, W, B, NMSE)                                                                                      \
    {"MUL_MAT", {B, 32, 1, 1},       {B, 1, 1, 1},        .type = T, .weight = W, .nmse_max = NMSE(B),                \
     .quick = true},                                                                                                  \
    {"MUL_MAT", {2 * B, 33, 1, 1},   {2 * B, 2, 1, 1},    .type = T, .weight = W, .nmse_max = NMSE(2 * B),            \
     .quick = true},                                                                                                  \
    {"MUL_MAT", {4 * B, 67, 1, 1},   {4 * B, 3, 1, 1},    .type = T, .weight = W, .nmse_max = NMSE(4 * B)},           \
    {"MUL_MAT", {8 * B, 96, 1, 1},   {8 * B, 31, 1, 1},   .type = T, .weight = W, .nmse_max = NMSE(8 * B),            \
     .quick = true},                                                                                                  \
    {"MUL_MAT", {16 * B, 100, 1, 1}, {16 * B, 32, 1, 1},  .type = T, .weight = W, .nmse_max = NMSE(16 * B)},          \
    {"MUL_MAT", {24 * B, 130, 1, 1}, {24 * B, 33, 1, 1},  .type = T, .weight = W, .nmse_max = NMSE(24 * B)},          \
    {"MUL_MAT", {8 * B, 64, 1, 1},   {8 * B, 128, 1, 1},  .type = T, .weight = W, .nmse_max = NMSE(8 * B)},           \
    {"MUL_MAT", {32 * B, 70, 1, 1},  {32 * B, 512, 1, 1}, .type = T, .weight = W, .nmse_max = NMSE(32 * B)},          \
    {"MUL_MAT", {128 * B, 40, 1, 1}, {128 * B, 5, 1, 1},  .type = T, .weight = W, .nmse_max = NMSE(128 * B)},         \
    {"MUL_MAT", {2 * B, 45, 1, 1},   {2 * B, 5, 3, 2},    .type = T, .weight = W, .nmse_max = NMSE(2 * B),            \
     .quick = true},                                                                                                  \
    {"MUL_MAT", {4 * B, 40, 1, 1},   {4 * B, 7, 3, 1},    .type = T, .weight = W, .nmse_max = NMSE(4 * B),            \
     .mm.layout1 = OPS_LAYOUT_PERM},                                                                                  \
    {"MUL_MAT", {2 * B, 40, 2, 1},   {2 * B, 3, 4, 1},    .type = T, .weight = W, .nmse_max = NMSE(2 * B)}
#define MM_ROWS(T, W, NMSE) MM_ROWS_K(T, W, 32, NMSE)

/* MUL_MAT_ID: weight type T of block B with bound NMSE(K), experts' weights a model weight (W) or plain memory: 4
 * and 8 experts (expert 1 never used, others repeated), 1 to 4 used per token, each slot with its own activation row
 * or one row per token broadcast over its slots (ne11 = 1, llama.cpp's gate and up), n_tokens 1, 2, 3, 31, 32, 33,
 * 128, 512, M not a multiple of 32, K = B, 2B, 4B, 8B. */
#define MMID(T, W, K, M, NE, NE11, NT, NU, Q, NMSE)                                                                   \
    {"MUL_MAT_ID", {K, M, NE, 1}, {K, NE11, NT, 1}, .type = T, .weight = W, .nmse_max = NMSE(K), .quick = Q,          \
     .mm = {.n_used = NU}}
#define MMID_ROWS_K(T, W, B, NMSE)                                                                                    \
    MMID(T, W, B, 32, 4, 1, 1, 1, W, NMSE),                                                                           \
    MMID(T, W, 2 * B, 33, 8, 2, 2, 2, W, NMSE),                                                                       \
    MMID(T, W, 4 * B, 67, 4, 1, 3, 4, false, NMSE),                                                                   \
    MMID(T, W, 8 * B, 96, 8, 2, 31, 2, false, NMSE),                                                                  \
    MMID(T, W, B, 40, 8, 1, 32, 4, false, NMSE),                                                                      \
    MMID(T, W, 2 * B, 100, 4, 3, 33, 3, false, NMSE),                                                                 \
    MMID(T, W, 4 * B, 64, 8, 1, 128, 2, false, NMSE),                                                                 \
    MMID(T, W, 2 * B, 70, 8, 4, 512, 4, false, NMSE)
#define MMID_ROWS(T, B) MMID_ROWS_K(T, false, B, NMSE_MM_QUANT), MMID_ROWS_K(T, true, B, NMSE_MM_QUANT)
/* F32 and F16 weights: the rows above, and K that HMX cannot take (HVX's bound: stories260K's 172, 100). */
#define MMID_FLOAT_ROWS(T, NMSE)                                                                                      \
    MMID_ROWS_K(T, false, 32, NMSE),                                                                                  \
    MMID_ROWS_K(T, true, 32, NMSE),                                                                                   \
    MMID(T, true, 172, 40, 4, 1, 5, 2, true, NMSE),                                                                   \
    MMID(T, false, 100, 33, 8, 2, 33, 2, false, NMSE)

/* A Mixtral-like layer scaled to the test's memory (K 4096, 8 experts, 2 used): decode, a 64-token batch and a
 * 512-token prefill (16 and 128 routed rows per expert on average: below and at the HMX path's rule). */
#define MMID_PERF_ROWS(T)                                                                                             \
    MMID(T, true, 4096, 2048, 8, 1, 1, 2, false, NMSE_MM_QUANT),                                                      \
    MMID(T, true, 4096, 2048, 8, 1, 64, 2, false, NMSE_MM_QUANT),                                                     \
    MMID(T, true, 4096, 2048, 8, 1, 512, 2, false, NMSE_MM_QUANT)

/* A type with NPU kernels but no F32/F16 rows: flat and tiled, a weight row of a padded view, the 2048 x 2048
 * decode product of the benchmark. */
#define MM_QUANT_ROWS(T, B)                                                                                           \
    MM_ROWS_K(T, false, B, NMSE_MM_QUANT),                                                                            \
    MM_ROWS_K(T, true, B, NMSE_MM_QUANT),                                                                             \
    {"MUL_MAT", {2 * B, 40, 1, 1}, {2 * B, 3, 1, 1}, .type = T, .layout = OPS_LAYOUT_VIEW, .nmse_max = NMSE_MM},      \
    {"MUL_MAT", {2048, 2048, 1, 1}, {2048, 1, 1, 1}, .type = T, .weight = true, .nmse_max = NMSE_MM}

/* The shapes of the benchmark (bench/RESULTS.md): a 2048 x 2048 weight against one column and a batch of 512. */
#define MM_PERF_ROWS(T, NMSE)                                                                                         \
    {"MUL_MAT", {2048, 2048, 1, 1}, {2048, 1, 1, 1},   .type = T, .weight = true, .nmse_max = NMSE(2048)},            \
    {"MUL_MAT", {2048, 2048, 1, 1}, {2048, 512, 1, 1}, .type = T, .weight = true, .nmse_max = NMSE(2048)}

/* F32 and F16 weights only: any K (stories260K's ffn_down has 172), weight rows of a view (padded, unaligned) or of
 * a permuted tensor (the KV cache's K), the attention products without flash attention (K x Q with grouped heads,
 * V^T x KQ), broadcast in dims 2 and 3 of a 4-D weight. */
#define MM_FLOAT_ROWS(T, NMSE)                                                                                        \
    {"MUL_MAT", {172, 64, 1, 1}, {172, 5, 1, 1}, .type = T, .weight = true, .nmse_max = NMSE(172), .quick = true},    \
    {"MUL_MAT", {64, 172, 1, 1}, {64, 1, 1, 1},  .type = T, .weight = true, .nmse_max = NMSE(64)},                    \
    {"MUL_MAT", {100, 37, 1, 1}, {100, 3, 1, 1}, .type = T, .layout = OPS_LAYOUT_VIEW, .nmse_max = NMSE(100),         \
     .quick = true},                                                                                                  \
    {"MUL_MAT", {8, 6, 4, 1},    {8, 1, 8, 1},   .type = T, .layout = OPS_LAYOUT_PERM, .nmse_max = NMSE(8),           \
     .quick = true, .mm.layout1 = OPS_LAYOUT_PERM},                                                                   \
    {"MUL_MAT", {64, 40, 4, 1},  {64, 9, 8, 1},  .type = T, .layout = OPS_LAYOUT_PERM, .nmse_max = NMSE(64),          \
     .mm.layout1 = OPS_LAYOUT_PERM},                                                                                  \
    {"MUL_MAT", {6, 8, 4, 1},    {6, 5, 8, 1},   .type = T, .nmse_max = NMSE(6)},                                     \
    {"MUL_MAT", {64, 40, 2, 3},  {64, 7, 4, 6},  .type = T, .nmse_max = NMSE(64)}

/* ROPE: NORMAL and NEOX, every row rotated or only its first n_dims (a partial vector: n_dims 40, 10), odd and
 * single rows, freq factors (in NEOX mode, and in NORMAL mode as Llama 3's rope_freqs), YaRN, positions up to 10^5
 * (angles of 10^5 rad), views, permuted rows, in place, ne3 > 1, stories260K's head size 8, and a prefill that spreads
 * over every worker. */
#define NMSE_ROPE 1e-7
#define ROPE_ROWS                                                                                                      \
    {"ROPE", {64, 8, 5, 1}, .nmse_max = NMSE_ROPE, .quick = true, .rope = {.max_pos = 512}},                         \
    {"ROPE", {64, 8, 5, 1}, .nmse_max = NMSE_ROPE, .quick = true, .rope = {.mode = 2, .max_pos = 512}},              \
    {"ROPE", {8, 8, 4, 1}, .nmse_max = NMSE_ROPE, .quick = true, .rope = {.max_pos = 64}},                           \
    {"ROPE", {128, 4, 3, 1}, .nmse_max = NMSE_ROPE, .rope = {.n_dims = 32, .max_pos = 4096}},                        \
    {"ROPE", {128, 4, 3, 1}, .nmse_max = NMSE_ROPE, .quick = true, .rope = {.n_dims = 40, .mode = 2, .max_pos = 4096}}, \
    {"ROPE", {10, 3, 7, 1}, .nmse_max = NMSE_ROPE, .rope = {.max_pos = 100}},                                        \
    {"ROPE", {10, 3, 7, 1}, .nmse_max = NMSE_ROPE, .rope = {.mode = 2, .max_pos = 100}},                             \
    {"ROPE", {18, 2, 3, 1}, .nmse_max = NMSE_ROPE, .rope = {.n_dims = 10, .mode = 2, .max_pos = 100}},               \
    {"ROPE", {2, 1, 1, 1}, .nmse_max = NMSE_ROPE, .rope = {.max_pos = 10}},                                          \
    {"ROPE", {128, 8, 6, 1}, .nmse_max = NMSE_ROPE, .quick = true,                                                   \
     .rope = {.mode = 2, .freq_factors = true, .max_pos = 8192}},                                                    \
    {"ROPE", {64, 8, 6, 1}, .nmse_max = NMSE_ROPE, .quick = true, .rope = {.freq_factors = true, .max_pos = 8192}},  \
    {"ROPE", {64, 4, 9, 1}, .nmse_max = NMSE_ROPE, .rope = {.yarn = true, .max_pos = 16384}},                        \
    {"ROPE", {96, 3, 9, 1}, .nmse_max = NMSE_ROPE, .quick = true,                                                    \
     .rope = {.n_dims = 64, .mode = 2, .freq_factors = true, .yarn = true, .max_pos = 16384}},                       \
    {"ROPE", {128, 2, 16, 1}, .nmse_max = NMSE_ROPE, .rope = {.max_pos = 100000}},                                   \
    {"ROPE", {128, 2, 16, 1}, .nmse_max = NMSE_ROPE, .rope = {.mode = 2, .max_pos = 100000}},                        \
    {"ROPE", {64, 8, 5, 1}, .layout = OPS_LAYOUT_VIEW, .nmse_max = NMSE_ROPE, .quick = true, .rope = {.max_pos = 512}}, \
    {"ROPE", {64, 8, 5, 1}, .layout = OPS_LAYOUT_PERM, .nmse_max = NMSE_ROPE, .rope = {.mode = 2, .max_pos = 512}},  \
    {"ROPE", {64, 8, 5, 1}, .inplace = true, .nmse_max = NMSE_ROPE, .rope = {.max_pos = 512}},                       \
    {"ROPE", {70, 5, 3, 1}, .layout = OPS_LAYOUT_PERM, .inplace = true, .nmse_max = NMSE_ROPE,                       \
     .rope = {.n_dims = 64, .mode = 2, .max_pos = 512}},                                                             \
    {"ROPE", {64, 4, 3, 2}, .nmse_max = NMSE_ROPE, .rope = {.max_pos = 512}},                                        \
    {"ROPE", {128, 32, 1, 1}, .nmse_max = NMSE_ROPE, .rope = {.max_pos = 4096}},                                     \
    {"ROPE", {128, 32, 512, 1}, .nmse_max = NMSE_ROPE, .rope = {.max_pos = 4096}}

/* SOFT_MAX: F32 and F16 masks with more rows than x and broadcast over dims 2 and 3, no mask, ALiBi over a head
 * count that is not a power of two, views, permuted rows, in place, wide and single rows, rows masked entirely,
 * a prefill's scores and a decode's (one row per head: blocks over the heads, also over mask slices that wrap). */
#define SOFT_MAX_ROWS                                                                                                 \
    {"SOFT_MAX", {64, 7, 8, 1}, {64, 7, 1, 1}, .p = {0.125f, 0.0f}, .nmse_max = NMSE_F32, .quick = true},             \
    {"SOFT_MAX", {64, 7, 8, 1}, {64, 9, 1, 1}, .p = {0.125f, 0.0f}, .nmse_max = NMSE_F32, .quick = true,              \
     .type1 = VNPU_TYPE_F16},                                                                                       \
    {"SOFT_MAX", {33, 31, 5, 1}, .p = {1.0f, 0.0f}, .nmse_max = NMSE_F32, .quick = true},                             \
    {"SOFT_MAX", {50, 5, 12, 1}, {50, 5, 1, 1}, .p = {0.5f, 8.0f}, .nmse_max = NMSE_F32, .quick = true,               \
     .type1 = VNPU_TYPE_F16},                                                                                       \
    {"SOFT_MAX", {32, 4, 6, 2}, {32, 4, 3, 1}, .p = {1.0f, 0.0f}, .nmse_max = NMSE_F32},                              \
    {"SOFT_MAX", {70, 6, 4, 2}, {70, 6, 2, 2}, .p = {1.0f, 0.0f}, .nmse_max = NMSE_F32, .type1 = VNPU_TYPE_F16},      \
    {"SOFT_MAX", {33, 31, 1, 1}, {33, 31, 1, 1}, .layout = OPS_LAYOUT_VIEW, .p = {1.0f, 0.0f}, .nmse_max = NMSE_F32,  \
     .quick = true},                                                                                                \
    {"SOFT_MAX", {33, 31, 5, 1}, {33, 31, 1, 1}, .layout = OPS_LAYOUT_PERM, .p = {1.0f, 0.0f}, .nmse_max = NMSE_F32}, \
    {"SOFT_MAX", {64, 20, 3, 1}, {64, 20, 1, 1}, .inplace = true, .p = {0.25f, 0.0f}, .nmse_max = NMSE_F32,           \
     .type1 = VNPU_TYPE_F16},                                                                                       \
    {"SOFT_MAX", {4099, 3, 1, 1}, .p = {1.0f, 0.0f}, .nmse_max = NMSE_F32},                                           \
    {"SOFT_MAX", {32768, 4, 1, 1}, {32768, 4, 1, 1}, .p = {1.0f, 0.0f}, .nmse_max = NMSE_F32, .type1 = VNPU_TYPE_F16}, \
    {"SOFT_MAX", {1, 1, 1, 1}, .p = {1.0f, 0.0f}, .nmse_max = NMSE_F32},                                              \
    {"SOFT_MAX", {5, 1, 1, 1}, {5, 1, 1, 1}, .p = {2.0f, 0.0f}, .nmse_max = NMSE_F32},                                \
    {"SOFT_MAX", {40, 3, 2, 1}, {40, 3, 1, 1}, .p = {1.0f, 0.0f}, .nmse_max = NMSE_F32, .type1 = VNPU_TYPE_F16,        \
     .attn = {.all_masked = true}},                                                                                 \
    {"SOFT_MAX", {256, 1, 32, 1}, {256, 1, 1, 1}, .p = {0.0884f, 0.0f}, .nmse_max = NMSE_F32},                        \
    {"SOFT_MAX", {37, 1, 12, 2}, {37, 1, 4, 2}, .p = {0.5f, 8.0f}, .nmse_max = NMSE_F32, .quick = true,              \
     .type1 = VNPU_TYPE_F16},                                                                                       \
    {"SOFT_MAX", {512, 512, 8, 1}, {512, 512, 1, 1}, .p = {0.0884f, 0.0f}, .nmse_max = NMSE_F32}

/* FLASH_ATTN_EXT (test-backend-ops' NMSE 5e-4): F16 and F32 K/V, read from a KV cache as the llama graph does or
 * contiguous, Q permuted as the graph makes it; decode (n_q = 1, GQA groups in a query block) and prefill;
 * head sizes 8 (stories260K), 16, 32, 64, 80 with V's 48, 128; masks F16 and F32, padded, broadcast over heads
 * and dims 3, all -inf; ALiBi, softcap; a single key; long contexts that spread over every worker. */
#define NMSE_ATTN 5e-4
#define ATTN_MASK(...) .mask = true, .mask_type = VNPU_TYPE_F16, __VA_ARGS__
#define ATTN_ROWS                                                                                                     \
    {"FLASH_ATTN_EXT", {64, 1, 8, 1}, {64, 256, 2, 1}, .p = {0.125f, 0.0f}, .nmse_max = NMSE_ATTN, .quick = true,     \
     .type1 = VNPU_TYPE_F16, .attn = {ATTN_MASK(.kv_cache = true)}},                                                \
    {"FLASH_ATTN_EXT", {64, 7, 8, 1}, {64, 37, 4, 1}, .layout = OPS_LAYOUT_PERM, .p = {0.125f, 0.0f},                 \
     .nmse_max = NMSE_ATTN, .quick = true, .type1 = VNPU_TYPE_F16, .attn = {ATTN_MASK(.kv_cache = true, .mask_pad = 1)}}, \
    {"FLASH_ATTN_EXT", {8, 1, 8, 1}, {8, 45, 4, 1}, .p = {0.35355f, 0.0f}, .nmse_max = NMSE_ATTN, .quick = true,      \
     .type1 = VNPU_TYPE_F16, .attn = {ATTN_MASK(.kv_cache = true)}},                                                \
    {"FLASH_ATTN_EXT", {8, 5, 8, 1}, {8, 45, 4, 1}, .layout = OPS_LAYOUT_PERM, .p = {0.35355f, 0.0f},                 \
     .nmse_max = NMSE_ATTN, .attn = {ATTN_MASK(.kv_cache = true)}},                                                 \
    {"FLASH_ATTN_EXT", {128, 5, 4, 1}, {128, 100, 4, 1}, .p = {0.0884f, 0.0f}, .nmse_max = NMSE_ATTN, .quick = true,  \
     .attn = {ATTN_MASK(.mask_pad = 3)}},                                                                           \
    {"FLASH_ATTN_EXT", {80, 3, 2, 2}, {80, 70, 1, 2}, .p = {0.11f, 0.0f}, .nmse_max = NMSE_ATTN,                      \
     .type1 = VNPU_TYPE_F16, .attn = {.dv = 48, .mask = true, .mask_ne = {2, 2}}},                                  \
    {"FLASH_ATTN_EXT", {64, 1, 8, 1}, {64, 100, 2, 1}, .p = {0.125f, 0.0f}, .nmse_max = NMSE_ATTN,                    \
     .type1 = VNPU_TYPE_F16, .attn = {ATTN_MASK(.mask_ne = {2, 1})}},                                               \
    {"FLASH_ATTN_EXT", {64, 4, 12, 1}, {64, 90, 12, 1}, .p = {0.125f, 8.0f}, .nmse_max = NMSE_ATTN, .quick = true,    \
     .type1 = VNPU_TYPE_F16, .attn = {ATTN_MASK(.softcap = 30.0f)}},                                                \
    {"FLASH_ATTN_EXT", {32, 3, 4, 1}, {32, 200, 2, 1}, .p = {0.177f, 0.0f}, .nmse_max = NMSE_ATTN},                   \
    {"FLASH_ATTN_EXT", {64, 2, 4, 1}, {64, 50, 2, 1}, .p = {0.125f, 0.0f}, .nmse_max = NMSE_ATTN,                     \
     .type1 = VNPU_TYPE_F16, .attn = {ATTN_MASK(.all_masked = true)}},                                              \
    {"FLASH_ATTN_EXT", {16, 1, 1, 1}, {16, 1, 1, 1}, .p = {0.25f, 0.0f}, .nmse_max = NMSE_ATTN,                       \
     .type1 = VNPU_TYPE_F16},                                                                                       \
    {"FLASH_ATTN_EXT", {64, 9, 4, 1}, {64, 33, 4, 1}, .layout = OPS_LAYOUT_VIEW, .p = {0.125f, 0.0f},                 \
     .nmse_max = NMSE_ATTN, .attn = {.dv = 128, .mask = true, .mask_type = VNPU_TYPE_F32}},                         \
    {"FLASH_ATTN_EXT", {128, 1, 32, 1}, {128, 1024, 8, 1}, .p = {0.0884f, 0.0f}, .nmse_max = NMSE_ATTN,               \
     .type1 = VNPU_TYPE_F16, .attn = {ATTN_MASK(.kv_cache = true)}},                                                \
    {"FLASH_ATTN_EXT", {128, 128, 8, 1}, {128, 128, 8, 1}, .layout = OPS_LAYOUT_PERM, .p = {0.0884f, 0.0f},           \
     .nmse_max = NMSE_ATTN, .type1 = VNPU_TYPE_F16, .attn = {ATTN_MASK(.kv_cache = true)}}

/* One-operand row ops: odd, single, view, permuted, in place, wide and many rows. */
#define ROW_ROWS(OP, P0, P1)                                                                                   \
    {OP, {5, 7, 11, 13},    .p = {P0, P1}, .nmse_max = NMSE_F32, .quick = true},                                \
    {OP, {64, 33, 3, 2},    .p = {P0, P1}, .nmse_max = NMSE_F32},                                               \
    {OP, {4099, 1, 1, 1},   .p = {P0, P1}, .nmse_max = NMSE_F32, .quick = true},                                \
    {OP, {1, 1, 1, 1},      .p = {P0, P1}, .nmse_max = NMSE_F32},                                               \
    {OP, {33, 31, 1, 1},    .layout = OPS_LAYOUT_VIEW, .p = {P0, P1}, .nmse_max = NMSE_F32, .quick = true},     \
    {OP, {33, 31, 5, 1},    .layout = OPS_LAYOUT_PERM, .p = {P0, P1}, .nmse_max = NMSE_F32},                    \
    {OP, {64, 20, 3, 1},    .inplace = true, .p = {P0, P1}, .nmse_max = NMSE_F32},                              \
    {OP, {70, 20, 3, 1},    .layout = OPS_LAYOUT_PERM, .inplace = true, .p = {P0, P1}, .nmse_max = NMSE_F32},   \
    {OP, {4096, 67, 1, 1},  .p = {P0, P1}, .nmse_max = NMSE_F32},                                               \
    {OP, {32768, 4, 1, 1},  .p = {P0, P1}, .nmse_max = NMSE_F32},                                               \
    {OP, {128, 1000, 3, 1}, .p = {P0, P1}, .nmse_max = NMSE_F32}

const struct ops_case ops_cases[] = {
    BINARY_ROWS("ADD"),
    BINARY_ROWS("SUB"),
    BINARY_ROWS("MUL"),
    BINARY_ROWS("DIV"),
    ROW_ROWS("SCALE", 0.5f, 0.25f),
    {"SCALE", {4099, 3, 1, 1}, .p = {-3.0f, 0.0f}, .nmse_max = NMSE_F32},
    {"SCALE", {4099, 3, 1, 1}, .p = {1e38f, 0.0f}, .nmse_max = NMSE_F32}, /* overflows to +-inf on both sides */
    /* quotients overflowing, and subnormal */
    {"DIV", {4099, 2, 1, 1}, {4099, 2, 1, 1}, .nmse_max = NMSE_F32, .in_scale = 2e38f},
    {"DIV", {64, 33, 3, 2}, {64, 1, 1, 1}, .nmse_max = NMSE_F32, .in_scale = 1e-39f},
    ROW_ROWS("RMS_NORM", 1e-6f, 0.0f),
    {"RMS_NORM", {64, 5, 1, 1}, .p = {1e-5f, 0.0f}, .nmse_max = NMSE_F32},
    /* magnitudes whose squares overflow or underflow f32 (the CPU sums in double); eps 0 leaves the sum alone */
    {"RMS_NORM", {4099, 3, 1, 1}, .p = {1e-6f, 0.0f}, .nmse_max = NMSE_F32, .in_scale = 1e30f},
    {"RMS_NORM", {70, 20, 3, 1}, .p = {1e-6f, 0.0f}, .nmse_max = NMSE_F32, .in_scale = 7e37f},
    {"RMS_NORM", {64, 33, 3, 2}, .p = {0.0f, 0.0f}, .nmse_max = NMSE_F32, .in_scale = 1e-30f},
    {"RMS_NORM", {33, 31, 1, 1}, .layout = OPS_LAYOUT_VIEW, .p = {1e-6f, 0.0f}, .nmse_max = NMSE_F32,
     .in_scale = 1e-30f},
    {"RMS_NORM_MUL", {4096, 5, 1, 1}, {4096, 1, 1, 1}, .p = {1e-5f}, .nmse_max = NMSE_F32, .in_scale = 1e25f},
    {"RMS_NORM_MUL", {64, 5, 1, 1}, {64, 1, 1, 1}, .p = {1e-5f}, .nmse_max = NMSE_F32, .quick = true},
    {"RMS_NORM_MUL", {5, 7, 11, 13}, {5, 7, 1, 1}, .p = {1e-6f}, .nmse_max = NMSE_F32, .quick = true},
    {"RMS_NORM_MUL", {33, 31, 5, 1}, {33, 1, 1, 1}, OPS_LAYOUT_PERM, .p = {1e-6f}, .nmse_max = NMSE_F32},
    {"RMS_NORM_MUL", {33, 31, 1, 1}, {33, 1, 1, 1}, OPS_LAYOUT_VIEW, .p = {1e-6f}, .nmse_max = NMSE_F32},
    {"RMS_NORM_MUL", {4096, 67, 1, 1}, {4096, 1, 1, 1}, .p = {1e-5f}, .nmse_max = NMSE_F32},
    {"RMS_NORM_MUL", {10, 6, 4, 1}, {5, 1, 1, 1}, .p = {1e-5f}, .nmse_max = NMSE_F32},
    /* Qwen 3's norm of each query head: [head_dim, n_head, n_tokens] by one weight of head_dim */
    {"RMS_NORM_MUL", {128, 16, 7, 1}, {128, 1, 1, 1}, .p = {1e-6f}, .nmse_max = NMSE_F32, .quick = true},
    ROW_ROWS("SILU", 0.0f, 0.0f),
    ROW_ROWS("GELU", 0.0f, 0.0f),
    {"SWIGLU", {5, 7, 11, 13}, {5, 7, 11, 13}, .nmse_max = NMSE_F32, .quick = true},
    {"SWIGLU", {172, 5, 1, 1}, {172, 5, 1, 1}, .nmse_max = NMSE_F32, .quick = true},
    {"SWIGLU", {4099, 1, 1, 1}, {4099, 1, 1, 1}, .nmse_max = NMSE_F32},
    {"SWIGLU", {33, 31, 1, 1}, {33, 31, 1, 1}, OPS_LAYOUT_VIEW, .nmse_max = NMSE_F32, .quick = true},
    {"SWIGLU", {33, 31, 5, 1}, {33, 31, 5, 1}, OPS_LAYOUT_PERM, .nmse_max = NMSE_F32},
    {"SWIGLU", {64, 20, 3, 1}, {64, 20, 3, 1}, .inplace = true, .nmse_max = NMSE_F32},
    {"SWIGLU", {4096, 67, 1, 1}, {4096, 67, 1, 1}, .nmse_max = NMSE_F32},
    {"SWIGLU", {128, 1000, 3, 1}, {128, 1000, 3, 1}, .nmse_max = NMSE_F32},
    /* NaN and inf semantics against the CPU reference: sigmoid's saturation, inf and NaN logits, overflowing
     * inputs (with rows masked entirely by -inf in the tables above) */
    {"SWIGLU", {4099, 2, 1, 1}, {4099, 2, 1, 1}, .nmse_max = NMSE_F32, .in_scale = 1e30f},
    {"SWIGLU", {64, 3, 1, 1}, {64, 3, 1, 1}, .nmse_max = NMSE_F32, .in_scale = INFINITY},
    {"SWIGLU", {64, 3, 1, 1}, {64, 3, 1, 1}, .nmse_max = NMSE_F32, .in_scale = NAN},
    {"SILU", {4099, 2, 1, 1}, .nmse_max = NMSE_F32, .in_scale = 1e30f},
    {"SILU", {64, 3, 1, 1}, .nmse_max = NMSE_F32, .in_scale = INFINITY},
    {"GELU", {64, 3, 1, 1}, .nmse_max = NMSE_F32, .in_scale = INFINITY},
    {"SOFT_MAX", {64, 7, 8, 1}, {64, 7, 1, 1}, .p = {0.125f, 0.0f}, .nmse_max = NMSE_F32, .in_scale = INFINITY},
    {"SOFT_MAX", {64, 7, 8, 1}, {64, 7, 1, 1}, .p = {0.125f, 0.0f}, .nmse_max = NMSE_F32, .in_scale = NAN},
    {"SOFT_MAX", {33, 31, 5, 1}, .p = {1.0f, 0.0f}, .nmse_max = NMSE_F32, .in_scale = 1e38f},
    /* one NaN or inf in each row of ordinary values: the row turns NaN (SOFT_MAX: a NaN or +inf logit; RMS_NORM:
     * the sum of squares), or the element alone does (SOFT_MAX: -inf gives 0; SILU, GELU, SWIGLU) */
    {"SOFT_MAX", {64, 7, 8, 1}, {64, 7, 1, 1}, .p = {0.125f, 0.0f}, .nmse_max = NMSE_F32, .in_special = NAN},
    {"SOFT_MAX", {100, 5, 3, 1}, {100, 5, 1, 1}, .p = {1.0f, 0.0f}, .nmse_max = NMSE_F32, .type1 = VNPU_TYPE_F16,
     .in_special = NAN},
    {"SOFT_MAX", {33, 31, 5, 1}, .p = {1.0f, 0.0f}, .nmse_max = NMSE_F32, .in_special = INFINITY},
    {"SOFT_MAX", {70, 6, 4, 1}, {70, 6, 1, 1}, .p = {0.5f, 0.0f}, .nmse_max = NMSE_F32, .in_special = -INFINITY},
    {"RMS_NORM", {4099, 3, 1, 1}, .p = {1e-6f, 0.0f}, .nmse_max = NMSE_F32, .in_special = INFINITY},
    {"RMS_NORM", {64, 5, 2, 1}, .p = {1e-5f, 0.0f}, .nmse_max = NMSE_F32, .in_special = NAN},
    {"RMS_NORM", {70, 4, 1, 1}, .p = {1e-6f, 0.0f}, .nmse_max = NMSE_F32, .in_scale = 1e30f, .in_special = -INFINITY},
    {"RMS_NORM_MUL", {64, 5, 1, 1}, {64, 1, 1, 1}, .p = {1e-5f}, .nmse_max = NMSE_F32, .in_special = INFINITY},
    {"SILU", {64, 3, 1, 1}, .nmse_max = NMSE_F32, .in_special = NAN},
    {"SILU", {64, 3, 1, 1}, .nmse_max = NMSE_F32, .in_special = -INFINITY},
    {"GELU", {64, 3, 1, 1}, .nmse_max = NMSE_F32, .in_special = NAN},
    {"SWIGLU", {64, 3, 1, 1}, {64, 3, 1, 1}, .nmse_max = NMSE_F32, .in_special = INFINITY},
    ROPE_ROWS,
    SOFT_MAX_ROWS,
    ATTN_ROWS,
    COPY_ROWS,
    SET_ROWS_ROWS(VNPU_TYPE_F16, VNPU_TYPE_I64),
    SET_ROWS_ROWS(VNPU_TYPE_F32, VNPU_TYPE_I32),
    GET_ROWS_FLOAT(VNPU_TYPE_F32),
    GET_ROWS_FLOAT(VNPU_TYPE_F16),
    GET_ROWS_QUANT(VNPU_TYPE_Q4_0, 0),
    GET_ROWS_QUANT(VNPU_TYPE_Q4_1, 0),
    GET_ROWS_QUANT(VNPU_TYPE_Q8_0, 0),
    GET_ROWS_QUANT(VNPU_TYPE_IQ4_NL, 0),
    GET_ROWS_QUANT(VNPU_TYPE_MXFP4, 0),
    GET_ROWS_QUANT(VNPU_TYPE_Q1_0, 0),
    GET_ROWS_QUANT(VNPU_TYPE_Q2_0, 0),
    GET_ROWS_QUANT(VNPU_TYPE_Q2_K, 0),
    GET_ROWS_QUANT(VNPU_TYPE_Q3_K, NMSE_KQ_TILED),
    GET_ROWS_QUANT(VNPU_TYPE_Q4_K, NMSE_KQ_TILED),
    GET_ROWS_QUANT(VNPU_TYPE_Q5_K, NMSE_KQ_TILED),
    GET_ROWS_QUANT(VNPU_TYPE_Q6_K, NMSE_KQ_TILED),
    MM_ROWS(VNPU_TYPE_F32, true, NMSE_MM_F32),
    MM_FLOAT_ROWS(VNPU_TYPE_F32, NMSE_MM_F32),
    MM_FP16_ROWS,
    MM_ROWS(VNPU_TYPE_F16, true, NMSE_MM_F16),
    MM_FLOAT_ROWS(VNPU_TYPE_F16, NMSE_MM_F16),
    MM_PERF_ROWS(VNPU_TYPE_F16, NMSE_MM_F16),
    MM_ROWS(VNPU_TYPE_Q4_0, false, NMSE_MM_QUANT),
    MM_ROWS(VNPU_TYPE_Q4_0, true, NMSE_MM_QUANT),
    {"MUL_MAT", {64, 40, 1, 1}, {64, 3, 1, 1}, .type = VNPU_TYPE_Q4_0, .layout = OPS_LAYOUT_VIEW, .nmse_max = NMSE_MM},
    MM_PERF_ROWS(VNPU_TYPE_Q4_0, NMSE_MM_QUANT),
    MM_ROWS(VNPU_TYPE_Q8_0, false, NMSE_MM_QUANT),
    MM_ROWS(VNPU_TYPE_Q8_0, true, NMSE_MM_QUANT),
    {"MUL_MAT", {64, 40, 1, 1}, {64, 3, 1, 1}, .type = VNPU_TYPE_Q8_0, .layout = OPS_LAYOUT_VIEW, .nmse_max = NMSE_MM},
    MM_PERF_ROWS(VNPU_TYPE_Q8_0, NMSE_MM_QUANT),
    MM_QUANT_ROWS(VNPU_TYPE_Q4_1, 32),
    MM_QUANT_ROWS(VNPU_TYPE_IQ4_NL, 32),
    MM_QUANT_ROWS(VNPU_TYPE_MXFP4, 32),
    MM_QUANT_ROWS(VNPU_TYPE_Q1_0, 128),
    MM_QUANT_ROWS(VNPU_TYPE_Q2_0, 64),
    MM_QUANT_ROWS(VNPU_TYPE_Q2_K, 256),
    MM_QUANT_ROWS(VNPU_TYPE_Q3_K, 256),
    MM_QUANT_ROWS(VNPU_TYPE_Q4_K, 256),
    MM_QUANT_ROWS(VNPU_TYPE_Q5_K, 256),
    MM_QUANT_ROWS(VNPU_TYPE_Q6_K, 256),
    MMID_FLOAT_ROWS(VNPU_TYPE_F32, NMSE_MM_F32),
    MMID_FLOAT_ROWS(VNPU_TYPE_F16, NMSE_MM_F16),
    MMID_ROWS(VNPU_TYPE_Q4_0, 32),
    MMID_ROWS(VNPU_TYPE_Q8_0, 32),
    MMID_ROWS(VNPU_TYPE_Q4_1, 32),
    MMID_ROWS(VNPU_TYPE_IQ4_NL, 32),
    MMID_ROWS(VNPU_TYPE_MXFP4, 32),
    MMID_ROWS(VNPU_TYPE_Q1_0, 128),
    MMID_ROWS(VNPU_TYPE_Q2_0, 64),
    MMID_ROWS(VNPU_TYPE_Q2_K, 256),
    MMID_ROWS(VNPU_TYPE_Q3_K, 256),
    MMID_ROWS(VNPU_TYPE_Q4_K, 256),
    MMID_ROWS(VNPU_TYPE_Q5_K, 256),
    MMID_ROWS(VNPU_TYPE_Q6_K, 256),
    MMID_PERF_ROWS(VNPU_TYPE_Q4_0),
};
/* clang-format on */
const size_t ops_n_cases = sizeof(ops_cases) / sizeof(ops_cases[0]);

void ops_case_name(const struct ops_case *c, char *buf, size_t size) {
    int n = snprintf(buf, size, "%s(type=%s,ne=[%lld,%lld,%lld,%lld]", c->op, vnpu_type_name(c->type),
                     (long long) c->ne[0], (long long) c->ne[1], (long long) c->ne[2], (long long) c->ne[3]);
    if (c->ne1[0]) {
        n += snprintf(buf + n, size - (size_t) n, ",src1=[%lld,%lld,%lld,%lld]", (long long) c->ne1[0],
                      (long long) c->ne1[1], (long long) c->ne1[2], (long long) c->ne1[3]);
    }
    if (c->type1 != VNPU_TYPE_F32) {
        n += snprintf(buf + n, size - (size_t) n, ",type1=%s", vnpu_type_name(c->type1));
    }
    if (c->layout != OPS_LAYOUT_CONT) {
        n += snprintf(buf + n, size - (size_t) n, ",layout=%s", ops_layout_names[c->layout]);
    }
    if (c->inplace) {
        n += snprintf(buf + n, size - (size_t) n, ",inplace=1");
    }
    if (c->weight) {
        n += snprintf(buf + n, size - (size_t) n, ",weight=1");
    }
    if (c->p[0] != 0.0f || c->p[1] != 0.0f) {
        n += snprintf(buf + n, size - (size_t) n, ",p=[%g,%g]", (double) c->p[0], (double) c->p[1]);
    }
    if (c->in_scale != 0.0f) {
        n += snprintf(buf + n, size - (size_t) n, ",in_scale=%g", (double) c->in_scale);
    }
    if (c->in_special != 0.0f) {
        n += snprintf(buf + n, size - (size_t) n, ",in_special=%g", (double) c->in_special);
    }
    const struct ops_kind *k = ops_kind_find(c->op);
    if (k && k->print) {
        n += k->print(c, buf + n, size - (size_t) n);
    }
    snprintf(buf + n, size - (size_t) n, ")");
}
