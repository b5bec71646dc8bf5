/*
 * The driver of MUL_MAT and MUL_MAT_ID on either path, written once (matmul-driver.c): the state of an op being run
 * (struct matmul_run, filled by the entries op_matmul and op_matmul_id), the split of a chunk over the workers, and
 * the two workers every chunk runs, matmul_worker_prep and then matmul_worker_compute. The four drivers (HVX:
 * matmul-ops.c, matmul-id-ops.c; HMX: hmx-mm.c, hmx-mm-id.c) differ only in their hooks (struct matmul_hooks), which
 * the entry puts in the run: what a unit computes, and on HMX which activation tile rows it multiplies and which src1
 * column a prep row is.
 *
 * Jobs and units. A job is one tile row (32 weight rows) of one group's weight matrix (MUL_MAT), or of every expert
 * the chunk uses (MUL_MAT_ID); a unit is one weight tile row a job streams: (group g, tile row ct, k), k being the
 * used expert (MUL_MAT_ID: units_per_job of them) or 0 (MUL_MAT: one unit per job). Jobs run group-major over the
 * device's tile rows [ct_start, ct_start + n_ct), a worker taking a range of them. A job's units write its dst rows
 * (MUL_MAT: the chunk's columns of its group; MUL_MAT_ID: all the chunk's pairs, one group) into one dst slot, which
 * goes back to DDR in one 2-D write-back after the job's last unit.
 *
 * Compute worker (matmul_worker_compute), with p = n_prefetch slots, each a weight tile row buffer and a dst slot; push
 * order W(0) E'(0) .. W(p - 1) E'(p - 1), then per unit W(i + p) E(i), which the pops take in the same order:
 *     prologue  for each slot s: push the weights of unit s (a dummy past the range), then a dummy E' ("dst slot s
 *               is free")
 *     unit i    pop its weights W(i) (slot i mod p); HMX: expand them into the FP16 weight tile row, push W(i + p)
 *               into the slot just freed, multiply on HMX into output tiles; pop E(i - p): the job's dst slot (job j
 *               of the worker: slot j mod p) has no write-back in flight; compute into it (HVX: the weight tile row
 *               against the unit's columns; HMX: the output tiles widened); HVX: push W(i + p); push E(i), the job's
 *               write-back after its last unit (its dst rows x the valid weight rows), else a dummy
 *     epilogue  pop the p dummy weight DMAs and the p entries left
 * Job j's slot was last written by job j - p, whose write-back is pushed at its last unit and popped p units later, no
 * later than job j's first unit pops its entry, which is before anything is written into the slot (in strict DMA mode
 * the copy happens at the pop: nothing is overwritten before it is copied). Units past the range push zero-row
 * dummies, so every unit pops what the unit p before it pushed.
 *
 * Prep worker (matmul_worker_prep), a range of the chunk's prep items: a column (HVX: prepared into the activation area
 * by act-quant.h) or a column pair (HMX: narrowed into a vector of each FP16 tile of its tile row), one or two f32 src1
 * rows DMA'd into one of two staging slots:
 *     prologue  push the rows of its first two items (a padding column, or an item past the range: a dummy)
 *     item      pop its rows, prepare them, push the rows of item + 2 into the same slot
 *     epilogue  pop the dummies of the two items past the range
 */
#ifndef VNPU_MATMUL_DRIVER_H
#define VNPU_MATMUL_DRIVER_H

#include "hex-common.h"
#include "hex-fastdiv.h"
#include "hmx-mm-id.h"
#include "htp-ctx.h"
#include "matmul-id-ops.h"
#include "matmul-ops.h"
#include "matmul-weights.h"

#include <stdbool.h>
#include <stdint.h>

#define MATMUL_NO_COL UINT32_MAX /* a prep row that is a padding column */

/* A MUL_MAT or MUL_MAT_ID op being run: its operands, plan, layout and weights, this device's tile rows, how a unit
 * finds its weight matrix, and the chunk being computed. Every worker's arg. */
struct matmul_run {
    struct htp_op_ctx *octx;
    const struct matmul_plan *plan;
    const struct matmul_hooks *hooks; /* the driver's: its op and the plan's path */
    const struct htp_tensor *src0, *src1, *dst;
    struct matmul_layout layout;
    struct matmul_weights wt;       /* src0: its DMA and the path's kernels */
    uint8_t *act;                   /* the activation area in VTCM */
    bool compute;                   /* false under SKIP_COMPUTE: only the DMA runs */
    uint32_t ct_start, n_ct;        /* this device's tile rows of each matrix */
    struct fastdiv_values div_n_ct; /* of n_ct: a worker's first job -> (group, tile row) */
    uint32_t group_rows;            /* dst rows of a group: MUL_MAT's group_cols; MUL_MAT_ID UINT32_MAX (one group) */
    const struct fastdiv_values *div_ne02, *div_r3; /* MUL_MAT: group -> weight matrix (i02, i03) */
    const struct matmul_id_route *route;            /* MUL_MAT_ID: the chunk's routing (unit k: expert[k]) */
    const struct hmx_mm_id_tiles *tiles;            /* MUL_MAT_ID on HMX: the chunk's activation tile rows */
    /* the chunk being computed */
    uint32_t c0, c1;                  /* its src1 columns; prepared column c at act + (c - c0) * act_row_size */
    uint32_t r0, r1;                  /* its dst rows (MUL_MAT: the columns, MUL_MAT_ID: the pairs): vector j of a
                                         dst slot is row r0 + j */
    uint32_t g0;                      /* the group of its first job */
    uint32_t n_jobs, units_per_job;   /* MUL_MAT: (groups it touches) * n_ct and 1; MUL_MAT_ID: n_ct and its used
                                         experts */
    uint32_t jobs_per_thread;         /* the compute workers' split */
    uint32_t n_prep, prep_per_thread; /* prep items (HVX: columns, HMX: column pairs) and the prep workers' split */
};

/* A unit: tile row ct of group g's matrix (MUL_MAT, k = 0) or of used expert k's (MUL_MAT_ID, g = 0). */
struct matmul_unit {
    uint32_t g, ct, k;
};

/* What a driver does differently (each driver's table; NULL for what its path does not use). */
struct matmul_hooks {
    /* Unit u's results into out, its job's dst slot: on HVX from its weight tile row at in, on HMX from its output
     * tiles at in (act_tiles' tile rows, in order). */
    void (*compute)(const struct matmul_run *r, struct matmul_unit u, const uint8_t *in, HVX_Vector *out);
    /* HMX: the activation tile rows [*first, *first + *n) unit u multiplies. */
    void (*act_tiles)(const struct matmul_run *r, struct matmul_unit u, uint32_t *first, uint32_t *n);
    /* HMX: the src1 column of row h (0, 1) of prep pair pr, MATMUL_NO_COL for a padding column (zeros). */
    uint32_t (*pair_col)(const struct matmul_run *r, uint32_t pr, uint32_t h);
};

/* Start running op octx by plan p with the driver's hooks, p's VTCM layout being layout (the op's shapes checked): p
 * against the session and the operands, the weights on p's path, the DMA depth, the layout against VTCM, this device's
 * tile rows (all n_col_tiles, or its share when devices split the op: whole 128-byte lines of dst rows each where dst
 * allows); then the op's response gets p's path and the workers' FP16 counts are cleared. An htp status. */
uint32_t matmul_run_init(struct matmul_run *r, struct htp_op_ctx *octx, const struct matmul_plan *p,
                         const struct matmul_hooks *hooks, struct matmul_layout layout);

/* After the op's last chunk: on HMX, the workers' FP16 counts (hvx-fp16-range.h) summed into the op's response
 * (matmul_run_init set its path and cleared them). A count is of narrowings: a weight expanded for several chunks of
 * columns, or an activation row several experts take, counts each time. */
void matmul_run_end(const struct matmul_run *r);

/* The chunk's n_jobs jobs over the compute workers and its n_prep prep items over the prep workers; returns how many
 * prep workers to run (no more than items). */
uint32_t matmul_run_split(struct matmul_run *r, uint32_t n_jobs, uint32_t n_prep);

/* The dst rows [*ra, *rb) of group g's jobs: the group's rows within the chunk's. */
static inline void matmul_job_rows(const struct matmul_run *r, uint32_t g, uint32_t *ra, uint32_t *rb) {
    const uint32_t first = g * r->group_rows;
    *ra = HEX_MAX(first, r->r0);
    *rb = HEX_MIN(first + r->group_rows, r->r1);
}

/* The chunk's workers (arg: its struct matmul_run): the prep over n_prep items, then the compute over the plan's
 * n_threads (the pipelines at the top). */
void matmul_worker_prep(unsigned nth, unsigned ith, void *arg);
void matmul_worker_compute(unsigned nth, unsigned ith, void *arg);

#endif /* VNPU_MATMUL_DRIVER_H */
