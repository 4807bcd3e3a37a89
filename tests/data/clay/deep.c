/* Deep nests for Clay's tile (CLAY-REFERENCE.md 5.15): S0 in a 3-deep nest
   (a, b, c) at beta [0,0,0,0], S1 in a 4-deep nest (a, b, c, e) at
   beta [1,0,0,0,0]; no dependence crosses an instance, so every order is legal. */
#include <stdio.h>
#define N 7

static double X[N][N][N], Y[N][N][N][N];

int main(void)
{
  int a, b, c, e;
#pragma scop
  for (a = 0; a < N; a++)
    for (b = 0; b < N; b++)
      for (c = 0; c < N; c++)
        X[a][b][c] = a * 100 + b * 10 + c;
  for (a = 0; a < N; a++)
    for (b = 0; b < N; b++)
      for (c = 0; c < N; c++)
        for (e = 0; e < N; e++)
          Y[a][b][c][e] = X[a][b][c] + e;
#pragma endscop
  printf("begin dump: Y\n");
  for (a = 0; a < N; a++)
    for (b = 0; b < N; b++)
      for (c = 0; c < N; c++)
        for (e = 0; e < N; e++)
          printf("%.17g\n", Y[a][b][c][e]);
  printf("end   dump: Y\n");
  return 0;
}
