/*
 * Buffers and buffer types: where tensor data lives.
 *
 * A buffer type allocates buffers; a buffer is one block of host-addressable memory (on a Snapdragon
 * every DDR buffer is visible to CPU and NPU, and vnpu keeps that unified-memory model). Devices bring
 * their own buffer types: the host type below (plain aligned memory), shareable DDR for the HTP
 * devices, and REPACK types that store weights in a device layout. The interfaces follow GGML's
 * ggml_backend_buffer_type / ggml_backend_buffer; an optional slot is NULL and the wrapper below
 * applies the default written in the slot's comment.
 */
#ifndef VNPU_BUFFER_H
#define VNPU_BUFFER_H

#include "tensor.h"
#include "vnpu.h"

#include <stddef.h>

struct vnpu_buffer_type;
struct vnpu_buffer;

struct vnpu_buffer_type_iface {
    const char *(*get_name)(struct vnpu_buffer_type *bt);
    /* A buffer of size bytes (size may be 0); on error *out is NULL and the cause was logged. */
    enum vnpu_status (*alloc_buffer)(struct vnpu_buffer_type *bt, size_t size, struct vnpu_buffer **out);
    /* Optional: bytes tensor t takes in a buffer of this type (tiled layouts pad); NULL = vnpu_nbytes. */
    size_t (*get_alloc_size)(struct vnpu_buffer_type *bt, const struct vnpu_tensor *t);
    /* Optional: the largest buffer of this type (GGML's get_max_size: an NPU's address window, a device's largest
     * allocation); whoever allocates more tensors than fit one buffer allocates several, no tensor straddling
     * two (the model's weights, src/model/model.c). NULL = SIZE_MAX. */
    size_t (*get_max_size)(struct vnpu_buffer_type *bt);
};

struct vnpu_buffer_type {
    const struct vnpu_buffer_type_iface *iface;
    size_t alignment; /* every tensor offset in its buffers is a multiple of this */
    void *ctx;
};

struct vnpu_buffer_iface {
    void (*free)(struct vnpu_buffer *buf);
    /* Optional: write size bytes of t's data (GGML layout) at byte offset offset of the tensor; a layout
     * that transforms data (repack) requires the whole tensor at once. NULL = memcpy into t->data. */
    enum vnpu_status (*set_tensor)(struct vnpu_buffer *buf, struct vnpu_tensor *t, const void *data, size_t offset,
                                   size_t size);
    /* Optional: read t's data back in GGML layout. NULL = memcpy from t->data. */
    enum vnpu_status (*get_tensor)(struct vnpu_buffer *buf, const struct vnpu_tensor *t, void *data, size_t offset,
                                   size_t size);
    /* Optional: whether t's bytes in memory (at t->data) are GGML's layout; a layout that transforms data (repack)
     * says false for the tensors it transforms and for views of them. NULL = true. */
    bool (*host_layout)(struct vnpu_buffer *buf, const struct vnpu_tensor *t);
};

/* What a buffer holds (GGML's ggml_backend_buffer_usage), for devices that treat them differently. */
enum vnpu_buffer_usage {
    VNPU_BUFFER_USAGE_ANY = 0, /* compute buffers, the KV cache: an NPU keeps them mapped (pinned) */
    VNPU_BUFFER_USAGE_WEIGHTS, /* a model's weights, set by its loader: an NPU maps them while a request uses them */
};

struct vnpu_buffer {
    const struct vnpu_buffer_iface *iface;
    struct vnpu_buffer_type *type;
    void *base; /* host address of byte 0 */
    size_t size;
    enum vnpu_buffer_usage usage; /* VNPU_BUFFER_USAGE_ANY when allocated */
    void *ctx;
};

const char *vnpu_buffer_type_name(struct vnpu_buffer_type *bt);
/* A buffer of size bytes of type bt. Errors: VNPU_STATUS_NO_MEMORY (the type's, or size above
 * vnpu_buffer_type_max_size: logged with both sizes). */
enum vnpu_status vnpu_buffer_type_alloc(struct vnpu_buffer_type *bt, size_t size, struct vnpu_buffer **out);
size_t vnpu_buffer_type_alloc_size(struct vnpu_buffer_type *bt, const struct vnpu_tensor *t);
/* Bytes of the largest buffer of type bt (SIZE_MAX: no limit). */
size_t vnpu_buffer_type_max_size(struct vnpu_buffer_type *bt);
void vnpu_buffer_free(struct vnpu_buffer *buf); /* NULL is a no-op */

/* Place t at byte offset offset of buf: sets t->data and t->buffer. offset + alloc size must fit. */
void vnpu_buffer_place_tensor(struct vnpu_buffer *buf, struct vnpu_tensor *t, size_t offset);
enum vnpu_status vnpu_tensor_set(struct vnpu_tensor *t, const void *data, size_t offset, size_t size);
enum vnpu_status vnpu_tensor_get(const struct vnpu_tensor *t, void *data, size_t offset, size_t size);
/* True when t's bytes in memory are GGML's layout (no buffer, or a buffer that keeps t flat), so code that reads
 * tensors in place may read them: the CPU backend computes only nodes whose operands all are, as ggml's CPU backend
 * takes operands in host buffers only. A tiled weight in a REPACK buffer, or a view of one, is not. */
bool vnpu_tensor_host_layout(const struct vnpu_tensor *t);

/* Plain host memory, 128-byte aligned (an HVX vector, a DDR cache line). */
struct vnpu_buffer_type *vnpu_host_buffer_type(void);

#endif /* VNPU_BUFFER_H */
