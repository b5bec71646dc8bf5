/*
 * The DMA engine: one ring of VDSP_DMA_DEPTH 2-D descriptors per NPU thread, completions popped in strict
 * FIFO order (the hardware's user-DMA chain as upstream's dma-queue.c drives it: htp-reference-notes §4).
 *
 * A descriptor moves nrows rows of row_size bytes, rows src_stride apart at src and dst_stride apart at
 * dst. Its VTCM side must lie inside VTCM and its DDR side inside one mapped buffer of the window
 * (VTCM -> VTCM is allowed, DDR -> DDR is not); every push is checked and a violation ends the running
 * guarded call as a DMA fault that names the queue, the addresses and the bound. nrows == 0 or
 * row_size == 0 is a dummy: already complete, never checked, still popped in its turn.
 *
 * Normal mode copies at push, so a pop only hands back the pair. Strict mode (VNPU_DMA_STRICT) fills the
 * destination with VDSP_DMA_POISON at push and copies at pop, like the slowest legal engine: a kernel
 * that reads a buffer before popping its transfer, or reuses one before the transfer out of it is
 * popped, computes garbage the op tests catch.
 */
#include "log.h"
#include "vdsp-impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum dma_side { DMA_SIDE_BAD = -1, DMA_SIDE_VTCM = 0, DMA_SIDE_DDR = 1 };

enum vnpu_status vdsp_dma_init(struct vdsp_device *dev, uint32_t n_queues) {
    dev->dma = calloc(n_queues, sizeof(*dev->dma));
    if (!dev->dma) {
        vnpu_log_error("%s: out of memory for %u DMA queues", dev->name, n_queues);
        return VNPU_STATUS_NO_MEMORY;
    }
    for (uint32_t i = 0; i < n_queues; i++) {
        dev->dma[i].dev = dev;
        dev->dma[i].index = i;
    }
    dev->n_dma = n_queues;
    pthread_mutex_init(&dev->dma_log_lock, NULL);
    return VNPU_STATUS_OK;
}

void vdsp_dma_free(struct vdsp_device *dev) {
    free(dev->dma);
    dev->dma = NULL;
    dev->n_dma = 0;
    free(dev->dma_log);
    dev->dma_log = NULL;
    pthread_mutex_destroy(&dev->dma_log_lock);
}

void vdsp_dma_log(struct vdsp_device *dev, bool on) {
    pthread_mutex_lock(&dev->dma_log_lock);
    dev->dma_log_on = on;
    if (on) {
        dev->n_dma_log = 0;
        dev->dma_log_lost = false;
    }
    pthread_mutex_unlock(&dev->dma_log_lock);
}

/* Log descriptor d (checked, destination in DDR) as buffer bytes: the mapping holding its first byte names them
 * (dma_check put its whole extent inside one mapping). */
static void dma_log_write(struct vdsp_device *dev, const struct vdsp_dma_desc *d) {
    const size_t woff = (size_t) (d->dst - dev->window);
    const uint32_t page = (uint32_t) (woff >> dev->page_shift);
    struct vdsp_dma_write w = {.fd = -1, .stride = d->dst_stride, .row_size = d->row_size, .nrows = d->nrows};
    pthread_mutex_lock(&dev->window_lock);
    for (uint32_t i = 0; i < dev->n_maps; i++) {
        const struct vdsp_mapping *m = &dev->maps[i];
        if (page >= m->first && page < m->first + m->npages) {
            w.fd = m->fd;
            w.offset = woff - ((size_t) m->first << dev->page_shift);
            break;
        }
    }
    pthread_mutex_unlock(&dev->window_lock);
    pthread_mutex_lock(&dev->dma_log_lock);
    if (w.fd < 0) {
        dev->dma_log_lost = true;
    } else if (dev->n_dma_log == dev->cap_dma_log) {
        const size_t cap = dev->cap_dma_log ? 2 * dev->cap_dma_log : 1024;
        struct vdsp_dma_write *grown = realloc(dev->dma_log, cap * sizeof(*grown));
        if (grown) {
            dev->dma_log = grown;
            dev->cap_dma_log = cap;
        } else {
            dev->dma_log_lost = true;
        }
    }
    if (w.fd >= 0 && dev->n_dma_log < dev->cap_dma_log) {
        dev->dma_log[dev->n_dma_log++] = w;
    }
    pthread_mutex_unlock(&dev->dma_log_lock);
}

struct vdsp_dma_queue *vdsp_dma_queue_get(struct vdsp_device *dev, uint32_t thread) {
    if (thread >= dev->n_dma) {
        vnpu_log_error("%s: DMA queue of NPU thread %u asked for; the session has %u threads", dev->name, thread,
                       dev->n_dma);
        abort();
    }
    return &dev->dma[thread];
}

/* Which memory [p, p + extent) lies in; DMA_SIDE_BAD with the reason in why. */
static enum dma_side dma_side(struct vdsp_device *dev, const uint8_t *p, size_t extent, char *why, size_t n) {
    const uintptr_t a = (uintptr_t) p;
    const size_t voff = a - (uintptr_t) dev->vtcm;
    if (voff < dev->vtcm_size) {
        if (extent <= dev->vtcm_size - voff) {
            return DMA_SIDE_VTCM;
        }
        snprintf(why, n, "VTCM+0x%zx..+%zu ends %zu B past the end of VTCM (%zu B)", voff, extent,
                 extent - (dev->vtcm_size - voff), dev->vtcm_size);
        return DMA_SIDE_BAD;
    }
    const size_t woff = a - (uintptr_t) dev->window;
    if (woff < dev->window_size) {
        size_t bad;
        if (extent > dev->window_size - woff) {
            snprintf(why, n, "device address 0x%08zx..+%zu leaves the window (%zu B)", woff, extent, dev->window_size);
            return DMA_SIDE_BAD;
        }
        if (vdsp_window_range_mapped(dev, woff, extent, &bad)) {
            return DMA_SIDE_DDR;
        }
        char where[160];
        vdsp_window_describe(dev, bad, where, sizeof(where));
        snprintf(why, n, "device address 0x%08zx..+%zu is not inside one mapped buffer: %s", woff, extent, where);
        return DMA_SIDE_BAD;
    }
    if (a - (uintptr_t) dev->vtcm_region < dev->vtcm_region_size) {
        snprintf(why, n, "VTCM-%zu is before the start of VTCM", (size_t) ((uintptr_t) dev->vtcm - a));
    } else {
        snprintf(why, n, "host address %p is neither in VTCM nor in the window", (const void *) p);
    }
    return DMA_SIDE_BAD;
}

/* A broken descriptor: record the text and end the guarded call. */
static _Noreturn void dma_fault(struct vdsp_dma_queue *q, const struct vdsp_dma_desc *d, const char *what) {
    vdsp_fault_record(q->dev, "DMA queue %u: %u rows x %zu B (strides dst %zu, src %zu): %s", q->index, d->nrows,
                      d->row_size, d->dst_stride, d->src_stride, what);
    vdsp_guard_raise_dma(q->dev);
}

/* Check d's bounds (faulting on a violation) and return whether its destination is DDR. */
static bool dma_check(struct vdsp_dma_queue *q, const struct vdsp_dma_desc *d) {
    char why[256], what[288];
    size_t dst_ext, src_ext;
    const size_t last = d->nrows - 1;
    if (__builtin_mul_overflow(last, d->dst_stride, &dst_ext) ||
        __builtin_add_overflow(dst_ext, d->row_size, &dst_ext) ||
        __builtin_mul_overflow(last, d->src_stride, &src_ext) ||
        __builtin_add_overflow(src_ext, d->row_size, &src_ext)) {
        dma_fault(q, d, "the extent overflows the address space");
    }
    const enum dma_side dst = dma_side(q->dev, d->dst, dst_ext, why, sizeof(why));
    if (dst == DMA_SIDE_BAD) {
        snprintf(what, sizeof(what), "dst %s", why);
        dma_fault(q, d, what);
    }
    const enum dma_side src = dma_side(q->dev, d->src, src_ext, why, sizeof(why));
    if (src == DMA_SIDE_BAD) {
        snprintf(what, sizeof(what), "src %s", why);
        dma_fault(q, d, what);
    }
    if (dst == DMA_SIDE_DDR && src == DMA_SIDE_DDR) {
        dma_fault(q, d, "DDR to DDR (one side must be VTCM)");
    }
    if (dst == DMA_SIDE_VTCM && src == DMA_SIDE_VTCM && d->dst < d->src + src_ext && d->src < d->dst + dst_ext) {
        snprintf(what, sizeof(what), "src VTCM+0x%zx..+%zu and dst VTCM+0x%zx..+%zu overlap",
                 (size_t) (d->src - q->dev->vtcm), src_ext, (size_t) (d->dst - q->dev->vtcm), dst_ext);
        dma_fault(q, d, what);
    }
    return dst == DMA_SIDE_DDR;
}

static void dma_copy(const struct vdsp_dma_desc *d) {
    if (d->dst_stride == d->row_size && d->src_stride == d->row_size) {
        memcpy(d->dst, d->src, (size_t) d->nrows * d->row_size);
        return;
    }
    for (uint32_t r = 0; r < d->nrows; r++) {
        memcpy(d->dst + r * d->dst_stride, d->src + r * d->src_stride, d->row_size);
    }
}

static void dma_poison(const struct vdsp_dma_desc *d) {
    if (d->dst_stride == d->row_size) {
        memset(d->dst, VDSP_DMA_POISON, (size_t) d->nrows * d->row_size);
        return;
    }
    for (uint32_t r = 0; r < d->nrows; r++) {
        memset(d->dst + r * d->dst_stride, VDSP_DMA_POISON, d->row_size);
    }
}

bool vdsp_dma_push(struct vdsp_dma_queue *q, void *dst, const void *src, size_t dst_stride, size_t src_stride,
                   size_t row_size, uint32_t nrows) {
    if (q->push_idx - q->pop_idx == VDSP_DMA_DEPTH) {
        return false;
    }
    struct vdsp_dma_desc *d = &q->ring[q->push_idx % VDSP_DMA_DEPTH];
    d->dst = dst;
    d->src = src;
    d->dst_stride = dst_stride;
    d->src_stride = src_stride;
    d->row_size = row_size;
    d->nrows = row_size == 0 ? 0 : nrows;
    q->stats.descs++;
    if (d->nrows > 0) {
        const size_t bytes = (size_t) d->nrows * row_size; /* fits: dma_check bounded the extent */
        d->to_ddr = dma_check(q, d);
        const uint8_t *vtcm = q->dev->vtcm;
        if (d->to_ddr) {
            q->stats.vtcm_to_ddr += bytes;
            if (q->dev->dma_log_on) {
                dma_log_write(q->dev, d);
            }
        } else if (d->src >= vtcm && d->src < vtcm + q->dev->vtcm_size) {
            q->stats.vtcm_to_vtcm += bytes;
        } else {
            q->stats.ddr_to_vtcm += bytes;
        }
        if (q->dev->dma_strict) {
            dma_poison(d);
        } else {
            dma_copy(d);
        }
    }
    q->push_idx++;
    return true;
}

struct vdsp_dma_pair vdsp_dma_pop(struct vdsp_dma_queue *q) {
    if (q->push_idx == q->pop_idx) {
        vdsp_fault_record(q->dev, "DMA queue %u: pop from an empty queue (%u pushes, all popped)", q->index,
                          q->push_idx);
        vdsp_guard_raise_dma(q->dev);
    }
    const struct vdsp_dma_desc *d = &q->ring[q->pop_idx % VDSP_DMA_DEPTH];
    if (q->dev->dma_strict && d->nrows > 0) {
        dma_copy(d);
    }
    q->pop_idx++;
    return (struct vdsp_dma_pair){.dst = d->dst, .src = d->src};
}

uint32_t vdsp_dma_depth(const struct vdsp_dma_queue *q) {
    return q->push_idx - q->pop_idx;
}

void vdsp_dma_stats(const struct vdsp_dma_queue *q, struct vdsp_dma_stats *out) {
    *out = q->stats;
}

uint32_t vdsp_dma_reset(struct vdsp_dma_queue *q) {
    const uint32_t n = q->push_idx - q->pop_idx;
    q->pop_idx = q->push_idx;
    return n;
}
