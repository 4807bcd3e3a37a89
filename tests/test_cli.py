"""The ``clayx`` command: emit forms, exit status, nothing written on error."""

from __future__ import annotations

import io
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from clayx.frontend.openscop import read
from clayx_repl.cli import run

ROOT = Path(__file__).resolve().parent.parent
GEMM = ROOT / "examples" / "gemm.c"


def call(*argv, stdin=""):
    out, err = io.StringIO(), io.StringIO()
    rc = run(list(argv), stdout=out, stderr=err, stdin=io.StringIO(stdin))
    return rc, out.getvalue(), err.getvalue()


def test_emit_c_to_stdout_and_file(tmp_path):
    rc, out, err = call(str(GEMM), "--emit", "c")
    assert rc == 0 and err == ""
    assert "#pragma scop" in out and "kernel_gemm" in out
    dest = tmp_path / "g.c"
    rc, out, _ = call(str(GEMM), "--emit", "c", "-o", str(dest))
    assert rc == 0 and out == ""
    text = dest.read_text()
    src = GEMM.read_text()
    a = src.index("#pragma scop")
    assert text[:a] == src[:a]
    b = src.index("#pragma endscop")
    assert text.endswith(src[b:])


def test_summary(tmp_path):
    rc, out, _ = call(str(ROOT / "examples" / "atax.c"))
    assert rc == 0
    assert "loop i" in out and "dependences: RAW" in out and "[1, 1, 0]" in out


def test_clayx_error_exit_1_and_nothing_written(tmp_path):
    bad = tmp_path / "bad.c"
    bad.write_text("void f(int n, double *p) {\n#pragma scop\nwhile (n) n--;\n#pragma endscop\n}\n")
    dest = tmp_path / "out.c"
    rc, out, err = call(str(bad), "--emit", "c", "-o", str(dest))
    assert rc == 1 and out == ""
    assert "while loop" in err and "bad.c:3:1" in err
    assert not dest.exists()


def test_missing_file_is_exit_1():
    rc, _, err = call("/nonexistent/x.c", "--emit", "c")
    assert rc == 1 and "no such file" in err


@pytest.mark.parametrize("argv", [["--bogus"], [], [str(GEMM), "--emit", "fortran"],
                                  ["--demo", str(GEMM)]])
def test_usage_errors_exit_2(argv, capsys):
    rc, _, _ = call(*argv)
    assert rc == 2


def test_scop_round_trip_through_the_command(tmp_path):
    rc, scop_text, _ = call(str(GEMM), "--emit", "scop")
    assert rc == 0 and "<OpenScop>" in scop_text
    f = tmp_path / "gemm.scop"
    f.write_text(scop_text)
    rc, again, _ = call(str(f), "--emit", "scop")
    assert rc == 0
    a, b = read(scop_text), read(again)
    assert a.params == b.params
    for s, t in zip(a.statements, b.statements):
        assert s.domain.is_equal(t.domain) and s.body == t.body
    for r, q in zip(a.schedule, b.schedule):
        assert r.beta == q.beta and r.map.is_equal(q.map)
    assert again == scop_text


def test_emit_c_from_openscop_prints_code(tmp_path):
    rc, scop_text, _ = call(str(GEMM), "--emit", "scop")
    f = tmp_path / "gemm.scop"
    f.write_text(scop_text)
    rc, code, err = call(str(f), "--emit", "c")
    assert rc == 0, err
    assert "for (" in code and "C[i][j]" in code


def test_demo():
    rc, out, _ = call("--demo")
    assert rc == 0
    assert "beamforming" in out and "#pragma scop" in out and "β-tree" in out


@pytest.mark.skipif(shutil.which("clayx") is None, reason="console script not installed")
def test_console_script_exit_status(tmp_path):
    r = subprocess.run(["clayx", str(GEMM), "--emit", "c"], capture_output=True, text=True)
    assert r.returncode == 0 and "#pragma scop" in r.stdout
    r = subprocess.run(["clayx", "--nope"], capture_output=True, text=True)
    assert r.returncode == 2
    r = subprocess.run([sys.executable, "-m", "clayx_repl.cli", str(tmp_path / "none.c")],
                       capture_output=True, text=True)
    assert r.returncode == 1


def _readme_commands(section: str):
    """``(stdin text, argv, expected stderr lines)`` of every ``$ echo '…' |
    clayx …`` or ``$ printf '…' | clayx …`` block of a README section."""
    import re
    import shlex
    for block in re.findall(r"```\n\$ (.*?)```", section, re.S):
        cmd, *expected = block.rstrip("\n").split("\n")
        producer, _, command = cmd.partition(" | ")
        word, arg = shlex.split(producer)
        text = arg + "\n" if word == "echo" else arg.replace("\\n", "\n")
        argv = shlex.split(command)
        assert argv[0] == "clayx"
        yield text, argv[1:], expected


def test_readme_refusal_example():
    """The README's refusal and argument-error examples are what the
    command prints for the file it shows (run from the repository root);
    the C excerpt it shows is that file's SCoP."""
    import os
    readme = (ROOT / "README.md").read_text()
    sec = readme[readme.index("A refused step says why"):readme.index("Directives use Clay's")]
    shown = sec[sec.index("```c\n") + 5:]
    shown = shown[:shown.index("```")]
    src = (ROOT / "examples" / "readme" / "prefix.c").read_text()
    assert shown in src
    cases = list(_readme_commands(sec))
    assert [argv[0] for _, argv, _ in cases] == ["examples/readme/prefix.c"] * 2
    codes = []
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        for text, argv, expected in cases:
            out, err = io.StringIO(), io.StringIO()
            codes.append(run(argv, stdout=out, stderr=err, stdin=io.StringIO(text)))
            assert out.getvalue() == ""
            assert err.getvalue().rstrip("\n").split("\n") == expected
    finally:
        os.chdir(cwd)
    assert codes == [3, 1]
    assert "> for (i = N - 1; i > 0; i--)" in cases[0][2][-2]
