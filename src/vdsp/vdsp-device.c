/*
 * A device: what one DSP process domain owns (HTP.md, The platform). Its window, its VTCM (the target's
 * size, one inaccessible guard page on each side, filled with the DMA poison in strict mode so a kernel
 * reading VTCM it never wrote computes garbage), its HVX and HMX pools, one DMA queue per NPU thread, its
 * threads and its cycle clock. Sessions build on it; tests open one bare.
 */
#include "env.h"
#include "log.h"
#include "vdsp-impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

enum vnpu_status vdsp_device_open(const struct vdsp_device_params *params, struct vdsp_device **out) {
    *out = NULL;
    if (params->n_threads == 0 || params->n_threads >= VDSP_MAX_THREADS) {
        vnpu_log_error("HTP%u: %u NPU threads, expected 1..%d", params->id, params->n_threads, VDSP_MAX_THREADS - 1);
        return VNPU_STATUS_BAD_ARG;
    }
    struct vdsp_device *dev = calloc(1, sizeof(*dev));
    if (!dev) {
        vnpu_log_error("HTP%u: out of memory for the device", params->id);
        return VNPU_STATUS_NO_MEMORY;
    }
    dev->target = *params->target;
    dev->id = params->id;
    snprintf(dev->name, sizeof(dev->name), "HTP%u", params->id);
    dev->dma_strict = params->dma_strict;
    dev->n_host_threads = params->n_host_threads ? params->n_host_threads : params->n_threads;
    uint32_t verbose = 0; /* a bad value: the HTP configuration reports it (htp-config.c) */
    vnpu_env_uint("VNPU_VERBOSE", 0, 2, 0, &verbose, NULL, 0);
    dev->verbose = (int) verbose;
    dev->page_shift = (unsigned) __builtin_ctzl((unsigned long) sysconf(_SC_PAGESIZE));
    pthread_mutex_init(&dev->threads_lock, NULL);
    vdsp_sem_init(&dev->hvx, dev->target.n_hvx_contexts);
    vdsp_sem_init(&dev->hmx, dev->target.n_hmx);
    clock_gettime(CLOCK_MONOTONIC_RAW, &dev->t0);
    vdsp_guard_install();

    enum vnpu_status st = vdsp_window_init(dev, params->window_size);
    if (st != VNPU_STATUS_OK) {
        vdsp_device_close(dev);
        return st;
    }
    const size_t page = (size_t) 1 << dev->page_shift;
    VNPU_ASSERT((dev->target.vtcm_size & (page - 1)) == 0);
    dev->vtcm_region_size = dev->target.vtcm_size + 2 * page;
    void *region = mmap(NULL, dev->vtcm_region_size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (region == MAP_FAILED || mprotect((uint8_t *) region + page, dev->target.vtcm_size, PROT_READ | PROT_WRITE)) {
        vnpu_log_error("%s: out of memory for %zu bytes of VTCM", dev->name, dev->target.vtcm_size);
        if (region != MAP_FAILED) {
            munmap(region, dev->vtcm_region_size);
        }
        vdsp_device_close(dev);
        return VNPU_STATUS_NO_MEMORY;
    }
    dev->vtcm_region = region;
    dev->vtcm = dev->vtcm_region + page;
    dev->vtcm_size = dev->target.vtcm_size;
    if (dev->dma_strict) {
        memset(dev->vtcm, VDSP_DMA_POISON, dev->vtcm_size);
    }
    st = vdsp_dma_init(dev, params->n_threads);
    if (st != VNPU_STATUS_OK) {
        vdsp_device_close(dev);
        return st;
    }
    *out = dev;
    return VNPU_STATUS_OK;
}

void vdsp_device_close(struct vdsp_device *dev) {
    if (!dev) {
        return;
    }
    VNPU_ASSERT(vdsp_threads_alive(dev) == 0);
    vdsp_dma_free(dev);
    if (dev->vtcm_region) {
        munmap(dev->vtcm_region, dev->vtcm_region_size);
    }
    vdsp_window_free(dev);
    pthread_mutex_destroy(&dev->threads_lock);
    free(dev);
}

bool vdsp_device_faulted(const struct vdsp_device *dev) {
    return atomic_load(&dev->faulted);
}

uint8_t *vdsp_vtcm_base(struct vdsp_device *dev) {
    return dev->vtcm;
}

size_t vdsp_vtcm_size(struct vdsp_device *dev) {
    return dev->vtcm_size;
}

bool vdsp_dma_strict(struct vdsp_device *dev) {
    return dev->dma_strict;
}

uint32_t vdsp_host_threads(struct vdsp_device *dev) {
    return dev->n_host_threads;
}

/* Nanoseconds since the device opened (CLOCK_MONOTONIC_RAW: not slewed by NTP, so cycle deltas stay true
 * to the host's oscillator). */
static uint64_t device_nsecs(const struct vdsp_device *dev) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC_RAW, &now);
    return (uint64_t) (now.tv_sec - dev->t0.tv_sec) * 1000000000u + (uint64_t) now.tv_nsec - (uint64_t) dev->t0.tv_nsec;
}

uint64_t vdsp_cycles(struct vdsp_device *dev) {
    const uint64_t ns = device_nsecs(dev);
    const uint64_t mhz = dev->target.clock_mhz;
    return ns / 1000 * mhz + ns % 1000 * mhz / 1000;
}

uint64_t vdsp_usecs(struct vdsp_device *dev) {
    return device_nsecs(dev) / 1000;
}

void vdsp_log(struct vdsp_device *dev, const char *fmt, ...) {
    if (dev->verbose <= 1 || !vnpu_log_enabled(VNPU_LOG_INFO)) {
        return;
    }
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    vnpu_log(VNPU_LOG_INFO, "%s: %s", dev->name, text);
}
