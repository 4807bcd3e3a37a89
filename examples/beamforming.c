/*
 * beamforming.c -- conventional beamforming radar kernel, the motivating
 * example of the Clay paper (Bagneres et al., CGO 2016, Fig. 1): for each
 * of N steering directions, correlate the M complex samples (s_r, s_i)
 * with the steering matrix (m_r, m_i) and keep the direction of maximal
 * power.  The loop is copied exactly from the paper, including the
 * ternary with a comma expression in S7 and the // comments.
 */
#include <float.h>
#include <stdio.h>

/* #pragma scop / endscop mark the region for polyhedral tools; gcc ignores them. */
#pragma GCC diagnostic ignored "-Wunknown-pragmas"

#ifndef N
# define N 40
#endif
#ifndef M
# define M 48
#endif

static double a_r[N], a_i[N];
static double s_r[M], s_i[M];
static double m_r[N][M], m_i[N][M];
static int t;
static double t_val, val;

static void init_signals(void)
{
  int i, j;

  for (j = 0; j < M; j++) {
    s_r[j] = (double)((j * 5 + 1) % 17) / 17.0 - 0.5;
    s_i[j] = (double)((j * 3 + 2) % 13) / 13.0 - 0.5;
  }
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++) {
      m_r[i][j] = (double)((i * j + 3) % 11) / 11.0 - 0.5;
      m_i[i][j] = (double)((i + 2 * j) % 7) / 7.0 - 0.5;
    }
}

static void kernel_beamforming(void)
{
  int i, j;

#pragma scop
t = 0; // L0
t_val = DBL_MIN; // S0
for (i = 0; i < N; i++) { // L1
    a_i[i] = 0; // S2
    a_r[i] = 0; // S3
    for (j = 0; j < M; j++) { // L2
        a_r[i] += s_r[j]*m_r[i][j] - s_i[j]*m_i[i][j]; // S4
        a_i[i] += s_i[j]*m_r[i][j] + s_r[j]*m_i[i][j]; // S5
    }
    val = a_r[i]*a_r[i] + a_i[i]*a_i[i]; // S6
    t = (val >= t_val)? (t_val = val, i) : t; } // S7
#pragma endscop
}

static void dump_values(const char *name, int n, double v[n])
{
  int i;

  printf("begin dump: %s\n", name);
  for (i = 0; i < n; i++) {
    printf("%.17g ", v[i]);
    if ((i + 1) % 20 == 0 || i == n - 1)
      printf("\n");
  }
  printf("end   dump: %s\n", name);
}

int main(void)
{
  init_signals();
  kernel_beamforming();
  dump_values("a_r", N, a_r);
  dump_values("a_i", N, a_i);
  printf("begin dump: t\n%d \nend   dump: t\n", t);
  dump_values("t_val", 1, &t_val);
  return 0;
}
