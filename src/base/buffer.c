#include "buffer.h"

#include "log.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

const char *vnpu_buffer_type_name(struct vnpu_buffer_type *bt) {
    return bt->iface->get_name(bt);
}

enum vnpu_status vnpu_buffer_type_alloc(struct vnpu_buffer_type *bt, size_t size, struct vnpu_buffer **out) {
    const size_t max = vnpu_buffer_type_max_size(bt);
    if (size > max) {
        *out = NULL;
        vnpu_log_error("%s: a buffer of %zu bytes, more than the type's maximum of %zu", vnpu_buffer_type_name(bt),
                       size, max);
        return VNPU_STATUS_NO_MEMORY;
    }
    return bt->iface->alloc_buffer(bt, size, out);
}

size_t vnpu_buffer_type_max_size(struct vnpu_buffer_type *bt) {
    return bt->iface->get_max_size ? bt->iface->get_max_size(bt) : SIZE_MAX;
}

size_t vnpu_buffer_type_alloc_size(struct vnpu_buffer_type *bt, const struct vnpu_tensor *t) {
    return bt->iface->get_alloc_size ? bt->iface->get_alloc_size(bt, t) : vnpu_nbytes(t);
}

void vnpu_buffer_free(struct vnpu_buffer *buf) {
    if (buf) {
        buf->iface->free(buf);
    }
}

void vnpu_buffer_place_tensor(struct vnpu_buffer *buf, struct vnpu_tensor *t, size_t offset) {
    VNPU_ASSERT(offset % buf->type->alignment == 0);
    VNPU_ASSERT(offset + vnpu_buffer_type_alloc_size(buf->type, t) <= buf->size);
    t->data = (char *) buf->base + offset;
    t->buffer = buf;
}

enum vnpu_status vnpu_tensor_set(struct vnpu_tensor *t, const void *data, size_t offset, size_t size) {
    VNPU_ASSERT(offset + size <= vnpu_nbytes(t));
    if (t->buffer && t->buffer->iface->set_tensor) {
        return t->buffer->iface->set_tensor(t->buffer, t, data, offset, size);
    }
    memcpy((char *) t->data + offset, data, size);
    return VNPU_STATUS_OK;
}

enum vnpu_status vnpu_tensor_get(const struct vnpu_tensor *t, void *data, size_t offset, size_t size) {
    VNPU_ASSERT(offset + size <= vnpu_nbytes(t));
    if (t->buffer && t->buffer->iface->get_tensor) {
        return t->buffer->iface->get_tensor(t->buffer, t, data, offset, size);
    }
    memcpy(data, (const char *) t->data + offset, size);
    return VNPU_STATUS_OK;
}

bool vnpu_tensor_host_layout(const struct vnpu_tensor *t) {
    return !t->buffer || !t->buffer->iface->host_layout || t->buffer->iface->host_layout(t->buffer, t);
}

/* ---- the host buffer type ---- */

#define HOST_ALIGNMENT 128

static const char *host_buffer_type_name(struct vnpu_buffer_type *bt) {
    VNPU_UNUSED(bt);
    return "CPU";
}

static void host_buffer_free(struct vnpu_buffer *buf) {
    free(buf->base);
    free(buf);
}

static const struct vnpu_buffer_iface host_buffer_iface = {
    .free = host_buffer_free,
};

static enum vnpu_status host_buffer_alloc(struct vnpu_buffer_type *bt, size_t size, struct vnpu_buffer **out) {
    *out = NULL;
    const size_t rounded = (size + HOST_ALIGNMENT - 1) / HOST_ALIGNMENT * HOST_ALIGNMENT;
    if (rounded < size) {
        vnpu_log_error("host buffer: %zu bytes overflow the address space", size);
        return VNPU_STATUS_NO_MEMORY;
    }
    struct vnpu_buffer *buf = calloc(1, sizeof(*buf));
    void *base = aligned_alloc(HOST_ALIGNMENT, rounded ? rounded : HOST_ALIGNMENT);
    if (!buf || !base) {
        free(buf);
        free(base);
        vnpu_log_error("host buffer: cannot allocate %zu bytes", size);
        return VNPU_STATUS_NO_MEMORY;
    }
    buf->iface = &host_buffer_iface;
    buf->type = bt;
    buf->base = base;
    buf->size = size;
    *out = buf;
    return VNPU_STATUS_OK;
}

static const struct vnpu_buffer_type_iface host_buffer_type_iface = {
    .get_name = host_buffer_type_name,
    .alloc_buffer = host_buffer_alloc,
};

struct vnpu_buffer_type *vnpu_host_buffer_type(void) {
    static struct vnpu_buffer_type bt = {.iface = &host_buffer_type_iface, .alignment = HOST_ALIGNMENT};
    return &bt;
}
