/*
 * Running a table of HVX cases against their scalar references (shared by test-hvx-int.c and
 * test-hvx-float.c): each case on `iters` generated operand sets; a mismatch prints the intrinsic, the
 * iteration and the first differing byte with the operands' first words, so it can be rerun by name.
 * The run also prints a digest of every emulated output: scripts/ci-hvx.sh compares the AVX2 and the
 * portable build's digests, so the two backends are bit-identical on the whole table, not only equal
 * to the reference where the reference is checked.
 */
#ifndef VNPU_TEST_HVX_CHECK_H
#define VNPU_TEST_HVX_CHECK_H

#include <stdio.h>
#include <string.h>

#include "hvx-ref.h"

static inline void hvx_dump_words(const char *what, const HVX_Vector *v) {
    const uint32_t *w = (const uint32_t *) v;
    fprintf(stderr, "    %s: %08x %08x %08x %08x ...\n", what, w[0], w[1], w[2], w[3]);
}

/* Returns the number of cases with a mismatch; prints "<table> digest: <FNV-1a 64 of all outputs>". */
static inline int hvx_check_cases(const char *table, const struct ref_case *cases, int n, int iters) {
    int bad = 0;
    uint64_t digest = 0xcbf29ce484222325ull;
    for (int c = 0; c < n; c++) {
        for (int it = 0; it < iters; it++) {
            static struct hvx_case_io emu, ref;
            hvx_case_gen(cases[c].name, hvx_case_seed(cases[c].name, it), &emu);
            ref = emu;
            cases[c].emu(&emu);
            cases[c].ref(&ref);
            const uint8_t *out = (const uint8_t *) emu.out;
            for (size_t k = 0; k < sizeof(emu.out); k++) {
                digest = (digest ^ out[k]) * 0x100000001b3ull;
            }
            if (memcmp(emu.out, ref.out, sizeof(emu.out)) != 0) {
                const uint8_t *e = (const uint8_t *) emu.out, *r = (const uint8_t *) ref.out;
                int k = 0;
                while (e[k] == r[k]) {
                    k++;
                }
                fprintf(stderr, "%s: iteration %d: byte %d is %02x, reference %02x (r=0x%08x imm=%d)\n", cases[c].name,
                        it, k, e[k], r[k], (unsigned) emu.r, (int) emu.imm);
                for (int s = 0; s < 4; s++) {
                    char label[16];
                    snprintf(label, sizeof(label), "in[%d]", s);
                    hvx_dump_words(label, &emu.in[s]);
                }
                hvx_dump_words("out[0] (emu)", &emu.out[0]);
                hvx_dump_words("out[0] (ref)", &ref.out[0]);
                bad++;
                break;
            }
        }
    }
    printf("%s digest: %016llx (%d cases x %d operand sets)\n", table, (unsigned long long) digest, n, iters);
    return bad;
}

#endif /* VNPU_TEST_HVX_CHECK_H */
