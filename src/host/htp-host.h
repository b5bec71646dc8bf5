/*
 * The NPU devices HTP0, HTP1, ... (the CPU side of the virtual HTP, "libggml-hexagon"): each a session on
 * the virtual DSP (src/vdsp) running the NPU library of its arch (src/htp).
 *
 * A device implements struct vnpu_device (src/base/backend.h): supports_op decides from static tensor
 * properties; graph_compute turns runs of nodes into requests (src/htp/htp-msg.h) of op nodes with
 * host-computed kernel_params, sends them and turns a failed status into VNPU_STATUS_DEVICE naming the op;
 * a faulted session is reopened before the next request. Its buffer types are "HTP<n>" (shared DDR for
 * compute buffers and the KV cache, kept mapped) and "HTP<n>-REPACK" (weights, tiled; mapped while a request
 * uses them). Tensors that live elsewhere are copied into shared DDR around each request (weights once).
 *
 * Environment (read once, at the first device open; a bad value fails the open):
 *   VNPU_NDEV      devices HTP0..NDEV-1 that exist (1..16, default 1)
 *   VNPU_NHVX      NPU worker threads per session (1..10; default min(host cores, the target's HVX contexts))
 *   VNPU_ARCH      v73, v75, v79 (default), v81: the target and the NPU library loaded
 *   VNPU_HOSTBUF   1: weights go to the plain HTP<n> buffer type instead of HTP<n>-REPACK
 *   VNPU_MBUF_MB   MiB of the largest HTP buffer (1..4096, default 1024, GGML_HEXAGON_MBUF); a third of the
 *                  window and the arch's largest mapping cap it too (htp_buffer_max_size), so weights come in
 *                  several buffers
 *   VNPU_VERBOSE   1: one line per op supported (with the reason when not) and per op executed, and the window's
 *                  maps, unmaps and defragmentations per request; 2: also the requests and the NPU's map lines
 *   VNPU_PROFILE   1: per-op NPU and host times and the window's counts, summed at device free; 2: also one line
 *                  per op
 *   VNPU_OPSTAGE   bits: 0x1 send ops to the NPU, 0x2 compute them (clear: DMA only, HTP_OP_SKIP_COMPUTE);
 *                  default 0x3
 *   VNPU_OPFILTER  a POSIX extended regex (case-insensitive): ops whose name matches stay off the NPU
 *   VNPU_TRACE     a file: every device traces into it, as vnpu_htp_device_trace (the --trace of the tools)
 *   VNPU_MM_PATH   auto (default: MUL_MAT on HMX for batches, htp-prep-matmul-hmx.c's rule), hmx (wherever it can
 *                  run), hvx (never HMX)
 *   VNPU_FENCE_TIMEOUT_MS  a row-split group's barrier waits this long for a member before it fails the op naming
 *                  the member (1..3600000, default 30000; src/htp/htp-fence.h)
 *   VNPU_MDEV_SEQ  2..16: every op runs as that many partitions one after another, as vnpu_htp_device_partitions
 *   VNPU_MDEV_CHECK 1: partitions run one after another (VNPU_MDEV_SEQ, or a group's members) are checked for two
 *                  devices writing one 128-byte line (DMA writes only for overlapping bytes, the seed's rule); 2: DMA
 *                  writes own their lines too (docs/HTP.md "Partitions")
 *   VNPU_PERF      1: the cost model (src/perf/, docs/targets.md): each session loads the counting NPU library, runs
 *                  the target's HVX contexts as its NPU threads (on VNPU_NHVX host threads, default min(host cores,
 *                  contexts)), and every op is priced on the target VNPU_ARCH names (vnpu_htp_perf_read)
 *   VNPU_PERF_CALIB  the packet calibration the cost model reads (default: vnpu-calib-v69.tsv next to the NPU
 *                  libraries, built when clang targets Hexagon; without one, HVX resource bounds)
 * (VNPU_DMA_STRICT and VNPU_WINDOW_MB, the window: 3200 MiB from v75, 3000 MiB on v73, are the platform's,
 * src/vdsp/vdsp.h.)
 */
#ifndef VNPU_HTP_HOST_H
#define VNPU_HTP_HOST_H

#include "backend.h"
#include "htp-msg.h"
#include "vnpu.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VNPU_HTP_MAX_DEVICES 16

/* Whether name (len bytes) is "HTP<n>"; *index gets n. Says nothing about whether HTP<n> exists. */
bool vnpu_htp_device_parse(const char *name, size_t len, uint32_t *index);

/* Device HTP<index>, one object per process as ggml's backend registry holds its devices: the first get opens it
 * (its session on the virtual DSP: window, VTCM, NPU threads, the NPU library), later gets return the same device
 * with its session, and vnpu_device_free drops one holder, the last closing it. So a model, which places its
 * weights in the device's buffer types, and every context of it, which computes on it, share one session;
 * buffers may outlive the device (a freed buffer is unmapped from whatever devices are open). Thread-safe.
 * Errors: VNPU_STATUS_BAD_ARG (index >= VNPU_NDEV, a bad environment value), the platform's errors (library not
 * found: VNPU_STATUS_IO, ...). */
enum vnpu_status vnpu_htp_device_get(uint32_t index, struct vnpu_device **out);

/* *n gets the number of HTP devices that exist, VNPU_NDEV (HTP0..HTP<n-1>). Errors: VNPU_STATUS_BAD_ARG (a bad
 * environment value; *n is 0). */
enum vnpu_status vnpu_htp_device_count(uint32_t *n);

/* *size gets the bytes of HTP<index>'s address window, what its session maps at once (VNPU_WINDOW_MB, else its arch's:
 * 3200 MiB from v75, 3000 MiB on v73): the device memory a GGML front end reports. Does not open the device.
 * Errors: VNPU_STATUS_BAD_ARG (an index past VNPU_NDEV, a bad environment; logged; *size is 0). */
enum vnpu_status vnpu_htp_device_window(uint32_t index, size_t *size);

/* The buffer type the weights of HTP<index> belong in: HTP<index>-REPACK, or HTP<index> under
 * VNPU_HOSTBUF=1 (the device's get_weight_buffer_type), without opening the device. NULL (logged) for an index
 * past VNPU_NDEV or a bad environment. */
struct vnpu_buffer_type *vnpu_htp_weight_buffer_type(uint32_t index);

/* Whether an HTP<n>-REPACK buffer stores t tiled: a tensor (not a view) of a type with tiled NPU kernels and a shape
 * src/repack takes (htp_matmul_tiled_weight); every other tensor it stores flat. Static: type and shape only. A GGML
 * front end places the weights it says true for in REPACK. */
bool vnpu_htp_repack_tiles(const struct vnpu_tensor *t);

/* Trace every request of dev from now on into path, a Perfetto-loadable file (Chrome trace-event JSON):
 * one process per device, a track per NPU worker with op, HVX_COMP and DMA spans, a host track with the
 * requests. One file per process, shared by its devices, complete once the last of them is freed; docs/HTP.md
 * "Traces" reads it. Errors: VNPU_STATUS_IO (path), VNPU_STATUS_BAD_ARG (the process traces to another
 * file). A device already tracing keeps its file. */
enum vnpu_status vnpu_htp_device_trace(struct vnpu_device *dev, const char *path);

/* What the NPU answered for node in dev's last graph compute (src/htp/htp-msg.h's struct htp_op_rsp): the path a
 * MUL_MAT or MUL_MAT_ID took (mm_path, HTP_RSP_PATH_HVX or _HMX) and, on HMX, what narrowing its weights, activations
 * and results to FP16 overflowed and flushed. False when no op of that compute computed node (it ran elsewhere, was
 * fused away into another node's op, or the compute failed before its request was answered). Thread-safe. */
bool vnpu_htp_node_rsp(struct vnpu_device *dev, const struct vnpu_tensor *node, struct htp_op_rsp *out);

/* Fault injection for tests: the next request carries flags (HTP_REQ_INJECT_*, src/htp/htp-msg.h); on a group,
 * every member's (inject on a member's own HTP<m> device to fault one). */
void vnpu_htp_device_inject(struct vnpu_device *dev, uint32_t flags);

/* Run every op of dev from now on as n partitions one after another on dev's session (the requests of one op
 * with mdev_idx 0..n-1 of mdev_count n; n = 1: whole ops again): the output of a row-split group computed by one
 * session, for tests and the line-ownership checker (VNPU_MDEV_CHECK). Errors: VNPU_STATUS_BAD_ARG (n outside
 * 1..16). */
enum vnpu_status vnpu_htp_device_partitions(struct vnpu_device *dev, uint32_t n);

/* The line-ownership check of dev's partitions run one after another from now on, as VNPU_MDEV_CHECK sets it at the
 * open: 0 off, 1 the seed's rule, 2 DMA writes own their lines too (docs/HTP.md "Partitions"). Errors:
 * VNPU_STATUS_BAD_ARG (mode above 2). */
enum vnpu_status vnpu_htp_device_mdev_check(struct vnpu_device *dev, uint32_t mode);

/* True when dev is an HTP device or a group of them. */
bool vnpu_htp_device_is(const struct vnpu_device *dev);

/* The cost model's totals of a device (VNPU_PERF=1): modelled time on its target of what it ran since the last reset,
 * per op type. */
#define VNPU_HTP_PERF_BOUNDS 6 /* enum perf_bound: packets, resources, dma, hmx, fixed, cpu */
struct vnpu_htp_perf_row {
    char op[32]; /* "MUL_MAT", "RMS_NORM_MUL", ...; the output layer's MUL_MAT (node result_output) is "MUL_MAT output";
                  * an op the CPU ran is "CPU <op>" ("CPU MUL_MAT output"), priced on the SoC's CPU (bound cpu) */
    uint64_t count;                              /* ops */
    double us;                                   /* modelled microseconds */
    double bound_us[VNPU_HTP_PERF_BOUNDS];       /* of us, the ops each bound set */
    uint64_t dma_bytes, packets, hvx, hmx_tiles; /* hmx_tiles: 32x32x32 tile multiply-accumulates */
};
#define VNPU_HTP_PERF_ROWS 48
/* One NPU function (an HVX_SCOPE of src/htp), over every op. */
struct vnpu_htp_perf_scope {
    char name[48];
    uint64_t hvx;    /* HVX instructions it executed */
    uint64_t trips;  /* iterations of its hot loop (0: not counted) */
    double packets;  /* the model's packets of them */
    bool calibrated; /* priced by its calibration line (else at its threads' resource bounds) */
};
#define VNPU_HTP_PERF_SCOPES 64
struct vnpu_htp_perf {
    char target[8];     /* "v79" */
    uint32_t clock_mhz; /* the target's */
    uint32_t n_threads; /* NPU threads the ops ran on: the target's HVX contexts */
    bool calibrated;    /* a calibration file was read (else resource bounds) */
    uint64_t requests;
    double request_us;          /* requests x the target's request_us */
    double us;                  /* everything: the rows' us + request_us */
    uint64_t hvx, uncalibrated; /* HVX instructions, and of them those without a calibration line */
    uint32_t n_rows;
    struct vnpu_htp_perf_row rows[VNPU_HTP_PERF_ROWS];
    uint32_t n_scopes;
    struct vnpu_htp_perf_scope scopes[VNPU_HTP_PERF_SCOPES];
};
/* The totals of every open HTP device summed into *out (what a model's run costs on its devices: a layer or tensor
 * split runs them one after another; a row-split group's members run each op at once, priced once, by the member
 * that built its request), with the ops vnpu's scheduler ran on the CPU meanwhile (rows "CPU <op>"), then zeroed when
 * reset. false (out zeroed) when no open device runs under VNPU_PERF. */
bool vnpu_htp_perf_read(struct vnpu_htp_perf *out, bool reset);
/* The name of bound b (perf_bound_name). */
const char *vnpu_htp_perf_bound(uint32_t b);

/* The device numbers (the n of HTP<n>) of HTP device dev into index[], HTP_MAX_MDEV (16) room: one, or a group's
 * members in mdev order; returns how many. */
uint32_t vnpu_htp_device_members(struct vnpu_device *dev, uint32_t *index);

/* Whether name (len bytes) is spelled as a row-split group, HTP<a>[...] (vnpu_htp_group_get checks the rest). */
bool vnpu_htp_group_name(const char *name, size_t len);

/* Bytes of the device-list item at p: up to the next comma outside brackets ("HTP0[0,2],HTP1" has two items). */
size_t vnpu_htp_list_item_len(const char *p);

/* Open the NPU devices of list in its order into devs[] (room for max), *n getting how many: comma-separated items,
 * each HTP<n> (vnpu_htp_device_get), a row-split group HTP<a>[<members>] (vnpu_htp_group_get) or one XDNA partition
 * NPU1, NPU2Col4, ... (vnpu_xdna_device_open, xdna-host.h), case-sensitive as
 * llama.cpp's --device and the Qualcomm backend's GGML_HEXAGON_DEVICES spell them; commas inside brackets belong to
 * the group. With allow_cpu an item "CPU" is accepted and skipped (*named_cpu, when not NULL, says whether one was;
 * the caller opens it). A session belongs to one device of the list: HTP<n> named twice, alone or in a group
 * (HTP0,HTP0[0-1]), is an error. vnpu_device_free each. Errors: VNPU_STATUS_BAD_ARG (an empty item, an unknown name,
 * a device or CPU twice, more than max devices: what and where, logged), the devices' open errors; on an error
 * nothing stays open and *n is 0. */
enum vnpu_status vnpu_htp_devices_open(const char *list, bool allow_cpu, struct vnpu_device **devs, uint32_t max,
                                       uint32_t *n, bool *named_cpu);

/* Whether name (len bytes) is a group, "HTP<a>[<list>]": then the group's device, opened with its members (row
 * split: every op of the graph runs on the sessions of HTP<m> for each member m, each computing its partition of
 * the output rows, synchronized by fences; llama.cpp's Hexagon backend spells it so). The list is comma-separated
 * device numbers and ranges, "0-1", "0-3", "0,2", each member existing (< VNPU_NDEV) and named once, a the first
 * member. The group's buffer types are HTP<a>'s; every member maps its buffers. A separate object per get (its own
 * fences), its members shared with every other holder of HTP<m>. Errors: VNPU_STATUS_BAD_ARG (the grammar, a member
 * past VNPU_NDEV or named twice: what and where), the members' open errors. */
enum vnpu_status vnpu_htp_group_get(const char *name, size_t len, struct vnpu_device **out);

#endif /* VNPU_HTP_HOST_H */
