"""Whitebox recovery of targets from fuzz seeds nobody studied (issue 9):
two unrolls of one loop, and index-set splits that a later step orders.

- Two unrolls of one loop (``unroll(L, 3); unroll(L, 2)``): the second
  unroll copies every child of the loop, the first one's main part and
  copies; the copy of each is empty (its instances are in the first one's
  other parts).  Those relations without instances, beside the strided
  parts in their loop, are kept as *spare* target parts
  (:attr:`clayx.whitebox.unrolls.Unrolls.spare`) for the second unroll,
  whose factor may divide the strides (6 on a part with stride 3: 2), and
  which takes along the loop's relations it leaves whole
  (``Unrolls._riders``).  When the spares lead nowhere the split starts
  again without them (main's behaviour).
- An index-set split by an inner loop's iterator made on the original
  reorders what a later skew orders legally in the target (gemm fuzz seed
  90040): careful recovery checks the splits and lets the late splits
  (after the skew) recover it; main's recovered sequence failed its replay.

Every recovered script, simplified or not, replays (every step checked) to
the target's dates; some are compiled and run against the original."""

from __future__ import annotations

import pytest

from clayx.errors import LegalityError
from clayx.whitebox import WhiteboxError, whitebox
from clayx.whitebox import unrolls as U
from clayx.whitebox.model import Aff, Rel
from clayx.whitebox.replay import same_dates

from whitebox_cases import (assert_recovered, case_params, assert_recovered_code_runs, session,
                            symbolic_target, recover_module as _recover, core_module)


#: (kernel, fuzz seed or None, the sequence, the script recovered today).
#: Each was refused on main (or, gemm 90040, its recovered sequence failed
#: its replay).
CASES = [
    # the unrolled loop unrolled again: by 3, then by 2 (main: "not the main
    # part, copies and epilog of an unroll ... [3, 6]")
    ("jacobi-1d", 82053, "peel([0, 0], {1, 0 | 6}); unroll([0, 2], 3); unroll([0, 2], 2); "
                         "parallelize([0, 3], 2);",
     "peel([0, 0], {1, 0 | 6});\nunroll([0, 2], 3);\nunroll([0, 2], 2);\nparallelize([0, 3]);\n"),
    # by 3 then by 4 (strides 3 and 12; copy 3 of the second unroll has
    # instances, copies 1 and 2 are empty)
    ("syrk", None, "unroll([0, 1, 0], 3); unroll([0, 1, 0], 4);",
     "unroll([0, 1, 0], 3);\nunroll([0, 1, 0], 4);\n"),
    # by 2 then by 3
    ("gemm", None, "unroll([0, 0], 2); unroll([0, 0], 3);",
     "unroll([0, 0], 2);\nunroll([0, 0], 3);\n"),
    # a split of the loop by the inner iterator 3·k (after a grain) that the
    # skew by it orders: made after the skew (main's sequence made it first,
    # and it broke the reduction over k on replay)
    ("gemm", 90040, "grain([0], 2, 3); skew([0, 1], 1, 2, -1); "
                    "iss([0], {0, -1 | | 1, 0, -1 | 4});",
     "skew([0, 1], 1, 2, -3);\ngrain([0, 1], 2, 3);\ngrain([0, 0], 2, 3);\n"
     "iss([0], {[0, -1] | [] | [1, 0, -1] | 4});\n"),
]


@pytest.mark.parametrize("stem,seed,seq,want", case_params(CASES))
def test_target_is_recovered_and_replays(stem, seed, seq, want):
    assert_recovered(stem, seq, want)


#: Recovered on main, but by splitting the second unroll's empty copies
#: off first (16 and 15 steps): now the drawn sequence itself.
SHORTER = [
    ("jacobi-1d", "unroll([0, 1], 2); unroll([0, 1], 2);", "unroll([0, 1], 2);\nunroll([0, 1], 2);\n"),
    ("atax", "unroll([1, 1], 4); unroll([1, 1], 2);", "unroll([1, 1], 4);\nunroll([1, 1], 2);\n"),
]


@pytest.mark.parametrize("stem,seq,want", SHORTER, ids=[c[0] for c in SHORTER])
def test_second_unroll_takes_the_parts_it_leaves_whole(stem, seq, want):
    assert_recovered(stem, seq, want)


@pytest.mark.slow
def test_unroll_of_an_unrolled_loop_then_of_its_epilog_is_recovered():
    # syrk 47029: two unrolls of one loop, then an unroll of the first
    # one's epilog loop (every instance in its epilog: its main part and
    # copies are empty); the spares lead nowhere, the split starts again
    # without them (main refused: "... by a factor its strides show, [3, 12]")
    seq = ("unroll([0, 1, 0], 3); unroll([0, 1, 0], 4); split_children([0, 1, 0], 4); "
           "embed([0, 1, 0, 1]); unroll([0, 1, 3], 4);")
    s = session("syrk", seq)
    target = s.current.schedule
    r = whitebox(s.original, target)
    assert r.exact
    text = r.text(comments=False)
    assert "unroll([0, 1, 0], 3);\nunroll([0, 1, 0], 4);\n" in text
    t = session("syrk", text)
    assert same_dates(t.original, t.current.schedule, target)


# --- the spare parts -------------------------------------------------------------------

def test_a_relation_without_instances_is_told_from_an_empty_split_half():
    spare = Rel("S1", 2, (0, 2, 3), [Aff(), Aff()], [Aff.const(-1)], 5, empty=True)
    assert U._no_relation(spare)
    # an empty half of an index-set split keeps its constraints: not spare
    half = Rel("S1", 2, (0, 2, 3), [Aff(), Aff()], [Aff({("i", 0): 1}) - Aff.const(9)], 6,
               empty=True)
    assert not U._no_relation(half)
    # a part with instances is never spare
    live = Rel("S1", 2, (0, 2, 0), [Aff(), Aff()], [Aff.const(-1)], 7, empty=False)
    assert not U._no_relation(live)


def test_common_prefix():
    assert U._common((0, 2, 3), (0, 2, 0)) == 2
    assert U._common((1,), (0, 2)) == 0
    assert U._common((0, 1), (0, 1, 4)) == 2


def _spare_parts(stem, seq):
    T, oracle = symbolic_target(stem, seq)

    class Core:                             # what Unrolls.parts reads
        C = T
    Core.oracle = oracle
    u = U.Unrolls(Core)
    u._group = lambda r, within, strided, rest: (strided, within)
    return T, u


def test_empty_copies_beside_strided_parts_are_spare():
    T, u = _spare_parts("jacobi-1d", "peel([0, 0], {1, 0 | 6}); unroll([0, 2], 3); "
                                     "unroll([0, 2], 2);")
    S1 = [t for t in T.rels if t.stmt == "S1"]
    u.core._fresh = iter(range(10 ** 6, 10 ** 6 + 9)).__next__
    u.parts("S1", S1)
    # the three empty copies of the second unroll, at [0, 2, 3..5]
    assert [t.beta for t in u.spare["S1"]] == [(0, 2, 3), (0, 2, 4), (0, 2, 5)]
    assert u.spare_taken


def test_empty_parts_in_another_loop_are_not_spare():
    # lu: a peel of the unrolled loop: its empty half (main part and
    # copies) sits in a loop of its own, split off like any part
    T, u = _spare_parts("lu", "grain([0, 0], 2, 2); unroll([0, 1, 0], 4); "
                              "peel([0, 1, 0], {0 | 5});")
    S2 = [t for t in T.rels if t.stmt == "S2"]
    assert sum(t.empty for t in S2) == 4
    u.core._fresh = iter(range(10 ** 6, 10 ** 6 + 9)).__next__
    out = u.parts("S2", S2)
    assert not u.spare.get("S2") and not u.spare_taken
    assert sum(t.empty for t in out) == 4


def test_without_riders_the_split_starts_again_without_spares(monkeypatch):
    # the spares lead nowhere (the second unroll's main part not taken
    # along): the split starts again as main did, longer but exact
    monkeypatch.setattr(U.Unrolls, "_riders", lambda self, batch: [])
    s = session("jacobi-1d", "unroll([0, 1], 2); unroll([0, 1], 2);")
    target = s.current.schedule
    r = whitebox(s.original, target)
    assert r.exact and len(r.steps) > 2
    t = session("jacobi-1d", r.text(comments=False))
    assert same_dates(t.original, t.current.schedule, target)


def test_spare_mode_alone_refuses_what_it_cannot_use(monkeypatch):
    # must fail: without the restart, the spare parts left over are refused
    # clearly (never a wrong sequence)
    monkeypatch.setattr(U.Unrolls, "_riders", lambda self, batch: [])
    T, oracle = symbolic_target("jacobi-1d", "unroll([0, 1], 2); unroll([0, 1], 2);")
    O = _recover_o("jacobi-1d")
    orig = core_module.Core.split_parts
    monkeypatch.setattr(core_module.Core, "split_parts", lambda self: self._split_parts())
    with pytest.raises(WhiteboxError, match="without instances than its unrolls make"):
        _recover._recover(O, T, None, oracle, False)
    monkeypatch.setattr(core_module.Core, "split_parts", orig)
    steps, _ = _recover._recover(O, T, None, oracle, False)
    assert steps


def _recover_o(stem):
    from clayx.whitebox import symbolic
    from clayx.whitebox.model import Divs
    from clayx.whitebox.targets import start_of
    s = session(stem)
    scop, _, _ = start_of(s.original, None)
    return symbolic(scop, scop.schedule, Divs(), tags=False)


# --- the splits checked in careful mode -------------------------------------------------

def test_careful_recovery_refuses_an_early_split_that_breaks_a_dependence():
    seq = "grain([0], 2, 3); skew([0, 1], 1, 2, -1); iss([0], {0, -1 | | 1, 0, -1 | 4});"
    T, oracle = symbolic_target("gemm", seq)
    O = _recover_o("gemm")
    # must fail: the split made first breaks the reduction over k
    with pytest.raises(WhiteboxError, match="cannot split the statements of the target early"):
        _recover._recover(O, T, None, oracle, True)
    # without the check (plain mode) the split is made first: its replay fails
    steps, _ = _recover._recover(O, T, None, oracle, False)
    assert steps[0].name == "iss"
    s = session("gemm")
    with pytest.raises(LegalityError):
        s.apply(steps[0].text(T.params))


# --- compiled and run ------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("k,sizes", [(0, {"TSTEPS": 3, "N": 17}), (1, {"M": 9, "N": 14}),
                                     (3, {"NI": 7, "NJ": 5, "NK": 8})])
def test_recovered_script_runs_equal_to_the_original(tmp_path, k, sizes):
    # the recovered script, applied to the original and compiled, prints
    # the original's output bit for bit (sizes that leave epilogs)
    stem, _, seq, _ = CASES[k]
    assert_recovered_code_runs(tmp_path, stem, seq, sizes)
