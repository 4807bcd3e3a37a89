/*
 * durbin.c -- Levinson-Durbin recursion: solves the Yule-Walker Toeplitz
 * system defined by the autocorrelation sequence r.  Scalars carry the
 * recursion; the subscript r[k - i - 1] runs backwards.
 */
#include <stdio.h>

/* #pragma scop / endscop mark the region for polyhedral tools; gcc ignores them. */
#pragma GCC diagnostic ignored "-Wunknown-pragmas"

#ifndef N
# define N 48
#endif

/* Autocorrelation of a stable AR process: decays, so |alpha| < 1. */
static void autocorrelation(int n, double r[N])
{
  int i;
  double v = 0.6;

  for (i = 0; i < n; i++) {
    r[i] = v * (1.0 + 0.1 * (i % 3));
    v *= 0.7;
  }
}

static void kernel_durbin(int n, double r[N], double y[N], double z[N])
{
  int i, k;
  double alpha, beta, sum;

#pragma scop
  y[0] = -r[0];
  beta = 1.0;
  alpha = -r[0];

  for (k = 1; k < n; k++) {
    beta = (1 - alpha * alpha) * beta;
    sum = 0.0;
    for (i = 0; i < k; i++)
      sum += r[k - i - 1] * y[i];
    alpha = -(r[k] + sum) / beta;
    for (i = 0; i < k; i++)
      z[i] = y[i] + alpha * y[k - i - 1];
    for (i = 0; i < k; i++)
      y[i] = z[i];
    y[k] = alpha;
  }
#pragma endscop
}

int main(void)
{
  static double r[N], y[N], z[N];
  int i;

  autocorrelation(N, r);
  kernel_durbin(N, r, y, z);

  printf("begin dump: y\n");
  for (i = 0; i < N; i++) {
    printf("%.17g ", y[i]);
    if (i % 20 == 19 || i == N - 1)
      printf("\n");
  }
  printf("end   dump: y\n");
  return 0;
}
