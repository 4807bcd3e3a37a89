"""Whitebox regressions of fuzz seed 119075 (issue 9): a ``peel`` made after
an ``iss`` of tile loops, now recovered.

- **A peel of one half's inner loop after an iss by tile loops.**  trmm
  tiled and strip-mined (``floor(j / 5)``, ``floor(j / 4)``), split by an
  ``iss`` of the outer loop on both chunk dimensions (its parts are read
  with strides), then S0's ``k`` loop in one half peeled: S0 has three
  parts, two of them side by side in sibling loops, S1 two.  The late
  splits (:func:`~clayx.whitebox.recover._late_splits`) pair parts in β
  order and read a split of one loop whose children are all paired: S0's
  first part was paired with the peeled loop's first part (same α
  dimensions), leaving the peel's second part alone, and the peel's
  halves are in two loops, not in one.  Now, when every other reading
  fails, the ``split`` that separates the two loops is undone
  (:func:`~clayx.whitebox.recover._unsplit`) and the parts are paired
  deepest first (``deepest``): the peel is read as the split made last,
  the ``iss`` of the outer loop as the one before it; the recovered
  ``iss`` + ``split`` is shortened to the ``peel``.

Every case was refused on the main branch before."""

from __future__ import annotations

import pytest

from whitebox_cases import (assert_recovered, assert_recovered_code_runs, case_params,
                            recover_module, symbolic_target)

#: (kernel, fuzz seed, the random sequence, the script recovered today)
CASES = [
    # the fuzz case: the iss's second half is small (j < 5), S0's first
    # half skewed by the tile loop after
    ("trmm", 119075,
     "tile([0], 2, 2, 5); stripmine([0, 0], 3, 4); iss([0], {-1, -1, 1 | | 0, -1 | 5}); "
     "peel([0, 1, 0, 0, 0], {-1, 0 | 1}); skew([0, 0], 3, 2, 2);",
     "stripmine([0], 2, 5);\nstripmine([0], 3, 4);\nskew([0], 3, 2, 2);\n"
     "iss([0], {[-5, 10, 5, -1] | [] | [0, -5] | 29});\npeel([0, 1, 0, 0, 0], {-1, 0 | 1});\n"),
    # halves of any size (the same α dimensions in all S0 parts but the
    # peeled one): the peel of the second half's k loop
    ("trmm", None,
     "tile([0], 2, 2, 5); stripmine([0, 0], 3, 4); iss([0], {0, -1, 1 | | 0, 0 | -1}); "
     "peel([0, 1, 0, 0, 0], {-1, 0 | 1});",
     "stripmine([0], 2, 5);\nstripmine([0], 3, 4);\niss([0], {[0, 0, 5, -1] | [] | [0, 0] | -1});\n"
     "peel([0, 1, 0, 0, 0], {-1, 0 | 1});\n"),
    # ... and of the first half's
    ("trmm", None,
     "tile([0], 2, 2, 5); stripmine([0, 0], 3, 4); iss([0], {0, -1, 1 | | 0, 0 | -1}); "
     "peel([0, 0, 0, 0, 0], {-1, 0 | 1});",
     "stripmine([0], 2, 5);\nstripmine([0], 3, 4);\niss([0], {[0, 0, 5, -1] | [] | [0, 0] | -1});\n"
     "peel([0, 0, 0, 0, 0], {-1, 0 | 1});\n"),
]


@pytest.mark.parametrize("stem,seed,seq,want", case_params(CASES))
def test_recovered(stem, seed, seq, want):
    assert_recovered(stem, seq, want)


def test_the_peel_paired_deepest_first():
    T, oracle = symbolic_target("trmm", CASES[1][2])
    # the peel's two loops fused back (the split after the iss undone)
    X, tail = next((X, tail) for X, tail in recover_module._unsplit(T, oracle)
                   if tail and tail[0].args == ((0, 1, 0, 0, 0, 0), 5))
    late = recover_module._late_splits(X, oracle, deepest=True)
    assert late is not None
    assert [sp[0] for sp in late[1]] == [(0, 1, 0, 0, 0)]     # the peeled k loop
    # its merged parts then pair with the first half's: the outer iss
    again = recover_module._late_splits(late[0], oracle, deepest=True)
    assert again is not None and [sp[0] for sp in again[1]] == [(0,)]
    # must fail: in β order, S0's first part pairs with the peel's first
    # part (the same α dimensions), which leaves the peel's other part alone
    assert recover_module._late_splits(X, oracle) is None


@pytest.mark.slow
def test_recovered_script_runs_equal_to_the_original(tmp_path):
    stem, _, seq, _ = CASES[0]
    assert_recovered_code_runs(tmp_path, stem, seq, {"M": 9, "N": 4})
