"""Whitebox recovery of tiled targets where isl writes the chunks of a
small index-set split part as the constants they are on its instances,
and the part was changed after the tiling so that it is no longer beside
the other parts dimension for dimension (issue 9, seidel-2d fuzz seed
106066, refused with "cannot express the strip-mined dimension … it is not
a tile or chunk of another dimension"): on the part ``i ≤ 2 - t`` (so ``i
∈ {1, 2}``) of seidel-2d, a tile of the shared tile loop ``floor(i / 5)``
of that part alone writes it ``(0, t, 0, i, j)`` beside ``(t, floor(i /
5), i, j)``.  The fourth reading of ``_part_chunks`` (``_part_constants``)
reads the part's constants as the other part's chunk (where they are
equal on the part's instances, or one integer apart: a shifted chunk
loop) and as a tile of it, all at once.

Every recovered script, simplified or not, replays (every step checked)
to the target's dates; two are compiled and run against the original."""

from __future__ import annotations

import pytest

from clayx.whitebox import WhiteboxError
from clayx.whitebox.model import Aff, it, par

from whitebox_cases import (assert_recovered, assert_recovered_code_runs,
                            assert_recovered_shorter, case_params, session,
                            symbolic_target as _target, tiling_module)

#: seidel-2d 106066's sequence.
SEIDEL = ("iss([0, 0], {-1, -1 | | 0, 0 | 2}); tile([0, 0], 2, 2, 5); "
          "tile([0, 0, 0, 1], 2, 1, 4);")

#: (kernel, fuzz seed or None, sequence, the script recovered today).  Each
#: was refused by main 070535a.
CASES = [
    ("seidel-2d", 106066, SEIDEL,
     "iss([0, 0], {[] | [-1, -1] | [0, 0] | 2});\nstripmine([0], 2, 5);\n"
     "tile([0, 0, 0, 1], 2, 1, 5);\n"),
    # other sizes, a larger half (i ≤ 3 - t)
    ("seidel-2d", None, "iss([0, 0], {-1, -1 | | 0, 0 | 3}); tile([0, 0], 2, 2, 7); "
                        "tile([0, 0, 0, 1], 2, 1, 3);",
     "iss([0, 0], {[] | [-1, -1] | [0, 0] | 3});\nstripmine([0], 2, 7);\n"
     "tile([0, 0, 0, 1], 2, 1, 7);\n"),
    # the part's tile loop shifted after (isl writes it as the constant 1)
    ("seidel-2d", None, SEIDEL + " shift([0, 0, 0, 0, 1], 3, {}, -1);",
     "iss([0, 0], {[] | [-1, -1] | [0, 0] | 2});\nstripmine([0], 2, 5);\n"
     "tile([0, 0, 0, 1], 2, 1, 5);\nshift([0, 0, 0, 0, 1], 3, {}, -1);\n"),
]

#: (kernel, seed, sequence, the script recovered today, main's length):
#: recovered by main 070535a, longer (its constants read as embedded
#: dimensions).
SHORTER = [
    # a strip-mine of the part's time loop (one value of floor(t / 4) there)
    ("seidel-2d", None, "iss([0, 0], {-1, -1 | | 0, 0 | 2}); stripmine([0, 0], 2, 3); "
                        "stripmine([0, 0, 0, 1], 1, 4);",
     "iss([0, 0], {[] | [-1, -1] | [0, 0] | 2});\nstripmine([0], 2, 3);\n"
     "tile([0, 0, 0, 1], 2, 1, 3);\n", 12),
    # a peel of gemm's point loop j (j ≤ 2, the first part), its tile loop
    # tiled alone and moved out of i
    ("gemm", None, "tile([0, 0], 2, 2, 5); peel([0, 0, 0], {-3}); tile([0, 0, 0], 2, 1, 4);",
     "iss([0, 0], {[] | [0, 1] | [0, 0, 0] | -3});\nstripmine([0, 0], 2, 5);\n"
     "split([0, 0, 0, 0], 3);\ntile([0, 0, 0], 2, 1, 5);\n", 8),
    # the part's tile of the tile loop shifted after (the constant 2)
    ("seidel-2d", None, SEIDEL + " shift([0, 0, 0, 0, 1], 1, {}, 2);",
     "iss([0, 0], {[] | [-1, -1] | [0, 0] | 2});\nstripmine([0], 2, 5);\n"
     "tile([0, 0, 0, 1], 2, 1, 5);\nshift([0, 0, 0, 0, 1], 1, {}, 2);\n", 13),
]


@pytest.mark.parametrize("stem,seed,seq,want", case_params(CASES))
def test_a_parts_constant_chunks_are_recovered_and_replay(stem, seed, seq, want):
    assert_recovered(stem, seq, want)


@pytest.mark.parametrize("stem,seed,seq,want,main", case_params(SHORTER))
def test_a_parts_constant_chunks_are_read_shorter(stem, seed, seq, want, main):
    assert_recovered_shorter(stem, seq, want, main)


def test_a_strip_mine_moved_out_makes_the_same_target():
    # a strip-mine of the part's tile loop, interchanged out after (refused
    # by main too): the tile's target, recovered as it
    seq = SEIDEL.rsplit("tile", 1)[0] + ("stripmine([0, 0, 0, 1], 2, 4); "
                                         "interchange([0, 0, 0, 0, 1], 1, 2);")
    assert session("seidel-2d", seq).current.schedule.relations[1].map.is_equal(
        session("seidel-2d", SEIDEL).current.schedule.relations[1].map)


def test_a_parts_constants_read_as_the_other_parts_chunk_and_its_tile():
    # S0's parts: (t, floor(i / 5), i, j) where i ≥ 3 - t, and (0, t, 0, i,
    # j) where i ≤ 2 - t (floor(i / 20) and floor(i / 5) are 0 there)
    T, _ = _target("seidel-2d", SEIDEL)
    t, i, j = Aff.var(it(0)), Aff.var(it(1)), Aff.var(it(2))
    d = T.divs.get(i, 5)
    r, x = T.rels
    assert r.alphas == [t, d, i, j]
    assert x.alphas == [Aff(), t, Aff(), i, j]
    # the other readings of _part_chunks see no part beside another
    assert not tiling_module._part_forms(T) and not tiling_module._loop_chunks(T)
    assert tiling_module._part_constants(T)
    # the chunk before its point loop i, then a tile of it (the chunk's own size)
    assert x.alphas == [T.divs.get(d, 5), t, d, i, j]
    assert r.alphas == [t, d, i, j]
    assert not tiling_module._part_constants(T)              # nothing left to read
    # a chunk loop shifted: the chunk plus the integer it differs by there
    T, _ = _target("seidel-2d", SEIDEL)
    x = T.rels[1]
    x.alphas[0], x.alphas[2] = Aff.const(2), Aff.const(-1)
    assert tiling_module._offset_on(x, d, Aff.const(-1), T.divs) == Aff.const(-1)
    assert tiling_module._offset_on(x, d, Aff(), T.divs) is None        # (equal)
    assert tiling_module._part_constants(T)
    assert x.alphas == [T.divs.get(d, 5) + Aff.const(2), t, d - Aff.const(1), i, j]
    # must fail: constants that are not one integer apart from the chunk
    # on the part's instances (a parameter)
    T, _ = _target("seidel-2d", SEIDEL)
    x = T.rels[1]
    n = Aff.var(par("N"))
    assert tiling_module._offset_on(x, d, n, T.divs) is None
    x.alphas[0] = x.alphas[2] = n
    assert not tiling_module._part_constants(T)
    assert x.alphas == [n, t, n, i, j]
    # must fail: a constant in a loop the part shares, with no chunk read
    # after it, stays (an embedded dimension)
    T, _ = _target("seidel-2d", SEIDEL)
    x = T.rels[1]
    x.alphas[2] = n
    assert tiling_module._part_constants(T)
    assert x.alphas == [d, t, n, i, j]
    # must fail: without the part's instances (no stdom), nothing is read
    T, _ = _target("seidel-2d", SEIDEL)
    T.rels[1].stdom = None
    assert not tiling_module._part_constants(T)


def test_without_the_reading_the_reduction_refuses(monkeypatch):
    T, oracle = _target("seidel-2d", SEIDEL)
    steps = tiling_module._reduce(T.copy(), oracle, False, True)
    assert [st.name for st in steps] == ["stripmine", "tile"]
    monkeypatch.setattr(tiling_module, "_part_constants", lambda T: False)
    with pytest.raises(WhiteboxError, match="strip-mined dimension 2 of S0"):
        tiling_module._reduce(T.copy(), oracle, False, True)


@pytest.mark.slow
@pytest.mark.parametrize("stem,seq,sizes", [
    ("seidel-2d", SEIDEL, {"TSTEPS": 3, "N": 13}),
    ("gemm", SHORTER[1][2], {"NI": 3, "NJ": 13, "NK": 4})])
def test_recovered_constant_chunks_run_equal_to_the_original(tmp_path, stem, seq, sizes):
    # the recovered script, applied to the original and compiled, prints
    # the original's output bit for bit (both halves, partial tiles)
    assert_recovered_code_runs(tmp_path, stem, seq, sizes)
