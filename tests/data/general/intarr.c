/* intarr.c: a kernel written apart from examples/ (tests/test_auto_general.py): --auto on code it was not tuned on. */
#include <stdio.h>
#include <math.h>
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#define NN 50
#define MM 7
static int h[NN], v[NN][MM]; static long tot;
static void init(void)
{
  for (int i = 0; i < NN; i++) { h[i] = 0; for (int j = 0; j < MM; j++) v[i][j] = (i * 31 + j * 17) % 23; } tot = 0;
}
static void kernel(int n, int m)
{
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      h[i] = h[i] + v[i][j] * (j + 1);
  for (int i = 1; i < n; i++)
    h[i] = h[i] > h[i - 1] ? h[i] : h[i - 1];
  for (int i = 0; i < n; i++)
    tot = tot + h[i];
#pragma endscop
}
int main(void)
{
  init();
  kernel(NN, MM);
  printf("begin dump: out\n");
  printf("%ld\n", tot); for (int i = 0; i < NN; i++) printf("%d\n", h[i]);
  printf("end   dump: out\n");
  return 0;
}
