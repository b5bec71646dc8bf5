/*
 * vnpu-test-ops: every NPU op against the CPU reference (the project's test-backend-ops).
 *
 *   vnpu-test-ops [test|perf] [-o OP] [-b DEV] [-q] [-l] [-t N] [--mdev N] [--trace FILE]
 *
 * Runs the cases of test-ops-cases.c on the device under test and on the CPU and prints one line per case,
 * "  ADD(type=f32,ne=[5,7,11,13],src1=[5,7,11,13]): OK  NMSE 0 <= 1e-07" (the case's NMSE and its bound), or FAIL
 * with the reason; exits 0 only when every selected case passed. perf mode also times the device on each case (in
 * place of the NMSE). The environment of the HTP devices applies (VNPU_NHVX workers, VNPU_DMA_STRICT=1, VNPU_ARCH,
 * ...). --mdev N runs each passing case again with every op as N partitions one after another on the HTP device
 * (mdev_idx 0..N-1 of N: what each session of a row-split group computes) and requires every tensor bitwise equal
 * to the single-device run; with VNPU_MDEV_CHECK=1 the partitions are also checked for shared lines.
 */
#include "cpu-backend.h"
#include "htp-host.h"
#include "test-ops-cases.h"
#include "test-ops-run.h"
#include "tool-common.h"
#include "trace-file.h"
#include "xdna-host.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOOL "vnpu-test-ops"

static void usage(FILE *out) {
    fprintf(out, "usage: " TOOL " [test|perf] [options]\n"
                 "  test                 compare every case with the CPU reference (default)\n"
                 "  perf                 also time the device on each case that passes\n"
                 "  -o, --op OP          only the cases whose string starts with OP: an op name (ADD, RMS_NORM, ...)\n"
                 "                       or a case string as printed, to run that case again\n"
                 "  -b, --backend DEV    the device under test: HTP0, HTP1, ..., an XDNA partition (NPU1, NPU2,\n"
                 "                       NPU2Col4, ...: its unsupported cases are skipped) or CPU (default HTP0)\n"
                 "  -q, --quick          only the quick subset\n"
                 "  -l, --list           print the selected cases and exit\n"
                 "  -t, --threads N      CPU reference threads (default 2)\n"
                 "      --mdev N         also run every case as N partitions per op (2..16, HTP devices), bitwise\n"
                 "                       against the single-device run\n"
                 "      --trace FILE     write the device's Perfetto trace (HTP; XDNA on the modelled timeline)\n"
                 "  -h, --help\n");
}

struct args {
    bool perf;
    const char *op;
    const char *backend;
    bool quick;
    bool list;
    int threads;
    const char *trace;
    uint32_t mdev;
};

static void parse_args(int argc, char **argv, struct args *a) {
    *a = (struct args){.backend = "HTP0", .threads = 2};
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
#define IS(s, l) (strcmp(o, s) == 0 || strcmp(o, l) == 0)
        if (strcmp(o, "test") == 0 && i == 1) {
            a->perf = false;
        } else if (strcmp(o, "perf") == 0 && i == 1) {
            a->perf = true;
        } else if (IS("-o", "--op")) {
            a->op = tool_option_value(TOOL, argc, argv, &i);
        } else if (IS("-b", "--backend")) {
            a->backend = tool_option_value(TOOL, argc, argv, &i);
        } else if (IS("-q", "--quick")) {
            a->quick = true;
        } else if (IS("-l", "--list")) {
            a->list = true;
        } else if (IS("-t", "--threads")) {
            a->threads =
                (int) tool_parse_int(TOOL, o, tool_option_value(TOOL, argc, argv, &i), 1, VNPU_CPU_MAX_THREADS);
        } else if (strcmp(o, "--mdev") == 0) {
            a->mdev = (uint32_t) tool_parse_int(TOOL, o, tool_option_value(TOOL, argc, argv, &i), 2, 16);
        } else if (strcmp(o, "--trace") == 0) {
            a->trace = tool_option_value(TOOL, argc, argv, &i);
        } else if (IS("-h", "--help")) {
            usage(stdout);
            exit(0);
        } else {
            fprintf(stderr, TOOL ": unknown argument '%s'\n", o);
            usage(stderr);
            exit(2);
        }
#undef IS
    }
}

/* The device named name: CPU, HTP<n> or an XDNA partition. */
static struct vnpu_device *open_device(const char *name, int threads) {
    struct vnpu_device *dev = NULL;
    uint32_t index;
    enum vnpu_status st = VNPU_STATUS_BAD_ARG;
    if (strcmp(name, "CPU") == 0) {
        st = vnpu_cpu_device_new(threads, &dev);
    } else if (vnpu_htp_device_parse(name, strlen(name), &index)) {
        st = vnpu_htp_device_get(index, &dev);
    } else if (vnpu_xdna_device_name(name, strlen(name))) {
        st = vnpu_xdna_device_open(name, strlen(name), &dev);
    } else {
        fprintf(stderr,
                TOOL ": unknown device '%s' (CPU, HTP0, HTP1, ..., NPU1, NPU1Col1, NPU1Col2, NPU1Col4, NPU2, "
                     "NPU2Col1, NPU2Col4, NPU2Col8)\n",
                name);
        exit(2);
    }
    if (st != VNPU_STATUS_OK) {
        fprintf(stderr, TOOL ": cannot open %s: %s\n", name, vnpu_status_str(st));
        exit(1);
    }
    return dev;
}

static bool case_selected(const struct args *a, const struct ops_case *c, const char *name) {
    return (!a->quick || c->quick) && (!a->op || strncmp(name, a->op, strlen(a->op)) == 0);
}

int main(int argc, char **argv) {
    struct args a;
    parse_args(argc, argv, &a);
    if (a.list) {
        for (size_t i = 0; i < ops_n_cases; i++) {
            char name[256];
            ops_case_name(&ops_cases[i], name, sizeof(name));
            if (case_selected(&a, &ops_cases[i], name)) {
                printf("%s\n", name);
            }
        }
        return 0;
    }
    struct vnpu_device *dut = open_device(a.backend, a.threads);
    struct vnpu_device *ref = open_device("CPU", a.threads);
    if (a.mdev && !vnpu_htp_device_is(dut)) {
        fprintf(stderr, TOOL ": --mdev needs an HTP device, not %s\n", a.backend);
        return 2;
    }
    if (a.trace && !vnpu_htp_device_is(dut) && !vnpu_xdna_device_is(dut)) {
        fprintf(stderr, TOOL ": --trace needs an NPU device (HTP or XDNA), not %s\n", a.backend);
        return 2;
    }
    if (a.trace && (vnpu_htp_device_is(dut) ? vnpu_htp_device_trace(dut, a.trace)
                                            : vnpu_xdna_device_trace(dut, a.trace)) != VNPU_STATUS_OK) {
        fprintf(stderr, TOOL ": cannot trace %s to %s\n", a.backend, a.trace);
        return 1;
    }
    printf("Testing %s against CPU%s", a.backend, a.perf ? " (perf)" : "");
    printf(a.mdev ? ", and as %u partitions per op against itself\n" : "\n", a.mdev);
    /* An XDNA device takes only matmuls (xdna-host.h): the cases it rejects are skipped, as test-backend-ops skips
     * a backend's unsupported ops; an HTP device must take every case of the table. */
    const bool skip_unsupported = vnpu_xdna_device_is(dut);
    int n_run = 0, n_pass = 0, n_unsupported = 0;
    for (size_t i = 0; i < ops_n_cases; i++) {
        char name[256], detail[256];
        ops_case_name(&ops_cases[i], name, sizeof(name));
        if (!case_selected(&a, &ops_cases[i], name)) {
            continue;
        }
        const enum ops_result r = ops_run_case(&ops_cases[i], dut, ref, a.perf, a.mdev, detail, sizeof(detail));
        n_unsupported += r == OPS_UNSUPPORTED;
        if (r == OPS_UNSUPPORTED && skip_unsupported) {
            printf("  %s: skipped  %s\n", name, detail);
            continue;
        }
        n_run++;
        n_pass += r == OPS_PASS;
        printf("  %s: %s%s%s\n", name, r == OPS_PASS ? "OK" : "FAIL", detail[0] ? "  " : "", detail);
        fflush(stdout);
    }
    if (skip_unsupported) {
        printf("  %d/%d tests passed, %d not supported by %s (skipped)\n", n_pass, n_run, n_unsupported, a.backend);
    } else {
        printf("  %d/%d tests passed%s\n", n_pass, n_run,
               n_unsupported ? " (unsupported cases count as failures)" : "");
    }
    vnpu_device_free(dut); /* completes the trace */
    vnpu_device_free(ref);
    const bool traced = !a.trace || trace_file_result() == VNPU_STATUS_OK;
    if (!traced) {
        fprintf(stderr, TOOL ": the trace %s could not be written (the error above says why)\n", a.trace);
    }
    printf("  Backend %s: %s\n", a.backend, n_run > 0 && n_pass == n_run && traced ? "OK" : "FAIL");
    return n_run > 0 && n_pass == n_run && traced ? 0 : 1;
}
