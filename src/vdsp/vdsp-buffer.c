/*
 * Shared DDR buffers (rpcmem on a phone): a memfd sized to whole pages and mapped once into the host, so
 * the CPU reads and writes it in place and any session can map the same pages into its window.
 */
#include "log.h"
#include "vdsp.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

enum vnpu_status vdsp_buffer_alloc(size_t size, const char *name, struct vdsp_buffer **out) {
    *out = NULL;
    const size_t page = (size_t) sysconf(_SC_PAGESIZE);
    if (size == 0 || size > SIZE_MAX - page) {
        vnpu_log_error("vdsp_buffer_alloc: %zu bytes for '%s', expected 1..%zu", size, name ? name : "",
                       SIZE_MAX - page);
        return VNPU_STATUS_BAD_ARG;
    }
    const size_t mapped = (size + page - 1) & ~(page - 1);
    char fdname[64];
    snprintf(fdname, sizeof(fdname), "vnpu:%s", name ? name : "buffer");

    struct vdsp_buffer *buf = calloc(1, sizeof(*buf));
    if (!buf) {
        vnpu_log_error("vdsp_buffer_alloc: out of memory for the buffer record of '%s'", fdname);
        return VNPU_STATUS_NO_MEMORY;
    }
    buf->fd = memfd_create(fdname, MFD_CLOEXEC);
    if (buf->fd < 0) {
        vnpu_log_error("vdsp_buffer_alloc: memfd_create('%s'): %s", fdname, strerror(errno));
        free(buf);
        return VNPU_STATUS_NO_MEMORY;
    }
    if (ftruncate(buf->fd, (off_t) mapped) != 0) {
        vnpu_log_error("vdsp_buffer_alloc: '%s': sizing to %zu bytes: %s", fdname, mapped, strerror(errno));
        close(buf->fd);
        free(buf);
        return VNPU_STATUS_NO_MEMORY;
    }
    buf->host = mmap(NULL, mapped, PROT_READ | PROT_WRITE, MAP_SHARED, buf->fd, 0);
    if (buf->host == MAP_FAILED) {
        vnpu_log_error("vdsp_buffer_alloc: '%s': mapping %zu bytes: %s", fdname, mapped, strerror(errno));
        close(buf->fd);
        free(buf);
        return VNPU_STATUS_NO_MEMORY;
    }
    buf->size = size;
    *out = buf;
    return VNPU_STATUS_OK;
}

void vdsp_buffer_free(struct vdsp_buffer *buf) {
    if (!buf) {
        return;
    }
    const size_t page = (size_t) sysconf(_SC_PAGESIZE);
    munmap(buf->host, (buf->size + page - 1) & ~(page - 1));
    close(buf->fd);
    free(buf);
}
