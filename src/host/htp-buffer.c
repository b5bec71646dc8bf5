/*
 * The HTP buffer types: "HTP<n>" for what the device computes (compute buffers, KV cache) and
 * "HTP<n>-REPACK" for weights. Both are shared DDR (vdsp buffers): the CPU reads and writes them in place
 * (unified memory) and a session maps them into its window. HTP<n> buffers are pinned (kept mapped across
 * requests) unless their usage is VNPU_BUFFER_USAGE_WEIGHTS (the model's, under VNPU_HOSTBUF=1); REPACK buffers
 * are never pinned: they leave the window when a request needs the room (the sliding window, src/htp/main.c).
 * No buffer of either type is larger than htp_buffer_max_size says, so a model's weights come in several.
 *
 * REPACK stores the weights the NPU's matmul kernels read tiled (htp_matmul_tiled_weight: a type with tiled
 * kernels and a shape src/repack takes) in the seed's tiled layout (src/htp/htp-tiles.h): get_alloc_size is
 * repack_nbytes, set_tensor repacks (GGML's flat bytes in), get_tensor unpacks (flat bytes out), for the tensor
 * or any range of it, and for views of it (a view's bytes are the flat tensor's from its view offset, as in GGML).
 * Every other tensor is stored flat. Under VNPU_HOSTBUF=1 weights go to HTP<n> and stay flat.
 */
#include "htp-device-impl.h"
#include "hex-common.h"

#include "log.h"
#include "repack.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HTP_BUFFER_ALIGNMENT HEX_MAX(HEX_VLEN, HEX_L2_LINE_SIZE) /* a buffer starts an HVX vector and an L2 line */

struct htp_buffer {
    struct vdsp_buffer *vb;
    bool repack; /* of the REPACK type */
};

static char htp_buffer_type_names[VNPU_HTP_MAX_DEVICES][2][16];

static const char *htp_buffer_type_name(struct vnpu_buffer_type *bt) {
    return bt->ctx;
}

static void htp_buffer_free(struct vnpu_buffer *buf) {
    struct htp_buffer *hb = buf->ctx;
    htp_devices_unmap(hb->vb);
    vdsp_buffer_free(hb->vb);
    free(hb);
    free(buf);
}

static const struct vnpu_buffer_iface htp_buffer_iface = {
    .free = htp_buffer_free,
};

/* ---- REPACK: tiled weights ---- */

static bool htp_repack_tiles(const struct vnpu_tensor *t) {
    return !t->view_src && htp_matmul_tiled_weight(t->type, t->ne);
}

/* Threads a repack takes: the host's cores (the load is the only thing running). */
static int htp_repack_threads(void) {
    const long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 16 ? 16 : (int) n;
}

/* The tensor whose memory t's bytes are (t, or the tensor it views) and where t starts in it. */
static const struct vnpu_tensor *htp_repack_owner(const struct vnpu_tensor *t, size_t *base) {
    *base = t->view_src ? t->view_offs : 0;
    return t->view_src ? t->view_src : t;
}

/* The flat GGML bytes of tiled tensor t, unpacked into *all, a new allocation the caller frees. Errors (logged):
 * VNPU_STATUS_NO_MEMORY, repack_unpack_tensor's. */
static enum vnpu_status htp_repack_unpack_all(struct vnpu_buffer *buf, const struct vnpu_tensor *t, uint8_t **all) {
    const size_t flat = vnpu_nbytes(t);
    *all = malloc(flat);
    if (!*all) {
        vnpu_log_error("%s: cannot allocate %zu bytes to unpack tensor '%s'", vnpu_buffer_type_name(buf->type), flat,
                       t->name);
        return VNPU_STATUS_NO_MEMORY;
    }
    const enum vnpu_status st =
        repack_unpack_tensor(t->type, t->ne, t->data, repack_nbytes(t->type, t->ne), *all, flat, htp_repack_threads());
    if (st != VNPU_STATUS_OK) {
        free(*all);
        *all = NULL;
    }
    return st;
}

/* Bytes [offset, offset + size) of t in GGML's flat layout, t a tiled tensor or a view of one (its bytes those of
 * the flat tensor from its view offset, as GGML's views are): the whole tensor is tiled at once; anything less
 * is written into its unpacked bytes, which are tiled again. */
static enum vnpu_status htp_repack_set_tensor(struct vnpu_buffer *buf, struct vnpu_tensor *t, const void *data,
                                              size_t offset, size_t size) {
    size_t base;
    const struct vnpu_tensor *owner = htp_repack_owner(t, &base);
    if (!htp_repack_tiles(owner)) {
        memcpy((uint8_t *) t->data + offset, data, size);
        return VNPU_STATUS_OK;
    }
    const size_t flat = vnpu_nbytes(owner), tiled = repack_nbytes(owner->type, owner->ne);
    if (base + offset == 0 && size == flat) {
        return repack_tensor(owner->type, owner->ne, data, size, owner->data, tiled, htp_repack_threads());
    }
    uint8_t *all;
    enum vnpu_status st = htp_repack_unpack_all(buf, owner, &all);
    if (st == VNPU_STATUS_OK) {
        memcpy(all + base + offset, data, size);
        st = repack_tensor(owner->type, owner->ne, all, flat, owner->data, tiled, htp_repack_threads());
        free(all);
    }
    return st;
}

static enum vnpu_status htp_repack_get_tensor(struct vnpu_buffer *buf, const struct vnpu_tensor *t, void *data,
                                              size_t offset, size_t size) {
    size_t base;
    const struct vnpu_tensor *owner = htp_repack_owner(t, &base);
    if (!htp_repack_tiles(owner)) {
        memcpy(data, (const uint8_t *) t->data + offset, size);
        return VNPU_STATUS_OK;
    }
    const size_t flat = vnpu_nbytes(owner);
    if (base + offset == 0 && size == flat) {
        return repack_unpack_tensor(owner->type, owner->ne, owner->data, repack_nbytes(owner->type, owner->ne), data,
                                    flat, htp_repack_threads());
    }
    uint8_t *all;
    const enum vnpu_status st = htp_repack_unpack_all(buf, owner, &all);
    if (st == VNPU_STATUS_OK) {
        memcpy(data, all + base + offset, size);
        free(all);
    }
    return st;
}

static bool htp_repack_host_layout(struct vnpu_buffer *buf, const struct vnpu_tensor *t) {
    (void) buf;
    size_t base;
    return !htp_repack_tiles(htp_repack_owner(t, &base));
}

static const struct vnpu_buffer_iface htp_repack_buffer_iface = {
    .free = htp_buffer_free,
    .set_tensor = htp_repack_set_tensor,
    .get_tensor = htp_repack_get_tensor,
    .host_layout = htp_repack_host_layout,
};

static size_t htp_repack_alloc_size(struct vnpu_buffer_type *bt, const struct vnpu_tensor *t) {
    (void) bt;
    return htp_repack_tiles(t) ? repack_nbytes(t->type, t->ne) : vnpu_nbytes(t);
}

bool vnpu_htp_repack_tiles(const struct vnpu_tensor *t) {
    return htp_repack_tiles(t);
}

bool htp_buffer_tensor_tiled(const struct vnpu_tensor *t) {
    return t->buffer && t->buffer->iface == &htp_repack_buffer_iface && htp_repack_tiles(t);
}

static enum vnpu_status htp_buffer_alloc(struct vnpu_buffer_type *bt, size_t size, struct vnpu_buffer **out) {
    *out = NULL;
    struct vnpu_buffer *buf = calloc(1, sizeof(*buf));
    struct htp_buffer *hb = calloc(1, sizeof(*hb));
    enum vnpu_status st = buf && hb ? VNPU_STATUS_OK : VNPU_STATUS_NO_MEMORY;
    if (st == VNPU_STATUS_OK) {
        st = vdsp_buffer_alloc(size ? size : HTP_BUFFER_ALIGNMENT, bt->ctx, &hb->vb);
    } else {
        vnpu_log_error("%s: cannot allocate a buffer descriptor", (const char *) bt->ctx);
    }
    if (st != VNPU_STATUS_OK) {
        free(hb);
        free(buf);
        return st;
    }
    hb->repack = strstr(bt->ctx, "-REPACK") != NULL;
    buf->iface = hb->repack ? &htp_repack_buffer_iface : &htp_buffer_iface;
    buf->type = bt;
    buf->base = hb->vb->host;
    buf->size = size;
    buf->ctx = hb;
    *out = buf;
    return VNPU_STATUS_OK;
}

/* Both types' get_max_size: htp_buffer_max_size of the configured arch; SIZE_MAX when the environment is bad
 * (logged; opening the device fails on it too). */
static size_t htp_buffer_type_max_size(struct vnpu_buffer_type *bt) {
    (void) bt;
    const struct htp_config *cfg;
    size_t window;
    if (htp_config_get(&cfg) != VNPU_STATUS_OK || vdsp_window_size_default(cfg->arch, &window) != VNPU_STATUS_OK) {
        return SIZE_MAX;
    }
    struct vdsp_target target;
    VNPU_ASSERT(vdsp_target_get(cfg->arch, &target));
    return htp_buffer_max_size((size_t) cfg->mbuf_mb << 20, window, target.max_mapping);
}

size_t htp_buffer_max_size(size_t mbuf, size_t window, size_t max_mapping) {
    size_t max = window / HTP_BUFFER_WINDOW_SHARE;
    max = mbuf < max ? mbuf : max;
    max = max_mapping < max ? max_mapping : max;
    return max / HTP_BUFFER_ALIGNMENT * HTP_BUFFER_ALIGNMENT;
}

static const struct vnpu_buffer_type_iface htp_buffer_type_iface = {
    .get_name = htp_buffer_type_name,
    .alloc_buffer = htp_buffer_alloc,
    .get_max_size = htp_buffer_type_max_size,
};

static const struct vnpu_buffer_type_iface htp_repack_buffer_type_iface = {
    .get_name = htp_buffer_type_name,
    .alloc_buffer = htp_buffer_alloc,
    .get_alloc_size = htp_repack_alloc_size,
    .get_max_size = htp_buffer_type_max_size,
};

static struct vnpu_buffer_type htp_buffer_types[VNPU_HTP_MAX_DEVICES][2];
static pthread_once_t htp_buffer_types_once = PTHREAD_ONCE_INIT;

static void htp_buffer_types_init(void) {
    for (uint32_t i = 0; i < VNPU_HTP_MAX_DEVICES; i++) {
        for (int r = 0; r < 2; r++) {
            snprintf(htp_buffer_type_names[i][r], sizeof(htp_buffer_type_names[i][r]), "HTP%u%s", i,
                     r ? "-REPACK" : "");
            htp_buffer_types[i][r] =
                (struct vnpu_buffer_type){.iface = r ? &htp_repack_buffer_type_iface : &htp_buffer_type_iface,
                                          .alignment = HTP_BUFFER_ALIGNMENT,
                                          .ctx = htp_buffer_type_names[i][r]};
        }
    }
}

struct vnpu_buffer_type *htp_buffer_type(uint32_t index, bool repack) {
    VNPU_ASSERT(index < VNPU_HTP_MAX_DEVICES);
    pthread_once(&htp_buffer_types_once, htp_buffer_types_init);
    return &htp_buffer_types[index][repack];
}

struct vdsp_buffer *htp_buffer_of(const struct vnpu_tensor *t, size_t *offset, bool *pinned) {
    const struct vnpu_tensor *owner = t;
    while (!owner->buffer && owner->view_src) {
        owner = owner->view_src;
    }
    const struct vnpu_buffer *buf = owner->buffer;
    if (!buf || (buf->iface != &htp_buffer_iface && buf->iface != &htp_repack_buffer_iface) || !t->data) {
        return NULL;
    }
    const struct htp_buffer *hb = buf->ctx;
    *offset = (size_t) ((const uint8_t *) t->data - (const uint8_t *) hb->vb->host);
    *pinned = !hb->repack && buf->usage != VNPU_BUFFER_USAGE_WEIGHTS;
    return hb->vb;
}
