/* tce.c: a kernel written apart from examples/ (tests/test_auto_general.py): --auto on code it was not tuned on. */
#include <stdio.h>
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#define N 10
static double A[N][N][N][N], C1[N][N], C2[N][N], C3[N][N], C4[N][N], T1[N][N][N][N], T2[N][N][N][N], T3[N][N][N][N], B[N][N][N][N];
static void init(void)
{
  for (int a = 0; a < N; a++) for (int b = 0; b < N; b++) { C1[a][b] = (double)(a*b%5)/N; C2[a][b] = (double)((a+b)%3)/N; C3[a][b] = (double)((a+2*b)%7)/N; C4[a][b] = (double)((3*a+b)%4)/N;
    for (int c = 0; c < N; c++) for (int d = 0; d < N; d++) { A[a][b][c][d] = (double)((a+b*c+d)%9)/N; T1[a][b][c][d] = 0; T2[a][b][c][d] = 0; T3[a][b][c][d] = 0; B[a][b][c][d] = 0; } }
}
static void kernel(void)
{
#pragma scop
  for (int a = 0; a < N; a++) for (int q = 0; q < N; q++) for (int r = 0; r < N; r++) for (int s = 0; s < N; s++) for (int p = 0; p < N; p++)
    T1[a][q][r][s] = T1[a][q][r][s] + A[p][q][r][s] * C4[p][a];
  for (int a = 0; a < N; a++) for (int b = 0; b < N; b++) for (int r = 0; r < N; r++) for (int s = 0; s < N; s++) for (int q = 0; q < N; q++)
    T2[a][b][r][s] = T2[a][b][r][s] + T1[a][q][r][s] * C3[q][b];
  for (int a = 0; a < N; a++) for (int b = 0; b < N; b++) for (int c = 0; c < N; c++) for (int s = 0; s < N; s++) for (int r = 0; r < N; r++)
    T3[a][b][c][s] = T3[a][b][c][s] + T2[a][b][r][s] * C2[r][c];
  for (int a = 0; a < N; a++) for (int b = 0; b < N; b++) for (int c = 0; c < N; c++) for (int d = 0; d < N; d++) for (int s = 0; s < N; s++)
    B[a][b][c][d] = B[a][b][c][d] + T3[a][b][c][s] * C1[s][d];
#pragma endscop
}
int main(void)
{
  init();
  kernel();
  printf("begin dump: out\n");
  for (int a = 0; a < N; a++) for (int b = 0; b < N; b++) for (int c = 0; c < N; c++) for (int d = 0; d < N; d++) printf("%.17g\n", B[a][b][c][d]);
  printf("end   dump: out\n");
  return 0;
}
