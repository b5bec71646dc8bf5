/*
 * vnpu-bench's XDNA figures (make test): op mode on NPU2Col1 has the modelled us/op and GFLOP/s columns, filled, and
 * the same with 1 and 2 CPU threads (the model does not depend on the host); model mode on stories260K with
 * -dev NPU2Col1 prints the --arch table (arch = the partition) with a modelled t/s, and its breakdown.
 */
#include "test-common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The last csv field of the first data line of out (the op table's modelled_gflops), copied into cell. */
static void last_field(const char *out, const char *what, char *cell, size_t size) {
    const char *line = strstr(out, "\nNPU2Col1,");
    if (!line) {
        fail_msg("%s: no NPU2Col1 row:\n%s", what, out);
    }
    const char *end = strchr(line + 1, '\n');
    const char *p = end;
    int commas = 0;
    while (p > line && commas < 2) { /* the last two fields: modelled_us, modelled_gflops */
        commas += *--p == ',';
    }
    snprintf(cell, size, "%.*s", (int) (end - p), p);
}

static void test_bench_op_modelled(void **state) {
    (void) state;
    char cells[2][96];
    for (int t = 1; t <= 2; t++) {
        char *out = NULL;
        const int rc = test_run(&out, NULL,
                                "%s/vnpu-bench mul_mat --type f32 --k 256 --m 512 --n 8 -dev NPU2Col1 -t %d --reps 1 "
                                "--warmup 0 --per-rep 1 --no-check -o csv",
                                test_tools_dir(), t);
        assert_int_equal(rc, 0);
        assert_non_null(strstr(out, ",modelled_us,modelled_gflops\n"));
        last_field(out, "op mode", cells[t - 1], sizeof(cells[0]));
        assert_true(strlen(cells[t - 1]) > 3); /* ",x,y": both filled */
        free(out);
    }
    assert_string_equal(cells[0], cells[1]);
    printf("modelled us/op, GFLOP/s: %s\n", cells[0] + 1);
}

static void test_bench_model_modelled(void **state) {
    (void) state;
    const char *model = test_model_path("stories260K.gguf");
    char *out = NULL;
    const int rc = test_run(&out, NULL, "%s/vnpu-bench -m %s -dev NPU2Col1 -p 8 -n 2 -r 1 --no-warmup --breakdown",
                            test_tools_dir(), model);
    if (rc != 0) {
        fail_msg("vnpu-bench exited %d:\n%s", rc, out);
    }
    assert_non_null(strstr(out, "| arch | test | t/s (host) | t/s (modelled) |"));
    assert_non_null(strstr(out, "| NPU2Col1 | pp8 |"));
    assert_non_null(strstr(out, "| NPU2Col1 | tg2 |"));
    assert_non_null(strstr(out, "NPU2Col1 tg2 on NPU2Col1"));
    assert_non_null(strstr(out, "| MUL_MAT |"));
    free(out);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bench_op_modelled),
        cmocka_unit_test(test_bench_model_modelled),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
