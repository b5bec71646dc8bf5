/*
 * The HTP device's internals, shared by the src/host files: the device, its memory for tensors that live
 * outside HTP buffers, the op table that turns nodes into NPU ops, requests, profile and trace.
 */
#ifndef VNPU_HTP_DEVICE_IMPL_H
#define VNPU_HTP_DEVICE_IMPL_H

#include "backend.h"
#include "htp-config.h"
#include "htp-host.h"
#include "htp-msg.h"
#include "tensor.h"
#include "vdsp.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

/* ---- memory (htp-buffer.c, htp-stage.c) ---- */

/* The buffer types of device index: "HTP<index>" (compute, KV cache: pinned in the window) or
 * "HTP<index>-REPACK" (weights). Static: they outlive devices, as buffers may. */
struct vnpu_buffer_type *htp_buffer_type(uint32_t index, bool repack);

/* A third of the window: a request holds the weight buffers an op run crosses (two, at a buffer boundary) next to
 * its pinned buffers. At the real window (3200 MiB) MBUF's 1 GiB is the smaller. */
#define HTP_BUFFER_WINDOW_SHARE 3

/* Bytes of the largest HTP buffer: the smallest of mbuf (VNPU_MBUF_MB, upstream's GGML_HEXAGON_MBUF), a
 * HTP_BUFFER_WINDOW_SHARE-th of the session window and the arch's largest mapping (v73: 2 GiB), rounded down to
 * the buffers' 128-byte alignment. Both HTP buffer types' max size (vnpu_buffer_type_max_size). */
size_t htp_buffer_max_size(size_t mbuf, size_t window, size_t max_mapping);

/* The shared-DDR buffer holding t's data and t's byte offset in it, or NULL when t lives in memory no
 * session can map (host buffers, the model file's mapping). pinned: the buffer stays mapped (an HTP<n> buffer not
 * of VNPU_BUFFER_USAGE_WEIGHTS). */
struct vdsp_buffer *htp_buffer_of(const struct vnpu_tensor *t, size_t *offset, bool *pinned);

/* Whether t's data is in the tiled layout: a whole tensor (not a view) in a REPACK buffer, of a type and shape
 * htp_matmul_tiled_weight takes. Its descriptor then carries HTP_TENSOR_TILED. */
bool htp_buffer_tensor_tiled(const struct vnpu_tensor *t);

/* Shared-DDR copies of tensors the NPU cannot map: weights are copied once and kept, other tensors are
 * copied in before each request that reads them and out after each request that writes them. */
struct htp_stage_entry {
    const void *host;        /* the tensor's memory */
    size_t size;             /* its bytes */
    struct vdsp_buffer *buf; /* where the copy is */
    size_t offset;
};

struct htp_stage {
    size_t chunk_size;               /* bytes of a chunk: htp_stage_chunk_size of the session's window */
    struct htp_stage_entry *weights; /* open addressing on host; cap_weights a power of two */
    uint32_t n_weights, cap_weights;
    struct vdsp_buffer **chunks; /* weight copies, bump allocated in the last chunk */
    uint32_t n_chunks;
    size_t chunk_used;
    struct vdsp_buffer **scratch_chunks; /* per-request copies, bump allocated from the first chunk again */
    uint32_t n_scratch, scratch_cur;
    size_t scratch_used;
};

/* Where the NPU reads t: its HTP buffer, else a weight copy (made now if needed), else a slot of the
 * request scratch (*copy true: the caller copies the data in before sending, a dst too, and out after for a
 * dst).
 * Errors: VNPU_STATUS_NO_MEMORY. */
enum vnpu_status htp_stage_place(struct htp_stage *st, const struct vnpu_tensor *t, struct vdsp_buffer **buf,
                                 size_t *offset, bool *pinned, bool *copy);
/* Bytes per staging chunk for a session window of window_size bytes: a request maps its chunks next to its
 * other buffers, so a chunk is at most an eighth of the window (and at most 16 MiB). */
size_t htp_stage_chunk_size(size_t window_size);
/* Start a request: the scratch is empty again. */
void htp_stage_reset(struct htp_stage *st);
/* Whether a weight copy of host memory [base, base + size) is kept. */
bool htp_stage_holds(const struct htp_stage *st, const void *base, size_t size);
/* Free every weight copy (the session must have unmapped their chunks); weights are copied again at their next
 * request. */
void htp_stage_free_weights(struct htp_stage *st);
/* Free every copy (the device's session must be closed: it may map them). */
void htp_stage_free(struct htp_stage *st);

/* ---- the device (htp-device.c) ---- */

/* Per htp opcode under VNPU_PROFILE. */
struct htp_prof_row {
    uint64_t count;
    uint64_t npu_usecs; /* the NPU's time for the op */
};

/* VNPU_MDEV_CHECK's modes. */
enum htp_mdev_check {
    HTP_MDEV_CHECK_OFF = 0,
    HTP_MDEV_CHECK_SEED = 1,  /* a line written by HVX or scalar stores has one device; DMA bytes never overlap */
    HTP_MDEV_CHECK_LINES = 2, /* DMA writes own their lines as stores do (kernels that split on lines) */
};

/* How the ops of a request run as partitions one after another (htp-mdev.c). */
struct htp_mdev_seq {
    uint32_t count;                             /* partitions per op (mdev_count); 1: whole ops, no partitions */
    struct vdsp_session *session[HTP_MAX_MDEV]; /* where partition i runs; NULL: the device's own session */
    uint32_t check;                             /* enum htp_mdev_check */
};

struct htp_device {
    struct vnpu_device base;
    uint32_t refs; /* holders: vnpu_htp_device_get calls not yet freed (htp-device.c's registry_lock) */
    uint32_t index;
    char name[16]; /* "HTP<index>" */
    const struct htp_config *cfg;
    struct vdsp_target target;
    uint32_t n_threads;      /* NPU workers of the session */
    uint32_t n_host_threads; /* host threads that run them (fewer only under the cost model, htp-perf.c) */
    struct vdsp_session *session;
    pthread_mutex_t lock; /* one request at a time (graph_compute, unmaps from buffer frees) */

    struct vdsp_buffer *req; /* the request block */
    struct htp_batch *batch; /* the request being built (htp-request.c) */
    uint32_t req_id;
    uint32_t inject;              /* HTP_REQ_INJECT_* for the next request */
    struct htp_mdev_seq mdev_seq; /* VNPU_MDEV_SEQ, vnpu_htp_device_partitions; check from VNPU_MDEV_CHECK */
    struct htp_stage stage;

    struct htp_prof_row prof[HTP_OP_COUNT];
    uint64_t prof_requests;
    double prof_host_us;                               /* requests, send to answer */
    uint64_t prof_mapped, prof_unmapped, prof_defrags; /* the window's, summed over requests (htp_rsp) */

    bool tracing; /* the process's trace file (htp-trace-export.c) gets this device's requests */

    struct htp_perf *perf; /* the cost model's state (VNPU_PERF=1, htp-perf.c), else NULL */
};

/* ---- the cost model (htp-perf.c) ---- */

/* Under VNPU_PERF=1, before d's session opens: the target (perf_target_arch), its HVX contexts as d's NPU threads
 * (run on d->n_host_threads host threads: VNPU_NHVX or min(host cores, contexts)) and the calibration
 * (VNPU_PERF_CALIB, else vnpu-calib-v69.tsv next to the NPU libraries; without one, resource bounds, said once).
 * Errors: VNPU_STATUS_BAD_ARG (no target row), the calibration's (VNPU_PERF_CALIB unreadable or malformed). */
enum vnpu_status htp_perf_open(struct htp_device *d);
void htp_perf_close(struct htp_device *d);

/* Price the ops of an answered request (its block req, its ops' opcodes ops[] and nodes[]; fenced: a group's) into
 * d's totals. */
void htp_perf_request(struct htp_device *d, const struct htp_req *req, const struct htp_op_desc *ops,
                      const struct vnpu_tensor *const *nodes, bool fenced);

/* Add d's totals into *sum (rows merged by op name; target, clock and threads taken from the first), then zero
 * d's when reset. false when d does not run under VNPU_PERF. */
bool htp_perf_collect(struct htp_device *d, struct vnpu_htp_perf *sum, bool reset);

/* Add the CPU's ops priced since the last reset (rows "CPU <op>", while a device runs under VNPU_PERF) into *sum, then
 * zero them when reset. */
void htp_perf_collect_cpu(struct vnpu_htp_perf *sum, bool reset);

/* Reopen d's session if a request faulted it (the caller holds d->lock). Errors: the platform's. */
enum vnpu_status htp_device_ready(struct htp_device *d);

/* Send the request in d->req (size bytes) and wait: reopens a faulted session first. Errors:
 * VNPU_STATUS_DEVICE (session lost), the platform's. The request's own status is in its block. */
enum vnpu_status htp_device_call(struct htp_device *d, size_t size);

/* An unmap-only request for buf on d (the caller holds d->lock); nothing when d's session is faulted (it is
 * reopened empty). */
void htp_device_unmap(struct htp_device *d, const struct vdsp_buffer *buf);

/* When d's stage keeps a weight copy of host memory [base, base + size), unmap every weight chunk of it from the n
 * devices mappers (d, or the members of d's group, which map d's chunks too) and drop the copies (the caller holds
 * their locks). */
void htp_stage_forget(struct htp_device *d, struct htp_device *const *mappers, uint32_t n, const void *base,
                      size_t size);

/* ---- row-split groups (htp-group.c) ---- */

/* A group device, "HTP0[0-1]" (vnpu_htp_group_get): one vnpu_device whose every op runs on all its members'
 * sessions, each computing its partition of the output (mdev), meeting at the fences of src/htp/htp-fence.h. The
 * members are the HTP<n> device objects (their sessions, request blocks, registry references); members[0] builds
 * each request once (supports_op, kernel_params, staging are its), and every member gets a copy with its mdev_idx. */
struct htp_group {
    struct vnpu_device base;
    char name[64];                             /* as written: "HTP0[0-1]" */
    uint32_t n;                                /* members, 1..HTP_MAX_MDEV */
    struct htp_device *members[HTP_MAX_MDEV];  /* members[k] is mdev k, in the order the list gives */
    struct htp_device *by_index[HTP_MAX_MDEV]; /* the same by ascending index: the order their locks are taken */
    struct vdsp_buffer *fence;                 /* the fence slots, one per member (htp-fence.h rule 1), pinned */
    uint32_t seq;                              /* fence_seq of the next request (htp-fence.h rule 3) */
};

bool htp_group_is(const struct vnpu_device *dev);
struct htp_group *htp_group_of(struct vnpu_device *dev);

/* Tell every open session that the buffer with this fd is going away (HTP_BUF_UNMAP). */
void htp_devices_unmap(const struct vdsp_buffer *buf);

/* ---- nodes to NPU ops (htp-ops.c, htp-prep-rows.c) ---- */

/* How one vnpu op reaches the NPU: the row of its family in the host op table. A family whose kernel_params
 * come from one plan function sets plan and n_src and may leave supports and prep NULL (htp_family_supports and
 * htp_family_prep apply the defaults below). */
struct htp_op_family {
    /* Optional: whether the family computes node with the device's resources; why (when not) in why[size].
     * NULL: whether plan finds kernel_params. */
    bool (*supports)(const struct htp_device *d, const struct vnpu_tensor *node, uint32_t opcode, char *why,
                     size_t size);
    /* Optional: fill op's kparams for node, whose supports passed, and name its operands in src[] and dst[]
     * (NULL where absent; the arrays come zeroed). fused is the MUL folded into an RMS_NORM (RMS_NORM_MUL) or
     * NULL. NULL: node->src[0..n_src) are the sources, node the dst, and plan fills the kparams. */
    void (*prep)(const struct htp_device *d, const struct vnpu_tensor *node, const struct vnpu_tensor *fused,
                 uint32_t opcode, struct htp_op_desc *op, const struct vnpu_tensor **src,
                 const struct vnpu_tensor **dst);
    /* Optional (needed where supports or prep is NULL): node's struct <op>_kparams into kparams (the size of
     * htp_op_desc's, which the plan clears first); false, with why, when no plan fits the device. A pure
     * function of types, shapes, strides, op params and the device's resources, so supports_op and the request
     * agree. */
    bool (*plan)(const struct htp_device *d, const struct vnpu_tensor *node, void *kparams, char *why, size_t size);
    uint32_t n_src; /* sources the default prep names */
};

/* The family's supports, or its default (htp-supports.c). */
bool htp_family_supports(const struct htp_op_family *f, const struct htp_device *d, const struct vnpu_tensor *node,
                         uint32_t opcode, char *why, size_t size);
/* The family's prep, or its default (htp-supports.c). */
void htp_family_prep(const struct htp_op_family *f, const struct htp_device *d, const struct vnpu_tensor *node,
                     const struct vnpu_tensor *fused, uint32_t opcode, struct htp_op_desc *op,
                     const struct vnpu_tensor **src, const struct vnpu_tensor **dst);

/* The NPU opcode of node (HTP_OP_COUNT when no NPU kernel computes it) and its family. */
uint32_t htp_op_of(const struct vnpu_tensor *node, const struct htp_op_family **family);

/* The device's supports_op, with the VNPU_VERBOSE line. */
bool htp_supports_op(const struct htp_device *d, const struct vnpu_tensor *node);

/* Whether nodes[i] (an RMS_NORM) and nodes[i + 1] (a MUL of it, MUL(norm, w)) run as one RMS_NORM_MUL and compute
 * the same bytes as the pair (htp-supports.c says when). At compute time: it compares the nodes' addresses. */
bool htp_can_fuse_rms_norm_mul(const struct htp_device *d, struct vnpu_tensor *const *nodes, int n, int i);

extern const struct htp_op_family htp_family_binary;
extern const struct htp_op_family htp_family_unary;
extern const struct htp_op_family htp_family_act;
extern const struct htp_op_family htp_family_matmul;
extern const struct htp_op_family htp_family_matmul_id;

/* Whether a weight of this type and shape is stored tiled in REPACK buffers (htp-prep-matmul.c): its type has
 * tiled matmul kernels and src/repack takes the shape. */
bool htp_matmul_tiled_weight(enum vnpu_type type, const int64_t ne[VNPU_MAX_DIMS]);

/* Whether the MUL_MAT node (supported by htp_family_matmul) runs on HMX, its weight tiled or not
 * (htp-prep-matmul-hmx.c: VNPU_MM_PATH and the rule); if so, kp gets its plan. */
struct matmul_kparams;
bool htp_matmul_hmx_pick(const struct htp_device *d, const struct vnpu_tensor *node, bool tiled,
                         struct matmul_kparams *kp);
extern const struct htp_op_family htp_family_cpy;
extern const struct htp_op_family htp_family_get_rows;
extern const struct htp_op_family htp_family_set_rows;
extern const struct htp_op_family htp_family_rope;
extern const struct htp_op_family htp_family_softmax;
extern const struct htp_op_family htp_family_flash_attn;

/* ---- requests (htp-request.c), trace (htp-trace-export.c) ---- */

struct htp_batch;

/* The graph_compute of device d, or of group g (d is then g->members[0]; the caller holds every member's lock):
 * each request built once and sent to every member. */
enum vnpu_status htp_graph_compute(struct htp_device *d, struct htp_group *g, struct vnpu_tensor **nodes, int n_nodes);
/* Bytes of the request block: header, HTP_MAX_BUFS buffers, HTP_MAX_TENSORS tensors, HTP_MAX_OPS ops
 * and profiles, and the trace area of n_threads threads. */
size_t htp_request_size(uint32_t n_threads, bool perf);
void htp_batch_free(struct htp_batch *b); /* NULL is a no-op */
/* The NPU's response to node's op in d's graph compute under way or last (the caller holds d->lock) into *out; false
 * when no op of it computed node. */
bool htp_request_node_rsp(const struct htp_device *d, const struct vnpu_tensor *node, struct htp_op_rsp *out);

/* Run the request built in d->req (size bytes, mdev_count 1; its buffers' host mappings in vbufs, the node of each
 * op in op_node for messages) op by op, each op as seq->count one-op requests with mdev_idx 0..count-1 in turn,
 * partition i on seq->session[i] (NULL: d's own session, reopened after a fault). Every session must be able to
 * map the request's buffers (they are the same shared DDR). The block is left as built, its response that of the
 * whole request: the first failing partition's status and message with failed_op its op, per-op times summed over
 * the partitions, per-op responses merged over them (htp_op_rsp_merge). Traces are not recorded. With seq->check,
 * each op's partitions first run on outputs filled with a poison pattern (an output that overlaps a source: its own
 * bytes) while the session logs its DMA writes, and the bytes each changed or DMA-wrote are merged per 128-byte line;
 * two devices on one line (docs/HTP.md "Partitions") is an error naming the op, the tensor, the line and both
 * devices, before the outputs are restored and the partitions run for the result. Each one-op request carries
 * HTP_REQ_MDEV_ALONE (no fences: its peers run before or after it). What a row-split group (HTP0[0-1]) sends its
 * requests through under VNPU_MDEV_CHECK, partition k on member k's session.
 * Errors: VNPU_STATUS_DEVICE (a partition failed, the check found a shared line, or an op's partitions answered
 * different matmul paths; logged), VNPU_STATUS_NO_MEMORY (the check's copies), the platform's. */
enum vnpu_status htp_mdev_run(struct htp_device *d, const struct htp_mdev_seq *seq, size_t size,
                              const struct vdsp_buffer *const *vbufs, const struct vnpu_tensor *const *op_node);

/* Merge r, one partition's response to an op (a group member's, or htp_mdev_run's in turn), into *sum, the op's
 * response so far (first: r is the first partition's, and becomes it). Each partition narrows to FP16 only its share
 * of the weights and of the results, so the SRC0 and DST counts add up (saturating at UINT32_MAX, as the NPU's);
 * every partition with a share narrows all of the activations, so the SRC1 counts are the largest partition's, not
 * their sum; each max_abs is the largest. The op's response is then the one device's alone. False when r's mm_path is
 * not sum's: the partitions of an op run one plan, so they must agree (the caller logs it). */
bool htp_op_rsp_merge(struct htp_op_rsp *sum, const struct htp_op_rsp *r, bool first);

/* Trace records room per NPU thread per request. */
#define HTP_TRACE_RECORDS 8192

/* A request on the cost model's timeline (VNPU_PERF): where it starts on the modelled clock of the process (the
 * requests of every device one after another, a group's members at once) and its ops' modelled times. */
struct htp_trace_model {
    double start_us;   /* the request's send */
    double request_us; /* the target's round trip, half before the ops and half after */
    uint32_t n_ops;
    const double *op_us; /* [n_ops] */
};

/* The modelled timeline of the request d last priced (htp_perf_request); NULL without VNPU_PERF. */
const struct htp_trace_model *htp_perf_last(const struct htp_device *d);

/* Append the trace of one answered request: its block, the host times (microseconds on the monotonic
 * clock) it was sent and answered, and the nodes of its ops (names for the op spans). model: NULL, or the request on
 * the cost model's timeline, which the trace then shows instead of the host's: each op at its modelled start and
 * length, the records inside it stretched to fit. */
void htp_trace_request(struct htp_device *d, const struct htp_req *req, double t_send_us, double t_recv_us,
                       const struct vnpu_tensor *const *op_nodes, const struct htp_trace_model *model);
/* Add d to the process's trace file path (opened by the first device, one file per process: another path
 * is VNPU_STATUS_BAD_ARG; VNPU_STATUS_IO when it cannot be written): its process and thread names. Remove
 * it; the last device out completes the file. */
enum vnpu_status htp_trace_open(struct htp_device *d, const char *path);
void htp_trace_close(struct htp_device *d);

/* Shape and type text for verbose lines: "64:1:1:1 x 64:1:1:1 -> 64:1:1:1", "f32 x f32 -> f32". */
void htp_node_dims(const struct vnpu_tensor *node, char *dims, size_t dims_size, char *types, size_t types_size);

#endif /* VNPU_HTP_DEVICE_IMPL_H */
