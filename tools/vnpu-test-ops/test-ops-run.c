/* One case of vnpu-test-ops on a device and on the CPU reference: see test-ops-run.h. */
#include "test-ops-run.h"

#include "buffer.h"
#include "fp16.h"
#include "hash.h"
#include "htp-host.h"
#include "log.h"
#include "rng.h"
#include "type-traits.h"
#include "xdna-host.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define OPS_GUARD      128  /* sentinel bytes on each side of a tensor's memory */
#define OPS_SENTINEL   0xA5 /* their value */
#define OPS_POISON     0xFF /* results start as NaN bytes */
#define OPS_MAX_OWNERS 16
#define OPS_ARENA      (1u << 20)

/* splitmix64 (src/base/rng.h) seeded with the case string's FNV-1a 64, normals by Box-Muller in float from two 24-bit
 * uniforms per draw, both normals of each pair used (|x| < 5.8): the same inputs on both sides and on every run of the
 * case. */
struct ops_rng {
    uint64_t s;
    float spare; /* the pair's second normal */
    bool has_spare;
};

static void ops_rng_seed(struct ops_rng *r, const char *seed) {
    r->s = vnpu_fnv1a64(seed, strlen(seed));
    r->spare = 0.0f;
    r->has_spare = false;
}

static float ops_rng_normal(struct ops_rng *r) {
    if (r->has_spare) {
        r->has_spare = false;
        return r->spare;
    }
    const uint64_t bits = vnpu_splitmix64(&r->s); /* two 24-bit uniforms: u1 in (0, 1], u2 in [0, 1) */
    const float u1 = (float) ((bits >> 40) + 1) * 0x1p-24f, u2 = (float) (bits & 0xFFFFFF) * 0x1p-24f;
    const float radius = sqrtf(-2.0f * logf(u1));
    float sin_a, cos_a;
    sincosf(6.28318530717958648f * u2, &sin_a, &cos_a);
    r->spare = radius * sin_a;
    r->has_spare = true;
    return radius * cos_a;
}

/* One side of a case: its graph and the memory of every tensor that owns memory. */
struct ops_side {
    struct vnpu_ctx *ctx;
    struct vnpu_graph *g;
    struct vnpu_tensor *out;
    struct vnpu_tensor *owners[OPS_MAX_OWNERS];
    int owner_operand[OPS_MAX_OWNERS];  /* the operand an input owner backs, -1 for a result */
    bool owner_written[OPS_MAX_OWNERS]; /* a result: made by a node, or an input a node writes (in place, a view) */
    size_t owner_size[OPS_MAX_OWNERS];  /* bytes the owner takes in its buffer (a tiled weight's are more) */
    uint8_t *snapshot[OPS_MAX_OWNERS];  /* an input's bytes in its buffer before the compute */
    int n_owners;
    struct vnpu_buffer *buf;
    struct vnpu_buffer *weight_buf; /* src0's owner when the case's src0 is a weight */
};

/* Every element of owner t (operand `operand` of c) from the generator, through the kind's input function, in
 * t's type (src0's float values times the case's in_scale, one per row its in_special): F32, F16; I32 and I64 (the
 * kind's index function when it has one, else the input rounded); a block type (its reference quantizer over each row
 * of draws). Written with vnpu_tensor_set, so a buffer that stores a layout of its own (a tiled weight) gets GGML's
 * bytes to transform. */
static enum vnpu_status ops_fill(struct vnpu_tensor *t, const struct ops_case *c, const struct ops_kind *k, int operand,
                                 struct ops_rng *rng) {
    const struct vnpu_type_traits *tt = vnpu_type_traits_get(t->type);
    const size_t bytes = vnpu_nbytes(t), n = bytes / tt->size * (size_t) tt->blck;
    uint8_t *data = malloc(bytes);
    float *row = tt->is_quantized ? malloc((size_t) t->ne[0] * sizeof(float)) : NULL;
    if (!data || (tt->is_quantized && !row)) {
        free(data);
        free(row);
        return VNPU_STATUS_NO_MEMORY;
    }
    const size_t ne0 = (size_t) t->ne[0], row_size = tt->is_quantized ? vnpu_row_size(t->type, t->ne[0]) : 0;
    const bool index = t->type == VNPU_TYPE_I32 || t->type == VNPU_TYPE_I64;
    for (size_t r = 0, e = 0; e < n; r++) {
        const size_t special = r * 7 % ne0; /* the row's in_special element */
        for (size_t i = 0; i < ne0; i++, e++) {
            const float normal = ops_rng_normal(rng);
            const float drawn = k->input ? k->input(c, operand, normal) : normal;
            float v = operand == 0 && c->in_scale != 0.0f ? drawn * c->in_scale : drawn;
            if (operand == 0 && c->in_special != 0.0f && i == special) {
                v = c->in_special;
            }
            if (t->type == VNPU_TYPE_F32) {
                ((float *) data)[e] = v;
            } else if (t->type == VNPU_TYPE_F16) {
                ((vnpu_fp16_t *) data)[e] = vnpu_f32_to_fp16(v);
            } else if (index) {
                const int64_t x = k->index ? k->index(c, operand, e, normal) : lrintf(v);
                if (t->type == VNPU_TYPE_I32) {
                    ((int32_t *) data)[e] = (int32_t) x;
                } else {
                    ((int64_t *) data)[e] = x;
                }
            } else {
                VNPU_ASSERT(tt->is_quantized && tt->from_f32_ref);
                row[i] = v;
            }
        }
        if (tt->is_quantized) {
            tt->from_f32_ref(row, data + r * row_size, t->ne[0]);
        }
    }
    const enum vnpu_status st = vnpu_tensor_set(t, data, 0, bytes);
    free(data);
    free(row);
    return st;
}

static const struct vnpu_tensor *ops_owner(const struct vnpu_tensor *t) {
    return t->view_src ? t->view_src : t;
}

/* Place owner i of s at byte off of buf, fenced by sentinel bytes; returns the bytes it takes with them. */
static size_t ops_place(struct ops_side *s, int i, struct vnpu_buffer *buf, size_t off) {
    struct vnpu_tensor *t = s->owners[i];
    const size_t padded = (s->owner_size[i] + 127) & ~(size_t) 127;
    uint8_t *base = buf->base;
    memset(base + off, OPS_SENTINEL, OPS_GUARD);
    vnpu_buffer_place_tensor(buf, t, off + OPS_GUARD);
    memset(base + off + OPS_GUARD + s->owner_size[i], OPS_SENTINEL, padded - s->owner_size[i] + OPS_GUARD);
    return 2 * OPS_GUARD + padded;
}

/* Build c's graph in bt's memory (a weight src0 in the weight buffer type of weight_dev, when not NULL),
 * inputs drawn from a generator seeded with name, results poisoned. */
static enum vnpu_status ops_side_build(struct ops_side *s, const struct ops_case *c, const struct ops_kind *k,
                                       const char *name, struct vnpu_buffer_type *bt, struct vnpu_device *weight_dev) {
    memset(s, 0, sizeof(*s));
    s->ctx = vnpu_ctx_new(OPS_ARENA, true);
    if (!s->ctx) {
        return VNPU_STATUS_NO_MEMORY;
    }
    struct vnpu_tensor *in[OPS_MAX_INPUTS] = {NULL};
    const int n_in = ops_case_inputs(s->ctx, c, k, in);
    s->out = k->build(s->ctx, c, in);
    if (c->inplace) { /* the result is src0's memory, with src0's strides (ggml's *_inplace) */
        s->out->view_src = (struct vnpu_tensor *) ops_owner(in[0]);
        s->out->view_offs = in[0]->view_offs;
        memcpy(s->out->nb, in[0]->nb, sizeof(s->out->nb));
    }
    s->g = vnpu_graph_new(s->ctx, 64);
    vnpu_graph_build_forward_expand(s->g, s->out);

    /* Owners: the operands' memory first (operand order), then results without memory of their own. */
    for (int i = 0; i < n_in; i++) {
        s->owner_operand[s->n_owners] = i;
        s->owners[s->n_owners++] = (struct vnpu_tensor *) ops_owner(in[i]);
    }
    for (int n = 0; n < s->g->n_nodes; n++) {
        struct vnpu_tensor *t = s->g->nodes[n];
        if (!t->view_src && s->n_owners < OPS_MAX_OWNERS) {
            s->owner_operand[s->n_owners] = -1;
            s->owners[s->n_owners++] = t;
        }
    }
    struct vnpu_buffer_type *weight_bt =
        c->weight && weight_dev ? vnpu_device_weight_buffer_type(weight_dev, s->owners[0]) : bt;
    size_t total = 0;
    for (int i = 0; i < s->n_owners; i++) {
        const bool weight = c->weight && s->owner_operand[i] == 0;
        s->owner_written[i] = s->owner_operand[i] < 0;
        for (int n = 0; n < s->g->n_nodes; n++) {
            const struct vnpu_tensor *t = s->g->nodes[n];
            s->owner_written[i] = s->owner_written[i] || (!vnpu_op_is_empty(t->op) && t->view_src == s->owners[i]);
        }
        s->owner_size[i] = vnpu_buffer_type_alloc_size(weight ? weight_bt : bt, s->owners[i]);
        total += weight ? 0 : 2 * OPS_GUARD + ((s->owner_size[i] + 127) & ~(size_t) 127);
    }
    enum vnpu_status st = vnpu_buffer_type_alloc(bt, total, &s->buf);
    if (st == VNPU_STATUS_OK && c->weight) {
        st = vnpu_buffer_type_alloc(weight_bt, 2 * OPS_GUARD + ((s->owner_size[0] + 127) & ~(size_t) 127),
                                    &s->weight_buf);
    }
    if (st != VNPU_STATUS_OK) {
        return st;
    }
    struct ops_rng rng;
    ops_rng_seed(&rng, name);
    size_t off = 0;
    for (int i = 0; i < s->n_owners && st == VNPU_STATUS_OK; i++) {
        struct vnpu_tensor *t = s->owners[i];
        if (c->weight && s->owner_operand[i] == 0) {
            ops_place(s, i, s->weight_buf, 0);
        } else {
            off += ops_place(s, i, s->buf, off);
        }
        if (s->owner_operand[i] < 0) {
            memset(t->data, OPS_POISON, s->owner_size[i]);
            continue;
        }
        st = ops_fill(t, c, k, s->owner_operand[i], &rng);
        if (st == VNPU_STATUS_OK && !s->owner_written[i]) {
            s->snapshot[i] = malloc(s->owner_size[i]);
            st = s->snapshot[i] ? VNPU_STATUS_OK : VNPU_STATUS_NO_MEMORY;
        }
        if (st == VNPU_STATUS_OK && s->snapshot[i]) {
            memcpy(s->snapshot[i], t->data, s->owner_size[i]);
        }
    }
    for (int n = 0; n < s->g->n_nodes; n++) { /* views see their owner's placement */
        struct vnpu_tensor *t = s->g->nodes[n];
        if (t->view_src) {
            t->data = (uint8_t *) t->view_src->data + t->view_offs;
            t->buffer = t->view_src->buffer;
        }
    }
    return st;
}

/* The reference computes from the weight the device holds: src0 read back from d's weight buffer (GGML's
 * bytes again, through the buffer's get_tensor) into r's. */
static enum vnpu_status ops_side_sync_weight(const struct ops_side *d, struct ops_side *r) {
    return vnpu_tensor_get(d->owners[0], r->owners[0]->data, 0, vnpu_nbytes(r->owners[0]));
}

static void ops_side_free(struct ops_side *s) {
    vnpu_buffer_free(s->buf);
    vnpu_buffer_free(s->weight_buf);
    for (int i = 0; i < s->n_owners; i++) {
        free(s->snapshot[i]);
    }
    if (s->ctx) {
        vnpu_ctx_free(s->ctx);
    }
}

/* Whether every sentinel byte of s is intact. */
static bool ops_guards_ok(const struct ops_side *s) {
    for (int i = 0; i < s->n_owners; i++) {
        const uint8_t *data = s->owners[i]->data;
        const size_t bytes = s->owner_size[i], padded = (bytes + 127) & ~(size_t) 127;
        for (const uint8_t *p = data - OPS_GUARD; p < data; p++) {
            if (*p != OPS_SENTINEL) {
                return false;
            }
        }
        for (const uint8_t *p = data + bytes; p < data + padded + OPS_GUARD; p++) {
            if (*p != OPS_SENTINEL) {
                return false;
            }
        }
    }
    return true;
}

/* Element (i0, i1, i2, i3) of an F32 or F16 tensor. */
static double ops_get(const struct vnpu_tensor *t, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
    const uint8_t *p = (const uint8_t *) t->data + i0 * t->nb[0] + i1 * t->nb[1] + i2 * t->nb[2] + i3 * t->nb[3];
    if (t->type == VNPU_TYPE_F16) {
        vnpu_fp16_t h;
        memcpy(&h, p, sizeof(h));
        return vnpu_fp16_to_f32(h);
    }
    VNPU_ASSERT(t->type == VNPU_TYPE_F32);
    return *(const float *) p;
}

/* NMSE of a against the reference r (same shape), as test-backend-ops compares: a non-finite value must be met by
 * the same one (NaN by NaN, inf by inf of its sign), and such equal pairs add nothing to either sum (inf - inf
 * would make the NMSE NaN, an inf reference would hide every other error). A non-finite value met by anything else
 * gives NaN, which fails every threshold, with its indices in at[4] (else untouched). */
static double ops_nmse(const struct vnpu_tensor *a, const struct vnpu_tensor *r, int64_t at[4]) {
    double err = 0.0, ref = 0.0;
    for (int64_t i3 = 0; i3 < a->ne[3]; i3++) {
        for (int64_t i2 = 0; i2 < a->ne[2]; i2++) {
            for (int64_t i1 = 0; i1 < a->ne[1]; i1++) {
                for (int64_t i0 = 0; i0 < a->ne[0]; i0++) {
                    const double x = ops_get(a, i0, i1, i2, i3), y = ops_get(r, i0, i1, i2, i3);
                    if (isfinite(x) && isfinite(y)) {
                        err += (x - y) * (x - y);
                        ref += y * y;
                    } else if (!(isnan(x) && isnan(y)) && x != y) {
                        at[0] = i0, at[1] = i1, at[2] = i2, at[3] = i3;
                        return NAN;
                    }
                }
            }
        }
    }
    return ref > 0.0 ? err / ref : err;
}

/* Whether dut's nodes run on dut (a case whose node it rejects is reported unsupported, not computed). */
static bool ops_supported(struct vnpu_device *dut, const struct ops_side *s) {
    for (int n = 0; n < s->g->n_nodes; n++) {
        if (!vnpu_op_is_empty(s->g->nodes[n]->op) && !vnpu_device_supports_op(dut, s->g->nodes[n])) {
            return false;
        }
    }
    return true;
}

static double ops_now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec * 1e6 + (double) ts.tv_nsec * 1e-3;
}

/* Microseconds per compute of s on dev: repeated for at least 50 ms (and at least 3 times). */
static double ops_time(struct vnpu_device *dev, struct ops_side *s) {
    const double t0 = ops_now_us();
    int runs = 0;
    double t = t0;
    while (runs < 3 || t - t0 < 50e3) {
        if (vnpu_sched_graph_compute(&dev, 1, s->g) != VNPU_STATUS_OK) {
            return NAN;
        }
        runs++;
        t = ops_now_us();
    }
    return (t - t0) / runs;
}

/* What dut answered for node a (an HTP device's op response) against what case c of kind k expects: a matmul's bound
 * by its path into *nmse_max; on HMX, a case that expects an FP16 report (ops_mm.fp16) must get it for its operand,
 * *reported then says it was (no NMSE is asked of that node), and every other op must report nothing lost. False
 * with the reason in detail when the report is not what the case expects. */
static bool ops_check_rsp(const struct ops_case *c, const struct ops_kind *k, struct vnpu_device *dut,
                          const struct vnpu_tensor *a, double *nmse_max, bool *reported, char *detail, size_t size) {
    static const char *const operand[HTP_FP16_N] = {"src0", "src1", "dst"};
    struct htp_op_rsp rsp;
    *nmse_max = c->nmse_max;
    *reported = false;
    if (vnpu_xdna_device_is(dut)) {
        *nmse_max = k->nmse_xdna ? k->nmse_xdna(c, vnpu_xdna_device_bfp16(dut)) : c->nmse_max;
        return true;
    }
    if (!vnpu_htp_device_is(dut) || !vnpu_htp_node_rsp(dut, a, &rsp)) {
        return true;
    }
    if (k->nmse_path && rsp.mm_path != HTP_RSP_PATH_NONE) {
        *nmse_max = k->nmse_path(c, rsp.mm_path);
    }
    const enum ops_fp16 want = k->nmse_path && rsp.mm_path == HTP_RSP_PATH_HMX ? c->mm.fp16 : OPS_FP16_NONE;
    for (uint32_t j = 0; j < HTP_FP16_N; j++) {
        const struct htp_fp16_range *f = &rsp.fp16[j];
        const bool named = want != OPS_FP16_NONE && j == c->mm.fp16_operand;
        if (named && (want == OPS_FP16_OVERFLOW ? f->n_overflow : f->n_flush) == 0) {
            snprintf(detail, size, "HMX reported no FP16 %s of %s (%u overflows, %u flushes)",
                     want == OPS_FP16_OVERFLOW ? "overflow" : "flush", operand[j], f->n_overflow, f->n_flush);
            return false;
        }
        if (want == OPS_FP16_NONE && (f->n_overflow || f->n_flush)) {
            snprintf(detail, size, "an FP16 report nothing asked for: %s %u overflows, %u flushes (largest %g)",
                     operand[j], f->n_overflow, f->n_flush, (double) f->max_abs);
            return false;
        }
        if (named) {
            snprintf(detail, size, "HMX reported %u FP16 %s of %s (largest %g)",
                     want == OPS_FP16_OVERFLOW ? f->n_overflow : f->n_flush,
                     want == OPS_FP16_OVERFLOW ? "overflows" : "flushes", operand[j], (double) f->max_abs);
            *reported = true;
        }
    }
    return true;
}

/* Compare the two sides: results by NMSE, inputs bitwise against their bytes before the compute, dut's op responses
 * (ops_check_rsp). A pass says the largest NMSE of its nodes and the bound in detail, or the FP16 report HMX made. */
static enum ops_result ops_compare(const struct ops_case *c, const struct ops_kind *k, struct vnpu_device *dut,
                                   const struct ops_side *d, const struct ops_side *r, char *detail, size_t size) {
    if (!ops_guards_ok(d)) {
        snprintf(detail, size, "a write outside the tensors (sentinel bytes changed)");
        return OPS_FAIL;
    }
    for (int i = 0; i < d->n_owners; i++) {
        if (d->snapshot[i] && memcmp(d->owners[i]->data, d->snapshot[i], d->owner_size[i]) != 0) {
            snprintf(detail, size, "input %d changed", d->owner_operand[i]);
            return OPS_FAIL;
        }
    }
    double nmse_max = 0.0, nmse_max_bound = c->nmse_max; /* the worst node's NMSE and that node's bound */
    bool reported = false;
    for (int n = 0; n < d->g->n_nodes; n++) {
        const struct vnpu_tensor *a = d->g->nodes[n], *b = r->g->nodes[n];
        if (vnpu_op_is_empty(a->op)) {
            continue;
        }
        double bound;
        bool node_reported;
        if (!ops_check_rsp(c, k, dut, a, &bound, &node_reported, detail, size)) {
            return OPS_FAIL;
        }
        if (node_reported) {
            reported = true;
            continue;
        }
        int64_t ix[4] = {-1, -1, -1, -1};
        const double nmse = ops_nmse(a, b, ix);
        if (ix[0] >= 0) {
            snprintf(detail, size, "non-finite mismatch at node %d (%s) [%lld, %lld, %lld, %lld]: %g, expected %g", n,
                     vnpu_op_desc(a), (long long) ix[0], (long long) ix[1], (long long) ix[2], (long long) ix[3],
                     ops_get(a, ix[0], ix[1], ix[2], ix[3]), ops_get(b, ix[0], ix[1], ix[2], ix[3]));
            return OPS_FAIL;
        }
        if (!(nmse <= bound)) {
            snprintf(detail, size, "NMSE = %.3g > %.3g at node %d (%s)", nmse, bound, n, vnpu_op_desc(a));
            return OPS_FAIL;
        }
        if (nmse >= nmse_max) {
            nmse_max = nmse;
            nmse_max_bound = bound;
        }
    }
    if (!reported) {
        snprintf(detail, size, "NMSE %.3g <= %.3g", nmse_max, nmse_max_bound);
    }
    return OPS_PASS;
}

/* Case c again on dut (an HTP device) with every op run as mdev partitions one after another (d: the case's
 * single-device side, computed): every tensor's memory must be bitwise d's, since partitioning changes no row's
 * arithmetic. */
static enum ops_result ops_mdev_compare(const struct ops_case *c, const struct ops_kind *k, const char *name,
                                        struct vnpu_device *dut, uint32_t mdev, const struct ops_side *d, char *detail,
                                        size_t size) {
    struct ops_side m;
    enum vnpu_status st = ops_side_build(&m, c, k, name, vnpu_device_buffer_type(dut), dut);
    if (st == VNPU_STATUS_OK && (st = vnpu_htp_device_partitions(dut, mdev)) == VNPU_STATUS_OK) {
        st = vnpu_sched_graph_compute(&dut, 1, m.g);
        vnpu_htp_device_partitions(dut, 1);
    }
    enum ops_result res = OPS_PASS;
    if (st != VNPU_STATUS_OK) {
        snprintf(detail, size, "compute in %u partitions failed: %s", mdev, vnpu_status_str(st));
        res = OPS_FAIL;
    } else if (!ops_guards_ok(&m)) {
        snprintf(detail, size, "%u partitions: a write outside the tensors (sentinel bytes changed)", mdev);
        res = OPS_FAIL;
    }
    for (int i = 0; i < m.n_owners && res == OPS_PASS; i++) {
        const uint8_t *a = m.owners[i]->data, *b = d->owners[i]->data;
        for (size_t j = 0; j < m.owner_size[i]; j++) {
            if (a[j] != b[j]) {
                snprintf(detail, size, "%u partitions: byte %zu of tensor '%s' is 0x%02x, one device wrote 0x%02x",
                         mdev, j, m.owners[i]->name, a[j], b[j]);
                res = OPS_FAIL;
                break;
            }
        }
    }
    ops_side_free(&m);
    return res;
}

enum ops_result ops_run_case(const struct ops_case *c, struct vnpu_device *dut, struct vnpu_device *ref, bool perf,
                             uint32_t mdev, char *detail, size_t size) {
    char name[256];
    ops_case_name(c, name, sizeof(name));
    detail[0] = 0;
    const struct ops_kind *k = ops_kind_find(c->op);
    VNPU_ASSERT(k);
    struct ops_side d, r;
    enum vnpu_status st = ops_side_build(&d, c, k, name, vnpu_device_buffer_type(dut), dut);
    if (st == VNPU_STATUS_OK) {
        st = ops_side_build(&r, c, k, name, vnpu_host_buffer_type(), NULL);
    }
    if (st == VNPU_STATUS_OK && c->weight) {
        st = ops_side_sync_weight(&d, &r);
    }
    enum ops_result res = OPS_FAIL;
    if (st != VNPU_STATUS_OK) {
        snprintf(detail, size, "cannot build the case: %s", vnpu_status_str(st));
    } else if (!ops_supported(dut, &d)) {
        snprintf(detail, size, "not supported by %s", vnpu_device_name(dut));
        res = OPS_UNSUPPORTED;
    } else if ((st = vnpu_sched_graph_compute(&dut, 1, d.g)) != VNPU_STATUS_OK ||
               (st = vnpu_sched_graph_compute(&ref, 1, r.g)) != VNPU_STATUS_OK) {
        snprintf(detail, size, "compute failed: %s", vnpu_status_str(st));
    } else {
        res = ops_compare(c, k, dut, &d, &r, detail, size);
    }
    if (res == OPS_PASS && mdev > 1) {
        char why[256];
        if (ops_mdev_compare(c, k, name, dut, mdev, &d, why, sizeof(why)) == OPS_PASS) {
            snprintf(detail + strlen(detail), size - strlen(detail), ", %u partitions bitwise equal", mdev);
        } else {
            snprintf(detail, size, "%s", why);
            res = OPS_FAIL;
        }
    }
    if (res == OPS_PASS && perf) {
        size_t bytes = 0;
        for (int i = 0; i < d.n_owners; i++) {
            bytes += d.owner_size[i];
        }
        const double us = ops_time(dut, &d), us_ref = ops_time(ref, &r);
        snprintf(detail, size, "%10.1f us/run %8.2f GB/s   (CPU %10.1f us/run)", us, (double) bytes / (us * 1e3),
                 us_ref);
    }
    ops_side_free(&d);
    ops_side_free(&r);
    return res;
}
