"""The C kernel suites compile cleanly, run, and verify against themselves.

Two suites: ``examples/`` (standalone PolyBench-like kernels plus the Clay
paper's beamforming kernel) and ``tests/data/polybench_style/`` (kernels
written against our PolyBench 4.2-style ``polybench.h``).
"""

from __future__ import annotations

import math
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from clayx.verify import SMALL_SIZES, compile_c, parse_dumps, run, verify

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None,
                                reason="gcc is not installed")

_REPO = Path(__file__).resolve().parent.parent
_EXAMPLES = _REPO / "examples"
_PB = _REPO / "tests" / "data" / "polybench_style"

EXAMPLE_NAMES = sorted("""
    2mm 3mm adi atax bicg cholesky correlation covariance deriche doitgen
    durbin fdtd-2d floyd-warshall gemm gemver gesummv gramschmidt heat-3d
    jacobi-1d jacobi-2d lu ludcmp mvt nussinov seidel-2d symm syr2k syrk
    trisolv trmm beamforming""".split())
PB_NAMES = sorted("""gemm 2mm atax jacobi-2d seidel-2d lu cholesky
                     correlation nussinov adi""".split())

# (path, SMALL_SIZES key) for every kernel of both suites.
ALL_KERNELS = ([(_EXAMPLES / f"{n}.c", n) for n in EXAMPLE_NAMES]
               + [(_PB / f"{n}.c", f"pb/{n}") for n in PB_NAMES])
QUICK = ["gemm", "nussinov", "pb/lu"]


def _path(key: str) -> Path:
    if key.startswith("pb/"):
        return _PB / f"{key[3:]}.c"
    return _EXAMPLES / f"{key}.c"


def _warnings(path: Path, tmp_path: Path) -> str:
    """stderr of ``gcc -std=c99 -Wall -Wextra -O2`` on one kernel (default size)."""
    exe = tmp_path / (path.stem + ".warn")
    proc = subprocess.run(
        ["gcc", "-std=c99", "-Wall", "-Wextra", "-O2", f"-I{path.parent}",
         str(path), "-o", str(exe), "-lm"],
        capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return proc.stderr


def _check_outputs(path: Path, key: str, tmp_path: Path) -> None:
    """Run at the small size: dumps present, finite, not all zero."""
    exe = tmp_path / (path.stem + ".small")
    compile_c(path, exe, defines=SMALL_SIZES[key], opt="-O1",
              extra_flags=("-Wall", "-Wextra"))
    dumps = parse_dumps(run(exe))
    assert dumps, f"{path.name} printed no dump section"
    values = [float(v) for vals in dumps.values() for v in vals]
    assert values, f"{path.name} dumped no values"
    assert all(math.isfinite(v) for v in values), f"{path.name}: NaN/inf"
    assert any(v != 0 for v in values), f"{path.name}: all values are zero"


def _scop_region(text: str) -> str:
    lines = text.splitlines()
    starts = [i for i, l in enumerate(lines) if l.strip() == "#pragma scop"]
    ends = [i for i, l in enumerate(lines) if l.strip() == "#pragma endscop"]
    assert len(starts) == 1 and len(ends) == 1 and starts[0] < ends[0]
    return "\n".join(lines[starts[0] + 1:ends[0]])


# ---------------------------------------------------------------------------
# Quick checks (no compiler, or a handful of compilations)
# ---------------------------------------------------------------------------

def test_suites_are_complete(examples_dir, polybench_style_dir):
    assert sorted(p.stem for p in examples_dir.glob("*.c")) == EXAMPLE_NAMES
    assert sorted(p.stem for p in polybench_style_dir.glob("*.c")) == PB_NAMES
    for name in PB_NAMES:
        assert (polybench_style_dir / f"{name}.h").is_file()
    assert (polybench_style_dir / "polybench.h").is_file()
    assert (examples_dir / "README.md").is_file()


def test_small_sizes_cover_every_kernel():
    keys = {key for _, key in ALL_KERNELS}
    assert set(SMALL_SIZES) == keys
    for key, sizes in SMALL_SIZES.items():
        text = _path(key).read_text()
        if key.startswith("pb/"):
            text += (_PB / f"{key[3:]}.h").read_text()
        for macro, value in sizes.items():
            assert re.search(rf"#\s*ifndef\s+{macro}\b", text), (key, macro)
            assert value >= (2 if macro in ("TSTEPS", "TMAX") else 5)


@pytest.mark.parametrize("path,key", ALL_KERNELS, ids=[k for _, k in ALL_KERNELS])
def test_scop_region_uses_only_supported_constructs(path, key):
    region = _scop_region(path.read_text())
    code = re.sub(r"/\*.*?\*/|//[^\n]*", "", region, flags=re.S)
    assert not re.search(r"^\s*#", code, re.M), "preprocessor line in the SCoP"
    for word in ("while", "break", "continue", "return", "goto", "switch"):
        assert not re.search(rf"\b{word}\b", code), word
    # No declarations other than `for (int i = ...)` iterators.
    decl = re.compile(r"(?<!for \()\b(int|double|float|char|long)\s+[A-Za-z_]\w*\s*[=;,\[]")
    assert not decl.search(code)


@pytest.mark.parametrize("key", QUICK)
def test_quick_kernels_compile_cleanly_and_verify(key, tmp_path):
    path = _path(key)
    assert _warnings(path, tmp_path) == ""
    _check_outputs(path, key, tmp_path)
    result = verify(path, path, SMALL_SIZES[key])
    assert result.ok and result.values > 0


# ---------------------------------------------------------------------------
# Every kernel (slow: about a hundred compilations)
# ---------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("path,key", ALL_KERNELS, ids=[k for _, k in ALL_KERNELS])
def test_kernel_compiles_without_warnings(path, key, tmp_path):
    assert _warnings(path, tmp_path) == ""


@pytest.mark.slow
@pytest.mark.parametrize("path,key", ALL_KERNELS, ids=[k for _, k in ALL_KERNELS])
def test_kernel_outputs_are_meaningful_and_verify(path, key, tmp_path):
    _check_outputs(path, key, tmp_path)
    result = verify(path, path, SMALL_SIZES[key])
    assert result.ok and result.note == ""
    assert result.arrays and result.values > 0
