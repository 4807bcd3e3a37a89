"""Whitebox recovery of targets refused before with "cannot order the
target's tiling legally", "the parts of S with strides are not … an
unroll" or "cannot unroll the loop … early" (fuzz seeds of
``scripts/fuzz_whitebox.py``, issue 9).

The tilings: isl writes one tile loop with other divs where the
statements' dimensions differ (a reversed div, a div of a div); the
reduction now reads them as the chunks they are (``_shared_chunks``,
``_chunks_of_divs``, ``_rereversed_chunks``, identities: no step).  Every
recovered script, simplified or not, replays (every step checked) to the
target's dates; some are compiled and run against the original."""

from __future__ import annotations

from fractions import Fraction
from math import floor

import pytest

from clayx.whitebox.model import Aff, Divs, Rel, Sched, it

from whitebox_cases import (assert_recovered, assert_recovered_code_runs, symbolic_target,
                            recover_module as _recover, tiling_module)


#: (kernel, fuzz seed, the random sequence, the script recovered today).
#: Each was refused on main.
CASES = [
    # a tile of a tile loop (the tile by 4 outside the one by 16), the
    # inner tile loop reversed and reshaped: once the reshape is undone,
    # isl writes the reversed tile loop floor((-j - 1) / 16), read as
    # -floor(j / 16) - 1 (_rereversed_chunks) it is reversed back before
    # the outer tile goes (was: every reading broke a dependence)
    ("mvt", 40082, "fuse([0]); tile([0, 0], 2, 2, 16); tile([0, 0], 3, 2, 4); "
                   "reverse([0, 0, 0, 0, 0], 3); fuse([0]); reshape([0, 0, 0, 0, 0], 3, 1, 3);",
     "fuse([0]);\nstripmine([0, 0], 2, 4);\nstripmine([0, 0], 3, 16);\nreverse([0, 0], 3);\n"
     "skew([0, 0], 3, 1, 3);\n"),
    # a strip-mine of a scaled tile loop 3·floor(j / 4): isl writes its
    # chunk floor(3·d / 4) as d + floor(-d / 4) (_chunks_of_divs)
    ("gemm", 75260, "grain([0, 1], 3, 3); tile([0, 1, 0], 2, 2, 4); grain([0, 1, 0], 2, 3); "
                    "iss([0], {-1 | | 0, 0, 0 | 0}); stripmine([0, 3, 0, 0], 2, 4);",
     "iss([0], {[] | [-1] | [0, 0, 0] | 0});\nstripmine([0, 3], 2, 4);\ngrain([0, 3], 2, 3);\n"
     "stripmine([0, 3], 2, 4);\nstripmine([0, 1], 2, 4);\ngrain([0, 3], 5, 3);\n"
     "grain([0, 1], 4, 3);\ngrain([0, 1], 2, 3);\n"),
    # an iss by the tile loop after a skew by it: the two halves look
    # strided, and isl writes the tile loop floor(j / 4) in one half,
    # -floor((-j - 1) / 4) - 1 in the other; read as one div, the halves
    # have the same dimensions and are split last (_late_splits)
    ("syrk", 45229, "grain([0, 1, 0], 1, 1); stripmine([0], 2, 4); skew([0, 0], 1, 2, 2); "
                    "iss([0, 0], {-1, 0 | | -1, -1 | 4}); interchange([0, 0, 0], 3, 3);",
     "stripmine([0, 1], 2, 4);\nstripmine([0, 0], 2, 4);\nskew([0, 0], 1, 2, 2);\n"
     "iss([0, 0], {[-1] | [] | [-1, -1] | 4});\n"),
    # two index-set splits after a skewed tile, the second one's halves
    # empty: the 16 parts of S2 and S3 pair as child k and child k + n of
    # their loop (_halves), three levels of late splits (was: "the parts
    # of S2 with strides are not … an unroll")
    ("bicg", 56024, "skew([1, 1], 1, 2, -1); iss([1, 1], {0 | | -1, 0 | 0}); tile([1], 1, 1, 8); "
                    "skew([1], 2, 1, 2); iss([1, 0, 1], {0, -1 | | -1, 1 | -1}); "
                    "iss([1, 0, 1], {-1, -1, 1 | | -1, 0 | -1});",
     "iss([1, 1], {[] | [] | [-1, 0] | 0});\nskew([1, 1], 1, 2, -1);\nstripmine([1], 1, 8);\n"
     "skew([1], 2, 1, 2);\niss([1, 0, 1], {[0, -1] | [] | [-1, 1] | -1});\n"),
    # a tile loop shifted by a parameter, a second tile, an iss of tile
    # loops: two levels of late splits (was refused the same way)
    ("bicg", 14144, "tile([1], 1, 1, 32); shift([1, 0, 0], 1, {1 | 0}, 3); tile([1], 1, 1, 5); "
                    "peel([1, 0, 0], {0, 1 | 2}); iss([1, 0, 1, 1], {-1, 1, 0, -1 | | -1, 1 | 6}); "
                    "tile([1], 3, 3, 5); reshape([1, 0, 0, 0, 0], 3, 1, 3);",
     "iss([1], {[] | [1] | [0, 1] | 2});\nshift([1, 2], 1, {32 | 0}, 96);\n"
     "stripmine([1], 1, 160);\nshift([1, 0, 2], 2, {-32 | 0}, -96);\n"
     "stripmine([1], 2, 32);\nsplit([1, 0, 0, 1, 1], 3);\nstripmine([1, 0, 1], 3, 5);\n"
     "shift([1, 0, 1, 0, 0], 2, {1 | 0}, 3);\n"
     "iss([1, 0, 1, 0, 1], {[-32, 0, 0, 1, -32] | [] | [-32, 32] | 192});\n"),
]


@pytest.mark.parametrize("stem,seed,seq,want", CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_strided_or_reversed_tiling_is_recovered_and_replays(stem, seed, seq, want):
    assert_recovered(stem, seq, want)


@pytest.mark.slow
@pytest.mark.parametrize("seed,sizes", [(40082, {"N": 37}),
                                        (75260, {"NI": 5, "NJ": 6, "NK": 19}),
                                        (45229, {"N": 13, "M": 7}),
                                        (56024, {"N": 11, "M": 9})])
def test_recovered_scripts_run_equal_to_the_original(tmp_path, seed, sizes):
    # the recovered script, applied to the original and compiled, prints
    # the original's output bit for bit (sizes that leave partial tiles)
    stem, _, seq, _ = next(c for c in CASES if c[1] == seed)
    assert_recovered_code_runs(tmp_path, stem, seq, sizes)


# --- the readings: identities on every integer point ----------------------------------

def _value(a: Aff, env: dict, divs: Divs) -> Fraction:
    """``a`` at the iterator values ``env`` (divs evaluated)."""
    out = Fraction(0)
    for k, v in a.c.items():
        if k[0] == "i":
            out += v * env[k[1]]
        elif k[0] == "d":
            num, den = divs.of(k)
            out += v * floor(_value(num, env, divs) / den)
        else:
            out += v
    return out


def _same_function(before: list[Aff], after: list[Aff], divs: Divs) -> bool:
    """Do the forms give the same values on every point of a box?"""
    pts = [{0: x, 1: y} for x in range(-40, 41, 3) for y in range(-40, 41, 3)]
    return all(_value(a, e, divs) == _value(b, e, divs)
               for a, b in zip(before, after) for e in pts)


def _rel(stmt, beta, alphas, tag, dim=2):
    return Rel(stmt, dim, tuple(beta), list(alphas), tag=tag)


I0, I1 = Aff.var(it(0)), Aff.var(it(1))


def test_a_div_of_a_reversed_numerator_reads_as_the_reversed_chunk_of_a_dimension():
    divs = Divs()
    d4 = divs.get(I1, 4)
    rev = divs.get(-I1 - Aff.const(1), 16)           # floor((-j - 1) / 16)
    r = _rel("S0", (0, 0, 0, 0, 0), [I0, d4, rev, I1], 0)
    T = Sched([r], ("N",), divs)
    before = list(r.alphas)
    assert tiling_module._rereversed_chunks(T)
    assert r.alphas[2] == -divs.get(I1, 16) - Aff.const(1)      # -floor(j / 16) - 1
    assert _same_function(before, r.alphas, divs)
    assert not tiling_module._rereversed_chunks(T)                     # read once


def test_a_reversed_div_without_its_point_loop_is_not_read():
    # no dimension is (a multiple of) j: nothing says the div is a chunk
    divs = Divs()
    rev = divs.get(-I1 - Aff.const(1), 16)
    T = Sched([_rel("S0", (0, 0, 0), [I0, rev], 0)], ("N",), divs)
    assert not tiling_module._rereversed_chunks(T)
    # a plain div (coefficient 1, numerator along j) is a chunk already
    T = Sched([_rel("S0", (0, 0, 0, 0), [I0, divs.get(I1, 16), I1], 0)], ("N",), divs)
    assert not tiling_module._rereversed_chunks(T)


def test_a_div_plus_a_div_reads_as_the_chunk_of_a_scaled_dimension():
    divs = Divs()
    d = divs.get(I1, 4)
    a = d + divs.get(-d, 4)                               # floor(3·d / 4)
    r = _rel("S1", (0, 3, 0, 0, 0, 0), [Aff(), a, d.scale(3), I1], 0)
    T = Sched([r], ("N",), divs)
    before = list(r.alphas)
    assert tiling_module._chunks_of_divs(T)
    assert r.alphas[1] == divs.get(d.scale(3), 4)
    assert _same_function(before, r.alphas, divs)
    assert not tiling_module._chunks_of_divs(T)


def test_a_div_plus_a_div_without_the_scaled_dimension_is_not_read():
    divs = Divs()
    d = divs.get(I1, 4)
    a = d + divs.get(-d, 4)
    # 2·d is no multiple of the numerator 3·d; a coefficient 2 on the div
    # is no chunk
    for alphas in ([Aff(), a, d.scale(2), I1], [Aff(), d.scale(2) + divs.get(-d, 4), I1]):
        T = Sched([_rel("S1", (0, 0, 0, 0, 0), alphas, 0)], ("N",), divs)
        assert not tiling_module._chunks_of_divs(T)


def test_a_reversed_tile_loop_of_one_statement_reads_as_the_others_everywhere():
    divs = Divs()
    d0 = divs.get(I0, 32)                                 # S1's tile loop
    d2 = divs.get(-I0 - Aff.const(1), 32)                 # isl's for S2: -d0 - 1
    d3 = divs.get(-d2 - Aff.const(1), 4)                  # a strip-mine of S2's d0
    s1 = _rel("S1", (1, 0, 0), [d0, I0 - d0], 0, dim=1)
    s2 = _rel("S2", (1, 0, 1, 0), [d2 + I0 + Aff.const(1), d3, -d2 - Aff.const(1), I1], 1)
    T = Sched([s1, s2], ("N",), divs)
    before = list(s2.alphas)
    assert tiling_module.shared_chunks(T)
    assert s2.alphas == [I0 - d0, divs.get(d0, 4), d0, I1]
    assert _same_function(before, s2.alphas, divs)
    assert s1.alphas == [d0, I0 - d0]
    assert not tiling_module.shared_chunks(T)


def test_a_reversed_tile_loop_no_other_relation_uses_is_kept():
    divs = Divs()
    d2 = divs.get(-I0 - Aff.const(1), 32)
    s2 = _rel("S2", (1, 0, 0), [-d2 - Aff.const(1), I1], 1)
    T = Sched([s2], ("N",), divs)
    assert not tiling_module.shared_chunks(T)
    assert s2.alphas == [-d2 - Aff.const(1), I1]


def test_halves_written_with_two_divs_of_one_tile_loop_are_split_late(monkeypatch):
    _, _, seq, _ = next(c for c in CASES if c[1] == 45229)
    T, oracle = symbolic_target("syrk", seq)
    merged, splits = _recover._late_splits(T, oracle)
    (loop, form, parts, fixes), = splits
    assert loop == (0, 0) and len(parts) == 1 and not fixes
    assert len([r for r in merged.rels if r.stmt == "S0"]) == 1
    assert len([r for r in T.rels if r.stmt == "S0"]) == 2          # T unchanged
    # each half's tile loop as isl writes it: the halves pair up as akin
    # (their dimensions differ), the split read from the dates
    # (image_forms), the same loop and inequality
    for module in (tiling_module, _recover):
        monkeypatch.setattr(module, "shared_chunks", lambda T: False)
    (loop2, form2, parts2, _), = _recover._late_splits(T, oracle)[1]
    assert (loop2, form2, len(parts2)) == (loop, form, 1)


def test_halves_pair_child_k_with_child_k_plus_n():
    _, _, seq, _ = next(c for c in CASES if c[1] == 56024)
    T, oracle = symbolic_target("bicg", seq)
    while tiling_module.shared_chunks(T):
        pass
    (loop, pairs), = _recover._halves(T)
    assert loop == (1, 0, 1) and len(pairs) == 8
    assert all(b.beta[3] == a.beta[3] + 8 and a.stmt == b.stmt for a, b in pairs)
    # the first pairing (parts of one statement that come first) finds no
    # split of its own; three levels merge the 16 parts into S2 and S3
    X, levels = T, 0
    while (late := _recover._late_splits(X, oracle)) is not None:
        X, levels = late[0], levels + 1
    assert levels == 3
    assert sorted(r.stmt for r in X.rels) == ["S0", "S1", "S2", "S3"]


def test_no_halves_in_a_loop_of_unlike_children():
    # syrk 45229's loop holds two parts of S0: two children, no pair of
    # halves of two splits (n >= 2 only); S1 has no split
    _, _, seq, _ = next(c for c in CASES if c[1] == 45229)
    T, _ = symbolic_target("syrk", seq)
    assert _recover._halves(T) == []
