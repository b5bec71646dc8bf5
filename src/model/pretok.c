/*
 * The BPE pre-tokenizer on PCRE2 (pretok.h: its rules).
 */
#define PCRE2_CODE_UNIT_WIDTH 32
#include "pretok.h"

#include "log.h"
#include "unicode.h"

#include <pcre2.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PRETOK_SPACE 0x0Bu /* rule 2: what non-ASCII whitespace becomes (a vertical tab, which \s matches) */

struct pretok_regex {
    pcre2_code *code;
    bool collapsed; /* rule 2: names a class, runs on the collapsed text */
};

struct pretok {
    size_t n;
    bool need_collapsed, need_plain;
    struct pretok_regex regex[];
};

/* ---- compiling ---- */

/* A growable pattern in PCRE2's code units. */
struct pattern_buf {
    PCRE2_UCHAR32 *data;
    size_t n, cap;
};

static bool pattern_put(struct pattern_buf *b, const char *s) {
    const size_t k = strlen(s);
    if (b->n + k > b->cap) {
        const size_t cap = 2 * (b->n + k);
        PCRE2_UCHAR32 *data = realloc(b->data, cap * sizeof(*data));
        if (!data) {
            return false;
        }
        b->data = data;
        b->cap = cap;
    }
    for (size_t i = 0; i < k; i++) {
        b->data[b->n++] = (unsigned char) s[i];
    }
    return true;
}

/* Rule 2: the members of class c in the collapsed text, for the inside of a [...] set: its marker, then its ASCII
 * members as ranges of \x{..}. */
static bool pattern_put_class(struct pattern_buf *b, enum unicode_class c) {
    char item[48];
    snprintf(item, sizeof(item), "\\x{%x}", PRETOK_MARK + (unsigned) c);
    bool ok = pattern_put(b, item);
    for (unsigned lo = 0; ok && lo < 128; lo++) {
        if (unicode_class(lo) != c) {
            continue;
        }
        unsigned hi = lo;
        while (hi + 1 < 128 && unicode_class(hi + 1) == c) {
            hi++;
        }
        snprintf(item, sizeof(item), lo == hi ? "\\x{%x}" : "\\x{%x}-\\x{%x}", lo, hi);
        ok = pattern_put(b, item);
        lo = hi;
    }
    return ok;
}

static enum unicode_class class_of_name(char name) {
    switch (name) {
        case 'L': return UNICODE_CLASS_LETTER;
        case 'N': return UNICODE_CLASS_NUMBER;
        case 'P': return UNICODE_CLASS_PUNCT;
        case 'M': return UNICODE_CLASS_MARK;
        case 'S': return UNICODE_CLASS_SYMBOL;
        default: VNPU_ASSERT(!"pretok: \\p{X} names L, N, P, M or S"); return UNICODE_CLASS_OTHER;
    }
}

/* Rule 2: regex with every \p{X} replaced by its collapsed set ([...] outside a set, its members inside one);
 * *collapsed says whether it named any. False when out of memory. */
static bool pattern_rewrite(const char *regex, struct pattern_buf *b, bool *collapsed) {
    bool in_set = false, ok = true;
    *collapsed = false;
    for (const char *c = regex; ok && *c; c++) {
        VNPU_ASSERT((unsigned char) *c < 0x80); /* non-ASCII codepoints are written \x{...} */
        if (c[0] == '\\' && c[1] == 'p') {
            VNPU_ASSERT(c[2] == '{' && c[3] && c[4] == '}');
            const enum unicode_class cls = class_of_name(c[3]);
            ok = (in_set || pattern_put(b, "[")) && pattern_put_class(b, cls) && (in_set || pattern_put(b, "]"));
            *collapsed = true;
            c += 4;
        } else if (c[0] == '\\') {
            const char escape[3] = {c[0], c[1], '\0'};
            VNPU_ASSERT(c[1] != '\0');
            ok = pattern_put(b, escape);
            c++;
        } else {
            const char one[2] = {c[0], '\0'};
            in_set = c[0] == '[' ? true : c[0] == ']' ? false : in_set;
            ok = pattern_put(b, one);
        }
    }
    return ok;
}

enum vnpu_status pretok_new(const char *const *regexes, size_t n, struct pretok **out) {
    *out = NULL;
    enum vnpu_status st = unicode_classes_init();
    if (st != VNPU_STATUS_OK) {
        return st;
    }
    struct pretok *p = calloc(1, sizeof(*p) + n * sizeof(p->regex[0]));
    if (!p) {
        vnpu_log_error("pretok: cannot allocate %zu regexes", n);
        return VNPU_STATUS_NO_MEMORY;
    }
    p->n = n;
    struct pattern_buf b = {0};
    for (size_t i = 0; st == VNPU_STATUS_OK && i < n; i++) {
        struct pretok_regex *r = &p->regex[i];
        b.n = 0;
        if (!pattern_rewrite(regexes[i], &b, &r->collapsed)) {
            vnpu_log_error("pretok: cannot allocate regex %zu", i);
            st = VNPU_STATUS_NO_MEMORY;
            break;
        }
        int err;
        PCRE2_SIZE err_off;
        /* rules 1 and 2: ECMAScript's $, ASCII \s */
        r->code =
            pcre2_compile(b.data, b.n, PCRE2_DOLLAR_ENDONLY | PCRE2_NEVER_UTF | PCRE2_NEVER_UCP, &err, &err_off, NULL);
        if (!r->code && err == PCRE2_ERROR_HEAP_FAILED) {
            vnpu_log_error("pretok: cannot allocate regex %zu", i);
            st = VNPU_STATUS_NO_MEMORY;
            break;
        }
        VNPU_ASSERT(r->code != NULL); /* vnpu's own regexes compile */
        uint32_t min_len;
        pcre2_pattern_info(r->code, PCRE2_INFO_MINLENGTH, &min_len);
        VNPU_ASSERT(min_len > 0);                       /* rule 4 */
        pcre2_jit_compile(r->code, PCRE2_JIT_COMPLETE); /* faster when PCRE2 has a JIT; the interpreter otherwise */
        p->need_collapsed |= r->collapsed;
        p->need_plain |= !r->collapsed;
    }
    free(b.data);
    if (st != VNPU_STATUS_OK) {
        pretok_free(p);
        return st;
    }
    *out = p;
    return VNPU_STATUS_OK;
}

void pretok_free(struct pretok *p) {
    if (!p) {
        return;
    }
    for (size_t i = 0; i < p->n; i++) {
        pcre2_code_free(p->regex[i].code);
    }
    free(p);
}

/* ---- splitting ---- */

void pretok_scratch_free(struct pretok_scratch *s) {
    free(s->collapsed);
    free(s->plain);
    free(s->pieces[0]);
    free(s->pieces[1]);
    pcre2_match_data_free(s->match_data);
    *s = (struct pretok_scratch){0};
}

/* Room for n codepoints in both texts and n pieces in both lists (a cut never makes more pieces than codepoints). */
static enum vnpu_status scratch_reserve(struct pretok_scratch *s, size_t n) {
    if (!s->match_data) {
        s->match_data = pcre2_match_data_create(1, NULL);
    }
    if (n > s->text_cap) {
        free(s->collapsed);
        free(s->plain);
        s->collapsed = malloc(n * sizeof(*s->collapsed));
        s->plain = malloc(n * sizeof(*s->plain));
        s->text_cap = s->collapsed && s->plain ? n : 0;
    }
    for (int k = 0; k < 2 && s->text_cap >= n; k++) {
        if (n > s->pieces_cap[k]) {
            free(s->pieces[k]);
            s->pieces[k] = malloc(n * sizeof(*s->pieces[k]));
            s->pieces_cap[k] = s->pieces[k] ? n : 0;
        }
    }
    if (!s->match_data || s->text_cap < n || s->pieces_cap[0] < n || s->pieces_cap[1] < n) {
        vnpu_log_error("tokenize: cannot allocate the pre-tokenizer's scratch for %zu codepoints", n);
        return VNPU_STATUS_NO_MEMORY;
    }
    return VNPU_STATUS_OK;
}

/* Rule 2's texts. */
static void texts_fill(const struct pretok *p, const uint32_t *cpts, size_t n, struct pretok_scratch *s) {
    for (size_t i = 0; i < n; i++) {
        const uint32_t c = cpts[i];
        const enum unicode_class cls = c < 0x80 ? UNICODE_CLASS_OTHER : unicode_class(c);
        if (p->need_plain) {
            s->plain[i] = cls == UNICODE_CLASS_SPACE ? PRETOK_SPACE : c;
        }
        if (p->need_collapsed) {
            s->collapsed[i] = c < 0x80 ? c : cls == UNICODE_CLASS_SPACE ? PRETOK_SPACE : PRETOK_MARK + (uint32_t) cls;
        }
    }
}

/* PCRE2's text for error rc, in ASCII. */
static void pcre2_message(int rc, char *buf, size_t size) {
    PCRE2_UCHAR32 msg[128];
    const int n = pcre2_get_error_message(rc, msg, 128);
    size_t i = 0;
    for (; n > 0 && i < (size_t) n && i + 1 < size; i++) {
        buf[i] = (char) (msg[i] < 0x80 ? msg[i] : '?');
    }
    buf[i] = '\0';
}

/* Rule 1: cut each of the n_in pieces of text by r into out; returns the new count, or -1 (logged) on a match
 * error. */
static int64_t regex_cut(const struct pretok_regex *r, size_t index, const uint32_t *text, const size_t *in,
                         size_t n_in, size_t *out, pcre2_match_data *md) {
    size_t n_out = 0, pos = 0;
    for (size_t k = 0; k < n_in; k++) {
        const size_t len = in[k];
        size_t gap = 0; /* start of the text not matched yet, in the piece */
        while (gap < len) {
            const int rc = pcre2_match(r->code, text + pos, len, gap, 0, md, NULL);
            if (rc == PCRE2_ERROR_NOMATCH) {
                break;
            }
            if (rc < 0) {
                char msg[128];
                pcre2_message(rc, msg, sizeof(msg));
                vnpu_log_error("tokenize: pre-tokenizer regex %zu on a piece of %zu codepoints: PCRE2 error %d (%s)",
                               index, len, rc, msg);
                return -1;
            }
            const PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
            if (ov[0] > gap) {
                out[n_out++] = ov[0] - gap;
            }
            out[n_out++] = ov[1] - ov[0]; /* rule 4: never empty */
            gap = ov[1];
        }
        if (gap < len) {
            out[n_out++] = len - gap;
        }
        pos += len;
    }
    return (int64_t) n_out;
}

enum vnpu_status pretok_split(const struct pretok *p, const uint32_t *cpts, size_t n, struct pretok_scratch *s,
                              const size_t **pieces, size_t *n_pieces) {
    *pieces = NULL;
    *n_pieces = 0;
    if (n == 0) {
        return VNPU_STATUS_OK;
    }
    const enum vnpu_status st = scratch_reserve(s, n);
    if (st != VNPU_STATUS_OK) {
        return st;
    }
    texts_fill(p, cpts, n, s);
    int cur = 0;
    size_t n_cur = 1;
    s->pieces[0][0] = n;
    for (size_t i = 0; i < p->n; i++) {
        const struct pretok_regex *r = &p->regex[i];
        const int64_t n_next = regex_cut(r, i, r->collapsed ? s->collapsed : s->plain, s->pieces[cur], n_cur,
                                         s->pieces[1 - cur], s->match_data);
        if (n_next < 0) {
            return VNPU_STATUS_BAD_ARG;
        }
        cur = 1 - cur;
        n_cur = (size_t) n_next;
    }
    *pieces = s->pieces[cur];
    *n_pieces = n_cur;
    return VNPU_STATUS_OK;
}
