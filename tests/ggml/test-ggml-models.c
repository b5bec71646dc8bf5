/*
 * Models with a real BPE tokenizer generate on HTP0 the text of llama.cpp's CPU backend, both through llama.cpp and
 * through vnpu's own loader: random-weight models made by the oracle's gen_gguf carrying a vocabulary from llama.cpp's
 * source (models/ggml-vocab-*.gguf). llama-completion with every layer and the output on HTP0 (-dev HTP0 -ngl 99) and
 * vnpu-cli (its default device, HTP0) must give the text of llama.cpp's CPU backend alone (-dev none; one final
 * newline more, which llama-completion prints), and VNPU_PROFILE's summary must show the matmuls ran on HTP0.
 */
#include "test-common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROMPT "The capital of France is"
#define N_GEN  24

/* One model: a name for the cache, the vocabulary file under the source's models/ and gen_gguf's other options. */
struct model_case {
    const char *name, *vocab, *args;
};

/* The case's model from the cache (test_gen_gguf), into path. */
static const char *model_path(const struct model_case *c, char *path, size_t size) {
    char args[4600];
    snprintf(args, sizeof(args), "%s --vocab-from '%s/models/%s'", c->args, test_upstream_srcdir(), c->vocab);
    return test_gen_gguf(c->name, args, path, size);
}

/* The ops count of VNPU_PROFILE's summary line "vnpu-htp: HTP0 profile OP  N ops ..." in text; 0 without one. */
static unsigned long long profile_ops(const char *text, const char *op) {
    char key[64];
    snprintf(key, sizeof(key), "vnpu-htp: HTP0 profile %s ", op);
    const char *line = strstr(text, key);
    unsigned long long n = 0;
    return line && sscanf(line + strlen(key), " %llu ops", &n) == 1 ? n : 0;
}

/* The number of distinct bytes of text: a generation that repeats one short piece has few, words of many tokens
 * (in any script: pieces need not be space-separated) have many. */
static int distinct_bytes(const char *text) {
    int seen[256] = {0}, n = 0;
    for (const unsigned char *p = (const unsigned char *) text; *p; p++) {
        n += !seen[*p]++;
    }
    return n;
}

static void check_model(const struct model_case *c) {
    char path[4400];
    const char *model = model_path(c, path, sizeof(path));
    const char *plugin = test_ggml_plugin();
    const char *bin = test_upstream_bindir();

    char *err = NULL, *own = NULL;
    int rc = test_run(&own, &err, "'%s/vnpu-cli' -m '%s' -p '" PROMPT "' -n %d --temp 0 -t 1", test_tools_dir(), model,
                      N_GEN);
    if (rc != 0) {
        fail_msg("vnpu-cli on %s exited %d:\n%s", c->name, rc, err ? err : "");
    }
    free(err);

    char args[128];
    snprintf(args, sizeof(args), "--temp 0 -no-cnv -t 1 -p '" PROMPT "' -n %d", N_GEN);
    char *htp = NULL, *cpu = NULL;
    rc =
        test_run(&htp, &err, "VNPU_PROFILE=1 GGML_BACKEND_PATH='%s' '%s/llama-completion' -m '%s' -dev HTP0 -ngl 99 %s",
                 plugin, bin, model, args);
    if (rc != 0) {
        fail_msg("llama-completion -dev HTP0 on %s exited %d:\n%s", c->name, rc, err ? err : "");
    }
    /* every layer and the output on HTP0: a MUL_MAT per layer's seven weights and the output's, per token */
    const unsigned long long n_matmul = profile_ops(err, "MUL_MAT");
    if (n_matmul < 15 * N_GEN) {
        fail_msg("llama-completion -dev HTP0 on %s: not offloaded (%llu MUL_MAT on HTP0, at least %d expected):\n%s",
                 c->name, n_matmul, 15 * N_GEN, err);
    }
    free(err);
    rc = test_run(&cpu, &err, "'%s/llama-completion' -m '%s' -dev none %s", bin, model, args);
    if (rc != 0) {
        fail_msg("llama-completion -dev none on %s exited %d:\n%s", c->name, rc, err ? err : "");
    }
    free(err);
    fprintf(stderr, "%s: %llu MUL_MAT on HTP0; generated:%s\n", c->name, n_matmul, cpu + strlen(PROMPT));
    assert_true(strncmp(cpu, PROMPT, strlen(PROMPT)) == 0);
    assert_true(distinct_bytes(cpu + strlen(PROMPT)) >= 16); /* it generated, and not one piece over and over */
    assert_string_equal(htp, cpu);
    const size_t n_own = strlen(own);
    if (!(strlen(cpu) == n_own + 1 && strncmp(own, cpu, n_own) == 0 && cpu[n_own] == '\n')) {
        fail_msg("vnpu-cli on %s generated:\n%s\nllama.cpp's CPU backend:\n%s", c->name, own, cpu);
    }
    free(own);
    free(htp);
    free(cpu);
}

/* Llama 3's tokenizer (tokenizer.ggml.model gpt2, pre llama-bpe, 128256 tokens): a 2-layer 128-wide Llama whose
 * layers are Q4_0 and output Q8_0 (the NPU's int8 matmul kernels for both). The output dominates: 16.4M weights. */
static void test_llama_bpe(void **state) {
    (void) state;
    static const struct model_case c = {
        "llama-bpe-q4_0", "ggml-vocab-llama-bpe.gguf",
        "--preset tiny --n-embd 128 --n-layer 2 --n-head 4 --n-head-kv 2 --n-ff 256 --n-ctx 256 --type q4_0 "
        "--output-type q8_0 --seed 1 --std 0.02"};
    check_model(&c);
}

/* Qwen2's tokenizer (gpt2, pre qwen2, 151936 tokens) on the same Llama shape, every weight F16 (the NPU's F16
 * matmul). */
static void test_qwen2(void **state) {
    (void) state;
    static const struct model_case c = {
        "qwen2-vocab-f16", "ggml-vocab-qwen2.gguf",
        "--preset tiny --n-embd 128 --n-layer 2 --n-head 4 --n-head-kv 2 --n-ff 256 --n-ctx 256 --type f16 --seed 1 "
        "--std 0.05"};
    check_model(&c);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_llama_bpe),
        cmocka_unit_test(test_qwen2),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
