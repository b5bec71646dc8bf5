/*
 * The CPU device: the op table, scratch memory, and graph compute on the thread pool.
 *
 * graph_compute hands the whole run of nodes to the pool as one job; every thread walks the nodes,
 * computes its rows of each and meets the others at one barrier per node, so a node starts only when
 * its sources are complete. Empty ops (views, reshapes) are skipped without a barrier.
 */
#include "cpu-backend.h"

#include "cpu-ops.h"
#include "cpu-threads.h"
#include "log.h"

#include <stdlib.h>
#include <string.h>

/* How the CPU computes one op; empty ops have no compute, ops without scratch no wsize. */
struct cpu_op_entry {
    void (*compute)(const struct cpu_params *p, struct vnpu_tensor *dst);
    bool (*supported)(const struct vnpu_tensor *dst);
    size_t (*wsize)(const struct vnpu_tensor *dst);
};

static const struct cpu_op_entry cpu_ops[VNPU_OP_COUNT] = {
    [VNPU_OP_NONE] = {0},
    [VNPU_OP_ADD] = {cpu_op_binary, cpu_op_binary_supported, NULL},
    [VNPU_OP_SUB] = {cpu_op_binary, cpu_op_binary_supported, NULL},
    [VNPU_OP_MUL] = {cpu_op_binary, cpu_op_binary_supported, NULL},
    [VNPU_OP_DIV] = {cpu_op_binary, cpu_op_binary_supported, NULL},
    [VNPU_OP_SCALE] = {cpu_op_scale, cpu_op_scale_supported, NULL},
    [VNPU_OP_RMS_NORM] = {cpu_op_rms_norm, cpu_op_rms_norm_supported, NULL},
    [VNPU_OP_MUL_MAT] = {cpu_op_mul_mat, cpu_op_mul_mat_supported, cpu_op_mul_mat_wsize},
    [VNPU_OP_MUL_MAT_ID] = {cpu_op_mul_mat_id, cpu_op_mul_mat_id_supported, cpu_op_mul_mat_id_wsize},
    [VNPU_OP_GET_ROWS] = {cpu_op_get_rows, cpu_op_get_rows_supported, NULL},
    [VNPU_OP_SET_ROWS] = {cpu_op_set_rows, cpu_op_set_rows_supported, NULL},
    [VNPU_OP_CPY] = {cpu_op_cpy, cpu_op_cpy_supported, NULL},
    [VNPU_OP_CONT] = {cpu_op_cpy, cpu_op_cpy_supported, NULL},
    [VNPU_OP_RESHAPE] = {0},
    [VNPU_OP_VIEW] = {0},
    [VNPU_OP_PERMUTE] = {0},
    [VNPU_OP_TRANSPOSE] = {0},
    [VNPU_OP_SOFT_MAX] = {cpu_op_soft_max, cpu_op_soft_max_supported, cpu_op_soft_max_wsize},
    [VNPU_OP_ROPE] = {cpu_op_rope, cpu_op_rope_supported, NULL},
    [VNPU_OP_FLASH_ATTN_EXT] = {cpu_op_flash_attn_ext, cpu_op_flash_attn_ext_supported, cpu_op_flash_attn_ext_wsize},
    [VNPU_OP_UNARY] = {cpu_op_unary, cpu_op_unary_supported, NULL},
    [VNPU_OP_GLU] = {cpu_op_glu, cpu_op_glu_supported, NULL},
};
_Static_assert(VNPU_OP_COUNT == 22, "new op: add its row here (and its family file)");

#define CPU_SCRATCH_ALIGN 64

struct cpu_device {
    struct vnpu_device dev; /* dev.ctx points back here */
    struct cpu_pool *pool;
    void **wdata; /* per thread scratch, wsize bytes each */
    size_t wsize;
};

/* The job of one graph_compute call. */
struct cpu_graph_job {
    struct cpu_device *cd;
    struct vnpu_tensor **nodes;
    int n_nodes;
};

static const char *cpu_get_name(struct vnpu_device *dev) {
    VNPU_UNUSED(dev);
    return "CPU";
}

static bool cpu_supports_op(struct vnpu_device *dev, const struct vnpu_tensor *op) {
    VNPU_UNUSED(dev);
    if ((unsigned) op->op >= VNPU_OP_COUNT) {
        return false;
    }
    for (int i = 0; i < VNPU_MAX_SRC; i++) {
        if (op->src[i] && !vnpu_tensor_host_layout(op->src[i])) {
            return false; /* e.g. a tiled weight: its bytes are not GGML's blocks */
        }
    }
    const struct cpu_op_entry *e = &cpu_ops[op->op];
    return vnpu_op_is_empty(op->op) || (e->supported && e->supported(op));
}

static void cpu_graph_worker(void *arg, int ith, int nth) {
    const struct cpu_graph_job *job = arg;
    const struct cpu_params p = {.ith = ith, .nth = nth, .wdata = job->cd->wdata[ith], .wsize = job->cd->wsize};
    for (int i = 0; i < job->n_nodes; i++) {
        struct vnpu_tensor *node = job->nodes[i];
        if (vnpu_op_is_empty(node->op)) {
            continue;
        }
        cpu_ops[node->op].compute(&p, node);
        cpu_pool_barrier(job->cd->pool);
    }
}

/* Give every thread at least wsize bytes of scratch. */
static enum vnpu_status cpu_scratch_reserve(struct cpu_device *cd, size_t wsize) {
    if (wsize <= cd->wsize) {
        return VNPU_STATUS_OK;
    }
    const size_t size = (wsize + CPU_SCRATCH_ALIGN - 1) / CPU_SCRATCH_ALIGN * CPU_SCRATCH_ALIGN;
    const int n = cpu_pool_n_threads(cd->pool);
    for (int i = 0; i < n; i++) {
        free(cd->wdata[i]);
        cd->wdata[i] = aligned_alloc(CPU_SCRATCH_ALIGN, size);
        if (!cd->wdata[i]) {
            vnpu_log_error("cpu: cannot allocate %zu bytes of scratch for thread %d", size, i);
            for (int j = 0; j < n; j++) { /* keep the invariant: wsize bytes in every slot, here 0 */
                free(cd->wdata[j]);
                cd->wdata[j] = NULL;
            }
            cd->wsize = 0;
            return VNPU_STATUS_NO_MEMORY;
        }
    }
    cd->wsize = size;
    return VNPU_STATUS_OK;
}

static enum vnpu_status cpu_graph_compute(struct vnpu_device *dev, struct vnpu_tensor **nodes, int n_nodes) {
    struct cpu_device *cd = dev->ctx;
    size_t wsize = 0;
    for (int i = 0; i < n_nodes; i++) {
        const struct cpu_op_entry *e = &cpu_ops[nodes[i]->op];
        const size_t w = e->wsize ? e->wsize(nodes[i]) : 0;
        wsize = w > wsize ? w : wsize;
    }
    const enum vnpu_status st = cpu_scratch_reserve(cd, wsize);
    if (st != VNPU_STATUS_OK) {
        return st;
    }
    struct cpu_graph_job job = {.cd = cd, .nodes = nodes, .n_nodes = n_nodes};
    cpu_pool_run(cd->pool, cpu_graph_worker, &job);
    return VNPU_STATUS_OK;
}

static struct vnpu_buffer_type *cpu_get_buffer_type(struct vnpu_device *dev) {
    VNPU_UNUSED(dev);
    return vnpu_host_buffer_type();
}

static void cpu_free(struct vnpu_device *dev) {
    struct cpu_device *cd = dev->ctx;
    if (cd->wdata) {
        for (int i = 0; i < cpu_pool_n_threads(cd->pool); i++) {
            free(cd->wdata[i]);
        }
    }
    free(cd->wdata);
    cpu_pool_free(cd->pool);
    free(cd);
}

static const struct vnpu_device_iface cpu_device_iface = {
    .get_name = cpu_get_name,
    .supports_op = cpu_supports_op,
    .graph_compute = cpu_graph_compute,
    .get_buffer_type = cpu_get_buffer_type,
    .get_weight_buffer_type = NULL,
    .free = cpu_free,
};

enum vnpu_status vnpu_cpu_device_new(int n_threads, struct vnpu_device **out) {
    *out = NULL;
    if (n_threads < 1 || n_threads > VNPU_CPU_MAX_THREADS) {
        vnpu_log_error("cpu device: %d threads, expected 1..%d", n_threads, VNPU_CPU_MAX_THREADS);
        return VNPU_STATUS_BAD_ARG;
    }
    struct cpu_device *cd = calloc(1, sizeof(*cd));
    if (!cd || !(cd->wdata = calloc((size_t) n_threads, sizeof(*cd->wdata)))) {
        vnpu_log_error("cpu device: cannot allocate its state");
        free(cd);
        return VNPU_STATUS_NO_MEMORY;
    }
    const enum vnpu_status st = cpu_pool_new(n_threads, &cd->pool);
    if (st != VNPU_STATUS_OK) {
        free(cd->wdata);
        free(cd);
        return st;
    }
    cd->dev.iface = &cpu_device_iface;
    cd->dev.ctx = cd;
    *out = &cd->dev;
    return VNPU_STATUS_OK;
}
