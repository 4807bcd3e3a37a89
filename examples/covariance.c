/*
 * covariance.c -- covariance matrix of M variables observed N times.
 * Loops use the size macros; the symmetric result is computed on the
 * upper triangle and mirrored.
 */
#include <stdio.h>

/* #pragma scop / endscop mark the region for polyhedral tools; gcc ignores them. */
#pragma GCC diagnostic ignored "-Wunknown-pragmas"

#ifndef M
# define M 34
#endif
#ifndef N
# define N 42
#endif

static void sample(double data[N][M])
{
  int i, j;

  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      data[i][j] = (double)(i * j % 13) / M + (double)(i % 5) / 4.0;
}

static void kernel_covariance(double float_n, double data[N][M],
                              double cov[M][M], double mean[M])
{
  int i, j, k;

#pragma scop
  for (j = 0; j < M; j++) {
    mean[j] = 0.0;
    for (i = 0; i < N; i++)
      mean[j] += data[i][j];
    mean[j] /= float_n;
  }

  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      data[i][j] -= mean[j];

  for (i = 0; i < M; i++)
    for (j = i; j < M; j++) {
      cov[i][j] = 0.0;
      for (k = 0; k < N; k++)
        cov[i][j] += data[k][i] * data[k][j];
      cov[i][j] /= (float_n - 1.0);
      cov[j][i] = cov[i][j];
    }
#pragma endscop
}

static void print_rows(const char *name, int rows, int cols, double a[rows][cols])
{
  int i, j;

  printf("begin dump: %s\n", name);
  for (i = 0; i < rows; i++)
    for (j = 0; j < cols; j++)
      printf((j + 1) % 20 == 0 || j + 1 == cols ? "%.17g \n" : "%.17g ", a[i][j]);
  printf("end   dump: %s\n", name);
}

int main(void)
{
  static double data[N][M], cov[M][M], mean[M];

  sample(data);
  kernel_covariance((double)N, data, cov, mean);
  print_rows("cov", M, M, cov);
  print_rows("mean", 1, M, (double (*)[M])mean);
  print_rows("data", N, M, data);
  return 0;
}
