/*
 * The trace of an HTP device as Chrome trace-event JSON, which the Perfetto UI (ui.perfetto.dev) and
 * chrome://tracing open: {"traceEvents": [...]} with "M" metadata naming processes and threads and
 * matched "B"/"E" events (ts in microseconds).
 *
 * Tracks: one process per device ("HTP0 (v79)", pid = index + 1); in it one thread per NPU worker
 * ("NPU worker <i>", tid i) and a host thread ("host requests", tid 100) with a span per request from
 * send to answer. Worker 0 carries an op span per op (named by the op, args: node, op index); inside them,
 * and on the other workers, HVX_COMP spans (args.info: the block index) and DMA spans (a wait in a pop;
 * args.info: the pop's ordinal). A row-split group's members are their own processes, and worker 0 of each shows, in
 * each op span, a FENCE span per barrier wait (args.info: its sequence number, low 15 bits) and an L2FLUSH span
 * for the dirty-tensor flush before the post-op barrier (args.info: the op index). NPU records carry 32-bit cycles:
 * each thread's are unwrapped from the request's start cycle and converted at the target clock, then placed after the
 * host time the request was sent. Spans a full record area cut short are closed at the thread's last timestamp.
 * Under the cost model (VNPU_PERF) the trace is on the modelled timeline instead: each request at its modelled start,
 * each op span at its modelled start and length, and every record inside an op placed at the same fraction of the
 * op's modelled span as of its host span (the process's modelled clock starts at 0).
 */
#include "htp-device-impl.h"
#include "htp-ops.h"

#include "log.h"
#include "trace-file.h"

#include <stdlib.h>
#include <string.h>

#define HTP_TRACE_HOST_TID 100

static void trace_meta(const struct htp_device *d, const char *what, int tid, const char *name) {
    trace_file_meta(d->index + 1, what, tid, name);
}

enum vnpu_status htp_trace_open(struct htp_device *d, const char *path) {
    enum vnpu_status st = trace_file_open(d->name, path);
    if (st != VNPU_STATUS_OK) {
        return st;
    }
    trace_file_lock();
    char name[64];
    snprintf(name, sizeof(name), "%s (v%u)", d->name, (unsigned) d->cfg->arch);
    trace_meta(d, "process_name", -1, name);
    for (uint32_t t = 0; t < d->n_threads; t++) {
        snprintf(name, sizeof(name), "NPU worker %u", t);
        trace_meta(d, "thread_name", (int) t, name);
    }
    trace_meta(d, "thread_name", HTP_TRACE_HOST_TID, "host requests");
    d->tracing = true;
    trace_file_unlock();
    return VNPU_STATUS_OK;
}

void htp_trace_close(struct htp_device *d) {
    if (!d->tracing) {
        return;
    }
    d->tracing = false;
    trace_file_close(d->name);
}

/* One B or E event. op >= 0 names an op span (args node, op); otherwise args.info. */
static void trace_event(const struct htp_device *d, char ph, int tid, double ts, const char *name, const char *node,
                        int op, uint32_t info) {
    FILE *f = trace_file_stream();
    trace_file_sep();
    fprintf(f, "{\"name\":\"%s\",\"ph\":\"%c\",\"pid\":%u,\"tid\":%d,\"ts\":%.3f", name, ph, d->index + 1, tid,
            ts - trace_file_origin_us());
    if (ph == 'B' && op >= 0) {
        fputs(",\"cat\":\"op\",\"args\":{\"node\":\"", f);
        trace_file_str(node);
        fprintf(f, "\",\"op\":%d}", op);
    } else if (ph == 'B') {
        fprintf(f, ",\"cat\":\"npu\",\"args\":{\"info\":%u}", info);
    }
    fputc('}', f);
}

static const char *trace_id_name(uint16_t id) {
    switch ((enum htp_trace_id) id) {
        case HTP_TRACE_DMA: return "DMA";
        case HTP_TRACE_L2FLUSH: return "L2FLUSH";
        case HTP_TRACE_OP: return "OP";
        case HTP_TRACE_FENCE: return "FENCE";
        case HTP_TRACE_HVX_COMP: return "HVX_COMP";
        case HTP_TRACE_HVX_A_QUANT: return "HVX_A_QUANT";
        case HTP_TRACE_HVX_W_DEQUANT: return "HVX_W_DEQUANT";
        case HTP_TRACE_HMX_COMP: return "HMX_COMP";
    }
    return "EVENT";
}

/* An open span of a thread's records. */
struct trace_open {
    uint16_t id, info;
    const char *name;
};

#define TRACE_MAX_DEPTH 16

/* The request's clock: NPU cycles since its start to trace microseconds, on the host's timeline or the model's. */
struct trace_clock {
    double t_send;                       /* host: the send; model: the ops' start (origin-relative + origin) */
    double mhz;                          /* host: the target clock */
    const struct htp_trace_model *model; /* NULL: host */
    uint32_t n_ops;
    uint64_t op_c0[HTP_MAX_OPS], op_c1[HTP_MAX_OPS]; /* model: each op's host cycles, from thread 0's OP records */
    double op_t0[HTP_MAX_OPS];                       /* model: each op's modelled start */
};

/* Thread t's records (evt, n) and the count. */
static const struct htp_trace_evt *trace_records(const struct htp_req *req, uint32_t t, uint32_t *n) {
    *n = req->rsp.n_trace[t] < req->n_trace ? req->rsp.n_trace[t] : req->n_trace;
    return (const struct htp_trace_evt *) ((const uint8_t *) req + req->off_trace) + (size_t) t * req->n_trace;
}

/* The op spans' host cycles from thread 0's OP records, and the modelled starts of the ops. */
static void trace_clock_model(struct trace_clock *c, const struct htp_req *req) {
    const struct htp_trace_model *m = c->model;
    c->n_ops = m->n_ops < req->n_ops ? m->n_ops : req->n_ops;
    double at = c->t_send;
    for (uint32_t i = 0; i < c->n_ops; i++) {
        c->op_c0[i] = c->op_c1[i] = 0;
        c->op_t0[i] = at;
        at += m->op_us[i];
    }
    uint32_t n;
    const struct htp_trace_evt *evt = trace_records(req, 0, &n);
    uint64_t cycles = req->rsp.cycles_start;
    for (uint32_t i = 0; i < n; i++) {
        cycles += (uint32_t) (evt[i].cycles - (uint32_t) cycles);
        const uint16_t info = evt[i].info & ~HTP_TRACE_STOP;
        if (evt[i].id == HTP_TRACE_OP && info < c->n_ops) {
            *((evt[i].info & HTP_TRACE_STOP) ? &c->op_c1[info] : &c->op_c0[info]) = cycles;
        }
    }
}

/* When cycles happened on c's timeline: on the model's, at its fraction of the op it falls in (the end of the last op
 * before it, between ops). */
static double trace_clock_at(const struct trace_clock *c, uint64_t cycles, uint64_t cycles_start) {
    if (!c->model) {
        return c->t_send + (double) (cycles - cycles_start) / c->mhz;
    }
    double at = c->t_send;
    for (uint32_t i = 0; i < c->n_ops && c->op_c0[i] <= cycles; i++) {
        const uint64_t len = c->op_c1[i] > c->op_c0[i] ? c->op_c1[i] - c->op_c0[i] : 0;
        const double f = len && cycles < c->op_c1[i] ? (double) (cycles - c->op_c0[i]) / (double) len : 1.0;
        at = c->op_t0[i] + f * c->model->op_us[i];
    }
    return at;
}

/* The spans of one thread's records. */
static void trace_thread(const struct htp_device *d, const struct htp_req *req, uint32_t t, const struct trace_clock *c,
                         const struct vnpu_tensor *const *op_nodes) {
    uint32_t n;
    const struct htp_trace_evt *evt = trace_records(req, t, &n);
    uint64_t cycles = req->rsp.cycles_start;
    double ts = c->t_send;
    struct trace_open open[TRACE_MAX_DEPTH];
    int depth = 0;
    for (uint32_t i = 0; i < n; i++) {
        cycles += (uint32_t) (evt[i].cycles - (uint32_t) cycles); /* records are in time order on a thread */
        const double at = trace_clock_at(c, cycles, req->rsp.cycles_start);
        ts = at > ts ? at : ts;
        const uint16_t info = evt[i].info & ~HTP_TRACE_STOP;
        if (!(evt[i].info & HTP_TRACE_STOP)) {
            if (depth == TRACE_MAX_DEPTH) {
                continue; /* deeper than any kernel nests: dropped with its stop */
            }
            const bool is_op = evt[i].id == HTP_TRACE_OP && info < req->n_ops;
            const struct htp_op_desc *ops = (const struct htp_op_desc *) ((const uint8_t *) req + req->off_ops);
            open[depth] =
                (struct trace_open){evt[i].id, info, is_op ? htp_op_name(ops[info].opcode) : trace_id_name(evt[i].id)};
            trace_event(d, 'B', (int) t, ts, open[depth].name, is_op ? op_nodes[info]->name : "", is_op ? info : -1,
                        info);
            depth++;
            continue;
        }
        int k = depth - 1;
        while (k >= 0 && !(open[k].id == evt[i].id && open[k].info == info)) {
            k--;
        }
        while (k >= 0 && depth > k) { /* close the match and anything left open inside it */
            depth--;
            trace_event(d, 'E', (int) t, ts, open[depth].name, NULL, -1, 0);
        }
    }
    while (depth > 0) {
        depth--;
        trace_event(d, 'E', (int) t, ts, open[depth].name, NULL, -1, 0);
    }
}

void htp_trace_request(struct htp_device *d, const struct htp_req *req, double t_send_us, double t_recv_us,
                       const struct vnpu_tensor *const *op_nodes, const struct htp_trace_model *model) {
    char name[48];
    snprintf(name, sizeof(name), "request %u", req->id);
    static struct trace_clock clock; /* under the trace file's lock: too large for a worker's stack */
    trace_file_lock();
    clock.model = model;
    clock.mhz = d->target.clock_mhz ? d->target.clock_mhz : 1000.0;
    clock.t_send = t_send_us;
    if (model) { /* the modelled clock, from the trace's origin */
        double ops = 0.0;
        for (uint32_t i = 0; i < model->n_ops; i++) {
            ops += model->op_us[i];
        }
        t_send_us = trace_file_origin_us() + model->start_us;
        t_recv_us = t_send_us + model->request_us + ops;
        clock.t_send = t_send_us + model->request_us / 2;
        trace_clock_model(&clock, req);
    }
    trace_file_sep();
    fprintf(trace_file_stream(),
            "{\"name\":\"%s\",\"ph\":\"B\",\"pid\":%u,\"tid\":%d,\"ts\":%.3f,\"cat\":\"host\","
            "\"args\":{\"ops\":%u,\"status\":%u,\"npu_us\":%u}}",
            name, d->index + 1, HTP_TRACE_HOST_TID, t_send_us - trace_file_origin_us(), req->n_ops, req->rsp.status,
            req->rsp.usecs);
    trace_event(d, 'E', HTP_TRACE_HOST_TID, t_recv_us, name, NULL, -1, 0);
    for (uint32_t t = 0; t < d->n_threads && t < HTP_MAX_NTHREADS; t++) {
        trace_thread(d, req, t, &clock, op_nodes);
    }
    trace_file_unlock();
}
