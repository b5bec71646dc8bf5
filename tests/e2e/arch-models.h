/*
 * Small random-weight models of each architecture vnpu runs besides llama-2-style llama (src/model/llama.h), written
 * by vnpu's own GGUF writer and quantizers so that vnpu and llama.cpp load the same file: a Llama 3 (general
 * architecture "llama" with rope_freqs, Llama 3's rope frequency factors as its converter computes them), a Qwen 2
 * (biases on Q, K, V and the output) and a Qwen 3 (RMS norms of Q and K per head, a head dimension of its own, tied
 * embeddings), each in F32, Q4_0 and Q8_0 (every 2-D weight of that type, as a --pure quantization; 1-D tensors F32),
 * each with the real BPE vocabulary its family brings, from llama.cpp's vocabulary-only test files: Llama 3's
 * (models/ggml-vocab-llama-bpe.gguf, 128256 tokens, pre-tokenizer llama-bpe) and Qwen's (ggml-vocab-qwen2.gguf,
 * 151936 tokens, qwen2).
 *
 * A model's weights are drawn from N(0, std) by a stream seeded from its name and tensor's name, so every type of a
 * model quantizes the same floats, and the files are the same bytes on every run (the oracle caches its runs by the
 * file's sha256). Adding a row to the table adds a model to every loop over it.
 */
#ifndef VNPU_TEST_ARCH_MODELS_H
#define VNPU_TEST_ARCH_MODELS_H

#include "type-traits.h"
#include "vnpu.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct arch_model {
    const char *name;  /* file stem: "llama3", "qwen2", "qwen3" */
    const char *arch;  /* general.architecture */
    const char *vocab; /* its vocabulary: llama.cpp's models/ggml-vocab-<vocab>.gguf */
    uint32_t n_embd, n_layer, n_head, n_head_kv, n_ff;
    uint32_t n_embd_head; /* written as attention.key_length / value_length when not n_embd / n_head */
    float rope_freq_base, rms_eps;
    bool rope_freqs; /* rope_freqs.weight: Llama 3.1's frequency factors (factor 8, low 1, high 4, 8192 tokens) */
    bool qkv_bias;   /* attn_q/k/v.bias */
    bool out_bias;   /* output.bias (llama.cpp's qwen2 allows it) */
    bool qk_norm;    /* attn_q_norm, attn_k_norm */
    bool tied;       /* no output.weight: token_embd is the output */
};

/* The models (*n of them). */
const struct arch_model *arch_models(size_t *n);

/* The row named name; NULL when there is none. */
const struct arch_model *arch_model_find(const char *name);

/* Write m with its 2-D weights in type (F32, Q4_0 or Q8_0; the project's reference quantizers) to path, the
 * tokenizer.* keys copied from the vocabulary-only GGUF at vocab_path. VNPU_STATUS_OK, or the failed step's status
 * (logged). */
enum vnpu_status arch_model_write(const struct arch_model *m, enum vnpu_type type, const char *vocab_path,
                                  const char *path);

/* The path of a model file for tests: "arch/<name>-<type>.gguf" (a row of the table, a type name:
 * "arch/qwen2-q8_0.gguf") is written on first use into the test's scratch directory with the row's vocabulary from
 * llama.cpp's source (test_upstream_srcdir), "arch-spm/<name>-<type>.gguf" the same with the 32000-token SPM
 * vocabulary (ggml-vocab-llama-spm.gguf: files a fifth the size, for the malformed corpus's many copies); any other
 * rel is a shared model (test_model_path). Missing resources fail under CI, else skip. The returned string lives
 * until the next call. */
const char *arch_model_path(const char *rel);

#endif /* VNPU_TEST_ARCH_MODELS_H */
