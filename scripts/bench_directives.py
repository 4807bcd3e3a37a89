#!/usr/bin/env python3
"""Benchmark of directive steps: apply + legality check, in-process.

Each (example, script) below is replayed step by step in a Session (the
dependences of the original program are computed once, before timing); every
step's time is recorded, repeated ``--repeat`` times (median per step).
Target (issue 3): median step under 10 ms, 95th percentile under 50 ms.

    python scripts/bench_directives.py [--repeat 5] [--json bench_directives.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import clayx  # noqa: E402
from clayx.script import Script  # noqa: E402

SCRIPTS = {
    "gemm": "interchange([0, 1], 2, 3); stripmine([0, 1], 3, 8); parallelize([0]); "
            "shift([0, 0], 2, {0 | 0 | 0}, 1); reverse([0, 0], 2); unroll_mark([0, 1], 4);",
    "jacobi-2d": "skew([0, 0], 2, 1, -1); skew([0, 0], 3, 1, -1); skew([0, 1], 2, 1, -1); "
                 "skew([0, 1], 3, 1, -1); shift([0, 1], 2, {0 | 0}, -1); shift([0, 1], 3, {0 | 0}, -1);",
    "atax": "split([1, 1], 1); parallelize([0]); fuse([1]); parallelize([1]);",
    "mvt": "interchange([1, 0], 1, 2); fuse([0]); parallelize([0]); stripmine([0], 1, 16);",
    "beamforming": "split_children([2], 3); fuse([2]); parallelize([2, 2]);",
    "2mm": "parallelize([0]); parallelize([1]); fuse([0]); stripmine([0], 1, 4);",
    "seidel-2d": "skew([0, 0], 2, 1, -1); skew([0, 0], 3, 1, -1); skew([0, 0], 3, 2, -1); "
                 "tile([0, 0], 3, 2, 8); tile([0, 0], 2, 1, 8);",
    "adi": "parallelize([13, 0]); shift([13, 1], 2, {0 | 0}, 1); reverse([13, 0, 3], 3);",
    "syrk": "interchange([0, 1], 2, 3); parallelize([0]); iss([0], {1 | 0 | 0 | -8});",
}


def bench(stem: str, text: str, repeat: int) -> list[dict]:
    """Per-step median times of one script on one example."""
    steps = Script.parse(text).steps
    times: list[list[float]] = [[] for _ in steps]
    results: list[str] = ["" for _ in steps]
    for _ in range(repeat):
        s = clayx.load(ROOT / "examples" / f"{stem}.c")
        for k, step in enumerate(steps):
            t = time.perf_counter()
            try:
                s.apply(Script((step,)))
                results[k] = "ok"
            except clayx.ClayxError as e:
                results[k] = type(e).__name__
            times[k].append((time.perf_counter() - t) * 1000.0)
    return [{"kernel": stem, "step": str(Script((st,))).strip(), "result": results[k],
             "ms": round(statistics.median(times[k]), 3)} for k, st in enumerate(steps)]


def step_summary(rows: list[dict]) -> dict:
    """Count, median, 95th percentile and max of the rows' ``ms`` (also
    used by ``bench_repl.py``)."""
    ms = sorted(r["ms"] for r in rows)
    p95 = ms[min(len(ms) - 1, int(round(0.95 * (len(ms) - 1))))]
    return {"steps": len(ms), "median_ms": round(statistics.median(ms), 3),
            "p95_ms": round(p95, 3), "max_ms": round(ms[-1], 3)}


def main() -> int:
    """Run the benchmark and print the table."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--json", default="bench_directives.json", help="JSON output ('' for none)")
    args = ap.parse_args()
    rows = [r for stem, text in SCRIPTS.items() for r in bench(stem, text, args.repeat)]
    for r in rows:
        print(f"{r['kernel']:12s} {r['ms']:8.2f} ms  {r['result']:14s} {r['step']}")
    summary = step_summary(rows)
    print(f"\n{summary['steps']} steps: median {summary['median_ms']} ms, "
          f"p95 {summary['p95_ms']} ms, max {summary['max_ms']} ms "
          "(target: median < 10 ms, p95 < 50 ms)")
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": rows, "summary": summary}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
