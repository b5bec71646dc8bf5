/* Contexts: devices, KV cache, graph memory; decoding batches of tokens into logits. */
#include "llama.h"

#include "fp16.h"
#include "graph-alloc.h"
#include "htp-host.h"
#include "xdna-host.h"
#include "log.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct vnpu_context {
    struct vnpu_model *model;
    struct vnpu_context_params params;
    char *devices;
    struct vnpu_device *devs[LLAMA_MAX_DEVICES];
    int n_devs;
    struct vnpu_device **layer_dev; /* [n_layer + 1]: each layer's and the output's device (llama_layer_devices) */
    struct llama_kv_cache kv;
    struct vnpu_gallocr *galloc;
    size_t graph_mem; /* arena bytes for one forward graph's tensor structs */
    int graph_size;   /* node capacity of one forward graph */

    float *logits;          /* n_vocab floats per kept row */
    int32_t *logits_row;    /* per token of the last decode: its row in logits, or -1 */
    int32_t n_last;         /* tokens of the last decode */
    size_t logits_capacity; /* rows logits has room for */

    struct vnpu_perf perf;
};

struct vnpu_context_params vnpu_context_default_params(void) {
    const long n_cpu = sysconf(_SC_NPROCESSORS_ONLN);
    return (struct vnpu_context_params){
        .n_ctx = 0,
        .n_batch = 512,
        .n_threads = n_cpu > 0 ? (int32_t) n_cpu : 1,
        .type_k = VNPU_TYPE_F16,
        .type_v = VNPU_TYPE_F16,
        .flash_attn = true,
    };
}

static enum vnpu_status context_check_params(const struct vnpu_model *model, struct vnpu_context_params *p) {
    if (p->n_ctx == 0) {
        p->n_ctx = model->hp.n_ctx_train;
    }
    if (p->n_ctx > (1u << 24) || p->n_batch == 0 || p->n_batch > (1u << 16) || p->n_threads < 1 || p->n_threads > 512) {
        vnpu_log_error("context: n_ctx %u (1..%u), n_batch %u (1..%u), n_threads %d (1..512): out of range", p->n_ctx,
                       1u << 24, p->n_batch, 1u << 16, p->n_threads);
        return VNPU_STATUS_BAD_ARG;
    }
    if (model->n_weight_bufs > 0 && strcmp(p->devices, model->devices) != 0) { /* model.c placed them */
        vnpu_log_error("context: devices '%s', but the model's weights were placed for '%s' at load", p->devices,
                       model->devices);
        return VNPU_STATUS_BAD_ARG;
    }
    const int32_t kv_types[2] = {p->type_k, p->type_v};
    for (int i = 0; i < 2; i++) {
        if (kv_types[i] != VNPU_TYPE_F32 && kv_types[i] != VNPU_TYPE_F16) {
            vnpu_log_error("context: KV cache type %d is not supported (0 = f32, 1 = f16)", kv_types[i]);
            return VNPU_STATUS_BAD_ARG;
        }
    }
    return VNPU_STATUS_OK;
}

enum vnpu_status vnpu_context_new(struct vnpu_model *model, const struct vnpu_context_params *params,
                                  struct vnpu_context **out) {
    const double t0 = llama_time_ms();
    *out = NULL;
    struct vnpu_context *c = calloc(1, sizeof(*c));
    if (!c) {
        vnpu_log_error("context: cannot allocate");
        return VNPU_STATUS_NO_MEMORY;
    }
    c->model = model;
    c->params = params ? *params : vnpu_context_default_params();
    c->devices = strdup(c->params.devices ? c->params.devices : model->devices);
    c->params.devices = c->devices;
    enum vnpu_status st = c->devices ? context_check_params(model, &c->params) : VNPU_STATUS_NO_MEMORY;
    if (st == VNPU_STATUS_OK) {
        st = llama_devices_open(c->devices, c->params.n_threads, c->devs, &c->n_devs);
    }
    if (st == VNPU_STATUS_OK && c->n_devs - 1 < model->w.n_part) {
        vnpu_log_error("context: devices '%s' are %d NPU devices, but the model is split by tensors over %d",
                       c->devices, c->n_devs - 1, model->w.n_part);
        st = VNPU_STATUS_BAD_ARG;
    }
    if (st == VNPU_STATUS_OK) {
        c->layer_dev = calloc((size_t) model->hp.n_layer + 1, sizeof(*c->layer_dev));
        if (c->layer_dev) {
            llama_layer_devices(c->devs, c->n_devs, (int) model->hp.n_layer, model->w.n_part, c->layer_dev);
        } else {
            vnpu_log_error("context: cannot allocate the layer split's table");
            st = VNPU_STATUS_NO_MEMORY;
        }
    }
    for (int d = 0; st == VNPU_STATUS_OK && c->params.trace_path && d < c->n_devs; d++) {
        if (vnpu_htp_device_is(c->devs[d])) {
            st = vnpu_htp_device_trace(c->devs[d], c->params.trace_path);
        } else if (vnpu_xdna_device_is(c->devs[d])) {
            st = vnpu_xdna_device_trace(c->devs[d], c->params.trace_path);
        }
    }
    struct vnpu_buffer_type *bt = st == VNPU_STATUS_OK ? vnpu_device_buffer_type(c->devs[0]) : NULL;
    if (st == VNPU_STATUS_OK) {
        st = llama_kv_cache_init(&c->kv, &model->hp, &model->w, c->params.n_ctx, (enum vnpu_type) c->params.type_k,
                                 (enum vnpu_type) c->params.type_v, bt);
    }
    if (st == VNPU_STATUS_OK && !(c->galloc = vnpu_gallocr_new(bt))) {
        vnpu_log_error("context: cannot allocate the graph allocator");
        st = VNPU_STATUS_NO_MEMORY;
    }
    if (st != VNPU_STATUS_OK) {
        vnpu_context_free(c);
        return st;
    }
    /* A llama layer makes about 40 tensors (nodes and views), a tensor split's about as many per device; the arena
     * holds their structs and the graph. */
    c->graph_size = 64 * (int) model->hp.n_layer * (model->w.n_part > 0 ? model->w.n_part : 1) + 64;
    c->graph_mem = (size_t) c->graph_size * vnpu_tensor_overhead() + vnpu_graph_overhead(c->graph_size);
    c->perf.t_load_ms = model->t_load_ms + (llama_time_ms() - t0);
    *out = c;
    return VNPU_STATUS_OK;
}

void vnpu_context_free(struct vnpu_context *ctx) {
    if (!ctx) {
        return;
    }
    vnpu_gallocr_free(ctx->galloc);
    llama_kv_cache_free(&ctx->kv);
    for (int d = 0; d < ctx->n_devs; d++) {
        vnpu_device_free(ctx->devs[d]);
    }
    free(ctx->layer_dev);
    free(ctx->logits);
    free(ctx->logits_row);
    free(ctx->devices);
    free(ctx);
}

uint32_t vnpu_n_ctx(const struct vnpu_context *ctx) {
    return ctx->kv.n_ctx;
}

void vnpu_kv_cache_truncate(struct vnpu_context *ctx, int32_t pos) {
    if (pos >= 0 && (uint32_t) pos < ctx->kv.n_used) {
        ctx->kv.n_used = (uint32_t) pos;
    }
}

struct vnpu_perf vnpu_perf_get(const struct vnpu_context *ctx) {
    return ctx->perf;
}

/* Positions must continue the cache: pos[0] <= cells used (later cells are dropped), then consecutive. */
static enum vnpu_status decode_check(struct vnpu_context *c, const vnpu_token *tokens, const int32_t *pos,
                                     int32_t n_tokens, uint32_t *start) {
    if (n_tokens <= 0) {
        vnpu_log_error("decode: %d tokens, expected at least 1", n_tokens);
        return VNPU_STATUS_BAD_ARG;
    }
    *start = pos ? (uint32_t) pos[0] : c->kv.n_used;
    if (pos && (pos[0] < 0 || (uint32_t) pos[0] > c->kv.n_used)) {
        vnpu_log_error("decode: position %d does not continue the cache (%u positions held)", pos[0], c->kv.n_used);
        return VNPU_STATUS_BAD_ARG;
    }
    if ((uint64_t) *start + (uint64_t) n_tokens > c->kv.n_ctx) {
        vnpu_log_error("decode: positions %u..%llu exceed the context size %u", *start,
                       (unsigned long long) *start + (unsigned long long) n_tokens - 1, c->kv.n_ctx);
        return VNPU_STATUS_BAD_ARG;
    }
    for (int32_t i = 0; i < n_tokens; i++) {
        if (tokens[i] < 0 || (uint32_t) tokens[i] >= c->model->hp.n_vocab) {
            vnpu_log_error("decode: token %d at index %d is outside the vocabulary (0..%u)", tokens[i], i,
                           c->model->hp.n_vocab - 1);
            return VNPU_STATUS_BAD_ARG;
        }
        if (pos && pos[i] != (int32_t) (*start + (uint32_t) i)) {
            vnpu_log_error("decode: position %d at index %d, expected %u (positions must be consecutive)", pos[i], i,
                           *start + (uint32_t) i);
            return VNPU_STATUS_BAD_ARG;
        }
    }
    return VNPU_STATUS_OK;
}

/* Room for n_tokens rows of logits and their index. */
static enum vnpu_status logits_reserve(struct vnpu_context *c, int32_t n_tokens, int32_t n_rows) {
    const size_t n_vocab = c->model->hp.n_vocab;
    if ((size_t) n_rows > c->logits_capacity || (size_t) n_tokens > c->logits_capacity) {
        const size_t cap = (size_t) (n_tokens > n_rows ? n_tokens : n_rows);
        float *logits = realloc(c->logits, cap * n_vocab * sizeof(float));
        if (logits) {
            c->logits = logits;
        }
        int32_t *rows = realloc(c->logits_row, cap * sizeof(int32_t));
        if (rows) {
            c->logits_row = rows;
        }
        if (!logits || !rows) {
            vnpu_log_error("decode: cannot allocate logits for %zu rows of %zu", cap, n_vocab);
            return VNPU_STATUS_NO_MEMORY;
        }
        c->logits_capacity = cap;
    }
    return VNPU_STATUS_OK;
}

/* Tokens, positions, causal mask and output rows of one batch. */
static void batch_set_inputs(const struct llama_graph_inputs *in, const vnpu_token *tokens, uint32_t start,
                             uint32_t n_tokens, uint32_t n_outputs) {
    int32_t *tok = in->tokens->data, *pos = in->pos->data;
    for (uint32_t i = 0; i < n_tokens; i++) {
        tok[i] = tokens[i];
        pos[i] = (int32_t) (start + i);
    }
    const bool f16 = in->kq_mask->type == VNPU_TYPE_F16;
    for (uint32_t i = 0; i < n_tokens; i++) {
        for (uint32_t j = 0; j < in->n_kv; j++) {
            const bool visible = j <= start + i;
            if (f16) {
                ((vnpu_fp16_t *) in->kq_mask->data)[(size_t) i * in->n_kv + j] = visible ? 0x0000 : 0xfc00;
            } else {
                ((float *) in->kq_mask->data)[(size_t) i * in->n_kv + j] = visible ? 0.0f : -INFINITY;
            }
        }
    }
    if (in->out_ids) {
        int32_t *ids = in->out_ids->data;
        for (uint32_t i = 0; i < n_outputs; i++) {
            ids[i] = (int32_t) (n_tokens - n_outputs + i);
        }
    }
}

/* One graph over tokens[0..n_tokens) at positions start..; logits rows go to c->logits from row0. */
static enum vnpu_status decode_batch(struct vnpu_context *c, const vnpu_token *tokens, uint32_t start,
                                     uint32_t n_tokens, uint32_t n_outputs, int32_t row0) {
    struct vnpu_ctx *gctx = vnpu_ctx_new(c->graph_mem, true);
    if (!gctx) {
        vnpu_log_error("decode: cannot allocate %zu bytes of graph arena", c->graph_mem);
        return VNPU_STATUS_NO_MEMORY;
    }
    struct vnpu_graph *g = vnpu_graph_new(gctx, c->graph_size);
    const struct llama_graph_params p = {.n_tokens = n_tokens,
                                         .n_outputs = n_outputs,
                                         .kv_head = start,
                                         .flash_attn = c->params.flash_attn,
                                         .layer_dev = c->layer_dev,
                                         .tensor_dev = c->devs,
                                         /* token_embd stays in the mapping: the CPU (listed last) reads the
                                          * input's rows, as llama.cpp's input layer is the CPU's */
                                         .input_dev = c->devs[c->n_devs - 1]};
    struct llama_graph_inputs in;
    llama_graph_build(gctx, g, c->model, &c->kv, &p, &in);
    enum vnpu_status st = vnpu_gallocr_alloc_graph(c->galloc, g);
    if (st == VNPU_STATUS_OK) {
        batch_set_inputs(&in, tokens, start, n_tokens, n_outputs);
        st = vnpu_sched_graph_compute(c->devs, c->n_devs, g);
    }
    if (st == VNPU_STATUS_OK) {
        const size_t row_bytes = (size_t) c->model->hp.n_vocab * sizeof(float);
        st = vnpu_tensor_get(in.logits, c->logits + (size_t) row0 * c->model->hp.n_vocab, 0, n_outputs * row_bytes);
        c->kv.n_used = start + n_tokens;
    }
    vnpu_ctx_free(gctx);
    return st;
}

enum vnpu_status vnpu_decode(struct vnpu_context *ctx, const vnpu_token *tokens, const int32_t *pos, int32_t n_tokens,
                             bool logits_all) {
    const double t0 = llama_time_ms();
    uint32_t start;
    enum vnpu_status st = decode_check(ctx, tokens, pos, n_tokens, &start);
    if (st == VNPU_STATUS_OK) {
        st = logits_reserve(ctx, n_tokens, logits_all ? n_tokens : 1);
    }
    if (st != VNPU_STATUS_OK) {
        return st;
    }
    ctx->kv.n_used = start;
    ctx->n_last = n_tokens;
    for (int32_t i = 0; i < n_tokens; i++) {
        ctx->logits_row[i] = logits_all ? i : i == n_tokens - 1 ? 0 : -1;
    }
    const uint32_t n_batch = ctx->params.n_batch;
    for (uint32_t b = 0; b < (uint32_t) n_tokens && st == VNPU_STATUS_OK; b += n_batch) {
        const uint32_t n = (uint32_t) n_tokens - b < n_batch ? (uint32_t) n_tokens - b : n_batch;
        /* Without logits_all only the final token's row is kept; earlier batches still produce one row, which
         * lands in row 0 and is overwritten by the final batch. */
        st = decode_batch(ctx, tokens + b, start + b, n, logits_all ? n : 1, logits_all ? (int32_t) b : 0);
    }
    if (st != VNPU_STATUS_OK) {
        ctx->n_last = 0;
        return st;
    }
    const double dt = llama_time_ms() - t0;
    if (n_tokens > 1) {
        ctx->perf.t_prompt_ms += dt;
        ctx->perf.n_prompt += n_tokens;
    } else {
        ctx->perf.t_eval_ms += dt;
        ctx->perf.n_eval += 1;
    }
    return VNPU_STATUS_OK;
}

const float *vnpu_get_logits(const struct vnpu_context *ctx, int32_t i) {
    if (i < 0) {
        i += ctx->n_last;
    }
    if (i < 0 || i >= ctx->n_last || ctx->logits_row[i] < 0) {
        return NULL;
    }
    return ctx->logits + (size_t) ctx->logits_row[i] * ctx->model->hp.n_vocab;
}
