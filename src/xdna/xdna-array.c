/*
 * The emulated AIE tile array's builder and build (xdna-array.h, its rules 1-7): the builder records a design in fixed
 * tables (xdna-array-impl.h), the build checks every rule that does not depend on data, finds the design's
 * components (the fifos and workers that share tiles, directly or through others: a column of a matmul) and lays out
 * each tile's memory in one host allocation; xdna-array-run.c runs it.
 *
 * Counters, not rings of states: an ObjectFifo side's buffers are used in order, so the side keeps running totals
 * (elements acquired, released, received) and element n lives in buffer n % depth. A link's aliasing (a split's
 * outputs are slices of the input's buffers on the mem tile, a join's inputs slices of the output's) is resolved
 * where a DMA looks for its source or its destination.
 */
#include "xdna-array-impl.h"

#include "fp16.h"
#include "log.h"

#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

const char *xdna_design_error(const struct xdna_design *d) {
    return d->err;
}

/* ---- tiles ---- */

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
    if (tile_eq(a, b)) {
        why = "an ObjectFifo joins two different tiles";
    } else if (ta == XDNA_TILE_SHIM || tb == XDNA_TILE_SHIM) {
        why = "a shim reaches its own column's mem tile: route L3 -> L2 -> L1";
    } else if (ta == XDNA_TILE_COMPUTE || tb == XDNA_TILE_COMPUTE) {
        why = "a compute tile's DMA reaches its own column's mem tile and adjacent compute tiles; cross columns "
              "through a mem tile's broadcast or mem tile to mem tile";
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
    free(d->times);
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
    /* rule 2; a mem tile's broadcast may reach compute tiles of other columns */
    const bool mem_broadcast = tile_type(prod) == XDNA_TILE_MEM && n_cons > 1;
    for (uint32_t i = 0; i < n_cons; i++) {
        if (mem_broadcast && tile_type(cons[i]) == XDNA_TILE_COMPUTE) {
            continue;
        }
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
    /* rule 9: every fifo end on a tile takes one of its DMA channels, in fifo order */
    uint32_t chans[XDNA_MAX_COLS][XDNA_ROWS][2] = {{{0}}}; /* [.][.][0] S2MM, [1] MM2S */
    for (uint32_t i = 0; i < d->n_fifos; i++) {
        struct fifo *f = &d->fifos[i];
        for (uint32_t c = 0; c <= f->n_cons; c++) {
            struct fifo_side *s = c == 0 ? &f->prod : &f->cons[c - 1];
            const struct xdna_tile_limits *lim = xdna_tile_limits(s->type);
            const bool mm2s = c == 0;
            uint32_t *used = &chans[s->tile.col][s->tile.row][mm2s];
            const uint32_t have = mm2s ? lim->mm2s_channels : lim->s2mm_channels;
            if (*used == have) {
                return design_fail(d, VNPU_STATUS_BAD_ARG,
                                   "fifo '%s': its %s on %s (%u,%u) needs %s DMA channel %u, the tile has %u (rule 9: "
                                   "each ObjectFifo end takes a channel)",
                                   f->name, mm2s ? "producer" : "consumer", lim->name, s->tile.col, s->tile.row,
                                   mm2s ? "an MM2S" : "an S2MM", have + 1, have);
            }
            s->chan = (uint8_t) (*used)++;
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
    /* the timeline's buffer times, each end's ring (a join's input lives in the output's buffers) */
    size_t n_times = 0;
    uint32_t ddr_cols = 0; /* a bit per column whose shim the design uses */
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t i = 0; i < d->n_fifos; i++) {
            struct fifo *f = &d->fifos[i];
            for (uint32_t c = 0; c <= f->n_cons; c++) {
                struct fifo_side *s = c == 0 ? &f->prod : &f->cons[c - 1];
                if (s->type == XDNA_TILE_SHIM) {
                    ddr_cols |= 1u << s->tile.col;
                    continue;
                }
                s->ring = c > 0 && s->aliased ? d->fifos[d->links[s->link].out[0]].depth : f->depth;
                if (pass == 1) {
                    s->t_full = d->times + n_times;
                    s->t_free = s->t_full + s->ring;
                }
                n_times += 2 * (size_t) s->ring;
            }
        }
        if (pass == 0) {
            d->times = calloc(n_times ? n_times : 1, sizeof(*d->times));
            if (!d->times) {
                return design_fail(d, VNPU_STATUS_NO_MEMORY, "design: cannot allocate its timeline");
            }
            n_times = 0;
        }
    }
    const uint32_t n_ddr_cols = (uint32_t) __builtin_popcount(ddr_cols);
    d->ddr_bpc_col = n_ddr_cols ? d->dev->ddr_gbytes_per_s / d->dev->clock_ghz / n_ddr_cols : 0.0;
    find_components(d);
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN); /* once: it reads /sys, and a model runs a design per node */
    d->n_threads = cpus < 1 ? 1 : (uint32_t) cpus < d->n_comps ? (uint32_t) cpus : d->n_comps;
    d->built = true;
    return VNPU_STATUS_OK;
}

void xdna_design_trace(struct xdna_design *d, struct xdna_trace *t) {
    d->trace = t;
}

size_t xdna_design_tile_bytes(const struct xdna_design *d, struct xdna_tile tile) {
    if (!d->built || tile.col >= XDNA_MAX_COLS || tile.row >= XDNA_ROWS) {
        return 0;
    }
    return d->tile_bytes[tile.col][tile.row];
}
