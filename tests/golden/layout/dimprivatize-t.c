  (void)t;
  {
    double t[N];
    for (i = 0; i < N; i++) {
      tmp[i] = 0;
      for (j = 0; j < M; j++)
        tmp[i] = tmp[i] + A[i][j] * x[j];
      t[i] = tmp[i] * 2;
      y[i] = t[i] + B[i][i];
    }
  }
