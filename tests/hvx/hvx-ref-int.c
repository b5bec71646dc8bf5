/*
 * The integer reference table: each row of HVX_CASES_INT with its case wrapper over the emulated
 * intrinsic and its scalar reference (hvx-ref-int-arith.c, hvx-ref-int-perm.c).
 */
#include "hvx-ref.h"

HVX_CASES_INT(HVX_CASE_DEF)

#define REF_ROW(NAME, FORM) {#NAME, hvx_case_##NAME, ref_##NAME},
const struct ref_case ref_cases_int[] = {HVX_CASES_INT(REF_ROW)};
const int ref_cases_int_count = (int) (sizeof(ref_cases_int) / sizeof(ref_cases_int[0]));
