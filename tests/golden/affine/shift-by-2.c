  (void)i;
  for (int c1 = -2; c1 < n - 2; c1++)
    for (j = 0; j < m; j++)
      A[c1 + 2][j] = A[c1 + 2][j] + 1;
