/*
 * trisolv.c -- forward substitution: solves L x = b for a lower
 * triangular L.  Iterators declared in the for statements; size macro N.
 */
#include <stdio.h>

/* #pragma scop / endscop mark the region for polyhedral tools; gcc ignores them. */
#pragma GCC diagnostic ignored "-Wunknown-pragmas"

#ifndef N
# define N 50
#endif

static void init_system(double L[N][N], double x[N], double b[N])
{
  for (int i = 0; i < N; i++) {
    x[i] = -999.0;
    b[i] = (double)i;
    for (int j = 0; j <= i; j++)
      L[i][j] = (double)(i + N - j + 1) * 2 / N;
    L[i][i] += N;
  }
}

static void kernel_trisolv(double L[N][N], double x[N], double b[N])
{
#pragma scop
  for (int i = 0; i < N; i++) {
    x[i] = b[i];
    for (int j = 0; j < i; j++)
      x[i] -= L[i][j] * x[j];
    x[i] = x[i] / L[i][i];
  }
#pragma endscop
}

int main(void)
{
  static double L[N][N], x[N], b[N];

  init_system(L, x, b);
  kernel_trisolv(L, x, b);
  printf("begin dump: x\n");
  for (int i = 0; i < N; i++) {
    printf("%.17g ", x[i]);
    if ((i + 1) % 20 == 0 || i == N - 1)
      printf("\n");
  }
  printf("end   dump: x\n");
  return 0;
}
