#include "backend.h"

#include "log.h"

#include <string.h>

const char *vnpu_device_name(struct vnpu_device *dev) {
    return dev->iface->get_name(dev);
}

bool vnpu_device_supports_op(struct vnpu_device *dev, const struct vnpu_tensor *op) {
    return dev->iface->supports_op(dev, op);
}

struct vnpu_buffer_type *vnpu_device_buffer_type(struct vnpu_device *dev) {
    return dev->iface->get_buffer_type(dev);
}

struct vnpu_buffer_type *vnpu_device_weight_buffer_type(struct vnpu_device *dev, const struct vnpu_tensor *weight) {
    if (dev->iface->get_weight_buffer_type) {
        return dev->iface->get_weight_buffer_type(dev, weight);
    }
    return dev->iface->get_buffer_type(dev);
}

void vnpu_device_free(struct vnpu_device *dev) {
    if (dev) {
        dev->iface->free(dev);
    }
}

/* The layer of a node named "<what>-<il>" (llama.cpp's graph names: "attn_norm-0", "ffn_out-11"), or -1. */
static int sched_name_layer(const char *name) {
    const char *dash = strrchr(name, '-');
    if (!dash || !dash[1]) {
        return -1;
    }
    int il = 0;
    for (const char *p = dash + 1; *p; p++) {
        if (*p < '0' || *p > '9' || il > 100000) {
            return -1;
        }
        il = il * 10 + (*p - '0');
    }
    return il;
}

/* The device of layer il of n_layer split over devices 0..n_split-1 in equal shares, as llama.cpp's layer split
 * with equal tensor_split fractions: the first d whose cumulative share (d + 1) / n_split exceeds il / n_layer. */
static int sched_layer_device(int il, int n_layer, int n_split) {
    int d = 0;
    while (d < n_split - 1 && (int64_t) (d + 1) * n_layer <= (int64_t) il * n_split) {
        d++;
    }
    return d;
}

/* preferred if it accepts node (preferred >= 0), else the first device that does, or -1. */
static int sched_pick_device(struct vnpu_device **devs, int n_devs, int preferred, const struct vnpu_tensor *node) {
    if (preferred >= 0 && vnpu_device_supports_op(devs[preferred], node)) {
        return preferred;
    }
    for (int d = 0; d < n_devs; d++) {
        if (d != preferred && vnpu_device_supports_op(devs[d], node)) {
            return d;
        }
    }
    return -1;
}

/* Hand nodes [start, end) to device dev; dev < 0 means nothing to run yet. */
static enum vnpu_status sched_run(struct vnpu_device **devs, int dev, struct vnpu_graph *g, int start, int end) {
    if (dev < 0) {
        return VNPU_STATUS_OK;
    }
    return devs[dev]->iface->graph_compute(devs[dev], g->nodes + start, end - start);
}

enum vnpu_status vnpu_sched_graph_compute(struct vnpu_device **devs, int n_devs, struct vnpu_graph *g) {
    const int n_split = n_devs - 1; /* the layer split's devices: all but the fallback */
    int n_layer = 0;
    for (int i = 0; i < g->n_nodes && n_split > 1; i++) {
        const int il = sched_name_layer(g->nodes[i]->name);
        n_layer = il >= n_layer ? il + 1 : n_layer;
    }
    int run_start = 0;
    int run_dev = -1;
    int layer = -1; /* of the last node that named one */
    for (int i = 0; i < g->n_nodes; i++) {
        const struct vnpu_tensor *node = g->nodes[i];
        if (vnpu_op_is_empty(node->op)) {
            continue;
        }
        const int il = sched_name_layer(node->name);
        layer = il >= 0 ? il : layer;
        const int preferred = n_layer > 0 && layer >= 0 ? sched_layer_device(layer, n_layer, n_split) : -1;
        const int dev = sched_pick_device(devs, n_devs, preferred, node);
        if (dev < 0) {
            vnpu_log_error("no device computes node %d '%s': %s of %s%s%s", i, node->name, vnpu_op_desc(node),
                           vnpu_type_name(node->src[0] ? node->src[0]->type : node->type), node->src[1] ? " x " : "",
                           node->src[1] ? vnpu_type_name(node->src[1]->type) : "");
            return VNPU_STATUS_UNSUPPORTED;
        }
        if (dev != run_dev) {
            const enum vnpu_status st = sched_run(devs, run_dev, g, run_start, i);
            if (st != VNPU_STATUS_OK) {
                return st;
            }
            run_start = i;
            run_dev = dev;
        }
    }
    return sched_run(devs, run_dev, g, run_start, g->n_nodes);
}
