/* The process's trace file (trace-file.h). */
#include "trace-file.h"

#include "file-out.h"
#include "log.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

static struct {
    pthread_mutex_t lock;
    struct vnpu_file_out out; /* the file, written whole or not at all */
    FILE *f;                  /* out.fp while open, NULL otherwise */
    char path[4096];
    int users;               /* writers */
    uint32_t events;         /* events written (separators) */
    double origin_us;        /* the monotonic clock at open: timestamps start near 0 */
    enum vnpu_status result; /* the last file's */
} trace_out = {.lock = PTHREAD_MUTEX_INITIALIZER};

double trace_file_now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec * 1e6 + (double) ts.tv_nsec * 1e-3;
}

enum vnpu_status trace_file_open(const char *who, const char *path) {
    enum vnpu_status st = VNPU_STATUS_OK;
    pthread_mutex_lock(&trace_out.lock);
    if (trace_out.f && strcmp(trace_out.path, path) != 0) {
        vnpu_log_error("%s: cannot trace to %s: this process traces to %s", who, path, trace_out.path);
        st = VNPU_STATUS_BAD_ARG;
    } else if (!trace_out.f && strlen(path) >= sizeof(trace_out.path)) {
        vnpu_log_error("%s: trace path too long (%zu bytes)", who, strlen(path));
        st = VNPU_STATUS_BAD_ARG;
    } else if (!trace_out.f && (st = vnpu_file_out_open(path, &trace_out.out)) != VNPU_STATUS_OK) {
        vnpu_log_error("%s: cannot write the trace %s", who, path);
    } else if (trace_out.users == 0) {
        trace_out.f = trace_out.out.fp;
        snprintf(trace_out.path, sizeof(trace_out.path), "%s", path);
        trace_out.events = 0;
        trace_out.origin_us = trace_file_now_us();
        fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", trace_out.f);
    }
    if (st == VNPU_STATUS_OK) {
        trace_out.users++;
    }
    pthread_mutex_unlock(&trace_out.lock);
    return st;
}

void trace_file_close(const char *who) {
    pthread_mutex_lock(&trace_out.lock);
    if (--trace_out.users == 0) {
        fputs("\n]}\n", trace_out.f);
        const int err = fflush(trace_out.f) != 0 ? errno : ferror(trace_out.f) ? EIO : 0; /* a full disk: ENOSPC */
        trace_out.result = vnpu_file_out_commit(&trace_out.out, err);
        if (trace_out.result != VNPU_STATUS_OK) {
            vnpu_log_error("%s: writing the trace %s failed: no trace written", who, trace_out.path);
        }
        trace_out.f = NULL;
    }
    pthread_mutex_unlock(&trace_out.lock);
}

enum vnpu_status trace_file_result(void) {
    pthread_mutex_lock(&trace_out.lock);
    const enum vnpu_status st = trace_out.result;
    pthread_mutex_unlock(&trace_out.lock);
    return st;
}

void trace_file_lock(void) {
    pthread_mutex_lock(&trace_out.lock);
}

void trace_file_unlock(void) {
    pthread_mutex_unlock(&trace_out.lock);
}

FILE *trace_file_stream(void) {
    return trace_out.f;
}

double trace_file_origin_us(void) {
    return trace_out.origin_us;
}

void trace_file_sep(void) {
    fputs(trace_out.events++ ? ",\n" : "\n", trace_out.f);
}

void trace_file_str(const char *s) {
    for (; *s; s++) {
        const unsigned char c = (unsigned char) *s;
        if (c == '"' || c == '\\') {
            fprintf(trace_out.f, "\\%c", c);
        } else if (c < 0x20) {
            fprintf(trace_out.f, "\\u%04x", c);
        } else {
            fputc(c, trace_out.f);
        }
    }
}

void trace_file_meta(uint32_t pid, const char *what, int tid, const char *name) {
    trace_file_sep();
    fprintf(trace_out.f, "{\"name\":\"%s\",\"ph\":\"M\",\"pid\":%u", what, pid);
    if (tid >= 0) {
        fprintf(trace_out.f, ",\"tid\":%d", tid);
    }
    fputs(",\"args\":{\"name\":\"", trace_out.f);
    trace_file_str(name);
    fputs("\"}}", trace_out.f);
}
