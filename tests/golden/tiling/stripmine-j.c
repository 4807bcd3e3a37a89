#define floord(n, d) (((n) < 0) ? -((-(n) + (d) - 1) / (d)) : (n) / (d))
  for (i = 0; i < n; i++)
    for (int c2 = 0; c2 <= floord(m - 1, 4); c2++)
      if (m >= 4 * c2 + 4) {
        for (j = 4 * c2; j <= 4 * c2 + 3; j++)
          A[i][j] = A[i][j] + 1;
      } else {
        for (j = 4 * c2; j < m; j++)
          A[i][j] = A[i][j] + 1;
      }
#undef floord
