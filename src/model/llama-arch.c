/* The architectures vnpu runs: their names and what their graphs do differently (llama.h). */
#include "llama.h"

#include "log.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

/* Facts from llama.cpp (src/llama-arch.cpp: names; src/llama-model.cpp, llama_model_rope_type: the rope modes;
 * src/models/qwen2.cpp: attn_q and attn_output of qwen2 are created [n_embd, n_embd]). */
static const struct llama_arch_traits arch_traits[LLAMA_ARCH_COUNT] = {
    [LLAMA_ARCH_LLAMA] = {.name = "llama", .rope_type = VNPU_ROPE_TYPE_NORMAL},
    [LLAMA_ARCH_QWEN2] = {.name = "qwen2", .rope_type = VNPU_ROPE_TYPE_NEOX, .q_is_n_embd = true},
    [LLAMA_ARCH_QWEN3] = {.name = "qwen3", .rope_type = VNPU_ROPE_TYPE_NEOX},
};
static_assert(LLAMA_ARCH_COUNT == 3, "new architecture: add its row here and its column in llama-weights.c's tables");

const struct llama_arch_traits *llama_arch_traits_get(enum llama_arch arch) {
    VNPU_ASSERT(arch < LLAMA_ARCH_COUNT);
    return &arch_traits[arch];
}

bool llama_arch_from_name(const char *name, size_t len, enum llama_arch *arch) {
    for (int a = 0; a < LLAMA_ARCH_COUNT; a++) {
        if (len == strlen(arch_traits[a].name) && memcmp(name, arch_traits[a].name, len) == 0) {
            *arch = (enum llama_arch) a;
            return true;
        }
    }
    return false;
}

enum vnpu_status llama_arch_of(const struct gguf_file *f, enum llama_arch *arch) {
    const int64_t ai = gguf_find_key(f, "general.architecture");
    if (ai < 0 || gguf_kv_type(f, ai) != GGUF_TYPE_STRING) {
        vnpu_log_error("%s: general.architecture is %s", gguf_path(f), ai < 0 ? "missing" : "not a string");
        return VNPU_STATUS_BAD_FILE;
    }
    const struct gguf_str name = gguf_get_str(f, ai);
    if (llama_arch_from_name(name.data, (size_t) name.len, arch)) {
        return VNPU_STATUS_OK;
    }
    char names[64] = ""; /* the table's names, "llama, qwen2, qwen3" */
    for (int a = 0; a < LLAMA_ARCH_COUNT; a++) {
        const size_t len = strlen(names);
        snprintf(names + len, sizeof(names) - len, "%s%s", a > 0 ? ", " : "", arch_traits[a].name);
    }
    vnpu_log_error("%s: architecture '%.*s' is not supported (%s)", gguf_path(f), (int) (name.len > 64 ? 64 : name.len),
                   name.data, names);
    return VNPU_STATUS_UNSUPPORTED;
}
