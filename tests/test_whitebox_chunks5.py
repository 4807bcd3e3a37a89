"""Whitebox recovery of tiled targets refused with "cannot express the
strip-mined dimension … it is not a tile or chunk of another dimension"
or, gemm 70090, as strides that no unroll makes (fuzz seeds of
``scripts/fuzz_whitebox.py``, issue 9), where isl wrote a chunk otherwise
than the reductions read it:

- a skew by ``-1`` times a chunk loop that a ``linearize`` removed after:
  isl writes ``-floor(i / 4)`` as ``floor((-i - 1) / 4) + 1``, which
  ``_unlinearize_once`` now reads as the chunk of ``i`` (``_div_as_chunk``);
- a skew by a chunk loop isl writes as a div plus iterators
  (``floor((2t + i) / 3)`` as ``floor((i - t) / 3) + t``): undone before the
  general ``linearize`` removes that chunk loop (``_unskew_once`` with
  ``general``, the last pass of ``SKEWED_PASSES``);
- an ``iss`` on the tile loops made after a tile, whose floor isl removed
  from the part's inequality (the part then has a div of its own and reads
  as strided): read back on the chunk dimension (``_refloored``) so that the
  split is made last (``_late_splits``);
- a tile loop shifted with its whole loop, its tile interchanged inside its
  point loop, the outer chunk reshaped (trmm 15055): the last pass of
  ``SKEWED_PASSES`` (``loop_shifts``) sinks the shifted chunk, undoes the
  shift on the whole loop, reads the shifted tile of a tile loop as one
  and removes no tile loop that another chunk is still made of.

Every recovered script, simplified or not, replays (every step checked)
to the target's dates; all four are compiled and run against
the original."""

from __future__ import annotations

import pytest

from clayx.whitebox import WhiteboxError
from clayx.whitebox.model import Aff, it, par
from clayx.whitebox.steps import Step

from whitebox_cases import (assert_recovered, assert_recovered_code_runs, case_of, case_params,
                            symbolic_target as _target, recover_module as _recover, tiling_module)


#: (kernel, fuzz seed, the random sequence, the script recovered today).
#: Each was refused by main 9619b00.
CASES = [
    # the point loop of S1 skewed by the chunk loop of i, which is linearized after
    ("syrk", 86289, "stripmine([0], 1, 4); skew([0, 0, 1], 4, 1, 1); linearize([0], 1);",
     "stripmine([0], 1, 4);\nskew([0, 0, 1], 4, 1, 1);\nlinearize([0], 1);\n"),
    # a tile of a grained loop, its point loop's tile loop skewing an inner loop
    ("seidel-2d", 83226, "skew([0, 0, 0], 2, 1, -2); interchange([0, 0], 1, 1); "
        "grain([0], 1, 3); tile([0], 1, 1, 4); tile([0, 0], 3, 3, 3); "
        "skew([0, 0], 5, 3, -2);",
     "skew([0], 2, 1, -2);\ngrain([0], 1, 3);\nstripmine([0], 1, 4);\n"
     "stripmine([0], 3, 3);\nskew([0], 5, 3, -2);\n"),
    # an iss on the tile loops of S0 (floor(i / 96), floor(i / 32)), a tile after it
    ("gemm", 70090, "tile([0, 0], 1, 1, 32); fuse([0, 0, 0]); shift([0, 1], 2, {}, 1); "
        "interchange([0], 3, 3); skew([0, 1], 3, 2, 2); stripmine([0], 1, 3); "
        "iss([0, 0], {-1, 1, -1 | | 0, 0, 1 | -2}); tile([0, 0], 3, 3, 16);",
     "shift([0, 1], 2, {}, 1);\nskew([0, 1], 3, 2, 2);\nstripmine([0, 0], 1, 96);\n"
     "stripmine([0, 1], 1, 3);\nstripmine([0, 0, 0], 2, 32);\nstripmine([0, 0, 1], 3, 16);\n"
     "stripmine([0, 0, 0], 3, 16);\niss([0, 0], {[-1, 1, 0, -1] | [] | [0, 0, 1] | -2});\n"),
    # a tile of a tile loop, reshaped and shifted with its loop, then tiled
    # again and interchanged inside its point loop (test_whitebox_chunks.REFUSED before)
    ("trmm", 15055, "tile([0, 0, 0], 1, 1, 2); stripmine([0], 1, 5); "
        "skew([0, 0, 0, 0], 5, 4, -2); reshape([0, 0], 1, 1, -1); shift([0, 0, 0], 2, {}, -3); "
        "stripmine([0, 0, 0, 0], 2, 3); interchange([0, 0, 0, 0, 0, 0, 0], 4, 3);",
     "skew([0, 0, 0], 3, 2, -2);\nstripmine([0, 0, 0], 1, 2);\nstripmine([0], 1, 5);\n"
     "reshape([0, 0, 0, 1], 1, 1, -1);\nskew([0, 0, 0, 0], 1, 3, -1);\nshift([0], 2, {}, -3);\n"
     "stripmine([0, 0, 0, 0], 2, 3);\ninterchange([0, 0, 0, 0], 3, 4);\n"),
]

#: The cases whose recovery takes seconds (every earlier pass refused first).
SLOW = {15055}


def _case(seed: int) -> tuple[str, str]:
    return case_of(CASES, seed)


@pytest.mark.parametrize("stem,seed,seq,want", case_params(CASES, SLOW))
def test_chunk_written_otherwise_is_recovered_and_replays(stem, seed, seq, want):
    assert_recovered(stem, seq, want)


def test_a_div_is_read_as_the_chunk_it_equals():
    # syrk 86289: S1's j skewed by -floor(i / 4), written d + j + 1 with
    # d = floor((-i - 1) / 4)
    T, _ = _target(*_case(86289))
    a = T.rels[1].alphas[2]
    k = a.keys("d")[0]
    i0, i1 = Aff.var(it(0)), Aff.var(it(1))
    assert T.divs.of(k) == (-i0 - Aff.const(1), 4)
    chunk = T.divs.get(i0, 4)
    assert tiling_module._div_as_chunk(T, k, i0) == -chunk - Aff.const(1)
    # a plain chunk of i plus a multiple of its size
    assert tiling_module._div_as_chunk(T, T.divs.get(i0 + Aff.const(8), 4).keys("d")[0], i0) \
        == chunk + Aff.const(2)
    # must fail: another numerator, an offset that is no multiple of the size
    assert tiling_module._div_as_chunk(T, k, i1) is None
    assert tiling_module._div_as_chunk(T, T.divs.get(i0 + Aff.const(1), 4).keys("d")[0], i0) is None
    assert tiling_module._div_as_chunk(T, T.divs.get(-i0, 4).keys("d")[0], i0) is None


def test_a_linearize_is_undone_where_the_skew_is_by_minus_the_chunk():
    T, oracle = _target(*_case(86289))
    found = []
    assert tiling_module._unlinearize_once(T, found, oracle)
    assert found == [Step("linearize", ((0,), 1))]
    d, j = T.divs.get(Aff.var(it(0)), 4), Aff.var(it(2))
    assert T.rels[0].alphas[0] == d and T.rels[1].alphas == [d, Aff.var(it(0)),
                                                             Aff.var(it(1)), j - d]
    # must fail: nothing linearized (the chunk loop is a dimension)
    T, oracle = _target("syrk", "stripmine([0], 1, 4); skew([0, 0, 1], 4, 1, 1);")
    assert not tiling_module._unlinearize_once(T, [], oracle)


def test_a_skew_by_a_chunk_written_with_iterators_is_undone():
    # seidel-2d 83226: (floor(3t / 4), 3t, floor((2t + i) / 3), 2t + i,
    # j + 2·floor((2t + i) / 3)), the chunks as a div plus t
    T, oracle = _target(*_case(83226))
    t = Aff.var(it(0))
    d1 = T.divs.get(Aff.var(it(1)) - t, 3)
    assert T.rels[0].alphas[2] == d1 + t
    assert not tiling_module._unskew_once(T.copy(), [])
    found = []
    assert tiling_module._unskew_once(T, found, general=True)
    assert found == [Step("skew", ((0,), 5, 3, -2))]
    assert T.rels[0].alphas[4] == Aff.var(it(2))
    assert not tiling_module._unskew_once(T, [], general=True)          # once
    # the first passes remove that chunk loop before the skew by it
    T, oracle = _target(*_case(83226))
    with pytest.raises(WhiteboxError, match="strip-mined dimension 3"):
        tiling_module._reduce(T.copy(), oracle, False, False)
    steps = tiling_module._reduce(T.copy(), oracle, False, False, general_skews=True)
    assert steps[-1] == Step("skew", ((0,), 5, 3, -2))
    # must fail: a dimension with a div plus iterators that is no chunk of
    # another dimension is not a chunk loop to unskew by
    T, oracle = _target(*_case(83226))
    T.rels[0].alphas[3] = Aff.var(it(1))
    assert not tiling_module._unskew_once(T, [], general=True)


def test_an_inequality_without_its_floor_is_read_on_the_chunk():
    # gemm 70090: floor(i / 96) - floor(i / 32) + i - nk + 1 >= 0, which
    # isl writes 32·floor(i / 96) + 31i - 32nk + 63 >= 0
    T, oracle = _target(*_case(70090))
    r = T.rels[0]
    i, nk = Aff.var(it(0)), Aff.var(par("nk"))
    d96, d32, d16 = (T.divs.get(i, s) for s in (96, 32, 16))
    assert r.alphas[:3] == [d96, d32, d16]
    c = d96.scale(32) + i.scale(31) - nk.scale(32) + Aff.const(63)
    forms = _recover._refloored(T, r, c)
    assert d96 - d32 + i - nk + Aff.const(1) in forms
    assert _recover.alpha_form(r, forms[0]) == ((1, -1, 0, 1), -nk + Aff.const(1))
    # must fail: an inequality no floor was removed from
    assert _recover._refloored(T, r, i - Aff.const(5)) == []
    # the split made after the tile is found with that form
    late = _recover._late_splits(T, oracle)
    assert late is not None
    assert [(loop, form) for loop, form, _, _ in late[1]] == [
        ((0, 0), ((1, -1, 0, 1), -nk + Aff.const(1)))]


#: trmm's tile of a tile loop: S0 (floor(i / 10), floor(i / 2), i, j, k), S1
#: (floor(i / 5), i, j) in the same two loops.
TILED = "tile([0, 0, 0], 1, 1, 2); stripmine([0], 1, 5);"


def test_a_shifted_tile_of_a_tile_loop_is_read_as_one():
    T, _ = _target("trmm", TILED)
    r = T.rels[0]
    i = Aff.var(it(0))
    d2 = T.divs.get(i, 2)
    assert r.alphas[:2] == [T.divs.get(i, 10), d2]
    # floor(i / 10) as isl writes it once shifted: floor((i + 10) / 10) - 1
    r.alphas[0] = T.divs.get(i + Aff.const(10), 10) - Aff.const(1)
    assert not tiling_module.chunk_of_chunk(T.copy())           # (a plain div only)
    X = T.copy()
    assert tiling_module._shifted_chunk_of_chunk(X)
    assert X.rels[0].alphas[0] == T.divs.get(d2 + Aff.const(5), 5) - Aff.const(1)
    assert not tiling_module._shifted_chunk_of_chunk(X)          # once
    # the tile loop floor(i / 2) is not removed while that flat chunk of it is there
    assert tiling_module._flat_chunk_of(T, r, 2)
    assert not tiling_module._flat_chunk_of(T, r, 1)
    # must fail: an offset that is no multiple of the inner size (no chunk of it)
    r.alphas[0] = T.divs.get(i + Aff.const(11), 10) - Aff.const(1)
    assert not tiling_module._shifted_chunk_of_chunk(T.copy())
    assert not tiling_module._flat_chunk_of(T, r, 2)


def test_part_of_a_loop_keeps_its_chunk_while_the_others_have_theirs_changed():
    # S0's floor(i / 10) reshaped back, S1's floor(i / 5) + i not yet: one
    # strip-mine by 5 of the whole loop, S0's chunk is not removed alone
    T, _ = _target("trmm", TILED + " reshape([0, 0], 1, 1, -1);")
    i = Aff.var(it(0))
    assert T.rels[1].alphas[0] == T.divs.get(i, 5) + i
    T.rels[0].alphas[0] = T.divs.get(i, 10)
    assert tiling_module._changed_chunk_beside(T, T.rels[0], [T.rels[0]], 1, 5)
    # must fail: another size, or the other chunk as plain as it is made
    assert not tiling_module._changed_chunk_beside(T, T.rels[0], [T.rels[0]], 1, 4)
    T, _ = _target("trmm", TILED)
    assert not tiling_module._changed_chunk_beside(T, T.rels[0], [T.rels[0]], 1, 5)


def test_a_shifted_tile_loop_moved_inside_its_point_loop_is_sunk():
    # trmm 15055: floor(i / 2) + 3 (numerator i + 6) inside its point loop i
    T, oracle = _target(*_case(15055))
    assert tiling_module._reread_chunks(T)
    assert not tiling_module._sink_chunk_once(T.copy(), [], oracle)
    found = []
    X = T.copy()
    assert tiling_module._sink_chunk_once(X, found, oracle, shifted=True)
    assert found == [Step("interchange", ((0, 0, 0, 0), 3, 4))]
    assert X.rels[0].alphas[2:4] == T.rels[0].alphas[3:1:-1]
    # the pass reduces the whole target; the same pass without its readings does not
    T, oracle = _target(*_case(15055))
    steps = tiling_module._reduce(T.copy(), oracle, False, False, loop_shifts=True, sink_first=True)
    assert Step("shift", ((0, 0), 2, Aff.const(-3))) in steps       # both statements
    assert steps[-1] == Step("interchange", ((0, 0, 0, 0), 3, 4))
    with pytest.raises(WhiteboxError, match="strip-mined dimension 1 of S0"):
        tiling_module._reduce(T.copy(), oracle, False, False, sink_first=True)


@pytest.mark.slow
@pytest.mark.parametrize("seed,sizes", [(86289, {"N": 9, "M": 5}),
                                        (83226, {"TSTEPS": 5, "N": 9}),
                                        (70090, {"NI": 100, "NJ": 3, "NK": 40}),
                                        (15055, {"M": 23, "N": 5})])
def test_recovered_chunks_run_equal_to_the_original(tmp_path, seed, sizes):
    # the recovered script, applied to the original and compiled, prints
    # the original's output bit for bit (sizes that leave partial tiles,
    # and both halves of gemm 70090's split)
    stem, seq = _case(seed)
    assert_recovered_code_runs(tmp_path, stem, seq, sizes)
