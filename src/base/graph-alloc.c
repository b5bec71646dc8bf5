/*
 * The graph allocator: a liveness plan over a graph's nodes, best-fit offsets in one growing buffer.
 *
 * Liveness follows ggml-alloc (ggml_gallocr_alloc_graph_impl): memory is owned by the tensor at the
 * root of its views; it is taken when its owner is first needed (leafs before any node, nodes when they
 * run) and given back after the last node that reads the owner or any view of it, unless it is pinned
 * (INPUT, OUTPUT, or read by no node). The offsets come from a free list kept sorted by offset,
 * coalesced on free; a request no free range holds extends the buffer's high-water mark (ggml's
 * ggml_dyn_tallocr does the same).
 */
#include "graph-alloc.h"

#include "log.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* What the plan knows about one tensor the graph touches. */
struct galloc_entry {
    struct vnpu_tensor *t;
    size_t offset;  /* in the buffer, when owns */
    size_t size;    /* bytes taken, rounded up to the alignment; 0 unless owns */
    int last_use;   /* index of the last node reading this memory (through any view); -1: none */
    bool owns;      /* gets memory from the plan: no data and not a view */
    bool consumed;  /* some node reads this tensor itself */
    bool pinned;    /* never given back within the graph */
    bool allocated; /* has its offset */
    bool released;  /* was given back */
};

/* A free byte range [offset, offset + size). */
struct galloc_range {
    size_t offset;
    size_t size;
};

/* One graph's plan. Its arrays are the allocator's, kept from graph to graph (a decode step plans a graph of the
 * same size every token): grown, never shrunk, freed with the allocator. */
struct galloc_plan {
    struct galloc_entry *entries; /* in the order first met */
    int n_entries, cap_entries;
    uint32_t *slots; /* open addressing by tensor address: entry index + 1, 0 empty; n_slots a power of two */
    uint32_t n_slots;
    struct galloc_range *free_ranges; /* sorted by offset, never adjacent; at most n_entries + 1 */
    int n_free;
    size_t end; /* high-water mark: the buffer size the plan needs */
    size_t alignment;
};

struct vnpu_gallocr {
    struct vnpu_buffer_type *bt;
    struct vnpu_buffer *buf; /* NULL until the first graph */
    struct galloc_plan plan;
};

struct vnpu_gallocr *vnpu_gallocr_new(struct vnpu_buffer_type *bt) {
    struct vnpu_gallocr *ga = calloc(1, sizeof(*ga));
    if (!ga) {
        vnpu_log_error("graph allocator: cannot allocate its state");
        return NULL;
    }
    ga->bt = bt;
    return ga;
}

void vnpu_gallocr_free(struct vnpu_gallocr *ga) {
    if (ga) {
        vnpu_buffer_free(ga->buf);
        free(ga->plan.entries);
        free(ga->plan.slots);
        free(ga->plan.free_ranges);
        free(ga);
    }
}

size_t vnpu_gallocr_buffer_size(const struct vnpu_gallocr *ga) {
    return ga->buf ? ga->buf->size : 0;
}

/* ---- the tensor table ---- */

/* The first slot to probe for t: Fibonacci hashing of its address (tensors are at least 16-byte aligned). */
static uint32_t plan_slot(const struct galloc_plan *p, const struct vnpu_tensor *t) {
    return (uint32_t) ((((uintptr_t) t >> 4) * UINT64_C(0x9e3779b97f4a7c15)) >> 32) & (p->n_slots - 1);
}

/* The entry of t, added (last_use -1, the rest zero) when add is true and t is new; NULL when t is new and add false.
 */
static struct galloc_entry *plan_find(struct galloc_plan *p, const struct vnpu_tensor *t, bool add) {
    uint32_t i = plan_slot(p, t);
    for (; p->slots[i]; i = (i + 1) & (p->n_slots - 1)) {
        struct galloc_entry *e = &p->entries[p->slots[i] - 1];
        if (e->t == t) {
            return e;
        }
    }
    if (!add) {
        return NULL;
    }
    struct galloc_entry *e = &p->entries[p->n_entries++];
    *e = (struct galloc_entry){.t = (struct vnpu_tensor *) t, .last_use = -1};
    p->slots[i] = (uint32_t) p->n_entries;
    return e;
}

/* The entry of t; every tensor the plan meets was collected first. */
static struct galloc_entry *plan_entry(struct galloc_plan *p, const struct vnpu_tensor *t) {
    struct galloc_entry *e = plan_find(p, t, false);
    VNPU_ASSERT(e);
    return e;
}

/* The entry of the tensor owning t's memory. */
static struct galloc_entry *plan_root(struct galloc_plan *p, const struct vnpu_tensor *t) {
    return plan_entry(p, t->view_src ? t->view_src : t);
}

static void plan_collect(struct galloc_plan *p, const struct vnpu_tensor *t) {
    plan_find(p, t, true);
    if (t->view_src) {
        plan_find(p, t->view_src, true);
    }
}

/* Room for cap entries, cap + 1 free ranges and a table at most half full, the table emptied; false (logged) when
 * out of memory or beyond the table's 32-bit indices. */
static bool plan_reserve(struct galloc_plan *p, size_t cap, int n_nodes) {
    if (cap > UINT32_MAX / 4) {
        vnpu_log_error("graph allocator: a plan of %zu tensors is beyond its limit of %u", cap, UINT32_MAX / 4);
        return false;
    }
    if (cap > (size_t) p->cap_entries) {
        struct galloc_entry *e = realloc(p->entries, cap * sizeof(*e));
        if (e) {
            p->entries = e;
        }
        struct galloc_range *r = e ? realloc(p->free_ranges, (cap + 1) * sizeof(*r)) : NULL;
        if (!r) {
            vnpu_log_error("graph allocator: cannot allocate the plan of %d nodes", n_nodes);
            return false;
        }
        p->free_ranges = r;
        p->cap_entries = (int) cap;
    }
    uint32_t n_slots = 16;
    while (n_slots < 2 * cap) {
        n_slots *= 2;
    }
    if (n_slots > p->n_slots) {
        uint32_t *slots = realloc(p->slots, n_slots * sizeof(*slots));
        if (!slots) {
            vnpu_log_error("graph allocator: cannot allocate the plan of %d nodes", n_nodes);
            return false;
        }
        p->slots = slots;
        p->n_slots = n_slots;
    }
    memset(p->slots, 0, p->n_slots * sizeof(*p->slots));
    return true;
}

/* Fill p->entries with every tensor of g, their sources and the owners of their memory, once each. */
static enum vnpu_status plan_collect_tensors(struct galloc_plan *p, const struct vnpu_graph *g) {
    const size_t cap = 2 * ((size_t) g->n_leafs + (size_t) g->n_nodes * (1 + VNPU_MAX_SRC)) + 1;
    if (!plan_reserve(p, cap, g->n_nodes)) {
        return VNPU_STATUS_NO_MEMORY;
    }
    for (int i = 0; i < g->n_leafs; i++) {
        plan_collect(p, g->leafs[i]);
    }
    for (int i = 0; i < g->n_nodes; i++) {
        plan_collect(p, g->nodes[i]);
        for (int s = 0; s < VNPU_MAX_SRC; s++) {
            if (g->nodes[i]->src[s]) {
                plan_collect(p, g->nodes[i]->src[s]);
            }
        }
    }
    return VNPU_STATUS_OK;
}

/* ---- free ranges ---- */

/* Take size bytes (a multiple of the alignment): the smallest free range that holds them, else the top
 * free range grown past the high-water mark, else fresh bytes at the mark. */
static enum vnpu_status plan_take(struct galloc_plan *p, size_t size, size_t *offset) {
    int best = -1;
    for (int i = 0; i < p->n_free; i++) {
        if (p->free_ranges[i].size >= size && (best < 0 || p->free_ranges[i].size < p->free_ranges[best].size)) {
            best = i;
        }
    }
    if (best >= 0) {
        struct galloc_range *r = &p->free_ranges[best];
        *offset = r->offset;
        r->offset += size;
        r->size -= size;
        if (r->size == 0) {
            memmove(r, r + 1, (size_t) (p->n_free - best - 1) * sizeof(*r));
            p->n_free--;
        }
        return VNPU_STATUS_OK;
    }
    size_t start = p->end;
    if (p->n_free > 0 && p->free_ranges[p->n_free - 1].offset + p->free_ranges[p->n_free - 1].size == p->end) {
        start = p->free_ranges[--p->n_free].offset;
    }
    if (size > SIZE_MAX - start) {
        vnpu_log_error("graph allocator: %zu bytes at offset %zu overflow the address space", size, start);
        return VNPU_STATUS_NO_MEMORY;
    }
    *offset = start;
    p->end = start + size;
    return VNPU_STATUS_OK;
}

/* Give [offset, offset + size) back, merging it with the free ranges it touches. */
static void plan_give_back(struct galloc_plan *p, size_t offset, size_t size) {
    int i = 0;
    while (i < p->n_free && p->free_ranges[i].offset < offset) {
        i++;
    }
    const bool join_prev = i > 0 && p->free_ranges[i - 1].offset + p->free_ranges[i - 1].size == offset;
    const bool join_next = i < p->n_free && offset + size == p->free_ranges[i].offset;
    if (join_prev && join_next) {
        p->free_ranges[i - 1].size += size + p->free_ranges[i].size;
        memmove(&p->free_ranges[i], &p->free_ranges[i + 1], (size_t) (p->n_free - i - 1) * sizeof(*p->free_ranges));
        p->n_free--;
    } else if (join_prev) {
        p->free_ranges[i - 1].size += size;
    } else if (join_next) {
        p->free_ranges[i].offset = offset;
        p->free_ranges[i].size += size;
    } else {
        memmove(&p->free_ranges[i + 1], &p->free_ranges[i], (size_t) (p->n_free - i) * sizeof(*p->free_ranges));
        p->free_ranges[i] = (struct galloc_range){.offset = offset, .size = size};
        p->n_free++;
    }
}

/* Give e an offset unless it has one or needs none. */
static enum vnpu_status plan_allocate(struct galloc_plan *p, struct galloc_entry *e) {
    if (!e->owns || e->allocated) {
        return VNPU_STATUS_OK;
    }
    e->allocated = true;
    if (e->size == 0) {
        e->offset = 0;
        return VNPU_STATUS_OK;
    }
    return plan_take(p, e->size, &e->offset);
}

/* ---- the plan ---- */

static size_t round_up(size_t n, size_t a) {
    return (n + a - 1) / a * a;
}

/* Mark what owns memory, what is pinned and where each owner is last read. */
static enum vnpu_status plan_liveness(struct galloc_plan *p, struct vnpu_buffer_type *bt, const struct vnpu_graph *g) {
    for (int i = 0; i < p->n_entries; i++) {
        struct galloc_entry *e = &p->entries[i];
        e->owns = e->t->data == NULL && e->t->view_src == NULL;
        if (e->owns) {
            const size_t bytes = vnpu_buffer_type_alloc_size(bt, e->t);
            e->size = round_up(bytes, p->alignment);
            if (e->size < bytes) {
                vnpu_log_error("graph allocator: tensor '%s' of %zu bytes overflows the address space", e->t->name,
                               bytes);
                return VNPU_STATUS_NO_MEMORY;
            }
        }
    }
    for (int i = 0; i < g->n_nodes; i++) {
        for (int s = 0; s < VNPU_MAX_SRC; s++) {
            const struct vnpu_tensor *src = g->nodes[i]->src[s];
            if (src) {
                plan_entry(p, src)->consumed = true;
                plan_root(p, src)->last_use = i;
            }
        }
    }
    for (int i = 0; i < p->n_entries; i++) {
        const struct galloc_entry *e = &p->entries[i];
        if (!e->consumed || (e->t->flags & (VNPU_TENSOR_FLAG_INPUT | VNPU_TENSOR_FLAG_OUTPUT))) {
            plan_root(p, e->t)->pinned = true;
        }
    }
    return VNPU_STATUS_OK;
}

/* Walk g in compute order, taking and giving back memory; p->end is then the buffer size needed. */
static enum vnpu_status plan_walk(struct galloc_plan *p, const struct vnpu_graph *g) {
    enum vnpu_status st = VNPU_STATUS_OK;
    for (int i = 0; i < g->n_leafs && st == VNPU_STATUS_OK; i++) {
        st = plan_allocate(p, plan_root(p, g->leafs[i]));
    }
    for (int i = 0; i < g->n_nodes && st == VNPU_STATUS_OK; i++) {
        const struct vnpu_tensor *node = g->nodes[i];
        for (int s = 0; s < VNPU_MAX_SRC && st == VNPU_STATUS_OK; s++) {
            if (node->src[s]) { /* an owner outside the graph: placed when first read */
                st = plan_allocate(p, plan_root(p, node->src[s]));
            }
        }
        if (st == VNPU_STATUS_OK) {
            st = plan_allocate(p, plan_root(p, node));
        }
        for (int s = 0; s < VNPU_MAX_SRC && st == VNPU_STATUS_OK; s++) {
            if (!node->src[s]) {
                continue;
            }
            struct galloc_entry *r = plan_root(p, node->src[s]);
            if (r->owns && !r->pinned && !r->released && r->last_use == i) {
                r->released = true;
                if (r->size > 0) {
                    plan_give_back(p, r->offset, r->size);
                }
            }
        }
    }
    return st;
}

/* Plan g into p (its arrays kept, the rest reset). */
static enum vnpu_status plan_make(struct galloc_plan *p, struct vnpu_buffer_type *bt, const struct vnpu_graph *g) {
    p->n_entries = 0;
    p->n_free = 0;
    p->end = 0;
    p->alignment = bt->alignment ? bt->alignment : 1;
    enum vnpu_status st = plan_collect_tensors(p, g);
    if (st == VNPU_STATUS_OK) {
        st = plan_liveness(p, bt, g);
    }
    if (st == VNPU_STATUS_OK) {
        st = plan_walk(p, g);
    }
    return st;
}

/* Make the buffer at least size bytes; the old one is freed first, so its contents are lost. */
static enum vnpu_status gallocr_grow(struct vnpu_gallocr *ga, size_t size) {
    if (ga->buf && ga->buf->size >= size) {
        return VNPU_STATUS_OK;
    }
    vnpu_buffer_free(ga->buf);
    ga->buf = NULL;
    const enum vnpu_status st = vnpu_buffer_type_alloc(ga->bt, size, &ga->buf);
    if (st == VNPU_STATUS_OK) {
        vnpu_log_debug("graph allocator: %s buffer of %zu bytes", vnpu_buffer_type_name(ga->bt), size);
    }
    return st;
}

enum vnpu_status vnpu_gallocr_reserve(struct vnpu_gallocr *ga, const struct vnpu_graph *g) {
    const enum vnpu_status st = plan_make(&ga->plan, ga->bt, g);
    return st == VNPU_STATUS_OK ? gallocr_grow(ga, ga->plan.end) : st;
}

enum vnpu_status vnpu_gallocr_alloc_graph(struct vnpu_gallocr *ga, struct vnpu_graph *g) {
    const struct galloc_plan *p = &ga->plan;
    enum vnpu_status st = plan_make(&ga->plan, ga->bt, g);
    if (st != VNPU_STATUS_OK) {
        return st;
    }
    st = gallocr_grow(ga, p->end);
    if (st == VNPU_STATUS_OK) {
        for (int i = 0; i < p->n_entries; i++) {
            if (p->entries[i].owns) {
                vnpu_buffer_place_tensor(ga->buf, p->entries[i].t, p->entries[i].offset);
            }
        }
        for (int i = 0; i < p->n_entries; i++) {
            struct vnpu_tensor *t = p->entries[i].t;
            if (t->view_src && !t->data) {
                t->data = (char *) t->view_src->data + t->view_offs;
                t->buffer = t->view_src->buffer;
            }
        }
    }
    return st;
}
