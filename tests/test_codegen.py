"""Tests of clayx.codegen: golden text, guards, and differential runs.

SCoPs are built by hand (no front end): a small C program whose region is
the loop nest between the pragmas, its statements and a schedule.  The
differential tests compile the original and the generated program with
``gcc -std=c99 -Wall -Wextra`` (no warning allowed), run both at several
sizes and compare the printed arrays.
"""

from __future__ import annotations

import random
import re
import shutil
import subprocess

import islpy as isl
import pytest

from clayx.errors import CodegenError
from clayx.codegen import (CPrinter, LoopInfo, build_ast, detect_indent,
                           generate_file, generate_region)
from clayx.model import ClaySchedule, Mark, Relation, Scop, Statement

GCC = shutil.which("gcc")
needs_gcc = pytest.mark.skipif(GCC is None, reason="gcc not available")

# -- helpers -------------------------------------------------------------------------

PRELUDE = """#include <stdio.h>
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#ifndef N
# define N 12
#endif
#ifndef M
# define M 3
#endif
"""


def program(decls: str, kernel: str, arrays: dict[str, int], iters: str | None = None) -> str:
    """A C program: arrays (name -> rank, all N+2 wide) initialized with a
    deterministic pattern, the kernel between the pragmas, every array printed."""
    if iters is None:
        iters = ", ".join(x for x in ("i", "j") if f"for ({x} =" in kernel)
    glob = "".join(f"static double {a}{'[N + 2]' * r};\n" for a, r in arrays.items())
    init, prints = [], []
    for a, r in arrays.items():
        idx = "".join(f"[x{d}]" for d in range(r))
        loops = "".join(f"for (int x{d} = 0; x{d} < N + 2; x{d}++) " for d in range(r))
        val = " + ".join(f"{3 + 2 * d} * x{d}" for d in range(r)) or "1"
        init.append(f"  {loops}{a}{idx} = (double)(({val}) % 7) / 4.0;\n")
        prints.append(f'  {loops}printf("%s %.17g\\n", "{a}", {a}{idx});\n')
    return (PRELUDE + glob + "\nint main(void)\n{\n" + (f"  int {iters};\n" if iters else "")
            + decls + "".join(init) + "#pragma scop\n" + kernel + "#pragma endscop\n"
            + "".join(prints) + "  return 0;\n}\n")


def region_of(source: str, nth: int = 0) -> tuple[int, int]:
    """Character range strictly between the nth ``#pragma scop`` line and the
    next ``#pragma endscop`` line."""
    pos = -1
    for _ in range(nth + 1):
        pos = source.index("#pragma scop\n", pos + 1)
    start = pos + len("#pragma scop\n")
    end = source.index("#pragma endscop", start)
    end = source.rindex("\n", 0, end) + 1
    return start, end


def make_scop(source: str, stmts: list[tuple[str, str, tuple[str, ...], str]],
              relations: list[str], *, params=("N",), context="[N] -> { : N >= 1 }",
              declared=frozenset({"i", "j"}), nth: int = 0, marks=()) -> Scop:
    """A Scop from (name, domain, iterators, body) and relation strings."""
    statements = tuple(Statement(n, isl.Set(d), its, body) for n, d, its, body in stmts)
    rels = tuple(Relation.from_map(isl.Map(m)) for m in relations)
    return Scop(params=tuple(params), context=isl.Set(context), statements=statements,
                arrays=(), schedule=ClaySchedule(rels, tuple(marks)), source=source,
                region=region_of(source, nth), declared_iterators=frozenset(declared))


def compile_c(tmp_path, name: str, text: str, size: int) -> str:
    """Compile ``text`` with -DN=size; assert gcc printed nothing; return the
    executable's path."""
    c = tmp_path / f"{name}.c"
    c.write_text(text)
    exe = tmp_path / f"{name}_{size}"
    # -Wno-aggressive-loop-optimizations: with N smaller than a tile, gcc
    # warns about the full-tile loop, which never runs then
    r = subprocess.run([GCC, "-std=c99", "-Wall", "-Wextra", "-Wno-aggressive-loop-optimizations",
                        "-O1", f"-DN={size}",
                        "-o", str(exe), str(c)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr + "\n" + text
    assert r.stderr == "", r.stderr + "\n" + text
    return str(exe)


def run_exe(exe: str) -> str:
    r = subprocess.run([exe], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0
    return r.stdout


def check_same(tmp_path, scops: list[Scop], sizes=(1, 5, 13)) -> str:
    """Generate, compile both programs at each size, compare outputs."""
    original = scops[0].source
    generated = generate_file(scops)
    for n in sizes:
        want = run_exe(compile_c(tmp_path, "orig", original, n))
        got = run_exe(compile_c(tmp_path, "gen", generated, n))
        assert got == want, f"N={n}\n{generated}"
    return generated


def generated_region(scop: Scop, text: str) -> str:
    """The part of a generated file that replaced the region."""
    start, end = scop.region
    return text[start:len(text) - (len(scop.source) - end)]


# -- kernels ---------------------------------------------------------------------------

K2 = """  for (i = 0; i < N; i++) {
    for (j = 0; j < N; j++)
      A[i][j] = A[i][j] * 0.5 + B[j][i];
    B[i][i] = B[i][i] + A[i][0];
  }
"""
S2 = [("S0", "[N] -> { S0[i, j] : 0 <= i < N and 0 <= j < N }", ("i", "j"),
       "A[i][j] = A[i][j] * 0.5 + B[j][i];"),
      ("S1", "[N] -> { S1[i] : 0 <= i < N }", ("i",), "B[i][i] = B[i][i] + A[i][0];")]

KTRI = """  for (i = 0; i < N; i++)
    for (j = 0; j <= i; j++)
      A[i][j] = A[i][j] + B[i][j] * 2.0;
"""
STRI = [("S0", "[N] -> { S0[i, j] : 0 <= i < N and 0 <= j <= i }", ("i", "j"),
         "A[i][j] = A[i][j] + B[i][j] * 2.0;")]

K1 = """  for (i = 0; i < N; i++)
    X[i] = X[i] * 2.0 + Y[i];
"""
S1D = [("S0", "[N] -> { S0[i] : 0 <= i < N }", ("i",), "X[i] = X[i] * 2.0 + Y[i];")]


# -- golden text -----------------------------------------------------------------------

def test_golden_identity_two_statements():
    src = program("", K2, {"A": 2, "B": 2})
    scop = make_scop(src, S2, ["[N] -> { S0[i, j] -> [0, i, 0, j, 0] }",
                               "[N] -> { S1[i] -> [0, i, 1] }"])
    assert generate_region(scop) == (
        "  for (i = 0; i < N; i++) {\n"
        "    for (j = 0; j < N; j++)\n"
        "      A[i][j] = A[i][j] * 0.5 + B[j][i];\n"
        "    B[i][i] = B[i][i] + A[i][0];\n"
        "  }\n")


def test_golden_interchange_triangular():
    src = program("", KTRI, {"A": 2, "B": 2})
    scop = make_scop(src, STRI, ["[N] -> { S0[i, j] -> [0, j, 0, i, 0] }"])
    assert generate_region(scop) == (
        "  for (j = 0; j < N; j++)\n"
        "    for (i = j; i < N; i++)\n"
        "      A[i][j] = A[i][j] + B[i][j] * 2.0;\n")


def test_golden_stripmine_macros():
    src = program("", K1, {"X": 1, "Y": 1})
    scop = make_scop(src, S1D, ["[N] -> { S0[i] -> [0, a, 0, b, 0] : 4a <= i <= 4a + 3 and b = i }"],
                     context="[N] -> { : N >= 0 }")
    # full tiles apart from the partial one (codegen/tiles.py): no min left
    assert generate_region(scop) == (
        "#define floord(n, d) (((n) < 0) ? -((-(n) + (d) - 1) / (d)) : (n) / (d))\n"
        "  for (int c1 = 0; c1 <= floord(N - 1, 4); c1++)\n"
        "    if (N >= 4 * c1 + 4) {\n"
        "      for (i = 4 * c1; i <= 4 * c1 + 3; i++)\n"
        "        X[i] = X[i] * 2.0 + Y[i];\n"
        "    } else {\n"
        "      for (i = 4 * c1; i < N; i++)\n"
        "        X[i] = X[i] * 2.0 + Y[i];\n"
        "    }\n"
        "#undef floord\n")


def test_golden_skew_parenthesized_substitution():
    src = program("", KTRI, {"A": 2, "B": 2})
    scop = make_scop(src, STRI, ["[N] -> { S0[i, j] -> [0, i, 0, i + j, 0] }"])
    assert generate_region(scop) == (
        "  (void)j;\n"
        "  for (i = 0; i < N; i++)\n"
        "    for (int c2 = i; c2 <= 2 * i; c2++)\n"
        "      A[i][(c2 - i)] = A[i][(c2 - i)] + B[i][(c2 - i)] * 2.0;\n")


def test_golden_reversed_loops_count_down():
    src = program("", KTRI, {"A": 2, "B": 2})
    scop = make_scop(src, STRI, ["[N] -> { S0[i, j] -> [0, -i, 0, -j - 1, 0] }"])
    assert generate_region(scop) == (
        "  (void)j;\n"
        "  for (i = N - 1; i >= 0; i--)\n"
        "    for (int c2 = -i - 1; c2 < 0; c2++)\n"
        "      A[i][(-c2 - 1)] = A[i][(-c2 - 1)] + B[i][(-c2 - 1)] * 2.0;\n")


# -- naming, macros, layout ------------------------------------------------------------

def test_macro_names_avoid_source_identifiers(monkeypatch):
    # partial tiles kept in the loop bounds (a min) for this test
    monkeypatch.setattr("clayx.codegen.tiles.band_options", lambda scop: None)
    src = program("  int min = 0;\n  (void)min;\n", K1, {"X": 1, "Y": 1})
    scop = make_scop(src, S1D, ["[N] -> { S0[i] -> [0, a, 0, i, 0] : 4a <= i <= 4a + 3 }"],
                     context="[N] -> { : N >= 0 }")
    text = generate_region(scop)
    assert "#define clayx_min(x, y)" in text and "#undef clayx_min" in text
    assert "#define floord(" in text
    assert "min(" not in text.replace("clayx_min(", "")


def test_loop_names_avoid_source_identifiers_and_declare_new_ones():
    src = program("  int c1 = 0;\n  (void)c1;\n", K1, {"X": 1, "Y": 1}, iters="")
    src = src.replace("for (i = 0;", "for (int i = 0;")
    scop = make_scop(src, S1D, ["[N] -> { S0[i] -> [0, 2 * i + N, 0] }"], declared=frozenset())
    text = generate_region(scop)
    assert "for (int c1_ = N; c1_ < 3 * N - 1; c1_ += 2)" in text
    assert "X[((-N + c1_) / 2)]" in text and "(void)" not in text


def test_declared_iterator_not_redeclared_and_fresh_one_declared():
    src = program("", KTRI, {"A": 2, "B": 2})
    scop = make_scop(src, STRI, ["[N] -> { S0[i, j] -> [0, i, 0, i + j, 0] }"],
                     declared=frozenset({"i"}))
    text = generate_region(scop)
    assert "for (i = 0;" in text and "int c2" in text and "(void)" not in text


def test_tab_indentation_and_deeper_base():
    kernel = KTRI.replace("  ", "\t")
    src = program("", "\t" + kernel.replace("\n\t", "\n\t\t"), {"A": 2, "B": 2})
    assert detect_indent(src[slice(*region_of(src))]) == ("\t\t", "\t")
    scop = make_scop(src, STRI, ["[N] -> { S0[i, j] -> [0, i, 0, j, 0] }"])
    assert generate_region(scop).splitlines() == [
        "\t\tfor (i = 0; i < N; i++)",
        "\t\t\tfor (j = 0; j <= i; j++)",
        "\t\t\t\tA[i][j] = A[i][j] + B[i][j] * 2.0;"]


def test_loop_info_hook_for_openmp_printers():
    src = program("", K2, {"A": 2, "B": 2})
    scop = make_scop(src, S2, ["[N] -> { S0[i, j] -> [0, i, 0, j, 0] }",
                               "[N] -> { S1[i] -> [0, i, 1] }"],
                     marks=(Mark("parallel", (0,)),))
    seen: list[LoopInfo] = []

    class OmpLike(CPrinter):
        def loop_pragmas(self, info):
            seen.append(info)
            if any(m.kind == "parallel" for m in info.marks):
                return ["#pragma omp parallel for"]
            return []

    gen = OmpLike(scop, base_indent="  ").generate(build_ast(scop))
    assert [(i.depth, i.beta, i.statements, i.name) for i in seen] == [
        (1, (0,), ("S0", "S1"), "i"), (2, (0, 0), ("S0",), "j")]
    text = gen.text
    assert text.splitlines()[0] == "  #pragma omp parallel for"
    assert "#pragma omp" not in "\n".join(text.splitlines()[1:])
    # the structured result: one span per printed loop, in line order
    assert [s.beta for s in gen.loops] == [(0,), (0, 0)]
    outer, = gen.spans((0,))
    inner, = gen.spans((0, 0))
    assert (outer.first, outer.header, outer.last) == (0, 1, len(gen.lines) - 1)
    assert outer.pragmas == ("#pragma omp parallel for",)
    assert [m.kind for m in outer.marks] == ["parallel"] and inner.marks == ()
    assert gen.lines[inner.header].strip().startswith("for (j = 0;")
    assert inner.first == inner.header and inner.last == inner.header + 1


def test_zero_dimensional_statement():
    kernel = """  s = 0.0;
  for (i = 0; i < N; i++)
    X[i] = X[i] + s;
"""
    src = program("  double s;\n", kernel, {"X": 1}).replace(
        'return 0;', 'printf("%g\\n", s);\n  return 0;')
    stmts = [("S0", "[N] -> { S0[] }", (), "s = 0.0;"),
             ("S1", "[N] -> { S1[i] : 0 <= i < N }", ("i",), "X[i] = X[i] + s;")]
    scop = make_scop(src, stmts, ["[N] -> { S0[] -> [0] }", "[N] -> { S1[i] -> [1, i, 0] }"],
                     context="[N] -> { : }")
    assert generate_region(scop) == (
        "  s = 0.0;\n"
        "  for (i = 0; i < N; i++)\n"
        "    X[i] = X[i] + s;\n")


# -- guards ----------------------------------------------------------------------------

def test_tiny_max_operations_raises_codegen_error_and_context_recovers():
    src = program("", K2, {"A": 2, "B": 2})
    scop = make_scop(src, S2, ["[N] -> { S0[i, j] -> [0, i, 0, j, 0] }",
                               "[N] -> { S1[i] -> [0, i, 1] }"])
    with pytest.raises(CodegenError, match="exceeded 10 operations"):
        generate_region(scop, max_operations=10)
    ctx = scop.context.get_ctx()
    assert ctx.get_max_operations() == 0
    assert "for (i = 0; i < N; i++)" in generate_region(scop)
    # other isl work is unaffected
    assert isl.Set("{ [i] : 0 <= i < 10 }").count_val().to_python() == 10


def test_timeout_worker_gives_same_text_and_times_out():
    src = program("", K2, {"A": 2, "B": 2})
    scop = make_scop(src, S2, ["[N] -> { S0[i, j] -> [0, j, 0, i, 0] }",
                               "[N] -> { S1[i] -> [1, i, 0] }"])
    assert generate_region(scop, timeout=60) == generate_region(scop)
    with pytest.raises(CodegenError, match="longer than 0 s"):
        generate_region(scop, timeout=0)
    with pytest.raises(CodegenError, match="exceeded 10 operations"):
        generate_region(scop, timeout=60, max_operations=10)


def test_generate_file_rejects_overlapping_regions():
    src = program("", K1, {"X": 1, "Y": 1})
    a = make_scop(src, S1D, ["[N] -> { S0[i] -> [0, i, 0] }"])
    with pytest.raises(CodegenError, match="overlap"):
        generate_file([a, a])


def test_codegen_of_typical_kernels_is_repeatable():
    """Original schedules of 2–4 statement, 3-deep nests: the same code
    every time (their time is a benchmark's, ``scripts/bench_whitebox.py``'s
    codegen column, not a unit test's)."""
    src = program("  int k;\n", "  ;\n", {"C": 2})
    dom = "[N, M, K] -> {{ {s}[i, j, k] : 0 <= i < N and 0 <= j < M and 0 <= k < K }}"
    stmts = [(f"S{n}", dom.format(s=f"S{n}"), ("i", "j", "k"), f"C[i][j] += {n}.0;")
             for n in range(4)]
    rels = ["[N, M, K] -> { S0[i, j, k] -> [0, i, 0, j, 0, k, 0] }",
            "[N, M, K] -> { S1[i, j, k] -> [0, i, 0, j, 1, k, 0] }",
            "[N, M, K] -> { S2[i, j, k] -> [0, i, 1, j, 0, k, 0] }",
            "[N, M, K] -> { S3[i, j, k] -> [1, i, 0, k, 0, j, 0] }"]
    scop = make_scop(src, stmts, rels, params=("N", "M", "K"),
                     context="[N, M, K] -> { : N >= 0 and M >= 0 and K >= 0 }",
                     declared=frozenset({"i", "j", "k"}))
    first = generate_region(scop)
    assert all(first.count(f"C[i][j] += {n}.0;") == 1 for n in range(4))
    assert all(generate_region(scop) == first for _ in range(3))


# -- differential: compile, run, compare ------------------------------------------------

CASES = {
    "identity_two_statements": (K2, {"A": 2, "B": 2}, S2,
                                ["[N] -> { S0[i, j] -> [0, i, 0, j, 0] }",
                                 "[N] -> { S1[i] -> [0, i, 1] }"]),
    "reversed_loop": (K1, {"X": 1, "Y": 1}, S1D, ["[N] -> { S0[i] -> [0, -i, 0] }"]),
    "reversed_inner_loop": (KTRI, {"A": 2, "B": 2}, STRI,
                            ["[N] -> { S0[i, j] -> [0, i, 0, -j, 0] }"]),
    "interchange": (KTRI, {"A": 2, "B": 2}, STRI, ["[N] -> { S0[i, j] -> [0, j, 0, i, 0] }"]),
    "stripmine_implicit": (K1, {"X": 1, "Y": 1}, S1D,
                           ["[N] -> { S0[i] -> [0, a, 0, i, 0] : 4a <= i <= 4a + 3 }"]),
    "tile_2d_implicit": (KTRI, {"A": 2, "B": 2}, STRI,
                         ["[N] -> { S0[i, j] -> [0, a, 0, b, 0, i, 0, j, 0] : "
                          "3a <= i <= 3a + 2 and 3b <= j <= 3b + 2 }"]),
    "skew": ("""  for (i = 1; i < N; i++)
    for (j = 1; j < N; j++)
      A[i][j] = (A[i - 1][j] + A[i][j - 1]) * 0.5;
""", {"A": 2}, [("S0", "[N] -> { S0[i, j] : 1 <= i < N and 1 <= j < N }", ("i", "j"),
                 "A[i][j] = (A[i - 1][j] + A[i][j - 1]) * 0.5;")],
        ["[N] -> { S0[i, j] -> [0, i + j, 0, j, 0] }"]),
    "index_set_split": (KTRI, {"A": 2, "B": 2}, STRI,
                        ["[N] -> { S0[i, j] -> [0, i, 0, j, 0] : i < 5 }",
                         "[N] -> { S0[i, j] -> [1, i, 0, j, 0] : i >= 5 }"]),
    "fission": ("""  for (i = 0; i < N; i++) {
    X[i] = Y[i] + 1.0;
    Y[i] = X[i] * 2.0;
  }
""", {"X": 1, "Y": 1}, [("S0", "[N] -> { S0[i] : 0 <= i < N }", ("i",), "X[i] = Y[i] + 1.0;"),
                        ("S1", "[N] -> { S1[i] : 0 <= i < N }", ("i",), "Y[i] = X[i] * 2.0;")],
        ["[N] -> { S0[i] -> [0, i, 0] }", "[N] -> { S1[i] -> [1, i, 0] }"]),
    "stride_domain": ("""  for (i = 0; i < N; i += 2)
    X[i] = X[i] * 2.0 + Y[i];
""", {"X": 1, "Y": 1}, [("S0", "[N] -> { S0[i] : 0 <= i < N and exists e : i = 2e }", ("i",),
                        "X[i] = X[i] * 2.0 + Y[i];")],
        ["[N] -> { S0[i] -> [0, -i, 0] }"]),
    "parametric_shift": (KTRI, {"A": 2, "B": 2}, STRI,
                         ["[N] -> { S0[i, j] -> [0, i + N, 0, j, 0] }"]),
    "if_else_two_params": ("""  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      if (j <= M)
        A[i][j] = A[i][j] + 1.0;
      else
        B[i][j] = A[i][j - 1] * B[i][j];
""", {"A": 2, "B": 2},
        [("S0", "[N, M] -> { S0[i, j] : 0 <= i < N and 0 <= j < N and j <= M }", ("i", "j"),
          "A[i][j] = A[i][j] + 1.0;"),
         ("S1", "[N, M] -> { S1[i, j] : 0 <= i < N and 0 <= j < N and j > M }", ("i", "j"),
          "B[i][j] = A[i][j - 1] * B[i][j];")],
        ["[N, M] -> { S0[i, j] -> [0, i, 0, j, 0] }", "[N, M] -> { S1[i, j] -> [0, i, 0, j, 1] }"]),
    "non_injective": (KTRI, {"A": 2, "B": 2}, STRI, ["[N] -> { S0[i, j] -> [0, i, 0] }"]),
    "peel_last_iteration": (K1, {"X": 1, "Y": 1}, S1D,
                            ["[N] -> { S0[i] -> [0, i, 0] : i < N - 1 }",
                             "[N] -> { S0[i] -> [1, i, 0] : i = N - 1 }"]),
    "strided_tile_degenerate": (K1, {"X": 1, "Y": 1}, S1D,
                                ["[N] -> { S0[i] -> [0, i, 0, a, 0] : 3a <= i <= 3a + 2 }"]),
}


@needs_gcc
@pytest.mark.parametrize("case", sorted(CASES))
def test_differential(tmp_path, case):
    kernel, arrays, stmts, rels = CASES[case]
    scop = make_scop(program("", kernel, arrays), stmts, rels, params=("N", "M"),
                     context="[N, M] -> { : N >= 0 and M = 3 }")
    check_same(tmp_path, [scop])


@needs_gcc
def test_differential_two_scops_in_one_file(tmp_path):
    src = program("", K1 + "#pragma endscop\n  for (i = 0; i < N; i++)\n    Y[i] += 1.0;\n"
                  "#pragma scop\n" + KTRI, {"X": 1, "Y": 1, "A": 2, "B": 2})
    first = make_scop(src, S1D, ["[N] -> { S0[i] -> [0, -i, 0] }"])
    second = make_scop(src, STRI, ["[N] -> { S0[i, j] -> [0, j, 0, i, 0] }"], nth=1)
    text = check_same(tmp_path, [second, first])
    # everything outside the regions is byte for byte the same
    outside = src[:first.region[0]], src[first.region[1]:second.region[0]], src[second.region[1]:]
    pos = 0
    for piece in outside:
        pos = text.index(piece, pos) + len(piece)
    assert text.endswith(outside[-1])


@needs_gcc
def test_differential_for_declared_iterators_and_unused(tmp_path):
    # no iterator declared outside: every loop declares its own
    src = program("", K2.replace("for (i", "for (int i").replace("for (j", "for (int j"),
                  {"A": 2, "B": 2}, iters="")
    scop = make_scop(src, S2, ["[N] -> { S0[i, j] -> [0, i + j, 0, j, 0] }",
                               "[N] -> { S1[i] -> [1, i, 0] }"], declared=frozenset())
    text = check_same(tmp_path, [scop])
    assert "(void)" not in generated_region(scop, text)


# -- negative ranges, strides, random schedules ---------------------------------------

WIDE = "[2 * N + 8]"
KNEG = """  for (i = -N; i < N; i++)
    for (j = -2; j <= i + 3; j++)
      X[i + N + 2][j + N + 2] = X[i + N + 2][j + N + 2] * 3.0 + (double)(i * 7 + j);
  for (i = 0; i < N; i += 2)
    for (j = -i; j < 2; j++)
      Y[i + 2][j + N + 2] = Y[i + 2][j + N + 2] * 5.0 + (double)(i - 3 * j);
"""
SNEG = [("S0", "[N] -> { S0[i, j] : -N <= i < N and -2 <= j <= i + 3 }", ("i", "j"),
         "X[i + N + 2][j + N + 2] = X[i + N + 2][j + N + 2] * 3.0 + (double)(i * 7 + j);"),
        ("S1", "[N] -> { S1[i, j] : 0 <= i < N and -i <= j < 2 and exists e : i = 2e }",
         ("i", "j"), "Y[i + 2][j + N + 2] = Y[i + 2][j + N + 2] * 5.0 + (double)(i - 3 * j);")]


def program_neg() -> str:
    """KNEG in a program: every instance updates its own element once, so any
    schedule that scans each instance exactly once gives the same output."""
    src = program("", KNEG, {})
    arrays = f"static double X{WIDE}{WIDE};\nstatic double Y{WIDE}{WIDE};\n"
    prints = ("  for (int a = 0; a < 2 * N + 8; a++)\n"
              "    for (int b = 0; b < 2 * N + 8; b++)\n"
              '      printf("%.17g %.17g\\n", X[a][b], Y[a][b]);\n')
    return (src.replace("int main(void)", arrays + "int main(void)")
            .replace("  return 0;", prints + "  return 0;"))


NEG_CASES = {
    # an if/else inside a loop inside an if: braces against -Wdangling-else
    "dangling_else": [
        "[N] -> { S0[i, j] -> [0, a, 0, j + 3, 0, i + 2j, 0] : 5a <= i + 2j <= 5a + 4 }",
        "[N] -> { S1[i, j] -> [0, -i + N, 0, -2i - j + 3, 1] }"],
    "tiles_with_negative_floord": [
        "[N] -> { S0[i, j] -> [0, a, 0, b, 0, j + 3, 0, -i - 2j + N, 0] : "
        "2a <= j + 3 <= 2a + 1 and 2b <= -i - 2j + N <= 2b + 1 }",
        "[N] -> { S1[i, j] -> [0, a, 0, b, 0, i - j - 2, 0, -i + 3, 1] : "
        "4a <= i - j - 2 <= 4a + 3 and 3b <= -i + 3 <= 3b + 2 }"],
    "reversed_both": ["[N] -> { S0[i, j] -> [0, -i, 0, -j, 0] }",
                      "[N] -> { S1[i, j] -> [1, -i, 0, -j, 0] }"],
}


@needs_gcc
@pytest.mark.parametrize("case", sorted(NEG_CASES))
def test_differential_negative_ranges(tmp_path, case):
    scop = make_scop(program_neg(), SNEG, NEG_CASES[case], context="[N] -> { : N >= 0 }")
    check_same(tmp_path, [scop], sizes=(0, 1, 4, 9))


def random_relations(rng: random.Random, stmt: str, beta0: int) -> list[str]:
    """A random unimodular α part, possibly strip-mined, tiled or index-set
    split, for a 2-deep statement."""
    while True:
        m = [[rng.randint(-2, 2) for _ in range(2)] for _ in range(2)]
        if abs(m[0][0] * m[1][1] - m[0][1] * m[1][0]) == 1:
            break
    ex = [f"{r[0]}i + {r[1]}j" + rng.choice(["", " + N", " - N", " + 3", " - 2"]) for r in m]
    ex = [re.sub(r"\b(-?)1([ij])", r"\1\2", re.sub(r"\+ -", "- ", e)) for e in ex]
    kind = rng.choice(["plain", "strip", "tile", "iss"])
    head = f"[N] -> {{ {stmt}[i, j] -> "
    if kind == "plain":
        return [f"{head}[{beta0}, {ex[0]}, 0, {ex[1]}, 0] }}"]
    if kind == "strip":
        s, d = rng.randint(2, 5), rng.randint(0, 1)
        return [f"{head}[{beta0}, a, 0, {ex[0]}, 0, {ex[1]}, 0] : "
                f"{s}a <= {ex[d]} <= {s}a + {s - 1} }}"]
    if kind == "tile":
        s1, s2 = rng.randint(2, 4), rng.randint(2, 4)
        return [f"{head}[{beta0}, a, 0, b, 0, {ex[0]}, 0, {ex[1]}, 0] : "
                f"{s1}a <= {ex[0]} <= {s1}a + {s1 - 1} and {s2}b <= {ex[1]} <= {s2}b + {s2 - 1} }}"]
    c = rng.choice(["i < 1", "i + j >= N - 3", "j <= 0", "2i >= j + N"])
    return [f"{head}[{beta0}, {ex[0]}, 0, {ex[1]}, 0] : {c} }}",
            f"{head}[{beta0 + 1}, {ex[1]}, 0, {ex[0]}, 0] : not ({c}) }}"]


@needs_gcc
@pytest.mark.slow
@pytest.mark.parametrize("seed", range(12))
def test_differential_random_schedules(tmp_path, seed):
    rng = random.Random(seed)
    rels = random_relations(rng, "S0", 0) + random_relations(rng, "S1", 2)
    scop = make_scop(program_neg(), SNEG, rels, context="[N] -> { : N >= 0 }")
    check_same(tmp_path, [scop], sizes=(0, 1, 4, 9))


def test_degenerate_loop_printing():
    """isl seldom emits degenerate loops from schedule maps; a proxy marks a
    real loop degenerate to check both printed forms."""

    class Degenerate:
        def __init__(self, node):
            self._node = node

        def __getattr__(self, name):
            return getattr(self._node, name)

        def for_is_degenerate(self):
            return True

    src = program("", K1, {"X": 1, "Y": 1})
    simple = make_scop(src, S1D, ["[N] -> { S0[i] -> [0, i, 0] }"])
    assert CPrinter(simple, base_indent="  ").print_node(
        Degenerate(build_ast(simple)), 0) == ["  X[0] = X[0] * 2.0 + Y[0];"]
    dom = "[N, M] -> { S0[i] : M + 1 <= i < N and i >= 3 }"
    complex_ = make_scop(src, [("S0", dom, ("i",), S1D[0][3])], ["[N, M] -> { S0[i] -> [0, i, 0] }"],
                         params=("N", "M"), context="[N, M] -> { : }")
    assert CPrinter(complex_, base_indent="  ").print_node(
        Degenerate(build_ast(complex_)), 0) == [
        "  {", "    i = max(3, M + 1);", "    X[i] = X[i] * 2.0 + Y[i];", "  }"]


def test_access_functions_drop_their_domain_only_when_one_piece():
    """An access function of one affine piece is pulled back without its
    statement's domain (the values on the node's instances are the same,
    isl skips a preimage of the domain); a piecewise one keeps its pieces."""
    from clayx.codegen.build import _unrestricted
    one = isl.PwMultiAff("[n] -> { S[i, j] -> A[i + 1, j] : 0 <= i < n and 0 <= j < n }")
    f = _unrestricted(one)
    assert f.domain().is_equal(isl.Set("[n] -> { S[i, j] }").align_params(f.domain().get_space()))
    assert isl.PwMultiAff.from_multi_pw_aff(f).intersect_domain(one.domain()).is_equal(one)
    two = isl.PwMultiAff("[n] -> { S[i] -> A[i] : 0 <= i < n; S[i] -> A[0] : i >= n }")
    assert isl.PwMultiAff.from_multi_pw_aff(_unrestricted(two)).is_equal(two)


def test_isl_subscripts_are_written_only_where_printed(monkeypatch):
    """isl writes a user node's access expressions only when the printer
    reads them: none for a tiled gemm (every reference prints as written),
    some after a skew (``A[i][c2 - i]``), from the build at that node and
    under the pinned AST options, as during the build."""
    import clayx
    from pathlib import Path
    from clayx.codegen import build as build_mod
    from clayx.codegen.build import LazySubscripts, user_info
    calls = []
    real = build_mod._subscripts

    def counted(*args):
        calls.append(args[1])
        return real(*args)
    monkeypatch.setattr(build_mod, "_subscripts", counted)
    examples = Path(__file__).resolve().parent.parent / "examples"
    s = clayx.load(examples / "gemm.c")
    s.apply("split([0, 0], 1); stripmine([1], 1, 32); tile([1], 4, 2, 32);")
    node = build_ast(s.current)
    lazy = []

    def visit(n) -> bool:
        if n.get_type() == isl.ast_node_type.user:
            lazy.append(user_info(n).subscripts)
        return True
    node.foreach_descendant_top_down(visit)
    assert lazy and all(isinstance(x, LazySubscripts) for x in lazy)
    code = s.code("c")
    assert "C[i][j] += alpha * A[i][k] * B[k][j];" in code and calls == []
    s = clayx.load(examples / "jacobi-1d.c")
    s.apply("skew([0, 0], 2, 1, 1);")
    code = s.code("c")
    assert calls and "B[t + c2] = 0.33333 * (A[t + c2 - 1] + A[t + c2] + A[t + c2 + 1]);" in code
    # read once, then kept
    sub = LazySubscripts(lambda: calls.append("x") or {"r": 1})
    n = len(calls)
    assert sub["r"] == 1 and dict(sub) == {"r": 1} and len(sub) == 1 and len(calls) == n + 1
