"""``--run`` (issue 10): compile, verify and time the SCoP regions.

- :func:`clayx.run.instrument` adds timer calls around the regions and
  changes nothing else;
- :func:`clayx.run.measure` reports the region times of every run and the
  speedup, only when the outputs are identical; a transformed program that
  prints something else is a failed verification (never a speedup), a
  program without ``main`` a clear error;
- the command: ``--run``, ``--threads``, ``--repeat``, ``-D``, ``$CC`` and
  ``$CFLAGS``, exit statuses.
"""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import pytest

import clayx
from clayx.errors import LegalityError, MismatchError, VerifyError
from clayx.run import default_flags, instrument, measure_session
from clayx_repl.cli import run as cli

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not available")


def test_instrument_wraps_each_region_and_nothing_else():
    s = clayx.load(EXAMPLES / "gemm.c").current
    text = instrument(s.source, [s.region])
    head, _, body = text.partition("#include <stdio.h>\n#include <stdlib.h>\n#include <time.h>")
    assert "clayx --run" in head
    start, end = s.region
    # the original text is all there, in order, with one line before and after
    # the region
    rest = body[body.index(s.source[:start]):]
    assert rest.startswith(s.source[:start] + "clayx_region_start_(0);\n"
                           + s.source[start:end] + "clayx_region_stop_(0);\n"
                           + s.source[end:])


def test_instrument_refuses_overlapping_regions():
    with pytest.raises(VerifyError, match="overlap"):
        instrument("x" * 100, [(10, 50), (40, 60)])


@needs_gcc
def test_measure_reports_both_times_and_the_speedup():
    s = clayx.load(EXAMPLES / "gemm.c")
    s.apply("interchange([0, 1], 2, 3);")
    r = measure_session(s, defines={"NI": 40, "NJ": 50, "NK": 60}, threads=1, repeat=3,
                        flags=["-O2", "-fopenmp"])
    assert len(r.original) == len(r.transformed) == 3
    assert all(t > 0 for t in r.original + r.transformed)
    assert r.speedup == pytest.approx(r.original_median / r.transformed_median)
    assert r.command == ("gcc", "-O2", "-fopenmp") or r.command[1:] == ("-O2", "-fopenmp")
    table = r.table()
    assert "original" in table and "transformed" in table and "speedup" in table


@needs_gcc
def test_a_different_output_is_a_failed_verification_not_a_speedup():
    s = clayx.load(EXAMPLES / "seidel-2d.c")
    s.apply("unchecked reverse([0, 0], 2);")
    with pytest.raises(LegalityError):
        measure_session(s, repeat=1)
    with pytest.raises(MismatchError, match="verification failed.*array A differs"):
        measure_session(s, unchecked=True, repeat=1, defines={"N": 12, "TSTEPS": 3})


def test_a_program_without_main_is_refused(tmp_path):
    p = tmp_path / "k.c"
    p.write_text("void k(int n, double a[10])\n{\n  int i;\n#pragma scop\n"
                 "  for (i = 0; i < n; i++)\n    a[i] = 1;\n#pragma endscop\n}\n")
    with pytest.raises(VerifyError, match="no main function"):
        measure_session(clayx.load(p))


def test_default_flags_follow_cflags(monkeypatch):
    monkeypatch.delenv("CFLAGS", raising=False)
    assert default_flags() == ["-O3", "-fopenmp"]
    monkeypatch.setenv("CFLAGS", "-O1 -march=native")
    assert default_flags() == ["-O1", "-march=native"]


@needs_gcc
def test_command_line_run(tmp_path, monkeypatch):
    monkeypatch.setenv("CFLAGS", "-O1 -fopenmp")
    script = tmp_path / "s.clay"
    script.write_text("parallelize([0]);\n")
    out, err = io.StringIO(), io.StringIO()
    rc = cli([str(EXAMPLES / "gemm.c"), "--script", str(script), "--run", "--threads", "2",
              "--repeat", "2", "-D", "NI=30", "-D", "NJ=30", "-D", "NK=30"],
             stdout=out, stderr=err)
    assert rc == 0, err.getvalue()
    text = out.getvalue()
    assert "gcc -O1 -fopenmp, 2 thread(s)" in text and "2 runs" in text
    assert "outputs identical" in text
    # --run with --emit is a usage error; a failed verification exits 1
    assert cli([str(EXAMPLES / "gemm.c"), "--run", "--emit", "c"], stdout=out,
               stderr=err) == 2
    script.write_text("unchecked reverse([0, 0], 2);\n")
    err = io.StringIO()
    rc = cli([str(EXAMPLES / "seidel-2d.c"), "--script", str(script), "--unchecked",
              "--run", "--repeat", "1", "-D", "N=10", "-D", "TSTEPS=2"],
             stdout=io.StringIO(), stderr=err)
    assert rc == 1 and "verification failed" in err.getvalue()


@needs_gcc
def test_command_line_auto_run(monkeypatch):
    """``--auto --run``: the recovered script (its header and steps), then
    the times of its program, whose output was compared with the
    original's; ``--whitebox T --run`` the same for an external target."""
    monkeypatch.setenv("CFLAGS", "-O1 -fopenmp")
    out, err = io.StringIO(), io.StringIO()
    rc = cli([str(EXAMPLES / "jacobi-2d.c"), "--auto", "--tile", "4", "--run", "--threads", "2",
              "--repeat", "1", "-D", "N=13", "-D", "TSTEPS=3"], stdout=out, stderr=err)
    assert rc == 0, err.getvalue()
    head, *rest = out.getvalue().splitlines()
    assert head.startswith("# clayx --auto cpu --tile 4 on jacobi-2d.c:") and \
        "every instance gets the target's date" in head
    assert any(line.startswith(("tile(", "stripmine(")) for line in rest)    # its steps
    text = "\n".join(rest)
    assert "gcc -O1 -fopenmp, 2 thread(s)" in text and "outputs identical" in text
    out, err = io.StringIO(), io.StringIO()
    rc = cli([str(EXAMPLES / "gemm.c"), "--whitebox", str(EXAMPLES / "gemm.c"), "--run",
              "--repeat", "1", "-D", "NI=9", "-D", "NJ=8", "-D", "NK=7"], stdout=out, stderr=err)
    assert rc == 0, err.getvalue()
    assert out.getvalue().startswith("# clayx --whitebox ") and "outputs identical" in out.getvalue()
