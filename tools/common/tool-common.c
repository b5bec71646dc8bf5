#include "tool-common.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void bad_value(const char *tool, const char *option, const char *value, const char *why) {
    fprintf(stderr, "%s: %s '%s': %s\n", tool, option, value, why);
    exit(2);
}

int64_t tool_parse_int(const char *tool, const char *option, const char *value, int64_t min, int64_t max) {
    char *end;
    errno = 0;
    const long long v = strtoll(value, &end, 10);
    if (errno != 0 || end == value || *end != '\0') {
        bad_value(tool, option, value, "not an integer");
    }
    if (v < min || v > max) {
        char why[96];
        snprintf(why, sizeof(why), "out of range [%lld, %lld]", (long long) min, (long long) max);
        bad_value(tool, option, value, why);
    }
    return v;
}

double tool_parse_float(const char *tool, const char *option, const char *value, double min, double max) {
    char *end;
    errno = 0;
    const double v = strtod(value, &end);
    if (errno != 0 || end == value || *end != '\0' || !isfinite(v)) {
        bad_value(tool, option, value, "not a number");
    }
    if (v < min || v > max) {
        char why[96];
        snprintf(why, sizeof(why), "out of range [%g, %g]", min, max);
        bad_value(tool, option, value, why);
    }
    return v;
}

const char *tool_option_value(const char *tool, int argc, char **argv, int *i) {
    if (*i + 1 >= argc) {
        fprintf(stderr, "%s: option %s needs a value\n", tool, argv[*i]);
        exit(2);
    }
    return argv[++*i];
}

bool tool_progress(float progress, void *label) {
    static int last = -1;
    if (!isatty(STDERR_FILENO)) {
        return true;
    }
    const int width = 40;
    const int percent = (int) (progress * 100.0f + 0.5f);
    if (percent == last) {
        return true;
    }
    last = percent >= 100 ? -1 : percent;
    const int filled = (int) (progress * (float) width);
    fprintf(stderr, "\r%s [", (const char *) label);
    for (int i = 0; i < width; i++) {
        fputc(i < filled ? '=' : i == filled ? '>' : ' ', stderr);
    }
    fprintf(stderr, "] %3d%%%s", percent, percent >= 100 ? "\n" : "");
    fflush(stderr);
    return true;
}

double tool_now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + (double) ts.tv_nsec * 1e-9;
}

bool tool_same_file(const char *a, const char *b) {
    struct stat sa, sb;
    if (stat(a, &sa) == 0 && stat(b, &sb) == 0) {
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    }
    return strcmp(a, b) == 0;
}

char *tool_read_stream(const char *tool, FILE *f, const char *name, size_t *len) {
    size_t cap = 4096, n = 0, got;
    char *text = malloc(cap);
    while (text && (got = fread(text + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (cap - n < 2) {
            char *bigger = realloc(text, cap *= 2);
            if (!bigger) {
                free(text);
            }
            text = bigger;
        }
    }
    if (!text || ferror(f)) {
        fprintf(stderr, "%s: cannot read %s: %s\n", tool, name, text ? strerror(errno) : "too large");
        free(text);
        return NULL;
    }
    text[n] = '\0';
    *len = n;
    return text;
}

char *tool_read_file(const char *tool, const char *what, const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "%s: cannot open %s %s: %s\n", tool, what, path, strerror(errno));
        return NULL;
    }
    char name[4200];
    snprintf(name, sizeof(name), "%s %s", what, path);
    char *text = tool_read_stream(tool, f, name, len);
    fclose(f);
    return text;
}

size_t tool_process_escapes(char *s, size_t len) {
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] != '\\' || i + 1 >= len) {
            s[o++] = s[i];
            continue;
        }
        const char c = s[++i];
        const char *plain = strchr("nrt'\"\\", c);
        if (c != '\0' && plain) {
            s[o++] = c == 'n' ? '\n' : c == 'r' ? '\r' : c == 't' ? '\t' : c;
            continue;
        }
        if (c == 'x' && i + 2 < len) {
            const char hex[3] = {s[i + 1], s[i + 2], '\0'};
            char *end;
            const long v = strtol(hex, &end, 16);
            if (end == hex + 2) {
                s[o++] = (char) v;
                i += 2;
                continue;
            }
        }
        s[o++] = '\\';
        s[o++] = c;
    }
    return o;
}
