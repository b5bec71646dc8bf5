/*
 * The cost model: what an op the emulation ran would take on a target (perf-target.h), from what it counted
 * (struct htp_thread_perf, src/htp/htp-msg.h) and the packets the Hexagon compiler made of each kernel's hot loop
 * (the calibration, scripts/hvx-inspect.py --calibrate). docs/targets.md has the parameters and their sources.
 *
 * Per NPU thread of an op:
 *   packets   = sum over its scopes of: the iterations of the scope's hot loop x its packets per iteration as
 *               compiled, plus the scope's instructions beyond those iterations' (the loop's HVX instructions per
 *               iteration as compiled, times the iterations) at the resource bound; a scope whose loop iterations are
 *               not counted (no HVX_SCOPE_TRIP): its instructions x packets / HVX instructions of its hot loop; a scope
 *               without a calibration line: its instructions at the resource bound of its thread's instruction mix
 *               (below), as the whole thread without a calibration file;
 *   resources = the HVX resource bound of its instructions (seed 002, §1.2.3): the most of load, store, shift,
 *               permute (one each), multiply / 2, all resource units / 6, instructions / 4 slots;
 *   cycles    = packets x cycles_per_packet (a thread issues at most one packet every cycles_per_packet cycles) +
 *               DMA descriptors x dma_desc_cycles.
 * Per op:
 *   HVX bound = the slowest thread's cycles, or all threads' cycles over the HVX contexts when more threads had work
 *               than the target has contexts;
 *   DMA bound = the op's DDR bytes (both ways, all queues) over ddr_gbytes_per_s;
 *   HMX bound = its tile operations on the session's one HMX at hmx_fp16_macs_per_cycle;
 *   time      = the largest of the three (the kernels double-buffer: DMA and HMX overlap HVX) + op_us.
 * A request adds request_us, an op of a row-split group two barriers of fence_us.
 * An op the CPU ran instead (the fallback of the graph split) = the bytes it reads and writes over cpu_gbytes_per_s
 * (perf_model_cpu_op): llama.cpp's CPU backend on the SoC, streaming; its arithmetic is not priced.
 */
#ifndef VNPU_PERF_MODEL_H
#define VNPU_PERF_MODEL_H

#include "htp-msg.h"
#include "perf-target.h"
#include "tensor.h"
#include "vnpu.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Which bound set an op's time. */
enum perf_bound {
    PERF_BOUND_PACKETS = 0, /* HVX packets as compiled */
    PERF_BOUND_RESOURCES,   /* HVX resources (instructions without a calibration line dominated) */
    PERF_BOUND_DMA,         /* DDR bandwidth */
    PERF_BOUND_HMX,         /* the HMX */
    PERF_BOUND_FIXED,       /* the per-op cost (no HVX, DMA or HMX work to speak of) */
    PERF_BOUND_CPU,         /* an op the SoC's CPU ran (the graph's fallback): its bytes at cpu_gbytes_per_s */
    PERF_BOUND_COUNT,
};

/* "packets", "resources", "dma", "hmx", "fixed". */
const char *perf_bound_name(enum perf_bound b);

/* A calibration file read (perf_calib_load): packets per HVX instruction of each function's hot loop. */
struct perf_calib;

/* Read the calibration at path (Interface 2 of the cost model: '#' comments, a header line "function packets hvx
 * depth loop", then one tab-separated line of exactly five fields per function, each function once). Errors:
 * VNPU_STATUS_IO (cannot read, a directory too), VNPU_STATUS_BAD_FILE (a malformed or second line of a function:
 * which line and why, logged; no header; no function lines), VNPU_STATUS_NO_MEMORY. */
enum vnpu_status perf_calib_load(const char *path, struct perf_calib **out);
void perf_calib_free(struct perf_calib *c); /* NULL is a no-op */

/* Function name's packets and HVX instructions per iteration of its hot loop; false without a line for it. */
bool perf_calib_find(const struct perf_calib *c, const char *name, uint32_t *packets, uint32_t *hvx);

/* Lines read. */
size_t perf_calib_count(const struct perf_calib *c);

/* One op, modelled. Times in microseconds on the target. */
struct perf_op_time {
    double us;       /* the op: max(hvx_us, dma_us, hmx_us) + fixed_us */
    double hvx_us;   /* HVX bound (descriptor set-up included) */
    double dma_us;   /* DMA bound */
    double hmx_us;   /* HMX bound */
    double fixed_us; /* op_us, and the barriers of a group */
    enum perf_bound bound;
    uint64_t packets;      /* all threads' modelled packets */
    uint64_t hvx;          /* all threads' HVX instructions */
    uint64_t uncalibrated; /* of them, in scopes without a calibration line */
    uint64_t dma_bytes;    /* DDR bytes both ways */
    uint64_t hmx_tiles;    /* HMX tile multiply-accumulates (32x32x32 each) */
};

/* What perf_model_op reports of each scope of each thread: its name ("other" for scope 0), the HVX instructions it
 * executed, its hot loop's iterations (0: not counted), the packets the model made of them, and whether a calibration
 * line priced them. */
typedef void (*perf_scope_fn)(void *arg, const char *name, uint64_t hvx, uint64_t trips, double packets,
                              bool calibrated);

/* Model one op of n_threads thread records th[] (names: the request's scope names) on t with calibration c (NULL:
 * resource bounds only); fenced: the op ran in a row-split group (two barriers). scope (NULL: none) gets each
 * thread's scopes. */
void perf_model_op(const struct perf_target *t, const struct perf_calib *c, const struct htp_thread_perf *th,
                   uint32_t n_threads, const struct htp_perf_names *names, bool fenced, perf_scope_fn scope,
                   void *scope_arg, struct perf_op_time *out);

/* Microseconds the target's SoC CPU takes for an op that reads and writes bytes (all its sources' bytes it touches and
 * its result's), at the target's cpu_gbytes_per_s. */
double perf_model_cpu_op(const struct perf_target *t, uint64_t bytes);

/* The bytes an op the CPU runs streams: its result and the whole of each source, but the rows GET_ROWS gathers of its
 * table and the rows SET_ROWS writes of its result (a KV cache: as many as its first source has; the cache, its third
 * source, is that result). Shared by every cost model that prices the CPU's fallback ops (HTP's, XDNA's). */
uint64_t perf_cpu_op_bytes(const struct vnpu_tensor *node);

/* Whether node is the output layer's MUL_MAT (node result_output), which the reports keep apart; NULL is not. */
bool perf_node_is_output(const struct vnpu_tensor *node);

/* The report row of an op the CPU ran: "CPU <op>" ("CPU MUL_MAT output" for the output layer) into name[0..size). */
void perf_cpu_op_name(const struct vnpu_tensor *node, char *name, size_t size);

#endif /* VNPU_PERF_MODEL_H */
