"""Issue 13, item 3: integers beyond the C ``int`` range.

Directive arguments beyond 64 bits are refused by the registry; the C front
end reads iterator types and refuses constants beyond 64 bits and loops
that overflow their own iterator.
"""

from __future__ import annotations

import pytest

import clayx
from clayx.directives.registry import REGISTRY
from clayx.errors import DirectiveError, NotAScopError
from clayx.frontend.c import parse_string
from clayx.model.inttypes import INT, LONG_LONG, INT64_MAX, common_type, int_type


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
