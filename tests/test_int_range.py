"""Issue 13, item 3: integers beyond the C ``int`` range.

Directive arguments beyond 64 bits are refused by the registry; generated
loop iterators get a type that holds every value they take (``int``, else
``long long``, else a :class:`CodegenError`); products and partial sums that
would leave ``int`` compute in ``long long``; statement bodies see their
iterators with their declared types; the C front end reads iterator types
and refuses constants beyond 64 bits and loops that overflow their own
iterator.  Generated code is checked by compiling and running it against the
original (``clayx.verify``).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import islpy as isl
import pytest

import clayx
from clayx.codegen import generate_region, types
from clayx.directives.registry import REGISTRY
from clayx.errors import CodegenError, DirectiveError, NotAScopError, OpenScopError
from clayx.frontend.c import parse_string
from clayx.frontend.openscop import read as read_openscop
from clayx.model.inttypes import INT, INT64_MAX, LONG_LONG, common_type, int_type
from clayx.verify import verify

needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not available")
_O = isl.ast_expr_op_type

BIG = 2 ** 32                       # the issue's 4294967296


def program(kernel: str, *, decl: str = "int i;", size: int = 10, n: int = 10,
            extra: str = "") -> str:
    """A C program: ``A`` of ``size`` doubles initialized, the kernel between
    the pragmas, ``A`` printed in the dump format."""
    return f"""#include <stdio.h>
#define N {n}
static double A[{size}];
{extra}
int main(void)
{{
  {decl}
  for (int k = 0; k < {size}; k++)
    A[k] = (double)(k % 7) / 4.0;
#pragma scop
{kernel}#pragma endscop
  printf("begin dump: A\\n");
  for (int k = 0; k < {size}; k++)
    printf("%.17g\\n", A[k]);
  printf("end   dump: A\\n");
  return 0;
}}
"""


#: one loop whose body uses its iterator's value (so a body that saw a
#: value of another type, or no iteration at all, prints other results)
KERNEL = """  for (i = 0; i < N; i++)
    A[i] = A[i] * 2 + i;
"""


def differential(tmp_path, source: str, script: str, target: str = "c") -> str:
    """Apply ``script`` (checked) to ``source``, generate ``target`` code,
    compile both programs (the generated one also with ``-Wall -Wextra
    -Werror``), run them and compare every value; return the generated
    region's text."""
    orig = tmp_path / "orig.c"
    orig.write_text(source)
    s = clayx.load(str(orig))
    s.apply(script)
    gen = tmp_path / "gen.c"
    text = s.code(target)
    gen.write_text(text)
    openmp = target == "omp"
    subprocess.run(["gcc", "-std=gnu99" if openmp else "-std=c99", "-Wall", "-Wextra",
                    "-Werror", "-Wno-unknown-pragmas", "-fsyntax-only", *(["-fopenmp"] if openmp else []), str(gen)],
                   check=True, capture_output=True)
    res = verify(orig, gen, {}, opt="-O2", timeout=20, openmp=openmp,
                 workdir=tmp_path / "build")
    assert res.ok and res.values > 0
    return text[text.index("#pragma scop"):text.index("#pragma endscop")]


# -- directive arguments ---------------------------------------------------------------

def _int_params():
    for name, d in sorted(REGISTRY.items()):
        for k, p in enumerate(d.params):
            if p.kind in ("int", "ints", "list", "beta"):
                yield name, k


_FILLER = {"beta": (0,), "int": 1, "ints": [0], "list": (), "string": "x", "bool": True}


@pytest.mark.parametrize("name,k", list(_int_params()))
@pytest.mark.parametrize("value", [INT64_MAX + 1, -INT64_MAX - 1, 10 ** 30])
def test_every_integer_argument_beyond_64_bits_is_refused(name, k, value):
    """Item 3: any integer argument (``int``, an item of an array, of a
    list, of a β-vector) beyond 2^63 - 1 in magnitude is refused by the
    registry with a DirectiveError naming the directive and the argument,
    before the directive runs (no isl error, no code with 128-bit dates)."""
    d = REGISTRY[name]
    args = [_FILLER[p.kind] for p in d.params]
    p = d.params[k]
    args[k] = {"int": value, "ints": [0, value], "beta": (0, value),
               "list": (1, value, 0)}[p.kind]
    scop = parse_string(program(KERNEL))[0]
    with pytest.raises(DirectiveError) as e:
        d(scop, *args)
    assert e.value.directive == name and e.value.argument == k + 1
    assert "64 bits" in str(e.value)


def test_a_script_step_beyond_64_bits_is_refused_with_its_position(tmp_path):
    """Item 3: ``iss`` with a 2^63 item used to fail inside isl
    ("unrecognized argument for v"); through a session it is a DirectiveError
    at the step's line and column, and nothing is applied."""
    path = tmp_path / "k.c"
    path.write_text(program(KERNEL))
    s = clayx.load(str(path))
    with pytest.raises(DirectiveError) as e:
        s.apply("shift([0], 1, {}, 1);\niss([0], {1 | 9223372036854775808});")
    assert (e.value.line, e.value.column, e.value.directive) == (2, 1, "iss")
    assert len(s.script) == 0
    # the largest value accepted is 2^63 - 1, its negation too
    s.apply("iss([0], {-9223372036854775807 | 0});")
    assert len(s.script) == 1


# -- generated loops over big dates: the issue's examples -------------------------

@needs_gcc
@pytest.mark.parametrize("script", [
    f"shift([0], 1, {{}}, {BIG});",
    f"shift([0], 1, {{}}, {-BIG});",
    f"grain([0], 1, {BIG});",
    f"shift([0], 1, {{}}, {INT64_MAX - 100});",
])
def test_issue_examples_run_with_the_right_results(tmp_path, script):
    """Item 3: ``shift([0], 1, {}, 4294967296)`` gave ``for (int c1 =
    -4294967296; …)`` that never ran, ``grain([0], 1, 4294967296)`` an int
    loop stepping by 2^32 that never stopped.  The loops are ``long long``
    now, the body gets ``(int)(…)`` values, and the results are the
    original's."""
    region = differential(tmp_path, program(KERNEL), script)
    assert "for (long long c1" in region
    assert "(int)" in region


@needs_gcc
def test_a_shifted_parallel_loop_with_openmp(tmp_path):
    """Item 3: the OpenMP target declares the wide iterator too."""
    region = differential(tmp_path, program(KERNEL),
                          f"shift([0], 1, {{}}, {BIG}); parallelize([0]);", target="omp")
    assert "#pragma omp parallel for" in region and "long long c1" in region


@needs_gcc
def test_small_dates_keep_int_loops(tmp_path):
    """Item 3: dates that fit ``int``, even close to its limits, keep
    ``int`` loops and bodies without casts (the code is unchanged)."""
    region = differential(tmp_path, program(KERNEL), "shift([0], 1, {}, 2147483600);")
    assert "int c1 = -2147483600" in region and "long" not in region
    assert "(int)" not in region


def test_dates_beyond_64_bits_are_a_codegen_error(tmp_path):
    """Item 3: a shift within 64 bits whose dates leave them (2^63 - 1 + i)
    is accepted as a step but refused by code generation with the loop and
    the value, not printed with constants C cannot write."""
    path = tmp_path / "k.c"
    path.write_text(program(KERNEL))
    s = clayx.load(str(path))
    s.apply(f"shift([0], 1, {{}}, {-INT64_MAX});")
    with pytest.raises(CodegenError) as e:
        s.code("c")
    assert "loop at [0]" in str(e.value) and "beyond 64 bits" in str(e.value)
    assert str(INT64_MAX + 9) in str(e.value)


# -- intermediate values -----------------------------------------------------------

@needs_gcc
def test_partial_sum_beyond_int_is_computed_in_long_long(tmp_path, monkeypatch):
    """Item 3: stripmining a loop that ends at 2^31 - 2 gives the bound
    ``100 * c1 + 99``, which reaches 2^31 + 51 while ``c1`` and the
    loop's values fit ``int``: it computes in ``long long``, so the last
    tile runs.  (With the full tiles isolated the bound is gone: both
    forms run equal.)"""
    kernel = """  for (i = 2147483500; i < 2147483647; i++)
    A[i - 2147483500] = A[i - 2147483500] * 2 + 1;
"""
    region = differential(tmp_path, program(kernel, size=200), "stripmine([0], 1, 100);")
    assert "int c1" in region and "if (c1 == 21474835)" in region
    monkeypatch.setattr("clayx.codegen.tiles.band_options", lambda scop: None)
    region = differential(tmp_path, program(kernel, size=200), "stripmine([0], 1, 100);")
    assert "int c1" in region and "(long long)(100 * c1) + 99" in region


@needs_gcc
def test_products_and_floord_near_int_min(tmp_path):
    """Item 3: near INT_MIN, ``100 * c1`` and the ``floord`` macro's
    ``-n + d - 1`` leave ``int``; both compute in ``long long``."""
    kernel = """  for (i = -N; i < -N + 47; i++)
    A[i + N] = A[i + N] * 2 + 1;
"""
    region = differential(tmp_path, program(kernel, size=100, n=2147483647),
                          "stripmine([0], 1, 100);")
    assert "floord((long long)-N, 100)" in region
    assert "(long long)100 * c1" in region


# -- iterator types of the C input -----------------------------------------------

@needs_gcc
@pytest.mark.parametrize("script", ["", "reverse([0], 1);", "shift([0], 1, {}, 7);"])
def test_a_long_iterator_with_64_bit_bounds(tmp_path, script):
    """Item 3: ``for (long i = 3000000000L; …)`` used to come back as
    ``for (int i = 3000000000; …)``.  The iterator keeps its type (also
    counting down after ``reverse``), a shifted loop is ``long long`` and
    its body gets its values in it (``long`` and ``long long`` are the
    same 64-bit type here, so no cast)."""
    kernel = """  for (long i = 3000000000L; i < 3000000000L + N; i++)
    A[i - 3000000000L] = A[i - 3000000000L] * 2 + (double)(i % 1000);
"""
    region = differential(tmp_path, program(kernel, decl=""), script)
    if not script:
        assert "for (long i = 3000000000; i <= N + 2999999999; i++)" in region
    elif script.startswith("reverse"):
        assert "for (long i = N + 2999999999; i > 2999999999; i--)" in region
    else:   # long long and long compute alike: no cast
        assert "for (long long c1 = 2999999993;" in region
        assert "A[c1 - 2999999993] = A[c1 - 2999999993] * 2 + (double)((c1 + 7) % 1000);" \
            in region


@needs_gcc
@pytest.mark.parametrize("script", ["reverse([0], 1);", "shift([0], 1, {}, 1);"])
def test_a_64_bit_stride_on_an_outside_declared_iterator(tmp_path, script):
    """Item 3: ``long long i;`` declared by the function, stepping by 10^9
    up to 9·10^9: reversed, the generated loop assigns ``i`` (its type
    holds the values); shifted, it runs over a fresh ``long long`` iterator
    (an ``int`` one never reached the end); the results are the original's."""
    kernel = """  for (i = 0; i < 9000000000LL; i += 1000000000LL)
    A[i / 1000000000LL] = A[i / 1000000000LL] + (double)(i % 7);
"""
    region = differential(tmp_path, program(kernel, decl="long long i;"), script)
    if script.startswith("reverse"):
        assert "for (i = 8000000000; i >= 0; i -= 1000000000)" in region
    else:
        assert "for (long long c1 = -1; c1 <= 8999999998; c1 += 1000000000)" in region


@needs_gcc
def test_an_outside_iterator_too_narrow_for_the_loop_gets_a_fresh_name(tmp_path):
    """Item 3: reversing a loop over ``unsigned i`` printed ``for (i = N - 1;
    i >= 0; i--)``, which never stops (``i`` cannot hold -1).  The loop gets
    a fresh ``int`` iterator and the body ``(unsigned)`` values."""
    region = differential(tmp_path, program(KERNEL, decl="unsigned i;"), "reverse([0], 1);")
    assert "for (int c1 = -N + 1; c1 <= 0; c1++)" in region
    assert "(unsigned)-c1" in region


@needs_gcc
@pytest.mark.parametrize("script", ["", "stripmine([0, 0], 2, 4);"])
def test_unsigned_iterators_loop_signed_and_reach_bodies_unsigned(tmp_path, script):
    """Item 3: a ``size_t``/``unsigned`` iterator is not the generated
    loop's type (isl's bounds are signed: ``j <= min(n - 1, …)`` would
    compare as unsigned); the loop is ``int`` and the body gets the value in
    the declared type, here with ``n = 0`` at run time too (subscripts are
    isl's exact values: ``A[i + j]``, no cast needed)."""
    kernel = """  for (size_t i = 0; i < N; i++)
    for (unsigned j = i; j < n; j++)
      A[i + j] = A[i + j] * 2 + (double)(j % 3u) + (double)(i % 2u);
"""
    for n in (0, 7):
        region = differential(tmp_path, program(kernel, decl=f"int n = {n};", size=20,
                                                extra="#include <stddef.h>"), script)
        assert "for (int i = 0; i < " in region and "(size_t)i % 2u" in region
        assert "(unsigned)j % 3u" in region and "unsigned j =" not in region
        assert "A[i + j] = A[i + j] * 2" in region


def test_iterators_without_declared_types_get_the_type_their_values_need():
    """Item 3: OpenScop gives no iterator types; a loop to 5·10^9 is
    ``long long``, with no cast in the body; constants beyond 64 bits are a
    CodegenError, not a literal C cannot write."""
    text = (Path(__file__).parent / "data" / "openscop" / "stride.scop").read_text()
    old = "   1   -1    0    1   -1    ## -i+N-1 >= 0"
    assert old in text
    scop = read_openscop(text.replace(old, "   1   -1    0    0   5000000000"))
    region = generate_region(scop)
    assert "for (long long c1 = 0; c1 <= 5000000000; c1 += 4)" in region
    assert "for (long long i = c1;" in region and "(int)" not in region
    scop = read_openscop(text.replace(old, "   1   -1    0    0   " + str(2 ** 63 - 1)))
    with pytest.raises(CodegenError, match="9223372036854775810, beyond 64 bits"):
        generate_region(scop)
    # a constant beyond 64 bits is refused when read, with its line
    with pytest.raises(OpenScopError, match="10000000000000000000000 in row 2 of the DOMAIN "
                                            "matrix is beyond 64 bits"):
        read_openscop(text.replace(old, "   1   -1    0    0   " + str(10 ** 22)))


def test_front_end_records_iterator_types():
    """Item 3: declared types come from the ``for`` header or from the
    declaration the function has before the SCoP (innermost first)."""
    src = """long long j;
void f(int n, double A[10][10], short k) {
  unsigned long i;
  {
    int j;
#pragma scop
    for (i = 0; i < n; i++)
      for (j = 0; j < n; j++)
        for (k = 0; k < 3; k++)
          for (long long m = 0; m < 2; m++)
            A[i][j] += k + m;
#pragma endscop
  }
}
"""
    scop = parse_string(src)[0]
    assert scop.statements[0].iterator_types == ("unsigned long", "int", "short", "long long")
    assert scop.declared_iterator_types == {"i": "unsigned long", "j": "int", "k": "short"}


def test_front_end_refuses_a_loop_overflowing_its_own_iterator():
    """Item 3: the original's own overflow is refused at the bound, with
    line:column; a value that depends on an unknown parameter is not
    judged."""
    src = program("  for (int i = 0; i < 3000000000L; i++)\n    A[0] += 1;\n", decl="")
    with pytest.raises(NotAScopError) as e:
        parse_string(src)
    assert (e.value.line, e.value.column) == (src[:src.index("i < 3")].count("\n") + 1, 19)
    assert "'i' is declared int" in str(e.value) and "2999999999" in str(e.value)
    # an unsigned iterator counting down to 0 exits at -1: never stops in C
    src = program("  for (i = N - 1; i >= 0; i--)\n    A[i] += 1;\n", decl="unsigned i;")
    with pytest.raises(NotAScopError, match="exit value -1"):
        parse_string(src)
    # 'int i' to INT_MAX inclusive: the exit value overflows
    with pytest.raises(NotAScopError, match="exit value 2147483648"):
        parse_string(program("  for (i = 2147483640; i <= 2147483647; i++)\n"
                             "    A[0] += 1;\n"))
    parse_string(program("  for (i = 0; i < n; i++)\n    A[0] += 1;\n",
                         decl="unsigned i; unsigned n = 3;"))


@pytest.mark.parametrize("kernel", [
    "  for (i = 0; i < 100000000000000000000; i++)\n    A[0] += 1;\n",
    "  for (i = 0; i < 10; i += 100000000000000000000)\n    A[0] += 1;\n",
])
def test_front_end_refuses_constants_beyond_64_bits(kernel):
    """Item 3: a C constant beyond 64 bits (isl's API cannot take it; it
    raised a TypeError) is refused with its position."""
    src = program(kernel, decl="long i;")
    with pytest.raises(NotAScopError) as e:
        parse_string(src)
    assert e.value.construct == "integer constant" and "beyond 64 bits" in str(e.value)
    assert e.value.line == src[:src.index("100000000000000000000")].count("\n") + 1


# -- the type rule, unit ---------------------------------------------------------------

def test_type_choice():
    """Item 3: ``int`` while it holds every value, ``long long`` up to 64
    bits, an error beyond."""
    assert types.wide_enough(-2 ** 31, 2 ** 31 - 1, "x") is INT
    assert types.wide_enough(0, 2 ** 31, "x") is LONG_LONG
    assert types.wide_enough(-2 ** 31 - 1, 0, "x") is LONG_LONG
    assert types.wide_enough(-2 ** 63, 2 ** 63 - 1, "x") is LONG_LONG
    with pytest.raises(CodegenError, match="the loop at \\[0\\] would compute the value 9223372036854775808"):
        types.wide_enough(0, 2 ** 63, "the loop at [0]")
    # a loop from 0 to 2^31 - 2 by 1 exits at 2^31 - 1: int; by 2: the exit needs long long
    v = types.loop_values(types.constant(0), [types.constant(2 ** 31 - 2)], 1)
    assert v.every == (0, 2 ** 31 - 1) and v.body == (0, 2 ** 31 - 2)
    v = types.loop_values(types.constant(0), [types.constant(2 ** 31 - 2)], 2)
    assert types.wide_enough(*v.every, "x") is LONG_LONG
    # a loop that does not run still assigns its initial value
    v = types.loop_values(types.constant(-2 ** 40), [types.constant(-2 ** 41)], 1)
    assert v.every[0] == -2 ** 40
    assert types.wide_enough(*v.every, "x") is LONG_LONG


def test_expression_casts():
    """Item 3: an ``int`` product or sum that leaves ``int`` asks for a cast
    of its left operand; one with a ``long`` operand or that fits does not;
    beyond 64 bits is an error."""
    c1 = types.Value(0, 2 ** 30, INT)
    two = types.constant(2)
    v, cast = types.arith(_O.mul, two, c1)
    assert cast and v.ctype == LONG_LONG and v.hi == 2 ** 31
    assert types.arith(_O.mul, types.constant(2 ** 32), c1)[1] is False   # long literal
    assert types.arith(_O.add, c1, types.Value(0, 2 ** 30 - 1, INT))[1] is False
    assert types.arith(_O.add, c1, types.Value(0, 2 ** 30, INT))[1] is True
    with pytest.raises(CodegenError):
        types.arith(_O.mul, types.constant(INT64_MAX), types.Value(0, 2, INT))
    # a flattened sum: the first term is cast when a partial sum leaves int
    plan = types.sum_value([(1, c1), (1, c1), (-1, types.Value(0, 5, INT))])
    assert plan.casts == {0} and plan.value.ctype == LONG_LONG
    plan = types.sum_value([(1, c1), (3, c1)])
    assert 1 in plan.casts
    assert types.sum_value([(1, c1), (-5, None)]).casts == frozenset()
    # floord(n, d) computes -n + d - 1 for n < 0
    assert types.floord_cast(types.Value(-2 ** 31 + 1, 0, INT), types.constant(100))
    assert not types.floord_cast(types.Value(-2 ** 30, 0, INT), types.constant(100))


def test_c_integer_types():
    """Item 3: the LP64 C types the front end and code generation use."""
    assert int_type("int") == INT and int_type("long long").same(LONG_LONG)
    assert int_type("long").same(LONG_LONG) and int_type("unsigned").hi == 2 ** 32 - 1
    assert int_type("unsigned long int").hi == 2 ** 64 - 1
    assert int_type("size_t").lo == 0 and int_type("int8_t").lo == -128
    assert int_type("char").holds(0, 127) and not int_type("char").holds(-1, 0)
    assert int_type("double") is None and int_type("my_t") is None
    assert common_type(INT, int_type("short")) == INT
    assert common_type(INT, int_type("unsigned")).signed is False
    assert common_type(int_type("unsigned"), LONG_LONG) == LONG_LONG
    assert common_type(int_type("unsigned long"), LONG_LONG).signed is False
