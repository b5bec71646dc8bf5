/* The public model API: load, validate, free, vocabulary accessors. */
#include "llama.h"

#include "log.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

double llama_time_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec * 1e3 + (double) ts.tv_nsec * 1e-6;
}

/* general.architecture must be "llama". */
static enum vnpu_status model_check_arch(const struct gguf_file *f) {
    const int64_t ai = gguf_find_key(f, "general.architecture");
    if (ai < 0 || gguf_kv_type(f, ai) != GGUF_TYPE_STRING) {
        vnpu_log_error("%s: general.architecture is %s", gguf_path(f), ai < 0 ? "missing" : "not a string");
        return VNPU_STATUS_BAD_FILE;
    }
    const struct gguf_str arch = gguf_get_str(f, ai);
    if (!(arch.len == 5 && memcmp(arch.data, "llama", 5) == 0)) {
        vnpu_log_error("%s: architecture '%.*s' is not supported (llama)", gguf_path(f),
                       (int) (arch.len > 64 ? 64 : arch.len), arch.data);
        return VNPU_STATUS_UNSUPPORTED;
    }
    return VNPU_STATUS_OK;
}

/* Architecture, hparams, vocabulary and weights of f into m (which does not own f). */
static enum vnpu_status model_init(const struct gguf_file *f, struct vnpu_model *m) {
    enum vnpu_status st;
    if ((st = model_check_arch(f)) || (st = llama_hparams_load(f, &m->hp)) || (st = vnpu_vocab_load(f, &m->vocab))) {
        return st;
    }
    if ((uint32_t) vnpu_vocab_n_tokens(m->vocab) != m->hp.n_vocab) {
        vnpu_log_error("%s: tokenizer.ggml.tokens has %d entries but token_embd.weight has %u rows", gguf_path(f),
                       vnpu_vocab_n_tokens(m->vocab), m->hp.n_vocab);
        return VNPU_STATUS_BAD_FILE;
    }
    return llama_weights_load(f, &m->hp, &m->w);
}

/* Free what model_init made. */
static void model_release(struct vnpu_model *m) {
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
    return (struct vnpu_model_params){.devices = "CPU"};
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
    if (st == VNPU_STATUS_OK) {
        m->devices = strdup(params && params->devices ? params->devices : "CPU");
        if (!m->devices) {
            vnpu_log_error("%s: cannot allocate the device list", path);
            st = VNPU_STATUS_NO_MEMORY;
        }
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
    snprintf(buf, size, "llama %.2f%s params, %s, %u layers, n_embd %u, n_head %u/%u, n_vocab %u",
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
