/*
 * libFuzzer target for the GGUF reader (gguf_open_memory): any bytes either load or are rejected with
 * a status, never crash, hang or leak; a file that loads answers every lookup from inside its bytes
 * (ASan knows the input buffer's bounds, so a read past them is a report) and consistently: each key
 * and tensor is found under its own name, each tensor's data lies inside the input.
 */
#include "gguf.h"

#include <stdlib.h>
#include <string.h>

static volatile unsigned sink; /* what the walk read, so that no read is optimised away */

static void log_discard(enum vnpu_log_level level, const char *text, void *user) {
    (void) level;
    (void) text;
    (void) user;
}

/* An invariant the reader promises, broken: make libFuzzer keep the input. */
static void check(int ok) {
    if (!ok) {
        abort();
    }
}

/* Read every byte a consumer could reach through kv i; returns a value that depends on all of them. */
static unsigned touch_kv(const struct gguf_file *f, int64_t i) {
    const struct gguf_str key = gguf_kv_key(f, i);
    unsigned h = key.len ? (unsigned char) key.data[0] + (unsigned char) key.data[key.len - 1] : 0;
    if (key.len < 256 && !memchr(key.data, '\0', key.len)) {
        char name[256];
        memcpy(name, key.data, key.len);
        name[key.len] = '\0';
        check(gguf_find_key(f, name) == i);
    }
    int64_t v;
    switch (gguf_kv_type(f, i)) {
        case GGUF_TYPE_STRING: {
            const struct gguf_str s = gguf_get_str(f, i);
            return h + (s.len ? (unsigned char) s.data[s.len - 1] : 0);
        }
        case GGUF_TYPE_ARRAY: {
            const enum gguf_type type = gguf_get_arr_type(f, i);
            const uint64_t n = gguf_get_arr_n(f, i);
            if (type == GGUF_TYPE_STRING) {
                for (uint64_t j = 0; j < n; j++) {
                    const struct gguf_str s = gguf_get_arr_str(f, i, j);
                    h += s.len ? (unsigned char) s.data[0] + (unsigned char) s.data[s.len - 1] : 1;
                }
            } else if (n > 0) {
                const unsigned char *p = gguf_get_arr_data(f, i);
                h += p[0] + p[n * gguf_type_size(type) - 1];
            }
            return h;
        }
        case GGUF_TYPE_FLOAT32: return h + (gguf_get_f32(f, i) > 0);
        case GGUF_TYPE_FLOAT64: return h + (gguf_get_f64(f, i) > 0);
        case GGUF_TYPE_BOOL: return h + gguf_get_bool(f, i);
        case GGUF_TYPE_UINT8:
        case GGUF_TYPE_INT8:
        case GGUF_TYPE_UINT16:
        case GGUF_TYPE_INT16:
        case GGUF_TYPE_UINT32:
        case GGUF_TYPE_INT32:
        case GGUF_TYPE_UINT64:
        case GGUF_TYPE_INT64: return h + (gguf_get_int(f, i, &v) ? (unsigned) v : 1);
        case GGUF_TYPE_COUNT: break;
    }
    check(0);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    struct gguf_file *f = NULL;
    vnpu_log_set(log_discard, NULL, VNPU_LOG_ERROR); /* messages are still formatted, only not printed */
    if (gguf_open_memory(data, size, "fuzz", &f) != VNPU_STATUS_OK) {
        check(f == NULL);
        return 0;
    }
    for (int64_t i = 0; i < gguf_n_kv(f); i++) {
        sink += touch_kv(f, i);
    }
    check(gguf_data_offset(f) % gguf_alignment(f) == 0);
    for (int64_t i = 0; i < gguf_n_tensors(f); i++) {
        const struct gguf_tensor_info *t = gguf_tensor(f, i);
        const uint8_t *p = t->data;
        check(gguf_find_tensor(f, t->name) == i);
        check(t->size > 0 && p >= data + gguf_data_offset(f) && t->size <= (size_t) (data + size - p));
        sink += p[0] + p[t->size - 1];
    }
    gguf_close(f);
    return 0;
}
