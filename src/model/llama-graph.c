#include "llama.h"

#include <math.h>

/* The tensor with a name "<what>-<layer>" (il >= 0) or "<what>", as llama.cpp names graph nodes; without printf, as
 * every node of every token's graph is named. */
static struct vnpu_tensor *named(struct vnpu_tensor *t, const char *what, int il) {
    char layer[12]; /* "-" and up to 10 digits */
    char *p = layer + sizeof(layer);
    *--p = '\0';
    if (il >= 0) {
        unsigned v = (unsigned) il;
        do {
            *--p = (char) ('0' + v % 10);
            v /= 10;
        } while (v > 0);
        *--p = '-';
    }
    vnpu_set_name_suffix(t, what, p);
    return t;
}

/* Prefer dev for the nodes g gained since node start (a layer's); returns the node count, the next start. */
static int place_nodes(struct vnpu_graph *g, int start, struct vnpu_device *dev) {
    for (int i = start; i < g->n_nodes; i++) {
        g->nodes[i]->device = dev;
    }
    return g->n_nodes;
}

static struct vnpu_tensor *input(struct vnpu_ctx *ctx, enum vnpu_type type, int64_t ne0, int64_t ne1,
                                 const char *name) {
    struct vnpu_tensor *t = vnpu_new_tensor_2d(ctx, type, ne0, ne1);
    t->flags |= VNPU_TENSOR_FLAG_INPUT;
    return named(t, name, -1);
}

static struct vnpu_tensor *rms_norm_mul(struct vnpu_ctx *ctx, struct vnpu_tensor *x, struct vnpu_tensor *weight,
                                        float eps, const char *what, int il) {
    struct vnpu_tensor *cur = named(vnpu_rms_norm(ctx, x, eps), "norm", il);
    return named(vnpu_mul(ctx, cur, weight), what, il);
}

/* x + b, b [x->ne[0]] broadcast over x's rows, named what; x itself when b is NULL (an optional bias the file lacks).
 */
static struct vnpu_tensor *bias(struct vnpu_ctx *ctx, struct vnpu_tensor *x, struct vnpu_tensor *b, const char *what,
                                int il) {
    return b ? named(vnpu_add(ctx, x, b), what, il) : x;
}

/* w x + b: a MUL_MAT and its optional bias, both named what. */
static struct vnpu_tensor *linear(struct vnpu_ctx *ctx, struct vnpu_tensor *w, struct vnpu_tensor *b,
                                  struct vnpu_tensor *x, const char *what, int il) {
    return bias(ctx, named(vnpu_mul_mat(ctx, w, x), what, il), b, what, il);
}

/* Rotary embedding of x [head_dim, n_heads, n_tokens] at the input positions, in the architecture's mode (normal for
 * llama, NEOX for the Qwens), with Llama 3's frequency factors when the model has them, no YaRN. */
static struct vnpu_tensor *rope(struct vnpu_ctx *ctx, const struct vnpu_model *model, struct vnpu_tensor *x,
                                struct vnpu_tensor *pos) {
    const struct llama_hparams *hp = &model->hp;
    return vnpu_rope_ext(ctx, x, pos, model->w.rope_freqs, (int) hp->n_rot, llama_arch_traits_get(hp->arch)->rope_type,
                         (int) hp->n_ctx_orig, hp->rope_freq_base, hp->rope_freq_scale, 0.0f, 1.0f, 32.0f, 1.0f);
}

/* Attention of q [head_dim, n_head, n_tokens] over cells 0..n_kv-1 of the caches kc, vc of layer il (n_head_kv
 * heads) -> [head_dim * n_head, n_tokens]. */
static struct vnpu_tensor *attention(struct vnpu_ctx *ctx, const struct vnpu_model *model, struct vnpu_tensor *kc,
                                     struct vnpu_tensor *vc, int64_t n_head, int64_t n_head_kv,
                                     const struct llama_graph_params *p, const struct llama_graph_inputs *in,
                                     struct vnpu_tensor *q_cur, int il) {
    const int64_t head_dim = model->hp.n_embd_head, n_kv = in->n_kv;
    const float kq_scale = 1.0f / sqrtf((float) head_dim);

    struct vnpu_tensor *q = vnpu_permute(ctx, q_cur, 0, 2, 1, 3); /* [head_dim, n_tokens, n_head] */
    struct vnpu_tensor *k =
        vnpu_view_3d(ctx, kc, head_dim, n_kv, n_head_kv, kc->nb[1], vnpu_row_size(kc->type, head_dim), 0);
    struct vnpu_tensor *v =
        vnpu_view_3d(ctx, vc, head_dim, n_kv, n_head_kv, vc->nb[1], vnpu_row_size(vc->type, head_dim), 0);
    struct vnpu_tensor *cur;
    if (p->flash_attn) {
        cur = named(vnpu_flash_attn_ext(ctx, q, k, v, in->kq_mask, kq_scale, 0.0f, 0.0f), "fattn", il);
    } else {
        struct vnpu_tensor *kq = named(vnpu_mul_mat(ctx, k, q), "kq", il); /* [n_kv, n_tokens, n_head] */
        kq = named(vnpu_soft_max_ext(ctx, kq, in->kq_mask, kq_scale, 0.0f), "kq_soft_max", il);
        struct vnpu_tensor *vt = vnpu_cont(ctx, vnpu_permute(ctx, v, 1, 0, 2, 3)); /* [n_kv, head_dim, n_head_kv] */
        struct vnpu_tensor *kqv = named(vnpu_mul_mat(ctx, vt, kq), "kqv", il);     /* [head_dim, n_tokens, n_head] */
        cur = vnpu_cont(ctx, vnpu_permute(ctx, kqv, 0, 2, 1, 3));                  /* [head_dim, n_head, n_tokens] */
    }
    return vnpu_reshape_2d(ctx, cur, head_dim * n_head, p->n_tokens);
}

/* The heads' part of the self-attention of layer il over cur [n_embd, n_tokens], by the weights of part (a whole
 * layer's or a tensor split's device's, with n_head_kv of the KV heads) and the caches kc, vc: the projections (with
 * their biases, Qwen 2's), Qwen 3's RMS norm of each query and key head, RoPE, the batch's K and V written into the
 * caches, attention over them -> [n_embd_head * n_head, n_tokens], the input of attn_output (llama.cpp's
 * "kqv_out"). */
static struct vnpu_tensor *attention_heads(struct vnpu_ctx *ctx, struct vnpu_graph *g, const struct vnpu_model *model,
                                           const struct llama_layer_part *part, int64_t n_head_kv,
                                           struct vnpu_tensor *kc, struct vnpu_tensor *vc,
                                           const struct llama_graph_params *p, const struct llama_graph_inputs *in,
                                           struct vnpu_tensor *cur, int il) {
    const struct llama_hparams *hp = &model->hp;
    const int64_t n_tokens = p->n_tokens, head_dim = hp->n_embd_head;
    const int64_t n_head = n_head_kv * (hp->n_head / hp->n_head_kv);
    /* the projections named as llama.cpp names them before and after RoPE (messages name the MUL_MAT) */
    struct vnpu_tensor *q_cur =
        vnpu_reshape_3d(ctx, linear(ctx, part->wq, part->bq, cur, "Qcur", il), head_dim, n_head, n_tokens);
    struct vnpu_tensor *k_cur =
        vnpu_reshape_3d(ctx, linear(ctx, part->wk, part->bk, cur, "Kcur", il), head_dim, n_head_kv, n_tokens);
    struct vnpu_tensor *v_cur = linear(ctx, part->wv, part->bv, cur, "Vcur", il);
    if (part->attn_q_norm) { /* Qwen 3: each head normed over its head_dim elements (the table requires both) */
        q_cur = rms_norm_mul(ctx, q_cur, part->attn_q_norm, hp->rms_eps, "Qcur_normed", il);
        k_cur = rms_norm_mul(ctx, k_cur, part->attn_k_norm, hp->rms_eps, "Kcur_normed", il);
    }
    q_cur = named(rope(ctx, model, q_cur, in->pos), "Qcur", il);
    k_cur = named(rope(ctx, model, k_cur, in->pos), "Kcur", il);

    /* Write this batch's K and V into cells kv_head.. (cell = position) before attention reads them. */
    vnpu_graph_build_forward_expand(
        g, vnpu_set_rows(ctx, kc, vnpu_reshape_2d(ctx, k_cur, head_dim * n_head_kv, n_tokens), in->pos));
    vnpu_graph_build_forward_expand(g, vnpu_set_rows(ctx, vc, v_cur, in->pos));
    return named(attention(ctx, model, kc, vc, n_head, n_head_kv, p, in, q_cur, il), "kqv_out", il);
}

/* The hidden features of layer il's feed-forward over cur [n_embd, n_tokens] by the weights of part:
 * swiglu(ffn_gate x + b_gate, ffn_up x + b_up) -> [rows of part's ffn_gate, n_tokens], the input of ffn_down. */
static struct vnpu_tensor *ffn_hidden(struct vnpu_ctx *ctx, const struct llama_layer_part *part,
                                      struct vnpu_tensor *cur, int il) {
    struct vnpu_tensor *gate = linear(ctx, part->ffn_gate, part->ffn_gate_b, cur, "ffn_gate", il);
    struct vnpu_tensor *up = linear(ctx, part->ffn_up, part->ffn_up_b, cur, "ffn_up", il);
    return named(vnpu_swiglu_split(ctx, gate, up), "ffn_swiglu", il);
}

/* ---- tensor split: every matrix split by rows, each device's rows gathered in shared memory ---- */

/* The whole tensors a tensor split gathers its devices' rows into: leafs of the compute buffer, [rows, n_tokens],
 * shared by the layers (the graph runs in order: a layer's gathers are read before the next layer's write). */
struct split_gathers {
    struct vnpu_tensor *kqv;    /* [n_embd_head * n_head, n_tokens]: the heads' attention, input of attn_output */
    struct vnpu_tensor *attn;   /* [n_embd, n_tokens]: attn_output */
    struct vnpu_tensor *hidden; /* [n_ff, n_tokens]: the feed-forward's features, input of ffn_down */
    struct vnpu_tensor *ffn;    /* [n_embd, n_tokens]: ffn_down */
};

/* The first n columns of gather t. */
static struct vnpu_tensor *gather_cols(struct vnpu_ctx *ctx, struct vnpu_tensor *t, int64_t n) {
    return n == t->ne[1] ? t : vnpu_view_2d(ctx, t, t->ne[0], n, t->nb[1], 0);
}

/* One device's part [n, n_cols] into rows start..start + n of the first n_cols columns of whole (a CPY into a view
 * of it: the gather, each device writing its rows of the whole result). */
static void gather_rows(struct vnpu_ctx *ctx, struct vnpu_graph *g, struct vnpu_tensor *part, struct vnpu_tensor *whole,
                        int64_t start) {
    struct vnpu_tensor *dst =
        vnpu_view_2d(ctx, whole, part->ne[0], part->ne[1], whole->nb[1], (size_t) start * whole->nb[0]);
    vnpu_graph_build_forward_expand(g, vnpu_cpy(ctx, part, dst));
}

/* Layer il's self-attention over cur [n_embd, n_tokens] split by tensors: each device its heads' attention, gathered
 * into gt->kqv, then its rows of attn_output over all of them, gathered into gt->attn, which it returns. The nodes
 * of device d's parts prefer p->tensor_dev[d]; *start is the first node not yet placed. */
static struct vnpu_tensor *split_attention(struct vnpu_ctx *ctx, struct vnpu_graph *g, const struct vnpu_model *model,
                                           const struct llama_kv_cache *kv, const struct llama_graph_params *p,
                                           const struct llama_graph_inputs *in, const struct split_gathers *gt,
                                           struct vnpu_tensor *cur, int il, int *start) {
    const struct llama_hparams *hp = &model->hp;
    const struct llama_weights *w = &model->w;
    const struct llama_layer *y = &w->layers[il];
    const int64_t q_per_kv = hp->n_embd_head * (hp->n_head / hp->n_head_kv);
    for (int d = 0; d < w->n_part; d++) {
        const struct llama_tensor_range h = w->split.head_kv[d];
        if (h.n > 0) {
            struct vnpu_tensor *heads = attention_heads(ctx, g, model, &y->part[d], h.n, kv->k[il * kv->n_part + d],
                                                        kv->v[il * kv->n_part + d], p, in, cur, il);
            gather_rows(ctx, g, heads, gt->kqv, h.start * q_per_kv);
            *start = place_nodes(g, *start, p->tensor_dev[d]);
        }
    }
    for (int d = 0; d < w->n_part; d++) {
        if (w->split.embd[d].n > 0) {
            gather_rows(ctx, g, linear(ctx, y->part[d].wo, y->part[d].bo, gt->kqv, "attn_out", il), gt->attn,
                        w->split.embd[d].start);
            *start = place_nodes(g, *start, p->tensor_dev[d]);
        }
    }
    return gt->attn;
}

/* Layer il's feed-forward over cur [n_embd, n] split by tensors: each device its features, gathered into
 * gt->hidden, then its rows of ffn_down over all of them, gathered into gt->ffn, whose first n columns it returns.
 * Placement as split_attention's. */
static struct vnpu_tensor *split_feed_forward(struct vnpu_ctx *ctx, struct vnpu_graph *g, const struct llama_weights *w,
                                              const struct llama_graph_params *p, const struct split_gathers *gt,
                                              struct vnpu_tensor *cur, int il, int *start) {
    const struct llama_layer *y = &w->layers[il];
    const int64_t n = cur->ne[1];
    for (int d = 0; d < w->n_part; d++) {
        if (w->split.ff[d].n > 0) {
            gather_rows(ctx, g, ffn_hidden(ctx, &y->part[d], cur, il), gt->hidden, w->split.ff[d].start);
            *start = place_nodes(g, *start, p->tensor_dev[d]);
        }
    }
    struct vnpu_tensor *hidden = gather_cols(ctx, gt->hidden, n);
    for (int d = 0; d < w->n_part; d++) {
        if (w->split.embd[d].n > 0) {
            gather_rows(ctx, g, linear(ctx, y->part[d].ffn_down, y->part[d].ffn_down_b, hidden, "ffn_out", il), gt->ffn,
                        w->split.embd[d].start);
            *start = place_nodes(g, *start, p->tensor_dev[d]);
        }
    }
    return gather_cols(ctx, gt->ffn, n);
}

void llama_graph_build(struct vnpu_ctx *ctx, struct vnpu_graph *g, const struct vnpu_model *model,
                       const struct llama_kv_cache *kv, const struct llama_graph_params *p,
                       struct llama_graph_inputs *in) {
    const struct llama_hparams *hp = &model->hp;
    const struct llama_weights *w = &model->w;
    const int64_t n_tokens = p->n_tokens;

    in->n_kv = p->kv_head + p->n_tokens;
    in->tokens = input(ctx, VNPU_TYPE_I32, n_tokens, 1, "inp_tokens");
    in->pos = input(ctx, VNPU_TYPE_I32, n_tokens, 1, "inp_pos");
    in->kq_mask = input(ctx, p->flash_attn ? VNPU_TYPE_F16 : VNPU_TYPE_F32, in->n_kv, n_tokens, "kq_mask");
    in->out_ids = p->n_outputs < p->n_tokens ? input(ctx, VNPU_TYPE_I32, p->n_outputs, 1, "inp_out_ids") : NULL;

    struct split_gathers gt = {0};
    if (w->n_part > 0) {
        gt.kqv = named(vnpu_new_tensor_2d(ctx, VNPU_TYPE_F32, hp->n_embd_head * hp->n_head, n_tokens), "kqv_out", -1);
        gt.attn = named(vnpu_new_tensor_2d(ctx, VNPU_TYPE_F32, hp->n_embd, n_tokens), "attn_out", -1);
        gt.hidden = named(vnpu_new_tensor_2d(ctx, VNPU_TYPE_F32, hp->n_ff, n_tokens), "ffn_swiglu", -1);
        gt.ffn = named(vnpu_new_tensor_2d(ctx, VNPU_TYPE_F32, hp->n_embd, n_tokens), "ffn_out", -1);
    }

    struct vnpu_tensor *inp_l = named(vnpu_get_rows(ctx, w->token_embd, in->tokens), "inp_embd", -1);
    vnpu_graph_build_forward_expand(g, inp_l);
    int layer_start = place_nodes(g, 0, p->input_dev); /* the first node not yet placed */
    for (int il = 0; il < (int) hp->n_layer; il++) {
        const struct llama_layer *y = &w->layers[il];
        const struct llama_layer_part whole = llama_layer_part_get(w, y, 0);
        struct vnpu_device *dev = p->layer_dev ? p->layer_dev[il] : NULL;
        struct vnpu_tensor *inp_sa = inp_l;
        struct vnpu_tensor *cur = rms_norm_mul(ctx, inp_l, y->attn_norm, hp->rms_eps, "attn_norm", il);
        vnpu_graph_build_forward_expand(g, cur);
        layer_start = place_nodes(g, layer_start, dev);
        struct vnpu_tensor *attn;
        if (w->n_part > 0) {
            attn = split_attention(ctx, g, model, kv, p, in, &gt, cur, il, &layer_start);
        } else {
            attn = linear(ctx, y->wo, y->bo,
                          attention_heads(ctx, g, model, &whole, hp->n_head_kv, kv->k[il], kv->v[il], p, in, cur, il),
                          "attn_out", il);
        }
        if (il == (int) hp->n_layer - 1 && in->out_ids) {
            /* Only the rows whose logits are kept go through the last feed-forward and the output. */
            attn = vnpu_get_rows(ctx, attn, in->out_ids);
            inp_sa = vnpu_get_rows(ctx, inp_sa, in->out_ids);
        }
        struct vnpu_tensor *ffn_inp = named(vnpu_add(ctx, attn, inp_sa), "ffn_inp", il);

        cur = rms_norm_mul(ctx, ffn_inp, y->ffn_norm, hp->rms_eps, "ffn_norm", il);
        vnpu_graph_build_forward_expand(g, cur);
        layer_start = place_nodes(g, layer_start, dev);
        struct vnpu_tensor *ffn =
            w->n_part > 0 ? split_feed_forward(ctx, g, w, p, &gt, cur, il, &layer_start)
                          : linear(ctx, y->ffn_down, y->ffn_down_b, ffn_hidden(ctx, &whole, cur, il), "ffn_out", il);
        inp_l = named(vnpu_add(ctx, ffn, ffn_inp), "l_out", il);
        vnpu_graph_build_forward_expand(g, inp_l);
        layer_start = place_nodes(g, layer_start, dev);
    }
    struct vnpu_tensor *cur = rms_norm_mul(ctx, inp_l, w->output_norm, hp->rms_eps, "result_norm", -1);
    struct vnpu_device *out_dev = p->layer_dev ? p->layer_dev[hp->n_layer] : NULL;
    if (w->n_part > 0) { /* each device its rows of the logits, gathered into the result */
        vnpu_graph_build_forward_expand(g, cur);
        layer_start = place_nodes(g, layer_start, out_dev);
        in->logits = named(vnpu_new_tensor_2d(ctx, VNPU_TYPE_F32, hp->n_vocab, cur->ne[1]), "result_output", -1);
        in->logits->flags |= VNPU_TENSOR_FLAG_OUTPUT;
        for (int d = 0; d < w->n_part; d++) {
            if (w->output_part[d]) {
                struct vnpu_tensor *part = vnpu_mul_mat(ctx, w->output_part[d], cur);
                vnpu_set_name(part, "result_output.part%d", d);
                if (w->output_b_part[d]) {
                    part = vnpu_add(ctx, part, w->output_b_part[d]);
                    vnpu_set_name(part, "result_output.part%d", d);
                }
                gather_rows(ctx, g, part, in->logits, w->split.vocab[d].start);
                layer_start = place_nodes(g, layer_start, p->tensor_dev[d]);
            }
        }
        return;
    }
    in->logits = linear(ctx, w->output, w->output_b, cur, "result_output", -1);
    in->logits->flags |= VNPU_TENSOR_FLAG_OUTPUT;
    vnpu_graph_build_forward_expand(g, in->logits);
    place_nodes(g, layer_start, out_dev);
}
