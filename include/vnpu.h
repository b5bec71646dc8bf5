/*
 * vnpu: a GGML-style NPU inference backend running on a virtual Hexagon NPU.
 *
 * Public C API: load a GGUF model, make a context on a list of devices, tokenize, decode a batch of
 * tokens into logits, sample. Every function that can fail returns an enum vnpu_status and reports the
 * cause once through the log callback (what, where, which limit).
 */
#ifndef VNPU_H
#define VNPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 0 is success; every error is negative. */
enum vnpu_status {
    VNPU_STATUS_OK = 0,
    VNPU_STATUS_BAD_ARG = -1,     /* a parameter out of its documented range */
    VNPU_STATUS_BAD_FILE = -2,    /* a file that is not what it claims (GGUF structure, model contents) */
    VNPU_STATUS_IO = -3,          /* open/read/write/mmap failed */
    VNPU_STATUS_NO_MEMORY = -4,   /* an allocation failed */
    VNPU_STATUS_UNSUPPORTED = -5, /* valid input that vnpu does not implement (architecture, type, op) */
    VNPU_STATUS_DEVICE = -6,      /* a device reported an error for a request */
};

/* Text of a status ("ok", "bad file", ...); never NULL. */
const char *vnpu_status_str(enum vnpu_status status);

enum vnpu_log_level {
    VNPU_LOG_ERROR = 0,
    VNPU_LOG_WARN = 1,
    VNPU_LOG_INFO = 2,
    VNPU_LOG_DEBUG = 3,
};

/* Receives every message with level <= the set level; text has no trailing newline. */
typedef void (*vnpu_log_fn)(enum vnpu_log_level level, const char *text, void *user);

/* Route log messages to fn (NULL restores the default: stderr) and set the most verbose level shown
 * (default VNPU_LOG_WARN, or VNPU_LOG env var: 0..3). Not thread-safe against concurrent logging. */
void vnpu_log_set(vnpu_log_fn fn, void *user, enum vnpu_log_level max_level);

typedef int32_t vnpu_token;

struct vnpu_model;
struct vnpu_context;
struct vnpu_sampler;

/* Called during long loads with done/total in [0, 1]; return false to cancel (the load then fails with
 * VNPU_STATUS_BAD_ARG and frees everything it made). */
typedef bool (*vnpu_progress_fn)(float progress, void *user);

/* How a model spreads over the NPU devices of its list (llama.cpp's --split-mode). */
enum vnpu_split_mode {
    VNPU_SPLIT_MODE_LAYER = 0,  /* each device holds its share of the layers (weights, KV cache) and computes them:
                                   less memory per session; one session works at a time */
    VNPU_SPLIT_MODE_ROW = 1,    /* the devices become one group (HTP0[0-1]): every op runs on all their sessions, each
                                   computing its partition of the output rows, fenced around every op: parallelism */
    VNPU_SPLIT_MODE_TENSOR = 2, /* every weight matrix split by rows over the devices (attn_q/k/v by heads, the KV
                                   cache too; ffn_gate/up by features; attn_output, ffn_down by model rows), each
                                   device's rows gathered into the whole result: 1/n of each layer per session, the
                                   same logits as one device; the devices take turns */
};

struct vnpu_model_params {
    /* Comma-separated device names: "HTP0", "HTP0,HTP1" (NPU devices, the layers split over them as llama.cpp's
     * --split-mode layer splits them over GPUs), "HTP0[0-1]" (one device whose every op runs on the sessions of HTP0
     * and HTP1, each computing its partition of the output rows: row split; "HTP0[0-3]", "HTP0[0,2]"; a member
     * must exist, < VNPU_NDEV, and appear once in the list), "CPU" (the reference backend alone); the CPU is always
     * added last, the fallback for ops no NPU device takes. NULL: every NPU device, HTP0..HTP<VNPU_NDEV - 1> (HTP0 by
     * default), as llama.cpp offloads to all the GPUs it finds and splits the layers over them. */
    const char *devices;
    /* Over the NPU devices of devices (or of the default list): layer (default), row (HTP0,HTP1 becomes the group
     * HTP0[0,1]; a list naming a group already is refused), tensor (the list as it is, of HTP<n> and CPU only; two or
     * more NPU devices split every layer). vnpu_model_devices shows the result. */
    enum vnpu_split_mode split_mode;
    vnpu_progress_fn progress;
    void *progress_user;
};

/* devices NULL (every NPU device), no progress callback. */
struct vnpu_model_params vnpu_model_default_params(void);

/* Load a GGUF model (architecture llama, qwen2 or qwen3) from path. The file is mapped read-only and validated as GGUF
 * and as a model (hparams, tokenizer, tensor shapes); on error *model is NULL and the cause was logged.
 * params NULL: vnpu_model_default_params(). The model opens its devices and holds them until it is freed, its
 * weights placed in their buffers; its contexts compute on the same devices (one NPU session per device). */
enum vnpu_status vnpu_model_load(const char *path, const struct vnpu_model_params *params, struct vnpu_model **model);
/* Free the model, after its contexts. NULL is a no-op. */
void vnpu_model_free(struct vnpu_model *model);

/* The device list the model was loaded for, the default resolved ("HTP0", "HTP0,HTP1", "CPU"), without the CPU
 * fallback unless it was named; valid while the model lives. */
const char *vnpu_model_devices(const struct vnpu_model *model);

int32_t vnpu_model_n_vocab(const struct vnpu_model *model);
int32_t vnpu_model_n_ctx_train(const struct vnpu_model *model);
vnpu_token vnpu_model_bos(const struct vnpu_model *model); /* -1 when the vocabulary has none */
vnpu_token vnpu_model_eos(const struct vnpu_model *model);
bool vnpu_model_add_bos(const struct vnpu_model *model);
/* True for end-of-generation tokens (EOS, EOT). */
bool vnpu_model_is_eog(const struct vnpu_model *model, vnpu_token token);
/* One line such as "llama 292.80K params, F32, 5 layers, n_embd 64" (the architecture first: llama, qwen2, qwen3);
 * writes at most size bytes. */
void vnpu_model_desc(const struct vnpu_model *model, char *buf, size_t size);

/* vnpu_vocab_tokenize (below) with the model's vocabulary. */
int32_t vnpu_tokenize(const struct vnpu_model *model, const char *text, size_t len, vnpu_token *tokens, int32_t n_max,
                      bool add_special, bool parse_special);

/* vnpu_vocab_token_to_piece (below) with the model's vocabulary. */
int32_t vnpu_token_to_piece(const struct vnpu_model *model, vnpu_token token, char *buf, int32_t size, bool special);

/* ---- a vocabulary alone ---- */

/* A model's tokenizer: the tokenizer.ggml.* keys of a GGUF file, read-only once loaded (threads may share it). */
struct vnpu_vocab;

/* Load only the vocabulary of the GGUF file at path: its tokenizer.ggml.* keys, validated as vnpu_model_load
 * validates them (SPM "llama" and BPE "gpt2" tokenizers, docs/TOKENIZER.md); its architecture, hparams and tensors
 * are not read, so vocabulary-only files (llama.cpp's models/ggml-vocab-*.gguf) load. On error *vocab is NULL and the
 * cause was logged: VNPU_STATUS_IO (cannot open), VNPU_STATUS_BAD_FILE (not GGUF, or a malformed key),
 * VNPU_STATUS_UNSUPPORTED (a tokenizer or pre-tokenizer vnpu does not implement), VNPU_STATUS_NO_MEMORY. The file is
 * closed before it returns. */
enum vnpu_status vnpu_vocab_load_file(const char *path, struct vnpu_vocab **vocab);
void vnpu_vocab_free(struct vnpu_vocab *vocab); /* NULL is a no-op */

int32_t vnpu_vocab_n_tokens(const struct vnpu_vocab *vocab);
vnpu_token vnpu_vocab_bos(const struct vnpu_vocab *vocab); /* -1 if none */
vnpu_token vnpu_vocab_eos(const struct vnpu_vocab *vocab);
bool vnpu_vocab_add_bos(const struct vnpu_vocab *vocab); /* tokenize with add_special prepends BOS */
/* End of generation: EOS, EOT, EOM, FIM pad/repo/file-separator, and tokens with llama.cpp's end-of-generation texts
 * ("<|eot_id|>", "<|im_end|>", "<|end|>", "<end_of_turn>", "<|endoftext|>", "</s>", "<|end_of_text|>", ...). */
bool vnpu_vocab_is_eog(const struct vnpu_vocab *vocab, vnpu_token token);

/* Tokenize len bytes of text (UTF-8, not validated: invalid bytes tokenize as llama.cpp tokenizes them) as llama.cpp's
 * llama_tokenize does; at most n_max tokens written to tokens (n_max <= 0: none). add_special: BOS (and EOS) as the
 * vocabulary says; parse_special: CONTROL and UNKNOWN tokens written as text ("<s>", "<|im_start|>") become those
 * tokens (USER_DEFINED ones always do). Returns the token count, minus the count when it exceeds n_max (the first
 * n_max tokens are written), or INT32_MIN (logged) when len exceeds INT32_MAX, the count would, scratch memory runs
 * out, or (BPE) the text holds a 4-byte UTF-8 sequence past U+10FFFF, which llama.cpp's BPE throws on. Reentrant. */
int32_t vnpu_vocab_tokenize(const struct vnpu_vocab *vocab, const char *text, size_t len, vnpu_token *tokens,
                            int32_t n_max, bool add_special, bool parse_special);
/* The text of one token as llama.cpp's llama_token_to_piece gives it with lstrip 0 (what common_token_to_piece
 * passes, and llama-tokenize prints): NORMAL tokens as text (SPM: U+2581 as ' '; BPE: each character spelled back as
 * the byte GPT-2's byte-to-unicode map gave it), BYTE tokens as their byte, USER_DEFINED tokens verbatim, CONTROL and
 * UNKNOWN tokens verbatim when special and empty otherwise, UNDEFINED and UNUSED tokens empty. Returns the byte count
 * (no NUL is written), or minus it when it exceeds size (nothing written); a token outside 0..n_tokens-1 logs an
 * error and gives 0. */
int32_t vnpu_vocab_token_to_piece(const struct vnpu_vocab *vocab, vnpu_token token, char *buf, int32_t size,
                                  bool special);

struct vnpu_context_params {
    uint32_t n_ctx;      /* KV cache size in tokens; 0 = the model's n_ctx_train */
    uint32_t n_batch;    /* most tokens one vnpu_decode call may take */
    int32_t n_threads;   /* CPU threads */
    const char *devices; /* NULL = the model's devices */
    int32_t type_k;      /* KV cache element type as a GGML type id: 0 = F32, 1 = F16 (default) */
    int32_t type_v;
    bool flash_attn;        /* FLASH_ATTN_EXT (true, default) or MUL_MAT + SOFT_MAX attention */
    const char *trace_path; /* NPU devices trace their requests into this file (Chrome trace-event JSON, which
                             * Perfetto opens), complete when the devices close: once the context and its model
                             * (which holds them) are freed; NULL: VNPU_TRACE or none */
};

/* n_ctx 0, n_batch 512, n_threads all online cores, F16 KV cache, flash attention, devices NULL (the model's). */
struct vnpu_context_params vnpu_context_default_params(void);

enum vnpu_status vnpu_context_new(struct vnpu_model *model, const struct vnpu_context_params *params,
                                  struct vnpu_context **ctx);
void vnpu_context_free(struct vnpu_context *ctx);
uint32_t vnpu_n_ctx(const struct vnpu_context *ctx);

/* Run the model on n_tokens tokens at positions pos[i] (pos NULL: continue after the last position),
 * appending them to the KV cache. logits_all: keep every position's logits, else only the last.
 * n_tokens may exceed n_batch: the call splits it. Errors: position past n_ctx, token out of vocab. */
enum vnpu_status vnpu_decode(struct vnpu_context *ctx, const vnpu_token *tokens, const int32_t *pos, int32_t n_tokens,
                             bool logits_all);

/* Logits (n_vocab floats) of the i-th token of the last decode; i = -1 is the last one. NULL when that
 * position's logits were not kept. */
const float *vnpu_get_logits(const struct vnpu_context *ctx, int32_t i);

/* Drop KV cache entries at positions >= pos. */
void vnpu_kv_cache_truncate(struct vnpu_context *ctx, int32_t pos);

struct vnpu_perf {
    double t_load_ms;
    double t_prompt_ms;
    int32_t n_prompt;
    double t_eval_ms;
    int32_t n_eval;
};

/* Timings: load (model + context), prompt decodes (n_tokens > 1), single-token decodes. */
struct vnpu_perf vnpu_perf_get(const struct vnpu_context *ctx);

struct vnpu_sampler_params {
    float temp;    /* <= 0: greedy (argmax, lowest id on ties) */
    int32_t top_k; /* keep the k largest logits; <= 0 or >= n_vocab: off */
    float top_p;   /* keep the shortest best-first prefix with this much probability (at least 1); >= 1: off */
    float min_p;   /* keep tokens with at least min_p times the top token's probability; <= 0: off */
    uint64_t seed; /* xoshiro256** seeded through splitmix64: a seed and the logits fix the tokens */
};

/* llama.cpp's defaults: temp 0.8, top_k 40, top_p 0.95, min_p 0.05; seed 0 (fixed: a caller wanting variety
 * passes one). */
struct vnpu_sampler_params vnpu_sampler_default_params(void);
/* A sampler with its own generator state; NULL (logged) when temp, top_p or min_p is NaN or memory runs out. */
struct vnpu_sampler *vnpu_sampler_new(const struct vnpu_sampler_params *params);
void vnpu_sampler_free(struct vnpu_sampler *sampler); /* NULL is a no-op */
/* Pick a token from n_vocab logits, in llama.cpp's default chain order: top-k, top-p (on the untempered
 * distribution, as llama_sampler_top_p with min_keep 1), min-p, temperature, then a draw from the seeded
 * generator.
 * Equal logits rank by lower id; a NaN logit counts as -inf; when the largest logit is not finite (all -inf,
 * or a +inf) the argmax is returned. -1 (logged) when logits is NULL, n_vocab <= 0 or memory runs out.
 * Advances the generator: not thread-safe on one sampler. */
vnpu_token vnpu_sampler_sample(struct vnpu_sampler *sampler, const float *logits, int32_t n_vocab);

#ifdef __cplusplus
}
#endif

#endif /* VNPU_H */
