/*
 * The graph allocator: places a graph's intermediate tensors in one buffer, reusing memory.
 *
 * Like ggml-alloc's ggml_gallocr, it walks the nodes in compute order and gives each tensor that has no
 * data an offset in one buffer of the given buffer type; the memory of a tensor is free for reuse once
 * the last node reading it (directly or through a view) has run. Offsets are picked best-fit from the
 * free ranges, at the buffer type's alignment, for vnpu_buffer_type_alloc_size bytes (so tiled layouts
 * get their padding). Never reused within a graph: tensors flagged INPUT (set by the caller before
 * compute) or OUTPUT (read after it), and tensors no node reads (the graph's results). Views take their
 * source's memory at their offset. A node's output never shares memory with its inputs: every op may
 * run out of place.
 *
 * The allocator keeps one buffer and grows it when a graph needs more; the model builds a new graph per
 * decode call and allocates each in turn. Memory placed by one call is valid until the next call (which
 * may reuse or move the buffer) or vnpu_gallocr_free.
 */
#ifndef VNPU_GRAPH_ALLOC_H
#define VNPU_GRAPH_ALLOC_H

#include "buffer.h"
#include "tensor.h"
#include "vnpu.h"

#include <stddef.h>

struct vnpu_gallocr;

/* An allocator drawing from buffers of type bt (no buffer until the first graph). NULL when out of
 * memory (logged). */
struct vnpu_gallocr *vnpu_gallocr_new(struct vnpu_buffer_type *bt);
void vnpu_gallocr_free(struct vnpu_gallocr *ga); /* frees the buffer too; NULL is a no-op */

/* Plan g and grow the buffer to fit it, placing nothing: reserve for the largest graph up front so
 * later calls never reallocate. Errors: VNPU_STATUS_NO_MEMORY (buffer allocation, or a plan that
 * overflows size_t). */
enum vnpu_status vnpu_gallocr_reserve(struct vnpu_gallocr *ga, const struct vnpu_graph *g);

/* Give every tensor of g whose data is NULL its memory: tensors that own memory get an offset in the
 * buffer (grown first if the plan needs more), views get view_src's data + view_offs (a source outside
 * the graph without data is placed too). Tensors that already have data (weights, the KV cache) are left
 * alone. Errors as vnpu_gallocr_reserve; on error no tensor of g was changed. */
enum vnpu_status vnpu_gallocr_alloc_graph(struct vnpu_gallocr *ga, struct vnpu_graph *g);

/* Bytes of the current buffer (0 before the first graph). */
size_t vnpu_gallocr_buffer_size(const struct vnpu_gallocr *ga);

#endif /* VNPU_GRAPH_ALLOC_H */
