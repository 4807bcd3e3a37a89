  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++)
      A[i][j] = A[i][j] + 1;
