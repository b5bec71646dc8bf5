/*
 * The NPU library's entry (the seed's htp/main.c): htp_iface's start, process and stop.
 *
 * process serves one request block (htp-msg.h): check the header and the areas it points to; map the
 * batch's buffers into the session window (the seed's sliding window, rules below: reuse by fd; when short of
 * room unmap the unpinned buffers the batch does not use, then defragment); then for each op resolve its tensors (each
 * checked to lie inside its buffer), run its kernel through the opcode switch, fail it when a DMA push found its queue
 * full, and in strict DMA mode require every thread's queue to be empty. The first failing op ends the batch; the
 * response carries its index, the status and a message naming the op.
 *
 * The block is host memory a host thread may write while the NPU works (htp-checked.h): the header, the
 * buffer descriptors and each tensor and op descriptor are read once into NPU memory, and only the copies
 * are checked and used; every size is computed with overflow checks.
 */
#include "act-ops.h"
#include "binary-ops.h"
#include "cpy-ops.h"
#include "flash-attn-ops.h"
#include "get-rows-ops.h"
#include "hex-common.h"
#include "htp-arch.h"
#include "htp-checked.h"
#include "htp-ctx.h"
#include "htp-dcache.h"
#include "htp-fence.h"
#include "htp-ops.h"
#include "htp-perf.h"
#include "htp-status-msg.h"
#include "htp-tiles.h"
#include "matmul-id-ops.h"
#include "matmul-ops.h"
#include "rope-ops.h"
#include "set-rows-ops.h"
#include "softmax-ops.h"
#include "unary-ops.h"
#include "vdsp-device.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Sessions one process can open at once (HTP0..HTP15), each with its context here: the NPU side has no
 * heap. */
#define HTP_MAX_SESSIONS 16

static struct htp_ctx htp_ctxs[HTP_MAX_SESSIONS];
static uint32_t htp_ctx_used[HTP_MAX_SESSIONS];

/* ---- the request block ---- */

/* A checked request: its header and buffer descriptors as read once from the block (htp-checked.h, rule 2), and
 * where its other areas are. Tensor and op descriptors are read once each, when an op resolves them. */
struct htp_batch {
    struct htp_req hdr;                     /* the header up to rsp (the response is written into the block) */
    struct htp_buf_desc bufs[HTP_MAX_BUFS]; /* hdr.n_bufs of them */
    const struct htp_tensor_desc *tensors;  /* in the block */
    const struct htp_op_desc *ops;          /* in the block */
    struct htp_op_prof *prof;               /* NULL unless HTP_REQ_PROFILE */
    struct htp_op_rsp *op_rsp;              /* in the block: every op's response */
    struct htp_trace_evt *trace;            /* NULL unless HTP_REQ_TRACE */
    struct htp_thread_perf *perf;           /* NULL unless HTP_REQ_PERF: [n_ops][n_threads] */
    struct htp_perf_names *perf_names;      /* with it */
    uint32_t devaddr[HTP_MAX_BUFS];         /* where each buffer is mapped */
    bool usable[HTP_MAX_BUFS];              /* mapped for this request (not an HTP_BUF_UNMAP entry) */
};

/* Whether the header's count n is at most max; else says which. */
static bool count_ok(const char *name, uint32_t n, uint32_t max, struct htp_msg *m) {
    if (n <= max) {
        return true;
    }
    htp_msg_str(m, "request layout: ");
    htp_msg_str(m, name);
    htp_msg_str(m, " = ");
    htp_msg_u64(m, n, 10);
    htp_msg_str(m, ", at most ");
    htp_msg_u64(m, max, 10);
    return false;
}

/* Whether count items of item bytes at byte off (8-byte aligned) lie inside the block of size bytes; else says which
 * area. */
static bool area_ok(const char *name, uint32_t off, uint64_t count, uint64_t item, uint32_t size, struct htp_msg *m) {
    uint64_t bytes, end;
    if (off % 8 == 0 && htp_mul_u64(count, item, &bytes) && htp_add_u64(off, bytes, &end) && end <= size) {
        return true;
    }
    htp_msg_str(m, "request layout: the ");
    htp_msg_str(m, name);
    htp_msg_str(m, " area (");
    htp_msg_u64(m, count, 10);
    htp_msg_str(m, " x ");
    htp_msg_u64(m, item, 10);
    htp_msg_str(m, " bytes at byte ");
    htp_msg_u64(m, off, 10);
    htp_msg_str(m, ") is not 8-byte aligned or ends past the ");
    htp_msg_u64(m, size, 10);
    htp_msg_str(m, "-byte block");
    return false;
}

/* Whether the header's place in its group is 0 <= mdev_idx < mdev_count <= HTP_MAX_MDEV; else says which. */
static bool mdev_ok(const struct htp_req *h, struct htp_msg *m) {
    if (h->mdev_count >= 1 && h->mdev_count <= HTP_MAX_MDEV && h->mdev_idx < h->mdev_count) {
        return true;
    }
    htp_msg_str(m, "request layout: mdev_idx ");
    htp_msg_u64(m, h->mdev_idx, 10);
    htp_msg_str(m, " of mdev_count ");
    htp_msg_u64(m, h->mdev_count, 10);
    htp_msg_str(m, ", expected 0 <= mdev_idx < mdev_count <= ");
    htp_msg_u64(m, HTP_MAX_MDEV, 10);
    return false;
}

/* Whether the request's ops meet its group's peers at fences: a row-split group's (mdev_count > 1), not run alone. */
static bool batch_fenced(const struct htp_req *h) {
    return h->mdev_count > 1 && !(h->flags & HTP_REQ_MDEV_ALONE);
}

static uint32_t batch_check(struct htp_ctx *ctx, uint8_t *block, uint32_t size, struct htp_batch *b,
                            struct htp_msg *m) {
    htp_shared_read(&b->hdr, block, offsetof(struct htp_req, rsp));
    const struct htp_req *h = &b->hdr;
    if (h->version != HTP_MSG_VERSION) {
        htp_msg_str(m, "request version ");
        htp_msg_u64(m, h->version, 10);
        htp_msg_str(m, ", expected ");
        htp_msg_u64(m, HTP_MSG_VERSION, 10);
        return HTP_STATUS_INVAL_PARAMS;
    }
    const bool profile = (h->flags & HTP_REQ_PROFILE) != 0, trace = (h->flags & HTP_REQ_TRACE) != 0;
    const bool perf = (h->flags & HTP_REQ_PERF) != 0;
    if (perf && !htp_perf_counting()) {
        htp_msg_str(m, "HTP_REQ_PERF: this NPU library does not count (load libvnpu-htp-vNN-counted.so)");
        return HTP_STATUS_NO_SUPPORT;
    }
    if (perf && h->n_perf_threads != ctx->n_threads) {
        htp_msg_str(m, "request layout: perf area of ");
        htp_msg_u64(m, h->n_perf_threads, 10);
        htp_msg_str(m, " threads per op, the session has ");
        htp_msg_u64(m, ctx->n_threads, 10);
        return HTP_STATUS_INVAL_PARAMS;
    }
    const uint64_t n_evt = (uint64_t) ctx->n_threads * h->n_trace; /* trace records (two 32-bit factors) */
    if (!count_ok("n_bufs", h->n_bufs, HTP_MAX_BUFS, m) || !count_ok("n_tensors", h->n_tensors, HTP_MAX_TENSORS, m) ||
        !count_ok("n_ops", h->n_ops, HTP_MAX_OPS, m) || !mdev_ok(h, m) ||
        !area_ok("buffers", h->off_bufs, h->n_bufs, sizeof(struct htp_buf_desc), size, m) ||
        !area_ok("tensors", h->off_tensors, h->n_tensors, sizeof(struct htp_tensor_desc), size, m) ||
        !area_ok("ops", h->off_ops, h->n_ops, sizeof(struct htp_op_desc), size, m) ||
        !area_ok("op response", h->off_op_rsp, h->n_ops, sizeof(struct htp_op_rsp), size, m) ||
        (profile && !area_ok("profile", h->off_prof, h->n_ops, sizeof(struct htp_op_prof), size, m)) ||
        (trace && !area_ok("trace", h->off_trace, n_evt, sizeof(struct htp_trace_evt), size, m)) ||
        (perf && !area_ok("perf", h->off_perf, (uint64_t) h->n_ops * ctx->n_threads, sizeof(struct htp_thread_perf),
                          size, m)) ||
        (perf && !area_ok("perf names", h->off_perf_names, 1, sizeof(struct htp_perf_names), size, m))) {
        return HTP_STATUS_INVAL_PARAMS;
    }
    if (h->n_ops > 0 && h->off_op_rsp < sizeof(struct htp_req)) { /* written after each op: the header's rsp too */
        htp_msg_str(m, "request layout: the op response area (at byte ");
        htp_msg_u64(m, h->off_op_rsp, 10);
        htp_msg_str(m, ") overlaps the ");
        htp_msg_u64(m, sizeof(struct htp_req), 10);
        htp_msg_str(m, "-byte header");
        return HTP_STATUS_INVAL_PARAMS;
    }
    htp_shared_read(b->bufs, block + h->off_bufs, h->n_bufs * sizeof(struct htp_buf_desc));
    b->tensors = (const struct htp_tensor_desc *) (block + h->off_tensors);
    b->ops = (const struct htp_op_desc *) (block + h->off_ops);
    b->prof = profile ? (struct htp_op_prof *) (block + h->off_prof) : NULL;
    b->op_rsp = (struct htp_op_rsp *) (block + h->off_op_rsp);
    b->trace = trace ? (struct htp_trace_evt *) (block + h->off_trace) : NULL;
    b->perf = perf ? (struct htp_thread_perf *) (block + h->off_perf) : NULL;
    b->perf_names = perf ? (struct htp_perf_names *) (block + h->off_perf_names) : NULL;
    return HTP_STATUS_OK;
}

/* ---- buffer mappings (the sliding window) ----
 *
 * Before its ops run, a request's buffers are mapped into the session window (seed 000, Large model handling;
 * upstream's prep_op_bufs, ../shared/design/htp-reference-notes.md §10). The rules, in order:
 *  1. A buffer is found among the mappings by fd and reused; a mapping of another size is dropped first, and an
 *     HTP_BUF_UNMAP entry (the host frees the buffer) only drops it.
 *  2. A buffer larger than one mapping may be (vdsp_mmap_max: HAP_mmap's 2 GiB on v73) is an error naming both.
 *  3. The missing ones are mapped, largest first (large runs are the hard ones to find in a fragmented window).
 *  4. When the window lacks room: unmap the unpinned mappings (weights) the request does not use, and map again.
 *  5. Still no room: defragment, dropping every unpinned mapping, the request's own too, and map again.
 *  6. Still no room: drop every mapping, pinned ones too (they are mapped again by the request that next uses them),
 *     so the request's buffers are alone in the window. If they do not fit even so, the request is an error naming
 *     its bytes, the window's and its largest buffer's (the host splits requests so that this never happens:
 *     vdsp_session_window_fits).
 * Maps, unmaps and defragmentations (rules 5 and 6) are counted in the response and logged (vdsp_log). */

static void map_remove(struct htp_ctx *ctx, struct htp_mapping *map) {
    vdsp_log(ctx->dev, "htp: unmap fd %d (%llu bytes%s) at 0x%08x", map->fd, (unsigned long long) map->size,
             map->pinned ? ", pinned" : "", map->devaddr);
    vdsp_munmap(ctx->dev, map->devaddr);
    ctx->n_unmapped++;
    *map = ctx->maps[--ctx->n_maps];
}

/* The batch's buffer (not an HTP_BUF_UNMAP entry) with this fd, or -1. */
static int batch_buf_of_fd(const struct htp_batch *b, int32_t fd) {
    for (uint32_t i = 0; i < b->hdr.n_bufs; i++) {
        if (b->bufs[i].fd == fd && !(b->bufs[i].flags & HTP_BUF_UNMAP)) {
            return (int) i;
        }
    }
    return -1;
}

/* Unmap the mappings that match: unpinned ones unless pinned is set, and only those the batch does not use unless
 * used is set; a dropped mapping the batch uses is no longer usable. */
static void map_drop(struct htp_ctx *ctx, struct htp_batch *b, bool pinned, bool used) {
    for (uint32_t i = 0; i < ctx->n_maps;) {
        const int bi = batch_buf_of_fd(b, ctx->maps[i].fd);
        if ((pinned || !ctx->maps[i].pinned) && (used || bi < 0)) {
            if (bi >= 0) {
                b->usable[bi] = false;
            }
            map_remove(ctx, &ctx->maps[i]);
        } else {
            i++;
        }
    }
}

/* "cannot map buffer i (fd F, S bytes): ", before the reason. */
static void map_msg_buf(struct htp_msg *m, const struct htp_batch *b, uint32_t i) {
    htp_msg_str(m, "cannot map buffer ");
    htp_msg_u64(m, i, 10);
    htp_msg_str(m, " (fd ");
    htp_msg_u64(m, (uint32_t) b->bufs[i].fd, 10);
    htp_msg_str(m, ", ");
    htp_msg_u64(m, b->bufs[i].size, 10);
    htp_msg_str(m, " bytes): ");
}

/* What map_missing did. */
enum map_result {
    MAP_DONE,    /* every buffer of the batch is mapped */
    MAP_NO_ROOM, /* the window had no room for one */
    MAP_REFUSED, /* the platform refused one (not a buffer of its size): the message says which */
};

/* Map every buffer of the batch that is not mapped yet, largest first (rule 3). A buffer mapped before a failure
 * stays mapped. */
static enum map_result map_missing(struct htp_ctx *ctx, struct htp_batch *b, struct htp_msg *m) {
    for (;;) {
        int next = -1;
        for (uint32_t i = 0; i < b->hdr.n_bufs; i++) {
            if (!b->usable[i] && !(b->bufs[i].flags & HTP_BUF_UNMAP) &&
                (next < 0 || b->bufs[i].size > b->bufs[next].size)) {
                next = (int) i;
            }
        }
        if (next < 0) {
            return MAP_DONE;
        }
        const struct htp_buf_desc *d = &b->bufs[next];
        uint32_t addr = 0;
        const int rc = ctx->n_maps == HTP_MAX_MAPPINGS ? -1 : vdsp_mmap(ctx->dev, d->fd, (size_t) d->size, &addr);
        if (rc == -2) {
            map_msg_buf(m, b, (uint32_t) next);
            htp_msg_str(m, "not a shared buffer of that size");
            return MAP_REFUSED;
        }
        if (rc != 0) {
            return MAP_NO_ROOM;
        }
        vdsp_log(ctx->dev, "htp: map fd %d (%llu bytes%s) at 0x%08x", d->fd, (unsigned long long) d->size,
                 (d->flags & HTP_BUF_PINNED) ? ", pinned" : "", addr);
        ctx->maps[ctx->n_maps++] = (struct htp_mapping){
            .fd = d->fd, .devaddr = addr, .size = d->size, .pinned = (d->flags & HTP_BUF_PINNED) != 0};
        ctx->n_mapped++;
        b->devaddr[next] = addr;
        b->usable[next] = true;
    }
}

/* Rules 1 and 2 for buffer i: drop a stale mapping, check the descriptor, reuse a mapping. */
static uint32_t map_reuse(struct htp_ctx *ctx, struct htp_batch *b, uint32_t i, struct htp_msg *m) {
    const struct htp_buf_desc *d = &b->bufs[i];
    for (uint32_t k = 0; k < ctx->n_maps; k++) {
        if (ctx->maps[k].fd == d->fd && (ctx->maps[k].size != d->size || (d->flags & HTP_BUF_UNMAP))) {
            map_remove(ctx, &ctx->maps[k]);
            break;
        }
    }
    if (d->flags & HTP_BUF_UNMAP) {
        return HTP_STATUS_OK;
    }
    if (d->fd < 0 || d->size == 0 || d->size > vdsp_mmap_max(ctx->dev)) {
        map_msg_buf(m, b, i);
        if (d->fd >= 0 && d->size != 0) {
            htp_msg_str(m, "more than the ");
            htp_msg_u64(m, vdsp_mmap_max(ctx->dev), 10);
            htp_msg_str(m, " bytes one mapping may take on v");
            htp_msg_u64(m, HTP_ARCH, 10);
            htp_msg_str(m, " (HAP_mmap's limit)");
        } else {
            htp_msg_str(m, "not a buffer");
        }
        return HTP_STATUS_INVAL_PARAMS;
    }
    for (uint32_t k = 0; k < ctx->n_maps; k++) {
        if (ctx->maps[k].fd == d->fd) {
            b->devaddr[i] = ctx->maps[k].devaddr;
            b->usable[i] = true;
        }
    }
    return HTP_STATUS_OK;
}

/* Rule 6's error: the batch's buffers do not fit the window even alone. */
static uint32_t map_no_room(struct htp_ctx *ctx, const struct htp_batch *b, struct htp_msg *m) {
    uint64_t total = 0;
    uint32_t n = 0, largest = 0;
    for (uint32_t i = 0; i < b->hdr.n_bufs; i++) {
        if (!(b->bufs[i].flags & HTP_BUF_UNMAP)) {
            total += b->bufs[i].size; /* each at most vdsp_mmap_max (rule 2): 16 of them fit 64 bits */
            largest = b->bufs[i].size > b->bufs[largest].size ? i : largest;
            n++;
        }
    }
    htp_msg_str(m, "no room in the window: the batch's ");
    htp_msg_u64(m, n, 10);
    htp_msg_str(m, " buffers take ");
    htp_msg_u64(m, total, 10);
    htp_msg_str(m, " bytes, the window is ");
    htp_msg_u64(m, vdsp_window_size(ctx->dev), 10);
    htp_msg_str(m, " bytes, the largest buffer (");
    htp_msg_u64(m, largest, 10);
    htp_msg_str(m, ") ");
    htp_msg_u64(m, b->bufs[largest].size, 10);
    htp_msg_str(m, " bytes");
    return HTP_STATUS_INVAL_PARAMS;
}

static uint32_t batch_map(struct htp_ctx *ctx, struct htp_batch *b, struct htp_msg *m) {
    for (uint32_t i = 0; i < b->hdr.n_bufs; i++) {
        b->usable[i] = false;
    }
    for (uint32_t i = 0; i < b->hdr.n_bufs; i++) {
        const uint32_t st = map_reuse(ctx, b, i, m);
        if (st != HTP_STATUS_OK) {
            return st;
        }
    }
    enum map_result r = map_missing(ctx, b, m); /* rule 3 */
    if (r == MAP_NO_ROOM) {
        map_drop(ctx, b, false, false); /* rule 4 */
        r = map_missing(ctx, b, m);
    }
    for (int all = 0; all < 2 && r == MAP_NO_ROOM; all++) { /* rules 5 and 6 */
        vdsp_log(ctx->dev, "htp: request %u: defragmenting the window (every %smapping)", b->hdr.id,
                 all ? "" : "unpinned ");
        ctx->n_defrags++;
        map_drop(ctx, b, all, true);
        r = map_missing(ctx, b, m);
    }
    return r == MAP_DONE ? HTP_STATUS_OK : r == MAP_REFUSED ? HTP_STATUS_INVAL_PARAMS : map_no_room(ctx, b, m);
}

/* ---- tensors ---- */

/* Bytes from a tensor's element [0,0,0,0] to one past its last (0 when it is empty) into *bytes; false when that does
 * not fit 64 bits. Flat: (ne0 / blck - 1) nb0 + the sum over i >= 1 of (ne[i] - 1) nb[i], plus a block; tiled (g not
 * NULL): ne2 ne3 whole matrices of tile rows (htp-tiles.h), whatever nb says. */
static bool tensor_bytes(const struct htp_tensor_desc *d, uint32_t blck, uint32_t tsize, const struct htp_tile_geom *g,
                         uint64_t *bytes) {
    *bytes = 0;
    for (int i = 0; i < HTP_MAX_DIMS; i++) {
        if (d->ne[i] == 0) {
            return true;
        }
    }
    if (g) {
        return htp_mul_u64(htp_tile_n_col_tiles(d->ne[1]), htp_tile_row_size(g, d->ne[0]), bytes) &&
               htp_mul_u64(*bytes, d->ne[2], bytes) && htp_mul_u64(*bytes, d->ne[3], bytes);
    }
    uint64_t end = tsize;
    for (int i = 0; i < HTP_MAX_DIMS; i++) {
        uint64_t span;
        if (!htp_mul_u64((i == 0 ? d->ne[0] / blck : d->ne[i]) - 1, d->nb[i], &span) || !htp_add_u64(end, span, &end)) {
            return false;
        }
    }
    *bytes = end;
    return true;
}

/* Tensor ti of the batch as a native view, checked to lie inside its buffer: its descriptor is read once from the
 * block, and the copy is checked and used. */
static uint32_t tensor_resolve(struct htp_ctx *ctx, const struct htp_batch *b, uint32_t ti, struct htp_tensor *t,
                               struct htp_msg *m) {
    struct htp_tensor_desc d;
    uint32_t blck = 0, tsize = 0;
    const bool in_batch = ti < b->hdr.n_tensors;
    if (in_batch) {
        htp_shared_read(&d, &b->tensors[ti], sizeof(d));
    }
    if (!in_batch || d.bi >= b->hdr.n_bufs || !b->usable[d.bi] || !htp_type_geometry(d.type, &blck, &tsize) ||
        d.ne[0] % blck != 0) {
        htp_msg_str(m, "tensor ");
        htp_msg_u64(m, ti, 10);
        htp_msg_str(m, ": bad index, buffer or type");
        return HTP_STATUS_INVAL_PARAMS;
    }
    const bool tiled = (d.flags & HTP_TENSOR_TILED) != 0; /* whole matrices of tile rows instead of rows nb[1] apart */
    struct htp_tile_geom g;
    if (tiled && (!htp_tile_geom_get((enum htp_type) d.type, &g) || d.ne[0] % g.k_cols != 0)) {
        htp_msg_str(m, "tensor ");
        htp_msg_u64(m, ti, 10);
        htp_msg_str(m, ": tiled, but its type has no tiled layout or ne0 is not a whole number of tiles");
        return HTP_STATUS_INVAL_PARAMS;
    }
    uint64_t bytes, end;
    if (!tensor_bytes(&d, blck, tsize, tiled ? &g : NULL, &bytes) || !htp_add_u64(d.offset, bytes, &end)) {
        htp_msg_str(m, "tensor ");
        htp_msg_u64(m, ti, 10);
        htp_msg_str(m, tiled ? ": its tiled size (matrix bytes x ne2 x ne3) overflows 64 bits"
                             : ": its extent (the sum of (ne[i] - 1) x nb[i]) overflows 64 bits");
        return HTP_STATUS_INVAL_PARAMS;
    }
    uint64_t rows;
    if (!htp_mul_u64((uint64_t) d.ne[1] * d.ne[2], d.ne[3], &rows) || rows > UINT32_MAX) {
        htp_msg_str(m, "tensor ");
        htp_msg_u64(m, ti, 10);
        htp_msg_str(m, ": ne1 x ne2 x ne3 is more than 4294967295 rows (kernels count rows in 32 bits)");
        return HTP_STATUS_INVAL_PARAMS;
    }
    if (end > b->bufs[d.bi].size) {
        htp_msg_str(m, "tensor ");
        htp_msg_u64(m, ti, 10);
        htp_msg_str(m, " ends at byte ");
        htp_msg_u64(m, end, 10);
        htp_msg_str(m, " of a ");
        htp_msg_u64(m, b->bufs[d.bi].size, 10);
        htp_msg_str(m, "-byte buffer");
        return HTP_STATUS_INVAL_PARAMS;
    }
    t->data = vdsp_window_base(ctx->dev) + b->devaddr[d.bi] + d.offset;
    t->type = d.type;
    t->flags = d.flags;
    for (int i = 0; i < HTP_MAX_DIMS; i++) {
        t->ne[i] = d.ne[i];
        t->nb[i] = d.nb[i];
    }
    return HTP_STATUS_OK;
}

/* The op's operands into octx: required ones must be present, optional ones may be absent. */
static uint32_t op_resolve(struct htp_ctx *ctx, const struct htp_batch *b, struct htp_op_ctx *octx, struct htp_msg *m) {
    uint32_t n_src = 0, n_dst = 0;
    if (!htp_op_operands(octx->op.opcode, &n_src, &n_dst)) {
        htp_msg_str(m, "unknown opcode");
        return HTP_STATUS_NO_SUPPORT;
    }
    struct htp_tensor *next = octx->tensors;
    for (uint32_t j = 0; j < HTP_MAX_SRC + HTP_MAX_DST; j++) {
        const bool is_src = j < HTP_MAX_SRC;
        const uint32_t k = is_src ? j : j - HTP_MAX_SRC;
        const uint16_t ti = is_src ? octx->op.src[k] : octx->op.dst[k];
        const struct htp_tensor **slot = is_src ? &octx->src[k] : &octx->dst[k];
        *slot = NULL;
        if (ti == HTP_NO_TENSOR) {
            if (k < (is_src ? n_src : n_dst)) {
                htp_msg_str(m, is_src ? "missing src " : "missing dst ");
                htp_msg_u64(m, k, 10);
                return HTP_STATUS_INVAL_PARAMS;
            }
            continue;
        }
        const uint32_t st = tensor_resolve(ctx, b, ti, next, m);
        if (st != HTP_STATUS_OK) {
            return st;
        }
        *slot = next++;
    }
    return HTP_STATUS_OK;
}

/* ---- ops ---- */

static uint32_t op_dispatch(struct htp_op_ctx *octx) {
    switch ((enum htp_op) octx->op.opcode) {
        case HTP_OP_ADD:
        case HTP_OP_SUB:
        case HTP_OP_MUL:
        case HTP_OP_DIV: return op_binary(octx);
        case HTP_OP_SCALE:
        case HTP_OP_RMS_NORM:
        case HTP_OP_RMS_NORM_MUL: return op_unary(octx);
        case HTP_OP_UNARY_SILU:
        case HTP_OP_UNARY_GELU:
        case HTP_OP_GLU_SWIGLU: return op_act(octx);
        case HTP_OP_CPY: return op_cpy(octx);
        case HTP_OP_GET_ROWS: return op_get_rows(octx);
        case HTP_OP_SET_ROWS: return op_set_rows(octx);
        case HTP_OP_ROPE: return op_rope(octx);
        case HTP_OP_SOFT_MAX: return op_softmax(octx);
        case HTP_OP_FLASH_ATTN_EXT: return op_flash_attn(octx);
        case HTP_OP_MUL_MAT: return op_matmul(octx);
        case HTP_OP_MUL_MAT_ID: return op_matmul_id(octx);
        case HTP_OP_COUNT: break;
    }
    return HTP_STATUS_NO_SUPPORT;
}

/* Fault injection (HTP_REQ_INJECT_*): the last worker of the pool makes the bad access, so the fault takes
 * the path of a kernel's fault on a worker thread. */
struct inject_job {
    struct htp_ctx *ctx;
    uint32_t flags;
};

static void inject_worker(unsigned nth, unsigned ith, void *arg) {
    const struct inject_job *j = arg;
    struct htp_ctx *ctx = j->ctx;
    if (ith != nth - 1) {
        return;
    }
    if (j->flags & HTP_REQ_INJECT_LOAD) {
        const volatile uint8_t *unmapped = vdsp_window_base(ctx->dev); /* device address 0: never mapped */
        (void) *unmapped;
    }
    if (j->flags & HTP_REQ_INJECT_DMA) {
        uint8_t *vtcm_end = ctx->vtcm + vdsp_vtcm_size(ctx->dev);
        dma_queue_push(&ctx->dma[ith], dma_make_pair(vtcm_end - HEX_VLEN / 2, ctx->vtcm), HEX_VLEN, HEX_VLEN, HEX_VLEN,
                       1);
        dma_queue_pop(&ctx->dma[ith]);
    }
}

static uint32_t op_inject(struct htp_ctx *ctx, uint32_t flags) {
    struct inject_job j = {ctx, flags};
    return work_queue_run(&ctx->wq, inject_worker, &j, ctx->n_threads) == VDSP_FAULT_NONE ? HTP_STATUS_OK
                                                                                          : HTP_STATUS_FAULT;
}

/* Strict DMA: an op must leave every queue empty. Leftovers are drained so the next op starts clean. */
static uint32_t op_check_dma(struct htp_ctx *ctx, struct htp_msg *m) {
    uint32_t st = HTP_STATUS_OK;
    for (uint32_t i = 0; i < ctx->n_threads; i++) {
        const uint32_t depth = dma_queue_depth(&ctx->dma[i]);
        if (depth > 0) {
            if (st == HTP_STATUS_OK) {
                htp_msg_str(m, "DMA queue of thread ");
                htp_msg_u64(m, i, 10);
                htp_msg_str(m, " holds ");
                htp_msg_u64(m, depth, 10);
                htp_msg_str(m, " pushes never popped");
            }
            dma_queue_flush(&ctx->dma[i]);
            st = HTP_STATUS_DMA_LEAK;
        }
    }
    return st;
}

/* A push that found its queue full ended its worker's job (dma-queue.h says why it does not return): the op fails with
 * HTP_STATUS_DMA_FULL, whatever its kernel answered (HTP_STATUS_FAULT, from work_queue_run), its message (after the
 * prefix "op N (NAME): ") names the first such queue, and every queue is emptied and cleared for the next op. */
static uint32_t op_check_dma_full(struct htp_ctx *ctx, struct htp_msg *m, uint32_t prefix) {
    uint32_t st = HTP_STATUS_OK;
    for (uint32_t i = 0; i < ctx->n_threads && st == HTP_STATUS_OK; i++) {
        if (ctx->dma[i].full) {
            m->len = prefix;
            m->buf[prefix] = 0;
            htp_msg_str(m, "DMA queue of thread ");
            htp_msg_u64(m, i, 10);
            htp_msg_str(m, " full: ");
            htp_msg_u64(m, dma_queue_depth(&ctx->dma[i]), 10);
            htp_msg_str(m,
                        " descriptors in flight, as many as it holds (the kernel's plan pushes more before it pops)");
            st = HTP_STATUS_DMA_FULL;
        }
    }
    for (uint32_t i = 0; i < ctx->n_threads && st != HTP_STATUS_OK; i++) {
        dma_queue_flush(&ctx->dma[i]);
        ctx->dma[i].full = false;
    }
    return st;
}

static uint32_t op_run(struct htp_ctx *ctx, const struct htp_batch *b, uint32_t i, struct htp_msg *m) {
    struct htp_op_ctx octx;
    struct htp_op_rsp rsp = {0};
    octx.ctx = ctx;
    htp_shared_read(&octx.op, &b->ops[i], sizeof(octx.op));
    octx.index = i;
    octx.msg = m;
    octx.rsp = &rsp;
    const uint64_t c0 = vdsp_cycles(ctx->dev), t0 = vdsp_usecs(ctx->dev);
    if (b->perf) {
        htp_perf_op_begin(ctx);
    }
    htp_trace_start(&ctx->trace[0], HTP_TRACE_OP, i);
    for (uint32_t t = 0; t < ctx->n_threads; t++) {
        ctx->dma[t].n_pop = 0; /* DMA spans count their pops from each op's start */
    }
    htp_msg_str(m, "op ");
    htp_msg_u64(m, i, 10);
    htp_msg_str(m, " (");
    htp_msg_str(m, htp_op_name(octx.op.opcode));
    htp_msg_str(m, "): ");
    const uint32_t prefix = m->len;
    const uint32_t inject = i == 0 ? b->hdr.flags & (HTP_REQ_INJECT_LOAD | HTP_REQ_INJECT_DMA) : 0;
    const struct htp_fence *f = &ctx->mdev.fence;
    const bool group = batch_fenced(&b->hdr);
    uint32_t st = op_resolve(ctx, b, &octx, m);
    if (group) { /* input prep done: the pre-op barrier (htp-fence.h) */
        if (i == 0 && (b->hdr.flags & HTP_REQ_INJECT_STALL)) {
            (void) htp_fence_wait_error(f, (uint64_t) HTP_FENCE_STALL_TIMEOUTS * f->timeout_us);
        }
        st = htp_fence_barrier(f, htp_fence_seq_pre(f, i), st, "pre-op barrier", m);
    }
    const bool met = st == HTP_STATUS_OK; /* htp-fence.h rule 6: after a failed barrier, no later one is signalled */
    uint32_t flush_lines = 0;
    if (st == HTP_STATUS_OK) {
        st = inject ? op_inject(ctx, inject) : HTP_STATUS_OK;
        st = st == HTP_STATUS_OK ? op_dispatch(&octx) : st;
        const uint32_t full = op_check_dma_full(ctx, m, prefix);
        st = full != HTP_STATUS_OK ? full : st;
        if (st == HTP_STATUS_FAULT) {
            htp_msg_str(m, vdsp_fault_text(ctx->dev));
        } else if (st == HTP_STATUS_OK && ctx->dma_strict) {
            st = op_check_dma(ctx, m);
        } else if (st != HTP_STATUS_OK && m->len == prefix) {
            htp_msg_str(m, st == HTP_STATUS_VTCM_TOO_SMALL ? "the kernel's VTCM layout does not fit"
                           : st == HTP_STATUS_NO_SUPPORT   ? "no kernel for these operand types"
                                                           : "kernel_params or shapes rejected by the kernel");
        }
    }
    if (group && met) { /* rule 8: the op's lines in DDR before the post-op barrier signals */
        flush_lines =
            st == HTP_STATUS_OK ? htp_dcache_flush_dirty_tensors(&ctx->trace[0], octx.dst, HTP_MAX_DST, i) : 0;
        st = htp_fence_barrier(f, htp_fence_seq_post(f, i), st, "post-op barrier", m);
    }
    htp_trace_stop(&ctx->trace[0], HTP_TRACE_OP, i);
    if (b->perf) {
        htp_perf_op_end(ctx, b->perf + (size_t) i * ctx->n_threads);
    }
    if (st == HTP_STATUS_OK) {
        m->len = 0;
        m->buf[0] = 0;
    }
    b->op_rsp[i] = rsp;
    if (b->prof) {
        b->prof[i].usecs = (uint32_t) (vdsp_usecs(ctx->dev) - t0);
        b->prof[i].flush_lines = flush_lines;
        b->prof[i].cycles = vdsp_cycles(ctx->dev) - c0;
    }
    return st;
}

/* ---- the group's fences ---- */

/* The fences of a request with mdev_count > 1 into ctx->mdev.fence: its slots, mdev_count of them from fence_off
 * of buffer fence_bi, must lie in that buffer (mapped by batch_map), 128-byte aligned (htp-fence.h, rule 1), and
 * its timeout must not be 0. false, with the message, else. */
static bool fence_setup(struct htp_ctx *ctx, const struct htp_batch *b, struct htp_msg *m) {
    const struct htp_req *h = &b->hdr;
    const uint64_t end = (uint64_t) h->fence_off + (uint64_t) h->mdev_count * HTP_FENCE_SLOT_SIZE;
    if (h->fence_bi >= h->n_bufs || !b->usable[h->fence_bi] || h->fence_off % HTP_FENCE_SLOT_SIZE != 0 ||
        end > b->bufs[h->fence_bi].size || h->fence_timeout_us == 0) {
        htp_msg_str(m, "request layout: fences of ");
        htp_msg_u64(m, h->mdev_count, 10);
        htp_msg_str(m, " devices at byte ");
        htp_msg_u64(m, h->fence_off, 10);
        htp_msg_str(m, " of buffer ");
        htp_msg_u64(m, h->fence_bi, 10);
        htp_msg_str(m, ", timeout ");
        htp_msg_u64(m, h->fence_timeout_us, 10);
        htp_msg_str(m, " us: expected 128-byte slots inside a mapped buffer of the request and a timeout");
        return false;
    }
    ctx->mdev.fence = (struct htp_fence){
        .slots = vdsp_window_base(ctx->dev) + b->devaddr[h->fence_bi] + h->fence_off,
        .idx = h->mdev_idx,
        .count = h->mdev_count,
        .base = h->fence_seq,
        .timeout_us = h->fence_timeout_us,
        .dev = ctx->dev,
        .tr = &ctx->trace[0],
    };
    return true;
}

/* ---- htp_iface ---- */

static int htp_start(struct vdsp_device *dev, uint32_t n_threads, void **npu_ctx) {
    if (n_threads == 0 || n_threads > HTP_MAX_NTHREADS) {
        vdsp_log(dev, "htp: %u threads requested, 1..%d supported", n_threads, HTP_MAX_NTHREADS);
        return HTP_STATUS_INVAL_PARAMS;
    }
    struct htp_ctx *ctx = NULL;
    for (uint32_t i = 0; i < HTP_MAX_SESSIONS && !ctx; i++) {
        uint32_t free_slot = 0;
        if (__atomic_compare_exchange_n(&htp_ctx_used[i], &free_slot, 1, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
            ctx = &htp_ctxs[i];
        }
    }
    if (!ctx) {
        vdsp_log(dev, "htp: more than %d sessions in one process", HTP_MAX_SESSIONS);
        return HTP_STATUS_INTERNAL_ERR;
    }
    const size_t vtcm_size = vdsp_vtcm_size(dev);
    ctx->dev = dev;
    ctx->n_threads = n_threads;
    ctx->vtcm = vdsp_vtcm_base(dev);
    ctx->vtcm_size = (uint32_t) HEX_MIN(vtcm_size, (size_t) HTP_ARCH_VTCM_SIZE);
    ctx->dma_strict = vdsp_dma_strict(dev);
    ctx->mdev.idx = 0;
    ctx->mdev.count = 1;
    ctx->mdev.count_div = fastdiv_init(1);
    ctx->n_maps = 0;
    for (uint32_t i = 0; i < n_threads; i++) {
        ctx->trace[i].evt = NULL;
        ctx->trace[i].n = 0;
        ctx->trace[i].cap = 0;
        ctx->trace[i].dev = dev;
        ctx->dma[i].hw = vdsp_dma_queue_get(dev, i);
        ctx->dma[i].dev = dev;
        ctx->dma[i].tr = &ctx->trace[i];
        ctx->dma[i].n_pop = 0;
        ctx->dma[i].full = false;
    }
    const uint32_t n_host = vdsp_host_threads(dev);
    if (n_host == 0 || n_host > n_threads || work_queue_init(&ctx->wq, dev, n_threads, n_host) != 0) {
        vdsp_log(dev, "htp: cannot run %u NPU threads on %u host threads", n_threads, n_host);
        __atomic_store_n(&htp_ctx_used[ctx - htp_ctxs], 0, __ATOMIC_RELEASE);
        return HTP_STATUS_INTERNAL_ERR;
    }
    vdsp_log(dev, "htp: v%d library%s, %u threads on %u host threads, %u bytes of VTCM, strict DMA %s", HTP_ARCH,
             htp_perf_counting() ? " (counting)" : "", n_threads, n_host, ctx->vtcm_size,
             ctx->dma_strict ? "on" : "off");
    *npu_ctx = ctx;
    return 0;
}

/* Point each thread's trace at its records in the block (or switch tracing off). */
static void batch_trace_begin(struct htp_ctx *ctx, const struct htp_batch *b) {
    for (uint32_t i = 0; i < ctx->n_threads; i++) {
        ctx->trace[i].evt = b->trace ? b->trace + (size_t) i * b->hdr.n_trace : NULL;
        ctx->trace[i].n = 0;
        ctx->trace[i].cap = b->trace ? b->hdr.n_trace : 0;
    }
}

/* Report the records written and switch tracing off (a request that never began tracing reports 0). */
static void batch_trace_end(struct htp_ctx *ctx, struct htp_rsp *rsp) {
    for (uint32_t i = 0; i < HTP_MAX_NTHREADS; i++) {
        rsp->n_trace[i] = i < ctx->n_threads ? ctx->trace[i].n : 0;
    }
    for (uint32_t i = 0; i < ctx->n_threads; i++) {
        ctx->trace[i].n = 0;
        ctx->trace[i].cap = 0;
    }
}

static void htp_process(void *npu_ctx, void *block, uint32_t size) {
    struct htp_ctx *ctx = npu_ctx;
    if (size < sizeof(struct htp_req)) {
        vdsp_log(ctx->dev, "htp: a %u-byte request block has no room for its header", size);
        return;
    }
    struct htp_rsp *rsp = &((struct htp_req *) block)->rsp;
    struct htp_msg m = {rsp->message, 0};
    m.buf[0] = 0;
    rsp->failed_op = 0;
    rsp->n_ops_done = 0;
    rsp->cycles_start = vdsp_cycles(ctx->dev);
    const uint64_t t0 = vdsp_usecs(ctx->dev);

    struct htp_batch b;
    uint32_t st = batch_check(ctx, block, size, &b, &m);
    ctx->n_mapped = ctx->n_unmapped = ctx->n_defrags = 0;
    if (st == HTP_STATUS_OK) {
        ctx->mdev.idx = b.hdr.mdev_idx;
        ctx->mdev.count = b.hdr.mdev_count;
        ctx->mdev.count_div = fastdiv_init(b.hdr.mdev_count);
        ctx->mdev.inject = b.hdr.flags & (HTP_REQ_INJECT_MDEV_ROW | HTP_REQ_INJECT_MDEV_LINE);
        st = batch_map(ctx, &b, &m);
        const bool fenced = batch_fenced(&b.hdr);
        if (fenced && st == HTP_STATUS_OK) {
            st = fence_setup(ctx, &b, &m) ? HTP_STATUS_OK : HTP_STATUS_INVAL_PARAMS;
        } else if (fenced) { /* the peers end at their first barrier instead of waiting it out */
            char scratch[HTP_STATUS_MSG_LEN];
            struct htp_msg sm = {scratch, 0};
            if (fence_setup(ctx, &b, &sm)) {
                htp_fence_signal(&ctx->mdev.fence, htp_fence_seq_pre(&ctx->mdev.fence, 0), st);
            }
        }
    }
    if (st == HTP_STATUS_OK) {
        batch_trace_begin(ctx, &b);
        for (uint32_t i = 0; i < b.hdr.n_ops && st == HTP_STATUS_OK; i++) {
            st = op_run(ctx, &b, i, &m);
            if (st == HTP_STATUS_OK) {
                rsp->n_ops_done++;
            } else {
                rsp->failed_op = i;
            }
        }
    }
    batch_trace_end(ctx, rsp);
    if (st == HTP_STATUS_OK && b.perf_names) {
        htp_perf_names(b.perf_names);
    }
    rsp->n_mapped = ctx->n_mapped;
    rsp->n_unmapped = ctx->n_unmapped;
    rsp->n_defrags = ctx->n_defrags;
    if (st != HTP_STATUS_OK) {
        vdsp_log(ctx->dev, "htp: request %u failed with status %u: %.*s", b.hdr.id, st, (int) m.len,
                 rsp->message); /* m.len bounds it: the host may overwrite the message's NUL meanwhile */
    }
    rsp->usecs = (uint32_t) (vdsp_usecs(ctx->dev) - t0);
    rsp->cycles = vdsp_cycles(ctx->dev) - rsp->cycles_start;
    rsp->status = st;
}

static void htp_stop(void *npu_ctx) {
    struct htp_ctx *ctx = npu_ctx;
    work_queue_free(&ctx->wq);
    while (ctx->n_maps > 0) {
        map_remove(ctx, &ctx->maps[ctx->n_maps - 1]);
    }
    __atomic_store_n(&htp_ctx_used[ctx - htp_ctxs], 0, __ATOMIC_RELEASE);
}

__attribute__((visibility("default"))) const struct htp_iface htp_iface = {
    .abi = VDSP_DEVICE_ABI,
    .arch = HTP_ARCH,
    .start = htp_start,
    .process = htp_process,
    .stop = htp_stop,
};
