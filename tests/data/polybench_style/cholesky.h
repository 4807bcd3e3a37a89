/* cholesky.h -- problem sizes for cholesky.c (Cholesky decomposition). */
#ifndef CHOLESKY_H
# define CHOLESKY_H

/* Pick a dataset with -DMINI_DATASET, -DSMALL_DATASET (default),
   -DMEDIUM_DATASET or -DLARGE_DATASET, or set a size directly,
   e.g. -DN=7. */
# if !defined(MINI_DATASET) && !defined(SMALL_DATASET) \
  && !defined(MEDIUM_DATASET) && !defined(LARGE_DATASET)
#  define SMALL_DATASET
# endif

# if defined(MINI_DATASET)
#  define CHOLESKY_DEFAULT_N 12
# elif defined(SMALL_DATASET)
#  define CHOLESKY_DEFAULT_N 40
# elif defined(MEDIUM_DATASET)
#  define CHOLESKY_DEFAULT_N 400
# elif defined(LARGE_DATASET)
#  define CHOLESKY_DEFAULT_N 2000
# endif

# ifndef N
#  define N CHOLESKY_DEFAULT_N
# endif

/* Loop bounds: the int parameter by default (see POLYBENCH_LOOP_BOUND). */
# define _PB_N POLYBENCH_LOOP_BOUND(N, n)

#endif /* CHOLESKY_H */
