/*
 * An XDNA device's Perfetto trace (the process's trace file, trace-file.h), on the cost model's timeline: the array has
 * no clock of the host's, so every event is where the model puts it (src/xdna/xdna-perf.h, xdna-array.h "Time").
 *
 * Tracks: the device is process XDNA_TRACE_PID ("NPU2 (AIE2P, modelled)"); thread 0, "graph (modelled)", holds a span
 * per design run ("MUL_MAT", args: node, modelled us, bound) and per op the CPU ran meanwhile ("CPU RMS_NORM"), one
 * after another from 0. Inside a run, half its fixed cost (run_us) after its start, the array's events: per compute
 * tile a track "(c,r) compute tile" of kernel calls (named by the kernel; args: the call's number on the tile) and
 * waits in acquires ("wait <fifo>"; args: the element), and per DMA channel a track "(c,r) <tile> S2MM k" / "MM2S k" of
 * the elements it moved (named by the fifo; args: the element). Tracks appear when first used. Past
 * XDNA_TRACE_MAX_EVENTS array events the runs are still traced, their tile events no longer (an instant event on
 * thread 0 says where).
 */
#ifndef VNPU_XDNA_TRACE_EXPORT_H
#define VNPU_XDNA_TRACE_EXPORT_H

#include "vnpu.h"
#include "xdna-array.h"
#include "xdna-perf.h"

#include <stdbool.h>
#include <stdint.h>

#define XDNA_TRACE_PID        64                          /* beside HTP<i>'s pid i + 1 */
#define XDNA_TRACE_MAX_EVENTS 1000000u                    /* array events a device writes (about 120 bytes each) */
#define XDNA_TRACE_LANES      (1 + 2 * XDNA_MAX_CHANNELS) /* a tile's tracks: its worker, its channels */

struct xdna_trace_export {
    const struct xdna_device *part;
    double clock_us;          /* the modelled timeline's present, from the first event */
    struct xdna_trace events; /* the run's events, filled by its design */
    uint64_t written;         /* array events written */
    bool stopped;             /* XDNA_TRACE_MAX_EVENTS reached */
    uint8_t named[(XDNA_MAX_COLS * XDNA_ROWS * XDNA_TRACE_LANES + 7) / 8]; /* tracks whose name is written */
};

/* Start tracing part's device into the trace file at path (trace_file_open's errors). */
enum vnpu_status xdna_trace_export_open(struct xdna_trace_export *t, const struct xdna_device *part, const char *path);
void xdna_trace_export_close(struct xdna_trace_export *t);

/* The buffer the next run's design appends its events to (xdna_design_trace), emptied, bounded by what is left; NULL
 * once XDNA_TRACE_MAX_EVENTS are written (the runs' spans go on). */
struct xdna_trace *xdna_trace_export_events(struct xdna_trace_export *t);

/* A design run of node `node`, modelled as m, with the events its design appended: written, the clock advanced. */
void xdna_trace_export_run(struct xdna_trace_export *t, const char *node, const struct xdna_perf_time *m);

/* An op the CPU ran (`name`: "CPU RMS_NORM") for us modelled microseconds: a span, the clock advanced. */
void xdna_trace_export_cpu(struct xdna_trace_export *t, const char *name, const char *node, double us);

#endif /* VNPU_XDNA_TRACE_EXPORT_H */
