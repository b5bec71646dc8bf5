/*
 * The SPM tokenizer on the shared models' real vocabularies (Llama-2's 32000 tokens, stories260K's 512)
 * against llama.cpp: every case of llama.cpp's tokenizer test vectors, handwritten and seeded random texts
 * through the oracle (llama_ref, ids and pieces), the load time of the 32k vocabulary, and round trips
 * text -> tokens -> pieces.
 */
#include "test-common.h"

#include "gguf.h"
#include "vocab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const struct vocab_model {
    const char *model;
    const char *expected; /* llama.cpp's ids for reference/tokenizer-tests.inp */
} vocab_models[] = {
    {"llama-2-tiny-random.gguf", "reference/tokenizer-tests.llama2-32k.out"},
    {"stories260K.gguf", "reference/tokenizer-tests.stories260K.out"},
};

#define N_MODELS (sizeof(vocab_models) / sizeof(vocab_models[0]))

static struct vnpu_vocab *vocab_of(const char *model) {
    struct gguf_file *f = NULL;
    assert_int_equal(gguf_open(test_model_path(model), &f), VNPU_STATUS_OK);
    struct vnpu_vocab *vocab = NULL;
    assert_int_equal(vnpu_vocab_load(f, &vocab), VNPU_STATUS_OK);
    gguf_close(f);
    return vocab;
}

/* A growing array of token ids. */
struct ids {
    vnpu_token *v;
    int32_t n;
};

static struct ids tokenize(const struct vnpu_vocab *vocab, const char *text, size_t len, bool add_special,
                           bool parse_special) {
    int32_t n = vnpu_vocab_tokenize(vocab, text, len, NULL, 0, add_special, parse_special);
    assert_true(n <= 0 && n != INT32_MIN);
    struct ids ids = {.v = malloc(((size_t) -n + 1) * sizeof(vnpu_token)), .n = -n};
    assert_non_null(ids.v);
    assert_int_equal(vnpu_vocab_tokenize(vocab, text, len, ids.v, ids.n, add_special, parse_special), ids.n);
    return ids;
}

/* Ids from a list of integers separated by spaces or commas. */
static struct ids parse_ids(const char *s, const char *end) {
    struct ids ids = {.v = malloc(((size_t) (end - s) / 2 + 1) * sizeof(vnpu_token)), .n = 0};
    assert_non_null(ids.v);
    while (s < end) {
        if (*s != '-' && (*s < '0' || *s > '9')) {
            s++; /* separators; strtol itself would skip a newline and read the next line */
            continue;
        }
        char *next;
        ids.v[ids.n++] = (vnpu_token) strtol(s, &next, 10);
        s = next;
    }
    return ids;
}

static bool ids_equal(struct ids a, struct ids b) {
    return a.n == b.n && memcmp(a.v, b.v, (size_t) a.n * sizeof(vnpu_token)) == 0;
}

static void ids_print(char *buf, size_t size, struct ids ids) {
    buf[0] = '\0';
    for (int32_t i = 0; i < ids.n && strlen(buf) + 16 < size; i++) {
        snprintf(buf + strlen(buf), size - strlen(buf), " %d", ids.v[i]);
    }
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

/* The pieces of ids (special = false) concatenated: what llama.cpp's llama_ref prints as prompt_text. */
static char *pieces_of(const struct vnpu_vocab *vocab, struct ids ids, size_t *len) {
    size_t cap = 64, n = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    for (int32_t i = 0; i < ids.n; i++) {
        int32_t k = vnpu_vocab_token_to_piece(vocab, ids.v[i], text + n, (int32_t) (cap - n), false);
        if (k < 0) {
            cap = 2 * (cap + (size_t) -k);
            text = realloc(text, cap);
            assert_non_null(text);
            k = vnpu_vocab_token_to_piece(vocab, ids.v[i], text + n, (int32_t) (cap - n), false);
        }
        assert_true(k >= 0);
        n += (size_t) k;
    }
    *len = n;
    return text;
}

/* ---- llama.cpp's test vectors ---- */

#define CASE_SEPARATOR "\n__ggml_vocab_test__\n"

static void test_reference_cases(void **state) {
    (void) state;
    size_t inp_size;
    char *inp = test_read_file(test_model_path("reference/tokenizer-tests.inp"), &inp_size);
    assert_non_null(inp);
    for (size_t m = 0; m < N_MODELS; m++) {
        struct vnpu_vocab *vocab = vocab_of(vocab_models[m].model);
        char *out = test_read_file(test_model_path(vocab_models[m].expected), NULL);
        assert_non_null(out);
        int n_cases = 0, n_pass = 0;
        char first_mismatch[4096] = "";
        const char *line = out;
        /* cases are separated by CASE_SEPARATOR, which also ends the file (test-tokenizer-0.cpp) */
        for (const char *c = inp; c < inp + inp_size; n_cases++) {
            const char *sep = strstr(c, CASE_SEPARATOR);
            const char *c_end = sep ? sep : inp + inp_size;
            const char *line_end = strchr(line, '\n');
            assert_non_null(line_end);
            struct ids want = parse_ids(line, line_end);
            struct ids got = tokenize(vocab, c, (size_t) (c_end - c), false, false);
            if (ids_equal(got, want)) {
                n_pass++;
            } else if (!first_mismatch[0]) {
                char text[1024], g[1024], w[1024];
                text_print(text, sizeof(text), c, (size_t) (c_end - c));
                ids_print(g, sizeof(g), got);
                ids_print(w, sizeof(w), want);
                snprintf(first_mismatch, sizeof(first_mismatch), "case %d \"%s\": got [%s ], llama.cpp [%s ]", n_cases,
                         text, g, w);
            }
            free(got.v);
            free(want.v);
            line = line_end + 1;
            c = sep ? sep + strlen(CASE_SEPARATOR) : inp + inp_size;
        }
        printf("%s: %d/%d cases equal llama.cpp's ids\n", vocab_models[m].model, n_pass, n_cases);
        assert_int_equal(*line, '\0'); /* one expected line per case */
        if (n_pass != n_cases) {
            fail_msg("%s: %s", vocab_models[m].model, first_mismatch);
        }
        assert_int_equal(n_cases, 46);
        free(out);
        vnpu_vocab_free(vocab);
    }
    free(inp);
}

/* ---- the oracle on handwritten and random texts ---- */

/* Texts around the rules: special tokens next to text and spaces, whitespace runs, byte fallback, broken
 * UTF-8, the escape character itself, and text that spells a byte token. */
static const char *const oracle_texts[] = {
    "Hello</s>world <s> x",
    "<s><s>",
    " <s>",
    "<s> ",
    "a<unk>b",
    "</s>\n\n<s>",
    "<<s>>",
    "</s",
    "   spaces   before and after   ",
    "\t\ttabs\n\nnewlines\r\n",
    "caf\xc3\xa9 na\xc3\xafve \xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e \xf0\x9f\xa6\x99\xf0\x9f\x9a\x80",
    "broken \xff\xfe utf-8 \xc3 \xe2\x82 end\xf0",
    "\xe2\x96\x81"
    "already\xe2\x96\x81"
    "escaped",
    "<0x41> is not A",
};

/* Pieces random texts are made of. */
static const char *const random_pieces[] = {
    "<s>",
    "</s>",
    "<unk>",
    " ",
    "  ",
    "\n",
    "\t",
    "a",
    "the",
    "Hello",
    "ing",
    "'s",
    "123",
    ".",
    "<",
    ">",
    "s",
    "\xc3\xa9",
    "\xe6\x97\xa5\xe6\x9c\xac",
    "\xf0\x9f\xa6\x99",
    "\xe2\x96\x81",
    "\xff",
    "\xc3",
};

#define N_RANDOM_TEXTS 16

/* The JSON string llama_ref prints for text (or_json_str in the oracle), malloc'd. */
static char *json_string(const char *text, size_t len) {
    const size_t size = 6 * len + 3; /* \u00XX is the longest escape */
    char *buf = malloc(size);
    assert_non_null(buf);
    size_t o = 0;
    buf[o++] = '"';
    for (size_t i = 0; i < len; i++) {
        const unsigned char c = (unsigned char) text[i];
        switch (c) {
            case '"': o += (size_t) snprintf(buf + o, size - o, "\\\""); break;
            case '\\': o += (size_t) snprintf(buf + o, size - o, "\\\\"); break;
            case '\n': o += (size_t) snprintf(buf + o, size - o, "\\n"); break;
            case '\r': o += (size_t) snprintf(buf + o, size - o, "\\r"); break;
            case '\t': o += (size_t) snprintf(buf + o, size - o, "\\t"); break;
            default:
                o += (size_t) (c < 0x20 ? snprintf(buf + o, size - o, "\\u%04x", c)
                                        : snprintf(buf + o, size - o, "%c", c));
        }
    }
    snprintf(buf + o, size - o, "\"");
    return buf;
}

/* The value of "key: value" in llama_ref's output, up to the end of its line. */
static const char *oracle_field(const char *out, const char *key, const char **end) {
    char line_start[64];
    snprintf(line_start, sizeof(line_start), "\n%s", key);
    const char *v = strstr(out, line_start);
    if (!v) {
        fail_msg("llama_ref printed no %s in:\n%s", key, out);
    }
    v += strlen(line_start);
    *end = strchr(v, '\n');
    assert_non_null(*end);
    return v;
}

/* Tokenize text with vnpu and with llama.cpp (add_special, parse_special as given) and compare ids and the
 * concatenated pieces; returns false (after printing both) on a difference. */
static bool oracle_compare(const char *bin, const char *model, const struct vnpu_vocab *vocab, const char *text,
                           bool parse_special) {
    char path[4200];
    snprintf(path, sizeof(path), "%s/oracle-prompt.txt", test_tmpdir());
    test_write_file(path, text, strlen(text));
    char *out = NULL, *err = NULL;
    const int rc = test_run(&out, &err, "'%s/llama_ref' -m '%s' -f '%s' -n 0 %s", bin, test_model_path(model), path,
                            parse_special ? "" : "--no-parse-special");
    if (rc != 0) {
        fail_msg("llama_ref failed (%d): %s", rc, err);
    }
    const char *end;
    const char *v = oracle_field(out, "prompt_ids: ", &end);
    struct ids want = parse_ids(v, end);
    const char *want_text = oracle_field(out, "prompt_text: ", &end);
    const size_t want_len = (size_t) (end - want_text);

    struct ids got = tokenize(vocab, text, strlen(text), true, parse_special);
    size_t pieces_len;
    char *pieces = pieces_of(vocab, got, &pieces_len);
    char *got_text = json_string(pieces, pieces_len);
    const bool same = ids_equal(got, want) && strlen(got_text) == want_len && !memcmp(got_text, want_text, want_len);
    if (!same) {
        char t[1024], g[2048], w[2048];
        text_print(t, sizeof(t), text, strlen(text));
        ids_print(g, sizeof(g), got);
        ids_print(w, sizeof(w), want);
        printf("%s, parse_special %d, \"%s\":\n  vnpu      [%s ] %s\n  llama.cpp [%s ] %.*s\n", model, parse_special, t,
               g, got_text, w, (int) want_len, want_text);
    }
    free(got_text);
    free(pieces);
    free(got.v);
    free(want.v);
    free(out);
    free(err);
    return same;
}

static void test_oracle_texts(void **state) {
    (void) state;
    const char *bin = test_oracle_bin();
    struct test_rng rng;
    test_rng_seed(&rng, "test-vocab random texts");
    char random_texts[N_RANDOM_TEXTS][256];
    for (int i = 0; i < N_RANDOM_TEXTS; i++) {
        random_texts[i][0] = '\0';
        const int n_pieces = 1 + (int) (test_rng_next(&rng) % 12);
        for (int k = 0; k < n_pieces; k++) {
            strcat(random_texts[i],
                   random_pieces[test_rng_next(&rng) % (sizeof(random_pieces) / sizeof(random_pieces[0]))]);
        }
    }
    /* and a long text: llama.cpp's test vectors as one input, separators included */
    char *whole = test_read_file(test_model_path("reference/tokenizer-tests.inp"), NULL);
    assert_non_null(whole);
    int n_diff = 0, n_runs = 0;
    for (size_t m = 0; m < N_MODELS; m++) {
        struct vnpu_vocab *vocab = vocab_of(vocab_models[m].model);
        for (int parse = 0; parse < 2; parse++, n_runs++) {
            n_diff += !oracle_compare(bin, vocab_models[m].model, vocab, whole, parse);
        }
        for (size_t i = 0; i < sizeof(oracle_texts) / sizeof(oracle_texts[0]); i++) {
            for (int parse = 0; parse < 2; parse++, n_runs++) {
                n_diff += !oracle_compare(bin, vocab_models[m].model, vocab, oracle_texts[i], parse);
            }
        }
        for (int i = 0; i < N_RANDOM_TEXTS; i++, n_runs++) {
            n_diff += !oracle_compare(bin, vocab_models[m].model, vocab, random_texts[i], true);
        }
        vnpu_vocab_free(vocab);
    }
    free(whole);
    printf("oracle: %d/%d texts give llama.cpp's ids and pieces\n", n_runs - n_diff, n_runs);
    assert_int_equal(n_diff, 0);
}

/* ---- special tokens, BOS/EOS, load time, round trips ---- */

/* Ids printed by llama.cpp (llama_ref -n 0, with and without --no-parse-special) for the Llama-2 vocabulary. */
static const struct special_case {
    const char *text;
    bool add_special;
    bool parse_special;
    int32_t n;
    vnpu_token ids[8];
} special_cases[] = {
    {"<s>", false, true, 1, {1}},
    {"<s>", true, true, 2, {1, 1}},
    {"</s>", false, true, 1, {2}},
    {"<s>", false, false, 3, {529, 29879, 29958}},
    {"</s>", true, false, 4, {1, 1533, 29879, 29958}},
    {"a<s>b", true, true, 4, {1, 263, 1, 289}},
    {"", true, true, 1, {1}},
    {"", false, true, 0, {0}},
};

static void test_special_tokens(void **state) {
    (void) state;
    struct vnpu_vocab *vocab = vocab_of("llama-2-tiny-random.gguf");
    for (size_t i = 0; i < sizeof(special_cases) / sizeof(special_cases[0]); i++) {
        const struct special_case *c = &special_cases[i];
        struct ids got = tokenize(vocab, c->text, strlen(c->text), c->add_special, c->parse_special);
        if (!ids_equal(got, (struct ids){.v = (vnpu_token *) c->ids, .n = c->n})) {
            char g[256];
            ids_print(g, sizeof(g), got);
            fail_msg("\"%s\" add_special %d parse_special %d: got [%s ]", c->text, c->add_special, c->parse_special, g);
        }
        free(got.v);
    }
    assert_int_equal(vnpu_vocab_n_tokens(vocab), 32000);
    assert_int_equal(vnpu_vocab_bos(vocab), 1);
    assert_int_equal(vnpu_vocab_eos(vocab), 2);
    assert_true(vnpu_vocab_add_bos(vocab));
    assert_true(vnpu_vocab_is_eog(vocab, 2));
    assert_false(vnpu_vocab_is_eog(vocab, 1));
    assert_false(vnpu_vocab_is_eog(vocab, 0));
    char piece[8];
    assert_int_equal(vnpu_vocab_token_to_piece(vocab, 2, piece, sizeof(piece), false), 0);
    assert_int_equal(vnpu_vocab_token_to_piece(vocab, 2, piece, sizeof(piece), true), 4);
    assert_memory_equal(piece, "</s>", 4);
    assert_int_equal(vnpu_vocab_token_to_piece(vocab, 13, piece, sizeof(piece), false), 1); /* <0x0A> */
    assert_int_equal(piece[0], '\n');
    vnpu_vocab_free(vocab);
}

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec * 1e3 + (double) ts.tv_nsec * 1e-6;
}

/* The 32000-token vocabulary loads well under 100 ms (best of 5, to see past a busy machine). */
static void test_load_time(void **state) {
    (void) state;
    struct gguf_file *f = NULL;
    const double t0 = now_ms();
    assert_int_equal(gguf_open(test_model_path("llama-2-tiny-random.gguf"), &f), VNPU_STATUS_OK);
    const double t_open = now_ms() - t0;
    double best = 1e9;
    for (int i = 0; i < 5; i++) {
        struct vnpu_vocab *vocab = NULL;
        const double t = now_ms();
        assert_int_equal(vnpu_vocab_load(f, &vocab), VNPU_STATUS_OK);
        const double dt = now_ms() - t;
        best = dt < best ? dt : best;
        vnpu_vocab_free(vocab);
    }
    gguf_close(f);
    printf("32000-token vocabulary: gguf_open %.2f ms, vnpu_vocab_load %.2f ms (best of 5)\n", t_open, best);
    assert_true(best < 100.0);
}

/* text -> tokens -> pieces gives the text back after the space SentencePiece prefixes, byte for byte, BOS
 * or not (its piece is empty). */
static void test_round_trip(void **state) {
    (void) state;
    static const char *const texts[] = {
        "Hello world",
        "  leading and trailing  ",
        "tabs\tand\nnew\r\nlines\n",
        "\xc3\x9cn\xc3\xaf"
        "c\xc3\xb6"
        "d\xc3\xa9 \xc3\xb1 \xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e \xe4\xb8\xad\xe6\x96\x87",
        "emoji \xf0\x9f\xa6\x99\xf0\x9f\x9a\x80\xf0\x9f\x91\x8d\xf0\x9f\x8f\xbd \xe2\x9c\x85",
        "control bytes \x01\x02\x1b[0m\x7f",
        /* broken UTF-8 comes back too, unless a lead byte precedes a space: it then swallows the first byte
         * of the escaped U+2581, whose bytes come back as bytes (llama.cpp's ids, see test_oracle_texts) */
        "invalid \xff\xfe\xc3utf-8 \xe2\x82",
        "spelled <s> and </s> and <unk> and <0x41>",
    };
    for (size_t m = 0; m < N_MODELS; m++) {
        struct vnpu_vocab *vocab = vocab_of(vocab_models[m].model);
        for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
            for (int add_special = 0; add_special < 2; add_special++) {
                const size_t len = strlen(texts[i]);
                struct ids ids = tokenize(vocab, texts[i], len, add_special, false);
                assert_true(!add_special || ids.v[0] == 1);
                size_t n;
                char *back = pieces_of(vocab, ids, &n);
                if (n != len + 1 || back[0] != ' ' || memcmp(back + 1, texts[i], len) != 0) {
                    char t[512], b[512];
                    text_print(t, sizeof(t), texts[i], len);
                    text_print(b, sizeof(b), back, n);
                    fail_msg("%s: \"%s\" came back as \"%s\"", vocab_models[m].model, t, b);
                }
                free(back);
                free(ids.v);
            }
        }
        vnpu_vocab_free(vocab);
    }
}

int main(void) {
    /* texts that start with <s> get llama.cpp's "2 BOS" warning, expected here: show errors only */
    vnpu_log_set(NULL, NULL, VNPU_LOG_ERROR);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reference_cases), cmocka_unit_test(test_special_tokens), cmocka_unit_test(test_load_time),
        cmocka_unit_test(test_round_trip),      cmocka_unit_test(test_oracle_texts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
