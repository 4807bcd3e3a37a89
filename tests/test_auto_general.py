"""``--auto`` on kernels written apart from ``examples/`` (issue 9's "general,
not tuned"): PolyBench 3's dynprog, a 3-D Jacobi stencil, a 4-index tensor
contraction (five 5-deep nests), a scan with a scalar accumulator, guarded
loops with min/max bounds, a step of 2 and a call, and integer arrays with a
conditional expression.  Each recovered script replays to isl's dates
exactly, and its code, C and OpenMP on 4 threads, prints what the original
prints, bit for bit."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from clayx.verify import verify
from clayx_repl.cli import EXIT_OK

from test_auto import clayx_cli

DATA = Path(__file__).resolve().parent / "data" / "general"
KERNELS = sorted(p.stem for p in DATA.glob("*.c"))

needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not available")


@needs_gcc
@pytest.mark.slow
@pytest.mark.parametrize("stem", KERNELS)
def test_auto_on_unseen_kernels_runs_like_the_original(tmp_path, monkeypatch, stem):
    monkeypatch.setenv("OMP_NUM_THREADS", "4")
    src = DATA / f"{stem}.c"
    script = tmp_path / "auto.clay"
    rc, _, err = clayx_cli(src, "--auto", "cpu", "--tile", "4", "-o", script)
    assert rc == EXIT_OK, err
    assert "every instance gets the target's date" in script.read_text().splitlines()[0]
    for emit in ("c", "omp"):
        gen = tmp_path / f"{stem}_{emit}.c"
        rc, _, err = clayx_cli(src, "--script", script, "--emit", emit, "-o", gen)
        assert rc == EXIT_OK, err
        res = verify(src, gen, {}, openmp=emit == "omp", workdir=tmp_path / f"build_{emit}")
        assert res.ok and res.values > 0
