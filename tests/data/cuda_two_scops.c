#include <stdio.h>
#ifndef N
# define N 30
#endif
static double A[N], B[N][N];

static void first(int n)
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = 2 * A[i] + i;
#pragma endscop
}

static void second(int n)
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      if (i + j < n)
        B[i][j] = A[i] * A[j];
      else
        B[i][j] = -A[j];
#pragma endscop
}

int main(void)
{
  int i;
  for (i = 0; i < N; i++) A[i] = i % 7;
  first(N);
  second(N);
  printf("begin dump: B\n");
  for (i = 0; i < N * N; i++) printf("%.17g ", B[i / N][i % N]);
  printf("\nend   dump: B\n");
  return 0;
}
