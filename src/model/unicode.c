/*
 * UTF-8 as llama.cpp reads it, and the class of every codepoint from PCRE2's Unicode tables (unicode.h).
 */
#define PCRE2_CODE_UNIT_WIDTH 32
#include "unicode.h"

#include "log.h"

#include <assert.h>
#include <pcre2.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

size_t unicode_decode(const char *text, size_t len, uint32_t *cpts) {
    const uint8_t *s = (const uint8_t *) text;
    size_t n = 0;
    for (size_t i = 0; i < len;) {
        const uint8_t b = s[i];
        /* the sequence length and the lead byte's payload bits, from its high bits */
        const size_t k = b < 0x80 ? 1 : b < 0xC0 ? 0 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : b < 0xF8 ? 4 : 0;
        uint32_t cpt = k == 1 ? b : k == 2 ? b & 0x1Fu : k == 3 ? b & 0x0Fu : b & 0x07u;
        bool valid = k > 0 && k <= len - i;
        for (size_t j = 1; valid && j < k; j++) {
            valid = (s[i + j] & 0xC0) == 0x80;
            cpt = cpt << 6 | (s[i + j] & 0x3Fu);
        }
        cpts[n++] = valid ? cpt : UNICODE_REPLACED;
        i += valid ? k : 1;
    }
    return n;
}

size_t unicode_encode(uint32_t cpt, char out[4]) {
    VNPU_ASSERT(cpt <= UNICODE_MAX);
    if (cpt < 0x80) {
        out[0] = (char) cpt;
        return 1;
    }
    if (cpt < 0x800) {
        out[0] = (char) (0xC0 | cpt >> 6);
        out[1] = (char) (0x80 | (cpt & 0x3F));
        return 2;
    }
    if (cpt < 0x10000) {
        out[0] = (char) (0xE0 | cpt >> 12);
        out[1] = (char) (0x80 | (cpt >> 6 & 0x3F));
        out[2] = (char) (0x80 | (cpt & 0x3F));
        return 3;
    }
    out[0] = (char) (0xF0 | cpt >> 18);
    out[1] = (char) (0x80 | (cpt >> 12 & 0x3F));
    out[2] = (char) (0x80 | (cpt >> 6 & 0x3F));
    out[3] = (char) (0x80 | (cpt & 0x3F));
    return 4;
}

/* ---- the class table ---- */

/* One anchored match per run of codepoints of one class: group k (1..6) is class k, no group is OTHER. Possessive
 * runs, so the interpreter scans each run in one call (no JIT needed). */
static const char class_pattern[] = "(?:(\\p{White_Space}++)|(\\p{L}++)|(\\p{N}++)|(\\p{P}++)|(\\p{M}++)|(\\p{S}++)|"
                                    "[^\\p{White_Space}\\p{L}\\p{N}\\p{P}\\p{M}\\p{S}]++)";

static_assert(UNICODE_CLASS_SPACE == 1 && UNICODE_CLASS_SYMBOL == 6, "class_pattern's groups are the class values");

#define CLASS_CHUNK 65536 /* codepoints scanned per subject */

static uint8_t class_table[UNICODE_MAX + 1]; /* enum unicode_class of every codepoint */
static char version[32];
static enum vnpu_status classes_status;
static pthread_once_t classes_once = PTHREAD_ONCE_INIT;

static void classes_read(void) {
    int err;
    PCRE2_SIZE err_off;
    PCRE2_UCHAR32 pattern[sizeof(class_pattern)];
    for (size_t i = 0; i < sizeof(class_pattern); i++) {
        pattern[i] = (unsigned char) class_pattern[i];
    }
    pcre2_code *re = pcre2_compile(pattern, sizeof(class_pattern) - 1, 0, &err, &err_off, NULL);
    if (!re) { /* a fixed pattern: only a PCRE2 built without Unicode support refuses it */
        vnpu_log_error("unicode: PCRE2 refuses \\p{...} (error %d): it was built without Unicode support, which the "
                       "BPE tokenizer needs",
                       err);
        classes_status = VNPU_STATUS_UNSUPPORTED;
        return;
    }
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
    uint32_t *subject = malloc(CLASS_CHUNK * sizeof(*subject));
    if (!md || !subject) {
        vnpu_log_error("unicode: cannot allocate %zu bytes to read PCRE2's Unicode classes",
                       CLASS_CHUNK * sizeof(*subject));
        classes_status = VNPU_STATUS_NO_MEMORY;
    }
    for (uint32_t base = 0; classes_status == VNPU_STATUS_OK && base <= UNICODE_MAX; base += CLASS_CHUNK) {
        const uint32_t n = UNICODE_MAX + 1 - base < CLASS_CHUNK ? UNICODE_MAX + 1 - base : CLASS_CHUNK;
        for (uint32_t i = 0; i < n; i++) {
            subject[i] = base + i;
        }
        for (PCRE2_SIZE off = 0; off < n;) {
            const int rc = pcre2_match(re, subject, n, off, PCRE2_ANCHORED, md, NULL);
            VNPU_ASSERT(rc >= 1); /* the alternatives cover every code unit */
            const PCRE2_SIZE end = pcre2_get_ovector_pointer(md)[1];
            for (PCRE2_SIZE i = off; i < end; i++) {
                class_table[base + i] = (uint8_t) (rc - 1);
            }
            off = end;
        }
    }
    PCRE2_UCHAR32 v[sizeof(version)];
    const int n = pcre2_config(PCRE2_CONFIG_UNICODE_VERSION, v);
    for (int i = 0; i + 1 < n && i + 1 < (int) sizeof(version); i++) {
        version[i] = (char) v[i];
    }
    free(subject);
    pcre2_match_data_free(md);
    pcre2_code_free(re);
}

enum vnpu_status unicode_classes_init(void) {
    pthread_once(&classes_once, classes_read);
    return classes_status;
}

enum unicode_class unicode_class(uint32_t cpt) {
    return cpt <= UNICODE_MAX ? (enum unicode_class) class_table[cpt] : UNICODE_CLASS_OTHER;
}

const char *unicode_version(void) {
    return version;
}
