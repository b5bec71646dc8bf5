/*
 * Text -> tokens and token -> piece for both tokenizer types, as llama.cpp's llama_vocab::impl::tokenize and
 * token_to_piece (src/llama-vocab.cpp), on a vocabulary built by vocab.c.
 *
 * Special tokens written in the text are cut out first (tokenizer_st_partition): CONTROL and UNKNOWN tokens when
 * parse_special is set, USER_DEFINED tokens always, longest text first. Each remaining run of plain text is then
 * tokenized on its own by the vocabulary's type: SPM (vocab-spm.c, a space prefixed to runs that start the text or
 * follow a special token when add_space_prefix) or BPE (vocab-bpe.c). BOS and EOS wrap the result when add_special
 * and the vocabulary adds them.
 */
#include "vocab-impl.h"

#include "log.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

bool tokenize_session_text(struct tokenize_session *s, size_t cap) {
    if (cap <= s->text_cap) {
        return true;
    }
    free(s->text);
    s->text = malloc(cap);
    s->text_cap = s->text ? cap : 0;
    if (!s->text) {
        vnpu_log_error("tokenize: cannot allocate %zu bytes of scratch text", cap);
    }
    return s->text != NULL;
}

static void tokenize_session_free(struct tokenize_session *s) {
    merge_session_free(&s->merge);
    pretok_scratch_free(&s->pretok);
    free(s->text);
    free(s->cpts);
}

/* ---- special tokens ---- */

/* A piece of the input: raw text [off, off + len), or a special token matched in it (token >= 0). */
struct fragment {
    size_t off;
    size_t len;
    vnpu_token token;
};

struct fragment_list {
    struct fragment *items;
    size_t n;
    size_t cap;
};

static bool fragment_push(struct fragment_list *l, struct fragment fr) {
    if (l->n == l->cap) {
        const size_t cap = l->cap ? 2 * l->cap : 16;
        struct fragment *items = realloc(l->items, cap * sizeof(*items));
        if (!items) {
            vnpu_log_error("tokenize: cannot allocate %zu text fragments", cap);
            return false;
        }
        l->items = items;
        l->cap = cap;
    }
    l->items[l->n++] = fr;
    return true;
}

/* Split every raw fragment of *list at each occurrence of the special token id (tokenizer_st_partition, one
 * token's pass): leftmost occurrences first, never overlapping; with rstrip the whitespace after a match is
 * dropped. *list and *scratch are swapped so that *list holds the result. */
static bool partition_pass(const struct vnpu_vocab *v, const char *text, vnpu_token id, struct fragment_list *list,
                           struct fragment_list *scratch) {
    const struct vocab_token *t = &v->tokens[id];
    scratch->n = 0;
    for (size_t i = 0; i < list->n; i++) {
        const struct fragment fr = list->items[i];
        if (fr.token >= 0) {
            if (!fragment_push(scratch, fr)) {
                return false;
            }
            continue;
        }
        size_t pos = fr.off;
        const size_t end = fr.off + fr.len;
        const char *match;
        while (pos < end && (match = memmem(text + pos, end - pos, t->text, t->len)) != NULL) {
            const size_t at = (size_t) (match - text);
            if ((at > pos && !fragment_push(scratch, (struct fragment){.off = pos, .len = at - pos, .token = -1})) ||
                !fragment_push(scratch, (struct fragment){.off = at, .len = t->len, .token = id})) {
                return false;
            }
            pos = at + t->len;
            while (t->rstrip && pos < end && isspace((unsigned char) text[pos])) {
                pos++;
            }
        }
        if (pos < end && !fragment_push(scratch, (struct fragment){.off = pos, .len = end - pos, .token = -1})) {
            return false;
        }
    }
    struct fragment_list tmp = *list;
    *list = *scratch;
    *scratch = tmp;
    return true;
}

/* The text cut into raw runs and special tokens, in order, into *list. */
static enum vnpu_status partition(const struct vnpu_vocab *v, const char *text, size_t len, bool parse_special,
                                  struct fragment_list *list) {
    struct fragment_list scratch = {0};
    bool ok = len == 0 || fragment_push(list, (struct fragment){.off = 0, .len = len, .token = -1});
    for (int32_t i = 0; ok && len > 0 && i < v->n_matchable; i++) {
        const vnpu_token id = v->matchable[i];
        /* without parse_special only USER_DEFINED tokens are matched (llama.cpp, after HF tokenizers) */
        if (parse_special || v->tokens[id].type == VNPU_TOKEN_TYPE_USER_DEFINED) {
            ok = partition_pass(v, text, id, list, &scratch);
        }
    }
    free(scratch.items);
    return ok ? VNPU_STATUS_OK : VNPU_STATUS_NO_MEMORY;
}

/* ---- text -> tokens ---- */

static enum vnpu_status vocab_tokenize_sink(const struct vnpu_vocab *v, const char *text, size_t len, bool add_special,
                                            bool parse_special, struct token_sink *sink) {
    struct fragment_list list = {0};
    struct tokenize_session s = {0};
    enum vnpu_status st = partition(v, text, len, parse_special, &list);

    /* SentencePiece prefixes a space to the text; llama.cpp does it for every run of text that starts the input
     * or follows a special token. */
    bool prev_special = true;
    if (add_special && v->add_bos) {
        token_sink_push(sink, v->special[VOCAB_SPECIAL_BOS]);
    }
    for (size_t i = 0; st == VNPU_STATUS_OK && i < list.n; i++) {
        const struct fragment fr = list.items[i];
        if (fr.token >= 0) {
            token_sink_push(sink, fr.token);
            prev_special = true;
            continue;
        }
        switch (v->type) {
            case VOCAB_TYPE_SPM:
                st = spm_tokenize(v, text + fr.off, fr.len, v->add_space_prefix && prev_special, &s, sink);
                break;
            case VOCAB_TYPE_BPE: st = bpe_tokenize(v, text + fr.off, fr.len, &s, sink); break;
        }
        prev_special = false;
    }
    if (add_special && v->add_eos) {
        token_sink_push(sink, v->special[VOCAB_SPECIAL_EOS]);
    }
    tokenize_session_free(&s);
    free(list.items);
    return st;
}

int32_t vnpu_vocab_tokenize(const struct vnpu_vocab *vocab, const char *text, size_t len, vnpu_token *tokens,
                            int32_t n_max, bool add_special, bool parse_special) {
    if (len > INT32_MAX) {
        vnpu_log_error("tokenize: text of %zu bytes, at most %d", len, INT32_MAX);
        return INT32_MIN;
    }
    struct token_sink sink = {.tokens = tokens, .n_max = n_max > 0 ? n_max : 0, .n = 0};
    if (vocab_tokenize_sink(vocab, text, len, add_special, parse_special, &sink) != VNPU_STATUS_OK) {
        return INT32_MIN;
    }
    if (sink.n > INT32_MAX) {
        vnpu_log_error("tokenize: %" PRId64 " tokens, at most %d", sink.n, INT32_MAX);
        return INT32_MIN;
    }
    const int64_t n_seen = sink.n < sink.n_max ? sink.n : sink.n_max;
    if (add_special && vocab->add_bos && n_seen >= 2 && tokens[1] == vocab->special[VOCAB_SPECIAL_BOS]) {
        vnpu_log_warn("tokenize: the text starts with BOS and the vocabulary adds one: the tokens start with 2 BOS");
    }
    /* llama.cpp's BPE session checks the end too */
    if (vocab->type == VOCAB_TYPE_BPE && add_special && vocab->add_eos && sink.n >= 2 && sink.n <= sink.n_max &&
        tokens[sink.n - 2] == vocab->special[VOCAB_SPECIAL_EOS]) {
        vnpu_log_warn("tokenize: the text ends with EOS and the vocabulary adds one: the tokens end with 2 EOS");
    }
    return sink.n <= sink.n_max ? (int32_t) sink.n : -(int32_t) sink.n;
}

/* ---- token -> piece ---- */

int32_t vnpu_vocab_token_to_piece(const struct vnpu_vocab *vocab, vnpu_token token, char *buf, int32_t size,
                                  bool special) {
    if (token < 0 || token >= vocab->n_tokens) {
        vnpu_log_error("token_to_piece: token %" PRId32 " out of the vocabulary (0..%" PRId32 ")", token,
                       vocab->n_tokens - 1);
        return 0;
    }
    const struct vocab_token *t = &vocab->tokens[token];
    const size_t avail = size > 0 ? (size_t) size : 0;
    switch (t->type) {
        case VNPU_TOKEN_TYPE_UNKNOWN:
        case VNPU_TOKEN_TYPE_CONTROL:
        case VNPU_TOKEN_TYPE_USER_DEFINED:
            if (!special && t->type != VNPU_TOKEN_TYPE_USER_DEFINED) {
                return 0;
            }
            if (avail < t->len) {
                return -(int32_t) t->len;
            }
            memcpy(buf, t->text, t->len);
            return (int32_t) t->len;
        case VNPU_TOKEN_TYPE_NORMAL:
            switch (vocab->type) {
                case VOCAB_TYPE_SPM: return spm_normal_piece(t, buf, avail);
                case VOCAB_TYPE_BPE:
                    if (avail < t->piece_len) {
                        return -(int32_t) t->piece_len;
                    }
                    memcpy(buf, t->piece, t->piece_len);
                    return (int32_t) t->piece_len;
            }
            return 0;
        case VNPU_TOKEN_TYPE_BYTE:
            if (avail < 1) {
                return -1;
            }
            buf[0] = (char) t->byte;
            return 1;
        case VNPU_TOKEN_TYPE_UNDEFINED:
        case VNPU_TOKEN_TYPE_UNUSED: return 0;
    }
    return 0;
}
