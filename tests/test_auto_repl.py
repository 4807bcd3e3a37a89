"""The prompt's ``:auto``, ``:whitebox`` and ``:edit`` (issue 9), driven
through prompt_toolkit's pipe input as in test_repl.py: the recovered
script shown beside its code with its parallel loops, accepted whole or in
part, edited in ``$EDITOR`` and replayed; refusals and misuse leave the
session unchanged."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from clayx.whitebox.replay import same_dates
from clayx.whitebox.targets import read_target

from test_repl import drive, lines

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
DATA = Path(__file__).resolve().parent / "data" / "whitebox"


def test_auto_shows_the_script_beside_its_code_and_accepts_it():
    # locality=0: isl's loop order and Pluto's tiling, not the CPU
    # post-processing (which keeps jacobi-1d's loops as written)
    out, repl = drive(EXAMPLES / "jacobi-1d.c", lines(":auto tile=8 locality=0", ":auto accept"),
                      width=170)
    assert "computing the cpu schedule (isl)" in out
    assert ":auto cpu, tile 8, locality=0: 7 steps, replayed ✓ same dates" in out
    assert "code it produces (omp)" in out
    assert "  1  skew([0], 2, 1, -2);  # skew" in out
    assert "#pragma omp parallel for" in out
    assert "parallel loops: [0, 0] floor((2t + i)/8)" in out
    assert "applied 7 steps from :auto cpu, tile 8, locality=0 (7 of 7 steps)" in out
    s = repl.session
    assert [e.step.call.name for e in s.entries][-1] == "parallelize"
    r = s.original
    assert same_dates(r, s.current.schedule, read_target(s.current.schedule, r))


def test_accept_the_first_k_steps_then_recompute_from_there():
    out, repl = drive(EXAMPLES / "jacobi-1d.c", lines(
        ":auto locality=0", ":auto accept 3", ":auto accept", ":auto locality=0",
        ":auto accept 9", ":auto accept"))
    assert "applied 3 steps from :auto cpu, tile 32, locality=0 (3 of 7 steps)" in out
    # the pending script was used up
    assert "no pending script: :auto or :whitebox FILE computes one" in out
    assert ":auto cpu, tile 32, locality=0: 4 steps" in out
    assert "cannot accept 9 steps: the script has 4" in out
    assert len(repl.session.entries) == 7


def test_a_pending_script_is_refused_after_the_state_changed():
    out, repl = drive(EXAMPLES / "mvt.c", lines(
        ":auto gpu tile=0", "reverse([0], 1);", ":auto accept", ":auto show", ":auto drop",
        ":auto show"))
    assert ":auto gpu, tile 0:" in out
    assert "the state changed since :auto gpu, tile 0; run it again" in out
    assert "dropped the pending script (:auto gpu, tile 0)" in out
    assert out.count("no pending script") == 1
    assert [str(e.step) for e in repl.session.entries] == ["reverse([0], 1);"]


def test_edit_in_the_editor_and_replay(tmp_path, monkeypatch):
    # an "editor" that keeps the first two steps only
    editor = tmp_path / "ed.py"
    editor.write_text("import sys\np = sys.argv[1]\n"
                      "ls = [l for l in open(p) if l.strip() and not l.startswith('#')]\n"
                      "open(p, 'w').write(''.join(ls[:2]))\n")
    monkeypatch.setenv("EDITOR", f"{sys.executable} {editor}")
    out, repl = drive(EXAMPLES / "gemm.c", lines(":auto", ":edit"))
    assert "applied 2 steps from the edited script" in out
    assert [e.step.call.name for e in repl.session.entries] == ["split", "stripmine"]
    monkeypatch.setenv("EDITOR", "false")
    out, repl = drive(EXAMPLES / "gemm.c", lines(":auto", ":edit"))
    assert "the editor 'false' exited with status 1; nothing applied" in out
    assert not repl.session.entries


def test_whitebox_an_external_target(tmp_path):
    orig = DATA / "gemm-fission-tile.orig.scop"
    out, repl = drive(orig, lines(f":whitebox {DATA / 'gemm-stripmine.pluto.scop'}",
                                  ":auto accept"), width=160)
    assert "whiteboxing" in out and "replayed ✓ same dates" in out
    assert "no parallel loop" in out
    s = repl.session
    assert [e.step.call.name for e in s.entries] == ["interchange", "stripmine"]
    want = read_target(DATA / "gemm-stripmine.pluto.scop", s.original)
    assert same_dates(s.original, s.current.schedule, want)


@pytest.mark.parametrize("typed,message", [
    (":auto pluto", "unknown scheduling preset 'pluto'"),
    (":auto cpu fusion=1", "unknown isl scheduler option 'fusion'"),
    (":auto cpu tile=big", "tile=big: the tile size is a whole number"),
    (":auto cpu gpu", "'gpu': expected NAME=VALUE after the preset"),
    (":auto accept 2", "no pending script"),
    (":edit", "no pending script"),
    (":whitebox", "usage: :whitebox FILE"),
    (":whitebox /no/such.scop", "cannot read /no/such.scop: no such file"),
    (f":whitebox {DATA / 'gemm-bad.yaml'}", "neither an isl schedule tree"),
    (f":whitebox {DATA / 'jacobi1d-illegal.map'}", "refused"),
])
def test_misuse_is_an_error_and_changes_nothing(typed, message):
    path = DATA / ("jacobi1d-skew-fuse-tile.orig.scop" if "jacobi" in typed
                   else "gemm-fission-tile.orig.scop")
    out, repl = drive(path, lines(typed))
    assert message in out
    assert "internal error" not in out
    assert not repl.session.entries
    assert getattr(repl, "auto_pending", None) is None
