/*
 * The XDNA partition and tile tables (xdna-arch.h). Sources in short: "seed 003" is ../shared/seeds/003_*.txt (its
 * section named after it), "anchors 3.1" is ../shared/design/targets-and-anchors.md section 3.1; an assumption is
 * marked ASSUMPTION. docs/xdna.md has the long form.
 */
#include "xdna-arch.h"

#include "log.h"

#include <assert.h>
#include <string.h>

/* AIE2 clock: seed 003 gives ~1.0-1.3 GHz; anchors 3.1 derives its figures at 1.0 GHz, the low end (ASSUMPTION:
 * no measured Phoenix clock). AIE2P: seed 003, 1.76 GHz measured on Strix. DDR: the whole NPU's, ~60 GB/s on
 * Strix (anchors 3.1: FastFlowLM's "NPU bandwidth ~60 GB/s vs iGPU 125 GB/s"), taken for NPU1 too (ASSUMPTION: no
 * Phoenix figure); a partition of n_cols gets n_cols / n_cols_array of it. */
#define AIE2_CLOCK_GHZ   1.0  /* seed 003 "Performance ballpark" low end, anchors 3.1 */
#define AIE2P_CLOCK_GHZ  1.76 /* seed 003: measured on Strix */
#define NPU1_DDR_GBPS    60.0 /* ASSUMPTION: NPU2's figure, all 4 columns together */
#define NPU2_DDR_GBPS    60.0 /* anchors 3.1, FastFlowLM on Strix: all 8 columns together */
/* The stream switch a DMA channel drives: 32-bit on AIE2, 64-bit on AIE2P (anchors 3.1: UG1603; the AIE-ML v2
 * figure), a word a cycle. */
#define AIE2_STREAM_BPC  4.0
#define AIE2P_STREAM_BPC 8.0

/* The IRON device classes of seed 003 "Devices" (NPU1 4x4 compute tiles, NPU2 8x4; NPU1 and NPU2 are the whole
 * arrays); MACs per cycle per compute tile from seed 003 "Performance ballpark"; clocks and DDR above. */
/* clang-format off */
const struct xdna_device xdna_devices[] = {
    {.name = "NPU1", .arch = XDNA_ARCH_AIE2, .arch_name = "AIE2", .n_cols = 4, .n_cols_array = 4,
     .clock_ghz = AIE2_CLOCK_GHZ, .int8_macs_per_cycle = 256, .bf16_macs_per_cycle = 128,
     .ddr_gbytes_per_s = NPU1_DDR_GBPS * 4 / 4, .stream_bytes_per_cycle = AIE2_STREAM_BPC},
    {.name = "NPU1Col1", .arch = XDNA_ARCH_AIE2, .arch_name = "AIE2", .n_cols = 1, .n_cols_array = 4,
     .clock_ghz = AIE2_CLOCK_GHZ, .int8_macs_per_cycle = 256, .bf16_macs_per_cycle = 128,
     .ddr_gbytes_per_s = NPU1_DDR_GBPS * 1 / 4, .stream_bytes_per_cycle = AIE2_STREAM_BPC},
    {.name = "NPU1Col2", .arch = XDNA_ARCH_AIE2, .arch_name = "AIE2", .n_cols = 2, .n_cols_array = 4,
     .clock_ghz = AIE2_CLOCK_GHZ, .int8_macs_per_cycle = 256, .bf16_macs_per_cycle = 128,
     .ddr_gbytes_per_s = NPU1_DDR_GBPS * 2 / 4, .stream_bytes_per_cycle = AIE2_STREAM_BPC},
    {.name = "NPU1Col4", .arch = XDNA_ARCH_AIE2, .arch_name = "AIE2", .n_cols = 4, .n_cols_array = 4,
     .clock_ghz = AIE2_CLOCK_GHZ, .int8_macs_per_cycle = 256, .bf16_macs_per_cycle = 128,
     .ddr_gbytes_per_s = NPU1_DDR_GBPS * 4 / 4, .stream_bytes_per_cycle = AIE2_STREAM_BPC},
    {.name = "NPU2", .arch = XDNA_ARCH_AIE2P, .arch_name = "AIE2P", .n_cols = 8, .n_cols_array = 8,
     .clock_ghz = AIE2P_CLOCK_GHZ, .int8_macs_per_cycle = 512, .bf16_macs_per_cycle = 256,
     .ddr_gbytes_per_s = NPU2_DDR_GBPS * 8 / 8, .stream_bytes_per_cycle = AIE2P_STREAM_BPC},
    {.name = "NPU2Col1", .arch = XDNA_ARCH_AIE2P, .arch_name = "AIE2P", .n_cols = 1, .n_cols_array = 8,
     .clock_ghz = AIE2P_CLOCK_GHZ, .int8_macs_per_cycle = 512, .bf16_macs_per_cycle = 256,
     .ddr_gbytes_per_s = NPU2_DDR_GBPS * 1 / 8, .stream_bytes_per_cycle = AIE2P_STREAM_BPC},
    {.name = "NPU2Col4", .arch = XDNA_ARCH_AIE2P, .arch_name = "AIE2P", .n_cols = 4, .n_cols_array = 8,
     .clock_ghz = AIE2P_CLOCK_GHZ, .int8_macs_per_cycle = 512, .bf16_macs_per_cycle = 256,
     .ddr_gbytes_per_s = NPU2_DDR_GBPS * 4 / 8, .stream_bytes_per_cycle = AIE2P_STREAM_BPC},
    {.name = "NPU2Col8", .arch = XDNA_ARCH_AIE2P, .arch_name = "AIE2P", .n_cols = 8, .n_cols_array = 8,
     .clock_ghz = AIE2P_CLOCK_GHZ, .int8_macs_per_cycle = 512, .bf16_macs_per_cycle = 256,
     .ddr_gbytes_per_s = NPU2_DDR_GBPS * 8 / 8, .stream_bytes_per_cycle = AIE2P_STREAM_BPC},
};
/* clang-format on */
const size_t xdna_n_devices = sizeof(xdna_devices) / sizeof(xdna_devices[0]);
static_assert(sizeof(xdna_devices) / sizeof(xdna_devices[0]) == 8, "new partition: add its row and its test");

/* Seed 003 "Hardware limits to remember" (the BD table) and "Memory hierarchy & sizes" (64 KB L1, 512 KB L2). DMA
 * channels: the mem tile's 6 MM2S + 6 S2MM are anchors 3.1 (UG1603's memory-tile table); the compute tile's and the
 * shim's 2 + 2 are AM020's tile DMA and interface-tile DMA (ASSUMPTION: not in the anchors). mlir-aie gives each
 * ObjectFifo end on a tile one of them (rule 9 of xdna-array.h). */
static const struct xdna_tile_limits tile_limits[XDNA_TILE_TYPE_COUNT] = {
    [XDNA_TILE_SHIM] = {.name = "shim tile",
                        .bd_dims = 3,
                        .n_bds = 16,
                        .max_transfer_words = 0xffffffffull /* 2^32-1 */,
                        .mem_bytes = 0 /* reaches DDR */,
                        .s2mm_channels = 2,
                        .mm2s_channels = 2},
    [XDNA_TILE_MEM] = {.name = "mem tile",
                       .bd_dims = 4,
                       .n_bds = 48,
                       .max_transfer_words = (1u << 17) - 1,
                       .mem_bytes = 512u << 10 /* L2 */,
                       .s2mm_channels = 6,
                       .mm2s_channels = 6},
    [XDNA_TILE_COMPUTE] = {.name = "compute tile",
                           .bd_dims = 3,
                           .n_bds = 16,
                           .max_transfer_words = (1u << 14) - 1,
                           .mem_bytes = 64u << 10 /* L1 */,
                           .s2mm_channels = 2,
                           .mm2s_channels = 2},
};
static_assert(XDNA_TILE_TYPE_COUNT == 3, "new tile type: add its row here");
static_assert(XDNA_BD_MAX_DIMS == 4, "XDNA_BD_MAX_DIMS is the mem tile's bd_dims");
static_assert(XDNA_MAX_CHANNELS == 6, "XDNA_MAX_CHANNELS is the mem tile's channels");

const struct xdna_device *xdna_device_find(const char *name, size_t len) {
    for (size_t i = 0; i < xdna_n_devices; i++) {
        if (strlen(xdna_devices[i].name) == len && memcmp(xdna_devices[i].name, name, len) == 0) {
            return &xdna_devices[i];
        }
    }
    return NULL;
}

const struct xdna_tile_limits *xdna_tile_limits(enum xdna_tile_type type) {
    VNPU_ASSERT((unsigned) type < XDNA_TILE_TYPE_COUNT);
    return &tile_limits[type];
}

enum xdna_tile_type xdna_tile_type_of_row(uint32_t row) {
    VNPU_ASSERT(row < XDNA_ROWS);
    return row == XDNA_ROW_SHIM ? XDNA_TILE_SHIM : row == XDNA_ROW_MEM ? XDNA_TILE_MEM : XDNA_TILE_COMPUTE;
}
