/*
 * graph_compute of the HTP devices: a run of nodes becomes requests (src/htp/htp-msg.h). Each node is one
 * NPU op (an RMS_NORM followed by a MUL of it, two nodes, one RMS_NORM_MUL) whose operands become tensor
 * descriptors, deduplicated, over at most HTP_MAX_BUFS distinct buffers that fit the session window together; a
 * node that would overflow a request (buffers, window, tensors, ops) sends what is built first. A failed request stops
 * the graph with VNPU_STATUS_DEVICE and an error naming the op, its node and the NPU's message.
 *
 * The block layout is fixed (htp_request_size): every area at the offset its maximum count needs, so a
 * request is written in place in shared DDR with no copy.
 *
 * After each answered request, every op's response (struct htp_op_rsp) is kept for its node until the next graph
 * compute (htp_request_node_report), and an op whose narrowing to FP16 on HMX overflowed or flushed gets one warning
 * per node and operand for the device's life (a model's: its contexts share the device).
 */
#include "htp-device-impl.h"
#include "htp-ops.h"

#include "log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define HTP_REQ_HASH (2 * HTP_MAX_TENSORS) /* tensor dedupe table slots, a power of two */

/* A tensor copied through the request scratch (it lives where the NPU cannot map it): in before the request,
 * whether read or written (an op may write part of its dst, SET_ROWS into a KV cache, or read it, in place),
 * and back after it when written. */
struct htp_copy {
    const struct vnpu_tensor *t;
    uint8_t *shared; /* the copy in shared DDR */
    size_t size;
    bool out; /* written by the request: copied back after it */
};

struct htp_batch {
    struct htp_device *d;
    struct htp_group *group; /* NULL, or the group d builds for: every member gets the request */
    struct htp_req *req;
    struct htp_buf_desc *bufs;
    struct htp_tensor_desc *tensors;
    struct htp_op_desc *ops;
    const struct vdsp_buffer *vbufs[HTP_MAX_BUFS];
    const struct vnpu_tensor *op_node[HTP_MAX_OPS];  /* the node each op computes (the MUL of a fusion) */
    const struct vnpu_tensor *op_first[HTP_MAX_OPS]; /* the first node of each op (the RMS_NORM) */
    struct htp_copy copies[HTP_MAX_TENSORS];
    uint32_t n_copies;
    bool send_now;               /* an op wrote a copied tensor: later ops must read it back first */
    uint16_t hash[HTP_REQ_HASH]; /* tensor index + 1, 0 = empty */
    /* the ops' responses of the graph compute under way (or the last), by node */
    struct htp_node_rsp *rsps;
    uint32_t n_rsps, cap_rsps;
    /* the (node name, operand) pairs warned about (htp_fp16_warn) */
    struct htp_fp16_warned *warned;
    uint32_t n_warned, cap_warned;
};

struct htp_node_rsp {
    const struct vnpu_tensor *node;
    struct htp_op_rsp rsp;
};

struct htp_fp16_warned {
    char name[VNPU_MAX_NAME];
    uint32_t operand; /* enum htp_fp16_operand */
};

/* Fixed offsets of the block's areas. */
struct htp_req_layout {
    uint32_t bufs, tensors, ops, prof, op_rsp, trace, perf, perf_names, size;
};

static uint32_t align8(size_t n) {
    return (uint32_t) ((n + 7) & ~(size_t) 7);
}

static struct htp_req_layout htp_req_layout(uint32_t n_threads, bool perf) {
    struct htp_req_layout l;
    l.bufs = align8(sizeof(struct htp_req));
    l.tensors = align8(l.bufs + HTP_MAX_BUFS * sizeof(struct htp_buf_desc));
    l.ops = align8(l.tensors + (size_t) HTP_MAX_TENSORS * sizeof(struct htp_tensor_desc));
    l.prof = align8(l.ops + (size_t) HTP_MAX_OPS * sizeof(struct htp_op_desc));
    l.op_rsp = align8(l.prof + (size_t) HTP_MAX_OPS * sizeof(struct htp_op_prof));
    l.trace = align8(l.op_rsp + (size_t) HTP_MAX_OPS * sizeof(struct htp_op_rsp));
    l.perf = align8(l.trace + (size_t) n_threads * HTP_TRACE_RECORDS * sizeof(struct htp_trace_evt));
    l.perf_names = align8(l.perf + (perf ? (size_t) HTP_MAX_OPS * n_threads * sizeof(struct htp_thread_perf) : 0));
    l.size = align8(l.perf_names + (perf ? sizeof(struct htp_perf_names) : 0));
    return l;
}

size_t htp_request_size(uint32_t n_threads, bool perf) {
    return htp_req_layout(n_threads, perf).size;
}

static double now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec * 1e6 + (double) ts.tv_nsec * 1e-3;
}

/* An empty request in the device's block. */
static void batch_begin(struct htp_batch *b) {
    const struct htp_req_layout l = htp_req_layout(b->d->n_threads, b->d->perf != NULL);
    uint8_t *block = b->d->req->host;
    b->req = (struct htp_req *) block;
    memset(b->req, 0, sizeof(*b->req));
    b->req->version = HTP_MSG_VERSION;
    b->req->mdev_count = 1;
    b->req->off_bufs = l.bufs;
    b->req->off_tensors = l.tensors;
    b->req->off_ops = l.ops;
    b->req->off_prof = l.prof;
    b->req->off_op_rsp = l.op_rsp;
    b->req->off_trace = l.trace;
    b->req->off_perf = l.perf;
    b->req->off_perf_names = l.perf_names;
    b->req->n_perf_threads = b->d->n_threads;
    b->bufs = (struct htp_buf_desc *) (block + l.bufs);
    b->tensors = (struct htp_tensor_desc *) (block + l.tensors);
    b->ops = (struct htp_op_desc *) (block + l.ops);
    b->n_copies = 0;
    b->send_now = false;
    memset(b->hash, 0, sizeof(b->hash));
    htp_stage_reset(&b->d->stage);
    b->req->fence_bi = HTP_NO_FENCE;
    const struct htp_group *g = b->group;
    if (g && g->n > 1) { /* the fences: buffer 0, pinned, mapped by every member (htp-fence.h rule 1) */
        b->req->mdev_count = g->n;
        b->req->fence_bi = 0;
        b->req->fence_off = 0;
        b->req->fence_timeout_us = b->d->cfg->fence_timeout_ms * 1000u;
        b->req->n_bufs = 1;
        b->vbufs[0] = g->fence;
        b->bufs[0] = (struct htp_buf_desc){.fd = g->fence->fd, .flags = HTP_BUF_PINNED, .size = g->fence->size};
    }
}

/* Where each operand lives, before anything is committed to the request. */
struct htp_operand {
    const struct vnpu_tensor *t;
    struct vdsp_buffer *buf;
    size_t offset;
    bool pinned;
    bool copy;
};

static int batch_buf_index(const struct htp_batch *b, const struct vdsp_buffer *buf) {
    for (uint32_t i = 0; i < b->req->n_bufs; i++) {
        if (b->vbufs[i] == buf) {
            return (int) i;
        }
    }
    return -1;
}

static uint32_t desc_hash(const struct htp_tensor_desc *t) {
    uint64_t h = 1469598103934665603ull;
    const uint8_t *p = (const uint8_t *) t;
    for (size_t i = 0; i < sizeof(*t); i++) {
        h = (h ^ p[i]) * 1099511628211ull;
    }
    return (uint32_t) h & (HTP_REQ_HASH - 1);
}

/* The index of tensor descriptor t in the request, added if new. */
static uint16_t batch_tensor(struct htp_batch *b, const struct htp_tensor_desc *t) {
    uint32_t i = desc_hash(t);
    for (; b->hash[i]; i = (i + 1) & (HTP_REQ_HASH - 1)) {
        if (memcmp(&b->tensors[b->hash[i] - 1], t, sizeof(*t)) == 0) {
            return (uint16_t) (b->hash[i] - 1);
        }
    }
    const uint32_t ti = b->req->n_tensors++;
    b->tensors[ti] = *t;
    b->hash[i] = (uint16_t) (ti + 1);
    return (uint16_t) ti;
}

/* Operand o as a descriptor index (its buffer added to the request). */
static enum vnpu_status batch_operand(struct htp_batch *b, const struct htp_operand *o, bool out, uint16_t *index) {
    if (o->offset > UINT32_MAX) {
        vnpu_log_error("%s: tensor '%s' starts %zu bytes into its buffer; the message carries 32-bit offsets",
                       b->d->name, o->t->name, o->offset);
        return VNPU_STATUS_UNSUPPORTED;
    }
    int bi = batch_buf_index(b, o->buf);
    if (bi < 0) {
        bi = (int) b->req->n_bufs++;
        b->vbufs[bi] = o->buf;
        b->bufs[bi] =
            (struct htp_buf_desc){.fd = o->buf->fd, .flags = o->pinned ? HTP_BUF_PINNED : 0, .size = o->buf->size};
    }
    struct htp_tensor_desc t;
    memset(&t, 0, sizeof(t));
    t.offset = (uint32_t) o->offset;
    t.bi = (uint16_t) bi;
    t.flags = htp_buffer_tensor_tiled(o->t) ? HTP_TENSOR_TILED : 0;
    t.type = (uint32_t) o->t->type;
    for (int i = 0; i < HTP_MAX_DIMS; i++) {
        t.ne[i] = (uint32_t) o->t->ne[i];
        t.nb[i] = (uint32_t) o->t->nb[i];
    }
    *index = batch_tensor(b, &t);
    if (o->copy) {
        b->copies[b->n_copies++] = (struct htp_copy){
            .t = o->t, .shared = (uint8_t *) o->buf->host + o->offset, .size = vnpu_nbytes(o->t), .out = out};
        b->send_now = b->send_now || out;
    }
    return VNPU_STATUS_OK;
}

/* Add node (with fused, the MUL of an RMS_NORM_MUL) as one op. *full: the request has no room for it (nothing
 * was added; send and try again). */
static enum vnpu_status batch_add(struct htp_batch *b, const struct vnpu_tensor *node, const struct vnpu_tensor *fused,
                                  bool *full) {
    struct htp_device *d = b->d;
    const struct htp_op_family *family = &htp_family_unary; /* RMS_NORM_MUL's */
    const uint32_t opcode = fused ? HTP_OP_RMS_NORM_MUL : htp_op_of(node, &family);
    struct htp_op_desc op;
    memset(&op, 0, sizeof(op));
    const struct vnpu_tensor *src[HTP_MAX_SRC] = {NULL}, *dst[HTP_MAX_DST] = {NULL};
    htp_family_prep(family, d, node, fused, opcode, &op, src, dst);

    struct htp_operand o[HTP_MAX_SRC + HTP_MAX_DST];
    uint32_t n_new_bufs = 0;
    uint64_t sizes[HTP_MAX_BUFS + HTP_MAX_SRC + HTP_MAX_DST]; /* the request's distinct buffers with this op's */
    for (uint32_t i = 0; i < b->req->n_bufs; i++) {
        sizes[i] = b->bufs[i].size;
    }
    for (int j = 0; j < HTP_MAX_SRC + HTP_MAX_DST; j++) {
        o[j].t = j < HTP_MAX_SRC ? src[j] : dst[j - HTP_MAX_SRC];
        if (!o[j].t) {
            continue;
        }
        const enum vnpu_status st =
            htp_stage_place(&d->stage, o[j].t, &o[j].buf, &o[j].offset, &o[j].pinned, &o[j].copy);
        if (st != VNPU_STATUS_OK) {
            return st;
        }
        bool seen = batch_buf_index(b, o[j].buf) >= 0;
        for (int k = 0; k < j && !seen; k++) {
            seen = o[k].t && o[k].buf == o[j].buf;
        }
        if (!seen) {
            sizes[b->req->n_bufs + n_new_bufs++] = o[j].buf->size;
        }
    }
    /* The NPU maps a request's buffers all at once (src/htp/main.c), so they must fit the window together, as
     * upstream's batches keep their distinct buffers within max_vmem: with a model's weights in several buffers, a
     * request spanning every layer would not. One op that does not fit alone is sent anyway, and the NPU's error
     * names the sizes. */
    *full = b->req->n_ops > 0 && (b->req->n_ops == HTP_MAX_OPS || b->req->n_bufs + n_new_bufs > HTP_MAX_BUFS ||
                                  b->req->n_tensors + HTP_MAX_SRC + HTP_MAX_DST > HTP_MAX_TENSORS ||
                                  !vdsp_session_window_fits(d->session, sizes, b->req->n_bufs + n_new_bufs));
    if (*full) {
        return VNPU_STATUS_OK;
    }
    op.opcode = opcode;
    op.flags = (d->cfg->opstage & HTP_OPSTAGE_COMPUTE) ? 0 : HTP_OP_SKIP_COMPUTE;
    memcpy(op.params, (fused ? fused : node)->op_params, sizeof(op.params));
    for (int j = 0; j < HTP_MAX_SRC + HTP_MAX_DST; j++) {
        uint16_t *slot = j < HTP_MAX_SRC ? &op.src[j] : &op.dst[j - HTP_MAX_SRC];
        *slot = HTP_NO_TENSOR;
        if (o[j].t) {
            const enum vnpu_status st = batch_operand(b, &o[j], j >= HTP_MAX_SRC, slot);
            if (st != VNPU_STATUS_OK) {
                return st;
            }
        }
    }
    const uint32_t i = b->req->n_ops++;
    b->ops[i] = op;
    b->op_node[i] = fused ? fused : node;
    b->op_first[i] = node;
    return VNPU_STATUS_OK;
}

/* Grow *p (*cap items of size bytes) to hold n; false (logged) when out of memory. */
static bool grow(void **p, uint32_t *cap, uint32_t n, size_t size) {
    if (n <= *cap) {
        return true;
    }
    const uint32_t c = *cap ? 2 * *cap : 64;
    void *q = realloc(*p, (size_t) c * size);
    if (!q) {
        vnpu_log_error("out of memory for the NPU's op responses");
        return false;
    }
    *p = q;
    *cap = c;
    return true;
}

/* FP16's least normal magnitude, 2^-14. */
#define HTP_FP16_MIN_NORMAL 6.103515625e-05f

/* Whether what narrowing an operand to FP16 lost changes its results beyond FP16's own rounding: any overflow (an
 * infinity spreads to every sum it enters), and flushes when the operand's largest magnitude is below FP16's least
 * normal. A flushed value is below 2^-25; next to a value of magnitude m >= 2^-14 in the same operand it weighs less
 * than 2^-11 of it, FP16's rounding of m itself, so a few near-zero activations of a SiLU in an operand of magnitude
 * ~10 (every real model's FFN on HMX) lose nothing the FP16 path does not lose anyway. The counts stay in the
 * response (vnpu_htp_node_rsp) either way. */
static bool htp_fp16_loss_matters(const struct htp_fp16_range *r) {
    return r->n_overflow > 0 || (r->n_flush > 0 && r->max_abs < HTP_FP16_MIN_NORMAL);
}

/* Warn, once per node name and operand, that the NPU's narrowing of operand k of node's op to FP16 overflowed or
 * flushed (r: its counts). */
static void htp_fp16_warn(struct htp_batch *b, const struct vnpu_tensor *node, uint32_t k,
                          const struct htp_fp16_range *r) {
    static const char *const operand[HTP_FP16_N] = {"weights", "activations", "output"};
    for (uint32_t i = 0; i < b->n_warned; i++) {
        if (b->warned[i].operand == k && strcmp(b->warned[i].name, node->name) == 0) {
            return;
        }
    }
    if (!grow((void **) &b->warned, &b->cap_warned, b->n_warned + 1, sizeof(*b->warned))) {
        return;
    }
    struct htp_fp16_warned *w = &b->warned[b->n_warned++];
    snprintf(w->name, sizeof(w->name), "%s", node->name);
    w->operand = k;
    vnpu_log_warn("%s: %s '%s' on HMX: its %s narrowed to FP16: %u beyond its range (now infinities), %u below half "
                  "its least subnormal (now zeros), the largest finite magnitude %g; set VNPU_MM_PATH=hvx to keep F32 "
                  "on the NPU",
                  b->group ? b->group->name : b->d->name, vnpu_op_name(node->op), node->name, operand[k], r->n_overflow,
                  r->n_flush, (double) r->max_abs);
}

/* Keep op i's response for its node and warn about what its FP16 narrowing lost. */
static void batch_op_rsp(struct htp_batch *b, uint32_t i, const struct htp_op_rsp *rsp) {
    const struct vnpu_tensor *node = b->op_node[i];
    if (grow((void **) &b->rsps, &b->cap_rsps, b->n_rsps + 1, sizeof(*b->rsps))) {
        b->rsps[b->n_rsps++] = (struct htp_node_rsp){node, *rsp};
    }
    for (uint32_t k = 0; k < HTP_FP16_N; k++) {
        if (htp_fp16_loss_matters(&rsp->fp16[k])) {
            htp_fp16_warn(b, node, k, &rsp->fp16[k]);
        }
    }
}

bool htp_request_node_rsp(const struct htp_device *d, const struct vnpu_tensor *node, struct htp_op_rsp *out) {
    const struct htp_batch *b = d->batch;
    for (uint32_t i = b ? b->n_rsps : 0; i-- > 0;) {
        if (b->rsps[i].node == node) {
            *out = b->rsps[i].rsp;
            return true;
        }
    }
    return false;
}

/* a + b, saturating at UINT32_MAX. */
static uint32_t rsp_count_add(uint32_t a, uint32_t b) {
    return a > UINT32_MAX - b ? UINT32_MAX : a + b;
}

bool htp_op_rsp_merge(struct htp_op_rsp *sum, const struct htp_op_rsp *r, bool first) {
    if (first) {
        *sum = *r;
        return true;
    }
    for (uint32_t o = 0; o < HTP_FP16_N; o++) {
        struct htp_fp16_range *s = &sum->fp16[o];
        const struct htp_fp16_range *x = &r->fp16[o];
        if (o == HTP_FP16_SRC1) { /* the same activations, narrowed by every partition with a share */
            s->n_overflow = s->n_overflow > x->n_overflow ? s->n_overflow : x->n_overflow;
            s->n_flush = s->n_flush > x->n_flush ? s->n_flush : x->n_flush;
        } else {
            s->n_overflow = rsp_count_add(s->n_overflow, x->n_overflow);
            s->n_flush = rsp_count_add(s->n_flush, x->n_flush);
        }
        s->max_abs = s->max_abs > x->max_abs ? s->max_abs : x->max_abs;
    }
    return sum->mm_path == r->mm_path;
}

/* Op i's response from every member of the group that answered the request at once (n members), as one
 * (htp_op_rsp_merge). */
static struct htp_op_rsp group_op_rsp(const struct htp_group *g, uint32_t n, uint32_t i) {
    struct htp_op_rsp sum;
    for (uint32_t k = 0; k < n; k++) {
        const struct htp_req *r = g->members[k]->req->host;
        const struct htp_op_rsp *rsp = (const struct htp_op_rsp *) ((const uint8_t *) r + r->off_op_rsp) + i;
        if (!htp_op_rsp_merge(&sum, rsp, k == 0)) {
            vnpu_log_error("%s: op %u: member %u took matmul path %u, member 0 path %u", g->name, i, k, rsp->mm_path,
                           sum.mm_path);
        }
    }
    return sum;
}

/* VNPU_VERBOSE and VNPU_PROFILE lines and totals of an answered request (by n_members members of b's group at once,
 * or 1), and its ops' responses. */
static void batch_report(struct htp_batch *b, uint32_t n_members, double t_send, double t_recv) {
    struct htp_device *d = b->d;
    const struct htp_req *req = b->req;
    const struct htp_op_prof *prof = (const struct htp_op_prof *) ((const uint8_t *) req + req->off_prof);
    const struct htp_op_rsp *rsp = (const struct htp_op_rsp *) ((const uint8_t *) req + req->off_op_rsp);
    for (uint32_t i = 0; i < req->n_ops; i++) {
        const struct vnpu_tensor *node = b->op_node[i];
        if (n_members > 1) {
            const struct htp_op_rsp sum = group_op_rsp(b->group, n_members, i);
            batch_op_rsp(b, i, &sum);
        } else {
            batch_op_rsp(b, i, &rsp[i]);
        }
        if (d->cfg->verbose) {
            char dims[256], types[128];
            htp_node_dims(node, dims, sizeof(dims), types, sizeof(types));
            const bool fused = b->op_first[i] != node; /* named "norm-0+attn_norm-0": both nodes ran */
            htp_config_print("vnpu-htp: %s execute-op %s : %s%s%s : %s : %s : request %u op %u", d->name,
                             htp_op_name(b->ops[i].opcode), fused ? b->op_first[i]->name : "", fused ? "+" : "",
                             node->name, dims, types, req->id, i);
        }
        if (d->cfg->profile) {
            const uint32_t opcode = b->ops[i].opcode;
            d->prof[opcode].count++;
            d->prof[opcode].npu_usecs += prof[i].usecs;
            if (d->cfg->profile > 1) {
                htp_config_print("vnpu-htp: %s profile-op %s : %s : usec %u : cycles %llu", d->name,
                                 htp_op_name(opcode), node->name, prof[i].usecs, (unsigned long long) prof[i].cycles);
            }
        }
    }
    if (d->perf) {
        htp_perf_request(d, req, b->ops, b->op_node, n_members > 1);
    }
    if (d->cfg->profile) {
        d->prof_requests++;
        d->prof_host_us += t_recv - t_send;
        d->prof_mapped += req->rsp.n_mapped;
        d->prof_unmapped += req->rsp.n_unmapped;
        d->prof_defrags += req->rsp.n_defrags;
    }
    if (d->cfg->verbose && (req->rsp.n_mapped || req->rsp.n_unmapped || req->rsp.n_defrags)) {
        htp_config_print("vnpu-htp: %s request %u: window: %u buffers mapped, %u unmapped, %u defragmentations",
                         d->name, req->id, req->rsp.n_mapped, req->rsp.n_unmapped, req->rsp.n_defrags);
    }
    if (d->cfg->verbose > 1) {
        htp_config_print("vnpu-htp: %s request %u: %u ops, %u buffers, %u tensors, %.1f us (NPU %u us)", d->name,
                         req->id, req->n_ops, req->n_bufs, req->n_tensors, t_recv - t_send, req->rsp.usecs);
    }
}

/* Device d's part of a request's flags (its profile, its trace, what it injects: once) into req. */
static void request_flags(struct htp_device *d, struct htp_req *req) {
    req->flags = (d->cfg->profile ? HTP_REQ_PROFILE : 0) | (d->tracing ? HTP_REQ_TRACE : 0) |
                 (d->perf ? HTP_REQ_PERF : 0) | d->inject;
    req->n_trace = d->tracing ? HTP_TRACE_RECORDS : 0;
    d->inject = 0;
}

/* enum htp_status's name ("FENCE_TIMEOUT"), or "?" for a number the NPU library does not define. */
static const char *htp_status_name(uint32_t status) {
    static const char *const names[] = {
        [HTP_STATUS_OK] = "OK",
        [HTP_STATUS_INTERNAL_ERR] = "INTERNAL_ERR",
        [HTP_STATUS_NO_SUPPORT] = "NO_SUPPORT",
        [HTP_STATUS_INVAL_PARAMS] = "INVAL_PARAMS",
        [HTP_STATUS_VTCM_TOO_SMALL] = "VTCM_TOO_SMALL",
        [HTP_STATUS_FAULT] = "FAULT",
        [HTP_STATUS_DMA_LEAK] = "DMA_LEAK",
        [HTP_STATUS_DMA_FULL] = "DMA_FULL",
        [HTP_STATUS_FENCE_TIMEOUT] = "FENCE_TIMEOUT",
    };
    return status < sizeof(names) / sizeof(names[0]) && names[status] ? names[status] : "?";
}

/* The error line of a failed answer req (of device who; member: the group member that answered it, or NULL). */
static void batch_log_failure(const struct htp_batch *b, const char *who, const struct htp_device *member,
                              const struct htp_req *req) {
    const uint32_t k = req->rsp.failed_op < req->n_ops ? req->rsp.failed_op : 0;
    const bool fused = b->op_first[k] != b->op_node[k];
    char in[64] = "";
    if (member) {
        snprintf(in, sizeof(in), " on %s (mdev %u of %u)", member->name, req->mdev_idx, req->mdev_count);
    }
    vnpu_log_error("%s: request %u failed at op %u, %s of node%s '%s'%s%s%s%s: NPU status %u (%s): %.*s", who, req->id,
                   k, htp_op_name(b->ops[k].opcode), fused ? "s" : "", b->op_first[k]->name, fused ? " and '" : "",
                   fused ? b->op_node[k]->name : "", fused ? "'" : "", in, req->rsp.status,
                   htp_status_name(req->rsp.status), HTP_STATUS_MSG_LEN, req->rsp.message);
}

/* Send the request built in g->members[0]'s block to every member at once, each a copy with its mdev_idx, flags
 * and the group's fence base, and wait for all (size bytes of block). The next request's base follows this one's
 * barriers, two per op (htp-fence.h rule 3), whatever the answers: a failed request's slots are stale to the next.
 * Errors: the first member's that could not be served (its session lost). */
static enum vnpu_status group_send(struct htp_group *g, size_t size) {
    const struct htp_req *r0 = g->members[0]->req->host;
    struct vdsp_call calls[HTP_MAX_MDEV];
    bool queued[HTP_MAX_MDEV] = {false};
    enum vnpu_status st = VNPU_STATUS_OK;
    for (uint32_t k = 0; k < g->n; k++) {
        struct htp_device *m = g->members[k];
        uint8_t *block = m->req->host;
        struct htp_req *r = (struct htp_req *) block;
        if (k > 0) { /* the areas the host wrote; the NPU writes the response, profile and trace of each */
            const uint8_t *b0 = (const uint8_t *) r0;
            memcpy(block, b0, sizeof(*r0));
            memcpy(block + r0->off_bufs, b0 + r0->off_bufs, r0->n_bufs * sizeof(struct htp_buf_desc));
            memcpy(block + r0->off_tensors, b0 + r0->off_tensors, r0->n_tensors * sizeof(struct htp_tensor_desc));
            memcpy(block + r0->off_ops, b0 + r0->off_ops, r0->n_ops * sizeof(struct htp_op_desc));
            request_flags(m, r);
        }
        r->mdev_idx = k;
        r->fence_seq = g->seq;
        enum vnpu_status sk = htp_device_ready(m);
        if (sk == VNPU_STATUS_OK) {
            sk = vdsp_session_submit(m->session, m->req, 0, size, &calls[k]);
        }
        queued[k] = sk == VNPU_STATUS_OK;
        st = st == VNPU_STATUS_OK ? sk : st;
    }
    for (uint32_t k = 0; k < g->n; k++) {
        const enum vnpu_status sk = queued[k] ? vdsp_session_wait(g->members[k]->session, &calls[k]) : st;
        st = st == VNPU_STATUS_OK ? sk : st;
    }
    g->seq += 2 * r0->n_ops;
    return st;
}

/* Send the request built so far (nothing when empty) and settle its answer. */
static enum vnpu_status batch_send(struct htp_batch *b) {
    struct htp_device *d = b->d;
    struct htp_group *g = b->group;
    struct htp_req *req = b->req;
    if (req->n_ops == 0) {
        return VNPU_STATUS_OK;
    }
    for (uint32_t i = 0; i < b->n_copies; i++) { /* a written operand too: its bytes the op leaves or reads */
        memcpy(b->copies[i].shared, b->copies[i].t->data, b->copies[i].size);
    }
    /* partitions one after another (htp_mdev_run): the device's own, or a group's under VNPU_MDEV_CHECK, whose
     * answer is d's block alone; no trace (each partition's header drops it, partition_header) */
    const bool checked = g && d->mdev_seq.check != HTP_MDEV_CHECK_OFF;
    const bool parts = checked || (!g && d->mdev_seq.count > 1);
    req->id = ++d->req_id;
    request_flags(d, req);
    const size_t size = htp_request_size(d->n_threads, d->perf != NULL);
    const double t_send = now_us();
    enum vnpu_status st = VNPU_STATUS_OK;
    if (checked) { /* each member's partition in turn, on its session */
        struct htp_mdev_seq seq = {.count = g->n, .check = d->mdev_seq.check};
        for (uint32_t k = 1; k < g->n && st == VNPU_STATUS_OK; k++) {
            st = htp_device_ready(g->members[k]);
            seq.session[k] = g->members[k]->session;
        }
        st = st == VNPU_STATUS_OK ? htp_mdev_run(d, &seq, size, b->vbufs, b->op_node) : st;
    } else {
        st = g       ? group_send(g, size)
             : parts ? htp_mdev_run(d, &d->mdev_seq, size, b->vbufs, b->op_node)
                     : htp_device_call(d, size);
    }
    const double t_recv = now_us();
    const uint32_t n_members = g && !checked ? g->n : 1;
    bool failed = false;
    for (uint32_t k = 0; st == VNPU_STATUS_OK && k < n_members; k++) {
        const struct htp_device *m = g && !checked ? g->members[k] : d;
        const struct htp_req *r = m->req->host;
        if (r->rsp.status != HTP_STATUS_OK) {
            batch_log_failure(b, g ? g->name : d->name, g ? m : NULL, r);
            failed = true;
        }
    }
    st = st == VNPU_STATUS_OK && failed ? VNPU_STATUS_DEVICE : st;
    if (st == VNPU_STATUS_OK) {
        for (uint32_t i = 0; i < b->n_copies; i++) {
            if (b->copies[i].out) {
                memcpy(b->copies[i].t->data, b->copies[i].shared, b->copies[i].size);
            }
        }
        batch_report(b, n_members, t_send, t_recv);
    }
    for (uint32_t k = 0; k < n_members; k++) { /* every member's own trace: its FENCE waits show there */
        struct htp_device *m = g ? g->members[k] : d;
        const struct htp_req *r = m->req->host;
        if (m->tracing && !parts && (st == VNPU_STATUS_OK || failed)) {
            htp_trace_request(m, r, t_send, t_recv, b->op_node, htp_perf_last(d));
        }
    }
    batch_begin(b);
    return st;
}

/* Whether node has nothing to compute: an empty op, no elements, or a SET_ROWS of no rows (its result is the
 * destination, unchanged, as ggml's CPU backend leaves it; the NPU's plans divide by the rows' dims). */
static bool node_is_noop(const struct vnpu_tensor *node) {
    return vnpu_op_is_empty(node->op) || vnpu_nelements(node) == 0 ||
           (node->op == VNPU_OP_SET_ROWS && vnpu_nelements(node->src[0]) == 0);
}

enum vnpu_status htp_graph_compute(struct htp_device *d, struct htp_group *g, struct vnpu_tensor **nodes, int n_nodes) {
    if (!(d->cfg->opstage & HTP_OPSTAGE_QUEUE)) {
        return VNPU_STATUS_OK; /* VNPU_OPSTAGE: ops claimed, never sent */
    }
    if (!d->batch) {
        d->batch = calloc(1, sizeof(*d->batch));
        if (!d->batch) {
            vnpu_log_error("%s: out of memory for the request builder", d->name);
            return VNPU_STATUS_NO_MEMORY;
        }
        d->batch->d = d;
    }
    /* a session to plan with: batch_add asks it whether the request's buffers fit its window */
    enum vnpu_status st = htp_device_ready(d);
    if (st != VNPU_STATUS_OK) {
        return st;
    }
    struct htp_batch *b = d->batch;
    b->group = g;
    batch_begin(b);
    b->n_rsps = 0;
    for (int i = 0; i < n_nodes && st == VNPU_STATUS_OK; i++) {
        const struct vnpu_tensor *node = nodes[i];
        if (node_is_noop(node)) {
            continue;
        }
        const struct vnpu_tensor *fused = htp_can_fuse_rms_norm_mul(d, nodes, n_nodes, i) ? nodes[i + 1] : NULL;
        bool full = false;
        st = batch_add(b, node, fused, &full);
        if (st == VNPU_STATUS_OK && full) {
            st = batch_send(b);
            if (st == VNPU_STATUS_OK) {
                st = batch_add(b, node, fused, &full);
                VNPU_ASSERT(!full); /* one op always fits an empty request */
            }
        }
        if (st == VNPU_STATUS_OK && b->send_now) {
            st = batch_send(b);
        }
        i += fused != NULL;
    }
    if (st == VNPU_STATUS_OK) {
        st = batch_send(b);
    }
    return st;
}

void htp_batch_free(struct htp_batch *b) {
    if (b) {
        free(b->rsps);
        free(b->warned);
    }
    free(b);
}
