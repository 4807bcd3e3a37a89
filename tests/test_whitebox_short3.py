"""Shorter recovered scripts, third round (issue 9: "prefer … over longer
equivalent chains").

The largest class of long recovered scripts: an index-set split that the
target made with one ``iss`` of a loop holding several statements, which
the recovery made once per statement, each inside a one-iteration loop
(``embed; iss; split; unembed; unembed``), then a ``reorder``.  The
recovery splits statements that share an inequality by one ``iss`` of
their loop (:meth:`~clayx.whitebox.core.Core._shared_splits`) when it
is each one's *first* split; two causes kept it from being first:

- each statement's splits were tried in the order its parts' constraints
  came: now the inequalities more statements have are tried first
  (:func:`~clayx.whitebox.core._shared_first`);
- a part without instances (Clay keeps them) is placed by its constraints
  as written, and isl writes ``T ≤ 6 and T ≤ -7`` as ``-T - 7 ≥ 0``, on
  neither side of ``T ≤ 6`` as written: now a constraint that implies the
  split as written places it (:func:`~clayx.whitebox.core._implied`).

With those splits made once, lu's four peels recover in 11 raw steps (53
before), where a round of :func:`~clayx.whitebox.simplify.shortcuts` met by
dates combined ways into 2 steps that leave a statement one place off
("same order, different dates", shown as such): each round must now end
at the old dates (:func:`~clayx.whitebox.simplify._same_end`).

Every case was longer on the main branch before (the length there is
given), and replays exactly, simplified and raw."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from clayx.whitebox import Oracle, symbolic, whitebox
from clayx.whitebox.model import Aff, Divs
from clayx.whitebox.simplify import _emptiness, _same_end
from clayx.whitebox.steps import Step
from clayx.whitebox.targets import start_of
from whitebox_cases import (assert_recovered_code_runs, assert_recovered_shorter, case_params,
                            core_module, iterator as _i, session)

_implied = core_module._implied
_shared_first = core_module._shared_first
_split_tree = core_module._split_tree

#: (kernel, fuzz seed, the random sequence, the script recovered today,
#: its length on main)
CASES = [
    # a parametric iss of the time loop of both statements: per statement
    # in one-iteration loops then reordered (13 steps), now one iss
    ("jacobi-1d", 63083,
     "skew([0, 1], 2, 1, -1); iss([0], {0 | | -1, 0 | 6}); iss([0, 2], {0, 0 | | 1, 0 | 6});",
     "iss([0], {[] | [] | [-1, 0] | 6});\niss([0, 2], {[] | [] | [1, 0] | 6});\n"
     "skew([0, 1], 2, 1, -1);\nskew([0, 3], 2, 1, -1);\n", 13),
]


@pytest.mark.parametrize("stem,seed,seq,want,main", case_params(CASES))
def test_recovered_shorter(stem, seed, seq, want, main):
    assert_recovered_shorter(stem, seq, want, main)



def test_a_constraint_implies_a_split_as_written():
    n = Aff.var(("p", "N"))
    # -i - 7 >= 0 lies in -i + 6 >= 0 (and in itself)
    assert _implied([-_i(0, 7)], -_i(0, -6))
    assert _implied([-_i(0, 7)], -_i(0, 7))
    # twice the form, plus a constant >= 0
    assert _implied([_i(0, -2) + n], (_i(0, -2) + n).scale(2) + Aff.const(1))
    # must fail: the other side, a smaller constant, another form, a
    # negative multiple, no constraint, a constant (isl's -1 >= 0 of an
    # empty part: split off by itself)
    assert not _implied([-_i(0, 7)], _i(0, -7))
    assert not _implied([-_i(0, -6)], -_i(0, 7))
    assert not _implied([-_i(0, 7)], -_i(1, 7))
    assert not _implied([-_i(0, 7)], -_i(0, 7) - n)
    assert not _implied([_i(0)], -_i(0).scale(2))
    assert not _implied([], _i(0))
    assert not _implied([Aff.const(1)], _i(0))
    assert not _implied([Aff.const(-1)], _i(1, 3))


def test_shared_inequalities_first():
    t = Aff.var(("p", "T"))
    t7 = t + Aff.const(-7)                  # T - 7 >= 0
    t6 = -t7 - Aff.const(1)                 # its negation, -T + 6 >= 0
    u = -t + Aff.const(-7)                  # -T - 7 >= 0 (S0's own)
    v = -u - Aff.const(1)                   # its negation, T + 6 >= 0
    s0 = [(0, [u]), (1, [v, t6]), (2, [t7, v])]
    parts = {"S0": [SimpleNamespace(cons=c) for _, c in s0],
             "S1": [SimpleNamespace(cons=[t7]), SimpleNamespace(cons=[t6])]}
    rank = _shared_first(parts)
    # the inequality of both statements (as written or negated) first
    assert sorted([u, v, t6], key=rank) == [t6, u, v]
    assert rank(t7) == rank(t6) < rank(u) == rank(v) < rank(Aff.const(3))

    def subset(cons, c):
        return _implied(cons, c)
    # so S0's split tree starts with it, as S1's must: T <= 6 holds the
    # parts 0 and 1
    assert _split_tree(s0, subset, rank=rank) == (t6, (u, 0, 1), 2)
    assert _split_tree([(3, [t7]), (4, [t6])], subset, rank=rank)[0] in (t7, t6)
    # must fail: in the order written, S0's own inequality comes first
    assert _split_tree(s0, subset)[0] == u


def _start(stem: str):
    """The original's symbolic schedule of ``stem`` and its oracle."""
    s = session(stem)
    scop, _, deps = start_of(s.original, None)
    divs = Divs()
    return symbolic(scop, scop.schedule, divs, tags=False), Oracle(scop, deps, divs)


#: four peels and an interchange of lu: the splits of the statements of a
#: loop made once, 11 raw steps (53 before), where a round of shortcuts
#: met by dates found three steps that leave S1 one place off
LU = ("peel([0, 0], {0 | -2}); peel([0], {1 | -2}); peel([1, 0, 0], {-1 | 2});"
      " peel([0, 1, 0], {0 | 6}); interchange([0, 0], 2, 1);")


def test_a_round_of_shortcuts_must_reach_the_old_dates():
    s = session("lu", LU)
    raw = list(whitebox(s.original, s.current.schedule, simplify=False).raw)
    assert len(raw) == 11
    O, oracle = _start("lu")
    empty = _emptiness(oracle)
    assert _same_end(O, raw, raw, None) and _same_end(O, raw, raw, empty)
    # must fail: the three steps that round found (S1 at [1, 0, 1], not
    # [1, 0, 2]), and a sequence that cannot be followed
    n = Aff.var(("p", "N"))
    bad = [Step("peel", ((0,), n - Aff.const(2))),
           Step("iss", ((0, 0), Aff.const(1) - Aff.var(("i", 1)))),
           Step("peel", ((1, 0), Aff.const(-2)))]
    assert not _same_end(O, raw, bad, empty)
    assert not _same_end(O, raw, bad, None)
    assert not _same_end(O, raw, [Step("split", ((5, 0), 2))], empty)
    # so the sequence shown replays exactly (it was 2 steps, "same order,
    # different dates", with this recovery and without the check)
    r = whitebox(s.original, s.current.schedule)
    assert r.exact and len(r.steps) == 9


@pytest.mark.slow
def test_a_simplification_that_only_keeps_the_order_gives_way_to_the_exact_raw(monkeypatch):
    # a simplified script that replays to the same order but other dates is
    # replaced by the raw one when that one gives the target's dates
    import clayx.whitebox.replay as rep
    import clayx.whitebox.simplify as simp
    from clayx.whitebox import WhiteboxError
    s = session("gemm", "interchange([0, 1], 2, 3);")
    plain = whitebox(s.original, s.current.schedule)
    assert plain.exact and plain.text(comments=False) == "interchange([0, 1], 2, 3);\n"
    # the whole nest one later: the same order, not the same dates
    off = Step("shift", ((0,), 1, Aff.const(1)))
    monkeypatch.setattr(simp, "simplify", lambda raw, *a, **k: list(raw) + [off])
    r = whitebox(s.original, s.current.schedule)
    assert r.exact and r.timings.get("simplification_undone")
    assert r.text(comments=False) == plain.text(comments=False)
    # when the raw script does not replay either, the short one stays, with its note
    real, calls = rep.replay, []

    def second_fails(result, *a, **k):
        calls.append(len(result.steps))
        if len(calls) == 2:
            raise WhiteboxError("bug: a step is refused on replay")
        return real(result, *a, **k)

    monkeypatch.setattr(rep, "replay", second_fails)
    r = whitebox(s.original, s.current.schedule)
    assert calls == [2, 1]
    assert not r.exact and r.note == "same execution order, different dates"
    assert r.text(comments=False) == "interchange([0, 1], 2, 3);\nshift([0], 1, {}, 1);\n"
    assert not r.timings.get("simplification_undone")


def test_the_shortened_scripts_run_equal_to_the_original(tmp_path):
    stem, _, seq, _, _ = CASES[0]
    assert_recovered_code_runs(tmp_path, stem, seq, {"TSTEPS": 5, "N": 13})
