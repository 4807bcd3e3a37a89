"""Data-layout directives (dimreorder, dimprivatize, dimcontract, add_array,
get_array_id, replace_array, datacopy_at, block): golden code, a must-fail table
with Clay's messages, the exact equivalence check (refusals leave the session
unchanged), dependences recomputed after a layout step, declarations of
reshaped arrays, and differential runs (generate, compile, run, compare)."""

from __future__ import annotations

import dataclasses
import io
import shutil
from pathlib import Path

import pytest

import clayx
from clayx import directives as D
from clayx.analysis import RAW, WAR, WAW
from clayx.analysis.equivalence import differences
from clayx.codegen import generate_region
from clayx.directives import apply as call_query
from clayx.directives.layout import array_ids, split_reference
from clayx.errors import ClayxError, CodegenError, DirectiveError, LegalityError
from clayx.frontend.c import parse_string
from clayx.frontend.openscop import read, write
from clayx.model import LAYOUT_TAG, dead_arrays, layout_info, with_layout
from clayx.verify import SMALL_SIZES, compile_c, verify
from clayx_repl.cli import run

from directive_cases import assert_refused

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not available")

# x, y, A, B are parameters of the function (live after the SCoP); t and tmp
# are locals used only in the region (dead after it).
SRC = """
void f(int N, int M, double A[100][100], double B[100][100], double x[100], double y[100]) {
  int i, j;
  double t;
  double tmp[100];
#pragma scop
  for (i = 0; i < N; i++) {
    tmp[i] = 0;
    for (j = 0; j < M; j++)
      tmp[i] = tmp[i] + A[i][j] * x[j];
    t = tmp[i] * 2;
    y[i] = t + B[i][i];
  }
#pragma endscop
}
"""
# statements: S0 [0,0] tmp[i] = 0 | S1 [0,1,0] reads tmp, A, x; writes tmp
#             S2 [0,2] reads tmp; writes t | S3 [0,3] reads t, B; writes y
# array ids: tmp 1, A 2, x 3, t 4, B 5, y 6

@pytest.fixture(scope="module")
def small():
    [s] = parse_string(SRC)
    return s


def steps(scop, *calls):
    """Apply ``(name, *args)`` directives (no check)."""
    for name, *args in calls:
        scop = D.apply(scop, name, list(args))
    return scop


def body(scop, name):
    return scop.statement(name).body


# --- goldens ---------------------------------------------------------------------------

#: (directive calls, file under tests/golden/layout/) on SRC
GOLDEN = [
    ([("dimreorder_access", [0, 1, 0], 2, [1, 0])], "dimreorder"),
    ([("dimprivatize_access", [0, 2], 2, 1), ("dimprivatize_access", [0, 3], 1, 1)],
     "dimprivatize-t"),
    ([("dimcontract_access", [0, 0], 1, 1), ("dimcontract_access", [0, 1, 0], 1, 1),
      ("dimcontract_access", [0, 2], 1, 1)], "dimcontract-tmp"),
    ([("add_array", "xc"), ("datacopy_at", 7, 3, [0, 1, 0], True, [0, 1, 0]),
      ("replace_array", 3, 7)], "datacopy-x"),
    ([("add_array", "yc"), ("datacopy_at", 7, 6, [0, 3], False, [0, 3])], "datacopy-y"),
    ([("block", [0, 2], [0, 3])], "block"),
]


@pytest.mark.parametrize("calls, file", GOLDEN, ids=[g[1] for g in GOLDEN])
def test_golden(small, golden, calls, file):
    golden("layout/original.c", generate_region(small))
    new = steps(small, *calls)
    golden(f"layout/{file}.c", generate_region(new))
    assert new.statements is not small.statements      # a new program: new analyses
    assert new.origin.schedule is new.schedule          # ... in its final order


def test_accesses_relations_and_texts(small):
    new = steps(small, ("dimreorder_access", [0, 1, 0], 2, [1, 0]))
    a = new.statement("S1").accesses[1]
    assert a.text == "A[j][i]" and a.ref == "S1_r1"
    assert a.relation.is_equal(
        _map("[N, M] -> { S1[i, j] -> A[j, i] : 0 <= i < N and 0 <= j < M }"))
    # one reference, read and written: both accesses change (same text, same relation)
    new = steps(small, ("dimprivatize_access", [0, 1, 0], 4, 2))
    reads = [a.text for a in new.statement("S1").accesses]
    assert reads == ["tmp[i][j]", "A[i][j]", "x[j]", "tmp[i][j]"]
    assert body(new, "S1") == "tmp[i][j] = tmp[i][j] + A[i][j] * x[j];"
    assert layout_info(new).reshaped == ("tmp",)
    # contracting then privatizing back gives the original relation
    back = steps(small, ("dimcontract_access", [0, 0], 1, 1), ("dimprivatize_access", [0, 0], 1, 1))
    assert back.statement("S0").accesses[0].relation.is_equal(
        small.statement("S0").accesses[0].relation)
    assert body(back, "S0") == "tmp[i] = 0;"


def test_dimreorder_gathers_as_clay():
    [s] = parse_string("""
void f(int N, double C[9][9][9], double D[9][9][9]) {
  int i, j, k;
#pragma scop
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      for (k = 0; k < N; k++)
        C[i][j][k + 1] = D[i][j][k];
#pragma endscop
}
""")
    # reference 6.2: the new subscript k is the old subscript order[k] (the
    # opposite of reorder): A[i][j][k] with [2, 0, 1] is A[k][i][j]
    new = steps(s, ("dimreorder_access", [0, 0, 0, 0], 2, [2, 0, 1]))
    assert body(new, "S0") == "C[k + 1][i][j] = D[i][j][k];"
    rel = new.statement("S0").accesses[1].relation
    assert rel.is_equal(_map("[N] -> { S0[i, j, k] -> C[k + 1, i, j] : "
                             "0 <= i < N and 0 <= j < N and 0 <= k < N }"))
    new = steps(s, ("dimreorder_access", [0, 0, 0, 0], 2, [1, 2, 0]))
    assert body(new, "S0") == "C[j][k + 1][i] = D[i][j][k];"


def test_add_array_ids_match_openscop(small):
    new = steps(small, ("add_array", "Bt"))
    ids = array_ids(new)
    assert ids == {"tmp": 1, "A": 2, "x": 3, "t": 4, "B": 5, "y": 6, "Bt": 7}
    assert call_query(new, "get_array_id", ["Bt"]) == 7
    assert call_query(new, "get_array_id", ["B"]) == 5
    assert layout_info(new).new == ("Bt",)
    # the OpenScop writer numbers arrays the same way, new arrays included
    text = write(steps(new, ("datacopy_at", 7, 5, [0, 3], True, [0, 3])))
    arrays = text[text.index("<arrays>"):text.index("</arrays>")]
    assert "\n5 B\n" in arrays and "\n7 Bt\n" in arrays


def test_datacopy_statement(small):
    new = steps(small, ("add_array", "Bd"), ("datacopy_at", 7, 5, [0, 3], True, [0, 3]))
    assert [list(b) for b in new.schedule.betas] == [[0, 0], [0, 1, 0], [0, 2], [0, 3], [0, 4]]
    cp = new.statement(new.schedule.relation((0, 3)).stmt)
    assert cp.body == "Bd[i][i] = B[i][i];"
    assert [(a.kind, a.array, a.text) for a in cp.accesses] == [
        ("read", "B", "B[i][i]"), ("write", "Bd", "Bd[i][i]")]
    assert cp.name in layout_info(new).copies
    assert new.array("Bd").ctype == "double" and new.array("Bd").ndim == 2
    after = steps(small, ("add_array", "Bd"), ("datacopy_at", 7, 5, [0, 2], False, [0, 3]))
    assert after.schedule.relation((0, 3)).stmt == cp.name


def test_block_merges_and_renames():
    [s] = parse_string("""
void f(int N, double a[9], double b[9][9], double c[9][9]) {
  int i, j, k;
#pragma scop
  for (i = 0; i < N; i++) {
    for (j = 0; j < N; j++)
      b[i][j] = a[i];
    for (k = 0; k < N; k++)
      c[i][k] = b[i][k] + 1;
  }
#pragma endscop
}
""")
    # different loops (j, k) at the same place cannot be merged; after fuse they are
    # siblings with equal domains: k is renamed j
    with pytest.raises(DirectiveError, match="not adjacent siblings"):
        steps(s, ("block", [0, 0, 0], [0, 1, 0]))
    fused = steps(s, ("fuse", [0, 0]))
    new = steps(fused, ("block", [0, 0, 0], [0, 0, 1]))
    assert [st.name for st in new.statements] == ["S0"]
    st = new.statement("S0")
    assert st.body == "{ b[i][j] = a[i]; c[i][j] = b[i][j] + 1; }"
    assert [a.ref for a in st.accesses] == ["S0_r0", "S0_r1", "S1_r0", "S1_r1"]
    assert layout_info(new).part_bounds("S0") == (2,)
    assert [list(b) for b in new.schedule.betas] == [[0, 0, 0]]


def test_split_reference():
    assert split_reference("A[i][ j + (k) ]") == ("A", ["i", "j + (k)"])
    assert split_reference("t") == ("t", [])
    assert split_reference("A[i] + 1") is None


def _map(text):
    import islpy as isl
    return isl.Map(text)


# --- must-fail table -------------------------------------------------------------------------

MUST_FAIL = [
    ("dimreorder_access", [[9, 9], 1, [1, 0]], "the beta vector was not found", 1),
    ("dimreorder_access", [[0], 1, [1, 0]], "the beta is not a statement", 1),
    ("dimreorder_access", [[0, 1, 0], 5, [1, 0]], "access not found", 2),
    ("dimreorder_access", [[0, 1, 0], 0, [1, 0]], "positive integer", 2),
    ("dimreorder_access", [[0, 1, 0], 2, [1]], "the order array is too small or too big", 3),
    ("dimreorder_access", [[0, 1, 0], 2, [0, 2]],
     "there is an overflow value on the reorder array", 3),
    ("dimreorder_access", [[0, 1, 0], 2, [1, 1]], "not a permutation", 3),
    ("dimreorder_access", [[0, 2], 2, []], "scalar", 2),
    ("dimreorder_access", [[0, 2], 2, [0]], "the order array is too small or too big",
     3),                                                             # Clay's first
    ("dimprivatize_access", [[9, 9], 1, 0], "depth overflow", 3),          # d = 0 before the β
    ("dimprivatize_access", [[9, 9], 1, -1], "the beta vector was not found", 1),  # d < 0 after it
    ("dimprivatize_access", [[0, 2], 2, -1], "depth overflow", 3),
    ("dimcontract_access", [[9, 9], 1, 0], "depth overflow", 3),
    ("dimcontract_access", [[9, 9], 1, -2], "the beta vector was not found", 1),
    ("dimprivatize_access", [[0, 2], 2, 2], "depth overflow", 3),
    ("dimprivatize_access", [[0, 2], 3, 1], "access not found", 2),
    ("dimcontract_access", [[0, 1, 0], 2, 3], "depth overflow", 3),
    ("dimcontract_access", [[0, 1, 0], 2, 0], "depth overflow", 3),
    ("add_array", ["A"], "the id already exists", 1),
    ("add_array", ["f"], "the id already exists", 1),
    ("add_array", ["N"], "the id already exists", 1),
    ("add_array", ["j"], "the id already exists", 1),
    ("add_array", ["2x"], "not a C identifier", 1),
    ("add_array", ["while"], "not a C identifier", 1),
    ("add_array", [3], "a string", 1),
    ("replace_array", [99, 1], "the array was not found", 1),
    ("replace_array", [1, 99], "the array was not found", 2),
    ("replace_array", [2, 2], "same array", 2),
    ("replace_array", [2, 3], "must agree", 2),
    # Clay's order (reference 6.6): the statement of beta_get_domain must
    # access one of the two ids before the ids are looked up
    ("datacopy_at", [99, 3, [0, 0], True, [0, 0]], "the array was not found in the given beta", 5),
    ("datacopy_at", [99, 1, [0, 0], True, [0, 0]], "the array was not found: no array has", 1),
    ("datacopy_at", [1, 99, [0, 0], True, [0, 0]], "the array was not found: no array has", 2),
    ("datacopy_at", [1, 1, [0, 0], True, [0, 0]], "same array", 2),
    ("datacopy_at", [1, 3, [], True, [0, 1, 0]], "the beta vector is empty", 3),
    ("datacopy_at", [1, 3, [7], True, [9]], "the beta vector was not found", 3),
    ("datacopy_at", [1, 3, [0, 0], True, [9]], "the beta vector was not found", 5),
    ("datacopy_at", [1, 3, [0], True, [0, 1, 0]], "the beta is not a statement", 3),
    ("datacopy_at", [1, 3, [7], True, [0, 1, 0]], "the beta vector was not found", 3),
    ("datacopy_at", [1, 3, [0, 0], True, [0]], "the beta is not a statement", 5),
    ("datacopy_at", [4, 3, [0, 0], True, [0, 2]], "the array was not found", 5),
    ("datacopy_at", [1, 3, [0, 0], True, [0, 1, 0]], "depth overflow", 3),
    ("datacopy_at", [2, 3, [0, 1, 0], True, [0, 1, 0]], "subscripts", 1),
    ("block", [[0, 0], [0, 2]], "not adjacent siblings", 2),
    ("block", [[0, 0], [0, 1, 0]], "the betas don't have the same dimensions", 1),
    ("block", [[0, 1], [0, 2]], "the beta is not a statement", 1),
    # Clay's order (reference 6.7): both found before either is a statement,
    # the domains before clayx's adjacency
    ("block", [[0, 1], [0, 9]], "the beta vector was not found", 2),
    ("block", [[0, 1], [0, 3]], "the beta is not a statement", 1),
    ("block", [[0, 0], [0, 1]], "the beta is not a statement", 2),
    ("block", [[0, 0], [9, 9]], "the beta vector was not found", 2),
    ("block", [[0], [1]], "the beta vector was not found", 2),
    ("block", [[], []], "the beta is not a statement", 1),
    ("block", [[0, 2], [0, 2]], "both", 2),
]


@pytest.mark.parametrize("name, args, message, argument", MUST_FAIL,
                         ids=lambda x: str(x)[:40])
def test_must_fail(small, name, args, message, argument):
    assert_refused(small, name, args, argument, message)


def test_must_fail_queries_and_block_shapes(small):
    with pytest.raises(DirectiveError, match="the array was not found"):
        call_query(small, "get_array_id", ["nope"])
    # equal α parts but different domains
    [s] = parse_string("""
void f(int N, double a[9], double b[9]) {
  int i;
#pragma scop
  for (i = 0; i < N; i++) {
    a[i] = 1;
    if (i > 2)
      b[i] = 2;
  }
#pragma endscop
}
""")
    with pytest.raises(DirectiveError, match="same domain"):
        D.apply(s, "block", [[0, 0], [0, 1]])
    # different α parts (shifted)
    [s2] = parse_string("""
void f(int N, double a[9], double b[9]) {
  int i;
#pragma scop
  for (i = 0; i < N; i++) {
    a[i] = 1;
    b[i] = 2;
  }
#pragma endscop
}
""")
    shifted = D.apply(s2, "shift", [[0, 1], 1, (0,), 1])
    with pytest.raises(DirectiveError, match="same α part"):
        D.apply(shifted, "block", [[0, 0], [0, 1]])
    # statements split by iss have several relations (the domains first:
    # Clay's order; here they are equal)
    split = D.apply(s2, "iss", [[0], (-1, 0, 4)])
    with pytest.raises(DirectiveError, match="several scheduling relations"):
        D.apply(split, "block", [[0, 0], [0, 1]])


def test_reference_text_must_be_found(small):
    from dataclasses import replace
    st = small.statement("S2")
    odd = replace(small, statements=tuple(replace(s, body="t = tmp [ i ]*2;") if s is st else s
                                          for s in small.statements))
    new = D.apply(odd, "dimcontract_access", [[0, 2], 1, 1])             # spacing differs: found
    assert body(new, "S2") == "t = tmp*2;"
    gone = replace(small, statements=tuple(replace(s, body="t = 2;") if s is st else s
                                           for s in small.statements))
    with pytest.raises(DirectiveError, match="not found in the body"):
        D.apply(gone, "dimcontract_access", [[0, 2], 1, 1])
    # the scalar t is not rewritten inside a longer identifier, a comment or a string
    tricky = replace(small, statements=tuple(
        replace(s, body='t = tmp[i] * 2; /* t */ tt("t");') if s is st else s
        for s in small.statements))
    new = D.apply(tricky, "dimprivatize_access", [[0, 2], 2, 1])
    assert body(new, "S2") == 't[i] = tmp[i] * 2; /* t */ tt("t");'


# --- sessions: the equivalence check, dependences, undo ----------------------------------------

@pytest.fixture
def src(tmp_path):
    p = tmp_path / "k.c"
    p.write_text(SRC)
    return p


def _unchanged(s, n, current):
    assert len(s.entries) == n and s.current is current


SEMANTIC_REFUSALS = [
    # contracting a live-out array (Clay's form: y is array 6)
    ("dimcontract([0,3], 6, 1);", "dimcontract would change the program's meaning: y[0] "
     "would hold another value after the SCoP (y may be used after it): e.g. N = 1, M = 0: "
     "its last value would be the initial value of y[0] instead of the value written by "
     "S3[i=0] (`y[i]`)"),
    # privatizing only one access: the other reads a cell never written
    ("dimprivatize_access([0,2], 2, 1);", "S3 reads t before it is written: e.g. N = 1, M = 0: "
     "S3[i=0] reads `t` (access 1), a cell of t that no statement has written yet (t is "
     "dead after the SCoP and reshaped"),
    # privatizing by a loop the value crosses (tmp[i] accumulates over j); the
    # initialization S0 cannot follow: Clay refuses privatizing tmp[i] by i
    # ("privatization failed", reference 6.3)
    ("dimprivatize_access([0,1,0], 4, 2);", "S1 reads tmp[0][0] before it is written"),
    # a new array read before it is written
    ('b = add_array("xb"); replace_array(get_array_id("x"), b);',
     "S1 reads xb[0] before it is written: e.g. N = 1, M = 1: S1[i=0, j=0] reads `xb[j]` "
     "(access 3), a cell of xb that no statement has written yet (xb is a new array)"),
    # replace_array on a live-out array without copying back
    ('b = add_array("yb"); replace_array(get_array_id("y"), b);',
     "y[0] would hold another value after the SCoP"),
    # reordering a live array's subscripts (Clay's form: A is array 2)
    ("dimreorder([0,1,0], 2, [1,0]);", "S1 would read another value through `A[j][i]` "
     "(access 2, A): e.g. N = 1, M = 2: S1[i=0, j=1] reads the initial value of A[1][0] "
     "instead of the initial value of A[0][1]"),
]


@pytest.mark.parametrize("script, message", SEMANTIC_REFUSALS, ids=lambda x: x[:40])
def test_semantic_refusals_leave_the_session_unchanged(src, script, message):
    s = clayx.load(src)
    s.apply("reorder([0], [0, 1, 2, 3]);")
    current, deps = s.current, s.deps
    with pytest.raises(LegalityError) as e:
        s.apply(script)
    assert message in str(e.value), str(e.value)
    assert "N = 1" in str(e.value)                   # a witness with parameter values
    _unchanged(s, 1, current)
    assert s.deps is deps


def test_values_changed_across_iterations_are_refused(tmp_path):
    p = tmp_path / "w.c"
    p.write_text(CONTRACT)
    s = clayx.load(p)
    with pytest.raises(LegalityError) as e:
        s.apply("dimcontract_access([0,0,0], 2, 2); dimcontract_access([0,1,0], 1, 2); "
                "dimcontract_access([0,1,0], 2, 2);")
    msg = str(e.value)
    assert msg.startswith("the layout steps dimcontract_access ×3 (checked together) would change")
    assert "would read another value through `w[i]`" in msg
    assert "instead of the value written by S0[i=0, j=" in msg
    assert len(s.entries) == 0


def test_layout_group_undo_redo_and_deps(src):
    s = clayx.load(src)
    d0 = s.deps
    assert d0.on_array("t", WAW)
    dry = s.check("dimprivatize_access([0,2], 2, 1); dimprivatize_access([0,3], 1, 1);")
    assert body(dry, "S3") == "y[i] = t[i] + B[i][i];" and s.current is s.original
    s.apply("dimprivatize_access([0,2], 2, 1); dimprivatize_access([0,3], 1, 1);")
    assert [e.pending for e in s.entries] == [True, False]
    d1 = s.deps
    assert d0.on_array("t", WAR) and d1 is not d0
    assert not d1.on_array("t", WAR, WAW) and d1.on_array("t", RAW)     # only within i
    assert s.entries[-1].deps is d1
    with pytest.raises(ClayxError, match="inside a group of layout steps.*undo 2"):
        s.undo(1)
    s.undo(2)
    assert s.deps is d0 and s.current is s.original
    with pytest.raises(ClayxError, match="redo 2"):
        s.redo(1)
    s.redo(2)
    assert s.deps is d1
    # a later schedule step is checked against the new program's dependences:
    # accepted here, refused by the original program's (t serializes i)
    with pytest.raises(LegalityError, match="carries"):
        clayx.load(src).apply("parallelize([0]);")
    s.apply("parallelize([0]);")
    assert s.current.schedule.marks


def test_add_array_binds_the_id_and_unchecked_layout(src):
    s = clayx.load(src)
    d0 = s.deps
    s.apply('b = add_array("yc"); print(b);')
    assert s.env["b"] == 7 and s.entries[0].output == "7" and s.entries[1].output == "7"
    assert s.current.statements is not s.original.statements    # a new program
    assert s.deps is not d0 and s.deps.counts() == d0.counts()     # recomputed, same
    s.undo(2)
    s.apply('b = add_array("yb"); unchecked replace_array(get_array_id("y"), b);')
    code = s.code("c", unchecked=True)
    assert s.has_unchecked and "yb[i] = t + B[i][i];" in code and "  (void)y;\n  {\n" in code
    assert s.deps.on_array("yb", WAW) == () and not s.deps.on_array("y")
    with pytest.raises(LegalityError, match="unchecked"):
        s.code("c")


def test_marks_must_hold_after_a_layout_group(tmp_path):
    p = tmp_path / "d.c"
    p.write_text(DOIT)
    s = clayx.load(p)
    s.apply(PRIVATIZE + "parallelize([0, 0]);")
    before = s.current
    # an equivalent change (acc is never read) whose copy writes acc[p] in every
    # iteration of the parallel loop q: it would carry a dependence
    with pytest.raises(LegalityError, match="marked parallel at \\[0, 0\\] carry"):
        s.apply('c = add_array("acc"); datacopy_at(c, get_array_id("sum"), [0,0,1,0], true, '
                '[0,0,1,0]); dimcontract_access([0,0,1,0], 2, 2);')
    assert s.current is before


def test_equivalence_is_exact_on_examples():
    from clayx.frontend.c import parse_file
    for stem in ("gemm", "adi", "heat-3d", "deriche"):
        [sc, *_] = parse_file(EXAMPLES / f"{stem}.c")
        new = steps(sc, ("add_array", "zz"))
        assert differences(sc, new) == []
    [sc] = parse_file(EXAMPLES / "gemm.c")
    ids = array_ids(sc)
    cp = steps(sc, ("add_array", "Ad"), ("datacopy_at", len(ids) + 1, ids["A"], [0, 1, 0, 0],
                                         True, [0, 1, 0, 0]))
    assert differences(sc, cp) == []
    assert differences(sc, steps(cp, ("replace_array", ids["A"], len(ids) + 1))) == []


def test_dead_arrays(small):
    assert dead_arrays(small) == {"t", "tmp"}
    used_after = SRC.replace("#pragma endscop\n}", "#pragma endscop\n  x[0] = t;\n}")
    [s] = parse_string(used_after)
    assert dead_arrays(s) == {"tmp"}
    static = SRC.replace("  double t;\n", "  static double t;\n")
    [s] = parse_string(static)
    assert dead_arrays(s) == {"tmp"}
    macro = SRC.replace("void f(", "#define TMP0 tmp[0]\nvoid f(")
    [s] = parse_string(macro)
    assert dead_arrays(s) == {"t"}
    # no source, but OpenScop's <clayx_arrays> keeps which arrays were local
    assert dead_arrays(read(write(small))) == {"t", "tmp"}
    assert dead_arrays(read(write(s))) == {"t"}


def test_openscop_round_trip_keeps_the_layout_record(small):
    new = steps(small, ("block", [0, 2], [0, 3]), ("add_array", "zz"),
                ("datacopy_at", 7, 6, [0, 2], False, [0, 2]))
    back = read(write(new))
    assert any(tag == LAYOUT_TAG for tag, _ in back.extensions)
    info = layout_info(back)
    # the arrays local to the C function (<clayx_arrays>) join the new ones:
    # read from OpenScop, the region is where they are declared
    assert info.new == ("zz", "tmp", "t") and info.part_bounds("S0") == ()
    assert len(info.copies) == 1
    merged = back.statements[2]
    assert info.part_bounds(merged.name) == (2,) and merged.body.startswith("{ t = tmp[i]")
    # layout steps go on from the read SCoP (reference ids are positional there)
    again = steps(back, ("dimprivatize_access", [0, 2], 3, 1))
    assert merged.name in {st.name for st in again.statements}
    assert "t[i]" in again.statement(merged.name).body
    # t was local to the C function (recorded in <clayx_arrays>): its final
    # value does not matter, as in the C file
    assert differences(back, again) == []
    # without that record every original array may be live: t's final value changes
    bare = with_layout(back, dataclasses.replace(info, new=("zz",)))
    assert [d.what for d in differences(bare, steps(bare, ("dimprivatize_access", [0, 2], 3, 1)))] \
        == ["final"]


def test_codegen_refuses_negative_and_incomplete_shapes():
    [s] = parse_string("""
void f(int N, double a[9], double b[9]) {
  int i;
#pragma scop
  for (i = 0; i < N; i++)
    b[i] = a[i - 1];
#pragma endscop
}
""")
    new = steps(s, ("add_array", "ac"), ("datacopy_at", 3, 1, [0, 0], True, [0, 0]))
    with pytest.raises(CodegenError, match=r"ac\[-1\] is accessed when N = 1"):
        generate_region(new)
    with pytest.raises(CodegenError, match="accessed with 1 and 2 subscripts"):
        [s2] = parse_string(SRC)
        generate_region(steps(s2, ("dimprivatize_access", [0, 1, 0], 1, 2)))


# --- differential runs ------------------------------------------------------------------------

DOIT = r"""
#include <stdio.h>
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#ifndef NR
# define NR 6
#endif
#ifndef NQ
# define NQ 5
#endif
#ifndef NP
# define NP 7
#endif
static double A[NR][NQ][NP], C4[NP][NP];
static void kernel(int nr, int nq, int np)
{
  int r, q, p, s;
  double sum[NP];
#pragma scop
  for (r = 0; r < nr; r++)
    for (q = 0; q < nq; q++) {
      for (p = 0; p < np; p++) {
        sum[p] = 0.0;
        for (s = 0; s < np; s++)
          sum[p] += A[r][q][s] * C4[s][p];
      }
      for (p = 0; p < np; p++)
        A[r][q][p] = sum[p];
    }
#pragma endscop
}
int main(void)
{
  int i, j, k;
  for (i = 0; i < NR; i++)
    for (j = 0; j < NQ; j++)
      for (k = 0; k < NP; k++)
        A[i][j][k] = (double)((i * j + k) % NP) / NP;
  for (i = 0; i < NP; i++)
    for (j = 0; j < NP; j++)
      C4[i][j] = (double)(i * j % NP) / NP;
  kernel(NR, NQ, NP);
  printf("begin dump: A\n");
  for (i = 0; i < NR; i++)
    for (j = 0; j < NQ; j++)
      for (k = 0; k < NP; k++)
        printf("%.17g ", A[i][j][k]);
  printf("\nend   dump: A\n");
  return 0;
}
"""
# sum[p] is written by S0 (access 1), read and written by S1 (accesses 3, 4), read by S2
PRIVATIZE = "dimprivatize_access([0,0,0,0], 1, 2); dimprivatize_access([0,0,0,1,0], 3, 2); " \
            "dimprivatize_access([0,0,1,0], 1, 2);"

CONTRACT = r"""
#include <stdio.h>
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#ifndef N
# define N 12
#endif
#ifndef M
# define M 9
#endif
static double x[N][M], y[N][M];
static void kernel(int n, int m)
{
  int i, j;
  double w[N][M];
#pragma scop
  for (i = 0; i < n; i++) {
    for (j = 0; j < m; j++)
      w[i][j] = x[i][j] * 2;
    for (j = 0; j < m; j++)
      y[i][j] = w[i][j] + w[i][m - 1 - j];
  }
#pragma endscop
}
int main(void)
{
  int i, j;
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      x[i][j] = (double)((i + 3 * j) % 11) / 7;
  kernel(N, M);
  printf("begin dump: y\n");
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      printf("%.17g ", y[i][j]);
  printf("\nend   dump: y\n");
  return 0;
}
"""

BLOCK = r"""
#include <stdio.h>
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#ifndef N
# define N 30
#endif
static double a[N], b[N], c[N][N], d[N];
static void kernel(int n)
{
  int i, j;
  double t;
#pragma scop
  for (i = 0; i < n; i++) {
    t = b[i] * 2;
    a[i] = t + 1;
    for (j = 0; j < n; j++)
      c[i][j] = a[i] * c[i][j];
  }
  for (j = 0; j < n; j++)
    d[j] = b[j] + 1;
#pragma endscop
}
int main(void)
{
  int i, j;
  for (i = 0; i < N; i++) {
    b[i] = i % 7;
    for (j = 0; j < N; j++)
      c[i][j] = (i + j) % 5;
  }
  kernel(N);
  printf("begin dump: a\n");
  for (i = 0; i < N; i++)
    printf("%.17g ", a[i]);
  printf("\nend   dump: a\nbegin dump: c\n");
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      printf("%.17g ", c[i][j]);
  printf("\nend   dump: c\nbegin dump: d\n");
  for (i = 0; i < N; i++)
    printf("%.17g ", d[i]);
  printf("\nend   dump: d\n");
  return 0;
}
"""

# gemm: C is computed transposed in a new array Ct, copied in and back
# (nk >= 1 assumed: with nk = 0 the copy back inside the k loop never runs)
GEMM_SCRIPT = """\
context([0, 0, 1, -1]);
c = add_array("Ct");
datacopy_at(c, get_array_id("C"), [0,0,0], true, [0,0,0]);
replace_array(get_array_id("C"), c);
datacopy_at(get_array_id("C"), c, [0,1,0,0], false, [0,1,0,0]);
dimreorder_access([0,0,0], 2, [1,0]);
dimreorder_access([0,0,1], 2, [1,0]);
dimreorder_access([0,1,0,0], 4, [1,0]);
dimreorder_access([0,1,0,1], 1, [1,0]);
"""


def _generate_and_verify(tmp_path, s, original: Path, sizes: dict, name="gen.c"):
    gen = tmp_path / name
    gen.write_text(s.code("c"))
    # no new warning: the generated file compiles with -Wall -Wextra -Werror
    compile_c(gen, tmp_path / (name + ".exe"), defines=sizes,
              extra_flags=("-Wall", "-Wextra", "-Werror"))
    res = verify(original, gen, sizes, workdir=tmp_path / "build")
    assert res.ok and res.values > 0
    return gen.read_text()


@pytest.mark.slow
@needs_gcc
def test_privatize_then_parallelize_doitgen_like(tmp_path):
    p = tmp_path / "doit.c"
    p.write_text(DOIT)
    s = clayx.load(p)
    with pytest.raises(LegalityError, match="WAR on sum"):
        s.apply("parallelize([0, 0]);")              # sum[p] serializes the q loop
    s.apply(PRIVATIZE)
    assert body(s.current, "S1") == "sum[p][q] += A[r][q][s] * C4[s][p];"
    s.apply("parallelize([0, 0]);")                    # legal with the new dependences
    code = _generate_and_verify(tmp_path, s, p, {})
    # a 2-D temporary goes on the heap, <stdlib.h> or not
    assert ("(void)sum;\n  {\n    void *malloc(__SIZE_TYPE__);\n    void free(void *);\n"
            "    double (*sum)[nq] = malloc(sizeof(double[np][nq]));\n") in code
    for sizes in ({"NR": 3, "NQ": 8, "NP": 4}, {"NR": 1, "NQ": 1, "NP": 2}):
        assert verify(p, tmp_path / "gen.c", sizes, workdir=tmp_path / "b2").ok


@pytest.mark.slow
@needs_gcc
def test_privatized_array_on_the_heap_with_stdlib(tmp_path):
    p = tmp_path / "doit.c"
    p.write_text(DOIT.replace("#include <stdio.h>", "#include <stdio.h>\n#include <stdlib.h>"))
    s = clayx.load(p)
    s.apply(PRIVATIZE + "parallelize([0, 0]);")
    code = _generate_and_verify(tmp_path, s, p, {"NR": 4, "NQ": 6, "NP": 5})
    assert "double (*sum)[nq] = malloc(sizeof(double[np][nq]));" in code
    assert "    free(sum);\n  }\n" in code


@pytest.mark.slow
@needs_gcc
def test_privatized_array_on_the_heap_without_stdlib(tmp_path):
    """Without <stdlib.h> a large local array is still on the heap (a
    PolyBench-size privatized temporary overflowed the stack): the region
    declares malloc and free itself."""
    p = tmp_path / "doit.c"
    p.write_text(DOIT)
    assert "stdlib" not in DOIT
    s = clayx.load(p)
    s.apply(PRIVATIZE + "parallelize([0, 0]);")
    code = _generate_and_verify(tmp_path, s, p, {"NR": 4, "NQ": 6, "NP": 5})
    assert "void *malloc(__SIZE_TYPE__);" in code and "void free(void *);" in code
    assert "double (*sum)[nq] = malloc(sizeof(double[np][nq]));" in code
    assert code.count("void *malloc(") == 1


@pytest.mark.slow
@needs_gcc
def test_contract_a_dead_temporary(tmp_path):
    p = tmp_path / "w.c"
    p.write_text(CONTRACT)
    s = clayx.load(p)
    s.apply("dimcontract_access([0,0,0], 2, 1); dimcontract_access([0,1,0], 1, 1); "
            "dimcontract_access([0,1,0], 2, 1);")
    assert body(s.current, "S1") == "y[i][j] = w[j] + w[m - 1 - j];"
    code = _generate_and_verify(tmp_path, s, p, {"N": 7, "M": 5})
    assert "double w[m];" in code


@pytest.mark.slow
@needs_gcc
def test_clay_workflow_transposed_copy_on_gemm(tmp_path):
    s = clayx.load(EXAMPLES / "gemm.c")
    with pytest.raises(LegalityError, match="nk = 0"):
        s.apply(GEMM_SCRIPT.replace("context([0, 0, 1, -1]);\n", ""))
    assert len(s.entries) == 0
    s.apply(GEMM_SCRIPT)
    assert [body(s.current, n) for n in ("S0", "S1", "S2", "S3")] == [
        "Ct[j][i] *= beta;", "Ct[j][i] += alpha * A[i][k] * B[k][j];",
        "Ct[j][i] = C[i][j];", "C[i][j] = Ct[j][i];"]
    code = _generate_and_verify(tmp_path, s, EXAMPLES / "gemm.c", SMALL_SIZES["gemm"])
    assert "double (*Ct)[ni] = malloc(sizeof(double[nj][ni]));" in code
    # the new program's dependences are in force: S0 and S1 depend through Ct,
    # and only the two copies access C
    assert ("S0", "S1") in {(d.source, d.sink) for d in s.deps.on_array("Ct", RAW)}
    assert {(d.source, d.sink) for d in s.deps.on_array("C")} <= {
        ("S2", "S3"), ("S3", "S2"), ("S3", "S3"), ("S2", "S2")}


@pytest.mark.slow
@needs_gcc
def test_block_then_schedule_the_merged_statement(tmp_path):
    p = tmp_path / "blk.c"
    p.write_text(BLOCK)
    s = clayx.load(p)
    s.apply("block([0,0], [0,1]);")
    # dependences of the merged statement are per instance: t still serializes i
    with pytest.raises(LegalityError, match="RAW on t"):
        s.apply("reverse([0], 1);")
    s.apply("dimprivatize_access([0,0], 2, 1);")          # write and read of t: one reference
    assert body(s.current, "S0") == "{ t[i] = b[i] * 2; a[i] = t[i] + 1; }"
    s.apply("reverse([0], 1); parallelize([0]);")
    code = _generate_and_verify(tmp_path, s, p, {"N": 17})
    assert "{ t[i] = b[i] * 2; a[i] = t[i] + 1; }" in code and "i--" in code
    # a plain block, then a loop transformation of the merged statement
    s2 = clayx.load(p)
    s2.apply("block([0,0], [0,1]); fuse([0]); shift([0,0], 1, {0}, 2);")
    _generate_and_verify(tmp_path, s2, p, {"N": 11}, name="gen2.c")


@pytest.mark.slow
@needs_gcc
def test_cli_script_end_to_end(tmp_path):
    script = tmp_path / "t.clay"
    script.write_text(GEMM_SCRIPT)
    dest = tmp_path / "gemm_t.c"
    out, err = io.StringIO(), io.StringIO()
    rc = run([str(EXAMPLES / "gemm.c"), "--script", str(script), "--emit", "c", "-o", str(dest)],
             stdout=out, stderr=err, stdin=io.StringIO(""))
    assert rc == 0, err.getvalue()
    assert "C[i][j] = Ct[j][i];" in dest.read_text()
    assert verify(EXAMPLES / "gemm.c", dest, SMALL_SIZES["gemm"], workdir=tmp_path / "b").ok
    # a refused layout script: exit status 3, nothing written
    bad = tmp_path / "bad.clay"
    bad.write_text('b = add_array("Ab"); replace_array(get_array_id("A"), b);\n')
    dest2 = tmp_path / "no.c"
    rc = run([str(EXAMPLES / "gemm.c"), "--script", str(bad), "--emit", "c", "-o", str(dest2)],
             stdout=io.StringIO(), stderr=(err := io.StringIO()), stdin=io.StringIO(""))
    assert rc == 3 and "before it is written" in err.getvalue() and not dest2.exists()
