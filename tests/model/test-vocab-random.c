/*
 * The tokenizers against llama.cpp's own llama-tokenize (the oracle's upstream programs) on random texts: 10,000
 * strings per vocabulary of llama.cpp's models/ (every BPE one vnpu supports, and the SPM llama-spm), built from
 * mixed scripts (ASCII, Latin-1 and Latin Extended, Greek, Cyrillic, CJK, kana, Hangul, Arabic, Devanagari,
 * combining marks, emoji with modifiers and joiners), digits of several scripts, runs of whitespace (\t \n \r \v \f
 * and Unicode's spaces), punctuation and symbols, contractions, control bytes, invalid UTF-8 bytes (lone
 * continuations, cut sequences, overlong forms, surrogates) and special-token text. Each string tokenizes to
 * llama.cpp's ids, with and without parse_special, and each token's piece (special tokens shown) is llama.cpp's, so
 * the concatenated pieces detokenize as llama.cpp's do.
 *
 * llama-tokenize tokenizes one text per run and a run loads the vocabulary (a second or two), so the strings go in
 * one text per vocabulary and mode, joined by a separator llama.cpp cuts out before anything else: a USER_DEFINED
 * token appended to a copy of the vocabulary (matched with or without parse_special, and no text of the strings can
 * form it). Text between two separators tokenizes as it would alone; vnpu tokenizes each string alone with the
 * unmodified vocabulary. Runs are cached in the oracle's home (cache/llama-tokenize), keyed by the sha256 of the
 * vocabulary copy, the text and the program, so a second run of the test takes seconds.
 *
 * vnpu-tokenize's output is compared byte for byte with llama-tokenize's on one text per vocabulary (BOS as the
 * vocabulary says, escapes, special tokens), and its errors are checked.
 */
#include "test-common.h"

#include "gguf.h"
#include "hash.h"
#include "vocab.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N_STRINGS 10000
#define SEED      "test-vocab-random/1" /* with the vocabulary's name */

/* The separator token's text: \x02 and \x03 never appear in the strings. */
#define SEPARATOR "\x02vnpu-separator\x03"

static const char *const random_vocabs[] = {
    "llama-bpe", "qwen2",     "qwen35", "gpt-2", "deepseek-llm", "deepseek-coder", "falcon",
    "starcoder", "command-r", "refact", "mpt",   "aquila",       "gpt-neox",       "llama-spm",
};

#define N_VOCABS (sizeof(random_vocabs) / sizeof(random_vocabs[0]))

static const char *vocab_path(const char *name) {
    static char path[4200];
    snprintf(path, sizeof(path), "%s/models/ggml-vocab-%s.gguf", test_upstream_srcdir(), name);
    return path;
}

/* ---- random strings ---- */

/* A growable byte string. */
struct text {
    char *data;
    size_t len, cap;
};

static void text_put(struct text *t, const void *data, size_t n) {
    if (t->len + n + 1 > t->cap) {
        t->cap = 2 * (t->len + n + 1);
        t->data = realloc(t->data, t->cap);
        assert_non_null(t->data);
    }
    memcpy(t->data + t->len, data, n);
    t->len += n;
    t->data[t->len] = '\0';
}

static void text_put_cpt(struct text *t, uint32_t c) {
    char b[4];
    size_t n;
    if (c < 0x80) {
        b[0] = (char) c;
        n = 1;
    } else if (c < 0x800) {
        b[0] = (char) (0xC0 | c >> 6);
        b[1] = (char) (0x80 | (c & 0x3F));
        n = 2;
    } else if (c < 0x10000) {
        b[0] = (char) (0xE0 | c >> 12);
        b[1] = (char) (0x80 | (c >> 6 & 0x3F));
        b[2] = (char) (0x80 | (c & 0x3F));
        n = 3;
    } else {
        b[0] = (char) (0xF0 | c >> 18);
        b[1] = (char) (0x80 | (c >> 12 & 0x3F));
        b[2] = (char) (0x80 | (c >> 6 & 0x3F));
        b[3] = (char) (0x80 | (c & 0x3F));
        n = 4;
    }
    text_put(t, b, n);
}

/* Codepoint ranges by script, all assigned in Unicode 14 (PCRE2 10.42's), so that the Unicode versions agree
 * (docs/TOKENIZER.md: the codepoints assigned since are the only known difference). */
static const struct cpt_range {
    uint32_t lo, hi;
} script_ranges[] = {
    {0xC0, 0xFF},       /* Latin-1 letters (and × ÷) */
    {0x100, 0x17F},     /* Latin Extended-A */
    {0x391, 0x3C9},     /* Greek */
    {0x410, 0x44F},     /* Cyrillic */
    {0x4E00, 0x9FA5},   /* CJK */
    {0x9FA6, 0x9FFF},   /* CJK past DeepSeek's range */
    {0x3041, 0x3096},   /* Hiragana */
    {0x30A1, 0x30FA},   /* Katakana */
    {0xAC00, 0xD7A3},   /* Hangul */
    {0x621, 0x64A},     /* Arabic letters */
    {0x64B, 0x652},     /* Arabic marks */
    {0x905, 0x939},     /* Devanagari letters */
    {0x93E, 0x94D},     /* Devanagari vowel signs (marks) */
    {0x300, 0x36F},     /* combining marks */
    {0x1F600, 0x1F64F}, /* emoji */
    {0x1F300, 0x1F5FF}, /* pictographs */
    {0x1F680, 0x1F6C5}, /* transport */
    {0x1F3FB, 0x1F3FF}, /* skin tones */
    {0x2190, 0x22FF},   /* arrows, math */
    {0x20A0, 0x20BF},   /* currency */
    {0x2010, 0x2027},   /* general punctuation */
    {0xFF01, 0xFF5E},   /* fullwidth forms */
    {0x3001, 0x3003},   /* CJK punctuation */
    {0xFF10, 0xFF19},   /* fullwidth digits */
    {0x966, 0x96F},     /* Devanagari digits */
    {0x660, 0x669},     /* Arabic-Indic digits */
    {0x2160, 0x2188},   /* Roman numerals (Nl) */
    {0x2460, 0x2473},   /* circled numbers (No) */
    {0xE000, 0xE010},   /* private use */
};

/* Unicode's spaces and lookalikes: White_Space ones, and U+200B, U+FEFF, U+180E that are not. */
static const uint32_t spaces[] = {0x20,   0x20,   0x20,   0x09,   0x0A,   0x0D,   0x0B,   0x0C,   0x85,
                                  0xA0,   0x1680, 0x2000, 0x2003, 0x2009, 0x200A, 0x2028, 0x2029, 0x202F,
                                  0x205F, 0x3000, 0x200B, 0xFEFF, 0x180E, 0x1C,   0x1F};

static const char *const fixed_pieces[] = {
    /* special-token text of the vocabularies, whole and cut */
    "<|begin_of_text|>",
    "<|end_of_text|>",
    "<|eot_id|>",
    "<|start_header_id|>",
    "<|reserved_special_token_5|>",
    "<|im_start|>",
    "<|im_end|>",
    "<|endoftext|>",
    "<|fim_prefix|>",
    "<fim_prefix>",
    "<fim_middle>",
    "<s>",
    "</s>",
    "<unk>",
    ">>TITLE<<",
    ">>ABSTRACT<<",
    "<|START_OF_TURN_TOKEN|>",
    "<|END_OF_TURN_TOKEN|>",
    "<|padding|>",
    ("<\xef\xbd\x9c"
     "begin\xe2\x96\x81of\xe2\x96\x81sentence\xef\xbd\x9c>"), /* DeepSeek's BOS */
    "<|im_",
    "|>",
    "<|",
    "<0x41>",
    /* contractions */
    "'s",
    "'t",
    "'re",
    "'ve",
    "'m",
    "'ll",
    "'d",
    "'S",
    "'LL",
    "'Re",
    "'",
    "n't",
    /* invalid UTF-8: lone continuations, cut sequences, overlong forms, a surrogate, bytes no sequence starts */
    "\x80",
    "\xbf",
    "\xc3",
    "\xe2\x82",
    "\xf0\x9f",
    "\xf0\x9f\x98",
    "\xc0\xaf",
    "\xc0\x80",
    "\xc1\xbf",
    "\xed\xa0\x80",
    "\xef\xbf\xbd",
    "\xf8",
    "\xfe",
    "\xff",
    /* control bytes (never \x02 \x03: the separator's) */
    "\x01",
    "\x1b[0m",
    "\x7f",
    "\x00",
    /* emoji sequences: joiner, variation selector, flag */
    "\xf0\x9f\x91\xa8\xe2\x80\x8d\xf0\x9f\x91\xa9",
    "\xe2\x9d\xa4\xef\xb8\x8f",
    "\xf0\x9f\x87\xab\xf0\x9f\x87\xb7",
    /* code */
    "int main() {",
    "\tif (x) {\n",
    "    return 0;",
    "x += 1;",
    "https://example.com/a?b=c",
    "#include <stdio.h>",
};

static const char ascii_punct[] = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";

static uint32_t rng_below(struct test_rng *rng, uint32_t n) {
    return (uint32_t) (test_rng_next(rng) % n);
}

/* One piece of a random string. */
static void random_piece(struct test_rng *rng, struct text *t) {
    const uint32_t kind = rng_below(rng, 16);
    const uint32_t n = 1 + rng_below(rng, 6);
    switch (kind) {
        case 0:
        case 1: /* an ASCII word, maybe capitalized, maybe after a space */
            if (rng_below(rng, 2)) {
                text_put(t, " ", 1);
            }
            for (uint32_t i = 0; i < n + 1; i++) {
                const char c = (char) ((i == 0 && rng_below(rng, 3) == 0 ? 'A' : 'a') + rng_below(rng, 26));
                text_put(t, &c, 1);
            }
            break;
        case 2: /* digits */
            for (uint32_t i = 0; i < n; i++) {
                const char c = (char) ('0' + rng_below(rng, 10));
                text_put(t, &c, 1);
            }
            break;
        case 3: /* punctuation */
            for (uint32_t i = 0; i < (n + 1) / 2; i++) {
                text_put(t, &ascii_punct[rng_below(rng, sizeof(ascii_punct) - 1)], 1);
            }
            break;
        case 4:
        case 5: /* whitespace */
            for (uint32_t i = 0; i < (n + 1) / 2; i++) {
                text_put_cpt(t, spaces[rng_below(rng, sizeof(spaces) / sizeof(spaces[0]))]);
            }
            break;
        case 6:
        case 7:
        case 8:
        case 9:
        case 10: { /* a run of one script */
            const struct cpt_range *r =
                &script_ranges[rng_below(rng, sizeof(script_ranges) / sizeof(script_ranges[0]))];
            if (rng_below(rng, 3) == 0) {
                text_put(t, " ", 1);
            }
            for (uint32_t i = 0; i < n; i++) {
                text_put_cpt(t, r->lo + rng_below(rng, r->hi - r->lo + 1));
            }
            break;
        }
        default: { /* a fixed piece */
            const char *p = fixed_pieces[rng_below(rng, sizeof(fixed_pieces) / sizeof(fixed_pieces[0]))];
            text_put(t, p, p[0] ? strlen(p) : 1); /* "\x00" is one NUL byte */
            break;
        }
    }
}

/* N_STRINGS strings, each in texts->data at offsets[i], lengths lens[i]. */
struct strings {
    struct text all;
    size_t off[N_STRINGS], len[N_STRINGS];
};

static void random_strings(const char *seed, struct strings *s) {
    struct test_rng rng;
    test_rng_seed(&rng, seed);
    for (int i = 0; i < N_STRINGS; i++) {
        s->off[i] = s->all.len;
        const uint32_t n = 1 + rng_below(&rng, 12);
        for (uint32_t k = 0; k < n; k++) {
            random_piece(&rng, &s->all);
        }
        s->len[i] = s->all.len - s->off[i];
    }
}

/* ---- the oracle ---- */

/* The vocabulary at path with SEPARATOR appended as a USER_DEFINED token (id: the old count), written to out. */
static void vocab_with_separator(const char *path, const char *out, int32_t *sep_id) {
    struct gguf_file *f = NULL;
    assert_int_equal(gguf_open(path, &f), VNPU_STATUS_OK);
    struct gguf_writer *w = gguf_writer_new();
    assert_non_null(w);
    for (int64_t i = 0; i < gguf_n_kv(f); i++) {
        gguf_writer_copy_kv(w, f, i);
    }
    const int64_t ti = gguf_find_key(f, "tokenizer.ggml.tokens");
    const uint64_t n = gguf_get_arr_n(f, ti);
    struct gguf_str *texts = malloc((n + 1) * sizeof(*texts));
    int32_t *types = malloc((n + 1) * sizeof(*types));
    assert_true(texts && types);
    for (uint64_t i = 0; i < n; i++) {
        texts[i] = gguf_get_arr_str(f, ti, i);
        types[i] = VNPU_TOKEN_TYPE_NORMAL;
    }
    texts[n] = (struct gguf_str){.data = SEPARATOR, .len = strlen(SEPARATOR)};
    const int64_t yi = gguf_find_key(f, "tokenizer.ggml.token_type");
    if (yi >= 0) {
        memcpy(types, gguf_get_arr_data(f, yi), n * sizeof(*types));
    }
    types[n] = VNPU_TOKEN_TYPE_USER_DEFINED;
    gguf_writer_set_arr_str(w, "tokenizer.ggml.tokens", texts, n + 1);
    gguf_writer_set_arr_data(w, "tokenizer.ggml.token_type", GGUF_TYPE_INT32, types, n + 1);
    const int64_t si = gguf_find_key(f, "tokenizer.ggml.scores");
    if (si >= 0) {
        float *scores = calloc(n + 1, sizeof(*scores));
        assert_non_null(scores);
        memcpy(scores, gguf_get_arr_data(f, si), n * sizeof(*scores));
        gguf_writer_set_arr_data(w, "tokenizer.ggml.scores", GGUF_TYPE_FLOAT32, scores, n + 1);
        free(scores);
    }
    for (int64_t i = 0; i < gguf_n_kv(f); i++) { /* <arch>.vocab_size, when the file has one */
        const struct gguf_str key = gguf_kv_key(f, i);
        if (key.len > 11 && memcmp(key.data + key.len - 11, ".vocab_size", 11) == 0) {
            char name[256];
            snprintf(name, sizeof(name), "%.*s", (int) key.len, key.data);
            gguf_writer_set_u32(w, name, (uint32_t) n + 1);
        }
    }
    assert_int_equal(gguf_writer_write(w, out), VNPU_STATUS_OK);
    gguf_writer_free(w);
    free(texts);
    free(types);
    gguf_close(f);
    *sep_id = (int32_t) n;
}

/* sha256sum's hex of path, into hex[65]. */
static void sha256_of(const char *path, char hex[65]) {
    char *out = NULL;
    assert_int_equal(test_run(&out, NULL, "sha256sum '%s'", path), 0);
    assert_true(out && strspn(out, "0123456789abcdef") >= 64);
    memcpy(hex, out, 64);
    hex[64] = '\0';
    free(out);
}

/* llama-tokenize's stdout for -m model -f input args, from the cache when this exact run was made before; *len gets
 * its length. */
static char *llama_tokenize(const char *model, const char *input, const char *args, size_t *len) {
    const char *bin = test_upstream_bindir();
    static char program[65];
    if (!program[0]) {
        char path[4200];
        snprintf(path, sizeof(path), "%s/llama-tokenize", bin);
        sha256_of(path, program);
    }
    char model_hash[65], input_hash[65];
    sha256_of(model, model_hash);
    sha256_of(input, input_hash);
    char key[512];
    snprintf(key, sizeof(key), "%s %s %s %s", program, model_hash, input_hash, args);
    char dir[4200], cached[4400];
    snprintf(dir, sizeof(dir), "%s/../cache/llama-tokenize", bin);
    snprintf(cached, sizeof(cached), "%s/%016" PRIx64 ".out", dir, vnpu_fnv1a64(key, strlen(key)));
    if (access(cached, R_OK) != 0) {
        char part[4500], *err = NULL;
        snprintf(part, sizeof(part), "%s.part-%d", cached, (int) getpid());
        const int rc =
            test_run(NULL, &err, "mkdir -p '%s' && '%s/llama-tokenize' -m '%s' -f '%s' %s --log-disable > '%s'", dir,
                     bin, model, input, args, part);
        if (rc != 0) {
            unlink(part);
            fail_msg("llama-tokenize -m %s -f %s %s exited %d:\n%.4000s", model, input, args, rc, err ? err : "");
        }
        free(err);
        assert_int_equal(rename(part, cached), 0);
    }
    char *out = test_read_file(cached, len);
    assert_non_null(out);
    return out;
}

/* llama-tokenize's lines "%6d -> '<piece>'\n", parsed: ids and pieces (the piece as printf's %s wrote it: cut at a
 * NUL byte). A piece ends at the first "'\n" followed by the end or by the next line's "<spaces><id> -> '". */
struct records {
    vnpu_token *ids;
    const char **piece;
    size_t *piece_len;
    size_t n, cap;
};

static const char *record_body(const char *p, const char *end, long *id) {
    while (p < end && *p == ' ') {
        p++;
    }
    char *after;
    *id = strtol(p, &after, 10);
    if (after == p || (size_t) (end - after) < 5 || memcmp(after, " -> '", 5) != 0) {
        return NULL;
    }
    return after + 5;
}

static void records_parse(const char *out, size_t len, struct records *r) {
    const char *end = out + len, *p = out;
    while (p < end) {
        long id;
        const char *piece = record_body(p, end, &id);
        assert_non_null(piece);
        const char *q = piece;
        long next_id;
        while (!(q + 1 < end && q[0] == '\'' && q[1] == '\n' && (q + 2 == end || record_body(q + 2, end, &next_id)))) {
            assert_true(q < end);
            q++;
        }
        if (r->n == r->cap) {
            r->cap = r->cap ? 2 * r->cap : 1024;
            r->ids = realloc(r->ids, r->cap * sizeof(*r->ids));
            r->piece = realloc(r->piece, r->cap * sizeof(*r->piece));
            r->piece_len = realloc(r->piece_len, r->cap * sizeof(*r->piece_len));
            assert_true(r->ids && r->piece && r->piece_len);
        }
        r->ids[r->n] = (vnpu_token) id;
        r->piece[r->n] = piece;
        r->piece_len[r->n++] = (size_t) (q - piece);
        p = q + 2;
    }
}

/* ---- comparing ---- */

static void print_escaped(const char *s, size_t len) {
    for (size_t i = 0; i < len && i < 400; i++) {
        const unsigned char c = (unsigned char) s[i];
        if (c >= 0x20 && c < 0x7f && c != '\\' && c != '"') {
            putchar(c);
        } else {
            printf("\\x%02x", c);
        }
    }
}

static void print_ids(const char *who, const vnpu_token *ids, size_t n) {
    printf("  %-9s [", who);
    for (size_t i = 0; i < n; i++) {
        printf("%s%d", i ? ", " : "", ids[i]);
    }
    printf("]\n");
}

/* Compare vnpu's tokens and pieces of every string with llama.cpp's records (a segment per string); returns the
 * number of strings that agree, printing the first few that do not. */
static int compare(const char *name, bool parse_special, const struct vnpu_vocab *vocab, const struct strings *s,
                   const struct records *r, vnpu_token sep_id) {
    enum { MAX_IDS = 8192 };
    static vnpu_token ids[MAX_IDS];
    size_t k = 0;
    int n_agree = 0, n_printed = 0;
    for (int i = 0; i < N_STRINGS; i++) {
        const size_t start = k;
        while (k < r->n && r->ids[k] != sep_id) {
            k++;
        }
        assert_true(i == N_STRINGS - 1 ? k == r->n : k < r->n); /* one segment per string */
        const size_t n_oracle = k - start;
        k++;
        const char *text = s->all.data + s->off[i];
        const int32_t n = vnpu_vocab_tokenize(vocab, text, s->len[i], ids, MAX_IDS, false, parse_special);
        assert_true(n >= 0);
        bool same = (size_t) n == n_oracle && memcmp(ids, r->ids + start, n_oracle * sizeof(*ids)) == 0;
        for (int32_t t = 0; same && t < n; t++) {
            char piece[512];
            int32_t m = vnpu_vocab_token_to_piece(vocab, ids[t], piece, sizeof(piece), true);
            assert_true(m >= 0);
            const char *nul = memchr(piece, '\0', (size_t) m);
            m = nul ? (int32_t) (nul - piece) : m;
            same = (size_t) m == r->piece_len[start + t] && memcmp(piece, r->piece[start + t], (size_t) m) == 0;
        }
        n_agree += same;
        if (!same && n_printed++ < 5) {
            printf("%s, parse_special %d, string %d \"", name, parse_special, i);
            print_escaped(text, s->len[i]);
            printf("\":\n");
            print_ids("vnpu", ids, (size_t) (n > 0 ? n : 0));
            print_ids("llama.cpp", r->ids + start, n_oracle);
        }
    }
    return n_agree;
}

static void test_random_strings(void **state) {
    (void) state;
    struct strings *s = calloc(1, sizeof(*s));
    assert_non_null(s);
    int n_fail = 0;
    for (size_t v = 0; v < N_VOCABS; v++) {
        const char *name = random_vocabs[v];
        char seed[128], copy[4200], input[4200];
        snprintf(seed, sizeof(seed), "%s/%s", SEED, name);
        snprintf(copy, sizeof(copy), "%s/%s-separated.gguf", test_tmpdir(), name);
        snprintf(input, sizeof(input), "%s/%s-strings.txt", test_tmpdir(), name);
        int32_t sep_id;
        vocab_with_separator(vocab_path(name), copy, &sep_id);
        struct vnpu_vocab *vocab = NULL;
        assert_int_equal(vnpu_vocab_load_file(vocab_path(name), &vocab), VNPU_STATUS_OK);
        s->all.len = 0;
        random_strings(seed, s);
        struct text joined = {0};
        for (int i = 0; i < N_STRINGS; i++) {
            if (i) {
                text_put(&joined, SEPARATOR, strlen(SEPARATOR));
            }
            text_put(&joined, s->all.data + s->off[i], s->len[i]);
        }
        test_write_file(input, joined.data, joined.len);
        for (int parse = 1; parse >= 0; parse--) {
            size_t len;
            char *out = llama_tokenize(
                copy, input, parse ? "--no-bos --no-escape" : "--no-bos --no-escape --no-parse-special", &len);
            struct records r = {0};
            records_parse(out, len, &r);
            const int n_agree = compare(name, parse, vocab, s, &r, sep_id);
            printf("%s (seed \"%s\", %zu bytes), parse_special %d: %d/%d strings give llama.cpp's ids and pieces\n",
                   name, seed, joined.len, parse, n_agree, N_STRINGS);
            n_fail += N_STRINGS - n_agree;
            free(r.ids);
            free(r.piece);
            free(r.piece_len);
            free(out);
        }
        free(joined.data);
        vnpu_vocab_free(vocab);
        unlink(copy);
    }
    free(s->all.data);
    free(s);
    assert_int_equal(n_fail, 0);
}

/* ---- vnpu-tokenize ---- */

/* vnpu-tokenize and llama-tokenize print the same bytes, with and without --ids, BOS as each vocabulary says. */
static void test_tool_output(void **state) {
    (void) state;
    const char *bin = test_upstream_bindir();
    /* escapes (\n, \x41), special-token text of several vocabularies, a contraction, CJK, an emoji */
    static const char prompt[] =
        "Hello\\n<|im_start|>user<s> it\\x27s  \\x41 <|begin_of_text|>\xe4\xb8\xad\xf0\x9f\xa6\x99";
    for (size_t v = 0; v < N_VOCABS; v++) {
        for (int ids = 0; ids < 2; ids++) {
            char ours[4200], theirs[4200];
            snprintf(ours, sizeof(ours), "%s/vnpu-tokenize.out", test_tmpdir());
            snprintf(theirs, sizeof(theirs), "%s/llama-tokenize.out", test_tmpdir());
            const char *model = vocab_path(random_vocabs[v]);
            assert_int_equal(test_run(NULL, NULL, "VNPU_LOG=0 '%s/vnpu-tokenize' -m '%s' -p '%s' %s > '%s'",
                                      test_tools_dir(), model, prompt, ids ? "--ids" : "", ours),
                             0);
            assert_int_equal(test_run(NULL, NULL, "'%s/llama-tokenize' -m '%s' -p '%s' %s --log-disable > '%s'", bin,
                                      model, prompt, ids ? "--ids" : "", theirs),
                             0);
            char *same = NULL;
            if (test_run(&same, NULL, "cmp '%s' '%s' && cat '%s'", ours, theirs, ours) != 0) {
                char *a = NULL, *b = NULL;
                test_run(&a, NULL, "cat '%s'", ours);
                test_run(&b, NULL, "cat '%s'", theirs);
                fail_msg("%s --ids %d: vnpu-tokenize printed\n%s\nllama-tokenize printed\n%s", random_vocabs[v], ids, a,
                         b);
            }
            if (ids) {
                printf("%s: %s", random_vocabs[v], same);
            }
            free(same);
        }
    }
}

/* Bad input: a clear message and a non-zero status, never a crash. */
static void test_tool_errors(void **state) {
    (void) state;
    static const struct {
        const char *vocab; /* -m's vocabulary, or NULL */
        const char *args;
        int status;
        const char *message;
    } cases[] = {
        {NULL, "-p hello", 2, "vnpu-tokenize: no model given (-m FILE)"},
        {"llama-bpe", "", 2, "vnpu-tokenize: no text given (-p TEXT, -f FILE or --stdin)"},
        {"llama-bpe", "-p x --frobnicate", 2, "vnpu-tokenize: unknown option '--frobnicate' (see --help)"},
        {"llama-bpe", "-p", 2, "vnpu-tokenize: option -p needs a value"},
        {NULL, "-m /nonexistent.gguf -p x", 1, "cannot load the vocabulary of /nonexistent.gguf"},
        {"llama-bpe", "-f /nonexistent.txt", 1, "vnpu-tokenize: cannot open file /nonexistent.txt: No such file"},
        {"llama-bpe", "-p '\\xf5\\x80\\x80\\x80'", 1, "past U+10FFFF, which llama.cpp's BPE throws on"},
        {"bert-bge", "-p x", 1, "tokenizer.ggml.model is 'bert'; vnpu supports 'llama' (SPM) and 'gpt2' (BPE)"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char model[4300] = "";
        if (cases[i].vocab) {
            snprintf(model, sizeof(model), "-m '%s'", vocab_path(cases[i].vocab));
        }
        char *err = NULL;
        const int rc = test_run(NULL, &err, "'%s/vnpu-tokenize' %s %s", test_tools_dir(), model, cases[i].args);
        if (rc != cases[i].status || !strstr(err, cases[i].message)) {
            fail_msg("vnpu-tokenize %s %s: exit %d, stderr \"%s\"; expected %d and \"%s\"", model, cases[i].args, rc,
                     err, cases[i].status, cases[i].message);
        }
        free(err);
    }
}

int main(void) {
    vnpu_log_set(NULL, NULL, VNPU_LOG_ERROR); /* aquila and gpt-neox warn that they have no tokenizer.ggml.pre */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tool_errors),
        cmocka_unit_test(test_tool_output),
        cmocka_unit_test(test_random_strings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
