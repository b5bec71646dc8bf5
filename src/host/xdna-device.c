/* The XDNA devices (xdna-host.h): MUL_MAT on the emulated array, the host staging its operands in DDR buffers. */
#include "xdna-host.h"

#include "env.h"
#include "htp-config.h"
#include "htp-host.h"
#include "log.h"
#include "perf-model.h"
#include "xdna-matmul.h"
#include "xdna-trace-export.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define N_DESIGNS 8 /* built matmul designs kept, by shape: a model's decode and prompt steps use a handful */

/* A weight packed for the designs: src0's data address and shape, its packed B. */
struct packed_weight {
    const void *data;
    size_t nb1;
    enum vnpu_type type;
    uint32_t K, N;
    void *b;
};

struct xdna_dev {
    struct vnpu_device dev;
    const struct xdna_device *part;
    bool strict, bfp16;
    uint32_t verbose;                       /* VNPU_VERBOSE, as the HTP devices read it: 1 prints every op executed */
    struct xdna_matmul *designs[N_DESIGNS]; /* most recently used first */
    struct packed_weight *weights;
    size_t n_weights, cap_weights;
    float *a, *c, *row; /* staging: A and C in DDR, one dequantized src0 row */
    size_t a_elems, c_elems, row_elems;
    uint8_t *b; /* a src0 that is not a weight, packed for one call */
    size_t b_bytes;
    struct vnpu_xdna_totals totals;
    struct xdna_trace_export *trace; /* the Perfetto trace (vnpu_xdna_device_trace), NULL */
    struct xdna_dev *next_open;      /* the open devices' list (vnpu_xdna_totals_read) */
};

static pthread_mutex_t open_lock = PTHREAD_MUTEX_INITIALIZER;
static struct xdna_dev *open_first;

static const struct vnpu_device_iface xdna_device_iface;

bool vnpu_xdna_device_name(const char *name, size_t len) {
    return xdna_device_find(name, len) != NULL;
}

bool vnpu_xdna_device_is(struct vnpu_device *dev) {
    return dev && dev->iface == &xdna_device_iface;
}

bool vnpu_xdna_device_bfp16(struct vnpu_device *dev) {
    const struct xdna_dev *x = dev->ctx;
    return x->bfp16;
}

static const char *xdna_get_name(struct vnpu_device *dev) {
    const struct xdna_dev *x = dev->ctx;
    return x->part->name;
}

/* The src0 types the device takes: the GGUF weight types and bf16 (Q4_0 and Q8_0 stream as their blocks, the
 * others dequantized to bf16 by the host: b_type_of). */
static const bool weight_types[VNPU_TYPE_COUNT] = {
    [VNPU_TYPE_F32] = true,  [VNPU_TYPE_F16] = true,  [VNPU_TYPE_BF16] = true,
    [VNPU_TYPE_Q4_0] = true, [VNPU_TYPE_Q8_0] = true, [VNPU_TYPE_Q4_K] = true,
};

/* How src0 of type streams through the design (xdna_matmul_plan_init's b_type). */
static enum vnpu_type b_type_of(enum vnpu_type type) {
    return type == VNPU_TYPE_Q4_0 || type == VNPU_TYPE_Q8_0 ? type : VNPU_TYPE_BF16;
}

/* MUL_MAT: src0 a supported type with dense rows, src1 and dst F32 with dense rows, GGML's broadcast of src0 over
 * dims 2 and 3, a shape the design takes (xdna_matmul_fits: its dimensions, its runtime sequence's length). */
static bool xdna_supports_op(struct vnpu_device *dev, const struct vnpu_tensor *op) {
    const struct xdna_dev *xd = dev->ctx;
    if (op->op != VNPU_OP_MUL_MAT) {
        return false;
    }
    const struct vnpu_tensor *w = op->src[0], *x = op->src[1];
    return weight_types[w->type] && w->nb[0] == vnpu_type_size_of(w) && x->type == VNPU_TYPE_F32 &&
           x->nb[0] == sizeof(float) && op->type == VNPU_TYPE_F32 && op->nb[0] == sizeof(float) &&
           x->ne[2] % w->ne[2] == 0 && x->ne[3] % w->ne[3] == 0 && w->ne[0] <= XDNA_MM_MAX_DIM &&
           w->ne[1] <= XDNA_MM_MAX_DIM && x->ne[1] <= XDNA_MM_MAX_DIM &&
           xdna_matmul_fits(xd->part, xd->bfp16, b_type_of(w->type), (uint32_t) x->ne[1], (uint32_t) w->ne[0],
                            (uint32_t) w->ne[1]);
}

/* Grow *buf to hold n elements of size bytes. */
static enum vnpu_status grow(void **buf, size_t *have, size_t n, size_t size, const char *what) {
    if (n <= *have) {
        return VNPU_STATUS_OK;
    }
    void *p = realloc(*buf, n * size);
    if (!p) {
        vnpu_log_error("xdna: cannot allocate %zu bytes of %s", n * size, what);
        return VNPU_STATUS_NO_MEMORY;
    }
    *buf = p;
    *have = n;
    return VNPU_STATUS_OK;
}

/* The built design of M x K x N with B as b_type, from the cache or built now (evicting the least recently used). */
static enum vnpu_status design_get(struct xdna_dev *x, enum vnpu_type b_type, uint32_t M, uint32_t K, uint32_t N,
                                   struct xdna_matmul **out) {
    int i = 0;
    for (; i < N_DESIGNS && x->designs[i]; i++) {
        const struct xdna_matmul_plan *p = xdna_matmul_plan_of(x->designs[i]);
        if (p->b_type == b_type && p->M == M && p->K == K && p->N == N) {
            break;
        }
    }
    if (i == N_DESIGNS || !x->designs[i]) {
        struct xdna_matmul_plan plan;
        enum vnpu_status st = xdna_matmul_plan_init(&plan, x->part, x->bfp16, b_type, M, K, N);
        struct xdna_matmul *mm = NULL;
        if (st != VNPU_STATUS_OK || (st = xdna_matmul_new(&plan, x->strict, &mm)) != VNPU_STATUS_OK) {
            return st;
        }
        i = i == N_DESIGNS ? N_DESIGNS - 1 : i;
        xdna_matmul_free(x->designs[i]);
        x->designs[i] = mm;
    }
    struct xdna_matmul *mm = x->designs[i];
    memmove(&x->designs[1], &x->designs[0], (size_t) i * sizeof(x->designs[0]));
    x->designs[0] = mm;
    *out = mm;
    return VNPU_STATUS_OK;
}

/* src0's matrix at data (rows nb1 apart) packed into b: its blocks as they are, or every row dequantized to f32 and
 * rounded to bf16. */
static enum vnpu_status pack_b(struct xdna_dev *x, const struct xdna_matmul_plan *p, enum vnpu_type type,
                               const char *data, size_t nb1, void *b) {
    if (p->b_type != VNPU_TYPE_BF16) {
        xdna_matmul_pack_b_blocks(p, data, nb1, b);
        return VNPU_STATUS_OK;
    }
    xdna_matmul_b_clear(p, b);
    enum vnpu_status st = grow((void **) &x->row, &x->row_elems, p->K, sizeof(float), "a dequantized row");
    if (st != VNPU_STATUS_OK) {
        return st;
    }
    const vnpu_to_f32_fn to_f32 = vnpu_type_traits_get(type)->to_f32;
    for (uint32_t o = 0; o < p->N; o++) {
        to_f32(data + (size_t) o * nb1, x->row, p->K);
        xdna_matmul_pack_b_row(p, o, x->row, b);
    }
    return VNPU_STATUS_OK;
}

/* The packed B of weight matrix data: from the device's weights, packed on first use. */
static enum vnpu_status weight_get(struct xdna_dev *x, const struct xdna_matmul_plan *p, enum vnpu_type type,
                                   const char *data, size_t nb1, const void **out) {
    for (size_t i = 0; i < x->n_weights; i++) {
        const struct packed_weight *w = &x->weights[i];
        if (w->data == data && w->nb1 == nb1 && w->type == type && w->K == p->K && w->N == p->N) {
            *out = w->b;
            return VNPU_STATUS_OK;
        }
    }
    enum vnpu_status st =
        grow((void **) &x->weights, &x->cap_weights, x->n_weights + 1, sizeof(*x->weights), "the weight list");
    void *b = st == VNPU_STATUS_OK ? malloc(xdna_matmul_b_bytes(p)) : NULL;
    if (st == VNPU_STATUS_OK && !b) {
        vnpu_log_error("xdna: cannot allocate %zu bytes of packed weights", xdna_matmul_b_bytes(p));
        st = VNPU_STATUS_NO_MEMORY;
    }
    if (st == VNPU_STATUS_OK && (st = pack_b(x, p, type, data, nb1, b)) == VNPU_STATUS_OK) {
        x->weights[x->n_weights++] = (struct packed_weight){data, nb1, type, p->K, p->N, b};
        *out = b;
        return VNPU_STATUS_OK;
    }
    free(b);
    return st;
}

/* t's row named name, added (zeroed) if new; NULL when the rows are full. */
static struct vnpu_xdna_perf_row *totals_row(struct vnpu_xdna_totals *t, const char *name) {
    uint32_t i = 0;
    while (i < t->n_rows && strcmp(t->rows[i].op, name) != 0) {
        i++;
    }
    if (i == VNPU_XDNA_PERF_ROWS) {
        return NULL;
    }
    if (i == t->n_rows) {
        t->n_rows++;
        memset(&t->rows[i], 0, sizeof(t->rows[i]));
        snprintf(t->rows[i].op, sizeof(t->rows[i].op), "%s", name);
    }
    return &t->rows[i];
}

/* *add (modelled ops) added to t's row of its name. */
static void totals_price(struct vnpu_xdna_totals *t, const struct vnpu_xdna_perf_row *add) {
    struct vnpu_xdna_perf_row *r = totals_row(t, add->op);
    if (r) {
        r->count += add->count;
        r->runs += add->runs;
        r->us += add->us;
        for (int b = 0; b < XDNA_PERF_BOUND_COUNT; b++) {
            r->bound_us[b] += add->bound_us[b];
        }
        r->macs += add->macs;
        r->ddr_bytes += add->ddr_bytes;
    }
    t->us += add->us;
}

/* The ops the CPU ran in a graph of the XDNA device's (a scheduler observer, arg the device): priced on the
 * partition's laptop CPU. */
static void totals_observe_cpu(void *arg, struct vnpu_device *const *devs, int n_devs, struct vnpu_device *dev,
                               struct vnpu_tensor *const *nodes, int n_nodes) {
    struct xdna_dev *x = arg;
    bool mine = false;
    for (int d = 0; d < n_devs; d++) {
        mine = mine || devs[d] == &x->dev;
    }
    if (!mine || vnpu_xdna_device_is(dev) || vnpu_htp_device_is(dev)) {
        return; /* another graph's, or an NPU's nodes: its own cost model prices them */
    }
    for (int i = 0; i < n_nodes; i++) {
        if (!vnpu_op_is_empty(nodes[i]->op)) {
            struct vnpu_xdna_perf_row op = {.count = 1, .ddr_bytes = perf_cpu_op_bytes(nodes[i])};
            perf_cpu_op_name(nodes[i], op.op, sizeof(op.op));
            op.us = op.bound_us[XDNA_PERF_BOUND_CPU] = xdna_perf_cpu_op(x->part, op.ddr_bytes);
            totals_price(&x->totals, &op);
            if (x->trace) {
                xdna_trace_export_cpu(x->trace, op.op, nodes[i]->name, op.us);
            }
        }
    }
}

/* One design run of node dst (first: the node's first) added to t: its statistics and its modelled time m. */
static void totals_add(struct vnpu_xdna_totals *t, const struct xdna_run_stats *s, const struct xdna_perf_time *mp,
                       const struct vnpu_tensor *dst, bool first) {
    const struct xdna_perf_time m = *mp;
    struct vnpu_xdna_perf_row run = {.count = first, .runs = 1, .us = m.us, .macs = m.macs, .ddr_bytes = m.ddr_bytes};
    snprintf(run.op, sizeof(run.op), "%s", perf_node_is_output(dst) ? "MUL_MAT output" : "MUL_MAT");
    run.bound_us[m.bound] = m.us;
    totals_price(t, &run);
    xdna_run_stats_add(&t->stats, s);
    t->runs++;
}

/* dst = src0 . src1 (GGML's MUL_MAT): each 2-D matrix of dst one design run, A staged from src1's rows (zero padded),
 * C's rows copied out to dst's. */
static enum vnpu_status xdna_mul_mat(struct xdna_dev *x, struct vnpu_tensor *dst) {
    const struct vnpu_tensor *w = dst->src[0], *act = dst->src[1];
    const uint32_t M = (uint32_t) act->ne[1], K = (uint32_t) w->ne[0], N = (uint32_t) w->ne[1];
    struct xdna_matmul *mm;
    enum vnpu_status st = design_get(x, b_type_of(w->type), M, K, N, &mm);
    const struct xdna_matmul_plan *p = st == VNPU_STATUS_OK ? xdna_matmul_plan_of(mm) : NULL;
    if (st != VNPU_STATUS_OK ||
        (st = grow((void **) &x->a, &x->a_elems, (size_t) p->m_pad * p->k_pad, sizeof(float), "staged A")) !=
            VNPU_STATUS_OK ||
        (st = grow((void **) &x->c, &x->c_elems, (size_t) p->m_pad * p->n_pad, sizeof(float), "staged C")) !=
            VNPU_STATUS_OK) {
        return st;
    }
    const bool weight = (w->flags & VNPU_TENSOR_FLAG_WEIGHT) != 0;
    if (!weight && (st = grow((void **) &x->b, &x->b_bytes, xdna_matmul_b_bytes(p), 1, "packed B")) != VNPU_STATUS_OK) {
        return st;
    }
    memset(x->a, 0, (size_t) p->m_pad * p->k_pad * sizeof(float));
    const int64_t r2 = act->ne[2] / w->ne[2], r3 = act->ne[3] / w->ne[3];
    const char *packed = NULL; /* the src0 matrix x->b holds: a broadcast one serves r2 x r3 runs */
    for (int64_t i13 = 0; i13 < act->ne[3]; i13++) {
        for (int64_t i12 = 0; i12 < act->ne[2]; i12++) {
            const char *wdata = (const char *) w->data + (i12 / r2) * w->nb[2] + (i13 / r3) * w->nb[3];
            const void *b = x->b;
            if (weight) {
                st = weight_get(x, p, w->type, wdata, w->nb[1], &b);
            } else if (wdata != packed) {
                st = pack_b(x, p, w->type, wdata, w->nb[1], x->b);
                packed = wdata;
            }
            if (st != VNPU_STATUS_OK) {
                return st;
            }
            for (uint32_t i11 = 0; i11 < M; i11++) {
                memcpy(x->a + (size_t) i11 * p->k_pad,
                       (const char *) act->data + i11 * act->nb[1] + i12 * act->nb[2] + i13 * act->nb[3],
                       K * sizeof(float));
            }
            struct xdna_run_stats stats;
            xdna_matmul_trace(mm, x->trace ? xdna_trace_export_events(x->trace) : NULL);
            if ((st = xdna_matmul_run(mm, x->a, b, x->c, &stats)) != VNPU_STATUS_OK) {
                return st;
            }
            struct xdna_perf_time m;
            xdna_perf_run(x->part, &stats, &m);
            totals_add(&x->totals, &stats, &m, dst, i12 == 0 && i13 == 0);
            if (x->trace) {
                xdna_trace_export_run(x->trace, dst->name, &m);
            }
            for (uint32_t i1 = 0; i1 < M; i1++) {
                memcpy((char *) dst->data + i1 * dst->nb[1] + i12 * dst->nb[2] + i13 * dst->nb[3],
                       x->c + (size_t) i1 * p->n_pad, N * sizeof(float));
            }
        }
    }
    x->totals.nodes++;
    if (x->verbose) {
        htp_config_print("vnpu-xdna: %s execute-op MUL_MAT : %s : %s [%u,%u] x f32 [%u,%u] : %u x %u x %u tiles on %u "
                         "columns, %" PRId64 " runs",
                         x->part->name, dst->name, vnpu_type_traits_get(w->type)->name, K, N, K, M, p->kernel.m,
                         p->kernel.k, p->kernel.n, p->n_cols, act->ne[2] * act->ne[3]);
    }
    return VNPU_STATUS_OK;
}

static enum vnpu_status xdna_graph_compute(struct vnpu_device *dev, struct vnpu_tensor **nodes, int n_nodes) {
    struct xdna_dev *x = dev->ctx;
    for (int i = 0; i < n_nodes; i++) {
        if (vnpu_op_is_empty(nodes[i]->op)) {
            continue;
        }
        const enum vnpu_status st = xdna_mul_mat(x, nodes[i]);
        if (st != VNPU_STATUS_OK) {
            vnpu_log_error("%s: MUL_MAT '%s' failed: %s", x->part->name, nodes[i]->name, vnpu_status_str(st));
            return st;
        }
    }
    return VNPU_STATUS_OK;
}

static struct vnpu_buffer_type *xdna_get_buffer_type(struct vnpu_device *dev) {
    (void) dev;
    return vnpu_host_buffer_type();
}

static void xdna_forget_host(struct vnpu_device *dev, const void *base, size_t size) {
    struct xdna_dev *x = dev->ctx;
    size_t kept = 0;
    for (size_t i = 0; i < x->n_weights; i++) {
        const char *d = x->weights[i].data;
        if (d >= (const char *) base && d < (const char *) base + size) {
            free(x->weights[i].b);
        } else {
            x->weights[kept++] = x->weights[i];
        }
    }
    x->n_weights = kept;
}

static void xdna_free(struct vnpu_device *dev) {
    struct xdna_dev *x = dev->ctx;
    vnpu_sched_observer_remove(totals_observe_cpu, x);
    pthread_mutex_lock(&open_lock);
    struct xdna_dev **link = &open_first;
    while (*link != x) {
        link = &(*link)->next_open;
    }
    *link = x->next_open;
    pthread_mutex_unlock(&open_lock);
    for (int i = 0; i < N_DESIGNS; i++) {
        xdna_matmul_free(x->designs[i]);
    }
    if (x->trace) {
        xdna_trace_export_close(x->trace);
        free(x->trace);
    }
    for (size_t i = 0; i < x->n_weights; i++) {
        free(x->weights[i].b);
    }
    free(x->weights);
    free(x->a);
    free(x->c);
    free(x->row);
    free(x->b);
    free(x);
}

static const struct vnpu_device_iface xdna_device_iface = {
    .get_name = xdna_get_name,
    .supports_op = xdna_supports_op,
    .graph_compute = xdna_graph_compute,
    .get_buffer_type = xdna_get_buffer_type,
    .get_weight_buffer_type = NULL,
    .forget_host = xdna_forget_host,
    .free = xdna_free,
};

/* A setting 0..hi of the environment (0 when unset). */
static enum vnpu_status env_setting(const char *name, uint32_t hi, uint32_t *out) {
    char why[128];
    if (!vnpu_env_uint(name, 0, hi, 0, out, why, sizeof(why))) {
        vnpu_log_error("%s", why);
        return VNPU_STATUS_BAD_ARG;
    }
    return VNPU_STATUS_OK;
}

enum vnpu_status vnpu_xdna_device_open(const char *name, size_t len, struct vnpu_device **out) {
    *out = NULL;
    const struct xdna_device *part = xdna_device_find(name, len);
    if (!part) {
        vnpu_log_error("unknown XDNA device '%.*s' (NPU1, NPU1Col1, NPU1Col2, NPU1Col4, NPU2, NPU2Col1, NPU2Col4, "
                       "NPU2Col8)",
                       (int) len, name);
        return VNPU_STATUS_BAD_ARG;
    }
    uint32_t strict, bfp16, verbose;
    enum vnpu_status st = env_setting("VNPU_XDNA_STRICT", 1, &strict);
    if (st != VNPU_STATUS_OK || (st = env_setting("VNPU_XDNA_BFP16", 1, &bfp16)) != VNPU_STATUS_OK ||
        (st = env_setting("VNPU_VERBOSE", 2, &verbose)) != VNPU_STATUS_OK) {
        return st;
    }
    if (bfp16 && part->arch != XDNA_ARCH_AIE2P) {
        vnpu_log_error("VNPU_XDNA_BFP16=1: %s is %s, and the BFP16-emulation kernel is AIE2P's (NPU2 and its columns)",
                       part->name, part->arch_name);
        return VNPU_STATUS_BAD_ARG;
    }
    struct xdna_dev *x = calloc(1, sizeof(*x));
    if (!x) {
        vnpu_log_error("%s: cannot allocate the device", part->name);
        return VNPU_STATUS_NO_MEMORY;
    }
    *x = (struct xdna_dev){.dev = {.iface = &xdna_device_iface, .ctx = x},
                           .part = part,
                           .strict = strict != 0,
                           .bfp16 = bfp16 != 0,
                           .verbose = verbose};
    if (!vnpu_sched_observer_add(totals_observe_cpu, x)) {
        free(x);
        return VNPU_STATUS_BAD_ARG;
    }
    pthread_mutex_lock(&open_lock);
    x->next_open = open_first;
    open_first = x;
    pthread_mutex_unlock(&open_lock);
    *out = &x->dev;
    return VNPU_STATUS_OK;
}

void vnpu_xdna_device_totals(struct vnpu_device *dev, struct vnpu_xdna_totals *out, bool reset) {
    struct xdna_dev *x = dev->ctx;
    *out = x->totals;
    if (reset) {
        memset(&x->totals, 0, sizeof(x->totals));
    }
}

enum vnpu_status vnpu_xdna_device_trace(struct vnpu_device *dev, const char *path) {
    struct xdna_dev *x = dev->ctx;
    if (x->trace) {
        return VNPU_STATUS_OK;
    }
    struct xdna_trace_export *t = malloc(sizeof(*t));
    if (!t) {
        vnpu_log_error("%s: cannot allocate the trace's state", x->part->name);
        return VNPU_STATUS_NO_MEMORY;
    }
    const enum vnpu_status st = xdna_trace_export_open(t, x->part, path);
    if (st != VNPU_STATUS_OK) {
        free(t);
        return st;
    }
    x->trace = t;
    return VNPU_STATUS_OK;
}

const struct xdna_device *vnpu_xdna_device_partition(struct vnpu_device *dev) {
    const struct xdna_dev *x = dev->ctx;
    return x->part;
}

const struct xdna_device *vnpu_xdna_totals_read(struct vnpu_xdna_totals *out, bool reset) {
    memset(out, 0, sizeof(*out));
    const struct xdna_device *part = NULL;
    pthread_mutex_lock(&open_lock);
    for (struct xdna_dev *x = open_first; x; x = x->next_open) {
        struct vnpu_xdna_totals *t = &x->totals;
        part = !part && t->n_rows > 0 ? x->part : part;
        out->nodes += t->nodes;
        out->runs += t->runs;
        for (uint32_t i = 0; i < t->n_rows; i++) {
            totals_price(out, &t->rows[i]);
        }
        if (reset) {
            memset(t, 0, sizeof(*t));
        }
    }
    pthread_mutex_unlock(&open_lock);
    return part;
}
