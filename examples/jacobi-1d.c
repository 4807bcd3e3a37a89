/*
 * jacobi-1d.c -- 3-point Jacobi stencil in one dimension, two arrays
 * updated in turn.  Iterators are declared in the for statements.
 */
#include <stdio.h>

/* #pragma scop / endscop mark the region for polyhedral tools; gcc ignores them. */
#pragma GCC diagnostic ignored "-Wunknown-pragmas"

#ifndef TSTEPS
# define TSTEPS 20
#endif
#ifndef N
# define N 60
#endif

static double A[N];
static double B[N];

static void init_line(void)
{
  for (int i = 0; i < N; i++) {
    A[i] = ((double)i + 2) / N;
    B[i] = ((double)i + 3) / N;
  }
}

static void kernel_jacobi_1d(void)
{
#pragma scop
  for (int t = 0; t < TSTEPS; t++) {
    for (int i = 1; i < N - 1; i++)
      B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1]);
    for (int i = 1; i < N - 1; i++)
      A[i] = 0.33333 * (B[i - 1] + B[i] + B[i + 1]);
  }
#pragma endscop
}

static void dump_line(const char *name, double v[N])
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
  init_line();
  kernel_jacobi_1d();
  dump_line("A", A);
  dump_line("B", B);
  return 0;
}
