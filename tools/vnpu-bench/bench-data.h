/*
 * The inputs of vnpu-bench's op cases: the seeded streams of the oracle's ggml_op_bench
 * (../shared/oracle/oracle_rng.h and ggml_op_bench.c, "Data"), so that both programs time their ops on the
 * same bytes.
 *
 * A stream is xoshiro256** (src/base/rng.h) seeded with four splitmix64 outputs of seed ^ hash(stream name),
 * the hash FNV-1a-64 from the oracle's start value (bench-data.c); normals come by Box-Muller in pairs (cos first, then
 * the cached sin) from uniforms
 * ((x >> 11) + 0.5) / 2^53 in (0, 1). Weights are drawn row after row from the stream "weights:<type>:<K>x<M>"
 * and quantized with the type's reference quantizer (bit-exact with ggml_quantize_chunk without an importance
 * matrix), an F32 input from "input:<name>". vnpu-bench --dump and ggml_op_bench --dump write identical inputs.
 */
#ifndef VNPU_BENCH_DATA_H
#define VNPU_BENCH_DATA_H

#include "rng.h"
#include "type-traits.h"
#include "vnpu.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bench_rng {
    struct vnpu_rng state;
    bool have_spare; /* Box-Muller's second normal of the last pair is waiting */
    double spare;
};

/* The stream (seed, name). */
void bench_rng_seed(struct bench_rng *r, uint64_t seed, const char *name);
/* The next N(0, 1) draw. */
double bench_rng_normal(struct bench_rng *r);

/* Weights of type for a K x M matrix (ne0 = k, ne1 = m) in GGML's flat layout: *data (malloc'd, the caller
 * frees) gets m rows of vnpu_row_size(type, k) bytes, *size their total. Errors (logged): VNPU_STATUS_UNSUPPORTED
 * for a type without a reference quantizer or a k that is not a whole number of its blocks,
 * VNPU_STATUS_NO_MEMORY. */
enum vnpu_status bench_weights_gen(enum vnpu_type type, int64_t k, int64_t m, uint64_t seed, void **data, size_t *size);

/* n F32 values of the input called name ("B" for a matmul's activations) into *data (malloc'd). Errors:
 * VNPU_STATUS_NO_MEMORY (logged). */
enum vnpu_status bench_input_gen(const char *name, size_t n, uint64_t seed, float **data);

#endif /* VNPU_BENCH_DATA_H */
