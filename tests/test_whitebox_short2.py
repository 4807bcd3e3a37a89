"""Shorter recovered scripts, second round (issue 9's simplification: "drop
steps that cancel, merge consecutive shifts/skews, prefer … over longer
equivalent chains").

Four causes, each fixed in :mod:`clayx.whitebox.simplify`:

- a ``split`` that moves nothing: Clay refuses it ("nothing to split"), the
  symbolic step just changed nothing, so a shortcut could keep one and the
  simplified sequence failed its replay (the raw one was shown):
  :func:`~clayx.whitebox.simplify._splits_something` is Clay's
  precondition, checked by the symbolic steps of the simplification;
- the recovery splits first, one relation at a time, and rewrites the
  parts' α dimensions after; where the target split the α dimensions a
  step before made, those steps move before the split and one ``iss`` of
  the loop replaces the run (:func:`~clayx.whitebox.simplify._hoisted`);
- the same α step on each statement of a loop is done once on the loop
  (:func:`~clayx.whitebox.simplify.merge_siblings`);
- a run of skews, interchanges and reverses of one β that is one skew and
  a signed permutation is written so
  (:func:`~clayx.whitebox.simplify.skew_runs`): the recovery writes a skew
  of a dimension by an inner one with interchanges around.

Every case was longer on the main branch before (the length there is
given), and replays exactly, simplified and raw."""

from __future__ import annotations

import pytest

from clayx.whitebox import Oracle, symbolic, whitebox
from clayx.whitebox.model import Aff, Divs
from clayx.whitebox.simplify import (_apply, _as_one_skew, _hoisted, _row, _splits_something,
                                     _tagged, merge_siblings, skew_runs)
from clayx.whitebox.steps import Step
from clayx.whitebox.targets import start_of
from whitebox_cases import (assert_recovered_shorter, case_params, assert_recovered_code_runs,
                            core_module, session)

#: (kernel, fuzz seed, the random sequence, the script recovered today,
#: its length on main, whether main showed the raw one after a failed replay)
CASES = [
    # a shortcut kept a split of the last child of a loop: Clay refuses it
    ("seidel-2d", 55126,
     "fuse([0]); iss([0, 0], {1 | | 0, 1 | 0}); tile([0, 0, 0], 1, 1, 3); shift([0], 1, {}, 1);"
     " tile([0, 0, 1], 1, 1, 5); peel([0, 0], {0, 1 | 2});",
     "iss([0, 0, 0], {[] | [] | [0, 0] | 0});\niss([0], {[] | [] | [0, 0] | 0});\n"
     "split([0, 1, 0, 0], 3);\nshift([0], 1, {}, 1);\nsplit([0, 0, 0, 0], 3);\n"
     "stripmine([0], 1, 5);\nsplit([0, 0, 0, 1, 0], 2);\n", 18, True),
    ("seidel-2d", 84296,
     "embed([0, 0, 0, 0]); fuse([0]); iss([0, 0], {-1, -1 | | 0, 1 | 2}); peel([0], {0, -1 | -1});",
     "iss([0, 0, 0], {[] | [-1, -1] | [0, 1] | 2});\niss([0], {[] | [1] | [0, -1] | -1});\n"
     "split([0, 0], 1);\nsplit([1, 0, 0, 0], 3);\nembed([0, 0, 0, 0]);\nembed([0, 0, 0, 1]);\n"
     "embed([1, 0, 0, 0]);\nembed([1, 0, 1, 0]);\nsplit([0, 0, 0, 0], 3);\n", 20, True),
    # an iss of the α dimensions a reshape of one statement made: split one
    # statement at a time, the reshape after (20 steps), now as drawn
    ("bicg", 70024, "reshape([1, 1, 0], 1, 2, -2); iss([1], {1 | | -1, 0 | 3});",
     "reshape([1, 1, 0], 1, 2, -2);\niss([1], {[1] | [] | [-1, 0] | 3});\n", 20, False),
    # a skew of a dimension by an inner one, on the loop of two statements:
    # 6 steps, per statement (merge_siblings), then one skew (skew_runs)
    ("lu", 29127, "skew([0], 1, 2, -1);", "skew([0], 1, 2, -1);\n", 6, False),
    ("syrk", 19179, "skew([0, 1], 1, 3, -1);", "skew([0, 1], 1, 3, -1);\n", 6, False),
]


@pytest.mark.parametrize("stem,seed,seq,want,main,undone", case_params(CASES))
def test_recovered_shorter(stem, seed, seq, want, main, undone):
    assert_recovered_shorter(stem, seq, want, main)


def _start(stem: str):
    """A session on ``stem``, the original's symbolic schedule and oracle."""
    s = session(stem)
    scop, _, deps = start_of(s.original, None)
    divs = Divs()
    return symbolic(scop, scop.schedule, divs, tags=False), Oracle(scop, deps, divs)


def test_a_split_must_move_something_as_clay_checks():
    O, _ = _start("mvt")                 # S0 at [0, 0, 0], S1 at [1, 0, 0]
    X = O.copy()
    _apply(X, Step("iss", ((0, 0), Aff({("i", 1): 1, ("c",): -2}))))
    # the loop [0, 0] holds [0, 0, 0] and [0, 0, 1]: a split after the first
    assert _splits_something(X, (0, 0, 0), 2)
    # must fail: after the last one, nothing moves (Clay: "nothing to split")
    assert not _splits_something(X, (0, 0, 1), 2)
    assert not _splits_something(O, (0, 0, 0), 2)
    # must fail: a depth out of range
    assert not _splits_something(X, (0, 0, 0), 3)
    assert not _splits_something(X, (0, 0, 0), 0)
    with pytest.raises(ValueError, match="nothing to split"):
        _apply(O.copy(), Step("split", ((0, 0, 0), 2)))
    # (a sequence with such a split cannot be followed)
    assert _tagged(O, [Step("split", ((0, 0, 0), 2))]) is None


def test_one_skew_and_a_permutation():
    r1, r2, r3 = _row(1), _row(2), _row(3)
    # skew(β, 1, 2, -1): row 1 is r1 + r2
    assert _as_one_skew((0,), [r1 + r2, r2], "") == [Step("skew", ((0,), 1, 2, -1))]
    # a skew then an interchange: rows (r2, r1 - 2·r2)
    new = _as_one_skew((0,), [r2, r1 - r2.scale(2), r3], "")
    assert [s.name for s in new] in (["skew", "interchange"], ["interchange", "skew"])
    # must fail: no skewed row (a permutation), two skewed rows, a row that
    # is another row too (r1 - r2 and r1: not a skew of a permutation)
    assert _as_one_skew((0,), [r2, r1], "") is None
    assert _as_one_skew((0,), [r1 + r2, r2 + r3, r3], "") is None
    new = _as_one_skew((0,), [r1 - r2, r1], "")
    assert new is None or len(new) == 3


def _raw(stem: str, seq: str) -> list:
    s = session(stem, seq)
    return list(whitebox(s.original, s.current.schedule, simplify=False).raw)


def test_skew_runs_and_merged_siblings_need_legal_schedules():
    O, oracle = _start("lu")
    raw = _raw("lu", "skew([0], 1, 2, -1);")
    assert len(raw) == 6
    merged = merge_siblings(raw, O, oracle)
    # each statement's reverse and skew, done once on their loop: 6 -> 4
    assert len(merged) == 4 and all(tuple(s.args[0]) == (0,) for s in merged)
    assert skew_runs(merged, O, oracle) == [Step("skew", ((0,), 1, 2, -1))]

    # must fail: an oracle that says no to every new schedule keeps them
    def no(sched):
        return False
    assert merge_siblings(raw, O, no) == raw
    assert skew_runs(merged, O, no) == merged


def test_alpha_steps_move_before_the_split_they_follow(monkeypatch):
    O, _ = _start("bicg")
    seq = "reshape([1, 1, 0], 1, 2, -2); iss([1], {1 | | -1, 0 | 3});"
    # the splits as written (the recovery now makes the reshape first
    # itself: test_whitebox_short4)
    monkeypatch.setattr(core_module.Core, "shared_alpha", False)
    raw = _raw("bicg", seq)
    states = _tagged(O, raw)
    assert raw[0].name == "embed" and raw[1].name == "iss"
    (H, X, cuts), = _hoisted(states, raw, 0, {})
    assert H == [Step("reshape", ((1, 1, 0), 1, 2, -2))]
    assert any(c.name == "iss" and c.args[0] == (1,) for c in cuts)
    # must fail: without the reshape (the same split, one cut form), nothing
    plain = _raw("bicg", "iss([1], {1 | | -1, 0 | 3});")
    assert list(_hoisted(_tagged(O, plain), plain, 0, {})) == []


@pytest.mark.slow
@pytest.mark.parametrize("n,sizes", [(0, {"TSTEPS": 7, "N": 13}), (2, {"M": 11, "N": 13}),
                                     (3, {"N": 17})])
def test_the_shortened_scripts_run_equal_to_the_original(tmp_path, n, sizes):
    stem, _, seq, _, _, _ = CASES[n]
    assert_recovered_code_runs(tmp_path, stem, seq, sizes)
