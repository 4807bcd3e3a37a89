"""Structural directives (reorder, fuse, split/split_children, iss, peel,
collapse, embed/unembed, context) and the β queries: golden code, β-vectors,
a must-fail table with Clay's messages, marks, and differential runs on
examples (legal by every dependence, equal outputs bit for bit)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from clayx.analysis import dependences, violations
from clayx.codegen import generate_file, generate_region
from clayx.directives import apply, lookup, names
from clayx.errors import DirectiveError
from clayx.frontend.c import parse_file, parse_string
from clayx.model import ClaySchedule, Mark
from clayx.verify import SMALL_SIZES, verify

import goldens
from directive_cases import assert_refused

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

SRC = """
void f(int N, double A[100], double B[100], double C[100][100]) {
  int i, j;
#pragma scop
  for (i = 0; i < N; i++) {
    A[i] = i;
    B[i] = A[i] * 2;
    for (j = 0; j < N; j++)
      C[i][j] = B[i] + j;
  }
  for (i = 0; i < N; i++)
    A[i] = A[i] + 1;
#pragma endscop
}
"""

#: The code of SRC, as generated from its original schedule.
ORIGINAL = goldens.text("structure/original.c")


@pytest.fixture(scope="module")
def small():
    [s] = parse_string(SRC)
    return s


def _betas(scop):
    return [list(b) for b in scop.schedule.betas]


# --- goldens ----------------------------------------------------------------------------

#: (directive, arguments, β-vectors after, file under tests/golden/structure/)
GOLDEN = [
    ("reorder", [[0], [2, 0, 1]], [[0, 0], [0, 1, 0], [0, 2], [1, 0]], "reorder-inner"),
    ("reorder", [[], [1, 0]], [[0, 0], [1, 0], [1, 1], [1, 2, 0]], "reorder-root"),
    ("fuse", [[0]], [[0, 0], [0, 1], [0, 2, 0], [0, 3]], "fuse"),
    ("split", [[0, 0], 1], [[0, 0], [1, 0], [1, 1, 0], [2, 0]], "split-first"),
    ("split", [[0, 1], 1], [[0, 0], [0, 1], [1, 0, 0], [2, 0]], "split-second"),
    ("iss", [[0], [-1, 0, 4]],
     [[0, 0], [0, 1], [0, 2, 0], [0, 3], [0, 4], [0, 5, 0], [1, 0]], "iss"),
    ("peel", [[1], [-1, 1]], [[0, 0], [0, 1], [0, 2, 0], [1, 0], [2, 0]], "peel"),
    ("embed", [[0, 1]], [[0, 0], [0, 1, 0], [0, 2, 0], [1, 0]], "original"),
    ("context", [[1, -10]], [[0, 0], [0, 1], [0, 2, 0], [1, 0]], "original"),
]


def test_original_code(small, golden):
    golden("structure/original.c", generate_region(small))


@pytest.mark.parametrize("name,args,betas,file", GOLDEN,
                         ids=[f"{g[0]}{g[1]}" for g in GOLDEN])
def test_golden(small, golden, name, args, betas, file):
    new = apply(small, name, args)
    assert _betas(new) == betas
    golden(f"structure/{file}.c", generate_region(new))
    assert _betas(small) == [[0, 0], [0, 1], [0, 2, 0], [1, 0]]   # input untouched


def test_split_children_is_split_of_the_nth_child(small):
    a = apply(small, "split_children", [[0], 2])
    b = apply(small, "split", [[0, 1], 1])
    assert _betas(a) == _betas(b) == [[0, 0], [0, 1], [1, 0, 0], [2, 0]]


def test_split_deep_beta_splits_every_enclosing_loop():
    [s] = parse_file(EXAMPLES / "beamforming.c")
    # S4 is [2, 2, 0]: at depth 1, S5 (inside the same j loop), S6 and S7 move
    t = apply(s, "split", [[2, 2, 0], 1])
    assert _betas(t) == [[0], [1], [2, 0], [2, 1], [2, 2, 0], [3, 0, 0], [3, 1], [3, 2]]
    # a loop β works too: split after the j loop
    u = apply(s, "split", [[2, 2], 1])
    assert _betas(u) == [[0], [1], [2, 0], [2, 1], [2, 2, 0], [2, 2, 1], [3, 0], [3, 1]]


def test_split_inner_depth_keeps_outer_loop():
    [s] = parse_file(EXAMPLES / "beamforming.c")
    t = apply(s, "split", [[2, 2, 0], 2])
    assert _betas(t) == [[0], [1], [2, 0], [2, 1], [2, 2, 0], [2, 3, 0], [2, 4], [2, 5]]


def test_fuse_loops_with_different_bounds_runs_union():
    [s] = parse_file(EXAMPLES / "atax.c")
    t = apply(s, "fuse", [[0]])
    assert _betas(t) == [[0, 0], [0, 1], [0, 2, 0], [0, 3, 0]]
    code = generate_region(t)       # y[i] = 0 runs over i < N, tmp over i < M
    assert "for (i = max(0, M); i < N; i++)" in code and "if (N >= i + 1)" in code


def test_iss_four_part_form_with_iterators(small):
    # {[α] | [iterators] | [params] | C}: i - 3 >= 0 through the iterator;
    # Clay's iss moves the half that satisfies it, the complement stays
    t = apply(small, "iss", [[0], [[0], [1], [0], -3]])
    assert "i <= 2" in str(t.schedule.relation((0, 0)).map)
    assert "i >= 3" in str(t.schedule.relation((0, 3)).map)


def test_iss_keeps_empty_halves(small):
    """Clay never removes a part (reference 5.10): an empty half keeps its
    β-vector, and the code is that of the other half."""
    t = apply(small, "context", [[1, -10]])
    # N - 1 - i >= 0 always holds on the domain: the complement is empty
    u = apply(t, "iss", [[1], [-1, 1, -1]])
    assert _betas(u) == _betas(small) + [[1, 1]]
    assert u.schedule.relation((1, 0)).map.intersect_domain(
        u.statements[3].domain).intersect_params(u.context).is_empty()
    assert generate_region(u) == generate_region(t)
    # a false constraint: the moved half is the empty one
    v = apply(t, "iss", [[1], [0, 0, -1]])
    assert _betas(v) == _betas(small) + [[1, 1]]
    assert generate_region(v) == generate_region(t)


def test_collapse_undoes_iss(small):
    t = apply(apply(small, "iss", [[0], [-1, 0, 4]]), "collapse", [[0]])
    assert _betas(t) == _betas(small)
    for a, b in zip(t.schedule, small.schedule):
        assert a.map.is_equal(b.map)
    assert generate_region(t) == ORIGINAL


def test_collapse_consecutive_pair_and_chain(small):
    t = apply(small, "iss", [[1], [-1, 0, 4]])
    t = apply(t, "iss", [[1], [-1, 0, 2]])     # four pieces of S3 now, one empty
    assert _betas(t)[-4:] == [[1, 0], [1, 1], [1, 2], [1, 3]]
    u = apply(apply(t, "collapse", [[1]]), "collapse", [[1]])
    assert _betas(u) == _betas(small)
    assert u.schedule.relation((1, 0)).map.is_equal(small.schedule.relation((1, 0)).map)


@pytest.mark.parametrize("stem,steps,loop", [
    ("bicg", [("unroll", [[0], 4]), ("fuse", [[2, 1]])], [0]),
    ("gemm", [("reorder", [[0, 0], [0]]), ("unroll", [[0, 0], 2]),
              ("tile", [[0, 1], 2, 2, 5]), ("linearize", [[0, 1], 2])], [0, 0]),
])
def test_collapse_refuses_the_copies_of_an_unroll(stem, steps, loop):
    # an unroll's copies coalesce with the main part into one convex relation
    # (i -> 4 floor(i / 4)) that gives several instances one date: not two
    # halves of one relation (Clay: "wrong coefficient"), the order of those
    # instances would be lost
    [t] = parse_file(EXAMPLES / f"{stem}.c")
    for name, args in steps:
        t = apply(t, name, args)
    before = [(r.beta, str(r.map)) for r in t.schedule]
    with pytest.raises(DirectiveError, match="wrong coefficient: the relations of S0 .* "
                                             "are not two halves of one"):
        apply(t, "collapse", [loop])
    assert [(r.beta, str(r.map)) for r in t.schedule] == before


def test_collapse_merges_halves_of_a_relation_that_gives_instances_one_date():
    # a schedule that gives S0(i, j) for every j one date: its iss halves
    # still collapse (the merged relation does what the halves' T does)
    [t] = parse_string("""
void f(int N, double A[100][100], double s[100]) {
  int i, j;
#pragma scop
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      s[i] = A[i][j];
#pragma endscop
}""")
    import islpy as isl
    r = t.schedule.relations[0]
    flat = isl.Map(str(r.map).replace("-> [0, i, 0, j, 0]", "-> [0, i, 0, 0, 0]"))
    assert not flat.is_injective()
    from dataclasses import replace
    t = replace(t, schedule=ClaySchedule((replace(r, map=flat),)))
    u = apply(apply(t, "iss", [[0, 0], [0, -1, 0, 4]]), "collapse", [[0, 0]])
    assert u.schedule.relations[0].map.is_equal(flat)


def test_embed_unembed_roundtrip(small):
    t = apply(small, "embed", [[0, 1]])
    import islpy as isl
    m = t.schedule.relation((0, 1, 0)).map
    assert m.dim(isl.dim_type.out) == 5
    assert m.plain_get_val_if_fixed(isl.dim_type.out, 3).to_python() == 0
    u = apply(t, "unembed", [[0, 1, 0]])
    assert _betas(u) == _betas(small)
    assert u.schedule.relation((0, 1)).map.is_equal(small.schedule.relation((0, 1)).map)


def test_context_adds_constraint(small):
    t = apply(small, "context", [[1, -10]])
    assert "N >= 10" in str(t.context)
    assert t.schedule is small.schedule


# --- queries ---------------------------------------------------------------------------------

def test_queries(small):
    assert apply(small, "get_beta_loop", [1]) == [0]
    assert apply(small, "get_beta_loop", [2]) == [0, 2]
    assert apply(small, "get_beta_loop", [3]) == [1]
    assert apply(small, "get_beta_stmt", [2]) == [0, 2, 0]      # Clay's: from 0
    assert apply(small, "get_beta_loop", [0]) == []             # the root
    assert apply(small, "get_beta_loop_by_name", ["j"]) == [0, 2]
    assert apply(small, "get_beta_loop_by_name", ["i"]) == [0]
    assert lookup("getbetaloop") is lookup("get_beta_loop")
    assert lookup("get_beta_stmt")(small, 0) == [0, 0]
    for n in ("get_beta_loop", "get_beta_stmt", "get_beta_loop_by_name"):
        d = lookup(n)
        assert (d.kind, d.result, d.check) == ("query", "beta", "none")


def test_registry_names():
    assert lookup("fusenext").name == lookup("merge").name == "fuse"
    assert lookup("fission").name == "split"
    assert lookup("indexsetsplit").name == lookup("index_set_split").name == "iss"
    assert lookup("cut_loop").name == "cut_loop"          # Exo's, not an alias of iss
    for n in ("reorder", "fuse", "split", "split_children", "iss", "peel", "collapse",
              "embed", "unembed", "context"):
        d = lookup(n)
        assert "Legality" in d.doc and "->" in d.doc, n
    queries = set(names("query"))
    assert {"get_beta_loop", "getbetaloop", "get_array_id"} <= queries
    assert not queries & {"fuse", "split", "print"}


# --- must fail -----------------------------------------------------------------------------------

MUST_FAIL = [
    ("reorder", [[9], [0]], "the beta vector was not found", 1),
    ("reorder", [[0, 0], [0]], "the beta is not a loop", 1),
    ("reorder", [[0], [0, 1]], "the order array is too small", 2),
    ("reorder", [[0], [0, 0, 1]], "sends two children to one place", 2),
    ("reorder", [[0], [1, 1, 1, 0]], "sends two children to one place", 2),
    ("fuse", [[5]], "the beta vector was not found", 1),
    ("fuse", [[]], "the beta vector is empty", 1),
    ("fuse", [[0, 0]], "the beta is not a loop", 1),
    ("split", [[], 1], "the beta vector is empty", 1),
    ("split", [[7, 0], 1], "the beta vector was not found", 1),
    ("split", [[0, 0], 0], "depth overflow", 2),
    ("split", [[0, 0], 2], "depth overflow", 2),
    ("split", [[0, 2, 0], 3], "depth overflow", 2),
    ("split", [[1, 0], 1], "nothing to split", 1),
    ("split_children", [[0], 0], "depth overflow", 2),
    ("split_children", [[0], 3], "depth overflow", 2),
    ("split_children", [[0, 0], 1], "the beta is not a loop", 1),
    ("iss", [[0, 0], [1, 0, 0]], "the beta is not a loop", 1),
    ("iss", [[4], [1, 0, 0]], "the beta vector was not found", 1),
    ("iss", [[0], [[1], [0, 0], 0]], "the inequality seems to be wrong: 2 parameter", 2),
    ("iss", [[0], [[1, 0, 0], [0], 0]], "the inequality seems to be wrong: 3 iterator", 2),
    ("iss", [[0], [[0, 0], [1], [0], 0]], "the inequality seems to be wrong: 2 α", 2),
    ("iss", [[0], []], "the inequality seems to be wrong: the constant part is empty", 2),
    ("iss", [[0], [[1], []]], "the inequality seems to be wrong: the constant part is empty", 2),
    ("iss", [[0], [[1], [0], [0], [0], 0]], "the inequality seems to be wrong: 5 parts", 2),
    ("iss", [[0], [[1], [0], [0, 1]]], "the inequality seems to be wrong: the constant part "
     "has 2 values", 2),
    ("peel", [[0, 1], [1]], "the inequality seems to be wrong: 2 α", 2),
    ("peel", [[0], [1, 1, 1]], "the inequality seems to be wrong: 3 parts", 2),
    ("collapse", [[0]], "the beta vector was not found: 3 relations", 1),     # odd
    ("collapse", [[0, 0]], "the beta vector was not found: 1 relations", 1),  # a statement
    ("embed", [[0]], "the beta is not a statement", 1),
    ("embed", [[9, 9]], "the beta vector was not found", 1),
    ("unembed", [[0]], "depth overflow", 1),
    ("unembed", [[0, 0]], "contains other statements", 1),
    ("unembed", [[1, 0]], "more than one iteration", 1),
    ("context", [[1]], "the vector seems to be wrong", 1),
    ("context", [[2, 2, 3]], "the vector seems to be wrong: the first value is 0", 1),
    ("context", [[1, 2, 3, 4]], "the vector seems to be wrong", 1),
]


@pytest.mark.parametrize("name,args,message,argument", MUST_FAIL,
                         ids=[f"{m[0]}{m[1]}" for m in MUST_FAIL])
def test_must_fail(small, name, args, message, argument):
    assert_refused(small, name, args, argument, message)


def test_must_fail_beamforming():
    [s] = parse_file(EXAMPLES / "beamforming.c")
    with pytest.raises(DirectiveError, match="depth overflow"):
        apply(s, "unembed", [[0]])


def test_fuse_with_a_statement_or_nothing_is_a_no_op(small):
    """Clay's fuse (reference 5.3): no next sibling, or a statement next,
    changes nothing and succeeds."""
    assert apply(small, "fuse", [[1]]) is small
    assert apply(small, "fuse", [[0, 2]]) is small
    [s] = parse_file(EXAMPLES / "beamforming.c")
    assert apply(s, "fuse", [[2, 2]]) is s


def test_reorder_ignores_extra_entries_and_gaps(small):
    """Clay's reorder (reference 5.2): extra entries are ignored, targets
    with gaps give the same order as their ranks."""
    a = apply(small, "reorder", [[0], [2, 0, 1, 7]])
    b = apply(small, "reorder", [[0], [5, 0, 3]])
    assert _betas(a) == _betas(b) == [[0, 0], [0, 1, 0], [0, 2], [1, 0]]


def test_context_clay_vector_form(small):
    """Clay's context vector is [e/i, params…, constant] (reference 5.18):
    ``[1, 1, -10]`` adds ``N - 10 >= 0``, ``[0, 1, -10]`` ``N = 10``."""
    assert "N >= 10" in str(apply(small, "context", [[1, 1, -10]]).context)
    assert "N = 10" in str(apply(small, "context", [[0, 1, -10]]).context)


def test_context_contradiction_fails(small):
    t = apply(small, "context", [[1, -10]])
    with pytest.raises(DirectiveError, match="context becomes empty"):
        apply(t, "context", [[-1, 5]])


@pytest.mark.parametrize("name,args,message", [
    ("get_beta_loop", [-1], "the iterator name was not found"),
    ("get_beta_loop", [4], "the iterator name was not found"),
    ("get_beta_stmt", [4], "the statement was not found"),
    ("get_beta_stmt", [-1], "the statement was not found"),
    ("get_beta_loop_by_name", ["zz"], "the iterator name was not found"),
    ("get_beta_loop_by_name", [3], "expected a string"),
])
def test_queries_must_fail(small, name, args, message):
    with pytest.raises(DirectiveError, match=message):
        apply(small, name, args)


# --- marks follow statements ----------------------------------------------------------------------

def _marked(scop, *loops):
    from dataclasses import replace
    return replace(scop, schedule=ClaySchedule(scop.schedule.relations,
                                               tuple(Mark("parallel", l) for l in loops)))


def test_marks_follow(small):
    s = _marked(small, (0,), (0, 2))
    t = apply(s, "split", [[0, 0], 1])
    assert {m.loop for m in t.schedule.marks} == {(0,), (1,), (1, 1)}
    t = apply(s, "reorder", [[], [1, 0]])
    assert {m.loop for m in t.schedule.marks} == {(1,), (1, 2)}
    t = apply(s, "iss", [[0], [-1, 0, 4]])
    assert {m.loop for m in t.schedule.marks} == {(0,), (0, 2), (0, 5)}
    t = apply(t, "collapse", [[0]])
    assert {m.loop for m in t.schedule.marks} == {(0,), (0, 2)}
    t = apply(s, "embed", [[0, 1]])
    u = apply(_marked(t, (0, 1)), "unembed", [[0, 1, 0]])
    assert u.schedule.marks == ()


# --- differential: legal on real examples, same outputs ----------------------------------------------

needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed")


def _transform(name: str, steps):
    [s] = parse_file(EXAMPLES / f"{name}.c")
    deps = dependences(s)
    t = s
    for d, args in steps:
        t = apply(t, d, args)
    assert deps.of_kind("RAW", "WAR", "WAW")
    vs = violations(t, deps)
    assert not vs, f"{name}: {steps} breaks {[str(v) for v in vs]}"
    return s, t


DIFFERENTIAL = [
    # the Clay paper, Fig. 9 right: the manual optimization of beamforming
    ("beamforming", [("split_children", [[2], 3]), ("reorder", [[], [1, 2, 0, 3]]),
                     ("reorder", [[0], [1, 0, 2]])]),
    # the Clay paper, Fig. 4: the distribution Pluto made, recovered by Chlore
    ("beamforming", [("split_children", [[2], 3]), ("split_children", [[2], 2]),
                     ("split_children", [[2], 1]), ("split_children", [[4, 0], 1]),
                     ("split_children", [[4], 1]), ("reorder", [[], [4, 5, 2, 0, 1, 3, 6]])]),
    ("atax", [("split", [[1, 0], 1]), ("split", [[2, 0, 0], 1]),
              ("reorder", [[], [1, 0, 2, 3]]), ("fuse", [[0]])]),
    ("2mm", [("fuse", [[0]])]),
    ("gemm", [("split", [[0, 0, 0], 1]), ("fuse", [[0]])]),
    ("gemm", [("iss", [[0], [-1, [], 3]])]),
    ("gemm", [("iss", [[0], [-1, [], 3]]), ("collapse", [[0]])]),
    ("gemm", [("peel", [[0, 1], [-3]])]),
    ("jacobi-1d", [("peel", [[0], [[-1, 0], 2]])]),
    ("jacobi-1d", [("embed", [[0, 1, 0]])]),
    ("jacobi-1d", [("embed", [[0, 1, 0]]), ("unembed", [[0, 1, 0, 0]])]),
    ("gemm", [("context", [[1, 0, 0, -1]])]),
]


@pytest.mark.parametrize("name,steps", DIFFERENTIAL,
                         ids=[f"{n}-{'-'.join(s[0] for s in st)}" for n, st in DIFFERENTIAL])
def test_legal_on_examples(name, steps):
    _transform(name, steps)


@pytest.mark.slow
@needs_gcc
@pytest.mark.parametrize("name,steps", DIFFERENTIAL,
                         ids=[f"{n}-{'-'.join(s[0] for s in st)}" for n, st in DIFFERENTIAL])
def test_differential_on_examples(name, steps, tmp_path):
    _, t = _transform(name, steps)
    out = tmp_path / f"{name}.c"
    out.write_text(generate_file([t]))
    verify(EXAMPLES / f"{name}.c", out, SMALL_SIZES[name])


def test_fig9_right_code():
    _, t = _transform("beamforming", DIFFERENTIAL[0][1])
    code = generate_region(t)
    assert code.index("a_r[i] = 0;") < code.index("a_i[i] = 0;") < code.index("t = 0;")
    assert code.index("t_val = DBL_MIN;") < code.index("val = a_r[i]")


def test_session_script_with_queries():
    import clayx
    s = clayx.load(EXAMPLES / "beamforming.c")
    s.apply("l = get_beta_loop(1); split_children(l, 3); reorder([], [1, 2, 0, 3]);"
            "reorder(get_beta_loop(1), [1, 0, 2]);")
    assert _betas(s.current) == [[0, 0], [0, 1], [0, 2, 0], [0, 2, 1], [1], [2],
                                 [3, 0], [3, 1]]


# the inverse pairs: each second step gives the original code back
INVERSES = [
    ("iss-collapse", [("iss", [[0], [[1], [0], -5]]), ("collapse", [[0]])]),
    ("embed-unembed", [("embed", [[0, 1]]), ("unembed", [[0, 1, 0]])]),
    ("split_children-fuse", [("split_children", [[0], 2]), ("fuse", [[0]])]),
    ("split-fuse", [("split", [[0, 0], 1]), ("fuse", [[0]])]),
    ("reorder-reorder", [("reorder", [[0], [2, 0, 1]]), ("reorder", [[0], [1, 2, 0]])]),
]


@pytest.mark.parametrize("steps", [s for _, s in INVERSES], ids=[n for n, _ in INVERSES])
def test_inverse_pairs_give_the_original_code(small, steps):
    first = apply(small, *steps[0])
    # the first step changes something (embed only the β-vectors: a loop of one iteration)
    assert generate_region(first) != ORIGINAL or _betas(first) != _betas(small)
    back = apply(first, *steps[1])
    assert generate_region(back) == ORIGINAL
    assert _betas(back) == _betas(small)
