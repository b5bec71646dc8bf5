/*
 * The HTP buffer types: "HTP<n>" for what the device computes (compute buffers, KV cache) and
 * "HTP<n>-REPACK" for weights. Both are shared DDR (vdsp buffers): the CPU reads and writes them in place
 * (unified memory) and a session maps them into its window. HTP<n> buffers are pinned (kept mapped across
 * requests); REPACK buffers may leave the window when it is short of room (the sliding window). REPACK
 * stores GGML's flat layout until the tiled formats land.
 */
#include "htp-device-impl.h"

#include "log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HTP_BUFFER_ALIGNMENT 128 /* an HVX vector, a DDR line */

struct htp_buffer {
    struct vdsp_buffer *vb;
    bool pinned;
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
    hb->pinned = strstr(bt->ctx, "-REPACK") == NULL;
    buf->iface = &htp_buffer_iface;
    buf->type = bt;
    buf->base = hb->vb->host;
    buf->size = size;
    buf->ctx = hb;
    *out = buf;
    return VNPU_STATUS_OK;
}

static const struct vnpu_buffer_type_iface htp_buffer_type_iface = {
    .get_name = htp_buffer_type_name,
    .alloc_buffer = htp_buffer_alloc,
};

static struct vnpu_buffer_type htp_buffer_types[VNPU_HTP_MAX_DEVICES][2];
static pthread_once_t htp_buffer_types_once = PTHREAD_ONCE_INIT;

static void htp_buffer_types_init(void) {
    for (uint32_t i = 0; i < VNPU_HTP_MAX_DEVICES; i++) {
        for (int r = 0; r < 2; r++) {
            snprintf(htp_buffer_type_names[i][r], sizeof(htp_buffer_type_names[i][r]), "HTP%u%s", i,
                     r ? "-REPACK" : "");
            htp_buffer_types[i][r] = (struct vnpu_buffer_type){
                .iface = &htp_buffer_type_iface, .alignment = HTP_BUFFER_ALIGNMENT, .ctx = htp_buffer_type_names[i][r]};
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
    if (!buf || buf->iface != &htp_buffer_iface || !t->data) {
        return NULL;
    }
    const struct htp_buffer *hb = buf->ctx;
    *offset = (size_t) ((const uint8_t *) t->data - (const uint8_t *) hb->vb->host);
    *pinned = hb->pinned;
    return hb->vb;
}
