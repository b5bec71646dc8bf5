#include "test-common.h"

#include "hash.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef VNPU_SOURCE_DIR
#error "VNPU_SOURCE_DIR must be defined by the build"
#endif

int test_in_ci(void) {
    const char *ci = getenv("CI");
    return ci && strcmp(ci, "true") == 0;
}

/* The skip accounting (test-common.h): the linker's --wrap sends the test programs' calls of cmocka's
 * _cmocka_run_group_tests and _skip (what cmocka_run_group_tests() and skip() expand to) here, and the
 * __real_ names reach cmocka's. */
int __real__cmocka_run_group_tests(const char *group_name, const struct CMUnitTest *tests, size_t num_tests,
                                   CMFixtureFunction group_setup, CMFixtureFunction group_teardown);
int __wrap__cmocka_run_group_tests(const char *group_name, const struct CMUnitTest *tests, size_t num_tests,
                                   CMFixtureFunction group_setup, CMFixtureFunction group_teardown);
void __real__skip(const char *file, int line);
void __wrap__skip(const char *file, int line);

static int skipped; /* cases skipped for a missing resource */

int __wrap__cmocka_run_group_tests(const char *group_name, const struct CMUnitTest *tests, size_t num_tests,
                                   CMFixtureFunction group_setup, CMFixtureFunction group_teardown) {
    const int failures = __real__cmocka_run_group_tests(group_name, tests, num_tests, group_setup, group_teardown);
    /* 1, not the count: an exit status keeps 8 bits (256 failures would read as 0) and 77 means skipped. */
    return failures != 0 ? 1 : skipped > 0 ? 77 : 0;
}

void __wrap__skip(const char *file, int line) {
    if (test_in_ci()) {
        fail_msg("%s:%d: skipped under CI=true, which requires every test's resources", file, line);
    }
    skipped++;
    __real__skip(file, line);
}

void test_skip_not_applicable(const char *why) {
    fprintf(stderr, "[  SKIPPED ] does not apply: %s\n", why);
    __real__skip(__FILE__, __LINE__);
}

void test_missing(const char *what, const char *how) {
    if (test_in_ci()) {
        fail_msg("%s is missing (CI=true requires it): %s", what, how);
    }
    fprintf(stderr, "[  SKIPPED ] %s is missing: %s\n", what, how);
    skip();
    abort(); /* not reached: cmocka's fail and skip leave the test by longjmp */
}

static int file_exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

const char *test_model_path(const char *rel) {
    static char path[4096];
    const char *dir = getenv("VNPU_MODELS_DIR");
    if (dir && *dir) {
        snprintf(path, sizeof(path), "%s/%s", dir, rel);
    } else {
        snprintf(path, sizeof(path), "%s/../shared/models/%s", VNPU_SOURCE_DIR, rel);
    }
    if (!file_exists(path)) {
        static char what[4200];
        snprintf(what, sizeof(what), "model %s", path);
        test_missing(what, "put the shared models next to the repository (../shared/models) or set VNPU_MODELS_DIR");
    }
    return path;
}

/* A directory a ../shared/oracle script prints on the first line of its stdout, found once: cmd is the script and its
 * arguments, probe a file the directory must hold; what and how say what is missing otherwise. */
struct oracle_dir {
    const char *cmd, *probe, *what, *how;
    int state; /* 0 unknown, 1 ok, -1 unavailable */
    char dir[4096];
};

static const char *oracle_dir_get(struct oracle_dir *d) {
    if (d->state == 0) {
        char *out = NULL;
        const int rc = test_run(&out, NULL, "%s/../shared/oracle/%s 2>/dev/null", VNPU_SOURCE_DIR, d->cmd);
        d->state = -1;
        if (rc == 0 && out) {
            out[strcspn(out, "\n")] = '\0';
            snprintf(d->dir, sizeof(d->dir), "%s", out);
            char path[4200];
            snprintf(path, sizeof(path), "%s/%s", d->dir, d->probe);
            d->state = file_exists(path) ? 1 : -1;
        }
        free(out);
    }
    if (d->state < 0) {
        test_missing(d->what, d->how);
    }
    return d->dir;
}

const char *test_oracle_bin(void) {
    static struct oracle_dir d = {.cmd = "setup.sh --bindir",
                                  .probe = "llama_ref",
                                  .what = "the llama.cpp oracle",
                                  .how = "../shared/oracle/setup.sh must run (needs npm and the npm registry)"};
    return oracle_dir_get(&d);
}

const char *test_oracle_libdir(void) {
    static struct oracle_dir d = {.cmd = "setup.sh --libdir",
                                  .probe = "libggml-base.so",
                                  .what = "the llama.cpp oracle's libraries",
                                  .how = "../shared/oracle/setup.sh must run (needs npm and the npm registry)"};
    return oracle_dir_get(&d);
}

const char *test_upstream_srcdir(void) {
    static struct oracle_dir d = {.cmd = "upstream.sh --srcdir",
                                  .probe = "ggml/src/gguf.cpp",
                                  .what = "llama.cpp's source",
                                  .how = "../shared/oracle/upstream.sh must run (needs npm and the npm registry)"};
    return oracle_dir_get(&d);
}

const char *test_upstream_bindir(void) {
    static struct oracle_dir d = {.cmd = "upstream.sh --bindir",
                                  .probe = "test-backend-ops",
                                  .what = "llama.cpp's programs",
                                  .how = "../shared/oracle/upstream.sh must run (needs npm and the npm registry)"};
    return oracle_dir_get(&d);
}

const char *test_ggml_plugin(void) {
    const char *plugin = VNPU_GGML_PLUGIN;
    if (!*plugin) {
        test_missing("libggml-vnpu.so", "configure with -DVNPU_GGML_SRC=<llama.cpp source> (make test passes the "
                                        "oracle's, ../shared/oracle/upstream.sh --srcdir)");
    }
    return plugin;
}

const char *test_tools_dir(void) {
    const char *dir = getenv("VNPU_TOOLS_DIR");
#ifdef VNPU_TOOLS_DIR
    if (!dir || !*dir) {
        dir = VNPU_TOOLS_DIR;
    }
#endif
    assert_non_null(dir);
    return dir;
}

static char tmpdir_path[4096];

static void tmpdir_remove(void) {
    if (tmpdir_path[0]) {
        char cmd[4200];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir_path);
        if (system(cmd) != 0) {
            fprintf(stderr, "warning: could not remove %s\n", tmpdir_path);
        }
    }
}

const char *test_tmpdir(void) {
    if (!tmpdir_path[0]) {
        const char *base = getenv("TMPDIR");
        snprintf(tmpdir_path, sizeof(tmpdir_path), "%s/vnpu-test-XXXXXX", base && *base ? base : "/tmp");
        assert_non_null(mkdtemp(tmpdir_path));
        atexit(tmpdir_remove);
    }
    return tmpdir_path;
}

static char *read_stream(FILE *f, size_t *size) {
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    assert_non_null(buf);
    size_t n;
    while ((n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += n;
        if (cap - len < 2) {
            cap *= 2;
            buf = realloc(buf, cap);
            assert_non_null(buf);
        }
    }
    buf[len] = '\0';
    if (size) {
        *size = len;
    }
    return buf;
}

int test_run(char **out, char **err, const char *fmt, ...) {
    char cmd[16384];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(cmd, sizeof(cmd), fmt, ap);
    va_end(ap);
    assert_true(n > 0 && (size_t) n < sizeof(cmd));

    char errpath[4200] = "";
    char full[20600];
    if (err) {
        snprintf(errpath, sizeof(errpath), "%s/stderr-XXXXXX", test_tmpdir());
        int fd = mkstemp(errpath);
        assert_true(fd >= 0);
        close(fd);
        snprintf(full, sizeof(full), "( %s ) 2>'%s'", cmd, errpath);
    } else {
        snprintf(full, sizeof(full), "%s", cmd);
    }
    FILE *p = popen(full, "r");
    if (!p) {
        if (out) {
            *out = NULL;
        }
        if (err) {
            *err = NULL;
            unlink(errpath);
        }
        return -1;
    }
    char *text = read_stream(p, NULL);
    int status = pclose(p);
    if (out) {
        *out = text;
    } else {
        fputs(text, stdout);
        free(text);
    }
    if (err) {
        *err = test_read_file(errpath, NULL);
        if (!*err) {
            *err = strdup("");
        }
        unlink(errpath);
    }
    if (status == -1 || !WIFEXITED(status)) {
        return -1;
    }
    return WEXITSTATUS(status);
}

void *test_read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        return NULL;
    }
    char *data = read_stream(f, size); /* NUL-terminated too, for text files */
    fclose(f);
    return data;
}

void test_write_file(const char *path, const void *data, size_t size) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, size, f), size);
    assert_int_equal(fclose(f), 0);
}

void test_rng_seed(struct test_rng *rng, const char *seed) {
    vnpu_rng_seed(&rng->state, vnpu_fnv1a64(seed, strlen(seed)));
}

uint64_t test_rng_next(struct test_rng *rng) {
    return vnpu_rng_next(&rng->state);
}

float test_rng_uniform(struct test_rng *rng) {
    return (float) (test_rng_next(rng) >> 40) * (1.0f / 16777216.0f);
}

float test_rng_normal(struct test_rng *rng, float std) {
    float u1 = test_rng_uniform(rng), u2 = test_rng_uniform(rng);
    if (u1 < 1e-12f) {
        u1 = 1e-12f;
    }
    return std * sqrtf(-2.0f * logf(u1)) * cosf(6.28318530718f * u2);
}

void test_rng_fill_normal(struct test_rng *rng, float *x, size_t n, float std) {
    for (size_t i = 0; i < n; i++) {
        x[i] = test_rng_normal(rng, std);
    }
}

void test_log_collect(enum vnpu_log_level level, const char *text, void *user) {
    struct test_log *log = user;
    log->n_errors += level == VNPU_LOG_ERROR;
    log->n_warnings += level == VNPU_LOG_WARN;
    const int n = snprintf(log->text + log->len, sizeof(log->text) - log->len, "%s\n", text);
    if (n > 0) {
        log->len += (size_t) n < sizeof(log->text) - log->len ? (size_t) n : sizeof(log->text) - 1 - log->len;
    }
}

int test_greedy_ids(const char *model, const char *key, int *ids, int max) {
    char *text = test_read_file(test_model_path("reference/greedy.txt"), NULL);
    assert_non_null(text);
    char header[256];
    snprintf(header, sizeof(header), "### model: %s\n", model);
    const char *section = strstr(text, header);
    assert_non_null(section);
    const int n = test_parse_ids(section + strlen(header), key, ids, max);
    free(text);
    assert_true(n >= 0);
    return n;
}

int test_parse_ids(const char *text, const char *key, int *ids, int max) {
    const size_t klen = strlen(key);
    const char *line = text;
    while (line && !(strncmp(line, key, klen) == 0 && line[klen] == ':')) {
        line = strchr(line, '\n');
        line = line ? line + 1 : NULL;
    }
    if (!line) {
        return -1;
    }
    const char *p = line + klen + 1;
    int n = 0;
    char *end;
    for (long v = strtol(p, &end, 10); end != p && n < max; v = strtol(p, &end, 10)) {
        if (memchr(p, '\n', (size_t) (end - p))) {
            break; /* the number is on the next line */
        }
        ids[n++] = (int) v;
        p = end;
    }
    return n;
}

int test_count_lines(const char *text, ...) {
    int n = 0;
    for (const char *line = text; line && *line;) {
        const char *eol = strchr(line, '\n');
        const size_t len = eol ? (size_t) (eol - line) : strlen(line);
        bool all = true;
        va_list ap;
        va_start(ap, text);
        for (const char *want = va_arg(ap, const char *); want && all; want = va_arg(ap, const char *)) {
            all = memmem(line, len, want, strlen(want)) != NULL;
        }
        va_end(ap);
        n += all;
        line = eol ? eol + 1 : NULL;
    }
    return n;
}

void test_logits_tokens(const char *path, char *list, size_t size) {
    size_t n = 0;
    uint8_t *data = test_read_file(path, &n);
    const char *bad = !data                              ? "cannot be read"
                      : n < 32                           ? "is shorter than the 32-byte header"
                      : memcmp(data, "LLREFLG1", 8) != 0 ? "does not start with LLREFLG1: not an oracle logits file"
                                                         : NULL;
    if (bad) {
        free(data);
        fail_msg("%s %s (%zu bytes)", path, bad, n);
    }
    uint32_t hdr[6];
    memcpy(hdr, data + 8, sizeof(hdr));
    const uint32_t n_tokens = hdr[2] + hdr[3];
    assert_int_equal(n, 32 + ((size_t) hdr[4] * hdr[1] + n_tokens) * 4);
    const uint8_t *tokens = data + 32 + (size_t) hdr[4] * hdr[1] * sizeof(float);
    list[0] = '\0';
    for (uint32_t i = 0; i < n_tokens; i++) {
        int32_t t;
        memcpy(&t, tokens + 4 * i, sizeof(t));
        snprintf(list + strlen(list), size - strlen(list), "%s%d", i ? "," : "", t);
    }
    free(data);
}

int test_logits_diff(const char *bin, const char *a, const char *b, const char *limits, struct test_logits_cmp *cmp) {
    char *out = NULL;
    const int rc = test_run(&out, NULL, "%s/logits_diff %s %s %s", bin, a, b, limits);
    if (!out) {
        fail_msg("%s/logits_diff could not be started", bin);
    }
    const char *agree = strstr(out, "argmax agreement:"), *max_abs = strstr(out, "max |a-b|:");
    const char *kl = strstr(out, "KL(a||b): mean");
    if (!agree || !max_abs || !kl) {
        printf("%s", out);
        free(out);
        fail_msg("%s/logits_diff %s %s exited %d without its summary (argmax agreement, max |a-b|, KL lines)", bin, a,
                 b, rc);
    }
    assert_int_equal(sscanf(agree, "argmax agreement: %d/%d", &cmp->agree, &cmp->rows), 2);
    assert_int_equal(sscanf(max_abs, "max |a-b|: %lf", &cmp->max_abs), 1);
    assert_int_equal(sscanf(kl, "KL(a||b): mean %lf", &cmp->kl_mean), 1);
    if (rc != 0) {
        printf("%s", out);
    }
    free(out);
    return rc;
}

/* The first 64 hex digits sha256sum prints for path, into hex[65]; fails the test when it cannot. */
static void sha256_hex(const char *path, char hex[65]) {
    char *out = NULL;
    const int rc = test_run(&out, NULL, "sha256sum '%s'", path);
    if (rc != 0 || !out || strspn(out, "0123456789abcdef") < 64) {
        free(out);
        fail_msg("sha256sum %s failed (exit %d)", path, rc);
    }
    memcpy(hex, out, 64);
    hex[64] = '\0';
    free(out);
}

/* What else a reference depends on: the oracle's build (bin/.build-id: compiler, flags, library dir, sources) and
 * the CPU backend llama.cpp loads on this machine (its kernels differ between variants), hashed once. */
static uint64_t oracle_identity(const char *bin) {
    static uint64_t id;
    if (id == 0) {
        char *out = NULL;
        const int rc = test_run(&out, NULL, "cat '%s/.build-id' && '%s/llama_ref' --backends 2>&1", bin, bin);
        if (rc != 0 || !out) {
            free(out);
            fail_msg("%s: cannot read the oracle's build id and CPU backend (exit %d)", bin, rc);
        }
        id = vnpu_fnv1a64(out, strlen(out)) | 1;
        free(out);
    }
    return id;
}

/* Make cached (in dir) once per machine: bin/tool args out_opt PART, PART renamed to cached when the tool succeeds, so
 * that a test running at once with another that makes the same file, or a run cut short, never sees half of it (each
 * process writes its own PART). Fails the test with the tool's stderr when it fails. */
static void cache_fill(const char *dir, const char *cached, const char *bin, const char *tool, const char *args,
                       const char *out_opt) {
    if (file_exists(cached)) {
        return;
    }
    char part[4500];
    snprintf(part, sizeof(part), "%s.part-%d", cached, (int) getpid());
    char *err = NULL;
    const int rc =
        test_run(NULL, &err, "mkdir -p '%s' && '%s/%s' %s %s '%s' >/dev/null", dir, bin, tool, args, out_opt, part);
    if (rc != 0) {
        unlink(part);
        fail_msg("%s %s exited %d:\n%.4000s", tool, args, rc, err ? err : "");
    }
    free(err);
    assert_int_equal(rename(part, cached), 0);
}

void test_llama_ref_logits(const char *bin, const char *model, const char *args, const char *out) {
    char hex[65], dir[4200], cached[4400], ref_args[16384];
    sha256_hex(model, hex);
    const uint64_t key = vnpu_fnv1a64(args, strlen(args)) ^ oracle_identity(bin);
    snprintf(dir, sizeof(dir), "%s/../cache/llama-ref", bin);
    snprintf(cached, sizeof(cached), "%s/%s-%016llx.logits", dir, hex, (unsigned long long) key);
    snprintf(ref_args, sizeof(ref_args), "-m '%s' %s", model, args);
    cache_fill(dir, cached, bin, "llama_ref", ref_args, "--logits-out");
    assert_int_equal(test_run(NULL, NULL, "cp '%s' '%s'", cached, out), 0);
}

const char *test_gen_gguf(const char *name, const char *args, char *path, size_t size) {
    const char *bin = test_oracle_bin();
    char dir[4200];
    const uint64_t key = vnpu_fnv1a64(args, strlen(args)) ^ oracle_identity(bin);
    snprintf(dir, sizeof(dir), "%s/../cache/gen_gguf", bin);
    const int n = snprintf(path, size, "%s/%s-%016llx.gguf", dir, name, (unsigned long long) key);
    assert_true(n > 0 && (size_t) n < size);
    cache_fill(dir, path, bin, "gen_gguf", args, "-o");
    return path;
}
