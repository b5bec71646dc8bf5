/*
 * The process's trace file: Chrome trace-event JSON, which the Perfetto UI (ui.perfetto.dev) and chrome://tracing
 * open, {"traceEvents": [...]}, shared by every device that traces (each its own process track: HTP<i> pid i + 1,
 * the XDNA device XDNA_TRACE_PID). The devices write their events between trace_file_lock and trace_file_unlock, as
 * JSON objects of their own after trace_file_sep. Timestamps are microseconds from the file's opening
 * (trace_file_origin_us on the monotonic clock).
 */
#ifndef VNPU_TRACE_FILE_H
#define VNPU_TRACE_FILE_H

#include "vnpu.h"

#include <stdint.h>
#include <stdio.h>

/* One more writer of the trace at path; the first opens the file (another path while it is open:
 * VNPU_STATUS_BAD_ARG; VNPU_STATUS_IO when it cannot be written). who names the writer in messages. */
enum vnpu_status trace_file_open(const char *who, const char *path);
/* One writer less; the last completes and closes the file (a failed write is logged, naming who). */
void trace_file_close(const char *who);

void trace_file_lock(void);
void trace_file_unlock(void);

/* Under the lock: the stream, the separator before each event, a string as the inside of a JSON string, a metadata
 * event (what "process_name", "thread_name", "thread_sort_index"...; tid < 0: the process's), and the file's origin. */
FILE *trace_file_stream(void);
void trace_file_sep(void);
void trace_file_str(const char *s);
void trace_file_meta(uint32_t pid, const char *what, int tid, const char *name);
double trace_file_origin_us(void);

/* The monotonic clock in microseconds. */
double trace_file_now_us(void);

#endif /* VNPU_TRACE_FILE_H */
