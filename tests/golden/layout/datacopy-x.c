  {
    double xc[M];
    for (i = 0; i < N; i++) {
      tmp[i] = 0;
      for (j = 0; j < M; j++) {
        xc[j] = x[j];
        tmp[i] = tmp[i] + A[i][j] * xc[j];
      }
      t = tmp[i] * 2;
      y[i] = t + B[i][i];
    }
  }
