/*
 * vdsp-hotpath-bench [iterations]: what the platform calls on every kernel's hot path cost, uncontended,
 * in ns per call: DMA push + pop (a dummy, 128 B and 4 KiB DDR -> VTCM, normal and strict mode), HVX
 * lock + unlock, a guarded call, a cycle counter read. A measurement, not a test: it prints and asserts
 * nothing.
 */
#include "vdsp-impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double) t.tv_sec * 1e9 + (double) t.tv_nsec;
}

static void nothing(void *arg) {
    (void) arg;
}

static void bench_dma(struct vdsp_device *dev, uint8_t *ddr, long iters, size_t bytes, const char *what) {
    struct vdsp_dma_queue *q = vdsp_dma_queue_get(dev, 0);
    uint8_t *vtcm = vdsp_vtcm_base(dev);
    const double t0 = now_ns();
    for (long i = 0; i < iters; i++) {
        vdsp_dma_push(q, vtcm, ddr, bytes, bytes, bytes, bytes ? 1 : 0);
        vdsp_dma_pop(q);
    }
    printf("  dma push+pop %-22s %7.1f ns\n", what, (now_ns() - t0) / (double) iters);
}

int main(int argc, char **argv) {
    const long iters = argc > 1 ? atol(argv[1]) : 2000000;
    if (iters <= 0) {
        fprintf(stderr, "usage: %s [iterations > 0]\n", argv[0]);
        return 2;
    }
    struct vdsp_target target;
    vdsp_target_get(VDSP_ARCH_V79, &target);
    struct vdsp_buffer *buf;
    if (vdsp_buffer_alloc(1 << 20, "bench", &buf) != VNPU_STATUS_OK) {
        return 1;
    }
    for (int strict = 0; strict <= 1; strict++) {
        const struct vdsp_device_params p = {
            .target = &target, .n_threads = 1, .window_size = 64u << 20, .dma_strict = strict};
        struct vdsp_device *dev;
        uint32_t addr;
        if (vdsp_device_open(&p, &dev) != VNPU_STATUS_OK || vdsp_mmap(dev, buf->fd, buf->size, &addr) != 0) {
            return 1;
        }
        uint8_t *ddr = vdsp_window_base(dev) + addr;
        printf("%s mode, %ld iterations:\n", strict ? "strict" : "normal", iters);
        bench_dma(dev, ddr, iters, 0, "(dummy)");
        bench_dma(dev, ddr, iters, 128, "128 B DDR -> VTCM");
        bench_dma(dev, ddr, iters, 4096, "4 KiB DDR -> VTCM");
        if (!strict) {
            double t0 = now_ns();
            for (long i = 0; i < iters; i++) {
                vdsp_hvx_lock(dev);
                vdsp_hvx_unlock(dev);
            }
            printf("  hvx lock+unlock %26.1f ns\n", (now_ns() - t0) / (double) iters);
            t0 = now_ns();
            for (long i = 0; i < iters; i++) {
                vdsp_call_guarded(dev, nothing, NULL);
            }
            printf("  guarded call (empty) %21.1f ns\n", (now_ns() - t0) / (double) iters);
            t0 = now_ns();
            uint64_t sum = 0;
            for (long i = 0; i < iters; i++) {
                sum += vdsp_cycles(dev);
            }
            printf("  vdsp_cycles %30.1f ns (%llu)\n", (now_ns() - t0) / (double) iters,
                   (unsigned long long) (sum & 1));
        }
        vdsp_munmap(dev, addr);
        vdsp_device_close(dev);
    }
    vdsp_buffer_free(buf);
    return 0;
}
