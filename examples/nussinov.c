/*
 * nussinov.c -- Nussinov RNA folding: maximal number of matching base
 * pairs for every subsequence seq[i..j].  Integer arrays; the outer loop
 * is reversed; the conditions use &&, || and !; max_score and match are
 * macros containing ternaries.  Size parameter n.
 */
#include <stdio.h>

/* #pragma scop / endscop mark the region for polyhedral tools; gcc ignores them. */
#pragma GCC diagnostic ignored "-Wunknown-pragmas"

#ifndef N
# define N 50
#endif

/* Bases are 0..3 (A, C, G, U); a pair matches when the codes add to 3. */
#define match(b1, b2) (((b1) + (b2)) == 3 ? 1 : 0)
#define max_score(s1, s2) ((s1) >= (s2) ? (s1) : (s2))

static void read_sequence(int n, int seq[N], int table[N][N])
{
  int i, j;

  for (i = 0; i < n; i++)
    seq[i] = (i * 7 + i / 3 + 1) % 4;
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      table[i][j] = 0;
}

static void kernel_nussinov(int n, int seq[N], int table[N][N])
{
  int i, j, k;

#pragma scop
  for (i = n - 1; i >= 0; i--) {
    for (j = i + 1; j < n; j++) {
      if (j - 1 >= 0)
        table[i][j] = max_score(table[i][j], table[i][j - 1]);
      if (i + 1 < n)
        table[i][j] = max_score(table[i][j], table[i + 1][j]);
      if (!(j - 1 < 0 || i + 1 >= n)) {
        if (i < j - 1)
          table[i][j] = max_score(table[i][j], table[i + 1][j - 1] + match(seq[i], seq[j]));
        else
          table[i][j] = max_score(table[i][j], table[i + 1][j - 1]);
      }
      for (k = i + 1; k < j; k++)
        table[i][j] = max_score(table[i][j], table[i][k] + table[k + 1][j]);
    }
  }
#pragma endscop
}

int main(void)
{
  static int seq[N], table[N][N];
  int i, j;

  read_sequence(N, seq, table);
  kernel_nussinov(N, seq, table);
  printf("begin dump: table\n");
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++) {
      printf("%d ", table[i][j]);
      if ((j + 1) % 20 == 0 || j == N - 1)
        printf("\n");
    }
  printf("end   dump: table\n");
  return 0;
}
