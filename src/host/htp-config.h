/*
 * The HTP devices' environment (the variables listed in htp-host.h), parsed once and shared.
 */
#ifndef VNPU_HTP_CONFIG_H
#define VNPU_HTP_CONFIG_H

#include "vdsp.h"
#include "vnpu.h"

#include <regex.h>
#include <stdbool.h>
#include <stdint.h>

/* VNPU_OPSTAGE bits (GGML_HEXAGON_OPSTAGE). */
#define HTP_OPSTAGE_QUEUE   1u /* send ops to the NPU */
#define HTP_OPSTAGE_COMPUTE 2u /* compute them (else HTP_OP_SKIP_COMPUTE: dispatch and DMA only) */

/* VNPU_MM_PATH: which MUL_MAT path prep takes (src/host/htp-prep-matmul-hmx.c has the rule). */
enum htp_mm_path {
    HTP_MM_PATH_AUTO = 0, /* "auto": HMX for batches by the rule, else HVX */
    HTP_MM_PATH_HVX = 1,  /* "hvx": never HMX */
    HTP_MM_PATH_HMX = 2,  /* "hmx": HMX wherever it can run */
};

struct htp_config {
    uint32_t ndev;             /* VNPU_NDEV: 1..16 */
    uint32_t nhvx;             /* VNPU_NHVX: 1..HTP_MAX_NTHREADS; 0 = the default (min(host cores, HVX contexts)) */
    enum vdsp_arch arch;       /* VNPU_ARCH */
    bool hostbuf;              /* VNPU_HOSTBUF=1 */
    uint32_t verbose;          /* VNPU_VERBOSE: 0, 1, 2 */
    uint32_t profile;          /* VNPU_PROFILE: 0, 1, 2 */
    uint32_t opstage;          /* VNPU_OPSTAGE: HTP_OPSTAGE_* bits */
    bool has_opfilter;         /* VNPU_OPFILTER set */
    regex_t opfilter;          /* compiled with REG_EXTENDED | REG_ICASE | REG_NOSUB */
    const char *opfilter_s;    /* its text */
    const char *trace;         /* VNPU_TRACE: every device's requests traced into this file, or NULL */
    uint32_t mm_path;          /* VNPU_MM_PATH: enum htp_mm_path (auto, hvx, hmx; default auto) */
    uint32_t fence_timeout_ms; /* VNPU_FENCE_TIMEOUT_MS: a row-split group's barrier wait for a peer (1..3600000) */
    uint32_t mbuf_mb;          /* VNPU_MBUF_MB: MiB of the largest HTP buffer, 1..4096 (GGML_HEXAGON_MBUF: 1024) */
    uint32_t mdev_seq;         /* VNPU_MDEV_SEQ: 1..16 partitions per op, run one after another (1: whole ops) */
    uint32_t mdev_check;       /* VNPU_MDEV_CHECK: enum htp_mdev_check (0 off) */
    bool perf;                 /* VNPU_PERF=1: the cost model (htp-perf.c): counting sessions of the target's threads */
    const char *perf_calib;    /* VNPU_PERF_CALIB: the calibration file, or NULL for the build's (htp-perf.c) */
};

/* VNPU_FENCE_TIMEOUT_MS's default: longer than any op of a model this host runs takes on its slowest member (the
 * 1B model's largest MUL_MAT, four sessions on two cores, is below a second), so only a device that stopped
 * answering reaches it. */
#define HTP_FENCE_TIMEOUT_MS_DEFAULT 30000u

/* The parsed environment; VNPU_STATUS_BAD_ARG (logged once per call, naming the variable and its range)
 * when a variable is malformed. Thread-safe; parsed on the first call. */
enum vnpu_status htp_config_get(const struct htp_config **out);

/* A VNPU_VERBOSE / VNPU_PROFILE line: to the log at info level when info is shown, else to stderr (the
 * variables ask for these lines whatever the log level). */
void htp_config_print(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* VNPU_HTP_CONFIG_H */
