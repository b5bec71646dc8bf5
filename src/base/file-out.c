#include "file-out.h"

#include "log.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The permissions a new file gets from open(2) with 0666: what the umask leaves. */
static mode_t new_file_mode(void) {
    const mode_t mask = umask(0);
    umask(mask);
    return 0666 & ~mask;
}

enum vnpu_status vnpu_file_out_open(const char *path, struct vnpu_file_out *out) {
    memset(out, 0, sizeof(*out));
    struct stat st;
    mode_t mode;
    if (stat(path, &st) == 0) {
        if (!S_ISREG(st.st_mode)) {
            vnpu_log_error("%s: exists and is not a regular file; choose another output path", path);
            return VNPU_STATUS_BAD_ARG;
        }
        out->path = realpath(path, NULL); /* a link: replace the file it points to, keep the link */
        mode = st.st_mode & 07777;        /* and the file keeps its permissions */
    } else {
        out->path = strdup(path);
        mode = new_file_mode();
    }
    const size_t len = out->path ? strlen(out->path) : 0;
    out->tmp = out->path ? malloc(len + sizeof(".XXXXXX")) : NULL;
    if (!out->tmp) {
        vnpu_log_error("%s: no memory to write it", path);
        vnpu_file_out_abort(out);
        return VNPU_STATUS_NO_MEMORY;
    }
    memcpy(out->tmp, out->path, len);
    memcpy(out->tmp + len, ".XXXXXX", sizeof(".XXXXXX"));
    const int fd = mkstemp(out->tmp); /* mode 0600 until fchmod below */
    if (fd < 0 || fchmod(fd, mode) != 0 || !(out->fp = fdopen(fd, "wb"))) {
        vnpu_log_error("%s: cannot create a file beside it: %s", path, strerror(errno));
        if (fd >= 0) {
            close(fd);
            unlink(out->tmp);
        }
        free(out->tmp);
        out->tmp = NULL;
        vnpu_file_out_abort(out);
        return VNPU_STATUS_IO;
    }
    return VNPU_STATUS_OK;
}

enum vnpu_status vnpu_file_out_commit(struct vnpu_file_out *out, int err) {
    if (err == 0 && (fflush(out->fp) != 0 || fsync(fileno(out->fp)) != 0)) {
        err = errno;
    }
    if (fclose(out->fp) != 0 && err == 0) {
        err = errno;
    }
    out->fp = NULL;
    if (err == 0 && rename(out->tmp, out->path) != 0) {
        err = errno;
    }
    if (err != 0) {
        vnpu_log_error("%s: write failed: %s", out->path, strerror(err));
    }
    vnpu_file_out_abort(out);
    return err == 0 ? VNPU_STATUS_OK : VNPU_STATUS_IO;
}

void vnpu_file_out_abort(struct vnpu_file_out *out) {
    if (out->fp) {
        fclose(out->fp);
        out->fp = NULL;
    }
    if (out->tmp && access(out->tmp, F_OK) == 0) {
        unlink(out->tmp);
    }
    free(out->tmp);
    free(out->path);
    memset(out, 0, sizeof(*out));
}
