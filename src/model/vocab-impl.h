/*
 * Internals of struct vnpu_vocab, shared by vocab.c (which builds it from the GGUF keys) and vocab-spm.c
 * (which tokenizes with it). Not for use outside src/model: the API is vocab.h.
 */
#ifndef VNPU_VOCAB_IMPL_H
#define VNPU_VOCAB_IMPL_H

#include "vocab.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* U+2581 LOWER ONE EIGHTH BLOCK: SentencePiece's visible space, in UTF-8. */
#define SPM_SPACE     "\xe2\x96\x81"
#define SPM_SPACE_LEN 3

/* Special tokens that llama.cpp tracks; only some of them change tokenization or generation here. */
enum vocab_special {
    VOCAB_SPECIAL_BOS,
    VOCAB_SPECIAL_EOS,
    VOCAB_SPECIAL_EOT,
    VOCAB_SPECIAL_EOM,
    VOCAB_SPECIAL_UNK,
    VOCAB_SPECIAL_SEP,
    VOCAB_SPECIAL_PAD,
    VOCAB_SPECIAL_MASK,
    VOCAB_SPECIAL_FIM_PRE,
    VOCAB_SPECIAL_FIM_SUF,
    VOCAB_SPECIAL_FIM_MID,
    VOCAB_SPECIAL_FIM_PAD,
    VOCAB_SPECIAL_FIM_REP,
    VOCAB_SPECIAL_FIM_SEP,
    VOCAB_SPECIAL_COUNT,
};

#define VOCAB_MAX_EOG 16 /* end-of-generation tokens at most (asserted against vocab.c's tables) */

struct vocab_token {
    const char *text; /* NUL-terminated copy in vnpu_vocab.texts */
    size_t len;       /* <= INT32_MAX */
    float score;
    enum vnpu_token_type type; /* after llama.cpp's override of control-looking texts to CONTROL */
    uint8_t byte;              /* the byte of a BYTE token */
    bool rstrip;               /* a parse_special match eats the whitespace after it (LLAMA_TOKEN_ATTR_RSTRIP) */
};

struct vnpu_vocab {
    int32_t n_tokens;
    struct vocab_token *tokens;
    char *texts;
    int32_t *map; /* open addressing on the text hash, linear probing: token ids, -1 = empty; load <= 1/2 */
    size_t map_mask;
    vnpu_token special[VOCAB_SPECIAL_COUNT]; /* -1 = none */
    /* the token a byte with no piece of its own becomes: "<0xXX>", else the one-byte text, else unk */
    vnpu_token byte_token[256];
    bool add_bos;
    bool add_eos;
    bool add_space_prefix;
    vnpu_token *matchable; /* CONTROL, USER_DEFINED and UNKNOWN tokens, longest text first, then lowest id */
    int32_t n_matchable;
    vnpu_token eog[VOCAB_MAX_EOG];
    int32_t n_eog;
};

/* The id of the token whose text is exactly text[0, len), or -1 (llama_vocab::text_to_token). */
vnpu_token vocab_text_to_token(const struct vnpu_vocab *vocab, const char *text, size_t len);

#endif /* VNPU_VOCAB_IMPL_H */
