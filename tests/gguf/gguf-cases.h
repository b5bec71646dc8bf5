/*
 * Tables of hand-built GGUF files for tests of anything that reads GGUF (gguf_open, vnpu-gguf,
 * vnpu-cli): malformed files, one per rule of gguf_open plus a cut at every section boundary, each with
 * the substring its rejection message must contain; and valid but unusual files that must load.
 *
 * Each case starts from gb_default (gguf-builder.h), changes the description, serializes it, then may
 * patch or cut the bytes. Adding a row adds a test to every loop over the table.
 */
#ifndef VNPU_TEST_GGUF_CASES_H
#define VNPU_TEST_GGUF_CASES_H

#include "gguf-builder.h"

#include <stddef.h>

struct gguf_case {
    const char *name;                                              /* file stem: "bad-magic" */
    const char *what;                                              /* the rule broken, or what is unusual */
    void (*describe)(struct gb_file *f);                           /* changes to gb_default; NULL: none */
    void (*damage)(struct gb_bytes *b, const struct gb_layout *l); /* patch or cut; NULL: none */
    const char *message; /* malformed: a substring of the rejection message; valid: NULL */
};

/* The malformed files (*n of them). */
const struct gguf_case *gguf_cases_malformed(size_t *n);

/* The valid but unusual files (*n of them). */
const struct gguf_case *gguf_cases_valid(size_t *n);

/* Build case c: its description into *f (may be NULL) and its bytes into out (cleared first). */
void gguf_case_build(const struct gguf_case *c, struct gb_file *f, struct gb_bytes *out);

/* Write each malformed case to dir/<name>.gguf (dir must exist) and return the table (*n rows). */
const struct gguf_case *gguf_cases_write_malformed(const char *dir, size_t *n);

/* Write each valid case to dir/<name>.gguf (dir must exist) and return the table (*n rows). */
const struct gguf_case *gguf_cases_write_valid(const char *dir, size_t *n);

#endif /* VNPU_TEST_GGUF_CASES_H */
