/*
 * The counts of a request's ops for the cost model (HTP_REQ_PERF, struct htp_thread_perf in htp-msg.h): what each
 * of the session's NPU threads executed in each op, by HVX class and scope, HMX operation and DMA queue. Only a
 * counting build (VNPU_HVX_COUNT: libvnpu-htp-vNN-counted.so) counts; in any other the request is refused, and
 * nothing here runs, so the normal build pays nothing.
 */
#ifndef VNPU_HTP_PERF_H
#define VNPU_HTP_PERF_H

#include "htp-ctx.h"

#include <stdbool.h>

/* Whether this library counts (VNPU_HVX_COUNT). */
bool htp_perf_counting(void);

/* Start counting op's work: zero the threads' accumulators and attach them to the work queue. */
void htp_perf_op_begin(struct htp_ctx *ctx);

/* Stop: out[0..ctx->n_threads-1] gets each thread's counts of the op (thread 0 also what the main thread ran
 * outside jobs), its busiest HTP_PERF_SCOPES scopes by name id and the rest under scope 0. */
void htp_perf_op_end(struct htp_ctx *ctx, struct htp_thread_perf *out);

/* The scope names registered so far (hvx_scope_name), each cut to HTP_PERF_NAME_LEN - 1 characters. */
void htp_perf_names(struct htp_perf_names *out);

#endif /* VNPU_HTP_PERF_H */
