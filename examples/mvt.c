/*
 * mvt.c -- two matrix-vector products sharing A:
 *   x1 := x1 + A y1,  x2 := x2 + A^T y2.
 * Iterators are declared in the for statements; size macro N.
 */
#include <stdio.h>

/* #pragma scop / endscop mark the region for polyhedral tools; gcc ignores them. */
#pragma GCC diagnostic ignored "-Wunknown-pragmas"

#ifndef N
# define N 48
#endif

static void init_vectors(double x1[N], double x2[N], double y1[N],
                         double y2[N], double A[N][N])
{
  for (int i = 0; i < N; i++) {
    x1[i] = (double)(i % N) / N;
    x2[i] = (double)((i + 1) % N) / N;
    y1[i] = (double)((i + 3) % N) / N;
    y2[i] = (double)((i + 4) % N) / N;
    for (int j = 0; j < N; j++)
      A[i][j] = (double)(i * j % N) / N;
  }
}

static void kernel_mvt(double x1[N], double x2[N], double y1[N],
                       double y2[N], double A[N][N])
{
#pragma scop
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      x1[i] = x1[i] + A[i][j] * y1[j];
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      x2[i] = x2[i] + A[j][i] * y2[j];
#pragma endscop
}

static void emit(const char *name, double v[N])
{
  printf("begin dump: %s\n", name);
  for (int i = 0; i < N; i++) {
    printf("%.17g ", v[i]);
    if ((i + 1) % 20 == 0 || i == N - 1)
      printf("\n");
  }
  printf("end   dump: %s\n", name);
}

int main(void)
{
  static double x1[N], x2[N], y1[N], y2[N], A[N][N];

  init_vectors(x1, x2, y1, y2, A);
  kernel_mvt(x1, x2, y1, y2, A);
  emit("x1", x1);
  emit("x2", x2);
  return 0;
}
