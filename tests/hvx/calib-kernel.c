/*
 * Fixture of test-hvx-inspect's --calibrate cases (never built into the project): one HVX loop of a known
 * shape, out[i] = a[i] + b[i] over n vectors, n known only at run time, neither unrolled nor software-pipelined, so
 * that an iteration is one trip of the loop body. -DCALIB_EXTRA_PACKET adds one packet to that body: an inline
 * assembly nop at its start, which the compiler neither bundles with other instructions nor drops (clang 14 -O2 for
 * v69: 2 packets, then 3, the nop a packet of its own inside the hardware loop; placed at the end of the body, it
 * would cost a second packet, the one carrying :endloop0).
 */
#include "hvx.h"

void calib_vadd(HVX_Vector *restrict out, const HVX_Vector *restrict a, const HVX_Vector *restrict b, int n) {
#pragma clang loop unroll(disable) pipeline(disable)
    for (int i = 0; i < n; i++) {
#ifdef CALIB_EXTRA_PACKET
        __asm__ volatile("nop");
#endif
        hvx_vmem_st(&out[i], Q6_Vw_vadd_VwVw(hvx_vmem_ld(&a[i]), hvx_vmem_ld(&b[i])));
    }
}
