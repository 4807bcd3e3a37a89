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

from test_auto import auto_runs_like_the_original

DATA = Path(__file__).resolve().parent / "data" / "general"
KERNELS = sorted(p.stem for p in DATA.glob("*.c"))

needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not available")


@needs_gcc
@pytest.mark.slow
@pytest.mark.parametrize("stem", KERNELS)
def test_auto_on_unseen_kernels_runs_like_the_original(tmp_path, monkeypatch, stem):
    monkeypatch.setenv("OMP_NUM_THREADS", "4")
    auto_runs_like_the_original(tmp_path, DATA / f"{stem}.c", {})
