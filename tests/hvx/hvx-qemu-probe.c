/*
 * The Hexagon side of test-hvx-qemu: a freestanding program (no libc) built with
 *     clang --target=hexagon -mv69 -mhvx -mhvx-length=128b -ffreestanding -nostdlib, ld.lld
 * and run under qemu-hexagon -cpu v67. It evaluates the integer intrinsic cases of hvx-cases.h with the
 * compiler's real intrinsics on the operands the host generates for the same (name, seed).
 *
 * Protocol: stdin carries the iteration count and then case indices into HVX_CASES_INT, each a
 * little-endian uint32; for every index the program writes `iterations` records of 256 bytes (the
 * case's io.out) to stdout. It stops at the end of stdin and exits 0.
 */
#include "hvx-cases.h"

HVX_CASES_INT(HVX_CASE_DEF)

static const struct hvx_case cases[] = {HVX_CASES_INT(HVX_CASE_ROW)};

#define N_CASES (sizeof(cases) / sizeof(cases[0]))

/* Linux system calls on Hexagon: number in r6, arguments in r0..r2, result in r0. */
static long sys3(long nr, long a, long b, long c) {
    register long r0 __asm__("r0") = a;
    register long r1 __asm__("r1") = b;
    register long r2 __asm__("r2") = c;
    register long r6 __asm__("r6") = nr;
    __asm__ volatile("trap0(#1)" : "+r"(r0) : "r"(r1), "r"(r2), "r"(r6) : "memory");
    return r0;
}
#define SYS_READ       63
#define SYS_WRITE      64
#define SYS_EXIT_GROUP 94

static int read_u32(uint32_t *x) {
    uint8_t b[4];
    int got = 0;
    while (got < 4) {
        const long n = sys3(SYS_READ, 0, (long) (b + got), 4 - got);
        if (n <= 0) {
            return 0;
        }
        got += (int) n;
    }
    *x = (uint32_t) b[0] | (uint32_t) b[1] << 8 | (uint32_t) b[2] << 16 | (uint32_t) b[3] << 24;
    return 1;
}

static void write_all(const uint8_t *p, long n) {
    while (n > 0) {
        const long w = sys3(SYS_WRITE, 1, (long) p, n);
        if (w <= 0) {
            sys3(SYS_EXIT_GROUP, 2, 0, 0);
        }
        p += w;
        n -= w;
    }
}

static struct hvx_case_io io;

void _start(void) {
    uint32_t iters, c;
    if (!read_u32(&iters)) {
        sys3(SYS_EXIT_GROUP, 1, 0, 0);
    }
    while (read_u32(&c)) {
        if (c >= N_CASES) {
            sys3(SYS_EXIT_GROUP, 3, 0, 0);
        }
        for (uint32_t it = 0; it < iters; it++) {
            hvx_case_gen(cases[c].name, hvx_case_seed(cases[c].name, (int) it), &io);
            cases[c].fn(&io);
            write_all((const uint8_t *) io.out, sizeof(io.out));
        }
    }
    sys3(SYS_EXIT_GROUP, 0, 0, 0);
    for (;;) {
    }
}
