/* 2mm.h -- problem sizes for 2mm.c (D := alpha*A*B*C + beta*D). */
#ifndef TWOMM_H
# define TWOMM_H

/* Pick a dataset with -DMINI_DATASET, -DSMALL_DATASET (default),
   -DMEDIUM_DATASET or -DLARGE_DATASET, or set a size directly,
   e.g. -DNI=7. */
# if !defined(MINI_DATASET) && !defined(SMALL_DATASET) \
  && !defined(MEDIUM_DATASET) && !defined(LARGE_DATASET)
#  define SMALL_DATASET
# endif

# if defined(MINI_DATASET)
#  define TWOMM_DEFAULT_NI 8
#  define TWOMM_DEFAULT_NJ 9
#  define TWOMM_DEFAULT_NK 11
#  define TWOMM_DEFAULT_NL 12
# elif defined(SMALL_DATASET)
#  define TWOMM_DEFAULT_NI 32
#  define TWOMM_DEFAULT_NJ 36
#  define TWOMM_DEFAULT_NK 40
#  define TWOMM_DEFAULT_NL 44
# elif defined(MEDIUM_DATASET)
#  define TWOMM_DEFAULT_NI 180
#  define TWOMM_DEFAULT_NJ 190
#  define TWOMM_DEFAULT_NK 210
#  define TWOMM_DEFAULT_NL 220
# elif defined(LARGE_DATASET)
#  define TWOMM_DEFAULT_NI 800
#  define TWOMM_DEFAULT_NJ 900
#  define TWOMM_DEFAULT_NK 1100
#  define TWOMM_DEFAULT_NL 1200
# endif

# ifndef NI
#  define NI TWOMM_DEFAULT_NI
# endif
# ifndef NJ
#  define NJ TWOMM_DEFAULT_NJ
# endif
# ifndef NK
#  define NK TWOMM_DEFAULT_NK
# endif
# ifndef NL
#  define NL TWOMM_DEFAULT_NL
# endif

/* Loop bounds: the int parameter by default (see POLYBENCH_LOOP_BOUND). */
# define _PB_NI POLYBENCH_LOOP_BOUND(NI, ni)
# define _PB_NJ POLYBENCH_LOOP_BOUND(NJ, nj)
# define _PB_NK POLYBENCH_LOOP_BOUND(NK, nk)
# define _PB_NL POLYBENCH_LOOP_BOUND(NL, nl)

#endif /* TWOMM_H */
