/*
 * Inside the virtual DSP platform: struct vdsp_device (one per session: window, VTCM, compute-context
 * pools, DMA queues, platform threads, fault state, clock) and the functions its source files share.
 * Host code uses vdsp.h, NPU code vdsp-device.h; this header is for src/vdsp and its tests, which open a
 * bare device to test the window, the guard, the DMA engine and the pools without a session.
 */
#ifndef VNPU_VDSP_IMPL_H
#define VNPU_VDSP_IMPL_H

#include "vdsp-device.h"
#include "vdsp.h"

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#define VDSP_MAX_MAPPINGS 128 /* buffers mapped into one window at a time (upstream keeps 16 per batch) */
#define VDSP_MAX_THREADS  32  /* platform threads per device: the main thread, workers, an HMX thread */
#define VDSP_FAULT_TEXT   512 /* bytes of the first fault's description */

/* One buffer mapped into the window: pages [first, first + npages), then one guard page. */
struct vdsp_mapping {
    uint32_t first;  /* page index in the window; device address = first << page_shift */
    uint32_t npages; /* mapped pages (the guard page after them is not counted) */
    size_t size;     /* bytes asked for */
    int fd;
};

/* A counting semaphore on a futex word: the HVX context pool and the HMX unit. No syscall when a
 * context is free on lock or nobody waits on unlock. */
struct vdsp_sem {
    _Atomic uint32_t count;   /* contexts free */
    _Atomic uint32_t waiters; /* threads inside futex_wait on count */
};

/* One 2-D descriptor as pushed (strict mode replays it at the pop). */
struct vdsp_dma_desc {
    uint8_t *dst;
    const uint8_t *src;
    size_t dst_stride, src_stride, row_size;
    uint32_t nrows;
    uint8_t to_ddr; /* destination is DDR (counts as to_ddr bytes) */
};

/* The ring of one NPU thread. Only its owner pushes and pops, so nothing here is atomic; the counters are
 * read by another thread only after the work queue's barrier. */
struct vdsp_dma_queue {
    struct vdsp_device *dev;
    uint32_t index;    /* NPU thread index */
    uint32_t push_idx; /* free-running; depth = push_idx - pop_idx */
    uint32_t pop_idx;
    struct vdsp_dma_stats stats; /* what it moved since the session opened (vdsp_dma_stats) */
    struct vdsp_dma_desc ring[VDSP_DMA_DEPTH];
};

struct vdsp_thread {
    pthread_t handle;
    bool used;
    struct vdsp_device *dev;
    vdsp_thread_fn fn;
    void *arg;
    char name[16]; /* "htp<id>-<name>", the pthread name limit */
};

struct vdsp_device {
    struct vdsp_target target;
    uint32_t id;   /* session id: the N of HTP<N> */
    char name[16]; /* "HTP<N>" */
    bool dma_strict;
    uint32_t n_host_threads; /* vdsp_host_threads */
    int verbose;             /* VNPU_VERBOSE */

    /* window: device address a is at window + a */
    uint8_t *window;
    size_t window_size;
    unsigned page_shift;
    _Atomic uint64_t *window_pages;              /* bit per page: mapped (guards and holes are 0) */
    pthread_mutex_t window_lock;                 /* writers of maps and window_pages */
    struct vdsp_mapping maps[VDSP_MAX_MAPPINGS]; /* sorted by first */
    uint32_t n_maps;

    /* VTCM: vtcm_size bytes at vtcm, one inaccessible guard page on each side */
    uint8_t *vtcm_region;
    size_t vtcm_region_size;
    uint8_t *vtcm;
    size_t vtcm_size;

    struct vdsp_sem hvx;
    struct vdsp_sem hmx;

    uint32_t n_dma;
    struct vdsp_dma_queue *dma; /* n_dma queues */

    /* the DDR-write log (vdsp_session_dma_log): on between a start and a stop */
    bool dma_log_on;
    pthread_mutex_t dma_log_lock; /* the NPU threads append, each with its own queue */
    struct vdsp_dma_write *dma_log;
    size_t n_dma_log, cap_dma_log;
    bool dma_log_lost;

    pthread_mutex_t threads_lock;
    struct vdsp_thread threads[VDSP_MAX_THREADS];

    _Atomic bool faulted;
    _Atomic int fault_state; /* 0 none, 1 writing the text, 2 text complete */
    char fault_text[VDSP_FAULT_TEXT];

    struct timespec t0; /* the clocks count from here */
};

struct vdsp_device_params {
    const struct vdsp_target *target;
    uint32_t id;             /* session id (names, messages) */
    uint32_t n_threads;      /* DMA queues to make: one per NPU thread, 1..HTP_MAX_NTHREADS */
    uint32_t n_host_threads; /* host threads the NPU library runs its n_threads on, 1..n_threads */
    size_t window_size;      /* bytes, a multiple of the page size, 1 MiB .. 4 GiB */
    bool dma_strict;
};

/* Make a device: reserve the window, allocate VTCM, set up the pools and queues, install the fault
 * handler. Errors: VNPU_STATUS_BAD_ARG (params), VNPU_STATUS_NO_MEMORY (window, VTCM, tables). */
enum vnpu_status vdsp_device_open(const struct vdsp_device_params *params, struct vdsp_device **out);
/* Release everything; every platform thread must have been joined. NULL is a no-op. */
void vdsp_device_close(struct vdsp_device *dev);

bool vdsp_device_faulted(const struct vdsp_device *dev);

/* ---- window (vdsp-window.c) ---- */

enum vnpu_status vdsp_window_init(struct vdsp_device *dev, size_t size);
void vdsp_window_free(struct vdsp_device *dev);
/* vdsp_session_window_fits for the window of dev. */
bool vdsp_window_fits(const struct vdsp_device *dev, const uint64_t *sizes, uint32_t n);
/* Whether window bytes [off, off + len) (len > 0, inside the window) all lie in mapped pages, which then
 * belong to one buffer since a guard page follows each. *unmapped gets the first page offset that is not. */
bool vdsp_window_range_mapped(const struct vdsp_device *dev, size_t off, size_t len, size_t *unmapped);
/* "device address 0x00012340 (not mapped)" and the like, for fault texts. */
void vdsp_window_describe(struct vdsp_device *dev, size_t off, char *text, size_t size);

/* ---- faults (vdsp-guard.c) ---- */

/* Make the guard the SIGSEGV/SIGBUS handler unless it is, chaining to the handler it replaces. Called at
 * every device open, so a handler installed later by someone else (a test framework) is chained again. */
void vdsp_guard_install(void);
/* Record the first fault of dev (later ones keep the first text) and mark dev faulted. */
void vdsp_fault_record(struct vdsp_device *dev, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* End the current thread's innermost guarded call on dev with a DMA fault whose text was recorded.
 * Outside a guarded call this is a bug in the NPU library: it logs and aborts. */
_Noreturn void vdsp_guard_raise_dma(struct vdsp_device *dev);
/* Give the calling platform thread an alternate signal stack unless it has one (ASan's threads do);
 * returns what vdsp_guard_altstack_free must release (NULL when nothing). */
void *vdsp_guard_altstack_alloc(void);
void vdsp_guard_altstack_free(void *stack);

/* ---- compute contexts (vdsp-hvx.c) ---- */

void vdsp_sem_init(struct vdsp_sem *s, uint32_t count);
/* The calling thread's lock nesting depth on the HVX pool and on the HMX unit (0: holds none). */
uint32_t vdsp_hvx_depth(void);
uint32_t vdsp_hmx_depth(void);
/* Unwind the calling thread's locks to the depths it had when a guarded call began, releasing a context
 * that was taken inside it: the guard calls this when a fault ends the call. */
void vdsp_hvx_unwind(struct vdsp_device *dev, uint32_t hvx_depth, uint32_t hmx_depth);

/* ---- DMA (vdsp-dma.c) ---- */

enum vnpu_status vdsp_dma_init(struct vdsp_device *dev, uint32_t n_queues);
void vdsp_dma_free(struct vdsp_device *dev);
/* Start (on: emptied) or stop the DDR-write log; no DMA may be in progress. */
void vdsp_dma_log(struct vdsp_device *dev, bool on);
/* Drop every queued descriptor (after a request; in strict mode their copies never happen). Returns how
 * many descriptors queue q held. */
uint32_t vdsp_dma_reset(struct vdsp_dma_queue *q);

/* ---- threads (vdsp-thread.c) ---- */

/* Platform threads still running or not joined. */
uint32_t vdsp_threads_alive(struct vdsp_device *dev);

/* ---- sessions (vdsp-session.c) ---- */

/* Where a session of arch loads its NPU library from: VNPU_HTP_LIB_DIR/libvnpu-htp-v<arch>.so, else the
 * same name next to libvnpu-vdsp.so; counted: the counting build's, libvnpu-htp-v<arch>-counted.so. */
void vdsp_htp_lib_path(enum vdsp_arch arch, bool counted, char *path, size_t size);

#endif /* VNPU_VDSP_IMPL_H */
