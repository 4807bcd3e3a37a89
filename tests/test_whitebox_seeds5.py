"""Whitebox regressions of fuzz seeds 112000-115000 (issue 9): the two
refusal classes found there, one found near the seeds scanned after
(116000-123000), and a crash of seed 120255, now recovered.

- **A tile whose swap reorders the loops it passes.**  The target tiles
  a loop at depth 3 with its tile loop at depth 1, over point loops that
  carry a dependence only inside the tile loop (syrk 112039: ``(⌊j/3⌋,
  k - 2j, i - 2k, j)``).  The reduction reads it as ``tile(…, 3, 1, 3);
  interchange(…, 2, 3)`` of the core ``(k - 2j, i - 2k, j)`` (Clay's
  ``tile`` swaps the tile loop with the loop at its depth, the interchange
  puts the two passed loops back), whose swap gives ``(⌊j/3⌋, i - 2k,
  k - 2j, j)``, which breaks the dependence; the core of a tile alone,
  ``(i - 2k, k - 2j, j)``, breaks it too.  Now the careful recovery also
  tries each such ``tile`` as a ``stripmine`` and adjacent
  ``interchange`` s carrying the tile loop out one loop at a time (the
  loops it passes keep their order: :func:`~clayx.whitebox.recover._carried_tiles`).
- **Reshapes that pass through dependent dimensions in every order.**
  Moving one α row from ``i`` to ``j`` next to ``(3i + k + 3j, k)`` goes
  through ``i + j`` or ``0``, both dependent on the others (``reshape``
  refuses them; gemm 115250: a skew, a ``grain`` by 3 of one statement, a
  skew).  Now :func:`~clayx.whitebox.algebra.reshape_plan` takes a detour
  in the α recovery's plans (:meth:`~clayx.whitebox.core.Core.plan`;
  :func:`~clayx.whitebox.algebra._detour`): one coefficient first moved by
  an amount the plan does not ask (``i → 2i → 2i + j → j``).  The
  tiling's reductions keep the direct plans (a longer detour there can
  displace a shorter reading: bicg 113274).

- **A tile loop read with another div in one statement.**  After a
  tile loop is skewed by a point loop and one statement's dimension by
  its own point loop ``j``, isl writes that statement's ``floor(j / 4) +
  i - j`` as ``i - floor((3j + 3) / 4)``, a div of its own beside the
  others' ``floor(j / 4) + i``: the reductions went round in circles
  (found on trmm, scanning seeds 116000-119000 nearby).  Now, in the last
  pass of the reduction, such a div is written with the div of the loop's
  other relations at that depth
  (:func:`~clayx.whitebox.tiling._loop_owned_divs`), and the skew of one
  statement is undone as such (not in the first pass: it took bicg
  95184's strip-mined dimension away from its chunk, refused so).

- **A shared plan read on a shallower part** (a crash, IndexError, on
  trmm 120255, seed 120000 scanned after): the α plan of a deeper
  relation was simulated on a part whose domain fixes iterators, to share
  it (:meth:`~clayx.whitebox.core.Core._fits_plan`); a plan that changes
  dimensions the part does not have does not fit it.

Every case but bicg 95184 was refused (or crashed) on the main branch before."""

from __future__ import annotations

import pytest

from clayx.whitebox.model import Aff, Rel
from clayx.whitebox.steps import Step
from whitebox_cases import (algebra_module, assert_recovered, assert_recovered_code_runs,
                            case_params, iterator as _i, recover_module, symbolic_target,
                            tiling_module)

#: (kernel, fuzz seed, the random sequence, the script recovered today)
CASES = [
    # syrk: S0 reversed alone, S1's j loop tiled out to depth 1, its point
    # loops skewed and reshaped: the tile carried out by interchanges
    ("syrk", 112039,
     "reverse([0, 0], 1); tile([0, 1], 3, 1, 3); skew([0, 1], 3, 2, 2); "
     "reshape([0, 1, 0, 0, 0], 2, 3, 2);",
     "split([0, 0], 1);\nreverse([0], 1);\nskew([1], 2, 3, 2);\ninterchange([1], 1, 2);\n"
     "skew([1], 2, 1, 2);\nskew([1], 2, 3, 4);\ntile([1], 3, 2, 3);\n"
     "interchange([1], 1, 2);\nfuse([0]);\n"),
    # the same without the reshape (refused on main too)
    ("syrk", None,
     "reverse([0, 0], 1); tile([0, 1], 3, 1, 3); skew([0, 1], 3, 2, 2);",
     "reverse([0, 0], 1);\ninterchange([0, 1], 1, 2);\nskew([0, 1], 2, 1, 2);\n"
     "tile([0, 1], 3, 2, 3);\ninterchange([0, 1], 1, 2);\n"),
    # gemm: S1's i loop skewed by j, scaled by 3 alone, the shared loop
    # skewed by k: S1's third row goes from i to j by a detour
    ("gemm", 115250,
     "interchange([0, 1], 3, 3); skew([0, 1], 1, 3, -1); interchange([0, 1, 0], 3, 3); "
     "grain([0, 1, 0, 0], 1, 3); skew([0], 1, 2, -1); reshape([0, 0], 1, 2, 2);",
     "skew([0, 1], 2, 1, -3);\nskew([0, 1], 2, 3, -3);\ninterchange([0, 1], 1, 2);\n"
     "skew([0, 0], 1, 2, 1);\nreshape([0, 1], 3, 2, -1);\nreshape([0, 1], 3, 3, 1);\n"
     "interchange([0, 1], 2, 3);\nreshape([0, 1], 3, 1, -1);\nreshape([0, 1], 3, 3, -1);\n"
     "reshape([0, 1], 3, 1, 2);\n"),
    # the same class on syrk, scaled by 3, in three steps
    ("syrk", None,
     "skew([0, 1], 1, 3, -1); grain([0, 1, 0, 0], 1, 3); skew([0], 1, 2, -1);",
     "skew([0, 1], 2, 1, -3);\nskew([0, 1], 2, 3, -3);\ninterchange([0, 1], 1, 2);\n"
     "skew([0, 0], 1, 2, -1);\nreshape([0, 1], 3, 2, -1);\nreshape([0, 1], 3, 3, 1);\n"
     "interchange([0, 1], 2, 3);\nreshape([0, 1], 3, 1, -1);\nreshape([0, 1], 3, 3, -1);\n"
     "reshape([0, 1], 3, 1, 2);\n"),
    # trmm: the tile loop j / 4 skewed by i and back, S0's i loop skewed
    # by its own j: one div of the loop in both statements
    ("trmm", None,
     "tile([0], 2, 1, 4); skew([0, 0], 2, 1, -1); skew([0, 0], 1, 2, -1); "
     "skew([0, 0, 0, 0], 2, 3, 1);",
     "stripmine([0], 2, 4);\nsplit([0, 0, 0, 0, 0], 3);\nskew([0, 0, 1], 1, 2, -2);\n"
     "fuse([0, 0, 0]);\nreshape([0, 0, 0, 1], 2, 1, -1);\nskew([0, 0, 0, 0], 1, 2, -2);\n"
     "reshape([0, 0, 0, 0], 2, 1, -1);\nreshape([0, 0, 0, 0], 2, 2, 1);\n"),
    # bicg: a grained tile of S1 and S2's loop, a strip-mine inside it, a
    # reshape of the tile loop: _loop_owned_divs (tried first) took the
    # strip-mined dimension away from its chunk; now only the last pass
    ("bicg", 95184,
     "grain([1], 1, 2); reshape([0, 0], 1, 1, -1); tile([1], 1, 1, 3); "
     "stripmine([1, 0], 1, 2); reshape([1], 3, 1, 1);",
     "reverse([1, 0], 1);\nreverse([1, 1, 1], 1);\ngrain([1, 1, 0], 1, 2);\n"
     "stripmine([1], 1, 3);\nreshape([1, 0, 1, 0], 2, 1, 1);\nreverse([1, 0, 1, 1], 2);\n"
     "reshape([1, 0, 1, 1], 1, 1, -1);\nreverse([1, 0, 0], 2);\n"
     "reshape([1, 0, 0], 1, 1, -1);\ntile([1], 2, 1, 3);\ngrain([0], 1, 2);\n"),
    # trmm: splits of S0's k loop and of the i loop, then a strip-mine: a
    # part of S1 (2 dimensions) was offered S0's plan of dimension 3
    ("trmm", 120255,
     "reverse([0, 0], 2); shift([0, 0, 0, 0], 3, {0 | 0}, 0); "
     "iss([0, 0, 0], {-1, -1, 1 | | 0, 0 | -2}); iss([0], {0, -1 | | 0, -1 | 1}); "
     "stripmine([0, 0], 2, 3);",
     "iss([0], {[] | [0, 1] | [0, -1] | 1});\niss([0, 0, 0], {[] | [-1, 1, 1] | [0, 0] | -2});\n"
     "iss([0, 1, 0], {[] | [-1, 0, 1] | [0, 1] | -3});\nreverse([0, 0, 0, 1], 2);\n"
     "reverse([0, 0, 1], 2);\nshift([0, 1, 0, 0], 2, {0 | 1}, -1);\n"
     "shift([0, 1, 0, 1], 2, {0 | 2}, -2);\nshift([0, 1, 1], 2, {0 | 2}, -2);\n"
     "stripmine([0, 0], 2, 3);\n"),
]


@pytest.mark.parametrize("stem,seed,seq,want", case_params(CASES))
def test_recovered(stem, seed, seq, want):
    assert_recovered(stem, seq, want)


def test_a_tile_carried_out_by_adjacent_interchanges():
    carried = recover_module._carried_tiles
    tile = Step("tile", ((1,), 3, 1, 3))
    swap = Step("interchange", ((1,), 2, 3))
    # the tile's swap as stripmine and adjacent interchanges; the
    # interchange after it then undoes the last one
    assert carried([tile, swap, Step("fuse", ((0,),))]) == [
        Step("stripmine", ((1,), 3, 3)), swap, Step("interchange", ((1,), 1, 2)),
        Step("fuse", ((0,),))]
    assert carried([tile]) == [Step("stripmine", ((1,), 3, 3)), swap,
                               Step("interchange", ((1,), 1, 2)), swap]
    # a β through the strip-mined loop gets the point loop's 0
    inner = [Step("interchange", ((0, 1, 0, 0), *d)) for d in ((2, 3), (1, 2), (2, 3))]
    assert carried([Step("tile", ((0, 1, 0), 3, 1, 4))]) == [
        Step("stripmine", ((0, 1, 0), 3, 4))] + inner
    # must fail: a tile over one loop (its swap is the adjacent move) and
    # other steps stay as they are
    steps = [Step("tile", ((0,), 2, 1, 4)), swap]
    assert carried(steps) == steps


def _rel(alphas):
    return Rel("S", 3, (0,), list(alphas), [], 0, {}, False)


def test_reshapes_detour_around_dependent_rows():
    i, k, j = _i(0), _i(1), _i(2)
    r = _rel([i.scale(3) + k + j.scale(3), k, i])
    plan = algebra_module.reshape_plan(r, i, j, 3, detour=True)
    assert algebra_module.full_rank_path(r, plan)
    assert algebra_module.simulated(r, tuple(plan))[2] == j
    assert len(plan) == 3
    # must fail: both direct orders pass through a dependent row (the plan
    # without a detour, as the tiling's callers ask it, is one of them)
    for order in (((3, 1, 1), (3, 3, -1)), ((3, 3, -1), (3, 1, 1))):
        assert not algebra_module.full_rank_path(r, [("reshape", *st) for st in order])
    assert not algebra_module.full_rank_path(r, algebra_module.reshape_plan(r, i, j, 3))
    # no detour where a direct order keeps the rows independent
    r = _rel([i + k, k, i])
    assert sorted(algebra_module.reshape_plan(r, i, j, 3, detour=True)) == [
        ("reshape", 3, 1, 1), ("reshape", 3, 3, -1)]


def test_a_loop_read_with_one_div():
    T, _ = symbolic_target("trmm", "tile([0], 2, 1, 4);")
    s0, s1 = T.rels
    i, j = _i(0), _i(1)
    tile = T.divs.get(j, 4)                               # floor(j / 4)
    other = T.divs.get(j.scale(3) + Aff.const(3), 4)      # j - floor(j / 4)
    s1.alphas[1] = tile + i
    s0.alphas[1] = -other + i
    assert tiling_module._loop_owned_divs(T)
    assert s0.alphas[1] == tile + i - j                   # S1's div, S0's skew by j
    assert not tiling_module._loop_owned_divs(T)
    # must fail: a div of another size is no form of the loop's
    s0.alphas[1] = -T.divs.get(j.scale(3) + Aff.const(3), 5) + i
    assert not tiling_module._loop_owned_divs(T)


@pytest.mark.slow
def test_recovered_scripts_run_equal_to_the_original(tmp_path):
    # the carried tile (partial tiles) and the reshape detour
    stem, _, seq, _ = CASES[0]
    assert_recovered_code_runs(tmp_path, stem, seq, {"N": 13, "M": 7})
    stem, _, seq, _ = CASES[2]
    assert_recovered_code_runs(tmp_path, stem, seq, {"NI": 7, "NJ": 11, "NK": 5})
    stem, _, seq, _ = CASES[4]
    assert_recovered_code_runs(tmp_path, stem, seq, {"M": 9, "N": 11})
