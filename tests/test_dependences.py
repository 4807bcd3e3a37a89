"""Exact dependences (clayx.analysis.dependences) on hand-built SCoPs."""

from __future__ import annotations

import dataclasses
import os

import islpy as isl
import pytest

from clayx.analysis import (Dependence, Dependences, carried_depth, compute_dependences,
                            dependences, violations)
from clayx.model import (MAY_WRITE, READ, WRITE, Access, Array, ClaySchedule,
                         Relation, Scop, Statement)


# --- a tiny SCoP builder -------------------------------------------------------

def make_scop(params: str, stmts, context: str = "") -> Scop:
    """``stmts``: (name, domain text, β-vector, α expressions, accesses), each
    access (kind, "S[i] -> A[i]" text, C text).  ``params`` like "[N]"."""
    ctx_text = f"{params} -> {{ : {context} }}" if context else f"{params} -> {{ : }}"
    ctx = isl.Set(ctx_text)
    statements, relations, arrays = [], [], {}
    for name, dom, beta, alphas, accs in stmts:
        domain = isl.Set(f"{params} -> {{ {dom} }}")
        its = tuple(domain.get_dim_name(isl.dim_type.set, k)
                    for k in range(domain.dim(isl.dim_type.set)))
        accesses = []
        for k, (kind, rel, text) in enumerate(accs):
            m = isl.Map(f"{params} -> {{ {rel} }}")
            arr = m.get_tuple_name(isl.dim_type.out)
            arrays.setdefault(arr, Array(arr, m.dim(isl.dim_type.out)))
            accesses.append(Access(kind, arr, m, text, f"{name}_r{k}"))
        statements.append(Statement(name, domain, its, "", tuple(accesses)))
        relations.append(Relation.build(domain, tuple(beta), alphas))
    return Scop(tuple(p.strip() for p in params.strip("[]").split(",") if p.strip()),
                ctx, tuple(statements), tuple(arrays.values()),
                ClaySchedule(tuple(relations)))


def M(text: str) -> isl.Map:
    return isl.Map(text)


def only(deps, **kw) -> Dependence:
    sel = [d for d in deps if all(getattr(d, k) == v for k, v in kw.items())]
    assert len(sel) == 1, (kw, [str(d) for d in deps])
    return sel[0]


def same(dep: Dependence, text: str) -> None:
    assert dep.relation.is_equal(M(text)), f"{dep}\n  expected {text}"


# --- the kernels ------------------------------------------------------------------

def shift_scop() -> Scop:
    """for (i = 1; i < N; i++) a[i] = a[i-1];"""
    return make_scop("[N]", [
        ("S0", "S0[i] : 1 <= i < N", (0, 0), ["i"],
         [(READ, "S0[i] -> a[i - 1]", "a[i-1]"), (WRITE, "S0[i] -> a[i]", "a[i]")]),
    ])


def two_stmt_scop(offset: int) -> Scop:
    """for (i = 1; i < N - 1; i++) { a[i] = b[i]; b[i] = a[i + offset]; }"""
    return make_scop("[N]", [
        ("S0", "S0[i] : 1 <= i < N - 1", (0, 0), ["i"],
         [(READ, "S0[i] -> b[i]", "b[i]"), (WRITE, "S0[i] -> a[i]", "a[i]")]),
        ("S1", "S1[i] : 1 <= i < N - 1", (0, 1), ["i"],
         [(READ, f"S1[i] -> a[i + {offset}]", "a[i+o]"), (WRITE, "S1[i] -> b[i]", "b[i]")]),
    ])


def scalar_scop() -> Scop:
    """for (i = 0; i < N; i++) { x = A[i]; B[i] = x; }"""
    return make_scop("[N]", [
        ("S0", "S0[i] : 0 <= i < N", (0, 0), ["i"],
         [(READ, "S0[i] -> A[i]", "A[i]"), (WRITE, "S0[i] -> x[]", "x")]),
        ("S1", "S1[i] : 0 <= i < N", (0, 1), ["i"],
         [(READ, "S1[i] -> x[]", "x"), (WRITE, "S1[i] -> B[i]", "B[i]")]),
    ])


def may_scop(middle_kind: str) -> Scop:
    """for (i = 0; i < N; i++) { x = A[i]; if (A[i] > 0) x = 0; B[i] = x; }"""
    return make_scop("[N]", [
        ("S0", "S0[i] : 0 <= i < N", (0, 0), ["i"],
         [(READ, "S0[i] -> A[i]", "A[i]"), (WRITE, "S0[i] -> x[]", "x")]),
        ("S1", "S1[i] : 0 <= i < N", (0, 1), ["i"],
         [(READ, "S1[i] -> A[i]", "A[i]"), (middle_kind, "S1[i] -> x[]", "x")]),
        ("S2", "S2[i] : 0 <= i < N", (0, 2), ["i"],
         [(READ, "S2[i] -> x[]", "x"), (WRITE, "S2[i] -> B[i]", "B[i]")]),
    ])


def matmul_scop() -> Scop:
    """for i, j: { C[i][j] = 0; for k: C[i][j] += A[i][k] * B[k][j]; }"""
    return make_scop("[NI, NJ, NK]", [
        ("S0", "S0[i, j] : 0 <= i < NI and 0 <= j < NJ", (0, 0, 0), ["i", "j"],
         [(WRITE, "S0[i, j] -> C[i, j]", "C[i][j]")]),
        ("S1", "S1[i, j, k] : 0 <= i < NI and 0 <= j < NJ and 0 <= k < NK",
         (0, 0, 1, 0), ["i", "j", "k"],
         [(READ, "S1[i, j, k] -> C[i, j]", "C[i][j]"),
          (READ, "S1[i, j, k] -> A[i, k]", "A[i][k]"),
          (READ, "S1[i, j, k] -> B[k, j]", "B[k][j]"),
          (WRITE, "S1[i, j, k] -> C[i, j]", "C[i][j]")]),
    ])


def adi_like_scop() -> Scop:
    """4 statements in 2 nests under a time loop (an adi-like sweep)."""
    d2 = "0 <= t < T and 1 <= i < N - 1 and 1 <= j < N - 1"
    return make_scop("[T, N]", [
        ("S0", f"S0[t, i] : 0 <= t < T and 1 <= i < N - 1", (0, 0, 0), ["t", "i"],
         [(WRITE, "S0[t, i] -> v[0, i]", "v[0][i]")]),
        ("S1", f"S1[t, i, j] : {d2}", (0, 0, 1, 0), ["t", "i", "j"],
         [(READ, "S1[t, i, j] -> p[i, j - 1]", ""), (READ, "S1[t, i, j] -> u[j, i - 1]", ""),
          (READ, "S1[t, i, j] -> u[j, i]", ""), (READ, "S1[t, i, j] -> u[j, i + 1]", ""),
          (READ, "S1[t, i, j] -> q[i, j - 1]", ""),
          (WRITE, "S1[t, i, j] -> p[i, j]", ""), (WRITE, "S1[t, i, j] -> q[i, j]", "")]),
        ("S2", f"S2[t, i] : 0 <= t < T and 1 <= i < N - 1", (0, 1, 0), ["t", "i"],
         [(WRITE, "S2[t, i] -> u[0, i]", "")]),
        ("S3", f"S3[t, i, j] : {d2}", (0, 1, 1, 0), ["t", "i", "j"],
         [(READ, "S3[t, i, j] -> v[i, j - 1]", ""), (READ, "S3[t, i, j] -> p[i, j - 1]", ""),
          (READ, "S3[t, i, j] -> q[i, j - 1]", ""), (READ, "S3[t, i, j] -> u[i - 1, j]", ""),
          (READ, "S3[t, i, j] -> u[i + 1, j]", ""),
          (WRITE, "S3[t, i, j] -> v[i, j]", ""), (WRITE, "S3[t, i, j] -> u[i, j]", "")]),
    ])


def heat3d_like_scop() -> Scop:
    """for t: { for i,j,k: B = stencil(A); for i,j,k: A = stencil(B); }"""
    d = "1 <= t <= T and 1 <= i < N - 1 and 1 <= j < N - 1 and 1 <= k < N - 1"
    out = []
    for name, beta, src, dst in (("S0", (0, 0, 0, 0, 0), "A", "B"),
                                 ("S1", (0, 1, 0, 0, 0), "B", "A")):
        reads = [(READ, f"{name}[t, i, j, k] -> {src}[{e}]", "")
                 for e in ("i + 1, j, k", "i, j, k", "i - 1, j, k", "i, j + 1, k",
                           "i, j - 1, k", "i, j, k + 1", "i, j, k - 1")]
        out.append((name, f"{name}[t, i, j, k] : {d}", beta, ["t", "i", "j", "k"],
                    reads + [(WRITE, f"{name}[t, i, j, k] -> {dst}[i, j, k]", "")]))
    return make_scop("[T, N]", out)


def adi_scop(with_scalars: bool = True) -> Scop:
    """PolyBench 4.2 adi: the scalar set-up (13 statements), then per time
    step a column and a row sweep of 7 statements each, with backward j loops
    (original α = -j)."""
    params, pre = "[TSTEPS, N]", []
    if with_scalars:
        defs = [("DX", []), ("DY", []), ("DT", []), ("B1", []), ("B2", []),
                ("mul1", ["B1", "DT", "DX"]), ("mul2", ["B2", "DT", "DY"]),
                ("a", ["mul1"]), ("b", ["mul1"]), ("c", ["mul1"]), ("d", ["mul2"]),
                ("e", ["mul2"]), ("f", ["mul2"])]
        for k, (w, rs) in enumerate(defs):
            n = f"P{k}"
            pre.append((n, f"{n}[]", (k,), [], [(READ, f"{n}[] -> {r}[]", "") for r in rs]
                        + [(WRITE, f"{n}[] -> {w}[]", "")]))
    b0 = len(pre)
    d2 = "1 <= t <= TSTEPS and 1 <= i < N - 1"
    d3 = d2 + " and 1 <= j < N - 1"
    stm = []
    for sweep, (V, U, c1, c2, c3) in enumerate([("v", "u", "a", "b", "c"),
                                                ("u", "v", "d", "e", "f")]):
        s = [f"S{7 * sweep + k}" for k in range(7)]
        el = (lambda r, c: f"{r}, {c}") if sweep == 0 else (lambda r, c: f"{c}, {r}")

        def acc(n, kind, dims, arr):
            return (kind, f"{n}[{dims}] -> {arr}", "")

        def sc(n, names):
            return [acc(n, READ, "t, i, j", f"{x}[]") for x in names] if with_scalars else []
        stm += [
            (s[0], f"{s[0]}[t, i] : {d2}", (b0, sweep, 0), ["t", "i"],
             [acc(s[0], WRITE, "t, i", f"{V}[{el('0', 'i')}]")]),
            (s[1], f"{s[1]}[t, i] : {d2}", (b0, sweep, 1), ["t", "i"],
             [acc(s[1], WRITE, "t, i", "p[i, 0]")]),
            (s[2], f"{s[2]}[t, i] : {d2}", (b0, sweep, 2), ["t", "i"],
             [acc(s[2], READ, "t, i", f"{V}[{el('0', 'i')}]"),
              acc(s[2], WRITE, "t, i", "q[i, 0]")]),
            (s[3], f"{s[3]}[t, i, j] : {d3}", (b0, sweep, 3, 0), ["t", "i", "j"],
             sc(s[3], [c1, c2, c3]) + [acc(s[3], READ, "t, i, j", "p[i, j - 1]"),
                                       acc(s[3], WRITE, "t, i, j", "p[i, j]")]),
            (s[4], f"{s[4]}[t, i, j] : {d3}", (b0, sweep, 3, 1), ["t", "i", "j"],
             sc(s[4], [c1, c2, c3]) + [
                 acc(s[4], READ, "t, i, j", f"{U}[{el('j', 'i - 1')}]"),
                 acc(s[4], READ, "t, i, j", f"{U}[{el('j', 'i')}]"),
                 acc(s[4], READ, "t, i, j", f"{U}[{el('j', 'i + 1')}]"),
                 acc(s[4], READ, "t, i, j", "q[i, j - 1]"),
                 acc(s[4], READ, "t, i, j", "p[i, j - 1]"),
                 acc(s[4], WRITE, "t, i, j", "q[i, j]")]),
            (s[5], f"{s[5]}[t, i] : {d2}", (b0, sweep, 4), ["t", "i"],
             [acc(s[5], WRITE, "t, i", f"{V}[{el('N - 1', 'i')}]")]),
            (s[6], f"{s[6]}[t, i, j] : {d3}", (b0, sweep, 5, 0), ["t", "i", "-j"],
             [acc(s[6], READ, "t, i, j", "p[i, j]"),
              acc(s[6], READ, "t, i, j", f"{V}[{el('j + 1', 'i')}]"),
              acc(s[6], READ, "t, i, j", "q[i, j]"),
              acc(s[6], WRITE, "t, i, j", f"{V}[{el('j', 'i')}]")]),
        ]
    return make_scop(params, pre + stm)


ALL = [shift_scop, lambda: two_stmt_scop(1), lambda: two_stmt_scop(-1), scalar_scop,
       lambda: may_scop(MAY_WRITE), lambda: may_scop(WRITE), matmul_scop,
       adi_like_scop, heat3d_like_scop, adi_scop]


# --- tests --------------------------------------------------------------------------

def test_shift_one_raw_distance_1():
    scop = shift_scop()
    deps = compute_dependences(scop)
    assert deps.counts() == {"RAW": 1, "WAR": 0, "WAW": 0, "RAR": 0}
    d = deps.all[0]
    assert (d.kind, d.source, d.sink, d.array) == ("RAW", "S0", "S0", "a")
    assert (d.source_ref, d.sink_ref) == ("S0_r1", "S0_r0")
    same(d, "[N] -> { S0[i] -> S0[i + 1] : 1 <= i < N - 1 }")
    assert d.is_uniform and d.distance() == (1,)
    assert d.direction() == ("<",)
    assert carried_depth(d, scop.schedule) == 1
    assert str(d).startswith("RAW S0 -> S0 on a: [N] -> { S0[i] -> S0[")


def test_two_statements_no_raw_when_reading_ahead():
    # a[i] = b[i]; b[i] = a[i+1]: a[i+1] is written later, b[i] was read before
    scop = two_stmt_scop(1)
    deps = compute_dependences(scop)
    assert deps.counts() == {"RAW": 0, "WAR": 2, "WAW": 0, "RAR": 0}
    same(only(deps, kind="WAR", array="b", source="S0", sink="S1"),
         "[N] -> { S0[i] -> S1[i] : 1 <= i < N - 1 }")
    war_a = only(deps, kind="WAR", array="a", source="S1", sink="S0")
    same(war_a, "[N] -> { S1[i] -> S0[i + 1] : 1 <= i < N - 2 }")
    assert war_a.distance() == (1,)
    assert carried_depth(war_a, scop.schedule) == 1
    war_b = only(deps, kind="WAR", array="b")
    assert war_b.distance() == (0,) and war_b.direction() == ("=",)
    assert carried_depth(war_b, scop.schedule) == 0


def test_two_statements_raw_when_reading_behind():
    # a[i] = b[i]; b[i] = a[i-1]
    scop = two_stmt_scop(-1)
    deps = compute_dependences(scop)
    assert deps.counts() == {"RAW": 1, "WAR": 1, "WAW": 0, "RAR": 0}
    raw = only(deps, kind="RAW")
    assert (raw.source, raw.sink, raw.array) == ("S0", "S1", "a")
    assert (raw.source_ref, raw.sink_ref) == ("S0_r1", "S1_r0")
    same(raw, "[N] -> { S0[i] -> S1[i + 1] : 1 <= i < N - 2 }")
    assert raw.distance() == (1,)
    same(only(deps, kind="WAR"), "[N] -> { S0[i] -> S1[i] : 1 <= i < N - 1 }")
    assert deps.between("S0", "S1") == deps.all
    assert deps.between("S1", "S0") == ()
    assert [d.kind for d in deps.on_array("b")] == ["WAR"]


def test_scalar_value_based_flow():
    scop = scalar_scop()
    deps = compute_dependences(scop)
    # RAR: the reads of x by S1 at i and i + 1 (no kill between reads)
    assert deps.counts() == {"RAW": 1, "WAR": 1, "WAW": 1, "RAR": 1}
    raw = only(deps, kind="RAW")
    # only the same i, not every earlier write of x
    same(raw, "[N] -> { S0[i] -> S1[i] : 0 <= i < N }")
    assert raw.array == "x" and carried_depth(raw, scop.schedule) == 0
    waw = only(deps, kind="WAW")
    same(waw, "[N] -> { S0[i] -> S0[i + 1] : 0 <= i < N - 1 }")
    assert carried_depth(waw, scop.schedule) == 1
    war = only(deps, kind="WAR")
    same(war, "[N] -> { S1[i] -> S0[i + 1] : 0 <= i < N - 1 }")
    assert (war.source, war.sink, war.array) == ("S1", "S0", "x")
    assert carried_depth(war, scop.schedule) == 1


def test_may_write_does_not_kill():
    deps = compute_dependences(may_scop(MAY_WRITE))
    raws = deps.of_kind("RAW")
    assert {(d.source, d.sink) for d in raws} == {("S0", "S2"), ("S1", "S2")}
    same(only(raws, source="S0"), "[N] -> { S0[i] -> S2[i] : 0 <= i < N }")
    # the must-write S0 of the next iteration does kill the may-write
    waw = deps.of_kind("WAW")
    assert {(d.source, d.sink) for d in waw} == {("S0", "S1"), ("S1", "S0"), ("S0", "S0")}
    same(only(waw, source="S0", sink="S0"), "[N] -> { S0[i] -> S0[i + 1] : 0 <= i < N - 1 }")
    # a must-write in the middle kills
    deps = compute_dependences(may_scop(WRITE))
    assert {(d.source, d.sink) for d in deps.of_kind("RAW")} == {("S1", "S2")}
    assert {(d.source, d.sink) for d in deps.of_kind("WAW")} == {("S0", "S1"), ("S1", "S0")}
    # RAR on A between S0 and S1 (same i), distance 0
    rar = only(deps.of_kind("RAR"), array="A")
    same(rar, "[N] -> { S0[i] -> S1[i] : 0 <= i < N }")


def test_matmul_reduction():
    scop = matmul_scop()
    deps = compute_dependences(scop)
    inner = [d for d in deps.on_array("C") if d.source == d.sink == "S1"
             and d.kind != "RAR"]
    assert sorted(d.kind for d in inner) == ["RAW", "WAR", "WAW"]
    for d in inner:
        assert d.distance() == (0, 0, 1), str(d)
        assert d.direction() == ("=", "=", "<")
        assert carried_depth(d, scop.schedule) == 3
        same(d, "[NI, NJ, NK] -> { S1[i, j, k] -> S1[i, j, k + 1] : 0 <= i < NI and "
                "0 <= j < NJ and 0 <= k < NK - 1 }")
    # the init flows to the first k only, and is overwritten by it
    raw0 = only(deps, kind="RAW", source="S0")
    same(raw0, "[NI, NJ, NK] -> { S0[i, j] -> S1[i, j, 0] : 0 <= i < NI and 0 <= j < NJ "
               "and NK > 0 }")
    assert raw0.common == 2 and raw0.distance() == (0, 0)
    assert carried_depth(raw0, scop.schedule) == 0
    waw0 = only(deps, kind="WAW", source="S0")
    assert waw0.relation.is_equal(raw0.relation)
    assert not deps.of_kind("WAR") or all(d.sink == "S1" for d in deps.of_kind("WAR"))
    # RAR on A (carried by j), on B (carried by i)
    rar_a = only(deps, kind="RAR", array="A")
    assert rar_a.distance() == (0, 1, 0) and carried_depth(rar_a, scop.schedule) == 2
    rar_b = only(deps, kind="RAR", array="B")
    assert rar_b.distance() == (1, 0, 0) and carried_depth(rar_b, scop.schedule) == 1
    # views
    v = deps.validity()
    assert v.is_equal(deps.union_map("RAW", "WAR", "WAW"))
    assert v.union(deps.union_map("RAR")).is_equal(deps.union_map())
    assert len(deps) == sum(deps.counts().values()) == len(list(deps))


def test_non_uniform_and_direction():
    # for i: for j: a[i + j] = a[i + j] + 1 (every earlier (i', j') with same sum)
    scop = make_scop("[N]", [
        ("S0", "S0[i, j] : 0 <= i < N and 0 <= j < N", (0, 0, 0), ["i", "j"],
         [(READ, "S0[i, j] -> a[i + j]", ""), (WRITE, "S0[i, j] -> a[i + j]", "")]),
    ])
    deps = compute_dependences(scop)
    raw = only(deps, kind="RAW")
    same(raw, "[N] -> { S0[i, j] -> S0[i + 1, j - 1] : 0 <= i < N - 1 and 1 <= j < N }")
    assert raw.distance() == (1, -1) and raw.direction() == ("<", ">")
    # parametric distance is not uniform
    scop = make_scop("[N]", [
        ("S0", "S0[i] : 0 <= i < 2N", (0, 0), ["i"],
         [(READ, "S0[i] -> a[i]", ""), (WRITE, "S0[i] -> a[i + N]", "")]),
    ], context="N > 0")
    raw = only(compute_dependences(scop), kind="RAW")
    assert not raw.is_uniform and raw.distance() is None
    assert raw.direction() == ("<",)


def test_carried_at_several_depths():
    # for i, j: a[j] = a[j] + a[j - 1]: the read of a[j-1] sees the write of
    # (i, j-1) for j > 0 (depth 2), the read of a[j] the one of (i-1, j) (depth 1)
    scop = make_scop("[N]", [
        ("S0", "S0[i, j] : 0 <= i < N and 0 <= j < N", (0, 0, 0), ["i", "j"],
         [(READ, "S0[i, j] -> a[j]", ""), (READ, "S0[i, j] -> a[j - 1]", ""),
          (WRITE, "S0[i, j] -> a[j]", "")]),
    ])
    deps = compute_dependences(scop)
    r0 = only(deps, kind="RAW", sink_ref="S0_r0")
    r1 = only(deps, kind="RAW", sink_ref="S0_r1")
    assert r0.distance() == (1, 0) and carried_depth(r0, scop.schedule) == 1
    assert r1.distance() == (0, 1) and carried_depth(r1, scop.schedule) == 2
    # one relation carried at both depths: the outermost loop
    both = dataclasses.replace(r0, relation=r0.relation.union(r1.relation))
    assert carried_depth(both, scop.schedule) == 1
    assert not both.is_uniform and both.direction() == ("<=", "<=")


def test_zero_dimensional_statements():
    # x = 1; if (c) x = 2; y = x;  (no loop)
    scop = make_scop("[]", [
        ("S0", "S0[]", (0,), [], [(WRITE, "S0[] -> x[]", "x")]),
        ("S1", "S1[]", (1,), [], [(MAY_WRITE, "S1[] -> x[]", "x")]),
        ("S2", "S2[]", (2,), [], [(READ, "S2[] -> x[]", "x"), (WRITE, "S2[] -> y[]", "y")]),
    ])
    deps = compute_dependences(scop)
    assert {(d.kind, d.source, d.sink) for d in deps} == {
        ("RAW", "S0", "S2"), ("RAW", "S1", "S2"), ("WAW", "S0", "S1")}
    for d in deps:
        assert d.distance() == () and d.direction() == ()
        assert carried_depth(d, scop.schedule) == 0


@pytest.mark.parametrize("make", ALL)
def test_original_schedule_is_legal(make):
    scop = make()
    deps = compute_dependences(scop)
    assert len(deps) > 0
    for d in deps:
        assert not d.relation.is_empty()
        assert d.relation.get_space().get_var_names(isl.dim_type.param) == list(scop.params)
        assert carried_depth(d, scop.schedule) is not None
    assert violations(scop, deps) == []


def test_reversed_loop_is_violated():
    scop = shift_scop()
    deps = compute_dependences(scop)
    d = deps.all[0]
    st = scop.statements[0]
    rev = ClaySchedule((Relation.build(st.domain, (0, 0), ["-i"]),))
    [v] = violations(dataclasses.replace(scop, schedule=rev), deps)
    assert v.dependence is d and v.pairs.is_equal(d.relation)
    assert carried_depth(d, rev) is None
    # same result with a deeper (padded) schedule
    deeper = ClaySchedule((Relation.build(st.domain, (0, 0, 0), ["0", "-i"]),))
    [v] = violations(dataclasses.replace(scop, schedule=deeper), deps)
    assert v.pairs.is_equal(d.relation)


def test_heat3d_like_dependences():
    scop = heat3d_like_scop()
    deps = compute_dependences(scop)
    raw = deps.of_kind("RAW")
    # S0 reads A (7 refs) from S1 of the previous t, S1 reads B from S0 of the same t
    assert {(d.source, d.sink) for d in raw} == {("S0", "S1"), ("S1", "S0")}
    assert len(raw) == 14
    for d in deps.between("S0", "S1"):
        if d.kind == "RAW":
            assert d.direction()[0] == "=" and carried_depth(d, scop.schedule) == 0
    for d in deps.between("S1", "S0"):
        if d.kind == "RAW":
            assert d.direction()[0] == "<" and carried_depth(d, scop.schedule) == 1


def test_dependences_belong_to_the_original_program():
    """``dependences`` answers for the program a SCoP schedules (its origin),
    the same object for the original and every rescheduled SCoP, whichever
    is asked first; another program (new statements) has its own."""
    scop = shift_scop()
    st = scop.statements[0]
    rev = ClaySchedule((Relation.build(st.domain, (0, 0), ["-i"]),))
    transformed = dataclasses.replace(scop, schedule=rev)
    d1 = dependences(transformed)                  # the transformed one asked first
    assert isinstance(d1, Dependences)
    assert d1.schedule is scop.schedule            # computed in the original order
    assert dependences(scop) is d1
    assert transformed.origin is scop.origin
    raw = only(d1, kind="RAW")
    same(raw, "[N] -> { S0[i] -> S0[i + 1] : 1 <= i < N - 1 }")
    assert dependences(shift_scop()) is not d1     # another program
    # new statements: a new program, in the order of that point
    again = dataclasses.replace(transformed, statements=tuple(list(scop.statements)))
    d2 = dependences(again)
    assert again.origin is not scop.origin and d2.schedule is rev
    assert d2.counts()["RAW"] == 0         # in that order a[i-1] is read before it is written
    same(only(d2, kind="WAR"), "[N] -> { S0[i] -> S0[i - 1] : 2 <= i < N }")
    # compute_dependences remembers nothing
    assert compute_dependences(scop) is not compute_dependences(scop)


def test_unknown_kind_is_refused():
    from clayx.errors import ModelError
    with pytest.raises(ModelError):
        compute_dependences(shift_scop()).of_kind("RAWR")


def _ppcg_untagged(scop: Scop):
    """PPCG's flow and false families (seed 001 §3.2.1), untagged, in one call each."""
    sched = scop.schedule.union_map().intersect_domain(scop.domains())
    dom = scop.domains()
    reads = scop.accesses(READ).intersect_domain(dom)
    must = scop.accesses(WRITE).intersect_domain(dom)
    may = scop.accesses(MAY_WRITE).intersect_domain(dom)

    def flow(sink, must_src, may_src):
        return (isl.UnionAccessInfo.from_sink(sink).set_must_source(must_src)
                .set_may_source(may_src).set_schedule_map(sched).compute_flow()
                .get_may_dependence())
    return flow(reads, must, may), flow(must.union(may), must, reads.union(may))


@pytest.mark.parametrize("make", ALL)
def test_same_relations_as_ppcg(make):
    scop = make()
    deps = compute_dependences(scop)
    flow, false = _ppcg_untagged(scop)
    assert deps.union_map("RAW").is_equal(flow)
    assert deps.union_map("WAR", "WAW").is_equal(false)


def test_direction_symbols():
    rel = M("[N] -> { S0[i, j] -> S0[i + 1, j2] : 0 <= i, j, j2 < N and j2 <= j }")
    d = Dependence("RAW", "S0", "S0", "a", "r0", "r1", rel, 2)
    assert d.direction() == ("<", ">=") and not d.is_uniform
    rel = M("[N] -> { S0[i, j] -> S0[i + 1, j2] : 0 <= i, j, j2 < N }")
    assert dataclasses.replace(d, relation=rel).direction() == ("<", "*")


def test_adi_backward_loop():
    scop = adi_scop()
    deps = compute_dependences(scop)
    # v[j][i] = p[i][j] * v[j+1][i] + q[i][j] runs j downwards: distance -1 in j
    self_raw = only(deps, kind="RAW", source="S6", sink="S6")
    assert self_raw.distance() == (0, 0, -1) and self_raw.direction() == ("=", "=", ">")
    assert carried_depth(self_raw, scop.schedule) == 3
    # the scalars flow from the set-up statements into the sweeps, carried by β
    c = only(deps, kind="RAW", array="c", sink="S3")
    assert c.source == "P9" and c.common == 0 and c.distance() == ()
    assert carried_depth(c, scop.schedule) == 0
    # the time loop carries u (row sweep -> column sweep of the next step)
    u = [d for d in deps.of_kind("RAW") if d.array == "u" and d.sink == "S4"]
    assert u and all(carried_depth(d, scop.schedule) == 1 for d in u)


def test_rar_is_lazy():
    deps = compute_dependences(heat3d_like_scop())
    assert deps._rar is None
    deps.validity()
    deps.of_kind("RAW", "WAR", "WAW")
    assert len(deps.between("S0", "S1", "RAW")) == 7
    assert deps.on_array("A", "WAR", "RAW")
    assert deps._rar is None
    assert len(deps.of_kind("RAR")) == 52 and deps._rar is not None
    # each read depends on the previous read of the element only: uniform
    assert all(d.is_uniform for d in deps.of_kind("RAR"))


# --- on the examples (when the C front end is there) -------------------------------

EXAMPLES = os.path.join(os.path.dirname(__file__), os.pardir, "examples")


def _parse(name: str) -> Scop:
    c = pytest.importorskip("clayx.frontend.c")
    path = os.path.join(EXAMPLES, name)
    if not os.path.exists(path):
        pytest.skip(f"{name} not in examples/")
    return c.parse_file(path)[0]


@pytest.mark.parametrize("name", ["gemm.c", "jacobi-1d.c", "seidel-2d.c", "heat-3d.c",
                                  "adi.c", "ludcmp.c"])
def test_examples_legal_and_same_as_ppcg(name):
    scop = _parse(name)
    deps = compute_dependences(scop)
    flow, false = _ppcg_untagged(scop)
    assert deps.union_map("RAW").is_equal(flow)
    assert deps.union_map("WAR", "WAW").is_equal(false)
    assert deps.of_kind("RAW", "WAR", "WAW")
    assert violations(scop, deps) == []


def test_example_seidel_distances():
    scop = _parse("seidel-2d.c")
    deps = compute_dependences(scop)
    raw = {d.distance() for d in deps.of_kind("RAW")}
    assert raw == {(0, 1, 1), (0, 1, 0), (0, 1, -1), (0, 0, 1), (1, 0, 0), (1, 0, -1),
                   (1, -1, 1), (1, -1, 0), (1, -1, -1)}
    assert {carried_depth(d, scop.schedule) for d in deps.of_kind("RAW")} == {1, 2, 3}
    assert only(deps, kind="WAW").distance() == (1, 0, 0)


def test_example_jacobi_1d():
    scop = _parse("jacobi-1d.c")
    deps = compute_dependences(scop)
    assert deps.counts()["RAW"] == 6 and deps.counts()["WAW"] == 2
    for d in deps.between("S1", "S0"):
        assert d.distance() == (1,) and carried_depth(d, scop.schedule) == 1
    for d in deps.between("S0", "S1"):
        assert d.distance() == (0,) and carried_depth(d, scop.schedule) == 0
