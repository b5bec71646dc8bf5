/*
 * The message interface between the CPU side (src/host) and the NPU side (src/htp): the only thing the two
 * halves share. Plain fixed-size little-endian structs, as the real backend's htp-ops.h.
 *
 * A request is one block of shared DDR, written by the host and answered in place by the NPU:
 *
 *   struct htp_req                      header, then at the offsets it gives:
 *   struct htp_buf_desc   [n_bufs]      the DDR buffers the batch touches (mapped by the NPU)
 *   struct htp_tensor_desc[n_tensors]   tensors: buffer index + byte offset, type, ne, nb
 *   struct htp_op_desc    [n_ops]       op nodes: opcode, params, kernel_params, src/dst tensor indices
 *   struct htp_op_prof    [n_ops]       written by the NPU: per-op time
 *   struct htp_op_rsp     [n_ops]       written by the NPU for every op it ran: matmul path, FP16 range
 *   struct htp_trace_evt  [n_threads][n_trace]   written by the NPU when tracing
 *   struct htp_thread_perf[n_ops][n_threads]     written by a counting NPU library (HTP_REQ_PERF)
 *   struct htp_perf_names                        its scope names, with them
 *
 * The response (status, failing op, message, counts) is written into struct htp_rsp inside the header.
 * Device addresses never cross: tensors are (buffer index, offset) and the NPU resolves them after mapping.
 */
#ifndef VNPU_HTP_MSG_H
#define VNPU_HTP_MSG_H

#include <stdint.h>

#define HTP_MSG_VERSION    8
#define HTP_MAX_BUFS       16   /* distinct buffers per request (HTP_OP_MAX_BUFS) */
#define HTP_MAX_TENSORS    8192 /* u16 indices */
#define HTP_MAX_OPS        1024 /* ops per request (GGML_HEXAGON_OPBATCH's default) */
#define HTP_MAX_SRC        6
#define HTP_MAX_DST        2
#define HTP_MAX_PARAMS     16 /* int32 words of op params (a copy of GGML's op_params) */
#define HTP_MAX_KPARAMS    32 /* int32 words (128 bytes) of kernel_params, precomputed by the host */
#define HTP_MAX_DIMS       4
#define HTP_MAX_NTHREADS   10 /* NPU worker threads (HTP_MAX_NTHREADS) */
#define HTP_NO_TENSOR      0xFFFFu
#define HTP_STATUS_MSG_LEN 160
#define HTP_MAX_MDEV       16 /* sessions sharing the ops of one request (a row-split group) */

/* Request status, as the real backend numbers them (OK is 1). */
enum htp_status {
    HTP_STATUS_OK = 1,
    HTP_STATUS_INTERNAL_ERR = 2,
    HTP_STATUS_NO_SUPPORT = 3,
    HTP_STATUS_INVAL_PARAMS = 4,
    HTP_STATUS_VTCM_TOO_SMALL = 5,
    HTP_STATUS_FAULT = 6,         /* a memory fault or a DMA descriptor outside VTCM / the window */
    HTP_STATUS_DMA_LEAK = 7,      /* strict DMA: an op ended with pushes never popped */
    HTP_STATUS_DMA_FULL = 8,      /* a push found its thread's DMA queue full (dma-queue.h): the op's plan keeps more in
                                     flight than a queue holds; the op fails, the session serves on */
    HTP_STATUS_FENCE_TIMEOUT = 9, /* a device of the group did not arrive at a barrier within fence_timeout_us
                                     (htp-fence.h; the real backend says INTERNAL_ERR) */
};

/* Element types on the NPU: GGML's ids (the host static_asserts they match vnpu_type). */
enum htp_type {
    HTP_TYPE_F32 = 0,
    HTP_TYPE_F16 = 1,
    HTP_TYPE_Q4_0 = 2,
    HTP_TYPE_Q4_1 = 3,
    HTP_TYPE_Q8_0 = 8,
    HTP_TYPE_Q2_K = 10,
    HTP_TYPE_Q3_K = 11,
    HTP_TYPE_Q4_K = 12,
    HTP_TYPE_Q5_K = 13,
    HTP_TYPE_Q6_K = 14,
    HTP_TYPE_IQ4_NL = 20,
    HTP_TYPE_I32 = 26,
    HTP_TYPE_I64 = 27,
    HTP_TYPE_BF16 = 30,
    HTP_TYPE_MXFP4 = 39,
    HTP_TYPE_Q1_0 = 41,
    HTP_TYPE_Q2_0 = 42,
};

/* NPU opcodes. The host maps GGML ops (and fusions) onto them. */
enum htp_op {
    HTP_OP_ADD = 0,
    HTP_OP_SUB,
    HTP_OP_MUL,
    HTP_OP_DIV,
    HTP_OP_SCALE,
    HTP_OP_RMS_NORM,
    HTP_OP_RMS_NORM_MUL, /* RMS_NORM followed by MUL with a weight row, fused */
    HTP_OP_UNARY_SILU,
    HTP_OP_UNARY_GELU,
    HTP_OP_GLU_SWIGLU,
    HTP_OP_ROPE,
    HTP_OP_SOFT_MAX,
    HTP_OP_GET_ROWS,
    HTP_OP_SET_ROWS,
    HTP_OP_CPY,
    HTP_OP_FLASH_ATTN_EXT,
    HTP_OP_MUL_MAT,
    HTP_OP_MUL_MAT_ID,
    HTP_OP_COUNT,
};

/* Buffer flags. */
#define HTP_BUF_PINNED 1u /* keep mapped across requests (KV cache, compute buffers); weights are unpinned */
#define HTP_BUF_UNMAP  2u /* the host is freeing it: unmap it if mapped; no tensor of the request may use it */

struct htp_buf_desc {
    int32_t fd;     /* the shared buffer's fd, mapped by the NPU into its window */
    uint32_t flags; /* HTP_BUF_* */
    uint64_t size;  /* bytes */
};

/* Tensor flags. */
#define HTP_TENSOR_TILED 1u /* weight stored in the tiled REPACK layout of its type (seed, "Tiled Weight Formats") */

struct htp_tensor_desc {
    uint32_t offset; /* byte offset of element [0,0,0,0] in buffer bi */
    uint16_t bi;     /* index into the request's buffers */
    uint16_t flags;  /* HTP_TENSOR_* */
    uint32_t type;   /* enum htp_type */
    uint32_t ne[HTP_MAX_DIMS];
    uint32_t nb[HTP_MAX_DIMS];
};

/* Op flags. */
#define HTP_OP_SKIP_COMPUTE 1u /* VNPU_OPSTAGE without the compute bit: dispatch and DMA only */

struct htp_op_desc {
    uint32_t opcode; /* enum htp_op */
    uint32_t flags;  /* HTP_OP_* */
    int32_t params[HTP_MAX_PARAMS];
    uint32_t kparams[HTP_MAX_KPARAMS]; /* the op's struct <op>_kparams (src/htp/<op>-ops.h) */
    uint16_t src[HTP_MAX_SRC];         /* tensor indices, HTP_NO_TENSOR when absent */
    uint16_t dst[HTP_MAX_DST];
};

struct htp_op_prof {
    uint32_t usecs;
    uint32_t flush_lines; /* 128-byte lines the op's dirty-tensor flush cleaned (htp-dcache.h), HTP_FLUSH_ALL for the
                             whole cache, 0 without a group: what the cost model prices */
    uint64_t cycles;
};

#define HTP_FLUSH_ALL 0xFFFFFFFFu

/* One trace record: a start or stop of an event on one NPU thread (hex-profile's format). */
struct htp_trace_evt {
    uint32_t cycles; /* low 32 bits of the NPU cycle counter */
    uint16_t id;     /* enum htp_trace_id */
    uint16_t info;   /* bit 15: stop; bits 0..14: row, chunk or token index */
};

/* The events the kernels record (hex-profile's ids). */
enum htp_trace_id {
    HTP_TRACE_DMA = 0,
    HTP_TRACE_L2FLUSH = 1, /* a dirty-tensor flush before a fence (htp-dcache.h), on thread 0; info = op index */
    HTP_TRACE_OP = 2,      /* the whole op, on thread 0; info = op index */
    HTP_TRACE_FENCE = 4,   /* a group barrier's wait (htp-fence.h), on thread 0; info = its sequence number (ASSUMPTION:
                              hex-profile's value of FENCE is not in our notes; 4 is the first free id) */
    HTP_TRACE_HVX_COMP = 20,
    HTP_TRACE_HVX_A_QUANT = 21,
    HTP_TRACE_HVX_W_DEQUANT = 23,
    HTP_TRACE_HMX_COMP = 40,
};

#define HTP_TRACE_STOP 0x8000u

/* What one NPU thread did in one op, counted by a counting NPU library (libvnpu-htp-vNN-counted.so, the counting
 * build of src/hvx: hvx-count.h) for the cost model (src/perf/). Threads are the op's logical threads 0..n_threads-1
 * of the session, whatever host threads ran them. */
#define HTP_PERF_HVX_CLASSES 11 /* enum hvx_class */
#define HTP_PERF_HMX_OPS     3  /* enum hmx_op */
#define HTP_PERF_SCOPES      8  /* a thread's busiest scopes in an op; the rest count under scope 0 */
#define HTP_PERF_MAX_SCOPES  64 /* HVX_MAX_SCOPES: names a request reports */
#define HTP_PERF_NAME_LEN    48

struct htp_thread_perf {
    uint32_t hvx[HTP_PERF_HVX_CLASSES];    /* HVX instructions executed, by class */
    uint32_t hmx[HTP_PERF_HMX_OPS];        /* HMX tile operations, by op */
    uint8_t scope_id[HTP_PERF_SCOPES];     /* scopes (htp_perf_names) of scope_n[]; 0 = "other" */
    uint32_t scope_n[HTP_PERF_SCOPES];     /* HVX instructions executed in each */
    uint32_t scope_trips[HTP_PERF_SCOPES]; /* iterations of each one's hot loop (HVX_SCOPE_TRIP; 0: not counted) */
    uint32_t dma_desc;                     /* DMA descriptors pushed */
    uint32_t jobs;                         /* worker jobs the thread ran (0: it had no work in the op) */
    uint64_t dma_to_vtcm;                  /* bytes its DMA queue moved from DDR into VTCM */
    uint64_t dma_to_ddr;                   /* from VTCM into DDR */
    uint64_t dma_vtcm_to_vtcm;             /* within VTCM */
};

/* The names of the scopes the counting library registered (hvx_scope_name), written with the counts. */
struct htp_perf_names {
    uint32_t n;
    uint32_t pad;
    char name[HTP_PERF_MAX_SCOPES][HTP_PERF_NAME_LEN];
};

/* The path a MUL_MAT or MUL_MAT_ID op took (htp_op_rsp.mm_path); NONE for the other ops. */
enum htp_rsp_path {
    HTP_RSP_PATH_NONE = 0,
    HTP_RSP_PATH_HVX = 1, /* F32 (or int8) arithmetic on HVX */
    HTP_RSP_PATH_HMX = 2, /* activations, weights and results narrowed to FP16 (src/htp/hmx-mm.h) */
};

/* The operands an op narrows to FP16 (htp_op_rsp.fp16[]): the HMX path's weights, activations and output tiles. */
enum htp_fp16_operand {
    HTP_FP16_SRC0 = 0, /* the weights, after their dequantization to f32 (F16 weights: none, they are FP16) */
    HTP_FP16_SRC1 = 1, /* the f32 activations */
    HTP_FP16_DST = 2,  /* the f32 accumulators stored as FP16 output tiles */
    HTP_FP16_N = 3,
};

/* What the narrowing of one operand to FP16 (nearest even) did over the whole op. n_overflow: finite values of
 * magnitude >= 65520 (they became infinities; DST: results that are infinities, as only the stored tile is seen);
 * n_flush: nonzero values of magnitude <= 2^-25 (they became zeros; DST: 0, HMX's accumulators are not seen);
 * max_abs: the largest finite magnitude narrowed (DST: of the stored results). Counts saturate at UINT32_MAX. */
struct htp_fp16_range {
    uint32_t n_overflow;
    uint32_t n_flush;
    float max_abs;
    uint32_t pad;
};

/* An op's response, written by the NPU for every op it ran (zeros but for what the op fills). */
struct htp_op_rsp {
    uint32_t mm_path; /* enum htp_rsp_path */
    uint32_t pad;
    struct htp_fp16_range fp16[HTP_FP16_N]; /* enum htp_fp16_operand; zeros on HVX and for the other ops */
};

struct htp_rsp {
    uint32_t status;    /* enum htp_status */
    uint32_t failed_op; /* index of the op that failed (status != OK) */
    uint32_t n_ops_done;
    uint32_t usecs; /* whole request on the NPU */
    uint64_t cycles;
    uint64_t cycles_start;              /* the NPU cycle counter when the request started: the trace records' base */
    uint32_t n_trace[HTP_MAX_NTHREADS]; /* trace records written per thread */
    uint32_t n_mapped;                  /* buffers the request mapped into the window (src/htp/main.c's rules) */
    uint32_t n_unmapped;                /* mappings it dropped to make room (or for HTP_BUF_UNMAP) */
    uint32_t n_defrags;                 /* times it defragmented the window (dropped its own unpinned mappings) */
    uint32_t pad;
    char message[HTP_STATUS_MSG_LEN]; /* why it failed, NUL-terminated */
};

/* Request flags. */
#define HTP_REQ_PROFILE          1u /* fill htp_op_prof */
#define HTP_REQ_TRACE            2u /* fill the trace area */
#define HTP_REQ_INJECT_LOAD      4u /* fault injection (tests): in op 0, a worker loads from device address 0 */
#define HTP_REQ_INJECT_DMA       8u /* fault injection (tests): in op 0, a worker pushes a DMA row ending past VTCM */
/* Fault injection (tests): in op 0 the device does not arrive at the pre-op barrier; it waits, without signalling,
 * until a peer reports the timeout (htp-fence.h), as a device that stopped answering would. */
#define HTP_REQ_INJECT_STALL     16u
/* Partition skews (tests of the line-ownership checker, VNPU_MDEV_CHECK) in every op of a request with mdev_count > 1
 * (htp_mdev_range, src/htp/htp-ctx.h). ROW: a device past 0 starts one unit early, off by one row into the device
 * before. LINE: chunks of half the units the line rule asks, so partitions split 128-byte lines. */
#define HTP_REQ_INJECT_MDEV_ROW  32u
#define HTP_REQ_INJECT_MDEV_LINE 64u
/* The request is one partition (mdev_idx of mdev_count) run alone, its peers one after another on this or other
 * sessions (the host's htp_mdev_run: tests and the line-ownership checker): no fences, no barriers, no flush. */
#define HTP_REQ_MDEV_ALONE       128u
/* Fill the htp_thread_perf area and the scope names (a counting NPU library; any other answers NO_SUPPORT). */
#define HTP_REQ_PERF             256u

#define HTP_NO_FENCE 0xFFFFFFFFu /* fence_bi of a request with mdev_count 1 */

struct htp_req {
    uint32_t version; /* HTP_MSG_VERSION */
    uint32_t id;
    uint32_t flags; /* HTP_REQ_* */
    uint32_t n_bufs;
    uint32_t n_tensors;
    uint32_t n_ops;
    uint32_t n_trace;    /* trace records room per thread */
    uint32_t mdev_idx;   /* this session's place among the sessions that share every op of the request, 0.. */
    uint32_t mdev_count; /* ..mdev_count - 1 (1..HTP_MAX_MDEV; 1: the session runs the ops alone). Each session
                            computes its partition of every op's output (seed, "Multi-Device Partitioning") */
    /* The group's fences (mdev_count > 1; htp-fence.h): slot d (one line) of device d at byte fence_off + 128 d of
     * buffer fence_bi (pinned; every member maps it). The request's barriers have the sequence numbers fence_seq + 1,
     * fence_seq + 2, ...: two per op, so the next request's fence_seq is fence_seq + 2 n_ops. A barrier waits at most
     * fence_timeout_us for a peer. */
    uint32_t fence_bi;
    uint32_t fence_off;
    uint32_t fence_seq;
    uint32_t fence_timeout_us;
    uint32_t off_bufs, off_tensors, off_ops, off_prof, off_trace; /* byte offsets from the block start */
    uint32_t off_op_rsp;                                          /* struct htp_op_rsp[n_ops], always written */
    uint32_t off_perf, off_perf_names; /* HTP_REQ_PERF: htp_thread_perf[n_ops][n_perf_threads], htp_perf_names */
    uint32_t n_perf_threads;           /* threads per op in the perf area: the session's n_threads */
    uint32_t pad_perf;
    struct htp_rsp rsp;
};

#endif /* VNPU_HTP_MSG_H */
