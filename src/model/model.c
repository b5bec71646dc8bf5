/* The public model API: load, validate, free, vocabulary accessors. */
#include "llama.h"

#include "log.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double llama_time_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec * 1e3 + (double) ts.tv_nsec * 1e-6;
}

/* Architecture, hparams, vocabulary and weights of f into m (which does not own f). */
static enum vnpu_status model_init(const struct gguf_file *f, struct vnpu_model *m) {
    enum vnpu_status st;
    if ((st = llama_hparams_load(f, &m->hp)) || (st = vnpu_vocab_load(f, &m->vocab))) {
        return st;
    }
    if ((uint32_t) vnpu_vocab_n_tokens(m->vocab) != m->hp.n_vocab) {
        vnpu_log_error("%s: tokenizer.ggml.tokens has %d entries but token_embd.weight has %u rows", gguf_path(f),
                       vnpu_vocab_n_tokens(m->vocab), m->hp.n_vocab);
        return VNPU_STATUS_BAD_FILE;
    }
    return llama_weights_load(f, &m->hp, &m->w);
}

/* ---- weight placement ---- */

/* A weight matrix read by a MUL_MAT of the forward graph (llama-graph.c), and the device that computes it. */
struct weight_use {
    struct vnpu_tensor *t;
    int il;   /* its layer (llama_layer_device: n_layer for the output) */
    int part; /* a tensor split's slice: its device (0..n_part-1); -1: a whole weight */
};

/* Whether dev computes the MUL_MAT of u: its supports_op on a probe node (one activation column), named
 * "load:<weight>" in VNPU_VERBOSE lines. */
static enum vnpu_status weight_probe(struct vnpu_device *dev, const struct weight_use *u, bool *takes) {
    struct vnpu_ctx *ctx = vnpu_ctx_new(4 * vnpu_tensor_overhead(), true);
    if (!ctx) {
        vnpu_log_error("%s: cannot allocate the probe node of weight %s", vnpu_device_name(dev), u->t->name);
        return VNPU_STATUS_NO_MEMORY;
    }
    struct vnpu_tensor *op = vnpu_mul_mat(ctx, u->t, vnpu_new_tensor_2d(ctx, VNPU_TYPE_F32, u->t->ne[0], 1));
    vnpu_set_name(op, "load:%s", u->t->name);
    *takes = vnpu_device_supports_op(dev, op);
    vnpu_ctx_free(ctx);
    return VNPU_STATUS_OK;
}

/* Every weight matrix a MUL_MAT reads; *n gets the count. token_embd is not one: it stays in the file's mapping,
 * and the input's GET_ROWS is the CPU's, as llama.cpp keeps its input layer on the CPU. */
static struct weight_use *weight_uses(const struct vnpu_model *m, int *n) {
    const struct llama_weights *w = &m->w;
    const int n_part = w->n_part > 0 ? w->n_part : 1;
    struct weight_use *u = calloc((7 * (size_t) m->hp.n_layer + 1) * (size_t) n_part, sizeof(*u));
    *n = 0;
    if (!u) {
        return NULL;
    }
    for (int d = 0; d < n_part; d++) { /* a tensor split's slices replace the whole output */
        struct vnpu_tensor *t = w->n_part > 0 ? w->output_part[d] : w->output;
        if (t) { /* NULL: device d computes none of the logits */
            u[(*n)++] = (struct weight_use){t, (int) m->hp.n_layer, w->n_part > 0 ? d : -1};
        }
    }
    for (uint32_t il = 0; il < m->hp.n_layer; il++) {
        const struct llama_layer *y = &w->layers[il];
        for (int d = 0; d < n_part; d++) { /* a tensor split's slices replace the whole matrices */
            const struct llama_layer_part pt = llama_layer_part_get(w, y, d);
            struct vnpu_tensor *const mats[7] = {pt.wq, pt.wk, pt.wv, pt.wo, pt.ffn_gate, pt.ffn_up, pt.ffn_down};
            for (int i = 0; i < 7; i++) {
                if (mats[i]) { /* NULL: device d takes no part in that block */
                    u[(*n)++] = (struct weight_use){mats[i], (int) il, w->n_part > 0 ? d : -1};
                }
            }
        }
    }
    return u;
}

/* Whether weight t takes more bytes than the largest weight buffer of a device of m whose weights are not host memory:
 * one that would stage t (an NPU: src/host/htp-stage.c copies a weight of the file's mapping into one buffer). */
static bool weight_passes_a_max(const struct vnpu_model *m, const struct vnpu_tensor *t) {
    for (int d = 0; d < m->n_devs; d++) {
        struct vnpu_buffer_type *bt = vnpu_device_weight_buffer_type(m->devs[d], t);
        if (bt != vnpu_host_buffer_type() && vnpu_nbytes(t) > vnpu_buffer_type_max_size(bt)) {
            return true;
        }
    }
    return false;
}

/* Bytes t takes in a buffer of type bt, rounded up to the next tensor's alignment. */
static size_t weight_slot(struct vnpu_buffer_type *bt, const struct vnpu_tensor *t) {
    return (vnpu_buffer_type_alloc_size(bt, t) + bt->alignment - 1) / bt->alignment * bt->alignment;
}

/* Place the weights on the devices that compute with them, as llama.cpp's loader selects a weight's buffer type:
 * each block-quantized matrix goes to the weight buffer type of its layer's device (llama_layer_devices: the
 * layer split; a tensor split's slice, part[d], device d's) when that device's supports_op takes its MUL_MAT
 * (token_embd, read by the input's GET_ROWS on the CPU, stays in the mapping), else of the first device of the model's
 * list that does, copied there with vnpu_tensor_set (an HTP device's REPACK buffer tiles it), in buffers of
 * VNPU_BUFFER_USAGE_WEIGHTS of at most the type's max size (as llama.cpp's loader allocates them), as few as that
 * allows; when that device is the CPU, or the weight is F32/F16 (no device stores those in a layout of its own), it
 * stays in the file's mapping (an NPU stages it on first use, into one buffer: one larger than that NPU's weight
 * buffer type's max size is an error, as a placed weight's is). progress gets the fraction of bytes placed. The
 * contexts of the model must include the devices its weights were placed for: the CPU cannot read a tiled weight. The
 * devices are the model's (m->devs), which it holds until it is freed, after its buffers. */
static enum vnpu_status model_place_weights(struct vnpu_model *m, const struct vnpu_model_params *params) {
    struct vnpu_device **devs = m->devs;
    const int n_devs = m->n_devs;
    int n_uses = 0;
    enum vnpu_status st = VNPU_STATUS_OK;
    struct weight_use *uses = weight_uses(m, &n_uses);
    struct vnpu_buffer_type **bts = calloc((size_t) n_uses + 1, sizeof(*bts)); /* NULL: stays in the mapping */
    const void **file_data = calloc((size_t) n_uses + 1, sizeof(*file_data));
    if (!uses || !bts || !file_data) {
        vnpu_log_error("%s: cannot allocate the weight placement tables", gguf_path(m->gguf));
        st = VNPU_STATUS_NO_MEMORY;
    }
    struct vnpu_device *layer_dev[LLAMA_MAX_LAYERS + 1];
    llama_layer_devices(devs, n_devs, (int) m->hp.n_layer, m->w.n_part, layer_dev);
    size_t total = 0, done = 0;
    for (int i = 0; i < n_uses && st == VNPU_STATUS_OK; i++) {
        const bool quantized = vnpu_type_traits_get(uses[i].t->type)->is_quantized;
        if (!quantized && !weight_passes_a_max(m, uses[i].t)) {
            continue; /* stays in the mapping, and fits wherever it is staged (the probes below only when not) */
        }
        struct vnpu_device *first = uses[i].part >= 0 ? devs[uses[i].part] : layer_dev[uses[i].il];
        bool takes = false;
        for (int d = -1; d < n_devs && !takes && st == VNPU_STATUS_OK; d++) { /* d = -1: the layer's device */
            struct vnpu_device *dev = d < 0 ? first : devs[d];
            if (!dev || (d >= 0 && dev == first)) {
                continue;
            }
            st = weight_probe(dev, &uses[i], &takes);
            struct vnpu_buffer_type *bt = takes ? vnpu_device_weight_buffer_type(dev, uses[i].t) : NULL;
            bt = bt == vnpu_host_buffer_type() ? NULL : bt;
            if (quantized) {
                bts[i] = bt;
                total += bts[i] ? vnpu_nbytes(uses[i].t) : 0;
            } else if (bt && vnpu_nbytes(uses[i].t) > vnpu_buffer_type_max_size(bt)) {
                /* a staged copy is one buffer of dev's (src/host/htp-stage.c), checked now, not at the first use */
                vnpu_log_error("%s: weight %s (%s, kept in the file's mapping and staged by %s) takes %zu bytes, "
                               "more than the largest %s buffer (%zu bytes; an HTP buffer's limit follows the window, "
                               "VNPU_WINDOW_MB, and VNPU_MBUF_MB)",
                               gguf_path(m->gguf), uses[i].t->name, vnpu_type_name(uses[i].t->type),
                               vnpu_device_name(dev), vnpu_nbytes(uses[i].t), vnpu_buffer_type_name(bt),
                               vnpu_buffer_type_max_size(bt));
                st = VNPU_STATUS_NO_MEMORY;
            }
        }
    }
    /* Buffers per buffer type, each weight at an offset aligned for it, in the order of the model (layer by layer); a
     * new buffer when the next weight would pass the type's max size, so no weight straddles two. */
    for (int i = 0; i < n_uses && st == VNPU_STATUS_OK; i++) {
        struct vnpu_buffer_type *bt = bts[i];
        if (!bt) {
            continue; /* in the mapping, or placed with an earlier weight of its buffer type */
        }
        const size_t max = vnpu_buffer_type_max_size(bt);
        size_t size = 0;
        int end = i; /* weights [i, end) of type bt go in this buffer */
        for (; end < n_uses; end++) {
            const size_t slot = bts[end] == bt ? weight_slot(bt, uses[end].t) : 0;
            if (size + slot > max) {
                break;
            }
            size += slot;
        }
        if (end == i) {
            vnpu_log_error("%s: weight %s takes %zu bytes, more than the largest %s buffer (%zu bytes)",
                           gguf_path(m->gguf), uses[i].t->name, weight_slot(bt, uses[i].t), vnpu_buffer_type_name(bt),
                           max);
            st = VNPU_STATUS_NO_MEMORY;
            break;
        }
        struct vnpu_buffer **grown = realloc(m->weight_bufs, (size_t) (m->n_weight_bufs + 1) * sizeof(*grown));
        struct vnpu_buffer *buf = NULL;
        st = grown ? vnpu_buffer_type_alloc(bt, size, &buf) : VNPU_STATUS_NO_MEMORY;
        if (grown) {
            m->weight_bufs = grown;
        } else {
            vnpu_log_error("%s: cannot allocate the weight buffer list", gguf_path(m->gguf));
        }
        if (st != VNPU_STATUS_OK) {
            break;
        }
        buf->usage = VNPU_BUFFER_USAGE_WEIGHTS;
        m->weight_bufs[m->n_weight_bufs++] = buf;
        size_t off = 0;
        for (int j = i; j < end; j++) {
            if (bts[j] == bt) {
                file_data[j] = uses[j].t->data;
                vnpu_buffer_place_tensor(buf, uses[j].t, off);
                off += weight_slot(bt, uses[j].t);
            }
        }
        for (int j = i; j < end && st == VNPU_STATUS_OK; j++) {
            if (bts[j] == bt) {
                st = vnpu_tensor_set(uses[j].t, file_data[j], 0, vnpu_nbytes(uses[j].t));
                done += vnpu_nbytes(uses[j].t);
                if (st == VNPU_STATUS_OK && params && params->progress &&
                    !params->progress((float) ((double) done / (double) total), params->progress_user)) {
                    vnpu_log_error("%s: load cancelled", gguf_path(m->gguf));
                    st = VNPU_STATUS_BAD_ARG;
                }
                bts[j] = NULL;
            }
        }
    }
    free(file_data);
    free(bts);
    free(uses);
    return st;
}

/* Free what model_init and vnpu_model_load made: the weights' buffers, then the devices holding them, which may
 * serve other holders on and so first forget the tensor data of the file's mapping (their copies of the weights
 * left in it). */
static void model_release(struct vnpu_model *m) {
    for (int i = 0; i < m->n_weight_bufs; i++) {
        vnpu_buffer_free(m->weight_bufs[i]);
    }
    free(m->weight_bufs);
    m->weight_bufs = NULL;
    m->n_weight_bufs = 0;
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    for (int64_t i = 0; m->n_devs > 0 && i < gguf_n_tensors(m->gguf); i++) {
        const struct gguf_tensor_info *t = gguf_tensor(m->gguf, i);
        lo = (uintptr_t) t->data < lo ? (uintptr_t) t->data : lo;
        hi = (uintptr_t) t->data + t->size > hi ? (uintptr_t) t->data + t->size : hi;
    }
    for (int d = 0; d < m->n_devs; d++) {
        if (lo < hi) {
            vnpu_device_forget_host(m->devs[d], (const void *) lo, hi - lo);
        }
        vnpu_device_free(m->devs[d]);
    }
    m->n_devs = 0;
    llama_weights_free(&m->w);
    vnpu_vocab_free(m->vocab);
    m->vocab = NULL;
}

enum vnpu_status llama_model_validate(const struct gguf_file *f) {
    struct vnpu_model m = {0};
    const enum vnpu_status st = model_init(f, &m);
    model_release(&m);
    return st;
}

struct vnpu_model_params vnpu_model_default_params(void) {
    return (struct vnpu_model_params){.devices = NULL};
}

enum vnpu_status vnpu_model_load(const char *path, const struct vnpu_model_params *params, struct vnpu_model **model) {
    const double t0 = llama_time_ms();
    *model = NULL;
    struct vnpu_model *m = calloc(1, sizeof(*m));
    if (!m) {
        vnpu_log_error("%s: cannot allocate the model", path);
        return VNPU_STATUS_NO_MEMORY;
    }
    enum vnpu_status st = gguf_open(path, &m->gguf);
    if (st == VNPU_STATUS_OK) {
        st = model_init(m->gguf, m);
    }
    if (st == VNPU_STATUS_OK && params && params->devices) {
        m->devices = strdup(params->devices);
        if (!m->devices) {
            vnpu_log_error("%s: cannot allocate the device list", path);
            st = VNPU_STATUS_NO_MEMORY;
        }
    } else if (st == VNPU_STATUS_OK) {
        st = llama_devices_default(&m->devices);
    }
    if (st == VNPU_STATUS_OK && params && params->split_mode != VNPU_SPLIT_MODE_LAYER) {
        char *split = NULL;
        st = llama_devices_split(m->devices, params->split_mode, &split);
        free(m->devices);
        m->devices = split;
    }
    if (st == VNPU_STATUS_OK) {
        st = llama_devices_open(m->devices, 1, m->devs, &m->n_devs);
    }
    if (st == VNPU_STATUS_OK && params && params->split_mode == VNPU_SPLIT_MODE_TENSOR && m->n_devs > 2) {
        st = llama_weights_split(&m->w, &m->hp, m->n_devs - 1); /* every NPU device of the list (the CPU last) */
    }
    if (st == VNPU_STATUS_OK) {
        st = model_place_weights(m, params);
    }
    if (st == VNPU_STATUS_OK && params && params->progress && !params->progress(1.0f, params->progress_user)) {
        vnpu_log_error("%s: load cancelled", path);
        st = VNPU_STATUS_BAD_ARG;
    }
    if (st != VNPU_STATUS_OK) {
        vnpu_model_free(m);
        return st;
    }
    m->t_load_ms = llama_time_ms() - t0;
    *model = m;
    return VNPU_STATUS_OK;
}

void vnpu_model_free(struct vnpu_model *model) {
    if (!model) {
        return;
    }
    model_release(model);
    gguf_close(model->gguf);
    free(model->devices);
    free(model);
}

const char *vnpu_model_devices(const struct vnpu_model *model) {
    return model->devices;
}

int32_t vnpu_model_n_vocab(const struct vnpu_model *model) {
    return (int32_t) model->hp.n_vocab;
}

int32_t vnpu_model_n_ctx_train(const struct vnpu_model *model) {
    return (int32_t) model->hp.n_ctx_train;
}

vnpu_token vnpu_model_bos(const struct vnpu_model *model) {
    return vnpu_vocab_bos(model->vocab);
}

vnpu_token vnpu_model_eos(const struct vnpu_model *model) {
    return vnpu_vocab_eos(model->vocab);
}

bool vnpu_model_add_bos(const struct vnpu_model *model) {
    return vnpu_vocab_add_bos(model->vocab);
}

bool vnpu_model_is_eog(const struct vnpu_model *model, vnpu_token token) {
    return vnpu_vocab_is_eog(model->vocab, token);
}

void vnpu_model_desc(const struct vnpu_model *model, char *buf, size_t size) {
    const struct llama_hparams *hp = &model->hp;
    int64_t n_params = 0;
    int type_count[VNPU_TYPE_COUNT] = {0};
    for (int64_t i = 0; i < gguf_n_tensors(model->gguf); i++) {
        const struct gguf_tensor_info *t = gguf_tensor(model->gguf, i);
        n_params += t->ne[0] * t->ne[1] * t->ne[2] * t->ne[3];
        type_count[t->type] += t->n_dims >= 2;
    }
    int main_type = VNPU_TYPE_F32;
    for (int t = 0; t < VNPU_TYPE_COUNT; t++) {
        main_type = type_count[t] > type_count[main_type] ? t : main_type;
    }
    const double p = (double) n_params;
    snprintf(buf, size, "%s %.2f%s params, %s, %u layers, n_embd %u, n_head %u/%u, n_vocab %u",
             llama_arch_traits_get(hp->arch)->name,
             p >= 1e9   ? p / 1e9
             : p >= 1e6 ? p / 1e6
                        : p / 1e3,
             p >= 1e9   ? "B"
             : p >= 1e6 ? "M"
                        : "K",
             vnpu_type_name((enum vnpu_type) main_type), hp->n_layer, hp->n_embd, hp->n_head, hp->n_head_kv,
             hp->n_vocab);
}

int32_t vnpu_tokenize(const struct vnpu_model *model, const char *text, size_t len, vnpu_token *tokens, int32_t n_max,
                      bool add_special, bool parse_special) {
    return vnpu_vocab_tokenize(model->vocab, text, len, tokens, n_max, add_special, parse_special);
}

int32_t vnpu_token_to_piece(const struct vnpu_model *model, vnpu_token token, char *buf, int32_t size, bool special) {
    return vnpu_vocab_token_to_piece(model->vocab, token, buf, size, special);
}
