/*
 * atax.c -- y := A^T * (A * x).
 *
 * The loops are bounded by the size macros directly.
 */
#include <stdio.h>

/* #pragma scop / endscop mark the region for polyhedral tools; gcc ignores them. */
#pragma GCC diagnostic ignored "-Wunknown-pragmas"

#ifndef M
# define M 38
#endif
#ifndef N
# define N 42
#endif

static void make_inputs(double A[M][N], double x[N])
{
  int i, j;

  for (j = 0; j < N; j++)
    x[j] = 1.0 + (double)j / N;
  for (i = 0; i < M; i++)
    for (j = 0; j < N; j++)
      A[i][j] = (double)((i + j) % N) / (5.0 * M);
}

static void kernel_atax(double A[M][N], double x[N], double y[N],
                        double tmp[M])
{
  int i, j;

#pragma scop
  for (i = 0; i < N; i++)
    y[i] = 0;
  for (i = 0; i < M; i++) {
    tmp[i] = 0.0;
    for (j = 0; j < N; j++)
      tmp[i] = tmp[i] + A[i][j] * x[j];
    for (j = 0; j < N; j++)
      y[j] = y[j] + A[i][j] * tmp[i];
  }
#pragma endscop
}

static void print_vector(const char *name, int n, double v[n])
{
  int i;

  printf("begin dump: %s\n", name);
  for (i = 0; i < n; i++) {
    printf("%.17g ", v[i]);
    if (i % 20 == 19 || i == n - 1)
      printf("\n");
  }
  printf("end   dump: %s\n", name);
}

int main(void)
{
  static double A[M][N], x[N], y[N], tmp[M];

  make_inputs(A, x);
  kernel_atax(A, x, y, tmp);
  print_vector("y", N, y);
  print_vector("tmp", M, tmp);
  return 0;
}
