/*
 * Malformed and unusual files through both tools that read them (issue 2, acceptance 5; issue 14, acceptance 4: the
 * qwen2, qwen3 and Llama 3 rules, on arch-models.h's models, whose files arch_model_path writes).
 *
 * Every malformed file, the GGUF-level ones of tests/gguf/gguf-cases.c and the model-level ones of
 * model-cases.c, is rejected by `vnpu-gguf --validate` and by `vnpu-cli` with exit status 1 (a normal
 * exit: a crash or a signal fails), nothing on stdout and its specific message on stderr. Every valid but
 * unusual file passes `vnpu-gguf --validate`. vnpu-cli refuses the unusual GGUF files, which are not models of
 * an architecture vnpu runs, and runs the unusual models: those holding the base model generate its 8 greedy tokens,
 * and each generates llama.cpp's tokens (the oracle). No run may print a sanitizer report: the test is meant to run in
 * a VNPU_SANITIZE build too, where the tools print those reports on stderr.
 */
#include "test-common.h"

#include "arch-models.h"
#include "gguf-cases.h"
#include "model-cases.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MIN_MALFORMED 40 /* the acceptance asks for at least this many malformed files per tool */

enum tool { TOOL_GGUF, TOOL_CLI, TOOL_COUNT };

static const char *const tool_names[TOOL_COUNT] = {"vnpu-gguf --validate", "vnpu-cli"};

/* Malformed files each tool rejected, by level: [tool][0] GGUF, [tool][1] model. */
static size_t n_rejected[TOOL_COUNT][2];

/* The command line running tool on path. */
static void tool_command(char *cmd, size_t size, enum tool tool, const char *path, const char *extra) {
    if (tool == TOOL_GGUF) {
        snprintf(cmd, size, "'%s/vnpu-gguf' --validate '%s'", test_tools_dir(), path);
    } else {
        snprintf(cmd, size, "'%s/vnpu-cli' -m '%s' -t 1 --seed 0 --device CPU %s", test_tools_dir(), path, extra);
    }
}

/* A sanitizer report on stderr fails the test, whatever the exit status. */
static void check_no_sanitizer_report(const char *cmd, const char *err) {
    if (strstr(err, "AddressSanitizer") || strstr(err, "LeakSanitizer") || strstr(err, "runtime error:")) {
        fail_msg("%s: sanitizer report on stderr:\n%s", cmd, err);
    }
}

/* Run tool on path and require exit status 1, nothing on stdout and message on stderr. */
static void check_rejected(enum tool tool, const char *path, const char *message) {
    char cmd[8600];
    tool_command(cmd, sizeof(cmd), tool, path, "-p hi -n 1");
    char *out = NULL, *err = NULL;
    const int rc = test_run(&out, &err, "%s", cmd);
    check_no_sanitizer_report(cmd, err);
    if (rc != 1 || out[0] != '\0' || !strstr(err, "error: ") || !strstr(err, message)) {
        fail_msg("%s: exit %d%s, stdout:\n%s\nstderr:\n%s\nwanted exit 1 and: %s", cmd, rc,
                 rc > 128 ? " (killed by a signal)" : "", out, err, message);
    }
    free(out);
    free(err);
}

static const char *subdir(const char *name) {
    static char path[4200];
    snprintf(path, sizeof(path), "%s/%s", test_tmpdir(), name);
    if (mkdir(path, 0777) != 0) {
        assert_int_equal(errno, EEXIST);
    }
    return path;
}

static void test_gguf_malformed(void **state) {
    (void) state;
    const char *dir = subdir("gguf");
    size_t n;
    const struct gguf_case *cases = gguf_cases_write_malformed(dir, &n);
    for (size_t i = 0; i < n; i++) {
        char path[4400];
        snprintf(path, sizeof(path), "%s/%s.gguf", dir, cases[i].name);
        for (int tool = 0; tool < TOOL_COUNT; tool++) {
            check_rejected((enum tool) tool, path, cases[i].message);
            n_rejected[tool][0]++;
        }
    }
    printf("GGUF-level malformed files rejected: %zu by each tool\n", n);
}

static void test_model_malformed(void **state) {
    (void) state;
    const char *dir = subdir("model");
    size_t n;
    const struct model_case *cases = model_cases_write_malformed(dir, arch_model_path, &n);
    for (size_t i = 0; i < n; i++) {
        char path[4400];
        snprintf(path, sizeof(path), "%s/%s.gguf", dir, cases[i].name);
        for (int tool = 0; tool < TOOL_COUNT; tool++) {
            check_rejected((enum tool) tool, path, cases[i].message);
            n_rejected[tool][1]++;
        }
    }
    printf("model-level malformed files rejected: %zu by each tool\n", n);
}

/* vnpu-gguf --validate accepts each unusual GGUF file; vnpu-cli refuses it for its architecture. */
static void test_gguf_valid(void **state) {
    (void) state;
    const char *dir = subdir("gguf-ok");
    size_t n;
    struct gb_bytes bytes = {0};
    const struct gguf_case *cases = gguf_cases_write_valid(dir, &n);
    for (size_t i = 0; i < n; i++) {
        char path[4400], cmd[8600], why[256] = "general.architecture is missing";
        snprintf(path, sizeof(path), "%s/%s.gguf", dir, cases[i].name);
        struct gb_file d;
        gguf_case_build(&cases[i], &d, &bytes);
        for (int k = 0; k < d.n_kv; k++) {
            if (strcmp(d.kv[k].key, "general.architecture") == 0) {
                snprintf(why, sizeof(why), "architecture '%s' is not supported (llama, qwen2, qwen3)", d.kv[k].str);
            }
        }
        char *out = NULL, *err = NULL;
        tool_command(cmd, sizeof(cmd), TOOL_GGUF, path, "");
        const int rc = test_run(&out, &err, "%s", cmd);
        check_no_sanitizer_report(cmd, err);
        if (rc != 0 || !strstr(out, ": valid GGUF v") || err[0] != '\0') {
            fail_msg("%s: exit %d, stdout:\n%s\nstderr:\n%s", cmd, rc, out, err);
        }
        free(out);
        free(err);
        check_rejected(TOOL_CLI, path, why);
    }
    gb_bytes_free(&bytes);
    printf("unusual GGUF files: %zu accepted by vnpu-gguf --validate, refused as models by vnpu-cli\n", n);
}

/* What vnpu-gguf --validate says about a base model and the ids vnpu-cli prints for it. */
struct base_model {
    const char *name;
    const char *summary; /* the end of the --validate line */
    char ids[2][4096];   /* "prompt ids: ..." and "generated ids: ..." lines of the base file */
};

static struct base_model bases[] = {
    {.name = "stories260K.gguf", .summary = ", llama model (5 layers, n_embd 64, n_vocab 512)\n"},
    {.name = "llama-2-tiny-random.gguf", .summary = ", llama model (1 layers, n_embd 8, n_vocab 32000)\n"},
    {.name = "arch-spm/qwen2-f32.gguf", .summary = ", qwen2 model (2 layers, n_embd 64, n_vocab 32000)\n"},
};

static const char *const id_lines[2] = {"prompt ids:", "generated ids:"};

/* Greedy generation of 8 tokens from "hi" on path; the two id lines into ids (fails when missing). */
static void generate(const char *path, char ids[2][4096]) {
    char cmd[8600];
    tool_command(cmd, sizeof(cmd), TOOL_CLI, path, "-p hi -n 8 --temp 0 --ignore-eos --print-token-ids");
    char *out = NULL, *err = NULL;
    const int rc = test_run(&out, &err, "%s", cmd);
    check_no_sanitizer_report(cmd, err);
    if (rc != 0) {
        fail_msg("%s: exit %d, stderr:\n%s", cmd, rc, err);
    }
    for (int k = 0; k < 2; k++) {
        const char *line = strstr(err, id_lines[k]);
        if (!line) {
            fail_msg("%s: no '%s' line on stderr:\n%s", cmd, id_lines[k], err);
        }
        snprintf(ids[k], 4096, "%.*s", (int) strcspn(line, "\n"), line);
    }
    int n_generated = 0;
    for (const char *p = ids[1] + strlen(id_lines[1]); *p; p++) {
        n_generated += *p == ' ';
    }
    if (n_generated != 8) {
        fail_msg("%s: %d tokens generated, wanted 8: %s", cmd, n_generated, ids[1]);
    }
    free(out);
    free(err);
}

static struct base_model *base_of(const struct model_case *c) {
    for (size_t b = 0; b < sizeof(bases) / sizeof(bases[0]); b++) {
        if (strcmp(bases[b].name, c->base) == 0) {
            if (!bases[b].ids[0][0]) {
                generate(arch_model_path(c->base), bases[b].ids);
            }
            return &bases[b];
        }
    }
    fail_msg("%s: base model %s has no row in bases[]", c->name, c->base);
    return NULL;
}

/* vnpu-gguf --validate accepts each unusual model as one; vnpu-cli loads and runs it, and those holding the
 * base model generate the base model's tokens. */
static void test_model_valid(void **state) {
    (void) state;
    const char *dir = subdir("model-ok");
    size_t n, n_same = 0;
    const struct model_case *cases = model_cases_write_valid(dir, arch_model_path, &n);
    for (size_t i = 0; i < n; i++) {
        const struct model_case *c = &cases[i];
        struct base_model *base = base_of(c);
        char path[4400], cmd[8600], head[4500];
        snprintf(path, sizeof(path), "%s/%s.gguf", dir, c->name);
        snprintf(head, sizeof(head), "%s: valid GGUF v%u, ", path, c->version ? c->version : 3);
        char *out = NULL, *err = NULL;
        tool_command(cmd, sizeof(cmd), TOOL_GGUF, path, "");
        const int rc = test_run(&out, &err, "%s", cmd);
        check_no_sanitizer_report(cmd, err);
        const size_t len = strlen(out), len_summary = strlen(base->summary);
        if (rc != 0 || strncmp(out, head, strlen(head)) != 0 || len < len_summary ||
            strcmp(out + len - len_summary, base->summary) != 0 || err[0] != '\0') {
            fail_msg("%s: exit %d, stdout:\n%s\nstderr:\n%s\nwanted: %s...%s", cmd, rc, out, err, head, base->summary);
        }
        free(out);
        free(err);
        char ids[2][4096];
        generate(path, ids);
        if (c->same_tokens) {
            for (int k = 0; k < 2; k++) {
                if (strcmp(ids[k], base->ids[k]) != 0) {
                    fail_msg("%s: %s\nthe base model %s: %s", c->name, ids[k], c->base, base->ids[k]);
                }
            }
            n_same++;
        }
    }
    printf("unusual models: %zu accepted by vnpu-gguf --validate and run by vnpu-cli, %zu of them with the base "
           "model's 8 greedy tokens\n",
           n, n_same);
}

/* llama.cpp (the oracle's llama_ref) loads each unusual model too and generates vnpu-cli's tokens: the files
 * are valid for llama.cpp, not only for vnpu. */
static void test_model_valid_oracle(void **state) {
    (void) state;
    const char *bin = test_oracle_bin();
    const char *dir = subdir("model-oracle");
    size_t n;
    const struct model_case *cases = model_cases_write_valid(dir, arch_model_path, &n);
    for (size_t i = 0; i < n; i++) {
        char path[4400], ids[2][4096];
        snprintf(path, sizeof(path), "%s/%s.gguf", dir, cases[i].name);
        generate(path, ids);
        char *out = NULL, *err = NULL;
        const int rc = test_run(&out, &err, "'%s/llama_ref' -m '%s' -p hi -n 8 -t 1", bin, path);
        if (rc != 0) {
            fail_msg("llama_ref on %s: exit %d, stderr:\n%s", cases[i].name, rc, err);
        }
        static const char *const oracle_lines[2] = {"\nprompt_ids: ", "\ngen_ids: "};
        for (int k = 0; k < 2; k++) {
            const char *line = strstr(out, oracle_lines[k]);
            assert_non_null(line);
            char want[4096];
            snprintf(want, sizeof(want), "%s %.*s", id_lines[k], (int) strcspn(line + strlen(oracle_lines[k]), "\n"),
                     line + strlen(oracle_lines[k]));
            for (char *p = want; *p; p++) {
                *p = *p == ',' ? ' ' : *p;
            }
            if (strcmp(ids[k], want) != 0) {
                fail_msg("%s: vnpu-cli %s\nllama.cpp %s", cases[i].name, ids[k], want);
            }
        }
        free(out);
        free(err);
    }
    printf("unusual models: llama.cpp generates vnpu-cli's 8 greedy tokens on all %zu\n", n);
}

/* The acceptance's count, per tool. */
static void test_count(void **state) {
    (void) state;
    for (int tool = 0; tool < TOOL_COUNT; tool++) {
        const size_t total = n_rejected[tool][0] + n_rejected[tool][1];
        printf("%s rejected %zu malformed files (%zu GGUF-level, %zu model-level)\n", tool_names[tool], total,
               n_rejected[tool][0], n_rejected[tool][1]);
        assert_true(total >= MIN_MALFORMED);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gguf_malformed),     cmocka_unit_test(test_model_malformed),
        cmocka_unit_test(test_gguf_valid),         cmocka_unit_test(test_model_valid),
        cmocka_unit_test(test_model_valid_oracle), cmocka_unit_test(test_count),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
