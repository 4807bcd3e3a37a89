/* correlation.h -- problem sizes for correlation.c (correlation matrix). */
#ifndef CORRELATION_H
# define CORRELATION_H

/* Pick a dataset with -DMINI_DATASET, -DSMALL_DATASET (default),
   -DMEDIUM_DATASET or -DLARGE_DATASET, or set a size directly,
   e.g. -DM=7. */
# if !defined(MINI_DATASET) && !defined(SMALL_DATASET) \
  && !defined(MEDIUM_DATASET) && !defined(LARGE_DATASET)
#  define SMALL_DATASET
# endif

# if defined(MINI_DATASET)
#  define CORRELATION_DEFAULT_M 14
#  define CORRELATION_DEFAULT_N 16
# elif defined(SMALL_DATASET)
#  define CORRELATION_DEFAULT_M 32
#  define CORRELATION_DEFAULT_N 40
# elif defined(MEDIUM_DATASET)
#  define CORRELATION_DEFAULT_M 240
#  define CORRELATION_DEFAULT_N 260
# elif defined(LARGE_DATASET)
#  define CORRELATION_DEFAULT_M 1200
#  define CORRELATION_DEFAULT_N 1400
# endif

# ifndef M
#  define M CORRELATION_DEFAULT_M
# endif
# ifndef N
#  define N CORRELATION_DEFAULT_N
# endif

/* Loop bounds: the int parameter by default (see POLYBENCH_LOOP_BOUND). */
# define _PB_M POLYBENCH_LOOP_BOUND(M, m)
# define _PB_N POLYBENCH_LOOP_BOUND(N, n)

#endif /* CORRELATION_H */
