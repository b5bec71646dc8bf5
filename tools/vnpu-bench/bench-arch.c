/* vnpu-bench --arch: see bench-arch.h. */
#include "bench-arch.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The bound that set most of a row's time. */
static const char *row_bound(const struct vnpu_htp_perf_row *r) {
    int best = 0;
    for (int b = 1; b < VNPU_HTP_PERF_BOUNDS; b++) {
        best = r->bound_us[b] > r->bound_us[best] ? b : best;
    }
    return vnpu_htp_perf_bound((uint32_t) best);
}

static void ts_stats(const struct bench_row *r, double *mean, double *sd) {
    double m = 0.0, var = 0.0;
    for (int i = 0; i < r->t.reps; i++) {
        m += r->ts[i] / r->t.reps;
    }
    for (int i = 0; i < r->t.reps; i++) {
        var += (r->ts[i] - m) * (r->ts[i] - m);
    }
    *mean = m;
    *sd = r->t.reps > 1 ? sqrt(var / (r->t.reps - 1)) : 0.0;
}

int bench_sink_row(const struct bench_sink *s, const struct bench_row *r) {
    if (s->fd < 0) {
        if (s->xdna) {
            bench_arch_print_row(s->out, s->fmt, r->arch, r, r);
        } else {
            bench_model_print_row(s->out, s->fmt, r->desc, r->devices, r->threads, &r->t, r->ts);
        }
        if (s->kept && *s->n_kept < BENCH_MAX_ROWS) {
            s->kept[(*s->n_kept)++] = *r;
        }
        fflush(s->out);
        return 0;
    }
    const char *p = (const char *) r;
    for (size_t left = sizeof(*r); left > 0;) {
        const ssize_t n = write(s->fd, p, left);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return 1;
        }
        p += n;
        left -= (size_t) n;
    }
    return 0;
}

/* Read a child's rows from fd into rows (at most BENCH_MAX_ROWS); returns how many, -1 on a short record. */
static int read_rows(int fd, struct bench_row *rows) {
    int n = 0;
    for (;;) {
        char *p = (char *) &rows[n];
        size_t got = 0;
        while (got < sizeof(rows[n])) {
            const ssize_t k = read(fd, p + got, sizeof(rows[n]) - got);
            if (k < 0 && errno == EINTR) {
                continue;
            }
            if (k <= 0) {
                return got == 0 ? n : -1;
            }
            got += (size_t) k;
        }
        if (++n == BENCH_MAX_ROWS) {
            return n;
        }
    }
}

/* Run run(args) in a child with VNPU_ARCH=arch (and VNPU_PERF=1 when modelled) and its rows into rows; returns their
 * count, or -1 when the child failed. */
static int run_child(const char *arch, bool modelled, bench_run_fn run, void *args, bool *modelled_flag,
                     struct bench_row *rows) {
    int fds[2];
    if (pipe(fds) != 0) {
        perror("vnpu-bench: pipe");
        return -1;
    }
    fflush(NULL);
    const pid_t pid = fork();
    if (pid < 0) {
        perror("vnpu-bench: fork");
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        close(fds[0]);
        setenv("VNPU_ARCH", arch, 1);
        if (modelled) {
            setenv("VNPU_PERF", "1", 1);
        } else {
            unsetenv("VNPU_PERF");
        }
        *modelled_flag = modelled;
        const struct bench_sink sink = {.out = NULL, .fmt = NULL, .fd = fds[1], .modelled = modelled};
        const int rc = run(args, &sink);
        close(fds[1]);
        _exit(rc);
    }
    close(fds[1]);
    const int n = read_rows(fds[0], rows);
    close(fds[0]);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || n < 0) {
        fprintf(stderr, "vnpu-bench: the %s run on %s failed\n", modelled ? "modelled" : "host", arch);
        return -1;
    }
    return n;
}

void bench_arch_print_header(FILE *out, const char *fmt) {
    if (strcmp(fmt, "csv") == 0) {
        fprintf(out, "model,devices,threads,arch,test,n_tokens,reps,ts_mean,ts_stdev,samples_ts,modelled_ts\n");
        return;
    }
    fprintf(out, "| model | devices | threads | arch | test | t/s (host) | t/s (modelled) |\n");
    fprintf(out, "| ----- | ------- | ------: | ---- | ---: | ---------: | -------------: |\n");
}

void bench_arch_print_row(FILE *out, const char *fmt, const char *arch, const struct bench_row *h,
                          const struct bench_row *m) {
    double mean, sd;
    ts_stats(h, &mean, &sd);
    const char *kind = h->t.kind == BENCH_MODEL_PP ? "pp" : "tg";
    if (strcmp(fmt, "csv") == 0) {
        fprintf(out, "\"%s\",\"%s\",%d,%s,%s%d,%d,%d,%.4f,%.4f,\"", h->desc, h->devices, h->threads, arch, kind, h->t.n,
                h->t.n, h->t.reps, mean, sd);
        for (int r = 0; r < h->t.reps; r++) {
            fprintf(out, "%s%.4f", r ? ";" : "", h->ts[r]);
        }
        if (isnan(m->modelled_ts)) {
            fprintf(out, "\",\n");
        } else {
            fprintf(out, "\",%.4f\n", m->modelled_ts);
        }
        return;
    }
    char modelled[32] = ""; /* empty for a device list without an NPU device */
    if (!isnan(m->modelled_ts)) {
        snprintf(modelled, sizeof(modelled), "%.2f", m->modelled_ts);
    }
    fprintf(out, "| %s | %s | %d | %s | %s%d | %.2f ± %.2f | %s |\n", h->desc, h->devices, h->threads, arch, kind,
            h->t.n, mean, sd, modelled);
}

/* The per-op table of one modelled test. */
static void print_breakdown(FILE *out, const char *fmt, const char *arch, const struct bench_row *m) {
    if (isnan(m->modelled_ts)) {
        return; /* not modelled */
    }
    const struct vnpu_htp_perf *p = &m->perf;
    const char *kind = m->t.kind == BENCH_MODEL_PP ? "pp" : "tg";
    const bool csv = strcmp(fmt, "csv") == 0;
    if (!csv) {
        fprintf(out,
                "\n%s %s%d on %s (%u NPU threads at %u MHz, %s): %.3f ms modelled, %.2f t/s; %llu requests %.3f ms\n\n",
                arch, kind, m->t.n, m->devices, p->n_threads, p->clock_mhz,
                p->calibrated ? "packets calibrated" : "no calibration: HVX resource bounds", p->us * 1e-3,
                m->modelled_ts, (unsigned long long) p->requests, p->request_us * 1e-3);
        fprintf(out, "| op | count | modelled ms | share | bound | DMA MB | HVX packets | HMX tiles |\n");
        fprintf(out, "| -- | ----: | ----------: | ----: | ----- | -----: | ----------: | -------: |\n");
    }
    for (uint32_t i = 0; i < p->n_rows; i++) {
        const struct vnpu_htp_perf_row *r = &p->rows[i];
        const double share = p->us > 0.0 ? 100.0 * r->us / p->us : 0.0;
        if (csv) {
            fprintf(out, "%s,%s%d,\"%s\",%llu,%.3f,%.2f,%s,%llu,%llu,%llu,\"%s\",%d\n", arch, kind, m->t.n, r->op,
                    (unsigned long long) r->count, r->us, share, row_bound(r), (unsigned long long) r->dma_bytes,
                    (unsigned long long) r->packets, (unsigned long long) r->hmx_tiles, m->devices, m->threads);
        } else {
            fprintf(out, "| %s | %llu | %.3f | %.1f %% | %s | %.2f | %llu | %llu |\n", r->op,
                    (unsigned long long) r->count, r->us * 1e-3, share, row_bound(r), (double) r->dma_bytes / 1e6,
                    (unsigned long long) r->packets, (unsigned long long) r->hmx_tiles);
        }
    }
    const double share = p->us > 0.0 ? 100.0 * p->request_us / p->us : 0.0;
    if (csv) {
        fprintf(out, "%s,%s%d,\"(requests)\",%llu,%.3f,%.2f,fixed,,,,\"%s\",%d\n", arch, kind, m->t.n,
                (unsigned long long) p->requests, p->request_us, share, m->devices, m->threads);
    } else {
        fprintf(out, "| (requests) | %llu | %.3f | %.1f %% | fixed | | | |\n", (unsigned long long) p->requests,
                p->request_us * 1e-3, share);
    }
}

/* The XDNA bound that set most of a row's time. */
static const char *xdna_row_bound(const struct vnpu_xdna_perf_row *r) {
    int best = 0;
    for (int b = 1; b < XDNA_PERF_BOUND_COUNT; b++) {
        best = r->bound_us[b] > r->bound_us[best] ? b : best;
    }
    return xdna_perf_bound_name((enum xdna_perf_bound) best);
}

void bench_arch_print_xdna_breakdown(FILE *out, const char *fmt, const struct bench_row *rows, int n) {
    const bool csv = strcmp(fmt, "csv") == 0;
    if (csv) {
        fprintf(out, "\narch,test,op,count,runs,modelled_us,share,bound,ddr_bytes,macs,devices,threads\n");
    }
    for (int i = 0; i < n; i++) {
        const struct bench_row *m = &rows[i];
        const struct vnpu_xdna_totals *p = &m->xdna;
        if (!m->arch[0] || isnan(m->modelled_ts)) {
            continue; /* no XDNA device */
        }
        const double reps = m->t.reps; /* the totals are of reps identical repetitions: one is shown */
        const char *kind = m->t.kind == BENCH_MODEL_PP ? "pp" : "tg";
        if (!csv) {
            uint64_t runs = 0;
            for (uint32_t k = 0; k < p->n_rows; k++) {
                runs += p->rows[k].runs;
            }
            const double fixed_us =
                (double) runs * xdna_perf_arch_of(xdna_device_find(m->arch, strlen(m->arch))->arch)->run_us;
            fprintf(out,
                    "\n%s %s%d on %s: %.3f ms modelled, %.2f t/s; %.0f design runs, %.3f ms of it their fixed cost\n\n",
                    m->arch, kind, m->t.n, m->devices, p->us / reps * 1e-3, m->modelled_ts, runs / reps,
                    fixed_us / reps * 1e-3);
            fprintf(out, "| op | count | runs | modelled ms | share | bound | DDR MB | GMAC |\n");
            fprintf(out, "| -- | ----: | ---: | ----------: | ----: | ----- | -----: | ---: |\n");
        }
        for (uint32_t k = 0; k < p->n_rows; k++) {
            const struct vnpu_xdna_perf_row *r = &p->rows[k];
            const double share = p->us > 0.0 ? 100.0 * r->us / p->us : 0.0;
            if (csv) {
                fprintf(out, "%s,%s%d,\"%s\",%.0f,%.0f,%.3f,%.2f,%s,%.0f,%.0f,\"%s\",%d\n", m->arch, kind, m->t.n,
                        r->op, r->count / reps, r->runs / reps, r->us / reps, share, xdna_row_bound(r),
                        r->ddr_bytes / reps, r->macs / reps, m->devices, m->threads);
            } else {
                fprintf(out, "| %s | %.0f | %.0f | %.3f | %.1f %% | %s | %.2f | %.3f |\n", r->op, r->count / reps,
                        r->runs / reps, r->us / reps * 1e-3, share, xdna_row_bound(r), r->ddr_bytes / reps / 1e6,
                        r->macs / reps / 1e9);
            }
        }
    }
}

static int scope_by_packets(const void *a, const void *b) {
    const double pa = ((const struct vnpu_htp_perf_scope *) a)->packets;
    const double pb = ((const struct vnpu_htp_perf_scope *) b)->packets;
    return (pa < pb) - (pa > pb);
}

/* The NPU functions of one modelled test, most packets first (m: a copy, sorted here). */
static void print_scopes(FILE *out, const char *fmt, const char *arch, struct bench_row *m) {
    if (isnan(m->modelled_ts)) {
        return; /* not modelled */
    }
    struct vnpu_htp_perf *p = &m->perf;
    qsort(p->scopes, p->n_scopes, sizeof(p->scopes[0]), scope_by_packets);
    const char *kind = m->t.kind == BENCH_MODEL_PP ? "pp" : "tg";
    const bool csv = strcmp(fmt, "csv") == 0;
    double total = 0.0;
    for (uint32_t i = 0; i < p->n_scopes; i++) {
        total += p->scopes[i].packets;
    }
    if (!csv) {
        fprintf(out, "\n%s %s%d: HVX packets by NPU function\n\n", arch, kind, m->t.n);
        fprintf(out,
                "| function | HVX instructions | loop trips | HVX / trip | packets | packets / instruction | share "
                "| priced by |\n");
        fprintf(out,
                "| -------- | ---------------: | ---------: | ---------: | ------: | --------------------: | ----: "
                "| --------- |\n");
    }
    for (uint32_t i = 0; i < p->n_scopes; i++) {
        const struct vnpu_htp_perf_scope *s = &p->scopes[i];
        const double share = total > 0.0 ? 100.0 * s->packets / total : 0.0;
        const double ratio = s->hvx ? s->packets / (double) s->hvx : 0.0;
        if (csv) {
            fprintf(out, "%s,%s%d,\"%s\",%llu,%llu,%.1f,%.4f,%s,\"%s\",%d\n", arch, kind, m->t.n, s->name,
                    (unsigned long long) s->hvx, (unsigned long long) s->trips, s->packets, ratio,
                    s->calibrated ? "calibration" : "resources", m->devices, m->threads);
        } else if (share >= 0.1) {
            fprintf(out, "| %s | %llu | %llu | %.1f | %.0f | %.3f | %.1f %% | %s |\n", s->name,
                    (unsigned long long) s->hvx, (unsigned long long) s->trips,
                    s->trips ? (double) s->hvx / (double) s->trips : 0.0, s->packets, ratio, share,
                    s->calibrated ? "calibration" : "resources");
        }
    }
}

int bench_arch_run(const char *const *archs, int n, bench_run_fn run, void *args, bool *modelled, bool breakdown,
                   FILE *out, const char *fmt) {
    struct bench_row *host = malloc(BENCH_MAX_ROWS * sizeof(*host) * BENCH_MAX_ARCHS);
    struct bench_row *model = malloc(BENCH_MAX_ROWS * sizeof(*model) * BENCH_MAX_ARCHS);
    int n_rows[BENCH_MAX_ARCHS];
    int rc = host && model ? 0 : 1;
    for (int a = 0; a < n && rc == 0; a++) {
        const int nh = run_child(archs[a], false, run, args, modelled, host + a * BENCH_MAX_ROWS);
        const int nm = nh < 0 ? -1 : run_child(archs[a], true, run, args, modelled, model + a * BENCH_MAX_ROWS);
        if (nh < 0 || nm != nh) {
            rc = 1;
        }
        n_rows[a] = nh;
    }
    if (rc == 0) {
        bench_arch_print_header(out, fmt);
        for (int a = 0; a < n; a++) {
            for (int i = 0; i < n_rows[a]; i++) {
                bench_arch_print_row(out, fmt, archs[a], &host[a * BENCH_MAX_ROWS + i], &model[a * BENCH_MAX_ROWS + i]);
            }
        }
        if (breakdown) {
            if (strcmp(fmt, "csv") == 0) {
                fprintf(
                    out,
                    "\narch,test,op,count,modelled_us,share,bound,dma_bytes,hvx_packets,hmx_tiles,devices,threads\n");
            }
            for (int a = 0; a < n; a++) {
                for (int i = 0; i < n_rows[a]; i++) {
                    print_breakdown(out, fmt, archs[a], &model[a * BENCH_MAX_ROWS + i]);
                }
            }
            if (strcmp(fmt, "csv") == 0) {
                fprintf(out, "\narch,test,function,hvx,trips,packets,packets_per_hvx,priced_by,devices,threads\n");
            }
            for (int a = 0; a < n; a++) {
                for (int i = 0; i < n_rows[a]; i++) {
                    print_scopes(out, fmt, archs[a], &model[a * BENCH_MAX_ROWS + i]);
                }
            }
        }
    }
    free(host);
    free(model);
    return rc;
}
