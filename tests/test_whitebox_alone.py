"""Whitebox regressions of fuzz seed 122255 (issue 9): a tile loop
strip-mined again and then swapped inside its point loop by a later
``tile``, under which one statement's point loop was reshaped alone.

- **A point loop skewed alone, under a chunk of a chunk beside its point
  loop.**  trmm 122255 tiles ``i`` by 5, reshapes S1's point loop to ``i +
  j`` alone, strip-mines the tile loop by 2 and tiles the point loop by 16
  out to depth 1 (Clay's ``tile`` swaps ``⌊i/10⌋`` inside ``⌊i/5⌋``).  The
  plain recovery splits S0 and S1 apart and replays illegally; the careful
  retry reads ``⌊i/10⌋`` as the chunk of ``⌊i/5⌋`` only in the pass with
  chunks of chunks beside points (:data:`~clayx.whitebox.tiling.BESIDE_POINTS`),
  and there S1's ``(⌊i/5⌋, i + j, j)`` was left: its point loop is the
  chunk's ``i`` skewed by its dimension ``j``, which ``skew`` cannot undo
  for one statement (no loop of its own).  Now a last pass of the
  reduction (only when all others fail: made in a pass before, it took
  lu 47057 a long way round) reads chunks of chunks beside points and
  undoes such a skew as the ``reshape`` by the iterators it equals
  (``_fix_point_once``'s ``alone_skews``).

Every case was refused on the main branch before."""

from __future__ import annotations

import pytest

from whitebox_cases import (assert_recovered, assert_recovered_code_runs, case_params,
                            symbolic_target, tiling_module)

#: (kernel, fuzz seed, the random sequence, the script recovered today)
CASES = [
    # trmm: the tile loop by 5 strip-mined by 2, tiled over by 16 (which
    # swaps the chunk of the chunk inside it), S1's point loop reshaped
    ("trmm", 122255,
     "tile([0], 1, 1, 5); reshape([0, 0, 0, 1], 2, 2, -1); stripmine([0, 0], 1, 2); "
     "tile([0, 0, 0], 3, 1, 16); stripmine([0], 4, 3);",
     "stripmine([0], 1, 5);\nstripmine([0], 1, 2);\ninterchange([0], 1, 2);\n"
     "reshape([0, 0, 0, 0, 1], 3, 2, -1);\ntile([0], 3, 1, 16);\ninterchange([0], 2, 3);\n"
     "stripmine([0], 4, 3);\n"),
    # the same class with a strip-mine first, other sizes, no last strip-mine
    ("trmm", None,
     "stripmine([0], 1, 4); reshape([0, 0, 0, 1], 2, 2, -1); stripmine([0, 0], 1, 2); "
     "tile([0, 0, 0], 3, 1, 6);",
     "stripmine([0], 1, 4);\nstripmine([0], 1, 2);\ninterchange([0], 1, 2);\n"
     "reshape([0, 0, 0, 0, 1], 3, 2, -1);\ntile([0], 3, 1, 6);\ninterchange([0], 2, 3);\n"),
]


@pytest.mark.parametrize("stem,seed,seq,want", case_params(CASES))
def test_recovered(stem, seed, seq, want):
    assert_recovered(stem, seq, want)


def test_a_point_loop_skewed_alone_undone_by_a_reshape():
    T, oracle = symbolic_target("trmm", "stripmine([0], 1, 4); reshape([0, 0, 0, 1], 2, 2, -1);")
    s1 = T.rels[1]
    assert s1.alphas[1] != T.rels[0].alphas[1]         # S1's point loop i + j
    # must fail: without alone_skews the skew by S1's dimension j needs a
    # loop of S1 alone
    X, found = T.copy(), []
    assert not tiling_module._fix_point_once(X, found, oracle)
    X, found = T.copy(), []
    assert tiling_module._fix_point_once(X, found, oracle, alone_skews=True)
    assert [(st.name, st.args) for st in found] == [("reshape", ((0, 0, 0, 1), 2, 2, -1))]
    assert X.rels[1].alphas == [T.rels[1].alphas[0]] + T.rels[0].alphas[1:3]


@pytest.mark.slow
def test_recovered_scripts_run_equal_to_the_original(tmp_path):
    stem, _, seq, _ = CASES[0]
    assert_recovered_code_runs(tmp_path, stem, seq, {"M": 23, "N": 7})
