/*
 * ludcmp.c -- LU decomposition followed by forward substitution (L y = b)
 * and backward substitution (U x = y).  The back substitution runs a
 * reversed loop; a scalar w carries each dot product.  Size parameter n.
 */
#include <stdio.h>

/* #pragma scop / endscop mark the region for polyhedral tools; gcc ignores them. */
#pragma GCC diagnostic ignored "-Wunknown-pragmas"

#ifndef N
# define N 40
#endif

static void system_init(int n, double A[N][N], double b[N], double x[N],
                        double y[N])
{
  int i, j;

  for (i = 0; i < n; i++) {
    x[i] = 0.0;
    y[i] = 0.0;
    b[i] = (i + 1) / (double)n / 2.0 + 4.0;
    for (j = 0; j < n; j++)
      A[i][j] = (double)((i * j) % n) / n;
    A[i][i] += n;
  }
}

static void kernel_ludcmp(int n, double A[N][N], double b[N], double x[N],
                          double y[N])
{
  int i, j, k;
  double w;

#pragma scop
  for (i = 0; i < n; i++) {
    for (j = 0; j < i; j++) {
      w = A[i][j];
      for (k = 0; k < j; k++)
        w -= A[i][k] * A[k][j];
      A[i][j] = w / A[j][j];
    }
    for (j = i; j < n; j++) {
      w = A[i][j];
      for (k = 0; k < i; k++)
        w -= A[i][k] * A[k][j];
      A[i][j] = w;
    }
  }

  for (i = 0; i < n; i++) {
    w = b[i];
    for (j = 0; j < i; j++)
      w -= A[i][j] * y[j];
    y[i] = w;
  }

  for (i = n - 1; i >= 0; i--) {
    w = y[i];
    for (j = i + 1; j < n; j++)
      w -= A[i][j] * x[j];
    x[i] = w / A[i][i];
  }
#pragma endscop
}

static void dump_vector(const char *name, int n, double v[N])
{
  int i;

  printf("begin dump: %s\n", name);
  for (i = 0; i < n; i++) {
    printf("%.17g ", v[i]);
    if ((i + 1) % 20 == 0 || i == n - 1)
      printf("\n");
  }
  printf("end   dump: %s\n", name);
}

int main(void)
{
  static double A[N][N], b[N], x[N], y[N];
  int i, j;

  system_init(N, A, b, x, y);
  kernel_ludcmp(N, A, b, x, y);
  dump_vector("x", N, x);
  dump_vector("y", N, y);
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
