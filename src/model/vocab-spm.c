/*
 * The SPM tokenizer of llama.cpp (src/llama-vocab.cpp, llama_vocab::impl::tokenize for LLAMA_VOCAB_TYPE_SPM) on one
 * run of plain text: ' ' becomes U+2581 "▁", after a leading space for runs that start the text or follow a special
 * token (vocab-tokenize.c decides), and the escaped text goes through the score-ordered pair merge (vocab-merge.c).
 */
#include "vocab-impl.h"

#include "log.h"

#include <string.h>

enum vnpu_status spm_tokenize(const struct vnpu_vocab *vocab, const char *text, size_t len, bool space_prefix,
                              struct tokenize_session *s, struct token_sink *sink) {
    size_t n_spaces = 0;
    for (size_t i = 0; i < len; i++) {
        n_spaces += text[i] == ' ';
    }
    /* Each space grows by 2 bytes; len <= INT32_MAX (checked by the caller), so this cannot overflow. */
    const size_t esc_len = len + 2 * n_spaces + (space_prefix ? SPM_SPACE_LEN : 0);
    if (esc_len == 0) {
        return VNPU_STATUS_OK;
    }
    if (!tokenize_session_text(s, esc_len)) {
        return VNPU_STATUS_NO_MEMORY;
    }
    char *esc = s->text;
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
    return merge_tokenize(vocab, &s->merge, esc, esc_len, sink);
}

static bool spm_space_at(const struct vocab_token *t, size_t i) {
    return i + SPM_SPACE_LEN <= t->len && memcmp(t->text + i, SPM_SPACE, SPM_SPACE_LEN) == 0;
}

int32_t spm_normal_piece(const struct vocab_token *t, char *buf, size_t avail) {
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
