#include "backend.h"

#include "log.h"

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

void vnpu_device_forget_host(struct vnpu_device *dev, const void *base, size_t size) {
    if (dev->iface->forget_host) {
        dev->iface->forget_host(dev, base, size);
    }
}

void vnpu_device_free(struct vnpu_device *dev) {
    if (dev) {
        dev->iface->free(dev);
    }
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

static struct {
    vnpu_sched_observer fn; /* NULL: a free slot */
    void *arg;
} sched_observers[VNPU_SCHED_MAX_OBSERVERS];

bool vnpu_sched_observer_add(vnpu_sched_observer fn, void *arg) {
    for (int i = 0; i < VNPU_SCHED_MAX_OBSERVERS; i++) {
        if (!sched_observers[i].fn) {
            sched_observers[i].fn = fn;
            sched_observers[i].arg = arg;
            return true;
        }
    }
    vnpu_log_error("scheduler: %d observers already (VNPU_SCHED_MAX_OBSERVERS)", VNPU_SCHED_MAX_OBSERVERS);
    return false;
}

void vnpu_sched_observer_remove(vnpu_sched_observer fn, void *arg) {
    for (int i = 0; i < VNPU_SCHED_MAX_OBSERVERS; i++) {
        if (sched_observers[i].fn == fn && sched_observers[i].arg == arg) {
            sched_observers[i].fn = NULL;
            return;
        }
    }
}

/* Hand nodes [start, end) to device dev of devs[0..n_devs); dev < 0 means nothing to run yet. */
static enum vnpu_status sched_run(struct vnpu_device **devs, int n_devs, int dev, struct vnpu_graph *g, int start,
                                  int end) {
    if (dev < 0) {
        return VNPU_STATUS_OK;
    }
    const enum vnpu_status st = devs[dev]->iface->graph_compute(devs[dev], g->nodes + start, end - start);
    for (int i = 0; i < VNPU_SCHED_MAX_OBSERVERS && st == VNPU_STATUS_OK; i++) {
        if (sched_observers[i].fn) {
            sched_observers[i].fn(sched_observers[i].arg, devs, n_devs, devs[dev], g->nodes + start, end - start);
        }
    }
    return st;
}

/* The index of node's preferred device in devs, or -1 (none, or not in the list). */
static int sched_preferred(struct vnpu_device **devs, int n_devs, const struct vnpu_tensor *node) {
    for (int d = 0; d < n_devs && node->device; d++) {
        if (devs[d] == node->device) {
            return d;
        }
    }
    return -1;
}

enum vnpu_status vnpu_sched_graph_compute(struct vnpu_device **devs, int n_devs, struct vnpu_graph *g) {
    int run_start = 0;
    int run_dev = -1;
    for (int i = 0; i < g->n_nodes; i++) {
        const struct vnpu_tensor *node = g->nodes[i];
        if (vnpu_op_is_empty(node->op)) {
            continue;
        }
        const int dev = sched_pick_device(devs, n_devs, sched_preferred(devs, n_devs, node), node);
        if (dev < 0) {
            vnpu_log_error("no device computes node %d '%s': %s of %s%s%s", i, node->name, vnpu_op_desc(node),
                           vnpu_type_name(node->src[0] ? node->src[0]->type : node->type), node->src[1] ? " x " : "",
                           node->src[1] ? vnpu_type_name(node->src[1]->type) : "");
            return VNPU_STATUS_UNSUPPORTED;
        }
        if (dev != run_dev) {
            const enum vnpu_status st = sched_run(devs, n_devs, run_dev, g, run_start, i);
            if (st != VNPU_STATUS_OK) {
                return st;
            }
            run_start = i;
            run_dev = dev;
        }
    }
    return sched_run(devs, n_devs, run_dev, g, run_start, g->n_nodes);
}
