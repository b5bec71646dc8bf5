/* An XDNA device's Perfetto trace on the modelled timeline (xdna-trace-export.h). */
#include "xdna-trace-export.h"

#include "trace-file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum vnpu_status xdna_trace_export_open(struct xdna_trace_export *t, const struct xdna_device *part, const char *path) {
    memset(t, 0, sizeof(*t));
    t->part = part;
    const enum vnpu_status st = trace_file_open(part->name, path);
    if (st != VNPU_STATUS_OK) {
        return st;
    }
    char name[64];
    snprintf(name, sizeof(name), "%s (%s, modelled)", part->name, part->arch_name);
    trace_file_lock();
    trace_file_meta(XDNA_TRACE_PID, "process_name", -1, name);
    trace_file_meta(XDNA_TRACE_PID, "thread_name", 0, "graph (modelled)");
    trace_file_unlock();
    return VNPU_STATUS_OK;
}

void xdna_trace_export_close(struct xdna_trace_export *t) {
    free(t->events.ev);
    t->events = (struct xdna_trace){0};
    trace_file_close(t->part->name);
}

struct xdna_trace *xdna_trace_export_events(struct xdna_trace_export *t) {
    t->events.n = 0;
    t->events.truncated = false;
    if (t->stopped) {
        return NULL;
    }
    t->events.max_events = XDNA_TRACE_MAX_EVENTS - t->written; /* >= 1: at the limit, stopped */
    return &t->events;
}

/* One complete ("X") event: its name, place and length, the node it belongs to (or NULL) and more args (JSON members
 * of numbers and fixed words, or NULL). */
static void event_x(int tid, const char *name, double ts_us, double dur_us, const char *node, const char *more) {
    FILE *f = trace_file_stream();
    trace_file_sep();
    fputs("{\"name\":\"", f);
    trace_file_str(name);
    fprintf(f, "\",\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"ts\":%.4f,\"dur\":%.4f,\"args\":{", XDNA_TRACE_PID, tid, ts_us,
            dur_us);
    if (node) {
        fputs("\"node\":\"", f);
        trace_file_str(node);
        fputs(more ? "\"," : "\"", f);
    }
    fprintf(f, "%s}}", more ? more : "");
}

/* The track of a tile's worker (lane 0) or DMA channel, named when first used. */
static int track(struct xdna_trace_export *t, const struct xdna_trace_event *e) {
    const struct xdna_tile tile = {e->col, e->row};
    const uint32_t lane = e->kind == XDNA_TRACE_KERNEL || e->kind == XDNA_TRACE_ACQUIRE ? 0
                          : e->kind == XDNA_TRACE_S2MM                                  ? 1u + e->chan
                                                       : 1u + XDNA_MAX_CHANNELS + e->chan;
    const uint32_t k = ((uint32_t) tile.col * XDNA_ROWS + tile.row) * XDNA_TRACE_LANES + lane;
    if (!(t->named[k / 8] & (1u << (k % 8)))) {
        t->named[k / 8] |= (uint8_t) (1u << (k % 8));
        const char *type = xdna_tile_limits(xdna_tile_type_of_row(tile.row))->name;
        char name[64];
        if (lane == 0) {
            snprintf(name, sizeof(name), "(%u,%u) %s", tile.col, tile.row, type);
        } else {
            snprintf(name, sizeof(name), "(%u,%u) %s %s %u", tile.col, tile.row, type,
                     e->kind == XDNA_TRACE_S2MM ? "S2MM" : "MM2S", e->chan);
        }
        trace_file_meta(XDNA_TRACE_PID, "thread_name", (int) (1 + k), name);
    }
    return (int) (1 + k);
}

void xdna_trace_export_run(struct xdna_trace_export *t, const char *node, const struct xdna_perf_time *m) {
    char args[160], name[96];
    trace_file_lock();
    snprintf(args, sizeof(args), "\"us\":%.3f,\"bound\":\"%s\",\"macs\":%llu,\"ddr_bytes\":%llu", m->us,
             xdna_perf_bound_name(m->bound), (unsigned long long) m->macs, (unsigned long long) m->ddr_bytes);
    event_x(0, "MUL_MAT", t->clock_us, m->us, node, args);
    const double at = t->clock_us + m->fixed_us / 2, cycles_per_us = t->part->clock_ghz * 1e3;
    for (size_t i = 0; i < t->events.n; i++) {
        const struct xdna_trace_event *e = &t->events.ev[i];
        if (e->kind == XDNA_TRACE_ACQUIRE) {
            snprintf(name, sizeof(name), "wait %s", e->name);
        } else {
            snprintf(name, sizeof(name), "%s", e->name);
        }
        snprintf(args, sizeof(args), "\"%s\":%u", e->kind == XDNA_TRACE_KERNEL ? "call" : "element", e->index);
        event_x(track(t, e), name, at + e->t0 / cycles_per_us, (e->t1 - e->t0) / cycles_per_us, NULL, args);
    }
    t->written += t->events.n;
    if (!t->stopped && (t->events.truncated || t->written == XDNA_TRACE_MAX_EVENTS)) {
        t->stopped = true;
        trace_file_sep();
        fprintf(trace_file_stream(),
                "{\"name\":\"array events stop here (%llu written, a run's more would pass %u)\",\"ph\":\"i\","
                "\"s\":\"p\",\"pid\":%d,\"tid\":0,\"ts\":%.4f}",
                (unsigned long long) t->written, XDNA_TRACE_MAX_EVENTS, XDNA_TRACE_PID,
                t->clock_us + (t->events.truncated ? 0.0 : m->us));
    }
    t->clock_us += m->us;
    trace_file_unlock();
}

void xdna_trace_export_cpu(struct xdna_trace_export *t, const char *name, const char *node, double us) {
    char args[32];
    snprintf(args, sizeof(args), "\"us\":%.3f", us);
    trace_file_lock();
    event_x(0, name, t->clock_us, us, node, args);
    t->clock_us += us;
    trace_file_unlock();
}
