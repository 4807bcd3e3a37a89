  (void)tmp;
  {
    double tmp;
    for (i = 0; i < N; i++) {
      tmp = 0;
      for (j = 0; j < M; j++)
        tmp = tmp + A[i][j] * x[j];
      t = tmp * 2;
      y[i] = t + B[i][i];
    }
  }
