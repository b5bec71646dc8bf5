#include "type-traits.h"

#include "fp16.h"
#include "log.h"

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

/* One row per GGML type id; ids GGML removed stay zero. */
static const struct vnpu_type_traits type_traits[VNPU_TYPE_COUNT] = {
    [VNPU_TYPE_F32] = {.name = "f32", .blck = 1, .size = 4, .to_f32 = f32_to_f32, .from_f32_ref = f32_from_f32},
    [VNPU_TYPE_F16] = {.name = "f16", .blck = 1, .size = 2, .to_f32 = f16_to_f32, .from_f32_ref = f16_from_f32},
    [VNPU_TYPE_Q4_0] = {.name = "q4_0", .blck = 32, .size = 18, .is_quantized = true},
    [VNPU_TYPE_Q4_1] = {.name = "q4_1", .blck = 32, .size = 20, .is_quantized = true},
    [VNPU_TYPE_Q5_0] = {.name = "q5_0", .blck = 32, .size = 22, .is_quantized = true},
    [VNPU_TYPE_Q5_1] = {.name = "q5_1", .blck = 32, .size = 24, .is_quantized = true},
    [VNPU_TYPE_Q8_0] = {.name = "q8_0", .blck = 32, .size = 34, .is_quantized = true},
    [VNPU_TYPE_Q8_1] = {.name = "q8_1", .blck = 32, .size = 36, .is_quantized = true},
    [VNPU_TYPE_Q2_K] = {.name = "q2_K", .blck = 256, .size = 84, .is_quantized = true},
    [VNPU_TYPE_Q3_K] = {.name = "q3_K", .blck = 256, .size = 110, .is_quantized = true},
    [VNPU_TYPE_Q4_K] = {.name = "q4_K", .blck = 256, .size = 144, .is_quantized = true},
    [VNPU_TYPE_Q5_K] = {.name = "q5_K", .blck = 256, .size = 176, .is_quantized = true},
    [VNPU_TYPE_Q6_K] = {.name = "q6_K", .blck = 256, .size = 210, .is_quantized = true},
    [VNPU_TYPE_Q8_K] = {.name = "q8_K", .blck = 256, .size = 292, .is_quantized = true},
    [VNPU_TYPE_IQ2_XXS] = {.name = "iq2_xxs", .blck = 256, .size = 66, .is_quantized = true},
    [VNPU_TYPE_IQ2_XS] = {.name = "iq2_xs", .blck = 256, .size = 74, .is_quantized = true},
    [VNPU_TYPE_IQ3_XXS] = {.name = "iq3_xxs", .blck = 256, .size = 98, .is_quantized = true},
    [VNPU_TYPE_IQ1_S] = {.name = "iq1_s", .blck = 256, .size = 50, .is_quantized = true},
    [VNPU_TYPE_IQ4_NL] = {.name = "iq4_nl", .blck = 32, .size = 18, .is_quantized = true},
    [VNPU_TYPE_IQ3_S] = {.name = "iq3_s", .blck = 256, .size = 110, .is_quantized = true},
    [VNPU_TYPE_IQ2_S] = {.name = "iq2_s", .blck = 256, .size = 82, .is_quantized = true},
    [VNPU_TYPE_IQ4_XS] = {.name = "iq4_xs", .blck = 256, .size = 136, .is_quantized = true},
    [VNPU_TYPE_I8] = {.name = "i8", .blck = 1, .size = 1},
    [VNPU_TYPE_I16] = {.name = "i16", .blck = 1, .size = 2},
    [VNPU_TYPE_I32] = {.name = "i32", .blck = 1, .size = 4},
    [VNPU_TYPE_I64] = {.name = "i64", .blck = 1, .size = 8},
    [VNPU_TYPE_F64] = {.name = "f64", .blck = 1, .size = 8},
    [VNPU_TYPE_IQ1_M] = {.name = "iq1_m", .blck = 256, .size = 56, .is_quantized = true},
    [VNPU_TYPE_BF16] = {.name = "bf16", .blck = 1, .size = 2, .to_f32 = bf16_to_f32, .from_f32_ref = bf16_from_f32},
    [VNPU_TYPE_TQ1_0] = {.name = "tq1_0", .blck = 256, .size = 54, .is_quantized = true},
    [VNPU_TYPE_TQ2_0] = {.name = "tq2_0", .blck = 256, .size = 66, .is_quantized = true},
    [VNPU_TYPE_MXFP4] = {.name = "mxfp4", .blck = 32, .size = 17, .is_quantized = true},
    [VNPU_TYPE_NVFP4] = {.name = "nvfp4", .blck = 64, .size = 36, .is_quantized = true},
    [VNPU_TYPE_Q1_0] = {.name = "q1_0", .blck = 128, .size = 18, .is_quantized = true},
    [VNPU_TYPE_Q2_0] = {.name = "q2_0", .blck = 64, .size = 18, .is_quantized = true},
};
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
