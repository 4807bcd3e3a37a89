#define floord(n, d) (((n) < 0) ? -((-(n) + (d) - 1) / (d)) : (n) / (d))
#define min(x, y) ((x) < (y) ? (x) : (y))
  for (int c1 = 0; c1 <= floord(n - 1, 4); c1++)
    for (int c2 = 0; c2 <= floord(m - 1, 8); c2++)
      if (n >= 4 * c1 + 4 && m >= 8 * c2 + 8) {
        for (i = 4 * c1; i <= 4 * c1 + 3; i++)
          for (j = 8 * c2; j <= 8 * c2 + 7; j++)
            A[i][j] = A[i][j] + 1;
      } else {
        for (i = 4 * c1; i <= min(n - 1, 4 * c1 + 3); i++)
          for (j = 8 * c2; j <= min(m - 1, 8 * c2 + 7); j++)
            A[i][j] = A[i][j] + 1;
      }
#undef floord
#undef min
