/*
 * The HTP devices (htp-host.h): the registry that holds each open device once, with its session, for every
 * holder (the model and its contexts) and tells it to unmap freed buffers; the struct vnpu_device interface,
 * requests to the session (reopening it after a fault), and the VNPU_PROFILE summary.
 */
#include "htp-device-impl.h"
#include "htp-ops.h"

#include "log.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The open devices by index (ggml's backend registry: one device object per device, shared), for
 * vnpu_htp_device_get and the unmaps of buffer frees. registry_lock also guards every device's refs. */
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct htp_device *registry[VNPU_HTP_MAX_DEVICES];

static const struct vnpu_device_iface htp_device_iface;

static struct htp_device *htp_device_of(struct vnpu_device *dev) {
    return dev->ctx;
}

bool vnpu_htp_device_is(const struct vnpu_device *dev) {
    return dev->iface == &htp_device_iface || htp_group_is(dev);
}

bool vnpu_htp_device_parse(const char *name, size_t len, uint32_t *index) {
    if (len < 4 || len > 5 || memcmp(name, "HTP", 3) != 0 || (len == 5 && name[3] == '0')) {
        return false;
    }
    uint32_t v = 0;
    for (size_t i = 3; i < len; i++) {
        if (name[i] < '0' || name[i] > '9') {
            return false;
        }
        v = v * 10 + (uint32_t) (name[i] - '0');
    }
    *index = v;
    return true;
}

static enum vnpu_status htp_session_open(struct htp_device *d) {
    const struct vdsp_session_params p = {
        .arch = d->cfg->arch,
        .n_threads = d->n_threads,
        .n_host_threads = d->n_host_threads,
        .counted = d->cfg->perf,
        .session_id = d->index,
    };
    return vdsp_session_open(&p, &d->session);
}

enum vnpu_status htp_device_ready(struct htp_device *d) {
    if (!d->session || vdsp_session_faulted(d->session)) { /* NULL: an earlier reopen failed */
        vnpu_log_warn("%s: reopening the session after its fault", d->name);
        vdsp_session_close(d->session);
        d->session = NULL;
        const enum vnpu_status st = htp_session_open(d);
        if (st != VNPU_STATUS_OK) {
            vnpu_log_error("%s: cannot reopen the session", d->name);
            return st;
        }
    }
    return VNPU_STATUS_OK;
}

enum vnpu_status htp_device_call(struct htp_device *d, size_t size) {
    const enum vnpu_status st = htp_device_ready(d);
    return st == VNPU_STATUS_OK ? vdsp_session_call(d->session, d->req, 0, size) : st;
}

void htp_device_unmap(struct htp_device *d, const struct vdsp_buffer *buf) {
    if (!d->session || vdsp_session_faulted(d->session)) {
        return; /* a faulted session is reopened empty */
    }
    struct htp_req *req = d->req->host;
    memset(req, 0, sizeof(*req));
    req->version = HTP_MSG_VERSION;
    req->id = ++d->req_id;
    req->mdev_count = 1;
    req->n_bufs = 1;
    req->off_bufs = (uint32_t) ((sizeof(*req) + 7) & ~(size_t) 7);
    struct htp_buf_desc *desc = (struct htp_buf_desc *) ((uint8_t *) req + req->off_bufs);
    *desc = (struct htp_buf_desc){.fd = buf->fd, .flags = HTP_BUF_UNMAP, .size = buf->size};
    if (vdsp_session_call(d->session, d->req, 0, req->off_bufs + sizeof(*desc)) != VNPU_STATUS_OK ||
        req->rsp.status != HTP_STATUS_OK) {
        vnpu_log_warn("%s: unmapping a freed buffer failed: %s", d->name, req->rsp.message);
    }
}

bool vnpu_htp_perf_read(struct vnpu_htp_perf *out, bool reset) {
    memset(out, 0, sizeof(*out));
    bool any = false;
    pthread_mutex_lock(&registry_lock);
    for (int i = 0; i < VNPU_HTP_MAX_DEVICES; i++) {
        any = (registry[i] && htp_perf_collect(registry[i], out, reset)) || any;
    }
    if (any) {
        htp_perf_collect_cpu(out, reset);
    }
    pthread_mutex_unlock(&registry_lock);
    return any;
}

void htp_devices_unmap(const struct vdsp_buffer *buf) {
    pthread_mutex_lock(&registry_lock);
    for (int i = 0; i < VNPU_HTP_MAX_DEVICES; i++) {
        if (registry[i]) {
            pthread_mutex_lock(&registry[i]->lock);
            htp_device_unmap(registry[i], buf);
            pthread_mutex_unlock(&registry[i]->lock);
        }
    }
    pthread_mutex_unlock(&registry_lock);
}

/* VNPU_PROFILE: the NPU time of each op kind and its share, and the requests' host time. */
static void htp_profile_summary(const struct htp_device *d) {
    uint64_t total = 0;
    for (int op = 0; op < HTP_OP_COUNT; op++) {
        total += d->prof[op].npu_usecs;
    }
    htp_config_print("vnpu-htp: %s profile: %llu requests, %.3f ms host time (send to answer), %.3f ms NPU time in ops",
                     d->name, (unsigned long long) d->prof_requests, d->prof_host_us / 1e3, (double) total / 1e3);
    htp_config_print("vnpu-htp: %s profile window: %llu maps, %llu unmaps, %llu defragmentations", d->name,
                     (unsigned long long) d->prof_mapped, (unsigned long long) d->prof_unmapped,
                     (unsigned long long) d->prof_defrags);
    for (int op = 0; op < HTP_OP_COUNT; op++) {
        const struct htp_prof_row *r = &d->prof[op];
        if (r->count) {
            htp_config_print("vnpu-htp: %s profile %-14s %8llu ops %10.3f ms %8.2f us/op %6.1f %%", d->name,
                             htp_op_name((uint32_t) op), (unsigned long long) r->count, (double) r->npu_usecs / 1e3,
                             (double) r->npu_usecs / (double) r->count,
                             total ? 100.0 * (double) r->npu_usecs / (double) total : 0.0);
        }
    }
}

/* Close d, opened in full or in part by htp_device_open: the profile, the trace, the session, then the memory it
 * mapped. */
static void htp_device_close(struct htp_device *d) {
    if (d->cfg->profile && d->prof_requests) {
        htp_profile_summary(d);
    }
    htp_trace_close(d);
    htp_perf_close(d);
    vdsp_session_close(d->session);
    htp_stage_free(&d->stage);
    vdsp_buffer_free(d->req);
    htp_batch_free(d->batch);
    pthread_mutex_destroy(&d->lock);
    free(d);
}

/* Drop one holder; the last one closes the device (under registry_lock, so that a get meanwhile waits and opens
 * a new one). */
static void htp_device_free(struct vnpu_device *dev) {
    struct htp_device *d = htp_device_of(dev);
    pthread_mutex_lock(&registry_lock);
    if (--d->refs == 0) {
        registry[d->index] = NULL;
        htp_device_close(d);
    }
    pthread_mutex_unlock(&registry_lock);
}

static const char *htp_device_name(struct vnpu_device *dev) {
    return htp_device_of(dev)->name;
}

static bool htp_device_supports_op(struct vnpu_device *dev, const struct vnpu_tensor *op) {
    return htp_supports_op(htp_device_of(dev), op);
}

static enum vnpu_status htp_device_graph_compute(struct vnpu_device *dev, struct vnpu_tensor **nodes, int n_nodes) {
    struct htp_device *d = htp_device_of(dev);
    pthread_mutex_lock(&d->lock);
    const enum vnpu_status st = htp_graph_compute(d, NULL, nodes, n_nodes);
    pthread_mutex_unlock(&d->lock);
    return st;
}

static struct vnpu_buffer_type *htp_device_buffer_type(struct vnpu_device *dev) {
    return htp_buffer_type(htp_device_of(dev)->index, false);
}

static struct vnpu_buffer_type *htp_device_weight_buffer_type(struct vnpu_device *dev,
                                                              const struct vnpu_tensor *weight) {
    const struct htp_device *d = htp_device_of(dev);
    (void) weight;
    return htp_buffer_type(d->index, !d->cfg->hostbuf);
}

/* The environment, when it is valid and HTP<index> exists in it. */
static enum vnpu_status htp_config_for(uint32_t index, const struct htp_config **cfg) {
    const enum vnpu_status st = htp_config_get(cfg);
    if (st == VNPU_STATUS_OK && index >= (*cfg)->ndev) {
        vnpu_log_error("HTP%u: no such device (VNPU_NDEV=%u makes HTP0..HTP%u)", index, (*cfg)->ndev, (*cfg)->ndev - 1);
        return VNPU_STATUS_BAD_ARG;
    }
    return st;
}

struct vnpu_buffer_type *vnpu_htp_weight_buffer_type(uint32_t index) {
    const struct htp_config *cfg;
    return htp_config_for(index, &cfg) == VNPU_STATUS_OK ? htp_buffer_type(index, !cfg->hostbuf) : NULL;
}

enum vnpu_status vnpu_htp_device_window(uint32_t index, size_t *size) {
    *size = 0;
    const struct htp_config *cfg;
    const enum vnpu_status st = htp_config_for(index, &cfg);
    return st == VNPU_STATUS_OK ? vdsp_window_size_default(cfg->arch, size) : st;
}

/* When the device keeps a weight copy of the memory going away, it drops every weight copy (their chunks unmapped
 * from the session first): the other holders' weights are copied again at their next request. */
static void htp_device_forget_host(struct vnpu_device *dev, const void *base, size_t size) {
    struct htp_device *d = htp_device_of(dev);
    pthread_mutex_lock(&d->lock);
    htp_stage_forget(d, &d, 1, base, size);
    pthread_mutex_unlock(&d->lock);
}

void htp_stage_forget(struct htp_device *d, struct htp_device *const *mappers, uint32_t n, const void *base,
                      size_t size) {
    if (htp_stage_holds(&d->stage, base, size)) {
        for (uint32_t i = 0; i < d->stage.n_chunks; i++) {
            for (uint32_t k = 0; k < n; k++) {
                htp_device_unmap(mappers[k], d->stage.chunks[i]);
            }
        }
        htp_stage_free_weights(&d->stage);
    }
}

static const struct vnpu_device_iface htp_device_iface = {
    .get_name = htp_device_name,
    .supports_op = htp_device_supports_op,
    .graph_compute = htp_device_graph_compute,
    .get_buffer_type = htp_device_buffer_type,
    .get_weight_buffer_type = htp_device_weight_buffer_type,
    .forget_host = htp_device_forget_host,
    .free = htp_device_free,
};

/* Open HTP<index> (its config cfg): the device, its session and request block, its trace under VNPU_TRACE. */
static enum vnpu_status htp_device_open(uint32_t index, const struct htp_config *cfg, struct htp_device **out) {
    struct htp_device *d = calloc(1, sizeof(*d));
    if (!d) {
        vnpu_log_error("HTP%u: out of memory for the device", index);
        return VNPU_STATUS_NO_MEMORY;
    }
    d->base = (struct vnpu_device){.iface = &htp_device_iface, .ctx = d};
    d->index = index;
    d->cfg = cfg;
    d->mdev_seq = (struct htp_mdev_seq){.count = cfg->mdev_seq, .check = cfg->mdev_check};
    snprintf(d->name, sizeof(d->name), "HTP%u", index);
    pthread_mutex_init(&d->lock, NULL);
    VNPU_ASSERT(vdsp_target_get(cfg->arch, &d->target));
    const long cores = sysconf(_SC_NPROCESSORS_ONLN);
    const uint32_t def =
        cores > 0 && (uint32_t) cores < d->target.n_hvx_contexts ? (uint32_t) cores : d->target.n_hvx_contexts;
    d->n_threads = cfg->nhvx ? cfg->nhvx : def < HTP_MAX_NTHREADS ? def : HTP_MAX_NTHREADS;
    d->n_host_threads = d->n_threads;
    enum vnpu_status st = cfg->perf ? htp_perf_open(d) : VNPU_STATUS_OK;
    if (st == VNPU_STATUS_OK) {
        st = htp_session_open(d);
    }
    if (st == VNPU_STATUS_OK) {
        d->stage.chunk_size = htp_stage_chunk_size(vdsp_session_window_size(d->session));
        st = vdsp_buffer_alloc(htp_request_size(d->n_threads, cfg->perf), "HTP-requests", &d->req);
    }
    if (st == VNPU_STATUS_OK && cfg->trace) {
        st = htp_trace_open(d, cfg->trace);
    }
    if (st != VNPU_STATUS_OK) {
        htp_device_close(d);
        return st;
    }
    if (cfg->verbose) {
        htp_config_print("vnpu-htp: %s: v%u, %u NPU threads on %u host threads (%u HVX contexts), %zu bytes of VTCM%s",
                         d->name, (unsigned) cfg->arch, d->n_threads, d->n_host_threads, d->target.n_hvx_contexts,
                         d->target.vtcm_size, cfg->perf ? ", counting for the cost model" : "");
    }
    *out = d;
    return VNPU_STATUS_OK;
}

enum vnpu_status vnpu_htp_device_get(uint32_t index, struct vnpu_device **out) {
    *out = NULL;
    const struct htp_config *cfg;
    enum vnpu_status st = htp_config_for(index, &cfg);
    if (st != VNPU_STATUS_OK) {
        return st;
    }
    pthread_mutex_lock(&registry_lock);
    if (!registry[index]) {
        st = htp_device_open(index, cfg, &registry[index]);
    }
    if (st == VNPU_STATUS_OK) {
        registry[index]->refs++;
        *out = &registry[index]->base;
    }
    pthread_mutex_unlock(&registry_lock);
    return st;
}

enum vnpu_status vnpu_htp_device_count(uint32_t *n) {
    const struct htp_config *cfg;
    const enum vnpu_status st = htp_config_get(&cfg);
    *n = st == VNPU_STATUS_OK ? cfg->ndev : 0;
    return st;
}

/* The HTP devices dev stands for: itself, or a group's members. */
static uint32_t htp_devices_of(struct vnpu_device *dev, struct htp_device **out) {
    if (htp_group_is(dev)) {
        const struct htp_group *g = htp_group_of(dev);
        memcpy(out, g->members, g->n * sizeof(*out));
        return g->n;
    }
    out[0] = htp_device_of(dev);
    return 1;
}

enum vnpu_status vnpu_htp_device_trace(struct vnpu_device *dev, const char *path) {
    struct htp_device *ds[HTP_MAX_MDEV];
    enum vnpu_status st = VNPU_STATUS_OK;
    for (uint32_t k = 0, n = htp_devices_of(dev, ds); k < n && st == VNPU_STATUS_OK; k++) {
        pthread_mutex_lock(&ds[k]->lock);
        st = ds[k]->tracing ? VNPU_STATUS_OK : htp_trace_open(ds[k], path);
        pthread_mutex_unlock(&ds[k]->lock);
    }
    return st;
}

bool vnpu_htp_node_rsp(struct vnpu_device *dev, const struct vnpu_tensor *node, struct htp_op_rsp *out) {
    struct htp_device *ds[HTP_MAX_MDEV];
    htp_devices_of(dev, ds);
    struct htp_device *d = ds[0]; /* a group's requests are its first member's (htp_group_graph_compute) */
    pthread_mutex_lock(&d->lock);
    const bool found = htp_request_node_rsp(d, node, out);
    pthread_mutex_unlock(&d->lock);
    return found;
}

enum vnpu_status vnpu_htp_device_partitions(struct vnpu_device *dev, uint32_t n) {
    if (htp_group_is(dev)) {
        vnpu_log_error("%s: a row-split group's members already share every op", htp_group_of(dev)->name);
        return VNPU_STATUS_BAD_ARG;
    }
    struct htp_device *d = htp_device_of(dev);
    if (n < 1 || n > HTP_MAX_MDEV) {
        vnpu_log_error("%s: %u partitions per op, expected 1..%u", d->name, n, HTP_MAX_MDEV);
        return VNPU_STATUS_BAD_ARG;
    }
    pthread_mutex_lock(&d->lock);
    d->mdev_seq.count = n;
    pthread_mutex_unlock(&d->lock);
    return VNPU_STATUS_OK;
}

enum vnpu_status vnpu_htp_device_mdev_check(struct vnpu_device *dev, uint32_t mode) {
    struct htp_device *ds[HTP_MAX_MDEV];
    const uint32_t n = htp_devices_of(dev, ds);
    if (mode > HTP_MDEV_CHECK_LINES) {
        vnpu_log_error("%s: line-ownership check mode %u, expected 0..%u", ds[0]->name, mode, HTP_MDEV_CHECK_LINES);
        return VNPU_STATUS_BAD_ARG;
    }
    for (uint32_t k = 0; k < n; k++) {
        pthread_mutex_lock(&ds[k]->lock);
        ds[k]->mdev_seq.check = mode;
        pthread_mutex_unlock(&ds[k]->lock);
    }
    return VNPU_STATUS_OK;
}

void vnpu_htp_device_inject(struct vnpu_device *dev, uint32_t flags) {
    struct htp_device *ds[HTP_MAX_MDEV];
    for (uint32_t k = 0, n = htp_devices_of(dev, ds); k < n; k++) {
        pthread_mutex_lock(&ds[k]->lock);
        ds[k]->inject = flags;
        pthread_mutex_unlock(&ds[k]->lock);
    }
}

uint32_t vnpu_htp_device_members(struct vnpu_device *dev, uint32_t *index) {
    struct htp_device *ds[HTP_MAX_MDEV];
    const uint32_t n = htp_devices_of(dev, ds);
    for (uint32_t k = 0; k < n; k++) {
        index[k] = ds[k]->index;
    }
    return n;
}
