/*
 * gemver.c -- vector multiplication and matrix addition:
 *   A := A + u1 v1^T + u2 v2^T,  x := x + beta A^T y + z,  w := w + alpha A x.
 * Loops use the macro N.
 */
#include <stdio.h>

/* #pragma scop / endscop mark the region for polyhedral tools; gcc ignores them. */
#pragma GCC diagnostic ignored "-Wunknown-pragmas"

#ifndef N
# define N 48
#endif

static void fill(double A[N][N], double u1[N], double v1[N], double u2[N],
                 double v2[N], double w[N], double x[N], double y[N],
                 double z[N])
{
  int i, j;
  double fn = (double)N;

  for (i = 0; i < N; i++) {
    u1[i] = i;
    u2[i] = ((i + 1) / fn) / 2.0;
    v1[i] = ((i + 1) / fn) / 4.0;
    v2[i] = ((i + 1) / fn) / 6.0;
    y[i] = ((i + 1) / fn) / 8.0;
    z[i] = ((i + 1) / fn) / 9.0;
    x[i] = 0.0;
    w[i] = 0.0;
    for (j = 0; j < N; j++)
      A[i][j] = (double)(i * j % N) / N;
  }
}

static void kernel_gemver(double alpha, double beta, double A[N][N],
                          double u1[N], double v1[N], double u2[N],
                          double v2[N], double w[N], double x[N],
                          double y[N], double z[N])
{
  int i, j;

#pragma scop
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      A[i][j] = A[i][j] + u1[i] * v1[j] + u2[i] * v2[j];

  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      x[i] = x[i] + beta * A[j][i] * y[j];

  for (i = 0; i < N; i++)
    x[i] = x[i] + z[i];

  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      w[i] = w[i] + alpha * A[i][j] * x[j];
#pragma endscop
}

static void out_vector(const char *name, double v[N])
{
  int i;

  printf("begin dump: %s\n", name);
  for (i = 0; i < N; i++) {
    printf("%.17g ", v[i]);
    if ((i + 1) % 20 == 0 || i == N - 1)
      printf("\n");
  }
  printf("end   dump: %s\n", name);
}

int main(void)
{
  static double A[N][N], u1[N], v1[N], u2[N], v2[N], w[N], x[N], y[N], z[N];
  int i, j;

  fill(A, u1, v1, u2, v2, w, x, y, z);
  kernel_gemver(1.5, 1.2, A, u1, v1, u2, v2, w, x, y, z);

  printf("begin dump: A\n");
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++) {
      printf("%.17g ", A[i][j]);
      if ((j + 1) % 20 == 0 || j == N - 1)
        printf("\n");
    }
  printf("end   dump: A\n");
  out_vector("x", x);
  out_vector("w", w);
  return 0;
}
