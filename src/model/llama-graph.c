#include "llama.h"

#include <math.h>

/* The tensor with a name "<what>-<layer>", as llama.cpp names graph nodes. */
static struct vnpu_tensor *named(struct vnpu_tensor *t, const char *what, int il) {
    if (il >= 0) {
        vnpu_set_name(t, "%s-%d", what, il);
    } else {
        vnpu_set_name(t, "%s", what);
    }
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

/* Rotary embedding of x [head_dim, n_heads, n_tokens] at the input positions (normal mode, no YaRN). */
static struct vnpu_tensor *rope(struct vnpu_ctx *ctx, const struct vnpu_model *model, struct vnpu_tensor *x,
                                struct vnpu_tensor *pos) {
    const struct llama_hparams *hp = &model->hp;
    return vnpu_rope_ext(ctx, x, pos, model->w.rope_freqs, (int) hp->n_rot, VNPU_ROPE_TYPE_NORMAL, (int) hp->n_ctx_orig,
                         hp->rope_freq_base, hp->rope_freq_scale, 0.0f, 1.0f, 32.0f, 1.0f);
}

/* Attention of q [head_dim, n_head, n_tokens] over cache cells 0..n_kv-1 of layer il -> [n_embd_q, n_tokens]. */
static struct vnpu_tensor *attention(struct vnpu_ctx *ctx, const struct vnpu_model *model,
                                     const struct llama_kv_cache *kv, const struct llama_graph_params *p,
                                     const struct llama_graph_inputs *in, struct vnpu_tensor *q_cur, int il) {
    const struct llama_hparams *hp = &model->hp;
    const int64_t head_dim = hp->n_embd_head, n_head_kv = hp->n_head_kv, n_kv = in->n_kv;
    const float kq_scale = 1.0f / sqrtf((float) head_dim);
    struct vnpu_tensor *kc = kv->k[il], *vc = kv->v[il];

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
    return vnpu_reshape_2d(ctx, cur, head_dim * hp->n_head, p->n_tokens);
}

void llama_graph_build(struct vnpu_ctx *ctx, struct vnpu_graph *g, const struct vnpu_model *model,
                       const struct llama_kv_cache *kv, const struct llama_graph_params *p,
                       struct llama_graph_inputs *in) {
    const struct llama_hparams *hp = &model->hp;
    const struct llama_weights *w = &model->w;
    const int64_t n_tokens = p->n_tokens, head_dim = hp->n_embd_head;
    const int64_t n_embd_gqa = head_dim * hp->n_head_kv;

    in->n_kv = p->kv_head + p->n_tokens;
    in->tokens = input(ctx, VNPU_TYPE_I32, n_tokens, 1, "inp_tokens");
    in->pos = input(ctx, VNPU_TYPE_I32, n_tokens, 1, "inp_pos");
    in->kq_mask = input(ctx, p->flash_attn ? VNPU_TYPE_F16 : VNPU_TYPE_F32, in->n_kv, n_tokens, "kq_mask");
    in->out_ids = p->n_outputs < p->n_tokens ? input(ctx, VNPU_TYPE_I32, p->n_outputs, 1, "inp_out_ids") : NULL;

    struct vnpu_tensor *inp_l = named(vnpu_get_rows(ctx, w->token_embd, in->tokens), "inp_embd", -1);
    vnpu_graph_build_forward_expand(g, inp_l);
    int layer_start = g->n_nodes; /* the first node of the layer being built */
    for (int il = 0; il < (int) hp->n_layer; il++) {
        const struct llama_layer *y = &w->layers[il];
        struct vnpu_tensor *inp_sa = inp_l;
        struct vnpu_tensor *cur = rms_norm_mul(ctx, inp_l, y->attn_norm, hp->rms_eps, "attn_norm", il);

        struct vnpu_tensor *q_cur = vnpu_reshape_3d(ctx, vnpu_mul_mat(ctx, y->wq, cur), head_dim, hp->n_head, n_tokens);
        struct vnpu_tensor *k_cur =
            vnpu_reshape_3d(ctx, vnpu_mul_mat(ctx, y->wk, cur), head_dim, hp->n_head_kv, n_tokens);
        struct vnpu_tensor *v_cur = named(vnpu_mul_mat(ctx, y->wv, cur), "Vcur", il);
        q_cur = named(rope(ctx, model, q_cur, in->pos), "Qcur", il);
        k_cur = named(rope(ctx, model, k_cur, in->pos), "Kcur", il);

        /* Write this batch's K and V into cells kv_head.. (cell = position) before attention reads them. */
        vnpu_graph_build_forward_expand(
            g, vnpu_set_rows(ctx, kv->k[il], vnpu_reshape_2d(ctx, k_cur, n_embd_gqa, n_tokens), in->pos));
        vnpu_graph_build_forward_expand(g, vnpu_set_rows(ctx, kv->v[il], v_cur, in->pos));

        cur = named(vnpu_mul_mat(ctx, y->wo, attention(ctx, model, kv, p, in, q_cur, il)), "attn_out", il);
        if (il == (int) hp->n_layer - 1 && in->out_ids) {
            /* Only the rows whose logits are kept go through the last feed-forward and the output. */
            cur = vnpu_get_rows(ctx, cur, in->out_ids);
            inp_sa = vnpu_get_rows(ctx, inp_sa, in->out_ids);
        }
        struct vnpu_tensor *ffn_inp = named(vnpu_add(ctx, cur, inp_sa), "ffn_inp", il);

        cur = rms_norm_mul(ctx, ffn_inp, y->ffn_norm, hp->rms_eps, "ffn_norm", il);
        struct vnpu_tensor *gate = named(vnpu_mul_mat(ctx, y->ffn_gate, cur), "ffn_gate", il);
        struct vnpu_tensor *up = named(vnpu_mul_mat(ctx, y->ffn_up, cur), "ffn_up", il);
        cur = named(vnpu_swiglu_split(ctx, gate, up), "ffn_swiglu", il);
        cur = named(vnpu_mul_mat(ctx, y->ffn_down, cur), "ffn_out", il);
        inp_l = named(vnpu_add(ctx, cur, ffn_inp), "l_out", il);
        vnpu_graph_build_forward_expand(g, inp_l); /* the order is the same as expanding from the next layer */
        layer_start = place_nodes(g, layer_start, p->layer_dev ? p->layer_dev[il] : NULL);
    }
    struct vnpu_tensor *cur = rms_norm_mul(ctx, inp_l, w->output_norm, hp->rms_eps, "result_norm", -1);
    in->logits = named(vnpu_mul_mat(ctx, w->output, cur), "result_output", -1);
    in->logits->flags |= VNPU_TENSOR_FLAG_OUTPUT;
    vnpu_graph_build_forward_expand(g, in->logits);
    place_nodes(g, layer_start, p->layer_dev ? p->layer_dev[hp->n_layer] : NULL);
}
