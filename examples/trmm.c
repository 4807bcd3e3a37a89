/*
 * trmm.c -- triangular matrix multiply B := alpha * A^T * B, where A is
 * unit lower triangular (M x M) and B is M x N.  The k loop starts at
 * i + 1 (triangular); size macros.
 */
#include <stdio.h>

/* #pragma scop / endscop mark the region for polyhedral tools; gcc ignores them. */
#pragma GCC diagnostic ignored "-Wunknown-pragmas"

#ifndef M
# define M 36
#endif
#ifndef N
# define N 44
#endif

static void init_trmm(double A[M][M], double B[M][N])
{
  int i, j;

  for (i = 0; i < M; i++) {
    for (j = 0; j < i; j++)
      A[i][j] = (double)((i + j) % M) / M;
    A[i][i] = 1.0;
    for (j = 0; j < N; j++)
      B[i][j] = (double)((N + (i - j)) % N) / N;
  }
}

static void kernel_trmm(double alpha, double A[M][M], double B[M][N])
{
  int i, j, k;

#pragma scop
  for (i = 0; i < M; i++)
    for (j = 0; j < N; j++) {
      for (k = i + 1; k < M; k++)
        B[i][j] += A[k][i] * B[k][j];
      B[i][j] = alpha * B[i][j];
    }
#pragma endscop
}

int main(void)
{
  static double A[M][M], B[M][N];
  int i, j;

  init_trmm(A, B);
  kernel_trmm(1.5, A, B);
  printf("begin dump: B\n");
  for (i = 0; i < M; i++)
    for (j = 0; j < N; j++) {
      printf("%.17g ", B[i][j]);
      if ((j + 1) % 20 == 0 || j == N - 1)
        printf("\n");
    }
  printf("end   dump: B\n");
  return 0;
}
