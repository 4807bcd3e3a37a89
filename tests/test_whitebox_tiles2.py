"""Whitebox recovery of tiled targets that were refused with "cannot
express the strip-mined dimension … it is not a tile or chunk of another
dimension" (fuzz seeds 30000-81000 of ``scripts/fuzz_whitebox.py``, issue
9): a ``linearize`` after a skew by the chunk loop it removes, a skew by the
chunk loop of a shifted loop, a chunk loop moved inside its point loop by
one interchange of loops that are not adjacent, and index-set split parts
where isl wrote the chunk without its div (a constant, or the point loop
itself, on the part) or that have no instance.  Every recovered script,
simplified or not, replays (every step checked) to the target's dates;
some are compiled and run against the original."""

from __future__ import annotations


import pytest

from clayx.whitebox.model import Aff, it
from clayx.whitebox.steps import Step

from whitebox_cases import (assert_recovered, assert_recovered_code_runs,
                            symbolic_target as _target,
                            algebra_module, tiling_module)


#: (kernel, fuzz seed, the random sequence, the script recovered today).
#: Each was refused by eb6876b (before these readings).
CASES = [
    # a linearize after a skew of the point loop by the chunk loop: the chunk loop comes
    # back first
    ("trmm", 30005, "stripmine([0], 1, 2); skew([0, 0, 0, 0], 4, 1, -1); embed([0, 0, 0, 1]); "
        "linearize([0], 1); fuse([0]);",
     "embed([0, 0, 1]);\nstripmine([0], 1, 2);\nskew([0, 0, 0, 0], 4, 1, -1);\n"
     "linearize([0], 1);\n"),
    # the same, for the statements of one child of the tile loop
    ("lu", 68037, "interchange([0, 1, 0], 3, 3); tile([0], 2, 2, 2); skew([0, 0, 0, 0], 4, 2, 2); "
        "linearize([0, 0], 2);",
     "stripmine([0, 0], 2, 2);\nskew([0, 0, 0, 0], 4, 2, 2);\nlinearize([0, 0], 2);\n"
     "stripmine([0, 1], 2, 2);\n"),
    # a skew by the chunk loop of a shifted loop (isl writes the chunk of i - 3 as floor((i
    # + 1) / 2) - 2)
    ("mvt", 33082, "shift([1, 0, 0], 1, {}, 3); tile([1, 0], 1, 1, 2); tile([0, 0], 1, 1, 5); "
        "skew([1], 3, 1, 2);",
     "shift([1], 1, {}, 3);\nstripmine([1], 1, 2);\nstripmine([0], 1, 5);\n"
     "skew([1], 3, 1, 2);\n"),
    # the same, shifted by parameters, with a reshape after
    ("trmm", 45225, "shift([0, 0], 1, {1 | -1}, 0); tile([0, 0], 1, 1, 2); "
        "skew([0, 0, 0], 3, 1, 1); shift([0], 2, {0 | 0}, 0); reshape([0, 0], 3, 1, 3);",
     "shift([0], 1, {1 | -1}, 0);\nskew([0], 2, 1, 3);\nshift([0], 2, {3 | -3}, 0);\n"
     "stripmine([0], 1, 2);\nskew([0], 3, 1, 1);\n"),
    # a tile loop interchanged with a loop two levels in (not adjacent): one interchange
    # back
    ("lu", 64257, "tile([0], 1, 1, 4); skew([0, 0, 1], 4, 1, -1); interchange([0, 0], 1, 3);",
     "stripmine([0], 1, 4);\ninterchange([0], 1, 3);\nskew([0, 0, 1], 4, 3, -1);\n"),
    # a point loop interchanged outside its chunk loop with a loop two levels in
    ("syrk", 79289, "skew([0, 1, 0], 1, 2, -2); interchange([0, 0, 0], 2, 1); "
        "tile([0, 1], 3, 2, 32); interchange([0, 1], 1, 4);",
     "interchange([0, 0], 1, 2);\nskew([0, 1], 1, 2, -2);\ntile([0, 1], 3, 2, 32);\n"
     "interchange([0, 1], 1, 4);\n"),
    # a chunk loop of one statement moved inside its point loop past a loop another
    # statement shares (once in test_whitebox_property's refused list)
    ("trmm", 0, "interchange([0], 2, 1); stripmine([0, 0, 0], 2, 4); reorder_loops([0], 1); "
        "interchange([0, 0, 0, 0], 3, 1); fuse([0, 0, 0]);",
     "split([0, 0, 0], 2);\nsplit([0, 0], 1);\ninterchange([0], 1, 2);\ntile([0], 2, 1, 4);\n"
     "fuse([0]);\nfuse([0, 0]);\ninterchange([0, 0, 0], 1, 3);\n"),
]


@pytest.mark.parametrize("stem,seed,seq,want", CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_tiled_target_is_recovered_and_replays(stem, seed, seq, want):
    assert_recovered(stem, seq, want)


def test_a_shifted_chunk_loop_owns_its_div():
    T, _ = _target("mvt", "")
    i, j = Aff.var(it(0)), Aff.var(it(1))
    d = T.divs.get(i + Aff.const(1), 2)
    k = d.keys("d")[0]
    assert algebra_module.shifted_div(d) == k
    assert algebra_module.shifted_div(d - Aff.const(2)) == k
    assert algebra_module.shifted_div(d + Aff.var(("p", "N"))) == k
    assert algebra_module.shifted_div(d + i) is None          # an iterator: not a chunk loop
    assert algebra_module.shifted_div(d.scale(2)) is None     # a scaled one
    # the chunk of i - 3 by 2 (isl: floor((i + 1) / 2) - 2), α_2 skewed by it
    r = T.rels[1]
    r.alphas = [d - Aff.const(2), j - d.scale(2) + Aff.const(4)]
    found = []
    assert tiling_module._unskew_once(T, found)
    assert r.alphas == [d - Aff.const(2), j]
    assert [(st.name, st.args[1:]) for st in found] == [("skew", (2, 1, 2))]
    assert not tiling_module._skews_by(r, 1)
    # the chunk loop skewed by an iterator is no chunk loop: nothing to undo
    r.alphas = [d + i, j - d.scale(2)]
    assert not tiling_module._unskew_once(T, [])


def test_a_linearize_after_a_skew_by_its_chunk_loop_is_undone():
    # trmm: (i, j, floor(i / 2) + k), no dimension floor(i / 2): the chunk
    # loop comes back (the direct step: linearize), the skew is undone next
    T, oracle = _target("trmm", "stripmine([0], 1, 2); skew([0, 0, 0, 0], 4, 1, -1); "
                                "embed([0, 0, 0, 1]); linearize([0], 1); fuse([0]);")
    r = T.rels[0]
    i, j, k = (Aff.var(it(n)) for n in range(3))
    d = T.divs.get(i, 2)
    assert r.alphas == [i, j, d + k]
    found = []
    assert tiling_module._unlinearize_once(T, found, oracle)
    assert found == [Step("linearize", ((0,), 1))]
    assert T.rels[0].alphas == [d, i, j, d + k]
    assert T.rels[1].alphas[0] == d                  # the whole loop strip-mined
    # a chunk dimension there already: a skew, not a linearize
    assert not tiling_module._unlinearize_once(T, [], oracle)
    # the div of no dimension of the relation: nothing to strip-mine
    T2, _ = _target("trmm", "")
    T2.rels[0].alphas = [i, j, T2.divs.get(i + j, 2) + k]
    assert not tiling_module._unlinearize_once(T2, [])


def test_one_interchange_of_loops_not_adjacent_puts_a_chunk_loop_back_out():
    # lu: (j, i, floor(i / 4), …) from the tile (floor(i / 4), i, j, …)
    # interchanged 1 <-> 3; moving the chunk loop right before i instead
    # ((j, floor(i / 4), i, …)) breaks a dependence
    T, oracle = _target("lu", "tile([0], 1, 1, 4); skew([0, 0, 1], 4, 1, -1); "
                              "interchange([0, 0], 1, 3);")
    found = []
    assert tiling_module._unskew_once(T, found)
    assert tiling_module._sink_chunk_once(T, found, oracle)
    assert found[-1] == Step("interchange", ((0,), 1, 3))
    i, j = Aff.var(it(0)), Aff.var(it(1))
    assert T.rels[0].alphas[:3] == [T.divs.get(i, 4), i, j]
    r = T.rels[0]
    assert tiling_module._chunk_swaps(r, 2, 3) == [(1, 3), (2, 4)]
    assert tiling_module._chunk_swaps(r, 1, 3) == [(1, 3), (1, 4)]
    assert tiling_module._chunk_swaps(r, 1, 2) == [(1, 3), (1, 4)]
    # without an oracle the adjacent move comes first (it replays)
    T, _ = _target("lu", "tile([0], 1, 1, 4); interchange([0, 0], 1, 3);")
    found = []
    assert tiling_module._sink_chunk_once(T, found)
    assert [st.name for st in found] == ["interchange"] and found[0].args[1:] == (2, 3)


def test_a_part_reads_its_chunk_as_the_other_parts_write_it():
    # trmm: a part where i = 0 (its point loop the constant 0): isl writes
    # the skewed chunk floor(i / 5) + 2j as 2j
    T, _ = _target("trmm", "peel([0, 0, 0], {-1, -1 | -2}); interchange([0, 0, 1], 3, 2); "
                           "stripmine([0], 1, 5); iss([0, 0, 0, 0], {1, -1, 0 | | -1, -1 | 4}); "
                           "skew([0, 0, 0], 1, 3, -2);")
    r, x = T.rels[0], T.rels[1]
    i, j = Aff.var(it(0)), Aff.var(it(1))
    d = T.divs.get(i, 5)
    assert x.elim and x.alphas[0] == j.scale(2)
    assert tiling_module._equal_on(x, j.scale(2), d + j.scale(2), T.divs)
    assert not tiling_module._equal_on(r, j.scale(2), d + j.scale(2), T.divs)
    assert tiling_module._part_forms(T)
    assert x.alphas[0] == r.alphas[0] == d + j.scale(2)
    assert not tiling_module._part_forms(T)
    # a form not equal on the part's instances stays as written
    x.alphas[0] = j.scale(2) + Aff.const(1)
    assert not tiling_module._part_forms(T)
    assert x.alphas[0] == j.scale(2) + Aff.const(1)
    # the chunk loop's point loop: fixed by the part's equalities
    assert tiling_module._chunk_of(T, x, 1, 2, 5, None) is False     # (2j + 1: skewed)
    x.alphas[0] = d
    assert tiling_module._chunk_of(T, x, 1, 2, 5, None)


def test_an_empty_part_takes_a_tiled_parts_forms():
    T, _ = _target("trmm", "peel([0, 0, 0], {-1, -1 | -2}); interchange([0, 0, 1], 3, 2); "
                           "stripmine([0], 1, 5); iss([0, 0, 0, 0], {1, -1, 0 | | -1, -1 | 4}); "
                           "skew([0, 0, 0], 1, 3, -2);")
    empty = T.rels[2]
    assert empty.empty and empty.alphas != T.rels[0].alphas
    assert tiling_module._part_chunks(T)
    assert empty.alphas == T.rels[0].alphas
    # with instances, a part keeps forms that differ on them
    T.rels[2].empty = False
    T.rels[2].alphas = list(T.rels[0].alphas)
    T.rels[2].alphas[2] = T.rels[2].alphas[2] + Aff.const(1)
    before = [list(r.alphas) for r in T.rels]
    tiling_module._part_forms(T)
    assert T.rels[2].alphas == before[2]


@pytest.mark.slow
@pytest.mark.parametrize("seed,sizes", [(30005, {"M": 9, "N": 13}), (64257, {"N": 14}),
                                        (33082, {"N": 11}), (45225, {"M": 9, "N": 12})])
def test_recovered_tiling_runs_equal_to_the_original(tmp_path, seed, sizes):
    # the recovered script, applied to the original and compiled, prints
    # the original's output bit for bit (sizes that leave partial tiles)
    stem, _, seq, _ = next(c for c in CASES if c[1] == seed)
    assert_recovered_code_runs(tmp_path, stem, seq, sizes)
