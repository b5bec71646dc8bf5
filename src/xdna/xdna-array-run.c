/*
 * The tile array's run (xdna-array.h, rules 7 and 8): the scheduler steps each component's DMAs and workers in a fixed
 * order until all is done or a round does nothing, components on the host's cores at once (xdna-array.c builds and
 * lays out what it steps).
 */
#include "xdna-array-impl.h"

#include "fp16.h"
#include "log.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* One host thread's run of components: what they share (the DDR buffers, the transfers' taps) and its own state. */
struct run_ctx {
    void *const *ddr;
    struct xdna_run_stats *stats;     /* this thread's, NULL when the caller asked for none */
    const struct xdna_tap *task_taps; /* per task: its tap, or the whole buffer for an untapped one */
    struct run_it ddr_it[MAX_FIFOS];  /* the running transfer's place in DDR, per fifo */
    uint64_t macs_scratch;
    char *err; /* a failing component's message (ERR_BYTES) */
    /* the timeline of the component running (xdna-array.h, "Time") */
    double chan_free[XDNA_MAX_COLS][XDNA_ROWS][2][XDNA_MAX_CHANNELS]; /* when each DMA channel is free, [0] S2MM */
    double col_ddr_bytes[XDNA_MAX_COLS];                              /* DDR bytes of each column's shim */
    double t_end;                                                     /* its last event */
    double comp_cycles, comp_ddr; /* its length, and its busiest column's DDR bytes at the share (at its end) */
    struct xdna_trace *trace;     /* this thread's events, NULL: none */
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

static double dmax(double a, double b) {
    return a > b ? a : b;
}

/* Room in t for more events (its capacity at least doubled); false, and t marked truncated, when it cannot grow. */
static bool trace_reserve(struct xdna_trace *t, size_t more) {
    const size_t need = t->n + more;
    if (need >= t->n && need <= t->cap) {
        return true;
    }
    size_t cap = t->cap > SIZE_MAX / 2 ? SIZE_MAX : 2 * t->cap;
    cap = need > cap ? need : cap < 1024 ? 1024 : cap;
    struct xdna_trace_event *ev =
        need < t->n || cap > SIZE_MAX / sizeof(*ev) ? NULL : realloc(t->ev, cap * sizeof(*ev));
    if (!ev) {
        t->truncated = true;
        return false;
    }
    t->ev = ev;
    t->cap = cap;
    return true;
}

/* An event of the timeline into the thread's trace (none when the design does not trace; dropped, and the trace
 * marked truncated, when it cannot grow). */
static void trace_add(struct run_ctx *rc, const struct xdna_trace_event *e) {
    struct xdna_trace *t = rc->trace;
    if (t && trace_reserve(t, 1)) {
        t->ev[t->n++] = *e;
    }
}

/* When element n of fifo f is ready at its producer's side: released by its worker, arrived at its link's input
 * (every input of a join), or at once from DDR (the shim channel's turn decides). */
static double src_ready_at(const struct xdna_design *d, const struct fifo *f, uint64_t n) {
    const struct fifo_side *p = &f->prod;
    if (p->type == XDNA_TILE_SHIM) {
        return 0.0;
    }
    if (p->link < 0) {
        return p->t_full[n % p->ring];
    }
    const struct link *l = &d->links[p->link];
    double t = 0.0;
    for (uint32_t i = 0; i < l->n_in; i++) {
        const struct fifo_side *s = &d->fifos[l->in[i]].cons[l->in_cons[i]];
        t = dmax(t, s->t_full[n % s->ring]);
    }
    return t;
}

/* When consumer c of f has the buffer for element n free: the element before it there was released by its worker or
 * sent on by its link (a join's input: the output element it lands in was sent); DDR at once. */
static double dst_free_at(const struct xdna_design *d, const struct fifo *f, uint32_t c, uint64_t n) {
    const struct fifo_side *s = &f->cons[c];
    if (s->type == XDNA_TILE_SHIM) {
        return 0.0;
    }
    if (s->aliased) {
        const struct fifo_side *o = &d->fifos[d->links[s->link].out[0]].prod;
        return o->t_free[n % o->ring];
    }
    return s->t_free[n % s->ring];
}

/* The element n of f moved in [t0, t1): the producer's buffer free from t1 (a split's output: the input's buffer,
 * once every output has sent it), each consumer's full at t1. */
static void move_times(struct xdna_design *d, struct fifo *f, uint64_t n, double t1) {
    struct fifo_side *p = &f->prod;
    if (p->type != XDNA_TILE_SHIM) {
        if (p->aliased) {
            const struct link *l = &d->links[p->link];
            struct fifo_side *in = &d->fifos[l->in[0]].cons[l->in_cons[0]];
            in->t_free[n % in->ring] = dmax(in->t_free[n % in->ring], t1);
        } else {
            p->t_free[n % p->ring] = t1;
        }
    }
    for (uint32_t c = 0; c < f->n_cons; c++) {
        struct fifo_side *s = &f->cons[c];
        if (s->type != XDNA_TILE_SHIM) {
            s->t_full[n % s->ring] = t1;
            if (s->link >= 0 && !s->aliased) {
                s->t_free[n % s->ring] = 0.0; /* its outputs' sends raise it */
            }
        }
    }
}

/* A DMA channel's event: busy in the stats, the trace's event, the component's end. */
static void chan_event(struct xdna_design *d, struct run_ctx *rc, const struct fifo *f, const struct fifo_side *s,
                       bool mm2s, uint64_t n, double t0, double t1) {
    rc->chan_free[s->tile.col][s->tile.row][mm2s][s->chan] = t1;
    rc->t_end = dmax(rc->t_end, t1);
    if (rc->stats) {
        tile_stats(rc, s->tile)->chan_cycles[mm2s][s->chan] += t1 - t0;
    }
    trace_add(rc, &(struct xdna_trace_event){.t0 = t0,
                                             .t1 = t1,
                                             .name = f->name,
                                             .index = (uint32_t) n,
                                             .fifo = (int16_t) (f - d->fifos),
                                             .col = s->tile.col,
                                             .row = s->tile.row,
                                             .chan = s->chan,
                                             .kind = mm2s ? XDNA_TRACE_MM2S : XDNA_TRACE_S2MM});
}

/* When element n of f moves, and until when: from the latest of its readiness, every consumer's free buffer and every
 * channel's turn, for its stream bytes (at a shim, at least its DDR bytes at the column's share). */
static void move_timeline(struct xdna_design *d, struct run_ctx *rc, struct fifo *f, uint64_t n, bool conv) {
    const struct fifo_side *p = &f->prod;
    double t0 = dmax(src_ready_at(d, f, n), rc->chan_free[p->tile.col][p->tile.row][1][p->chan]);
    for (uint32_t c = 0; c < f->n_cons; c++) {
        const struct fifo_side *s = &f->cons[c];
        t0 = dmax(t0, dmax(dst_free_at(d, f, c, n), rc->chan_free[s->tile.col][s->tile.row][0][s->chan]));
    }
    double len = (double) f->elem_size / d->dev->stream_bytes_per_cycle;
    for (uint32_t c = 0; c <= f->n_cons; c++) { /* the fill's shim, and every draining shim of a broadcast */
        const struct fifo_side *s = c == 0 ? p : &f->cons[c - 1];
        if (s->type == XDNA_TILE_SHIM) {
            const double ddr = (double) f->elem_count * (c == 0 && conv ? 4 : f->elem_bytes);
            rc->col_ddr_bytes[s->tile.col] += ddr;
            len = dmax(len, ddr / d->ddr_bpc_col);
        }
    }
    const double t1 = t0 + len;
    move_times(d, f, n, t1);
    chan_event(d, rc, f, p, true, n, t0, t1);
    for (uint32_t c = 0; c < f->n_cons; c++) {
        chan_event(d, rc, f, &f->cons[c], false, n, t0, t1);
    }
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
    move_timeline(d, rc, f, n, conv);
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
                const double t0 = w->t;
                for (uint64_t e = s->acq; e < s->acq + op->n; e++) {
                    w->t = dmax(w->t, op->side < 0 ? s->t_free[e % s->ring] : s->t_full[e % s->ring]);
                }
                if (w->t > t0) {
                    if (rc->stats) {
                        tile_stats(rc, w->tile)->wait_cycles += w->t - t0;
                    }
                    trace_add(rc, &(struct xdna_trace_event){.t0 = t0,
                                                             .t1 = w->t,
                                                             .name = d->fifos[op->fifo].name,
                                                             .index = (uint32_t) s->acq,
                                                             .fifo = (int16_t) op->fifo,
                                                             .col = w->tile.col,
                                                             .row = w->tile.row,
                                                             .kind = XDNA_TRACE_ACQUIRE});
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
                for (uint64_t e = s->rel; e < s->rel + op->n; e++) {
                    *(op->side < 0 ? &s->t_full[e % s->ring] : &s->t_free[e % s->ring]) = w->t;
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
                uint64_t cycles = 0;
                call.cycles = &cycles;
                op->kernel->fn(&call);
                const double t0 = w->t;
                w->t += (double) cycles;
                rc->t_end = dmax(rc->t_end, w->t);
                if (rc->stats) {
                    tile_stats(rc, w->tile)->kernel_calls++;
                    tile_stats(rc, w->tile)->kernel_cycles += (double) cycles;
                }
                trace_add(rc, &(struct xdna_trace_event){.t0 = t0,
                                                         .t1 = w->t,
                                                         .name = op->kernel->name ? op->kernel->name : "?",
                                                         .index = (uint32_t) w->calls++,
                                                         .fifo = -1,
                                                         .col = w->tile.col,
                                                         .row = w->tile.row,
                                                         .kind = XDNA_TRACE_KERNEL});
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
        for (uint32_t j = 0; j <= f->n_cons; j++) {
            struct fifo_side *s = j == 0 ? &f->prod : &f->cons[j - 1];
            s->acq = s->rel = s->recv = 0;
            if (s->t_full) {
                memset(s->t_full, 0, 2 * (size_t) s->ring * sizeof(double)); /* t_free follows t_full */
            }
        }
        task_start(d, rc, f, f->first_task);
    }
    for (uint32_t k = w0; k < w1; k++) {
        struct worker *w = &d->workers[workers[k]];
        w->pc = 0;
        w->n_loops = 0;
        w->done = false;
        w->t = 0.0;
        w->calls = 0;
    }
    memset(rc->chan_free, 0, sizeof(rc->chan_free));
    memset(rc->col_ddr_bytes, 0, sizeof(rc->col_ddr_bytes));
    rc->t_end = 0.0;
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
        if (st != VNPU_STATUS_OK) {
            return st;
        }
        if (done) {
            break;
        }
        if (!progress) {
            return report_deadlock(d, rc, c);
        }
    }
    /* its length: its last event, or its columns' DDR bytes at their share if that is later */
    rc->comp_ddr = 0.0;
    for (uint32_t col = 0; col < XDNA_MAX_COLS; col++) {
        if (rc->col_ddr_bytes[col] > 0.0) {
            rc->comp_ddr = dmax(rc->comp_ddr, rc->col_ddr_bytes[col] / d->ddr_bpc_col);
        }
    }
    rc->comp_cycles = dmax(rc->t_end, rc->comp_ddr);
    return VNPU_STATUS_OK;
}

/* A host thread of a run: components taken in turn from *next, each run to its end; the first failing one's (the
 * lowest number, whatever the threads' timing) status and message kept. */
struct run_thread {
    struct xdna_design *d;
    uint32_t *next;
    struct run_ctx rc;
    struct xdna_run_stats stats;
    double cycles, ddr_cycles;                     /* its longest component's, its busiest column's DDR time */
    struct xdna_trace trace;                       /* its components' events, when the design traces */
    size_t ev_first[MAX_COMPS], ev_end[MAX_COMPS]; /* component c's events in trace, if it ran c */
    uint32_t index;                                /* its number, written into *comp_thread for each it runs */
    uint32_t *comp_thread;
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
        t->comp_thread[c] = t->index;
        t->ev_first[c] = t->trace.n;
        const enum vnpu_status st = run_component(t->d, &t->rc, c);
        t->ev_end[c] = t->trace.n;
        if (st != VNPU_STATUS_OK && t->st == VNPU_STATUS_OK) {
            t->st = st;
            t->failed = c;
            memcpy(t->err, t->rc.err, ERR_BYTES);
        }
        if (st == VNPU_STATUS_OK) {
            t->cycles = dmax(t->cycles, t->rc.comp_cycles);
            t->ddr_cycles = dmax(t->ddr_cycles, t->rc.comp_ddr);
        }
    }
}

/* The threads' events appended to the design's trace in component order (each component ran on one thread), unless
 * they would pass its max_events: then none, and the trace is marked truncated. */
static void trace_merge(struct xdna_design *d, struct run_thread *t, uint32_t n_threads, const uint32_t *comp_thread) {
    struct xdna_trace *out = d->trace;
    size_t n = 0;
    for (uint32_t i = 0; i < n_threads; i++) {
        n += t[i].trace.n;
        out->truncated |= t[i].trace.truncated;
    }
    if (n == 0) {
        return;
    }
    if ((out->max_events && out->n + n > out->max_events) || out->n + n < out->n) {
        out->truncated = true;
        return;
    }
    if (!trace_reserve(out, n)) {
        return;
    }
    for (uint32_t c = 0; c < d->n_comps; c++) {
        const struct run_thread *r = &t[comp_thread[c]];
        const size_t k = r->ev_end[c] - r->ev_first[c];
        memcpy(out->ev + out->n, r->trace.ev + r->ev_first[c], k * sizeof(*out->ev));
        out->n += k;
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
            a->kernel_cycles += b->kernel_cycles;
            a->wait_cycles += b->wait_cycles;
            for (int dir = 0; dir < 2; dir++) {
                for (int ch = 0; ch < XDNA_MAX_CHANNELS; ch++) {
                    a->chan_cycles[dir][ch] += b->chan_cycles[dir][ch];
                }
            }
        }
    }
    sum->ddr_read_bytes += s->ddr_read_bytes;
    sum->ddr_write_bytes += s->ddr_write_bytes;
    sum->rounds += s->rounds;
    sum->cycles += s->cycles;
    sum->ddr_cycles += s->ddr_cycles;
}

/* Every component of d, on as many host threads as the host has CPUs (at most one a component): components share
 * nothing, so the result is the same whatever the threads. */
static enum vnpu_status run_components(struct xdna_design *d, void *const *ddr, const struct xdna_tap *taps,
                                       struct xdna_run_stats *stats) {
    if (d->n_comps == 0) {
        return VNPU_STATUS_OK; /* an empty design: nothing to do */
    }
    const uint32_t n = d->n_threads;
    struct run_thread *t = calloc(n, sizeof(*t));
    pthread_t *tid = calloc(n, sizeof(*tid));
    if (!t || !tid) {
        free(t);
        free(tid);
        return run_fail(d, VNPU_STATUS_NO_MEMORY, "xdna_design_run: cannot allocate the run's state");
    }
    uint32_t next = 0, started = 1, comp_thread[MAX_COMPS];
    for (uint32_t i = 0; i < n; i++) {
        t[i].index = i;
        t[i].comp_thread = comp_thread;
        t[i].d = d;
        t[i].next = &next;
        t[i].rc.ddr = ddr;
        t[i].rc.stats = stats ? &t[i].stats : NULL;
        t[i].rc.task_taps = taps;
        t[i].rc.err = t[i].scratch;
        t[i].rc.trace = d->trace ? &t[i].trace : NULL;
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
            stats->cycles = dmax(stats->cycles, t[i].cycles); /* the components run at once */
            stats->ddr_cycles = dmax(stats->ddr_cycles, t[i].ddr_cycles);
        }
        if (t[i].st != VNPU_STATUS_OK && t[i].failed < failed) {
            st = t[i].st;
            failed = t[i].failed;
            err = t[i].err;
        }
    }
    if (err) {
        run_fail(d, st, "%s", err);
    } else if (d->trace) {
        trace_merge(d, t, n, comp_thread);
    }
    for (uint32_t i = 0; i < n; i++) {
        free(t[i].trace.ev);
    }
    free(t);
    free(tid);
    return st;
}

/* The components (a bit each) whose runtime transfers fill (fill) or drain into DDR buffer i, into masks[2 i + fill].
 */
static void ddr_comp_masks(const struct xdna_design *d, uint64_t *masks) {
    static_assert(MAX_COMPS <= 64, "a component a bit");
    for (uint32_t c = 0; c < d->n_comps; c++) {
        for (uint32_t k = d->comp_first_fifo[c]; k < d->comp_first_fifo[c + 1]; k++) {
            for (int t = d->fifos[d->comp_fifos[k]].first_task; t >= 0; t = d->tasks[t].next) {
                masks[2 * (size_t) d->tasks[t].ddr_index + d->tasks[t].fill] |= 1ull << c;
            }
        }
    }
}

/* The first transfer of fifos in component mask whose fill is fill and whose DDR buffer is i. */
static const struct fifo *ddr_user(const struct xdna_design *d, uint64_t mask, bool fill, uint32_t i) {
    for (uint32_t c = 0; c < d->n_comps; c++) {
        for (uint32_t k = d->comp_first_fifo[c]; (mask >> c & 1) && k < d->comp_first_fifo[c + 1]; k++) {
            const struct fifo *f = &d->fifos[d->comp_fifos[k]];
            for (int t = f->first_task; t >= 0; t = d->tasks[t].next) {
                if (d->tasks[t].fill == fill && d->tasks[t].ddr_index == i) {
                    return f;
                }
            }
        }
    }
    return NULL;
}

/* Rule 8: the components run at once, so no component may fill from a DDR buffer another drains into (which bytes it
 * read would depend on the host's threads). Buffers are told apart by address. Drains of several components into one
 * buffer are the design's to keep apart, as on the hardware. */
static enum vnpu_status check_ddr_sharing(struct xdna_design *d, void *const *ddr, uint32_t n_ddr) {
    uint64_t *masks = calloc(2 * (size_t) n_ddr, sizeof(*masks));
    if (!masks) {
        return run_fail(d, VNPU_STATUS_NO_MEMORY, "xdna_design_run: cannot allocate the run's state");
    }
    ddr_comp_masks(d, masks);
    enum vnpu_status st = VNPU_STATUS_OK;
    for (uint32_t i = 0; i < n_ddr && st == VNPU_STATUS_OK; i++) {
        for (uint32_t j = 0; j < n_ddr && st == VNPU_STATUS_OK; j++) {
            const uint64_t drains = masks[2 * i], fills = masks[2 * j + 1];
            if (ddr[i] != ddr[j] || !drains || !fills || (drains == fills && !(drains & (drains - 1)))) {
                continue; /* another buffer, or one component alone */
            }
            /* a filling component b and a draining one a != b: b outside the drains if one is, a the lowest other */
            const uint64_t b_pick = fills & ~drains ? fills & ~drains : fills, b = b_pick & -b_pick;
            const uint64_t a_rest = drains & ~b, a = a_rest & -a_rest;
            const struct fifo *reader = ddr_user(d, b, true, j), *writer = ddr_user(d, a, false, i);
            st = run_fail(d, VNPU_STATUS_BAD_ARG,
                          "runtime fill of fifo '%s' reads DDR buffer %u, which the drain of fifo '%s' writes%s: they "
                          "share no tile, so they run at once and the bytes read would depend on the host's threads "
                          "(rule 8)",
                          reader->name, j, writer->name, i == j ? "" : " (the same memory)");
        }
    }
    free(masks);
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
        st = check_ddr_sharing(d, ddr, n_ddr);
    }
    if (st == VNPU_STATUS_OK) {
        st = run_components(d, ddr, taps, stats);
    }
    free(taps);
    return st;
}
