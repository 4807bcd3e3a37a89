/*
 * gramschmidt.c -- QR decomposition by modified Gram-Schmidt:
 * A (M x N, M >= N) := Q R, A is overwritten.  Uses sqrt, a scalar
 * accumulator and a triangular loop over the remaining columns.
 */
#include <math.h>
#include <stdio.h>

/* #pragma scop / endscop mark the region for polyhedral tools; gcc ignores them. */
#pragma GCC diagnostic ignored "-Wunknown-pragmas"

#ifndef M
# define M 44
#endif
#ifndef N
# define N 36
#endif

/* Diagonally dominant top block: the columns are well conditioned. */
static void columns(double A[M][N], double R[N][N], double Q[M][N])
{
  int i, j;

  for (i = 0; i < M; i++)
    for (j = 0; j < N; j++) {
      A[i][j] = (double)((i * j + 1) % M) / M + (i == j ? (double)M : 0.0);
      Q[i][j] = 0.0;
    }
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      R[i][j] = 0.0;
}

static void kernel_gramschmidt(double A[M][N], double R[N][N], double Q[M][N])
{
  int i, j, k;
  double nrm;

#pragma scop
  for (k = 0; k < N; k++) {
    nrm = 0.0;
    for (i = 0; i < M; i++)
      nrm += A[i][k] * A[i][k];
    R[k][k] = sqrt(nrm);
    for (i = 0; i < M; i++)
      Q[i][k] = A[i][k] / R[k][k];
    for (j = k + 1; j < N; j++) {
      R[k][j] = 0.0;
      for (i = 0; i < M; i++)
        R[k][j] += Q[i][k] * A[i][j];
      for (i = 0; i < M; i++)
        A[i][j] = A[i][j] - Q[i][k] * R[k][j];
    }
  }
#pragma endscop
}

static void dump(const char *name, int rows, int cols, double a[rows][cols])
{
  int i, j;

  printf("begin dump: %s\n", name);
  for (i = 0; i < rows; i++)
    for (j = 0; j < cols; j++) {
      printf("%.17g ", a[i][j]);
      if ((j + 1) % 20 == 0 || j == cols - 1)
        printf("\n");
    }
  printf("end   dump: %s\n", name);
}

int main(void)
{
  static double A[M][N], R[N][N], Q[M][N];

  columns(A, R, Q);
  kernel_gramschmidt(A, R, Q);
  dump("R", N, N, R);
  dump("Q", M, N, Q);
  dump("A", M, N, A);
  return 0;
}
