/*
 * llama.cpp's own tokenizer test vectors (models/ggml-vocab-*.gguf with their .inp/.out files, as its
 * tests/test-tokenizer-0.cpp reads them: cases separated by "\n__ggml_vocab_test__\n", one line of ids per case,
 * tokenized with add_special and parse_special off): every case of every vocabulary vnpu supports gives llama.cpp's
 * ids, and every vocabulary it does not support is refused with the reason docs/TOKENIZER.md gives. The load time of
 * the 128256-token Llama 3 vocabulary (280147 merges) and the tokenizing speed on its test vectors are printed and
 * bounded.
 */
#include "test-common.h"

#include "gguf.h"
#include "vocab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Every vocabulary file of llama.cpp's models/ (the test fails on one missing from this table, so a new file gets a
 * row): the cases in its .inp/.out, or the status and message of its refusal. */
static const struct vocab_file {
    const char *name; /* models/ggml-vocab-NAME.gguf */
    int n_cases;      /* cases in its .inp (0: none, or none vnpu can run) */
    enum vnpu_status status;
    const char *text; /* loaded: what vnpu-gguf --validate says of its vocabulary; refused: the error, a substring */
} vocab_files[] = {
    {"llama-spm", 46, VNPU_STATUS_OK, "llama (SPM, 32000 tokens)"},
    {"phi-3", 46, VNPU_STATUS_OK, "llama (SPM, 32064 tokens)"},
    {"llama-bpe", 46, VNPU_STATUS_OK, "gpt2 (BPE, pre llama-bpe, 128256 tokens, 280147 merges)"},
    {"qwen2", 46, VNPU_STATUS_OK, "gpt2 (BPE, pre qwen2, 151936 tokens, 151387 merges)"},
    {"qwen35", 50, VNPU_STATUS_OK, "gpt2 (BPE, pre qwen35, 151936 tokens, 151387 merges)"},
    {"gpt-2", 46, VNPU_STATUS_OK, "gpt2 (BPE, pre gpt-2, 50257 tokens, 50000 merges)"},
    {"deepseek-llm", 46, VNPU_STATUS_OK, "gpt2 (BPE, pre deepseek-llm, 102400 tokens, 99757 merges)"},
    {"deepseek-coder", 46, VNPU_STATUS_OK, "gpt2 (BPE, pre deepseek-coder, 32256 tokens, 31757 merges)"},
    {"falcon", 46, VNPU_STATUS_OK, "gpt2 (BPE, pre falcon, 65024 tokens, 64784 merges)"},
    {"starcoder", 46, VNPU_STATUS_OK, "gpt2 (BPE, pre starcoder, 49152 tokens, 48872 merges)"},
    {"refact", 46, VNPU_STATUS_OK, "gpt2 (BPE, pre refact, 49216 tokens, 48891 merges)"},
    {"command-r", 46, VNPU_STATUS_OK, "gpt2 (BPE, pre command-r, 256000 tokens, 253333 merges)"},
    {"mpt", 46, VNPU_STATUS_OK, "gpt2 (BPE, pre mpt, 50432 tokens, 50009 merges)"},
    /* no test vectors: loaded only (aquila and gpt-neox have no tokenizer.ggml.pre: llama.cpp's default) */
    {"baichuan", 0, VNPU_STATUS_OK, "llama (SPM, 64000 tokens)"},
    {"aquila", 0, VNPU_STATUS_OK, "gpt2 (BPE, pre default, 100008 tokens, 99743 merges)"},
    {"gpt-neox", 0, VNPU_STATUS_OK, "gpt2 (BPE, pre default, 50432 tokens, 50009 merges)"},
    /* tokenizers vnpu does not implement */
    {"bert-bge", 0, VNPU_STATUS_UNSUPPORTED, "tokenizer.ggml.model is 'bert'"},
    {"gemma-4", 0, VNPU_STATUS_UNSUPPORTED, "tokenizer.ggml.model is 'gemma4'"},
    {"nomic-bert-moe", 0, VNPU_STATUS_UNSUPPORTED, "tokenizer.ggml.model is 't5'"},
};

#define N_FILES (sizeof(vocab_files) / sizeof(vocab_files[0]))

#define CASE_SEPARATOR "\n__ggml_vocab_test__\n"

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec * 1e3 + (double) ts.tv_nsec * 1e-6;
}

static const char *vocab_path(const char *name, const char *ext) {
    static char path[4200];
    snprintf(path, sizeof(path), "%s/models/ggml-vocab-%s.gguf%s", test_upstream_srcdir(), name, ext);
    return path;
}

/* text as a C string literal: printable ASCII as is, everything else escaped (for failure messages). */
static void text_print(char *buf, size_t size, const char *text, size_t len) {
    size_t o = 0;
    for (size_t i = 0; i < len && o + 8 < size; i++) {
        const unsigned char c = (unsigned char) text[i];
        o += (size_t) (c >= 0x20 && c < 0x7f && c != '\\' && c != '"' ? snprintf(buf + o, size - o, "%c", c)
                                                                      : snprintf(buf + o, size - o, "\\x%02x", c));
    }
    buf[o] = '\0';
}

/* The ids of one .out line (integers separated by spaces) into ids; returns how many. */
static int32_t parse_line(const char *line, const char *end, vnpu_token *ids, int32_t max) {
    int32_t n = 0;
    while (line < end) {
        char *next;
        const long v = strtol(line, &next, 10);
        if (next == line) {
            line++;
            continue;
        }
        assert_true(n < max);
        ids[n++] = (vnpu_token) v;
        line = next;
    }
    return n;
}

/* Every case of name's .inp against its .out; returns the cases run, fails on a difference (after printing it). */
static int check_cases(const char *name, const struct vnpu_vocab *vocab) {
    size_t inp_size;
    char *inp = test_read_file(vocab_path(name, ".inp"), &inp_size);
    char *out = test_read_file(vocab_path(name, ".out"), NULL);
    assert_non_null(inp);
    assert_non_null(out);
    enum { MAX_IDS = 4096 };
    static vnpu_token want[MAX_IDS], got[MAX_IDS];
    int n_cases = 0, n_pass = 0;
    const char *line = out;
    for (const char *c = inp; c < inp + inp_size; n_cases++) {
        const char *sep = strstr(c, CASE_SEPARATOR);
        const char *c_end = sep ? sep : inp + inp_size;
        const char *line_end = strchr(line, '\n');
        assert_non_null(line_end);
        const int32_t n_want = parse_line(line, line_end, want, MAX_IDS);
        const int32_t n_got = vnpu_vocab_tokenize(vocab, c, (size_t) (c_end - c), got, MAX_IDS, false, false);
        assert_true(n_got >= 0);
        if (n_got == n_want && memcmp(got, want, (size_t) n_got * sizeof(vnpu_token)) == 0) {
            n_pass++;
        } else {
            char text[1024], g[2048] = "", w[2048] = "";
            text_print(text, sizeof(text), c, (size_t) (c_end - c));
            for (int32_t i = 0; i < n_got && strlen(g) + 16 < sizeof(g); i++) {
                snprintf(g + strlen(g), sizeof(g) - strlen(g), " %d", got[i]);
            }
            for (int32_t i = 0; i < n_want && strlen(w) + 16 < sizeof(w); i++) {
                snprintf(w + strlen(w), sizeof(w) - strlen(w), " %d", want[i]);
            }
            printf("%s case %d \"%s\":\n  vnpu      [%s ]\n  llama.cpp [%s ]\n", name, n_cases, text, g, w);
        }
        line = line_end + 1;
        c = sep ? sep + strlen(CASE_SEPARATOR) : inp + inp_size;
    }
    assert_int_equal(*line, '\0'); /* one expected line per case */
    printf("%s: %d/%d cases give llama.cpp's ids\n", name, n_pass, n_cases);
    free(inp);
    free(out);
    assert_int_equal(n_pass, n_cases);
    return n_cases;
}

static void test_vocab_files(void **state) {
    (void) state;
    char *ls = NULL;
    assert_int_equal(test_run(&ls, NULL, "cd '%s/models' && ls ggml-vocab-*.gguf", test_upstream_srcdir()), 0);
    for (char *f = strtok(ls, "\n"); f; f = strtok(NULL, "\n")) {
        bool known = false;
        for (size_t i = 0; i < N_FILES && !known; i++) {
            char file[128];
            snprintf(file, sizeof(file), "ggml-vocab-%s.gguf", vocab_files[i].name);
            known = strcmp(file, f) == 0;
        }
        if (!known) {
            fail_msg("%s is not in vocab_files: add its row (and to docs/TOKENIZER.md)", f);
        }
    }
    free(ls);
    for (size_t i = 0; i < N_FILES; i++) {
        const struct vocab_file *v = &vocab_files[i];
        struct test_log log = {0};
        vnpu_log_set(test_log_collect, &log, VNPU_LOG_WARN);
        struct vnpu_vocab *vocab = NULL;
        const enum vnpu_status st = vnpu_vocab_load_file(vocab_path(v->name, ""), &vocab);
        vnpu_log_set(NULL, NULL, VNPU_LOG_WARN);
        if (st != v->status || (st != VNPU_STATUS_OK && !strstr(log.text, v->text))) {
            fail_msg("%s: %s, expected %s; the log:\n%s", v->name, vnpu_status_str(st), vnpu_status_str(v->status),
                     log.text);
        }
        if (st != VNPU_STATUS_OK) {
            printf("%s: refused (%s)\n", v->name, v->text);
            continue;
        }
        if (v->n_cases > 0) {
            assert_int_equal(check_cases(v->name, vocab), v->n_cases);
        }
        vnpu_vocab_free(vocab);
    }
}

/* vnpu-gguf --validate checks each file's vocabulary: a supported one is described, an unsupported one refused with
 * the loader's message. */
static void test_validate(void **state) {
    (void) state;
    for (size_t i = 0; i < N_FILES; i++) {
        const struct vocab_file *v = &vocab_files[i];
        char *out = NULL, *err = NULL;
        const int rc =
            test_run(&out, &err, "'%s/vnpu-gguf' --validate '%s'", test_tools_dir(), vocab_path(v->name, ""));
        char want[256];
        snprintf(want, sizeof(want), ", vocabulary %s\n", v->text);
        const bool ok = v->status == VNPU_STATUS_OK ? rc == 0 && strstr(out, want) : rc == 1 && strstr(err, v->text);
        if (!ok) {
            fail_msg("vnpu-gguf --validate %s: exit %d, stdout \"%s\", stderr \"%s\"; expected \"%s\"", v->name, rc,
                     out, err, v->text);
        }
        free(out);
        free(err);
    }
}

/* The Llama 3 vocabulary loads well under a second (128256 tokens, 280147 merges; the first load reads the Unicode
 * classes too, once per process), and tokenizes its test vectors, 100 times over as one text, at more than 1 MB/s
 * (best of 3, to see past a busy machine). */
static void test_llama3_speed(void **state) {
    (void) state;
    struct gguf_file *f = NULL;
    assert_int_equal(gguf_open(vocab_path("llama-bpe", ""), &f), VNPU_STATUS_OK);
    double first = 0.0, best = 1e9;
    struct vnpu_vocab *vocab = NULL;
    for (int i = 0; i < 3; i++) {
        vnpu_vocab_free(vocab);
        const double t = now_ms();
        assert_int_equal(vnpu_vocab_load(f, &vocab), VNPU_STATUS_OK);
        const double dt = now_ms() - t;
        first = i == 0 ? dt : first;
        best = dt < best ? dt : best;
    }
    gguf_close(f);
    size_t size;
    char *inp = test_read_file(vocab_path("llama-bpe", ".inp"), &size);
    assert_non_null(inp);
    enum { REPEAT = 100 };
    char *text = malloc(REPEAT * size);
    assert_non_null(text);
    for (int i = 0; i < REPEAT; i++) {
        memcpy(text + (size_t) i * size, inp, size);
    }
    double tok_best = 1e9;
    int32_t n = 0;
    for (int i = 0; i < 3; i++) {
        const double t = now_ms();
        n = -vnpu_vocab_tokenize(vocab, text, REPEAT * size, NULL, 0, false, false);
        const double dt = now_ms() - t;
        tok_best = dt < tok_best ? dt : tok_best;
    }
    const double mb_s = (double) (REPEAT * size) / 1e3 / tok_best;
    printf("llama-bpe: vnpu_vocab_load %.1f ms the first time, %.1f ms (best of 3); its .inp %d times over (%zu bytes) "
           "tokenizes to %d tokens in %.1f ms (%.1f MB/s)\n",
           first, best, REPEAT, REPEAT * size, n, tok_best, mb_s);
    assert_true(first < 1000.0 && best < 500.0);
    assert_true(mb_s > 1.0);
    free(text);
    free(inp);
    vnpu_vocab_free(vocab);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vocab_files),
        cmocka_unit_test(test_validate),
        cmocka_unit_test(test_llama3_speed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
