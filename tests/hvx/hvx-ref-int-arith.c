/*
 * Scalar references of the integer HVX intrinsics (see hvx-ref.h): moves, memory, add and subtract,
 * average, abs, min, max, multiplies. Element by element from QEMU's
 * target/hexagon/imported/mmvec/ext.idef.
 */
#include "hvx-ref.h"

/* ================= moves and memory ================= */
REF(Q6_V_vzero) {
    (void) io;
}
REF(Q6_W_vzero) {
    (void) io;
}
REF(Q6_V_vsplat_R) {
    for (int i = 0; i < 32; i++) {
        ref_st(OUT(0), 4, i, io->r);
    }
}
REF(Q6_Vh_vsplat_R) {
    for (int i = 0; i < 64; i++) {
        ref_st(OUT(0), 2, i, io->r);
    }
}
REF(Q6_Vb_vsplat_R) {
    for (int i = 0; i < 128; i++) {
        ref_st(OUT(0), 1, i, io->r);
    }
}
REF(Q6_W_vcombine_VV) {
    io->out[0] = io->in[1];
    io->out[1] = io->in[0];
}
REF(Q6_V_hi_W) {
    io->out[0] = io->in[1];
}
REF(Q6_V_lo_W) {
    io->out[0] = io->in[0];
}
REF(Q6_R_vextract_VR) {
    const int64_t x = ref_ld(IN(0), 4, 0, (io->r & 127) >> 2);
    for (int i = 0; i < 32; i++) {
        ref_st(OUT(0), 4, i, x);
    }
}
REF(Q6_Vw_vinsert_VwR) {
    io->out[0] = io->in[0];
    ref_st(OUT(0), 4, 0, io->r);
}
/* predicated store of slot 0 under Q (slot 1) over slot 2 */
static void ref_store(struct hvx_case_io *io, int when) {
    io->out[0] = io->in[2];
    for (int i = 0; i < 128; i++) {
        if (ref_q(io, 1, i) == when) {
            ref_st(OUT(0), 1, i, ref_ld(IN(0), 1, 0, i));
        }
    }
}
REF(Q6_vmem_QRIV) {
    ref_store(io, 1);
}
REF(Q6_vmem_QnRIV) {
    ref_store(io, 0);
}
REF(Q6_vmem_QRIV_nt) {
    ref_store(io, 1);
}
REF(Q6_vmem_QnRIV_nt) {
    ref_store(io, 0);
}
/* region: the 256 bytes of slots 2, 3, copied to out[0..1] and updated there */
static uint8_t *ref_region(struct hvx_case_io *io) {
    io->out[0] = io->in[2];
    io->out[1] = io->in[3];
    return (uint8_t *) &io->out[0];
}
static void ref_scatter(struct hvx_case_io *io, int w, int pred, int acc) {
    uint8_t *region = ref_region(io);
    for (int i = 0; i < 128 / w; i++) {
        const int off = (int) (ref_ld(IN(0), w, 0, i) & 0xFC);
        if (acc) {
            int64_t x = 0;
            for (int j = 0; j < w; j++) {
                x |= (int64_t) region[off + j] << (8 * j);
            }
            x += ref_ld(IN(1), w, 0, i);
            for (int j = 0; j < w; j++) {
                region[off + j] = (uint8_t) (x >> (8 * j));
            }
            continue;
        }
        for (int j = 0; j < w; j++) {
            if (!pred || ref_q(io, 4, w * i + j)) {
                region[off + j] = (uint8_t) ref_ld(IN(1), 1, 0, w * i + j);
            }
        }
    }
}
REF(Q6_vscatter_RMVwV) {
    ref_scatter(io, 4, 0, 0);
}
REF(Q6_vscatter_QRMVwV) {
    ref_scatter(io, 4, 1, 0);
}
REF(Q6_vscatter_RMVhV) {
    ref_scatter(io, 2, 0, 0);
}
REF(Q6_vscatteracc_RMVwV) {
    ref_scatter(io, 4, 0, 1);
}
static void ref_gather(struct hvx_case_io *io, int w) {
    const uint8_t *region = (const uint8_t *) &io->in[2];
    io->out[0] = io->in[1];
    for (int i = 0; i < 128 / w; i++) {
        const int off = (int) (ref_ld(IN(0), w, 0, i) & 0xFC);
        for (int j = 0; j < w; j++) {
            ref_st(OUT(0), 1, w * i + j, region[off + j]);
        }
    }
}
REF(Q6_vgather_ARMVw) {
    ref_gather(io, 4);
}
REF(Q6_vgather_ARMVh) {
    ref_gather(io, 2);
}

/* ================= add, subtract, average, abs, min, max ================= */
REF_VV(Q6_Vb_vadd_VbVb, 1, 1, 1, a + b)
REF_VV(Q6_Vh_vadd_VhVh, 2, 1, 1, a + b)
REF_VV(Q6_Vw_vadd_VwVw, 4, 1, 1, a + b)
REF_VV(Q6_Vb_vsub_VbVb, 1, 1, 1, a - b)
REF_VV(Q6_Vh_vsub_VhVh, 2, 1, 1, a - b)
REF_VV(Q6_Vw_vsub_VwVw, 4, 1, 1, a - b)
REF_WW(Q6_Wb_vadd_WbWb, 1, 1, a + b)
REF_WW(Q6_Wh_vadd_WhWh, 2, 1, a + b)
REF_WW(Q6_Ww_vadd_WwWw, 4, 1, a + b)
REF_WW(Q6_Wb_vsub_WbWb, 1, 1, a - b)
REF_WW(Q6_Wh_vsub_WhWh, 2, 1, a - b)
REF_WW(Q6_Ww_vsub_WwWw, 4, 1, a - b)
REF_VV(Q6_Vb_vadd_VbVb_sat, 1, 1, 1, SAT(1, 1, a + b))
REF_VV(Q6_Vub_vadd_VubVub_sat, 1, 0, 0, SAT(1, 0, a + b))
REF_VV(Q6_Vh_vadd_VhVh_sat, 2, 1, 1, SAT(2, 1, a + b))
REF_VV(Q6_Vuh_vadd_VuhVuh_sat, 2, 0, 0, SAT(2, 0, a + b))
REF_VV(Q6_Vw_vadd_VwVw_sat, 4, 1, 1, SAT(4, 1, a + b))
REF_VV(Q6_Vuw_vadd_VuwVuw_sat, 4, 0, 0, SAT(4, 0, a + b))
REF_VV(Q6_Vb_vsub_VbVb_sat, 1, 1, 1, SAT(1, 1, a - b))
REF_VV(Q6_Vub_vsub_VubVub_sat, 1, 0, 0, SAT(1, 0, a - b))
REF_VV(Q6_Vh_vsub_VhVh_sat, 2, 1, 1, SAT(2, 1, a - b))
REF_VV(Q6_Vuh_vsub_VuhVuh_sat, 2, 0, 0, SAT(2, 0, a - b))
REF_VV(Q6_Vw_vsub_VwVw_sat, 4, 1, 1, SAT(4, 1, a - b))
REF_VV(Q6_Vuw_vsub_VuwVuw_sat, 4, 0, 0, SAT(4, 0, a - b))
REF_WW(Q6_Wh_vadd_WhWh_sat, 2, 1, SAT(2, 1, a + b))
REF_WW(Q6_Ww_vadd_WwWw_sat, 4, 1, SAT(4, 1, a + b))
REF_WW(Q6_Wh_vsub_WhWh_sat, 2, 1, SAT(2, 1, a - b))
REF_WW(Q6_Ww_vsub_WwWw_sat, 4, 1, SAT(4, 1, a - b))
REF_VV(Q6_Vub_vadd_VubVb_sat, 1, 0, 1, SAT(1, 0, a + b))
REF_VV(Q6_Vub_vsub_VubVb_sat, 1, 0, 1, SAT(1, 0, a - b))

/* widening: lo gets even source elements, hi odd ones */
#define REF_WIDEN(NAME, W, S, OP)                                                                     \
    REF(NAME) {                                                                                       \
        for (int i = 0; i < 128 / (2 * (W)); i++) {                                                   \
            for (int h = 0; h < 2; h++) {                                                             \
                const int64_t a = ref_ld(IN(0), W, S, 2 * i + h), b = ref_ld(IN(1), W, S, 2 * i + h); \
                ref_st(OUT(h), 2 * (W), i, a OP b);                                                   \
            }                                                                                         \
        }                                                                                             \
    }
REF_WIDEN(Q6_Wh_vadd_VubVub, 1, 0, +)
REF_WIDEN(Q6_Wh_vsub_VubVub, 1, 0, -)
REF_WIDEN(Q6_Ww_vadd_VhVh, 2, 1, +)
REF_WIDEN(Q6_Ww_vsub_VhVh, 2, 1, -)
REF_WIDEN(Q6_Ww_vadd_VuhVuh, 2, 0, +)
REF_WIDEN(Q6_Ww_vsub_VuhVuh, 2, 0, -)
#define REF_WIDEN_ACC(NAME, W, S)                                                                                \
    REF(NAME) {                                                                                                  \
        for (int i = 0; i < 128 / (2 * (W)); i++) {                                                              \
            for (int h = 0; h < 2; h++) {                                                                        \
                const int64_t x = ref_ld(IN(h), 2 * (W), 1, i);                                                  \
                ref_st(OUT(h), 2 * (W), i, x + ref_ld(IN(2), W, S, 2 * i + h) + ref_ld(IN(3), W, S, 2 * i + h)); \
            }                                                                                                    \
        }                                                                                                        \
    }
REF_WIDEN_ACC(Q6_Ww_vaddacc_WwVhVh, 2, 1)
REF_WIDEN_ACC(Q6_Wh_vaddacc_WhVubVub, 1, 0)
REF_WIDEN_ACC(Q6_Ww_vaddacc_WwVuhVuh, 2, 0)

/* averages: computed wide, >> 1 (arithmetic) */
REF_VV(Q6_Vb_vavg_VbVb, 1, 1, 1, (a + b) >> 1)
REF_VV(Q6_Vb_vavg_VbVb_rnd, 1, 1, 1, (a + b + 1) >> 1)
REF_VV(Q6_Vub_vavg_VubVub, 1, 0, 0, (a + b) >> 1)
REF_VV(Q6_Vub_vavg_VubVub_rnd, 1, 0, 0, (a + b + 1) >> 1)
REF_VV(Q6_Vh_vavg_VhVh, 2, 1, 1, (a + b) >> 1)
REF_VV(Q6_Vh_vavg_VhVh_rnd, 2, 1, 1, (a + b + 1) >> 1)
REF_VV(Q6_Vuh_vavg_VuhVuh, 2, 0, 0, (a + b) >> 1)
REF_VV(Q6_Vuh_vavg_VuhVuh_rnd, 2, 0, 0, (a + b + 1) >> 1)
REF_VV(Q6_Vw_vavg_VwVw, 4, 1, 1, (a + b) >> 1)
REF_VV(Q6_Vw_vavg_VwVw_rnd, 4, 1, 1, (a + b + 1) >> 1)
REF_VV(Q6_Vuw_vavg_VuwVuw, 4, 0, 0, (a + b) >> 1)
REF_VV(Q6_Vuw_vavg_VuwVuw_rnd, 4, 0, 0, (a + b + 1) >> 1)
REF_VV(Q6_Vb_vnavg_VbVb, 1, 1, 1, (a - b) >> 1)
REF_VV(Q6_Vh_vnavg_VhVh, 2, 1, 1, (a - b) >> 1)
REF_VV(Q6_Vw_vnavg_VwVw, 4, 1, 1, (a - b) >> 1)
REF_VV(Q6_Vb_vnavg_VubVub, 1, 0, 0, (a - b) >> 1)

REF_V(Q6_Vb_vabs_Vb, 1, 1, a < 0 ? -a : a)
REF_V(Q6_Vb_vabs_Vb_sat, 1, 1, SAT(1, 1, a < 0 ? -a : a))
REF_V(Q6_Vh_vabs_Vh, 2, 1, a < 0 ? -a : a)
REF_V(Q6_Vh_vabs_Vh_sat, 2, 1, SAT(2, 1, a < 0 ? -a : a))
REF_V(Q6_Vw_vabs_Vw, 4, 1, a < 0 ? -a : a)
REF_V(Q6_Vw_vabs_Vw_sat, 4, 1, SAT(4, 1, a < 0 ? -a : a))
REF_VV(Q6_Vub_vabsdiff_VubVub, 1, 0, 0, a > b ? a - b : b - a)
REF_VV(Q6_Vuh_vabsdiff_VuhVuh, 2, 0, 0, a > b ? a - b : b - a)
REF_VV(Q6_Vuh_vabsdiff_VhVh, 2, 1, 1, a > b ? a - b : b - a)
REF_VV(Q6_Vuw_vabsdiff_VwVw, 4, 1, 1, a > b ? a - b : b - a)
REF_VV(Q6_Vb_vmax_VbVb, 1, 1, 1, a > b ? a : b)
REF_VV(Q6_Vub_vmax_VubVub, 1, 0, 0, a > b ? a : b)
REF_VV(Q6_Vh_vmax_VhVh, 2, 1, 1, a > b ? a : b)
REF_VV(Q6_Vuh_vmax_VuhVuh, 2, 0, 0, a > b ? a : b)
REF_VV(Q6_Vw_vmax_VwVw, 4, 1, 1, a > b ? a : b)
REF_VV(Q6_Vb_vmin_VbVb, 1, 1, 1, a < b ? a : b)
REF_VV(Q6_Vub_vmin_VubVub, 1, 0, 0, a < b ? a : b)
REF_VV(Q6_Vh_vmin_VhVh, 2, 1, 1, a < b ? a : b)
REF_VV(Q6_Vuh_vmin_VuhVuh, 2, 0, 0, a < b ? a : b)
REF_VV(Q6_Vw_vmin_VwVw, 4, 1, 1, a < b ? a : b)

/* saturate-and-interleave: even narrow element from Vv (slot 1), odd from Vu (slot 0) */
#define REF_NARROW2(NAME, W, S, DS, EXPR_OF)                                      \
    REF(NAME) {                                                                   \
        for (int i = 0; i < 128 / (W); i++) {                                     \
            const int64_t v = ref_ld(IN(1), W, S, i), u = ref_ld(IN(0), W, S, i); \
            ref_st(OUT(0), (W) / 2, 2 * i, EXPR_OF(v));                           \
            ref_st(OUT(0), (W) / 2, 2 * i + 1, EXPR_OF(u));                       \
        }                                                                         \
        (void) (DS);                                                              \
    }
#define SAT_UB(x) SAT(1, 0, x)
#define SAT_H(x)  SAT(2, 1, x)
#define SAT_UH(x) SAT(2, 0, x)
#define SAT_B(x)  SAT(1, 1, x)
REF_NARROW2(Q6_Vub_vsat_VhVh, 2, 1, 0, SAT_UB)
REF_NARROW2(Q6_Vh_vsat_VwVw, 4, 1, 1, SAT_H)
REF_NARROW2(Q6_Vuh_vsat_VuwVuw, 4, 0, 0, SAT_UH)
REF(Q6_Vw_vsatdw_VwVw) {
    for (int i = 0; i < 32; i++) {
        const int64_t x = (int64_t) ((uint64_t) ref_ld(IN(0), 4, 1, i) << 32 | (uint64_t) ref_ld(IN(1), 4, 0, i));
        ref_st(OUT(0), 4, i, SAT(4, 1, x));
    }
}

/* ================= multiplies ================= */

/* vrmpy: word i = acc + sum_j u.byte(4i+j) * v.byte(4i+j) (or Rt byte j) */
static void ref_vrmpy(struct hvx_case_io *io, int su, int sv, int scalar, int acc) {
    const int u = acc ? 1 : 0, v = u + 1;
    for (int i = 0; i < 32; i++) {
        int64_t s = acc ? ref_ld(IN(0), 4, 0, i) : 0;
        for (int j = 0; j < 4; j++) {
            const int64_t b = scalar ? ref_rb(io->r, j, sv) : ref_ld(IN(v), 1, sv, 4 * i + j);
            s += ref_ld(IN(u), 1, su, 4 * i + j) * b;
        }
        ref_st(OUT(0), 4, i, s);
    }
}
REF(Q6_Vw_vrmpy_VbVb) {
    ref_vrmpy(io, 1, 1, 0, 0);
}
REF(Q6_Vw_vrmpyacc_VwVbVb) {
    ref_vrmpy(io, 1, 1, 0, 1);
}
REF(Q6_Vw_vrmpy_VubVb) {
    ref_vrmpy(io, 0, 1, 0, 0);
}
REF(Q6_Vw_vrmpyacc_VwVubVb) {
    ref_vrmpy(io, 0, 1, 0, 1);
}
REF(Q6_Vuw_vrmpy_VubVub) {
    ref_vrmpy(io, 0, 0, 0, 0);
}
REF(Q6_Vuw_vrmpyacc_VuwVubVub) {
    ref_vrmpy(io, 0, 0, 0, 1);
}
REF(Q6_Vw_vrmpy_VubRb) {
    ref_vrmpy(io, 0, 1, 1, 0);
}
REF(Q6_Vw_vrmpyacc_VwVubRb) {
    ref_vrmpy(io, 0, 1, 1, 1);
}
REF(Q6_Vuw_vrmpy_VubRub) {
    ref_vrmpy(io, 0, 0, 1, 0);
}
REF(Q6_Vuw_vrmpyacc_VuwVubRub) {
    ref_vrmpy(io, 0, 0, 1, 1);
}

/* vdmpy by a scalar: element i = u(2i) * R(2i % n) + u(2i+1) * R((2i+1) % n) (bytes n = 4, halves 2) */
static void ref_vdmpy_r(struct hvx_case_io *io, int w, int su, int rhalf, int rs, int sat, int acc) {
    const int u = acc ? 1 : 0;
    for (int i = 0; i < 64 / w; i++) {
        int64_t s = acc ? ref_ld(IN(0), 2 * w, 1, i) : 0;
        for (int j = 0; j < 2; j++) {
            const int e = 2 * i + j;
            const int64_t r = rhalf ? ref_rh(io->r, e % 2, rs) : ref_rb(io->r, e % 4, rs);
            s += ref_ld(IN(u), w, su, e) * r;
        }
        ref_st(OUT(0), 2 * w, i, sat ? SAT(2 * w, 1, s) : s);
    }
}
REF(Q6_Vh_vdmpy_VubRb) {
    ref_vdmpy_r(io, 1, 0, 0, 1, 0, 0);
}
REF(Q6_Vh_vdmpyacc_VhVubRb) {
    ref_vdmpy_r(io, 1, 0, 0, 1, 0, 1);
}
REF(Q6_Vw_vdmpy_VhRb) {
    ref_vdmpy_r(io, 2, 1, 0, 1, 0, 0);
}
REF(Q6_Vw_vdmpyacc_VwVhRb) {
    ref_vdmpy_r(io, 2, 1, 0, 1, 0, 1);
}
REF(Q6_Vw_vdmpy_VhRh_sat) {
    ref_vdmpy_r(io, 2, 1, 1, 1, 1, 0);
}
REF(Q6_Vw_vdmpyacc_VwVhRh_sat) {
    ref_vdmpy_r(io, 2, 1, 1, 1, 1, 1);
}
REF(Q6_Vw_vdmpy_VhRuh_sat) {
    ref_vdmpy_r(io, 2, 1, 1, 0, 1, 0);
}
REF(Q6_Vw_vdmpyacc_VwVhRuh_sat) {
    ref_vdmpy_r(io, 2, 1, 1, 0, 1, 1);
}
static void ref_vdmpy_hh(struct hvx_case_io *io, int acc) {
    const int u = acc ? 1 : 0;
    for (int i = 0; i < 32; i++) {
        int64_t s = acc ? ref_ld(IN(0), 4, 1, i) : 0;
        s += ref_ld(IN(u), 2, 1, 2 * i) * ref_ld(IN(u + 1), 2, 1, 2 * i) +
             ref_ld(IN(u), 2, 1, 2 * i + 1) * ref_ld(IN(u + 1), 2, 1, 2 * i + 1);
        ref_st(OUT(0), 4, i, SAT(4, 1, s));
    }
}
REF(Q6_Vw_vdmpy_VhVh_sat) {
    ref_vdmpy_hh(io, 0);
}
REF(Q6_Vw_vdmpyacc_VwVhVh_sat) {
    ref_vdmpy_hh(io, 1);
}

/* widening multiplies: lo = even products, hi = odd; acc forms add to the pair in slots 0, 1 */
static void ref_wmpy(struct hvx_case_io *io, int w, int su, int sv, int scalar, int acc, int sat) {
    const int u = acc ? 2 : 0;
    for (int i = 0; i < 64 / w; i++) {
        for (int h = 0; h < 2; h++) {
            const int e = 2 * i + h;
            const int64_t b =
                scalar ? (w == 1 ? ref_rb(io->r, e % 4, sv) : ref_rh(io->r, e % 2, sv)) : ref_ld(IN(u + 1), w, sv, e);
            int64_t p = ref_ld(IN(u), w, su, e) * b;
            if (acc) {
                p += ref_ld(IN(h), 2 * w, 1, i);
            }
            ref_st(OUT(h), 2 * w, i, sat ? SAT(2 * w, 1, p) : p);
        }
    }
}
REF(Q6_Wh_vmpy_VubVb) {
    ref_wmpy(io, 1, 0, 1, 0, 0, 0);
}
REF(Q6_Wh_vmpyacc_WhVubVb) {
    ref_wmpy(io, 1, 0, 1, 0, 1, 0);
}
REF(Q6_Wh_vmpy_VbVb) {
    ref_wmpy(io, 1, 1, 1, 0, 0, 0);
}
REF(Q6_Wh_vmpyacc_WhVbVb) {
    ref_wmpy(io, 1, 1, 1, 0, 1, 0);
}
REF(Q6_Wuh_vmpy_VubVub) {
    ref_wmpy(io, 1, 0, 0, 0, 0, 0);
}
REF(Q6_Wuh_vmpyacc_WuhVubVub) {
    ref_wmpy(io, 1, 0, 0, 0, 1, 0);
}
REF(Q6_Ww_vmpy_VhVh) {
    ref_wmpy(io, 2, 1, 1, 0, 0, 0);
}
REF(Q6_Ww_vmpyacc_WwVhVh) {
    ref_wmpy(io, 2, 1, 1, 0, 1, 0);
}
REF(Q6_Wuw_vmpy_VuhVuh) {
    ref_wmpy(io, 2, 0, 0, 0, 0, 0);
}
REF(Q6_Wuw_vmpyacc_WuwVuhVuh) {
    ref_wmpy(io, 2, 0, 0, 0, 1, 0);
}
REF(Q6_Ww_vmpy_VhVuh) {
    ref_wmpy(io, 2, 1, 0, 0, 0, 0);
}
REF(Q6_Ww_vmpyacc_WwVhVuh) {
    ref_wmpy(io, 2, 1, 0, 0, 1, 0);
}
REF(Q6_Wh_vmpy_VubRb) {
    ref_wmpy(io, 1, 0, 1, 1, 0, 0);
}
REF(Q6_Wh_vmpyacc_WhVubRb) {
    ref_wmpy(io, 1, 0, 1, 1, 1, 0);
}
REF(Q6_Wuh_vmpy_VubRub) {
    ref_wmpy(io, 1, 0, 0, 1, 0, 0);
}
REF(Q6_Wuh_vmpyacc_WuhVubRub) {
    ref_wmpy(io, 1, 0, 0, 1, 1, 0);
}
REF(Q6_Ww_vmpy_VhRh) {
    ref_wmpy(io, 2, 1, 1, 1, 0, 0);
}
REF(Q6_Ww_vmpyacc_WwVhRh) {
    ref_wmpy(io, 2, 1, 1, 1, 1, 0);
}
REF(Q6_Wuw_vmpy_VuhRuh) {
    ref_wmpy(io, 2, 0, 0, 1, 0, 0);
}
REF(Q6_Wuw_vmpyacc_WuwVuhRuh) {
    ref_wmpy(io, 2, 0, 0, 1, 1, 0);
}
REF(Q6_Ww_vmpyacc_WwVhRh_sat) {
    ref_wmpy(io, 2, 1, 1, 1, 1, 1);
}

/* vmpyi: low half of the product; by a scalar, element i takes Rt byte i % 4 or half i % 2 */
static void ref_vmpyi(struct hvx_case_io *io, int w, int kind, int acc) {
    const int u = acc ? 1 : 0;
    for (int i = 0; i < 128 / w; i++) {
        const int64_t b = kind == 0   ? ref_ld(IN(u + 1), w, 1, i)
                          : kind == 1 ? ref_rb(io->r, i % 4, 1)
                          : kind == 2 ? ref_rb(io->r, i % 4, 0)
                                      : ref_rh(io->r, i % 2, 1);
        const int64_t p = ref_ld(IN(u), w, 1, i) * b + (acc ? ref_ld(IN(0), w, 1, i) : 0);
        ref_st(OUT(0), w, i, p);
    }
}
REF(Q6_Vh_vmpyi_VhVh) {
    ref_vmpyi(io, 2, 0, 0);
}
REF(Q6_Vh_vmpyiacc_VhVhVh) {
    ref_vmpyi(io, 2, 0, 1);
}
REF(Q6_Vh_vmpyi_VhRb) {
    ref_vmpyi(io, 2, 1, 0);
}
REF(Q6_Vh_vmpyiacc_VhVhRb) {
    ref_vmpyi(io, 2, 1, 1);
}
REF(Q6_Vw_vmpyi_VwRb) {
    ref_vmpyi(io, 4, 1, 0);
}
REF(Q6_Vw_vmpyiacc_VwVwRb) {
    ref_vmpyi(io, 4, 1, 1);
}
REF(Q6_Vw_vmpyi_VwRub) {
    ref_vmpyi(io, 4, 2, 0);
}
REF(Q6_Vw_vmpyiacc_VwVwRub) {
    ref_vmpyi(io, 4, 2, 1);
}
REF(Q6_Vw_vmpyi_VwRh) {
    ref_vmpyi(io, 4, 3, 0);
}
REF(Q6_Vw_vmpyiacc_VwVwRh) {
    ref_vmpyi(io, 4, 3, 1);
}
/* word of u times the even (unsigned or signed) or odd (signed) half of the word of v */
static int64_t ref_wxh(struct hvx_case_io *io, int u, int i, int odd, int s) {
    return ref_ld(IN(u), 4, 1, i) * ref_ld(IN(u + 1), 2, s, 2 * i + odd);
}
REF(Q6_Vw_vmpyie_VwVuh) {
    for (int i = 0; i < 32; i++) {
        ref_st(OUT(0), 4, i, ref_wxh(io, 0, i, 0, 0));
    }
}
REF(Q6_Vw_vmpyieacc_VwVwVuh) {
    for (int i = 0; i < 32; i++) {
        ref_st(OUT(0), 4, i, ref_ld(IN(0), 4, 1, i) + ref_wxh(io, 1, i, 0, 0));
    }
}
REF(Q6_Vw_vmpyieacc_VwVwVh) {
    for (int i = 0; i < 32; i++) {
        ref_st(OUT(0), 4, i, ref_ld(IN(0), 4, 1, i) + ref_wxh(io, 1, i, 0, 1));
    }
}
REF(Q6_Vw_vmpyio_VwVh) {
    for (int i = 0; i < 32; i++) {
        ref_st(OUT(0), 4, i, ref_wxh(io, 0, i, 1, 1));
    }
}
REF(Q6_Vw_vmpyieo_VhVh) {
    for (int i = 0; i < 32; i++) {
        ref_st(OUT(0), 4, i,
               (int64_t) ((uint64_t) (ref_ld(IN(0), 2, 1, 2 * i) * ref_ld(IN(1), 2, 1, 2 * i + 1)) << 16));
    }
}
REF(Q6_Vw_vmpye_VwVuh) {
    for (int i = 0; i < 32; i++) {
        ref_st(OUT(0), 4, i, ref_wxh(io, 0, i, 0, 0) >> 16);
    }
}
static void ref_vmpyo(struct hvx_case_io *io, int rnd, int acc) {
    const int u = acc ? 1 : 0;
    for (int i = 0; i < 32; i++) {
        int64_t p = ref_wxh(io, u, i, 1, 1);
        if (acc) {
            p += ref_ld(IN(0), 4, 1, i);
        }
        ref_st(OUT(0), 4, i, SAT(4, 1, ((p >> 14) + rnd) >> 1));
    }
}
REF(Q6_Vw_vmpyo_VwVh_s1_sat) {
    ref_vmpyo(io, 0, 0);
}
REF(Q6_Vw_vmpyo_VwVh_s1_rnd_sat) {
    ref_vmpyo(io, 1, 0);
}
REF(Q6_Vw_vmpyoacc_VwVwVh_s1_sat_shift) {
    ref_vmpyo(io, 0, 1);
}
REF(Q6_Vw_vmpyoacc_VwVwVh_s1_rnd_sat_shift) {
    ref_vmpyo(io, 1, 1);
}
/* Q15: sat16 of the high half of sat32(2ab [+ 0x8000]) */
static int64_t ref_q15(int64_t a, int64_t b, int rnd) {
    return SAT(2, 1, SAT(4, 1, 2 * a * b + (rnd ? 0x8000 : 0)) >> 16);
}
REF(Q6_Vh_vmpy_VhVh_s1_rnd_sat) {
    for (int i = 0; i < 64; i++) {
        ref_st(OUT(0), 2, i, ref_q15(ref_ld(IN(0), 2, 1, i), ref_ld(IN(1), 2, 1, i), 1));
    }
}
REF(Q6_Vh_vmpy_VhRh_s1_sat) {
    for (int i = 0; i < 64; i++) {
        ref_st(OUT(0), 2, i, ref_q15(ref_ld(IN(0), 2, 1, i), ref_rh(io->r, i % 2, 1), 0));
    }
}
REF(Q6_Vh_vmpy_VhRh_s1_rnd_sat) {
    for (int i = 0; i < 64; i++) {
        ref_st(OUT(0), 2, i, ref_q15(ref_ld(IN(0), 2, 1, i), ref_rh(io->r, i % 2, 1), 1));
    }
}
REF_VV(Q6_Vuh_vmpy_VuhVuh_rs16, 2, 0, 0, (a * b) >> 16)
