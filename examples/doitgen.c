/*
 * doitgen.c -- multiresolution analysis kernel: every (r, q) slice of the
 * 3D array A is multiplied by the matrix C4, through the buffer sum.
 * Global arrays, loops bounded by the size macros.
 */
#include <stdio.h>

/* #pragma scop / endscop mark the region for polyhedral tools; gcc ignores them. */
#pragma GCC diagnostic ignored "-Wunknown-pragmas"

#ifndef NR
# define NR 20
#endif
#ifndef NQ
# define NQ 24
#endif
#ifndef NP
# define NP 28
#endif

static double A[NR][NQ][NP];
static double C4[NP][NP];
static double sum[NP];

static void init_tensors(void)
{
  int r, q, p, s;

  for (r = 0; r < NR; r++)
    for (q = 0; q < NQ; q++)
      for (p = 0; p < NP; p++)
        A[r][q][p] = (double)((r * q + p) % NP) / NP;
  for (p = 0; p < NP; p++)
    for (s = 0; s < NP; s++)
      C4[p][s] = (double)(p * s % NP) / (2 * NP);
}

static void kernel_doitgen(void)
{
  int r, q, p, s;

#pragma scop
  for (r = 0; r < NR; r++)
    for (q = 0; q < NQ; q++) {
      for (p = 0; p < NP; p++) {
        sum[p] = 0.0;
        for (s = 0; s < NP; s++)
          sum[p] += A[r][q][s] * C4[s][p];
      }
      for (p = 0; p < NP; p++)
        A[r][q][p] = sum[p];
    }
#pragma endscop
}

int main(void)
{
  int r, q, p;

  init_tensors();
  kernel_doitgen();

  printf("begin dump: A\n");
  for (r = 0; r < NR; r++)
    for (q = 0; q < NQ; q++)
      for (p = 0; p < NP; p++) {
        printf("%.17g ", A[r][q][p]);
        if ((p + 1) % 20 == 0 || p == NP - 1)
          printf("\n");
      }
  printf("end   dump: A\n");

  printf("begin dump: sum\n");
  for (p = 0; p < NP; p++) {
    printf("%.17g ", sum[p]);
    if ((p + 1) % 20 == 0 || p == NP - 1)
      printf("\n");
  }
  printf("end   dump: sum\n");
  return 0;
}
