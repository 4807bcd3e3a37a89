"""The interactive prompt, driven through prompt_toolkit's pipe input (no
terminal): steps, refusals with their explanation, undo/redo, save and
replay, commands, completion, key handling, the lexer, colours."""

from __future__ import annotations

import io
import re
import shutil
from pathlib import Path

import pytest
from prompt_toolkit.application.current import create_app_session
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document
from prompt_toolkit.history import InMemoryHistory
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

import clayx
from clayx import directives as D
from clayx.directives import REGISTRY, Beta, Int, directive, registry
from clayx_repl import commands, render
from clayx_repl.app import (Repl, history_path, input_ready, make_console, make_prompt,
                            with_semicolon)
from clayx_repl.cli import run as cli_run
from clayx_repl.complete import ClayCompleter, call_context

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not available")

# A wavefront kernel: A[i][j] needs A[i-1][j+1], a (1, -1) dependence, so
# interchanging i and j is illegal until j is skewed by i; then the outer
# loop of the interchanged nest carries nothing and runs in parallel.
WAVE = r"""#include <stdio.h>
#ifndef N
# define N 12
#endif
static double A[N][N];

static void kernel_wave(void)
{
  int i, j;
#pragma scop
  for (i = 1; i < N; i++)
    for (j = 0; j < N - 1; j++)
      A[i][j] = A[i-1][j+1] + 0.5 * A[i][j];
#pragma endscop
}

int main(void)
{
  int i, j;
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      A[i][j] = (double)((i * 7 + j * 3) % 11) / 11.0;
  kernel_wave();
  printf("begin dump: A\n");
  for (i = 0; i < N; i++) {
    for (j = 0; j < N; j++)
      printf("%.17g ", A[i][j]);
    printf("\n");
  }
  printf("end   dump: A\n");
  return 0;
}
"""

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


@pytest.fixture
def wave(tmp_path) -> Path:
    p = tmp_path / "wave.c"
    p.write_text(WAVE)
    return p


def drive(path, keys: str, *, width: int = 110, color: bool = False):
    """Run the prompt on ``path`` with ``keys`` typed (then Ctrl-D); return
    (what it printed, the Repl)."""
    buf = io.StringIO()
    with create_pipe_input() as inp:
        with create_app_session(input=inp, output=DummyOutput()):
            repl = Repl(clayx.load(path), path,
                        console=make_console(color=color, file=buf, width=width))
            repl.banner()
            prompt = make_prompt(repl, input=inp, output=DummyOutput(),
                                 history=InMemoryHistory(), color=color)
            inp.send_text(keys + "\x04")
            assert repl.run(prompt) == 0
    return buf.getvalue(), repl


def lines(*typed: str) -> str:
    """Each input followed by Enter."""
    return "".join(t + "\r" for t in typed)


# --- the session the issue asks for ---------------------------------------------------

def test_session_refuse_undo_redo_save_and_replay(wave, tmp_path):
    script = tmp_path / "wave.clay"
    out, repl = drive(wave, lines(
        "interchange([0, 0], 1, 2);",            # illegal: (1,-1) becomes (-1,1)
        "skew([0, 0], 2, 1, -1);",               # j' = j + i: distance (1, 0)
        "interchange([0, 0], 1, 2);",            # now legal
        "parallelize([0]);",
        ":undo",
        ":history",
        ":redo",
        f":save {script}",
    ))
    s = repl.session
    # the refusal: the dependence, the dimension, a witness pair with its dates
    refusal = out[out.index("refused:"):out.index("✓ skew")]
    assert "interchange is illegal: it breaks 1 dependence" in refusal
    assert "RAW on A: S0 → S0" in refusal
    assert "at α1 (dimension 2) the sink would run before the source" in refusal
    assert re.search(r"witness \(N = \d+\): S0\[i=\d+, j=\d+\] → S0\[i=\d+, j=\d+\], dates",
                     refusal)
    assert "nothing changed (0 steps applied)" in refusal
    # what each accepted step changed
    assert "changed loop [0, 0] now runs i + j (was j)" in out
    assert "changed loop [0] now runs i + j (was i)" in out
    assert "marked parallel: loop [0] i + j" in out
    assert "» " in out and "#pragma omp parallel for" in out
    # undo, history with the undone step, redo
    assert "undid 1 step: parallelize([0]);" in out
    assert "parallelize([0]);   (undone)" in out
    assert "redid 1 step: parallelize([0]);" in out
    assert [str(e.step) for e in s.entries] == [
        "skew([0, 0], 2, 1, -1);", "interchange([0, 0], 1, 2);", "parallelize([0]);"]
    # the saved script replays in batch to the same code
    assert f"saved 3 steps to {script}" in out
    text = script.read_text()
    assert text.splitlines()[1:] == [str(e.step) for e in s.entries]
    for target in ("c", "omp"):
        rc_out, rc_err = io.StringIO(), io.StringIO()
        rc = cli_run([str(wave), "--script", str(script), "--emit", target],
                     stdout=rc_out, stderr=rc_err, stdin=io.StringIO(""))
        assert rc == 0, rc_err.getvalue()
        assert rc_out.getvalue() == s.code(target)
    # the toolbar tells the state
    bar = "".join(t for _, t in repl.toolbar())
    assert "wave.c" in bar and "3 steps" in bar and "legal" in bar and "target c" in bar


@needs_gcc
@pytest.mark.slow
def test_session_code_runs_like_the_original(wave, tmp_path):
    """Differential: the code of the prompt session (C and OpenMP) computes
    what the original does (:verify, then clayx.verify on the replayed script)."""
    out, repl = drive(wave, lines("skew([0, 0], 2, 1, -1); interchange([0, 0], 1, 2);",
                                  "parallelize([0]);", ":verify", ":code omp", ":verify"))
    assert out.count("✓ same output: 1 array (A), 144 values compared bit for bit") == 2
    assert "N=12: the file's size macros" in out
    from clayx.verify import verify
    gen = tmp_path / "gen.c"
    gen.write_text(repl.session.code("omp"))
    assert verify(wave, gen, {"N": 9}, openmp=True).ok


# --- errors point where they are ----------------------------------------------------------

def test_syntax_and_argument_errors_point_at_the_column(wave):
    out, repl = drive(wave, lines("interchange([0 0], 1, 2);",
                                  "interchange([0, 5], 1, 2);",
                                  "skew([0], 1, 1, 0);",
                                  "intrchange([0], 1, 2);"))
    assert repl.session.entries == ()
    assert ("syntax error (line 1, column 16): expected ',' or ']' in array, found '0'\n"
            "  interchange([0 0], 1, 2);\n"
            "                 ^") in out
    assert ("error in interchange (line 1, column 13, argument 1): the beta vector was not "
            "found\n  interchange([0, 5], 1, 2);\n              ^") in out
    # Clay checks the coefficient (0) before the depths (reference 5.6)
    assert "error in skew (line 1, column 17, argument 4): wrong coefficient" in out
    assert "  skew([0], 1, 1, 0);\n                  ^" in out
    assert "unknown function `intrchange'" in out and "did you mean interchange" in out


def test_argument_position_on_several_lines():
    text = "reorder([0],\n   [1, 0]);\nfuse([0]);"
    assert render.argument_position(text, 1, 1, 2) == (2, 4)
    assert render.argument_position(text, 3, 1, 1) == (3, 6)
    assert render.argument_position(text, 1, 1, 7) == (1, 1)


def test_missing_final_semicolon_is_added(wave):
    assert with_semicolon("fuse([0])") == "fuse([0])\n;"
    assert with_semicolon("fuse([0]) # c") == "fuse([0]) # c\n;"
    assert with_semicolon("fuse([0]);") == "fuse([0]);"
    assert with_semicolon("fuse([0) ") == "fuse([0) "
    out, repl = drive(wave, lines("skew([0, 0], 2, 1, -1)"))
    assert [str(e.step) for e in repl.session.entries] == ["skew([0, 0], 2, 1, -1);"]


def test_a_refused_line_changes_nothing(wave):
    out, repl = drive(wave, lines("skew([0, 0], 2, 1, -1); interchange([0, 0], 2, 1); "
                                  "reverse([0, 0], 2);"))
    assert repl.session.entries == ()
    assert "refused: reverse is illegal" in out


# --- commands ---------------------------------------------------------------------------------

def test_commands_show_the_state(wave, tmp_path):
    dest = tmp_path / "out.c"
    out, repl = drive(wave, lines(
        "skew([0, 0], 2, 1, -1);", ":tree", ":schedule", ":deps", ":deps S0", ":deps S7",
        ":code omp", ":diff", f":emit c -o {dest}", ":emit scop", ":code fortran",
        ":bogus", "help", ":help fusenext", ":help :verify", ":reset", ":history"))
    # :tree and :schedule: β and α apart
    assert "[0, 0]       loop i + j\n" in out
    assert "  β [0, 0, 0]   α (i, i + j)\n      [N] -> { S0[i, j] -> [0, i, 0, i + j, 0] }" in out
    # :deps: the table with RAR, distance, carried depth, satisfied
    assert re.search(r"1\s+RAW\s+S0\s+S0\s+A\s+\(1, -1\)\s+1 \(i\)\s+yes", out)
    assert re.search(r"RAR\s+S0\s+S0\s+A\s+\(1, -1\)\s+1 \(i\)\s+n/a", out)
    assert "no statement 'S7' (statements: S0)" in out
    # :code, :diff, :emit
    assert "#pragma scop\n" in out and "for (int c2 = i; c2 < N + i - 1; c2++)" in out
    assert "--- wave.c (original)\n+++ wave.c (current, omp)" in out
    assert "-      A[i][j] = A[i-1][j+1] + 0.5 * A[i][j];" in out
    again = clayx.load(wave)
    again.apply("skew([0, 0], 2, 1, -1);")
    assert dest.read_text() == again.code("c")
    assert "<OpenScop>" in out
    assert "unknown target 'fortran' (available: c, omp)" in out
    assert "unknown command ':bogus'" in out
    # help: the commands; a directive's doc through an alias; a command's doc
    assert ":undo [n]" in out and "interchange(beta: beta" in out
    assert "fuse(loop: beta(loop))\naliases: fusenext, fuse_next, merge" in out
    assert "Legality:" in out
    assert "SMALL_SIZES" in out
    # :reset keeps the steps for redo
    assert "back to the original schedule" in out
    assert "skew([0, 0], 2, 1, -1);   (undone)" in out
    assert repl.session.entries == () and repl.target == "c"


def test_load_applies_a_script_and_stops_at_the_first_refusal(wave, tmp_path):
    good = tmp_path / "good.clay"
    good.write_text("skew([0, 0], 2, 1, -1);\ninterchange([0, 0], 1, 2);\n")
    bad = tmp_path / "bad.clay"
    bad.write_text("# c\nskew([0, 0], 2, 1, -1);\nparallelize([0]);\nreverse([0], 1);\n")
    out, repl = drive(wave, lines(f":load {bad}"))
    assert "[1/3] skew([0, 0], 2, 1, -1);  ✓" in out
    assert "refused: parallelize is illegal: the loop [0] carries 1 dependence" in out
    assert "stopped at step 2 of 3; 1 applied" in out
    assert [str(e.step) for e in repl.session.entries] == ["skew([0, 0], 2, 1, -1);"]
    out, repl = drive(wave, lines(f":load {good}", f":load {tmp_path / 'none.clay'}"))
    assert "applied 2 steps from" in out and len(repl.session.entries) == 2
    assert "cannot read" in out


def test_a_script_embedded_in_the_file_is_applied(wave, tmp_path):
    src = tmp_path / "emb.c"
    src.write_text(WAVE.replace("#pragma scop\n", "#pragma scop\n/* Clay\n"
                                "   skew([0, 0], 2, 1, -1);\n   interchange([0, 0], 1, 2); */\n"))
    buf = io.StringIO()
    repl = Repl(clayx.load(src), src, console=make_console(color=False, file=buf))
    assert repl.apply_embedded()
    assert [str(e.step) for e in repl.session.entries] == [
        "skew([0, 0], 2, 1, -1);", "interchange([0, 0], 1, 2);"]
    assert "the file embeds a Clay script" in buf.getvalue()
    assert "applied 2 steps from emb.c (embedded)" in buf.getvalue()
    assert not Repl(clayx.load(wave), wave, console=make_console(file=io.StringIO())) \
        .apply_embedded()


def test_undo_and_redo_counts(wave):
    out, repl = drive(wave, lines(":undo", "skew([0, 0], 2, 1, -1);", "reverse([0, 0], 2);",
                                  ":undo 2", ":redo 3", ":redo x", ":redo 1"))
    assert "cannot undo 1 step(s): 0 applied" in out
    assert "cannot redo 3 step(s): 2 undone" in out
    assert "expected a number of steps, got 'x'" in out
    assert len(repl.session.entries) == 1


def test_quit_ends_the_prompt(wave):
    out, repl = drive(wave, lines(":quit", "skew([0, 0], 2, 1, -1);"))
    assert repl.session.entries == ()
    out, repl = drive(wave, lines("exit", "skew([0, 0], 2, 1, -1);"))
    assert repl.session.entries == ()


def test_what_changed_in_the_tree():
    s = clayx.load(EXAMPLES / "beamforming.c")
    a = s.current
    s.apply("split_children([2], 3);")
    b = s.current
    ch = render.changes(a, b)
    text = "\n".join(t.plain for t in ch.lines)
    assert text == "  split loop [2] i into [2] (S2, S3, S4, S5) and [3] (S6, S7)"
    assert not re.search(r"\bmoved", text)      # the j loop moves with its new parent
    assert ch.focus == [(2,), (3,)]
    fused = render.changes(b, D.apply(b, "fuse", [[2]]))
    assert [t.plain for t in fused.lines] == [
        "  fused loops [2], [3] into [2] i (S2, S3, S4, S5, S6, S7)"]
    s.apply("reorder([], [1, 2, 0, 3]);")
    text = "\n".join(t.plain for t in render.changes(b, s.current).lines)
    assert "moved loop i (S2, S3, S4, S5) [2] → [0]" in text
    assert "moved S0 [0] → [1]" in text
    c = s.current
    s.apply("reorder([0], [1, 0, 2]);")
    text = "\n".join(t.plain for t in render.changes(c, s.current).lines)
    assert "moved S3 [0, 1] → [0, 0]" in text
    assert render.changes(c, c).lines == []


PRIV = """#define N 10
double A[N], B[N];
void f(void) {
  int i; double t;
#pragma scop
  for (i = 0; i < N; i++) {
    t = A[i] * 2;
    B[i] = t + 1;
  }
#pragma endscop
}
"""


@pytest.mark.skipif("dimprivatize" not in REGISTRY, reason="no data-layout directives")
def test_layout_steps_show_the_changed_statements(tmp_path):
    src = tmp_path / "priv.c"
    src.write_text(PRIV)
    script = tmp_path / "priv.clay"
    script.write_text("dimprivatize_access([0, 0], 2, 1);\ndimprivatize_access([0, 1], 1, 1);\n"
                      "parallelize([0]);\n")
    steps = "dimprivatize_access([0, 0], 2, 1); dimprivatize_access([0, 1], 1, 1);"
    out, repl = drive(src, lines(steps,
                                 ":reset", f":load {script}"))
    assert "changed S0: t[i] = A[i] * 2;\n  changed S1: B[i] = t[i] + 1;" in out
    # :load gives the session the two layout steps together (checked as one change)
    assert f"[1-2/3] {steps}  ✓" in out
    assert "[3/3] parallelize([0]);  ✓" in out
    assert len(repl.session.entries) == 3


def test_clay_layout_warning_is_shown_under_the_step(tmp_path):
    """Clay's forms warn when no access to the array is under the β (Clay's
    "access number <id> not found"): the step is applied, nothing changes,
    the REPL says why (at the prompt and in :load)."""
    src = tmp_path / "priv.c"
    src.write_text(PRIV)
    script = tmp_path / "w.clay"
    script.write_text("dimreorder([0], 9, [0]);\n")
    out, repl = drive(src, lines("dimreorder([0], 9, [0]);", f":load {script}"))
    assert out.count("warning: dimreorder: access number 9 not found") == 2
    assert len(repl.session.entries) == 2


def test_step_shows_a_window_of_long_code(monkeypatch):
    monkeypatch.setattr(render, "FULL_CODE_LINES", 3)
    out, repl = drive(EXAMPLES / "beamforming.c", lines("split_children([2], 3);",
                                                          "parallelize([2]);"))
    last = out[out.index("✓ parallelize([2]);"):]
    assert "marked parallel: loop [2] i" in last
    assert "» #pragma omp parallel for schedule(static) private(j)\n» for (i = 0; i < N; i++) {" in last
    assert "  ⋮ (" in last and "more lines: :code" in last
    assert "t = (val >= t_val)" not in last     # loop [3] is out of the window


# --- completion ---------------------------------------------------------------------------------

def complete(scop, text, env=None):
    c = ClayCompleter(lambda: scop, env=lambda: env or {},
                      commands={k: v.complete for k, v in commands.COMMANDS.items()})
    return list(c.get_completions(Document(text, len(text)), CompleteEvent(True)))


def test_completion_of_names_and_betas():
    scop = clayx.load(EXAMPLES / "beamforming.c").current
    got = {c.text: c for c in complete(scop, "fus")}
    assert {"fuse", "fuse_next", "fusenext"} <= set(got)
    assert got["fusenext"].display_meta_text == "alias of fuse"
    # a loop parameter: loops only, with what they are
    got = complete(scop, "fuse(")
    assert [c.text for c in got] == ["[2]", "[2, 2]"]
    assert got[1].display_text == "[2,2]"
    assert got[1].display_meta_text == "loop j (S4, S5)"
    # a statement parameter: statements only
    got = complete(scop, "embed([2,")
    assert [c.text for c in got] == ["[2, 0]", "[2, 1]", "[2, 2, 0]", "[2, 2, 1]",
                                     "[2, 3]", "[2, 4]"]
    assert got[0].display_meta_text == "S2: a_i[i] = 0;"
    assert got[0].start_position == -len("[2,")
    # any β: loops and statements; reorder's also the root
    texts = [c.text for c in complete(scop, "interchange(")]
    assert "[2]" in texts and "[0]" in texts and "[]" not in texts
    assert [c.text for c in complete(scop, "reorder(")][0] == "[]"
    # depths of a typed β, the current order of reorder
    got = complete(scop, "interchange([2, 2, 0], ")
    assert [(c.text, c.display_meta_text) for c in got] == [("1", "loop [2] i"),
                                                            ("2", "loop [2, 2] j")]
    assert [c.text for c in complete(scop, "reorder([2], ")] == ["[0, 1, 2, 3, 4]"]
    # a later statement on the line; nothing inside a nested list
    assert [c.text for c in complete(scop, "fuse([2]); split_children([2")] == ["[2]", "[2, 2]"]
    assert complete(scop, "iss([2], {") == []
    # variables for a β argument
    assert [c.text for c in complete(scop, "fuse(l", env={"loop1": (2,)})] == ["loop1"]


def test_completion_of_commands():
    scop = clayx.load(EXAMPLES / "beamforming.c").current
    assert [c.text for c in complete(scop, ":co")] == [":code"]
    assert [c.text for c in complete(scop, ":code ")] == ["c", "omp", "scop"]
    assert [c.text for c in complete(scop, ":deps S")][:2] == ["S0", "S1"]
    assert "interchange" in [c.text for c in complete(scop, ":help inter")]
    assert "interchange" in [c.text for c in complete(scop, "help inter")]


def test_completion_reads_the_registry():
    """A directive registered later completes, with its β kind."""
    scop = clayx.load(EXAMPLES / "beamforming.c").current
    try:
        directive("zz_test_layout", Beta("stmt", statement=True), Int("n"),
                  aliases=("zz_alias",))(lambda scop, stmt, n: scop)
        assert {"zz_test_layout", "zz_alias"} <= {c.text for c in complete(scop, "zz")}
        assert [c.text for c in complete(scop, "zz_alias([2, 2")] == ["[2, 2, 0]", "[2, 2, 1]"]
    finally:
        REGISTRY.pop("zz_test_layout", None)
        registry._ALIASES.pop("zz_alias", None)


def test_completion_of_accesses():
    scop = clayx.load(EXAMPLES / "gemm.c").current
    try:
        directive("zz_test_access", Beta("stmt", statement=True), Int("access", positive=True))(
            lambda scop, stmt, access: scop)
        got = complete(scop, "zz_test_access([0, 1, 0, 0], ")
        assert [(c.text, c.display_meta_text) for c in got] == [
            ("1", "read alpha"), ("2", "read A[i][k]"), ("3", "read B[k][j]"),
            ("4", "read C[i][j]"), ("5", "write C[i][j]")]
        assert complete(scop, "zz_test_access([0, 1], ") == []     # a loop: no accesses
    finally:
        REGISTRY.pop("zz_test_access", None)


def test_completion_of_array_ids():
    """Clay's dim* forms take an array id: those accessed under the β come
    first, with their names."""
    scop = clayx.load(EXAMPLES / "gemm.c").current
    got = [(c.text, c.display_meta_text) for c in complete(scop, "dimreorder([0, 1], ")]
    assert got == [("2", "C (accessed under the β)"), ("3", "alpha (accessed under the β)"),
                   ("4", "A (accessed under the β)"), ("5", "B (accessed under the β)"),
                   ("1", "beta (not under the β)")]
    assert complete(scop, "dimreorder([0, 0], 1, ") == []          # no loop order offered


def test_call_context():
    ctx = call_context('interchange([0, 1], 2, ')
    assert (ctx.call, ctx.arg, ctx.args) == ("interchange", 2, ["[0, 1]", "2"])
    ctx = call_context('x = fuse([0,')
    assert ctx.call == "fuse" and ctx.array_start == len("x = fuse(")
    assert call_context("fuse([0]); ").statement_start
    assert call_context("unchecked fu").statement_start
    assert not call_context("fuse([0]) fu").statement_start
    assert call_context('print("a, (b"); fu').word == "fu"


def drive_slowly(path, chunks: list[tuple[str, str | None]]):
    """Like :func:`drive`, typing the chunks one after the other; after a
    chunk with an expected text, wait (up to 5 s) until the focused buffer
    (the input, or the Ctrl-R search field) holds it (completion and history
    loading run asynchronously)."""
    import threading
    import time
    buf = io.StringIO()
    with create_pipe_input() as inp:
        with create_app_session(input=inp, output=DummyOutput()):
            repl = Repl(clayx.load(path), path, console=make_console(color=False, file=buf))
            prompt = make_prompt(repl, input=inp, output=DummyOutput(),
                                 history=InMemoryHistory(), color=False)

            def typist():
                for text, expect in [*chunks, ("\x04", None)]:
                    inp.send_text(text)
                    end = time.monotonic() + 5
                    while expect is not None and time.monotonic() < end \
                            and prompt.app.current_buffer.text != expect:
                        time.sleep(0.02)
                    time.sleep(0.05)

            t = threading.Thread(target=typist)
            t.start()
            repl.run(prompt)
            t.join()
    return buf.getvalue(), repl


def test_tab_in_the_prompt_completes(wave):
    """Tab inserts the only completion."""
    out, repl = drive_slowly(wave, [("skew([0, 0], 2, 1, -1);\r", None),
                                    ("interch\t", "interchange"),
                                    ("([0, 0], 1, 2);\r", None)])
    assert [str(e.step) for e in repl.session.entries] == [
        "skew([0, 0], 2, 1, -1);", "interchange([0, 0], 1, 2);"]


def test_ctrl_r_searches_the_history(wave):
    out, repl = drive_slowly(wave, [("skew([0, 0], 2, 1, -1);\r", None), (":undo\r", None),
                                    ("\x12ske", "ske"), ("\r", None),
                                    ("\r", None)])
    assert out.count("✓ skew([0, 0], 2, 1, -1);") == 2
    assert len(repl.session.entries) == 1


# --- keys -------------------------------------------------------------------------------------

def test_enter_submits_only_balanced_input(wave):
    assert input_ready("fuse([0]);") and input_ready(":code") and input_ready("help")
    assert not input_ready("reorder([0],") and not input_ready("iss([0], {1 | 0")
    assert input_ready('print("(");') and not input_ready('print("(")(')
    assert not input_ready("fuse([0]); /* a")
    # Enter inside brackets adds a line; the whole input runs as one
    out, repl = drive(wave, "skew([0, 0],\r 2, 1, -1);\r")
    assert len(repl.session.entries) == 1
    # Alt-Enter (Esc Enter) adds a line to balanced input
    out, repl = drive(wave, "skew([0, 0], 2, 1, -1);\x1b\rinterchange([0, 0], 1, 2);\r")
    assert len(repl.session.entries) == 2
    assert "✓ skew([0, 0], 2, 1, -1); interchange([0, 0], 1, 2);" in out


def test_ctrl_c_clears_the_line(wave):
    out, repl = drive(wave, "reverse([0], 1)\x03skew([0, 0], 2, 1, -1);\r")
    assert [str(e.step) for e in repl.session.entries] == ["skew([0, 0], 2, 1, -1);"]
    assert "refused" not in out


# --- look -------------------------------------------------------------------------------------

def test_lexer_tokens():
    from pygments import lex
    from pygments.token import Comment, Keyword, Name, Number

    from clayx_repl.lexer import ClayScriptLexer
    toks = [(t, v) for t, v in lex('unchecked x = fuse(get_beta_loop(1)); # c\n:code omp',
                                    ClayScriptLexer()) if v.strip()]
    assert toks[0] == (Keyword, "unchecked")
    assert (Name.Variable, "x") in toks and (Name.Function, "fuse") in toks
    assert (Name.Builtin, "get_beta_loop") in toks and (Number.Integer, "1") in toks
    assert (Comment.Single, "# c") in toks and (Keyword.Pseudo, ":code") in toks


def test_lexer_is_a_pygments_plugin():
    import tomllib
    conf = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert conf["project"]["entry-points"]["pygments.lexers"]["clayx"] == \
        "clayx_repl.lexer:ClayScriptLexer"
    from importlib.metadata import entry_points
    if not any(e.name == "clayx" for e in entry_points(group="pygments.lexers")):
        pytest.skip("the installed metadata predates the entry point (pip install -e .)")
    from pygments.lexers import get_lexer_by_name
    assert get_lexer_by_name("clayx").name == "Clay script"
    from pygments.lexers import get_lexer_for_filename
    assert get_lexer_for_filename("wave.clay").name == "Clay script"


def test_colour_and_no_colour(wave, monkeypatch):
    out, _ = drive(wave, lines("skew([0, 0], 2, 1, -1);"), color=False)
    assert not ANSI.search(out)
    from rich.console import Console
    buf = io.StringIO()
    con = Console(file=buf, force_terminal=True, color_system="standard", markup=False)
    Repl(clayx.load(wave), wave, console=con).handle(":tree")
    assert ANSI.search(buf.getvalue())


def test_not_a_terminal_is_batch(wave):
    out, err = io.StringIO(), io.StringIO()
    rc = cli_run([str(wave), "--no-color"], stdout=out, stderr=err,
                 stdin=io.StringIO("skew([0, 0], 2, 1, -1);"))
    assert rc == 0 and "clayx>" not in out.getvalue() and "β-tree" in out.getvalue()
    assert not ANSI.search(out.getvalue())
    out = io.StringIO()
    assert cli_run(["--demo"], stdout=out, stderr=err, stdin=io.StringIO("")) == 0
    assert "Try (Tab completes names and β-vectors)" in out.getvalue()
    assert "split_children([2], 3);" in out.getvalue()


def test_the_prompt_opens_only_on_a_terminal_without_batch_options():
    from clayx_repl.cli import _interactive, _parser

    class Tty(io.StringIO):
        def isatty(self):
            return True

    def opens(*argv, stdin=None, stdout=None):
        return _interactive(_parser().parse_args(list(argv)), stdin or Tty(), stdout or Tty())

    assert opens("f.c") and opens("--demo") and opens("f.c", "--no-color")
    assert not opens("f.c", "--emit", "c") and not opens("f.c", "--script", "s.clay")
    assert not opens("f.c", "-o", "out.c")
    assert not opens("f.c", stdin=io.StringIO()) and not opens("f.c", stdout=io.StringIO())


def test_history_file_under_xdg_state(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    assert history_path() == tmp_path / "clayx" / "history"
    monkeypatch.delenv("XDG_STATE_HOME")
    assert history_path() == Path.home() / ".local" / "state" / "clayx" / "history"


def test_verify_sizes(wave):
    s = clayx.load(EXAMPLES / "gemm.c")
    assert commands.verify_sizes(s.original, EXAMPLES / "gemm.c")[0] == \
        {"NI": 7, "NJ": 8, "NK": 9}
    s = clayx.load(wave)
    assert commands.verify_sizes(s.original, wave)[0] == {"N": 12}
    big = wave.parent / "big.c"
    big.write_text(WAVE.replace("# define N 12", "# define N 4000"))
    s = clayx.load(big)
    sizes, how = commands.verify_sizes(s.original, big)
    assert sizes == {"N": 20} and "divided by 200" in how
    fixed = wave.parent / "fixed.c"           # an unguarded macro cannot be set with -D
    fixed.write_text(WAVE.replace("#ifndef N\n# define N 12\n#endif", "#define N 4000"))
    s = clayx.load(fixed)
    assert s.original.param_values == {"N": 4000}
    assert commands.verify_sizes(s.original, fixed) == ({}, "the file's own sizes")


def test_readme_session_is_what_the_prompt_prints(tmp_path):
    """The README's transcript (copied from a terminal) is what the prompt
    prints for the same input, timings aside (:verify left out: no gcc
    here)."""
    readme = (ROOT / "README.md").read_text()
    sec = readme[readme.index("## A session at the prompt"):]
    src = re.search(r"```c\n(.*?)```", sec, re.S).group(1)
    block = re.search(r"```\n\$ clayx wave\.c\n(.*?)```", sec, re.S).group(1).splitlines()
    (tmp_path / "wave.c").write_text(src)
    inputs, expected = [], []
    skipping = False
    for ln in block:
        if ln.startswith("clayx>"):
            typed = ln[len("clayx>"):].strip()
            skipping = typed == ":verify"
            if typed and not skipping:
                inputs.append(typed)
        elif not skipping and "│" not in ln:
            expected.append(ln)
    assert len(inputs) == 5 and expected[8].startswith("refused: interchange is illegal")
    import os
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        out, _ = drive(Path("wave.c"), lines(*inputs), width=100)
    finally:
        os.chdir(cwd)
    ms = re.compile(r"\(\d+ ms\)")
    assert [ms.sub("(… ms)", x) for x in out.splitlines()] == \
        [ms.sub("(… ms)", x) for x in expected]


def test_emit_scop_after_an_unchecked_step_is_refused(wave):
    """Issue 13 item 5 at the prompt: ':emit scop' after an unchecked step is
    refused like ':emit c' (the prompt was not opened with --unchecked)."""
    out, repl = drive(wave, lines("unchecked reverse([0], 1);", ":emit scop"))
    assert "<OpenScop>" not in out
    assert "unchecked" in out.split("reverse([0], 1);")[-1]


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not available")
def test_run_times_the_regions(tmp_path, monkeypatch):
    """':run' compiles, checks and times original and current code."""
    monkeypatch.setenv("CFLAGS", "-O1 -fopenmp")
    src = tmp_path / "gemm.c"
    src.write_text((EXAMPLES / "gemm.c").read_text())
    out, repl = drive(src, lines("parallelize([0]);", ":run 2 -D NI=20 -D NJ=20 -D NK=20",
                                 ":run x"))
    assert "gcc -O1 -fopenmp, 2 thread(s)" in out and "speedup" in out
    assert "outputs identical" in out
    assert "unexpected 'x'" in out
