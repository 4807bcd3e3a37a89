/* jacobi3d.c: a kernel written apart from examples/ (tests/test_auto_general.py): --auto on code it was not tuned on. */
#include <stdio.h>
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#define T 4
#define N 14
static double A[N][N][N], B[N][N][N];
static void init(void)
{
  for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) for (int k = 0; k < N; k++) { A[i][j][k] = (double)(i + j + (N-k)) * 10 / N; B[i][j][k] = A[i][j][k]; }
}
static void kernel(void)
{
#pragma scop
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < N - 1; j++)
        for (int k = 1; k < N - 1; k++)
          B[i][j][k] = 0.125 * (A[i+1][j][k] + A[i-1][j][k] + A[i][j+1][k] + A[i][j-1][k] + A[i][j][k+1] + A[i][j][k-1]) + 0.25 * A[i][j][k];
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < N - 1; j++)
        for (int k = 1; k < N - 1; k++)
          A[i][j][k] = B[i][j][k];
  }
#pragma endscop
}
int main(void)
{
  init();
  kernel();
  printf("begin dump: out\n");
  for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) for (int k = 0; k < N; k++) printf("%.17g\n", A[i][j][k]);
  printf("end   dump: out\n");
  return 0;
}
