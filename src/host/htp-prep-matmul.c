/*
 * MUL_MAT on the host (src/htp/matmul-ops.h): what HTP devices accept, and the kernel_params of an accepted node.
 *
 * Accepted: dst F32; src1 F32 with dense rows (any strides across rows: the permuted views of attention without
 * flash attention); src0 F32, F16, or a block type with NPU kernels (matmul_qtype_get: the twelve tiled types), rows of
 * dense elements or blocks, any strides across rows, broadcast over dims 2 and 3 as GGML; the whole plan in VTCM.
 * Refused with a reason: other weight types, src1 or dst types other than F32, elements not dense, a plan that does not
 * fit (a K so large that one weight tile row and one activation column exceed VTCM).
 *
 * Whether a weight is tiled does not change the answer (seed, "supports_op Independence"): for a type with a tiled
 * layout both plans must exist; prep picks the one of the weight's actual layout (htp_buffer_tensor_tiled).
 *
 * The plan: the jobs (tile rows of each weight matrix) over the workers, at most one worker per
 * HTP_MM_MACS_PER_THREAD multiply-adds; then the deepest weight prefetch (MATMUL_MAX_PREFETCH down to 1) whose
 * layout still holds HTP_MM_MIN_COLS activation columns (or all of them), with as many columns per chunk as fit.
 */
#include "htp-device-impl.h"
#include "matmul-ops.h"

#include "htp-tiles.h"
#include "log.h"
#include "repack.h"

#include <stdio.h>
#include <string.h>

/* Thresholds of the plan (its prefetch depths are matmul_plan_hvx's). HTP_MM_MACS_PER_THREAD: one worker does 2 G
 * (F16) to 8 G (Q4_0) multiply-adds/s in the emulation (vnpu-test-ops perf, MUL_MAT 2048 x 2048 x 1 with
 * VNPU_NHVX=1), and handing a job to a parked worker costs tens of microseconds on the 2-core build machine; 2^20
 * (0.13 to 0.5 ms of work) per extra worker keeps the small matmuls of a tiny model on the caller. HTP_MM_MIN_COLS: a
 * chunk re-streams every weight, so prefetch depth is given up before the chunk drops below this many columns. */
#define HTP_MM_MACS_PER_THREAD (1u << 20)
#define HTP_MM_MIN_COLS        64

/* Whether a weight of this type and shape is stored tiled in a REPACK buffer: a type with tiled kernels and a shape
 * the repack takes. */
bool htp_matmul_tiled_weight(enum vnpu_type type, const int64_t ne[VNPU_MAX_DIMS]) {
    struct matmul_qtype qt;
    struct htp_tile_geom g;
    return matmul_qtype_get((uint32_t) type, &qt) && htp_tile_geom_get((enum htp_type) type, &g) &&
           repack_supported(type, ne);
}

/* The largest columns per chunk (at most n) whose layout fits VTCM, 0 if not even one. */
static uint32_t mm_fit_cols(struct matmul_kparams *kp, uint32_t n, size_t vtcm) {
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        kp->cols_chunk = hi - (hi - lo) / 2;
        if (matmul_plan_layout(kp).total <= vtcm) {
            lo = kp->cols_chunk;
        } else {
            hi = kp->cols_chunk - 1;
        }
    }
    kp->cols_chunk = lo;
    return lo;
}

/* The plan of node on d with the weight tiled or flat; false, with why, when there is none. */
static bool mm_plan(const struct htp_device *d, const struct vnpu_tensor *node, bool tiled, struct matmul_kparams *kp,
                    char *why, size_t size) {
    const struct vnpu_tensor *w = node->src[0], *x = node->src[1];
    memset(kp, 0, sizeof(*kp));
    struct matmul_plan *p = &kp->plan;
    uint32_t max_prefetch;
    if (!matmul_plan_hvx(p, (uint32_t) w->type, tiled, (uint64_t) w->ne[0], (uint32_t) w->ne[1], &max_prefetch)) {
        snprintf(why, size, "no NPU kernel for %s weights", vnpu_type_name(w->type));
        return false;
    }
    if (x->type != VNPU_TYPE_F32 || node->type != VNPU_TYPE_F32) {
        snprintf(why, size, "activations %s -> %s (f32 -> f32)", vnpu_type_name(x->type), vnpu_type_name(node->type));
        return false;
    }
    if (w->nb[0] != vnpu_type_size_of(w) || x->nb[0] != sizeof(float)) {
        snprintf(why, size, "'%s' or '%s' has elements that are not dense along a row", w->name, x->name);
        return false;
    }
    if (!vnpu_is_contiguous(node) || x->ne[2] % w->ne[2] != 0 || x->ne[3] % w->ne[3] != 0) {
        snprintf(why, size, "result not contiguous, or '%s' not broadcast over '%s'", w->name, x->name);
        return false;
    }
    const uint64_t ne00 = (uint64_t) w->ne[0], n_cols = (uint64_t) x->ne[1] * x->ne[2] * x->ne[3];
    if (ne00 > MATMUL_MAX_K || n_cols > UINT32_MAX) {
        snprintf(why, size, "K = %llu or %llu columns exceed the kernel's counters", (unsigned long long) ne00,
                 (unsigned long long) n_cols);
        return false;
    }
    const uint32_t k = (uint32_t) ne00;
    kp->n_cols = (uint32_t) n_cols;
    kp->group_cols = (uint32_t) (x->ne[1] * (x->ne[2] / w->ne[2]));

    const uint64_t n_jobs = (uint64_t) w->ne[2] * x->ne[3] * p->n_col_tiles;
    const uint64_t macs = ne00 * (uint64_t) w->ne[1] * n_cols;
    uint64_t nt = macs / HTP_MM_MACS_PER_THREAD;
    nt = nt < 1 ? 1 : nt > d->n_threads ? d->n_threads : nt;
    nt = nt > n_jobs ? n_jobs : nt;
    const size_t vtcm = d->target.vtcm_size;
    for (; nt >= 1; nt--) {
        p->n_threads = (uint32_t) nt;
        for (uint32_t np = max_prefetch; np >= 1; np--) {
            p->n_prefetch = np;
            const uint32_t cols = mm_fit_cols(kp, kp->n_cols, vtcm);
            if (cols >= HEX_MIN(kp->n_cols, HTP_MM_MIN_COLS) || (np == 1 && cols >= 1)) {
                p->n_act_threads = HEX_MIN(p->n_threads, kp->n_cols);
                matmul_kparams_set_divs(kp, (uint32_t) x->ne[1], (uint32_t) x->ne[2], (uint32_t) x->ne[3],
                                        (uint32_t) w->ne[2], (uint32_t) w->ne[3]);
                return true;
            }
        }
    }
    snprintf(why, size, "one weight tile row and one activation column of K = %u do not fit %zu bytes of VTCM", k,
             vtcm);
    return false;
}

static bool matmul_supports(const struct htp_device *d, const struct vnpu_tensor *node, uint32_t opcode, char *why,
                            size_t size) {
    const struct vnpu_tensor *w = node->src[0];
    struct matmul_kparams kp;
    (void) opcode;
    return mm_plan(d, node, false, &kp, why, size) &&
           (!htp_matmul_tiled_weight(w->type, w->ne) || mm_plan(d, node, true, &kp, why, size));
}

static void matmul_prep(const struct htp_device *d, const struct vnpu_tensor *node, const struct vnpu_tensor *fused,
                        uint32_t opcode, struct htp_op_desc *op, const struct vnpu_tensor **src,
                        const struct vnpu_tensor **dst) {
    struct matmul_kparams *kp = (struct matmul_kparams *) op->kparams;
    char why[192];
    (void) fused, (void) opcode;
    src[0] = node->src[0];
    src[1] = node->src[1];
    dst[0] = node;
    const bool tiled = htp_buffer_tensor_tiled(src[0]);
    if (htp_matmul_hmx_pick(d, node, tiled, kp)) {
        return;
    }
    VNPU_ASSERT(mm_plan(d, node, tiled, kp, why, sizeof(why)));
}

const struct htp_op_family htp_family_matmul = {.supports = matmul_supports, .prep = matmul_prep};
