"""Exact legality of transformed schedules (clayx.analysis.legality)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import islpy as isl
import pytest

from clayx.analysis import (Violation, check, check_parallel, dependences, is_legal,
                            parallel_violations, violations)
from clayx.errors import DirectiveError, LegalityError
from clayx.frontend.c import parse_file, parse_string
from clayx.model import ClaySchedule, Relation

from oracle import broken_pairs, ordered_pairs

EXAMPLES = sorted((Path(__file__).resolve().parent.parent / "examples").glob("*.c"))


# --- helpers ---------------------------------------------------------------------

def scop_of(body: str, params: str = "int N, int M"):
    """Parse a SCoP whose body is ``body`` (arrays are declared large)."""
    text = (f"void f({params}, double a[100][100], double b[100][100], "
            "double c[100][100], double x[100], double y[100], double z[100]) {\n"
            f"#pragma scop\n{body}\n#pragma endscop\n}}\n")
    return parse_string(text)[0]


def with_rels(scop, *rels):
    """``scop`` with a schedule made of ``rels``: (stmt, β, α list[, constraints])
    tuples, or ready :class:`Relation` objects."""
    out = []
    for r in rels:
        if isinstance(r, Relation):
            out.append(r)
            continue
        stmt, beta, alphas, *cons = r
        out.append(Relation.build(scop.statement(stmt).domain, tuple(beta), alphas,
                                  cons[0] if cons else ""))
    return dataclasses.replace(scop, schedule=ClaySchedule(tuple(out)))


def with_maps(scop, *texts):
    """``scop`` with a schedule given as isl map texts (one relation each)."""
    return dataclasses.replace(scop, schedule=ClaySchedule(tuple(
        Relation.from_map(isl.Map(t)) for t in texts)))


def only(vs: list[Violation]) -> Violation:
    assert len(vs) == 1, [str(v) for v in vs]
    return vs[0]


SHIFT = "for (int i = 1; i < N; i++)\n  x[i] = x[i-1] + 1;"
COPY = "for (int i = 0; i < N; i++)\n  x[i] = y[i];"
DIAG = ("for (int i = 1; i < N; i++)\n  for (int j = 0; j < M - 1; j++)\n"
        "    a[i][j] = a[i-1][j+1];")
VERT = ("for (int i = 1; i < N; i++)\n  for (int j = 0; j < M; j++)\n"
        "    a[i][j] = a[i-1][j];")


# --- original schedules ---------------------------------------------------------

@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_examples_original_schedule_legal(path):
    s = parse_file(path)[0]
    deps = dependences(s)
    assert violations(s, deps) == []
    assert is_legal(s, deps)
    assert check(s, deps) is None


# --- reversal ---------------------------------------------------------------------

def test_reverse_flow_chain_illegal():
    s = scop_of(SHIFT)
    t = with_rels(s, ("S0", (0, 0), ["-i"]))
    v = only(violations(t))
    assert (v.dependence.kind, v.dependence.array) == ("RAW", "x")
    assert (v.dimension, v.depth, v.kind) == (2, 1, "reversed")
    w = v.witness
    assert w["sink"][0] == w["source"][0] + 1
    assert w["params"]["N"] == 3 and w["source"] == (1,)      # smallest sizes
    assert v.source_date == (0, -1, 0) and v.sink_date == (0, -2, 0)
    assert v.pairs.is_equal(v.dependence.relation)
    assert str(v) == ("RAW on x: S0 (x[i] = x[i-1] + 1;) -> S0 (same): at α1 "
                      "(dimension 2) the sink runs before the source; e.g. N = 3: "
                      "S0[i=1] -> S0[i=2], dates [0, -1, 0] -> [0, -2, 0]")
    assert not is_legal(t)


def test_reverse_independent_loop_legal():
    s = scop_of(COPY)
    assert violations(with_rels(s, ("S0", (0, 0), ["-i"]))) == []


# --- interchange, strip-mining, tiling ---------------------------------------------

def test_interchange_diagonal_illegal_vertical_legal():
    s = scop_of(DIAG)
    v = only(violations(with_rels(s, ("S0", (0, 0, 0), ["j", "i"]))))
    assert (v.dimension, v.depth, v.kind) == (2, 1, "reversed")
    (i, j), (i2, j2) = v.witness["source"], v.witness["sink"]
    assert (i2, j2) == (i + 1, j - 1)
    assert v.source_date[1] > v.sink_date[1]
    s = scop_of(VERT)
    assert violations(with_rels(s, ("S0", (0, 0, 0), ["j", "i"]))) == []


def test_stripmine_interchange_stencil_illegal_until_skewed():
    # tile([0,0], 2, 1, 4): j strip-mined by 4, the tile loop moved outside i;
    # the tile index t is an implicit α dimension (bounded, not defined)
    s = scop_of(DIAG)
    tiled = with_maps(s, "[N, M] -> { S0[i, j] -> [0, t, 0, i, 0, j, 0] : "
                         "4t <= j <= 4t + 3 }")
    v = only(violations(tiled))
    assert (v.dimension, v.depth, v.kind) == (2, 1, "reversed")
    (i, j), (i2, j2) = v.witness["source"], v.witness["sink"]
    assert j % 4 == 0 and (i2, j2) == (i + 1, j - 1)        # crosses a tile edge
    assert v.source_date[1] == v.sink_date[1] + 1
    # skew first (j' = i + j): every dependence has distance (1, 0), so tiling is legal
    skewed = with_maps(s, "[N, M] -> { S0[i, j] -> [0, t, 0, i, 0, i + j, 0] : "
                          "4t <= i + j <= 4t + 3 }")
    assert violations(skewed) == []
    # plain interchange after the skew is legal too
    assert violations(with_rels(s, ("S0", (0, 0, 0), ["i + j", "i"]))) == []


# --- fusion, fission order, statement order ------------------------------------------

FUSE = ("for (int i = 0; i < N; i++)\n  x[i] = y[i];\n"
        "for (int i = 0; i < N - 1; i++)\n  z[i] = x[i+1];")


def test_fusion_breaking_flow_is_illegal_and_shift_fixes_it():
    s = scop_of(FUSE)
    assert violations(s) == []
    fused = with_rels(s, ("S0", (0, 0), ["i"]), ("S1", (0, 1), ["i"]))
    v = only(violations(fused))
    assert (v.dependence.kind, v.dependence.source, v.dependence.sink) == ("RAW", "S0", "S1")
    assert (v.dimension, v.depth, v.kind) == (2, 1, "reversed")
    assert v.witness["source"][0] == v.witness["sink"][0] + 1
    # S1 one iteration later: S1[i] runs at i + 1, after S0[i + 1] (β 0 < 1)
    shifted = with_rels(s, ("S0", (0, 0), ["i"]), ("S1", (0, 1), ["i + 1"]))
    assert violations(shifted) == []
    # the other order at the same shift ties α and β decides against: illegal
    swapped = with_rels(s, ("S0", (0, 1), ["i"]), ("S1", (0, 0), ["i + 1"]))
    v = only(violations(swapped))
    assert (v.dimension, v.depth, v.kind) == (3, None, "reversed")


def test_statement_reorder_breaks_raw_at_beta():
    s = scop_of("for (int i = 0; i < N; i++) {\n  x[i] = y[i];\n  z[i] = x[i];\n}")
    t = with_rels(s, ("S0", (0, 1), ["i"]), ("S1", (0, 0), ["i"]))
    v = only(violations(t))
    assert (v.dependence.kind, v.dimension, v.depth, v.kind) == ("RAW", 3, None, "reversed")
    assert v.witness["source"] == v.witness["sink"]
    # two loops swapped: the order breaks at β0
    s = scop_of(FUSE)
    v = only(violations(with_rels(s, ("S0", (1, 0), ["i"]), ("S1", (0, 0), ["i"]))))
    assert (v.dimension, v.depth, v.kind) == (1, None, "reversed")


def test_same_date_is_tied():
    s = scop_of(SHIFT)
    v = only(violations(with_rels(s, ("S0", (0, 0), ["0"]))))
    assert v.kind == "tied" and v.depth is None and v.dimension == 3
    assert v.source_date == v.sink_date
    # dropping a loop: the reduction's instances share dates
    s = scop_of("for (int i = 0; i < N; i++)\n  for (int j = 0; j < M; j++)\n"
                "    x[i] = x[i] + y[j];")
    t = with_rels(s, ("S0", (0, 0), ["i"]))
    vs = violations(t)
    assert vs and all(v.kind == "tied" for v in vs)
    assert {v.dependence.kind for v in vs} == {"RAW", "WAR", "WAW"}


def test_index_set_split_relations():
    s = scop_of(SHIFT)
    d = s.statement("S0").domain
    legal = with_rels(s, Relation.build(d, (0, 0), ["i"], "i < 5"),
                      Relation.build(d, (1, 0), ["i"], "i >= 5"))
    assert violations(legal) == []
    bad = with_rels(s, Relation.build(d, (1, 0), ["i"], "i < 5"),
                    Relation.build(d, (0, 0), ["i"], "i >= 5"))
    v = only(violations(bad))
    assert (v.dimension, v.kind) == (1, "reversed")
    assert v.witness["source"] == (4,) and v.witness["sink"] == (5,)
    assert v.pairs.is_equal(isl.Map("[N] -> { S0[4] -> S0[5] : N >= 6 }"))


def test_repeated_references_share_the_result_and_order_is_stable():
    s = scop_of("for (int i = 1; i < N; i++) {\n  x[i] = x[i-1] + x[i-1];\n"
                "  y[i] = y[i-1];\n}")
    t = with_rels(s, ("S0", (0, 0), ["-i"]), ("S1", (0, 1), ["-i"]))
    vs = violations(t)
    assert [(v.dependence.source, v.dependence.array) for v in vs] == \
        [("S0", "x"), ("S0", "x"), ("S1", "y")]
    assert vs[0].dependence.sink_ref != vs[1].dependence.sink_ref
    assert vs[0].pairs is vs[1].pairs
    assert [str(v) for v in violations(t)] == [str(v) for v in vs]
    assert len(violations(t, limit=1)) == 1


def _reversed(s, loops=(1,)):
    """``s`` with the α dimensions ``loops`` (1-based) of every relation
    negated (the loops at those depths run backwards)."""
    rels = []
    for r in s.schedule:
        m = r.map
        n = m.dim(isl.dim_type.out)
        xs = [f"x{k}" for k in range(n)]
        neg = isl.Map(f"{{ [{', '.join(xs)}] -> [{', '.join(('-' + x) if k in {2 * d - 1 for d in loops} and (k + 1) // 2 <= r.depth else x for k, x in enumerate(xs))}] }}")
        rels.append(Relation(r.stmt, r.beta, m.apply_range(neg)))
    return dataclasses.replace(s, schedule=ClaySchedule(tuple(rels)))


def _pairs_at(vs, params):
    """The (source, sink) instance pairs of violations at fixed parameters."""
    out = set()
    for v in vs:
        m = v.pairs
        for k in range(m.dim(isl.dim_type.param)):
            m = m.fix_val(isl.dim_type.param, k, params[m.get_dim_name(isl.dim_type.param, k)])
        src, snk = v.dependence.source, v.dependence.sink
        n = m.dim(isl.dim_type.in_)

        def one(p, src=src, snk=snk, n=n, d=m.wrap().dim(isl.dim_type.set)):
            vals = tuple(int(p.get_coordinate_val(isl.dim_type.set, k).to_python())
                         for k in range(d))
            out.add(((src, vals[:n]), (snk, vals[n:])))
        m.wrap().foreach_point(one)
    return out


@pytest.mark.parametrize("name, loops", [("jacobi-2d", (1,)), ("lu", (1,)),
                                         ("fdtd-2d", (1,)), ("atax", (1,)),
                                         ("seidel-2d", (2,)), ("gemm", (3,)),
                                         ("jacobi-1d", (2,))])
def test_agrees_with_a_concrete_run(name, loops):
    """The violating pairs, at small sizes, are exactly those a run of the
    program finds in the wrong order (:mod:`oracle`, no clayx analysis)."""
    s = parse_file(EXAMPLES[0].parent / f"{name}.c")[0]
    t = _reversed(s, loops)
    params = {p: 4 for p in s.params}
    assert ordered_pairs(s, params)
    expected = broken_pairs(s, t, params)
    vs = violations(t)
    assert _pairs_at(vs, params) == expected
    assert bool(expected) == (not is_legal(t))
    assert broken_pairs(s, s, params) == set() and is_legal(s)


def test_fresh_scop_judged_by_its_original_order():
    """Regression (issue 8): with a SCoP no one had asked about, the
    reversed chain was judged against dependences computed *in the reversed
    order* (the first schedule a cache saw), so it passed as legal."""
    s = scop_of(SHIFT)
    t = with_rels(s, ("S0", (0, 0), ["-i"]))
    assert not is_legal(t)                 # before anything asked about ``s``
    assert len(violations(t)) == 1
    with pytest.raises(LegalityError):
        check(t)
    assert dependences(t) is dependences(s)
    assert dependences(s).schedule is s.schedule
    assert not is_legal(t)
    # a SCoP built from the transformed one keeps the original program
    u = with_rels(t, ("S0", (0, 0), ["i"]))
    assert is_legal(u) and u.origin is s.origin


# --- check / LegalityError -----------------------------------------------------------

def test_check_raises_with_message():
    s = scop_of(SHIFT)
    t = with_rels(s, ("S0", (0, 0), ["-i"]))
    with pytest.raises(LegalityError) as e:
        check(t, directive="reverse([0], 1)")
    msg = str(e.value)
    assert msg.startswith("reverse([0], 1) is illegal: it breaks 1 dependence\n")
    for part in ("RAW", "on x", "S0 (x[i] = x[i-1] + 1;)", "α1", "dimension 2",
                 "N = 3", "S0[i=1] -> S0[i=2]", "[0, -1, 0] -> [0, -2, 0]"):
        assert part in msg
    assert e.value.total == 1 and len(e.value.violations) == 1
    assert e.value.directive == "reverse([0], 1)"
    assert check(s) is None


def test_check_shows_at_most_max_shown():
    s = scop_of("for (int i = 1; i < N; i++) {\n  x[i] = x[i-1];\n  y[i] = y[i-1];\n"
                "  z[i] = z[i-1];\n}")
    t = with_rels(s, ("S0", (0, 0), ["-i"]), ("S1", (0, 1), ["-i"]),
                  ("S2", (0, 2), ["-i"]))
    with pytest.raises(LegalityError) as e:
        check(t, directive="reverse([0], 1)", max_shown=2)
    assert e.value.total == 3
    assert "it breaks 3 dependences" in str(e.value)
    assert str(e.value).endswith("... and 1 more")
    assert str(e.value).count("\n  RAW") == 2


# --- parallel loops -----------------------------------------------------------------

MATMUL = ("for (int i = 0; i < N; i++)\n  for (int j = 0; j < N; j++)\n"
          "    for (int k = 0; k < M; k++)\n      a[i][j] += b[i][k] * c[k][j];")


def test_parallel_reduction():
    s = scop_of(MATMUL)
    assert parallel_violations(s, (0,)) == []
    assert parallel_violations(s, (0, 0)) == []
    assert parallel_violations(s, (0, 0, 0), 2) == []
    vs = parallel_violations(s, (0, 0, 0))
    assert vs and all(v.kind == "carried" and v.depth == 3 and v.dimension == 6
                      for v in vs)
    v = vs[0]
    assert v.witness["source"][:2] == v.witness["sink"][:2]
    assert v.witness["source"][2] != v.witness["sink"][2]
    with pytest.raises(LegalityError) as e:
        check_parallel(s, (0, 0, 0))
    msg = str(e.value)
    assert "parallelize is illegal: the loop [0, 0, 0] carries" in msg
    assert "on a" in msg and "α3 (dimension 6)" in msg and "k=" in msg
    assert check_parallel(s, (0, 0)) is None


def test_parallel_chain_and_stencil():
    s = scop_of(SHIFT)
    v = only(parallel_violations(s, (0,)))
    assert v.witness["sink"][0] == v.witness["source"][0] + 1
    s = scop_of("for (int i = 1; i < N; i++)\n  for (int j = 1; j < M - 1; j++)\n"
                "    a[i][j] = a[i-1][j-1] + a[i-1][j+1];")
    assert parallel_violations(s, (0, 0)) == []
    assert parallel_violations(s, (0,))
    # dependences inside one iteration do not prevent parallelism
    s = scop_of("for (int i = 0; i < N; i++) {\n  x[i] = y[i];\n  z[i] = x[i];\n}")
    assert parallel_violations(s, (0,)) == []
    # after interchange the stencil's inner loop (now i) carries it
    s = scop_of(VERT)
    t = with_rels(s, ("S0", (0, 0, 0), ["j", "i"]))
    assert parallel_violations(t, (0,)) == []
    assert parallel_violations(t, (0, 0))


def test_parallel_only_counts_statements_under_the_loop():
    s = scop_of("for (int i = 0; i < N; i++)\n  x[i] = y[i];\n"
                "for (int i = 0; i < N; i++)\n  z[i] = x[N - 1 - i];")
    assert parallel_violations(s, (0,)) == []
    assert parallel_violations(s, (1,)) == []


def test_parallel_bad_target():
    s = scop_of(SHIFT)
    with pytest.raises(DirectiveError):
        parallel_violations(s, (3,))
    with pytest.raises(DirectiveError):
        parallel_violations(s, (0, 0))          # a statement, not a loop
    with pytest.raises(DirectiveError):
        parallel_violations(s, (0,), 2)
