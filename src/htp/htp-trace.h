/*
 * Trace events (the seed's hex-profile.h): a kernel brackets its compute sections and DMA waits with
 * start/stop records into the request's trace area, one array per NPU thread, which the host turns
 * into a Perfetto timeline (src/host/htp-trace-export.c).
 *
 *     htp_trace_start(tr, HTP_TRACE_HVX_COMP, block);
 *     ... compute block ...
 *     htp_trace_stop(tr, HTP_TRACE_HVX_COMP, block);
 *
 * info is a 15-bit progress tag (row, block, chunk or token index; higher bits are dropped). A thread
 * records only into its own array; records past the array's capacity are dropped. When the request
 * carries no trace area the capacity is 0 and a record costs one compare.
 */
#ifndef VNPU_HTP_TRACE_H
#define VNPU_HTP_TRACE_H

#include "htp-msg.h"
#include "vdsp-device.h"

#include <stdint.h>

struct htp_trace {
    struct htp_trace_evt *evt; /* this thread's records in the request block */
    uint32_t n;                /* records written */
    uint32_t cap;              /* room; 0 when the request is not traced */
    struct vdsp_device *dev;   /* the cycle counter */
};

static inline void htp_trace_record(struct htp_trace *tr, uint32_t id, uint32_t info) {
    if (tr->n < tr->cap) {
        struct htp_trace_evt *e = &tr->evt[tr->n++];
        e->cycles = (uint32_t) vdsp_cycles(tr->dev);
        e->id = (uint16_t) id;
        e->info = (uint16_t) info;
    }
}

static inline void htp_trace_start(struct htp_trace *tr, uint32_t id, uint32_t info) {
    htp_trace_record(tr, id, info & ~HTP_TRACE_STOP);
}

static inline void htp_trace_stop(struct htp_trace *tr, uint32_t id, uint32_t info) {
    htp_trace_record(tr, id, info | HTP_TRACE_STOP);
}

#endif /* VNPU_HTP_TRACE_H */
