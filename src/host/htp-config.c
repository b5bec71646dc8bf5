/* The HTP devices' environment: see htp-config.h. */
#include "htp-config.h"

#include "env.h"
#include "htp-msg.h"
#include "log.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct htp_config config;
static enum vnpu_status config_status;
static char config_error[256];
static pthread_once_t config_once = PTHREAD_ONCE_INIT;

/* Variable name as an unsigned in [lo, hi] (vnpu_env_uint), its error in config_error. */
static bool env_uint(const char *name, uint32_t lo, uint32_t hi, uint32_t def, uint32_t *out) {
    return vnpu_env_uint(name, lo, hi, def, out, config_error, sizeof(config_error));
}

static void config_parse(void) {
    struct htp_config *c = &config;
    uint32_t hostbuf = 0, perf = 0;
    config_status = VNPU_STATUS_BAD_ARG;
    if (!env_uint("VNPU_NDEV", 1, 16, 1, &c->ndev) || !env_uint("VNPU_NHVX", 1, HTP_MAX_NTHREADS, 0, &c->nhvx) ||
        !env_uint("VNPU_HOSTBUF", 0, 1, 0, &hostbuf) || !env_uint("VNPU_VERBOSE", 0, 2, 0, &c->verbose) ||
        !env_uint("VNPU_PROFILE", 0, 2, 0, &c->profile) || !env_uint("VNPU_MBUF_MB", 1, 4096, 1024, &c->mbuf_mb) ||
        !env_uint("VNPU_FENCE_TIMEOUT_MS", 1, 3600000, HTP_FENCE_TIMEOUT_MS_DEFAULT, &c->fence_timeout_ms) ||
        !env_uint("VNPU_MDEV_SEQ", 1, 16, 1, &c->mdev_seq) || !env_uint("VNPU_MDEV_CHECK", 0, 2, 0, &c->mdev_check) ||
        !env_uint("VNPU_PERF", 0, 1, 0, &perf) ||
        !env_uint("VNPU_OPSTAGE", 0, HTP_OPSTAGE_QUEUE | HTP_OPSTAGE_COMPUTE, HTP_OPSTAGE_QUEUE | HTP_OPSTAGE_COMPUTE,
                  &c->opstage)) {
        return;
    }
    c->hostbuf = hostbuf != 0;
    c->perf = perf != 0;
    const char *calib = getenv("VNPU_PERF_CALIB");
    c->perf_calib = calib && *calib ? calib : NULL;
    const char *arch = getenv("VNPU_ARCH");
    c->arch = VDSP_ARCH_V79;
    if (arch && *arch && !vdsp_arch_parse(arch, &c->arch)) {
        snprintf(config_error, sizeof(config_error), "VNPU_ARCH='%s': expected v73, v75, v79 or v81", arch);
        return;
    }
    const char *filter = getenv("VNPU_OPFILTER");
    if (filter && *filter) {
        const int rc = regcomp(&c->opfilter, filter, REG_EXTENDED | REG_ICASE | REG_NOSUB);
        if (rc != 0) {
            char why[128];
            regerror(rc, &c->opfilter, why, sizeof(why));
            snprintf(config_error, sizeof(config_error), "VNPU_OPFILTER='%s': %s", filter, why);
            return;
        }
        c->has_opfilter = true;
        c->opfilter_s = filter;
    }
    const char *trace = getenv("VNPU_TRACE");
    c->trace = trace && *trace ? trace : NULL;
    const char *mm_path = getenv("VNPU_MM_PATH");
    c->mm_path = HTP_MM_PATH_AUTO;
    if (mm_path && *mm_path) {
        if (strcmp(mm_path, "hvx") == 0) {
            c->mm_path = HTP_MM_PATH_HVX;
        } else if (strcmp(mm_path, "hmx") == 0) {
            c->mm_path = HTP_MM_PATH_HMX;
        } else if (strcmp(mm_path, "auto") != 0) {
            snprintf(config_error, sizeof(config_error), "VNPU_MM_PATH='%s': expected auto, hvx or hmx", mm_path);
            return;
        }
    }
    config_status = VNPU_STATUS_OK;
}

enum vnpu_status htp_config_get(const struct htp_config **out) {
    pthread_once(&config_once, config_parse);
    *out = &config;
    if (config_status != VNPU_STATUS_OK) {
        vnpu_log_error("HTP devices: %s", config_error);
    }
    return config_status;
}

void htp_config_print(const char *fmt, ...) {
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    if (vnpu_log_enabled(VNPU_LOG_INFO)) {
        vnpu_log_info("%s", text);
    } else {
        fprintf(stderr, "%s\n", text);
    }
}
