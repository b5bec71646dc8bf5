/*
 * Running one case of vnpu-test-ops: build the case's graph twice from the same seeded inputs, once in
 * the buffers of the device under test and once in host memory, compute one on the device and the other
 * on the CPU reference, and compare.
 *
 * Every tensor's memory is fenced by 128 sentinel bytes on each side, checked after the compute; results
 * start as NaN bytes, so an element the device never writes fails the comparison; inputs must come back
 * bitwise unchanged (except what an in-place result overwrites). Each node's result is compared by NMSE
 * (sum (dev - ref)^2 / sum ref^2, as test-backend-ops) against the case's threshold.
 */
#ifndef VNPU_TEST_OPS_RUN_H
#define VNPU_TEST_OPS_RUN_H

#include "backend.h"
#include "test-ops-cases.h"

#include <stdbool.h>
#include <stddef.h>

enum ops_result {
    OPS_PASS = 0,
    OPS_FAIL = 1,
    OPS_UNSUPPORTED = 2, /* the device under test rejects a node (the reason is in the verbose log) */
};

/* Run case c: dut computes, ref (the CPU device) is the reference. detail gets the failure or, in perf mode,
 * the timings ("  123.4 us/run  5.67 GB/s (CPU 345.6 us/run)"). perf: time the device instead of
 * comparing once (the comparison still runs first). mdev > 1 (dut an HTP device): then the case once more with
 * every op as mdev partitions one after another (vnpu_htp_device_partitions), every tensor bitwise equal to the
 * single-device run. */
enum ops_result ops_run_case(const struct ops_case *c, struct vnpu_device *dut, struct vnpu_device *ref, bool perf,
                             uint32_t mdev, char *detail, size_t size);

#endif /* VNPU_TEST_OPS_RUN_H */
