/*
 * The vocabulary of a GGUF model: the tokenizer.ggml.* keys read and validated into a token table (texts,
 * scores, types, a hash map from text to id), the special tokens, the end-of-generation set and the byte
 * fallback, as llama.cpp's llama_vocab::impl::load does for tokenizer.ggml.model "llama" (SPM) and "gpt2" (BPE,
 * whose pre-tokenizer and merges vocab-bpe.c reads) (src/llama-vocab.cpp, llama.cpp v0.4.0 as pinned by the
 * oracle). Tokenizing with the table is vocab-tokenize.c's.
 */
#include "vocab-impl.h"

#include "hash.h"
#include "log.h"

#include <assert.h>
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The keys naming special tokens, in llama.cpp's order: a later row overrides an earlier one with the same
 * target (the deprecated prefix/suffix/middle names come last). */
static const struct {
    const char *key;
    enum vocab_special id;
} special_keys[] = {
    {"tokenizer.ggml.bos_token_id", VOCAB_SPECIAL_BOS},
    {"tokenizer.ggml.eos_token_id", VOCAB_SPECIAL_EOS},
    {"tokenizer.ggml.eot_token_id", VOCAB_SPECIAL_EOT},
    {"tokenizer.ggml.eom_token_id", VOCAB_SPECIAL_EOM},
    {"tokenizer.ggml.unknown_token_id", VOCAB_SPECIAL_UNK},
    {"tokenizer.ggml.seperator_token_id", VOCAB_SPECIAL_SEP}, /* sic, as GGUF spells it */
    {"tokenizer.ggml.padding_token_id", VOCAB_SPECIAL_PAD},
    {"tokenizer.ggml.mask_token_id", VOCAB_SPECIAL_MASK},
    {"tokenizer.ggml.fim_pre_token_id", VOCAB_SPECIAL_FIM_PRE},
    {"tokenizer.ggml.fim_suf_token_id", VOCAB_SPECIAL_FIM_SUF},
    {"tokenizer.ggml.fim_mid_token_id", VOCAB_SPECIAL_FIM_MID},
    {"tokenizer.ggml.fim_pad_token_id", VOCAB_SPECIAL_FIM_PAD},
    {"tokenizer.ggml.fim_rep_token_id", VOCAB_SPECIAL_FIM_REP},
    {"tokenizer.ggml.fim_sep_token_id", VOCAB_SPECIAL_FIM_SEP},
    {"tokenizer.ggml.prefix_token_id", VOCAB_SPECIAL_FIM_PRE},
    {"tokenizer.ggml.suffix_token_id", VOCAB_SPECIAL_FIM_SUF},
    {"tokenizer.ggml.middle_token_id", VOCAB_SPECIAL_FIM_MID},
};

#define FW_BAR "\xef\xbd\x9c" /* U+FF5C FULLWIDTH VERTICAL LINE, in DeepSeek's special tokens */

/* Texts by which llama.cpp finds a special token the keys do not name ("auto-detect special tokens by
 * text"); the first text of a target present in the vocabulary wins, and that token becomes CONTROL.
 * llama.cpp scans a hash map, so among several present texts its pick is unspecified. */
static const struct {
    enum vocab_special id;
    const char *text;
} special_texts[] = {
    {VOCAB_SPECIAL_EOT, "<|eot_id|>"},
    {VOCAB_SPECIAL_EOT, "<|im_end|>"},
    {VOCAB_SPECIAL_EOT, "<|end|>"},
    {VOCAB_SPECIAL_EOT, "<end_of_turn>"},
    {VOCAB_SPECIAL_EOT, "<|endoftext|>"},
    {VOCAB_SPECIAL_EOT, "<|end_of_text|>"},
    {VOCAB_SPECIAL_EOT, "<EOT>"},
    {VOCAB_SPECIAL_EOT, "_<EOT>"},
    {VOCAB_SPECIAL_EOT, "[EOT]"},
    {VOCAB_SPECIAL_EOT, "<" FW_BAR "end" SPM_SPACE "of" SPM_SPACE "sentence" FW_BAR ">"}, /* DeepSeek */
    {VOCAB_SPECIAL_EOT, "<end_of_utterance>"},
    {VOCAB_SPECIAL_EOM, "<|eom_id|>"},
    {VOCAB_SPECIAL_FIM_PRE, "<|fim_prefix|>"},
    {VOCAB_SPECIAL_FIM_PRE, "<fim-prefix>"},
    {VOCAB_SPECIAL_FIM_PRE, "<fim_prefix>"},
    {VOCAB_SPECIAL_FIM_PRE, "<" FW_BAR "fim" SPM_SPACE "begin" FW_BAR ">"},
    {VOCAB_SPECIAL_FIM_PRE, "<PRE>"},
    {VOCAB_SPECIAL_FIM_PRE, SPM_SPACE "<PRE>"},
    {VOCAB_SPECIAL_FIM_PRE, "<|code_prefix|>"},
    {VOCAB_SPECIAL_FIM_PRE, "<|prefix|>"},
    {VOCAB_SPECIAL_FIM_SUF, "<|fim_suffix|>"},
    {VOCAB_SPECIAL_FIM_SUF, "<fim-suffix>"},
    {VOCAB_SPECIAL_FIM_SUF, "<fim_suffix>"},
    {VOCAB_SPECIAL_FIM_SUF, "<" FW_BAR "fim" SPM_SPACE "hole" FW_BAR ">"},
    {VOCAB_SPECIAL_FIM_SUF, "<SUF>"},
    {VOCAB_SPECIAL_FIM_SUF, SPM_SPACE "<SUF>"},
    {VOCAB_SPECIAL_FIM_SUF, "<|code_suffix|>"},
    {VOCAB_SPECIAL_FIM_SUF, "<|suffix|>"},
    {VOCAB_SPECIAL_FIM_MID, "<|fim_middle|>"},
    {VOCAB_SPECIAL_FIM_MID, "<fim-middle>"},
    {VOCAB_SPECIAL_FIM_MID, "<fim_middle>"},
    {VOCAB_SPECIAL_FIM_MID, "<" FW_BAR "fim" SPM_SPACE "end" FW_BAR ">"},
    {VOCAB_SPECIAL_FIM_MID, "<MID>"},
    {VOCAB_SPECIAL_FIM_MID, SPM_SPACE "<MID>"},
    {VOCAB_SPECIAL_FIM_MID, "<|code_middle|>"},
    {VOCAB_SPECIAL_FIM_MID, "<|middle|>"},
    {VOCAB_SPECIAL_FIM_PAD, "<|fim_pad|>"},
    {VOCAB_SPECIAL_FIM_PAD, "<fim-pad>"},
    {VOCAB_SPECIAL_FIM_PAD, "<fim_pad>"},
    {VOCAB_SPECIAL_FIM_PAD, "<PAD>"},
    {VOCAB_SPECIAL_FIM_PAD, "[PAD]"},
    {VOCAB_SPECIAL_FIM_REP, "<|fim_repo|>"},
    {VOCAB_SPECIAL_FIM_REP, "<|repo_name|>"},
    {VOCAB_SPECIAL_FIM_REP, "<fim-repo>"},
    {VOCAB_SPECIAL_FIM_REP, "<REPO>"},
    {VOCAB_SPECIAL_FIM_REP, "<reponame>"},
    {VOCAB_SPECIAL_FIM_SEP, "<|file_sep|>"},
};

/* Texts that end generation whatever the keys say (llama.cpp's special_eog_ids); they become CONTROL. llama.cpp's
 * exceptions for tokenizers vnpu does not load (gpt-oss and Solar Open's <|end|>, Gemma 4's </s>) do not apply. */
static const char *const eog_texts[] = {
    "<|eot_id|>",
    "<|im_end|>",
    "<|end|>",
    "<|return|>",
    "<|call|>",
    "<|flush|>",
    "<|calls|>",
    "<end_of_turn>",
    "<|endoftext|>",
    "</s>",
    "<|eom_id|>",
    "<EOT>",
    "_<EOT>",
    "[EOT]",
    "[EOS]",
    "<|end_of_text|>",
    "<end_of_utterance>",
    "<eos>",
    "<turn|>",
    "<|tool_response>",
    "<" FW_BAR "end" SPM_SPACE "of" SPM_SPACE "sentence" FW_BAR ">",
    "[e~[",
};

/* Special tokens whose ids end generation besides the texts above. */
static const enum vocab_special eog_specials[] = {
    VOCAB_SPECIAL_EOS,     VOCAB_SPECIAL_EOT,     VOCAB_SPECIAL_EOM,
    VOCAB_SPECIAL_FIM_PAD, VOCAB_SPECIAL_FIM_REP, VOCAB_SPECIAL_FIM_SEP,
};

static_assert(sizeof(eog_texts) / sizeof(eog_texts[0]) + sizeof(eog_specials) / sizeof(eog_specials[0]) <=
                  VOCAB_MAX_EOG,
              "VOCAB_MAX_EOG (vocab-impl.h) must hold every end-of-generation token");

/* ---- token texts: hash map ---- */

vnpu_token vocab_text_to_token(const struct vnpu_vocab *vocab, const char *text, size_t len) {
    for (size_t i = vnpu_fnv1a64(text, len) & vocab->map_mask;; i = (i + 1) & vocab->map_mask) {
        const int32_t id = vocab->map[i];
        if (id < 0) {
            return -1;
        }
        const struct vocab_token *t = &vocab->tokens[id];
        if (t->len == len && memcmp(t->text, text, len) == 0) {
            return id;
        }
    }
}

static vnpu_token vocab_find_cstr(const struct vnpu_vocab *vocab, const char *text) {
    return vocab_text_to_token(vocab, text, strlen(text));
}

/* ---- loading ---- */

enum vnpu_status vocab_find_key(const struct gguf_file *f, const char *key, enum gguf_type type, int64_t *idx) {
    *idx = gguf_find_key(f, key);
    if (*idx >= 0 && gguf_kv_type(f, *idx) != type) {
        vnpu_log_error("%s: %s has type %s, expected %s", gguf_path(f), key, gguf_type_name(gguf_kv_type(f, *idx)),
                       gguf_type_name(type));
        return VNPU_STATUS_BAD_FILE;
    }
    return VNPU_STATUS_OK;
}

enum vnpu_status vocab_find_array(const struct gguf_file *f, const char *key, enum gguf_type elem_type, uint64_t n,
                                  int64_t *idx) {
    enum vnpu_status st = vocab_find_key(f, key, GGUF_TYPE_ARRAY, idx);
    if (st != VNPU_STATUS_OK || *idx < 0) {
        return st;
    }
    const enum gguf_type got = gguf_get_arr_type(f, *idx);
    const uint64_t got_n = gguf_get_arr_n(f, *idx);
    if (got != elem_type) {
        vnpu_log_error("%s: %s is an array of %s, expected an array of %s", gguf_path(f), key, gguf_type_name(got),
                       gguf_type_name(elem_type));
        return VNPU_STATUS_BAD_FILE;
    }
    if (n == 0 && (got_n == 0 || got_n > INT32_MAX)) {
        vnpu_log_error("%s: %s has %" PRIu64 " elements, expected 1..%d", gguf_path(f), key, got_n, INT32_MAX);
        return VNPU_STATUS_BAD_FILE;
    }
    if (n != 0 && got_n != n) {
        vnpu_log_error("%s: %s has %" PRIu64 " elements, expected %" PRIu64 " (one per token of tokenizer.ggml.tokens)",
                       gguf_path(f), key, got_n, n);
        return VNPU_STATUS_BAD_FILE;
    }
    return VNPU_STATUS_OK;
}

/* tokenizer.ggml.model: "llama" (SPM) or "gpt2" (BPE); tokenizer.ggml.pre, when present, must be a string whatever
 * the model (llama.cpp reads it for every model; vocab-bpe.c reads its value). */
static enum vnpu_status vocab_read_model(struct vnpu_vocab *v, const struct gguf_file *f) {
    static const char key[] = "tokenizer.ggml.model";
    int64_t idx, pre_idx;
    enum vnpu_status st = vocab_find_key(f, key, GGUF_TYPE_STRING, &idx);
    if (st == VNPU_STATUS_OK) {
        st = vocab_find_key(f, "tokenizer.ggml.pre", GGUF_TYPE_STRING, &pre_idx);
    }
    if (st != VNPU_STATUS_OK) {
        return st;
    }
    if (idx < 0) {
        vnpu_log_error("%s: missing key %s", gguf_path(f), key);
        return VNPU_STATUS_BAD_FILE;
    }
    const struct gguf_str model = gguf_get_str(f, idx);
    if (model.len == 5 && memcmp(model.data, "llama", 5) == 0) {
        v->type = VOCAB_TYPE_SPM;
    } else if (model.len == 4 && memcmp(model.data, "gpt2", 4) == 0) {
        v->type = VOCAB_TYPE_BPE;
    } else {
        vnpu_log_error("%s: %s is '%.*s'; vnpu supports 'llama' (SPM) and 'gpt2' (BPE)", gguf_path(f), key,
                       (int) (model.len > 64 ? 64 : model.len), model.data);
        return VNPU_STATUS_UNSUPPORTED;
    }
    return VNPU_STATUS_OK;
}

/* Copy the token texts into one block (empty texts become "[EMPTY_<id>]", as llama.cpp names them). */
static enum vnpu_status vocab_read_texts(struct vnpu_vocab *v, const struct gguf_file *f, int64_t idx) {
    char empty[32];
    size_t total = 0;
    int32_t n_empty = 0;
    for (int32_t i = 0; i < v->n_tokens; i++) {
        const uint64_t len = gguf_get_arr_str(f, idx, (uint64_t) i).len;
        if (len > INT32_MAX) { /* token_to_piece returns the length as an int32_t */
            vnpu_log_error("%s: tokenizer.ggml.tokens[%" PRId32 "] is %" PRIu64 " bytes long, at most %d", gguf_path(f),
                           i, len, INT32_MAX);
            return VNPU_STATUS_BAD_FILE;
        }
        n_empty += len == 0;
        /* each text lies inside the mapped file, so the sum is bounded by the file size */
        total += (len ? (size_t) len : (size_t) snprintf(empty, sizeof(empty), "[EMPTY_%" PRId32 "]", i)) + 1;
    }
    v->texts = malloc(total);
    if (!v->texts) {
        vnpu_log_error("%s: cannot allocate %zu bytes for %" PRId32 " token texts", gguf_path(f), total, v->n_tokens);
        return VNPU_STATUS_NO_MEMORY;
    }
    char *p = v->texts;
    for (int32_t i = 0; i < v->n_tokens; i++) {
        const struct gguf_str s = gguf_get_arr_str(f, idx, (uint64_t) i);
        struct vocab_token *t = &v->tokens[i];
        t->text = p;
        if (s.len) {
            t->len = (size_t) s.len;
            memcpy(p, s.data, t->len);
        } else {
            t->len = (size_t) snprintf(p, sizeof(empty), "[EMPTY_%" PRId32 "]", i);
        }
        p[t->len] = '\0';
        p += t->len + 1;
    }
    if (n_empty) {
        vnpu_log_warn("%s: tokenizer.ggml.tokens: %" PRId32 " empty tokens, named [EMPTY_<id>] as llama.cpp does",
                      gguf_path(f), n_empty);
    }
    return VNPU_STATUS_OK;
}

static enum vnpu_status vocab_build_map(struct vnpu_vocab *v, const struct gguf_file *f) {
    size_t size = 16;
    while (size < 2 * (size_t) v->n_tokens) {
        size *= 2;
    }
    v->map = malloc(size * sizeof(*v->map));
    if (!v->map) {
        vnpu_log_error("%s: cannot allocate the token map (%zu slots)", gguf_path(f), size);
        return VNPU_STATUS_NO_MEMORY;
    }
    memset(v->map, 0xff, size * sizeof(*v->map));
    v->map_mask = size - 1;
    for (int32_t id = 0; id < v->n_tokens; id++) {
        const struct vocab_token *t = &v->tokens[id];
        size_t i = vnpu_fnv1a64(t->text, t->len) & v->map_mask;
        for (; v->map[i] >= 0; i = (i + 1) & v->map_mask) {
            const struct vocab_token *o = &v->tokens[v->map[i]];
            if (o->len == t->len && memcmp(o->text, t->text, t->len) == 0) {
                vnpu_log_error("%s: tokenizer.ggml.tokens: token %" PRId32 " '%.*s' repeats token %" PRId32,
                               gguf_path(f), id, (int) (t->len > 64 ? 64 : t->len), t->text, v->map[i]);
                return VNPU_STATUS_BAD_FILE;
            }
        }
        v->map[i] = id;
    }
    return VNPU_STATUS_OK;
}

static int hex_digit(char c) {
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                  : -1;
}

/* Scores (f32, NaN rejected) and token types (i32, 0..6; BYTE tokens spelled <0xXX>); both optional, as in
 * llama.cpp: without them every score is 0 and every token NORMAL. */
static enum vnpu_status vocab_read_attrs(struct vnpu_vocab *v, const struct gguf_file *f) {
    const uint64_t n = (uint64_t) v->n_tokens;
    int64_t score_idx, type_idx;
    enum vnpu_status st = vocab_find_array(f, "tokenizer.ggml.scores", GGUF_TYPE_FLOAT32, n, &score_idx);
    if (st == VNPU_STATUS_OK) {
        st = vocab_find_array(f, "tokenizer.ggml.token_type", GGUF_TYPE_INT32, n, &type_idx);
    }
    if (st != VNPU_STATUS_OK) {
        return st;
    }
    const char *scores = score_idx >= 0 ? gguf_get_arr_data(f, score_idx) : NULL;
    const char *types = type_idx >= 0 ? gguf_get_arr_data(f, type_idx) : NULL;
    for (int32_t i = 0; i < v->n_tokens; i++) {
        struct vocab_token *t = &v->tokens[i];
        t->score = 0.0f;
        t->type = VNPU_TOKEN_TYPE_NORMAL;
        if (scores) {
            memcpy(&t->score, scores + 4 * (size_t) i, 4);
            if (isnan(t->score)) {
                vnpu_log_error("%s: tokenizer.ggml.scores[%" PRId32 "] is NaN", gguf_path(f), i);
                return VNPU_STATUS_BAD_FILE;
            }
        }
        if (types) {
            int32_t type;
            memcpy(&type, types + 4 * (size_t) i, 4);
            if (type < VNPU_TOKEN_TYPE_UNDEFINED || type > VNPU_TOKEN_TYPE_BYTE) {
                vnpu_log_error("%s: tokenizer.ggml.token_type[%" PRId32 "] = %" PRId32 ", expected 0..6", gguf_path(f),
                               i, type);
                return VNPU_STATUS_BAD_FILE;
            }
            t->type = (enum vnpu_token_type) type;
        }
        if (t->type == VNPU_TOKEN_TYPE_BYTE) {
            const int hi = t->len == 6 ? hex_digit(t->text[3]) : -1;
            const int lo = t->len == 6 ? hex_digit(t->text[4]) : -1;
            if (hi < 0 || lo < 0 || memcmp(t->text, "<0x", 3) != 0 || t->text[5] != '>') {
                vnpu_log_error("%s: tokenizer.ggml.tokens[%" PRId32 "] '%.*s' has token_type BYTE but is not spelled "
                               "<0xXX>",
                               gguf_path(f), i, (int) (t->len > 64 ? 64 : t->len), t->text);
                return VNPU_STATUS_BAD_FILE;
            }
            t->byte = (uint8_t) (hi * 16 + lo);
        }
    }
    return VNPU_STATUS_OK;
}

/* Special ids: llama.cpp's defaults when the vocabulary has them (SPM: unk 0, bos 1, eos 2; BPE: bos and eos 11, no
 * unk), then the keys: an id in range, or 0xFFFFFFFF / -1 for none. */
static enum vnpu_status vocab_read_special_ids(struct vnpu_vocab *v, const struct gguf_file *f) {
    for (int i = 0; i < VOCAB_SPECIAL_COUNT; i++) {
        v->special[i] = -1;
    }
    switch (v->type) {
        case VOCAB_TYPE_SPM:
            v->special[VOCAB_SPECIAL_UNK] = 0;
            v->special[VOCAB_SPECIAL_BOS] = v->n_tokens > 1 ? 1 : -1;
            v->special[VOCAB_SPECIAL_EOS] = v->n_tokens > 2 ? 2 : -1;
            break;
        case VOCAB_TYPE_BPE:
            v->special[VOCAB_SPECIAL_BOS] = v->n_tokens > 11 ? 11 : -1;
            v->special[VOCAB_SPECIAL_EOS] = v->n_tokens > 11 ? 11 : -1;
            break;
    }
    for (size_t k = 0; k < sizeof(special_keys) / sizeof(special_keys[0]); k++) {
        const char *key = special_keys[k].key;
        const int64_t idx = gguf_find_key(f, key);
        if (idx < 0) {
            continue;
        }
        int64_t id;
        if (!gguf_get_int(f, idx, &id)) {
            if (gguf_kv_type(f, idx) == GGUF_TYPE_UINT64) { /* an integer, past INT64_MAX */
                vnpu_log_error("%s: %s = %" PRIu64 ", expected 0..%" PRId32 " or 0xFFFFFFFF (none)", gguf_path(f), key,
                               gguf_get_u64(f, idx), v->n_tokens - 1);
            } else {
                vnpu_log_error("%s: %s has type %s, expected an integer", gguf_path(f), key,
                               gguf_type_name(gguf_kv_type(f, idx)));
            }
            return VNPU_STATUS_BAD_FILE;
        }
        if (id == 0xFFFFFFFF || id == -1) {
            v->special[special_keys[k].id] = -1;
        } else if (id >= 0 && id < v->n_tokens) {
            v->special[special_keys[k].id] = (vnpu_token) id;
        } else {
            vnpu_log_error("%s: %s = %" PRId64 ", expected 0..%" PRId32 " or 0xFFFFFFFF (none)", gguf_path(f), key, id,
                           v->n_tokens - 1);
            return VNPU_STATUS_BAD_FILE;
        }
    }
    return VNPU_STATUS_OK;
}

static enum vnpu_status vocab_read_bool(const struct gguf_file *f, const char *key, bool def, bool *value) {
    int64_t idx;
    enum vnpu_status st = vocab_find_key(f, key, GGUF_TYPE_BOOL, &idx);
    *value = st == VNPU_STATUS_OK && idx >= 0 ? gguf_get_bool(f, idx) : def;
    return st;
}

/* add_bos_token (default add_bos: SPM true, BPE its pre-tokenizer's), add_eos_token (false) and add_space_prefix (SPM
 * true, BPE false). */
static enum vnpu_status vocab_read_flags(struct vnpu_vocab *v, const struct gguf_file *f, bool add_bos) {
    enum vnpu_status st = vocab_read_bool(f, "tokenizer.ggml.add_bos_token", add_bos, &v->add_bos);
    if (st == VNPU_STATUS_OK) {
        st = vocab_read_bool(f, "tokenizer.ggml.add_eos_token", false, &v->add_eos);
    }
    if (st == VNPU_STATUS_OK) {
        st = vocab_read_bool(f, "tokenizer.ggml.add_space_prefix", v->type == VOCAB_TYPE_SPM, &v->add_space_prefix);
    }
    if (st != VNPU_STATUS_OK) {
        return st;
    }
    if (v->add_bos && v->special[VOCAB_SPECIAL_BOS] < 0) {
        vnpu_log_error("%s: tokenizer.ggml.add_bos_token is true but tokenizer.ggml.bos_token_id names no token",
                       gguf_path(f));
        return VNPU_STATUS_BAD_FILE;
    }
    if (v->add_eos && v->special[VOCAB_SPECIAL_EOS] < 0) {
        vnpu_log_error("%s: tokenizer.ggml.add_eos_token is true but tokenizer.ggml.eos_token_id names no token",
                       gguf_path(f));
        return VNPU_STATUS_BAD_FILE;
    }
    return VNPU_STATUS_OK;
}

/* Special tokens found by text, the CONTROL override of their tokens, and the end-of-generation set. */
static void vocab_find_special_texts(struct vnpu_vocab *v) {
    for (size_t k = 0; k < sizeof(special_texts) / sizeof(special_texts[0]); k++) {
        const enum vocab_special id = special_texts[k].id;
        const vnpu_token token = vocab_find_cstr(v, special_texts[k].text);
        if (v->special[id] < 0 && token >= 0) {
            v->special[id] = token;
            v->tokens[token].type = VNPU_TOKEN_TYPE_CONTROL;
        }
    }
    v->n_eog = 0;
    for (size_t k = 0; k < sizeof(eog_texts) / sizeof(eog_texts[0]); k++) {
        const vnpu_token token = vocab_find_cstr(v, eog_texts[k]);
        if (token >= 0) {
            v->tokens[token].type = VNPU_TOKEN_TYPE_CONTROL;
            v->eog[v->n_eog++] = token;
        }
    }
    for (size_t k = 0; k < sizeof(eog_specials) / sizeof(eog_specials[0]); k++) {
        const vnpu_token token = v->special[eog_specials[k]];
        if (token >= 0 && !vnpu_vocab_is_eog(v, token)) {
            v->eog[v->n_eog++] = token;
        }
    }
}

static bool vocab_is_matchable(enum vnpu_token_type type) {
    switch (type) {
        case VNPU_TOKEN_TYPE_CONTROL:
        case VNPU_TOKEN_TYPE_USER_DEFINED:
        case VNPU_TOKEN_TYPE_UNKNOWN: return true;
        case VNPU_TOKEN_TYPE_UNDEFINED:
        case VNPU_TOKEN_TYPE_NORMAL:
        case VNPU_TOKEN_TYPE_UNUSED:
        case VNPU_TOKEN_TYPE_BYTE: return false;
    }
    return false;
}

struct matchable_key {
    size_t len;
    vnpu_token id;
};

static int matchable_cmp(const void *pa, const void *pb) {
    const struct matchable_key *a = pa, *b = pb;
    if (a->len != b->len) {
        return a->len > b->len ? -1 : 1;
    }
    return (a->id > b->id) - (a->id < b->id);
}

/* The tokens a text can name literally (llama.cpp's cache_special_tokens), longest first so that a longer
 * token wins over a shorter one it contains; llama.cpp leaves the order of equal lengths unspecified. */
static enum vnpu_status vocab_build_matchable(struct vnpu_vocab *v, const struct gguf_file *f) {
    int32_t n = 0;
    for (int32_t id = 0; id < v->n_tokens; id++) {
        n += vocab_is_matchable(v->tokens[id].type);
    }
    struct matchable_key *keys = malloc((size_t) (n ? n : 1) * sizeof(*keys));
    v->matchable = malloc((size_t) (n ? n : 1) * sizeof(*v->matchable));
    if (!keys || !v->matchable) {
        free(keys);
        vnpu_log_error("%s: cannot allocate the list of %" PRId32 " special tokens", gguf_path(f), n);
        return VNPU_STATUS_NO_MEMORY;
    }
    int32_t j = 0;
    for (int32_t id = 0; id < v->n_tokens; id++) {
        if (vocab_is_matchable(v->tokens[id].type)) {
            keys[j++] = (struct matchable_key){.len = v->tokens[id].len, .id = id};
        }
    }
    qsort(keys, (size_t) n, sizeof(*keys), matchable_cmp);
    for (int32_t i = 0; i < n; i++) {
        v->matchable[i] = keys[i].id;
    }
    v->n_matchable = n;
    free(keys);
    return VNPU_STATUS_OK;
}

/* True when needle (lower case) occurs in s, ignoring case. */
static bool str_contains_nocase(struct gguf_str s, const char *needle) {
    const size_t n = strlen(needle);
    for (uint64_t i = 0; i + n <= s.len; i++) {
        size_t j = 0;
        while (j < n && tolower((unsigned char) s.data[i + j]) == needle[j]) {
            j++;
        }
        if (j == n) {
            return true;
        }
    }
    return false;
}

/* llama.cpp's per-model token attributes for SPM vocabularies: a general.name containing "phi-3" or "phi3"
 * (any case) makes every special token but <unk>, <s> and <|endoftext|> eat the whitespace after it. */
static void vocab_apply_model_attrs(struct vnpu_vocab *v, const struct gguf_file *f) {
    const int64_t idx = gguf_find_key(f, "general.name");
    if (idx < 0 || gguf_kv_type(f, idx) != GGUF_TYPE_STRING) {
        return;
    }
    const struct gguf_str name = gguf_get_str(f, idx);
    const bool phi3 = str_contains_nocase(name, "phi-3") || str_contains_nocase(name, "phi3");
    if (!phi3) {
        return;
    }
    for (int32_t i = 0; i < v->n_matchable; i++) {
        v->tokens[v->matchable[i]].rstrip = true;
    }
    static const struct {
        const char *text;
        bool rstrip;
    } rules[] = {{"</s>", true}, {"<unk>", false}, {"<s>", false}, {"<|endoftext|>", false}};
    for (size_t k = 0; k < sizeof(rules) / sizeof(rules[0]); k++) {
        const vnpu_token token = vocab_find_cstr(v, rules[k].text);
        if (token >= 0) {
            v->tokens[token].rstrip = rules[k].rstrip;
        }
    }
}

/* The fallback token of every byte (llama_vocab::byte_to_token): "<0xXX>", else the one-byte text (not for
 * 0x00, which llama.cpp looks up as an empty string), else unk. llama.cpp throws when none exists; here
 * such a vocabulary is rejected at load. */
static enum vnpu_status vocab_build_byte_tokens(struct vnpu_vocab *v, const struct gguf_file *f) {
    for (int b = 0; b < 256; b++) {
        char text[8];
        snprintf(text, sizeof(text), "<0x%02X>", b);
        vnpu_token token = vocab_find_cstr(v, text);
        if (token < 0 && b != 0) {
            const char c = (char) b;
            token = vocab_text_to_token(v, &c, 1);
        }
        if (token < 0) {
            token = v->special[VOCAB_SPECIAL_UNK];
        }
        if (token < 0) {
            vnpu_log_error("%s: tokenizer.ggml.tokens has no %s token for byte fallback and "
                           "tokenizer.ggml.unknown_token_id names no token",
                           gguf_path(f), text);
            return VNPU_STATUS_BAD_FILE;
        }
        v->byte_token[b] = token;
    }
    return VNPU_STATUS_OK;
}

static enum vnpu_status vocab_read_tokens(struct vnpu_vocab *v, const struct gguf_file *f) {
    static const char key[] = "tokenizer.ggml.tokens";
    int64_t idx;
    enum vnpu_status st = vocab_find_array(f, key, GGUF_TYPE_STRING, 0, &idx);
    if (st != VNPU_STATUS_OK) {
        return st;
    }
    if (idx < 0) {
        vnpu_log_error("%s: missing key %s", gguf_path(f), key);
        return VNPU_STATUS_BAD_FILE;
    }
    v->n_tokens = (int32_t) gguf_get_arr_n(f, idx);
    v->tokens = calloc((size_t) v->n_tokens, sizeof(*v->tokens));
    if (!v->tokens) {
        vnpu_log_error("%s: cannot allocate %" PRId32 " tokens", gguf_path(f), v->n_tokens);
        return VNPU_STATUS_NO_MEMORY;
    }
    st = vocab_read_texts(v, f, idx);
    return st == VNPU_STATUS_OK ? vocab_build_map(v, f) : st;
}

enum vnpu_status vnpu_vocab_load(const struct gguf_file *f, struct vnpu_vocab **out) {
    *out = NULL;
    struct vnpu_vocab *v = calloc(1, sizeof(*v));
    if (!v) {
        vnpu_log_error("%s: cannot allocate the vocabulary", gguf_path(f));
        return VNPU_STATUS_NO_MEMORY;
    }
    bool add_bos = true; /* SPM's default; a BPE pre-tokenizer has its own */
    enum vnpu_status st = vocab_read_model(v, f);
    if (st == VNPU_STATUS_OK) {
        st = vocab_read_tokens(v, f);
    }
    if (st == VNPU_STATUS_OK) {
        st = vocab_read_attrs(v, f);
    }
    if (st == VNPU_STATUS_OK && v->type == VOCAB_TYPE_BPE) {
        st = vocab_bpe_load(v, f, &add_bos);
    }
    if (st == VNPU_STATUS_OK) {
        st = vocab_read_special_ids(v, f);
    }
    if (st == VNPU_STATUS_OK) {
        st = vocab_read_flags(v, f, add_bos);
    }
    if (st == VNPU_STATUS_OK) {
        vocab_find_special_texts(v);
        st = vocab_build_matchable(v, f);
    }
    if (st == VNPU_STATUS_OK) {
        vocab_apply_model_attrs(v, f);
        switch (v->type) {
            case VOCAB_TYPE_SPM: st = vocab_build_byte_tokens(v, f); break;
            case VOCAB_TYPE_BPE: st = vocab_bpe_pieces(v, f); break;
        }
    }
    if (st != VNPU_STATUS_OK) {
        vnpu_vocab_free(v);
        return st;
    }
    *out = v;
    return VNPU_STATUS_OK;
}

enum vnpu_status vnpu_vocab_load_file(const char *path, struct vnpu_vocab **vocab) {
    *vocab = NULL;
    struct gguf_file *f = NULL;
    enum vnpu_status st = gguf_open(path, &f);
    if (st == VNPU_STATUS_OK) {
        st = vnpu_vocab_load(f, vocab);
        gguf_close(f);
    }
    return st;
}

void vnpu_vocab_free(struct vnpu_vocab *vocab) {
    if (!vocab) {
        return;
    }
    vocab_bpe_free(&vocab->bpe);
    free(vocab->matchable);
    free(vocab->map);
    free(vocab->texts);
    free(vocab->tokens);
    free(vocab);
}

void vnpu_vocab_desc(const struct vnpu_vocab *vocab, char *buf, size_t size) {
    switch (vocab->type) {
        case VOCAB_TYPE_SPM: snprintf(buf, size, "llama (SPM, %" PRId32 " tokens)", vocab->n_tokens); break;
        case VOCAB_TYPE_BPE:
            snprintf(buf, size, "gpt2 (BPE, pre %s, %" PRId32 " tokens, %" PRId32 " merges)",
                     vocab_bpe_pre_name(&vocab->bpe), vocab->n_tokens, vocab->bpe.n_merges);
            break;
    }
}

int32_t vnpu_vocab_n_tokens(const struct vnpu_vocab *vocab) {
    return vocab->n_tokens;
}

vnpu_token vnpu_vocab_bos(const struct vnpu_vocab *vocab) {
    return vocab->special[VOCAB_SPECIAL_BOS];
}

vnpu_token vnpu_vocab_eos(const struct vnpu_vocab *vocab) {
    return vocab->special[VOCAB_SPECIAL_EOS];
}

bool vnpu_vocab_add_bos(const struct vnpu_vocab *vocab) {
    return vocab->add_bos;
}

bool vnpu_vocab_is_eog(const struct vnpu_vocab *vocab, vnpu_token token) {
    for (int32_t i = 0; i < vocab->n_eog; i++) {
        if (vocab->eog[i] == token) {
            return true;
        }
    }
    return false;
}
