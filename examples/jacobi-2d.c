/*
 * jacobi-2d.c -- 5-point Jacobi stencil in two dimensions, two arrays
 * updated in turn.  Sizes are int parameters.
 */
#include <stdio.h>

/* #pragma scop / endscop mark the region for polyhedral tools; gcc ignores them. */
#pragma GCC diagnostic ignored "-Wunknown-pragmas"

#ifndef TSTEPS
# define TSTEPS 12
#endif
#ifndef N
# define N 40
#endif

static void init_plane(int n, double A[N][N], double B[N][N])
{
  int i, j;

  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      A[i][j] = ((double)i * (j + 2) + 2) / n;
      B[i][j] = ((double)i * (j + 3) + 3) / n;
    }
}

static void kernel_jacobi_2d(int tsteps, int n, double A[N][N], double B[N][N])
{
  int t, i, j;

#pragma scop
  for (t = 0; t < tsteps; t++) {
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++)
        B[i][j] = 0.2 * (A[i][j] + A[i][j - 1] + A[i][1 + j] + A[1 + i][j] + A[i - 1][j]);
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++)
        A[i][j] = 0.2 * (B[i][j] + B[i][j - 1] + B[i][1 + j] + B[1 + i][j] + B[i - 1][j]);
  }
#pragma endscop
}

static void dump_plane(const char *name, int n, double P[N][N])
{
  int i, j;

  printf("begin dump: %s\n", name);
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      printf("%.17g ", P[i][j]);
      if ((j + 1) % 20 == 0 || j == n - 1)
        printf("\n");
    }
  printf("end   dump: %s\n", name);
}

int main(void)
{
  static double A[N][N], B[N][N];

  init_plane(N, A, B);
  kernel_jacobi_2d(TSTEPS, N, A, B);
  dump_plane("A", N, A);
  dump_plane("B", N, B);
  return 0;
}
