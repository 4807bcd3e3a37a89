  for (i = 0; i < n; i++)
    for (j = m - 1; j >= 0; j--)
      A[i][j] = A[i][j] + 1;
