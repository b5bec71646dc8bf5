/*
 * vnpu and llama.cpp on the same synthetic models, for every type vnpu can quantize and the oracle can
 * write (issue 2, acceptance 4):
 *  - vnpu-quantize of an F32 model gives, tensor for tensor, the bytes llama.cpp's quantizer gives
 *    (gen_gguf of the same seed and std quantizes the same floats), and llama.cpp loads and runs it;
 *  - a gen_gguf model of the type runs in vnpu with llama.cpp's logits (check_logits says how exactly), and, for the
 *    twelve types HTP0 tiles, on HTP0 with every MUL_MAT on the NPU (issue 5, acceptance 3; check_htp).
 * Each model and each llama.cpp reference is made once per machine (test_gen_gguf, test_llama_ref_logits) and serves
 * every check.
 * Models use gen_gguf's tiny preset (n_embd 256, 4 layers, vocab 4096) with --std 0.06, so the logits have
 * margins and agreement measures the arithmetic, not noise (../shared/oracle/README.md, gen_gguf).
 */
#include "test-common.h"

#include "gguf.h"
#include "repack.h"
#include "type-traits.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GEN_ARGS "--preset tiny --std 0.06 --seed 42"
#define PROMPT   "Once upon a time there was a"

/* Whether the oracle's ggml_quant can quantize type name (its `types` table says "yes"). */
static int oracle_quantizes(const char *bin, const char *name) {
    static char *types;
    if (!types) {
        assert_int_equal(test_run(&types, NULL, "%s/ggml_quant types 2>/dev/null", bin), 0);
    }
    char row[64];
    for (const char *p = types; (p = strstr(p, name)) != NULL; p++) {
        if (p[-1] == ' ' && p[strlen(name)] == ' ' && sscanf(p + strlen(name), "%*d %*d %63s", row) == 1) {
            return strcmp(row, "yes") == 0;
        }
    }
    return 0;
}

/* gen_gguf's model of type name (GEN_ARGS), from the cache (test_gen_gguf), into path. */
static const char *gen_model(const char *name, char *path, size_t size) {
    char key[64], args[256];
    snprintf(key, sizeof(key), "tiny-%s", name);
    snprintf(args, sizeof(args), GEN_ARGS " --type %s", name);
    return test_gen_gguf(key, args, path, size);
}

/* Every tensor of a has the same type, shape and bytes in b. */
static void assert_same_tensors(const char *path_a, const char *path_b) {
    struct gguf_file *a = NULL, *b = NULL;
    assert_int_equal(gguf_open(path_a, &a), VNPU_STATUS_OK);
    assert_int_equal(gguf_open(path_b, &b), VNPU_STATUS_OK);
    assert_int_equal(gguf_n_tensors(a), gguf_n_tensors(b));
    for (int64_t i = 0; i < gguf_n_tensors(a); i++) {
        const struct gguf_tensor_info *ta = gguf_tensor(a, i);
        const int64_t j = gguf_find_tensor(b, ta->name);
        assert_true(j >= 0);
        const struct gguf_tensor_info *tb = gguf_tensor(b, j);
        if (ta->type != tb->type || ta->size != tb->size || memcmp(ta->data, tb->data, ta->size) != 0) {
            fail_msg("%s: %s differs: %s %zu bytes vs %s %zu bytes", path_b, ta->name, vnpu_type_name(ta->type),
                     ta->size, vnpu_type_name(tb->type), tb->size);
        }
    }
    gguf_close(a);
    gguf_close(b);
}

/* vnpu-quantize F32 -> type matches llama.cpp's quantizer byte for byte, and llama.cpp runs the file. */
static void check_quantize(const char *bin, enum vnpu_type type) {
    const char *name = vnpu_type_name(type);
    char base[4400], mine[4200], theirs[4400];
    snprintf(mine, sizeof(mine), "%s/vnpu-%s.gguf", test_tmpdir(), name);
    char *err = NULL;
    int rc = test_run(NULL, &err, "%s/vnpu-quantize -t 2 %s %s %s", test_tools_dir(),
                      gen_model("f32", base, sizeof(base)), mine, name);
    if (rc != 0) {
        fail_msg("vnpu-quantize %s exited %d:\n%s", name, rc, err);
    }
    free(err);
    assert_same_tensors(gen_model(name, theirs, sizeof(theirs)), mine);
    char *out = NULL;
    rc = test_run(&out, &err, "%s/llama_ref -m %s -p '" PROMPT "' -n 4 -t 2", bin, mine);
    if (rc != 0 || !strstr(out, "gen_ids:")) {
        fail_msg("llama.cpp cannot run vnpu-quantize's %s file (exit %d):\n%s", name, rc, err);
    }
    free(out);
    free(err);
}

/*
 * A gen_gguf model of type t against llama.cpp on three prompts, 64 generated tokens each:
 *  - exactness: vnpu on the file gives llama.cpp's logits for its F32 twin (the same weights dequantized:
 *    vnpu-quantize to f32): every argmax equal, max |dlogit| < 1e-4;
 *  - agreement: top-1 equal to llama.cpp's on the file itself on >= 90% of positions. llama.cpp quantizes
 *    activations (q8_0, q8_1 or q8_K) and so disagrees with its own F32 path on near-ties; where that noise
 *    floor is below 90% (K-quants, measured), vnpu must be at least as close to llama.cpp as llama.cpp's
 *    own F32 twin is. References run with --kv-type f32 -fa off, the closest to vnpu's F32 activations;
 *  - for the twelve tiled types, check_htp below on the same references.
 */

/*
 * HTP0 (check_htp): the same file runs in vnpu-cli on HTP0 with every MUL_MAT there (VNPU_MM_PATH=hvx: the int8
 * kernels whatever the batch), on the token sequences llama.cpp generated.
 *
 * What to expect. Both quantized paths quantize the activations, llama.cpp to q8_0 / q8_1 blocks of 32 for the
 * block-32 types and q8_K blocks of 256 for the K-quants, HTP0 to its own blocks of 32 (act-quant.h), so neither
 * equals the twin, and they differ from each other by the sum of their errors. The tiny model's logits have
 * near-ties that any such error flips, so top-1 agreement with llama.cpp stays under the 95% for most
 * types, llama.cpp's own F32 twin included. Measured on this machine (agreement over 217 positions; mean KL of
 * the twin's softmax against each path's; `ctest -R test-oracle-models -V` prints them):
 *
 *     type    HTP0 vs llama.cpp   twin vs llama.cpp   KL(twin || HTP0)   KL(twin || llama.cpp)   ratio
 *     q4_0    206 (0.949)         207 (0.954)         3.8e-04            3.7e-04                 1.03
 *     q4_1    208 (0.959)         208 (0.959)         3.7e-04            3.8e-04                 0.97
 *     q8_0    210 (0.968)         207 (0.954)         2.6e-04            2.6e-04                 1.00
 *     iq4_nl  205 (0.945)         206 (0.949)         2.5e-04            2.5e-04                 1.00
 *     mxfp4   200 (0.922)         203 (0.935)         3.9e-04            4.0e-04                 0.97
 *     q1_0    212 (0.977)         215 (0.991)         9.7e-05            9.9e-05                 0.98
 *     q2_0    205 (0.945)         209 (0.963)         4.1e-04            4.2e-04                 0.98
 *     q2_K    200 (0.922)         198 (0.912)         4.4e-04            9.1e-04                 0.48
 *     q3_K    197 (0.908)         204 (0.940)         4.1e-04            8.1e-04                 0.51
 *     q4_K    205 (0.945)         201 (0.926)         3.7e-04            7.9e-04                 0.47
 *     q5_K    196 (0.903)         194 (0.894)         3.6e-04            7.5e-04                 0.48
 *     q6_K    196 (0.903)         200 (0.922)         3.8e-04            7.8e-04                 0.49
 *
 * HTP0 is as close to the exact weights as llama.cpp's quantized path (block-32 types: the same activation block)
 * or twice as close (K-quants: a scale per 32 activations against one per 256). Bounds, from these numbers:
 *   - distance to the exact weights: KL(twin || HTP0) <= HTP_KL_RATIO * KL(twin || llama.cpp). Measured ratios are
 *     0.47 .. 1.03; a kernel that misplaces a scale or a code moves the logits by orders of magnitude more.
 *   - top-1 agreement with llama.cpp: >= 95% of positions, or else no more than HTP_TOP1_SLACK of them below the twin's
 *     own agreement. The largest shortfall measured is 7 of 217 positions (3.2%, q3_K); a broken kernel agrees at
 *     a few percent.
 */
#define HTP_TOP1_FLOOR 0.95 /* the agreement */
#define HTP_TOP1_SLACK 0.06 /* positions HTP0 may agree less than llama.cpp's F32 twin, when under the floor */
#define HTP_KL_RATIO   1.25 /* KL(twin || HTP0) over KL(twin || llama.cpp), at most */

/* Sums over a type's prompts. */
struct logits_totals {
    int exact, rows_exact;           /* vnpu (CPU) vs the twin: argmax equal */
    int agree_cpu, agree_twin, rows; /* top-1 vs llama.cpp on the file: vnpu (CPU), the twin */
    int agree_htp;                   /* ... HTP0 */
    double kl_htp, kl_ref;           /* KL(twin || HTP0), KL(twin || llama.cpp), summed over positions */
};

/* vnpu-cli on model with tokens (-n 0, F32 KV cache) and extra arguments, every position's logits into out. */
static void run_vnpu(const char *model, const char *tokens, const char *env, const char *args, const char *out,
                     char **err) {
    const int rc = test_run(
        NULL, err, "%s %s/vnpu-cli -m %s --tokens %s -n 0 -t 2 -ctk f32 -ctv f32 %s --logits-out %s >/dev/null", env,
        test_tools_dir(), model, tokens, args, out);
    if (rc != 0) {
        fail_msg("vnpu-cli %s on %s exited %d:\n%.4000s", args, model, rc, *err);
    }
}

/* HTP0 on one prompt's tokens: every MUL_MAT node on the NPU, then its agreement with the references. */
static void check_htp_prompt(const char *bin, const char *model, const char *tokens, const char *ref,
                             const char *ref_twin, const char *htp, struct logits_totals *t) {
    char *err = NULL;
    run_vnpu(model, tokens, "VNPU_MM_PATH=hvx VNPU_VERBOSE=1", "--device HTP0", htp, &err);
    const int refused = test_count_lines(err, "supports-op MUL_MAT : ", " : no (", NULL);
    const int executed = test_count_lines(err, "execute-op MUL_MAT : ", " -> ", NULL);
    free(err);
    if (refused != 0 || executed == 0) {
        fail_msg("%s: %d MUL_MAT nodes refused by HTP0, %d executed", model, refused, executed);
    }
    struct test_logits_cmp cmp;
    test_logits_diff(bin, ref, htp, "", &cmp);
    t->agree_htp += cmp.agree;
    test_logits_diff(bin, ref_twin, htp, "", &cmp);
    t->kl_htp += cmp.kl_mean * cmp.rows;
    test_logits_diff(bin, ref_twin, ref, "", &cmp);
    t->kl_ref += cmp.kl_mean * cmp.rows;
}

/* HTP0's bounds over all prompts (see above). */
static void check_htp(const char *name, const struct logits_totals *t) {
    const double kl_htp = t->kl_htp / t->rows, kl_ref = t->kl_ref / t->rows;
    printf("%-7s HTP0 top-1 vs llama.cpp %d/%d (%.3f); KL(twin || HTP0) %.2g, KL(twin || llama.cpp) %.2g\n", name,
           t->agree_htp, t->rows, (double) t->agree_htp / t->rows, kl_htp, kl_ref);
    if (!(kl_htp <= HTP_KL_RATIO * kl_ref)) {
        fail_msg("%s: HTP0 is %.3g from the exact weights (KL), llama.cpp %.3g: more than %g times", name, kl_htp,
                 kl_ref, HTP_KL_RATIO);
    }
    if (t->agree_htp < HTP_TOP1_FLOOR * t->rows && t->agree_htp < t->agree_twin - HTP_TOP1_SLACK * t->rows) {
        fail_msg("%s: HTP0 top-1 agreement %d/%d is below %g and more than %g below llama.cpp's F32 twin (%d/%d)", name,
                 t->agree_htp, t->rows, HTP_TOP1_FLOOR, HTP_TOP1_SLACK, t->agree_twin, t->rows);
    }
}

static int n_htp_types; /* types check_logits ran on HTP0 */

static void check_logits(const char *bin, enum vnpu_type type) {
    static const char *const prompts[] = {"Once upon a time there was a", "The little dog ran to the park and",
                                          "She said that the sun was"};
    const char *name = vnpu_type_name(type);
    const char *dir = test_tmpdir();
    const int64_t ne_tiled[VNPU_MAX_DIMS] = {768, 32, 1, 1}; /* whole blocks of every tiled type */
    const bool tiled = repack_supported(type, ne_tiled);
    char model[4400], twin[4200];
    gen_model(name, model, sizeof(model));
    snprintf(twin, sizeof(twin), "%s/twin-%s.gguf", dir, name);
    assert_int_equal(test_run(NULL, NULL, "%s/vnpu-quantize %s %s f32 2>/dev/null", test_tools_dir(), model, twin), 0);
    struct logits_totals t = {0};
    for (size_t p = 0; p < sizeof(prompts) / sizeof(prompts[0]); p++) {
        char ref[4300], ref_twin[4300], mine[4300], htp[4300], tokens[8192];
        snprintf(ref, sizeof(ref), "%s/ref-%s-%zu.logits", dir, name, p);
        snprintf(ref_twin, sizeof(ref_twin), "%s/twin-%s-%zu.logits", dir, name, p);
        snprintf(mine, sizeof(mine), "%s/vnpu-%s-%zu.logits", dir, name, p);
        snprintf(htp, sizeof(htp), "%s/htp-%s-%zu.logits", dir, name, p);
        char args[8300];
        snprintf(args, sizeof(args), "-p '%s' -n 64 -t 2 --kv-type f32 -fa off", prompts[p]);
        test_llama_ref_logits(bin, model, args, ref);
        test_logits_tokens(ref, tokens, sizeof(tokens));
        snprintf(args, sizeof(args), "--tokens %s -n 0 -t 2 --kv-type f32 -fa off", tokens);
        test_llama_ref_logits(bin, twin, args, ref_twin);
        char *err = NULL;
        run_vnpu(model, tokens, "", "--device CPU", mine, &err);
        free(err);
        struct test_logits_cmp cmp;
        if (test_logits_diff(bin, ref_twin, mine, "--min-top1 1.0 --max-abs 1e-4", &cmp) != 0) {
            fail_msg("%s, prompt %zu: vnpu differs from llama.cpp on the F32 twin", name, p);
        }
        t.exact += cmp.agree;
        t.rows_exact += cmp.rows;
        test_logits_diff(bin, ref, mine, "", &cmp);
        t.agree_cpu += cmp.agree;
        t.rows += cmp.rows;
        test_logits_diff(bin, ref, ref_twin, "", &cmp);
        t.agree_twin += cmp.agree;
        if (tiled) {
            check_htp_prompt(bin, model, tokens, ref, ref_twin, htp, &t);
        }
    }
    printf("%-7s exact %d/%d; top-1 vs llama.cpp: vnpu %d/%d (%.3f), llama.cpp's F32 twin %d/%d (%.3f)\n", name,
           t.exact, t.rows_exact, t.agree_cpu, t.rows, (double) t.agree_cpu / t.rows, t.agree_twin, t.rows,
           (double) t.agree_twin / t.rows);
    if (10 * t.agree_cpu < 9 * t.rows && t.agree_cpu < t.agree_twin) {
        fail_msg("%s: top-1 agreement %d/%d is below 90%% and below llama.cpp's own F32 path (%d/%d)", name,
                 t.agree_cpu, t.rows, t.agree_twin, t.rows);
    }
    if (tiled) {
        check_htp(name, &t);
        n_htp_types++;
    }
}

/* Every type with a dequantizer and a reference quantizer, as the traits table lists them. */
static void for_each_type(void (*check)(const char *bin, enum vnpu_type type)) {
    const char *bin = test_oracle_bin();
    int n_checked = 0;
    for (int t = 0; t < VNPU_TYPE_COUNT; t++) {
        const struct vnpu_type_traits *tt = vnpu_type_traits_get((enum vnpu_type) t);
        if (!tt->to_f32 || !tt->from_f32_ref || t == VNPU_TYPE_F32) {
            continue;
        }
        if (!oracle_quantizes(bin, tt->name)) {
            printf("%s: the oracle cannot write it, not compared\n", tt->name);
            continue;
        }
        check(bin, (enum vnpu_type) t);
        n_checked++;
    }
    printf("%d types compared with llama.cpp\n", n_checked);
    assert_true(n_checked >= 16);
}

static void test_quantize_matches_llama_cpp(void **state) {
    (void) state;
    for_each_type(check_quantize);
}

static void test_logits_agree_with_llama_cpp(void **state) {
    (void) state;
    for_each_type(check_logits);
    assert_int_equal(n_htp_types, 12); /* every tiled type */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quantize_matches_llama_cpp),
        cmocka_unit_test(test_logits_agree_with_llama_cpp),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
