/* Single ops timed on a device for vnpu-bench: see bench-op.h. */
#include "bench-op.h"

#include "buffer.h"
#include "file-out.h"
#include "hash.h"
#include "log.h"
#include "tensor.h"
#include "tool-common.h"
#include "xdna-host.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define BENCH_CHECK_ROWS 96 /* sampled output rows, at most */
#define BENCH_CHECK_COLS 6  /* sampled output columns, at most */
#define BENCH_CALIBRATE  10 /* calibration rounds, at most */

/* One case on one device: W, X and the result in the device's buffers, and the graph of repeated nodes. */
struct bench_mm_setup {
    struct vnpu_ctx *ctx;
    struct vnpu_tensor *w, *x, *out;
    struct vnpu_graph *g;
    struct vnpu_buffer *wbuf, *buf;
};

static void bench_mm_setup_free(struct bench_mm_setup *s) {
    vnpu_buffer_free(s->wbuf);
    vnpu_buffer_free(s->buf);
    if (s->ctx) {
        vnpu_ctx_free(s->ctx);
    }
}

/* The nodes of s's graph: its MUL_MAT n times, as ggml_graph_add_node repeats a node. */
static void bench_mm_setup_repeat(struct bench_mm_setup *s, int n) {
    for (int i = 0; i < n; i++) {
        s->g->nodes[i] = s->out;
    }
    s->g->n_nodes = n;
}

/* Build c on dev; *supported false (and nothing allocated) when dev refuses the node. */
static enum vnpu_status bench_mm_setup_new(struct vnpu_device *dev, const struct bench_mm_case *c,
                                           struct bench_mm_setup *s, bool *supported) {
    memset(s, 0, sizeof(*s));
    s->ctx = vnpu_ctx_new(8 * vnpu_tensor_overhead() + vnpu_graph_overhead(BENCH_MAX_PER_REP), true);
    if (!s->ctx) {
        vnpu_log_error("%s %s: out of memory for the graph", c->label, vnpu_type_name(c->type));
        return VNPU_STATUS_NO_MEMORY;
    }
    s->w = vnpu_new_tensor_2d(s->ctx, c->type, c->k, c->m);
    s->x = vnpu_new_tensor_2d(s->ctx, VNPU_TYPE_F32, c->k, c->n);
    s->w->flags |= VNPU_TENSOR_FLAG_WEIGHT;
    vnpu_set_name(s->w, "A");
    vnpu_set_name(s->x, "B");
    s->out = vnpu_mul_mat(s->ctx, s->w, s->x);
    vnpu_set_name(s->out, "C");
    s->g = vnpu_graph_new(s->ctx, BENCH_MAX_PER_REP);
    vnpu_graph_build_forward_expand(s->g, s->out);
    *supported = vnpu_device_supports_op(dev, s->out);
    if (!*supported) {
        return VNPU_STATUS_OK;
    }
    struct vnpu_buffer_type *wbt = vnpu_device_weight_buffer_type(dev, s->w), *bt = vnpu_device_buffer_type(dev);
    const size_t x_size = vnpu_buffer_type_alloc_size(bt, s->x), out_size = vnpu_buffer_type_alloc_size(bt, s->out);
    const size_t out_offs = (x_size + bt->alignment - 1) / bt->alignment * bt->alignment;
    enum vnpu_status st = vnpu_buffer_type_alloc(wbt, vnpu_buffer_type_alloc_size(wbt, s->w), &s->wbuf);
    if (st == VNPU_STATUS_OK) {
        st = vnpu_buffer_type_alloc(bt, out_offs + out_size, &s->buf);
    }
    if (st != VNPU_STATUS_OK) {
        return st;
    }
    vnpu_buffer_place_tensor(s->wbuf, s->w, 0);
    vnpu_buffer_place_tensor(s->buf, s->x, 0);
    vnpu_buffer_place_tensor(s->buf, s->out, out_offs);
    st = vnpu_tensor_set(s->w, c->weights, 0, vnpu_nbytes(s->w));
    if (st == VNPU_STATUS_OK) {
        st = vnpu_tensor_set(s->x, c->x, 0, vnpu_nbytes(s->x));
    }
    return st;
}

/* Seconds of one compute of s's graph on dev. */
static enum vnpu_status bench_compute(struct vnpu_device *dev, struct bench_mm_setup *s, double *t) {
    const double t0 = tool_now_s();
    const enum vnpu_status st = vnpu_sched_graph_compute(&dev, 1, s->g);
    *t = tool_now_s() - t0;
    return st;
}

/* Op executions per repetition: grown until a repetition lasts 0.8 min_time (ggml_op_bench's rule: aim at 1.1
 * min_time from the last estimate, at least double). */
static enum vnpu_status bench_calibrate(struct vnpu_device *dev, struct bench_mm_setup *s, double min_time, int *n) {
    *n = 1;
    bench_mm_setup_repeat(s, *n);
    for (int round = 0; round < BENCH_CALIBRATE; round++) {
        double t;
        const enum vnpu_status st = bench_compute(dev, s, &t);
        if (st != VNPU_STATUS_OK || t >= 0.8 * min_time || *n >= BENCH_MAX_PER_REP) {
            return st;
        }
        const double want = ceil(min_time / fmax(t / *n, 1e-9) * 1.1);
        int next = want > BENCH_MAX_PER_REP ? BENCH_MAX_PER_REP : (int) want;
        if (next <= *n) {
            next = 2 * *n > BENCH_MAX_PER_REP ? BENCH_MAX_PER_REP : 2 * *n;
        }
        *n = next;
        bench_mm_setup_repeat(s, *n);
    }
    return VNPU_STATUS_OK;
}

static int cmp_double(const void *a, const void *b) {
    const double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

/* ggml_op_bench's limit on the sampled relative error for a weight type; on an XDNA device, which rounds both
 * operands of a float matmul to bf16 (docs/xdna.md), bf16's, and with the BFP16 kernel (8-bit mantissas under a
 * block's exponent: about 1.4e-2 RMS) the quantized types'. */
static double bench_check_tol(enum vnpu_type type, struct vnpu_device *dev) {
    if (vnpu_type_traits_get(type)->is_quantized || (vnpu_xdna_device_is(dev) && vnpu_xdna_device_bfp16(dev))) {
        return 3e-2;
    }
    if (vnpu_xdna_device_is(dev)) {
        return 1e-2;
    }
    return type == VNPU_TYPE_F16 ? 2e-3 : type == VNPU_TYPE_BF16 ? 1e-2 : 1e-5;
}

/* ggml_op_bench's sample index: s of ns picks spread over [0, n), the first and the last included. */
static int64_t bench_check_pick(int64_t s, int64_t ns, int64_t n) {
    return ns <= 1 ? 0 : s * (n - 1) / (ns - 1);
}

/* Relative RMS error of a sample of out (F32 [m, n]) against W x X in double precision into r->check_rel, the
 * largest absolute difference into r->check_max (a NaN output counts as an infinite difference, as in
 * ggml_op_bench); w holds k floats. */
static void bench_check(const struct bench_mm_case *c, const float *out, float *w, struct bench_op_result *r) {
    const struct vnpu_type_traits *tt = vnpu_type_traits_get(c->type);
    const size_t row_size = vnpu_row_size(c->type, c->k);
    const int64_t n_rows = c->m < BENCH_CHECK_ROWS ? c->m : BENCH_CHECK_ROWS;
    const int64_t n_cols = c->n < BENCH_CHECK_COLS ? c->n : BENCH_CHECK_COLS;
    double err = 0.0, ref = 0.0, max_abs = 0.0;
    for (int64_t a = 0; a < n_rows; a++) {
        const int64_t i = bench_check_pick(a, n_rows, c->m);
        tt->to_f32((const uint8_t *) c->weights + (size_t) i * row_size, w, c->k);
        for (int64_t b = 0; b < n_cols; b++) {
            const int64_t j = bench_check_pick(b, n_cols, c->n);
            const float *x = c->x + (size_t) (j * c->k);
            double dot = 0.0;
            for (int64_t e = 0; e < c->k; e++) {
                dot += (double) w[e] * (double) x[e];
            }
            const double d = fabs((double) out[(size_t) (j * c->m + i)] - dot);
            max_abs = isnan(d) ? INFINITY : fmax(max_abs, d);
            err += isnan(d) ? INFINITY : d * d;
            ref += dot * dot;
        }
    }
    r->check_rel = ref > 0.0 ? sqrt(err / ref) : sqrt(err);
    r->check_max = max_abs;
}

/* Write W, X and the output as PREFIX.A.<type>, PREFIX.B.f32 and PREFIX.out.f32: all three are written to their
 * temporaries first and put in place only when every write succeeded. */
static enum vnpu_status bench_dump(const struct bench_mm_case *c, const char *prefix, const float *out) {
    const struct {
        const char *name, *type;
        const void *data;
        size_t size;
    } files[3] = {
        {"A", vnpu_type_name(c->type), c->weights, vnpu_row_size(c->type, c->k) * (size_t) c->m},
        {"B", "f32", c->x, (size_t) (c->k * c->n) * sizeof(float)},
        {"out", "f32", out, (size_t) (c->m * c->n) * sizeof(float)},
    };
    struct vnpu_file_out f[3] = {{0}};
    char path[3][4096];
    enum vnpu_status st = VNPU_STATUS_OK;
    int err = 0;
    for (int i = 0; i < 3 && st == VNPU_STATUS_OK && err == 0; i++) {
        snprintf(path[i], sizeof(path[i]), "%s.%s.%s", prefix, files[i].name, files[i].type);
        st = vnpu_file_out_open(path[i], &f[i]);
        if (st == VNPU_STATUS_OK && fwrite(files[i].data, 1, files[i].size, f[i].fp) != files[i].size) {
            err = errno ? errno : EIO;
        }
    }
    for (int i = 0; i < 3; i++) {
        if (st != VNPU_STATUS_OK || err != 0) {
            vnpu_file_out_abort(&f[i]);
        } else if ((st = vnpu_file_out_commit(&f[i], 0)) == VNPU_STATUS_OK) {
            fprintf(stderr, "# wrote %s (%zu bytes)\n", path[i], files[i].size);
        }
    }
    if (st == VNPU_STATUS_OK && err != 0) {
        vnpu_log_error("%s: cannot write: %s", prefix, strerror(err));
        st = VNPU_STATUS_IO;
    }
    return st;
}

/* The timed part on a built setup: calibration, warm-up, repetitions; out gets the last output. */
static enum vnpu_status bench_mm_time(struct vnpu_device *dev, struct bench_mm_setup *s, const struct bench_op_opts *o,
                                      struct bench_op_result *r, float *first, float *out, double *ts) {
    const size_t out_bytes = vnpu_nbytes(s->out);
    enum vnpu_status st = VNPU_STATUS_OK;
    bool have_first = false;
    if (o->per_rep > 0) {
        r->per_rep = o->per_rep;
        bench_mm_setup_repeat(s, o->per_rep);
    } else {
        st = bench_calibrate(dev, s, o->min_time, &r->per_rep);
        have_first = true;
    }
    for (int i = 0; i < o->warmup && st == VNPU_STATUS_OK; i++) {
        double t;
        st = bench_compute(dev, s, &t);
        have_first = true;
    }
    if (st == VNPU_STATUS_OK && have_first) {
        st = vnpu_tensor_get(s->out, first, 0, out_bytes);
    }
    for (int i = 0; i < o->reps && st == VNPU_STATUS_OK; i++) {
        double t;
        st = bench_compute(dev, s, &t);
        ts[i] = t / r->per_rep * 1e6;
        if (st == VNPU_STATUS_OK && !have_first && i + 1 < o->reps) {
            st = vnpu_tensor_get(s->out, first, 0, out_bytes);
            have_first = true;
        }
    }
    if (st == VNPU_STATUS_OK) {
        st = vnpu_tensor_get(s->out, out, 0, out_bytes);
    }
    r->det = !have_first ? -1 : memcmp(first, out, out_bytes) == 0;
    return st;
}

/* Floating-point operations of one MUL_MAT (2 K M N) and the weight bytes it reads (GGML's layout). */
static double bench_mm_flops(const struct bench_mm_case *c) {
    return 2.0 * (double) c->k * (double) c->m * (double) c->n;
}

static double bench_mm_bytes(const struct bench_mm_case *c) {
    return (double) vnpu_row_size(c->type, c->k) * (double) c->m;
}

enum vnpu_status bench_mul_mat(struct vnpu_device *dev, const struct bench_mm_case *c, const struct bench_op_opts *o,
                               struct bench_op_result *r) {
    memset(r, 0, sizeof(*r));
    r->check_rel = NAN;
    r->check_max = NAN;
    r->check_tol = bench_check_tol(c->type, dev);
    struct bench_mm_setup s;
    enum vnpu_status st = bench_mm_setup_new(dev, c, &s, &r->supported);
    if (st != VNPU_STATUS_OK || !r->supported) {
        bench_mm_setup_free(&s);
        return st;
    }
    r->buft = vnpu_buffer_type_name(s.wbuf->type);
    const size_t out_bytes = vnpu_nbytes(s.out);
    float *first = malloc(out_bytes), *out = malloc(out_bytes), *wrow = malloc((size_t) c->k * sizeof(float));
    double *ts = malloc((size_t) o->reps * sizeof(double));
    if (!first || !out || !wrow || !ts) {
        vnpu_log_error("%s %s: out of memory for %zu output bytes", c->label, vnpu_type_name(c->type), out_bytes);
        st = VNPU_STATUS_NO_MEMORY;
    } else {
        st = bench_mm_time(dev, &s, o, r, first, out, ts);
    }
    if (st == VNPU_STATUS_OK) {
        double mean = 0.0, var = 0.0;
        for (int i = 0; i < o->reps; i++) {
            mean += ts[i] / o->reps;
        }
        for (int i = 0; i < o->reps; i++) {
            var += (ts[i] - mean) * (ts[i] - mean);
        }
        qsort(ts, (size_t) o->reps, sizeof(double), cmp_double);
        r->reps = o->reps;
        r->us_med = o->reps % 2 ? ts[o->reps / 2] : 0.5 * (ts[o->reps / 2 - 1] + ts[o->reps / 2]);
        r->us_min = ts[0];
        r->us_mean = mean;
        r->us_sd = o->reps > 1 ? sqrt(var / (o->reps - 1)) : 0.0;
        r->gflops = bench_mm_flops(c) / (r->us_med * 1e3);
        r->gbs = bench_mm_bytes(c) / (r->us_med * 1e3);
        r->hash = vnpu_fnv1a64(out, out_bytes);
        if (o->check) {
            bench_check(c, out, wrow, r);
        }
        if (o->dump) {
            st = bench_dump(c, o->dump, out);
        }
    }
    free(first);
    free(out);
    free(wrow);
    free(ts);
    bench_mm_setup_free(&s);
    return st;
}

bool bench_op_result_ok(const struct bench_op_result *r) {
    return r->supported && (isnan(r->check_rel) || r->check_rel <= r->check_tol) && r->det != 0;
}

void bench_op_print_header(FILE *out, const char *fmt, int modelled) {
    static const char *const csv_cols[] = {"", ",modelled_us", ",modelled_us,modelled_gflops"};
    static const char *const md_cols[] = {"", " modelled us/op |", " modelled us/op | modelled GFLOP/s |"};
    static const char *const md_rule[] = {"", " -------------: |", " -------------: | ---------------: |"};
    if (strcmp(fmt, "csv") == 0) {
        fprintf(out,
                "device,test,op,type,shape,d0,d1,d2,d3,d4,weights_buft,copies,threads,ops_per_rep,reps,us_median,"
                "us_min,us_mean,us_stdev,gflops,gbs,flops_per_op,bytes_per_op,check,check_rel_err,check_max_abs,"
                "check_tol,deterministic,out_hash%s\n",
                csv_cols[modelled]);
        return;
    }
    fprintf(out,
            "| device | test | type | shape | weights | threads | ops/rep | us/op (median) | min | GFLOP/s | GB/s "
            "| check (rel. err) | det | out hash |%s\n",
            md_cols[modelled]);
    fprintf(out,
            "| ------ | ---- | ---- | ----- | ------- | ------: | ------: | -------------: | --: | ------: | ---: "
            "| ---------------- | --- | -------- |%s\n",
            md_rule[modelled]);
}

void bench_op_print_row(FILE *out, const char *fmt, const char *dev, const char *threads, const struct bench_mm_case *c,
                        const struct bench_op_result *r, int modelled) {
    static const char *const csv_empty[] = {"", ",", ",,"};
    static const char *const md_empty[] = {"", " |", " | |"};
    const char *type = vnpu_type_name(c->type);
    const bool csv = strcmp(fmt, "csv") == 0;
    char shape[96];
    snprintf(shape, sizeof(shape), "k=%" PRId64 " m=%" PRId64 " n=%" PRId64, c->k, c->m, c->n);
    if (!r->supported) {
        if (csv) {
            fprintf(out,
                    "%s,%s,mul_mat,%s,\"%s\",%" PRId64 ",%" PRId64 ",%" PRId64
                    ",0,0,unsupported,,%s,,,,,,,,,,,,,,,,%s\n",
                    dev, c->label, type, shape, c->k, c->m, c->n, threads, csv_empty[modelled]);
        } else {
            fprintf(out, "| %s | %s | %s | %s | not supported | %s | | | | | | | | |%s\n", dev, c->label, type, shape,
                    threads, md_empty[modelled]);
        }
        return;
    }
    const bool checked = !isnan(r->check_rel);
    const char *check = !checked ? "-" : r->check_rel <= r->check_tol ? "ok" : "FAIL";
    if (csv) {
        fprintf(out,
                "%s,%s,mul_mat,%s,\"%s\",%" PRId64 ",%" PRId64 ",%" PRId64 ",0,0,%s,1,%s,%d,%d,%.4f,%.4f,%.4f,%.4f,"
                "%.4f,%.4f,%.0f,%.0f,%s,%.3e,%.3e,%.1e,%d,%016" PRIx64,
                dev, c->label, type, shape, c->k, c->m, c->n, r->buft, threads, r->per_rep, r->reps, r->us_med,
                r->us_min, r->us_mean, r->us_sd, r->gflops, r->gbs, bench_mm_flops(c), bench_mm_bytes(c), check,
                r->check_rel, r->check_max, r->check_tol, r->det, r->hash);
        if (!isnan(r->modelled_us)) {
            fprintf(out, ",%.3f", r->modelled_us);
            if (modelled == 2) {
                fprintf(out, ",%.4f", bench_mm_flops(c) / (r->modelled_us * 1e3));
            }
        } else {
            fprintf(out, "%s", csv_empty[modelled]);
        }
        fprintf(out, "\n");
        return;
    }
    char check_cell[48] = "-";
    if (checked) {
        snprintf(check_cell, sizeof(check_cell), "%s %.1e", check, r->check_rel);
    }
    fprintf(out, "| %s | %s | %s | %s | %s | %s | %d | %.2f | %.2f | %.2f | %.2f | %s | %s | %016" PRIx64 " |", dev,
            c->label, type, shape, r->buft, threads, r->per_rep, r->us_med, r->us_min, r->gflops, r->gbs, check_cell,
            r->det > 0    ? "yes"
            : r->det == 0 ? "NO"
                          : "n/a",
            r->hash);
    if (!isnan(r->modelled_us)) {
        fprintf(out, " %.2f |", r->modelled_us);
        if (modelled == 2) {
            fprintf(out, " %.2f |", bench_mm_flops(c) / (r->modelled_us * 1e3));
        }
    } else {
        fprintf(out, "%s", md_empty[modelled]);
    }
    fprintf(out, "\n");
}
