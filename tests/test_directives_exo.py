"""Exo's names with Exo's arguments (seed 003): shift_loop, cut_loop,
unroll_loop, each mapped onto a Clay directive and checked with Exo's
safety condition; divide_loop is not taken (it names new iterators)."""

from __future__ import annotations

import pytest

import clayx
from clayx import directives as D
from clayx.codegen import generate_region
from clayx.errors import DirectiveError

from directive_cases import (EXAMPLES, NEST, apply, assert_refused, broken, needs_gcc,
                             run_example, same_maps, scop_of)

# a loop from 1 to n, a constant loop holding a triangular one
SRC = """
void f(int n, double A[100], double B[100]) {
  int i, j;
#pragma scop
  for (i = 1; i <= n; i++)
    A[i] = A[i] + 1;
  for (i = 0; i < 10; i++)
    for (j = i; j < 10; j++)
      B[j] = B[j] * 2;
#pragma endscop
}
"""


def test_shift_loop_starts_the_loop_at_new_lo():
    scop = scop_of(SRC)
    new = apply(scop, "shift_loop", (0,), 0)
    assert generate_region(new).splitlines()[0:2] == [
        "  for (int c1 = 0; c1 < n; c1++)", "    A[c1 + 1] = A[c1 + 1] + 1;"]
    # the same as Clay's shift by (lower bound - new_lo)
    assert same_maps(new, apply(scop, "shift", (0,), 1, (), 1))
    assert same_maps(apply(scop, "shift_loop", (1,), 5), apply(scop, "shift", (1,), 1, (), -5))
    assert same_maps(apply(scop, "shift_loop", (0,), 1), scop)


def test_shift_loop_with_a_parametric_lower_bound():
    scop = scop_of(NEST.replace("i = 0; i < n", "i = m; i < n + m"))
    assert same_maps(apply(scop, "shift_loop", (0,), 2),
                     apply(scop, "shift", (0,), 1, (1, 0), -2))    # params m, n


@pytest.mark.parametrize("args,argument,message", [
    (((1, 0), 0), 1, "no single lower bound"),            # j starts at i: not one bound
    (((0,), -1), 2, "non-negative integer"),               # Exo: new_lo >= 0
    (((0, 0), 0), 1, "the beta is not a loop"),
    (((), 0), 1, "the beta vector is empty"),
])
def test_shift_loop_refusals(args, argument, message):
    assert_refused(scop_of(SRC), "shift_loop", args, argument, message)


def test_cut_loop_is_a_peel_at_the_cut_point():
    scop = scop_of(SRC)
    new = apply(scop, "cut_loop", (1,), 4)
    code = generate_region(new)
    assert "for (i = 0; i <= 3; i++)" in code and "for (i = 4; i <= 9; i++)" in code
    assert same_maps(new, apply(scop, "peel", (1,), ((-4,),)))      # Clay's peel: i - 4 >= 0 after
    assert not broken(scop, new)
    # at a bound: one part is empty and dropped
    assert generate_region(apply(scop, "cut_loop", (1,), 0)) == generate_region(scop)
    assert generate_region(apply(scop, "cut_loop", (1,), 10)) == generate_region(scop)
    # an inner loop whose bounds depend on the outer one: checked per iteration
    apply(scop, "cut_loop", (1, 0), 9)


@pytest.mark.parametrize("args,message", [
    (((1,), 11), "the cut point 11 is not between the loop's bounds"),
    (((1,), -1), "the cut point -1 is not between"),
    (((1, 0), 3), "the cut point 3 is not between"),       # j from 5 for i = 5
    (((0,), 3), "parameter value: e.g. n = 1"),           # n = 1: the loop ends at 2
])
def test_cut_loop_refusals(args, message):
    assert_refused(scop_of(SRC), "cut_loop", args, 2, message)


def test_unroll_loop_marks_the_whole_trip_count():
    scop = scop_of(SRC)
    new = apply(scop, "unroll_loop", (1,))
    assert [(m.kind, m.loop, m.arg) for m in new.schedule.marks] == [("unroll", (1,), 10)]
    assert "#pragma GCC unroll 10\n  for (i = 0; i <= 9; i++)" in generate_region(new)
    for loop in ((0,), (1, 0)):                   # parametric / triangular bounds
        assert_refused(scop, "unroll_loop", (loop,), 1, "bounds are not constants")


def test_divide_loop_is_not_taken():
    with pytest.raises(DirectiveError, match="divide_loop is Exo's name; in clayx use "
                                             r"stripmine\(loop, depth, size\)"):
        apply(scop_of(NEST), "divide_loop", (0,), 4, (), "guard")
    assert "divide_loop" not in D.names()


def test_exo_names_in_a_session():
    s = clayx.load(EXAMPLES / "jacobi-2d.c")
    with pytest.raises(DirectiveError, match="e.g. tsteps = 1, n = 4"):
        s.apply("cut_loop([0, 1], 4);")       # i runs 1..n-2: for n = 4 it ends at 2
    with pytest.raises(DirectiveError, match="bounds are not constants"):
        s.apply("unroll_loop([0, 0, 0]);")
    s.apply("shift_loop([0, 0], 0); context([0, 1, -6]); cut_loop([0, 1], 4);")
    assert [e.step.call.name for e in s.entries] == ["shift_loop", "context", "cut_loop"]
    assert s.legal


@pytest.mark.slow
@needs_gcc
def test_exo_names_run_like_the_original(tmp_path):
    run_example(tmp_path, "jacobi-2d", [("shift_loop", (0, 0), 0), ("shift_loop", (0, 0, 0), 3),
                                        ("context", (0, 1, -6)), ("cut_loop", (0, 1), 4)])
