/*
 * MUL_MAT's HMX path on the host (src/htp/hmx-mm.h): when a node takes it, and its kernel_params.
 *
 * supports_op does not change: a node the NPU takes always has an HVX plan (htp-prep-matmul.c), since whether its
 * weight is tiled is unknown then. At prep time the weight's layout is known, and the node runs on HMX instead when
 * (VNPU_MM_PATH=auto, the default)
 *   1. its weight has an FP16 tile expansion: a tiled REPACK weight (any of the twelve tiled types), or F16 / F32;
 *   2. K (ne00) is a multiple of 32;
 *   3. a group (the columns that share one weight matrix) has at least HTP_MM_HMX_MIN_COLS columns;
 *   4. the plan fits VTCM.
 * VNPU_MM_PATH=hmx drops rule 3 (HMX wherever it can run: the tests force it so); VNPU_MM_PATH=hvx never takes HMX.
 *
 * The plan: workers as many as the session has (at most one per job of a chunk), HMX being one unit for all of them
 * and the others expanding weights meanwhile; then the deepest weight prefetch (HMX_MM_MAX_PREFETCH down to 1) whose
 * layout still holds HTP_MM_HMX_MIN_CHUNK columns (or all of them), with as many columns per chunk as fit: every
 * chunk expands the whole weight again, so fewer chunks come first.
 */
#include "htp-device-impl.h"
#include "hmx-mm.h"
#include "matmul-ops.h"

#include "log.h"

#include <string.h>

/* HTP_MM_HMX_MIN_COLS: the smallest group of columns auto sends to HMX. The rule is the hardware's, not the
 * emulation's: on a device HMX multiplies a 32 x 32 FP16 tile pair per instruction and the real backend sends prompt
 * batches to it, so auto does the same and traces show what a device would run. On this host the emulation of HMX is
 * the slower of the two: vnpu-bench mul_mat, 2048 x 2048 Q4_0 weight in HTP0-REPACK, VNPU_NHVX default (2), idle
 * 2-vCPU AVX2 host, median us, VNPU_MM_PATH=hvx / =hmx: N = 32: 5190 / 10600, 64: 9980 / 20100, 128: 20500 / 31700,
 * 256: 40900 / 61700, 512: 79700 / 118300 (HMX's emulation runs on one thread, the unit's, and pads groups to whole
 * tiles). 128 columns is where a device's HMX is well ahead (a group of fewer pads more); VNPU_MM_PATH=hvx is the
 * faster choice for runs on a host that care only for speed. HTP_MM_HMX_MIN_CHUNK: prefetch depth is given up
 * before the chunk drops below this many columns. */
#define HTP_MM_HMX_MIN_COLS  128
#define HTP_MM_HMX_MIN_CHUNK 128

/* The largest columns per chunk, a multiple of 32 and at most max, whose layout fits vtcm bytes; 0 if not even 32. */
static uint32_t hmx_fit_cols(struct matmul_kparams *kp, uint32_t max, size_t vtcm) {
    uint32_t lo = 0, hi = max / HMX_MM_TILE;
    while (lo < hi) {
        const uint32_t mid = hi - (hi - lo) / 2;
        kp->cols_chunk = mid * HMX_MM_TILE;
        if (matmul_plan_layout(kp).total <= vtcm) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    kp->cols_chunk = lo * HMX_MM_TILE;
    return kp->cols_chunk;
}

/* The HMX plan of node (a MUL_MAT htp_family_matmul supports) with its weight tiled or not; false when there is
 * none. */
static bool hmx_plan(const struct htp_device *d, const struct vnpu_tensor *node, bool tiled,
                     struct matmul_kparams *kp) {
    const struct vnpu_tensor *w = node->src[0], *x = node->src[1];
    struct matmul_plan *p = &kp->plan;
    uint32_t max_prefetch;
    memset(kp, 0, sizeof(*kp));
    if (!matmul_plan_hmx(p, (uint32_t) w->type, tiled, (uint64_t) w->ne[0], (uint32_t) w->ne[1], &max_prefetch)) {
        return false;
    }
    kp->n_cols = (uint32_t) (x->ne[1] * x->ne[2] * x->ne[3]);
    kp->group_cols = (uint32_t) (x->ne[1] * (x->ne[2] / w->ne[2]));

    const uint32_t max_cols = hex_align_up(kp->n_cols, HMX_MM_TILE);
    const uint64_t n_jobs = (uint64_t) p->n_col_tiles * ((kp->n_cols + kp->group_cols - 1) / kp->group_cols);
    const size_t vtcm = d->target.vtcm_size;
    for (uint64_t nt = HEX_MIN(d->n_threads, n_jobs); nt >= 1; nt--) {
        p->n_threads = (uint32_t) nt;
        for (uint32_t np = max_prefetch; np >= 1; np--) {
            p->n_prefetch = np;
            const uint32_t cols = hmx_fit_cols(kp, max_cols, vtcm);
            if (cols >= HEX_MIN(max_cols, HTP_MM_HMX_MIN_CHUNK) || (np == 1 && cols >= HMX_MM_TILE)) {
                p->n_act_threads = HEX_MIN(p->n_threads, cols / 2);
                matmul_kparams_set_divs(kp, (uint32_t) x->ne[1], (uint32_t) x->ne[2], (uint32_t) x->ne[3],
                                        (uint32_t) w->ne[2], (uint32_t) w->ne[3]);
                return true;
            }
        }
    }
    return false;
}

bool htp_matmul_hmx_pick(const struct htp_device *d, const struct vnpu_tensor *node, bool tiled,
                         struct matmul_kparams *kp) {
    const struct vnpu_tensor *w = node->src[0], *x = node->src[1];
    switch ((enum htp_mm_path) d->cfg->mm_path) {
        case HTP_MM_PATH_HVX: return false;
        case HTP_MM_PATH_HMX: break;
        case HTP_MM_PATH_AUTO:
            if (x->ne[1] * (x->ne[2] / w->ne[2]) < HTP_MM_HMX_MIN_COLS) {
                return false;
            }
            break;
    }
    return hmx_plan(d, node, tiled, kp);
}
