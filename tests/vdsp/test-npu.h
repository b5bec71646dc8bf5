/*
 * The test NPU library (test-npu.c, built as libvnpu-htp-vNN.so into its own directory): a few trivial ops
 * over the platform so sessions can be tested end to end without src/htp. Requests are ordinary
 * src/htp/htp-msg.h blocks whose opcodes are the ones below; tensors are rows of bytes: ne[0] bytes per row,
 * ne[1] rows, nb[1] bytes between rows.
 *
 * Variants built from the same source (tests/vdsp/CMakeLists.txt): v79 and v81 are good; v75 claims
 * another platform ABI and v73 claims arch 79, for the loader's error paths. start() refuses (returns
 * HTP_STATUS_INTERNAL_ERR) when VNPU_TEST_NPU_REFUSE is set.
 */
#ifndef VNPU_TEST_NPU_H
#define VNPU_TEST_NPU_H

#include "htp-msg.h"

#include <stdint.h>

enum test_npu_op {
    /* dst[0] = src[0], every worker DMA-ing its share of rows DDR -> VTCM -> DDR through its VTCM slice,
     * kparams[0] rows per descriptor, each push popped before the next (holding an HVX context). */
    TEST_NPU_OP_COPY = 0,
    /* The same, but the bytes reach dst by a CPU read of VTCM *before* the DDR -> VTCM pop: correct in
     * normal mode, poison in strict mode. */
    TEST_NPU_OP_COPY_EARLY_READ = 1,
    /* Worker kparams[1] loads the 32-bit word at device address kparams[0] into dst[0]'s first word
     * (worker 0 is the main thread inside a job; TEST_NPU_MAIN the main thread outside any job, so that a
     * fault ends process() itself): fault injection. */
    TEST_NPU_OP_LOAD = 2,
    /* Push a DDR -> VTCM copy of src[0]'s first row to kparams[0] bytes before the end of VTCM, then pop. */
    TEST_NPU_OP_DMA_TO_VTCM_END = 3,
    /* Push kparams[0] dummy descriptors and pop none. */
    TEST_NPU_OP_DMA_LEAK = 4,
    /* Worker kparams[1] ends its job by vdsp_call_abort (TEST_NPU_MAIN: the main thread outside any job, ending
     * process() itself); the op then answers HTP_STATUS_FAULT with an empty message. */
    TEST_NPU_OP_ABORT = 5,
};

#define TEST_NPU_MAIN 0xFFFFFFFFu

/* Bytes of a request with these counts: header, bufs, tensors, ops (htp-msg.h order). */
static inline uint32_t test_npu_req_size(uint32_t n_bufs, uint32_t n_tensors, uint32_t n_ops) {
    return (uint32_t) (sizeof(struct htp_req) + n_bufs * sizeof(struct htp_buf_desc) +
                       n_tensors * sizeof(struct htp_tensor_desc) + n_ops * sizeof(struct htp_op_desc));
}

#endif /* VNPU_TEST_NPU_H */
