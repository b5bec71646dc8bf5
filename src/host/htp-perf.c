/*
 * The cost model on the host side (VNPU_PERF=1): each answered request's counts (struct htp_thread_perf, written by
 * the counting NPU library) priced on the device's target by src/perf/perf-model.h, summed per op type; and the ops
 * the scheduler ran on the CPU instead, priced on the SoC's CPU (perf_model_cpu_op) while a device runs under
 * VNPU_PERF.
 */
#include "htp-config.h"
#include "htp-device-impl.h"
#include "backend.h"
#include "htp-ops.h"
#include "log.h"
#include "perf-model.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

_Static_assert(VNPU_HTP_PERF_BOUNDS == PERF_BOUND_COUNT, "vnpu_htp_perf_row.bound_us: one per enum perf_bound");

struct htp_perf {
    const struct perf_target *target;
    struct perf_calib *calib; /* NULL: resource bounds */
    pthread_mutex_t lock;     /* totals (a reader may be another thread than the graph's) */
    struct vnpu_htp_perf totals;
    struct htp_trace_model last; /* the last request priced, on the modelled timeline */
    double last_op_us[HTP_MAX_OPS];
};

/* The modelled clock of the process: where the next request starts (devices take turns; a group's request is priced
 * once). */
static pthread_mutex_t perf_clock_lock = PTHREAD_MUTEX_INITIALIZER;
static double perf_clock_us;

/* The ops the CPU ran (the scheduler's runs on a device that is not an HTP one), priced on the SoC of the first
 * device opened under VNPU_PERF: one state per process, observing the scheduler while such a device is open. */
static struct {
    pthread_mutex_t lock;
    uint32_t holders; /* devices open under VNPU_PERF */
    const struct perf_target *target;
    struct vnpu_htp_perf totals; /* rows "CPU <op>" */
} perf_cpu = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void perf_cpu_observe(void *arg, struct vnpu_device *const *devs, int n_devs, struct vnpu_device *dev,
                             struct vnpu_tensor *const *nodes, int n_nodes);

enum vnpu_status htp_perf_open(struct htp_device *d) {
    const struct htp_config *cfg = d->cfg;
    if (cfg->mdev_seq > 1 || cfg->mdev_check) {
        vnpu_log_error("%s: VNPU_PERF prices whole ops; VNPU_MDEV_SEQ and VNPU_MDEV_CHECK run partitions apart",
                       d->name);
        return VNPU_STATUS_BAD_ARG;
    }
    const struct perf_target *t = perf_target_arch((uint32_t) cfg->arch);
    if (!t) {
        vnpu_log_error("%s: VNPU_PERF: no target row for v%u in src/perf/perf-target.c", d->name, (unsigned) cfg->arch);
        return VNPU_STATUS_BAD_ARG;
    }
    struct htp_perf *p = calloc(1, sizeof(*p));
    if (!p) {
        return VNPU_STATUS_NO_MEMORY;
    }
    p->target = t;
    pthread_mutex_init(&p->lock, NULL);
    char path[4096];
    if (cfg->perf_calib) {
        snprintf(path, sizeof(path), "%s", cfg->perf_calib);
    } else {
        vdsp_npu_file_path("vnpu-calib-v69.tsv", path, sizeof(path));
    }
    if (cfg->perf_calib || access(path, R_OK) == 0) {
        const enum vnpu_status st = perf_calib_load(path, &p->calib);
        if (st != VNPU_STATUS_OK) {
            pthread_mutex_destroy(&p->lock);
            free(p);
            return st;
        }
    } else {
        vnpu_log_warn("%s: cost model without a packet calibration (%s: not built, clang cannot target Hexagon): "
                      "HVX at its resource bounds",
                      d->name, path);
    }
    /* the target's threads, on the host's: VNPU_NHVX, else as many as it has cores (at most the target's) */
    const long cores = sysconf(_SC_NPROCESSORS_ONLN);
    const uint32_t n = t->n_hvx_contexts < HTP_MAX_NTHREADS ? t->n_hvx_contexts : HTP_MAX_NTHREADS;
    const uint32_t host = cfg->nhvx ? cfg->nhvx : cores > 0 ? (uint32_t) cores : 1;
    d->n_threads = n;
    d->n_host_threads = host < n ? host : n;
    snprintf(p->totals.target, sizeof(p->totals.target), "%s", t->name);
    p->totals.clock_mhz = t->clock_mhz;
    p->totals.n_threads = n;
    p->totals.calibrated = p->calib != NULL;
    d->perf = p;
    pthread_mutex_lock(&perf_cpu.lock);
    if (perf_cpu.holders++ == 0) {
        perf_cpu.target = t;
        if (!vnpu_sched_observer_add(perf_cpu_observe, NULL)) {
            perf_cpu.holders--;
            perf_cpu.target = NULL;
            pthread_mutex_unlock(&perf_cpu.lock);
            perf_calib_free(p->calib);
            pthread_mutex_destroy(&p->lock);
            free(p);
            d->perf = NULL;
            return VNPU_STATUS_BAD_ARG;
        }
    }
    pthread_mutex_unlock(&perf_cpu.lock);
    return VNPU_STATUS_OK;
}

void htp_perf_close(struct htp_device *d) {
    if (d->perf) {
        pthread_mutex_lock(&perf_cpu.lock);
        if (--perf_cpu.holders == 0) {
            vnpu_sched_observer_remove(perf_cpu_observe, NULL);
            perf_cpu.target = NULL;
            memset(&perf_cpu.totals, 0, sizeof(perf_cpu.totals));
        }
        pthread_mutex_unlock(&perf_cpu.lock);
        perf_calib_free(d->perf->calib);
        pthread_mutex_destroy(&d->perf->lock);
        free(d->perf);
        d->perf = NULL;
    }
}

/* t's row named name, added (zeroed) if new; NULL when the table is full. */
static struct vnpu_htp_perf_row *perf_row(struct vnpu_htp_perf *t, const char *name) {
    for (uint32_t i = 0; i < t->n_rows; i++) {
        if (strcmp(t->rows[i].op, name) == 0) {
            return &t->rows[i];
        }
    }
    if (t->n_rows == VNPU_HTP_PERF_ROWS) {
        return NULL;
    }
    struct vnpu_htp_perf_row *r = &t->rows[t->n_rows++];
    memset(r, 0, sizeof(*r));
    snprintf(r->op, sizeof(r->op), "%s", name);
    return r;
}

/* *r += *add, field by field (its name aside). */
static void perf_row_add(struct vnpu_htp_perf_row *r, const struct vnpu_htp_perf_row *add) {
    r->count += add->count;
    r->us += add->us;
    for (int b = 0; b < VNPU_HTP_PERF_BOUNDS; b++) {
        r->bound_us[b] += add->bound_us[b];
    }
    r->dma_bytes += add->dma_bytes;
    r->packets += add->packets;
    r->hvx += add->hvx;
    r->hmx_tiles += add->hmx_tiles;
}

/* s's row of the scope name, added if new; NULL when the table is full. */
static struct vnpu_htp_perf_scope *perf_scope_row(struct vnpu_htp_perf *s, const char *name) {
    for (uint32_t i = 0; i < s->n_scopes; i++) {
        if (strcmp(s->scopes[i].name, name) == 0) {
            return &s->scopes[i];
        }
    }
    if (s->n_scopes == VNPU_HTP_PERF_SCOPES) {
        return NULL;
    }
    struct vnpu_htp_perf_scope *r = &s->scopes[s->n_scopes++];
    memset(r, 0, sizeof(*r));
    snprintf(r->name, sizeof(r->name), "%s", name);
    return r;
}

static void perf_scope_add(void *arg, const char *name, uint64_t hvx, uint64_t trips, double packets, bool calibrated) {
    struct vnpu_htp_perf_scope *r = perf_scope_row(arg, name);
    if (r) {
        r->hvx += hvx;
        r->trips += trips;
        r->packets += packets;
        r->calibrated = calibrated;
    }
}

static void perf_cpu_observe(void *arg, struct vnpu_device *const *devs, int n_devs, struct vnpu_device *dev,
                             struct vnpu_tensor *const *nodes, int n_nodes) {
    (void) arg, (void) devs, (void) n_devs;
    if (vnpu_htp_device_is(dev)) {
        return;
    }
    pthread_mutex_lock(&perf_cpu.lock);
    double run_us = 0.0;
    /* a run that races the last device's close finds no target: nothing to price */
    for (int i = 0; i < n_nodes && perf_cpu.target; i++) {
        if (vnpu_op_is_empty(nodes[i]->op)) {
            continue;
        }
        const double us = perf_model_cpu_op(perf_cpu.target, perf_cpu_op_bytes(nodes[i]));
        char name[32];
        perf_cpu_op_name(nodes[i], name, sizeof(name));
        struct vnpu_htp_perf_row op = {.count = 1, .us = us};
        op.bound_us[PERF_BOUND_CPU] = us;
        struct vnpu_htp_perf_row *r = perf_row(&perf_cpu.totals, name);
        if (r) {
            perf_row_add(r, &op);
        }
        perf_cpu.totals.us += us;
        run_us += us;
    }
    pthread_mutex_unlock(&perf_cpu.lock);
    pthread_mutex_lock(&perf_clock_lock);
    perf_clock_us += run_us;
    pthread_mutex_unlock(&perf_clock_lock);
}

void htp_perf_request(struct htp_device *d, const struct htp_req *req, const struct htp_op_desc *ops,
                      const struct vnpu_tensor *const *nodes, bool fenced) {
    struct htp_perf *p = d->perf;
    const uint8_t *block = (const uint8_t *) req;
    const struct htp_thread_perf *th = (const struct htp_thread_perf *) (block + req->off_perf);
    const struct htp_perf_names *names = (const struct htp_perf_names *) (block + req->off_perf_names);
    pthread_mutex_lock(&p->lock);
    struct vnpu_htp_perf *t = &p->totals;
    double request_total = p->target->request_us;
    t->requests++;
    t->request_us += p->target->request_us;
    t->us += p->target->request_us;
    for (uint32_t i = 0; i < req->rsp.n_ops_done; i++) {
        struct perf_op_time m;
        perf_model_op(p->target, p->calib, th + (size_t) i * req->n_perf_threads, req->n_perf_threads, names, fenced,
                      perf_scope_add, t, &m);
        /* a row per op type, the output layer's MUL_MAT (node result_output) apart */
        const bool output = ops[i].opcode == HTP_OP_MUL_MAT && perf_node_is_output(nodes[i]);
        char name[32];
        snprintf(name, sizeof(name), "%s%s", htp_op_name(ops[i].opcode), output ? " output" : "");
        struct vnpu_htp_perf_row op = {.count = 1,
                                       .us = m.us,
                                       .dma_bytes = m.dma_bytes,
                                       .packets = m.packets,
                                       .hvx = m.hvx,
                                       .hmx_tiles = m.hmx_tiles};
        op.bound_us[m.bound] = m.us;
        struct vnpu_htp_perf_row *r = perf_row(t, name);
        if (r) {
            perf_row_add(r, &op);
        }
        t->us += m.us;
        t->hvx += m.hvx;
        t->uncalibrated += m.uncalibrated;
        p->last_op_us[i] = m.us;
        request_total += m.us;
    }
    pthread_mutex_lock(&perf_clock_lock);
    p->last = (struct htp_trace_model){.start_us = perf_clock_us,
                                       .request_us = p->target->request_us,
                                       .n_ops = req->rsp.n_ops_done,
                                       .op_us = p->last_op_us};
    perf_clock_us += request_total;
    pthread_mutex_unlock(&perf_clock_lock);
    pthread_mutex_unlock(&p->lock);
}

/* *sum += *t: counts, rows merged by op name, scopes by name; target, clock and threads from t when sum has none. */
static void perf_totals_add(struct vnpu_htp_perf *sum, const struct vnpu_htp_perf *t) {
    if (!sum->target[0]) {
        memcpy(sum->target, t->target, sizeof(sum->target));
        sum->clock_mhz = t->clock_mhz;
        sum->n_threads = t->n_threads;
        sum->calibrated = t->calibrated;
    }
    sum->requests += t->requests;
    sum->request_us += t->request_us;
    sum->us += t->us;
    sum->hvx += t->hvx;
    sum->uncalibrated += t->uncalibrated;
    for (uint32_t i = 0; i < t->n_rows; i++) {
        struct vnpu_htp_perf_row *r = perf_row(sum, t->rows[i].op);
        if (r) {
            perf_row_add(r, &t->rows[i]);
        }
    }
    for (uint32_t i = 0; i < t->n_scopes; i++) {
        perf_scope_add(sum, t->scopes[i].name, t->scopes[i].hvx, t->scopes[i].trips, t->scopes[i].packets,
                       t->scopes[i].calibrated);
    }
}

/* Zero t's counts, rows and scopes (its target, clock and threads stay). */
static void perf_totals_reset(struct vnpu_htp_perf *t) {
    t->requests = 0;
    t->request_us = t->us = 0.0;
    t->hvx = t->uncalibrated = 0;
    t->n_rows = 0;
    t->n_scopes = 0;
}

bool htp_perf_collect(struct htp_device *d, struct vnpu_htp_perf *sum, bool reset) {
    struct htp_perf *p = d->perf;
    if (!p) {
        return false;
    }
    pthread_mutex_lock(&p->lock);
    perf_totals_add(sum, &p->totals);
    if (reset) {
        perf_totals_reset(&p->totals);
    }
    pthread_mutex_unlock(&p->lock);
    return true;
}

void htp_perf_collect_cpu(struct vnpu_htp_perf *sum, bool reset) {
    pthread_mutex_lock(&perf_cpu.lock);
    if (perf_cpu.target) {
        perf_totals_add(sum, &perf_cpu.totals);
        if (reset) {
            perf_totals_reset(&perf_cpu.totals);
        }
    }
    pthread_mutex_unlock(&perf_cpu.lock);
}

const struct htp_trace_model *htp_perf_last(const struct htp_device *d) {
    return d->perf ? &d->perf->last : NULL;
}

const char *vnpu_htp_perf_bound(uint32_t b) {
    return perf_bound_name((enum perf_bound) b);
}
