/* nussinov.h -- problem sizes for nussinov.c (Nussinov RNA folding). */
#ifndef NUSSINOV_H
# define NUSSINOV_H

/* Pick a dataset with -DMINI_DATASET, -DSMALL_DATASET (default),
   -DMEDIUM_DATASET or -DLARGE_DATASET, or set a size directly,
   e.g. -DN=7. */
# if !defined(MINI_DATASET) && !defined(SMALL_DATASET) \
  && !defined(MEDIUM_DATASET) && !defined(LARGE_DATASET)
#  define SMALL_DATASET
# endif

# if defined(MINI_DATASET)
#  define NUSSINOV_DEFAULT_N 20
# elif defined(SMALL_DATASET)
#  define NUSSINOV_DEFAULT_N 60
# elif defined(MEDIUM_DATASET)
#  define NUSSINOV_DEFAULT_N 500
# elif defined(LARGE_DATASET)
#  define NUSSINOV_DEFAULT_N 2500
# endif

# ifndef N
#  define N NUSSINOV_DEFAULT_N
# endif

/* Loop bounds: the int parameter by default (see POLYBENCH_LOOP_BOUND). */
# define _PB_N POLYBENCH_LOOP_BOUND(N, n)

/* Scores are integers unless the command line asks for another type. */
# if !defined(DATA_TYPE_IS_FLOAT) && !defined(DATA_TYPE_IS_DOUBLE) && !defined(DATA_TYPE_IS_INT)
#  undef DATA_TYPE
#  undef DATA_PRINTF_MODIFIER
#  define DATA_TYPE int
#  define DATA_PRINTF_MODIFIER "%d "
# endif

/* A base is one of A, C, G, U coded 0..3. */
typedef char base;

#endif /* NUSSINOV_H */
