/* Integer settings from the environment: see env.h. */
#include "env.h"

#include <stdio.h>
#include <stdlib.h>

/* The value of digit c in base 10 or 16, or -1. */
static int digit_value(char c, unsigned base) {
    const int v = c >= '0' && c <= '9'   ? c - '0'
                  : c >= 'a' && c <= 'f' ? c - 'a' + 10
                  : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                         : -1;
    return v >= 0 && (unsigned) v < base ? v : -1;
}

bool vnpu_env_uint(const char *name, uint32_t lo, uint32_t hi, uint32_t def, uint32_t *out, char *why,
                   size_t why_size) {
    const char *s = getenv(name);
    *out = def;
    if (!s || !*s) {
        return true;
    }
    const bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    const unsigned base = hex ? 16 : 10;
    const char *p = hex ? s + 2 : s;
    uint64_t v = 0;
    bool ok = *p != '\0';
    for (; ok && *p; p++) {
        const int d = digit_value(*p, base);
        ok = d >= 0 && (v = v * base + (unsigned) d) <= hi;
    }
    if (!ok || v < lo) {
        if (why) {
            snprintf(why, why_size, "%s='%s': expected an integer in %u..%u", name, s, lo, hi);
        }
        return false;
    }
    *out = (uint32_t) v;
    return true;
}
