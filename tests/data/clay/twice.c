/* Layout directives of Clay on a loop (CLAY-REFERENCE.md 6.1-6.4): the local
   array t is accessed once by S0 [0,0,0] and twice, by two references, by
   S1 [0,1,0]; A and B live.  Array ids: see get_array_id. */
#include <stdio.h>
#ifndef N
# define N 7
#endif

static double A[N][N], B[N][N];

static void kernel(int n)
{
  int i, j;
  double t[N][N];
#pragma scop
  for (i = 0; i < n; i++) {
    for (j = 0; j < n; j++)
      t[i][j] = A[i][j] * 2;
    for (j = 0; j < n; j++)
      B[i][j] = t[i][j] + t[i][n - 1 - j];
  }
#pragma endscop
}

int main(void)
{
  int i, j;
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      A[i][j] = (double)((i * 5 + j * 3) % 11) / 11;
  kernel(N);
  printf("begin dump: B\n");
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      printf("%.17g\n", B[i][j]);
  printf("end   dump: B\n");
  return 0;
}
