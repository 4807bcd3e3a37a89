/* adi.h -- problem sizes for adi.c (ADI heat solver). */
#ifndef ADI_H
# define ADI_H

/* Pick a dataset with -DMINI_DATASET, -DSMALL_DATASET (default),
   -DMEDIUM_DATASET or -DLARGE_DATASET, or set a size directly,
   e.g. -DTSTEPS=7. */
# if !defined(MINI_DATASET) && !defined(SMALL_DATASET) \
  && !defined(MEDIUM_DATASET) && !defined(LARGE_DATASET)
#  define SMALL_DATASET
# endif

# if defined(MINI_DATASET)
#  define ADI_DEFAULT_TSTEPS 4
#  define ADI_DEFAULT_N 12
# elif defined(SMALL_DATASET)
#  define ADI_DEFAULT_TSTEPS 10
#  define ADI_DEFAULT_N 40
# elif defined(MEDIUM_DATASET)
#  define ADI_DEFAULT_TSTEPS 100
#  define ADI_DEFAULT_N 200
# elif defined(LARGE_DATASET)
#  define ADI_DEFAULT_TSTEPS 500
#  define ADI_DEFAULT_N 1000
# endif

# ifndef TSTEPS
#  define TSTEPS ADI_DEFAULT_TSTEPS
# endif
# ifndef N
#  define N ADI_DEFAULT_N
# endif

/* Loop bounds: the int parameter by default (see POLYBENCH_LOOP_BOUND). */
# define _PB_TSTEPS POLYBENCH_LOOP_BOUND(TSTEPS, tsteps)
# define _PB_N POLYBENCH_LOOP_BOUND(N, n)

#endif /* ADI_H */
