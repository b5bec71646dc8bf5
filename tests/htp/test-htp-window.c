/*
 * The session window's mapping policy (src/htp/main.c, "buffer mappings", rules 1..6) on request blocks of no ops
 * sent straight to a session with a small window: a mapping is reused; unused unpinned mappings make room first; a
 * window so fragmented that the request fits only once every unpinned mapping is dropped is defragmented (the
 * pinned ones stay); one full of unused pinned mappings drops those last; a request whose buffers do not fit the
 * window even alone is an error naming the sizes; on v73 a buffer above 2 GiB is refused, as HAP_mmap refuses it.
 * The response's counts say what each request did. Also the host's side of the rules: vdsp_session_window_fits
 * (requests are split by it) and htp_buffer_max_size.
 */
#include "test-common.h"

#include "htp-device-impl.h"
#include "htp-msg.h"
#include "vdsp.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define WINDOW_PAGES 1024 /* the window of the fixture's session */
#define MAX_BUFS     6

struct fixture {
    struct vdsp_session *s;
    struct vdsp_buffer *block;
    struct vdsp_buffer *bufs[MAX_BUFS];
    size_t page;
};

static struct fixture fx;

static int setup(void **state) {
    fx.page = (size_t) sysconf(_SC_PAGESIZE);
    const struct vdsp_session_params p = {.arch = VDSP_ARCH_V79, .n_threads = 1, .window_size = WINDOW_PAGES * fx.page};
    assert_int_equal(vdsp_session_open(&p, &fx.s), VNPU_STATUS_OK);
    assert_int_equal(vdsp_buffer_alloc(4096, "test-window-request", &fx.block), VNPU_STATUS_OK);
    *state = &fx;
    return 0;
}

static int teardown(void **state) {
    struct fixture *f = *state;
    vdsp_session_close(f->s);
    vdsp_buffer_free(f->block);
    for (int i = 0; i < MAX_BUFS; i++) {
        vdsp_buffer_free(f->bufs[i]);
    }
    return 0;
}

/* Buffer i of npages pages (made on first use). */
static struct vdsp_buffer *buf(struct fixture *f, int i, size_t npages) {
    if (!f->bufs[i]) {
        assert_int_equal(vdsp_buffer_alloc(npages * f->page, "test-window", &f->bufs[i]), VNPU_STATUS_OK);
    }
    assert_int_equal(f->bufs[i]->size, npages * f->page);
    return f->bufs[i];
}

/* One buffer of a request: which, and its flags. */
struct use {
    int i;
    uint32_t flags;
};

/* A request of no ops naming the n buffers of uses; the session must answer and stay healthy. */
static const struct htp_rsp *send(struct fixture *f, const struct use *uses, uint32_t n) {
    uint8_t *base = f->block->host;
    memset(base, 0, 4096);
    struct htp_req *req = (struct htp_req *) base;
    req->version = HTP_MSG_VERSION;
    req->mdev_count = 1;
    req->n_bufs = n;
    req->off_bufs = 1024;
    req->off_tensors = req->off_ops = 2048;
    struct htp_buf_desc *d = (struct htp_buf_desc *) (base + req->off_bufs);
    for (uint32_t k = 0; k < n; k++) {
        const struct vdsp_buffer *b = f->bufs[uses[k].i];
        d[k] = (struct htp_buf_desc){.fd = b->fd, .flags = uses[k].flags, .size = b->size};
    }
    assert_int_equal(vdsp_session_call(f->s, f->block, 0, 4096), VNPU_STATUS_OK);
    assert_false(vdsp_session_faulted(f->s));
    return &req->rsp;
}

static void expect_ok(const struct htp_rsp *rsp, uint32_t mapped, uint32_t unmapped, uint32_t defrags) {
    if (rsp->status != HTP_STATUS_OK) {
        fail_msg("status %u: %s", rsp->status, rsp->message);
    }
    assert_int_equal(rsp->n_mapped, mapped);
    assert_int_equal(rsp->n_unmapped, unmapped);
    assert_int_equal(rsp->n_defrags, defrags);
}

/* Drop every mapping of the session (HTP_BUF_UNMAP of each buffer made so far), so each case starts empty. */
static void unmap_all(struct fixture *f) {
    struct use u[MAX_BUFS];
    uint32_t n = 0;
    for (int i = 0; i < MAX_BUFS; i++) {
        if (f->bufs[i]) {
            u[n++] = (struct use){i, HTP_BUF_UNMAP};
        }
    }
    assert_int_equal(send(f, u, n)->status, HTP_STATUS_OK);
}

/* Rules 1, 3 and 4: reused by fd; room made by unmapping the unpinned buffers the request does not use. */
static void test_reuse_and_evict(void **state) {
    struct fixture *f = *state;
    buf(f, 0, 400);
    buf(f, 1, 400);
    buf(f, 2, 400);
    expect_ok(send(f, (struct use[]){{0, 0}}, 1), 1, 0, 0);
    expect_ok(send(f, (struct use[]){{0, 0}}, 1), 0, 0, 0);         /* still mapped */
    expect_ok(send(f, (struct use[]){{1, 0}}, 1), 1, 0, 0);         /* 0 and 1 fit together */
    expect_ok(send(f, (struct use[]){{2, 0}, {1, 0}}, 2), 1, 1, 0); /* 0 goes, 1 stays */
    unmap_all(f);
}

/* Rule 5: pinned P, unpinned A and B side by side, A unmapped: the free runs (A's hole, the tail) are each too short
 * for C, and the only unpinned mapping is B, which the request uses. Dropping B too (a defragmentation) makes room
 * for C and B again; P stays where it is. */
static void test_defragment(void **state) {
    struct fixture *f = *state;
    buf(f, 3, 100);                                                      /* P */
    expect_ok(send(f, (struct use[]){{3, HTP_BUF_PINNED}}, 1), 1, 0, 0); /* pages 1..100, guard 101 */
    expect_ok(send(f, (struct use[]){{0, 0}}, 1), 1, 0, 0);              /* A: 400 pages at 102 */
    expect_ok(send(f, (struct use[]){{1, 0}}, 1), 1, 0, 0);              /* B: 400 pages at 503, guard 903 */
    expect_ok(send(f, (struct use[]){{0, HTP_BUF_UNMAP}}, 1), 0, 1, 0);  /* free: 401 pages at 102, 120 at 904 */
    buf(f, 4, 450);                                                      /* C: 451 pages with its guard */
    expect_ok(send(f, (struct use[]){{1, 0}, {4, 0}}, 2), 2, 1, 1);
    expect_ok(send(f, (struct use[]){{3, HTP_BUF_PINNED}, {1, 0}, {4, 0}}, 3), 0, 0, 0); /* all three mapped */
    unmap_all(f);
}

/* Rule 6: the window full of pinned buffers the request does not use: dropped last, after a defragmentation that
 * found nothing unpinned to drop. */
static void test_drop_pinned_last(void **state) {
    struct fixture *f = *state;
    expect_ok(send(f, (struct use[]){{0, HTP_BUF_PINNED}, {1, HTP_BUF_PINNED}}, 2), 2, 0, 0);
    expect_ok(send(f, (struct use[]){{4, 0}}, 1), 1, 2, 2);
    unmap_all(f);
}

/* A request whose buffers do not fit the window even alone: an error naming its bytes, the window's and the largest
 * buffer's; the session serves on. */
static void test_too_big(void **state) {
    struct fixture *f = *state;
    buf(f, 5, 600);
    const struct htp_rsp *rsp = send(f, (struct use[]){{4, 0}, {5, 0}}, 2);
    assert_int_equal(rsp->status, HTP_STATUS_INVAL_PARAMS);
    char want[256];
    snprintf(want, sizeof(want),
             "no room in the window: the batch's 2 buffers take %zu bytes, the window is %zu bytes, the largest "
             "buffer (1) %zu bytes",
             1050 * f->page, WINDOW_PAGES * f->page, 600 * f->page);
    if (strcmp(rsp->message, want) != 0) {
        fail_msg("message '%s', expected '%s'", rsp->message, want);
    }
    expect_ok(send(f, (struct use[]){{5, 0}}, 1), 0, 0, 0); /* mapped by the failed request, and kept */
    unmap_all(f);
}

/* The host's rule for splitting requests: pages plus a guard page each, page 0 never mapped. */
static void test_window_fits(void **state) {
    struct fixture *f = *state;
    const uint64_t fits[2] = {500 * f->page, 521 * f->page};     /* 1 + 501 + 522 = 1024 pages */
    const uint64_t over[2] = {500 * f->page, 521 * f->page + 1}; /* one page more */
    assert_true(vdsp_session_window_fits(f->s, fits, 2));
    assert_false(vdsp_session_window_fits(f->s, over, 2));
    assert_true(vdsp_session_window_fits(f->s, NULL, 0));
    /* And the NPU agrees: the buffers the host says fit map in one request. */
    vdsp_buffer_free(f->bufs[0]);
    vdsp_buffer_free(f->bufs[1]);
    f->bufs[0] = f->bufs[1] = NULL;
    buf(f, 0, 500);
    buf(f, 1, 521);
    expect_ok(send(f, (struct use[]){{0, 0}, {1, 0}}, 2), 2, 0, 0);
    unmap_all(f);
}

/* The largest HTP buffer: MBUF at the real window, a third of a small one, HAP_mmap's 2 GiB on v73. */
static void test_buffer_max_size(void **state) {
    (void) state;
    const size_t mib = (size_t) 1 << 20;
    assert_int_equal(htp_buffer_max_size(1024 * mib, 3200 * mib, 4096 * mib), 1024 * mib);
    assert_int_equal(htp_buffer_max_size(1024 * mib, 128 * mib, 4096 * mib), (128 * mib / 3) & ~(size_t) 127);
    assert_int_equal(htp_buffer_max_size(4096 * mib, 3000 * mib, 2048 * mib), 1000 * mib);
    assert_int_equal(htp_buffer_max_size(4096 * mib, 4096 * mib, 1024 * mib), 1024 * mib);
}

/* v73: a buffer of 2 GiB + a page is refused, naming HAP_mmap's limit, before any unmap; v79 maps it. The buffer is
 * sparse shared memory, so nothing is committed. */
static void test_v73_mapping_limit(void **state) {
    (void) state;
    const size_t page = (size_t) sysconf(_SC_PAGESIZE);
    struct vdsp_buffer *big, *block;
    assert_int_equal(vdsp_buffer_alloc(((size_t) 2 << 30) + page, "test-window-big", &big), VNPU_STATUS_OK);
    assert_int_equal(vdsp_buffer_alloc(4096, "test-window-request", &block), VNPU_STATUS_OK);
    const enum vdsp_arch archs[2] = {VDSP_ARCH_V73, VDSP_ARCH_V79};
    for (int a = 0; a < 2; a++) {
        const struct vdsp_session_params p = {.arch = archs[a], .n_threads = 1}; /* the target's window */
        struct vdsp_session *s;
        assert_int_equal(vdsp_session_open(&p, &s), VNPU_STATUS_OK);
        uint8_t *base = block->host;
        memset(base, 0, 4096);
        struct htp_req *req = (struct htp_req *) base;
        *req = (struct htp_req){.version = HTP_MSG_VERSION,
                                .mdev_count = 1,
                                .n_bufs = 1,
                                .off_bufs = 1024,
                                .off_tensors = 2048,
                                .off_ops = 2048};
        *(struct htp_buf_desc *) (base + 1024) = (struct htp_buf_desc){.fd = big->fd, .size = big->size};
        assert_int_equal(vdsp_session_call(s, block, 0, 4096), VNPU_STATUS_OK);
        if (archs[a] == VDSP_ARCH_V73) {
            assert_int_equal(req->rsp.status, HTP_STATUS_INVAL_PARAMS);
            char want[160];
            snprintf(want, sizeof(want),
                     "cannot map buffer 0 (fd %d, %zu bytes): more than the 2147483648 bytes one mapping may take on "
                     "v73 (HAP_mmap's limit)",
                     big->fd, big->size);
            if (strcmp(req->rsp.message, want) != 0) {
                fail_msg("message '%s', expected '%s'", req->rsp.message, want);
            }
            assert_int_equal(req->rsp.n_unmapped, 0);
        } else {
            expect_ok(&req->rsp, 1, 0, 0);
        }
        const uint64_t size = big->size;
        assert_int_equal(vdsp_session_window_fits(s, &size, 1), archs[a] != VDSP_ARCH_V73);
        vdsp_session_close(s);
    }
    vdsp_buffer_free(block);
    vdsp_buffer_free(big);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reuse_and_evict),   cmocka_unit_test(test_defragment),
        cmocka_unit_test(test_drop_pinned_last),  cmocka_unit_test(test_too_big),
        cmocka_unit_test(test_window_fits),       cmocka_unit_test(test_buffer_max_size),
        cmocka_unit_test(test_v73_mapping_limit),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
