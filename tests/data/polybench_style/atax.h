/* atax.h -- problem sizes for atax.c (y := A^T (A x)). */
#ifndef ATAX_H
# define ATAX_H

/* Pick a dataset with -DMINI_DATASET, -DSMALL_DATASET (default),
   -DMEDIUM_DATASET or -DLARGE_DATASET, or set a size directly,
   e.g. -DM=7. */
# if !defined(MINI_DATASET) && !defined(SMALL_DATASET) \
  && !defined(MEDIUM_DATASET) && !defined(LARGE_DATASET)
#  define SMALL_DATASET
# endif

# if defined(MINI_DATASET)
#  define ATAX_DEFAULT_M 18
#  define ATAX_DEFAULT_N 20
# elif defined(SMALL_DATASET)
#  define ATAX_DEFAULT_M 38
#  define ATAX_DEFAULT_N 42
# elif defined(MEDIUM_DATASET)
#  define ATAX_DEFAULT_M 390
#  define ATAX_DEFAULT_N 410
# elif defined(LARGE_DATASET)
#  define ATAX_DEFAULT_M 1900
#  define ATAX_DEFAULT_N 2100
# endif

# ifndef M
#  define M ATAX_DEFAULT_M
# endif
# ifndef N
#  define N ATAX_DEFAULT_N
# endif

/* Loop bounds: the int parameter by default (see POLYBENCH_LOOP_BOUND). */
# define _PB_M POLYBENCH_LOOP_BOUND(M, m)
# define _PB_N POLYBENCH_LOOP_BOUND(N, n)

#endif /* ATAX_H */
