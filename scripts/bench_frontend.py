#!/usr/bin/env python3
"""Benchmark of the foundation: per example kernel, in-process, median of N runs:

- parse+model: tree-sitter parse and polyhedral model extraction;
- deps: exact dependences (isl dataflow: RAW, WAR, WAW, RAR), uncached;
- codegen: C code generation from the original schedule.

Targets (issue 2): parse+model+deps < 100 ms median per kernel, codegen < 100 ms.

    python scripts/bench_frontend.py [--repeat 5] [--json bench_frontend.json] [names...]
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

from clayx.analysis import compute_dependences  # noqa: E402
from clayx.codegen import generate_region  # noqa: E402
from clayx.frontend.c import parse_file  # noqa: E402


def _median_ms(fn, repeat: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append((time.perf_counter() - t) * 1000.0)
    return statistics.median(times), out


def bench(path: Path, repeat: int) -> dict:
    """Time one example; returns a row of the table."""
    parse_ms, scops = _median_ms(lambda: parse_file(path), repeat)
    scop = scops[0]
    deps_ms, deps = _median_ms(lambda: compute_dependences(scop), repeat)
    cg_ms, _ = _median_ms(lambda: generate_region(scop), repeat)
    return {"kernel": path.stem, "statements": len(scop.statements),
            "dependences": len(deps), "parse_model_ms": round(parse_ms, 2),
            "deps_ms": round(deps_ms, 2), "front_total_ms": round(parse_ms + deps_ms, 2),
            "codegen_ms": round(cg_ms, 2)}


def main() -> int:
    """Run the benchmark and print the table."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*", help="example stems (default: all)")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--json", default="bench_frontend.json", help="JSON output file ('' for none)")
    args = ap.parse_args()
    files = sorted((ROOT / "examples").glob("*.c"))
    if args.names:
        files = [f for f in files if f.stem in args.names]
    rows = [bench(f, args.repeat) for f in files]
    hdr = f"{'kernel':16s} {'stmts':>5s} {'deps':>5s} {'parse+model':>11s} {'deps':>8s} {'p+m+d':>8s} {'codegen':>8s}"
    print(hdr)
    print("-" * len(hdr))
    for r in rows:
        print(f"{r['kernel']:16s} {r['statements']:5d} {r['dependences']:5d} "
              f"{r['parse_model_ms']:9.1f}ms {r['deps_ms']:6.1f}ms {r['front_total_ms']:6.1f}ms "
              f"{r['codegen_ms']:6.1f}ms")
    pm = [r["front_total_ms"] for r in rows]
    cg = [r["codegen_ms"] for r in rows]
    summary = {"median_front_total_ms": round(statistics.median(pm), 2),
               "max_front_total_ms": round(max(pm), 2),
               "median_codegen_ms": round(statistics.median(cg), 2),
               "max_codegen_ms": round(max(cg), 2),
               "kernels_over_100ms_front": [r["kernel"] for r in rows if r["front_total_ms"] >= 100],
               "kernels_over_100ms_codegen": [r["kernel"] for r in rows if r["codegen_ms"] >= 100]}
    print("-" * len(hdr))
    print(f"parse+model+deps: median {summary['median_front_total_ms']} ms, max "
          f"{summary['max_front_total_ms']} ms (target < 100 ms per kernel)")
    print(f"codegen:          median {summary['median_codegen_ms']} ms, max "
          f"{summary['max_codegen_ms']} ms (target < 100 ms)")
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": rows, "summary": summary}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
