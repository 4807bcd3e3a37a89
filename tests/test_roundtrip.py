"""The foundation's promise, end to end: every kernel is parsed into the model,
its dependences computed, its code regenerated from the original schedule,
and the regenerated program compiles without new warnings and prints exactly
what the original prints (compiled and run with gcc, compared bit for bit)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from clayx.analysis import dependences, violations
from clayx.codegen import generate_file
from clayx.frontend.c import parse_file, parse_string
from clayx.verify import SMALL_SIZES, verify

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("*.c"))
PB_DIR = ROOT / "tests" / "data" / "polybench_style"
PB = sorted(PB_DIR.glob("*.c"))
QUICK = {"gemm", "jacobi-1d", "beamforming", "ludcmp"}


def _warnings(path: Path, include: Path, out_dir: Path) -> str:
    exe = out_dir / (path.stem + ".o")
    r = subprocess.run(["gcc", "-std=c99", "-Wall", "-Wextra", "-O1", "-c", "-I", str(include),
                        str(path), "-o", str(exe)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r.stderr


def _roundtrip(src: Path, sizes: dict[str, int], tmp_path: Path) -> None:
    scops = parse_file(src)
    for scop in scops:
        deps = dependences(scop)
        assert len(scop.statements) > 0
        # every kernel has dependences to respect, and its own order does
        assert deps.of_kind("RAW", "WAR", "WAW")
        assert violations(scop, deps) == []
    text = generate_file(scops)
    # outside the regions, the file is unchanged byte for byte
    orig = src.read_text()
    for scop in scops:
        a, b = scop.region
        assert orig[:a] == text[:a]
    assert text.endswith(orig[scops[-1].region[1]:])
    gen = tmp_path / f"{src.stem}.gen.c"
    gen.write_text(text)
    # no new warnings (the originals compile cleanly)
    assert _warnings(src, src.parent, tmp_path) == ""
    assert _warnings(gen, src.parent, tmp_path) == "", text
    # same output, bit for bit, at two sizes
    res = verify(src, gen, sizes)
    assert res.ok and res.values > 0
    bigger = {k: v + 3 for k, v in sizes.items()}
    assert verify(src, gen, bigger).ok
    # the generated code is itself a SCoP clayx reads back
    again = parse_string(text, path=str(gen))
    assert len(again) == len(scops)


def _ids(paths):
    return [p.stem for p in paths]


@pytest.mark.parametrize("src", [p for p in EXAMPLES if p.stem in QUICK],
                         ids=_ids([p for p in EXAMPLES if p.stem in QUICK]))
def test_roundtrip_quick(src, tmp_path):
    _roundtrip(src, SMALL_SIZES[src.stem], tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("src", EXAMPLES, ids=_ids(EXAMPLES))
def test_roundtrip_example(src, tmp_path):
    _roundtrip(src, SMALL_SIZES[src.stem], tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("src", PB, ids=_ids(PB))
def test_roundtrip_polybench_style(src, tmp_path):
    _roundtrip(src, SMALL_SIZES[f"pb/{src.stem}"], tmp_path)


def test_every_example_has_small_sizes():
    for p in EXAMPLES:
        assert p.stem in SMALL_SIZES
    for p in PB:
        assert f"pb/{p.stem}" in SMALL_SIZES
    assert len(EXAMPLES) == 31
