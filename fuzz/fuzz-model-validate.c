/*
 * libFuzzer target for the model checks behind vnpu_model_load and vnpu-gguf --validate: bytes that load as
 * GGUF go through llama_model_validate (architecture, hparams, vocabulary, tensor shapes and types), which
 * must accept or reject them with a status and never crash, hang or leak.
 */
#include "gguf.h"
#include "llama.h"

#include <stdint.h>

static void log_discard(enum vnpu_log_level level, const char *text, void *user) {
    (void) level;
    (void) text;
    (void) user;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    vnpu_log_set(log_discard, NULL, VNPU_LOG_ERROR);
    struct gguf_file *f = NULL;
    if (gguf_open_memory(data, size, "fuzz", &f) == VNPU_STATUS_OK) {
        llama_model_validate(f);
        gguf_close(f);
    }
    return 0;
}
