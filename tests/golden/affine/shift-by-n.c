  (void)i;
  for (int c1 = -n; c1 < 0; c1++)
    for (j = 0; j < m; j++)
      A[n + c1][j] = A[n + c1][j] + 1;
