"""Code the compiler likes (issue 10), as golden excerpts and by running it.

- full tiles apart from partial ones (isl ``isolate``, codegen/tiles.py):
  the full-tile loops have the plain tile bounds, the partial tiles one
  loop nest with ``min``; only plain rectangular tilings are isolated
  (a wavefront keeps isl's default code); every AST still proven exact;
- ``#pragma omp parallel for schedule(static)`` on the outermost parallel
  loop only, ``private`` naming the outer-declared iterators assigned;
- an ``unroll`` mark on a loop of at most ``factor`` iterations (a
  strip-mine's point loop) is unrolled in the text;
- differential: all of it runs equal to the original on 1 and 4 threads,
  at sizes with partial tiles.
"""

from __future__ import annotations

import os
import shutil
import warnings
from pathlib import Path

import pytest

import clayx
from clayx.codegen import build_ast, generate_region
from clayx.codegen.tiles import band_options, full_tiles, short_loop, tile_pairs
from clayx.run import program_text
from clayx.tune import Candidate, candidate_script
from clayx.verify import compare_outputs, compile_c, run

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not available")


TILE = "stripmine([0, 1], 2, 16); stripmine([0, 1, 0, 0], 4, 8); interchange([0, 1, 0, 0], 3, 4);"


def _session(name: str, script: str):
    s = clayx.load(EXAMPLES / f"{name}.c")
    if script:
        s.apply(script)
    return s


def _region(name: str, script: str) -> str:
    return generate_region(_session(name, script).current, target="omp")


def test_gemm_tiled_full_tiles_apart():
    s = clayx.load(EXAMPLES / "gemm.c")
    script = candidate_script(s, Candidate("cpu"))
    r = _region("gemm", script)
    assert (
        "  #pragma omp parallel for schedule(static) private(i, j, k)\n"
        "  for (int c1 = 0; c1 <= floord(ni - 1, 32); c1++)\n"
        "    for (int c2 = 0; c2 <= floord(nj - 1, 32); c2++)\n"
        "      for (int c3 = 0; c3 <= floord(nk - 1, 32); c3++)\n"
        "        if (ni >= 32 * c1 + 32 && nj >= 32 * c2 + 32 && nk >= 32 * c3 + 32) {\n"
        "          for (i = 32 * c1; i <= 32 * c1 + 31; i++)\n"
        "            for (k = 32 * c3; k <= 32 * c3 + 31; k++)\n"
        "              for (j = 32 * c2; j <= 32 * c2 + 31; j++)\n"
        "                C[i][j] += alpha * A[i][k] * B[k][j];\n"
        "        } else {\n"
        "          for (i = 32 * c1; i <= min(ni - 1, 32 * c1 + 31); i++)\n"
        "            for (k = 32 * c3; k <= min(nk - 1, 32 * c3 + 31); k++)\n"
        "              for (j = 32 * c2; j <= min(nj - 1, 32 * c2 + 31); j++)\n"
        "                C[i][j] += alpha * A[i][k] * B[k][j];\n"
        "        }\n") in r
    # one parallel region per nest, on its outermost loop
    assert r.count("#pragma omp parallel for") == 2
    assert r.count("schedule(static)") == 2


def test_tile_pairs_found_in_the_dates():
    s = _session("gemm", TILE)
    sc = s.current
    pairs = {p for loop in sc.schedule.loops() for p in tile_pairs(sc, loop)}
    assert (2, 4, 16) in pairs and (3, 5, 8) in pairs
    # the first point loop carries the isolate option, the tile loops none
    first = next(loop for loop in sc.schedule.loops() if full_tiles(sc, loop) is not None)
    assert len(first) == 4
    assert full_tiles(sc, first[:2]) is None


def test_rectangular_tiles_of_two_sizes():
    r = _region("gemm", TILE)
    assert "if (nk >= 16 * c2 + 16 && nj >= 8 * c3 + 8) {" in r
    assert "for (k = 16 * c2; k <= 16 * c2 + 15; k++)" in r
    assert "for (j = 8 * c3; j <= 8 * c3 + 7; j++)" in r


def test_wavefront_tiles_keep_isls_code():
    """jacobi-2d's tiles are skewed and under a wavefront: no isolation (the
    partial tiles would cost more code than the full ones save)."""
    s = clayx.load(EXAMPLES / "jacobi-2d.c")
    s.apply(candidate_script(s, Candidate("cpu")))
    sc = s.current
    assert all(full_tiles(sc, loop) is None for loop in sc.schedule.loops())
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # proven exact, no "unchecked" warning
        build_ast(sc)


def test_unroll_mark_on_a_short_loop_is_unrolled_in_the_text():
    r = _region("gemm", "stripmine([0, 1, 0], 3, 4); unroll_mark([0, 1, 0, 0], 4);")
    assert (
        "        if (nj >= 4 * c3 + 4) {\n"
        "          C[i][4 * c3] += alpha * A[i][k] * B[k][4 * c3];\n"
        "          C[i][4 * c3 + 1] += alpha * A[i][k] * B[k][4 * c3 + 1];\n"
        "          C[i][4 * c3 + 2] += alpha * A[i][k] * B[k][4 * c3 + 2];\n"
        "          C[i][4 * c3 + 3] += alpha * A[i][k] * B[k][4 * c3 + 3];\n"
        "        } else {\n") in r
    assert "#pragma GCC unroll" not in r


def test_unroll_mark_on_a_long_loop_stays_a_pragma():
    s = _session("gemm", "unroll_mark([0, 1, 0], 4);")
    assert not short_loop(s.current, (0, 1, 0), 4)
    r = generate_region(s.current, target="omp")
    assert "#pragma GCC unroll 4\n      for (j = 0; j < nj; j++)" in r
    assert band_options(s.current) is None


def test_parallel_only_on_the_outermost_parallel_loop():
    """gemm's auto schedule, untiled: ``i`` is parallel in both nests, and
    the loops inside it get no pragma (no nested parallel region)."""
    s = clayx.load(EXAMPLES / "gemm.c")
    r = _region("gemm", candidate_script(s, Candidate("cpu", 0)))
    lines = r.splitlines()
    pragmas = [k for k, ln in enumerate(lines) if "#pragma omp" in ln]
    assert len(pragmas) == 2
    for k in pragmas:
        assert lines[k + 1].startswith("  for (i = 0; i < ni; i++)")
    assert "#pragma omp parallel for schedule(static) private(j, k)" in r


# -- differential ---------------------------------------------------------------------

SIZES = {"NI": 37, "NJ": 45, "NK": 29}


@needs_gcc
@pytest.mark.parametrize("script", [
    TILE + " parallelize([0]);",
    "stripmine([0, 1, 0], 3, 4); unroll_mark([0, 1, 0, 0], 4); parallelize([0]);",
    "stripmine([0, 1, 0], 3, 3); unroll_mark([0, 1, 0, 0], 3); vectorize([0, 0]);",
])
def test_shaped_code_runs_equal_on_1_and_4_threads(tmp_path, script):
    s = _session("gemm", script)
    text, _, _ = program_text(s, target="omp")
    gen = tmp_path / "gen.c"
    gen.write_text(text)
    compile_c(EXAMPLES / "gemm.c", tmp_path / "orig", defines=SIZES, opt="-O2")
    compile_c(gen, tmp_path / "gen", defines=SIZES, opt="-O2", openmp=True,
              include_dirs=[EXAMPLES])
    expected = run(tmp_path / "orig")
    for threads in (1, 4):
        compare_outputs(expected, run(tmp_path / "gen",
                                      env=dict(os.environ, OMP_NUM_THREADS=str(threads))))
