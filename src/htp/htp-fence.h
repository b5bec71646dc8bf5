/*
 * Fences of a row-split group (seed 000, "Multi-Device Synchronization"; design notes 9.4): the barriers at which
 * the sessions of one logical device (HTP0[0-1]) meet before and after every op, each having computed its partition
 * of the op's output.
 *
 * Rules:
 *  1. Each device owns one 128-byte slot, 128-byte aligned, in a shared-DDR fence buffer every member maps (pinned):
 *     word 0 the sequence number of its last barrier, word 1 the status it arrived with, word 2 its device number
 *     (the N of HTP<N>, written by the host; messages only). One line per device: no two devices write a line.
 *  2. A slot is written status first, then seq (release); a reader loads seq, then status (acquire), so a status is
 *     read with the sequence it was written with. On the DSP the writer cleans the line after its stores and the
 *     reader invalidates it before its loads (Q6_dccleaninva_A, syncht): no coherence between NPU cores.
 *  3. The numbering is agreed and monotonic: the host gives each request a base (htp_req.fence_seq); its barriers
 *     are base + 1, base + 2, ...: op i's pre-op barrier base + 2i + 1, its post-op barrier base + 2i + 2. A session
 *     keeps no count of its own, so a reopened one is in step with the others at its first request.
 *  4. Sequence numbers are compared with signed 32-bit arithmetic: a peer has arrived at seq when
 *     (int32_t) (peer - seq) >= 0, so the numbering wraps around 2^32.
 *  5. A device arriving with an error status writes it and returns it at once: its slot unblocks the others, and
 *     it has nothing to wait for.
 *  6. A peer whose slot shows an error of this request ((int32_t) (peer - base) > 0) at this barrier or an earlier
 *     one (a peer that gave up waiting there) ends the wait with that error; a peer whose error is at a later
 *     barrier has passed this one, and the next barrier meets its error (a device signals no barrier after one that
 *     failed, so its slot keeps the barrier it stopped at). Errors at or before base are an earlier request's,
 *     stale.
 *  7. A wait spins briefly, then sleeps on the missing peer's seq word (vdsp_futex_wait_shared, at most
 *     HTP_FENCE_NAP_US at a time), woken by the writer; a peer that has not arrived within timeout_us ends the
 *     barrier with HTP_STATUS_FENCE_TIMEOUT naming it, written to the device's own slot so the others end too.
 *  8. A device flushes the output lines it wrote (htp-dcache.h) before its post-op barrier signals (main.c).
 */
#ifndef VNPU_HTP_FENCE_H
#define VNPU_HTP_FENCE_H

#include "hex-common.h"
#include "htp-msg.h"
#include "htp-status-msg.h"
#include "htp-trace.h"
#include "vdsp-device.h"

#include <stdint.h>

#define HTP_FENCE_SLOT_SIZE      HEX_L2_LINE_SIZE /* rule 1: a slot is one L2 line, so no two devices write a line */
#define HTP_FENCE_SPINS          256u /* polls before sleeping: a peer a few microseconds behind is met without a syscall */
#define HTP_FENCE_NAP_US         1000u /* longest sleep between polls: a wake that raced the sleep costs at most this */
#define HTP_FENCE_STALL_TIMEOUTS 4u    /* HTP_REQ_INJECT_STALL waits at most this many timeouts for a peer's error */

/* A session's view of its group's fences for one request. */
struct htp_fence {
    uint8_t *slots;          /* slot 0; slot d at slots + HTP_FENCE_SLOT_SIZE d (rule 1) */
    uint32_t idx;            /* this device's slot */
    uint32_t count;          /* devices in the group, 2..HTP_MAX_MDEV */
    uint32_t base;           /* the request's fence_seq (rule 3) */
    uint32_t timeout_us;     /* rule 7 */
    struct vdsp_device *dev; /* clock and futex */
    struct htp_trace *tr;    /* FENCE events (thread 0's) */
};

/* Slot word w (0 seq, 1 status, 2 device number) of device d (rule 1). */
static inline volatile uint32_t *htp_fence_word(const struct htp_fence *f, uint32_t d, uint32_t w) {
    return (volatile uint32_t *) (f->slots + (size_t) d * HTP_FENCE_SLOT_SIZE) + w;
}

/* Sequence numbers of op i's barriers (rule 3). */
static inline uint32_t htp_fence_seq_pre(const struct htp_fence *f, uint32_t op) {
    return f->base + 2 * op + 1;
}

static inline uint32_t htp_fence_seq_post(const struct htp_fence *f, uint32_t op) {
    return f->base + 2 * op + 2;
}

/* Write this device's slot: status, then seq (rule 2), and wake the peers sleeping on it (rule 7). */
void htp_fence_signal(const struct htp_fence *f, uint32_t seq, uint32_t status);

/* The group barrier at seq, arriving with status (HTP_STATUS_OK or the error of this device's op). Returns
 * HTP_STATUS_OK when every device arrived with OK; else the error (this device's, rule 5; a peer's, rule 6; or
 * HTP_STATUS_FENCE_TIMEOUT, rule 7), with a message after m's prefix naming the barrier and the device ("pre-op
 * barrier (seq 5): HTP1 (mdev 1) did not arrive within 200000 us"). what names the barrier in messages. Wrapped in
 * FENCE trace events. */
uint32_t htp_fence_barrier(const struct htp_fence *f, uint32_t seq, uint32_t status, const char *what,
                           struct htp_msg *m);

/* Wait, without signalling, until a peer's slot shows an error of this request (rule 6), at most wait_us: the
 * HTP_REQ_INJECT_STALL device, which never arrives. Returns the peer's error, or HTP_STATUS_FENCE_TIMEOUT. */
uint32_t htp_fence_wait_error(const struct htp_fence *f, uint64_t wait_us);

#endif /* VNPU_HTP_FENCE_H */
