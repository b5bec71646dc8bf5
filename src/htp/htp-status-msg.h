/*
 * The text of a failed request's response (htp_rsp.message, HTP_STATUS_MSG_LEN bytes, NUL-terminated): an
 * appender without libc, for the dispatcher (main.c: "op 3 (GET_ROWS): ") and for a kernel that says why its op
 * failed after that prefix (what, where, which limit: "row index 70000 at [3, 0, 0] outside [0, ne01 = 32000)").
 * Text past the field's room is dropped.
 */
#ifndef VNPU_HTP_STATUS_MSG_H
#define VNPU_HTP_STATUS_MSG_H

#include "htp-msg.h"

#include <stdint.h>

struct htp_msg {
    char *buf;    /* the response's message field */
    uint32_t len; /* characters written */
};

static inline void htp_msg_str(struct htp_msg *m, const char *s) {
    while (*s && m->len + 1 < HTP_STATUS_MSG_LEN) {
        m->buf[m->len++] = *s++;
    }
    m->buf[m->len] = 0;
}

/* v in base 10, or base 16 with a 0x prefix. */
static inline void htp_msg_u64(struct htp_msg *m, uint64_t v, uint32_t base) {
    char digits[24];
    int n = 0;
    do {
        digits[n++] = "0123456789abcdef"[v % base];
        v /= base;
    } while (v != 0);
    char out[27] = {0};
    int k = 0;
    if (base == 16) {
        out[k++] = '0';
        out[k++] = 'x';
    }
    while (n > 0) {
        out[k++] = digits[--n];
    }
    htp_msg_str(m, out);
}

/* v in base 10 with its sign. */
static inline void htp_msg_i64(struct htp_msg *m, int64_t v) {
    if (v < 0) {
        htp_msg_str(m, "-");
    }
    htp_msg_u64(m, v < 0 ? 0 - (uint64_t) v : (uint64_t) v, 10);
}

/* An index operand out of range, as GET_ROWS, SET_ROWS ("row index") and MUL_MAT_ID ("expert id") say it: "<what>
 * <index> at [i1, i2, i3] outside [0, <limit_name> = <limit>)", with (i1, i2, i3) where the index lies in the index
 * tensor. */
static inline void htp_msg_index(struct htp_msg *m, const char *what, int64_t index, uint32_t i1, uint32_t i2,
                                 uint32_t i3, const char *limit_name, uint64_t limit) {
    htp_msg_str(m, what);
    htp_msg_str(m, " ");
    htp_msg_i64(m, index);
    htp_msg_str(m, " at [");
    htp_msg_u64(m, i1, 10);
    htp_msg_str(m, ", ");
    htp_msg_u64(m, i2, 10);
    htp_msg_str(m, ", ");
    htp_msg_u64(m, i3, 10);
    htp_msg_str(m, "] outside [0, ");
    htp_msg_str(m, limit_name);
    htp_msg_str(m, " = ");
    htp_msg_u64(m, limit, 10);
    htp_msg_str(m, ")");
}

#endif /* VNPU_HTP_STATUS_MSG_H */
