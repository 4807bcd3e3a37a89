"""Tests of the affine directives (clayx/directives/affine.py): shift, skew,
reverse, interchange, reorder_loops, reshape, grain, densify.

Three kinds: golden before/after code per directive on small C programs;
a must-fail table of every precondition with its message; differential tests
that apply a legal step to an example kernel, check every RAW/WAR/WAW
dependence of the original against the new schedule, then compile and run the
original and the generated program and compare all outputs.
"""

from __future__ import annotations

import pytest

from clayx import directives as D
from clayx.codegen import generate_region
from clayx.errors import DirectiveError

from directive_cases import (NEST, TWO, apply, assert_refused, broken, needs_gcc, run_example,
                             scop_of)

CHAIN = """
void f(int n, double a[100]) {
  int i;
#pragma scop
  for (i = 1; i < n; i++)
    a[i] = a[i - 1] + 1;
#pragma endscop
}
"""


def code(scop) -> str:
    return generate_region(scop)


# ---------------------------------------------------------------------------
# golden code
# ---------------------------------------------------------------------------

#: (file under tests/golden/affine/, directive, arguments) on NEST
GOLDEN = [
    ("shift-by-2", "shift", ((0,), 1, (), 2)),
    ("shift-by-n", "shift", ((0,), 1, (1, 0), 0)),
    # Clay's sign: skew(β, 2, 1, k) substitutes α2 ↦ α2 + k·α1, so the new
    # j-loop iterator is j - k·i: coeff -1 gives the wavefront j' = j + i …
    ("skew-minus-1", "skew", ((0,), 2, 1, -1)),
    # … and coeff 1 gives j' = j - i.
    ("skew-plus-1", "skew", ((0,), 2, 1, 1)),
    ("reverse-outer", "reverse", ((0,), 1)),
    ("reverse-inner", "reverse", ((0, 0, 0), 2)),
    ("interchange", "interchange", ((0,), 1, 2)),
    ("reorder-loops", "reorder_loops", ((0, 0), 1)),
    ("reshape", "reshape", ((0,), 2, 1, -1)),
    ("grain-2", "grain", ((0,), 1, 2)),
]


@pytest.mark.parametrize("file, name, args", GOLDEN, ids=[g[0] for g in GOLDEN])
def test_golden(golden, file, name, args):
    scop = scop_of(NEST)
    golden(f"affine/{file}.c", code(apply(scop, name, *args)))


def test_original_nest_code(golden):
    golden("affine/original.c", code(scop_of(NEST)))


def test_targets_every_relation_under_the_prefix():
    scop = scop_of(TWO)
    new = apply(scop, "shift", (0,), 1, (), 1)
    s0, s1, s2 = new.schedule.relations
    assert "-1 + i" in str(s0.map) and "-1 + i" in str(s1.map)
    assert s2.map.is_equal(scop.schedule.relations[2].map)
    # a statement β-vector targets only that statement
    new = apply(scop, "reverse", (0, 1, 0), 2)
    assert new.schedule.relations[0].map.is_equal(scop.schedule.relations[0].map)
    assert "-j" in str(new.schedule.relations[1].map)


def test_shift_keeps_implicit_dims_and_params():
    scop = apply(scop_of(NEST), "stripmine", (0,), 1, 4)
    new = apply(scop, "shift", (0,), 2, (0, 1), -3)
    # the strip loop still bounds the *old* point-loop values
    rel = new.schedule.relations[0].map
    orig = scop.schedule.relations[0].map
    back = apply(new, "shift", (0,), 2, (0, -1), 3).schedule.relations[0].map
    assert back.is_equal(orig) and not rel.is_equal(orig)


def test_directive_does_not_change_its_input():
    scop = scop_of(NEST)
    before = str(scop.schedule)
    apply(scop, "skew", (0,), 2, 1, 3)
    assert str(scop.schedule) == before


def test_aliases_and_signatures():
    assert D.lookup("shift_loop").name == "shift_loop"      # Exo's, not an alias of shift
    assert D.lookup("reorder_loops").name == "reorder_loops"
    assert "skew(beta: beta(loop), depth: int, depth_other: int, coeff: int)" in D.listing()
    for n in ("shift", "skew", "reverse", "interchange", "reorder_loops", "reshape",
              "grain", "densify"):
        doc = D.lookup(n).doc
        assert "=>" in doc and "Legality" in doc and "Checks" in doc, n


def test_interchange_pretty_flag_is_accepted():
    scop = scop_of(NEST)
    a = apply(scop, "interchange", (0,), 1, 2, False)
    b = apply(scop, "interchange", (0,), 2, 1)
    assert a.schedule.relations[0].map.is_equal(b.schedule.relations[0].map)
    assert apply(scop, "interchange", (0,), 2, 2) is scop


def test_reshape_round_trip_and_skew_equivalence():
    scop = scop_of(NEST)
    r = apply(scop, "reshape", (0,), 2, 1, 3)
    back = apply(r, "reshape", (0,), 2, 1, -3)
    assert back.schedule.relations[0].map.is_equal(scop.schedule.relations[0].map)
    # with explicit dims, skewing by α1 = i is reshaping by iterator i
    s = apply(scop, "skew", (0,), 2, 1, 3)
    assert s.schedule.relations[0].map.is_equal(r.schedule.relations[0].map)


def test_grain_densify_round_trip():
    scop = scop_of(NEST)
    g = apply(scop, "grain", (0,), 1, 6)
    assert "6i" in str(g.schedule.relations[0].map)
    back = apply(g, "densify", (0,), 1)
    assert back.schedule.relations[0].map.is_equal(scop.schedule.relations[0].map)
    # 6i + 2: only 2 divides every date
    gs = apply(g, "shift", (0,), 1, (), -2)
    d = apply(gs, "densify", (0,), 1)
    assert "1 + 3i" in str(d.schedule.relations[0].map)
    # grain 1 is the identity
    assert apply(scop, "grain", (0,), 1, 1) is scop


def test_densify_on_implicit_dims_keeps_strip_bounds():
    scop = apply(apply(scop_of(NEST), "grain", (0,), 2, 3), "stripmine", (0, 0), 2, 4)
    d = apply(scop, "densify", (0, 0), 3)
    rel = d.schedule.relations[0].map
    # α3 is j again, the strip dimension still covers 3j in chunks of 4
    assert rel.is_injective() and rel.is_single_valued()
    again = apply(d, "grain", (0, 0), 3, 3)
    assert again.schedule.relations[0].map.is_equal(scop.schedule.relations[0].map)


# ---------------------------------------------------------------------------
# must-fail table
# ---------------------------------------------------------------------------

MUST_FAIL = [
    # (program, directive, args, argument index, message fragment)
    (NEST, "shift", ((1,), 1, (), 1), 1, "the beta vector was not found"),
    (NEST, "shift", ((0,), 0, (), 1), 2, "depth overflow"),
    (NEST, "shift", ((0,), 3, (), 1), 2, "depth overflow"),
    (NEST, "shift", ((), 1, (), 1), 1, "the beta vector is empty"),
    (NEST, "shift", ((0,), 1, (1, 2, 3, 4), 1), 3, "the vector seems to be wrong"),
    (NEST, "shift", ((0,), 1, ((1, 2), 0), 1), 3, "the vector seems to be wrong"),
    (NEST, "skew", ((0, 0, 0), 2, 1, 1), 1, "the beta is not a loop"),
    (NEST, "skew", ((0, 1), 2, 1, 1), 1, "the beta vector was not found"),
    (NEST, "skew", ((0,), 2, 1, 0), 4, "wrong coefficient"),
    (NEST, "skew", ((0,), 2, 2, 1), 3, "depth overflow"),
    (NEST, "skew", ((0,), 3, 1, 1), 2, "depth overflow"),
    (NEST, "skew", ((0,), 2, 0, 1), 3, "depth overflow"),
    (NEST, "reverse", ((0, 0, 0), 3), 2, "depth overflow"),
    (NEST, "reverse", ((2,), 1), 1, "the beta vector was not found"),
    (TWO, "reverse", ((0,), 2), 2, "depth overflow"),       # a[i] = 1 has one loop
    (NEST, "interchange", ((0,), 1, 3), 3, "depth overflow"),
    (NEST, "interchange", ((0,), 0, 1), 2, "depth overflow"),
    (TWO, "interchange", ((0,), 1, 2), 3, "depth overflow"),
    (NEST, "reorder_loops", ((0,), 2), 2, "depth overflow"),
    (NEST, "reshape", ((0,), 2, 3, 1), 3, "depth overflow (iterator 3"),
    (NEST, "reshape", ((0,), 2, 2, 1), 4, "linearly dependent"),  # j - j = 0
    (NEST, "reshape", ((0,), 3, 1, 1), 2, "depth overflow"),
    (NEST, "grain", ((0,), 1, 0), 3, "wrong factor"),
    (NEST, "grain", ((0,), 3, 2), 2, "depth overflow"),
    (NEST, "densify", ((0,), 1), 2, "cannot densify"),
    (NEST, "densify", ((5,), 1), 1, "the beta vector was not found"),
]


@pytest.mark.parametrize("src,name,args,argument,message", MUST_FAIL,
                         ids=[f"{r[1]}{list(r[2])}" for r in MUST_FAIL])
def test_must_fail(src, name, args, argument, message):
    assert_refused(scop_of(src), name, args, argument, message)


def test_densify_refuses_odd_offsets():
    g = apply(apply(scop_of(NEST), "grain", (0,), 1, 2), "shift", (0,), 1, (), 1)
    with pytest.raises(DirectiveError, match="cannot densify"):
        apply(g, "densify", (0,), 1)


def test_wrong_argument_kinds_come_from_the_registry():
    scop = scop_of(NEST)
    with pytest.raises(DirectiveError, match="expected an integer"):
        apply(scop, "reverse", (0,), "1")
    with pytest.raises(DirectiveError, match="`skew' takes 4 arguments"):
        apply(scop, "skew", (0,), 2, 1)


# ---------------------------------------------------------------------------
# legality (the session's check, done by hand here) and differential runs
# ---------------------------------------------------------------------------

def test_reverse_of_a_carried_loop_is_illegal():
    scop = scop_of(CHAIN)
    assert broken(scop, apply(scop, "reverse", (0,), 1))
    assert not broken(scop, apply(scop, "shift", (0,), 1, (1,), 5))


def test_illegal_interchange_detected():
    # A[i][j] = A[i-1][j+1]: distance (1, -1) forbids the interchange
    src = NEST.replace("A[i][j] = A[i][j] + 1", "A[i][j] = A[i - 1][j + 1] + 1") \
              .replace("i = 0;", "i = 1;")
    scop = scop_of(src)
    assert broken(scop, apply(scop, "interchange", (0,), 1, 2))
    # skewing first makes it legal: j' = j + i, distance (1, 0)
    sk = apply(scop, "skew", (0,), 2, 1, -1)
    assert not broken(scop, apply(sk, "interchange", (0,), 1, 2))


DIFFERENTIAL = {
    "reverse-atax-init": ("atax", [("reverse", (0,), 1)]),
    "reverse-gemm-i": ("gemm", [("reverse", (0,), 1)]),
    "reverse-gemm-scale-j": ("gemm", [("reverse", (0, 0, 0), 2)]),
    "interchange-gemm-kj": ("gemm", [("interchange", (0, 1), 2, 3)]),
    "interchange-mvt": ("mvt", [("interchange", (0,), 1, 2), ("interchange", (1,), 1, 2)]),
    "interchange-syrk-kj": ("syrk", [("interchange", (0, 1), 2, 3)]),
    "reorder-loops-gemm": ("gemm", [("reorder_loops", (0, 1), 2)]),
    "shift-gemm": ("gemm", [("shift", (0,), 1, (), 3)]),
    "shift-gemm-param": ("gemm", [("shift", (0,), 1, (1, 0, 0), -1),
                                  ("shift", (0, 1), 3, (0, 0, 1), 2)]),
    "skew-seidel": ("seidel-2d", [("skew", (0, 0), 2, 1, -1), ("skew", (0, 0, 0), 3, 1, -1),
                                  ("skew", (0, 0, 0), 3, 2, -1)]),
    "reshape-gemm": ("gemm", [("reshape", (0, 1), 3, 1, -1)]),
    "grain-gemm": ("gemm", [("grain", (0,), 1, 3), ("grain", (0, 1), 2, 2)]),
    "grain-densify-gemm": ("gemm", [("grain", (0,), 1, 3), ("densify", (0,), 1)]),
}


@pytest.mark.slow
@needs_gcc
@pytest.mark.parametrize("case", list(DIFFERENTIAL))
def test_differential(tmp_path, case):
    stem, steps = DIFFERENTIAL[case]
    run_example(tmp_path, stem, steps)


STRIDED = r"""
#include <stdio.h>
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#ifndef N
# define N 20
#endif
double A[N];
int main(void) {
  int i;
  for (i = 0; i < N; i++) A[i] = i;
#pragma scop
  for (i = 1; i < N; i += 3)
    A[i] = A[i] * 2 + 1;
#pragma endscop
  printf("begin dump: A\n");
  for (i = 0; i < N; i++) printf("%.17g ", A[i]);
  printf("\nend   dump: A\n");
  return 0;
}
"""


def test_densify_a_strided_source_loop(tmp_path):
    """The stride of a source loop is in the domain, not in the schedule
    map: densify looks at the dates of the instances.  As in the paper,
    every date must be a multiple of g, so the offset 1 is shifted away
    first (new date = old - 1)."""
    import clayx
    from clayx.verify import verify
    src = tmp_path / "strided.c"
    src.write_text(STRIDED)
    s = clayx.load(src)
    with pytest.raises(DirectiveError, match="cannot densify"):
        s.apply("densify([0], 1);")
    s.apply("shift([0], 1, [], 1); densify([0], 1);")
    code = s.code("c")
    region = code[code.index("#pragma scop"):code.index("#pragma endscop")]
    assert "for (int c1 = 0; c1 < floord(N + 1, 3); c1++)\n" \
           "    A[3 * c1 + 1] = A[3 * c1 + 1] * 2 + 1;" in region
    if needs_gcc.args[0]:     # no gcc: the golden above is the test
        return
    gen = tmp_path / "gen.c"
    gen.write_text(code)
    for n in (1, 2, 11, 20):
        assert verify(src, gen, {"N": n}, workdir=tmp_path / f"b{n}").ok
