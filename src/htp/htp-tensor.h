/*
 * The NPU's view of a tensor and the helpers every kernel shares (the seed's htp-tensor.h): element
 * geometry of the types, a flat row index turned into (i1, i2, i3) with fastdiv, and the multi-device
 * (mdev) partition helpers that keep device write ranges on distinct 128-byte DDR lines.
 *
 * Row-wise kernels take a (row_start, nrows) range of the flattened rows ne1 * ne2 * ne3 from the start:
 * the whole tensor on one device, a partition of it when several devices share an op.
 */
#ifndef VNPU_HTP_TENSOR_H
#define VNPU_HTP_TENSOR_H

#include "hex-common.h"
#include "hex-fastdiv.h"
#include "htp-msg.h"

#include <stdbool.h>
#include <stdint.h>

/* A tensor resolved by the dispatcher: checked to lie inside its mapped buffer. */
struct htp_tensor {
    uint8_t *data;             /* native address of element [0,0,0,0]: window base + device address */
    uint32_t type;             /* enum htp_type */
    uint32_t flags;            /* HTP_TENSOR_* */
    uint32_t ne[HTP_MAX_DIMS]; /* elements per dimension */
    uint32_t nb[HTP_MAX_DIMS]; /* byte strides; nb[0] is the block size for block types */
};

/* Elements per block and bytes per block of an NPU type, as GGML's type traits; false for an id the NPU
 * does not know (the host's tests check every row against src/base/type-traits.c). */
static inline bool htp_type_geometry(uint32_t type, uint32_t *blck, uint32_t *size) {
    switch ((enum htp_type) type) {
        case HTP_TYPE_F32: *blck = 1, *size = 4; return true;
        case HTP_TYPE_F16: *blck = 1, *size = 2; return true;
        case HTP_TYPE_Q4_0: *blck = 32, *size = 18; return true;
        case HTP_TYPE_Q4_1: *blck = 32, *size = 20; return true;
        case HTP_TYPE_Q8_0: *blck = 32, *size = 34; return true;
        case HTP_TYPE_Q2_K: *blck = 256, *size = 84; return true;
        case HTP_TYPE_Q3_K: *blck = 256, *size = 110; return true;
        case HTP_TYPE_Q4_K: *blck = 256, *size = 144; return true;
        case HTP_TYPE_Q5_K: *blck = 256, *size = 176; return true;
        case HTP_TYPE_Q6_K: *blck = 256, *size = 210; return true;
        case HTP_TYPE_IQ4_NL: *blck = 32, *size = 18; return true;
        case HTP_TYPE_I32: *blck = 1, *size = 4; return true;
        case HTP_TYPE_I64: *blck = 1, *size = 8; return true;
        case HTP_TYPE_BF16: *blck = 1, *size = 2; return true;
        case HTP_TYPE_MXFP4: *blck = 32, *size = 17; return true;
        case HTP_TYPE_Q1_0: *blck = 128, *size = 18; return true;
        case HTP_TYPE_Q2_0: *blck = 64, *size = 18; return true;
    }
    return false;
}

static inline uint32_t htp_tensor_nrows(const struct htp_tensor *t) {
    return t->ne[1] * t->ne[2] * t->ne[3];
}

/* Address of row (i1, i2, i3). */
static inline uint8_t *htp_tensor_row(const struct htp_tensor *t, uint32_t i1, uint32_t i2, uint32_t i3) {
    return t->data + (uintptr_t) i1 * t->nb[1] + (uintptr_t) i2 * t->nb[2] + (uintptr_t) i3 * t->nb[3];
}

/* Flat row r of a tensor with ne[1], ne[2] = ne1, ne2 as (i1, i2, i3); div_ne1 and div_ne12 are the
 * fastdiv values of ne1 and ne1 * ne2, precomputed by the host. The one place a kernel unravels a row. */
struct htp_row_index {
    uint32_t i1, i2, i3;
};

static inline struct htp_row_index htp_row_unravel(uint32_t r, uint32_t ne1, uint32_t ne2,
                                                   const struct fastdiv_values *div_ne1,
                                                   const struct fastdiv_values *div_ne12) {
    struct htp_row_index ix;
    ix.i3 = fastdiv(r, div_ne12);
    const uint32_t r12 = r - ix.i3 * ne1 * ne2;
    ix.i2 = fastdiv(r12, div_ne1);
    ix.i1 = r12 - ix.i2 * ne1;
    return ix;
}

/* ---- multi-device partitioning (seed, "Multi-Device Partitioning") ---- */

static inline uint32_t hex_gcd_u32(uint32_t a, uint32_t b) {
    while (b != 0) {
        const uint32_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* Dense in memory, dimensions in order, elements of elem_size bytes. */
static inline bool htp_tensor_is_contiguous(const struct htp_tensor *t, uint32_t elem_size) {
    return t->nb[0] == elem_size && t->nb[1] == t->nb[0] * t->ne[0] && t->nb[2] == t->nb[1] * t->ne[1] &&
           t->nb[3] == t->nb[2] * t->ne[2];
}

static inline bool htp_tensor_mdev_data_aligned(const struct htp_tensor *t) {
    return hex_is_aligned(t->data, HEX_L2_LINE_SIZE);
}

/* Whether t's strides step backwards somewhere: nb0 > nb1, nb1 > nb2 or nb2 > nb3 (a permuted view). */
static inline bool htp_tensor_is_permuted(const struct htp_tensor *t) {
    return t->nb[0] > t->nb[1] || t->nb[1] > t->nb[2] || t->nb[2] > t->nb[3];
}

/* Rows per chunk so that a chunk of rows of row_size bytes is a whole number of 128-byte lines (the seed's
 * htp_tensor_mdev_rows_per_chunk, ../shared/design/htp-reference-notes.md 9.3): 1 when the row stride and the outer
 * strides of the dimensions above 1 are multiples of 128 bytes; else, for a densely packed tensor (nb1 = row_size,
 * nb2 = nb1 * ne1, nb3 = nb2 * ne2 where those dimensions are above 1), 128 / gcd(row_size, 128) (1 for rows of 0
 * bytes). False, *rows_per_chunk 0, when the tensor cannot be split by rows without two devices writing one line:
 * base not on a line, elements not dense (nb0 != elem_size with ne0 > 1), permuted, or strides neither lines nor
 * dense. */
static inline bool htp_tensor_mdev_rows_per_chunk(const struct htp_tensor *t, uint32_t elem_size, uint32_t row_size,
                                                  uint32_t *rows_per_chunk) {
    *rows_per_chunk = 0;
    if (!htp_tensor_mdev_data_aligned(t) || (t->nb[0] != elem_size && t->ne[0] != 1) || htp_tensor_is_permuted(t)) {
        return false;
    }
    const uint32_t line = HEX_L2_LINE_SIZE;
    const bool lines = (t->ne[1] <= 1 || t->nb[1] % line == 0) && (t->ne[2] <= 1 || t->nb[2] % line == 0) &&
                       (t->ne[3] <= 1 || t->nb[3] % line == 0);
    if (t->ne[1] > 1 && lines) {
        *rows_per_chunk = 1;
        return true;
    }
    const bool dense = (t->ne[1] <= 1 || t->nb[1] == row_size) && (t->ne[2] <= 1 || t->nb[2] == t->nb[1] * t->ne[1]) &&
                       (t->ne[3] <= 1 || t->nb[3] == t->nb[2] * t->ne[2]);
    if (!dense) {
        return false;
    }
    *rows_per_chunk = row_size == 0 ? 1 : line / hex_gcd_u32(row_size, line);
    return true;
}

/* Rows per chunk for a kernel that writes t only by DMA: the line-clean chunk of htp_tensor_mdev_rows_per_chunk when
 * t's layout has one, else 1. DMA writes may split a line (seed, "128-Byte Cache Line Alignment"), so a layout the
 * line rule refuses still splits by rows instead of falling back to device 0; line-clean chunks where they exist keep
 * the kernel right if it ever writes through HVX stores. */
static inline uint32_t htp_tensor_mdev_dma_rows_per_chunk(const struct htp_tensor *t, uint32_t elem_size,
                                                          uint32_t row_size) {
    uint32_t rows_per_chunk = 0;
    return htp_tensor_mdev_rows_per_chunk(t, elem_size, row_size, &rows_per_chunk) ? rows_per_chunk : 1;
}

/* One device's share [start, start + count) of total_units. */
struct htp_tensor_mdev_range {
    uint32_t start;
    uint32_t count;
};

/* Device mdev_idx's share of total_units split in chunks of units_per_chunk over mdev_count devices (count_div: the
 * fastdiv values of mdev_count), the seed's htp_tensor_mdev_partition: ceil(chunks / mdev_count) chunks per device,
 * the last device taking what is left (the units past the whole chunks included; a device may get none). One device:
 * everything. units_per_chunk 0 (unsafe to split) or fewer whole chunks than devices: device 0 takes everything,
 * the others {total_units, 0}. */
static inline struct htp_tensor_mdev_range htp_tensor_mdev_partition(uint32_t total_units, uint32_t units_per_chunk,
                                                                     uint32_t mdev_idx, uint32_t mdev_count,
                                                                     const struct fastdiv_values *count_div) {
    struct htp_tensor_mdev_range r = {0, total_units};
    if (mdev_count <= 1) {
        return r;
    }
    const uint32_t n_chunks = units_per_chunk ? total_units / units_per_chunk : 0;
    if (n_chunks < mdev_count) {
        if (mdev_idx != 0) {
            r.start = total_units;
            r.count = 0;
        }
        return r;
    }
    const uint32_t q = fastdiv(n_chunks, count_div);
    const uint64_t per_dev = (uint64_t) (q + (q * mdev_count != n_chunks)) * units_per_chunk; /* ceil, no overflow */
    const uint64_t start = HEX_MIN((uint64_t) mdev_idx * per_dev, (uint64_t) total_units);
    r.start = (uint32_t) start;
    r.count = mdev_idx == mdev_count - 1 ? total_units - r.start : (uint32_t) HEX_MIN(per_dev, total_units - start);
    return r;
}

/* A device's rows of a row-split op (rope, softmax, flash attention, the row-stream kernels; htp_mdev_rows sets them):
 * [start, start + count), worker i's from start + i * per_thread. */
struct htp_tensor_mdev_rows {
    uint32_t start;
    uint32_t count;
    uint32_t per_thread;
};

/* Worker ith's rows of r: [*first, *end); false when it has none. */
static inline bool htp_tensor_mdev_rows_thread(const struct htp_tensor_mdev_rows *r, unsigned ith, uint32_t *first,
                                               uint32_t *end) {
    const uint64_t f = r->start + (uint64_t) r->per_thread * ith;
    const uint32_t e = r->start + r->count;
    if (f >= e) {
        return false;
    }
    *first = (uint32_t) f;
    *end = (uint32_t) HEX_MIN(f + r->per_thread, (uint64_t) e);
    return true;
}

#endif /* VNPU_HTP_TENSOR_H */
