/*
 * The emulated AIE tile array (xdna-array.h, its rules 1-8): the builder records a design in fixed tables, the
 * build checks every rule that does not depend on data and lays out each tile's memory in one host allocation,
 * the run steps DMAs and workers in a fixed order, each component of the design (the fifos and workers that share
 * tiles, directly or through others: a column of a matmul) on its own, the components on the host's cores.
 *
 * Counters, not rings of states: an ObjectFifo side's buffers are used in order, so the side keeps running totals
 * (elements acquired, released, received) and element n lives in buffer n % depth. A link's aliasing (a split's
 * outputs are slices of the input's buffers on the mem tile, a join's inputs slices of the output's) is resolved
 * where a DMA looks for its source or its destination.
 */
#include "xdna-array.h"

#include "fp16.h"
#include "log.h"

#include <assert.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
};

/* ---- errors ---- */

static enum vnpu_status design_fail(struct xdna_design *d, enum vnpu_status st, const char *fmt, ...) VNPU_PRINTF(3, 4);
static enum vnpu_status design_fail(struct xdna_design *d, enum vnpu_status st, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->err, sizeof(d->err), fmt, ap);
    va_end(ap);
    vnpu_log_error("%s", d->err);
    d->status = st;
    return st;
}

/* A run's error: the message is kept and logged, the design stays usable. */
static enum vnpu_status run_fail(struct xdna_design *d, enum vnpu_status st, const char *fmt, ...) VNPU_PRINTF(3, 4);
static enum vnpu_status run_fail(struct xdna_design *d, enum vnpu_status st, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->err, sizeof(d->err), fmt, ap);
    va_end(ap);
    vnpu_log_error("%s", d->err);
    return st;
}

const char *xdna_design_error(const struct xdna_design *d) {
    return d->err;
}

/* ---- tiles ---- */

static const char *tile_name(struct xdna_tile t) {
    return xdna_tile_limits(xdna_tile_type_of_row(t.row))->name;
}

static enum xdna_tile_type tile_type(struct xdna_tile t) {
    return xdna_tile_type_of_row(t.row);
}

static bool tile_eq(struct xdna_tile a, struct xdna_tile b) {
    return a.col == b.col && a.row == b.row;
}

/* Rule 1. */
static enum vnpu_status check_tile(struct xdna_design *d, struct xdna_tile t) {
    if (t.col >= d->dev->n_cols || t.row >= XDNA_ROWS) {
        return design_fail(d, VNPU_STATUS_BAD_ARG, "tile (%u,%u) is outside %s (%u column%s, rows 0..%d, rule 1)",
                           t.col, t.row, d->dev->name, d->dev->n_cols, d->dev->n_cols == 1 ? "" : "s", XDNA_ROWS - 1);
    }
    return VNPU_STATUS_OK;
}

/* Rule 2: may a DMA move data from tile a to tile b (either direction: the rule is symmetric)? */
static bool tile_reaches(struct xdna_tile a, struct xdna_tile b) {
    const enum xdna_tile_type ta = tile_type(a), tb = tile_type(b);
    if (tile_eq(a, b)) {
        return false;
    }
    if (ta == XDNA_TILE_SHIM || tb == XDNA_TILE_SHIM) {
        return a.col == b.col && (ta == XDNA_TILE_MEM || tb == XDNA_TILE_MEM);
    }
    if (ta == XDNA_TILE_MEM && tb == XDNA_TILE_MEM) {
        return true;
    }
    if (ta == XDNA_TILE_MEM || tb == XDNA_TILE_MEM) {
        return a.col == b.col;
    }
    const int dc = (int) a.col - (int) b.col, dr = (int) a.row - (int) b.row;
    return (dc == 0 && (dr == 1 || dr == -1)) || (dr == 0 && (dc == 1 || dc == -1));
}

static enum vnpu_status check_route(struct xdna_design *d, const char *name, struct xdna_tile a, struct xdna_tile b) {
    if (tile_reaches(a, b)) {
        return VNPU_STATUS_OK;
    }
    const enum xdna_tile_type ta = tile_type(a), tb = tile_type(b);
    const char *why;
    if (ta == XDNA_TILE_SHIM || tb == XDNA_TILE_SHIM) {
        why = "a shim reaches its own column's mem tile: route L3 -> L2 -> L1";
    } else if (ta == XDNA_TILE_COMPUTE || tb == XDNA_TILE_COMPUTE) {
        why = "a compute tile's DMA reaches its own column's mem tile and adjacent compute tiles; cross columns "
              "through mem tiles";
    } else {
        why = "an ObjectFifo joins two different tiles";
    }
    return design_fail(d, VNPU_STATUS_BAD_ARG, "fifo '%s': %s (%u,%u) cannot reach %s (%u,%u) (%s, rule 2)", name,
                       tile_name(a), a.col, a.row, tile_name(b), b.col, b.row, why);
}

/* ---- builder ---- */

enum vnpu_status xdna_design_new(const struct xdna_device *dev, bool strict, struct xdna_design **out) {
    struct xdna_design *d = calloc(1, sizeof(*d));
    *out = NULL;
    if (!d) {
        vnpu_log_error("xdna design: cannot allocate %zu bytes", sizeof(*d));
        return VNPU_STATUS_NO_MEMORY;
    }
    VNPU_ASSERT(dev && dev->n_cols >= 1 && dev->n_cols <= XDNA_MAX_COLS);
    d->dev = dev;
    d->strict = strict;
    for (int c = 0; c < XDNA_MAX_COLS; c++) {
        for (int r = 0; r < XDNA_ROWS; r++) {
            d->worker_of[c][r] = -1;
        }
    }
    *out = d;
    return VNPU_STATUS_OK;
}

void xdna_design_free(struct xdna_design *d) {
    if (!d) {
        return;
    }
    for (uint32_t i = 0; i < d->n_workers; i++) {
        free(d->workers[i].ops);
    }
    free(d->tasks);
    for (int c = 0; c < XDNA_MAX_COLS; c++) {
        for (int r = 0; r < XDNA_ROWS; r++) {
            free(d->mem[c][r]);
        }
    }
    free(d);
}

/* The status a builder call returns before doing anything: the first error's, or a refusal once built. */
static enum vnpu_status builder_gate(struct xdna_design *d, const char *what) {
    if (d->status != VNPU_STATUS_OK) {
        return d->status;
    }
    if (d->built) {
        return design_fail(d, VNPU_STATUS_BAD_ARG, "%s: the design is already built", what);
    }
    return VNPU_STATUS_OK;
}

static void side_init(struct fifo_side *s, struct xdna_tile t) {
    memset(s, 0, sizeof(*s));
    s->tile = t;
    s->type = tile_type(t);
    s->link = -1;
}

int xdna_fifo_new(struct xdna_design *d, const char *name, struct xdna_tile prod, const struct xdna_tile *cons,
                  uint32_t n_cons, uint32_t depth, uint32_t elem_count, uint32_t elem_bytes) {
    enum vnpu_status st = builder_gate(d, "xdna_fifo_new");
    if (st != VNPU_STATUS_OK) {
        return st;
    }
    if (!name || strlen(name) == 0 || strlen(name) > 31) {
        return design_fail(d, VNPU_STATUS_BAD_ARG, "fifo '%s': a name has 1..31 characters", name ? name : "(null)");
    }
    for (uint32_t i = 0; i < d->n_fifos; i++) {
        if (strcmp(d->fifos[i].name, name) == 0) {
            return design_fail(d, VNPU_STATUS_BAD_ARG, "fifo '%s': the name is taken (fifo %u): messages name fifos",
                               name, i);
        }
    }
    if (d->n_fifos >= MAX_FIFOS) {
        return design_fail(d, VNPU_STATUS_BAD_ARG, "fifo '%s': a design has at most %d fifos", name, MAX_FIFOS);
    }
    if (n_cons < 1 || n_cons > XDNA_MAX_CONSUMERS || !cons) {
        return design_fail(d, VNPU_STATUS_BAD_ARG, "fifo '%s': %u consumers, 1..%d allowed", name, n_cons,
                           XDNA_MAX_CONSUMERS);
    }
    if (elem_bytes != 1 && elem_bytes != 2 && elem_bytes != 4) {
        return design_fail(d, VNPU_STATUS_BAD_ARG, "fifo '%s': elements of %u bytes, 1, 2 or 4 allowed", name,
                           elem_bytes);
    }
    const size_t max_elem = xdna_tile_limits(XDNA_TILE_MEM)->mem_bytes;
    if (elem_count == 0 || (uint64_t) elem_count * elem_bytes > max_elem) {
        return design_fail(d, VNPU_STATUS_BAD_ARG,
                           "fifo '%s': %u elements of %u bytes, 1..%zu bytes an element (rule 3)", name, elem_count,
                           elem_bytes, max_elem);
    }
    if (((uint64_t) elem_count * elem_bytes) % 4 != 0) {
        return design_fail(d, VNPU_STATUS_BAD_ARG,
                           "fifo '%s': an element of %u x %u bytes is not a whole number of 32-bit words (rule 6)",
                           name, elem_count, elem_bytes);
    }
    /* rule 1 */
    if ((st = check_tile(d, prod)) != VNPU_STATUS_OK) {
        return st;
    }
    for (uint32_t i = 0; i < n_cons; i++) {
        if ((st = check_tile(d, cons[i])) != VNPU_STATUS_OK) {
            return st;
        }
        for (uint32_t j = 0; j < i; j++) {
            if (tile_eq(cons[i], cons[j])) {
                return design_fail(d, VNPU_STATUS_BAD_ARG, "fifo '%s': consumer %s (%u,%u) is named twice", name,
                                   tile_name(cons[i]), cons[i].col, cons[i].row);
            }
        }
    }
    /* rule 2 */
    for (uint32_t i = 0; i < n_cons; i++) {
        if ((st = check_route(d, name, prod, cons[i])) != VNPU_STATUS_OK) {
            return st;
        }
    }
    /* rule 4 */
    if (depth == 0) {
        return design_fail(d, VNPU_STATUS_BAD_ARG, "fifo '%s': depth 0, at least 1 (rule 4)", name);
    }
    for (uint32_t i = 0; i <= n_cons; i++) {
        const struct xdna_tile t = i == 0 ? prod : cons[i - 1];
        if (tile_type(t) == XDNA_TILE_COMPUTE && depth > XDNA_OBJFIFO_MAX_DEPTH) {
            return design_fail(d, VNPU_STATUS_BAD_ARG,
                               "fifo '%s': depth %u on a compute tile (%u,%u), at most %d in L1 (put deeper buffering "
                               "on a mem tile, rule 4)",
                               name, depth, t.col, t.row, XDNA_OBJFIFO_MAX_DEPTH);
        }
    }
    /* rule 5 bounds depth everywhere (a side takes depth BDs); refusing it here keeps every size below small */
    const uint32_t mem_bds = xdna_tile_limits(XDNA_TILE_MEM)->n_bds;
    if (depth > mem_bds) {
        return design_fail(d, VNPU_STATUS_BAD_ARG,
                           "fifo '%s': depth %u takes %u BDs on each DMA side, a mem tile has %u (rule 5)", name, depth,
                           depth, mem_bds);
    }
    const int id = (int) d->n_fifos++;
    struct fifo *f = &d->fifos[id];
    memset(f, 0, sizeof(*f));
    memcpy(f->name, name, strlen(name) + 1);
    f->depth = depth;
    f->elem_count = elem_count;
    f->elem_bytes = elem_bytes;
    f->elem_size = (size_t) elem_count * elem_bytes;
    side_init(&f->prod, prod);
    for (uint32_t i = 0; i < n_cons; i++) {
        side_init(&f->cons[i], cons[i]);
    }
    f->n_cons = n_cons;
    f->first_task = f->last_task = -1;
    return id;
}

static enum vnpu_status check_fifo_id(struct xdna_design *d, const char *what, int fifo) {
    if (fifo < 0 || (uint32_t) fifo >= d->n_fifos) {
        return design_fail(d, VNPU_STATUS_BAD_ARG, "%s: fifo id %d, the design has %u", what, fifo, d->n_fifos);
    }
    return VNPU_STATUS_OK;
}

static enum vnpu_status set_tap(struct xdna_design *d, struct fifo *f, struct fifo_side *s,
                                const struct xdna_tap *tap) {
    if (!tap || tap->n_dims == 0) {
        s->has_tap = false;
        return VNPU_STATUS_OK;
    }
    if (tap->n_dims > XDNA_BD_MAX_DIMS + 1) {
        return design_fail(d, VNPU_STATUS_BAD_ARG, "fifo '%s': a tap of %u dims, at most %d", f->name, tap->n_dims,
                           XDNA_BD_MAX_DIMS + 1);
    }
    s->has_tap = true;
    s->tap = *tap;
    return VNPU_STATUS_OK;
}

enum vnpu_status xdna_fifo_dims_to_stream(struct xdna_design *d, int fifo, const struct xdna_tap *tap) {
    enum vnpu_status st = builder_gate(d, "xdna_fifo_dims_to_stream");
    if (st != VNPU_STATUS_OK || (st = check_fifo_id(d, "xdna_fifo_dims_to_stream", fifo)) != VNPU_STATUS_OK) {
        return st;
    }
    struct fifo *f = &d->fifos[fifo];
    if (f->prod.type == XDNA_TILE_SHIM) {
        return design_fail(d, VNPU_STATUS_BAD_ARG,
                           "fifo '%s': its producer is shim tile (%u,0), whose pattern is the runtime transfer's",
                           f->name, f->prod.tile.col);
    }
    return set_tap(d, f, &f->prod, tap);
}

enum vnpu_status xdna_fifo_dims_from_stream(struct xdna_design *d, int fifo, uint32_t cons_index,
                                            const struct xdna_tap *tap) {
    enum vnpu_status st = builder_gate(d, "xdna_fifo_dims_from_stream");
    if (st != VNPU_STATUS_OK || (st = check_fifo_id(d, "xdna_fifo_dims_from_stream", fifo)) != VNPU_STATUS_OK) {
        return st;
    }
    struct fifo *f = &d->fifos[fifo];
    if (cons_index >= f->n_cons) {
        return design_fail(d, VNPU_STATUS_BAD_ARG, "fifo '%s': consumer %u, it has %u", f->name, cons_index, f->n_cons);
    }
    if (f->cons[cons_index].type == XDNA_TILE_SHIM) {
        return design_fail(d, VNPU_STATUS_BAD_ARG,
                           "fifo '%s': its consumer %u is shim tile (%u,0), whose pattern is the runtime transfer's",
                           f->name, cons_index, f->cons[cons_index].tile.col);
    }
    return set_tap(d, f, &f->cons[cons_index], tap);
}

static int cons_index_at(const struct fifo *f, struct xdna_tile t) {
    for (uint32_t i = 0; i < f->n_cons; i++) {
        if (tile_eq(f->cons[i].tile, t)) {
            return (int) i;
        }
    }
    return -1;
}

enum vnpu_status xdna_link_new(struct xdna_design *d, struct xdna_tile tile, const int *in, uint32_t n_in,
                               const int *out, uint32_t n_out, const uint32_t *offsets) {
    enum vnpu_status st = builder_gate(d, "xdna_link_new");
    if (st != VNPU_STATUS_OK || (st = check_tile(d, tile)) != VNPU_STATUS_OK) {
        return st;
    }
    if (tile_type(tile) != XDNA_TILE_MEM) {
        return design_fail(d, VNPU_STATUS_BAD_ARG, "link on %s (%u,%u): links live on mem tiles", tile_name(tile),
                           tile.col, tile.row);
    }
    if (d->n_links >= MAX_LINKS) {
        return design_fail(d, VNPU_STATUS_BAD_ARG, "link on mem tile (%u,1): a design has at most %d links", tile.col,
                           MAX_LINKS);
    }
    if (n_in < 1 || n_out < 1 || (n_in > 1 && n_out > 1) || n_in > MAX_LINK_ENDS || n_out > MAX_LINK_ENDS) {
        return design_fail(d, VNPU_STATUS_BAD_ARG,
                           "link on mem tile (%u,1): %u inputs and %u outputs (forward 1:1, split 1:n, join n:1, n "
                           "<= %d)",
                           tile.col, n_in, n_out, MAX_LINK_ENDS);
    }
    struct link *l = &d->links[d->n_links];
    memset(l, 0, sizeof(*l));
    l->tile = tile;
    l->n_in = n_in;
    l->n_out = n_out;
    const int lid = (int) d->n_links;
    for (uint32_t i = 0; i < n_in + n_out; i++) {
        const int id = i < n_in ? in[i] : out[i - n_in];
        if ((st = check_fifo_id(d, "xdna_link_new", id)) != VNPU_STATUS_OK) {
            return st;
        }
        struct fifo *f = &d->fifos[id];
        for (uint32_t j = 0; j < i; j++) {
            if ((j < n_in ? in[j] : out[j - n_in]) == id) {
                return design_fail(d, VNPU_STATUS_BAD_ARG, "link on mem tile (%u,1): fifo '%s' is named twice",
                                   tile.col, f->name);
            }
        }
        struct fifo_side *s;
        if (i < n_in) {
            const int ci = cons_index_at(f, tile);
            if (ci < 0) {
                return design_fail(d, VNPU_STATUS_BAD_ARG,
                                   "link on mem tile (%u,1): input fifo '%s' has no consumer on this tile", tile.col,
                                   f->name);
            }
            l->in[i] = id;
            l->in_cons[i] = (uint32_t) ci;
            s = &f->cons[ci];
        } else {
            if (!tile_eq(f->prod.tile, tile)) {
                return design_fail(d, VNPU_STATUS_BAD_ARG,
                                   "link on mem tile (%u,1): output fifo '%s' is not produced on this tile", tile.col,
                                   f->name);
            }
            l->out[i - n_in] = id;
            s = &f->prod;
        }
        if (s->link >= 0) {
            return design_fail(d, VNPU_STATUS_BAD_ARG, "link on mem tile (%u,1): fifo '%s' is already in a link here",
                               tile.col, f->name);
        }
        const struct fifo *f0 = &d->fifos[in[0]];
        if (f->elem_bytes != f0->elem_bytes) {
            return design_fail(d, VNPU_STATUS_BAD_ARG,
                               "link on mem tile (%u,1): fifo '%s' has %u-byte elements, fifo '%s' %u-byte (element "
                               "sizes must agree)",
                               tile.col, f->name, f->elem_bytes, f0->name, f0->elem_bytes);
        }
    }
    if (n_in == 1 && n_out == 1 && !offsets && d->fifos[in[0]].elem_count != d->fifos[out[0]].elem_count) {
        return design_fail(d, VNPU_STATUS_BAD_ARG,
                           "link on mem tile (%u,1): forward of fifo '%s' (%u elements) into fifo '%s' (%u): a forward "
                           "moves whole elements (give an offset: a split of one part)",
                           tile.col, d->fifos[in[0]].name, d->fifos[in[0]].elem_count, d->fifos[out[0]].name,
                           d->fifos[out[0]].elem_count);
    }
    /* slices: inside the whole element, not overlapping */
    const bool split = n_in == 1;
    const struct fifo *whole = split ? &d->fifos[in[0]] : &d->fifos[out[0]];
    const uint32_t n_parts = split ? n_out : n_in;
    uint32_t next = 0;
    for (uint32_t i = 0; i < n_parts; i++) {
        const struct fifo *p = &d->fifos[split ? out[i] : in[i]];
        const uint32_t off = offsets ? offsets[i] : next;
        if ((uint64_t) off + p->elem_count > whole->elem_count) {
            return design_fail(d, VNPU_STATUS_BAD_ARG,
                               "link on mem tile (%u,1): fifo '%s' at offset %u takes elements %u..%llu of fifo '%s', "
                               "which has %u",
                               tile.col, p->name, off, off, (unsigned long long) off + p->elem_count - 1, whole->name,
                               whole->elem_count);
        }
        if (((uint64_t) off * p->elem_bytes) % 4 != 0) {
            return design_fail(d, VNPU_STATUS_BAD_ARG,
                               "link on mem tile (%u,1): fifo '%s' at offset %u is not at a whole 32-bit word (rule 6)",
                               tile.col, p->name, off);
        }
        for (uint32_t j = 0; j < i; j++) {
            const struct fifo *q = &d->fifos[split ? out[j] : in[j]];
            const uint32_t qo = l->offsets[j];
            if (off < qo + q->elem_count && qo < off + p->elem_count) {
                const uint32_t lo = off > qo ? off : qo;
                const uint32_t hi = off + p->elem_count < qo + q->elem_count ? off + p->elem_count : qo + q->elem_count;
                return design_fail(d, VNPU_STATUS_BAD_ARG,
                                   "link on mem tile (%u,1): fifos '%s' and '%s' overlap at elements %u..%u of fifo "
                                   "'%s'",
                                   tile.col, q->name, p->name, lo, hi - 1, whole->name);
            }
        }
        l->offsets[i] = off;
        next = off + p->elem_count;
    }
    for (uint32_t i = 0; i < n_in; i++) {
        struct fifo_side *s = &d->fifos[in[i]].cons[l->in_cons[i]];
        s->link = lid;
        s->aliased = !split; /* join: the inputs write into the output's buffers */
    }
    for (uint32_t i = 0; i < n_out; i++) {
        struct fifo_side *s = &d->fifos[out[i]].prod;
        s->link = lid;
        s->aliased = split; /* forward, split: the outputs read the input's buffers */
    }
    d->n_links++;
    return VNPU_STATUS_OK;
}

static enum vnpu_status check_worker(struct xdna_design *d, const char *what, int worker) {
    enum vnpu_status st = builder_gate(d, what);
    if (st != VNPU_STATUS_OK) {
        return st;
    }
    if (worker < 0 || (uint32_t) worker >= d->n_workers) {
        return design_fail(d, VNPU_STATUS_BAD_ARG, "%s: worker id %d, the design has %u", what, worker, d->n_workers);
    }
    return VNPU_STATUS_OK;
}

int xdna_worker_new(struct xdna_design *d, struct xdna_tile tile) {
    enum vnpu_status st = builder_gate(d, "xdna_worker_new");
    if (st != VNPU_STATUS_OK || (st = check_tile(d, tile)) != VNPU_STATUS_OK) {
        return st;
    }
    if (tile_type(tile) != XDNA_TILE_COMPUTE) {
        return design_fail(d, VNPU_STATUS_BAD_ARG, "worker on %s (%u,%u): workers run on compute tiles",
                           tile_name(tile), tile.col, tile.row);
    }
    if (d->worker_of[tile.col][tile.row] >= 0) {
        return design_fail(d, VNPU_STATUS_BAD_ARG, "worker on compute tile (%u,%u): the tile has one already", tile.col,
                           tile.row);
    }
    const int id = (int) d->n_workers++;
    struct worker *w = &d->workers[id];
    memset(w, 0, sizeof(*w));
    w->tile = tile;
    w->stack_bytes = XDNA_STACK_BYTES;
    d->worker_of[tile.col][tile.row] = id;
    return id;
}

static struct op *worker_push(struct xdna_design *d, struct worker *w, enum op_kind kind) {
    if (w->n_ops >= MAX_OPS) {
        design_fail(d, VNPU_STATUS_BAD_ARG, "worker on compute tile (%u,%u): a program has at most %d operations",
                    w->tile.col, w->tile.row, MAX_OPS);
        return NULL;
    }
    if (w->n_ops == w->cap_ops) {
        const uint32_t cap = w->cap_ops ? w->cap_ops * 2 : 64;
        struct op *ops = realloc(w->ops, (size_t) cap * sizeof(*ops));
        if (!ops) {
            design_fail(d, VNPU_STATUS_NO_MEMORY, "worker on compute tile (%u,%u): cannot grow its program to %u ops",
                        w->tile.col, w->tile.row, cap);
            return NULL;
        }
        w->ops = ops;
        w->cap_ops = cap;
    }
    struct op *op = &w->ops[w->n_ops++];
    memset(op, 0, sizeof(*op));
    op->kind = kind;
    return op;
}

/* The side of fifo on the worker's tile: -1 producer, >= 0 consumer index; -2 (and the error) if none. */
static int worker_side(struct xdna_design *d, const struct worker *w, int fifo) {
    if (check_fifo_id(d, "worker", fifo) != VNPU_STATUS_OK) {
        return -2;
    }
    const struct fifo *f = &d->fifos[fifo];
    if (tile_eq(f->prod.tile, w->tile)) {
        return -1;
    }
    const int ci = cons_index_at(f, w->tile);
    if (ci < 0) {
        design_fail(d, VNPU_STATUS_BAD_ARG,
                    "worker on compute tile (%u,%u): fifo '%s' has no end on this tile (rule 7)", w->tile.col,
                    w->tile.row, f->name);
        return -2;
    }
    return ci;
}

static enum vnpu_status worker_acq_rel(struct xdna_design *d, int worker, int fifo, uint32_t n, enum op_kind kind) {
    const char *what = kind == OP_ACQUIRE ? "xdna_worker_acquire" : "xdna_worker_release";
    enum vnpu_status st = check_worker(d, what, worker);
    if (st != VNPU_STATUS_OK) {
        return st;
    }
    struct worker *w = &d->workers[worker];
    const int side = worker_side(d, w, fifo);
    if (side < -1) {
        return d->status;
    }
    if (n < 1 || n > MAX_ACQUIRE) {
        return design_fail(
            d, VNPU_STATUS_BAD_ARG, "worker on compute tile (%u,%u): %s of %u of fifo '%s', 1..%d allowed", w->tile.col,
            w->tile.row, kind == OP_ACQUIRE ? "acquire" : "release", n, d->fifos[fifo].name, MAX_ACQUIRE);
    }
    struct op *op = worker_push(d, w, kind);
    if (!op) {
        return d->status;
    }
    op->fifo = fifo;
    op->side = side;
    op->n = n;
    return VNPU_STATUS_OK;
}

enum vnpu_status xdna_worker_acquire(struct xdna_design *d, int worker, int fifo, uint32_t n) {
    return worker_acq_rel(d, worker, fifo, n, OP_ACQUIRE);
}

enum vnpu_status xdna_worker_release(struct xdna_design *d, int worker, int fifo, uint32_t n) {
    return worker_acq_rel(d, worker, fifo, n, OP_RELEASE);
}

enum vnpu_status xdna_worker_call(struct xdna_design *d, int worker, const struct xdna_kernel *k,
                                  const struct xdna_call_buf *bufs, uint32_t n_bufs, const void *args,
                                  size_t args_bytes) {
    enum vnpu_status st = check_worker(d, "xdna_worker_call", worker);
    if (st != VNPU_STATUS_OK) {
        return st;
    }
    struct worker *w = &d->workers[worker];
    if (!k || !k->fn) {
        return design_fail(d, VNPU_STATUS_BAD_ARG, "worker on compute tile (%u,%u): a call without a kernel function",
                           w->tile.col, w->tile.row);
    }
    if (n_bufs > XDNA_MAX_CALL_BUFS || args_bytes > XDNA_MAX_CALL_ARGS || (n_bufs && !bufs) || (args_bytes && !args)) {
        return design_fail(d, VNPU_STATUS_BAD_ARG,
                           "worker on compute tile (%u,%u): call of kernel '%s' with %u buffers and %zu bytes of "
                           "arguments, at most %d and %d",
                           w->tile.col, w->tile.row, k->name ? k->name : "?", n_bufs, args_bytes, XDNA_MAX_CALL_BUFS,
                           XDNA_MAX_CALL_ARGS);
    }
    int sides[XDNA_MAX_CALL_BUFS];
    for (uint32_t i = 0; i < n_bufs; i++) {
        sides[i] = worker_side(d, w, bufs[i].fifo);
        if (sides[i] < -1) {
            return d->status;
        }
    }
    struct op *op = worker_push(d, w, OP_CALL);
    if (!op) {
        return d->status;
    }
    op->kernel = k;
    op->n_bufs = n_bufs;
    for (uint32_t i = 0; i < n_bufs; i++) {
        op->bufs[i].fifo = bufs[i].fifo;
        op->bufs[i].side = sides[i];
        op->bufs[i].index = bufs[i].index;
    }
    op->args_bytes = args_bytes;
    if (args_bytes) {
        memcpy(op->args, args, args_bytes);
    }
    const size_t stack = k->stack_bytes ? k->stack_bytes : XDNA_STACK_BYTES;
    const size_t l1 = xdna_tile_limits(XDNA_TILE_COMPUTE)->mem_bytes;
    if (stack > l1) {
        return design_fail(
            d, VNPU_STATUS_BAD_ARG,
            "worker on compute tile (%u,%u): kernel '%s' asks for a stack of %zu bytes, L1 has %zu (rule "
            "3)",
            w->tile.col, w->tile.row, k->name ? k->name : "?", stack, l1);
    }
    if (stack > w->stack_bytes) {
        w->stack_bytes = stack;
    }
    return VNPU_STATUS_OK;
}

enum vnpu_status xdna_worker_loop_begin(struct xdna_design *d, int worker, uint32_t count) {
    enum vnpu_status st = check_worker(d, "xdna_worker_loop_begin", worker);
    if (st != VNPU_STATUS_OK) {
        return st;
    }
    struct worker *w = &d->workers[worker];
    if (w->n_open >= MAX_LOOP_NEST) {
        return design_fail(d, VNPU_STATUS_BAD_ARG, "worker on compute tile (%u,%u): loops nest at most %d deep",
                           w->tile.col, w->tile.row, MAX_LOOP_NEST);
    }
    struct op *op = worker_push(d, w, OP_LOOP_BEGIN);
    if (!op) {
        return d->status;
    }
    op->n = count;
    w->open_loops[w->n_open++] = w->n_ops - 1;
    return VNPU_STATUS_OK;
}

enum vnpu_status xdna_worker_loop_end(struct xdna_design *d, int worker) {
    enum vnpu_status st = check_worker(d, "xdna_worker_loop_end", worker);
    if (st != VNPU_STATUS_OK) {
        return st;
    }
    struct worker *w = &d->workers[worker];
    if (w->n_open == 0) {
        return design_fail(d, VNPU_STATUS_BAD_ARG, "worker on compute tile (%u,%u): loop_end without a loop_begin",
                           w->tile.col, w->tile.row);
    }
    struct op *op = worker_push(d, w, OP_LOOP_END);
    if (!op) {
        return d->status;
    }
    const uint32_t begin = w->open_loops[--w->n_open];
    op->match = begin;
    w->ops[begin].match = w->n_ops - 1;
    return VNPU_STATUS_OK;
}

static enum vnpu_status runtime_add(struct xdna_design *d, int fifo, uint32_t ddr_index, const struct xdna_tap *tap,
                                    bool fill, bool convert) {
    const char *what = fill ? "xdna_runtime_fill" : "xdna_runtime_drain";
    enum vnpu_status st = builder_gate(d, what);
    if (st != VNPU_STATUS_OK || (st = check_fifo_id(d, what, fifo)) != VNPU_STATUS_OK) {
        return st;
    }
    struct fifo *f = &d->fifos[fifo];
    const char *dir = fill ? "fill" : "drain";
    if (fill ? f->prod.type != XDNA_TILE_SHIM : cons_index_at(f, (struct xdna_tile){f->prod.tile.col, 0}) < 0) {
        return design_fail(d, VNPU_STATUS_BAD_ARG, "runtime %s of fifo '%s': the fifo has no shim %s", dir, f->name,
                           fill ? "producer" : "consumer");
    }
    if (convert && (!fill || f->elem_bytes != 2)) {
        return design_fail(d, VNPU_STATUS_BAD_ARG,
                           "runtime %s of fifo '%s': f32 -> bf16 conversion is for fills of 2-byte elements", dir,
                           f->name);
    }
    if (tap && tap->n_dims > XDNA_BD_MAX_DIMS + 1) {
        return design_fail(d, VNPU_STATUS_BAD_ARG, "runtime %s of fifo '%s': a tap of %u dims, at most %d", dir,
                           f->name, tap->n_dims, XDNA_BD_MAX_DIMS + 1);
    }
    if (d->n_tasks >= XDNA_MAX_RUNTIME_TRANSFERS) {
        return design_fail(d, VNPU_STATUS_BAD_ARG, "runtime %s of fifo '%s': a sequence has at most %u transfers", dir,
                           f->name, XDNA_MAX_RUNTIME_TRANSFERS);
    }
    if (d->n_tasks == d->cap_tasks) {
        const uint32_t cap = d->cap_tasks ? d->cap_tasks * 2 : 16;
        struct task *t = realloc(d->tasks, (size_t) cap * sizeof(*t));
        if (!t) {
            return design_fail(d, VNPU_STATUS_NO_MEMORY, "runtime %s of fifo '%s': cannot grow the sequence to %u", dir,
                               f->name, cap);
        }
        d->tasks = t;
        d->cap_tasks = cap;
    }
    const int id = (int) d->n_tasks++;
    struct task *t = &d->tasks[id];
    memset(t, 0, sizeof(*t));
    t->fifo = fifo;
    t->fill = fill;
    t->convert = convert;
    t->ddr_index = ddr_index;
    t->has_tap = tap && tap->n_dims > 0;
    if (t->has_tap) {
        t->tap = *tap;
    }
    t->next = -1;
    if (f->last_task >= 0) {
        d->tasks[f->last_task].next = id;
    } else {
        f->first_task = id;
    }
    f->last_task = id;
    return VNPU_STATUS_OK;
}

enum vnpu_status xdna_runtime_fill(struct xdna_design *d, int fifo, uint32_t ddr_index, const struct xdna_tap *tap,
                                   bool convert_f32_bf16) {
    return runtime_add(d, fifo, ddr_index, tap, true, convert_f32_bf16);
}

enum vnpu_status xdna_runtime_drain(struct xdna_design *d, int fifo, uint32_t ddr_index, const struct xdna_tap *tap) {
    return runtime_add(d, fifo, ddr_index, tap, false, false);
}

/* ---- build ---- */

/* Rule 6 for one BD: tap (in elements of eb bytes) on tile t; prefix names the fifo or the transfer. buf_count > 0:
 * the pattern stays in a buffer of that many elements. *count: the elements it moves. */
static enum vnpu_status check_bd(struct xdna_design *d, const char *prefix, struct xdna_tile t,
                                 const struct xdna_tap *tap, uint32_t eb, uint64_t buf_count, uint64_t *count) {
    const enum xdna_tile_type type = tile_type(t);
    const struct xdna_tile_limits *lim = xdna_tile_limits(type);
    const uint32_t n = tap->n_dims, in = n - 1;
    if (n > lim->bd_dims) {
        return design_fail(d, VNPU_STATUS_BAD_ARG, "%s: a BD on a %s (%u,%u) needs %u dims, %u available%s", prefix,
                           lim->name, t.col, t.row, n, lim->bd_dims,
                           type == XDNA_TILE_MEM ? " (rule 6)"
                                                 : " (route it L3 -> L2 -> L1 and put the reshape on the mem tile)");
    }
    if (tap->strides[in] != 1) {
        return design_fail(d, VNPU_STATUS_BAD_ARG,
                           "%s: a BD on a %s (%u,%u) has innermost stride %lld, it must be 1 (rule 6)", prefix,
                           lim->name, t.col, t.row, (long long) tap->strides[in]);
    }
    for (uint32_t j = 0; j < n; j++) {
        if (tap->sizes[j] == 0 || (j < in && tap->sizes[j] > XDNA_BD_MAX_WRAP)) {
            return design_fail(d, VNPU_STATUS_BAD_ARG,
                               "%s: a BD on a %s (%u,%u) has size %u in dimension %u, 1..%d allowed (rule 6)", prefix,
                               lim->name, t.col, t.row, tap->sizes[j], j, XDNA_BD_MAX_WRAP);
        }
    }
    const uint64_t inner_bytes = (uint64_t) tap->sizes[in] * eb;
    if (inner_bytes % 4 != 0) {
        return design_fail(d, VNPU_STATUS_BAD_ARG,
                           "%s: a BD on a %s (%u,%u) moves %llu bytes in its innermost dimension, not a whole number "
                           "of 32-bit words (rule 6)",
                           prefix, lim->name, t.col, t.row, (unsigned long long) inner_bytes);
    }
    /* a 1-D pattern of stride 1 is a plain length, as a side with no tap: only the transfer length bounds it */
    if (n > 1 && inner_bytes / 4 > XDNA_BD_MAX_WRAP) {
        return design_fail(d, VNPU_STATUS_BAD_ARG,
                           "%s: a BD on a %s (%u,%u) has %llu words in its innermost dimension, at most %d (rule 6)",
                           prefix, lim->name, t.col, t.row, (unsigned long long) (inner_bytes / 4), XDNA_BD_MAX_WRAP);
    }
    if (tap->offset > XDNA_TAP_MAX_OFFSET) {
        return design_fail(d, VNPU_STATUS_BAD_ARG,
                           "%s: a BD on a %s (%u,%u) starts at element %llu, at most %llu (rule 6)", prefix, lim->name,
                           t.col, t.row, (unsigned long long) tap->offset, (unsigned long long) XDNA_TAP_MAX_OFFSET);
    }
    if ((tap->offset * eb) % 4 != 0) {
        return design_fail(d, VNPU_STATUS_BAD_ARG,
                           "%s: a BD on a %s (%u,%u) starts at element %llu, not at a whole 32-bit word (rule 6)",
                           prefix, lim->name, t.col, t.row, (unsigned long long) tap->offset);
    }
    uint64_t reach = tap->offset, words = inner_bytes / 4, elems = tap->sizes[in];
    for (uint32_t j = 0; j < in; j++) {
        const int64_t s = tap->strides[j];
        if (s < 0) {
            return design_fail(
                d, VNPU_STATUS_BAD_ARG,
                "%s: a BD on a %s (%u,%u) has stride %lld in dimension %u, strides are 0 or more (rule 6)", prefix,
                lim->name, t.col, t.row, (long long) s, j);
        }
        if ((uint64_t) s >= 4ull * XDNA_BD_MAX_STRIDE / eb) { /* first: no product below can wrap */
            return design_fail(
                d, VNPU_STATUS_BAD_ARG,
                "%s: a BD on a %s (%u,%u) has a stride of %llu words in dimension %u, at most %u (rule 6)", prefix,
                lim->name, t.col, t.row, (unsigned long long) ((uint64_t) s / 4 * eb + (uint64_t) s % 4 * eb / 4), j,
                XDNA_BD_MAX_STRIDE - 1);
        }
        if (((uint64_t) s * eb) % 4 != 0) {
            return design_fail(d, VNPU_STATUS_BAD_ARG,
                               "%s: a BD on a %s (%u,%u) has stride %lld in dimension %u, not a whole number of 32-bit "
                               "words (rule 6)",
                               prefix, lim->name, t.col, t.row, (long long) s, j);
        }
        words *= tap->sizes[j];
        elems *= tap->sizes[j];
        reach += (uint64_t) (tap->sizes[j] - 1) * (uint64_t) s;
    }
    if (words > lim->max_transfer_words) {
        return design_fail(d, VNPU_STATUS_BAD_ARG, "%s: a BD on a %s (%u,%u) moves %llu words, at most %llu (rule 6)",
                           prefix, lim->name, t.col, t.row, (unsigned long long) words,
                           (unsigned long long) lim->max_transfer_words);
    }
    reach += tap->sizes[in] - 1;
    if (buf_count && (tap->offset >= buf_count || reach >= buf_count)) {
        return design_fail(
            d, VNPU_STATUS_BAD_ARG, "%s: the pattern on %s (%u,%u) reaches element %llu of a buffer of %llu (rule 6)",
            prefix, lim->name, t.col, t.row, (unsigned long long) (tap->offset >= buf_count ? tap->offset : reach),
            (unsigned long long) buf_count);
    }
    *count = elems;
    return VNPU_STATUS_OK;
}

/* Rule 6 for a fifo's side on a tile: its tap (over the element, or the link's slice of it), or its plain length. */
static enum vnpu_status check_side(struct xdna_design *d, const struct fifo *f, const struct fifo_side *s) {
    if (s->type == XDNA_TILE_SHIM) {
        return VNPU_STATUS_OK; /* its runtime transfers' taps are checked with them */
    }
    char prefix[48];
    snprintf(prefix, sizeof(prefix), "fifo '%s'", f->name);
    if (!s->has_tap) {
        /* an untapped side is one plain length: only the transfer length applies (no 1023 wrap) */
        const struct xdna_tile_limits *lim = xdna_tile_limits(s->type);
        const uint64_t words = f->elem_size / 4;
        if (words > lim->max_transfer_words) {
            return design_fail(d, VNPU_STATUS_BAD_ARG,
                               "%s: a BD on a %s (%u,%u) moves %llu words, at most %llu (rule 6)", prefix, lim->name,
                               s->tile.col, s->tile.row, (unsigned long long) words,
                               (unsigned long long) lim->max_transfer_words);
        }
        return VNPU_STATUS_OK;
    }
    uint64_t count = 0;
    const enum vnpu_status st = check_bd(d, prefix, s->tile, &s->tap, f->elem_bytes, f->elem_count, &count);
    if (st != VNPU_STATUS_OK) {
        return st;
    }
    if (count != f->elem_count) {
        return design_fail(d, VNPU_STATUS_BAD_ARG,
                           "%s: the pattern on %s (%u,%u) moves %llu elements, an element has %u (rule 6)", prefix,
                           tile_name(s->tile), s->tile.col, s->tile.row, (unsigned long long) count, f->elem_count);
    }
    return VNPU_STATUS_OK;
}

static struct xdna_tile fifo_shim(const struct fifo *f, bool fill) {
    if (fill) {
        return f->prod.tile;
    }
    return (struct xdna_tile){f->prod.tile.col, XDNA_ROW_SHIM};
}

/* Rule 6 for a runtime transfer's tap (the shim's BD over DDR). */
static enum vnpu_status check_task(struct xdna_design *d, const struct task *t, uint64_t *count) {
    const struct fifo *f = &d->fifos[t->fifo];
    char prefix[64];
    snprintf(prefix, sizeof(prefix), "runtime %s of fifo '%s'", t->fill ? "fill" : "drain", f->name);
    const uint32_t eb = t->convert ? 4 : f->elem_bytes;
    enum vnpu_status st = check_bd(d, prefix, fifo_shim(f, t->fill), &t->tap, eb, 0, count);
    if (st != VNPU_STATUS_OK) {
        return st;
    }
    if (*count % f->elem_count != 0) {
        return design_fail(d, VNPU_STATUS_BAD_ARG,
                           "%s: %llu elements is not a whole number of the fifo's %u-element objects", prefix,
                           (unsigned long long) *count, f->elem_count);
    }
    return VNPU_STATUS_OK;
}

static int64_t sat_add_mul(int64_t a, int64_t b, int64_t c) {
    int64_t p, s;
    if (__builtin_mul_overflow(b, c, &p) || __builtin_add_overflow(a, p, &s)) {
        return (b < 0) != (c < 0) ? INT64_MIN / 2 : INT64_MAX / 2;
    }
    return s;
}

/* The programs' shape (rule 7 where it needs no data): held counts are linear in a loop's iteration, so checking
 * a loop body at its first and its last iteration checks every one. held: per fifo, elements held. */
static enum vnpu_status prog_walk(struct xdna_design *d, const struct worker *w, uint32_t pc, uint32_t end,
                                  int64_t *held) {
    while (pc < end) {
        const struct op *op = &w->ops[pc];
        switch (op->kind) {
            case OP_ACQUIRE:
                held[op->fifo] = sat_add_mul(held[op->fifo], op->n, 1);
                if (held[op->fifo] > (int64_t) d->fifos[op->fifo].depth) { /* more than its buffers: a deadlock */
                    return design_fail(d, VNPU_STATUS_BAD_ARG,
                                       "worker on compute tile (%u,%u) would hold %lld of fifo '%s', whose depth is %u "
                                       "(rule 7)",
                                       w->tile.col, w->tile.row, (long long) held[op->fifo], d->fifos[op->fifo].name,
                                       d->fifos[op->fifo].depth);
                }
                pc++;
                break;
            case OP_RELEASE:
                if (held[op->fifo] < (int64_t) op->n) {
                    return design_fail(d, VNPU_STATUS_BAD_ARG,
                                       "worker on compute tile (%u,%u) releases %u of fifo '%s', holding %lld (rule 7)",
                                       w->tile.col, w->tile.row, op->n, d->fifos[op->fifo].name,
                                       (long long) (held[op->fifo] > 0 ? held[op->fifo] : 0));
                }
                held[op->fifo] -= op->n;
                pc++;
                break;
            case OP_CALL:
                for (uint32_t i = 0; i < op->n_bufs; i++) {
                    const int f = op->bufs[i].fifo;
                    if ((int64_t) op->bufs[i].index >= held[f]) {
                        return design_fail(d, VNPU_STATUS_BAD_ARG,
                                           "worker on compute tile (%u,%u): call of kernel '%s' names element %u of "
                                           "fifo '%s', it holds %lld (rule 7)",
                                           w->tile.col, w->tile.row, op->kernel->name ? op->kernel->name : "?",
                                           op->bufs[i].index, d->fifos[f].name,
                                           (long long) (held[f] > 0 ? held[f] : 0));
                    }
                }
                pc++;
                break;
            case OP_LOOP_BEGIN: {
                const uint32_t body = pc + 1, body_end = op->match;
                if (op->n > 0) {
                    int64_t start[MAX_FIFOS];
                    memcpy(start, held, sizeof(int64_t) * d->n_fifos);
                    enum vnpu_status st = prog_walk(d, w, body, body_end, held); /* the first iteration */
                    if (st != VNPU_STATUS_OK) {
                        return st;
                    }
                    bool moves = false;
                    for (uint32_t f = 0; f < d->n_fifos; f++) {
                        moves |= held[f] != start[f];
                    }
                    if (moves && op->n > 1) {
                        for (uint32_t f = 0; f < d->n_fifos; f++) {
                            held[f] = sat_add_mul(start[f], held[f] - start[f], (int64_t) op->n - 1);
                        }
                        if ((st = prog_walk(d, w, body, body_end, held)) != VNPU_STATUS_OK) { /* the last one */
                            return st;
                        }
                    }
                }
                pc = body_end + 1;
                break;
            }
            case OP_LOOP_END: VNPU_ASSERT(0 && "loop_end reached outside its loop");
        }
    }
    return VNPU_STATUS_OK;
}

static size_t align_up(size_t x) {
    return (x + BUF_ALIGN - 1) / BUF_ALIGN * BUF_ALIGN;
}

/* Rule 3's layout: a side's depth buffers, contiguous, at the next aligned offset of its tile. */
static void layout_side(struct xdna_design *d, const struct fifo *f, struct fifo_side *s) {
    if (s->type == XDNA_TILE_SHIM || s->aliased) {
        return;
    }
    size_t *used = &d->tile_bytes[s->tile.col][s->tile.row];
    s->off = align_up(*used);
    *used = s->off + (size_t) f->depth * f->elem_size;
}

/* Union-find over tiles: the root of tile t's set. */
static uint32_t comp_root(uint32_t *parent, uint32_t t) {
    while (parent[t] != t) {
        t = parent[t] = parent[parent[t]];
    }
    return t;
}

static uint32_t tile_index(struct xdna_tile t) {
    return (uint32_t) t.col * XDNA_ROWS + t.row;
}

/* The components: tiles joined by every fifo's ends (a link's fifos meet on its mem tile, a worker's on its tile),
 * numbered in the order of their first fifo or worker. */
static void find_components(struct xdna_design *d) {
    uint32_t parent[MAX_COMPS], comp_of_root[MAX_COMPS];
    for (uint32_t t = 0; t < MAX_COMPS; t++) {
        parent[t] = t;
        comp_of_root[t] = UINT32_MAX;
    }
    for (uint32_t i = 0; i < d->n_fifos; i++) {
        const struct fifo *f = &d->fifos[i];
        for (uint32_t c = 0; c < f->n_cons; c++) {
            parent[comp_root(parent, tile_index(f->cons[c].tile))] = comp_root(parent, tile_index(f->prod.tile));
        }
    }
    uint32_t fifo_comp[MAX_FIFOS], worker_comp[MAX_WORKERS], count[MAX_COMPS] = {0}, wcount[MAX_COMPS] = {0};
    d->n_comps = 0;
    for (uint32_t i = 0; i < d->n_fifos + d->n_workers; i++) {
        const struct xdna_tile t = i < d->n_fifos ? d->fifos[i].prod.tile : d->workers[i - d->n_fifos].tile;
        const uint32_t root = comp_root(parent, tile_index(t));
        if (comp_of_root[root] == UINT32_MAX) {
            comp_of_root[root] = d->n_comps++;
        }
        if (i < d->n_fifos) {
            count[fifo_comp[i] = comp_of_root[root]]++;
        } else {
            wcount[worker_comp[i - d->n_fifos] = comp_of_root[root]]++;
        }
    }
    d->comp_first_fifo[0] = d->comp_first_worker[0] = 0;
    for (uint32_t c = 0; c < d->n_comps; c++) {
        d->comp_first_fifo[c + 1] = (uint16_t) (d->comp_first_fifo[c] + count[c]);
        d->comp_first_worker[c + 1] = (uint16_t) (d->comp_first_worker[c] + wcount[c]);
        count[c] = wcount[c] = 0;
    }
    for (uint32_t i = 0; i < d->n_fifos; i++) {
        const uint32_t c = fifo_comp[i];
        d->comp_fifos[d->comp_first_fifo[c] + count[c]++] = (uint16_t) i;
    }
    for (uint32_t i = 0; i < d->n_workers; i++) {
        const uint32_t c = worker_comp[i];
        d->comp_workers[d->comp_first_worker[c] + wcount[c]++] = (uint16_t) i;
    }
}

enum vnpu_status xdna_design_build(struct xdna_design *d) {
    enum vnpu_status st = builder_gate(d, "xdna_design_build");
    if (st != VNPU_STATUS_OK) {
        return st;
    }
    /* a mem tile moves data only through links */
    for (uint32_t i = 0; i < d->n_fifos; i++) {
        const struct fifo *f = &d->fifos[i];
        for (uint32_t c = 0; c <= f->n_cons; c++) {
            const struct fifo_side *s = c == 0 ? &f->prod : &f->cons[c - 1];
            if (s->type == XDNA_TILE_MEM && s->link < 0) {
                return design_fail(d, VNPU_STATUS_BAD_ARG,
                                   "fifo '%s': its %s on mem tile (%u,1) is in no link (a mem tile moves data only "
                                   "through links)",
                                   f->name, c == 0 ? "producer" : "consumer", s->tile.col);
            }
        }
    }
    /* programs: loops closed, releases and calls within what is held (rule 7) */
    for (uint32_t i = 0; i < d->n_workers; i++) {
        const struct worker *w = &d->workers[i];
        if (w->n_open) {
            return design_fail(d, VNPU_STATUS_BAD_ARG, "worker on compute tile (%u,%u): %u loop%s not closed",
                               w->tile.col, w->tile.row, w->n_open, w->n_open == 1 ? "" : "s");
        }
        int64_t held[MAX_FIFOS] = {0};
        if ((st = prog_walk(d, w, 0, w->n_ops, held)) != VNPU_STATUS_OK) {
            return st;
        }
    }
    /* rule 6: every BD */
    for (uint32_t i = 0; i < d->n_fifos; i++) {
        const struct fifo *f = &d->fifos[i];
        for (uint32_t c = 0; c <= f->n_cons; c++) {
            if ((st = check_side(d, f, c == 0 ? &f->prod : &f->cons[c - 1])) != VNPU_STATUS_OK) {
                return st;
            }
        }
    }
    uint32_t shim_fifos[XDNA_MAX_COLS] = {0};
    for (uint32_t i = 0; i < d->n_fifos; i++) {
        const struct fifo *f = &d->fifos[i];
        if (f->first_task >= 0) {
            shim_fifos[f->prod.tile.col]++;
        }
        for (int t = f->first_task; t >= 0; t = d->tasks[t].next) {
            uint64_t count;
            if (d->tasks[t].has_tap && (st = check_task(d, &d->tasks[t], &count)) != VNPU_STATUS_OK) {
                return st;
            }
        }
    }
    /* rule 5: a DMA side takes depth BDs; a running transfer one shim BD (a fifo's transfers run one at a time) */
    for (uint32_t col = 0; col < d->dev->n_cols; col++) {
        for (uint32_t row = 0; row < XDNA_ROWS; row++) {
            const struct xdna_tile t = {(uint8_t) col, (uint8_t) row};
            const struct xdna_tile_limits *lim = xdna_tile_limits(tile_type(t));
            uint64_t bds = row == XDNA_ROW_SHIM ? shim_fifos[col] : 0;
            for (uint32_t i = 0; i < d->n_fifos; i++) {
                const struct fifo *f = &d->fifos[i];
                for (uint32_t c = 0; c <= f->n_cons; c++) {
                    const struct fifo_side *s = c == 0 ? &f->prod : &f->cons[c - 1];
                    if (s->type != XDNA_TILE_SHIM && tile_eq(s->tile, t)) {
                        bds += f->depth;
                    }
                }
            }
            if (bds > lim->n_bds) {
                return design_fail(d, VNPU_STATUS_BAD_ARG, "%s (%u,%u): %llu BDs, a %s has %u (rule 5)", lim->name, col,
                                   row, (unsigned long long) bds, lim->name, lim->n_bds);
            }
        }
    }
    /* rule 3: lay out each tile's buffers (a link's once), then the worker's stack */
    memset(d->tile_bytes, 0, sizeof(d->tile_bytes));
    for (uint32_t i = 0; i < d->n_fifos; i++) {
        struct fifo *f = &d->fifos[i];
        layout_side(d, f, &f->prod);
        for (uint32_t c = 0; c < f->n_cons; c++) {
            layout_side(d, f, &f->cons[c]);
        }
    }
    for (uint32_t i = 0; i < d->n_workers; i++) {
        const struct worker *w = &d->workers[i];
        size_t *used = &d->tile_bytes[w->tile.col][w->tile.row];
        *used = align_up(*used) + w->stack_bytes;
    }
    for (uint32_t col = 0; col < d->dev->n_cols; col++) {
        for (uint32_t row = XDNA_ROW_MEM; row < XDNA_ROWS; row++) {
            const struct xdna_tile t = {(uint8_t) col, (uint8_t) row};
            const struct xdna_tile_limits *lim = xdna_tile_limits(tile_type(t));
            const size_t used = d->tile_bytes[col][row];
            if (used > lim->mem_bytes) {
                return design_fail(d, VNPU_STATUS_BAD_ARG, "%s (%u,%u): %zu bytes of buffers%s, %s has %zu (rule 3)",
                                   lim->name, col, row, used, row == XDNA_ROW_MEM ? "" : " and stack",
                                   row == XDNA_ROW_MEM ? "L2" : "L1", lim->mem_bytes);
            }
            if (used > 0) {
                d->mem[col][row] = calloc(1, lim->mem_bytes);
                if (!d->mem[col][row]) {
                    return design_fail(d, VNPU_STATUS_NO_MEMORY, "%s (%u,%u): cannot allocate its %zu bytes", lim->name,
                                       col, row, lim->mem_bytes);
                }
            }
        }
    }
    find_components(d);
    d->built = true;
    return VNPU_STATUS_OK;
}

size_t xdna_design_tile_bytes(const struct xdna_design *d, struct xdna_tile tile) {
    if (!d->built || tile.col >= XDNA_MAX_COLS || tile.row >= XDNA_ROWS) {
        return 0;
    }
    return d->tile_bytes[tile.col][tile.row];
}

/* ---- run ---- */

/* A pattern walked as contiguous runs (every BD's innermost stride is 1, rule 6): the element offset of the
 * current run's next element and how many are left in it. */
struct run_it {
    const struct xdna_tap *tap;
    uint32_t idx[XDNA_BD_MAX_DIMS + 1];
    int64_t pos;
    uint64_t left;
};

static void run_it_init(struct run_it *it, const struct xdna_tap *tap) {
    memset(it, 0, sizeof(*it));
    it->tap = tap;
    it->pos = (int64_t) tap->offset;
    it->left = tap->sizes[tap->n_dims - 1];
}

static void run_it_advance(struct run_it *it, uint64_t m) {
    it->pos += (int64_t) m;
    it->left -= m;
    if (it->left > 0) {
        return;
    }
    const struct xdna_tap *t = it->tap;
    const uint32_t in = t->n_dims - 1;
    for (int j = (int) in - 1; j >= 0; j--) {
        if (++it->idx[j] < t->sizes[j]) {
            break;
        }
        it->idx[j] = 0; /* past the last run this wraps to the first, which nobody reads */
    }
    int64_t pos = (int64_t) t->offset;
    for (uint32_t j = 0; j < in; j++) {
        pos += (int64_t) it->idx[j] * t->strides[j];
    }
    it->pos = pos;
    it->left = t->sizes[in];
}

/* Move count elements of a stream: read from src in si's order, write to dst in di's order (eb bytes each; with
 * conv, f32 in and bf16 out). Whole runs move with memcpy. */
static void stream_copy(uint8_t *dst, struct run_it *di, const uint8_t *src, struct run_it *si, uint64_t count,
                        uint32_t eb, bool conv) {
    while (count > 0) {
        uint64_t m = si->left < di->left ? si->left : di->left;
        if (m > count) {
            m = count;
        }
        if (conv) {
            const uint8_t *s = src + si->pos * 4;
            uint8_t *o = dst + di->pos * 2;
            for (uint64_t i = 0; i < m; i++) {
                float x;
                memcpy(&x, s + 4 * i, 4);
                const vnpu_bf16_t h = vnpu_f32_to_bf16(x);
                memcpy(o + 2 * i, &h, 2);
            }
        } else {
            memcpy(dst + di->pos * eb, src + si->pos * eb, m * eb);
        }
        run_it_advance(si, m);
        run_it_advance(di, m);
        count -= m;
    }
}

/* What a run needs beyond the design: the DDR buffers, the stats, and each shim transfer's DDR pattern. */
/* One host thread's run of components: what they share (the DDR buffers, the transfers' taps) and its own state. */
struct run_ctx {
    void *const *ddr;
    struct xdna_run_stats *stats;     /* this thread's, NULL when the caller asked for none */
    const struct xdna_tap *task_taps; /* per task: its tap, or the whole buffer for an untapped one */
    struct run_it ddr_it[MAX_FIFOS];  /* the running transfer's place in DDR, per fifo */
    uint64_t macs_scratch;
    char *err; /* a failing component's message (ERR_BYTES) */
};

/* A component's run error: the message into rc->err (logged once by xdna_design_run). */
static enum vnpu_status run_error(struct run_ctx *rc, enum vnpu_status st, const char *fmt, ...) VNPU_PRINTF(3, 4);
static enum vnpu_status run_error(struct run_ctx *rc, enum vnpu_status st, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rc->err, ERR_BYTES, fmt, ap);
    va_end(ap);
    return st;
}

static struct xdna_tile_stats *tile_stats(struct run_ctx *rc, struct xdna_tile t) {
    return &rc->stats->tiles[t.col][t.row];
}

static uint8_t *side_buf(struct xdna_design *d, const struct fifo *f, const struct fifo_side *s, uint64_t n) {
    return d->mem[s->tile.col][s->tile.row] + s->off + (size_t) (n % f->depth) * f->elem_size;
}

/* The link's whole side for a slice side s of fifo f: the element slice n lives in, as a pointer to the slice. */
static uint8_t *slice_buf(struct xdna_design *d, const struct fifo *f, const struct fifo_side *s, uint64_t n,
                          bool producer) {
    const struct link *l = &d->links[s->link];
    if (producer) { /* a split's output: in the input's consumer buffers */
        uint32_t j = 0;
        while (&d->fifos[l->out[j]] != f) {
            j++;
        }
        const struct fifo *fi = &d->fifos[l->in[0]];
        return side_buf(d, fi, &fi->cons[l->in_cons[0]], n) + (size_t) l->offsets[j] * f->elem_bytes;
    }
    uint32_t i = 0; /* a join's input: in the output's producer buffers */
    while (&d->fifos[l->in[i]] != f) {
        i++;
    }
    const struct fifo *fo = &d->fifos[l->out[0]];
    return side_buf(d, fo, &fo->prod, n) + (size_t) l->offsets[i] * f->elem_bytes;
}

static uint64_t link_out_moved_min(const struct xdna_design *d, const struct link *l) {
    uint64_t m = UINT64_MAX;
    for (uint32_t j = 0; j < l->n_out; j++) {
        const uint64_t x = d->fifos[l->out[j]].moved;
        m = x < m ? x : m;
    }
    return m;
}

static uint64_t link_in_recv_min(const struct xdna_design *d, const struct link *l) {
    uint64_t m = UINT64_MAX;
    for (uint32_t i = 0; i < l->n_in; i++) {
        const uint64_t x = d->fifos[l->in[i]].cons[l->in_cons[i]].recv;
        m = x < m ? x : m;
    }
    return m;
}

static bool task_running(const struct fifo *f, bool fill, const struct xdna_design *d) {
    return f->cur_task >= 0 && d->tasks[f->cur_task].fill == fill;
}

/* Has fifo f's producer side its next element (f->moved) full? */
static bool src_ready(const struct xdna_design *d, const struct fifo *f) {
    const struct fifo_side *p = &f->prod;
    switch (p->type == XDNA_TILE_SHIM ? SIDE_SHIM : p->link >= 0 ? SIDE_LINK : SIDE_WORKER) {
        case SIDE_SHIM: return task_running(f, true, d);
        case SIDE_WORKER: return p->rel > f->moved;
        case SIDE_LINK: {
            const struct link *l = &d->links[p->link];
            if (l->n_in == 1) {
                return d->fifos[l->in[0]].cons[l->in_cons[0]].recv > f->moved;
            }
            return link_in_recv_min(d, l) > f->moved;
        }
    }
    return false;
}

/* Has consumer c of fifo f a free buffer for the next element? */
static bool dst_free(const struct xdna_design *d, const struct fifo *f, uint32_t c) {
    const struct fifo_side *s = &f->cons[c];
    switch (s->type == XDNA_TILE_SHIM ? SIDE_SHIM : s->link >= 0 ? SIDE_LINK : SIDE_WORKER) {
        case SIDE_SHIM: return task_running(f, false, d);
        case SIDE_WORKER: return s->recv - s->rel < f->depth;
        case SIDE_LINK: {
            const struct link *l = &d->links[s->link];
            if (l->n_in == 1) {
                return s->recv - link_out_moved_min(d, l) < f->depth;
            }
            const struct fifo *fo = &d->fifos[l->out[0]];
            return s->recv - fo->moved < fo->depth;
        }
    }
    return false;
}

static void task_start(struct xdna_design *d, struct run_ctx *rc, struct fifo *f, int t) {
    f->cur_task = t;
    f->task_elems = 0;
    if (t < 0) {
        return;
    }
    const struct xdna_tap *tap = &rc->task_taps[t];
    uint64_t n = 1;
    for (uint32_t j = 0; j < tap->n_dims; j++) {
        n *= tap->sizes[j];
    }
    f->task_total = n;
    run_it_init(&rc->ddr_it[f - d->fifos], tap);
}

static void task_progress(struct xdna_design *d, struct run_ctx *rc, struct fifo *f) {
    f->task_elems += f->elem_count;
    if (f->task_elems < f->task_total) {
        return;
    }
    const struct task *t = &d->tasks[f->cur_task];
    if (rc->stats) {
        tile_stats(rc, fifo_shim(f, t->fill))->bds_run++;
    }
    task_start(d, rc, f, t->next);
}

/* Move fifo f's next element from its producer's side to every consumer's (rule 8's DMA step). */
static bool fifo_move(struct xdna_design *d, struct run_ctx *rc, struct fifo *f) {
    if (!src_ready(d, f)) {
        return false;
    }
    for (uint32_t c = 0; c < f->n_cons; c++) {
        if (!dst_free(d, f, c)) {
            return false;
        }
    }
    const uint64_t n = f->moved;
    const struct fifo_side *p = &f->prod;
    const uint32_t eb = f->elem_bytes;
    const struct xdna_tap whole = {.n_dims = 1, .sizes = {f->elem_count}, .strides = {1}};
    const uint8_t *src;
    struct run_it si0;
    bool conv = false;
    if (p->type == XDNA_TILE_SHIM) {
        const struct task *t = &d->tasks[f->cur_task];
        src = rc->ddr[t->ddr_index];
        si0 = rc->ddr_it[f - d->fifos];
        conv = t->convert;
        if (rc->stats) {
            const uint64_t bytes = (uint64_t) f->elem_count * (conv ? 4 : eb);
            tile_stats(rc, p->tile)->dma_out_bytes += bytes;
            rc->stats->ddr_read_bytes += bytes;
        }
    } else {
        src = p->aliased ? slice_buf(d, f, p, n, true) : side_buf(d, f, p, n);
        run_it_init(&si0, p->has_tap ? &p->tap : &whole);
        if (rc->stats) {
            tile_stats(rc, p->tile)->dma_out_bytes += f->elem_size;
            tile_stats(rc, p->tile)->bds_run++;
        }
    }
    struct run_it si = si0;
    for (uint32_t c = 0; c < f->n_cons; c++) {
        struct fifo_side *s = &f->cons[c];
        si = si0;
        if (s->type == XDNA_TILE_SHIM) {
            const struct task *t = &d->tasks[f->cur_task];
            stream_copy(rc->ddr[t->ddr_index], &rc->ddr_it[f - d->fifos], src, &si, f->elem_count, eb, conv);
            if (rc->stats) {
                tile_stats(rc, s->tile)->dma_in_bytes += f->elem_size;
                rc->stats->ddr_write_bytes += f->elem_size;
            }
        } else {
            uint8_t *dst = s->aliased ? slice_buf(d, f, s, s->recv, false) : side_buf(d, f, s, s->recv);
            struct run_it di;
            run_it_init(&di, s->has_tap ? &s->tap : &whole);
            stream_copy(dst, &di, src, &si, f->elem_count, eb, conv);
            s->recv++;
            if (rc->stats) {
                tile_stats(rc, s->tile)->dma_in_bytes += f->elem_size;
                tile_stats(rc, s->tile)->bds_run++;
            }
        }
    }
    f->moved++;
    if (p->type == XDNA_TILE_SHIM) {
        rc->ddr_it[f - d->fifos] = si;
        task_progress(d, rc, f);
    } else {
        for (uint32_t c = 0; c < f->n_cons; c++) {
            if (f->cons[c].type == XDNA_TILE_SHIM) {
                task_progress(d, rc, f);
            }
        }
    }
    return true;
}

static struct fifo_side *op_side(struct xdna_design *d, int fifo, int side) {
    struct fifo *f = &d->fifos[fifo];
    return side < 0 ? &f->prod : &f->cons[side];
}

static uint64_t side_held(const struct fifo_side *s) {
    return s->acq - s->rel;
}

/* Can the worker's acquire proceed? A producer takes free buffers, a consumer full ones (rule 7). */
static bool acquire_ready(struct xdna_design *d, const struct op *op) {
    const struct fifo *f = &d->fifos[op->fifo];
    const struct fifo_side *s = op_side(d, op->fifo, op->side);
    if (op->side < 0) {
        return s->acq + op->n - f->moved <= f->depth;
    }
    return s->acq + op->n <= s->recv;
}

static void poison(struct xdna_design *d, const struct fifo *f, const struct fifo_side *s, uint64_t from, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) {
        memset(side_buf(d, f, s, from + i), XDNA_POISON_BYTE, f->elem_size);
    }
}

/* Step a worker until it blocks or ends: true if it did anything. *err set on a protocol breach. */
static bool worker_step(struct xdna_design *d, struct run_ctx *rc, struct worker *w, enum vnpu_status *err) {
    bool progress = false;
    while (!w->done) {
        if (w->pc >= w->n_ops) {
            w->done = true;
            return true;
        }
        const struct op *op = &w->ops[w->pc];
        switch (op->kind) {
            case OP_ACQUIRE: {
                if (!acquire_ready(d, op)) {
                    if (rc->stats) {
                        tile_stats(rc, w->tile)->stall_steps++;
                    }
                    return progress;
                }
                struct fifo_side *s = op_side(d, op->fifo, op->side);
                if (op->side < 0 && d->strict) {
                    poison(d, &d->fifos[op->fifo], s, s->acq, op->n); /* rule 7: a fresh buffer holds poison */
                }
                s->acq += op->n;
                break;
            }
            case OP_RELEASE: {
                struct fifo_side *s = op_side(d, op->fifo, op->side);
                if (side_held(s) < op->n) {
                    *err = run_error(
                        rc, VNPU_STATUS_DEVICE,
                        "protocol breach: worker on compute tile (%u,%u) releases %u of fifo '%s', holding "
                        "%llu (rule 7)",
                        w->tile.col, w->tile.row, op->n, d->fifos[op->fifo].name, (unsigned long long) side_held(s));
                    return false;
                }
                if (op->side >= 0 && d->strict) {
                    poison(d, &d->fifos[op->fifo], s, s->rel, op->n); /* rule 7: a released element is poisoned */
                }
                s->rel += op->n;
                break;
            }
            case OP_CALL: {
                struct xdna_call call;
                memset(&call, 0, sizeof(call));
                for (uint32_t i = 0; i < op->n_bufs; i++) {
                    const struct fifo *f = &d->fifos[op->bufs[i].fifo];
                    const struct fifo_side *s = op_side(d, op->bufs[i].fifo, op->bufs[i].side);
                    if (op->bufs[i].index >= side_held(s)) {
                        *err = run_error(rc, VNPU_STATUS_DEVICE,
                                         "protocol breach: worker on compute tile (%u,%u): call of kernel '%s' names "
                                         "element %u of fifo '%s', it holds %llu (rule 7)",
                                         w->tile.col, w->tile.row, op->kernel->name ? op->kernel->name : "?",
                                         op->bufs[i].index, f->name, (unsigned long long) side_held(s));
                        return false;
                    }
                    call.bufs[i] = side_buf(d, f, s, s->rel + op->bufs[i].index);
                    call.buf_bytes[i] = f->elem_size;
                }
                call.n_bufs = op->n_bufs;
                call.args = op->args;
                call.tile = w->tile;
                call.macs = rc->stats ? &tile_stats(rc, w->tile)->macs : &rc->macs_scratch;
                op->kernel->fn(&call);
                if (rc->stats) {
                    tile_stats(rc, w->tile)->kernel_calls++;
                }
                break;
            }
            case OP_LOOP_BEGIN:
                if (op->n == 0) {
                    w->pc = op->match + 1;
                    progress = true;
                    continue;
                }
                w->loops[w->n_loops].begin = w->pc + 1;
                w->loops[w->n_loops].left = op->n;
                w->n_loops++;
                break;
            case OP_LOOP_END:
                VNPU_ASSERT(w->n_loops > 0);
                if (--w->loops[w->n_loops - 1].left > 0) {
                    w->pc = w->loops[w->n_loops - 1].begin;
                    progress = true;
                    continue;
                }
                w->n_loops--;
                break;
        }
        w->pc++;
        progress = true;
    }
    return progress;
}

static size_t append(char *buf, size_t size, size_t len, const char *fmt, ...) VNPU_PRINTF(4, 5);
static size_t append(char *buf, size_t size, size_t len, const char *fmt, ...) {
    if (len >= size) {
        return len;
    }
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(buf + len, size - len, fmt, ap);
    va_end(ap);
    return n < 0 ? len : len + (size_t) n;
}

/* The first consumer of f without a free buffer, as text. */
static void blocking_cons(const struct xdna_design *d, const struct fifo *f, char *out, size_t size) {
    for (uint32_t c = 0; c < f->n_cons; c++) {
        if (!dst_free(d, f, c)) {
            const struct fifo_side *s = &f->cons[c];
            if (s->type == XDNA_TILE_SHIM) {
                snprintf(out, size, "a runtime drain on shim tile (%u,0)", s->tile.col);
            } else {
                snprintf(out, size, "a free buffer on %s (%u,%u)", tile_name(s->tile), s->tile.col, s->tile.row);
            }
            return;
        }
    }
    snprintf(out, size, "nothing");
}

/* Rule 8: every party that cannot progress and what it waits for. */
/* Component c cannot progress (rule 8): what each of its parties waits for. */
static enum vnpu_status report_deadlock(struct xdna_design *d, struct run_ctx *rc, uint32_t c) {
    char msg[ERR_BYTES];
    size_t len = append(msg, sizeof(msg), 0, "deadlock: ");
    const char *sep = "";
    for (uint32_t k = d->comp_first_fifo[c]; k < d->comp_first_fifo[c + 1]; k++) {
        const struct fifo *f = &d->fifos[d->comp_fifos[k]];
        char what[96];
        if (f->cur_task >= 0) {
            const struct task *t = &d->tasks[f->cur_task];
            const uint64_t k = f->task_elems / f->elem_count, total = f->task_total / f->elem_count;
            if (t->fill) {
                blocking_cons(d, f, what, sizeof(what));
                len = append(msg, sizeof(msg), len, "%sruntime fill of fifo '%s' waits for %s (element %llu of %llu)",
                             sep, f->name, what, (unsigned long long) k + 1, (unsigned long long) total);
            } else {
                len = append(msg, sizeof(msg), len, "%sruntime drain of fifo '%s' waits for element %llu of %llu", sep,
                             f->name, (unsigned long long) k + 1, (unsigned long long) total);
            }
            sep = "; ";
        } else if (f->prod.type != XDNA_TILE_SHIM && src_ready(d, f)) {
            blocking_cons(d, f, what, sizeof(what));
            len = append(msg, sizeof(msg), len, "%sfifo '%s' on %s (%u,%u) waits for %s", sep, f->name,
                         tile_name(f->prod.tile), f->prod.tile.col, f->prod.tile.row, what);
            sep = "; ";
        }
    }
    for (uint32_t k = d->comp_first_worker[c]; k < d->comp_first_worker[c + 1]; k++) {
        const struct worker *w = &d->workers[d->comp_workers[k]];
        if (w->done) {
            continue;
        }
        const struct op *op = &w->ops[w->pc];
        VNPU_ASSERT(op->kind == OP_ACQUIRE);
        len = append(msg, sizeof(msg), len,
                     "%sworker on compute tile (%u,%u) waits to acquire %u of fifo '%s' (holds %llu)", sep, w->tile.col,
                     w->tile.row, op->n, d->fifos[op->fifo].name,
                     (unsigned long long) side_held(op_side(d, op->fifo, op->side)));
        sep = "; ";
    }
    return run_error(rc, VNPU_STATUS_DEVICE, "%s", msg);
}

/* Run component c from its start to its end or its first error (into rc->err). */
static enum vnpu_status run_component(struct xdna_design *d, struct run_ctx *rc, uint32_t c) {
    const uint16_t *fifos = d->comp_fifos, *workers = d->comp_workers;
    const uint32_t f0 = d->comp_first_fifo[c], f1 = d->comp_first_fifo[c + 1];
    const uint32_t w0 = d->comp_first_worker[c], w1 = d->comp_first_worker[c + 1];
    for (uint32_t k = f0; k < f1; k++) {
        struct fifo *f = &d->fifos[fifos[k]];
        f->moved = 0;
        f->prod.acq = f->prod.rel = f->prod.recv = 0;
        for (uint32_t j = 0; j < f->n_cons; j++) {
            f->cons[j].acq = f->cons[j].rel = f->cons[j].recv = 0;
        }
        task_start(d, rc, f, f->first_task);
    }
    for (uint32_t k = w0; k < w1; k++) {
        struct worker *w = &d->workers[workers[k]];
        w->pc = 0;
        w->n_loops = 0;
        w->done = false;
    }
    /* rule 8: round-robin, DMAs in fifo order then workers, until all is done or a round does nothing */
    enum vnpu_status st = VNPU_STATUS_OK;
    for (;;) {
        bool done = true, progress = false;
        for (uint32_t k = f0; k < f1; k++) {
            struct fifo *f = &d->fifos[fifos[k]];
            while (fifo_move(d, rc, f)) {
                progress = true;
            }
            done &= f->cur_task < 0;
        }
        for (uint32_t k = w0; k < w1 && st == VNPU_STATUS_OK; k++) {
            progress |= worker_step(d, rc, &d->workers[workers[k]], &st);
            done &= d->workers[workers[k]].done;
        }
        if (rc->stats) {
            rc->stats->rounds++;
        }
        if (st != VNPU_STATUS_OK || done) {
            return st;
        }
        if (!progress) {
            return report_deadlock(d, rc, c);
        }
    }
}

/* A host thread of a run: components taken in turn from *next, each run to its end; the first failing one's (the
 * lowest number, whatever the threads' timing) status and message kept. */
struct run_thread {
    struct xdna_design *d;
    uint32_t *next;
    struct run_ctx rc;
    struct xdna_run_stats stats;
    enum vnpu_status st;
    uint32_t failed;         /* the component that failed, if st is an error */
    char err[ERR_BYTES];     /* its message */
    char scratch[ERR_BYTES]; /* rc.err: the message of the component running */
};

static void *run_thread_main(void *arg) {
    struct run_thread *t = arg;
    for (;;) {
        const uint32_t c = __atomic_fetch_add(t->next, 1, __ATOMIC_RELAXED);
        if (c >= t->d->n_comps) {
            return NULL;
        }
        const enum vnpu_status st = run_component(t->d, &t->rc, c);
        if (st != VNPU_STATUS_OK && t->st == VNPU_STATUS_OK) {
            t->st = st;
            t->failed = c;
            memcpy(t->err, t->rc.err, ERR_BYTES);
        }
    }
}

void xdna_run_stats_add(struct xdna_run_stats *sum, const struct xdna_run_stats *s) {
    for (uint32_t c = 0; c < XDNA_MAX_COLS; c++) {
        for (uint32_t r = 0; r < XDNA_ROWS; r++) {
            struct xdna_tile_stats *a = &sum->tiles[c][r];
            const struct xdna_tile_stats *b = &s->tiles[c][r];
            a->kernel_calls += b->kernel_calls;
            a->macs += b->macs;
            a->dma_in_bytes += b->dma_in_bytes;
            a->dma_out_bytes += b->dma_out_bytes;
            a->bds_run += b->bds_run;
            a->stall_steps += b->stall_steps;
        }
    }
    sum->ddr_read_bytes += s->ddr_read_bytes;
    sum->ddr_write_bytes += s->ddr_write_bytes;
    sum->rounds += s->rounds;
}

/* Every component of d, on as many host threads as the host has CPUs (at most one a component): components share
 * nothing, so the result is the same whatever the threads. */
static enum vnpu_status run_components(struct xdna_design *d, void *const *ddr, const struct xdna_tap *taps,
                                       struct xdna_run_stats *stats) {
    if (d->n_comps == 0) {
        return VNPU_STATUS_OK; /* an empty design: nothing to do */
    }
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    const uint32_t n = cpus < 1 ? 1 : (uint32_t) cpus < d->n_comps ? (uint32_t) cpus : d->n_comps;
    struct run_thread *t = calloc(n, sizeof(*t));
    pthread_t *tid = calloc(n, sizeof(*tid));
    if (!t || !tid) {
        free(t);
        free(tid);
        return run_fail(d, VNPU_STATUS_NO_MEMORY, "xdna_design_run: cannot allocate the run's state");
    }
    uint32_t next = 0, started = 1;
    for (uint32_t i = 0; i < n; i++) {
        t[i] = (struct run_thread){.d = d, .next = &next};
        t[i].rc =
            (struct run_ctx){.ddr = ddr, .stats = stats ? &t[i].stats : NULL, .task_taps = taps, .err = t[i].scratch};
    }
    for (; started < n && pthread_create(&tid[started], NULL, run_thread_main, &t[started]) == 0; started++) {
    }
    run_thread_main(&t[0]); /* the calling thread takes its share (all of them if no thread started) */
    for (uint32_t i = 1; i < started; i++) {
        pthread_join(tid[i], NULL);
    }
    enum vnpu_status st = VNPU_STATUS_OK;
    uint32_t failed = UINT32_MAX;
    const char *err = NULL;
    for (uint32_t i = 0; i < n; i++) {
        if (stats) {
            xdna_run_stats_add(stats, &t[i].stats);
        }
        if (t[i].st != VNPU_STATUS_OK && t[i].failed < failed) {
            st = t[i].st;
            failed = t[i].failed;
            err = t[i].err;
        }
    }
    if (err) {
        run_fail(d, st, "%s", err);
    }
    free(t);
    free(tid);
    return st;
}

enum vnpu_status xdna_design_run(struct xdna_design *d, void *const *ddr, const size_t *ddr_bytes, uint32_t n_ddr,
                                 struct xdna_run_stats *stats) {
    if (d->status != VNPU_STATUS_OK) {
        return d->status;
    }
    if (!d->built) {
        return run_fail(d, VNPU_STATUS_BAD_ARG, "xdna_design_run: the design is not built");
    }
    if (stats) {
        memset(stats, 0, sizeof(*stats));
    }
    struct xdna_tap *taps = d->n_tasks ? calloc(d->n_tasks, sizeof(*taps)) : NULL;
    if (d->n_tasks && !taps) {
        return run_fail(d, VNPU_STATUS_NO_MEMORY, "xdna_design_run: cannot allocate the run's state");
    }
    enum vnpu_status st = VNPU_STATUS_OK;
    /* every transfer stays inside its DDR buffer before anything moves */
    for (uint32_t i = 0; i < d->n_tasks && st == VNPU_STATUS_OK; i++) {
        const struct task *t = &d->tasks[i];
        const struct fifo *f = &d->fifos[t->fifo];
        const char *dir = t->fill ? "fill" : "drain";
        if (t->ddr_index >= n_ddr || !ddr || !ddr_bytes) {
            st = run_fail(d, VNPU_STATUS_BAD_ARG, "runtime %s of fifo '%s': DDR buffer %u, the run has %u", dir,
                          f->name, t->ddr_index, ddr && ddr_bytes ? n_ddr : 0);
            break;
        }
        if (!ddr[t->ddr_index]) {
            st = run_fail(d, VNPU_STATUS_BAD_ARG, "runtime %s of fifo '%s': DDR buffer %u is NULL", dir, f->name,
                          t->ddr_index);
            break;
        }
        const uint32_t eb = t->convert ? 4 : f->elem_bytes;
        const uint64_t buf_count = ddr_bytes[t->ddr_index] / eb;
        if (t->has_tap) {
            taps[i] = t->tap;
        } else {
            const struct xdna_tile_limits *lim = xdna_tile_limits(XDNA_TILE_SHIM);
            if (buf_count == 0 || buf_count % f->elem_count != 0 || buf_count > UINT32_MAX ||
                buf_count * eb / 4 > lim->max_transfer_words) {
                st = run_fail(d, VNPU_STATUS_BAD_ARG,
                              "runtime %s of fifo '%s': DDR buffer %u of %zu bytes is not a whole number of %u-element "
                              "objects one shim BD moves (rule 6)",
                              dir, f->name, t->ddr_index, ddr_bytes[t->ddr_index], f->elem_count);
                break;
            }
            taps[i] = (struct xdna_tap){.n_dims = 1, .sizes = {(uint32_t) buf_count}, .strides = {1}};
        }
        uint64_t reach = taps[i].offset;
        for (uint32_t j = 0; j < taps[i].n_dims; j++) {
            reach += (uint64_t) (taps[i].sizes[j] - 1) * (uint64_t) taps[i].strides[j];
        }
        if (taps[i].offset >= buf_count || reach >= buf_count) {
            st = run_fail(d, VNPU_STATUS_BAD_ARG,
                          "runtime %s of fifo '%s': the pattern reaches element %llu of DDR buffer %u, which has %llu "
                          "(rule 6)",
                          dir, f->name, (unsigned long long) (taps[i].offset >= buf_count ? taps[i].offset : reach),
                          t->ddr_index, (unsigned long long) buf_count);
        }
    }
    if (st == VNPU_STATUS_OK) {
        st = run_components(d, ddr, taps, stats);
    }
    free(taps);
    return st;
}
