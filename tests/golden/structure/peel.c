  for (i = 0; i < N; i++) {
    A[i] = i;
    B[i] = A[i] * 2;
    for (j = 0; j < N; j++)
      C[i][j] = B[i] + j;
  }
  for (i = 0; i < N - 1; i++)
    A[i] = A[i] + 1;
  if (N >= 1)
    A[N - 1] = A[N - 1] + 1;
