/*
 * vnpu-bench: host-measured speed of single ops and of whole models on vnpu's devices, in the forms of the
 * oracle's ggml_op_bench and llama-bench, so the tables compare with llama.cpp's line for line.
 *
 *   vnpu-bench mul_mat --type q4_0 --k 2048 --m 2048 --n 1,512 -dev HTP0,CPU -t 2
 *   vnpu-bench --shapes llama-3.2-1b --type q4_0,q8_0,q4_K -dev HTP0,CPU -t 2
 *   vnpu-bench -m model.gguf -p 64 -n 16 -r 3 -dev HTP0,CPU -t 2
 *   vnpu-bench -m model.gguf -p 128 -n 64 -dev HTP0 --arch v79,v81 --breakdown
 *
 * Op mode (bench-op.h): every type x shape x N on every device; HTP devices run with their VNPU_NHVX workers, the
 * CPU device with each -t. Model mode (bench-model.h): pp and tg tests on every device list. Times are wall
 * clock on this host: an HTP device is an emulation of HVX on the host CPU, so its numbers measure the emulation,
 * not a phone's NPU; --arch adds what the cost model says the tests take on Hexagon targets (bench-arch.h). Like the
 * oracle's tools, vnpu-bench first samples /proc/stat for 300 ms and warns when other
 * processes keep CPUs busy, and reports after the run how many CPUs they used meanwhile (stderr). Exit status: 0,
 * 1 when a run failed or an op row failed its checks, 2 for bad usage.
 */
#include "bench-arch.h"
#include "bench-data.h"
#include "bench-model.h"
#include "bench-op.h"
#include "htp-config.h"
#include "htp-host.h"
#include "xdna-host.h"
#include "llama.h"
#include "perf-target.h"
#include "tool-common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define TOOL         "vnpu-bench"
#define MAX_ITEMS    16 /* entries of a comma list */
#define MAX_TARGETS  (MAX_ITEMS * MAX_ITEMS)
#define MAX_SHAPES   8
#define BUSY_WAIT_MS 300

/* A matrix of a model: K x M weights, run per_pass times in one forward pass. */
struct bench_shape {
    const char *label;
    int64_t k, m;
    int per_pass;
};

/* The matmuls of Llama-3.2-1B as gen_gguf's llama-3.2-1b preset builds it (n_embd 2048, 16 layers, 8 KV heads of
 * 64, n_ff 8192, vocab 32000) and ggml_op_bench --shapes llama-3.2-1b lists them. */
static const struct bench_shape shapes_llama_3_2_1b[] = {
    {"attn_q/o", 2048, 2048, 2 * 16}, {"attn_k/v", 2048, 512, 2 * 16}, {"ffn_gate/up", 2048, 8192, 2 * 16},
    {"ffn_down", 8192, 2048, 1 * 16}, {"output", 2048, 32000, 1},
};
_Static_assert(sizeof(shapes_llama_3_2_1b) / sizeof(shapes_llama_3_2_1b[0]) <= MAX_SHAPES, "raise MAX_SHAPES");

/* A comma list split into its items (pointers into a copy of the option's value). */
struct list {
    char *copy;
    const char *item[MAX_ITEMS];
    int n;
};

/* A comma list of integers. */
struct int_list {
    int v[MAX_ITEMS];
    int n;
};

struct args {
    const char *op;          /* op mode: "mul_mat" */
    const char *shapes;      /* op mode: "llama-3.2-1b" */
    const char *model;       /* model mode */
    struct list types;       /* op mode */
    int64_t k, m;            /* op mode, without --shapes */
    struct int_list ns;      /* op mode: N values */
    struct list devices;     /* devices (op mode) or device lists joined by '/' (model mode; one NULL: the default) */
    struct list split_modes; /* model mode: layer, row, tensor */
    struct list threads;     /* CPU threads, as given (the threads column) */
    struct int_list n_threads;
    struct int_list pp, tg; /* model mode: tokens of each test, 0 = none */
    int reps;               /* model mode -r */
    bool warmup;            /* model mode */
    struct bench_op_opts op_opts;
    uint64_t seed;
    const char *fmt;
    struct list archs; /* model mode --arch: targets to model (n 0: none) */
    bool breakdown;    /* model mode --breakdown */
    bool xdna;         /* a device (list) names an XDNA partition: the tables carry its modelled figures */
    bool modelled;     /* set in a --arch child that runs under VNPU_PERF=1 */
};

static void usage(FILE *out) {
    fprintf(out,
            "usage: " TOOL " mul_mat [--k K] [--m M] [--n N[,N..]] [op options] [options]\n"
            "       " TOOL " --shapes llama-3.2-1b [--n N[,N..]] [op options] [options]\n"
            "       " TOOL " -m FILE [-p N[,N..]] [-n N[,N..]] [-r R] [--no-warmup] [options]\n"
            "\n"
            "op mode (as the oracle's ggml_op_bench):\n"
            "  mul_mat                W [K, M] of --type x X F32 [K, N] (default 2048 x 2048 x 1)\n"
            "  --shapes llama-3.2-1b  the model's matmuls (q/o, k/v, gate/up, down, output) for N = 1 and 512, then\n"
            "                         the matmul time of one forward pass\n"
            "  --type T[,T..]         weight types (default q4_0)\n"
            "  --reps R               timed repetitions, median reported (default 5)\n"
            "  --warmup W             untimed repetitions first (default 1)\n"
            "  --min-time S           a repetition repeats the op until it lasts S seconds (default 0.1)\n"
            "  --per-rep N            exactly N ops per repetition (no calibration)\n"
            "  --seed S               data seed (default 1; ggml_op_bench's streams: the same bytes)\n"
            "  --no-check             skip the double-precision check of a sample of outputs\n"
            "  --dump PREFIX          (one case) write W, X and the output as PREFIX.A.<type>, PREFIX.B.f32,\n"
            "                         PREFIX.out.f32\n"
            "model mode (as llama-bench):\n"
            "  -m, --model FILE       GGUF model\n"
            "  -p, --n-prompt N[,N..] prompt-processing tests (default 512; 0 = none)\n"
            "  -n, --n-gen N[,N..]    generation tests (default 128; 0 = none)\n"
            "  -r, --repetitions R    timed repetitions, mean +- stdev reported (default 5)\n"
            "      --no-warmup        no untimed warm-up run\n"
            "      --arch A[,A..]     also model each test on these Hexagon targets (v73, v75, v79, v81; the cost\n"
            "                         model, docs/targets.md): columns arch and modelled t/s beside the host's; in op\n"
            "                         mode one target, a modelled us/op column (op mode under VNPU_PERF=1 has it too)\n"
            "      --breakdown        with --arch, or a device list with an XDNA partition: each modelled test's\n"
            "                         time per op type, share and bound\n"
            "  -sm, --split-mode M[,M..]  layer (default), row, tensor: how each device list splits the model (as\n"
            "                         vnpu-cli's -sm); every device list is run in every mode\n"
            "options:\n"
            "  -dev, --device D[,D..] op mode: devices, each timed alone (default HTP0); model mode: device lists,\n"
            "                         the devices of one list joined by '/' (HTP0/HTP1,CPU; default: every NPU\n"
            "                         device, HTP0 to HTP<VNPU_NDEV-1>, the layers split over them, as vnpu-cli);\n"
            "                         an XDNA partition (NPU1, NPU2, NPU2Col4, ...) runs the matmuls, and the\n"
            "                         table has its modelled t/s (arch: the partition; the XDNA cost model,\n"
            "                         docs/xdna-cost-model.md) or, in op mode, modelled us/op and GFLOP/s\n"
            "  -t, --threads N[,N..]  CPU device threads (default 2); HTP devices run VNPU_NHVX workers\n"
            "  -o, --output md|csv    table format (default md)\n"
            "  -h, --help             this text\n");
}

static void usage_error(const char *fmt, const char *what) {
    fprintf(stderr, TOOL ": ");
    fprintf(stderr, fmt, what);
    fprintf(stderr, "\n");
    usage(stderr);
    exit(2);
}

/* Split value at commas into l (at most MAX_ITEMS non-empty items). */
static void list_parse(struct list *l, const char *option, const char *value) {
    memset(l, 0, sizeof(*l));
    l->copy = strdup(value);
    if (!l->copy) {
        fprintf(stderr, TOOL ": out of memory\n");
        exit(1);
    }
    char *save = NULL;
    for (char *p = strtok_r(l->copy, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
        if (l->n == MAX_ITEMS) {
            fprintf(stderr, TOOL ": %s '%s': more than %d items\n", option, value, MAX_ITEMS);
            exit(2);
        }
        l->item[l->n++] = p;
    }
    if (l->n == 0) {
        fprintf(stderr, TOOL ": %s '%s': no items\n", option, value);
        exit(2);
    }
}

/* value as a comma list of integers in [min, max]. */
static void int_list_parse(struct int_list *l, const char *option, const char *value, int64_t min, int64_t max) {
    struct list items = {0};
    list_parse(&items, option, value);
    for (int i = 0; i < items.n; i++) {
        l->v[i] = (int) tool_parse_int(TOOL, option, items.item[i], min, max);
    }
    l->n = items.n;
    free(items.copy);
}

static int int_list_max(const struct int_list *l) {
    int m = 0;
    for (int i = 0; i < l->n; i++) {
        m = l->v[i] > m ? l->v[i] : m;
    }
    return m;
}

/* The split mode named name (vnpu-cli's -sm values), or -1. */
static int split_mode_parse(const char *name) {
    static const char *const names[] = {
        [VNPU_SPLIT_MODE_LAYER] = "layer", [VNPU_SPLIT_MODE_ROW] = "row", [VNPU_SPLIT_MODE_TENSOR] = "tensor"};
    for (int i = 0; i < (int) (sizeof(names) / sizeof(names[0])); i++) {
        if (strcmp(name, names[i]) == 0) {
            return i;
        }
    }
    return -1;
}

/* Whether a device list ("NPU2/CPU", "HTP0[0,2]/HTP1") names an XDNA partition. */
static bool list_has_xdna(const char *list) {
    for (const char *p = list; *p;) {
        const size_t len = strcspn(p, "/,");
        if (vnpu_xdna_device_name(p, len)) {
            return true;
        }
        p += len + (p[len] != '\0');
    }
    return false;
}

static void parse_args(int argc, char **argv, struct args *a) {
    *a = (struct args){.k = 2048, .m = 2048, .reps = 5, .warmup = true, .seed = 1, .fmt = "md"};
    a->op_opts = (struct bench_op_opts){.reps = 5, .warmup = 1, .min_time = 0.1, .check = true};
    const char *ns = NULL, *types = "q4_0", *devices = NULL, *threads = "2", *pp = "512", *tg = "128";
    const char *split_modes = "layer";
    bool op_only = false, model_only = false;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
#define IS(s, l) (strcmp(o, s) == 0 || strcmp(o, l) == 0)
#define VALUE()  tool_option_value(TOOL, argc, argv, &i)
        if (IS("-h", "--help")) {
            usage(stdout);
            exit(0);
        } else if (i == 1 && o[0] != '-') {
            a->op = o;
        } else if (strcmp(o, "--shapes") == 0) {
            a->shapes = VALUE();
        } else if (strcmp(o, "--type") == 0) {
            types = VALUE(), op_only = true;
        } else if (strcmp(o, "--k") == 0) {
            a->k = tool_parse_int(TOOL, o, VALUE(), 1, 1 << 24), op_only = true;
        } else if (strcmp(o, "--m") == 0) {
            a->m = tool_parse_int(TOOL, o, VALUE(), 1, 1 << 24), op_only = true;
        } else if (strcmp(o, "--n") == 0) {
            ns = VALUE(), op_only = true;
        } else if (strcmp(o, "--reps") == 0) {
            a->op_opts.reps = (int) tool_parse_int(TOOL, o, VALUE(), 1, 1000), op_only = true;
        } else if (strcmp(o, "--warmup") == 0) {
            a->op_opts.warmup = (int) tool_parse_int(TOOL, o, VALUE(), 0, 1000), op_only = true;
        } else if (strcmp(o, "--min-time") == 0) {
            a->op_opts.min_time = tool_parse_float(TOOL, o, VALUE(), 1e-6, 100.0), op_only = true;
        } else if (strcmp(o, "--per-rep") == 0) {
            a->op_opts.per_rep = (int) tool_parse_int(TOOL, o, VALUE(), 1, BENCH_MAX_PER_REP), op_only = true;
        } else if (strcmp(o, "--seed") == 0) {
            a->seed = (uint64_t) tool_parse_int(TOOL, o, VALUE(), 0, INT64_MAX), op_only = true;
        } else if (strcmp(o, "--no-check") == 0) {
            a->op_opts.check = false, op_only = true;
        } else if (strcmp(o, "--dump") == 0) {
            a->op_opts.dump = VALUE(), op_only = true;
        } else if (IS("-m", "--model")) {
            a->model = VALUE();
        } else if (IS("-p", "--n-prompt")) {
            pp = VALUE(), model_only = true;
        } else if (IS("-n", "--n-gen")) {
            tg = VALUE(), model_only = true;
        } else if (IS("-r", "--repetitions")) {
            a->reps = (int) tool_parse_int(TOOL, o, VALUE(), 1, BENCH_MAX_REPS), model_only = true;
        } else if (strcmp(o, "--no-warmup") == 0) {
            a->warmup = false, model_only = true;
        } else if (strcmp(o, "--arch") == 0) {
            list_parse(&a->archs, o, VALUE());
        } else if (strcmp(o, "--breakdown") == 0) {
            a->breakdown = true, model_only = true;
        } else if (IS("-sm", "--split-mode")) {
            split_modes = VALUE(), model_only = true;
        } else if (IS("-dev", "--device")) {
            devices = VALUE();
        } else if (IS("-t", "--threads")) {
            threads = VALUE();
        } else if (IS("-o", "--output")) {
            a->fmt = VALUE();
        } else {
            usage_error("unknown argument '%s'", o);
        }
#undef IS
#undef VALUE
    }
    const bool op_mode = a->op || a->shapes;
    if (op_mode == (a->model != NULL)) {
        usage_error("%s", op_mode ? "an op (or --shapes) and -m exclude each other" : "nothing to run");
    }
    if ((op_mode && model_only) || (!op_mode && op_only)) {
        usage_error("%s",
                    op_mode ? "-p, -n, -r, -sm and --no-warmup are model-mode options" : "op options without an op");
    }
    if (a->op && strcmp(a->op, "mul_mat") != 0) {
        usage_error("unknown op '%s' (mul_mat)", a->op);
    }
    if (a->shapes && strcmp(a->shapes, "llama-3.2-1b") != 0) {
        usage_error("unknown --shapes '%s' (llama-3.2-1b)", a->shapes);
    }
    if (strcmp(a->fmt, "md") != 0 && strcmp(a->fmt, "csv") != 0) {
        usage_error("unknown output format '%s' (md, csv)", a->fmt);
    }
    if (a->archs.n > BENCH_MAX_ARCHS) {
        usage_error("%s", "--arch: at most 8 targets");
    }
    for (int i = 0; i < a->archs.n; i++) {
        enum vdsp_arch arch;
        if (!vdsp_arch_parse(a->archs.item[i], &arch)) {
            usage_error("unknown --arch '%s' (v73, v75, v79, v81: the targets vnpu builds an NPU library for)",
                        a->archs.item[i]);
        }
        a->archs.item[i] = perf_target_arch((uint32_t) arch)->name; /* "79", "V79": the arch column's "v79" */
        for (int j = 0; j < i; j++) {
            if (strcmp(a->archs.item[j], a->archs.item[i]) == 0) {
                usage_error("--arch: %s given twice", a->archs.item[i]);
            }
        }
    }
    list_parse(&a->types, "--type", types);
    int_list_parse(&a->ns, "--n", ns ? ns : a->shapes ? "1,512" : "1", 1, 1 << 20);
    if (devices || op_mode) {
        list_parse(&a->devices, "--device", devices ? devices : "HTP0");
    } else {
        a->devices = (struct list){.n = 1}; /* the model's default devices */
    }
    for (int d = 0; d < a->devices.n && a->devices.item[d]; d++) {
        a->xdna = a->xdna || list_has_xdna(a->devices.item[d]);
    }
    if (a->xdna && a->archs.n > 0) {
        usage_error("%s", "--arch models Hexagon targets: an XDNA partition's figures come without it");
    }
    if (a->breakdown && a->archs.n == 0 && !a->xdna) {
        usage_error("%s", "--breakdown needs --arch or an XDNA partition in -dev");
    }
    list_parse(&a->split_modes, "--split-mode", split_modes);
    for (int i = 0; i < a->split_modes.n; i++) {
        if (split_mode_parse(a->split_modes.item[i]) < 0) {
            usage_error("unknown --split-mode '%s' (layer, row, tensor)", a->split_modes.item[i]);
        }
    }
    list_parse(&a->threads, "--threads", threads);
    int_list_parse(&a->n_threads, "--threads", threads, 1, 512);
    int_list_parse(&a->pp, "--n-prompt", pp, 0, 1 << 16);
    int_list_parse(&a->tg, "--n-gen", tg, 0, 1 << 16);
}

/* The machine's busy CPU time so far (every CPU, from /proc/stat, in seconds) and this process's own (getrusage,
 * every thread, the NPU sessions' workers included); false when /proc/stat cannot be read. */
static bool cpu_times(double *machine, double *self) {
    unsigned long long t[8];
    FILE *f = fopen("/proc/stat", "r");
    const int got = f ? fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &t[0], &t[1], &t[2], &t[3], &t[4],
                               &t[5], &t[6], &t[7])
                      : 0;
    if (f) {
        fclose(f);
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    *self = (double) ru.ru_utime.tv_sec + (double) ru.ru_stime.tv_sec +
            1e-6 * (double) (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
    const unsigned long long busy = t[0] + t[1] + t[2] + t[5] + t[6] + t[7]; /* all but idle and iowait */
    *machine = (double) busy / (double) sysconf(_SC_CLK_TCK);
    return got == 8;
}

/* The load report of the oracle's tools. load_begin: CPUs other processes keep busy over BUSY_WAIT_MS, with a
 * warning when they and our threads oversubscribe the machine. load_end: CPUs they used on average during the
 * run (the machine's busy time minus ours, over the wall time; clamped at 0, as /proc/stat counts in clock ticks
 * and getrusage in microseconds, and not reported for runs under a second, whose few ticks say nothing). */
struct load {
    double machine, self, wall;
    bool ok;
};

static void load_begin(struct load *l, int threads) {
    const int n_cpu = (int) sysconf(_SC_NPROCESSORS_ONLN);
    double machine, self;
    const bool ok = cpu_times(&machine, &self);
    const double wall = tool_now_s();
    usleep(BUSY_WAIT_MS * 1000);
    l->ok = ok && cpu_times(&l->machine, &l->self);
    l->wall = tool_now_s();
    const double busy = fmax(0.0, ((l->machine - machine) - (l->self - self)) / (l->wall - wall));
    if (!l->ok) {
        fprintf(stderr, "# cpus: %d online, load unknown (/proc/stat unreadable)\n", n_cpu);
        return;
    }
    fprintf(stderr, "# cpus: %d online, %.2f busy with other work before the run\n", n_cpu, busy);
    if (busy + threads > n_cpu + 0.25) {
        fprintf(stderr,
                "# WARNING: other processes keep %.2f of %d CPUs busy; runs with %d threads will be distorted\n", busy,
                n_cpu, threads);
    }
}

static void load_end(const struct load *l) {
    double machine, self;
    if (l->ok && tool_now_s() - l->wall >= 1.0 && cpu_times(&machine, &self)) { /* shorter: a few clock ticks */
        fprintf(stderr, "# other processes used %.2f CPUs on average during the run (%.0f s)\n",
                fmax(0.0, ((machine - l->machine) - (self - l->self)) / (tool_now_s() - l->wall)),
                tool_now_s() - l->wall);
    }
}

/* The threads column of HTP devices ("nhvx 2", or "nhvx default" when VNPU_NHVX is unset), printed once with the
 * arch; *n gets VNPU_NHVX (0 when unset). Exits on a malformed HTP environment (the cause was logged). */
static const char *htp_threads(int *n) {
    static char text[32];
    const struct htp_config *cfg;
    if (htp_config_get(&cfg) != VNPU_STATUS_OK) {
        exit(1);
    }
    *n = (int) cfg->nhvx;
    if (!text[0]) {
        snprintf(text, sizeof(text), cfg->nhvx ? "nhvx %u" : "nhvx default", cfg->nhvx);
        fprintf(stderr, "# HTP devices: arch v%d, %s\n", (int) cfg->arch, text);
    }
    return text;
}

/* An op-mode device: one of -dev, with one of -t for the CPU. devs[0] is timed; llama_devices_open adds the CPU
 * fallback after an NPU device, which stays idle. */
struct target {
    struct vnpu_device *devs[LLAMA_MAX_DEVICES];
    int n_devs;
    const char *threads; /* the threads column */
};

/* Open a target per device and, for the CPU, per thread count; *max_threads gets the most threads one runs. */
static int open_targets(const struct args *a, struct target *t, int *n_targets, int *max_threads) {
    *n_targets = 0;
    *max_threads = 1;
    for (int d = 0; d < a->devices.n; d++) {
        const char *name = a->devices.item[d];
        uint32_t index;
        const bool cpu = strcmp(name, "CPU") == 0;
        const bool xdna = vnpu_xdna_device_name(name, strlen(name));
        if (!cpu && !xdna && !vnpu_htp_device_parse(name, strlen(name), &index)) {
            fprintf(stderr, TOOL ": op mode times one device at a time: '%s' is not CPU, HTP<n> or an XDNA partition\n",
                    name);
            return 2;
        }
        for (int i = 0; i < (cpu ? a->n_threads.n : 1); i++) {
            struct target *tg = &t[(*n_targets)++];
            if (llama_devices_open(name, a->n_threads.v[i], tg->devs, &tg->n_devs) != VNPU_STATUS_OK) {
                return 1;
            }
            int nhvx = 0;
            /* the XDNA array's emulation runs a design's columns on the host's cores at once (xdna-array.h) */
            const int cores = (int) sysconf(_SC_NPROCESSORS_ONLN);
            tg->threads = cpu ? a->threads.item[i] : xdna ? "columns on cores" : htp_threads(&nhvx);
            const int used = cpu ? a->n_threads.v[i] : xdna ? (cores > 0 ? cores : 1) : nhvx;
            *max_threads = used > *max_threads ? used : *max_threads;
        }
    }
    return 0;
}

static void close_targets(struct target *t, int n_targets) {
    for (int i = 0; i < n_targets; i++) {
        for (int d = 0; d < t[i].n_devs; d++) {
            vnpu_device_free(t[i].devs[d]);
        }
    }
}

/* Index of a median in the op-mode table of medians: [target][type][n][shape]. */
static size_t us_index(const struct args *a, int target, int type, int j, int shape) {
    return (((size_t) target * (size_t) a->types.n + (size_t) type) * (size_t) a->ns.n + (size_t) j) * MAX_SHAPES +
           (size_t) shape;
}

/* The matmul time of one forward pass per (target, type, N): each shape's median times its count per pass, summed;
 * ggml_op_bench's --shapes summary (its columns, with the device first), where a row of a type the device does not
 * run reads n/a. */
static void print_pass_summary(const struct args *a, const struct target *t, int n_targets, const enum vnpu_type *types,
                               const struct bench_shape *shapes, int n_shapes, const double *us) {
    printf("\n%s matmuls per forward pass: each shape's median above times its count per pass (", a->shapes);
    for (int s = 0; s < n_shapes; s++) {
        printf("%s%d %s", s ? " + " : "", shapes[s].per_pass, shapes[s].label);
    }
    printf("), summed\n\n");
    printf("| device | type | threads | n | weights GiB | matmul ms / pass | tokens/s (matmuls only) | GFLOP/s "
           "| weight GB/s |\n");
    printf("| ------ | ---- | ------: | -: | ---------: | ---------------: | ----------------------: | ------: "
           "| ----------: |\n");
    for (int ti = 0; ti < n_targets; ti++) {
        for (int y = 0; y < a->types.n; y++) {
            for (int j = 0; j < a->ns.n; j++) {
                const double n = a->ns.v[j];
                double pass_us = 0.0, flops = 0.0, bytes = 0.0;
                for (int s = 0; s < n_shapes; s++) {
                    pass_us += shapes[s].per_pass * us[us_index(a, ti, y, j, s)];
                    flops += shapes[s].per_pass * 2.0 * (double) shapes[s].k * (double) shapes[s].m * n;
                    bytes += shapes[s].per_pass * (double) vnpu_row_size(types[y], shapes[s].k) * (double) shapes[s].m;
                }
                printf("| %s | %s | %s | %.0f | %.3f |", vnpu_device_name(t[ti].devs[0]), a->types.item[y],
                       t[ti].threads, n, bytes / 1073741824.0);
                if (pass_us > 0.0) { /* a NaN (a shape the device does not run) fails the comparison */
                    printf(" %.2f | %.1f | %.1f | %.1f |\n", pass_us * 1e-3, n / (pass_us * 1e-6),
                           flops / (pass_us * 1e3), bytes / (pass_us * 1e3));
                } else {
                    printf(" n/a | n/a | n/a | n/a |\n");
                }
            }
        }
    }
}

/* Every case of one weight matrix (type y, shape s) on every target, medians into us; *failed is set when a row
 * fails its checks (the run goes on, as ggml_op_bench's). Returns 1 when a case could not run. */
static int run_matrix(const struct args *a, enum vnpu_type type, int y, const struct bench_shape *shape, int s,
                      struct target *t, int n_targets, double *us, bool *failed) {
    void *w = NULL;
    size_t w_size;
    if (bench_weights_gen(type, shape->k, shape->m, a->seed, &w, &w_size) != VNPU_STATUS_OK) {
        return 1;
    }
    int rc = 0;
    for (int j = 0; j < a->ns.n && rc == 0; j++) {
        struct bench_mm_case c = {shape->label, type, shape->k, shape->m, a->ns.v[j], w, NULL};
        float *x = NULL;
        if (bench_input_gen("B", (size_t) (c.k * c.n), a->seed, &x) != VNPU_STATUS_OK) {
            rc = 1;
        }
        c.x = x;
        for (int ti = 0; ti < n_targets && rc == 0; ti++) {
            struct bench_op_result r;
            struct vnpu_htp_perf perf;
            /* VNPU_PERF: the table has the modelled column; an XDNA device: also modelled GFLOP/s */
            const int modelled = a->xdna ? 2 : vnpu_htp_perf_read(&perf, true) ? 1 : 0;
            struct vnpu_device *xdna = vnpu_xdna_device_is(t[ti].devs[0]) ? t[ti].devs[0] : NULL;
            static struct vnpu_xdna_totals xt; /* static: a few KB */
            if (xdna) {
                vnpu_xdna_device_totals(xdna, &xt, true);
            }
            if (bench_mul_mat(t[ti].devs[0], &c, &a->op_opts, &r) != VNPU_STATUS_OK) {
                rc = 1;
                break;
            }
            r.modelled_us = NAN;
            if (vnpu_htp_perf_read(&perf, true)) {
                for (uint32_t k = 0; k < perf.n_rows; k++) {
                    if (strcmp(perf.rows[k].op, "MUL_MAT") == 0 && perf.rows[k].count) {
                        r.modelled_us = perf.rows[k].us / (double) perf.rows[k].count;
                    }
                }
            }
            if (xdna) { /* the nodes the array ran (every repetition alike), the CPU's rows apart */
                vnpu_xdna_device_totals(xdna, &xt, true);
                for (uint32_t k = 0; k < xt.n_rows; k++) {
                    if (strcmp(xt.rows[k].op, "MUL_MAT") == 0 && xt.rows[k].count) {
                        r.modelled_us = xt.rows[k].us / (double) xt.rows[k].count;
                    }
                }
            }
            bench_op_print_row(stdout, a->fmt, vnpu_device_name(t[ti].devs[0]), t[ti].threads, &c, &r, modelled);
            fflush(stdout);
            *failed = *failed || (r.supported && !bench_op_result_ok(&r));
            us[us_index(a, ti, y, j, s)] = r.supported ? r.us_med : NAN;
        }
        free(x);
    }
    free(w);
    return rc;
}

static int run_ops(const struct args *a) {
    const struct bench_shape single = {a->op, a->k, a->m, 1};
    const struct bench_shape *shapes = a->shapes ? shapes_llama_3_2_1b : &single;
    const int n_shapes = a->shapes ? (int) (sizeof(shapes_llama_3_2_1b) / sizeof(shapes_llama_3_2_1b[0])) : 1;
    enum vnpu_type types[MAX_ITEMS];
    for (int y = 0; y < a->types.n; y++) {
        if (!vnpu_type_from_name(a->types.item[y], &types[y])) {
            usage_error("unknown type '%s'", a->types.item[y]);
        }
    }
    if (a->archs.n > 1) {
        usage_error("%s", "op mode models one target at a time: give one --arch");
    }
    if (a->archs.n == 1) { /* before the HTP devices read their environment */
        setenv("VNPU_ARCH", a->archs.item[0], 1);
        setenv("VNPU_PERF", "1", 1);
    }
    static struct target targets[MAX_TARGETS];
    int n_targets, max_threads;
    int rc = open_targets(a, targets, &n_targets, &max_threads);
    const struct htp_config *cfg;
    const int modelled = a->xdna ? 2 : htp_config_get(&cfg) == VNPU_STATUS_OK && cfg->perf ? 1 : 0;
    if (rc == 0 && a->op_opts.dump && (n_targets != 1 || a->types.n != 1 || a->ns.n != 1 || n_shapes != 1)) {
        fprintf(stderr, TOOL ": --dump needs a single case (one device, type, thread count and n)\n");
        rc = 2;
    }
    double *us = rc == 0 ? malloc(us_index(a, n_targets, 0, 0, 0) * sizeof(double)) : NULL;
    if (rc == 0 && !us) {
        fprintf(stderr, TOOL ": out of memory\n");
        rc = 1;
    }
    struct load load;
    if (rc == 0) {
        load_begin(&load, max_threads);
        bench_op_print_header(stdout, a->fmt, modelled);
        fflush(stdout);
    }
    bool failed = false;
    for (int y = 0; y < a->types.n && rc == 0; y++) {
        for (int s = 0; s < n_shapes && rc == 0; s++) {
            rc = run_matrix(a, types[y], y, &shapes[s], s, targets, n_targets, us, &failed);
        }
    }
    if (rc == 0 && a->shapes && strcmp(a->fmt, "md") == 0) {
        print_pass_summary(a, targets, n_targets, types, shapes, n_shapes, us);
    }
    if (rc == 0) {
        load_end(&load);
    }
    if (rc == 0 && failed) {
        fprintf(stderr, TOOL ": some rows failed their checks (check FAIL or det NO)\n");
    }
    free(us);
    close_targets(targets, n_targets);
    return rc == 0 && failed ? 1 : rc;
}

/* The model's XDNA device (a device list holds at most one), or NULL. */
static struct vnpu_device *model_xdna(const struct vnpu_model *model) {
    for (int d = 0; d < model->n_devs; d++) {
        if (vnpu_xdna_device_is(model->devs[d])) {
            return model->devs[d];
        }
    }
    return NULL;
}

/* Test t on a model with an XDNA device: the warm-up alone, then the timed repetitions, whose modelled totals (the
 * context's device's, vnpu_xdna_totals_read) go into r: every repetition models the same, the same shapes from an
 * empty cache. */
static enum vnpu_status run_test_xdna(const struct vnpu_model *model, struct vnpu_context *ctx,
                                      const struct bench_model_test *t, struct bench_row *r) {
    struct bench_model_test warm = *t, timed = *t;
    warm.reps = 0;
    timed.warmup = false;
    enum vnpu_status st = t->warmup ? bench_model_run(model, ctx, &warm, r->ts) : VNPU_STATUS_OK;
    vnpu_xdna_totals_read(&r->xdna, true);
    if (st == VNPU_STATUS_OK && (st = bench_model_run(model, ctx, &timed, r->ts)) == VNPU_STATUS_OK) {
        const struct xdna_device *part = vnpu_xdna_totals_read(&r->xdna, true);
        snprintf(r->arch, sizeof(r->arch), "%s", part ? part->name : "");
        /* the XDNA model prices the array's runs and the CPU's ops; an HTP device of the list is not priced with them
         * (its model is --arch's): such a list's modelled cell stays empty rather than leave HTP's part out */
        const bool htp = strstr(vnpu_model_devices(model), "HTP") != NULL;
        r->modelled_ts = part && !htp && r->xdna.us > 0.0 ? t->n / (r->xdna.us / t->reps * 1e-6) : NAN;
    }
    return st;
}

/* The pp and tg tests of a model on one context on devices (the column's text), each a row into sink (r: scratch).
 * Under VNPU_PERF (a --arch child's modelled run) each test runs once, and its row carries the modelled totals; on an
 * XDNA device the row carries the device's modelled totals of its timed repetitions. */
static int run_tests(const struct args *a, const struct bench_sink *sink, const struct vnpu_model *model,
                     struct vnpu_context *ctx, const char *desc, const char *devices, int n_threads,
                     struct bench_row *r) {
    const bool xdna = model_xdna(model) != NULL;
    for (int kind = 0; kind < 2; kind++) {
        const struct int_list *l = kind == 0 ? &a->pp : &a->tg;
        for (int i = 0; i < l->n; i++) {
            const struct bench_model_test t = {kind == 0 ? BENCH_MODEL_PP : BENCH_MODEL_TG, l->v[i],
                                               sink->modelled ? 1 : a->reps, a->warmup && !sink->modelled};
            if (t.n == 0) {
                continue;
            }
            memset(r, 0, sizeof(*r));
            snprintf(r->desc, sizeof(r->desc), "%s", desc);
            snprintf(r->devices, sizeof(r->devices), "%s", devices);
            r->threads = n_threads;
            r->t = t;
            if (sink->modelled) {
                vnpu_htp_perf_read(&r->perf, true);
            }
            r->modelled_ts = NAN;
            if ((xdna ? run_test_xdna(model, ctx, &t, r) : bench_model_run(model, ctx, &t, r->ts)) != VNPU_STATUS_OK) {
                fprintf(stderr, TOOL ": %s%d failed on %s\n", kind == 0 ? "pp" : "tg", t.n, devices);
                return 1;
            }
            if (sink->modelled) {
                const bool priced = vnpu_htp_perf_read(&r->perf, true) && r->perf.us > 0.0;
                if (!priced && strstr(vnpu_model_devices(model), "HTP")) {
                    fprintf(stderr, TOOL ": %s%d on %s: no NPU device ran under the cost model\n",
                            kind == 0 ? "pp" : "tg", t.n, devices);
                    return 1;
                }
                /* a list without an NPU device (CPU) is not modelled: its modelled cell stays empty */
                r->modelled_ts = priced ? t.n / (r->perf.us * 1e-6) : NAN;
            }
            if (bench_sink_row(sink, r) != 0) {
                return 1;
            }
        }
    }
    return 0;
}

/* Every device list, split mode and thread count: the tests into sink (a bench_run_fn). */
static int run_model_tests(void *args, const struct bench_sink *sink) {
    const struct args *a = args;
    const int max_pp = int_list_max(&a->pp), max_tg = int_list_max(&a->tg);
    const int max_tokens = max_pp > max_tg ? max_pp : max_tg;
    struct bench_row *row = malloc(sizeof(*row));
    if (!row) {
        fprintf(stderr, TOOL ": out of memory\n");
        return 1;
    }
    int rc = 0;
    for (int d = 0; d < a->devices.n * a->split_modes.n && rc == 0; d++) {
        const char *list = a->devices.item[d / a->split_modes.n], *sm = a->split_modes.item[d % a->split_modes.n];
        char devices[256]; /* the list as vnpu_model_params takes it (comma-separated), then as the column shows it */
        snprintf(devices, sizeof(devices), "%s", list ? list : "the default devices");
        for (char *p = strchr(devices, '/'); p; p = strchr(p, '/')) {
            *p = ',';
        }
        struct vnpu_model_params mp = vnpu_model_default_params();
        mp.devices = list ? devices : NULL;
        mp.split_mode = (enum vnpu_split_mode) split_mode_parse(sm);
        struct vnpu_model *model = NULL;
        if (vnpu_model_load(a->model, &mp, &model) != VNPU_STATUS_OK) {
            fprintf(stderr, TOOL ": cannot load %s on %s (-sm %s)\n", a->model, devices, sm);
            rc = 1;
            break;
        }
        /* the devices column: the model's devices, '/'-joined, and the split mode unless it is the layer split */
        const bool layer = mp.split_mode == VNPU_SPLIT_MODE_LAYER;
        snprintf(devices, sizeof(devices), "%s%s%s", vnpu_model_devices(model), layer ? "" : " -sm ", layer ? "" : sm);
        for (char *p = devices, depth = 0; *p; p++) { /* the list's commas, not a group's (HTP0[0,2]) */
            depth += *p == '[' ? 1 : *p == ']' ? -1 : 0;
            *p = *p == ',' && depth == 0 ? '/' : *p;
        }
        char desc[256];
        vnpu_model_desc(model, desc, sizeof(desc));
        for (int ti = 0; ti < a->n_threads.n && rc == 0; ti++) {
            struct vnpu_context_params cp = vnpu_context_default_params();
            cp.n_ctx = (uint32_t) max_tokens;
            cp.n_batch = (uint32_t) (max_pp > 0 ? max_pp : 1);
            cp.n_threads = a->n_threads.v[ti];
            struct vnpu_context *ctx = NULL;
            if (vnpu_context_new(model, &cp, &ctx) != VNPU_STATUS_OK) {
                fprintf(stderr, TOOL ": cannot make a context of %d tokens on %s\n", max_tokens, devices);
                rc = 1;
                break;
            }
            rc = run_tests(a, sink, model, ctx, desc, devices, cp.n_threads, row);
            vnpu_context_free(ctx);
        }
        vnpu_model_free(model);
    }
    free(row);
    return rc;
}

static int run_model(struct args *a) {
    if (int_list_max(&a->pp) == 0 && int_list_max(&a->tg) == 0) {
        usage_error("%s", "no test: every -p and -n is 0");
    }
    struct load load;
    load_begin(&load, int_list_max(&a->n_threads));
    int rc;
    if (a->archs.n > 0) {
        rc = bench_arch_run(a->archs.item, a->archs.n, run_model_tests, a, &a->modelled, a->breakdown, stdout, a->fmt);
    } else {
        /* an XDNA partition in a list: the --arch table, its rows kept for the breakdown */
        struct bench_row *kept = a->xdna && a->breakdown ? malloc(BENCH_MAX_ROWS * sizeof(*kept)) : NULL;
        int n_kept = 0;
        if (a->xdna) {
            bench_arch_print_header(stdout, a->fmt);
        } else {
            bench_model_print_header(stdout, a->fmt);
        }
        fflush(stdout);
        const struct bench_sink sink = {.out = stdout,
                                        .fmt = a->fmt,
                                        .fd = -1,
                                        .modelled = false,
                                        .xdna = a->xdna,
                                        .kept = kept,
                                        .n_kept = &n_kept};
        rc = a->xdna && a->breakdown && !kept ? 1 : run_model_tests(a, &sink);
        if (rc == 0 && kept) {
            bench_arch_print_xdna_breakdown(stdout, a->fmt, kept, n_kept);
        }
        free(kept);
    }
    if (rc == 0) {
        load_end(&load);
    }
    return rc;
}

int main(int argc, char **argv) {
    struct args a;
    parse_args(argc, argv, &a);
    const int rc = a.model ? run_model(&a) : run_ops(&a);
    free(a.types.copy);
    free(a.devices.copy);
    free(a.split_modes.copy);
    free(a.threads.copy);
    free(a.archs.copy);
    return rc;
}
