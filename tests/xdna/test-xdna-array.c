/*
 * The XDNA tables and the emulated tile array (src/xdna/xdna-arch.h, xdna-array.h): the tables' invariants, designs
 * that move data (passthrough, broadcast, split and join, a 4-D reshape on the mem tile, a stride-0 repeat, the f32
 * -> bf16 fill) checked element by element against plain loops, the exact text of every refusal, deadlocks, strict
 * mode's poison and the run's stats.
 */
#include "test-common.h"

#include "fp16.h"
#include "xdna-arch.h"
#include "xdna-array.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T(c, r) ((struct xdna_tile){(uint8_t) (c), (uint8_t) (r)})

static const struct xdna_device *dev_of(const char *name) {
    const struct xdna_device *dev = xdna_device_find(name, strlen(name));
    assert_non_null(dev);
    return dev;
}

/* ---- tables ---- */

static void test_tables(void **state) {
    (void) state;
    assert_int_equal(xdna_n_devices, 8);
    const char *names[] = {"NPU1", "NPU1Col1", "NPU1Col2", "NPU1Col4", "NPU2", "NPU2Col1", "NPU2Col4", "NPU2Col8"};
    for (size_t i = 0; i < 8; i++) {
        assert_ptr_equal(xdna_device_find(names[i], strlen(names[i])), &xdna_devices[i]);
    }
    for (size_t i = 0; i < xdna_n_devices; i++) {
        const struct xdna_device *d = &xdna_devices[i];
        const bool aie2 = d->arch == XDNA_ARCH_AIE2;
        const struct xdna_device *whole = dev_of(aie2 ? "NPU1" : "NPU2");
        assert_string_equal(d->arch_name, aie2 ? "AIE2" : "AIE2P");
        assert_int_equal(d->n_cols_array, aie2 ? 4 : 8);
        assert_true(d->n_cols >= 1 && d->n_cols <= d->n_cols_array && d->n_cols_array <= XDNA_MAX_COLS);
        assert_int_equal(d->int8_macs_per_cycle, aie2 ? 256 : 512);
        assert_int_equal(d->bf16_macs_per_cycle, aie2 ? 128 : 256);
        assert_true(d->clock_ghz == (aie2 ? 1.0 : 1.76));
        assert_true(d->ddr_gbytes_per_s == whole->ddr_gbytes_per_s * d->n_cols / d->n_cols_array);
    }
    assert_int_equal(dev_of("NPU1")->n_cols, 4);
    assert_int_equal(dev_of("NPU2")->n_cols, 8);
    assert_int_equal(dev_of("NPU2Col4")->n_cols, 4);
    assert_true(dev_of("NPU1")->ddr_gbytes_per_s == 60.0 && dev_of("NPU2")->ddr_gbytes_per_s == 60.0);
    assert_null(xdna_device_find("NPU3", 4));
    assert_null(xdna_device_find("npu1", 4));
    assert_null(xdna_device_find("NPU1Col", 7));
    assert_ptr_equal(xdna_device_find("NPU1Col4 and more", 8), dev_of("NPU1Col4"));

    const struct xdna_tile_limits *shim = xdna_tile_limits(XDNA_TILE_SHIM);
    const struct xdna_tile_limits *mem = xdna_tile_limits(XDNA_TILE_MEM);
    const struct xdna_tile_limits *cpt = xdna_tile_limits(XDNA_TILE_COMPUTE);
    assert_string_equal(shim->name, "shim tile");
    assert_string_equal(mem->name, "mem tile");
    assert_string_equal(cpt->name, "compute tile");
    assert_int_equal(shim->bd_dims, 3);
    assert_int_equal(mem->bd_dims, 4);
    assert_int_equal(cpt->bd_dims, 3);
    assert_int_equal(shim->n_bds, 16);
    assert_int_equal(mem->n_bds, 48);
    assert_int_equal(cpt->n_bds, 16);
    assert_true(shim->max_transfer_words == 4294967295ull);
    assert_int_equal(mem->max_transfer_words, 131071);
    assert_int_equal(cpt->max_transfer_words, 16383);
    assert_int_equal(shim->mem_bytes, 0);
    assert_int_equal(mem->mem_bytes, 524288);
    assert_int_equal(cpt->mem_bytes, 65536);
    assert_int_equal(shim->s2mm_channels, 2);
    assert_int_equal(shim->mm2s_channels, 2);
    assert_int_equal(mem->s2mm_channels, 6);
    assert_int_equal(mem->mm2s_channels, 6);
    assert_int_equal(cpt->s2mm_channels, 2);
    assert_int_equal(cpt->mm2s_channels, 2);
    assert_true(dev_of("NPU1")->stream_bytes_per_cycle == 4.0); /* 32-bit stream switch */
    assert_true(dev_of("NPU2")->stream_bytes_per_cycle == 8.0); /* 64-bit */
    assert_int_equal(xdna_tile_type_of_row(0), XDNA_TILE_SHIM);
    assert_int_equal(xdna_tile_type_of_row(1), XDNA_TILE_MEM);
    for (uint32_t r = 2; r < XDNA_ROWS; r++) {
        assert_int_equal(xdna_tile_type_of_row(r), XDNA_TILE_COMPUTE);
    }
}

/* ---- kernels ---- */

/* bufs[0] in, bufs[1] out: int32 out = in + 1; counts one MAC an element. */
static void k_add1(const struct xdna_call *c) {
    const int32_t *in = c->bufs[0];
    int32_t *out = c->bufs[1];
    const size_t n = c->buf_bytes[1] / 4;
    for (size_t i = 0; i < n; i++) {
        out[i] = in[i] + 1;
    }
    *c->macs += n;
}
static const struct xdna_kernel kern_add1 = {.name = "add1", .fn = k_add1};

/* out = in + the tile's row. */
static void k_add_row(const struct xdna_call *c) {
    const int32_t *in = c->bufs[0];
    int32_t *out = c->bufs[1];
    for (size_t i = 0; i < c->buf_bytes[1] / 4; i++) {
        out[i] = in[i] + c->tile.row;
    }
}
static const struct xdna_kernel kern_add_row = {.name = "add_row", .fn = k_add_row};

/* A plain byte copy of bufs[0] into bufs[1]. */
static void k_copy(const struct xdna_call *c) {
    memcpy(c->bufs[1], c->bufs[0], c->buf_bytes[1]);
}
static const struct xdna_kernel kern_copy = {.name = "copy", .fn = k_copy};

/* A copy that reports 100 cycles a call (the timeline's test). */
static void k_copy100(const struct xdna_call *c) {
    memcpy(c->bufs[1], c->bufs[0], c->buf_bytes[1]);
    *c->cycles += 100;
}
static const struct xdna_kernel kern_copy100 = {.name = "copy100", .fn = k_copy100};

/* Reads its one buffer (a consumer's element) into a sink. */
static volatile int32_t sink;
static void k_copy_in(const struct xdna_call *c) {
    const int32_t *in = c->bufs[0];
    sink = in[0];
}
static const struct xdna_kernel kern_copy_in = {.name = "copy_in", .fn = k_copy_in};

/* Buggy: keeps the previous call's input pointer and copies from it (after its worker released it). */
static const void *stale_in;
static void k_stale(const struct xdna_call *c) {
    memcpy(c->bufs[1], stale_in ? stale_in : c->bufs[0], c->buf_bytes[1]);
    stale_in = c->bufs[0];
}
static const struct xdna_kernel kern_stale = {.name = "stale", .fn = k_stale};

/* Buggy: writes only the first half of its output. */
static void k_half(const struct xdna_call *c) {
    memcpy(c->bufs[1], c->bufs[0], c->buf_bytes[1] / 2);
}
static const struct xdna_kernel kern_half = {.name = "half", .fn = k_half};

/* ---- designs ---- */

/* One worker's standard program: for n elements, acquire in and out, call k(in, out), release both. */
static void program_1in_1out(struct xdna_design *d, int w, int in, int out, const struct xdna_kernel *k, uint32_t n) {
    const struct xdna_call_buf bufs[2] = {{in, 0}, {out, 0}};
    assert_int_equal(xdna_worker_loop_begin(d, w, n), VNPU_STATUS_OK);
    assert_int_equal(xdna_worker_acquire(d, w, in, 1), VNPU_STATUS_OK);
    assert_int_equal(xdna_worker_acquire(d, w, out, 1), VNPU_STATUS_OK);
    assert_int_equal(xdna_worker_call(d, w, k, bufs, 2, NULL, 0), VNPU_STATUS_OK);
    assert_int_equal(xdna_worker_release(d, w, in, 1), VNPU_STATUS_OK);
    assert_int_equal(xdna_worker_release(d, w, out, 1), VNPU_STATUS_OK);
    assert_int_equal(xdna_worker_loop_end(d, w), VNPU_STATUS_OK);
}

/* shim (0,0) -> mem (0,1) -> compute (0,2) -> mem -> shim, elem int32 elements an object, n objects. */
static struct xdna_design *passthrough(bool strict, const struct xdna_kernel *k, uint32_t elem, uint32_t n,
                                       bool drain) {
    struct xdna_design *d;
    assert_int_equal(xdna_design_new(dev_of("NPU1Col1"), strict, &d), VNPU_STATUS_OK);
    const int in2 = xdna_fifo_new(d, "in2", T(0, 0), &T(0, 1), 1, 2, elem, 4);
    const int in1 = xdna_fifo_new(d, "in1", T(0, 1), &T(0, 2), 1, 2, elem, 4);
    const int out1 = xdna_fifo_new(d, "out1", T(0, 2), &T(0, 1), 1, 2, elem, 4);
    const int out2 = xdna_fifo_new(d, "out2", T(0, 1), &T(0, 0), 1, 2, elem, 4);
    assert_true(in2 >= 0 && in1 >= 0 && out1 >= 0 && out2 >= 0);
    assert_int_equal(xdna_link_new(d, T(0, 1), &in2, 1, &in1, 1, NULL), VNPU_STATUS_OK);
    assert_int_equal(xdna_link_new(d, T(0, 1), &out1, 1, &out2, 1, NULL), VNPU_STATUS_OK);
    const int w = xdna_worker_new(d, T(0, 2));
    assert_true(w >= 0);
    program_1in_1out(d, w, in1, out1, k, n);
    assert_int_equal(xdna_runtime_fill(d, in2, 0, NULL, false), VNPU_STATUS_OK);
    if (drain) {
        assert_int_equal(xdna_runtime_drain(d, out2, 1, NULL), VNPU_STATUS_OK);
    }
    assert_int_equal(xdna_design_build(d), VNPU_STATUS_OK);
    assert_string_equal(xdna_design_error(d), "");
    return d;
}

static void test_passthrough(void **state) {
    (void) state;
    enum { ELEM = 256, N = 6 };
    struct xdna_design *d = passthrough(false, &kern_add1, ELEM, N, true);
    int32_t *in = malloc(ELEM * N * 4), *out = malloc(ELEM * N * 4);
    for (int i = 0; i < ELEM * N; i++) {
        in[i] = i * 7 - 1000;
    }
    void *ddr[2] = {in, out};
    const size_t bytes[2] = {ELEM * N * 4, ELEM * N * 4};
    struct xdna_run_stats stats;
    for (int rep = 0; rep < 2; rep++) { /* a design runs any number of times */
        memset(out, 0xAB, ELEM * N * 4);
        assert_int_equal(xdna_design_run(d, ddr, bytes, 2, &stats), VNPU_STATUS_OK);
        for (int i = 0; i < ELEM * N; i++) {
            assert_int_equal(out[i], i * 7 - 1000 + 1);
        }
        /* stats */
        assert_int_equal(stats.ddr_read_bytes, ELEM * N * 4);
        assert_int_equal(stats.ddr_write_bytes, ELEM * N * 4);
        assert_int_equal(stats.tiles[0][2].kernel_calls, N);
        assert_int_equal(stats.tiles[0][2].macs, ELEM * N);
        assert_int_equal(stats.tiles[0][2].dma_in_bytes, ELEM * N * 4);
        assert_int_equal(stats.tiles[0][2].dma_out_bytes, ELEM * N * 4);
        assert_int_equal(stats.tiles[0][2].bds_run, 2 * N);
        assert_int_equal(stats.tiles[0][1].dma_in_bytes, 2 * ELEM * N * 4);
        assert_int_equal(stats.tiles[0][1].dma_out_bytes, 2 * ELEM * N * 4);
        assert_int_equal(stats.tiles[0][0].dma_out_bytes, ELEM * N * 4);
        assert_int_equal(stats.tiles[0][0].dma_in_bytes, ELEM * N * 4);
        assert_int_equal(stats.tiles[0][0].bds_run, 2); /* one fill, one drain */
        assert_true(stats.rounds >= 1);
    }
    /* no stats: the kernels' MACs go to a scratch counter */
    memset(out, 0, ELEM * N * 4);
    assert_int_equal(xdna_design_run(d, ddr, bytes, 2, NULL), VNPU_STATUS_OK);
    assert_int_equal(out[ELEM * N - 1], (ELEM * N - 1) * 7 - 1000 + 1);
    /* rule 3's sums: 2 x 1 KiB in and out on the compute tile plus the default stack; the links' buffers once */
    assert_int_equal(xdna_design_tile_bytes(d, T(0, 2)), 4 * ELEM * 4 + XDNA_STACK_BYTES);
    assert_int_equal(xdna_design_tile_bytes(d, T(0, 1)), 4 * ELEM * 4);
    assert_int_equal(xdna_design_tile_bytes(d, T(0, 0)), 0);
    /* a DDR buffer too small for the transfer: refused before anything moves */
    const size_t small[2] = {ELEM * N * 4, ELEM * 4 * 3 + 4};
    assert_int_equal(xdna_design_run(d, ddr, small, 2, NULL), VNPU_STATUS_BAD_ARG);
    assert_string_equal(xdna_design_error(d),
                        "runtime drain of fifo 'out2': DDR buffer 1 of 3076 bytes is not a whole number of "
                        "256-element objects one shim BD moves (rule 6)");
    free(in);
    free(out);
    xdna_design_free(d);
}

/* in (64 int32 an object) broadcast to the 4 compute tiles of column 0; each adds its row; joined 4 x 64. */
static void test_broadcast_join(void **state) {
    (void) state;
    enum { E = 64, N = 5 };
    struct xdna_design *d;
    assert_int_equal(xdna_design_new(dev_of("NPU1Col1"), false, &d), VNPU_STATUS_OK);
    const struct xdna_tile cpt[4] = {T(0, 2), T(0, 3), T(0, 4), T(0, 5)};
    const int in2 = xdna_fifo_new(d, "in2", T(0, 0), &T(0, 1), 1, 2, E, 4);
    const int bc = xdna_fifo_new(d, "bc", T(0, 1), cpt, 4, 2, E, 4);
    int outs[4];
    const char *names[4] = {"o2", "o3", "o4", "o5"};
    for (int r = 0; r < 4; r++) {
        outs[r] = xdna_fifo_new(d, names[r], cpt[r], &T(0, 1), 1, 2, E, 4);
    }
    const int out2 = xdna_fifo_new(d, "out2", T(0, 1), &T(0, 0), 1, 2, 4 * E, 4);
    assert_int_equal(xdna_link_new(d, T(0, 1), &in2, 1, &bc, 1, NULL), VNPU_STATUS_OK);
    const uint32_t offs[4] = {3 * E, 0, 2 * E, E}; /* rows 2..5 at slices 3, 0, 2, 1 */
    assert_int_equal(xdna_link_new(d, T(0, 1), outs, 4, &out2, 1, offs), VNPU_STATUS_OK);
    for (int r = 0; r < 4; r++) {
        const int w = xdna_worker_new(d, cpt[r]);
        program_1in_1out(d, w, bc, outs[r], &kern_add_row, N);
    }
    assert_int_equal(xdna_runtime_fill(d, in2, 0, NULL, false), VNPU_STATUS_OK);
    assert_int_equal(xdna_runtime_drain(d, out2, 1, NULL), VNPU_STATUS_OK);
    assert_int_equal(xdna_design_build(d), VNPU_STATUS_OK);
    int32_t in[E * N], out[4 * E * N];
    for (int i = 0; i < E * N; i++) {
        in[i] = 10 * i;
    }
    void *ddr[2] = {in, out};
    const size_t bytes[2] = {sizeof(in), sizeof(out)};
    struct xdna_run_stats st;
    assert_int_equal(xdna_design_run(d, ddr, bytes, 2, &st), VNPU_STATUS_OK);
    for (int k = 0; k < N; k++) {
        for (int r = 0; r < 4; r++) {
            for (int i = 0; i < E; i++) {
                assert_int_equal(out[k * 4 * E + offs[r] + i], in[k * E + i] + 2 + r);
            }
        }
    }
    assert_int_equal(st.ddr_read_bytes, sizeof(in));
    assert_int_equal(st.ddr_write_bytes, sizeof(out));
    for (int r = 2; r < 6; r++) {
        assert_int_equal(st.tiles[0][r].kernel_calls, N);
        assert_int_equal(st.tiles[0][r].dma_in_bytes, E * 4 * N);
    }
    /* the broadcast reads each element once on the mem tile: bc once, out2 once */
    assert_int_equal(st.tiles[0][1].dma_out_bytes, E * 4 * N + 4 * E * 4 * N);
    xdna_design_free(d);
}

/* in (256) split at offsets 128 and 0 to compute (0,2), (0,3); joined back at 0 and 128. */
static void test_split_join(void **state) {
    (void) state;
    enum { E = 256, H = 128, N = 4 };
    struct xdna_design *d;
    assert_int_equal(xdna_design_new(dev_of("NPU1Col1"), false, &d), VNPU_STATUS_OK);
    const int in2 = xdna_fifo_new(d, "in2", T(0, 0), &T(0, 1), 1, 2, E, 4);
    const int s[2] = {xdna_fifo_new(d, "s0", T(0, 1), &T(0, 2), 1, 2, H, 4),
                      xdna_fifo_new(d, "s1", T(0, 1), &T(0, 3), 1, 2, H, 4)};
    const int o[2] = {xdna_fifo_new(d, "o0", T(0, 2), &T(0, 1), 1, 2, H, 4),
                      xdna_fifo_new(d, "o1", T(0, 3), &T(0, 1), 1, 2, H, 4)};
    const int out2 = xdna_fifo_new(d, "out2", T(0, 1), &T(0, 0), 1, 3, E, 4);
    const uint32_t split_offs[2] = {H, 0}, join_offs[2] = {0, H};
    assert_int_equal(xdna_link_new(d, T(0, 1), &in2, 1, s, 2, split_offs), VNPU_STATUS_OK);
    assert_int_equal(xdna_link_new(d, T(0, 1), o, 2, &out2, 1, join_offs), VNPU_STATUS_OK);
    program_1in_1out(d, xdna_worker_new(d, T(0, 2)), s[0], o[0], &kern_add_row, N);
    program_1in_1out(d, xdna_worker_new(d, T(0, 3)), s[1], o[1], &kern_add_row, N);
    assert_int_equal(xdna_runtime_fill(d, in2, 0, NULL, false), VNPU_STATUS_OK);
    assert_int_equal(xdna_runtime_drain(d, out2, 1, NULL), VNPU_STATUS_OK);
    assert_int_equal(xdna_design_build(d), VNPU_STATUS_OK);
    /* the mem tile holds in2's 2 and out2's 3 buffers, nothing for the slices */
    assert_int_equal(xdna_design_tile_bytes(d, T(0, 1)), 5 * E * 4);
    int32_t in[E * N], out[E * N];
    for (int i = 0; i < E * N; i++) {
        in[i] = 3 * i + 1;
    }
    void *ddr[2] = {in, out};
    const size_t bytes[2] = {sizeof(in), sizeof(out)};
    assert_int_equal(xdna_design_run(d, ddr, bytes, 2, NULL), VNPU_STATUS_OK);
    for (int k = 0; k < N; k++) {
        for (int i = 0; i < E; i++) {
            const int32_t want = i < H ? in[k * E + H + i] + 2 : in[k * E + i - H] + 3;
            assert_int_equal(out[k * E + i], want);
        }
    }
    xdna_design_free(d);
}

/* A 4-D tap on the mem tile blocks an M x K matrix (uint16) into r x s blocks, row-major blocks of row-major. */
static void test_reshape_4d(void **state) {
    (void) state;
    enum { M = 16, K = 32, R = 4, S = 8, N = 2 };
    struct xdna_design *d;
    assert_int_equal(xdna_design_new(dev_of("NPU2Col1"), false, &d), VNPU_STATUS_OK);
    const int a2 = xdna_fifo_new(d, "a2", T(0, 0), &T(0, 1), 1, 2, M * K, 2);
    const int a1 = xdna_fifo_new(d, "a1", T(0, 1), &T(0, 2), 1, 2, M * K, 2);
    const int c1 = xdna_fifo_new(d, "c1", T(0, 2), &T(0, 1), 1, 2, M * K, 2);
    const int c2 = xdna_fifo_new(d, "c2", T(0, 1), &T(0, 0), 1, 2, M * K, 2);
    assert_int_equal(xdna_link_new(d, T(0, 1), &a2, 1, &a1, 1, NULL), VNPU_STATUS_OK);
    assert_int_equal(xdna_link_new(d, T(0, 1), &c1, 1, &c2, 1, NULL), VNPU_STATUS_OK);
    const struct xdna_tap blocks = {
        .n_dims = 4, .sizes = {M / R, K / S, R, S}, .strides = {R * K, S, K, 1}, .offset = 0};
    assert_int_equal(xdna_fifo_dims_to_stream(d, a1, &blocks), VNPU_STATUS_OK);
    program_1in_1out(d, xdna_worker_new(d, T(0, 2)), a1, c1, &kern_copy, N);
    assert_int_equal(xdna_runtime_fill(d, a2, 0, NULL, false), VNPU_STATUS_OK);
    assert_int_equal(xdna_runtime_drain(d, c2, 1, NULL), VNPU_STATUS_OK);
    assert_int_equal(xdna_design_build(d), VNPU_STATUS_OK);
    uint16_t in[N * M * K], out[N * M * K];
    for (int i = 0; i < N * M * K; i++) {
        in[i] = (uint16_t) (i * 13 + 5);
    }
    void *ddr[2] = {in, out};
    const size_t bytes[2] = {sizeof(in), sizeof(out)};
    assert_int_equal(xdna_design_run(d, ddr, bytes, 2, NULL), VNPU_STATUS_OK);
    for (int k = 0; k < N; k++) {
        size_t o = (size_t) k * M * K;
        for (int br = 0; br < M / R; br++) {
            for (int bc = 0; bc < K / S; bc++) {
                for (int i = 0; i < R; i++) {
                    for (int j = 0; j < S; j++) {
                        assert_int_equal(out[o++], in[k * M * K + (br * R + i) * K + bc * S + j]);
                    }
                }
            }
        }
    }
    xdna_design_free(d);
}

/* shim -> mem -> shim designs (no worker): a stride-0 repeat, and the f32 -> bf16 fill. */
static struct xdna_design *mem_loop(uint32_t elem, uint32_t eb, const struct xdna_tap *fill_tap, bool convert) {
    struct xdna_design *d;
    assert_int_equal(xdna_design_new(dev_of("NPU1"), false, &d), VNPU_STATUS_OK);
    const int a = xdna_fifo_new(d, "a", T(3, 0), &T(3, 1), 1, 2, elem, eb);
    const int b = xdna_fifo_new(d, "b", T(3, 1), &T(3, 0), 1, 2, elem, eb);
    assert_int_equal(xdna_link_new(d, T(3, 1), &a, 1, &b, 1, NULL), VNPU_STATUS_OK);
    assert_int_equal(xdna_runtime_fill(d, a, 0, fill_tap, convert), VNPU_STATUS_OK);
    assert_int_equal(xdna_runtime_drain(d, b, 1, NULL), VNPU_STATUS_OK);
    assert_int_equal(xdna_design_build(d), VNPU_STATUS_OK);
    return d;
}

static void test_repeat(void **state) {
    (void) state;
    enum { E = 64, REP = 3 };
    /* rows of 16, each read 3 times: stride 0 repeats */
    /* a negative stride is refused (rule 6); the forward repeat works */
    const struct xdna_tap neg = {.n_dims = 3, .sizes = {4, REP, 16}, .strides = {-16, 0, 1}, .offset = 48};
    struct xdna_design *bad;
    assert_int_equal(xdna_design_new(dev_of("NPU1"), false, &bad), VNPU_STATUS_OK);
    const int a = xdna_fifo_new(bad, "a", T(0, 0), &T(0, 1), 1, 2, E, 4);
    const int b = xdna_fifo_new(bad, "b", T(0, 1), &T(0, 0), 1, 2, E, 4);
    assert_int_equal(xdna_link_new(bad, T(0, 1), &a, 1, &b, 1, NULL), VNPU_STATUS_OK);
    assert_int_equal(xdna_runtime_fill(bad, a, 0, &neg, false), VNPU_STATUS_OK);
    assert_int_equal(xdna_design_build(bad), VNPU_STATUS_BAD_ARG);
    assert_string_equal(xdna_design_error(bad), "runtime fill of fifo 'a': a BD on a shim tile (0,0) has stride -16 in "
                                                "dimension 0, strides are 0 or more (rule 6)");
    xdna_design_free(bad);

    const struct xdna_tap rep = {.n_dims = 3, .sizes = {4, REP, 16}, .strides = {16, 0, 1}};
    struct xdna_design *d = mem_loop(E, 4, &rep, false);
    int32_t in[E], out[E * REP];
    for (int i = 0; i < E; i++) {
        in[i] = 100 + i;
    }
    void *ddr[2] = {in, out};
    const size_t bytes[2] = {sizeof(in), sizeof(out)};
    struct xdna_run_stats st;
    assert_int_equal(xdna_design_run(d, ddr, bytes, 2, &st), VNPU_STATUS_OK);
    for (int row = 0; row < 4; row++) {
        for (int r = 0; r < REP; r++) {
            for (int j = 0; j < 16; j++) {
                assert_int_equal(out[row * REP * 16 + r * 16 + j], in[row * 16 + j]);
            }
        }
    }
    assert_int_equal(st.ddr_read_bytes, sizeof(out)); /* the repeats are read again */
    assert_int_equal(st.ddr_write_bytes, sizeof(out));
    assert_int_equal(st.tiles[3][0].bds_run, 2);
    xdna_design_free(d);
}

static void test_convert_bf16(void **state) {
    (void) state;
    enum { E = 32, N = 4 };
    struct xdna_design *d = mem_loop(E, 2, NULL, true);
    float in[E * N];
    uint16_t out[E * N];
    struct test_rng rng;
    test_rng_seed(&rng, "xdna convert_f32_bf16");
    for (int i = 0; i < E * N; i++) {
        in[i] = test_rng_normal(&rng, 3.0f);
    }
    in[0] = 1.00390625f; /* 0x3F808000: a tie, to the even 0x3F80 */
    in[1] = 1.01171875f; /* 0x3F818000: a tie, to the even 0x3F82 */
    in[2] = -2.0f;
    void *ddr[2] = {in, out};
    const size_t bytes[2] = {sizeof(in), sizeof(out)};
    struct xdna_run_stats st;
    assert_int_equal(xdna_design_run(d, ddr, bytes, 2, &st), VNPU_STATUS_OK);
    assert_int_equal(out[0], 0x3F80);
    assert_int_equal(out[1], 0x3F82);
    assert_int_equal(out[2], 0xC000);
    for (int i = 0; i < E * N; i++) {
        assert_int_equal(out[i], vnpu_f32_to_bf16(in[i]));
    }
    assert_int_equal(st.ddr_read_bytes, sizeof(in));
    assert_int_equal(st.ddr_write_bytes, sizeof(out));
    xdna_design_free(d);
}

/* ---- refusals ---- */

/* A new design on dev with in2: shim (c,0) -> mem (c,1) of elem_in int32, forwarded (as a split at 0) into A:
 * mem (c,1) -> compute (c,row) of elem_a. Returns the design; *a_out the fifo A, *in_out in2. */
static struct xdna_design *base(const char *dev, uint32_t c, uint32_t row, uint32_t depth_in, uint32_t elem_in,
                                uint32_t elem_a, int *in_out, int *a_out) {
    struct xdna_design *d;
    assert_int_equal(xdna_design_new(dev_of(dev), false, &d), VNPU_STATUS_OK);
    const int in2 = xdna_fifo_new(d, "in2", T(c, 0), &T(c, 1), 1, depth_in, elem_in, 4);
    const int a = xdna_fifo_new(d, "A", T(c, 1), &T(c, row), 1, 2, elem_a, 4);
    assert_true(in2 >= 0 && a >= 0);
    assert_int_equal(xdna_link_new(d, T(c, 1), &in2, 1, &a, 1, (const uint32_t[1]){0}), VNPU_STATUS_OK);
    *in_out = in2;
    *a_out = a;
    return d;
}

/* The timeline (xdna-array.h, "Time"), worked by hand on the passthrough, NPU1Col1: four elements of 64 int32 (256
 * bytes: 64 cycles on AIE2's 4-byte stream; 17 at the shim's DDR share of 15 GB/s at 1 GHz, so the stream sets it),
 * depth 2 everywhere, a kernel of 100 cycles. in2 (shim -> mem) moves e0 [0,64) e1 [64,128); in1 (mem -> compute) e0
 * [64,128) e1 [128,192); the mem tile's buffer of e0 is free at 128, so in2 e2 [128,192) e3 [192,256). The worker
 * waits for in1 e0 until 128 and calls at [128,228) [228,328); in1 e2 waits for the compute buffer the worker
 * releases at 228: [228,292), e3 [328,392) (released at 328). Calls 3 and 4: [328,428) (out1's buffer of e0 sent
 * at 292) and [428,528). out1 (compute -> mem) sends each element when released: [228,292) [328,392) [428,492)
 * [528,592), and out2 (mem -> shim) after it: [292,356) [392,456) [492,556) [592,656): the run takes 656 cycles. */
static void test_timeline(void **state) {
    (void) state;
    struct xdna_design *d = passthrough(false, &kern_copy100, 64, 4, true);
    struct xdna_trace trace = {0};
    xdna_design_trace(d, &trace);
    int32_t in[256], out[256];
    for (int i = 0; i < 256; i++) {
        in[i] = i;
    }
    void *ddr[2] = {in, out};
    const size_t bytes[2] = {sizeof(in), sizeof(out)};
    struct xdna_run_stats *st = calloc(1, sizeof(*st));
    assert_non_null(st);
    for (int rep = 0; rep < 2; rep++) { /* a second run the same: the times start again from 0 */
        trace.n = 0;
        assert_int_equal(xdna_design_run(d, ddr, bytes, 2, st), VNPU_STATUS_OK);
        assert_memory_equal(out, in, sizeof(in));
        assert_true(st->cycles == 656.0);
        assert_true(st->ddr_cycles == 2048.0 / 15.0); /* 1 KiB each way at 15 bytes a cycle */
        assert_true(st->tiles[0][2].kernel_cycles == 400.0);
        assert_true(st->tiles[0][2].wait_cycles == 128.0);
        assert_true(st->tiles[0][0].chan_cycles[1][0] == 256.0); /* the shim's fill, MM2S 0 */
        assert_true(st->tiles[0][0].chan_cycles[0][0] == 256.0); /* its drain, S2MM 0 */
        assert_true(st->tiles[0][1].chan_cycles[0][1] == 256.0); /* the mem tile's second S2MM: out1 */
        /* events: 4 calls, 1 wait, 4 fifos x 4 elements x 2 ends */
        assert_int_equal(trace.n, 37);
        int calls = 0, waits = 0;
        for (size_t i = 0; i < trace.n; i++) {
            const struct xdna_trace_event *e = &trace.ev[i];
            if (e->kind == XDNA_TRACE_KERNEL) {
                static const double t0[4] = {128, 228, 328, 428};
                assert_string_equal(e->name, "copy100");
                assert_int_equal(e->index, calls);
                assert_true(e->t0 == t0[calls] && e->t1 == t0[calls] + 100 && e->col == 0 && e->row == 2);
                calls++;
            } else if (e->kind == XDNA_TRACE_ACQUIRE) {
                assert_string_equal(e->name, "in1");
                assert_true(e->t0 == 0.0 && e->t1 == 128.0 && e->index == 0);
                waits++;
            } else if (!strcmp(e->name, "out2") && e->kind == XDNA_TRACE_S2MM) {
                assert_true(e->row == 0 && e->t1 == 356.0 + 100.0 * e->index);
            }
        }
        assert_int_equal(calls, 4);
        assert_int_equal(waits, 1);
    }
    assert_false(trace.truncated);
    /* a bound on the events: the next run's would pass it, so none of them is kept */
    trace.max_events = trace.n + 10;
    assert_int_equal(xdna_design_run(d, ddr, bytes, 2, NULL), VNPU_STATUS_OK);
    assert_int_equal(trace.n, 37);
    assert_true(trace.truncated);
    free(trace.ev);
    free(st);
    xdna_design_free(d);
}

/* A drain in a broadcast: shim (0,0) -> mem (0,1) -> {compute (0,2), shim (0,0)}, the shim consumer first or second,
 * 4 elements of n int32. */
static struct xdna_design *drain_broadcast(const char *dev, bool shim_first, uint32_t n) {
    struct xdna_design *d;
    assert_int_equal(xdna_design_new(dev_of(dev), false, &d), VNPU_STATUS_OK);
    const int in = xdna_fifo_new(d, "in", T(0, 0), &T(0, 1), 1, 2, n, 4);
    const struct xdna_tile cons[2] = {shim_first ? T(0, 0) : T(0, 2), shim_first ? T(0, 2) : T(0, 0)};
    const int bc = xdna_fifo_new(d, "bc", T(0, 1), cons, 2, 2, n, 4);
    assert_int_equal(xdna_link_new(d, T(0, 1), &in, 1, &bc, 1, NULL), VNPU_STATUS_OK);
    const int w = xdna_worker_new(d, T(0, 2));
    assert_int_equal(xdna_worker_loop_begin(d, w, 4), VNPU_STATUS_OK);
    assert_int_equal(xdna_worker_acquire(d, w, bc, 1), VNPU_STATUS_OK);
    assert_int_equal(xdna_worker_call(d, w, &kern_copy_in, (const struct xdna_call_buf[1]){{bc, 0}}, 1, NULL, 0),
                     VNPU_STATUS_OK);
    assert_int_equal(xdna_worker_release(d, w, bc, 1), VNPU_STATUS_OK);
    assert_int_equal(xdna_worker_loop_end(d, w), VNPU_STATUS_OK);
    assert_int_equal(xdna_runtime_fill(d, in, 0, NULL, false), VNPU_STATUS_OK);
    assert_int_equal(xdna_runtime_drain(d, bc, 1, NULL), VNPU_STATUS_OK);
    assert_int_equal(xdna_design_build(d), VNPU_STATUS_OK);
    return d;
}

/* The timeline counts the DDR bytes of every shim end, a drain in a broadcast too, wherever the shim is among its
 * consumers: NPU2Col1 (7.5 GB/s at 1.76 GHz: 60 / 8 / 1.76 bytes a cycle) moves 4 x 16 KiB in and out; the DDR time
 * bounds the run. */
static void test_timeline_drain_broadcast(void **state) {
    (void) state;
    const uint32_t n = 4096;
    int32_t *in = malloc(4 * n * sizeof(int32_t)), *out = calloc(4 * n, sizeof(int32_t));
    assert_true(in && out);
    for (uint32_t i = 0; i < 4 * n; i++) {
        in[i] = (int32_t) i;
    }
    void *ddr[2] = {in, out};
    const size_t bytes[2] = {4 * n * sizeof(int32_t), 4 * n * sizeof(int32_t)};
    struct xdna_run_stats st[2];
    for (int first = 0; first < 2; first++) {
        struct xdna_design *d = drain_broadcast("NPU2Col1", first, n);
        assert_int_equal(xdna_design_run(d, ddr, bytes, 2, &st[first]), VNPU_STATUS_OK);
        assert_memory_equal(out, in, bytes[0]);
        xdna_design_free(d);
    }
    const double bpc = 60.0 / 8 / 1.76; /* NPU2Col1's DDR bytes a cycle, its one column */
    assert_true(fabs(st[0].ddr_cycles - 2.0 * bytes[0] / bpc) < 1e-6 * st[0].ddr_cycles);
    assert_true(st[0].ddr_cycles == st[1].ddr_cycles && st[0].cycles == st[1].cycles);
    assert_true(st[0].cycles >= st[0].ddr_cycles);
    free(in);
    free(out);
}

/* Rule 8: components run at once, so a fill may not read a DDR buffer another component drains into (given as the
 * same index, or as two indices of one buffer); drains of two components into one buffer are allowed. */
static void test_refuse_ddr_sharing(void **state) {
    (void) state;
    struct xdna_design *d;
    assert_int_equal(xdna_design_new(dev_of("NPU1Col2"), false, &d), VNPU_STATUS_OK);
    for (uint8_t c = 0; c < 2; c++) {
        char in_name[16], out_name[16];
        snprintf(in_name, sizeof(in_name), "in%u", c);
        snprintf(out_name, sizeof(out_name), "out%u", c);
        const int in = xdna_fifo_new(d, in_name, T(c, 0), &T(c, 1), 1, 2, 64, 4);
        const int out = xdna_fifo_new(d, out_name, T(c, 1), &T(c, 0), 1, 2, 64, 4);
        assert_int_equal(xdna_link_new(d, T(c, 1), &in, 1, &out, 1, NULL), VNPU_STATUS_OK);
        assert_int_equal(xdna_runtime_fill(d, in, c, NULL, false), VNPU_STATUS_OK); /* column c from buffer c */
        assert_int_equal(xdna_runtime_drain(d, out, 2, NULL), VNPU_STATUS_OK);      /* both into buffer 2 */
    }
    assert_int_equal(xdna_design_build(d), VNPU_STATUS_OK);
    int32_t a[64] = {0}, b[64] = {0}, c2[64];
    void *ddr[3] = {a, b, c2};
    const size_t bytes[3] = {sizeof(a), sizeof(b), sizeof(c2)};
    assert_int_equal(xdna_design_run(d, ddr, bytes, 3, NULL), VNPU_STATUS_OK); /* two drains into one buffer */
    ddr[1] = c2; /* column 1 now fills from what both drain into */
    assert_int_equal(xdna_design_run(d, ddr, bytes, 3, NULL), VNPU_STATUS_BAD_ARG);
    assert_string_equal(
        xdna_design_error(d),
        "runtime fill of fifo 'in1' reads DDR buffer 1, which the drain of fifo 'out0' writes (the same "
        "memory): they share no tile, so they run at once and the bytes read would depend on the host's "
        "threads (rule 8)");
    xdna_design_free(d);
}

static void expect_build_error(struct xdna_design *d, const char *msg) {
    assert_int_equal(xdna_design_build(d), VNPU_STATUS_BAD_ARG);
    assert_string_equal(xdna_design_error(d), msg);
    /* every later call is a no-op with the same status and message */
    assert_int_equal(xdna_design_build(d), VNPU_STATUS_BAD_ARG);
    assert_int_equal(xdna_worker_new(d, T(0, 2)), VNPU_STATUS_BAD_ARG);
    assert_string_equal(xdna_design_error(d), msg);
    assert_int_equal(xdna_design_run(d, NULL, NULL, 0, NULL), VNPU_STATUS_BAD_ARG);
    xdna_design_free(d);
}

static void test_refuse_dims(void **state) {
    (void) state;
    int in2, a;
    /* a fifth dimension on a mem tile */
    struct xdna_design *d = base("NPU1Col1", 0, 2, 2, 256, 256, &in2, &a);
    const struct xdna_tap t5 = {.n_dims = 5, .sizes = {2, 2, 2, 2, 16}, .strides = {128, 64, 32, 16, 1}};
    assert_int_equal(xdna_fifo_dims_to_stream(d, a, &t5), VNPU_STATUS_OK);
    expect_build_error(d, "fifo 'A': a BD on a mem tile (0,1) needs 5 dims, 4 available (rule 6)");
    /* a fourth on a compute tile */
    d = base("NPU1", 2, 3, 2, 256, 256, &in2, &a);
    const struct xdna_tap t4 = {.n_dims = 4, .sizes = {2, 2, 4, 16}, .strides = {128, 64, 16, 1}};
    assert_int_equal(xdna_fifo_dims_from_stream(d, a, 0, &t4), VNPU_STATUS_OK);
    expect_build_error(d, "fifo 'A': a BD on a compute tile (2,3) needs 4 dims, 3 available (route it L3 -> L2 -> L1 "
                          "and put the reshape on the mem tile)");
    /* a 4-dim shim runtime transfer */
    d = base("NPU1Col1", 0, 2, 2, 256, 256, &in2, &a);
    assert_int_equal(xdna_runtime_fill(d, in2, 0, &t4, false), VNPU_STATUS_OK);
    expect_build_error(d, "runtime fill of fifo 'in2': a BD on a shim tile (0,0) needs 4 dims, 3 available (route it "
                          "L3 -> L2 -> L1 and put the reshape on the mem tile)");
    /* the same 4-D pattern is fine on the mem tile */
    d = base("NPU1Col1", 0, 2, 2, 256, 256, &in2, &a);
    assert_int_equal(xdna_fifo_dims_to_stream(d, a, &t4), VNPU_STATUS_OK);
    assert_int_equal(xdna_design_build(d), VNPU_STATUS_OK);
    xdna_design_free(d);
}

static void test_refuse_tap_fields(void **state) {
    (void) state;
    int in2, a;
    struct {
        struct xdna_tap tap;
        const char *msg;
    } cases[] = {
        {{.n_dims = 2, .sizes = {1024, 1}, .strides = {0, 1}},
         "fifo 'A': a BD on a compute tile (0,2) has size 1024 in dimension 0, 1..1023 allowed (rule 6)"},
        {{.n_dims = 2, .sizes = {4, 64}, .strides = {64, 2}},
         "fifo 'A': a BD on a compute tile (0,2) has innermost stride 2, it must be 1 (rule 6)"},
        {{.n_dims = 2, .sizes = {2, 1024}, .strides = {1024, 1}},
         "fifo 'A': a BD on a compute tile (0,2) has 1024 words in its innermost dimension, at most 1023 (rule 6)"},
        {{.n_dims = 2, .sizes = {4, 64}, .strides = {64, 1}, .offset = 1},
         "fifo 'A': the pattern on compute tile (0,2) reaches element 256 of a buffer of 256 (rule 6)"},
        {{.n_dims = 2, .sizes = {2, 64}, .strides = {64, 1}},
         "fifo 'A': the pattern on compute tile (0,2) moves 128 elements, an element has 256 (rule 6)"},
        {{.n_dims = 2, .sizes = {2, 16}, .strides = {1u << 20, 1}},
         "fifo 'A': a BD on a compute tile (0,2) has a stride of 1048576 words in dimension 0, at most 1048575 "
         "(rule 6)"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct xdna_design *d = base("NPU1Col1", 0, 2, 2, 256, 256, &in2, &a);
        assert_int_equal(xdna_fifo_dims_from_stream(d, a, 0, &cases[i].tap), VNPU_STATUS_OK);
        expect_build_error(d, cases[i].msg);
    }
    /* bytes that are not whole words: 3 bytes innermost, a stride of 3 bytes */
    struct xdna_design *d;
    assert_int_equal(xdna_design_new(dev_of("NPU1Col1"), false, &d), VNPU_STATUS_OK);
    const int b2 = xdna_fifo_new(d, "b2", T(0, 0), &T(0, 1), 1, 2, 64, 1);
    const int b1 = xdna_fifo_new(d, "b1", T(0, 1), &T(0, 2), 1, 2, 64, 1);
    assert_int_equal(xdna_link_new(d, T(0, 1), &b2, 1, &b1, 1, NULL), VNPU_STATUS_OK);
    const struct xdna_tap odd = {.n_dims = 2, .sizes = {2, 3}, .strides = {3, 1}};
    assert_int_equal(xdna_fifo_dims_to_stream(d, b1, &odd), VNPU_STATUS_OK);
    expect_build_error(d, "fifo 'b1': a BD on a mem tile (0,1) moves 3 bytes in its innermost dimension, not a whole "
                          "number of 32-bit words (rule 6)");
    assert_int_equal(xdna_design_new(dev_of("NPU1Col1"), false, &d), VNPU_STATUS_OK);
    assert_int_equal(xdna_fifo_new(d, "odd", T(0, 0), &T(0, 1), 1, 2, 3, 1), VNPU_STATUS_BAD_ARG);
    assert_string_equal(xdna_design_error(d),
                        "fifo 'odd': an element of 3 x 1 bytes is not a whole number of 32-bit words (rule 6)");
    xdna_design_free(d);
}

static void test_refuse_transfer_length(void **state) {
    (void) state;
    int in2, a;
    /* 16384 words into a compute tile (untapped: one plain length) */
    struct xdna_design *d = base("NPU1Col1", 0, 2, 2, 16384, 16384, &in2, &a);
    expect_build_error(d, "fifo 'A': a BD on a compute tile (0,2) moves 16384 words, at most 16383 (rule 6)");
    /* the same with a 2-D pattern */
    d = base("NPU1Col1", 0, 2, 2, 16384, 16384, &in2, &a);
    const struct xdna_tap t2 = {.n_dims = 2, .sizes = {32, 512}, .strides = {512, 1}};
    assert_int_equal(xdna_fifo_dims_from_stream(d, a, 0, &t2), VNPU_STATUS_OK);
    expect_build_error(d, "fifo 'A': a BD on a compute tile (0,2) moves 16384 words, at most 16383 (rule 6)");
    /* 131072 words into a mem tile */
    d = base("NPU1Col1", 0, 2, 1, 131072, 64, &in2, &a);
    expect_build_error(d, "fifo 'in2': a BD on a mem tile (0,1) moves 131072 words, at most 131071 (rule 6)");
}

static void test_refuse_depth_memory_bds(void **state) {
    (void) state;
    struct xdna_design *d;
    /* depth */
    assert_int_equal(xdna_design_new(dev_of("NPU1Col1"), false, &d), VNPU_STATUS_OK);
    assert_int_equal(xdna_fifo_new(d, "A", T(0, 1), &T(0, 2), 1, 9, 64, 4), VNPU_STATUS_BAD_ARG);
    assert_string_equal(xdna_design_error(d), "fifo 'A': depth 9 on a compute tile (0,2), at most 8 in L1 (put deeper "
                                              "buffering on a mem tile, rule 4)");
    assert_int_equal(xdna_fifo_new(d, "B", T(0, 1), &T(0, 2), 1, 2, 64, 4), VNPU_STATUS_BAD_ARG); /* sticky */
    assert_string_equal(xdna_design_error(d), "fifo 'A': depth 9 on a compute tile (0,2), at most 8 in L1 (put deeper "
                                              "buffering on a mem tile, rule 4)");
    xdna_design_free(d);
    assert_int_equal(xdna_design_new(dev_of("NPU1Col1"), false, &d), VNPU_STATUS_OK);
    assert_int_equal(xdna_fifo_new(d, "A", T(0, 1), &T(0, 2), 1, 0, 64, 4), VNPU_STATUS_BAD_ARG);
    assert_string_equal(xdna_design_error(d), "fifo 'A': depth 0, at least 1 (rule 4)");
    xdna_design_free(d);
    /* a deep fifo between shim and mem tile is fine (rule 3 bounds it): 12 of 4 KiB */
    int in2, a;
    d = base("NPU1Col1", 0, 2, 12, 1024, 1024, &in2, &a);
    assert_int_equal(xdna_design_build(d), VNPU_STATUS_OK);
    assert_int_equal(xdna_design_tile_bytes(d, T(0, 1)), 12 * 4096);
    xdna_design_free(d);

    /* L1: 2 x 16 KiB in, 2 x 16 KiB out and a 5 KiB stack */
    static const struct xdna_kernel big_stack = {.name = "big", .fn = k_copy, .stack_bytes = 5120};
    d = base("NPU1Col1", 0, 2, 2, 4096, 4096, &in2, &a);
    const int o = xdna_fifo_new(d, "o", T(0, 2), &T(0, 1), 1, 2, 4096, 4);
    const int o2 = xdna_fifo_new(d, "o2", T(0, 1), &T(0, 0), 1, 2, 4096, 4);
    assert_int_equal(xdna_link_new(d, T(0, 1), &o, 1, &o2, 1, NULL), VNPU_STATUS_OK);
    program_1in_1out(d, xdna_worker_new(d, T(0, 2)), a, o, &big_stack, 1);
    expect_build_error(d, "compute tile (0,2): 70656 bytes of buffers and stack, L1 has 65536 (rule 3)");
    /* L2: 3 x 192 KiB */
    d = base("NPU1Col2", 1, 2, 3, 49152, 64, &in2, &a);
    expect_build_error(d, "mem tile (1,1): 589824 bytes of buffers, L2 has 524288 (rule 3)");

    /* BDs: three depth-6 fifos into compute (0,2) */
    assert_int_equal(xdna_design_new(dev_of("NPU1Col1"), false, &d), VNPU_STATUS_OK);
    in2 = xdna_fifo_new(d, "in2", T(0, 0), &T(0, 1), 1, 2, 48, 4);
    const int parts[3] = {xdna_fifo_new(d, "p0", T(0, 1), &T(0, 2), 1, 6, 16, 4),
                          xdna_fifo_new(d, "p1", T(0, 1), &T(0, 2), 1, 6, 16, 4),
                          xdna_fifo_new(d, "p2", T(0, 1), &T(0, 2), 1, 6, 16, 4)};
    assert_int_equal(xdna_link_new(d, T(0, 1), &in2, 1, parts, 3, NULL), VNPU_STATUS_OK);
    expect_build_error(d, "compute tile (0,2): 18 BDs, a compute tile has 16 (rule 5)");
}

/* Rule 9: a split on mem tile (0,1) of n_out parts of 16 words, part i to cons[i]; a part that reaches another mem
 * tile is forwarded there to its shim (a mem tile moves data only through links). */
static struct xdna_design *split_to(const char *dev, const struct xdna_tile *cons, uint32_t n_out) {
    struct xdna_design *d;
    assert_int_equal(xdna_design_new(dev_of(dev), false, &d), VNPU_STATUS_OK);
    const int in2 = xdna_fifo_new(d, "in2", T(0, 0), &T(0, 1), 1, 2, 16 * n_out, 4);
    int out[8];
    for (uint32_t i = 0; i < n_out; i++) {
        char name[16];
        snprintf(name, sizeof(name), "o%u", i);
        out[i] = xdna_fifo_new(d, name, T(0, 1), &cons[i], 1, 2, 16, 4);
        if (cons[i].row == XDNA_ROW_MEM) {
            const int fwd = xdna_fifo_new(d, "fwd", cons[i], &T(cons[i].col, 0), 1, 2, 16, 4);
            assert_int_equal(xdna_link_new(d, cons[i], &out[i], 1, &fwd, 1, NULL), VNPU_STATUS_OK);
        }
    }
    assert_int_equal(xdna_link_new(d, T(0, 1), &in2, 1, out, n_out, NULL), VNPU_STATUS_OK);
    return d;
}

static void test_refuse_channels(void **state) {
    (void) state;
    /* a compute tile receives on 2 channels: a third fifo into it is refused */
    struct xdna_design *d = split_to("NPU1Col1", (const struct xdna_tile[3]){T(0, 2), T(0, 2), T(0, 3)}, 3);
    assert_int_equal(xdna_design_build(d), VNPU_STATUS_OK);
    xdna_design_free(d);
    d = split_to("NPU1Col1", (const struct xdna_tile[3]){T(0, 2), T(0, 2), T(0, 2)}, 3);
    expect_build_error(d, "fifo 'o2': its consumer on compute tile (0,2) needs an S2MM DMA channel 3, the tile has 2 "
                          "(rule 9: each ObjectFifo end takes a channel)");
    /* a shim drains on 2 */
    d = split_to("NPU1Col1", (const struct xdna_tile[3]){T(0, 0), T(0, 0), T(0, 0)}, 3);
    expect_build_error(d,
                       "fifo 'o2': its consumer on shim tile (0,0) needs an S2MM DMA channel 3, the tile has 2 (rule "
                       "9: each ObjectFifo end takes a channel)");
    /* a mem tile sends on 6: four compute tiles, its shim twice, then the next column's mem tile */
    const struct xdna_tile six[7] = {T(0, 2), T(0, 3), T(0, 4), T(0, 5), T(0, 0), T(0, 0), T(1, 1)};
    d = split_to("NPU1Col2", six, 6);
    assert_int_equal(xdna_design_build(d), VNPU_STATUS_OK);
    xdna_design_free(d);
    d = split_to("NPU1Col2", six, 7);
    expect_build_error(d, "fifo 'o6': its producer on mem tile (0,1) needs an MM2S DMA channel 7, the tile has 6 "
                          "(rule 9: each ObjectFifo end takes a channel)");
}

static void expect_new_error(const char *dev, struct xdna_tile prod, struct xdna_tile cons, const char *msg) {
    struct xdna_design *d;
    assert_int_equal(xdna_design_new(dev_of(dev), false, &d), VNPU_STATUS_OK);
    assert_int_equal(xdna_fifo_new(d, "A", prod, &cons, 1, 2, 64, 4), VNPU_STATUS_BAD_ARG);
    assert_string_equal(xdna_design_error(d), msg);
    xdna_design_free(d);
}

static void test_refuse_routes_tiles(void **state) {
    (void) state;
    expect_new_error("NPU1Col2", T(1, 2), T(0, 1),
                     "fifo 'A': compute tile (1,2) cannot reach mem tile (0,1) (a compute tile's DMA reaches its own "
                     "column's mem tile and adjacent compute tiles; cross columns through a mem tile's broadcast or "
                     "mem tile to mem tile, rule 2)");
    expect_new_error("NPU1Col1", T(0, 0), T(0, 2),
                     "fifo 'A': shim tile (0,0) cannot reach compute tile (0,2) (a shim reaches its own column's mem "
                     "tile: route L3 -> L2 -> L1, rule 2)");
    expect_new_error("NPU1Col2", T(0, 1), T(1, 0),
                     "fifo 'A': mem tile (0,1) cannot reach shim tile (1,0) (a shim reaches its own column's mem tile: "
                     "route L3 -> L2 -> L1, rule 2)");
    expect_new_error("NPU1", T(0, 2), T(1, 3),
                     "fifo 'A': compute tile (0,2) cannot reach compute tile (1,3) (a compute tile's DMA reaches its "
                     "own column's mem tile and adjacent compute tiles; cross columns through a mem tile's broadcast "
                     "or mem tile to mem tile, rule 2)");
    expect_new_error("NPU1Col4", T(0, 1), T(4, 2), "tile (4,2) is outside NPU1Col4 (4 columns, rows 0..5, rule 1)");
    expect_new_error("NPU1Col1", T(0, 6), T(0, 1), "tile (0,6) is outside NPU1Col1 (1 column, rows 0..5, rule 1)");
    /* a mem tile reaches another column's compute tile only in a broadcast */
    expect_new_error(
        "NPU1Col2", T(0, 1), T(1, 2),
        "fifo 'A': mem tile (0,1) cannot reach compute tile (1,2) (a compute tile's DMA reaches its own "
        "column's mem tile and adjacent compute tiles; cross columns through a mem tile's broadcast or mem "
        "tile to mem tile, rule 2)");
    /* allowed: adjacent compute tiles, mem to mem across columns, a mem tile's broadcast to a row of compute tiles
     * (mlir-aie's whole_array) */
    struct xdna_design *d;
    assert_int_equal(xdna_design_new(dev_of("NPU1"), false, &d), VNPU_STATUS_OK);
    assert_true(xdna_fifo_new(d, "cc", T(1, 2), &T(2, 2), 1, 2, 64, 4) >= 0);
    assert_true(xdna_fifo_new(d, "cr", T(1, 2), &T(1, 3), 1, 2, 64, 4) >= 0);
    assert_true(xdna_fifo_new(d, "mm", T(0, 1), &T(3, 1), 1, 2, 64, 4) >= 0);
    assert_true(xdna_fifo_new(d, "row", T(0, 1), (const struct xdna_tile[4]){T(0, 3), T(1, 3), T(2, 3), T(3, 3)}, 4, 2,
                              64, 4) >= 0);
    assert_int_equal(xdna_worker_new(d, T(4, 2)), VNPU_STATUS_BAD_ARG);
    assert_string_equal(xdna_design_error(d), "tile (4,2) is outside NPU1 (4 columns, rows 0..5, rule 1)");
    xdna_design_free(d);
}

static void test_refuse_links(void **state) {
    (void) state;
    struct xdna_design *d;
    assert_int_equal(xdna_design_new(dev_of("NPU1Col1"), false, &d), VNPU_STATUS_OK);
    int in2 = xdna_fifo_new(d, "in2", T(0, 0), &T(0, 1), 1, 2, 128, 4);
    int s[2] = {xdna_fifo_new(d, "s0", T(0, 1), &T(0, 2), 1, 2, 64, 4),
                xdna_fifo_new(d, "s1", T(0, 1), &T(0, 3), 1, 2, 64, 4)};
    const uint32_t overlap[2] = {0, 32};
    assert_int_equal(xdna_link_new(d, T(0, 1), &in2, 1, s, 2, overlap), VNPU_STATUS_BAD_ARG);
    assert_string_equal(xdna_design_error(d),
                        "link on mem tile (0,1): fifos 's0' and 's1' overlap at elements 32..63 of fifo 'in2'");
    xdna_design_free(d);

    assert_int_equal(xdna_design_new(dev_of("NPU1Col1"), false, &d), VNPU_STATUS_OK);
    in2 = xdna_fifo_new(d, "in2", T(0, 0), &T(0, 1), 1, 2, 128, 4);
    s[0] = xdna_fifo_new(d, "s0", T(0, 1), &T(0, 2), 1, 2, 64, 4);
    const uint32_t outside[1] = {96};
    assert_int_equal(xdna_link_new(d, T(0, 1), &in2, 1, s, 1, outside), VNPU_STATUS_BAD_ARG);
    assert_string_equal(xdna_design_error(d),
                        "link on mem tile (0,1): fifo 's0' at offset 96 takes elements 96..159 of fifo 'in2', which "
                        "has 128");
    xdna_design_free(d);

    assert_int_equal(xdna_design_new(dev_of("NPU1Col1"), false, &d), VNPU_STATUS_OK);
    in2 = xdna_fifo_new(d, "in2", T(0, 0), &T(0, 1), 1, 2, 128, 4);
    s[0] = xdna_fifo_new(d, "s0", T(0, 1), &T(0, 2), 1, 2, 64, 2);
    assert_int_equal(xdna_link_new(d, T(0, 1), &in2, 1, s, 1, NULL), VNPU_STATUS_BAD_ARG);
    assert_string_equal(xdna_design_error(d), "link on mem tile (0,1): fifo 's0' has 2-byte elements, fifo 'in2' "
                                              "4-byte (element sizes must agree)");
    xdna_design_free(d);

    /* a mem tile side in no link */
    assert_int_equal(xdna_design_new(dev_of("NPU1Col1"), false, &d), VNPU_STATUS_OK);
    assert_true(xdna_fifo_new(d, "in2", T(0, 0), &T(0, 1), 1, 2, 128, 4) >= 0);
    expect_build_error(d, "fifo 'in2': its consumer on mem tile (0,1) is in no link (a mem tile moves data only "
                          "through links)");
}

/* The limits at their values: exactly 64 KiB of L1 and 16 BDs on a compute tile build, a byte or a BD more does not;
 * and what would wrap the arithmetic is refused: a stride of 2^62 elements, an offset past 2^40, a stack larger than
 * L1; a second fifo of a name; a forward between elements of different sizes; an empty design runs. */
static void test_refuse_boundaries(void **state) {
    (void) state;
    for (size_t extra = 0; extra <= 1; extra++) {
        const struct xdna_kernel stack = {.name = "stack", .fn = k_copy, .stack_bytes = 4096 + extra};
        int in2, a;
        struct xdna_design *d = base("NPU1Col1", 0, 2, 2, 3840, 3840, &in2, &a); /* 2 x 15 KiB in */
        const int o = xdna_fifo_new(d, "o", T(0, 2), &T(0, 1), 1, 2, 3840, 4);   /* 2 x 15 KiB out */
        const int o2 = xdna_fifo_new(d, "o2", T(0, 1), &T(0, 0), 1, 2, 3840, 4);
        assert_int_equal(xdna_link_new(d, T(0, 1), &o, 1, &o2, 1, NULL), VNPU_STATUS_OK);
        program_1in_1out(d, xdna_worker_new(d, T(0, 2)), a, o, &stack, 1);
        if (extra) {
            expect_build_error(d, "compute tile (0,2): 65537 bytes of buffers and stack, L1 has 65536 (rule 3)");
        } else {
            assert_int_equal(xdna_design_build(d), VNPU_STATUS_OK);
            assert_int_equal(xdna_design_tile_bytes(d, T(0, 2)), 65536);
            xdna_design_free(d);
        }
    }
    for (uint32_t depth = 0; depth <= 1; depth++) { /* 8 + 8 BDs, and one more */
        struct xdna_design *d;
        assert_int_equal(xdna_design_new(dev_of("NPU1Col1"), false, &d), VNPU_STATUS_OK);
        const int in2 = xdna_fifo_new(d, "in2", T(0, 0), &T(0, 1), 1, 2, 48, 4);
        const int parts[3] = {xdna_fifo_new(d, "p0", T(0, 1), &T(0, 2), 1, 8, 16, 4),
                              xdna_fifo_new(d, "p1", T(0, 1), &T(0, 2), 1, 8, 16, 4),
                              depth ? xdna_fifo_new(d, "p2", T(0, 1), &T(0, 2), 1, depth, 16, 4) : -1};
        assert_int_equal(xdna_link_new(d, T(0, 1), &in2, 1, parts, depth ? 3 : 2, NULL), VNPU_STATUS_OK);
        if (depth) {
            expect_build_error(d, "compute tile (0,2): 17 BDs, a compute tile has 16 (rule 5)");
        } else {
            assert_int_equal(xdna_design_build(d), VNPU_STATUS_OK);
            xdna_design_free(d);
        }
    }
    int in2, a;
    struct xdna_design *d = base("NPU1Col1", 0, 2, 2, 64, 64, &in2, &a);
    const struct xdna_tap wrap = {.n_dims = 2, .sizes = {4, 16}, .strides = {(int64_t) 1 << 62, 1}};
    assert_int_equal(xdna_fifo_dims_from_stream(d, a, 0, &wrap), VNPU_STATUS_OK);
    expect_build_error(d, "fifo 'A': a BD on a compute tile (0,2) has a stride of 4611686018427387904 words in "
                          "dimension 0, at most 1048575 (rule 6)");
    d = base("NPU1Col1", 0, 2, 2, 64, 64, &in2, &a);
    const int h = xdna_fifo_new(d, "h", T(0, 2), &T(0, 1), 1, 2, 16, 2);
    const int h2 = xdna_fifo_new(d, "h2", T(0, 1), &T(0, 0), 1, 2, 16, 2);
    assert_int_equal(xdna_link_new(d, T(0, 1), &h, 1, &h2, 1, NULL), VNPU_STATUS_OK);
    const struct xdna_tap odd = {.n_dims = 2, .sizes = {2, 8}, .strides = {0, 1}, .offset = 1};
    assert_int_equal(xdna_fifo_dims_to_stream(d, h2, &odd), VNPU_STATUS_OK);
    expect_build_error(d,
                       "fifo 'h2': a BD on a mem tile (0,1) starts at element 1, not at a whole 32-bit word (rule 6)");
    d = base("NPU1Col1", 0, 2, 2, 64, 64, &in2, &a);
    const struct xdna_tap far = {.n_dims = 1, .sizes = {64}, .strides = {1}, .offset = (1ull << 40) + 1};
    assert_int_equal(xdna_runtime_fill(d, in2, 0, &far, false), VNPU_STATUS_OK);
    expect_build_error(d, "runtime fill of fifo 'in2': a BD on a shim tile (0,0) starts at element 1099511627777, at "
                          "most 1099511627776 (rule 6)");
    d = base("NPU1Col1", 0, 2, 2, 64, 64, &in2, &a);
    const struct xdna_kernel huge = {.name = "huge", .fn = k_copy, .stack_bytes = SIZE_MAX - 8000};
    const int w = xdna_worker_new(d, T(0, 2));
    assert_int_equal(xdna_worker_acquire(d, w, a, 1), VNPU_STATUS_OK);
    assert_int_equal(xdna_worker_call(d, w, &huge, (const struct xdna_call_buf[1]){{a, 0}}, 1, NULL, 0),
                     VNPU_STATUS_BAD_ARG);
    assert_string_equal(xdna_design_error(d), "worker on compute tile (0,2): kernel 'huge' asks for a stack of "
                                              "18446744073709543615 bytes, L1 has 65536 (rule 3)");
    xdna_design_free(d);
    d = base("NPU1Col1", 0, 2, 2, 64, 64, &in2, &a);
    assert_int_equal(xdna_fifo_new(d, "A", T(0, 1), &T(0, 3), 1, 2, 64, 4), VNPU_STATUS_BAD_ARG);
    assert_string_equal(xdna_design_error(d), "fifo 'A': the name is taken (fifo 1): messages name fifos");
    xdna_design_free(d);
    assert_int_equal(xdna_design_new(dev_of("NPU1Col1"), false, &d), VNPU_STATUS_OK);
    in2 = xdna_fifo_new(d, "in2", T(0, 0), &T(0, 1), 1, 2, 128, 4);
    a = xdna_fifo_new(d, "A", T(0, 1), &T(0, 2), 1, 2, 64, 4);
    assert_int_equal(xdna_link_new(d, T(0, 1), &in2, 1, &a, 1, NULL), VNPU_STATUS_BAD_ARG);
    assert_string_equal(xdna_design_error(d),
                        "link on mem tile (0,1): forward of fifo 'in2' (128 elements) into fifo 'A' (64): a forward "
                        "moves whole elements (give an offset: a split of one part)");
    xdna_design_free(d);
    assert_int_equal(xdna_design_new(dev_of("NPU2"), false, &d), VNPU_STATUS_OK);
    assert_int_equal(xdna_design_build(d), VNPU_STATUS_OK);
    assert_int_equal(xdna_design_run(d, NULL, NULL, 0, NULL), VNPU_STATUS_OK);
    xdna_design_free(d);
}

static void test_refuse_programs(void **state) {
    (void) state;
    int in2, a;
    struct xdna_design *d = base("NPU1Col1", 0, 2, 2, 64, 64, &in2, &a);
    int w = xdna_worker_new(d, T(0, 2));
    assert_int_equal(xdna_worker_acquire(d, w, a, 1), VNPU_STATUS_OK);
    assert_int_equal(xdna_worker_release(d, w, a, 2), VNPU_STATUS_OK);
    expect_build_error(d, "worker on compute tile (0,2) releases 2 of fifo 'A', holding 1 (rule 7)");

    /* a loop that acquires 1 an iteration, twice, then releases 3 */
    d = base("NPU1Col1", 0, 2, 2, 64, 64, &in2, &a);
    w = xdna_worker_new(d, T(0, 2));
    assert_int_equal(xdna_worker_loop_begin(d, w, 2), VNPU_STATUS_OK);
    assert_int_equal(xdna_worker_acquire(d, w, a, 1), VNPU_STATUS_OK);
    assert_int_equal(xdna_worker_loop_end(d, w), VNPU_STATUS_OK);
    assert_int_equal(xdna_worker_release(d, w, a, 3), VNPU_STATUS_OK);
    expect_build_error(d, "worker on compute tile (0,2) releases 3 of fifo 'A', holding 2 (rule 7)");

    /* holding more than the fifo's depth: refused at build (it could only deadlock), in a loop and at once */
    d = base("NPU1Col1", 0, 2, 2, 64, 64, &in2, &a);
    w = xdna_worker_new(d, T(0, 2));
    assert_int_equal(xdna_worker_loop_begin(d, w, 3), VNPU_STATUS_OK);
    assert_int_equal(xdna_worker_acquire(d, w, a, 1), VNPU_STATUS_OK);
    assert_int_equal(xdna_worker_loop_end(d, w), VNPU_STATUS_OK);
    assert_int_equal(xdna_worker_release(d, w, a, 3), VNPU_STATUS_OK);
    expect_build_error(d, "worker on compute tile (0,2) would hold 3 of fifo 'A', whose depth is 2 (rule 7)");
    d = base("NPU1Col1", 0, 2, 2, 64, 64, &in2, &a);
    w = xdna_worker_new(d, T(0, 2));
    assert_int_equal(xdna_worker_acquire(d, w, a, 2), VNPU_STATUS_OK);
    assert_int_equal(xdna_worker_release(d, w, a, 2), VNPU_STATUS_OK);
    assert_int_equal(xdna_worker_acquire(d, w, a, 3), VNPU_STATUS_OK);
    expect_build_error(d, "worker on compute tile (0,2) would hold 3 of fifo 'A', whose depth is 2 (rule 7)");

    /* a loop whose later iterations release more than they hold: 2 acquired, then 1 released 3 times */
    d = base("NPU1Col1", 0, 2, 2, 64, 64, &in2, &a);
    w = xdna_worker_new(d, T(0, 2));
    assert_int_equal(xdna_worker_acquire(d, w, a, 2), VNPU_STATUS_OK);
    assert_int_equal(xdna_worker_loop_begin(d, w, 3), VNPU_STATUS_OK);
    assert_int_equal(xdna_worker_release(d, w, a, 1), VNPU_STATUS_OK);
    assert_int_equal(xdna_worker_loop_end(d, w), VNPU_STATUS_OK);
    expect_build_error(d, "worker on compute tile (0,2) releases 1 of fifo 'A', holding 0 (rule 7)");

    d = base("NPU1Col1", 0, 2, 2, 64, 64, &in2, &a);
    w = xdna_worker_new(d, T(0, 2));
    assert_int_equal(xdna_worker_loop_begin(d, w, 3), VNPU_STATUS_OK);
    expect_build_error(d, "worker on compute tile (0,2): 1 loop not closed");

    d = base("NPU1Col1", 0, 2, 2, 64, 64, &in2, &a);
    w = xdna_worker_new(d, T(0, 2));
    assert_int_equal(xdna_worker_loop_end(d, w), VNPU_STATUS_BAD_ARG);
    assert_string_equal(xdna_design_error(d), "worker on compute tile (0,2): loop_end without a loop_begin");
    xdna_design_free(d);

    d = base("NPU1Col1", 0, 2, 2, 64, 64, &in2, &a);
    w = xdna_worker_new(d, T(0, 2));
    const struct xdna_call_buf bufs[2] = {{a, 0}, {a, 1}};
    assert_int_equal(xdna_worker_acquire(d, w, a, 1), VNPU_STATUS_OK);
    assert_int_equal(xdna_worker_call(d, w, &kern_copy, bufs, 2, NULL, 0), VNPU_STATUS_OK);
    expect_build_error(d, "worker on compute tile (0,2): call of kernel 'copy' names element 1 of fifo 'A', it holds "
                          "1 (rule 7)");

    /* a fifo with no end on the worker's tile */
    d = base("NPU1Col1", 0, 2, 2, 64, 64, &in2, &a);
    w = xdna_worker_new(d, T(0, 3));
    assert_int_equal(xdna_worker_acquire(d, w, a, 1), VNPU_STATUS_BAD_ARG);
    assert_string_equal(xdna_design_error(d),
                        "worker on compute tile (0,3): fifo 'A' has no end on this tile (rule 7)");
    xdna_design_free(d);
}

/* ---- run-time failures ---- */

static void test_deadlock(void **state) {
    (void) state;
    /* a worker that takes a fifth element of a fill of four */
    struct xdna_design *d;
    assert_int_equal(xdna_design_new(dev_of("NPU1Col1"), false, &d), VNPU_STATUS_OK);
    const int in2 = xdna_fifo_new(d, "in2", T(0, 0), &T(0, 1), 1, 1, 64, 4);
    const int a = xdna_fifo_new(d, "A", T(0, 1), &T(0, 2), 1, 1, 64, 4);
    assert_int_equal(xdna_link_new(d, T(0, 1), &in2, 1, &a, 1, NULL), VNPU_STATUS_OK);
    const int w = xdna_worker_new(d, T(0, 2));
    assert_int_equal(xdna_worker_loop_begin(d, w, 5), VNPU_STATUS_OK);
    assert_int_equal(xdna_worker_acquire(d, w, a, 1), VNPU_STATUS_OK);
    assert_int_equal(xdna_worker_release(d, w, a, 1), VNPU_STATUS_OK);
    assert_int_equal(xdna_worker_loop_end(d, w), VNPU_STATUS_OK);
    assert_int_equal(xdna_runtime_fill(d, in2, 0, NULL, false), VNPU_STATUS_OK);
    assert_int_equal(xdna_design_build(d), VNPU_STATUS_OK);
    int32_t in[256] = {0};
    void *ddr[1] = {in};
    const size_t bytes[1] = {sizeof(in)};
    struct xdna_run_stats st;
    assert_int_equal(xdna_design_run(d, ddr, bytes, 1, &st), VNPU_STATUS_DEVICE);
    assert_string_equal(xdna_design_error(d),
                        "deadlock: worker on compute tile (0,2) waits to acquire 1 of fifo 'A' (holds 0)");
    assert_true(st.tiles[0][2].stall_steps >= 1);
    xdna_design_free(d);

    /* a design whose drain never happens */
    d = passthrough(false, &kern_add1, 64, 8, false);
    int32_t in8[512] = {0}, out[512];
    void *ddr2[2] = {in8, out};
    const size_t bytes2[2] = {sizeof(in8), sizeof(out)};
    assert_int_equal(xdna_design_run(d, ddr2, bytes2, 2, NULL), VNPU_STATUS_DEVICE);
    assert_string_equal(xdna_design_error(d),
                        "deadlock: fifo 'in1' on mem tile (0,1) waits for a free buffer on compute tile (0,2); fifo "
                        "'out1' on compute tile (0,2) waits for a free buffer on mem tile (0,1); fifo 'out2' on mem "
                        "tile (0,1) waits for a runtime drain on shim tile (0,0); worker on compute tile (0,2) waits "
                        "to acquire 1 of fifo 'out1' (holds 0)");
    xdna_design_free(d);
}

/* Column c of NPU1Col2: shim -> mem -> compute (c,2), whose worker takes `iters` elements of a fill of four (5: a
 * deadlock). */
static void column_design(struct xdna_design *d, uint8_t c, uint32_t iters, const char *in_name, const char *a_name) {
    const int in2 = xdna_fifo_new(d, in_name, T(c, 0), &T(c, 1), 1, 1, 64, 4);
    const int a = xdna_fifo_new(d, a_name, T(c, 1), &T(c, 2), 1, 1, 64, 4);
    assert_int_equal(xdna_link_new(d, T(c, 1), &in2, 1, &a, 1, NULL), VNPU_STATUS_OK);
    const int w = xdna_worker_new(d, T(c, 2));
    assert_int_equal(xdna_worker_loop_begin(d, w, iters), VNPU_STATUS_OK);
    assert_int_equal(xdna_worker_acquire(d, w, a, 1), VNPU_STATUS_OK);
    assert_int_equal(xdna_worker_call(d, w, &kern_copy_in, (const struct xdna_call_buf[1]){{a, 0}}, 1, NULL, 0),
                     VNPU_STATUS_OK);
    assert_int_equal(xdna_worker_release(d, w, a, 1), VNPU_STATUS_OK);
    assert_int_equal(xdna_worker_loop_end(d, w), VNPU_STATUS_OK);
    assert_int_equal(xdna_runtime_fill(d, in2, c, NULL, false), VNPU_STATUS_OK);
}

/* Two columns that share no tile run apart (on the host's cores): their statistics add up, and of the two the
 * failing one's deadlock is reported, the lower-numbered when both fail, whatever the threads' timing. */
static void test_components(void **state) {
    (void) state;
    static const uint32_t takes[3][2] = {{4, 4}, {4, 5}, {5, 5}};
    for (int i = 0; i < 3; i++) {
        for (int rep = 0; rep < 20; rep++) {
            struct xdna_design *d;
            assert_int_equal(xdna_design_new(dev_of("NPU1Col2"), false, &d), VNPU_STATUS_OK);
            column_design(d, 0, takes[i][0], "in0", "A0");
            column_design(d, 1, takes[i][1], "in1", "A1");
            assert_int_equal(xdna_design_build(d), VNPU_STATUS_OK);
            int32_t in0[256] = {0}, in1[256] = {0};
            void *ddr[2] = {in0, in1};
            const size_t bytes[2] = {sizeof(in0), sizeof(in1)};
            struct xdna_run_stats st;
            const enum vnpu_status rc = xdna_design_run(d, ddr, bytes, 2, &st);
            if (i == 0) {
                assert_int_equal(rc, VNPU_STATUS_OK);
                assert_int_equal(st.tiles[0][2].kernel_calls, 4);
                assert_int_equal(st.tiles[1][2].kernel_calls, 4);
                assert_int_equal(st.ddr_read_bytes, 2 * sizeof(in0));
            } else {
                const char *c = i == 1 ? "1" : "0";
                char want[512];
                snprintf(want, sizeof(want),
                         "deadlock: worker on compute tile (%s,2) waits to acquire 1 of fifo 'A%s' (holds 0)", c, c);
                assert_int_equal(rc, VNPU_STATUS_DEVICE);
                assert_string_equal(xdna_design_error(d), want);
            }
            xdna_design_free(d);
        }
    }
}

/* ---- strict mode (rule 7) ---- */

static void run_buggy(bool strict, const struct xdna_kernel *k, int32_t *in, int32_t *out, uint32_t elem, uint32_t n) {
    struct xdna_design *d = passthrough(strict, k, elem, n, true);
    void *ddr[2] = {in, out};
    const size_t bytes[2] = {(size_t) elem * n * 4, (size_t) elem * n * 4};
    stale_in = NULL;
    assert_int_equal(xdna_design_run(d, ddr, bytes, 2, NULL), VNPU_STATUS_OK);
    xdna_design_free(d);
}

static size_t count_ff(const void *p, size_t n) {
    size_t c = 0;
    for (size_t i = 0; i < n; i++) {
        c += ((const uint8_t *) p)[i] == 0xFF;
    }
    return c;
}

static void test_strict(void **state) {
    (void) state;
    enum { E = 64, N = 4 };
    int32_t in[E * N], out[E * N];
    for (int i = 0; i < E * N; i++) {
        in[i] = (i * 2) % 200; /* no 0xFF byte in the input, nor after + 1 */
    }
    /* correct kernels compute the same in both modes */
    run_buggy(true, &kern_add1, in, out, E, N);
    for (int i = 0; i < E * N; i++) {
        assert_int_equal(out[i], in[i] + 1);
    }
    /* a kernel reading its previous input after the release: call 1 reads element 0's released buffer */
    run_buggy(true, &kern_stale, in, out, E, N);
    assert_memory_equal(out, in, E * 4);
    assert_int_equal(count_ff(out + E, E * 4), E * 4);
    run_buggy(false, &kern_stale, in, out, E, N);
    assert_int_equal(count_ff(out, sizeof(out)), 0);
    assert_memory_equal(out + E, in, E * 4); /* the stale buffer still held element 0 */
    /* a kernel writing half its output */
    run_buggy(true, &kern_half, in, out, E, N);
    for (int k = 0; k < N; k++) {
        assert_memory_equal(out + k * E, in + k * E, E * 2);
        assert_int_equal(count_ff(out + k * E + E / 2, E * 2), E * 2);
    }
    run_buggy(false, &kern_half, in, out, E, N);
    assert_int_equal(count_ff(out, sizeof(out)), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tables),
        cmocka_unit_test(test_passthrough),
        cmocka_unit_test(test_broadcast_join),
        cmocka_unit_test(test_split_join),
        cmocka_unit_test(test_reshape_4d),
        cmocka_unit_test(test_repeat),
        cmocka_unit_test(test_convert_bf16),
        cmocka_unit_test(test_timeline),
        cmocka_unit_test(test_timeline_drain_broadcast),
        cmocka_unit_test(test_refuse_ddr_sharing),
        cmocka_unit_test(test_refuse_dims),
        cmocka_unit_test(test_refuse_tap_fields),
        cmocka_unit_test(test_refuse_transfer_length),
        cmocka_unit_test(test_refuse_depth_memory_bds),
        cmocka_unit_test(test_refuse_channels),
        cmocka_unit_test(test_refuse_routes_tiles),
        cmocka_unit_test(test_refuse_links),
        cmocka_unit_test(test_refuse_boundaries),
        cmocka_unit_test(test_refuse_programs),
        cmocka_unit_test(test_deadlock),
        cmocka_unit_test(test_components),
        cmocka_unit_test(test_strict),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
