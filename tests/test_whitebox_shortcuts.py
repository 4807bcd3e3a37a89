"""Shorter recovered scripts for index-set splits (issue 9: "simplification
... prefer the shorter equivalent chains"): a run of steps that one ``peel``
or ``iss`` of a loop (and a ``reorder``) reaches is replaced by it
(:func:`clayx.whitebox.simplify.shortcuts`), each ``split`` is moved next to
the ``iss`` that made its parts (:func:`~clayx.whitebox.simplify.early_splits`),
and runs that come back to a schedule met before go.

Every recovered script here is longer on the main branch before this rule
(the raw length is given), and replays exactly, simplified and raw."""

from __future__ import annotations

import pytest

from clayx.script import Script
from clayx.whitebox import Oracle, symbolic
from clayx.whitebox.model import ONE, Aff, Divs, it, par
from clayx.whitebox.replay import same_dates
from clayx.whitebox.simplify import early_splits, shortcuts, simplify
from clayx.whitebox.steps import Recorder, Step
from clayx.whitebox.targets import start_of
from whitebox_cases import assert_recovered, assert_recovered_code_runs, session

#: seidel-2d: two iss of the time loop around a skew
SEIDEL_TWO = ("seidel-2d", "iss([0], {-1, 0 | | 0, 0 | 6}); skew([0, 0, 0], 3, 2, -1); "
              "iss([0], {1, 1, 0 | | 0, 1 | -2}); reshape([0, 1, 0, 0], 1, 2, -1);")

#: (example, the user's steps, the recovered script, its length before
#: simplification)
CASES = [
    # peels of single-statement loops, one of them a peel of a peeled part
    ("mvt", "peel([0, 0], {-1 | -2}); fuse([1]); peel([0, 0], {0 | 5}); split([0, 0, 0], 1); "
        "reshape([1, 1, 0], 1, 1, -1); peel([2, 0], {0 | 4});",
     "peel([0, 0], {0 | 5});\nsplit([0, 0], 1);\npeel([2, 0], {0 | 4});\n", 11),
    # an iss of a loop with two statements: one iss and a reorder, not two
    # one-statement splits in one-iteration loops
    ("syrk", "fuse([0]); iss([0, 1, 0], {0, 1 | | -1, -1 | 4}); "
        "peel([0, 1, 0], {-1, -1 | -2}); reverse([0, 1, 1, 1], 2);",
     "iss([0, 1, 0], {[] | [0, 1] | [-1, -1] | 4});\n", 13),
    # two peels of a loop of two statements, marks after (one step longer
    # since schedules are also compared by dates, 7 -> 8: the first round
    # takes a way met by dates whose iss and split early_splits cannot join)
    ("gemm", "vectorize([0, 1, 0]); peel([0, 1], {1, 0, 1 | 0}); reshape([0, 2], 2, 3, 2); "
        "peel([0, 1], {0, 0, 0 | 1}); reverse([0, 3, 0], 3);",
     "iss([0, 1], {[] | [0, 1] | [1, 0, 1] | 0});\npeel([0, 1], {0, 0, 0 | 1});\n"
     "split([0, 2, 0], 2);\nskew([0, 3], 2, 3, 2);\nreverse([0, 3], 3);\n"
     "vectorize([0, 1, 0]);\nvectorize([0, 2, 0]);\nvectorize([0, 3, 0]);\n", 15),
    ("jacobi-1d", "peel([0], {0, -1 | 2});", "peel([0], {0, -1 | 2});\n", 2),
    ("gemm", "peel([0, 1], {0, 0, -1 | 2});", "peel([0, 1], {0, 0, -1 | 2});\n", 3),
    ("mvt", "peel([0, 0], {0 | 5}); peel([1], {-1 | 3});",
     "peel([0, 0], {0 | 5});\npeel([1], {-1 | 3});\n", 5),
    ("seidel-2d", "peel([0, 0], {0, 0 | 2}); skew([0, 1], 2, 1, 1);",
     "peel([0, 0], {0, 0 | 2});\nskew([0, 1], 2, 1, 1);\n", 4),
    # two splits of one loop the recovery made in the other order, one
    # relation at a time: two iss (_two_steps), 19 -> 3
    (SEIDEL_TWO[0], SEIDEL_TWO[1],
     "iss([0], {[] | [-1] | [0, 0] | 6});\niss([0], {[] | [1, 1] | [0, 1] | -2});\n"
     "skew([0, 2], 3, 2, -1);\n", 19),
    # the same with tiles after: 47 -> 8 (28 with the greedy shortcuts);
    # the recovery now splits the loop's statements together itself (a
    # split and its complement are one, test_whitebox_short4): 8 raw steps
    ("bicg", "iss([1], {-1 | | 1, 1 | -2}); collapse([1]); iss([1], {-1 | | -1, -1 | 1}); "
        "tile([1], 1, 1, 5); stripmine([1, 0, 3], 3, 3); tile([1], 2, 2, 5); "
        "iss([1], {-1 | | -1, 0 | -1});",
     "iss([1], {[] | [-1] | [-1, -1] | 1});\niss([1], {[] | [-1] | [-5, 0] | -1});\n"
     "stripmine([1], 1, 5);\nsplit([1, 0, 3, 1], 2);\nstripmine([1, 1], 2, 5);\n"
     "stripmine([1, 0], 2, 5);\n", 8),
]


@pytest.mark.parametrize("stem,seq,want,raw", CASES,
                         ids=[f"{c[0]}-{n}" for n, c in enumerate(CASES)])
def test_split_runs_are_shortened_and_replay(stem, seq, want, raw):
    from clayx.whitebox import whitebox
    assert_recovered(stem, seq, want)
    s = session(stem, seq)
    r = whitebox(s.original, s.current.schedule)
    assert len(r.raw) == raw > len(r.steps)
    assert not r.timings.get("simplification_undone")


def _start(stem: str):
    """The original's symbolic schedule and its oracle."""
    s = session(stem)
    scop, _, deps = start_of(s.original, None)
    divs = Divs()
    return s, symbolic(scop, scop.schedule, divs, tags=False), Oracle(scop, deps, divs)


@pytest.mark.parametrize("stem,loop,amount,text", [
    ("jacobi-1d", (0,), {ONE: -2}, "peel([0], {0, 0 | -2});"),
    ("gemm", (0, 1), {par("nk"): -1, ONE: 3}, "peel([0, 1], {0, 0, -1 | 3});"),
    ("mvt", (1, 0), {ONE: 4}, "peel([1, 0], {0 | 4});"),
    ("seidel-2d", (0, 0), {par("N"): -1, ONE: 2}, "peel([0, 0], {0, -1 | 2});"),
])
def test_the_symbolic_peel_is_clays(stem, loop, amount, text):
    # the whitebox model's peel gives the dates the directive gives, and its
    # step prints as the directive
    s, O, oracle = _start(stem)
    step = Step("peel", (loop, Aff(amount)))
    assert step.text(s.original.params) == text
    Script.parse(text)
    Recorder(O).do("peel", loop, Aff(amount))
    s.apply(text)
    assert same_dates(s.original, oracle.schedule(O), s.current.schedule)


def test_a_run_back_to_a_schedule_met_before_goes():
    _, O, oracle = _start("gemm")
    steps = [Step("embed", ((0, 0, 0),)), Step("unembed", ((0, 0, 0, 0),)),
             Step("reverse", ((0,), 1))]
    assert shortcuts(steps, O) == steps[2:]
    assert simplify(steps, O, None, oracle) == steps[2:]


def test_two_splits_replace_a_run_only_where_the_way_between_is_legal():
    # the two iss of SEIDEL_TWO replace the recovery's one-relation splits
    # when the schedule between them is legal, and not without the oracle
    # or when it says no (then the run stays longer)
    from clayx.whitebox import whitebox
    s = session(*SEIDEL_TWO)
    raw = list(whitebox(s.original, s.current.schedule).raw)
    _, O, oracle = _start("seidel-2d")
    asked = []

    def no(sched):
        asked.append(sched)
        return False
    best = shortcuts(raw, O, oracle)
    assert [st.name for st in best[:2]] == ["iss", "iss"] and len(best) < len(raw) - 10
    assert len(shortcuts(raw, O, no)) > len(best) and asked
    assert len(shortcuts(raw, O)) > len(best)


def _peel_then_outer_shift():
    """mvt: an iss of the j loop of its first nest, a shift of that nest's
    i loop, then the split of the iss's parts."""
    s, O, oracle = _start("mvt")
    ineq = Aff({it(1): -1, ONE: 4})                 # j <= 4 first
    return s, O, oracle, [Step("iss", ((0, 0), ineq)), Step("shift", ((0,), 1, Aff({ONE: 2}))),
                          Step("split", ((0, 0, 0), 2))]


def test_a_split_moves_early_only_where_the_way_is_legal():
    # the shift changes an outer dimension of the loop the split cuts: the
    # schedule between is not known legal from the old ones, the oracle is
    # asked; when it says no, the split stays where it was
    s, O, oracle, steps = _peel_then_outer_shift()
    asked = []

    def no(sched):
        asked.append(sched)
        return False
    assert early_splits(steps, O, no) == steps
    assert asked
    moved = early_splits(steps, O, oracle)
    assert [st.name for st in moved] == ["iss", "split", "shift"]
    assert [st.name for st in shortcuts(moved, O, oracle)] == ["peel", "shift"]


def test_a_split_moves_early_without_asking_when_only_the_cut_changes():
    # the step in between changes an inner dimension: the schedule on the
    # way orders every pair as an old one does, no legality question
    s, O, oracle, steps = _peel_then_outer_shift()
    steps[1] = Step("shift", ((0,), 2, Aff({ONE: 2})))

    def never(sched):
        raise AssertionError("asked")
    moved = early_splits(steps, O, never)
    assert [st.name for st in moved] == ["iss", "split", "shift"]
    new = simplify(steps, O, None, oracle)
    assert [st.name for st in new] == ["peel", "shift"]
    x = session("mvt")
    x.apply(" ".join(st.text(x.original.params) for st in new))
    y = session("mvt")
    y.apply(" ".join(st.text(y.original.params) for st in steps))
    assert same_dates(x.original, x.current.schedule, y.current.schedule)


@pytest.mark.slow
@pytest.mark.parametrize("n,sizes", [(0, {"N": 13}), (1, {"M": 7, "N": 9}),
                                     (2, {"NI": 8, "NJ": 9, "NK": 6}),
                                     (7, {"TSTEPS": 9, "N": 11}), (8, {"M": 13, "N": 12})])
def test_the_shortened_scripts_run_equal_to_the_original(tmp_path, n, sizes):
    stem, seq, _, _ = CASES[n]
    assert_recovered_code_runs(tmp_path, stem, seq, sizes)
