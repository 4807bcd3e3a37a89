/* gemm.h -- problem sizes for gemm.c (C := alpha*A*B + beta*C). */
#ifndef GEMM_H
# define GEMM_H

/* Pick a dataset with -DMINI_DATASET, -DSMALL_DATASET (default),
   -DMEDIUM_DATASET or -DLARGE_DATASET, or set a size directly,
   e.g. -DNI=7. */
# if !defined(MINI_DATASET) && !defined(SMALL_DATASET) \
  && !defined(MEDIUM_DATASET) && !defined(LARGE_DATASET)
#  define SMALL_DATASET
# endif

# if defined(MINI_DATASET)
#  define GEMM_DEFAULT_NI 10
#  define GEMM_DEFAULT_NJ 12
#  define GEMM_DEFAULT_NK 14
# elif defined(SMALL_DATASET)
#  define GEMM_DEFAULT_NI 40
#  define GEMM_DEFAULT_NJ 44
#  define GEMM_DEFAULT_NK 48
# elif defined(MEDIUM_DATASET)
#  define GEMM_DEFAULT_NI 200
#  define GEMM_DEFAULT_NJ 220
#  define GEMM_DEFAULT_NK 240
# elif defined(LARGE_DATASET)
#  define GEMM_DEFAULT_NI 1000
#  define GEMM_DEFAULT_NJ 1100
#  define GEMM_DEFAULT_NK 1200
# endif

# ifndef NI
#  define NI GEMM_DEFAULT_NI
# endif
# ifndef NJ
#  define NJ GEMM_DEFAULT_NJ
# endif
# ifndef NK
#  define NK GEMM_DEFAULT_NK
# endif

/* Loop bounds: the int parameter by default (see POLYBENCH_LOOP_BOUND). */
# define _PB_NI POLYBENCH_LOOP_BOUND(NI, ni)
# define _PB_NJ POLYBENCH_LOOP_BOUND(NJ, nj)
# define _PB_NK POLYBENCH_LOOP_BOUND(NK, nk)

#endif /* GEMM_H */
