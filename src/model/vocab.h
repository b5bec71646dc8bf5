/*
 * The vocabulary and tokenizer of a model, read from the GGUF `tokenizer.ggml.*` keys; the functions that use a
 * loaded vocabulary (tokenize, token_to_piece, the special ids) are public, in include/vnpu.h.
 *
 * SPM (tokenizer.ggml.model = "llama"): llama.cpp's llm_tokenizer_spm (src/llama-vocab.cpp). Special tokens
 * written as text are cut out first: CONTROL and UNKNOWN tokens when parse_special is set, USER_DEFINED
 * tokens always, longest text first. Each remaining run of text is escaped (a space becomes U+2581, with
 * one prepended when add_space_prefix and the run starts the text or follows a special token), split into
 * UTF-8 characters, and adjacent symbols are merged greedily by the score of the merged piece (highest
 * first, leftmost on ties); a symbol left without a vocabulary entry falls back to its bytes' <0xXX>
 * tokens (or the one-byte token, or unk).
 *
 * BPE (tokenizer.ggml.model = "gpt2"): llama.cpp's llm_tokenizer_bpe. The same special tokens are cut out; each
 * remaining run is cut into pieces by the regexes of its pre-tokenizer (tokenizer.ggml.pre; pretok.h), each piece's
 * bytes are spelled with GPT-2's byte-to-unicode map and its characters merged by the ranks of tokenizer.ggml.merges
 * (vocab-bpe.c). docs/TOKENIZER.md lists the supported pre-tokenizers.
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

/* Read and validate the vocabulary of f: tokenizer.ggml.model "llama" (SPM) or "gpt2" (BPE); tokens (string array,
 * 1..INT32_MAX entries, no text twice; an empty text is named "[EMPTY_<id>]" as llama.cpp does), scores (f32 array, no
 * NaN) and token_type (i32 array, values 0..6) of the same length, both optional (llama.cpp's defaults: score 0,
 * NORMAL); BYTE tokens spelled "<0xXX>"; special ids (bos, eos, unknown, seperator, padding, mask, eot, eom, fim_*:
 * any integer type) in 0..n_tokens-1, or 0xFFFFFFFF / -1 for none, absent ones taking llama.cpp's defaults (SPM: unk
 * 0, bos 1, eos 2; BPE: bos and eos 11; others none); add_bos_token, add_eos_token, add_space_prefix (bool; defaults
 * as llama.cpp: SPM true, false, true; BPE the pre-tokenizer's (true for Llama 3's), false, false), with a BOS/EOS
 * token to add; SPM: every byte has a fallback token. BPE: tokenizer.ggml.pre a string vnpu knows (absent: llama.cpp's
 * "default", with a warning), tokenizer.ggml.merges an array of 1..INT32_MAX strings "left right" (cut at the first
 * space after the first byte; the right part not empty; a pair written twice keeps its first rank). Tokens with
 * llama.cpp's end-of-turn, end-of-generation and FIM texts ("<|eot_id|>", "<|im_end|>", ...) become CONTROL, as
 * there. Each violation logs one message naming the key and the limit and returns VNPU_STATUS_BAD_FILE; an unknown
 * tokenizer model or pre-tokenizer returns VNPU_STATUS_UNSUPPORTED, an allocation failure VNPU_STATUS_NO_MEMORY. On
 * error *out is NULL. The vocabulary copies what it needs: f may be closed afterwards. The 32000-token Llama-2
 * vocabulary loads in a few milliseconds, the 128256-token Llama 3 one (280147 merges) in tens. */
enum vnpu_status vnpu_vocab_load(const struct gguf_file *f, struct vnpu_vocab **out);

/* One line such as "gpt2 (BPE, pre llama-bpe, 128256 tokens, 280147 merges)" or "llama (SPM, 32000 tokens)": the
 * tokenizer model as the file names it, its type, what it holds; at most size bytes, NUL-terminated. */
void vnpu_vocab_desc(const struct vnpu_vocab *vocab, char *buf, size_t size);

#endif /* VNPU_VOCAB_H */
