/*
 * seidel-2d.c -- Gauss-Seidel 9-point stencil, updated in place (every
 * update reads already-updated neighbours).  Size macros in the bounds.
 */
#include <stdio.h>

/* #pragma scop / endscop mark the region for polyhedral tools; gcc ignores them. */
#pragma GCC diagnostic ignored "-Wunknown-pragmas"

#ifndef TSTEPS
# define TSTEPS 10
#endif
#ifndef N
# define N 40
#endif

static double A[N][N];

static void init_field(void)
{
  int i, j;

  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      /* not PolyBench's ((double)i * (j + 2) + 2) / N: that field is
         (up to rounding) a fixed point of the 9-point average, so a wrong
         schedule would not change the output */
      A[i][j] = (double)((7 * i * i + j * j * j) % 19) / N;
}

static void kernel_seidel_2d(void)
{
  int t, i, j;

#pragma scop
  for (t = 0; t <= TSTEPS - 1; t++)
    for (i = 1; i <= N - 2; i++)
      for (j = 1; j <= N - 2; j++)
        A[i][j] = (A[i - 1][j - 1] + A[i - 1][j] + A[i - 1][j + 1]
                   + A[i][j - 1] + A[i][j] + A[i][j + 1]
                   + A[i + 1][j - 1] + A[i + 1][j] + A[i + 1][j + 1]) / 9.0;
#pragma endscop
}

int main(void)
{
  int i, j;

  init_field();
  kernel_seidel_2d();
  printf("begin dump: A\n");
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++) {
      printf("%.17g ", A[i][j]);
      if ((j + 1) % 20 == 0 || j == N - 1)
        printf("\n");
    }
  printf("end   dump: A\n");
  return 0;
}
