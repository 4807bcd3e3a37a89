"""Clay's ``datacopy`` (CLAY-REFERENCE.md §6.6, §4.4, §4.5): the copy in a
loop nest of its own at the top level, its β entries, the head of the
statement list, the pinning of the iterators the copied access does not
use, the check order and messages; clayx's refusals where Clay's pinning
would loop without end or touch cells the program does not; the OpenScop
route; differential runs of Clay-form ``add_array; datacopy;
replace_array`` scripts.  Expected results are written from the reference,
not from clayx's output.  clayx's in-loop placement, ``datacopy_at``, is
tested in test_directives_layout.py and test_tune.py."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import islpy as isl
import pytest

import clayx
from clayx import directives as D
from clayx.analysis.equivalence import differences
from clayx.errors import DirectiveError, LegalityError
from clayx.frontend.c import parse_file, parse_string
from clayx.frontend.openscop import read, write
from clayx.model import layout_info
from clayx.verify import SMALL_SIZES, verify
from clayx_repl.cli import run

from directive_cases import assert_refused

ROOT = Path(__file__).resolve().parent
EXAMPLES = ROOT.parent / "examples"
RUNNING_SCOP = ROOT / "data" / "clay" / "running.scop"
needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not available")

# The reference's running example (§0), as Clan writes it (tests/data/clay):
#   P [0,0,0] A[i][j] = B[i][j];   Q [0,0,1] C[i][j] = A[i][j] + 1;
#   R [0,1]   D[i] = C[i][0];      T [1]     x = 0;
P, Q, R, T = "A[i][j] = B[i][j];", "C[i][j] = A[i][j] + 1;", "D[i] = C[i][0];", "x = 0;"
COPY_C = "Ct[i][j] = C[i][j];"


@pytest.fixture(scope="module")
def running():
    return clayx.load(RUNNING_SCOP).current


def copy_step(scop, name, orig, ins, before, dom):
    """``c = add_array(name); datacopy(c, get_array_id(orig), ins, before, dom)``."""
    new = D.apply(scop, "add_array", [name])
    ids = D.apply(new, "get_array_id", [orig]), D.apply(new, "get_array_id", [name])
    return D.apply(new, "datacopy", [ids[1], ids[0], list(ins), before, list(dom)])


def layout(scop) -> list[tuple[str, list[int]]]:
    """(body, β) of every relation, in statement-list order."""
    return [(st.body, list(r.beta)) for st in scop.statements for r in scop.schedule.of(st.name)]


def copy_of(scop):
    [name] = layout_info(scop).copies
    return scop.statement(name)


# --- placement, β entries, list order (reference §6.6, §4.4, §4.5) ------------------------

@pytest.mark.parametrize("ins, before, expected", [
    # before: shift-before([0,0,1], 1) moves Q, R and T one nest on (Q's nest
    # is split before Q); the copy gets β0 = 0 and Q's inner entries [0,1]
    ([0, 0, 1], 1, [(COPY_C, [0, 0, 1]), (P, [0, 0, 0]), (Q, [1, 0, 0]), (R, [1, 1]),
                    (T, [2])]),
    # after: shift-after([0,0,1], 1) moves R and T; the copy at β0 = 1 with
    # Q's inner entries shares the second half of the split nest with R
    ([0, 0, 1], 0, [(COPY_C, [1, 0, 0]), (P, [0, 0, 0]), (Q, [0, 0, 1]), (R, [1, 1]),
                    (T, [2])]),
    # a loop β_ins: the whole nest stays, the later top-level T moves on
    ([0], 0, [(COPY_C, [1, 0, 0]), (P, [0, 0, 0]), (Q, [0, 0, 1]), (R, [0, 1]), (T, [2])]),
    ([0], 1, [(COPY_C, [0, 0, 0]), (P, [1, 0, 0]), (Q, [1, 0, 1]), (R, [1, 1]), (T, [2])]),
    # only β_ins[0] places the copy: [0,1] and [0,0,0] give β0 = 0 + 1
    ([0, 1], 0, [(COPY_C, [1, 0, 0]), (P, [0, 0, 0]), (Q, [0, 0, 1]), (R, [0, 1]),
                 (T, [2])]),
    # an over-long β_ins matches P; Q moves to [1,0,1] where the copy also
    # goes: equal β-vectors, the copy heads the list so it runs first
    ([0, 0, 0, 5], 0, [(COPY_C, [1, 0, 0]), (P, [0, 0, 0]), (Q, [1, 0, 1]), (R, [1, 1]),
                       (T, [2])]),
    # the statement T as β_ins
    ([1], 1, [(COPY_C, [1, 0, 0]), (P, [0, 0, 0]), (Q, [0, 0, 1]), (R, [0, 1]), (T, [2])]),
    ([1], 0, [(COPY_C, [2, 0, 0]), (P, [0, 0, 0]), (Q, [0, 0, 1]), (R, [0, 1]), (T, [1])]),
])
def test_placement_from_the_reference(running, ins, before, expected):
    new = copy_step(running, "Ct", "C", ins, before, [0, 0, 1])
    assert layout(new) == expected
    cp = copy_of(new)
    # the copy: Q's domain and α part, a WRITE of the copy then a READ (X = Q's
    # first access to C, its write C[i][j])
    assert new.statements[0] is cp
    assert cp.domain.set_tuple_name("S1").is_equal(running.statement("S1").domain)
    assert [(a.kind, a.array, a.text) for a in cp.accesses] == [
        ("write", "Ct", "Ct[i][j]"), ("read", "C", "C[i][j]")]
    [rel] = new.schedule.of(cp.name)
    b = rel.beta
    assert rel.map.is_equal(isl.Map(f"[N] -> {{ {cp.name}[i, j] -> [{b[0]}, i, {b[1]}, j, "
                                    f"{b[2]}] }}"))


def test_integer_booleans(running):
    """Reference §9.8: integers are booleans (non-zero is true)."""
    one = copy_step(running, "Ct", "C", [0, 0, 1], 1, [0, 0, 1])
    assert layout(one) == layout(copy_step(running, "Ct", "C", [0, 0, 1], True, [0, 0, 1]))
    assert layout(copy_step(running, "Ct", "C", [0, 0, 1], 7, [0, 0, 1])) == layout(one)
    zero = copy_step(running, "Ct", "C", [0, 0, 1], 0, [0, 0, 1])
    assert layout(zero) == layout(copy_step(running, "Ct", "C", [0, 0, 1], False, [0, 0, 1]))
    assert layout(zero) != layout(one)
    s = clayx.load(RUNNING_SCOP)
    s.apply('b = add_array("Bt"); datacopy(b, get_array_id("B"), [0,0,0], 1, [0,0,0]);')
    assert layout(s.current)[0] == ("Bt[i][j] = B[i][j];", [0, 0, 0])


def test_statement_list_order_and_beta_dom_entries(running):
    """Each copy is inserted at the head of the list; the copy of a
    statement at depth 1 (R) keeps R's inner β entry."""
    one = copy_step(running, "Ct", "C", [0], 0, [0, 0, 1])
    two = copy_step(one, "Dt", "D", [2], 1, [0, 1])   # before T ([2] after the first)
    # X = R's first access to D or Dt: its write D[i]
    assert layout(two) == [("Dt[i] = D[i];", [2, 0]), (COPY_C, [1, 0, 0]), (P, [0, 0, 0]),
                           (Q, [0, 0, 1]), (R, [0, 1]), (T, [3])]


def test_the_access_copied_is_the_first_to_either_array(running):
    """X is the first access to id_orig *or* id_copy (§6.6): with Ct
    replacing C in Q, a copy back takes Q's write of Ct."""
    new = copy_step(running, "Ct", "C", [0], 1, [0, 0, 1])
    ids = {n: D.apply(new, "get_array_id", [n]) for n in ("C", "Ct")}
    new = D.apply(new, "replace_array", [ids["C"], ids["Ct"]])
    back = D.apply(new, "datacopy", [ids["C"], ids["Ct"], [1], 0, [1, 0, 1]])
    assert layout(back)[0] == ("C[i][j] = Ct[i][j];", [2, 0, 0])
    assert [(a.kind, a.array) for a in back.statements[0].accesses] == [("write", "C"),
                                                                         ("read", "Ct")]


# --- pinning (reference §6.6) -------------------------------------------------------------

ROWS = """
void f(int N, int M, double A[100][100], double y[100]) {
  int i, j;
#pragma scop
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      y[j] = y[j] + A[i][j];
#pragma endscop
}
"""


def test_an_absent_iterator_is_pinned_to_one():
    """``y[j]`` does not use i: every constraint on i becomes ``i - 1 >= 0``
    or ``-i + 1 >= 0`` (i = 1); j keeps its bounds."""
    [s] = parse_string(ROWS)
    new = copy_step(s, "yc", "y", [0], 1, [0, 0, 0])
    cp = copy_of(new)
    assert cp.body == "yc[j] = y[j];"
    assert cp.domain.is_equal(isl.Set(f"[N, M] -> {{ {cp.name}[i, j] : i = 1 and 0 <= j < M }}"))
    # the accesses are those of the pinned domain (not of y[j]'s old one)
    assert cp.accesses[1].relation.is_equal(isl.Map(
        f"[N, M] -> {{ {cp.name}[i, j] -> y[j] : i = 1 and 0 <= j < M }}"))
    # α part kept: the copy's loops are i (one iteration) and j
    [rel] = new.schedule.of(cp.name)
    assert rel.beta == (0, 0, 0)
    assert rel.map.is_equal(isl.Map(f"[N, M] -> {{ {cp.name}[i, j] -> [0, i, 0, j, 0] }}"))
    # no absent iterator: the domain is the statement's
    new = copy_step(s, "Ac", "A", [0], 1, [0, 0, 0])
    assert copy_of(new).domain.set_tuple_name("S0").is_equal(s.statement("S0").domain)


THREE = """
void f(int N, double a[100], double b[100][100][100]) {
  int i, j, k;
#pragma scop
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      for (k = 0; k < N; k++)
        b[i][j][k] = a[j];
#pragma endscop
}
"""


def test_pinning_two_iterators_in_order():
    """i and k are both absent from a[j]: both are 1, j keeps its bounds;
    with ``k >= i`` the row goes to i first (each iterator in turn), so k
    keeps only ``k <= N - 1``, which pinning k makes ``k <= 1``: no lower
    bound is left, and clayx refuses."""
    [s] = parse_string(THREE)
    cp = copy_of(copy_step(s, "ac", "a", [0], 1, [0, 0, 0, 0]))
    assert cp.domain.is_equal(isl.Set(
        f"[N] -> {{ {cp.name}[i, j, k] : i = 1 and k = 1 and 0 <= j < N }}"))
    [s] = parse_string(THREE.replace("k = 0;", "k = i;"))
    new = D.apply(s, "add_array", ["ac"])
    ids = [D.apply(new, "get_array_id", [n]) for n in ("ac", "a")]
    assert_refused(new, "datacopy", [*ids, [0], 1, [0, 0, 0, 0]], 5,
                   "is unbounded: pinning i drops `-i + k >= 0`, a bound of k")


# --- check order and messages (reference §6.6, §9.9) ------------------------------------

@pytest.mark.parametrize("args, argument, message", [
    # 1. an empty β_ins first (uint ids are not checked up front: 0 passes)
    ((0, 0, [], 1, [9]), 3, "the beta vector is empty"),
    ((9, 9, [], 1, [0, 0, 0]), 3, "the beta vector is empty"),
    # 2. β_ins not found, then 3. β_dom not found
    ((9, 9, [9], 1, [9]), 3, "the beta vector was not found"),
    ((9, 9, [0, 2], 1, [0, 0, 0]), 3, "the beta vector was not found"),
    ((9, 9, [0], 1, [9]), 5, "the beta vector was not found"),
    ((9, 9, [0, 0, 0, 5], 1, [3]), 5, "the beta vector was not found"),
    # 4. no access to either id in β_dom's (first) statement
    ((9, 9, [0], 1, [0]), 5, "the array was not found in the given beta"),
    ((0, 0, [0], 1, [0, 0, 0]), 5, "the array was not found in the given beta"),
    ((6, 7, [0], 1, [0, 0, 0]), 5, "the array was not found in the given beta"),   # C, D in P
    # then clayx's: ids that name arrays, different ones (the file's ids:
    # Clan numbers every symbol, i 1, N 2, j 3, A 4, B 5, C 6, D 7, x 8)
    ((9, 4, [0], 1, [0, 0, 0]), 1, "the array was not found: no array has the id 9"),
    ((4, 9, [0], 1, [0, 0, 0]), 2, "the array was not found: no array has the id 9"),
    ((4, 4, [0], 1, [0, 0, 0]), 2, "the copy and the original are the same array (A)"),
    # the copy array accessed with other subscripts (D has one, A[i][j] two)
    ((7, 4, [0], 1, [0, 0, 0]), 1, "D is accessed with [1] subscripts"),
])
def test_check_order(running, args, argument, message):
    assert_refused(running, "datacopy", args, argument, message)


def test_check_order_in_scripts():
    """The same messages through a script (argument types first)."""
    s = clayx.load(RUNNING_SCOP)
    for script, message in [
        ("datacopy(9, 9, [], true, [9]);", "the beta vector is empty"),
        ("datacopy(9, 9, [9], true, [9]);", "the beta vector was not found"),
        ("datacopy(9, 9, [0,0,0], true, [9]);", "the beta vector was not found"),
        ("datacopy(1, 2, [0,0,0], true, [1]);", "the array was not found in the given beta"),
        ("datacopy([0], 1, [0], true, [0]);", "invalid type"),
    ]:
        with pytest.raises(clayx.errors.ClayxError, match=message.replace("[", r"\[")):
            s.apply(script)
        assert s.entries == ()


# --- where Clay is dangerous: clayx refuses -----------------------------------------------

TRIANGLE = """
void f(int N, int M, double A[100], double B[100][100]) {
  int i, j;
#pragma scop
  for (i = 0; i < N; i++)
    for (j = 0; j <= i; j++)
      B[i][j] = A[j];
#pragma endscop
}
"""


def test_triangular_copy_unbounded_is_refused():
    """Pinning i drops ``j <= i``: Clay's copy would run j from 0 on
    without end."""
    [s] = parse_string(TRIANGLE)
    new = D.apply(s, "add_array", ["At"])
    assert_refused(new, "datacopy", [3, 1, [0], 1, [0, 0, 0]], 5,
                   "is unbounded: pinning i drops `i - j >= 0`, a bound of j")


def test_triangular_copy_reading_outside_is_refused():
    """With ``j < M`` kept, the copy is bounded but reads A[j] for j up to
    M - 1, beyond what the statement reads (j <= i < N)."""
    [s] = parse_string(TRIANGLE.replace("j <= i;", "j <= i && j < M;"))
    new = D.apply(s, "add_array", ["At"])
    with pytest.raises(DirectiveError) as e:
        D.apply(new, "datacopy", [3, 1, [0], 1, [0, 0, 0]])
    msg = str(e.value)
    assert "the copy reads A[" in msg and "a cell the program never accesses" in msg
    assert "pinning i drops `i - j >= 0`, a bound of j" in msg
    # a witness: a cell at least N (read only up to N - 1)
    assert e.value.argument == 5


def test_triangular_copy_without_lost_bound_is_accepted():
    """Copying B[i][j] pins nothing: the triangular copy is exact."""
    [s] = parse_string(TRIANGLE)
    new = copy_step(s, "Bt", "B", [0], 1, [0, 0, 0])
    cp = copy_of(new)
    assert cp.domain.set_tuple_name("S0").is_equal(s.statement("S0").domain)
    assert differences(s, new) == []


def test_a_lost_bound_that_changes_nothing_is_accepted():
    """``for j in [i, N)``, copying A[j] where i is absent: the lower bound
    ``j >= i`` is lost, but ``j >= 0`` remains and the program reads A[0]
    (at i = 0): the copy reads nothing the program does not."""
    [s] = parse_string("""
void f(int N, double A[100], double B[100][100]) {
  int i, j;
#pragma scop
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      if (j >= i)
        B[i][j] = A[j];
#pragma endscop
}
""")
    new = copy_step(s, "At", "A", [0], 1, [0, 0, 0])
    cp = copy_of(new)
    assert cp.domain.is_equal(isl.Set(f"[N] -> {{ {cp.name}[i, j] : i = 1 and 0 <= j < N }}"))


def test_dates_of_different_lengths_are_refused():
    """The copy of C (β [1,0,0]) placed before the nest of B keeps C's
    inner entries [0,0]: [0,0,0] would be inside the statement a[i] = 0 at
    [0,0] (Clay leaves such dates unordered)."""
    [s] = parse_string("""
void f(int N, double a[100], double b[100][100], double c[100][100]) {
  int i, j;
#pragma scop
  for (i = 0; i < N; i++) {
    a[i] = 0;
    for (j = 0; j < N; j++)
      b[i][j] = a[i];
  }
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      c[i][j] = b[i][j];
#pragma endscop
}
""")
    new = D.apply(s, "add_array", ["bt"])
    assert_refused(new, "datacopy", [4, 2, [0, 1, 0], 1, [1, 0, 0]], 3,
                   "would have dates of different lengths")


# --- meaning: the equivalence check -------------------------------------------------------

def test_copy_then_replace_is_equivalent_and_a_bad_use_is_refused():
    [s] = parse_string(ROWS)
    new = copy_step(s, "yc", "y", [0], 1, [0, 0, 0])
    ids = {n: D.apply(new, "get_array_id", [n]) for n in ("y", "yc")}
    assert differences(s, new) == []                              # not consumed: harmless
    used = D.apply(new, "replace_array", [ids["y"], ids["yc"]])
    diffs = differences(s, used)                                  # y's final values lost
    assert [d.what for d in diffs] == ["final"]
    back = D.apply(used, "datacopy", [ids["y"], ids["yc"], [1], 0, [1, 0, 0]])
    assert differences(s, back) == []
    # a copy placed after the statement it should feed: y read before it is copied
    late = copy_step(s, "yc", "y", [0], 0, [0, 0, 0])
    late = D.apply(late, "replace_array", [ids["y"], ids["yc"]])
    assert "uninitialized" in [d.what for d in differences(s, late)]


def test_session_refuses_a_copy_that_changes_the_meaning():
    s = clayx.load(RUNNING_SCOP)
    with pytest.raises(LegalityError, match="change the program's meaning"):
        s.apply('c = add_array("Ct"); datacopy(c, get_array_id("C"), [0], false, [0,0,1]);'
                'replace_array(get_array_id("C"), c);')
    assert s.entries == ()


# --- OpenScop (issue 12: the new statement and its array type after read-back) ----------

def test_emit_scop_keeps_the_copy_first_and_its_type():
    [s] = parse_string(ROWS)
    new = copy_step(s, "yc", "y", [0], 1, [0, 0, 0])
    text = write(new)
    # the copy is statement 1: its body, then a WRITE of yc and a READ of y
    first = text[text.index("Statement 1"):text.index("Statement 2")]
    assert "yc[j] = y[j];" in first
    assert first.index("WRITE") < first.index("READ")
    back = read(text)
    assert [st.body for st in back.statements] == [st.body for st in new.statements]
    assert back.array("yc").ctype == "double" and back.array("yc").ndim == 1
    assert len(layout_info(back).copies) == 1
    cp = back.statements[0]
    assert cp.name in layout_info(back).copies
    assert cp.domain.set_tuple_name("X").is_equal(copy_of(new).domain.set_tuple_name("X"))
    assert layout(back) == layout(new)


# --- differential runs: compile, run, compare bit for bit ----------------------------------

GEMM_SCRIPTS = [
    # A copied (j pinned) and used
    'a = add_array("Ac"); datacopy(a, get_array_id("A"), [0], true, [0,1,0,0]);'
    'replace_array(get_array_id("A"), a);',
    # B copied (i pinned) and used, the copy after the nest is harmless
    'b = add_array("Bc"); datacopy(b, get_array_id("B"), [0], 1, [0,1,0,0]);'
    'replace_array(get_array_id("B"), b);'
    'd = add_array("Bd"); datacopy(d, get_array_id("Bc"), [1], 0, [1,1,0,0]);',
    # C copied in, computed transposed, copied back (k pinned in the copy back)
    'c = add_array("Ct"); datacopy(c, get_array_id("C"), [0], true, [0,0,0]);'
    'replace_array(get_array_id("C"), c);'
    'datacopy(get_array_id("C"), c, [1], false, [1,1,0,0]);'
    'dimreorder([], c, [1,0]);',
]


@needs_gcc
@pytest.mark.slow
@pytest.mark.parametrize("script", GEMM_SCRIPTS, ids=["A", "B", "C-transposed"])
def test_gemm_clay_datacopy_runs_equal(tmp_path, script):
    path = EXAMPLES / "gemm.c"
    s = clayx.load(path)
    s.apply(script)
    gen = tmp_path / "gemm.c"
    gen.write_text(s.code())
    for sizes in (SMALL_SIZES["gemm"], {"NI": 3, "NJ": 5, "NK": 1}, {"NI": 2, "NJ": 1, "NK": 4}):
        res = verify(path, gen, sizes, workdir=tmp_path / "w")
        assert res.ok and res.values > 0


ONE_D = r"""
#include <stdio.h>
#ifndef N
# define N 9
#endif
static double x[N], y[N];
int main(void)
{
  int i, r;
  for (i = 0; i < N; i++) {
    x[i] = (i * 5 % 7) / 7.0;
    y[i] = i / 3.0;
  }
#pragma scop
  for (r = 0; r < 3; r++)
    for (i = 0; i < N; i++)
      y[i] = y[i] * 0.5 + x[i];
#pragma endscop
  printf("begin dump: y\n");
  for (i = 0; i < N; i++)
    printf("%.17g\n", y[i]);
  printf("end   dump: y\n");
  return 0;
}
"""


@needs_gcc
@pytest.mark.slow
def test_one_d_clay_datacopy_runs_equal(tmp_path):
    """y and x copied in (r pinned), the kernel on the copies, y copied back."""
    path = tmp_path / "oned.c"
    path.write_text(ONE_D)
    s = clayx.load(path)
    s.apply('c = add_array("yc"); datacopy(c, get_array_id("y"), [0], 1, [0,0,0]);'
            'replace_array(get_array_id("y"), c);'
            'u = add_array("xc"); datacopy(u, get_array_id("x"), [1], 1, [1,0,0]);'
            'replace_array(get_array_id("x"), u);'
            'datacopy(get_array_id("y"), c, [2], 0, [2,0,0]);')
    code = s.code()
    assert "yc[i] = y[i];" in code and "y[i] = yc[i];" in code and "xc[i] = x[i];" in code
    gen = tmp_path / "gen.c"
    gen.write_text(code)
    for sizes in ({}, {"N": 1}, {"N": 4}):
        res = verify(path, gen, sizes, workdir=tmp_path / "w")
        assert res.ok and res.values > 0


@needs_gcc
@pytest.mark.slow
def test_running_example_split_nest_runs_equal(tmp_path):
    """Before Q (shift-before splits the nest) the copy of B takes P's
    inner entries and so shares the first nest with P, first at equal
    dates; P reading the copy computes what it did."""
    path = ROOT / "data" / "clay" / "running.c"
    s = clayx.load(path)
    s.apply('c = add_array("Bt"); datacopy(c, get_array_id("B"), [0,0,1], 1, [0,0,0]);'
            'replace_array(get_array_id("B"), c);')
    assert layout(s.current) == [("Bt[i][j] = B[i][j];", [0, 0, 0]), ("A[i][j] = Bt[i][j];",
                                 [0, 0, 1]), (Q, [1, 0, 0]), (R, [1, 1]), (T, [2])]
    gen = tmp_path / "running.c"
    gen.write_text(s.code())
    res = verify(path, gen, {}, workdir=tmp_path / "w")
    assert res.ok and res.values > 0


def test_listing_tells_the_two_placements_apart():
    listing = D.listing()
    assert "datacopy(id_copy: int, id_orig: int, beta_insert: beta" in listing
    assert "datacopy_at(id_copy: int>0, id_orig: int>0" in listing
    assert ("datacopy puts the copy in a loop nest of its own at the top level (Clay's); "
            "datacopy_at right before or after a statement, inside its loops") in listing


@needs_gcc
@pytest.mark.slow
def test_gemm_clay_datacopy_through_emit_scop_runs_equal(tmp_path):
    """``--script … --emit scop``, read back with ``--emit c``: the copies
    (first in the file), the new array's type and the code's results."""
    path = EXAMPLES / "gemm.c"
    script = tmp_path / "s.clay"
    script.write_text(GEMM_SCRIPTS[2].replace(";", ";\n"))
    scop_file = tmp_path / "t.scop"
    out, err = io.StringIO(), io.StringIO()
    argv = [str(path), "--script", str(script), "--emit", "scop", "-o", str(scop_file)]
    assert run(argv, stdout=out, stderr=err, stdin=io.StringIO()) == 0, err.getvalue()
    text = scop_file.read_text()
    # each copy heads the list: the copy back (made last) first
    first = text[text.index("Statement 1"):text.index("Statement 2")]
    second = text[text.index("Statement 2"):text.index("Statement 3")]
    assert "C[i][j] = Ct[j][i];" in first and "Ct[j][i] = C[i][j];" in second
    back = read(text)
    assert back.array("Ct").ctype == "double" and len(layout_info(back).copies) == 2
    out = io.StringIO()
    assert run([str(scop_file), "--emit", "c"], stdout=out, stderr=err,
               stdin=io.StringIO()) == 0, err.getvalue()
    a, b = parse_file(path)[0].region
    src = path.read_text()
    gen = tmp_path / "gemm.c"
    gen.write_text(src[:a] + out.getvalue() + src[b:])
    res = verify(path, gen, SMALL_SIZES["gemm"], workdir=tmp_path / "w")
    assert res.ok and res.values > 0
