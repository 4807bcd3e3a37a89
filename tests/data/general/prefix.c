/* prefix.c: a kernel written apart from examples/ (tests/test_auto_general.py): --auto on code it was not tuned on. */
#include <stdio.h>
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#define N 100
static double x[N], y[N], z[N]; static double s;
static void init(void)
{
  for (int i = 0; i < N; i++) { x[i] = (double)(i % 13) / 7; y[i] = 0; z[i] = 0; } s = 0;
}
static void kernel(void)
{
#pragma scop
  y[0] = x[0];
  for (int i = 1; i < N; i++)
    y[i] = y[i-1] + x[i];
  for (int i = 0; i < N; i++) {
    s = s + y[i];
    z[i] = s * 0.5;
  }
  for (int i = N - 2; i >= 0; i--)
    z[i] = z[i] + z[i+1] * 0.25;
#pragma endscop
}
int main(void)
{
  init();
  kernel();
  printf("begin dump: out\n");
  printf("%.17g\n", s); for (int i = 0; i < N; i++) printf("%.17g %.17g\n", y[i], z[i]);
  printf("end   dump: out\n");
  return 0;
}
