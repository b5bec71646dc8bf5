/*
 * The pair merge of llama.cpp's SPM and BPE sessions (src/llama-vocab.cpp: llm_tokenizer_spm_session,
 * llm_tokenizer_bpe_session), one loop for both.
 *
 * The text is cut into symbols of one UTF-8 character each: a character's length comes from its lead byte alone and
 * is cut short at the end of the text (unicode_len_utf8), so broken UTF-8 still tokenizes. Every pair of neighbours
 * that may merge is queued by its priority, the leftmost pair first on ties: SPM, the score of the token the pair's
 * concatenation is (a pair that is no token is not queued); BPE, minus the rank of the merge "left right" (a pair of
 * no merge is not queued). The best pair is merged, the new symbol is paired with its neighbours, and a queued pair
 * whose symbols changed since it was queued is dropped when it reaches the top. A merged symbol keeps its start, so
 * a queued pair is stale exactly when its length changed (llama.cpp compares the texts).
 *
 * Each final symbol becomes its token; one that is no token (a character outside the vocabulary) falls back byte by
 * byte: SPM to each byte's byte_token; BPE to the token spelled by that one byte, and to nothing when there is none
 * (llama.cpp's BPE drops the byte).
 *
 * llama.cpp's SPM also records, for each merged text, the pair it came from (rev_merge) to split again a final symbol
 * that is no token. A merged SPM symbol is a token by construction, so that path cannot run and is not reproduced.
 */
#include "vocab-impl.h"

#include "log.h"

#include <stdlib.h>
#include <string.h>

struct merge_symbol {
    int64_t prev; /* neighbours in the current segmentation, -1 at either end */
    int64_t next;
    size_t off; /* the symbol is bytes [off, off + n) of the text */
    size_t n;   /* 0 once merged into its left neighbour */
};

struct merge_pair {
    int64_t left; /* symbol indices; right is left's neighbour when queued */
    int64_t right;
    size_t size;     /* left.n + right.n when queued: the entry is stale once that no longer holds */
    double priority; /* SPM: the merged token's score; BPE: minus the merge's rank (both exact in a double) */
};

/* UTF-8 sequence length from the lead byte's high nibble; continuation bytes count as 1 (unicode_len_utf8). */
static size_t utf8_len(uint8_t lead) {
    static const uint8_t len_by_nibble[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4};
    return len_by_nibble[lead >> 4];
}

/* True when a pops before b: higher priority first, then the leftmost (the comparators of llm_bigram_spm and
 * llm_bigram_bpe). Two live entries never share left and priority, so the order of pops is fully determined. */
static bool pair_before(const struct merge_pair *a, const struct merge_pair *b) {
    return a->priority > b->priority || (a->priority == b->priority && a->left < b->left);
}

static bool heap_push(struct merge_session *s, struct merge_pair p) {
    if (s->heap_n == s->heap_cap) {
        const size_t cap = s->heap_cap ? 2 * s->heap_cap : 64;
        struct merge_pair *heap = realloc(s->heap, cap * sizeof(*heap));
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
        if (!pair_before(&p, &s->heap[parent])) {
            break;
        }
        s->heap[i] = s->heap[parent];
        i = parent;
    }
    s->heap[i] = p;
    return true;
}

static struct merge_pair heap_pop(struct merge_session *s) {
    const struct merge_pair top = s->heap[0];
    const struct merge_pair last = s->heap[--s->heap_n];
    size_t i = 0;
    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= s->heap_n) {
            break;
        }
        if (child + 1 < s->heap_n && pair_before(&s->heap[child + 1], &s->heap[child])) {
            child++;
        }
        if (!pair_before(&s->heap[child], &last)) {
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

/* Queue the pair (left, right) if it may merge (try_add_bigram / add_new_bigram); false on no memory. */
static bool try_pair(const struct vnpu_vocab *vocab, struct merge_session *s, const char *text, int64_t left,
                     int64_t right) {
    if (left < 0 || right < 0) {
        return true;
    }
    const struct merge_symbol *l = &s->symbols[left], *r = &s->symbols[right];
    double priority = 0.0;
    switch (vocab->type) {
        case VOCAB_TYPE_SPM: {
            const vnpu_token token = vocab_text_to_token(vocab, text + l->off, l->n + r->n);
            if (token < 0) {
                return true;
            }
            priority = vocab->tokens[token].score;
            break;
        }
        case VOCAB_TYPE_BPE: {
            const int32_t rank = bpe_merge_rank(&vocab->bpe, text + l->off, l->n, text + r->off, r->n);
            if (rank < 0) {
                return true;
            }
            priority = -(double) rank;
            break;
        }
    }
    return heap_push(s, (struct merge_pair){.left = left, .right = right, .size = l->n + r->n, .priority = priority});
}

/* Emit one final symbol: its token, or its bytes' fallback. */
static void emit(const struct vnpu_vocab *vocab, const char *text, const struct merge_symbol *sym,
                 struct token_sink *sink) {
    const char *s = text + sym->off;
    const vnpu_token token = vocab_text_to_token(vocab, s, sym->n);
    if (token >= 0) {
        token_sink_push(sink, token);
        return;
    }
    for (size_t i = 0; i < sym->n; i++) {
        switch (vocab->type) {
            case VOCAB_TYPE_SPM: token_sink_push(sink, vocab->byte_token[(uint8_t) s[i]]); break;
            case VOCAB_TYPE_BPE:
                if (vocab->bpe.byte_char[(uint8_t) s[i]] >= 0) {
                    token_sink_push(sink, vocab->bpe.byte_char[(uint8_t) s[i]]);
                }
                break;
        }
    }
}

enum vnpu_status merge_tokenize(const struct vnpu_vocab *vocab, struct merge_session *s, const char *text, size_t len,
                                struct token_sink *sink) {
    if (len == 0) {
        return VNPU_STATUS_OK;
    }
    if (len > s->symbols_cap) {
        free(s->symbols);
        s->symbols = malloc(len * sizeof(*s->symbols));
        s->symbols_cap = s->symbols ? len : 0;
        if (!s->symbols) {
            vnpu_log_error("tokenize: cannot allocate %zu merge symbols", len);
            return VNPU_STATUS_NO_MEMORY;
        }
    }
    int64_t n_sym = 0;
    for (size_t off = 0; off < len; n_sym++) {
        size_t n = utf8_len((uint8_t) text[off]);
        n = n < len - off ? n : len - off;
        s->symbols[n_sym] =
            (struct merge_symbol){.prev = n_sym - 1, .next = off + n == len ? -1 : n_sym + 1, .off = off, .n = n};
        off += n;
    }
    s->heap_n = 0;
    bool ok = true;
    for (int64_t i = 1; ok && i < n_sym; i++) {
        ok = try_pair(vocab, s, text, i - 1, i);
    }
    while (ok && s->heap_n > 0) {
        const struct merge_pair p = heap_pop(s);
        struct merge_symbol *l = &s->symbols[p.left];
        struct merge_symbol *r = &s->symbols[p.right];
        if (l->n == 0 || r->n == 0 || l->n + r->n != p.size) {
            continue;
        }
        l->n += r->n;
        r->n = 0;
        l->next = r->next;
        if (r->next >= 0) {
            s->symbols[r->next].prev = p.left;
        }
        ok = try_pair(vocab, s, text, l->prev, p.left) && try_pair(vocab, s, text, p.left, l->next);
    }
    if (!ok) {
        return VNPU_STATUS_NO_MEMORY;
    }
    for (int64_t i = 0; i != -1; i = s->symbols[i].next) {
        emit(vocab, text, &s->symbols[i], sink);
    }
    return VNPU_STATUS_OK;
}

void merge_session_free(struct merge_session *s) {
    free(s->symbols);
    free(s->heap);
    *s = (struct merge_session){0};
}
