"""Whitebox recoveries whose ``reshape`` steps clayx's ``reshape`` refused
on replay (fuzz seeds of ``scripts/fuzz_whitebox.py`` reported as bugs:
"wrong coefficient (the reshape would give several instances of S the
same date …)").

The cause, in all of them: ``reshape`` checked that the relation *as
written* stays injective, without the statement's domain, while the
recovery (like ``unembed`` and ``linearize``) reasons on the instances.
Thirteen of the loops held an empty half of an index-set split (Clay keeps
them) whose dimensions no longer determined its iterators (a loop
unembedded, a point loop linearized: the part has no instance, so any
dimensions give it the same dates); on syrk 48069 the domain of a part
fixes ``j = i`` and the recovery reshapes by ``i`` where the relation reads
``j``.  ``reshape`` now checks what its message says, that no two
*instances* get the same date (:func:`clayx.directives.affine.dates_unique`),
and whitebox asks the same code (:meth:`clayx.whitebox.Oracle.unique`).
Every recovered script, simplified or not, replays (every step checked) to
the target's dates; some are compiled and run against the original."""

from __future__ import annotations

import pytest

from clayx.directives.affine import dates_unique
from clayx.errors import DirectiveError
from clayx.whitebox.steps import Recorder

from whitebox_cases import (assert_recovered, assert_recovered_code_runs,
                            recover_module as _recover, session as _session,
                            symbolic_target as _target_of)


#: (kernel, fuzz seed, the random sequence, the script recovered today).
#: Each failed its replay before (a ``reshape`` refused).
CASES = [
    ("lu", 60237,
     "tile([0], 2, 2, 2); fuse([0, 0, 0, 0]); peel([0], {0 | 2});"
     " interchange([0, 0, 0, 0, 0], 2, 3); skew([0, 0], 1, 2, 1);",
     "peel([0], {0 | 2});\nsplit([0, 0, 0], 2);\nunembed([0, 0, 0, 0]);\n"
     "stripmine([0, 0], 2, 2);\nfuse([0, 0]);\nreshape([0, 0, 0], 3, 3, -1);\n"
     "reshape([0, 0, 0], 3, 2, 1);\nstripmine([1, 1], 2, 2);\nstripmine([1, 0], 2, 2);\n"
     "stripmine([0, 1], 2, 2);\nstripmine([0, 0], 2, 2);\nskew([0, 0], 1, 2, 1);\n"),
    ("lu", 43217,
     "tile([0], 2, 2, 16); iss([0, 1, 0, 0], {-1, 1 | | -1 | -1});"
     " reorder_loops([0, 1, 0, 0, 1], 2); skew([0, 0, 0], 3, 1, 2);",
     "iss([0, 1], {[] | [16, -1] | [16] | 15});\nreorder([0, 1], [1, 0]);\nsplit([0, 1, 0], 2);\n"
     "unembed([0, 2, 0, 0]);\nstripmine([0, 2], 2, 16);\nfuse([0, 1]);\nfuse([0, 1, 0]);\n"
     "reshape([0, 1, 0, 1], 3, 3, -1);\nreshape([0, 1, 0, 1], 3, 2, 1);\n"
     "stripmine([0, 0], 2, 16);\nskew([0, 0], 3, 1, 2);\nstripmine([0, 1], 2, 16);\n"),
    ("trmm", 80165,
     "reshape([0, 0], 2, 1, 1); reshape([0], 2, 1, 2); tile([0], 1, 1, 3);"
     " peel([0, 0], {0, 1 | 3}); tile([0, 1, 0, 0], 1, 1, 3);",
     "peel([0], {0, 1 | 3});\nsplit([1, 0, 0], 2);\nsplit([1, 0], 1);\nsplit([0, 0, 0], 2);\n"
     "unembed([0, 1, 0]);\nunembed([0, 0, 0, 0]);\nskew([1], 2, 1, 3);\nskew([2], 2, 1, 3);\n"
     "stripmine([2], 1, 3);\nstripmine([1], 1, 9);\nstripmine([0], 1, 3);\nfuse([0]);\n"
     "fuse([0]);\nfuse([0, 0]);\nreshape([0, 0, 1], 2, 1, 4);\nreshape([0, 0, 1], 2, 2, -1);\n"
     "reshape([0, 0, 0], 2, 1, 4);\nreshape([0, 0, 0], 2, 2, -1);\nstripmine([0, 0], 2, 3);\n"
     "split([0, 0, 0, 1], 3);\n"),
    ("mvt", 75142,
     "grain([0], 1, 2); grain([1, 0, 0], 2, 2); densify([0], 1); iss([1, 0], {0, 0 | | 1 | 2});"
     " tile([1], 1, 1, 3); interchange([1, 0, 0, 0], 1, 2);",
     "iss([1], {[] | [] | [1] | 2});\nsplit([1, 0], 1);\nunembed([1, 0, 0]);\n"
     "stripmine([1], 1, 3);\nfuse([1]);\nfuse([1, 0]);\nreshape([1, 0, 0], 2, 2, -1);\n"
     "reshape([1, 0, 0], 2, 1, 1);\nstripmine([1], 1, 3);\ngrain([1], 3, 2);\n"),
    ("syrk", 48069,
     "iss([0, 0], {1, -1 | | 1, 1 | -1}); fuse([0, 1]); shift([0, 1, 0, 0], 3, {}, -3);"
     " skew([0, 0], 1, 2, 1); peel([0, 0], {0, 1 | 2}); reverse([0, 1], 2);",
     "iss([0, 0], {[] | [1, -1] | [1, 1] | -1});\niss([0, 0], {[] | [0, 1] | [0, 1] | 2});\n"
     "reorder([0, 0], [0, 2, 1, 3]);\nreverse([0, 0, 0], 2);\nreshape([0, 0, 0], 2, 1, -1);\n"
     "interchange([0, 0, 0], 1, 2);\nreverse([0, 0, 2], 2);\nreshape([0, 0, 2], 2, 1, -1);\n"
     "interchange([0, 0, 2], 1, 2);\nreverse([0, 0, 3], 2);\nreshape([0, 0, 3], 2, 1, -1);\n"
     "interchange([0, 0, 3], 1, 2);\nreshape([0, 0, 1], 1, 1, 1);\n"
     "reorder([0, 0], [0, 2, 1, 3]);\nsplit([0, 0, 1], 2);\nskew([0, 0], 2, 1, 1);\n"
     "reverse([0, 1, 0], 2);\nreverse([0, 1, 1], 2);\nreshape([0, 1, 1], 2, 2, 1);\n"
     "reshape([0, 1, 1], 2, 1, -1);\nshift([0, 2], 3, {}, -3);\n"),
    ("mvt", 64282,
     "tile([1], 1, 1, 3); skew([0], 2, 1, 1); reshape([0, 0, 0], 1, 1, -1);"
     " peel([1, 0, 0], {0 | 4}); interchange([1, 0, 0, 0], 1, 2); stripmine([1, 0], 1, 4);",
     "peel([1, 0], {0 | 4});\nsplit([1, 0], 1);\nskew([0], 2, 1, 1);\nunembed([1, 0, 0]);\n"
     "stripmine([1], 1, 3);\nfuse([1]);\nreshape([1, 0], 2, 2, -1);\nreshape([1, 0], 2, 1, 1);\n"
     "stripmine([1], 1, 12);\nstripmine([1], 2, 3);\ngrain([0], 1, 2);\n"),
    ("jacobi-2d", 80108,
     "fuse([0]); stripmine([0], 2, 2); iss([0], {-1, 1 | | 1, 0 | 1});"
     " skew([0, 3, 0, 0], 4, 1, 1); stripmine([0, 1, 0], 1, 3); shift([0, 2, 0, 0], 3, {}, 3);",
     "iss([0], {[] | [-2, 1] | [2, 0] | 2});\nunembed([0, 0, 0, 0]);\nunembed([0, 1, 0, 0]);\n"
     "skew([0, 3], 3, 1, 1);\nstripmine([0, 1], 1, 3);\nreshape([0, 0], 2, 2, -1);\n"
     "reshape([0, 0], 2, 1, 1);\nstripmine([0, 2], 2, 2);\nshift([0, 2], 3, {}, 3);\n"
     "stripmine([0, 1], 2, 2);\nstripmine([0, 0], 2, 2);\nsplit([0, 0, 0, 0], 3);\n"
     "stripmine([0, 0], 2, 2);\nsplit([0, 0, 0, 0, 0], 3);\n"),
    ("lu", 56087,
     "shift([0, 0, 0, 0], 2, {}, 0); iss([0, 1, 0], {-1, 0 | | 0 | -2});"
     " iss([0, 1], {1 | | 0 | 5}); stripmine([0, 0], 2, 4); stripmine([0, 1, 0], 1, 4);"
     " interchange([0], 1, 1);",
     "iss([0, 1, 0], {[] | [] | [0] | 0});\nembed([0, 1, 0, 1]);\n"
     "iss([0, 1, 0, 1], {[] | [] | [0] | 0});\nsplit([0, 1, 0, 1, 0], 4);\n"
     "unembed([0, 1, 0, 1, 0]);\niss([0, 1, 0, 2], {[] | [1] | [0] | 5});\n"
     "split([0, 1, 0, 2, 0], 4);\nunembed([0, 1, 0, 2, 0]);\nunembed([0, 1, 0, 3, 0]);\n"
     "reorder([0, 1, 0], [0, 2, 3, 1]);\nsplit([0, 1, 0, 1], 3);\nsplit([0, 1, 0], 2);\n"
     "reorder([0, 1, 0], [1, 0]);\nsplit([0, 2, 0, 0], 3);\nunembed([0, 2, 0, 0]);\n"
     "unembed([0, 2, 1, 0]);\nstripmine([0, 2], 1, 4);\nreshape([0, 0, 2, 1], 2, 2, -1);\n"
     "reshape([0, 0, 2, 1], 2, 1, 1);\nstripmine([0, 0], 2, 4);\nsplit([0, 0, 0, 1], 3);\n"),
    ("atax", 70041,
     "peel([1, 1], {1, 0 | 4}); interchange([1, 2], 2, 2); shift([1, 1, 0], 1, {}, -3);"
     " tile([1], 1, 1, 5); vectorize([0], 1); embed([1, 0, 3, 0]);"
     " reorder_loops([1, 0, 1, 0], 1);",
     "peel([1, 1], {1, 0 | 4});\nembed([1, 3, 0]);\nsplit([1, 0], 1);\nsplit([2, 0], 1);\n"
     "unembed([2, 0, 0]);\nstripmine([2], 1, 5);\nfuse([1]);\nfuse([1]);\n"
     "reshape([1, 1], 2, 2, -1);\nreshape([1, 1], 2, 1, 1);\nshift([1, 1], 2, {}, -2);\n"
     "shift([1, 1], 1, {}, -1);\nstripmine([1], 1, 5);\nvectorize([0]);\n"),
    ("jacobi-1d", 40163,
     "iss([0], {1 | | 0, 1 | 3}); tile([0], 1, 1, 2); interchange([0, 0, 2], 1, 1);"
     " reorder_loops([0, 0, 1, 0], 1); reshape([0, 0, 0, 0], 2, 2, 2);"
     " reshape([0, 0, 3, 0], 3, 2, -2);",
     "peel([0], {0, 1 | 3});\nunembed([0, 0, 0]);\nunembed([0, 1, 0]);\nstripmine([0], 1, 2);\n"
     "split([0, 0, 0], 2);\nfuse([0]);\nreshape([0, 1], 2, 2, -1);\nreshape([0, 1], 2, 1, 1);\n"
     "stripmine([0], 1, 2);\ngrain([0, 0, 3], 3, 3);\n"),
    ("mvt", 50042,
     "tile([0], 1, 1, 8); peel([0, 0, 0], {0 | 5}); reshape([0], 1, 1, -1);"
     " iss([0, 0, 1], {-1, 1 | | 1 | -1}); collapse([0, 0, 1]); tile([0], 1, 1, 2);"
     " iss([0, 0, 0], {0, -1, 1 | | -1 | 5});",
     "iss([0, 0], {[] | [0, 1] | [0] | 5});\niss([0, 0], {[] | [-1] | [-8] | 47});\n"
     "split([0, 0, 0], 2);\nsplit([0, 1, 0], 2);\nsplit([0, 0], 1);\nsplit([1, 0], 1);\n"
     "reorder([2, 0], [1, 0]);\nsplit([2, 0, 0], 2);\nunembed([2, 1, 0]);\n"
     "stripmine([2], 1, 2);\nsplit([2, 0, 0, 0], 2);\nfuse([0]);\nfuse([0]);\n"
     "grain([0, 1], 1, 9);\nstripmine([0, 0], 1, 16);\nstripmine([0, 1], 1, 16);\n"
     "stripmine([0, 2], 1, 16);\nfuse([0, 0]);\nreshape([0, 0, 3], 2, 1, -8);\n"
     "stripmine([0], 2, 72);\nreshape([0], 2, 1, -1);\nreshape([0], 3, 1, 8);\n"),
    ("jacobi-2d", 40258,
     "peel([0], {0, 1 | 5}); reverse([0, 1, 0, 0], 2); reshape([0, 1, 0, 0], 3, 3, 3);"
     " reshape([1, 1], 2, 2, 2); tile([0, 0], 3, 2, 32); skew([0, 0, 0, 0], 4, 1, 1);"
     " tile([0, 1, 0], 3, 3, 3);",
     "peel([0], {0, 1 | 5});\nreverse([1, 1], 2);\nstripmine([0, 1], 3, 3);\n"
     "reshape([0, 1], 4, 1, -1);\nreshape([0, 1], 4, 3, 3);\nreshape([0], 3, 3, 1);\n"
     "tile([0, 0], 3, 2, 32);\nskew([0], 4, 1, 1);\n"),
]

#: The same, slower to recover (careful mode, or long).
SLOW_CASES = [
    ("lu", 47057,
     "iss([0, 0], {-1 | | 0 | 1}); tile([0], 2, 2, 5); skew([0, 0], 3, 1, 2);"
     " reshape([0, 0, 0, 2], 4, 3, -1);",
     "iss([0, 0, 0], {[] | [1] | [0] | -2});\nembed([0, 0, 1]);\n"
     "iss([0, 0, 1], {[] | [-1] | [0] | 1});\nsplit([0, 0, 1, 0], 3);\nunembed([0, 0, 1, 0]);\n"
     "reorder([0, 0, 0], [1, 0]);\nsplit([0, 0, 0, 0], 3);\nreorder([0, 0], [0, 3, 1, 2]);\n"
     "split([0, 0, 1], 2);\nsplit([0, 1, 0], 2);\nshift([0, 1], 3, {}, 2);\n"
     "unembed([0, 2, 0, 0]);\nstripmine([0, 2], 1, 5);\nreshape([0, 0, 2], 2, 1, 2);\n"
     "stripmine([0, 0], 2, 5);\nsplit([0, 0, 0, 1], 3);\nfuse([0, 0]);\n"
     "skew([0, 0, 0], 3, 1, 2);\nfuse([0, 0, 0]);\nfuse([0, 0, 0]);\n"
     "interchange([0, 0, 0, 2], 1, 2);\nreshape([0, 0, 0, 2], 1, 1, -1);\n"
     "reshape([0, 0, 0, 2], 1, 2, 1);\nstripmine([0, 1], 2, 5);\n"),
    ("mvt", 39132,
     "peel([1, 0], {0 | 2}); iss([1], {0 | | 1 | 6}); iss([1, 0], {-1 | | -1 | 4});"
     " collapse([1, 0]); tile([1, 3], 1, 1, 8); skew([1, 0, 1], 1, 2, -2);"
     " iss([1, 1], {0 | | 1 | 6}); collapse([1, 1]); tile([1], 1, 1, 4);",
     "iss([1, 0], {[] | [] | [1] | 6});\niss([1, 0], {[] | [0, 1] | [0] | 2});\n"
     "reorder([1, 0], [0, 3, 2, 1]);\nsplit([1, 0, 0], 2);\nsplit([1, 1, 0], 2);\n"
     "split([1, 2, 0], 2);\nunembed([1, 0, 0]);\nunembed([1, 2, 0]);\nunembed([1, 3, 0]);\n"
     "grain([1], 1, 17);\nstripmine([1], 1, 8);\ntile([1], 2, 1, 32);\nsplit([1, 0, 0, 2], 3);\n"
     "split([1, 0, 0, 1, 0], 3);\nreshape([1], 3, 1, 16);\n"),
]


@pytest.mark.parametrize("stem,seed,seq,want", CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_reshapes_of_loops_with_empty_parts_replay(stem, seed, seq, want):
    assert_recovered(stem, seq, want)


@pytest.mark.slow
@pytest.mark.parametrize("stem,seed,seq,want", SLOW_CASES,
                         ids=[f"{c[0]}-{c[1]}" for c in SLOW_CASES])
def test_slow_reshapes_of_loops_with_empty_parts_replay(stem, seed, seq, want):
    assert_recovered(stem, seq, want)


# --- the check reshape makes --------------------------------------------------------

#: lu's first ``i`` loop split at ``i <= -3`` (no instance), the inner loop
#: of its ``S0`` part unembedded: ``S0[i, j, k] -> [i, j]`` as written.
EMPTY_HALF = ("iss([0], {[] | [1] | [0] | 2}); split([0, 1], 1); split([0, 0, 0], 2); "
              "unembed([0, 0, 0, 0]);")


def test_an_empty_part_never_blocks_a_reshape_of_its_loop():
    s = _session("lu", EMPTY_HALF)
    r = next(r for r in s.current.schedule.relations if r.beta == (0, 0, 0))
    assert not r.map.is_injective()             # as written: k is free
    assert dates_unique(s.current, r)           # but it has no instance
    s.apply("reshape([0, 0, 0], 2, 3, -1);")    # refused before
    r = next(r for r in s.current.schedule.relations if r.beta == (0, 0, 0))
    assert dates_unique(s.current, r)


def test_a_reshape_that_merges_dates_is_still_refused():
    # on the half with the instances, S0's k - k = 0 merges the dates
    s = _session("lu", EMPTY_HALF)
    with pytest.raises(DirectiveError, match="several instances of S0 the same date"):
        s.apply("reshape([1, 0, 0], 3, 3, 1);")
    assert len(s.script) == EMPTY_HALF.count(";")    # session unchanged


def test_an_iterator_the_domain_fixes_counts_as_the_one_it_equals():
    # syrk's S0 runs j <= i: the half j >= i is the diagonal, where
    # (0, j) still tells the instances apart (the relation as written,
    # S0[i, j] -> [0, j], does not)
    s = _session("syrk", "iss([0, 0], {-1, 1 | | 0 | 0});")
    s.apply("reshape([0, 0, 1], 1, 1, 1);")         # refused before
    r = next(r for r in s.current.schedule.relations if r.beta == (0, 0, 1))
    assert not r.map.is_injective() and dates_unique(s.current, r)
    # on the other half (j < i), the same reshape merges the dates
    s = _session("syrk", "iss([0, 0], {-1, 1 | | 0 | 0});")
    with pytest.raises(DirectiveError, match="the same date"):
        s.apply("reshape([0, 0, 0], 1, 1, 1);")


# --- whitebox asks the same code --------------------------------------------------------

def _point_only(T):
    """``T`` with gemm's ``S0`` at ``(i, floor(j / 2), j)`` changed to
    ``(i, j - 2·floor(j / 2))``: full rank over the iterators, yet ``j``
    and ``j + 2`` share a date."""
    X = T.copy()
    r = next(x for x in X.rels if x.stmt == "S0")
    i, d, j = r.alphas
    r.alphas = [i, j - d.scale(2)]
    r.beta = r.beta[:3]
    return X, r


def test_the_oracle_asks_reshapes_check():
    T, oracle = _target_of("gemm", "stripmine([0, 0], 2, 2);")
    r = next(x for x in T.rels if x.stmt == "S0")
    assert oracle.unique(r, T.divs)
    X, bad = _point_only(T)
    keys = _recover._iter_keys(bad)
    assert _recover._rank([a.part("i") for a in bad.alphas], keys) == 2   # blind to it
    assert not oracle.unique(bad, X.divs)
    # the same answer as the directive's on the isl relation
    clay = oracle.schedule(X)
    rel = next(x for x in clay.relations if x.stmt == "S0")
    assert dates_unique(oracle.scop, rel) is False


def test_the_planner_sees_merged_dates_of_strip_mined_dimensions():
    T, oracle = _target_of("gemm", "stripmine([0, 0], 2, 2);")
    X, _ = _point_only(T)
    core = _recover._Core(Recorder(X), T, oracle)
    assert not core._unique((0,))
    assert _recover._Core(Recorder(T.copy()), T, oracle)._unique((0,))
    # an empty part counts as unique whatever its dimensions
    X, bad = _point_only(T)
    bad.empty = True
    assert _recover._Core(Recorder(X), T, oracle)._unique((0,))


# --- targets such reshapes make ----------------------------------------------------------

#: bicg: the peeled part ``i <= -13`` of the second nest has no instance;
#: the reshape makes its ``i`` loop ``i - i = 0`` (refused before), so its
#: chunk loop ``floor(i / 3)`` has no point loop left to be read from.
EMPTY_RESHAPED = ("stripmine([1], 1, 3); peel([1], {0, 0 | 4}); tile([0], 1, 1, 32); "
                  "reshape([1, 0], 2, 1, 1);")


def test_a_target_with_an_empty_part_reshaped_is_recovered():
    # the empty part is recovered with its statement's other dimensions:
    # the same dates for every instance
    assert_recovered("bicg", EMPTY_RESHAPED,
                     "peel([1], {0, 0 | 12});\nstripmine([2], 1, 3);\nstripmine([1], 1, 3);\n"
                     "stripmine([0], 1, 32);\n")


def test_empty_parts_take_the_dimensions_of_the_nearest_part_with_instances():
    from clayx.whitebox import _plain_empty_parts
    T, _ = _target_of("bicg", EMPTY_RESHAPED)
    X = _plain_empty_parts(T)
    for r in T.rels:
        x = X.by_tag(r.tag)
        if r.empty:
            peer = next(y for y in T.rels if not y.empty and y.stmt == r.stmt)
            assert x.alphas == peer.alphas and x.beta == r.beta and x.cons == r.cons
        else:
            assert x.alphas == r.alphas
    assert any(r.empty and r.alphas != X.by_tag(r.tag).alphas for r in T.rels)
    # nothing to change: no empty part, or empty parts already alike
    assert _plain_empty_parts(X) is None
    T, _ = _target_of("bicg", "tile([0], 1, 1, 32);")
    assert _plain_empty_parts(T) is None


@pytest.mark.slow
@pytest.mark.parametrize("seed,sizes", [(60237, {"N": 13}), (40163, {"TSTEPS": 5, "N": 17}),
                                        (48069, {"N": 11, "M": 7}), (75142, {"N": 10})])
def test_recovered_reshape_script_runs_equal_to_the_original(tmp_path, seed, sizes):
    # the recovered script, applied to the original and compiled, prints
    # the original's output bit for bit
    stem, _, seq, _ = next(c for c in CASES + SLOW_CASES if c[1] == seed)
    assert_recovered_code_runs(tmp_path, stem, seq, sizes)
