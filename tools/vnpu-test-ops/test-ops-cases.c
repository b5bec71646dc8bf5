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
    {.name = "GET_ROWS", .build = build_get_rows, .inputs = inputs_get_rows, .index = index_get_rows},
    {.name = "SET_ROWS",
     .build = build_set_rows,
     .inputs = inputs_set_rows,
     .print = print_set_rows,
     .index = index_set_rows},
    {.name = "CPY", .build = build_cpy, .inputs = inputs_cpy, .print = print_cpy},
    {.name = "CONT", .build = build_cont, .inputs = inputs_cont},
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
 * more. */
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
    ROW_ROWS("RMS_NORM", 1e-6f, 0.0f),
    {"RMS_NORM", {64, 5, 1, 1}, .p = {1e-5f, 0.0f}, .nmse_max = NMSE_F32},
    {"RMS_NORM_MUL", {64, 5, 1, 1}, {64, 1, 1, 1}, .p = {1e-5f}, .nmse_max = NMSE_F32, .quick = true},
    {"RMS_NORM_MUL", {5, 7, 11, 13}, {5, 7, 1, 1}, .p = {1e-6f}, .nmse_max = NMSE_F32, .quick = true},
    {"RMS_NORM_MUL", {33, 31, 5, 1}, {33, 1, 1, 1}, OPS_LAYOUT_PERM, .p = {1e-6f}, .nmse_max = NMSE_F32},
    {"RMS_NORM_MUL", {33, 31, 1, 1}, {33, 1, 1, 1}, OPS_LAYOUT_VIEW, .p = {1e-6f}, .nmse_max = NMSE_F32},
    {"RMS_NORM_MUL", {4096, 67, 1, 1}, {4096, 1, 1, 1}, .p = {1e-5f}, .nmse_max = NMSE_F32},
    {"RMS_NORM_MUL", {10, 6, 4, 1}, {5, 1, 1, 1}, .p = {1e-5f}, .nmse_max = NMSE_F32},
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
    GET_ROWS_QUANT(VNPU_TYPE_Q3_K, NMSE_F32),
    GET_ROWS_QUANT(VNPU_TYPE_Q4_K, NMSE_F32),
    GET_ROWS_QUANT(VNPU_TYPE_Q5_K, NMSE_F32),
    GET_ROWS_QUANT(VNPU_TYPE_Q6_K, NMSE_F32),
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
    const struct ops_kind *k = ops_kind_find(c->op);
    if (k && k->print) {
        n += k->print(c, buf + n, size - (size_t) n);
    }
    snprintf(buf + n, size - (size_t) n, ")");
}
