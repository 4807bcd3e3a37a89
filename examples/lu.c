/*
 * lu.c -- in-place LU decomposition without pivoting (Doolittle):
 * the strict lower triangle of A receives L, the upper triangle U.
 * Triangular loops bounded by the outer iterators; size macro N.
 */
#include <stdio.h>

/* #pragma scop / endscop mark the region for polyhedral tools; gcc ignores them. */
#pragma GCC diagnostic ignored "-Wunknown-pragmas"

#ifndef N
# define N 40
#endif

static double A[N][N];

static void make_dominant(void)
{
  int i, j;

  for (i = 0; i < N; i++) {
    for (j = 0; j < N; j++)
      A[i][j] = (double)((i * j + 3) % N) / N - 0.5;
    A[i][i] = N + 1.0;
  }
}

static void kernel_lu(void)
{
  int i, j, k;

#pragma scop
  for (i = 0; i < N; i++) {
    for (j = 0; j < i; j++) {
      for (k = 0; k < j; k++)
        A[i][j] -= A[i][k] * A[k][j];
      A[i][j] /= A[j][j];
    }
    for (j = i; j < N; j++)
      for (k = 0; k < i; k++)
        A[i][j] -= A[i][k] * A[k][j];
  }
#pragma endscop
}

int main(void)
{
  int i, j;

  make_dominant();
  kernel_lu();
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
