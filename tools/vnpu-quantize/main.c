/*
 * vnpu-quantize: convert an F32/F16/BF16 GGUF model to another type, like llama.cpp's llama-quantize --pure,
 * or dequantize a model of any type to F32.
 *
 *   vnpu-quantize [-t N] IN.gguf OUT.gguf TYPE
 *
 * Every 2-D weight becomes TYPE with GGML's reference quantizer (bit-exact with ggml_quantize_chunk).
 * 1-D tensors stay as they are; a weight whose rows the block size does not divide falls back to a wider
 * type, as llama.cpp does (K-quants to a 32-element type, then F16), and the tool says which and why.
 */
#include "gguf.h"
#include "log.h"
#include "tool-common.h"
#include "type-traits.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TOOL "vnpu-quantize"

static void usage(FILE *out) {
    fprintf(out, "usage: " TOOL " [-t THREADS] IN.gguf OUT.gguf TYPE\n"
                 "\n"
                 "  TYPE: f32 f16 bf16 q4_0 q4_1 q5_0 q5_1 q8_0 q2_K q3_K q4_K q5_K q6_K q8_K iq4_nl mxfp4 q1_0 q2_0\n"
                 "  -t N  threads (default: all cores)\n"
                 "Every 2-D weight becomes TYPE (a quantized input only to f32); 1-D tensors and weights whose row "
                 "length the block size does\n"
                 "not divide are kept in a wider type (listed on stderr). The output is written atomically.\n");
}

/* llama.cpp's general.file_type (llama_ftype) of a model whose weights are all of type t. */
static uint32_t file_type_of(enum vnpu_type t) {
    switch (t) {
        case VNPU_TYPE_F32: return 0;
        case VNPU_TYPE_F16: return 1;
        case VNPU_TYPE_Q4_0: return 2;
        case VNPU_TYPE_Q4_1: return 3;
        case VNPU_TYPE_Q8_0: return 7;
        case VNPU_TYPE_Q5_0: return 8;
        case VNPU_TYPE_Q5_1: return 9;
        case VNPU_TYPE_Q2_K: return 10;
        case VNPU_TYPE_Q3_K: return 11;
        case VNPU_TYPE_Q4_K: return 14;
        case VNPU_TYPE_Q5_K: return 16;
        case VNPU_TYPE_Q6_K: return 18;
        case VNPU_TYPE_IQ4_NL: return 25;
        case VNPU_TYPE_BF16: return 32;
        case VNPU_TYPE_MXFP4: return 38;
        case VNPU_TYPE_Q1_0: return 40;
        case VNPU_TYPE_Q2_0: return 41;
        default: return 1024; /* LLAMA_FTYPE_GUESSED */
    }
}

/* The type llama.cpp falls back to when rows do not divide into t's blocks (llama_tensor_get_type), and
 * F16 below the 32-element types. */
static enum vnpu_type fallback_of(enum vnpu_type t) {
    switch (t) {
        case VNPU_TYPE_Q2_K:
        case VNPU_TYPE_Q3_K: return VNPU_TYPE_IQ4_NL;
        case VNPU_TYPE_Q4_K: return VNPU_TYPE_Q5_0;
        case VNPU_TYPE_Q5_K: return VNPU_TYPE_Q5_1;
        case VNPU_TYPE_Q6_K:
        case VNPU_TYPE_Q8_K: return VNPU_TYPE_Q8_0;
        case VNPU_TYPE_Q1_0:
        case VNPU_TYPE_Q2_0: return VNPU_TYPE_Q4_0;
        default: return VNPU_TYPE_F16;
    }
}

/* One tensor's conversion, split over threads by rows. */
struct quant_job {
    const struct gguf_tensor_info *src;
    enum vnpu_type type;
    void *dst;
    int64_t nrows;
    int n_threads;
    int ith;
    bool ok;
};

static void *quant_worker(void *arg) {
    struct quant_job *j = arg;
    const int64_t ne0 = j->src->ne[0];
    const struct vnpu_type_traits *from = vnpu_type_traits_get(j->src->type);
    const struct vnpu_type_traits *to = vnpu_type_traits_get(j->type);
    const size_t src_row = vnpu_row_size(j->src->type, ne0), dst_row = vnpu_row_size(j->type, ne0);
    float *row = malloc((size_t) ne0 * sizeof(float));
    j->ok = row != NULL;
    const int64_t per = (j->nrows + j->n_threads - 1) / j->n_threads;
    const int64_t r0 = per * j->ith, r1 = r0 + per < j->nrows ? r0 + per : j->nrows;
    for (int64_t r = r0; j->ok && r < r1; r++) {
        from->to_f32((const char *) j->src->data + (size_t) r * src_row, row, ne0);
        to->from_f32_ref(row, (char *) j->dst + (size_t) r * dst_row, ne0);
    }
    free(row);
    return NULL;
}

/* Convert src into a new malloc'd buffer of type; NULL on allocation or thread failure. */
static void *quantize_tensor(const struct gguf_tensor_info *src, enum vnpu_type type, int n_threads) {
    const int64_t nrows = src->ne[1] * src->ne[2] * src->ne[3];
    void *dst = malloc(vnpu_row_size(type, src->ne[0]) * (size_t) nrows + 1);
    if (!dst) {
        return NULL;
    }
    struct quant_job jobs[64];
    pthread_t threads[64];
    n_threads = n_threads > 64 ? 64 : n_threads;
    bool ok = true;
    int started = 0;
    for (int i = 0; i < n_threads; i++) {
        jobs[i] =
            (struct quant_job){.src = src, .type = type, .dst = dst, .nrows = nrows, .n_threads = n_threads, .ith = i};
        if (pthread_create(&threads[i], NULL, quant_worker, &jobs[i]) != 0) {
            ok = false;
            break;
        }
        started++;
    }
    for (int i = 0; i < started; i++) {
        pthread_join(threads[i], NULL);
        ok = ok && jobs[i].ok;
    }
    if (!ok) {
        free(dst);
        return NULL;
    }
    return dst;
}

/* The type tensor t gets, and why it is not the requested one (NULL when it is). */
static enum vnpu_type choose_type(const struct gguf_tensor_info *t, enum vnpu_type want, char *why, size_t size) {
    if (t->n_dims < 2) {
        snprintf(why, size, "1-D");
        return t->type;
    }
    enum vnpu_type type = want;
    while (t->ne[0] % vnpu_type_traits_get(type)->blck != 0) {
        const enum vnpu_type wider = fallback_of(type);
        snprintf(why, size, "ne0 = %lld is not a multiple of the %s block (%lld)", (long long) t->ne[0],
                 vnpu_type_name(type), (long long) vnpu_type_traits_get(type)->blck);
        type = wider;
    }
    return type;
}

static int quantize_file(const char *in, const char *out, enum vnpu_type want, int n_threads) {
    struct gguf_file *f = NULL;
    if (gguf_open(in, &f) != VNPU_STATUS_OK) {
        return 1;
    }
    for (int64_t i = 0; i < gguf_n_tensors(f); i++) {
        /* Requantizing loses precision twice, as llama-quantize refuses it too; dequantizing to F32 is exact. */
        const struct gguf_tensor_info *t = gguf_tensor(f, i);
        const bool plain = t->type == VNPU_TYPE_F32 || t->type == VNPU_TYPE_F16 || t->type == VNPU_TYPE_BF16;
        if (!(plain || (want == VNPU_TYPE_F32 && vnpu_type_traits_get(t->type)->to_f32))) {
            fprintf(stderr,
                    TOOL ": %s: tensor %s is %s; the input must be an F32, F16 or BF16 model (any type to f32)\n", in,
                    t->name, vnpu_type_name(t->type));
            gguf_close(f);
            return 1;
        }
    }
    struct gguf_writer *w = gguf_writer_new();
    void **buffers = calloc((size_t) gguf_n_tensors(f) + 1, sizeof(void *));
    int rc = w && buffers ? 0 : 1;
    for (int64_t i = 0; rc == 0 && i < gguf_n_kv(f); i++) {
        gguf_writer_copy_kv(w, f, i);
    }
    if (rc == 0) {
        gguf_writer_set_u32(w, "general.file_type", file_type_of(want));
        gguf_writer_set_u32(w, "general.quantization_version", 2);
    }
    size_t bytes_in = 0, bytes_out = 0, total = 0, done = 0;
    for (int64_t i = 0; i < gguf_n_tensors(f); i++) {
        total += gguf_tensor(f, i)->size;
    }
    for (int64_t i = 0; rc == 0 && i < gguf_n_tensors(f); i++) {
        const struct gguf_tensor_info *t = gguf_tensor(f, i);
        char why[160] = "";
        const enum vnpu_type type = choose_type(t, want, why, sizeof(why));
        const void *data = t->data;
        if (type != t->type) {
            if (!(buffers[i] = quantize_tensor(t, type, n_threads))) {
                fprintf(stderr, TOOL ": cannot quantize %s: out of memory\n", t->name);
                rc = 1;
                break;
            }
            data = buffers[i];
        }
        if (type != want) {
            fprintf(stderr, "%s: kept as %s (%s)\n", t->name, vnpu_type_name(type), why);
        }
        gguf_writer_add_tensor(w, t->name, type, t->n_dims, t->ne, data);
        bytes_in += t->size;
        bytes_out += vnpu_row_size(type, t->ne[0]) * (size_t) (t->ne[1] * t->ne[2] * t->ne[3]);
        done += t->size;
        tool_progress((float) done / (float) (total ? total : 1), "quantizing");
    }
    if (rc == 0 && gguf_writer_write(w, out) != VNPU_STATUS_OK) {
        rc = 1;
    }
    if (rc == 0) {
        fprintf(stderr, "%s: %lld tensors, %.2f MiB -> %.2f MiB (%s)\n", out, (long long) gguf_n_tensors(f),
                (double) bytes_in / 1048576.0, (double) bytes_out / 1048576.0, vnpu_type_name(want));
    }
    for (int64_t i = 0; buffers && i < gguf_n_tensors(f); i++) {
        free(buffers[i]);
    }
    free(buffers);
    gguf_writer_free(w);
    gguf_close(f);
    return rc;
}

int main(int argc, char **argv) {
    const long n_cpu = sysconf(_SC_NPROCESSORS_ONLN);
    int n_threads = n_cpu > 0 ? (int) n_cpu : 1;
    const char *pos[3];
    int n_pos = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(argv[i], "-t") == 0 || strcmp(argv[i], "--threads") == 0) {
            n_threads = (int) tool_parse_int(TOOL, argv[i], tool_option_value(TOOL, argc, argv, &i), 1, 64);
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            fprintf(stderr, TOOL ": unknown option '%s' (see --help)\n", argv[i]);
            return 2;
        } else if (n_pos < 3) {
            pos[n_pos++] = argv[i];
        } else {
            fprintf(stderr, TOOL ": too many arguments (see --help)\n");
            return 2;
        }
    }
    if (n_pos != 3) {
        usage(stderr);
        return 2;
    }
    enum vnpu_type type;
    if (!vnpu_type_from_name(pos[2], &type) || !vnpu_type_traits_get(type)->from_f32_ref) {
        fprintf(stderr, TOOL ": unknown or unsupported type '%s' (see --help)\n", pos[2]);
        return 2;
    }
    if (type == VNPU_TYPE_Q8_K) {
        fprintf(stderr, "warning: q8_K is GGML's activation format: vnpu runs such a model, llama.cpp cannot\n");
    }
    struct stat st_in, st_out;
    if (stat(pos[0], &st_in) == 0 && stat(pos[1], &st_out) == 0 && st_in.st_dev == st_out.st_dev &&
        st_in.st_ino == st_out.st_ino) {
        fprintf(stderr, TOOL ": the output %s is the input file; choose another name\n", pos[1]);
        return 2;
    }
    return quantize_file(pos[0], pos[1], type, n_threads);
}
