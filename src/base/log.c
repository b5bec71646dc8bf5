#include "log.h"

#include "env.h"

#include <stdarg.h>

static vnpu_log_fn log_fn;
static void *log_user;
static int log_level = -1; /* -1: not yet read from VNPU_LOG */

static int log_level_get(void) {
    if (log_level < 0) {
        uint32_t level; /* a bad value: the default (the log cannot report on itself) */
        vnpu_env_uint("VNPU_LOG", 0, 1000, VNPU_LOG_WARN, &level, NULL, 0);
        log_level = level > VNPU_LOG_DEBUG ? VNPU_LOG_DEBUG : (int) level; /* VNPU_LOG_ERROR is 0 */
    }
    return log_level;
}

void vnpu_log_set(vnpu_log_fn fn, void *user, enum vnpu_log_level max_level) {
    log_fn = fn;
    log_user = user;
    log_level = (int) max_level;
}

int vnpu_log_enabled(enum vnpu_log_level level) {
    return (int) level <= log_level_get();
}

void vnpu_log(enum vnpu_log_level level, const char *fmt, ...) {
    static const char *const prefix[] = {"error: ", "warning: ", "", ""};
    if (!vnpu_log_enabled(level)) {
        return;
    }
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    if (log_fn) {
        log_fn(level, text, log_user);
    } else {
        fprintf(stderr, "%s%s\n", prefix[level], text);
    }
}

const char *vnpu_status_str(enum vnpu_status status) {
    switch (status) {
        case VNPU_STATUS_OK: return "ok";
        case VNPU_STATUS_BAD_ARG: return "bad argument";
        case VNPU_STATUS_BAD_FILE: return "bad file";
        case VNPU_STATUS_IO: return "i/o error";
        case VNPU_STATUS_NO_MEMORY: return "out of memory";
        case VNPU_STATUS_UNSUPPORTED: return "unsupported";
        case VNPU_STATUS_DEVICE: return "device error";
    }
    return "unknown status";
}
