"""C front end: the model it builds, and the constructs it refuses."""

from __future__ import annotations

import islpy as isl
import pytest

from clayx.errors import NotAScopError
from clayx.frontend.c import parse_string


def wrap(body: str, decls: str = "double A[100][100], B[100], x, y; int n, m;") -> str:
    """A C file whose SCoP region is ``body`` (starting on line 5)."""
    return (f"#define N 100\n{decls}\nvoid f(void) {{\n#pragma scop\n{body}\n"
            f"#pragma endscop\n}}\n")


def one(body: str, **kw):
    [scop] = parse_string(wrap(body, **kw))
    return scop


def eq(obj, text: str) -> bool:
    other = type(obj)(text)
    return obj.is_equal(other)


def test_triangular_nest_and_schedule():
    s = one("for (int i = 0; i < n; i++)\n  for (int j = 0; j <= i; j++)\n"
            "    A[i][j] = A[i][j] + B[j];")
    [st] = s.statements
    assert st.iterators == ("i", "j")
    assert eq(st.domain, "[n] -> { S0[i, j] : 0 <= j <= i < n }")
    assert s.params == ("n",)
    [r] = s.schedule.relations
    assert r.beta == (0, 0, 0)
    assert r.map.is_equal(isl.Map("[n] -> { S0[i, j] -> [0, i, 0, j, 0] }"))
    kinds = sorted((a.kind, a.array) for a in st.accesses)
    assert kinds == [("read", "A"), ("read", "B"), ("write", "A")]
    wa = [a for a in st.accesses if a.kind == "write"][0]
    assert wa.relation.is_equal(isl.Map("[n] -> { S0[i, j] -> A[i, j] : 0 <= j <= i < n }"))


def test_reversed_and_strided_loops():
    s = one("for (int i = n - 1; i >= 1; i--)\n  B[i] = B[i-1];\n"
            "for (int k = 2; k < n; k += 3)\n  B[k] = 0;")
    s0, s1 = s.statements
    assert eq(s0.domain, "[n] -> { S0[i] : 1 <= i < n }")
    assert s.schedule.of("S0")[0].map.is_equal(isl.Map("[n] -> { S0[i] -> [0, -i, 0] }"))
    assert eq(s1.domain, "[n] -> { S1[k] : 2 <= k < n and (k - 2) mod 3 = 0 }")
    assert s.schedule.of("S1")[0].beta == (1, 0)


def test_min_max_floord_division_and_macros():
    s = one("for (int i = max(0, n - 10); i < min(n, m); i++)\n"
            "  for (int j = floord(i, 2); j <= (i + 1) / 2 && j < N; j++)\n"
            "    A[i][j % 3] = x;")
    [st] = s.statements
    assert s.param_values == {"N": 100}
    assert set(s.params) == {"n", "m", "N"}
    assert eq(st.domain, "[n, m, N] -> { S0[i, j] : i >= 0 and i >= n - 10 and i < n and i < m"
                         " and 2j >= i - 1 and 2j <= i + 1 and j < N }")


def test_affine_macro_is_expanded():
    src = ("#define N 50\n#define NX (N + 2)\ndouble A[60];\nvoid f(void) {\n#pragma scop\n"
           "for (int i = 0; i < NX; i++) A[i] = 1;\n#pragma endscop\n}\n")
    [s] = parse_string(src)
    assert s.params == ("N",)
    assert eq(s.statements[0].domain, "[N] -> { S0[i] : 0 <= i < N + 2 }")


def test_if_else_and_logic():
    s = one("for (int i = 0; i < n; i++)\n  if (i > 2 && !(i == 5) || i == 0) B[i] = 1; else B[i] = 2;")
    s0, s1 = s.statements
    assert eq(s0.domain, "[n] -> { S0[i] : 0 <= i < n and ((i > 2 and i != 5) or i = 0) }")
    assert eq(s1.domain, "[n] -> { S1[i] : 0 <= i < n and (i = 1 or i = 2 or i = 5) }")
    assert [r.beta for r in s.schedule] == [(0, 0), (0, 1)]


def test_may_write_in_ternary_and_scalars():
    s = one("for (int i = 0; i < n; i++)\n  x = (B[i] > y) ? (y = B[i], i) : x;")
    [st] = s.statements
    kinds = {(a.kind, a.array) for a in st.accesses}
    assert ("may_write", "y") in kinds and ("write", "x") in kinds
    assert ("read", "B") in kinds


def test_declared_iterators_and_region():
    src = wrap("for (i = 0; i < n; i++)\n  B[i] = 0;", decls="double B[10]; int n;")
    src = src.replace("void f(void) {\n", "void f(void) {\n  int i;\n")
    [s] = parse_string(src)
    assert s.declared_iterators == {"i"}
    region = s.source[s.region[0]:s.region[1]]
    assert region == "for (i = 0; i < n; i++)\n  B[i] = 0;\n"
    assert s.source[:s.region[0]].endswith("#pragma scop\n")
    assert s.source[s.region[1]:].startswith("#pragma endscop")


def test_two_regions_and_array_declarations():
    src = ("double A[10][20];\nvoid f(int n, double C[restrict 30]) {\n#pragma scop\n"
           "for (int i = 0; i < n; i++) A[i][0] = C[i];\n#pragma endscop\n"
           "#pragma scop\nfor (int i = 0; i < n; i++) C[i] = 1;\n#pragma endscop\n}\n")
    s1, s2 = parse_string(src)
    arrays = {a.name: a for a in s1.arrays}
    assert arrays["A"].extents == ("10", "20") and arrays["A"].ctype == "double"
    assert len(s2.statements) == 1


def test_polybench_declaration_style():
    src = ("void k(int n, DATA_TYPE POLYBENCH_2D(A,N,N,n,n)) {\n  int i, j;\n#pragma scop\n"
           "for (i = 0; i < _PB_N; i++)\n  for (j = 0; j < _PB_N; j++)\n"
           "    A[i][j] = SCALAR_VAL(0.5) * A[i][j];\n#pragma endscop\n}\n")
    [s] = parse_string(src)
    assert s.params == ("_PB_N",)
    assert s.array("A").extents == ("N", "N")
    assert s.array("A").ctype == "DATA_TYPE"


# --- must-fail table: (construct expected, snippet, line, column) ----------------
# The region starts on line 5 of wrap(); columns are 1-based.
MUST_FAIL = [
    ("while loop", "while (x < 3) x = x + 1;", 5, 1),
    ("do-while loop", "do { x = 1; } while (0);", 5, 1),
    ("break", "for (int i = 0; i < n; i++) {\n  break;\n}", 6, 3),
    ("continue", "for (int i = 0; i < n; i++) {\n  continue;\n}", 6, 3),
    ("return", "return;", 5, 1),
    ("goto", "goto end;", 5, 1),
    ("switch", "switch (n) { default: x = 1; }", 5, 1),
    ("declaration inside the SCoP", "double t = 1.0;", 5, 1),
    ("non-affine expression", "for (int i = 0; i < n * m; i++) x = 1;", 5, 21),
    ("non-affine expression", "for (int i = 0; i < n; i++)\n  B[i * i] = 0;", 6, 5),
    ("indirection", "for (int i = 0; i < n; i++)\n  A[(int)B[i]][0] = 0;", 6, 10),
    ("array access in an affine expression", "for (int i = 0; i < B[0]; i++) x = 1;", 5, 21),
    ("pointer dereference", "*p = 1;", 5, 1),
    ("address-of", "foo(&x);", 5, 5),
    ("struct member access", "s.f = 1;", 5, 1),
    ("data-dependent bound", "n = 3;\nfor (int i = 0; i < n; i++) x = 1;", 5, 1),
    ("write to a loop iterator", "for (int i = 0; i < n; i++)\n  i = 2;", 6, 3),
    ("loop condition", "for (int i = 0; i > n; i++) x = 1;", 5, 17),
    ("loop condition", "for (int i = 0; i != n; i++) x = 1;", 5, 17),
    ("loop increment", "for (int i = 0; i < n; i *= 2) x = 1;", 5, 24),
    ("loop increment", "for (int i = 0; i < n; i += m) x = 1;", 5, 24),
    ("call to foo", "for (int i = 0; i < foo(n); i++) x = 1;", 5, 21),
    ("non-integer constant", "for (int i = 0; i < 2.5; i++) x = 1;", 5, 21),
    ("shadowed iterator", "for (int i = 0; i < n; i++)\n  for (int i = 0; i < n; i++) x = 1;", 6, 8),
    ("iterator outside its loop", "for (int i = 0; i < n; i++) x = 1;\nB[i] = 0;", 6, 3),
    ("inconsistent array dimensionality", "B[0] = 1;\nB[0][1] = 2;", 6, 1),
    ("preprocessor directive", "#ifdef FOO\nx = 1;\n#endif", 5, 1),
    ("non-integer loop iterator", "for (double d = 0; d < n; d++) x = 1;", 5, 6),
    ("call through a pointer", "(*fp)(x);", 5, 1),
]


@pytest.mark.parametrize("construct,body,line,col", MUST_FAIL,
                         ids=[f"{c}-{k}" for k, (c, *_rest) in enumerate(MUST_FAIL)])
def test_must_fail(construct, body, line, col):
    with pytest.raises(NotAScopError) as ei:
        parse_string(wrap(body), path="k.c")
    e = ei.value
    assert e.construct == construct, str(e)
    assert (e.line, e.column) == (line, col), str(e)
    assert f"k.c:{line}:{col}:" in str(e)
    assert construct in str(e)


def test_no_region():
    with pytest.raises(NotAScopError, match="no '#pragma scop' region"):
        parse_string("int main(void) { return 0; }\n", path="x.c")


def test_unmatched_pragmas():
    with pytest.raises(NotAScopError, match="without a matching"):
        parse_string("void f(void) {\n#pragma scop\n}\n")
    with pytest.raises(NotAScopError, match="without '#pragma scop'"):
        parse_string("void f(void) {\n#pragma endscop\n}\n")


def test_syntax_error_is_reported():
    with pytest.raises(NotAScopError) as ei:
        parse_string(wrap("x = (1 + ;"))
    assert ei.value.construct == "syntax error"
    assert ei.value.line == 5


def test_parameter_read_before_its_bound_is_no_access():
    s = one("x = 1.0 / n;\nfor (int i = 0; i < n; i++)\n  B[i] = x;")
    assert "n" in s.params
    assert [a.array for a in s.statements[0].accesses] == ["x"]
    assert "n" not in {a.name for a in s.arrays}


def test_header_constant_is_no_access():
    s = one("x = DBL_MIN;\nfor (int i = 0; i < n; i++)\n  B[i] = M_PI * y;")
    assert {a.name for a in s.arrays} == {"x", "B", "y"}


def test_declared_or_written_caps_name_is_an_access():
    s = one("XS = 1.0;\nx = XS + YS;", decls="double x, XS, YS;")
    assert {a.name for a in s.arrays} == {"x", "XS", "YS"}


@pytest.mark.parametrize("src", [
    "void f(void){\n# pragma scop\nfor (int i=0;i<N;i++) a[i]=0;\n# pragma endscop\n}\n",
    "void f(void){\n  #pragma scop // region\nfor (int i=0;i<N;i++) a[i]=0;\n  #pragma endscop /* end */\n}\n",
    "void f(void){\r\n#pragma scop\r\nfor (int i=0;i<N;i++)\r\n  a[i]=0;\r\n#pragma endscop\r\n}\r\n",
], ids=["space-after-hash", "trailing-comments", "crlf"])
def test_pragma_spellings_and_line_endings(src):
    from clayx.codegen import generate_file
    [s] = parse_string(src)
    assert len(s.statements) == 1
    out = generate_file([s])
    a, b = s.region
    assert out[:a] == src[:a] and out.endswith(src[b:])
    if "\r\n" in src:  # the generated region keeps the file's line endings
        assert "\n" not in out.replace("\r\n", "")


def test_clay_style_top_level_region():
    """Clay's test inputs put the SCoP at file level, outside any function,
    with the script in a comment before it."""
    src = ("/* Clay\n   fuse([0]);\n */\n#pragma scop\nfor (i = 0 ; i < N ; i++)\n  a[i] = 0;\n"
           "for (i = 0 ; i < N ; i++) {\n  b[i] = a[i];\n  if (i > 2) c[i] = b[i-1];\n}\n"
           "#pragma endscop\n")
    from clayx.codegen import generate_file
    [s] = parse_string(src)
    assert [r.beta for r in s.schedule] == [(0, 0), (1, 0), (1, 1)]
    assert s.declared_iterators == {"i"}
    out = generate_file([s])
    assert out.startswith(src[:s.region[0]]) and "for (i = 0; i < N; i++)" in out
    [again] = parse_string(out)
    assert len(again.statements) == 3


# --- liveness: which arrays matter after the SCoP ------------------------------------------

LIVE = """#define SHOW u[0]
double g[10];
void f(int n, double p[10]) {
  double t[10], u[10], w[10], v;
  static double s[10];
  int i;
#pragma scop
  for (i = 0; i < n; i++) {
    t[i] = p[i];
    u[i] = t[i];
    w[i] = u[i];
    s[i] = w[i];
    g[i] = s[i];
    v = g[i];
    p[i] = v;
  }
#pragma endscop
  w[0] = 1;
}
"""


def test_live_out_is_decided_by_the_front_end():
    """Dead after the SCoP: locals named nowhere else in the function (t, v);
    live: parameters and globals (p, g), a local a macro names (u), one used
    after the region (w), a static one (s)."""
    [s] = parse_string(LIVE)
    live = {a.name: a.live_out for a in s.arrays}
    assert live == {"t": False, "u": True, "w": True, "s": True, "g": True, "v": False,
                    "p": True}


def test_liveness_is_read_from_the_model():
    """The analyses take liveness from ``Array.live_out`` (and the layout
    record), not from the source text: marking every array live makes none
    dead although the source is there."""
    import dataclasses

    from clayx.model import dead_arrays
    [s] = parse_string(LIVE)
    assert dead_arrays(s) == {"t", "v"}
    all_live = dataclasses.replace(
        s, arrays=tuple(dataclasses.replace(a, live_out=True) for a in s.arrays))
    assert all_live.source == s.source and dead_arrays(all_live) == frozenset()
