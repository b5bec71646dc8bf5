/*
 * The SPM tokenizer of llama.cpp (src/llama-vocab.cpp): text -> tokens (llama_vocab::impl::tokenize for
 * LLAMA_VOCAB_TYPE_SPM) and token -> piece (token_to_piece), on a vocabulary built by vocab.c.
 *
 * Special tokens written in the text are cut out first (tokenizer_st_partition). Each remaining run of plain
 * text is escaped (' ' becomes U+2581 "▁", after a leading space for runs that start the text or follow a
 * special token) and cut into symbols of one UTF-8 character each. A character's length comes from its lead
 * byte alone and is cut short at the end of the run (unicode_len_utf8): bytes are never validated, so broken
 * UTF-8 still tokenizes. Every pair of neighbours whose concatenation is a token is queued in a max-heap
 * keyed by that token's score, ties to the leftmost pair. The best pair is merged, the new symbol is paired
 * with its neighbours, and a queued pair whose symbols changed since it was queued is dropped when it
 * reaches the top (llm_tokenizer_spm_session). Each final symbol is a token, or (a lone character outside
 * the vocabulary) one byte-fallback token per byte.
 *
 * llama.cpp also records, for each merged text, the pair it came from (rev_merge) to split again a final
 * symbol that is not a token. A merged symbol is a token by construction, so that path cannot run and is
 * not reproduced.
 */
#include "vocab-impl.h"

#include "log.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Where tokenization writes: the first n_max tokens go to tokens[], n counts every token produced. */
struct token_sink {
    vnpu_token *tokens;
    int64_t n_max;
    int64_t n;
};

static void token_sink_push(struct token_sink *sink, vnpu_token token) {
    if (sink->n < sink->n_max) {
        sink->tokens[sink->n] = token;
    }
    sink->n++;
}

/* ---- the SPM merge of one run of plain text ---- */

struct spm_symbol {
    int64_t prev; /* neighbours in the current segmentation, -1 at either end */
    int64_t next;
    size_t off; /* the symbol is bytes [off, off + n) of the escaped text */
    size_t n;   /* 0 once merged into its left neighbour */
};

struct spm_bigram {
    int64_t left; /* symbol indices; right is left's neighbour when queued */
    int64_t right;
    size_t size; /* left.n + right.n when queued: the entry is stale once that no longer holds */
    float score; /* score of the token the pair would become */
};

struct spm_session {
    const struct vnpu_vocab *vocab;
    const char *text; /* escaped */
    struct spm_symbol *symbols;
    struct spm_bigram *heap;
    size_t heap_n;
    size_t heap_cap;
};

/* UTF-8 sequence length from the lead byte's high nibble; continuation bytes count as 1 (unicode_len_utf8). */
static size_t utf8_len(uint8_t lead) {
    static const uint8_t len_by_nibble[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4};
    return len_by_nibble[lead >> 4];
}

/* True when a pops before b: higher score first, then the leftmost (llm_bigram_spm::comparator). Two live
 * entries never share left and score, so the order of pops is fully determined. */
static bool spm_bigram_before(const struct spm_bigram *a, const struct spm_bigram *b) {
    return a->score > b->score || (a->score == b->score && a->left < b->left);
}

static bool spm_heap_push(struct spm_session *s, struct spm_bigram b) {
    if (s->heap_n == s->heap_cap) {
        const size_t cap = s->heap_cap ? 2 * s->heap_cap : 64;
        struct spm_bigram *heap = realloc(s->heap, cap * sizeof(*heap));
        if (!heap) {
            vnpu_log_error("tokenize: cannot allocate %zu bytes for the merge queue", cap * sizeof(*heap));
            return false;
        }
        s->heap = heap;
        s->heap_cap = cap;
    }
    size_t i = s->heap_n++;
    while (i > 0) {
        const size_t parent = (i - 1) / 2;
        if (!spm_bigram_before(&b, &s->heap[parent])) {
            break;
        }
        s->heap[i] = s->heap[parent];
        i = parent;
    }
    s->heap[i] = b;
    return true;
}

static struct spm_bigram spm_heap_pop(struct spm_session *s) {
    const struct spm_bigram top = s->heap[0];
    const struct spm_bigram last = s->heap[--s->heap_n];
    size_t i = 0;
    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= s->heap_n) {
            break;
        }
        if (child + 1 < s->heap_n && spm_bigram_before(&s->heap[child + 1], &s->heap[child])) {
            child++;
        }
        if (!spm_bigram_before(&s->heap[child], &last)) {
            break;
        }
        s->heap[i] = s->heap[child];
        i = child;
    }
    if (s->heap_n > 0) {
        s->heap[i] = last;
    }
    return top;
}

/* Queue the pair (left, right) if their concatenation is a token (try_add_bigram); false on no memory. */
static bool spm_try_pair(struct spm_session *s, int64_t left, int64_t right) {
    if (left < 0 || right < 0) {
        return true;
    }
    const struct spm_symbol *l = &s->symbols[left];
    const size_t size = l->n + s->symbols[right].n;
    const vnpu_token token = vocab_text_to_token(s->vocab, s->text + l->off, size);
    if (token < 0) {
        return true;
    }
    const struct spm_bigram b = {.left = left, .right = right, .size = size, .score = s->vocab->tokens[token].score};
    return spm_heap_push(s, b);
}

/* Emit one final symbol: its token, or each of its bytes' fallback tokens (resegment). */
static void spm_emit(const struct spm_session *s, const struct spm_symbol *sym, struct token_sink *sink) {
    const char *text = s->text + sym->off;
    const vnpu_token token = vocab_text_to_token(s->vocab, text, sym->n);
    if (token >= 0) {
        token_sink_push(sink, token);
        return;
    }
    for (size_t i = 0; i < sym->n; i++) {
        token_sink_push(sink, s->vocab->byte_token[(uint8_t) text[i]]);
    }
}

/* Split the escaped text into one symbol per UTF-8 character; returns the symbol count. */
static int64_t spm_split(struct spm_session *s, size_t len) {
    int64_t n_sym = 0;
    for (size_t off = 0; off < len;) {
        size_t n = utf8_len((uint8_t) s->text[off]);
        if (n > len - off) {
            n = len - off;
        }
        s->symbols[n_sym] =
            (struct spm_symbol){.prev = n_sym - 1, .next = off + n == len ? -1 : n_sym + 1, .off = off, .n = n};
        off += n;
        n_sym++;
    }
    return n_sym;
}

/* Merge the best-scoring pair until none is left; false on no memory. */
static bool spm_merge(struct spm_session *s, int64_t n_sym) {
    for (int64_t i = 1; i < n_sym; i++) {
        if (!spm_try_pair(s, i - 1, i)) {
            return false;
        }
    }
    while (s->heap_n > 0) {
        const struct spm_bigram b = spm_heap_pop(s);
        struct spm_symbol *l = &s->symbols[b.left];
        struct spm_symbol *r = &s->symbols[b.right];
        if (l->n == 0 || r->n == 0 || l->n + r->n != b.size) {
            continue;
        }
        l->n += r->n;
        r->n = 0;
        l->next = r->next;
        if (r->next >= 0) {
            s->symbols[r->next].prev = b.left;
        }
        if (!spm_try_pair(s, l->prev, b.left) || !spm_try_pair(s, b.left, l->next)) {
            return false;
        }
    }
    return true;
}

/* Tokenize len bytes of plain text as llama.cpp does one raw fragment: a space prepended when space_prefix,
 * every ' ' turned into U+2581, then the merge. Appends to sink; VNPU_STATUS_NO_MEMORY (logged) when the
 * scratch space cannot be allocated. */
static enum vnpu_status spm_tokenize(const struct vnpu_vocab *vocab, const char *text, size_t len, bool space_prefix,
                                     struct token_sink *sink) {
    size_t n_spaces = 0;
    for (size_t i = 0; i < len; i++) {
        n_spaces += text[i] == ' ';
    }
    /* Each space grows by 2 bytes; len <= INT32_MAX (checked by the caller), so this cannot overflow. */
    const size_t esc_len = len + 2 * n_spaces + (space_prefix ? SPM_SPACE_LEN : 0);
    if (esc_len == 0) {
        return VNPU_STATUS_OK;
    }

    struct spm_session s = {.vocab = vocab};
    char *esc = malloc(esc_len);
    s.symbols = malloc(esc_len * sizeof(*s.symbols));
    if (!esc || !s.symbols) {
        vnpu_log_error("tokenize: cannot allocate scratch for %zu bytes of text (%zu bytes escaped)", len, esc_len);
        free(esc);
        free(s.symbols);
        return VNPU_STATUS_NO_MEMORY;
    }
    size_t o = 0;
    if (space_prefix) {
        memcpy(esc, SPM_SPACE, SPM_SPACE_LEN);
        o = SPM_SPACE_LEN;
    }
    for (size_t i = 0; i < len; i++) {
        if (text[i] == ' ') {
            memcpy(esc + o, SPM_SPACE, SPM_SPACE_LEN);
            o += SPM_SPACE_LEN;
        } else {
            esc[o++] = text[i];
        }
    }
    VNPU_ASSERT(o == esc_len);
    s.text = esc;

    const int64_t n_sym = spm_split(&s, esc_len);
    const bool merged = spm_merge(&s, n_sym);
    if (merged) {
        for (int64_t i = 0; i != -1; i = s.symbols[i].next) {
            spm_emit(&s, &s.symbols[i], sink);
        }
    }
    free(s.heap);
    free(s.symbols);
    free(esc);
    return merged ? VNPU_STATUS_OK : VNPU_STATUS_NO_MEMORY;
}

/* ---- special tokens, space prefix, BOS/EOS ---- */

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

static enum vnpu_status vocab_tokenize_sink(const struct vnpu_vocab *v, const char *text, size_t len, bool add_special,
                                            bool parse_special, struct token_sink *sink) {
    struct fragment_list list = {0}, scratch = {0};
    bool ok = len == 0 || fragment_push(&list, (struct fragment){.off = 0, .len = len, .token = -1});
    for (int32_t i = 0; ok && len > 0 && i < v->n_matchable; i++) {
        const vnpu_token id = v->matchable[i];
        /* without parse_special only USER_DEFINED tokens are matched (llama.cpp, after HF tokenizers) */
        if (parse_special || v->tokens[id].type == VNPU_TOKEN_TYPE_USER_DEFINED) {
            ok = partition_pass(v, text, id, &list, &scratch);
        }
    }
    enum vnpu_status st = ok ? VNPU_STATUS_OK : VNPU_STATUS_NO_MEMORY;

    /* SentencePiece prefixes a space to the text; llama.cpp does it for every run of text that starts the
     * input or follows a special token. */
    bool prev_special = true;
    if (add_special && v->add_bos) {
        token_sink_push(sink, v->special[VOCAB_SPECIAL_BOS]);
    }
    for (size_t i = 0; st == VNPU_STATUS_OK && i < list.n; i++) {
        const struct fragment fr = list.items[i];
        if (fr.token >= 0) {
            token_sink_push(sink, fr.token);
            prev_special = true;
        } else {
            st = spm_tokenize(v, text + fr.off, fr.len, v->add_space_prefix && prev_special, sink);
            prev_special = false;
        }
    }
    if (add_special && v->add_eos) {
        token_sink_push(sink, v->special[VOCAB_SPECIAL_EOS]);
    }
    free(list.items);
    free(scratch.items);
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
    if (add_special && vocab->add_bos && sink.n >= 2 && sink.n_max >= 2 &&
        tokens[1] == vocab->special[VOCAB_SPECIAL_BOS]) {
        vnpu_log_warn("tokenize: the text starts with BOS and the vocabulary adds one: the tokens start with 2 BOS");
    }
    return sink.n <= sink.n_max ? (int32_t) sink.n : -(int32_t) sink.n;
}

/* ---- token -> piece ---- */

static bool spm_space_at(const struct vocab_token *t, size_t i) {
    return i + SPM_SPACE_LEN <= t->len && memcmp(t->text + i, SPM_SPACE, SPM_SPACE_LEN) == 0;
}

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
        case VNPU_TOKEN_TYPE_NORMAL: {
            /* each U+2581 becomes ' ' (llama_unescape_whitespace) */
            size_t n = 0;
            for (size_t i = 0; i < t->len; i += spm_space_at(t, i) ? SPM_SPACE_LEN : 1) {
                n++;
            }
            if (avail < n) {
                return -(int32_t) n;
            }
            for (size_t i = 0, o = 0; i < t->len; o++) {
                const bool space = spm_space_at(t, i);
                buf[o] = space ? ' ' : t->text[i];
                i += space ? SPM_SPACE_LEN : 1;
            }
            return (int32_t) n;
        }
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
