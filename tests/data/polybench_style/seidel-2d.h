/* seidel-2d.h -- problem sizes for seidel-2d.c (2D Gauss-Seidel stencil). */
#ifndef SEIDEL_2D_H
# define SEIDEL_2D_H

/* Pick a dataset with -DMINI_DATASET, -DSMALL_DATASET (default),
   -DMEDIUM_DATASET or -DLARGE_DATASET, or set a size directly,
   e.g. -DTSTEPS=7. */
# if !defined(MINI_DATASET) && !defined(SMALL_DATASET) \
  && !defined(MEDIUM_DATASET) && !defined(LARGE_DATASET)
#  define SMALL_DATASET
# endif

# if defined(MINI_DATASET)
#  define SEIDEL_2D_DEFAULT_TSTEPS 4
#  define SEIDEL_2D_DEFAULT_N 12
# elif defined(SMALL_DATASET)
#  define SEIDEL_2D_DEFAULT_TSTEPS 10
#  define SEIDEL_2D_DEFAULT_N 40
# elif defined(MEDIUM_DATASET)
#  define SEIDEL_2D_DEFAULT_TSTEPS 100
#  define SEIDEL_2D_DEFAULT_N 400
# elif defined(LARGE_DATASET)
#  define SEIDEL_2D_DEFAULT_TSTEPS 500
#  define SEIDEL_2D_DEFAULT_N 2000
# endif

# ifndef TSTEPS
#  define TSTEPS SEIDEL_2D_DEFAULT_TSTEPS
# endif
# ifndef N
#  define N SEIDEL_2D_DEFAULT_N
# endif

/* Loop bounds: the int parameter by default (see POLYBENCH_LOOP_BOUND). */
# define _PB_TSTEPS POLYBENCH_LOOP_BOUND(TSTEPS, tsteps)
# define _PB_N POLYBENCH_LOOP_BOUND(N, n)

#endif /* SEIDEL_2D_H */
