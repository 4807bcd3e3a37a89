/*
 * cholesky.c -- in-place Cholesky factorisation A = L * L^T of a symmetric
 * positive definite matrix (the lower triangle of A receives L).
 *
 * Triangular loops; uses the size macro N directly and a global matrix.
 */
#include <math.h>
#include <stdio.h>

/* #pragma scop / endscop mark the region for polyhedral tools; gcc ignores them. */
#pragma GCC diagnostic ignored "-Wunknown-pragmas"

#ifndef N
# define N 40
#endif

static double A[N][N];

/* Symmetric, strictly diagonally dominant with a positive diagonal, hence
   positive definite. */
static void build_spd(void)
{
  int i, j;

  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++) {
      int dist = i > j ? i - j : j - i;
      A[i][j] = 1.0 / (1 + dist) + (double)((i + j) % 5) / (10.0 * N);
    }
  for (i = 0; i < N; i++)
    A[i][i] += 2.0 * N;
}

static void kernel_cholesky(void)
{
  int i, j, k;

#pragma scop
  for (i = 0; i < N; i++) {
    for (j = 0; j < i; j++) {
      for (k = 0; k < j; k++)
        A[i][j] -= A[i][k] * A[j][k];
      A[i][j] /= A[j][j];
    }
    for (k = 0; k < i; k++)
      A[i][i] -= A[i][k] * A[i][k];
    A[i][i] = sqrt(A[i][i]);
  }
#pragma endscop
}

int main(void)
{
  int i, j;

  build_spd();
  kernel_cholesky();

  printf("begin dump: %s\n", "A");
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++) {
      printf("%.17g ", A[i][j]);
      if ((j + 1) % 20 == 0 || j == N - 1)
        printf("\n");
    }
  printf("end   dump: %s\n", "A");
  return 0;
}
