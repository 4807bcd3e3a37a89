  (void)i;
  for (int c1 = 0; c1 < 2 * n - 1; c1 += 2)
    for (j = 0; j < m; j++)
      A[c1 / 2][j] = A[c1 / 2][j] + 1;
