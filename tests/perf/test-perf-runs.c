/*
 * The cost model end to end, through vnpu-bench --arch on stories260K in Q4_0 (its MUL_MATs on the quantized dot
 * kernels, whose hot loops count their trips):
 *   - the modelled numbers do not depend on the host: the same run with 1 and 6 host worker threads (VNPU_NHVX), and
 *     with two busy processes loading the host's cores, gives the same modelled t/s and the same per-op and
 *     per-function table, to the last printed digit;
 *   - the calibration is live: the build's calibration (the NPU sources compiled for Hexagon) with one packet more in
 *     the hot loop of the dot kernel the model's MUL_MATs run gives that function exactly one packet more per trip of
 *     its loop, and the MUL_MATs' modelled time grows by at most those trips' cycles (the slowest thread's share of
 *     them), and by more than nothing;
 *   - an op the NPU is kept from (VNPU_OPFILTER naming an op of one weight type) runs on the CPU and is priced on the
 *     SoC's CPU: the bytes it streams over the target's cpu_gbytes_per_s; a SET_ROWS there by the rows it writes, the
 *     same whatever the size of the cache.
 */
#include "perf-target.h"
#include "test-common.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MODEL  "derived/stories260K-Q4_0.gguf"
#define KERNEL "hvx_mm_qdot_q4_0_tiled_32x1" /* a single-token decode's dot kernel */

/* vnpu-bench's modelled output (env: extra environment assignments): the csv from the first table's modelled_ts
 * column on. */
static char *modelled_run(const char *env) {
    char *out = NULL;
    assert_int_equal(test_run(&out, NULL,
                              "env %s %s/vnpu-bench -m %s -dev HTP0 -p 8 -n 2 -r 1 --arch v79 --breakdown -o csv", env,
                              test_tools_dir(), test_model_path(MODEL)),
                     0);
    assert_non_null(out);
    return out;
}

/* The model's part of a run's csv: every modelled_ts (the last field of the first table's rows) and the tables
 * after it, which hold nothing the host measured. */
static char *model_part(const char *csv) {
    const char *tables = strstr(csv, "\n\narch,test,op");
    assert_non_null(tables);
    size_t cap = strlen(csv) + 1, len = 0;
    char *out = malloc(cap);
    assert_non_null(out);
    for (const char *l = strchr(csv, '\n') + 1; l < tables; l = strchr(l, '\n') + 1) {
        const char *end = strchr(l, '\n'), *last = end;
        while (last > l && last[-1] != ',') {
            last--;
        }
        len += (size_t) snprintf(out + len, cap - len, "%.*s\n", (int) (end - last), last);
    }
    snprintf(out + len, cap - len, "%s", tables);
    return out;
}

static void test_host_independent(void **state) {
    (void) state;
    char *one = modelled_run("VNPU_NHVX=1"), *six = modelled_run("VNPU_NHVX=6");
    pid_t busy[2];
    for (int i = 0; i < 2; i++) { /* the host loaded: two processes spinning on its cores */
        busy[i] = fork();
        assert_true(busy[i] >= 0);
        if (busy[i] == 0) {
            for (;;) {
            }
        }
    }
    char *loaded = modelled_run("VNPU_NHVX=2");
    for (int i = 0; i < 2; i++) {
        kill(busy[i], SIGKILL);
        waitpid(busy[i], NULL, 0);
    }
    char *a = model_part(one), *b = model_part(six), *c = model_part(loaded);
    assert_non_null(strstr(a, "MUL_MAT"));
    assert_non_null(strstr(a, KERNEL));
    assert_string_equal(a, b);
    assert_string_equal(a, c);
    free(a), free(b), free(c), free(one), free(six), free(loaded);
}

/* The per-function csv row of name in a run's output: its HVX instructions, trips and packets. */
static void scope_row(const char *csv, const char *test, const char *name, double *hvx, double *trips,
                      double *packets) {
    char key[128];
    snprintf(key, sizeof(key), "v79,%s,\"%s\",", test, name);
    const char *row = strstr(csv, key);
    assert_non_null(row);
    assert_int_equal(sscanf(row + strlen(key), "%lf,%lf,%lf", hvx, trips, packets), 3);
}

/* The modelled_us of op's row in the per-op table of test. */
static double op_us(const char *csv, const char *test, const char *op) {
    char key[128];
    snprintf(key, sizeof(key), "v79,%s,\"%s\",", test, op);
    const char *row = strstr(csv, key);
    assert_non_null(row);
    double count, us;
    assert_int_equal(sscanf(row + strlen(key), "%lf,%lf", &count, &us), 2);
    return us;
}

static void test_calibration_live(void **state) {
    (void) state;
    test_require(VNPU_CALIB_FILE[0] != '\0', "the build's calibration (lib/vnpu-calib-v69.tsv)",
                 "configure with clang, llvm-objdump and python3 (cmake's vnpu-calib line says what is missing)");
    char *calib = test_read_file(VNPU_CALIB_FILE, NULL);
    assert_non_null(calib);
    char key[64];
    snprintf(key, sizeof(key), "\n%s\t", KERNEL);
    char *line = strstr(calib, key);
    assert_non_null(line);
    unsigned packets, hvx;
    assert_int_equal(sscanf(line + strlen(key), "%u\t%u", &packets, &hvx), 2);
    /* the same file with the kernel's loop one packet longer */
    char path[4096];
    snprintf(path, sizeof(path), "%s/calib-plus-one.tsv", test_tmpdir());
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "%.*s%s\t%u\t%u\t", (int) (line + 1 - calib), calib, KERNEL, packets + 1, hvx);
    const char *depth = strchr(strchr(line + strlen(key), '\t') + 1, '\t') + 1;
    fprintf(f, "%s", depth);
    fclose(f);

    char env[4200];
    snprintf(env, sizeof(env), "VNPU_PERF_CALIB=%s", VNPU_CALIB_FILE);
    char *base = modelled_run(env);
    snprintf(env, sizeof(env), "VNPU_PERF_CALIB=%s", path);
    char *more = modelled_run(env);
    double h0, t0, p0, h1, t1, p1;
    scope_row(base, "tg2", KERNEL, &h0, &t0, &p0);
    scope_row(more, "tg2", KERNEL, &h1, &t1, &p1);
    assert_true(h0 == h1 && t0 == t1 && t0 > 0);
    assert_true(p1 - p0 > t0 - 0.2 && p1 - p0 < t0 + 0.2); /* one packet more per trip (the csv has one decimal) */
    /* the MUL_MATs: at most every trip's cycles at v79's clock and cycles per packet (its NPU threads split them), and
     * more than nothing */
    const double d_us = op_us(more, "tg2", "MUL_MAT") - op_us(base, "tg2", "MUL_MAT");
    print_message("%s: %u -> %u packets per trip of %u HVX; %.0f trips; MUL_MAT +%.3f us\n", KERNEL, packets,
                  packets + 1, hvx, t0, d_us);
    assert_true(d_us > 0.0);
    assert_true(d_us <= t0 * 2.0 / 1000.0); /* at most 2 cycles a packet at at least 1 GHz */
    free(base), free(more), free(calib);
}

/* The count and modelled_us of op's row in the per-op table of test; false when the table has no such row. */
static bool op_row(const char *csv, const char *test, const char *op, double *count, double *us) {
    char key[128];
    snprintf(key, sizeof(key), "v79,%s,\"%s\",", test, op);
    const char *row = strstr(csv, key);
    return row && sscanf(row + strlen(key), "%lf,%lf", count, us) == 2;
}

static void test_cpu_fallback(void **state) {
    (void) state;
    char *out = modelled_run("VNPU_OPFILTER='MUL_MAT\\(q8_0\\)'"); /* stories260K-Q4_0's output layer is Q8_0 */
    /* a token's output MUL_MAT streams its weight (512 rows of 64 in Q8_0: 512 x 2 blocks x 34 bytes), one column of
     * 64 floats and 512 floats of logits */
    const double bytes = 512.0 * 2 * 34 + 64 * 4 + 512 * 4;
    const double op = bytes / (perf_target_find("v79")->cpu_gbytes_per_s * 1e3);
    double count, us;
    assert_true(op_row(out, "pp8", "CPU MUL_MAT output", &count, &us));
    assert_true(count == 1 && us > op - 0.002 && us < op + 0.002); /* the prompt's last token only; 3 decimals */
    assert_true(op_row(out, "tg2", "CPU MUL_MAT output", &count, &us));
    assert_true(count == 2 && us > 2 * op - 0.002 && us < 2 * op + 0.002);
    assert_false(op_row(out, "tg2", "MUL_MAT output", &count, &us));                  /* not on the NPU */
    assert_true(op_row(out, "tg2", "MUL_MAT", &count, &us) && count > 0 && us > 0.0); /* the Q4_0 layers still are */
    free(out);
}

/* vnpu-cli's modelled lines (from "modelled on" on) of a run with the KV cache's writes on the CPU and n_ctx ctx. */
static char *cli_modelled(int ctx) {
    char *out = NULL;
    assert_int_equal(
        test_run(&out, NULL,
                 "env VNPU_OPFILTER=SET_ROWS %s/vnpu-cli -m %s -p Once -n 2 --temp 0 -c %d --perf-model 2>&1",
                 test_tools_dir(), test_model_path(MODEL), ctx),
        0);
    const char *m = strstr(out, "modelled on");
    assert_non_null(m);
    char *lines = strdup(m);
    free(out);
    return lines;
}

/* A SET_ROWS on the CPU is priced by the rows it writes, not by the cache it writes them into: the modelled times do
 * not change with the context size. */
static void test_cpu_set_rows(void **state) {
    (void) state;
    char *small = cli_modelled(64), *large = cli_modelled(4096);
    assert_string_equal(small, large);
    free(small), free(large);
}

/* A device list without an NPU device beside one with it: the CPU's rows are measured and left unmodelled (an empty
 * modelled_ts), the NPU's modelled. */
static void test_cpu_device_list(void **state) {
    (void) state;
    char *out = NULL;
    assert_int_equal(test_run(&out, NULL, "%s/vnpu-bench -m %s -dev HTP0,CPU -p 8 -n 0 -r 1 --arch v79 -o csv",
                              test_tools_dir(), test_model_path(MODEL)),
                     0);
    const char *cpu = strstr(out, "\"CPU\",");
    const char *htp = strstr(out, "\"HTP0\",");
    assert_non_null(cpu);
    assert_non_null(htp);
    const char *cpu_end = strchr(cpu, '\n'), *htp_end = strchr(htp, '\n');
    assert_true(cpu_end && cpu_end[-1] == ',');                       /* no modelled value */
    assert_true(htp_end && htp_end[-1] >= '0' && htp_end[-1] <= '9'); /* a modelled t/s */
    free(out);
}

/* vnpu-cli's modelled prompt and eval lines of --tokens 1 -n n_predict: prompt ms and tokens, eval ms and runs. */
static void one_token_run(int n_predict, double *prompt_ms, int *n_prompt, double *eval_ms, int *n_eval) {
    char *out = NULL;
    assert_int_equal(test_run(&out, NULL, "%s/vnpu-cli -m %s --tokens 1 -n %d --temp 0 --perf-model 2>&1",
                              test_tools_dir(), test_model_path(MODEL), n_predict),
                     0);
    const char *m = strstr(out, "modelled on");
    assert_non_null(m);
    const char *p = strstr(m, "prompt eval time =");
    const char *e = strstr(m, "       eval time =");
    assert_non_null(p);
    assert_non_null(e);
    assert_int_equal(sscanf(p, "prompt eval time = %lf ms / %d tokens", prompt_ms, n_prompt), 2);
    assert_int_equal(sscanf(e, " eval time = %lf ms / %d runs", eval_ms, n_eval), 2);
    free(out);
}

/* A one-token prompt is an eval in the modelled lines as in the host's (llama.cpp's rule): -n 3 decodes three single
 * tokens, all priced as eval, so one more token (-n 3 against -n 2) is about a third of -n 3's eval time (it was a
 * half when the prompt's token was priced as a prompt of 0 tokens). */
static void test_one_token_prompt(void **state) {
    (void) state;
    double prompt3, eval3, prompt2, eval2;
    int np3, ne3, np2, ne2;
    one_token_run(3, &prompt3, &np3, &eval3, &ne3);
    one_token_run(2, &prompt2, &np2, &eval2, &ne2);
    assert_true(prompt3 == 0.0 && np3 == 0 && ne3 == 3 && prompt2 == 0.0 && ne2 == 2);
    const double one = eval3 - eval2;
    print_message("eval -n 3: %.3f ms, -n 2: %.3f ms, one token %.3f ms\n", eval3, eval2, one);
    assert_true(one > 0.8 * eval3 / 3 && one < 1.2 * eval3 / 3);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_host_independent), cmocka_unit_test(test_calibration_live),
        cmocka_unit_test(test_cpu_fallback),     cmocka_unit_test(test_cpu_set_rows),
        cmocka_unit_test(test_cpu_device_list),  cmocka_unit_test(test_one_token_prompt),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
