#define floord(n, d) (((n) < 0) ? -((-(n) + (d) - 1) / (d)) : (n) / (d))
  for (int c1 = 0; c1 <= floord(n - 1, 4); c1++)
    if (n >= 4 * c1 + 4) {
      for (i = 4 * c1; i <= 4 * c1 + 3; i++)
        for (j = 0; j < m; j++)
          A[i][j] = A[i][j] + 1;
    } else {
      for (i = 4 * c1; i < n; i++)
        for (j = 0; j < m; j++)
          A[i][j] = A[i][j] + 1;
    }
#undef floord
