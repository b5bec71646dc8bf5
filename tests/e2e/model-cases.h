/*
 * Tables of llama model files rewritten from the shared models, for tests of anything that loads a model
 * (llama_model_validate, vnpu_model_load, vnpu-gguf --validate, vnpu-cli): malformed models, one per rule
 * of the model checks (hparams, tokenizer, tensors; src/model/llama.h and vocab.h), each with the
 * substring its rejection message must contain; and valid but unusual models that must load.
 *
 * Each case copies a base model (stories260K.gguf, or llama-2-tiny-random.gguf where the 32000-token
 * vocabulary matters; for the other architectures' rules the Q8_0 models of arch-models.h, "arch/qwen2-q8_0.gguf"
 * and the like) through the GGUF writer (src/base/gguf.h): every kv and tensor in file order but
 * the omitted ones (in reverse order if asked), then the case's one scalar kv is set, then its edit
 * replaces or adds kvs and reshapes, retypes or adds tensors; the written file may then get its header
 * version patched or its end cut. Adding a row adds a test to every loop over the table.
 */
#ifndef VNPU_TEST_MODEL_CASES_H
#define VNPU_TEST_MODEL_CASES_H

#include "gguf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MODEL_CASE_MAX_OMIT    4
#define MODEL_CASE_MAX_TENSORS 96 /* the base models have 48, 12 and 22..28; an edit adds up to 35 */
#define MODEL_CASE_MAX_OWNED   MODEL_CASE_MAX_TENSORS

/* A tensor as it will be written: data is the base file's (in its mapping) or the edit's. */
struct model_tensor {
    char name[GGUF_MAX_NAME];
    enum vnpu_type type;
    uint32_t n_dims;
    int64_t ne[GGUF_MAX_DIMS];
    const void *data;
};

/* What an edit works on: the base file, the writer already holding the kvs, the tensors still to add. */
struct model_edit {
    const struct gguf_file *base;
    struct gguf_writer *w;
    int n_tensors;
    struct model_tensor tensors[MODEL_CASE_MAX_TENSORS];
    int n_owned;
    void *owned[MODEL_CASE_MAX_OWNED]; /* data the edit allocated, freed after the write */
};

/* One scalar kv a case sets: replaces the base's value in its position, or is appended. */
struct model_kv {
    const char *key; /* NULL: none */
    enum gguf_type type;
    int64_t i;     /* integer and bool types */
    double f;      /* f32, f64 */
    const char *s; /* str */
};

struct model_case {
    const char *name;                      /* file stem: "model-block-count-0" */
    const char *what;                      /* the rule broken, or what is unusual */
    const char *base;                      /* model it starts from: relative to the shared models directory, or
                                            * "arch/<name>-<type>.gguf" (arch_model_path) */
    const char *omit[MODEL_CASE_MAX_OMIT]; /* kvs and tensors left out: a name, or a prefix ending in '.' */
    bool reverse;                          /* kvs and tensors in reverse order */
    struct model_kv set;                   /* set after the copy, before the edit */
    void (*edit)(struct model_edit *e);    /* changes after the copy; NULL: none */
    uint32_t version;                      /* patched into the written header; 0: as written (3) */
    size_t cut;                            /* bytes cut from the end of the written file */
    const char *message;                   /* malformed: a substring of the rejection message; valid: NULL */
    bool same_tokens;                      /* valid: the model is the base model's, so it generates the same tokens */
};

/* The malformed models (*n of them). */
const struct model_case *model_cases_malformed(size_t *n);

/* The valid but unusual models (*n of them). */
const struct model_case *model_cases_valid(size_t *n);

/* Tensor name of e, which must exist (VNPU_ASSERT). */
struct model_tensor *model_edit_tensor(struct model_edit *e, const char *name);

/* Give tensor name (added when absent) a type and shape, with fresh zeroed data of the right size, which
 * is returned for the edit to fill. */
void *model_edit_reshape(struct model_edit *e, const char *name, enum vnpu_type type, uint32_t n_dims,
                         const int64_t *ne);

/* Write case c to path, built from the base model at base_path. VNPU_STATUS_OK, or the status of the
 * failed step (logged). */
enum vnpu_status model_case_write(const struct model_case *c, const char *base_path, const char *path);

/* Write each malformed case to dir/<name>.gguf (dir must exist), finding base models with model_path
 * (a path relative to the models directory in, a path out, e.g. test_model_path), and return the table
 * (*n rows). Aborts when a file cannot be written. */
const struct model_case *model_cases_write_malformed(const char *dir, const char *(*model_path)(const char *rel),
                                                     size_t *n);

/* The same for the valid cases. */
const struct model_case *model_cases_write_valid(const char *dir, const char *(*model_path)(const char *rel),
                                                 size_t *n);

#endif /* VNPU_TEST_MODEL_CASES_H */
