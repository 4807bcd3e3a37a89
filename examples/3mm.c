/*
 * 3mm.c -- three matrix products: E := A*B, F := C*D, G := E*F.
 *
 * Arrays are globals and the loops use the size macros directly.
 */
#include <stdio.h>

/* #pragma scop / endscop mark the region for polyhedral tools; gcc ignores them. */
#pragma GCC diagnostic ignored "-Wunknown-pragmas"

#ifndef NI
# define NI 30
#endif
#ifndef NJ
# define NJ 34
#endif
#ifndef NK
# define NK 38
#endif
#ifndef NL
# define NL 42
#endif
#ifndef NM
# define NM 46
#endif

static double A[NI][NK];
static double B[NK][NJ];
static double C[NJ][NM];
static double D[NM][NL];
static double E[NI][NJ];
static double F[NJ][NL];
static double G[NI][NL];

static void setup(void)
{
  int i, j;

  for (i = 0; i < NI; i++)
    for (j = 0; j < NK; j++)
      A[i][j] = (double)((i * j + 1) % NI) / (5 * NI);
  for (i = 0; i < NK; i++)
    for (j = 0; j < NJ; j++)
      B[i][j] = (double)((i * (j + 1) + 2) % NJ) / (5 * NJ);
  for (i = 0; i < NJ; i++)
    for (j = 0; j < NM; j++)
      C[i][j] = (double)(i * (j + 3) % NL) / (5 * NL);
  for (i = 0; i < NM; i++)
    for (j = 0; j < NL; j++)
      D[i][j] = (double)((i * (j + 2) + 2) % NK) / (5 * NK);
}

static void kernel_3mm(void)
{
  int i, j, k;

#pragma scop
  for (i = 0; i < NI; i++)
    for (j = 0; j < NJ; j++) {
      E[i][j] = 0.0;
      for (k = 0; k < NK; k++)
        E[i][j] += A[i][k] * B[k][j];
    }
  for (i = 0; i < NJ; i++)
    for (j = 0; j < NL; j++) {
      F[i][j] = 0.0;
      for (k = 0; k < NM; k++)
        F[i][j] += C[i][k] * D[k][j];
    }
  for (i = 0; i < NI; i++)
    for (j = 0; j < NL; j++) {
      G[i][j] = 0.0;
      for (k = 0; k < NJ; k++)
        G[i][j] += E[i][k] * F[k][j];
    }
#pragma endscop
}

static void show(const char *name, int rows, int cols, double a[rows][cols])
{
  int i, j;

  printf("begin dump: %s\n", name);
  for (i = 0; i < rows; i++) {
    for (j = 0; j < cols; j++) {
      printf("%.17g ", a[i][j]);
      if (j % 20 == 19 && j != cols - 1)
        printf("\n");
    }
    printf("\n");
  }
  printf("end   dump: %s\n", name);
}

int main(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  setup();
  kernel_3mm();
  show("E", NI, NJ, E);
  show("F", NJ, NL, F);
  show("G", NI, NL, G);
  return 0;
}
