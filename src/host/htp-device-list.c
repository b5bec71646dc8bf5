/*
 * Device lists (htp-host.h, vnpu_htp_devices_open): "HTP0,HTP1", "HTP0[0-1],HTP2", as llama.cpp's --device and the
 * Qualcomm backend's GGML_HEXAGON_DEVICES name them (design notes 9.1), for vnpu-cli's --device and the GGML
 * plugin's VNPU_DEVICES alike.
 */
#include "htp-host.h"
#include "log.h"
#include "xdna-host.h"

#include <string.h>

size_t vnpu_htp_list_item_len(const char *p) {
    size_t n = 0;
    for (int depth = 0; p[n] && (p[n] != ',' || depth > 0); n++) {
        depth += p[n] == '[' ? 1 : p[n] == ']' ? -1 : 0;
    }
    return n;
}

bool vnpu_htp_group_name(const char *name, size_t len) {
    return len > 3 && memcmp(name, "HTP", 3) == 0 && memchr(name, '[', len);
}

/* Open the NPU device called name (len bytes): HTP<n>, a group, or an XDNA partition. */
static enum vnpu_status device_open(const char *name, size_t len, bool allow_cpu, struct vnpu_device **dev) {
    uint32_t index;
    if (vnpu_htp_device_parse(name, len, &index)) {
        return vnpu_htp_device_get(index, dev);
    }
    if (vnpu_htp_group_name(name, len)) {
        return vnpu_htp_group_get(name, len, dev);
    }
    if (vnpu_xdna_device_name(name, len)) {
        return vnpu_xdna_device_open(name, len, dev);
    }
    vnpu_log_error("unknown device '%.*s' (available: %sHTP0..HTP<VNPU_NDEV - 1>, groups HTP<a>[<members>], XDNA "
                   "NPU1, NPU1Col1, NPU1Col2, NPU1Col4, NPU2, NPU2Col1, NPU2Col4, NPU2Col8)",
                   (int) len, name, allow_cpu ? "CPU, " : "");
    return VNPU_STATUS_BAD_ARG;
}

/* Whether device dev shares no session with the devices opened before it (used[] their members, *xdna whether an XDNA
 * partition was one: a list holds one, the array being one NPU); marks its own. */
static bool members_unused(const char *list, struct vnpu_device *dev, bool used[VNPU_HTP_MAX_DEVICES], bool *xdna) {
    if (vnpu_xdna_device_is(dev)) {
        if (*xdna) {
            vnpu_log_error("device list '%s': a second XDNA partition (%s): a list names one", list,
                           vnpu_device_name(dev));
            return false;
        }
        *xdna = true;
        return true;
    }
    uint32_t idx[VNPU_HTP_MAX_DEVICES];
    const uint32_t n = vnpu_htp_device_members(dev, idx);
    for (uint32_t k = 0; k < n; k++) {
        if (used[idx[k]]) {
            vnpu_log_error("device list '%s': HTP%u appears twice (a session is one device of the list)", list, idx[k]);
            return false;
        }
        used[idx[k]] = true;
    }
    return true;
}

enum vnpu_status vnpu_htp_devices_open(const char *list, bool allow_cpu, struct vnpu_device **devs, uint32_t max,
                                       uint32_t *n, bool *named_cpu) {
    *n = 0;
    bool have_cpu = false, have_xdna = false, used[VNPU_HTP_MAX_DEVICES] = {false};
    enum vnpu_status st = VNPU_STATUS_OK;
    const char *p = list;
    do { /* every comma-separated item, the empty ones too ("HTP0," names an empty device) */
        const size_t len = vnpu_htp_list_item_len(p);
        const bool is_cpu = allow_cpu && len == 3 && memcmp(p, "CPU", 3) == 0;
        if (len == 0) {
            vnpu_log_error("device list '%s': empty name", list);
            st = VNPU_STATUS_BAD_ARG;
        } else if (is_cpu) {
            if (have_cpu) {
                vnpu_log_error("device list '%s': CPU appears twice", list);
                st = VNPU_STATUS_BAD_ARG;
            }
            have_cpu = true;
        } else if (*n == max) {
            vnpu_log_error("device list '%s': more than %u NPU devices", list, max);
            st = VNPU_STATUS_BAD_ARG;
        } else if ((st = device_open(p, len, allow_cpu, &devs[*n])) == VNPU_STATUS_OK) {
            (*n)++;
            st = members_unused(list, devs[*n - 1], used, &have_xdna) ? VNPU_STATUS_OK : VNPU_STATUS_BAD_ARG;
        }
        p += len;
    } while (st == VNPU_STATUS_OK && *p++ == ',');
    if (st != VNPU_STATUS_OK) {
        for (uint32_t d = 0; d < *n; d++) {
            vnpu_device_free(devs[d]);
        }
        *n = 0;
    }
    if (named_cpu) {
        *named_cpu = have_cpu && st == VNPU_STATUS_OK;
    }
    return st;
}
