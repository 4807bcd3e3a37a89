/*
 * gesummv.c -- scalar, vector and matrix multiplication:
 *   y := alpha * A * x + beta * B * x.  The size is an int parameter.
 */
#include <stdio.h>

/* #pragma scop / endscop mark the region for polyhedral tools; gcc ignores them. */
#pragma GCC diagnostic ignored "-Wunknown-pragmas"

#ifndef N
# define N 50
#endif

static void init_data(int n, double A[N][N], double B[N][N], double x[N])
{
  int i, j;

  for (i = 0; i < n; i++) {
    x[i] = (double)(i % n) / n;
    for (j = 0; j < n; j++) {
      A[i][j] = (double)((i * j + 1) % n) / n;
      B[i][j] = (double)((i * j + 2) % n) / n;
    }
  }
}

static void kernel_gesummv(int n, double alpha, double beta,
                           double A[N][N], double B[N][N], double tmp[N],
                           double x[N], double y[N])
{
  int i, j;

#pragma scop
  for (i = 0; i < n; i++) {
    tmp[i] = 0.0;
    y[i] = 0.0;
    for (j = 0; j < n; j++) {
      tmp[i] = A[i][j] * x[j] + tmp[i];
      y[i] = B[i][j] * x[j] + y[i];
    }
    y[i] = alpha * tmp[i] + beta * y[i];
  }
#pragma endscop
}

static void dump_vector(const char *name, int n, double v[N])
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
  static double A[N][N], B[N][N], tmp[N], x[N], y[N];

  init_data(N, A, B, x);
  kernel_gesummv(N, 1.5, 1.2, A, B, tmp, x, y);
  dump_vector("y", N, y);
  dump_vector("tmp", N, tmp);
  return 0;
}
