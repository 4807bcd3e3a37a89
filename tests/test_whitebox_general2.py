"""Whitebox recovery on fuzz seeds nobody studied (issue 9), second round:
a skew of one half of a split made after the tiling, an unroll of a loop
whose statements an earlier unroll found apart, and α steps on a loop that
holds a shallower statement.

- A skew by a (reversed) tile loop of one half of an index-set split made
  after the tiling (jacobi-2d fuzz seed 90138): isl gives the skewed
  dimension ``floor(j/5) + floor(j/160)`` of the half (its part has
  strides) in pieces; :func:`clayx.whitebox.model._plain_alphas` reads it
  as ``(o_k + c·o_l) - c·o_l`` with ``o_l`` the tile loop, and the late
  split pairs the halves (:func:`recover._skews_of`) and skews the one
  half after the split (:func:`recover._late_skews`).  Main refused: "a
  relation of S1 is piecewise (3 pieces) on its part".
- ``unroll`` of an inner loop of S1, then of the time loop that S0 shares
  (jacobi-1d; jacobi-2d fuzz seed 29218 has it): S1's inner unroll, found
  first, left S0's unroll of the time loop alone, which separating breaks a
  dependence; the round is tried again with S1 unrolled by the time loop
  too (:meth:`clayx.whitebox.unrolls.Unrolls._aligned`).  Main refused:
  "cannot unroll the loop at depth 1 of S0 early".
- An α step on a loop that holds a shallower statement (an empty half of
  a split, one loop short: trmm fuzz seed 92255) is refused by Clay; the
  symbolic schedule refuses it too (a ``WhiteboxError``, so the recovery
  tries another way or refuses clearly), where it crashed with an
  ``IndexError``.

Every recovered script, simplified or not, replays (every step checked) to
the target's dates; the slow test compiles some and runs them against the
original."""

from __future__ import annotations

import islpy as isl
import pytest

from clayx.whitebox import WhiteboxError
from clayx.whitebox import model as M
from clayx.whitebox import unrolls as U
from clayx.whitebox.model import Aff, Rel, Sched, it

from whitebox_cases import (assert_recovered, case_params, assert_recovered_code_runs, session,
                            symbolic_target, recover_module as R)

SKEWED_HALF = ("tile([0], 3, 3, 5); tile([0, 1], 3, 2, 32); reverse([0, 1, 0, 0, 0], 2); "
               "fuse([0, 0, 0, 0]); iss([0, 1], {-1, 1, -1, 1 | | -1, 0 | -1}); "
               "skew([0, 1, 0], 4, 2, 1);")
SKEWED_TILE = ("tile([0], 3, 3, 5); tile([0, 1], 3, 2, 32); "
               "iss([0, 1], {-1, 1, -1, 1 | | -1, 0 | -1}); skew([0, 1, 0], 4, 2, 1);")
TWO_UNROLLS = "unroll([0, 1], 2); unroll([0], 3);"

#: (kernel, fuzz seed or None, the sequence, the script recovered today);
#: each was refused on main.
CASES = [
    ("jacobi-2d", 90138, SKEWED_HALF,
     "reverse([0, 1], 3);\nshift([0, 1], 3, {}, 1);\ntile([0, 1], 3, 2, 160);\n"
     "shift([0, 1], 4, {}, -1);\nreverse([0, 1], 4);\nstripmine([0, 1], 4, 5);\n"
     "stripmine([0, 0], 3, 5);\nshift([0, 1], 2, {}, -1);\n"
     "iss([0, 1], {[-5, 5, -5, 0, 1] | [] | [-5, 0] | -5});\nskew([0, 1, 0], 4, 2, 1);\n"),
    # the same without the reverse and fusion: isl writes the skewed half's
    # tile loop with a div of its own (a tile of a tile loop), equal to the
    # other half's on the instances (main: "cannot express the strip-mined
    # dimension 3 of S1 (d0 + d2 + 1): it is not a tile or chunk ...")
    ("jacobi-2d", None, SKEWED_TILE,
     "tile([0, 1], 3, 2, 160);\nstripmine([0, 1], 4, 5);\nstripmine([0, 0], 3, 5);\n"
     "iss([0, 1], {[-5, 5, -5, 0, 1] | [] | [-5, 0] | -5});\nskew([0, 1, 0], 4, 2, 1);\n"),
    ("jacobi-1d", None, TWO_UNROLLS,
     "unroll([0], 3);\nunroll([0, 1], 2);\nunroll([0, 4], 2);\nunroll([0, 7], 2);\n"
     "unroll([1, 1], 2);\n"),
]


@pytest.mark.parametrize("stem,seed,seq,want", case_params(CASES))
def test_target_is_recovered_and_replays(stem, seed, seq, want):
    assert_recovered(stem, seq, want)


# --- a dimension isl gives in pieces on a strided part ----------------------------------

def test_a_skew_by_a_tile_loop_is_read_as_one_quasi_affine_function():
    # o3 = floor(j/5) - o1, o1 = -floor(j/160) (a skew of the point loop by
    # its reversed tile loop): isl gives o3 in two pieces
    m = isl.Map("[n] -> { S[t, j] -> [o1, o3] : 0 <= j < n and 0 <= t < n and "
                "-33o1 <= o3 <= 31 - 33o1 and o3 <= n + t - 2o1 and "
                "-4 + j - 5o1 <= 5o3 <= j - 5o1 }")
    divs = M.Divs()
    five = divs.get(Aff.var(it(1)), 5)
    a = M._plain_alphas(m, divs, ["n"], {})
    assert a[1] == five - a[0]
    # the tile loop itself: -floor(j/160), written as isl does
    assert divs.of(a[0].keys("d")[0]) == (Aff.var(it(1)).scale(-1) - Aff.const(1), 160)


def test_a_dimension_that_stays_piecewise_is_refused():
    # must fail: 2j on one side of 5, j on the other: no affine function
    # and no skew by the other dimension makes one piece
    m = isl.Map("[n] -> { S[j] -> [j, o] : 0 <= j < n and 4*floor(j/4) = j and "
                "((o = j and j < 5) or (o = 2j and j >= 5)) }")
    with pytest.raises(WhiteboxError, match="piecewise"):
        M._plain_alphas(m, M.Divs(), ["n"], {})


def test_the_skewed_half_is_read_with_the_skew():
    T, _ = symbolic_target("jacobi-2d", SKEWED_HALF)
    a, b = [r for r in T.rels if r.stmt == "S1"]
    assert a.alphas[3] == b.alphas[3] - b.alphas[1]
    assert [a.alphas[k] for k in (0, 1, 2, 4)] == [b.alphas[k] for k in (0, 1, 2, 4)]


# --- halves split after the tiling that differ by a skew --------------------------------

def _rel(alphas, beta=(0, 0)):
    return Rel("S", 2, beta, list(alphas), [], 0)


def test_skews_of_a_half():
    i, j, d = Aff.var(it(0)), Aff.var(it(1)), Aff.var(M.div(0))
    half = _rel([d, i, j + d.scale(2) - i])
    assert R._skews_of(half, [d, i, j]) == [[], [0], [2, -1]]
    # must fail: a difference without strip-mined dimension (a reshape's
    # or shift's, :func:`_akin` takes it), one that is no sum of outer
    # dimensions, and one with a fraction
    assert R._skews_of(_rel([d, i, j - i]), [d, i, j]) is None
    assert R._skews_of(_rel([d, i, j + d]), [d, i + j, j]) is None
    assert R._skew_by([d.scale(2)], d) is None


def test_late_skews_skew_the_loop_that_holds_the_half_alone():
    from clayx.whitebox.steps import Recorder
    i, j, d = Aff.var(it(0)), Aff.var(it(1)), Aff.var(M.div(0))
    O = Sched([Rel("S", 2, (0, 0, 0, 0), [d, i, j], [], 1),
               Rel("S", 2, (0, 1, 0, 0), [d, i, j], [], 2)], ["n"], M.Divs())
    O.divs.get(i, 4)
    rec = Recorder(O)
    assert R._late_skews(rec, O.by_tag(1), 3, j + d)
    assert [s.text(["n"]) for s in rec.steps] == ["skew([0, 0], 3, 1, -1);"]
    assert O.by_tag(1).alphas[2] == j + d and O.by_tag(2).alphas[2] == j
    # must fail: no skew makes a change without strip-mined dimension
    assert not R._late_skews(rec, O.by_tag(1), 3, j + d - i)


def test_a_skew_equal_on_the_instances_is_found_and_the_unskewed_half_is_the_base():
    T, oracle = symbolic_target("jacobi-2d", SKEWED_TILE)
    a, b = [r for r in T.rels if r.stmt == "S1"]
    # a's dimension 4 is b's plus a tile of a tile loop that isl writes
    # with a div of its own: no sum as written, one on the instances
    assert R._skews_of(a, b.alphas) is None
    assert R._skews_of(a, b.alphas, T.divs) == [[], [0], [0, 0], [0, -1, 0], [0, 0, 0, 0]]
    assert R._skewed_half(a, b, T.divs) and not R._skewed_half(b, a, T.divs)
    assert R._base(T, a, b, oracle) is b
    # must fail: a factor no small skew gives
    assert R._skew_on(a, a.alphas[:3], a.alphas[1].scale(3), T.divs) is None


# --- the other statements of the loop unrolled with it ----------------------------------

def test_without_alignment_the_early_unroll_is_refused(monkeypatch):
    # must fail: S1's inner unroll alone, S0's time loop unrolled apart
    monkeypatch.setattr(U.Unrolls, "_aligned", lambda self, events: None)
    s = session("jacobi-1d", TWO_UNROLLS)
    from clayx.whitebox import whitebox
    with pytest.raises(WhiteboxError, match="cannot unroll the loop at depth 1 of S0 early"):
        whitebox(s.original, s.current.schedule, simplify=False)


# --- α steps need every statement of the loop deep enough -------------------------------

def test_an_alpha_step_on_a_loop_with_a_shallower_statement_is_refused():
    i, j = Aff.var(it(0)), Aff.var(it(1))
    S = Sched([Rel("S", 2, (0, 0, 0), [i, j], [], 1),
               Rel("S", 2, (0, 1), [i], [Aff.const(-1)], 2, empty=True)], ["n"], M.Divs())
    for step in (lambda: S.interchange((0,), 1, 2), lambda: S.reverse((0,), 2),
                 lambda: S.skew((0,), 2, 1, 1), lambda: S.shift((0,), 2, Aff.const(1))):
        with pytest.raises(WhiteboxError, match="fewer than 2 loops"):
            step()
    assert S.by_tag(1).alphas == [i, j]          # unchanged
    S.reverse((0, 0), 2)                          # the loop that holds only S#1
    assert S.by_tag(1).alphas == [i, -j]


# --- compiled and run ------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("k", [0, 2])
def test_recovered_script_runs_equal_to_the_original(tmp_path, k):
    # the recovered script, applied to the original and compiled, prints
    # the original's output bit for bit (sizes that leave epilogs)
    stem, _, seq, _ = CASES[k]
    sizes = {"TSTEPS": 7, "N": 13} if stem == "jacobi-2d" else {"TSTEPS": 8, "N": 15}
    assert_recovered_code_runs(tmp_path, stem, seq, sizes)
