/*
 * Legacy block formats (one scale, or a scale and a min, per block): Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, and the
 * 1- and 2-bit formats Q1_0 and Q2_0. Algorithms and float operation order are those of ggml-quants.c
 * (quantize_row_<type>_ref, dequantize_row_<type>), so the bytes and floats match GGML's exactly.
 */
#include "quants.h"

#include "log.h"

#include <math.h>

/*
 * GGML converts float results straight to int8_t, uint8_t or int (e.g. (int8_t) (x * id + 8.5f)). In range
 * that truncates toward zero. When a block's scale d is subnormal, id = 1 / d is inf and the value inf or
 * NaN: C leaves that undefined, and GGML's x86-64 build (CVTTSS2SI) gives INT32_MIN, whose low byte is 0.
 * This gives the same, defined; callers narrow the result with a cast as GGML does.
 */
static inline int32_t f32_to_i32_x86(float v) {
    return v > -2147483648.0f && v < 2147483648.0f ? (int32_t) v : INT32_MIN;
}

/* The element of largest magnitude, signed; the first one on ties (GGML's "amax < |v|" scan). */
static float block_signed_max(const float *x, int n) {
    float amax = 0.0f;
    float max = 0.0f;
    for (int j = 0; j < n; j++) {
        if (amax < fabsf(x[j])) {
            amax = fabsf(x[j]);
            max = x[j];
        }
    }
    return max;
}

static float block_abs_max(const float *x, int n) {
    float amax = 0.0f;
    for (int j = 0; j < n; j++) {
        const float ax = fabsf(x[j]);
        amax = ax > amax ? ax : amax;
    }
    return amax;
}

static void block_min_max(const float *x, int n, float *min, float *max) {
    *min = x[0];
    *max = x[0];
    for (int j = 1; j < n; j++) {
        *min = x[j] < *min ? x[j] : *min;
        *max = x[j] > *max ? x[j] : *max;
    }
}

/* ---- Q4_0 ---------------------------------------------------------------------------------------- */

void q4_0_dequant_row(const void *x, float *y, int64_t k) {
    VNPU_ASSERT(k % QK4_0 == 0);
    const block_q4_0 *b = x;
    for (int64_t i = 0; i < k / QK4_0; i++, y += QK4_0) {
        const float d = vnpu_fp16_to_f32(b[i].d);
        for (int j = 0; j < QK4_0 / 2; j++) {
            y[j] = (float) ((b[i].qs[j] & 0xf) - 8) * d;
            y[j + QK4_0 / 2] = (float) ((b[i].qs[j] >> 4) - 8) * d;
        }
    }
}

void q4_0_quant_row_ref(const float *x, void *y, int64_t k) {
    VNPU_ASSERT(k % QK4_0 == 0);
    block_q4_0 *b = y;
    for (int64_t i = 0; i < k / QK4_0; i++, x += QK4_0) {
        const float d = block_signed_max(x, QK4_0) / -8;
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        b[i].d = vnpu_f32_to_fp16(d);
        for (int j = 0; j < QK4_0 / 2; j++) {
            /* x * id lies in [-8, 8]: + 8.5 and truncation round it to 0..16, capped at 15 */
            const int8_t q0 = (int8_t) f32_to_i32_x86(x[j] * id + 8.5f);
            const int8_t q1 = (int8_t) f32_to_i32_x86(x[j + QK4_0 / 2] * id + 8.5f);
            b[i].qs[j] = (uint8_t) ((uint8_t) (q0 < 15 ? q0 : 15) | (uint8_t) (q1 < 15 ? q1 : 15) << 4);
        }
    }
}

/* ---- Q4_1 ---------------------------------------------------------------------------------------- */

void q4_1_dequant_row(const void *x, float *y, int64_t k) {
    VNPU_ASSERT(k % QK4_1 == 0);
    const block_q4_1 *b = x;
    for (int64_t i = 0; i < k / QK4_1; i++, y += QK4_1) {
        const float d = vnpu_fp16_to_f32(b[i].d);
        const float m = vnpu_fp16_to_f32(b[i].m);
        for (int j = 0; j < QK4_1 / 2; j++) {
            y[j] = (float) (b[i].qs[j] & 0xf) * d + m;
            y[j + QK4_1 / 2] = (float) (b[i].qs[j] >> 4) * d + m;
        }
    }
}

void q4_1_quant_row_ref(const float *x, void *y, int64_t k) {
    VNPU_ASSERT(k % QK4_1 == 0);
    block_q4_1 *b = y;
    for (int64_t i = 0; i < k / QK4_1; i++, x += QK4_1) {
        float min, max;
        block_min_max(x, QK4_1, &min, &max);
        const float d = (max - min) / 15;
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        b[i].d = vnpu_f32_to_fp16(d);
        b[i].m = vnpu_f32_to_fp16(min);
        for (int j = 0; j < QK4_1 / 2; j++) {
            const int8_t q0 = (int8_t) f32_to_i32_x86((x[j] - min) * id + 0.5f);
            const int8_t q1 = (int8_t) f32_to_i32_x86((x[j + QK4_1 / 2] - min) * id + 0.5f);
            b[i].qs[j] = (uint8_t) ((uint8_t) (q0 < 15 ? q0 : 15) | (uint8_t) (q1 < 15 ? q1 : 15) << 4);
        }
    }
}

/* ---- Q5_0 ---------------------------------------------------------------------------------------- */

void q5_0_dequant_row(const void *x, float *y, int64_t k) {
    VNPU_ASSERT(k % QK5_0 == 0);
    const block_q5_0 *b = x;
    for (int64_t i = 0; i < k / QK5_0; i++, y += QK5_0) {
        const float d = vnpu_fp16_to_f32(b[i].d);
        uint32_t qh;
        memcpy(&qh, b[i].qh, sizeof(qh));
        for (int j = 0; j < QK5_0 / 2; j++) {
            const int q0 = (b[i].qs[j] & 0xf) | ((qh >> j) & 1) << 4;
            const int q1 = (b[i].qs[j] >> 4) | ((qh >> (j + QK5_0 / 2)) & 1) << 4;
            y[j] = (float) (q0 - 16) * d;
            y[j + QK5_0 / 2] = (float) (q1 - 16) * d;
        }
    }
}

void q5_0_quant_row_ref(const float *x, void *y, int64_t k) {
    VNPU_ASSERT(k % QK5_0 == 0);
    block_q5_0 *b = y;
    for (int64_t i = 0; i < k / QK5_0; i++, x += QK5_0) {
        const float d = block_signed_max(x, QK5_0) / -16;
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        b[i].d = vnpu_f32_to_fp16(d);
        uint32_t qh = 0;
        for (int j = 0; j < QK5_0 / 2; j++) {
            const int8_t r0 = (int8_t) f32_to_i32_x86(x[j] * id + 16.5f);
            const int8_t r1 = (int8_t) f32_to_i32_x86(x[j + QK5_0 / 2] * id + 16.5f);
            const uint8_t q0 = (uint8_t) (r0 < 31 ? r0 : 31);
            const uint8_t q1 = (uint8_t) (r1 < 31 ? r1 : 31);
            b[i].qs[j] = (uint8_t) ((q0 & 0xf) | (q1 & 0xf) << 4);
            qh |= (uint32_t) ((q0 >> 4) & 1) << j | (uint32_t) ((q1 >> 4) & 1) << (j + QK5_0 / 2);
        }
        memcpy(b[i].qh, &qh, sizeof(qh));
    }
}

/* ---- Q5_1 ---------------------------------------------------------------------------------------- */

void q5_1_dequant_row(const void *x, float *y, int64_t k) {
    VNPU_ASSERT(k % QK5_1 == 0);
    const block_q5_1 *b = x;
    for (int64_t i = 0; i < k / QK5_1; i++, y += QK5_1) {
        const float d = vnpu_fp16_to_f32(b[i].d);
        const float m = vnpu_fp16_to_f32(b[i].m);
        uint32_t qh;
        memcpy(&qh, b[i].qh, sizeof(qh));
        for (int j = 0; j < QK5_1 / 2; j++) {
            const int q0 = (b[i].qs[j] & 0xf) | ((qh >> j) & 1) << 4;
            const int q1 = (b[i].qs[j] >> 4) | ((qh >> (j + QK5_1 / 2)) & 1) << 4;
            y[j] = (float) q0 * d + m;
            y[j + QK5_1 / 2] = (float) q1 * d + m;
        }
    }
}

void q5_1_quant_row_ref(const float *x, void *y, int64_t k) {
    VNPU_ASSERT(k % QK5_1 == 0);
    block_q5_1 *b = y;
    for (int64_t i = 0; i < k / QK5_1; i++, x += QK5_1) {
        float min, max;
        block_min_max(x, QK5_1, &min, &max);
        const float d = (max - min) / 31;
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        b[i].d = vnpu_f32_to_fp16(d);
        b[i].m = vnpu_f32_to_fp16(min);
        uint32_t qh = 0;
        for (int j = 0; j < QK5_1 / 2; j++) {
            /* no cap at 31 here, as in GGML: (x - min) * id + 0.5 stays below 32 */
            const uint8_t q0 = (uint8_t) f32_to_i32_x86((x[j] - min) * id + 0.5f);
            const uint8_t q1 = (uint8_t) f32_to_i32_x86((x[j + QK5_1 / 2] - min) * id + 0.5f);
            b[i].qs[j] = (uint8_t) ((q0 & 0xf) | (q1 & 0xf) << 4);
            qh |= (uint32_t) ((q0 >> 4) & 1) << j | (uint32_t) ((q1 >> 4) & 1) << (j + QK5_1 / 2);
        }
        memcpy(b[i].qh, &qh, sizeof(qh));
    }
}

/* ---- Q8_0 ---------------------------------------------------------------------------------------- */

void q8_0_dequant_row(const void *x, float *y, int64_t k) {
    VNPU_ASSERT(k % QK8_0 == 0);
    const block_q8_0 *b = x;
    for (int64_t i = 0; i < k / QK8_0; i++, y += QK8_0) {
        const float d = vnpu_fp16_to_f32(b[i].d);
        for (int j = 0; j < QK8_0; j++) {
            y[j] = (float) b[i].qs[j] * d;
        }
    }
}

void q8_0_quant_row_ref(const float *x, void *y, int64_t k) {
    VNPU_ASSERT(k % QK8_0 == 0);
    block_q8_0 *b = y;
    for (int64_t i = 0; i < k / QK8_0; i++, x += QK8_0) {
        const float d = block_abs_max(x, QK8_0) / 127;
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        b[i].d = vnpu_f32_to_fp16(d);
        for (int j = 0; j < QK8_0; j++) {
            b[i].qs[j] = (int8_t) f32_to_i32_x86(roundf(x[j] * id));
        }
    }
}

/* ---- Q1_0 ---------------------------------------------------------------------------------------- */

void q1_0_dequant_row(const void *x, float *y, int64_t k) {
    VNPU_ASSERT(k % QK1_0 == 0);
    const block_q1_0 *b = x;
    for (int64_t i = 0; i < k / QK1_0; i++, y += QK1_0) {
        const float d = vnpu_fp16_to_f32(b[i].d);
        for (int j = 0; j < QK1_0; j++) {
            y[j] = (b[i].qs[j / 8] >> (j % 8)) & 1 ? d : -d;
        }
    }
}

void q1_0_quant_row_ref(const float *x, void *y, int64_t k) {
    VNPU_ASSERT(k % QK1_0 == 0);
    block_q1_0 *b = y;
    for (int64_t i = 0; i < k / QK1_0; i++, x += QK1_0) {
        float sum_abs = 0.0f;
        for (int j = 0; j < QK1_0; j++) {
            sum_abs += fabsf(x[j]);
        }
        b[i].d = vnpu_f32_to_fp16(sum_abs / QK1_0);
        memset(b[i].qs, 0, sizeof(b[i].qs));
        for (int j = 0; j < QK1_0; j++) {
            b[i].qs[j / 8] |= (uint8_t) ((x[j] >= 0.0f) << (j % 8));
        }
    }
}

/* ---- Q2_0 ---------------------------------------------------------------------------------------- */

void q2_0_dequant_row(const void *x, float *y, int64_t k) {
    VNPU_ASSERT(k % QK2_0 == 0);
    const block_q2_0 *b = x;
    for (int64_t i = 0; i < k / QK2_0; i++, y += QK2_0) {
        const float d = vnpu_fp16_to_f32(b[i].d);
        for (int j = 0; j < QK2_0; j++) {
            y[j] = (float) (((b[i].qs[j / 4] >> (2 * (j % 4))) & 3) - 1) * d;
        }
    }
}

void q2_0_quant_row_ref(const float *x, void *y, int64_t k) {
    VNPU_ASSERT(k % QK2_0 == 0);
    block_q2_0 *b = y;
    for (int64_t i = 0; i < k / QK2_0; i++, x += QK2_0) {
        const float d = block_abs_max(x, QK2_0);
        const float id = d > 0.0f ? 1.0f / d : 0.0f;
        b[i].d = vnpu_f32_to_fp16(d);
        memset(b[i].qs, 0, sizeof(b[i].qs));
        for (int j = 0; j < QK2_0; j++) {
            int q = f32_to_i32_x86(roundf(x[j] * id)) + 1;
            q = q < 0 ? 0 : q > 3 ? 3 : q;
            b[i].qs[j / 4] |= (uint8_t) (q << (2 * (j % 4)));
        }
    }
}
