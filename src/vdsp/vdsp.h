/*
 * The virtual DSP platform, host side: what FastRPC, rpcmem and the DSP loader provide on a phone.
 *
 * - Shared DDR buffers (rpcmem): memfd-backed, mapped at a host address and mappable into any session's
 *   32-bit window, so CPU and NPU see the same bytes (Snapdragon unified memory).
 * - Sessions (one per device HTP0, HTP1, ...): each loads the NPU library built for its arch
 *   (libvnpu-htp-vNN.so, like libggml-htp-vNN), owns a window, VTCM, an HVX context pool, a DMA engine
 *   and a request queue served by the NPU library's main thread, like a DSP process domain.
 * - Requests: the host writes a request block (src/htp/htp-msg.h) into a shared buffer, submits it, and
 *   waits for the response the NPU wrote back into the same block (dspqueue in the real backend).
 *
 * Every function returns enum vnpu_status and logs once on error. The NPU-side services (DMA, VTCM,
 * HVX contexts, threads, clocks, window mapping) are in vdsp-device.h.
 */
#ifndef VNPU_VDSP_H
#define VNPU_VDSP_H

#include "vnpu.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A shareable DDR buffer. */
struct vdsp_buffer {
    int fd;     /* memfd: what a session maps */
    void *host; /* the host mapping of all size bytes */
    size_t size;
};

/* Allocate size bytes (> 0) of shared DDR, zeroed, 128-byte aligned at the host address. The name shows
 * in /proc/<pid>/maps ("vnpu:<name>"). Errors: VNPU_STATUS_NO_MEMORY. */
enum vnpu_status vdsp_buffer_alloc(size_t size, const char *name, struct vdsp_buffer **out);
void vdsp_buffer_free(struct vdsp_buffer *buf); /* NULL is a no-op; sessions must have unmapped it */

/* The Hexagon architectures the virtual device models: the targets of src/perf/perf-target.h that vnpu builds an
 * NPU library for (docs/targets.md). */
enum vdsp_arch {
    VDSP_ARCH_V73 = 73,
    VDSP_ARCH_V75 = 75,
    VDSP_ARCH_V79 = 79,
    VDSP_ARCH_V81 = 81,
};

/* What a target offers; the numbers an NPU library and the host plan with (copied from the target table,
 * src/perf/perf-target.c; sources in docs/targets.md). */
struct vdsp_target {
    enum vdsp_arch arch;
    uint32_t n_hw_threads;   /* scalar hardware threads */
    uint32_t n_hvx_contexts; /* 128-byte HVX contexts: v79 6, v81 8 */
    uint32_t n_hmx;          /* HMX units */
    size_t vtcm_size;        /* bytes */
    size_t window_size;      /* default session window (VNPU_WINDOW_MB overrides): v75+ 3200 MiB, v73 3000 MiB */
    size_t max_mapping;      /* bytes one mapping may take (HAP_mmap's limit): v73 2 GiB, else the 4 GiB space */
    uint32_t clock_mhz;      /* NPU clock: vdsp_cycles counts at this rate */
};

/* Where the file name that ships with the NPU libraries is: VNPU_HTP_LIB_DIR/name, else name next to
 * libvnpu-vdsp.so (else name alone, for the loader's search path). */
void vdsp_npu_file_path(const char *name, char *path, size_t size);

/* The target of an arch; false for an arch vnpu builds no NPU library for (v68, v69: table rows for the cost
 * model only) or does not know. */
bool vdsp_target_get(enum vdsp_arch arch, struct vdsp_target *t);
/* Parse "v79" or "79" (VNPU_ARCH's syntax); false if not a modelled arch. */
bool vdsp_arch_parse(const char *s, enum vdsp_arch *arch);

struct vdsp_session_params {
    enum vdsp_arch arch;
    uint32_t n_threads;      /* NPU worker threads (VNPU_NHVX), 1..HTP_MAX_NTHREADS; may exceed the HVX contexts,
                              * which then serialise */
    uint32_t n_host_threads; /* host threads that run them, 1..n_threads (0: n_threads); the cost model's sessions
                              * run a target's n_threads on however many host threads (htp-config.h) */
    bool counted;            /* load the counting NPU library, libvnpu-htp-vNN-counted.so (the cost model's counts) */
    size_t window_size;      /* bytes of 32-bit address window, 1 MiB .. 4 GiB, rounded up to pages; 0: VNPU_WINDOW_MB
                              * if set, else the target's (vdsp_window_size_default) */
    bool dma_strict;         /* poison at push, land at pop, report leaks; also on when VNPU_DMA_STRICT=1 */
    uint32_t session_id;     /* 0 for HTP0, 1 for HTP1, ...: names threads and messages */
};

struct vdsp_session;

/* Open a session: reserve the window, allocate VTCM, load libvnpu-htp-v<arch>.so (from VNPU_HTP_LIB_DIR,
 * default the directory holding libvnpu-vdsp.so), start its main thread and workers. Sessions of one arch
 * share the loaded library, so an NPU library keeps its state in its npu_ctx. Errors:
 * VNPU_STATUS_BAD_ARG (params, VNPU_WINDOW_MB, VNPU_DMA_STRICT), VNPU_STATUS_NO_MEMORY (window, VTCM),
 * VNPU_STATUS_IO (library not found, with its path), VNPU_STATUS_BAD_FILE (its htp_iface has another ABI
 * or arch), VNPU_STATUS_DEVICE (the library refused to start). */
enum vnpu_status vdsp_session_open(const struct vdsp_session_params *params, struct vdsp_session **out);
/* Stop the NPU threads (stop() is called even after a fault), unmap everything, unload the library. No
 * vdsp_session_call may be in progress. NULL is a no-op. */
void vdsp_session_close(struct vdsp_session *s);

/* Sessions vdsp_session_open has opened in this process so far, reopens after a fault included: what a caller
 * compares before and after some work to know how many DSP domains it started (one per device is the rule). */
uint64_t vdsp_sessions_opened(void);

const struct vdsp_target *vdsp_session_target(const struct vdsp_session *s);
/* Bytes of s's 32-bit address window: the params', else VNPU_WINDOW_MB's, else the target's. */
size_t vdsp_session_window_size(const struct vdsp_session *s);
/* The window a session of arch opens with when its params leave it 0, into *size: VNPU_WINDOW_MB's, else the
 * target's. Errors: VNPU_STATUS_BAD_ARG (arch not modelled, VNPU_WINDOW_MB malformed; logged). */
enum vnpu_status vdsp_window_size_default(enum vdsp_arch arch, size_t *size);
/* Whether n buffers of sizes[i] bytes can be mapped into s's window at once, with nothing else mapped: each takes
 * its pages and a guard page, page 0 is never mapped, and none is larger than the target's max_mapping. What a
 * request's distinct buffers must satisfy for the NPU to map them all (the host splits requests by it). */
bool vdsp_session_window_fits(const struct vdsp_session *s, const uint64_t *sizes, uint32_t n);

/* A request in flight between vdsp_session_submit and vdsp_session_wait: storage the caller provides and keeps
 * until the wait returns; the fields are the platform's. */
struct vdsp_call {
    struct vdsp_call *next;
    uint8_t *block;
    uint32_t size;
    bool done;
    enum vnpu_status status;
};

/* Submit the request block at offset offset of buf (size bytes; layout in src/htp/htp-msg.h) to s's queue and
 * return at once; vdsp_session_wait(s, call) then waits for its response, written by the NPU into the same block.
 * So a host thread keeps requests in flight on several sessions (the members of a row-split group) and waits for
 * them all. Requests from any thread are served one at a time, in submission order. Errors (nothing was queued and
 * no wait is owed): VNPU_STATUS_DEVICE when the session is faulted (an earlier request crashed it: reopen it);
 * VNPU_STATUS_BAD_ARG when the block is not inside buf, not 8-byte aligned, or smaller than struct htp_req. */
enum vnpu_status vdsp_session_submit(struct vdsp_session *s, struct vdsp_buffer *buf, size_t offset, size_t size,
                                     struct vdsp_call *call);
/* Wait for call, submitted to s. Returns VNPU_STATUS_OK when the NPU answered (the request's own status is in the
 * block; a request that faulted answers HTP_STATUS_FAULT with the fault's text, written by the platform when the
 * fault ended process()); VNPU_STATUS_DEVICE when the session faulted before serving it. */
enum vnpu_status vdsp_session_wait(struct vdsp_session *s, struct vdsp_call *call);

/* vdsp_session_submit, then vdsp_session_wait: one request, answered. */
enum vnpu_status vdsp_session_call(struct vdsp_session *s, struct vdsp_buffer *buf, size_t offset, size_t size);

/* One DMA descriptor that wrote shared DDR: nrows rows of row_size bytes, stride bytes apart, from byte offset of
 * the buffer whose fd is fd (as the session had it mapped when the descriptor was pushed). */
struct vdsp_dma_write {
    int fd;
    uint64_t offset;
    uint64_t stride;
    uint64_t row_size;
    uint32_t nrows;
};

/* Start (on) or stop logging the DDR writes of s's DMA engine; starting empties the log. For the multi-device
 * line-ownership checker (src/host, docs/HTP.md "Partitions"): the host runs one partition, then reads which DDR
 * bytes its DMA wrote. No request may be in progress. */
void vdsp_session_dma_log(struct vdsp_session *s, bool on);
/* The descriptors logged since the log was started, in push order per NPU thread (*n of them; valid until the log
 * is started again or the session closes). *lost: some were dropped (out of memory, or a destination in no
 * mapping). */
const struct vdsp_dma_write *vdsp_session_dma_writes(const struct vdsp_session *s, size_t *n, bool *lost);

/* True once a request faulted the session (bad address, DMA error in strict mode, ...); the reason is
 * in the response of that request and was logged. */
bool vdsp_session_faulted(const struct vdsp_session *s);

#endif /* VNPU_VDSP_H */
