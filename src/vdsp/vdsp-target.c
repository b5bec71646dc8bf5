/*
 * The Hexagon targets vnpu models: one row per arch. Sources are ../shared/design/targets-and-anchors.md
 * §2 (abbreviated "anchors") and seed 002; where no public source was found the row says what it assumes
 * and why.
 *
 * - VTCM: 8 MiB on v73..v81 (anchors §2.1, from the SoC tables of executorch's qc_schema.py; some parts
 *   differ, e.g. 16 MiB on SA8797, which vnpu does not model).
 * - HVX contexts: v79 6 (anchors §2.1: FastRPC HVX_SUPPORT_128B on 8 Elite; seed 002: "8 hardware threads,
 *   6 HVX contexts" on the V79 compute DSP); v81 8 (anchors §2.1: hwinfo of ggml-org/llama.cpp#25876 reports
 *   8 threads, 8 HVX, 1 HMX, 8 MB VTCM). v73 and v75: no primary source was found (anchors §2.1 leaves them
 *   "?"). We assume 4: below v79's 6 because the counts found only grow with the arch (v79 6, v81 8), and
 *   erring low is the safe side, since fewer contexts only make the emulated NPU serialise more and never
 *   let a kernel plan on parallelism the hardware may lack.
 * - Hardware threads: v79 8 (seed 002), v81 8 (hwinfo above); v73 and v75 6 (anchors §2.1: the 8 Gen 2
 *   core is 6-way SMT; v75 assumed the same, no source).
 * - HMX: one unit on each (anchors §2.1; hwinfo on v81 reports 1).
 * - Window: the bytes of a session's 32-bit address space its buffers may be mapped into, upstream's max_vmem
 *   (GGML_HEXAGON_VMEM's defaults in ggml-hexagon.cpp; ../shared/design/htp-reference-notes.md §2.6 and §10):
 *   3200 MiB (3,355,443,200 B) from v75 on, 3000 MiB on v73. The seed's "around 3.5GB" (seed 000, Large model
 *   handling) is the whole PD window, of which the library, stacks and the op queue take the rest.
 * - Largest single mapping: HAP_mmap on v73 refuses a mapping above 2 GiB (htp-reference-notes.md §10: "On v73
 *   a single HAP_mmap is limited to 2 GiB"); from v75 on HAP_mmap2 takes any size the window holds.
 * - Clock: 1400 MHz. v73's is derived in anchors §2.1 from a third-party HMX probe (FP16 ≈ 7.1k ops/cycle at
 *   ≈ 9.9 TFLOPS → ≈ 1.4 GHz). No figure was found for v75..v81; we assume the same, since the clock only
 *   converts cycles to time for traces and the cost model, and one clock keeps targets comparable.
 */
#include "vdsp.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#define MIB ((size_t) 1 << 20)

static const struct vdsp_target vdsp_targets[] = {
    {.arch = VDSP_ARCH_V73,
     .n_hw_threads = 6,
     .n_hvx_contexts = 4,
     .n_hmx = 1,
     .vtcm_size = 8 * MIB,
     .window_size = 3000 * MIB,
     .max_mapping = 2048 * MIB,
     .clock_mhz = 1400},
    {.arch = VDSP_ARCH_V75,
     .n_hw_threads = 6,
     .n_hvx_contexts = 4,
     .n_hmx = 1,
     .vtcm_size = 8 * MIB,
     .window_size = 3200 * MIB,
     .max_mapping = 4096 * MIB,
     .clock_mhz = 1400},
    {.arch = VDSP_ARCH_V79,
     .n_hw_threads = 8,
     .n_hvx_contexts = 6,
     .n_hmx = 1,
     .vtcm_size = 8 * MIB,
     .window_size = 3200 * MIB,
     .max_mapping = 4096 * MIB,
     .clock_mhz = 1400},
    {.arch = VDSP_ARCH_V81,
     .n_hw_threads = 8,
     .n_hvx_contexts = 8,
     .n_hmx = 1,
     .vtcm_size = 8 * MIB,
     .window_size = 3200 * MIB,
     .max_mapping = 4096 * MIB,
     .clock_mhz = 1400},
};
static_assert(sizeof(vdsp_targets) / sizeof(vdsp_targets[0]) == 4,
              "new arch: add its row here, its value to enum vdsp_arch and its NPU library to the build");

bool vdsp_target_get(enum vdsp_arch arch, struct vdsp_target *t) {
    for (size_t i = 0; i < sizeof(vdsp_targets) / sizeof(vdsp_targets[0]); i++) {
        if (vdsp_targets[i].arch == arch) {
            *t = vdsp_targets[i];
            return true;
        }
    }
    return false;
}

bool vdsp_arch_parse(const char *s, enum vdsp_arch *arch) {
    if (s[0] == 'v' || s[0] == 'V') {
        s++;
    }
    if (s[0] < '0' || s[0] > '9') {
        return false;
    }
    char *end;
    const unsigned long v = strtoul(s, &end, 10);
    struct vdsp_target t;
    if (*end != '\0' || v > 1000 || !vdsp_target_get((enum vdsp_arch) v, &t)) {
        return false;
    }
    *arch = t.arch;
    return true;
}
