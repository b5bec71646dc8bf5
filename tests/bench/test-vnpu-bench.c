/*
 * vnpu-bench end to end: it times MUL_MAT on the bytes the oracle's ggml_op_bench times (its --dump files equal
 * byte for byte) and its results agree with llama.cpp's on them; its tables carry consistent numbers (GFLOP/s from the
 * median, the CPU device's output the same for any thread count, the forward-pass summary the sum of its rows);
 * model mode reports every test, on every NPU device without -dev; a device computing nothing fails the run; bad usage
 * fails with a reason.
 */
#include "test-common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_ROWS 64
#define MAX_COLS 32

/* A CSV table split in place: rows of fields (a quoted field keeps its quotes; vnpu-bench's op table quotes only
 * the shape, which holds no comma). */
struct csv {
    char *text;
    char *field[MAX_ROWS][MAX_COLS];
    int n_fields[MAX_ROWS];
    int n_rows; /* data rows, the header excluded */
};

static void csv_parse(struct csv *t, char *text) {
    memset(t, 0, sizeof(*t));
    t->text = text;
    char *save_line = NULL;
    int line = 0;
    for (char *l = strtok_r(text, "\n", &save_line); l; l = strtok_r(NULL, "\n", &save_line), line++) {
        if (line == 0) {
            continue;
        }
        assert_true(t->n_rows < MAX_ROWS);
        int n = 0;
        for (char *p = l;; p++) { /* strsep-style: empty fields are kept */
            assert_true(n < MAX_COLS);
            t->field[t->n_rows][n++] = p;
            p += strcspn(p, ",");
            if (*p == '\0') {
                break;
            }
            *p = '\0';
        }
        t->n_fields[t->n_rows++] = n;
    }
}

/* Relative RMS difference of two float files of the same size (b against a). */
static double file_rel_err(const char *path_a, const char *path_b) {
    size_t na = 0, nb = 0;
    float *a = test_read_file(path_a, &na), *b = test_read_file(path_b, &nb);
    assert_non_null(a);
    assert_non_null(b);
    assert_int_equal(na, nb);
    double err = 0.0, ref = 0.0;
    for (size_t i = 0; i < na / sizeof(float); i++) {
        err += ((double) b[i] - a[i]) * ((double) b[i] - a[i]);
        ref += (double) a[i] * a[i];
    }
    free(a);
    free(b);
    return sqrt(err / ref);
}

/* For Q4_0, Q8_0 and Q4_K: vnpu-bench's inputs are ggml_op_bench's, and each device's output is within
 * ggml_op_bench's own limit (3e-2) of llama.cpp's. A device that does not run a type says so and dumps nothing. */
static void test_same_bytes_as_ggml_op_bench(void **state) {
    (void) state;
    const char *bin = test_oracle_bin(), *dir = test_tmpdir(), *tools = test_tools_dir();
    static const char *const types[] = {"q4_0", "q8_0", "q4_K"}, *const devices[] = {"CPU", "HTP0"};
    for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
        assert_int_equal(test_run(NULL, NULL,
                                  "%s/ggml_op_bench mul_mat --type %s --k 512 --m 64 --n 3 -t 1 --reps 1 --min-time "
                                  "0.01 --dump %s/ref-%s > /dev/null 2>&1",
                                  bin, types[t], dir, types[t]),
                         0);
        for (size_t d = 0; d < sizeof(devices) / sizeof(devices[0]); d++) {
            char *out = NULL;
            const int rc = test_run(&out, NULL,
                                    "%s/vnpu-bench mul_mat --type %s --k 512 --m 64 --n 3 -dev %s -o csv --reps 1 "
                                    "--min-time 0.01 --dump %s/%s-%s 2>/dev/null",
                                    tools, types[t], devices[d], dir, devices[d], types[t]);
            printf("%s", out);
            assert_int_equal(rc, 0);
            if (strstr(out, ",unsupported,")) {
                assert_string_equal(devices[d], "HTP0"); /* the CPU device runs every type */
                printf("%s: no %s kernel yet, output not compared\n", devices[d], types[t]);
                free(out);
                continue;
            }
            free(out);
            char a[4200], b[4200];
            const char *names[] = {"A", "B"};
            for (int i = 0; i < 2; i++) {
                snprintf(a, sizeof(a), "%s/ref-%s.%s.%s", dir, types[t], names[i], i == 0 ? types[t] : "f32");
                snprintf(b, sizeof(b), "%s/%s-%s.%s.%s", dir, devices[d], types[t], names[i],
                         i == 0 ? types[t] : "f32");
                assert_int_equal(test_run(NULL, NULL, "cmp %s %s", a, b), 0);
            }
            snprintf(a, sizeof(a), "%s/ref-%s.out.f32", dir, types[t]);
            snprintf(b, sizeof(b), "%s/%s-%s.out.f32", dir, devices[d], types[t]);
            const double err = file_rel_err(a, b);
            /* HTP0 quantizes the activations of Q4_0 and Q8_0 weights to Q8_0 blocks as llama.cpp does (its
             * vec_dot_type), so the two agree far closer than the limit (2e-4 seen); the CPU device keeps them F32. */
            const bool same_activations = strcmp(devices[d], "HTP0") == 0 && strcmp(types[t], "q4_K") != 0;
            printf("%s %s: output vs llama.cpp's, rel. RMS %.2e\n", devices[d], types[t], err);
            assert_true(err < (same_activations ? 1e-3 : 3e-2));
        }
    }
}

/* The op table in CSV: a row per type x N x device (the CPU per -t), each passing its checks, GFLOP/s from the
 * median, and the CPU device's output hash the same for 1 and 2 threads. */
static void test_op_table(void **state) {
    (void) state;
    char *out = NULL;
    assert_int_equal(test_run(&out, NULL,
                              "%s/vnpu-bench mul_mat --type q4_0,q8_0 --k 256 --m 96 --n 1,5 -dev HTP0,CPU -t 1,2 -o "
                              "csv --reps 3 --min-time 0.005 2>/dev/null",
                              test_tools_dir()),
                     0);
    printf("%s", out);
    struct csv t;
    csv_parse(&t, out);
    assert_int_equal(t.n_rows, 2 * 2 * 3);
    for (int r = 0; r < t.n_rows; r++) {
        char **f = t.field[r]; /* ggml_op_bench's columns after the device: see bench-op.h */
        assert_int_equal(t.n_fields[r], 29);
        const bool htp = strcmp(f[0], "HTP0") == 0;
        assert_string_equal(f[2], "mul_mat");
        assert_string_equal(f[10], htp ? "HTP0-REPACK" : "CPU");
        assert_true(htp ? strncmp(f[12], "nhvx ", 5) == 0 : strcmp(f[12], "1") == 0 || strcmp(f[12], "2") == 0);
        const double k = atof(f[5]), m = atof(f[6]), n = atof(f[7]), us = atof(f[15]), gflops = atof(f[19]);
        char shape[64];
        snprintf(shape, sizeof(shape), "\"k=%.0f m=%.0f n=%.0f\"", k, m, n);
        assert_string_equal(f[4], shape);
        assert_true(k == 256 && m == 96 && (n == 1 || n == 5));
        assert_true(atoi(f[13]) >= 1 && atoi(f[14]) == 3 && us > 0.0 && atof(f[16]) <= us);
        assert_true(atof(f[16]) <= atof(f[17]) && atof(f[18]) >= 0.0); /* min <= mean, stdev */
        assert_true(fabs(gflops - 2.0 * k * m * n / (us * 1e3)) <= 1e-3 * gflops + 1e-4);
        assert_true(atof(f[21]) == 2.0 * k * m * n);
        assert_string_equal(f[23], "ok");
        assert_true(atof(f[24]) <= atof(f[26]) && atof(f[25]) >= 0.0);
        assert_string_equal(f[27], "1");
        assert_int_equal(strlen(f[28]), 16);
        if (!htp && strcmp(f[12], "2") == 0) { /* the row before: the same case on 1 thread */
            assert_string_equal(t.field[r - 1][12], "1");
            assert_string_equal(t.field[r - 1][28], f[28]);
        }
    }
    free(out);
}

/* --shapes llama-3.2-1b on HTP0: the five matrices, then a forward pass whose time is the rows' medians times
 * their counts (32 each of q/o, k/v, gate/up; 16 down; 1 output). */
static void test_shapes_summary(void **state) {
    (void) state;
    char *out = NULL;
    assert_int_equal(test_run(&out, NULL,
                              "%s/vnpu-bench --shapes llama-3.2-1b --type q8_0 --n 1 -dev HTP0 --reps 1 --warmup 0 "
                              "--min-time 0.01 2>/dev/null",
                              test_tools_dir()),
                     0);
    printf("%s", out);
    static const struct {
        const char *row;
        int count;
    } shapes[] = {{"| HTP0 | attn_q/o | q8_0 | k=2048 m=2048 n=1 |", 32},
                  {"| HTP0 | attn_k/v | q8_0 | k=2048 m=512 n=1 |", 32},
                  {"| HTP0 | ffn_gate/up | q8_0 | k=2048 m=8192 n=1 |", 32},
                  {"| HTP0 | ffn_down | q8_0 | k=8192 m=2048 n=1 |", 16},
                  {"| HTP0 | output | q8_0 | k=2048 m=32000 n=1 |", 1}};
    double pass_ms = 0.0;
    for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
        const char *row = strstr(out, shapes[i].row);
        assert_non_null(row);
        char buft[32];
        int per_rep;
        double us;
        /* weights | threads ("nhvx 2") | ops/rep | us/op (median) */
        assert_int_equal(sscanf(row + strlen(shapes[i].row), " %31s | %*[^|]| %d | %lf |", buft, &per_rep, &us), 3);
        assert_string_equal(buft, "HTP0-REPACK");
        pass_ms += shapes[i].count * us * 1e-3;
    }
    const char *summary = strstr(out, "llama-3.2-1b matmuls per forward pass");
    assert_non_null(summary);
    const char *cells = strstr(summary, "| HTP0 | q8_0 |");
    assert_non_null(cells);
    double gib, ms, tps;
    assert_int_equal(sscanf(cells, "| HTP0 | q8_0 | %*[^|]| 1 | %lf | %lf | %lf |", &gib, &ms, &tps), 3);
    /* Q8_0: 34 bytes per 32 weights; 32 (q/o) + 32 (k/v, a quarter) + 32 (gate/up, x4) + 16 (down, x4) + output */
    const double bytes = 34.0 / 32.0 * (2048.0 * (32 * 2048 + 32 * 512 + 32 * 8192 + 16 * 4 * 2048) + 2048.0 * 32000);
    assert_true(fabs(gib - bytes / 1073741824.0) <= 1e-3);
    assert_true(fabs(ms - pass_ms) <= 0.01 + 1e-3 * pass_ms); /* the table's medians are rounded to 0.01 us */
    assert_true(fabs(tps - 1e3 / ms) <= 0.05 + 1e-3 * tps);   /* tokens/s printed to 0.1, from the unrounded time */
    free(out);
}

/* Model mode: a pp and a tg row per device list, each with its repetitions' t/s. */
static void test_model_table(void **state) {
    (void) state;
    const char *model = test_model_path("stories260K.gguf");
    char *out = NULL;
    assert_int_equal(test_run(&out, NULL, "%s/vnpu-bench -m %s -p 8 -n 4 -r 2 -dev HTP0,CPU -t 2 -o csv 2>/dev/null",
                              test_tools_dir(), model),
                     0);
    printf("%s", out);
    static const char *const expected[] = {"\"HTP0\",2,pp8,8,2,", "\"HTP0\",2,tg4,4,2,", "\"CPU\",2,pp8,8,2,",
                                           "\"CPU\",2,tg4,4,2,"};
    const char *p = out;
    for (size_t i = 0; i < sizeof(expected) / sizeof(expected[0]); i++) {
        p = strstr(p, expected[i]);
        assert_non_null(p);
        p += strlen(expected[i]);
        double mean, sd, s0, s1;
        assert_int_equal(sscanf(p, "%lf,%lf,\"%lf;%lf\"", &mean, &sd, &s0, &s1), 4);
        assert_true(mean > 0.0 && s0 > 0.0 && s1 > 0.0 && fabs(mean - (s0 + s1) / 2) <= 1e-3 * mean);
    }
    free(out);
}

/* Model mode without -dev: the library's default, every NPU device (HTP0/HTP1 under VNPU_NDEV=2), as vnpu-cli. */
static void test_model_default_devices(void **state) {
    (void) state;
    const char *model = test_model_path("stories260K.gguf");
    static const char *const env[] = {"", "VNPU_NDEV=2"}, *const row[] = {"\"HTP0\",2,tg4,", "\"HTP0/HTP1\",2,tg4,"};
    for (int i = 0; i < 2; i++) {
        char *out = NULL;
        assert_int_equal(test_run(&out, NULL, "%s %s/vnpu-bench -m %s -p 0 -n 4 -r 1 -t 2 -o csv 2>/dev/null", env[i],
                                  test_tools_dir(), model),
                         0);
        if (!strstr(out, row[i])) {
            fail_msg("%s: no row %s in\n%s", env[i], row[i], out);
        }
        free(out);
    }
}

/* -sm runs each device list in each split mode, the mode in the devices column (a group's list keeps its comma). */
static void test_model_split_modes(void **state) {
    (void) state;
    const char *model = test_model_path("stories260K.gguf");
    char *out = NULL;
    assert_int_equal(test_run(&out, NULL,
                              "VNPU_NDEV=2 %s/vnpu-bench -m %s -p 0 -n 2 -r 1 -dev HTP0/HTP1 -sm layer,row,tensor "
                              "-o csv 2>/dev/null",
                              test_tools_dir(), model),
                     0);
    static const char *const row[] = {"\"HTP0/HTP1\",2,tg2,", "\"HTP0[0,1] -sm row\",2,tg2,",
                                      "\"HTP0/HTP1 -sm tensor\",2,tg2,"};
    for (int i = 0; i < 3; i++) {
        if (!strstr(out, row[i])) {
            fail_msg("no row %s in\n%s", row[i], out);
        }
    }
    free(out);
}

/* With VNPU_OPSTAGE=1 the NPU dispatches and moves data but computes nothing: the check fails the row and the run. */
static void test_failed_check_fails(void **state) {
    (void) state;
    char *out = NULL;
    const int rc = test_run(&out, NULL,
                            "VNPU_OPSTAGE=1 %s/vnpu-bench mul_mat --k 256 --m 64 -dev HTP0 --reps 1 --per-rep 1 "
                            "2>/dev/null",
                            test_tools_dir());
    printf("%s", out);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(out, "| FAIL "));
    free(out);
}

/* Bad usage exits 2 with its reason; a dump that cannot be written exits 1 and leaves no file. */
static void test_bad_usage(void **state) {
    (void) state;
    static const struct {
        const char *args;
        const char *message;
    } cases[] = {
        {"", "nothing to run"},
        {"rms_norm", "unknown op 'rms_norm'"},
        {"--shapes llama-7b", "unknown --shapes 'llama-7b'"},
        {"mul_mat --type q9_9", "unknown type 'q9_9'"},
        {"mul_mat -p 64", "model-mode options"},
        {"-m x.gguf --type q4_0", "op options without an op"},
        {"mul_mat -m x.gguf", "exclude each other"},
        {"mul_mat -dev HTP0/HTP1", "one device at a time"},
        {"mul_mat --n 1,512 --dump /tmp/x", "--dump needs a single case"},
        {"mul_mat --k 0", "out of range"},
        {"mul_mat -o json", "unknown output format 'json'"},
        {"-m x.gguf -sm column", "unknown --split-mode 'column'"},
        {"mul_mat -sm row", "model-mode options"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *err = NULL;
        const int rc = test_run(NULL, &err, "%s/vnpu-bench %s", test_tools_dir(), cases[i].args);
        printf("vnpu-bench %s -> %d: %.200s\n", cases[i].args, rc, err);
        assert_int_equal(rc, 2);
        assert_non_null(strstr(err, cases[i].message));
        free(err);
    }
    char prefix[4200], path[4300];
    snprintf(prefix, sizeof(prefix), "%s/missing-dir/case", test_tmpdir());
    assert_int_equal(test_run(NULL, NULL, "%s/vnpu-bench mul_mat --k 64 --m 32 -dev CPU --reps 1 --dump %s 2>/dev/null",
                              test_tools_dir(), prefix),
                     1);
    snprintf(path, sizeof(path), "%s.A.q4_0", prefix);
    assert_int_not_equal(access(path, F_OK), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_bytes_as_ggml_op_bench),
        cmocka_unit_test(test_op_table),
        cmocka_unit_test(test_shapes_summary),
        cmocka_unit_test(test_model_table),
        cmocka_unit_test(test_model_default_devices),
        cmocka_unit_test(test_model_split_modes),
        cmocka_unit_test(test_failed_check_fails),
        cmocka_unit_test(test_bad_usage),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
