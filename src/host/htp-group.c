/*
 * Row-split groups (htp-host.h, vnpu_htp_group_get): the device "HTP0[0-1]", its grammar (design notes 9.1, the
 * Qualcomm backend's GGML_HEXAGON_DEVICES grouping), its members and fence buffer, and its vnpu_device interface.
 * Requests are built and sent by htp-request.c; the NPU side meets at src/htp/htp-fence.h's barriers.
 */
#include "htp-device-impl.h"
#include "htp-fence.h"

#include "log.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static_assert(VNPU_HTP_MAX_DEVICES <= HTP_MAX_MDEV, "a group of every device must fit a request's mdev_count");

static const struct vnpu_device_iface htp_group_iface;

bool htp_group_is(const struct vnpu_device *dev) {
    return dev->iface == &htp_group_iface;
}

struct htp_group *htp_group_of(struct vnpu_device *dev) {
    return dev->ctx;
}

/* A decimal number of at most 5 digits at *p, which then points past it; false if there is none. */
static bool parse_number(const char **p, const char *end, uint32_t *v) {
    const char *s = *p;
    *v = 0;
    while (*p < end && **p >= '0' && **p <= '9' && *p - s < 5) {
        *v = *v * 10 + (uint32_t) (**p - '0');
        (*p)++;
    }
    return *p > s && (*p == end || **p < '0' || **p > '9');
}

/* The members of "HTP<a>[<list>]" (len bytes) into members[] (*n of them, list order), each < ndev and named once,
 * a the first; false, logged, else. */
static bool group_parse(const char *name, size_t len, uint32_t ndev, uint32_t *members, uint32_t *n) {
    const char *open = memchr(name, '[', len), *end = name + len;
    uint32_t prefix;
    *n = 0;
    if (!open || end[-1] != ']' || !vnpu_htp_device_parse(name, (size_t) (open - name), &prefix)) {
        vnpu_log_error("device '%.*s': expected a group HTP<n>[<members>], as HTP0[0-1], HTP0[0-3] or HTP0[0,2]",
                       (int) len, name);
        return false;
    }
    const char *p = open + 1, *list_end = end - 1;
    if (p == list_end) {
        vnpu_log_error("device '%.*s': no members between the brackets", (int) len, name);
        return false;
    }
    bool seen[VNPU_HTP_MAX_DEVICES] = {false};
    while (p < list_end) {
        uint32_t lo, hi;
        const char *item = p;
        bool ok = parse_number(&p, list_end, &lo);
        hi = lo;
        if (ok && p < list_end && *p == '-') {
            p++;
            ok = parse_number(&p, list_end, &hi);
        }
        ok = ok && (p == list_end || *p == ',');
        if (!ok) { /* the member as written: up to its comma or the closing bracket */
            const size_t n_item = strcspn(item, ","), rest = (size_t) (list_end - item);
            vnpu_log_error("device '%.*s': member '%.*s' is not a device number (0..%u) or a range a-b of them",
                           (int) len, name, (int) (n_item < rest ? n_item : rest), item, VNPU_HTP_MAX_DEVICES - 1);
            return false;
        }
        if (hi < lo) {
            vnpu_log_error("device '%.*s': range %u-%u runs backwards", (int) len, name, lo, hi);
            return false;
        }
        for (uint32_t m = lo; m <= hi; m++) {
            if (m >= ndev) {
                vnpu_log_error("device '%.*s': member HTP%u does not exist (VNPU_NDEV=%u makes HTP0..HTP%u)", (int) len,
                               name, m, ndev, ndev - 1);
                return false;
            }
            if (seen[m]) {
                vnpu_log_error("device '%.*s': member HTP%u is named twice", (int) len, name, m);
                return false;
            }
            seen[m] = true;
            members[(*n)++] = m;
        }
        p += p < list_end; /* the comma */
        if (p == list_end && list_end[-1] == ',') {
            vnpu_log_error("device '%.*s': the member list ends with a comma", (int) len, name);
            return false;
        }
    }
    if (members[0] != prefix) {
        vnpu_log_error("device '%.*s': the group is named for its first member, HTP%u (write HTP%u[...])", (int) len,
                       name, members[0], members[0]);
        return false;
    }
    return true;
}

static void htp_group_free(struct vnpu_device *dev) {
    struct htp_group *g = htp_group_of(dev);
    if (g->fence) {
        htp_devices_unmap(g->fence); /* before its fd is another buffer's */
        vdsp_buffer_free(g->fence);
    }
    for (uint32_t k = 0; k < g->n; k++) {
        if (g->members[k]) {
            vnpu_device_free(&g->members[k]->base);
        }
    }
    free(g);
}

static const char *htp_group_name(struct vnpu_device *dev) {
    return htp_group_of(dev)->name;
}

static bool htp_group_supports_op(struct vnpu_device *dev, const struct vnpu_tensor *op) {
    return htp_supports_op(htp_group_of(dev)->members[0], op);
}

static void htp_group_lock(struct htp_group *g) {
    for (uint32_t k = 0; k < g->n; k++) {
        pthread_mutex_lock(&g->by_index[k]->lock);
    }
}

static void htp_group_unlock(struct htp_group *g) {
    for (uint32_t k = g->n; k-- > 0;) {
        pthread_mutex_unlock(&g->by_index[k]->lock);
    }
}

static enum vnpu_status htp_group_graph_compute(struct vnpu_device *dev, struct vnpu_tensor **nodes, int n_nodes) {
    struct htp_group *g = htp_group_of(dev);
    htp_group_lock(g);
    const enum vnpu_status st = htp_graph_compute(g->members[0], g, nodes, n_nodes);
    htp_group_unlock(g);
    return st;
}

static struct vnpu_buffer_type *htp_group_buffer_type(struct vnpu_device *dev) {
    return vnpu_device_buffer_type(&htp_group_of(dev)->members[0]->base);
}

static struct vnpu_buffer_type *htp_group_weight_buffer_type(struct vnpu_device *dev,
                                                             const struct vnpu_tensor *weight) {
    return vnpu_device_weight_buffer_type(&htp_group_of(dev)->members[0]->base, weight);
}

/* The weight copies are members[0]'s, mapped by every member. */
static void htp_group_forget_host(struct vnpu_device *dev, const void *base, size_t size) {
    struct htp_group *g = htp_group_of(dev);
    htp_group_lock(g);
    htp_stage_forget(g->members[0], g->members, g->n, base, size);
    htp_group_unlock(g);
}

static const struct vnpu_device_iface htp_group_iface = {
    .get_name = htp_group_name,
    .supports_op = htp_group_supports_op,
    .graph_compute = htp_group_graph_compute,
    .get_buffer_type = htp_group_buffer_type,
    .get_weight_buffer_type = htp_group_weight_buffer_type,
    .forget_host = htp_group_forget_host,
    .free = htp_group_free,
};

enum vnpu_status vnpu_htp_group_get(const char *name, size_t len, struct vnpu_device **out) {
    *out = NULL;
    uint32_t ndev = 0, members[VNPU_HTP_MAX_DEVICES], n = 0;
    enum vnpu_status st = vnpu_htp_device_count(&ndev);
    if (st != VNPU_STATUS_OK) {
        return st;
    }
    const size_t name_size = sizeof(((struct htp_group *) NULL)->name);
    if (len >= name_size) {
        vnpu_log_error("device '%.*s': name longer than %zu bytes", (int) len, name, name_size - 1);
        return VNPU_STATUS_BAD_ARG;
    }
    if (!group_parse(name, len, ndev, members, &n)) {
        return VNPU_STATUS_BAD_ARG;
    }
    struct htp_group *g = calloc(1, sizeof(*g));
    if (!g) {
        vnpu_log_error("device '%.*s': out of memory for the group", (int) len, name);
        return VNPU_STATUS_NO_MEMORY;
    }
    g->base = (struct vnpu_device){.iface = &htp_group_iface, .ctx = g};
    memcpy(g->name, name, len);
    for (uint32_t k = 0; k < n && st == VNPU_STATUS_OK; k++) {
        struct vnpu_device *m = NULL;
        st = vnpu_htp_device_get(members[k], &m);
        g->members[k] = m ? m->ctx : NULL;
        g->n = k + 1;
    }
    if (st == VNPU_STATUS_OK) {
        st = vdsp_buffer_alloc(HTP_MAX_MDEV * HTP_FENCE_SLOT_SIZE, "HTP-fences", &g->fence);
    }
    if (st != VNPU_STATUS_OK) {
        htp_group_free(&g->base);
        return st;
    }
    for (uint32_t k = 0; k < n; k++) { /* by_index: insertion sort of the members by device number */
        uint32_t j = k;
        for (; j > 0 && g->by_index[j - 1]->index > g->members[k]->index; j--) {
            g->by_index[j] = g->by_index[j - 1];
        }
        g->by_index[j] = g->members[k];
        /* htp-fence.h rule 1: word 2 names the slot's device; seq 0 = fence_seq of the first request */
        ((uint32_t *) ((uint8_t *) g->fence->host + k * HTP_FENCE_SLOT_SIZE))[2] = g->members[k]->index;
        ((uint32_t *) ((uint8_t *) g->fence->host + k * HTP_FENCE_SLOT_SIZE))[1] = HTP_STATUS_OK;
    }
    if (g->members[0]->cfg->verbose) {
        htp_config_print("vnpu-htp: %s: row split over %u sessions", g->name, g->n);
    }
    *out = &g->base;
    return VNPU_STATUS_OK;
}
