/*
 * Logging, status text and internal assertions for every host-side library.
 *
 * Library code reports an error once, where it is detected, with what failed, where and which limit,
 * then returns a negative enum vnpu_status; callers pass the status up without logging again.
 */
#ifndef VNPU_LOG_H
#define VNPU_LOG_H

#include "vnpu.h"

#include <stdio.h>
#include <stdlib.h>

#if defined(__GNUC__)
#define VNPU_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define VNPU_PRINTF(fmt, args)
#endif

/* printf-style message at a level; cheap when the level is filtered out. */
void vnpu_log(enum vnpu_log_level level, const char *fmt, ...) VNPU_PRINTF(2, 3);

/* True when messages of this level are shown (to skip building expensive debug text). */
int vnpu_log_enabled(enum vnpu_log_level level);

#define vnpu_log_error(...) vnpu_log(VNPU_LOG_ERROR, __VA_ARGS__)
#define vnpu_log_warn(...)  vnpu_log(VNPU_LOG_WARN, __VA_ARGS__)
#define vnpu_log_info(...)  vnpu_log(VNPU_LOG_INFO, __VA_ARGS__)
#define vnpu_log_debug(...) vnpu_log(VNPU_LOG_DEBUG, __VA_ARGS__)

/* Internal invariant: prints file:line and the expression, then aborts. Not for input validation. */
#define VNPU_ASSERT(x)                                                                \
    do {                                                                              \
        if (!(x)) {                                                                   \
            fprintf(stderr, "%s:%d: assertion failed: %s\n", __FILE__, __LINE__, #x); \
            abort();                                                                  \
        }                                                                             \
    } while (0)

#define VNPU_UNUSED(x) (void) (x)

#endif /* VNPU_LOG_H */
