/*
 * vnpu-cli: generate text with a GGUF model, like llama.cpp's llama-cli in completion mode.
 *
 *   vnpu-cli -m model.gguf -p "Once upon a time" -n 40 --temp 0 [--device CPU] [--logits-out FILE]
 *
 * Runs on the NPU devices unless told otherwise (--device CPU: the reference backend). Streams the prompt and the
 * generated pieces to stdout, then prints llama.cpp-style timings to stderr; with --perf-model, then what the cost
 * model says prompt and eval take on the NPU target (--arch, docs/targets.md).
 */
#include "file-out.h"
#include "htp-host.h"
#include "tool-common.h"
#include "trace-file.h"
#include "vdsp.h"
#include "vnpu.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>

#define TOOL "vnpu-cli"

struct cli_args {
    const char *model;
    const char *prompt; /* -p's, or -f's file read (main) */
    size_t prompt_len;
    const char *prompt_file;
    const char *tokens; /* comma-separated ids */
    const char *logits_out;
    const char *arch; /* --arch: the NPU target (VNPU_ARCH), or NULL */
    bool perf_model;  /* --perf-model (VNPU_PERF=1) */
    int32_t n_predict;
    struct vnpu_context_params cparams;
    struct vnpu_sampler_params sparams;
    bool seed_set;
    bool ignore_eos;
    bool no_escape; /* --no-escape: the prompt as it is, not llama.cpp's escapes processed */
    bool print_ids;
    enum vnpu_split_mode split_mode;
};

static void usage(FILE *out) {
    fprintf(out,
            "usage: " TOOL " -m FILE (-p TEXT | -f FILE | --tokens IDS) [options]\n"
            "\n"
            "  -m, --model FILE         GGUF model (architecture llama, qwen2 or qwen3)\n"
            "  -p, --prompt TEXT        prompt text (BOS added as the vocabulary says)\n"
            "  -f, --file FILE          read the prompt from FILE\n"
            "      --tokens IDS         prompt as comma-separated token ids, used verbatim\n"
            "                           (of -p, -f and --tokens the last given is the prompt, as llama.cpp's -p, -f)\n"
            "  -n, --n-predict N        tokens to generate (-1: until end of text; -2: until the context is full;\n"
            "                           default -1)\n"
            "  -t, --threads N          CPU threads (default: all cores)\n"
            "  -c, --ctx-size N         context size in tokens (default 4096; 0: the model's training context)\n"
            "  -b, --batch-size N       tokens per decode graph (default 512)\n"
            "      --device LIST        comma-separated devices: HTP0, HTP1, ... (the NPU) and CPU (the reference\n"
            "                           backend; --device CPU runs it alone). Default: every NPU device, HTP0 to\n"
            "                           HTP<VNPU_NDEV-1> (HTP0 unless VNPU_NDEV says more), the layers split over\n"
            "                           them as llama.cpp splits a model over all its GPUs; the CPU is always the\n"
            "                           fallback for ops no NPU device takes. HTP0[0-1] (HTP0[0-3], HTP0[0,2]) is\n"
            "                           one device whose every op runs on the sessions of HTP0 and HTP1, each\n"
            "                           computing its part of the output rows (row split; members < VNPU_NDEV).\n"
            "                           NPU1, NPU2 (AMD XDNA, AIE2 / AIE2P) or a column partition of one\n"
            "                           (NPU1Col1, NPU1Col2, NPU1Col4, NPU2Col1, NPU2Col4, NPU2Col8): the matmuls on\n"
            "                           the emulated tile array, every other op on the CPU\n"
            "  -sm, --split-mode M      layer (default): each NPU device holds and computes its share of the layers\n"
            "                           (less memory per session, one session busy at a time); row: the listed NPU\n"
            "                           devices become one group, HTP0,HTP1 -> HTP0[0,1], a group staying as it is\n"
            "                           (every session works on every op: parallelism, when the host has the cores);\n"
            "                           tensor: every weight matrix split by rows over the listed NPU devices (not\n"
            "                           groups), their rows gathered (1/n of each layer per session; the devices\n"
            "                           take turns)\n"
            "  -fa, --flash-attn on|off|auto  attention as FLASH_ATTN_EXT (on, auto: default) or MUL_MAT + SOFT_MAX\n"
            "  -ctk, --cache-type-k T   KV cache K type: f16 (default) or f32\n"
            "  -ctv, --cache-type-v T   KV cache V type: f16 (default) or f32\n"
            "      --seed N             sampler seed (default -1: random, printed)\n"
            "      --temp T             temperature (default 0.8; 0: greedy)\n"
            "      --top-k N            top-k (default 40; 0: off)\n"
            "      --top-p P            top-p (default 0.95; 1: off)\n"
            "      --min-p P            min-p (default 0.05; 0: off)\n"
            "      --ignore-eos         keep generating past end-of-text tokens\n"
            "  -e, --escape             process \\n \\r \\t \\' \\\" \\\\ \\xHH in the prompt, as llama.cpp (default)\n"
            "      --no-escape          take the prompt as it is\n"
            "      --logits-out FILE    write every position's logits (oracle LLREFLG1 format)\n"
            "      --print-token-ids    print the prompt and generated token ids to stderr\n"
            "      --trace FILE         write a Perfetto trace of the NPU devices' requests (trace-event JSON)\n"
            "      --arch A             the NPU target: v73, v75, v79 (default), v81 (as VNPU_ARCH)\n"
            "      --perf-model         price every NPU op on the target with the cost model (sets VNPU_PERF=1: the\n"
            "                           counting NPU library, the target's HVX contexts as NPU threads) and end with\n"
            "                           the modelled prompt and eval times (docs/targets.md); a --trace is then on\n"
            "                           the modelled timeline\n"
            "  -h, --help               this text\n");
}

static int32_t parse_kv_type(const char *option, const char *value) {
    if (strcmp(value, "f16") == 0) {
        return 1;
    }
    if (strcmp(value, "f32") == 0) {
        return 0;
    }
    fprintf(stderr, TOOL ": %s '%s': expected f16 or f32\n", option, value);
    exit(2);
}

static void parse_args(int argc, char **argv, struct cli_args *a) {
    a->n_predict = -1;
    a->cparams = vnpu_context_default_params();
    a->cparams.n_ctx = 4096;
    a->sparams = vnpu_sampler_default_params();
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
#define IS(s, l) (strcmp(o, s) == 0 || strcmp(o, l) == 0)
#define VALUE()  tool_option_value(TOOL, argc, argv, &i)
        if (IS("-h", "--help")) {
            usage(stdout);
            exit(0);
        } else if (IS("-m", "--model")) {
            a->model = VALUE();
        } else if (IS("-p", "--prompt")) { /* the last prompt given wins, as llama.cpp's -p and -f */
            a->prompt = VALUE();
            a->prompt_file = a->tokens = NULL;
        } else if (IS("-f", "--file")) {
            a->prompt_file = VALUE();
            a->prompt = a->tokens = NULL;
        } else if (IS("--tokens", "--tokens")) {
            a->tokens = VALUE();
            a->prompt = a->prompt_file = NULL;
        } else if (IS("-n", "--n-predict")) {
            a->n_predict = (int32_t) tool_parse_int(TOOL, o, VALUE(), -2, 1 << 24);
        } else if (IS("-t", "--threads")) {
            a->cparams.n_threads = (int32_t) tool_parse_int(TOOL, o, VALUE(), 1, 512);
        } else if (IS("-c", "--ctx-size")) {
            a->cparams.n_ctx = (uint32_t) tool_parse_int(TOOL, o, VALUE(), 0, 1 << 24);
        } else if (IS("-b", "--batch-size")) {
            a->cparams.n_batch = (uint32_t) tool_parse_int(TOOL, o, VALUE(), 1, 1 << 16);
        } else if (IS("-dev", "--device")) {
            a->cparams.devices = VALUE();
        } else if (IS("-sm", "--split-mode")) {
            const char *v = VALUE();
            if (strcmp(v, "layer") != 0 && strcmp(v, "row") != 0 && strcmp(v, "tensor") != 0) {
                fprintf(stderr, TOOL ": %s '%s': expected layer, row or tensor\n", o, v);
                exit(2);
            }
            a->split_mode = strcmp(v, "layer") == 0 ? VNPU_SPLIT_MODE_LAYER
                            : strcmp(v, "row") == 0 ? VNPU_SPLIT_MODE_ROW
                                                    : VNPU_SPLIT_MODE_TENSOR;
        } else if (IS("-fa", "--flash-attn")) {
            const char *v = VALUE();
            if (strcmp(v, "on") != 0 && strcmp(v, "off") != 0 && strcmp(v, "auto") != 0) {
                fprintf(stderr, TOOL ": %s '%s': expected on, off or auto\n", o, v);
                exit(2);
            }
            a->cparams.flash_attn = strcmp(v, "off") != 0; /* auto: on, as llama.cpp chooses on the CPU */
        } else if (IS("-ctk", "--cache-type-k")) {
            a->cparams.type_k = parse_kv_type(o, VALUE());
        } else if (IS("-ctv", "--cache-type-v")) {
            a->cparams.type_v = parse_kv_type(o, VALUE());
        } else if (IS("-s", "--seed")) {
            const int64_t seed = tool_parse_int(TOOL, o, VALUE(), -1, INT64_MAX);
            a->sparams.seed = (uint64_t) seed;
            a->seed_set = seed >= 0; /* -1: random, as llama.cpp's LLAMA_DEFAULT_SEED */
        } else if (IS("--temp", "--temperature")) {
            a->sparams.temp = (float) tool_parse_float(TOOL, o, VALUE(), 0.0, 100.0);
        } else if (IS("--top-k", "--top-k")) {
            a->sparams.top_k = (int32_t) tool_parse_int(TOOL, o, VALUE(), 0, INT32_MAX);
        } else if (IS("--top-p", "--top-p")) {
            a->sparams.top_p = (float) tool_parse_float(TOOL, o, VALUE(), 0.0, 1.0);
        } else if (IS("--min-p", "--min-p")) {
            a->sparams.min_p = (float) tool_parse_float(TOOL, o, VALUE(), 0.0, 1.0);
        } else if (IS("-e", "--escape")) {
            a->no_escape = false;
        } else if (IS("--no-escape", "--no-escape")) {
            a->no_escape = true;
        } else if (IS("--ignore-eos", "--ignore-eos")) {
            a->ignore_eos = true;
        } else if (IS("--logits-out", "--logits-out")) {
            a->logits_out = VALUE();
        } else if (IS("--print-token-ids", "--print-token-ids")) {
            a->print_ids = true;
        } else if (IS("--trace", "--trace")) {
            a->cparams.trace_path = VALUE();
        } else if (IS("--arch", "--arch")) {
            a->arch = VALUE();
        } else if (IS("--perf-model", "--perf-model")) {
            a->perf_model = true;
        } else {
            fprintf(stderr, TOOL ": unknown option '%s' (see --help)\n", o);
            exit(2);
        }
#undef IS
#undef VALUE
    }
    if (!a->model) {
        fprintf(stderr, TOOL ": no model given (-m FILE)\n");
        exit(2);
    }
    enum vdsp_arch arch;
    if (a->arch && !vdsp_arch_parse(a->arch, &arch)) {
        fprintf(stderr, TOOL ": --arch '%s': expected v73, v75, v79 or v81\n", a->arch);
        exit(2);
    }
    if ((a->perf_model || a->arch) && a->cparams.devices && !strstr(a->cparams.devices, "HTP")) {
        fprintf(stderr,
                TOOL ": %s models the Hexagon targets' HTP devices, and --device %s has none (the XDNA devices' cost "
                     "model: vnpu-bench -m MODEL -dev NPU2, docs/xdna-cost-model.md)\n",
                a->perf_model ? "--perf-model" : "--arch", a->cparams.devices);
        exit(2);
    }
    if (!a->prompt && !a->prompt_file && !a->tokens) {
        fprintf(stderr, TOOL ": no prompt given (-p TEXT, -f FILE or --tokens IDS)\n");
        exit(2);
    }
    if (a->cparams.trace_path && a->cparams.devices && strcmp(a->cparams.devices, "CPU") == 0) {
        fprintf(stderr,
                TOOL ": --trace %s: only NPU devices are traced, and --device CPU is none (add HTP0 or an XDNA device "
                     "such as NPU2, or leave --device out for the NPU devices)\n",
                a->cparams.trace_path);
        exit(2);
    }
    if (a->cparams.trace_path && !a->cparams.trace_path[0]) {
        fprintf(stderr, TOOL ": --trace: an empty path\n");
        exit(2);
    }
    /* an output must not be an input, nor the other output */
    const struct {
        const char *option, *path;
    } outs[2] = {{"--logits-out", a->logits_out}, {"--trace", a->cparams.trace_path}};
    for (int i = 0; i < 2; i++) {
        const char *in = !outs[i].path                                                    ? NULL
                         : tool_same_file(outs[i].path, a->model)                         ? "the model file"
                         : a->prompt_file && tool_same_file(outs[i].path, a->prompt_file) ? "the prompt file"
                         : i == 1 && a->logits_out && tool_same_file(outs[i].path, a->logits_out)
                             ? "--logits-out's file"
                             : NULL;
        if (in) {
            fprintf(stderr, TOOL ": %s %s is %s; choose another path\n", outs[i].option, outs[i].path, in);
            exit(2);
        }
    }
}

/* The prompt file's bytes (NUL-terminated) but for one final newline, dropped as llama.cpp's -f drops it; NULL with a
 * message. */
static char *read_prompt_file(const char *path, size_t *len) {
    char *text = tool_read_file(TOOL, "prompt file", path, len);
    if (text && *len > 0 && text[*len - 1] == '\n') {
        text[--*len] = '\0';
    }
    return text;
}

static int32_t parse_token_list(const char *list, vnpu_token **out) {
    int32_t n = 1;
    for (const char *p = list; *p; p++) {
        n += *p == ',';
    }
    vnpu_token *ids = malloc((size_t) n * sizeof(*ids));
    char *item = malloc(strlen(list) + 1);
    if (!ids || !item) {
        fprintf(stderr, TOOL ": cannot allocate %d token ids\n", n);
        exit(1);
    }
    const char *p = list;
    for (int32_t i = 0; i < n; i++) {
        const size_t len = strcspn(p, ",");
        memcpy(item, p, len);
        item[len] = '\0';
        ids[i] = (vnpu_token) tool_parse_int(TOOL, "--tokens", item, 0, INT32_MAX);
        p += len + 1;
    }
    free(item);
    *out = ids;
    return n;
}

/* The prompt's token ids, or -1 with a message (an id of --tokens outside the vocabulary: the first, its position). */
static int32_t prompt_tokens(const struct vnpu_model *model, const struct cli_args *a, vnpu_token **out) {
    if (a->tokens) {
        const int32_t n = parse_token_list(a->tokens, out), n_vocab = vnpu_model_n_vocab(model);
        for (int32_t i = 0; i < n; i++) {
            if ((*out)[i] >= n_vocab) {
                fprintf(stderr,
                        TOOL ": --tokens: id %d at position %d is outside the vocabulary (n_vocab %d: ids 0..%d)\n",
                        (*out)[i], i, n_vocab, n_vocab - 1);
                free(*out);
                *out = NULL;
                return -1;
            }
        }
        return n;
    }
    /* a count first: a text of n bytes can make more than n tokens (special text, byte fallback) */
    const int32_t n = vnpu_tokenize(model, a->prompt, a->prompt_len, NULL, 0, true, true);
    vnpu_token *ids = n != INT32_MIN ? malloc((size_t) (n < 0 ? -(int64_t) n : 1) * sizeof(*ids)) : NULL;
    if (!ids || (n < 0 && vnpu_tokenize(model, a->prompt, a->prompt_len, ids, -n, true, true) != -n)) {
        fprintf(stderr, TOOL ": cannot tokenize the prompt (the error above says why)\n");
        free(ids);
        return -1;
    }
    *out = ids;
    return n < 0 ? -n : 0;
}

static void print_piece(const struct vnpu_model *model, vnpu_token token) {
    char small[256];
    char *piece = small;
    int32_t n = vnpu_token_to_piece(model, token, piece, sizeof(small), false);
    if (n < 0 && (piece = malloc((size_t) -n)) != NULL) { /* a token longer than the usual buffer */
        n = vnpu_token_to_piece(model, token, piece, -n, false);
    }
    if (n > 0) {
        fwrite(piece, 1, (size_t) n, stdout);
        fflush(stdout);
    }
    if (piece != small) {
        free(piece);
    }
}

/* Logits file of the oracle (LLREFLG1): header, then the rows, then the tokens; see
 * ../shared/oracle/README.md. Written through src/base/file-out.h: complete or not at all. */
struct logits_file {
    struct vnpu_file_out out;
    uint32_t n_rows;
    int err; /* first write error */
};

static void logits_file_put(struct logits_file *lf, const void *data, size_t size) {
    if (lf->err == 0 && fwrite(data, 1, size, lf->out.fp) != size) {
        lf->err = errno ? errno : EIO;
    }
}

static bool logits_file_open(struct logits_file *lf, const char *path) {
    if (vnpu_file_out_open(path, &lf->out) != VNPU_STATUS_OK) {
        return false;
    }
    static const uint8_t zero_header[32];
    logits_file_put(lf, zero_header, sizeof(zero_header));
    return true;
}

static void logits_file_row(struct logits_file *lf, const float *row, int32_t n_vocab) {
    lf->n_rows++;
    logits_file_put(lf, row, (size_t) n_vocab * sizeof(float));
}

static bool logits_file_finish(struct logits_file *lf, int32_t n_vocab, const vnpu_token *tokens, int32_t n_prompt,
                               int32_t n_gen) {
    const uint32_t header[6] = {1, (uint32_t) n_vocab, (uint32_t) n_prompt, (uint32_t) n_gen, lf->n_rows, 0};
    logits_file_put(lf, tokens, sizeof(vnpu_token) * (size_t) (n_prompt + n_gen));
    if (lf->err == 0 && fseek(lf->out.fp, 0, SEEK_SET) != 0) {
        lf->err = errno;
    }
    logits_file_put(lf, "LLREFLG1", 8);
    logits_file_put(lf, header, sizeof(header));
    return vnpu_file_out_commit(&lf->out, lf->err) == VNPU_STATUS_OK;
}

/* The prompt and eval lines of llama.cpp's timings: pt and et milliseconds for p's tokens and runs. */
static void print_eval_times(double pt, double et, const struct vnpu_perf *p) {
    fprintf(stderr,
            "vnpu_perf: prompt eval time = %10.2f ms / %5d tokens (%8.2f ms per token, %8.2f tokens per second)\n", pt,
            p->n_prompt, p->n_prompt ? pt / p->n_prompt : 0.0, pt > 0 ? 1e3 * p->n_prompt / pt : 0.0);
    fprintf(stderr,
            "vnpu_perf:        eval time = %10.2f ms / %5d runs   (%8.2f ms per token, %8.2f tokens per second)\n", et,
            p->n_eval, p->n_eval ? et / p->n_eval : 0.0, et > 0 ? 1e3 * p->n_eval / et : 0.0);
}

static void print_perf(const struct vnpu_perf *p) {
    const double pt = p->t_prompt_ms, et = p->t_eval_ms;
    fprintf(stderr, "\n");
    fprintf(stderr, "vnpu_perf:        load time = %10.2f ms\n", p->t_load_ms);
    print_eval_times(pt, et, p);
    fprintf(stderr, "vnpu_perf:       total time = %10.2f ms / %5d tokens\n", p->t_load_ms + pt + et,
            p->n_prompt + p->n_eval);
}

/* --perf-model: the modelled prompt and eval lines, as print_perf's, on the target. */
static void print_modelled(const struct vnpu_htp_perf *prompt, const struct vnpu_htp_perf *eval,
                           const struct vnpu_perf *p) {
    const double pt = prompt->us * 1e-3, et = eval->us * 1e-3;
    fprintf(stderr, "vnpu_perf: modelled on %s (%u NPU threads at %u MHz, the cost model, docs/targets.md%s):\n",
            prompt->target[0] ? prompt->target : eval->target, prompt->n_threads ? prompt->n_threads : eval->n_threads,
            prompt->clock_mhz ? prompt->clock_mhz : eval->clock_mhz,
            prompt->calibrated || eval->calibrated ? "" : "; no calibration: HVX at resource bounds");
    print_eval_times(pt, et, p);
}

static void print_ids(const char *what, const vnpu_token *ids, int32_t n) {
    fprintf(stderr, "%s:", what);
    for (int32_t i = 0; i < n; i++) {
        fprintf(stderr, " %d", ids[i]);
    }
    fprintf(stderr, "\n");
}

/* Decode the prompt, then sample and decode until n_predict tokens, end of text or a full context. */
static int generate(struct vnpu_model *model, struct vnpu_context *ctx, struct vnpu_sampler *smpl,
                    const struct cli_args *a, struct logits_file *lf, vnpu_token *tokens, int32_t n_prompt,
                    int32_t n_cap) {
    const int32_t n_vocab = vnpu_model_n_vocab(model);
    struct vnpu_htp_perf modelled_prompt, modelled_eval;
    vnpu_htp_perf_read(&modelled_prompt, true); /* what loading sent, if anything */
    bool ok = vnpu_decode(ctx, tokens, NULL, n_prompt, a->logits_out != NULL) == VNPU_STATUS_OK;
    if (n_prompt > 1) {
        vnpu_htp_perf_read(&modelled_prompt, true);
    } else { /* as the host's lines count it (llama.cpp's rule): a one-token prompt is an eval */
        modelled_prompt.us = 0.0;
    }
    for (int32_t i = 0; ok && a->logits_out && i < n_prompt; i++) {
        logits_file_row(lf, vnpu_get_logits(ctx, i), n_vocab);
    }
    int32_t n_gen = 0;
    /* a prompt that ends the text generates nothing, as llama.cpp's llama-completion stops on it */
    bool eog = n_prompt > 0 && vnpu_model_is_eog(model, tokens[n_prompt - 1]) && !a->ignore_eos;
    while (ok && !eog && n_gen < n_cap) {
        const vnpu_token t = vnpu_sampler_sample(smpl, vnpu_get_logits(ctx, -1), n_vocab);
        tokens[n_prompt + n_gen++] = t;
        eog = vnpu_model_is_eog(model, t) && !a->ignore_eos;
        if (!eog) {
            print_piece(model, t);
        }
        /* Every generated token is decoded when logits are written (the oracle's files hold a row for each). */
        if ((n_gen < n_cap && !eog) || a->logits_out) {
            ok = vnpu_decode(ctx, &t, NULL, 1, false) == VNPU_STATUS_OK;
            if (ok && a->logits_out) {
                logits_file_row(lf, vnpu_get_logits(ctx, -1), n_vocab);
            }
        }
        if (eog) {
            break;
        }
    }
    printf("\n");
    fflush(stdout); /* the text before the note below */
    const uint32_t n_ctx = vnpu_n_ctx(ctx);
    if (ok && !eog && (uint32_t) (n_prompt + n_gen) == n_ctx && (a->n_predict < 0 || a->n_predict > n_gen)) {
        if (a->n_predict > 0) {
            fprintf(stderr, TOOL ": context full (%u tokens, -c): stopped after %d generated tokens of the %d asked\n",
                    n_ctx, n_gen, a->n_predict);
        } else {
            fprintf(stderr, TOOL ": context full (%u tokens, -c): stopped after %d generated tokens\n", n_ctx, n_gen);
        }
    }
    if (ok && a->logits_out) {
        ok = logits_file_finish(lf, n_vocab, tokens, n_prompt, n_gen);
    }
    if (a->print_ids) {
        print_ids("prompt ids", tokens, n_prompt);
        print_ids("generated ids", tokens + n_prompt, n_gen);
    }
    if (!ok) {
        fprintf(stderr, TOOL ": generation failed\n");
        return 1;
    }
    const struct vnpu_perf perf = vnpu_perf_get(ctx);
    print_perf(&perf);
    if (a->perf_model) {
        vnpu_htp_perf_read(&modelled_eval, true);
        print_modelled(&modelled_prompt, &modelled_eval, &perf);
    }
    return 0;
}

int main(int argc, char **argv) {
    struct cli_args a = {0};
    parse_args(argc, argv, &a);
    if (!a.seed_set) {
        uint32_t seed = 0;
        if (getrandom(&seed, sizeof(seed), 0) != (ssize_t) sizeof(seed)) {
            fprintf(stderr, TOOL ": no random seed available; give one with --seed\n");
            return 1;
        }
        a.sparams.seed = seed;
        fprintf(stderr, "seed: %llu\n", (unsigned long long) a.sparams.seed);
    }

    if (a.arch) { /* the HTP devices read their environment once, at their first use below */
        setenv("VNPU_ARCH", a.arch, 1);
    }
    if (a.perf_model) {
        setenv("VNPU_PERF", "1", 1);
    }
    char *file_text = NULL; /* read first, as the paths below: a bad one fails before the model loads */
    if (a.prompt_file) {
        if (!(file_text = read_prompt_file(a.prompt_file, &a.prompt_len))) {
            return 1;
        }
    } else if (a.prompt) {
        a.prompt_len = strlen(a.prompt);
        if (!(file_text = malloc(a.prompt_len + 1))) {
            fprintf(stderr, TOOL ": out of memory\n");
            return 1;
        }
        memcpy(file_text, a.prompt, a.prompt_len + 1);
    }
    if (file_text) { /* llama.cpp's programs process the prompt's escapes, whether it came by -p or by -f */
        a.prompt_len = a.no_escape ? a.prompt_len : tool_process_escapes(file_text, a.prompt_len);
        file_text[a.prompt_len] = '\0';
        a.prompt = file_text;
    }
    struct logits_file lf = {0};
    if (a.logits_out && !logits_file_open(&lf, a.logits_out)) {
        free(file_text);
        return 1;
    }
    struct vnpu_file_out trace_probe; /* the trace replaces its path at the end: the path is tried now */
    if (a.cparams.trace_path) {
        if (vnpu_file_out_open(a.cparams.trace_path, &trace_probe) != VNPU_STATUS_OK) {
            vnpu_file_out_abort(&lf.out);
            free(file_text);
            return 1;
        }
        vnpu_file_out_abort(&trace_probe);
    }
    struct vnpu_model_params mparams = vnpu_model_default_params();
    mparams.devices = a.cparams.devices; /* NULL: the library's default, every NPU device */
    mparams.split_mode = a.split_mode;
    a.cparams.devices = NULL; /* the context computes on the model's devices, the split mode applied */
    mparams.progress = tool_progress;
    mparams.progress_user = "loading";
    struct vnpu_model *model = NULL;
    if (vnpu_model_load(a.model, &mparams, &model) != VNPU_STATUS_OK) {
        fprintf(stderr, TOOL ": cannot load model %s on %s (the error above says why)\n", a.model,
                mparams.devices ? mparams.devices : "the default devices");
        vnpu_file_out_abort(&lf.out);
        free(file_text);
        return 1;
    }
    char desc[256];
    vnpu_model_desc(model, desc, sizeof(desc));
    fprintf(stderr, "model: %s\n", desc);
    fprintf(stderr, "devices: %s\n", vnpu_model_devices(model));
    if (a.cparams.n_ctx > (uint32_t) vnpu_model_n_ctx_train(model)) {
        fprintf(stderr, "warning: the context (%u) is larger than the model was trained for (%d)\n", a.cparams.n_ctx,
                vnpu_model_n_ctx_train(model));
    }

    struct vnpu_context *ctx = NULL;
    vnpu_token *tokens = NULL;
    int32_t n_prompt = prompt_tokens(model, &a, &tokens);
    if (n_prompt > 0 && vnpu_context_new(model, &a.cparams, &ctx) != VNPU_STATUS_OK) {
        n_prompt = -1;
    }
    int rc = 1;
    if (n_prompt == 0) {
        fprintf(stderr, TOOL ": the prompt has no tokens\n");
    } else if (n_prompt > 0 && (uint32_t) n_prompt > vnpu_n_ctx(ctx)) {
        fprintf(stderr, TOOL ": the prompt has %d tokens, the context only %u (-c)\n", n_prompt, vnpu_n_ctx(ctx));
    } else if (n_prompt > 0) {
        const int32_t room = (int32_t) vnpu_n_ctx(ctx) - n_prompt;
        const int32_t n_cap = a.n_predict < 0 || a.n_predict > room ? room : a.n_predict;
        vnpu_token *all = realloc(tokens, (size_t) (n_prompt + n_cap) * sizeof(*tokens));
        struct vnpu_sampler *smpl = vnpu_sampler_new(&a.sparams);
        if (all && smpl) {
            tokens = all;
            if (a.prompt) { /* the text as given (llama.cpp prints the prompt's pieces, SPM's added space too) */
                fwrite(a.prompt, 1, a.prompt_len, stdout);
            } else {
                for (int32_t i = 0; i < n_prompt; i++) {
                    print_piece(model, tokens[i]);
                }
            }
            rc = generate(model, ctx, smpl, &a, &lf, tokens, n_prompt, n_cap);
        } else {
            fprintf(stderr, TOOL ": out of memory\n");
            tokens = all ? all : tokens;
        }
        vnpu_sampler_free(smpl);
    }
    vnpu_file_out_abort(&lf.out); /* nothing left when generate committed it */
    free(tokens);
    free(file_text);
    vnpu_context_free(ctx);
    vnpu_model_free(model); /* closes the devices, which complete the trace */
    if (a.cparams.trace_path && trace_file_result() != VNPU_STATUS_OK) {
        fprintf(stderr, TOOL ": the trace %s could not be written (the error above says why)\n", a.cparams.trace_path);
        rc = 1;
    }
    return rc;
}
