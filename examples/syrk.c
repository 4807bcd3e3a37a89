/*
 * syrk.c -- symmetric rank-k update of the lower triangle of C:
 *   C := alpha * A A^T + beta * C.
 * Size parameters; iterators declared in the for statements.
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

static void init_syrk(int n, int m, double C[N][N], double A[N][M])
{
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      A[i][j] = (double)((i * j + 1) % n) / n;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      C[i][j] = (double)((i * j + 2) % m) / m;
}

static void kernel_syrk(int n, int m, double alpha, double beta,
                        double C[N][N], double A[N][M])
{
#pragma scop
  for (int i = 0; i < n; i++) {
    for (int j = 0; j <= i; j++)
      C[i][j] *= beta;
    for (int k = 0; k < m; k++) {
      for (int j = 0; j <= i; j++)
        C[i][j] += alpha * A[i][k] * A[j][k];
    }
  }
#pragma endscop
}

int main(void)
{
  static double C[N][N], A[N][M];

  init_syrk(N, M, C, A);
  kernel_syrk(N, M, 1.5, 1.2, C, A);
  printf("begin dump: C\n");
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      printf("%.17g ", C[i][j]);
      if ((j + 1) % 20 == 0 || j == N - 1)
        printf("\n");
    }
  printf("end   dump: C\n");
  return 0;
}
