/*
 * fdtd-2d.c -- 2D finite-difference time-domain kernel (Yee scheme):
 * electric fields ex, ey and magnetic field hz updated in turn, with a
 * source term fict[t] injected on the first row.  Sizes are parameters.
 */
#include <stdio.h>

/* #pragma scop / endscop mark the region for polyhedral tools; gcc ignores them. */
#pragma GCC diagnostic ignored "-Wunknown-pragmas"

#ifndef TMAX
# define TMAX 12
#endif
#ifndef NX
# define NX 40
#endif
#ifndef NY
# define NY 48
#endif

static void init_fields(int tmax, int nx, int ny, double ex[NX][NY],
                        double ey[NX][NY], double hz[NX][NY], double fict[TMAX])
{
  int i, j;

  for (i = 0; i < tmax; i++)
    fict[i] = (double)i;
  for (i = 0; i < nx; i++)
    for (j = 0; j < ny; j++) {
      ex[i][j] = ((double)i * (j + 1)) / nx;
      ey[i][j] = ((double)i * (j + 2)) / ny;
      hz[i][j] = ((double)i * (j + 3)) / nx;
    }
}

static void kernel_fdtd_2d(int tmax, int nx, int ny, double ex[NX][NY],
                           double ey[NX][NY], double hz[NX][NY],
                           double fict[TMAX])
{
  int t, i, j;

#pragma scop
  for (t = 0; t < tmax; t++) {
    for (j = 0; j < ny; j++)
      ey[0][j] = fict[t];
    for (i = 1; i < nx; i++)
      for (j = 0; j < ny; j++)
        ey[i][j] = ey[i][j] - 0.5 * (hz[i][j] - hz[i - 1][j]);
    for (i = 0; i < nx; i++)
      for (j = 1; j < ny; j++)
        ex[i][j] = ex[i][j] - 0.5 * (hz[i][j] - hz[i][j - 1]);
    for (i = 0; i < nx - 1; i++)
      for (j = 0; j < ny - 1; j++)
        hz[i][j] = hz[i][j] - 0.7 * (ex[i][j + 1] - ex[i][j]
                                     + ey[i + 1][j] - ey[i][j]);
  }
#pragma endscop
}

static void dump_field(const char *name, int nx, int ny, double f[NX][NY])
{
  int i, j;

  printf("begin dump: %s\n", name);
  for (i = 0; i < nx; i++)
    for (j = 0; j < ny; j++) {
      printf("%.17g ", f[i][j]);
      if ((j + 1) % 20 == 0 || j == ny - 1)
        printf("\n");
    }
  printf("end   dump: %s\n", name);
}

int main(void)
{
  static double ex[NX][NY], ey[NX][NY], hz[NX][NY], fict[TMAX];

  init_fields(TMAX, NX, NY, ex, ey, hz, fict);
  kernel_fdtd_2d(TMAX, NX, NY, ex, ey, hz, fict);
  dump_field("ex", NX, NY, ex);
  dump_field("ey", NX, NY, ey);
  dump_field("hz", NX, NY, hz);
  return 0;
}
