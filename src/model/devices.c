/* Device lists: "CPU", "HTP0,HTP1", ... as llama.cpp's --device names them. */
#include "llama.h"

#include "cpu-backend.h"
#include "htp-host.h"
#include "log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Open the device called name (len bytes). */
static enum vnpu_status device_open(const char *name, size_t len, int n_threads, struct vnpu_device **dev) {
    if (len == 3 && memcmp(name, "CPU", 3) == 0) {
        return vnpu_cpu_device_new(n_threads, dev);
    }
    uint32_t index;
    if (vnpu_htp_device_parse(name, len, &index)) {
        return vnpu_htp_device_get(index, dev);
    }
    vnpu_log_error("unknown device '%.*s' (available: CPU, HTP0..HTP<VNPU_NDEV - 1>)", (int) len, name);
    return VNPU_STATUS_BAD_ARG;
}

enum vnpu_status llama_devices_open(const char *list, int n_threads, struct vnpu_device **devs, int *n_devs) {
    *n_devs = 0;
    bool have_cpu = false;
    enum vnpu_status st = VNPU_STATUS_OK;
    const char *p = list;
    do { /* every comma-separated item, the empty ones too ("CPU," names an empty device) */
        const size_t len = strcspn(p, ",");
        const bool is_cpu = len == 3 && memcmp(p, "CPU", 3) == 0;
        if (len == 0 || *n_devs == LLAMA_MAX_DEVICES - 1) {
            vnpu_log_error("device list '%s': %s", list, len == 0 ? "empty name" : "too many devices");
            st = VNPU_STATUS_BAD_ARG;
            break;
        }
        bool twice = is_cpu && have_cpu;
        for (int d = 0; d < *n_devs; d++) {
            const char *name = vnpu_device_name(devs[d]);
            twice = twice || (strlen(name) == len && memcmp(name, p, len) == 0);
        }
        if (twice) {
            vnpu_log_error("device list '%s': %.*s appears twice", list, (int) len, p);
            st = VNPU_STATUS_BAD_ARG;
        } else if (is_cpu) {
            have_cpu = true; /* opened last, below */
        } else if ((st = device_open(p, len, n_threads, &devs[*n_devs])) == VNPU_STATUS_OK) {
            (*n_devs)++;
        }
        p += len;
    } while (st == VNPU_STATUS_OK && *p++ == ',');
    /* The CPU last, named or not: the fallback for ops no NPU device takes. */
    if (st == VNPU_STATUS_OK && (st = vnpu_cpu_device_new(n_threads, &devs[*n_devs])) == VNPU_STATUS_OK) {
        (*n_devs)++;
    }
    if (st != VNPU_STATUS_OK) {
        for (int d = 0; d < *n_devs; d++) {
            vnpu_device_free(devs[d]);
        }
        *n_devs = 0;
    }
    return st;
}

enum vnpu_status llama_devices_default(char **list) {
    *list = NULL;
    uint32_t n;
    enum vnpu_status st = vnpu_htp_device_count(&n);
    if (st != VNPU_STATUS_OK) {
        return st;
    }
    const size_t size = (size_t) n * sizeof("HTP15,");
    char *s = malloc(size);
    if (!s) {
        vnpu_log_error("cannot allocate the default device list");
        return VNPU_STATUS_NO_MEMORY;
    }
    size_t len = 0;
    for (uint32_t i = 0; i < n; i++) {
        len += (size_t) snprintf(s + len, size - len, "%sHTP%u", i ? "," : "", i);
    }
    *list = s;
    return VNPU_STATUS_OK;
}

int llama_layer_device(int il, int n_layer, int n_split) {
    int d = 0;
    while (d < n_split - 1 && (int64_t) (d + 1) * (n_layer + 1) <= (int64_t) il * n_split) {
        d++;
    }
    return d;
}

void llama_layer_devices(struct vnpu_device **devs, int n_devs, int n_layer, struct vnpu_device **layer_dev) {
    const int n_split = n_devs - 1; /* all but the CPU, which llama_devices_open lists last */
    for (int il = 0; il <= n_layer; il++) {
        layer_dev[il] = n_split > 0 ? devs[llama_layer_device(il, n_layer, n_split)] : NULL;
    }
}
