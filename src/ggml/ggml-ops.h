/*
 * GGML tensors as vnpu tensors: the one place where GGML's enums and op_params meet vnpu's (src/base/tensor.h).
 *
 * A translation holds, for one supports_op question or one graph, exactly one struct vnpu_tensor per GGML tensor
 * it has met: the same type, ne, nb, view offset, flags (INPUT, OUTPUT; WEIGHT for a tensor of a weights buffer),
 * name and data pointer (no data is copied), srcs and view_src pointing to the translations of GGML's. A node
 * (ggml_vnpu_translate_node) carries its op and op_params, translated where GGML's layout differs from vnpu's;
 * a tensor met only as an operand is data (op NONE, no srcs), so a graph's inputs computed elsewhere are not
 * translated further. The tensors live in a scratch struct vnpu_ctx, freed with the translation.
 */
#ifndef VNPU_GGML_OPS_H
#define VNPU_GGML_OPS_H

#include "ggml.h"
#include "tensor.h"

#include <stdbool.h>
#include <stddef.h>

struct vnpu_buffer;

/* The vnpu buffer behind a GGML buffer, or NULL when the buffer is not one of the plugin's (a CPU buffer, say):
 * given by the plugin (ggml-vnpu.c), which owns the buffer types. */
typedef struct vnpu_buffer *(*ggml_vnpu_buffer_of_fn)(const struct ggml_backend_buffer *buffer);

struct ggml_vnpu_translation {
    struct vnpu_ctx *ctx;
    ggml_vnpu_buffer_of_fn buffer_of;
    size_t cap; /* slots of the map, a power of two, at most half used */
    size_t n;   /* tensors translated */
    const struct ggml_tensor **keys;
    struct vnpu_tensor **vals;
    char why[160]; /* why the last translation failed */
};

/* A translation with room for max_tensors GGML tensors (nodes, their operands and view sources). Errors:
 * VNPU_STATUS_NO_MEMORY (logged). */
enum vnpu_status ggml_vnpu_translation_init(struct ggml_vnpu_translation *tr, size_t max_tensors,
                                            ggml_vnpu_buffer_of_fn buffer_of);
void ggml_vnpu_translation_free(struct ggml_vnpu_translation *tr);

/* The translation of node with its op (and of its operands as data, unless met before): NULL, with tr->why, when
 * vnpu has no such op or type, the node has an operand or op_params vnpu's op does not take (a softmax's sinks,
 * a rope's sections or offset), or the translation is full. A node met before as an operand is refused too
 * (a graph's nodes come in order, each after its operands). */
struct vnpu_tensor *ggml_vnpu_translate_node(struct ggml_vnpu_translation *tr, const struct ggml_tensor *node);

/* The translation of t as data (no op; its view source too), as an operand is translated: what a buffer's
 * set_tensor, get_tensor or get_alloc_size hands to vnpu's. NULL, with tr->why, for a type vnpu does not know or a
 * full translation. */
struct vnpu_tensor *ggml_vnpu_translate_tensor(struct ggml_vnpu_translation *tr, const struct ggml_tensor *t);

#endif /* VNPU_GGML_OPS_H */
