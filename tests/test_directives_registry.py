"""The directive record and the argument types: one registry for
transformations, marks, layout steps, queries and control steps; β, depth,
access and array-id arguments checked once, by their types, in the order
the hand-written checks fired (phase 1 without the SCoP, then phase 2
against it, left to right)."""

from __future__ import annotations

import pytest

from clayx import directives as D
from clayx.directives import registry
from clayx.directives.params import (DEPTH_OVERFLOW, EMPTY, NOT_A_LOOP, NOT_A_STATEMENT,
                                     NOT_FOUND, AccessNumber, ArrayId, Beta, Depth, Int,
                                     Value)
from clayx.errors import DirectiveError

from directive_cases import NEST, TWO, assert_refused, scop_of

# a statement with accesses (layout directives), a loop of two statements
LAYOUT = """
void f(int n, double A[100][100], double B[100][100], double t[100]) {
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      t[j] = A[i][j] * 2;
      B[i][j] = t[j] + 1;
    }
#pragma endscop
}
"""


# --- the record -----------------------------------------------------------------------------

def test_every_record_is_consistent():
    seen = set()
    for name, d in D.REGISTRY.items():
        assert d.name == name and d.kind in D.KINDS
        assert d.check == D.CHECKS[d.kind], name
        assert (d.result is not None) == (d.kind == "query" or d.value is not None), name
        for n in (name, *d.aliases):
            assert n not in seen and n not in D.FOREIGN
            seen.add(n)
        if d.kind in ("transform", "mark", "layout"):
            # each directive's docstring: a before/after sketch and what it checks
            assert "Checks" in d.doc and ("=>" in d.doc or "->" in d.doc), name
    assert set(D.names()) == seen


def test_kinds_of_the_catalogue():
    kind = {n: d.kind for n, d in D.REGISTRY.items()}
    assert {n for n, k in kind.items() if k == "mark"} == {"parallelize", "vectorize",
                                                           "unroll_mark", "unroll_loop"}
    assert {n for n, k in kind.items() if k == "layout"} == {
        "dimreorder", "dimprivatize", "dimcontract", "dimreorder_access",
        "dimprivatize_access", "dimcontract_access", "add_array", "replace_array",
        "datacopy", "datacopy_at", "block"}
    assert {n for n, k in kind.items() if k == "query"} == {
        "get_beta_loop", "get_beta_stmt", "get_beta_loop_by_name", "get_array_id"}
    assert {n for n, k in kind.items() if k == "control"} == {"print", "break"}
    assert D.lookup("break").stops and not D.lookup("print").stops
    assert D.lookup("add_array").result == "int" and D.lookup("add_array").value
    assert D.lookup("get_beta_loop").signature == "get_beta_loop(n: int) -> beta"
    assert D.names("query") == ["get_array_id", "get_beta_loop", "get_beta_loop_by_name",
                                "get_beta_stmt", "getarrayid", "getbetaloop",
                                "getbetaloopbyname", "getbetastmt"]


def test_run_gives_an_outcome_per_kind():
    scop = scop_of(NEST)
    out = D.lookup("get_beta_loop").run(scop, [2])
    assert (out.scop, out.value, out.output, out.stop) == (scop, [0, 0], "", False)
    out = D.lookup("print").run(scop, [(0, 1), 3, "i"])
    assert (out.scop, out.value, out.output) == (scop, None, "[0, 1] 3 i")
    assert D.lookup("break").run(scop, []).stop
    out = D.lookup("add_array").run(scop, ["At"])
    assert out.value == 2 and out.scop is not scop
    out = D.lookup("reverse").run(scop, [(0,), 2])
    assert out.value is None and out.scop.schedule != scop.schedule


def test_registration_is_validated():
    f = (lambda scop: scop)
    with pytest.raises(ValueError, match="unknown directive kind"):
        D.directive("zz_kind", kind="loop")(f)
    with pytest.raises(ValueError, match="unknown check"):
        D.directive("zz_check", check="maybe")(f)
    with pytest.raises(ValueError, match="a query returns its result"):
        D.directive("zz_query", kind="query")(f)
    with pytest.raises(ValueError, match="value function"):
        D.directive("zz_result", result="int")(f)
    with pytest.raises(ValueError, match="gives no value"):
        D.directive("zz_ctl", kind="control", result="int", value=f)(f)
    with pytest.raises(ValueError, match="last parameter may be variadic"):
        D.directive("zz_var", Value("a", variadic=True), Int("b"))(f)
    with pytest.raises(ValueError, match="registered twice"):
        D.directive("fuse")(f)
    with pytest.raises(ValueError, match="registered twice"):
        D.directive("divide_loop")(f)       # a name of another tool stays free
    with pytest.raises(ValueError, match="unknown depth bound"):
        Depth(bound="everything")
    assert not {n for n in D.REGISTRY if n.startswith("zz_")}


def test_listing_reads_the_one_registry():
    text = D.listing()
    for n, d in D.REGISTRY.items():
        assert f"\n{d.signature}   [{d.kind}]" in "\n" + text, n
    assert "get_array_id(name: string) -> int   [query]   aliases: getarrayid" in text
    assert "print(values: any...)   [control]" in text
    assert "divide_loop (Exo): stripmine(loop, depth, size)" in text


def test_names_of_other_tools_say_what_to_use():
    with pytest.raises(DirectiveError, match=r"unknown function `divide_loop' \(divide_loop is "
                                             r"Exo's name; in clayx use stripmine"):
        D.lookup("divide_loop")
    with pytest.raises(DirectiveError, match=r"parallel is TVM/Halide's name; in clayx use "
                                             r"parallelize"):
        D.apply(scop_of(NEST), "parallel", [(0,)])
    with pytest.raises(DirectiveError, match=r"^unknown function `nothing_like_it'$"):
        D.lookup("nothing_like_it")


# --- Clay's order: types, then values (empty β first), then look-ups ------------------------------

@pytest.mark.parametrize("src,name,args,argument,message", [
    # a type error anywhere comes before everything else (Clay's call check, reference 3.4)
    (NEST, "tile", (("x",), 9, 1, -4), 1, "expected a β-vector"),
    (NEST, "dimprivatize_access", ((9,), 0, 1), 2, "positive integer"),
    (NEST, "reverse", ((9,), "1"), 2, "expected an integer"),
    (NEST, "reverse", ((), "1"), 2, "expected an integer"),
    (NEST, "shift", ((0,), 1, (), 2 ** 63), 4, "at most 64 bits"),
    # then the values that need no look-up, in the function's order (reference 5, 9.9)
    (NEST, "stripmine", ((9,), 0, 0), 3, "block value is incorrect"),     # size before depth
    (NEST, "stripmine", ((9,), 0, 4), 2, DEPTH_OVERFLOW),                 # d = 0 before the β
    (NEST, "tile", ((), 9, 1, -4), 1, EMPTY),                             # the empty β first
    (NEST, "tile", ((9,), 0, 1, 0), 4, "block value is incorrect"),
    (NEST, "tile", ((9,), 3, 9, 4), 3, "the depth is not 'outer'"),       # before not found
    (NEST, "skew", ((9,), 7, 7, 0), 4, "wrong coefficient"),              # c = 0 first
    (NEST, "skew", ((9,), 7, 7, 1), 3, "skewed by itself"),               # then d = o
    (NEST, "grain", ((), 0, 0), 3, "wrong factor"),                       # no empty-β check
    (NEST, "grain", ((9,), 0, 2), 2, DEPTH_OVERFLOW),
    (NEST, "reverse", ((9,), 0), 2, DEPTH_OVERFLOW),                      # 4.3: d = 0 early
    (NEST, "reverse", ((9,), -1), 1, NOT_FOUND),                          # 4.3: d < 0 late
    (NEST, "split", ((9,), 1), 2, DEPTH_OVERFLOW),                        # |β| <= 1 first
    # then the β, then what the β names
    (NEST, "skew", ((9,), 1, 2, 1), 1, NOT_FOUND),
    (NEST, "skew", ((0, 0, 0), 1, 2, 1), 1, NOT_A_LOOP),
    (NEST, "skew", ((0,), 1, 7, 1), 3, DEPTH_OVERFLOW),
    (NEST, "tile", ((0,), 3, 1, 4), 2, DEPTH_OVERFLOW),
    (NEST, "reshape", ((9,), 0, 1, 0), 1, NOT_FOUND),                     # the β before a = 0
    (NEST, "reshape", ((0,), 1, 1, 0), 4, "wrong factor"),
    # Clay's order (reference 6.6): the βs, an access to one of the ids in
    # beta_get_domain's statement, then clayx's: the ids, their difference, shapes
    (LAYOUT, "datacopy", (9, 9, (9,), True, (9,)), 3, NOT_FOUND),
    (LAYOUT, "datacopy", (9, 9, (0, 0, 0), True, (9,)), 5, NOT_FOUND),
    (LAYOUT, "datacopy", (9, 9, (0, 0, 0), True, (0, 0, 0)), 5,
     "the array was not found in the given beta"),
    (LAYOUT, "datacopy", (9, 1, (0, 0, 0), True, (0, 0, 0)), 1,
     "the array was not found: no array has the id 9"),
    (LAYOUT, "datacopy", (1, 1, (0, 0, 0), True, (0, 0, 0)), 2,
     "the copy and the original are the same"),
    (LAYOUT, "datacopy_at", (3, 2, (0, 0, 0), True, (0,)), 5, NOT_A_STATEMENT),
    (LAYOUT, "replace_array", (2, 2), 2, "the two ids name the same array (t)"),
    # the statement, its access, then a depth bounded by either
    (LAYOUT, "dimcontract_access", ((0, 0), 9, 9), 1, NOT_A_STATEMENT),
    (LAYOUT, "dimcontract_access", ((0, 0, 0), 9, 9), 2, "access not found: S0 has 2 accesses"),
    (LAYOUT, "dimcontract_access", ((0, 0, 0), 2, 2), 3, "`t[j]` has 1 subscripts, got 2"),
    (LAYOUT, "dimprivatize_access", ((0, 0, 1), 1, 3), 3, "S1 is in 2 loops, got depth 3"),
], ids=lambda v: None if not isinstance(v, str) or "\n" not in v else "prog")
def test_check_order(src, name, args, argument, message):
    assert_refused(scop_of(src), name, args, argument, message)


# --- Beta ------------------------------------------------------------------------------------

@pytest.mark.parametrize("name,args,message", [
    ("shift", ((), 1, (), 1), EMPTY),              # Clay's message for the empty β
    ("stripmine", ((), 1, 4), EMPTY),
    ("fuse", ((),), EMPTY),
    ("iss", ((), (1, 0, 0)), "the beta vector is empty"),
    ("peel", ((), (1,)), "the beta vector is empty"),
    ("unroll", ((), 0), "the beta vector is empty"),
    ("split", ((), 1), EMPTY),
    ("embed", ((),), DEPTH_OVERFLOW),               # Clay's message for embed([])
    ("unembed", ((),), DEPTH_OVERFLOW),
    ("block", ((), (0,)), "the betas don't have the same dimensions"),
])
def test_the_empty_beta(name, args, message):
    assert_refused(scop_of(TWO), name, args, 1, message)


def test_the_root_where_it_is_allowed():
    scop = scop_of(TWO)
    new = D.apply(scop, "reorder", [(), (1, 0)])
    assert [r.beta for r in new.schedule.relations] == [(0, 0), (1, 0), (1, 1, 0)]


def test_functions_receive_resolved_values():
    got = {}

    def probe(scop, beta, depth, access, array):
        got.update(beta=beta, depth=depth, access=access, array=array)
        return scop
    D.directive("zz_probe", Beta("stmt", statement=True), Depth("depth", of="stmt", bound="path"),
                AccessNumber("access"), ArrayId("array"))(probe)
    try:
        scop = scop_of(LAYOUT)
        D.apply(scop, "zz_probe", [[0, 0, 1], 2, 2, 3])      # ids: A 1, t 2, B 3
        assert got == {"beta": (0, 0, 1), "depth": 2, "access": 2, "array": "B"}
        with pytest.raises(DirectiveError, match=r"depth overflow \(expected 1..3, got 4\)"):
            D.apply(scop, "zz_probe", [[0, 0, 1], 4, 1, 1])
        assert D.lookup("zz_probe").signature == ("zz_probe(stmt: beta(stmt), depth: int, "
                                                  "access: access, array: array id)")
    finally:
        D.REGISTRY.pop("zz_probe", None)


# --- Depth -------------------------------------------------------------------------------------

@pytest.mark.parametrize("src,name,args,argument,message", [
    # loops: every statement under the β has that many loops
    (TWO, "reverse", ((0,), 2), 2, "depth overflow (expected 1..1, got 2)"),
    (TWO, "reverse", ((0, 1), 2), 2, None),
    (NEST, "reorder_loops", ((0,), 2), 2, "depth overflow (expected 1..1, got 2)"),
    # path: along the β (marks)
    (NEST, "parallelize", ((0, 0), 3), 2, "depth overflow (expected 1..2, got 3)"),
    (NEST, "parallelize", ((0, 0), 2), 2, None),
    # enclosing: strictly around the β (split)
    (TWO, "split", ((0, 0), 2), 2, "depth overflow (expected 1..1, got 2)"),
    (TWO, "split", ((0, 0), 1), 2, None),
], ids=lambda v: None if not isinstance(v, str) or "\n" not in v else "prog")
def test_depth_bounds(src, name, args, argument, message):
    scop = scop_of(src)
    if message is None:
        D.apply(scop, name, list(args))
    else:
        assert_refused(scop, name, args, argument, message)


# --- argument count ----------------------------------------------------------------------------

def test_counts():
    scop = scop_of(NEST)
    with pytest.raises(DirectiveError, match="takes 0 arguments, got 1"):
        D.apply(scop, "break", [1])
    with pytest.raises(DirectiveError, match="takes 1 to 2 arguments, got 0"):
        D.apply(scop, "parallelize", [])
    assert D.lookup("print").bind([]) == []
    assert registry.lookup("print").bind([1, (2, 3)]) == [1, (2, 3)]
