/*
 * The virtual DSP platform, NPU side: the services QuRT, HAP and the Hexagon DMA hardware give the NPU
 * library (src/htp). This header is all src/htp sees of the platform; it compiles freestanding for
 * Hexagon (no libc), where these functions would be the real OS and hardware.
 *
 * The NPU library exports one `const struct htp_iface htp_iface` (below). A session loads the library,
 * calls start() once with its device, then calls process() on the session's main thread ("htp<N>-main")
 * for every request, and stop() at close. Threads the library needs come from vdsp_thread_create. Sessions
 * of one arch share the loaded library, so its state lives in npu_ctx, not in globals.
 *
 * Memory: DDR is reached through the session window: device address a (32 bits) is at host address
 * vdsp_window_base(dev) + a, and only mapped buffers are accessible (an access elsewhere faults, as on
 * the DSP). VTCM is one region of the target's size. The DMA engine moves 2-D blocks between them.
 */
#ifndef VNPU_VDSP_DEVICE_H
#define VNPU_VDSP_DEVICE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The ABI between a session and its NPU library; bump on any change to this header. */
#define VDSP_DEVICE_ABI 5

/* Status of a guarded call (vdsp_call_guarded). */
enum vdsp_fault {
    VDSP_FAULT_NONE = 0,
    VDSP_FAULT_ADDRESS = 1, /* a load or store outside the mapped window or VTCM */
    VDSP_FAULT_DMA = 2,     /* a DMA descriptor outside VTCM or the mapped window (checked at push) */
    VDSP_FAULT_ABORT = 3,   /* not a fault: the NPU library ended the call itself (vdsp_call_abort) */
};

struct vdsp_device;

/* ---- the NPU library's entry points ---- */

struct htp_iface {
    uint32_t abi;  /* VDSP_DEVICE_ABI */
    uint32_t arch; /* the arch the library was built for: 73, 75, 79, 81 */
    /* Set up the library's context on dev with n_threads workers; 0 on success, else an htp status. */
    int (*start)(struct vdsp_device *dev, uint32_t n_threads, void **npu_ctx);
    /* Serve one request: block (size bytes, host-written, src/htp/htp-msg.h) is read and the response is
     * written into it. Runs on the session's main thread, guarded: a fault ends the call and the session
     * reports it (the platform then answers HTP_STATUS_FAULT, blaming op rsp.n_ops_done, so process keeps
     * n_ops_done current). */
    void (*process)(void *npu_ctx, void *block, uint32_t size);
    /* Join the library's threads and free npu_ctx; called at close even after a fault. */
    void (*stop)(void *npu_ctx);
};

/* ---- memory ---- */

/* Host address of device address 0 of the window; device address a is at base + a. */
uint8_t *vdsp_window_base(struct vdsp_device *dev);

/* Map the shared buffer fd (size bytes) into the window: *devaddr gets its device address, page aligned,
 * never 0, with an inaccessible guard page after the mapping. 0 on success, -1 when the window has no room
 * (the caller unmaps and retries, the sliding window of the seed), -2 (logged) when fd is not a buffer of at
 * least size bytes or size is more than vdsp_mmap_max (HAP_mmap refuses it: no unmap makes room). */
int vdsp_mmap(struct vdsp_device *dev, int fd, size_t size, uint32_t *devaddr);
/* Unmap what vdsp_mmap mapped at devaddr; later accesses fault. */
void vdsp_munmap(struct vdsp_device *dev, uint32_t devaddr);
/* Bytes of the window (device addresses 0 .. size - 1; page 0 is never mapped, each mapping is followed by a
 * guard page). */
size_t vdsp_window_size(struct vdsp_device *dev);
/* Bytes one vdsp_mmap may map: HAP_mmap's limit on the arch (2 GiB on v73), vdsp_mmap refuses more. */
size_t vdsp_mmap_max(struct vdsp_device *dev);

/* VTCM: one region of vdsp_vtcm_size bytes, 2048-byte aligned, guarded (accesses past either end fault). */
uint8_t *vdsp_vtcm_base(struct vdsp_device *dev);
size_t vdsp_vtcm_size(struct vdsp_device *dev);

/* ---- threads and compute resources ---- */

typedef void (*vdsp_thread_fn)(void *arg);

/* Start a platform thread (a QuRT thread) running fn(arg); *id receives its handle. 0 on success. */
int vdsp_thread_create(struct vdsp_device *dev, vdsp_thread_fn fn, void *arg, const char *name, uint32_t *id);
void vdsp_thread_join(struct vdsp_device *dev, uint32_t id);

/* Futex on a 32-bit word: wait while *addr == value (spurious wakeups allowed); wake up to n waiters. */
void vdsp_futex_wait(volatile uint32_t *addr, uint32_t value);
void vdsp_futex_wake(volatile uint32_t *addr, uint32_t n);

/* The host's online CPUs (at least 1): a platform thread may spin while it waits only when the threads that run at
 * once do not outnumber them (on a phone each NPU thread has its hardware thread). */
uint32_t vdsp_host_cpus(void);

/* The same on a word of shared DDR that other sessions map at other addresses (a fence slot, src/htp/htp-fence.h):
 * keyed on the memory, not the address. Wait while *addr == value, at most timeout_us microseconds (spurious wakeups
 * allowed; the caller checks its condition and its deadline); wake every waiter of any session. On a phone the
 * sessions of a group run on other NPU cores and spin on the line (QuRT has no futex across cores); here they share
 * the host's cores, so a waiter that keeps spinning would take the core the session it waits for needs. */
void vdsp_futex_wait_shared(volatile uint32_t *addr, uint32_t value, uint32_t timeout_us);
void vdsp_futex_wake_shared(volatile uint32_t *addr);

/* Run fn(arg) so that a memory fault in it ends the call instead of the process: returns VDSP_FAULT_NONE,
 * or the fault, whose description vdsp_fault_text then gives ("load from device address 0x... (not
 * mapped)"). A fault marks the session faulted: it answers no further requests. */
enum vdsp_fault vdsp_call_guarded(struct vdsp_device *dev, vdsp_thread_fn fn, void *arg);
const char *vdsp_fault_text(struct vdsp_device *dev);

/* End the calling thread's innermost guarded call on dev, which returns VDSP_FAULT_ABORT: the NPU library's way out of
 * a job that cannot go on (src/htp/dma-queue.h: a push to a full queue), which the library reports itself. Not a
 * fault: the session is not marked faulted and serves on. The HVX/HMX contexts taken inside the call are given back
 * as after a fault. Only a job of the library's own may end this way; from process() itself (which then never
 * answers) the session takes it for a crash of the library. Outside a guarded call: logged, and the process aborts. */
_Noreturn void vdsp_call_abort(struct vdsp_device *dev);

/* Acquire and release an HVX context (qurt_hvx_lock). A thread holds one while running HVX code; the pool
 * has the target's count, so more threads than contexts wait their turn, as on the hardware. Locks nest
 * per thread (the outermost pair takes and gives back the context; an unlock holding none does nothing),
 * and a fault ending a guarded call gives back what the call took. */
void vdsp_hvx_lock(struct vdsp_device *dev);
void vdsp_hvx_unlock(struct vdsp_device *dev);

/* The same for the HMX unit (HAP_compute_res_hmx_lock). */
void vdsp_hmx_lock(struct vdsp_device *dev);
void vdsp_hmx_unlock(struct vdsp_device *dev);

/* ---- DMA ---- */

/* One DMA queue per NPU thread: 2-D descriptors, completions in strict FIFO order. */
struct vdsp_dma_queue;

/* The queue of NPU thread index thread (0 .. n_threads-1 given to start()). */
struct vdsp_dma_queue *vdsp_dma_queue_get(struct vdsp_device *dev, uint32_t thread);

/* Queue a copy of nrows rows of row_size bytes from src (rows src_stride apart) to dst (dst_stride apart).
 * nrows == 0 or row_size == 0 queues a completed dummy (it still needs its pop). Exactly one of src and
 * dst is in VTCM, the other in mapped DDR, or both in VTCM. Returns false when the queue is full
 * (VDSP_DMA_DEPTH entries). In strict mode dst is poisoned now and written at the pop; a descriptor
 * outside VTCM or the mapped window is a DMA fault either way. */
bool vdsp_dma_push(struct vdsp_dma_queue *q, void *dst, const void *src, size_t dst_stride, size_t src_stride,
                   size_t row_size, uint32_t nrows);

/* The oldest queued descriptor's (dst, src), after waiting for its completion (strict FIFO). The queue must
 * not be empty (a pop of an empty queue is a DMA fault). */
struct vdsp_dma_pair {
    void *dst;
    const void *src;
};
struct vdsp_dma_pair vdsp_dma_pop(struct vdsp_dma_queue *q);

uint32_t vdsp_dma_depth(const struct vdsp_dma_queue *q); /* descriptors pushed and not yet popped */

/* What a queue has moved since the session opened, counted at push (a dummy counts as a descriptor, no bytes): the
 * cost model's DMA traffic per thread. */
struct vdsp_dma_stats {
    uint64_t ddr_to_vtcm;  /* bytes */
    uint64_t vtcm_to_ddr;  /* bytes */
    uint64_t vtcm_to_vtcm; /* bytes */
    uint64_t descs;        /* descriptors pushed */
};
void vdsp_dma_stats(const struct vdsp_dma_queue *q, struct vdsp_dma_stats *out);

#define VDSP_DMA_DEPTH 256

/* The byte strict mode writes over a DMA destination at push: NaN in f32, f16 and bf16, -1 in integers. */
#define VDSP_DMA_POISON 0xFFu

/* ---- clocks and logging ---- */

/* The NPU cycle counter (the target's clock, derived from host time) and microseconds. */
uint64_t vdsp_cycles(struct vdsp_device *dev);
uint64_t vdsp_usecs(struct vdsp_device *dev);

/* A debug message from the NPU (FARF): shown when VNPU_VERBOSE > 1, prefixed with the session name. */
void vdsp_log(struct vdsp_device *dev, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Whether the session runs DMA in strict mode (VNPU_DMA_STRICT): the dispatcher then checks queues are
 * drained after each op. */
bool vdsp_dma_strict(struct vdsp_device *dev);

/* Host threads the library may run its n_threads workers on (1..n_threads given to start()): its work queue runs
 * the workers' jobs on that many threads, each a job after another, so that the jobs of an op (and what a counting
 * build counts of each) are the same whatever the host's thread count. */
uint32_t vdsp_host_threads(struct vdsp_device *dev);

#endif /* VNPU_VDSP_DEVICE_H */
