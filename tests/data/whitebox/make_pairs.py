"""Regenerate the (original, target) OpenScop pairs of this directory.

Each pair ``NAME.orig.scop`` / ``NAME.target.scop`` is an example kernel
written by ``clayx KERNEL.c --emit scop`` and the same kernel after the
Clay script ``NAME.clay`` (``clayx KERNEL.c --script NAME.clay --emit
scop``, the ``<clay>`` extension left out).  The hand-written targets
(``*.pluto.scop``, ``*.yaml``, ``*.map``) are not regenerated.

Run from the repository root: ``python tests/data/whitebox/make_pairs.py``.
"""

import io
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(ROOT))

from clayx_repl.cli import run  # noqa: E402

#: name -> (kernel, script)
PAIRS = {
    "gemm-fission-tile": ("gemm", "split([0, 0], 1); stripmine([1], 1, 8); "
                                  "tile([1, 0, 0], 3, 2, 8); tile([1, 0, 0, 0, 0], 5, 3, 8); "
                                  "interchange([1, 0, 0, 0, 0, 0], 4, 5);"),
    "gemm-iss-reverse": ("gemm", "iss([0], {1 | 0 | 0 | 0 | -5}); reverse([0, 2, 0], 2);"),
    "gemm-peel-stripmine": ("gemm", "peel([0], {-1 | 0 | 0 | 0 | 3}); stripmine([1, 1, 0], 3, 4);"),
    "mvt-fuse-interchange": ("mvt", "interchange([1, 0], 1, 2); fuse([0]);"),
    "mvt-reshape-reverse": ("mvt", "reshape([0, 0, 0], 2, 1, 1); reverse([1], 1);"),
    "atax-fission-fuse": ("atax", "split([1, 1], 1); fuse([0]);"),
    "atax-skew-reverse": ("atax", "reverse([0], 1); skew([1, 1], 2, 1, -1); shift([1, 1], 2, {}, 3);"),
    "bicg-fission-tile": ("bicg", "split([1, 1, 0], 2); stripmine([1], 1, 4); "
                                  "tile([1, 0, 1], 3, 2, 4);"),
    "gesummv-fission-reverse": ("gesummv", "split([0, 2, 0], 2); reverse([0], 1);"),
    "jacobi1d-skew-fuse-tile": ("jacobi-1d", "skew([0, 0], 2, 1, -2); skew([0, 1], 2, 1, -2); "
                                             "shift([0, 1], 2, {}, -1); fuse([0, 0]); "
                                             "stripmine([0], 1, 8); tile([0, 0, 0], 3, 2, 8);"),
    "2mm-fuse-stripmine": ("2mm", "fuse([0]); stripmine([0, 1], 2, 4);"),
    "trisolv-iss-peel": ("trisolv", "iss([0], {1 | 0 | -4}); peel([0, 1], {0 | -1 | 0 | 2});"),
    "seidel-skew-tile": ("seidel-2d", "skew([0, 0], 2, 1, -1); skew([0, 0, 0], 3, 1, -1); "
                                      "skew([0, 0, 0], 3, 2, -1); stripmine([0], 1, 4); "
                                      "tile([0, 0, 0], 3, 2, 4);"),
}


def emit(argv) -> str:
    out, err = io.StringIO(), io.StringIO()
    rc = run(argv + ["--emit", "scop"], stdout=out, stderr=err, stdin=io.StringIO(""))
    if rc:
        raise SystemExit(f"{' '.join(argv)}: {err.getvalue()}")
    return re.sub(r"<clay>.*?</clay>\n", "", out.getvalue(), flags=re.S)


def main(names) -> None:
    for name, (kernel, script) in PAIRS.items():
        if names and name not in names:
            continue
        src = str(ROOT / "examples" / f"{kernel}.c")
        (HERE / f"{name}.clay").write_text(script.replace("; ", ";\n") + "\n")
        try:
            target = emit([src, "--script", str(HERE / f"{name}.clay")])
        except SystemExit as e:
            print(name, "FAILED", e)
            continue
        (HERE / f"{name}.orig.scop").write_text(emit([src]))
        (HERE / f"{name}.target.scop").write_text(target)
        print(name, "ok")


if __name__ == "__main__":
    main(sys.argv[1:])
