/*
 * 2mm.c -- two chained matrix products.
 *
 *   tmp := alpha * A * B          (NI x NK) * (NK x NJ)
 *   D   := tmp * C + beta * D     (NI x NJ) * (NJ x NL)
 *
 * The kernel receives its sizes as int parameters.
 */
#include <stdio.h>

/* #pragma scop / endscop mark the region for polyhedral tools; gcc ignores them. */
#pragma GCC diagnostic ignored "-Wunknown-pragmas"

#ifndef NI
# define NI 32
#endif
#ifndef NJ
# define NJ 36
#endif
#ifndef NK
# define NK 40
#endif
#ifndef NL
# define NL 44
#endif

static void fill_inputs(int ni, int nj, int nk, int nl,
                        double A[NI][NK], double B[NK][NJ],
                        double C[NJ][NL], double D[NI][NL])
{
  int i, j;

  for (i = 0; i < ni; i++)
    for (j = 0; j < nk; j++)
      A[i][j] = (double)((i * j + 1) % ni) / ni;
  for (i = 0; i < nk; i++)
    for (j = 0; j < nj; j++)
      B[i][j] = (double)(i * (j + 1) % nj) / nj;
  for (i = 0; i < nj; i++)
    for (j = 0; j < nl; j++)
      C[i][j] = (double)((i * (j + 3) + 1) % nl) / nl;
  for (i = 0; i < ni; i++)
    for (j = 0; j < nl; j++)
      D[i][j] = (double)(i * (j + 2) % nk) / nk;
}

static void kernel_2mm(int ni, int nj, int nk, int nl,
                       double alpha, double beta,
                       double tmp[NI][NJ], double A[NI][NK], double B[NK][NJ],
                       double C[NJ][NL], double D[NI][NL])
{
  int i, j, k;

#pragma scop
  /* tmp := alpha * A * B */
  for (i = 0; i < ni; i++)
    for (j = 0; j < nj; j++) {
      tmp[i][j] = 0.0;
      for (k = 0; k < nk; ++k)
        tmp[i][j] += alpha * A[i][k] * B[k][j];
    }
  /* D := tmp * C + beta * D */
  for (i = 0; i < ni; i++)
    for (j = 0; j < nl; j++) {
      D[i][j] *= beta;
      for (k = 0; k < nj; ++k)
        D[i][j] += tmp[i][k] * C[k][j];
    }
#pragma endscop
}

static void dump_matrix(const char *name, int rows, int cols,
                        double m[rows][cols])
{
  int i, j;

  printf("begin dump: %s\n", name);
  for (i = 0; i < rows; i++)
    for (j = 0; j < cols; j++) {
      printf("%.17g ", m[i][j]);
      if ((j + 1) % 20 == 0 || j == cols - 1)
        printf("\n");
    }
  printf("end   dump: %s\n", name);
}

int main(void)
{
  static double A[NI][NK], B[NK][NJ], C[NJ][NL], D[NI][NL], tmp[NI][NJ];
  double alpha = 1.5, beta = 1.2;

  fill_inputs(NI, NJ, NK, NL, A, B, C, D);
  kernel_2mm(NI, NJ, NK, NL, alpha, beta, tmp, A, B, C, D);
  dump_matrix("tmp", NI, NJ, tmp);
  dump_matrix("D", NI, NL, D);
  return 0;
}
