/*
 * What the command-line tools share: strict number parsing for options, a progress bar, a check that an output is
 * not an input, reading a whole input, and the clock their timings read.
 */
#ifndef VNPU_TOOL_COMMON_H
#define VNPU_TOOL_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Parse an option value as an integer in [min, max] or a float in [min, max]; on failure print
 * "<tool>: <option> '<value>': <reason>" to stderr and exit(2). */
int64_t tool_parse_int(const char *tool, const char *option, const char *value, int64_t min, int64_t max);
double tool_parse_float(const char *tool, const char *option, const char *value, double min, double max);

/* The value of option argv[*i] (the next argument); exits with a message when it is missing. */
const char *tool_option_value(const char *tool, int argc, char **argv, int *i);

/* A progress bar on stderr, drawn only when stderr is a terminal: "label [=====>    ]  45%". done/total in
 * [0, 1]; finished at 1 (the line is ended). Matches vnpu_progress_fn (include/vnpu.h). */
bool tool_progress(float progress, void *label);

/* llama.cpp's string_process_escapes (common), in place on s[0..len): \n \r \t \' \" \\ and \xHH (two hex digits)
 * become their byte; any other backslash stays, with the byte after it. Returns the new length. The prompts of
 * vnpu-cli and vnpu-tokenize go through it unless --no-escape, as llama.cpp's programs' do. */
size_t tool_process_escapes(char *s, size_t len);

/* Whether paths a and b name the same file: the same device and inode when both exist, the same text otherwise (an
 * output about to be created over an input given by the same name). */
bool tool_same_file(const char *a, const char *b);

/* The whole of stream f (named name in messages), NUL-terminated, its length (without the NUL) in *len; NULL after
 * "<tool>: cannot read <name>: <reason>" on stderr. */
char *tool_read_stream(const char *tool, FILE *f, const char *name, size_t *len);
/* tool_read_stream of the file at path (what it is: "prompt file"); NULL after "<tool>: cannot open <what> <path>:
 * <reason>" when it cannot open it. */
char *tool_read_file(const char *tool, const char *what, const char *path, size_t *len);

/* Seconds on the host's monotonic clock (CLOCK_MONOTONIC), from an arbitrary origin: differences time runs. */
double tool_now_s(void);

#endif /* VNPU_TOOL_COMMON_H */
