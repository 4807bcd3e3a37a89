/*
 * correlation.c -- Pearson correlation matrix of M variables observed N
 * times.  Sizes are passed as int parameters; a ternary guards against
 * near-zero standard deviations.
 */
#include <math.h>
#include <stdio.h>

/* #pragma scop / endscop mark the region for polyhedral tools; gcc ignores them. */
#pragma GCC diagnostic ignored "-Wunknown-pragmas"

#ifndef M
# define M 32
#endif
#ifndef N
# define N 40
#endif

static void observe(int m, int n, double data[N][M])
{
  int i, j;

  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++)
      data[i][j] = (double)((i * j) % 11) / 11.0 + 0.1 * (i % 7) + (double)j / m;
}

static void kernel_correlation(int m, int n, double float_n,
                               double data[N][M], double corr[M][M],
                               double mean[M], double stddev[M])
{
  int i, j, k;
  double eps;

#pragma scop
  eps = 0.1;

  for (j = 0; j < m; j++) {
    mean[j] = 0.0;
    for (i = 0; i < n; i++)
      mean[j] += data[i][j];
    mean[j] /= float_n;
  }

  for (j = 0; j < m; j++) {
    stddev[j] = 0.0;
    for (i = 0; i < n; i++)
      stddev[j] += (data[i][j] - mean[j]) * (data[i][j] - mean[j]);
    stddev[j] /= float_n;
    stddev[j] = sqrt(stddev[j]);
    stddev[j] = stddev[j] <= eps ? 1.0 : stddev[j];
  }

  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++) {
      data[i][j] -= mean[j];
      data[i][j] /= sqrt(float_n) * stddev[j];
    }

  for (i = 0; i < m - 1; i++) {
    corr[i][i] = 1.0;
    for (j = i + 1; j < m; j++) {
      corr[i][j] = 0.0;
      for (k = 0; k < n; k++)
        corr[i][j] += data[k][i] * data[k][j];
      corr[j][i] = corr[i][j];
    }
  }
  corr[m - 1][m - 1] = 1.0;
#pragma endscop
}

static void dump_2d(const char *name, int rows, int cols, double a[rows][cols])
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

static void dump_1d(const char *name, int len, double a[len])
{
  int i;

  printf("begin dump: %s\n", name);
  for (i = 0; i < len; i++) {
    printf("%.17g ", a[i]);
    if ((i + 1) % 20 == 0 || i == len - 1)
      printf("\n");
  }
  printf("end   dump: %s\n", name);
}

int main(void)
{
  static double data[N][M], corr[M][M], mean[M], stddev[M];

  observe(M, N, data);
  kernel_correlation(M, N, (double)N, data, corr, mean, stddev);
  dump_2d("corr", M, M, corr);
  dump_1d("mean", M, mean);
  dump_1d("stddev", M, stddev);
  dump_2d("data", N, M, data);
  return 0;
}
