"""The model: Clay relations, the β-tree, normalization, invariants."""

from __future__ import annotations

import dataclasses

import islpy as isl
import pytest

from clayx.errors import ModelError
from clayx.frontend.c import parse_string
from clayx.model import ClaySchedule, Mark, Relation, identifiers, substitute_iterators

D2 = isl.Set("[N] -> { S0[i, j] : 0 <= i < N and 0 <= j < N }")
D1 = isl.Set("[N] -> { S1[i] : 0 <= i < N }")


def test_relation_build_and_from_map():
    r = Relation.build(D2, (0, 1, 2), ["i", "-j"])
    assert r.beta == (0, 1, 2) and r.depth == 2
    assert r.map.is_equal(isl.Map("[N] -> { S0[i, j] -> [0, i, 1, -j, 2] }"))
    back = Relation.from_map(r.map)
    assert back.beta == r.beta and back.stmt == "S0"


def test_relation_with_implicit_alpha_and_extra_constraint():
    # strip-mined by 4 (implicit α1), restricted to i >= 2 (as iss creates)
    m = isl.Map("[N] -> { S1[i] -> [0, a, 0, i, 1] : 4a <= i <= 4a + 3 and i >= 2 }")
    r = Relation.from_map(m)
    assert r.beta == (0, 0, 1) and r.depth == 2


@pytest.mark.parametrize("text,msg", [
    ("{ S0[i] -> [0, i] }", "2n\\+1"),
    ("[N] -> { S0[i] -> [i, i, 0] }", "not a constant"),
])
def test_relation_shape_errors(text, msg):
    with pytest.raises(ModelError, match=msg):
        Relation.from_map(isl.Map(text))


def test_with_beta_and_padding():
    r = Relation.build(D1, (3, 5), ["i"]).with_beta((0, 1))
    assert r.map.is_equal(isl.Map("[N] -> { S1[i] -> [0, i, 1] }"))
    assert r.padded(5).is_equal(isl.Map("[N] -> { S1[i] -> [0, i, 1, 0, 0] }"))
    with pytest.raises(ModelError):
        r.with_beta((0,))


def _sched():
    return ClaySchedule((Relation.build(D2, (0, 0, 0), ["i", "j"]),
                         Relation.build(D1, (0, 1), ["i"]),
                         Relation.build(isl.Set("[N] -> { S2[] }"), (1,), [])))


def test_beta_tree_queries():
    s = _sched()
    assert s.betas == [(0, 0, 0), (0, 1), (1,)]
    assert s.children(()) == [(0,), (1,)]
    assert s.children((0,)) == [(0, 0), (0, 1)]
    assert s.is_loop((0,)) and s.is_loop((0, 0)) and not s.is_loop((0, 1))
    assert s.is_statement((0, 1)) and s.is_statement((1,)) and not s.is_statement((0,))
    assert not s.is_loop(()) and s.exists(()) and not s.exists((2,))
    assert s.statements_under((0,)) == ("S0", "S1")
    assert s.loops() == [(0,), (0, 0)]
    assert s.max_depth == 2
    assert s.relation((0, 1)).stmt == "S1"
    with pytest.raises(ModelError, match="was not found"):
        s.relation((5,))
    um = s.union_map()
    assert um.is_equal(isl.UnionMap(
        "[N] -> { S0[i, j] -> [0, i, 0, j, 0]; S1[i] -> [0, i, 1, 0, 0]; S2[] -> [1, 0, 0, 0, 0] }"))


def test_normalization_is_dense_and_keeps_order_and_marks():
    s = ClaySchedule((Relation.build(D2, (2, 4, 7), ["i", "j"]),
                      Relation.build(D1, (2, 9), ["i"]),
                      Relation.build(isl.Set("[N] -> { S2[] }"), (5,), [])),
                     marks=(Mark("parallel", (2,)),))
    n = s.normalized()
    assert n.betas == [(0, 0, 0), (0, 1), (1,)]
    assert n.marks == (Mark("parallel", (0,)),)


def test_invariants_refused():
    with pytest.raises(ModelError, match="used twice"):
        ClaySchedule((Relation.build(D1, (0, 0), ["i"]),
                      Relation.build(D1, (0, 0), ["i"])))
    with pytest.raises(ModelError, match="prefix"):
        ClaySchedule((Relation.build(D1, (0, 0), ["i"]),
                      Relation.build(D2, (0, 0, 1), ["i", "j"])))


def test_scop_views_from_c():
    src = ("void f(int n, double A[n][n], double x[n]) {\n#pragma scop\n"
           "for (int i = 0; i < n; i++) {\n  x[i] = 0;\n"
           "  for (int j = 0; j < i; j++) x[i] += A[i][j];\n}\n"
           "for (int k = 0; k < n; k++) x[k] *= 2;\n#pragma endscop\n}\n")
    [s] = parse_string(src)
    assert s.iterator_names((0,)) == ["i"]
    assert s.iterator_names((0, 1)) == ["j"]
    assert s.iterator_names((1,)) == ["k"]
    assert s.statement("S1").iterators == ("i", "j")
    assert len(s.statement("S1").reads) == 2 and len(s.statement("S1").writes) == 1
    assert s.accesses("write").is_equal(isl.UnionMap(
        "[n] -> { S0[i] -> x[i] : 0 <= i < n; S1[i, j] -> x[i] : 0 <= j < i < n;"
        " S2[k] -> x[k] : 0 <= k < n }"))
    assert s.scheduled().domain().is_equal(s.domains())
    with pytest.raises(ModelError):
        s.statement("S9")


def test_body_substitution_is_token_aware():
    body = 'A[i][j] = B[i+1] + s.i + p->j + f("i") + 1e5 + ij;'
    out = substitute_iterators(body, {"i": "c1 - 1", "j": "c2"})
    assert out == 'A[(c1 - 1)][c2] = B[(c1 - 1)+1] + s.i + p->j + f("i") + 1e5 + ij;'
    assert identifiers(body) >= {"A", "i", "j", "B", "s", "p", "f", "ij"}
    assert "e5" not in identifiers(body)


def test_substitution_skips_comments():
    out = substitute_iterators("A[i] = 1; /* i\n i */ // i\nB[i] = 0;", {"i": "c + 1"})
    assert out == "A[(c + 1)] = 1; /* i\n i */ // i\nB[(c + 1)] = 0;"


# --- the program a SCoP schedules (Origin) ------------------------------------------

CHAIN = """void f(int N, double a[100], double b[100]) {
#pragma scop
  for (int i = 1; i < N; i++)
    a[i] = a[i-1] + 1;
  for (int i = 0; i < N; i++)
    b[i] = a[i];
#pragma endscop
}
"""


def _reversed(scop):
    rels = tuple(Relation.build(scop.statement(r.stmt).domain, r.beta, ["-i"])
                 for r in scop.schedule)
    return dataclasses.replace(scop, schedule=ClaySchedule(rels))


def test_origin_is_kept_by_schedule_changes_and_renewed_by_new_statements():
    [s] = parse_string(CHAIN)
    o = s.origin
    assert (o.statements, o.context, o.schedule) == (s.statements, s.context, s.schedule)
    t = _reversed(s)
    assert t.origin is o                            # a schedule change: same program
    u = dataclasses.replace(t, context=isl.Set("[N] -> { : N >= 4 }"))
    assert u.origin is o and o.context is s.context  # the original context stays
    # new statements: a new program whose order is the schedule of that point
    v = dataclasses.replace(t, statements=tuple(list(t.statements)))
    assert v.origin is not o and v.origin.schedule is t.schedule
    assert dataclasses.replace(v, schedule=s.schedule).origin is v.origin
    # origin takes no part in equality
    assert dataclasses.replace(s, origin=v.origin) == s


def test_origin_memo_builds_once_per_key():
    [s] = parse_string(CHAIN)
    calls = []
    assert s.origin.memo("k", lambda: calls.append(1) or "x") == "x"
    assert _reversed(s).origin.memo("k", lambda: calls.append(2) or "y") == "x"
    assert calls == [1]


def test_pickled_scop_keeps_its_program():
    """The codegen worker gets SCoPs pickled: the copy still schedules the
    original program (its origin comes along, without what was remembered)."""
    import pickle

    from clayx.analysis import dependences, is_legal
    [s] = parse_string(CHAIN)
    t = _reversed(s)
    dependences(t)
    t2 = pickle.loads(pickle.dumps(t))
    assert t2.origin.statements is t2.statements and t2.origin is not t.origin
    assert t2.origin.schedule.betas == s.schedule.betas
    assert not is_legal(t2)               # judged in the original order, not its own
    assert dependences(t2).schedule is t2.origin.schedule
