#define floord(n, d) (((n) < 0) ? -((-(n) + (d) - 1) / (d)) : (n) / (d))
#define min(x, y) ((x) < (y) ? (x) : (y))
  for (int c1 = 0; c1 <= floord(n - 1, 4); c1++)
    for (i = 4 * c1; i <= min(n - 1, 4 * c1 + 3); i++)
      for (j = 0; j < m; j++)
        A[i][j] = A[i][j] + 1;
#undef floord
#undef min
