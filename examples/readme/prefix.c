#include <stdio.h>
#ifndef N
# define N 10
#endif

int main(void)
{
  int i;
  double a[N];
  for (i = 0; i < N; i++)
    a[i] = i;
#pragma scop
  for (i = 1; i < N; i++)
    a[i] = a[i-1] + 1;
#pragma endscop
  for (i = 0; i < N; i++)
    printf("%g ", a[i]);
  printf("\n");
  return 0;
}
