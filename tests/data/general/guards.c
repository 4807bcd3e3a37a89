/* guards.c: a kernel written apart from examples/ (tests/test_auto_general.py): --auto on code it was not tuned on. */
#include <stdio.h>
#include <math.h>
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#define NN 45
#define MM 30
static double A[NN][NN], x[NN], y[NN];
static void init(void)
{
  for (int i = 0; i < NN; i++) { x[i] = (double)(i % 9) / 3; y[i] = 0; for (int j = 0; j < NN; j++) A[i][j] = (double)((i + 2*j) % 13) / 13; }
}
static void kernel(int n, int m)
{
#pragma scop
  for (int i = 0; i < n; i++) {
    if (i % 2 == 0)
      y[i] = x[i];
    for (int j = (i > 3 ? i - 3 : 0); j < (i + 4 < n ? i + 4 : n); j++)
      if (j < m)
        y[i] = y[i] + A[i][j] * x[j];
  }
  for (int i = 2; i < n; i += 2)
    x[i] = sqrt(y[i] * y[i] + 1.0) + x[i - 2];
#pragma endscop
}
int main(void)
{
  init();
  kernel(NN, MM);
  printf("begin dump: out\n");
  for (int i = 0; i < NN; i++) printf("%.17g %.17g\n", x[i], y[i]);
  printf("end   dump: out\n");
  return 0;
}
