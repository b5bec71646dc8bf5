/*
 * The reference CPU device: every op of src/base/tensor.h, plainly written, on a pool of threads.
 *
 * It is the oracle of the NPU op tests and the scheduler's fallback device. Results are bitwise
 * identical for any thread count; reductions accumulate in double; quantized weights are dequantized
 * row by row with their type's to_f32 and activations stay F32. Its buffer type is the host one.
 */
#ifndef VNPU_CPU_BACKEND_H
#define VNPU_CPU_BACKEND_H

#include "backend.h"
#include "vnpu.h"

#define VNPU_CPU_MAX_THREADS 512

/* The device "CPU" with n_threads (1..VNPU_CPU_MAX_THREADS) threads, started now and parked between
 * graphs; free it with vnpu_device_free. Errors: VNPU_STATUS_BAD_ARG (thread count),
 * VNPU_STATUS_NO_MEMORY. One graph at a time: a device is not computed on from two threads at once. */
enum vnpu_status vnpu_cpu_device_new(int n_threads, struct vnpu_device **out);

#endif /* VNPU_CPU_BACKEND_H */
