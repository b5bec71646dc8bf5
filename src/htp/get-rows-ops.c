/*
 * GET_ROWS (get-rows-ops.h) on the copy stream. Each task looks its index up (one scalar read from the index
 * tensor in DDR, checked and kept: the DMA needs it as an address) and reads a chunk of the picked row into VTCM:
 *
 *   F32         one DMA in, one DMA out, nothing computed
 *   F16         one DMA in, HVX widening to F32 (hvx-convert.h), one DMA out
 *   quantized   the type's planes (get-rows-ops.h) from the flat row or from the row's tiles, the type's
 *               dequantizer (dequant.h) to codes, scales and biases, then dq_finish to F32, one DMA out
 */
#include "get-rows-ops.h"

#include "dequant.h"
#include "dma-queue.h"
#include "htp-checked.h"
#include "htp-ctx.h"
#include "htp-tensor.h"
#include "hvx-convert.h"

struct get_rows_ctx {
    const struct htp_tensor *src, *idx, *dst;
    const struct gr_type *type;     /* NULL for F32 and F16 */
    const struct gr_layout *layout; /* the table's: flat or tiled */
    dq_fn dequant;
    bool bias;
    uint32_t offset[GR_N_REGIONS]; /* the staging regions in an in slot (laid out for the plan's chunk) */
    uint32_t unit_shift;           /* log2 of the elements per DMA unit: a block, or a tile */
    uint32_t k_cols;               /* tiled: K per tile */
    uint32_t tile_size;            /* tiled: bytes per tile */
    uint64_t tile_row;             /* tiled: bytes per tile row (32 rows by all of ne00) */
    uint64_t matrix;               /* tiled: bytes per (i2, i3) matrix */
    uint32_t src_size;             /* F32, F16: bytes per element */
    uint32_t off_scale, off_bias;  /* quantized: where a task's scales, biases and the dequantizer's own scratch ... */
    uint32_t off_tmp;              /* ... start in the thread's scratch (the codes at 0), for the plan's chunk */
};

/* Task t's index, element [i1, i2, i3] of the index tensor, read once from DDR into t->index; the table row it names,
 * or -1 when that is outside [0, ne01). */
static int64_t get_rows_index(const struct get_rows_ctx *c, struct copy_task *t) {
    int32_t i;
    htp_shared_read(&i, htp_tensor_row(c->idx, t->i2, t->i3, 0) + (uintptr_t) t->i1 * c->idx->nb[0], sizeof(i));
    t->index = i;
    return i >= 0 && (uint32_t) i < c->src->ne[1] ? i : -1;
}

static void get_rows_report_bad(const struct copy_stream *s, const struct copy_task *t, struct htp_msg *m) {
    const struct get_rows_ctx *c = s->params;
    htp_msg_index(m, "row index", t->index, t->i1, t->i2, t->i3, "ne01", c->src->ne[1]);
}

/* The plane DMAs of a quantized task of row i01: from its flat blocks or from its tiles. */
static void get_rows_push_planes(const struct get_rows_ctx *c, struct dma_queue *q, const struct copy_task *t,
                                 uint32_t i01, uint8_t *slot) {
    const struct gr_type *g = c->type;
    const struct gr_layout *l = c->layout;
    const bool tiled = l == &g->tiled;
    const uint32_t first = t->i0 >> c->unit_shift, units = t->n >> c->unit_shift;
    const uint8_t *base;
    if (tiled) {
        const uint8_t *matrix = c->src->data + ((uint64_t) t->i3 * c->src->ne[2] + t->i2) * c->matrix;
        base = matrix + (uint64_t) (i01 / HTP_TENSOR_TILE_N_ROWS) * c->tile_row + (uint64_t) first * c->tile_size;
    } else {
        base = htp_tensor_row(c->src, i01, t->i2, t->i3) + (uintptr_t) first * g->bsize;
    }
    const uint32_t r = i01 % HTP_TENSOR_TILE_N_ROWS;
    for (uint32_t k = 0; k < l->n_dma; k++) {
        const struct gr_dma *d = &l->dma[k];
        uint8_t *dst = slot + c->offset[d->region] + d->dst_off;
        if (tiled) { /* r_mod and group are 32 and 1, or 8 and 8: shifts */
            const uint32_t r_shift = (uint32_t) __builtin_ctz(d->r_mod), g_shift = (uint32_t) __builtin_ctz(d->group);
            const uint8_t *src =
                base + d->off + (r & (d->r_mod - 1)) * d->r_mul + (uint64_t) (r >> r_shift) * c->tile_size;
            dma_queue_push(q, dma_make_pair(dst, src), d->stride, (size_t) c->tile_size << g_shift, d->size,
                           units >> g_shift);
        } else {
            dma_queue_push(q, dma_make_pair(dst, base + d->off), d->stride, g->bsize, d->size, units);
        }
    }
}

static bool get_rows_push_reads(const struct copy_stream *s, struct dma_queue *q, struct copy_task *t, uint8_t *slot) {
    const struct get_rows_ctx *c = s->params;
    const int64_t i01 = get_rows_index(c, t);
    if (i01 < 0) {
        return false;
    }
    if (c->type) {
        get_rows_push_planes(c, q, t, (uint32_t) i01, slot);
    } else {
        const uint8_t *p = htp_tensor_row(c->src, (uint32_t) i01, t->i2, t->i3) + (uintptr_t) t->i0 * c->src_size;
        dma_queue_push(q, dma_make_pair(slot, p), 0, 0, (size_t) t->n * c->src_size, 1);
    }
    return true;
}

static void get_rows_push_write(const struct copy_stream *s, struct dma_queue *q, const struct copy_task *t,
                                const uint8_t *slot) {
    const struct get_rows_ctx *c = s->params;
    uint8_t *p = htp_tensor_row(c->dst, t->i1, t->i2, t->i3) + (uintptr_t) t->i0 * 4;
    dma_queue_push(q, dma_make_pair(p, slot), 0, 0, (size_t) t->n * 4, 1);
}

static void get_rows_compute_f16(const struct copy_stream *s, const struct copy_task *t, const uint8_t *in,
                                 uint8_t *out, uint8_t *scratch) {
    HVX_SCOPE();
    (void) s, (void) scratch;
    hvx_f16_to_f32_aa(out, in, t->n);
}

static void get_rows_compute_quant(const struct copy_stream *s, const struct copy_task *t, const uint8_t *in,
                                   uint8_t *out, uint8_t *scratch) {
    HVX_SCOPE();
    const struct get_rows_ctx *c = s->params;
    const struct gr_type *g = c->type;
    const uint8_t *region[GR_N_REGIONS];
    for (uint32_t k = 0; k < GR_N_REGIONS; k++) {
        region[k] = in + c->offset[k];
    }
    const struct dq_out o = {
        .codes = scratch, .scale = scratch + c->off_scale, .bias = scratch + c->off_bias, .tmp = scratch + c->off_tmp};
    c->dequant(region, t->n, &o);
    dq_finish(o.codes, o.scale, c->bias ? o.bias : NULL, t->n, g->sub, out);
}

static const struct copy_ops get_rows_ops_f32 = {get_rows_push_reads, get_rows_report_bad, NULL, get_rows_push_write};
static const struct copy_ops get_rows_ops_f16 = {get_rows_push_reads, get_rows_report_bad, get_rows_compute_f16,
                                                 get_rows_push_write};
static const struct copy_ops get_rows_ops_quant = {get_rows_push_reads, get_rows_report_bad, get_rows_compute_quant,
                                                   get_rows_push_write};

/* The context of a quantized table: its row of the type table, its layout and dequantizer; false when the
 * plan's scratch cannot hold a task or the tiles do not match the shape. */
static bool get_rows_quant(struct get_rows_ctx *c, const struct copy_plan *p) {
    const struct gr_type *g = c->type;
    const struct dq_type *dq = &dq_types[c->src->type];
    const bool tiled = (c->src->flags & HTP_TENSOR_TILED) != 0;
    c->layout = tiled ? &g->tiled : &g->flat;
    c->dequant = tiled ? dq->tiled : dq->flat;
    c->bias = dq->bias;
    if (tiled) {
        struct htp_tile_geom geom;
        if (!htp_tile_geom_get((enum htp_type) c->src->type, &geom) || c->src->ne[0] % geom.k_cols != 0) {
            return false;
        }
        c->k_cols = geom.k_cols;
        c->unit_shift = (uint32_t) __builtin_ctz(geom.k_cols);
        c->tile_size = geom.size;
        c->tile_row = htp_tile_row_size(&geom, c->src->ne[0]);
        c->matrix = htp_tile_matrix_size(&geom, c->src->ne[0], c->src->ne[1]);
    }
    if (!tiled) {
        c->unit_shift = (uint32_t) __builtin_ctz(g->blck);
    }
    c->off_scale = gr_scratch_codes(p->chunk); /* once per op: gr_scratch_scales divides */
    c->off_bias = c->off_scale + gr_scratch_scales(p->chunk, g->sub);
    c->off_tmp = c->off_bias + gr_scratch_scales(p->chunk, g->sub);
    return p->chunk % g->blck == 0 && p->chunk <= GR_CHUNK_MAX && p->scratch >= gr_scratch(p->chunk, g->sub) &&
           p->slot_in >= gr_stage_layout(g, c->layout, c->k_cols, p->chunk, c->offset) &&
           p->slot_out >= hex_align_up(p->chunk * 4, 4 * HEX_VLEN);
}

uint32_t op_get_rows(struct htp_op_ctx *octx) {
    const struct get_rows_kparams *kp = htp_op_kparams(octx);
    const struct htp_tensor *src = octx->src[0], *idx = octx->src[1], *dst = octx->dst[0];
    struct get_rows_ctx c = {.src = src, .idx = idx, .dst = dst, .type = gr_type_get(src->type)};
    if ((!c.type && src->type != HTP_TYPE_F32 && src->type != HTP_TYPE_F16) || idx->type != HTP_TYPE_I32 ||
        dst->type != HTP_TYPE_F32) {
        return HTP_STATUS_NO_SUPPORT;
    }
    const struct copy_ops *ops = &get_rows_ops_quant;
    if (c.type) {
        if (!get_rows_quant(&c, &kp->plan)) {
            return HTP_STATUS_INVAL_PARAMS;
        }
    } else {
        c.src_size = src->type == HTP_TYPE_F32 ? 4 : 2;
        ops = src->type == HTP_TYPE_F32 ? &get_rows_ops_f32 : &get_rows_ops_f16;
        if (src->nb[0] != c.src_size) {
            return HTP_STATUS_INVAL_PARAMS;
        }
    }
    if (dst->nb[0] != 4 || dst->ne[0] != src->ne[0] || idx->ne[0] != dst->ne[1] || idx->ne[1] != dst->ne[2] ||
        idx->ne[2] != dst->ne[3] || src->ne[2] != dst->ne[2] || src->ne[3] != dst->ne[3]) {
        return HTP_STATUS_INVAL_PARAMS;
    }
    struct copy_stream s = {
        .octx = octx,
        .plan = &kp->plan,
        .ops = ops,
        .params = &c,
        .ne0 = dst->ne[0],
        .ne1 = dst->ne[1],
        .ne2 = dst->ne[2],
        .nrows = htp_tensor_nrows(dst),
        .n_reads = c.type ? c.layout->n_dma : 1,
        .rows_dst = dst,
        .rows_dst_elem = 4,
    };
    return copy_stream_run(&s);
}
