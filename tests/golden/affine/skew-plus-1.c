  (void)j;
  for (i = 0; i < n; i++)
    for (int c2 = -i; c2 < m - i; c2++)
      A[i][i + c2] = A[i][i + c2] + 1;
