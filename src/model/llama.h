/*
 * The llama model family: hyperparameters, weights, KV cache and the forward graph of the architectures that share
 * llama's block (general.architecture "llama", "qwen2", "qwen3").
 *
 * Follows llama.cpp's LLM_ARCH_LLAMA, LLM_ARCH_QWEN2 and LLM_ARCH_QWEN3: keys `<arch>.*`, tensors `token_embd`,
 * `blk.N.attn_q` ..., and the graph of their builders (src/models/llama.cpp, qwen2.cpp, qwen3.cpp): pre-norm blocks
 * with RMS_NORM, rotary embedding (normal mode for llama, NEOX for the Qwens), grouped-query attention, SwiGLU
 * feed-forward, tied or separate output. What differs between them is a row of llama_arch_traits (here) and of the
 * tensor tables (llama-weights.c): Llama 3's rope_freqs, Qwen 2's biases on Q, K and V, Qwen 3's RMS norms of Q and K
 * per head.
 */
#ifndef VNPU_LLAMA_H
#define VNPU_LLAMA_H

#include "backend.h"
#include "gguf.h"
#include "htp-host.h"
#include "tensor.h"
#include "vnpu.h"
#include "vocab.h"

#include <stdbool.h>
#include <stdint.h>

#define LLAMA_MAX_LAYERS  512
#define LLAMA_MAX_DEVICES (VNPU_HTP_MAX_DEVICES + 1) /* every NPU device and the CPU */

/* The architectures vnpu runs, named by general.architecture as llama.cpp names them; each has a row of
 * llama_arch_traits and a column of the tensor tables of llama-weights.c. */
enum llama_arch {
    LLAMA_ARCH_LLAMA, /* "llama": Llama 1, 2, 3 (Llama 3's rope frequency factors in rope_freqs) and the like */
    LLAMA_ARCH_QWEN2, /* "qwen2": Qwen 2 and 2.5 (biases on Q, K and V) */
    LLAMA_ARCH_QWEN3, /* "qwen3": Qwen 3 dense (RMS norms of Q and K per head) */
    LLAMA_ARCH_COUNT,
};

/* What an architecture's graph does differently, as llama.cpp's builder of it does (its tensors are in the tables of
 * llama-weights.c). */
struct llama_arch_traits {
    const char *name; /* general.architecture, and the prefix of its hparam keys ("qwen2.block_count") */
    int rope_type;    /* VNPU_ROPE_TYPE_NORMAL or _NEOX: llama.cpp's llama_model_rope_type of the architecture */
    bool q_is_n_embd; /* attn_q and attn_output are [n_embd, n_embd] (llama.cpp's qwen2 tensors), so the heads
                       * must span n_embd: n_embd_head * n_head == n_embd */
};

/* The row of arch (< LLAMA_ARCH_COUNT). */
const struct llama_arch_traits *llama_arch_traits_get(enum llama_arch arch);

/* The architecture named name (len bytes, not NUL-terminated: a GGUF string) into *arch; false, logging nothing, when
 * vnpu runs no architecture of that name. */
bool llama_arch_from_name(const char *name, size_t len, enum llama_arch *arch);

/* The architecture f's general.architecture names. Errors: VNPU_STATUS_BAD_FILE when the key is missing or not a
 * string, VNPU_STATUS_UNSUPPORTED naming the architecture and the ones vnpu runs; logged. */
enum vnpu_status llama_arch_of(const struct gguf_file *f, enum llama_arch *arch);

struct llama_hparams {
    enum llama_arch arch;  /* general.architecture; the keys below are "<arch>.<key>" ("llama.context_length") */
    uint32_t n_vocab;      /* rows of token_embd */
    uint32_t n_ctx_train;  /* context_length */
    uint32_t n_embd;       /* embedding_length */
    uint32_t n_layer;      /* block_count */
    uint32_t n_head;       /* attention.head_count */
    uint32_t n_head_kv;    /* attention.head_count_kv, default n_head */
    uint32_t n_ff;         /* feed_forward_length */
    uint32_t n_embd_head;  /* attention.key_length (= value_length), default n_embd / n_head */
    uint32_t n_rot;        /* rope.dimension_count, default n_embd_head */
    float rms_eps;         /* attention.layer_norm_rms_epsilon (every RMS norm: blocks, output, Qwen 3's Q and K) */
    float rope_freq_base;  /* rope.freq_base, default 10000 */
    float rope_freq_scale; /* 1 / rope.scaling.factor for linear scaling, else 1 */
    uint32_t n_ctx_orig;   /* rope.scaling.original_context_length, default n_ctx_train */
};

/* Read and check the hyperparameters of f, GGML's defaults for the absent optional keys: the architecture
 * (llama_arch_of), each required key "<arch>.<key>" present with an integer (or f32) value in range, head counts
 * dividing (n_embd % n_head, n_head % n_head_kv), rope dims even and <= head dim, and the architecture's own rules
 * (llama_arch_traits). Errors name the key and the limit: VNPU_STATUS_BAD_FILE (VNPU_STATUS_UNSUPPORTED for an
 * architecture or a feature vnpu does not run). n_vocab is filled from token_embd. */
enum vnpu_status llama_hparams_load(const struct gguf_file *f, struct llama_hparams *hp);

/* ---- tensor split (-sm tensor) ---- */

/* Elements [start, start + n) of one dimension. */
struct llama_tensor_range {
    int64_t start;
    int64_t n;
};

/* How every layer's matrices split over n_dev devices (the plan llama_tensor_split_plan makes), all of them by
 * rows, so that each output element is computed by one device with the whole K, exactly as one device computes it.
 * Device d computes the KV heads head_kv[d] (and the n_head / n_head_kv query heads of each: the rows of attn_q,
 * attn_k, attn_v and its slice of the KV cache), the feed-forward features ff[d] (rows of ffn_gate and ffn_up) and
 * the model-dimension rows embd[d] (rows of attn_output and ffn_down), and the output matrix's rows vocab[d] (its
 * logits). Each device's results are gathered into the whole tensor in shared memory before the next matrix (or
 * the caller, for the logits) reads them. */
struct llama_tensor_split {
    int n_dev;
    struct llama_tensor_range head_kv[LLAMA_MAX_DEVICES];
    struct llama_tensor_range ff[LLAMA_MAX_DEVICES];
    struct llama_tensor_range embd[LLAMA_MAX_DEVICES];
    struct llama_tensor_range vocab[LLAMA_MAX_DEVICES]; /* rows of the output matrix: its logits */
};

/* Rows of a tensor split's unit for the features and the model dimension: one 32-row tile of the REPACK formats,
 * and 128 bytes (one line) of an F32 result row, so a device's gathered rows start on a line. */
#define LLAMA_TENSOR_SPLIT_ROWS 32

/* The weights one device computes a layer with: the whole layer's, or in a tensor split device d's slices (views of
 * the rows of its heads, features and model-dimension rows, llama_weights.split; a bias sliced as its matrix's rows).
 * An optional tensor the file lacks is NULL, as is a slice of no rows (the device takes no part in that matrix). */
struct llama_layer_part {
    struct vnpu_tensor *wq, *wk, *wv, *wo, *ffn_gate, *ffn_up, *ffn_down;       /* the seven matrices */
    struct vnpu_tensor *bq, *bk, *bv, *bo, *ffn_gate_b, *ffn_up_b, *ffn_down_b; /* their biases */
    struct vnpu_tensor *attn_q_norm, *attn_k_norm;                              /* per head, so every device's whole */
};

/* One block's tensors; NULL where the file has no such optional tensor (llama-weights.c's table says which each
 * architecture requires, allows or refuses). */
struct llama_layer {
    struct vnpu_tensor *attn_norm;                   /* [n_embd] */
    struct vnpu_tensor *wq;                          /* [n_embd, n_embd_head * n_head] */
    struct vnpu_tensor *wk;                          /* [n_embd, n_embd_head * n_head_kv] */
    struct vnpu_tensor *wv;                          /* [n_embd, n_embd_head * n_head_kv] */
    struct vnpu_tensor *wo;                          /* [n_embd_head * n_head, n_embd] */
    struct vnpu_tensor *bq;                          /* [n_embd_head * n_head]: attn_q's bias (Qwen 2) */
    struct vnpu_tensor *bk;                          /* [n_embd_head * n_head_kv] */
    struct vnpu_tensor *bv;                          /* [n_embd_head * n_head_kv] */
    struct vnpu_tensor *bo;                          /* [n_embd]: attn_output's bias (llama only) */
    struct vnpu_tensor *attn_q_norm;                 /* [n_embd_head]: RMS norm weight of each query head (Qwen 3) */
    struct vnpu_tensor *attn_k_norm;                 /* [n_embd_head]: of each key head (Qwen 3) */
    struct vnpu_tensor *ffn_norm;                    /* [n_embd] */
    struct vnpu_tensor *ffn_gate;                    /* [n_embd, n_ff] */
    struct vnpu_tensor *ffn_up;                      /* [n_embd, n_ff] */
    struct vnpu_tensor *ffn_down;                    /* [n_ff, n_embd] */
    struct vnpu_tensor *ffn_gate_b;                  /* [n_ff] (llama only) */
    struct vnpu_tensor *ffn_up_b;                    /* [n_ff] (llama only) */
    struct vnpu_tensor *ffn_down_b;                  /* [n_embd] (llama only) */
    struct llama_layer_part part[LLAMA_MAX_DEVICES]; /* -sm tensor (llama_weights_split): device d's slices */
};

struct llama_weights {
    struct vnpu_ctx *ctx;            /* tensor structs of every weight (data in the file mapping or a buffer) */
    struct vnpu_tensor *token_embd;  /* [n_embd, n_vocab] */
    struct vnpu_tensor *output_norm; /* [n_embd] */
    struct vnpu_tensor *output;      /* [n_embd, n_vocab]; when tied, token_embd's data in a tensor of its own */
    struct vnpu_tensor *output_b;    /* [n_vocab]: the output's bias (Qwen 2), or NULL */
    struct vnpu_tensor *rope_freqs;  /* [n_rot / 2]: rope frequency factors, ROPE's src[2] (llama: Llama 3), or NULL */
    struct llama_layer *layers;      /* n_layer */
    int n_part;                      /* devices of the tensor split (llama_weights_split); 0: not split */
    struct llama_tensor_split split; /* its plan, when n_part > 0 */
    struct vnpu_tensor *output_part[LLAMA_MAX_DEVICES];   /* device d's rows of output (split.vocab[d]); NULL: none */
    struct vnpu_tensor *output_b_part[LLAMA_MAX_DEVICES]; /* ... of output_b; NULL: none, or no output_b */
    struct vnpu_ctx *split_ctx; /* tensor structs of the slices (views of the weights' data) */
};

/* Find every tensor of f hp->arch requires or allows (llama-weights.c's tables, llama.cpp's tensor lists), check its
 * shape against hp and its type (a type with a dequantizer for 2-D weights, F32 for norms, biases and rope_freqs),
 * and reject tensors the architecture does not use. Makes tensor structs whose data points into the read-only
 * mapping. VNPU_STATUS_BAD_FILE naming the tensor on error (VNPU_STATUS_UNSUPPORTED for a weight type vnpu cannot
 * compute with, or fused attn_qkv projections). */
enum vnpu_status llama_weights_load(const struct gguf_file *f, const struct llama_hparams *hp, struct llama_weights *w);
void llama_weights_free(struct llama_weights *w);

/* Everything a file must satisfy to run as a model here: the architecture (llama_arch_of), hparams, vocabulary
 * (with as many tokens as token_embd has rows) and tensors, as vnpu_model_load checks them, keeping
 * nothing. VNPU_STATUS_UNSUPPORTED when general.architecture is not one vnpu runs. */
enum vnpu_status llama_model_validate(const struct gguf_file *f);

struct vnpu_model {
    struct gguf_file *gguf;
    struct vnpu_vocab *vocab;
    struct llama_hparams hp;
    struct llama_weights w;
    char *devices; /* the device list contexts use unless told otherwise */
    double t_load_ms;
    /* The devices of the list (llama_devices_open), held while the model lives: its weights are in their buffer
     * types and its contexts share them (one session per NPU device for the model and all its contexts). */
    struct vnpu_device *devs[LLAMA_MAX_DEVICES];
    int n_devs;
    struct vnpu_buffer **weight_bufs; /* device buffers holding placed weights (model.c): several per buffer type when
                                         the weights pass its max size */
    int n_weight_bufs;
};

/* The KV cache of one sequence: per layer K and V of [n_embd_head * n_head_kv, n_ctx] in type_k/type_v,
 * cell i holding position i; in a tensor split (w->n_part > 0) per layer and device d the K and V of the device's
 * KV heads (split.head_kv[d]), at index il * n_part + d, NULL when it has none. */
struct llama_kv_cache {
    uint32_t n_ctx;
    uint32_t n_used; /* cells 0..n_used-1 hold positions 0..n_used-1 */
    int n_part;      /* tensors per layer: the tensor split's devices, or 1 */
    struct vnpu_ctx *ctx;
    struct vnpu_buffer *buf;
    struct vnpu_tensor **k; /* n_layer * n_part */
    struct vnpu_tensor **v;
};

enum vnpu_status llama_kv_cache_init(struct llama_kv_cache *kv, const struct llama_hparams *hp,
                                     const struct llama_weights *w, uint32_t n_ctx, enum vnpu_type type_k,
                                     enum vnpu_type type_v, struct vnpu_buffer_type *bt);
void llama_kv_cache_free(struct llama_kv_cache *kv);

/* Inputs of one forward graph, filled by the caller after allocation. */
struct llama_graph_inputs {
    struct vnpu_tensor *tokens;  /* I32 [n_tokens] */
    struct vnpu_tensor *pos;     /* I32 [n_tokens] */
    struct vnpu_tensor *kq_mask; /* F32 (soft_max) or F16 (flash attention) [n_kv, n_tokens] */
    struct vnpu_tensor *out_ids; /* I32 [n_outputs]: rows whose logits are kept; NULL = all */
    struct vnpu_tensor *logits;  /* F32 [n_vocab, n_outputs] */
    uint32_t n_kv;               /* KV cells attended to: positions 0..n_kv-1 */
};

struct llama_graph_params {
    uint32_t n_tokens;
    uint32_t n_outputs; /* 1 (last token) or n_tokens */
    uint32_t kv_head;   /* cache cell of the first token (= its position) */
    bool flash_attn;
    struct vnpu_device *const *layer_dev;  /* [n_layer + 1]: each layer's and the output's device (the node's
                                            * preferred device, llama_layer_devices); NULL: no preference */
    struct vnpu_device *const *tensor_dev; /* [model->w.n_part]: the devices of a tensor split, device d computing
                                            * the slices part[d] of every layer */
    struct vnpu_device *input_dev;         /* the input's (token embedding's) device; NULL: no preference */
};

/* Build the forward graph of p.n_tokens tokens into g (tensors in ctx, no data), writing K/V of the new
 * tokens into cells kv_head.. of the cache. Every node of layer il gets p.layer_dev[il] as its preferred device,
 * the output's nodes p.layer_dev[n_layer], the input's (token embedding) p.input_dev; in a tensor split the nodes of
 * device d's slices p.tensor_dev[d], each writing its rows of the whole result (its heads' attention, its rows of
 * attn_output, its features, its rows of ffn_down, its logits) into a gather tensor the next matrix (or the
 * caller) reads whole; norms and residual ADDs on p.layer_dev[il]. */
void llama_graph_build(struct vnpu_ctx *ctx, struct vnpu_graph *g, const struct vnpu_model *model,
                       const struct llama_kv_cache *kv, const struct llama_graph_params *p,
                       struct llama_graph_inputs *in);

/* Milliseconds on a monotonic clock. */
double llama_time_ms(void);

/* Open the devices named in list ("CPU", "HTP0,HTP1", "HTP0[0-1]", case-sensitive as llama.cpp names them; commas
 * inside brackets belong to a group) in their order,
 * except the CPU, which comes last wherever it is named and is appended when absent: the fallback for ops no
 * other device takes ("HTP0,CPU,HTP1" opens HTP0, HTP1, CPU). An HTP device is the process's one
 * (vnpu_htp_device_get: whoever else holds it shares its session); the CPU device is the caller's own, with
 * n_threads threads, as ggml makes a CPU backend per context. vnpu_device_free each. VNPU_STATUS_BAD_ARG naming
 * an unknown device or one named twice (an HTP<n> in two items: HTP0,HTP0[0-1]). */
enum vnpu_status llama_devices_open(const char *list, int n_threads, struct vnpu_device **devs, int *n_devs);

/* The device list of split mode mode over list (allocated into *out; the caller frees it): layer, list itself;
 * row, its HTP<n> devices as one group "HTP<first>[<n>,...]" (the CPU kept as named; one NPU device or none, or
 * one group, stays as it is); tensor, list itself, every item an HTP<n> or the CPU (vnpu_model_load splits the
 * matrices over the NPU devices when there are two or more). Errors: VNPU_STATUS_BAD_ARG (row over a group next to
 * other NPU devices, tensor over a group, either over an unknown device), VNPU_STATUS_NO_MEMORY. */
enum vnpu_status llama_devices_split(const char *list, enum vnpu_split_mode mode, char **out);

/* The devices a model runs on when none are named, as llama.cpp offloads to every GPU it finds and splits the
 * layers over them: every NPU device, "HTP0,...,HTP<VNPU_NDEV-1>" (llama_devices_open then appends the CPU as the
 * fallback). *list is allocated (the caller frees it). Errors: vnpu_htp_device_count's (a bad environment),
 * VNPU_STATUS_NO_MEMORY. */
enum vnpu_status llama_devices_default(char **list);

/* The device (0..n_split-1) of layer il of n_layer split over n_split devices (n_split >= 1), il == n_layer
 * being the output layer: llama.cpp's --split-mode layer with equal tensor_split fractions
 * (llama_model::load_tensors, get_layer_buft_list), which counts the output as a layer and gives il to the
 * first device d whose cumulative share (d + 1) / n_split exceeds il / (n_layer + 1). 16 layers on 2 devices:
 * 0..8 on device 0, 9..15 and the output on device 1. */
int llama_layer_device(int il, int n_layer, int n_split);

/* layer_dev[0..n_layer]: the device of each layer and (index n_layer) of the output, by llama_layer_device over
 * the devices of devs (as llama_devices_open made them) but the last, the CPU; all NULL (no preference) when the
 * CPU is the only device; all devs[0] in a tensor split (n_part > 0: every device computes part of every layer,
 * and devs[0] the norms, the sums of the partials and the output). */
void llama_layer_devices(struct vnpu_device **devs, int n_devs, int n_layer, int n_part,
                         struct vnpu_device **layer_dev);

/* The plan of hp's layers over n_dev (2..LLAMA_MAX_DEVICES - 1) devices. Units: one KV head (with its query
 * heads); LLAMA_TENSOR_SPLIT_ROWS features, rows of the model dimension, rows of the output (vocabulary). Each device
 * gets units / n_dev units, the last also the remainder (units and elements), as the seed's htp-tensor.h ranges do; a
 * dimension of fewer units than devices is not split (device 0 computes it whole, the others get empty ranges: the
 * seed's device-0 fallback). Error: VNPU_STATUS_BAD_ARG (logged) for n_dev out of range. */
enum vnpu_status llama_tensor_split_plan(const struct llama_hparams *hp, int n_dev, struct llama_tensor_split *s);

/* Split every layer of w over n_part devices by the plan of llama_tensor_split_plan (w->split): device d's slices
 * are views of rows of the weights' data (of a bias, the elements of its matrix's rows), named "<weight>.part<d>"; a
 * whole range is the weight itself, an empty one NULL (the device takes no part in that matrix); the per-head norms
 * are every device's whole. Sets w->n_part. Errors: the plan's, VNPU_STATUS_NO_MEMORY. */
enum vnpu_status llama_weights_split(struct llama_weights *w, const struct llama_hparams *hp, int n_part);

/* The weights device d computes layer y of w with: its slices y->part[d] in a tensor split, else (d = 0) the
 * whole layer's. */
struct llama_layer_part llama_layer_part_get(const struct llama_weights *w, const struct llama_layer *y, int d);

#endif /* VNPU_LLAMA_H */
