"""Whitebox recovery of α step groups whose first order passes through an
illegal schedule (fuzz seeds of ``scripts/fuzz_whitebox.py`` refused with
"cannot order the steps that give the relations under … their target
dimension … legally"): the original sequence, legal at each step, shows a
legal path; the recovery now also tries the skews of a group written as
reshapes by iterators, the parts of an index-set split changed together, a
shift common to every group made once on their loop, and a one-iteration
loop brought out of a loop that a statement and a loop share for both at
once; and an index-set split by tile loops (after the tile, refused as
parts with strides) is made last, by one ``iss`` on the α dimensions.
Every recovered script, simplified or not, replays (every step checked) to
the target's dates; some are compiled and run against the original."""

from __future__ import annotations


import pytest

from clayx.whitebox import Oracle, symbolic
from clayx.whitebox.model import Divs
from clayx.whitebox.targets import start_of

from whitebox_cases import (assert_recovered, assert_recovered_code_runs,
                            session as _session, symbolic_target as _target_of,
                            recover_module as _recover, core_module, tiling_module)


#: (kernel, fuzz seed, the random sequence, the script recovered today).
#: Each was refused before (no order of the α step groups found legal).
CASES = [
    # S0's j - i (a reshape by i) as a skew by the shifted i + N - M - 1
    # and a shift passes through j - i - N + M + 1: illegal where M > N - 1
    ("trmm", 21235, "shift([0, 0], 1, {1 | -1}, 1); shift([0, 0, 0, 0], 3, {}, 2); "
                    "reshape([0, 0, 0, 0], 2, 1, 1);",
     "shift([0], 1, {1 | -1}, 1);\nreshape([0, 0, 0], 2, 1, 1);\nshift([0, 0, 0], 3, {}, 2);\n"),
    # S2 interchanged, then peeled: the two parts interchanged one at a
    # time run S2's reduction out of order; together (in one fused
    # one-iteration loop) they do not
    ("bicg", 21194, "interchange([0], 1, 1); grain([0, 0], 1, 3); reorder_loops([1, 1, 0], 1); "
                    "peel([1, 1], {-1, 0 | 2});",
     "interchange([1, 1, 0], 1, 2);\npeel([1, 1], {-1, 0 | 2});\ngrain([0], 1, 3);\n"),
    # the shift by n - 2 of both statements' outer loop, made for S0 and
    # S1 apart, moves one past the other for some n; once on their loop not
    ("syrk", 15099, "skew([0, 0], 1, 2, 2); skew([0], 2, 1, 1); shift([0], 1, {-1 | 0}, 2); "
                    "iss([0], {1 | | 0, 0 | -2});",
     "skew([0, 0], 1, 2, 2);\nshift([0], 1, {-1 | 0}, 2);\niss([0], {[1] | [] | [0, 0] | -2});\n"
     "skew([0], 2, 1, 1);\nshift([0], 2, {-1 | 0}, 2);\n"),
    # the same with three index-set split parts and a skew of one of them
    ("gemm", 21130, "iss([0], {1 | | -1, 1, 0 | 5}); reshape([0, 2, 0], 1, 2, 2); "
                    "skew([0, 1], 3, 1, 1); iss([0, 3, 0], {-1, -1 | | 0, 0, 1 | -2}); "
                    "shift([0], 1, {0 | 1 | -1}, 3);",
     "iss([0], {[] | [1] | [-1, 1, 0] | 5});\niss([0, 3, 0], {[] | [-1, -1] | [0, 0, 1] | -2});\n"
     "shift([0], 1, {0 | 1 | -1}, 3);\nskew([0, 2], 1, 2, 2);\nskew([0, 1], 3, 1, 1);\n"
     "shift([0, 1], 3, {0 | 1 | -1}, 3);\n"),
    # S0 reversed, both shifted: the shift once on the loop, after the
    # reverse (fuzz seed 28000, unseen when the variants were written)
    ("gemm", 28000, "reshape([0, 1, 0, 0], 3, 2, 1); reverse([0, 0, 0], 1); "
                    "skew([0, 1, 0], 2, 1, 2); shift([0], 1, {-1 | 1 | 1}, -2);",
     "reverse([0, 0], 1);\nshift([0], 1, {-1 | 1 | 1}, -2);\nskew([0, 1], 2, 1, 2);\n"
     "shift([0, 1], 2, {-2 | 2 | 2}, -4);\nskew([0, 1], 3, 1, 2);\nskew([0, 1], 3, 2, 1);\n"
     "shift([0, 1], 3, {-2 | 2 | 2}, -4);\n"),
    # parts split by the parameter (N >= 4 or N <= 3) shifted by N + T + 3
    # and by T + 6: amounts equal where the second parts have instances
    # (N = 3), one shift of the loop (fuzz seed 32093)
    ("jacobi-1d", 32093, "shift([0], 1, {-1 | -1}, -3); skew([0, 0], 2, 1, 2); "
                         "iss([0], {0 | | 0, -1 | 3}); peel([0, 2], {1, -1 | -1}); "
                         "reshape([0, 4, 0], 2, 1, -2); fuse([0]);",
     "iss([0], {[] | [] | [0, -1] | 3});\niss([0, 2], {[] | [2, -1] | [1, 3] | 6});\n"
     "shift([0], 1, {-1 | -1}, -3);\nreorder([0, 2], [1, 0]);\nsplit([0, 2, 0], 2);\n"
     "skew([0, 0], 2, 1, 2);\nreshape([0, 2], 2, 1, 2);\nshift([0, 2], 2, {2 | 0}, 12);\n"
     "reshape([0, 4], 2, 1, -2);\n"),
    # S1 at i + j: brought out from j (the default pivot), its dimension 2
    # is then -(i) + (i + j), reversed on the way; from i (the other pivot,
    # tried when the deeper level finds no order) one reshape, as written
    # (fuzz seeds 34065, 33205)
    ("trmm", 34065, "reshape([0, 0, 1], 1, 2, -1); tile([0], 2, 1, 16);",
     "reshape([0, 0, 1], 1, 2, -1);\ntile([0], 2, 1, 16);\n"),
    ("trmm", 33205, "interchange([0, 0, 1], 2, 2); tile([0, 0, 0], 2, 2, 16); "
                    "skew([0, 0], 1, 2, -1);",
     "reshape([0, 0, 1], 1, 2, -1);\nstripmine([0, 0, 0], 2, 16);\nskew([0, 0, 0], 1, 2, -1);\n"),
    # S0's inner dimension shifted alone, then the interchange both need
    # once on their loop (fuzz seed 32225; the iss and collapse pairs of the
    # sequence cancel)
    ("trmm", 32225, "iss([0, 0], {1, -1 | | 0, 0 | 6}); collapse([0, 0]); "
                    "iss([0], {0, 1 | | 0, -1 | 2}); collapse([0]); "
                    "iss([0, 0, 0], {1 | | 0, 1 | -1}); collapse([0, 0, 0]); "
                    "skew([0, 0], 1, 2, 2); interchange([0], 1, 2); "
                    "shift([0, 0, 0, 0], 1, {}, 2); tile([0], 2, 1, 16);",
     "shift([0, 0, 0], 2, {}, 2);\ninterchange([0], 1, 2);\nskew([0, 0, 0], 2, 1, 2);\n"
     "shift([0, 0, 0], 2, {}, 4);\nreshape([0, 0, 1], 2, 2, 2);\ntile([0], 2, 1, 16);\n"),
    # a part of S0 at i = N - 1 gets a shift by 2N - 2 where the others get
    # a skew by i: the skew, once on the loop, gives it the same dates
    # (fuzz seed 32237)
    ("lu", 32237, "interchange([0, 1], 1, 2); iss([0, 0], {0, -1 | | -1 | 1}); collapse([0, 0]); "
                  "iss([0, 0, 0], {-1, 0, 0 | | 1 | -2}); peel([0, 1], {-1 | 6}); "
                  "skew([0], 2, 1, -2);",
     "iss([0, 0, 0], {[] | [-1] | [1] | -2});\niss([0, 1], {[] | [1] | [-1] | 6});\n"
     "interchange([0, 1], 1, 2);\nsplit([0, 1, 0], 2);\nskew([0], 2, 1, -2);\n"),
    # the core of a tile of a skewed tile: a one-iteration loop of value i
    # brought out of the j loop that S0's k loop and S1 share; for one of
    # them first, S1 runs before S0's updates of B[i][j]
    ("trmm", 12285, "tile([0, 0], 2, 2, 2); tile([0, 0], 3, 2, 2); "
                    "skew([0, 0, 0, 0], 2, 1, -2); peel([0], {0, 0 | -2});",
     "peel([0], {0, 0 | -2});\nembed([0, 0, 0, 0]);\nembed([0, 0, 1]);\nembed([1, 0, 0, 0]);\n"
     "embed([1, 0, 1]);\nembed([0, 0, 1, 0]);\nreshape([0], 4, 1, -1);\ninterchange([0], 3, 4);\n"
     "interchange([0], 2, 3);\nfuse([0, 0, 0]);\nunembed([0, 0, 0, 1, 0]);\nembed([1, 0, 1, 0]);\n"
     "reshape([1], 4, 1, -1);\ninterchange([1], 3, 4);\ninterchange([1], 2, 3);\n"
     "fuse([1, 0, 0]);\nunembed([1, 0, 0, 1, 0]);\nstripmine([1], 3, 2);\nstripmine([0], 3, 2);\n"
     "grain([1], 2, 2);\nskew([1], 2, 3, -1);\ngrain([0], 2, 2);\nskew([0], 2, 3, -1);\n"),
]


@pytest.mark.parametrize("stem,seed,seq,want", CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_alpha_steps_are_ordered_legally_and_replay(stem, seed, seq, want):
    assert_recovered(stem, seq, want)


def _core(stem: str, seq: str):
    """A :class:`_Core` on the original of ``seq``'s kernel, its target
    reduced and split, and the oracle."""
    from clayx.whitebox.steps import Recorder
    s = _session(stem, seq)
    scop, _, deps = start_of(s.original, None)
    divs = Divs()
    O = symbolic(scop, scop.schedule, divs, tags=False)
    T = symbolic(scop, s.current.schedule, divs, tags=True)
    oracle = Oracle(scop, deps, divs)
    tiling_module.reduce(T, oracle)
    rec = Recorder(O.copy())
    core = core_module.Core(rec, T, oracle)
    core.split_parts()
    return core


def test_skews_by_iterators_are_reshapes_on_the_statements():
    core = _core("trmm", CASES[0][2])
    core.set_alpha((0,), 1)                          # i + N - M - 1
    units = core.units((0, 0), 2)
    # S0 alone: a skew by the shifted i, then the shift back
    assert [st[0] for _, plan in units for st in plan] == ["skew", "shift"]
    by_its = core._by_iterators(units)
    assert by_its == [((0, 0, 0), (("reshape", 2, 1, 1),))]
    # nothing to rewrite without a skew
    assert core._by_iterators([(p, q[1:]) for p, q in units]) is None
    # step by step (careful), the skew breaks a dependence, the reshape not
    core.careful = True
    snap = core.snapshot()
    assert not core._apply_checked(*units[0])
    core.restore(snap)
    assert core._apply_checked(*by_its[0])


def test_a_shift_every_group_makes_is_made_once_on_the_loop(monkeypatch):
    # the split as written, after the α steps (core.Core.shared_alpha makes
    # S0's skew first, before the split, and the shift then is S0's alone)
    monkeypatch.setattr(core_module.Core, "shared_alpha", False)
    core = _core("syrk", CASES[2][2])
    units = core.units((0,), 1)
    common = core._common_shift((0,), units)
    assert common is not None
    (loop, (shift,)), *rest = common
    assert loop == (0,) and shift[0] == "shift"
    assert all(shift not in plan and plan for _, plan in rest)
    # a relation of the loop that no group changes: no common shift
    assert core._common_shift((0,), units[:1]) is None


def test_shifts_equal_on_the_instances_are_one():
    core = _core("jacobi-1d", CASES[5][2])
    units = core.units((0,), 1)
    amounts = {st[2].text() for _, plan in units for st in plan if st[0] == "shift"}
    assert len(amounts) == 2                         # N + T + 3 and T + 6, as written
    common = core._common_shift((0,), units)
    assert common is not None and len(common) == 1 and common[0][0] == (0,)


def test_a_common_shift_comes_after_the_reverses():
    core = _core("gemm", CASES[4][2])
    units = core.units((0,), 1)
    assert [[st[0] for st in plan] for _, plan in units] == [["reverse", "shift"], ["shift"]]
    common = core._common_shift((0,), units)
    assert [(p, [st[0] for st in q]) for p, q in common] == [((0, 0), ["reverse"]),
                                                           ((0,), ["shift"])]


def test_interchanges_every_group_ends_with_are_made_once_last():
    core = _core("trmm", CASES[8][2])
    units = core.units((0,), 1)
    assert [[st[0] for st in plan] for _, plan in units] == [["shift", "interchange"],
                                                             ["interchange"]]
    tail = core._common_tail((0,), units)
    assert [(p, [st[0] for st in q]) for p, q in tail] == [((0, 0, 0), ["shift"]),
                                                         ((0,), ["interchange"])]
    # each relation interchanged alone breaks a dependence; this order not
    snap = core.snapshot()
    assert not core._apply_checked(*units[1])
    core.restore(snap)
    assert all(core._apply_checked(p, q) for p, q in tail)
    assert core._common_tail((0,), units[1:]) is None         # S0 left out


def test_one_plan_on_the_loop_when_it_gives_every_relation_its_dimension():
    core = _core("lu", CASES[9][2])
    core.set_alpha((0,), 1)
    # the part at i = N - 1 has a shift as its own plan; the loop's skew
    # gives it its dimension too, so units gives it that (_share_plans)
    fixed = next(r for r in core.C.under((0, 0)) if r.elim)
    own = core.plan(fixed, 2)
    assert [st[0] for st in own] == ["shift"]
    units = core.units((0, 0), 2)
    assert units == [((0, 0), (("skew", 2, 1, -2),))]
    others = [(r.beta, core.plan(r, 2)) for r in core.C.under((0, 0)) if not r.elim]
    shift_only = [(fixed.beta, own)]
    one = core._one_plan((0, 0), 2, shift_only + others)
    assert one == [((0, 0), (("skew", 2, 1, -2),))]
    # the shift alone does not give the other relations their dimension
    assert core._one_plan((0, 0), 2, shift_only + shift_only) is None


def test_consecutive_split_parts_with_one_plan_are_one_group():
    core = _core("bicg", CASES[1][2])
    units = core.units((1,), 1)
    assert len(units) == 2 and units[0][1] == units[1][1]
    grouped = core._grouped(units)
    assert grouped == [([units[0][0], units[1][0]], units[0][1])]
    # apart (not siblings that follow each other): no group
    assert core._grouped(units[:1]) is None


def test_a_group_is_changed_and_put_back_in_place():
    core = _core("bicg", CASES[1][2])
    units = core.units((1,), 1)
    before = {r.tag: r.beta for r in core.C.rels}
    n = len(core.rec.steps)
    assert core._apply_checked([units[0][0], units[1][0]], units[0][1])
    assert {r.tag: r.beta for r in core.C.rels} == before
    assert [st.name for st in core.rec.steps[n:]] == [
        "embed", "embed", "fuse", "interchange", "split", "unembed", "unembed"]
    # each part alone first: illegal (what the recovery refused before)
    core = _core("bicg", CASES[1][2])
    assert not core._apply_checked(*units[0])


#: (kernel, fuzz seed, the random sequence, the script recovered today):
#: an index-set split by a tile loop, after the tile (the parts look like an
#: unroll's strided parts), refused before; now split last, by the same
#: inequality on the α dimensions.
LATE = [
    ("mvt", 17072, "reshape([0, 0, 0], 2, 1, 3); tile([1], 1, 1, 5); tile([0, 0], 2, 2, 5); "
                   "skew([1], 2, 1, -2); iss([1, 0, 0], {1, 1 | | -1 | 6}); stripmine([0], 3, 4);",
     "skew([0], 2, 1, -1);\nstripmine([0], 2, 4);\nskew([0], 3, 1, -1);\nskew([0], 2, 1, 1);\n"
     "tile([0], 3, 2, 5);\nskew([0], 4, 1, 5);\nskew([0], 2, 1, 1);\nstripmine([1], 1, 5);\n"
     "skew([1], 2, 1, -2);\niss([1, 0, 0], {[1, 1] | [] | [-1] | 6});\n"),
    ("gemm", 32080, "parallelize([0]); skew([0, 1], 2, 3, -2); stripmine([0, 1, 0], 3, 3); "
                    "grain([0, 1, 0], 3, 2); peel([0, 1, 0], {-1, 1, -1 | 1});",
     "skew([0, 1], 2, 3, -2);\nstripmine([0, 1], 3, 3);\ngrain([0, 1], 3, 2);\n"
     "iss([0, 1], {[0, 0, 1] | [] | [-1, 1, -1] | 1});\nparallelize([0]);\n"),
    ("lu", 34297, "tile([0, 1, 0], 3, 3, 2); skew([0, 0, 0], 3, 2, -1); stripmine([0, 1, 0], 4, 2); "
                  "iss([0, 1, 0, 0], {1, 0, -1, -1, 1 | | -1 | 5});",
     "skew([0, 0, 0], 3, 2, -1);\nstripmine([0, 1], 3, 2);\nstripmine([0, 1], 4, 2);\n"
     "iss([0, 1, 0, 0], {[1, 0, 0, -2, 1] | [] | [-1] | 5});\n"),
    # two pairs of parts of S0 (a peel, one half skewed after the tile),
    # split by one inequality on the α dimensions: on the iterators it
    # differs between the pairs (d0 - i0 - i1 and 2 d0 - i0 - i1)
    ("seidel-2d", 30186, "peel([0, 0], {0, 0 | 3}); tile([0], 1, 1, 5); "
                         "skew([0, 0, 1, 0], 2, 1, 1); fuse([0, 0, 0, 0]); "
                         "iss([0, 0], {-1, 1, 1, 0 | | 0, -1 | 4});",
     "peel([0, 0], {0, 0 | 3});\nstripmine([0], 1, 5);\nskew([0], 2, 1, 1);\n"
     "iss([0, 0], {[-1, 1, 1] | [] | [0, -1] | 4});\n"),
]


@pytest.mark.parametrize("stem,seed,seq,want", LATE, ids=[f"{c[0]}-{c[1]}" for c in LATE])
def test_a_split_by_tile_loops_is_made_last_and_replays(stem, seed, seq, want):
    test_alpha_steps_are_ordered_legally_and_replay(stem, seed, seq, want)


def test_late_splits_merge_the_parts_and_find_the_inequality():
    stem, _, seq, _ = LATE[0]
    s = _session(stem, seq)
    scop, _, deps = start_of(s.original, None)
    divs = Divs()
    T = symbolic(scop, s.current.schedule, divs, tags=True)
    assert [r.tag for r in T.rels if r.stmt == "S1"] == [1, 2]
    assert all(r.dom is not None for r in T.rels if r.stmt == "S1")     # strided
    merged, splits = _recover._late_splits(T, Oracle(scop, deps, divs))
    assert [(r.tag, r.beta, r.dom) for r in merged.rels if r.stmt == "S1"] == [
        (1, (1, 0, 0, 0), None)]
    (loop, form, parts, fixes), = splits
    assert fixes == {}                                        # the same α dimensions
    assert loop == (1, 0, 0) and list(parts) == [1] and parts[1][1] == 2
    # on S1's dimensions (floor(i / 5), i + 2 floor(i / 5), j): -α1 - α2 + N - 7
    assert form[0] == (-1, -1) and form[1].text() == "N - 7"
    assert parts[1][0].keys("d")                              # a strip-mined dimension
    # without an oracle (no dependences, no isl sets): nothing
    assert _recover._late_splits(T, None) is None


def test_a_form_on_the_alpha_dimensions_is_integral_or_none():
    T, _ = _target_of("mvt", LATE[0][2])
    r = next(x for x in T.rels if x.stmt == "S1")
    i0 = _recover.Aff.var(core_module.it(0))
    assert _recover.alpha_form(r, i0) == ((-2, 1), _recover.Aff())    # i = α2 - 2 α1
    half = T.divs.get(_recover.Aff.var(core_module.it(0)), 2)            # floor(i / 2): none
    assert _recover.alpha_form(r, half) is None


def test_late_splits_of_pairs_with_other_dimensions_share_the_form_not_the_inequality():
    stem, _, seq, _ = LATE[3]
    T, oracle = _target_of(stem, seq)
    _, splits = _recover._late_splits(T, oracle)
    (loop, form, parts, _), = splits
    assert loop == (0, 0) and sorted(parts) == [0, 1]
    assert form[0] == (1, -1, -1)
    assert parts[0][0] != parts[1][0]                   # d0 - i0 - i1 …, 2 d0 - i0 - i1 …
    assert all(_recover.alpha_form(T.by_tag(tag), c) == form for tag, (c, _) in parts.items())


# (trmm 27175 and lu 31197, refused here before, are recovered:
# tests/test_whitebox_order2.py and tests/test_whitebox_tileorder.py; mvt's
# tile of a tile loop, reversed inside and reshaped, fuzz seed 40082:
# tests/test_whitebox_strides.py; trmm's tile of a loop whose peeled part isl
# writes without the tile loop, fuzz seed 81015: tests/test_whitebox_chunks4.py)


@pytest.mark.slow
@pytest.mark.parametrize("seed,sizes", [(21194, {"N": 19, "M": 23}), (12285, {"M": 9, "N": 7}),
                                        (17072, {"N": 23})])
def test_recovered_ordered_script_runs_equal_to_the_original(tmp_path, seed, sizes):
    # the recovered script, applied to the original and compiled, prints
    # the original's output bit for bit
    stem, _, seq, _ = next(c for c in CASES + LATE if c[1] == seed)
    assert_recovered_code_runs(tmp_path, stem, seq, sizes)
