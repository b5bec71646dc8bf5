/* Device lists: "CPU", "HTP0,HTP1", "HTP0[0-1]", ... as llama.cpp's --device names them, and the split modes. */
#include "llama.h"

#include "cpu-backend.h"
#include "htp-host.h"
#include "log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum vnpu_status llama_devices_open(const char *list, int n_threads, struct vnpu_device **devs, int *n_devs) {
    uint32_t n;
    enum vnpu_status st = vnpu_htp_devices_open(list, true, devs, LLAMA_MAX_DEVICES - 1, &n, NULL);
    *n_devs = (int) n;
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

enum vnpu_status llama_devices_split(const char *list, enum vnpu_split_mode mode, char **out) {
    *out = NULL;
    const size_t size = strlen(list) + 8;
    char *s = malloc(size), *members = malloc(size);
    if (!s || !members) {
        free(s);
        free(members);
        vnpu_log_error("cannot allocate the device list");
        return VNPU_STATUS_NO_MEMORY;
    }
    enum vnpu_status st = VNPU_STATUS_OK;
    memcpy(s, list, strlen(list) + 1);    /* the list as it is, but for a row split of two or more NPU devices */
    if (mode == VNPU_SPLIT_MODE_TENSOR) { /* each NPU device of the list computes a slice of every layer */
        for (const char *p = list; st == VNPU_STATUS_OK && *p; p += *p == ',') {
            const size_t len = vnpu_htp_list_item_len(p);
            uint32_t index;
            if (vnpu_htp_group_name(p, len)) {
                vnpu_log_error("device list '%s': split mode tensor splits the matrices over single HTP<n> devices, "
                               "and '%.*s' is a row-split group: list its members as HTP<n> for a tensor split, or "
                               "use -sm row (or layer) with the group",
                               list, (int) len, p);
                st = VNPU_STATUS_BAD_ARG;
            } else if (!(len == 3 && memcmp(p, "CPU", 3) == 0) && !vnpu_htp_device_parse(p, len, &index)) {
                vnpu_log_error("device list '%s': split mode tensor splits the matrices over the listed HTP<n> "
                               "devices, and '%.*s' is not one",
                               list, (int) len, p);
                st = VNPU_STATUS_BAD_ARG;
            }
            p += len;
        }
    } else if (mode != VNPU_SPLIT_MODE_LAYER) {
        /* row: the listed HTP<n> become one group, named for the first; a list of one group is one already; the
         * CPU stays the fallback */
        size_t n_members = 0, len_members = 0, n_groups = 0;
        bool cpu = false;
        uint32_t first = 0;
        for (const char *p = list;; p++) {
            const size_t len = vnpu_htp_list_item_len(p);
            uint32_t index;
            if (len == 3 && memcmp(p, "CPU", 3) == 0) {
                cpu = true;
            } else if (vnpu_htp_group_name(p, len)) {
                n_groups++;
            } else if (vnpu_htp_device_parse(p, len, &index)) {
                first = n_members++ ? first : index;
                len_members +=
                    (size_t) snprintf(members + len_members, size - len_members, "%s%u", len_members ? "," : "", index);
            } else {
                vnpu_log_error("device list '%s': split mode row groups the listed HTP<n> devices, and '%.*s' is not "
                               "one",
                               list, (int) len, p);
                st = VNPU_STATUS_BAD_ARG;
                break;
            }
            p += len;
            if (!*p) {
                break;
            }
        }
        if (st == VNPU_STATUS_OK && n_groups > 0 && n_groups + n_members > 1) {
            vnpu_log_error("device list '%s': split mode row makes one group of the NPU devices, and the list "
                           "names a group next to other NPU devices: name every member in one group (HTP0[0-3]), "
                           "or split the layers over the groups with -sm layer",
                           list);
            st = VNPU_STATUS_BAD_ARG;
        }
        if (st == VNPU_STATUS_OK && n_members > 1) { /* one NPU device or none: nothing to split, as it is */
            snprintf(s, size, "HTP%u[%s]%s", first, members, cpu ? ",CPU" : "");
        }
    }
    free(members);
    if (st != VNPU_STATUS_OK) {
        free(s);
        return st;
    }
    *out = s;
    return VNPU_STATUS_OK;
}

int llama_layer_device(int il, int n_layer, int n_split) {
    int d = 0;
    while (d < n_split - 1 && (int64_t) (d + 1) * (n_layer + 1) <= (int64_t) il * n_split) {
        d++;
    }
    return d;
}

void llama_layer_devices(struct vnpu_device **devs, int n_devs, int n_layer, int n_part,
                         struct vnpu_device **layer_dev) {
    const int n_split = n_part > 0 ? 1 : n_devs - 1; /* all but the CPU, which llama_devices_open lists last */
    for (int il = 0; il <= n_layer; il++) {
        layer_dev[il] = n_split > 0 ? devs[llama_layer_device(il, n_layer, n_split)] : NULL;
    }
}
