/*
 * The BPE pre-tokenizer's parts on their own: UTF-8 decoded as llama.cpp decodes it (invalid bytes, overlong forms,
 * surrogates, sequences past U+10FFFF), the Unicode classes PCRE2 gives, and pretok.h's rules on cases worked out by
 * hand (Llama 3's regex, non-ASCII whitespace, $ at the end only, classes on the collapsed text, ASCII \s).
 */
#include "test-common.h"

#include "pretok.h"
#include "unicode.h"

#include <stdio.h>
#include <string.h>

static void test_decode(void **state) {
    (void) state;
    static const struct {
        const char *text;
        size_t len;
        size_t n;
        uint32_t cpts[8];
    } cases[] = {
        {"a\xc3\xa9", 3, 2, {'a', 0xE9}},
        {"\xe4\xb8\xad\xf0\x9f\xa6\x99", 7, 2, {0x4E2D, 0x1F999}},
        {"\xc0\x80", 2, 1, {0x0}},                                /* overlong: not checked */
        {"\xed\xa0\x80", 3, 1, {0xD800}},                         /* a surrogate: not checked */
        {"\xf4\x90\x80\x80", 4, 1, {0x110000}},                   /* past Unicode */
        {"\xf7\xbf\xbf\xbf", 4, 1, {0x1FFFFF}},                   /* the most 4 bytes hold */
        {"\xe2\x82", 2, 2, {UNICODE_REPLACED, UNICODE_REPLACED}}, /* cut at the end: byte by byte */
        {"\xe2\x82z", 3, 3, {UNICODE_REPLACED, UNICODE_REPLACED, 'z'}},
        {"\x80\xbf", 2, 2, {UNICODE_REPLACED, UNICODE_REPLACED}},
        {"\xf8\x88\x80\x80\x80",
         5,
         5,
         {UNICODE_REPLACED, UNICODE_REPLACED, UNICODE_REPLACED, UNICODE_REPLACED, UNICODE_REPLACED}},
        {"\x00x", 2, 2, {0, 'x'}},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        uint32_t cpts[8];
        const size_t n = unicode_decode(cases[i].text, cases[i].len, cpts);
        assert_int_equal(n, cases[i].n);
        for (size_t k = 0; k < n; k++) {
            if (cpts[k] != cases[i].cpts[k]) {
                fail_msg("case %zu: codepoint %zu is U+%X, expected U+%X", i, k, cpts[k], cases[i].cpts[k]);
            }
        }
    }
    /* every codepoint encodes and decodes back */
    for (uint32_t c = 0; c <= UNICODE_MAX; c += c < 0x800 ? 1 : 97) {
        char utf8[4];
        uint32_t back;
        const size_t k = unicode_encode(c, utf8);
        assert_int_equal(unicode_decode(utf8, k, &back), 1);
        assert_int_equal(back, c);
    }
}

static void test_classes(void **state) {
    (void) state;
    assert_int_equal(unicode_classes_init(), VNPU_STATUS_OK);
    static const struct {
        uint32_t cpt;
        enum unicode_class cls;
    } cases[] = {
        {'A', UNICODE_CLASS_LETTER},     {'z', UNICODE_CLASS_LETTER},     {'5', UNICODE_CLASS_NUMBER},
        {'!', UNICODE_CLASS_PUNCT},      {'_', UNICODE_CLASS_PUNCT},      {'+', UNICODE_CLASS_SYMBOL},
        {'$', UNICODE_CLASS_SYMBOL},     {' ', UNICODE_CLASS_SPACE},      {'\t', UNICODE_CLASS_SPACE},
        {0x0B, UNICODE_CLASS_SPACE},     {0x1C, UNICODE_CLASS_OTHER},     {0x7F, UNICODE_CLASS_OTHER},
        {0x85, UNICODE_CLASS_SPACE},     {0xA0, UNICODE_CLASS_SPACE},     {0xB2, UNICODE_CLASS_NUMBER},
        {0xB5, UNICODE_CLASS_LETTER},    {0xD7, UNICODE_CLASS_SYMBOL},    {0x301, UNICODE_CLASS_MARK},
        {0x661, UNICODE_CLASS_NUMBER},   {0x93E, UNICODE_CLASS_MARK},     {0x2028, UNICODE_CLASS_SPACE},
        {0x200B, UNICODE_CLASS_OTHER},   {0x3000, UNICODE_CLASS_SPACE},   {0x3001, UNICODE_CLASS_PUNCT},
        {0x4E2D, UNICODE_CLASS_LETTER},  {0xD800, UNICODE_CLASS_OTHER},   {0xE000, UNICODE_CLASS_OTHER},
        {0xFEFF, UNICODE_CLASS_OTHER},   {0x1F600, UNICODE_CLASS_SYMBOL}, {0x10FFFF, UNICODE_CLASS_OTHER},
        {0x110000, UNICODE_CLASS_OTHER},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        if (unicode_class(cases[i].cpt) != cases[i].cls) {
            fail_msg("U+%04X: class %d, expected %d", cases[i].cpt, unicode_class(cases[i].cpt), cases[i].cls);
        }
    }
    printf("Unicode %s (PCRE2)\n", unicode_version());
    assert_true(strlen(unicode_version()) >= 5);
}

/* Llama 3's regex, as vocab-bpe.c writes it. */
static const char llama3[] =
    "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,"
    "3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

static const struct split_case {
    const char *name;
    const char *regex[2];
    const char *text;
    size_t n;
    size_t pieces[16]; /* lengths in codepoints */
} split_cases[] = {
    /* Hello | world | 's | ' ' | ' ' (a space before a digit is a piece) | 123 | 456 | \n\n | ' ' | ' x' */
    {"llama3", {llama3}, "Hello world's  123456\n\n  x", 10, {5, 6, 2, 1, 1, 3, 3, 2, 1, 2}},
    /* U+3000 is whitespace (0x0B in the collapsed text): it leads the letter after it, as a space would */
    {"ideographic-space",
     {llama3},
     "a\xe3\x80\x80"
     "b",
     2,
     {1, 2}},
    {"no-break-space",
     {llama3},
     "a\xc2\xa0\xc2\xa0"
     "b",
     3,
     {1, 1, 2}},
    /* U+200B is not whitespace: with the letters after it as [^\r\n\p{L}\p{N}] */
    {"zero-width-space",
     {llama3},
     "a\xe2\x80\x8b"
     "b",
     2,
     {1, 2}},
    /* rule 1: $ is the piece's end only, never before a final newline */
    {"dollar", {"[a-z]$"}, "ab\n", 1, {3}},
    {"dollar-end", {"[a-z]$"}, "ab", 2, {1, 1}},
    /* rule 1: the second regex cuts each piece of the first alone */
    {"pieces", {"[a-z]+", "b$"}, "abc1ab", 4, {3, 1, 1, 1}},
    /* rule 2: \p{N} on the collapsed text matches Arabic-Indic digits; \s (plain text) matches U+3000, not U+200B */
    {"class",
     {"\\p{N}+"},
     "a\xd9\xa1\xd9\xa2"
     "b3",
     4,
     {1, 2, 1, 1}},
    {"plain-space",
     {"\\s+"},
     "a\xe3\x80\x80"
     "b\xe2\x80\x8b"
     "c",
     3,
     {1, 1, 3}},
    {"empty", {llama3}, "", 0, {0}},
};

static void test_split(void **state) {
    (void) state;
    struct pretok_scratch scratch = {0};
    for (size_t i = 0; i < sizeof(split_cases) / sizeof(split_cases[0]); i++) {
        const struct split_case *c = &split_cases[i];
        const size_t n_regex = c->regex[1] ? 2 : 1;
        struct pretok *p = NULL;
        assert_int_equal(pretok_new(c->regex, n_regex, &p), VNPU_STATUS_OK);
        uint32_t cpts[64];
        const size_t n = unicode_decode(c->text, strlen(c->text), cpts);
        const size_t *pieces;
        size_t n_pieces;
        assert_int_equal(pretok_split(p, cpts, n, &scratch, &pieces, &n_pieces), VNPU_STATUS_OK);
        bool same = n_pieces == c->n;
        for (size_t k = 0; same && k < n_pieces; k++) {
            same = pieces[k] == c->pieces[k];
        }
        if (!same) {
            char got[256] = "";
            for (size_t k = 0; k < n_pieces; k++) {
                snprintf(got + strlen(got), sizeof(got) - strlen(got), " %zu", pieces[k]);
            }
            fail_msg("case %s: pieces [%s ]", c->name, got);
        }
        pretok_free(p);
    }
    pretok_scratch_free(&scratch);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decode),
        cmocka_unit_test(test_classes),
        cmocka_unit_test(test_split),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
