/*
 * The tile array's own state (xdna-array.h): what the builder records and the build lays out (xdna-array.c), and
 * what the run steps (xdna-array-run.c). Private to those two files.
 */
#ifndef VNPU_XDNA_ARRAY_IMPL_H
#define VNPU_XDNA_ARRAY_IMPL_H

#include "xdna-array.h"

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MAX_FIFOS     256
#define MAX_WORKERS   32 /* one per compute tile of NPU2 */
#define MAX_OPS       4096
#define MAX_LINKS     64
#define MAX_LINK_ENDS 32
#define MAX_LOOP_NEST 8
#define MAX_ACQUIRE   1024 /* elements one acquire or release names (far above any depth) */
#define ERR_BYTES     2048
#define BUF_ALIGN     64 /* each fifo side's buffers start at a multiple of this in its tile's memory */
#define MAX_COMPS     (XDNA_MAX_COLS * XDNA_ROWS) /* a component holds a tile at least */

static_assert(MAX_WORKERS >= XDNA_MAX_COLS * XDNA_COMPUTE_ROWS, "a worker per compute tile");

enum side_kind {
    SIDE_SHIM,   /* a runtime transfer */
    SIDE_WORKER, /* a compute tile's worker */
    SIDE_LINK,   /* a mem tile's link */
};

/* One end of an ObjectFifo: the producer, or one consumer. */
struct fifo_side {
    struct xdna_tile tile;
    enum xdna_tile_type type;
    bool has_tap;
    struct xdna_tap tap; /* the DMA's pattern over the element (dims_to_stream / dims_from_stream) */
    int link;            /* the link this side is in, -1 */
    bool aliased;        /* its buffers are slices of the link's other side (no memory of its own) */
    size_t off;          /* offset of its depth buffers in the tile's memory */
    uint8_t chan;        /* its DMA channel on the tile (rule 9): MM2S for a producer, S2MM for a consumer */
    /* the timeline (xdna-array.h, "Time"), per buffer of its ring (ring buffers; a join's input: the output's): when
     * the element in it became full there, and when it became free again; NULL on a shim */
    uint32_t ring;
    double *t_full, *t_free;
    /* run state: running totals of elements */
    uint64_t acq, rel; /* by the worker (producer and consumer) */
    uint64_t recv;     /* consumer: elements its DMA wrote */
};

struct fifo {
    char name[32];
    uint32_t depth, elem_count, elem_bytes;
    size_t elem_size; /* elem_count * elem_bytes */
    struct fifo_side prod;
    struct fifo_side cons[XDNA_MAX_CONSUMERS];
    uint32_t n_cons;
    int first_task, last_task; /* its runtime transfers, in order (task.next) */
    /* run state */
    uint64_t moved;      /* elements the producer's side sent to every consumer */
    int cur_task;        /* the runtime transfer running, -1 when none */
    uint64_t task_elems; /* elements the running transfer moved */
    uint64_t task_total; /* elements it moves */
};

struct link {
    struct xdna_tile tile;
    uint32_t n_in, n_out;
    int in[MAX_LINK_ENDS], out[MAX_LINK_ENDS];
    uint32_t in_cons[MAX_LINK_ENDS]; /* the consumer index of in[i] at this tile */
    uint32_t offsets[MAX_LINK_ENDS]; /* split: of out[i] in the input element; join: of in[i] in the output's */
};

enum op_kind {
    OP_ACQUIRE,
    OP_RELEASE,
    OP_CALL,
    OP_LOOP_BEGIN,
    OP_LOOP_END,
};

struct op {
    enum op_kind kind;
    int fifo;
    int side;       /* -1 producer, else the consumer index of the worker's tile */
    uint32_t n;     /* acquire, release: elements; loop_begin: count */
    uint32_t match; /* loop_begin: index of its loop_end; loop_end: of its loop_begin */
    const struct xdna_kernel *kernel;
    uint32_t n_bufs;
    struct {
        int fifo, side;
        uint32_t index;
    } bufs[XDNA_MAX_CALL_BUFS];
    size_t args_bytes;
    uint8_t args[XDNA_MAX_CALL_ARGS];
};

struct worker {
    struct xdna_tile tile;
    struct op *ops;
    uint32_t n_ops, cap_ops;
    uint32_t open_loops[MAX_LOOP_NEST]; /* while building: the loop_begins not yet closed */
    uint32_t n_open;
    size_t stack_bytes;
    /* run state */
    uint32_t pc;
    struct {
        uint32_t begin, left;
    } loops[MAX_LOOP_NEST];
    uint32_t n_loops;
    bool done;
    double t;       /* its clock on the timeline */
    uint64_t calls; /* kernel calls this run (the trace's index) */
};

struct task {
    int fifo;
    bool fill, convert;
    uint32_t ddr_index;
    bool has_tap;
    struct xdna_tap tap; /* in DDR elements */
    int next;            /* the fifo's next transfer, -1 */
};

struct xdna_design {
    const struct xdna_device *dev;
    bool strict, built;
    enum vnpu_status status;
    char err[ERR_BYTES];

    struct fifo fifos[MAX_FIFOS];
    uint32_t n_fifos;
    struct link links[MAX_LINKS];
    uint32_t n_links;
    struct worker workers[MAX_WORKERS];
    uint32_t n_workers;
    int worker_of[XDNA_MAX_COLS][XDNA_ROWS];
    struct task *tasks;
    uint32_t n_tasks, cap_tasks;

    size_t tile_bytes[XDNA_MAX_COLS][XDNA_ROWS]; /* rule 3's sum, after build */
    uint8_t *mem[XDNA_MAX_COLS][XDNA_ROWS];      /* the tile's memory (mem_bytes), NULL if unused */

    /* The components (after build): parties that share no tile, even through others, never interact, so each runs
     * alone. comp_fifos[comp_first_fifo[c] .. comp_first_fifo[c + 1]) are component c's fifos in fifo order, the
     * same for workers. */
    uint32_t n_comps;
    uint16_t comp_fifos[MAX_FIFOS], comp_first_fifo[MAX_COMPS + 1];
    uint16_t comp_workers[MAX_WORKERS], comp_first_worker[MAX_COMPS + 1];
    uint32_t n_threads; /* host threads a run uses: the host's CPUs, at most one a component (0: no component) */

    double *times;            /* every side's t_full and t_free (after build) */
    double ddr_bpc_col;       /* DDR bytes a cycle for each column whose shim the design uses (its share) */
    struct xdna_trace *trace; /* xdna_design_trace's, or NULL */
};

static inline const char *tile_name(struct xdna_tile t) {
    return xdna_tile_limits(xdna_tile_type_of_row(t.row))->name;
}

static inline enum xdna_tile_type tile_type(struct xdna_tile t) {
    return xdna_tile_type_of_row(t.row);
}

static inline struct xdna_tile fifo_shim(const struct fifo *f, bool fill) {
    if (fill) {
        return f->prod.tile;
    }
    return (struct xdna_tile){f->prod.tile.col, XDNA_ROW_SHIM};
}

#endif /* VNPU_XDNA_ARRAY_IMPL_H */
