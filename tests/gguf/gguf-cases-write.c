/*
 * gguf-cases-write DIR: write every hand-built GGUF case of gguf-cases.c into DIR (created if missing)
 * as <name>.gguf, malformed ones and valid ones ("ok-*"). Used to make the fuzz seed corpus and to try
 * a GGUF consumer from the shell.
 */
#include "gguf-cases.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: gguf-cases-write DIR\n");
        return 2;
    }
    if (mkdir(argv[1], 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "gguf-cases-write: cannot create %s: %s\n", argv[1], strerror(errno));
        return 1;
    }
    size_t n_bad, n_ok;
    gguf_cases_write_malformed(argv[1], &n_bad);
    gguf_cases_write_valid(argv[1], &n_ok);
    printf("%s: %zu malformed and %zu valid GGUF files\n", argv[1], n_bad, n_ok);
    return 0;
}
