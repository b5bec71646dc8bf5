/*
 * The vocabulary and tokenizer of a model, read from the GGUF `tokenizer.ggml.*` keys.
 *
 * SPM (tokenizer.ggml.model = "llama"): llama.cpp's llm_tokenizer_spm. The text is escaped (a space
 * becomes U+2581, with one prepended when add_space_prefix), split into UTF-8 characters, and adjacent
 * symbols are merged greedily by the score of the merged piece (highest first, leftmost on ties); a
 * symbol left without a vocabulary entry falls back to its bytes' <0xXX> tokens (or unk). Control tokens
 * are matched as text first when parse_special is set.
 */
#ifndef VNPU_VOCAB_H
#define VNPU_VOCAB_H

#include "gguf.h"
#include "vnpu.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* GGUF token types (tokenizer.ggml.token_type), llama.cpp's llama_token_type. */
enum vnpu_token_type {
    VNPU_TOKEN_TYPE_UNDEFINED = 0,
    VNPU_TOKEN_TYPE_NORMAL = 1,
    VNPU_TOKEN_TYPE_UNKNOWN = 2,
    VNPU_TOKEN_TYPE_CONTROL = 3,
    VNPU_TOKEN_TYPE_USER_DEFINED = 4,
    VNPU_TOKEN_TYPE_UNUSED = 5,
    VNPU_TOKEN_TYPE_BYTE = 6,
};

struct vnpu_vocab;

/* Read and validate the vocabulary of f: tokenizer.ggml.model "llama" (SPM); tokens (string array),
 * scores (f32 array) and token_type (i32 array) of equal length; bos/eos/unk/padding/eot ids in range
 * (0xFFFFFFFF or absent = none); add_bos_token, add_eos_token, add_space_prefix (defaults as llama.cpp:
 * true, false, true); byte tokens spelled "<0xXX>". Each violation logs one message naming the key and
 * returns VNPU_STATUS_BAD_FILE; an unknown tokenizer model returns VNPU_STATUS_UNSUPPORTED. */
enum vnpu_status vnpu_vocab_load(const struct gguf_file *f, struct vnpu_vocab **out);
void vnpu_vocab_free(struct vnpu_vocab *vocab);

int32_t vnpu_vocab_n_tokens(const struct vnpu_vocab *vocab);
vnpu_token vnpu_vocab_bos(const struct vnpu_vocab *vocab); /* -1 if none */
vnpu_token vnpu_vocab_eos(const struct vnpu_vocab *vocab);
bool vnpu_vocab_add_bos(const struct vnpu_vocab *vocab);
bool vnpu_vocab_is_eog(const struct vnpu_vocab *vocab, vnpu_token token);

/* As vnpu_tokenize (include/vnpu.h). */
int32_t vnpu_vocab_tokenize(const struct vnpu_vocab *vocab, const char *text, size_t len, vnpu_token *tokens,
                            int32_t n_max, bool add_special, bool parse_special);
/* As vnpu_token_to_piece (include/vnpu.h). */
int32_t vnpu_vocab_token_to_piece(const struct vnpu_vocab *vocab, vnpu_token token, char *buf, int32_t size,
                                  bool special);

#endif /* VNPU_VOCAB_H */
