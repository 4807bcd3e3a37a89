/*
 * floyd-warshall.c -- all-pairs shortest paths on a dense integer weight
 * matrix (999 stands for "no edge").  Uses an int array, the min macro in
 * the statement and the size macro N in the bounds.
 */
#include <stdio.h>

/* #pragma scop / endscop mark the region for polyhedral tools; gcc ignores them. */
#pragma GCC diagnostic ignored "-Wunknown-pragmas"

#ifndef N
# define N 48
#endif

#define min(a, b) ((a) < (b) ? (a) : (b))

static int paths[N][N];

static void make_graph(void)
{
  int i, j;

  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++) {
      paths[i][j] = (i * j) % 7 + 1;
      if ((i + j) % 13 == 0 || (i + j) % 7 == 0 || (i + j) % 11 == 0)
        paths[i][j] = 999;
    }
  for (i = 0; i < N; i++)
    paths[i][i] = 0;
}

static void kernel_floyd_warshall(void)
{
  int i, j, k;

#pragma scop
  for (k = 0; k < N; k++)
    for (i = 0; i < N; i++)
      for (j = 0; j < N; j++)
        paths[i][j] = min(paths[i][j], paths[i][k] + paths[k][j]);
#pragma endscop
}

int main(void)
{
  int i, j;

  make_graph();
  kernel_floyd_warshall();

  printf("begin dump: paths\n");
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++) {
      printf("%d ", paths[i][j]);
      if ((j + 1) % 20 == 0 || j == N - 1)
        printf("\n");
    }
  printf("end   dump: paths\n");
  return 0;
}
