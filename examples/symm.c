/*
 * symm.c -- symmetric matrix multiply C := alpha * A * B + beta * C where
 * only the lower triangle of the symmetric M x M matrix A is referenced.
 * A scalar temp2 accumulates along a triangular loop.  Size parameters.
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

static void init_operands(int m, int n, double C[M][N], double A[M][M],
                          double B[M][N])
{
  int i, j;

  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++) {
      C[i][j] = (double)((i + j) % 100) / m;
      B[i][j] = (double)((n + i - j) % 100) / m;
    }
  for (i = 0; i < m; i++) {
    for (j = 0; j <= i; j++)
      A[i][j] = (double)((i + j) % 100) / m;
    for (j = i + 1; j < m; j++)
      A[i][j] = -999.0;  /* never read */
  }
}

static void kernel_symm(int m, int n, double alpha, double beta,
                        double C[M][N], double A[M][M], double B[M][N])
{
  int i, j, k;
  double temp2;

#pragma scop
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++) {
      temp2 = 0;
      for (k = 0; k < i; k++) {
        C[k][j] += alpha * B[i][j] * A[i][k];
        temp2 += B[k][j] * A[i][k];
      }
      C[i][j] = beta * C[i][j] + alpha * B[i][j] * A[i][i] + alpha * temp2;
    }
#pragma endscop
}

static void print_matrix(int m, int n, double C[M][N])
{
  int i, j;

  printf("begin dump: C\n");
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++) {
      printf("%.17g ", C[i][j]);
      if ((j + 1) % 20 == 0 || j == n - 1)
        printf("\n");
    }
  printf("end   dump: C\n");
}

int main(void)
{
  static double C[M][N], A[M][M], B[M][N];

  init_operands(M, N, C, A, B);
  kernel_symm(M, N, 1.5, 1.2, C, A, B);
  print_matrix(M, N, C);
  return 0;
}
