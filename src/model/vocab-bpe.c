/*
 * The BPE tokenizer of llama.cpp (src/llama-vocab.cpp: llm_tokenizer_bpe, llm_tokenizer_bpe_session, and what
 * llama_vocab::impl::load reads for tokenizer.ggml.model "gpt2") on one run of plain text:
 *  1. the text's codepoints (unicode.h: invalid bytes become U+FFFD) are cut into pieces by the regexes of the
 *     vocabulary's pre-tokenizer (tokenizer.ggml.pre; pretok.h);
 *  2. each piece is re-encoded as UTF-8 and each byte spelled as the codepoint GPT-2's bytes_to_unicode gives it
 *     (printable bytes as themselves, the 68 others as U+0100 onwards, in byte order);
 *  3. with ignore_merges, a piece that is a token is that token; otherwise its characters merge pairwise by the rank
 *     of tokenizer.ggml.merges ("left right", lowest rank first, leftmost on ties; vocab-merge.c).
 * A NORMAL token's piece is its text with each codepoint spelled back as its byte; a codepoint no byte spells becomes
 * "[UNK_BYTE_0x<its UTF-8 in hex><the token's text>]", as llama.cpp's llama_decode_text writes it.
 */
#include "vocab-impl.h"

#include "hash.h"
#include "log.h"
#include "unicode.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- pre-tokenizers ---- */

/* The regexes of each pre-tokenizer, in pretok.h's syntax: the models' own (their tokenizer.json), as llama.cpp
 * adapts them to ECMAScript ((?i:...) spelled out as [sS] pairs). */
#define RE_CONTRACTIONS_CI "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])"
#define RE_GPT2            "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)"

static const char *const re_default[] = {"[\\p{P}\\$\\+<=>\\^~\\|]+", RE_GPT2, "\\p{N}+", "[0-9][0-9][0-9]"};
static const char *const re_gpt2[] = {RE_GPT2};
static const char *const re_llama3[] = {
    RE_CONTRACTIONS_CI "|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|"
                       "\\s+(?!\\S)|\\s+",
};
static const char *const re_qwen2[] = {
    RE_CONTRACTIONS_CI "|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|"
                       "\\s+(?!\\S)|\\s+",
};
static const char *const re_qwen35[] = {
    RE_CONTRACTIONS_CI "|[^\\r\\n\\p{L}\\p{N}]?[\\p{L}\\p{M}]+|\\p{N}| ?[^\\s\\p{L}\\p{M}\\p{N}]+[\\r\\n]*|"
                       "\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
};
static const char *const re_starcoder[] = {"\\p{N}", RE_GPT2};
static const char *const re_falcon[] = {"[\\p{P}\\$\\+<=>\\^~\\|`]+", RE_GPT2, "[0-9][0-9][0-9]"};
/* DeepSeek's ranges: CJK U+4E00..U+9FA5, U+0800..U+4E00 and Hangul U+AC00..U+D7FF */
#define RE_DEEPSEEK_CJK "[\\x{4e00}-\\x{9fa5}\\x{800}-\\x{4e00}\\x{ac00}-\\x{d7ff}]+"
static const char *const re_deepseek_llm[] = {
    "[\\r\\n]",
    /* DeepSeek LLM's letters, as its tokenizer.json lists them */
    "\\s?[A-Za-z\\x{b5}\\x{c0}-\\x{d6}\\x{d8}-\\x{f6}\\x{f8}-\\x{1ba}\\x{1bc}-\\x{1bf}\\x{1c4}-\\x{293}\\x{295}-\\x{"
    "2af}"
    "\\x{370}-\\x{373}\\x{376}\\x{377}\\x{37b}-\\x{37d}\\x{37f}\\x{386}\\x{388}-\\x{38a}\\x{38c}\\x{38e}-\\x{3a1}"
    "\\x{3a3}-\\x{3f5}\\x{3f7}-\\x{481}\\x{48a}-\\x{52f}\\x{531}-\\x{556}\\x{10a0}-\\x{10c5}\\x{13a0}-\\x{13f5}"
    "\\x{13f8}-\\x{13fd}\\x{1c90}-\\x{1cba}\\x{1cbd}-\\x{1cbf}\\x{1d00}-\\x{1d2b}\\x{1d6b}-\\x{1d77}\\x{1d79}-\\x{1d9a}"
    "\\x{1e00}-\\x{1f15}\\x{1f18}-\\x{1f1d}\\x{1f20}-\\x{1f45}\\x{1f48}-\\x{1f4d}\\x{1f50}-\\x{1f57}\\x{1f59}\\x{1f5b}"
    "\\x{1f5d}\\x{1f5f}-\\x{1f7d}\\x{1f80}-\\x{1fb4}\\x{1fb6}-\\x{1fbc}\\x{1fbe}\\x{1fc2}-\\x{1fc4}\\x{1fc6}-\\x{1fcc}"
    "\\x{1fd0}-\\x{1fd3}\\x{1fd6}-\\x{1fdb}\\x{1fe0}-\\x{1fec}\\x{1ff2}-\\x{1ff4}\\x{1ff6}-\\x{1ffc}\\x{2102}\\x{2107}"
    "\\x{210a}-\\x{2113}\\x{2115}\\x{2119}-\\x{211d}\\x{2124}\\x{2126}\\x{2128}\\x{212a}-\\x{212d}\\x{212f}-\\x{2134}"
    "\\x{2139}\\x{213c}-\\x{213f}\\x{2145}-\\x{2149}\\x{214e}\\x{2183}\\x{2184}\\x{2c00}-\\x{2c7b}\\x{2c7e}-\\x{2ce4}"
    "\\x{2ceb}-\\x{2cee}\\x{2cf2}\\x{2cf3}\\x{a640}-\\x{a66d}\\x{a680}-\\x{a69b}\\x{a722}-\\x{a76f}\\x{a771}-\\x{a787}"
    "\\x{a78b}-\\x{a78e}\\x{ab70}-\\x{abbf}\\x{fb00}-\\x{fb06}\\x{fb13}-\\x{fb17}\\x{ff21}-\\x{ff3a}\\x{ff41}-\\x{ff5a}"
    "\\x{10400}-\\x{1044f}\\x{104b0}-\\x{104d3}\\x{104d8}-\\x{104fb}\\x{10c80}-\\x{10cb2}\\x{10cc0}-\\x{10cf2}"
    "\\x{118a0}-\\x{118df}\\x{1e900}-\\x{1e943}]+",
    /* ASCII punctuation, its fullwidth forms, quotation marks U+2018..U+201F, U+3000..U+3002 */
    "\\s?[!-/:-~\\x{ff01}-\\x{ff0f}\\x{ff1a}-\\x{ff5e}\\x{2018}-\\x{201f}\\x{3000}-\\x{3002}]+",
    "\\s+$",
    RE_DEEPSEEK_CJK,
    "\\p{N}+",
};
static const char *const re_deepseek_coder[] = {"[\\r\\n]", "\\s?\\p{L}+", "\\s?\\p{P}+", RE_DEEPSEEK_CJK, "\\p{N}"};

/* A tokenizer.ggml.pre value: its regexes and the attributes llama.cpp's load() gives it (ignore_merges: a piece that
 * is a token is not merged; add_bos: tokenizer.ggml.add_bos_token's default). Several values share a pre-tokenizer,
 * as llama.cpp maps them to one LLAMA_VOCAB_PRE_TYPE; only the values vnpu tests (docs/TOKENIZER.md) are here. */
struct bpe_pre {
    const char *name;
    const char *const *regexes;
    size_t n_regexes;
    bool ignore_merges;
    bool add_bos;
};

#define RE(list) list, sizeof(list) / sizeof(list[0])

static const struct bpe_pre pre_types[] = {
    {"default", RE(re_default), false, false}, /* also a missing tokenizer.ggml.pre */
    /* LLAMA_VOCAB_PRE_TYPE_LLAMA3 */
    {"llama3", RE(re_llama3), true, true},
    {"llama-v3", RE(re_llama3), true, true},
    {"llama-bpe", RE(re_llama3), true, true},
    {"falcon3", RE(re_llama3), true, true},
    {"falcon-h1", RE(re_llama3), true, true},
    {"pixtral", RE(re_llama3), true, true},
    {"midm-2.0", RE(re_llama3), true, true},
    {"lfm2", RE(re_llama3), true, true},
    {"jina-v5-nano", RE(re_llama3), true, true},
    /* LLAMA_VOCAB_PRE_TYPE_QWEN2 and QWEN35 */
    {"qwen2", RE(re_qwen2), false, false},
    {"deepseek-r1-qwen", RE(re_qwen2), false, false},
    {"kormo", RE(re_qwen2), false, false},
    {"f2llmv2", RE(re_qwen2), false, false},
    {"megrez", RE(re_qwen2), false, false},
    {"qwen35", RE(re_qwen35), false, false},
    /* LLAMA_VOCAB_PRE_TYPE_GPT2 (not jina-v2-*, whose <mask> strips the spaces before it: LSTRIP, not built) */
    {"gpt-2", RE(re_gpt2), false, false},
    {"phi-2", RE(re_gpt2), false, false},
    {"jina-es", RE(re_gpt2), false, false},
    {"jina-de", RE(re_gpt2), false, false},
    {"jina-v1-en", RE(re_gpt2), false, false},
    {"roberta-bpe", RE(re_gpt2), false, false},
    {"gigachat", RE(re_gpt2), false, false},
    {"a.x-4.0", RE(re_gpt2), false, false},
    {"mellum", RE(re_gpt2), false, false},
    {"exaone4", RE(re_gpt2), false, false},
    {"mpt", RE(re_gpt2), false, false},
    /* STARCODER, REFACT, COMMAND_R */
    {"starcoder", RE(re_starcoder), false, false},
    {"refact", RE(re_starcoder), false, false},
    {"command-r", RE(re_starcoder), false, false},
    {"falcon", RE(re_falcon), false, false},
    {"deepseek-llm", RE(re_deepseek_llm), false, false},
    {"deepseek-coder", RE(re_deepseek_coder), false, false},
};

#define N_PRE_TYPES (sizeof(pre_types) / sizeof(pre_types[0]))

/* ---- GPT-2's bytes_to_unicode ---- */

/* The codepoint that spells byte b: itself for '!'..'~', U+00A1..U+00AC and U+00AE..U+00FF, else U+0100 + its index
 * among the 68 others (0x00..0x20, 0x7F..0xA0, 0xAD) in byte order. */
static uint32_t byte_to_cpt(uint8_t b) {
    if (b <= 0x20) {
        return 0x100u + b;
    }
    if (b >= 0x7F && b <= 0xA0) {
        return 0x100u + 0x21 + (b - 0x7Fu);
    }
    return b == 0xAD ? 0x100u + 0x21 + 0x22 : b;
}

/* The byte cpt spells, or -1. */
static int cpt_to_byte(uint32_t cpt) {
    if (cpt < 0x100) {
        return byte_to_cpt((uint8_t) cpt) == cpt ? (int) cpt : -1;
    }
    if (cpt < 0x100 + 0x21) {
        return (int) (cpt - 0x100);
    }
    if (cpt < 0x100 + 0x21 + 0x22) {
        return (int) (cpt - 0x100 - 0x21 + 0x7F);
    }
    return cpt == 0x100 + 0x21 + 0x22 ? 0xAD : -1;
}

/* ---- merges ---- */

static int32_t *merge_slot(const struct vocab_bpe *bpe, uint64_t hash, const char *left, size_t n_left,
                           const char *right, size_t n_right) {
    for (size_t i = hash & bpe->merge_mask;; i = (i + 1) & bpe->merge_mask) {
        int32_t *slot = &bpe->merge_map[i];
        if (*slot < 0) {
            return slot;
        }
        const struct bpe_merge *m = &bpe->merges[*slot];
        const char *t = bpe->merge_texts + m->off;
        if (m->n_left == n_left && m->n_right == n_right && memcmp(t, left, n_left) == 0 &&
            memcmp(t + n_left + 1, right, n_right) == 0) {
            return slot;
        }
    }
}

int32_t bpe_merge_rank(const struct vocab_bpe *bpe, const char *left, size_t n_left, const char *right,
                       size_t n_right) {
    /* the hash of "left right", as the merge is written */
    const uint64_t hash = vnpu_fnv1a64_more(vnpu_fnv1a64_more(vnpu_fnv1a64(left, n_left), " ", 1), right, n_right);
    return *merge_slot(bpe, hash, left, n_left, right, n_right);
}

/* tokenizer.ggml.merges: each "left right" cut at its first space after the first byte, as llama.cpp cuts it; rank =
 * index. A pair written twice keeps its first rank (llama.cpp's emplace). Parts need not be tokens. */
static enum vnpu_status merges_read(struct vocab_bpe *bpe, const struct gguf_file *f) {
    static const char key[] = "tokenizer.ggml.merges";
    int64_t idx;
    enum vnpu_status st = vocab_find_array(f, key, GGUF_TYPE_STRING, 0, &idx);
    if (st != VNPU_STATUS_OK) {
        return st;
    }
    if (idx < 0) {
        vnpu_log_error("%s: missing key %s (a BPE vocabulary needs its merges)", gguf_path(f), key);
        return VNPU_STATUS_BAD_FILE;
    }
    bpe->n_merges = (int32_t) gguf_get_arr_n(f, idx); /* 1..INT32_MAX (vocab_find_array): every rank is an int32 */
    size_t total = 0;
    for (int32_t i = 0; i < bpe->n_merges; i++) {
        const struct gguf_str s = gguf_get_arr_str(f, idx, (uint64_t) i);
        const char *space = s.len > 1 ? memchr(s.data + 1, ' ', s.len - 1) : NULL;
        if (s.len > INT32_MAX) {
            vnpu_log_error("%s: %s[%" PRId32 "] is %" PRIu64 " bytes long, at most %d", gguf_path(f), key, i, s.len,
                           INT32_MAX);
            return VNPU_STATUS_BAD_FILE;
        }
        if (!space || space == s.data + s.len - 1) {
            vnpu_log_error("%s: %s[%" PRId32 "] '%.*s' is not two parts split by a space (\"left right\")",
                           gguf_path(f), key, i, (int) (s.len > 64 ? 64 : s.len), s.data);
            return VNPU_STATUS_BAD_FILE;
        }
        total += (size_t) s.len; /* each string lies inside the mapped file, so the sum is bounded by its size */
    }
    size_t size = 16;
    while (size < 2 * (size_t) bpe->n_merges) {
        size *= 2;
    }
    bpe->merge_texts = malloc(total ? total : 1);
    bpe->merges = malloc((size_t) bpe->n_merges * sizeof(*bpe->merges));
    bpe->merge_map = malloc(size * sizeof(*bpe->merge_map));
    if (!bpe->merge_texts || !bpe->merges || !bpe->merge_map) {
        vnpu_log_error("%s: cannot allocate %" PRId32 " merges (%zu bytes of text, %zu slots)", gguf_path(f),
                       bpe->n_merges, total, size);
        return VNPU_STATUS_NO_MEMORY;
    }
    memset(bpe->merge_map, 0xff, size * sizeof(*bpe->merge_map));
    bpe->merge_mask = size - 1;
    size_t off = 0;
    for (int32_t i = 0; i < bpe->n_merges; i++) {
        const struct gguf_str s = gguf_get_arr_str(f, idx, (uint64_t) i);
        const size_t n_left = (size_t) ((const char *) memchr(s.data + 1, ' ', s.len - 1) - s.data);
        memcpy(bpe->merge_texts + off, s.data, s.len);
        bpe->merges[i] =
            (struct bpe_merge){.off = off, .n_left = (uint32_t) n_left, .n_right = (uint32_t) (s.len - n_left - 1)};
        const char *t = bpe->merge_texts + off;
        int32_t *slot = merge_slot(bpe, vnpu_fnv1a64(t, s.len), t, n_left, t + n_left + 1, s.len - n_left - 1);
        if (*slot < 0) {
            *slot = i;
        }
        off += s.len;
    }
    return VNPU_STATUS_OK;
}

/* ---- loading ---- */

static enum vnpu_status pre_read(struct vocab_bpe *bpe, const struct gguf_file *f) {
    static const char key[] = "tokenizer.ggml.pre";
    int64_t idx;
    const enum vnpu_status st = vocab_find_key(f, key, GGUF_TYPE_STRING, &idx);
    if (st != VNPU_STATUS_OK) {
        return st;
    }
    if (idx < 0) {
        vnpu_log_warn("%s: no %s: the 'default' pre-tokenizer, as llama.cpp uses then (it warns that generation "
                      "quality will suffer; reconverting the model writes the key)",
                      gguf_path(f), key);
        bpe->pre = &pre_types[0];
        return VNPU_STATUS_OK;
    }
    const struct gguf_str pre = gguf_get_str(f, idx);
    for (size_t i = 0; i < N_PRE_TYPES; i++) {
        if (strlen(pre_types[i].name) == pre.len && memcmp(pre_types[i].name, pre.data, pre.len) == 0) {
            bpe->pre = &pre_types[i];
            return VNPU_STATUS_OK;
        }
    }
    char known[1024] = "";
    for (size_t i = 0; i < N_PRE_TYPES; i++) {
        const size_t n = strlen(known);
        snprintf(known + n, sizeof(known) - n, "%s%s", i ? ", " : "", pre_types[i].name);
    }
    vnpu_log_error("%s: %s is '%.*s', a pre-tokenizer vnpu does not know (it knows %s)", gguf_path(f), key,
                   (int) (pre.len > 64 ? 64 : pre.len), pre.data, known);
    return VNPU_STATUS_UNSUPPORTED;
}

enum vnpu_status vocab_bpe_load(struct vnpu_vocab *vocab, const struct gguf_file *f, bool *add_bos) {
    struct vocab_bpe *bpe = &vocab->bpe;
    enum vnpu_status st = pre_read(bpe, f);
    if (st == VNPU_STATUS_OK) {
        st = pretok_new(bpe->pre->regexes, bpe->pre->n_regexes, &bpe->pretok);
    }
    if (st == VNPU_STATUS_OK) {
        st = merges_read(bpe, f);
    }
    *add_bos = st == VNPU_STATUS_OK && bpe->pre->add_bos;
    return st;
}

/* The piece of NORMAL token t (llama_decode_text) into out when not NULL; returns its length, or 0 (logged) when the
 * token holds a codepoint past U+10FFFF or its piece would pass INT32_MAX bytes. */
static size_t normal_piece(const struct vocab_token *t, uint32_t *cpts, char *out, const struct gguf_file *f,
                           int32_t id) {
    const size_t n = unicode_decode(t->text, t->len, cpts);
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        if (cpts[i] > UNICODE_MAX) {
            vnpu_log_error("%s: tokenizer.ggml.tokens[%" PRId32 "] holds U+%" PRIX32 ", past U+10FFFF (llama.cpp "
                           "aborts on it when it builds its pieces)",
                           gguf_path(f), id, cpts[i]);
            return 0;
        }
        const int byte = cpt_to_byte(cpts[i]);
        if (byte >= 0) {
            if (out) {
                out[len] = (char) byte;
            }
            len++;
            continue;
        }
        char utf8[4];
        const size_t k = unicode_encode(cpts[i], utf8);
        if (out) {
            memcpy(out + len, "[UNK_BYTE_0x", 12);
            for (size_t j = 0; j < k; j++) {
                snprintf(out + len + 12 + 2 * j, 3, "%02x", (uint8_t) utf8[j]);
            }
            memcpy(out + len + 12 + 2 * k, t->text, t->len);
            out[len + 12 + 2 * k + t->len] = ']';
        }
        len += 12 + 2 * k + t->len + 1;
        if (len > INT32_MAX) {
            vnpu_log_error("%s: tokenizer.ggml.tokens[%" PRId32 "]: its piece passes %d bytes", gguf_path(f), id,
                           INT32_MAX);
            return 0;
        }
    }
    return len;
}

enum vnpu_status vocab_bpe_pieces(struct vnpu_vocab *vocab, const struct gguf_file *f) {
    struct vocab_bpe *bpe = &vocab->bpe;
    for (int b = 0; b < 256; b++) {
        const char c = (char) b;
        bpe->byte_char[b] = vocab_text_to_token(vocab, &c, 1);
    }
    size_t longest = 1, total = 1;
    for (int32_t i = 0; i < vocab->n_tokens; i++) {
        longest = vocab->tokens[i].len > longest ? vocab->tokens[i].len : longest;
    }
    uint32_t *cpts = malloc(longest * sizeof(*cpts));
    enum vnpu_status st = cpts ? VNPU_STATUS_OK : VNPU_STATUS_NO_MEMORY;
    /* the pieces' total: INT32_MAX each at most, n_tokens of them, so it fits a 64-bit size_t */
    for (int32_t i = 0; st == VNPU_STATUS_OK && i < vocab->n_tokens; i++) {
        struct vocab_token *t = &vocab->tokens[i];
        if (t->type == VNPU_TOKEN_TYPE_NORMAL) {
            t->piece_len = normal_piece(t, cpts, NULL, f, i);
            st = t->piece_len > 0 ? VNPU_STATUS_OK : VNPU_STATUS_BAD_FILE;
            total += t->piece_len;
        }
    }
    if (st == VNPU_STATUS_OK && !(bpe->pieces = malloc(total))) {
        st = VNPU_STATUS_NO_MEMORY;
    }
    if (st == VNPU_STATUS_NO_MEMORY) {
        vnpu_log_error("%s: cannot allocate the pieces of %" PRId32 " tokens (%zu bytes)", gguf_path(f),
                       vocab->n_tokens, total);
    }
    size_t off = 0;
    for (int32_t i = 0; st == VNPU_STATUS_OK && i < vocab->n_tokens; i++) {
        struct vocab_token *t = &vocab->tokens[i];
        if (t->type == VNPU_TOKEN_TYPE_NORMAL) {
            t->piece = bpe->pieces + off;
            off += normal_piece(t, cpts, bpe->pieces + off, f, i);
        }
    }
    free(cpts);
    return st;
}

const char *vocab_bpe_pre_name(const struct vocab_bpe *bpe) {
    return bpe->pre->name;
}

void vocab_bpe_free(struct vocab_bpe *bpe) {
    pretok_free(bpe->pretok);
    free(bpe->merge_texts);
    free(bpe->merges);
    free(bpe->merge_map);
    free(bpe->pieces);
}

/* ---- tokenizing ---- */

enum vnpu_status bpe_tokenize(const struct vnpu_vocab *vocab, const char *text, size_t len, struct tokenize_session *s,
                              struct token_sink *sink) {
    const struct vocab_bpe *bpe = &vocab->bpe;
    if (len > s->cpts_cap) {
        free(s->cpts);
        s->cpts = malloc(len * sizeof(*s->cpts));
        s->cpts_cap = s->cpts ? len : 0;
        if (!s->cpts) {
            vnpu_log_error("tokenize: cannot allocate %zu codepoints", len);
            return VNPU_STATUS_NO_MEMORY;
        }
    }
    const size_t n = unicode_decode(text, len, s->cpts);
    for (size_t i = 0; i < n; i++) {
        if (s->cpts[i] > UNICODE_MAX) {
            vnpu_log_error("tokenize: the text holds a 4-byte UTF-8 sequence for U+%" PRIX32 ", past U+10FFFF, which "
                           "llama.cpp's BPE throws on",
                           s->cpts[i]);
            return VNPU_STATUS_BAD_ARG;
        }
    }
    const size_t *pieces;
    size_t n_pieces;
    enum vnpu_status st = pretok_split(bpe->pretok, s->cpts, n, &s->pretok, &pieces, &n_pieces);
    /* a codepoint is at most 4 bytes of UTF-8, each spelled in at most 2: 8 bytes (len <= INT32_MAX) */
    if (st == VNPU_STATUS_OK && !tokenize_session_text(s, 8 * n)) {
        st = VNPU_STATUS_NO_MEMORY;
    }
    const uint32_t *cpt = s->cpts;
    for (size_t k = 0; st == VNPU_STATUS_OK && k < n_pieces; k++) {
        size_t word = 0;
        for (size_t i = 0; i < pieces[k]; i++) {
            char utf8[4];
            const size_t m = unicode_encode(*cpt++, utf8);
            for (size_t j = 0; j < m; j++) {
                word += unicode_encode(byte_to_cpt((uint8_t) utf8[j]), s->text + word);
            }
        }
        const vnpu_token token = bpe->pre->ignore_merges ? vocab_text_to_token(vocab, s->text, word) : -1;
        if (token >= 0) {
            token_sink_push(sink, token);
        } else {
            st = merge_tokenize(vocab, &s->merge, s->text, word, sink);
        }
    }
    return st;
}
