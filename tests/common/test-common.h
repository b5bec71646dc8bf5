/*
 * Helpers shared by the cmocka tests: locating the shared models and the llama.cpp oracle, running
 * commands, scratch directories, random data.
 *
 * A test that needs a model or the oracle fails when CI=true and they are missing, and otherwise skips
 * with a message saying what is missing and how to get it.
 *
 * Skips are accounted for in every test program, whatever its main returns: vnpu-test-common is linked with
 * --wrap=_cmocka_run_group_tests,--wrap=_skip (tests/CMakeLists.txt), so the linker sends what cmocka's
 * cmocka_run_group_tests() and skip() expand to through test-common.c. The program then exits 1 when a test
 * failed, 77 (ctest's SKIP_RETURN_CODE, set by vnpu_test) when none failed but one skipped, so ctest reports it
 * as skipped rather than passed, and 0 otherwise; a skip() under CI=true fails the test. A case that does not
 * apply (rather than one whose resource is missing) calls test_skip_not_applicable.
 */
#ifndef VNPU_TEST_COMMON_H
#define VNPU_TEST_COMMON_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "rng.h"
#include "vnpu.h"

/* Path of a file under the shared models directory (VNPU_MODELS_DIR, default ../shared/models next to
 * the repository), e.g. "stories260K.gguf" or "derived/stories260K-Q8_0.gguf". Missing: fail under CI,
 * else skip. The returned string lives until the next call. */
const char *test_model_path(const char *rel);

/* Directory holding the oracle tools (llama_ref, ggml_quant, gen_gguf, logits_diff), installed on first
 * use by ../shared/oracle/setup.sh into ORACLE_HOME (default ~/.cache/vnpu-oracle). Unavailable: fail
 * under CI, else skip. */
const char *test_oracle_bin(void);

/* Directory holding the oracle's llama.cpp libraries (libggml-base.so, ...), which its tools and llama.cpp's programs
 * load (setup.sh --libdir). Unavailable: fail under CI, else skip. */
const char *test_oracle_libdir(void);

/* llama.cpp's source of the oracle's release (models/ggml-vocab-*.gguf, ggml/src/gguf.cpp, ...), cloned on first use
 * by ../shared/oracle/upstream.sh into ORACLE_HOME. Unavailable: fail under CI, else skip. */
const char *test_upstream_srcdir(void);

/* llama.cpp's own programs of that release (test-backend-ops, llama-bench, llama-completion, llama-tokenize), built by
 * ../shared/oracle/upstream.sh against the oracle's libraries into ORACLE_HOME. Unavailable: fail under CI, else skip.
 */
const char *test_upstream_bindir(void);

/* Path of libggml-vnpu.so in the build tree (VNPU_GGML_PLUGIN, set by CMake; empty when not configured with
 * VNPU_GGML_SRC), for GGML_BACKEND_PATH. Not built: fail under CI, else skip. */
const char *test_ggml_plugin(void);

/* Directory holding vnpu's own tools in the build tree (VNPU_TOOLS_DIR, set by CMake). */
const char *test_tools_dir(void);

/* A fresh scratch directory under $TMPDIR for this test process (removed at exit). */
const char *test_tmpdir(void);

/* Run a shell command; returns its exit status (-1 if it could not run). When out is not NULL, stdout
 * is captured into a malloc'd NUL-terminated string (*out, caller frees); stderr goes to the test log
 * unless err is not NULL, which captures it the same way. A command that cannot be started returns -1 with *out
 * and *err NULL. */
int test_run(char **out, char **err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Read a whole file into a malloc'd buffer; NULL if it cannot. */
void *test_read_file(const char *path, size_t *size);
/* Write size bytes to path; asserts success. */
void test_write_file(const char *path, const void *data, size_t size);

/* Deterministic xoshiro256** stream (rng.h) seeded from a string (e.g. a test case's name): the state from
 * splitmix64 of the string's FNV-1a 64. */
struct test_rng {
    struct vnpu_rng state;
};
void test_rng_seed(struct test_rng *rng, const char *seed);
uint64_t test_rng_next(struct test_rng *rng);
float test_rng_uniform(struct test_rng *rng);                                   /* [0, 1) */
float test_rng_normal(struct test_rng *rng, float std);                         /* N(0, std^2) */
void test_rng_fill_normal(struct test_rng *rng, float *x, size_t n, float std); /* x[0..n) drawn from N(0, std^2) */

/* The integers on the first line of text that starts with "key:" (e.g. "generated ids: 432 383"): up to max
 * of them into ids; returns how many, or -1 when no line starts with key. */
int test_parse_ids(const char *text, const char *key, int *ids, int max);

/* The integers of the "key:" line in model's section ("### model: MODEL") of the shared models'
 * reference/greedy.txt (llama.cpp's greedy run: prompt_tokens, greedy_tokens): up to max into ids; returns how
 * many. A missing file fails under CI, else skips (as test_model_path); a missing section or key fails. */
int test_greedy_ids(const char *model, const char *key, int *ids, int max);

/* The number of lines of text that contain every one of the strings after it, up to a NULL (a verbose log's lines
 * about one op, say: test_count_lines(err, "execute-op MUL_MAT : ", " -> ", NULL)). */
int test_count_lines(const char *text, ...) __attribute__((sentinel));

/* The token sequence (prompt, then generated) stored after the rows of an oracle logits file (LLREFLG1,
 * ../shared/oracle/README.md) as "1,2,3" into list; asserts the file is whole. */
void test_logits_tokens(const char *path, char *list, size_t size);

/* What the oracle's logits_diff says of two logits files a and b. */
struct test_logits_cmp {
    int agree, rows; /* argmax agreement: agree of rows positions */
    double max_abs;  /* max |a - b| over every logit */
    double kl_mean;  /* mean over positions of KL(softmax a || softmax b) */
};

/* Run bin/logits_diff a b limits (its limit options, "" for none) into *cmp; returns its exit status (0: every
 * limit holds). Its output goes to the test log when a limit is broken. */
int test_logits_diff(const char *bin, const char *a, const char *b, const char *limits, struct test_logits_cmp *cmp);

/* llama.cpp's logits for model, as the oracle's llama_ref gives them with args (its options but -m and --logits-out,
 * e.g. "-p 'Once upon a time' -n 64 -t 2 --kv-type f32 -fa off"), copied to out. Reference runs are cached in the
 * oracle's home (bin/../cache/llama-ref), keyed by the model's sha256, args, the oracle's build and the CPU backend
 * llama.cpp loads here, so every test and every later run on the machine shares one run per reference. Fails the
 * test when llama_ref fails. */
void test_llama_ref_logits(const char *bin, const char *model, const char *args, const char *out);

/* The oracle's gen_gguf model made with args (its options but -o, e.g. "--preset tiny --std 0.06 --seed 42 --type
 * q4_0"), as a path into size bytes at path, which it returns. Models are cached in the oracle's home
 * (bin/../cache/gen_gguf/NAME-KEY.gguf: name says what it is, KEY hashes args, the oracle's build and the CPU backend
 * llama.cpp loads here), so every test and every later run on the machine shares one generation per args; a model is
 * written under a name of its own and renamed, so tests running at once never see half of one. The oracle missing:
 * test_oracle_bin's fail or skip; gen_gguf failing fails the test. */
const char *test_gen_gguf(const char *name, const char *args, char *path, size_t size);

/* True when running under CI (CI=true). */
int test_in_ci(void);

/* A resource the running test needs is missing: fail the test under CI, else skip it, saying what is missing and how
 * to get it (test_model_path and test_oracle_bin call it). Does not return, which the compiler knows. */
__attribute__((noreturn)) void test_missing(const char *what, const char *how);

/* For a tool a test needs (a cross compiler, an emulator): when !available, test_missing. Inline, so that the compiler
 * sees that code after it runs only when available (a pointer checked here is not NULL below). */
static inline void test_require(int available, const char *what, const char *how) {
    if (!available) {
        test_missing(what, how);
    }
}

/* Skip the running case because it does not apply to its row (the oracle cannot convert that type, say),
 * saying why: cmocka reports it as skipped, and it is neither a missing resource (the program's exit status
 * does not change) nor a failure under CI. Does not return. */
void test_skip_not_applicable(const char *why);

/* Log messages collected in memory: vnpu_log_set(test_log_collect, &log, VNPU_LOG_WARN) after zeroing a
 * struct test_log; text holds the messages one per line (cut at its size), counts by level. */
struct test_log {
    char text[8192];
    size_t len;
    int n_errors;
    int n_warnings;
};
void test_log_collect(enum vnpu_log_level level, const char *text, void *user);

#endif /* VNPU_TEST_COMMON_H */
