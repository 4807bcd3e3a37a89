"""OpenMP output: ``#pragma omp parallel for`` (with the right ``private``
clause) on exactly the loops marked parallel, ``omp simd`` on vectorized
loops, ``GCC unroll`` on unrolled ones; compiled with ``-fopenmp``, run with
several threads, and compared bit for bit with the original."""

from __future__ import annotations

import io
import re
import shutil

import pytest

import clayx
from clayx.errors import CodegenError
from clayx.verify import SMALL_SIZES, verify
from clayx_repl.cli import run

from directive_cases import EXAMPLES

needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not available")

MM = r"""
#include <stdio.h>
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#ifndef N
# define N 20
#endif
double a[N][N], b[N][N];
int main(void) {
  int i, j, k;
  for (i = 0; i < N; i++) for (j = 0; j < N; j++) { a[i][j] = i * N + j; b[i][j] = 0; }
#pragma scop
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      for (k = 0; k < N; k++)
        b[i][j] += a[i][k] * a[k][j];
#pragma endscop
  printf("begin dump: b\n");
  for (i = 0; i < N; i++) for (j = 0; j < N; j++) printf("%.17g ", b[i][j]);
  printf("\nend   dump: b\n");
  return 0;
}
"""


def region(code: str) -> str:
    """The text between the scop pragmas."""
    return code[code.index("#pragma scop"):code.index("#pragma endscop")]


@pytest.fixture
def mm(tmp_path):
    p = tmp_path / "mm.c"
    p.write_text(MM)
    return p


def test_parallel_outer_loop_privatizes_inner_declared_iterators(mm):
    s = clayx.load(mm)
    s.apply("parallelize([0]);")
    assert region(s.code("omp")) == (
        "#pragma scop\n"
        "  #pragma omp parallel for schedule(static) private(j, k)\n"
        "  for (i = 0; i < N; i++)\n"
        "    for (j = 0; j < N; j++)\n"
        "      for (k = 0; k < N; k++)\n"
        "        b[i][j] += a[i][k] * a[k][j];\n")
    # plain C ignores the parallel mark
    assert "omp" not in s.code("c")


def test_enclosing_iterators_stay_shared(mm):
    s = clayx.load(mm)
    s.apply("parallelize([0, 0]);")
    r = region(s.code("omp"))
    assert "  for (i = 0; i < N; i++) {\n    #pragma omp parallel for schedule(static) private(k)\n" \
           "    for (j = 0; j < N; j++)\n" in r
    assert r.count("#pragma omp") == 1


def test_simd_and_unroll_marks(mm):
    s = clayx.load(mm)
    # make j innermost: it carries nothing, so it can be vectorized
    s.apply("interchange([0, 0, 0], 2, 3); vectorize([0, 0, 0]); unroll_mark([0, 0], 2);")
    r = region(s.code("omp"))
    assert "#pragma GCC unroll 2\n    for (k = 0; k < N; k++) {\n" \
           "      #pragma omp simd\n      for (j = 0; j < N; j++)\n" in r
    c = region(s.code("c"))
    assert "#pragma GCC unroll 2" in c and "omp" not in c
    s.apply("parallelize([0]);")
    assert "#pragma omp parallel for schedule(static) private(j, k)\n  for (i = 0;" in s.code("omp")


def _variant(tmp_path, old: str, new: str, script: str):
    """A session on MM with one text replacement, ``script`` applied."""
    p = tmp_path / "variant.c"
    p.write_text(MM.replace(old, new))
    s = clayx.load(p)
    s.apply(script)
    return s


def test_parallel_and_vectorize_on_one_loop(tmp_path):
    s = _variant(tmp_path, "for (k = 0; k < N; k++)\n        b[i][j] += a[i][k] * a[k][j];",
                 "b[i][j] = a[i][j] * 2;", "parallelize([0, 0]); vectorize([0, 0]);")
    assert "#pragma omp parallel for simd schedule(static)\n    for (j = 0; j < N; j++)\n" in s.code("omp")


def test_loops_declared_in_the_for_need_no_private(tmp_path):
    s = _variant(tmp_path, "for (k = 0; k < N; k++)", "for (int k = 0; k < N; k++)",
                 "parallelize([0]);")
    assert "#pragma omp parallel for schedule(static) private(j)\n" in s.code("omp")


def test_split_loop_gets_the_pragma_on_every_part(mm):
    s = clayx.load(mm)
    s.apply("iss([0], {-1 | 0 | 9}); parallelize([0]);")
    r = region(s.code("omp"))
    assert r.count("#pragma omp parallel for schedule(static) private(j, k)") == 2


def test_unknown_target_is_refused(mm):
    s = clayx.load(mm)
    with pytest.raises(CodegenError, match="available: c, omp"):
        s.code("cuda")


def test_cli_emit_omp(mm, tmp_path):
    out, err = io.StringIO(), io.StringIO()
    rc = run([str(mm), "--script", "-", "--emit", "omp"], stdout=out, stderr=err,
             stdin=io.StringIO("parallelize([0]);\n"))
    assert rc == 0, err.getvalue()
    assert "#pragma omp parallel for schedule(static) private(j, k)" in out.getvalue()
    # the carried k loop cannot be parallelized: exit 3, nothing written
    dest = tmp_path / "o.c"
    rc = run([str(mm), "--script", "-", "--emit", "omp", "-o", str(dest)], stdout=out, stderr=err,
             stdin=io.StringIO("parallelize([0, 0, 0]);\n"))
    assert rc == 3 and not dest.exists()


# -- compiled with -fopenmp, run on 4 threads, compared bit for bit -----------------

CASES = [
    ("gemm", "parallelize([0]);", 1),
    ("gemm", "parallelize([0, 1, 0], 3); unroll_mark([0, 1], 4);", 1),
    # parallel and unrolled on one loop: gcc wants a 'for' right after each of
    # '#pragma omp parallel for' and '#pragma GCC unroll', so the unroll
    # request goes (it made the file fail to compile)
    ("gemm", "parallelize([0]); unroll_mark([0], 2); unroll_mark([0, 1], 2);", 1),
    ("2mm", "parallelize([0]); parallelize([1]);", 2),
    ("atax", "parallelize([0]); parallelize([1, 2]);", 2),
    ("mvt", "parallelize([0]); parallelize([1]);", 2),
    ("jacobi-2d", "parallelize([0, 0]); parallelize([0, 1]); vectorize([0, 0, 0]);", 3),
    ("heat-3d", "parallelize([0, 0]); parallelize([0, 1, 0]); unroll_mark([0, 1, 0, 0], 2);", 2),
    # wavefront j' = 2i + j, then j' outermost in t: the i loop carries nothing
    ("seidel-2d", "skew([0, 0, 0], 3, 2, -2); interchange([0, 0, 0], 2, 3);"
                  "parallelize([0, 0, 0]);", 1),
]


@needs_gcc
@pytest.mark.slow
@pytest.mark.parametrize("stem,script,pragmas", CASES, ids=[f"{c[0]}-{k}" for k, c in enumerate(CASES)])
def test_openmp_output_runs_equal(tmp_path, monkeypatch, stem, script, pragmas):
    monkeypatch.setenv("OMP_NUM_THREADS", "4")
    src = EXAMPLES / f"{stem}.c"
    s = clayx.load(src)
    s.apply(script)
    code = s.code("omp")
    assert len(re.findall(r"#pragma omp (?:parallel for|simd)", region(code))) == pragmas
    gen = tmp_path / f"{stem}_omp.c"
    gen.write_text(code)
    res = verify(src, gen, SMALL_SIZES[stem], openmp=True, workdir=tmp_path / "build")
    assert res.ok and res.values > 0
