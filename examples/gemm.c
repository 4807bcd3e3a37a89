/*
 * gemm.c -- general matrix multiply C := alpha * A * B + beta * C.
 * Sizes are int parameters of the kernel.
 */
#include <stdio.h>

/* #pragma scop / endscop mark the region for polyhedral tools; gcc ignores them. */
#pragma GCC diagnostic ignored "-Wunknown-pragmas"

#ifndef NI
# define NI 40
#endif
#ifndef NJ
# define NJ 44
#endif
#ifndef NK
# define NK 48
#endif

static void init_array(int ni, int nj, int nk, double C[NI][NJ],
                       double A[NI][NK], double B[NK][NJ])
{
  int i, j;

  for (i = 0; i < ni; i++)
    for (j = 0; j < nj; j++)
      C[i][j] = (double)((i * j + 1) % ni) / ni;
  for (i = 0; i < ni; i++)
    for (j = 0; j < nk; j++)
      A[i][j] = (double)(i * (j + 1) % nk) / nk;
  for (i = 0; i < nk; i++)
    for (j = 0; j < nj; j++)
      B[i][j] = (double)(i * (j + 2) % nj) / nj;
}

static void kernel_gemm(int ni, int nj, int nk, double alpha, double beta,
                        double C[NI][NJ], double A[NI][NK], double B[NK][NJ])
{
  int i, j, k;

#pragma scop
  for (i = 0; i < ni; i++) {
    for (j = 0; j < nj; j++)
      C[i][j] *= beta;
    for (k = 0; k < nk; k++)
      for (j = 0; j < nj; j++)
        C[i][j] += alpha * A[i][k] * B[k][j];
  }
#pragma endscop
}

static void print_array(int ni, int nj, double C[NI][NJ])
{
  int i, j;

  printf("begin dump: %s\n", "C");
  for (i = 0; i < ni; i++)
    for (j = 0; j < nj; j++) {
      printf("%.17g ", C[i][j]);
      if ((j + 1) % 20 == 0 || j == nj - 1)
        printf("\n");
    }
  printf("end   dump: %s\n", "C");
}

int main(int argc, char **argv)
{
  static double C[NI][NJ], A[NI][NK], B[NK][NJ];
  double alpha = 1.5;
  double beta = 1.2;

  (void)argc;
  (void)argv;
  init_array(NI, NJ, NK, C, A, B);
  kernel_gemm(NI, NJ, NK, alpha, beta, C, A, B);
  print_array(NI, NJ, C);
  return 0;
}
