"""Whitebox recovery of tiled targets that were refused with "cannot
express the strip-mined dimension … it is not a tile or chunk of another
dimension" (fuzz seeds of ``scripts/fuzz_whitebox.py``, issue 9), in
sequences without an index-set split after the tile: a tile of a loop with
fewer iterations than the tile (an unroll's epilog, whose chunk isl writes as
a parametric constant), a relation whose chunk isl wrote as the affine form
it is on its part, a part whose point loop its equalities fix, a point
loop reshaped away after the chunk loop was skewed by it, and a chunk loop
hidden in a combination of dimensions by skews (``±d = α_t + Σ μ·α_q``,
solved exactly).  Every recovered script, simplified or not, replays
(every step checked) to the target's dates; some are compiled and run
against the original."""

from __future__ import annotations

import pytest

from clayx.whitebox.model import Aff, it, par
from clayx.whitebox.steps import Step

from whitebox_cases import (assert_recovered, assert_recovered_code_runs,
                            symbolic_target as _target, tiling_module)


#: (kernel, fuzz seed, the random sequence, the script recovered today).
#: Each was refused by main 29f7b62.
CASES = [
    # an unroll's epilog tiled: isl writes its chunk floor(i / 4) as M - 1 - floor(3M / 4)
    ("atax", 73071, "unroll([1], 4); tile([2], 1, 1, 4);",
     "unroll([1], 4);\nstripmine([2], 1, 4);\n"),
    ("bicg", 43014, "fuse([1, 1]); unroll([0], 2); stripmine([1], 1, 2); embed([0, 0]);",
     "unroll([0], 2);\nembed([0, 0]);\nstripmine([1], 1, 2);\n"),
    # the chunk loop skewed by its point loop, which isl writes 3·floor(j / 3) - j
    ("trmm", 74075, "tile([0], 2, 1, 3); skew([0], 3, 1, 2); skew([0, 0, 0, 0], 1, 3, 1);",
     "tile([0], 2, 1, 3);\nskew([0], 3, 1, 2);\nskew([0, 0, 0, 0], 1, 3, 1);\n"),
    # a part of S0 where isl writes the chunk floor((j - N + 2) / 5) as j - N + 2
    ("lu", 73297, "shift([0, 0], 2, {1}, -2); iss([0], {0, 1 | | -1 | 6}); stripmine([0], 2, 5);",
     "shift([0, 0], 2, {1}, -2);\niss([0], {[0, 1] | [] | [-1] | 6});\n"
     "stripmine([0, 2], 2, 5);\nstripmine([0, 3], 2, 5);\nstripmine([0, 1], 2, 5);\n"
     "stripmine([0, 0], 2, 5);\n"),
    # the point loop of S0 reshaped to 0 after the chunk loop was skewed by it
    ("gemm", 61040, "stripmine([0], 1, 3); interchange([0, 0, 0], 2, 2); skew([0], 1, 2, -1); "
        "reshape([0, 0, 0], 2, 1, 1);",
     "stripmine([0], 1, 3);\nskew([0], 1, 2, -1);\nreshape([0, 0, 0], 2, 1, 1);\n"),
    # a part where i = 0 (its point loop fixed by the part's equalities)
    ("trmm", 74225, "iss([0, 0, 0], {1, 0, -1 | | 1, 0 | -2}); tile([0], 1, 1, 32); "
        "split([0, 0, 0, 0, 1], 2); skew([0], 2, 3, -1);",
     "iss([0, 0, 0], {[] | [1, 0, -1] | [1, 0] | -2});\nsplit([0, 0, 0], 2);\n"
     "stripmine([0], 1, 32);\nsplit([0, 0, 0, 0, 1], 2);\nskew([0], 2, 3, -1);\n"),
    # the point loop reshaped away, a second tile of the constant loop left (refused in
    # test_whitebox_chunks before; long, but every step checked)
    ("trmm", 15195, "tile([0, 0], 2, 2, 5); reshape([0, 0, 0], 2, 2, 2); "
        "reshape([0, 0, 0], 1, 2, 1); reshape([0], 3, 2, 1); tile([0], 3, 2, 5);",
     "embed([0, 0, 0, 0]);\nembed([0, 0, 1]);\nreverse([0], 2);\nskew([0], 2, 1, -1);\n"
     "interchange([0], 1, 2);\nreverse([0, 0, 0], 2);\nskew([0, 0, 0], 2, 1, -1);\n"
     "interchange([0, 0, 1], 2, 3);\nreshape([0, 0, 0], 4, 2, -1);\ninterchange([0, 0, 0], 3, 4);\n"
     "skew([0, 0, 1], 3, 1, 1);\nstripmine([0, 0, 1], 3, 5);\nfuse([0, 0, 0]);\n"
     "reverse([0, 0, 0, 1], 4);\ngrain([0, 0, 0, 1], 4, 2);\nskew([0, 0, 0, 1], 3, 4, -1);\n"
     "reshape([0, 0, 0, 1], 4, 2, -2);\nstripmine([0, 0, 0, 0], 3, 5);\nfuse([0, 0, 0, 0]);\n"
     "skew([0, 0, 0, 0, 0], 4, 2, -1);\ngrain([0, 0, 0, 0, 0], 2, 2);\n"
     "skew([0, 0, 0, 0, 0], 3, 2, -1);\nreshape([0, 0, 0, 0, 0], 2, 2, -2);\n"),
    # a tile loop moved inside its point loop, then strip-mined: isl writes
    # floor(floor(i / 16) / 5) as floor(i / 80), beside the point loop i
    ("bicg", 65094, "tile([1], 1, 1, 16); interchange([1, 0, 1], 1, 2); stripmine([1, 0], 2, 5);",
     "stripmine([1], 1, 16);\ninterchange([1, 0, 1], 1, 2);\nstripmine([1], 2, 5);\n"),
    # a chunk loop interchanged inside its point loop (2 <-> 4), then the whole loop
    # interchanged (1 <-> 2): moving the chunk loop back out first breaks a dependence
    ("lu", 81157, "stripmine([0, 1, 0], 3, 2); interchange([0], 2, 2); "
        "interchange([0, 1, 0, 0], 2, 4); interchange([0], 2, 2); interchange([0], 1, 2);",
     "stripmine([0, 1], 3, 2);\ninterchange([0, 1], 2, 4);\ninterchange([0], 1, 2);\n"),
    # the chunk loop skewed away (i) by its point loop skewed by it (i - floor(i / 4))
    ("bicg", 46164, "reorder([0], [0]); tile([1], 1, 1, 4); skew([1, 0], 2, 1, 1); "
        "skew([1, 0, 1], 1, 2, -1); shift([1, 0, 1, 0], 1, {1 | 0}, -3); "
        "parallelize([1, 0, 1], 2);",
     "stripmine([1], 1, 4);\nskew([1], 2, 1, 1);\nshift([1, 0, 1, 0], 1, {1 | 0}, -3);\n"
     "skew([1, 0, 1], 1, 2, -1);\nparallelize([1, 0]);\n"),
]


@pytest.mark.parametrize("stem,seed,seq,want", CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_tiled_target_is_recovered_and_replays(stem, seed, seq, want):
    assert_recovered(stem, seq, want)


def test_an_epilog_chunk_is_read_as_the_chunk_of_its_point_loop():
    # atax: the unroll's epilog of i (4⌊M/4⌋ ≤ i < M) tiled by 4: isl writes
    # floor(i / 4) there as M - 1 - floor(3M / 4)
    T, _ = _target("atax", "unroll([1], 4); tile([2], 1, 1, 4);")
    i, M = Aff.var(it(0)), Aff.var(par("M"))
    d = T.divs.get(M.scale(3), 4)
    epilog = [r for r in T.rels if r.alphas[0] == -d + M - Aff.const(1)]
    assert len(epilog) == 3
    assert tiling_module._parametric_chunks(T)
    assert sum(r.alphas[0] == T.divs.get(i, 4) for r in epilog) == 1    # one at a time
    while tiling_module._parametric_chunks(T):
        pass
    assert all(r.alphas[0] == T.divs.get(i, 4) for r in epilog)
    # must fail: a parametric dimension the chunk is not on the instances
    T, _ = _target("atax", "unroll([1], 4); tile([2], 1, 1, 4);")
    for r in T.rels:
        if r.alphas[0] == -d + M - Aff.const(1):
            r.alphas[0] = -d + M
    assert not tiling_module._parametric_chunks(T)
    # nor a div with an iterator (a chunk as it is)
    T, _ = _target("atax", "tile([1], 1, 1, 4);")
    assert not tiling_module._parametric_chunks(T)


def test_a_part_takes_the_chunk_form_of_the_tile_it_shares():
    # lu: on the part j ≥ 2N - 8 of S0, isl writes floor((j - N + 2) / 5) as
    # j - N + 2; S1 in the same loop has the div
    seq = "shift([0, 0], 2, {1}, -2); iss([0], {0, 1 | | -1 | 6}); stripmine([0], 2, 5);"
    T, _ = _target("lu", seq)
    j, N = Aff.var(it(1)), Aff.var(par("N"))
    x = T.by_tag(3)
    assert x.alphas[1] == j - N + Aff.const(2)
    assert tiling_module._loop_chunks(T)
    assert x.alphas[1] == T.divs.get(j - N + Aff.const(2), 5)
    assert not tiling_module._loop_chunks(T)                  # nothing left to read
    # must fail: a form that is not the chunk on the part
    T, _ = _target("lu", seq)
    T.by_tag(3).alphas[1] = j - N + Aff.const(3)
    assert not tiling_module._loop_chunks(T)


def test_a_point_loop_fixed_by_a_part_is_its_chunk_point():
    # trmm: on the part i2 = i0 + M - 1, i0 = 0: the point loop i0 is 0 there
    T, _ = _target("trmm", "iss([0, 0, 0], {1, 0, -1 | | 1, 0 | -2}); tile([0], 1, 1, 32); "
                           "split([0, 0, 0, 0, 1], 2); skew([0], 2, 3, -1);")
    i, j = Aff.var(it(0)), Aff.var(it(1))
    d = T.divs.get(i, 32)
    x, y = T.by_tag(0), T.by_tag(1)
    assert x.elim and not y.elim
    x.alphas[:2] = [d, Aff()]
    assert tiling_module._point_of(T, x, 1, 2)
    x.alphas[1] = Aff.const(1)
    assert not tiling_module._point_of(T, x, 1, 2)            # must fail: not i0 there
    y.alphas[:2] = [d, Aff()]
    assert not tiling_module._point_of(T, y, 1, 2)            # no equality: 0 is not i0
    y.alphas[:2] = [d, i]
    assert tiling_module._point_of(T, y, 1, 2)
    y.alphas[0] = d + j
    assert not tiling_module._point_of(T, y, 1, 2)            # no chunk at 1


def test_a_reshape_after_the_skew_of_a_chunk_loop_is_undone_first():
    # gemm: (floor(i / 3) + i, 0, j) for S0, its point loop reshaped to 0
    T, oracle = _target("gemm", "stripmine([0], 1, 3); skew([0], 1, 2, -1); "
                                "reshape([0, 0, 0], 2, 1, 1);")
    i, j = Aff.var(it(0)), Aff.var(it(1))
    d = T.divs.get(i, 3)
    assert T.rels[0].alphas == [d + i, Aff(), j]
    found = []
    assert tiling_module._unreshape_skewed_chunk_once(T, found, oracle)
    assert found == [Step("reshape", ((0, 0, 0, 0), 2, 1, 1)), Step("skew", ((0,), 1, 2, -1))]
    assert T.rels[0].alphas == [d, i, j] and T.rels[1].alphas[0] == d
    assert not tiling_module._unreshape_skewed_chunk_once(T, [], oracle)
    # must fail: the iterator the chunk loop was skewed by is gone (an unembed):
    # giving it to another dimension would merge dates
    T, oracle = _target("gemm", "stripmine([0], 1, 3); skew([0, 0, 1], 1, 4, -2); "
                                "unembed([0, 0, 1, 0, 0]); embed([0, 0, 1, 0]); fuse([0]); "
                                "unembed([0, 0, 1, 0, 0]);")
    before = [list(r.alphas) for r in T.rels]
    assert not tiling_module._unreshape_skewed_chunk_once(T, [], oracle)
    assert [r.alphas for r in T.rels] == before


def test_a_chunk_loop_hidden_by_skews_is_solved_for():
    # bicg: (floor(i / 4), i - floor(i / 4)) skewed 1 by 2: (i, i - floor(i / 4)),
    # isl's div floor((-i - 1) / 4) = -floor(i / 4) - 1
    T, oracle = _target("bicg", "tile([1], 1, 1, 4); skew([1, 0], 2, 1, 1); "
                                "skew([1, 0, 1], 1, 2, -1);")
    i = Aff.var(it(0))
    d = T.divs.get(i, 4)
    s1 = list(T.by_tag(1).alphas)
    assert T.by_tag(3).alphas[0] == i and d not in (T.by_tag(3).alphas[1] - i).c
    found = []
    assert tiling_module._unskew_to_chunk_once(T, found, oracle)
    assert found == [Step("skew", ((1, 0, 1), 1, 2, -1))]
    assert T.by_tag(2).alphas[0] == d and T.by_tag(3).alphas[0] == d
    assert T.by_tag(1).alphas == s1                      # a plain chunk loop: left alone
    # trmm: isl's 3·floor(j / 3) - j beside the point loop j - 2·floor(j / 3)
    T, oracle = _target("trmm", "tile([0], 2, 1, 3); skew([0], 3, 1, 2); "
                                "skew([0, 0, 0, 0], 1, 3, 1);")
    assert tiling_module._reread_chunks(T)
    found = []
    assert tiling_module._unskew_to_chunk_once(T, found, oracle)
    assert found == [Step("skew", ((0, 0, 0, 0), 1, 3, 1))]
    assert T.rels[0].alphas[0] == T.divs.get(Aff.var(it(1)), 3)
    # must fail: a div that is no integral combination of the dimensions
    T, oracle = _target("bicg", "tile([1], 1, 1, 4);")
    j = Aff.var(it(1))
    e = T.divs.get(i.scale(-1) - Aff.const(1), 4)
    for tag in (2, 3):
        T.by_tag(tag).alphas[:] = [i, e.scale(2) + i, j]
    before = [list(r.alphas) for r in T.rels]
    assert not tiling_module._unskew_to_chunk_once(T, [], oracle)
    assert [r.alphas for r in T.rels] == before


def test_a_whole_loop_interchange_is_undone_before_the_chunk_loop_sinks():
    # lu: S2 (k, i, floor(k / 2), j) in a loop with S0, S1: the chunk loop
    # moved before k alone breaks a dependence; the outer loops are swapped
    # back for all three first
    seq = ("stripmine([0, 1, 0], 3, 2); interchange([0, 1, 0, 0], 2, 4); "
           "interchange([0], 1, 2);")
    T, oracle = _target("lu", seq)
    assert not tiling_module._sink_chunk_once(T, [], oracle)
    found = []
    assert tiling_module._unswap_then_sink_once(T, found, oracle)
    assert found == [Step("interchange", ((0,), 1, 2)), Step("interchange", ((0, 1), 2, 3))]
    i, j, k = (Aff.var(it(n)) for n in range(3))
    assert T.by_tag(2).alphas == [i, T.divs.get(k, 2), k, j]     # the chunk loop outside k
    assert T.by_tag(0).alphas == [i, j, k]
    # must fail: without an oracle (no legality to tell the orders apart),
    # or with no chunk inside its point loop
    T, _ = _target("lu", seq)
    assert not tiling_module._unswap_then_sink_once(T, [])
    T, oracle = _target("lu", "stripmine([0, 1, 0], 3, 2);")
    assert not tiling_module._unswap_then_sink_once(T, [], oracle)


def test_a_chunk_of_a_chunk_loop_beside_its_point_loop():
    # bicg: S2 (i, floor(i / 80), floor(i / 16), j): the first reading keeps
    # floor(i / 80) a chunk of i (i is a dimension); the last pass of reduce
    # reads it as floor(floor(i / 16) / 5)
    seq = "tile([1], 1, 1, 16); interchange([1, 0, 1], 1, 2); stripmine([1, 0], 2, 5);"
    T, _ = _target("bicg", seq)
    before = [list(r.alphas) for r in T.rels]
    assert not tiling_module.chunk_of_chunk(T)               # must fail: beside its point loop
    assert [r.alphas for r in T.rels] == before
    assert tiling_module.chunk_of_chunk(T, beside_point=True)
    i = Aff.var(it(0))
    d16 = T.divs.get(i, 16)
    for tag in (2, 3):
        assert T.by_tag(tag).alphas[1:3] == [T.divs.get(d16, 5), d16]
    assert T.by_tag(1).alphas == before[1]               # no chunk of floor(i / 5) there
    # the first passes of reduce leave it, the last recovers it
    T, oracle = _target("bicg", seq)
    steps = tiling_module.reduce(T, oracle)
    assert [st.name for st in steps].count("stripmine") == 2
    assert all(not a.keys("d") for r in T.rels for a in r.alphas)


def test_a_chunk_dimension_the_others_read_is_not_solved_for():
    # mvt fuzz seed 25222 (recovered by main): S1 (j, 2·d + 3i, d + i), d
    # the chunk of the reshaped tile loop; solving d = α_3 - ... from α_2
    # would take the point loop 3i away (the chunk at 3 is the other
    # reductions'), and the target was refused
    seq = ("tile([1], 2, 1, 4); interchange([1, 0, 0], 1, 3); iss([1, 0], {1 | | 1 | 2}); "
           "fuse([1, 0, 0]); reshape([1, 0], 3, 1, -1); skew([1, 0, 0], 2, 3, -2); "
           "split([1, 0, 0, 0], 1);")
    T, oracle = _target("mvt", seq)
    assert tiling_module._reread_chunks(T)
    before = [list(r.alphas) for r in T.rels]
    assert not tiling_module._unskew_to_chunk_once(T, [], oracle)
    assert [r.alphas for r in T.rels] == before
    assert_recovered("mvt", seq, "peel([1, 0], {1 | 2});\nsplit([1, 0], 1);\n"
                     "interchange([2], 1, 2);\nstripmine([2], 1, 4);\ninterchange([2], 1, 2);\n"
                     "interchange([2], 2, 3);\ngrain([2], 2, 3);\nskew([2], 2, 3, -2);\n"
                     "reshape([2], 3, 1, -1);\n")


def test_a_reversed_div_reads_as_the_plain_chunk():
    T, _ = _target("bicg", "")
    i, m = Aff.var(it(0)), Aff.var(par("m"))
    e = T.divs.get(i.scale(-1) - Aff.const(1), 4)      # -floor(i / 4) - 1
    d = T.divs.get(i, 4)
    assert tiling_module._plain_chunk(T, -e - Aff.const(1)) == d
    assert tiling_module._plain_chunk(T, -e + m) == d + Aff.const(1) + m
    for a in (e, -e + i, d, e + d):                    # not a reversed div: as it is
        assert tiling_module._plain_chunk(T, a) == a


# The sequences of this class refused here before (trmm 70205, lu 30257,
# seidel-2d 64196) are recovered: test_whitebox_chunks4.py.


@pytest.mark.slow
@pytest.mark.parametrize("seed,sizes", [(61040, {"NI": 10, "NJ": 7, "NK": 5}),
                                        (46164, {"M": 9, "N": 11}), (74075, {"M": 7, "N": 10}),
                                        (73071, {"M": 11, "N": 6})])
def test_recovered_tiling_runs_equal_to_the_original(tmp_path, seed, sizes):
    # the recovered script, applied to the original and compiled, prints
    # the original's output bit for bit (sizes that leave partial tiles)
    stem, _, seq, _ = next(c for c in CASES if c[1] == seed)
    assert_recovered_code_runs(tmp_path, stem, seq, sizes)
