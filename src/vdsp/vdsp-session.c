/*
 * Sessions: one DSP process domain per device (HTP0, HTP1, ...). Opening one makes its device, loads the
 * NPU library built for its arch (libvnpu-htp-vNN.so, as the real backend picks libggml-htp-vNN), checks
 * the library's htp_iface, calls start() and starts the session's main thread "htp<id>-main".
 *
 * The main thread serves submitted request blocks one at a time in submission order (the dspqueue of the
 * real backend), each by a guarded call of process(). When a request faults, the platform makes sure its
 * response says so (HTP_STATUS_FAULT and the fault's text), logs it once, and the session answers no
 * further request: the host closes it and opens a new one, as a crashed DSP domain is restarted. After
 * every request the DMA queues are emptied; in strict mode a request that left pushes unpopped answers
 * HTP_STATUS_DMA_LEAK unless it already failed.
 */
#include "env.h"
#include "htp-msg.h"
#include "log.h"
#include "vdsp-impl.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static atomic_uint_fast64_t sessions_opened;

struct vdsp_session {
    struct vdsp_device *dev;
    void *lib;
    const struct htp_iface *iface;
    void *npu_ctx;
    bool started; /* start() succeeded: stop() is owed */
    bool main_running;
    uint32_t main_id;

    pthread_mutex_t lock; /* the queue, stopping, done flags */
    pthread_cond_t wake;  /* the main thread: a request or stop */
    pthread_cond_t done;  /* callers: an answer */
    struct vdsp_call *head, *tail;
    bool stopping;
};

/* VNPU_WINDOW_MB: 1..4096 MiB, or unset (*size unchanged). */
static enum vnpu_status env_window(size_t *size) {
    uint32_t mb = 0;
    char why[160];
    if (!vnpu_env_uint("VNPU_WINDOW_MB", 1, 4096, 0, &mb, why, sizeof(why))) {
        vnpu_log_error("%s (MiB of 32-bit address window)", why);
        return VNPU_STATUS_BAD_ARG;
    }
    if (mb > 0) {
        *size = (size_t) mb << 20;
    }
    return VNPU_STATUS_OK;
}

enum vnpu_status vdsp_window_size_default(enum vdsp_arch arch, size_t *size) {
    struct vdsp_target target;
    if (!vdsp_target_get(arch, &target)) {
        vnpu_log_error("arch %u is not modelled (v73, v75, v79, v81)", (unsigned) arch);
        return VNPU_STATUS_BAD_ARG;
    }
    *size = target.window_size;
    return env_window(size);
}

/* VNPU_DMA_STRICT: 0, 1 or unset. */
static enum vnpu_status env_strict(uint32_t id, bool *strict) {
    uint32_t v = 0;
    char why[160];
    if (!vnpu_env_uint("VNPU_DMA_STRICT", 0, 1, 0, &v, why, sizeof(why))) {
        vnpu_log_error("HTP%u: %s", id, why);
        return VNPU_STATUS_BAD_ARG;
    }
    *strict = *strict || v == 1;
    return VNPU_STATUS_OK;
}

void vdsp_npu_file_path(const char *name, char *path, size_t size) {
    const char *dir = getenv("VNPU_HTP_LIB_DIR");
    if (dir && *dir) {
        snprintf(path, size, "%s/%s", dir, name);
        return;
    }
    Dl_info info;
    const char *slash = NULL;
    if (dladdr((void *) vdsp_npu_file_path, &info) && info.dli_fname) {
        slash = strrchr(info.dli_fname, '/');
    }
    if (slash) {
        snprintf(path, size, "%.*s/%s", (int) (slash - info.dli_fname), info.dli_fname, name);
    } else {
        snprintf(path, size, "%s", name); /* then the loader's search path */
    }
}

void vdsp_htp_lib_path(enum vdsp_arch arch, bool counted, char *path, size_t size) {
    char name[64];
    snprintf(name, sizeof(name), "libvnpu-htp-v%u%s.so", (unsigned) arch, counted ? "-counted" : "");
    vdsp_npu_file_path(name, path, size);
}

static enum vnpu_status session_load(struct vdsp_session *s, enum vdsp_arch arch, bool counted) {
    const char *name = s->dev->name;
    char path[PATH_MAX];
    vdsp_htp_lib_path(arch, counted, path, sizeof(path));
    s->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!s->lib) {
        vnpu_log_error("%s: cannot load the NPU library %s (VNPU_HTP_LIB_DIR sets its directory): %s", name, path,
                       dlerror());
        return VNPU_STATUS_IO;
    }
    const struct htp_iface *iface = dlsym(s->lib, "htp_iface");
    if (!iface) {
        vnpu_log_error("%s: %s exports no htp_iface", name, path);
        return VNPU_STATUS_BAD_FILE;
    }
    if (iface->abi != VDSP_DEVICE_ABI) {
        vnpu_log_error("%s: %s has platform ABI %u, this platform %d: rebuild the NPU library", name, path, iface->abi,
                       VDSP_DEVICE_ABI);
        return VNPU_STATUS_BAD_FILE;
    }
    if (iface->arch != (uint32_t) arch) {
        vnpu_log_error("%s: %s was built for v%u, the session is v%u", name, path, iface->arch, (unsigned) arch);
        return VNPU_STATUS_BAD_FILE;
    }
    s->iface = iface;
    return VNPU_STATUS_OK;
}

struct start_call {
    struct vdsp_session *s;
    uint32_t n_threads;
    int rc;
};

static void start_trampoline(void *arg) {
    struct start_call *c = arg;
    c->rc = c->s->iface->start(c->s->dev, c->n_threads, &c->s->npu_ctx);
}

static void stop_trampoline(void *arg) {
    struct vdsp_session *s = arg;
    s->iface->stop(s->npu_ctx);
}

struct process_call {
    const struct htp_iface *iface;
    void *npu_ctx;
    void *block;
    uint32_t size;
};

static void process_trampoline(void *arg) {
    struct process_call *c = arg;
    c->iface->process(c->npu_ctx, c->block, c->size);
}

/* Run one request and settle its response. */
static void session_serve(struct vdsp_session *s, struct vdsp_call *r) {
    struct vdsp_device *dev = s->dev;
    if (vdsp_device_faulted(dev)) {
        r->status = VNPU_STATUS_DEVICE; /* queued before an earlier request faulted */
        return;
    }
    struct process_call c = {.iface = s->iface, .npu_ctx = s->npu_ctx, .block = r->block, .size = r->size};
    const enum vdsp_fault fault = vdsp_call_guarded(dev, process_trampoline, &c);
    if (fault == VDSP_FAULT_ABORT) { /* only a job may end itself (vdsp_call_abort); process() never answered */
        vdsp_fault_record(dev, "the NPU library ended process() by vdsp_call_abort outside a job (a library bug)");
    }
    struct htp_rsp *rsp = &((struct htp_req *) r->block)->rsp;
    const uint32_t req_id = ((struct htp_req *) r->block)->id;
    const bool faulted = vdsp_device_faulted(dev);
    if (faulted) {
        /* process() never returned (it could not answer: the op in progress is the one after those done),
         * or a worker's fault ended only its job and the library still answered OK. */
        if (fault != VDSP_FAULT_NONE || rsp->status == HTP_STATUS_OK) {
            rsp->status = HTP_STATUS_FAULT;
            if (fault != VDSP_FAULT_NONE) {
                rsp->failed_op = rsp->n_ops_done;
            }
            snprintf(rsp->message, sizeof(rsp->message), "%s", vdsp_fault_text(dev));
        }
        vnpu_log_error("%s: request %u faulted: %s; the session answers no more requests", dev->name, req_id,
                       vdsp_fault_text(dev));
    }
    for (uint32_t q = 0; q < dev->n_dma; q++) {
        const uint32_t leaked = vdsp_dma_reset(&dev->dma[q]);
        if (leaked == 0 || !dev->dma_strict || faulted) {
            continue;
        }
        vnpu_log_error("%s: request %u: DMA queue %u ended with %u pushes never popped", dev->name, req_id, q, leaked);
        if (rsp->status == HTP_STATUS_OK) {
            /* The platform looks only at the end of the request, so it blames the last op run; the dispatcher,
             * which checks after each op, names the right one. */
            rsp->status = HTP_STATUS_DMA_LEAK;
            rsp->failed_op = rsp->n_ops_done > 0 ? rsp->n_ops_done - 1 : 0;
            snprintf(rsp->message, sizeof(rsp->message), "DMA queue %u ended the request with %u pushes never popped",
                     q, leaked);
        }
    }
    r->status = VNPU_STATUS_OK;
}

static void session_main(void *arg) {
    struct vdsp_session *s = arg;
    pthread_mutex_lock(&s->lock);
    for (;;) {
        while (!s->head && !s->stopping) {
            pthread_cond_wait(&s->wake, &s->lock);
        }
        struct vdsp_call *r = s->head;
        if (!r) {
            break; /* stopping, nothing queued */
        }
        s->head = r->next;
        if (!s->head) {
            s->tail = NULL;
        }
        pthread_mutex_unlock(&s->lock);
        session_serve(s, r);
        pthread_mutex_lock(&s->lock);
        r->done = true;
        pthread_cond_broadcast(&s->done);
    }
    pthread_mutex_unlock(&s->lock);
}

enum vnpu_status vdsp_session_open(const struct vdsp_session_params *params, struct vdsp_session **out) {
    *out = NULL;
    const uint32_t id = params->session_id;
    struct vdsp_target target;
    if (!vdsp_target_get(params->arch, &target)) {
        vnpu_log_error("HTP%u: arch %u is not modelled (v73, v75, v79, v81)", id, (unsigned) params->arch);
        return VNPU_STATUS_BAD_ARG;
    }
    if (params->n_threads == 0 || params->n_threads > HTP_MAX_NTHREADS) {
        vnpu_log_error("HTP%u: %u NPU threads, expected 1..%d", id, params->n_threads, HTP_MAX_NTHREADS);
        return VNPU_STATUS_BAD_ARG;
    }
    if (params->n_host_threads > params->n_threads) {
        vnpu_log_error("HTP%u: %u host threads for %u NPU threads, expected at most as many", id,
                       params->n_host_threads, params->n_threads);
        return VNPU_STATUS_BAD_ARG;
    }
    struct vdsp_device_params dp = {.target = &target,
                                    .id = id,
                                    .n_threads = params->n_threads,
                                    .n_host_threads =
                                        params->n_host_threads ? params->n_host_threads : params->n_threads,
                                    .window_size = target.window_size,
                                    .dma_strict = params->dma_strict};
    enum vnpu_status st = env_window(&dp.window_size);
    if (st == VNPU_STATUS_OK) {
        st = env_strict(id, &dp.dma_strict);
    }
    if (st != VNPU_STATUS_OK) {
        return st;
    }
    if (params->window_size != 0) {
        const size_t page = (size_t) sysconf(_SC_PAGESIZE);
        dp.window_size =
            params->window_size > SIZE_MAX - page ? SIZE_MAX : (params->window_size + page - 1) & ~(page - 1);
    }

    struct vdsp_session *s = calloc(1, sizeof(*s));
    if (!s) {
        vnpu_log_error("HTP%u: out of memory for the session", id);
        return VNPU_STATUS_NO_MEMORY;
    }
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->wake, NULL);
    pthread_cond_init(&s->done, NULL);
    st = vdsp_device_open(&dp, &s->dev);
    if (st == VNPU_STATUS_OK) {
        st = session_load(s, params->arch, params->counted);
    }
    if (st == VNPU_STATUS_OK) {
        struct start_call c = {.s = s, .n_threads = params->n_threads};
        const enum vdsp_fault fault = vdsp_call_guarded(s->dev, start_trampoline, &c);
        if (fault != VDSP_FAULT_NONE || c.rc != 0) {
            vnpu_log_error("%s: the NPU library refused to start: %s", s->dev->name,
                           fault != VDSP_FAULT_NONE ? vdsp_fault_text(s->dev) : "start() failed");
            st = VNPU_STATUS_DEVICE;
        }
        s->started = fault == VDSP_FAULT_NONE && c.rc == 0;
    }
    if (st == VNPU_STATUS_OK) {
        s->main_running = vdsp_thread_create(s->dev, session_main, s, "main", &s->main_id) == 0;
        st = s->main_running ? VNPU_STATUS_OK : VNPU_STATUS_NO_MEMORY;
    }
    if (st != VNPU_STATUS_OK) {
        vdsp_session_close(s);
        return st;
    }
    atomic_fetch_add(&sessions_opened, 1);
    *out = s;
    return VNPU_STATUS_OK;
}

uint64_t vdsp_sessions_opened(void) {
    return atomic_load(&sessions_opened);
}

void vdsp_session_close(struct vdsp_session *s) {
    if (!s) {
        return;
    }
    if (s->main_running) {
        pthread_mutex_lock(&s->lock);
        s->stopping = true;
        pthread_cond_signal(&s->wake);
        pthread_mutex_unlock(&s->lock);
        vdsp_thread_join(s->dev, s->main_id);
    }
    if (s->started && vdsp_call_guarded(s->dev, stop_trampoline, s) != VDSP_FAULT_NONE) {
        vnpu_log_error("%s: the NPU library faulted in stop(): %s", s->dev->name, vdsp_fault_text(s->dev));
    }
    const uint32_t alive = s->dev ? vdsp_threads_alive(s->dev) : 0;
    if (alive > 0) {
        /* Unloading the library or unmapping VTCM under running threads would crash the host later. */
        vnpu_log_error("%s: the NPU library left %u threads running after stop(); its library and device stay",
                       s->dev->name, alive);
    } else {
        if (s->lib) {
            dlclose(s->lib);
        }
        vdsp_device_close(s->dev);
    }
    pthread_cond_destroy(&s->done);
    pthread_cond_destroy(&s->wake);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

const struct vdsp_target *vdsp_session_target(const struct vdsp_session *s) {
    return &s->dev->target;
}

size_t vdsp_session_window_size(const struct vdsp_session *s) {
    return s->dev->window_size;
}

void vdsp_session_dma_log(struct vdsp_session *s, bool on) {
    vdsp_dma_log(s->dev, on);
}

const struct vdsp_dma_write *vdsp_session_dma_writes(const struct vdsp_session *s, size_t *n, bool *lost) {
    *n = s->dev->n_dma_log;
    *lost = s->dev->dma_log_lost;
    return s->dev->dma_log;
}

bool vdsp_session_window_fits(const struct vdsp_session *s, const uint64_t *sizes, uint32_t n) {
    return vdsp_window_fits(s->dev, sizes, n);
}

bool vdsp_session_faulted(const struct vdsp_session *s) {
    return vdsp_device_faulted(s->dev);
}

enum vnpu_status vdsp_session_submit(struct vdsp_session *s, struct vdsp_buffer *buf, size_t offset, size_t size,
                                     struct vdsp_call *call) {
    const char *name = s->dev->name;
    if (offset > buf->size || size > buf->size - offset || size < sizeof(struct htp_req) || size > UINT32_MAX ||
        offset % 8 != 0) {
        vnpu_log_error("%s: request block of %zu bytes at offset %zu of a %zu-byte buffer: expected an 8-byte aligned "
                       "block inside the buffer of %zu..%u bytes",
                       name, size, offset, buf->size, sizeof(struct htp_req), UINT32_MAX);
        return VNPU_STATUS_BAD_ARG;
    }
    if (vdsp_device_faulted(s->dev)) {
        vnpu_log_error("%s: the session faulted in an earlier request (%s); close and reopen it", name,
                       vdsp_fault_text(s->dev));
        return VNPU_STATUS_DEVICE;
    }
    *call = (struct vdsp_call){.block = (uint8_t *) buf->host + offset, .size = (uint32_t) size};
    pthread_mutex_lock(&s->lock);
    if (s->tail) {
        s->tail->next = call;
    } else {
        s->head = call;
    }
    s->tail = call;
    pthread_cond_signal(&s->wake);
    pthread_mutex_unlock(&s->lock);
    return VNPU_STATUS_OK;
}

enum vnpu_status vdsp_session_wait(struct vdsp_session *s, struct vdsp_call *call) {
    pthread_mutex_lock(&s->lock);
    while (!call->done) {
        pthread_cond_wait(&s->done, &s->lock);
    }
    pthread_mutex_unlock(&s->lock);
    if (call->status == VNPU_STATUS_DEVICE) {
        vnpu_log_error("%s: the session faulted while this request waited (%s); close and reopen it", s->dev->name,
                       vdsp_fault_text(s->dev));
    }
    return call->status;
}

enum vnpu_status vdsp_session_call(struct vdsp_session *s, struct vdsp_buffer *buf, size_t offset, size_t size) {
    struct vdsp_call call;
    const enum vnpu_status st = vdsp_session_submit(s, buf, offset, size, &call);
    return st == VNPU_STATUS_OK ? vdsp_session_wait(s, &call) : st;
}
