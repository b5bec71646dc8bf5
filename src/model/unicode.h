/*
 * Unicode for the BPE pre-tokenizer: UTF-8 decoded as llama.cpp decodes it (src/unicode.cpp,
 * unicode_cpts_from_utf8) and each codepoint's class for the pre-tokenizer's regexes (letter, number, punctuation,
 * mark, symbol, whitespace, other).
 *
 * The classes come from PCRE2's own Unicode tables (the Unicode version pcre2_config reports: 14.0.0 for Debian 12's
 * PCRE2 10.42), read once per process by scanning every codepoint with \p{White_Space}, \p{L}, \p{N}, \p{P}, \p{M}
 * and \p{S}. llama.cpp generates its tables from the Unicode of its build (15.1 in the oracle's release): the
 * codepoints assigned between the two versions are "other" here and classed there (docs/TOKENIZER.md lists them).
 */
#ifndef VNPU_UNICODE_H
#define VNPU_UNICODE_H

#include "vnpu.h"

#include <stddef.h>
#include <stdint.h>

#define UNICODE_MAX      0x10FFFFu /* the last codepoint */
#define UNICODE_REPLACED 0xFFFDu   /* U+FFFD REPLACEMENT CHARACTER: what an invalid byte decodes to */

/* A codepoint's class as the pre-tokenizer's regexes see it: whitespace first (Unicode's White_Space property),
 * then the general category's major class; everything else (controls, separators that are not whitespace,
 * format, private use, surrogates, unassigned, past U+10FFFF) is OTHER. */
enum unicode_class {
    UNICODE_CLASS_OTHER,
    UNICODE_CLASS_SPACE,  /* \p{White_Space} */
    UNICODE_CLASS_LETTER, /* \p{L} */
    UNICODE_CLASS_NUMBER, /* \p{N} */
    UNICODE_CLASS_PUNCT,  /* \p{P} */
    UNICODE_CLASS_MARK,   /* \p{M} */
    UNICODE_CLASS_SYMBOL, /* \p{S} */
    UNICODE_CLASS_COUNT,
};

/* Decode len bytes of UTF-8 into cpts (room for len codepoints: never more are written); returns the count. As
 * llama.cpp's unicode_cpts_from_utf8: a sequence's length comes from its lead byte (0xxxxxxx 1, 110xxxxx 2, 1110xxxx
 * 3, 11110xxx 4), its continuation bytes must be 10xxxxxx and inside the text; a byte that starts no valid sequence
 * (a continuation byte, 0xF8..0xFF, a lead byte cut short) decodes to U+FFFD and decoding resumes at the next byte.
 * Overlong forms and surrogates are not checked, so 4-byte sequences reach 0x1FFFFF, past Unicode. */
size_t unicode_decode(const char *text, size_t len, uint32_t *cpts);

/* The UTF-8 bytes of cpt (<= UNICODE_MAX) into out; returns their count, 1..4. */
size_t unicode_encode(uint32_t cpt, char out[4]);

/* Read the class table from PCRE2 (once per process, thread-safe; about 40 ms); VNPU_STATUS_NO_MEMORY (logged) when
 * its scratch cannot be allocated, VNPU_STATUS_UNSUPPORTED (logged) when PCRE2 has no Unicode support. Call before
 * unicode_class. */
enum vnpu_status unicode_classes_init(void);

/* The class of cpt (any value: past UNICODE_MAX is OTHER), after unicode_classes_init. */
enum unicode_class unicode_class(uint32_t cpt);

/* The Unicode version of the classes ("14.0.0"), from pcre2_config. */
const char *unicode_version(void);

#endif /* VNPU_UNICODE_H */
