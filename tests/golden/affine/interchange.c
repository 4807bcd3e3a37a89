  for (j = 0; j < m; j++)
    for (i = 0; i < n; i++)
      A[i][j] = A[i][j] + 1;
