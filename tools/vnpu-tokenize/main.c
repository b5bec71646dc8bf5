/*
 * vnpu-tokenize: tokenize a text with a GGUF file's vocabulary, like llama.cpp's llama-tokenize (tools/tokenize).
 *
 *   vnpu-tokenize -m FILE -p TEXT [--ids] [--no-bos] [--no-parse-special]
 *
 * Reads only the vocabulary (vnpu_vocab_load_file), so llama.cpp's vocabulary-only files (models/ggml-vocab-*.gguf)
 * work as models do. Prints one line per token, "%6d -> '<piece>'" (the piece as llama_token_to_piece gives it with
 * special tokens shown), or with --ids the ids as a Python list, "[1, 2, 3]". As llama-tokenize: escapes in the text
 * (\n \r \t \' \" \\ \xHH) are processed unless --no-escape, special-token text is parsed unless --no-parse-special,
 * BOS (and EOS) are added as the vocabulary says unless --no-bos, and -f reads the file verbatim (a final newline is
 * a token too). Exit status: 0 done, 1 the file or the text could not be read or tokenized, 2 bad usage.
 */
#include "tool-common.h"
#include "vnpu.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOOL "vnpu-tokenize"

struct tokenize_args {
    const char *model;
    const char *prompt;
    const char *prompt_file;
    bool use_stdin;
    bool ids;
    bool no_bos;
    bool parse_special;
    bool escape;
    bool show_count;
};

static void usage(FILE *out) {
    fprintf(out,
            "usage: " TOOL " -m FILE (-p TEXT | -f FILE | --stdin) [options]\n"
            "\n"
            "  -m, --model FILE       GGUF file: a model or a vocabulary-only file (only tokenizer.ggml.* is read)\n"
            "  -p, --prompt TEXT      the text to tokenize\n"
            "  -f, --file FILE        read the text from FILE, verbatim (a final newline is a token too)\n"
            "      --stdin            read the text from standard input (over -p and -f)\n"
            "      --ids              print only the token ids, as a Python list: [1, 2, 3]\n"
            "      --no-bos           add no BOS (nor EOS) even when the vocabulary adds them\n"
            "      --parse-special    special-token text (<|im_start|>, <s>) becomes those tokens (default)\n"
            "      --no-parse-special special-token text stays text\n"
            "  -e, --escape           process \\n \\r \\t \\' \\\" \\\\ \\xHH in the text (default)\n"
            "      --no-escape        take the text as it is\n"
            "      --show-count       end with \"Total number of tokens: N\"\n"
            "  -h, --help             this text\n"
            "Without --ids each token is a line \"%%6d -> '<piece>'\", control tokens shown as their text.\n"
            "exit status: 0 done, 1 the file or the text could not be read or tokenized, 2 bad usage\n");
}

static void parse_args(int argc, char **argv, struct tokenize_args *a) {
    a->parse_special = true;
    a->escape = true;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
#define IS(s, l) (strcmp(o, s) == 0 || strcmp(o, l) == 0)
#define VALUE()  tool_option_value(TOOL, argc, argv, &i)
        if (IS("-h", "--help")) {
            usage(stdout);
            exit(0);
        } else if (IS("-m", "--model")) {
            a->model = VALUE();
        } else if (IS("-p", "--prompt")) { /* of -p and -f the last given is the text, as llama.cpp's */
            a->prompt = VALUE();
            a->prompt_file = NULL;
        } else if (IS("-f", "--file")) {
            a->prompt_file = VALUE();
            a->prompt = NULL;
        } else if (IS("--stdin", "--stdin")) {
            a->use_stdin = true;
        } else if (IS("--ids", "--ids")) {
            a->ids = true;
        } else if (IS("--no-bos", "--no-bos")) {
            a->no_bos = true;
        } else if (IS("--parse-special", "--parse-special")) {
            a->parse_special = true;
        } else if (IS("--no-parse-special", "--no-parse-special")) {
            a->parse_special = false;
        } else if (IS("-e", "--escape")) {
            a->escape = true;
        } else if (IS("--no-escape", "--no-escape")) {
            a->escape = false;
        } else if (IS("--show-count", "--show-count")) {
            a->show_count = true;
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
    if (!a->prompt && !a->prompt_file && !a->use_stdin) {
        fprintf(stderr, TOOL ": no text given (-p TEXT, -f FILE or --stdin)\n");
        exit(2);
    }
}

int main(int argc, char **argv) {
    struct tokenize_args a = {0};
    parse_args(argc, argv, &a);

    char *text = NULL;
    size_t len = 0;
    if (a.use_stdin) {
        text = tool_read_stream(TOOL, stdin, "standard input", &len);
    } else if (a.prompt_file) {
        text = tool_read_file(TOOL, "file", a.prompt_file, &len);
    } else {
        len = strlen(a.prompt);
        text = malloc(len + 1);
        if (text) {
            memcpy(text, a.prompt, len + 1);
        } else {
            fprintf(stderr, TOOL ": cannot allocate %zu bytes for the text\n", len + 1);
        }
    }
    if (!text) {
        return 1;
    }
    if (a.escape) {
        len = tool_process_escapes(text, len);
    }

    struct vnpu_vocab *vocab = NULL;
    if (vnpu_vocab_load_file(a.model, &vocab) != VNPU_STATUS_OK) {
        fprintf(stderr, TOOL ": cannot load the vocabulary of %s (the error above says why)\n", a.model);
        free(text);
        return 1;
    }
    const bool add_special = vnpu_vocab_add_bos(vocab) && !a.no_bos; /* llama-tokenize's add_bos */
    const int32_t counted = vnpu_vocab_tokenize(vocab, text, len, NULL, 0, add_special, a.parse_special);
    const int32_t n = counted == INT32_MIN ? -1 : -counted; /* the count, as none fit in no room */
    vnpu_token *tokens = n > 0 ? malloc((size_t) n * sizeof(*tokens)) : NULL;
    int status = 0;
    if (n < 0) { /* the library said why */
        fprintf(stderr, TOOL ": cannot tokenize the text (the error above says why)\n");
        status = 1;
    } else if (n > 0 && !tokens) {
        fprintf(stderr, TOOL ": cannot allocate %" PRId32 " tokens\n", n);
        status = 1;
    } else if (n > 0) {
        vnpu_vocab_tokenize(vocab, text, len, tokens, n, add_special, a.parse_special);
    }
    char small[256];
    for (int32_t i = 0; status == 0 && i < n; i++) {
        if (a.ids) {
            printf("%s%" PRId32, i ? ", " : "[", tokens[i]);
            continue;
        }
        const int32_t k = vnpu_vocab_token_to_piece(vocab, tokens[i], small, sizeof(small), true);
        char *piece = k >= 0 ? small : malloc((size_t) -k);
        if (!piece) {
            fprintf(stderr, TOOL ": cannot allocate a piece of %" PRId32 " bytes\n", -k);
            status = 1;
            break;
        }
        if (k < 0) {
            vnpu_vocab_token_to_piece(vocab, tokens[i], piece, -k, true);
        }
        printf("%6" PRId32 " -> '", tokens[i]);
        fwrite(piece, 1, (size_t) (k >= 0 ? k : -k), stdout);
        printf("'\n");
        if (piece != small) {
            free(piece);
        }
    }
    if (status == 0 && a.ids) {
        printf(n > 0 ? "]\n" : "[]\n");
    }
    if (status == 0 && a.show_count) {
        printf("Total number of tokens: %" PRId32 "\n", n);
    }
    free(tokens);
    vnpu_vocab_free(vocab);
    free(text);
    return status;
}
