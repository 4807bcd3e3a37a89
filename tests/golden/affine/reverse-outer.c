  for (i = n - 1; i >= 0; i--)
    for (j = 0; j < m; j++)
      A[i][j] = A[i][j] + 1;
