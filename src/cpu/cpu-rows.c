/*
 * Row gathers and scatters, and copies: GET_ROWS, SET_ROWS, CPY, CONT.
 *
 * GET_ROWS dequantizes the picked rows of any type with a to_f32 into F32 (ggml_get_rows); SET_ROWS
 * converts F32 rows into the destination's type with its reference from_f32 (F32, F16, BF16, and the
 * block types vnpu can quantize), at rows named by I32 or I64 indices (ggml_set_rows). CPY and CONT
 * copy elements in row-major order between F32, F16 and BF16 with any strides on either side (ggml's
 * dup): same-type elements are copied bit for bit. Row indices out of range are errors in the graph's
 * inputs that ggml asserts on; so does this.
 */
#include "cpu-ops.h"

#include <string.h>

bool cpu_op_get_rows_supported(const struct vnpu_tensor *dst) {
    const struct vnpu_tensor *a = dst->src[0], *b = dst->src[1];
    const struct vnpu_type_traits *tt = vnpu_type_traits_get(a->type);
    return tt->to_f32 && a->nb[0] == tt->size && b->type == VNPU_TYPE_I32 && dst->type == VNPU_TYPE_F32 &&
           dst->nb[0] == sizeof(float);
}

void cpu_op_get_rows(const struct cpu_params *p, struct vnpu_tensor *dst) {
    const struct vnpu_tensor *a = dst->src[0], *b = dst->src[1];
    const vnpu_to_f32_fn to_f32 = vnpu_type_traits_get(a->type)->to_f32;
    const int64_t ne00 = a->ne[0], ne01 = a->ne[1];
    const int64_t ne10 = b->ne[0], ne11 = b->ne[1], ne12 = b->ne[2];

    /* One output row per index (i10, i11, i12). */
    const struct row_range r = row_range_of(ne10 * ne11 * ne12, p->nth, p->ith);
    for (int64_t u = r.start; u < r.end; u++) {
        int64_t i10, i11, i12;
        row_unravel(u, ne10, ne11, &i10, &i11, &i12);
        const int32_t i01 = *(const int32_t *) tensor_at(b, i10, i11, i12, 0);
        VNPU_ASSERT(i01 >= 0 && i01 < ne01);
        to_f32(tensor_at(a, 0, i01, i11, i12), (float *) tensor_at(dst, 0, i10, i11, i12), ne00);
    }
}

bool cpu_op_set_rows_supported(const struct vnpu_tensor *dst) {
    const struct vnpu_tensor *b = dst->src[0], *c = dst->src[1];
    const struct vnpu_type_traits *tt = vnpu_type_traits_get(dst->type);
    return tt->from_f32_ref && vnpu_is_contiguous_rows(dst) && b->type == VNPU_TYPE_F32 && vnpu_is_contiguous_rows(b) &&
           (c->type == VNPU_TYPE_I32 || c->type == VNPU_TYPE_I64);
}

/* Rows of src0 (F32) go to rows src1[i, i02 % ne11, i03 % ne12] of dst. Two source rows naming the same
 * destination row leave either one there (as in ggml): indices are expected to be distinct. */
void cpu_op_set_rows(const struct cpu_params *p, struct vnpu_tensor *dst) {
    const struct vnpu_tensor *b = dst->src[0], *c = dst->src[1];
    const vnpu_from_f32_fn from_f32 = vnpu_type_traits_get(dst->type)->from_f32_ref;
    const int64_t ne00 = b->ne[0], ne01 = b->ne[1], ne02 = b->ne[2];
    const int64_t ne11 = c->ne[1], ne12 = c->ne[2];
    const int64_t ne1 = dst->ne[1];

    const struct row_range r = row_range_of(vnpu_nrows(b), p->nth, p->ith);
    for (int64_t u = r.start; u < r.end; u++) {
        int64_t i, i02, i03;
        row_unravel(u, ne01, ne02, &i, &i02, &i03);
        const char *pi = tensor_at(c, i, i02 % ne11, i03 % ne12, 0);
        const int64_t i1 = c->type == VNPU_TYPE_I64 ? *(const int64_t *) pi : *(const int32_t *) pi;
        VNPU_ASSERT(i1 >= 0 && i1 < ne1);
        from_f32((const float *) tensor_at(b, 0, i, i02, i03), tensor_at(dst, 0, i1, i02, i03), ne00);
    }
}

bool cpu_op_cpy_supported(const struct vnpu_tensor *dst) {
    const struct vnpu_tensor *a = dst->src[0];
    return cpu_type_is_float(a->type) && cpu_type_is_float(dst->type) && vnpu_nelements(a) == vnpu_nelements(dst);
}

/* Element k of src0 in row-major order becomes element k of dst in row-major order. */
void cpu_op_cpy(const struct cpu_params *p, struct vnpu_tensor *dst) {
    const struct vnpu_tensor *a = dst->src[0];
    const int64_t ne00 = a->ne[0], ne01 = a->ne[1], ne02 = a->ne[2];
    const int64_t ne0 = dst->ne[0], ne1 = dst->ne[1], ne2 = dst->ne[2];
    const bool same_type = a->type == dst->type;
    const size_t esize = vnpu_type_size_of(a);
    if (vnpu_nelements(dst) == 0) {
        return;
    }

    const struct row_range r = row_range_of(vnpu_nrows(a), p->nth, p->ith);
    for (int64_t ir = r.start; ir < r.end; ir++) {
        int64_t i01, i02, i03;
        row_unravel(ir, ne01, ne02, &i01, &i02, &i03);
        /* Where this row's first element lands in dst, then step through dst in row-major order. */
        const int64_t k = ir * ne00;
        int64_t i0 = k % ne0, i1, i2, i3;
        row_unravel(k / ne0, ne1, ne2, &i1, &i2, &i3);
        const char *x = tensor_at(a, 0, i01, i02, i03);
        for (int64_t i00 = 0; i00 < ne00; i00++) {
            const char *s = x + i00 * (int64_t) a->nb[0];
            char *d = tensor_at(dst, i0, i1, i2, i3);
            if (same_type) {
                memcpy(d, s, esize);
            } else {
                cpu_store_f32(dst->type, d, cpu_load_f32(a->type, s));
            }
            if (++i0 == ne0) {
                i0 = 0;
                if (++i1 == ne1) {
                    i1 = 0;
                    if (++i2 == ne2) {
                        i2 = 0;
                        i3++;
                    }
                }
            }
        }
    }
}
