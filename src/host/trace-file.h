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
 * VNPU_STATUS_BAD_ARG; vnpu_file_out_open's errors: path a directory or a device, its folder not writable). who names
 * the writer in messages. The file is written whole or not at all (file-out.h): the events go to a temporary beside
 * path, which replaces it when the last writer closes. */
enum vnpu_status trace_file_open(const char *who, const char *path);
/* One writer less; the last completes the file and puts it in place (a failed write is logged, naming who, and leaves
 * no file: trace_file_result says so). */
void trace_file_close(const char *who);
/* How the last trace file ended: VNPU_STATUS_OK (or none yet), VNPU_STATUS_IO when it could not be written. A tool
 * that traced checks it once its devices are closed, and fails. */
enum vnpu_status trace_file_result(void);

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
