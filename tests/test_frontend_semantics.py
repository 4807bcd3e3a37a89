"""Front-end semantics, proven by running code.

Each program below visits iteration domains with tricky shapes and records
an order-sensitive hash of the visit plus a count per point.  The model is
right only if the code regenerated from it (original schedule) prints
exactly the same, for several parameter values, negative ones included.
"""

from __future__ import annotations

import pytest

from clayx.codegen import generate_file
from clayx.frontend.c import parse_file
from clayx.verify import verify

TEMPLATE = r"""
#include <stdio.h>
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#ifndef N
# define N 9
#endif
#ifndef M
# define M 4
#endif
#define OFF 40
#define min(a, b) ((a) < (b) ? (a) : (b))
#define max(a, b) ((a) > (b) ? (a) : (b))
#define floord(n, d) (((n) < 0) ? -((-(n) + (d) - 1) / (d)) : (n) / (d))
static long h, g;
static long cnt[2 * OFF][2 * OFF];
static void kernel(int n, int m)
{
  int i, j;
  (void)n; (void)m;
#pragma scop
%(body)s
#pragma endscop
}
int main(void)
{
  int a, b;
  kernel(N, M);
  printf("begin dump: h\n%%ld %%ld\nend   dump: h\nbegin dump: cnt\n", h, g);
  for (a = 0; a < 2 * OFF; a++)
    for (b = 0; b < 2 * OFF; b++)
      printf("%%ld ", cnt[a][b]);
  printf("\nend   dump: cnt\n");
  return 0;
}
"""

VISIT = "{ h = (h * 31 + %(i)s * 7 + %(j)s + 1000) %% 1000003; cnt[%(i)s + OFF][%(j)s + OFF] += 1; }"


def visit(i: str, j: str = "0") -> str:
    return VISIT % {"i": i, "j": j}


PROGRAMS = {
    "c-division-of-negatives": (
        "for (i = -n; i <= n; i++)\n"
        "  for (j = (i - 1) / 2; j <= (i + 3) / 3 + (i % 3); j++)\n    " + visit("i", "j")),
    "stride-from-parametric-bound": (
        "for (i = m - 3; i < n + 2; i += 3)\n"
        "  for (j = i; j < n; j += 2)\n    " + visit("i", "j")),
    "decreasing-stride": (
        "for (i = n; i >= -m; i -= 2)\n"
        "  for (j = i + 5; j > i; j--)\n    " + visit("i", "j")),
    "min-max-floord-bounds": (
        "for (i = max(-2, m - n); i <= min(n, 2 * m); i++)\n"
        "  for (j = floord(i, 3); j < min(i + 2, n) || j < 1; j++)\n    " + visit("i", "j")),
    "conditions-mod-or-not-else": (
        "for (i = -3; i < n; i++)\n"
        "  for (j = 0; j <= i + 4; j++)\n"
        "    if ((i + j) % 3 == 1 || !(j < i - 2) && i != 2)\n      " + visit("i", "j") + "\n"
        "    else if (j == 2)\n      { g = g * 3 + i; }\n"
        "    else\n      " + visit("j", "i")),
    "ternary-bounds-and-sequence": (
        "h = 5;\n"
        "for (i = 0; i < (n > m ? n : m); i++) {\n"
        "  " + visit("i") + "\n"
        "  for (j = (i > 3 ? i - 3 : 0); j < i; j++)\n    " + visit("j", "i") + "\n"
        "  g = g + i;\n"
        "}\n"
        "for (j = n; j >= 0; j--) " + visit("j", "j")),
    "inclusive-and-mixed-comparisons": (
        "for (i = 0; n >= i && i <= 2 * m; ++i)\n"
        "  for (j = -i; j - 1 < i / 2; j += 1)\n    " + visit("i", "j")),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_domain_semantics_by_execution(name, tmp_path):
    src = tmp_path / f"{name}.c"
    src.write_text(TEMPLATE % {"body": PROGRAMS[name]})
    scops = parse_file(src)
    gen = tmp_path / f"{name}.gen.c"
    gen.write_text(generate_file(scops))
    for n, m in ((9, 4), (0, 0), (-3, 2), (13, 7), (2, -5)):
        res = verify(src, gen, {"N": n, "M": m})
        assert res.ok, (n, m)
