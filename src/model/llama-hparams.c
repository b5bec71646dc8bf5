#include "llama.h"

#include "log.h"

#include <math.h>
#include <string.h>

/* Key of f's architecture: "<arch>." + suffix ("qwen2.block_count"). */
static const char *hparam_key(char *buf, size_t size, const struct llama_hparams *hp, const char *suffix) {
    snprintf(buf, size, "%s.%s", llama_arch_traits_get(hp->arch)->name, suffix);
    return buf;
}

/* An integer hparam in [min, max]. Absent: *v = def when optional, else an error. */
static enum vnpu_status hparam_u32(const struct gguf_file *f, const struct llama_hparams *hp, const char *suffix,
                                   bool required, uint32_t def, uint32_t min, uint32_t max, uint32_t *v) {
    char key[128];
    hparam_key(key, sizeof(key), hp, suffix);
    const int64_t i = gguf_find_key(f, key);
    if (i < 0) {
        if (required) {
            vnpu_log_error("%s: missing key %s", gguf_path(f), key);
            return VNPU_STATUS_BAD_FILE;
        }
        *v = def;
        return VNPU_STATUS_OK;
    }
    int64_t value;
    if (!gguf_get_int(f, i, &value)) {
        if (gguf_kv_type(f, i) == GGUF_TYPE_UINT64) { /* an integer, past INT64_MAX */
            vnpu_log_error("%s: key %s = %llu is out of range [%u, %u]", gguf_path(f), key,
                           (unsigned long long) gguf_get_u64(f, i), min, max);
        } else {
            vnpu_log_error("%s: key %s has type %s, expected an integer", gguf_path(f), key,
                           gguf_type_name(gguf_kv_type(f, i)));
        }
        return VNPU_STATUS_BAD_FILE;
    }
    if (value < (int64_t) min || value > (int64_t) max) {
        vnpu_log_error("%s: key %s = %lld is out of range [%u, %u]", gguf_path(f), key, (long long) value, min, max);
        return VNPU_STATUS_BAD_FILE;
    }
    *v = (uint32_t) value;
    return VNPU_STATUS_OK;
}

/* A float hparam (f32 or f64 in the file), finite and in [min, max]. */
static enum vnpu_status hparam_f32(const struct gguf_file *f, const struct llama_hparams *hp, const char *suffix,
                                   bool required, float def, float min, float max, float *v) {
    char key[128];
    hparam_key(key, sizeof(key), hp, suffix);
    const int64_t i = gguf_find_key(f, key);
    if (i < 0) {
        if (required) {
            vnpu_log_error("%s: missing key %s", gguf_path(f), key);
            return VNPU_STATUS_BAD_FILE;
        }
        *v = def;
        return VNPU_STATUS_OK;
    }
    double value;
    switch (gguf_kv_type(f, i)) {
        case GGUF_TYPE_FLOAT32: value = gguf_get_f32(f, i); break;
        case GGUF_TYPE_FLOAT64: value = gguf_get_f64(f, i); break;
        default:
            vnpu_log_error("%s: key %s has type %s, expected f32", gguf_path(f), key,
                           gguf_type_name(gguf_kv_type(f, i)));
            return VNPU_STATUS_BAD_FILE;
    }
    if (!isfinite(value) || value < min || value > max) {
        vnpu_log_error("%s: key %s = %g is out of range [%g, %g]", gguf_path(f), key, value, min, max);
        return VNPU_STATUS_BAD_FILE;
    }
    *v = (float) value;
    return VNPU_STATUS_OK;
}

/* Rope scaling, as llama.cpp reads it: <arch>.rope.scaling.type "none" or "linear" (absent means linear: a
 * factor given alone scales linearly), the factor from <arch>.rope.scaling.factor or the older
 * <arch>.rope.scale_linear, 0 or absent meaning no scaling; other types change the rope math (unsupported). Llama
 * 3's scaling has no key: its converter writes the frequency factors into rope_freqs (llama-weights.c). */
static enum vnpu_status hparam_rope_scaling(const struct gguf_file *f, struct llama_hparams *hp) {
    hp->rope_freq_scale = 1.0f;
    char key[128];
    const int64_t ti = gguf_find_key(f, hparam_key(key, sizeof(key), hp, "rope.scaling.type"));
    bool linear = true;
    if (ti >= 0) {
        if (gguf_kv_type(f, ti) != GGUF_TYPE_STRING) {
            vnpu_log_error("%s: key %s has type %s, expected str", gguf_path(f), key,
                           gguf_type_name(gguf_kv_type(f, ti)));
            return VNPU_STATUS_BAD_FILE;
        }
        const struct gguf_str s = gguf_get_str(f, ti);
        linear = s.len == 6 && memcmp(s.data, "linear", 6) == 0;
        if (!linear && !(s.len == 4 && memcmp(s.data, "none", 4) == 0)) {
            vnpu_log_error("%s: %s '%.*s' is not supported (none, linear)", gguf_path(f), key,
                           (int) (s.len > 32 ? 32 : s.len), s.data);
            return VNPU_STATUS_UNSUPPORTED;
        }
    }
    const char *factor_key = gguf_find_key(f, hparam_key(key, sizeof(key), hp, "rope.scaling.factor")) >= 0
                                 ? "rope.scaling.factor"
                                 : "rope.scale_linear";
    float factor = 0.0f;
    enum vnpu_status st = hparam_f32(f, hp, factor_key, false, 0.0f, 0.0f, 1e3f, &factor);
    if (st != VNPU_STATUS_OK) {
        return st;
    }
    if (linear && factor != 0.0f) {
        if (factor < 1e-3f) {
            vnpu_log_error("%s: key %s = %g is out of range [0.001, 1000] (or 0: no scaling)", gguf_path(f),
                           hparam_key(key, sizeof(key), hp, factor_key), (double) factor);
            return VNPU_STATUS_BAD_FILE;
        }
        hp->rope_freq_scale = 1.0f / factor;
    }
    return hparam_u32(f, hp, "rope.scaling.original_context_length", false, hp->n_ctx_train, 1, 1u << 24,
                      &hp->n_ctx_orig);
}

/* n_vocab from token_embd's second dimension. */
static enum vnpu_status hparam_n_vocab(const struct gguf_file *f, struct llama_hparams *hp) {
    const int64_t ti = gguf_find_tensor(f, "token_embd.weight");
    if (ti < 0) {
        vnpu_log_error("%s: missing tensor token_embd.weight", gguf_path(f));
        return VNPU_STATUS_BAD_FILE;
    }
    const struct gguf_tensor_info *t = gguf_tensor(f, ti);
    if (t->n_dims != 2) {
        vnpu_log_error(
            "%s: tensor token_embd.weight has %u dims [%lld, %lld, %lld, %lld], expected 2: [n_embd, n_vocab]",
            gguf_path(f), t->n_dims, (long long) t->ne[0], (long long) t->ne[1], (long long) t->ne[2],
            (long long) t->ne[3]);
        return VNPU_STATUS_BAD_FILE;
    }
    if (t->ne[1] > INT32_MAX) {
        vnpu_log_error("%s: tensor token_embd.weight has %lld rows (n_vocab), at most %d", gguf_path(f),
                       (long long) t->ne[1], INT32_MAX);
        return VNPU_STATUS_BAD_FILE;
    }
    hp->n_vocab = (uint32_t) t->ne[1];
    return VNPU_STATUS_OK;
}

enum vnpu_status llama_hparams_load(const struct gguf_file *f, struct llama_hparams *hp) {
    memset(hp, 0, sizeof(*hp));
    enum vnpu_status st = llama_arch_of(f, &hp->arch);
    if (st != VNPU_STATUS_OK) {
        return st;
    }
    const char *arch = llama_arch_traits_get(hp->arch)->name;
    /* Bounds: what a tensor of int32 rows and int64 elements can hold, and llama.cpp's layer limit. */
    if ((st = hparam_u32(f, hp, "context_length", true, 0, 1, 1u << 24, &hp->n_ctx_train)) ||
        (st = hparam_u32(f, hp, "embedding_length", true, 0, 1, 1u << 20, &hp->n_embd)) ||
        (st = hparam_u32(f, hp, "block_count", true, 0, 1, LLAMA_MAX_LAYERS, &hp->n_layer)) ||
        (st = hparam_u32(f, hp, "feed_forward_length", true, 0, 1, 1u << 22, &hp->n_ff)) ||
        (st = hparam_u32(f, hp, "attention.head_count", true, 0, 1, 1u << 16, &hp->n_head)) ||
        (st = hparam_u32(f, hp, "attention.head_count_kv", false, hp->n_head, 1, hp->n_head, &hp->n_head_kv)) ||
        (st = hparam_f32(f, hp, "attention.layer_norm_rms_epsilon", true, 0.0f, 0.0f, 1.0f, &hp->rms_eps)) ||
        (st = hparam_f32(f, hp, "rope.freq_base", false, 10000.0f, 1.0f, 1e12f, &hp->rope_freq_base))) {
        return st;
    }
    /* the head size defaults to n_embd / n_head, which must then be whole; a key_length sets it alone (llama.cpp) */
    char key[96];
    snprintf(key, sizeof(key), "%s.attention.key_length", arch);
    if (gguf_find_key(f, key) < 0 && hp->n_embd % hp->n_head != 0) {
        vnpu_log_error("%s: %s.embedding_length %u is not a multiple of %s.attention.head_count %u (and no %s gives "
                       "the head size)",
                       gguf_path(f), arch, hp->n_embd, arch, hp->n_head, key);
        return VNPU_STATUS_BAD_FILE;
    }
    if (hp->n_head % hp->n_head_kv != 0) {
        vnpu_log_error("%s: %s.attention.head_count %u is not a multiple of %s.attention.head_count_kv %u",
                       gguf_path(f), arch, hp->n_head, arch, hp->n_head_kv);
        return VNPU_STATUS_BAD_FILE;
    }
    uint32_t head_v;
    if ((st = hparam_u32(f, hp, "attention.key_length", false, hp->n_embd / hp->n_head, 1, 1u << 16,
                         &hp->n_embd_head)) ||
        (st = hparam_u32(f, hp, "attention.value_length", false, hp->n_embd_head, 1, 1u << 16, &head_v))) {
        return st;
    }
    if (head_v != hp->n_embd_head) {
        vnpu_log_error("%s: %s.attention.value_length %u differs from key_length %u (unsupported)", gguf_path(f), arch,
                       head_v, hp->n_embd_head);
        return VNPU_STATUS_UNSUPPORTED;
    }
    if (llama_arch_traits_get(hp->arch)->q_is_n_embd && (uint64_t) hp->n_embd_head * hp->n_head != hp->n_embd) {
        vnpu_log_error("%s: %s.attention.key_length %u x head_count %u is not embedding_length %u (%s's attn_q and "
                       "attn_output are [n_embd, n_embd])",
                       gguf_path(f), arch, hp->n_embd_head, hp->n_head, hp->n_embd, arch);
        return VNPU_STATUS_BAD_FILE;
    }
    if ((st = hparam_u32(f, hp, "rope.dimension_count", false, hp->n_embd_head, 2, hp->n_embd_head, &hp->n_rot))) {
        return st;
    }
    if (hp->n_rot % 2 != 0) {
        vnpu_log_error("%s: %s.rope.dimension_count %u is odd: rotary pairs need an even count", gguf_path(f), arch,
                       hp->n_rot);
        return VNPU_STATUS_BAD_FILE;
    }
    uint32_t n_expert;
    if ((st = hparam_u32(f, hp, "expert_count", false, 0, 0, 1u << 12, &n_expert))) {
        return st;
    }
    if (n_expert > 0) {
        vnpu_log_error("%s: %s.expert_count %u: mixture-of-experts %s models are not supported", gguf_path(f), arch,
                       n_expert, arch);
        return VNPU_STATUS_UNSUPPORTED;
    }
    if ((st = hparam_rope_scaling(f, hp))) {
        return st;
    }
    return hparam_n_vocab(f, hp);
}
