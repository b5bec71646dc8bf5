/*
 * Helpers for the platform tests: a bare device (no session, no NPU library) and a forked child for the
 * checks that a host bug still crashes.
 */
#ifndef VNPU_TEST_VDSP_H
#define VNPU_TEST_VDSP_H

#include "test-common.h"
#include "vdsp-impl.h"

#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#define TEST_MIB ((size_t) 1 << 20)

/* What the fault text calls a faulting load (the access kind is known on x86-64 only). */
#if defined(__x86_64__)
#define TEST_LOAD_FROM "load from"
#define TEST_STORE_TO  "store to"
#else
#define TEST_LOAD_FROM "access to"
#define TEST_STORE_TO  "access to"
#endif

/* A device of arch with a window of window_mib MiB and n_threads DMA queues; asserts success. */
static inline struct vdsp_device *test_device_open(enum vdsp_arch arch, size_t window_mib, uint32_t n_threads,
                                                   bool strict) {
    struct vdsp_target target;
    assert_true(vdsp_target_get(arch, &target));
    const struct vdsp_device_params p = {
        .target = &target, .id = 7, .n_threads = n_threads, .window_size = window_mib * TEST_MIB, .dma_strict = strict};
    struct vdsp_device *dev = NULL;
    assert_int_equal(vdsp_device_open(&p, &dev), VNPU_STATUS_OK);
    assert_non_null(dev);
    return dev;
}

static inline size_t test_page_size(void) {
    return (size_t) sysconf(_SC_PAGESIZE);
}

/* Run fn in a forked child with stderr silenced and the default fault actions (not cmocka's handler, which
 * would carry on with the test run in the child); returns its wait status. */
static inline int test_fork_status(void (*fn)(void)) {
    fflush(NULL);
    const pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stderr)) {
            _exit(3);
        }
        signal(SIGSEGV, SIG_DFL);
        signal(SIGBUS, SIG_DFL);
        fn();
        _exit(0);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return status;
}

/* The child died of a signal or failed (ASan reports a SEGV and exits 1): it did not survive. */
static inline bool test_child_crashed(int status) {
    return WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) != 0 && WEXITSTATUS(status) != 3);
}

#endif /* VNPU_TEST_VDSP_H */
