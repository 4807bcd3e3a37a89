/*
 * adi.c -- alternating direction implicit solver for a 2D heat equation.
 *
 * Each time step does a column sweep then a row sweep; each sweep is a
 * forward elimination followed by a reversed back-substitution loop.
 */
#include <stdio.h>

/* #pragma scop / endscop mark the region for polyhedral tools; gcc ignores them. */
#pragma GCC diagnostic ignored "-Wunknown-pragmas"

#ifndef TSTEPS
# define TSTEPS 10
#endif
#ifndef N
# define N 40
#endif

static void init_grid(int n, double u[N][N])
{
  int i, j;

  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      u[i][j] = (double)(i + n - j) / n;
}

static void kernel_adi(int tsteps, int n, double u[N][N], double v[N][N],
                       double p[N][N], double q[N][N])
{
  int t, i, j;
  double DX, DY, DT;
  double B1, B2;
  double mul1, mul2;
  double a, b, c, d, e, f;

#pragma scop
  DX = 1.0 / (double)n;
  DY = 1.0 / (double)n;
  DT = 1.0 / (double)tsteps;
  B1 = 2.0;
  B2 = 1.0;
  mul1 = B1 * DT / (DX * DX);
  mul2 = B2 * DT / (DY * DY);

  a = -mul1 / 2.0;
  b = 1.0 + mul1;
  c = a;
  d = -mul2 / 2.0;
  e = 1.0 + mul2;
  f = d;

  for (t = 1; t <= tsteps; t++) {
    /* column sweep */
    for (i = 1; i < n - 1; i++) {
      v[0][i] = 1.0;
      p[i][0] = 0.0;
      q[i][0] = v[0][i];
      for (j = 1; j < n - 1; j++) {
        p[i][j] = -c / (a * p[i][j - 1] + b);
        q[i][j] = (-d * u[j][i - 1] + (1.0 + 2.0 * d) * u[j][i]
                   - f * u[j][i + 1] - a * q[i][j - 1])
                  / (a * p[i][j - 1] + b);
      }
      v[n - 1][i] = 1.0;
      for (j = n - 2; j >= 1; j--)
        v[j][i] = p[i][j] * v[j + 1][i] + q[i][j];
    }
    /* row sweep */
    for (i = 1; i < n - 1; i++) {
      u[i][0] = 1.0;
      p[i][0] = 0.0;
      q[i][0] = u[i][0];
      for (j = 1; j < n - 1; j++) {
        p[i][j] = -f / (d * p[i][j - 1] + e);
        q[i][j] = (-a * v[i - 1][j] + (1.0 + 2.0 * a) * v[i][j]
                   - c * v[i + 1][j] - d * q[i][j - 1])
                  / (d * p[i][j - 1] + e);
      }
      u[i][n - 1] = 1.0;
      for (j = n - 2; j >= 1; j--)
        u[i][j] = p[i][j] * u[i][j + 1] + q[i][j];
    }
  }
#pragma endscop
}

static void dump(const char *name, int n, double g[N][N])
{
  int i, j;

  printf("begin dump: %s\n", name);
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      printf("%.17g ", g[i][j]);
      if ((j + 1) % 20 == 0 || j + 1 == n)
        putchar('\n');
    }
  printf("end   dump: %s\n", name);
}

int main(void)
{
  static double u[N][N], v[N][N], p[N][N], q[N][N];

  init_grid(N, u);
  kernel_adi(TSTEPS, N, u, v, p, q);
  dump("u", N, u);
  dump("v", N, v);
  return 0;
}
