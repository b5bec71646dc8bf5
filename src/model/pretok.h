/*
 * The BPE pre-tokenizer: a list of regexes that cut a text into the pieces BPE then merges inside, with llama.cpp's
 * semantics (src/unicode.cpp, unicode_regex_split; its regexes run under std::regex, ECMAScript). Here they run under
 * PCRE2's 32-bit library on codepoints.
 *
 * Rules, each named where pretok.c enforces it:
 *  1. The regexes apply one after the other; each cuts every current piece into its matches and the gaps between
 *     them (a gap is a piece too), searching the piece alone: a match never crosses a piece's edges and $ is the
 *     piece's end (PCRE2_DOLLAR_ENDONLY: $ is ECMAScript's, never before a final newline).
 *  2. A regex naming a class (\p{L}, \p{N}, \p{P}, \p{M}, \p{S}) runs on the "collapsed" text: a codepoint below 128
 *     stays itself, one above becomes 0x0B when it is whitespace (unicode.h), else a marker of its class
 *     (PRETOK_MARK + class) outside Unicode; each \p{X} becomes the set of its marker and its ASCII members. A regex
 *     naming none runs on the codepoints with non-ASCII whitespace made 0x0B. So \s, \S and the ranges are ASCII
 *     (PCRE2_NEVER_UTF, PCRE2_NEVER_UCP), as under std::regex's C locale.
 *  3. Alternation is leftmost-first and quantifiers backtrack as in ECMAScript (both are Perl's).
 *  4. No regex matches the empty string (checked when compiled): every match is a piece.
 */
#ifndef VNPU_PRETOK_H
#define VNPU_PRETOK_H

#include "vnpu.h"

#include <stddef.h>
#include <stdint.h>

#define PRETOK_MARK 0x110000u /* rule 2: the marker of class c is PRETOK_MARK + c, past U+10FFFF */

/* A compiled list of regexes; read-only once built, so threads may share it. */
struct pretok;

/* Compile n regexes (PCRE2 syntax, ASCII, with \p{L} \p{N} \p{P} \p{M} \p{S} for unicode.h's classes; written by
 * vnpu, so a regex PCRE2 refuses is an assertion). VNPU_STATUS_NO_MEMORY (logged) when memory runs out; *out NULL
 * then. */
enum vnpu_status pretok_new(const char *const *regexes, size_t n, struct pretok **out);
void pretok_free(struct pretok *p); /* NULL is a no-op */

/* Buffers pretok_split reuses between calls: one per thread, zero-initialized, freed with pretok_scratch_free. */
struct pretok_scratch {
    uint32_t *collapsed, *plain; /* rule 2's two texts */
    size_t text_cap;
    size_t *pieces[2]; /* piece lengths, in codepoints: the current cut and the next */
    size_t pieces_cap[2];
    void *match_data; /* pcre2_match_data */
};
void pretok_scratch_free(struct pretok_scratch *s);

/* Cut the n codepoints at cpts (each <= U+10FFFF) into pieces: *pieces (inside s, valid until its next use) gets
 * their lengths in codepoints, in order, summing to n; *n_pieces their count (0 for n = 0). VNPU_STATUS_NO_MEMORY
 * (logged) when the scratch cannot grow, VNPU_STATUS_BAD_ARG (logged, PCRE2's message) when a match fails otherwise
 * (its match limit). */
enum vnpu_status pretok_split(const struct pretok *p, const uint32_t *cpts, size_t n, struct pretok_scratch *s,
                              const size_t **pieces, size_t *n_pieces);

#endif /* VNPU_PRETOK_H */
