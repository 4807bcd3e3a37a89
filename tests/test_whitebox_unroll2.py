"""Whitebox recovery of targets refused with "the parts of S with strides are
not the main part, copies and epilog of an unroll", "cannot unroll the loop
… early", "a relation of S is piecewise" or "the target gives several
instances of S the same date" (fuzz seeds of ``scripts/fuzz_whitebox.py``,
issue 9): a densify of an unroll's parts (undone in the reduction, replayed
last), an unrolled statement that must stay after the others of its loop
(put in a loop of its own last), a skewed tile loop isl writes in pieces
(read as one quasi-affine function per dimension), and index-set splits
by tile loops made last whose halves differ by a reshape of one, by the
iterators one fixes, or sit inside a parametric split.  Every recovered
script, simplified or not, replays (every step checked) to the target's
dates; some are compiled and run against the original."""

from __future__ import annotations


import islpy as isl
import pytest

from clayx.whitebox import WhiteboxError
from clayx.whitebox.model import (Aff, Divs, densify_factor, exact_quotient, from_relation,
                                  it, same_on)
from clayx.whitebox.steps import Step
from clayx.whitebox.unrolls import undensify_once

from whitebox_cases import (assert_recovered, assert_recovered_code_runs,
                            session as _session, symbolic_target as _target,
                            recover_module as _recover)


#: (kernel, fuzz seed, the random sequence, the script recovered today).
#: Each was refused by eb6876b.
CASES = [
    # the main part of an unroll densified: floor(j / 2) on even j (undone in the
    # reduction, the densify replayed last)
    ("jacobi-2d", 80158, "unroll([0, 1, 0], 2); densify([0, 1, 0, 0], 3);",
     "unroll([0, 1, 0], 2);\ndensify([0, 1, 0, 0], 3);\n"),
    # a copy of an unroll densified: floor((i + 1) / 3) - 1 on i = 3e + 2
    ("gemm", 76110, "embed([0, 1, 0, 0]); unroll([0], 3); densify([0, 4], 1);",
     "unroll([0], 3);\nembed([0, 1, 0, 0]);\nembed([0, 3, 0, 0]);\nembed([0, 5, 0, 0]);\n"
     "embed([1, 1, 0, 0]);\ndensify([0, 4], 1);\n"),
    # the main part of an unroll densified among tiles, grain and fuse after
    ("bicg", 77224, "tile([0], 1, 1, 16); shift([0], 1, {0 | -1}, -3); "
        "unroll([1, 1], 4); densify([1, 1, 0], 2); fuse([1]); "
        "grain([1, 2, 0], 2, 1);",
     "unroll([1, 1], 4);\nstripmine([0], 1, 16);\nshift([0], 1, {0 | -1}, -3);\n"
     "densify([1, 1, 0], 2);\n"),
    # an unroll of a statement that must stay after the others of its loop: it
    # goes to a loop of its own last, not first
    ("bicg", 77074, "iss([1, 1], {1 | | 1, 1 | -1}); split([1, 1, 2], 1); "
        "unroll([2], 2);",
     "iss([1, 1], {[] | [1] | [1, 1] | -1});\nsplit([1, 1, 2], 2);\nsplit([1, 1, 2], 1);\n"
     "unroll([2], 2);\n"),
    # the same, the unrolled statement after its loop's other child
    ("gemm", 38020, "skew([0, 0], 1, 2, 1); embed([0, 1, 0, 0]); "
        "split_children([0], 1); unroll([1], 4);",
     "split([0, 0, 0], 1);\nunroll([1], 4);\nembed([1, 0, 0, 0]);\nembed([1, 1, 0, 0]);\n"
     "embed([1, 2, 0, 0]);\nembed([1, 3, 0, 0]);\nembed([2, 0, 0, 0]);\nskew([0], 1, 2, 1);\n"),
    # the same, after an index-set split
    ("mvt", 66182, "interchange([1], 2, 2); reorder_loops([1], 1); "
        "iss([0], {0 | | -1 | -1}); collapse([0]); "
        "skew([1, 0], 2, 1, 2); iss([0], {0, 1 | | 0 | -2}); "
        "unroll([0, 1], 2);",
     "peel([0, 0], {0 | -2});\nunroll([0, 1], 2);\ninterchange([1], 1, 2);\nskew([1], 2, 1, 2);\n"),
    # isl writes a skewed tile loop, floor(j / 5) - 2 floor(j / 10), in two
    # pieces: read as o3 + 2 o5 and o5
    ("mvt", 30202, "reorder_loops([1], 1); tile([1], 1, 1, 5); "
        "stripmine([1, 0], 1, 2); grain([1, 0, 0], 1, 1); "
        "skew([1, 0], 4, 3, -1); "
        "interchange([1, 0, 0, 0, 0], 1, 3); skew([1], 2, 3, 2); "
        "tile([0], 1, 1, 5);",
     "interchange([1], 1, 2);\nskew([1], 2, 1, -1);\nstripmine([1], 1, 10);\n"
     "interchange([1], 1, 2);\nstripmine([1], 1, 5);\ninterchange([1], 1, 2);\n"
     "stripmine([0], 1, 5);\nskew([1], 2, 3, 2);\n"),
    # isl writes i + 2 floor(j / 5) in three pieces: read as o3 - 2 o5 and o5
    ("mvt", 35282, "skew([1], 1, 2, -2); fuse([0]); stripmine([0], 2, 5); "
        "skew([0, 0], 1, 2, -2); tile([0, 1, 0], 1, 1, 5); "
        "tile([0, 0], 1, 1, 5); iss([0], {0 | | 0 | -1}); "
        "reverse([0, 0, 0, 1, 0, 0], 5);",
     # (15 -> 9 steps: the empty halves keep their rank when linearized,
     # test_whitebox_reshape2; the iss steps and moves that only placed them
     # give no instance a date and go)
     "skew([1], 1, 2, -2);\nfuse([0]);\nstripmine([0, 1], 2, 5);\n"
     "reverse([0, 1], 3);\nstripmine([0, 0], 2, 5);\nskew([0, 0], 1, 2, -2);\n"
     "stripmine([0, 1], 1, 25);\nstripmine([0, 0, 0], 1, 5);\n"
     "stripmine([0, 0, 1], 2, 5);\n"),
    # a split after a tile whose first half has no instance (the reading of its
    # inequality refused it)
    ("mvt", 73222, "shift([1, 0, 0], 2, {1}, -2); fuse([1]); "
        "iss([1, 0], {1 | | 1 | 5}); tile([0, 0], 2, 1, 5); "
        "tile([0], 2, 1, 3); iss([0, 0], {-1, 1, 0 | | 0 | 4});",
     "iss([1, 0], {[] | [1] | [1] | 5});\nshift([1], 2, {1}, -2);\nstripmine([0], 1, 3);\n"
     "tile([0], 3, 2, 5);\niss([0, 0], {[0, 3, -1] | [] | [0] | 14});\n"),
    # a split by a tile loop with one half reshaped after: split last, then the
    # reshape of the half
    ("jacobi-2d", 37078, "tile([0], 1, 1, 3); tile([0], 1, 1, 2); "
        "skew([0, 0, 0, 0], 5, 1, -1); "
        "iss([0, 0, 0, 1, 0], {-1, 1, 1 | | -1, 0 | -2}); "
        "reshape([0, 0, 0, 1, 0, 0], 4, 3, -1);",
     "skew([0, 1], 2, 3, -1);\nstripmine([0], 1, 6);\nstripmine([0], 2, 3);\n"
     "skew([0, 0, 0, 0], 5, 1, -1);\niss([0, 0, 0, 1, 0], {[-3, 0, 4] | [] | [-3, 0] | -6});\n"
     "reshape([0, 0, 0, 1, 0, 1], 4, 3, 1);\n"),
    # a split by tile loops whose second half fixes i = 0 (its dimensions read
    # as 0): the same dimensions on its instances
    ("atax", 44261, "iss([0], {0 | | 0, -1 | 4}); stripmine([1, 2], 2, 3); "
        "tile([0], 1, 1, 5); tile([1], 1, 1, 4); "
        "stripmine([1, 0, 2, 0], 3, 3); "
        "iss([1, 0, 2], {-1, -1, 1, -1 | | 0, 0 | 0});",
     "stripmine([1, 2], 2, 9);\nstripmine([1, 2], 3, 3);\nstripmine([1], 1, 4);\n"
     "stripmine([0], 1, 5);\niss([0, 0], {[] | [] | [0, -1] | 4});\n"
     "iss([1, 0, 2], {[0, -5, 4, -4] | [] | [0, 0] | 3});\n"),
    # halves read with strides inside a parametric split: the merged relation
    # keeps m >= 3
    ("syrk", 52159, "reshape([0, 0, 0], 2, 2, -1); tile([0], 1, 1, 16); "
        "stripmine([0], 2, 5); stripmine([0], 3, 3); "
        "iss([0, 0, 0, 0, 1, 0], {-1, -1, -1, 1, 0, -1 | | 0, -1 | 1}); "
        "iss([0], {0 | | 0, -1 | 2}); split([0, 1, 0, 0, 0, 0], 3);",
     "iss([0], {[] | [] | [0, -1] | 2});\nstripmine([0], 1, 16);\n"
     "split([0, 0, 1, 0, 0], 2);\nstripmine([0, 1], 2, 5);\nsplit([0, 1, 0, 0, 0], 3);\n"
     "stripmine([0, 1, 1], 3, 3);\nstripmine([0, 1, 0], 3, 3);\nstripmine([0, 0], 2, 5);\n"
     "stripmine([0, 0], 3, 3);\ngrain([0, 1, 0], 5, 2);\ngrain([0, 0, 0, 0, 0], 5, 2);\n"
     "iss([0, 0, 0, 0, 1, 0], {[0, -16, -16, 15, 0, -16] | [] | [0, -16] | 31});\n"
     "iss([0, 1, 1, 0, 0, 0], {[0, -16, -16, 15, 0, -16] | [] | [0, -16] | 31});\n"),
]


def _seq(seed: int) -> str:
    return next(c[2] for c in CASES if c[1] == seed)


@pytest.mark.parametrize("stem,seed,seq,want", CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_target_is_recovered_and_replays(stem, seed, seq, want):
    assert_recovered(stem, seq, want)


# --- densify of an unroll's parts ---------------------------------------------------------

def test_an_exact_quotient_is_affine_or_the_div_isl_writes():
    divs = Divs()
    i = Aff.var(it(0))
    assert exact_quotient(i.scale(2) + Aff.const(4), 2, divs) == i + Aff.const(2)
    # (i - 2) / 3 on i = 3e + 2: floor((i + 1) / 3) - 1, the constant in [0, 3)
    assert exact_quotient(i - Aff.const(2), 3, divs) == \
        divs.get(i + Aff.const(1), 3) - Aff.const(1)


def test_the_densify_factor_comes_from_the_dates():
    T, _ = _target("jacobi-2d", "unroll([0, 1, 0], 4);")
    main, c1, c2, c3, epilog = [r for r in T.rels if r.stmt == "S1"]
    assert densify_factor([main], 3, T.divs) == 4          # j a multiple of 4
    assert densify_factor([c1], 3, T.divs) == 4            # j - 1 on j = 4e + 1
    assert densify_factor([main, c1, c2, c3], 3, T.divs) == 4
    assert densify_factor([main], 2, T.divs) == 1          # i: every value
    assert densify_factor([main, epilog], 3, T.divs) == 1  # the epilog's j: any
    S0 = next(r for r in T.rels if r.stmt == "S0")
    assert densify_factor([S0], 3, T.divs) == 1


def test_densify_of_an_unroll_part_gives_its_quotient():
    T, _ = _target("jacobi-2d", "unroll([0, 1, 0], 2);")
    i2 = Aff.var(it(2))
    T.densify((0, 1, 0), 3)                                 # the factor found: 2
    main, copy = [r for r in T.rels if r.beta[:3] == (0, 1, 0)]
    assert main.alphas[2] == T.divs.get(i2, 2)
    assert copy.alphas[2] == T.divs.get(i2 + Aff.const(1), 2) - Aff.const(1)
    with pytest.raises(WhiteboxError, match="cannot densify"):
        T.densify((0, 0), 3)                                # S0's j: no common factor


def test_a_densified_unroll_is_undone_with_one_densify_of_its_loop():
    T, _ = _target("jacobi-2d", "unroll([0, 1, 0], 2); densify([0, 1, 0], 3);")
    found = []
    assert undensify_once(T, found)
    assert found == [Step("densify", ((0, 1, 0), 3))]
    main, copy = [r for r in T.rels if r.beta[:3] == (0, 1, 0)]
    assert main.alphas[2] == Aff.var(it(2))
    assert copy.alphas[2] == Aff.var(it(2)) - Aff.const(1)  # floor(j / 2) on odd j
    assert not undensify_once(T, found)                     # nothing left


def test_a_chunk_of_an_unroll_part_is_not_a_densify():
    # floor(j / 2) before its point loop j: a strip-mine, the reduction's
    T, _ = _target("jacobi-2d", "unroll([0, 1, 0], 2); stripmine([0, 1, 0], 3, 2);")
    before = [list(r.alphas) for r in T.rels]
    found = []
    assert not undensify_once(T, found) and not found
    assert [list(r.alphas) for r in T.rels] == before


# --- relations isl writes in pieces ---------------------------------------------------------

def test_a_skewed_tile_loop_in_pieces_is_one_quasi_affine_function():
    T, _ = _target("mvt", _seq(30202))
    S1 = next(r for r in T.rels if r.stmt == "S1")
    j = Aff.var(it(1))
    d5, d10 = T.divs.get(j, 5), T.divs.get(j, 10)
    assert S1.alphas == [j, d5 - d10.scale(2), d10, Aff.var(it(0)) + j]


def test_a_relation_of_two_functions_stays_piecewise():
    s = _session("mvt")
    st = s.current.statement("S0")
    domain = st.domain.intersect_params(s.current.context)
    m = isl.Map("[N] -> { S0[i, j] -> [0, i, 0, j, 0] : i <= 3; "
                "S0[i, j] -> [0, 3, 0, j, 0] : i > 3 }").align_params(domain.get_space())
    with pytest.raises(WhiteboxError, match="piecewise"):
        from_relation(m, (0, 0, 0), 2, domain, Divs(), ["N"])


# --- index-set splits made last ------------------------------------------------------------

def test_a_half_reshaped_after_the_split_gets_its_reshape_after_it():
    T, oracle = _target("jacobi-2d", _seq(37078))
    merged, splits = _recover._late_splits(T, oracle)
    (loop, _, parts, fixes), = splits
    assert loop == (0, 0, 0, 1, 0) and list(parts) == [1]
    # the merged relation has the first half's dimensions (i + j at depth
    # 4), the second half gets its own (i) by a reshape after the split
    assert merged.by_tag(1).alphas[3] == Aff.var(it(1)) + Aff.var(it(2))
    assert list(fixes) == [2] and fixes[2][3] == Aff.var(it(1))


def test_a_half_that_fixes_an_iterator_has_the_other_halfs_dimensions():
    T, oracle = _target("atax", _seq(44261))
    b = next(r for r in T.rels if r.stmt == "S3" and r.elim)
    assert b.alphas[0] == Aff()                             # floor(i / 4) on i = 0
    merged, splits = _recover._late_splits(T, oracle)
    assert all(not fixes for *_, fixes in splits)
    S3 = next(r for r in merged.rels if r.stmt == "S3")
    assert S3.alphas[0] == T.divs.get(Aff.var(it(0)), 4)


def test_strided_halves_merge_into_their_union():
    T, oracle = _target("syrk", _seq(52159))
    merged, splits = _recover._late_splits(T, oracle)
    assert len(splits) == 2
    assert sorted(c.text() for r in merged.rels if r.stmt == "S1" for c in r.cons) == \
        ["-m + 2", "m - 3"]


def test_halves_apart_by_a_strip_mined_dimension_are_not_akin():
    T, _ = _target("jacobi-2d", _seq(37078))
    a, b = [r for r in T.rels if r.stmt == "S1"]
    assert _recover._akin(a, b, T.divs)                     # a reshape apart
    c = b.copy()
    c.alphas = [c.alphas[0] + T.divs.get(Aff.var(it(0)), 3)] + c.alphas[1:]
    assert not _recover._akin(a, c, T.divs)


def test_same_on_compares_values_on_the_instances():
    T, _ = _target("jacobi-2d", "unroll([0, 1, 0], 2);")
    main = next(r for r in T.rels if r.stmt == "S1")
    from clayx.whitebox.model import instances
    inst = instances(main, T.divs)
    j = Aff.var(it(2))
    assert same_on(inst, j, T.divs.get(j, 2).scale(2), T.divs)     # j even
    assert not same_on(inst, j, T.divs.get(j, 4).scale(4), T.divs)


@pytest.mark.slow
@pytest.mark.parametrize("seed,sizes", [(80158, {"TSTEPS": 5, "N": 11}),
                                        (76110, {"NI": 10, "NJ": 7, "NK": 5}),
                                        (77074, {"M": 9, "N": 11}),
                                        (30202, {"N": 23}),
                                        (37078, {"TSTEPS": 13, "N": 9}),
                                        (44261, {"M": 14, "N": 19})])
def test_recovered_script_runs_equal_to_the_original(tmp_path, seed, sizes):
    # the recovered script, applied to the original and compiled, prints
    # the original's output bit for bit (sizes that leave partial tiles and
    # unroll epilogs)
    stem, _, seq, _ = next(c for c in CASES if c[1] == seed)
    assert_recovered_code_runs(tmp_path, stem, seq, sizes)
