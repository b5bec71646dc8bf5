/*
 * Internals of struct vnpu_vocab, shared by the files of the tokenizer: vocab.c builds it from the GGUF keys,
 * vocab-bpe.c adds what BPE needs (pre-tokenizer, merges), vocab-tokenize.c cuts out special tokens and dispatches,
 * vocab-spm.c and vocab-bpe.c tokenize a run of plain text, vocab-merge.c runs the pair merge both share. Not for use
 * outside src/model: the API is vocab.h.
 */
#ifndef VNPU_VOCAB_IMPL_H
#define VNPU_VOCAB_IMPL_H

#include "pretok.h"
#include "vocab.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* U+2581 LOWER ONE EIGHTH BLOCK: SentencePiece's visible space, in UTF-8. */
#define SPM_SPACE     "\xe2\x96\x81"
#define SPM_SPACE_LEN 3

/* tokenizer.ggml.model: llama.cpp's LLAMA_VOCAB_TYPE_SPM ("llama") and LLAMA_VOCAB_TYPE_BPE ("gpt2"). */
enum vocab_type {
    VOCAB_TYPE_SPM,
    VOCAB_TYPE_BPE,
};

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

#define VOCAB_MAX_EOG 40 /* end-of-generation tokens at most (asserted against vocab.c's tables) */

struct vocab_token {
    const char *text; /* NUL-terminated copy in vnpu_vocab.texts */
    size_t len;       /* <= INT32_MAX */
    float score;
    enum vnpu_token_type type; /* after llama.cpp's override of control-looking texts to CONTROL */
    uint8_t byte;              /* the byte of a BYTE token */
    bool rstrip;               /* a parse_special match eats the whitespace after it (LLAMA_TOKEN_ATTR_RSTRIP) */
    const char *piece;         /* BPE, a NORMAL token: its text byte-decoded (vocab-bpe.c), in vocab_bpe.pieces */
    size_t piece_len;
};

/* One line of tokenizer.ggml.merges, "left right": its parts are merge_texts[off, off + n_left) and
 * merge_texts[off + n_left + 1, off + n_left + 1 + n_right). Its rank is its index. */
struct bpe_merge {
    size_t off;
    uint32_t n_left, n_right;
};

struct bpe_pre; /* a row of vocab-bpe.c's pre-tokenizer table */

/* What a BPE vocabulary adds (vocab-bpe.c). */
struct vocab_bpe {
    const struct bpe_pre *pre; /* tokenizer.ggml.pre's row */
    struct pretok *pretok;     /* its regexes, compiled */
    char *merge_texts;
    struct bpe_merge *merges;
    int32_t n_merges;
    int32_t *merge_map; /* open addressing on the hash of "left right", linear probing: ranks, -1 = empty */
    size_t merge_mask;
    vnpu_token byte_char[256]; /* the token spelled by that one byte, or -1: a final symbol's fallback */
    char *pieces;              /* the NORMAL tokens' pieces */
};

struct vnpu_vocab {
    enum vocab_type type;
    int32_t n_tokens;
    struct vocab_token *tokens;
    char *texts;
    int32_t *map; /* open addressing on the text hash, linear probing: token ids, -1 = empty; load <= 1/2 */
    size_t map_mask;
    vnpu_token special[VOCAB_SPECIAL_COUNT]; /* -1 = none */
    /* SPM: the token a byte with no piece of its own becomes: "<0xXX>", else the one-byte text, else unk */
    vnpu_token byte_token[256];
    bool add_bos;
    bool add_eos;
    bool add_space_prefix; /* SPM only: BPE tokenization never reads it, as llama.cpp's */
    vnpu_token *matchable; /* CONTROL, USER_DEFINED and UNKNOWN tokens, longest text first, then lowest id */
    int32_t n_matchable;
    vnpu_token eog[VOCAB_MAX_EOG];
    int32_t n_eog;
    struct vocab_bpe bpe; /* VOCAB_TYPE_BPE only */
};

/* The id of the token whose text is exactly text[0, len), or -1 (llama_vocab::text_to_token). */
vnpu_token vocab_text_to_token(const struct vnpu_vocab *vocab, const char *text, size_t len);

/* Index of key in f (-1 when absent); a present key of another type is an error naming both types (vocab.c). */
enum vnpu_status vocab_find_key(const struct gguf_file *f, const char *key, enum gguf_type type, int64_t *idx);
/* Index of an array of n elements of elem_type (-1 when absent); n = 0 takes any length in 1..INT32_MAX; an error
 * names the key and the limit (vocab.c). */
enum vnpu_status vocab_find_array(const struct gguf_file *f, const char *key, enum gguf_type elem_type, uint64_t n,
                                  int64_t *idx);

/* ---- tokenizing ---- */

/* Where tokenization writes: the first n_max tokens go to tokens[], n counts every token produced. */
struct token_sink {
    vnpu_token *tokens;
    int64_t n_max;
    int64_t n;
};

static inline void token_sink_push(struct token_sink *sink, vnpu_token token) {
    if (sink->n < sink->n_max) {
        sink->tokens[sink->n] = token;
    }
    sink->n++;
}

/* The pair merge's scratch (vocab-merge.c): symbols and the queue of pairs. */
struct merge_session {
    struct merge_symbol *symbols;
    size_t symbols_cap;
    struct merge_pair *heap;
    size_t heap_n, heap_cap;
};

/* The scratch of one vnpu_vocab_tokenize call, reused from one run of text to the next and freed at its end. */
struct tokenize_session {
    struct merge_session merge;
    struct pretok_scratch pretok; /* BPE */
    char *text;                   /* the run of text as the merge sees it: SPM's escaped, a BPE piece byte-encoded */
    size_t text_cap;
    uint32_t *cpts; /* BPE: the run's codepoints */
    size_t cpts_cap;
};

/* Grow s->text to cap bytes at least; false (logged) when memory runs out. */
bool tokenize_session_text(struct tokenize_session *s, size_t cap);

/* Merge len bytes of text (s->text, as the merge sees it) into tokens (vocab-merge.c): one symbol per UTF-8 character
 * (its length from the lead byte, cut at the text's end: never validated), then the best adjacent pair merged until
 * none is left (SPM: the pair whose concatenation is the token of highest score; BPE: the pair of lowest merge rank;
 * the leftmost on ties), then each symbol's token, or its fallback (SPM: each byte's byte_token; BPE: each byte's
 * byte_char, skipped when -1). Appends to sink; VNPU_STATUS_NO_MEMORY (logged) when the scratch cannot grow. */
enum vnpu_status merge_tokenize(const struct vnpu_vocab *vocab, struct merge_session *s, const char *text, size_t len,
                                struct token_sink *sink);
void merge_session_free(struct merge_session *s);

/* SPM: tokenize len bytes of plain text (a space prepended when space_prefix, every ' ' as U+2581), vocab-spm.c. */
enum vnpu_status spm_tokenize(const struct vnpu_vocab *vocab, const char *text, size_t len, bool space_prefix,
                              struct tokenize_session *s, struct token_sink *sink);

/* SPM: the piece of a NORMAL token, U+2581 as ' ', into buf (avail bytes): its length, or minus it when it does not
 * fit (nothing written), vocab-spm.c. */
int32_t spm_normal_piece(const struct vocab_token *t, char *buf, size_t avail);

/* BPE: tokenize len bytes of plain text (pre-tokenized, each piece byte-encoded and merged), vocab-bpe.c.
 * VNPU_STATUS_BAD_ARG (logged) when the text holds a 4-byte sequence past U+10FFFF (llama.cpp throws on it) or a
 * regex match fails; VNPU_STATUS_NO_MEMORY (logged). */
enum vnpu_status bpe_tokenize(const struct vnpu_vocab *vocab, const char *text, size_t len, struct tokenize_session *s,
                              struct token_sink *sink);

/* The rank of the merge "left right", or -1 (vocab-bpe.c). */
int32_t bpe_merge_rank(const struct vocab_bpe *bpe, const char *left, size_t n_left, const char *right, size_t n_right);

/* ---- loading (vocab-bpe.c) ---- */

/* tokenizer.ggml.pre's row (absent: llama.cpp's "default", with a warning), its regexes compiled, and
 * tokenizer.ggml.merges; after the tokens. *add_bos gets the row's add_bos default. VNPU_STATUS_UNSUPPORTED for a
 * pre vnpu does not know, VNPU_STATUS_BAD_FILE for malformed merges (each logged once). */
enum vnpu_status vocab_bpe_load(struct vnpu_vocab *vocab, const struct gguf_file *f, bool *add_bos);
/* The NORMAL tokens' pieces and each byte's byte_char; after the token types. VNPU_STATUS_BAD_FILE for a NORMAL
 * token holding a 4-byte sequence past U+10FFFF (llama.cpp aborts on it when it builds its piece cache). */
enum vnpu_status vocab_bpe_pieces(struct vnpu_vocab *vocab, const struct gguf_file *f);
void vocab_bpe_free(struct vocab_bpe *bpe);
/* The tokenizer.ggml.pre value of bpe's pre-tokenizer ("default" when the key is absent). */
const char *vocab_bpe_pre_name(const struct vocab_bpe *bpe);

#endif /* VNPU_VOCAB_IMPL_H */
