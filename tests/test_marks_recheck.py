"""Issue 13, item 4: a ``vectorize`` mark must stay on an innermost loop.

The mark's conditions (innermost for every statement below it, no carried
dependence) are re-checked after every later step, as parallel marks are,
and when a SCoP with marks is read from OpenScop; a step that breaks them is
refused and the session is unchanged.  Independently of the marks, the
OpenMP printer gives a ``simd`` loop that holds inner loops a ``private``
clause for their outer-declared iterators, so even a mark forced through
with ``unchecked`` prints no race.  The generated OpenMP code is compiled
and run on 4 threads against the original."""

from __future__ import annotations

from dataclasses import replace

import pytest

import clayx
from clayx.errors import LegalityError
from clayx.frontend.c import parse_file
from clayx.frontend.openscop import with_unchecked_step, write
from clayx.model import ClaySchedule, Mark
from clayx.verify import SMALL_SIZES, verify

from directive_cases import EXAMPLES, needs_gcc

GEMM = EXAMPLES / "gemm.c"

# j-loop S0 beside a j/k nest S1: fusing the j loops puts the k loop inside
# the first one
SIBLINGS = r"""
#include <stdio.h>
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#ifndef N
# define N 12
#endif
double a[N][N], b[N][N][N];
int main(void) {
  int i, j, k;
#pragma scop
  for (i = 0; i < N; i++) {
    for (j = 0; j < N; j++)
      a[i][j] = i + 2 * j;
    for (j = 0; j < N; j++)
      for (k = 0; k < N; k++)
        b[i][j][k] = i * j + k;
  }
#pragma endscop
  printf("begin dump: a\n");
  for (i = 0; i < N; i++) for (j = 0; j < N; j++) printf("%.17g ", a[i][j]);
  printf("\nend   dump: a\nbegin dump: b\n");
  for (i = 0; i < N; i++) for (j = 0; j < N; j++) for (k = 0; k < N; k++)
    printf("%.17g ", b[i][j][k]);
  printf("\nend   dump: b\n");
  return 0;
}
"""


def region(code: str) -> str:
    """The text between the scop pragmas."""
    return code[code.index("#pragma scop"):code.index("#pragma endscop")]


@pytest.fixture
def siblings(tmp_path):
    p = tmp_path / "siblings.c"
    p.write_text(SIBLINGS)
    return p


# (file, the mark, a later step that puts a loop inside the marked one, that loop)
BREAKING = [
    ("gemm", "vectorize([0,1,0]);", "stripmine([0,1,0], 3, 4);", "[0, 1, 0, 0] around S1"),
    ("gemm", "vectorize([0,1,0]);", "tile([0,1,0], 3, 3, 4);", "[0, 1, 0, 0] around S1"),
    ("gemm", "vectorize([0,0]);", "embed([0,0,0]);", "[0, 0, 0] around S0"),
    ("siblings", "vectorize([0,0]);", "fuse([0,0]);", "[0, 0, 1] around S1"),
]


@pytest.mark.parametrize("kernel,mark,step,inner", BREAKING,
                         ids=[f"{k}-{s.split('(')[0]}" for k, _, s, _ in BREAKING])
def test_a_step_that_makes_a_vectorized_loop_non_innermost_is_refused(
        kernel, mark, step, inner, siblings):
    """Item 4: the step is refused (alone or in the same apply as the mark),
    naming the step, the marked loop and the loop now inside it; nothing
    changes.  Before the fix the step was accepted and ``omp simd`` landed
    on a loop holding another loop."""
    path = siblings if kernel == "siblings" else GEMM
    loop = mark[mark.index("(") + 1:mark.index(")")].replace(",", ", ")
    s = clayx.load(path)
    with pytest.raises(LegalityError) as e:
        s.apply(mark + " " + step)
    assert not s.entries and s.current is s.original
    s.apply(mark)
    before = s.current
    with pytest.raises(LegalityError) as e:
        s.apply(step)
    name = step.split("(")[0]
    assert str(e.value) == (f"{name} is illegal: afterwards the loop {loop} marked vectorize "
                            f"is not innermost (the loop {inner} is inside it)")
    assert len(s.entries) == 1 and s.current is before


def test_steps_that_keep_the_vectorized_loop_innermost_are_accepted():
    """Stripmining an outer loop moves the mark with its loop, which stays
    innermost; stripmining first and vectorizing the point loop is the
    legal way to get the issue's shape."""
    s = clayx.load(GEMM)
    s.apply("vectorize([0,1,0]); stripmine([0], 1, 4);")
    assert [m.loop for m in s.current.schedule.marks] == [(0, 0, 1, 0)]
    s = clayx.load(GEMM)
    s.apply("stripmine([0,1,0], 3, 4); vectorize([0,1,0,0]);")
    assert [m.loop for m in s.current.schedule.marks] == [(0, 1, 0, 0)]


def _with_marks(path, tmp_path, *marks, unchecked: bool = False):
    """The SCoP of ``path`` written as OpenScop with ``marks`` (and the
    unchecked record when asked); the file's path."""
    [scop] = parse_file(path)
    scop = replace(scop, schedule=ClaySchedule(scop.schedule.relations, marks))
    if unchecked:
        scop = with_unchecked_step(scop, "unchecked vectorize([0, 1]);")
    out = tmp_path / "marked.scop"
    out.write_text(write(scop))
    return out


def test_wrong_marks_read_from_openscop_are_refused(tmp_path):
    """Item 4: marks read with a SCoP are checked when the session opens: a
    vectorize mark on a loop that is not innermost, or a parallel mark on a
    loop that carries a dependence (gemm's k loop), is refused (they were
    loaded, and printed as pragmas, before the fix)."""
    with pytest.raises(LegalityError, match=r"the marks read with the SCoP \(<clayx_marks>\) "
                                            r"are wrong: the loop \[0, 1\] marked vectorize "
                                            r"is not innermost"):
        clayx.load(_with_marks(GEMM, tmp_path, Mark("vectorize", (0, 1))))
    with pytest.raises(LegalityError, match=r"the mark parallel \[0, 1\] read with the SCoP "
                                            r"\(<clayx_marks>\) is illegal: the loop \[0, 1\] "
                                            r"carries"):
        clayx.load(_with_marks(GEMM, tmp_path, Mark("parallel", (0, 1))))
    # right marks load, and so do wrong ones recorded as unchecked (code
    # from them is refused without unchecked=True)
    s = clayx.load(_with_marks(GEMM, tmp_path, Mark("parallel", (0,)),
                               Mark("vectorize", (0, 1, 0))))
    assert len(s.current.schedule.marks) == 2 and not s.has_unchecked
    s = clayx.load(_with_marks(GEMM, tmp_path, Mark("vectorize", (0, 1)), unchecked=True))
    assert s.has_unchecked
    with pytest.raises(LegalityError, match="unchecked"):
        s.code("omp")


def test_simd_loop_holding_a_loop_privatizes_its_iterator():
    """Item 4, the printer on its own: a vectorize mark forced onto a loop
    with a loop inside (``unchecked``) gets ``private`` for the inner loop's
    outer-declared iterator, as ``parallel for`` does (before the fix:
    ``#pragma omp simd`` with ``j`` shared by the SIMD lanes)."""
    s = clayx.load(GEMM)
    s.apply("vectorize([0,1,0]); unchecked stripmine([0,1,0], 3, 4);")
    r = region(s.code("omp", unchecked=True))
    assert ("      #pragma omp simd private(j)\n"
            "      for (int c3 = 0; c3 <= floord(nj - 1, 4); c3++)\n"
            "        if (nj >= 4 * c3 + 4) {\n"
            "          for (j = 4 * c3; j <= 4 * c3 + 3; j++)\n") in r
    # an innermost simd loop needs no clause: its own iterator is private
    s = clayx.load(GEMM)
    s.apply("vectorize([0,1,0]);")
    assert "#pragma omp simd\n      for (j = 0; j < nj; j++)\n" in region(s.code("omp"))


OMP_RUNS = [
    # the printer's defence: a wrong mark forced through, on 4 threads
    "parallelize([0]); vectorize([0,1,0]); unchecked stripmine([0,1,0], 3, 4);",
    "parallelize([0,1,0]); vectorize([0,1,0]); unchecked stripmine([0,1,0], 3, 4);",
    # the legal way to the shape
    "stripmine([0,1,0], 3, 4); vectorize([0,1,0,0]); parallelize([0]);",
]


@needs_gcc
@pytest.mark.slow
@pytest.mark.parametrize("script", OMP_RUNS)
def test_openmp_code_runs_equal(script, tmp_path, monkeypatch):
    """Item 4, differential: the OpenMP code of these sequences (with the
    ``private`` clauses) compiled with ``-fopenmp``, run on 4 threads,
    prints exactly what the original prints."""
    monkeypatch.setenv("OMP_NUM_THREADS", "4")
    s = clayx.load(GEMM)
    s.apply(script)
    code = s.code("omp", unchecked=True)
    assert "#pragma omp" in region(code)
    gen = tmp_path / "gemm_omp.c"
    gen.write_text(code)
    res = verify(GEMM, gen, SMALL_SIZES["gemm"], openmp=True, workdir=tmp_path / "build")
    assert res.ok and res.values > 0, res
