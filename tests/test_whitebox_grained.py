"""Whitebox regressions of mvt fuzz seed 119052 (issue 9): a grained tile
loop skewed by a loop outside it, now recovered.

- **A grained tile loop skewed by an outer loop.**  The target tiles
  ``i`` by 2, scales the tile loop by 2 (``grain``), skews it by ``j``
  (``2·floor(i / 2) + j``), scales the point loop and tiles it again by 8
  (mvt 119052: ``(floor(3i / 8), 2j, 2·floor(i / 2) + j, 3i)``).  The
  reductions only read a skewed chunk with coefficient ±1
  (:func:`~clayx.whitebox.tiling._unskew_chunk_once`), and the ``grain``
  of ``2·floor(i / 2) + j`` is not one (2 does not divide ``j``): they
  went round in circles.  Now a last pass of
  :func:`~clayx.whitebox.tiling.reduce` also undoes the skew of a chunk
  scaled by ``g > 1`` (``grained``: it becomes ``g·d``, whose ``grain``
  the densify then undoes), after isl's ``-2·floor((j + 1) / 2) + 2j +
  i`` is read as ``2·floor(j / 2) + i``
  (:func:`~clayx.whitebox.tiling._reread_grained_chunks`).

Every case was refused on the main branch before."""

from __future__ import annotations

import pytest

from clayx.whitebox.model import Aff
from whitebox_cases import (assert_recovered, assert_recovered_code_runs, case_params,
                            iterator as _i, symbolic_target, tiling_module)

#: (kernel, fuzz seed, the random sequence, the script recovered today)
CASES = [
    # mvt: S1's tile loop grained and skewed by j, its point loop scaled
    # and tiled again by 8 ("goes round in circles" on main)
    ("mvt", 119052,
     "tile([1], 1, 1, 2); grain([1, 0, 0, 0], 1, 2); reshape([1, 0, 0, 0], 2, 1, -2); "
     "skew([1, 0, 0], 1, 3, -1); fuse([1, 0]); grain([1, 0, 0], 3, 2); "
     "interchange([1, 0, 0], 3, 2); tile([1, 0], 3, 1, 8);",
     "interchange([1], 1, 2);\nstripmine([1], 2, 2);\ngrain([1], 2, 2);\nskew([1], 2, 1, -1);\n"
     "grain([1], 3, 3);\ntile([1], 3, 1, 8);\ninterchange([1], 2, 3);\ngrain([1], 2, 2);\n"),
    # the same class on S0: its j tile grained, skewed by i, the point
    # loop scaled by 3 and tiled by 8 out to depth 1 (round in circles too)
    ("mvt", None,
     "tile([0], 2, 2, 2); grain([0, 0, 0], 2, 2); skew([0, 0, 0], 2, 1, 1); "
     "grain([0, 0, 0], 3, 3); tile([0], 3, 1, 8);",
     "tile([0], 2, 1, 2);\ngrain([0], 1, 2);\nskew([0], 1, 2, 1);\ngrain([0], 3, 3);\n"
     "tile([0], 3, 1, 8);\ninterchange([0], 2, 3);\n"),
    # the skew alone: isl writes the grained tile loop with another div
    ("mvt", None,
     "tile([0], 2, 2, 2); grain([0, 0, 0], 2, 2); skew([0, 0, 0], 2, 1, 1);",
     "stripmine([0], 2, 2);\ngrain([0], 2, 2);\nskew([0], 2, 1, 1);\n"),
]


@pytest.mark.parametrize("stem,seed,seq,want", case_params(CASES))
def test_recovered(stem, seed, seq, want):
    assert_recovered(stem, seq, want)


def test_a_grained_chunk_reread_in_isls_form():
    T, _ = symbolic_target("mvt", "tile([0], 2, 2, 2);")
    s0 = T.rels[0]
    i, j = _i(0), _i(1)
    up = T.divs.get(j + Aff.const(1), 2)                  # floor((j + 1) / 2)
    s0.alphas[1] = -up.scale(2) + j.scale(2) + i
    assert tiling_module._reread_grained_chunks(T)
    assert s0.alphas[1] == T.divs.get(j, 2).scale(2) + i  # 2·floor(j / 2) + i
    assert tiling_module._grained_div(s0.alphas[1].part("d")) is not None
    # must fail: read already, and a div of no dimension's multiple
    assert not tiling_module._reread_grained_chunks(T)
    s0.alphas[1] = -T.divs.get(i + j + Aff.const(1), 2).scale(2) + j.scale(2) + i
    assert not tiling_module._reread_grained_chunks(T)


@pytest.mark.slow
def test_recovered_scripts_run_equal_to_the_original(tmp_path):
    stem, _, seq, _ = CASES[0]
    assert_recovered_code_runs(tmp_path, stem, seq, {"N": 13})
