/*
 * The emulated AIE tile array: a design (ObjectFifos between tiles, mem-tile links, workers on compute tiles, a
 * runtime sequence of shim transfers) is described, built (every hardware rule checked once, here), then run on
 * DDR buffers, as an IRON Program is placed, compiled and run on an NPU (seed 003).
 *
 * Rules (each is named where the code enforces it, and a refusal names it in its message):
 *  1. Tiles: column < the partition's n_cols; row 0 shim, 1 mem tile, 2..5 compute tiles.
 *  2. Routing (seed 003, "Routing / placement constraints"): a compute tile's DMA reaches only its own column's
 *     mem tile and the compute tiles next to it (same column, row +-1; same row, column +-1); a shim reaches only
 *     its own column's mem tile; data that crosses columns goes mem tile to mem tile, or in a mem tile's broadcast
 *     (an ObjectFifo of two consumers or more), which reaches compute tiles of any column (seed 003: "cross-column
 *     data goes through mem-tile broadcast"; mlir-aie's whole_array GEMM broadcasts A from one column's mem tile to
 *     a row of compute tiles).
 *  3. Memory: the buffers a tile holds (an ObjectFifo's depth x element on its producer's side, unless the
 *     producer is a shim, and on each consumer's, unless the consumer is a shim; a link's buffers once, on its mem
 *     tile) plus, on a compute tile, each worker's stack fit the tile's memory (64 KB L1, 512 KB L2).
 *  4. Depth: 1 <= depth <= XDNA_OBJFIFO_MAX_DEPTH for an ObjectFifo with a compute-tile endpoint; a deeper one
 *     belongs on a mem tile (seed 003), where depth is bounded by rule 3 only.
 *  5. BDs: every DMA side of an ObjectFifo (a non-shim producer's or consumer's) takes depth BDs on its tile; a
 *     tile's BDs <= its limit (16, 48, 16). A runtime transfer takes one shim BD while it runs.
 *  6. Access patterns (taps): at most the tile type's dims per BD (compute 3, mem 4, shim 3); each outer size
 *     1..XDNA_BD_MAX_WRAP and stride < XDNA_BD_MAX_STRIDE words; the innermost dimension has stride 1 and moves a
 *     whole number of 32-bit words, at most XDNA_BD_MAX_WRAP words when there are outer ones (the wrap counts the
 *     DMA's 32-bit words: 2046 bf16 elements fit; a pattern of one dimension is a plain length); one BD moves at
 *     most the tile type's max_transfer_words; the pattern stays inside its buffer. A transfer needing a fourth dim on
 * a compute or shim tile is refused with the advice of seed 003: route it L3 -> L2 -> L1 and put the reshape on the mem
 * tile.
 *  7. ObjectFifo protocol: a worker acquires elements of a fifo in order and releases them in the order it
 *     acquired them, never more than it holds and never more than depth at once; a producer's acquired element is
 *     a free buffer, a consumer's a full one; a kernel reads and writes only elements its worker holds at the call.
 *     Strict mode (VNPU_XDNA_STRICT=1 at the device, or the flag below): an element a producer acquires is filled
 *     with poison (0xFF bytes: NaN in bf16 and f32) and an element a consumer releases is poisoned, so a kernel
 *     that writes too little or reads a buffer it no longer holds computes poison, which the tests detect.
 *  8. Dataflow: a run ends when every worker's program and every runtime transfer is done; a state in which no
 *     worker, DMA or transfer can progress is a deadlock, reported with what each party waits for. The components
 *     (below) run at once, so a runtime fill may not read a DDR buffer that another component drains into (refused
 *     when the run starts; which bytes it read would depend on the host's threads).
 *  9. DMA channels: each ObjectFifo end on a tile takes one of that tile's DMA channels for the whole design, as
 *     mlir-aie allocates them: a producer end an MM2S channel (one for all the consumers of a broadcast), a consumer
 *     end an S2MM channel; on a shim a fill is MM2S (DDR to the array) and a drain S2MM. A tile has 2 + 2 (compute,
 *     shim) or 6 + 6 (mem tile) channels (xdna-arch.h). Between neighbouring compute tiles the array always moves
 *     by DMA (mlir-aie's via_DMA): the shared-memory ObjectFifo, which takes no channel, is not modelled.
 *
 * Time (the modelled timeline, in array cycles from the run's start; deterministic, the host's threads and speed never
 * enter it): a DMA channel moves one element at a time, in its fifo end's order, starting when the element is ready at
 * its producer (released by the worker, arrived at a link's input, or at once from DDR), when every consumer has a
 * free buffer (the element that held it released or sent on) and when the producer's and every consumer's channel
 * are free; it takes the element's stream bytes / the partition's stream_bytes_per_cycle, and at a shim at least its
 * DDR bytes / the column's share of the partition's DDR bandwidth (the bandwidth split evenly over the columns whose
 * shims the design uses). A worker's acquire waits until its elements are full (consumer) or free (producer), a
 * kernel call takes the cycles the kernel reports (xdna_call.cycles), acquires and releases take none. A component
 * ends with its last event, or when its columns' DDR bytes at their share are through if that is later; the run
 * when its last component ends.
 *
 * Taps are IRON's TensorAccessPattern: an offset and (size, stride) pairs, outermost first, in elements of the
 * fifo's (or the DDR buffer's) element size; the element at multi-index (i0, ..., in-1) is at offset +
 * sum(ij * strides[j]); the elements are visited in that index order, outermost slowest, and moved as one stream.
 * A side with no tap moves its buffer in order (one dimension).
 *
 * Execution is deterministic: a scheduler steps each worker's program and each DMA until it blocks, in a fixed
 * order, as long as any can progress (rule 8). A design's components (the parties that share no tile, directly or
 * through others: each column of the matmul design) never interact, so each is stepped on its own, components on
 * the host's cores at once (one host thread a component at most): the result, the statistics and a refusal's
 * message (the lowest-numbered failing component's) are the same whatever the threads. Data moves when both its sides
 * are ready (a full producer element and a free consumer buffer for each consumer, broadcast); a link on a mem tile
 * forwards, splits (one input element into the outputs' elements, at offsets) or joins (the inputs' elements into one
 * output element, at offsets).
 */
#ifndef VNPU_XDNA_ARRAY_H
#define VNPU_XDNA_ARRAY_H

#include "vnpu.h"
#include "xdna-arch.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define XDNA_MAX_CONSUMERS         32   /* an ObjectFifo's consumers (a broadcast to every compute tile of NPU2) */
#define XDNA_MAX_CALL_BUFS         8    /* buffers one kernel call receives */
#define XDNA_MAX_CALL_ARGS         64   /* bytes of scalar arguments one kernel call receives */
#define XDNA_STACK_BYTES           1024 /* a worker's stack unless its kernel says more (IRON's default, 0x400) */
#define XDNA_POISON_BYTE           0xFF
#define XDNA_MAX_RUNTIME_TRANSFERS (1u << 20)   /* transfers of one runtime sequence */
#define XDNA_TAP_MAX_OFFSET        (1ull << 40) /* a tap's first element, at most: far past any buffer, no sum wraps */

struct xdna_design;

struct xdna_tile {
    uint8_t col, row;
};

/* An access pattern (IRON's TensorAccessPattern), above. n_dims 0 = the whole buffer in order. */
struct xdna_tap {
    uint32_t n_dims;
    uint32_t sizes[XDNA_BD_MAX_DIMS + 1]; /* +1: a pattern may ask for one more than any BD has (refused, rule 6) */
    int64_t strides[XDNA_BD_MAX_DIMS + 1];
    uint64_t offset;
};

/* One kernel call on a compute tile: the buffers of the elements its worker holds that the call names, in the
 * call's order, their sizes, and the call's scalar arguments (copied at xdna_worker_call). */
struct xdna_call {
    void *bufs[XDNA_MAX_CALL_BUFS];
    size_t buf_bytes[XDNA_MAX_CALL_BUFS];
    uint32_t n_bufs;
    const void *args;
    struct xdna_tile tile;
    uint64_t *macs;   /* the kernel adds the MACs its mmul calls issued (the cost model's count) */
    uint64_t *cycles; /* the kernel adds the array cycles the call takes on the hardware, as modelled (the timeline) */
};

/* A compute kernel: what it is, its stack, and its micro-kernel's shape (1 x 1 x 1 for a scalar kernel). */
struct xdna_kernel {
    const char *name;
    void (*fn)(const struct xdna_call *call);
    size_t stack_bytes;   /* 0 = XDNA_STACK_BYTES */
    uint32_t mac_dims[3]; /* r, s, t of its mmul (xdna-mmul.h), read from here, never written at call sites */
};

/* An element of a fifo a worker holds: the index-th (0 = oldest) of those it holds of fifo. */
struct xdna_call_buf {
    int fifo;
    uint32_t index;
};

/* What a run did, for the cost model: per tile, and per shim the DDR bytes each way; times on the timeline above, in
 * array cycles. */
struct xdna_tile_stats {
    uint64_t kernel_calls;
    uint64_t macs;          /* added by the kernels (xdna_call.macs) */
    uint64_t dma_in_bytes;  /* bytes written into the tile's memory by its DMA (S2MM) */
    uint64_t dma_out_bytes; /* bytes read from it by its DMA (MM2S); on a shim: DDR read / written below */
    uint64_t bds_run;       /* BDs the tile's DMA ran (one per element moved per side, one per runtime transfer) */
    uint64_t stall_steps;   /* scheduler rounds a worker of this tile was blocked on an acquire */
    double kernel_cycles;   /* its worker's kernel calls (xdna_call.cycles) */
    double wait_cycles;     /* its worker's waits in acquires */
    double chan_cycles[2][XDNA_MAX_CHANNELS]; /* each DMA channel busy, [0] S2MM, [1] MM2S (rule 9's numbering) */
};
struct xdna_run_stats {
    struct xdna_tile_stats tiles[XDNA_MAX_COLS][XDNA_ROWS];
    uint64_t ddr_read_bytes; /* by all shims */
    uint64_t ddr_write_bytes;
    uint64_t rounds;   /* scheduler rounds */
    double cycles;     /* the run's length: its last component's end */
    double ddr_cycles; /* the busiest column's DDR bytes at the column's share of the bandwidth */
};

/* The timeline's events of a run (xdna_design_trace), for a Perfetto trace: a worker's kernel call and its waits in
 * acquires, and every element a DMA channel moved (one event on the producer's channel and one on each consumer's). */
enum xdna_trace_kind {
    XDNA_TRACE_KERNEL,  /* a kernel call on a compute tile (kernel) */
    XDNA_TRACE_ACQUIRE, /* a worker waiting in an acquire of fifo (its next element: index) */
    XDNA_TRACE_MM2S,    /* element index of fifo leaving the tile on MM2S channel chan */
    XDNA_TRACE_S2MM,    /* element index of fifo arriving on S2MM channel chan */
};
struct xdna_trace_event {
    double t0, t1;    /* array cycles from the run's start */
    const char *name; /* the kernel's, or the fifo's (the design's strings: valid while it lives) */
    uint32_t index;   /* the element's number in its fifo, or the call's on its tile (from 0) */
    int16_t fifo;     /* -1 for a kernel call */
    uint8_t col, row, chan;
    uint8_t kind; /* enum xdna_trace_kind */
};
/* Where a design's runs append their events: the events of one run in component order, each component's in the order
 * the scheduler met them. Growable up to max_events (0: unbounded); a run that would pass it records none and sets
 * truncated. */
struct xdna_trace {
    struct xdna_trace_event *ev;
    size_t n, cap;
    size_t max_events;
    bool truncated;
};

/* Add every count of s to sum's (runs of one design or of several). */
void xdna_run_stats_add(struct xdna_run_stats *sum, const struct xdna_run_stats *s);

/* A new empty design for partition dev; strict: rule 7's poison. On error *out is NULL (VNPU_STATUS_NO_MEMORY). */
enum vnpu_status xdna_design_new(const struct xdna_device *dev, bool strict, struct xdna_design **out);
void xdna_design_free(struct xdna_design *d);

/* The message of the design's first error ("" if none): every builder call after an error is a no-op returning
 * the same status, so a caller may check once, at xdna_design_build. The message is also logged once. */
const char *xdna_design_error(const struct xdna_design *d);

/* An ObjectFifo named name (copied; at most 31 chars) from prod to cons[0..n_cons) (a broadcast when n_cons > 1),
 * depth elements of elem_count elements of elem_bytes (1, 2 or 4) bytes each. Returns its id (>= 0), or a
 * negative enum vnpu_status (VNPU_STATUS_BAD_ARG: rules 1, 2, 4, or a count out of range). */
int xdna_fifo_new(struct xdna_design *d, const char *name, struct xdna_tile prod, const struct xdna_tile *cons,
                  uint32_t n_cons, uint32_t depth, uint32_t elem_count, uint32_t elem_bytes);
/* The order in which the producer's DMA reads an element from its buffer (IRON's dims_to_stream), a tap over
 * elem_count elements; checked at build against the producer tile's BD (rule 6). Not on a shim producer (its
 * pattern is the runtime transfer's). */
enum vnpu_status xdna_fifo_dims_to_stream(struct xdna_design *d, int fifo, const struct xdna_tap *tap);
/* The order in which consumer cons_index's DMA writes the stream into its buffer (IRON's dims_from_stream_per_cons),
 * checked against the consumer tile's BD. */
enum vnpu_status xdna_fifo_dims_from_stream(struct xdna_design *d, int fifo, uint32_t cons_index,
                                            const struct xdna_tap *tap);

/* A mem-tile link (IRON's forward / split / join): the elements of in[0..n_in) arriving at mem tile `tile` (each
 * fifo's consumer there) become the elements of out[0..n_out) (each produced there). n_in == 1, n_out == 1, offsets
 * NULL: forward (the elements' counts must agree); n_in == 1: split (one part or more), out[i] is the input element's
 * elements [offsets[i], offsets[i] + its count); n_out
 * == 1: join, in[i] lands at offsets[i] of the output element. Offsets in elements; slices must be inside the
 * element and not overlap; element sizes must agree. */
enum vnpu_status xdna_link_new(struct xdna_design *d, struct xdna_tile tile, const int *in, uint32_t n_in,
                               const int *out, uint32_t n_out, const uint32_t *offsets);

/* A worker on compute tile `tile` (one per tile) and its program: acquire, release, call, and loops (loop_begin
 * count, ..., loop_end; nested up to 8). Returns the worker's id (>= 0) or a negative status. */
int xdna_worker_new(struct xdna_design *d, struct xdna_tile tile);
enum vnpu_status xdna_worker_acquire(struct xdna_design *d, int worker, int fifo, uint32_t n);
enum vnpu_status xdna_worker_release(struct xdna_design *d, int worker, int fifo, uint32_t n);
/* Call kernel k on bufs[0..n_bufs) (elements the worker holds at the call, rule 7) with args[0..args_bytes)
 * (copied). */
enum vnpu_status xdna_worker_call(struct xdna_design *d, int worker, const struct xdna_kernel *k,
                                  const struct xdna_call_buf *bufs, uint32_t n_bufs, const void *args,
                                  size_t args_bytes);
enum vnpu_status xdna_worker_loop_begin(struct xdna_design *d, int worker, uint32_t count);
enum vnpu_status xdna_worker_loop_end(struct xdna_design *d, int worker);

/* The runtime sequence, in order per shim: fill fifo (a shim producer) from DDR buffer ddr_index with tap (in
 * elements of the fifo's elem_bytes), or drain fifo (a shim consumer) into DDR buffer ddr_index. A transfer moves
 * whole elements: its tap's element count is a multiple of the fifo's elem_count. convert_f32_bf16 (fill only,
 * elem_bytes 2): the DDR buffer holds f32 and the shim writes bf16, rounded to nearest even (the tap counts DDR
 * elements, 4 bytes each). */
enum vnpu_status xdna_runtime_fill(struct xdna_design *d, int fifo, uint32_t ddr_index, const struct xdna_tap *tap,
                                   bool convert_f32_bf16);
enum vnpu_status xdna_runtime_drain(struct xdna_design *d, int fifo, uint32_t ddr_index, const struct xdna_tap *tap);

/* Check every rule that does not depend on data (1-6, and the programs' shape: a release of a fifo the worker
 * does not acquire, a call naming an element it cannot hold, an unbalanced loop) and lay out the tiles' memories.
 * VNPU_STATUS_BAD_ARG with the rule in the message (xdna_design_error). */
enum vnpu_status xdna_design_build(struct xdna_design *d);

/* Run a built design on DDR buffers ddr[0..n_ddr) of ddr_bytes[i] bytes (the runtime sequence's ddr_index
 * indexes them; each transfer's tap is checked to stay inside its buffer before anything moves). stats may be
 * NULL. A design may run any number of times. VNPU_STATUS_BAD_ARG for a tap outside its buffer,
 * VNPU_STATUS_DEVICE for a deadlock or a protocol breach at run time (rules 7, 8; the message says which). */
enum vnpu_status xdna_design_run(struct xdna_design *d, void *const *ddr, const size_t *ddr_bytes, uint32_t n_ddr,
                                 struct xdna_run_stats *stats);

/* Later runs of d append their timeline's events to t (NULL: none, the default); t outlives those runs. */
void xdna_design_trace(struct xdna_design *d, struct xdna_trace *t);

/* Bytes of tile (col, row)'s memory the built design uses (rule 3's sum), for reports and tests. */
size_t xdna_design_tile_bytes(const struct xdna_design *d, struct xdna_tile tile);

#endif /* VNPU_XDNA_ARRAY_H */
