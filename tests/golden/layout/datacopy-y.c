  {
    double yc[N];
    for (i = 0; i < N; i++) {
      tmp[i] = 0;
      for (j = 0; j < M; j++)
        tmp[i] = tmp[i] + A[i][j] * x[j];
      t = tmp[i] * 2;
      y[i] = t + B[i][i];
      yc[i] = y[i];
    }
  }
