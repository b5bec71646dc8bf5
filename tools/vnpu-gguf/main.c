/*
 * vnpu-gguf: inspect or validate GGUF files.
 *
 *   vnpu-gguf FILE...              header, every kv, every tensor, totals by type
 *   vnpu-gguf --validate FILE...   "FILE: valid GGUF v3, N tensors, M kvs", or the reason it is not
 *
 * --validate checks each file as GGUF; when it has a tokenizer (tokenizer.ggml.model), as a vocabulary vnpu can use
 * (vnpu_vocab_load: SPM "llama" or BPE "gpt2" with a pre-tokenizer vnpu knows, its merges, tokens and special ids),
 * adding ", vocabulary gpt2 (BPE, pre llama-bpe, 128256 tokens, 280147 merges)" to the line; and when
 * general.architecture names one vnpu runs ("llama", "qwen2", "qwen3") and it has tensors, as a model of it
 * (llama_model_validate: hparams, tokenizer, every tensor's shape and type), adding ", ARCH model (L layers, n_embd E,
 * n_vocab V)"; without tensors it is a vocabulary-only file (llama.cpp's models/ggml-vocab-*.gguf).
 *
 * Exit status: 0 when every file is valid, 1 when one is not (the reason is on stderr), 2 on bad usage.
 */
#include "gguf.h"
#include "llama.h"
#include "log.h"
#include "vocab.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define SHOW_STR_MAX 64 /* bytes of a string value printed before "..." */
#define SHOW_ARR_MAX 4  /* array elements printed before "..." */

static void usage(FILE *out) {
    fprintf(out,
            "usage: vnpu-gguf [--validate] FILE...\n"
            "  FILE...       print each file's header, kvs, tensors and totals by type\n"
            "  --validate    only check each file; print \"FILE: valid GGUF vN, N tensors, M kvs\"\n"
            "                (and \", vocabulary ...\" after checking its tokenizer.ggml.* keys as a vocabulary\n"
            "                vnpu can use, \", ARCH model (...)\" after checking a file of an architecture vnpu runs,\n"
            "                llama, qwen2 or qwen3, as a model too)\n"
            "  -h, --help    this text\n"
            "exit status: 0 all valid, 1 a file is not valid GGUF, its vocabulary not one vnpu can use or it is not\n"
            "a valid model (reason on stderr), 2 bad usage\n");
}

/* A numeric or bool value; every member starts at byte 0, where its little-endian bytes are. */
union number {
    uint8_t u8;
    int8_t i8;
    uint16_t u16;
    int16_t i16;
    uint32_t u32;
    int32_t i32;
    float f32;
    uint64_t u64;
    int64_t i64;
    double f64;
};

/* At most max bytes of s with '"', '\\', control and non-ASCII bytes escaped; returns the characters
 * printed. Keys, names and values come from the file and may hold anything. */
static int print_escaped(struct gguf_str s, uint64_t max) {
    int n = 0;
    for (uint64_t i = 0; i < s.len && i < max; i++) {
        const unsigned char c = (unsigned char) s.data[i];
        if (c == '"' || c == '\\') {
            n += printf("\\%c", c);
        } else if (c >= 0x20 && c < 0x7f) {
            n += printf("%c", c);
        } else {
            n += printf("\\x%02x", c);
        }
    }
    return n;
}

/* A name escaped and padded to width columns. */
static void print_name(struct gguf_str s, int width) {
    const int n = print_escaped(s, UINT64_MAX);
    printf("%*s", n < width ? width - n : 0, "");
}

/* A string value quoted and escaped, cut after SHOW_STR_MAX bytes. */
static void print_str(struct gguf_str s) {
    putchar('"');
    print_escaped(s, SHOW_STR_MAX);
    printf(s.len > SHOW_STR_MAX ? "\"..." : "\"");
}

/* One numeric or bool value of type type at p (little-endian, possibly unaligned). */
static void print_number(enum gguf_type type, const void *p) {
    union number v;
    memcpy(&v, p, gguf_type_size(type));
    switch (type) {
        case GGUF_TYPE_UINT8: printf("%u", v.u8); break;
        case GGUF_TYPE_INT8: printf("%d", v.i8); break;
        case GGUF_TYPE_UINT16: printf("%u", v.u16); break;
        case GGUF_TYPE_INT16: printf("%d", v.i16); break;
        case GGUF_TYPE_UINT32: printf("%" PRIu32, v.u32); break;
        case GGUF_TYPE_INT32: printf("%" PRId32, v.i32); break;
        case GGUF_TYPE_FLOAT32: printf("%.9g", v.f32); break;
        case GGUF_TYPE_BOOL: printf("%s", v.u8 ? "true" : "false"); break;
        case GGUF_TYPE_UINT64: printf("%" PRIu64, v.u64); break;
        case GGUF_TYPE_INT64: printf("%" PRId64, v.i64); break;
        case GGUF_TYPE_FLOAT64: printf("%.17g", v.f64); break;
        case GGUF_TYPE_STRING:
        case GGUF_TYPE_ARRAY:
        case GGUF_TYPE_COUNT: VNPU_ASSERT(!"not a number type"); break;
    }
}

static void print_scalar(const struct gguf_file *f, int64_t i, enum gguf_type type) {
    union number v;
    switch (type) {
        case GGUF_TYPE_UINT8: v.u8 = gguf_get_u8(f, i); break;
        case GGUF_TYPE_INT8: v.i8 = gguf_get_i8(f, i); break;
        case GGUF_TYPE_UINT16: v.u16 = gguf_get_u16(f, i); break;
        case GGUF_TYPE_INT16: v.i16 = gguf_get_i16(f, i); break;
        case GGUF_TYPE_UINT32: v.u32 = gguf_get_u32(f, i); break;
        case GGUF_TYPE_INT32: v.i32 = gguf_get_i32(f, i); break;
        case GGUF_TYPE_FLOAT32: v.f32 = gguf_get_f32(f, i); break;
        case GGUF_TYPE_BOOL: v.u8 = gguf_get_bool(f, i); break;
        case GGUF_TYPE_UINT64: v.u64 = gguf_get_u64(f, i); break;
        case GGUF_TYPE_INT64: v.i64 = gguf_get_i64(f, i); break;
        case GGUF_TYPE_FLOAT64: v.f64 = gguf_get_f64(f, i); break;
        case GGUF_TYPE_STRING: print_str(gguf_get_str(f, i)); return;
        case GGUF_TYPE_ARRAY:
        case GGUF_TYPE_COUNT: VNPU_ASSERT(!"not a scalar type"); return;
    }
    print_number(type, &v);
}

/* "[type x n] first, second, ..." */
static void print_array(const struct gguf_file *f, int64_t i) {
    const enum gguf_type type = gguf_get_arr_type(f, i);
    const uint64_t n = gguf_get_arr_n(f, i);
    printf("[%s x %" PRIu64 "]", gguf_type_name(type), n);
    for (uint64_t j = 0; j < n && j < SHOW_ARR_MAX; j++) {
        printf(j ? ", " : " ");
        if (type == GGUF_TYPE_STRING) {
            print_str(gguf_get_arr_str(f, i, j));
        } else {
            print_number(type, (const uint8_t *) gguf_get_arr_data(f, i) + j * gguf_type_size(type));
        }
    }
    printf(n > SHOW_ARR_MAX ? ", ...\n" : "\n");
}

static void print_kvs(const struct gguf_file *f) {
    printf("kvs:\n");
    for (int64_t i = 0; i < gguf_n_kv(f); i++) {
        const enum gguf_type type = gguf_kv_type(f, i);
        printf("%6" PRId64 "  ", i);
        print_name(gguf_kv_key(f, i), 40);
        printf(" %-4s ", gguf_type_name(type));
        if (type == GGUF_TYPE_ARRAY) {
            print_array(f, i);
        } else {
            print_scalar(f, i, type);
            putchar('\n');
        }
    }
}

static void print_tensors(const struct gguf_file *f) {
    int64_t params[VNPU_TYPE_COUNT] = {0}, count[VNPU_TYPE_COUNT] = {0};
    size_t bytes[VNPU_TYPE_COUNT] = {0};
    int64_t params_all = 0;
    size_t bytes_all = 0;
    printf("tensors:\n");
    for (int64_t i = 0; i < gguf_n_tensors(f); i++) {
        const struct gguf_tensor_info *t = gguf_tensor(f, i);
        char shape[96];
        int len = snprintf(shape, sizeof(shape), "[%" PRId64, t->ne[0]);
        for (uint32_t d = 1; d < t->n_dims; d++) {
            len += snprintf(shape + len, sizeof(shape) - (size_t) len, ", %" PRId64, t->ne[d]);
        }
        snprintf(shape + len, sizeof(shape) - (size_t) len, "]");
        printf("%6" PRId64 "  ", i);
        print_name((struct gguf_str){.data = t->name, .len = strlen(t->name)}, 40);
        printf(" %-7s %-24s %12zu bytes  @ %" PRIu64 "\n", vnpu_type_name(t->type), shape, t->size, t->offset);
        const int64_t n = t->ne[0] * t->ne[1] * t->ne[2] * t->ne[3];
        params[t->type] += n;
        bytes[t->type] += t->size;
        count[t->type]++;
        params_all += n;
        bytes_all += t->size;
    }
    printf("totals: %" PRId64 " params, %zu bytes\n", params_all, bytes_all);
    for (int type = 0; type < VNPU_TYPE_COUNT; type++) {
        if (count[type]) {
            printf("  %-7s %5" PRId64 " tensors %12" PRId64 " params %12zu bytes\n",
                   vnpu_type_name((enum vnpu_type) type), count[type], params[type], bytes[type]);
        }
    }
}

/* Print everything in path; 0 when it is valid GGUF, else 1 (the reader logged why). */
static int inspect(const char *path) {
    struct gguf_file *f = NULL;
    if (gguf_open(path, &f) != VNPU_STATUS_OK) {
        return 1;
    }
    printf("%s: GGUF v%u, %zu bytes, alignment %zu, %" PRId64 " kvs, %" PRId64 " tensors, data at offset %zu\n", path,
           gguf_version(f), gguf_file_size(f), gguf_alignment(f), gguf_n_kv(f), gguf_n_tensors(f), gguf_data_offset(f));
    print_kvs(f);
    print_tensors(f);
    gguf_close(f);
    return 0;
}

/* True when f declares an architecture vnpu runs (general.architecture: llama_arch_from_name). */
static bool is_model(const struct gguf_file *f) {
    const int64_t i = gguf_find_key(f, "general.architecture");
    if (i < 0 || gguf_kv_type(f, i) != GGUF_TYPE_STRING) {
        return false;
    }
    const struct gguf_str name = gguf_get_str(f, i);
    enum llama_arch arch;
    return llama_arch_from_name(name.data, (size_t) name.len, &arch);
}

/* Check path as GGUF, its vocabulary when it has one, and as a model when its architecture is one vnpu runs; 0 when
 * valid, else 1 (the loader logged why). */
static int validate(const char *path) {
    struct gguf_file *f = NULL;
    if (gguf_open(path, &f) != VNPU_STATUS_OK) {
        return 1;
    }
    char vocab_desc[256] = "";
    if (gguf_find_key(f, "tokenizer.ggml.model") >= 0) {
        struct vnpu_vocab *vocab = NULL;
        if (vnpu_vocab_load(f, &vocab) != VNPU_STATUS_OK) {
            gguf_close(f);
            return 1;
        }
        vnpu_vocab_desc(vocab, vocab_desc, sizeof(vocab_desc));
        vnpu_vocab_free(vocab);
    }
    struct llama_hparams hp;
    /* a file without tensors is a vocabulary (llama.cpp's models/ggml-vocab-*.gguf), not a model */
    const bool model = is_model(f) && gguf_n_tensors(f) > 0;
    if (model && (llama_model_validate(f) != VNPU_STATUS_OK || llama_hparams_load(f, &hp) != VNPU_STATUS_OK)) {
        gguf_close(f);
        return 1;
    }
    printf("%s: valid GGUF v%u, %" PRId64 " tensors, %" PRId64 " kvs", path, gguf_version(f), gguf_n_tensors(f),
           gguf_n_kv(f));
    if (vocab_desc[0]) {
        printf(", vocabulary %s", vocab_desc);
    }
    if (model) {
        printf(", %s model (%u layers, n_embd %u, n_vocab %u)", llama_arch_traits_get(hp.arch)->name, hp.n_layer,
               hp.n_embd, hp.n_vocab);
    }
    printf("\n");
    gguf_close(f);
    return 0;
}

int main(int argc, char **argv) {
    int only_validate = 0, n_files = 0, status = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return 0;
        }
        if (strcmp(argv[i], "--validate") == 0) {
            only_validate = 1;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            fprintf(stderr, "vnpu-gguf: unknown option %s\n", argv[i]);
            usage(stderr);
            return 2;
        } else {
            n_files++;
        }
    }
    if (n_files == 0) {
        usage(stderr);
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] != '-' || argv[i][1] == '\0') {
            status |= only_validate ? validate(argv[i]) : inspect(argv[i]);
        }
    }
    return status;
}
