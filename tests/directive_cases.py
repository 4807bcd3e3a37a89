"""Sample programs and helpers shared by the directive tests: apply steps,
compare schedules, list the dependences a new schedule breaks, and run an
example through generation, compilation and output comparison."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from clayx import directives as D
from clayx.analysis import dependences, violations
from clayx.codegen import generate_file
from clayx.errors import DirectiveError
from clayx.frontend.c import parse_file, parse_string
from clayx.verify import SMALL_SIZES, verify

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not available")

NEST = """
void f(int n, int m, double A[100][100]) {
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++)
      A[i][j] = A[i][j] + 1;
#pragma endscop
}
"""

# two statements in one loop, a second loop after it
TWO = """
void f(int n, double a[100], double b[100]) {
  int i, j;
#pragma scop
  for (i = 0; i < n; i++) {
    a[i] = 1;
    for (j = 0; j < n; j++)
      b[j] = b[j] + a[i];
  }
  for (i = 0; i < n; i++)
    a[i] = a[i] * 2;
#pragma endscop
}
"""


def scop_of(src: str):
    """The (first) SCoP of a C source."""
    return parse_string(src)[0]


def apply(scop, name, *args):
    """Apply one directive (no legality check)."""
    return D.apply(scop, name, list(args))


def steps_apply(scop, steps):
    """Apply ``(name, *args)`` steps in order."""
    for name, *args in steps:
        scop = apply(scop, name, *args)
    return scop


def assert_refused(scop, name, args, argument: int, message: str) -> None:
    """``name`` with ``args`` (a list) on ``scop`` raises the directive error
    carrying ``message``, blaming argument ``argument`` of ``name``."""
    with pytest.raises(DirectiveError) as e:
        D.apply(scop, name, list(args))
    assert message in str(e.value)
    assert e.value.argument == argument
    assert e.value.directive == name


def maps(scop):
    """The scheduling relations' maps, in β order."""
    return [r.map for r in scop.schedule.relations]


def same_maps(a, b) -> bool:
    """Same β-vectors and equal relations."""
    return (a.schedule.betas == b.schedule.betas
            and all(x.is_equal(y) for x, y in zip(maps(a), maps(b))))


def broken(original, new) -> list:
    """The RAW/WAR/WAW dependences of ``original`` that ``new`` violates,
    as the session's legality check sees them."""
    return [v.dependence for v in violations(new, dependences(original))]


def run_example(tmp_path, stem: str, steps, **codegen) -> None:
    """Apply ``steps`` to ``examples/<stem>.c``, check legality, and verify
    the generated program against the original (compiled, run, compared)."""
    path = EXAMPLES / f"{stem}.c"
    original = parse_file(path)
    scop = original[0]
    new = steps_apply(scop, steps)
    assert not broken(scop, new), [str(d) for d in broken(scop, new)]
    out = tmp_path / f"{stem}_gen.c"
    out.write_text(generate_file([new, *original[1:]], **codegen))
    res = verify(path, out, SMALL_SIZES[stem], workdir=tmp_path / "build")
    assert res.ok and res.values > 0
