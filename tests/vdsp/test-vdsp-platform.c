/*
 * The platform's memory side: the target table, shared buffers, the session window (aliasing, exhaustion,
 * guard pages) and the fault guard (unmapped addresses, VTCM guards, SIGBUS, nesting, contexts released on
 * a fault, host bugs still crashing).
 */
#include "test-vdsp.h"

#include <stdlib.h>
#include <string.h>

static const enum vdsp_arch all_archs[] = {VDSP_ARCH_V73, VDSP_ARCH_V75, VDSP_ARCH_V79, VDSP_ARCH_V81};

static void test_targets(void **state) {
    (void) state;
    for (size_t i = 0; i < sizeof(all_archs) / sizeof(all_archs[0]); i++) {
        struct vdsp_target t;
        assert_true(vdsp_target_get(all_archs[i], &t));
        assert_int_equal(t.arch, all_archs[i]);
        assert_int_equal(t.vtcm_size, 8 * TEST_MIB);
        /* upstream's max_vmem (GGML_HEXAGON_VMEM's defaults) and HAP_mmap's limit on v73 */
        assert_int_equal(t.window_size, (all_archs[i] == VDSP_ARCH_V73 ? 3000 : 3200) * TEST_MIB);
        assert_int_equal(t.max_mapping, (all_archs[i] == VDSP_ARCH_V73 ? 2048 : 4096) * TEST_MIB);
        size_t window = 0;
        assert_int_equal(vdsp_window_size_default(all_archs[i], &window), VNPU_STATUS_OK);
        assert_int_equal(window, t.window_size);
        assert_in_range(t.n_hvx_contexts, 1, t.n_hw_threads);
        assert_int_equal(t.n_hmx, 1);
        assert_true(t.clock_mhz > 0);
        char text[8];
        enum vdsp_arch parsed;
        snprintf(text, sizeof(text), "v%u", (unsigned) all_archs[i]);
        assert_true(vdsp_arch_parse(text, &parsed));
        assert_int_equal(parsed, all_archs[i]);
        assert_true(vdsp_arch_parse(text + 1, &parsed));
        assert_int_equal(parsed, all_archs[i]);
    }
    struct vdsp_target t;
    assert_true(vdsp_target_get(VDSP_ARCH_V79, &t));
    assert_int_equal(t.n_hvx_contexts, 6);
    assert_int_equal(t.n_hw_threads, 8);
    assert_true(vdsp_target_get(VDSP_ARCH_V81, &t));
    assert_int_equal(t.n_hvx_contexts, 8);
    assert_false(vdsp_target_get((enum vdsp_arch) 80, &t));

    enum vdsp_arch a = VDSP_ARCH_V73;
    assert_true(vdsp_arch_parse("V81", &a));
    assert_int_equal(a, VDSP_ARCH_V81);
    static const char *const bad[] = {"", "v", "v80", "79x", "-79", " 79", "v4294967375", "x79", "v 79"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        a = VDSP_ARCH_V73;
        assert_false(vdsp_arch_parse(bad[i], &a));
        assert_int_equal(a, VDSP_ARCH_V73);
    }
}

static void test_buffer_alloc(void **state) {
    (void) state;
    struct test_log log;
    memset(&log, 0, sizeof(log));
    vnpu_log_set(test_log_collect, &log, VNPU_LOG_WARN);
    struct vdsp_buffer *b = (struct vdsp_buffer *) 1;
    assert_int_equal(vdsp_buffer_alloc(0, "empty", &b), VNPU_STATUS_BAD_ARG);
    assert_null(b);
    assert_int_equal(log.n_errors, 1);
    assert_non_null(strstr(log.text, "0 bytes for 'empty'"));

    assert_int_equal(vdsp_buffer_alloc(10000, "probe-buf", &b), VNPU_STATUS_OK);
    assert_true(b->fd >= 0);
    assert_int_equal(b->size, 10000);
    assert_int_equal((uintptr_t) b->host % 128, 0);
    for (size_t i = 0; i < b->size; i++) {
        assert_int_equal(((uint8_t *) b->host)[i], 0);
    }
    size_t maps_len = 0;
    char *maps = test_read_file("/proc/self/maps", &maps_len);
    assert_non_null(maps);
    assert_non_null(strstr(maps, "vnpu:probe-buf"));
    free(maps);
    vdsp_buffer_free(b);
    vdsp_buffer_free(NULL);
    vnpu_log_set(NULL, NULL, VNPU_LOG_WARN);
}

static void test_window_alias(void **state) {
    (void) state;
    const size_t page = test_page_size();
    struct vdsp_device *dev = test_device_open(VDSP_ARCH_V79, 16, 1, false);
    struct vdsp_buffer *b;
    const size_t size = 3 * page + 100;
    assert_int_equal(vdsp_buffer_alloc(size, "alias", &b), VNPU_STATUS_OK);
    uint32_t a1, a2;
    assert_int_equal(vdsp_mmap(dev, b->fd, size, &a1), 0);
    assert_int_equal(vdsp_mmap(dev, b->fd, size, &a2), 0);
    assert_true(a1 != 0 && a2 != 0);
    assert_int_equal(a1 % page, 0);
    assert_int_equal(a2 % page, 0);
    assert_true(a2 >= a1 + 5 * page); /* 4 pages and a guard page */

    uint8_t *host = b->host;
    uint8_t *win = vdsp_window_base(dev);
    host[0] = 1;
    host[size - 1] = 2;
    assert_int_equal(win[a1], 1);
    assert_int_equal(win[a1 + size - 1], 2);
    assert_int_equal(win[a2], 1);
    win[a1 + 5000] = 77;
    assert_int_equal(host[5000], 77);
    assert_int_equal(win[a2 + 5000], 77);

    vdsp_munmap(dev, a1);
    vdsp_munmap(dev, a2);
    vdsp_buffer_free(b);
    vdsp_device_close(dev);
}

static void test_window_exhaustion(void **state) {
    (void) state;
    const size_t page = test_page_size();
    struct test_log log;
    memset(&log, 0, sizeof(log));
    vnpu_log_set(test_log_collect, &log, VNPU_LOG_WARN);
    /* 1 MiB: page 0, then room for two 100-page buffers with their guard pages, not three. */
    struct vdsp_device *dev = test_device_open(VDSP_ARCH_V79, 1, 1, false);
    const size_t size = 100 * page;
    struct vdsp_buffer *b;
    assert_int_equal(vdsp_buffer_alloc(size, "big", &b), VNPU_STATUS_OK);
    uint32_t a1, a2, a3;
    assert_int_equal(vdsp_mmap(dev, b->fd, size, &a1), 0);
    assert_int_equal(vdsp_mmap(dev, b->fd, size, &a2), 0);
    assert_int_equal(a1, page);
    assert_int_equal(a2, 102 * page);
    assert_int_equal(vdsp_mmap(dev, b->fd, size, &a3), -1);
    assert_int_equal(log.n_errors, 0); /* no room is the sliding window's normal case, not an error */
    vdsp_munmap(dev, a1);
    assert_int_equal(vdsp_mmap(dev, b->fd, size, &a3), 0);
    assert_int_equal(a3, page);

    struct vdsp_buffer *huge;
    assert_int_equal(vdsp_buffer_alloc(2 * TEST_MIB, "huge", &huge), VNPU_STATUS_OK);
    assert_int_equal(vdsp_mmap(dev, huge->fd, huge->size, &a1), -1);
    assert_int_equal(log.n_errors, 0);

    /* Not a buffer of the size claimed: -2 (no unmap would help) and an error. */
    assert_int_equal(vdsp_mmap(dev, -1, page, &a1), -2);
    assert_non_null(strstr(log.text, "fd -1"));
    assert_int_equal(vdsp_mmap(dev, b->fd, size + 1, &a1), -2);
    assert_non_null(strstr(log.text, "asked for"));
    assert_int_equal(vdsp_mmap(dev, b->fd, 0, &a1), -2);
    vdsp_munmap(dev, 0x12345000u);
    assert_non_null(strstr(log.text, "nothing is mapped at device address 0x12345000"));
    vdsp_munmap(dev, a2);
    vdsp_munmap(dev, a3);
    vdsp_device_close(dev);

    /* The table of mappings is finite too: one page plus a guard each in a 16 MiB window. */
    dev = test_device_open(VDSP_ARCH_V79, 16, 1, false);
    uint32_t addr[VDSP_MAX_MAPPINGS];
    for (int i = 0; i < VDSP_MAX_MAPPINGS; i++) {
        assert_int_equal(vdsp_mmap(dev, b->fd, page, &addr[i]), 0);
    }
    assert_int_equal(vdsp_mmap(dev, b->fd, page, &a1), -1);
    vdsp_munmap(dev, addr[7]);
    assert_int_equal(vdsp_mmap(dev, b->fd, page, &a1), 0);
    assert_int_equal(a1, addr[7]);
    vdsp_device_close(dev);
    vdsp_buffer_free(huge);
    vdsp_buffer_free(b);
    vnpu_log_set(NULL, NULL, VNPU_LOG_WARN);
}

struct access {
    volatile uint8_t *p;
    bool store;
};

static void access_byte(void *arg) {
    const struct access *a = arg;
    if (a->store) {
        *a->p = 1;
    } else {
        (void) *a->p;
    }
}

/* Access p on a fresh guarded call of dev and return the fault. */
static enum vdsp_fault access_guarded(struct vdsp_device *dev, uint8_t *p, bool store) {
    struct access a = {.p = p, .store = store};
    return vdsp_call_guarded(dev, access_byte, &a);
}

static void test_guard_window(void **state) {
    (void) state;
    const size_t page = test_page_size();
    struct vdsp_device *dev = test_device_open(VDSP_ARCH_V79, 16, 1, false);
    assert_false(vdsp_device_faulted(dev));
    assert_string_equal(vdsp_fault_text(dev), "");
    assert_int_equal(access_guarded(dev, vdsp_window_base(dev) + 0x80000, false), VDSP_FAULT_ADDRESS);
    assert_string_equal(vdsp_fault_text(dev), TEST_LOAD_FROM " device address 0x00080000 (not mapped)");
    assert_true(vdsp_device_faulted(dev));
    vdsp_device_close(dev);

    dev = test_device_open(VDSP_ARCH_V79, 16, 1, false);
    assert_int_equal(access_guarded(dev, vdsp_window_base(dev) + 8, true), VDSP_FAULT_ADDRESS);
    assert_string_equal(vdsp_fault_text(dev), TEST_STORE_TO " device address 0x00000008 (page 0, never mapped)");
    vdsp_device_close(dev);

    /* A mapped page is reachable, the guard page after it and the page after an unmap are not. */
    dev = test_device_open(VDSP_ARCH_V79, 16, 1, false);
    struct vdsp_buffer *b;
    assert_int_equal(vdsp_buffer_alloc(100, "one-page", &b), VNPU_STATUS_OK);
    uint32_t a;
    assert_int_equal(vdsp_mmap(dev, b->fd, 100, &a), 0);
    assert_int_equal(access_guarded(dev, vdsp_window_base(dev) + a + page - 1, true), VDSP_FAULT_NONE);
    assert_int_equal(access_guarded(dev, vdsp_window_base(dev) + a + page, false), VDSP_FAULT_ADDRESS);
    char want[160];
    snprintf(want, sizeof(want),
             TEST_LOAD_FROM " device address 0x%08zx (guard page after the buffer at 0x%08x, 100 bytes)", a + page, a);
    assert_string_equal(vdsp_fault_text(dev), want);
    vdsp_munmap(dev, a);
    vdsp_device_close(dev);

    dev = test_device_open(VDSP_ARCH_V79, 16, 1, false);
    assert_int_equal(vdsp_mmap(dev, b->fd, 100, &a), 0);
    vdsp_munmap(dev, a);
    assert_int_equal(access_guarded(dev, vdsp_window_base(dev) + a, false), VDSP_FAULT_ADDRESS);
    snprintf(want, sizeof(want), TEST_LOAD_FROM " device address 0x%08x (not mapped)", a);
    assert_string_equal(vdsp_fault_text(dev), want);
    vdsp_device_close(dev);
    vdsp_buffer_free(b);
}

static void test_guard_sigbus(void **state) {
    (void) state;
    const size_t page = test_page_size();
    struct vdsp_device *dev = test_device_open(VDSP_ARCH_V79, 16, 1, false);
    struct vdsp_buffer *b;
    assert_int_equal(vdsp_buffer_alloc(2 * page, "shrunk", &b), VNPU_STATUS_OK);
    uint32_t a;
    assert_int_equal(vdsp_mmap(dev, b->fd, 2 * page, &a), 0);
    assert_int_equal(ftruncate(b->fd, 0), 0); /* the pages behind the mapping are gone: SIGBUS */
    assert_int_equal(access_guarded(dev, vdsp_window_base(dev) + a + page, false), VDSP_FAULT_ADDRESS);
    char want[160];
    snprintf(want, sizeof(want), TEST_LOAD_FROM " device address 0x%08zx (buffer at 0x%08x, %zu bytes)", a + page, a,
             2 * page);
    assert_string_equal(vdsp_fault_text(dev), want);
    vdsp_munmap(dev, a);
    vdsp_device_close(dev);
    vdsp_buffer_free(b);
}

static void test_guard_vtcm(void **state) {
    (void) state;
    struct vdsp_device *dev = test_device_open(VDSP_ARCH_V79, 16, 1, false);
    uint8_t *vtcm = vdsp_vtcm_base(dev);
    const size_t size = vdsp_vtcm_size(dev);
    assert_int_equal(size, 8 * TEST_MIB);
    assert_int_equal((uintptr_t) vtcm % 2048, 0);
    assert_int_equal(access_guarded(dev, vtcm, true), VDSP_FAULT_NONE);
    assert_int_equal(access_guarded(dev, vtcm + size - 1, true), VDSP_FAULT_NONE);
    assert_false(vdsp_device_faulted(dev));
    assert_int_equal(access_guarded(dev, vtcm - 1, false), VDSP_FAULT_ADDRESS);
    assert_string_equal(vdsp_fault_text(dev), TEST_LOAD_FROM " VTCM-1 (before the start of VTCM)");
    vdsp_device_close(dev);

    dev = test_device_open(VDSP_ARCH_V79, 16, 1, false);
    vtcm = vdsp_vtcm_base(dev);
    assert_int_equal(access_guarded(dev, vtcm + size + 10, true), VDSP_FAULT_ADDRESS);
    assert_string_equal(vdsp_fault_text(dev),
                        TEST_STORE_TO " VTCM+0x80000a (10 bytes past the end of VTCM, 8388608 bytes)");
    vdsp_device_close(dev);
}

struct nested {
    struct vdsp_device *dev;
    enum vdsp_fault inner;
    bool after;
};

static void nested_outer(void *arg) {
    struct nested *n = arg;
    n->inner = access_guarded(n->dev, vdsp_window_base(n->dev) + 0x100000, false);
    n->after = true;
}

static void test_guard_nested(void **state) {
    (void) state;
    struct vdsp_device *dev = test_device_open(VDSP_ARCH_V79, 16, 1, false);
    struct nested n = {.dev = dev};
    assert_int_equal(vdsp_call_guarded(dev, nested_outer, &n), VDSP_FAULT_NONE);
    assert_int_equal(n.inner, VDSP_FAULT_ADDRESS);
    assert_true(n.after);
    /* Still guarded after the inner call unwound: the next fault is caught too. */
    assert_int_equal(access_guarded(dev, vdsp_window_base(dev) + 0x200000, false), VDSP_FAULT_ADDRESS);
    vdsp_device_close(dev);
}

static void lock_then_fault(void *arg) {
    struct vdsp_device *dev = arg;
    vdsp_hvx_lock(dev);
    vdsp_hvx_lock(dev);
    vdsp_hmx_lock(dev);
    (void) *(volatile uint8_t *) (vdsp_window_base(dev) + 0x300000);
}

static void test_guard_releases_contexts(void **state) {
    (void) state;
    struct vdsp_device *dev = test_device_open(VDSP_ARCH_V79, 16, 1, false);
    const uint32_t n = dev->target.n_hvx_contexts;
    assert_int_equal(vdsp_call_guarded(dev, lock_then_fault, dev), VDSP_FAULT_ADDRESS);
    assert_int_equal(vdsp_hvx_depth(), 0);
    assert_int_equal(vdsp_hmx_depth(), 0);
    assert_int_equal(atomic_load(&dev->hvx.count), n);
    assert_int_equal(atomic_load(&dev->hmx.count), 1);

    /* A context held before the call stays held. */
    vdsp_hvx_lock(dev);
    assert_int_equal(vdsp_call_guarded(dev, lock_then_fault, dev), VDSP_FAULT_ADDRESS);
    assert_int_equal(vdsp_hvx_depth(), 1);
    assert_int_equal(atomic_load(&dev->hvx.count), n - 1);
    vdsp_hvx_unlock(dev);
    assert_int_equal(atomic_load(&dev->hvx.count), n);
    vdsp_device_close(dev);
}

static volatile uintptr_t wild_address = 64; /* not in any window: a host bug */

static void wild_pointer(void *arg) {
    (void) arg;
    (void) *(volatile int *) wild_address;
}

static void crash_guarded_host_bug(void) {
    struct vdsp_device *dev = test_device_open(VDSP_ARCH_V79, 16, 1, false);
    vdsp_call_guarded(dev, wild_pointer, NULL);
}

static void crash_unguarded_window(void) {
    struct vdsp_device *dev = test_device_open(VDSP_ARCH_V79, 16, 1, false);
    (void) *(volatile uint8_t *) (vdsp_window_base(dev) + 0x1000);
}

static void survive_guarded_window(void) {
    struct vdsp_device *dev = test_device_open(VDSP_ARCH_V79, 16, 1, false);
    if (access_guarded(dev, vdsp_window_base(dev) + 0x1000, false) != VDSP_FAULT_ADDRESS) {
        _exit(2);
    }
    vdsp_device_close(dev);
}

static void test_guard_host_bugs_crash(void **state) {
    (void) state;
    assert_true(test_child_crashed(test_fork_status(crash_guarded_host_bug)));
    assert_true(test_child_crashed(test_fork_status(crash_unguarded_window)));
    const int status = test_fork_status(survive_guarded_window);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void test_device_log(void **state) {
    (void) state;
    struct test_log log;
    memset(&log, 0, sizeof(log));
    vnpu_log_set(test_log_collect, &log, VNPU_LOG_INFO);
    setenv("VNPU_VERBOSE", "2", 1);
    struct vdsp_device *dev = test_device_open(VDSP_ARCH_V79, 1, 1, false);
    vdsp_log(dev, "op %d took %s", 3, "long");
    assert_string_equal(log.text, "HTP7: op 3 took long\n");
    vdsp_device_close(dev);
    setenv("VNPU_VERBOSE", "1", 1); /* FARF messages only from 2 on */
    dev = test_device_open(VDSP_ARCH_V79, 1, 1, false);
    vdsp_log(dev, "hidden");
    assert_int_equal(log.len, strlen("HTP7: op 3 took long\n"));
    vdsp_device_close(dev);
    unsetenv("VNPU_VERBOSE");
    vnpu_log_set(NULL, NULL, VNPU_LOG_WARN);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_targets),
        cmocka_unit_test(test_buffer_alloc),
        cmocka_unit_test(test_window_alias),
        cmocka_unit_test(test_window_exhaustion),
        cmocka_unit_test(test_guard_window),
        cmocka_unit_test(test_guard_sigbus),
        cmocka_unit_test(test_guard_vtcm),
        cmocka_unit_test(test_guard_nested),
        cmocka_unit_test(test_guard_releases_contexts),
        cmocka_unit_test(test_guard_host_bugs_crash),
        cmocka_unit_test(test_device_log),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
