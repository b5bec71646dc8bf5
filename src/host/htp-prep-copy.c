/*
 * The copy family on the host (get-rows-ops, set-rows-ops, cpy-ops of src/htp): what each supports, and the
 * kernel_params each op node carries: the copy plan (threads, row chunks, tasks per DMA block, VTCM slots,
 * fastdiv values; src/htp/copy-stream.h) and the op's own fields.
 *
 * As for the row families, the plan is a pure function of types, shapes, strides and the device's resources,
 * so supports_op (which asks whether a plan exists) and the request (which sends it) agree, and the kernel
 * recomputes the same VTCM layout from it (copy_plan_layout). A GET_ROWS plan fits both layouts a weight may
 * have (flat GGML rows or the tiled REPACK layout), since supports_op cannot know which one it will meet.
 */
#include "cpy-ops.h"
#include "get-rows-ops.h"
#include "htp-device-impl.h"
#include "set-rows-ops.h"

#include "log.h"

#include <stdio.h>
#include <string.h>

/* Thresholds of the plan, as the row families' (htp-prep-rows.c): HTP_COPY_MIN_BYTES_PER_THREAD of traffic
 * per extra worker keeps small ops (every copy of a decode step) on the calling thread, where a wake costs more
 * than the copy; HTP_COPY_BLOCK_BYTES of VTCM slots per half keeps a block well inside L2 while amortising
 * the per-descriptor cost; HTP_COPY_CHUNK_BYTES caps a task's slot so a wide row is cut into tasks that
 * pipeline and spread over the workers. */
#define HTP_COPY_MIN_BYTES_PER_THREAD (256u << 10)
#define HTP_COPY_BLOCK_BYTES          (16u << 10)
#define HTP_COPY_CHUNK_BYTES          (16u << 10)
#define HTP_COPY_SLOT_ALIGN           256 /* two vectors: the F32 -> F16 step reads them in pairs */

static uint32_t align_slot(uint64_t bytes) {
    return (uint32_t) ((bytes + HTP_COPY_SLOT_ALIGN - 1) / HTP_COPY_SLOT_ALIGN * HTP_COPY_SLOT_ALIGN);
}

/* Elements per task for rows of ne0 elements taking el_bytes each in the largest VTCM slot, a multiple of
 * unit (the type's block): the whole row when it fits HTP_COPY_CHUNK_BYTES. */
static uint32_t htp_copy_chunk(uint64_t ne0, double el_bytes, uint32_t unit) {
    uint64_t chunk = (uint64_t) (HTP_COPY_CHUNK_BYTES / el_bytes) / unit * unit;
    chunk = chunk < unit ? unit : chunk;
    return (uint32_t) (chunk < ne0 ? chunk : ne0);
}

/* Complete plan p (chunk, slots and scratch set) for walking the rows of a tensor of shape ne, n_reads
 * descriptors per task; false, with why, when it does not fit a thread's share of VTCM or the kernel's 32-bit
 * counters. */
static bool htp_copy_plan(const struct htp_device *d, struct copy_plan *p, const int64_t ne[VNPU_MAX_DIMS],
                          uint32_t n_reads, char *why, size_t size) {
    const uint64_t ne0 = (uint64_t) ne[0], nrows = (uint64_t) (ne[1] * ne[2] * ne[3]);
    p->n_chunks = (uint32_t) ((ne0 + p->chunk - 1) / p->chunk);
    const uint64_t tasks = nrows * p->n_chunks;
    if (tasks > UINT32_MAX || ne0 > UINT32_MAX) {
        snprintf(why, size, "%llu rows of %llu elements exceed the kernel's 32-bit counters",
                 (unsigned long long) nrows, (unsigned long long) ne0);
        return false;
    }
    const uint64_t slots = (uint64_t) p->slot_in + p->slot_out;
    uint64_t n = tasks * slots / HTP_COPY_MIN_BYTES_PER_THREAD;
    n = n < 1 ? 1 : n > d->n_threads ? d->n_threads : n;
    n = n > tasks && tasks > 0 ? tasks : n;
    p->n_threads = (uint32_t) n;
    p->tasks_per_thread = (uint32_t) ((tasks + n - 1) / n);

    const uint64_t budget = d->target.vtcm_size / n;
    uint64_t block = HTP_COPY_BLOCK_BYTES / slots;
    block = block < 1 ? 1 : block;
    block = block > (p->tasks_per_thread + 1) / 2 ? (p->tasks_per_thread + 1) / 2 : block;
    block = block > COPY_STREAM_MAX_BLOCK ? COPY_STREAM_MAX_BLOCK : block;
    while (block > 1 && !copy_plan_dma_fits(&(struct copy_plan){.block = (uint32_t) block}, n_reads)) {
        block--;
    }
    p->block = block < 1 ? 1 : (uint32_t) block;
    p->div_chunks = fastdiv_init(p->n_chunks);
    p->div_ne1 = fastdiv_init((uint32_t) ne[1]);
    p->div_ne12 = fastdiv_init((uint32_t) (ne[1] * ne[2]));
    while (p->block > 1 && !htp_vtcm_fits(copy_plan_layout(p).per_thread, p->n_threads, d->target.vtcm_size)) {
        p->block--;
    }
    const struct copy_layout l = copy_plan_layout(p);
    if (!htp_vtcm_fits(l.per_thread, p->n_threads, d->target.vtcm_size) || !copy_plan_dma_fits(p, n_reads)) {
        snprintf(why, size, "a task of %u elements needs %u bytes of VTCM, a thread has %llu", p->chunk, l.per_thread,
                 (unsigned long long) budget);
        return false;
    }
    return true;
}

static bool type_f32_f16(enum vnpu_type t) {
    return t == VNPU_TYPE_F32 || t == VNPU_TYPE_F16;
}

/* ---- CPY, CONT ---- */

/* The walk of dst = copy(src): both contiguous, one run of elements; same shapes pair rows; else one side must
 * be contiguous. */
static bool cpy_mode(const struct vnpu_tensor *src, const struct vnpu_tensor *dst, enum cpy_mode *mode) {
    if (vnpu_is_contiguous(src) && vnpu_is_contiguous(dst)) {
        *mode = CPY_MODE_FLAT;
    } else if (vnpu_are_same_shape(src, dst)) {
        *mode = CPY_MODE_SAME_SHAPE;
    } else if (vnpu_is_contiguous(src)) {
        *mode = CPY_MODE_SRC_FLAT;
    } else if (vnpu_is_contiguous(dst)) {
        *mode = CPY_MODE_DST_FLAT;
    } else {
        return false;
    }
    return true;
}

static bool cpy_plan(const struct htp_device *d, const struct vnpu_tensor *node, void *kparams, char *why,
                     size_t size) {
    struct cpy_kparams *kp = kparams;
    const struct vnpu_tensor *src = node->src[0];
    memset(kp, 0, sizeof(*kp));
    if (!type_f32_f16(src->type) || !type_f32_f16(node->type)) {
        snprintf(why, size, "%s -> %s (f32 and f16 only)", vnpu_type_name(src->type), vnpu_type_name(node->type));
        return false;
    }
    enum cpy_mode mode;
    if (vnpu_nelements(src) != vnpu_nelements(node) || !cpy_mode(src, node, &mode)) {
        snprintf(why, size, "shapes differ and neither side is contiguous");
        return false;
    }
    kp->mode = mode;
    const int64_t flat[VNPU_MAX_DIMS] = {vnpu_nelements(src), 1, 1, 1};
    const int64_t *walked = mode == CPY_MODE_FLAT ? flat : mode == CPY_MODE_DST_FLAT ? src->ne : node->ne;
    const size_t in = vnpu_type_size_of(src), out = vnpu_type_size_of(node);
    struct copy_plan *p = &kp->plan;
    p->chunk = htp_copy_chunk((uint64_t) walked[0], (double) (in > out ? in : out), 1);
    p->slot_in = align_slot((uint64_t) p->chunk * in);
    p->slot_out = src->type == node->type ? 0 : align_slot((uint64_t) p->chunk * out);
    return htp_copy_plan(d, p, walked, 1, why, size);
}

const struct htp_op_family htp_family_cpy = {.plan = cpy_plan, .n_src = 1};

/* ---- SET_ROWS ---- */

/* node = set_rows(dst = src[2], rows = src[0], indices = src[1]); node is a view of the destination. */
static bool set_rows_plan(const struct htp_device *d, const struct vnpu_tensor *node, void *kparams, char *why,
                          size_t size) {
    struct set_rows_kparams *kp = kparams;
    const struct vnpu_tensor *rows = node->src[0], *idx = node->src[1];
    memset(kp, 0, sizeof(*kp));
    if (rows->type != VNPU_TYPE_F32 || !type_f32_f16(node->type) ||
        (idx->type != VNPU_TYPE_I32 && idx->type != VNPU_TYPE_I64)) {
        snprintf(why, size, "%s rows into %s by %s indices (f32 rows into f32 or f16, i32 or i64 indices)",
                 vnpu_type_name(rows->type), vnpu_type_name(node->type), vnpu_type_name(idx->type));
        return false;
    }
    if (!vnpu_is_contiguous_rows(rows) || !vnpu_is_contiguous_rows(node)) {
        snprintf(why, size, "rows of '%s' or of the destination are not dense", rows->name);
        return false;
    }
    const size_t out = vnpu_type_size_of(node);
    struct copy_plan *p = &kp->plan;
    p->chunk = htp_copy_chunk((uint64_t) rows->ne[0], 4.0, 1);
    p->slot_in = align_slot((uint64_t) p->chunk * 4);
    p->slot_out = node->type == VNPU_TYPE_F32 ? 0 : align_slot((uint64_t) p->chunk * out);
    kp->div_ne11 = fastdiv_init((uint32_t) idx->ne[1]);
    kp->div_ne12 = fastdiv_init((uint32_t) idx->ne[2]);
    return htp_copy_plan(d, p, rows->ne, 1, why, size);
}

const struct htp_op_family htp_family_set_rows = {.plan = set_rows_plan, .n_src = 2};

/* ---- GET_ROWS ---- */

/* node = get_rows(table = src[0], indices = src[1]), F32 rows out. A quantized table's plan holds a task in both
 * layouts (flat blocks, or the tiles when ne00 is a whole number of them): its in slot takes the larger staging,
 * its DMA budget the longer list of planes. */
static bool get_rows_plan(const struct htp_device *d, const struct vnpu_tensor *node, void *kparams, char *why,
                          size_t size) {
    struct get_rows_kparams *kp = kparams;
    const struct vnpu_tensor *table = node->src[0], *idx = node->src[1];
    const struct gr_type *g = gr_type_get((uint32_t) table->type);
    memset(kp, 0, sizeof(*kp));
    if ((!g && !type_f32_f16(table->type)) || idx->type != VNPU_TYPE_I32 || node->type != VNPU_TYPE_F32) {
        snprintf(why, size, "rows of %s by %s indices into %s (f32, f16 or a tiled type, i32, f32)",
                 vnpu_type_name(table->type), vnpu_type_name(idx->type), vnpu_type_name(node->type));
        return false;
    }
    if (!vnpu_is_contiguous_rows(table) || !vnpu_is_contiguous_rows(node)) {
        snprintf(why, size, "elements of '%s' or of the result are not dense in their rows", table->name);
        return false;
    }
    struct copy_plan *p = &kp->plan;
    uint32_t n_reads = 1;
    if (g) {
        const uint64_t ne00 = (uint64_t) table->ne[0];
        p->chunk = (uint32_t) (ne00 < GR_CHUNK_MAX ? ne00 : GR_CHUNK_MAX);
        uint32_t offset[GR_N_REGIONS];
        struct htp_tile_geom geom;
        const bool tileable = htp_tile_geom_get((enum htp_type) table->type, &geom) && ne00 % geom.k_cols == 0;
        const uint32_t flat = gr_stage_layout(g, &g->flat, 0, p->chunk, offset);
        const uint32_t tiled = tileable ? gr_stage_layout(g, &g->tiled, geom.k_cols, p->chunk, offset) : 0;
        p->slot_in = align_slot(flat > tiled ? flat : tiled);
        p->slot_out = align_slot(hex_align_up(p->chunk * 4, 4 * HEX_VLEN));
        p->scratch = gr_scratch(p->chunk, g->sub);
        n_reads = tileable && g->tiled.n_dma > g->flat.n_dma ? g->tiled.n_dma : g->flat.n_dma;
    } else {
        const size_t in = vnpu_type_size_of(table);
        p->chunk = htp_copy_chunk((uint64_t) table->ne[0], 4.0, 1);
        p->slot_in = align_slot((uint64_t) p->chunk * in);
        p->slot_out = table->type == VNPU_TYPE_F32 ? 0 : align_slot((uint64_t) p->chunk * 4);
    }
    return htp_copy_plan(d, p, node->ne, n_reads, why, size);
}

const struct htp_op_family htp_family_get_rows = {.plan = get_rows_plan, .n_src = 2};
