"""Clay script language: goldens, printing, round-trip property, must-fail table,
embedded scripts in C."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clayx.errors import DirectiveError, ScriptSyntaxError
from clayx.script import (Array, Call, ClayList, Script, Step, Str, Var,
                          extract_embedded, to_python)

CLAY_SAMPLE = '''\
# comment to end of line
reorder([0], [1, 0]);
fuse([0]);
split([0, 0], 1);
iss([0], {1 | 0 | -1 | 3});     # lists: items separated by |
shift([0,0], 1, {1}, 2);
i = get_beta_loop(1);           // single-letter variables
interchange(i, 1, 2, true);     /* true/false */
dimreorder([0], 1, [1, 0]);
replace_array(2, 3);
x = get_array_id("A");
print(i);
break();
'''


def one(text: str) -> Step:
    s = Script.parse(text)
    assert len(s) == 1
    return s.steps[0]


# --------------------------------------------------------------------------- goldens

def test_parse_clay_sample_golden():
    s = Script.parse(CLAY_SAMPLE)
    assert s == Script((
        Step(Call("reorder", (Array((0,)), Array((1, 0))))),
        Step(Call("fuse", (Array((0,)),))),
        Step(Call("split", (Array((0, 0)), 1))),
        Step(Call("iss", (Array((0,)), ClayList((1, 0, -1, 3))))),
        Step(Call("shift", (Array((0, 0)), 1, ClayList((1,)), 2))),
        Step(Call("get_beta_loop", (1,)), target="i"),
        Step(Call("interchange", (Var("i"), 1, 2, True))),
        Step(Call("dimreorder", (Array((0,)), 1, Array((1, 0))))),
        Step(Call("replace_array", (2, 3))),
        Step(Call("get_array_id", (Str("A"),)), target="x"),
        Step(Call("print", (Var("i"),))),
        Step(Call("break", ())),
    ))


def test_print_clay_sample_golden():
    assert str(Script.parse(CLAY_SAMPLE)) == '''\
reorder([0], [1, 0]);
fuse([0]);
split([0, 0], 1);
iss([0], {1 | 0 | -1 | 3});
shift([0, 0], 1, {1}, 2);
i = get_beta_loop(1);
interchange(i, 1, 2, true);
dimreorder([0], 1, [1, 0]);
replace_array(2, 3);
x = get_array_id("A");
print(i);
break();
'''


@pytest.mark.parametrize("text, step", [
    ("f(-12);", Step(Call("f", (-12,)))),
    ("f([]);", Step(Call("f", (Array(()),)))),
    ("f({});", Step(Call("f", (ClayList(()),)))),
    ("f({[1, 2] | -3 | []});", Step(Call("f", (ClayList((Array((1, 2)), -3, Array(()))),)))),
    ("f(true, false);", Step(Call("f", (True, False)))),
    ('f("a\\"b\\\\c\\n");', Step(Call("f", (Str('a"b\\c\n'),)))),
    ('f("\\u{e9}\\t");', Step(Call("f", (Str("é\t"),)))),
    ("reorder(get_beta_loop(1), [1,0]);",
     Step(Call("reorder", (Call("get_beta_loop", (1,)), Array((1, 0)))))),
    ("f(g(h(x)));", Step(Call("f", (Call("g", (Call("h", (Var("x"),)),)),)))),
    ("unchecked reorder([0],[1,0]);",
     Step(Call("reorder", (Array((0,)), Array((1, 0)))), unchecked=True)),
    ("unchecked i = get_beta_loop(1);",
     Step(Call("get_beta_loop", (1,)), target="i", unchecked=True)),
    # 'unchecked' is a keyword only before a name
    ("unchecked(1);", Step(Call("unchecked", (1,)))),
    ("unchecked = f(unchecked);", Step(Call("f", (Var("unchecked"),)), target="unchecked")),
    ("  f\n(\n1 /* c */ ,\t[ 2 ,3 ] # c\n) // c\n ;", Step(Call("f", (1, Array((2, 3)))))),
])
def test_parse_constructs(text, step):
    assert one(text) == step


def test_empty_statements_and_empty_script():
    assert Script.parse(";;f();;") == Script((Step(Call("f")),))
    assert Script.parse("") == Script()
    assert Script.parse("# only a comment\n/* and */ // more\n") == Script()
    assert str(Script()) == ""


def test_positions_are_recorded_but_ignored_by_equality():
    s = Script.parse("fuse([0]);\n  unchecked i = f(g(1));")
    a, b = s.steps
    assert (a.line, a.column, a.call.line, a.call.column) == (1, 1, 1, 1)
    assert (b.line, b.column) == (2, 3)
    assert (b.call.line, b.call.column) == (2, 17)
    inner = b.call.args[0]
    assert (inner.line, inner.column) == (2, 19)
    assert s == Script.parse("fuse([0]); unchecked i = f(g(1));")


def test_bool_is_not_int():
    assert one("f(true);") != one("f(1);")
    assert one("f({false});") != one("f({0});")
    assert hash(one("f(true);")) == hash(one("f(true);"))


def test_print_escapes_and_prefixes():
    s = Script.from_steps([
        Step(Call("get_array_id", (Str('q"\\\n\x01'),)), target="x", unchecked=True),
        Call("iss", ((0,), ClayList((1, (1, 2), Var("i"))))),
    ])
    assert str(s) == ('unchecked x = get_array_id("q\\"\\\\\\n\\u{1}");\n'
                      'iss([0], {1 | [1, 2] | i});\n')
    assert Script.parse(str(s)) == s


def test_script_container_api():
    a = Script.parse("fuse([0]);")
    b = Script.parse("x = g(h(1), {k(2)});")
    c = a + b
    assert len(c) == 2 and list(c) == [*a.steps, *b.steps]
    assert c.steps[1] is b.steps[0]
    assert [x.name for x in c.calls()] == ["fuse", "g", "h", "k"]
    assert (a + Call("split", ((0,), 1))).steps[-1] == Step(Call("split", (Array((0,)), 1)))
    assert c[1:] == b


def test_constructors_validate():
    with pytest.raises(ValueError):
        Call("true")
    with pytest.raises(ValueError):
        Call("a b")
    with pytest.raises(ValueError):
        Var("1x")
    with pytest.raises(ValueError):
        Step(Call("f"), target="false")
    with pytest.raises(TypeError):
        Array((1, True))
    with pytest.raises(TypeError):
        Call("f", ("plain str",))


def test_to_python():
    env = {"i": (0, 1)}
    conv = [to_python(a, env) for a in one('f([1, 0], {1 | [2, 3]}, "A", true, -4, i);').call.args]
    assert conv == [(1, 0), (1, (2, 3)), "A", True, -4, (0, 1)]
    assert type(conv[3]) is bool
    with pytest.raises(DirectiveError, match="undefined variable 'j'"):
        to_python(Var("j"), env)
    with pytest.raises(DirectiveError, match="evaluated by the session"):
        to_python(Call("get_beta_loop", (1,)), env)


# --------------------------------------------------------------------------- property

_names = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,6}", fullmatch=True).filter(
    lambda n: n not in ("true", "false"))
_ints = st.integers(min_value=-10**6, max_value=10**6) | st.sampled_from([0, -1, 10**30])
_arrays = st.lists(_ints, max_size=4).map(lambda v: Array(tuple(v)))
_strs = st.text(max_size=8).map(Str) | st.sampled_from(['"', "\\", '\\"', "a\nb", "#", "/*"]).map(Str)
_leaves = _ints | st.booleans() | _arrays | _strs | _names.map(Var)


def _extend(children):
    return (st.lists(children, max_size=4).map(lambda xs: ClayList(tuple(xs)))
            | st.builds(lambda n, xs: Call(n, tuple(xs)), _names, st.lists(children, max_size=3)))


_args = st.recursive(_leaves, _extend, max_leaves=12)
_calls = st.builds(lambda n, xs: Call(n, tuple(xs)), _names, st.lists(_args, max_size=5))
_steps = st.builds(Step, _calls, st.none() | _names, st.booleans())
_scripts = st.lists(_steps, max_size=6).map(lambda xs: Script(tuple(xs)))


@settings(max_examples=400, deadline=None)
@given(_scripts)
def test_roundtrip_property(s):
    text = str(s)
    back = Script.parse(text)
    assert back == s
    assert str(back) == text


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(list('fx_1-09 ()[]{},|;="\\#/*\nu@') + ["true", "unchecked "]),
               max_size=30).map("".join))
def test_parse_only_raises_script_syntax_error(text):
    try:
        s = Script.parse(text)
    except ScriptSyntaxError as e:
        assert e.line >= 1 and e.column >= 1
    else:
        assert Script.parse(str(s)) == s


# --------------------------------------------------------------------------- must-fail

MUST_FAIL = [
    ("fuse([0])", 1, 10, "expected ';' after fuse(...)"),
    ("fuse([0]) reorder([0], [1, 0]);", 1, 11, "expected ';' after fuse(...)"),
    ("fuse([0]);\nreorder([0], [1, 0])\nsplit([0], 1);", 3, 1, "expected ';' after reorder(...)"),
    ("iss([0], {1 | 0;", 1, 10, "unterminated list"),
    ("iss([0],\n  {1 | 0", 2, 3, "unterminated list"),
    ("fuse([0]) @;", 1, 11, "unexpected character '@'"),
    ('x = get_array_id("A);', 1, 18, "unterminated string"),
    ("reorder([0], );", 1, 14, "expected an integer, '[', '{', a string, true/false or a name"),
    ("f(1,);", 1, 5, "expected an integer, '[', '{', a string, true/false or a name"),
    ("split([0, x], 1);", 1, 11, "expected an integer in array"),
    ("f([1, 2);", 1, 8, "expected ',' or ']' in array"),
    ("fuse;", 1, 5, "expected '(' after fuse"),
    ("123;", 1, 1, "expected a directive name"),
    ("true(1);", 1, 1, "expected a directive name"),
    ("i = ;", 1, 5, "expected a directive call after 'i ='"),
    ("f(1 2);", 1, 5, "expected ',' or ')' in f(...)"),
    ("f(1", 1, 4, "unterminated argument list of f(...)"),
    ("f(-x);", 1, 3, "unexpected character '-'"),
    ('f("a\\q");', 1, 5, "unknown escape '\\q'"),
    ("fuse([0]);\n/* never closed", 2, 1, "unterminated comment"),
    ("f(true(1));", 1, 7, "expected ',' or ')' in f(...)"),
    ("unchecked;", 1, 10, "expected '(' after unchecked"),
]


@pytest.mark.parametrize("text, line, column, fragment", MUST_FAIL)
def test_must_fail(text, line, column, fragment):
    with pytest.raises(ScriptSyntaxError) as info:
        Script.parse(text, path="t.clay")
    e = info.value
    assert (e.line, e.column) == (line, column), str(e)
    assert fragment in e.message
    assert str(e).startswith(f"t.clay:{line}:{column}: ")
    assert e.source_line == text.split("\n")[line - 1]


# --------------------------------------------------------------------------- embedded in C

C_WITH_CLAY = '''\
#include <stdio.h>
/* A comment that mentions Clay but does not start with it. */
const char *s = "/* Clay fuse([0]); */";
void kernel(int n, double A[n][n]) {
#pragma scop
  /* Clay
   reorder([0],[1,0]);
   */
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      A[i][j] = A[j][i];
#pragma endscop
}
'''


def test_extract_embedded_inside_scop():
    body = extract_embedded(C_WITH_CLAY)
    assert body is not None
    assert Script.parse(body) == Script.parse("reorder([0], [1, 0]);")


def test_extract_embedded_none():
    without = C_WITH_CLAY.replace("/* Clay\n", "/* clay-like\n").replace("Clay", "clay")
    assert extract_embedded(without) is None
    assert extract_embedded("int x; /* see Clay docs */\n#pragma scop\nx = 1;\n#pragma endscop\n") is None


def test_extract_embedded_before_scop_and_decorated():
    src = ('/* Clay\n * fuse([0]);\n * split([0, 0], 1);\n */\n'
           '#pragma scop\nfor (i = 0; i < n; i++) a[i] = 0;\n#pragma endscop\n')
    assert str(Script.parse(extract_embedded(src))) == "fuse([0]);\nsplit([0, 0], 1);\n"
