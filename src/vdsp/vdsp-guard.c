/*
 * Faults: a crashed DSP process domain, not a crashed host. NPU code runs under vdsp_call_guarded, which
 * pushes a frame (sigsetjmp, no signal mask saved: no syscall on the way in) on a per-thread list. The
 * SIGSEGV/SIGBUS handler siglongjmps to the innermost frame only when the thread is inside a guarded call
 * and the faulting address lies in that device's window or VTCM guard pages; any other fault goes to the
 * handler installed before ours (ASan's, when built with it) or to the default action, so host bugs still
 * crash. Every device open checks the handler is still ours and, if someone replaced it (cmocka does around
 * each test), installs it again in front of theirs. The DMA engine ends a call the same way when a
 * descriptor breaks its bounds (no signal involved), and so does the NPU library's vdsp_call_abort, which is no
 * fault: it records no text and leaves the device serving.
 *
 * After the jump the landing code, back in normal context, unblocks the signals, releases the HVX/HMX
 * contexts the call had taken and, for a signal, describes the fault and marks the device faulted (the DMA engine
 * records its fault before it raises it).
 */
#include "log.h"
#include "vdsp-impl.h"

#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

struct vdsp_guard {
    sigjmp_buf env;
    struct vdsp_device *dev;
    struct vdsp_guard *prev; /* the enclosing guarded call on this thread */
    uint32_t hvx_depth;      /* the thread's lock depths at entry */
    uint32_t hmx_depth;
    volatile uintptr_t addr; /* faulting host address, written by the handler */
    volatile int access;     /* 0 unknown, 1 load, 2 store */
};

/* initial-exec: no lazy allocation, so the handler may read it, and a plain load on the hot path. */
static _Thread_local struct vdsp_guard *tls_guard __attribute__((tls_model("initial-exec")));

static struct sigaction prev_segv, prev_bus;
static pthread_mutex_t install_lock = PTHREAD_MUTEX_INITIALIZER;

/* Inside dev's window, or in the guard pages around its VTCM. */
static bool guard_owns(const struct vdsp_device *dev, uintptr_t a) {
    if (a - (uintptr_t) dev->window < dev->window_size) {
        return true;
    }
    return a - (uintptr_t) dev->vtcm_region < dev->vtcm_region_size && a - (uintptr_t) dev->vtcm >= dev->vtcm_size;
}

static int fault_access(const void *uc) {
#if defined(__x86_64__)
    /* The page-fault error code: bit 1 set for a write. */
    const ucontext_t *u = uc;
    return (u->uc_mcontext.gregs[REG_ERR] & 2) ? 2 : 1;
#else
    (void) uc;
    return 0;
#endif
}

static void guard_signal(int sig, siginfo_t *si, void *uc) {
    struct vdsp_guard *g = tls_guard;
    if (g && si->si_code > 0 && guard_owns(g->dev, (uintptr_t) si->si_addr)) {
        g->addr = (uintptr_t) si->si_addr;
        g->access = fault_access(uc);
        siglongjmp(g->env, VDSP_FAULT_ADDRESS);
    }
    const struct sigaction *prev = sig == SIGSEGV ? &prev_segv : &prev_bus;
    if (prev->sa_flags & SA_SIGINFO) {
        prev->sa_sigaction(sig, si, uc);
        return;
    }
    if (prev->sa_handler != SIG_DFL && prev->sa_handler != SIG_IGN) {
        prev->sa_handler(sig);
        return;
    }
    /* Default action: a hardware fault repeats when we return; a sent signal is raised again (it stays
     * pending until the handler returns). */
    struct sigaction dfl = {.sa_handler = SIG_DFL};
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    if (si->si_code <= 0) {
        raise(sig);
    }
}

/* Make guard_signal the handler of sig unless it is; what it replaces becomes the next in the chain. */
static void guard_install_signal(int sig, struct sigaction *prev) {
    struct sigaction cur;
    if (sigaction(sig, NULL, &cur) == 0 && (cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == guard_signal) {
        return;
    }
    struct sigaction sa = {.sa_sigaction = guard_signal, .sa_flags = SA_SIGINFO | SA_ONSTACK};
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGSEGV);
    sigaddset(&sa.sa_mask, SIGBUS);
    sigaction(sig, &sa, prev);
}

void vdsp_guard_install(void) {
    pthread_mutex_lock(&install_lock);
    guard_install_signal(SIGSEGV, &prev_segv);
    guard_install_signal(SIGBUS, &prev_bus);
    pthread_mutex_unlock(&install_lock);
}

void vdsp_fault_record(struct vdsp_device *dev, const char *fmt, ...) {
    int expected = 0;
    if (atomic_compare_exchange_strong(&dev->fault_state, &expected, 1)) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(dev->fault_text, sizeof(dev->fault_text), fmt, ap);
        va_end(ap);
        atomic_store_explicit(&dev->fault_state, 2, memory_order_release);
    }
    atomic_store(&dev->faulted, true);
}

const char *vdsp_fault_text(struct vdsp_device *dev) {
    int state;
    while ((state = atomic_load_explicit(&dev->fault_state, memory_order_acquire)) == 1) {
        sched_yield(); /* another thread is writing the first fault's text */
    }
    return state == 2 ? dev->fault_text : "";
}

static void fault_describe(struct vdsp_device *dev, uintptr_t a, int access) {
    static const char *const verb[] = {"access to", "load from", "store to"};
    char where[160];
    if (a - (uintptr_t) dev->window < dev->window_size) {
        vdsp_window_describe(dev, a - (uintptr_t) dev->window, where, sizeof(where));
    } else if (a < (uintptr_t) dev->vtcm) {
        snprintf(where, sizeof(where), "VTCM-%zu (before the start of VTCM)", (size_t) ((uintptr_t) dev->vtcm - a));
    } else {
        const size_t off = a - (uintptr_t) dev->vtcm;
        snprintf(where, sizeof(where), "VTCM+0x%zx (%zu bytes past the end of VTCM, %zu bytes)", off,
                 off - dev->vtcm_size, dev->vtcm_size);
    }
    vdsp_fault_record(dev, "%s %s", verb[access], where);
}

/* Back from the jump: restore what the fault skipped. */
static void guard_land(struct vdsp_guard *g, int fault) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGSEGV);
    sigaddset(&set, SIGBUS);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
    vdsp_hvx_unwind(g->dev, g->hvx_depth, g->hmx_depth);
    if (fault == VDSP_FAULT_ADDRESS) {
        fault_describe(g->dev, g->addr, g->access);
    }
}

enum vdsp_fault vdsp_call_guarded(struct vdsp_device *dev, vdsp_thread_fn fn, void *arg) {
    struct vdsp_guard g = {.dev = dev, .prev = tls_guard, .hvx_depth = vdsp_hvx_depth(), .hmx_depth = vdsp_hmx_depth()};
    tls_guard = &g;
    const int fault = sigsetjmp(g.env, 0);
    if (fault == 0) {
        fn(arg);
        tls_guard = g.prev;
        return VDSP_FAULT_NONE;
    }
    tls_guard = g.prev;
    guard_land(&g, fault);
    return (enum vdsp_fault) fault;
}

/* End the innermost guarded call on dev with fault; what names the raise in the log when there is none. */
static _Noreturn void guard_jump(struct vdsp_device *dev, enum vdsp_fault fault, const char *what) {
    struct vdsp_guard *g = tls_guard;
    if (!g || g->dev != dev) {
        vnpu_log_error("%s: %s outside a guarded call (an NPU library bug): %s", dev->name, what, vdsp_fault_text(dev));
        abort();
    }
    siglongjmp(g->env, fault);
}

_Noreturn void vdsp_guard_raise_dma(struct vdsp_device *dev) {
    guard_jump(dev, VDSP_FAULT_DMA, "DMA fault");
}

_Noreturn void vdsp_call_abort(struct vdsp_device *dev) {
    guard_jump(dev, VDSP_FAULT_ABORT, "vdsp_call_abort");
}

static size_t altstack_size(void) {
    size_t size = 64 * 1024;
#ifdef _SC_SIGSTKSZ
    const long need = sysconf(_SC_SIGSTKSZ);
    if (need > 0 && (size_t) need > size) {
        size = (size_t) need;
    }
#endif
    return size;
}

void *vdsp_guard_altstack_alloc(void) {
    stack_t cur;
    if (sigaltstack(NULL, &cur) == 0 && !(cur.ss_flags & SS_DISABLE)) {
        return NULL; /* the thread has one already (ASan gives each thread its own) */
    }
    const size_t size = altstack_size();
    void *mem = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) {
        return NULL; /* faults are still handled; only a stack overflow would die without a report */
    }
    const stack_t ss = {.ss_sp = mem, .ss_size = size, .ss_flags = 0};
    if (sigaltstack(&ss, NULL) != 0) {
        munmap(mem, size);
        return NULL;
    }
    return mem;
}

void vdsp_guard_altstack_free(void *stack) {
    if (stack) {
        const stack_t off = {.ss_flags = SS_DISABLE};
        sigaltstack(&off, NULL);
        munmap(stack, altstack_size());
    }
}
