/*
 * libggml-vnpu.so: vnpu's virtual HTP as a GGML backend that an unmodified llama.cpp loads
 * (GGML_BACKEND_PATH=.../libggml-vnpu.so), through ggml's C backend interface (ggml/src/ggml-backend-impl.h of the
 * release given by VNPU_GGML_SRC). ggml's own functions are left undefined here: the host program's libggml-base
 * provides them when it loads the plugin.
 *
 * The registry "HTP" has the devices HTP0..HTP<VNPU_NDEV - 1> (the environment of vnpu-cli, src/host/htp-host.h),
 * or those VNPU_DEVICES lists in vnpu-cli's --device grammar ("HTP0[0-1]": a row-split group is one device), each
 * opened once, when the plugin's ggml_backend_init runs, and held until the plugin is unloaded (then
 * VNPU_PROFILE prints its summary and VNPU_TRACE's file is complete). A device is a GPU for ggml: llama.cpp offloads
 * layers to it (-ngl), and reports its address window as its memory. Its buffer type, "HTP<n>", is vnpu's device
 * buffer: shared DDR that a session maps, host-readable, so ggml reads and writes tensors in place. Its extra buffer
 * type (ggml_backend_dev_get_extra_bufts, which llama.cpp tries after the device's own for each weight) is vnpu's
 * "HTP<n>-REPACK": shared DDR too, but not host-readable for ggml, since it tiles the weights vnpu's matmul kernels
 * read tiled (set_tensor tiles, get_tensor reads back flat). supports_op refuses a MUL_MAT or MUL_MAT_ID whose
 * weight llama.cpp is placing in HTP<n> when REPACK would tile it, so llama.cpp puts those weights in REPACK. Under
 * VNPU_HOSTBUF=1 there is no extra buffer type and weights stay flat in HTP<n>, as under vnpu-cli.
 *
 * supports_op and graph_compute translate GGML tensors into vnpu's (ggml-ops.h: the same data pointers, no
 * copies) and ask vnpu's device: its supports_op, and vnpu_sched_graph_compute with the device alone, the request
 * path of vnpu-cli (batching, kernel_params, fusion, tracing, profiling and every VNPU_* variable).
 */
#include "ggml-backend-impl.h"
#include "ggml-ops.h"

#include "backend.h"
#include "buffer.h"
#include "htp-host.h"
#include "log.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One GGML device: HTP<index> and its buffer types (each one's context is the vnpu buffer type behind it). */
struct vnpu_ggml_device {
    uint32_t index;   /* the n of HTP<n>, a group's first member */
    const char *name; /* vnpu's, "HTP<n>" or a group's "HTP<a>[<members>]" */
    char description[96];
    struct vnpu_device *dev; /* vnpu's device, held while the plugin is loaded */
    struct ggml_backend_device gdev;
    struct ggml_backend_buffer_type buft;        /* HTP<n> */
    struct ggml_backend_buffer_type repack_buft; /* HTP<n>-REPACK, when extra_bufts[0] is it */
    ggml_backend_buffer_type_t extra_bufts[2];   /* NULL-terminated: REPACK, or nothing under VNPU_HOSTBUF=1 */
};

static struct vnpu_ggml_device devices[VNPU_HTP_MAX_DEVICES];
static uint32_t n_devices;
static struct ggml_backend_reg reg;

static struct vnpu_ggml_device *device_of(ggml_backend_dev_t gdev) {
    return gdev->context;
}

/* ---- the buffer types: vnpu's device buffer, and REPACK ---- */

static struct vnpu_buffer *buffer_ctx(ggml_backend_buffer_t buffer) {
    return buffer->context;
}

static void buffer_free(ggml_backend_buffer_t buffer) {
    vnpu_buffer_free(buffer_ctx(buffer));
}

static void *buffer_get_base(ggml_backend_buffer_t buffer) {
    return buffer_ctx(buffer)->base;
}

static void buffer_memset_tensor(ggml_backend_buffer_t buffer, struct ggml_tensor *tensor, uint8_t value, size_t offset,
                                 size_t size) {
    (void) buffer;
    memset((uint8_t *) tensor->data + offset, value, size);
}

/* The device buffer keeps GGML's layout in host memory: reads and writes are copies in place. */
static void buffer_set_tensor(ggml_backend_buffer_t buffer, struct ggml_tensor *tensor, const void *data, size_t offset,
                              size_t size) {
    (void) buffer;
    memcpy((uint8_t *) tensor->data + offset, data, size);
}

static void buffer_get_tensor(ggml_backend_buffer_t buffer, const struct ggml_tensor *tensor, void *data, size_t offset,
                              size_t size) {
    (void) buffer;
    memcpy(data, (const uint8_t *) tensor->data + offset, size);
}

/* From any host buffer (its bytes are GGML's layout in host memory); others go through ggml's generic copy. */
static bool buffer_cpy_tensor(ggml_backend_buffer_t buffer, const struct ggml_tensor *src, struct ggml_tensor *dst) {
    (void) buffer;
    if (src->buffer && ggml_backend_buffer_is_host(src->buffer)) {
        memcpy(dst->data, src->data, ggml_nbytes(src));
        return true;
    }
    return false;
}

static void buffer_clear(ggml_backend_buffer_t buffer, uint8_t value) {
    memset(buffer_ctx(buffer)->base, value, buffer_ctx(buffer)->size);
}

static const struct ggml_backend_buffer_i buffer_iface = {
    .free_buffer = buffer_free,
    .get_base = buffer_get_base,
    .memset_tensor = buffer_memset_tensor,
    .set_tensor = buffer_set_tensor,
    .get_tensor = buffer_get_tensor,
    .cpy_tensor = buffer_cpy_tensor,
    .clear = buffer_clear,
};

/* ggml-ops.h's buffer_of: the vnpu buffer of a GGML buffer the plugin allocated, else NULL (another backend's, or
 * the empty placeholder ggml makes for a buffer of 0 bytes, which llama.cpp hangs on weights to ask supports_op).
 * When ggml marks the buffer as weights, vnpu's is marked so (an NPU maps weights while a request uses them). */
static struct vnpu_buffer *vnpu_buffer_of(const struct ggml_backend_buffer *buffer) {
    if (buffer->iface.free_buffer != buffer_free) {
        return NULL;
    }
    struct vnpu_buffer *vb = buffer->context;
    vb->usage = buffer->usage == GGML_BACKEND_BUFFER_USAGE_WEIGHTS ? VNPU_BUFFER_USAGE_WEIGHTS : VNPU_BUFFER_USAGE_ANY;
    return vb;
}

/* A REPACK buffer's tensors cross into vnpu's buffer interface translated (ggml-ops.h: the same data pointer, layout
 * and view source), which tiles, untiles or copies flat. A translation holds the tensor and its view source. */
#define TENSORS_PER_ACCESS 2

/* set_tensor and get_tensor have no error return: what vnpu refuses (it logged why) ends the program, as ggml's own
 * buffers do on a failed access. */
static void repack_access(const struct ggml_tensor *tensor, const char *what, void *data, size_t offset, size_t size,
                          bool write) {
    struct ggml_vnpu_translation tr;
    if (ggml_vnpu_translation_init(&tr, TENSORS_PER_ACCESS, vnpu_buffer_of) != VNPU_STATUS_OK) {
        GGML_ABORT("ggml-vnpu: %s of '%s': out of memory for its translation", what, tensor->name);
    }
    struct vnpu_tensor *v = ggml_vnpu_translate_tensor(&tr, tensor);
    if (!v) {
        GGML_ABORT("ggml-vnpu: %s of '%s': %s", what, tensor->name, tr.why);
    }
    const enum vnpu_status st = write ? vnpu_tensor_set(v, data, offset, size) : vnpu_tensor_get(v, data, offset, size);
    if (st != VNPU_STATUS_OK) {
        GGML_ABORT("ggml-vnpu: %s of '%s' (%zu bytes at %zu) failed with vnpu status %d (logged why)", what,
                   tensor->name, size, offset, (int) st);
    }
    ggml_vnpu_translation_free(&tr);
}

/* GGML's flat bytes in: a weight REPACK tiles is tiled (the whole weight at once; a part of it is written into its
 * unpacked bytes, which are tiled again), any other tensor copied as it is. */
static void repack_set_tensor(ggml_backend_buffer_t buffer, struct ggml_tensor *tensor, const void *data, size_t offset,
                              size_t size) {
    (void) buffer;
    repack_access(tensor, "set_tensor", (void *) data, offset, size, true);
}

/* GGML's flat bytes out: a tiled weight untiled (byte for byte what set_tensor got for the lossless types; the
 * K-quants as src/repack/repack.h says). */
static void repack_get_tensor(ggml_backend_buffer_t buffer, const struct ggml_tensor *tensor, void *data, size_t offset,
                              size_t size) {
    (void) buffer;
    repack_access(tensor, "get_tensor", data, offset, size, false);
}

/* The flat bytes [offset, offset + size) of tensor set to value, through set_tensor. Errors: as set_tensor's. */
static void repack_memset_tensor(ggml_backend_buffer_t buffer, struct ggml_tensor *tensor, uint8_t value, size_t offset,
                                 size_t size) {
    uint8_t *bytes = malloc(size);
    if (!bytes) {
        GGML_ABORT("ggml-vnpu: memset_tensor of '%s': cannot allocate %zu bytes", tensor->name, size);
    }
    memset(bytes, value, size);
    repack_set_tensor(buffer, tensor, bytes, offset, size);
    free(bytes);
}

/* Not host-readable: no cpy_tensor, since ggml's tensor copy reads a host source into set_tensor and writes a host
 * destination from get_tensor itself. clear sets the buffer's bytes, tiled or not: a tiled weight of zero bytes is
 * zeros flat too (its codes and scales are moved, not computed), which is the clear llama.cpp does. */
static const struct ggml_backend_buffer_i repack_buffer_iface = {
    .free_buffer = buffer_free,
    .get_base = buffer_get_base,
    .memset_tensor = repack_memset_tensor,
    .set_tensor = repack_set_tensor,
    .get_tensor = repack_get_tensor,
    .clear = buffer_clear,
};

static struct vnpu_buffer_type *buft_vnpu(ggml_backend_buffer_type_t buft) {
    return buft->context;
}

static bool buft_is_repack(ggml_backend_buffer_type_t buft) {
    return buft == &device_of(buft->device)->repack_buft;
}

static const char *buft_get_name(ggml_backend_buffer_type_t buft) {
    return vnpu_buffer_type_name(buft_vnpu(buft));
}

/* NULL (vnpu logged why: the type's maximum, shared DDR exhausted) when the buffer cannot be had. */
static ggml_backend_buffer_t buft_alloc_buffer(ggml_backend_buffer_type_t buft, size_t size) {
    struct vnpu_buffer *vb;
    if (vnpu_buffer_type_alloc(buft_vnpu(buft), size, &vb) != VNPU_STATUS_OK) {
        return NULL;
    }
    return ggml_backend_buffer_init(buft, buft_is_repack(buft) ? repack_buffer_iface : buffer_iface, vb, size);
}

static size_t buft_get_alignment(ggml_backend_buffer_type_t buft) {
    return buft_vnpu(buft)->alignment;
}

static size_t buft_get_max_size(ggml_backend_buffer_type_t buft) {
    return vnpu_buffer_type_max_size(buft_vnpu(buft));
}

/* HTP<n> is GGML's layout in host memory; REPACK is not (tiled weights). */
static bool buft_is_host(ggml_backend_buffer_type_t buft) {
    return !buft_is_repack(buft);
}

/* REPACK's: the tiled size of a weight it tiles (repack_nbytes), else GGML's. */
static size_t buft_get_alloc_size(ggml_backend_buffer_type_t buft, const struct ggml_tensor *tensor) {
    struct ggml_vnpu_translation tr;
    if (ggml_vnpu_translation_init(&tr, TENSORS_PER_ACCESS, vnpu_buffer_of) != VNPU_STATUS_OK) {
        GGML_ABORT("ggml-vnpu: get_alloc_size of '%s': out of memory for its translation", tensor->name);
    }
    const struct vnpu_tensor *v = ggml_vnpu_translate_tensor(&tr, tensor);
    if (!v) {
        GGML_ABORT("ggml-vnpu: get_alloc_size of '%s': %s", tensor->name, tr.why);
    }
    const size_t size = vnpu_buffer_type_alloc_size(buft_vnpu(buft), v);
    ggml_vnpu_translation_free(&tr);
    return size;
}

static const struct ggml_backend_buffer_type_i buft_iface = {
    .get_name = buft_get_name,
    .alloc_buffer = buft_alloc_buffer,
    .get_alignment = buft_get_alignment,
    .get_max_size = buft_get_max_size,
    .is_host = buft_is_host,
};

static const struct ggml_backend_buffer_type_i repack_buft_iface = {
    .get_name = buft_get_name,
    .alloc_buffer = buft_alloc_buffer,
    .get_alignment = buft_get_alignment,
    .get_max_size = buft_get_max_size,
    .get_alloc_size = buft_get_alloc_size,
    .is_host = buft_is_host,
};

/* ---- the backend (stream) ---- */

static const char *backend_get_name(ggml_backend_t backend) {
    return device_of(backend->device)->name;
}

static void backend_free(ggml_backend_t backend) {
    free(backend);
}

/* Translations reach a node's operands and their view sources: at most this many GGML tensors per node. */
#define TENSORS_PER_NODE (1 + 2 * GGML_MAX_SRC)

/* Whether node only lays out its source (a view, reshape, permute or transpose): nothing to compute, and its operands
 * are translated where an op reads them (a view into part of a quantized block, a head of a Q8_0 K cache, is one no
 * op of this device reads: supports_op refused them). */
static bool node_is_layout(const struct ggml_tensor *node) {
    return node->op == GGML_OP_NONE || node->op == GGML_OP_VIEW || node->op == GGML_OP_RESHAPE ||
           node->op == GGML_OP_PERMUTE || node->op == GGML_OP_TRANSPOSE;
}

static enum ggml_status backend_graph_compute(ggml_backend_t backend, struct ggml_cgraph *cgraph) {
    struct vnpu_ggml_device *d = device_of(backend->device);
    const int n = ggml_graph_n_nodes(cgraph);
    struct ggml_vnpu_translation tr;
    struct vnpu_tensor **nodes = malloc(((size_t) n + 1) * sizeof(*nodes));
    if (!nodes ||
        ggml_vnpu_translation_init(&tr, (size_t) n * TENSORS_PER_NODE + 1, vnpu_buffer_of) != VNPU_STATUS_OK) {
        vnpu_log_error("%s: cannot allocate the translation of a graph of %d nodes", d->name, n);
        free(nodes);
        return GGML_STATUS_ALLOC_FAILED;
    }
    struct vnpu_graph g = {.size = n, .nodes = nodes};
    enum ggml_status st = GGML_STATUS_SUCCESS;
    for (int i = 0; i < n && st == GGML_STATUS_SUCCESS; i++) {
        const struct ggml_tensor *node = ggml_graph_node(cgraph, i);
        if (!(node->flags & GGML_TENSOR_FLAG_COMPUTE) || ggml_is_empty(node) || node_is_layout(node)) {
            continue; /* as ggml's CPU backend: not needed by the graph's outputs, no elements, nothing to compute */
        }
        if (!(nodes[g.n_nodes++] = ggml_vnpu_translate_node(&tr, node))) {
            vnpu_log_error("%s: graph node %d '%s': %s", d->name, i, node->name, tr.why);
            st = GGML_STATUS_FAILED;
        }
    }
    if (st == GGML_STATUS_SUCCESS && vnpu_sched_graph_compute(&d->dev, 1, &g) != VNPU_STATUS_OK) {
        st = GGML_STATUS_FAILED;
    }
    ggml_vnpu_translation_free(&tr);
    free(nodes);
    return st;
}

static const struct ggml_backend_i backend_iface = {
    .get_name = backend_get_name,
    .free = backend_free,
    .graph_compute = backend_graph_compute,
};

static ggml_guid backend_guid = {0x76, 0x6e, 0x70, 0x75, 0x2d, 0x48, 0x54, 0x50,
                                 0x2d, 0x67, 0x67, 0x6d, 0x6c, 0x2d, 0x76, 0x31}; /* "vnpu-HTP-ggml-v1" */

/* ---- the device ---- */

static const char *dev_get_name(ggml_backend_dev_t gdev) {
    return device_of(gdev)->name;
}

static const char *dev_get_description(ggml_backend_dev_t gdev) {
    return device_of(gdev)->description;
}

/* The address window: all the shared DDR a session maps at once. */
static void dev_get_memory(ggml_backend_dev_t gdev, size_t *free_bytes, size_t *total) {
    vnpu_htp_device_window(device_of(gdev)->index, total);
    *free_bytes = *total;
}

static enum ggml_backend_dev_type dev_get_type(ggml_backend_dev_t gdev) {
    (void) gdev;
    return GGML_BACKEND_DEVICE_TYPE_GPU; /* the kind llama.cpp offloads layers to, as the real Hexagon backend */
}

static void dev_get_props(ggml_backend_dev_t gdev, struct ggml_backend_dev_props *props) {
    memset(props, 0, sizeof(*props));
    props->name = dev_get_name(gdev);
    props->description = dev_get_description(gdev);
    props->type = dev_get_type(gdev);
    dev_get_memory(gdev, &props->memory_free, &props->memory_total);
    /* synchronous compute, no pinned host buffers, no buffers over host memory, no events */
}

static ggml_backend_t dev_init_backend(ggml_backend_dev_t gdev, const char *params) {
    (void) params;
    ggml_backend_t backend = calloc(1, sizeof(*backend));
    if (!backend) {
        vnpu_log_error("%s: out of memory for a backend", device_of(gdev)->name);
        return NULL;
    }
    *backend = (struct ggml_backend){.guid = &backend_guid, .iface = backend_iface, .device = gdev};
    return backend;
}

static ggml_backend_buffer_type_t dev_get_buffer_type(ggml_backend_dev_t gdev) {
    return &device_of(gdev)->buft;
}

/* Whether op is a MUL_MAT or MUL_MAT_ID whose weight (src0, translated as w) is being placed in d's HTP<n> while
 * REPACK would tile it: src0 in an HTP<n> buffer of usage WEIGHTS (a model's weights) or in the 0-byte buffer
 * llama.cpp hangs on a weight to ask whether that buffer type serves it (llama-model-loader.cpp,
 * weight_buft_supported). Said at VNPU_LOG=3. A weight in an HTP<n> buffer of usage ANY (test-backend-ops puts every
 * tensor in the device's buffer) is not being placed: vnpu reads it flat. */
static bool weight_belongs_in_repack(const struct vnpu_ggml_device *d, const struct ggml_tensor *op,
                                     const struct vnpu_tensor *w) {
    const struct ggml_backend_buffer *b = op->src[0] ? op->src[0]->buffer : NULL;
    if (!d->extra_bufts[0] || (op->op != GGML_OP_MUL_MAT && op->op != GGML_OP_MUL_MAT_ID) || !b ||
        b->buft != &d->buft || (b->usage != GGML_BACKEND_BUFFER_USAGE_WEIGHTS && b->size != 0) ||
        !vnpu_htp_repack_tiles(w)) {
        return false;
    }
    vnpu_log_debug("%s: %s '%s' not supported with weight '%s' in %s: it belongs in %s (tiled)", d->name,
                   ggml_op_desc(op), op->name, w->name, d->name, ggml_backend_buft_name(d->extra_bufts[0]));
    return true;
}

/* vnpu's answer for op, translated with its operands into a scratch translation; false for what vnpu does not know
 * and for a weight llama.cpp places in HTP<n> that belongs in REPACK (said at VNPU_LOG=3). */
static bool dev_supports_op(ggml_backend_dev_t gdev, const struct ggml_tensor *op) {
    struct vnpu_ggml_device *d = device_of(gdev);
    struct ggml_vnpu_translation tr;
    if (ggml_vnpu_translation_init(&tr, TENSORS_PER_NODE, vnpu_buffer_of) != VNPU_STATUS_OK) {
        return false;
    }
    const struct vnpu_tensor *v = ggml_vnpu_translate_node(&tr, op);
    if (!v) {
        vnpu_log_debug("%s: %s '%s' not supported: %s", d->name, ggml_op_desc(op), op->name, tr.why);
    }
    const bool ok = v && !weight_belongs_in_repack(d, op, v->src[0]) && vnpu_device_supports_op(d->dev, v);
    ggml_vnpu_translation_free(&tr);
    return ok;
}

/* The device's own buffer types only: the NPU maps shared DDR, and anything else crosses into it by ggml's copies. */
static bool dev_supports_buft(ggml_backend_dev_t gdev, ggml_backend_buffer_type_t buft) {
    const struct vnpu_ggml_device *d = device_of(gdev);
    return buft == &d->buft || (d->extra_bufts[0] && buft == d->extra_bufts[0]);
}

/* ggml_backend_dev_get_extra_bufts (a ggml_backend_dev_get_extra_bufts_t, found through get_proc_address): the
 * NULL-terminated buffer types gdev offers besides its own, which llama.cpp tries in order for each weight. */
static ggml_backend_buffer_type_t *dev_get_extra_bufts(ggml_backend_dev_t gdev) {
    return device_of(gdev)->extra_bufts;
}

static const struct ggml_backend_device_i dev_iface = {
    .get_name = dev_get_name,
    .get_description = dev_get_description,
    .get_memory = dev_get_memory,
    .get_type = dev_get_type,
    .get_props = dev_get_props,
    .init_backend = dev_init_backend,
    .get_buffer_type = dev_get_buffer_type,
    .supports_op = dev_supports_op,
    .supports_buft = dev_supports_buft,
};

/* ---- the registry ---- */

static const char *reg_get_name(ggml_backend_reg_t r) {
    (void) r;
    return "HTP";
}

static size_t reg_get_device_count(ggml_backend_reg_t r) {
    (void) r;
    return n_devices;
}

static ggml_backend_dev_t reg_get_device(ggml_backend_reg_t r, size_t index) {
    (void) r;
    return index < n_devices ? &devices[index].gdev : NULL;
}

/* The registry's optional functions by name: ggml_backend_dev_get_extra_bufts only. */
static void *reg_get_proc_address(ggml_backend_reg_t r, const char *name) {
    (void) r;
    return strcmp(name, "ggml_backend_dev_get_extra_bufts") == 0 ? (void *) dev_get_extra_bufts : NULL;
}

static const struct ggml_backend_reg_i reg_iface = {
    .get_name = reg_get_name,
    .get_device_count = reg_get_device_count,
    .get_device = reg_get_device,
    .get_proc_address = reg_get_proc_address,
};

/* Give the registry the device dev (opened): its name, its first member's window, its buffer types (a group's are
 * its first member's). */
static void reg_add(struct vnpu_device *dev) {
    struct vnpu_ggml_device *d = &devices[n_devices++];
    uint32_t members[VNPU_HTP_MAX_DEVICES];
    vnpu_htp_device_members(dev, members);
    d->dev = dev;
    d->index = members[0];
    d->name = vnpu_device_name(dev);
    snprintf(d->description, sizeof(d->description), "vnpu virtual Hexagon NPU (%s)", d->name);
    d->gdev = (struct ggml_backend_device){.iface = dev_iface, .reg = &reg, .context = d};
    struct vnpu_buffer_type *plain = vnpu_device_buffer_type(dev), *weights = vnpu_htp_weight_buffer_type(d->index);
    d->buft = (struct ggml_backend_buffer_type){.iface = buft_iface, .device = &d->gdev, .context = plain};
    d->repack_buft =
        (struct ggml_backend_buffer_type){.iface = repack_buft_iface, .device = &d->gdev, .context = weights};
    d->extra_bufts[0] = weights && weights != plain ? &d->repack_buft : NULL;
}

/* The devices of VNPU_DEVICES, in vnpu-cli's --device grammar without the CPU (llama.cpp has its own): HTP<n> and
 * row-split groups HTP<a>[<members>]; unset, HTP0..HTP<VNPU_NDEV - 1>. A list that does not open (logged) leaves
 * the registry empty; without VNPU_DEVICES a device that fails to open (logged) ends the list. */
static void reg_open(void) {
    const char *list = getenv("VNPU_DEVICES");
    struct vnpu_device *devs[VNPU_HTP_MAX_DEVICES];
    uint32_t n;
    if (list) {
        if (vnpu_htp_devices_open(list, false, devs, VNPU_HTP_MAX_DEVICES, &n, NULL) != VNPU_STATUS_OK) {
            vnpu_log_error("ggml-vnpu: VNPU_DEVICES='%s' does not open: the registry has no devices", list);
            return;
        }
        for (uint32_t i = 0; i < n; i++) {
            reg_add(devs[i]);
        }
        return;
    }
    if (vnpu_htp_device_count(&n) != VNPU_STATUS_OK) {
        return;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (vnpu_htp_device_get(i, &devs[0]) != VNPU_STATUS_OK) {
            vnpu_log_error("ggml-vnpu: HTP%u did not open: the registry lists the %u devices before it", i, i);
            break;
        }
        reg_add(devs[0]);
    }
}

static pthread_once_t reg_once = PTHREAD_ONCE_INIT;

static ggml_backend_reg_t vnpu_ggml_reg(void) {
    pthread_once(&reg_once, reg_open);
    reg = (struct ggml_backend_reg){.api_version = GGML_BACKEND_API_VERSION, .iface = reg_iface};
    return &reg;
}

/* 1 when vnpu's environment is valid (VNPU_NDEV and the rest, logged otherwise): ggml then loads the plugin. */
static int vnpu_ggml_score(void) {
    uint32_t n;
    return vnpu_htp_device_count(&n) == VNPU_STATUS_OK && n > 0;
}

/* At unload (or exit): the devices close, VNPU_PROFILE's summary is printed and VNPU_TRACE's file completed. */
__attribute__((destructor)) static void vnpu_ggml_unload(void) {
    for (uint32_t i = 0; i < n_devices; i++) {
        vnpu_device_free(devices[i].dev);
    }
    n_devices = 0;
}

GGML_BACKEND_DL_IMPL(vnpu_ggml_reg)
GGML_BACKEND_DL_SCORE_IMPL(vnpu_ggml_score)
