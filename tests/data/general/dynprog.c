/* dynprog.c: a kernel written apart from examples/ (tests/test_auto_general.py): --auto on code it was not tuned on. */
#include <stdio.h>
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#define T 3
#define L 24
static double c[L][L], W[L][L], sum_c[L][L][L]; static double out_l;
static void init(void)
{
  for (int i = 0; i < L; i++) for (int j = 0; j < L; j++) { W[i][j] = (double)((i*j) % 7) / L; c[i][j] = 0; }
  for (int i = 0; i < L; i++) for (int j = 0; j < L; j++) for (int k = 0; k < L; k++) sum_c[i][j][k] = 0;
  out_l = 0;
}
static void kernel(void)
{
#pragma scop
  for (int iter = 0; iter < T; iter++) {
    for (int i = 0; i <= L - 1; i++)
      for (int j = 0; j <= L - 1; j++)
        c[i][j] = 0;
    for (int i = 0; i <= L - 2; i++) {
      for (int j = i + 1; j <= L - 1; j++) {
        sum_c[i][j][i] = 0;
        for (int k = i + 1; k <= j - 1; k++)
          sum_c[i][j][k] = sum_c[i][j][k - 1] + c[i][k] + c[k][j];
        c[i][j] = sum_c[i][j][j - 1] + W[i][j];
      }
    }
    out_l += c[0][L - 1];
  }
#pragma endscop
}
int main(void)
{
  init();
  kernel();
  printf("begin dump: out\n");
  printf("%.17g\n", out_l); for (int i = 0; i < L; i++) for (int j = 0; j < L; j++) printf("%.17g\n", c[i][j]);
  printf("end   dump: out\n");
  return 0;
}
