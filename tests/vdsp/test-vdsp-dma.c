/*
 * The DMA engine: FIFO pops, dummies, 2-D strides, a full queue, strict mode (poison before the pop, data
 * after), bounds violations ending the guarded call with a text that names the queue and the bound, byte
 * counters, and a DMA fault outside a guarded call aborting. Most checks run in both modes.
 */
#include "test-vdsp.h"

#include <stdlib.h>
#include <string.h>

#define DDR_PAGES 8

/* A device with a mapped DDR buffer of DDR_PAGES pages; q is the queue of NPU thread 1. */
struct dma_fixture {
    struct vdsp_device *dev;
    struct vdsp_buffer *buf;
    uint32_t addr;
    uint8_t *ddr; /* the buffer through the window */
    uint8_t *vtcm;
    struct vdsp_dma_queue *q;
};

static void fixture_open(struct dma_fixture *f, bool strict) {
    f->dev = test_device_open(VDSP_ARCH_V79, 16, 2, strict);
    assert_int_equal(vdsp_buffer_alloc(DDR_PAGES * test_page_size(), "dma", &f->buf), VNPU_STATUS_OK);
    assert_int_equal(vdsp_mmap(f->dev, f->buf->fd, f->buf->size, &f->addr), 0);
    f->ddr = vdsp_window_base(f->dev) + f->addr;
    f->vtcm = vdsp_vtcm_base(f->dev);
    f->q = vdsp_dma_queue_get(f->dev, 1);
    for (size_t i = 0; i < f->buf->size; i++) {
        f->ddr[i] = (uint8_t) (i * 7 + 3);
    }
}

static void fixture_close(struct dma_fixture *f) {
    vdsp_munmap(f->dev, f->addr);
    vdsp_buffer_free(f->buf);
    vdsp_device_close(f->dev);
}

static void test_dma_fifo(void **state) {
    (void) state;
    for (int strict = 0; strict <= 1; strict++) {
        struct dma_fixture f;
        fixture_open(&f, strict);
        struct vdsp_dma_pair pushed[5] = {
            {f.vtcm + 0, f.ddr + 0},       {f.vtcm + 4096, f.ddr + 512},  {f.vtcm + 100, f.vtcm + 9000},
            {f.vtcm + 8192, f.ddr + 1024}, {f.ddr + 2048, f.vtcm + 4096},
        };
        for (int i = 0; i < 5; i++) {
            const uint32_t rows = i == 2 ? 0 : 1; /* a dummy in the middle */
            assert_true(vdsp_dma_push(f.q, pushed[i].dst, pushed[i].src, 256, 256, 256, rows));
            assert_int_equal(vdsp_dma_depth(f.q), i + 1);
        }
        for (int i = 0; i < 5; i++) {
            const struct vdsp_dma_pair p = vdsp_dma_pop(f.q);
            assert_ptr_equal(p.dst, pushed[i].dst);
            assert_ptr_equal(p.src, pushed[i].src);
            assert_int_equal(vdsp_dma_depth(f.q), 4 - i);
        }
        assert_memory_equal(f.vtcm + 4096, f.ddr + 512, 256);
        assert_memory_equal(f.vtcm + 8192, f.ddr + 1024, 256);
        assert_memory_equal(f.ddr + 2048, f.ddr + 512, 256);               /* pushed after the copy into VTCM+4096 */
        assert_int_equal(vdsp_dma_depth(vdsp_dma_queue_get(f.dev, 0)), 0); /* queues are per thread */
        fixture_close(&f);
    }
}

struct dummies {
    struct vdsp_dma_queue *q;
    struct vdsp_dma_pair popped[2];
};

static void push_dummies(void *arg) {
    struct dummies *d = arg;
    /* Neither side is checked: nothing moves. */
    vdsp_dma_push(d->q, (void *) (uintptr_t) 16, NULL, 0, 0, 4096, 0);
    vdsp_dma_push(d->q, NULL, (void *) (uintptr_t) 32, 0, 0, 0, 7);
    d->popped[0] = vdsp_dma_pop(d->q);
    d->popped[1] = vdsp_dma_pop(d->q);
}

static void test_dma_dummies(void **state) {
    (void) state;
    for (int strict = 0; strict <= 1; strict++) {
        struct dma_fixture f;
        fixture_open(&f, strict);
        struct dummies d = {.q = f.q};
        assert_int_equal(vdsp_call_guarded(f.dev, push_dummies, &d), VDSP_FAULT_NONE);
        assert_ptr_equal(d.popped[0].dst, (void *) (uintptr_t) 16);
        assert_null(d.popped[0].src);
        assert_null(d.popped[1].dst);
        assert_ptr_equal(d.popped[1].src, (void *) (uintptr_t) 32);
        struct vdsp_dma_stats st;
        vdsp_dma_stats(f.q, &st);
        assert_int_equal(st.ddr_to_vtcm + st.vtcm_to_vtcm, 0);
        assert_int_equal(st.vtcm_to_ddr, 0);
        assert_false(vdsp_device_faulted(f.dev));
        fixture_close(&f);
    }
}

static void test_dma_2d(void **state) {
    (void) state;
    enum { ROW = 100, ROWS = 7, SRC_STRIDE = 160, DST_STRIDE = 200 };
    for (int strict = 0; strict <= 1; strict++) {
        struct dma_fixture f;
        fixture_open(&f, strict);
        /* DDR rows 160 apart -> packed VTCM rows -> DDR rows 200 apart, gaps keep their sentinel. */
        uint8_t *out = f.ddr + 8192;
        memset(out, 0xA5, ROWS * DST_STRIDE);
        assert_true(vdsp_dma_push(f.q, f.vtcm + 256, f.ddr + 3, ROW, SRC_STRIDE, ROW, ROWS));
        vdsp_dma_pop(f.q);
        for (int r = 0; r < ROWS; r++) {
            assert_memory_equal(f.vtcm + 256 + r * ROW, f.ddr + 3 + r * SRC_STRIDE, ROW);
        }
        assert_true(vdsp_dma_push(f.q, out, f.vtcm + 256, DST_STRIDE, ROW, ROW, ROWS));
        vdsp_dma_pop(f.q);
        for (int r = 0; r < ROWS; r++) {
            assert_memory_equal(out + r * DST_STRIDE, f.ddr + 3 + r * SRC_STRIDE, ROW);
            if (r + 1 < ROWS) {
                for (int i = ROW; i < DST_STRIDE; i++) {
                    assert_int_equal(out[r * DST_STRIDE + i], 0xA5);
                }
            }
        }
        /* A zero source stride repeats one row (a broadcast). */
        assert_true(vdsp_dma_push(f.q, f.vtcm, f.ddr + 40, 64, 0, 64, 3));
        vdsp_dma_pop(f.q);
        for (int r = 0; r < 3; r++) {
            assert_memory_equal(f.vtcm + r * 64, f.ddr + 40, 64);
        }
        fixture_close(&f);
    }
}

static void test_dma_queue_full(void **state) {
    (void) state;
    struct dma_fixture f;
    fixture_open(&f, false);
    for (int i = 0; i < VDSP_DMA_DEPTH; i++) {
        assert_true(vdsp_dma_push(f.q, f.vtcm + i * 16, f.ddr + i * 16, 16, 16, 16, 1));
    }
    assert_int_equal(vdsp_dma_depth(f.q), VDSP_DMA_DEPTH);
    assert_false(vdsp_dma_push(f.q, f.vtcm, f.ddr, 16, 16, 16, 1));
    assert_int_equal(vdsp_dma_depth(f.q), VDSP_DMA_DEPTH);
    assert_ptr_equal(vdsp_dma_pop(f.q).dst, f.vtcm);
    assert_true(vdsp_dma_push(f.q, f.vtcm, f.ddr, 16, 16, 16, 1));
    for (int i = 1; i <= VDSP_DMA_DEPTH; i++) {
        assert_ptr_equal(vdsp_dma_pop(f.q).dst, f.vtcm + (i % VDSP_DMA_DEPTH) * 16);
    }
    assert_int_equal(vdsp_dma_depth(f.q), 0);
    fixture_close(&f);
}

static bool all_bytes(const uint8_t *p, size_t n, uint8_t v) {
    for (size_t i = 0; i < n; i++) {
        if (p[i] != v) {
            return false;
        }
    }
    return true;
}

static void test_dma_strict_poison(void **state) {
    (void) state;
    struct dma_fixture f;
    fixture_open(&f, true);
    assert_true(vdsp_dma_strict(f.dev));
    /* VTCM starts poisoned, so reading what no DMA wrote is garbage too. */
    assert_true(all_bytes(f.vtcm, 4096, VDSP_DMA_POISON));
    assert_true(all_bytes(f.vtcm + vdsp_vtcm_size(f.dev) - 4096, 4096, VDSP_DMA_POISON));

    memset(f.vtcm, 0, 1024);
    assert_true(vdsp_dma_push(f.q, f.vtcm, f.ddr, 512, 512, 512, 1));
    assert_true(all_bytes(f.vtcm, 512, VDSP_DMA_POISON)); /* before the pop: poison */
    assert_true(all_bytes(f.vtcm + 512, 512, 0));         /* only the destination */
    vdsp_dma_pop(f.q);
    assert_memory_equal(f.vtcm, f.ddr, 512); /* after: the data */

    uint8_t *out = f.ddr + 4096;
    uint8_t before[512];
    memcpy(before, f.ddr, sizeof(before));
    assert_true(vdsp_dma_push(f.q, out, f.vtcm, 512, 512, 512, 1));
    assert_true(all_bytes(out, 512, VDSP_DMA_POISON));
    assert_memory_equal(f.ddr, before, 512); /* the source is untouched */
    vdsp_dma_pop(f.q);
    assert_memory_equal(out, before, 512);
    fixture_close(&f);

    /* Normal mode: the data lands at the push. */
    fixture_open(&f, false);
    assert_false(vdsp_dma_strict(f.dev));
    assert_true(vdsp_dma_push(f.q, f.vtcm, f.ddr, 512, 512, 512, 1));
    assert_memory_equal(f.vtcm, f.ddr, 512);
    vdsp_dma_pop(f.q);
    fixture_close(&f);
}

/* One out-of-bounds descriptor: the sides, relative to the fixture, and the words its fault text holds. */
struct dma_bounds_case {
    const char *name;
    uint8_t *(*dst)(const struct dma_fixture *f);
    uint8_t *(*src)(const struct dma_fixture *f);
    size_t dst_stride, src_stride, row_size;
    uint32_t nrows;
    const char *text;
};

static uint8_t *at_ddr(const struct dma_fixture *f) {
    return f->ddr;
}
static uint8_t *at_ddr_page1(const struct dma_fixture *f) {
    return f->ddr + test_page_size();
}
static uint8_t *at_ddr_end(const struct dma_fixture *f) {
    return f->ddr + f->buf->size - 64;
}
static uint8_t *at_unmapped(const struct dma_fixture *f) {
    return vdsp_window_base(f->dev) + 0x800000;
}
static uint8_t *at_window_end(const struct dma_fixture *f) {
    return vdsp_window_base(f->dev) + 16 * TEST_MIB - 64;
}
static uint8_t *at_vtcm(const struct dma_fixture *f) {
    return f->vtcm;
}
static uint8_t *at_vtcm_64(const struct dma_fixture *f) {
    return f->vtcm + 64;
}
static uint8_t *at_vtcm_end(const struct dma_fixture *f) {
    return f->vtcm + vdsp_vtcm_size(f->dev) - 1000;
}
static uint8_t *before_vtcm(const struct dma_fixture *f) {
    return f->vtcm - 64;
}
static uint8_t host_bytes[256];
static uint8_t *at_host(const struct dma_fixture *f) {
    (void) f;
    return host_bytes;
}

static const struct dma_bounds_case dma_bounds_cases[] = {
    {"vtcm end", at_vtcm_end, at_ddr, 301, 100, 100, 4, "dst VTCM+0x7ffc18..+1003 ends 3 B past the end of VTCM"},
    {"before vtcm", before_vtcm, at_ddr, 128, 128, 128, 1, "dst VTCM-64 is before the start of VTCM"},
    {"unmapped", at_vtcm, at_unmapped, 128, 128, 128, 1,
     "src device address 0x00800000..+128 is not inside one mapped buffer: device address 0x00800000 (not mapped)"},
    {"into guard page", at_vtcm, at_ddr_end, 128, 128, 128, 1, "(guard page after the buffer at 0x00001000"},
    {"2-D into guard page", at_vtcm, at_ddr_page1, 64, 4096, 64, 8, "(guard page after the buffer at 0x00001000"},
    {"window end", at_vtcm, at_window_end, 128, 128, 128, 1, "..+128 leaves the window (16777216 B)"},
    {"ddr to ddr", at_ddr, at_ddr_page1, 128, 128, 128, 1, "DDR to DDR (one side must be VTCM)"},
    {"host memory", at_vtcm, at_host, 128, 128, 128, 1, "is neither in VTCM nor in the window"},
    {"vtcm overlap", at_vtcm_64, at_vtcm, 128, 128, 128, 1, "src VTCM+0x0..+128 and dst VTCM+0x40..+128 overlap"},
    {"extent overflow", at_vtcm, at_ddr, 0, SIZE_MAX / 4, 64, 8, "the extent overflows the address space"},
};

struct push_call {
    struct vdsp_dma_queue *q;
    uint8_t *dst, *src;
    const struct dma_bounds_case *c;
};

static void push_one(void *arg) {
    const struct push_call *p = arg;
    vdsp_dma_push(p->q, p->dst, p->src, p->c->dst_stride, p->c->src_stride, p->c->row_size, p->c->nrows);
}

static void test_dma_bounds(void **state) {
    (void) state;
    for (size_t i = 0; i < sizeof(dma_bounds_cases) / sizeof(dma_bounds_cases[0]); i++) {
        const struct dma_bounds_case *c = &dma_bounds_cases[i];
        for (int strict = 0; strict <= 1; strict++) {
            struct dma_fixture f;
            fixture_open(&f, strict);
            struct push_call p = {.q = f.q, .dst = c->dst(&f), .src = c->src(&f), .c = c};
            const enum vdsp_fault fault = vdsp_call_guarded(f.dev, push_one, &p);
            const char *text = vdsp_fault_text(f.dev);
            if (fault != VDSP_FAULT_DMA || strncmp(text, "DMA queue 1: ", 13) != 0 || !strstr(text, c->text)) {
                fail_msg("case '%s' (strict %d): fault %d, text '%s', expected '%s'", c->name, strict, fault, text,
                         c->text);
            }
            assert_true(vdsp_device_faulted(f.dev));
            assert_int_equal(vdsp_dma_depth(f.q), 0); /* the faulting push queued nothing */
            fixture_close(&f);
        }
    }
}

static void pop_one(void *arg) {
    vdsp_dma_pop(arg);
}

static void test_dma_pop_empty(void **state) {
    (void) state;
    struct dma_fixture f;
    fixture_open(&f, false);
    assert_true(vdsp_dma_push(f.q, f.vtcm, f.ddr, 16, 16, 16, 1));
    vdsp_dma_pop(f.q);
    assert_int_equal(vdsp_call_guarded(f.dev, pop_one, f.q), VDSP_FAULT_DMA);
    assert_string_equal(vdsp_fault_text(f.dev), "DMA queue 1: pop from an empty queue (1 pushes, all popped)");
    fixture_close(&f);
}

/* Strict mode copies at the pop: a buffer unmapped in between faults there, as a load. */
static void test_dma_strict_pop_after_unmap(void **state) {
    (void) state;
    struct dma_fixture f;
    fixture_open(&f, true);
    assert_true(vdsp_dma_push(f.q, f.vtcm, f.ddr, 64, 64, 64, 1));
    vdsp_munmap(f.dev, f.addr);
    assert_int_equal(vdsp_call_guarded(f.dev, pop_one, f.q), VDSP_FAULT_ADDRESS);
    char want[96];
    snprintf(want, sizeof(want), TEST_LOAD_FROM " device address 0x%08x (not mapped)", f.addr);
    assert_string_equal(vdsp_fault_text(f.dev), want);
    vdsp_buffer_free(f.buf);
    vdsp_device_close(f.dev);
}

struct big_push {
    struct vdsp_dma_queue *q;
    uint8_t *dst;
    const uint8_t *src;
    uint32_t nrows;
};

static void push_column(void *arg) {
    const struct big_push *b = arg;
    vdsp_dma_push(b->q, b->dst, b->src, 64, test_page_size(), 64, b->nrows);
    vdsp_dma_pop(b->q);
}

/* The window's page map across many of its 64-page words: a 200-page buffer, read one row per page. */
static void test_dma_large_buffer(void **state) {
    (void) state;
    const size_t page = test_page_size();
    struct vdsp_device *dev = test_device_open(VDSP_ARCH_V79, 16, 1, false);
    struct vdsp_buffer *b;
    assert_int_equal(vdsp_buffer_alloc(200 * page, "large", &b), VNPU_STATUS_OK);
    for (size_t p = 0; p < 200; p++) {
        ((uint8_t *) b->host)[p * page] = (uint8_t) p;
    }
    uint32_t small, a;
    assert_int_equal(vdsp_mmap(dev, b->fd, page, &small), 0); /* pages 1, guard 2 */
    assert_int_equal(vdsp_mmap(dev, b->fd, b->size, &a), 0);  /* pages 3..202, guard 203 */
    struct big_push push = {vdsp_dma_queue_get(dev, 0), vdsp_vtcm_base(dev), vdsp_window_base(dev) + a, 200};
    assert_int_equal(vdsp_call_guarded(dev, push_column, &push), VDSP_FAULT_NONE);
    for (int p = 0; p < 200; p++) {
        assert_int_equal(push.dst[p * 64], (uint8_t) p);
    }
    push.nrows = 201; /* one row into the guard page */
    assert_int_equal(vdsp_call_guarded(dev, push_column, &push), VDSP_FAULT_DMA);
    char want[96];
    snprintf(want, sizeof(want), "(guard page after the buffer at 0x%08x, %zu bytes)", a, b->size);
    assert_non_null(strstr(vdsp_fault_text(dev), want));
    vdsp_device_close(dev);

    /* After an unmap the pages are gone from the map, and the neighbour's stay. */
    dev = test_device_open(VDSP_ARCH_V79, 16, 1, false);
    assert_int_equal(vdsp_mmap(dev, b->fd, page, &small), 0);
    assert_int_equal(vdsp_mmap(dev, b->fd, b->size, &a), 0);
    vdsp_munmap(dev, a);
    push = (struct big_push){vdsp_dma_queue_get(dev, 0), vdsp_vtcm_base(dev), vdsp_window_base(dev) + small, 1};
    assert_int_equal(vdsp_call_guarded(dev, push_column, &push), VDSP_FAULT_NONE);
    push.src = vdsp_window_base(dev) + a + 100 * page;
    assert_int_equal(vdsp_call_guarded(dev, push_column, &push), VDSP_FAULT_DMA);
    snprintf(want, sizeof(want), "device address 0x%08zx (not mapped)", a + 100 * page);
    assert_non_null(strstr(vdsp_fault_text(dev), want));
    vdsp_munmap(dev, small);
    vdsp_device_close(dev);
    vdsp_buffer_free(b);
}

static void test_dma_counters(void **state) {
    (void) state;
    struct dma_fixture f;
    fixture_open(&f, false);
    assert_true(vdsp_dma_push(f.q, f.vtcm, f.ddr, 100, 200, 100, 3));      /* DDR -> VTCM 300 */
    assert_true(vdsp_dma_push(f.q, f.ddr + 4096, f.vtcm, 50, 100, 50, 2)); /* VTCM -> DDR 100 */
    assert_true(vdsp_dma_push(f.q, f.vtcm + 8192, f.vtcm, 64, 64, 64, 1)); /* VTCM -> VTCM 64 */
    assert_true(vdsp_dma_push(f.q, f.vtcm, f.ddr, 100, 100, 100, 0));      /* dummy */
    for (int i = 0; i < 4; i++) {
        vdsp_dma_pop(f.q);
    }
    assert_memory_equal(f.vtcm + 8192, f.vtcm, 64);
    struct vdsp_dma_stats st;
    vdsp_dma_stats(f.q, &st);
    assert_int_equal(st.ddr_to_vtcm, 300);
    assert_int_equal(st.vtcm_to_ddr, 100);
    assert_int_equal(st.vtcm_to_vtcm, 64);
    assert_int_equal(st.descs, 4);
    vdsp_dma_stats(vdsp_dma_queue_get(f.dev, 0), &st);
    assert_int_equal(st.ddr_to_vtcm + st.vtcm_to_ddr + st.vtcm_to_vtcm + st.descs, 0);
    fixture_close(&f);
}

static void dma_fault_unguarded(void) {
    struct dma_fixture f;
    fixture_open(&f, false);
    vdsp_dma_push(f.q, f.vtcm, host_bytes, 16, 16, 16, 1);
}

static void test_dma_fault_outside_guard_aborts(void **state) {
    (void) state;
    const int status = test_fork_status(dma_fault_unguarded);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGABRT);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dma_fifo),
        cmocka_unit_test(test_dma_dummies),
        cmocka_unit_test(test_dma_2d),
        cmocka_unit_test(test_dma_queue_full),
        cmocka_unit_test(test_dma_strict_poison),
        cmocka_unit_test(test_dma_bounds),
        cmocka_unit_test(test_dma_pop_empty),
        cmocka_unit_test(test_dma_strict_pop_after_unmap),
        cmocka_unit_test(test_dma_large_buffer),
        cmocka_unit_test(test_dma_counters),
        cmocka_unit_test(test_dma_fault_outside_guard_aborts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
