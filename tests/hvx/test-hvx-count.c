/*
 * The counting build (hvx-count.h). Built twice: test-hvx-count links vnpu-hvx-counted, and there
 * every case intrinsic must count exactly one instruction of the class clang's hvx_hexagon_protos.h
 * gives it ("Instruction Type"), the HMX operations count themselves, and each thread has its own
 * counters; test-hvx-count-off links the configured vnpu-hvx (counting OFF by default), and there the
 * same work must leave every counter at zero.
 */
#include "hmx.h"
#include "hvx-cases.h"
#include "test-common.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

HVX_CASES_INT(HVX_CASE_DEF)
HVX_CASES_FLOAT(HVX_CASE_DEF)
#if VNPU_HVX_ARCH >= 73
HVX_CASES_FLOAT_V73(HVX_CASE_DEF)
#define COUNT_V73(X) HVX_CASES_FLOAT_V73(X)
#else
#define COUNT_V73(X)
#endif

struct count_case {
    const char *name;
    const char *form; /* the row's FORM, which says which helper intrinsics the wrapper adds */
    hvx_case_fn fn;
};
#define COUNT_ROW(NAME, FORM) {#NAME, #FORM, hvx_case_##NAME},
static const struct count_case cases[] = {HVX_CASES_INT(COUNT_ROW) HVX_CASES_FLOAT(COUNT_ROW) COUNT_V73(COUNT_ROW)};
#define N_CASES ((int) (sizeof(cases) / sizeof(cases[0])))

/* Run every case once on generated operands (the work both builds do). */
static void run_all_cases(void) {
    static struct hvx_case_io io;
    for (int c = 0; c < N_CASES; c++) {
        hvx_case_gen(cases[c].name, hvx_case_seed(cases[c].name, 0), &io);
        cases[c].fn(&io);
    }
}

static uint64_t total(const struct hvx_counts *c) {
    uint64_t t = 0;
    for (int i = 0; i < HVX_CLASS_COUNT; i++) {
        t += c->hvx[i];
    }
    for (int i = 0; i < HMX_OP_COUNT; i++) {
        t += c->hmx[i];
    }
    return t;
}

/* One FP16 tile stream: clear, 3 tile pairs, store. */
static void run_hmx(void) {
    static uint16_t act[3 * HMX_TILE_HALVES], wt[3 * HMX_TILE_HALVES], out[HMX_TILE_HALVES];
    static uint32_t scales[HMX_SCALES_BYTES / 4];
    static struct hmx_acc acc;
    for (int i = 0; i < 3 * HMX_TILE_HALVES; i++) {
        act[i] = 0x3C00;
        wt[i] = 0x3800;
    }
    for (int n = 0; n < HMX_TILE_COLS; n++) {
        scales[n] = 0x00003C00;
    }
    hmx_acc_clear(&acc);
    hmx_acc_mac(&acc, act, wt, 3);
    hmx_acc_store_f16(&acc, out, scales);
    assert_int_equal(out[hmx_tile_index(5, 7)], 0x5200); /* 96 * 1 * 0.5 = 48 */
}

#ifdef VNPU_HVX_COUNT

/* "Instruction Type" of clang's header -> counted class. */
static const struct {
    const char *type;
    int cls;
} type_class[] = {
    {"CVI_VA", HVX_CLASS_VA},           {"CVI_VA_DV", HVX_CLASS_VA_DV},
    {"CVI_VX", HVX_CLASS_VX},           {"CVI_VX_LATE", HVX_CLASS_VX},
    {"CVI_VX_DV", HVX_CLASS_VX_DV},     {"CVI_VS", HVX_CLASS_VS},
    {"CVI_VP", HVX_CLASS_VP},           {"CVI_VP_VS", HVX_CLASS_VP_VS},
    {"CVI_VM_ST", HVX_CLASS_ST},        {"LD", HVX_CLASS_LD},
    {"CVI_GATHER", HVX_CLASS_GATHER},   {"CVI_GATHER_DV", HVX_CLASS_GATHER},
    {"CVI_SCATTER", HVX_CLASS_SCATTER}, {"CVI_SCATTER_DV", HVX_CLASS_SCATTER},
};

/* Where the header's type is not the instruction that executes: lo and hi of a pair name one of its
 * registers (no instruction), and the MAPPING Q6_W_vzero becomes Vdd.w = vsub(Vdd.w, Vdd.w). */
static const struct {
    const char *name;
    int cls;
} name_class[] = {
    {"Q6_V_lo_W", -1},
    {"Q6_V_hi_W", -1},
    {"Q6_W_vzero", HVX_CLASS_VA_DV},
};

/* The instruction type clang's header gives NAME, copied into type[32]; 0 when NAME is not in it. */
static int header_type(const char *text, const char *name, char type[32]) {
    char key[96];
    snprintf(key, sizeof(key), " %s(", name);
    const char *p = strstr(text, key);
    if (!p) {
        return 0;
    }
    p = strstr(p, "Instruction Type:");
    assert_non_null(p);
    p += strlen("Instruction Type:");
    while (*p == ' ') {
        p++;
    }
    int n = 0;
    while (n < 31 && (p[n] == '_' || (p[n] >= 'A' && p[n] <= 'Z') || (p[n] >= '0' && p[n] <= '9'))) {
        n++;
    }
    memcpy(type, p, (size_t) n);
    type[n] = '\0';
    return 1;
}

/* What the case wrapper adds around the intrinsic (hvx-cases.h): Q6_W_vcombine_VV (VA_DV) per pair
 * operand, Q6_Q_vand_VR (VX_LATE) per predicate operand, Q6_V_vand_QR / Q6_V_vsplat_R (VX_LATE) for a
 * predicate or scalar result, and for scatter/gather the offsets' Q6_V_vand_VV (VA) and splat. Q6_V_lo_W
 * and Q6_V_hi_W are register names, not instructions, and do not count. */
static void wrapper_counts(const char *form, uint64_t want[HVX_CLASS_COUNT]) {
    const int region = !strncmp(form, "SC_", 3) || !strncmp(form, "GA_", 3);
    if (form[0] == 'Q' || form[0] == 'R') {
        want[HVX_CLASS_VX]++;
    }
    for (const char *p = strchr(form, '_') + 1; *p; p++) {
        want[HVX_CLASS_VX] += *p == 'Q';
        want[HVX_CLASS_VA_DV] += *p == 'W' && !region; /* in SC/GA forms W is the word element size */
    }
    if (region) {
        want[HVX_CLASS_VA]++;
        want[HVX_CLASS_VX]++;
    }
}

static void test_classes_match_clang_header(void **state) {
    (void) state;
    const char *path = VNPU_HVX_PROTOS;
    char *text = path[0] ? test_read_file(path, NULL) : NULL;
    test_require(text != NULL, "clang's hvx_hexagon_protos.h", "install Debian's clang (clang-14)");
    static struct hvx_case_io io;
    int checked = 0, absent = 0, bad = 0;
    for (int c = 0; c < N_CASES; c++) {
        char type[32];
        if (!header_type(text, cases[c].name, type)) {
            absent++; /* newer than the header (v73+): its class is the one documented next to it */
            continue;
        }
        int cls = -2;
        for (size_t t = 0; t < sizeof(type_class) / sizeof(type_class[0]); t++) {
            if (!strcmp(type, type_class[t].type)) {
                cls = type_class[t].cls;
            }
        }
        for (size_t t = 0; t < sizeof(name_class) / sizeof(name_class[0]); t++) {
            if (!strcmp(cases[c].name, name_class[t].name)) {
                cls = name_class[t].cls;
            }
        }
        if (cls == -2) {
            fail_msg("%s: instruction type %s has no class in hvx-count.h", cases[c].name, type);
        }
        uint64_t want[HVX_CLASS_COUNT] = {0};
        wrapper_counts(cases[c].form, want);
        if (cls >= 0) {
            want[cls]++;
        }
        hvx_case_gen(cases[c].name, hvx_case_seed(cases[c].name, 0), &io);
        hvx_counts_reset();
        cases[c].fn(&io);
        struct hvx_counts got;
        hvx_counts_read(&got);
        if (memcmp(got.hvx, want, sizeof(want)) != 0) {
            fprintf(stderr, "%s (%s, form %s): counted", cases[c].name, type, cases[c].form);
            for (int i = 0; i < HVX_CLASS_COUNT; i++) {
                if (got.hvx[i] || want[i]) {
                    fprintf(stderr, " %s %llu/%llu", hvx_class_info[i].name, (unsigned long long) got.hvx[i],
                            (unsigned long long) want[i]);
                }
            }
            fprintf(stderr, " (got/want)\n");
            bad++;
        }
        checked++;
    }
    free(text);
    printf("instruction classes: %d intrinsics checked against %s, %d not in it\n", checked, path, absent);
    assert_int_equal(bad, 0);
    assert_true(checked >= 300);
}

static void test_hmx_ops_count(void **state) {
    (void) state;
    hvx_counts_reset();
    run_hmx();
    struct hvx_counts got;
    hvx_counts_read(&got);
    assert_int_equal(got.hmx[HMX_OP_ACC_CLEAR], 1);
    assert_int_equal(got.hmx[HMX_OP_TILE_MAC], 3);
    assert_int_equal(got.hmx[HMX_OP_ACC_STORE], 1);
    assert_int_equal(total(&got), 5);
}

struct thread_work {
    struct hvx_counts seen_at_start, after;
};

static void *count_in_thread(void *arg) {
    struct thread_work *w = arg;
    hvx_counts_read(&w->seen_at_start);
    HVX_Vector v = Q6_V_vsplat_R(3);
    for (int i = 0; i < 10; i++) {
        v = Q6_Vw_vadd_VwVw(v, v);
    }
    assert_int_equal(v.w[0], 3 << 10);
    hvx_counts_read(&w->after);
    return NULL;
}

/* Counters are per thread: a thread starts at zero, and its work does not reach another thread's. */
static void test_counts_are_per_thread(void **state) {
    (void) state;
    hvx_counts_reset();
    run_all_cases();
    struct hvx_counts mine, mine_after, sum = {0};
    hvx_counts_read(&mine);
    struct thread_work w;
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, count_in_thread, &w), 0);
    assert_int_equal(pthread_join(th, NULL), 0);
    hvx_counts_read(&mine_after);
    assert_memory_equal(&mine, &mine_after, sizeof(mine));
    assert_int_equal(total(&w.seen_at_start), 0);
    assert_int_equal(w.after.hvx[HVX_CLASS_VX], 1);
    assert_int_equal(w.after.hvx[HVX_CLASS_VA], 10);
    assert_int_equal(total(&w.after), 11);
    hvx_counts_add(&sum, &mine);
    hvx_counts_add(&sum, &w.after);
    assert_int_equal(total(&sum), total(&mine) + 11);
}

#else /* counting OFF */

static void test_nothing_counts_when_off(void **state) {
    (void) state;
    hvx_counts_reset();
    run_all_cases();
    run_hmx();
    struct hvx_counts got;
    hvx_counts_read(&got);
    assert_int_equal(total(&got), 0);
}

#endif

/* The class table the cost model reads: every class has a name and uses at least one resource unit,
 * and the two-unit classes use two. */
static void test_class_table(void **state) {
    (void) state;
    for (int i = 0; i < HVX_CLASS_COUNT; i++) {
        assert_non_null(hvx_class_info[i].name);
        int units = 0;
        for (int r = 0; r < HVX_RES_COUNT; r++) {
            units += hvx_class_info[i].units[r];
        }
        const int two = i == HVX_CLASS_VA_DV || i == HVX_CLASS_VX_DV || i == HVX_CLASS_VP_VS || i == HVX_CLASS_GATHER;
        assert_int_equal(units, two ? 2 : 1);
    }
    for (int i = 0; i < HMX_OP_COUNT; i++) {
        assert_non_null(hmx_op_name[i]);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
#ifdef VNPU_HVX_COUNT
        cmocka_unit_test(test_classes_match_clang_header),
        cmocka_unit_test(test_hmx_ops_count),
        cmocka_unit_test(test_counts_are_per_thread),
#else
        cmocka_unit_test(test_nothing_counts_when_off),
#endif
        cmocka_unit_test(test_class_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
