/*
 * bicg.c -- the two matrix-vector products of BiCGStab:
 *   s := A^T * r,  q := A * p.
 */
#include <stdio.h>

/* #pragma scop / endscop mark the region for polyhedral tools; gcc ignores them. */
#pragma GCC diagnostic ignored "-Wunknown-pragmas"

#ifndef M
# define M 40
#endif
#ifndef N
# define N 46
#endif

static void prepare(int m, int n, double A[N][M], double r[N], double p[M])
{
  int i, j;

  for (i = 0; i < m; i++)
    p[i] = (double)(i % m) / m;
  for (i = 0; i < n; i++) {
    r[i] = (double)(i % n) / n;
    for (j = 0; j < m; j++)
      A[i][j] = (double)(i * (j + 1) % n) / n;
  }
}

static void kernel_bicg(int m, int n, double A[N][M], double s[M],
                        double q[N], double p[M], double r[N])
{
  int i, j;

#pragma scop
  for (i = 0; i < m; i++)
    s[i] = 0;
  for (i = 0; i < n; i++) {
    q[i] = 0.0;
    for (j = 0; j < m; j++) {
      s[j] = s[j] + r[i] * A[i][j];
      q[i] = q[i] + A[i][j] * p[j];
    }
  }
#pragma endscop
}

static void dump_vec(const char *name, int len, double v[len])
{
  int i;

  printf("begin dump: %s\n", name);
  for (i = 0; i < len; i++) {
    printf("%.17g ", v[i]);
    if ((i + 1) % 20 == 0 || i + 1 == len)
      printf("\n");
  }
  printf("end   dump: %s\n", name);
}

int main(int argc, char *argv[])
{
  static double A[N][M], s[M], q[N], p[M], r[N];

  (void)argc;
  (void)argv;
  prepare(M, N, A, r, p);
  kernel_bicg(M, N, A, s, q, p, r);
  dump_vec("s", M, s);
  dump_vec("q", N, q);
  return 0;
}
