/*
 * Counters of the counting build (see hvx-count.h), and the resource table the cost model reads.
 * Freestanding (no libc): it is also compiled for Hexagon by the CI compile check.
 */
#include "hvx-count.h"

#include <stddef.h>

/* Resource units per class, from the HVX resource model (seed 002 §1.2.3). ALU (VA) instructions may
 * issue on any free resource, so they are kept apart in HVX_RES_ALU for the cost model to place. */
const struct hvx_class_info hvx_class_info[HVX_CLASS_COUNT] = {
    [HVX_CLASS_LD] = {.name = "LD", .units = {[HVX_RES_LOAD] = 1}},
    [HVX_CLASS_ST] = {.name = "ST", .units = {[HVX_RES_STORE] = 1}},
    [HVX_CLASS_VA] = {.name = "VA", .units = {[HVX_RES_ALU] = 1}},
    [HVX_CLASS_VA_DV] = {.name = "VA_DV", .units = {[HVX_RES_ALU] = 2}},
    [HVX_CLASS_VX] = {.name = "VX", .units = {[HVX_RES_MPY] = 1}},
    [HVX_CLASS_VX_DV] = {.name = "VX_DV", .units = {[HVX_RES_MPY] = 2}},
    [HVX_CLASS_VS] = {.name = "VS", .units = {[HVX_RES_SHIFT] = 1}},
    [HVX_CLASS_VP] = {.name = "VP", .units = {[HVX_RES_PERMUTE] = 1}},
    [HVX_CLASS_VP_VS] = {.name = "VP_VS", .units = {[HVX_RES_PERMUTE] = 1, [HVX_RES_SHIFT] = 1}},
    [HVX_CLASS_GATHER] = {.name = "GATHER", .units = {[HVX_RES_LOAD] = 1, [HVX_RES_STORE] = 1}},
    [HVX_CLASS_SCATTER] = {.name = "SCATTER", .units = {[HVX_RES_STORE] = 1}},
};
_Static_assert(HVX_CLASS_COUNT == 11, "new HVX class: add its row to hvx_class_info");

const char *const hmx_op_name[HMX_OP_COUNT] = {
    [HMX_OP_ACC_CLEAR] = "ACC_CLEAR",
    [HMX_OP_TILE_MAC] = "TILE_MAC",
    [HMX_OP_ACC_STORE] = "ACC_STORE",
};
_Static_assert(HMX_OP_COUNT == 3, "new HMX op: add its name to hmx_op_name");

_Thread_local struct hvx_counts hvx_counts_tls;
_Thread_local uint8_t hvx_scope_tls;

/* Registered names, by id; hvx_scope_n of them are valid (published with release order after the name). */
static const char *hvx_scope_names[HVX_MAX_SCOPES] = {"other"};
static uint32_t hvx_scope_n = 1;
static uint32_t hvx_scope_lock_word;

static int hvx_scope_same(const char *a, const char *b) {
    while (*a && *a == *b) {
        a++;
        b++;
    }
    return *a == *b;
}

uint8_t hvx_scope_register(const char *name) {
    while (__atomic_exchange_n(&hvx_scope_lock_word, 1, __ATOMIC_ACQUIRE)) {
    }
    uint32_t n = hvx_scope_n, id = 0;
    for (uint32_t i = 1; i < n && id == 0; i++) {
        id = hvx_scope_same(hvx_scope_names[i], name) ? i : 0;
    }
    if (id == 0 && n < HVX_MAX_SCOPES) {
        hvx_scope_names[n] = name;
        __atomic_store_n(&hvx_scope_n, n + 1, __ATOMIC_RELEASE);
        id = n;
    }
    __atomic_store_n(&hvx_scope_lock_word, 0, __ATOMIC_RELEASE);
    return (uint8_t) id;
}

const char *hvx_scope_name(uint8_t id) {
    return id < __atomic_load_n(&hvx_scope_n, __ATOMIC_ACQUIRE) ? hvx_scope_names[id] : NULL;
}

uint32_t hvx_scope_count(void) {
    return __atomic_load_n(&hvx_scope_n, __ATOMIC_ACQUIRE);
}

void hvx_counts_read(struct hvx_counts *out) {
    *out = hvx_counts_tls;
}

void hvx_counts_reset(void) {
    hvx_counts_tls = (struct hvx_counts){0};
}

void hvx_counts_add(struct hvx_counts *acc, const struct hvx_counts *add) {
    for (int i = 0; i < HVX_CLASS_COUNT; i++) {
        acc->hvx[i] += add->hvx[i];
    }
    for (int i = 0; i < HMX_OP_COUNT; i++) {
        acc->hmx[i] += add->hmx[i];
    }
    for (int i = 0; i < HVX_MAX_SCOPES; i++) {
        acc->scope[i] += add->scope[i];
        acc->trips[i] += add->trips[i];
    }
}
