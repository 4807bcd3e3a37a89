/* The running example of the Clay reference (CLAY-REFERENCE.md, section 0):
   statements P, Q, R, T at beta [0,0,0], [0,0,1], [0,1], [1]. */
#include <stdio.h>
#define N 6

static double A[N][N], B[N][N], C[N][N], D[N];
static double x;

int main(void)
{
  int i, j;
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      B[i][j] = (i * 7 + j * 3) % 11 / 11.0;
#pragma scop
  for (i = 0; i < N; i++) {
    for (j = 0; j < N; j++) {
      A[i][j] = B[i][j];
      C[i][j] = A[i][j] + 1;
    }
    D[i] = C[i][0];
  }
  x = 0;
#pragma endscop
  printf("begin dump: C\n");
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      printf("%.17g\n", C[i][j]);
  printf("end   dump: C\n");
  printf("begin dump: D\n");
  for (i = 0; i < N; i++)
    printf("%.17g\n", D[i]);
  printf("end   dump: D\n");
  return 0;
}
