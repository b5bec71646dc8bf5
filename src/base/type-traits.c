#include "type-traits.h"

#include "fp16.h"
#include "log.h"
#include "quants.h"

#include <assert.h>
#include <strings.h>
#include <string.h>

static void f32_to_f32(const void *x, float *y, int64_t k) {
    memcpy(y, x, (size_t) k * sizeof(float));
}

static void f32_from_f32(const float *x, void *y, int64_t k) {
    memcpy(y, x, (size_t) k * sizeof(float));
}

static void f16_to_f32(const void *x, float *y, int64_t k) {
    vnpu_fp16_to_f32_row(x, y, k);
}

static void f16_from_f32(const float *x, void *y, int64_t k) {
    vnpu_f32_to_fp16_row(x, y, k);
}

static void bf16_to_f32(const void *x, float *y, int64_t k) {
    vnpu_bf16_to_f32_row(x, y, k);
}

static void bf16_from_f32(const float *x, void *y, int64_t k) {
    vnpu_f32_to_bf16_row(x, y, k);
}

/*
 * One row per GGML type id; ids GGML removed stay zero, types without functions are ones vnpu cannot convert.
 * rmse_max bounds ||dequant(quant(x)) - x|| / ||x|| for a row of N(0, 1) values (tests/quants): 1.1x the
 * worst of 64 rows of 4096 with these quantizers. Kept aligned by hand, so clang-format stays out.
 */
/* clang-format off */
static const struct vnpu_type_traits type_traits[VNPU_TYPE_COUNT] = {
    [VNPU_TYPE_F32]     = {.name = "f32",     .blck = 1,        .size = sizeof(float),
                            .to_f32 = f32_to_f32, .from_f32_ref = f32_from_f32, .rmse_max = 0.0f},
    [VNPU_TYPE_F16]     = {.name = "f16",     .blck = 1,        .size = sizeof(vnpu_fp16_t),
                            .to_f32 = f16_to_f32, .from_f32_ref = f16_from_f32, .rmse_max = 2.4e-4f},
    [VNPU_TYPE_Q4_0]    = {.name = "q4_0",    .blck = QK4_0,    .size = sizeof(block_q4_0),    .is_quantized = true,
                            .to_f32 = q4_0_dequant_row, .from_f32_ref = q4_0_quant_row_ref, .rmse_max = 0.098f},
    [VNPU_TYPE_Q4_1]    = {.name = "q4_1",    .blck = QK4_1,    .size = sizeof(block_q4_1),    .is_quantized = true,
                            .to_f32 = q4_1_dequant_row, .from_f32_ref = q4_1_quant_row_ref, .rmse_max = 0.088f},
    [VNPU_TYPE_Q5_0]    = {.name = "q5_0",    .blck = QK5_0,    .size = sizeof(block_q5_0),    .is_quantized = true,
                            .to_f32 = q5_0_dequant_row, .from_f32_ref = q5_0_quant_row_ref, .rmse_max = 0.049f},
    [VNPU_TYPE_Q5_1]    = {.name = "q5_1",    .blck = QK5_1,    .size = sizeof(block_q5_1),    .is_quantized = true,
                            .to_f32 = q5_1_dequant_row, .from_f32_ref = q5_1_quant_row_ref, .rmse_max = 0.043f},
    [VNPU_TYPE_Q8_0]    = {.name = "q8_0",    .blck = QK8_0,    .size = sizeof(block_q8_0),    .is_quantized = true,
                            .to_f32 = q8_0_dequant_row, .from_f32_ref = q8_0_quant_row_ref, .rmse_max = 6.0e-3f},
    [VNPU_TYPE_Q8_1]    = {.name = "q8_1",    .blck = 32,       .size = 36, .is_quantized = true},
    [VNPU_TYPE_Q2_K]    = {.name = "q2_K",    .blck = QK_K,     .size = sizeof(block_q2_K),    .is_quantized = true,
                            .to_f32 = q2_K_dequant_row, .from_f32_ref = q2_K_quant_row_ref, .rmse_max = 0.34f},
    [VNPU_TYPE_Q3_K]    = {.name = "q3_K",    .blck = QK_K,     .size = sizeof(block_q3_K),    .is_quantized = true,
                            .to_f32 = q3_K_dequant_row, .from_f32_ref = q3_K_quant_row_ref, .rmse_max = 0.17f},
    [VNPU_TYPE_Q4_K]    = {.name = "q4_K",    .blck = QK_K,     .size = sizeof(block_q4_K),    .is_quantized = true,
                            .to_f32 = q4_K_dequant_row, .from_f32_ref = q4_K_quant_row_ref, .rmse_max = 0.080f},
    [VNPU_TYPE_Q5_K]    = {.name = "q5_K",    .blck = QK_K,     .size = sizeof(block_q5_K),    .is_quantized = true,
                            .to_f32 = q5_K_dequant_row, .from_f32_ref = q5_K_quant_row_ref, .rmse_max = 0.041f},
    [VNPU_TYPE_Q6_K]    = {.name = "q6_K",    .blck = QK_K,     .size = sizeof(block_q6_K),    .is_quantized = true,
                            .to_f32 = q6_K_dequant_row, .from_f32_ref = q6_K_quant_row_ref, .rmse_max = 0.020f},
    [VNPU_TYPE_Q8_K]    = {.name = "q8_K",    .blck = QK_K,     .size = sizeof(block_q8_K),    .is_quantized = true,
                            .to_f32 = q8_K_dequant_row, .from_f32_ref = q8_K_quant_row_ref, .rmse_max = 8.3e-3f},
    [VNPU_TYPE_IQ2_XXS] = {.name = "iq2_xxs", .blck = 256,      .size = 66, .is_quantized = true},
    [VNPU_TYPE_IQ2_XS]  = {.name = "iq2_xs",  .blck = 256,      .size = 74, .is_quantized = true},
    [VNPU_TYPE_IQ3_XXS] = {.name = "iq3_xxs", .blck = 256,      .size = 98, .is_quantized = true},
    [VNPU_TYPE_IQ1_S]   = {.name = "iq1_s",   .blck = 256,      .size = 50, .is_quantized = true},
    [VNPU_TYPE_IQ4_NL]  = {.name = "iq4_nl",  .blck = QK4_NL,   .size = sizeof(block_iq4_nl),  .is_quantized = true,
                            .to_f32 = iq4_nl_dequant_row, .from_f32_ref = iq4_nl_quant_row_ref, .rmse_max = 0.086f},
    [VNPU_TYPE_IQ3_S]   = {.name = "iq3_s",   .blck = 256,      .size = 110, .is_quantized = true},
    [VNPU_TYPE_IQ2_S]   = {.name = "iq2_s",   .blck = 256,      .size = 82, .is_quantized = true},
    [VNPU_TYPE_IQ4_XS]  = {.name = "iq4_xs",  .blck = 256,      .size = 136, .is_quantized = true},
    [VNPU_TYPE_I8]      = {.name = "i8",      .blck = 1,        .size = sizeof(int8_t)},
    [VNPU_TYPE_I16]     = {.name = "i16",     .blck = 1,        .size = sizeof(int16_t)},
    [VNPU_TYPE_I32]     = {.name = "i32",     .blck = 1,        .size = sizeof(int32_t)},
    [VNPU_TYPE_I64]     = {.name = "i64",     .blck = 1,        .size = sizeof(int64_t)},
    [VNPU_TYPE_F64]     = {.name = "f64",     .blck = 1,        .size = sizeof(double)},
    [VNPU_TYPE_IQ1_M]   = {.name = "iq1_m",   .blck = 256,      .size = 56, .is_quantized = true},
    [VNPU_TYPE_BF16]    = {.name = "bf16",    .blck = 1,        .size = sizeof(vnpu_bf16_t),
                            .to_f32 = bf16_to_f32, .from_f32_ref = bf16_from_f32, .rmse_max = 1.9e-3f},
    [VNPU_TYPE_TQ1_0]   = {.name = "tq1_0",   .blck = 256,      .size = 54, .is_quantized = true},
    [VNPU_TYPE_TQ2_0]   = {.name = "tq2_0",   .blck = 256,      .size = 66, .is_quantized = true},
    [VNPU_TYPE_MXFP4]   = {.name = "mxfp4",   .blck = QK_MXFP4, .size = sizeof(block_mxfp4),   .is_quantized = true,
                            .to_f32 = mxfp4_dequant_row, .from_f32_ref = mxfp4_quant_row_ref, .rmse_max = 0.13f},
    [VNPU_TYPE_NVFP4]   = {.name = "nvfp4",   .blck = 64,       .size = 36, .is_quantized = true},
    [VNPU_TYPE_Q1_0]    = {.name = "q1_0",    .blck = QK1_0,    .size = sizeof(block_q1_0),    .is_quantized = true,
                            .to_f32 = q1_0_dequant_row, .from_f32_ref = q1_0_quant_row_ref, .rmse_max = 0.67f},
    [VNPU_TYPE_Q2_0]    = {.name = "q2_0",    .blck = QK2_0,    .size = sizeof(block_q2_0),    .is_quantized = true,
                            .to_f32 = q2_0_dequant_row, .from_f32_ref = q2_0_quant_row_ref, .rmse_max = 0.82f},
};
/* clang-format on */
static_assert(VNPU_TYPE_COUNT == 43, "new GGML type: add its row here");

const struct vnpu_type_traits *vnpu_type_traits_get(enum vnpu_type type) {
    VNPU_ASSERT((unsigned) type < VNPU_TYPE_COUNT);
    return &type_traits[type];
}

bool vnpu_type_is_valid(uint32_t type) {
    return type < VNPU_TYPE_COUNT && type_traits[type].blck > 0;
}

const char *vnpu_type_name(enum vnpu_type type) {
    return vnpu_type_is_valid((uint32_t) type) ? type_traits[type].name : "?";
}

bool vnpu_type_from_name(const char *name, enum vnpu_type *type) {
    for (int i = 0; i < VNPU_TYPE_COUNT; i++) {
        if (type_traits[i].name && strcasecmp(type_traits[i].name, name) == 0) {
            *type = (enum vnpu_type) i;
            return true;
        }
    }
    return false;
}

size_t vnpu_row_size(enum vnpu_type type, int64_t ne) {
    const struct vnpu_type_traits *tt = vnpu_type_traits_get(type);
    VNPU_ASSERT(tt->blck > 0 && ne % tt->blck == 0);
    return (size_t) (ne / tt->blck) * tt->size;
}
