"""Shorter recovered scripts, fourth round (issue 9: "prefer … over longer
equivalent chains").

- **A split shared up to the α steps before it.**  The target split a loop
  of several statements (one ``iss`` on its α dimensions) after an α step
  of one of them (a ``reverse``, a ``skew``): the statements' inequalities
  differ on their iterators, so the recovery split each statement alone
  (``embed; iss; split; unembed; unembed``) and made the α steps after.
  Now an inequality is also read as a form on the α rows that all the
  target parts of its statement share (:func:`~clayx.whitebox.core._shared_rows`,
  :func:`~clayx.whitebox.core._form_on`); where the statements of a loop
  share it so, the α steps that give them those rows come first, then one
  ``iss`` of the loop on its α dimensions
  (:meth:`~clayx.whitebox.core.Core._alpha_shared`).
- **A split by the complement** (``-c - 1 ≥ 0``) of another statement's
  first split is the same split of their loop, its halves swapped (isl
  writes a part without the inequality where its statement's domain
  implies it).
- **A shared split of a loop that holds other statements too**, which the
  target puts in other loops: those are split off first (``split``), then
  one ``iss`` (:meth:`~clayx.whitebox.core.Core._separated`).

Every case was longer on the main branch before (the length there is
given), and replays exactly, simplified and raw."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from clayx.whitebox.model import Aff, Rel
from whitebox_cases import (assert_recovered_code_runs, assert_recovered_shorter, case_params,
                            core_module, iterator as _i)

_form_on = core_module._form_on
_shared_rows = core_module._shared_rows
_alpha_first = core_module._alpha_first
_negated_form = core_module._negated_form

#: (kernel, fuzz seed, the random sequence, the script recovered today,
#: its length on main)
CASES = [
    # bicg: loop [1] split by -i - m >= 0; S1's first part keeps it as
    # written, S2's and S3's only have the complement: one iss now
    ("bicg", 25114,
     "iss([1], {-1 | | -1, 0 | 0}); reverse([0, 0], 1); iss([0], {-1 | | 1, 0 | 2});",
     "iss([1], {[] | [-1] | [-1, 0] | 0});\niss([0], {[] | [1] | [1, 0] | 2});\n"
     "reverse([0], 1);\n", 10),
    # bicg: loop [1]'s S1 and S2 peeled by one peel after S3 was split off
    # their loop: each split alone before (15 steps), now S3 split off first
    ("bicg", 24044, "split([1, 1, 0], 1); reorder([1], [0, 1]); peel([1], {0, 0 | -2});",
     "split([1, 1, 0], 1);\npeel([1], {0, 0 | -2});\n", 15),
    # gemm: S0 shifted by 3 before the loop's iss on its first dimension
    ("gemm", 26180,
     "shift([0], 2, {}, 0); shift([0, 0, 0], 1, {}, 3); peel([0], {0, -1, 0 | -1}); "
     "iss([0], {0, 1 | | 0, -1, 1 | 3}); reshape([0, 3, 0], 3, 1, -2);",
     "shift([0, 0], 1, {}, 3);\npeel([0], {0, -1, 0 | -1});\n"
     "iss([0], {[] | [0, 1] | [0, -1, 1] | 3});\nskew([0, 3], 3, 1, -2);\n", 18),
    # syrk: S0's i loop skewed by j before the iss of the i loop: the skew
    # first, then one iss on the α dimensions (27 steps before)
    ("syrk", 40249,
     "skew([0, 0], 1, 2, 1); iss([0], {1 | | -1, 0 | 2}); peel([0], {0, 1 | 6}); "
     "shift([0, 1], 2, {-1 | 1}, 0); reverse([0, 0], 2); interchange([0, 3, 0, 0], 3, 3);",
     "skew([0, 0], 1, 2, 1);\niss([0], {[1] | [] | [0, 1] | 6});\n"
     "iss([0], {[1] | [] | [-1, 0] | 2});\nreorder([0], [0, 1, 4, 5, 2, 3, 6, 7]);\n"
     "split([0, 3], 1);\nreverse([0, 0], 2);\n", 27),
]


@pytest.mark.parametrize("stem,seed,seq,want,main", case_params(CASES))
def test_recovered_shorter(stem, seed, seq, want, main):
    assert_recovered_shorter(stem, seq, want, main)



N = Aff.var(("p", "N"))


def test_an_inequality_read_on_alpha_rows():
    # S0 at (i0 - i1, i1): -i0 + i1 + N - 3 >= 0 is -α1 + N - 3 >= 0
    rows = [_i(0) - _i(1), _i(1)]
    c = -_i(0) + _i(1) + N - Aff.const(3)
    assert _form_on(rows, c) == ((-1,), N - Aff.const(3))
    # the same form as S1's -i0 + N - 3 on its rows (i0, i1, i2)
    assert _form_on([_i(0), _i(1), _i(2)], -_i(0) + N - Aff.const(3)) == _form_on(rows, c)
    # the complement's form
    assert _negated_form(((-1,), N - Aff.const(3))) == ((1,), -N + Aff.const(2))
    # must fail: a row the parts do not share (None) is not read; a
    # fraction of a row; an iterator no row has
    assert _form_on([None, _i(1)], c) is None
    assert _form_on([_i(0).scale(2), _i(1)], _i(0)) is None
    assert _form_on([_i(0)], _i(0) + _i(1)) is None
    # a form on the inner row only
    assert _form_on([None, -_i(1)], _i(1) - Aff.const(3)) == ((0, -1), Aff.const(-3))


def _part(alphas, cons=(), empty=False, elim=None, tag=0):
    return Rel("S", 2, (0, tag), list(alphas), list(cons), tag, elim or {}, empty)


def test_rows_shared_by_the_parts_of_a_statement():
    a = _part([_i(0), -_i(1)], tag=0)
    b = _part([_i(0) - _i(1), -_i(1)], tag=1)
    # the second row is common, the first differs
    assert _shared_rows([a, b]) == [None, -_i(1)]
    # a part without instances has any rows
    hollow = _part([_i(1), _i(0)], empty=True, tag=2)
    assert _shared_rows([a, hollow]) == [_i(0), -_i(1)]
    # a part whose domain fixes i0 = 0 has it substituted: i0 and 0 agree there
    fixed = _part([Aff(), -_i(1)], elim={("i", 0): Aff()}, tag=3)
    assert _shared_rows([a, fixed]) == [_i(0), -_i(1)]
    # must fail: where i0 is not fixed, 0 is not i0
    assert _shared_rows([a, _part([Aff(), -_i(1)], tag=4)]) == [None, -_i(1)]


def test_inequalities_shared_on_alpha_rows_first():
    s0 = [SimpleNamespace(cons=[-_i(0) + _i(1) + N - Aff.const(3)]),
          SimpleNamespace(cons=[_i(0) - _i(1) - N + Aff.const(2)])]
    s1 = [SimpleNamespace(cons=[-_i(0) + N - Aff.const(3), _i(1)]),
          SimpleNamespace(cons=[_i(0) - N + Aff.const(2)])]
    rows = {"S0": [_i(0) - _i(1), _i(1)], "S1": [_i(0), _i(1), _i(2)]}
    rank = _alpha_first({"S0": s0, "S1": s1}, lambda stmt, c: _form_on(rows[stmt], c))
    # the split both statements have on their rows (as written, or its
    # complement) before S1's own
    assert rank("S0", s0[0].cons[0]) == rank("S1", s1[0].cons[0]) == \
        rank("S1", s1[1].cons[0]) == -2
    assert rank("S1", _i(1)) == -1
    # must fail: a constraint on no row (a constant) ranks last
    assert rank("S1", Aff.const(3)) == 0


@pytest.mark.slow
def test_the_shortened_scripts_run_equal_to_the_original(tmp_path):
    stem, _, seq, _, _ = CASES[2]
    assert_recovered_code_runs(tmp_path, stem, seq, {"N": 11, "M": 9})
