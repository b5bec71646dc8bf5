/*
 * The vocabulary and tokenizer of a model, read from the GGUF `tokenizer.ggml.*` keys.
 *
 * SPM (tokenizer.ggml.model = "llama"): llama.cpp's llm_tokenizer_spm (src/llama-vocab.cpp). Special tokens
 * written as text are cut out first: CONTROL and UNKNOWN tokens when parse_special is set, USER_DEFINED
 * tokens always, longest text first. Each remaining run of text is escaped (a space becomes U+2581, with
 * one prepended when add_space_prefix and the run starts the text or follows a special token), split into
 * UTF-8 characters, and adjacent symbols are merged greedily by the score of the merged piece (highest
 * first, leftmost on ties); a symbol left without a vocabulary entry falls back to its bytes' <0xXX>
 * tokens (or the one-byte token, or unk).
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

/* Read and validate the vocabulary of f: tokenizer.ggml.model "llama" (SPM); tokens (string array, 1..INT32_MAX
 * entries, no text twice; an empty text is named "[EMPTY_<id>]" as llama.cpp does), scores (f32 array, no NaN)
 * and token_type (i32 array, values 0..6) of the same length, both optional (llama.cpp's defaults: score 0,
 * NORMAL); BYTE tokens spelled "<0xXX>"; special ids (bos, eos, unknown, seperator, padding, mask, eot, eom,
 * fim_*: any integer type) in 0..n_tokens-1, or 0xFFFFFFFF / -1 for none, absent ones taking llama.cpp's SPM
 * defaults (unk 0, bos 1, eos 2, others none); add_bos_token, add_eos_token, add_space_prefix (bool; defaults
 * as llama.cpp: true, false, true), with a BOS/EOS token to add; every byte has a fallback token. Tokens with
 * llama.cpp's end-of-turn and FIM texts ("<|eot_id|>", "<|im_end|>", ...) become CONTROL, as there.
 * Each violation logs one message naming the key and the limit and returns VNPU_STATUS_BAD_FILE; an unknown
 * tokenizer model returns VNPU_STATUS_UNSUPPORTED, an allocation failure VNPU_STATUS_NO_MEMORY. On error *out
 * is NULL. The vocabulary copies what it needs: f may be closed afterwards. The 32000-token Llama-2
 * vocabulary loads in a few milliseconds. */
enum vnpu_status vnpu_vocab_load(const struct gguf_file *f, struct vnpu_vocab **out);
void vnpu_vocab_free(struct vnpu_vocab *vocab);

int32_t vnpu_vocab_n_tokens(const struct vnpu_vocab *vocab);
vnpu_token vnpu_vocab_bos(const struct vnpu_vocab *vocab); /* -1 if none */
vnpu_token vnpu_vocab_eos(const struct vnpu_vocab *vocab);
bool vnpu_vocab_add_bos(const struct vnpu_vocab *vocab);
/* End of generation: EOS, EOT, EOM, FIM pad/repo/file-separator, and tokens with llama.cpp's end-of-turn
 * texts ("<|eot_id|>", "<|im_end|>", "<|end|>", "<end_of_turn>", "<|endoftext|>", "<|eom_id|>", "<EOT>"). */
bool vnpu_vocab_is_eog(const struct vnpu_vocab *vocab, vnpu_token token);

/* As vnpu_tokenize (include/vnpu.h): len bytes of text (UTF-8, not validated), at most n_max tokens written
 * to tokens (n_max <= 0: none). Returns the token count, minus the count when it exceeds n_max (the first
 * n_max tokens are written), or INT32_MIN (logged) when len exceeds INT32_MAX, the count would, or scratch
 * memory runs out. Reentrant: the vocabulary is read-only. */
int32_t vnpu_vocab_tokenize(const struct vnpu_vocab *vocab, const char *text, size_t len, vnpu_token *tokens,
                            int32_t n_max, bool add_special, bool parse_special);
/* As vnpu_token_to_piece (include/vnpu.h), which is llama.cpp's llama_token_to_piece with lstrip 0 (what
 * common_token_to_piece passes): NORMAL tokens with U+2581 turned into ' ', BYTE tokens as their byte,
 * USER_DEFINED tokens verbatim, CONTROL and UNKNOWN tokens verbatim when special and empty otherwise,
 * UNDEFINED and UNUSED tokens empty. Returns the byte count (no NUL is written), or minus it when it
 * exceeds size (nothing written); a token outside 0..n_tokens-1 logs an error and gives 0. */
int32_t vnpu_vocab_token_to_piece(const struct vnpu_vocab *vocab, vnpu_token token, char *buf, int32_t size,
                                  bool special);

#endif /* VNPU_VOCAB_H */
