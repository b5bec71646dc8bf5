/*
 * Devices and the graph scheduler.
 *
 * A device computes graph nodes: CPU (the reference backend, src/cpu) and the NPU devices HTP0..N
 * (src/host). The scheduler walks a graph once per compute: each node goes to its preferred device (the
 * graph builder's choice: its layer's device under the layer split) when that device's supports_op accepts
 * it, else to the first device in the list that accepts it, and
 * runs of consecutive nodes on one device are handed over as one call, which an NPU device turns into one
 * request. Memory is unified, so a tensor computed on one device is read in place by the next (an NPU maps
 * the shared buffer, or stages host memory through one); the scheduler makes no copies.
 */
#ifndef VNPU_BACKEND_H
#define VNPU_BACKEND_H

#include "buffer.h"
#include "tensor.h"
#include "vnpu.h"

struct vnpu_device;

struct vnpu_device_iface {
    const char *(*get_name)(struct vnpu_device *dev);
    /* Whether the device computes op. Decided from static properties only (types, shapes, strides, op
     * params), never from buffers or data: it runs before memory is allocated. */
    bool (*supports_op)(struct vnpu_device *dev, const struct vnpu_tensor *op);
    /* Compute nodes[0..n_nodes) in order; every node passed supports_op and has its data allocated. */
    enum vnpu_status (*graph_compute)(struct vnpu_device *dev, struct vnpu_tensor **nodes, int n_nodes);
    /* Buffer type for the tensors the device computes (activations, KV cache). */
    struct vnpu_buffer_type *(*get_buffer_type)(struct vnpu_device *dev);
    /* Optional: buffer type for weights (e.g. a REPACK layout). NULL = get_buffer_type. */
    struct vnpu_buffer_type *(*get_weight_buffer_type)(struct vnpu_device *dev, const struct vnpu_tensor *weight);
    /* Optional: host memory [base, base + size) is going away (a model's file mapping, at the model's free, while
     * the device may live on for its other holders): drop whatever the device keeps of it (an NPU device's copies
     * of weights, found again by address, which a later mapping at the same address would otherwise hit). */
    void (*forget_host)(struct vnpu_device *dev, const void *base, size_t size);
    void (*free)(struct vnpu_device *dev);
};

struct vnpu_device {
    const struct vnpu_device_iface *iface;
    void *ctx;
};

const char *vnpu_device_name(struct vnpu_device *dev);
bool vnpu_device_supports_op(struct vnpu_device *dev, const struct vnpu_tensor *op);
struct vnpu_buffer_type *vnpu_device_buffer_type(struct vnpu_device *dev);
struct vnpu_buffer_type *vnpu_device_weight_buffer_type(struct vnpu_device *dev, const struct vnpu_tensor *weight);
/* The device's forget_host, when it has one (a no-op otherwise). */
void vnpu_device_forget_host(struct vnpu_device *dev, const void *base, size_t size);
/* Release the caller's hold on dev: a CPU device is freed; an HTP device, shared by its holders, closes with the
 * last (src/host/htp-host.h). NULL is a no-op. */
void vnpu_device_free(struct vnpu_device *dev);

/* Compute graph g on devs[0..n_devs), the last one the fallback (the CPU). A node goes to its preferred
 * device (node->device, set by the graph builder: the layer split of src/model, as llama.cpp's
 * --split-mode layer) when that device is in devs and its supports_op accepts it, else to the first device
 * that accepts it. Consecutive nodes bound to the same device are passed in one graph_compute call. Nodes
 * with an empty op (vnpu_op_is_empty) start no run; inside a run they are passed along and devices skip
 * them. A node no device accepts is an error (VNPU_STATUS_UNSUPPORTED, naming the op and its types); list
 * the CPU device last as the fallback. Every tensor of g must be allocated. */
enum vnpu_status vnpu_sched_graph_compute(struct vnpu_device **devs, int n_devs, struct vnpu_graph *g);

/* What the scheduler handed out, for an observer that prices it (the cost models, src/host/htp-perf.c and
 * src/host/xdna-device.c): called after each run of nodes[0..n_nodes) that device dev, one of the graph's devices
 * devs[0..n_devs), computed without error, in graph order. Up to VNPU_SCHED_MAX_OBSERVERS per process, called in the
 * order they were added; add and remove them while no graph computes. add: false (nothing added, logged) when all are
 * taken; remove: the pair (fn, arg) added, a no-op for a pair not added. */
#define VNPU_SCHED_MAX_OBSERVERS 8
typedef void (*vnpu_sched_observer)(void *arg, struct vnpu_device *const *devs, int n_devs, struct vnpu_device *dev,
                                    struct vnpu_tensor *const *nodes, int n_nodes);
bool vnpu_sched_observer_add(vnpu_sched_observer fn, void *arg);
void vnpu_sched_observer_remove(vnpu_sched_observer fn, void *arg);

#endif /* VNPU_BACKEND_H */
