/*
 * The session window: a PROT_NONE, MAP_NORESERVE reservation of window_size bytes whose offsets are the
 * 32-bit device addresses. vdsp_mmap maps a shared buffer's fd over a free run of pages (first fit, page 0
 * never used, one guard page left inaccessible after each mapping); vdsp_munmap puts the reservation back.
 * So a kernel reaches exactly the buffers mapped for it, and anything else faults (seed 000, Large model
 * handling; HTP.md, The platform).
 *
 * A bitmap of mapped pages answers the DMA engine's bounds check without a lock: writers (mmap, munmap)
 * update it with atomic word operations under window_lock, readers load words.
 */
#include "log.h"
#include "vdsp-impl.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#define WINDOW_MIN ((size_t) 1 << 20)
#define WINDOW_MAX ((size_t) 1 << 32)

enum vnpu_status vdsp_window_init(struct vdsp_device *dev, size_t size) {
    const size_t page = (size_t) 1 << dev->page_shift;
    if (size < WINDOW_MIN || size > WINDOW_MAX || (size & (page - 1)) != 0) {
        vnpu_log_error("%s: window of %zu bytes, expected a multiple of %zu in %zu..%zu (32-bit device addresses)",
                       dev->name, size, page, WINDOW_MIN, WINDOW_MAX);
        return VNPU_STATUS_BAD_ARG;
    }
    const size_t npages = size >> dev->page_shift;
    dev->window_pages = calloc((npages + 63) / 64, sizeof(uint64_t));
    if (!dev->window_pages) {
        vnpu_log_error("%s: out of memory for the page map of a %zu-byte window", dev->name, size);
        return VNPU_STATUS_NO_MEMORY;
    }
    void *w = mmap(NULL, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (w == MAP_FAILED) {
        vnpu_log_error("%s: reserving a %zu MiB window: %s (VNPU_WINDOW_MB sets a smaller one)", dev->name, size >> 20,
                       strerror(errno));
        free(dev->window_pages);
        dev->window_pages = NULL;
        return VNPU_STATUS_NO_MEMORY;
    }
    pthread_mutex_init(&dev->window_lock, NULL);
    dev->window = w;
    dev->window_size = size;
    dev->n_maps = 0;
    return VNPU_STATUS_OK;
}

void vdsp_window_free(struct vdsp_device *dev) {
    if (dev->window) {
        munmap(dev->window, dev->window_size);
        pthread_mutex_destroy(&dev->window_lock);
        dev->window = NULL;
    }
    free(dev->window_pages);
    dev->window_pages = NULL;
}

uint8_t *vdsp_window_base(struct vdsp_device *dev) {
    return dev->window;
}

static void pages_mark(struct vdsp_device *dev, uint32_t first, uint32_t n, bool mapped) {
    for (size_t p = first, end = (size_t) first + n; p < end;) {
        const size_t w = p / 64;
        const size_t hi = end - w * 64 < 64 ? end - w * 64 : 64; /* bits [p % 64, hi) of word w */
        const uint64_t bits = (hi == 64 ? ~(uint64_t) 0 : ((uint64_t) 1 << hi) - 1) & (~(uint64_t) 0 << (p % 64));
        if (mapped) {
            atomic_fetch_or_explicit(&dev->window_pages[w], bits, memory_order_release);
        } else {
            atomic_fetch_and_explicit(&dev->window_pages[w], ~bits, memory_order_release);
        }
        p = w * 64 + hi;
    }
}

/* Put the reservation back over [first, first + n) pages. */
static void pages_reserve(struct vdsp_device *dev, uint32_t first, uint32_t n) {
    void *at = dev->window + ((size_t) first << dev->page_shift);
    void *r = mmap(at, (size_t) n << dev->page_shift, PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
    /* Replacing a mapping of our own reservation fails only when the kernel runs out of VMAs; then the old
     * pages would stay reachable and the window would lie, so stop here. */
    VNPU_ASSERT(r == at);
}

/* Pages a mapping of size bytes takes in the window: its own and the guard page after it. */
static uint64_t window_span(const struct vdsp_device *dev, uint64_t size) {
    const uint64_t page = (uint64_t) 1 << dev->page_shift;
    return ((size + page - 1) >> dev->page_shift) + 1;
}

bool vdsp_window_fits(const struct vdsp_device *dev, const uint64_t *sizes, uint32_t n) {
    uint64_t pages = 1; /* page 0 (device address 0) is never mapped */
    for (uint32_t i = 0; i < n; i++) {
        if (sizes[i] > dev->target.max_mapping || sizes[i] > dev->window_size) {
            return false;
        }
        pages += window_span(dev, sizes[i]);
    }
    return pages <= dev->window_size >> dev->page_shift;
}

size_t vdsp_window_size(struct vdsp_device *dev) {
    return dev->window_size;
}

size_t vdsp_mmap_max(struct vdsp_device *dev) {
    return dev->target.max_mapping;
}

int vdsp_mmap(struct vdsp_device *dev, int fd, size_t size, uint32_t *devaddr) {
    struct stat st;
    if (size == 0) {
        vnpu_log_error("%s: vdsp_mmap: fd %d with size 0", dev->name, fd);
        return -2;
    }
    if (size > dev->target.max_mapping) {
        vnpu_log_error("%s: vdsp_mmap: fd %d: %zu bytes, more than the %zu one mapping may take on v%u (HAP_mmap's "
                       "limit)",
                       dev->name, fd, size, dev->target.max_mapping, (unsigned) dev->target.arch);
        return -2;
    }
    if (fstat(fd, &st) != 0) {
        vnpu_log_error("%s: vdsp_mmap: fd %d: %s", dev->name, fd, strerror(errno));
        return -2;
    }
    if (st.st_size < 0 || (uint64_t) st.st_size < size) {
        vnpu_log_error("%s: vdsp_mmap: fd %d holds %lld bytes, %zu asked for", dev->name, fd, (long long) st.st_size,
                       size);
        return -2;
    }
    const size_t page = (size_t) 1 << dev->page_shift;
    const size_t total = dev->window_size >> dev->page_shift;
    if (size > dev->window_size - page) {
        return -1;
    }
    const size_t need = (size_t) window_span(dev, size); /* the mapping and its guard page */
    const uint32_t npages = (uint32_t) (need - 1);

    pthread_mutex_lock(&dev->window_lock);
    if (dev->n_maps == VDSP_MAX_MAPPINGS) {
        pthread_mutex_unlock(&dev->window_lock);
        vnpu_log_debug("%s: vdsp_mmap: %d mappings already, the most a window holds", dev->name, VDSP_MAX_MAPPINGS);
        return -1;
    }
    size_t at = 1; /* page 0 (device address 0) is never mapped */
    uint32_t slot = 0;
    for (; slot < dev->n_maps; slot++) {
        if (dev->maps[slot].first >= at + need) {
            break;
        }
        at = (size_t) dev->maps[slot].first + dev->maps[slot].npages + 1;
    }
    if (at + need > total) {
        pthread_mutex_unlock(&dev->window_lock);
        return -1;
    }
    uint8_t *host = dev->window + (at << dev->page_shift);
    void *m = mmap(host, (size_t) npages << dev->page_shift, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
    if (m != host) {
        const int err = errno;
        pages_reserve(dev, (uint32_t) at, npages); /* a failed MAP_FIXED may have dropped the reservation */
        pthread_mutex_unlock(&dev->window_lock);
        vnpu_log_error("%s: vdsp_mmap: fd %d (%zu bytes) at device address 0x%08zx: %s", dev->name, fd, size,
                       at << dev->page_shift, strerror(err));
        return -2;
    }
    memmove(&dev->maps[slot + 1], &dev->maps[slot], (dev->n_maps - slot) * sizeof(dev->maps[0]));
    dev->maps[slot] = (struct vdsp_mapping){.first = (uint32_t) at, .npages = npages, .size = size, .fd = fd};
    dev->n_maps++;
    pages_mark(dev, (uint32_t) at, npages, true);
    pthread_mutex_unlock(&dev->window_lock);
    *devaddr = (uint32_t) (at << dev->page_shift);
    return 0;
}

void vdsp_munmap(struct vdsp_device *dev, uint32_t devaddr) {
    pthread_mutex_lock(&dev->window_lock);
    uint32_t slot = 0;
    while (slot < dev->n_maps && ((size_t) dev->maps[slot].first << dev->page_shift) != devaddr) {
        slot++;
    }
    if (slot == dev->n_maps) {
        pthread_mutex_unlock(&dev->window_lock);
        vnpu_log_error("%s: vdsp_munmap: nothing is mapped at device address 0x%08x", dev->name, devaddr);
        return;
    }
    const struct vdsp_mapping m = dev->maps[slot];
    pages_mark(dev, m.first, m.npages, false);
    pages_reserve(dev, m.first, m.npages);
    memmove(&dev->maps[slot], &dev->maps[slot + 1], (dev->n_maps - slot - 1) * sizeof(dev->maps[0]));
    dev->n_maps--;
    pthread_mutex_unlock(&dev->window_lock);
}

bool vdsp_window_range_mapped(const struct vdsp_device *dev, size_t off, size_t len, size_t *unmapped) {
    const size_t first = off >> dev->page_shift;
    const size_t last = (off + len - 1) >> dev->page_shift;
    for (size_t w = first / 64; w <= last / 64; w++) {
        uint64_t want = ~(uint64_t) 0;
        if (w == first / 64) {
            want &= ~(uint64_t) 0 << (first % 64);
        }
        if (w == last / 64) {
            want &= ~(uint64_t) 0 >> (63 - last % 64);
        }
        const uint64_t have = atomic_load_explicit(&dev->window_pages[w], memory_order_acquire);
        if ((have & want) != want) {
            const size_t p = w * 64 + (size_t) __builtin_ctzll(want & ~have);
            *unmapped = p << dev->page_shift;
            return false;
        }
    }
    return true;
}

void vdsp_window_describe(struct vdsp_device *dev, size_t off, char *text, size_t size) {
    const size_t page = off >> dev->page_shift;
    if (page == 0) {
        snprintf(text, size, "device address 0x%08zx (page 0, never mapped)", off);
        return;
    }
    pthread_mutex_lock(&dev->window_lock);
    for (uint32_t i = 0; i < dev->n_maps; i++) {
        const struct vdsp_mapping *m = &dev->maps[i];
        const size_t base = (size_t) m->first << dev->page_shift;
        if (page >= m->first && page < (size_t) m->first + m->npages) {
            snprintf(text, size, "device address 0x%08zx (buffer at 0x%08zx, %zu bytes)", off, base, m->size);
            pthread_mutex_unlock(&dev->window_lock);
            return;
        }
        if (page == (size_t) m->first + m->npages) {
            snprintf(text, size, "device address 0x%08zx (guard page after the buffer at 0x%08zx, %zu bytes)", off,
                     base, m->size);
            pthread_mutex_unlock(&dev->window_lock);
            return;
        }
    }
    pthread_mutex_unlock(&dev->window_lock);
    snprintf(text, size, "device address 0x%08zx (not mapped)", off);
}
