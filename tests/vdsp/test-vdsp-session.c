/*
 * Sessions end to end with the test NPU library (test-npu.h): round trips (start, process, stop), strict
 * DMA seen through a kernel that reads before it pops, leak reports, fault injection (a bad address on the
 * main thread and in a worker, a DMA descriptor past VTCM: error status and message, the host survives,
 * the session refuses further requests, a reopened session works), a job ending itself by vdsp_call_abort (no
 * fault) and process() doing so (a fault), two sessions at once with concurrent
 * callers, and the errors of opening a session and of submitting a block.
 */
#include "test-npu.h"
#include "test-vdsp.h"

#include <dirent.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define ROW     100 /* bytes per row */
#define ROWS    37
#define SRC_NB1 128
#define DST_NB1 112
#define GAP     0x5A /* dst bytes between rows */

/* The request block of one op over src[0] (buffer 0) and dst[0] (buffer 1), in its own shared buffer. */
struct req {
    struct vdsp_buffer *blk;
    struct htp_req *hdr;
};

static struct req req_make(struct vdsp_buffer *src, struct vdsp_buffer *dst, enum test_npu_op op, uint32_t kp0,
                           uint32_t kp1) {
    struct req r;
    const uint32_t size = test_npu_req_size(2, 2, 1);
    assert_int_equal(vdsp_buffer_alloc(size, "request", &r.blk), VNPU_STATUS_OK);
    uint8_t *base = r.blk->host;
    r.hdr = r.blk->host;
    r.hdr->version = HTP_MSG_VERSION;
    r.hdr->mdev_count = 1;
    r.hdr->id = 1;
    r.hdr->n_bufs = 2;
    r.hdr->n_tensors = 2;
    r.hdr->n_ops = 1;
    r.hdr->off_bufs = sizeof(struct htp_req);
    r.hdr->off_tensors = r.hdr->off_bufs + 2 * sizeof(struct htp_buf_desc);
    r.hdr->off_ops = r.hdr->off_tensors + 2 * sizeof(struct htp_tensor_desc);
    struct htp_buf_desc *bufs = (void *) (base + r.hdr->off_bufs);
    struct htp_tensor_desc *t = (void *) (base + r.hdr->off_tensors);
    struct htp_op_desc *o = (void *) (base + r.hdr->off_ops);
    bufs[0] = (struct htp_buf_desc){.fd = src->fd, .size = src->size};
    bufs[1] = (struct htp_buf_desc){.fd = dst->fd, .size = dst->size};
    t[0] = (struct htp_tensor_desc){.bi = 0, .ne = {ROW, ROWS, 1, 1}, .nb = {1, SRC_NB1, SRC_NB1 * ROWS, 0}};
    t[1] = (struct htp_tensor_desc){.bi = 1, .ne = {ROW, ROWS, 1, 1}, .nb = {1, DST_NB1, DST_NB1 * ROWS, 0}};
    memset(o, 0, sizeof(*o));
    o->opcode = op;
    o->kparams[0] = kp0;
    o->kparams[1] = kp1;
    o->src[0] = 0;
    o->dst[0] = 1;
    return r;
}

/* Source rows of random bytes, and a destination of GAP bytes. */
static void data_make(const char *seed, struct vdsp_buffer **src, struct vdsp_buffer **dst) {
    assert_int_equal(vdsp_buffer_alloc(SRC_NB1 * ROWS, "src", src), VNPU_STATUS_OK);
    assert_int_equal(vdsp_buffer_alloc(DST_NB1 * ROWS, "dst", dst), VNPU_STATUS_OK);
    struct test_rng rng;
    test_rng_seed(&rng, seed);
    for (size_t i = 0; i < (*src)->size; i++) {
        ((uint8_t *) (*src)->host)[i] = (uint8_t) test_rng_next(&rng);
    }
    memset((*dst)->host, GAP, (*dst)->size);
}

/* dst holds src's rows and GAP between them. */
static bool data_copied(const struct vdsp_buffer *src, const struct vdsp_buffer *dst) {
    const uint8_t *s = src->host, *d = dst->host;
    for (int r = 0; r < ROWS; r++) {
        if (memcmp(d + r * DST_NB1, s + r * SRC_NB1, ROW) != 0) {
            return false;
        }
        for (int i = ROW; i < DST_NB1; i++) {
            if (d[r * DST_NB1 + i] != GAP) {
                return false;
            }
        }
    }
    return true;
}

static bool data_poisoned(const struct vdsp_buffer *dst) {
    const uint8_t *d = dst->host;
    for (int r = 0; r < ROWS; r++) {
        for (int i = 0; i < ROW; i++) {
            if (d[r * DST_NB1 + i] != VDSP_DMA_POISON) {
                return false;
            }
        }
    }
    return true;
}

static struct vdsp_session *session_open(enum vdsp_arch arch, uint32_t id, uint32_t n_threads, bool strict) {
    const struct vdsp_session_params p = {
        .arch = arch, .n_threads = n_threads, .window_size = 64 * TEST_MIB, .dma_strict = strict, .session_id = id};
    struct vdsp_session *s = NULL;
    assert_int_equal(vdsp_session_open(&p, &s), VNPU_STATUS_OK);
    assert_non_null(s);
    return s;
}

static enum vnpu_status call(struct vdsp_session *s, const struct req *r) {
    return vdsp_session_call(s, r->blk, 0, r->blk->size);
}

/* Run op once on a fresh copy of the data and return the answered status; *copied tells whether dst got src. */
static enum htp_status run_op(struct vdsp_session *s, enum test_npu_op op, uint32_t kp0, uint32_t kp1, bool *copied,
                              bool *poisoned) {
    struct vdsp_buffer *src, *dst;
    data_make("run_op", &src, &dst);
    struct req r = req_make(src, dst, op, kp0, kp1);
    assert_int_equal(call(s, &r), VNPU_STATUS_OK);
    const enum htp_status st = r.hdr->rsp.status;
    if (copied) {
        *copied = data_copied(src, dst);
    }
    if (poisoned) {
        *poisoned = data_poisoned(dst);
    }
    vdsp_buffer_free(r.blk);
    vdsp_buffer_free(src);
    vdsp_buffer_free(dst);
    return st;
}

static bool thread_named(const char *name) {
    DIR *d = opendir("/proc/self/task");
    assert_non_null(d);
    bool found = false;
    struct dirent *e;
    while (!found && (e = readdir(d)) != NULL) {
        char path[300];
        snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
        size_t len = 0;
        char *comm = e->d_name[0] == '.' ? NULL : test_read_file(path, &len);
        found = comm && len > 0 && strncmp(comm, name, len - 1) == 0 && strlen(name) == len - 1;
        free(comm);
    }
    closedir(d);
    return found;
}

static void test_session_roundtrip(void **state) {
    (void) state;
    struct vdsp_session *s = session_open(VDSP_ARCH_V79, 0, 4, false);
    assert_int_equal(vdsp_session_target(s)->arch, VDSP_ARCH_V79);
    assert_int_equal(vdsp_session_target(s)->n_hvx_contexts, 6);
    assert_true(thread_named("htp0-main"));
    assert_true(thread_named("htp0-worker3"));
    assert_false(thread_named("htp0-worker4"));

    struct vdsp_buffer *src, *dst;
    data_make("roundtrip", &src, &dst);
    for (uint32_t block = 1; block <= 16; block *= 4) {
        memset(dst->host, GAP, dst->size);
        struct req r = req_make(src, dst, TEST_NPU_OP_COPY, block, 0);
        assert_int_equal(call(s, &r), VNPU_STATUS_OK);
        assert_int_equal(r.hdr->rsp.status, HTP_STATUS_OK);
        assert_int_equal(r.hdr->rsp.n_ops_done, 1);
        assert_true(data_copied(src, dst));
        vdsp_buffer_free(r.blk);
    }
    assert_false(vdsp_session_faulted(s));
    vdsp_session_close(s);
    vdsp_session_close(NULL);
    assert_false(thread_named("htp0-main"));
    vdsp_buffer_free(src);
    vdsp_buffer_free(dst);
}

static void test_session_default_window(void **state) {
    (void) state;
    const struct vdsp_session_params p = {.arch = VDSP_ARCH_V81, .n_threads = 1, .session_id = 2};
    struct vdsp_session *s;
    assert_int_equal(vdsp_session_open(&p, &s), VNPU_STATUS_OK); /* 3200 MiB reserved, nothing committed */
    bool copied = false;
    assert_int_equal(run_op(s, TEST_NPU_OP_COPY, 5, 0, &copied, NULL), HTP_STATUS_OK);
    assert_true(copied);
    vdsp_session_close(s);
}

static void test_session_strict(void **state) {
    (void) state;
    bool copied, poisoned;
    struct vdsp_session *s = session_open(VDSP_ARCH_V79, 0, 3, false);
    assert_int_equal(run_op(s, TEST_NPU_OP_COPY_EARLY_READ, 4, 0, &copied, &poisoned), HTP_STATUS_OK);
    assert_true(copied); /* normal mode lands data at the push: the early read goes unnoticed */
    vdsp_session_close(s);

    s = session_open(VDSP_ARCH_V79, 0, 3, true);
    assert_int_equal(run_op(s, TEST_NPU_OP_COPY_EARLY_READ, 4, 0, &copied, &poisoned), HTP_STATUS_OK);
    assert_true(poisoned); /* strict mode: the kernel read poison */
    assert_int_equal(run_op(s, TEST_NPU_OP_COPY, 4, 0, &copied, NULL), HTP_STATUS_OK);
    assert_true(copied); /* a kernel that pops first is right in both modes */
    vdsp_session_close(s);

    setenv("VNPU_DMA_STRICT", "1", 1);
    s = session_open(VDSP_ARCH_V79, 0, 3, false);
    unsetenv("VNPU_DMA_STRICT");
    assert_int_equal(run_op(s, TEST_NPU_OP_COPY_EARLY_READ, 4, 0, &copied, &poisoned), HTP_STATUS_OK);
    assert_true(poisoned);
    vdsp_session_close(s);
}

static void test_session_dma_leak(void **state) {
    (void) state;
    struct test_log log;
    memset(&log, 0, sizeof(log));
    vnpu_log_set(test_log_collect, &log, VNPU_LOG_WARN);
    bool copied;
    struct vdsp_session *s = session_open(VDSP_ARCH_V79, 0, 2, true);
    struct vdsp_buffer *src, *dst;
    data_make("leak", &src, &dst);
    struct req r = req_make(src, dst, TEST_NPU_OP_DMA_LEAK, 3, 0);
    assert_int_equal(call(s, &r), VNPU_STATUS_OK);
    assert_int_equal(r.hdr->rsp.status, HTP_STATUS_DMA_LEAK);
    assert_int_equal(r.hdr->rsp.failed_op, 0);
    assert_string_equal(r.hdr->rsp.message, "DMA queue 0 ended the request with 3 pushes never popped");
    assert_non_null(strstr(log.text, "HTP0: request 1: DMA queue 0 ended with 3 pushes never popped"));
    assert_false(vdsp_session_faulted(s));
    assert_int_equal(run_op(s, TEST_NPU_OP_COPY, 4, 0, &copied, NULL), HTP_STATUS_OK);
    assert_true(copied);
    vdsp_session_close(s);

    /* Normal mode does not report leaks but still empties the queues between requests: two requests of 200
     * unpopped pushes each fit a 256-deep queue only if the first one's were dropped. */
    const int errors = log.n_errors;
    s = session_open(VDSP_ARCH_V79, 0, 2, false);
    assert_int_equal(run_op(s, TEST_NPU_OP_DMA_LEAK, 200, 0, NULL, NULL), HTP_STATUS_OK);
    assert_int_equal(run_op(s, TEST_NPU_OP_DMA_LEAK, 200, 0, NULL, NULL), HTP_STATUS_OK);
    assert_int_equal(log.n_errors, errors);
    vdsp_session_close(s);
    vdsp_buffer_free(r.blk);
    vdsp_buffer_free(src);
    vdsp_buffer_free(dst);
    vnpu_log_set(NULL, NULL, VNPU_LOG_WARN);
}

/* Inject a fault with op (kp0, kp1) into a fresh session of n_threads; check the answer, the log, the
 * refusal of the next request, and that a reopened session works. */
static void fault_check(uint32_t n_threads, enum test_npu_op op, uint32_t kp0, uint32_t kp1, const char *text,
                        bool exact) {
    struct test_log log;
    memset(&log, 0, sizeof(log));
    vnpu_log_set(test_log_collect, &log, VNPU_LOG_WARN);
    struct vdsp_session *s = session_open(VDSP_ARCH_V79, 0, n_threads, false);
    struct vdsp_buffer *src, *dst;
    data_make("fault", &src, &dst);
    struct req r = req_make(src, dst, op, kp0, kp1);
    assert_int_equal(call(s, &r), VNPU_STATUS_OK); /* answered: the request's own status says it failed */
    assert_int_equal(r.hdr->rsp.status, HTP_STATUS_FAULT);
    assert_int_equal(r.hdr->rsp.failed_op, 0);
    assert_int_equal(r.hdr->rsp.n_ops_done, 0);
    if (exact) {
        assert_string_equal(r.hdr->rsp.message, text);
    } else if (!strstr(r.hdr->rsp.message, text)) {
        fail_msg("message '%s' lacks '%s'", r.hdr->rsp.message, text);
    }
    assert_true(vdsp_session_faulted(s));
    char want[256];
    snprintf(want, sizeof(want), "HTP0: request 1 faulted: %s", r.hdr->rsp.message);
    assert_non_null(strstr(log.text, want));

    assert_int_equal(call(s, &r), VNPU_STATUS_DEVICE);
    assert_non_null(strstr(log.text, "the session faulted in an earlier request"));
    vdsp_session_close(s); /* stop() joins every worker: no thread waits on a context the fault kept */

    s = session_open(VDSP_ARCH_V79, 0, n_threads, false);
    bool copied;
    assert_int_equal(run_op(s, TEST_NPU_OP_COPY, 3, 0, &copied, NULL), HTP_STATUS_OK);
    assert_true(copied);
    vdsp_session_close(s);
    vdsp_buffer_free(r.blk);
    vdsp_buffer_free(src);
    vdsp_buffer_free(dst);
    vnpu_log_set(NULL, NULL, VNPU_LOG_WARN);
}

static void test_session_fault_main(void **state) {
    (void) state;
    /* The load ends process() itself: the platform writes the answer. */
    fault_check(2, TEST_NPU_OP_LOAD, 0x02000000, TEST_NPU_MAIN,
                TEST_LOAD_FROM " device address 0x02000000 (not mapped)", true);
}

static void test_session_fault_worker(void **state) {
    (void) state;
    /* The load ends worker 2's job only; the library answers with the platform's text, and close still
     * joins every worker. */
    fault_check(4, TEST_NPU_OP_LOAD, 0x00000010, 2, TEST_LOAD_FROM " device address 0x00000010 (page 0, never mapped)",
                true);
}

static void test_session_fault_dma(void **state) {
    (void) state;
    struct vdsp_session *s = session_open(VDSP_ARCH_V79, 0, 1, false);
    assert_int_equal(run_op(s, TEST_NPU_OP_DMA_TO_VTCM_END, ROW, 0, NULL, NULL), HTP_STATUS_OK); /* fits exactly */
    vdsp_session_close(s);
    fault_check(1, TEST_NPU_OP_DMA_TO_VTCM_END, ROW / 2, 0,
                "DMA queue 0: 1 rows x 100 B (strides dst 100, src 128): dst VTCM+0x7fffce..+100 ends 50 B past the "
                "end of VTCM",
                false);
}

/* vdsp_call_abort ending a worker's job is no fault: the job's call returns VDSP_FAULT_ABORT (the test library then
 * answers HTP_STATUS_FAULT itself), the session serves on, again and again; ending process() itself that way is the
 * library's crash, answered and refused as a fault. */
static void test_session_abort(void **state) {
    (void) state;
    struct vdsp_session *s = session_open(VDSP_ARCH_V79, 0, 3, false);
    for (int i = 0; i < 8; i++) {
        assert_int_equal(run_op(s, TEST_NPU_OP_ABORT, 0, (uint32_t) i % 3, NULL, NULL), HTP_STATUS_FAULT);
        assert_false(vdsp_session_faulted(s));
    }
    bool copied;
    assert_int_equal(run_op(s, TEST_NPU_OP_COPY, 3, 0, &copied, NULL), HTP_STATUS_OK);
    assert_true(copied);
    vdsp_session_close(s);
    fault_check(2, TEST_NPU_OP_ABORT, 0, TEST_NPU_MAIN,
                "the NPU library ended process() by vdsp_call_abort outside a job (a library bug)", true);
}

/* A host thread sending n copies through one session. */
struct sender {
    struct vdsp_session *s;
    struct vdsp_buffer *src; /* shared by every sender */
    int n;
    _Atomic int ok;
};

static void *sender_main(void *arg) {
    struct sender *c = arg;
    struct vdsp_buffer *dst;
    assert_int_equal(vdsp_buffer_alloc(DST_NB1 * ROWS, "dst", &dst), VNPU_STATUS_OK);
    struct req r = req_make(c->src, dst, TEST_NPU_OP_COPY, 2, 0);
    for (int i = 0; i < c->n; i++) {
        memset(dst->host, GAP, dst->size);
        if (call(c->s, &r) == VNPU_STATUS_OK && r.hdr->rsp.status == HTP_STATUS_OK && data_copied(c->src, dst)) {
            atomic_fetch_add(&c->ok, 1);
        }
    }
    vdsp_buffer_free(r.blk);
    vdsp_buffer_free(dst);
    return NULL;
}

static void test_session_multi(void **state) {
    (void) state;
    struct vdsp_session *s0 = session_open(VDSP_ARCH_V79, 0, 3, false);
    struct vdsp_session *s1 = session_open(VDSP_ARCH_V81, 1, 2, true);
    assert_int_equal(vdsp_session_target(s1)->n_hvx_contexts, 8);
    assert_true(thread_named("htp0-main"));
    assert_true(thread_named("htp1-main"));
    assert_true(thread_named("htp1-worker1"));

    /* Four callers, two per session, one source buffer mapped into both windows at once. */
    struct vdsp_buffer *src, *unused;
    data_make("multi", &src, &unused);
    struct sender senders[4];
    pthread_t th[4];
    for (int i = 0; i < 4; i++) {
        senders[i] = (struct sender){.s = i % 2 ? s1 : s0, .src = src, .n = 15};
        assert_int_equal(pthread_create(&th[i], NULL, sender_main, &senders[i]), 0);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        assert_int_equal(atomic_load(&senders[i].ok), senders[i].n);
    }

    /* A fault in HTP1 leaves HTP0 serving. */
    struct test_log log;
    memset(&log, 0, sizeof(log));
    vnpu_log_set(test_log_collect, &log, VNPU_LOG_WARN);
    assert_int_equal(run_op(s1, TEST_NPU_OP_LOAD, 0x03000000, TEST_NPU_MAIN, NULL, NULL), HTP_STATUS_FAULT);
    assert_non_null(strstr(log.text, "HTP1: request 1 faulted"));
    vnpu_log_set(NULL, NULL, VNPU_LOG_WARN);
    assert_true(vdsp_session_faulted(s1));
    assert_false(vdsp_session_faulted(s0));
    bool copied;
    assert_int_equal(run_op(s0, TEST_NPU_OP_COPY, 7, 0, &copied, NULL), HTP_STATUS_OK);
    assert_true(copied);
    vdsp_session_close(s1);
    vdsp_session_close(s0);
    vdsp_buffer_free(src);
    vdsp_buffer_free(unused);
}

/* Opening with params p fails with status and a message holding text. */
static void open_fails(const struct vdsp_session_params *p, enum vnpu_status status, const char *text) {
    struct test_log log;
    memset(&log, 0, sizeof(log));
    vnpu_log_set(test_log_collect, &log, VNPU_LOG_WARN);
    struct vdsp_session *s = (struct vdsp_session *) 1;
    assert_int_equal(vdsp_session_open(p, &s), status);
    assert_null(s);
    if (!strstr(log.text, text)) {
        fail_msg("log '%s' lacks '%s'", log.text, text);
    }
    vnpu_log_set(NULL, NULL, VNPU_LOG_WARN);
}

static void test_session_open_errors(void **state) {
    (void) state;
    struct vdsp_session_params p = {.arch = VDSP_ARCH_V79, .n_threads = 2, .window_size = 8 * TEST_MIB};
    p.arch = (enum vdsp_arch) 72;
    open_fails(&p, VNPU_STATUS_BAD_ARG, "HTP0: arch 72 is not modelled (v73, v75, v79, v81)");
    p.arch = VDSP_ARCH_V79;
    p.n_threads = 0;
    open_fails(&p, VNPU_STATUS_BAD_ARG, "0 NPU threads, expected 1..10");
    p.n_threads = HTP_MAX_NTHREADS + 1;
    open_fails(&p, VNPU_STATUS_BAD_ARG, "11 NPU threads, expected 1..10");
    p.n_threads = 2;
    p.window_size = 1000;
    open_fails(&p, VNPU_STATUS_BAD_ARG, "window of 4096 bytes");
    p.window_size = 8 * TEST_MIB;

    char want[4200];
    setenv("VNPU_HTP_LIB_DIR", test_tmpdir(), 1);
    snprintf(want, sizeof(want), "HTP0: cannot load the NPU library %s/libvnpu-htp-v79.so", test_tmpdir());
    open_fails(&p, VNPU_STATUS_IO, want);
    setenv("VNPU_HTP_LIB_DIR", VDSP_TEST_NPU_DIR, 1);

    p.arch = VDSP_ARCH_V75;
    snprintf(want, sizeof(want), "libvnpu-htp-v75.so has platform ABI %d, this platform %d: rebuild the NPU library",
             VDSP_DEVICE_ABI + 1, VDSP_DEVICE_ABI);
    open_fails(&p, VNPU_STATUS_BAD_FILE, want);
    p.arch = VDSP_ARCH_V73;
    open_fails(&p, VNPU_STATUS_BAD_FILE, "libvnpu-htp-v73.so was built for v79, the session is v73");
    p.arch = VDSP_ARCH_V79;

    setenv("VNPU_TEST_NPU_REFUSE", "1", 1);
    open_fails(&p, VNPU_STATUS_DEVICE, "HTP0: the NPU library refused to start: start() failed");
    unsetenv("VNPU_TEST_NPU_REFUSE");

    /* The VNPU_* integers (vnpu_env_uint): decimal digits or 0x and hex digits, nothing else. */
    static const char *const bad_windows[] = {"abc", "0", "5000", "-1", "12x", " 4", "+4", "4 ", "0x", "0x1001"};
    for (size_t i = 0; i < sizeof(bad_windows) / sizeof(bad_windows[0]); i++) {
        setenv("VNPU_WINDOW_MB", bad_windows[i], 1);
        snprintf(want, sizeof(want), "VNPU_WINDOW_MB='%s': expected an integer in 1..4096", bad_windows[i]);
        open_fails(&p, VNPU_STATUS_BAD_ARG, want);
    }
    static const struct {
        const char *value;
        size_t mb;
    } good_windows[] = {{"010", 10}, {"08", 8}, {"0x10", 16}, {"0X1f", 31}, {"4096", 4096}};
    for (size_t i = 0; i < sizeof(good_windows) / sizeof(good_windows[0]); i++) {
        setenv("VNPU_WINDOW_MB", good_windows[i].value, 1);
        size_t size = 0;
        assert_int_equal(vdsp_window_size_default(VDSP_ARCH_V79, &size), VNPU_STATUS_OK);
        assert_int_equal(size, good_windows[i].mb << 20);
    }
    unsetenv("VNPU_WINDOW_MB");
    setenv("VNPU_DMA_STRICT", "yes", 1);
    open_fails(&p, VNPU_STATUS_BAD_ARG, "HTP0: VNPU_DMA_STRICT='yes': expected an integer in 0..1");
    unsetenv("VNPU_DMA_STRICT");

    /* A good VNPU_WINDOW_MB gives the default window; the params' own window still wins. */
    setenv("VNPU_WINDOW_MB", "4", 1);
    p.window_size = 0;
    struct vdsp_session *s;
    assert_int_equal(vdsp_session_open(&p, &s), VNPU_STATUS_OK);
    vdsp_session_close(s);
    unsetenv("VNPU_WINDOW_MB");
}

static void test_session_call_errors(void **state) {
    (void) state;
    struct test_log log;
    memset(&log, 0, sizeof(log));
    vnpu_log_set(test_log_collect, &log, VNPU_LOG_WARN);
    struct vdsp_session *s = session_open(VDSP_ARCH_V79, 0, 1, false);
    struct vdsp_buffer *blk;
    assert_int_equal(vdsp_buffer_alloc(4096, "request", &blk), VNPU_STATUS_OK);
    assert_int_equal(vdsp_session_call(s, blk, 4, 1024), VNPU_STATUS_BAD_ARG); /* misaligned */
    assert_int_equal(vdsp_session_call(s, blk, 0, sizeof(struct htp_req) - 1), VNPU_STATUS_BAD_ARG);
    assert_int_equal(vdsp_session_call(s, blk, 4096 - 512, 1024), VNPU_STATUS_BAD_ARG); /* past the end */
    assert_int_equal(vdsp_session_call(s, blk, 8192, 0), VNPU_STATUS_BAD_ARG);
    assert_int_equal(log.n_errors, 4);
    assert_non_null(strstr(log.text, "request block of 1024 bytes at offset 4 of a 4096-byte buffer"));
    assert_false(vdsp_session_faulted(s));
    vdsp_session_close(s);
    vdsp_buffer_free(blk);
    vnpu_log_set(NULL, NULL, VNPU_LOG_WARN);
}

static void test_htp_lib_path(void **state) {
    (void) state;
    char path[4096];
    vdsp_htp_lib_path(VDSP_ARCH_V81, false, path, sizeof(path));
    assert_string_equal(path, VDSP_TEST_NPU_DIR "/libvnpu-htp-v81.so");
    vdsp_htp_lib_path(VDSP_ARCH_V81, true, path, sizeof(path));
    assert_string_equal(path, VDSP_TEST_NPU_DIR "/libvnpu-htp-v81-counted.so");
    unsetenv("VNPU_HTP_LIB_DIR");
    vdsp_htp_lib_path(VDSP_ARCH_V79, false, path, sizeof(path));
    assert_string_equal(path, VDSP_LIB_DIR "/libvnpu-htp-v79.so");
    setenv("VNPU_HTP_LIB_DIR", VDSP_TEST_NPU_DIR, 1);
}

int main(void) {
    /* Hermetic: the test NPU library, and none of the caller's platform settings. */
    setenv("VNPU_HTP_LIB_DIR", VDSP_TEST_NPU_DIR, 1);
    unsetenv("VNPU_WINDOW_MB");
    unsetenv("VNPU_DMA_STRICT");
    unsetenv("VNPU_TEST_NPU_REFUSE");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_session_roundtrip),   cmocka_unit_test(test_session_default_window),
        cmocka_unit_test(test_session_strict),      cmocka_unit_test(test_session_dma_leak),
        cmocka_unit_test(test_session_fault_main),  cmocka_unit_test(test_session_fault_worker),
        cmocka_unit_test(test_session_fault_dma),   cmocka_unit_test(test_session_abort),
        cmocka_unit_test(test_session_multi),       cmocka_unit_test(test_session_open_errors),
        cmocka_unit_test(test_session_call_errors), cmocka_unit_test(test_htp_lib_path),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
