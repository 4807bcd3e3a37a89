  for (i = 0; i < N; i++) {
    A[i] = i;
    B[i] = A[i] * 2;
    for (j = 0; j < N; j++)
      C[i][j] = B[i] + j;
    A[i] = A[i] + 1;
  }
