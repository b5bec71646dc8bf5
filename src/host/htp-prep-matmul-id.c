/*
 * MUL_MAT_ID on the host (src/htp/matmul-id-ops.h): what HTP devices accept, and the kernel_params of an accepted
 * node.
 *
 * Accepted: the weights MUL_MAT takes (F32, F16, the twelve block types with NPU kernels, flat or tiled), one matrix
 * per expert (src0 [K, M, n_expert, 1], n_expert <= MATMUL_ID_MAX_EXPERTS), dense along a row; src1 F32 [K, ne11,
 * n_tokens, 1] with dense rows, ne11 dividing n_used; ids I32 [n_used, n_tokens] with dense rows; dst F32 contiguous;
 * the whole plan in VTCM. The ids' values are the NPU's to check (an id out of range fails the op, naming it).
 * As for MUL_MAT, a type with a tiled layout needs both plans, since supports_op cannot know the weight's layout.
 *
 * The plan (htp-prep-matmul.c's, over pairs instead of columns): workers one per HTP_MMID_MACS_PER_THREAD
 * multiply-adds, at most one per tile row; then the deepest weight prefetch (4 tiled or float, 3 flat, as the DMA
 * queue holds) whose layout still holds the columns of HTP_MMID_MIN_COLS (or all) tokens, with as many tokens per
 * chunk as fit VTCM and MATMUL_ID_MAX_PAIRS.
 *
 * The HMX path (src/htp/hmx-mm-id.h), chosen at prep time as MUL_MAT's (htp-prep-matmul-hmx.c): supports_op does not
 * change (the HVX plan always exists); a node runs on HMX when (VNPU_MM_PATH=auto)
 *   1. its weight has an FP16 tile expansion: tiled (any of the twelve tiled types), or F16 / F32;
 *   2. K is a multiple of 32;
 *   3. the mean routed rows per expert, n_used * n_tokens / n_expert, reach HTP_MMID_HMX_MIN_ROWS;
 *   4. the plan fits VTCM.
 * VNPU_MM_PATH=hmx drops rule 3, hvx never takes HMX. Its plan: workers as many as the session has (at most one per
 * tile row), then the deepest prefetch whose layout still holds HTP_MMID_HMX_MIN_CHUNK pairs (or all), with as many
 * tokens per chunk as fit VTCM and MATMUL_ID_MAX_PAIRS.
 */
#include "hmx-mm-id.h"
#include "htp-device-impl.h"
#include "matmul-id-ops.h"
#include "matmul-ops.h"

#include "log.h"

#include <stdio.h>
#include <string.h>

/* The thresholds of htp-prep-matmul.c, for the same kernels: one worker per 2^20 multiply-adds; prefetch depth
 * (matmul_plan_hvx's) is given up before a chunk drops below 64 activation columns (each chunk streams every used
 * expert again). */
#define HTP_MMID_MACS_PER_THREAD (1u << 20)
#define HTP_MMID_MIN_COLS        64

/* The HMX path (hmx-mm-id.h): auto takes it when the routed rows per expert, n_used * n_tokens / n_expert (their
 * mean, as the host does not see the ids), reach HTP_MMID_HMX_MIN_ROWS. Measured with vnpu-test-ops perf on the
 * Mixtral-like rows (Q4_0 tiled, K 4096, M 2048, 8 experts, 2 used; VNPU_NHVX default 2; us/run, VNPU_MM_PATH=hvx
 * against =hmx, on a loaded 2-core host): 1 token (0.25 rows per expert): 3030 / 46000; 64 tokens (16 rows):
 * 126000 / 161000; 512 tokens (128 rows): 779000 / 759000. Every expert used pays a whole FP16 expansion of its
 * weights per chunk, which only enough rows amortise; the two tie near 128 rows, MUL_MAT's HTP_MM_HMX_MIN_COLS.
 * Prefetch depth is given up before a chunk drops below HTP_MMID_HMX_MIN_CHUNK pairs. */
#define HTP_MMID_HMX_MIN_ROWS  128
#define HTP_MMID_HMX_MIN_CHUNK 128

/* The largest tokens per chunk (at most n) whose layout fits vtcm, 0 if not even one. */
static uint32_t mmid_fit_tokens(struct matmul_id_kparams *kp, uint32_t n, uint32_t ne11, uint32_t n_used, size_t vtcm) {
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        const uint32_t mid = hi - (hi - lo) / 2;
        kp->tokens_chunk = mid;
        kp->cols_chunk = mid * ne11;
        kp->pairs_chunk = mid * n_used;
        if (matmul_id_plan_layout(kp).total <= vtcm) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    kp->tokens_chunk = lo;
    kp->cols_chunk = lo * ne11;
    kp->pairs_chunk = lo * n_used;
    return lo;
}

/* The plan of node on d with the weight tiled or flat; false, with why, when there is none. */
static bool mmid_plan(const struct htp_device *d, const struct vnpu_tensor *node, bool tiled,
                      struct matmul_id_kparams *kp, char *why, size_t size) {
    const struct vnpu_tensor *w = node->src[0], *x = node->src[1], *ids = node->src[2];
    memset(kp, 0, sizeof(*kp));
    if (x->type != VNPU_TYPE_F32 || ids->type != VNPU_TYPE_I32 || node->type != VNPU_TYPE_F32) {
        snprintf(why, size, "activations %s, ids %s -> %s (f32, i32 -> f32)", vnpu_type_name(x->type),
                 vnpu_type_name(ids->type), vnpu_type_name(node->type));
        return false;
    }
    if (w->nb[0] != vnpu_type_size_of(w) || x->nb[0] != sizeof(float) || ids->nb[0] != sizeof(int32_t)) {
        snprintf(why, size, "'%s', '%s' or '%s' has elements that are not dense along a row", w->name, x->name,
                 ids->name);
        return false;
    }
    const int64_t ne00 = w->ne[0], n_expert = w->ne[2], ne11 = x->ne[1], n_used = ids->ne[0];
    if (!vnpu_is_contiguous(node) || w->ne[3] != 1 || x->ne[3] != 1 || n_used % ne11 != 0 ||
        n_expert > MATMUL_ID_MAX_EXPERTS || n_used > MATMUL_ID_MAX_PAIRS || ne00 > MATMUL_MAX_K) {
        snprintf(why, size, "result not contiguous, %lld experts (at most %d), %lld used (at most %d), K = %lld",
                 (long long) n_expert, MATMUL_ID_MAX_EXPERTS, (long long) n_used, MATMUL_ID_MAX_PAIRS,
                 (long long) ne00);
        return false;
    }
    const uint32_t k = (uint32_t) ne00;
    struct matmul_plan *p = &kp->plan;
    uint32_t max_prefetch;
    if (!matmul_plan_hvx(p, (uint32_t) w->type, tiled, (uint64_t) ne00, (uint32_t) w->ne[1], &max_prefetch)) {
        snprintf(why, size, "no NPU kernel for %s weights", vnpu_type_name(w->type));
        return false;
    }
    const uint32_t n_tokens = (uint32_t) ids->ne[1];

    const uint64_t macs = (uint64_t) ne00 * (uint64_t) w->ne[1] * (uint64_t) n_used * n_tokens;
    uint64_t nt = macs / HTP_MMID_MACS_PER_THREAD;
    nt = nt < 1 ? 1 : nt > d->n_threads ? d->n_threads : nt;
    nt = nt > p->n_col_tiles ? p->n_col_tiles : nt;
    const uint32_t max_tokens = HEX_MIN(n_tokens, MATMUL_ID_MAX_PAIRS / (uint32_t) n_used);
    const uint32_t min_tokens = HEX_MIN(max_tokens, (HTP_MMID_MIN_COLS + (uint32_t) ne11 - 1) / (uint32_t) ne11);
    const size_t vtcm = d->target.vtcm_size;
    for (; nt >= 1; nt--) {
        p->n_threads = (uint32_t) nt;
        for (uint32_t np = max_prefetch; np >= 1; np--) {
            p->n_prefetch = np;
            const uint32_t tokens = mmid_fit_tokens(kp, max_tokens, (uint32_t) ne11, (uint32_t) n_used, vtcm);
            if (tokens >= min_tokens || (np == 1 && tokens >= 1)) {
                p->n_act_threads = HEX_MIN(p->n_threads, kp->cols_chunk);
                matmul_plan_set_divs(p, (uint32_t) ne11, (uint32_t) x->ne[2]);
                return true;
            }
        }
    }
    snprintf(why, size, "one weight tile row and one token's columns of K = %u do not fit %zu bytes of VTCM", k, vtcm);
    return false;
}

/* The largest tokens per chunk (at most n) whose HMX layout fits vtcm, 0 if not even one. */
static uint32_t mmid_hmx_fit_tokens(struct matmul_id_kparams *kp, uint32_t n, uint32_t ne11, uint32_t n_used,
                                    uint32_t n_expert, size_t vtcm) {
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        const uint32_t mid = hi - (hi - lo) / 2;
        kp->pairs_chunk = mid * n_used;
        kp->act_tile_rows = hmx_mm_id_act_tile_rows(kp->pairs_chunk, n_expert);
        if (matmul_id_plan_layout(kp).total <= vtcm) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    kp->tokens_chunk = lo;
    kp->cols_chunk = lo * ne11;
    kp->pairs_chunk = lo * n_used;
    kp->act_tile_rows = hmx_mm_id_act_tile_rows(kp->pairs_chunk, n_expert);
    return lo;
}

/* The HMX plan of node (one mmid_plan accepts) with its weight tiled or not; false when there is none: a weight
 * without an FP16 tile expansion (a flat quantized one), K not a multiple of 32, or not even one token fits. */
static bool mmid_hmx_plan(const struct htp_device *d, const struct vnpu_tensor *node, bool tiled,
                          struct matmul_id_kparams *kp) {
    const struct vnpu_tensor *w = node->src[0], *x = node->src[1], *ids = node->src[2];
    const uint32_t n_used = (uint32_t) ids->ne[0], n_tokens = (uint32_t) ids->ne[1];
    struct matmul_plan *p = &kp->plan;
    uint32_t max_prefetch;
    memset(kp, 0, sizeof(*kp));
    if (!matmul_plan_hmx(p, (uint32_t) w->type, tiled, (uint64_t) w->ne[0], (uint32_t) w->ne[1], &max_prefetch)) {
        return false;
    }
    const uint32_t max_tokens = HEX_MIN(n_tokens, MATMUL_ID_MAX_PAIRS / n_used);
    const uint32_t min_tokens = HEX_MIN(max_tokens, (HTP_MMID_HMX_MIN_CHUNK + n_used - 1) / n_used);
    const size_t vtcm = d->target.vtcm_size;
    for (uint32_t nt = HEX_MIN(d->n_threads, p->n_col_tiles); nt >= 1; nt--) {
        p->n_threads = nt;
        for (uint32_t np = max_prefetch; np >= 1; np--) {
            p->n_prefetch = np;
            const uint32_t tokens =
                mmid_hmx_fit_tokens(kp, max_tokens, (uint32_t) x->ne[1], n_used, (uint32_t) w->ne[2], vtcm);
            if (tokens >= min_tokens || (np == 1 && tokens >= 1)) {
                p->n_act_threads = nt;
                matmul_plan_set_divs(p, (uint32_t) x->ne[1], (uint32_t) x->ne[2]);
                return true;
            }
        }
    }
    return false;
}

/* Whether node runs on HMX (VNPU_MM_PATH and the rule at the top), its plan then in kp. */
static bool mmid_hmx_pick(const struct htp_device *d, const struct vnpu_tensor *node, bool tiled,
                          struct matmul_id_kparams *kp) {
    const struct vnpu_tensor *w = node->src[0], *ids = node->src[2];
    switch ((enum htp_mm_path) d->cfg->mm_path) {
        case HTP_MM_PATH_HVX: return false;
        case HTP_MM_PATH_HMX: break;
        case HTP_MM_PATH_AUTO:
            if (ids->ne[0] * ids->ne[1] < HTP_MMID_HMX_MIN_ROWS * w->ne[2]) {
                return false;
            }
            break;
    }
    return mmid_hmx_plan(d, node, tiled, kp);
}

static bool matmul_id_supports(const struct htp_device *d, const struct vnpu_tensor *node, uint32_t opcode, char *why,
                               size_t size) {
    const struct vnpu_tensor *w = node->src[0];
    struct matmul_id_kparams kp;
    (void) opcode;
    return mmid_plan(d, node, false, &kp, why, size) &&
           (!htp_matmul_tiled_weight(w->type, w->ne) || mmid_plan(d, node, true, &kp, why, size));
}

static void matmul_id_prep(const struct htp_device *d, const struct vnpu_tensor *node, const struct vnpu_tensor *fused,
                           uint32_t opcode, struct htp_op_desc *op, const struct vnpu_tensor **src,
                           const struct vnpu_tensor **dst) {
    struct matmul_id_kparams *kp = (struct matmul_id_kparams *) op->kparams;
    char why[192];
    (void) fused, (void) opcode;
    src[0] = node->src[0];
    src[1] = node->src[1];
    src[2] = node->src[2];
    dst[0] = node;
    const bool tiled = htp_buffer_tensor_tiled(src[0]);
    if (mmid_hmx_pick(d, node, tiled, kp)) {
        return;
    }
    VNPU_ASSERT(mmid_plan(d, node, tiled, kp, why, sizeof(why)));
}

const struct htp_op_family htp_family_matmul_id = {.supports = matmul_id_supports, .prep = matmul_id_prep};
