/*
 * Partitions run one after another (htp-device-impl.h, htp_mdev_run): every op of a request as count one-op
 * requests with mdev_idx 0..count-1 on one session or on the sessions of a group, and the line-ownership
 * checker of VNPU_MDEV_CHECK (docs/HTP.md "Partitions").
 *
 * The checker, per op: each output's bytes are saved, then before partition p runs every output is filled with
 * MDEV_POISON (an output overlapping one of the op's sources, an in-place op, gets its saved bytes back instead,
 * since the partition reads them) and the session logs its DMA writes to DDR (vdsp_session_dma_log). After it, the
 * bytes that differ from what was put there are p's writes: those inside p's DMA log are DMA writes, the others HVX
 * or scalar stores. Per 128-byte line of each output the checker keeps the devices that wrote any byte of it and
 * the one device whose stores wrote it; per byte the device whose DMA wrote it. An error: two devices' stores in
 * one line, a line one device stored into and another wrote at all (its flush would write the other's bytes back),
 * or two devices' DMA on one byte. Under HTP_MDEV_CHECK_LINES DMA writes claim their lines as stores do. A write
 * equal to the bytes it replaces is not seen by the compare (the DMA log still sees it), so an in-place op's store
 * conflicts are found only where they change bytes. Outputs then get their saved bytes back and the partitions run
 * once more for the result, so a false poison match never changes an output.
 */
#include "htp-device-impl.h"
#include "hex-common.h"
#include "htp-ops.h"

#include "log.h"
#include "type-traits.h"

#include <stdlib.h>
#include <string.h>

#define MDEV_POISON        0xA5
#define MDEV_NONE          0xFF
#define MDEV_CHECK_MAX_OUT ((size_t) 256 << 20) /* bytes of one output the checker copies */

/* One output of the op under check. */
struct mdev_out {
    uint8_t *base; /* host address of its first byte */
    size_t span;   /* bytes from its first byte to past its last element */
    int fd;        /* its buffer's */
    uint64_t offset;
    size_t line0; /* offset % HEX_L2_LINE_SIZE: the first line's bytes before the tensor */
    size_t n_lines;
    bool in_place; /* overlaps a source: the reference is its saved bytes */
    const char *name;
    uint8_t *saved;         /* span bytes before the op */
    uint8_t *dma_dev;       /* per byte: the device whose DMA wrote it, MDEV_NONE */
    uint8_t *line_store;    /* per line: the device whose stores (or, LINES mode, DMA) wrote it, MDEV_NONE */
    uint16_t *line_writers; /* per line: a bit per device that wrote a byte of it */
};

/* Bytes from a tensor's first byte to past its last element; 0 when it has none. */
static size_t desc_span(const struct htp_tensor_desc *t) {
    const struct vnpu_type_traits *tt = vnpu_type_traits_get((enum vnpu_type) t->type);
    size_t span = (size_t) (t->ne[0] / tt->blck) * tt->size;
    for (int k = 0; k < HTP_MAX_DIMS; k++) {
        if (t->ne[k] == 0) {
            return 0;
        }
        span += k > 0 ? (size_t) (t->ne[k] - 1) * t->nb[k] : 0;
    }
    return span;
}

/* The first conflict found, for the message. */
struct mdev_conflict {
    bool found;
    uint32_t a, b; /* devices */
    size_t line;
    const struct mdev_out *out;
    const char *why;
};

static void conflict(struct mdev_conflict *c, const struct mdev_out *o, size_t line, uint32_t a, uint32_t b,
                     const char *why) {
    if (!c->found) {
        *c = (struct mdev_conflict){
            .found = true, .a = a < b ? a : b, .b = a < b ? b : a, .line = line, .out = o, .why = why};
    }
}

/* Device p's stores (or, check HTP_MDEV_CHECK_LINES, its DMA) wrote into line l of o. */
static void claim_line(struct mdev_out *o, size_t l, uint32_t p, uint32_t check, struct mdev_conflict *c) {
    if (o->line_store[l] == MDEV_NONE) {
        o->line_store[l] = (uint8_t) p;
    } else if (o->line_store[l] != p) {
        conflict(c, o, l, o->line_store[l], p,
                 check == HTP_MDEV_CHECK_LINES
                     ? "both write into it (VNPU_MDEV_CHECK=2 counts DMA writes as stores; the seed lets DMA writes "
                       "share a line, so ops written by DMA in rows shorter than a line fail this mode by design)"
                     : "both store into it");
    }
}

/* Mark the bytes of o that partition p's DMA wrote (its log: n writes). */
static void mark_dma(struct mdev_out *o, const struct vdsp_dma_write *w, size_t n, uint32_t p, uint32_t check,
                     struct mdev_conflict *c) {
    for (size_t i = 0; i < n; i++) {
        if (w[i].fd != o->fd) {
            continue;
        }
        for (uint32_t r = 0; r < w[i].nrows; r++) {
            const uint64_t a = w[i].offset + r * w[i].stride, b = a + w[i].row_size;
            const uint64_t lo = a > o->offset ? a : o->offset, hi = b < o->offset + o->span ? b : o->offset + o->span;
            for (uint64_t x = lo; x < hi; x++) {
                const size_t pos = (size_t) (x - o->offset), l = (o->line0 + pos) / HEX_L2_LINE_SIZE;
                if (o->dma_dev[pos] != MDEV_NONE && o->dma_dev[pos] != p) {
                    conflict(c, o, l, o->dma_dev[pos], p, "their DMA writes overlap");
                }
                o->dma_dev[pos] = (uint8_t) p;
                o->line_writers[l] |= (uint16_t) (1u << p);
                if (check == HTP_MDEV_CHECK_LINES) {
                    claim_line(o, l, p, check, c);
                }
            }
        }
    }
}

/* Mark the bytes of o partition p changed: a store where p's DMA did not write them. */
static void mark_changed(struct mdev_out *o, uint32_t p, uint32_t check, struct mdev_conflict *c) {
    for (size_t pos = 0; pos < o->span; pos++) {
        const uint8_t ref = o->in_place ? o->saved[pos] : MDEV_POISON;
        if (o->base[pos] == ref) {
            continue;
        }
        const size_t l = (o->line0 + pos) / HEX_L2_LINE_SIZE;
        o->line_writers[l] |= (uint16_t) (1u << p);
        if (o->dma_dev[pos] != p) {
            claim_line(o, l, p, check, c);
        }
    }
}

/* After every partition: a line one device stored into that another wrote. */
static void check_lines(const struct mdev_out *o, struct mdev_conflict *c) {
    for (size_t l = 0; l < o->n_lines && !c->found; l++) {
        const uint32_t s = o->line_store[l];
        const uint32_t others = s == MDEV_NONE ? 0 : o->line_writers[l] & ~(1u << s);
        if (others) {
            conflict(c, o, l, s, (uint32_t) __builtin_ctz(others), "one stores into it, the other writes it too");
        }
    }
}

/* The op's request header for partition p of op i (ops and profiles of the block at off_ops, off_prof). */
static void partition_header(struct htp_req *req, const struct htp_req *whole, uint32_t i, uint32_t p, uint32_t count) {
    req->n_ops = 1;
    req->off_ops = whole->off_ops + i * (uint32_t) sizeof(struct htp_op_desc);
    req->off_prof = whole->off_prof + i * (uint32_t) sizeof(struct htp_op_prof);
    req->off_op_rsp = whole->off_op_rsp + i * (uint32_t) sizeof(struct htp_op_rsp);
    req->mdev_idx = p;
    req->mdev_count = count;
    req->flags = (whole->flags & ~(HTP_REQ_TRACE | HTP_REQ_PERF)) | HTP_REQ_MDEV_ALONE;
    if (i > 0) { /* fault injection: op 0's, as a whole request has it */
        req->flags &= ~(HTP_REQ_INJECT_LOAD | HTP_REQ_INJECT_DMA | HTP_REQ_INJECT_STALL);
    }
    req->n_trace = 0;
}

/* Run partition p of the op set up in the header, on its session; log: with its DMA log on, *s the session. */
static enum vnpu_status partition_call(struct htp_device *d, const struct htp_mdev_seq *seq, uint32_t p, size_t size,
                                       bool log, struct vdsp_session **s) {
    *s = seq->session[p];
    if (!*s) {
        const enum vnpu_status st = htp_device_ready(d);
        if (st != VNPU_STATUS_OK) {
            return st;
        }
        *s = d->session;
    }
    if (log) {
        vdsp_session_dma_log(*s, true);
    }
    const enum vnpu_status st = vdsp_session_call(*s, d->req, 0, size);
    if (log) {
        vdsp_session_dma_log(*s, false);
    }
    return st;
}

static void outs_free(struct mdev_out *o, uint32_t n) {
    for (uint32_t j = 0; j < n; j++) {
        free(o[j].saved);
        free(o[j].dma_dev);
        free(o[j].line_store);
        free(o[j].line_writers);
    }
}

/* The outputs of op i for the check: *n of them. Errors: VNPU_STATUS_NO_MEMORY, VNPU_STATUS_UNSUPPORTED (an output
 * larger than MDEV_CHECK_MAX_OUT; logged). */
static enum vnpu_status outs_init(const struct htp_device *d, const struct htp_req *whole,
                                  const struct vdsp_buffer *const *vbufs, const char *name, uint32_t i,
                                  struct mdev_out *o, uint32_t *n) {
    const uint8_t *block = d->req->host; /* whole: the header as built, the areas are the block's */
    const struct htp_tensor_desc *tensors = (const struct htp_tensor_desc *) (block + whole->off_tensors);
    const struct htp_op_desc *op = (const struct htp_op_desc *) (block + whole->off_ops) + i;
    *n = 0;
    for (int j = 0; j < HTP_MAX_DST && op->dst[j] != HTP_NO_TENSOR; j++) {
        const struct htp_tensor_desc *t = &tensors[op->dst[j]];
        struct mdev_out *x = &o[*n];
        *x = (struct mdev_out){.span = desc_span(t), .fd = vbufs[t->bi]->fd, .offset = t->offset, .name = name};
        if (x->span == 0) {
            continue;
        }
        if (x->span > MDEV_CHECK_MAX_OUT) {
            vnpu_log_error("%s: VNPU_MDEV_CHECK: output %d of op %u ('%s') spans %zu bytes, more than the %zu the "
                           "checker copies",
                           d->name, j, i, name, x->span, MDEV_CHECK_MAX_OUT);
            return VNPU_STATUS_UNSUPPORTED;
        }
        x->base = (uint8_t *) vbufs[t->bi]->host + t->offset;
        x->line0 = t->offset % HEX_L2_LINE_SIZE;
        x->n_lines = (x->line0 + x->span + HEX_L2_LINE_SIZE - 1) / HEX_L2_LINE_SIZE;
        for (int k = 0; k < HTP_MAX_SRC; k++) {
            const struct htp_tensor_desc *s = op->src[k] == HTP_NO_TENSOR ? NULL : &tensors[op->src[k]];
            x->in_place = x->in_place || (s && s->bi == t->bi && s->offset < t->offset + x->span &&
                                          t->offset < s->offset + desc_span(s));
        }
        (*n)++;
        x->saved = malloc(x->span);
        x->dma_dev = malloc(x->span);
        x->line_store = malloc(x->n_lines);
        x->line_writers = calloc(x->n_lines, sizeof(uint16_t));
        if (!x->saved || !x->dma_dev || !x->line_store || !x->line_writers) {
            vnpu_log_error("%s: VNPU_MDEV_CHECK: out of memory for the copies of a %zu-byte output", d->name, x->span);
            return VNPU_STATUS_NO_MEMORY;
        }
        memcpy(x->saved, x->base, x->span);
        memset(x->dma_dev, MDEV_NONE, x->span);
        memset(x->line_store, MDEV_NONE, x->n_lines);
    }
    return VNPU_STATUS_OK;
}

/* Check op i's partitions (the header set up by the caller per partition); the outputs get their bytes back.
 * *failed: a partition's request failed (its response is in the block). */
static enum vnpu_status check_op(struct htp_device *d, const struct htp_mdev_seq *seq, size_t size,
                                 const struct vdsp_buffer *const *vbufs, const struct vnpu_tensor *node,
                                 const struct htp_req *whole, uint32_t i, bool *failed) {
    struct htp_req *req = d->req->host;
    struct mdev_out o[HTP_MAX_DST];
    uint32_t n = 0;
    enum vnpu_status st = outs_init(d, whole, vbufs, node->name, i, o, &n);
    struct mdev_conflict c = {0};
    for (uint32_t p = 0; p < seq->count && st == VNPU_STATUS_OK && !*failed; p++) {
        for (uint32_t j = 0; j < n; j++) {
            if (o[j].in_place) {
                memcpy(o[j].base, o[j].saved, o[j].span);
            } else {
                memset(o[j].base, MDEV_POISON, o[j].span);
            }
        }
        partition_header(req, whole, i, p, seq->count);
        struct vdsp_session *s;
        st = partition_call(d, seq, p, size, true, &s);
        if (st != VNPU_STATUS_OK || req->rsp.status != HTP_STATUS_OK) {
            *failed = st == VNPU_STATUS_OK;
            break;
        }
        size_t n_w;
        bool lost;
        const struct vdsp_dma_write *w = vdsp_session_dma_writes(s, &n_w, &lost);
        if (lost) {
            vnpu_log_error("%s: VNPU_MDEV_CHECK: op %u: the DMA log of partition %u lost writes", d->name, i, p);
            st = VNPU_STATUS_NO_MEMORY;
            break;
        }
        for (uint32_t j = 0; j < n; j++) {
            mark_dma(&o[j], w, n_w, p, seq->check, &c);
            mark_changed(&o[j], p, seq->check, &c);
        }
    }
    for (uint32_t j = 0; j < n; j++) {
        if (st == VNPU_STATUS_OK && !*failed) {
            check_lines(&o[j], &c);
        }
        memcpy(o[j].base, o[j].saved, o[j].span);
    }
    if (st == VNPU_STATUS_OK && !*failed && c.found) {
        const size_t lo = c.line * HEX_L2_LINE_SIZE > c.out->line0 ? c.line * HEX_L2_LINE_SIZE - c.out->line0 : 0;
        const size_t hi = (c.line + 1) * HEX_L2_LINE_SIZE - c.out->line0;
        vnpu_log_error("%s: VNPU_MDEV_CHECK: op %u (%s) of %u partitions: devices %u and %u both write line %zu "
                       "(bytes %zu..%zu) of tensor '%s': %s",
                       d->name, i,
                       htp_op_name(((const struct htp_op_desc *) ((const uint8_t *) req + whole->off_ops))[i].opcode),
                       seq->count, c.a, c.b, c.line, lo, (hi < c.out->span ? hi : c.out->span) - 1, c.out->name, c.why);
        st = VNPU_STATUS_DEVICE;
    }
    outs_free(o, n);
    return st;
}

enum vnpu_status htp_mdev_run(struct htp_device *d, const struct htp_mdev_seq *seq, size_t size,
                              const struct vdsp_buffer *const *vbufs, const struct vnpu_tensor *const *op_node) {
    struct htp_req *req = d->req->host;
    const struct htp_req whole = *req;
    struct htp_op_prof *prof = (struct htp_op_prof *) ((uint8_t *) req + whole.off_prof);
    struct htp_op_rsp *op_rsp = (struct htp_op_rsp *) ((uint8_t *) req + whole.off_op_rsp);
    uint64_t usecs = 0, cycles = 0;
    enum vnpu_status st = VNPU_STATUS_OK;
    bool failed = false;
    uint32_t i = 0;
    for (; i < whole.n_ops && st == VNPU_STATUS_OK && !failed; i++) {
        if (seq->check != HTP_MDEV_CHECK_OFF) {
            st = check_op(d, seq, size, vbufs, op_node[i], &whole, i, &failed);
        }
        struct htp_op_prof sum = {0};
        struct htp_op_rsp rsp_sum = {0};
        for (uint32_t p = 0; p < seq->count && st == VNPU_STATUS_OK && !failed; p++) {
            partition_header(req, &whole, i, p, seq->count);
            struct vdsp_session *s;
            st = partition_call(d, seq, p, size, false, &s);
            failed = st == VNPU_STATUS_OK && req->rsp.status != HTP_STATUS_OK;
            sum.usecs += prof[i].usecs;
            sum.cycles += prof[i].cycles;
            usecs += req->rsp.usecs;
            cycles += req->rsp.cycles;
            if (st == VNPU_STATUS_OK && !failed && !htp_op_rsp_merge(&rsp_sum, &op_rsp[i], p == 0)) {
                vnpu_log_error("%s: op %u: partition %u took matmul path %u, partition 0 path %u", d->name, i, p,
                               op_rsp[i].mm_path, rsp_sum.mm_path);
                st = VNPU_STATUS_DEVICE;
            }
        }
        prof[i] = sum;
        op_rsp[i] = rsp_sum;
    }
    const struct htp_rsp rsp = req->rsp;
    const uint32_t failed_partition = req->mdev_idx;
    *req = whole;
    req->rsp = rsp;
    if (failed) {
        vnpu_log_error("%s: op %u failed in its partition %u of %u", d->name, i - 1, failed_partition, seq->count);
        req->rsp.failed_op = i - 1;
    } else {
        req->rsp.n_ops_done = st == VNPU_STATUS_OK ? whole.n_ops : i - 1;
        req->rsp.usecs = (uint32_t) usecs;
        req->rsp.cycles = cycles;
    }
    return st;
}
