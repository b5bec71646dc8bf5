/*
 * The vocabulary on small synthetic GGUF files written with the GGUF writer: every malformed vocabulary (SPM and
 * BPE) is rejected with one message naming the key and the limit, and the tokenizers' rules (merge order and its
 * tie rule, byte fallback, special tokens, BOS/EOS, space prefix, token_to_piece; BPE's merge ranks, byte-level
 * spelling, dropped bytes, ignore_merges, pre-tokenizer defaults) on vocabularies small enough to work each expected
 * result out by hand.
 */
#include "test-common.h"

#include "gguf.h"
#include "log.h"
#include "vocab.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the synthetic vocabulary ---- */

#define SP "\xe2\x96\x81" /* U+2581 */

static const struct synth_token {
    const char *text;
    float score;
    int32_t type;
} synth_tokens[] = {
    /*  0 */ {"<unk>", 0.0f, VNPU_TOKEN_TYPE_UNKNOWN},
    /*  1 */ {"<s>", 0.0f, VNPU_TOKEN_TYPE_CONTROL},
    /*  2 */ {"</s>", 0.0f, VNPU_TOKEN_TYPE_CONTROL},
    /*  3 */ {"<0x0A>", 0.0f, VNPU_TOKEN_TYPE_BYTE},
    /*  4 */ {"<0xC3>", 0.0f, VNPU_TOKEN_TYPE_BYTE},
    /*  5 */ {"<0xa9>", 0.0f, VNPU_TOKEN_TYPE_BYTE}, /* lower-case hex is a valid spelling (strtol) */
    /*  6 */ {SP, -1.0f, VNPU_TOKEN_TYPE_NORMAL},
    /*  7 */ {"a", -2.0f, VNPU_TOKEN_TYPE_NORMAL},
    /*  8 */ {"b", -3.0f, VNPU_TOKEN_TYPE_NORMAL},
    /*  9 */ {"c", -4.0f, VNPU_TOKEN_TYPE_NORMAL},
    /* 10 */ {"ab", -5.0f, VNPU_TOKEN_TYPE_NORMAL},
    /* 11 */ {"bc", -5.0f, VNPU_TOKEN_TYPE_NORMAL}, /* ties with "ab": the leftmost pair merges first */
    /* 12 */ {SP "a", -6.0f, VNPU_TOKEN_TYPE_NORMAL},
    /* 13 */ {"<tool>", 0.0f, VNPU_TOKEN_TYPE_USER_DEFINED},
    /* 14 */ {"<|im_end|>", -7.0f, VNPU_TOKEN_TYPE_NORMAL}, /* an end-of-turn text: becomes CONTROL */
    /* 15 */ {"x", -8.0f, VNPU_TOKEN_TYPE_NORMAL},
    /* 16 */ {"zz", -9.0f, VNPU_TOKEN_TYPE_UNUSED},
    /* 17 */ {"yy", -9.0f, VNPU_TOKEN_TYPE_UNDEFINED},
};

#define N_SYNTH ((int32_t) (sizeof(synth_tokens) / sizeof(synth_tokens[0])))

/* Messages logged while a test runs: how many errors, and the text of the last one. */
static struct {
    int n_errors;
    char last[1024];
} captured;

static void capture_log(enum vnpu_log_level level, const char *text, void *user) {
    (void) user;
    if (level == VNPU_LOG_ERROR) {
        captured.n_errors++;
        snprintf(captured.last, sizeof(captured.last), "%s", text);
    }
}

static int setup_capture(void **state) {
    (void) state;
    captured.n_errors = 0;
    captured.last[0] = '\0';
    vnpu_log_set(capture_log, NULL, VNPU_LOG_ERROR);
    return 0;
}

static int teardown_capture(void **state) {
    (void) state;
    vnpu_log_set(NULL, NULL, VNPU_LOG_WARN);
    return 0;
}

static void set_tokens(struct gguf_writer *w, const struct synth_token *tokens, int32_t n) {
    struct gguf_str texts[N_SYNTH];
    float scores[N_SYNTH];
    int32_t types[N_SYNTH];
    assert_true(n <= N_SYNTH);
    for (int32_t i = 0; i < n; i++) {
        texts[i] = (struct gguf_str){.data = tokens[i].text, .len = strlen(tokens[i].text)};
        scores[i] = tokens[i].score;
        types[i] = tokens[i].type;
    }
    gguf_writer_set_arr_str(w, "tokenizer.ggml.tokens", texts, (uint64_t) n);
    gguf_writer_set_arr_data(w, "tokenizer.ggml.scores", GGUF_TYPE_FLOAT32, scores, (uint64_t) n);
    gguf_writer_set_arr_data(w, "tokenizer.ggml.token_type", GGUF_TYPE_INT32, types, (uint64_t) n);
}

/* A writer holding the synthetic vocabulary as llama.cpp's converters write one. */
static struct gguf_writer *synth_writer(void) {
    struct gguf_writer *w = gguf_writer_new();
    assert_non_null(w);
    gguf_writer_set_str(w, "general.architecture", "llama");
    gguf_writer_set_str(w, "tokenizer.ggml.model", "llama");
    set_tokens(w, synth_tokens, N_SYNTH);
    gguf_writer_set_u32(w, "tokenizer.ggml.bos_token_id", 1);
    gguf_writer_set_u32(w, "tokenizer.ggml.eos_token_id", 2);
    gguf_writer_set_u32(w, "tokenizer.ggml.unknown_token_id", 0);
    gguf_writer_set_u32(w, "tokenizer.ggml.padding_token_id", 0xFFFFFFFF);
    return w;
}

/* Write w to a fresh file, free it, open the file and load its vocabulary; returns the load status. */
static enum vnpu_status synth_load(struct gguf_writer *w, const char *name, struct vnpu_vocab **vocab) {
    char path[4200];
    snprintf(path, sizeof(path), "%s/%s.gguf", test_tmpdir(), name);
    assert_int_equal(gguf_writer_write(w, path), VNPU_STATUS_OK);
    gguf_writer_free(w);
    struct gguf_file *f = NULL;
    assert_int_equal(gguf_open(path, &f), VNPU_STATUS_OK);
    const enum vnpu_status st = vnpu_vocab_load(f, vocab);
    gguf_close(f); /* the vocabulary keeps its own copy */
    return st;
}

static struct vnpu_vocab *synth_vocab(struct gguf_writer *w, const char *name) {
    struct vnpu_vocab *vocab = NULL;
    assert_int_equal(synth_load(w, name, &vocab), VNPU_STATUS_OK);
    assert_int_equal(captured.n_errors, 0);
    return vocab;
}

/* ---- malformed vocabularies: one row each ---- */

static void tokens_with(struct gguf_writer *w, int32_t i, const char *text, int32_t type) {
    struct synth_token tokens[N_SYNTH];
    memcpy(tokens, synth_tokens, sizeof(tokens));
    tokens[i].text = text;
    tokens[i].type = type;
    set_tokens(w, tokens, N_SYNTH);
}

static void mut_model_bert(struct gguf_writer *w) {
    gguf_writer_set_str(w, "tokenizer.ggml.model", "bert");
}
static void mut_model_u32(struct gguf_writer *w) {
    gguf_writer_set_u32(w, "tokenizer.ggml.model", 1);
}
static void mut_tokens_i32(struct gguf_writer *w) {
    const int32_t ids[3] = {1, 2, 3};
    gguf_writer_set_arr_data(w, "tokenizer.ggml.tokens", GGUF_TYPE_INT32, ids, 3);
}
static void mut_tokens_empty(struct gguf_writer *w) {
    static const struct gguf_str none[1] = {{"", 0}};
    gguf_writer_set_arr_str(w, "tokenizer.ggml.tokens", none, 0);
}
static void mut_tokens_not_array(struct gguf_writer *w) {
    gguf_writer_set_str(w, "tokenizer.ggml.tokens", "<unk>");
}
static void mut_scores_short(struct gguf_writer *w) {
    const float scores[N_SYNTH] = {0};
    gguf_writer_set_arr_data(w, "tokenizer.ggml.scores", GGUF_TYPE_FLOAT32, scores, N_SYNTH - 1);
}
static void mut_scores_f64(struct gguf_writer *w) {
    const double scores[N_SYNTH] = {0};
    gguf_writer_set_arr_data(w, "tokenizer.ggml.scores", GGUF_TYPE_FLOAT64, scores, N_SYNTH);
}
static void mut_scores_nan(struct gguf_writer *w) {
    float scores[N_SYNTH] = {0};
    scores[7] = NAN;
    gguf_writer_set_arr_data(w, "tokenizer.ggml.scores", GGUF_TYPE_FLOAT32, scores, N_SYNTH);
}
static void mut_types_long(struct gguf_writer *w) {
    int32_t types[N_SYNTH + 1];
    for (int32_t i = 0; i <= N_SYNTH; i++) {
        types[i] = VNPU_TOKEN_TYPE_NORMAL;
    }
    gguf_writer_set_arr_data(w, "tokenizer.ggml.token_type", GGUF_TYPE_INT32, types, N_SYNTH + 1);
}
static void mut_types_u32(struct gguf_writer *w) {
    const uint32_t types[N_SYNTH] = {0};
    gguf_writer_set_arr_data(w, "tokenizer.ggml.token_type", GGUF_TYPE_UINT32, types, N_SYNTH);
}
static void mut_type_9(struct gguf_writer *w) {
    tokens_with(w, 15, "x", 9);
}
static void mut_byte_zz(struct gguf_writer *w) {
    tokens_with(w, 3, "<0xZZ>", VNPU_TOKEN_TYPE_BYTE);
}
static void mut_byte_short(struct gguf_writer *w) {
    tokens_with(w, 3, "<0x4>", VNPU_TOKEN_TYPE_BYTE);
}
static void mut_byte_plain(struct gguf_writer *w) {
    tokens_with(w, 15, "x", VNPU_TOKEN_TYPE_BYTE);
}
static void mut_duplicate(struct gguf_writer *w) {
    tokens_with(w, 15, "ab", VNPU_TOKEN_TYPE_NORMAL);
}
static void mut_bos_range(struct gguf_writer *w) {
    gguf_writer_set_u32(w, "tokenizer.ggml.bos_token_id", N_SYNTH);
}
static void mut_eot_negative(struct gguf_writer *w) {
    gguf_writer_set_i32(w, "tokenizer.ggml.eot_token_id", -2);
}
static void mut_eos_str(struct gguf_writer *w) {
    gguf_writer_set_str(w, "tokenizer.ggml.eos_token_id", "2");
}
static void mut_unk_f32(struct gguf_writer *w) {
    gguf_writer_set_f32(w, "tokenizer.ggml.unknown_token_id", 0.0f);
}
static void mut_add_bos_u8(struct gguf_writer *w) {
    gguf_writer_set_u8(w, "tokenizer.ggml.add_bos_token", 1);
}
static void mut_add_bos_no_bos(struct gguf_writer *w) {
    gguf_writer_set_u32(w, "tokenizer.ggml.bos_token_id", 0xFFFFFFFF);
}
static void mut_add_eos_no_eos(struct gguf_writer *w) {
    gguf_writer_set_bool(w, "tokenizer.ggml.add_eos_token", true);
    gguf_writer_set_u32(w, "tokenizer.ggml.eos_token_id", 0xFFFFFFFF);
}
static void mut_no_byte_fallback(struct gguf_writer *w) {
    gguf_writer_set_u32(w, "tokenizer.ggml.unknown_token_id", 0xFFFFFFFF);
}

static const struct malformed_case {
    const char *name;
    bool omit_model;  /* write no tokenizer.ggml.model */
    bool omit_tokens; /* write no tokenizer.ggml.tokens */
    void (*mutate)(struct gguf_writer *w);
    enum vnpu_status status;
    const char *message; /* a substring of the one error logged */
} malformed_cases[] = {
    {"no-model", .omit_model = true, .status = VNPU_STATUS_BAD_FILE, .message = "missing key tokenizer.ggml.model"},
    {"model-bert", .mutate = mut_model_bert, .status = VNPU_STATUS_UNSUPPORTED,
     .message = "tokenizer.ggml.model is 'bert'; vnpu supports 'llama' (SPM) and 'gpt2' (BPE)"},
    {"model-u32", .mutate = mut_model_u32, .status = VNPU_STATUS_BAD_FILE,
     .message = "model has type u32, expected str"},
    {"no-tokens", .omit_tokens = true, .status = VNPU_STATUS_BAD_FILE, .message = "missing key tokenizer.ggml.tokens"},
    {"tokens-i32", .mutate = mut_tokens_i32, .status = VNPU_STATUS_BAD_FILE,
     .message = "tokens is an array of i32, expected an array of str"},
    {"tokens-empty", .mutate = mut_tokens_empty, .status = VNPU_STATUS_BAD_FILE,
     .message = "tokens has 0 elements, expected 1..2147483647"},
    {"tokens-str", .mutate = mut_tokens_not_array, .status = VNPU_STATUS_BAD_FILE,
     .message = "tokens has type str, expected arr"},
    {"scores-short", .mutate = mut_scores_short, .status = VNPU_STATUS_BAD_FILE,
     .message = "scores has 17 elements, expected 18"},
    {"scores-f64", .mutate = mut_scores_f64, .status = VNPU_STATUS_BAD_FILE,
     .message = "scores is an array of f64, expected an array of f32"},
    {"scores-nan", .mutate = mut_scores_nan, .status = VNPU_STATUS_BAD_FILE, .message = "scores[7] is NaN"},
    {"types-long", .mutate = mut_types_long, .status = VNPU_STATUS_BAD_FILE,
     .message = "token_type has 19 elements, expected 18"},
    {"types-u32", .mutate = mut_types_u32, .status = VNPU_STATUS_BAD_FILE,
     .message = "token_type is an array of u32, expected an array of i32"},
    {"type-9", .mutate = mut_type_9, .status = VNPU_STATUS_BAD_FILE, .message = "token_type[15] = 9, expected 0..6"},
    {"byte-zz", .mutate = mut_byte_zz, .status = VNPU_STATUS_BAD_FILE,
     .message = "tokens[3] '<0xZZ>' has token_type BYTE but is not spelled <0xXX>"},
    {"byte-short", .mutate = mut_byte_short, .status = VNPU_STATUS_BAD_FILE,
     .message = "tokens[3] '<0x4>' has token_type BYTE"},
    {"byte-plain", .mutate = mut_byte_plain, .status = VNPU_STATUS_BAD_FILE,
     .message = "tokens[15] 'x' has token_type BYTE"},
    {"duplicate", .mutate = mut_duplicate, .status = VNPU_STATUS_BAD_FILE, .message = "token 15 'ab' repeats token 10"},
    {"bos-range", .mutate = mut_bos_range, .status = VNPU_STATUS_BAD_FILE,
     .message = "bos_token_id = 18, expected 0..17 or 0xFFFFFFFF (none)"},
    {"eot-negative", .mutate = mut_eot_negative, .status = VNPU_STATUS_BAD_FILE,
     .message = "eot_token_id = -2, expected 0..17"},
    {"eos-str", .mutate = mut_eos_str, .status = VNPU_STATUS_BAD_FILE,
     .message = "eos_token_id has type str, expected an integer"},
    {"unk-f32", .mutate = mut_unk_f32, .status = VNPU_STATUS_BAD_FILE,
     .message = "unknown_token_id has type f32, expected an integer"},
    {"add-bos-u8", .mutate = mut_add_bos_u8, .status = VNPU_STATUS_BAD_FILE,
     .message = "add_bos_token has type u8, expected bool"},
    {"add-bos-no-bos", .mutate = mut_add_bos_no_bos, .status = VNPU_STATUS_BAD_FILE,
     .message = "add_bos_token is true but tokenizer.ggml.bos_token_id names no token"},
    {"add-eos-no-eos", .mutate = mut_add_eos_no_eos, .status = VNPU_STATUS_BAD_FILE,
     .message = "add_eos_token is true but tokenizer.ggml.eos_token_id names no token"},
    {"no-byte-fallback", .mutate = mut_no_byte_fallback, .status = VNPU_STATUS_BAD_FILE,
     .message = "has no <0x00> token for byte fallback"},
};

static void test_malformed(void **state) {
    (void) state;
    for (size_t i = 0; i < sizeof(malformed_cases) / sizeof(malformed_cases[0]); i++) {
        const struct malformed_case *c = &malformed_cases[i];
        struct gguf_writer *w = gguf_writer_new();
        assert_non_null(w);
        if (!c->omit_model) {
            gguf_writer_set_str(w, "tokenizer.ggml.model", "llama");
        }
        if (!c->omit_tokens) {
            set_tokens(w, synth_tokens, N_SYNTH);
        }
        if (c->mutate) {
            c->mutate(w);
        }
        captured.n_errors = 0;
        captured.last[0] = '\0';
        struct vnpu_vocab *vocab = (struct vnpu_vocab *) 1; /* must come back NULL */
        const enum vnpu_status st = synth_load(w, c->name, &vocab);
        if (st != c->status || captured.n_errors != 1 || !strstr(captured.last, c->message)) {
            fail_msg("case %s: status %s, %d errors, last \"%s\"; expected %s and one error with \"%s\"", c->name,
                     vnpu_status_str(st), captured.n_errors, captured.last, vnpu_status_str(c->status), c->message);
        }
        assert_null(vocab);
    }
}

/* ---- tokenization rules ---- */

#define MAX_IDS 16

static const struct tokenize_case {
    const char *name;
    const char *text;
    bool add_special;
    bool parse_special;
    int32_t n;
    vnpu_token ids[MAX_IDS];
} tokenize_cases[] = {
    /* "▁abc": "ab" and "bc" tie at -5 and the leftmost pair wins; "▁a" (-6) is stale after that */
    {"tie-leftmost", "abc", false, false, 3, {6, 10, 9}},
    {"bos", "abc", true, false, 4, {1, 6, 10, 9}},
    {"empty", "", false, false, 0, {0}},
    {"empty-bos", "", true, false, 1, {1}},
    /* "é" is C3 A9: 0xC3 falls back to <0xC3>; <0xa9> is a valid BYTE token, but the fallback looks up
     * "<0xA9>" (upper case, as llama.cpp's byte_to_token), so 0xA9 becomes unk, as does 0xBC of "ü" */
    {"byte-fallback", "\xc3\xa9\n", false, false, 4, {6, 4, 0, 3}},
    {"unk-fallback", "\xc3\xbc", false, false, 3, {6, 4, 0}},
    /* broken UTF-8: a lead byte without its continuation is a symbol of its own, cut at the text's end */
    {"broken-utf8", "a\xc3", false, false, 2, {12, 4}},
    /* every space becomes U+2581; "▁▁a" merges only the last pair */
    {"spaces", " a", false, false, 2, {6, 12}},
    /* control tokens are text without parse_special ('<', 's', '>' are not in this vocabulary: unk) */
    {"control-as-text", "<s>", false, false, 4, {6, 0, 0, 0}},
    {"control-parsed", "<s>a", false, true, 2, {1, 12}},
    /* after a special token the next run of text gets its own space prefix */
    {"prefix-after-special", "a</s>a", false, true, 3, {12, 2, 12}},
    {"unk-parsed", "<unk>", false, true, 1, {0}},
    /* user-defined tokens are cut out even without parse_special */
    {"user-defined", "a<tool>b", false, false, 4, {12, 13, 6, 8}},
    /* "<|im_end|>" is NORMAL in the file but an end-of-turn text: CONTROL, so parsed only when asked */
    {"eot-text-parsed", "<|im_end|>", false, true, 1, {14}},
    {"eot-text-plain", "x<|im_end|>", false, false, 12, {6, 15, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
};

static void check_tokenize(const struct vnpu_vocab *vocab, const struct tokenize_case *c) {
    vnpu_token ids[MAX_IDS + 1];
    const int32_t n =
        vnpu_vocab_tokenize(vocab, c->text, strlen(c->text), ids, MAX_IDS, c->add_special, c->parse_special);
    bool same = n == c->n;
    for (int32_t i = 0; same && i < n; i++) {
        same = ids[i] == c->ids[i];
    }
    if (!same) {
        char got[256] = "", want[256] = "";
        for (int32_t i = 0; i < n && i < MAX_IDS; i++) {
            snprintf(got + strlen(got), sizeof(got) - strlen(got), " %d", ids[i]);
        }
        for (int32_t i = 0; i < c->n; i++) {
            snprintf(want + strlen(want), sizeof(want) - strlen(want), " %d", c->ids[i]);
        }
        fail_msg("case %s: got %d tokens [%s ], expected [%s ]", c->name, n, got, want);
    }
}

static void test_tokenize_rules(void **state) {
    (void) state;
    struct vnpu_vocab *vocab = synth_vocab(synth_writer(), "rules");
    for (size_t i = 0; i < sizeof(tokenize_cases) / sizeof(tokenize_cases[0]); i++) {
        check_tokenize(vocab, &tokenize_cases[i]);
    }
    vnpu_vocab_free(vocab);
}

/* A higher score decides before position: with "bc" above "ab", "abc" becomes a + bc, and "▁a" merges later. */
static void test_score_order(void **state) {
    (void) state;
    struct synth_token tokens[N_SYNTH];
    memcpy(tokens, synth_tokens, sizeof(tokens));
    tokens[11].score = -4.5f;
    struct gguf_writer *w = synth_writer();
    set_tokens(w, tokens, N_SYNTH);
    gguf_writer_set_bool(w, "tokenizer.ggml.add_space_prefix", false);
    struct vnpu_vocab *vocab = synth_vocab(w, "score-order");
    const struct tokenize_case cases[] = {
        {"no-prefix", "abc", false, false, 2, {7, 11}},
        {"inner-space", " abc", false, false, 2, {12, 11}},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        check_tokenize(vocab, &cases[i]);
    }
    vnpu_vocab_free(vocab);
}

/* add_eos_token appends EOS; too small an output buffer gets the first tokens and the count needed. */
static void test_eos_and_short_buffer(void **state) {
    (void) state;
    struct gguf_writer *w = synth_writer();
    gguf_writer_set_bool(w, "tokenizer.ggml.add_eos_token", true);
    struct vnpu_vocab *vocab = synth_vocab(w, "eos");
    check_tokenize(vocab, &(struct tokenize_case){"eos", "a", true, false, 3, {1, 12, 2}});
    vnpu_token ids[4] = {-7, -7, -7, -7};
    assert_int_equal(vnpu_vocab_tokenize(vocab, "abc", 3, ids, 2, true, false), -5);
    assert_int_equal(ids[0], 1);
    assert_int_equal(ids[1], 6);
    assert_int_equal(ids[2], -7);
    assert_int_equal(vnpu_vocab_tokenize(vocab, "abc", 3, NULL, 0, true, false), -5);
    vnpu_vocab_free(vocab);
}

/* llama.cpp's Phi-3 rule: with "phi-3" in general.name, special tokens but <unk>/<s> eat following spaces. */
static void test_phi3_rstrip(void **state) {
    (void) state;
    struct gguf_writer *w = synth_writer();
    gguf_writer_set_str(w, "general.name", "My PHI-3 mini");
    struct vnpu_vocab *vocab = synth_vocab(w, "phi3");
    check_tokenize(vocab, &(struct tokenize_case){"rstrip", "</s>  \na", false, true, 2, {2, 12}});
    check_tokenize(vocab, &(struct tokenize_case){"keep", "<s> a", false, true, 3, {1, 6, 12}});
    vnpu_vocab_free(vocab);

    vocab = synth_vocab(synth_writer(), "not-phi3");
    check_tokenize(vocab, &(struct tokenize_case){"no-rstrip", "</s> a", false, true, 3, {2, 6, 12}});
    vnpu_vocab_free(vocab);
}

static void test_special_ids(void **state) {
    (void) state;
    struct vnpu_vocab *vocab = synth_vocab(synth_writer(), "special");
    assert_int_equal(vnpu_vocab_n_tokens(vocab), N_SYNTH);
    assert_int_equal(vnpu_vocab_bos(vocab), 1);
    assert_int_equal(vnpu_vocab_eos(vocab), 2);
    assert_true(vnpu_vocab_add_bos(vocab));
    for (vnpu_token t = 0; t < N_SYNTH; t++) {
        assert_int_equal(vnpu_vocab_is_eog(vocab, t), t == 2 || t == 14);
    }
    vnpu_vocab_free(vocab);

    /* none of the optional keys: llama.cpp's defaults, scores 0 and every token NORMAL */
    struct gguf_writer *w = gguf_writer_new();
    assert_non_null(w);
    gguf_writer_set_str(w, "tokenizer.ggml.model", "llama");
    const struct gguf_str texts[] = {{"<unk>", 5}, {"<s>", 3}, {"</s>", 4}, {"", 0}, {SP "a", 4}};
    gguf_writer_set_arr_str(w, "tokenizer.ggml.tokens", texts, 5);
    gguf_writer_set_u32(w, "tokenizer.ggml.eos_token_id", 0xFFFFFFFF);
    vocab = synth_vocab(w, "defaults");
    assert_int_equal(vnpu_vocab_bos(vocab), 1);
    assert_int_equal(vnpu_vocab_eos(vocab), -1);
    assert_true(vnpu_vocab_is_eog(vocab, 2)); /* "</s>" ends generation by its text (llama.cpp's list), no key needed */
    /* "<s>" is NORMAL here, so plain text, and nothing but "▁a" merges: every other byte becomes unk */
    check_tokenize(vocab, &(struct tokenize_case){"normal-s", "<s>a", true, true, 8, {1, 0, 0, 0, 0, 0, 0, 0}});
    check_tokenize(vocab, &(struct tokenize_case){"merge", "a", true, true, 2, {1, 4}});
    char piece[16];
    assert_int_equal(vnpu_vocab_token_to_piece(vocab, 3, piece, sizeof(piece), false), 9);
    assert_memory_equal(piece, "[EMPTY_3]", 9);
    vnpu_vocab_free(vocab);
}

/* ---- BPE ---- */

#define G "\xc4\xa0" /* U+0120: GPT-2's byte-to-unicode spelling of ' ' */
#define C "\xc4\x8a" /* U+010A: of '\n' */

static const struct synth_token bpe_tokens[] = {
    /*  0 */ {"a", 0.0f, VNPU_TOKEN_TYPE_NORMAL},
    /*  1 */ {"b", 0.0f, VNPU_TOKEN_TYPE_NORMAL},
    /*  2 */ {"c", 0.0f, VNPU_TOKEN_TYPE_NORMAL},
    /*  3 */ {"ab", 0.0f, VNPU_TOKEN_TYPE_NORMAL},
    /*  4 */ {"bc", 0.0f, VNPU_TOKEN_TYPE_NORMAL},
    /*  5 */ {"abc", 0.0f, VNPU_TOKEN_TYPE_NORMAL},
    /*  6 */ {G, 0.0f, VNPU_TOKEN_TYPE_NORMAL},
    /*  7 */ {G "a", 0.0f, VNPU_TOKEN_TYPE_NORMAL},
    /*  8 */ {"aa", 0.0f, VNPU_TOKEN_TYPE_NORMAL},
    /*  9 */ {C, 0.0f, VNPU_TOKEN_TYPE_NORMAL},
    /* 10 */ {"<|endoftext|>", 0.0f, VNPU_TOKEN_TYPE_NORMAL}, /* an end-of-generation text: becomes CONTROL */
    /* 11 */ {"x", 0.0f, VNPU_TOKEN_TYPE_NORMAL},             /* llama.cpp's default BOS and EOS for BPE */
    /* 12 */ {"<tool>", 0.0f, VNPU_TOKEN_TYPE_USER_DEFINED},
    /* 13 */ {"\xc3\x83\xc2\xa9", 0.0f, VNPU_TOKEN_TYPE_NORMAL}, /* "é" (C3 A9) spelled U+00C3 U+00A9 */
    /* 14 */ {"\xe4\xb8\xad", 0.0f, VNPU_TOKEN_TYPE_NORMAL},     /* U+4E2D as is: no byte is spelled so */
    /* 15 */ {"zz", 0.0f, VNPU_TOKEN_TYPE_NORMAL},               /* no merge makes it */
    /* 16 */ {"\x83", 0.0f, VNPU_TOKEN_TYPE_NORMAL},             /* one raw byte: a fallback target */
};

#define N_BPE ((int32_t) (sizeof(bpe_tokens) / sizeof(bpe_tokens[0])))

/* Ranks 0..6; "q r" joins parts that are no tokens, which llama.cpp accepts too. */
static const char *const bpe_merges[] = {"a b", "b c", G " a", "ab c", "a a", "\xc3\x83 \xc2\xa9", "q r"};

#define N_BPE_MERGES ((int32_t) (sizeof(bpe_merges) / sizeof(bpe_merges[0])))

static void set_merges(struct gguf_writer *w, const char *const *merges, int32_t n) {
    struct gguf_str m[16];
    assert_true(n <= 16);
    for (int32_t i = 0; i < n; i++) {
        m[i] = (struct gguf_str){.data = merges[i], .len = strlen(merges[i])};
    }
    gguf_writer_set_arr_str(w, "tokenizer.ggml.merges", m, (uint64_t) n);
}

/* A writer holding the synthetic BPE vocabulary with pre-tokenizer pre (NULL: no tokenizer.ggml.pre). */
static struct gguf_writer *bpe_writer(const char *pre) {
    struct gguf_writer *w = gguf_writer_new();
    assert_non_null(w);
    gguf_writer_set_str(w, "tokenizer.ggml.model", "gpt2");
    if (pre) {
        gguf_writer_set_str(w, "tokenizer.ggml.pre", pre);
    }
    struct gguf_str texts[N_BPE];
    int32_t types[N_BPE];
    for (int32_t i = 0; i < N_BPE; i++) {
        texts[i] = (struct gguf_str){.data = bpe_tokens[i].text, .len = strlen(bpe_tokens[i].text)};
        types[i] = bpe_tokens[i].type;
    }
    gguf_writer_set_arr_str(w, "tokenizer.ggml.tokens", texts, N_BPE);
    gguf_writer_set_arr_data(w, "tokenizer.ggml.token_type", GGUF_TYPE_INT32, types, N_BPE);
    set_merges(w, bpe_merges, N_BPE_MERGES);
    return w;
}

static void bmut_no_merges(struct gguf_writer *w) {
    gguf_writer_set_arr_data(w, "tokenizer.ggml.merges", GGUF_TYPE_INT32, (const int32_t[]){1}, 1);
}
static void bmut_merges_str(struct gguf_writer *w) {
    gguf_writer_set_str(w, "tokenizer.ggml.merges", "a b");
}
static void bmut_merges_empty(struct gguf_writer *w) {
    set_merges(w, bpe_merges, 0);
}
static void bmut_merge_no_space(struct gguf_writer *w) {
    set_merges(w, (const char *const[]){"a b", "ab"}, 2);
}
static void bmut_merge_space_first(struct gguf_writer *w) {
    set_merges(w, (const char *const[]){"a b", " ab"}, 2);
}
static void bmut_merge_right_empty(struct gguf_writer *w) {
    set_merges(w, (const char *const[]){"a b", "b c", "a "}, 3);
}
static void bmut_pre_unknown(struct gguf_writer *w) {
    gguf_writer_set_str(w, "tokenizer.ggml.pre", "klingon");
}
static void bmut_pre_u32(struct gguf_writer *w) {
    gguf_writer_set_u32(w, "tokenizer.ggml.pre", 3);
}
static void bmut_past_unicode(struct gguf_writer *w) {
    struct gguf_str texts[N_BPE];
    for (int32_t i = 0; i < N_BPE; i++) {
        texts[i] = (struct gguf_str){.data = bpe_tokens[i].text, .len = strlen(bpe_tokens[i].text)};
    }
    texts[3] = (struct gguf_str){.data = "\xf5\x80\x80\x80", .len = 4};
    gguf_writer_set_arr_str(w, "tokenizer.ggml.tokens", texts, N_BPE);
}
static void bmut_few_tokens(struct gguf_writer *w) {
    /* Llama 3's pre-tokenizer adds BOS by default, and llama.cpp's default BOS (11) is past 6 tokens */
    gguf_writer_set_str(w, "tokenizer.ggml.pre", "llama-bpe");
    const struct gguf_str texts[] = {{"a", 1}, {"b", 1}, {"c", 1}, {"ab", 2}, {"bc", 2}, {"abc", 3}};
    gguf_writer_set_arr_str(w, "tokenizer.ggml.tokens", texts, 6);
    gguf_writer_set_arr_data(w, "tokenizer.ggml.token_type", GGUF_TYPE_INT32, (const int32_t[]){1, 1, 1, 1, 1, 1}, 6);
}

static const struct bpe_malformed_case {
    const char *name;
    bool omit_merges;
    void (*mutate)(struct gguf_writer *w);
    enum vnpu_status status;
    const char *message; /* a substring of the one error logged */
} bpe_malformed_cases[] = {
    {"bpe-no-merges", .omit_merges = true, .status = VNPU_STATUS_BAD_FILE,
     .message = "missing key tokenizer.ggml.merges (a BPE vocabulary needs its merges)"},
    {"bpe-merges-i32", .mutate = bmut_no_merges, .status = VNPU_STATUS_BAD_FILE,
     .message = "tokenizer.ggml.merges is an array of i32, expected an array of str"},
    {"bpe-merges-str", .mutate = bmut_merges_str, .status = VNPU_STATUS_BAD_FILE,
     .message = "tokenizer.ggml.merges has type str, expected arr"},
    {"bpe-merges-empty", .mutate = bmut_merges_empty, .status = VNPU_STATUS_BAD_FILE,
     .message = "tokenizer.ggml.merges has 0 elements, expected 1..2147483647"},
    {"bpe-merge-no-space", .mutate = bmut_merge_no_space, .status = VNPU_STATUS_BAD_FILE,
     .message = "tokenizer.ggml.merges[1] 'ab' is not two parts split by a space (\"left right\")"},
    {"bpe-merge-space-first", .mutate = bmut_merge_space_first, .status = VNPU_STATUS_BAD_FILE,
     .message = "tokenizer.ggml.merges[1] ' ab' is not two parts split by a space"},
    {"bpe-merge-right-empty", .mutate = bmut_merge_right_empty, .status = VNPU_STATUS_BAD_FILE,
     .message = "tokenizer.ggml.merges[2] 'a ' is not two parts split by a space"},
    {"bpe-pre-unknown", .mutate = bmut_pre_unknown, .status = VNPU_STATUS_UNSUPPORTED,
     .message = "tokenizer.ggml.pre is 'klingon', a pre-tokenizer vnpu does not know (it knows default, llama3, "},
    {"bpe-pre-u32", .mutate = bmut_pre_u32, .status = VNPU_STATUS_BAD_FILE,
     .message = "tokenizer.ggml.pre has type u32, expected str"},
    {"bpe-past-unicode", .mutate = bmut_past_unicode, .status = VNPU_STATUS_BAD_FILE,
     .message = "tokenizer.ggml.tokens[3] holds U+140000, past U+10FFFF"},
    {"bpe-bos-default", .mutate = bmut_few_tokens, .status = VNPU_STATUS_BAD_FILE,
     .message = "add_bos_token is true but tokenizer.ggml.bos_token_id names no token"},
};

static void test_bpe_malformed(void **state) {
    (void) state;
    for (size_t i = 0; i < sizeof(bpe_malformed_cases) / sizeof(bpe_malformed_cases[0]); i++) {
        const struct bpe_malformed_case *c = &bpe_malformed_cases[i];
        struct gguf_writer *w = bpe_writer("gpt-2");
        if (c->omit_merges) {
            gguf_writer_free(w);
            w = gguf_writer_new();
            assert_non_null(w);
            gguf_writer_set_str(w, "tokenizer.ggml.model", "gpt2");
            gguf_writer_set_arr_str(w, "tokenizer.ggml.tokens", (const struct gguf_str[]){{"a", 1}}, 1);
        }
        if (c->mutate) {
            c->mutate(w);
        }
        captured.n_errors = 0;
        captured.last[0] = '\0';
        struct vnpu_vocab *vocab = (struct vnpu_vocab *) 1; /* must come back NULL */
        const enum vnpu_status st = synth_load(w, c->name, &vocab);
        if (st != c->status || captured.n_errors != 1 || !strstr(captured.last, c->message)) {
            fail_msg("case %s: status %s, %d errors, last \"%s\"; expected %s and one error with \"%s\"", c->name,
                     vnpu_status_str(st), captured.n_errors, captured.last, vnpu_status_str(c->status), c->message);
        }
        assert_null(vocab);
    }
}

static const struct tokenize_case bpe_cases[] = {
    /* "abc" merges ab (rank 0) then abc (rank 3); in " abc" (Ġabc) "a b" outranks "Ġ a" though it is not leftmost */
    {"rank-order", "abc abc", false, false, 3, {5, 6, 5}},
    /* "a a" matches twice: the leftmost merges */
    {"tie-leftmost", "aaa", false, false, 2, {8, 0}},
    /* é is C3 A9, spelled U+00C3 U+00A9, which merge (rank 5) */
    {"byte-level", "\xc3\xa9", false, false, 1, {13}},
    /* ü (C3 BC) spells U+00C3 U+00BC, no token: each falls back byte by byte to the one-byte tokens (C3 83 ->
     * only 0x83 is one; C2 BC -> none), what has none is dropped */
    {"byte-fallback",
     "a\xc3\xbc"
     "a",
     false,
     false,
     3,
     {0, 16, 0}},
    {"dropped", "q", false, false, 0, {0}},
    /* GPT-2's regex leaves a newline before a letter unmatched: the gap is a piece of its own */
    {"gap", "a\nb", false, false, 3, {0, 9, 1}},
    {"special-parsed", "a<|endoftext|>b", false, true, 3, {0, 10, 1}},
    {"user-defined", "a<tool>b", false, false, 3, {0, 12, 1}},
    /* gpt-2 adds no BOS: add_special changes nothing */
    {"no-bos", "a", true, false, 1, {0}},
    /* "zz" is a token but no merge makes it: without ignore_merges it is z z, and "z" is no token */
    {"no-ignore-merges", "zz", false, false, 0, {0}},
    {"empty", "", true, true, 0, {0}},
};

static void test_bpe_rules(void **state) {
    (void) state;
    struct vnpu_vocab *vocab = synth_vocab(bpe_writer("gpt-2"), "bpe-rules");
    for (size_t i = 0; i < sizeof(bpe_cases) / sizeof(bpe_cases[0]); i++) {
        check_tokenize(vocab, &bpe_cases[i]);
    }
    assert_int_equal(vnpu_vocab_bos(vocab), 11); /* llama.cpp's BPE defaults */
    assert_int_equal(vnpu_vocab_eos(vocab), 11);
    assert_false(vnpu_vocab_add_bos(vocab));
    assert_true(vnpu_vocab_is_eog(vocab, 10));
    assert_true(vnpu_vocab_is_eog(vocab, 11));
    /* a 4-byte sequence past U+10FFFF: llama.cpp throws, vnpu refuses */
    assert_int_equal(vnpu_vocab_tokenize(vocab, "a\xf5\x80\x80\x80", 5, NULL, 0, false, false), INT32_MIN);
    assert_int_equal(captured.n_errors, 1);
    assert_non_null(strstr(captured.last, "U+140000, past U+10FFFF, which llama.cpp's BPE throws on"));
    captured.n_errors = 0;
    static const struct {
        vnpu_token token;
        bool special;
        const char *piece;
    } pieces[] = {
        {6, false, " "},
        {7, false, " a"},
        {9, false, "\n"},
        {13, false, "\xc3\xa9"},
        /* U+4E2D spells no byte: llama_decode_text's marker, the token's text inside */
        {14, false, "[UNK_BYTE_0xe4b8ad\xe4\xb8\xad]"},
        /* a lone 0x83 decodes to U+FFFD, which spells no byte either */
        {16, false, "[UNK_BYTE_0xefbfbd\x83]"},
        {10, false, ""},
        {10, true, "<|endoftext|>"},
        {12, false, "<tool>"},
    };
    for (size_t i = 0; i < sizeof(pieces) / sizeof(pieces[0]); i++) {
        char buf[64];
        const int32_t n = vnpu_vocab_token_to_piece(vocab, pieces[i].token, buf, sizeof(buf), pieces[i].special);
        if (n != (int32_t) strlen(pieces[i].piece) || memcmp(buf, pieces[i].piece, (size_t) n) != 0) {
            fail_msg("token %d: got %d bytes '%.*s', expected '%s'", pieces[i].token, n, n > 0 ? n : 0, buf,
                     pieces[i].piece);
        }
    }
    char small[4];
    assert_int_equal(vnpu_vocab_token_to_piece(vocab, 14, small, sizeof(small), false), -22);
    vnpu_vocab_free(vocab);
}

/* Llama 3's pre-tokenizer: a piece that is a token is that token (ignore_merges), and BOS is added by default (11,
 * llama.cpp's default id); no tokenizer.ggml.pre: llama.cpp's "default" pre-tokenizer, with a warning. */
static void test_bpe_pre_attrs(void **state) {
    (void) state;
    struct vnpu_vocab *vocab = synth_vocab(bpe_writer("llama-bpe"), "bpe-llama3");
    assert_true(vnpu_vocab_add_bos(vocab));
    check_tokenize(vocab, &(struct tokenize_case){"ignore-merges", "zz", false, false, 1, {15}});
    check_tokenize(vocab, &(struct tokenize_case){"bos", "abc", true, false, 2, {11, 5}});
    vnpu_vocab_free(vocab);

    struct test_log log = {0};
    vnpu_log_set(test_log_collect, &log, VNPU_LOG_WARN);
    vocab = synth_vocab(bpe_writer(NULL), "bpe-no-pre");
    vnpu_log_set(capture_log, NULL, VNPU_LOG_ERROR);
    assert_int_equal(log.n_warnings, 1);
    assert_non_null(strstr(log.text, "no tokenizer.ggml.pre: the 'default' pre-tokenizer, as llama.cpp uses then"));
    check_tokenize(vocab, &(struct tokenize_case){"default", "abc abc", false, false, 3, {5, 6, 5}});
    vnpu_vocab_free(vocab);
}

static void test_token_to_piece(void **state) {
    (void) state;
    struct vnpu_vocab *vocab = synth_vocab(synth_writer(), "pieces");
    static const struct {
        vnpu_token token;
        bool special;
        const char *piece;
    } cases[] = {
        {12, false, " a"},        {6, false, " "}, {3, false, "\n"},   {5, false, "\xa9"},    {1, false, ""},
        {1, true, "<s>"},         {0, false, ""},  {0, true, "<unk>"}, {13, false, "<tool>"}, {14, false, ""},
        {14, true, "<|im_end|>"}, {16, true, ""},  {17, true, ""},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char buf[32];
        memset(buf, 0x55, sizeof(buf));
        const int32_t n = vnpu_vocab_token_to_piece(vocab, cases[i].token, buf, sizeof(buf), cases[i].special);
        if (n != (int32_t) strlen(cases[i].piece) || memcmp(buf, cases[i].piece, (size_t) n) != 0 ||
            (unsigned char) buf[n] != 0x55) {
            fail_msg("token %d special %d: got %d bytes '%.*s', expected '%s'", cases[i].token, cases[i].special, n,
                     n > 0 ? n : 0, buf, cases[i].piece);
        }
    }
    char small[1] = {0x55};
    assert_int_equal(vnpu_vocab_token_to_piece(vocab, 12, small, 1, false), -2);
    assert_int_equal((unsigned char) small[0], 0x55);
    assert_int_equal(vnpu_vocab_token_to_piece(vocab, 1, NULL, 0, true), -3);
    assert_int_equal(captured.n_errors, 0);
    assert_int_equal(vnpu_vocab_token_to_piece(vocab, N_SYNTH, small, 1, true), 0);
    assert_int_equal(vnpu_vocab_token_to_piece(vocab, -1, small, 1, true), 0);
    assert_int_equal(captured.n_errors, 2);
    vnpu_vocab_free(vocab);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_malformed, setup_capture, teardown_capture),
        cmocka_unit_test_setup_teardown(test_tokenize_rules, setup_capture, teardown_capture),
        cmocka_unit_test_setup_teardown(test_score_order, setup_capture, teardown_capture),
        cmocka_unit_test_setup_teardown(test_eos_and_short_buffer, setup_capture, teardown_capture),
        cmocka_unit_test_setup_teardown(test_phi3_rstrip, setup_capture, teardown_capture),
        cmocka_unit_test_setup_teardown(test_special_ids, setup_capture, teardown_capture),
        cmocka_unit_test_setup_teardown(test_token_to_piece, setup_capture, teardown_capture),
        cmocka_unit_test_setup_teardown(test_bpe_malformed, setup_capture, teardown_capture),
        cmocka_unit_test_setup_teardown(test_bpe_rules, setup_capture, teardown_capture),
        cmocka_unit_test_setup_teardown(test_bpe_pre_attrs, setup_capture, teardown_capture),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
