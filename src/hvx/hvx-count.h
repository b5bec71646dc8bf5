/*
 * Counting build: what a kernel executed, by HVX instruction class and HMX operation, per thread.
 *
 * When VNPU_HVX_COUNT is defined (CMake option VNPU_HVX_COUNT, or linking vnpu-hvx-counted), every
 * emulated Q6_* intrinsic and every hmx_* operation adds one to its counter in the calling thread's
 * struct hvx_counts; otherwise HVX_COUNT() expands to nothing and the emulation pays nothing. The cost
 * model (src/perf/) reads the counters with hvx_counts_read() around an op and turns them into packets
 * per resource.
 *
 * Classes are the "Instruction Type" of the Hexagon HVX intrinsic headers (hvx_hexagon_protos.h), and
 * each class occupies HVX resources as the V79 HVX manual's resource model describes (seed 002, §1.2.3:
 * one load, one store, one shift, one permute and two multiply resources; ALU instructions take any
 * one of them; some instructions take two). tests/hvx/test-hvx-count.c checks every intrinsic's class
 * against clang's header. Q6_V_lo_W and Q6_V_hi_W name a register of a pair and count nothing.
 *
 * Scopes: a kernel function that opens with HVX_SCOPE() also counts its HVX instructions under its own name (its
 * scope, until it returns; a scoped function it calls counts under that one's), so the cost model can price each
 * function's instructions with the packets the Hexagon compiler made of its hot loop (scripts/hvx-inspect.py
 * --calibrate). Instructions outside every scope count under scope 0, "other". HVX_SCOPE_TRIP() at the top of a scoped
 * function's hot loop counts that loop's iterations, the trips the calibration's packets per iteration multiply.
 *
 *   class    uses                          examples
 *   LD       load                          vmem loads, vextract
 *   ST       store                         vmem stores, predicated stores
 *   VA       1 of any resource (ALU)       vadd, vand, vcmp, vmux
 *   VA_DV    2 of any resource (ALU pair)  vadd on pairs, vswap, vcombine, vsxt
 *   VX       1 multiply                    vrmpy (all forms), vsplat, vdmpy:sat, sf add
 *   VX_DV    2 multiply (both units)       widening vmpy, vmpyi, vmpyie, qf32 mpy
 *   VS       shift                         vasr, vlsr, vround, qf16/qf32 add, qf32 -> hf
 *   VP       permute                       vdelta, vshuff(Vu), vpack, valign, vlut32
 *   VP_VS    permute + shift               vshuff/vdeal(Vu,Vv,Rt), vunpack, vlut16
 *   GATHER   load + store (VTCM)           vgather
 *   SCATTER  store (VTCM)                  vscatter
 */
#ifndef VNPU_HVX_COUNT_H
#define VNPU_HVX_COUNT_H

#include <stdint.h>

enum hvx_class {
    HVX_CLASS_LD = 0,
    HVX_CLASS_ST,
    HVX_CLASS_VA,
    HVX_CLASS_VA_DV,
    HVX_CLASS_VX,
    HVX_CLASS_VX_DV,
    HVX_CLASS_VS,
    HVX_CLASS_VP,
    HVX_CLASS_VP_VS,
    HVX_CLASS_GATHER,
    HVX_CLASS_SCATTER,
    HVX_CLASS_COUNT,
};

/* HMX operations, each on one 32x32 FP16 tile (hmx.h). */
enum hmx_op {
    HMX_OP_ACC_CLEAR = 0, /* zero the FP32 accumulators */
    HMX_OP_TILE_MAC,      /* one activation tile x one weight tile into the accumulators (32x32x32 MACs) */
    HMX_OP_ACC_STORE,     /* convert the accumulators to an FP16 output tile with column scale and bias */
    HMX_OP_COUNT,
};

/* HVX resources of the packet model, for hvx_class_info[].units. */
enum hvx_resource {
    HVX_RES_LOAD = 0,
    HVX_RES_STORE,
    HVX_RES_SHIFT,
    HVX_RES_PERMUTE,
    HVX_RES_MPY, /* two units */
    HVX_RES_ALU, /* any one resource: counted separately, the cost model spreads it */
    HVX_RES_COUNT,
};

struct hvx_class_info {
    const char *name;             /* "VX_DV", as in the intrinsic headers' "CVI_VX_DV" */
    uint8_t units[HVX_RES_COUNT]; /* resource units one instruction of the class occupies */
};

/* One row per class; indexed by enum hvx_class. */
extern const struct hvx_class_info hvx_class_info[HVX_CLASS_COUNT];

/* Names of the HMX operations ("TILE_MAC", ...), indexed by enum hmx_op. */
extern const char *const hmx_op_name[HMX_OP_COUNT];

/* Scopes a process can name (scope 0, "other", included); more names than that count as "other". */
#define HVX_MAX_SCOPES 64

struct hvx_counts {
    uint64_t hvx[HVX_CLASS_COUNT];  /* intrinsics executed, by class */
    uint64_t hmx[HMX_OP_COUNT];     /* HMX operations, by op */
    uint64_t scope[HVX_MAX_SCOPES]; /* intrinsics executed, by scope (hvx_scope_name) */
    uint64_t trips[HVX_MAX_SCOPES]; /* iterations of each scope's hot loop (HVX_SCOPE_TRIP) */
};

/* The calling thread's counters and its current scope. Only the counting build writes them. */
extern _Thread_local struct hvx_counts hvx_counts_tls;
extern _Thread_local uint8_t hvx_scope_tls;

/* The scope of the function named name (a string that lives as long as the process, __func__), registered at its
 * first use: 1..HVX_MAX_SCOPES - 1, or 0 ("other") when every scope is taken. Thread-safe. */
uint8_t hvx_scope_register(const char *name);
/* The name of scope id ("other" for 0), NULL for an id not registered. */
const char *hvx_scope_name(uint8_t id);
/* Scopes registered so far, "other" included (ids 0 .. n - 1). */
uint32_t hvx_scope_count(void);

/* Copy the calling thread's counters into *out (all zero when the build does not count). */
void hvx_counts_read(struct hvx_counts *out);

/* Zero the calling thread's counters. */
void hvx_counts_reset(void);

/* *acc += *add, field by field (to sum per-thread counts of an op). */
void hvx_counts_add(struct hvx_counts *acc, const struct hvx_counts *add);

/* HVX_SCOPE()'s exit: back to the caller's scope. */
static inline void hvx_scope_leave(const uint8_t *prev) {
    hvx_scope_tls = *prev;
}

#ifdef VNPU_HVX_COUNT
#define HVX_COUNT(cls) ((void) (hvx_counts_tls.hvx[HVX_CLASS_##cls]++, hvx_counts_tls.scope[hvx_scope_tls]++))
#define HMX_COUNT(op)  ((void) hvx_counts_tls.hmx[HMX_OP_##op]++)
/* The first statement of a scoped function: its instructions count under its name until it returns. */
#define HVX_SCOPE()                                                                                  \
    static uint8_t hvx_scope_id_;                                                                    \
    uint8_t hvx_scope_now_ = __atomic_load_n(&hvx_scope_id_, __ATOMIC_RELAXED);                      \
    if (hvx_scope_now_ == 0) {                                                                       \
        hvx_scope_now_ = hvx_scope_register(__func__);                                               \
        __atomic_store_n(&hvx_scope_id_, hvx_scope_now_, __ATOMIC_RELAXED);                          \
    }                                                                                                \
    const uint8_t hvx_scope_prev_ __attribute__((unused, cleanup(hvx_scope_leave))) = hvx_scope_tls; \
    hvx_scope_tls = hvx_scope_now_
/* The first statement of the body of a scoped function's hot loop (the loop its calibration line describes). */
#define HVX_SCOPE_TRIP() ((void) hvx_counts_tls.trips[hvx_scope_tls]++)
#else
#define HVX_COUNT(cls)   ((void) 0)
#define HMX_COUNT(op)    ((void) 0)
#define HVX_SCOPE()      ((void) 0)
#define HVX_SCOPE_TRIP() ((void) 0)
#endif

#endif /* VNPU_HVX_COUNT_H */
