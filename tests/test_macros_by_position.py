"""Issue 13, item 2 ("wrong code, silently"): macros redefined inside a
function, or defined inside the SCoP.

The front end takes the macros in force at ``#pragma scop`` by position (the
last ``#define`` before it, unless ``#undef``-ined since, at file level or in
the function), keeps a ``#define``/``#undef`` written inside the SCoP in the
generated code when every statement sees the same definition, analyses a
macro used in a statement body through its expansion, and refuses the rest
with the line and column.  Differential tests compile the original and the
generated program with gcc, run both and compare every output bit for bit.
"""

from __future__ import annotations

import re
import shutil

import pytest
import tree_sitter as ts
import tree_sitter_c as tsc

import clayx
from clayx.codegen import generate_file
from clayx.errors import LegalityError, MismatchError, NotAScopError
from clayx.frontend import macros as pp
from clayx.frontend.c import parse_string
from clayx.verify import verify

needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not available")

PROGRAM = r"""#include <stdio.h>
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
%(defs)s
static double a[64], b[64];
static void kernel(void)
{
  int i;
%(pre)s
#pragma scop
%(body)s
#pragma endscop
}
int main(void)
{
  int i;
  for (i = 0; i < 64; i++) {
    a[i] = (i * 7) %% 11 + 0.25;
    b[i] = (i * 5) %% 13 - 1.0;
  }
  kernel();
  printf("begin dump: a\n");
  for (i = 0; i < 64; i++) printf("%%.17g ", a[i]);
  printf("\nend   dump: a\nbegin dump: b\n");
  for (i = 0; i < 64; i++) printf("%%.17g ", b[i]);
  printf("\nend   dump: b\n");
  return 0;
}
"""


def program(body: str, defs: str = "", pre: str = "") -> str:
    """A complete program around the SCoP ``body`` (arrays ``a``, ``b`` of
    64 doubles, loop iterator ``i``), printing both arrays."""
    return PROGRAM % {"defs": defs, "pre": pre, "body": body}


def _write(tmp_path, name: str, text: str):
    path = tmp_path / f"{name}.c"
    path.write_text(text)
    return path


def _same_output(tmp_path, src, session, name: str, unchecked: bool = False):
    """The session's code, written next to ``src``, prints what ``src`` prints."""
    gen = _write(tmp_path, name, session.code("c", unchecked=unchecked))
    return verify(src, gen, {}, workdir=tmp_path / f"build-{name}")


def _where(text: str, needle: str) -> tuple[int, int]:
    """1-based (line, column) of the first ``needle`` in ``text``."""
    before = text[:text.index(needle)]
    return before.count("\n") + 1, len(before) - (before.rfind("\n") + 1) + 1


# --- a macro redefined in the function, before the SCoP ------------------------------------

#: (id, macro, value at file level, value in the function, SCoP body).  Under
#: the first value reversing the loop is legal, under the second it is not:
#: - stride: with STRIDE 2, a[i+1] = a[i] touches odd cells from even ones
#:   only; with 1 every iteration reads the previous one's write;
#: - lag: with LAG 1 - 1 (an expression, expanded) a[i] reads itself; with
#:   2 - 1 it reads a[i-1].
REDEFINED = [
    ("stride", "STRIDE", "2", "1",
     "  for (i = 1; i < 63; i += STRIDE)\n    a[i + 1] = a[i] * 0.5 + 1.0;"),
    ("lag", "LAG", "(1 - 1)", "(2 - 1)",
     "  for (i = 1; i < 64; i++)\n    a[i] = a[i - LAG] * 0.5 + 1.0;"),
]


def _redefined(macro: str, outer: str, inner: str, body: str) -> str:
    return program(body, defs=f"#define {macro} {outer}",
                   pre=f"#undef {macro}\n#define {macro} {inner}")


@needs_gcc
@pytest.mark.parametrize("case", REDEFINED, ids=[c[0] for c in REDEFINED])
def test_redefinition_in_the_function_makes_reverse_illegal(case, tmp_path):
    """The function's value is the one analysed: the reversal the file-level
    value would allow is refused (it was accepted, and changed the output),
    and forced through it does change the output."""
    name, macro, legal, illegal, body = case
    src = _write(tmp_path, name, _redefined(macro, legal, illegal, body))
    s = clayx.load(src)
    assert _same_output(tmp_path, src, s, "orig").ok
    with pytest.raises(LegalityError, match="RAW on a"):
        s.apply("reverse([0], 1);")
    s.apply("unchecked reverse([0], 1);")
    with pytest.raises(MismatchError):
        _same_output(tmp_path, src, s, "forced", unchecked=True)


@needs_gcc
@pytest.mark.parametrize("case", REDEFINED, ids=[c[0] for c in REDEFINED])
def test_redefinition_in_the_function_makes_reverse_legal(case, tmp_path):
    """The converse: the file-level value forbids the reversal, the value in
    force at the SCoP allows it (it was refused); the reversed code prints
    what the original prints."""
    name, macro, legal, illegal, body = case
    src = _write(tmp_path, name, _redefined(macro, illegal, legal, body))
    s = clayx.load(src)
    s.apply("reverse([0], 1);")
    assert _same_output(tmp_path, src, s, "reversed").ok


def test_values_are_taken_where_the_scop_is():
    """Two SCoPs of one file see the value in force at each (``param_values``
    had none, the file's definitions disagreeing); an ``#undef`` before a
    SCoP ends the macro, a definition after it does not count, and a
    ``#ifndef`` guard keeps its value."""
    src = """#ifndef M
# define M 7
#endif
#define N 10
double a[100];
void f(void) {
  int i;
#pragma scop
  for (i = 0; i < N + M; i++) a[i] = 1;
#pragma endscop
}
#undef N
#define N 20
void g(void) {
  int i;
#pragma scop
  for (i = 0; i < N; i++) a[i] = 2;
#pragma endscop
#undef M
#pragma scop
  for (i = 0; i < M; i++) a[i] = 3;
#pragma endscop
}
#define M 99
"""
    first, second, third = parse_string(src)
    assert first.param_values == {"N": 10, "M": 7}
    assert second.param_values == {"N": 20}
    assert third.params == ("M",) and third.param_values == {}


def test_conditional_definitions_merge():
    """(Regression guard: this held before, by a file-wide rule.)  After ``#if … #else … #endif`` either branch's definition may be in
    force: disagreeing integer values leave a parameter without a value, and
    a stride whose value is not certain is refused."""
    head = "#ifdef BIG\n#define N 20\n#define S 1\n#else\n#define N 10\n#define S 2\n#endif\n"
    [s] = parse_string(head + "double a[99];\nvoid f(void) {\n  int i;\n#pragma scop\n"
                       "  for (i = 0; i < N; i++) a[i] = 1;\n#pragma endscop\n}\n")
    assert s.params == ("N",) and s.param_values == {}
    with pytest.raises(NotAScopError, match="loop increment"):
        parse_string(head + "double a[99];\nvoid f(void) {\n  int i;\n#pragma scop\n"
                     "  for (i = 0; i < 40; i += S) a[i] = 1;\n#pragma endscop\n}\n")


# --- #define / #undef inside the SCoP -----------------------------------------------------

INSIDE = {
    # a constant defined inside, used after: kept at the top of the region
    "define": "#define SCALE 3.0\n  for (i = 0; i < 64; i++)\n    a[i] = a[i] * SCALE + b[i];",
    # a file-level macro redefined inside, every use after the change
    "redefine": ("#undef OFF\n#define OFF 2\n  for (i = 0; i < 62; i++)\n"
                 "    b[i] = a[i + OFF] - b[i];"),
    # a definition between two independent loops, the second one using it;
    # the step moves that loop above the definition's place
    "between": ("  for (i = 0; i < 64; i++)\n    a[i] = a[i] + 1.0;\n#define TWICE(x) ((x) + (x))\n"
                "  for (i = 0; i < 64; i++)\n    b[i] = TWICE(b[63 - i]) - b[i];"),
}
STEP = {"between": "reorder([], [1, 0]);"}


@needs_gcc
@pytest.mark.parametrize("name", sorted(INSIDE))
def test_define_inside_the_scop_is_kept(name, tmp_path):
    """The generated region repeats the SCoP's own ``#define``/``#undef``
    lines before any statement (they were dropped: the code did not
    compile), for the original schedule and after a transformation."""
    src = _write(tmp_path, name, program(INSIDE[name], defs="#define OFF 1"))
    s = clayx.load(src)
    assert _same_output(tmp_path, src, s, "orig").ok
    assert s.original.macro_lines
    s.apply(STEP.get(name, "reverse([0], 1);"))
    assert _same_output(tmp_path, src, s, "transformed").ok


@needs_gcc
def test_clayx_output_with_a_define_reads_back(tmp_path):
    """Tiled code has clayx's ``floord``/``min`` helpers around the user's
    ``#define``: read back, the helpers are recognised (not kept as user
    lines, not refused although used before their ``#undef``), the user's
    line is kept, and the regenerated program still prints the same."""
    src = _write(tmp_path, "tile", program(INSIDE["define"]))
    s = clayx.load(src)
    # strip-mined, then the point loop reversed: partial tiles need min/max
    # (a plain tiling of a constant loop has its full tiles isolated, no helper)
    s.apply("stripmine([0], 1, 5); reverse([0, 0], 1);")
    assert _same_output(tmp_path, src, s, "tiled").ok
    text = s.code("c")
    assert "#define min(" in text or "#define floord(" in text
    [back] = parse_string(text, path=str(tmp_path / "tile_gen.c"))
    assert back.macro_lines == ("#define SCALE 3.0",)
    again = _write(tmp_path, "again", generate_file([back]))
    assert verify(src, again, {}, workdir=tmp_path / "build-again").ok


# --- macros in statement bodies --------------------------------------------------------------

#: (id, definitions, body, array of the broken RAW).  Each macro hides an
#: access the loop carries, so reversing it is illegal; each used to be
#: taken for a constant or a pure call, and the reversal was accepted.
HIDDEN = [
    ("read-through-call", "#define AT(k) a[k]",
     "  for (i = 1; i < 64; i++)\n    a[i] = AT(i - 1) * 0.5 + 1.0;", "a"),
    ("write-through-call", "#define PUT(k, v) (a[k] = (v))",
     "  for (i = 0; i < 63; i++)\n    PUT(i + 1, a[i] * 0.5 + 1.0);", "a"),
    ("array-alias", "#define A b",
     "  for (i = 1; i < 64; i++)\n    A[i] = b[i - 1] * 0.5 + 1.0;", "b"),
    ("read-through-object-macro", "#define FIRST a[0]",
     "  for (i = 1; i < 64; i++) {\n    a[i - 1] = b[i] * 0.5;\n    b[i] = FIRST + 1.0;\n  }",
     "a"),
]


@needs_gcc
@pytest.mark.parametrize("case", HIDDEN, ids=[c[0] for c in HIDDEN])
def test_accesses_hidden_in_macros_are_seen(case, tmp_path):
    """The dependence through the macro is found: the reversal is refused,
    and forced through it changes the output; the original schedule
    regenerates to the same output."""
    name, defs, body, array = case
    src = _write(tmp_path, name, program(body, defs=defs))
    s = clayx.load(src)
    assert _same_output(tmp_path, src, s, "orig").ok
    with pytest.raises(LegalityError, match=f"on {array}:"):
        s.apply("reverse([0], 1);")
    s.apply("unchecked reverse([0], 1);")
    with pytest.raises(MismatchError):
        _same_output(tmp_path, src, s, "forced", unchecked=True)


def test_pure_macros_stay_pure_calls():
    """(Regression guard for the expansion of macros in bodies.)  A function-like macro that only reads its arguments keeps the
    accesses as written in the statement (text and order)."""
    [s] = parse_string(program("  for (i = 1; i < 64; i++)\n"
                               "    b[i] = MAXI(a[i], b[i - 1]);",
                               defs="#define MAXI(x, y) ((x) > (y) ? (x) : (y))"))
    st = s.statements[0]
    assert [(a.kind, a.text) for a in st.accesses] == [
        ("read", "a[i]"), ("read", "b[i - 1]"), ("write", "b[i]")]


# --- what is refused, and where ----------------------------------------------------------------

#: (id, definitions, code before the SCoP, body, construct, text the error
#: points at, message pattern).
REFUSED = [
    ("used-before-define", "", "",
     "  for (i = 0; i < 64; i++)\n    a[i] = K;\n#define K 3\n"
     "  for (i = 0; i < 64; i++)\n    b[i] = K;",
     "#define inside the SCoP", "#define K 3", r"uses 'K' at line \d+, before this line"),
    ("undef-while-used", "#define K 3", "",
     "  for (i = 0; i < 64; i++)\n    a[i] = a[i] * K;\n#undef K",
     "#undef inside the SCoP", "#undef K", r"uses 'K' at line \d+"),
    ("redefined-through-another-macro", "#define K2 (K + 1)", "",
     "  for (i = 0; i < 64; i++)\n    a[i] = K2;\n#define K 3",
     "#define inside the SCoP", "#define K 3", r"through 'K2'"),
    ("helper-used-in-a-body", "", "",
     "#define min(x, y) ((x) < (y) ? (x) : (y))\n  for (i = 0; i <= min(50, 63); i++)\n"
     "    a[i] = min(a[i], 2.0);\n#undef min",
     "#undef inside the SCoP", "#undef min", r"uses 'min' at line \d+"),
    ("iterator-in-object-macro", "#define PREV a[i - 1]", "",
     "  for (i = 1; i < 64; i++)\n    a[i] = PREV;",
     "loop iterator in a macro", "PREV;", r"macro 'PREV'.*loop iterator 'i'"),
    ("iterator-in-function-macro", "#define NEXT(k) a[(k) + i]", "",
     "  for (i = 1; i < 63; i++)\n    b[i] = NEXT(1);",
     "loop iterator in a macro", "NEXT(1)", r"macro 'NEXT'.*loop iterator 'i'"),
    ("statement-macro", "#define SWAP(x, y) do { double t = x; x = y; y = t; } while (0)", "",
     "  for (i = 0; i < 64; i++)\n    SWAP(a[i], b[i]);",
     "macro 'SWAP'", "SWAP(a[i], b[i])", r"is not an expression"),
    ("wrong-arity", "#define F(x, y) ((x) + (y))", "",
     "  for (i = 0; i < 64; i++)\n    a[i] = F(1);",
     "call to macro 'F'", "F(1)", r"takes 2 arguments, got 1"),
    ("bound-macro-on-iterator", "#define LIM (i * i)", "  int j;",
     "  for (i = 0; i < 8; i++)\n    for (j = 0; j < LIM; j++)\n      a[j] = i;",
     "macro parameter", "LIM;", r"'LIM' \(#define at line \d+\) depends on 'i', a loop iterator"),
    ("bound-macro-on-written", "#define LIM ((int) b[0])", "",
     "  for (i = 0; i < LIM; i++)\n    b[i] = b[i] + 1.0;",
     "macro parameter", "LIM;", r"depends on 'b', written inside the SCoP"),
    ("iterator-is-a-macro", "#define i k", "",
     "  for (i = 0; i < 64; i++)\n    a[i] = 1;",
     "macro as loop iterator", "i = 0;", r"loop iterator 'i' is a macro"),
    ("define-between-header-and-body", "", "",
     "  for (i = 0; i < 64; i++)\n#define Q 1\n    a[i] = Q;",
     "preprocessor line in a statement", "#define Q 1", r"between a loop or if header"),
]


@pytest.mark.parametrize("case", REFUSED, ids=[c[0] for c in REFUSED])
def test_refused_with_position(case):
    """Each construct is refused with one NotAScopError naming it, at its
    line and column (the macro's use for what its expansion does)."""
    _, defs, pre, body, construct, at, pattern = case
    text = program(body, defs=defs, pre=pre)
    with pytest.raises(NotAScopError) as e:
        parse_string(text, path="k.c")
    err = e.value
    scop_at = text.index("#pragma scop")
    line, column = _where(text[scop_at:], at)
    line += text[:scop_at].count("\n")
    assert (err.construct, err.line, err.column) == (construct, line, column), str(err)
    assert str(err).startswith(f"k.c:{line}:{column}: {construct}: ")
    assert re.search(pattern, err.message), err.message


# --- the preprocessor model itself -----------------------------------------------------------------

def _defs(text: str) -> dict:
    """name -> the last definition of it in ``text``."""
    src = text.encode()
    tree = ts.Parser(ts.Language(tsc.language())).parse(src)
    return {ev.name: ev for ev in pp.directives(tree.root_node, src)}


def test_substitution_follows_the_preprocessor():
    """Arguments replace parameters as text (no parentheses added) and keep
    their source range; ``#`` makes a string, ``##`` pastes (the pasted
    text is no longer from the source), ``__VA_ARGS__`` takes the rest; a
    wrong number of arguments is an error."""
    d = _defs("#define SQ(x) x * x\n#define CAT(a, b) a ## b\n#define STR(x) #x\n"
              "#define CALL(f, ...) f(__VA_ARGS__)\n")
    assert pp.substitute(d["SQ"], [("n + 1", (5, 10))]) == [
        ("n + 1", (5, 10)), (" ", None), ("*", None), (" ", None), ("n + 1", (5, 10))]
    assert "".join(t for t, _ in pp.substitute(d["CAT"], [("x", (0, 1)), ("1", (3, 4))])) == "x1"
    assert all(o is None for _, o in pp.substitute(d["CAT"], [("x", (0, 1)), ("1", (3, 4))]))
    assert pp.substitute(d["STR"], [('a "b"', (0, 5))]) == [('"a \\"b\\""', None)]
    call = pp.substitute(d["CALL"], [("g", (0, 1)), ("p", (3, 4)), ("q", (6, 7))])
    assert "".join(t for t, _ in call) == "g(p, q)"
    with pytest.raises(ValueError, match="takes 1 argument, got 2"):
        pp.substitute(d["SQ"], [("a", None), ("b", None)])


def test_definition_bodies_run_to_the_end_of_the_logical_line():
    """A comment inside a definition (where tree-sitter cuts the node) and a
    continuation line are part of the body, as for the preprocessor: the
    expression is expanded, not taken for an opaque parameter."""
    d = _defs("#define OFF (1 /* one */ + 1) // two\n#define M(x) \\\n  ((x) - 1)\n")
    assert d["OFF"].body == "(1   + 1)" and d["OFF"].key == (None, "(1 + 1)")
    assert d["M"].params == ("x",) and d["M"].body == "((x) - 1)"
    [s] = parse_string(program("  for (i = 0; i < 60; i++)\n    a[i] = a[i + OFF];",
                               defs="#define OFF (1 /* one */ + 1)"))
    assert s.params == ()
    assert "a[2 + i]" in str(s.statements[0].accesses[0].relation)
