/* The cost model: see perf-model.h. */
#include "perf-model.h"

#include "log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* HMX: the cycles of one accumulator clear or store (ASSUMPTION, docs/targets.md: a 32x32 tile, one row a cycle). */
#define PERF_HMX_ACC_CYCLES 32.0
/* MACs of one 32x32x32 tile multiply-accumulate. */
#define PERF_HMX_TILE_MACS  (32.0 * 32.0 * 32.0)

struct perf_calib_line {
    char name[HTP_PERF_NAME_LEN];
    uint32_t packets, hvx;
};

struct perf_calib {
    struct perf_calib_line *lines;
    size_t n, cap;
};

const char *perf_bound_name(enum perf_bound b) {
    static const char *const names[PERF_BOUND_COUNT] = {"packets", "resources", "dma", "hmx", "fixed", "cpu"};
    return b < PERF_BOUND_COUNT ? names[b] : "?";
}

void perf_calib_free(struct perf_calib *c) {
    if (c) {
        free(c->lines);
        free(c);
    }
}

/* One line "function packets hvx depth loop" into *l; false with why. */
static bool calib_parse(char *line, struct perf_calib_line *l, const char **why) {
    char *field[5];
    int n = 0;
    char *save = NULL, *tok = strtok_r(line, "\t\n", &save);
    for (; tok && n < 5; tok = strtok_r(NULL, "\t\n", &save)) {
        field[n++] = tok;
    }
    if (n != 5 || tok) {
        *why = "expected 5 tab-separated fields: function packets hvx depth loop";
        return false;
    }
    if (strlen(field[0]) >= sizeof(l->name)) {
        *why = "function name too long";
        return false;
    }
    char *end1, *end2;
    errno = 0;
    const unsigned long packets = strtoul(field[1], &end1, 10), hvx = strtoul(field[2], &end2, 10);
    if (errno || *end1 || *end2 || packets == 0 || hvx == 0 || packets > 1000000 || hvx > 1000000) {
        *why = "packets and hvx must be integers 1..1000000";
        return false;
    }
    snprintf(l->name, sizeof(l->name), "%s", field[0]);
    l->packets = (uint32_t) packets;
    l->hvx = (uint32_t) hvx;
    return true;
}

enum vnpu_status perf_calib_load(const char *path, struct perf_calib **out) {
    *out = NULL;
    FILE *f = fopen(path, "r");
    if (!f) {
        vnpu_log_error("cost model: cannot read the calibration %s: %s", path, strerror(errno));
        return VNPU_STATUS_IO;
    }
    struct perf_calib *c = calloc(1, sizeof(*c));
    enum vnpu_status st = c ? VNPU_STATUS_OK : VNPU_STATUS_NO_MEMORY;
    char line[512];
    bool header = false;
    for (unsigned no = 1; st == VNPU_STATUS_OK && fgets(line, sizeof(line), f); no++) {
        if (line[0] == '#' || line[0] == '\n') {
            continue;
        }
        if (!header) {
            header = strncmp(line, "function\tpackets\thvx\tdepth\tloop", 31) == 0;
            if (!header) {
                vnpu_log_error("%s:%u: expected the header \"function packets hvx depth loop\"", path, no);
                st = VNPU_STATUS_BAD_FILE;
            }
            continue;
        }
        if (c->n == c->cap) {
            const size_t cap = c->cap ? 2 * c->cap : 64;
            struct perf_calib_line *lines = realloc(c->lines, cap * sizeof(*lines));
            if (!lines) {
                st = VNPU_STATUS_NO_MEMORY;
                break;
            }
            c->lines = lines;
            c->cap = cap;
        }
        const char *why = NULL;
        uint32_t packets, hvx;
        if (!calib_parse(line, &c->lines[c->n], &why)) {
            vnpu_log_error("%s:%u: %s", path, no, why);
            st = VNPU_STATUS_BAD_FILE;
        } else if (perf_calib_find(c, c->lines[c->n].name, &packets, &hvx)) {
            vnpu_log_error("%s:%u: a second line for %s (a function has one)", path, no, c->lines[c->n].name);
            st = VNPU_STATUS_BAD_FILE;
        } else {
            c->n++;
        }
    }
    const bool read_error = ferror(f);
    fclose(f);
    if (st == VNPU_STATUS_OK && read_error) {
        vnpu_log_error("cost model: cannot read the calibration %s", path);
        st = VNPU_STATUS_IO;
    } else if (st == VNPU_STATUS_OK && !header) {
        vnpu_log_error("%s: no header line", path);
        st = VNPU_STATUS_BAD_FILE;
    } else if (st == VNPU_STATUS_OK && c->n == 0) {
        vnpu_log_error("%s: no function lines after the header", path);
        st = VNPU_STATUS_BAD_FILE;
    }
    if (st != VNPU_STATUS_OK) {
        perf_calib_free(c);
        return st;
    }
    *out = c;
    return VNPU_STATUS_OK;
}

bool perf_calib_find(const struct perf_calib *c, const char *name, uint32_t *packets, uint32_t *hvx) {
    for (size_t i = 0; c && i < c->n; i++) {
        if (strcmp(c->lines[i].name, name) == 0) {
            *packets = c->lines[i].packets;
            *hvx = c->lines[i].hvx;
            return true;
        }
    }
    return false;
}

size_t perf_calib_count(const struct perf_calib *c) {
    return c ? c->n : 0;
}

static double max2(double a, double b) {
    return a > b ? a : b;
}

/* The HVX resource bound, in packets, of a thread's instructions by class (hvx-count.h's classes and units). */
static double perf_resource_packets(const struct htp_thread_perf *th) {
    const uint32_t *h = th->hvx;
    enum { LD, ST, VA, VA_DV, VX, VX_DV, VS, VP, VP_VS, GATHER, SCATTER };
    const double load = (double) h[LD] + h[GATHER];
    const double store = (double) h[ST] + h[GATHER] + h[SCATTER];
    const double shift = (double) h[VS] + h[VP_VS];
    const double permute = (double) h[VP] + h[VP_VS];
    const double mpy = (double) h[VX] + 2.0 * h[VX_DV];
    const double alu = (double) h[VA] + 2.0 * h[VA_DV];
    double insns = 0.0;
    for (int i = 0; i < HTP_PERF_HVX_CLASSES; i++) {
        insns += h[i];
    }
    double b = max2(max2(load, store), max2(shift, permute));
    b = max2(b, mpy / 2.0);
    b = max2(b, (load + store + shift + permute + mpy + alu) / 6.0);
    return max2(b, insns / 4.0);
}

/* A thread's modelled packets; *uncal gets its instructions in scopes without a calibration line. */
static double perf_thread_packets(const struct perf_calib *c, const struct htp_thread_perf *th,
                                  const struct htp_perf_names *names, perf_scope_fn scope, void *scope_arg,
                                  uint64_t *uncal, uint64_t *hvx) {
    double insns = 0.0;
    for (int i = 0; i < HTP_PERF_HVX_CLASSES; i++) {
        insns += th->hvx[i];
    }
    *hvx = (uint64_t) insns;
    const double res_per_insn = insns > 0.0 ? perf_resource_packets(th) / insns : 0.0;
    double packets = 0.0;
    *uncal = 0;
    for (int k = 0; k < HTP_PERF_SCOPES; k++) {
        const uint32_t n = th->scope_n[k], id = th->scope_id[k];
        if (n == 0) {
            continue;
        }
        uint32_t p = 0, v = 0;
        const char *name = id < names->n ? names->name[id] : "other";
        const bool cal = c && id > 0 && id < names->n && perf_calib_find(c, name, &p, &v);
        const double trips = th->scope_trips[k];
        double k_packets;
        if (cal && trips > 0) { /* the loop as compiled, the rest at the resource bound */
            const double in_loop = trips * v;
            k_packets = trips * p + (n > in_loop ? (n - in_loop) * res_per_insn : 0.0);
        } else if (cal) {
            k_packets = (double) n * p / v;
        } else {
            k_packets = n * res_per_insn;
        }
        packets += k_packets;
        *uncal += cal ? 0 : n;
        if (scope) {
            scope(scope_arg, name, n, th->scope_trips[k], k_packets, cal);
        }
    }
    return packets;
}

void perf_model_op(const struct perf_target *t, const struct perf_calib *c, const struct htp_thread_perf *th,
                   uint32_t n_threads, const struct htp_perf_names *names, bool fenced, perf_scope_fn scope,
                   void *scope_arg, struct perf_op_time *out) {
    *out = (struct perf_op_time){0};
    const double cycles_per_us = t->clock_mhz;
    double slowest = 0.0, sum = 0.0, slowest_res = 0.0;
    uint32_t busy = 0, hmx_ops_clear_store = 0;
    for (uint32_t i = 0; i < n_threads; i++) {
        uint64_t uncal, hvx;
        const double packets = perf_thread_packets(c, &th[i], names, scope, scope_arg, &uncal, &hvx);
        const double cycles = packets * t->cycles_per_packet + (double) th[i].dma_desc * t->dma_desc_cycles;
        busy += cycles > 0.0;
        sum += cycles;
        if (cycles > slowest) {
            slowest = cycles;
            slowest_res = (double) uncal * (hvx ? packets / (double) hvx : 0.0);
        }
        out->packets += (uint64_t) packets;
        out->hvx += hvx;
        out->uncalibrated += uncal;
        out->dma_bytes += th[i].dma_to_vtcm + th[i].dma_to_ddr;
        out->hmx_tiles += th[i].hmx[1];
        hmx_ops_clear_store += th[i].hmx[0] + th[i].hmx[2];
    }
    const double hvx_cycles = busy > t->n_hvx_contexts ? max2(slowest, sum / t->n_hvx_contexts) : slowest;
    out->hvx_us = hvx_cycles / cycles_per_us;
    out->dma_us = (double) out->dma_bytes / (t->ddr_gbytes_per_s * 1e3);
    out->hmx_us = t->hmx_fp16_macs_per_cycle > 0.0
                      ? ((double) out->hmx_tiles * PERF_HMX_TILE_MACS / t->hmx_fp16_macs_per_cycle +
                         hmx_ops_clear_store * PERF_HMX_ACC_CYCLES) /
                            cycles_per_us
                      : 0.0;
    out->fixed_us = t->op_us + (fenced ? 2.0 * t->fence_us : 0.0);
    const double work = max2(out->hvx_us, max2(out->dma_us, out->hmx_us));
    out->us = work + out->fixed_us;
    if (work < out->fixed_us) {
        out->bound = PERF_BOUND_FIXED;
    } else if (work == out->dma_us) {
        out->bound = PERF_BOUND_DMA;
    } else if (work == out->hmx_us) {
        out->bound = PERF_BOUND_HMX;
    } else {
        out->bound = slowest_res * 2.0 > slowest ? PERF_BOUND_RESOURCES : PERF_BOUND_PACKETS;
    }
}

double perf_model_cpu_op(const struct perf_target *t, uint64_t bytes) {
    return (double) bytes / (t->cpu_gbytes_per_s * 1e3);
}

uint64_t perf_cpu_op_bytes(const struct vnpu_tensor *node) {
    const bool scatter = node->op == VNPU_OP_SET_ROWS && node->src[0];
    uint64_t bytes = scatter ? (uint64_t) vnpu_nrows(node->src[0]) * node->nb[1] : vnpu_nbytes(node);
    for (int s = 0; s < VNPU_MAX_SRC; s++) {
        const struct vnpu_tensor *src = node->src[s];
        if (src && !(scatter && s == 2)) {
            const bool table = node->op == VNPU_OP_GET_ROWS && s == 0 && node->src[1];
            bytes += table ? (uint64_t) vnpu_nelements(node->src[1]) * src->nb[1] : vnpu_nbytes(src);
        }
    }
    return bytes;
}

bool perf_node_is_output(const struct vnpu_tensor *node) {
    return node && node->op == VNPU_OP_MUL_MAT && strncmp(node->name, "result_output", 13) == 0;
}

void perf_cpu_op_name(const struct vnpu_tensor *node, char *name, size_t size) {
    snprintf(name, size, "CPU %s%s", vnpu_op_desc(node), perf_node_is_output(node) ? " output" : "");
}
