/* jacobi-2d.h -- problem sizes for jacobi-2d.c (2D Jacobi stencil). */
#ifndef JACOBI_2D_H
# define JACOBI_2D_H

/* Pick a dataset with -DMINI_DATASET, -DSMALL_DATASET (default),
   -DMEDIUM_DATASET or -DLARGE_DATASET, or set a size directly,
   e.g. -DTSTEPS=7. */
# if !defined(MINI_DATASET) && !defined(SMALL_DATASET) \
  && !defined(MEDIUM_DATASET) && !defined(LARGE_DATASET)
#  define SMALL_DATASET
# endif

# if defined(MINI_DATASET)
#  define JACOBI_2D_DEFAULT_TSTEPS 4
#  define JACOBI_2D_DEFAULT_N 12
# elif defined(SMALL_DATASET)
#  define JACOBI_2D_DEFAULT_TSTEPS 12
#  define JACOBI_2D_DEFAULT_N 40
# elif defined(MEDIUM_DATASET)
#  define JACOBI_2D_DEFAULT_TSTEPS 100
#  define JACOBI_2D_DEFAULT_N 250
# elif defined(LARGE_DATASET)
#  define JACOBI_2D_DEFAULT_TSTEPS 500
#  define JACOBI_2D_DEFAULT_N 1300
# endif

# ifndef TSTEPS
#  define TSTEPS JACOBI_2D_DEFAULT_TSTEPS
# endif
# ifndef N
#  define N JACOBI_2D_DEFAULT_N
# endif

/* Loop bounds: the int parameter by default (see POLYBENCH_LOOP_BOUND). */
# define _PB_TSTEPS POLYBENCH_LOOP_BOUND(TSTEPS, tsteps)
# define _PB_N POLYBENCH_LOOP_BOUND(N, n)

#endif /* JACOBI_2D_H */
