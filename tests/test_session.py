"""Sessions: checked steps, all-or-nothing, undo/redo, unchecked steps,
parallel marks that must keep holding, and the batch command's verdicts."""

from __future__ import annotations

import io

import pytest

import clayx
from clayx.errors import DirectiveError, LegalityError, ScriptSyntaxError
from clayx.verify import verify
from clayx_repl.cli import run

SRC = r"""
#include <stdio.h>
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#ifndef N
# define N 20
#endif
double a[N], b[N][N];
int main(void) {
  int i, j;
  for (i = 0; i < N; i++) { a[i] = i; for (j = 0; j < N; j++) b[i][j] = i * N + j; }
#pragma scop
  for (i = 1; i < N; i++)
    a[i] = a[i-1] + 1;
  for (i = 1; i < N; i++)
    for (j = 0; j < N - 1; j++)
      b[i][j] = b[i-1][j+1] * 0.5;
#pragma endscop
  printf("begin dump: a\n"); for (i = 0; i < N; i++) printf("%.17g ", a[i]);
  printf("\nend   dump: a\nbegin dump: b\n");
  for (i = 0; i < N; i++) for (j = 0; j < N; j++) printf("%.17g ", b[i][j]);
  printf("\nend   dump: b\n");
  return 0;
}
"""


@pytest.fixture
def src(tmp_path):
    p = tmp_path / "k.c"
    p.write_text(SRC)
    return p


def test_clays_false_accepts_are_refused(src):
    s = clayx.load(src)
    with pytest.raises(LegalityError) as e:
        s.apply("reverse([0], 1);")
    assert "RAW on a" in str(e.value) and "S0[i=1] -> S0[i=2]" in str(e.value)
    with pytest.raises(LegalityError) as e:
        s.apply("tile([1,0], 2, 1, 4);")
    assert "RAW on b" in str(e.value)
    assert len(s.entries) == 0 and s.current is s.original


def test_all_or_nothing_undo_redo_and_code(src, tmp_path):
    s = clayx.load(src)
    with pytest.raises(LegalityError):
        s.apply("skew([1,0], 2, 1, -1); reverse([0], 1);")   # second step illegal
    assert len(s.entries) == 0
    s.apply("skew([1,0], 2, 1, -1);\ntile([1,0], 2, 1, 4);")
    assert len(s.entries) == 2
    tiled = s.current
    s.undo()
    assert len(s.entries) == 1
    s.redo()
    assert s.current is tiled
    assert str(s.script) == "skew([1, 0], 2, 1, -1);\ntile([1, 0], 2, 1, 4);\n"
    gen = tmp_path / "gen.c"
    gen.write_text(s.code("c"))
    for n in (7, 13):
        assert verify(src, gen, {"N": n}).ok
    with pytest.raises(clayx.ClayxError):
        s.undo(5)


def test_errors_leave_the_session_unchanged(src):
    s = clayx.load(src)
    s.apply("parallelize([1, 0]);")
    before = s.current
    with pytest.raises(ScriptSyntaxError):
        s.apply("reverse([0], 1")
    with pytest.raises(DirectiveError, match="not found"):
        s.apply("reverse([7], 1);")
    # the mark must keep holding: this tile makes the marked loop carry a dependence
    with pytest.raises(LegalityError, match="marked parallel"):
        s.apply("skew([1,0], 2, 1, -1); tile([1,0], 2, 1, 4);")
    assert s.current is before


def test_parallelize_a_carried_loop_is_refused(src):
    s = clayx.load(src)
    with pytest.raises(LegalityError, match="carries"):
        s.apply("parallelize([0]);")


def test_unchecked_step_gates_codegen(src):
    s = clayx.load(src)
    s.apply("unchecked reverse([0], 1);")
    assert not s.legal
    assert str(s.script).startswith("unchecked reverse")
    with pytest.raises(LegalityError, match="unchecked"):
        s.code("c")
    assert "#pragma scop" in s.code("c", unchecked=True)


def test_queries_and_variables(src):
    s = clayx.load(src)
    s.apply("l = get_beta_loop_by_name(\"j\"); skew(l, 2, 1, -1);")
    assert tuple(s.env["l"]) == (1, 0)


def _cli(*argv, stdin=""):
    out, err = io.StringIO(), io.StringIO()
    return run(list(argv), stdout=out, stderr=err, stdin=io.StringIO(stdin)), out.getvalue(), err.getvalue()


def test_batch_exit_status(src, tmp_path):
    dest = tmp_path / "o.c"
    rc, out, err = _cli(str(src), "--script", "-", "--emit", "c", "-o", str(dest),
                        stdin="reverse([0], 1);\n")
    assert rc == 3 and "refused" in err and not dest.exists()
    rc, out, err = _cli(str(src), "--script", "-", "--emit", "c", stdin="reverse([0], 1\n")
    assert rc == 1 and "1:15" in err
    # standard input is read only when asked for (--script -)
    rc, out, err = _cli(str(src), "--emit", "c", "-o", str(dest), stdin="reverse([0], 1);\n")
    assert rc == 0 and err == "" and dest.exists()
    dest.unlink()
    script = tmp_path / "s.clay"
    script.write_text("skew([1,0], 2, 1, -1); tile([1,0], 2, 1, 4);\n")
    rc, out, err = _cli(str(src), "--script", str(script), "--emit", "c", "-o", str(dest))
    assert rc == 0 and dest.exists()
    assert verify(src, dest, {"N": 9}).ok


def test_embedded_clay_script_is_applied(tmp_path):
    p = tmp_path / "e.c"
    p.write_text(SRC.replace("#pragma scop\n", "#pragma scop\n/* Clay\n   reorder([], [1, 0]);\n */\n"))
    rc, out, err = _cli(str(p), "--emit", "c")
    assert rc == 0, err
    region = out[out.index("#pragma scop"):]
    assert region.index("b[i][j]") < region.index("a[i] = a[i - 1]")


def test_list_names_every_directive():
    rc, out, _ = _cli("--list")
    assert rc == 0
    for name in ("reorder", "fuse", "split", "iss", "shift", "skew", "reverse", "interchange",
                 "stripmine", "tile", "parallelize", "unroll", "unroll_noepilog", "unroll_mark", "collapse", "linearize"):
        assert f"\n{name}(" in "\n" + out
    assert "divide_loop" in out and "fission" in out


def test_cli_unchecked_flag(src, tmp_path):
    script = tmp_path / "u.clay"
    script.write_text("unchecked reverse([0], 1);\n")
    rc, out, err = _cli(str(src), "--script", str(script), "--emit", "c")
    assert rc == 3 and "unchecked" in err
    rc, out, err = _cli(str(src), "--script", str(script), "--emit", "c", "--unchecked")
    assert rc == 0 and "for (i = N - 1; i > 0; i--)" in out


def test_openscop_embedded_clay_script_is_applied(tmp_path):
    from clayx.frontend.c import parse_file
    from clayx.frontend.openscop import read, with_clay_script, write
    [scop] = parse_file(_write(tmp_path))
    f = tmp_path / "k.scop"
    f.write_text(write(with_clay_script(scop, "reorder([], [1, 0]);\n")))
    rc, out, err = _cli(str(f), "--emit", "scop")
    assert rc == 0, err
    betas = {r.stmt: r.beta for r in read(out).schedule}
    assert betas["S0"][0] == 1 and betas["S1"][0] == 0
    # an illegal embedded script is refused like any other
    f.write_text(write(with_clay_script(scop, "reverse([0], 1);\n")))
    rc, out, err = _cli(str(f), "--emit", "scop")
    assert rc == 3 and out == ""


def _write(tmp_path):
    p = tmp_path / "k.c"
    p.write_text(SRC)
    return p


def test_undone_steps_are_listed_until_a_new_step(src):
    s = clayx.load(src)
    s.apply("skew([1,0], 2, 1, -1); tile([1,0], 2, 1, 4);")
    s.undo(2)
    assert [str(e.step) for e in s.undone] == ["skew([1, 0], 2, 1, -1);",
                                                "tile([1, 0], 2, 1, 4);"]
    s.redo()
    assert [str(e.step) for e in s.undone] == ["tile([1, 0], 2, 1, 4);"]
    with pytest.raises(LegalityError):
        s.apply("reverse([0], 1);")
    assert len(s.undone) == 1                 # a refused step keeps the redo list
    s.apply("interchange([0], 1, 1);")
    assert s.undone == ()
