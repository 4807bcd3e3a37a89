/*
 * heat-3d.c -- explicit 3D heat-equation stencil; two arrays updated in
 * turn each time step.  Sizes are int parameters.
 */
#include <stdio.h>

/* #pragma scop / endscop mark the region for polyhedral tools; gcc ignores them. */
#pragma GCC diagnostic ignored "-Wunknown-pragmas"

#ifndef TSTEPS
# define TSTEPS 10
#endif
#ifndef N
# define N 24
#endif

static void init_volume(int n, double A[N][N][N], double B[N][N][N])
{
  int i, j, k;

  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      for (k = 0; k < n; k++)
        /* not PolyBench's (i + j + (n - k)) * 10 / n: a linear field is
           (up to rounding) a fixed point of the stencil */
        A[i][j][k] = B[i][j][k] = (double)((3 * i * i + 7 * j + k * k * k) % 23) * 10 / n;
}

static void kernel_heat_3d(int tsteps, int n, double A[N][N][N],
                           double B[N][N][N])
{
  int t, i, j, k;

#pragma scop
  for (t = 1; t <= tsteps; t++) {
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++)
        for (k = 1; k < n - 1; k++)
          B[i][j][k] = 0.125 * (A[i + 1][j][k] - 2.0 * A[i][j][k] + A[i - 1][j][k])
                     + 0.125 * (A[i][j + 1][k] - 2.0 * A[i][j][k] + A[i][j - 1][k])
                     + 0.125 * (A[i][j][k + 1] - 2.0 * A[i][j][k] + A[i][j][k - 1])
                     + A[i][j][k];
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++)
        for (k = 1; k < n - 1; k++)
          A[i][j][k] = 0.125 * (B[i + 1][j][k] - 2.0 * B[i][j][k] + B[i - 1][j][k])
                     + 0.125 * (B[i][j + 1][k] - 2.0 * B[i][j][k] + B[i][j - 1][k])
                     + 0.125 * (B[i][j][k + 1] - 2.0 * B[i][j][k] + B[i][j][k - 1])
                     + B[i][j][k];
  }
#pragma endscop
}

static void dump_volume(const char *name, int n, double V[N][N][N])
{
  int i, j, k;

  printf("begin dump: %s\n", name);
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      for (k = 0; k < n; k++) {
        printf("%.17g ", V[i][j][k]);
        if ((k + 1) % 20 == 0 || k == n - 1)
          printf("\n");
      }
  printf("end   dump: %s\n", name);
}

int main(void)
{
  static double A[N][N][N], B[N][N][N];

  init_volume(N, A, B);
  kernel_heat_3d(TSTEPS, N, A, B);
  dump_volume("A", N, A);
  dump_volume("B", N, B);
  return 0;
}
