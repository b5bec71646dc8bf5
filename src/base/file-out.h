/*
 * Output files written whole or not at all: the bytes go to a temporary file created next to the target
 * (a unique name from mkstemp, so it can never be the input or another writer's file), which replaces
 * the target only once everything was written and synced. A failure removes the temporary; the target,
 * if it existed, is untouched. A target that exists must be a regular file (or a link to one, which is
 * followed: the link stays, its file is replaced); a directory, device or FIFO is refused.
 */
#ifndef VNPU_FILE_OUT_H
#define VNPU_FILE_OUT_H

#include "vnpu.h"

#include <stdio.h>

struct vnpu_file_out {
    FILE *fp;   /* write here */
    char *path; /* the target (a link resolved) */
    char *tmp;  /* the temporary beside it */
};

/* Create the temporary for path. Errors (logged, naming the path): VNPU_STATUS_BAD_ARG when path exists
 * and is not a regular file, VNPU_STATUS_IO when the temporary cannot be created, VNPU_STATUS_NO_MEMORY. */
enum vnpu_status vnpu_file_out_open(const char *path, struct vnpu_file_out *out);

/* Flush, sync and close the temporary, then rename it over the target. On error (logged) the temporary is
 * removed and VNPU_STATUS_IO returned. err is an errno the caller already met while writing (0 if none):
 * when set, the file is abandoned with that error. Frees out's memory either way. */
enum vnpu_status vnpu_file_out_commit(struct vnpu_file_out *out, int err);

/* Abandon the temporary (closed and removed) and free out's memory; safe on a zeroed struct. */
void vnpu_file_out_abort(struct vnpu_file_out *out);

#endif /* VNPU_FILE_OUT_H */
