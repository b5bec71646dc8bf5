/*
 * libFuzzer target for the tokenizers: the first byte of an input picks one of a few small vocabularies (SPM, and BPE
 * with each kind of pre-tokenizer vnpu knows) and the flags, the rest is the text. vnpu_vocab_tokenize and
 * vnpu_vocab_token_to_piece of every token must never crash, hang, leak or read out of bounds (the fuzz build has ASan
 * and UBSan), the count must be the tokens written, and every token must be in the vocabulary.
 */
#include "gguf.h"
#include "log.h"
#include "vocab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define G "\xc4\xa0" /* ' ' as GPT-2's byte-to-unicode spells it */

/* tokenizer.ggml.pre of each BPE vocabulary ("" for none: llama.cpp's default); NULL is the SPM one. */
static const char *const pres[] = {NULL,     "llama-bpe", "qwen2",        "qwen35",         "gpt-2",
                                   "falcon", "starcoder", "deepseek-llm", "deepseek-coder", ""};

#define N_VOCABS (sizeof(pres) / sizeof(pres[0]))

static struct vnpu_vocab *vocabs[N_VOCABS];

static void log_discard(enum vnpu_log_level level, const char *text, void *user) {
    (void) level;
    (void) text;
    (void) user;
}

static void set_strs(struct gguf_writer *w, const char *key, const char *const *s, uint64_t n) {
    struct gguf_str v[32];
    for (uint64_t i = 0; i < n; i++) {
        v[i] = (struct gguf_str){.data = s[i], .len = strlen(s[i])};
    }
    gguf_writer_set_arr_str(w, key, v, n);
}

/* Vocabulary i, written to a temporary file and loaded; aborts when it does not load (a bug of this file). */
static struct vnpu_vocab *vocab_make(size_t i) {
    static const char *const bpe_tokens[] = {
        "a", "b", "c", "ab", "abc", G, G "a", "1", "12", "<|im_start|>", "<tool>", "\xc3\x83\xc2\xa9", "x", "!"};
    static const int32_t bpe_types[] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 3, 4, 1, 1, 1};
    static const char *const bpe_merges[] = {"a b", "ab c", G " a", "1 2", "\xc3\x83 \xc2\xa9"};
    static const char *const spm_tokens[] = {"<unk>",
                                             "<s>",
                                             "</s>",
                                             "\xe2\x96\x81",
                                             "a",
                                             "b",
                                             "ab",
                                             ("\xe2\x96\x81"
                                              "a"),
                                             "<0x0A>",
                                             "<tool>"};
    static const int32_t spm_types[] = {2, 3, 3, 1, 1, 1, 1, 1, 6, 4};
    static const float spm_scores[] = {0, 0, 0, -1, -2, -3, -4, -5, 0, 0};
    struct gguf_writer *w = gguf_writer_new();
    if (!w) {
        abort();
    }
    if (pres[i]) {
        gguf_writer_set_str(w, "tokenizer.ggml.model", "gpt2");
        if (pres[i][0]) {
            gguf_writer_set_str(w, "tokenizer.ggml.pre", pres[i]);
        }
        set_strs(w, "tokenizer.ggml.tokens", bpe_tokens, sizeof(bpe_tokens) / sizeof(bpe_tokens[0]));
        gguf_writer_set_arr_data(w, "tokenizer.ggml.token_type", GGUF_TYPE_INT32, bpe_types,
                                 sizeof(bpe_types) / sizeof(bpe_types[0]));
        set_strs(w, "tokenizer.ggml.merges", bpe_merges, sizeof(bpe_merges) / sizeof(bpe_merges[0]));
        gguf_writer_set_u32(w, "tokenizer.ggml.bos_token_id", 12);
        gguf_writer_set_bool(w, "tokenizer.ggml.add_eos_token", true);
        gguf_writer_set_u32(w, "tokenizer.ggml.eos_token_id", 13);
    } else {
        gguf_writer_set_str(w, "tokenizer.ggml.model", "llama");
        set_strs(w, "tokenizer.ggml.tokens", spm_tokens, sizeof(spm_tokens) / sizeof(spm_tokens[0]));
        gguf_writer_set_arr_data(w, "tokenizer.ggml.token_type", GGUF_TYPE_INT32, spm_types,
                                 sizeof(spm_types) / sizeof(spm_types[0]));
        gguf_writer_set_arr_data(w, "tokenizer.ggml.scores", GGUF_TYPE_FLOAT32, spm_scores,
                                 sizeof(spm_scores) / sizeof(spm_scores[0]));
    }
    char path[64];
    snprintf(path, sizeof(path), "/tmp/fuzz-tokenize-%d-%zu.gguf", (int) getpid(), i);
    struct gguf_file *f = NULL;
    struct vnpu_vocab *vocab = NULL;
    if (gguf_writer_write(w, path) != VNPU_STATUS_OK || gguf_open(path, &f) != VNPU_STATUS_OK ||
        vnpu_vocab_load(f, &vocab) != VNPU_STATUS_OK) {
        abort();
    }
    gguf_close(f);
    gguf_writer_free(w);
    unlink(path);
    return vocab;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    vnpu_log_set(log_discard, NULL, VNPU_LOG_ERROR);
    if (size == 0) {
        return 0;
    }
    const size_t which = data[0] % N_VOCABS;
    if (!vocabs[which]) {
        vocabs[which] = vocab_make(which); /* kept for the process: reachable, not a leak */
    }
    const struct vnpu_vocab *vocab = vocabs[which];
    const bool add_special = data[0] & 0x40, parse_special = data[0] & 0x80;
    const char *text = (const char *) data + 1;
    const int32_t n = vnpu_vocab_tokenize(vocab, text, size - 1, NULL, 0, add_special, parse_special);
    if (n == INT32_MIN) { /* refused, with a message: past U+10FFFF */
        return 0;
    }
    vnpu_token *tokens = malloc(((size_t) -n + 1) * sizeof(*tokens));
    if (!tokens || vnpu_vocab_tokenize(vocab, text, size - 1, tokens, -n, add_special, parse_special) != -n) {
        abort();
    }
    for (int32_t i = 0; i < -n; i++) {
        char piece[64];
        if (tokens[i] < 0 || tokens[i] >= vnpu_vocab_n_tokens(vocab) ||
            vnpu_vocab_token_to_piece(vocab, tokens[i], piece, sizeof(piece), parse_special) < 0) {
            abort();
        }
    }
    free(tokens);
    return 0;
}
