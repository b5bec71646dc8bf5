/*
 * What differs between the NPU libraries built for each arch (libvnpu-htp-v73.so ... -v81.so): the build
 * defines VNPU_HTP_ARCH=NN and this header turns it into compile-time constants. Kernels test these,
 * never the arch number itself.
 *
 * Sources: ../shared/design/targets-and-anchors.md section 2.1 (VTCM 8 MiB from v69 on; IEEE sf/hf
 * vector arithmetic is the default float path from v73, qf32 before).
 */
#ifndef VNPU_HTP_ARCH_H
#define VNPU_HTP_ARCH_H

#ifndef VNPU_HTP_ARCH
#error "build the NPU library with -DVNPU_HTP_ARCH=NN (68, 69, 73, 75, 79, 81)"
#endif

#define HTP_ARCH VNPU_HTP_ARCH

/* VTCM the kernels plan for: a session's VTCM is used up to this size. */
#if HTP_ARCH >= 69
#define HTP_ARCH_VTCM_SIZE (8u << 20)
#else
#define HTP_ARCH_VTCM_SIZE (4u << 20)
#endif

/* 1: f32 vector arithmetic in the IEEE sf forms (Q6_Vsf_vadd_VsfVsf) and the v73 conversions between words and sf
 * (Q6_Vsf_equals_Vw); 0: the qf32 forms, and integer or hf routes for the conversions. The one guard of the float
 * path in src/htp: kernels test it, never __HVX_ARCH__. */
#if HTP_ARCH >= 73
#define HTP_ARCH_IEEE_SF 1
#else
#define HTP_ARCH_IEEE_SF 0
#endif

#endif /* VNPU_HTP_ARCH_H */
