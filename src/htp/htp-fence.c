/* The group barrier (htp-fence.h, whose rules the comments below name). */
#include "htp-fence.h"

/* Device d's slot: seq, then the status written with it (rule 2). */
static void fence_read(const struct htp_fence *f, uint32_t d, uint32_t *seq, uint32_t *status) {
    *seq = __atomic_load_n(htp_fence_word(f, d, 0), __ATOMIC_ACQUIRE);
    *status = __atomic_load_n(htp_fence_word(f, d, 1), __ATOMIC_RELAXED);
}

void htp_fence_signal(const struct htp_fence *f, uint32_t seq, uint32_t status) {
    __atomic_store_n(htp_fence_word(f, f->idx, 1), status, __ATOMIC_RELAXED);
    __atomic_store_n(htp_fence_word(f, f->idx, 0), seq, __ATOMIC_RELEASE); /* rule 2: the status is seen with it */
    vdsp_futex_wake_shared(htp_fence_word(f, f->idx, 0));
}

/* Whether a slot's (seq, status) is an error of this request (rule 6). */
static bool fence_is_error(const struct htp_fence *f, uint32_t seq, uint32_t status) {
    return status != HTP_STATUS_OK && (int32_t) (seq - f->base) > 0;
}

/* Whether a slot's (peer, status) ends the barrier at seq with the peer's error (rule 6): an error at seq, or at a
 * barrier before it that the peer did not get past; an error after seq means the peer passed this barrier. */
static bool fence_ends_barrier(const struct htp_fence *f, uint32_t seq, uint32_t peer, uint32_t status) {
    return fence_is_error(f, peer, status) && (int32_t) (peer - seq) <= 0;
}

/* "HTP<n> (mdev d)": the device the host wrote into slot d (rule 1). */
static void fence_msg_device(struct htp_msg *m, const struct htp_fence *f, uint32_t d) {
    htp_msg_str(m, "HTP");
    htp_msg_u64(m, __atomic_load_n(htp_fence_word(f, d, 2), __ATOMIC_RELAXED), 10);
    htp_msg_str(m, " (mdev ");
    htp_msg_u64(m, d, 10);
    htp_msg_str(m, ")");
}

static void fence_msg_barrier(struct htp_msg *m, const char *what, uint32_t seq) {
    htp_msg_str(m, what);
    htp_msg_str(m, " (seq ");
    htp_msg_u64(m, seq, 10);
    htp_msg_str(m, "): ");
}

uint32_t htp_fence_barrier(const struct htp_fence *f, uint32_t seq, uint32_t status, const char *what,
                           struct htp_msg *m) {
    htp_fence_signal(f, seq, status);
    if (status != HTP_STATUS_OK) {
        return status; /* rule 5 */
    }
    htp_trace_start(f->tr, HTP_TRACE_FENCE, seq);
    const uint64_t t0 = vdsp_usecs(f->dev);
    uint32_t st = HTP_STATUS_OK;
    for (uint32_t spins = 0;; spins++) {
        uint32_t missing = f->count, missing_seq = 0;
        for (uint32_t d = 0; d < f->count && st == HTP_STATUS_OK; d++) {
            uint32_t peer, peer_st;
            if (d == f->idx) {
                continue;
            }
            fence_read(f, d, &peer, &peer_st);
            if (fence_ends_barrier(f, seq, peer, peer_st)) { /* rule 6 */
                fence_msg_barrier(m, what, seq);
                fence_msg_device(m, f, d);
                htp_msg_str(m, " failed at seq ");
                htp_msg_u64(m, peer, 10);
                htp_msg_str(m, " with status ");
                htp_msg_u64(m, peer_st, 10);
                st = peer_st;
            } else if ((int32_t) (peer - seq) < 0 && missing == f->count) { /* rule 4 */
                missing = d;
                missing_seq = peer;
            }
        }
        if (st != HTP_STATUS_OK || missing == f->count) {
            break;
        }
        if (spins < HTP_FENCE_SPINS) {
            hex_pause();
            continue;
        }
        const uint64_t waited = vdsp_usecs(f->dev) - t0;
        if (waited >= f->timeout_us) { /* rule 7 */
            fence_msg_barrier(m, what, seq);
            fence_msg_device(m, f, missing);
            htp_msg_str(m, " did not arrive within ");
            htp_msg_u64(m, f->timeout_us, 10);
            htp_msg_str(m, " us (its slot says seq ");
            htp_msg_u64(m, missing_seq, 10);
            htp_msg_str(m, "; VNPU_FENCE_TIMEOUT_MS sets the wait)");
            st = HTP_STATUS_FENCE_TIMEOUT;
            break;
        }
        const uint64_t left = f->timeout_us - waited;
        vdsp_futex_wait_shared(htp_fence_word(f, missing, 0), missing_seq,
                               left < HTP_FENCE_NAP_US ? (uint32_t) left : HTP_FENCE_NAP_US);
    }
    if (st != HTP_STATUS_OK) {
        htp_fence_signal(f, seq, st); /* rules 6, 7: the peers still waiting end too */
    }
    htp_trace_stop(f->tr, HTP_TRACE_FENCE, seq);
    return st;
}

uint32_t htp_fence_wait_error(const struct htp_fence *f, uint64_t wait_us) {
    const uint64_t t0 = vdsp_usecs(f->dev);
    const uint32_t first_peer = f->idx == 0 ? 1 : 0;
    for (;;) {
        uint32_t sleep_seq = 0;
        for (uint32_t d = 0; d < f->count; d++) {
            uint32_t peer, peer_st;
            if (d == f->idx) {
                continue;
            }
            fence_read(f, d, &peer, &peer_st);
            if (fence_is_error(f, peer, peer_st)) {
                return peer_st;
            }
            sleep_seq = d == first_peer ? peer : sleep_seq;
        }
        const uint64_t waited = vdsp_usecs(f->dev) - t0;
        if (waited >= wait_us) {
            return HTP_STATUS_FENCE_TIMEOUT;
        }
        const uint64_t left = wait_us - waited;
        vdsp_futex_wait_shared(htp_fence_word(f, first_peer, 0), sleep_seq,
                               left < HTP_FENCE_NAP_US ? (uint32_t) left : HTP_FENCE_NAP_US);
    }
}
