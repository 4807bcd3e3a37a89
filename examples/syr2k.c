/*
 * syr2k.c -- symmetric rank-2k update of the lower triangle of C:
 *   C := alpha * A B^T + alpha * B A^T + beta * C.
 * Triangular inner loops (j <= i); size macros.
 */
#include <stdio.h>

/* #pragma scop / endscop mark the region for polyhedral tools; gcc ignores them. */
#pragma GCC diagnostic ignored "-Wunknown-pragmas"

#ifndef N
# define N 40
#endif
#ifndef M
# define M 32
#endif

static double C[N][N];
static double A[N][M];
static double B[N][M];

static void init_syr2k(void)
{
  int i, j;

  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++) {
      A[i][j] = (double)((i * j + 1) % N) / N;
      B[i][j] = (double)((i * j + 2) % M) / M;
    }
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      C[i][j] = (double)((i * j + 3) % N) / M;
}

static void kernel_syr2k(double alpha, double beta)
{
  int i, j, k;

#pragma scop
  for (i = 0; i < N; i++) {
    for (j = 0; j <= i; j++)
      C[i][j] *= beta;
    for (k = 0; k < M; k++)
      for (j = 0; j <= i; j++)
        C[i][j] += A[j][k] * alpha * B[i][k] + B[j][k] * alpha * A[i][k];
  }
#pragma endscop
}

int main(void)
{
  int i, j;

  init_syr2k();
  kernel_syr2k(1.5, 1.2);
  printf("begin dump: C\n");
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++) {
      printf("%.17g ", C[i][j]);
      if ((j + 1) % 20 == 0 || j == N - 1)
        printf("\n");
    }
  printf("end   dump: C\n");
  return 0;
}
