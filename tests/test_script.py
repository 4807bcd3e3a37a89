"""Clay script language: goldens, printing, round-trip property, must-fail table,
embedded scripts in C."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clayx.errors import DirectiveError, ScriptSyntaxError
from clayx.script import (MAX_NESTING, Array, Call, ClayList, Script, Step, Str, Var,
                          clay_print, extract_embedded, to_python)

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
    # Clay's forms (reference 3.1-3.3)
    ("f({1||-3});", Step(Call("f", (ClayList((1, Array(()), -3)),)))),
    ("f({1 | | -6});", Step(Call("f", (ClayList((1, Array(()), -6)),)))),
    ("f({|});", Step(Call("f", (ClayList((Array(()), Array(()))),)))),
    ("f({0,1 | | 2});", Step(Call("f", (ClayList((Array((0, 1)), Array(()), 2)),)))),
    ("f([,1], {,1,2});", Step(Call("f", (Array((1,)), ClayList((Array((1, 2)),)))))),
    ("f([true, false], {true});", Step(Call("f", (Array((1, 0)), ClayList((1,)))))),
    ('f(" a_b ");', Step(Call("f", (Str("a_b"),)))),
    ('f("\n x\t");', Step(Call("f", (Str("x"),)))),
    ("f(1,\u00a02);", Step(Call("f", (1, 2)))),
    ("split ( [0] , 1 ) ;", Step(Call("split", (Array((0,)), 1)))),
    ("reorder(get_beta_loop(1), [1,0]);",
     Step(Call("reorder", (Call("get_beta_loop", (1,)), Array((1, 0)))))),
    ('f(get_beta_loop(get_array_id("A")));',
     Step(Call("f", (Call("get_beta_loop", (Call("get_array_id", (Str("A"),)),)),)))),
    ("unchecked reorder([0],[1,0]);",
     Step(Call("reorder", (Array((0,)), Array((1, 0)))), unchecked=True)),
    ("unchecked i = get_beta_loop(1);",
     Step(Call("get_beta_loop", (1,)), target="i", unchecked=True)),
    # 'unchecked' is a keyword only before a name
    ("unchecked(1);", Step(Call("unchecked", (1,)))),
    ("unchecked = f(unchecked);", Step(Call("f", (Var("unchecked"),)), target="unchecked")),
    ("  f\n(\n1 /* c */ ,\t[ 2 ,3 ] # c\n) // c\n ;", Step(Call("f", (1, Array((2, 3)))))),
    ("fuse([0]);\r\n", Step(Call("fuse", (Array((0,)),)))),
])
def test_parse_constructs(text, step):
    assert one(text) == step


def test_empty_statements_and_empty_script():
    assert Script.parse(";;f();;") == Script((Step(Call("f")),))
    assert Script.parse("") == Script()
    assert Script.parse("# only a comment\n/* and */ // more\n") == Script()
    assert Script.parse("# a comment on the last line, no newline") == Script()
    assert str(Script()) == ""


def test_values_alone_do_nothing_and_literal_variables_are_substituted():
    """Clay: ``[1,2];``, ``5;`` and ``x;`` are statements that do nothing; a
    variable may hold a literal (reference 3.2-3.3)."""
    assert Script.parse('[1, 2]; 5; {1|2}; "s"; true;') == Script()
    s = Script.parse("a = [0, 0];\nb = a;\na = [1];\nsplit(b, true); reorder(a, [1, 0]);\n"
                     "a; b;")
    assert str(s) == "split([0, 0], true);\nreorder([1], [1, 0]);\n"
    # a variable a call assigns stays a variable; a copy of it is the same
    s = Script.parse("i = get_beta_loop(1); j = i; reorder(j, [1, 0]);")
    assert s.steps[1] == Step(Call("reorder", (Var("i"), Array((1, 0)))))
    # ... until the original is assigned again
    with pytest.raises(ScriptSyntaxError, match="j was copied from i") as info:
        Script.parse("i = get_beta_loop(1); j = i; i = get_beta_loop(2); reorder(j, [1]);")
    assert (info.value.line, info.value.column) == (1, 60)


def test_break_ends_the_script_unparsed():
    assert Script.parse("fuse([0]); break(); this is not ( a script") == Script.parse(
        "fuse([0]); break();")
    assert str(Script.parse("fuse([0]);\nbreak()")) == "fuse([0]);\nbreak();\n"


def test_positions_are_recorded_but_ignored_by_equality():
    s = Script.parse("fuse([0]);\n  unchecked i = f(get_beta_loop(1));")
    a, b = s.steps
    assert (a.line, a.column, a.call.line, a.call.column) == (1, 1, 1, 1)
    assert (b.line, b.column) == (2, 3)
    assert (b.call.line, b.call.column) == (2, 17)
    inner = b.call.args[0]
    assert (inner.line, inner.column) == (2, 19)
    assert s == Script.parse("fuse([0]); unchecked i = f(get_beta_loop(1));")


def test_bool_is_not_int_in_arguments_but_is_in_arrays_and_lists():
    assert one("f(true);") != one("f(1);")
    assert hash(one("f(true);")) == hash(one("f(true);"))
    # inside [..] and {..} Clay's true/false are just integers
    assert one("f({false});") == one("f({0});")
    assert one("f([true]);") == one("f([1]);")


def test_print_lists_and_strings():
    s = Script.from_steps([
        Step(Call("get_array_id", (Str("q_1"),)), target="x", unchecked=True),
        Call("iss", ((0,), ClayList((1, (1, 2), (), (5,), -3)))),
        Call("f", (ClayList(()), ClayList(((), ())), ClayList(((),)))),
    ])
    assert str(s) == ('unchecked x = get_array_id("q_1");\n'
                      'iss([0], {1 | 1, 2 | | [5] | -3});\n'
                      'f({}, {|}, {});\n')
    assert Script.parse(str(s)) == s


def test_script_container_api():
    a = Script.parse("fuse([0]);")
    b = Script.parse("x = get_beta_loop(get_beta_stmt(1));")
    c = a + b
    assert len(c) == 2 and list(c) == [*a.steps, *b.steps]
    assert c.steps[1] is b.steps[0]
    assert [x.name for x in c.calls()] == ["fuse", "get_beta_loop", "get_beta_stmt"]
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
    with pytest.raises(ValueError):
        Str("a b")
    with pytest.raises(TypeError):
        Array((1, True))
    with pytest.raises(TypeError):
        Call("f", ("plain str",))
    with pytest.raises(TypeError):
        ClayList((Var("i"),))


def test_to_python():
    env = {"i": (0, 1)}
    conv = [to_python(a, env) for a in one('f([1, 0], {1 | [2, 3]}, "A", true, -4, i);').call.args]
    assert conv == [(1, 0), (1, (2, 3)), "A", True, -4, (0, 1)]
    assert type(conv[3]) is bool
    with pytest.raises(DirectiveError, match="the variable was not defined: 'j'"):
        to_python(Var("j"), env)
    with pytest.raises(DirectiveError, match="evaluated by the session"):
        to_python(Call("get_beta_loop", (1,)), env)


def test_clay_print_text():
    """Clay's print format (reference 3.6)."""
    env = {"i": [0, 0], "n": 5}
    call = one('print(5, [1,-2], {1||-3}, "abc", i, n, {});').call
    assert clay_print(call, env) == ("int 5 array [1,-2] list {[1],[],[-3]} string abc "
                                     "ref array [0,0] ref int 5 list {[]}")
    assert clay_print(one("print(get_beta_loop(1));").call, env) is None


# --------------------------------------------------------------------------- property

def _free(name: str) -> bool:
    """A name no directive, query or keyword uses."""
    from clayx.directives import names
    return name not in ("true", "false", *names())


_names = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,6}", fullmatch=True).filter(_free)
_queries = st.sampled_from(["get_beta_loop", "get_beta_stmt", "get_array_id",
                            "get_beta_loop_by_name"])
_ints = st.integers(min_value=-10**6, max_value=10**6) | st.sampled_from([0, -1, 10**30])
_arrays = st.lists(_ints, max_size=4).map(lambda v: Array(tuple(v)))
_strs = _names.map(Str)
_parts = _ints | _arrays
_lists = st.lists(_parts, max_size=4).map(lambda xs: ClayList(tuple(xs)))
_leaves = _ints | st.booleans() | _arrays | _strs | _names.map(Var) | _lists


def _extend(children):
    return st.builds(lambda n, xs: Call(n, tuple(xs)), _queries, st.lists(children, max_size=3))


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
@given(st.lists(st.sampled_from(list('fx_1-09 ()[]{},|;="\\#/*\nu@\u00a0\r') +
                                ["true", "unchecked ", "get_beta_loop(", "break()", "a = "]),
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
    ('x = get_array_id("A);', 1, 18, "this one is never closed"),
    ("reorder([0], );", 1, 14, "expected an integer, '[', '{', a string, true/false or a name"),
    ("f(1,);", 1, 5, "expected an integer, '[', '{', a string, true/false or a name"),
    ("split([0, x], 1);", 1, 11, "expected an integer, found 'x'"),
    ("f([1, 2);", 1, 8, "expected ',' or ']' in array"),
    ("fuse;", 1, 1, "the variable was not defined: 'fuse;' (a call needs parentheses"),
    ("true(1);", 1, 5, "expected ';' after true, found '('"),
    ("i = ;", 1, 5, "expected a value after 'i ='"),
    ("f(1 2);", 1, 5, "expected ',' or ')' in f(...)"),
    ("f(1", 1, 4, "unterminated argument list of f(...)"),
    ("f(-x);", 1, 3, "unexpected character '-'"),
    ("fuse([0]);\n/* never closed", 2, 1, "unterminated comment"),
    ("f(true(1));", 1, 7, "expected ',' or ')' in f(...)"),
    ("unchecked;", 1, 1, "the variable was not defined: 'unchecked;'"),
    # Clay's syntax errors (reference 3.1-3.2)
    ("f(- 1);", 1, 3, "unexpected character '-'"),
    ("f(+1);", 1, 3, "unexpected character '+'"),
    ('f("1a");', 1, 3, "this one holds '\"1a\"'"),
    ('f("a b");', 1, 3, "a string is one identifier"),
    ("f([1,]);", 1, 6, "expected an integer, found ']'"),
    ("f([,]);", 1, 4, "expected an integer, found ','"),
    ("f({1 | {2}});", 1, 8, "expected an integer, found '{'"),
    ("f([[1]]);", 1, 4, "expected an integer, found '['"),
    # clayx: a nested call must be a query; a void call cannot be assigned
    ("reorder(get___beta_loop(1), [1]);", 1, 9, "get___beta_loop(...) is unknown function"),
    ("reorder(fuse([0]), [1]);", 1, 9, "fuse(...) is a directive"),
    ("x = split([0, 0], 1);", 1, 1, "split(...) returns no value"),
    ("break(1);", 1, 6, "`break' takes 0 arguments, got 1"),
    ("f(" + "get_beta_loop(" * (MAX_NESTING + 1) + "1" + ")" * (MAX_NESTING + 2) + ";",
     1, 3 + 14 * (MAX_NESTING - 1), f"calls nested more than {MAX_NESTING} deep"),
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
