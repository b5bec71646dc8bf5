/*
 * The AMD XDNA devices vnpu emulates: one table of partitions (NPU1, NPU1Col1, ..., NPU2Col8: the IRON device
 * classes of seed 003, "Devices") and one of tile types (seed 003, "Tile types" and "Hardware limits to
 * remember"). Every value's source, or the assumption it is, is in docs/xdna.md; the tables' comments name it in
 * short. The code reads only these tables.
 */
#ifndef VNPU_XDNA_ARCH_H
#define VNPU_XDNA_ARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum xdna_arch {
    XDNA_ARCH_AIE2,  /* XDNA, Phoenix / Hawk Point: NPU1 */
    XDNA_ARCH_AIE2P, /* XDNA2, Strix / Krackan Point: NPU2 */
};

/* A tile's type is its row: 0 shim, 1 mem tile, 2..5 compute tiles (seed 003, "Tile types"). */
enum xdna_tile_type {
    XDNA_TILE_SHIM,
    XDNA_TILE_MEM,
    XDNA_TILE_COMPUTE,
    XDNA_TILE_TYPE_COUNT,
};

#define XDNA_ROW_SHIM          0
#define XDNA_ROW_MEM           1
#define XDNA_ROW_COMPUTE0      2
#define XDNA_MAX_COLS          8 /* NPU2 */
#define XDNA_COMPUTE_ROWS      4 /* rows 2..5 */
#define XDNA_ROWS              (XDNA_ROW_COMPUTE0 + XDNA_COMPUTE_ROWS)
#define XDNA_BD_MAX_DIMS       4    /* the most any tile type's BD has (the mem tile's) */
#define XDNA_BD_MAX_WRAP       1023 /* a BD dimension's size, 10 bits (targets-and-anchors 3.1: mlir-aie bad_ipu_nd_*) */
#define XDNA_BD_MAX_STRIDE     (1u << 20) /* a BD dimension's stride in 32-bit words, 20 bits (same source) */
#define XDNA_OBJFIFO_MAX_DEPTH 8          /* seed 003: "ObjectFifo depth: practical max ~8 in L1" */

/* What a tile type's DMA can do and what memory the tile has (seed 003's table; lengths in 32-bit words, the
 * DMA's unit: AM020's BD buffer-length field, docs/xdna.md). */
struct xdna_tile_limits {
    const char *name;            /* "shim tile", "mem tile", "compute tile": as messages name it */
    uint32_t bd_dims;            /* (size, stride) dimensions one BD addresses: 3, 4, 3 */
    uint32_t n_bds;              /* BDs per tile: 16, 48, 16 */
    uint64_t max_transfer_words; /* the most 32-bit words one BD moves: 2^32 - 1, 2^17 - 1, 2^14 - 1 */
    size_t mem_bytes;            /* the tile's data memory: 0 (the shim reaches DDR), 512 KB L2, 64 KB L1 */
    uint32_t s2mm_channels;      /* DMA channels from the stream into the tile's memory (shim: into DDR): 2, 6, 2 */
    uint32_t mm2s_channels;      /* from its memory to the stream (shim: out of DDR): 2, 6, 2 */
};

#define XDNA_MAX_CHANNELS 6 /* the most DMA channels a tile has in one direction (the mem tile's) */

/* One partition: an NPU or the columns of it a run may use. */
struct xdna_device {
    const char *name; /* "NPU2Col4": the IRON device class */
    enum xdna_arch arch;
    const char *arch_name;         /* "AIE2", "AIE2P" */
    uint32_t n_cols;               /* columns of this partition, each a shim, a mem tile and 4 compute tiles */
    uint32_t n_cols_array;         /* columns of the whole NPU (4, 8) */
    double clock_ghz;              /* array clock (seed 003: AIE2 ~1.0-1.3, AIE2P 1.5 nominal, 1.76 measured) */
    uint32_t int8_macs_per_cycle;  /* per compute tile, peak (seed 003: 256, 512) */
    uint32_t bf16_macs_per_cycle;  /* per compute tile, peak (seed 003: 128, 256) */
    double ddr_gbytes_per_s;       /* DDR <-> array bandwidth all shims reach together, GB/s (1e9 B/s) */
    double stream_bytes_per_cycle; /* one DMA channel's stream, bytes per array cycle (32-bit AIE2, 64-bit AIE2P) */
};

/* The partition table (NPU1, NPU1Col1, NPU1Col2, NPU1Col4, NPU2, NPU2Col1, NPU2Col4, NPU2Col8) and its length. */
extern const struct xdna_device xdna_devices[];
extern const size_t xdna_n_devices;

/* The partition named name[0..len) exactly (case-sensitive, as IRON spells it); NULL if none. */
const struct xdna_device *xdna_device_find(const char *name, size_t len);

/* The limits of a tile type (the same on AIE2 and AIE2P, seed 003). */
const struct xdna_tile_limits *xdna_tile_limits(enum xdna_tile_type type);

/* The type of a tile at row (0 shim, 1 mem, 2..5 compute); row must be < XDNA_ROWS. */
enum xdna_tile_type xdna_tile_type_of_row(uint32_t row);

#endif /* VNPU_XDNA_ARCH_H */
